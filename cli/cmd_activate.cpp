// agentskills activate — the tool results one run returns for activation calls, in order.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/harness.hpp>
#include <agentskills/skills_shim.hpp>

#include "command.hpp"
#include "json_output.hpp"
#include "shim_support.hpp"

namespace agentskills::cli {
namespace {

struct ActivateArgs {
    SourceArgs sources;
    std::vector<std::string> names;
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
    bool json = false;
};

int run(const ActivateArgs& args) {
    SkillCatalogPtr catalog = discover_sources(args.sources, "activate");
    SkillsShimOptions shim_options;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    shim_options.catalog = catalog;
    shim_options.tool_name = args.tool_name;
    auto shim = std::make_shared<SkillsShim>(std::move(shim_options));
    // One response that calls the activation tool once per name, in order; then an answer.
    const ScriptedActivations run = run_activations(shim, args.tool_name, args.names, {}, "activate");
    std::vector<Message> results;
    for (const auto& m : run.agent->run_state().history) {
        if (m.role == Role::tool) results.push_back(m);
    }
    if (args.json) {
        print_json(to_json(results));
        return exit_ok;
    }
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (i > 0) fmt::print("\n");
        fmt::print("{}\n", results[i].content);
    }
    return exit_ok;
}

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<ActivateArgs>();
    auto* cmd =
        app.add_subcommand("activate",
                           "Print what the activation tool returns, in order, when one run calls it for each NAME "
                           "(a repeated name gets the already-active result)");
    add_source_options(*cmd, args->sources, {.roots_required = true});
    cmd->add_option("name", args->names, "Skill names, in call order")->required();
    cmd->add_option("--tool-name", args->tool_name, "Name of the activation tool")->capture_default_str();
    cmd->add_flag("--json", args->json, "Print the tool messages as chat-completions JSON");
    cmd->callback([args, status] { *status = run(*args); });
}

const RegisterCommand registration{"activate", setup};

}  // namespace
}  // namespace agentskills::cli
