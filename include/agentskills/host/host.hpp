// agentskills-cpp — host-side use: skill definitions a person can invoke, skills
// configurations, combining several configurations into one catalog, and agent specs.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../activation/prompt.hpp"
#include "../base/diagnostics.hpp"
#include "../base/skill.hpp"
#include "../catalog/catalog.hpp"
#include "../catalog/combined_loader.hpp"
#include "../catalog/governance.hpp"
#include "../catalog/loader.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Skill definitions and the host catalog

/// One valid skill as a host sees it: metadata, the body, where it lives, and who may invoke it.
/// Its fields keep the host facade's own names; each is a copy of a core field, made in one
/// place (from_loaded; docs/loading.md, "Names used in this library"):
/// `body` = LoadedSkill::instructions, `path` = SkillManifest::skill_file, `directory` =
/// SkillManifest::root, `model_invocable` = SkillManifest::model_invocable().
struct SkillDefinition {
    std::string name;
    std::string description;
    /// The instructions: the Markdown after the frontmatter, trimmed of leading and trailing
    /// blank lines (LoadedSkill::instructions).
    std::string body;
    /// The SKILL.md it was read from (in its reader's namespace; absolute for local skills).
    std::string path;
    /// The skill directory (the folder holding SKILL.md; SkillManifest::root).
    std::string directory;
    /// False when the frontmatter says `disable-model-invocation: true`: the model's catalog
    /// leaves the skill out, a host may still offer it to a person.
    bool model_invocable = true;
    /// False when the frontmatter says `user-invocable: false`: a host should not offer it as
    /// a command. The library itself offers no commands; this is for the host to check.
    bool user_invocable = true;
    /// Whether it was read from the run's workspace, where the model's own file and shell
    /// tools can reach its directory. When false, `render` leaves the directory out.
    bool in_run_workspace = true;
    /// Claude-Code behavioural frontmatter keys the library accepts but does not implement.
    std::vector<std::string> ignored_behavioral_fields = {};
    /// The full manifest and the bundled files listed when the catalog was loaded.
    SkillManifest manifest = {};
    std::vector<SkillResource> resources = {};
    /// Files of the skill directory left out of `resources` by the loader's cap.
    std::size_t omitted_resources = 0;
    /// LoadedSkill::unlisted_directories, resources_incomplete and unlisted_reasons, as loaded.
    std::vector<std::string> unlisted_directories;
    bool resources_incomplete = false;
    std::vector<UnlistedReason> unlisted_reasons = {};

    /// The skill's instructions exactly as the model receives them on activation
    /// (render_activation_text: wrapper tags in the body neutralized, model text, the
    /// `and N more` line; the directory and `read_path`s only when `in_run_workspace`). With `arguments`,
    /// the body first goes through substitute_arguments, bounded by `max_bytes` (0 = no limit;
    /// past it, ConfigurationError). `render()` equals the activation text.
    [[nodiscard]] std::string render(std::optional<std::string_view> arguments = std::nullopt,
                                     std::size_t max_bytes = RENDER_MAX_BYTES) const;

    /// The definition of a loaded skill: every field derived from `skill` (the only place the
    /// facade's fields are filled); `in_run_workspace` as the loader says for the skill.
    [[nodiscard]] static SkillDefinition from_loaded(LoadedSkill skill, bool in_run_workspace = true);
};

/// What a host reads outside a run: every valid skill (model-invocable or not), in catalog
/// order, and every SKILL.md or library path that was left out. Loading it emits nothing: no
/// diagnostic callback fires; the findings are returned here for the host to show.
struct HostCatalog {
    std::vector<SkillDefinition> skills = {};
    std::vector<SkippedSkill> skipped = {};
    Diagnostics diagnostics = {};
    /// The catalog the definitions were loaded from (load_host_catalog sets it; `skills` are its
    /// skills, in its order). When null, find() indexes `skills` itself.
    SkillCatalogPtr catalog = nullptr;

    /// The skill `name` names under the one name rule (SkillNameIndex: a leading '/', NFKC,
    /// aliases), or nullptr.
    [[nodiscard]] const SkillDefinition* find(std::string_view name) const;
};

/// Reads the configurations now, as a run would at its start, without emitting anything, and
/// loads every selected skill. Throws ConfigurationError or DiscoveryError like a run would
/// fail (unknown include name, two different skills with one name under `error`, ...).
[[nodiscard]] HostCatalog load_host_catalog(const std::vector<SkillsConfig>& configs,
                                            const SkillReaderPtr& workspace = nullptr);
[[nodiscard]] HostCatalog load_host_catalog(const SkillsConfig& config, const SkillReaderPtr& workspace = nullptr);

// ---------------------------------------------------------------------------------------
// Agent specs (docs/host.md, "Agent specs")

enum class SpecFormat { yaml, json };

