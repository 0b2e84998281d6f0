// agentskills-cpp — private: the types and stages of FilesystemSkillLoader's discovery.
//
// discover() runs these stages in order (src/loader.cpp):
//   1. list_roots          (discovery_roots.cpp)    list the roots, keep the child directories
//   2. SnapshotStore::reuse (discovery_snapshot.cpp) the last result, when nothing changed
//   3. ParseCache::process (discovery_parse.cpp)    read and parse each child's SKILL.md
//   4. merge_candidates    (discovery_merge.cpp)    precedence, duplicates, selection
//   5. publish             (loader.cpp)             what load() serves
//   6. SnapshotStore::capture                       what the next discovery may reuse
// Storage (discovery_storage.cpp) is the only place that tells a local file system from
// another reader; its POSIX calls live in local_fs.cpp, which LocalSkillReader uses too.
// Sources (discovery_sources.cpp): archive children and resolved roots, whose paths
// `<source>!/<inner>` Storage routes to their own readers.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "../../storage/local_fs.hpp"
#include "../../storage/path_rules.hpp"
#include "../default_roots.hpp"
#include "agentskills/base/diagnostics.hpp"
#include "agentskills/base/skill.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/parse/parser.hpp"
#include "agentskills/storage/reader.hpp"

namespace agentskills::detail {

inline constexpr std::string_view skill_file_name = "SKILL.md";

// Whether two stats of a SKILL.md say it is unchanged, as discovery's reuse decides: kind, link,
// size, modification time and identity (not the change time; docs/loading.md, "Reuse").
[[nodiscard]] inline bool same_file_state(const FileStat& a, const FileStat& b) noexcept {
    return a.kind == b.kind && a.is_symlink == b.is_symlink && a.size == b.size && a.mtime_ns == b.mtime_ns &&
           a.identity == b.identity;
}

// The one sentence for a symbolic link where a skill may be (a skill directory, a SKILL.md) that
// discovery does not follow: one it cannot follow, or one whose target is a FIFO, device or socket
// (`special_target`: FileStat's, DirEntry's).
[[nodiscard]] inline std::string unfollowable_link_message(std::string_view path, bool special_target) {
    return std::string(path).append(
        special_target ? " is a symbolic link to something that is not a regular file (a FIFO, device or socket)"
                       : " is a symbolic link that cannot be followed (dangling, a loop, or no permission)");
}

// A name a directory listing may hold: one component, not "." or "..", no NUL. Anything else
// comes from a broken reader, and joining it to a path could climb out of the library.
[[nodiscard]] constexpr bool is_plain_entry_name(std::string_view name) noexcept { return is_plain_component(name); }

struct Root {
    std::string path;         // in the reader's namespace
    bool is_default = false;  // a default root: skip-if-missing, skipped when unreadable
    // A source root that could not be resolved (discovery_sources.cpp): why, and whether it is
    // missing (else unreadable). `path` is then the root as configured.
    std::string failure;
    bool failure_missing = false;
    // A Claude Code plugin's skills folder (plugins.cpp): `plugin:`, put before the names of its
    // skills as the nested walk puts a group's (prefix_candidate), and the configured root (a
    // plugin or marketplace) it came from. Both empty for every other root.
    std::string name_prefix;
    std::string origin;
    // The skill directories a plugin's `skills` field names below `path` (their names, sorted,
    // unique): only these children are skills. Empty: every child is (every other root).
    std::vector<std::string> only;
};

/// Which names discovery keeps (include / exclude, both after NFKC).
struct Selection {
    std::optional<std::unordered_set<std::string>> include;
    std::unordered_set<std::string> exclude;
    [[nodiscard]] bool selected(const std::string& key) const {
        return include ? include->count(key) > 0 : exclude.count(key) == 0;
    }
};

/// A manifest held apart from its owner, copied with it: an entry without one (a skipped file, or
/// one parsed into a slot) costs a pointer, not a whole SkillManifest. Used like an optional.
/// It owns its manifest, or (share) holds one that lives in a shared Discovery, the result it was
/// moved into (ParseCache::share_fresh).
class ManifestBox {
public:
    ManifestBox() noexcept = default;
    ManifestBox(const ManifestBox& other) : m_(other.m_ ? std::make_shared<SkillManifest>(*other.m_) : nullptr) {}
    ManifestBox(ManifestBox&&) noexcept = default;
    ManifestBox& operator=(const ManifestBox& other) {
        if (this != &other) m_ = other.m_ ? std::make_shared<SkillManifest>(*other.m_) : nullptr;
        return *this;
    }
    ManifestBox& operator=(ManifestBox&&) noexcept = default;
    ~ManifestBox() = default;
    ManifestBox& operator=(SkillManifest&& m) {
        m_ = std::make_shared<SkillManifest>(std::move(m));
        return *this;
    }
    /// Holds `shared` (an element of a shared result, kept alive by it) instead of its own.
    void share(std::shared_ptr<SkillManifest> shared) noexcept { m_ = std::move(shared); }

