// The PostgreSQL activation store.
//
// One table, agentskills_activations(conversation, name, state, seq). A claim is the row
// (conversation, name, 'pending'), inserted with ON CONFLICT DO NOTHING while the claimant holds
// the session-level advisory lock of (conversation, name); the holder releases the lock only
// after the row stopped being pending (confirmed or deleted). So a pending row whose lock is free
// has a holder that is gone (its connection closed: the server drops a session's advisory locks
// with it), and whoever gets the lock next takes the claim over. Confirmations take a
// transaction-level lock of the conversation so that their sequence numbers are distinct.
// See docs/security.md, "The PostgreSQL activation store".
#include "agentskills/postgres/postgres_store.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/text.hpp"

namespace agentskills {

namespace {

constexpr std::string_view create_table_sql =
    "CREATE TABLE agentskills_activations (conversation text NOT NULL, name text NOT NULL,"
    " state text NOT NULL CHECK (state IN ('pending', 'active', 'prompt')), seq bigint,"
    " PRIMARY KEY (conversation, name))";

/// The columns (name, type, not null) and constraints (type, definition) the table must have.
struct Column {
    std::string_view name;
    std::string_view type;
    bool not_null;
};
constexpr std::array<Column, 4> expected_columns{{
    {"conversation", "text", true},
    {"name", "text", true},
    {"state", "text", true},
    {"seq", "bigint", false},
}};
constexpr std::string_view expected_check =
    "CHECK ((state = ANY (ARRAY['pending'::text, 'active'::text, 'prompt'::text])))";
constexpr std::string_view expected_primary_key = "PRIMARY KEY (conversation, name)";

/// A failure the server or libpq reported; the store adds what it was doing.
class DbError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

void ignore_notice(void* /*arg*/, const char* /*message*/) {}

/// libpq's message without its trailing newline.
std::string trimmed(const char* message) {
    std::string out = message == nullptr ? std::string() : std::string(message);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
}

bool starts_with_ci(std::string_view text, std::size_t at, std::string_view word) {
    if (text.size() - at < word.size()) return false;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(text[at + i])) != word[i]) return false;
    }
    return true;
}

}  // namespace

bool PostgresActivationStore::is_connection_uri(std::string_view state) noexcept {
    return state.substr(0, 13) == "postgresql://" || state.substr(0, 11) == "postgres://";
}

std::string PostgresActivationStore::mask_password(std::string_view connection) {
    std::string out(connection);
    const bool uri = is_connection_uri(out);
    if (uri) {
        // postgresql://user:password@host...: the userinfo ends at the authority's last '@'.
        const std::size_t start = out.find("://") + 3;
        const std::size_t end = std::min(out.find_first_of("/?#", start), out.size());
        const std::size_t at = out.rfind('@', end == 0 ? 0 : end - 1);
        if (at != std::string::npos && at >= start) {
            const std::size_t colon = out.find(':', start);
            if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
        }
    }
    // password=VALUE: a URI parameter (to the next '&' or '#'), or a key=value pair (to the next
    // blank, or a quoted value).
    std::size_t pos = 0;
    while (pos < out.size()) {
        if (!starts_with_ci(out, pos, "password")) {
            ++pos;
            continue;
        }
        const bool at_start = pos == 0 || out[pos - 1] == '?' || out[pos - 1] == '&' ||
                              std::isspace(static_cast<unsigned char>(out[pos - 1])) != 0;
        std::size_t eq = pos + 8;
        while (eq < out.size() && out[eq] == ' ') ++eq;
        if (!at_start || eq >= out.size() || out[eq] != '=') {
            ++pos;
            continue;
        }
        std::size_t value = eq + 1;
        while (!uri && value < out.size() && out[value] == ' ') ++value;
        std::size_t value_end = value;
        if (uri) {
            value_end = std::min(out.find_first_of("&#", value), out.size());
        } else if (value < out.size() && out[value] == '\'') {
            value_end = value + 1;
            while (value_end < out.size() && out[value_end] != '\'') value_end += out[value_end] == '\\' ? 2 : 1;
            value_end = std::min(value_end + 1, out.size());
        } else {
            while (value_end < out.size() && std::isspace(static_cast<unsigned char>(out[value_end])) == 0) ++value_end;
        }
        out.replace(value, value_end - value, "***");
        pos = value + 3;
    }
    return out;
}

