// agentskills-cpp (private) — one run of parse_skill_md: the stages of a SKILL.md (parser.cpp),
// its view of the YAML front end (yaml.hpp), one reader per frontmatter field (fields.cpp) and
// the text helpers (lines.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentskills/parse/parser.hpp"
#include "yaml.hpp"

namespace agentskills::detail {

// ---- The frontmatter's YAML (parser.cpp)

// Findings that only the reference profile rejects: line (0-based), what.
inline constexpr std::string_view flow_collection_finding = "a flow collection ([...] or {...})";
struct StrictFindings {
    std::vector<std::pair<std::size_t, std::string>> list;
    void add(std::size_t line, std::string what) { list.emplace_back(line, std::move(what)); }
};

// The strict-YAML findings of a tree in document order: flow collections, anchors, aliases, tags.
[[nodiscard]] StrictFindings strict_findings(const YamlTree& tree);

// A refusal of the frontmatter (Parse::frontmatter_problem): a diagnostic code, the line of the
// file (0 when no line applies) and the sentence to report.
struct FrontmatterProblem {
    std::string_view code;
    std::size_t line = 0;
    std::string message;
};

// The first document of `frontmatter` as a tree (nullopt for an empty document), or the
// problem: a pre-scan bound, a yaml-cpp error, a node/byte/depth budget, the JSON budget. With
// `strict`, the tree's strict-YAML findings are added to it.
struct YamlRead {
    std::optional<YNode> root;
    std::optional<YamlProblem> problem;
};
[[nodiscard]] YamlRead read_yaml(std::string_view frontmatter, StrictFindings* strict = nullptr);

// JSON forms of a tree: scalars as their text, mappings as objects (a key that is not a scalar
// becomes its compact JSON text).
[[nodiscard]] nlohmann::json to_json(const YNode& n);
[[nodiscard]] std::string key_text(const YNode& key);
// to_json of the tree read_yaml makes of `frontmatter`, a frontmatter it read without a problem
// before (the deferred SkillManifest::frontmatter of FrontmatterTyping::text).
[[nodiscard]] nlohmann::json frontmatter_text_json(std::string_view frontmatter);

// ---- Text (lines.cpp)

[[nodiscard]] bool is_blank(std::string_view s) noexcept;          // only ASCII white space
[[nodiscard]] std::string_view trim(std::string_view s) noexcept;  // ASCII white space off both ends
[[nodiscard]] bool is_delimiter(std::string_view line) noexcept;   // `---` and blanks
// `s` with every line break as LF: CRLF and a CR on its own (YAML 1.2's and Python's universal
// newlines) turned into LF; `storage` holds the text when a copy was needed.
[[nodiscard]] std::string_view with_lf_breaks(std::string_view s, std::string& storage);
// The body: without leading and trailing blank lines.
[[nodiscard]] std::string trim_blank_lines(std::string_view text);
// Items of a comma- or blank-separated list, trimmed, blanks dropped.
[[nodiscard]] std::vector<std::string> split_list(std::string_view text, bool on_commas);
// Keeps the first of equal items, in order.
void dedupe(std::vector<std::string>& v);
// A value as quoted in a diagnostic: at most 64 code points, then an ellipsis.
[[nodiscard]] std::string shown(std::string_view value);
// A C0 control other than TAB and LF, DEL, or a C1 control.
[[nodiscard]] bool has_control_character(std::string_view s) noexcept;

// ---- One run

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
    // The code, file line and sentence of a frontmatter that read_yaml refused.
    [[nodiscard]] FrontmatterProblem frontmatter_problem(const YamlProblem& p) const;

    // Stages of `run` (parser.cpp); each returns false (or nullopt) when the skill is skipped.
    [[nodiscard]] bool check_text(std::string_view& text);
    [[nodiscard]] bool split_and_interpret(std::string_view text);
    [[nodiscard]] std::optional<Split> split(std::string_view text);
    // `frontmatter` is set to the recovered text when ParseOptions::yaml_recovery changed it.
    [[nodiscard]] std::optional<YNode> read_frontmatter(std::string_view& frontmatter);
    [[nodiscard]] std::optional<YamlRead> recover(std::string_view& frontmatter);

    // The fields (parse_fields.cpp).
    void interpret(const YNode& root, std::string_view frontmatter);
    [[nodiscard]] SharedJson frontmatter_json(const YNode& root, std::string_view frontmatter);
    void collect_fields(const YNode& root);
    [[nodiscard]] const YNode* find(std::string_view key) const;
    [[nodiscard]] std::size_t line_of(std::string_view key) const;
    void check_reference_keys();
    void read_name(SkillManifest& m);
    void check_name_rules(std::string_view name, std::size_t line, SkillManifest& m);
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
    std::string recovered_storage_;   // the frontmatter that ParseOptions::yaml_recovery rewrote
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
