// agentskills CLI — helpers shared by the shim commands (prompt, activate, tools, to-prompt).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/activation.hpp>
#include <agentskills/catalog.hpp>
#include <agentskills/diagnostics.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/loader.hpp>
#include <agentskills/skills_shim.hpp>
#include <agentskills/text.hpp>

#include "json_output.hpp"
#include "source_options.hpp"

namespace agentskills::cli {

/// Discovers the sources of `sources` (the local file system for roots, no standard roots; a
/// missing root is an error unless the flags say otherwise) and reports every skipped skill on
/// stderr, one line each:
/// `agentskills COMMAND: skipped (REASON): MESSAGE` (the message names the file; escaped with
/// terminal_text, so it is one line whatever the file is called), then, once, the aggregated
/// warning about Claude Code fields the skills use that the library does not implement:
/// `agentskills COMMAND: warning: MESSAGE [ignored-behavioral-fields]`.
/// A command that never prints a body passes `lazy_bodies` (FilesystemLoaderOptions::lazy_bodies);
/// one that prints a catalog block only (no manifest's frontmatter) passes catalog_block_defaults.
inline SkillCatalogPtr discover_sources(const SourceArgs& sources, const char* command,
                                        const SourceDefaults& defaults = {}) {
    SkillCatalogPtr catalog = discover_skill_catalog(make_source_loader(sources, defaults));
    std::string lines;  // one write to the unbuffered stderr, not one per line
    for (const auto& s : catalog->skipped()) {
        lines +=
            fmt::format("agentskills {}: skipped ({}): {}\n", command, to_string(s.reason), terminal_text(s.message));
    }
    if (auto w = ignored_behavioral_fields_warning(catalog->skills())) {
        lines += fmt::format("agentskills {}: warning: {} [{}]\n", command, terminal_text(w->message), w->code);
    }
    std::fwrite(lines.data(), 1, lines.size(), stderr);
    return catalog;
}

/// discover_sources over the local roots `roots`.
inline SkillCatalogPtr discover_roots(const std::vector<std::string>& roots, const char* command,
                                      const SourceDefaults& defaults = {}) {
    SourceArgs sources;
    sources.roots = roots;
    return discover_sources(sources, command, defaults);
}

/// What `to-prompt` and `prompt` discover with: they print the typed fields of a catalog block,
/// never a body or the frontmatter JSON.
inline constexpr SourceDefaults catalog_block_defaults{.lazy_bodies = true, .frontmatter_json = false};

/// One scripted run of an agent with `shim`: the model's first response calls the activation
/// tool `tool_name` once per name, in order (ids `call_1`, `call_2`, ...; none without names),
/// then it answers with an empty text. `tools` are the agent's own tools.
struct ScriptedActivations {
    std::vector<ToolCall> calls;
    std::shared_ptr<ScriptedModel> model;
    std::unique_ptr<DefaultAgent> agent;

    /// The tool result of calls[i] (empty when there is none).
    [[nodiscard]] std::string result_of(std::size_t i) const {
        std::string out;
        for (const auto& m : agent->run_state().history) {
            if (m.role == Role::tool && m.tool_call_id == calls[i].id) out = m.content;
        }
        return out;
    }
};

inline ScriptedActivations run_activations(const std::shared_ptr<SkillsShim>& shim, const std::string& tool_name,
                                           const std::vector<std::string>& names, std::vector<Tool> tools,
                                           const char* command) {
    ScriptedActivations run;
    for (std::size_t i = 0; i < names.size(); ++i) {
        run.calls.push_back({.id = fmt::format("call_{}", i + 1),
                             .name = tool_name,
                             .arguments = dump_json(nlohmann::json{{"name", names[i]}}, -1)});
    }
    std::vector<Message> script;
    if (!run.calls.empty()) script.push_back(assistant_message("", run.calls));
    script.push_back(assistant_message(""));
    run.model = std::make_shared<ScriptedModel>(std::move(script));
    run.agent =
        std::make_unique<DefaultAgent>(AgentDescriptor{.name = fmt::format("agentskills-{}", command),
                                                       .instructions = "",
                                                       .model = run.model,
                                                       .tools = std::move(tools),
                                                       .shims = {shim}},
                                       AgentOptions{.max_turns = 2, .parallel_tool_calls = false, .hooks = nullptr});
    (void)run.agent->run(command);
    return run;
}

}  // namespace agentskills::cli
