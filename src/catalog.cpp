#include "agentskills/catalog.hpp"

#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"

namespace agentskills {

SkillCatalog::SkillCatalog(SkillLoaderPtr loader, Discovery discovery)
    : loader_(std::move(loader)), discovery_(std::move(discovery)) {
    index_.reserve(discovery_.skills.size());
    for (std::size_t i = 0; i < discovery_.skills.size(); ++i) {
        index_.emplace(nfkc(discovery_.skills[i].name), i);  // the first of a name wins
    }
}

const SkillManifest* SkillCatalog::get(std::string_view name) const {
    auto it = index_.find(nfkc(name));
    return it == index_.end() ? nullptr : &discovery_.skills[it->second];
}

std::vector<std::string> SkillCatalog::names() const {
    std::vector<std::string> out;
    out.reserve(discovery_.skills.size());
    for (const auto& m : discovery_.skills) out.push_back(m.name);
    return out;
}

LoadedSkill SkillCatalog::load(std::string_view name) const {
    const SkillManifest* manifest = get(name);
    if (manifest == nullptr) throw NotFoundError(fmt::format("no skill named '{}' in the catalog", name));
    return load(*manifest);
}

LoadedSkill SkillCatalog::load(const SkillManifest& skill) const {
    if (!loader_) throw ConfigurationError("the catalog has no loader");
    return loader_->load(skill.name);
}

SkillCatalogPtr discover_skill_catalog(SkillLoaderPtr loader) {
    if (!loader) throw ConfigurationError("discover_skill_catalog: loader is null");
    Discovery d = loader->discover();
    return std::make_shared<const SkillCatalog>(std::move(loader), std::move(d));
}

}  // namespace agentskills
