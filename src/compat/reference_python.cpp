// The reference profile: text as Python's str methods see it (code points, strip, isalnum,
// lower, repr) and json.dumps, for the reference's messages and output.
#include <algorithm>

#include <fmt/core.h>
#include <utf8proc.h>

#include <agentskills/base/text.hpp>

#include "reference_detail.hpp"

namespace agentskills::reference::detail {
namespace {

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

utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

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

}  // namespace

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

// str.strip()
std::string py_strip(std::string_view s) {
    const std::u32string cps = code_points(s);
    std::size_t b = 0, e = cps.size();
    while (b < e && py_isspace(cps[b])) ++b;
    while (e > b && py_isspace(cps[e - 1])) --e;
    return to_utf8(std::u32string_view(cps).substr(b, e - b));
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

}  // namespace agentskills::reference::detail
