// Tests for live_catalog.hpp: generations, change sets, the watcher, and SkillsShim on generations.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include <agentskills/base/diagnostic_codes.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/catalog/live_catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/shim/skills_shim.hpp>

#include "fs_fixtures.hpp"

// =======================================================================================
// Tests for live_catalog.hpp: generations, change sets, the watcher, and SkillsShim on generations.

namespace live_catalog_tests {

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;
using namespace std::chrono_literals;

namespace {

std::shared_ptr<FilesystemSkillLoader> loader_for(const std::vector<std::string>& roots) {
    return std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = roots, .include_default_roots = false, .threads = 1});
}

using Names = std::vector<std::string>;

/// Collects change sets from any thread; waits for a condition with a deadline.
class Recorder {
public:
    void operator()(const CatalogChangeSet& cs) {
        {
            std::lock_guard lock(mutex_);
            sets_.push_back(cs);
        }
        changed_.notify_all();
    }
    std::vector<CatalogChangeSet> sets() const {
        std::lock_guard lock(mutex_);
        return sets_;
    }
    template <class Pred>
    bool wait_for(Pred pred, std::chrono::milliseconds timeout = 15s) {
        std::unique_lock lock(mutex_);
        return changed_.wait_for(lock, timeout, [&] { return pred(sets_); });
    }

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<CatalogChangeSet> sets_;
};

/// Polls `pred` until it holds or the deadline passes.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = 15s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!pred()) {
        if (std::chrono::steady_clock::now() >= deadline) return false;
        std::this_thread::sleep_for(2ms);
    }
    return true;
}

}  // namespace

TEST_CASE("live catalog: refresh publishes generations with added, changed and removed names", "[live]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    t.write("lib/beta/SKILL.md", skill_md("beta", "Beta."));
    Recorder recorder;
    LiveCatalog live(loader_for({t.path("lib")}), {.on_change = std::ref(recorder)});
    const CatalogGenerationPtr first = live.current();
    CHECK(first->number == 1);
    CHECK(first->catalog->names() == Names{"alpha", "beta"});

    SECTION("nothing changed: no generation, no callback") {
        CHECK_FALSE(live.refresh().has_value());
        CHECK(live.generation() == 1);
        CHECK(live.current() == first);
        CHECK(recorder.sets().empty());
    }

    SECTION("an addition, a body edit and a removal in one change set") {
        t.write("lib/gamma/SKILL.md", skill_md("gamma", "Gamma."));
        t.write("lib/beta/SKILL.md", skill_md("beta", "Beta.", "A longer body than before."));
        std::filesystem::remove_all(t.path("lib/alpha"));
        const std::optional<CatalogChangeSet> cs = live.refresh();
        REQUIRE(cs.has_value());
        CHECK(cs->previous == 1);
        CHECK(cs->generation == 2);
        CHECK(cs->added == Names{"gamma"});
        CHECK(cs->changed == Names{"beta"});
        CHECK(cs->removed == Names{"alpha"});
        CHECK(cs->diagnostics.empty());
        CHECK(cs->files ==
              Names{t.path("lib/alpha/SKILL.md"), t.path("lib/beta/SKILL.md"), t.path("lib/gamma/SKILL.md")});
        CHECK(live.generation() == 2);
        CHECK(live.catalog()->names() == Names{"beta", "gamma"});
        // The earlier generation is untouched.
        CHECK(first->catalog->names() == Names{"alpha", "beta"});
        REQUIRE(recorder.sets().size() == 1);
        CHECK(recorder.sets()[0].generation == 2);
        CHECK(recorder.sets()[0].added == Names{"gamma"});
        CHECK_FALSE(live.refresh().has_value());
    }

    SECTION("a frontmatter edit is a change; a file that breaks and is fixed") {
        t.write("lib/beta/SKILL.md", skill_md("beta", "Beta, described again."));
        std::optional<CatalogChangeSet> cs = live.refresh();
        REQUIRE(cs.has_value());
        CHECK(cs->changed == Names{"beta"});
        CHECK(live.catalog()->get("beta")->description == "Beta, described again.");

        t.write("lib/beta/SKILL.md", "---\nname: beta\ndescription: never closed\n");
        cs = live.refresh();
        REQUIRE(cs.has_value());
        CHECK(cs->generation == 3);
        CHECK(cs->removed == Names{"beta"});
        CHECK(cs->added.empty());
        REQUIRE_FALSE(cs->diagnostics.empty());
        for (const auto& d : cs->diagnostics) CHECK(d.path == t.path("lib/beta/SKILL.md"));
        CHECK(cs->diagnostics[0].code == codes::frontmatter_unclosed);

        t.write("lib/beta/SKILL.md", skill_md("beta", "Beta, fixed."));
        cs = live.refresh();
        REQUIRE(cs.has_value());
        CHECK(cs->added == Names{"beta"});
        CHECK(cs->diagnostics.empty());
        CHECK(cs->files == Names{t.path("lib/beta/SKILL.md")});
        CHECK(recorder.sets().size() == 3);
    }
}

