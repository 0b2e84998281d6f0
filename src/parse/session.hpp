// agentskills-cpp (private) — one run of parse_skill_md: the stages of a SKILL.md (parser.cpp)
// and one reader per frontmatter field (parse_fields.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "agentskills/parse/parser.hpp"
#include "yaml.hpp"

namespace agentskills::detail {

// Severity a finding has under the profile in use; `none` drops it.
enum class Level { none, info, warning, error };

class Parse {
public:
    Parse(const ParseOptions& options, ParseResult& result) : opt_(options), out_(result) {}

    // Parses `text` into the result given to the constructor: its body and diagnostics, then
    // either the manifest or the skip reason.
    void run(std::string_view text);
    // Leaves ParseResult::instructions empty (discovery under lazy_bodies: read on load).
    void drop_instructions() noexcept { keep_instructions_ = false; }

private:
    struct Split {
        std::string_view frontmatter;
        std::string_view body;
    };

    [[nodiscard]] bool reference() const noexcept { return opt_.profile == ValidationProfile::reference; }
    [[nodiscard]] bool require_valid() const noexcept { return opt_.name_policy == NamePolicy::require_valid; }

    // Adds a finding; `standard` applies to the standard profile, `ref` to the reference one.
    void add(std::string_view code, Level standard, Level ref, std::size_t file_line, std::string message);
    // An error that skips the skill (`reason` unless a reason is set already).
    void fatal(std::string_view code, std::size_t file_line, std::string message,
               SkipReason reason = SkipReason::invalid);

    [[nodiscard]] std::size_t file_line(std::size_t yaml_line) const noexcept { return yaml_line + fm_first_line_; }

    // Stages of `run` (parser.cpp); each returns false (or nullopt) when the skill is skipped.
    [[nodiscard]] bool check_text(std::string_view& text);
    [[nodiscard]] bool split_and_interpret(std::string_view text);
    [[nodiscard]] std::optional<Split> split(std::string_view text);
    [[nodiscard]] std::optional<YNode> read_frontmatter(std::string_view frontmatter);

    // The fields (parse_fields.cpp).
    void interpret(const YNode& root);
    void collect_fields(const YNode& root);
    [[nodiscard]] const YNode* find(std::string_view key) const;
    [[nodiscard]] std::size_t line_of(std::string_view key) const;
    void check_reference_keys();
    void read_name(SkillManifest& m);
    void check_name_rules(const std::string& name, std::size_t line, SkillManifest& m);
    void read_description(SkillManifest& m);
    void read_compatibility(SkillManifest& m);
    void read_license(SkillManifest& m);
    void read_metadata(SkillManifest& m);
    void read_tool_lists(SkillManifest& m);
    void read_invocation_flags(SkillManifest& m);
    void read_version_and_category(SkillManifest& m);
    void read_tags_and_aliases(SkillManifest& m);
    void note_behavioral_fields(SkillManifest& m) const;

    std::optional<std::vector<std::string>> read_list(const YNode& node, std::string_view key, bool commas);
    void cap_tool_names(std::vector<std::string>& names, std::string_view key, std::size_t line);
    std::optional<bool> read_flag(const YNode& node, std::string_view key);

    const ParseOptions& opt_;
    ParseResult& out_;
    std::string text_storage_;        // the file with LF breaks, when it had a CR
    std::optional<SkipReason> skip_;  // the first reason given; `invalid` when errors gave none
    std::size_t fm_first_line_ = 2;
    bool failed_ = false;
    bool keep_instructions_ = true;
    // Top-level keys in the order they first appear, each with its last value and that value's
    // key line. A frontmatter has a handful of keys, found by a scan; past `indexed_fields` keys
    // (a hostile file can have tens of thousands) a hash index is kept as well.
    struct Field {
        std::string key;
        const YNode* value = nullptr;
        std::size_t line = 0;
    };
    static constexpr std::size_t indexed_fields = 16;
    [[nodiscard]] const Field* field(std::string_view key) const;
    std::vector<Field> fields_;
    std::unordered_map<std::string, std::size_t> field_index_;  // empty up to indexed_fields keys
};

}  // namespace agentskills::detail
