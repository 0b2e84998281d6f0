// The YAML front end (yaml.hpp): yaml-cpp's events into the tree, under the caller's bounds, with
// the pre-scan of a frontmatter and the budget of its JSON copy. This file holds the library's
// one YAML::EventHandler.
#include <algorithm>
#include <bit>
#include <istream>
#include <streambuf>
#include <utility>

#include <fmt/core.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "../base/byte_scans.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/parse/parser.hpp"
#include "yaml.hpp"

namespace agentskills::detail {
namespace {

thread_local bool fast_path_enabled = true;

// A read-only stream buffer over text that outlives it, so that yaml-cpp reads the text in
// place instead of from a copy in an istringstream.
class ViewStreamBuf final : public std::streambuf {
public:
    explicit ViewStreamBuf(std::string_view text) {
        // The get area is only read: std::streambuf never writes through it, and putback of a
        // different character goes to pbackfail, which refuses it.
        char* begin = const_cast<char*>(text.data());
        setg(begin, begin, begin + text.size());
    }
};

// Thrown by the builder once the problem is recorded (a bound, a second document).
struct Stop {};

std::uint32_t mark_number(int n) noexcept { return n < 0 ? 0 : static_cast<std::uint32_t>(n); }

YamlMark mark_of(const YAML::Mark& m) noexcept {
    return {mark_number(m.pos), mark_number(m.line), mark_number(m.column)};
}

// yaml-cpp 0.7 decodes the double-quoted escapes \N (U+0085) and \_ (U+00A0) to the single
// Latin-1 bytes 0x85 and 0xA0, not to their UTF-8 forms, so a scalar of a valid UTF-8 document
// can hold a stray byte. Reading such bytes as Latin-1 gives the characters the escapes mean.
std::string scalar_text(const std::string& value) {
    return is_valid_utf8(value) ? value : valid_utf8(value, InvalidByte::latin1);
}

// What a copy of a subtree costs: its nodes, the bytes of its text, its levels of collections.
struct Cost {
    std::size_t nodes = 0;
    std::size_t bytes = 0;
    std::size_t height = 0;
};

class TreeBuilder final : public YAML::EventHandler {
public:
    TreeBuilder(std::string_view source, const YamlOptions& options, YamlTree& out)
        : source_(source), bounds_(options.bounds), keys_need_colon_(options.keys_need_colon), out_(out) {}

    void OnDocumentStart(const YAML::Mark& mark) override {
        if (documents_++ == 0) return;
        fail(YamlProblem::Kind::second_document, mark_of(mark));
    }
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        YNode n = node(YNode::Kind::null, mark, anchor);
        n.flags |= YNode::plain;
        n.text = null_spelling(mark);
        leaf(std::move(n));
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        if (tag != "?") check_closed(mark);
        YNode n = node(YNode::Kind::scalar, mark, anchor);
        if (tag == "?") n.flags |= YNode::plain;
        note_tag(n, tag);
        n.text = scalar_text(value);
        leaf(std::move(n));
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const YamlMark at = mark_of(mark);
        const bool key = at_key();
        check_value_indent(at, false);
        const YNode* target = resolve(anchor);
        if (target == nullptr) {
            YNode n = node(YNode::Kind::null, mark, anchor);
            n.flags |= YNode::plain | YNode::alias | YNode::unresolved;
            n.extra = add_extra({{}, at, false});
            if (bounds_.alias_counts_itself && (bounds_.keys_count || !key)) charge({1, 0, 0}, at);
            attach(std::move(n));
            return;
        }
        Cost c = (bounds_.keys_count || !key) ? cost_of(*target) : Cost{};
        if (bounds_.alias_counts_itself && (bounds_.keys_count || !key)) ++c.nodes;
        charge(c, at);
        if (bounds_.alias_depth && over(stack_.size() + c.height, bounds_.max_depth)) {
            fail(YamlProblem::Kind::depth, at);
        }
        YNode copy = *target;
        copy.flags = static_cast<std::uint8_t>((copy.flags & ~YNode::key) | YNode::alias | (key ? YNode::key : 0));
        copy.extra = add_extra({std::string(out_.tag(*target)), at, target->has(YNode::key)});
        attach(std::move(copy));
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

