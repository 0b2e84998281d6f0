// SKILL.md parsing: the frontmatter's YAML through yaml-cpp's event API, as a small tree, within
// bounds on tokens, nodes, copied text, depth and the size of its JSON copy.
#include <array>
#include <cstdint>
#include <cstring>
#include <exception>
#include <istream>
#include <streambuf>
#include <unordered_map>

#include <fmt/core.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "../base/byte_scans.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/parse/parser.hpp"
#include "yaml.hpp"
#include "yaml_fast.hpp"
#include "yaml_text.hpp"

namespace agentskills::detail {
namespace {

// Thrown past a bound; `what` ends the sentence "the frontmatter ...".
class TooComplex : public std::exception {
public:
    explicit TooComplex(std::string why) : why_(std::move(why)) {}
    const char* what() const noexcept override { return why_.c_str(); }

private:
    std::string why_;
};

// Limits that keep hostile YAML (alias bombs, huge documents) bounded: every node built, every
// node copied for an alias and every node copied into the anchor table counts against the node
// budget; the text copied for aliases and anchors counts against the byte budget (one alias of a
// long scalar repeated many times is a bomb in bytes, not in nodes).
constexpr std::size_t max_yaml_nodes = 100000;
constexpr std::size_t max_yaml_copied_bytes = 4 * 1024 * 1024;

// A read-only stream buffer over text that outlives it, so that yaml-cpp reads the
// frontmatter in place instead of from a copy in an istringstream.
class ViewStreamBuf final : public std::streambuf {
public:
    explicit ViewStreamBuf(std::string_view text) {
        // The get area is only read: std::streambuf never writes through it, and putback of a
        // different character goes to pbackfail, which refuses it.
        char* begin = const_cast<char*>(text.data());
        setg(begin, begin, begin + text.size());
    }
};

class TreeBuilder final : public YAML::EventHandler {
public:
    TreeBuilder(std::string_view source, StrictFindings& strict) : source_(source), strict_(strict) {}

    std::optional<YNode> root;

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        YNode n;
        n.kind = YNode::Kind::null;
        n.line = line_of(mark);
        n.text = null_spelling(mark);
        note_anchor(mark, anchor);
        n.anchor = anchor;
        attach(std::move(n));
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        strict_.add(line_of(mark), "an alias");
        auto it = anchors_.find(anchor);
        if (it == anchors_.end()) {
            YNode n;
            n.line = line_of(mark);
            attach(std::move(n));
            return;
        }
        charge(cost_of(it->second));
        YNode copy = it->second;
        copy.anchor = 0;
        attach(std::move(copy));
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        note_tag(mark, tag);
        note_anchor(mark, anchor);
        YNode n;
        n.kind = YNode::Kind::scalar;
        n.text = detail::yaml_scalar_text(value);
        n.line = line_of(mark);
        n.anchor = anchor;
        attach(std::move(n));
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value style) override {
        open(YNode::Kind::sequence, mark, tag, anchor, style);
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value style) override {
        open(YNode::Kind::mapping, mark, tag, anchor, style);
    }
    void OnMapEnd() override { close(); }

private:
    [[nodiscard]] static std::size_t line_of(const YAML::Mark& mark) noexcept {
        return mark.line < 0 ? 0 : static_cast<std::size_t>(mark.line);
    }

    [[nodiscard]] std::string null_spelling(const YAML::Mark& mark) const {
        if (mark.pos < 0) return {};
        const auto pos = static_cast<std::size_t>(mark.pos);
        if (pos >= source_.size()) return {};
        const std::string_view rest = source_.substr(pos);
        for (std::string_view word : {"null", "Null", "NULL", "~"}) {
            if (rest.substr(0, word.size()) == word) {
                const std::string_view after = rest.substr(word.size());
                if (after.empty() || after.front() == ' ' || after.front() == '\t' || after.front() == '\n' ||
                    after.front() == '\r' || after.front() == '#' || after.front() == ',' || after.front() == ']' ||
                    after.front() == '}') {
                    return std::string(word);
                }
            }
        }
        return {};
    }

    void note_tag(const YAML::Mark& mark, const std::string& tag) {
        if (!tag.empty() && tag != "?" && tag != "!") strict_.add(line_of(mark), fmt::format("the tag '{}'", tag));
    }
    void note_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) {
        if (anchor != 0) strict_.add(line_of(mark), "an anchor");
    }

    // What a copy of a subtree costs: its nodes and the bytes of its text.
    struct Cost {
        std::size_t nodes = 0;
        std::size_t bytes = 0;
    };

    void count(std::size_t nodes) { charge(Cost{nodes, 0}); }

