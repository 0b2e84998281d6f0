// agentskills-cpp — lock files (the optional agentskills::lock component, OpenSSL's libcrypto):
// what `agentskills lock` writes and what a loader verifies skills against (docs/loading.md,
// "Lock files"). Plug it into discovery with FilesystemLoaderOptions::lock = make_lock_verifier(...).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "../base/skill.hpp"
#include "../catalog/governance.hpp"
#include "../catalog/loader.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

/// The format version this library writes and reads.
inline constexpr int SKILL_LOCK_VERSION = 1;
/// Largest lock file read, in bytes.
inline constexpr std::size_t SKILL_LOCK_MAX_BYTES = 16 * 1024 * 1024;
/// Most skills in one lock file.
inline constexpr std::size_t SKILL_LOCK_MAX_SKILLS = 100'000;
/// Most files digested per skill; a skill with more cannot be locked or verified.
inline constexpr std::size_t SKILL_LOCK_MAX_FILES = 10'000;
/// Largest file digested, in bytes; a larger one cannot be locked or verified.
inline constexpr std::size_t SKILL_LOCK_MAX_FILE_BYTES = 64 * 1024 * 1024;
/// Most bytes digested per skill (all its files); past it the skill cannot be locked or verified.
inline constexpr std::size_t SKILL_LOCK_MAX_SKILL_BYTES = 256 * 1024 * 1024;

/// One file of a locked skill: its path below the skill directory ('/'-separated) and
/// `sha256:` + 64 lowercase hex digits of its raw bytes.
struct LockedFile {
    std::string path;
    std::string digest;
    friend bool operator==(const LockedFile&, const LockedFile&) = default;
};

struct LockedSkill {
    std::string name;
    std::string source;             ///< the library root it was found in
    std::vector<LockedFile> files;  ///< every file, sorted by path (bytes)
};

struct SkillLock {
    std::vector<LockedSkill> skills;  ///< in catalog order
};

/// `sha256:` + 64 lowercase hex digits of `bytes` (OpenSSL EVP), the MCP extension's form.
[[nodiscard]] std::string sha256_digest(std::string_view bytes);

/// Digests every file below `skill_dir` (SKILL.md, resources, names starting with '.'), not
/// following directory links, down to SKILL_MAX_RESOURCE_DEPTH levels, sorted by path. Throws
/// IoError past SKILL_LOCK_MAX_FILES files, SKILL_RESOURCE_WALK_LIMIT directory entries or
/// SKILL_LOCK_MAX_SKILL_BYTES bytes, for a file over SKILL_LOCK_MAX_FILE_BYTES, and what the
/// reader throws.
[[nodiscard]] std::vector<LockedFile> digest_skill_files(const SkillReader& reader, std::string_view skill_dir);

/// A lock of the given skills (source = each manifest's `library`), every file read through `reader`.
[[nodiscard]] SkillLock make_skill_lock(const std::vector<SkillManifest>& skills, const SkillReader& reader);

/// A lock of the skills `loader` discovered, each skill's files read through the reader the
/// loader names for it (SkillLoader::reader_for: a `git:` root's, an archive's), else from the
/// local file system.
[[nodiscard]] SkillLock make_skill_lock(const std::vector<SkillManifest>& skills, const SkillLoader& loader);

/// As above, except that one skill whose files cannot be read or digested (a bound of
/// digest_skill_files, a file or directory the reader refuses) does not cost the others: it is
/// left out of the lock and added to `left_out` (path its skill file, reason `unreadable`, a
/// message naming the skill and the cause). `agentskills lock` uses this one.
[[nodiscard]] SkillLock make_skill_lock(const std::vector<SkillManifest>& skills, const SkillLoader& loader,
                                        std::vector<SkippedSkill>& left_out);

/// The lock file text: JSON indented by two spaces, keys sorted, one final newline:
///
///     {
///       "skills": [
///         {
///           "files": {
///             "SKILL.md": "sha256:...",
///             "scripts/run.sh": "sha256:..."
///           },
///           "name": "code-review",
///           "source": "/work/repo/.agents/skills"
///         }
///       ],
///       "version": 1
///     }
[[nodiscard]] std::string to_lock_text(const SkillLock& lock);

/// The file name `agentskills lock --output` is documented with. The npm `skills` CLI writes
/// its own, incompatible `skills-lock.json`; this name keeps the two apart in one project.
inline constexpr std::string_view SKILL_LOCK_FILE_NAME = "agentskills-lock.json";

/// What a lock file's text is (docs/loading.md, "Lock files").
enum class LockFormat {
    agentskills,  ///< this library's: a JSON object with `version` and a `skills` list
    skills_cli,   ///< the npm `skills` CLI's `skills-lock.json`: a `skills` map, a `computedHash` per skill
    other         ///< neither (not JSON, or another shape)
};

/// Which format `text` has, by its shape only (an `agentskills` text may still be refused by
/// parse_skill_lock). Never throws.
[[nodiscard]] LockFormat lock_format(std::string_view text) noexcept;

/// Reads a lock file's text. Throws ConfigurationError (naming the skill and key) for another
/// version, an unknown key, a malformed digest or path, two skills of one name (after NFKC), and
/// text over SKILL_LOCK_MAX_BYTES or with more than SKILL_LOCK_MAX_SKILLS skills. The `skills`
/// CLI's format is refused with a message that names it (its hashes are not verified).
[[nodiscard]] SkillLock parse_skill_lock(std::string_view text);
/// Reads a lock file (a regular file only); every error names the file.
[[nodiscard]] SkillLock load_skill_lock(const std::string& path);

/// A verifier for FilesystemLoaderOptions::lock: `not_locked` for a name the lock lacks;
/// `mismatch` naming the first file (by path) that changed, appeared or went missing; else
/// `verified`. Every file is read and digested on each discovery. Safe to call concurrently.
[[nodiscard]] LockVerifier make_lock_verifier(SkillLock lock);

}  // namespace agentskills
