// The reference profile: strictyaml's load of a frontmatter (as ruamel reads it, with its exact
// messages and marks in code points), as a view over the library's YAML front end
// (parse/yaml.hpp): the checks ruamel makes as it reads, replayed over the front end's tree in
// document order, then those of strictyaml's constructor.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <yaml-cpp/exceptions.h>  // yaml-cpp's error messages (YAML::ErrorMsg), to word them as ruamel

#include "../parse/yaml.hpp"
#include "reference_detail.hpp"
#include "reference_marks.hpp"

namespace agentskills::reference::detail {
namespace {

namespace front = ::agentskills::detail;

// Every node counts against max_yaml_nodes (anchors and aliases are refused on their own).
constexpr front::YamlOptions strict_options{.bounds = {.max_nodes = max_yaml_nodes,
                                                       .max_text_bytes = front::yaml_unbounded,
                                                       .max_depth = front::yaml_unbounded,
                                                       .max_json_bytes = front::yaml_unbounded,
                                                       .text = front::YamlBounds::Text::copied,
                                                       .keys_count = true,
                                                       .anchor_copies_count = false,
                                                       .alias_counts_itself = true,
                                                       .alias_depth = false},
                                            .prescan = false,
                                            .valid_utf8 = true,
                                            .one_document = true,
                                            .fast_path = true,
                                            .keys_need_colon = false};

struct YamlError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A node with where it starts and ends in the source (code point positions).
struct Node {
    Value value;
    std::size_t start = 0;       // pointer
    std::size_t end = 0;         // pointer after the node (keys: after the scalar token)
    std::vector<Node> children;  // map: key, value, key, value, ...; list: items
    bool block_map = false;
};

std::size_t block_end(const Source& src, std::size_t after);

struct OpenCollection {
    std::size_t start = 0;  // code point where it starts
    bool mapping = false;   // a block mapping (else a block sequence)
};

// yaml-cpp's events, as the front end's tree holds them (document order), with ruamel's checks
// at each: the reference's nodes with their positions, or a YamlError. The node bound is the
// front end's (YamlTree::problem).
class Replay {
public:
    // Nodes at or after `limit` (where ruamel's first document has ended) are not replayed.
    Replay(const Source& src, const front::YamlTree& tree, std::size_t limit) : src_(src), tree_(tree), limit_(limit) {}

    // The root; nullopt when the read stopped inside it (the tree's problem is then reported).
    [[nodiscard]] std::optional<Node> run() const {
        if (!tree_.root) return std::nullopt;
        Node root;
        if (!node(*tree_.root, false, 0, root)) return std::nullopt;
        return root;
    }

private:
    using YNode = front::YNode;

    [[nodiscard]] std::size_t pointer(std::size_t byte) const { return src_.at_byte(byte).pointer; }

    // The node `y`, the item `index` of a block mapping (`in_map`) or of something else; false
    // when it is a collection the read stopped inside (its items are checked).
    bool node(const YNode& y, bool in_map, std::size_t index, Node& n) const {
        if (pointer(y.offset) >= limit_) return false;
        if (y.has(YNode::alias)) alias(tree_.alias_mark(y).offset);
        if (y.kind == YNode::Kind::null) {
            check_anchor(y);
            n.start = pointer(y.offset);
            n.value.text = null_spelling(n.start);
            n.end = n.start + code_points(n.value.text).size();
            return true;
        }
        if (y.kind == YNode::Kind::scalar) {
            check_tag(y);
            check_anchor(y);
            n.start = pointer(y.offset);
            check_tabs_before(n.start);
            n.value.text = y.text;  // yaml-cpp's Latin-1 bytes read as such, by the front end
            n.end = scalar_end(n.start);
            check_closed_quote(n.start);
            check_tabs_in_plain(y, n);
            if (in_map && index % 2 == 0) check_key_colon(n);
            return true;
        }
        if (y.has(YNode::flow)) {
            const std::size_t p = pointer(y.offset);
            throw YamlError(marked_error(src_, "While scanning", src_.at_pointer(p),
                                         "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make "
                                         "text appear literally)",
                                         src_.at_pointer(p + 1)));
        }
        check_tag(y);
        check_anchor(y);
        check_tabs_before(pointer(y.offset));
        const bool map = y.kind == YNode::Kind::mapping;
        n.value.kind = map ? Value::Kind::map : Value::Kind::list;
        n.start = pointer(y.offset);
        n.block_map = map;
        for (std::size_t i = 0; i < y.items.size(); ++i) {
            Node child;
            const bool complete = node(y.items[i], map, i, child);
            if (!complete) return false;
            n.children.push_back(std::move(child));
        }
        if (y.has(YNode::unclosed)) return false;
        n.end = n.children.empty() ? n.start : n.children.back().end;
        return true;
    }

