// agentskills-cpp — SkillCatalog: a read-only view over discovered skills and their loader.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "loader.hpp"
#include "skill.hpp"

namespace agentskills {

/// Read-only container over the manifests one discovery returned. Safe to share between
/// threads; `load` goes through the loader (itself thread-safe).
class SkillCatalog {
public:
    SkillCatalog(SkillLoaderPtr loader, Discovery discovery);

    /// The manifest named `name` (compared after NFKC), or nullptr.
    [[nodiscard]] const SkillManifest* get(std::string_view name) const;
    [[nodiscard]] bool has(std::string_view name) const { return get(name) != nullptr; }
    /// Names in catalog order.
    [[nodiscard]] std::vector<std::string> names() const;
    /// Loads a skill through the loader. Throws NotFoundError for a name not in the catalog.
    [[nodiscard]] LoadedSkill load(std::string_view name) const;
    /// Loads `skill`, one of this catalog's manifests (what get() returned), without looking its
    /// name up again.
    [[nodiscard]] LoadedSkill load(const SkillManifest& skill) const;

    [[nodiscard]] auto begin() const noexcept { return discovery_.skills.begin(); }
    [[nodiscard]] auto end() const noexcept { return discovery_.skills.end(); }
    [[nodiscard]] std::size_t size() const noexcept { return discovery_.skills.size(); }
    [[nodiscard]] bool empty() const noexcept { return discovery_.skills.empty(); }
    [[nodiscard]] const std::vector<SkillManifest>& skills() const noexcept { return discovery_.skills; }
    [[nodiscard]] const std::vector<SkippedSkill>& skipped() const noexcept { return discovery_.skipped; }
    [[nodiscard]] const Diagnostics& diagnostics() const noexcept { return discovery_.diagnostics; }
    [[nodiscard]] const SkillLoaderPtr& loader() const noexcept { return loader_; }

private:
    SkillLoaderPtr loader_;
    Discovery discovery_;
    std::unordered_map<std::string, std::size_t> index_;  // NFKC name -> position
};

using SkillCatalogPtr = std::shared_ptr<const SkillCatalog>;

/// Discovers once, so that a host and a SkillsShim can share one catalog.
[[nodiscard]] SkillCatalogPtr discover_skill_catalog(SkillLoaderPtr loader);

}  // namespace agentskills
