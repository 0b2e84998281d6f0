// Host-side use: SkillDefinition (derived from a LoadedSkill in one place) and HostCatalog::find.
#include <utility>

#include "agentskills/activation.hpp"
#include "agentskills/host.hpp"
#include "agentskills/names.hpp"

namespace agentskills {

std::string SkillDefinition::render(std::optional<std::string_view> arguments, std::size_t max_bytes) const {
    LoadedSkill skill{manifest, arguments ? substitute_arguments(body, *arguments, max_bytes) : body, resources,
                      omitted_resources};
    // The activation core's renderer: render() is exactly what the model is handed.
    return render_activation_text(skill, ActivationTextOptions{.include_directory = in_run_workspace});
}

SkillDefinition SkillDefinition::from_loaded(LoadedSkill skill, bool in_run_workspace) {
    SkillDefinition def;
    def.name = skill.manifest.name;
    def.description = skill.manifest.description;
    def.body = std::move(skill.instructions);
    def.path = skill.manifest.skill_file;
    def.directory = skill.manifest.root;
    def.model_invocable = skill.manifest.model_invocable();
    def.user_invocable = skill.manifest.user_invocable;
    def.in_run_workspace = in_run_workspace;
    def.ignored_behavioral_fields = skill.manifest.ignored_behavioral_fields;
    def.manifest = std::move(skill.manifest);
    def.resources = std::move(skill.resources);
    def.omitted_resources = skill.omitted_resources;
    return def;
}

const SkillDefinition* HostCatalog::find(std::string_view name) const {
    if (!name.empty() && name.front() == '/') name.remove_prefix(1);
    const std::string key = nfkc(name);
    for (const auto& s : skills) {
        if (nfkc(s.name) == key) return &s;
    }
    return nullptr;
}

}  // namespace agentskills