TEST_CASE("live catalog: compare_by_value ignores a body-only edit", "[live]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    LiveCatalog by_value(loader_for({t.path("lib")}), {.compare_by_value = true});
    LiveCatalog by_parse(loader_for({t.path("lib")}));
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha.", "Another, longer body."));
    CHECK_FALSE(by_value.refresh().has_value());
    const auto cs = by_parse.refresh();
    REQUIRE(cs.has_value());
    CHECK(cs->changed == Names{"alpha"});
}

TEST_CASE("live catalog: a body-only edit is a change with or without frontmatter JSON and bodies", "[live]") {
    // The comparison by parse tells a file parsed again by its manifest's frontmatter object:
    // that must hold whether the loader builds the frontmatter JSON and keeps bodies or not.
    for (const bool frontmatter_json : {true, false}) {
        for (const bool lazy_bodies : {false, true}) {
            CAPTURE(frontmatter_json, lazy_bodies);
            TempDir t;
            t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
            t.write("lib/beta/SKILL.md", skill_md("beta", "Beta."));
            const auto loader = [&](bool keep_results) {
                return std::make_shared<FilesystemSkillLoader>(
                    FilesystemLoaderOptions{.roots = {t.path("lib")},
                                            .include_default_roots = false,
                                            .lazy_bodies = lazy_bodies,
                                            .keep_results = keep_results,
                                            .frontmatter_json = frontmatter_json,
                                            .threads = 1});
            };
            LiveCatalog live(loader(true));
            CHECK_FALSE(live.refresh().has_value());
            t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha.", "Another, longer body."));
            const auto cs = live.refresh();
            REQUIRE(cs.has_value());
            CHECK(cs->changed == Names{"alpha"});
            CHECK(cs->added.empty());
            CHECK(cs->removed.empty());
            CHECK_FALSE(live.refresh().has_value());
            // A loader that parses everything again at each discover cannot be compared by parse.
            CHECK_THROWS_WITH(LiveCatalog(loader(false)),
                              "LiveCatalog: the FilesystemSkillLoader keeps no results (keep_results is false), so "
                              "every refresh would parse every file again and report every skill as changed; keep its "
                              "results, or set compare_by_value");
            LiveCatalog by_value(loader(false), {.compare_by_value = true});
            CHECK_FALSE(by_value.refresh().has_value());
        }
    }
}

