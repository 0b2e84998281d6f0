// Tests of postgres_store.hpp: the PostgreSQL activation store. They need a server: ctest starts
// one (tests/postgres/server.sh, the postgres_server fixture) and names it in
// AGENTSKILLS_TEST_POSTGRES_URI_FILE; AGENTSKILLS_TEST_POSTGRES_URI names one directly. Without
// either, every test here fails (never skipped).
#include <catch2/catch.hpp>

#ifdef AGENTSKILLS_HAVE_POSTGRES

#include <libpq-fe.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/postgres/postgres_store.hpp>
#include <agentskills/testing/store_conformance.hpp>

#include "support/delay_loader.hpp"
#include "support/session_replicas.hpp"

using namespace agentskills;
using namespace std::chrono_literals;

namespace {

/// The test server's URI; fails the test when there is none.
std::string server_uri() {
    if (const char* uri = std::getenv("AGENTSKILLS_TEST_POSTGRES_URI"); uri != nullptr && *uri != '\0') return uri;
    std::string uri;
    if (const char* file = std::getenv("AGENTSKILLS_TEST_POSTGRES_URI_FILE"); file != nullptr) {
        std::ifstream in(file);
        std::getline(in, uri);
    }
    if (uri.empty()) {
        FAIL(
            "no PostgreSQL server for the postgres store tests: run them through ctest (its postgres_server "
            "fixture starts one with tests/postgres/server.sh) or set AGENTSKILLS_TEST_POSTGRES_URI");
    }
    return uri;
}

/// A conversation id no earlier run used.
std::string fresh_conversation(std::string_view what) {
    static std::atomic<int> counter{0};
    return std::string(what) + "-" + std::to_string(::getpid()) + "-" +
           std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "-" +
           std::to_string(counter++);
}

/// A plain libpq connection: what another program (or an attacker) can do to the table.
class RawConnection {
public:
    explicit RawConnection(const std::string& uri) : conn_(PQconnectdb(uri.c_str())) {
        REQUIRE(PQstatus(conn_) == CONNECTION_OK);
        PQsetNoticeProcessor(
            conn_, [](void*, const char*) {}, nullptr);
    }
    ~RawConnection() { PQfinish(conn_); }
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;
    std::string exec(const std::string& sql) {
        PGresult* r = PQexec(conn_, sql.c_str());
        const auto status = PQresultStatus(r);
        std::string out;
        if (status == PGRES_TUPLES_OK && PQntuples(r) > 0) out = PQgetvalue(r, 0, 0);
        const std::string error = PQresultErrorMessage(r);
        PQclear(r);
        INFO(sql << ": " << error);
        REQUIRE((status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK));
        return out;
    }

private:
    PGconn* conn_;
};

/// `uri` with a search_path of `schema` (where the store looks for its table).
std::string with_schema(const std::string& uri, const std::string& schema) {
    return uri + (uri.find('?') == std::string::npos ? "?" : "&") + "options=-c%20search_path%3D" + schema;
}

using agentskills_test::activation_arguments;
using agentskills_test::DelayLoader;

}  // namespace

TEST_CASE("postgres store: passes the store conformance kit, a connection per handle", "[activation][postgres]") {
    const std::string uri = server_uri();
    const auto failures =
        testing::check_activation_store({.open =
                                             [uri](const std::string& conversation) {
                                                 return std::make_shared<PostgresActivationStore>(
                                                     uri, PostgresStoreOptions{.conversation = conversation});
                                             },
                                         .conversation_prefix = fresh_conversation("kit") + "-",
                                         .threads = 16});
    INFO(testing::describe(failures));
    CHECK(failures.empty());
}

