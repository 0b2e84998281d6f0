// agentskills-cpp (private) — the library's one YAML front end. yaml-cpp's events (yaml.cpp), or
// for the common shape of a frontmatter a reader of its own that gives the same tree
// (yaml_fast.cpp), make one tree of the first document under bounds the caller gives. Every YAML
// reader of the library is a view over that tree: the SKILL.md manifest (parse/parser.cpp and
// parse/fields.cpp), agent specs and governance files (host/spec.cpp), the MCP frontmatter JSON
// (mcp/shared/frontmatter_json.cpp) and the reference profile's strictyaml emulation
// (compat/reference_yaml.cpp). A frontmatter yaml-cpp refused can be rewritten for one more read
// (yaml_recover.cpp, ParseOptions::yaml_recovery).
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentskills::detail {

/// Where a node starts, as yaml-cpp marks it: 0-based line, column (in bytes) and byte offset
/// in the text read. A node with properties starts at its first property (`&a`, `!!str`).
struct YamlMark {
    std::uint32_t offset = 0;
    std::uint32_t line = 0;
    std::uint32_t column = 0;
    friend bool operator==(const YamlMark&, const YamlMark&) = default;
};

/// One node of the tree. Scalars keep their literal text (no typing: a view types them). A
/// mapping holds key, value, key, value, ... in `items`. An alias is a copy of the node its
/// anchor names (flag `alias`): the copy keeps that node's marks, as yaml-cpp's own nodes do,
/// and YamlTree::alias_mark gives where the alias itself is. What few nodes have (a tag, the
/// mark of an alias) is in YamlTree::extras, so that a node stays 80 bytes.
struct YNode {
    enum class Kind : std::uint8_t { null, scalar, sequence, mapping };
    enum Flag : std::uint8_t {
        plain = 1,        ///< a plain scalar without a tag (yaml-cpp's tag "?"); every null
        flow = 2,         ///< a flow collection (`[...]`, `{...}`)
        tagged = 4,       ///< an explicit tag other than `!` (YamlTree::tag)
        alias = 8,        ///< the copy an alias made (YamlTree::alias_mark)
        unresolved = 16,  ///< an alias of an anchor not complete yet (inside its own node): a null
        unclosed = 32,    ///< a collection still open when the read stopped (YamlTree::problem)
        key = 64,         ///< read as a key of a mapping
    };

    std::string text;          ///< scalar text; for a null, its literal spelling ("" when empty)
    std::vector<YNode> items;  ///< sequence items; mapping: key, value, key, value, ...
    std::uint32_t line = 0;    ///< the mark (YamlMark)
    std::uint32_t column = 0;
    std::uint32_t offset = 0;
    std::uint32_t anchor = 0;  ///< yaml-cpp's anchor id (1, 2, ...); an alias: the one it names
    std::uint32_t extra = 0;   ///< 1 + index into YamlTree::extras; 0 = none
    Kind kind = Kind::null;
    std::uint8_t flags = 0;

    [[nodiscard]] bool is_scalar() const noexcept { return kind == Kind::scalar || kind == Kind::null; }
    [[nodiscard]] bool has(Flag f) const noexcept { return (flags & f) != 0; }
    /// Whether the node defines an anchor (an alias's copy only repeats it).
    [[nodiscard]] bool anchored() const noexcept { return anchor != 0 && !has(alias); }
    [[nodiscard]] YamlMark mark() const noexcept { return {offset, line, column}; }
};

/// Bounds of a read; `yaml_unbounded` is none. Every node made counts against `max_nodes` when
/// it starts (a collection when it opens); an alias counts every node it copies, and an anchor
/// the copy of its node that an alias can take. `max_text_bytes` counts the text aliases and
/// anchors copy, and with `text = all` the text of every scalar as well. `max_depth` counts the
/// open collections, with the new one. `max_json_bytes` bounds the literal-text JSON copy of the
/// tree printed with an indent of 2 (aliases count once per use). The switches fit each
/// caller's own accounting (see its call).
inline constexpr std::size_t yaml_unbounded = SIZE_MAX;
struct YamlBounds {
    enum class Text : std::uint8_t { copied, all };
    std::size_t max_nodes = yaml_unbounded;
    std::size_t max_text_bytes = yaml_unbounded;
    std::size_t max_depth = yaml_unbounded;
    std::size_t max_json_bytes = yaml_unbounded;
    Text text = Text::copied;
    bool keys_count = true;            ///< scalar (and collection) keys count as nodes
    bool anchor_copies_count = true;   ///< an anchored node counts its copy once more
    bool alias_counts_itself = false;  ///< an alias counts one node besides what it copies
    bool alias_depth = false;          ///< the depth of what an alias copies counts from where it is
};

struct YamlOptions {
    YamlBounds bounds;
    /// Run prescan_yaml first (the SKILL.md frontmatter: token floods, document markers).
    bool prescan = false;
    /// The text is known to be valid UTF-8 (else it is checked before the fast path is tried).
    bool valid_utf8 = false;
    /// A second document is a problem (`second_document`); else what follows the first is not read.
    bool one_document = false;
    /// Try the fast path first (where the thread's switch, set_frontmatter_fast_path, allows).
    bool fast_path = true;
    /// A plain key of a block mapping must have its ':' on its line (YAML's rule for implicit
    /// keys). yaml-cpp reads a line without one, such as an unindented continuation of the value
    /// above, as a key with a null value; with this on, that is a `syntax` problem ("could not
    /// find expected ':'") at the line. The reference profile words it itself (off there).
    bool keys_need_colon = true;
};

/// The `syntax` problem's message for a quoted scalar that yaml-cpp read to the end of the text
/// (it has no closing quote); its mark is the opening quote.
inline constexpr std::string_view UNCLOSED_DOUBLE_QUOTE =
    "end of the text inside a double-quoted scalar (no closing \")";
inline constexpr std::string_view UNCLOSED_SINGLE_QUOTE =
    "end of the text inside a single-quoted scalar (no closing ')";

/// Why a read stopped: yaml-cpp refused the text, a bound was passed, or the pre-scan refused it.
struct YamlProblem {
    enum class Kind : std::uint8_t {
        syntax,           ///< yaml-cpp's error: `message`, `what`, `mark` (unless yaml-cpp had none), `open`
        nodes,            ///< YamlBounds::max_nodes, at the node being read (`mark`)
        text_bytes,       ///< YamlBounds::max_text_bytes, at `mark`
        depth,            ///< YamlBounds::max_depth, at the collection or alias (`mark`)
        json_bytes,       ///< YamlBounds::max_json_bytes
        indicators,       ///< prescan_yaml: more than SKILL_MAX_YAML_INDICATORS, on `mark`'s line
        flow_depth,       ///< prescan_yaml: `[`/`{` deeper than SKILL_MAX_FRONTMATTER_DEPTH
        document_marker,  ///< prescan_yaml: `---` or `...` (`message`) starts a line
        second_document,  ///< YamlOptions::one_document, and a second one starts
    };
    /// The innermost collection open when yaml-cpp's error came.
    struct Open {
        YNode::Kind kind = YNode::Kind::mapping;
        bool flow = false;
        YamlMark mark;
    };
    Kind kind = Kind::syntax;
    std::optional<YamlMark> mark;
    std::string message;  ///< yaml-cpp's message as it gives it (not always UTF-8); a marker
    std::string what;     ///< yaml-cpp's what(): "yaml-cpp: error at line 1, column 2: ..."
    std::optional<Open> open;
};

/// What few nodes carry besides their fields.
struct YamlExtra {
    std::string tag;          ///< the explicit tag as yaml-cpp resolves it ("tag:yaml.org,2002:str")
    YamlMark alias;           ///< where the alias is, for the copy it made
    bool copied_key = false;  ///< the node the alias copied was a mapping key
};

/// The first document read: its root (none for an empty stream), or the problem. With a problem,
/// `root` holds what was read before it, in document order: complete nodes, then the
/// collections still open (flag `unclosed`, each the last item of the one before), so that a
/// view sees every event before the problem.
struct YamlTree {
    std::optional<YNode> root;
    std::optional<YamlProblem> problem;
    std::vector<YamlExtra> extras;

    [[nodiscard]] std::string_view tag(const YNode& n) const noexcept {
        return n.extra == 0 ? std::string_view() : std::string_view(extras[n.extra - 1].tag);
    }
    /// Where the alias of an alias's copy is; the node's own mark for any other node.
    [[nodiscard]] YamlMark alias_mark(const YNode& n) const noexcept {
        return n.has(YNode::alias) && n.extra != 0 ? extras[n.extra - 1].alias : n.mark();
    }
};

/// Whether an explicit key's indicator (`?` and a blank) comes before `offset` on its line of
/// `text`: the key at `offset` is then a complex key, which needs no ':' on its line.
[[nodiscard]] bool explicit_key_before(std::string_view text, std::size_t offset) noexcept;

/// Reads the first document of `text` under `options` (see YamlOptions).
[[nodiscard]] YamlTree read_yaml_tree(std::string_view text, const YamlOptions& options);

/// A top-level entry recover_plain_values read as quoted text: its 0-based line and its key.
struct RecoveredValue {
    std::size_t line = 0;
    std::string key;
};

/// The one recovery of a frontmatter that is not valid YAML (ParseOptions::yaml_recovery): each
/// top-level entry `key: text` whose value starts as plain text (not a quote, `|`, `>` or `#`),
/// which does not parse alone, and which parses alone once that text (with its indented
/// continuation lines, to its last non-blank character) is written as a double-quoted scalar, is
/// so written (`"` and `\` escaped; lines, and so every line number, are kept). An entry with a
/// comment line of its own among its lines is left as it is. Gives the new text and lists the entries in
/// `recovered`, or nullopt when no entry changed or the frontmatter is longer than
/// SKILL_MAX_YAML_RECOVERY_BYTES. The caller reads the new text under `options` again.
[[nodiscard]] std::optional<std::string> recover_plain_values(std::string_view frontmatter, const YamlOptions& options,
                                                              std::vector<RecoveredValue>& recovered);

/// The pre-scan of a SKILL.md frontmatter (run by read_yaml_tree under YamlOptions::prescan):
/// more indicator characters than SKILL_MAX_YAML_INDICATORS, `[`/`{` nested deeper than
/// SKILL_MAX_FRONTMATTER_DEPTH, or a line starting with a document marker.
[[nodiscard]] std::optional<YamlProblem> prescan_yaml(std::string_view text);

/// The fast path (yaml_fast.cpp): the tree of `text` when it has the common shape, node for
/// node, text for text, mark for mark and flag for flag what yaml-cpp's events build; nullopt
/// when it does not (read_yaml_tree then uses yaml-cpp). `text` must be valid UTF-8. The shape:
/// lines of `key: value` at column 0, whose value is a plain, single- or double-quoted scalar on
/// the key's line, a one-line flow sequence of plain words, a block scalar of the plain form
/// (`|`, `|-`, `>`, `>-`, its lines indented alike), a block list of scalars, or a block mapping
/// of the same shape, up to a few levels deep; blank lines; comment lines at column 0 and
/// comments after a value. No tab, CR or other control character, no anchor, alias, tag, flow
/// mapping, multi-line plain or quoted scalar, empty value or directive. Its trees have at most
/// fast_path_max_nodes nodes and fast_path_max_depth levels of collections.
[[nodiscard]] std::optional<YNode> read_common_yaml(std::string_view text);
inline constexpr std::size_t fast_path_max_nodes = 20001;
inline constexpr std::size_t fast_path_max_depth = 9;

/// Keeps a tree that is no longer needed as the calling thread's one spare tree, which the next
/// read_common_yaml fills in place: its nodes, their strings and lists keep their room, so that
/// reading the next frontmatter of a discovery allocates little. A tree is kept only when it has
/// at most 64 nodes and holds at most 16 KiB (docs/security.md); a larger one is freed (and the
/// spare kept before stays). `root` is left moved-from.
void recycle_yaml_tree(YNode&& root) noexcept;
/// How many nodes the calling thread's kept tree has (0 when none): for the tests of the bound.
[[nodiscard]] std::size_t spare_yaml_nodes() noexcept;

/// What YamlBounds::max_json_bytes charges for the JSON copy of `root` (an upper bound of its size
/// printed by dump(2)); the walk stops once the total passes `limit` and returns that total.
[[nodiscard]] std::size_t json_charge(const YNode& root, std::size_t limit = std::numeric_limits<std::size_t>::max());

/// An upper bound of the JSON size YamlBounds::max_json_bytes charges (dump(2): indentation,
/// punctuation, escapes) for any tree read_common_yaml makes of a text of `size` bytes, so that
/// read_yaml_tree need not walk such a tree when the bound is within the limit. A tree of the
/// fast path has at most fast_path_max_nodes nodes, none deeper than fast_path_max_depth + 2
/// (collections, then their scalars, below the root), each charged at most 2 * (2 * depth + 2)
/// bytes of lines and 2 of quotes: 50 bytes. Its scalars have no aliases: each is its own span
/// of the text, unescaped (`\n`, `\t`, `\"`, `\\`, `\/`) or folded, never longer than its span,
/// and a byte of it costs at most 6 bytes of JSON (`\u0001`): 6 bytes per byte of text.
inline constexpr std::size_t fast_path_json_per_node = 50;
inline constexpr std::size_t fast_path_json_per_byte = 6;
/// The largest text fast_path_json_bound takes without overflow.
inline constexpr std::size_t fast_path_json_max_size =
    (std::numeric_limits<std::size_t>::max() - fast_path_json_per_node * fast_path_max_nodes) / fast_path_json_per_byte;
[[nodiscard]] constexpr std::size_t fast_path_json_bound(std::size_t size) noexcept {
    return fast_path_json_per_node * fast_path_max_nodes + fast_path_json_per_byte * size;
}

/// Whether read_yaml_tree tries the fast path, for the calling thread (default true). The
/// differential fuzz target, the tests and the benchmarks turn it off to get yaml-cpp's tree.
[[nodiscard]] bool frontmatter_fast_path_enabled() noexcept;
void set_frontmatter_fast_path(bool enabled) noexcept;

}  // namespace agentskills::detail