TEST_CASE("live catalog: diff_catalogs compares two catalogs", "[live]") {
    TempDir t;
    t.write("one/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    t.write("two/beta/SKILL.md", skill_md("beta", "Beta."));
    const auto a = discover_skill_catalog(loader_for({t.path("one")}));
    const auto b = discover_skill_catalog(loader_for({t.path("two")}));
    const CatalogChangeSet cs = diff_catalogs(*a, *b);
    CHECK(cs.added == Names{"beta"});
    CHECK(cs.removed == Names{"alpha"});
    CHECK(cs.changed.empty());
    CHECK(diff_catalogs(*a, *a).empty());
}

TEST_CASE("live catalog: concurrent refreshes publish every generation once, in order", "[live][concurrency]") {
    TempDir t;
    t.mkdir("lib");
    Recorder recorder;
    LiveCatalog live(loader_for({t.path("lib")}), {.on_change = std::ref(recorder)});
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
        threads.emplace_back([&, i] {
            for (int j = 0; j < 5; ++j) {
                const std::string name = "s" + std::to_string(i) + "-" + std::to_string(j);
                t.write("lib/" + name + "/SKILL.md", skill_md(name, "A skill."));
                (void)live.refresh();
                (void)live.current()->catalog->size();
            }
        });
    }
    for (auto& th : threads) th.join();
    (void)live.refresh();
    CHECK(live.catalog()->size() == 20);
    const auto sets = recorder.sets();
    REQUIRE_FALSE(sets.empty());
    std::size_t added = 0;
    for (std::size_t i = 0; i < sets.size(); ++i) {
        CHECK(sets[i].previous == i + 1);
        CHECK(sets[i].generation == i + 2);
        added += sets[i].added.size();
    }
    CHECK(added == 20);
    CHECK(live.generation() == sets.size() + 1);
}

TEST_CASE("watcher: a burst of 100 edits in 100 ms yields one change set", "[live][watch][concurrency]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "v-start"));
    Recorder recorder;
    LiveCatalog live(loader_for({t.path("lib")}), {.on_change = std::ref(recorder)});
    live.start_watching({.throttle = DEFAULT_WATCH_THROTTLE});
    CHECK(live.watching());
    // The watcher's first refresh (right after it starts) finds nothing new.
    REQUIRE(eventually([&] { return live.watcher_refreshes() >= 1; }));

    // One edit a millisecond. What the test needs of the machine: no pause between two edits as
    // long as the throttle (the quiet time that ends a burst).
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    std::chrono::steady_clock::duration longest_gap{};
    for (int i = 0; i < 100; ++i) {
        std::this_thread::sleep_until(start + std::chrono::milliseconds(i));
        t.write("lib/alpha/SKILL.md", skill_md("alpha", "v" + std::to_string(i)));
        const auto now = std::chrono::steady_clock::now();
        longest_gap = std::max(longest_gap, now - last);
        last = now;
    }
    REQUIRE(longest_gap < DEFAULT_WATCH_THROTTLE);

    REQUIRE(recorder.wait_for([](const auto& sets) { return !sets.empty(); }));
    // The one change set already holds the last edit: a refresh now finds nothing.
    CHECK(live.catalog()->get("alpha")->description == "v99");
    CHECK_FALSE(live.refresh().has_value());
    const auto sets = recorder.sets();
    REQUIRE(sets.size() == 1);
    CHECK(sets[0].changed == Names{"alpha"});
    CHECK(sets[0].generation == 2);
    live.stop_watching();
    CHECK_FALSE(live.watching());
}

TEST_CASE("watcher: a root that does not exist yet is picked up when it appears", "[live][watch][concurrency]") {
    TempDir t;
    const std::string root = t.path("a/b/skills");
    Recorder recorder;
    std::vector<Diagnostic> problems;
    LiveCatalog live(loader_for({root}), {.on_change = std::ref(recorder)});
    CHECK(live.catalog()->empty());
    live.start_watching({.throttle = 20ms});
    REQUIRE(eventually([&] { return live.watcher_refreshes() >= 1; }));

    t.write("a/b/skills/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    REQUIRE(recorder.wait_for([](const auto& sets) {
        for (const auto& cs : sets) {
            for (const auto& n : cs.added) {
                if (n == "alpha") return true;
            }
        }
        return false;
    }));
    CHECK(live.catalog()->names() == Names{"alpha"});

    // The new root's skill directories are watched too.
    t.write("a/b/skills/alpha/SKILL.md", skill_md("alpha", "Alpha, edited."));
    REQUIRE(eventually([&] { return live.catalog()->get("alpha")->description == "Alpha, edited."; }));

    // And a root that goes away is watched through its parent again.
    std::filesystem::remove_all(t.path("a/b/skills"));
    REQUIRE(eventually([&] { return live.catalog()->empty(); }));
    t.write("a/b/skills/beta/SKILL.md", skill_md("beta", "Beta."));
    REQUIRE(eventually([&] { return live.catalog()->names() == Names{"beta"}; }));
    const auto sets = recorder.sets();
    for (std::size_t i = 0; i < sets.size(); ++i) CHECK(sets[i].generation == i + 2);
}

