// agentskills-cpp — storage: path rules, the local, in-memory and mounted readers.
#include "agentskills/reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "local_fs.hpp"

namespace agentskills {

namespace local = detail::local;

FilePathResolver::~FilePathResolver() = default;
SkillReader::~SkillReader() = default;

// ---------------------------------------------------------------------------------------
// Path rules

namespace {

// Checks one component against the refusals shared by relative and virtual paths.
void check_component(std::string_view component, std::string_view whole) {
    if (component.front() == '~') {
        throw PathError(fmt::format("path '{}': a component may not start with '~'", whole));
    }
    if (component.size() >= 2 && component[1] == ':') {
        throw PathError(fmt::format("path '{}': drive-like component '{}' is refused", whole, component));
    }
}

void check_characters(std::string_view path) {
    if (path.empty()) throw PathError("empty path");
    if (path.find('\0') != std::string_view::npos) throw PathError("path contains a NUL byte");
    if (path.find('\\') != std::string_view::npos) {
        throw PathError(fmt::format("path '{}' contains a backslash", path));
    }
}

// Applies the components of `path` to `parts`; `..` above the start is an error.
void apply_components(std::string_view path, std::string_view whole, std::vector<std::string_view>& parts) {
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string_view::npos) next = path.size();
        std::string_view component = path.substr(pos, next - pos);
        pos = next + 1;
        if (component.empty() || component == ".") continue;
        if (component == "..") {
            if (parts.empty()) throw PathError(fmt::format("path '{}' climbs above its root", whole));
            parts.pop_back();
            continue;
        }
        check_component(component, whole);
        parts.push_back(component);
    }
}

std::string join_parts(const std::vector<std::string_view>& parts, bool rooted) {
    std::string out;
    for (auto part : parts) {
        if (!out.empty() || rooted) out += '/';
        out += part;
    }
    if (out.empty()) out = rooted ? "/" : ".";
    return out;
}

}  // namespace

std::string normalize_relative_path(std::string_view path) {
    check_characters(path);
    if (path.front() == '/') throw PathError(fmt::format("path '{}' is absolute; a relative path is required", path));
    std::vector<std::string_view> parts;
    apply_components(path, path, parts);
    return join_parts(parts, false);
}

std::string normalize_virtual_path(std::string_view path, std::string_view cwd) {
    check_characters(path);
    std::vector<std::string_view> parts;
    if (path.front() != '/') {
        check_characters(cwd);
        if (cwd.front() != '/') throw PathError(fmt::format("working directory '{}' is not a rooted path", cwd));
        apply_components(cwd, cwd, parts);
    }
    apply_components(path, path, parts);
    return join_parts(parts, true);
}

std::string join_path(std::string_view dir, std::string_view name) {
    if (name.empty()) return std::string(dir);
    if (dir.empty() || dir == ".") return std::string(name);
    std::string out(dir);
    if (out.back() != '/') out += '/';
    out += name;
    return out;
}

std::string_view path_basename(std::string_view path) noexcept {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    if (path == "/") return {};
    std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
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
            return FileStat{
                .kind = entry.kind, .is_symlink = entry.is_symlink, .size = entry.size, .mtime_ns = entry.mtime_ns};
        }
    }
    throw NotFoundError(fmt::format("'{}' does not exist", path));
}

// ---------------------------------------------------------------------------------------
// LocalSkillReader

namespace {

std::string c_path(std::string_view path) {
    if (path.empty()) throw PathError("empty path");
    if (path.find('\0') != std::string_view::npos) throw PathError("path contains a NUL byte");
    return std::string(path);
}

[[noreturn]] void throw_errno(int err, std::string_view what, std::string_view path) {
    if (err == ENOENT) throw NotFoundError(fmt::format("{} '{}': no such file or directory", what, path));
    throw IoError(fmt::format("{} '{}': {}", what, path, std::strerror(err)));
}

using local::Fd;
using local::identity_of;
using local::kind_of;
using local::mtime_of;

}  // namespace

LocalSkillReader::LocalSkillReader(std::string base_directory) : base_(std::move(base_directory)) {
    while (base_.size() > 1 && base_.back() == '/') base_.pop_back();
}

std::string LocalSkillReader::native_path(std::string_view path) const {
    std::string p = c_path(path);
    if (base_.empty() || p.front() == '/') return p;
    if (p == ".") return base_;
    return join_path(base_, p);
}

