#include "agentskills/catalog/catalog.hpp"

#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"

namespace agentskills {

SkillNameIndex::SkillNameIndex(const std::vector<SkillManifest>& skills) {
    names_.reserve(skills.size());
    bool any_alias = false;
    for (std::size_t i = 0; i < skills.size(); ++i) {
        names_.emplace(nfkc(skills[i].name), i);  // the first of a name wins
        any_alias = any_alias || !skills[i].aliases.empty();
    }
    if (!any_alias) return;
    for (std::size_t i = 0; i < skills.size(); ++i) {
        for (const auto& alias : skills[i].aliases) aliases_.emplace(nfkc(alias), i);
    }
}

std::optional<std::size_t> SkillNameIndex::find(std::string_view name) const {
    if (!name.empty() && name.front() == '/') name.remove_prefix(1);
    // (A name of at most SKILL_LOOKUP_MAX_CODE_POINTS bytes has no more code points than that.)
    if (name.empty() || name.size() > SKILL_LOOKUP_MAX_BYTES ||
        (name.size() > SKILL_LOOKUP_MAX_CODE_POINTS && is_valid_utf8(name) &&
         code_point_count(name) > SKILL_LOOKUP_MAX_CODE_POINTS)) {
        return std::nullopt;
    }
    const std::string key = nfkc(name);
    if (auto it = names_.find(key); it != names_.end()) return it->second;
    if (auto it = aliases_.find(key); it != aliases_.end()) return it->second;
    return std::nullopt;
}

namespace {

// The result of a catalog without one (moved from, or built over null).
const std::shared_ptr<const Discovery>& no_discovery() {
    static const std::shared_ptr<const Discovery> empty = std::make_shared<const Discovery>();
    return empty;
}

}  // namespace

SkillCatalog::SkillCatalog(SkillLoaderPtr loader, Discovery discovery)
    : loader_(std::move(loader)), discovery_(std::make_shared<const Discovery>(std::move(discovery))) {}

SkillCatalog::SkillCatalog(SkillLoaderPtr loader, std::shared_ptr<const Discovery> discovery)
    : loader_(std::move(loader)), discovery_(discovery ? std::move(discovery) : no_discovery()) {}

SkillCatalog::SkillCatalog(SkillCatalog&& other) noexcept
    : loader_(std::move(other.loader_)),
      discovery_(std::exchange(other.discovery_, no_discovery())),
      index_(std::move(other.index_)) {}

SkillCatalog& SkillCatalog::operator=(SkillCatalog&& other) noexcept {
    if (this != &other) {
        loader_ = std::move(other.loader_);
        discovery_ = std::exchange(other.discovery_, no_discovery());
        index_ = std::move(other.index_);
    }
    return *this;
}

const SkillManifest* SkillCatalog::find(std::string_view name_or_alias) const {
    if (!index_) return nullptr;  // a catalog moved from
    LazyIndex& lazy = *index_;
    std::call_once(lazy.built, [&] { lazy.index = SkillNameIndex(discovery_->skills); });
    const std::optional<std::size_t> at = lazy.index.find(name_or_alias);
    return at ? &discovery_->skills[*at] : nullptr;
}

std::vector<std::string> SkillCatalog::names() const {
    std::vector<std::string> out;
    out.reserve(discovery_->skills.size());
    for (const auto& m : discovery_->skills) out.push_back(m.name);
    return out;
}

LoadedSkill SkillCatalog::load(std::string_view name) const {
    const SkillManifest* manifest = find(name);
    if (manifest == nullptr) throw NotFoundError(fmt::format("no skill named '{}' in the catalog", name));
    return load(*manifest);
}

LoadedSkill SkillCatalog::load(const SkillManifest& skill) const {
    if (!loader_) throw ConfigurationError("the catalog has no loader");
    return loader_->load(skill.name);
}

SkillCatalogPtr discover_skill_catalog(SkillLoaderPtr loader) {
    if (!loader) throw ConfigurationError("discover_skill_catalog: loader is null");
    std::shared_ptr<const Discovery> d = loader->discover_shared();
    return std::make_shared<const SkillCatalog>(std::move(loader), std::move(d));
}

}  // namespace agentskills
