// parse_callgrind [--yaml-cpp]: parses one SKILL.md 2,000 times, for instruction counts under
// `valgrind --tool=callgrind` (docs/performance.md, "Parsing"). The text is a folded
// `description: >-` frontmatter with a 60-line body; `--yaml-cpp` turns the frontmatter fast path
// off, so that yaml-cpp reads it as every frontmatter was read before the fast path.
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include <agentskills/parser.hpp>

#include "../src/parse_fast.hpp"

namespace {

constexpr std::string_view frontmatter_tail = R"(description: >-
  Reviews database schema migrations before they are merged. Use this skill when a pull
  request adds or changes files under migrations/, when the user asks whether a migration
  is safe to run on a live database, or when a deploy is blocked on a long-running ALTER.
  It checks locking behaviour, backfills, index creation and rollback paths, and writes a
  short verdict with the risky statements quoted.
license: Apache-2.0
compatibility: Needs git and read access to the repository; psql is optional.
allowed-tools: Read Grep Glob Bash(git diff:*)
metadata:
  author: platform-team
  version: "2.3"
  category: databases
---
)";

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--yaml-cpp") == 0) agentskills::detail::set_frontmatter_fast_path(false);
    std::string text = "---\nname: migration-review\n";
    text += frontmatter_tail;
    for (int i = 0; i < 60; ++i) text += "Some body line with `code` and | pipes | here.\n";
    agentskills::ParseOptions options;
    options.path = "migration-review/SKILL.md";
    options.directory_name = "migration-review";
    std::size_t diagnostics = 0;
    for (int i = 0; i < 2000; ++i) diagnostics += agentskills::parse_skill_md(text, options).diagnostics.size();
    std::printf("%zu diagnostics\n", diagnostics);
    return 0;
}
