// Rendering the <available_skills> block for a 1k catalog; text as a JSON string literal.
#include <benchmark/benchmark.h>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/text.hpp>
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

namespace {

// A file's text as a JSON string literal, as `resources/read` and `activate --json` write it:
// Markdown whose newlines and quotes are a few percent of the bytes (the sample SKILL.md, 64
// times over, about the size of a large skill file).
void BM_json_string_markdown(benchmark::State& state) {
    std::string text;
    for (int i = 0; i < 64; ++i) text += agentskills::bench::sample_skill_md();
    const auto escape = state.range(0) == 0 ? agentskills::JsonEscape::utf8 : agentskills::JsonEscape::ascii;
    std::string out;
    for (auto _ : state) {
        out.clear();
        agentskills::append_json_string(out, text, escape);
        benchmark::DoNotOptimize(out.data());
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_json_string_markdown)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

}  // namespace
