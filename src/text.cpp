// Text made safe for the model, JSON and terminals (see text.hpp).
#include "agentskills/text.hpp"

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

}  // namespace agentskills
