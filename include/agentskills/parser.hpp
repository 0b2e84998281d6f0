// agentskills-cpp — SKILL.md parsing and validation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "diagnostics.hpp"
#include "skill.hpp"

namespace agentskills {

/// Which rule set `parse_skill_md` applies.
enum class ValidationProfile {
    standard,  ///< this library's rules (docs/skill-format.md)
    reference  ///< the verdicts of the agentskills.io reference validator (skills-ref 0.1)
};

struct ParseOptions {
    NamePolicy name_policy = NamePolicy::keep;
    ValidationProfile profile = ValidationProfile::standard;
    std::size_t max_lines = SKILL_MAX_FILE_LINES;  ///< 0 = no limit
    std::size_t max_bytes = SKILL_MAX_FILE_BYTES;  ///< 0 = no limit
    std::string_view path = {};            ///< used in diagnostics and `skill_file`
    std::string_view directory_name = {};  ///< for the name/directory match; empty = unknown
};

struct ParseResult {
    std::optional<SkillManifest> manifest;  ///< empty when the skill is skipped
    std::string body;                       ///< instructions: text after the frontmatter, trimmed of blank lines
    Diagnostics diagnostics;                ///< every finding, errors and warnings
    std::optional<SkipReason> skip_reason;  ///< set exactly when `manifest` is empty

    [[nodiscard]] bool ok() const noexcept { return manifest.has_value(); }
};

/// Parses the text of one SKILL.md. Never throws on bad input: every problem is a diagnostic.
/// `truncated` says that the caller stopped reading at `max_bytes` (the skill is then skipped).
[[nodiscard]] ParseResult parse_skill_md(std::string_view text, const ParseOptions& options = {},
                                         bool truncated = false);

}  // namespace agentskills
