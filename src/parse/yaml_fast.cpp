// SKILL.md parsing: the frontmatter fast path. Most frontmatters are a few lines of `key: value`
// with plain or quoted scalars (a plain one may go on over more lines), a one-line `[a, b]` list,
// a `|` or `>` block scalar, a block list (of scalars, or of small mappings) or a small nested
// mapping, and comment lines; reading those by lines is many times cheaper than yaml-cpp's
// scanner and event parser (about a million instructions for a kilobyte of it). The reader below
// accepts only what it can read exactly as yaml-cpp does, marks and flags included (the
// differential fuzz target fuzz/fuzz_frontmatter_diff.cpp and tests/parse/test_parser.cpp hold it
// to that), and gives up on everything else, which yaml-cpp then parses (yaml.cpp).
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "../base/byte_scans.hpp"
#include "../base/model_output.hpp"
#include "yaml.hpp"

namespace agentskills::detail {
namespace {

// Past these the reader gives up (yaml-cpp then applies the caller's bounds): far above any
// real frontmatter, far below the bounds of its callers (yaml.hpp: fast_path_max_nodes and
// fast_path_max_depth, which a tree of this reader never passes).
constexpr std::size_t max_nodes = fast_path_max_nodes - 1;
constexpr std::size_t max_depth = fast_path_max_depth - 1;
constexpr std::size_t max_key_bytes = 256;

// Bytes the reader is sure of: printable ASCII, line feeds, and UTF-8 sequences other than the
// C1 controls (U+0080..U+009F, NEL among them), the line and paragraph separators U+2028 and
// U+2029, and U+FEFF (a byte-order mark). The text is valid UTF-8 (checked before parsing).
bool plain_bytes(std::string_view s) noexcept {
    const std::size_t n = s.size();
    if (std::memchr(s.data(), '\t', n) != nullptr) return false;  // TAB: the scan below passes over it
    for (std::size_t i = skip_plain_text(s, 0); i < n; i = skip_plain_text(s, i + 1)) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7F) continue;
        if (c == '\n') continue;
        if (c < 0x80) return false;  // TAB, CR, other C0 controls, DEL
        const auto at = [&](std::size_t k) { return k < n ? static_cast<unsigned char>(s[k]) : 0u; };
        if (c == 0xC2 && at(i + 1) <= 0x9F) return false;
        if (c == 0xE2 && at(i + 1) == 0x80 && (at(i + 2) == 0xA8 || at(i + 2) == 0xA9)) return false;
        if (c == 0xEF && at(i + 1) == 0xBB && at(i + 2) == 0xBF) return false;
    }
    return true;
}

bool is_key_start(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_key_char(char c) noexcept { return is_key_start(c) || c == '-' || c == '.' || c == '/'; }

// The calling thread's last tree (recycle_yaml_tree), which the next read fills in place: its
// nodes' strings and lists keep their room, so that a frontmatter of the same shape as the one
// before is read without allocating.
thread_local YNode spare_tree;

// A node of the tree before, made a new one for the read: empty text, no marks, kind or flags.
// Its children stay (the read fills or drops them) and keep their room, as its text does.
void reset_node(YNode& n) noexcept {
    n.text.clear();
    n.line = n.column = n.offset = n.anchor = n.extra = 0;
    n.kind = YNode::Kind::null;
    n.flags = 0;
}

// Slot `i` of `items`, the `i`th child being read, made empty for it: the node the tree before
// had there, or a new one.
YNode& child_slot(std::vector<YNode>& items, std::size_t i) {
    if (i == items.size()) return items.emplace_back();
    reset_node(items[i]);
    return items[i];
}

// After the children of a collection were read into the first `used` slots: the slots left
// from the tree before go.
void drop_slots(std::vector<YNode>& items, std::size_t used) {
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(used), items.end());
}

bool is_null_word(std::string_view s) noexcept { return s == "null" || s == "Null" || s == "NULL" || s == "~"; }

// Where a line of plain text `s` stops being one, from `from` on: the first `:` followed by a space
// or at the end (a key), or `#` after a space (a comment); `s.size()` when it does not.
std::size_t plain_stop(std::string_view s, std::size_t from) noexcept {
    for (std::size_t i = find_either_byte(s, from, ':', '#'); i < s.size(); i = find_either_byte(s, i + 1, ':', '#')) {
        if (s[i] == ':' ? (i + 1 == s.size() || s[i + 1] == ' ') : (i > 0 && s[i - 1] == ' ')) return i;
    }
    return s.size();
}

