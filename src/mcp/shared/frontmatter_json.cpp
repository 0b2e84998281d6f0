// agentskills-cpp MCP server — SKILL.md frontmatter as JSON under the YAML 1.2 core schema.
//
// The loader keeps every frontmatter scalar as its literal text; the skills extension wants the
// frontmatter "rendered verbatim as a JSON object", which clients compare against what their
// own YAML parser gives. So the YAML is parsed again here, through yaml-cpp's event interface
// (which reports whether a scalar was plain and its explicit tag), and typed by the core schema.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <locale>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "internal.hpp"

namespace agentskills::mcp::detail {
namespace {

using nlohmann::json;

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

/// Builds the JSON tree from yaml-cpp events, with bounds on depth and node count.
class Builder final : public YAML::EventHandler {
public:
    Builder(std::size_t max_depth, std::size_t max_nodes) : max_depth_(max_depth), max_nodes_(max_nodes) {}

    void OnDocumentStart(const YAML::Mark&) override {
        if (++documents_ > 1) throw std::runtime_error("the frontmatter holds more than one YAML document");
    }
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { add(json(nullptr), anchor, mark, 1); }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        auto it = anchors_.find(anchor);
        if (it == anchors_.end()) throw std::runtime_error("an alias names an unknown anchor");
        add(it->second.value, 0, mark, it->second.nodes);
    }
    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        const bool plain = tag == "?";
        if (expecting_key()) {
            // JSON keys are strings: a scalar key is kept as the text it was written as.
            pending_key_ = value;
            have_key_ = true;
            if (anchor != 0) anchors_[anchor] = {json(value), 1};
            return;
        }
        add(typed_scalar(tag, value, plain), anchor, mark, 1);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(json::array(), anchor, mark);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(json::object(), anchor, mark);
    }
    void OnMapEnd() override { close(); }

    json result() {
        if (!done_) return json::object();  // empty frontmatter
        return std::move(root_);
    }

private:
    struct Frame {
        json value;
        YAML::anchor_t anchor = 0;
        std::size_t nodes_before = 0;
        std::string key;  // the key this container is the value of (parent is a mapping)
        bool keyed = false;
    };
    struct Anchored {
        json value;
        std::size_t nodes = 1;
    };

    [[nodiscard]] bool expecting_key() const {
        return !stack_.empty() && stack_.back().value.is_object() && !have_key_;
    }

    void count(std::size_t n, const YAML::Mark& mark) {
        nodes_ += n;
        if (nodes_ > max_nodes_) {
            throw std::runtime_error(
                fmt::format("line {}: the frontmatter expands to more than {} values", mark.line + 1, max_nodes_));
        }
    }

    void add(json value, YAML::anchor_t anchor, const YAML::Mark& mark, std::size_t nodes) {
        if (expecting_key()) {
            throw std::runtime_error(fmt::format("line {}: a mapping key must be a string scalar", mark.line + 1));
        }
        count(nodes, mark);
        if (anchor != 0) anchors_[anchor] = {value, nodes};
        place(std::move(value), mark);
    }

    void place(json value, const YAML::Mark& mark) {
        if (stack_.empty()) {
            root_ = std::move(value);
            done_ = true;
            return;
        }
        json& top = stack_.back().value;
        if (top.is_array()) {
            top.push_back(std::move(value));
            return;
        }
        if (top.contains(pending_key_)) {
            throw std::runtime_error(
                fmt::format("line {}: the key \"{}\" appears twice in one mapping", mark.line + 1, pending_key_));
        }
        top[pending_key_] = std::move(value);
        have_key_ = false;
    }

    void open(json value, YAML::anchor_t anchor, const YAML::Mark& mark) {
        if (expecting_key()) {
            throw std::runtime_error(fmt::format("line {}: a mapping key must be a string scalar", mark.line + 1));
        }
        if (stack_.size() + 1 > max_depth_) {
            throw std::runtime_error(
                fmt::format("line {}: the frontmatter nests deeper than {} levels", mark.line + 1, max_depth_));
        }
        count(1, mark);
        Frame frame{std::move(value), anchor, nodes_, {}, false};
        if (!stack_.empty() && stack_.back().value.is_object()) {
            frame.key = pending_key_;
            frame.keyed = true;
            have_key_ = false;
        }
        stack_.push_back(std::move(frame));
        marks_.push_back(mark);
    }

