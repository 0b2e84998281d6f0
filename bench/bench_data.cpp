#include "bench_data.hpp"

#include <fmt/core.h>

namespace agentskills::bench {
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

constexpr std::string_view body_paragraph = R"(
## Step %d: read the change in order

Open every migration file of the change in the order the framework will apply it. For each
statement, note the table it touches, the lock it takes (`ACCESS EXCLUSIVE` for most `ALTER
TABLE` forms, `SHARE` for a plain `CREATE INDEX`) and whether it rewrites the table. A rewrite of
a table with more than a few million rows is a finding on its own: say how long it is likely to
hold the lock, and propose the online alternative (`CREATE INDEX CONCURRENTLY`, a new nullable
column plus a batched backfill, `NOT VALID` constraints validated later).

- Quote the statement, with its file and line.
- Say which queries of the application wait behind the lock.
- Give the rollback: the statement that undoes it, or why none exists.

| statement | lock | rewrite | verdict |
|-----------|------|---------|---------|
| `ALTER TABLE orders ADD COLUMN note text` | ACCESS EXCLUSIVE (brief) | no | fine |
| `ALTER TABLE orders ALTER COLUMN total TYPE numeric(12,2)` | ACCESS EXCLUSIVE | yes | risky |
)";

std::string build_sample(std::string_view name) {
    std::string text = "---\nname: ";
    text += name;
    text += '\n';
    text += frontmatter_tail;
    text += "\n# Reviewing schema migrations\n";
    for (int i = 1; i <= 8; ++i) {
        std::string paragraph(body_paragraph);
        const auto at = paragraph.find("%d");
        paragraph.replace(at, 2, std::to_string(i));
        text += paragraph;
    }
    text += "\nEnd with a one-line verdict: `safe`, `safe with changes`, or `unsafe`.\n";
    return text;
}

}  // namespace

std::string_view sample_frontmatter_tail() { return frontmatter_tail; }

std::string_view sample_skill_md() {
    static const std::string text = build_sample("migration-review");
    return text;
}

std::string sample_skill_md_named(std::string_view name) { return build_sample(name); }

std::shared_ptr<MemorySkillReader> memory_library(std::size_t n) {
    auto reader = std::make_shared<MemorySkillReader>();
    for (std::size_t i = 0; i < n; ++i) {
        const std::string name = fmt::format("migration-review-{:05}", i);
        reader->add_file(name + "/SKILL.md", sample_skill_md_named(name));
    }
    return reader;
}

}  // namespace agentskills::bench
