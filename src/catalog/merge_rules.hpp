// agentskills-cpp — private: the rules of merging skills with one name, in one place. The
// file-system loader's merge over its roots (discovery/merge.cpp) and CombinedSkillLoader's over
// its sources (combined_loader.cpp) both decide and word their findings here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/text.hpp"

namespace agentskills::detail {

/// Whether a skill's name is canonical: already in NFKC form (`name == name_key`, the NFKC of
/// the name) and the name of its directory. Of several skills with one name, a canonical one is
/// kept over the others, so that a look-alike that sorts or is configured first never displaces
/// the real skill.
[[nodiscard]] inline bool is_canonical_name(std::string_view name, std::string_view name_key,
                                            std::string_view dir_name) noexcept {
    return name == name_key && name == dir_name;
}

/// The finding of a skill left out because an earlier one has its name.
[[nodiscard]] inline std::string duplicate_message(std::string_view name, std::string_view file,
                                                   std::string_view kept_file) {
    return fmt::format("skill name '{}' of {} is already used by {}", name, file, kept_file);
}

/// The finding of a skill left out because a later one with its name is canonical.
[[nodiscard]] inline std::string displaced_message(std::string_view name, std::string_view file,
                                                   std::string_view kept_file) {
    return fmt::format(
        "skill name '{}' of {} is also used by {}, whose name is in NFKC form and matches its directory; that one "
        "is kept",
        name, file, kept_file);
}

/// The DiscoveryError of include names that select nothing.
[[nodiscard]] inline std::string unknown_include_message(const std::vector<std::string>& names) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "'" : ", '") + n + "'";
    return fmt::format("include names no discovered skill: {}", list);
}

/// The warning of an exclude name that left nothing out.
[[nodiscard]] inline std::string unknown_exclude_message(std::string_view name) {
    return fmt::format("exclude names no discovered skill: '{}'", model_text(name));
}

}  // namespace agentskills::detail
