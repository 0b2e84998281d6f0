// agentskills tools — the tool names the model sees once some skills are active.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/errors.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/skills_shim.hpp>
#include <agentskills/text.hpp>

#include "command.hpp"
#include "shim_support.hpp"

namespace agentskills::cli {
namespace {

struct ToolsArgs {
    SourceArgs sources;
    std::vector<std::string> pool;
    std::vector<std::string> names;
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
};

/// The pool as agent tools: each name once, in the order given; empty names are left out.
std::vector<Tool> pool_tools(const std::vector<std::string>& pool) {
    std::vector<Tool> tools;
    for (const auto& name : pool) {
        if (name.empty()) continue;
        const bool seen = std::any_of(tools.begin(), tools.end(), [&](const Tool& t) { return t.spec.name == name; });
        if (seen) continue;
        tools.push_back({.spec = {.name = name}, .handler = [](const ToolCall&, RunState&) { return std::string(); }});
    }
    return tools;
}

int run(const ToolsArgs& args) {
    SkillCatalogPtr catalog = discover_sources(args.sources, "tools");
    SkillsShimOptions shim_options;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    shim_options.catalog = catalog;
    shim_options.tool_name = args.tool_name;
    auto shim = std::make_shared<SkillsShim>(std::move(shim_options));
    // The first response calls the activation tool once per name; the next request carries the
    // tools the model sees with those skills active. Without names, the first request does.
    const ScriptedActivations run = run_activations(shim, args.tool_name, args.names, pool_tools(args.pool), "tools");

    // A name the shim did not activate (unknown, hidden from the model, or failing to load):
    // report the tool result the model got.
    const std::vector<std::string> active = shim->active_skill_names(run.agent->run_state());
    int status = exit_ok;
    for (std::size_t i = 0; i < args.names.size(); ++i) {
        const std::string& name = args.names[i];
        if (std::find(active.begin(), active.end(), name) != active.end()) continue;
        fmt::print(stderr, "agentskills tools: '{}' was not activated: {}\n", terminal_text(name),
                   terminal_text(run.result_of(i)));
        status = exit_failure;
    }
    if (status != exit_ok) return status;

    const std::vector<ModelRequest> requests = run.model->requests();
    // One name per line, whatever bytes a pool name holds.
    for (const auto& spec : requests.back().tools) std::cout << terminal_text(spec.name) << '\n';
    return exit_ok;
}

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<ToolsArgs>();
    auto* cmd =
        app.add_subcommand("tools",
                           "Print the names of the tools the model sees (one per line) after the skills NAME... "
                           "are activated, given the agent's own tools --pool");
    add_source_options(*cmd, args->sources, {.roots_required = true});
    cmd->add_option("--pool", args->pool, "The agent's own tools, comma-separated (repeatable)")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--activate", args->names, "Skills to activate, in order");
    cmd->add_option("--tool-name", args->tool_name, "Name of the activation tool")->capture_default_str();
    cmd->callback([args, status] {
        try {
            *status = run(*args);
        } catch (const ConfigurationError& e) {
            fmt::print(stderr, "agentskills tools: {}\n", e.what());
            *status = exit_failure;
        }
    });
}

const RegisterCommand registration{"tools", setup};

}  // namespace
}  // namespace agentskills::cli
