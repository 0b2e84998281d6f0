#include "reference_profile.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <fmt/core.h>
#include <utf8proc.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <agentskills/base/names.hpp>
#include <agentskills/base/text.hpp>

namespace agentskills::cli::reference {
namespace {
namespace fs = std::filesystem;

// --- Unicode, the way Python's str methods see it -------------------------------------------

// The code points of valid UTF-8.
std::u32string code_points(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data() + i),
                                        static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
        if (n <= 0) {
            out.push_back(0xFFFD);
            ++i;
            continue;
        }
        out.push_back(static_cast<char32_t>(cp));
        i += static_cast<std::size_t>(n);
    }
    return out;
}

void append_utf8(std::string& out, char32_t cp) {
    utf8proc_uint8_t buf[4];
    const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

std::string to_utf8(std::u32string_view s) {
    std::string out;
    for (char32_t c : s) append_utf8(out, c);
    return out;
}

// str.isspace()
bool py_isspace(char32_t c) {
    switch (c) {
        case 0x09:
        case 0x0A:
        case 0x0B:
        case 0x0C:
        case 0x0D:
        case 0x1C:
        case 0x1D:
        case 0x1E:
        case 0x1F:
        case 0x20:
        case 0x85:
        case 0xA0:
        case 0x1680:
        case 0x2028:
        case 0x2029:
        case 0x202F:
        case 0x205F:
        case 0x3000:
            return true;
        default:
            return c >= 0x2000 && c <= 0x200A;
    }
}

// str.strip()
std::string py_strip(std::string_view s) {
    const std::u32string cps = code_points(s);
    std::size_t b = 0, e = cps.size();
    while (b < e && py_isspace(cps[b])) ++b;
    while (e > b && py_isspace(cps[e - 1])) --e;
    return to_utf8(std::u32string_view(cps).substr(b, e - b));
}

utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

// str.isalnum() of one character: a letter (L*) or a number (N*).
bool py_isalnum(char32_t c) {
    switch (category(c)) {
        case UTF8PROC_CATEGORY_LU:
        case UTF8PROC_CATEGORY_LL:
        case UTF8PROC_CATEGORY_LT:
        case UTF8PROC_CATEGORY_LM:
        case UTF8PROC_CATEGORY_LO:
        case UTF8PROC_CATEGORY_ND:
        case UTF8PROC_CATEGORY_NL:
        case UTF8PROC_CATEGORY_NO:
            return true;
        default:
            return false;
    }
}

// str.isprintable() of one character.
bool py_isprintable(char32_t c) {
    if (c == ' ') return true;
    switch (category(c)) {
        case UTF8PROC_CATEGORY_CC:
        case UTF8PROC_CATEGORY_CF:
        case UTF8PROC_CATEGORY_CS:
        case UTF8PROC_CATEGORY_CO:
        case UTF8PROC_CATEGORY_CN:
        case UTF8PROC_CATEGORY_ZL:
        case UTF8PROC_CATEGORY_ZP:
        case UTF8PROC_CATEGORY_ZS:
            return false;
        default:
            return true;
    }
}

// name != name.lower(): some character changes under lowercasing.
bool changes_under_lower(std::string_view s) {
    for (char32_t c : code_points(s)) {
        if (static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))) != c) return true;
    }
    return false;
}

// repr() of a str.
std::string py_repr(std::string_view s) {
    const std::u32string cps = code_points(s);
    const bool single = std::find(cps.begin(), cps.end(), U'\'') != cps.end();
    const bool dbl = std::find(cps.begin(), cps.end(), U'"') != cps.end();
    const char32_t quote = single && !dbl ? U'"' : U'\'';
    std::string out(1, static_cast<char>(quote));
    for (char32_t c : cps) {
        if (c == quote || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\t') {
            out += "\\t";
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c < 0x20 || c == 0x7F) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
        } else if (c < 0x7F || py_isprintable(c)) {
            append_utf8(out, c);
        } else if (c <= 0xFF) {
            out += fmt::format("\\x{:02x}", static_cast<unsigned>(c));
        } else if (c <= 0xFFFF) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
        } else {
            out += fmt::format("\\U{:08x}", static_cast<unsigned>(c));
        }
    }
    out += static_cast<char>(quote);
    return out;
}