namespace {

/// One connection to the server, used under `mutex` (the activation store and the session
/// store both talk through one).
struct Connection {
    std::string display;   // the connection string, password masked
    std::string password;  // as libpq parsed it: masked in every message too
    mutable std::mutex mutex;
    PGconn* conn = nullptr;

    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        if (conn != nullptr) PQfinish(conn);
    }

    /// Connects with `connection`; throws Error (naming `what`) when it cannot.
    void open(const std::string& connection, std::chrono::milliseconds connect_timeout, std::string_view what) {
        display = PostgresActivationStore::mask_password(connection);
        const auto seconds = std::max<long long>(2, (connect_timeout.count() + 999) / 1000);
        const std::string timeout = std::to_string(seconds);
        // Earlier keywords are defaults: what the connection string says wins.
        const std::array<const char*, 4> keywords{"connect_timeout", "fallback_application_name", "dbname", nullptr};
        const std::array<const char*, 4> values{timeout.c_str(), "agentskills", connection.c_str(), nullptr};
        conn = PQconnectdbParams(keywords.data(), values.data(), 1);
        if (conn == nullptr) throw Error(fmt::format("postgres {} '{}': out of memory", what, display));
        if (const char* p = PQpass(conn); p != nullptr) password = p;
        if (PQstatus(conn) != CONNECTION_OK) {
            throw Error(fmt::format("postgres {} '{}': cannot connect: {}", what, display,
                                    clean(trimmed(PQerrorMessage(conn)))));
        }
        PQsetNoticeProcessor(conn, &ignore_notice, nullptr);
    }

    /// `message` from libpq or the server, as text for a message: the password masked, control
    /// characters escaped.
    [[nodiscard]] std::string clean(std::string message) const {
        if (password.size() >= 3) {
            for (std::size_t at = message.find(password); at != std::string::npos;
                 at = message.find(password, at + 3)) {
                message.replace(at, password.size(), "***");
            }
        }
        return terminal_text(message);
    }

    /// Runs one statement with text parameters; throws DbError unless it succeeded.
    Result exec(std::string_view sql, std::initializer_list<std::string_view> params = {}) const {
        std::vector<std::string> values;
        values.reserve(params.size());
        for (auto p : params) values.emplace_back(p);
        std::vector<const char*> pointers;
        pointers.reserve(values.size());
        for (const auto& v : values) pointers.push_back(v.c_str());
        const std::string statement(sql);
        Result r(PQexecParams(conn, statement.c_str(), static_cast<int>(pointers.size()), nullptr, pointers.data(),
                              nullptr, nullptr, 0),
                 &PQclear);
        if (!r) throw DbError(trimmed(PQerrorMessage(conn)));
        const auto status = PQresultStatus(r.get());
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
            throw DbError(trimmed(PQresultErrorMessage(r.get())));
        return r;
    }

    /// The first column of the first row ("" for none or NULL).
    static std::string value(const Result& r) {
        if (PQntuples(r.get()) == 0 || PQgetisnull(r.get(), 0, 0) != 0) return "";
        return PQgetvalue(r.get(), 0, 0);
    }

    /// Runs `fn` inside BEGIN ... COMMIT (ROLLBACK when it throws).
    template <class F>
    void transaction(F&& fn) const {
        (void)exec("BEGIN");
        try {
            fn();
            (void)exec("COMMIT");
        } catch (...) {
            Result r(PQexec(conn, "ROLLBACK"), &PQclear);
            throw;
        }
    }
};

}  // namespace

struct PostgresActivationStore::Impl : Connection {
    PostgresStoreOptions options;
    /// The names this store holds a claim (and its advisory lock) on.
    std::unordered_set<std::string> held;