    [[noreturn]] void alias(std::size_t byte) const {
        const auto& c = src_.cps();
        std::size_t p = pointer(byte), e = p + 1;
        while (e < c.size() && c[e] != ' ' && c[e] != '\t' && c[e] != '\n' && c[e] != ',' && c[e] != ']' && c[e] != '}')
            ++e;
        const std::string name =
            p + 1 <= e && p < c.size() ? to_utf8(std::u32string_view(c).substr(p + 1, e - p - 1)) : "";
        throw YamlError(marked_error(src_, "", std::nullopt,
                                     fmt::format("found undefined alias {}", py_repr(std::string_view(name))),
                                     src_.at_pointer(p)));
    }

    [[nodiscard]] std::string null_spelling(std::size_t p) const {
        const auto& c = src_.cps();
        for (std::u32string_view word : {U"null", U"Null", U"NULL", U"~"}) {
            if (std::u32string_view(c).substr(p, word.size()) == word) {
                const std::size_t after = p + word.size();
                if (after >= c.size() || c[after] == ' ' || c[after] == '\t' || c[after] == '\n' || c[after] == '#') {
                    return to_utf8(word);
                }
            }
        }
        return {};
    }

    // End of a one-line scalar token starting at `p`: after the closing quote, or the plain
    // scalar up to ": ", " #" or the end of the line, less trailing blanks.
    [[nodiscard]] std::size_t scalar_end(std::size_t p) const {
        const auto& c = src_.cps();
        if (p >= c.size()) return p;
        if (c[p] == '\'' || c[p] == '"') {
            const char32_t q = c[p];
            for (std::size_t i = p + 1; i < c.size(); ++i) {
                if (q == '"' && c[i] == '\\') {
                    ++i;
                } else if (c[i] == q) {
                    if (q == '\'' && i + 1 < c.size() && c[i + 1] == '\'') {
                        ++i;
                        continue;
                    }
                    return i + 1;
                }
            }
            return c.size();
        }
        std::size_t i = p;
        std::size_t last = p;
        while (i < c.size() && c[i] != '\n') {
            if (c[i] == ':' && (i + 1 >= c.size() || c[i + 1] == ' ' || c[i + 1] == '\n' || c[i + 1] == '\t')) break;
            if (c[i] == '#' && i > p && (c[i - 1] == ' ' || c[i - 1] == '\t')) break;
            ++i;
            if (c[i - 1] != ' ' && c[i - 1] != '\t') last = i;
        }
        return last;
    }

    // The token of `sigil` ('!' for a tag, '&' for an anchor) that belongs to the node at `mark`:
    // the last one before the node on its line, or the first after it.
    [[nodiscard]] std::pair<std::size_t, std::size_t> token_near(const YNode& y, char32_t sigil) const {
        const auto& c = src_.cps();
        std::size_t p = std::min(pointer(y.offset), c.size());
        std::size_t line_start = p;
        while (line_start > 0 && c[line_start - 1] != '\n') --line_start;
        std::size_t found = c.size();
        for (std::size_t i = line_start; i < c.size() && c[i] != '\n'; ++i) {
            const bool token_start = i == 0 || c[i - 1] == ' ' || c[i - 1] == '\t' || c[i - 1] == '\n';
            if (c[i] == sigil && token_start) {
                found = i;
                if (i >= p) break;
            }
        }
        if (found == c.size()) return {p, p};
        std::size_t end = found;
        while (end < c.size() && c[end] != ' ' && c[end] != '\t' && c[end] != '\n') ++end;
        return {found, end};
    }

