// agentskills-cpp — SkillCatalog: a read-only view over discovered skills and their loader.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../base/skill.hpp"
#include "loader.hpp"

namespace agentskills {

/// Longest name, in bytes, that a lookup normalizes: a longer one names no skill (NFKC time grows
/// faster than linearly with hostile combining sequences, and no valid name comes close).
inline constexpr std::size_t SKILL_LOOKUP_MAX_BYTES = 1024;
/// Most code points of a name that a lookup normalizes (4 x SKILL_MAX_NAME_LENGTH, NFKC's bound).
inline constexpr std::size_t SKILL_LOOKUP_MAX_CODE_POINTS = 4 * SKILL_MAX_NAME_LENGTH;

/// The one rule by which a name that a model, a person or a client gives is matched to a skill
/// (docs/loading.md, "Names"), used by every entry point: one leading '/' is dropped (`/alpha`, as
/// a person types a command), a name longer than SKILL_LOOKUP_MAX_BYTES or
/// SKILL_LOOKUP_MAX_CODE_POINTS names nothing, the rest is compared after NFKC (once) with the
/// skills' names, then with their `aliases`. A name wins over an alias; of two skills with one
/// alias, the first in catalog order wins. Built once over a list of manifests; immutable.
class SkillNameIndex {
public:
    SkillNameIndex() = default;
    explicit SkillNameIndex(const std::vector<SkillManifest>& skills);
    /// The position in `skills` of the skill `name_or_alias` names, or nullopt.
    [[nodiscard]] std::optional<std::size_t> find(std::string_view name_or_alias) const;

private:
    std::unordered_map<std::string, std::size_t> names_;    // NFKC name -> position (the first wins)
    std::unordered_map<std::string, std::size_t> aliases_;  // NFKC alias -> position (the first wins)
};

/// Read-only container over the manifests one discovery returned. Safe to share between
/// threads; `load` goes through the loader (itself thread-safe).
class SkillCatalog {
public:
    SkillCatalog(SkillLoaderPtr loader, Discovery discovery);
    /// Over a result that stays shared (SkillLoader::discover_shared); null is an empty one.
    SkillCatalog(SkillLoaderPtr loader, std::shared_ptr<const Discovery> discovery);

    /// The skill that `name_or_alias` names under SkillNameIndex's rule (a leading '/', NFKC,
    /// aliases), or nullptr.
    [[nodiscard]] const SkillManifest* find(std::string_view name_or_alias) const;
    /// find(name): kept for the callers of before the one rule (it resolved names only).
    [[nodiscard]] const SkillManifest* get(std::string_view name) const { return find(name); }
    [[nodiscard]] bool has(std::string_view name) const { return find(name) != nullptr; }
    /// Names in catalog order.
    [[nodiscard]] std::vector<std::string> names() const;
    /// Loads the skill `name_or_alias` names through the loader. Throws NotFoundError when it
    /// names none.
    [[nodiscard]] LoadedSkill load(std::string_view name_or_alias) const;
    /// Loads `skill`, one of this catalog's manifests (what get() returned), without looking its
    /// name up again.
    [[nodiscard]] LoadedSkill load(const SkillManifest& skill) const;

    [[nodiscard]] auto begin() const noexcept { return discovery_->skills.begin(); }
    [[nodiscard]] auto end() const noexcept { return discovery_->skills.end(); }
    [[nodiscard]] std::size_t size() const noexcept { return discovery_->skills.size(); }
    [[nodiscard]] bool empty() const noexcept { return discovery_->skills.empty(); }
    [[nodiscard]] const std::vector<SkillManifest>& skills() const noexcept { return discovery_->skills; }
    [[nodiscard]] const std::vector<SkippedSkill>& skipped() const noexcept { return discovery_->skipped; }
    [[nodiscard]] const Diagnostics& diagnostics() const noexcept { return discovery_->diagnostics; }
    [[nodiscard]] const SkillLoaderPtr& loader() const noexcept { return loader_; }

    // Copies share the result (it is immutable); a moved-from catalog is an empty one.
    SkillCatalog(const SkillCatalog&) = default;
    SkillCatalog& operator=(const SkillCatalog&) = default;
    SkillCatalog(SkillCatalog&& other) noexcept;
    SkillCatalog& operator=(SkillCatalog&& other) noexcept;
    ~SkillCatalog() = default;

private:
    SkillLoaderPtr loader_;
    std::shared_ptr<const Discovery> discovery_;  // never null
    // Built at the first lookup (once, whichever thread asks first): a catalog that is only
    // rendered, as `to-prompt` renders it, never pays for an NFKC key and a map entry per skill.
    // A copy of the catalog has the same skills in the same places, so it shares the index.
    struct LazyIndex {
        std::once_flag built;
        SkillNameIndex index;
    };
    std::shared_ptr<LazyIndex> index_ = std::make_shared<LazyIndex>();
};

using SkillCatalogPtr = std::shared_ptr<const SkillCatalog>;

/// Discovers once, so that a host and a SkillsShim can share one catalog.
[[nodiscard]] SkillCatalogPtr discover_skill_catalog(SkillLoaderPtr loader);

}  // namespace agentskills