    void close() {
        Frame frame = std::move(stack_.back());
        stack_.pop_back();
        const YAML::Mark mark = marks_.back();
        marks_.pop_back();
        if (frame.anchor != 0) anchors_[frame.anchor] = {frame.value, nodes_ - frame.nodes_before + 1};
        if (frame.keyed) {
            pending_key_ = frame.key;
            have_key_ = true;
        }
        place(std::move(frame.value), mark);
    }

    std::size_t max_depth_;
    std::size_t max_nodes_;
    std::size_t nodes_ = 0;
    int documents_ = 0;
    std::vector<Frame> stack_;
    std::vector<YAML::Mark> marks_;
    std::map<YAML::anchor_t, Anchored> anchors_;
    std::string pending_key_;
    bool have_key_ = false;
    json root_;
    bool done_ = false;
};

/// The frontmatter between the opening and closing `---` lines, split as the SDK client splits
/// it: CRLF read as LF, a leading BOM skipped. Only the frontmatter is copied (the body of a
/// large SKILL.md is never touched).
std::string frontmatter_text(std::string_view skill_md) {
    std::string_view v = skill_md;
    if (v.substr(0, 3) == "\xEF\xBB\xBF") v.remove_prefix(3);
    std::size_t pos = 0;
    if (v.substr(0, 4) == "---\n") {
        pos = 4;
    } else if (v.substr(0, 5) == "---\r\n") {
        pos = 5;
    } else {
        throw std::runtime_error("SKILL.md does not begin with a \"---\" line");
    }
    const std::size_t start = pos;
    while (pos <= v.size()) {
        std::size_t end = v.find('\n', pos);
        const bool has_newline = end != std::string_view::npos;
        if (!has_newline) end = v.size();
        std::string_view line = v.substr(pos, end - pos);
        if (has_newline && !line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.substr(0, 3) == "---" && line.find_first_not_of(" \t", 3) == std::string_view::npos) {
            const std::string_view yaml = v.substr(start, pos - start);
            std::string text;
            text.reserve(yaml.size());
            for (std::size_t i = 0; i < yaml.size(); ++i) {
                if (yaml[i] == '\r' && i + 1 < yaml.size() && yaml[i + 1] == '\n') continue;
                text.push_back(yaml[i]);
            }
            return text;
        }
        if (!has_newline) break;
        pos = end + 1;
    }
    throw std::runtime_error("the frontmatter has no closing \"---\" line");
}

}  // namespace

json core_schema_scalar(std::string_view plain) {
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

namespace {

/// Whether `v` holds a byte sequence the fast path leaves to yaml-cpp: ASCII controls and DEL,
/// C1 controls, U+2028/U+2029, U+FEFF, U+FFFE/U+FFFF.
bool has_unusual_bytes(std::string_view v) {
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto c = static_cast<unsigned char>(v[i]);
        if (c < 0x20 || c == 0x7f) return true;
        if (c == 0xC2 && i + 1 < v.size() && static_cast<unsigned char>(v[i + 1]) < 0xA0) return true;
        if (c == 0xE2 && v.substr(i, 3) == "\xE2\x80\xA8") return true;
        if (c == 0xE2 && v.substr(i, 3) == "\xE2\x80\xA9") return true;
        if (c == 0xEF && (v.substr(i, 3) == "\xEF\xBB\xBF" || v.substr(i, 3) == "\xEF\xBF\xBE" ||
                          v.substr(i, 3) == "\xEF\xBF\xBF")) {
            return true;
        }
    }
    return false;
}

bool is_simple_key(std::string_view k) {
    if (k.empty() || !std::isalpha(static_cast<unsigned char>(k.front()))) return false;
    return std::all_of(k.begin(), k.end(),
                       [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; });
}

/// The value of one simple scalar: a plain scalar without indicators, comments or `: `, or a
/// quoted one without escapes; nullopt for anything else.
std::optional<json> simple_scalar(std::string_view v) {
    if (v.empty() || v.front() == ' ' || v.back() == ' ' || has_unusual_bytes(v)) return std::nullopt;
    const char first = v.front();
    if (first == '"' || first == '\'') {
        if (v.size() < 2 || v.back() != first) return std::nullopt;
        const std::string_view inner = v.substr(1, v.size() - 2);
        if (inner.find(first) != std::string_view::npos) return std::nullopt;
        if (first == '"' && inner.find('\\') != std::string_view::npos) return std::nullopt;
        return json(std::string(inner));
    }
    if (std::string_view("?:,[]{}#&*!|>%@`").find(first) != std::string_view::npos) return std::nullopt;
    if (first == '-' && (v.size() == 1 || !(std::isdigit(static_cast<unsigned char>(v[1])) || v[1] == '.'))) {
        return std::nullopt;
    }
    if (v.find(": ") != std::string_view::npos || v.find(" #") != std::string_view::npos || v.back() == ':') {
        return std::nullopt;
    }
    if (v.find_first_of("[]{},") != std::string_view::npos) return std::nullopt;  // flow indicators: left to yaml-cpp
    try {
        return core_schema_scalar(v);
    } catch (const std::exception&) {
        return std::nullopt;  // yaml-cpp's path gives the error
    }
}

/// `key: value` (or `key:` when `value` is empty); false when the line is not of that form.
bool split_pair(std::string_view line, std::string_view& key, std::string_view& value) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    key = line.substr(0, colon);
    if (!is_simple_key(key)) return false;
    if (colon + 1 == line.size()) {
        value = {};
        return true;
    }
    if (line[colon + 1] != ' ') return false;
    value = line.substr(colon + 2);
    return !value.empty();
}

}  // namespace

