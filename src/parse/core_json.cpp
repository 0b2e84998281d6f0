// agentskills-cpp (private) — a frontmatter as JSON under the YAML 1.2 core schema.
//
// SkillManifest::frontmatter keeps every scalar as its literal text by default. The MCP skills
// extension wants the frontmatter "rendered verbatim as a JSON object", which clients compare
// against what their own YAML parser gives, and `list --json` (schema 2) prints the same values:
// so the front end's tree (yaml.hpp, which keeps whether a scalar was plain and its explicit tag)
// is typed here, once, for both (ParseOptions::frontmatter_typing, mcp/shared/frontmatter_json.cpp).
#include "core_json.hpp"
#include "yaml_json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <locale>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include "agentskills/base/names.hpp"

namespace agentskills::detail {

using nlohmann::json;

// In a namespace of their own: a unity build puts this file beside other users of such names.
namespace {
namespace core_typing {

constexpr std::string_view TAG_PREFIX = "tag:yaml.org,2002:";

// The YAML 1.2 core schema's resolution patterns (spec 10.3.2), matched by hand.
bool one_of(std::string_view text, std::initializer_list<std::string_view> words) {
    return std::find(words.begin(), words.end(), text) != words.end();
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
/// Consumes one or more characters satisfying `pred`; false when there is none.
template <class Pred>
bool take_run(std::string_view& s, Pred pred) {
    std::size_t n = 0;
    while (n < s.size() && pred(s[n])) ++n;
    s.remove_prefix(n);
    return n > 0;
}
void take_sign(std::string_view& s) {
    if (!s.empty() && (s.front() == '-' || s.front() == '+')) s.remove_prefix(1);
}
bool is_int(std::string_view s) {  // [-+]?[0-9]+
    take_sign(s);
    return take_run(s, is_digit) && s.empty();
}
bool is_prefixed(std::string_view s, std::string_view prefix, bool (*pred)(char)) {
    if (s.substr(0, prefix.size()) != prefix) return false;
    s.remove_prefix(prefix.size());
    return take_run(s, pred) && s.empty();
}
bool is_octal_digit(char c) { return c >= '0' && c <= '7'; }
bool is_hex_digit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_float(std::string_view s) {  // [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
    take_sign(s);
    if (!s.empty() && s.front() == '.') {
        s.remove_prefix(1);
        if (!take_run(s, is_digit)) return false;
    } else {
        if (!take_run(s, is_digit)) return false;
        if (!s.empty() && s.front() == '.') {
            s.remove_prefix(1);
            (void)take_run(s, is_digit);
        }
    }
    if (!s.empty() && (s.front() == 'e' || s.front() == 'E')) {
        s.remove_prefix(1);
        take_sign(s);
        if (!take_run(s, is_digit)) return false;
    }
    return s.empty();
}
bool is_special_float(std::string_view s) {  // [-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)
    if (one_of(s, {".nan", ".NaN", ".NAN"})) return true;
    take_sign(s);
    return one_of(s, {".inf", ".Inf", ".INF"});
}

double parse_double(std::string_view text) {
    std::istringstream in{std::string(text)};
    in.imbue(std::locale::classic());
    double value = 0;
    in >> value;
    if (!std::isfinite(value)) {
        throw std::runtime_error(fmt::format("the number {} cannot be represented in JSON", text));
    }
    return value;
}

json integer_value(std::string_view digits, int base, bool negative) {
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (ec == std::errc() && end == digits.data() + digits.size()) {
        if (!negative) return json(value);
        if (value <= static_cast<std::uint64_t>(INT64_MAX)) return json(-static_cast<std::int64_t>(value));
        if (value == static_cast<std::uint64_t>(INT64_MAX) + 1u) return json(INT64_MIN);
    }
    // Beyond 64 bits: the nearest double, as a JSON reader of the number would give.
    double d = 0;
    for (char c : digits) {
        const int v = (c >= '0' && c <= '9') ? c - '0' : (c | 0x20) - 'a' + 10;
        d = d * base + v;
    }
    if (!std::isfinite(d)) throw std::runtime_error("an integer is too large for JSON");
    return json(negative ? -d : d);
}

json typed_scalar(std::string_view tag, const std::string& value, bool plain) {
    if (plain) return core_schema_scalar(value);
    if (tag == "!" || tag.empty()) return json(value);
    if (tag.substr(0, TAG_PREFIX.size()) == TAG_PREFIX) {
        const std::string_view kind = tag.substr(TAG_PREFIX.size());
        if (kind == "str") return json(value);
        json typed = core_schema_scalar(value);
        if (kind == "null" && typed.is_null()) return typed;
        if (kind == "bool" && typed.is_boolean()) return typed;
        if (kind == "int" && typed.is_number_integer()) return typed;
        if (kind == "float" && typed.is_number()) return json(typed.get<double>());
        throw std::runtime_error(fmt::format("the value \"{}\" does not fit its tag !!{}", value, kind));
    }
    // A local or unknown tag: a YAML 1.2 parser keeps the scalar as its text.
    return json(value);
}

/// The JSON of the front end's tree of one document: scalars typed, keys strings kept as the
/// text they were written as, no key twice in one mapping, within the depth and node bounds the
/// front end applied (aliases expanded). The checks run in document order over what was read,
/// so that an error of the text before the place where a bound stopped the read (or yaml-cpp
/// did) is the one reported.
class CoreJson {
public:
    CoreJson(const YamlTree& tree, std::size_t max_depth, std::size_t max_nodes)
        : tree_(tree), max_depth_(max_depth), max_nodes_(max_nodes) {}

    /// The frontmatter's value: a mapping (an empty document is an empty one).
    [[nodiscard]] json take() const {
        json value;
        if (tree_.root) (void)build(*tree_.root, value);
        if (tree_.problem) refuse();
        if (!tree_.root || value.is_null()) return json::object();
        if (!value.is_object()) throw std::runtime_error("the frontmatter is not a mapping");
        return value;
    }

private:
    [[noreturn]] void refuse() const {
        using Kind = YamlProblem::Kind;
        const YamlProblem& p = *tree_.problem;
        const std::size_t line = p.mark ? p.mark->line + 1 : 0;
        switch (p.kind) {
            case Kind::nodes:
                throw std::runtime_error(
                    fmt::format("line {}: the frontmatter expands to more than {} values", line, max_nodes_));
            case Kind::depth:
                throw std::runtime_error(
                    fmt::format("line {}: the frontmatter nests deeper than {} levels", line, max_depth_));
            case Kind::second_document:
                throw std::runtime_error("the frontmatter holds more than one YAML document");
            default:
                throw std::runtime_error(fmt::format("the frontmatter is not valid YAML: {}", p.what));
        }
    }

    // The core schema's rules for the one walk (yaml_json.hpp).
    struct Rules {
        const YamlTree& tree;

        [[nodiscard]] json scalar(const YNode& n) const {
            if (n.kind == YNode::Kind::null) return nullptr;
            return typed_scalar(tree.tag(n), n.text, n.has(YNode::plain));
        }
        [[noreturn]] void unresolved_alias(const YNode&) const {
            throw std::runtime_error("an alias names an unknown anchor");
        }
        // An alias of an anchored key scalar is that key's text.
        bool alias_value(const YNode& n, json& out) const {
            if (n.extra == 0 || !tree.extras[n.extra - 1].copied_key) return false;
            out = json(n.text);
            return true;
        }
        bool key(const YNode& k, bool copy, std::string& text) const {
            if ((k.has(YNode::alias) && !copy) || k.kind != YNode::Kind::scalar) {
                throw std::runtime_error(
                    fmt::format("line {}: a mapping key must be a string scalar", tree.alias_mark(k).line + 1));
            }
            text = k.text;
            return true;
        }
        static constexpr bool checks_duplicates = true;
        bool missing_value(const YNode&, const std::string&) const { return true; }
        [[noreturn]] void duplicate_key(const YNode& value, const std::string& key) const {
            throw std::runtime_error(fmt::format("line {}: the key \"{}\" appears twice in one mapping",
                                                 tree.alias_mark(value).line + 1, key));
        }
    };

    // The JSON of `n` into `out`; false when `n` is a collection the read stopped inside.
    bool build(const YNode& n, json& out) const { return yaml_tree_json(n, out, Rules{tree_}); }

    const YamlTree& tree_;
    std::size_t max_depth_;
    std::size_t max_nodes_;
};

}  // namespace core_typing
}  // namespace

YamlOptions core_json_options(std::size_t max_depth, std::size_t max_nodes, bool fast_path) {
    return {.bounds = {.max_nodes = max_nodes,
                       .max_text_bytes = yaml_unbounded,
                       .max_depth = max_depth,
                       .max_json_bytes = yaml_unbounded,
                       .text = YamlBounds::Text::copied,
                       .keys_count = false,  // a key is not a value
                       .anchor_copies_count = false,
                       .alias_counts_itself = false,
                       .alias_depth = false},
            .prescan = false,
            .valid_utf8 = false,
            .one_document = true,
            .fast_path = fast_path};
}

json core_json(const YamlTree& tree, std::size_t max_depth, std::size_t max_nodes) {
    return core_typing::CoreJson(tree, max_depth, max_nodes).take();
}

json core_json(std::string_view yaml, std::size_t max_depth, std::size_t max_nodes) {
    YamlTree tree = read_yaml_tree(yaml, core_json_options(max_depth, max_nodes, true));
    json value = core_json(tree, max_depth, max_nodes);
    if (tree.root) recycle_yaml_tree(std::move(*tree.root));  // room for the next frontmatter's tree
    return value;
}

json core_schema_scalar(std::string_view plain) {
    using namespace core_typing;
    if (plain.empty() || one_of(plain, {"~", "null", "Null", "NULL"})) return json(nullptr);
    if (one_of(plain, {"true", "True", "TRUE"})) return json(true);
    if (one_of(plain, {"false", "False", "FALSE"})) return json(false);
    if (is_int(plain)) {
        const bool negative = plain.front() == '-';
        std::string_view digits = plain;
        if (digits.front() == '-' || digits.front() == '+') digits.remove_prefix(1);
        return integer_value(digits, 10, negative);
    }
    if (is_prefixed(plain, "0o", is_octal_digit)) return integer_value(plain.substr(2), 8, false);
    if (is_prefixed(plain, "0x", is_hex_digit)) return integer_value(plain.substr(2), 16, false);
    if (is_float(plain)) return json(parse_double(plain));
    if (is_special_float(plain)) {
        throw std::runtime_error(fmt::format("the number {} cannot be represented in JSON", plain));
    }
    return json(std::string(plain));
}

std::optional<json> simple_core_json(std::string_view yaml) {
    if (!is_valid_utf8(yaml)) return std::nullopt;
    std::optional<YNode> root = read_common_yaml(yaml);
    if (!root) return std::nullopt;
    YamlTree tree;
    tree.root = std::move(root);
    try {
        return core_json(tree, 64, 100000);
    } catch (const std::exception&) {
        return std::nullopt;  // yaml-cpp's path gives the error
    }
}

}  // namespace agentskills::detail
