// agentskills-cpp — listing the resources of a skill directory (bounded walk, capped list).
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "discovery/common.hpp"

namespace agentskills {

namespace {

int resource_group(std::string_view p) noexcept {
    if (p.starts_with("scripts/")) return 0;
    if (p.starts_with("references/")) return 1;
    if (p.starts_with("assets/")) return 2;
    return 3;
}

bool resource_before(const std::string& a, const std::string& b) noexcept {
    const int ga = resource_group(a);
    const int gb = resource_group(b);
    return ga != gb ? ga < gb : a < b;
}

}  // namespace

ResourceList list_skill_resources(const SkillReader& reader, std::string_view skill_dir,
                                  const ResourceListOptions& options) {
    std::vector<std::string> files;
    std::vector<std::string> directories;
    std::vector<std::string> unlisted;
    bool incomplete = false;
    const auto not_listed = [&](const std::string& relative) {
        incomplete = true;
        if (unlisted.size() < SKILL_MAX_UNLISTED_DIRECTORIES) unlisted.push_back(relative);
    };
    struct Pending {
        std::string relative;  // "" for the skill directory itself
        std::size_t depth;     // directory levels below the skill directory
    };
    const std::size_t max_depth = std::min(options.max_depth, SKILL_MAX_RESOURCE_DEPTH);
    std::vector<Pending> stack{{std::string(), 0}};
    std::size_t seen = 0;  // entries looked at, against SKILL_RESOURCE_WALK_LIMIT
    while (!stack.empty()) {
        if (seen >= SKILL_RESOURCE_WALK_LIMIT) {
            incomplete = true;
            break;
        }
        Pending dir = std::move(stack.back());
        stack.pop_back();
        const std::string path = dir.relative.empty() ? std::string(skill_dir) : join_path(skill_dir, dir.relative);
        std::vector<DirEntry> entries;
        if (dir.relative.empty()) {
            entries = reader.list_dir_kinds(path);  // the skill directory itself: its errors are the caller's
        } else {
            try {
                entries = reader.list_dir_kinds(path);
            } catch (const Error&) {
                // A subdirectory that vanished or cannot be listed (over the reader's listing limit,
                // no permission) costs only its own files, and the listing says so.
                not_listed(dir.relative);
                continue;
            }
        }
        for (const DirEntry& e : entries) {
            if (++seen > SKILL_RESOURCE_WALK_LIMIT) {
                incomplete = true;
                break;
            }
            if (!detail::is_plain_entry_name(e.name)) continue;
            if (!options.include_hidden && e.name.front() == '.') continue;
            if (e.is_symlink && !options.include_symlinks) continue;
            std::string relative = dir.relative.empty() ? e.name : dir.relative + "/" + e.name;
            if (e.kind == EntryKind::directory) {
                if (e.is_symlink) continue;  // never followed
                if (dir.depth >= max_depth) {
                    not_listed(relative);
                    continue;
                }
                if (options.list_directories) directories.push_back(relative);
                stack.push_back({std::move(relative), dir.depth + 1});
                continue;
            }
            if (e.kind != EntryKind::file) continue;
            if (dir.relative.empty() && e.name == detail::skill_file_name) continue;
            files.push_back(std::move(relative));
        }
    }
    ResourceList out;
    out.incomplete = incomplete;
    out.unlisted_directories = std::move(unlisted);
    std::sort(directories.begin(), directories.end());
    out.directories = std::move(directories);
    const std::size_t cap = options.max_resources == 0 ? files.size() : std::min(files.size(), options.max_resources);
    if (cap < files.size()) {
        std::nth_element(files.begin(), files.begin() + static_cast<std::ptrdiff_t>(cap), files.end(), resource_before);
        out.omitted = files.size() - cap;
        files.resize(cap);
    }
    std::sort(files.begin(), files.end(), resource_before);
    out.resources.reserve(files.size());
    for (auto& f : files) out.resources.push_back(SkillResource{std::move(f)});
    return out;
}

std::vector<SkillResource> list_skill_resources(const SkillReader& reader, std::string_view skill_dir) {
    return list_skill_resources(reader, skill_dir, ResourceListOptions{}).resources;
}

}  // namespace agentskills
