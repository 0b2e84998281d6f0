// Tests of sqlite_store.hpp: the SQLite activation store.
// One file per public header; the hostile cases are sections of it.
#include <catch2/catch.hpp>

#ifdef AGENTSKILLS_HAVE_SQLITE

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/sqlite/sqlite_store.hpp>

#include "fs_fixtures.hpp"

using namespace agentskills;
using namespace std::chrono_literals;

namespace {

class DelayLoader final : public SkillLoader {
public:
    Discovery discover() override {
        Discovery d;
        for (const char* n : {"alpha", "beta"}) {
            SkillManifest m;
            m.name = n;
            m.description = "d";
            m.root = std::string("lib/") + n;
            m.skill_file = m.root + "/SKILL.md";
            d.skills.push_back(m);
        }
        return d;
    }
    LoadedSkill load(std::string_view name) override {
        const int n = ++loads;
        std::this_thread::sleep_for(delay);
        if (n <= fail_first) throw IoError("storage offline");
        LoadedSkill s;
        for (auto& m : discover().skills) {
            if (names_equal(m.name, name)) s.manifest = m;
        }
        s.instructions = "Body of " + std::string(name) + ".";
        return s;
    }
    std::atomic<int> loads{0};
    std::chrono::milliseconds delay{0};
    int fail_first = 0;
};

std::string arguments(std::string_view name) { return std::string(R"({"name":")") + std::string(name) + "\"}"; }

}  // namespace

TEST_CASE("sqlite store: claims, order, roll back and delivery across connections", "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    SqliteActivationStore a(file);
    SqliteActivationStore b(file);
    SqliteActivationStore other(file, {.conversation = "other"});
    CHECK(a.claim("beta") == ClaimResult::claimed);
    CHECK(b.claim("beta") == ClaimResult::in_progress);
    CHECK(b.claim("alpha") == ClaimResult::claimed);
    b.confirm("alpha");
    a.confirm("beta");
    CHECK(a.claim("alpha") == ClaimResult::already_active);
    CHECK(b.active_names() == std::vector<std::string>{"alpha", "beta"});
    CHECK(other.active_names().empty());
    CHECK(other.claim("alpha") == ClaimResult::claimed);
    other.roll_back("alpha");
    CHECK(other.claim("alpha") == ClaimResult::claimed);

    CHECK_FALSE(b.prompt_delivered());
    CHECK(a.mark_prompt_delivered());
    CHECK_FALSE(b.mark_prompt_delivered());
    CHECK(b.prompt_delivered());
    CHECK_FALSE(other.prompt_delivered());

    a.reset();
    CHECK(b.active_names().empty());
    CHECK_FALSE(b.prompt_delivered());
    CHECK(other.claim("alpha") == ClaimResult::in_progress);
}

TEST_CASE("sqlite store: a stale claim of a caller that died can be taken over", "[activation][sqlite]") {
    agentskills_test::TempDir dir;
    SqliteActivationStore dead(dir.path("s.db"));
    SqliteActivationStore live(dir.path("s.db"), {.stale_claim_after = 1000ms});
    CHECK(dead.claim("alpha") == ClaimResult::claimed);
    CHECK(live.claim("alpha") == ClaimResult::in_progress);
    std::this_thread::sleep_for(1200ms);
    CHECK(live.claim("alpha") == ClaimResult::claimed);
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
            got[i] = core.activate(store, arguments("alpha")).status;
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
    std::thread a([&] { first = core.activate(s1, arguments("beta")); });
    while (loader->loads == 0) std::this_thread::sleep_for(1ms);
    std::thread b([&] { second = core.activate(s2, arguments("beta")); });
    a.join();
    b.join();
    CHECK(first.status == ActivationStatus::load_error);
    CHECK(first.error == "storage offline");
    CHECK(second.status == ActivationStatus::content);
    CHECK(s1.active_names() == std::vector<std::string>{"beta"});
}

#endif  // AGENTSKILLS_HAVE_SQLITE

// =======================================================================================
// Tests for sqlite_store.hpp (built with AGENTSKILLS_SQLITE=ON): the SQLite activation store.

namespace activation_sqlite_tests {}  // namespace activation_sqlite_tests