TEST_CASE("postgres store: one table, reset, and a claim that lasts as long as its holder's connection",
          "[activation][postgres]") {
    const std::string uri = server_uri();
    const std::string c = fresh_conversation("reset");
    PostgresActivationStore a(uri, {.conversation = c});
    PostgresActivationStore other(uri, {.conversation = c + "-other"});
    CHECK(a.claim("alpha") == ClaimResult::claimed);
    a.confirm("alpha");
    CHECK(a.mark_prompt_delivered());
    CHECK(other.claim("alpha") == ClaimResult::claimed);
    {
        PostgresActivationStore holder(uri, {.conversation = c});
        CHECK(holder.claim("beta") == ClaimResult::claimed);
        CHECK(a.claim("beta") == ClaimResult::in_progress);
        CHECK(holder.claim("beta") == ClaimResult::in_progress);  // its own claim, not taken twice
    }
    // The holder's connection closed: the next caller takes the claim over as soon as the
    // server has ended that session (a few milliseconds after PQfinish returns).
    ClaimResult after = a.claim("beta");
    for (int i = 0; i < 250 && after == ClaimResult::in_progress; ++i) {
        std::this_thread::sleep_for(20ms);
        after = a.claim("beta");
    }
    CHECK(after == ClaimResult::claimed);
    a.reset();
    CHECK(a.active_names().empty());
    CHECK_FALSE(a.prompt_delivered());
    CHECK(other.claim("alpha") == ClaimResult::in_progress);  // the other conversation is untouched
    RawConnection raw(uri);
    CHECK(raw.exec("SELECT count(*) FROM pg_catalog.pg_class WHERE relname LIKE 'agentskills%' AND relnamespace = "
                   "'public'::regnamespace") == "2");  // table, key
    CHECK_THROWS_AS(a.claim(""), Error);
}

TEST_CASE("postgres store: a failed load rolls back and the waiter loads it", "[activation][postgres]") {
    const std::string uri = server_uri();
    const std::string c = fresh_conversation("rollback");
    auto loader = std::make_shared<DelayLoader>();
    loader->delay = 150ms;
    loader->fail_first = 1;
    const SkillActivator core(discover_skill_catalog(loader));
    PostgresActivationStore s1(uri, {.conversation = c});
    PostgresActivationStore s2(uri, {.conversation = c});
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
    CHECK(loader->loads == 2);
    CHECK(s1.active_names() == std::vector<std::string>{"beta"});
}

