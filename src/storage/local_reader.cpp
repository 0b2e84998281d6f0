// agentskills-cpp — storage: LocalSkillReader, the local file system, and its confined read.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__linux__) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define AGENTSKILLS_HAVE_OPENAT2 1
#endif

#include <atomic>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/storage/reader.hpp"
#include "local_fs.hpp"

namespace agentskills {

namespace local = detail::local;

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

namespace {

// Reads the open regular file `fd` (at most `max_bytes`, 0 = no limit) with its fstat; errors name
// `relative` joined to `dir`. Both the plain and the confined read end here.
ReadResult read_descriptor(int fd, std::string_view dir, std::string_view relative, std::size_t max_bytes) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw_errno(errno, "cannot stat", join_path(dir, relative));
    if (!S_ISREG(st.st_mode)) {
        throw IoError(fmt::format("cannot read '{}': {}", join_path(dir, relative),
                                  S_ISDIR(st.st_mode) ? "it is a directory" : "it is not a regular file"));
    }
    const std::size_t limit = max_bytes == 0 ? std::numeric_limits<std::size_t>::max() - 1 : max_bytes;
    ReadResult result;
    result.stat = local::file_stat_of(st);
    const std::ptrdiff_t n =
        local::read_bounded(fd, static_cast<std::size_t>(st.st_size), limit, [&](std::size_t want, std::size_t) {
            result.data.resize(want);
            return result.data.data();
        });
    if (n < 0) throw_errno(errno, "cannot read", join_path(dir, relative));
    auto got = static_cast<std::size_t>(n);
    if (got > limit) {
        result.truncated = true;
        got = limit;
    }
    result.data.resize(got);
    return result;
}

}  // namespace

ReadResult LocalSkillReader::read_file(std::string_view path, std::size_t max_bytes) const {
    const std::string p = native_path(path);
    // O_NONBLOCK: opening a FIFO must not wait for a writer; we refuse it right after fstat.
    Fd fd(::open(p.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
    if (fd.get() < 0) {
        const int err = errno;
        if (err == ENOTDIR) throw NotFoundError(fmt::format("cannot read '{}': a parent is not a directory", path));
        throw_errno(err, "cannot read", path);
    }
    return read_descriptor(fd.get(), {}, path, max_bytes);
}

namespace {

// The one local listing behind list_dir and list_dir_kinds: `stats` adds an lstat of every child
// (sizes and times); links are followed either way.
std::vector<DirEntry> list_local(const std::string& p, std::string_view path, bool stats) {
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
    std::string names;
    std::vector<local::ListedEntry> items;
    if (const int err = local::list_directory(fd.release(), {.follow_symlinks = true, .stats = stats}, names, items);
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
        entry.special_target = item.special_target;
        entry.size = item.bytes;
        entry.mtime_ns = item.mtime_ns;
        out.push_back(std::move(entry));
    }
    return out;
}

}  // namespace

std::vector<DirEntry> LocalSkillReader::list_dir(std::string_view path) const {
    return list_local(native_path(path), path, true);
}

std::vector<DirEntry> LocalSkillReader::list_dir_kinds(std::string_view path) const {
    return list_local(native_path(path), path, false);
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
    out.special_target = out.kind == EntryKind::other;  // a FIFO, device or socket, reached
    return out;
}

// ---------------------------------------------------------------------------------------
// The confined read

namespace {

[[noreturn]] void refuse_link(std::string_view relative) {
    throw PathError(fmt::format("refused path '{}': it goes through a symlink", relative));
}

// What a failed open of `relative` below the skill directory means.
[[noreturn]] void open_failed(int err, std::string_view dir, std::string_view relative) {
    if (err == ELOOP || err == EXDEV) refuse_link(relative);  // a link on the way (or leading out)
    if (err == ENOENT || err == ENOTDIR) {
        throw NotFoundError(fmt::format("cannot read '{}': no such file below {}", relative, dir));
    }
    throw_errno(err, "cannot read", join_path(dir, relative));
}

constexpr int file_flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;

// Elsewhere than Linux 5.6+: one component at a time, each opened below the previous one
// without following a link (O_NOFOLLOW; a link is ELOOP, or ENOTDIR for a directory open).
int open_walking(int dir_fd, const std::string& relative) {
    Fd current(::dup(dir_fd));
    if (current.get() < 0) return -1;
    std::size_t start = 0;
    for (;;) {
        const std::size_t slash = relative.find('/', start);
        const std::string part = relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (slash == std::string::npos) {
            return ::openat(current.get(), part.c_str(), file_flags | O_NOFOLLOW);
        }
        const int next = ::openat(current.get(), part.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
        if (next < 0) {
            if (errno == ENOTDIR) {
                struct stat st {};
                if (::fstatat(current.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                    errno = ELOOP;
                }
            }
            return -1;
        }
        current = Fd(next);
        start = slash + 1;
    }
}

int open_beneath(int dir_fd, const std::string& relative) {
#if defined(AGENTSKILLS_HAVE_OPENAT2) && defined(SYS_openat2)
    static std::atomic<bool> unavailable{false};
    if (!unavailable.load(std::memory_order_relaxed)) {
        open_how how{};
        how.flags = static_cast<std::uint64_t>(file_flags);
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        const long fd = ::syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM)) return static_cast<int>(fd);
        unavailable.store(true, std::memory_order_relaxed);  // an older kernel, or a filter refusing it
    }
#endif
    return open_walking(dir_fd, relative);
}

}  // namespace

namespace {

// LocalSkillReader's confined directory: `dir` opened once (it may be reached through links: it
// is the boundary, opened as it is; nothing below it is followed). A failed open is kept and
// reported by each read, as read_file_beneath reports it.
class LocalBeneathDirectory final : public BeneathDirectory {
public:
    LocalBeneathDirectory(std::string_view dir, const std::string& native_dir)
        : dir_(dir),
          fd_(::open(native_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)),
          open_errno_(fd_.get() < 0 ? errno : 0) {}

    [[nodiscard]] ReadResult read_file(std::string_view relative, std::size_t max_bytes) const override {
        return read_confined(confined_path(relative), relative, max_bytes);
    }

    // read_file of `inside`, which passed confined_path (`relative` as the caller spelled it).
    [[nodiscard]] ReadResult read_confined(const std::string& inside, std::string_view relative,
                                           std::size_t max_bytes) const {
        if (fd_.get() < 0) {
            if (open_errno_ == ENOENT || open_errno_ == ENOTDIR) {
                throw NotFoundError(fmt::format("cannot read '{}': the directory {} is gone", relative, dir_));
            }
            throw_errno(open_errno_, "cannot open", dir_);
        }
        Fd fd(open_beneath(fd_.get(), inside));
        if (fd.get() < 0) open_failed(errno, dir_, inside);
        return read_descriptor(fd.get(), dir_, inside, max_bytes);
    }

private:
    std::string dir_;
    Fd fd_;
    int open_errno_;
};

}  // namespace

std::unique_ptr<const BeneathDirectory> LocalSkillReader::open_beneath(std::string_view dir) const {
    return std::make_unique<LocalBeneathDirectory>(dir, native_path(dir.empty() ? std::string_view(".") : dir));
}

ReadResult LocalSkillReader::read_file_beneath(std::string_view dir, std::string_view relative,
                                               std::size_t max_bytes) const {
    const std::string inside = confined_path(relative);  // refused before any directory is opened
    return LocalBeneathDirectory(dir, native_path(dir.empty() ? std::string_view(".") : dir))
        .read_confined(inside, relative, max_bytes);
}

}  // namespace agentskills
