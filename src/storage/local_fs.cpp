// agentskills-cpp — private: POSIX file-system calls shared by LocalSkillReader and discovery.
#include "local_fs.hpp"

#include <dirent.h>
#include <fcntl.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <memory>

namespace agentskills::detail::local {

namespace fs = std::filesystem;

Fd::~Fd() {
    if (fd_ >= 0) ::close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

EntryKind kind_of(mode_t mode) noexcept {
    if (S_ISREG(mode)) return EntryKind::file;
    if (S_ISDIR(mode)) return EntryKind::directory;
    return EntryKind::other;
}

std::int64_t mtime_of(const struct stat& st) noexcept {
    return static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_mtim.tv_nsec);
}

std::uint64_t identity_of(const struct stat& st) noexcept {
    auto ino = static_cast<std::uint64_t>(st.st_ino);
    auto dev = static_cast<std::uint64_t>(st.st_dev);
    return ino ^ (dev * 0x9E3779B97F4A7C15ULL);
}

FileStat file_stat_of(const struct stat& st) noexcept {
    FileStat out;
    out.kind = kind_of(st.st_mode);
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.mtime_ns = mtime_of(st);
    out.identity = identity_of(st);
    out.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
    return out;
}

int list_directory(int dir_fd, const ListOptions& options, std::string& names, std::vector<ListedEntry>& items) {
    if (dir_fd < 0) return EBADF;
    const Fd owned(dir_fd);
    // getdents64 straight into a buffer each thread keeps: readdir's fdopendir would add an fstat
    // and two fcntl calls per directory, and this lists every folder of every skill.
    constexpr std::size_t buffer_size = 32768;
    thread_local const std::unique_ptr<char[]> buffer_owner = std::make_unique_for_overwrite<char[]>(buffer_size);
    char* const buffer = buffer_owner.get();
    for (;;) {
        const ssize_t got = ::getdents64(dir_fd, buffer, buffer_size);
        if (got < 0) return errno;
        if (got == 0) return 0;
        for (std::size_t at = 0; at < static_cast<std::size_t>(got);) {
            dirent64 ent{};
            std::memcpy(&ent, buffer + at, offsetof(dirent64, d_name));  // the record may be unaligned
            const char* name = buffer + at + offsetof(dirent64, d_name);
            if (ent.d_reclen == 0) return EIO;  // a kernel never reports one; do not loop on it
            at += ent.d_reclen;
            if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
            ListedEntry item;
            item.offset = names.size();
            item.size = std::strlen(name);
            const unsigned char type = ent.d_type;
            if (!options.stats && type != DT_UNKNOWN && (type != DT_LNK || !options.follow_symlinks)) {
                // The entry's type is enough.
                item.kind = type == DT_DIR ? EntryKind::directory : type == DT_REG ? EntryKind::file : EntryKind::other;
                item.is_symlink = type == DT_LNK;
            } else {
                struct stat st {};
                if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished meanwhile
                if (S_ISLNK(st.st_mode)) {
                    item.is_symlink = true;
                    struct stat target {};
                    if (options.follow_symlinks && ::fstatat(dir_fd, name, &target, 0) == 0) {
                        st = target;
                        item.kind = kind_of(st.st_mode);
                        item.special_target = item.kind == EntryKind::other;
                    }  // else: not followed, dangling or a loop: other, with the link's own time
                } else {
                    item.kind = kind_of(st.st_mode);
                }
                if (options.stats) {
                    item.bytes = item.kind == EntryKind::file ? static_cast<std::uint64_t>(st.st_size) : 0;
                    item.mtime_ns = mtime_of(st);
                }
            }
            names.append(name, item.size);
            items.push_back(item);
        }
    }
}

int list_directory(const std::string& path, const ListOptions& options, std::string& names,
                   std::vector<ListedEntry>& items) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return errno;
    return list_directory(fd, options, names, items);
}

bool list_kinds(const std::string& path, std::string& names, std::vector<NameKind>& items) {
    std::vector<ListedEntry> listed;
    if (list_directory(path, ListOptions{.follow_symlinks = true, .stats = false}, names, listed) != 0) return false;
    items.reserve(items.size() + listed.size());
    for (const ListedEntry& e : listed) items.push_back({e.offset, e.size, e.kind, e.is_symlink, e.special_target});
    return true;
}