    explicit operator bool() const noexcept { return m_ != nullptr; }
    [[nodiscard]] SkillManifest& operator*() const noexcept { return *m_; }
    [[nodiscard]] SkillManifest* operator->() const noexcept { return m_.get(); }
    void reset() noexcept { m_.reset(); }

private:
    std::shared_ptr<SkillManifest> m_;
};

// One parsed SKILL.md, shared between discoveries while its stat does not change.
struct CacheEntry {
    FileStat stat;
    bool verify = false;  // the stat cannot vouch for the bytes: compare them on the next hit
    bool truncated = false;
    bool hashed = false;                 // hash only when `verify` (hashing costs a pass)
    bool placed = false;                 // parsed into the candidate's slot instead (Candidate::slot)
    bool lazy = false;                   // parsed under lazy_bodies: the body was not kept
    std::uint32_t name_prefix_size = 0;  // of dir_name (below)
    std::optional<SkipReason> skip_reason;
    std::size_t text_size = 0;  // size and hash of the bytes read, for the
    std::size_t text_hash = 0;  // byte-identical and re-verification checks
    std::string name_key;       // NFKC of the manifest's name
    ManifestBox manifest;       // located where the candidate that was parsed is
    std::string instructions;   // empty when `lazy` (read again by ParseCache::lazy_body)
    // For parsing the file again (lazy entries, and every renamed one: prefix_candidate): a nested
    // skill's group prefix or a plugin's (`team:`, the first name_prefix_size bytes, which come
    // before the name the file gives), then the name of its directory.
    std::string dir_name;
    Diagnostics diagnostics;
    std::string skip_message;
    // Another discovery took this entry from the cache (set under ParseCache's mutex, and read
    // there by share_fresh; atomic because an entry is copied without it): its manifest may be
    // read there at any time, so it is never moved.
    class Taken {
    public:
        Taken() noexcept = default;
        Taken(const Taken& other) noexcept : value_(other.get()) {}
        Taken& operator=(const Taken& other) noexcept {
            value_.store(other.get(), std::memory_order_relaxed);
            return *this;
        }
        ~Taken() = default;
        void set() const noexcept { value_.store(true, std::memory_order_relaxed); }
        [[nodiscard]] bool get() const noexcept { return value_.load(std::memory_order_relaxed); }

    private:
        mutable std::atomic<bool> value_{false};
    };
    Taken taken;
};
using CacheEntryPtr = std::shared_ptr<const CacheEntry>;

// What the worker found for one child directory of a root.
struct Candidate {
    std::size_t root_index = 0;
    std::string_view library;  // the Root's path (the roots outlive the candidates)
    std::string child_dir;     // as listed; given to skill_dir when the candidate has a slot
    std::string dir_name;
    bool is_symlink = false;
    bool source_child = false;  // a file a ChildOpener accepts (an archive), not a directory