/// Largest agent spec read or parsed, in bytes (AgentSpecLimits::max_bytes).
inline constexpr std::size_t AGENT_SPEC_MAX_BYTES = 256 * 1024;
/// Most nodes of a spec document, counting each node an alias or an anchor copies.
inline constexpr std::size_t AGENT_SPEC_MAX_NODES = 100'000;
/// Most scalar bytes of a spec document, counting each byte an alias or an anchor copies.
inline constexpr std::size_t AGENT_SPEC_MAX_TEXT_BYTES = 4 * 1024 * 1024;
/// Deepest nesting of collections in a spec document (a spec needs about six levels).
inline constexpr std::size_t AGENT_SPEC_MAX_DEPTH = 64;

/// The budgets of reading an agent spec; 0 turns one off. Past a budget, parsing stops with a
/// ConfigurationError (docs/security.md, "Limits").
struct AgentSpecLimits {
    std::size_t max_bytes = AGENT_SPEC_MAX_BYTES;
    std::size_t max_nodes = AGENT_SPEC_MAX_NODES;
    std::size_t max_text_bytes = AGENT_SPEC_MAX_TEXT_BYTES;
    std::size_t max_depth = AGENT_SPEC_MAX_DEPTH;
};

/// The skills configurations of an agent spec, in document order. Accepted shapes:
///  - a document with `capabilities:` — a list whose `Skills` entries are read, every other
///    entry and every other top-level key being left to the host;
///  - a mapping with the single key `Skills`;
///  - a bare configuration mapping (`directories:`, `include:`, ...).
/// A `Skills` value is a configuration mapping, or a string / list of strings that is taken
/// as `directories`. Keys: `directories` (string or list), `include`, `exclude` (lists),
/// `missing_directories` (`error` | `skip`), `duplicate_names` (`error` | `keep_first`),
/// `overrides` (the rules of GovernanceConfig).
/// Throws ConfigurationError naming the key for an unknown key, a bad value, or `include`
/// together with `exclude`; for text that is not valid YAML / JSON, a mapping key that is not
/// a string, and text past one of `limits` (size, nodes, bytes, depth; aliases count what they
/// copy). Only the first YAML document is read.
[[nodiscard]] std::vector<SkillsConfig> parse_agent_spec(std::string_view text, SpecFormat format,
                                                         const AgentSpecLimits& limits = {});

/// What a skills configuration file (`agentskills ... --config FILE`) holds:
///
///     skills:
///       max_lines: 0               # the loader's limits (FilesystemLoaderOptions); 0 = none
///       max_bytes: 2097152
///       yaml_recovery: plain_values  # FilesystemLoaderOptions::yaml_recovery (none | plain_values)
///       overrides:
///         - name: code-review      # or  path: "team/*"
///           mode: name-only        # on | name-only | user-invocable-only | off
///
/// Read under the same budgets as agent specs (`limits`). Any other key, a limit that is not
/// plain decimal digits fitting in a size_t, a rule without exactly one of `name` / `path`,
/// without `mode` or with another word, and more than OVERRIDES_MAX_RULES rules are
/// ConfigurationErrors that give the line of the rule or key.
struct GovernanceConfig {
    std::vector<OverrideRule> overrides = {};
    /// `max_lines`, `max_bytes`: unset when the file does not say (the loader's default stays).
    std::optional<std::size_t> max_lines = std::nullopt;
    std::optional<std::size_t> max_bytes = std::nullopt;
    /// `limits`: a preset (apply_loader_limits); `max_lines`, when also given, wins over it.
    std::optional<LoaderLimits> limits = std::nullopt;
    /// `compat`: a list of agent names (FilesystemLoaderOptions::compat); unset when not given.
    std::optional<std::vector<AgentFolders>> compat = std::nullopt;
    /// `yaml_recovery`: `none` or `plain_values` (FilesystemLoaderOptions::yaml_recovery); unset
    /// when not given.
    std::optional<YamlRecovery> yaml_recovery = std::nullopt;
};

[[nodiscard]] GovernanceConfig parse_governance_config(std::string_view text, const AgentSpecLimits& limits = {});
/// Reads the file like load_agent_spec (a regular file only, at most `limits.max_bytes`); every
/// error names the file.
[[nodiscard]] GovernanceConfig load_governance_config(const std::string& path, const AgentSpecLimits& limits = {});

/// Reads an agent spec file (`.json` is JSON, anything else YAML) the way SKILL.md files are
/// read: a regular file only (a FIFO, a device or a directory is refused without blocking; a
/// symlink to a regular file is followed), at most `limits.max_bytes` bytes. Every failure,
/// reading or parsing, is a ConfigurationError whose message names the file.
[[nodiscard]] std::vector<SkillsConfig> load_agent_spec(const std::string& path, const AgentSpecLimits& limits = {});

}  // namespace agentskills
