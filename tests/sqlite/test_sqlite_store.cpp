// Tests of sqlite_store.hpp: the SQLite activation store.
// One file per public header; the hostile cases are sections of it.
#include <catch2/catch.hpp>

#ifdef AGENTSKILLS_HAVE_SQLITE

#include <sqlite3.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/sqlite/sqlite_store.hpp>

#include "support/delay_loader.hpp"
#include "support/session_replicas.hpp"

#include "fs_fixtures.hpp"

using namespace agentskills;
using namespace std::chrono_literals;

namespace {

using agentskills_test::activation_arguments;
using agentskills_test::DelayLoader;

/// A plain SQLite connection to a store's file: what another program (or an attacker) can do to it.
class RawDb {
public:
    explicit RawDb(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
            FAIL("cannot open " << path);
        }
    }
    ~RawDb() { sqlite3_close(db_); }
    RawDb(const RawDb&) = delete;
    RawDb& operator=(const RawDb&) = delete;
    void exec(const std::string& sql) {
        char* message = nullptr;
        const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message);
        const std::string what = message != nullptr ? message : "";
        sqlite3_free(message);
        INFO(sql << ": " << what);
        REQUIRE(rc == SQLITE_OK);
    }
    /// The first column of the first row, as text ("" for none).
    std::string value(const std::string& sql) {
        sqlite3_stmt* stmt = nullptr;
        REQUIRE(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK);
        std::string out;
        if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
            out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
        }
        sqlite3_finalize(stmt);
        return out;
    }

private:
    sqlite3* db_ = nullptr;
};

/// `relative` below the directory, with the directory's links resolved (as the store names its files).
std::string real_path(const agentskills_test::TempDir& dir, std::string_view relative) {
    return (std::filesystem::canonical(dir.path()) / std::string(relative)).string();
}

/// What the store's constructor throws for `path` ("no error" when it opens).
std::string open_error(const std::string& path) {
    try {
        SqliteActivationStore store(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

/// A child process that opens the store at `path`, claims `name` and then sleeps until it is
/// killed; killed with SIGKILL (and reaped) when the object goes, if not before.
class ClaimingChild {
public:
    ClaimingChild(const std::string& path, const std::string& name) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::close(fds[0]);
            char status = 'e';
            try {
                SqliteActivationStore store(path);
                status = store.claim(name) == ClaimResult::claimed ? 'c' : 'n';
                (void)!::write(fds[1], &status, 1);
                for (;;) ::pause();  // holds the claim until killed
            } catch (...) {
            }
            (void)!::write(fds[1], &status, 1);
            ::_exit(1);
        }
        ::close(fds[1]);
        char status = 0;
        const auto got = ::read(fds[0], &status, 1);
        ::close(fds[0]);
        REQUIRE(got == 1);
        REQUIRE(status == 'c');
    }
    ~ClaimingChild() { kill(); }
    ClaimingChild(const ClaimingChild&) = delete;
    ClaimingChild& operator=(const ClaimingChild&) = delete;
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// SIGKILL, then waits for it to be gone.
    void kill() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
    }

private:
    pid_t pid_ = -1;
};

}  // namespace

// The generic checks (claims, order, roll back, delivery, a second connection, threads) are the
// conformance kit's: tests/testing/test_store_conformance.cpp runs it over this store.
TEST_CASE("sqlite store: reset forgets one conversation of the file", "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    SqliteActivationStore a(file);
    SqliteActivationStore b(file);
    SqliteActivationStore other(file, {.conversation = "other"});
    CHECK(a.claim("beta") == ClaimResult::claimed);
    a.confirm("beta");
    CHECK(a.mark_prompt_delivered());
    CHECK(other.claim("alpha") == ClaimResult::claimed);
    a.reset();
    CHECK(b.active_names().empty());
    CHECK_FALSE(b.prompt_delivered());
    CHECK(other.claim("alpha") == ClaimResult::in_progress);
}

TEST_CASE("sqlite store: a claim lasts as long as its holder's store, not a stale limit", "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    SqliteActivationStore live(dir.path("s.db"), {.stale_claim_after = 0ms});
    {
        SqliteActivationStore holder(dir.path("s.db"));
        CHECK(holder.claim("alpha") == ClaimResult::claimed);
        // Its holder is alive: never taken over, whatever its age.
        CHECK(live.claim("alpha") == ClaimResult::in_progress);
        // The holder itself does not claim it twice.
        CHECK(holder.claim("alpha") == ClaimResult::in_progress);
    }
    // The holder's store is gone (as when its process dies): the next caller claims it at once.
    CHECK(live.claim("alpha") == ClaimResult::claimed);
    CHECK(live.claim("alpha") == ClaimResult::in_progress);
    live.confirm("alpha");
    CHECK(live.claim("alpha") == ClaimResult::already_active);
}

