// agentskills-cpp — private: the look-alike skeleton of a skill name.
#include "confusables.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <memory>
#include <utility>

#include <unordered_map>

#include <fmt/core.h>
#include <utf8proc.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"

namespace agentskills::detail {
namespace {

// Default-ignorable code points (Unicode's Default_Ignorable_Code_Point, which includes the
// bidirectional controls U+061C, U+200E/F, U+202A..U+202E and U+2066..U+2069) and the other
// invisible format characters that can sit inside a name unseen.
bool is_invisible(utf8proc_int32_t cp) noexcept {
    struct Range {
        utf8proc_int32_t first;
        utf8proc_int32_t last;
    };
    static constexpr std::array<Range, 20> ranges{{
        {0x00AD, 0x00AD},   {0x034F, 0x034F},   {0x061C, 0x061C}, {0x115F, 0x1160}, {0x17B4, 0x17B5},
        {0x180B, 0x180F},   {0x200B, 0x200F},   {0x202A, 0x202E}, {0x2060, 0x206F}, {0x3164, 0x3164},
        {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0}, {0xFFF0, 0xFFF8}, {0x1BCA0, 0x1BCA3},
        {0x1D173, 0x1D17A}, {0xE0000, 0xE0FFF}, {0x0600, 0x0605}, {0x06DD, 0x06DD}, {0x110BD, 0x110BD},
    }};
    return std::any_of(ranges.begin(), ranges.end(), [&](const Range& r) { return cp >= r.first && cp <= r.last; });
}

// Lowercase Cyrillic and Greek letters (after case folding) that render like a Latin letter in
// common fonts, with that letter (a linear search: the table is short).
constexpr std::array<std::pair<utf8proc_int32_t, char>, 34> look_alikes{{
    {0x03B1, 'a'},  // α
    {0x03B5, 'e'},  // ε
    {0x03B7, 'n'},  // η
    {0x03B9, 'i'},  // ι
    {0x03BA, 'k'},  // κ
    {0x03BD, 'v'},  // ν
    {0x03BF, 'o'},  // ο
    {0x03C1, 'p'},  // ρ
    {0x03C4, 't'},  // τ
    {0x03C5, 'u'},  // υ
    {0x03C7, 'x'},  // χ
    {0x03F2, 'c'},  // ϲ (lunate sigma)
    {0x03F3, 'j'},  // ϳ
    {0x0430, 'a'},  // а
    {0x0432, 'b'},  // в (small capital B)
    {0x0435, 'e'},  // е
    {0x043A, 'k'},  // к
    {0x043C, 'm'},  // м
    {0x043D, 'h'},  // н
    {0x043E, 'o'},  // о
    {0x0440, 'p'},  // р
    {0x0441, 'c'},  // с
    {0x0442, 't'},  // т
    {0x0443, 'y'},  // у
    {0x0445, 'x'},  // х
    {0x0455, 's'},  // ѕ
    {0x0456, 'i'},  // і
    {0x0458, 'j'},  // ј
    {0x04BB, 'h'},  // һ
    {0x04CF, 'l'},  // ӏ
    {0x0501, 'd'},  // ԁ
    {0x051B, 'q'},  // ԛ
    {0x051D, 'w'},  // ԝ
    {0x0261, 'g'},  // ɡ (Latin script g)
}};

char latin_look_alike(utf8proc_int32_t cp) noexcept {
    for (const auto& [from, to] : look_alikes) {
        if (from == cp) return to;
    }
    return '\0';
}

bool is_ascii(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Calls f(cp) for each code point; false on invalid UTF-8.
template <class F>
bool each_code_point(std::string_view s, F&& f) {
    const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
    auto left = static_cast<utf8proc_ssize_t>(s.size());
    while (left > 0) {
        utf8proc_int32_t cp = 0;
        const utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
        if (n <= 0 || cp < 0) return false;
        f(cp);
        p += n;
        left -= n;
    }
    return true;
}

void append_utf8(std::string& out, utf8proc_int32_t cp) {
    std::array<utf8proc_uint8_t, 4> buf{};
    const utf8proc_ssize_t n = utf8proc_encode_char(cp, buf.data());
    out.append(reinterpret_cast<const char*>(buf.data()), static_cast<std::size_t>(n));
}

}  // namespace

std::optional<std::string> confusable_skeleton(std::string_view name) {
    if (name.size() > confusable_max_bytes) return std::nullopt;
    if (is_ascii(name)) {
        std::string out(name);
        std::transform(out.begin(), out.end(), out.begin(),
                       [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
        return out;
    }
    std::string visible;
    visible.reserve(name.size());
    if (!each_code_point(name, [&](utf8proc_int32_t cp) {
            if (!is_invisible(cp)) append_utf8(visible, cp);
        })) {
        return std::nullopt;
    }
    utf8proc_uint8_t* folded = nullptr;
    const utf8proc_ssize_t n = utf8proc_map(
        reinterpret_cast<const utf8proc_uint8_t*>(visible.data()), static_cast<utf8proc_ssize_t>(visible.size()),
        &folded,
        static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD));
    if (n < 0) {
        std::free(folded);
        return std::nullopt;
    }
    std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> holder(folded, &std::free);
    std::string out;
    out.reserve(static_cast<std::size_t>(n));
    (void)each_code_point(std::string_view(reinterpret_cast<const char*>(folded), static_cast<std::size_t>(n)),
                          [&](utf8proc_int32_t cp) {
                              if (is_invisible(cp)) return;
                              if (const char latin = latin_look_alike(cp); latin != '\0') {
                                  out += latin;
                              } else {
                                  append_utf8(out, cp);
                              }
                          });
    return out;
}

void note_confusable_names(const std::vector<std::shared_ptr<const SkillManifest>>& skills, Diagnostics& out) {
    // A name of ASCII characters other than capitals is its own skeleton. Kept names differ in
    // their NFKC form (the merge keeps one skill per name), so two such names never share a
    // skeleton: only a name that is not its own skeleton can look like another one. A library
    // without one (nearly every library) needs no skeletons and no map.
    const auto own_skeleton = [](std::string_view name) {
        return name.size() <= confusable_max_bytes && std::all_of(name.begin(), name.end(), [](char c) {
                   return static_cast<unsigned char>(c) < 0x80 && !(c >= 'A' && c <= 'Z');
               });
    };
    if (std::all_of(skills.begin(), skills.end(), [&](const auto& s) { return own_skeleton(s->name); })) return;
    struct Member {
        std::string folded;         // the skeleton, when it is not the name itself
        std::string_view skeleton;  // the name, or `folded`
        bool plain = false;         // the name is its own skeleton
        bool checked = false;
    };
    std::vector<Member> members(skills.size());
    std::unordered_map<std::string_view, std::size_t> representative;  // skeleton -> skill index
    representative.reserve(skills.size());
    for (std::size_t i = 0; i < skills.size(); ++i) {
        const std::string& name = skills[i]->name;
        Member& m = members[i];
        if (own_skeleton(name)) {
            m.skeleton = name;
        } else {
            std::optional<std::string> key = confusable_skeleton(name);
            if (!key) continue;
            m.folded = std::move(*key);
            m.skeleton = m.folded;
        }
        m.checked = true;
    }
    for (std::size_t i = 0; i < skills.size(); ++i) {
        Member& m = members[i];
        if (!m.checked) continue;
        m.plain = m.skeleton == skills[i]->name;
        auto [it, added] = representative.emplace(m.skeleton, i);
        if (!added && m.plain && !members[it->second].plain) it->second = i;
    }
    for (std::size_t i = 0; i < skills.size(); ++i) {
        const Member& m = members[i];
        if (!m.checked) continue;
        const std::size_t r = representative.at(m.skeleton);
        if (r == i) continue;
        const SkillManifest& self = *skills[i];
        const SkillManifest& other = *skills[r];
        out.push_back(
            Diagnostic{std::string(codes::confusable_name), Severity::warning, self.skill_file, 0,
                       fmt::format("skill name '{}' of {} looks like '{}' of {} (invisible, look-alike or differently "
                                   "cased characters); make sure the one you activate is the one you mean",
                                   self.name, self.skill_file, other.name, other.skill_file)});
    }
}

}  // namespace agentskills::detail
