// agentskills-cpp — storage: the SkillReader interface, path rules and the shipped readers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace agentskills {

enum class EntryKind { file, directory, other };

/// One direct child of a listed directory. `kind` is what a symlink points to (or `other`
/// for a dangling link); `is_symlink` says whether the entry itself is a link.
struct DirEntry {
    std::string name;
    EntryKind kind = EntryKind::file;
    bool is_symlink = false;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;  ///< modification time, ns since the epoch (0 if unknown)
    /// A symlink (`kind` `other`) whose target was reached and is a FIFO, device or socket, not
    /// a link that cannot be followed (dangling, a loop, no permission), which is `other` too.
    /// False for every other entry, and from readers that do not follow links.
    bool special_target = false;

    friend bool operator==(const DirEntry&, const DirEntry&) = default;
};

/// What `SkillReader::stat` knows about a path. `identity` changes when the file is replaced
/// (inode for local files; a generation counter for the in-memory reader).
struct FileStat {
    EntryKind kind = EntryKind::file;
    bool is_symlink = false;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t identity = 0;
    std::int64_t ctime_ns = 0;  ///< status change time, ns since the epoch (0 if unknown)
    /// As DirEntry::special_target: a symlink to a FIFO, device or socket (`kind` `other`).
    bool special_target = false;

    friend bool operator==(const FileStat&, const FileStat&) = default;
};

/// The bytes read from a file. `truncated`: the file holds more than the byte limit and
/// only the first `max_bytes` were read.
struct ReadResult {
    std::string data;
    bool truncated = false;
    /// What read_file_beneath knew of the file it read (for the local file system the open
    /// descriptor's fstat, so it describes these very bytes). read_file may leave it default
    /// (LocalSkillReader fills it the same way).
    FileStat stat = {};
};

/// A directory opened once for several confined reads below it (SkillReader::open_beneath).
/// Safe to read from several threads at once; it must not outlive the reader that made it.
class BeneathDirectory {
public:
    virtual ~BeneathDirectory();
    /// SkillReader::read_file_beneath(dir, relative, max_bytes) of the directory this stands for,
    /// with the same rules and errors.
    [[nodiscard]] virtual ReadResult read_file(std::string_view relative, std::size_t max_bytes) const = 0;
};

/// Lexical path handling of a reader's namespace (no I/O). A reader that has one takes
/// rooted virtual paths (`/mount/rest`); a reader without one takes relative POSIX paths.
class FilePathResolver {
public:
    virtual ~FilePathResolver();
    /// Resolves `path` against `cwd` into a canonical path of this namespace; throws PathError.
    [[nodiscard]] virtual std::string resolve(std::string_view path, std::string_view cwd = "/") const = 0;
};

/// Storage interface of the loader.
///
/// Thread safety: every member must be safe to call from several threads at once.
/// Errors: NotFoundError when the path does not exist, PathError for a refused path, IoError
/// for anything else. The loader turns these into SkippedSkill entries where it can.
class SkillReader {
public:
    virtual ~SkillReader();

    /// Reads a regular file, at most `max_bytes` bytes (0 = no limit). Must not block on
    /// FIFOs or devices: anything that is not a regular file is an IoError.
    [[nodiscard]] virtual ReadResult read_file(std::string_view path, std::size_t max_bytes) const = 0;

    /// Lists the direct children of a directory (any order; the loader sorts).
    [[nodiscard]] virtual std::vector<DirEntry> list_dir(std::string_view path) const = 0;

    /// list_dir for a caller that needs only each child's name, kind and `is_symlink` (a walk of
    /// a skill's resources): `size` and `mtime_ns` may be 0. The default is list_dir;
    /// LocalSkillReader takes the kinds from the directory entries and stats only symbolic links
    /// and entries of unknown type.
    [[nodiscard]] virtual std::vector<DirEntry> list_dir_kinds(std::string_view path) const { return list_dir(path); }

    /// Facts about one path. The default lists the parent directory; readers override it
    /// when they can do better. Throws NotFoundError when the path does not exist.
    [[nodiscard]] virtual FileStat stat(std::string_view path) const;