// str() of a frontmatter value: a string as it is, a list or a dict as Python's repr.
std::string py_repr(const Value& v);
std::string py_str(const Value& v) { return v.kind == Value::Kind::string ? v.text : py_repr(v); }
std::string py_repr(const Value& v) {
    switch (v.kind) {
        case Value::Kind::string:
            return py_repr(std::string_view(v.text));
        case Value::Kind::list: {
            std::string out = "[";
            for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + py_repr(v.items[i]);
            return out + "]";
        }
        case Value::Kind::map: {
            std::string out = "{";
            for (std::size_t i = 0; i < v.entries.size(); ++i) {
                out += (i ? ", " : "") + py_repr(std::string_view(v.entries[i].first)) + ": " +
                       py_repr(v.entries[i].second);
            }
            return out + "}";
        }
    }
    return {};
}

// json.dumps(value, indent=2) at nesting `depth`.
void json_value(std::string& out, const Value& v, std::size_t depth) {
    const std::string pad((depth + 1) * 2, ' ');
    const std::string close(depth * 2, ' ');
    switch (v.kind) {
        case Value::Kind::string:
            append_json_string(out, v.text, JsonEscape::ascii);  // json.dumps of a str
            return;
        case Value::Kind::list:
            if (v.items.empty()) {
                out += "[]";
                return;
            }
            out += "[\n";
            for (std::size_t i = 0; i < v.items.size(); ++i) {
                out += pad;
                json_value(out, v.items[i], depth + 1);
                out += i + 1 < v.items.size() ? ",\n" : "\n";
            }
            out += close + "]";
            return;
        case Value::Kind::map:
            if (v.entries.empty()) {
                out += "{}";
                return;
            }
            out += "{\n";
            for (std::size_t i = 0; i < v.entries.size(); ++i) {
                out += pad;
                append_json_string(out, v.entries[i].first, JsonEscape::ascii);
                out += ": ";
                json_value(out, v.entries[i].second, depth + 1);
                out += i + 1 < v.entries.size() ? ",\n" : "\n";
            }
            out += close + "}";
            return;
    }
}

// --- Reading the file as Python's Path.read_text() does -------------------------------------

// Decodes like bytes.decode("utf-8"): empty when valid, else the UnicodeDecodeError text.
std::string utf8_decode_error(std::string_view b) {
    std::size_t i = 0;
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(b[k]); };
    while (i < b.size()) {
        const unsigned char c = at(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t need = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return fmt::format("'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte", c, i);
        }
        for (std::size_t k = 1; k <= need; ++k) {
            if (i + k >= b.size()) {
                return fmt::format("'utf-8' codec can't decode byte 0x{:02x} in position {}: unexpected end of data", c,
                                   i);
            }
            const unsigned char cc = at(i + k);
            const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
            if (cc < l || cc > h) {
                return fmt::format("'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid continuation byte",
                                   c, i);
            }
        }
        i += need + 1;
    }
    return {};
}

