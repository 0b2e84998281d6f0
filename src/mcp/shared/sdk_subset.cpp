// agentskills-cpp MCP — where a frontmatter leaves the YAML subset that the official TypeScript
// SDK's frontmatter reader reads (`@modelcontextprotocol/server` and `/client` 2.4.0,
// `src/ext/skills/frontmatter.ts`). That reader refuses what it does not read rather than read it
// otherwise, and its client re-parses every SKILL.md it verifies, so the server leaves out a
// skill whose frontmatter the SDK would refuse (docs/mcp.md, "What is left out"). This is a check
// over the library's one YAML tree and the frontmatter text, not a second reader: it produces no
// values, only the first construct outside the subset. scripts/ci/sdk_frontmatter.mjs holds it to
// the SDK's own reader over every corpus skill and generated shapes.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "../../parse/core_json.hpp"
#include "../../parse/yaml.hpp"
#include "internal.hpp"

namespace agentskills::mcp::detail {
namespace {

using agentskills::detail::core_schema_scalar;
using agentskills::detail::YamlTree;
using agentskills::detail::YNode;

// The SDK reader's nesting bound (collections inside collections; the frontmatter is level 0).
constexpr std::size_t sdk_max_depth = 32;

class SdkSubset {
public:
    SdkSubset(const YamlTree& tree, std::string_view yaml) : tree_(tree), y_(yaml) {}

    std::optional<std::string> run() {
        if (y_.substr(0, 3) == "\xEF\xBB\xBF") return "a byte order mark";
        if (tree_.root) {
            if (tree_.root->has(YNode::flow))
                return fmt::format("a flow mapping as the whole frontmatter on line {}", line(*tree_.root));
            walk(*tree_.root, 0, false, false, 0);
        }
        if (!problem_) lines();
        return problem_;
    }

private:
    [[nodiscard]] char at(std::size_t i) const { return i < y_.size() ? y_[i] : '\0'; }
    [[nodiscard]] static std::size_t line(const YNode& n) { return n.line + 2; }  // the file's line ('---' is 1)
    void fail(const YNode& n, std::string_view what) {
        if (!problem_) problem_ = fmt::format("{} on line {}", what, line(n));
    }
    static bool separator(char c) {
        return c == '\0' || c == ' ' || c == '\t' || c == ',' || c == '[' || c == ']' || c == '{' || c == '}' ||
               c == '\n';
    }

    // `parent_column`: the indentation of the block collection `n` is in (its first key or '-').
    void walk(const YNode& n, std::size_t depth, bool in_flow, bool is_key, std::size_t parent_column) {
        if (problem_) return;
        starts_.push_back(n.line);
        const char c = at(n.offset);
        if (n.has(YNode::alias) || n.anchored() || c == '&' || c == '*' || c == '!') {
            fail(n, "an anchor, alias or tag");
            return;
        }
        if (n.kind == YNode::Kind::sequence || n.kind == YNode::Kind::mapping) {
            if (depth > sdk_max_depth) {
                fail(n, fmt::format("nesting deeper than {} levels", sdk_max_depth));
                return;
            }
            if (n.kind == YNode::Kind::mapping && in_flow && c != '{') {
                fail(n, "a mapping inside a flow collection (`[key: value]`)");
                return;
            }
            if (n.has(YNode::flow) && !in_flow && !closes_on_its_line(n.offset)) {
                fail(n, "a flow collection over more than one line");
                return;
            }
            const bool map = n.kind == YNode::Kind::mapping;
            for (std::size_t i = 0; i < n.items.size(); ++i) {
                const YNode& item = n.items[i];
                const bool key = map && i % 2 == 0;
                if (map && !key && n.has(YNode::flow) && item.kind == YNode::Kind::null && item.text.empty()) {
                    fail(item, "a key without a value in a flow mapping");
                    return;
                }
                if (key && !n.has(YNode::flow) && complex_key(item)) {
                    fail(item, "a complex key (`? key`)");
                    return;
                }
                walk(item, depth + 1, n.has(YNode::flow), key, n.column);
            }
            return;
        }
        scalar(n, in_flow, is_key);
        if (!in_flow && n.has(YNode::plain) && n.kind == YNode::Kind::scalar)
            plain_.emplace_back(n.line, parent_column);
    }

    void scalar(const YNode& n, bool in_flow, bool is_key) {
        const char c = at(n.offset);
        if (c == '"' || c == '\'') {
            if (!quote_closes_on_its_line(n.offset)) fail(n, "a quoted value over more than one line");
        } else if ((c == '|' || c == '>') && !in_flow) {
            std::size_t i = n.offset + 1;
            while (at(i) == '+' || at(i) == '-' || (at(i) >= '0' && at(i) <= '9')) {
                if (at(i) >= '0' && at(i) <= '9') {
                    fail(n, "a block scalar indentation indicator");
                    return;
                }
                ++i;
            }
            block_lines_.push_back(n.line);
        } else if (n.has(YNode::plain) && n.kind == YNode::Kind::scalar) {
            const char next = at(n.offset + 1);
            if (in_flow ? (std::string_view("|>%@`#").find(c) != std::string_view::npos ||
                           (std::string_view("-?:").find(c) != std::string_view::npos && separator(next)))
                        : std::string_view("%@`,]}").find(c) != std::string_view::npos) {
                fail(n, fmt::format("a plain value starting with '{}'", c));
                return;
            }
        }
        if (is_key) {
            if (n.has(YNode::plain) && !core_schema_scalar(n.text).is_string()) {
                fail(n, fmt::format("a key that is not a string ('{}')", n.text));
            } else if (n.text == "__proto__") {
                fail(n, "the key __proto__");
            }
        }
    }