    [[nodiscard]] Error describe(const std::exception& e, std::string_view action, std::string_view name) const {
        if (name.empty()) {
            return Error(fmt::format("postgres activation store '{}': {}: {}", display, action, clean(e.what())));
        }
        return Error(fmt::format("postgres activation store '{}': {} '{}' in conversation '{}': {}", display, action,
                                 terminal_text(name), terminal_text(options.conversation), clean(e.what())));
    }

    /// The advisory-lock key of a claim, as text the server hashes (length-prefixed, so that no
    /// two (conversation, name) pairs give the same text).
    [[nodiscard]] std::string lock_text(std::string_view name) const {
        return fmt::format("agentskills:{}:{}:{}", options.conversation.size(), options.conversation, name);
    }

    bool try_lock(std::string_view name) const {
        return value(exec("SELECT pg_catalog.pg_try_advisory_lock(pg_catalog.hashtextextended($1, 0))",
                          {lock_text(name)})) == "t";
    }

    void unlock(std::string_view name) const {
        (void)exec("SELECT pg_catalog.pg_advisory_unlock(pg_catalog.hashtextextended($1, 0))", {lock_text(name)});
    }

    /// Releases this store's claim on `name` (its lock), if it holds one.
    void release(std::string_view name) {
        auto it = held.find(std::string(name));
        if (it == held.end()) return;
        held.erase(it);
        unlock(name);
    }

    /// The state of the row of `name` ("" when there is none).
    [[nodiscard]] std::string state_of(std::string_view name) const {
        return value(exec("SELECT state FROM agentskills_activations WHERE conversation = $1 AND name = $2",
                          {options.conversation, name}));
    }

    /// Creates the table when missing, then checks that it is exactly the store's; throws Error
    /// naming what differs.
    void ensure_schema() const {
        transaction([&] {
            // One creator at a time (CREATE TABLE IF NOT EXISTS is not safe against a concurrent one).
            (void)exec("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('agentskills:schema', 0))");
            if (value(exec("SELECT pg_catalog.to_regclass('agentskills_activations') IS NULL")) == "t") {
                (void)exec(create_table_sql);
            }
            const std::string relation = "pg_catalog.to_regclass('agentskills_activations')";
            const std::string kind = value(exec("SELECT relkind FROM pg_catalog.pg_class WHERE oid = " + relation));
            if (kind != "r") {
                throw Error(
                    fmt::format("postgres activation store '{}': the relation agentskills_activations is not "
                                "a plain table (relkind '{}'); refusing it",
                                display, terminal_text(kind)));
            }
            auto differs = [&](const std::string& what) {
                return Error(
                    fmt::format("postgres activation store '{}': the table agentskills_activations differs "
                                "from the store's ({}); refusing it",
                                display, what));
            };
            const Result columns = exec(
                "SELECT attname, pg_catalog.format_type(atttypid, atttypmod), attnotnull FROM pg_catalog.pg_attribute"
                " WHERE attrelid = " +
                relation + " AND attnum > 0 AND NOT attisdropped ORDER BY attnum");
            const int rows = PQntuples(columns.get());
            for (int i = 0; i < std::max(rows, static_cast<int>(expected_columns.size())); ++i) {
                if (i >= rows) {
                    throw differs(
                        fmt::format("it lacks the column {}", expected_columns[static_cast<std::size_t>(i)].name));
                }
                const std::string got_name = PQgetvalue(columns.get(), i, 0);
                if (static_cast<std::size_t>(i) >= expected_columns.size()) {
                    throw differs(
                        fmt::format("it has the column {}, which the store does not create", terminal_text(got_name)));
                }
                const Column& want = expected_columns[static_cast<std::size_t>(i)];
                const std::string got_type = PQgetvalue(columns.get(), i, 1);
                const bool got_not_null = std::string_view(PQgetvalue(columns.get(), i, 2)) == "t";
                if (got_name != want.name || got_type != want.type || got_not_null != want.not_null) {
                    throw differs(fmt::format("column {}: {} {}{}, expected {} {}{}", i + 1, terminal_text(got_name),
                                              terminal_text(got_type), got_not_null ? " NOT NULL" : "", want.name,
                                              want.type, want.not_null ? " NOT NULL" : ""));
                }
            }
            const Result constraints = exec(
                "SELECT contype, pg_catalog.pg_get_constraintdef(oid) FROM pg_catalog.pg_constraint WHERE conrelid = " +
                relation + " ORDER BY contype, conname");
            std::vector<std::pair<std::string, std::string>> got;
            for (int i = 0; i < PQntuples(constraints.get()); ++i) {
                got.emplace_back(PQgetvalue(constraints.get(), i, 0), PQgetvalue(constraints.get(), i, 1));
            }
            const std::vector<std::pair<std::string, std::string>> want{{"c", std::string(expected_check)},
                                                                        {"p", std::string(expected_primary_key)}};
            if (got != want) {
                std::string found;
                for (const auto& [type, def] : got) found += (found.empty() ? "" : "; ") + terminal_text(def);
                throw differs(fmt::format("its constraints are '{}'", found));
            }
            const std::string triggers = value(
                exec("SELECT count(*) FROM pg_catalog.pg_trigger WHERE NOT tgisinternal AND tgrelid = " + relation));
            const std::string rules =
                value(exec("SELECT count(*) FROM pg_catalog.pg_rewrite WHERE ev_class = " + relation));
            if (triggers != "0" || rules != "0") throw differs("it has a trigger or a rule");
        });
    }
};

