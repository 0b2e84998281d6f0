// Parsing one SKILL.md (frontmatter, field rules, body): as the parser does it (the sample's
// frontmatter takes the fast path, src/parse/yaml_fast.cpp), and with the fast path turned off, so
// that the frontmatter goes through yaml-cpp as every frontmatter did before the fast path.
#include <benchmark/benchmark.h>

#include <agentskills/parse/parser.hpp>

#include "../src/parse/yaml.hpp"
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

void BM_parse_skill_md_yaml_cpp(benchmark::State& state) {
    agentskills::detail::set_frontmatter_fast_path(false);
    BM_parse_skill_md(state);
    agentskills::detail::set_frontmatter_fast_path(true);
}
BENCHMARK(BM_parse_skill_md_yaml_cpp);

}  // namespace
