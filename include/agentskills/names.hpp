// agentskills-cpp — Unicode helpers and the skill-name rules.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentskills {

/// True when `s` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view s) noexcept;

/// What `valid_utf8` makes of a byte that does not start a well-formed UTF-8 sequence.
enum class InvalidByte {
    replacement,  ///< U+FFFD
    latin1        ///< the Latin-1 character of that byte (0xA0 becomes U+00A0)
};

/// `s` with each byte that does not start a well-formed UTF-8 sequence replaced (by U+FFFD, or
/// read as Latin-1), so that text from elsewhere (a YAML error message quoting one byte of a
/// character) can go into a diagnostic or JSON. Valid UTF-8 is returned unchanged.
[[nodiscard]] std::string valid_utf8(std::string_view s, InvalidByte as = InvalidByte::replacement);

/// Number of code points in valid UTF-8.
[[nodiscard]] std::size_t code_point_count(std::string_view s) noexcept;

/// The longest prefix of valid UTF-8 `s` with at most `max_code_points` code points.
[[nodiscard]] std::string_view truncate_code_points(std::string_view s, std::size_t max_code_points) noexcept;

/// Unicode NFKC normalization; invalid UTF-8 is returned unchanged.
[[nodiscard]] std::string nfkc(std::string_view s);

/// One broken rule of a skill name (after NFKC).
enum class NameProblem {
    empty,
    too_long,            ///< more than SKILL_MAX_NAME_LENGTH code points
    not_lowercase,       ///< changes under lowercasing
    edge_hyphen,         ///< starts or ends with '-'
    consecutive_hyphens, ///< contains "--"
    invalid_character    ///< not a Unicode letter, number or '-'
};

/// Every rule the NFKC form of `name` breaks, in the order above; empty when valid.
[[nodiscard]] std::vector<NameProblem> check_skill_name(std::string_view name);

[[nodiscard]] inline bool is_valid_skill_name(std::string_view name) { return check_skill_name(name).empty(); }

/// Compares two names after NFKC.
[[nodiscard]] bool names_equal(std::string_view a, std::string_view b);

}  // namespace agentskills