PostgresActivationStore::PostgresActivationStore(const std::string& connection, PostgresStoreOptions options)
    : impl_(std::make_unique<Impl>()) {
    Impl& s = *impl_;
    s.options = std::move(options);
    s.open(connection, s.options.connect_timeout, "activation store");
    try {
        s.ensure_schema();
    } catch (const DbError& e) {
        throw s.describe(e, "opening", "");
    }
}

PostgresActivationStore::~PostgresActivationStore() = default;

const PostgresStoreOptions& PostgresActivationStore::options() const noexcept { return impl_->options; }
const std::string& PostgresActivationStore::display_connection() const noexcept { return impl_->display; }

namespace {

void require_name(std::string_view name, std::string_view action) {
    if (name.empty()) throw Error(fmt::format("postgres activation store: {} an empty skill name", action));
}

}  // namespace

ClaimResult PostgresActivationStore::claim(std::string_view name) {
    require_name(name, "claiming");
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    try {
        if (s.held.count(std::string(name)) != 0) {
            // This store holds it (another call through it): the lock is reentrant, so never retake it.
            return s.state_of(name) == "active" ? ClaimResult::already_active : ClaimResult::in_progress;
        }
        if (!s.try_lock(name)) {
            // A live holder (or a holder just settling it): active, or still in progress.
            return s.state_of(name) == "active" ? ClaimResult::already_active : ClaimResult::in_progress;
        }
        try {
            // This store holds the lock now: whatever pending row there is has a holder that is gone.
            const Result inserted = s.exec(
                "INSERT INTO agentskills_activations (conversation, name, state, seq) VALUES ($1, $2, 'pending', NULL)"
                " ON CONFLICT (conversation, name) DO NOTHING RETURNING state",
                {s.options.conversation, name});
            if (PQntuples(inserted.get()) == 0 && s.state_of(name) == "active") {
                s.unlock(name);
                return ClaimResult::already_active;
            }
            // New, or pending without a live holder (or deleted by a reset meanwhile: written again).
            if (PQntuples(inserted.get()) == 0) {
                (void)s.exec(
                    "INSERT INTO agentskills_activations (conversation, name, state, seq) VALUES ($1, $2, 'pending', "
                    "NULL)"
                    " ON CONFLICT (conversation, name) DO NOTHING",
                    {s.options.conversation, name});
            }
            s.held.emplace(name);
            return ClaimResult::claimed;
        } catch (...) {
            try {
                s.unlock(name);
            } catch (...) {
            }
            throw;
        }
    } catch (const DbError& e) {
        throw s.describe(e, "claiming", name);
    }
}

