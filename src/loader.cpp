// agentskills-cpp — FilesystemSkillLoader: discovery over library roots, caching, loading.
#include "agentskills/loader.hpp"
#include "agentskills/diagnostic_codes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"
#include "agentskills/parser.hpp"

namespace agentskills {

SkillLoader::~SkillLoader() = default;

namespace fs = std::filesystem;

namespace {

constexpr std::string_view skill_file_name = "SKILL.md";


// A name a directory listing may hold: one component, not "." or "..", no NUL. Anything else
// comes from a broken reader, and joining it to a path could climb out of the library.
bool is_plain_entry_name(std::string_view name) noexcept {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

struct Root {
    std::string path;         // in the reader's namespace
    bool is_default = false;  // a default root: always skip-if-missing
};

// One parsed SKILL.md, shared between discoveries while its stat does not change.
struct CacheEntry {
    FileStat stat;
    bool verify = false;  // the stat cannot vouch for the bytes: compare them on the next hit
    bool truncated = false;
    std::size_t text_size = 0;              // size and hash of the bytes read, for the
    std::size_t text_hash = 0;              // byte-identical and re-verification checks; the
    bool hashed = false;                    // hash only when `verify` (hashing costs a pass)
    std::string name_key;                   // NFKC of the manifest's name
    std::optional<SkillManifest> manifest;  // paths of the candidate that was parsed
    std::string body;
    Diagnostics diagnostics;
    std::optional<SkipReason> skip_reason;
    std::string skip_message;
};
using CacheEntryPtr = std::shared_ptr<const CacheEntry>;

// What the worker found for one child directory of a root.
struct Candidate {
    std::size_t root_index = 0;
    std::string library;
    std::string child_dir;  // as listed
    std::string dir_name;
    bool is_symlink = false;

    // Filled in by the worker.
    bool has_skill_file = false;
    std::string skill_dir;  // resolved (symlink target for local skills)
    std::string skill_file;
    CacheEntryPtr entry;  // parse result, or nullptr with `failure` set
    std::optional<SkipReason> failure;
    std::string failure_message;
};

// A kept skill of the current discovery (what load() serves).
// The parse is shared with the cache; the manifest is completed with its paths on load().
struct Kept {
    CacheEntryPtr entry;
    std::string skill_file;
    std::string skill_dir;
    std::string library;
};

std::string default_home_root() {
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') return {};
    return (fs::path(home) / ".agents" / "skills").lexically_normal().string();
}

std::string absolute_normal(const std::string& root, const std::string& base = {}) {
    fs::path p = fs::path(root);
    if (p.is_relative() && !base.empty()) p = fs::path(base) / p;
    p = fs::absolute(p).lexically_normal();
    std::string s = p.string();
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
}

// Whether a stat cannot tell a later edit apart: the reader knows neither a modification time
// nor an identity, or the file was modified so recently that another write within the same
// timestamp tick would leave size, mtime and inode unchanged (the "racy" case). Such entries
// are re-read (not re-parsed) on the next discovery and compared byte for byte.
bool stat_needs_verification(const FileStat& st) {
    if (st.mtime_ns == 0) return st.identity == 0;
    constexpr std::int64_t racy_window_ns = 2'000'000'000;
    const std::int64_t now_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    return now_ns - st.mtime_ns < racy_window_ns;
}

std::string first_error_message(const Diagnostics& ds) {
    for (const auto& d : ds) {
        if (d.severity == Severity::error) return d.message;
    }
    return ds.empty() ? std::string("invalid SKILL.md") : ds.front().message;
}

// Runs fn(i) for i in [0, n) on up to `threads` threads (the caller's among them).
template <class F>
void parallel_for(std::size_t n, std::size_t threads, F&& fn) {
    threads = std::min(threads, n);
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

// One entry of a root's listing: a view of its name (into the Listed that owns the bytes).
struct RootEntry {
    std::string_view name;
    EntryKind kind = EntryKind::file;
    bool is_symlink = false;
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

// What the last complete discovery saw and returned. When a new discovery finds the roots
// reporting the same, the same children, and every SKILL.md with the same stat, its result is
// the same: it is copied from here without reading, parsing or merging anything (a repeated
// discover() costs about what listing the library costs; docs/performance.md).
struct Snapshot {
    struct Child {
        std::size_t root_index = 0;
        std::string dir_name;
        std::string skill_file;  // empty: the child had no SKILL.md
        std::string relative;    // "<dir_name>/SKILL.md"
        FileStat stat;           // of skill_file
    };
    Diagnostics root_diagnostics;  // what listing the roots reported
    std::vector<SkippedSkill> root_skipped;
    std::vector<Child> children;  // every child directory, in order
    std::vector<std::shared_ptr<const SkillManifest>> skills;
    std::vector<SkippedSkill> skipped;
    Diagnostics diagnostics;
};

// The children of a local directory with their kinds, taken from the entries' types (d_type)
// where the file system reports them: a stat only for symlinks and unknown types, instead of
// one per child as LocalSkillReader::list_dir does (it also reports sizes and times, which
// discovery does not need). False on any error: the caller then asks the reader, which
// reports the error properly.
bool list_local_kinds(const std::string& path, Listed& out) {
    DIR* dir = ::opendir(path.c_str());
    if (dir == nullptr) return false;
    struct Closer {
        DIR* d;
        ~Closer() { ::closedir(d); }
    } closer{dir};
    const int dir_fd = ::dirfd(dir);
    struct Item {
        std::size_t offset;
        std::size_t size;
        EntryKind kind;
        bool is_symlink;
    };
    std::vector<Item> items;
    for (;;) {
        errno = 0;
        const dirent* ent = ::readdir(dir);
        if (ent == nullptr) {
            if (errno != 0) return false;
            break;
        }
        const char* name = ent->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
        Item item{out.names.size(), std::strlen(name), EntryKind::other, false};
        switch (ent->d_type) {
            case DT_DIR:
                item.kind = EntryKind::directory;
                break;
            case DT_REG:
                item.kind = EntryKind::file;
                break;
            case DT_LNK:
            case DT_UNKNOWN: {
                struct stat st {};
                if (::fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // vanished meanwhile
                if (S_ISLNK(st.st_mode)) {
                    item.is_symlink = true;
                    if (::fstatat(dir_fd, name, &st, 0) != 0) break;  // dangling link: other
                }
                item.kind = S_ISREG(st.st_mode)   ? EntryKind::file
                            : S_ISDIR(st.st_mode) ? EntryKind::directory
                                                  : EntryKind::other;
                break;
            }
            default:
                break;
        }
        out.names.append(name, item.size);
        items.push_back(item);
    }
    // Views only now: the buffer no longer moves.
    out.children.reserve(items.size());
    for (const Item& item : items) {
        out.children.push_back(
            RootEntry{std::string_view(out.names).substr(item.offset, item.size), item.kind, item.is_symlink});
    }
    return true;
}

// The FileStat that LocalSkillReader::stat gives a path that is not a symlink (the same fields
// and identity; keep in step with reader.cpp), from lstat or fstat data.
FileStat local_file_stat(const struct stat& info) noexcept {
    FileStat st;
    st.kind = S_ISREG(info.st_mode) ? EntryKind::file : S_ISDIR(info.st_mode) ? EntryKind::directory : EntryKind::other;
    st.size = static_cast<std::uint64_t>(info.st_size);
    st.mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 +
                  static_cast<std::int64_t>(info.st_mtim.tv_nsec);
    st.identity =
        static_cast<std::uint64_t>(info.st_ino) ^ (static_cast<std::uint64_t>(info.st_dev) * 0x9E3779B97F4A7C15ULL);
    return st;
}

const Diagnostic* first_error(const Diagnostics& ds) {
    for (const auto& d : ds) {
        if (d.severity == Severity::error) return &d;
    }
    return nullptr;
}

}  // namespace

struct FilesystemSkillLoader::Impl {
    FilesystemLoaderOptions options;
    SkillReaderPtr reader;
    bool local = false;
    const FilePathResolver* resolver = nullptr;
    std::vector<Root> roots;
    std::optional<std::unordered_set<std::string>> include;  // NFKC
    std::unordered_set<std::string> exclude;                 // NFKC

    std::mutex cache_mutex;
    std::unordered_map<std::string, CacheEntryPtr> cache;  // key: SKILL.md path

    std::mutex snapshot_mutex;
    std::shared_ptr<const Snapshot> snapshot;  // nullptr: the next discovery takes the full path

    mutable std::shared_mutex kept_mutex;
    std::unordered_map<std::string, Kept> kept;  // key: NFKC name
    bool discovered = false;
    std::atomic<std::uint64_t> next_ticket{0};  // order of the discoveries' starts
    std::uint64_t published_ticket = 0;         // the discovery load() serves (guarded by kept_mutex)

    explicit Impl(FilesystemLoaderOptions opts);
    void resolve_roots();
    void process(Candidate& c);
    void store(Candidate& c, const FileStat& st, std::string_view data, bool truncated);
    bool read_local_fresh(Candidate& c);
    [[nodiscard]] std::size_t thread_count() const noexcept;
    std::optional<Discovery> reuse_snapshot(const Diagnostics& root_diagnostics,
                                            const std::vector<SkippedSkill>& root_skipped,
                                            const std::deque<Listed>& listed);
    [[nodiscard]] bool same_bytes(const CacheEntry& a, const std::string& path_a, const CacheEntry& b,
                                  const std::string& path_b) const;
    Discovery discover();
};

FilesystemSkillLoader::Impl::Impl(FilesystemLoaderOptions opts) : options(std::move(opts)) {
    if (options.include.has_value() && !options.exclude.empty()) {
        throw ConfigurationError("include and exclude cannot be used together");
    }
    reader = options.reader ? options.reader : std::make_shared<const LocalSkillReader>();
    local = reader->is_local();
    resolver = reader->path_resolver();
    if (options.include) {
        include.emplace();
        for (const auto& n : *options.include) include->insert(nfkc(n));
    }
    for (const auto& n : options.exclude) exclude.insert(nfkc(n));
    resolve_roots();
}

void FilesystemSkillLoader::Impl::resolve_roots() {
    auto add = [&](std::string path, bool is_default) {
        for (const auto& r : roots) {
            if (r.path == path) return;  // the same root twice is scanned once
        }
        roots.push_back(Root{std::move(path), is_default});
    };
    for (const auto& root : options.roots) {
        if (root.empty()) throw ConfigurationError("a library root is an empty path");
        try {
            if (local) {
                const auto* local_reader = dynamic_cast<const LocalSkillReader*>(reader.get());
                add(absolute_normal(root, local_reader != nullptr ? local_reader->base_directory() : std::string()),
                    false);
            } else if (resolver != nullptr) {
                add(resolver->resolve(root, "/"), false);
            } else {
                add(normalize_relative_path(root), false);
            }
        } catch (const PathError& e) {
            throw ConfigurationError(fmt::format("invalid library root '{}': {}", root, e.what()));
        } catch (const fs::filesystem_error& e) {
            throw ConfigurationError(fmt::format("invalid library root '{}': {}", root, e.what()));
        }
    }
    if (local) {
        if (options.include_default_roots) {
            add(absolute_normal("./.agents/skills"), true);
            if (std::string home = default_home_root(); !home.empty()) add(std::move(home), true);
        }
    } else if (options.roots.empty()) {
        add(resolver != nullptr ? resolver->resolve(".", "/") : std::string("."), false);
    }
}

// Whether two parsed files hold the same bytes: size and hash first, then both are read again
// to be sure (this only happens for two skills with one name).
bool FilesystemSkillLoader::Impl::same_bytes(const CacheEntry& a, const std::string& path_a, const CacheEntry& b,
                                             const std::string& path_b) const {
    if (a.text_size != b.text_size || a.truncated || b.truncated) return false;
    if (a.hashed && b.hashed && a.text_hash != b.text_hash) return false;
    try {
        return reader->read_file(path_a, options.max_bytes).data == reader->read_file(path_b, options.max_bytes).data;
    } catch (const std::exception&) {
        return false;
    }
}

// Reads and parses one child's SKILL.md (or reuses the cached parse). Never throws.
void FilesystemSkillLoader::Impl::process(Candidate& c) {
    try {
        c.skill_dir = c.child_dir;
        if (local && c.is_symlink) {
            std::error_code ec;
            fs::path target = fs::canonical(fs::path(c.child_dir), ec);
            if (!ec) c.skill_dir = target.string();
        }
        c.skill_file = join_path(c.skill_dir, skill_file_name);
        if (local && read_local_fresh(c)) return;
        FileStat st;
        try {
            st = reader->stat(c.skill_file);
        } catch (const NotFoundError&) {
            return;  // an ordinary directory, not a skill
        }
        c.has_skill_file = true;
        if (st.kind != EntryKind::file) {
            c.failure = SkipReason::unreadable;
            c.failure_message = fmt::format("{} is not a regular file", c.skill_file);
            return;
        }
        CacheEntryPtr cached;
        {
            std::lock_guard lock(cache_mutex);
            auto it = cache.find(c.skill_file);
            if (it != cache.end() && it->second->stat == st) cached = it->second;
        }
        if (cached && !cached->verify) {
            c.entry = std::move(cached);
            return;
        }
        ReadResult read = reader->read_file(c.skill_file, options.max_bytes);
        if (cached && cached->hashed && read.truncated == cached->truncated && read.data.size() == cached->text_size &&
            std::hash<std::string_view>{}(read.data) == cached->text_hash) {
            // The same bytes: keep the parse, and trust the stat from now on if it has settled.
            if (stat_needs_verification(st)) {
                c.entry = std::move(cached);
                return;
            }
            auto settled = std::make_shared<CacheEntry>(*cached);
            settled->verify = false;
            CacheEntryPtr shared = std::move(settled);
            std::lock_guard lock(cache_mutex);
            cache[c.skill_file] = shared;
            c.entry = std::move(shared);
            return;
        }
        store(c, st, read.data, read.truncated);
    } catch (const std::exception& e) {
        c.has_skill_file = true;
        c.failure = SkipReason::unreadable;
        c.failure_message =
            fmt::format("cannot read {}: {}", c.skill_file.empty() ? c.child_dir : c.skill_file, e.what());
    }
}

// Parses the bytes of c.skill_file, caches the result under its path and gives it to `c`.
void FilesystemSkillLoader::Impl::store(Candidate& c, const FileStat& st, std::string_view data, bool truncated) {
    auto entry = std::make_shared<CacheEntry>();
    entry->stat = st;
    entry->verify = stat_needs_verification(st);
    entry->truncated = truncated;
    ParseOptions popts;
    popts.name_policy = options.name_policy;
    popts.max_lines = options.max_lines;
    popts.max_bytes = options.max_bytes;
    popts.path = c.skill_file;
    popts.directory_name = c.dir_name;
    popts.truncated = truncated;
    ParseResult parsed = parse_skill_md(data, popts);
    if (SkillManifest* m = parsed.manifest()) entry->manifest = std::move(*m);
    entry->body = std::move(parsed.body);
    entry->diagnostics = std::move(parsed.diagnostics);
    entry->skip_reason = parsed.skip_reason();
    if (truncated) entry->skip_reason = SkipReason::too_large;
    if (entry->skip_reason && entry->manifest) entry->manifest.reset();
    if (!entry->manifest && !entry->skip_reason) entry->skip_reason = SkipReason::invalid;
    if (entry->skip_reason) {
        entry->skip_message = fmt::format("{}: {}", c.skill_file, first_error_message(entry->diagnostics));
        if (*entry->skip_reason == SkipReason::too_large && truncated && entry->diagnostics.empty()) {
            entry->skip_message = fmt::format("{}: larger than the limit of {} bytes", c.skill_file, options.max_bytes);
        }
    }
    entry->text_size = data.size();
    if (entry->verify) {
        entry->text_hash = std::hash<std::string_view>{}(data);
        entry->hashed = true;
    }
    if (entry->manifest) {
        entry->name_key = nfkc(entry->manifest->name);
        entry->manifest->root = c.skill_dir;
        entry->manifest->library = c.library;
    }
    CacheEntryPtr shared = std::move(entry);
    {
        std::lock_guard lock(cache_mutex);
        cache[c.skill_file] = shared;
    }
    c.entry = std::move(shared);
}

// A local SKILL.md that the cache has never seen (every file of a first discovery): one
// open + fstat + read, where the general path takes lstat + open + fstat + read, and the bytes
// go to a buffer that each thread reuses instead of a new string per file (fewer allocations,
// no zero-filling, less heap fragmentation). Returns false, having changed nothing, whenever
// the general path must decide (a symlinked SKILL.md, not a regular file, any error other
// than "does not exist"), so that every message stays the reader's.
bool FilesystemSkillLoader::Impl::read_local_fresh(Candidate& c) {
    {
        std::lock_guard lock(cache_mutex);
        if (cache.count(c.skill_file) != 0) return false;
    }
    const int fd = ::open(c.skill_file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) return errno == ENOENT || errno == ENOTDIR;  // true: an ordinary directory, not a skill
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) return false;
    const FileStat st = local_file_stat(info);

    // Read one byte past the limit (or past the size) to learn whether more follows.
    thread_local std::unique_ptr<char[]> buffer;
    thread_local std::size_t buffer_size = 0;
    const std::size_t limit = options.max_bytes == 0 ? std::numeric_limits<std::size_t>::max() - 1 : options.max_bytes;
    std::size_t capacity = std::min(static_cast<std::size_t>(info.st_size), limit) + 1;
    std::size_t got = 0;
    for (;;) {
        if (capacity > buffer_size) {
            auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
            if (got != 0) std::memcpy(bigger.get(), buffer.get(), got);
            buffer = std::move(bigger);
            buffer_size = capacity;
        }
        if (got == capacity) {
            if (got > limit) break;
            capacity = std::min(limit + 1, std::max<std::size_t>(capacity * 2, 4096));
            continue;
        }
        const ssize_t n = ::read(fd, buffer.get() + got, capacity - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    const bool truncated = got > limit;
    if (truncated) got = limit;
    c.has_skill_file = true;
    store(c, st, std::string_view(buffer.get(), got), truncated);
    return true;
}

std::size_t FilesystemSkillLoader::Impl::thread_count() const noexcept {
    return options.threads != 0 ? options.threads : std::max(1U, std::thread::hardware_concurrency());
}

namespace {

// What LocalSkillReader::stat reports for `path`, without its copy of the path; nullopt for a
// symlink or an error (then the reader answers, with its own messages). `missing`: ENOENT or
// ENOTDIR. With `dir_fd` >= 0, `relative` (the same file relative to that directory) is
// looked up instead: a shorter path walk.
std::optional<FileStat> lstat_local(const std::string& path, int dir_fd, const std::string& relative, bool& missing) {
    missing = false;
    struct stat info {};
    const int rc =
        dir_fd >= 0 ? ::fstatat(dir_fd, relative.c_str(), &info, AT_SYMLINK_NOFOLLOW) : ::lstat(path.c_str(), &info);
    if (rc != 0) {
        missing = errno == ENOENT || errno == ENOTDIR;
        return std::nullopt;
    }
    if (S_ISLNK(info.st_mode)) return std::nullopt;
    return local_file_stat(info);
}

}  // namespace

// The last discovery's result when the roots report the same, the children are the same and
// no SKILL.md changed, appeared or needs its bytes checked; nullopt otherwise.
std::optional<Discovery> FilesystemSkillLoader::Impl::reuse_snapshot(const Diagnostics& root_diagnostics,
                                                                     const std::vector<SkippedSkill>& root_skipped,
                                                                     const std::deque<Listed>& listed) {
    std::shared_ptr<const Snapshot> snap;
    {
        std::lock_guard lock(snapshot_mutex);
        snap = snapshot;
    }
    if (!snap) return std::nullopt;
    if (root_diagnostics != snap->root_diagnostics || root_skipped.size() != snap->root_skipped.size()) {
        return std::nullopt;
    }
    for (std::size_t i = 0; i < root_skipped.size(); ++i) {
        const SkippedSkill& a = root_skipped[i];
        const SkippedSkill& b = snap->root_skipped[i];
        if (a.path != b.path || a.reason != b.reason || a.message != b.message) return std::nullopt;
    }
    std::size_t k = 0;
    for (const Listed& l : listed) {
        for (const RootEntry& e : l.children) {
            if (k == snap->children.size()) return std::nullopt;
            const Snapshot::Child& s = snap->children[k++];
            if (e.is_symlink || l.root_index != s.root_index || e.name != s.dir_name) return std::nullopt;
        }
    }
    if (k != snap->children.size()) return std::nullopt;

    // Stat every SKILL.md again (on the worker threads) and compare; local files relative to
    // their root, opened once.
    std::vector<int> root_fds(roots.size(), -1);
    struct FdsCloser {
        std::vector<int>& fds;
        ~FdsCloser() {
            for (int fd : fds) {
                if (fd >= 0) ::close(fd);
            }
        }
    } fds_closer{root_fds};
    if (local) {
        for (const Listed& l : listed) {
            root_fds[l.root_index] = ::open(roots[l.root_index].path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        }
    }
    std::atomic<bool> same{true};
    const auto check = [&](std::size_t i) {
        const Snapshot::Child& s = snap->children[i];
        std::string absent;  // where a SKILL.md would be
        if (s.skill_file.empty()) absent = join_path(join_path(roots[s.root_index].path, s.dir_name), skill_file_name);
        const std::string& path = s.skill_file.empty() ? absent : s.skill_file;
        if (local) {
            bool missing = false;
            if (std::optional<FileStat> now = lstat_local(path, root_fds[s.root_index], s.relative, missing)) {
                if (s.skill_file.empty() || !(*now == s.stat)) same = false;
                return;
            }
            if (missing) {
                if (!s.skill_file.empty()) same = false;
                return;
            }
        }
        try {
            const FileStat now = reader->stat(path);
            if (s.skill_file.empty() || !(now == s.stat)) same = false;
        } catch (const NotFoundError&) {
            if (!s.skill_file.empty()) same = false;
        } catch (const std::exception&) {
            same = false;
        }
    };
    Discovery out;
    const auto copy_result = [&] {
        out.skills.reserve(snap->skills.size());
        for (const auto& m : snap->skills) {
            if (!same.load(std::memory_order_relaxed)) return;
            out.skills.push_back(*m);
        }
        out.skipped = snap->skipped;
        out.diagnostics = snap->diagnostics;
    };
    constexpr std::size_t chunk = 256;  // stats per task
    const std::size_t n = snap->children.size();
    const std::size_t threads = thread_count();
    if (threads <= 1 || n < 2 * chunk) {
        parallel_for(n, threads, [&](std::size_t i) {
            if (same.load(std::memory_order_relaxed)) check(i);
        });
        if (!same) return std::nullopt;
        copy_result();
        return out;
    }
    // Task 0 copies the last result while the other tasks stat (the copy is thrown away when a
    // stat differs). Copying is mostly malloc and gains little from more threads; the stats
    // spread well, and the thread that copied joins them when it is done.
    const std::size_t chunks = (n + chunk - 1) / chunk;
    parallel_for(chunks + 1, threads, [&](std::size_t task) {
        if (task == 0) {
            copy_result();
            return;
        }
        const std::size_t begin = (task - 1) * chunk;
        for (std::size_t i = begin; i < std::min(n, begin + chunk) && same.load(std::memory_order_relaxed); ++i) {
            check(i);
        }
    });
    if (!same) return std::nullopt;
    return out;
}

Discovery FilesystemSkillLoader::Impl::discover() {
    const std::uint64_t ticket = next_ticket.fetch_add(1) + 1;
    Discovery out;
    auto note = [&](std::string_view code, Severity severity, std::string path, std::string message) {
        out.diagnostics.push_back(Diagnostic{std::string(code), severity, std::move(path), 0, std::move(message)});
    };
    auto fail_or_skip = [&](const Root& root, SkipReason reason, std::string_view code, std::string message) {
        if (options.missing_directories == MissingDirectories::error && !root.is_default) throw DiscoveryError(message);
        note(code, Severity::warning, root.path, message);
        out.skipped.push_back(SkippedSkill{root.path, reason, std::move(message)});
    };

    // 1. List the roots (in precedence order) and collect the child directories.
    std::deque<Listed> listed;  // not movable: the children are views into each Listed
    std::vector<Candidate> candidates;
    std::vector<std::string> seen_root_dirs;
    for (std::size_t ri = 0; ri < roots.size(); ++ri) {
        const Root& root = roots[ri];
        FileStat st;
        try {
            st = reader->stat(root.path);
        } catch (const NotFoundError&) {
            std::string message = fmt::format("library root {} does not exist", root.path);
            if (options.missing_directories == MissingDirectories::error && !root.is_default) {
                throw DiscoveryError(message);
            }
            note(codes::root_missing, Severity::info, root.path, std::move(message));
            continue;
        } catch (const Error& e) {
            throw DiscoveryError(fmt::format("cannot inspect library root {}: {}", root.path, e.what()));
        }
        if (st.kind != EntryKind::directory) {
            fail_or_skip(root, SkipReason::not_a_directory, codes::root_not_a_directory,
                         fmt::format("library root {} is not a directory", root.path));
            continue;
        }
        if (local) {
            // The same library reached twice (a symlinked root) is scanned once.
            std::error_code ec;
            fs::path canonical = fs::canonical(fs::path(root.path), ec);
            std::string key = ec ? root.path : canonical.string();
            if (std::find(seen_root_dirs.begin(), seen_root_dirs.end(), key) != seen_root_dirs.end()) continue;
            seen_root_dirs.push_back(std::move(key));
        }
        Listed& l = listed.emplace_back();
        l.root_index = ri;
        try {
            if (!local || !list_local_kinds(root.path, l)) {
                l.names.clear();
                l.children.clear();
                l.entries = reader->list_dir(root.path);
                l.children.reserve(l.entries.size());
                for (const DirEntry& e : l.entries) l.children.push_back(RootEntry{e.name, e.kind, e.is_symlink});
            }
        } catch (const Error& e) {
            throw DiscoveryError(fmt::format("cannot list library root {}: {}", root.path, e.what()));
        }
        const bool is_package = std::any_of(l.children.begin(), l.children.end(), [](const RootEntry& e) {
            return e.name == skill_file_name && e.kind == EntryKind::file;
        });
        if (is_package) {
            listed.pop_back();
            fail_or_skip(root, SkipReason::skill_package, codes::root_is_skill_package,
                         fmt::format("library root {} holds a SKILL.md itself: it is a skill, not a library of skills",
                                     root.path));
            continue;
        }
        std::sort(l.children.begin(), l.children.end(),
                  [](const RootEntry& a, const RootEntry& b) { return a.name < b.name; });
        // Keep the child directories (in place, order kept); say why an entry is refused.
        std::size_t n_children = 0;
        for (const RootEntry& e : l.children) {
            if (!is_plain_entry_name(e.name)) {
                // Only a broken reader lists such a name; following it could leave the root.
                note(codes::entry_name_refused, Severity::warning, join_path(root.path, e.name),
                     fmt::format("library root {} lists an entry named '{}', which is not one path component; it "
                                 "was ignored",
                                 root.path, e.name));
                continue;
            }
            if (e.kind == EntryKind::other && e.is_symlink) {
                // A dangling link, a link loop, or a target we may not look at: it may have been
                // a skill, so say so rather than pass over it.
                const std::string key = nfkc(e.name);
                if (include ? include->count(key) == 0 : exclude.count(key) != 0) continue;
                std::string path = join_path(root.path, e.name);
                std::string message = fmt::format(
                    "{} is a symbolic link that cannot be followed (dangling, a loop, or no permission)", path);
                note(codes::skill_unreadable, Severity::warning, path, message);
                out.skipped.push_back(SkippedSkill{std::move(path), SkipReason::unreadable, std::move(message)});
                continue;
            }
            if (e.kind == EntryKind::directory) l.children[n_children++] = e;
        }
        l.children.resize(n_children);
    }

    // An unchanged library: the last result again.
    if (std::optional<Discovery> same = reuse_snapshot(out.diagnostics, out.skipped, listed)) {
        if (options.on_diagnostic) {
            for (const auto& d : same->diagnostics) options.on_diagnostic(d);
        }
        return std::move(*same);
    }
    Diagnostics root_diagnostics = out.diagnostics;
    std::vector<SkippedSkill> root_skipped = out.skipped;
    std::size_t child_count = 0;
    for (const Listed& l : listed) child_count += l.children.size();
    candidates.reserve(child_count);
    for (const Listed& l : listed) {
        const Root& root = roots[l.root_index];
        for (const RootEntry& e : l.children) {
            Candidate c;
            c.root_index = l.root_index;
            c.library = root.path;
            c.child_dir = join_path(root.path, e.name);
            c.dir_name = std::string(e.name);
            c.is_symlink = e.is_symlink;
            candidates.push_back(std::move(c));
        }
    }

    // 2. Read and parse the children on worker threads; each writes only its own slot.
    parallel_for(candidates.size(), thread_count(), [&](std::size_t i) { process(candidates[i]); });

    // 3. Merge in order: precedence of roots, then children by name.
    struct Winner {
        std::size_t candidate;
    };
    // Views into the candidates and their cache entries, which outlive these maps.
    std::unordered_map<std::string_view, Winner> winners;  // NFKC name -> kept candidate
    std::unordered_set<std::string> skipped_dir_names;     // for the include check
    std::unordered_map<std::string, Kept> kept_now;
    std::unordered_set<std::string_view> live_keys;
    std::vector<std::shared_ptr<const SkillManifest>> kept_in_order;
    kept_in_order.reserve(candidates.size());
    live_keys.reserve(candidates.size());
    winners.reserve(candidates.size());
    kept_now.reserve(candidates.size());
    auto selected = [&](const std::string& key) {
        if (include) return include->count(key) > 0;
        return exclude.count(key) == 0;
    };
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        Candidate& c = candidates[i];
        if (!c.has_skill_file) continue;
        live_keys.insert(c.skill_file);
        const bool failed = c.failure.has_value() || !c.entry || !c.entry->manifest;
        if (failed) {
            // Without a name, selection goes by the directory name.
            const std::string dir_key = nfkc(c.dir_name);
            if (!selected(dir_key)) continue;
            skipped_dir_names.insert(dir_key);
            if (c.failure) {
                note(codes::skill_unreadable, Severity::error, c.skill_file, c.failure_message);
                out.skipped.push_back(SkippedSkill{c.skill_file, *c.failure, c.failure_message});
                continue;
            }
            const CacheEntry& e = *c.entry;
            out.diagnostics.insert(out.diagnostics.end(), e.diagnostics.begin(), e.diagnostics.end());
            if (first_error(e.diagnostics) == nullptr) {
                note(codes::skill_skipped, Severity::error, c.skill_file, e.skip_message);
            }
            out.skipped.push_back(
                SkippedSkill{c.skill_file, e.skip_reason.value_or(SkipReason::invalid), e.skip_message});
            continue;
        }
        const CacheEntry& e = *c.entry;
        const std::string& key = e.name_key;
        if (!selected(key)) continue;
        auto found = winners.find(key);
        if (found != winners.end()) {
            const Candidate& first = candidates[found->second.candidate];
            bool same_dir = first.skill_dir == c.skill_dir;
            if (!same_dir && local) {
                std::error_code ec1;
                std::error_code ec2;
                const fs::path a = fs::canonical(fs::path(first.skill_dir), ec1);
                const fs::path b = fs::canonical(fs::path(c.skill_dir), ec2);
                same_dir = !ec1 && !ec2 && a == b;
            }
            if (same_dir || same_bytes(*first.entry, first.skill_file, e, c.skill_file)) {
                note(codes::duplicate_copy, Severity::info, c.skill_file,
                     fmt::format("{} is the same skill as {} ({}); it counts once", c.skill_file, first.skill_file,
                                 same_dir ? "same directory" : "byte-identical SKILL.md"));
                continue;
            }
            std::string message = fmt::format("skill name '{}' of {} is already used by {}", e.manifest->name,
                                              c.skill_file, first.skill_file);
            if (options.duplicate_names == DuplicateNames::error) throw DiscoveryError(message);
            note(codes::duplicate_name, Severity::warning, c.skill_file, message);
            out.skipped.push_back(SkippedSkill{c.skill_file, SkipReason::duplicate_name, std::move(message)});
            continue;
        }
        winners.emplace(key, Winner{i});
        out.diagnostics.insert(out.diagnostics.end(), e.diagnostics.begin(), e.diagnostics.end());
        // The cached manifest has this candidate's paths, unless the same file was cached under
        // another root (a symlinked library): then a copy gets the right ones.
        std::shared_ptr<const SkillManifest> manifest(c.entry, &*e.manifest);
        if (e.manifest->skill_file != c.skill_file || e.manifest->root != c.skill_dir ||
            e.manifest->library != c.library) {
            auto placed = std::make_shared<SkillManifest>(*e.manifest);
            placed->skill_file = c.skill_file;
            placed->root = c.skill_dir;
            placed->library = c.library;
            manifest = std::move(placed);
        }
        kept_in_order.push_back(std::move(manifest));
        kept_now.emplace(key, Kept{c.entry, c.skill_file, c.skill_dir, c.library});
    }

    if (include) {
        std::vector<std::string> unknown;
        for (const auto& name : *options.include) {
            const std::string key = nfkc(name);
            if (winners.count(std::string_view(key)) == 0 && skipped_dir_names.count(key) == 0) unknown.push_back(name);
        }
        if (!unknown.empty()) {
            std::string list;
            for (const auto& n : unknown) list += (list.empty() ? "'" : ", '") + n + "'";
            throw DiscoveryError(fmt::format("include names no discovered skill: {}", list));
        }
    }
    // The caller's copies of the kept manifests, made on the worker threads.
    out.skills.resize(kept_in_order.size());
    parallel_for(kept_in_order.size(), thread_count(), [&](std::size_t i) { out.skills[i] = *kept_in_order[i]; });

    // 4. Publish: forget cache entries of files that are gone, swap in what load() serves.
    {
        std::lock_guard lock(cache_mutex);
        for (auto it = cache.begin(); it != cache.end();) {
            it = live_keys.count(it->first) > 0 ? std::next(it) : cache.erase(it);
        }
    }
    {
        // Of two overlapping discoveries, the one that started later wins, whichever ends last.
        std::unique_lock lock(kept_mutex);
        if (ticket > published_ticket) {
            kept = std::move(kept_now);
            published_ticket = ticket;
        }
        discovered = true;
    }
    // Remember this discovery for reuse, unless a child could not be read (tried again every
    // time), is a symlink (its target may change without the listing changing), or has bytes
    // that its stat cannot vouch for (re-read next time).
    std::shared_ptr<Snapshot> snap;
    const bool reusable = std::none_of(candidates.begin(), candidates.end(), [](const Candidate& c) {
        return c.is_symlink || c.failure.has_value() || (c.has_skill_file && (!c.entry || c.entry->verify));
    });
    if (reusable) {
        snap = std::make_shared<Snapshot>();
        snap->root_diagnostics = std::move(root_diagnostics);
        snap->root_skipped = std::move(root_skipped);
        snap->children.reserve(candidates.size());
        for (const Candidate& c : candidates) {
            Snapshot::Child child;
            child.root_index = c.root_index;
            child.dir_name = c.dir_name;
            child.relative = join_path(c.dir_name, skill_file_name);
            if (c.has_skill_file) {
                child.skill_file = c.skill_file;
                child.stat = c.entry->stat;
            }
            snap->children.push_back(std::move(child));
        }
        snap->skills = std::move(kept_in_order);
        snap->skipped = out.skipped;
        snap->diagnostics = out.diagnostics;
    }
    {
        std::lock_guard lock(snapshot_mutex);
        snapshot = std::move(snap);
    }
    if (options.on_diagnostic) {
        for (const auto& d : out.diagnostics) options.on_diagnostic(d);
    }
    return out;
}

FilesystemSkillLoader::FilesystemSkillLoader(FilesystemLoaderOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

FilesystemSkillLoader::~FilesystemSkillLoader() = default;

Discovery FilesystemSkillLoader::discover() { return impl_->discover(); }

LoadedSkill FilesystemSkillLoader::load(std::string_view name) {
    bool need_discovery = false;
    {
        std::shared_lock lock(impl_->kept_mutex);
        need_discovery = !impl_->discovered;
    }
    if (need_discovery) (void)impl_->discover();
    LoadedSkill out;
    {
        std::shared_lock lock(impl_->kept_mutex);
        auto it = impl_->kept.find(nfkc(name));
        if (it == impl_->kept.end()) throw NotFoundError(fmt::format("no discovered skill named '{}'", name));
        const Kept& k = it->second;
        out.manifest = *k.entry->manifest;
        out.manifest.skill_file = k.skill_file;
        out.manifest.root = k.skill_dir;
        out.manifest.library = k.library;
        out.instructions = k.entry->body;
    }
    out.resources = list_skill_resources(*impl_->reader, out.manifest.root);
    return out;
}

const FilesystemLoaderOptions& FilesystemSkillLoader::options() const noexcept { return impl_->options; }

const SkillReaderPtr& FilesystemSkillLoader::reader() const noexcept { return impl_->reader; }

// ---------------------------------------------------------------------------------------

std::vector<SkillResource> list_skill_resources(const SkillReader& reader, std::string_view skill_dir) {
    constexpr std::size_t max_depth = 64;  // a guard for readers that report cycles as plain directories
    std::vector<std::string> files;
    struct Pending {
        std::string relative;  // "" for the skill directory itself
        std::size_t depth;
    };
    std::vector<Pending> stack{{std::string(), 0}};
    while (!stack.empty()) {
        Pending dir = std::move(stack.back());
        stack.pop_back();
        const std::string path = dir.relative.empty() ? std::string(skill_dir) : join_path(skill_dir, dir.relative);
        std::vector<DirEntry> entries;
        if (dir.relative.empty()) {
            entries = reader.list_dir(path);  // the skill directory itself: its errors are the caller's
        } else {
            try {
                entries = reader.list_dir(path);
            } catch (const Error&) {
                continue;  // a subdirectory that vanished or cannot be listed costs only its own files
            }
        }
        for (const DirEntry& e : entries) {
            if (!is_plain_entry_name(e.name)) continue;
            std::string relative = dir.relative.empty() ? e.name : dir.relative + "/" + e.name;
            if (e.kind == EntryKind::directory) {
                if (!e.is_symlink && dir.depth + 1 < max_depth) stack.push_back({std::move(relative), dir.depth + 1});
                continue;
            }
            if (e.kind != EntryKind::file) continue;
            if (dir.relative.empty() && e.name == skill_file_name) continue;
            files.push_back(std::move(relative));
        }
    }
    auto group = [](std::string_view p) {
        if (p.starts_with("scripts/")) return 0;
        if (p.starts_with("references/")) return 1;
        if (p.starts_with("assets/")) return 2;
        return 3;
    };
    std::sort(files.begin(), files.end(), [&](const std::string& a, const std::string& b) {
        const int ga = group(a);
        const int gb = group(b);
        return ga != gb ? ga < gb : a < b;
    });
    std::vector<SkillResource> out;
    out.reserve(files.size());
    for (auto& f : files) out.push_back(SkillResource{std::move(f)});
    return out;
}

}  // namespace agentskills
