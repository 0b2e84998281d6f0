// agentskills-cpp — storage: the SkillReader defaults, the in-memory and the mounted reader.
#include "agentskills/storage/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "local_fs.hpp"
#include "path_rules.hpp"

namespace agentskills {

namespace local = detail::local;

FilePathResolver::~FilePathResolver() = default;
SkillReader::~SkillReader() = default;
BeneathDirectory::~BeneathDirectory() = default;

namespace {

// SkillReader::open_beneath's default: each read is the reader's read_file_beneath.
class ReadEachBeneath final : public BeneathDirectory {
public:
    ReadEachBeneath(const SkillReader& reader, std::string_view dir) : reader_(reader), dir_(dir) {}
    [[nodiscard]] ReadResult read_file(std::string_view relative, std::size_t max_bytes) const override {
        return reader_.read_file_beneath(dir_, relative, max_bytes);
    }

private:
    const SkillReader& reader_;
    std::string dir_;
};

}  // namespace

std::unique_ptr<const BeneathDirectory> SkillReader::open_beneath(std::string_view dir) const {
    return std::make_unique<ReadEachBeneath>(*this, dir);
}

namespace {

// The directory part of a path, in the path's own namespace ("a" -> ".", "/a" -> "/").
std::string path_parent(std::string_view path) {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

}  // namespace

FileStat SkillReader::stat(std::string_view path) const {
    std::string_view trimmed = path;
    while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.remove_suffix(1);
    if (trimmed == "." || trimmed == "/") {
        (void)list_dir(trimmed);  // throws when the root itself is not there
        return FileStat{.kind = EntryKind::directory};
    }
    const std::string_view name = path_basename(trimmed);
    for (const DirEntry& entry : list_dir(path_parent(trimmed))) {
        if (entry.name == name) {
            return FileStat{.kind = entry.kind,
                            .is_symlink = entry.is_symlink,
                            .size = entry.size,
                            .mtime_ns = entry.mtime_ns,
                            .special_target = entry.special_target};
        }
    }
    throw NotFoundError(fmt::format("'{}' does not exist", path));
}

ReadResult SkillReader::read_file_beneath(std::string_view dir, std::string_view relative,
                                          std::size_t max_bytes) const {
    const std::string inside = confined_path(relative);
    // A reader whose namespace has no links we can follow: refuse any on the way.
    std::string current(dir.empty() ? std::string_view(".") : dir);
    FileStat st;
    std::size_t start = 0;
    for (;;) {
        const std::size_t slash = inside.find('/', start);
        current = join_path(current, std::string_view(inside).substr(
                                         start, slash == std::string::npos ? std::string::npos : slash - start));
        st = stat(current);  // NotFoundError when it is not there
        if (st.is_symlink) throw PathError(fmt::format("refused path '{}': it goes through a symlink", relative));
        if (slash == std::string::npos) break;
        if (st.kind != EntryKind::directory) {
            throw NotFoundError(fmt::format("cannot read '{}': a parent is not a directory", relative));
        }
        start = slash + 1;
    }
    if (st.kind != EntryKind::file) {
        throw IoError(fmt::format("cannot read '{}': {}", current,
                                  st.kind == EntryKind::directory ? "it is a directory" : "it is not a regular file"));
    }
    ReadResult result = read_file(current, max_bytes);
    result.stat = st;
    return result;
}

// ---------------------------------------------------------------------------------------
// MemorySkillReader

namespace {

// Visits the keys of `map` below directory `dir` ("" prefix for ".").
template <class Map, class F>
void for_each_below(const Map& map, const std::string& prefix, F&& f) {
    for (auto it = map.lower_bound(prefix); it != map.end(); ++it) {
        const std::string& key = it->first;
        if (key.compare(0, prefix.size(), prefix) != 0) break;
        if (key.size() == prefix.size()) continue;  // the directory itself
        f(std::string_view(key).substr(prefix.size()), it->second);
    }
}

std::string dir_prefix(std::string_view dir) { return dir == "." ? std::string() : std::string(dir) + "/"; }

// Whether normalize_relative_path(path) is `path` itself (and does not throw): not rooted, and
// the one scanner finds no fault with empty and `.` components refused (nothing to drop).
bool already_normal(std::string_view path) noexcept {
    if (path.empty() || path.front() == '/') return false;
    return detail::scan_path(path, {.refuse_empty_components = true}, nullptr).fault == detail::PathFault::none;
}

// The key of `path` in the maps: `path` itself when it is already normal (no copy), else its
// normal form, kept in `owned`. Throws PathError as normalize_relative_path does.
std::string_view memory_key(std::string_view path, std::string& owned) {
    if (already_normal(path)) return path;
    owned = normalize_relative_path(path);
    return owned;
}

}  // namespace

void MemorySkillReader::add_file(std::string_view path, std::string content, std::int64_t mtime_ns) {
    std::string key = normalize_relative_path(path);
    if (key == ".") throw PathError("the root of a memory reader cannot be a file");
    std::lock_guard lock(mutex_);
    File& file = files_[key];
    file.content = std::move(content);
    file.mtime_ns = mtime_ns;
    file.generation = ++generation_;
}

void MemorySkillReader::add_directory(std::string_view path) {
    std::string key = normalize_relative_path(path);
    if (key == ".") return;
    std::lock_guard lock(mutex_);
    dirs_[key] = 1;
}

bool MemorySkillReader::remove(std::string_view path) {
    std::string key = normalize_relative_path(path);
    std::lock_guard lock(mutex_);
    bool removed = false;
    const std::string prefix = dir_prefix(key);
    auto erase_below = [&](auto& map) {
        if (key != ".") removed |= map.erase(key) > 0;
        auto it = map.lower_bound(prefix);
        while (it != map.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
            it = map.erase(it);
            removed = true;
        }
    };
    erase_below(files_);
    erase_below(dirs_);
    return removed;
}

ReadResult MemorySkillReader::read_file(std::string_view path, std::size_t max_bytes) const {
    std::string owned;
    const std::string_view key = memory_key(path, owned);
    std::lock_guard lock(mutex_);
    auto it = files_.find(key);
    if (it == files_.end()) {
        bool is_dir = key == "." || dirs_.count(key) > 0;
        const std::string prefix = dir_prefix(key);
        auto below = files_.lower_bound(prefix);
        if (below != files_.end() && below->first.compare(0, prefix.size(), prefix) == 0) is_dir = true;
        if (is_dir) throw IoError(fmt::format("cannot read '{}': it is a directory", path));
        throw NotFoundError(fmt::format("cannot read '{}': no such file", path));
    }
    const std::string& content = it->second.content;
    ReadResult result;
    if (max_bytes != 0 && content.size() > max_bytes) {
        result.data = content.substr(0, max_bytes);
        result.truncated = true;
    } else {
        result.data = content;
    }
    return result;
}

std::vector<DirEntry> MemorySkillReader::list_dir(std::string_view path) const {
    std::string owned;
    const std::string_view key = memory_key(path, owned);
    const std::string prefix = dir_prefix(key);
    std::lock_guard lock(mutex_);
    if (files_.count(key) > 0) throw IoError(fmt::format("cannot list '{}': not a directory", path));
    // Each name once, sorted; a file and a directory of one name (a file `a` beside files under
    // `a/`) list as the file.
    std::vector<DirEntry> out;
    bool exists = key == "." || dirs_.count(key) > 0;
    auto add_dir = [&](std::string_view rest) {
        exists = true;
        const std::string_view name = rest.substr(0, rest.find('/'));
        // The files below one directory are next to each other in the map: most repeats end here.
        if (out.empty() || out.back().name != name)
            out.push_back(DirEntry{.name = std::string(name), .kind = EntryKind::directory});
    };
    for_each_below(files_, prefix, [&](std::string_view rest, const File& file) {
        if (rest.find('/') != std::string_view::npos) {
            add_dir(rest);
            return;
        }
        exists = true;
        out.push_back(DirEntry{.name = std::string(rest),
                               .kind = EntryKind::file,
                               .size = static_cast<std::uint64_t>(file.content.size()),
                               .mtime_ns = file.mtime_ns});
    });
    for_each_below(dirs_, prefix, [&](std::string_view rest, int) { add_dir(rest); });
    if (!exists) throw NotFoundError(fmt::format("cannot list '{}': no such directory", path));
    // By name, the file of a name before its directories; then one entry a name.
    std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) {
        if (a.name != b.name) return a.name < b.name;
        return a.kind == EntryKind::file && b.kind != EntryKind::file;
    });
    out.erase(
        std::unique(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name == b.name; }),
        out.end());
    return out;
}

