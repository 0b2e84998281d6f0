// agentskills CLI — helpers shared by the shim commands (prompt, activate, to-prompt).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/activation.hpp>
#include <agentskills/catalog.hpp>
#include <agentskills/diagnostics.hpp>
#include <agentskills/loader.hpp>
#include <agentskills/text.hpp>

#include "source_options.hpp"

namespace agentskills::cli {

/// Discovers the sources of `sources` (the local file system for roots, no standard roots; a
/// missing root is an error unless the flags say otherwise) and reports every skipped skill on
/// stderr, one line each:
/// `agentskills COMMAND: skipped (REASON): MESSAGE` (the message names the file; escaped with
/// terminal_text, so it is one line whatever the file is called), then, once, the aggregated
/// warning about Claude Code fields the skills use that the library does not implement:
/// `agentskills COMMAND: warning: MESSAGE [ignored-behavioral-fields]`.
inline SkillCatalogPtr discover_sources(const SourceArgs& sources, const char* command) {
    SkillCatalogPtr catalog = discover_skill_catalog(make_source_loader(sources, {}));
    for (const auto& s : catalog->skipped())
        fmt::print(stderr, "agentskills {}: skipped ({}): {}\n", command, to_string(s.reason),
                   terminal_text(s.message));
    if (auto w = ignored_behavioral_fields_warning(catalog->skills()))
        fmt::print(stderr, "agentskills {}: warning: {} [{}]\n", command, terminal_text(w->message), w->code);
    return catalog;
}

/// discover_sources over the local roots `roots`.
inline SkillCatalogPtr discover_roots(const std::vector<std::string>& roots, const char* command) {
    SourceArgs sources;
    sources.roots = roots;
    return discover_sources(sources, command);
}

}  // namespace agentskills::cli