TEST_CASE("sqlite store: a claim an earlier version wrote (no holder) is taken over when stale",
          "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("s.db");
    { SqliteActivationStore create(file); }
    const auto now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    RawDb raw(file);
    raw.exec("INSERT INTO agentskills_activations VALUES ('default', 'old', 'pending', NULL, " +
             std::to_string(now - 5000) + "), ('default', 'new', 'pending', NULL, " + std::to_string(now) + ")");
    SqliteActivationStore store(file, {.stale_claim_after = 2000ms});
    CHECK(store.claim("old") == ClaimResult::claimed);
    CHECK(store.claim("new") == ClaimResult::in_progress);
}

TEST_CASE("sqlite store: a file that cannot be opened is an Error", "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    CHECK_THROWS_AS(SqliteActivationStore(dir.path("no/such/dir/state.db")), Error);
}

TEST_CASE("sqlite store: 8 threads with their own connections activate once", "[activation][sqlite][concurrency]") {
    agentskills_test::TempDir dir;
    auto loader = std::make_shared<DelayLoader>();
    loader->delay = 30ms;
    const SkillActivator core(discover_skill_catalog(loader));
    std::vector<ActivationStatus> got(8);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < got.size(); ++i) {
        threads.emplace_back([&, i] {
            SqliteActivationStore store(dir.path("state.sqlite"));
            got[i] = core.activate(store, activation_arguments("alpha")).status;
        });
    }
    for (auto& t : threads) t.join();
    int content = 0;
    int already = 0;
    for (auto s : got) {
        content += s == ActivationStatus::content ? 1 : 0;
        already += s == ActivationStatus::already_active ? 1 : 0;
    }
    CHECK(content == 1);
    CHECK(already == 7);
    CHECK(loader->loads == 1);
}

TEST_CASE("sqlite store: a failed load rolls back and the waiter loads it", "[activation][sqlite][concurrency]") {
    agentskills_test::TempDir dir;
    auto loader = std::make_shared<DelayLoader>();
    loader->delay = 150ms;
    loader->fail_first = 1;
    const SkillActivator core(discover_skill_catalog(loader));
    SqliteActivationStore s1(dir.path("state.sqlite"));
    SqliteActivationStore s2(dir.path("state.sqlite"));
    ActivationResult first;
    ActivationResult second;
    std::thread a([&] { first = core.activate(s1, activation_arguments("beta")); });
    while (loader->loads == 0) std::this_thread::sleep_for(1ms);
    std::thread b([&] { second = core.activate(s2, activation_arguments("beta")); });
    a.join();
    b.join();
    CHECK(first.status == ActivationStatus::load_error);
    CHECK(first.error == "storage offline");
    CHECK(second.status == ActivationStatus::content);
    CHECK(s1.active_names() == std::vector<std::string>{"beta"});
}

TEST_CASE("sqlite store: a symbolic link as the state file is refused, never followed", "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    // A dangling link: the database would have been created at its target.
    std::filesystem::create_symlink(dir.path("target.db"), dir.path("state.sqlite"));
    CHECK(open_error(dir.path("state.sqlite")) ==
          "sqlite activation store: '" + dir.path("state.sqlite") +
              "' is a symbolic link; the store opens only a regular file itself, never a link's target");
    CHECK_FALSE(std::filesystem::exists(dir.path("target.db")));

    // A link to a good store file.
    { SqliteActivationStore real(dir.path("real.db")); }
    std::filesystem::create_symlink(dir.path("real.db"), dir.path("link.db"));
    CHECK(open_error(dir.path("link.db")).find("is a symbolic link") != std::string::npos);

    // The side file of the claim locks, planted as a link.
    std::filesystem::create_symlink(dir.path("elsewhere"), dir.path("side.db-claims"));
    CHECK(open_error(dir.path("side.db")) == "sqlite activation store: cannot open the claim lock file '" +
                                                 real_path(dir, "side.db-claims") +
                                                 "': Too many levels of symbolic links (a symbolic link; the store "
                                                 "never follows one)");
    CHECK_FALSE(std::filesystem::exists(dir.path("elsewhere")));

    // Not a regular file.
    dir.mkdir("a-directory.db");
    CHECK(open_error(dir.path("a-directory.db")) ==
          "sqlite activation store: '" + dir.path("a-directory.db") + "' is not a regular file");

    // A link among the directories is resolved: the file is made in the real directory.
    dir.mkdir("real-dir");
    std::filesystem::create_directory_symlink(dir.path("real-dir"), dir.path("dir-link"));
    { SqliteActivationStore through(dir.path("dir-link/s.db")); }
    CHECK(std::filesystem::is_regular_file(dir.path("real-dir/s.db")));
}

