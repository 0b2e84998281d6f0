// agentskills-cpp — private: which of two skills with one name is the real one.
#pragma once

#include <string_view>

namespace agentskills::detail {

/// Whether a skill's name is canonical: already in NFKC form (`name == name_key`, the NFKC of
/// the name) and the name of its directory. Of several skills with one name, a canonical one is
/// kept over the others, so that a look-alike that sorts or is configured first never displaces
/// the real skill (the loader's merge and CombinedSkillLoader both apply it).
[[nodiscard]] inline bool is_canonical_name(std::string_view name, std::string_view name_key,
                                            std::string_view dir_name) noexcept {
    return name == name_key && name == dir_name;
}

}  // namespace agentskills::detail