void PostgresActivationStore::confirm(std::string_view name) {
    require_name(name, "confirming");
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    try {
        s.transaction([&] {
            // Confirmations of one conversation take turns, so that each gets the next number.
            (void)s.exec("SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended($1, 0))",
                         {"agentskills:seq:" + s.options.conversation});
            (void)s.exec(
                "INSERT INTO agentskills_activations AS t (conversation, name, state, seq)"
                " SELECT $1, $2, 'active', COALESCE(MAX(seq), 0) + 1 FROM agentskills_activations WHERE conversation = "
                "$1"
                " ON CONFLICT (conversation, name) DO UPDATE SET state = 'active', seq = EXCLUDED.seq"
                " WHERE t.state = 'pending'",
                {s.options.conversation, name});
        });
        s.release(name);  // after the commit: nobody sees the claim pending without its lock
    } catch (const DbError& e) {
        throw s.describe(e, "confirming", name);
    }
}

void PostgresActivationStore::roll_back(std::string_view name) {
    require_name(name, "rolling back");
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    try {
        (void)s.exec("DELETE FROM agentskills_activations WHERE conversation = $1 AND name = $2 AND state = 'pending'",
                     {s.options.conversation, name});
        s.release(name);
    } catch (const DbError& e) {
        throw s.describe(e, "rolling back", name);
    }
}

std::vector<std::string> PostgresActivationStore::active_names() const {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    try {
        const Result r = s.exec(
            "SELECT name FROM agentskills_activations WHERE conversation = $1 AND state = 'active' ORDER BY seq, name",
            {s.options.conversation});
        std::vector<std::string> out;
        for (int i = 0; i < PQntuples(r.get()); ++i) out.emplace_back(PQgetvalue(r.get(), i, 0));
        return out;
    } catch (const DbError& e) {
        throw s.describe(e, "listing the active skills", "");
    }
}

bool PostgresActivationStore::prompt_delivered() const {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    try {
        return Impl::value(s.exec("SELECT state FROM agentskills_activations WHERE conversation = $1 AND name = ''",
                                  {s.options.conversation})) == "prompt";
    } catch (const DbError& e) {
        throw s.describe(e, "reading the prompt's delivery", "");
    }
}

bool PostgresActivationStore::mark_prompt_delivered() {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    try {
        const Result r = s.exec(
            "INSERT INTO agentskills_activations (conversation, name, state, seq) VALUES ($1, '', 'prompt', NULL)"
            " ON CONFLICT (conversation, name) DO NOTHING RETURNING state",
            {s.options.conversation});
        return PQntuples(r.get()) == 1;
    } catch (const DbError& e) {
        throw s.describe(e, "recording the prompt's delivery", "");
    }
}

void PostgresActivationStore::wait_for_change(std::string_view /*name*/,
                                              std::chrono::steady_clock::time_point deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    const auto until = std::min(deadline, now + std::chrono::steady_clock::duration(impl_->options.poll_interval));
    std::this_thread::sleep_for(until - now);
}

void PostgresActivationStore::reset() {
    std::lock_guard lock(impl_->mutex);
    Impl& s = *impl_;
    try {
        (void)s.exec("DELETE FROM agentskills_activations WHERE conversation = $1", {s.options.conversation});
        for (const auto& name : s.held) s.unlock(name);
        s.held.clear();
    } catch (const DbError& e) {
        throw s.describe(e, "resetting", "");
    }
}

// ---- PostgresSessionStore -------------------------------------------------------------------

namespace {

constexpr std::string_view create_sessions_sql =
    "CREATE TABLE IF NOT EXISTS agentskills_sessions (id text PRIMARY KEY, version text NOT NULL,"
    " client text NOT NULL, last_seen timestamptz NOT NULL)";

/// `$N` milliseconds as an interval.
std::string ms_interval(int parameter) {
    return fmt::format("pg_catalog.make_interval(secs => ${}::double precision / 1000)", parameter);
}

}  // namespace

struct PostgresSessionStore::Impl : Connection {
    std::string connection;
    PostgresStoreOptions options;

    [[nodiscard]] Error describe(const std::exception& e, std::string_view action) const {
        return Error(fmt::format("postgres session store '{}': {}: {}", display, action, clean(e.what())));
    }

