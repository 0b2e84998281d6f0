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
    auto shim = std::make_shared<SkillsShim>(SkillsShimOptions{.catalog = catalog, .tool_name = args.tool_name});
    // The first response calls the activation tool once per name; the next request carries the
    // tools the model sees with those skills active. Without names, the first request does.
    std::vector<ToolCall> calls;
    for (std::size_t i = 0; i < args.names.size(); ++i) {
        calls.push_back({.id = fmt::format("call_{}", i + 1),
                         .name = args.tool_name,
                         .arguments = nlohmann::json{{"name", args.names[i]}}.dump()});
    }
    std::vector<Message> script;
    if (!calls.empty()) script.push_back(assistant_message("", calls));
    script.push_back(assistant_message(""));
    auto model = std::make_shared<ScriptedModel>(std::move(script));
    DefaultAgent agent({.name = "agentskills-tools",
                        .instructions = "",
                        .model = model,
                        .tools = pool_tools(args.pool),
                        .shims = {shim}},
                       {.max_turns = 2, .parallel_tool_calls = false, .hooks = nullptr});
    (void)agent.run("tools");

    // A name the shim did not activate (unknown, hidden from the model, or failing to load):
    // report the tool result the model got.
    const std::vector<std::string> active = shim->active_skill_names(agent.run_state());
    int status = exit_ok;
    for (std::size_t i = 0; i < args.names.size(); ++i) {
        const std::string& name = args.names[i];
        if (std::find(active.begin(), active.end(), name) != active.end()) continue;
        std::string result;
        for (const auto& m : agent.run_state().history) {
            if (m.role == Role::tool && m.tool_call_id == calls[i].id) result = m.content;
        }
        fmt::print(stderr, "agentskills tools: '{}' was not activated: {}\n", terminal_text(name),
                   terminal_text(result));
        status = exit_failure;
    }
    if (status != exit_ok) return status;

    const std::vector<ModelRequest> requests = model->requests();
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
