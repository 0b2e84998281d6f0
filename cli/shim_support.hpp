// agentskills CLI — helpers shared by the commands over a catalog (prompt, activate, tools, to-prompt).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/diagnostics.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>

#include "extras.hpp"
#include "json_output.hpp"
#include "messages.hpp"
#include "source_options.hpp"

namespace agentskills::cli {

/// Discovers the sources of `sources` (the local file system for roots, no standard roots; a
/// missing root is an error unless the flags say otherwise) and notes every skipped skill on
/// stderr, one line each (as print_note, so --quiet leaves them out; written at once):
/// `agentskills COMMAND: skipped (REASON): MESSAGE` (the message names the file; escaped, so it
/// is one line whatever the file is called), then, once, the aggregated warning about Claude
/// Code fields the skills use that the library does not implement:
/// `agentskills COMMAND: warning: MESSAGE [ignored-behavioral-fields]`.
/// A command that never prints a body passes `lazy_bodies` (FilesystemLoaderOptions::lazy_bodies);
/// one that prints a catalog block only (no manifest's frontmatter) passes catalog_block_defaults.
inline SkillCatalogPtr discover_sources(const SourceArgs& sources, const SourceDefaults& defaults = {}) {
    restart_for_large_library(sources.roots);
    SkillCatalogPtr catalog = discover_skill_catalog(make_source_loader(sources, defaults));
    MessageBatch notes;  // one write for them all
    for (const auto& s : catalog->skipped())
        notes.note(fmt::format("skipped ({}): {}", to_string(s.reason), s.message));
    notes.flush();
    if (auto w = ignored_behavioral_fields_warning(catalog->skills())) {
        print_warning(fmt::format("{} [{}]", w->message, w->code));
    }
    return catalog;
}

/// What `to-prompt` and `prompt` discover with: they print the typed fields of a catalog block,
/// never a body or the frontmatter JSON.
inline constexpr SourceDefaults catalog_block_defaults{.lazy_bodies = true, .frontmatter_json = false};

/// What a model's call of the activation tool with `name` gets back, as a tool result: the
/// activator's text, or `error: ...` for a load error (as an agent loop reports a tool's
/// exception). A library without a model-invocable skill offers no tool, so the call finds none.
inline std::string activation_tool_result(const SkillActivator& activator, ActivationStore& store,
                                          const std::string& name) {
    if (activator.invocable_names().empty()) {
        return fmt::format("error: no tool named '{}' is available", activator.options().tool_name);
    }
    const ActivationResult r = activator.activate_name(store, name);
    return r.status == ActivationStatus::load_error ? fmt::format("error: {}", r.error) : r.text;
}

}  // namespace agentskills::cli
