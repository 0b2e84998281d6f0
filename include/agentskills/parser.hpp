// agentskills-cpp — SKILL.md parsing and validation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "diagnostics.hpp"
#include "skill.hpp"

namespace agentskills {

/// Bounds on the YAML frontmatter (docs/security.md). Past any of them the skill is skipped with
/// `yaml-too-complex`, except the list cap, which drops the extra names with a warning.
/// Deepest nesting of collections in the frontmatter (the top-level mapping is depth 1).
inline constexpr std::size_t SKILL_MAX_FRONTMATTER_DEPTH = 64;
/// Most YAML indicator characters (`[ ] { } , & * !`, and `- ? :` before a space or line end)
/// the frontmatter may hold; checked before yaml-cpp tokenizes it (its tokens cost ~250 bytes each).
inline constexpr std::size_t SKILL_MAX_YAML_INDICATORS = 100000;
/// Size budget of the frontmatter's JSON copy (`SkillManifest::frontmatter`), counted as an upper
/// bound of the copy printed with an indent of 2 (aliases count once per use).
inline constexpr std::size_t SKILL_MAX_FRONTMATTER_JSON_BYTES = 4 * 1024 * 1024;
/// Frontmatters larger than this are parsed at most SKILL_MAX_CONCURRENT_LARGE_PARSES at a time
/// in the process (other threads wait), so that the peak memory of a discovery does not grow with
/// its thread count. Real frontmatters are a few KB.
inline constexpr std::size_t SKILL_LARGE_FRONTMATTER_BYTES = 16 * 1024;
inline constexpr std::size_t SKILL_MAX_CONCURRENT_LARGE_PARSES = 1;
/// Most names kept in each of `allowed-tools`, `tools` and `disallowedTools` (after removing
/// duplicates); the rest are dropped with a `tool-list-too-long` warning.
inline constexpr std::size_t SKILL_MAX_TOOL_NAMES = 1000;

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
    std::string_view path = {};                    ///< used in diagnostics and `skill_file`
    std::string_view directory_name = {};          ///< for the name/directory match; empty = unknown
    /// The caller stopped reading at `max_bytes` (more followed): the skill is skipped (`too-large`).
    bool truncated = false;
};

struct ParseResult {
    std::optional<SkillManifest> manifest;  ///< empty when the skill is skipped
    std::string body;                       ///< instructions: text after the frontmatter, trimmed of blank lines
    Diagnostics diagnostics;                ///< every finding, errors and warnings
    std::optional<SkipReason> skip_reason;  ///< set exactly when `manifest` is empty

    [[nodiscard]] bool ok() const noexcept { return manifest.has_value(); }
};

/// Parses the text of one SKILL.md. Never throws on bad input: every problem is a diagnostic.
[[nodiscard]] ParseResult parse_skill_md(std::string_view text, const ParseOptions& options = {});

/// Deprecated: set `ParseOptions::truncated` instead (this overload does just that).
[[nodiscard]] ParseResult parse_skill_md(std::string_view text, const ParseOptions& options, bool truncated);

}  // namespace agentskills
