// The SQLite activation store.
#include "agentskills/sqlite/sqlite_store.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <mutex>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"

namespace agentskills {

namespace {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// One prepared statement, finalized on destruction.
class Statement {
public:
    Statement(sqlite3* db, std::string_view sql) : db_(db) {
        if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK) {
            throw Error(fmt::format("sqlite activation store: {}", sqlite3_errmsg(db)));
        }
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
    /// Steps once: true for a row, false when done.
    bool step() {
        const int rc = sqlite3_step(stmt_);
        if (rc == SQLITE_ROW) return true;
        if (rc == SQLITE_DONE) return false;
        throw Error(fmt::format("sqlite activation store: {}", sqlite3_errmsg(db_)));
    }
    [[nodiscard]] std::string text(int column) const {
        const auto* p = sqlite3_column_text(stmt_, column);
        return p == nullptr ? std::string()
                            : std::string(reinterpret_cast<const char*>(p),
                                          static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
    }
    [[nodiscard]] std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }

private:
    void check(int rc) const {
        if (rc != SQLITE_OK) throw Error(fmt::format("sqlite activation store: {}", sqlite3_errmsg(db_)));
    }
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace

struct SqliteActivationStore::Impl {
    SqliteStoreOptions options;
    mutable std::mutex mutex;
    sqlite3* db = nullptr;

    void exec(const char* sql) const {
        char* message = nullptr;
        if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
            std::string what = message != nullptr ? message : sqlite3_errmsg(db);
            sqlite3_free(message);
            throw Error(fmt::format("sqlite activation store: {}", what));
        }
    }