    /// The reader's path resolver, or nullptr for a plain reader (relative POSIX paths).
    [[nodiscard]] virtual const FilePathResolver* path_resolver() const noexcept { return nullptr; }

    /// Whether paths are the local file system's (absolute paths, symlinks resolved by the
    /// loader). Only LocalSkillReader says yes.
    [[nodiscard]] virtual bool is_local() const noexcept { return false; }

    /// The one confined read: the regular file `relative` below the directory `dir`, opened once
    /// relative to `dir` with no symbolic link at any step (dangling or not, leading in or out).
    /// `relative` must pass confined_path (no `..`, nothing absolute). PathError for a refused path
    /// or a symlink on the way, NotFoundError when it does not exist, IoError for anything else
    /// that is not a regular file (read without blocking) or cannot be read; at most `max_bytes`
    /// bytes (0 = no limit). The result's `stat` describes the file read. The default walks the
    /// components with stat(), refusing any `is_symlink`, and reads the last with read_file
    /// (fit for readers whose files cannot change under it); LocalSkillReader opens the file with
    /// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), or an O_NOFOLLOW walk of the components
    /// where the kernel lacks it, and reads that descriptor, so that a file swapped for a symlink
    /// while it is read is never followed.
    [[nodiscard]] virtual ReadResult read_file_beneath(std::string_view dir, std::string_view relative,
                                                       std::size_t max_bytes) const;

    /// The directory `dir` for several confined reads, each with read_file_beneath's rules. The
    /// default reads each file through read_file_beneath(dir, ...). LocalSkillReader opens `dir`
    /// once, here: every read is then below the directory found now, even if the path is
    /// renamed or replaced later (a failed open is reported by each read, with read_file_beneath's
    /// error). One skill's files, read one after the other, save a directory open and close each.
    [[nodiscard]] virtual std::unique_ptr<const BeneathDirectory> open_beneath(std::string_view dir) const;
};

using SkillReaderPtr = std::shared_ptr<const SkillReader>;

// ---------------------------------------------------------------------------------------
// Path rules (lexical, no I/O; every function throws PathError on a refused path).

/// Normalizes a relative POSIX path of a plain reader: collapses `.`, `..` and duplicate
/// slashes. Refuses empty, NUL, backslash, absolute, a drive (`C:`, any `x:` component),
/// a component starting with `~`, and `..` that climbs above the root. "." stays ".".
[[nodiscard]] std::string normalize_relative_path(std::string_view path);

/// Resolves a rooted virtual path against `cwd` (itself rooted). `..` above `/` is an error;
/// the other refusals of normalize_relative_path apply. The result starts with '/'.
[[nodiscard]] std::string normalize_virtual_path(std::string_view path, std::string_view cwd = "/");

/// A path inside a skill directory as read_file_beneath takes it: the refusals of
/// normalize_relative_path, and a `..` component wherever it is (a path inside a skill never
/// needs one); empty components and `.` are dropped. Returns the components joined with '/';
/// throws PathError ("refused path 'P': WHY"), also for a path that names no file.
[[nodiscard]] std::string confined_path(std::string_view path);

/// Joins `dir` and a relative `name` with one '/' ("." + "x" = "x", "/" + "x" = "/x").
[[nodiscard]] std::string join_path(std::string_view dir, std::string_view name);

/// The last component of a path ("a/b/" -> "b").
[[nodiscard]] std::string_view path_basename(std::string_view path) noexcept;

/// The media type a file's name suggests (`text/markdown` for `.md`, `image/png`, ...; the
/// extension in any case); for an unknown one `text/plain` when `is_text`, else
/// `application/octet-stream`.
[[nodiscard]] std::string_view media_type_for(std::string_view file_name, bool is_text) noexcept;

// ---------------------------------------------------------------------------------------