    // Filled in by the worker.
    bool has_skill_file = false;
    bool from_cache = false;         // `entry` was parsed by an earlier discovery (a cache hit)
    bool dir_name_in_entry = false;  // with a slot and lazy bodies, dir_name moved to entry->dir_name
    std::string skill_dir;           // resolved (symlink target for local skills)
    std::string skill_file;
    CacheEntryPtr entry;  // parse result, or nullptr with `failure` set
    std::optional<SkipReason> failure;
    // keep_results off: the element of the result's manifest vector the parse moves the manifest
    // into (the entry is then `placed` and holds none), so that no second array of manifests is
    // ever alive. Valid until the discovery compacts that vector.
    SkillManifest* slot = nullptr;

    /// Sets `failure` with its message and diagnostic code (empty: skill-unreadable).
    void fail(SkipReason reason, std::string message, std::string code = {}) {
        failure = reason;
        failure_text = std::make_unique<FailureText>(FailureText{std::move(message), std::move(code)});
    }
    [[nodiscard]] std::string_view failure_message() const noexcept {
        return failure_text ? std::string_view(failure_text->message) : std::string_view();
    }
    [[nodiscard]] std::string_view failure_code() const noexcept {
        return failure_text ? std::string_view(failure_text->code) : std::string_view();
    }

    [[nodiscard]] SkillLocation location() const noexcept { return {skill_file, skill_dir, library}; }
    /// The name of the skill directory (as the name of a skill is checked against).
    [[nodiscard]] const std::string& directory_name() const noexcept {
        return dir_name_in_entry ? entry->dir_name : dir_name;
    }
    /// The parsed manifest (the entry's, or the slot's), or nullptr.
    [[nodiscard]] const SkillManifest* manifest() const noexcept {
        if (!entry) return nullptr;
        if (entry->manifest) return &*entry->manifest;
        return entry->placed ? slot : nullptr;
    }
    [[nodiscard]] bool parsed() const noexcept { return has_skill_file && !failure && manifest() != nullptr; }

private:
    struct FailureText {
        std::string message;
        std::string code;
    };
    std::unique_ptr<FailureText> failure_text;  // with `failure` (rare: not inline in every candidate)
};

// A kept skill of the current discovery (what load() serves).
struct Kept {
    CacheEntryPtr entry;
    std::string skill_file;
    std::string skill_dir;     // unless `dir_of_file`
    std::string_view library;  // a Root's path: the loader's roots outlive what it keeps
    bool dir_of_file = false;  // the skill directory is the one of skill_file (`<dir>/SKILL.md`)

