// agentskills CLI — numeric options: a count is plain decimal digits that fit in a size_t.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

namespace agentskills::cli {

/// Checks the text of a count option before CLI11 converts it: only the digits 0-9 (no sign,
/// no space, no `0x`), and a value that fits in a size_t. Anything else (`-1`, `+5`,
/// `99999999999999999999999`) is a usage error naming the option's value (print_error escapes it).
inline CLI::Validator count_value() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            std::size_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
                return "not a count (digits 0-9 only): '" + text + "'";
            }
            if (ec == std::errc::result_out_of_range) return "too large for a count: " + text;
            if (ec != std::errc() || ptr != end) return "not a count (digits 0-9 only): '" + text + "'";
            return {};
        },
        "COUNT");
}

}  // namespace agentskills::cli