FreshRead read_new_file(const std::string& path, std::size_t max_bytes, FileStat& st, std::string_view& data,
                        bool& truncated, int dir_fd, const char* relative) {
    constexpr int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;
    Fd fd(dir_fd >= 0 && relative != nullptr ? ::openat(dir_fd, relative, flags) : ::open(path.c_str(), flags));
    if (fd.get() < 0) return errno == ENOENT || errno == ENOTDIR ? FreshRead::missing : FreshRead::fallback;
    struct stat info {};
    if (::fstat(fd.get(), &info) != 0 || !S_ISREG(info.st_mode)) return FreshRead::fallback;
    st = file_stat_of(info);
    // A buffer each thread reuses: fewer allocations, no zero-filling, less fragmentation.
    thread_local std::unique_ptr<char[]> buffer;
    thread_local std::size_t buffer_size = 0;
    const std::size_t limit = max_bytes == 0 ? std::numeric_limits<std::size_t>::max() - 1 : max_bytes;
    const std::ptrdiff_t n =
        read_bounded(fd.get(), static_cast<std::size_t>(info.st_size), limit, [&](std::size_t want, std::size_t got) {
            if (want > buffer_size) {
                auto bigger = std::make_unique_for_overwrite<char[]>(want);
                if (got != 0) std::memcpy(bigger.get(), buffer.get(), got);
                buffer = std::move(bigger);
                buffer_size = want;
            }
            return buffer.get();
        });
    if (n < 0) return FreshRead::fallback;
    auto got = static_cast<std::size_t>(n);
    truncated = got > limit;
    if (truncated) got = limit;
    data = std::string_view(buffer.get(), got);
    return FreshRead::read;
}

std::optional<FileStat> lstat_plain(const std::string& path, int dir_fd, const std::string& relative, bool& missing) {
    missing = false;
    struct stat info {};
    const int rc =
        dir_fd >= 0 ? ::fstatat(dir_fd, relative.c_str(), &info, AT_SYMLINK_NOFOLLOW) : ::lstat(path.c_str(), &info);
    if (rc != 0) {
        missing = errno == ENOENT || errno == ENOTDIR;
        return std::nullopt;
    }
    if (S_ISLNK(info.st_mode)) return std::nullopt;
    return file_stat_of(info);
}

Fd open_directory(const std::string& path) noexcept {
    return Fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

std::optional<std::string> canonical(const std::string& path) {
    std::error_code ec;
    fs::path target = fs::canonical(fs::path(path), ec);
    if (ec) return std::nullopt;
    return target.string();
}

std::string absolute_normal(const std::string& path, const std::string& base) {
    fs::path p = fs::path(path);
    if (p.is_relative() && !base.empty()) p = fs::path(base) / p;
    p = fs::absolute(p).lexically_normal();
    std::string s = p.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

std::string home_directory() {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return {};
    return absolute_normal(home);
}

namespace {

// Whether `dir` is a directory others may write to (S_IWOTH, as /tmp), after following links; a
// directory that cannot be inspected counts as one (it vouches for nothing either).
bool writable_by_all(const fs::path& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) return true;
    return (st.st_mode & S_IWOTH) != 0;
}

}  // namespace

std::vector<std::string> project_levels(const std::string& start, std::size_t max_levels) {
    const std::string home = home_directory();
    std::vector<std::string> levels;
    fs::path dir(start);
    for (std::size_t i = 0; i < max_levels; ++i) {
        if (i > 0 && dir.string() == home) return levels;  // home's folders are user folders
        // A directory above the start that every user may write to (/tmp) vouches for nothing:
        // neither a `.git` in it nor a home directory above it makes its folders the user's.
        if (i > 0 && writable_by_all(dir)) break;
        levels.push_back(dir.string());
        std::error_code ec;
        if (fs::exists(fs::symlink_status(dir / ".git", ec)) || dir.string() == home) return levels;
        fs::path parent = dir.parent_path();
        if (parent == dir) break;  // the file-system root, and no repository
        dir = std::move(parent);
    }
    return {start};  // neither a repository nor the home directory: the start alone
}

std::optional<DirectoryStamp> directory_stamp(const std::string& path) noexcept {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return DirectoryStamp{.missing = true};
        return std::nullopt;
    }
    if (!S_ISDIR(st.st_mode)) return std::nullopt;
    DirectoryStamp out;
    out.identity = identity_of(st);
    out.ctime_ns =
        static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(st.st_ctim.tv_nsec);
    out.mtime_ns = mtime_of(st);
    return out;
}

std::int64_t realtime_ns() noexcept {
    timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + static_cast<std::int64_t>(now.tv_nsec);
}

}  // namespace agentskills::detail::local
