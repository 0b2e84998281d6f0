// agentskills-cpp — the words that name loader policies, in one place.
//
// The CLI's flags (`--duplicate-names keep_first`), the agent specs' keys
// (`duplicate_names: keep_first`) and the documentation all spell a policy with the word given
// here; to_string() gives it back. Nothing else in the library maps words to these enums.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "../base/skill.hpp"
#include "loader.hpp"

namespace agentskills {

/// One policy word and the enumerator it names.
template <class Enum>
struct PolicyWord {
    std::string_view word;
    Enum value;
};

/// The words of one policy enum, in the order the documentation lists them. Defined for
/// MissingDirectories, DuplicateNames, NamePolicy, AgentFolders, LoaderLimits and YamlRecovery.
template <class Enum>
inline constexpr std::array<PolicyWord<Enum>, 0> policy_words{};

template <>
inline constexpr std::array<PolicyWord<MissingDirectories>, 2> policy_words<MissingDirectories>{
    {{"error", MissingDirectories::error}, {"skip", MissingDirectories::skip}}};

template <>
inline constexpr std::array<PolicyWord<DuplicateNames>, 2> policy_words<DuplicateNames>{
    {{"error", DuplicateNames::error}, {"keep_first", DuplicateNames::keep_first}}};

template <>
inline constexpr std::array<PolicyWord<NamePolicy>, 2> policy_words<NamePolicy>{
    {{"keep", NamePolicy::keep}, {"require_valid", NamePolicy::require_valid}}};

template <>
inline constexpr std::array<PolicyWord<AgentFolders>, 5> policy_words<AgentFolders>{
    {{"claude", AgentFolders::claude},
     {"copilot", AgentFolders::copilot},
     {"gemini", AgentFolders::gemini},
     {"opencode", AgentFolders::opencode},
     {"codex", AgentFolders::codex}}};

template <>
inline constexpr std::array<PolicyWord<LoaderLimits>, 2> policy_words<LoaderLimits>{
    {{"standard", LoaderLimits::standard}, {"agents", LoaderLimits::agents}}};

template <>
inline constexpr std::array<PolicyWord<YamlRecovery>, 2> policy_words<YamlRecovery>{
    {{"none", YamlRecovery::none}, {"plain_values", YamlRecovery::plain_values}}};

/// The enumerator `word` names (exact, case-sensitive), or nullopt.
template <class Enum>
[[nodiscard]] constexpr std::optional<Enum> policy_from_word(std::string_view word) noexcept {
    for (const auto& w : policy_words<Enum>) {
        if (w.word == word) return w.value;
    }
    return std::nullopt;
}

/// The word of `value` ("" for a value outside the enum).
template <class Enum>
[[nodiscard]] constexpr std::string_view policy_word(Enum value) noexcept {
    for (const auto& w : policy_words<Enum>) {
        if (w.value == value) return w.word;
    }
    return {};
}

/// The words of `Enum` for a usage text: `error|keep_first`.
template <class Enum>
[[nodiscard]] std::string policy_word_list() {
    std::string out;
    for (std::size_t i = 0; i < policy_words<Enum>.size(); ++i) {
        if (i != 0) out += '|';
        out += policy_words<Enum>[i].word;
    }
    return out;
}

/// The words of `Enum` for an error message: `'error' or 'keep_first'` (`'a', 'b' or 'c'`).
template <class Enum>
[[nodiscard]] std::string policy_word_choices() {
    std::string out;
    for (std::size_t i = 0; i < policy_words<Enum>.size(); ++i) {
        if (i != 0) out += i + 1 == policy_words<Enum>.size() ? " or " : ", ";
        out += '\'';
        out += policy_words<Enum>[i].word;
        out += '\'';
    }
    return out;
}

[[nodiscard]] constexpr std::string_view to_string(MissingDirectories value) noexcept { return policy_word(value); }
[[nodiscard]] constexpr std::string_view to_string(DuplicateNames value) noexcept { return policy_word(value); }
[[nodiscard]] constexpr std::string_view to_string(NamePolicy value) noexcept { return policy_word(value); }
[[nodiscard]] constexpr std::string_view to_string(AgentFolders value) noexcept { return policy_word(value); }
[[nodiscard]] constexpr std::string_view to_string(LoaderLimits value) noexcept { return policy_word(value); }
[[nodiscard]] constexpr std::string_view to_string(YamlRecovery value) noexcept { return policy_word(value); }

}  // namespace agentskills
