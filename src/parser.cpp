// SKILL.md parsing: frontmatter split, YAML through yaml-cpp's event API, field rules.
#include "agentskills/parser.hpp"
#include "agentskills/diagnostic_codes.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <istream>
#include <map>
#include <streambuf>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include "agentskills/names.hpp"
#include "yaml_text.hpp"

namespace agentskills {
namespace {

// ----------------------------------------------------------------------------------------
// A small YAML tree with positions, built from yaml-cpp events. Every scalar keeps its
// literal text (no YAML 1.1 typing), which yaml-cpp's event API gives us directly.

struct YNode {
    enum class Kind { null, scalar, sequence, mapping };
    Kind kind = Kind::null;
    std::string text;          // scalar text; for null, the literal spelling ("" when empty)
    std::vector<YNode> items;  // sequence items; mapping: key, value, key, value, ...
    std::size_t line = 0;      // 0-based line in the frontmatter
    YAML::anchor_t anchor = 0;

    [[nodiscard]] bool is_scalar() const noexcept { return kind == Kind::scalar || kind == Kind::null; }
};

// Findings that only the reference profile rejects.
struct StrictFindings {
    std::vector<std::pair<std::size_t, std::string>> list;  // line (0-based), what
    void add(std::size_t line, std::string what) { list.emplace_back(line, std::move(what)); }
};

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
        if (style == YAML::EmitterStyle::Flow) strict_.add(line_of(mark), "a flow collection ([...] or {...})");
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

nlohmann::json to_json(const YNode& n);

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

// Bytes of `text` as a JSON string: quotes, escapes (six bytes for a control character).
std::size_t json_string_size(std::string_view text) noexcept {
    std::size_t n = 2 + text.size();
    for (char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20)
            n += 5;
        else if (c == '"' || c == '\\')
            n += 1;
    }
    return n;
}

// What the JSON copy of `n` costs against SKILL_MAX_FRONTMATTER_JSON_BYTES: its compact text
// plus `depth` bytes per value (the indentation of a printed copy); an iterative walk that stops
// as soon as the budget is spent, so that the copy is only made when it fits.
void check_json_budget(const YNode& root) {
    std::size_t total = 0;
    std::vector<std::pair<const YNode*, std::size_t>> todo{{&root, 1}};
    while (!todo.empty()) {
        const auto [n, depth] = todo.back();
        todo.pop_back();
        total += depth + 1 + (n->is_scalar() ? json_string_size(n->text) : 2);
        for (const auto& child : n->items) todo.emplace_back(&child, depth + 1);
        if (total > SKILL_MAX_FRONTMATTER_JSON_BYTES) {
            throw TooComplex(fmt::format("is larger than {} bytes as JSON (aliases count once per use)",
                                         SKILL_MAX_FRONTMATTER_JSON_BYTES));
        }
    }
}

// ----------------------------------------------------------------------------------------

bool is_blank(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    });
}

std::string_view trim(std::string_view s) noexcept {
    const auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
    while (!s.empty() && ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && ws(s.back())) s.remove_suffix(1);
    return s;
}

// Number of '\n' in `s`, eight bytes at a time (std::count goes one byte at a time here, and
// this runs over every byte of every SKILL.md).
std::size_t count_newlines(std::string_view s) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101ULL;
    constexpr std::uint64_t low7 = 0x7F7F7F7F7F7F7F7FULL;
    std::size_t n = 0;
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t word = 0;
        std::memcpy(&word, s.data() + i, sizeof word);
        const std::uint64_t x = word ^ (ones * '\n');     // bytes equal to '\n' become 0
        const std::uint64_t t = ((x & low7) + low7) | x;  // high bit set exactly where x != 0
        // One bit per newline at the top of its byte; shifted down and multiplied, the bytes
        // add up in the top byte (no popcount instruction is needed).
        n += static_cast<std::size_t>((((~t & ~low7) >> 7) * ones) >> 56);
    }
    for (; i < s.size(); ++i) n += s[i] == '\n' ? 1 : 0;
    return n;
}

// A line that is `---` followed only by spaces, tabs or a CR.
bool is_delimiter(std::string_view line) noexcept {
    if (line.substr(0, 3) != "---") return false;
    for (char c : line.substr(3)) {
        if (c != ' ' && c != '\t' && c != '\r') return false;
    }
    return true;
}