    void charge(Cost c) {
        nodes_ += c.nodes;
        copied_bytes_ += c.bytes;
        if (nodes_ > max_yaml_nodes || copied_bytes_ > max_yaml_copied_bytes) {
            throw TooComplex(
                fmt::format("expands past the YAML budget ({} nodes, {} bytes of text copied by anchors "
                            "and aliases); is it an alias bomb?",
                            max_yaml_nodes, max_yaml_copied_bytes));
        }
    }

    // The cost of copying `n`; the walk stops once either budget is exceeded.
    static Cost cost_of(const YNode& n) {
        Cost total{1, n.text.size()};
        std::vector<const YNode*> todo{&n};
        while (!todo.empty()) {
            const YNode* cur = todo.back();
            todo.pop_back();
            total.nodes += cur->items.size();
            for (const auto& child : cur->items) {
                total.bytes += child.text.size();
                if (!child.items.empty()) todo.push_back(&child);
            }
            if (total.nodes > max_yaml_nodes || total.bytes > max_yaml_copied_bytes) break;
        }
        return total;
    }

    void open(YNode::Kind kind, const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
              YAML::EmitterStyle::value style) {
        note_tag(mark, tag);
        note_anchor(mark, anchor);
        if (style == YAML::EmitterStyle::Flow) strict_.add(line_of(mark), std::string(flow_collection_finding));
        if (stack_.size() >= SKILL_MAX_FRONTMATTER_DEPTH) {
            throw TooComplex(fmt::format("nests collections deeper than {} levels (line {})",
                                         SKILL_MAX_FRONTMATTER_DEPTH, line_of(mark) + 1));
        }
        YNode n;
        n.kind = kind;
        n.line = line_of(mark);
        n.anchor = anchor;
        stack_.push_back(std::move(n));
    }

    void close() {
        YNode n = std::move(stack_.back());
        stack_.pop_back();
        attach(std::move(n));
    }

    void attach(YNode n) {
        count(1);
        if (n.anchor != 0) {
            // The anchor table holds a copy of the subtree: it costs its size, or nested
            // anchors over one large collection would copy it once per level (quadratic).
            charge(cost_of(n));
            anchors_[n.anchor] = n;
        }
        if (stack_.empty()) {
            if (!root) root = std::move(n);
            return;
        }
        stack_.back().items.push_back(std::move(n));
    }

    std::string_view source_;
    StrictFindings& strict_;
    std::vector<YNode> stack_;
    std::unordered_map<YAML::anchor_t, YNode> anchors_;
    std::size_t nodes_ = 0;
    std::size_t copied_bytes_ = 0;
};

// What the JSON copy of `n` costs against SKILL_MAX_FRONTMATTER_JSON_BYTES: an upper bound of
// its size printed with an indent of 2 (`dump(2)`, as the CLI prints it): each value on a line
// indented by two bytes per level, a collection closed on a line of its own, a key charged as a
// value. The walk is iterative and stops as soon as the budget is spent, so that the copy is
// only made when it fits.
void check_json_budget(const YNode& root) {
    std::size_t total = 0;
    std::vector<std::pair<const YNode*, std::size_t>> todo{{&root, 1}};
    while (!todo.empty()) {
        const auto [n, depth] = todo.back();
        todo.pop_back();
        const std::size_t line = 2 * depth + 2;  // indentation, a comma or colon, the line feed
        total += n->is_scalar() ? line + json_string_bound(n->text) : 2 * line;
        for (const auto& child : n->items) todo.emplace_back(&child, depth + 1);
        if (total > SKILL_MAX_FRONTMATTER_JSON_BYTES) {
            throw TooComplex(fmt::format("is larger than {} bytes as JSON (aliases count once per use)",
                                         SKILL_MAX_FRONTMATTER_JSON_BYTES));
        }
    }
}

}  // namespace

std::string key_text(const YNode& key) {
    if (key.is_scalar()) return key.text;
    return to_json(key).dump();
}

nlohmann::json to_json(const YNode& n) {
    switch (n.kind) {
        case YNode::Kind::null:
        case YNode::Kind::scalar:
            return n.text;
        case YNode::Kind::sequence: {
            auto arr = nlohmann::json::array();
            for (const auto& item : n.items) arr.push_back(to_json(item));
            return arr;
        }
        case YNode::Kind::mapping: {
            auto obj = nlohmann::json::object();
            for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) obj[key_text(n.items[i])] = to_json(n.items[i + 1]);
            return obj;
        }
    }
    return {};
}

