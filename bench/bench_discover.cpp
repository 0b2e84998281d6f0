// Discovery of an in-memory library: a first discover() (fresh loader) and a repeated one.
#include <benchmark/benchmark.h>

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

}  // namespace