// `s` with every CRLF turned into LF. Without a CR (the common case) nothing is copied: the
// result is `s` itself; otherwise the converted text is written to `storage`.
std::string_view without_cr(std::string_view s, std::string& storage) {
    std::size_t cr = s.find('\r');
    if (cr == std::string_view::npos) return s;
    storage.clear();
    storage.reserve(s.size());
    std::size_t from = 0;
    while (cr != std::string_view::npos) {
        const bool crlf = cr + 1 < s.size() && s[cr + 1] == '\n';
        storage.append(s.substr(from, crlf ? cr - from : cr + 1 - from));
        from = cr + 1;
        cr = s.find('\r', from);
    }
    storage.append(s.substr(from));
    return storage;
}

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

// A finding of the pre-scan below.
struct PrescanFinding {
    std::string_view code;
    std::size_t line = 0;  // 0-based line in the frontmatter
    std::string message;
};

// One pass over the frontmatter before yaml-cpp sees it. yaml-cpp queues every token of a
// collection whose key status is still open (a line of a million `[` holds a million tokens,
// about 250 MB), so the input is refused when it could make that queue large: more indicator
// characters than SKILL_MAX_YAML_INDICATORS, or `[`/`{` nested deeper than the depth bound.
// The count is of bytes, whatever they are inside (quotes, comments): it can only overcount, so
// no spelling hides a flood. A line starting with `---` or `...` (a YAML document marker, which
// may not appear inside any scalar) would begin a second document whose keys yaml-cpp drops
// silently: that is a syntax error here.
std::optional<PrescanFinding> prescan_frontmatter(std::string_view fm) {
    std::size_t line = 0;
    std::size_t indicators = 0;
    std::size_t flow_depth = 0;
    const auto blank_or_end = [&](std::size_t i) {
        return i >= fm.size() || fm[i] == ' ' || fm[i] == '\t' || fm[i] == '\n';
    };
    for (std::size_t i = 0; i < fm.size(); ++i) {
        const char c = fm[i];
        if (i == 0 || fm[i - 1] == '\n') {
            const std::string_view start = fm.substr(i, 3);
            if ((start == "---" || start == "...") && blank_or_end(i + 3)) {
                return PrescanFinding{codes::yaml_syntax, line,
                                      fmt::format("the frontmatter has the YAML document marker '{}' on line {}; it "
                                                  "must be one YAML document (keys after the marker would be lost)",
                                                  start, line + 1)};
            }
        }
        switch (c) {
            case '\n':
                ++line;
                continue;
            case '[':
            case '{':
                if (++flow_depth > SKILL_MAX_FRONTMATTER_DEPTH) {
                    return PrescanFinding{codes::yaml_too_complex, line,
                                          fmt::format("the frontmatter nests '[' and '{{' deeper than {} levels",
                                                      SKILL_MAX_FRONTMATTER_DEPTH)};
                }
                break;
            case ']':
            case '}':
                if (flow_depth > 0) --flow_depth;
                break;
            case ',':
            case '&':
            case '*':
            case '!':
                break;
            case '-':
            case '?':
            case ':':
                if (!blank_or_end(i + 1)) continue;
                break;
            default:
                continue;
        }
        if (++indicators > SKILL_MAX_YAML_INDICATORS) {
            return PrescanFinding{codes::yaml_too_complex, line,
                                  fmt::format("the frontmatter has more than {} YAML indicator characters "
                                              "([ ] {{ }} , & * ! - ? :); it is refused before parsing",
                                              SKILL_MAX_YAML_INDICATORS)};
        }
    }
    return std::nullopt;
}

// The body: text after the closing line, without leading and trailing blank lines, LF endings.
std::string trim_blank_lines(std::string_view text) {
    std::size_t begin = 0;
    while (begin < text.size()) {
        const std::size_t nl = text.find('\n', begin);
        const std::string_view line =
            text.substr(begin, nl == std::string_view::npos ? std::string_view::npos : nl - begin);
        if (!is_blank(line)) break;
        if (nl == std::string_view::npos) return {};
        begin = nl + 1;
    }
    std::size_t end = text.size();
    while (end > begin) {
        const std::size_t nl = text.rfind('\n', end - 1);
        const std::size_t line_begin = nl == std::string_view::npos ? 0 : nl + 1;
        if (line_begin < begin || !is_blank(text.substr(line_begin, end - line_begin))) break;
        end = nl == std::string_view::npos || nl < begin ? begin : nl;
    }
    return std::string(text.substr(begin, end - begin));
}

