// SkillsShim activation: a first (cached) activation and the already-active path; one turn's
// preparation; the first turn of an agent; a skill's resource listing.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/shim/skills_shim.hpp>

#include "bench_data.hpp"

namespace {

struct Fixture {
    std::shared_ptr<agentskills::SkillsShim> shim;
    std::unique_ptr<agentskills::BoundShim> bound;
    agentskills::ToolHandler activate;

    explicit Fixture(std::size_t n) {
        agentskills::FilesystemLoaderOptions options;
        options.reader = agentskills::bench::memory_library(n);
        auto catalog =
            agentskills::discover_skill_catalog(std::make_shared<agentskills::FilesystemSkillLoader>(options));
        agentskills::SkillsShimOptions shim_options;
        shim_options.catalog = catalog;
        shim = std::make_shared<agentskills::SkillsShim>(std::move(shim_options));
        agentskills::AgentDescriptor agent;
        agent.name = "bench";
        bound = shim->bind(agent);
        agentskills::RunState state;
        bound->on_run_start(state);
        agentskills::PreparedTurn turn(state, {});
        bound->prepare_turn(turn);
        for (const auto& tool : turn.all_tools()) {
            if (tool.spec.name == shim->options().tool_name) activate = tool.handler;
        }
    }
};

agentskills::ToolCall call_for(std::size_t i) {
    return agentskills::ToolCall{.id = "call-1",
                                 .name = "activate_skill",
                                 .arguments = fmt::format(R"({{"name":"migration-review-{:05}"}})", i)};
}

// A conversation's first activation of a skill: instructions from the loader's cache,
// resources listed, the <skill_content> block rendered, the name recorded in the run state.
void BM_activate_first(benchmark::State& state) {
    Fixture f(1000);
    if (!f.activate) {
        state.SkipWithError("no activation tool");
        return;
    }
    std::size_t i = 0;
    for (auto _ : state) {
        state.PauseTiming();
        agentskills::RunState run;  // a fresh conversation: nothing active yet
        const agentskills::ToolCall call = call_for(i++ % 1000);
        state.ResumeTiming();
        std::string result = f.activate(call, run);
        benchmark::DoNotOptimize(result);
    }
}
BENCHMARK(BM_activate_first)->Unit(benchmark::kMicrosecond);

// The same skill again in the same conversation: the short "already active" result.
void BM_activate_already_active(benchmark::State& state) {
    Fixture f(1000);
    if (!f.activate) {
        state.SkipWithError("no activation tool");
        return;
    }
    agentskills::RunState run;
    const agentskills::ToolCall call = call_for(7);
    (void)f.activate(call, run);
    for (auto _ : state) {
        std::string result = f.activate(call, run);
        benchmark::DoNotOptimize(result);
    }
}
BENCHMARK(BM_activate_already_active)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

// One model turn's preparation with 1,000 skills and 200 tools of the agent's own: the block
// (already in the instructions: the steady state), the activation tool, the filtering.
void BM_prepare_turn_1000_skills_200_tools(benchmark::State& state) {
    Fixture f(1000);
    std::vector<agentskills::Tool> tools;
    for (int i = 0; i < 200; ++i) {
        tools.push_back(agentskills::Tool{.spec = {.name = fmt::format("tool_{:03}", i), .description = "A tool."},
                                          .handler = nullptr});
    }
    agentskills::RunState run;
    {
        agentskills::PreparedTurn first(run, tools);
        f.bound->prepare_turn(first);        // appends the block once
        (void)f.activate(call_for(3), run);  // one active skill, so filtering runs
    }
    for (auto _ : state) {
        agentskills::PreparedTurn turn(run, tools);
        f.bound->prepare_turn(turn);
        std::vector<agentskills::ToolSpec> specs = turn.visible_tool_specs();
        benchmark::DoNotOptimize(specs);
    }
}
BENCHMARK(BM_prepare_turn_1000_skills_200_tools)->Unit(benchmark::kMicrosecond);

}  // namespace

#ifdef AGENTSKILLS_HAVE_SQLITE
#include <unistd.h>

#include <filesystem>

#include <agentskills/activation/activation.hpp>
#include <agentskills/sqlite/sqlite_store.hpp>

