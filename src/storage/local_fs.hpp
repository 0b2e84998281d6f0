// agentskills-cpp — private: the POSIX file-system calls of LocalSkillReader and of the
// loader's fast paths for local libraries, in one place.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentskills/storage/reader.hpp"

namespace agentskills::detail::local {

/// Owns a file descriptor (-1 = none).
class Fd {
public:
    explicit Fd(int fd = -1) noexcept : fd_(fd) {}
    ~Fd();
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    [[nodiscard]] int get() const noexcept { return fd_; }
    int release() noexcept { return std::exchange(fd_, -1); }

private:
    int fd_;
};

[[nodiscard]] EntryKind kind_of(mode_t mode) noexcept;
[[nodiscard]] std::int64_t mtime_of(const struct stat& st) noexcept;
/// The inode, mixed with the device so that two file systems do not collide.
[[nodiscard]] std::uint64_t identity_of(const struct stat& st) noexcept;
/// The FileStat of stat data (kind, size, mtime, identity; is_symlink false).
[[nodiscard]] FileStat file_stat_of(const struct stat& st) noexcept;

/// Reads from `fd` (a regular file of `file_size` bytes by fstat) at most `limit` + 1 bytes
/// into a buffer that `grow(n)` makes at least n bytes long and returns (its first `got`
/// bytes kept). Returns the number of bytes read, or -1 with errno set. Past `limit`, the
/// caller knows more follows.
template <class Grow>
std::ptrdiff_t read_bounded(int fd, std::size_t file_size, std::size_t limit, Grow&& grow);

/// One entry of a fast listing: its name at names[offset, offset + size).
struct NameKind {
    std::size_t offset = 0;
    std::size_t size = 0;
    EntryKind kind = EntryKind::other;
    bool is_symlink = false;
    bool special_target = false;  ///< as ListedEntry's
};

/// One child of a listed directory (list_directory): its name at names[offset, offset + size).
struct ListedEntry {
    std::size_t offset = 0;
    std::size_t size = 0;
    EntryKind kind = EntryKind::other;  ///< of the link's target when links are followed
    bool is_symlink = false;
    /// A followed link whose target is neither a file nor a directory (DirEntry::special_target).
    bool special_target = false;
    std::uint64_t bytes = 0;    ///< with `stats`: the size of a file (0 for anything else)
    std::int64_t mtime_ns = 0;  ///< with `stats`: of the target, or of a dangling link itself
};

/// What list_directory finds out about each child.
struct ListOptions {
    /// The kind of a symlink is its target's (a stat; a dangling link or a loop is `other`);
    /// otherwise a symlink is `other` and its target is not looked at.
    bool follow_symlinks = true;
    /// An lstat of every child for its size and time (and its kind: d_type is not used).
    bool stats = false;
};

/// The one directory listing of the local file system: the children of the directory open
/// as `dir_fd` (the call takes the descriptor over and closes it), without `.` and `..`
/// (other hidden names are listed), names appended to `names` and entries to `items`. Kinds
/// come from the entry's d_type where the file system reports it; DT_UNKNOWN (and DT_LNK
/// when links are followed) costs an lstat, and a child that vanished before it is left out.
/// Returns 0, or the errno of the call that failed (what was listed before stays in `items`).
[[nodiscard]] int list_directory(int dir_fd, const ListOptions& options, std::string& names,
                                 std::vector<ListedEntry>& items);

/// list_directory of `path`, opened with O_DIRECTORY; the errno of the open when it fails.
[[nodiscard]] int list_directory(const std::string& path, const ListOptions& options, std::string& names,
                                 std::vector<ListedEntry>& items);

/// The children of a local directory with their kinds (links followed), from the entries'
/// d_type where the file system reports it (a stat only for symlinks and unknown types; no
/// sizes or times): list_directory. Names go into one buffer. False on any error: the caller
/// then asks the reader, which reports it.
bool list_kinds(const std::string& path, std::string& names, std::vector<NameKind>& items);

/// What happened to a read_new_file call.
enum class FreshRead {
    read,     ///< `data` holds the bytes (valid until the next call on this thread)
    missing,  ///< ENOENT or ENOTDIR: no such file
    fallback  ///< anything else (a symlink, not a regular file, an error): ask the reader
};

/// Opens `path` without following a final symlink and without blocking, checks that it is a
/// regular file and reads at most `max_bytes` (0 = no limit) into a buffer each thread reuses.
/// With `dir_fd` >= 0, opens `relative` below it instead (the same file as `path`, whose directory
/// `dir_fd` is; a shorter path lookup).
FreshRead read_new_file(const std::string& path, std::size_t max_bytes, FileStat& st, std::string_view& data,
                        bool& truncated, int dir_fd = -1, const char* relative = nullptr);

/// lstat of `relative` below `dir_fd` (or of `path` when dir_fd < 0), as LocalSkillReader::stat
/// reports a path that is not a symlink; nullopt for a symlink or an error. `missing`: ENOENT
/// or ENOTDIR.
std::optional<FileStat> lstat_plain(const std::string& path, int dir_fd, const std::string& relative, bool& missing);

/// A directory opened for fstatat (-1 on failure).
[[nodiscard]] Fd open_directory(const std::string& path) noexcept;

/// The canonical form of `path` (symlinks resolved); nullopt when that fails.
[[nodiscard]] std::optional<std::string> canonical(const std::string& path);

/// `path` made absolute (against `base` when relative and `base` is given, else the working
/// directory) and lexically normal, without a trailing slash.
[[nodiscard]] std::string absolute_normal(const std::string& path, const std::string& base = {});

/// $HOME, absolute and lexically normal; "" when HOME is unset or empty.
[[nodiscard]] std::string home_directory();

/// The directories whose project folders a loader reads, nearer first: `start` (absolute), then
/// each parent, up to and including the nearest one holding `.git` (a file or a directory).
/// The walk stops below $HOME (home's folders are user folders) and after `max_levels`
/// directories. When it meets neither `.git` nor $HOME, or meets first a parent that every user
/// may write to (o+w, as /tmp), it is `start` alone.
[[nodiscard]] std::vector<std::string> project_levels(const std::string& start, std::size_t max_levels);

/// What a directory's own stat says about its entries: an entry added, removed or renamed
/// changes its ctime (and nothing can set a ctime back), so an equal stamp whose ctime is older
/// than the last listing by more than the timestamp granularity means the same entries.
struct DirectoryStamp {
    bool missing = false;        // the path did not exist (ENOENT / ENOTDIR)
    std::uint64_t identity = 0;  // device and inode (after following links)
    std::int64_t ctime_ns = 0;
    std::int64_t mtime_ns = 0;
    friend bool operator==(const DirectoryStamp&, const DirectoryStamp&) = default;
};
/// The stamp of the directory at `path` (following links); nullopt when it is not a
/// directory or cannot be inspected.
[[nodiscard]] std::optional<DirectoryStamp> directory_stamp(const std::string& path) noexcept;
/// The current time of the clock file timestamps are taken from (CLOCK_REALTIME), in ns.
[[nodiscard]] std::int64_t realtime_ns() noexcept;

// ---------------------------------------------------------------------------------------

template <class Grow>
std::ptrdiff_t read_bounded(int fd, std::size_t file_size, std::size_t limit, Grow&& grow) {
    // Read one byte past the limit (or past the size fstat reported) to learn whether more follows.
    std::size_t capacity = std::min(file_size, limit) + 1;
    std::size_t got = 0;
    char* buffer = grow(capacity, got);
    for (;;) {
        if (got == capacity) {
            if (got > limit) break;
            capacity = std::min(limit + 1, std::max<std::size_t>(capacity * 2, 4096));
            buffer = grow(capacity, got);
        }
        const ssize_t n = ::read(fd, buffer + got, capacity - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
        // All fstat reported, and the read stopped short of the byte past it: the end of the
        // file (a regular file reads short only there), without one more read to see 0.
        if (got == file_size && got < capacity) break;
    }
    return static_cast<std::ptrdiff_t>(got);
}

}  // namespace agentskills::detail::local
