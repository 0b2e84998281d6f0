// Host-side use: the host catalog of one or more skills configurations, and its definitions
// (agent specs and configuration files: spec.cpp).
#include "agentskills/host/host.hpp"

#include <utility>

namespace agentskills {

std::string SkillDefinition::render(std::optional<std::string_view> arguments, std::size_t max_bytes) const {
    const LoadedSkill skill{
        manifest, body, resources, omitted_resources, unlisted_directories, resources_incomplete, unlisted_reasons};
    // The activation text: render() without arguments is exactly what the model is handed.
    return render_activation_text(skill, {.include_directory = in_run_workspace,
                                          .layout = ActivationLayout::skill_content,
                                          .arguments = arguments,
                                          .max_bytes = max_bytes});
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
    def.unlisted_directories = std::move(skill.unlisted_directories);
    def.resources_incomplete = skill.resources_incomplete;
    def.unlisted_reasons = std::move(skill.unlisted_reasons);
    return def;
}

const SkillDefinition* HostCatalog::find(std::string_view name) const {
    std::optional<std::size_t> at;
    if (catalog && catalog->size() == skills.size()) {
        const SkillManifest* m = catalog->find(name);
        if (m != nullptr) at = static_cast<std::size_t>(m - catalog->skills().data());
    } else {
        std::vector<SkillManifest> manifests;
        manifests.reserve(skills.size());
        for (const auto& s : skills) manifests.push_back(s.manifest);
        at = SkillNameIndex(manifests).find(name);
    }
    return at ? &skills[*at] : nullptr;
}

HostCatalog load_host_catalog(const std::vector<SkillsConfig>& configs, const SkillReaderPtr& workspace) {
    auto loader = std::make_shared<CombinedSkillLoader>(configs, workspace);
    const SkillCatalogPtr catalog = discover_skill_catalog(loader);
    HostCatalog host;
    host.skipped = catalog->skipped();
    host.diagnostics = catalog->diagnostics();
    host.skills.reserve(catalog->size());
    for (const auto& m : *catalog) {
        host.skills.push_back(SkillDefinition::from_loaded(catalog->load(m), loader->in_run_workspace(m.name)));
    }
    host.catalog = catalog;
    return host;
}

HostCatalog load_host_catalog(const SkillsConfig& config, const SkillReaderPtr& workspace) {
    return load_host_catalog(std::vector<SkillsConfig>{config}, workspace);
}

}  // namespace agentskills