// What may follow a quoted scalar on its line: nothing, spaces, or spaces and a comment.
bool only_comment_after(std::string_view tail) noexcept {
    const std::size_t k = tail.find_first_not_of(' ');
    return k == std::string_view::npos || (k > 0 && tail[k] == '#');
}

class Reader {
public:
    explicit Reader(std::string_view text) : text_(text) {}

    std::optional<YNode> run() {
        advance();
        if (!have_ || failed_ || line_.indent != 0) return std::nullopt;
        YNode root = std::exchange(spare_tree, YNode{});
        reset_node(root);
        if (!mapping(0, 1, root) || failed_ || have_) {
            recycle_yaml_tree(std::move(root));  // its nodes serve the next read
            return std::nullopt;
        }
        return root;
    }

private:
    struct Line {
        std::string_view text;
        std::size_t indent = 0;
        std::size_t number = 0;  // 0-based
        std::size_t start = 0;   // byte offset of its first byte
    };

    // Gives `n` the mark of the byte at `p`, on the current line.
    void mark(YNode& n, const char* p) const noexcept {
        const auto offset = static_cast<std::size_t>(p - text_.data());
        n.offset = static_cast<std::uint32_t>(offset);
        n.line = static_cast<std::uint32_t>(line_.number);
        n.column = static_cast<std::uint32_t>(offset - line_.start);
    }

    // Moves to the next line that holds content: blank lines and comment lines (at any
    // indentation) are passed over.
    void advance() {
        while (pos_ < text_.size()) {
            const RawLine raw = peek_line();
            const std::size_t number = next_number_;
            take(raw);
            const std::string_view line = raw.text;
            const std::size_t indent = line.find_first_not_of(' ');
            if (indent == std::string_view::npos) continue;
            if (line[indent] == '#') continue;
            line_ = Line{line, indent, number, static_cast<std::size_t>(line.data() - text_.data())};
            have_ = true;
            return;
        }
        have_ = false;
    }

    // The line that starts at pos_ (while pos_ is inside the text), without its line feed; the
    // lines of a block or plain scalar are looked at this way before they are taken.
    struct RawLine {
        std::string_view text;
        std::size_t next = 0;  // where the line after it starts
        bool broken = false;   // it ends with a line feed (else it ends the text)
    };
    [[nodiscard]] RawLine peek_line() const noexcept {
        const std::size_t nl = text_.find('\n', pos_);
        if (nl == std::string_view::npos) return {text_.substr(pos_), text_.size(), false};
        return {text_.substr(pos_, nl - pos_), nl + 1, true};
    }
    // Steps past the line peek_line gave.
    void take(const RawLine& raw) noexcept {
        pos_ = raw.next;
        ++next_number_;
    }

    [[nodiscard]] bool at_entry(std::size_t indent) const noexcept {
        const std::string_view t = line_.text;
        return line_.indent == indent && t[indent] == '-' && (t.size() == indent + 1 || t[indent + 1] == ' ');
    }

    bool count() noexcept { return ++nodes_ <= max_nodes; }

    // A block mapping whose keys are at column `indent`, from the current line on.
    bool mapping(std::size_t indent, std::size_t depth, YNode& out) {
        if (depth > max_depth) return false;
        out.kind = YNode::Kind::mapping;
        mark(out, line_.text.data() + indent);
        // The frontmatter's own keys: room for eight at once, not a growth step per key or two.
        if (depth == 1) out.items.reserve(16);
        std::size_t used = 0;  // slots of out.items filled
        while (have_ && !failed_ && line_.indent == indent) {
            if (at_entry(indent)) return false;  // a list item where a key belongs
            const std::string_view rest = line_.text.substr(indent);
            std::size_t k = 0;
            if (!is_key_start(rest[0])) return false;
            while (k < rest.size() && k < max_key_bytes && is_key_char(rest[k])) ++k;
            if (k >= rest.size() || rest[k] != ':' || (k + 1 < rest.size() && rest[k + 1] != ' ')) return false;
            const std::string_view key_text = rest.substr(0, k);
            if (is_null_word(key_text)) return false;
            {
                YNode& key = child_slot(out.items, used++);
                key.kind = YNode::Kind::scalar;
                key.flags = YNode::plain | YNode::key;
                key.text.assign(key_text);
                mark(key, rest.data());
                key.items.clear();
            }
            if (!count()) return false;

            YNode& value = child_slot(out.items, used++);  // (key's reference may be stale now)
            const std::string_view after = rest.substr(k + 1);
            const std::size_t v = after.find_first_not_of(' ');
            if (v == std::string_view::npos) {
                // The value is on the lines below: a nested block, or a list at the key's column.
                advance();
                if (!have_ || failed_) return false;
                if (line_.indent > indent) {
                    const std::size_t inner = line_.indent;
                    if (at_entry(inner)) {
                        if (!sequence(inner, depth + 1, value)) return false;
                    } else if (key_line(line_.text.substr(inner))) {
                        if (!mapping(inner, depth + 1, value)) return false;
                    } else if (!plain_below(indent, value)) {
                        return false;
                    }
                } else if (at_entry(indent)) {
                    if (!sequence(indent, depth + 1, value)) return false;
                } else {
                    return false;  // an empty value
                }
            } else if (after[v] == '[') {
                if (!flow_sequence(after.substr(v), value)) return false;
                advance();
            } else if (after[v] == '|' || after[v] == '>') {
                if (!block_scalar(after.substr(v), indent, value)) return false;
                advance();
            } else {
                if (after[v] == '#') return false;  // an empty value with a comment
                if (!scalar(after.substr(v), value)) return false;
                if (!continue_plain(indent, after.substr(v), value)) return false;
            }
            if (!count()) return false;
            if (have_ && line_.indent > indent) return false;  // a continuation, or a stray indent
        }
        drop_slots(out.items, used);
        return !failed_;
    }

