// agentskills-cpp — private: discovery's admission stage (overrides, trust, lock), run after
// the merge on every discovery, the reused ones included (src/discovery_admit.cpp).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agentskills/catalog/governance.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/storage/reader.hpp"

namespace agentskills::detail {

/// What admission needs from the loader.
struct AdmissionSettings {
    const std::vector<OverrideRule>* overrides = nullptr;
    const std::unordered_set<std::string>* untrusted_libraries = nullptr;  // Root::path values
    const TrustCallback* trust = nullptr;
    const LockVerifier* lock = nullptr;
    bool lock_strict = false;
    const SkillReader* reader = nullptr;

    /// Whether admission can change anything (no rule, no untrusted root, no lock: it is skipped).
    [[nodiscard]] bool active() const noexcept {
        return !overrides->empty() || !untrusted_libraries->empty() || static_cast<bool>(*lock);
    }
};

/// What load() must know of the admitted catalog: the names (NFKC) admission refused, and the
/// mode of every admitted skill that is not `on`.
struct Admitted {
    std::unordered_set<std::string> refused;
    std::unordered_map<std::string, SkillMode> modes;
};

/// Applies overrides, then trust, then the lock to `out.skills` (in catalog order): a refused
/// skill moves to `out.skipped` with a diagnostic; an admitted one gets its mode.
[[nodiscard]] Admitted admit(Discovery& out, const AdmissionSettings& settings);

/// The skill directory relative to its library, for path rules ('/'-separated).
[[nodiscard]] std::string relative_skill_dir(const SkillManifest& m);

}  // namespace agentskills::detail
