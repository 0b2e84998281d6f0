// parse_callgrind [--yaml-cpp]: parses one SKILL.md 2,000 times, for instruction counts under
// `valgrind --tool=callgrind` (docs/performance.md, "Parsing"). The text is the benchmark
// sample's frontmatter (a folded `description: >-`) with a 60-line body; `--yaml-cpp` turns the
// frontmatter fast path off, so that yaml-cpp reads it as every frontmatter was read before.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include <agentskills/parse/parser.hpp>

#include "../src/parse/yaml.hpp"
#include "bench_data.hpp"

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--yaml-cpp") == 0) agentskills::detail::set_frontmatter_fast_path(false);
    std::string text = "---\nname: migration-review\n";
    text += agentskills::bench::sample_frontmatter_tail();
    for (int i = 0; i < 60; ++i) text += "Some body line with `code` and | pipes | here.\n";
    agentskills::ParseOptions options;
    options.path = "migration-review/SKILL.md";
    options.directory_name = "migration-review";
    std::size_t diagnostics = 0;
    for (int i = 0; i < 2000; ++i) diagnostics += agentskills::parse_skill_md(text, options).diagnostics.size();
    std::printf("%zu diagnostics\n", diagnostics);
    return 0;
}