std::optional<json> simple_frontmatter_json(std::string_view yaml) {
    json root = json::object();
    json* nested = nullptr;  // the mapping of the last `key:` line, while its indented lines come
    std::string nested_key;
    bool nested_used = false;
    std::size_t pos = 0;
    std::size_t lines = 0;
    while (pos < yaml.size()) {
        // Far below the node bound of yaml-cpp's path (max_nodes), which then decides.
        if (++lines > 1000) return std::nullopt;
        std::size_t end = yaml.find('\n', pos);
        if (end == std::string_view::npos) end = yaml.size();
        const std::string_view line = yaml.substr(pos, end - pos);
        pos = end + 1;
        if (line.empty()) continue;
        std::string_view key;
        std::string_view value;
        if (line.substr(0, 2) == "  " && nested != nullptr) {
            if (!split_pair(line.substr(2), key, value) || value.empty()) return std::nullopt;
            auto typed = simple_scalar(value);
            if (!typed || nested->contains(std::string(key))) return std::nullopt;
            (*nested)[std::string(key)] = std::move(*typed);
            nested_used = true;
            continue;
        }
        if (line.front() == ' ' || !split_pair(line, key, value)) return std::nullopt;
        if (nested != nullptr && !nested_used) root[nested_key] = nullptr;  // `key:` with nothing below
        nested = nullptr;
        if (root.contains(std::string(key))) return std::nullopt;
        if (value.empty()) {
            nested_key = std::string(key);
            root[nested_key] = json::object();
            nested = &root[nested_key];
            nested_used = false;
            continue;
        }
        auto typed = simple_scalar(value);
        if (!typed) return std::nullopt;
        root[std::string(key)] = std::move(*typed);
    }
    if (nested != nullptr && !nested_used) root[nested_key] = nullptr;
    return root;
}

json yaml_frontmatter_json(std::string_view yaml, std::size_t max_depth, std::size_t max_nodes) {
    std::istringstream in{std::string(yaml)};
    Builder builder(max_depth, max_nodes);
    try {
        YAML::Parser parser(in);
        while (parser.HandleNextDocument(builder)) {
        }
    } catch (const YAML::Exception& e) {
        throw std::runtime_error(fmt::format("the frontmatter is not valid YAML: {}", e.what()));
    }
    json value = builder.result();
    if (value.is_null()) value = json::object();
    if (!value.is_object()) throw std::runtime_error("the frontmatter is not a mapping");
    return value;
}

json frontmatter_json(std::string_view skill_md, std::size_t max_depth, std::size_t max_nodes) {
    const std::string yaml = frontmatter_text(skill_md);
    // Most frontmatter is flat `key: value` lines (and one level of `metadata:`): read those
    // without yaml-cpp, which costs ten times more; anything else goes to yaml-cpp. A test
    // checks that both give the same value wherever the fast path answers.
    if (max_depth >= 3 && max_nodes >= 2000 && !yaml.empty()) {
        if (auto fast = simple_frontmatter_json(yaml)) return std::move(*fast);
    }
    return yaml_frontmatter_json(yaml, max_depth, max_nodes);
}

}  // namespace agentskills::mcp::detail
