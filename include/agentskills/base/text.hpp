// agentskills-cpp — making outside text safe for where it goes: JSON, the model, a terminal.
#pragma once

#include <string>
#include <string_view>

namespace agentskills {

/// True for a C0 control (U+0000..U+001F), DEL (U+007F) or a C1 control (U+0080..U+009F).
[[nodiscard]] constexpr bool is_control_code_point(char32_t cp) noexcept {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F);
}

/// Text as the model may see it: valid UTF-8 (each bad byte becomes U+FFFD), CR LF and a lone CR
/// become LF, and every other control character except TAB and LF becomes U+FFFD. Text that is
/// already clean is returned unchanged (one scan, no copy is made until something changes).
[[nodiscard]] std::string model_text(std::string_view text);

/// True when `model_text(text)` would return `text` unchanged.
[[nodiscard]] bool is_model_text(std::string_view text) noexcept;

/// Text for one field of line-oriented, human-facing output (a terminal, `PATH:LINE:` records):
/// valid UTF-8, with backslash, TAB, LF, CR and every other control character written as an
/// escape (`\\`, `\t`, `\n`, `\r`, `\x1b`, `\u0085`), so a value can neither forge a record nor
/// send a terminal sequence.
[[nodiscard]] std::string terminal_text(std::string_view text);

/// How append_json_string writes what is not ASCII.
enum class JsonEscape {
    utf8,  ///< bytes from 0x80 on are copied as they are (give valid UTF-8)
    ascii  ///< DEL and every code point from U+0080 as `\uxxxx` (a surrogate pair above U+FFFF),
           ///< an ill-formed byte as `\ufffd`: the bytes of Python's `json.dumps` (ensure_ascii)
};

/// Appends `text` to `out` as a JSON string literal, quotes included: `"` and `\` escaped,
/// `\b`, `\f`, `\n`, `\r`, `\t` for those controls and `\u00xx` (lower-case hex) for the other
/// C0 controls. The same bytes as nlohmann::json's `dump()` of a valid UTF-8 string (with
/// `ensure_ascii` for JsonEscape::ascii). Clean runs are copied in one piece.
void append_json_string(std::string& out, std::string_view text, JsonEscape escape = JsonEscape::utf8);

/// `text` as a JSON string literal (append_json_string).
[[nodiscard]] std::string json_string(std::string_view text, JsonEscape escape = JsonEscape::utf8);

}  // namespace agentskills
