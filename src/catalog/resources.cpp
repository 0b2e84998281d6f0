// agentskills-cpp — listing the resources of a skill directory (bounded walk, capped list).
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "discovery/common.hpp"

namespace agentskills {

namespace {

// A directory the walk goes into: a directory below the skill, not a link to one.
bool walked(const DirEntry& e) noexcept { return e.kind == EntryKind::directory && !e.is_symlink; }

// The group of a child of the skill directory: scripts/, references/, assets/, then the rest.
int resource_group(const DirEntry& e) noexcept {
    if (!walked(e)) return 3;
    if (e.name == "scripts") return 0;
    if (e.name == "references") return 1;
    if (e.name == "assets") return 2;
    return 3;
}

// Whether `a` comes before `b` among the entries of one directory when a directory's name is
// followed by '/': the byte order of the paths below them. A walk that visits each directory's
// entries in this order meets the files in the byte order of their paths ("a-b" before "a/c").
bool entry_before(const DirEntry& a, const DirEntry& b) noexcept {
    const std::string_view x = a.name;
    const std::string_view y = b.name;
    const std::size_t n = std::min(x.size(), y.size());
    if (const int c = x.substr(0, n).compare(y.substr(0, n)); c != 0) return c < 0;
    if (x.size() == y.size()) return false;
    if (x.size() < y.size()) return !walked(a) || '/' < static_cast<unsigned char>(y[n]);
    return walked(b) && static_cast<unsigned char>(x[n]) < '/';
}

}  // namespace

ResourceList list_skill_resources(const SkillReader& reader, std::string_view skill_dir,
                                  const ResourceListOptions& options) {
    ResourceList out;
    std::vector<std::string> files;  // the first `cap` in the order; the others are only counted
    const std::size_t cap = options.max_resources == 0 ? SIZE_MAX : options.max_resources;
    const auto not_listed = [&](const std::string& relative, UnlistedReason why, std::string error) {
        out.incomplete = true;
        if (out.unlisted_directories.size() < SKILL_MAX_UNLISTED_DIRECTORIES) {
            out.unlisted_directories.push_back(relative);
            out.unlisted_reasons.push_back(why);
            out.unlisted_errors.push_back(std::move(error));
        }
    };
    // The walk visits the entries of each directory in the documented order (resource_group at
    // the top, entry_before), depth first, so the files come in that order: when it stops at
    // SKILL_RESOURCE_WALK_LIMIT, the files listed are the first of the order.
    struct Level {
        std::string relative;  // "" for the skill directory itself
        std::size_t depth;     // directory levels below the skill directory
        std::vector<DirEntry> entries;
        std::size_t next = 0;
    };
    const std::size_t max_depth = std::min(options.max_depth, SKILL_MAX_RESOURCE_DEPTH);
    std::vector<Level> stack;
    {
        // The skill directory itself: its errors are the caller's.
        std::vector<DirEntry> top = reader.list_dir_kinds(skill_dir);
        std::sort(top.begin(), top.end(), [](const DirEntry& a, const DirEntry& b) {
            const int ga = resource_group(a);
            const int gb = resource_group(b);
            return ga != gb ? ga < gb : entry_before(a, b);
        });
        stack.push_back({std::string(), 0, std::move(top)});
    }
    std::size_t seen = 0;  // entries looked at, against SKILL_RESOURCE_WALK_LIMIT
    while (!stack.empty()) {
        Level& dir = stack.back();
        if (dir.next == dir.entries.size()) {
            stack.pop_back();
            continue;
        }
        if (++seen > SKILL_RESOURCE_WALK_LIMIT) {
            out.incomplete = true;
            out.entry_limit_reached = true;
            break;
        }
        const DirEntry& e = dir.entries[dir.next++];
        if (!detail::is_plain_entry_name(e.name)) continue;
        if (!options.include_hidden && e.name.front() == '.') continue;
        if (e.is_symlink && !options.include_symlinks) continue;
        std::string relative = dir.relative.empty() ? e.name : dir.relative + "/" + e.name;
        if (e.kind == EntryKind::directory) {
            if (e.is_symlink) continue;  // never followed
            if (dir.depth >= max_depth) {
                not_listed(relative, UnlistedReason::too_deep, std::string());
                continue;
            }
            if (options.list_directories) out.directories.push_back(relative);
            const std::size_t depth = dir.depth + 1;
            std::vector<DirEntry> entries;
            try {
                entries = reader.list_dir_kinds(join_path(skill_dir, relative));
            } catch (const Error& error) {
                // A subdirectory that vanished or cannot be listed (over the reader's listing limit,
                // no permission) costs only its own files, and the listing says so.
                not_listed(relative, UnlistedReason::unreadable, error.what());
                continue;
            }
            std::sort(entries.begin(), entries.end(), entry_before);
            stack.push_back({std::move(relative), depth, std::move(entries)});  // `dir` and `e` dangle from here
            continue;
        }
        if (e.kind != EntryKind::file) continue;
        if (dir.relative.empty() && e.name == detail::skill_file_name) continue;
        if (files.size() < cap) {
            files.push_back(std::move(relative));
        } else {
            ++out.omitted;
        }
    }
    std::sort(out.directories.begin(), out.directories.end());
    out.resources.reserve(files.size());
    for (auto& f : files) out.resources.push_back(SkillResource{std::move(f)});
    return out;
}

std::vector<SkillResource> list_skill_resources(const SkillReader& reader, std::string_view skill_dir) {
    return list_skill_resources(reader, skill_dir, ResourceListOptions{}).resources;
}

}  // namespace agentskills
