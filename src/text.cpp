// Text made safe for the model, JSON and terminals (see text.hpp).
#include "agentskills/text.hpp"

#include <cstdint>

#include <fmt/core.h>
#include <utf8proc.h>

#include "agentskills/names.hpp"

namespace agentskills {
namespace {

constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

// Calls f(code_point, bytes) for each code point of `text`; an ill-formed byte is passed as
// code point -1 with its one byte.
template <typename F>
void for_each_code_point(std::string_view text, F&& f) {
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto c = static_cast<unsigned char>(text[pos]);
        if (c < 0x80) {
            f(static_cast<std::int32_t>(c), text.substr(pos, 1));
            ++pos;
            continue;
        }
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                                        static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
        if (n <= 0) {
            f(-1, text.substr(pos, 1));
            ++pos;
        } else {
            const auto len = static_cast<std::size_t>(n);
            f(static_cast<std::int32_t>(cp), text.substr(pos, len));
            pos += len;
        }
    }
}

bool needs_model_change(std::int32_t cp) noexcept {
    if (cp < 0) return true;
    if (cp == '\t' || cp == '\n') return false;
    return is_control_code_point(static_cast<char32_t>(cp));
}

}  // namespace

bool is_model_text(std::string_view text) noexcept {
    // Plain printable ASCII, TAB and LF are the common case: one comparison a byte; only bytes
    // from 0x80 on are decoded.
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t pos = 0;
    while (pos < n) {
        const unsigned char c = p[pos];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return false;
            ++pos;
            continue;
        }
        utf8proc_int32_t cp = 0;
        const auto len = utf8proc_iterate(p + pos, static_cast<utf8proc_ssize_t>(n - pos), &cp);
        if (len <= 0 || is_control_code_point(static_cast<char32_t>(cp))) return false;
        pos += static_cast<std::size_t>(len);
    }
    return true;
}

std::string model_text(std::string_view text) {
    if (is_model_text(text)) return std::string(text);
    std::string out;
    out.reserve(text.size());
    bool after_cr = false;
    for_each_code_point(text, [&](std::int32_t cp, std::string_view bytes) {
        const bool was_cr = after_cr;
        after_cr = false;
        if (cp == '\r') {
            out += '\n';
            after_cr = true;
        } else if (cp == '\n') {
            if (!was_cr) out += '\n';  // CR LF: the CR already gave the LF
        } else if (needs_model_change(cp)) {
            out += replacement_character;
        } else {
            out += bytes;
        }
    });
    return out;
}

std::string terminal_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for_each_code_point(text, [&](std::int32_t cp, std::string_view bytes) {
        if (cp < 0) {
            out += replacement_character;
        } else if (cp == '\\') {
            out += "\\\\";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp < 0x80 && is_control_code_point(static_cast<char32_t>(cp))) {
            out += fmt::format("\\x{:02x}", cp);
        } else if (is_control_code_point(static_cast<char32_t>(cp))) {
            out += fmt::format("\\u{:04x}", cp);
        } else {
            out += bytes;
        }
    });
    return out;
}

void append_json_string(std::string& out, std::string_view text, JsonEscape escape) {
    static constexpr char hex[] = "0123456789abcdef";
    auto u_escape = [&out](std::uint32_t v) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out.push_back(hex[(v >> shift) & 0xF]);
    };
    const bool ascii = escape == JsonEscape::ascii;
    out.reserve(out.size() + text.size() + 2);
    out.push_back('"');
    std::size_t run = 0;  // the first byte not copied yet
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto c = static_cast<unsigned char>(text[pos]);
        if (c >= 0x20 && c != '"' && c != '\\' && (c < 0x7F || !ascii)) {
            ++pos;
            continue;
        }
        out.append(text.data() + run, pos - run);
        if (c < 0x80) {
            switch (c) {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\b':
                    out += "\\b";
                    break;
                case '\f':
                    out += "\\f";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                default:
                    u_escape(c);
            }
            ++pos;
        } else {
            utf8proc_int32_t cp = 0;
            const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                                            static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
            if (n <= 0) {
                u_escape(0xFFFD);
                ++pos;
            } else {
                const auto v = static_cast<std::uint32_t>(cp);
                if (v > 0xFFFF) {
                    u_escape(0xD800 + ((v - 0x10000) >> 10));
                    u_escape(0xDC00 + ((v - 0x10000) & 0x3FF));
                } else {
                    u_escape(v);
                }
                pos += static_cast<std::size_t>(n);
            }
        }
        run = pos;
    }
    out.append(text.data() + run, text.size() - run);
    out.push_back('"');
}

std::string json_string(std::string_view text, JsonEscape escape) {
    std::string out;
    append_json_string(out, text, escape);
    return out;
}

}  // namespace agentskills