TEST_CASE("watcher: configuration errors", "[live][watch]") {
    TempDir t;
    t.mkdir("lib");
    auto memory = std::make_shared<MemorySkillReader>();
    LiveCatalog in_memory(std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.reader = memory}));
    CHECK_THROWS_AS(in_memory.start_watching(), ConfigurationError);
    LiveCatalog live(loader_for({t.path("lib")}));
    live.start_watching({.throttle = 10ms});
    CHECK_THROWS_AS(live.start_watching(), ConfigurationError);
    live.stop_watching();
    live.stop_watching();  // no-op
    CHECK_THROWS_AS(LiveCatalog(nullptr), ConfigurationError);
}

// ---------------------------------------------------------------------------------------
// SkillsShim on generations

namespace {

ToolCall call(std::string id, std::string name, std::string arguments) {
    return ToolCall{.id = std::move(id), .name = std::move(name), .arguments = std::move(arguments)};
}

std::string system_of(const ModelRequest& r) { return r.messages.empty() ? "" : r.messages.front().content; }

}  // namespace

TEST_CASE("shim: edits during a run do not change that run's block or tool; the next run gets them", "[live][shim]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha, first."));
    auto live = std::make_shared<LiveCatalog>(loader_for({t.path("lib")}));
    auto shim = std::make_shared<SkillsShim>(SkillsShimOptions{.live_catalog = live});
    Tool edit{.spec = ToolSpec{.name = "edit", .description = "Edits the library."},
              .handler = [&](const ToolCall&, RunState&) {
                  t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha, second."));
                  t.write("lib/late/SKILL.md", skill_md("late", "Late."));
                  REQUIRE(live->refresh().has_value());
                  return std::string("edited");
              }};
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("", {call("1", "edit", "{}")}),
        assistant_message("", {call("2", "activate_skill", R"({"name":"late"})")}),
        assistant_message("done"),
        // run 2
        assistant_message("", {call("3", "activate_skill", R"({"name":"late"})")}),
        assistant_message("done again"),
    });
    DefaultAgent agent({.name = "a", .instructions = "Be brief.", .model = model, .tools = {edit}, .shims = {shim}});
    (void)agent.run("first");
    auto requests = model->requests();
    REQUIRE(requests.size() == 3);
    CHECK(live->generation() == 2);
    for (std::size_t i = 1; i < 3; ++i) {
        CHECK(system_of(requests[i]) == system_of(requests[0]));
        CHECK(requests[i].tools == requests[0].tools);
    }
    CHECK(system_of(requests[0]).find("Alpha, first.") != std::string::npos);
    CHECK(system_of(requests[0]).find("late") == std::string::npos);
    // The activation during the run used the run's generation: "late" is not in it.
    const Message& unknown = requests[2].messages.back();
    CHECK(unknown.content == "There is no skill named \"late\". Available skills: alpha.");
    CHECK(agent.run_state().shim_state.get("skills:catalog-generation") == 1);

    (void)agent.run("second");
    requests = model->requests();
    REQUIRE(requests.size() == 5);
    const std::string block = system_of(requests[3]);
    CHECK(block.rfind("Be brief.\n\n", 0) == 0);
    CHECK(block.find("Alpha, second.") != std::string::npos);
    CHECK(block.find("Alpha, first.") == std::string::npos);
    CHECK(block.find("<name>late</name>") != std::string::npos);
    CHECK(block.find("<available_skills>") == block.rfind("<available_skills>"));  // replaced, not appended
    CHECK(requests[4].messages.back().content.rfind("<skill_content name=\"late\">", 0) == 0);
    CHECK(agent.run_state().shim_state.get("skills:catalog-generation") == 2);
    CHECK(shim->prompt_block().find("Alpha, second.") != std::string::npos);
    CHECK(shim->catalog() == live->catalog());
}