std::vector<std::string> split_list(std::string_view text, bool on_commas) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t next = std::string_view::npos;
        if (on_commas) {
            next = text.find(',', pos);
        } else {
            next = text.find_first_of(" \t\r\n", pos);
        }
        const std::string_view item =
            trim(text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
        if (!item.empty()) out.emplace_back(item);
        if (next == std::string_view::npos) break;
        pos = next + 1;
    }
    return out;
}

// Keeps the first of equal items, in order (a hash set: lists may hold ~100,000 items).
void dedupe(std::vector<std::string>& v) {
    std::unordered_set<std::string_view> seen;
    seen.reserve(v.size());
    std::vector<std::string> out;
    out.reserve(v.size());
    for (auto& s : v) {
        if (seen.count(s) != 0) continue;
        out.push_back(std::move(s));
        seen.insert(out.back());  // views into `out`, which never reallocates (reserved)
    }
    v = std::move(out);
}

constexpr std::string_view behavioral_fields[] = {"agent",        "argument-hint", "arguments",  "context",
                                                  "dependencies", "effort",        "hooks",      "model",
                                                  "paths",        "shell",         "when_to_use"};
constexpr std::string_view reference_fields[] = {"allowed-tools", "compatibility", "description",
                                                 "license",       "metadata",      "name"};

// A value as quoted in a diagnostic: at most 64 code points, then an ellipsis (a hostile name may
// be a megabyte long; the message need not be).
std::string shown(std::string_view value) {
    constexpr std::size_t max_shown = 64;
    const std::string_view cut = truncate_code_points(value, max_shown);
    return cut.size() == value.size() ? std::string(value) : std::string(cut) + "\u2026";
}

// True when `s` holds a C0 control other than TAB and LF, DEL, or a C1 control (U+0080..U+009F).
bool has_control_character(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return true;
    }
    return false;
}

std::string_view describe(NameProblem p) noexcept {
    switch (p) {
        case NameProblem::empty:
            return "is empty or blank";
        case NameProblem::too_long:
            return "is longer than 64 characters";
        case NameProblem::not_lowercase:
            return "must be lowercase";
        case NameProblem::edge_hyphen:
            return "must not start or end with a hyphen";
        case NameProblem::consecutive_hyphens:
            return "must not contain consecutive hyphens";
        case NameProblem::invalid_character:
            return "may only contain letters, digits and hyphens";
    }
    return "is invalid";
}

std::string_view code_of(NameProblem p) noexcept {
    switch (p) {
        case NameProblem::empty:
            return codes::name_blank;
        case NameProblem::too_long:
            return codes::name_too_long;
        case NameProblem::not_lowercase:
            return codes::name_not_lowercase;
        case NameProblem::edge_hyphen:
            return codes::name_hyphen_edge;
        case NameProblem::consecutive_hyphens:
            return codes::name_consecutive_hyphens;
        case NameProblem::invalid_character:
            return codes::name_invalid_character;
    }
    return codes::name_invalid;
}

// Severity a finding has under the profile in use; `none` drops it.
enum class Level { none, info, warning, error };

class Parse {
public:
    Parse(const ParseOptions& options, ParseResult& result) : opt_(options), out_(result) {}

    void run(std::string_view text, bool truncated);

private:
    [[nodiscard]] bool reference() const noexcept { return opt_.profile == ValidationProfile::reference; }

    // Adds a finding; `standard` applies to the standard profile, `ref` to the reference one.
    void add(std::string_view code, Level standard, Level ref, std::size_t file_line, std::string message) {
        const Level level = reference() ? ref : standard;
        if (level == Level::none) return;
        Diagnostic d;
        d.code = std::string(code);
        d.severity = level == Level::error     ? Severity::error
                     : level == Level::warning ? Severity::warning
                                               : Severity::info;
        d.path = std::string(opt_.path);
        d.line = file_line;
        d.message = std::move(message);
        if (d.severity == Severity::error) failed_ = true;
        out_.diagnostics.push_back(std::move(d));
    }
    void fatal(std::string_view code, std::size_t file_line, std::string message,
               SkipReason reason = SkipReason::invalid) {
        add(code, Level::error, Level::error, file_line, std::move(message));
        if (!out_.skip_reason) out_.skip_reason = reason;
    }