    Kept() = default;
    /// The candidate's; with `take`, its paths are moved out (nothing reads them again).
    Kept(Candidate& c, bool take) : entry(c.entry), library(c.library) {
        skill_file = take ? std::move(c.skill_file) : c.skill_file;
        const std::string_view file(skill_file);
        dir_of_file = file.size() == c.skill_dir.size() + tail.size() &&
                      file.substr(0, c.skill_dir.size()) == c.skill_dir && file.substr(c.skill_dir.size()) == tail;
        if (!dir_of_file) skill_dir = take ? std::move(c.skill_dir) : c.skill_dir;
    }
    [[nodiscard]] SkillLocation location() const noexcept {
        const std::string_view file(skill_file);
        return {skill_file, dir_of_file ? file.substr(0, file.size() - tail.size()) : std::string_view(skill_dir),
                library};
    }
    [[nodiscard]] const std::string& key() const noexcept { return entry->name_key; }

private:
    static constexpr std::string_view tail = "/SKILL.md";
};

/// The kept skills of a discovery by NFKC name: one sorted array (no node or key copy a skill).
class KeptSkills {
public:
    KeptSkills() = default;
    /// The candidates `kept` (indices, each name once); with `take`, their paths are moved out.
    KeptSkills(std::vector<Candidate>& candidates, const std::vector<std::size_t>& kept, bool take) {
        skills_.reserve(kept.size());
        for (std::size_t i : kept) skills_.emplace_back(candidates[i], take);
        // Kept in the order of the roots' listings (by directory name), which is usually the
        // names' order already: one pass to see that, instead of a sort of moved entries.
        const auto by_key = [](const Kept& a, const Kept& b) { return a.key() < b.key(); };
        if (!std::is_sorted(skills_.begin(), skills_.end(), by_key)) std::sort(skills_.begin(), skills_.end(), by_key);
    }
    /// The skill whose NFKC name is `key`, or nullptr.
    [[nodiscard]] const Kept* find(std::string_view key) const noexcept {
        auto it = std::lower_bound(skills_.begin(), skills_.end(), key,
                                   [](const Kept& k, std::string_view name) { return k.key() < name; });
        return it != skills_.end() && it->key() == key ? &*it : nullptr;
    }

private:
    std::vector<Kept> skills_;
};

// One entry of a root's listing: a view of its name (into the Listed that owns the bytes).
struct RootEntry {
    std::string_view name;
    EntryKind kind = EntryKind::file;
    bool is_symlink = false;
    bool special_target = false;  // DirEntry::special_target
};

// The entries of one root's listing; once filtered, the child directories in name order.
// Names are views into `names` (local listing: every name in one buffer, no allocation per
// entry) or into `entries` (what the reader listed).
struct Listed {
    std::size_t root_index = 0;
    std::string names;
    std::vector<DirEntry> entries;
    std::vector<RootEntry> children;

    Listed() = default;
    Listed(const Listed&) = delete;
    Listed& operator=(const Listed&) = delete;
    Listed(Listed&&) = delete;  // the views point into this object's buffers
    Listed& operator=(Listed&&) = delete;
};

// The worker threads of a discovery: at most `max` (the caller's among them). `automatic` when the
// host left FilesystemLoaderOptions::threads at 0: then a thread is started only for enough work
// to pay for it (the *_per_thread counts below); a number the host asked for is used as asked.
struct Threads {
    std::size_t max = 1;
    bool automatic = false;
};

// How many items of each kind of work make starting one more thread worth it. A thread costs
// tens of microseconds to start and join and, on a machine whose cores are busy, a wait for a
// core that can last a scheduler slice (milliseconds), while the caller's thread could have done
// the work: a small library (an agent's 100 skills) is discovered on the calling thread alone.
inline constexpr std::size_t files_per_thread = 128;    // SKILL.md files read and parsed
inline constexpr std::size_t stats_per_thread = 512;    // stat() of an unchanged file
inline constexpr std::size_t copies_per_thread = 1024;  // manifests copied

// Runs fn(i) for i in [0, n) on up to `workers.max` threads (the caller's among them); with
// automatic threads, one thread for each `per_thread` items at least.
template <class F>
void parallel_for(std::size_t n, Threads workers, std::size_t per_thread, F&& fn) {
    std::size_t threads = std::min(workers.max, n);
    if (workers.automatic) threads = std::min(threads, n / std::max<std::size_t>(1, per_thread));
    if (threads <= 1) {
        for (std::size_t i = 0; i < n; ++i) fn(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) fn(i);
    };
    std::vector<std::jthread> pool;
    pool.reserve(threads - 1);
    for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
}

// ---------------------------------------------------------------------------------------
// Storage: the reader, with the local file system's fast paths.

class SourceRouter;

class Storage {
public:
    explicit Storage(SkillReaderPtr reader, SkillSources sources = {});

    /// The reader of every path discovery uses: sources' paths routed to their readers.
    [[nodiscard]] const SkillReader& reader() const noexcept { return *routed_reader_; }
    /// The configured reader (the local one when none was given).
    [[nodiscard]] const SkillReaderPtr& reader_ptr() const noexcept { return reader_; }
    /// The reader for `path`: reader_ptr(), or the routing reader for a source's path.
    [[nodiscard]] const SkillReaderPtr& reader_for_path(std::string_view path) const;
    [[nodiscard]] bool local() const noexcept { return local_; }

