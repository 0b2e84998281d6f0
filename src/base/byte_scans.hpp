// agentskills-cpp — private: byte scans of the parser that go 16 bytes a step (SSE2) where the
// machine has it, with a portable fallback (both in text.cpp; the portable_text_scans test runs
// the fallback).
#pragma once

#include <cstddef>
#include <string_view>

namespace agentskills::detail {

/// What one pass over a whole file finds (scan_text).
struct TextScan {
    std::size_t newlines = 0;         ///< '\n' bytes (counted only when asked for)
    std::size_t first_non_ascii = 0;  ///< the first byte from 0x80 on; the size when there is none
    bool nul_or_cr = false;           ///< a NUL or a CR byte is somewhere
};

/// The checks of a SKILL.md's bytes in one pass: its newlines when `count_lines`, its first byte
/// that is not ASCII, and whether it has a NUL or a CR.
[[nodiscard]] TextScan scan_text(std::string_view s, bool count_lines) noexcept;

/// Number of code points of UTF-8 `s`: the bytes that are not continuation bytes (10xxxxxx).
/// What code_point_count (names.hpp) returns.
[[nodiscard]] std::size_t count_code_points(std::string_view s) noexcept;

/// The first position from `pos` on of a byte that the frontmatter pre-scan looks at: a line
/// feed or one of `[ { ] } , & * ! - ? :`; `s.size()` when there is none.
[[nodiscard]] std::size_t next_yaml_indicator(std::string_view s, std::size_t pos) noexcept;

/// The first position from `pos` on of a byte from 0x80 on; `s.size()` when there is none.
[[nodiscard]] std::size_t skip_ascii(std::string_view s, std::size_t pos) noexcept;

/// The deepest nesting of `[` and `{` outside strings in JSON text `s`, counted up to `limit`
/// and one past it (it stops there): how a JSON reader bounds a document's depth before it
/// builds it (the MCP server and client, Claude Code plugin manifests).
[[nodiscard]] std::size_t json_depth(std::string_view s, std::size_t limit) noexcept;

/// An upper bound of the bytes of `s` as a JSON string literal: two quotes, each byte, one more
/// for each `"` and `\\`, five more for each byte below 0x20 (as `\\u00XX`).
[[nodiscard]] std::size_t json_string_bound(std::string_view s) noexcept;

}  // namespace agentskills::detail
