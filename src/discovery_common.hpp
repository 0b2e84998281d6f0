// agentskills-cpp — private: what the stages of discovery share.
#pragma once

#include <string_view>

namespace agentskills::detail {

inline constexpr std::string_view skill_file_name = "SKILL.md";

// A name a directory listing may hold: one component, not "." or "..", no NUL. Anything else
// comes from a broken reader, and joining it to a path could climb out of the library.
[[nodiscard]] inline bool is_plain_entry_name(std::string_view name) noexcept {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

}  // namespace agentskills::detail
