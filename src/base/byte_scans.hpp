// agentskills-cpp — private: byte scans of the parser that go 16 bytes a step (SSE2) where the
// machine has it, with a portable fallback (both in text.cpp; the portable_text_scans test runs
// the fallback).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace agentskills::detail {

/// Length of the well-formed UTF-8 sequence at s[i] (a byte from 0x80 on), or 0 when it is
/// not well-formed: exactly what utf8proc_iterate accepts (no overlong forms, no surrogates,
/// nothing past U+10FFFF). The one UTF-8 rule of is_valid_utf8, valid_utf8 and scan_text.
[[nodiscard]] inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const auto continuation = [](unsigned char c) { return (c & 0xC0) == 0x80; };
    const std::size_t left = s.size() - i;
    const unsigned char lead = at(0);
    if (lead < 0xC2 || lead > 0xF4) return 0;
    if (lead < 0xE0) return left >= 2 && continuation(at(1)) ? 2 : 0;
    if (lead < 0xF0) {
        if (left < 3 || !continuation(at(1)) || !continuation(at(2))) return 0;
        if (lead == 0xE0 && at(1) < 0xA0) return 0;  // overlong
        if (lead == 0xED && at(1) > 0x9F) return 0;  // surrogate
        return 3;
    }
    if (left < 4 || !continuation(at(1)) || !continuation(at(2)) || !continuation(at(3))) return 0;
    if (lead == 0xF0 && at(1) < 0x90) return 0;  // overlong
    if (lead == 0xF4 && at(1) > 0x8F) return 0;  // past U+10FFFF
    return 4;
}

/// What one pass over a whole file finds (scan_text).
struct TextScan {
    std::size_t newlines = 0;         ///< '\n' bytes (counted only when asked for)
    std::size_t first_non_ascii = 0;  ///< the first byte from 0x80 on; the size when there is none
    bool nul_or_cr = false;           ///< a NUL or a CR byte is somewhere
    bool valid_utf8 = true;           ///< what is_valid_utf8 says of the whole text
};

/// The checks of a SKILL.md's bytes in one pass: its newlines when `count_lines`, its first byte
/// that is not ASCII, whether it is valid UTF-8 (each block of bytes with a high bit set has its
/// sequences checked where the pass finds them), and whether it has a NUL or a CR.
[[nodiscard]] TextScan scan_text(std::string_view s, bool count_lines) noexcept;

/// Number of code points of UTF-8 `s`: the bytes that are not continuation bytes (10xxxxxx).
/// What code_point_count (names.hpp) returns.
[[nodiscard]] std::size_t count_code_points(std::string_view s) noexcept;

/// The bytes that the frontmatter pre-scan looks at (a line feed or one of `[ { ] } , & * ! - ? :`)
/// among the 64 from `pos` on (fewer at the end of `s`): bit k is set when s[pos + k] is one. The
/// pre-scan takes them 64 at a time, so a text dense with them is compared once, not once a hit.
[[nodiscard]] std::uint64_t yaml_indicator_mask(std::string_view s, std::size_t pos) noexcept;

/// The first position from `pos` on of byte `a` or byte `b`; `s.size()` when there is none. A
/// scalar of the frontmatter reader is scanned this way (`:` and `#` of a plain one, `"` and `\\`
/// of a double-quoted one): 16 bytes a step where SSE2 is there, else 8.
[[nodiscard]] std::size_t find_either_byte(std::string_view s, std::size_t pos, char a, char b) noexcept;

/// The first position from `pos` on of a byte from 0x80 on; `s.size()` when there is none.
[[nodiscard]] std::size_t skip_ascii(std::string_view s, std::size_t pos) noexcept;

/// An upper bound of the bytes of `s` as a JSON string literal: two quotes, each byte, one more
/// for each `"` and `\\`, five more for each byte below 0x20 (as `\\u00XX`).
[[nodiscard]] std::size_t json_string_bound(std::string_view s) noexcept;

}  // namespace agentskills::detail
