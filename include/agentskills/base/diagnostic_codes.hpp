// agentskills-cpp — every diagnostic code the library emits, in one place.
//
// Codes are stable, kebab-case strings; docs/diagnostics.md lists each with its severity, what it
// means and what to do. Add a code here (and there) before emitting it: a test fails when a
// constant is missing from the doc, and another when a code that is not in this list is emitted.
#pragma once

#include <array>
#include <string_view>

namespace agentskills::codes {

// --- reading the file
inline constexpr std::string_view too_large = "too-large";
inline constexpr std::string_view too_many_lines = "too-many-lines";
inline constexpr std::string_view nul_byte = "nul-byte";
inline constexpr std::string_view invalid_utf8 = "invalid-utf8";
inline constexpr std::string_view bom = "bom";
inline constexpr std::string_view skill_file_missing = "skill-file-missing";
// --- frontmatter and YAML
inline constexpr std::string_view frontmatter_missing = "frontmatter-missing";
inline constexpr std::string_view frontmatter_unclosed = "frontmatter-unclosed";
inline constexpr std::string_view frontmatter_not_mapping = "frontmatter-not-mapping";
inline constexpr std::string_view yaml_syntax = "yaml-syntax";
inline constexpr std::string_view yaml_too_complex = "yaml-too-complex";
inline constexpr std::string_view yaml_strict = "yaml-strict";
/// A top-level value that YAML could not read as plain text was read as quoted text
/// (ParseOptions::yaml_recovery).
inline constexpr std::string_view yaml_recovered = "yaml-recovered";
inline constexpr std::string_view duplicate_key = "duplicate-key";
inline constexpr std::string_view unknown_field = "unknown-field";
inline constexpr std::string_view field_type = "field-type";
inline constexpr std::string_view frontmatter_not_json = "frontmatter-not-json";
// --- fields
inline constexpr std::string_view name_missing = "name-missing";
inline constexpr std::string_view name_not_string = "name-not-string";
inline constexpr std::string_view name_blank = "name-blank";
inline constexpr std::string_view name_too_long = "name-too-long";
inline constexpr std::string_view name_not_lowercase = "name-not-lowercase";
inline constexpr std::string_view name_hyphen_edge = "name-hyphen-edge";
inline constexpr std::string_view name_consecutive_hyphens = "name-consecutive-hyphens";
inline constexpr std::string_view name_invalid_character = "name-invalid-character";
inline constexpr std::string_view name_invalid = "name-invalid";
inline constexpr std::string_view name_directory_mismatch = "name-directory-mismatch";
inline constexpr std::string_view description_missing = "description-missing";
inline constexpr std::string_view description_not_string = "description-not-string";
inline constexpr std::string_view description_blank = "description-blank";
inline constexpr std::string_view description_too_long = "description-too-long";
inline constexpr std::string_view description_control_character = "description-control-character";
inline constexpr std::string_view compatibility_not_string = "compatibility-not-string";
inline constexpr std::string_view compatibility_too_long = "compatibility-too-long";
inline constexpr std::string_view license_not_string = "license-not-string";
inline constexpr std::string_view metadata_not_mapping = "metadata-not-mapping";
inline constexpr std::string_view invocation_flag_invalid = "invocation-flag-invalid";
inline constexpr std::string_view tool_list_too_long = "tool-list-too-long";
inline constexpr std::string_view tool_list_empty = "tool-list-empty";
// --- discovery
inline constexpr std::string_view root_missing = "root-missing";
inline constexpr std::string_view root_not_a_directory = "root-not-a-directory";
inline constexpr std::string_view root_is_skill_package = "root-is-skill-package";
inline constexpr std::string_view skill_unreadable = "skill-unreadable";
inline constexpr std::string_view skill_skipped = "skill-skipped";
inline constexpr std::string_view duplicate_name = "duplicate-name";
inline constexpr std::string_view duplicate_copy = "duplicate-copy";
inline constexpr std::string_view entry_name_refused = "entry-name-refused";
inline constexpr std::string_view confusable_name = "confusable-name";
inline constexpr std::string_view root_unreadable = "root-unreadable";
/// An `exclude` name that matches no skill (a warning: the run goes on without it).
inline constexpr std::string_view exclude_unknown = "exclude-unknown";
/// A library child archive (`.skill` / `.zip`) refused as a whole (docs/sources.md).
inline constexpr std::string_view archive_refused = "archive-refused";
// --- admission (overrides, trust, lock) and nested discovery
/// An override rule set the skill `off` (SkipReason::disabled).
inline constexpr std::string_view skill_disabled = "skill-disabled";
/// A skill of an untrusted root that the trust callback did not allow (SkipReason::untrusted).
inline constexpr std::string_view skill_untrusted = "skill-untrusted";
/// A file of the skill differs from the lock file (SkipReason::digest_mismatch).
inline constexpr std::string_view digest_mismatch = "digest-mismatch";
/// A skill the lock file does not hold, refused (SkipReason::not_locked).
inline constexpr std::string_view not_locked = "not-locked";
/// The nested walk of a root stopped at its depth or directory bound.
inline constexpr std::string_view nested_limit = "nested-limit";
/// A group directory whose name breaks the name rules; not descended.
inline constexpr std::string_view nested_group_refused = "nested-group-refused";
/// A Claude Code plugin or marketplace entry (or a whole manifest) left out: a remote source, a
/// manifest that cannot be read or used, a name that breaks the rules, a path outside the root.
inline constexpr std::string_view plugin_refused = "plugin-refused";
// --- run time (SkillsShim, the activation core)
inline constexpr std::string_view ignored_behavioral_fields = "ignored-behavioral-fields";
inline constexpr std::string_view prompt_budget_omitted = "prompt-budget-omitted";
inline constexpr std::string_view resource_list_truncated = "resource-list-truncated";
/// A skill the MCP server does not serve (outside the skills extension's rules or limits).
inline constexpr std::string_view mcp_skill_left_out = "mcp-skill-left-out";
// --- reloading (LiveCatalog and its watcher)
/// The watcher could not watch every directory (its limit, or the system's inotify limit).
inline constexpr std::string_view watch_incomplete = "watch-incomplete";
/// A refresh the watcher ran failed; the current generation stays.
inline constexpr std::string_view refresh_failed = "refresh-failed";
// --- MCP servers as skill sources (McpSkillLoader)
/// A served skill failed one of the checks the skills extension asks hosts to make.
inline constexpr std::string_view mcp_verification_failed = "mcp-verification-failed";
/// An MCP server could not be reached, failed or answered with an error (its skills, or one, left out).
inline constexpr std::string_view mcp_server_error = "mcp-server-error";
/// A served skill's name is used more than once and is listed as `<prefix>:<name>`.
inline constexpr std::string_view mcp_name_qualified = "mcp-name-qualified";

/// Every code above, for tools and for the test that checks docs/diagnostics.md.
inline constexpr std::array all = {
    too_large,
    too_many_lines,
    nul_byte,
    invalid_utf8,
    bom,
    skill_file_missing,
    frontmatter_missing,
    frontmatter_unclosed,
    frontmatter_not_mapping,
    yaml_syntax,
    yaml_too_complex,
    yaml_strict,
    yaml_recovered,
    duplicate_key,
    unknown_field,
    field_type,
    frontmatter_not_json,
    name_missing,
    name_not_string,
    name_blank,
    name_too_long,
    name_not_lowercase,
    name_hyphen_edge,
    name_consecutive_hyphens,
    name_invalid_character,
    name_invalid,
    name_directory_mismatch,
    description_missing,
    description_not_string,
    description_blank,
    description_too_long,
    description_control_character,
    compatibility_not_string,
    compatibility_too_long,
    license_not_string,
    metadata_not_mapping,
    invocation_flag_invalid,
    tool_list_too_long,
    tool_list_empty,
    root_missing,
    root_not_a_directory,
    root_is_skill_package,
    skill_unreadable,
    skill_skipped,
    duplicate_name,
    duplicate_copy,
    entry_name_refused,
    confusable_name,
    root_unreadable,
    exclude_unknown,
    archive_refused,
    skill_disabled,
    skill_untrusted,
    digest_mismatch,
    not_locked,
    nested_limit,
    nested_group_refused,
    plugin_refused,
    ignored_behavioral_fields,
    prompt_budget_omitted,
    resource_list_truncated,
    mcp_skill_left_out,
    watch_incomplete,
    refresh_failed,
    mcp_verification_failed,
    mcp_server_error,
    mcp_name_qualified,
};

}  // namespace agentskills::codes