TEST_CASE("shim: reload every run re-discovers at each run's start", "[live][shim]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    auto shim = std::make_shared<SkillsShim>(
        SkillsShimOptions{.loader = loader_for({t.path("lib")}), .reload = ReloadPolicy::every_run});
    auto model =
        std::make_shared<ScriptedModel>(std::vector<Message>{assistant_message("one"), assistant_message("two")});
    DefaultAgent agent({.name = "a", .model = model, .shims = {shim}});
    (void)agent.run("first");
    t.write("lib/beta/SKILL.md", skill_md("beta", "Beta."));
    (void)agent.run("second");
    const auto requests = model->requests();
    REQUIRE(requests.size() == 2);
    CHECK(system_of(requests[0]).find("<name>beta</name>") == std::string::npos);
    CHECK(system_of(requests[1]).find("<name>beta</name>") != std::string::npos);
    CHECK(system_of(requests[1]).find("<name>alpha</name>") != std::string::npos);
    REQUIRE(shim->live_catalog() != nullptr);
    CHECK(shim->live_catalog()->generation() == 2);
    CHECK_FALSE(shim->refresh().has_value());
}

TEST_CASE("shim: a watcher's generation swap during a run waits for the next run", "[live][shim][watch][concurrency]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha, first."));
    Recorder recorder;
    auto shim = std::make_shared<SkillsShim>(SkillsShimOptions{.loader = loader_for({t.path("lib")}),
                                                               .reload = ReloadPolicy::watch,
                                                               .watch = {.throttle = 20ms},
                                                               .on_catalog_change = std::ref(recorder)});
    Tool edit{.spec = ToolSpec{.name = "edit"}, .handler = [&](const ToolCall&, RunState&) {
                  t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha, second."));
                  // Wait (bounded) until the watcher published the edit.
                  const bool seen = recorder.wait_for([](const auto& sets) { return !sets.empty(); });
                  return std::string(seen ? "seen" : "not seen");
              }};
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("", {call("1", "edit", "{}")}),
        assistant_message("", {call("2", "activate_skill", R"({"name":"alpha"})")}),
        assistant_message("done"),
        assistant_message("next"),
    });
    DefaultAgent agent({.name = "a", .model = model, .tools = {edit}, .shims = {shim}}, {.parallel_tool_calls = true});
    (void)agent.run("first");
    auto requests = model->requests();
    REQUIRE(requests.size() == 3);
    CHECK(requests[1].messages.back().content == "seen");
    CHECK(system_of(requests[1]) == system_of(requests[0]));
    CHECK(system_of(requests[2]) == system_of(requests[0]));
    CHECK(system_of(requests[2]).find("Alpha, first.") != std::string::npos);
    (void)agent.run("second");
    requests = model->requests();
    REQUIRE(requests.size() == 4);
    CHECK(system_of(requests[3]).find("Alpha, second.") != std::string::npos);
    CHECK(system_of(requests[3]).find("Alpha, first.") == std::string::npos);
    REQUIRE(shim->live_catalog() != nullptr);
    CHECK(shim->live_catalog()->watching());
}

TEST_CASE("shim: reload options that cannot work", "[live][shim]") {
    TempDir t;
    t.mkdir("lib");
    auto loader = loader_for({t.path("lib")});
    auto live = std::make_shared<LiveCatalog>(loader);
    CHECK_THROWS_AS(SkillsShim({.loader = loader, .live_catalog = live}), ConfigurationError);
    CHECK_THROWS_AS(SkillsShim({.catalog = discover_skill_catalog(loader), .reload = ReloadPolicy::every_run}),
                    ConfigurationError);
    SkillsShim fixed({.loader = loader});
    CHECK_THROWS_AS(fixed.refresh(), ConfigurationError);
    CHECK(fixed.live_catalog() == nullptr);
}