    [[nodiscard]] std::size_t file_line(std::size_t yaml_line) const noexcept { return yaml_line + fm_first_line_; }

    void interpret(const YNode& root);
    void check_name(const YNode* node, std::size_t line, SkillManifest& m);
    std::optional<std::vector<std::string>> read_list(const YNode& node, std::string_view key, bool commas);
    void cap_tool_names(std::vector<std::string>& names, std::string_view key, std::size_t line);
    std::optional<bool> read_flag(const YNode& node, std::string_view key);

    const ParseOptions& opt_;
    ParseResult& out_;
    std::size_t fm_first_line_ = 2;
    bool failed_ = false;
};

void Parse::run(std::string_view text, bool truncated) {
    if (truncated || (opt_.max_bytes != 0 && text.size() > opt_.max_bytes)) {
        fatal(codes::too_large, 0,
              fmt::format("the file is larger than the byte limit ({} bytes); it was not read further", opt_.max_bytes),
              SkipReason::too_large);
        return;
    }
    if (!is_valid_utf8(text)) {
        // Name the first line that is not valid UTF-8 on its own.
        std::size_t line = 1;
        for (std::size_t begin = 0; begin < text.size(); ++line) {
            const std::size_t nl = text.find('\n', begin);
            const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
            if (!is_valid_utf8(text.substr(begin, end - begin))) break;
            begin = end + 1;
        }
        fatal(codes::invalid_utf8, line, "the file is not valid UTF-8");
        return;
    }
    if (text.find('\0') != std::string_view::npos) {
        std::size_t line = 1 + static_cast<std::size_t>(std::count(
                                   text.begin(), text.begin() + static_cast<std::ptrdiff_t>(text.find('\0')), '\n'));
        fatal(codes::nul_byte, line, "the file contains a NUL byte; a SKILL.md must be text");
        return;
    }
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        add(codes::bom, Level::warning, Level::error, 1,
            reference() ? "the file starts with a byte-order mark, not with the frontmatter line ---"
                        : "the file starts with a UTF-8 byte-order mark; it was ignored");
        text.remove_prefix(3);
        if (reference()) {
            out_.skip_reason = SkipReason::invalid;
            return;
        }
    }

    // Count lines (a last line without a newline counts).
    const std::size_t lines = count_newlines(text) + ((!text.empty() && text.back() != '\n') ? 1 : 0);
    if (!reference() && opt_.max_lines != 0 && lines > opt_.max_lines) {
        fatal(codes::too_many_lines, opt_.max_lines + 1,
              fmt::format("the file has {} lines, more than the limit of {}", lines, opt_.max_lines),
              SkipReason::too_large);
        return;
    }

    // The first line must be the opening delimiter.
    const std::size_t first_nl = text.find('\n');
    const std::string_view first = text.substr(0, first_nl);
    if (!is_delimiter(first)) {
        fatal(codes::frontmatter_missing, 1, "the file must start with a line '---' that opens the YAML frontmatter");
        return;
    }
    if (first_nl == std::string_view::npos) {
        fatal(codes::frontmatter_unclosed, 1, "the frontmatter is not closed by a line '---'");
        return;
    }
    std::size_t pos = first_nl + 1;
    std::size_t line_no = 2;
    std::size_t close_begin = std::string_view::npos;
    std::size_t body_begin = text.size();
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        const std::string_view line =
            text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        if (is_delimiter(line)) {
            close_begin = pos;
            body_begin = nl == std::string_view::npos ? text.size() : nl + 1;
            break;
        }
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
        ++line_no;
    }
    if (close_begin == std::string_view::npos) {
        fatal(codes::frontmatter_unclosed, 1, "the frontmatter opened on line 1 is not closed by a line '---'");
        return;
    }
    std::string frontmatter_storage;
    const std::string_view frontmatter =
        without_cr(text.substr(first_nl + 1, close_begin - (first_nl + 1)), frontmatter_storage);
    {
        std::string body_storage;
        out_.body = trim_blank_lines(without_cr(text.substr(body_begin), body_storage));
    }

    if (auto finding = prescan_frontmatter(frontmatter)) {
        fatal(finding->code, file_line(finding->line), std::move(finding->message));
        return;
    }
    StrictFindings strict;
    TreeBuilder builder(frontmatter, strict);
    try {
        ViewStreamBuf buffer(frontmatter);
        std::istream in(&buffer);
        YAML::Parser parser(in);
        parser.HandleNextDocument(builder);
        if (builder.root) check_json_budget(*builder.root);
    } catch (const YAML::Exception& e) {
        const std::size_t line = e.mark.line < 0 ? 0 : file_line(static_cast<std::size_t>(e.mark.line));
        // yaml-cpp may quote one byte of a multi-byte character ("unknown escape character").
        fatal(codes::yaml_syntax, line, fmt::format("the frontmatter is not valid YAML: {}", valid_utf8(e.msg)));
        return;
    } catch (const TooComplex& e) {
        fatal(codes::yaml_too_complex, 0, fmt::format("the frontmatter {}", e.what()));
        return;
    }
    for (const auto& [line, what] : strict.list) {
        add(codes::yaml_strict, Level::none, Level::error, file_line(line),
            fmt::format("the frontmatter uses {}, which strict YAML does not allow", what));
    }
    if (!builder.root || builder.root->kind != YNode::Kind::mapping) {
        fatal(codes::frontmatter_not_mapping, 2, "the frontmatter must be a YAML mapping of keys to values");
        return;
    }
    interpret(*builder.root);
    if (failed_ && !out_.skip_reason) out_.skip_reason = SkipReason::invalid;
}

