// agentskills-cpp — the texts the model sees: the catalog block and activation content.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "skill.hpp"

namespace agentskills {

/// Escapes `&`, `<`, `>`, `"` and `'` for XML text and attribute values.
[[nodiscard]] std::string xml_escape(std::string_view text);

/// `<available_skills>` with one `<skill>` (name, description, location) per manifest, in order.
[[nodiscard]] std::string render_available_skills(const std::vector<const SkillManifest*>& skills);

struct SkillContentOptions {
    /// Include the `Skill directory:` line and the note on relative references.
    bool include_directory = true;
};

/// The first-activation result: `<skill_content name="...">` with the instructions, the skill
/// directory, the note on relative paths and `<skill_resources>` (one `<file path read_path/>`
/// per resource, `read_path` = manifest root joined with the resource path).
[[nodiscard]] std::string render_skill_content(const LoadedSkill& skill, const SkillContentOptions& options = {});

}  // namespace agentskills