    // Sources (discovery_sources.cpp).
    /// Whether `path` is a source's (`<source>!/<inner>`), not the configured reader's.
    [[nodiscard]] bool routed(std::string_view path) const;
    /// A configured root that a RootResolver takes, as a Root (with `failure` when it could not
    /// be opened); nullopt when no resolver takes it. Throws ConfigurationError.
    [[nodiscard]] std::optional<Root> source_root(const std::string& root) const;
    /// Whether a child file of this name is a candidate skill (a ChildOpener accepts it).
    [[nodiscard]] bool accepts_child(std::string_view file_name) const;
    /// Opens a source child (c.child_dir) and sets c.skill_dir, c.skill_file and c.dir_name to
    /// the skill inside it; reuses the last opening while the file's stat is unchanged.
    /// Throws what the opener or the reader throws (c.skill_file names the child file then).
    void open_child(Candidate& c) const;
    /// Forgets the opened children that are not among `candidates`.
    void retire_children(const std::vector<Candidate>& candidates) const;

    /// A configured root as a path of the reader's namespace; throws PathError or
    /// ConfigurationError.
    [[nodiscard]] std::string resolve_root(const std::string& root) const;
    /// The default roots (local reader only; empty otherwise): detail::default_roots from the
    /// reader's base directory.
    [[nodiscard]] std::vector<DefaultRoot> default_roots(const std::vector<AgentFolders>& compat) const;
    /// The root the loader uses when none is given (non-local readers only).
    [[nodiscard]] std::string implicit_root() const;
    /// What makes two roots the same library (the canonical path for local roots).
    [[nodiscard]] std::string library_key(const std::string& root) const;
    /// Lists a root into `out` (children as views); throws what the reader throws.
    void list_root(const std::string& root, Listed& out) const;
    /// The skill directory of a listed child: a local symlink resolved, else the child itself.
    [[nodiscard]] std::string skill_dir(const std::string& child_dir, bool is_symlink) const;
    /// The same, taking the child's path (moved into the result unless a link is resolved).
    [[nodiscard]] std::string skill_dir(std::string&& child_dir, bool is_symlink) const;
    /// Whether two skill directories are one (after resolving links, for local ones).
    [[nodiscard]] bool same_directory(const std::string& a, const std::string& b) const;

    /// The outcome of reading a SKILL.md that was never cached, through the fast path.
    enum class Fresh { read, missing, general };
    /// Local only: reads `path` in one open + fstat + read; `general` when the reader must decide.
    /// With `dir_fd` >= 0 (the open directory of the root `path` is a child of), opens `relative`
    /// below it (`<child>/SKILL.md`).
    Fresh read_fresh(const std::string& path, std::size_t max_bytes, FileStat& st, std::string_view& data,
                     bool& truncated, int dir_fd = -1, const char* relative = nullptr) const;

    /// The stamp of a local root's directory (nullopt for other readers, sources, and a root
    /// that is not a directory or cannot be inspected).
    [[nodiscard]] std::optional<local::DirectoryStamp> stamp_root(const Root& root) const;

    /// What a SKILL.md's stat is now, for the reuse check: found (with `st`), missing, or failed.
    enum class Probe { found, missing, failed };
    /// Root directories opened for relative stats (local only; -1 elsewhere). Close with close_roots.
    [[nodiscard]] std::vector<int> open_roots(const std::vector<Root>& roots) const;
    static void close_roots(std::vector<int>& fds) noexcept;
    Probe probe(const std::string& path, int root_fd, const std::string& relative, FileStat& st) const;

private:
    void install_sources(SkillSources sources);

