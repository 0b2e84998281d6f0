// SkillsShim activation: a first (cached) activation and the already-active path.
#include <benchmark/benchmark.h>
#include <fmt/core.h>

#include <agentskills/catalog.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/loader.hpp>
#include <agentskills/skills_shim.hpp>

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

#include <agentskills/activation.hpp>
#include <agentskills/sqlite_store.hpp>

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