// Universal newlines: "\r\n" and "\r" read as "\n".
std::string universal_newlines(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out += '\n';
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

// --- strictyaml's load, over yaml-cpp --------------------------------------------------------

// A position in the frontmatter text, as ruamel counts it (code points, 0-based).
struct Mark {
    std::size_t pointer = 0;
    std::size_t line = 0;
    std::size_t column = 0;
};

class Source {
public:
    explicit Source(std::string_view text) : text_(text), cps_(code_points(text)) {
        // Byte offset of each code point, to turn yaml-cpp's byte positions into ruamel's.
        std::size_t byte = 0;
        for (char32_t c : cps_) {
            offsets_.push_back(byte);
            byte += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        }
        offsets_.push_back(byte);
        line_starts_.push_back(0);
        for (std::size_t i = 0; i < cps_.size(); ++i) {
            if (is_break(cps_[i])) line_starts_.push_back(i + 1);
        }
    }

    [[nodiscard]] Mark at_byte(std::size_t byte) const {
        const auto it = std::lower_bound(offsets_.begin(), offsets_.end(), byte);
        return at_pointer(static_cast<std::size_t>(it - offsets_.begin()));
    }

    [[nodiscard]] Mark at_pointer(std::size_t pointer) const {
        pointer = std::min(pointer, cps_.size());
        // The last line that starts at or before `pointer`.
        const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pointer);
        Mark m;
        m.pointer = pointer;
        m.line = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
        m.column = pointer - line_starts_[m.line];
        return m;
    }

    // StringMark.__str__ with its snippet (indent 4, at most 75 characters around the pointer).
    [[nodiscard]] std::string describe(const Mark& m) const {
        std::string out = fmt::format("  in \"<unicode string>\", line {}, column {}:\n", m.line + 1, m.column + 1);
        std::string head, tail;
        std::size_t start = m.pointer;
        while (start > 0 && !is_stop(cps_[start - 1])) {
            --start;
            if (static_cast<double>(m.pointer - start) > 75 / 2.0 - 1) {
                head = " ... ";
                start += 5;
                break;
            }
        }
        std::size_t end = m.pointer;
        while (end < cps_.size() && !is_stop(cps_[end])) {
            ++end;
            if (static_cast<double>(end - m.pointer) > 75 / 2.0 - 1) {
                tail = " ... ";
                end -= 5;
                break;
            }
        }
        out += "    " + head + to_utf8(std::u32string_view(cps_).substr(start, end > start ? end - start : 0)) + tail +
               "\n";
        out += std::string(4 + m.pointer - start + head.size(), ' ') + fmt::format("^ (line: {})", m.line + 1);
        return out;
    }

    [[nodiscard]] const std::u32string& cps() const noexcept { return cps_; }
    [[nodiscard]] std::string_view text() const noexcept { return text_; }

private:
    static bool is_break(char32_t c) { return c == '\n' || c == 0x85 || c == 0x2028 || c == 0x2029; }
    static bool is_stop(char32_t c) { return c == 0 || c == '\r' || is_break(c); }

    std::string_view text_;
    std::u32string cps_;
    std::vector<std::size_t> offsets_;
    std::vector<std::size_t> line_starts_;  // pointer of the first character of each line
};

// MarkedYAMLError.__str__: context, its mark (unless it is the problem's), problem, its mark.
std::string marked_error(const Source& src, const std::string& context, const std::optional<Mark>& context_mark,
                         const std::string& problem, const std::optional<Mark>& problem_mark) {
    std::vector<std::string> lines;
    if (!context.empty()) lines.push_back(context);
    if (context_mark &&
        (!problem_mark || context_mark->line != problem_mark->line || context_mark->column != problem_mark->column)) {
        lines.push_back(src.describe(*context_mark));
    }
    if (!problem.empty()) lines.push_back(problem);
    if (problem_mark) lines.push_back(src.describe(*problem_mark));
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    return out;
}

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

class Builder final : public YAML::EventHandler {
public:
    explicit Builder(const Source& src) : src_(src) {}
    std::optional<Node> root;

    // The innermost collection still open (every collection is a block one: flow ones are
    // refused when they open), if any.
    [[nodiscard]] std::optional<OpenCollection> innermost_open() const {
        if (stack_.empty()) return std::nullopt;
        return OpenCollection{stack_.back().start, stack_.back().block_map};
    }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        check_anchor(mark, anchor);
        Node n;
        n.start = pointer(mark);
        n.value.text = null_spelling(n.start);
        n.end = n.start + code_points(n.value.text).size();
        attach(std::move(n));
    }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override {
        const auto& c = src_.cps();
        std::size_t p = pointer(mark), e = p + 1;
        while (e < c.size() && c[e] != ' ' && c[e] != '\t' && c[e] != '\n' && c[e] != ',' && c[e] != ']' && c[e] != '}')
            ++e;
        const std::string name =
            p + 1 <= e && p < c.size() ? to_utf8(std::u32string_view(c).substr(p + 1, e - p - 1)) : "";
        throw YamlError(marked_error(src_, "", std::nullopt,
                                     fmt::format("found undefined alias {}", py_repr(std::string_view(name))),
                                     src_.at_pointer(p)));
    }
    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        check_tag(mark, tag);
        check_anchor(mark, anchor);
        Node n;
        n.start = pointer(mark);
        check_tabs_before(n.start);
        n.value.text = is_valid_utf8(value) ? value : valid_utf8(value, InvalidByte::latin1);
        n.end = scalar_end(n.start);
        check_closed_quote(n.start);
        check_key_colon(n);
        attach(std::move(n));
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value style) override {
        open(mark, tag, anchor, style, Value::Kind::list);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value style) override {
        open(mark, tag, anchor, style, Value::Kind::map);
    }
    void OnMapEnd() override { close(); }

