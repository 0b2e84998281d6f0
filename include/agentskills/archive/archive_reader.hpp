// agentskills-cpp — skills packaged as zip archives (`.skill`, `.zip`), read in place.
//
// Part of the optional library `agentskills::archive` (CMake option AGENTSKILLS_ARCHIVES,
// libzip). The archive is never extracted: its central directory is checked once when it is
// opened, and files are decompressed into memory when they are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../base/errors.hpp"
#include "../catalog/loader.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

/// Bounds of one archive. Every one is checked before anything is decompressed; reads also
/// count the bytes they decompress and never go past the entry's checked size.
struct ArchiveLimits {
    std::uint64_t max_archive_bytes = 32ULL << 20;  ///< size of the archive file itself (32 MiB)
    std::size_t max_entries = 1024;                 ///< entries of the central directory (files and directories)
    std::uint64_t max_file_bytes = 16ULL << 20;     ///< uncompressed size of one file (16 MiB)
    std::uint64_t max_total_bytes = 64ULL << 20;    ///< uncompressed size of all files together (64 MiB)
    /// Largest uncompressed/compressed ratio of one file, checked for files of at least
    /// `ratio_threshold_bytes` (tiny files compress arbitrarily well and are harmless), and of
    /// the whole archive (all files' uncompressed size / the archive's size); 0 = no check.
    std::uint64_t max_ratio = 100;
    std::uint64_t ratio_threshold_bytes = 64ULL << 10;  ///< 64 KiB
    std::size_t max_name_bytes = 1024;                  ///< length of one entry name, in bytes
    std::size_t max_depth = 32;                         ///< directory levels of one entry name
};

/// Why an archive was refused. Stable: a loader maps each to a diagnostic.
enum class ArchiveProblem {
    too_large,         ///< the archive file is larger than max_archive_bytes
    malformed,         ///< not a zip archive, or libzip found it inconsistent
    too_many_entries,  ///< more than max_entries entries
    file_too_large,    ///< one file's uncompressed size is over max_file_bytes
    total_too_large,   ///< the files' uncompressed sizes add up to more than max_total_bytes
    ratio_too_high,    ///< a file's or the archive's compression ratio is over max_ratio (a bomb)
    size_mismatch,     ///< a file decompressed to another size than its header says
    unsafe_name,       ///< empty, `..`, `.`, absolute, drive, backslash, `~`, control character,
                       ///< invalid UTF-8, too long or too deep (also after NFKC)
    duplicate_name,    ///< two entries with one name, or names equal after NFKC
    conflicting_kind,  ///< a name that is a file and also a directory (`a` and `a/b`)
    symlink,           ///< a symbolic link entry (external attributes)
    not_regular,       ///< any other entry that is neither a regular file nor a directory
    encrypted,         ///< an encrypted entry
    unsupported,       ///< a compression method libzip cannot decompress
    no_skill,          ///< neither SKILL.md at the root nor one top-level directory holding one
};

/// The stable lower-case name of a problem ("too-large", "unsafe-name", ...).
[[nodiscard]] std::string_view archive_problem_name(ArchiveProblem problem) noexcept;

/// An archive that is refused as a whole. It is an IoError, so anything that already turns a
/// reader's IoError into a skipped skill handles it; `problem()` and `entry()` say more.
class ArchiveError : public IoError {
public:
    ArchiveError(ArchiveProblem problem, std::string entry, const std::string& message)
        : IoError(message), problem_(problem), entry_(std::move(entry)) {}
    [[nodiscard]] ArchiveProblem problem() const noexcept { return problem_; }
    /// The entry name concerned (valid UTF-8, control characters escaped), or "" for the archive.
    [[nodiscard]] const std::string& entry() const noexcept { return entry_; }

private:
    ArchiveProblem problem_;
    std::string entry_;
};