TEST_CASE("watcher: past its directory limit it warns once; a failing refresh is reported",
          "[live][watch][concurrency]") {
    TempDir t;
    for (const char* n : {"a", "b", "c"}) t.write(std::string("lib/") + n + "/SKILL.md", skill_md(n, "A skill."));
    std::mutex mutex;
    std::vector<Diagnostic> seen;
    const auto collect = [&](const Diagnostic& d) {
        std::lock_guard lock(mutex);
        seen.push_back(d);
    };
    const auto codes_seen = [&] {
        std::lock_guard lock(mutex);
        std::vector<std::string> out;
        for (const auto& d : seen) out.push_back(d.code);
        return out;
    };
    auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{
        .roots = {t.path("lib")}, .include_default_roots = false, .missing_directories = MissingDirectories::error});
    LiveCatalog live(loader, {.on_diagnostic = collect});
    // The root, its parent (for the root's name) and one skill directory.
    live.start_watching({.throttle = 10ms, .max_directories = 3});
    {
        std::lock_guard lock(mutex);
        REQUIRE(seen.size() == 1);  // reported while arming, before start_watching returned
        CHECK(seen[0].code == codes::watch_incomplete);
        CHECK(seen[0].severity == Severity::warning);
        CHECK(seen[0].message ==
              "the skills watcher could not watch 2 of 5 directories (more than its limit of 3); changes there are "
              "seen only at the next refresh");
    }
    // The root goes away (at once): under missing_directories = error the refresh throws; the
    // generation stays.
    std::filesystem::rename(t.path("lib"), t.path("gone"));
    REQUIRE(eventually([&] {
        const auto c = codes_seen();
        return std::find(c.begin(), c.end(), std::string(codes::refresh_failed)) != c.end();
    }));
    CHECK(live.generation() == 1);
    CHECK(live.catalog()->size() == 3);
}

TEST_CASE("watcher: the last reference dropped inside on_change, on the watcher's thread, ends the catalog",
          "[live][watch][concurrency]") {
    // A listener that holds the catalog weakly (no cycle) locks it for the length of its call; when
    // the owner lets go meanwhile, the catalog ends on the watcher's thread. Before, its destructor
    // joined the watcher's thread from that thread itself: std::terminate.
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "v1"));
    // Shared with the callback, which runs on after the catalog ended.
    struct State {
        std::mutex mutex;
        std::condition_variable cv;
        bool in_callback = false;
        bool dropped = false;
        bool ended = false;
        int calls = 0;
        std::weak_ptr<LiveCatalog> weak;
    };
    auto state = std::make_shared<State>();
    const auto on_change = [state](const CatalogChangeSet&) {
        std::shared_ptr<LiveCatalog> self = state->weak.lock();
        if (!self) return;
        std::unique_lock lock(state->mutex);
        ++state->calls;
        state->in_callback = true;
        state->cv.notify_all();
        state->cv.wait(lock, [&] { return state->dropped; });
        (void)self->current();  // still whole: this call holds it
        lock.unlock();
        self.reset();  // the last reference: the catalog ends here, on the watcher's thread
        lock.lock();
        state->ended = true;
        state->cv.notify_all();
    };
    auto live = std::make_shared<LiveCatalog>(loader_for({t.path("lib")}), LiveCatalogOptions{.on_change = on_change});
    state->weak = live;
    live->start_watching({.throttle = 10ms});
    REQUIRE(eventually([&] { return live->watcher_refreshes() >= 1; }));
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "v2, a longer description"));
    {
        std::unique_lock lock(state->mutex);
        REQUIRE(state->cv.wait_for(lock, 15s, [&] { return state->in_callback; }));
        live.reset();  // the callback's reference is the last one
        state->dropped = true;
        state->cv.notify_all();
        REQUIRE(state->cv.wait_for(lock, 15s, [&] { return state->ended; }));
        CHECK(state->weak.expired());
        CHECK(state->calls == 1);
    }
}

