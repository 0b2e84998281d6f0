// agentskills-cpp — governing what discovery admits: override rules (a mode per skill), the
// trust of roots and the host's trust callback, the hook a lock file plugs into, and the bounds
// of nested discovery (docs/loading.md, "Admission").
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "../base/skill.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Overrides

/// One override rule. Exactly one of `name` and `path` is set: `name` matches the skill's name
/// (after NFKC); `path` is an fnmatch glob (`*`, `?`, `[...]`; `*` does not cross `/`) on the
/// skill directory relative to its library root (`team/*` matches `team/code-review`).
struct OverrideRule {
    std::string name = {};
    std::string path = {};
    SkillMode mode = SkillMode::on;
};

/// Whether `rule` applies to the skill named `name` whose directory is `relative_dir` below its
/// library ('/'-separated).
[[nodiscard]] bool override_matches(const OverrideRule& rule, std::string_view name, std::string_view relative_dir);

/// The mode of the last rule of `rules` that matches (later rules win), or `on`.
[[nodiscard]] SkillMode override_mode(const std::vector<OverrideRule>& rules, std::string_view name,
                                      std::string_view relative_dir);

/// Reads `on`, `name-only`, `user-invocable-only`, `off`; false for anything else.
[[nodiscard]] bool parse_skill_mode(std::string_view word, SkillMode& out) noexcept;

/// Most override rules one configuration holds.
inline constexpr std::size_t OVERRIDES_MAX_RULES = 10'000;

// ---------------------------------------------------------------------------------------
// Trust

/// What a host decides for one skill of an untrusted root.
enum class TrustDecision {
    allow,  ///< admit it (the lock, when given, still applies)
    deny,   ///< leave it out (SkippedSkill reason `untrusted`)
    lock    ///< admit it only when the lock file holds it with the same digests
};

/// Called once per discovery for each skill of an untrusted root that the overrides did not
/// turn off, on the thread that called `discover()`, in catalog order. Without a callback, a
/// skill of an untrusted root is denied.
using TrustCallback = std::function<TrustDecision(const SkillManifest& skill)>;

// ---------------------------------------------------------------------------------------
// The lock hook (the lock file itself is the optional agentskills::lock component, lock.hpp)

enum class LockStatus {
    verified,   ///< the lock holds the skill and every file has its recorded digest
    mismatch,   ///< a file changed, appeared or went missing (`file` names it)
    not_locked  ///< the lock holds no skill of that name
};

struct LockCheck {
    LockStatus status = LockStatus::verified;
    std::string file = {};     ///< the path of the first differing file (mismatch only)
    std::string message = {};  ///< one sentence naming the skill and the file
};

/// Verifies one discovered skill against a lock, reading its files through `reader`. Called on
/// the thread that called `discover()`; may throw (the skill is then refused as a mismatch).
using LockVerifier = std::function<LockCheck(const SkillManifest& skill, const SkillReader& reader)>;

// ---------------------------------------------------------------------------------------
// Nested skills

/// The group depth `--nested` uses without a value: names of up to four groups (`a:b:c:d:skill`).
inline constexpr std::size_t SKILL_NESTED_DEFAULT_DEPTH = 4;
/// Directories the nested walk lists per root, at most; past it the walk stops (`nested-limit`).
inline constexpr std::size_t SKILL_NESTED_MAX_DIRECTORIES = 2000;
/// Largest `.gitignore` of a root that the nested walk reads; a larger one is not applied.
inline constexpr std::size_t SKILL_GITIGNORE_MAX_BYTES = 64 * 1024;
/// Most patterns of that `.gitignore` (every directory the walk meets is matched against each);
/// one with more is not applied (`nested-limit`).
inline constexpr std::size_t SKILL_GITIGNORE_MAX_PATTERNS = 1000;
/// The separator of group and skill in a nested skill's name.
inline constexpr char SKILL_GROUP_SEPARATOR = ':';

// ---------------------------------------------------------------------------------------
// Claude Code plugins and marketplaces (docs/loading.md)

/// Largest `.claude-plugin/marketplace.json` or `plugin.json` read; a larger one is not used.
inline constexpr std::size_t SKILL_PLUGIN_MANIFEST_MAX_BYTES = 1024 * 1024;
/// Deepest nesting of arrays and objects in such a manifest (the formats need three levels).
inline constexpr std::size_t SKILL_PLUGIN_MANIFEST_MAX_DEPTH = 32;
/// Plugins of one marketplace looked at; the entries after it are not (`plugin-refused`).
inline constexpr std::size_t SKILL_MARKETPLACE_MAX_PLUGINS = 1000;
/// Paths of one plugin's `skills` field looked at (its marketplace entry's and its plugin.json's
/// together); the paths after it are not (`plugin-refused`).
inline constexpr std::size_t SKILL_PLUGIN_MAX_SKILL_PATHS = 1000;
/// File-system checks (a stat each: every directory on the way to a plugin or a declared skill
/// path, every `SKILL.md` looked for) that the scan of one plugin or marketplace root makes, all
/// its plugins together; the plugin that reaches past it and those after it are not loaded
/// (`plugin-refused`). Plugins of one marketplace may share a directory: without it, each entry
/// walked the same deep paths again.
inline constexpr std::size_t SKILL_PLUGIN_SCAN_MAX_CHECKS = 100000;
/// Bytes of the manifests (`marketplace.json`, each `plugin.json` read) that the scan of one root
/// reads, all together, each time one is read; the plugin whose `plugin.json` takes the total past
/// it and those after it are not loaded (`plugin-refused`).
inline constexpr std::size_t SKILL_PLUGIN_SCAN_MAX_BYTES = 16 * 1024 * 1024;
/// Plugins of one plugin or marketplace root that may load the same folder whole (every child a
/// skill, under each plugin's name); the plugins after them are not loaded from that folder
/// (`plugin-refused`). A folder loaded whole costs one check however many skills it holds, so
/// without it 1,000 entries naming one folder of N skills loaded 1,000 x N skills. (A skill a
/// plugin names one by one costs checks of its own, bounded by SKILL_PLUGIN_SCAN_MAX_CHECKS.)
inline constexpr std::size_t SKILL_PLUGIN_FOLDER_MAX_PLUGINS = 16;

}  // namespace agentskills