// One pass over the frontmatter before yaml-cpp sees it. yaml-cpp queues every token of a
// collection whose key status is still open (a line of a million `[` holds a million tokens,
// about 250 MB), so the input is refused when it could make that queue large: more indicator
// characters than SKILL_MAX_YAML_INDICATORS, or `[`/`{` nested deeper than the depth bound.
// The count is of bytes, whatever they are inside (quotes, comments): it can only overcount, so
// no spelling hides a flood. A line starting with `---` or `...` (a YAML document marker, which
// may not appear inside any scalar) would begin a second document whose keys yaml-cpp drops
// silently: that is a syntax error here.
std::optional<YamlProblem> prescan_frontmatter(std::string_view fm) {
    std::size_t line = 0;
    std::size_t indicators = 0;
    std::size_t flow_depth = 0;
    const auto blank_or_end = [&](std::size_t i) {
        return i >= fm.size() || fm[i] == ' ' || fm[i] == '\t' || fm[i] == '\n';
    };
    // A document marker at the start of the line that starts at `i`.
    const auto marker_at = [&](std::size_t i) -> std::optional<YamlProblem> {
        const std::string_view start = fm.substr(i, 3);
        if ((start == "---" || start == "...") && blank_or_end(i + 3)) {
            return YamlProblem{codes::yaml_syntax, line,
                               fmt::format("the frontmatter has the YAML document marker '{}' on line {}; it "
                                           "must be one YAML document (keys after the marker would be lost)",
                                           start, line + 1)};
        }
        return std::nullopt;
    };
    if (!fm.empty()) {
        if (auto problem = marker_at(0)) return problem;
    }
    for (std::size_t i = next_yaml_indicator(fm, 0); i < fm.size(); i = next_yaml_indicator(fm, i + 1)) {
        const char c = fm[i];
        switch (c) {
            case '\n':
                ++line;
                if (i + 1 < fm.size()) {
                    if (auto problem = marker_at(i + 1)) return problem;
                }
                continue;
            case '[':
            case '{':
                if (++flow_depth > SKILL_MAX_FRONTMATTER_DEPTH) {
                    return YamlProblem{codes::yaml_too_complex, line,
                                       fmt::format("the frontmatter nests '[' and '{{' deeper than {} levels",
                                                   SKILL_MAX_FRONTMATTER_DEPTH)};
                }
                break;
            case ']':
            case '}':
                if (flow_depth > 0) --flow_depth;
                break;
            case '-':
            case '?':
            case ':':
                if (!blank_or_end(i + 1)) continue;
                break;
            default:  // , & * !
                break;
        }
        if (++indicators > SKILL_MAX_YAML_INDICATORS) {
            return YamlProblem{codes::yaml_too_complex, line,
                               fmt::format("the frontmatter has more than {} YAML indicator characters "
                                           "([ ] {{ }} , & * ! - ? :); it is refused before parsing",
                                           SKILL_MAX_YAML_INDICATORS)};
        }
    }
    return std::nullopt;
}

YamlRead read_yaml(std::string_view frontmatter, StrictFindings& strict) {
    YamlRead out;
    if (auto problem = prescan_frontmatter(frontmatter)) {
        out.problem = std::move(problem);
        return out;
    }
    // The common shape without yaml-cpp (parse_fast.cpp): the same tree, so the same result.
    if (frontmatter_fast_path_enabled()) {
        if (std::optional<YNode> tree = read_common_yaml(frontmatter, &strict)) {
            try {
                check_json_budget(*tree);
            } catch (const TooComplex& e) {
                out.problem =
                    YamlProblem{codes::yaml_too_complex, std::nullopt, fmt::format("the frontmatter {}", e.what())};
                return out;
            }
            out.root = std::move(tree);
            return out;
        }
    }
    TreeBuilder builder(frontmatter, strict);
    try {
        ViewStreamBuf buffer(frontmatter);
        std::istream in(&buffer);
        YAML::Parser parser(in);
        parser.HandleNextDocument(builder);
        if (builder.root) check_json_budget(*builder.root);
    } catch (const YAML::Exception& e) {
        std::optional<std::size_t> line;
        if (e.mark.line >= 0) line = static_cast<std::size_t>(e.mark.line);
        // yaml-cpp may quote one byte of a multi-byte character ("unknown escape character").
        out.problem = YamlProblem{codes::yaml_syntax, line,
                                  fmt::format("the frontmatter is not valid YAML: {}", valid_utf8(e.msg))};
        return out;
    } catch (const TooComplex& e) {
        out.problem = YamlProblem{codes::yaml_too_complex, std::nullopt, fmt::format("the frontmatter {}", e.what())};
        return out;
    }
    out.root = std::move(builder.root);
    return out;
}

}  // namespace agentskills::detail