    // Whether `rest` (a line from its first non-space byte) starts with a key: key characters,
    // then `:` at the line's end or before a space.
    static bool key_line(std::string_view rest) noexcept {
        if (rest.empty() || !is_key_start(rest[0])) return false;
        std::size_t k = 0;
        while (k < rest.size() && k < max_key_bytes && is_key_char(rest[k])) ++k;
        return k < rest.size() && rest[k] == ':' && (k + 1 == rest.size() || rest[k + 1] == ' ');
    }

    // A plain scalar that starts on the current line, below its key (indented more than the
    // key's column `parent`), and may go on over the lines after it.
    bool plain_below(std::size_t parent, YNode& out) {
        const std::string_view first = line_.text.substr(line_.indent);
        if (first[0] == '\'' || first[0] == '"') return false;  // quoted: a line of its own only
        return scalar(first, out) && continue_plain(parent, first, out);
    }

    // After the first line `first` of a scalar already read into `out` (the value of a key at
    // column `parent`): the lines of a plain scalar that go on below it, folded as YAML folds
    // them (a line break between two lines is a space, each empty line between them a line
    // feed, the indentation and trailing spaces dropped); then on to the next line with content.
    // Only lines of plain text go on: a line that starts with an indicator other than a quote,
    // or holds `: ` or ` #` (or ends with `:`), makes the reader give up, as does a comment on
    // the first line followed by more text.
    bool continue_plain(std::size_t parent, std::string_view first, YNode& out) {
        std::size_t empty = 0;  // empty lines since the last line of text
        std::size_t resume = pos_;
        std::size_t resume_number = next_number_;
        bool went_on = false;
        while (pos_ < text_.size()) {
            const RawLine raw = peek_line();
            const std::string_view line = raw.text;
            const std::size_t ind = line.find_first_not_of(' ');
            if (ind == std::string_view::npos) {
                ++empty;
                take(raw);
                continue;
            }
            if (ind <= parent) break;  // the scalar ends before this line
            if (!out.has(YNode::plain) || first.find(" #") != std::string_view::npos) return false;
            std::string_view body = line.substr(ind);
            constexpr std::string_view indicators = "-?:,[]{}#&*!|>%@`";
            if (indicators.find(body[0]) != std::string_view::npos) return false;
            if (plain_stop(body, 0) < body.size()) return false;
            while (body.back() == ' ') body.remove_suffix(1);
            if (empty == 0) {
                out.text += ' ';
            } else {
                out.text.append(empty, '\n');
            }
            out.text.append(body);
            empty = 0;
            went_on = true;
            take(raw);
            resume = pos_;
            resume_number = next_number_;
        }
        // Empty lines after the last line of text are not the scalar's.
        pos_ = resume;
        next_number_ = resume_number;
        if (went_on) out.kind = YNode::Kind::scalar;  // more than a null word now
        advance();
        return !failed_;
    }