    /// Deletes the sessions `where` selects (with parameters `params`), and their activations;
    /// returns how many sessions went.
    int forget(const std::string& where, std::initializer_list<std::string_view> params) const {
        const Result r = exec(fmt::format("WITH gone AS (DELETE FROM agentskills_sessions WHERE {} RETURNING id),"
                                          " acts AS (DELETE FROM agentskills_activations WHERE conversation IN"
                                          " (SELECT '{}' || id FROM gone)) SELECT count(*) FROM gone",
                                          where, session_conversation("")),
                              params);
        return std::stoi(value(r));
    }
};

PostgresSessionStore::PostgresSessionStore(const std::string& connection, PostgresStoreOptions options)
    : impl_(std::make_unique<Impl>()) {
    Impl& s = *impl_;
    s.connection = connection;
    s.options = std::move(options);
    // The activation table (checked, created when missing) through a store of the same database.
    { const PostgresActivationStore check(connection, s.options); }
    s.open(connection, s.options.connect_timeout, "session store");
    try {
        s.transaction([&] {
            (void)s.exec(
                "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('agentskills:schema', 0))");
            (void)s.exec(create_sessions_sql);
        });
    } catch (const DbError& e) {
        throw s.describe(e, "opening");
    }
}

PostgresSessionStore::~PostgresSessionStore() = default;

SessionOpen PostgresSessionStore::open(std::string_view id, std::string_view version, std::string_view client,
                                       const SessionLimits& limits) {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    SessionOpen outcome = SessionOpen::opened;
    try {
        s.transaction([&] {
            // One opener at a time, so that the caps hold across replicas.
            (void)s.exec(
                "SELECT pg_catalog.pg_advisory_xact_lock(pg_catalog.hashtextextended('agentskills:sessions', 0))");
            (void)s.forget("last_seen < now() - " + ms_interval(1),
                           {std::to_string(bounded_idle_timeout(limits.idle_timeout).count())});
            if (limits.max_sessions != 0 &&
                std::stoull(Impl::value(s.exec("SELECT count(*) FROM agentskills_sessions"))) >= limits.max_sessions) {
                outcome = SessionOpen::full;
                return;
            }
            if (limits.max_per_client != 0 &&
                std::stoull(Impl::value(s.exec("SELECT count(*) FROM agentskills_sessions WHERE client = $1",
                                               {client}))) >= limits.max_per_client) {
                outcome = SessionOpen::client_full;
                return;
            }
            (void)s.exec("INSERT INTO agentskills_sessions (id, version, client, last_seen) VALUES ($1, $2, $3, now())",
                         {id, version, client});
        });
    } catch (const DbError& e) {
        throw s.describe(e, "opening a session");
    }
    return outcome;
}

std::optional<std::string> PostgresSessionStore::touch(std::string_view id, std::chrono::milliseconds idle_timeout) {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    const std::string idle = std::to_string(bounded_idle_timeout(idle_timeout).count());
    try {
        const Result r = s.exec(
            "UPDATE agentskills_sessions SET last_seen = now() WHERE id = $1 AND last_seen >= "
            "now() - " +
                ms_interval(2) + " RETURNING version",
            {id, idle});
        if (PQntuples(r.get()) == 1) return std::string(PQgetvalue(r.get(), 0, 0));
        (void)s.forget("id = $1 AND last_seen < now() - " + ms_interval(2), {id, idle});
        return std::nullopt;
    } catch (const DbError& e) {
        throw s.describe(e, "looking a session up");
    }
}

bool PostgresSessionStore::remove(std::string_view id) {
    std::lock_guard lock(impl_->mutex);
    const Impl& s = *impl_;
    try {
        return s.forget("id = $1", {id}) == 1;
    } catch (const DbError& e) {
        throw s.describe(e, "ending a session");
    }
}

ActivationStorePtr PostgresSessionStore::activations(std::string_view id) {
    PostgresStoreOptions options = impl_->options;
    options.conversation = session_conversation(id);
    return std::make_shared<PostgresActivationStore>(impl_->connection, std::move(options));
}

}  // namespace agentskills