/// The local file system. Paths are native paths; relative ones resolve from the process's
/// working directory, or from `base_directory` when one is given (handy as a MountedReader
/// child: `{"local", std::make_shared<LocalSkillReader>("/app")}`). The base is not a
/// sandbox: absolute paths and symlinks still reach the whole file system.
class LocalSkillReader final : public SkillReader {
public:
    LocalSkillReader() = default;
    explicit LocalSkillReader(std::string base_directory);
    [[nodiscard]] ReadResult read_file(std::string_view path, std::size_t max_bytes) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir(std::string_view path) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir_kinds(std::string_view path) const override;
    [[nodiscard]] FileStat stat(std::string_view path) const override;
    [[nodiscard]] bool is_local() const noexcept override { return true; }
    [[nodiscard]] ReadResult read_file_beneath(std::string_view dir, std::string_view relative,
                                               std::size_t max_bytes) const override;
    [[nodiscard]] std::unique_ptr<const BeneathDirectory> open_beneath(std::string_view dir) const override;
    /// The directory relative paths resolve from ("" = the working directory).
    [[nodiscard]] const std::string& base_directory() const noexcept { return base_; }

private:
    [[nodiscard]] std::string native_path(std::string_view path) const;
    std::string base_;
};

/// An in-memory tree of files (tests, skills compiled into a binary, object-store-like
/// storage). Paths are relative POSIX paths; directories exist implicitly.
/// Safe to read and modify from several threads.
class MemorySkillReader final : public SkillReader {
public:
    MemorySkillReader() = default;
    /// Adds or replaces a file (its parent directories appear implicitly).
    void add_file(std::string_view path, std::string content, std::int64_t mtime_ns = 0);
    /// Adds an empty directory.
    void add_directory(std::string_view path);
    /// Removes a file or a whole directory; returns whether anything was removed.
    bool remove(std::string_view path);

    [[nodiscard]] ReadResult read_file(std::string_view path, std::size_t max_bytes) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir(std::string_view path) const override;
    [[nodiscard]] FileStat stat(std::string_view path) const override;

private:
    struct File {
        std::string content;
        std::int64_t mtime_ns = 0;
        std::uint64_t generation = 0;
    };
    mutable std::mutex mutex_;
    std::map<std::string, File, std::less<>> files_;
    std::map<std::string, int, std::less<>> dirs_;  // explicit empty directories
    std::uint64_t generation_ = 0;
};

/// Routes rooted virtual paths `/<mount>/<rest>` to child readers, which get `<rest>` as a
/// relative path ("." for the mount root). Unknown mounts are NotFoundError, with no prefix
/// match and no fallback; a mount root or `/` cannot be read as a file; child errors
/// propagate unchanged. `list_dir("/")` lists the mounts as directories.
class MountedReader final : public SkillReader, public FilePathResolver {
public:
    /// Throws ConfigurationError for a mount name that is not one canonical component or for
    /// a null reader.
    explicit MountedReader(std::map<std::string, SkillReaderPtr, std::less<>> mounts, std::string cwd = "/");

    [[nodiscard]] ReadResult read_file(std::string_view path, std::size_t max_bytes) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir(std::string_view path) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir_kinds(std::string_view path) const override;
    [[nodiscard]] FileStat stat(std::string_view path) const override;
    /// Routes `dir` to its mount, whose reader reads `relative` below it.
    [[nodiscard]] ReadResult read_file_beneath(std::string_view dir, std::string_view relative,
                                               std::size_t max_bytes) const override;
    /// Routes `dir` to its mount, whose reader opens it.
    [[nodiscard]] std::unique_ptr<const BeneathDirectory> open_beneath(std::string_view dir) const override;
    [[nodiscard]] const FilePathResolver* path_resolver() const noexcept override { return this; }
    [[nodiscard]] std::string resolve(std::string_view path, std::string_view cwd = "/") const override;

    [[nodiscard]] const std::string& cwd() const noexcept { return cwd_; }

private:
    struct Route {
        const SkillReader* reader = nullptr;
        std::string rest;     // "." for the mount root
        bool is_top = false;  // "/" itself
    };
    [[nodiscard]] Route route(std::string_view path) const;

    std::map<std::string, SkillReaderPtr, std::less<>> mounts_;
    std::string cwd_;
};

}  // namespace agentskills