private:
    [[nodiscard]] static std::size_t byte(const YAML::Mark& mark) {
        return mark.pos < 0 ? 0 : static_cast<std::size_t>(mark.pos);
    }
    [[nodiscard]] std::size_t pointer(const YAML::Mark& mark) const { return src_.at_byte(byte(mark)).pointer; }

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
    [[nodiscard]] std::pair<std::size_t, std::size_t> token_near(const YAML::Mark& mark, char32_t sigil) const {
        const auto& c = src_.cps();
        std::size_t p = std::min(pointer(mark), c.size());
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

    void check_tag(const YAML::Mark& mark, const std::string& tag) const {
        if (tag.empty() || tag == "?" || tag == "!") return;
        const auto [start, end] = token_near(mark, U'!');
        throw YamlError(marked_error(src_, "While scanning", src_.at_pointer(end),
                                     "Found disallowed tag tokens (do not specify types in markup)",
                                     src_.at_pointer(start)));
    }
    void check_anchor(const YAML::Mark& mark, YAML::anchor_t anchor) const {
        if (anchor == 0) return;
        const auto [start, end] = token_near(mark, U'&');
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

    // A quoted scalar that the end of the frontmatter cuts.
    void check_closed_quote(std::size_t p) const {
        const auto& c = src_.cps();
        if (p >= c.size() || (c[p] != '"' && c[p] != '\'')) return;
        if (scalar_end(p) < c.size() || (c.size() > p + 1 && c.back() == c[p])) return;
        throw YamlError(marked_error(src_, "while scanning a quoted scalar", src_.at_pointer(p),
                                     "found unexpected end of stream", src_.at_pointer(c.size())));
    }

    // A key of a block mapping that has no ':' after it on its line (yaml-cpp reads it as a key
    // with a null value; ruamel refuses it).
    void check_key_colon(const Node& n) const {
        if (stack_.empty() || !stack_.back().block_map || stack_.back().children.size() % 2 != 0) return;
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

    void open(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor, YAML::EmitterStyle::value style,
              Value::Kind kind) {
        if (style == YAML::EmitterStyle::Flow) {
            const std::size_t p = pointer(mark);
            throw YamlError(marked_error(src_, "While scanning", src_.at_pointer(p),
                                         "Found ugly disallowed JSONesque flow mapping (surround with ' and ' to make "
                                         "text appear literally)",
                                         src_.at_pointer(p + 1)));
        }
        check_tag(mark, tag);
        check_anchor(mark, anchor);
        Node n;
        check_tabs_before(pointer(mark));
        n.value.kind = kind;
        n.start = pointer(mark);
        n.block_map = kind == Value::Kind::map;
        stack_.push_back(std::move(n));
    }

    void close() {
        Node n = std::move(stack_.back());
        stack_.pop_back();
        n.end = n.children.empty() ? n.start : n.children.back().end;
        attach(std::move(n));
    }

    void attach(Node n) {
        if (++nodes_ > max_yaml_nodes) {
            throw YamlError(fmt::format("the frontmatter has more than {} nodes (agentskills' bound)", max_yaml_nodes));
        }
        if (stack_.empty()) {
            if (!root) root = std::move(n);
            return;
        }
        stack_.back().children.push_back(std::move(n));
    }

    const Source& src_;
    std::vector<Node> stack_;
    std::size_t nodes_ = 0;
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

// The name ruamel's parser gives the token that starts at `p`, where that token is sure to be
// the next one it sees: nullopt for what its scanner refuses or reads otherwise (`- `, `? `, `: `,
// `%`, `@`, a backquote), and when a ':' later on the line could make the scanner fail first.
std::optional<std::string> next_token_name(const std::u32string& c, std::size_t p) {
    if (p >= c.size()) return std::nullopt;
    for (std::size_t i = p; i < c.size() && c[i] != '\n'; ++i) {
        if (c[i] == ':') return std::nullopt;
    }
    const char32_t ch = c[p];
    const bool blank_after = p + 1 >= c.size() || c[p + 1] == ' ' || c[p + 1] == '\t' || c[p + 1] == '\n';
    switch (ch) {
        case '[':
        case ']':
        case '{':
        case '}':
        case ',':
            return std::string(1, static_cast<char>(ch));
        case '&':
            return "<anchor>";
        case '*':
            return "<alias>";
        case '!':
            return "<tag>";
        case '-':
        case '?':
            if (blank_after) return std::nullopt;
            return "<scalar>";
        case '%':
        case '@':
        case '`':
        case '#':
        case ' ':
        case '\t':
        case '\n':
            return std::nullopt;
        default:
            return "<scalar>";  // a plain, quoted or block scalar
    }
}

// The text of a yaml-cpp error in ruamel's words where they are known. `open` is the innermost
// collection being read when the error came, if one was.
std::string yaml_cpp_error(const Source& src, const YAML::Exception& e, const std::optional<OpenCollection>& open) {
    const Mark m = src.at_byte(e.mark.pos < 0 ? 0 : static_cast<std::size_t>(e.mark.pos));
    std::string problem = e.msg;
    // A collection entry followed by more on its line (`key: "quoted" more`, `- 'a' [b]`): where
    // yaml-cpp finds no end of the collection, ruamel's parser names the token it found instead.
    const bool unended = problem == YAML::ErrorMsg::END_OF_MAP || problem == YAML::ErrorMsg::END_OF_SEQ ||
                         problem == YAML::ErrorMsg::FLOW_END;
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
        const auto& c = src.cps();
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

bool exists(const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
}

}  // namespace

const Value* Value::find(const std::string& key) const {
    for (const auto& [k, v] : entries) {
        if (k == key) return &v;
    }
    return nullptr;
}

std::string python_path(const std::string& path) {
    if (path.empty()) return ".";
    std::string out;
    std::size_t i = 0;
    if (path[0] == '/') {
        // POSIX keeps exactly two leading slashes; one or three and more become one.
        const std::size_t n = path.find_first_not_of('/');
        out = (n == 2) ? "//" : "/";
        i = n == std::string::npos ? path.size() : n;
    }
    std::vector<std::string> parts;
    while (i < path.size()) {
        std::size_t j = path.find('/', i);
        if (j == std::string::npos) j = path.size();
        const std::string part = path.substr(i, j - i);
        if (!part.empty() && part != ".") parts.push_back(part);
        i = j + 1;
    }
    for (std::size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
    return out.empty() ? "." : out;
}

std::string python_path_name(const std::string& path) {
    const std::string p = python_path(path);
    if (p == "." || p == "/" || p == "//") return "";
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string python_path_parent(const std::string& path) {
    const std::string p = python_path(path);
    if (p == "." || p == "/" || p == "//") return p;
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    if (slash == 1 && p[0] == '/') return "//";
    return p.substr(0, slash);
}

bool is_skill_md_file(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    std::string name = python_path_name(path);
    std::string lowered;
    for (char32_t c : code_points(name))
        append_utf8(lowered, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    return lowered == "skill.md";
}

std::optional<std::string> find_skill_md(const std::string& dir) {
    for (const char* name : {"SKILL.md", "skill.md"}) {
        const std::string p = python_path(dir) + (python_path(dir) == "/" ? "" : "/") + name;
        if (exists(p)) return python_path(p);
    }
    return std::nullopt;
}

Frontmatter read_frontmatter(const std::string& skill_md) {
    Frontmatter out;
    std::error_code ec;
    const auto status = fs::status(skill_md, ec);
    if (fs::is_directory(status)) {
        out.crash =
            fmt::format("IsADirectoryError: [Errno 21] Is a directory: {}", py_repr(std::string_view(skill_md)));
        return out;
    }
    if (!fs::is_regular_file(status)) {
        // The reference would wait on a FIFO or read a device without end; this profile does not.
        out.error = fmt::format("{} is not a regular file (agentskills does not read FIFOs or devices)", skill_md);
        return out;
    }
    std::ifstream in(skill_md, std::ios::binary);
    if (!in) {
        out.crash =
            fmt::format("PermissionError: [Errno 13] Permission denied: {}", py_repr(std::string_view(skill_md)));
        return out;
    }
    std::string bytes;
    bytes.resize(max_file_bytes + 1);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > max_file_bytes) {
        out.error = fmt::format("SKILL.md is larger than {} bytes (agentskills' bound; the reference has none)",
                                max_file_bytes);
        return out;
    }
    if (std::string e = utf8_decode_error(bytes); !e.empty()) {
        out.crash = "UnicodeDecodeError: " + e;
        return out;
    }
    const std::string content = universal_newlines(bytes);
    if (content.rfind("---", 0) != 0) {
        out.error = "SKILL.md must start with YAML frontmatter (---)";
        return out;
    }
    const std::size_t second = content.find("---", 3);
    if (second == std::string::npos) {
        out.error = "SKILL.md frontmatter not properly closed with ---";
        return out;
    }
    const std::string text = content.substr(3, second - 3);
    const Source src(text);
    if (first_non_printable(src.cps())) {
        // strictyaml reads a ReaderError's context_mark, which it does not have.
        out.crash = "AttributeError: 'ReaderError' object has no attribute 'context_mark'";
        return out;
    }
    std::optional<Node> root;
    Builder builder(src);
    try {
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        parser.HandleNextDocument(builder);
        root = std::move(builder.root);
        if (root) {
            Value v = construct(src, *root);
            if (v.kind == Value::Kind::map) out.map = std::move(v);
        }
    } catch (const YamlError& e) {
        out.error = std::string("Invalid YAML in frontmatter: ") + e.what();
        return out;
    } catch (const YAML::Exception& e) {
        out.error = "Invalid YAML in frontmatter: " + yaml_cpp_error(src, e, builder.innermost_open());
        return out;
    }
    if (!out.map) out.error = "SKILL.md frontmatter must be a YAML mapping";
    return out;
}

Properties read_properties(const std::string& skill_dir) {
    Properties p;
    const auto file = find_skill_md(skill_dir);
    if (!file) {
        p.error = fmt::format("SKILL.md not found in {}", python_path(skill_dir));
        return p;
    }
    Frontmatter fm = read_frontmatter(*file);
    if (!fm.crash.empty() || !fm.error.empty()) {
        p.crash = fm.crash;
        p.error = fm.error;
        return p;
    }
    Value& meta = *fm.map;
    const Value* name = meta.find("name");
    const Value* description = meta.find("description");
    if (!name) {
        p.error = "Missing required field in frontmatter: name";
        return p;
    }
    if (!description) {
        p.error = "Missing required field in frontmatter: description";
        return p;
    }
    if (name->kind != Value::Kind::string || py_strip(name->text).empty()) {
        p.error = "Field 'name' must be a non-empty string";
        return p;
    }
    if (description->kind != Value::Kind::string || py_strip(description->text).empty()) {
        p.error = "Field 'description' must be a non-empty string";
        return p;
    }
    p.name = py_strip(name->text);
    p.description = py_strip(description->text);
    Value dict;
    dict.kind = Value::Kind::map;
    dict.entries.push_back(Value::Entry{"name", Value{Value::Kind::string, p.name, {}, {}}});
    dict.entries.push_back(Value::Entry{"description", Value{Value::Kind::string, p.description, {}, {}}});
    for (const char* key : {"license", "compatibility", "allowed-tools"}) {
        if (const Value* v = meta.find(key)) dict.entries.push_back(Value::Entry{key, *v});
    }
    if (const Value* m = meta.find("metadata")) {
        // A mapping becomes {str(k): str(v)}; anything else is kept; empty values are left out.
        Value v = *m;
        if (v.kind == Value::Kind::map) {
            for (auto& [k, item] : v.entries) item = Value{Value::Kind::string, py_str(item), {}, {}};
        }
        const bool truthy = v.kind == Value::Kind::string ? !v.text.empty()
                            : v.kind == Value::Kind::list ? !v.items.empty()
                                                          : !v.entries.empty();
        if (truthy) dict.entries.push_back(Value::Entry{"metadata", std::move(v)});
    }
    json_value(p.json, dict, 0);
    return p;
}

Validation validate(const std::string& skill_dir) {
    Validation out;
    std::error_code ec;
    if (!fs::exists(skill_dir, ec)) {
        out.errors.push_back(fmt::format("Path does not exist: {}", python_path(skill_dir)));
        return out;
    }
    if (!fs::is_directory(skill_dir, ec)) {
        out.errors.push_back(fmt::format("Not a directory: {}", python_path(skill_dir)));
        return out;
    }
    const auto file = find_skill_md(skill_dir);
    if (!file) {
        out.errors.emplace_back("Missing required file: SKILL.md");
        return out;
    }
    Frontmatter fm = read_frontmatter(*file);
    if (!fm.crash.empty()) {
        out.crash = fm.crash;
        return out;
    }
    if (!fm.error.empty()) {
        out.errors.push_back(fm.error);
        return out;
    }
    const Value& meta = *fm.map;
    auto& errors = out.errors;

    static const std::vector<std::string> allowed{"allowed-tools", "compatibility", "description",
                                                  "license",       "metadata",      "name"};
    std::vector<std::string> extra;
    for (const auto& [k, v] : meta.entries) {
        if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) extra.push_back(k);
    }
    if (!extra.empty()) {
        std::sort(extra.begin(), extra.end());
        extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
        std::string list;
        for (std::size_t i = 0; i < extra.size(); ++i) list += (i ? ", " : "") + extra[i];
        errors.push_back(
            fmt::format("Unexpected fields in frontmatter: {}. Only ['allowed-tools', 'compatibility', "
                        "'description', 'license', 'metadata', 'name'] are allowed.",
                        list));
    }

    if (const Value* name = meta.find("name"); !name) {
        errors.emplace_back("Missing required field in frontmatter: name");
    } else if (name->kind != Value::Kind::string || py_strip(name->text).empty()) {
        errors.emplace_back("Field 'name' must be a non-empty string");
    } else {
        const std::string n = nfkc(py_strip(name->text));
        const std::u32string cps = code_points(n);
        if (cps.size() > 64) {
            errors.push_back(fmt::format("Skill name '{}' exceeds 64 character limit ({} chars)", n, cps.size()));
        }
        if (changes_under_lower(n)) errors.push_back(fmt::format("Skill name '{}' must be lowercase", n));
        if (!cps.empty() && (cps.front() == '-' || cps.back() == '-')) {
            errors.emplace_back("Skill name cannot start or end with a hyphen");
        }
        if (n.find("--") != std::string::npos) errors.emplace_back("Skill name cannot contain consecutive hyphens");
        if (!std::all_of(cps.begin(), cps.end(), [](char32_t c) { return c == '-' || py_isalnum(c); })) {
            errors.push_back(fmt::format(
                "Skill name '{}' contains invalid characters. Only letters, digits, and hyphens are allowed.", n));
        }
        const std::string dir_name = python_path_name(skill_dir);
        if (nfkc(dir_name) != n) {
            errors.push_back(fmt::format("Directory name '{}' must match skill name '{}'", dir_name, n));
        }
    }

    if (const Value* d = meta.find("description"); !d) {
        errors.emplace_back("Missing required field in frontmatter: description");
    } else if (d->kind != Value::Kind::string || py_strip(d->text).empty()) {
        errors.emplace_back("Field 'description' must be a non-empty string");
    } else if (const std::size_t len = code_points(d->text).size(); len > 1024) {
        errors.push_back(fmt::format("Description exceeds 1024 character limit ({} chars)", len));
    }

    if (const Value* c = meta.find("compatibility")) {
        if (c->kind != Value::Kind::string) {
            errors.emplace_back("Field 'compatibility' must be a string");
        } else if (const std::size_t len = code_points(c->text).size(); len > 500) {
            errors.push_back(fmt::format("Compatibility exceeds 500 character limit ({} chars)", len));
        }
    }
    return out;
}

std::string html_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#x27;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string missing_path_usage(const std::string& command, const std::string& argument, const std::string& path) {
    return fmt::format(
        "Usage: agentskills {0} [OPTIONS] {1}\nTry 'agentskills {0} --help' for help.\n\nError: "
        "Invalid value for '{1}': Path {2} does not exist.\n",
        command, argument, py_repr(std::string_view(path)));
}

}  // namespace agentskills::cli::reference

namespace agentskills::cli::reference {
namespace {

// An exception the reference does not catch: Python prints a traceback and exits 1.
int crashed(const std::string& what) {
    fmt::print(stderr,
               "Traceback (most recent call last):\n  (skills-ref raises this; agentskills only reports it)\n{}\n",
               what);
    return 1;
}

bool all_exist(const std::string& command, const std::string& argument, const std::vector<std::string>& paths) {
    for (const auto& p : paths) {
        std::error_code ec;
        if (!fs::exists(p, ec)) {
            fmt::print(stderr, "{}", missing_path_usage(command, argument, p));
            return false;
        }
    }
    return true;
}

}  // namespace

int read_properties_command(const std::string& path) {
    if (!all_exist("read-properties", "SKILL_PATH", {path})) return 2;
    const std::string dir = is_skill_md_file(path) ? python_path_parent(path) : path;
    const Properties props = read_properties(dir);
    if (!props.crash.empty()) return crashed(props.crash);
    if (!props.ok()) {
        fmt::print(stderr, "Error: {}\n", props.error);
        return 1;
    }
    fmt::print("{}\n", props.json);
    return 0;
}

int to_prompt_command(const std::vector<std::string>& paths) {
    if (!all_exist("to-prompt", "SKILL_PATHS...", paths)) return 2;
    std::string out = "<available_skills>";
    for (const auto& path : paths) {
        const std::string dir = is_skill_md_file(path) ? python_path_parent(path) : path;
        std::error_code ec;
        fs::path resolved = fs::canonical(dir, ec);
        if (ec) resolved = fs::absolute(dir, ec).lexically_normal();
        const Properties props = read_properties(resolved.string());
        if (!props.crash.empty()) return crashed(props.crash);
        if (!props.ok()) {
            fmt::print(stderr, "Error: {}\n", props.error);
            return 1;
        }
        const auto file = find_skill_md(resolved.string());
        out += "\n<skill>\n<name>\n" + html_escape(props.name) + "\n</name>\n<description>\n" +
               html_escape(props.description) + "\n</description>\n<location>\n" + file.value_or("None") +
               "\n</location>\n</skill>";
    }
    out += "\n</available_skills>\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

int validate_command(const std::vector<std::string>& paths) {
    if (!all_exist("validate", "SKILL_PATH", paths)) return 2;
    int status = 0;
    for (const auto& path : paths) {
        const std::string dir = is_skill_md_file(path) ? python_path_parent(path) : python_path(path);
        const Validation v = validate(dir);
        if (!v.crash.empty()) {
            status = crashed(v.crash);
            continue;
        }
        if (v.errors.empty()) {
            fmt::print("Valid skill: {}\n", dir);
            continue;
        }
        std::fflush(stdout);
        std::string text = fmt::format("Validation failed for {}:\n", dir);
        for (const auto& e : v.errors) text += "  - " + e + "\n";
        std::fwrite(text.data(), 1, text.size(), stderr);
        status = 1;
    }
    return status;
}

}  // namespace agentskills::cli::reference