    /// Runs `fn` inside BEGIN IMMEDIATE ... COMMIT (ROLLBACK when it throws).
    template <class F>
    auto transaction(F&& fn) const {
        exec("BEGIN IMMEDIATE");
        try {
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
    }
};

SqliteActivationStore::SqliteActivationStore(const std::string& path, SqliteStoreOptions options)
    : impl_(std::make_unique<Impl>()) {
    impl_->options = std::move(options);
    const int rc = sqlite3_open_v2(path.c_str(), &impl_->db,
                                   SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string what = impl_->db != nullptr ? sqlite3_errmsg(impl_->db) : sqlite3_errstr(rc);
        sqlite3_close(impl_->db);
        throw Error(fmt::format("sqlite activation store: cannot open '{}': {}", path, what));
    }
    try {
        const auto timeout = std::clamp<std::int64_t>(impl_->options.busy_timeout.count(), 0, 1 << 30);
        sqlite3_busy_timeout(impl_->db, static_cast<int>(timeout));
        impl_->transaction([&] {
            impl_->exec(
                "CREATE TABLE IF NOT EXISTS agentskills_activations ("
                " conversation TEXT NOT NULL, name TEXT NOT NULL,"
                " state TEXT NOT NULL CHECK (state IN ('pending', 'active')),"
                " seq INTEGER, claimed_at_ms INTEGER NOT NULL,"
                " PRIMARY KEY (conversation, name));"
                "CREATE TABLE IF NOT EXISTS agentskills_conversations ("
                " conversation TEXT PRIMARY KEY, prompt_delivered INTEGER NOT NULL DEFAULT 0)");
        });
    } catch (...) {
        sqlite3_close(impl_->db);
        throw;
    }
}

SqliteActivationStore::~SqliteActivationStore() {
    if (impl_ && impl_->db != nullptr) sqlite3_close(impl_->db);
}

const SqliteStoreOptions& SqliteActivationStore::options() const noexcept { return impl_->options; }

ClaimResult SqliteActivationStore::claim(std::string_view name) {
    std::lock_guard lock(impl_->mutex);
    return impl_->transaction([&] {
        const std::int64_t now = now_ms();
        Statement find(
            impl_->db,
            "SELECT state, claimed_at_ms FROM agentskills_activations WHERE conversation = ?1 AND name = ?2");
        find.bind(1, impl_->options.conversation).bind(2, name);
        if (find.step()) {
            if (find.text(0) == "active") return ClaimResult::already_active;
            if (now - find.integer(1) < impl_->options.stale_claim_after.count()) return ClaimResult::in_progress;
            Statement renew(
                impl_->db,
                "UPDATE agentskills_activations SET claimed_at_ms = ?3 WHERE conversation = ?1 AND name = ?2");
            renew.bind(1, impl_->options.conversation).bind(2, name).bind(3, now);
            (void)renew.step();
            return ClaimResult::claimed;
        }
        Statement insert(impl_->db,
                         "INSERT INTO agentskills_activations (conversation, name, state, seq, claimed_at_ms)"
                         " VALUES (?1, ?2, 'pending', NULL, ?3)");
        insert.bind(1, impl_->options.conversation).bind(2, name).bind(3, now);
        (void)insert.step();
        return ClaimResult::claimed;
    });
}

void SqliteActivationStore::confirm(std::string_view name) {
    std::lock_guard lock(impl_->mutex);
    impl_->transaction([&] {
        Statement next(impl_->db,
                       "SELECT COALESCE(MAX(seq), 0) + 1 FROM agentskills_activations WHERE conversation = ?1");
        next.bind(1, impl_->options.conversation);
        (void)next.step();
        const std::int64_t seq = next.integer(0);
        Statement upsert(impl_->db,
                         "INSERT INTO agentskills_activations (conversation, name, state, seq, claimed_at_ms)"
                         " VALUES (?1, ?2, 'active', ?3, ?4)"
                         " ON CONFLICT (conversation, name) DO UPDATE SET state = 'active', seq = ?3"
                         " WHERE state = 'pending'");
        upsert.bind(1, impl_->options.conversation).bind(2, name).bind(3, seq).bind(4, now_ms());
        (void)upsert.step();
    });
}

void SqliteActivationStore::roll_back(std::string_view name) {
    std::lock_guard lock(impl_->mutex);
    impl_->transaction([&] {
        Statement drop(
            impl_->db,
            "DELETE FROM agentskills_activations WHERE conversation = ?1 AND name = ?2 AND state = 'pending'");
        drop.bind(1, impl_->options.conversation).bind(2, name);
        (void)drop.step();
    });
}

std::vector<std::string> SqliteActivationStore::active_names() const {
    std::lock_guard lock(impl_->mutex);
    Statement list(
        impl_->db,
        "SELECT name FROM agentskills_activations WHERE conversation = ?1 AND state = 'active' ORDER BY seq");
    list.bind(1, impl_->options.conversation);
    std::vector<std::string> out;
    while (list.step()) out.push_back(list.text(0));
    return out;
}

bool SqliteActivationStore::prompt_delivered() const {
    std::lock_guard lock(impl_->mutex);
    Statement q(impl_->db, "SELECT prompt_delivered FROM agentskills_conversations WHERE conversation = ?1");
    q.bind(1, impl_->options.conversation);
    return q.step() && q.integer(0) != 0;
}

bool SqliteActivationStore::mark_prompt_delivered() {
    std::lock_guard lock(impl_->mutex);
    return impl_->transaction([&] {
        Statement q(impl_->db, "SELECT prompt_delivered FROM agentskills_conversations WHERE conversation = ?1");
        q.bind(1, impl_->options.conversation);
        if (q.step() && q.integer(0) != 0) return false;
        Statement set(impl_->db,
                      "INSERT INTO agentskills_conversations (conversation, prompt_delivered) VALUES (?1, 1)"
                      " ON CONFLICT (conversation) DO UPDATE SET prompt_delivered = 1");
        set.bind(1, impl_->options.conversation);
        (void)set.step();
        return true;
    });
}

void SqliteActivationStore::wait_for_change(std::string_view /*name*/, std::chrono::steady_clock::time_point deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(10), deadline - now));
}

void SqliteActivationStore::reset() {
    std::lock_guard lock(impl_->mutex);
    impl_->transaction([&] {
        Statement a(impl_->db, "DELETE FROM agentskills_activations WHERE conversation = ?1");
        a.bind(1, impl_->options.conversation);
        (void)a.step();
        Statement c(impl_->db, "DELETE FROM agentskills_conversations WHERE conversation = ?1");
        c.bind(1, impl_->options.conversation);
        (void)c.step();
    });
}

}  // namespace agentskills
