// Unicode helpers (through utf8proc) and the skill-name rules.
#include "agentskills/base/names.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <utf8proc.h>

#include "agentskills/base/skill.hpp"
#include "byte_scans.hpp"

namespace agentskills {
namespace {

const utf8proc_uint8_t* bytes(std::string_view s) noexcept {
    return reinterpret_cast<const utf8proc_uint8_t*>(s.data());
}

// Length of the ASCII prefix of `s` (16 bytes a step where SSE2 is there).
std::size_t ascii_prefix(std::string_view s) noexcept { return detail::skip_ascii(s, 0); }

bool is_ascii(std::string_view s) noexcept { return ascii_prefix(s) == s.size(); }

// Calls f(code_point) for each code point of valid UTF-8 `s`; stops at the first invalid byte.
template <class F>
bool for_each_valid_code_point(std::string_view s, F&& f) {
    std::size_t pos = 0;
    while (pos < s.size()) {
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(bytes(s) + pos, static_cast<utf8proc_ssize_t>(s.size() - pos), &cp);
        if (n <= 0) return false;
        f(cp);
        pos += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

bool is_valid_utf8(std::string_view s) noexcept {
    std::size_t i = 0;
    while (i < s.size()) {
        i += ascii_prefix(s.substr(i));
        if (i == s.size()) break;
        const std::size_t n = detail::utf8_sequence_length(s, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string valid_utf8(std::string_view s, InvalidByte as) {
    std::string out;
    out.reserve(s.size());
    std::size_t i = 0;
    while (i < s.size()) {
        const std::size_t ascii = ascii_prefix(s.substr(i));
        out.append(s.substr(i, ascii));
        i += ascii;
        if (i == s.size()) break;
        const std::size_t n = detail::utf8_sequence_length(s, i);
        if (n == 0) {
            const auto byte = static_cast<unsigned char>(s[i]);
            if (as == InvalidByte::latin1) {  // U+0080..U+00FF in two bytes
                out += static_cast<char>(0xC0 | (byte >> 6));
                out += static_cast<char>(0x80 | (byte & 0x3F));
            } else {
                out += "\xEF\xBF\xBD";  // U+FFFD
            }
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::size_t code_point_count(std::string_view s) noexcept { return detail::count_code_points(s); }

std::string_view truncate_code_points(std::string_view s, std::size_t max_code_points) noexcept {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
            if (seen == max_code_points) return s.substr(0, i);
            ++seen;
        }
    }
    return s;
}

bool exceeds_nfkc_bound(std::string_view s) noexcept {
    if (s.size() <= NFKC_MAX_CODE_POINTS) return false;    // at most one code point per byte
    if (s.size() > 4 * NFKC_MAX_CODE_POINTS) return true;  // at most four bytes per code point
    return code_point_count(s) > NFKC_MAX_CODE_POINTS;
}

std::string nfkc(std::string_view s) {
    if (is_ascii(s)) return std::string(s);            // NFKC leaves ASCII unchanged
    if (exceeds_nfkc_bound(s)) return std::string(s);  // bounded time: never normalized
    utf8proc_uint8_t* out = nullptr;
    const auto n = utf8proc_map(bytes(s), static_cast<utf8proc_ssize_t>(s.size()), &out,
                                static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT));
    if (n < 0) {
        std::free(out);
        return std::string(s);
    }
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> holder(out, &std::free);
    return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

bool is_blank_text(std::string_view s) noexcept {
    std::size_t pos = 0;
    while (pos < s.size()) {
        const auto c = static_cast<unsigned char>(s[pos]);
        if (c < 0x80) {  // ASCII: only TAB, LF, VT, FF, CR and space are white space
            if (c != ' ' && (c < 0x09 || c > 0x0D)) return false;
            ++pos;
            continue;
        }
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(bytes(s) + pos, static_cast<utf8proc_ssize_t>(s.size() - pos), &cp);
        if (n <= 0) return false;
        pos += static_cast<std::size_t>(n);
        if (cp == 0x85) continue;  // NEL, the one White_Space control above ASCII
        const auto category = utf8proc_category(cp);
        if (category == UTF8PROC_CATEGORY_ZS || category == UTF8PROC_CATEGORY_ZL || category == UTF8PROC_CATEGORY_ZP) {
            continue;
        }
        if (utf8proc_get_property(cp)->ignorable == 0) return false;  // not Default_Ignorable_Code_Point
    }
    return true;
}

bool is_letter_or_number(char32_t cp) noexcept {
    switch (utf8proc_category(static_cast<utf8proc_int32_t>(cp))) {
        case UTF8PROC_CATEGORY_LU:
        case UTF8PROC_CATEGORY_LL:
        case UTF8PROC_CATEGORY_LT:
        case UTF8PROC_CATEGORY_LM:
        case UTF8PROC_CATEGORY_LO:
        case UTF8PROC_CATEGORY_ND:
        case UTF8PROC_CATEGORY_NL:
        case UTF8PROC_CATEGORY_NO:
            return true;
        default:
            return false;
    }
}

std::vector<NameProblem> check_skill_name(std::string_view name) {
    std::vector<NameProblem> problems;
    if (exceeds_nfkc_bound(name)) {  // never normalized: too long however it would compose
        problems.push_back(NameProblem::too_long);
        return problems;
    }
    // NFKC leaves ASCII unchanged and each of its bytes is one code point: an ASCII name (nearly
    // every name) is checked where it is, a byte at a time, without a copy or a decoder call.
    const bool ascii = is_ascii(name);
    const std::string composed = ascii ? std::string() : nfkc(name);
    const std::string_view normalized = ascii ? name : std::string_view(composed);
    if (normalized.empty() || is_blank_text(normalized)) {
        problems.push_back(NameProblem::empty);
        return problems;
    }
    if ((ascii ? normalized.size() : code_point_count(normalized)) > SKILL_MAX_NAME_LENGTH) {
        problems.push_back(NameProblem::too_long);
    }
    bool lowercase = true;
    bool valid_chars = true;
    const auto look_at = [&](utf8proc_int32_t cp) {
        if (cp < 0x80) {  // ASCII: the same answers as utf8proc's tables, without the lookups
            if (cp >= 'A' && cp <= 'Z') lowercase = false;
            const bool alnum = (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
            if (!alnum && cp != '-') valid_chars = false;
            return;
        }
        if (utf8proc_tolower(cp) != cp) lowercase = false;
        if (!is_letter_or_number(static_cast<char32_t>(cp))) valid_chars = false;
    };
    if (ascii) {
        for (const char c : normalized) look_at(static_cast<unsigned char>(c));
    } else if (!for_each_valid_code_point(normalized, look_at)) {
        valid_chars = false;
    }
    if (!lowercase) problems.push_back(NameProblem::not_lowercase);
    if (normalized.front() == '-' || normalized.back() == '-') problems.push_back(NameProblem::edge_hyphen);
    if (normalized.find("--") != std::string_view::npos) problems.push_back(NameProblem::consecutive_hyphens);
    if (!valid_chars) problems.push_back(NameProblem::invalid_character);
    return problems;
}

bool is_addressable_name(std::string_view name) noexcept {
    return !name.empty() && name.front() != '/' && !exceeds_nfkc_bound(name);
}

bool names_equal(std::string_view a, std::string_view b) {
    if (a == b) return true;
    if (exceeds_nfkc_bound(a) || exceeds_nfkc_bound(b)) return false;  // never equal to a valid name
    return nfkc(a) == nfkc(b);
}

}  // namespace agentskills