TEST_CASE("watcher: on_diagnostic may call back into the catalog while start_watching arms",
          "[live][watch][concurrency]") {
    // The watch-incomplete warning of the first arming is reported before start_watching returns.
    // Before, that was under the catalog's watcher lock: a listener asking watching() (or calling
    // stop_watching()) deadlocked start_watching.
    TempDir t;
    for (const char* n : {"a", "b", "c"}) t.write(std::string("lib/") + n + "/SKILL.md", skill_md(n, "A skill."));
    std::vector<bool> watching_seen;
    LiveCatalog* self = nullptr;
    const auto on_diagnostic = [&](const Diagnostic& d) {
        if (d.code == codes::watch_incomplete) watching_seen.push_back(self->watching());
    };
    auto live =
        std::make_unique<LiveCatalog>(loader_for({t.path("lib")}), LiveCatalogOptions{.on_diagnostic = on_diagnostic});
    self = live.get();
    std::promise<void> started;
    std::future<void> done = started.get_future();
    std::thread starter([&] {
        live->start_watching({.throttle = 10ms, .max_directories = 2});
        started.set_value();
    });
    if (done.wait_for(60s) != std::future_status::ready) {
        // Stuck for good: leave the thread and the catalog it holds, and fail.
        starter.detach();
        (void)live.release();
        FAIL("start_watching did not return: on_diagnostic's call into the catalog deadlocked");
    }
    starter.join();
    REQUIRE(watching_seen.size() == 1);
    CHECK(live->watching());
    live->stop_watching();
    CHECK_FALSE(live->watching());
}

TEST_CASE("watcher: a throttle past WATCH_MAX_THROTTLE is that bound, not an overflow to no throttle",
          "[live][watch][concurrency]") {
    // milliseconds::max() converted to the clock's nanoseconds overflowed to -1 ms: every event
    // refreshed at once, the first refresh ran right after the start.
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "v1"));
    Recorder recorder;
    LiveCatalog live(loader_for({t.path("lib")}), {.on_change = std::ref(recorder)});
    live.start_watching({.throttle = std::chrono::milliseconds::max()});
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "v2, a longer description"));
    // Within this wait a throttle of an hour (WATCH_MAX_THROTTLE) never ends; no refresh can have run.
    CHECK_FALSE(recorder.wait_for([](const auto& sets) { return !sets.empty(); }, 2s));
    CHECK(live.watcher_refreshes() == 0);
    live.stop_watching();
}

TEST_CASE("watcher: a root link retargeted (ln -sfn) is followed", "[live][watch][concurrency]") {
    // The watcher watched what a root path named when it armed; retargeting the link made no
    // event there, so the catalog stayed on the old tree for good.
    TempDir t;
    t.write("v1/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    t.write("v2/beta/SKILL.md", skill_md("beta", "Beta."));
    std::filesystem::create_directory_symlink("v1", t.path("lib"));
    LiveCatalog live(loader_for({t.path("lib")}));
    REQUIRE(live.catalog()->names() == Names{"alpha"});
    live.start_watching({.throttle = 10ms});
    REQUIRE(eventually([&] { return live.watcher_refreshes() >= 1; }));
    std::filesystem::create_directory_symlink("v2", t.path("lib.new"));
    std::filesystem::rename(t.path("lib.new"), t.path("lib"));
    CHECK(eventually([&] { return live.catalog()->names() == Names{"beta"}; }));
    live.stop_watching();
}

TEST_CASE("watcher: a root swapped for a link to a directory outside it, then put back, is seen again",
          "[live][watch][concurrency]") {
    // While the root was a link, the watcher armed on the link's target; removing the link and
    // moving the root back made no event there, so the catalog kept the outside tree for good.
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    t.write("outside/intruder/SKILL.md", skill_md("intruder", "Intruder."));
    LiveCatalog live(loader_for({t.path("lib")}));
    live.start_watching({.throttle = 10ms});
    REQUIRE(eventually([&] { return live.watcher_refreshes() >= 1; }));
    std::filesystem::rename(t.path("lib"), t.path("away"));
    std::filesystem::create_directory_symlink("outside", t.path("lib"));
    REQUIRE(eventually([&] { return live.catalog()->names() == Names{"intruder"}; }));
    std::filesystem::remove(t.path("lib"));
    std::filesystem::rename(t.path("away"), t.path("lib"));
    t.write("lib/gamma/SKILL.md", skill_md("gamma", "Gamma."));
    CHECK(eventually([&] { return live.catalog()->names() == Names{"alpha", "gamma"}; }));
    live.stop_watching();
}

}  // namespace live_catalog_tests
