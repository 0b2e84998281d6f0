// agentskills-cpp — skills read from the tree of a git commit (a branch, tag or commit id).
//
// Part of the optional library `agentskills::git` (CMake option AGENTSKILLS_GIT, libgit2).
// The reader sees one commit's tree, read from the object database: never the work tree or
// the index, so edits, checkouts and branch moves after `open` change nothing it returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../catalog/loader.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

/// Bounds of a git tree reader, checked from object headers before an object is loaded.
struct GitLimits {
    std::uint64_t max_blob_bytes = 16ULL << 20;  ///< largest blob read (16 MiB)
    std::uint64_t max_tree_bytes = 4ULL << 20;   ///< largest tree object loaded (4 MiB)
    std::size_t max_tree_entries = 65536;        ///< entries of one listed directory
    /// Largest commit or annotated tag object loaded while a ref is resolved (1 MiB): each one on
    /// the way, for a name and a revision expression ("main~1") alike, is checked from its object
    /// header before it is loaded (and at most 1,000 of them are loaded).
    std::uint64_t max_commit_bytes = 1ULL << 20;
};

/// A SkillReader over the tree of one commit of a local repository (bare or not).
///
/// Paths are relative POSIX paths inside the tree ("." is its root). Symbolic links
/// (mode 120000) are listed as `other` with `is_symlink`, submodules (gitlinks, mode
/// 160000) as `other`; neither is followed, and reading or listing them is an IoError.
/// Tree entries whose name is not one plain component are not listed; a tree out of git's
/// order or naming an entry twice (a hand-made object) is refused, for a listing and every path
/// through it (IoError). Blob contents are the raw objects (no line-ending or other filters).
/// `mtime_ns` is the commit time; `identity` the first 8 bytes of the object id. A blob over
/// `max_blob_bytes` is an IoError however small `max_bytes` is (a blob is loaded whole).
///
/// Every member is safe to call from several threads at once (libgit2 calls are serialized).
class GitTreeReader final : public SkillReader {
public:
    /// Opens `repo_path` (the work tree's top or the `.git` / bare directory itself; parent
    /// directories are not searched) and resolves `ref`: a branch, tag, reference, (abbreviated)
    /// commit id or `git describe` name, optionally followed by `~<n>`, `^<n>`, `^{}`,
    /// `^{commit}`, `^{tree}`, `^{blob}`, `^{tag}` or `^{object}` (walked here, not by libgit2's
    /// revparse), leading to a commit. A commit or annotated tag on the way over
    /// `max_commit_bytes` is an IoError, before it is loaded; so is a walk that would load more
    /// than 1,000 of them, and a repository with an `objects/info/alternates` file (it would read
    /// objects of other repositories).
    /// Throws NotFoundError (no repository, unknown ref, no such parent), ConfigurationError (an
    /// empty ref, one with NUL or starting with '-', other revision syntax: `@{...}`, `:/text`,
    /// `^{/regex}`, `:<n>:<path>`), IoError (a ref that names no commit, `<rev>:<path>` among
    /// them, anything else).
    [[nodiscard]] static std::shared_ptr<const GitTreeReader> open(const std::string& repo_path, std::string_view ref,
                                                                   GitLimits limits = {});

    ~GitTreeReader() override;
    GitTreeReader(const GitTreeReader&) = delete;
    GitTreeReader& operator=(const GitTreeReader&) = delete;

    [[nodiscard]] ReadResult read_file(std::string_view path, std::size_t max_bytes) const override;
    [[nodiscard]] std::vector<DirEntry> list_dir(std::string_view path) const override;
    [[nodiscard]] FileStat stat(std::string_view path) const override;

    /// The resolved commit's id, 40 hexadecimal digits (what makes the snapshot reproducible).
    [[nodiscard]] const std::string& commit_id() const noexcept;
    /// The ref as given to `open`.
    [[nodiscard]] const std::string& ref() const noexcept;
    /// The commit's committer time, ns since the epoch.
    [[nodiscard]] std::int64_t commit_time_ns() const noexcept;

private:
    struct Impl;
    explicit GitTreeReader(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// The parts of a `git:<repo-path>@<ref>[:<path>]` library root.
struct GitRoot {
    std::string repo_path;
    std::string ref;
    std::string path = ".";  ///< the library's directory inside the tree (normalized)

    friend bool operator==(const GitRoot&, const GitRoot&) = default;
};

/// Splits a `git:` root: the ref follows the last '@' (so a repository path may hold '@', a
/// ref may not), an optional `:<path>` follows the ref (refs cannot hold ':').
/// Returns nullopt when `root` does not start with "git:"; throws ConfigurationError for a
/// `git:` root without a repository path or ref, or with a refused path.
[[nodiscard]] std::optional<GitRoot> parse_git_root(std::string_view root);

/// The loader hook for `git:<repo-path>@<ref>[:<path>]` roots
/// (FilesystemLoaderOptions::sources.root_resolvers): the ref is resolved once, when the loader
/// is made, and the root reads that commit's tree. Its paths are
/// `git:<absolute repo path>@<commit id>!/<path>`. A repository or ref that does not exist is a
/// NotFoundError (a missing root); a malformed root a ConfigurationError. A relative repository
/// path is taken from the process's working directory.
[[nodiscard]] RootResolver git_root_source(GitLimits limits = {});

}  // namespace agentskills
