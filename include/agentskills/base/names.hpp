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

/// Longest text, in code points, that `nfkc` normalizes (4 x SKILL_MAX_NAME_LENGTH). Canonical
/// reordering of combining marks is quadratic in their number, so longer text is never
/// normalized: it comes back unchanged. Canonical composition shrinks text at most fourfold
/// (the longest canonical decomposition has four code points), so text over this bound can
/// never be NFKC-equal to a name of at most 64 code points: a name that long is `too_long`,
/// and it compares unequal to every valid name.
inline constexpr std::size_t NFKC_MAX_CODE_POINTS = 256;

/// True when `s` has more than NFKC_MAX_CODE_POINTS code points (counted without decoding).
[[nodiscard]] bool exceeds_nfkc_bound(std::string_view s) noexcept;

/// Unicode NFKC normalization; invalid UTF-8, and text of more than NFKC_MAX_CODE_POINTS code
/// points (bounded time for any input), are returned unchanged.
[[nodiscard]] std::string nfkc(std::string_view s);

/// True when nothing is left of `s` after removing Unicode white space (the White_Space
/// property: categories Zs, Zl, Zp and TAB, LF, VT, FF, CR, NEL) and default-ignorable code
/// points (ZWSP, ZWJ, U+2060, soft hyphen, variation selectors, ...). Invalid UTF-8 is not blank.
[[nodiscard]] bool is_blank_text(std::string_view s) noexcept;

/// True when the code point is a Unicode letter (categories Lu, Ll, Lt, Lm, Lo) or number (Nd,
/// Nl, No): what a skill name may hold besides '-' (`invalid_character` below), and what Python's
/// `str.isalnum` accepts of one character (the reference profile's rule).
[[nodiscard]] bool is_letter_or_number(char32_t cp) noexcept;

/// One broken rule of a skill name (after NFKC).
enum class NameProblem {
    empty,                ///< empty or blank (see `is_blank_text`)
    too_long,             ///< more than SKILL_MAX_NAME_LENGTH code points (or too long to normalize)
    not_lowercase,        ///< changes under lowercasing
    edge_hyphen,          ///< starts or ends with '-'
    consecutive_hyphens,  ///< contains "--"
    invalid_character     ///< not a Unicode letter, number or '-'
};

/// Every rule the NFKC form of `name` breaks, in the order above; empty when valid. A name over
/// NFKC_MAX_CODE_POINTS is `{too_long}` alone, without being normalized.
[[nodiscard]] std::vector<NameProblem> check_skill_name(std::string_view name);

[[nodiscard]] inline bool is_valid_skill_name(std::string_view name) { return check_skill_name(name).empty(); }

/// True when the one name lookup (`SkillNameIndex::find`, docs/loading.md "Names") can find a
/// skill by `name` itself: at most NFKC_MAX_CODE_POINTS code points (longer names the lookup
/// refuses) and no leading '/' (the lookup drops one, as a person types `/alpha`). A skill whose
/// name fails this could never be activated, so the parser skips it under every name policy.
[[nodiscard]] bool is_addressable_name(std::string_view name) noexcept;

/// Compares two names after NFKC. A name over NFKC_MAX_CODE_POINTS is not normalized: it equals
/// only the same bytes, never a valid name.
[[nodiscard]] bool names_equal(std::string_view a, std::string_view b);

}  // namespace agentskills