    // A block list whose `-` are at column `indent`. Each item is a scalar on its line, or a
    // mapping whose first key is on the item's line (`- name: x`) and whose other keys are on
    // the lines below at the first key's column (a list of authors, of contributors).
    bool sequence(std::size_t indent, std::size_t depth, YNode& out) {
        if (depth > max_depth) return false;
        out.kind = YNode::Kind::sequence;
        mark(out, line_.text.data() + indent);
        std::size_t used = 0;  // slots of out.items filled
        while (have_ && !failed_ && at_entry(indent)) {
            const std::string_view rest = line_.text.substr(indent + 1);
            const std::size_t v = rest.find_first_not_of(' ');
            if (v == std::string_view::npos || rest[v] == '#') return false;  // empty or nested
            YNode& item = child_slot(out.items, used++);
            if (key_line(rest.substr(v))) {
                // The item's line read as if it began at the key: the mapping's keys are at its column.
                line_.indent = indent + 1 + v;
                if (!mapping(line_.indent, depth + 1, item) || !count()) return false;
            } else {
                if (!scalar(rest.substr(v), item) || !count()) return false;
                advance();
            }
            if (have_ && line_.indent > indent) return false;
        }
        drop_slots(out.items, used);
        return !failed_;
    }

    // A flow sequence that ends on its line, of plain words: `[]`, `[a]`, `[Read, Grep, web-search]`.
    // Each item is letters, digits and `_ - . / ( )` with single spaces inside; anything else
    // (quotes, `:`, `*`, nesting, an empty item, a trailing comma, a null word, a line break) is
    // left to yaml-cpp. yaml-cpp reports a flow collection to the strict profile; so does this.
    bool flow_sequence(std::string_view s, YNode& out) {
        out.kind = YNode::Kind::sequence;
        out.flags = YNode::flow;
        mark(out, s.data());
        std::size_t used = 0;  // slots of out.items filled
        const auto starts_item = [](char c) { return is_key_start(c) || c == '.' || c == '/' || c == '('; };
        const auto in_item = [](char c) { return is_key_char(c) || c == '(' || c == ')'; };
        std::size_t i = 1;
        while (i < s.size() && s[i] == ' ') ++i;
        if (i < s.size() && s[i] == ']') {
            ++i;
        } else {
            for (;;) {
                if (i >= s.size() || !starts_item(s[i])) return false;
                const std::size_t start = i;
                std::size_t end = i;
                while (i < s.size() && (in_item(s[i]) || (s[i] == ' ' && i + 1 < s.size() && in_item(s[i + 1])))) {
                    ++i;
                    end = i;
                }
                while (i < s.size() && s[i] == ' ') ++i;
                if (i >= s.size()) return false;  // continues on the next line
                const std::string_view word = s.substr(start, end - start);
                if (is_null_word(word) || !count()) return false;
                YNode& item = child_slot(out.items, used++);
                item.kind = YNode::Kind::scalar;
                item.flags = YNode::plain;
                item.text.assign(word);
                item.items.clear();
                mark(item, word.data());
                if (s[i] == ']') {
                    ++i;
                    break;
                }
                if (s[i] != ',') return false;
                ++i;
                while (i < s.size() && s[i] == ' ') ++i;
            }
        }
        drop_slots(out.items, used);
        return only_comment_after(s.substr(i));
    }

    // A literal (`|`) or folded (`>`) block scalar, clipped or stripped (`-`), whose header `s`
    // ends the current line and whose lines are below it. Only the plain form is read: every
    // line of it either empty (no spaces) or indented exactly as its first line, more than the
    // key (`parent`), with no trailing space; no empty line before the first line. Anything else
    // (an indentation or keep indicator, a comment after the header, lines indented more, lines
    // of spaces) is left to yaml-cpp. Leaves the reader at the first line after the scalar.
    bool block_scalar(std::string_view s, std::size_t parent, YNode& out) {
        const bool folded = s[0] == '>';
        const bool strip = s.size() == 2 && s[1] == '-';
        if (s.size() != 1 && !strip) return false;
        out.kind = YNode::Kind::scalar;
        mark(out, s.data());
        std::size_t indent = 0;       // of the scalar's lines; 0 until the first one
        std::size_t empty = 0;        // empty lines since the last line of text
        std::size_t last_end = pos_;  // where the line after the last line of text starts
        std::size_t last_number = next_number_;
        bool last_broken = false;  // the last line of text ends with a line break
        out.items.clear();
        std::string& text = out.text;  // empty (child_slot)
        while (pos_ < text_.size()) {
            const RawLine raw = peek_line();
            const std::string_view line = raw.text;
            if (line.empty()) {
                if (indent == 0) return false;  // an empty line before the first one
                ++empty;
                take(raw);
                continue;
            }
            const std::size_t ind = line.find_first_not_of(' ');
            if (ind == std::string_view::npos || line.back() == ' ') return false;  // spaces only, or trailing
            if (indent == 0) {
                if (ind <= parent) return false;  // an empty scalar
                indent = ind;
            } else if (ind < indent) {
                break;  // the scalar ends before this line
            } else if (ind > indent) {
                return false;  // a line indented more (kept as it is under folding)
            } else if (empty == 0) {
                text += folded ? ' ' : '\n';
            } else {
                text.append(folded ? empty : empty + 1, '\n');
            }
            text.append(line.substr(indent));
            empty = 0;
            take(raw);
            last_end = pos_;
            last_number = next_number_;
            last_broken = raw.broken;
        }
        if (indent == 0) return false;
        if (!strip && last_broken) text += '\n';  // clip keeps the last line break, if there is one
        // Trailing empty lines belong to no one: read on from the line after the last text line.
        pos_ = last_end;
        next_number_ = last_number;
        return count();
    }