ReadResult LocalSkillReader::read_file(std::string_view path, std::size_t max_bytes) const {
    const std::string p = native_path(path);
    // O_NONBLOCK: opening a FIFO must not wait for a writer; we refuse it right after fstat.
    Fd fd(::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) {
        const int err = errno;
        if (err == ENOTDIR) throw NotFoundError(fmt::format("cannot read '{}': a parent is not a directory", path));
        throw_errno(err, "cannot read", path);
    }
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) throw_errno(errno, "cannot stat", path);
    if (!S_ISREG(st.st_mode)) {
        throw IoError(fmt::format("cannot read '{}': {}", path,
                                  S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file"));
    }
    const std::size_t limit = max_bytes == 0 ? std::numeric_limits<std::size_t>::max() - 1 : max_bytes;
    ReadResult result;
    const std::ptrdiff_t n =
        local::read_bounded(fd.get(), static_cast<std::size_t>(st.st_size), limit, [&](std::size_t want, std::size_t) {
            result.data.resize(want);
            return result.data.data();
        });
    if (n < 0) throw_errno(errno, "cannot read", path);
    auto got = static_cast<std::size_t>(n);
    if (got > limit) {
        result.truncated = true;
        got = limit;
    }
    result.data.resize(got);
    return result;
}

std::vector<DirEntry> LocalSkillReader::list_dir(std::string_view path) const {
    const std::string p = native_path(path);
    Fd fd(::open(p.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) {
        const int err = errno;
        if (err == ENOTDIR) {
            struct stat st {};
            if (::stat(p.c_str(), &st) == 0) throw IoError(fmt::format("cannot list '{}': not a directory", path));
            throw NotFoundError(fmt::format("cannot list '{}': a parent is not a directory", path));
        }
        throw_errno(err, "cannot list", path);
    }
    // Every child with an lstat (sizes and times), links followed: the one local listing.
    std::string names;
    std::vector<local::ListedEntry> items;
    if (const int err = local::list_directory(fd.release(), {.follow_symlinks = true, .stats = true}, names, items);
        err != 0) {
        throw_errno(err, "cannot list", path);
    }
    std::vector<DirEntry> out;
    out.reserve(items.size());
    for (const local::ListedEntry& item : items) {
        DirEntry entry;
        entry.name.assign(names, item.offset, item.size);
        entry.kind = item.kind;
        entry.is_symlink = item.is_symlink;
        entry.size = item.bytes;
        entry.mtime_ns = item.mtime_ns;
        out.push_back(std::move(entry));
    }
    return out;
}

FileStat LocalSkillReader::stat(std::string_view path) const {
    const std::string p = native_path(path);
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
        const int err = errno;
        if (err == ENOTDIR) throw NotFoundError(fmt::format("cannot stat '{}': a parent is not a directory", path));
        throw_errno(err, "cannot stat", path);
    }
    if (!S_ISLNK(st.st_mode)) return local::file_stat_of(st);  // the loader's fast paths report the same
    struct stat target {};
    if (::stat(p.c_str(), &target) != 0) {
        FileStat out = local::file_stat_of(st);  // a dangling link or a loop
        out.kind = EntryKind::other;
        out.size = 0;
        out.is_symlink = true;
        return out;
    }
    FileStat out = local::file_stat_of(target);
    out.is_symlink = true;
    return out;
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

// Whether normalize_relative_path(path) is `path` itself (and does not throw): not empty, no
// NUL or backslash, not rooted, and each component neither empty, `.`, `..`, `~...` nor drive-like.
bool already_normal(std::string_view path) noexcept {
    if (path.empty() || path.front() == '/') return false;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string_view::npos) next = path.size();
        const std::string_view c = path.substr(pos, next - pos);
        if (c.empty() || c == "." || c == ".." || c.front() == '~' || (c.size() >= 2 && c[1] == ':') ||
            c.find('\\') != std::string_view::npos || c.find('\0') != std::string_view::npos) {
            return false;
        }
        pos = next + 1;
    }
    return true;
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

void check_mount_name(std::string_view name) {
    auto refuse = [&](std::string_view why) {
        throw ConfigurationError(fmt::format("invalid mount name '{}': {}", name, why));
    };
    if (name.empty()) refuse("empty");
    if (name == "." || name == "..") refuse("not a name");
    if (name.find('/') != std::string_view::npos) refuse("must be one path component");
    if (name.find('\0') != std::string_view::npos) refuse("contains a NUL byte");
    if (name.find('\\') != std::string_view::npos) refuse("contains a backslash");
    if (name.front() == '~') refuse("starts with '~'");
    if (name.size() >= 2 && name[1] == ':') refuse("looks like a drive");
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

FileStat MountedReader::stat(std::string_view path) const {
    const Route r = route(path);
    if (r.is_top) return FileStat{.kind = EntryKind::directory};
    return r.reader->stat(r.rest);
}

}  // namespace agentskills
