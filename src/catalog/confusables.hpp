// agentskills-cpp — private: a cheap "looks alike" key for skill names (discovery warnings).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentskills/base/diagnostics.hpp"
#include "agentskills/base/skill.hpp"

namespace agentskills::detail {

/// Names longer than this (in bytes) get no skeleton: they are invalid skill names anyway, and
/// the bound keeps the normalization inside it cheap.
inline constexpr std::size_t confusable_max_bytes = 1024;

/// A key under which names that render alike compare equal: default-ignorable code points and
/// bidirectional controls removed, NFKC with case folding, then the common Cyrillic and Greek
/// look-alikes of Latin letters mapped to the Latin letter (see docs/loading.md). nullopt for
/// invalid UTF-8 or a name longer than confusable_max_bytes. Never throws except bad_alloc.
[[nodiscard]] std::optional<std::string> confusable_skeleton(std::string_view name);

/// Adds a `confusable-name` warning for each kept skill whose name has the skeleton of another
/// kept skill's name (but a different NFKC form). The warning goes to the skill whose name is
/// not its own skeleton (it holds invisible, folded or look-alike characters) and names the
/// other; when both or neither are, to the later one. One hash-map pass: linear in the skills.
void note_confusable_names(const std::vector<std::shared_ptr<const SkillManifest>>& skills, Diagnostics& out);

}  // namespace agentskills::detail
