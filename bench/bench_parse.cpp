// Parsing one SKILL.md (frontmatter through yaml-cpp, field rules, body).
#include <benchmark/benchmark.h>

#include <agentskills/parser.hpp>

#include "bench_data.hpp"

namespace {

void BM_parse_skill_md(benchmark::State& state) {
    const std::string_view text = agentskills::bench::sample_skill_md();
    agentskills::ParseOptions options;
    options.path = "migration-review/SKILL.md";
    options.directory_name = "migration-review";
    for (auto _ : state) {
        auto result = agentskills::parse_skill_md(text, options);
        if (!result.ok()) state.SkipWithError("the sample does not parse");
        benchmark::DoNotOptimize(result);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(text.size()));
}
BENCHMARK(BM_parse_skill_md);

}  // namespace
