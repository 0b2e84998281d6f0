// agentskills-cpp MCP server — the skill index: what is served of each skill (files, digests,
// frontmatter, the entry's JSON text), read through the loader's SkillReader, and the byte cache.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "../shared/internal.hpp"
#include "agentskills/base/skill.hpp"
#include "agentskills/storage/reader.hpp"

namespace agentskills::mcp::detail {

/// What a file looked like when its bytes were read (the reader's FileStat of the very file read):
/// enough to tell, with one stat, whether it changed since (size, identity, modification and, for
/// local files, change time).
struct FileVersion {
    std::uint64_t size = 0;
    std::uint64_t identity = 0;
    std::int64_t mtime_ns = 0;
    std::int64_t ctime_ns = 0;  ///< local files only (0 elsewhere)
    /// The version may be trusted without reading the file again: its times are older than the
    /// read by more than the file system's timestamp granularity (else a write in the same tick
    /// could leave every field unchanged, the "racy" case, and the file is re-read every time).
    bool trusted = false;

    [[nodiscard]] bool same_file_state(const FileVersion& o) const noexcept {
        return size == o.size && identity == o.identity && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
    }
};

/// Bytes kept in memory under the server's byte budget; giving them back releases the budget.
class CachedBytes {
public:
    CachedBytes(std::string bytes, std::shared_ptr<std::atomic<std::uint64_t>> used);
    ~CachedBytes();
    CachedBytes(const CachedBytes&) = delete;
    CachedBytes& operator=(const CachedBytes&) = delete;
    [[nodiscard]] const std::string& bytes() const noexcept { return bytes_; }

private:
    std::string bytes_;
    std::shared_ptr<std::atomic<std::uint64_t>> used_;
};

/// Where the bytes of one skill's files come from: the loader's reader for that skill, through
/// the library's one confined read (SkillReader::read_file_beneath: no symbolic link at any step,
/// no FIFO or device waited on, so a file swapped for a link after listing is refused).
class FileSource {
public:
    /// `reader` null = the local file system.
    explicit FileSource(SkillReaderPtr reader);

    /// Reads the regular file `rel` below the skill directory `root` whole into `data` (at most
    /// `limit` bytes, else throws) and reports its version. Throws std::runtime_error with a
    /// sentence when it cannot be read or is no longer a regular file.
    void read(const std::string& root, const std::string& rel, std::uint64_t limit, std::string& data,
              FileVersion& version) const;
    /// The same read below `dir`, the skill directory `root` opened once (open_beneath) for all
    /// of its files.
    void read(const BeneathDirectory& dir, const std::string& root, const std::string& rel, std::uint64_t limit,
              std::string& data, FileVersion& version) const;
    /// The skill directory `root` for several reads (the reader's open_beneath); throws
    /// std::runtime_error with a sentence.
    [[nodiscard]] std::unique_ptr<const BeneathDirectory> open_beneath(const std::string& root) const;
    /// The file's version now, or nullopt when it is gone, a link or no longer a regular file.
    [[nodiscard]] std::optional<FileVersion> stat(const std::string& path) const;
    [[nodiscard]] const SkillReaderPtr& reader() const noexcept { return reader_; }

private:
    SkillReaderPtr reader_;
};

/// Byte budget of the cache shared by every index of one server.
struct ByteBudget {
    std::uint64_t limit = 0;
    std::shared_ptr<std::atomic<std::uint64_t>> used = std::make_shared<std::atomic<std::uint64_t>>(0);
};

struct SkillFile {
    std::string rel;   // '/'-separated, raw bytes
    std::string uri;   // the skill's root URI, then the percent-encoded segments of rel
    std::string path;  // path in the reader's namespace
    std::string digest;
    std::uint64_t size = 0;
    bool text = false;
    std::string mime;
    FileVersion version;
    std::shared_ptr<const CachedBytes> cached;  // null when over the byte budget
};

struct SkillEntry {
    SkillManifest manifest;
    std::string name;      // the catalog name, `group:skill` for a skill of a plugin or group
    std::string root_uri;  // skill://NAME, or skill://GROUP/SKILL for `group:skill` (skill_root_uri)
    std::string uri;       // root_uri + "/SKILL.md"
    nlohmann::json frontmatter;
    std::vector<SkillFile> files;               // SKILL.md first, then by path
    std::map<std::string, std::size_t> by_rel;  // rel -> index in files
    std::set<std::string> dirs;                 // rel paths of directories, "" = the root
    std::string json_text;  // the Skill entry as JSON text (an entry never changes; a changed skill is a new one)
    std::shared_ptr<const FileSource> source;
};

using EntryPtr = std::shared_ptr<const SkillEntry>;

/// Files already indexed, by path: build_entry takes a file's digest from here instead of
/// hashing it again when its version is the same and trusted.
using KnownFiles = std::map<std::string, const SkillFile*, std::less<>>;

/// Lists, reads, hashes and checks one skill through `source`; throws a sentence when it cannot
/// be served. `known` (may be null) gives files indexed before.
[[nodiscard]] EntryPtr build_entry(const SkillManifest& manifest, std::shared_ptr<const FileSource> source,
                                   std::size_t max_depth, const ByteBudget& budget, const KnownFiles* known = nullptr);

/// The entry as the JSON text of a `skills/list` item: byte for byte what nlohmann's `dump`
/// gives for the object of its URI, frontmatter and resources (tests/mcp compare the two).
[[nodiscard]] std::string entry_json_text(const SkillEntry& entry);

/// The extension's name rule, for each part of a served skill's catalog name: the Agent Skills
/// rules in ASCII, 1-64 of a-z, 0-9 and single hyphens. (The library's own rules also allow other
/// lowercase letters, `café`; the extension's clients refuse those, the official SDK's client
/// the whole listing that holds one, and they are not URI characters.)
[[nodiscard]] bool is_uri_name_part(std::string_view part);

/// The URI of a skill's directory: `skill://` and the parts of its catalog name, one path segment
/// each (`skill://pdf`, `skill://plugin/group/skill` for `plugin:group:skill`), so that the last
/// segment is the skill's own name, as the extension and its clients require. build_entry serves
/// a skill only when every part passes is_uri_name_part, so the URI needs no escaping and reads
/// back to the same skill.
[[nodiscard]] std::string skill_root_uri(std::string_view catalog_name);

/// `root_uri`, then the percent-encoded segments of `rel`.
[[nodiscard]] std::string file_uri(std::string_view root_uri, std::string_view rel);

/// Serializes JSON as the server sends it (invalid UTF-8 replaced).
[[nodiscard]] std::string dump(const nlohmann::json& j);

}  // namespace agentskills::mcp::detail
