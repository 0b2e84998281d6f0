// agentskills tools — the tool names the model sees once some skills are active.
#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/text.hpp>

#include "command.hpp"
#include "messages.hpp"
#include "shim_support.hpp"

namespace agentskills::cli {
namespace {

struct ToolsArgs {
    SourceArgs sources;
    std::vector<std::string> pool;
    std::vector<std::string> names;
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
};

int run(const ToolsArgs& args) {
    SkillCatalogPtr catalog = discover_sources(args.sources);
    SkillActivatorOptions options;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    options.tool_name = args.tool_name;
    const SkillActivator activator(catalog, std::move(options));
    // The agent's own tools: each name once, in the order given; empty names are left out. The
    // activation tool comes after them when some skill is model-invocable.
    std::vector<std::string> tools;
    for (const auto& name : args.pool) {
        if (!name.empty() && std::find(tools.begin(), tools.end(), name) == tools.end()) tools.push_back(name);
    }
    if (!activator.invocable_names().empty()) {
        if (std::find(tools.begin(), tools.end(), args.tool_name) != tools.end()) {
            throw UsageError(fmt::format("two tools named '{}' in one turn", args.tool_name));
        }
        tools.push_back(args.tool_name);
    }
    // Activate the names in order, in one conversation; a name that is not activated (unknown,
    // hidden from the model, or failing to load) is reported with the tool result the model got.
    MemoryActivationStore store;
    int status = exit_ok;
    for (const auto& name : args.names) {
        const std::string result = activation_tool_result(activator, store, name);
        const SkillManifest* skill = activator.find(name);
        if (skill != nullptr && store.is_active(skill->name)) continue;
        print_error(fmt::format("'{}' was not activated: {}", name, result));
        status = exit_failure;
    }
    if (status != exit_ok) return status;
    // One name per line, whatever bytes a pool name holds.
    const ToolFilter filter = activator.tool_filter(store, {args.tool_name});
    for (const auto& name : tools) {
        if (filter.keeps(name)) std::cout << terminal_text(name) << '\n';
    }
    return exit_ok;
}

}  // namespace
void setup_tools(CLI::App& app, int* status) {
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
    cmd->callback([args, status] { *status = run(*args); });
}

}  // namespace agentskills::cli