/// A SkillReader over the files of a zip archive. Paths are relative POSIX paths inside the
/// archive ("." is its root); directories exist explicitly or implicitly. The archive is
/// immutable once opened: listings and stats come from the index built by `open`, reads
/// decompress the entry (one at a time; reads are serialized by a mutex).
///
/// Every member is safe to call from several threads at once.
class ArchiveReader final : public SkillReader {
public:
    /// Checks and indexes an archive held in memory; the reader keeps the bytes.
    /// Throws ArchiveError when any entry or bound is refused.
    [[nodiscard]] static std::shared_ptr<const ArchiveReader> from_bytes(std::string bytes, ArchiveLimits limits = {});
    /// Reads the archive file at `path` (at most `max_archive_bytes` + 1 bytes, through
    /// LocalSkillReader, so a FIFO or device is refused) and checks it like `from_bytes`.
    /// Throws NotFoundError, IoError or ArchiveError.
    [[nodiscard]] static std::shared_ptr<const ArchiveReader> from_file(const std::string& path,
                                                                        ArchiveLimits limits = {});

    ~ArchiveReader() override;
    ArchiveReader(const ArchiveReader&) = delete;
    ArchiveReader& operator=(const ArchiveReader&) = delete;

    /// Reads a file; a directory is an IoError. Throws ArchiveError (size_mismatch) when the
    /// data decompresses to more or fewer bytes than the header says.
    [[nodiscard]] ReadResult read_file(std::string_view path, std::size_t max_bytes) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir(std::string_view path) const override;
    /// `identity` is the entry's CRC-32 mixed with its index; `mtime_ns` the entry's DOS time.
    [[nodiscard]] FileStat stat(std::string_view path) const override;

    /// Number of files (not directories) in the archive.
    [[nodiscard]] std::size_t file_count() const noexcept;
    /// Sum of the files' uncompressed sizes.
    [[nodiscard]] std::uint64_t total_bytes() const noexcept;

private:
    struct Impl;
    explicit ArchiveReader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// An archive that holds one skill, as a library child `.skill` / `.zip` file does.
struct ArchiveSkill {
    std::shared_ptr<const ArchiveReader> reader;
    /// The skill's directory inside the archive: its one top-level directory's name, or "."
    /// when SKILL.md is at the archive's root (the skill's name then comes from its frontmatter).
    std::string skill_dir;
    /// `skill_dir` + "/SKILL.md" (or "SKILL.md").
    std::string skill_file;
};

/// Opens an archive and finds its skill: SKILL.md at the root, or else exactly one top-level
/// entry that is a directory holding SKILL.md (anything else next to it is refused).
/// Throws ArchiveError (`no_skill` for any other layout) like ArchiveReader::from_bytes.
[[nodiscard]] ArchiveSkill open_archive_skill(std::string bytes, ArchiveLimits limits = {});
/// The same for an archive file (see ArchiveReader::from_file).
[[nodiscard]] ArchiveSkill open_archive_skill_file(const std::string& path, ArchiveLimits limits = {});

/// Whether a file name has an archive skill's extension (`.skill` or `.zip`, any case). Inline, so
/// that a program can tell an archive child without linking libzip (the CLI opens the archive
/// support only for such a child).
[[nodiscard]] inline bool is_archive_skill_name(std::string_view file_name) noexcept {
    const auto ends_with = [file_name](std::string_view suffix) {
        if (file_name.size() <= suffix.size()) return false;
        const std::string_view tail = file_name.substr(file_name.size() - suffix.size());
        for (std::size_t i = 0; i < tail.size(); ++i) {
            const char c = tail[i] >= 'A' && tail[i] <= 'Z' ? static_cast<char>(tail[i] - 'A' + 'a') : tail[i];
            if (c != suffix[i]) return false;
        }
        return true;
    };
    return ends_with(".skill") || ends_with(".zip");
}

/// The loader hook that makes a library child `x.skill` / `x.zip` a skill
/// (FilesystemLoaderOptions::sources.child_openers): the file is read through the loader's
/// reader (at most `max_archive_bytes` + 1 bytes) and opened with open_archive_skill. A refusal
/// is a SourceRefusedError with the code `archive-refused` and the message
/// `<archive path>: archive refused (<problem>): entry '<name>': <why>`.
[[nodiscard]] ChildOpener archive_child_source(ArchiveLimits limits = {});

}  // namespace agentskills