std::optional<std::vector<std::string>> Parse::read_list(const YNode& node, std::string_view key, bool commas) {
    std::vector<std::string> out;
    if (node.is_scalar()) {
        out = split_list(node.text, commas);
    } else if (node.kind == YNode::Kind::sequence) {
        for (const auto& item : node.items) {
            if (!item.is_scalar()) {
                add(codes::field_type, Level::warning, Level::none, file_line(item.line),
                    fmt::format("an item of '{}' is not a plain value; it was ignored", key));
                continue;
            }
            const auto t = trim(item.text);
            if (!t.empty()) out.emplace_back(t);
        }
    } else {
        add(codes::field_type, Level::warning, Level::none, file_line(node.line),
            fmt::format("'{}' must be a string or a list; it was ignored", key));
        return std::nullopt;
    }
    dedupe(out);
    return out;
}

void Parse::cap_tool_names(std::vector<std::string>& names, std::string_view key, std::size_t line) {
    if (names.size() <= SKILL_MAX_TOOL_NAMES) return;
    add(codes::tool_list_too_long, Level::warning, Level::warning, line,
        fmt::format("'{}' names {} tools, more than the limit of {}; the names after the first {} were dropped", key,
                    names.size(), SKILL_MAX_TOOL_NAMES, SKILL_MAX_TOOL_NAMES));
    names.resize(SKILL_MAX_TOOL_NAMES);
}

std::optional<bool> Parse::read_flag(const YNode& node, std::string_view key) {
    if (node.is_scalar()) {
        std::string lower(trim(node.text));
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
        if (lower == "true") return true;
        if (lower == "false") return false;
    }
    add(codes::invocation_flag_invalid, Level::error, Level::none, file_line(node.line),
        fmt::format("'{}' must be true or false, not '{}'; the skill is skipped rather than guess", key,
                    node.is_scalar() ? node.text : to_json(node).dump()));
    return std::nullopt;
}

void Parse::check_name(const YNode* node, std::size_t line, SkillManifest& m) {
    const bool require = opt_.name_policy == NamePolicy::require_valid;
    const Level rule_level = require ? Level::error : Level::warning;
    std::string name;
    if (node == nullptr) {
        if (require && !reference() && !opt_.directory_name.empty()) {
            name = nfkc(opt_.directory_name);
        } else {
            fatal(codes::name_missing, 2, "the frontmatter has no 'name'");
            return;
        }
    } else if (!node->is_scalar()) {
        fatal(codes::name_not_string, line, "'name' must be a string");
        return;
    } else {
        name = std::string(trim(node->text));
        if (is_blank_text(name)) {
            fatal(codes::name_blank, line,
                  name.empty() ? "'name' is empty" : "'name' is blank (only white space or invisible characters)");
            return;
        }
    }
    const std::string normalized = nfkc(name);
    for (NameProblem p : check_skill_name(normalized)) {
        add(code_of(p), rule_level, Level::error, line,
            fmt::format("the name '{}' {}", shown(normalized), describe(p)));
    }
    if (!opt_.directory_name.empty() && !names_equal(opt_.directory_name, normalized)) {
        add(codes::name_directory_mismatch, rule_level, Level::error, line,
            fmt::format("the name '{}' does not match its directory '{}'", shown(normalized),
                        shown(opt_.directory_name)));
    }
    m.name = require ? normalized : name;
}