    // One scalar that ends on its line: `s` starts at its first character, runs to the line end.
    bool scalar(std::string_view s, YNode& out) const {
        mark(out, s.data());
        out.kind = YNode::Kind::scalar;
        out.items.clear();
        switch (s[0]) {
            case '\'':
                return single_quoted(s, out.text);
            case '"':
                return double_quoted(s, out.text);
            default:
                break;
        }
        // A character that starts another token (or might): the reader does not go there.
        constexpr std::string_view indicators = "-?:,[]{}#&*!|>'\"%@`";
        if (indicators.find(s[0]) != std::string_view::npos) return false;
        std::size_t end = s.size();
        if (const std::size_t stop = plain_stop(s, 1); stop < s.size()) {
            if (s[stop] == ':') return false;  // a mapping
            end = stop;                        // a comment
        }
        while (end > 0 && s[end - 1] == ' ') --end;
        const std::string_view text = s.substr(0, end);
        if (is_null_word(text)) out.kind = YNode::Kind::null;
        out.flags = YNode::plain;
        out.text.assign(text);
        return true;
    }

    static bool single_quoted(std::string_view s, std::string& text) {
        std::size_t i = 1;
        for (;;) {
            const std::size_t q = s.find('\'', i);
            if (q == std::string_view::npos) return false;  // continues on the next line
            text.append(s.substr(i, q - i));
            if (q + 1 < s.size() && s[q + 1] == '\'') {
                text += '\'';
                i = q + 2;
                continue;
            }
            return only_comment_after(s.substr(q + 1));
        }
    }

    static bool double_quoted(std::string_view s, std::string& text) {
        std::size_t i = 1;
        for (;;) {
            const std::size_t k = find_either_byte(s, i, '"', '\\');
            if (k == s.size()) return false;  // continues on the next line
            text.append(s.substr(i, k - i));
            if (s[k] == '"') return only_comment_after(s.substr(k + 1));
            if (k + 1 == s.size()) return false;  // an escaped line break
            switch (s[k + 1]) {
                case '\\':
                case '"':
                case '/':
                    text += s[k + 1];
                    break;
                case 'n':
                    text += '\n';
                    break;
                case 't':
                    text += '\t';
                    break;
                default:
                    return false;
            }
            i = k + 2;
        }
    }

    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t next_number_ = 0;
    Line line_;
    bool have_ = false;
    bool failed_ = false;
    std::size_t nodes_ = 0;
};

}  // namespace

void recycle_yaml_tree(YNode&& root) noexcept {
    // A tree is kept only when it is about the size of a real frontmatter's (a dozen or two
    // nodes, a few hundred bytes of text): at most this many nodes and this much room.
    constexpr std::size_t max_nodes_kept = 64;
    constexpr std::size_t max_bytes_kept = 16 * 1024;
    std::size_t nodes = 0;
    std::size_t bytes = 0;
    const auto fits = [&](const auto& self, const YNode& n) noexcept -> bool {
        ++nodes;
        bytes += sizeof(YNode) + n.text.capacity() + (n.items.capacity() - n.items.size()) * sizeof(YNode);
        if (nodes > max_nodes_kept || bytes > max_bytes_kept) return false;
        for (const YNode& c : n.items) {
            if (!self(self, c)) return false;
        }
        return true;
    };
    if (root.kind == YNode::Kind::mapping && fits(fits, root)) spare_tree = std::move(root);
}

std::size_t spare_yaml_nodes() noexcept {
    const auto count = [](const auto& self, const YNode& n) noexcept -> std::size_t {
        std::size_t total = 1;
        for (const YNode& c : n.items) total += self(self, c);
        return total;
    };
    return spare_tree.kind == YNode::Kind::mapping ? count(count, spare_tree) : 0;
}

std::optional<YNode> read_common_yaml(std::string_view text) {
    if (!plain_bytes(text)) return std::nullopt;
    return Reader(text).run();
}

}  // namespace agentskills::detail