namespace {

// One first activation through the activation core with the SQLite store (a file in the
// temporary directory): claim (BEGIN IMMEDIATE), load, confirm, render.
void BM_activate_core_sqlite(benchmark::State& state) {
    agentskills::FilesystemLoaderOptions options;
    options.reader = agentskills::bench::memory_library(1000);
    auto catalog = agentskills::discover_skill_catalog(std::make_shared<agentskills::FilesystemSkillLoader>(options));
    const agentskills::SkillActivator core(catalog);
    const auto path = std::filesystem::temp_directory_path() / fmt::format("agentskills-bench-{}.sqlite", ::getpid());
    std::filesystem::remove(path);
    {
        agentskills::SqliteActivationStore store(path.string());
        std::size_t i = 0;
        for (auto _ : state) {
            state.PauseTiming();
            store.reset();  // a fresh conversation
            const std::string arguments = fmt::format(R"({{"name":"migration-review-{:05}"}})", i++ % 1000);
            state.ResumeTiming();
            agentskills::ActivationResult r = core.activate(store, arguments);
            benchmark::DoNotOptimize(r);
        }
    }
    std::filesystem::remove(path);
}
BENCHMARK(BM_activate_core_sqlite)->Unit(benchmark::kMicrosecond);

}  // namespace
#endif

namespace {

namespace fs = std::filesystem;

// A library of `n` copies of the sample skill in a temporary directory, made once per process.
const std::string& local_library(std::size_t n) {
    static std::map<std::size_t, std::string> made;
    auto it = made.find(n);
    if (it != made.end()) return it->second;
    const fs::path dir = fs::temp_directory_path() / fmt::format("agentskills-bench-{}-lib-{}", ::getpid(), n);
    fs::remove_all(dir);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string name = fmt::format("migration-review-{:05}", i);
        fs::create_directories(dir / name);
        std::ofstream(dir / name / "SKILL.md") << agentskills::bench::sample_skill_md_named(name);
        // Written an hour ago, as the files of a library an agent starts with are: a file
        // modified in the last two seconds is hashed as well (the "racy" case of discovery).
        fs::last_write_time(dir / name / "SKILL.md", fs::file_time_type::clock::now() - std::chrono::hours(1));
    }
    std::atexit([] {
        for (const auto& [count, path] : made) {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    });
    return made.emplace(n, dir.string()).first->second;
}

// First-turn latency of an agent with 100 skills on the local file system: from bind (which
// discovers the library) to the first model request (the system instruction with the block and
// the visible tools of the first turn). The argument is FilesystemLoaderOptions::threads: 0 (the
// default: 100 files stay on the calling thread), 2 (two workers, what 0 meant on a 2-core
// machine before the thresholds of parallel_for).
void BM_first_turn_100_skills(benchmark::State& state) {
    const std::string& lib = local_library(100);
    const auto threads = static_cast<std::size_t>(state.range(0));
    for (auto _ : state) {
        agentskills::SkillsShimOptions options;
        options.loader = std::make_shared<agentskills::FilesystemSkillLoader>(
            agentskills::FilesystemLoaderOptions{.roots = {lib}, .include_default_roots = false, .threads = threads});
        agentskills::SkillsShim shim(std::move(options));
        agentskills::AgentDescriptor agent;
        agent.name = "bench";
        std::unique_ptr<agentskills::BoundShim> bound = shim.bind(agent);
        agentskills::RunState run;
        bound->on_run_start(run);
        agentskills::PreparedTurn turn(run, {});
        bound->prepare_turn(turn);
        std::vector<agentskills::ToolSpec> specs = turn.visible_tool_specs();
        benchmark::DoNotOptimize(specs);
        benchmark::DoNotOptimize(turn.system_instruction());
    }
}
BENCHMARK(BM_first_turn_100_skills)->Arg(0)->Arg(2)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Resource listing of one skill directory with 10,000 files (100 directories of 100 files) on
// the local file system, without a cap: the walk, the order and the list.
void BM_list_resources_10000_files(benchmark::State& state) {
    static const fs::path dir = [] {
        const fs::path d = fs::temp_directory_path() / fmt::format("agentskills-bench-{}-resources", ::getpid());
        fs::remove_all(d);
        fs::create_directories(d);
        std::ofstream(d / "SKILL.md") << agentskills::bench::sample_skill_md();
        for (int i = 0; i < 100; ++i) {
            const fs::path sub = d / (i < 30 ? "scripts" : i < 60 ? "references" : "assets") / fmt::format("d{:03}", i);
            fs::create_directories(sub);
            for (int j = 0; j < 100; ++j) std::ofstream(sub / fmt::format("f{:03}.txt", j)) << "x\n";
        }
        std::atexit([] {
            std::error_code ec;
            fs::remove_all(fs::temp_directory_path() / fmt::format("agentskills-bench-{}-resources", ::getpid()), ec);
        });
        return d;
    }();
    const agentskills::LocalSkillReader reader;
    std::size_t listed = 0;
    for (auto _ : state) {
        agentskills::ResourceList list = agentskills::list_skill_resources(
            reader, dir.string(), agentskills::ResourceListOptions{.max_resources = 0});
        listed = list.resources.size();
        benchmark::DoNotOptimize(list);
    }
    state.counters["resources"] = static_cast<double>(listed);
}
BENCHMARK(BM_list_resources_10000_files)->Unit(benchmark::kMillisecond);

}  // namespace