TEST_CASE("postgres store: the waiter gets the content of a claim whose holder was killed with SIGKILL",
          "[activation][postgres][process]") {
    const std::string uri = server_uri();
    const std::string c = fresh_conversation("sigkill");
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::close(fds[0]);
        char status = 'e';
        try {
            PostgresActivationStore store(uri, {.conversation = c});
            status = store.claim("alpha") == ClaimResult::claimed ? 'c' : 'n';
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
    auto kill_child = [child] {
        ::kill(child, SIGKILL);
        int ignored = 0;
        ::waitpid(child, &ignored, 0);
    };
    if (got != 1 || status != 'c') kill_child();
    REQUIRE(got == 1);
    REQUIRE(status == 'c');

    auto loader = std::make_shared<DelayLoader>();
    const SkillActivator core(discover_skill_catalog(loader), {.wait_timeout = 60s});
    PostgresActivationStore store(uri, {.conversation = c});
    CHECK(store.claim("alpha") == ClaimResult::in_progress);  // the child is alive and holds it
    const auto start = std::chrono::steady_clock::now();
    std::thread killer([&] {
        std::this_thread::sleep_for(300ms);
        kill_child();
    });
    const ActivationResult r = core.activate(store, activation_arguments("alpha"));
    killer.join();
    const auto took = std::chrono::steady_clock::now() - start;
    CHECK(r.status == ActivationStatus::content);
    CHECK(loader->loads == 1);
    CHECK(took < 15s);  // within seconds, not the minute of wait_timeout
    CHECK(store.active_names() == std::vector<std::string>{"alpha"});
}

TEST_CASE("postgres store: a table of another shape is refused, naming what differs", "[activation][postgres]") {
    const std::string uri = server_uri();
    RawConnection raw(uri);
    const std::string schema = "shape_" + std::to_string(::getpid());
    raw.exec("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    raw.exec("CREATE SCHEMA " + schema);
    auto open_error = [&] {
        try {
            PostgresActivationStore store(with_schema(uri, schema));
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    SECTION("an extra column") {
        raw.exec("CREATE TABLE " + schema +
                 ".agentskills_activations (conversation text NOT NULL, name text NOT NULL, state text NOT NULL, seq "
                 "bigint, extra int, PRIMARY KEY (conversation, name))");
        CHECK(open_error().find("differs from the store's (it has the column extra") != std::string::npos);
    }
    SECTION("no check of the state") {
        raw.exec("CREATE TABLE " + schema +
                 ".agentskills_activations (conversation text NOT NULL, name text NOT NULL, state text NOT NULL, seq "
                 "bigint, PRIMARY KEY (conversation, name))");
        CHECK(open_error().find("its constraints are 'PRIMARY KEY (conversation, name)'") != std::string::npos);
    }
    SECTION("a view") {
        raw.exec("CREATE VIEW " + schema + ".agentskills_activations AS SELECT 1 AS x");
        CHECK(open_error().find("is not a plain table (relkind 'v')") != std::string::npos);
    }
    SECTION("a trigger") {
        { PostgresActivationStore create(with_schema(uri, schema)); }
        raw.exec("CREATE FUNCTION " + schema + ".t() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'");
        raw.exec("CREATE TRIGGER t BEFORE INSERT ON " + schema +
                 ".agentskills_activations FOR EACH ROW EXECUTE FUNCTION " + schema + ".t()");
        CHECK(open_error().find("it has a trigger or a rule") != std::string::npos);
    }
    SECTION("the store's own table is created once and accepted again") {
        CHECK(open_error() == "no error");
        CHECK(open_error() == "no error");
    }
    raw.exec("DROP SCHEMA " + schema + " CASCADE");
}

TEST_CASE("postgres store: a password never appears in a message", "[activation][postgres]") {
    CHECK(PostgresActivationStore::mask_password("postgresql://ann:s3cret@db.example:5432/skills?sslmode=require") ==
          "postgresql://ann:***@db.example:5432/skills?sslmode=require");
    CHECK(PostgresActivationStore::mask_password("postgres://db/skills?user=ann&password=s3cret&sslmode=require") ==
          "postgres://db/skills?user=ann&password=***&sslmode=require");
    CHECK(PostgresActivationStore::mask_password("host=db password='s3 cret' user=ann") ==
          "host=db password=*** user=ann");
    CHECK(PostgresActivationStore::mask_password("postgresql://ann@db/skills") == "postgresql://ann@db/skills");
    CHECK(PostgresActivationStore::is_connection_uri("postgresql://x"));
    CHECK_FALSE(PostgresActivationStore::is_connection_uri("state.sqlite"));
    // A server that is not there: the message names the masked string, never the password.
    std::string message = "no error";
    try {
        PostgresActivationStore store("postgresql://ann:s3cret@127.0.0.1:1/skills", {.connect_timeout = 2s});
    } catch (const Error& e) {
        message = e.what();
    }
    CHECK(message.find("postgres activation store 'postgresql://ann:***@127.0.0.1:1/skills': cannot connect: ") == 0);
    CHECK(message.find("s3cret") == std::string::npos);
}

#ifdef AGENTSKILLS_HAVE_MCP
TEST_CASE("postgres session store: replicas sharing the database serve every session, once per activation",
          "[activation][postgres][sessions]") {
    const std::string uri = server_uri();
    // The sessions table goes before and after (the other tests count the store's relations).
    struct DropSessions {
        std::string uri;
        void drop() const { RawConnection(uri).exec("DROP TABLE IF EXISTS agentskills_sessions"); }
        ~DropSessions() { drop(); }
    } drop_sessions{uri};
    drop_sessions.drop();
    agentskills_test::check_replicated_sessions([&] { return std::make_shared<PostgresSessionStore>(uri); });
    agentskills_test::check_extreme_idle_timeouts([&] { return std::make_shared<PostgresSessionStore>(uri); });
}
#endif

#endif  // AGENTSKILLS_HAVE_POSTGRES
