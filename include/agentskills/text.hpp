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

}  // namespace agentskills
