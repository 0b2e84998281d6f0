// Shared inputs of the micro-benchmarks: one realistic SKILL.md and in-memory libraries.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include <agentskills/storage/reader.hpp>

namespace agentskills::bench {

/// A SKILL.md shaped like the public ones: a long folded description, a few optional keys,
/// metadata and a Markdown body of about 6 KB. Written for these benchmarks.
std::string_view sample_skill_md();

/// The frontmatter of `sample_skill_md()` after its `name:` line, with the closing `---` line.
std::string_view sample_frontmatter_tail();

/// `sample_skill_md()` with `name:` set to `name`.
std::string sample_skill_md_named(std::string_view name);

/// An in-memory library of `n` skills (`skill-00000/SKILL.md`, ...).
std::shared_ptr<MemorySkillReader> memory_library(std::size_t n);

}  // namespace agentskills::bench
