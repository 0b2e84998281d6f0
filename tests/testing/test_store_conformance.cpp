// Tests of store_conformance.hpp: the store conformance kit, run over the stores of this library
// (memory, run state, SQLite; PostgreSQL in tests/postgres/test_postgres_store.cpp), and the kit
// catching a store that breaks its promises.
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <agentskills/activation/activation.hpp>
#include <agentskills/harness/run_state.hpp>
#include <agentskills/testing/store_conformance.hpp>

#ifdef AGENTSKILLS_HAVE_SQLITE
#include <agentskills/sqlite/sqlite_store.hpp>

#include "fs_fixtures.hpp"
#endif

using namespace agentskills;

namespace {

/// One object per conversation id: what a store that lives in memory offers as "a second handle".
template <class Make>
auto per_conversation(Make make) {
    auto stores = std::make_shared<std::map<std::string, ActivationStorePtr>>();
    auto mutex = std::make_shared<std::mutex>();
    return [stores, mutex, make](const std::string& conversation) -> ActivationStorePtr {
        std::lock_guard lock(*mutex);
        auto& slot = (*stores)[conversation];
        if (!slot) slot = make();
        return slot;
    };
}

/// A store that gives `claimed` to every caller: the kit must catch it.
class CarelessStore final : public ActivationStore {
public:
    ClaimResult claim(std::string_view) override { return ClaimResult::claimed; }
    void confirm(std::string_view name) override {
        std::lock_guard lock(mutex_);
        active_.emplace_back(name);
    }
    void roll_back(std::string_view) override {}
    std::vector<std::string> active_names() const override {
        std::lock_guard lock(mutex_);
        return active_;
    }
    bool prompt_delivered() const override { return false; }
    bool mark_prompt_delivered() override { return true; }

private:
    mutable std::mutex mutex_;
    std::vector<std::string> active_;
};

}  // namespace

TEST_CASE("store conformance: the memory store passes the kit", "[activation][store][conformance]") {
    const auto failures = testing::check_activation_store(
        {.open = per_conversation([] { return std::make_shared<MemoryActivationStore>(); })});
    INFO(testing::describe(failures));
    CHECK(failures.empty());
}

TEST_CASE("store conformance: the run-state store passes the kit, two handles over one state",
          "[activation][store][conformance]") {
    auto states = std::make_shared<std::map<std::string, std::shared_ptr<ShimState>>>();
    auto mutex = std::make_shared<std::mutex>();
    const auto failures = testing::check_activation_store({.open = [states, mutex](const std::string& conversation) {
        std::shared_ptr<ShimState> state;
        {
            std::lock_guard lock(*mutex);
            auto& slot = (*states)[conversation];
            if (!slot) slot = std::make_shared<ShimState>();
            state = slot;
        }
        // A new store object over the conversation's state each time; it keeps the state alive.
        auto store = std::make_shared<ShimStateActivationStore>(*state, "docs");
        return ActivationStorePtr(store.get(), [store, state](ActivationStore*) mutable {
            store.reset();
            state.reset();
        });
    }});
    INFO(testing::describe(failures));
    CHECK(failures.empty());
}

TEST_CASE("store conformance: the kit reports a store that gives every caller the claim",
          "[activation][store][conformance]") {
    const auto failures =
        testing::check_activation_store({.open = per_conversation([] { return std::make_shared<CarelessStore>(); })});
    const std::string text = testing::describe(failures);
    INFO(text);
    CHECK(text.find("claim, confirm and roll back: second claim of an unconfirmed name: claim('beta') gave claimed, "
                    "expected in_progress") != std::string::npos);
    CHECK(text.find("exactly one of simultaneous claims is claimed: 8 threads: 8 claimed, 0 in_progress; expected 1 "
                    "and 7") != std::string::npos);
    CHECK(text.find("the prompt's delivery is recorded once") != std::string::npos);
    CHECK(testing::check_activation_store({}).size() == 1);
}

#ifdef AGENTSKILLS_HAVE_SQLITE
TEST_CASE("store conformance: the SQLite store passes the kit, a connection per handle",
          "[activation][store][conformance][sqlite]") {
    agentskills_test::TempDir dir;
    const std::string file = dir.path("state.sqlite");
    const auto failures = testing::check_activation_store({.open = [file](const std::string& conversation) {
        return std::make_shared<SqliteActivationStore>(file, SqliteStoreOptions{.conversation = conversation});
    }});
    INFO(testing::describe(failures));
    CHECK(failures.empty());
}
#endif
