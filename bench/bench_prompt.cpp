// Rendering the <available_skills> block for a 1k catalog.
#include <benchmark/benchmark.h>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>

#include "bench_data.hpp"

namespace {

void BM_render_available_skills(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    agentskills::FilesystemLoaderOptions options;
    options.reader = agentskills::bench::memory_library(n);
    auto catalog = agentskills::discover_skill_catalog(std::make_shared<agentskills::FilesystemSkillLoader>(options));
    std::vector<const agentskills::SkillManifest*> skills;
    for (const auto& m : *catalog) skills.push_back(&m);
    std::size_t bytes = 0;
    for (auto _ : state) {
        std::string block = agentskills::render_available_skills(skills);
        bytes = block.size();
        benchmark::DoNotOptimize(block);
    }
    state.counters["block_bytes"] = static_cast<double>(bytes);
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}
BENCHMARK(BM_render_available_skills)->Arg(1000)->Unit(benchmark::kMicrosecond);

}  // namespace
