// Discovery of an in-memory library: a first discover() (fresh loader) and a repeated one.
#include <benchmark/benchmark.h>

#include <agentskills/catalog/live_catalog.hpp>
#include <agentskills/catalog/loader.hpp>

#include "bench_data.hpp"

namespace {

agentskills::FilesystemLoaderOptions options_for(std::shared_ptr<agentskills::MemorySkillReader> reader,
                                                 std::size_t threads) {
    agentskills::FilesystemLoaderOptions options;
    options.reader = std::move(reader);
    options.threads = threads;
    return options;
}

void BM_discover_first(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    auto reader = agentskills::bench::memory_library(n);
    for (auto _ : state) {
        agentskills::FilesystemSkillLoader loader(options_for(reader, static_cast<std::size_t>(state.range(1))));
        auto found = loader.discover();
        if (found.skills.size() != n) state.SkipWithError("not every skill was found");
        benchmark::DoNotOptimize(found);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_discover_first)->Args({1000, 1})->Args({1000, 0})->Unit(benchmark::kMillisecond);

void BM_discover_again(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    agentskills::FilesystemSkillLoader loader(
        options_for(agentskills::bench::memory_library(n), static_cast<std::size_t>(state.range(1))));
    (void)loader.discover();
    for (auto _ : state) {
        auto found = loader.discover();
        benchmark::DoNotOptimize(found);
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_discover_again)->Args({1000, 1})->Args({1000, 0})->Unit(benchmark::kMillisecond);

// A LiveCatalog's refresh when nothing changed: the rediscovery and the comparison of the two
// generations (the watcher runs one after every burst of file events).
void BM_live_refresh_unchanged(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    agentskills::LiveCatalog live(std::make_shared<agentskills::FilesystemSkillLoader>(
        options_for(agentskills::bench::memory_library(n), static_cast<std::size_t>(state.range(1)))));
    for (auto _ : state) {
        if (live.refresh().has_value()) state.SkipWithError("an unchanged library gave a change set");
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_live_refresh_unchanged)->Args({1000, 1})->Unit(benchmark::kMillisecond);

// The first refresh of a new LiveCatalog over an unchanged library (its generation 1 made
// outside the timing): the first comparison of each skill's two generations.
void BM_live_first_refresh(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    auto reader = agentskills::bench::memory_library(n);
    for (auto _ : state) {
        state.PauseTiming();
        auto live = std::make_unique<agentskills::LiveCatalog>(std::make_shared<agentskills::FilesystemSkillLoader>(
            options_for(reader, static_cast<std::size_t>(state.range(1)))));
        state.ResumeTiming();
        if (live->refresh().has_value()) state.SkipWithError("an unchanged library gave a change set");
        state.PauseTiming();
        live.reset();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_live_first_refresh)->Args({1000, 1})->Unit(benchmark::kMillisecond);

}  // namespace
