// Unicode helpers (through utf8proc) and the skill-name rules.
#include "agentskills/names.hpp"

#include <cstdlib>
#include <memory>

#include <utf8proc.h>

#include "agentskills/skill.hpp"

namespace agentskills {
namespace {

const utf8proc_uint8_t* bytes(std::string_view s) noexcept {
    return reinterpret_cast<const utf8proc_uint8_t*>(s.data());
}

bool is_ascii(std::string_view s) noexcept {
    for (char c : s) {
        if (static_cast<unsigned char>(c) >= 0x80) return false;
    }
    return true;
}

// Calls f(code_point) for each code point of valid UTF-8 `s`; stops at the first invalid byte.
template <class F>
bool for_each_code_point(std::string_view s, F&& f) {
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
    if (is_ascii(s)) return true;
    return for_each_code_point(s, [](utf8proc_int32_t) {});
}

std::size_t code_point_count(std::string_view s) noexcept {
    std::size_t n = 0;
    for (char c : s) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;  // count non-continuation bytes
    }
    return n;
}

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

std::string nfkc(std::string_view s) {
    if (is_ascii(s)) return std::string(s);  // NFKC leaves ASCII unchanged
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

std::vector<NameProblem> check_skill_name(std::string_view name) {
    std::vector<NameProblem> problems;
    const std::string normalized = nfkc(name);
    if (normalized.empty()) {
        problems.push_back(NameProblem::empty);
        return problems;
    }
    if (code_point_count(normalized) > SKILL_MAX_NAME_LENGTH) problems.push_back(NameProblem::too_long);
    bool lowercase = true;
    bool valid_chars = true;
    const bool utf8_ok = for_each_code_point(normalized, [&](utf8proc_int32_t cp) {
        if (utf8proc_tolower(cp) != cp) lowercase = false;
        if (cp == '-') return;
        switch (utf8proc_category(cp)) {
            case UTF8PROC_CATEGORY_LU:
            case UTF8PROC_CATEGORY_LL:
            case UTF8PROC_CATEGORY_LT:
            case UTF8PROC_CATEGORY_LM:
            case UTF8PROC_CATEGORY_LO:
            case UTF8PROC_CATEGORY_ND:
            case UTF8PROC_CATEGORY_NL:
            case UTF8PROC_CATEGORY_NO:
                break;
            default:
                valid_chars = false;
        }
    });
    if (!utf8_ok) valid_chars = false;
    if (!lowercase) problems.push_back(NameProblem::not_lowercase);
    if (normalized.front() == '-' || normalized.back() == '-') problems.push_back(NameProblem::edge_hyphen);
    if (normalized.find("--") != std::string::npos) problems.push_back(NameProblem::consecutive_hyphens);
    if (!valid_chars) problems.push_back(NameProblem::invalid_character);
    return problems;
}

bool names_equal(std::string_view a, std::string_view b) {
    if (a == b) return true;
    return nfkc(a) == nfkc(b);
}

}  // namespace agentskills
