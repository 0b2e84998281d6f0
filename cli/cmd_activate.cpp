// agentskills activate — the tool results one run returns for activation calls, in order.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/harness/messages.hpp>

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
    SkillCatalogPtr catalog = discover_sources(args.sources);
    SkillActivatorOptions options;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    options.tool_name = args.tool_name;
    const SkillActivator activator(catalog, std::move(options));
    MemoryActivationStore store;  // one conversation
    std::vector<Message> results;
    std::vector<std::string> failed;  // names the call did not activate, with what the model got
    for (std::size_t i = 0; i < args.names.size(); ++i) {
        std::string result = activation_tool_result(activator, store, args.names[i]);
        const SkillManifest* skill = activator.find(args.names[i]);
        if (skill == nullptr || !store.is_active(skill->name)) {
            failed.push_back(fmt::format("'{}' was not activated: {}", args.names[i], result));
        }
        results.push_back(tool_message(fmt::format("call_{}", i + 1), args.tool_name, std::move(result)));
    }
    if (args.json) {
        print_json(to_json(results));
    } else {
        for (std::size_t i = 0; i < results.size(); ++i) {
            if (i > 0) fmt::print("\n");
            fmt::print("{}\n", results[i].content);
        }
    }
    // What the model got is printed either way; a name it could not activate is a failure.
    for (const auto& f : failed) print_error(f);
    return failed.empty() ? exit_ok : exit_failure;
}

}  // namespace
void setup_activate(CLI::App& app, int* status) {
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

}  // namespace agentskills::cli