    void check_tag(const YNode& y) const {
        if (!y.has(YNode::tagged)) return;
        const auto [start, end] = token_near(y, U'!');
        throw YamlError(marked_error(src_, "While scanning", src_.at_pointer(end),
                                     "Found disallowed tag tokens (do not specify types in markup)",
                                     src_.at_pointer(start)));
    }
    void check_anchor(const YNode& y) const {
        if (!y.anchored()) return;
        const auto [start, end] = token_near(y, U'&');
        throw YamlError(
            marked_error(src_, "While scanning", src_.at_pointer(start),
                         "Found confusing disallowed anchor token (surround with ' and ' to make text appear "
                         "literally)",
                         src_.at_pointer(end)));
    }

    // ruamel skips only spaces before a token: a tab there cannot start one.
    void check_tabs_before(std::size_t p) const {
        const auto& c = src_.cps();
        std::size_t i = std::min(p, c.size());
        std::optional<std::size_t> tab;
        while (i > 0 && (c[i - 1] == ' ' || c[i - 1] == '\t')) {
            --i;
            if (c[i] == '\t') tab = i;
        }
        if (!tab) return;
        throw YamlError(marked_error(src_, "while scanning for the next token", std::nullopt,
                                     "found character '\\t' that cannot start any token", src_.at_pointer(*tab)));
    }

    // ruamel ends a plain scalar at a tab, and skips only spaces after a token: a tab in a plain
    // scalar's first line, or in the blanks after any scalar, cannot start a token.
    void check_tabs_in_plain(const YNode& y, const Node& n) const {
        const auto& c = src_.cps();
        if (y.has(YNode::plain) && n.start < c.size() && c[n.start] != '\'' && c[n.start] != '"') {
            for (std::size_t i = n.start; i < n.end && i < c.size(); ++i) {
                if (c[i] == '\t') throw YamlError(tab_error(src_, i));
            }
        }
        if (auto tab = tab_in_blanks(src_, n.end)) throw YamlError(tab_error(src_, *tab));
    }

    // A quoted scalar that the end of the frontmatter cuts.
    void check_closed_quote(std::size_t p) const {
        const auto& c = src_.cps();
        if (p >= c.size() || (c[p] != '"' && c[p] != '\'')) return;
        if (scalar_end(p) < c.size() || (c.size() > p + 1 && c.back() == c[p])) return;
        throw YamlError(marked_error(src_, "while scanning a quoted scalar", src_.at_pointer(p),
                                     "found unexpected end of stream", src_.at_pointer(c.size())));
    }

    // A key of a block mapping (`n`) that has no ':' after it on its line (yaml-cpp reads it as a key
    // with a null value; ruamel refuses it).
    void check_key_colon(const Node& n) const {
        const auto& c = src_.cps();
        std::size_t before = n.start;
        while (before > 0 && c[before - 1] == ' ') --before;
        if (before > 0 && c[before - 1] == '?') return;  // an explicit key
        std::size_t i = n.end;
        while (i < c.size() && (c[i] == ' ' || c[i] == '\t')) ++i;
        if (i < c.size() && c[i] == ':') return;
        if (i < c.size() && c[i] != '\n' && c[i] != '#') return;  // not a one-line key: leave it to yaml-cpp
        throw YamlError(marked_error(src_, "while scanning a simple key", src_.at_pointer(n.start),
                                     "could not find expected ':'", src_.at_pointer(block_end(src_, n.end))));
    }