    [[nodiscard]] std::optional<YamlProblem::Open> innermost_open() const {
        if (stack_.empty()) return std::nullopt;
        const YNode& top = stack_.back();
        return YamlProblem::Open{top.kind, top.has(YNode::flow), top.mark()};
    }

    // The root, with the collections still open attached (flagged) when the read stopped.
    void finish() {
        while (!stack_.empty()) {
            YNode n = std::move(stack_.back());
            stack_.pop_back();
            n.flags |= YNode::unclosed;
            place(std::move(n));
        }
    }

private:
    // Where an anchored node is: its child indices from the root, through the collections
    // open when it was complete (each becomes the next item of the one before it).
    struct AnchorPlace {
        std::vector<std::uint32_t> path;
        bool complete = false;
    };

    [[nodiscard]] static bool over(std::size_t value, std::size_t limit) noexcept { return value > limit; }

    [[nodiscard]] bool at_key() const noexcept {
        return !stack_.empty() && stack_.back().kind == YNode::Kind::mapping && stack_.back().items.size() % 2 == 0;
    }

    [[nodiscard]] YNode node(YNode::Kind kind, const YAML::Mark& mark, YAML::anchor_t anchor) const {
        YNode n;
        n.kind = kind;
        const YamlMark m = mark_of(mark);
        n.line = m.line;
        n.column = m.column;
        n.offset = m.offset;
        n.anchor = static_cast<std::uint32_t>(anchor);
        if (at_key()) n.flags |= YNode::key;
        return n;
    }

    std::uint32_t add_extra(YamlExtra e) {
        out_.extras.push_back(std::move(e));
        return static_cast<std::uint32_t>(out_.extras.size());
    }