TEST_CASE("sqlite store: a file whose schema is not exactly the store's is refused, naming what differs",
          "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    const std::string refused = "sqlite activation store: '" + file + "'";
    { SqliteActivationStore create(file); }

    SECTION("a planted trigger that marks another skill active") {
        {
            RawDb raw(file);
            raw.exec(
                "CREATE TRIGGER mark_beta AFTER INSERT ON agentskills_activations BEGIN"
                " INSERT OR REPLACE INTO agentskills_activations VALUES (NEW.conversation, 'beta', 'active', 99, 0);"
                " END");
        }
        CHECK(open_error(file) == refused +
                                      " holds the trigger 'mark_beta', which the store does not create; "
                                      "refusing the file");
    }
    SECTION("a view, an index and a table the store does not create") {
        {
            RawDb raw(file);
            raw.exec("CREATE VIEW v AS SELECT name FROM agentskills_activations");
        }
        CHECK(open_error(file) == refused + " holds the view 'v', which the store does not create; refusing the file");
        RawDb(file).exec("DROP VIEW v; CREATE INDEX by_state ON agentskills_activations (state)");
        CHECK(open_error(file) ==
              refused + " holds the index 'by_state', which the store does not create; refusing the file");
        RawDb(file).exec("DROP INDEX by_state; CREATE TABLE extra (x)");
        CHECK(open_error(file) ==
              refused + " holds the table 'extra', which the store does not create; refusing the file");
        RawDb(file).exec("DROP TABLE extra");
        CHECK(open_error(file) == "no error");
    }
    SECTION("a table of the store's name with another definition") {
        RawDb(file).exec(
            "DROP TABLE agentskills_conversations; CREATE TABLE agentskills_conversations ( conversation TEXT "
            "PRIMARY KEY, prompt_delivered INTEGER NOT NULL DEFAULT 1)");
        CHECK(open_error(file) == refused +
                                      ": the table 'agentskills_conversations' differs from the store's "
                                      "schema; refusing the file");
    }
    SECTION("a trigger added while the store is open is refused before the next step runs it") {
        SqliteActivationStore store(file);
        CHECK(store.claim("gamma") == ClaimResult::claimed);
        RawDb raw(file);
        raw.exec(
            "CREATE TRIGGER mark_beta AFTER INSERT ON agentskills_activations BEGIN"
            " INSERT OR REPLACE INTO agentskills_activations VALUES (NEW.conversation, 'beta', 'active', 99, 0);"
            " END");
        CHECK_THROWS_WITH(store.claim("alpha"), Catch::Contains("holds the trigger 'mark_beta'"));
        CHECK_THROWS_WITH(store.active_names(), Catch::Contains("holds the trigger 'mark_beta'"));
        CHECK(raw.value("SELECT count(*) FROM agentskills_activations WHERE name IN ('alpha', 'beta')") == "0");
    }
}

TEST_CASE("sqlite store: a file of an earlier version (two tables) is read and gets the claims table",
          "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("old.sqlite");
    {
        // What every earlier version created.
        RawDb raw(file);
        raw.exec(
            "CREATE TABLE IF NOT EXISTS agentskills_activations ("
            " conversation TEXT NOT NULL, name TEXT NOT NULL,"
            " state TEXT NOT NULL CHECK (state IN ('pending', 'active')),"
            " seq INTEGER, claimed_at_ms INTEGER NOT NULL,"
            " PRIMARY KEY (conversation, name));"
            "CREATE TABLE IF NOT EXISTS agentskills_conversations ("
            " conversation TEXT PRIMARY KEY, prompt_delivered INTEGER NOT NULL DEFAULT 0);"
            "INSERT INTO agentskills_activations VALUES ('default', 'alpha', 'active', 1, 0)");
    }
    SqliteActivationStore store(file);
    CHECK(store.active_names() == std::vector<std::string>{"alpha"});
    CHECK(RawDb(file).value("SELECT sql FROM sqlite_master WHERE name = 'agentskills_claims'") ==
          "CREATE TABLE agentskills_claims ( conversation TEXT NOT NULL, name TEXT NOT NULL, lock_offset INTEGER,"
          " holder_pid INTEGER NOT NULL, holder_host TEXT NOT NULL, PRIMARY KEY (conversation, name))");
}

