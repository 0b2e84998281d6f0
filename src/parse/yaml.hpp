// agentskills-cpp (private) — the parts of the SKILL.md parser below the field rules: the YAML
// tree and its bounds (parse_yaml.cpp) and the text helpers (parse_text.cpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills::detail {

// ---- YAML (parse_yaml.cpp)

// A small YAML tree with positions, built from yaml-cpp events. Every scalar keeps its literal
// text (no YAML 1.1 typing), which yaml-cpp's event API gives directly.
struct YNode {
    enum class Kind { null, scalar, sequence, mapping };
    Kind kind = Kind::null;
    std::string text;          // scalar text; for null, the literal spelling ("" when empty)
    std::vector<YNode> items;  // sequence items; mapping: key, value, key, value, ...
    std::size_t line = 0;      // 0-based line in the frontmatter
    std::size_t anchor = 0;    // yaml-cpp's anchor id; 0 = none

    [[nodiscard]] bool is_scalar() const noexcept { return kind == Kind::scalar || kind == Kind::null; }
};

// Findings that only the reference profile rejects: line (0-based), what.
// What a strict-YAML finding of a flow collection says (both YAML readers use it).
inline constexpr std::string_view flow_collection_finding = "a flow collection ([...] or {...})";

struct StrictFindings {
    std::vector<std::pair<std::size_t, std::string>> list;
    void add(std::size_t line, std::string what) { list.emplace_back(line, std::move(what)); }
};

// A refusal of the frontmatter: a diagnostic code, the 0-based frontmatter line when one applies,
// and the sentence to report.
struct YamlProblem {
    std::string_view code;
    std::optional<std::size_t> line;
    std::string message;
};

// The first document of `frontmatter` as a tree (nullopt for an empty document), or the
// problem: a pre-scan bound, a yaml-cpp error, a node/byte/depth budget, the JSON budget.
struct YamlRead {
    std::optional<YNode> root;
    std::optional<YamlProblem> problem;
};
[[nodiscard]] YamlRead read_yaml(std::string_view frontmatter, StrictFindings& strict);

// The pre-scan run by read_yaml before yaml-cpp sees the text (token floods, document markers).
[[nodiscard]] std::optional<YamlProblem> prescan_frontmatter(std::string_view frontmatter);

// JSON forms of a tree: scalars as their text, mappings as objects (a key that is not a scalar
// becomes its compact JSON text).
[[nodiscard]] nlohmann::json to_json(const YNode& n);
[[nodiscard]] std::string key_text(const YNode& key);

// ---- Text (parse_text.cpp)

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

}  // namespace agentskills::detail