    SkillReaderPtr reader_;
    std::shared_ptr<SourceRouter> router_;  // nullptr without sources
    SkillReaderPtr routed_reader_;          // reader_, or the router
    bool local_ = false;
    const FilePathResolver* resolver_ = nullptr;
    std::string base_;  // the LocalSkillReader's base directory
};

/// The name a source child file is selected by before it is opened ("demo.skill" -> "demo").
[[nodiscard]] std::string source_child_name(std::string_view file_name);

// ---------------------------------------------------------------------------------------
// 1. Roots

struct RootListing {
    std::deque<Listed> listed;  // not movable: the children are views into each Listed
    Diagnostics diagnostics;    // what listing the roots reported
    std::vector<SkippedSkill> skipped;
};

/// Lists every root in precedence order and keeps its child directories in name order.
/// Throws DiscoveryError for a root that fails under the policy.
void list_roots(const std::vector<Root>& roots, const Storage& storage, const Selection& selection,
                MissingDirectories policy, RootListing& out);

/// One candidate per child directory of the listing, in order.
[[nodiscard]] std::vector<Candidate> make_candidates(const std::vector<Root>& roots, const RootListing& listing);

// ---------------------------------------------------------------------------------------
// 3. Parsing, with the cache of parsed files

struct ParseSettings {
    NamePolicy name_policy = NamePolicy::keep;
    std::size_t max_lines = SKILL_MAX_FILE_LINES;
    std::size_t max_bytes = SKILL_MAX_FILE_BYTES;
    bool lazy_bodies = false;
    bool keep = true;  // FilesystemLoaderOptions::keep_results: cache the parsed files
    bool frontmatter_json = true;
    FrontmatterTyping frontmatter_typing = FrontmatterTyping::text;
    YamlRecovery yaml_recovery = YamlRecovery::none;

    /// The parse options of these settings (ParseOptions::path and directory_name unset).
    [[nodiscard]] ParseOptions parse_options() const noexcept {
        ParseOptions o;
        o.name_policy = name_policy;
        o.max_lines = max_lines;
        o.max_bytes = max_bytes;
        o.frontmatter_json = frontmatter_json;
        o.frontmatter_typing = frontmatter_typing;
        o.yaml_recovery = yaml_recovery;
        return o;
    }
};

struct Merged;

class ParseCache {
public:
    ParseCache(const Storage& storage, ParseSettings settings) : storage_(storage), settings_(settings) {}
    /// Reads and parses one candidate's SKILL.md, or reuses the cached parse. Never throws.
    /// `root_fd`: the open directory of the candidate's root (-1: none), for a shorter open.
    void process(Candidate& c, int root_fd = -1);
    /// Whether two parsed files hold the same bytes (size and hash, then both read again).
    [[nodiscard]] bool same_bytes(const Candidate& a, const Candidate& b) const;
    /// The body of a lazy entry, from its file read again at `where`; when the file changed
    /// since discovery, `manifest` becomes the manifest parsed now. Throws IoError when the file
    /// no longer parses or now names another skill, and what the reader throws.
    /// With `take_manifest`, `manifest` becomes the one parsed now in every case (the entry's
    /// was given away: FilesystemLoaderOptions::keep_results). With `frontmatter_json`, the
    /// manifest parsed now has its frontmatter JSON whatever the loader's setting. With
    /// `refuse_changed` (a lock verifier checked the file at discovery), a file that changed since
    /// is not parsed: IoError says so.
    [[nodiscard]] std::string lazy_body(const CacheEntry& entry, const SkillLocation& where, SkillManifest& manifest,
                                        bool take_manifest = false, bool frontmatter_json = false,
                                        bool refuse_changed = false) const;
    /// Whether parsed files are kept for the next discovery (FilesystemLoaderOptions::keep_results).
    [[nodiscard]] bool keeps() const noexcept { return settings_.keep; }
    /// Forgets the files that are not in `live` (paths of SKILL.md files still there).
    void keep_only(const std::unordered_set<std::string_view>& live);
    /// The kept manifests of a discovery (`merged`, of `candidates`) into `out.skills`, in order:
    /// each one this discovery parsed is moved there and its cache entry then holds the one in
    /// `out` (so the cache and the result share one copy, kept alive by either), unless another
    /// discovery has taken the entry or the cache holds another for its file; every other one is
    /// copied. `merged.order` then points into `out`. Only for a discovery without cache hits:
    /// entries of earlier discoveries would otherwise keep a result alive each (docs/loading.md).
    void share_fresh(const std::vector<Candidate>& candidates, Merged& merged, const std::shared_ptr<Discovery>& out);

private:
    void store(Candidate& c, const FileStat& st, std::string_view data, bool truncated);
    [[nodiscard]] bool cached(const std::string& path);