    const Source& src_;
    const front::YamlTree& tree_;
    std::size_t limit_;
};

// Where the block collection that ends at `after` is closed: the next token, or the end.
std::size_t block_end(const Source& src, std::size_t after) {
    const auto& c = src.cps();
    std::size_t i = after;
    while (i < c.size()) {
        if (c[i] == '#') {
            while (i < c.size() && c[i] != '\n') ++i;
        } else if (c[i] == ' ' || c[i] == '\t' || c[i] == '\n') {
            ++i;
        } else {
            break;
        }
    }
    return i;
}

// The constructor's checks, then the value: duplicate keys (this mapping's, then the nested
// ones'), and mappings that are values of one mapping at different indentations.
Value construct(const Source& src, Node& n) {
    if (n.value.kind == Value::Kind::map) {
        // ruamel builds each value (and runs its checks) before it looks the key up.
        Value out;
        out.kind = Value::Kind::map;
        for (std::size_t i = 0; i + 1 < n.children.size(); i += 2) {
            const Node& key = n.children[i];
            std::string k = key.value.kind == Value::Kind::string ? key.value.text : py_repr(key.value);
            Value v = construct(src, n.children[i + 1]);
            if (out.find(k) != nullptr) {
                throw YamlError(marked_error(src, "While parsing", src.at_pointer(key.start),
                                             fmt::format("Duplicate key '{}' found", k), src.at_pointer(key.end)));
            }
            out.entries.push_back(Value::Entry{std::move(k), std::move(v)});
        }
        std::optional<std::size_t> indentation;
        for (std::size_t i = 1; i < n.children.size(); i += 2) {
            const Node& v = n.children[i];
            if (v.value.kind != Value::Kind::map) continue;
            const std::size_t column = src.at_pointer(v.start).column;
            if (!indentation) indentation = column;
            if (column != *indentation) {
                throw YamlError(marked_error(src, "While parsing", src.at_pointer(v.start),
                                             "Found mapping with indentation inconsistent with previous mapping",
                                             src.at_pointer(block_end(src, v.end))));
            }
        }
        return out;
    }
    if (n.value.kind == Value::Kind::list) {
        Value out;
        out.kind = Value::Kind::list;
        for (auto& item : n.children) out.items.push_back(construct(src, item));
        return out;
    }
    return n.value;
}

// The column of the first character on `m`'s line that is not a space.
std::size_t first_column_of_line(const Source& src, const Mark& m) {
    const auto& c = src.cps();
    std::size_t p = m.pointer - m.column;
    while (p < c.size() && c[p] == ' ') ++p;
    return p - (m.pointer - m.column);
}

// Where yaml-cpp's error `e` (at `m`) is ruamel's "could not find expected ':'": the start of a
// scalar that stands alone on its line at the indentation of the open block mapping — the token
// yaml-cpp stopped at (it found no end of the mapping), or the line before the one whose ':'
// yaml-cpp refused (it read the two lines as one scalar).
std::optional<std::size_t> keyless_scalar(const Source& src, const front::YamlProblem& e, const OpenCollection& open,
                                          const Mark& m) {
    const auto& c = src.cps();
    const std::size_t column = src.at_pointer(open.start).column;
    const auto alone = [&](std::size_t p) {  // a scalar at `column` with no ':' and blank after it on its line
        if (p >= c.size() || src.at_pointer(p).column != column) return false;
        if (c[p] == '-' || c[p] == '?' || c[p] == ':' || c[p] == '#' || c[p] == '[' || c[p] == '{' || c[p] == '|' ||
            c[p] == '>' || c[p] == '&' || c[p] == '*' || c[p] == '!' || c[p] == '%' || c[p] == '@' || c[p] == '`') {
            return false;
        }
        for (std::size_t i = p; i < c.size() && c[i] != '\n'; ++i) {
            if (c[i] == ':' && (i + 1 >= c.size() || c[i + 1] == ' ' || c[i + 1] == '\n')) return false;
            if (c[i] == '#' && i > p && c[i - 1] == ' ') break;
        }
        return true;
    };
    if (e.message == YAML::ErrorMsg::END_OF_MAP) return alone(m.pointer) ? std::optional(m.pointer) : std::nullopt;
    if (e.message != YAML::ErrorMsg::MAP_VALUE || m.line == 0) return std::nullopt;
    // The previous line that is not blank (a comment line ends a plain scalar for both).
    std::size_t p = m.pointer - m.column;
    while (p > 0) {
        std::size_t start = p - 1;
        while (start > 0 && c[start - 1] != '\n') --start;
        std::size_t first = start;
        while (first < p - 1 && c[first] == ' ') ++first;
        if (first < p - 1) return alone(first) && first >= open.start ? std::optional(first) : std::nullopt;
        p = start;
    }
    return std::nullopt;
}

// The text of a yaml-cpp error in ruamel's words where they are known. `open` is the innermost
// collection being read when the error came, if one was.
std::string yaml_cpp_error(const Source& src, const front::YamlProblem& e, const std::optional<OpenCollection>& open) {
    const Mark m = src.at_byte(e.mark ? e.mark->offset : 0);
    std::string problem = e.message;
    // A collection entry followed by more on its line (`key: "quoted" more`, `- 'a' [b]`): where
    // yaml-cpp finds no end of the collection, ruamel's parser names the token it found instead.
    const bool unended = problem == YAML::ErrorMsg::END_OF_MAP || problem == YAML::ErrorMsg::END_OF_SEQ ||
                         problem == YAML::ErrorMsg::FLOW_END;
    // A scalar at a block mapping's indentation with no ':' on its line: ruamel's scanner wants
    // that simple key's ':' before its parser sees the scalar (or the lines yaml-cpp joins to it).
    if (open && open->mapping) {
        if (const auto key = keyless_scalar(src, e, *open, m)) {
            // yaml-cpp joined the next line to the key when it is indented further: ruamel reads the
            // joined scalar to its ':' before it finds the key stale.
            const bool joined = e.message == YAML::ErrorMsg::MAP_VALUE && src.at_pointer(*key).line != m.line &&
                                first_column_of_line(src, m) > src.at_pointer(*key).column;
            return simple_key_error(src, *key, joined ? std::optional(m.pointer) : std::nullopt);
        }
    }
    const auto& c = src.cps();
    if (problem == YAML::ErrorMsg::END_OF_MAP && open && open->mapping && m.pointer + 1 < c.size() &&
        c[m.pointer] == '-' && (c[m.pointer + 1] == ' ' || c[m.pointer + 1] == '\n') &&
        m.column == src.at_pointer(open->start).column) {
        // A sequence entry at the mapping's own indentation after a value: the parser's error.
        return marked_error(src, "while parsing a block mapping", src.at_pointer(open->start),
                            "expected <block end>, but found '-'", m);
    }
    if (problem == front::UNCLOSED_DOUBLE_QUOTE || problem == front::UNCLOSED_SINGLE_QUOTE) {
        // The front end found the quoted scalar that yaml-cpp read to the end (the mark is its
        // opening quote); ruamel's scanner stops at the end of the stream.
        return marked_error(src, "while scanning a quoted scalar", m, "found unexpected end of stream",
                            src.at_pointer(src.cps().size()));
    }
    if (problem == YAML::ErrorMsg::EOF_IN_SCALAR) {
        // A quoted scalar the end of the text cuts: its opening quote is the last one that starts
        // a token before the end.
        for (std::size_t q = std::min(m.pointer, c.size()); q-- > 0;) {
            if ((c[q] == '"' || c[q] == '\'') && (q == 0 || c[q - 1] == ' ' || c[q - 1] == '\n' || c[q - 1] == '[' ||
                                                  c[q - 1] == '{' || c[q - 1] == ',')) {
                return marked_error(src, "while scanning a quoted scalar", src.at_pointer(q),
                                    "found unexpected end of stream", m);
            }
        }
    }
    if (unended && open && open->mapping == (problem != YAML::ErrorMsg::END_OF_SEQ)) {
        if (const auto found = next_token_name(src.cps(), m.pointer)) {
            return marked_error(
                src, open->mapping ? "while parsing a block mapping" : "while parsing a block collection",
                src.at_pointer(open->start), fmt::format("expected <block end>, but found '{}'", *found), m);
        }
    }
    if (problem == YAML::ErrorMsg::UNKNOWN_TOKEN && m.pointer < src.cps().size()) {
        const std::u32string one(1, src.cps()[m.pointer]);
        return marked_error(src, "while scanning for the next token", std::nullopt,
                            fmt::format("found character {} that cannot start any token", py_repr(to_utf8(one))), m);
    }
    if (problem == YAML::ErrorMsg::BLOCK_ENTRY) {
        problem = "sequence entries are not allowed here";
    } else if (problem == YAML::ErrorMsg::MAP_KEY) {
        problem = "mapping keys are not allowed here";
    } else if (problem == YAML::ErrorMsg::MAP_VALUE) {
        problem = "mapping values are not allowed here";
    } else if (problem == YAML::ErrorMsg::UNKNOWN_ANCHOR) {
        // An alias with no anchor: the mark is at its '*'.
        std::size_t stop = m.pointer + 1;
        while (stop < c.size() && c[stop] != ' ' && c[stop] != '\t' && c[stop] != '\n' && c[stop] != ',' &&
               c[stop] != ']' && c[stop] != '}') {
            ++stop;
        }
        const std::string name =
            m.pointer < c.size() ? to_utf8(std::u32string_view(c).substr(m.pointer + 1, stop - m.pointer - 1)) : "";
        problem = fmt::format("found undefined alias {}", py_repr(std::string_view(name)));
    }
    return marked_error(src, "", std::nullopt, problem, m);
}

// ruamel's Reader refuses these characters before it scans anything.
std::optional<std::size_t> first_non_printable(const std::u32string& cps) {
    for (std::size_t i = 0; i < cps.size(); ++i) {
        const char32_t c = cps[i];
        const bool ok = c == 0x09 || c == 0x0A || c == 0x0D || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
                        (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
        if (!ok) return i;
    }
    return std::nullopt;
}

}  // namespace

Frontmatter load_frontmatter(const std::string& text) {
    Frontmatter out;
    const Source src(text);
    if (first_non_printable(src.cps())) {
        // strictyaml reads a ReaderError's context_mark, which it does not have.
        out.crash = "AttributeError: 'ReaderError' object has no attribute 'context_mark'";
        return out;
    }
    const front::YamlTree tree = front::read_yaml_tree(text, strict_options);
    // Where ruamel's first document ends before the text does (`...`, a directive): yaml-cpp
    // reads those lines otherwise, so the text decides (reference_stream.cpp).
    const std::optional<StreamBreak> brk = find_stream_break(src);
    const std::size_t limit = brk ? brk->pointer : src.cps().size() + 1;
    const auto problem_at = [&]() -> std::size_t {
        return tree.problem && tree.problem->mark ? src.at_byte(tree.problem->mark->offset).pointer : limit;
    };
    try {
        std::optional<Node> root = Replay(src, tree, limit).run();
        if (brk && (!tree.problem || tree.problem->kind != front::YamlProblem::Kind::syntax || problem_at() >= limit)) {
            std::optional<std::size_t> first;
            if (tree.root && src.at_byte(tree.root->offset).pointer < limit)
                first = src.at_byte(tree.root->offset).pointer;
            if (auto e = stream_break_error(src, *brk, first)) {
                out.error = "Invalid YAML in frontmatter: " + *e;
                return out;
            }
        }
        if (tree.problem && tree.problem->kind == front::YamlProblem::Kind::second_document) {
            out.error = "Invalid YAML in frontmatter: " + first_node_error(src);
            return out;
        }
        if (tree.problem) {
            if (tree.problem->kind != front::YamlProblem::Kind::syntax) {
                throw YamlError(
                    fmt::format("the frontmatter has more than {} nodes (agentskills' bound)", max_yaml_nodes));
            }
            std::optional<OpenCollection> open;
            if (tree.problem->open) {
                open = OpenCollection{src.at_byte(tree.problem->open->mark.offset).pointer,
                                      tree.problem->open->kind == front::YNode::Kind::mapping};
            }
            out.error = "Invalid YAML in frontmatter: " + yaml_cpp_error(src, *tree.problem, open);
            return out;
        }
        if (root) {
            Value v = construct(src, *root);
            if (v.kind == Value::Kind::map) out.map = std::move(v);
        }
    } catch (const YamlError& e) {
        out.error = std::string("Invalid YAML in frontmatter: ") + e.what();
        return out;
    }
    if (!out.map) out.error = "SKILL.md frontmatter must be a YAML mapping";
    return out;
}

}  // namespace agentskills::reference::detail