FileStat MemorySkillReader::stat(std::string_view path) const {
    std::string owned;
    const std::string_view key = memory_key(path, owned);
    {
        std::lock_guard lock(mutex_);
        auto it = files_.find(key);
        if (it != files_.end()) {
            return FileStat{.kind = EntryKind::file,
                            .size = static_cast<std::uint64_t>(it->second.content.size()),
                            .mtime_ns = it->second.mtime_ns,
                            .identity = it->second.generation};
        }
        if (key == "." || dirs_.count(key) > 0) return FileStat{.kind = EntryKind::directory};
        const std::string prefix = dir_prefix(key);
        auto below = files_.lower_bound(prefix);
        if (below != files_.end() && below->first.compare(0, prefix.size(), prefix) == 0) {
            return FileStat{.kind = EntryKind::directory};
        }
        auto below_dir = dirs_.lower_bound(prefix);
        if (below_dir != dirs_.end() && below_dir->first.compare(0, prefix.size(), prefix) == 0) {
            return FileStat{.kind = EntryKind::directory};
        }
    }
    throw NotFoundError(fmt::format("'{}' does not exist", path));
}

// ---------------------------------------------------------------------------------------
// MountedReader

namespace {

[[noreturn]] void refuse_mount_name(std::string_view name, std::string_view why) {
    throw ConfigurationError(fmt::format("invalid mount name '{}': {}", name, why));
}

void check_mount_name(std::string_view name) {
    // The path rules' scanner, for a name that must be one component of a path.
    const detail::PathScan scan = detail::scan_path(name, {.refuse_empty_components = true}, nullptr);
    switch (scan.fault) {
        case detail::PathFault::empty:
            refuse_mount_name(name, "empty");
        case detail::PathFault::nul:
            refuse_mount_name(name, "contains a NUL byte");
        case detail::PathFault::backslash:
            refuse_mount_name(name, "contains a backslash");
        case detail::PathFault::tilde:
            refuse_mount_name(name, "starts with '~'");
        case detail::PathFault::drive:
            refuse_mount_name(name, "looks like a drive");
        case detail::PathFault::dot:
        case detail::PathFault::parent:
        case detail::PathFault::climbs:
            refuse_mount_name(name, scan.components == 1 ? "not a name" : "must be one path component");
        case detail::PathFault::empty_component:
        case detail::PathFault::control:
            refuse_mount_name(name, "must be one path component");
        case detail::PathFault::none:
            break;
    }
    if (scan.components != 1) refuse_mount_name(name, "must be one path component");
}

}  // namespace