void Parse::interpret(const YNode& root) {
    // Top-level keys, the last of a duplicated key winning (as JSON does).
    std::vector<std::pair<std::string, const YNode*>> fields;
    std::unordered_map<std::string, std::size_t> where;
    std::unordered_map<std::string, std::size_t> key_line;
    for (std::size_t i = 0; i + 1 < root.items.size(); i += 2) {
        std::string key = key_text(root.items[i]);
        key_line[key] = file_line(root.items[i].line);
        auto [it, inserted] = where.emplace(key, fields.size());
        if (inserted) {
            fields.emplace_back(key, &root.items[i + 1]);
        } else {
            add(codes::duplicate_key, Level::warning, Level::error, file_line(root.items[i].line),
                fmt::format("the key '{}' appears more than once; the last value is used", key));
            fields[it->second].second = &root.items[i + 1];
        }
    }
    const auto find = [&](std::string_view key) -> const YNode* {
        auto it = where.find(std::string(key));
        return it == where.end() ? nullptr : fields[it->second].second;
    };
    const auto line_of = [&](std::string_view key) -> std::size_t {
        auto it = key_line.find(std::string(key));
        return it == key_line.end() ? 2 : it->second;
    };

    SkillManifest m;
    m.skill_file = std::string(opt_.path);
    m.frontmatter = to_json(root);

    if (reference()) {
        std::vector<std::string> unknown;
        for (const auto& [key, node] : fields) {
            if (std::find(std::begin(reference_fields), std::end(reference_fields), key) ==
                std::end(reference_fields)) {
                unknown.push_back(key);
            }
        }
        std::sort(unknown.begin(), unknown.end());
        if (!unknown.empty()) {
            std::string list;
            for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
            add(codes::unknown_field, Level::none, Level::error, line_of(unknown.front()),
                fmt::format("unexpected keys in the frontmatter: {} (the reference allows only allowed-tools, "
                            "compatibility, description, license, metadata and name)",
                            list));
        }
    }

    check_name(find("name"), line_of("name"), m);

    if (const YNode* d = find("description"); d == nullptr) {
        fatal(codes::description_missing, 2, "the frontmatter has no 'description'");
    } else if (!d->is_scalar()) {
        fatal(codes::description_not_string, line_of("description"), "'description' must be a string");
    } else if (is_blank_text(d->text)) {
        fatal(codes::description_blank, line_of("description"),
              is_blank(d->text) ? "'description' is empty"
                                : "'description' is blank (only white space or invisible characters)");
    } else {
        if (has_control_character(d->text)) {
            const Level level = opt_.name_policy == NamePolicy::require_valid ? Level::error : Level::warning;
            add(codes::description_control_character, level, level, line_of("description"),
                "'description' holds a control character (only TAB and line feed are allowed)");
        }
        const std::string_view value = reference() ? std::string_view(d->text) : trim(d->text);
        const std::size_t n = code_point_count(value);
        if (n > SKILL_MAX_DESCRIPTION_LENGTH) {
            add(codes::description_too_long, Level::warning, Level::error, line_of("description"),
                fmt::format("'description' has {} characters, more than {}{}", n, SKILL_MAX_DESCRIPTION_LENGTH,
                            reference() ? "" : "; it was cut at the limit"));
            m.description = std::string(truncate_code_points(value, SKILL_MAX_DESCRIPTION_LENGTH));
        } else {
            m.description = std::string(value);
        }
    }

    if (const YNode* c = find("compatibility")) {
        if (!c->is_scalar()) {
            add(codes::compatibility_not_string, Level::warning, Level::error, line_of("compatibility"),
                "'compatibility' must be a string; it was ignored");
        } else {
            const std::string_view value = reference() ? std::string_view(c->text) : trim(c->text);
            const std::size_t n = code_point_count(value);
            if (n > SKILL_MAX_COMPATIBILITY_LENGTH) {
                add(codes::compatibility_too_long, Level::warning, Level::error, line_of("compatibility"),
                    fmt::format("'compatibility' has {} characters, more than {}{}", n, SKILL_MAX_COMPATIBILITY_LENGTH,
                                reference() ? "" : "; it was cut at the limit"));
                m.compatibility = std::string(truncate_code_points(value, SKILL_MAX_COMPATIBILITY_LENGTH));
            } else if (!value.empty()) {
                m.compatibility = std::string(value);
            }
        }
    }

    if (const YNode* l = find("license")) {
        if (l->is_scalar()) {
            if (!trim(l->text).empty()) m.license = std::string(trim(l->text));
        } else {
            add(codes::license_not_string, Level::warning, Level::none, line_of("license"),
                "'license' must be a string; it was ignored");
        }
    }

    if (const YNode* md = find("metadata")) {
        if (md->kind == YNode::Kind::mapping) {
            std::unordered_map<std::string, std::size_t> position;  // key -> index in m.metadata
            for (std::size_t i = 0; i + 1 < md->items.size(); i += 2) {
                const YNode& value = md->items[i + 1];
                std::string text = value.is_scalar() ? value.text : to_json(value).dump();
                std::string key = key_text(md->items[i]);
                auto [it, inserted] = position.emplace(key, m.metadata.size());
                if (!inserted) {
                    m.metadata[it->second].second = std::move(text);
                } else {
                    m.metadata.emplace_back(std::move(key), std::move(text));
                }
            }
        } else if (!(md->kind == YNode::Kind::null && md->text.empty())) {
            add(codes::metadata_not_mapping, Level::warning, Level::none, line_of("metadata"),
                "'metadata' must be a mapping of keys to values; it was ignored");
        }
    }

    if (const YNode* at = find("allowed-tools")) {
        if (auto list = read_list(*at, "allowed-tools", false)) m.allowed_tools = std::move(*list);
        cap_tool_names(m.allowed_tools, "allowed-tools", line_of("allowed-tools"));
    }
    if (const YNode* t = find("tools")) {
        if (auto list = read_list(*t, "tools", true)) {
            cap_tool_names(*list, "tools", line_of("tools"));
            m.tools = std::move(*list);
        }
    }
    for (std::string_view key : {"disallowedTools", "disallowed-tools"}) {
        if (const YNode* t = find(key)) {
            if (auto list = read_list(*t, key, true)) {
                m.disallowed_tools.insert(m.disallowed_tools.end(), list->begin(), list->end());
            }
        }
    }
    dedupe(m.disallowed_tools);
    cap_tool_names(m.disallowed_tools, "disallowedTools",
                   line_of(find("disallowedTools") != nullptr ? "disallowedTools" : "disallowed-tools"));

    if (!reference()) {
        if (const YNode* f = find("disable-model-invocation")) {
            if (auto v = read_flag(*f, "disable-model-invocation")) m.disable_model_invocation = *v;
        }
        if (const YNode* f = find("user-invocable")) {
            if (auto v = read_flag(*f, "user-invocable")) m.user_invocable = *v;
        }
    }

    for (std::string_view key : {"version", "category"}) {
        if (const YNode* v = find(key)) {
            if (v->is_scalar()) {
                if (!trim(v->text).empty()) (key == "version" ? m.version : m.category) = std::string(trim(v->text));
            } else {
                add(codes::field_type, Level::warning, Level::none, line_of(key),
                    fmt::format("'{}' must be a string; it was ignored", key));
            }
        }
    }
    if (const YNode* t = find("tags")) {
        if (auto list = read_list(*t, "tags", true)) m.tags = std::move(*list);
    }
    if (const YNode* a = find("aliases")) {
        if (auto list = read_list(*a, "aliases", true)) m.aliases = std::move(*list);
    }

    for (const auto& [key, node] : fields) {
        if (std::find(std::begin(behavioral_fields), std::end(behavioral_fields), key) != std::end(behavioral_fields)) {
            m.ignored_behavioral_fields.push_back(key);
        }
    }

    if (failed_) {
        if (!out_.skip_reason) out_.skip_reason = SkipReason::invalid;
        return;
    }
    out_.manifest = std::move(m);
}

}  // namespace

ParseResult parse_skill_md(std::string_view text, const ParseOptions& options, bool truncated) {
    ParseResult result;
    Parse(options, result).run(text, truncated);
    if (!result.manifest && !result.skip_reason) result.skip_reason = SkipReason::invalid;
    return result;
}

}  // namespace agentskills