    // A '?' before the key on its line: an explicit (complex) key.
    [[nodiscard]] bool complex_key(const YNode& key) const {
        return agentskills::detail::explicit_key_before(y_, key.offset);
    }

    // The quoted scalar at `p` closes before the end of its line.
    [[nodiscard]] bool quote_closes_on_its_line(std::size_t p) const {
        const char q = at(p);
        for (std::size_t i = p + 1; i < y_.size(); ++i) {
            if (y_[i] == '\n') return false;
            if (q == '"' && y_[i] == '\\') {
                ++i;
            } else if (y_[i] == q) {
                if (q == '\'' && at(i + 1) == '\'') {
                    ++i;
                    continue;
                }
                return true;
            }
        }
        return false;
    }

    // The flow collection at `p` (its `[` or `{`) closes before the end of its line.
    [[nodiscard]] bool closes_on_its_line(std::size_t p) const {
        std::size_t depth = 0;
        for (std::size_t i = p; i < y_.size(); ++i) {
            const char c = y_[i];
            if (c == '\n') return false;
            if ((c == '"' || c == '\'') && (i == p || separator(y_[i - 1]) || y_[i - 1] == ':')) {
                if (!quote_closes_on_its_line(i)) return false;
                for (++i; i < y_.size() && y_[i] != c; ++i) {
                    if (c == '"' && y_[i] == '\\') ++i;
                    if (c == '\'' && y_[i] == '\'' && at(i + 1) == '\'') ++i;
                }
                continue;
            }
            if (c == '#' && i > p && (y_[i - 1] == ' ' || y_[i - 1] == '\t')) return false;
            if (c == '[' || c == '{') ++depth;
            if ((c == ']' || c == '}') && --depth == 0) return true;
        }
        return false;
    }

    // Line by line, outside a block scalar's content: a tab in the indentation (after its
    // spaces), and a line no node starts on (a plain value's continuation) that is not indented
    // past the line its value started on. (A `%` line never gets here: the YAML front end
    // refuses it, so the skill never loaded.)
    void lines() {
        std::sort(starts_.begin(), starts_.end());
        std::vector<std::size_t> indents;
        std::size_t no = 0;
        for (std::size_t pos = 0; pos < y_.size(); ++no) {
            std::size_t end = y_.find('\n', pos);
            if (end == std::string_view::npos) end = y_.size();
            const std::string_view text = y_.substr(pos, end - pos);
            pos = end + 1;
            const std::size_t spaces = std::min(text.find_first_not_of(' '), text.size());
            indents.push_back(spaces);
            const std::size_t first = text.find_first_not_of(" \t");
            if (first == std::string_view::npos || text[first] == '#') continue;  // blank or a comment
            if (in_block_content(no)) continue;
            if (text[spaces] == '\t') {
                problem_ = fmt::format("a tab in the indentation on line {}", no + 2);
                return;
            }
            const auto at = std::lower_bound(starts_.begin(), starts_.end(), no);
            if (at != starts_.end() && *at == no) continue;  // a node starts on this line
            if (at == starts_.begin()) continue;
            // A continuation of the plain value that starts on the nearest line before it: the SDK
            // reads it only when it is indented past the collection that value is in.
            const std::size_t owner = *(at - 1);
            const auto value =
                std::find_if(plain_.rbegin(), plain_.rend(), [&](const auto& v) { return v.first == owner; });
            if (value != plain_.rend() && spaces <= value->second) {
                problem_ = fmt::format("a value continued on line {} at the indentation of its key", no + 2);
                return;
            }
        }
    }

    // Line `no` lies between a block scalar's header and the next node after it.
    [[nodiscard]] bool in_block_content(std::size_t no) const {
        for (std::size_t header : block_lines_) {
            if (no <= header) continue;
            const auto next = std::upper_bound(starts_.begin(), starts_.end(), header);
            if (next == starts_.end() || no < *next) return true;
        }
        return false;
    }

    const YamlTree& tree_;
    std::string_view y_;
    std::optional<std::string> problem_;
    std::vector<std::size_t> starts_;                         // the line of every node
    std::vector<std::size_t> block_lines_;                    // the header line of every block scalar
    std::vector<std::pair<std::size_t, std::size_t>> plain_;  // every plain block value: line, parent column
};

}  // namespace

std::optional<std::string> outside_sdk_subset(const YamlTree& tree, std::string_view yaml) {
    return SdkSubset(tree, yaml).run();
}

}  // namespace agentskills::mcp::detail