    void note_tag(YNode& n, const std::string& tag) {
        if (tag.empty() || tag == "?" || tag == "!") return;
        n.flags |= YNode::tagged;
        n.extra = add_extra({tag, {}, false});
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

    // Whether the line of the plain key at `offset` has the ':' (followed by a blank or the end
    // of the line) that makes it an implicit key, before any comment; an explicit key (`? key`)
    // needs none.
    [[nodiscard]] bool implicit_key_has_colon(std::size_t offset) const noexcept {
        if (offset > source_.size() || explicit_key_before(source_, offset)) return true;
        for (std::size_t i = offset; i < source_.size() && source_[i] != '\n' && source_[i] != '\r'; ++i) {
            if (source_[i] == '#' && i > offset && (source_[i - 1] == ' ' || source_[i - 1] == '\t')) return false;
            if (source_[i] != ':') continue;
            const char next = i + 1 < source_.size() ? source_[i + 1] : '\n';
            if (next == ' ' || next == '\t' || next == '\n' || next == '\r') return true;
        }
        return false;
    }

    [[noreturn]] void fail_syntax(std::string message, YamlMark at) {
        YamlProblem p;
        p.kind = YamlProblem::Kind::syntax;
        p.mark = at;
        p.what = fmt::format("yaml-cpp: error at line {}, column {}: {}", at.line + 1, at.column + 1, message);
        p.message = std::move(message);
        p.open = innermost_open();
        out_.problem = std::move(p);
        throw Stop{};
    }

    // yaml-cpp 0.7 reads a quoted scalar that is never closed to the end of the text when a line
    // break comes before the end (its check for the end runs only within a line): the keys after
    // the opening quote become the scalar's text. YAML, and every other reader, refuses that.
    void check_closed(const YAML::Mark& mark) {
        if (mark.pos < 0) return;
        const auto at = static_cast<std::size_t>(mark.pos);
        if (at >= source_.size() || (source_[at] != '"' && source_[at] != '\'')) return;
        const char quote = source_[at];
        for (std::size_t i = at + 1; i < source_.size(); ++i) {
            if (quote == '"' && source_[i] == '\\') {
                ++i;  // an escape: the next byte is never the closing quote
            } else if (source_[i] == quote) {
                if (quote == '\'' && i + 1 < source_.size() && source_[i + 1] == '\'') {
                    ++i;  // '' is a quote inside a single-quoted scalar
                    continue;
                }
                return;
            }
        }
        fail_syntax(std::string(quote == '"' ? UNCLOSED_DOUBLE_QUOTE : UNCLOSED_SINGLE_QUOTE), mark_of(mark));
    }

    [[noreturn]] void fail(YamlProblem::Kind kind, YamlMark at) {
        YamlProblem p;
        p.kind = kind;
        p.mark = at;
        out_.problem = std::move(p);
        throw Stop{};
    }

    void charge(Cost c, YamlMark at) {
        nodes_ += c.nodes;
        bytes_ += c.bytes;
        if (over(nodes_, bounds_.max_nodes)) fail(YamlProblem::Kind::nodes, at);
        if (over(bytes_, bounds_.max_text_bytes)) fail(YamlProblem::Kind::text_bytes, at);
    }

    // The cost of copying `n` (keys only when they count); the walk stops once a budget that
    // the copy is charged to would be passed.
    [[nodiscard]] Cost cost_of(const YNode& n) const {
        Cost total{1, n.kind == YNode::Kind::scalar ? n.text.size() : 0, n.is_scalar() ? 0u : 1u};
        std::vector<std::pair<const YNode*, std::size_t>> todo{{&n, 1}};
        while (!todo.empty()) {
            const auto [cur, level] = todo.back();
            todo.pop_back();
            for (const auto& child : cur->items) {
                if (bounds_.keys_count || !child.has(YNode::key)) ++total.nodes;
                if (child.kind == YNode::Kind::scalar) total.bytes += child.text.size();
                if (!child.is_scalar()) {
                    total.height = std::max(total.height, level + 1);
                    todo.emplace_back(&child, level + 1);
                }
            }
            if (over(nodes_ + total.nodes, bounds_.max_nodes) || over(bytes_ + total.bytes, bounds_.max_text_bytes)) {
                break;
            }
        }
        return total;
    }

    // A value that starts on a line after its key must be indented more than the key (YAML's
    // rule for a block mapping's value; a block sequence may stand at the key's own indentation).
    // yaml-cpp takes a flow collection, a quoted scalar or an alias at the key's indentation, or
    // left of it, as the value; YAML, and every other reader, reads it as a key without a ':'.
    void check_value_indent(YamlMark at, bool block_sequence) {
        if (block_sequence || stack_.empty()) return;
        const YNode& map = stack_.back();
        if (map.kind != YNode::Kind::mapping || map.has(YNode::flow) || map.items.size() % 2 == 0) return;
        const YNode& key = map.items.back();
        if (at.line > key.line && at.column <= map.column) fail_syntax("could not find expected ':'", at);
    }

    void leaf(YNode n) {
        const YamlMark at = n.mark();
        // An empty value (`key:` and nothing) is marked where the next token is.
        if (!(n.kind == YNode::Kind::null && n.text.empty())) check_value_indent(at, false);
        if (keys_need_colon_ && n.has(YNode::key) && n.has(YNode::plain) && !stack_.back().has(YNode::flow) &&
            !implicit_key_has_colon(at.offset)) {
            fail_syntax("could not find expected ':'", at);
        }
        const bool counted = bounds_.keys_count || !n.has(YNode::key);
        const bool all_text = bounds_.text == YamlBounds::Text::all && n.kind == YNode::Kind::scalar;
        charge({counted ? 1u : 0u, all_text ? n.text.size() : 0, 0}, at);
        if (n.anchor != 0 && bounds_.anchor_copies_count) charge(cost_of(n), at);
        attach(std::move(n));
    }

    void open(YNode::Kind kind, const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
              YAML::EmitterStyle::value style) {
        YNode n = node(kind, mark, anchor);
        if (style == YAML::EmitterStyle::Flow) n.flags |= YNode::flow;
        check_value_indent(n.mark(), kind == YNode::Kind::sequence && !n.has(YNode::flow));
        note_tag(n, tag);
        if (over(stack_.size() + 1, bounds_.max_depth)) fail(YamlProblem::Kind::depth, n.mark());
        if (bounds_.keys_count || !n.has(YNode::key)) charge({1, 0, 0}, n.mark());
        stack_.push_back(std::move(n));
    }

    void close() {
        // The anchor's copy is charged while the collection is still open: past a bound it
        // stays in the tree as an open one, as it never reached its parent.
        if (stack_.back().anchor != 0 && bounds_.anchor_copies_count) {
            charge(cost_of(stack_.back()), stack_.back().mark());
        }
        YNode n = std::move(stack_.back());
        stack_.pop_back();
        attach(std::move(n));
    }

    void attach(YNode n) {
        if (n.anchor != 0 && !n.has(YNode::alias)) {
            if (anchors_.size() <= n.anchor) anchors_.resize(n.anchor + 1);
            AnchorPlace& place = anchors_[n.anchor];
            place.path.clear();
            for (std::size_t i = 1; i < stack_.size(); ++i) {
                place.path.push_back(static_cast<std::uint32_t>(stack_[i - 1].items.size()));
            }
            if (!stack_.empty()) place.path.push_back(static_cast<std::uint32_t>(stack_.back().items.size()));
            place.complete = true;
        }
        place(std::move(n));
    }

    void place(YNode n) {
        if (stack_.empty()) {
            if (!out_.root) out_.root = std::move(n);
            return;
        }
        stack_.back().items.push_back(std::move(n));
    }

    // The complete node that `anchor` names, or null.
    [[nodiscard]] const YNode* resolve(YAML::anchor_t anchor) const {
        if (anchor >= anchors_.size() || !anchors_[anchor].complete || stack_.empty()) return nullptr;
        const YNode* cur = &stack_[0];
        std::size_t level = 0;  // cur is stack_[level] while it is still on the stack
        bool on_stack = true;
        for (const std::uint32_t index : anchors_[anchor].path) {
            if (on_stack && level + 1 < stack_.size() && index == cur->items.size()) {
                cur = &stack_[++level];
                continue;
            }
            if (index >= cur->items.size()) return nullptr;
            cur = &cur->items[index];
            on_stack = false;
        }
        return on_stack ? nullptr : cur;
    }

    std::string_view source_;
    const YamlBounds& bounds_;
    bool keys_need_colon_ = true;
    YamlTree& out_;
    std::vector<YNode> stack_;
    std::vector<AnchorPlace> anchors_;  // by anchor id
    std::size_t nodes_ = 0;
    std::size_t bytes_ = 0;
    int documents_ = 0;
};

}  // namespace

// An upper bound of the JSON copy of `root` printed with an indent of 2 (`dump(2)`, as the CLI
// prints it): each value on a line indented by two bytes per level, a collection closed on a
// line of its own, a key charged as a value. The walk is iterative and stops as soon as the
// total passes `limit`.
std::size_t json_charge(const YNode& root, std::size_t limit) {
    std::size_t total = 0;
    std::vector<std::pair<const YNode*, std::size_t>> todo{{&root, 1}};
    while (!todo.empty()) {
        const auto [n, depth] = todo.back();
        todo.pop_back();
        const std::size_t line = 2 * depth + 2;  // indentation, a comma or colon, the line feed
        total += n->is_scalar() ? line + json_string_bound(n->text) : 2 * line;
        for (const auto& child : n->items) todo.emplace_back(&child, depth + 1);
        if (total > limit) return total;
    }
    return total;
}

namespace {

// Whether every tree of the fast path is within `b` for a text of `size` bytes (else yaml-cpp
// reads the text, and says where a bound is passed).
bool fast_path_fits(const YamlBounds& b, std::size_t size) noexcept {
    return b.max_nodes >= fast_path_max_nodes && b.max_depth >= fast_path_max_depth &&
           (b.text == YamlBounds::Text::copied || b.max_text_bytes >= size);
}

}  // namespace

// One pass over the frontmatter before yaml-cpp sees it. yaml-cpp queues every token of a
// collection whose key status is still open (a line of a million `[` holds a million tokens,
// about 250 MB), so the input is refused when it could make that queue large: more indicator
// characters than SKILL_MAX_YAML_INDICATORS, or `[`/`{` nested deeper than the depth bound.
// The count is of bytes, whatever they are inside (quotes, comments): it can only overcount, so
// no spelling hides a flood. A line starting with `---` or `...` (a YAML document marker, which
// may not appear inside any scalar) would begin a second document whose keys yaml-cpp drops
// silently: that is refused too.
std::optional<YamlProblem> prescan_yaml(std::string_view fm) {
    std::size_t line = 0;
    std::size_t indicators = 0;
    std::size_t flow_depth = 0;
    const auto blank_or_end = [&](std::size_t i) {
        return i >= fm.size() || fm[i] == ' ' || fm[i] == '\t' || fm[i] == '\n';
    };
    const auto problem = [&](YamlProblem::Kind kind, std::size_t at, std::string_view message) {
        YamlProblem p;
        p.kind = kind;
        p.mark = YamlMark{static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(line), 0};
        p.message = std::string(message);
        return p;
    };
    // A document marker at the start of the line that starts at `i`.
    const auto marker_at = [&](std::size_t i) -> std::optional<YamlProblem> {
        const std::string_view start = fm.substr(i, 3);
        if ((start == "---" || start == "...") && blank_or_end(i + 3)) {
            return problem(YamlProblem::Kind::document_marker, i, start);
        }
        // A directive stands only before a document's `---`, and the frontmatter is after it;
        // nothing else starts a line with '%' (a quoted value's next lines are indented).
        // yaml-cpp reads such a line as a directive and drops it, with the keys on it.
        if (start.substr(0, 1) == "%") {
            return problem(YamlProblem::Kind::syntax, i,
                           "a line starts with '%', a YAML directive, which can only come before the document");
        }
        return std::nullopt;
    };
    if (!fm.empty()) {
        if (auto p = marker_at(0)) return p;
    }
    for (std::size_t base = 0; base < fm.size(); base += 64) {
        for (std::uint64_t hits = yaml_indicator_mask(fm, base); hits != 0; hits &= hits - 1) {
            const std::size_t i = base + static_cast<std::size_t>(std::countr_zero(hits));
            switch (fm[i]) {
                case '\n':
                    ++line;
                    if (i + 1 < fm.size()) {
                        if (auto p = marker_at(i + 1)) return p;
                    }
                    continue;
                case '[':
                case '{':
                    if (++flow_depth > SKILL_MAX_FRONTMATTER_DEPTH) {
                        return problem(YamlProblem::Kind::flow_depth, i, {});
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
            if (++indicators > SKILL_MAX_YAML_INDICATORS) return problem(YamlProblem::Kind::indicators, i, {});
        }
    }
    return std::nullopt;
}

bool explicit_key_before(std::string_view text, std::size_t offset) noexcept {
    std::size_t i = std::min(offset, text.size());
    while (i > 0 && text[i - 1] != '\n') {
        --i;
        if (text[i] == '?' && (i + 1 >= text.size() || text[i + 1] == ' ' || text[i + 1] == '\t')) return true;
    }
    return false;
}

YamlTree read_yaml_tree(std::string_view text, const YamlOptions& options) {
    YamlTree out;
    if (options.prescan) {
        if (auto p = prescan_yaml(text)) {
            out.problem = std::move(p);
            return out;
        }
    }
    const YamlBounds& bounds = options.bounds;
    const auto check_json = [&] {
        if (bounds.max_json_bytes != yaml_unbounded && out.root &&
            json_charge(*out.root, bounds.max_json_bytes) > bounds.max_json_bytes) {
            YamlProblem p;
            p.kind = YamlProblem::Kind::json_bytes;
            out.problem = std::move(p);
        }
    };
    // The common shape without yaml-cpp (yaml_fast.cpp): the same tree, so the same result.
    if (options.fast_path && fast_path_enabled && fast_path_fits(bounds, text.size()) &&
        (options.valid_utf8 || is_valid_utf8(text))) {
        if (std::optional<YNode> tree = read_common_yaml(text)) {
            out.root = std::move(tree);
            // The walk can only find what the bound rules out (SKILL.md frontmatters of up to
            // half a megabyte under the 4 MB of the parser's limit).
            if (text.size() > fast_path_json_max_size || fast_path_json_bound(text.size()) > bounds.max_json_bytes) {
                check_json();
            }
            return out;
        }
    }
    TreeBuilder builder(text, options, out);
    try {
        ViewStreamBuf buffer(text);
        std::istream in(&buffer);
        YAML::Parser parser(in);
        if (parser.HandleNextDocument(builder) && options.one_document) (void)parser.HandleNextDocument(builder);
    } catch (const YAML::Exception& e) {
        YamlProblem p;
        p.kind = YamlProblem::Kind::syntax;
        if (!e.mark.is_null()) p.mark = mark_of(e.mark);
        p.message = e.msg;
        p.what = e.what();
        p.open = builder.innermost_open();
        out.problem = std::move(p);
        builder.finish();
        return out;
    } catch (const Stop&) {
        builder.finish();
        return out;
    }
    check_json();
    return out;
}

bool frontmatter_fast_path_enabled() noexcept { return fast_path_enabled; }
void set_frontmatter_fast_path(bool enabled) noexcept { fast_path_enabled = enabled; }

}  // namespace agentskills::detail
