// The SQLite activation store.
//
// The file is not trusted to run code in the host: it is opened without following a symbolic
// link, in SQLite's defensive mode with an untrusted schema and triggers and views off, and its
// schema must be exactly the store's (checked at open and again at the start of any transaction
// after the schema changed). A claim is tied to its holder being alive: the holder keeps an
// open-file-description lock (fcntl F_OFD_SETLK) on one byte of the side file `<file>-claims`,
// which the kernel drops when the process dies, so the next claimant takes it over at once.
// See docs/security.md, "The SQLite activation store".
#include "agentskills/sqlite/sqlite_store.hpp"

#include <sqlite3.h>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <unordered_map>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"

namespace agentskills {

namespace {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// A failure of an SQLite call, with its result code; the store adds what it was doing.
class DbError : public Error {
public:
    DbError(int code, const std::string& message) : Error(message), code_(code) {}
    [[nodiscard]] int code() const noexcept { return code_; }

private:
    int code_;
};

[[noreturn]] void fail(sqlite3* db, int rc) { throw DbError(rc, sqlite3_errmsg(db)); }

/// One prepared statement, finalized on destruction.
class Statement {
public:
    Statement(sqlite3* db, std::string_view sql) : db_(db) {
        const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr);
        if (rc != SQLITE_OK) fail(db, rc);
    }
    ~Statement() { sqlite3_finalize(stmt_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, std::string_view text) {
        check(sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT));
        return *this;
    }
    Statement& bind(int index, std::int64_t value) {
        check(sqlite3_bind_int64(stmt_, index, value));
        return *this;
    }
    Statement& bind_null(int index) {
        check(sqlite3_bind_null(stmt_, index));
        return *this;
    }
    /// Steps once: true for a row, false when done.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        fail(db_, rc);
    }
    [[nodiscard]] bool is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
    [[nodiscard]] std::string text(int column) const {
        const auto* p = sqlite3_column_text(stmt_, column);
        return p == nullptr ? std::string()
                            : std::string(reinterpret_cast<const char*>(p),
                                          static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
    }
    [[nodiscard]] std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }

private:
    void check(int rc) const {
        if (rc != SQLITE_OK) fail(db_, rc);
    }
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

// ---------------------------------------------------------------------------------------
// The schema: every object the file may hold, exactly (sqlite_master's type, name, tbl_name and
// sql). The two first tables are written as every earlier version wrote them (SQLite stores the
// statement without `IF NOT EXISTS`), so their files are read; a file without the claims table
// gets it.

struct SchemaObject {
    std::string_view type;
    std::string_view name;
    std::string_view table;
    std::optional<std::string_view> sql;  // nullopt: an index SQLite makes for a key (sql NULL)
};

constexpr std::array<SchemaObject, 8> schema{{
    {"table", "agentskills_activations", "agentskills_activations",
     "CREATE TABLE agentskills_activations ( conversation TEXT NOT NULL, name TEXT NOT NULL,"
     " state TEXT NOT NULL CHECK (state IN ('pending', 'active')), seq INTEGER, claimed_at_ms INTEGER NOT NULL,"
     " PRIMARY KEY (conversation, name))"},
    {"index", "sqlite_autoindex_agentskills_activations_1", "agentskills_activations", std::nullopt},
    {"table", "agentskills_conversations", "agentskills_conversations",
     "CREATE TABLE agentskills_conversations ( conversation TEXT PRIMARY KEY, prompt_delivered INTEGER NOT NULL"
     " DEFAULT 0)"},
    {"index", "sqlite_autoindex_agentskills_conversations_1", "agentskills_conversations", std::nullopt},
    // Who holds each unconfirmed claim: the byte of `<file>-claims` its holder keeps locked
    // (NULL where the platform has no OFD locks), its process id and host, for the messages.
    {"table", "agentskills_claims", "agentskills_claims",
     "CREATE TABLE agentskills_claims ( conversation TEXT NOT NULL, name TEXT NOT NULL, lock_offset INTEGER,"
     " holder_pid INTEGER NOT NULL, holder_host TEXT NOT NULL, PRIMARY KEY (conversation, name))"},
    {"index", "sqlite_autoindex_agentskills_claims_1", "agentskills_claims", std::nullopt},
    // The sessions of SqliteSessionStore (an MCP server's handshake era), their activations in
    // the tables above under conversation `mcp-session:<id>`.
    {"table", "agentskills_sessions", "agentskills_sessions",
     "CREATE TABLE agentskills_sessions ( id TEXT PRIMARY KEY, version TEXT NOT NULL, client TEXT NOT NULL,"
     " last_seen_ms INTEGER NOT NULL)"},
    {"index", "sqlite_autoindex_agentskills_sessions_1", "agentskills_sessions", std::nullopt},
}};

const SchemaObject* expected_object(std::string_view name) {
    for (const auto& o : schema) {
        if (o.name == name) return &o;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------
// The file's path

/// `path` with its directory resolved (realpath) and its last component kept: the file itself
/// is never followed (SQLITE_OPEN_NOFOLLOW would refuse a link anywhere on the path, such as
/// Debian's /var/run). Throws Error for a path that names no file or whose file is a link.
std::string resolve_store_path(const std::string& path) {
    if (path.empty() || path == ":memory:" || path.back() == '/') {
        throw Error(fmt::format("sqlite activation store: '{}' is not a file path", path));
    }
    const auto slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    if (base == "." || base == "..") {
        throw Error(fmt::format("sqlite activation store: '{}' is not a file path", path));
    }
    std::unique_ptr<char, decltype(&std::free)> real(::realpath(dir.c_str(), nullptr), &std::free);
    if (!real) {
        throw Error(
            fmt::format("sqlite activation store: cannot open '{}': its directory: {}", path, std::strerror(errno)));
    }
    std::string full = real.get();
    if (full.back() != '/') full += '/';
    full += base;
    struct stat st {};
    if (::lstat(full.c_str(), &st) == 0) {
        if (S_ISLNK(st.st_mode)) {
            throw Error(
                fmt::format("sqlite activation store: '{}' is a symbolic link; the store opens only a regular "
                            "file itself, never a link's target",
                            path));
        }
        if (!S_ISREG(st.st_mode)) {
            throw Error(fmt::format("sqlite activation store: '{}' is not a regular file", path));
        }
    }
    return full;
}

// ---------------------------------------------------------------------------------------
// Claim locks: one byte of `<file>-claims` per claim, locked by its holder with an
// open-file-description lock. The kernel drops it when the holder's last descriptor of that
// open file closes, which includes the process dying by any signal.

#if defined(F_OFD_SETLK) && defined(F_OFD_GETLK)
constexpr bool have_claim_locks = true;

struct flock byte_lock(short type, std::int64_t offset) {
    struct flock fl {};
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = static_cast<off_t>(offset);
    fl.l_len = 1;
    return fl;
}
#else
constexpr bool have_claim_locks = false;
#endif

std::string host_name() {
    std::array<char, 256> buffer{};
    if (::gethostname(buffer.data(), buffer.size() - 1) != 0) return "?";
    return buffer.data();
}

}  // namespace

struct SqliteActivationStore::Impl {
    SqliteStoreOptions options;
    std::string path;       // as the caller gave it (messages)
    std::string full_path;  // its directory resolved: what SQLite opens
    mutable std::mutex mutex;
    sqlite3* db = nullptr;
    int lock_fd = -1;
    std::string lock_path;
    std::random_device random;  // the system's random source (getrandom or rdrand), not a seeded engine
    std::int64_t pid = static_cast<std::int64_t>(::getpid());
    std::string host = host_name();
    /// The claims this store holds: name -> the locked byte (nullopt without claim locks).
    std::unordered_map<std::string, std::optional<std::int64_t>> held;
    /// The schema version (PRAGMA schema_version) last checked against `schema`.
    mutable std::optional<std::int64_t> checked_version;

    ~Impl() {
        if (lock_fd >= 0) ::close(lock_fd);
        if (db != nullptr) sqlite3_close(db);
    }

    void exec(const char* sql) const {
        const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
        if (rc != SQLITE_OK) fail(db, rc);
    }

    /// What an error of the database says, with what the store was doing.
    [[nodiscard]] Error describe(const DbError& e, std::string_view action, std::string_view name) const {
        std::string what = e.what();
        if ((e.code() & 0xFF) == SQLITE_BUSY || (e.code() & 0xFF) == SQLITE_LOCKED) {
            what = fmt::format("another connection kept the database locked for the busy timeout of {} ms ({})",
                               options.busy_timeout.count(), what);
        }
        if (name.empty()) return Error(fmt::format("sqlite activation store '{}': {}: {}", path, action, what));
        return Error(fmt::format("sqlite activation store '{}': {} '{}' in conversation '{}': {}", path, action, name,
                                 options.conversation, what));
    }

    /// Runs `fn` inside BEGIN IMMEDIATE (a write) or BEGIN (a read) ... COMMIT, after checking
    /// that the schema is still the one checked (ROLLBACK when anything throws). `action` and
    /// `name` say what for, in the errors.
    template <class F>
    auto transaction(bool write, std::string_view action, std::string_view name, F&& fn) const {
        try {
            exec(write ? "BEGIN IMMEDIATE" : "BEGIN");
            try {
                ensure_schema(false);
                if constexpr (std::is_void_v<decltype(fn())>) {
                    fn();
                    exec("COMMIT");
                } else {
                    auto result = fn();
                    exec("COMMIT");
                    return result;
                }
            } catch (...) {
                sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
                throw;
            }
        } catch (const DbError& e) {
            throw describe(e, action, name);
        }
    }

    /// Checks sqlite_master against `schema` when the schema version changed since the last
    /// check (inside a transaction, so nobody changes it meanwhile); with `create`, creates the
    /// tables that are missing first. Throws Error naming the first object that differs.
    void ensure_schema(bool create) const {
        const std::int64_t version = [&] {
            Statement q(db, "PRAGMA schema_version");
            (void)q.step();
            return q.integer(0);
        }();
        if (checked_version && *checked_version == version) return;
        std::vector<std::string_view> present;
        {
            Statement objects(db, "SELECT type, name, tbl_name, sql FROM sqlite_master");
            while (objects.step()) {
                const std::string type = objects.text(0);
                const std::string name = objects.text(1);
                const SchemaObject* want = expected_object(name);
                if (want == nullptr) {
                    throw Error(
                        fmt::format("sqlite activation store: '{}' holds the {} '{}', which the store does "
                                    "not create; refusing the file",
                                    path, type, name));
                }
                const bool same =
                    type == want->type && objects.text(2) == want->table &&
                    (want->sql ? !objects.is_null(3) && objects.text(3) == *want->sql : objects.is_null(3));
                if (!same) {
                    throw Error(
                        fmt::format("sqlite activation store: '{}': the {} '{}' differs from the store's "
                                    "schema; refusing the file",
                                    path, type, name));
                }
                present.push_back(want->name);
            }
        }
        for (const auto& o : schema) {
            if (std::find(present.begin(), present.end(), o.name) != present.end()) continue;
            if (create && o.type == "table") {
                exec(std::string(*o.sql).c_str());
            } else if (!create) {
                throw Error(
                    fmt::format("sqlite activation store: '{}' lacks the {} '{}' of the store's schema; "
                                "refusing the file",
                                path, o.type, o.name));
            }
        }
        // Check again (what was created, and every index of a key, must now be there exactly).
        if (create) return ensure_schema(false);
        checked_version = version;
    }

    // -----------------------------------------------------------------------------------
    // Claim locks

    void open_lock_file() {
        if (!have_claim_locks) return;
        struct stat db_stat {};
        const mode_t mode = ::stat(full_path.c_str(), &db_stat) == 0 ? (db_stat.st_mode & 0666) : 0644;
        lock_path = full_path + "-claims";
        lock_fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, mode);
        if (lock_fd < 0) {
            throw Error(fmt::format("sqlite activation store: cannot open the claim lock file '{}': {}{}", lock_path,
                                    std::strerror(errno),
                                    errno == ELOOP ? " (a symbolic link; the store never follows one)" : ""));
        }
        struct stat st {};
        if (::fstat(lock_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            throw Error(
                fmt::format("sqlite activation store: the claim lock file '{}' is not a regular file", lock_path));
        }
        (void)is_locked(0);  // the file system supports the locks (throws otherwise)
    }

    /// Whether another open file (another store, or another process) holds the lock on `offset`.
    [[nodiscard]] bool is_locked(std::int64_t offset) const {
#if defined(F_OFD_GETLK)
        struct flock fl = byte_lock(F_WRLCK, offset);
        if (::fcntl(lock_fd, F_OFD_GETLK, &fl) != 0) {
            throw Error(fmt::format("sqlite activation store: cannot test a claim lock in '{}': {}", lock_path,
                                    std::strerror(errno)));
        }
        return fl.l_type != F_UNLCK;
#else
        (void)offset;
        return true;
#endif
    }

    /// Locks a fresh byte for a new claim and returns its offset (nullopt without claim locks).
    [[nodiscard]] std::optional<std::int64_t> lock_new_byte() {
#if defined(F_OFD_SETLK)
        for (int attempt = 0; attempt < 64; ++attempt) {
            // A random byte below 2^62 (62 random bits): two claims meet on one byte about once in
            // 2^62 / n^2 for n claims held at once.
            const std::uint64_t bits = (std::uint64_t{random()} << 32) | std::uint64_t{random()};
            const auto offset = static_cast<std::int64_t>(bits >> 2);
            struct flock fl = byte_lock(F_WRLCK, offset);
            if (::fcntl(lock_fd, F_OFD_SETLK, &fl) == 0) return offset;
            if (errno != EAGAIN && errno != EACCES) {
                throw Error(fmt::format("sqlite activation store: cannot lock a claim in '{}': {}", lock_path,
                                        std::strerror(errno)));
            }
        }
        throw Error(fmt::format("sqlite activation store: no free claim lock in '{}'", lock_path));
#else
        return std::nullopt;
#endif
    }

    void unlock_byte(std::optional<std::int64_t> offset) const noexcept {
#if defined(F_OFD_SETLK)
        if (!offset) return;
        struct flock fl = byte_lock(F_UNLCK, *offset);
        (void)::fcntl(lock_fd, F_OFD_SETLK, &fl);
#else
        (void)offset;
#endif
    }

    /// Releases this store's claim on `name`, if it holds one.
    void release(std::string_view name) {
        auto it = held.find(std::string(name));
        if (it == held.end()) return;
        unlock_byte(it->second);
        held.erase(it);
    }

    // -----------------------------------------------------------------------------------
    // Claims as they are in the file

    struct ClaimRow {
        bool active = false;
        std::int64_t claimed_at_ms = 0;
        bool has_holder = false;  // a claims row: written by this version of the store
        std::optional<std::int64_t> lock_offset;
        std::int64_t holder_pid = 0;
        std::string holder_host;
    };

    [[nodiscard]] std::optional<ClaimRow> read_claim(std::string_view name) const {
        Statement find(db,
                       "SELECT a.state, a.claimed_at_ms, c.name IS NOT NULL, c.lock_offset, c.holder_pid, "
                       "c.holder_host FROM agentskills_activations a LEFT JOIN agentskills_claims c"
                       " ON c.conversation = a.conversation AND c.name = a.name"
                       " WHERE a.conversation = ?1 AND a.name = ?2");
        find.bind(1, options.conversation).bind(2, name);
        if (!find.step()) return std::nullopt;
        ClaimRow row;
        row.active = find.text(0) == "active";
        row.claimed_at_ms = find.integer(1);
        row.has_holder = find.integer(2) != 0;
        if (!find.is_null(3)) row.lock_offset = find.integer(3);
        row.holder_pid = find.integer(4);
        row.holder_host = find.text(5);
        return row;
    }

    /// Whether the holder of a pending claim is alive as far as the store can tell: this store
    /// holds it, or its byte is locked; a claim written without a lock (an older version of the
    /// library, or no OFD locks) counts as alive until `stale_claim_after`.
    [[nodiscard]] bool holder_alive(std::string_view name, const ClaimRow& row, std::int64_t now) const {
        if (held.count(std::string(name)) != 0) return true;
        if (row.lock_offset && lock_fd >= 0) return is_locked(*row.lock_offset);
        return now - row.claimed_at_ms < options.stale_claim_after.count();
    }

    [[nodiscard]] std::string describe_holder(std::string_view name, const ClaimRow& row, std::int64_t now) const {
        if (held.count(std::string(name)) != 0) {
            return fmt::format("by another call through this store, in this process ({}), {} ms ago", pid,
                               now - row.claimed_at_ms);
        }
        if (!row.has_holder) {
            return fmt::format(
                "by a caller that recorded no holder (an earlier version of this library), {} ms ago; "
                "such a claim counts as abandoned after {} ms (stale_claim_after)",
                now - row.claimed_at_ms, options.stale_claim_after.count());
        }
        return fmt::format("by process {} on host '{}', {} ms ago, which is alive (it holds the claim's lock in '{}')",
                           row.holder_pid, row.holder_host, now - row.claimed_at_ms, lock_path);
    }
};

SqliteActivationStore::SqliteActivationStore(const std::string& path, SqliteStoreOptions options)
    : impl_(std::make_unique<Impl>()) {
    Impl& s = *impl_;
    s.options = std::move(options);
    s.path = path;
    s.full_path = resolve_store_path(path);
    const int rc = sqlite3_open_v2(
        s.full_path.c_str(), &s.db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW, nullptr);
    if (rc != SQLITE_OK) {
        const int code = s.db != nullptr ? sqlite3_extended_errcode(s.db) : rc;
        std::string what = s.db != nullptr ? sqlite3_errmsg(s.db) : sqlite3_errstr(rc);
        if (code == SQLITE_CANTOPEN_SYMLINK) what = "it is a symbolic link; the store never follows one";
        throw Error(fmt::format("sqlite activation store: cannot open '{}': {}", path, what));
    }
    // The file may come from anyone who can write its directory: it must not run code here.
    // Defensive mode (no writable_schema, no corrupting pragmas), functions in the schema
    // untrusted, no triggers and no views (the store uses neither; the schema check below
    // refuses them too).
    for (const auto& [option, value] : std::array<std::pair<int, int>, 4>{{{SQLITE_DBCONFIG_DEFENSIVE, 1},
                                                                           {SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0},
                                                                           {SQLITE_DBCONFIG_ENABLE_TRIGGER, 0},
                                                                           {SQLITE_DBCONFIG_ENABLE_VIEW, 0}}}) {
        int now_set = -1;
        if (sqlite3_db_config(s.db, option, value, &now_set) != SQLITE_OK || now_set != value) {
            throw Error(fmt::format("sqlite activation store: cannot configure '{}' defensively ({})", path,
                                    sqlite3_errmsg(s.db)));
        }
    }
    const auto timeout = std::clamp<std::int64_t>(s.options.busy_timeout.count(), 0, 1 << 30);
    sqlite3_busy_timeout(s.db, static_cast<int>(timeout));
    try {
        s.exec("BEGIN IMMEDIATE");
        try {
            s.ensure_schema(true);
            s.exec("COMMIT");
        } catch (...) {
            sqlite3_exec(s.db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    } catch (const DbError& e) {
        throw s.describe(e, "opening", "");
    }
    s.open_lock_file();
}

SqliteActivationStore::~SqliteActivationStore() = default;

const SqliteStoreOptions& SqliteActivationStore::options() const noexcept { return impl_->options; }

ClaimResult SqliteActivationStore::claim(std::string_view name) {
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    std::optional<std::int64_t> locked;  // the byte locked for this claim, until the commit
    try {
        const ClaimResult result = s.transaction(true, "claiming", name, [&] {
            const std::int64_t now = now_ms();
            const std::optional<Impl::ClaimRow> row = s.read_claim(name);
            if (row && row->active) return ClaimResult::already_active;
            if (row && s.holder_alive(name, *row, now)) return ClaimResult::in_progress;
            // New, or its holder is gone: this store claims it.
            locked = s.lock_new_byte();
            if (row) {
                Statement renew(
                    s.db,
                    "UPDATE agentskills_activations SET claimed_at_ms = ?3 WHERE conversation = ?1 AND name = ?2");
                renew.bind(1, s.options.conversation).bind(2, name).bind(3, now);
                (void)renew.step();
            } else {
                Statement insert(s.db,
                                 "INSERT INTO agentskills_activations (conversation, name, state, seq, claimed_at_ms)"
                                 " VALUES (?1, ?2, 'pending', NULL, ?3)");
                insert.bind(1, s.options.conversation).bind(2, name).bind(3, now);
                (void)insert.step();
            }
            Statement holder(s.db,
                             "INSERT OR REPLACE INTO agentskills_claims"
                             " (conversation, name, lock_offset, holder_pid, holder_host) VALUES (?1, ?2, ?3, ?4, ?5)");
            holder.bind(1, s.options.conversation).bind(2, name);
            if (locked) {
                holder.bind(3, *locked);
            } else {
                holder.bind_null(3);
            }
            holder.bind(4, s.pid).bind(5, s.host);
            (void)holder.step();
            return ClaimResult::claimed;
        });
        if (result == ClaimResult::claimed) {
            s.release(name);  // a claim of this store that another store's reset() dropped
            s.held.emplace(std::string(name), locked);
        }
        return result;
    } catch (...) {
        s.unlock_byte(locked);
        throw;
    }
}

void SqliteActivationStore::confirm(std::string_view name) {
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    s.transaction(true, "confirming", name, [&] {
        Statement next(s.db, "SELECT COALESCE(MAX(seq), 0) + 1 FROM agentskills_activations WHERE conversation = ?1");
        next.bind(1, s.options.conversation);
        (void)next.step();
        const std::int64_t seq = next.integer(0);
        Statement upsert(s.db,
                         "INSERT INTO agentskills_activations (conversation, name, state, seq, claimed_at_ms)"
                         " VALUES (?1, ?2, 'active', ?3, ?4)"
                         " ON CONFLICT (conversation, name) DO UPDATE SET state = 'active', seq = ?3"
                         " WHERE state = 'pending'");
        upsert.bind(1, s.options.conversation).bind(2, name).bind(3, seq).bind(4, now_ms());
        (void)upsert.step();
        Statement done(s.db, "DELETE FROM agentskills_claims WHERE conversation = ?1 AND name = ?2");
        done.bind(1, s.options.conversation).bind(2, name);
        (void)done.step();
    });
    s.release(name);  // after the commit: nobody sees the claim pending without its lock
}

void SqliteActivationStore::roll_back(std::string_view name) {
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    s.transaction(true, "rolling back", name, [&] {
        Statement drop(
            s.db, "DELETE FROM agentskills_activations WHERE conversation = ?1 AND name = ?2 AND state = 'pending'");
        drop.bind(1, s.options.conversation).bind(2, name);
        (void)drop.step();
        Statement holder(s.db, "DELETE FROM agentskills_claims WHERE conversation = ?1 AND name = ?2");
        holder.bind(1, s.options.conversation).bind(2, name);
        (void)holder.step();
    });
    s.release(name);
}

std::vector<std::string> SqliteActivationStore::active_names() const {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    return s.transaction(false, "listing the active skills", "", [&] {
        Statement list(
            s.db, "SELECT name FROM agentskills_activations WHERE conversation = ?1 AND state = 'active' ORDER BY seq");
        list.bind(1, s.options.conversation);
        std::vector<std::string> out;
        while (list.step()) out.push_back(list.text(0));
        return out;
    });
}

bool SqliteActivationStore::prompt_delivered() const {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    return s.transaction(false, "reading the prompt's delivery", "", [&] {
        Statement q(s.db, "SELECT prompt_delivered FROM agentskills_conversations WHERE conversation = ?1");
        q.bind(1, s.options.conversation);
        return q.step() && q.integer(0) != 0;
    });
}

bool SqliteActivationStore::mark_prompt_delivered() {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    return s.transaction(true, "recording the prompt's delivery", "", [&] {
        Statement q(s.db, "SELECT prompt_delivered FROM agentskills_conversations WHERE conversation = ?1");
        q.bind(1, s.options.conversation);
        if (q.step() && q.integer(0) != 0) return false;
        Statement set(s.db,
                      "INSERT INTO agentskills_conversations (conversation, prompt_delivered) VALUES (?1, 1)"
                      " ON CONFLICT (conversation) DO UPDATE SET prompt_delivered = 1");
        set.bind(1, s.options.conversation);
        (void)set.step();
        return true;
    });
}

namespace {

/// The wait of one activation call on this thread: SkillActivator passes the same deadline to
/// every wait_for_change of one call, so a new store, name or deadline starts a new wait.
struct ThreadWait {
    const void* store = nullptr;
    std::string name;
    std::chrono::steady_clock::time_point deadline;
    std::chrono::steady_clock::time_point started;
};
thread_local ThreadWait thread_wait;

}  // namespace

void SqliteActivationStore::wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    ThreadWait& w = thread_wait;
    if (w.store != this || w.name != name || w.deadline != deadline) w = {this, std::string(name), deadline, now};
    const Impl& s = *impl_;
    if (now - w.started >= s.options.busy_timeout) {
        // Waited the busy timeout for another caller's claim: say whose, unless it changed.
        std::lock_guard lock(impl_->mutex);
        const std::int64_t wall = now_ms();
        std::optional<std::string> holder = s.transaction(false, "waiting for", name, [&] {
            const std::optional<Impl::ClaimRow> row = s.read_claim(name);
            std::optional<std::string> out;
            if (row && !row->active && s.holder_alive(name, *row, wall)) out = s.describe_holder(name, *row, wall);
            return out;
        });
        if (!holder) return;  // settled, or its holder is gone: the caller claims again
        w = {};
        throw Error(
            fmt::format("sqlite activation store '{}': waited {} ms (the busy timeout) for the skill '{}' in "
                        "conversation '{}': it is claimed {}",
                        s.path, s.options.busy_timeout.count(), name, s.options.conversation, *holder));
    }
    const auto until = std::min({deadline, w.started + s.options.busy_timeout,
                                 now + std::chrono::steady_clock::duration(std::chrono::milliseconds(10))});
    if (until > now) std::this_thread::sleep_for(until - now);
}

void SqliteActivationStore::reset() {
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    s.transaction(true, "resetting", "", [&] {
        for (const char* sql : {"DELETE FROM agentskills_activations WHERE conversation = ?1",
                                "DELETE FROM agentskills_conversations WHERE conversation = ?1",
                                "DELETE FROM agentskills_claims WHERE conversation = ?1"}) {
            Statement q(s.db, sql);
            q.bind(1, s.options.conversation);
            (void)q.step();
        }
    });
    for (auto& [name, offset] : s.held) s.unlock_byte(offset);
    s.held.clear();
}

// ---------------------------------------------------------------------------------------
// SqliteSessionStore: its table in the file of the activation stores, through one of them.

struct SqliteSessionStore::Impl {
    std::string path;
    SqliteStoreOptions options;
    std::unique_ptr<SqliteActivationStore> base;  // its connection, schema check and transactions

    /// Deletes the sessions `where` selects (parameters bound by `bind`) and their activations;
    /// returns how many sessions went. Inside a transaction.
    template <class Bind>
    std::int64_t forget(const std::string& where, Bind&& bind) const {
        const SqliteActivationStore::Impl& s = *base->impl_;
        for (const char* table : {"agentskills_activations", "agentskills_conversations", "agentskills_claims"}) {
            Statement q(s.db, fmt::format("DELETE FROM {} WHERE conversation IN (SELECT '{}' || id FROM "
                                          "agentskills_sessions WHERE {})",
                                          table, session_conversation(""), where));
            bind(q);
            (void)q.step();
        }
        Statement q(s.db, "DELETE FROM agentskills_sessions WHERE " + where);
        bind(q);
        (void)q.step();
        return sqlite3_changes(s.db);
    }
};

SqliteSessionStore::SqliteSessionStore(const std::string& path, SqliteStoreOptions options)
    : impl_(std::make_unique<Impl>()) {
    impl_->path = path;
    impl_->options = std::move(options);
    impl_->base = std::make_unique<SqliteActivationStore>(path, impl_->options);
}

SqliteSessionStore::~SqliteSessionStore() = default;

SessionOpen SqliteSessionStore::open(std::string_view id, std::string_view version, std::string_view client,
                                     const SessionLimits& limits) {
    const SqliteActivationStore::Impl& s = *impl_->base->impl_;
    std::lock_guard lock(s.mutex);
    return s.transaction(true, "opening a session", "", [&] {
        const std::int64_t now = now_ms();
        (void)impl_->forget("last_seen_ms < ?1", [&](Statement& q) {
            q.bind(1, now - static_cast<std::int64_t>(bounded_idle_timeout(limits.idle_timeout).count()));
        });
        const auto count = [&](const char* sql, std::optional<std::string_view> who) {
            Statement q(s.db, sql);
            if (who) q.bind(1, *who);
            (void)q.step();
            return static_cast<std::size_t>(q.integer(0));
        };
        if (limits.max_sessions != 0 &&
            count("SELECT count(*) FROM agentskills_sessions", std::nullopt) >= limits.max_sessions)
            return SessionOpen::full;
        if (limits.max_per_client != 0 &&
            count("SELECT count(*) FROM agentskills_sessions WHERE client = ?1", client) >= limits.max_per_client)
            return SessionOpen::client_full;
        Statement insert(
            s.db, "INSERT INTO agentskills_sessions (id, version, client, last_seen_ms) VALUES (?1, ?2, ?3, ?4)");
        insert.bind(1, id).bind(2, version).bind(3, client).bind(4, now);
        (void)insert.step();
        return SessionOpen::opened;
    });
}

std::optional<std::string> SqliteSessionStore::touch(std::string_view id, std::chrono::milliseconds idle_timeout) {
    const SqliteActivationStore::Impl& s = *impl_->base->impl_;
    std::lock_guard lock(s.mutex);
    return s.transaction(true, "looking a session up", "", [&]() -> std::optional<std::string> {
        const std::int64_t now = now_ms();
        const std::int64_t oldest = now - static_cast<std::int64_t>(bounded_idle_timeout(idle_timeout).count());
        Statement q(s.db,
                    "UPDATE agentskills_sessions SET last_seen_ms = ?2 WHERE id = ?1 AND last_seen_ms >= ?3 "
                    "RETURNING version");
        q.bind(1, id).bind(2, now).bind(3, oldest);
        if (q.step()) {
            std::string version = q.text(0);
            while (q.step()) {
            }
            return version;
        }
        (void)impl_->forget("id = ?1 AND last_seen_ms < ?2", [&](Statement& f) { f.bind(1, id).bind(2, oldest); });
        return std::nullopt;
    });
}

bool SqliteSessionStore::remove(std::string_view id) {
    const SqliteActivationStore::Impl& s = *impl_->base->impl_;
    std::lock_guard lock(s.mutex);
    return s.transaction(true, "ending a session", "",
                         [&] { return impl_->forget("id = ?1", [&](Statement& q) { q.bind(1, id); }) == 1; });
}

ActivationStorePtr SqliteSessionStore::activations(std::string_view id) {
    SqliteStoreOptions options = impl_->options;
    options.conversation = session_conversation(id);
    return std::make_shared<SqliteActivationStore>(impl_->path, std::move(options));
}

}  // namespace agentskills