MountedReader::MountedReader(std::map<std::string, SkillReaderPtr, std::less<>> mounts, std::string cwd)
    : mounts_(std::move(mounts)) {
    for (const auto& [name, reader] : mounts_) {
        check_mount_name(name);
        if (!reader) throw ConfigurationError(fmt::format("mount '{}' has no reader", name));
    }
    try {
        cwd_ = normalize_virtual_path(cwd.empty() ? std::string_view("/") : std::string_view(cwd), "/");
    } catch (const PathError& e) {
        throw ConfigurationError(fmt::format("invalid working directory of a MountedReader: {}", e.what()));
    }
}

std::string MountedReader::resolve(std::string_view path, std::string_view cwd) const {
    return normalize_virtual_path(path, cwd);
}

MountedReader::Route MountedReader::route(std::string_view path) const {
    const std::string resolved = normalize_virtual_path(path, cwd_);
    if (resolved == "/") {
        Route top;
        top.is_top = true;
        return top;
    }
    const std::string_view rest_of = std::string_view(resolved).substr(1);
    const std::size_t slash = rest_of.find('/');
    const std::string_view mount = rest_of.substr(0, slash);
    auto it = mounts_.find(mount);
    if (it == mounts_.end()) throw NotFoundError(fmt::format("'{}': no mount named '{}'", path, mount));
    Route r;
    r.reader = it->second.get();
    r.rest = slash == std::string_view::npos ? std::string(".") : std::string(rest_of.substr(slash + 1));
    return r;
}

ReadResult MountedReader::read_file(std::string_view path, std::size_t max_bytes) const {
    const Route r = route(path);
    if (r.is_top) throw IoError("cannot read '/': it is the directory of mounts");
    if (r.rest == ".") throw IoError(fmt::format("cannot read '{}': it is a mount root", path));
    return r.reader->read_file(r.rest, max_bytes);
}

std::vector<DirEntry> MountedReader::list_dir(std::string_view path) const {
    const Route r = route(path);
    if (r.is_top) {
        std::vector<DirEntry> out;
        out.reserve(mounts_.size());
        for (const auto& [name, reader] : mounts_) out.push_back(DirEntry{.name = name, .kind = EntryKind::directory});
        return out;
    }
    return r.reader->list_dir(r.rest);
}

std::vector<DirEntry> MountedReader::list_dir_kinds(std::string_view path) const {
    const Route r = route(path);
    if (r.is_top) return list_dir(path);
    return r.reader->list_dir_kinds(r.rest);
}

FileStat MountedReader::stat(std::string_view path) const {
    const Route r = route(path);
    if (r.is_top) return FileStat{.kind = EntryKind::directory};
    return r.reader->stat(r.rest);
}

ReadResult MountedReader::read_file_beneath(std::string_view dir, std::string_view relative,
                                            std::size_t max_bytes) const {
    const Route r = route(dir);
    if (r.is_top) throw PathError(fmt::format("refused path '{}': '/' is the directory of mounts", relative));
    return r.reader->read_file_beneath(r.rest, relative, max_bytes);
}

std::unique_ptr<const BeneathDirectory> MountedReader::open_beneath(std::string_view dir) const {
    const Route r = route(dir);
    if (r.is_top) return SkillReader::open_beneath(dir);  // each read refuses '/', as read_file_beneath does
    return r.reader->open_beneath(r.rest);
}

}  // namespace agentskills
