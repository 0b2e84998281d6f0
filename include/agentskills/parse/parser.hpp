// agentskills-cpp — SKILL.md parsing and validation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "../base/diagnostics.hpp"
#include "../base/skill.hpp"

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

/// Longest frontmatter that ParseOptions::yaml_recovery tries to recover (docs/security.md): the
/// recovery reads each top-level entry on its own, at most twice, then the whole text again.
inline constexpr std::size_t SKILL_MAX_YAML_RECOVERY_BYTES = 64 * 1024;

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
    /// False: `SkillManifest::frontmatter` is left empty (reads as `{}`) instead of holding the
    /// whole frontmatter as JSON. For callers that never read it (a catalog block needs only the
    /// typed fields); it saves the tree's memory and the time to build it. Nothing else changes:
    /// the same fields, diagnostics and skip reasons.
    bool frontmatter_json = true;
    /// How the frontmatter JSON types its scalars. Under `core_schema`, a frontmatter that the
    /// core schema cannot make a JSON object (a key twice, `.inf`, a value its tag does not fit)
    /// is left empty (`{}`) with a `frontmatter-not-json` warning.
    FrontmatterTyping frontmatter_typing = FrontmatterTyping::text;
    /// A frontmatter that is not valid YAML: skipped, or recovered (YamlRecovery). The reference
    /// profile never recovers.
    YamlRecovery yaml_recovery = YamlRecovery::none;
};

/// What `parse_skill_md` found: either a skill that is kept (`manifest()` is set) or a skill
/// that is left out (`skip_reason()` is set), never both and never neither. The two states are
/// one private `std::variant`, so no code can set one without clearing the other; a default
/// ParseResult is a skip with the reason `invalid`. `instructions` and `diagnostics` are there in
/// either state (a skipped skill has its error diagnostics, and its instructions when they were
/// split off).
class ParseResult {
public:
    ParseResult() noexcept = default;

    /// True when the skill is kept.
    [[nodiscard]] bool ok() const noexcept { return std::holds_alternative<SkillManifest>(state_); }
    /// The manifest of a kept skill; nullptr when the skill is skipped.
    [[nodiscard]] const SkillManifest* manifest() const noexcept { return std::get_if<SkillManifest>(&state_); }
    [[nodiscard]] SkillManifest* manifest() noexcept { return std::get_if<SkillManifest>(&state_); }
    /// Why the skill is skipped; empty when it is kept.
    [[nodiscard]] std::optional<SkipReason> skip_reason() const noexcept {
        if (const SkipReason* r = std::get_if<SkipReason>(&state_)) return *r;
        return std::nullopt;
    }

    /// Keeps the skill with `m` (a skip reason is dropped).
    void keep(SkillManifest m) { state_ = std::move(m); }
    /// Leaves the skill out for `reason` (a manifest is dropped).
    void skip(SkipReason reason) noexcept { state_ = reason; }

    /// The text after the frontmatter, trimmed of blank lines (LoadedSkill::instructions; this
    /// field was `body` before 0.2).
    std::string instructions;
    Diagnostics diagnostics;  ///< every finding, errors and warnings

private:
    std::variant<SkipReason, SkillManifest> state_ = SkipReason::invalid;
};

/// Parses the text of one SKILL.md. Never throws on bad input: every problem is a diagnostic.
[[nodiscard]] ParseResult parse_skill_md(std::string_view text, const ParseOptions& options = {});

/// Deprecated: set `ParseOptions::truncated` instead (this overload does just that).
[[deprecated("set ParseOptions::truncated instead")]] [[nodiscard]] ParseResult parse_skill_md(
    std::string_view text, const ParseOptions& options, bool truncated);

}  // namespace agentskills