    const Storage& storage_;
    ParseSettings settings_;
    std::mutex mutex_;
    std::unordered_map<std::string, CacheEntryPtr> entries_;  // key: SKILL.md path
};

// ---------------------------------------------------------------------------------------
// 4. Merge

struct Merged {
    std::vector<std::size_t> kept;                            // the kept candidates, in catalog order
    std::vector<std::shared_ptr<const SkillManifest>> order;  // their manifests
    std::unordered_set<std::string_view> live_files;          // every SKILL.md seen (when the cache keeps)
};

/// Merges the parsed candidates in order into `out` (diagnostics and skipped entries) and
/// returns what was kept. Throws DiscoveryError for duplicates under DuplicateNames::error and
/// for include names that name nothing; an exclude name that names nothing is a warning
/// (`exclude-unknown`).
[[nodiscard]] Merged merge_candidates(const std::vector<Candidate>& candidates, const Selection& selection,
                                      const std::optional<std::vector<std::string>>& include_names,
                                      const std::vector<std::string>& exclude_names, DuplicateNames policy,
                                      const Storage& storage, const ParseCache& cache, Discovery& out);

// ---------------------------------------------------------------------------------------
// 2 and 6. The snapshot of the last discovery

/// Each root's directory stamp (nullopt where a root has none), taken before a listing, and
/// the time they were taken at (before the first).
struct RootStamps {
    std::vector<std::optional<local::DirectoryStamp>> stamps;
    std::int64_t taken_ns = 0;
};
[[nodiscard]] RootStamps stamp_roots(const std::vector<Root>& roots, const Storage& storage);

/// How much older than the listing a root's ctime must be for its stamp to vouch for the
/// listing: more than the granularity of any file system's timestamps (FAT: 2 s).
inline constexpr std::int64_t settled_stamp_ns = 2'000'000'000 + 1;

class SnapshotStore {
public:
    /// The last discovery's result without listing the roots: when every root's stamp is the one
    /// the last matching listing was taken under, and settled (older than that listing by
    /// settled_stamp_ns), the entries are the same; then as reuse() for the SKILL.md files.
    [[nodiscard]] std::optional<Discovery> reuse_unlisted(const RootStamps& now, const std::vector<Root>& roots,
                                                          const Storage& storage, Threads threads);
    /// The last discovery's result when the roots report the same, the children are the same
    /// and no SKILL.md changed, appeared or needs its bytes checked; nullopt otherwise. On a
    /// reuse, `stamps` (taken before `listing`) become the ones reuse_unlisted compares with.
    [[nodiscard]] std::optional<Discovery> reuse(const RootListing& listing, const std::vector<Root>& roots,
                                                 const Storage& storage, Threads threads, RootStamps stamps);
    /// Remembers this discovery, unless a child cannot be trusted to stay the same (a symlink,
    /// a read failure, bytes the stat cannot vouch for): then the next one takes the full path.
    void capture(const RootListing& listing, const std::vector<Candidate>& candidates, Merged& merged,
                 const Discovery& out, RootStamps stamps);

private:
    struct Snapshot;
    [[nodiscard]] static std::optional<Discovery> same_files(const Snapshot& snap, const std::vector<Root>& roots,
                                                             const Storage& storage, Threads threads);
    std::mutex mutex_;
    std::shared_ptr<const Snapshot> last_;
    std::shared_ptr<const RootStamps> stamps_;  // of the last listing that matched last_
};

}  // namespace agentskills::detail