TEST_CASE("sqlite store: the next caller gets the content of a claim whose holder was killed with SIGKILL",
          "[activation][sqlite][process]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    auto loader = std::make_shared<DelayLoader>();
    const SkillActivator core(discover_skill_catalog(loader), {.wait_timeout = 15s});
    ClaimingChild child(file, "alpha");
    SqliteActivationStore store(file, {.busy_timeout = 60s});
    // The child is alive and holds the claim.
    REQUIRE(store.claim("alpha") == ClaimResult::in_progress);

    // This caller waits for the claim; the holder is killed while it waits.
    const auto start = std::chrono::steady_clock::now();
    std::thread killer([&] {
        std::this_thread::sleep_for(300ms);
        child.kill();
    });
    const ActivationResult r = core.activate(store, activation_arguments("alpha"));
    killer.join();
    const auto took = std::chrono::steady_clock::now() - start;
    CHECK(r.status == ActivationStatus::content);
    CHECK(r.error.empty());
    CHECK(loader->loads == 1);
    // At once, not after the 10 minutes of stale_claim_after: a generous bound.
    CHECK(took < 15s);
    CHECK(store.active_names() == std::vector<std::string>{"alpha"});
}

TEST_CASE("sqlite store: a caller waiting for a live holder is told, after the busy timeout, whom it waits for",
          "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    auto loader = std::make_shared<DelayLoader>();
    const SkillActivator core(discover_skill_catalog(loader), {.wait_timeout = 20s});
    SqliteActivationStore holder(file, {.conversation = "c-7", .busy_timeout = 300ms});
    REQUIRE(holder.claim("alpha") == ClaimResult::claimed);

    SqliteActivationStore waiter(file, {.conversation = "c-7", .busy_timeout = 300ms});
    std::string message = "no error";
    const auto start = std::chrono::steady_clock::now();
    try {
        (void)core.activate(waiter, activation_arguments("alpha"));
    } catch (const Error& e) {
        message = e.what();
    }
    CHECK(std::chrono::steady_clock::now() - start < 15s);  // not the 20 s of wait_timeout
    const std::string expected_start = "sqlite activation store '" + file +
                                       "': waited 300 ms (the busy timeout) for the skill 'alpha' in conversation "
                                       "'c-7': it is claimed by process " +
                                       std::to_string(::getpid()) + " on host '";
    CHECK(message.substr(0, expected_start.size()) == expected_start);
    CHECK(message.find("which is alive (it holds the claim's lock in '" + real_path(dir, "state.sqlite-claims") +
                       "')") != std::string::npos);
    CHECK(loader->loads == 0);

    // A claim held through the same store is named as such.
    std::string own = "no error";
    try {
        (void)core.activate(holder, activation_arguments("alpha"));
    } catch (const Error& e) {
        own = e.what();
    }
    CHECK(own.find("for the skill 'alpha' in conversation 'c-7': it is claimed by another call through this store, "
                   "in this process") != std::string::npos);
}

TEST_CASE("sqlite store: a database locked past the busy timeout is an Error naming the skill and conversation",
          "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    SqliteActivationStore store(file, {.conversation = "c-9", .busy_timeout = 200ms});
    RawDb other(file);
    other.exec("BEGIN IMMEDIATE");
    std::string message = "no error";
    try {
        (void)store.claim("alpha");
    } catch (const Error& e) {
        message = e.what();
    }
    other.exec("ROLLBACK");
    CHECK(message == "sqlite activation store '" + file +
                         "': claiming 'alpha' in conversation 'c-9': another connection kept the database locked for "
                         "the busy timeout of 200 ms (database is locked)");
    CHECK(store.claim("alpha") == ClaimResult::claimed);
}

#ifdef AGENTSKILLS_HAVE_MCP
TEST_CASE("sqlite session store: replicas sharing the file serve every session, once per activation",
          "[activation][sqlite][sessions]") {
    agentskills_test::TempDir dir;
    const std::string path = dir.path("state.db");
    agentskills_test::check_replicated_sessions([&] { return std::make_shared<SqliteSessionStore>(path); });
    agentskills_test::check_extreme_idle_timeouts([&] { return std::make_shared<SqliteSessionStore>(path); });
}
#endif

#endif  // AGENTSKILLS_HAVE_SQLITE

// =======================================================================================
// Tests for sqlite_store.hpp (built with AGENTSKILLS_SQLITE=ON): the SQLite activation store.

namespace activation_sqlite_tests {}  // namespace activation_sqlite_tests
