// agentskills-cpp — private: why a resource listing is incomplete, in the one sentence that the
// callers which refuse such a skill (the MCP server's index, lock) report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include "agentskills/catalog/loader.hpp"
#include "agentskills/storage/reader.hpp"

namespace agentskills::detail {

// Why `listed` (of `skill_dir`, walked `max_depth` levels deep) is incomplete: the first directory
// whose files it does not list and why (unreadable, too deep), else the walk limit.
[[nodiscard]] inline std::string incomplete_listing_message(const ResourceList& listed, std::string_view skill_dir,
                                                            std::size_t max_depth) {
    if (!listed.unlisted_directories.empty()) {
        const std::string dir = join_path(skill_dir, listed.unlisted_directories.front());
        if (!listed.unlisted_reasons.empty() && listed.unlisted_reasons.front() == UnlistedReason::too_deep) {
            return fmt::format("the directory {} lies deeper than {} levels below {}", dir, max_depth, skill_dir);
        }
        if (!listed.unlisted_errors.empty() && !listed.unlisted_errors.front().empty()) {
            return fmt::format("the directory {} could not be read ({})", dir, listed.unlisted_errors.front());
        }
        return fmt::format("the directory {} could not be read", dir);
    }
    if (listed.entry_limit_reached) {
        return fmt::format("{} holds more than {} directory entries", skill_dir, SKILL_RESOURCE_WALK_LIMIT);
    }
    return fmt::format("{} could not be listed in full", skill_dir);
}

}  // namespace agentskills::detail
