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

#include "diagnostics.hpp"
#include "loader.hpp"
#include "reader.hpp"
#include "skill.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Arguments

/// Largest instructions text, in bytes, that substituting arguments may produce (4 MiB).
inline constexpr std::size_t RENDER_MAX_BYTES = 4 * 1024 * 1024;

/// Substitutes user arguments into a skill body (docs/host.md, "Rendering"):
/// every `$ARGUMENTS` placeholder becomes `arguments`; when the body holds none, the line
/// `ARGUMENTS: <arguments>` is appended after one blank line (nothing is appended when
/// `arguments` is empty). `$ARGUMENTS[N]`, `$ARGUMENTS` followed by a letter, digit or `_`,
/// `$0`, `$1,000` and every other `$` text are left as written. The inserted text is never
/// scanned again.
///
/// The size of the result is computed before it is built; past `max_bytes` (0 = no limit)
/// nothing is built and ConfigurationError says both sizes.
[[nodiscard]] std::string substitute_arguments(std::string_view body, std::string_view arguments,
                                               std::size_t max_bytes = RENDER_MAX_BYTES);

/// The size in bytes of `substitute_arguments(body, arguments)`, without building it
/// (SIZE_MAX when it would not fit in a size_t).
[[nodiscard]] std::size_t substituted_size(std::string_view body, std::string_view arguments) noexcept;

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

    /// The skill named `name` (compared after NFKC; a leading '/' is ignored), or nullptr.
    [[nodiscard]] const SkillDefinition* find(std::string_view name) const;
};

// ---------------------------------------------------------------------------------------
// Skills configurations

/// One skills configuration, as a host or an agent spec states it (the `Skills` capability).
/// Unlike FilesystemLoaderOptions, nothing is searched by default: every library is named.
struct SkillsConfig {
    /// Library paths in precedence order (at least one). `~` is not expanded.
    std::vector<std::string> directories = {};
    /// Only these names (after NFKC); an unknown name fails discovery. Not with `exclude`.
    std::optional<std::vector<std::string>> include = std::nullopt;
    /// Leave these names out (after NFKC). Not with `include`.
    std::optional<std::vector<std::string>> exclude = std::nullopt;
    MissingDirectories missing_directories = MissingDirectories::error;
    DuplicateNames duplicate_names = DuplicateNames::error;
    /// How `name` is checked; the default follows the Agent Skills rules (name may be omitted,
    /// must be valid and match its directory).
    NamePolicy name_policy = NamePolicy::require_valid;
    /// Where the libraries live when not in the run's workspace (for example skills shipped
    /// with the application while the agent works in a sandbox). nullptr = the workspace the
    /// catalog is loaded with.
    SkillReaderPtr workspace = nullptr;
    /// Whether the model's tools can reach these skills' directories. Default: true without
    /// `workspace`, false with one.
    std::optional<bool> in_run_workspace = std::nullopt;
};

/// Throws ConfigurationError when `config` cannot work: no directory, or both `include` and
/// `exclude`.
void validate_skills_config(const SkillsConfig& config);

/// Serves several configurations through one catalog. Each configuration is discovered on its
/// own (its include/exclude, missing-directory and duplicate-name rules apply inside it); then
/// the results are merged in configuration order. A name selected by two configurations must
/// be the same SKILL.md (same reader, same path) or a byte-identical copy — it then counts
/// once — unless the later configuration has `duplicate_names = keep_first`, which keeps the
/// earlier skill and reports the later one as `duplicate_name`. Otherwise `discover` throws
/// DiscoveryError naming both files.
///
/// `on_diagnostic`, when given, is called once for each diagnostic of each `discover()` — what
/// each configuration's discovery reported (skipped skills, unknown exclude names, ...) and what
/// the merge adds (duplicate names) — in the order of `Discovery::diagnostics`, on the calling
/// thread, after the merge. Without it no callback is called (load_host_catalog passes none).
/// Thread safety: `discover` and `load` may be called from several threads at once.
class CombinedSkillLoader final : public SkillLoader {
public:
    /// `workspace`: where configurations without their own workspace are read (nullptr = the
    /// local file system). Throws ConfigurationError for an empty list or a bad configuration.
    explicit CombinedSkillLoader(std::vector<SkillsConfig> configs, const SkillReaderPtr& workspace = nullptr,
                                 std::function<void(const Diagnostic&)> on_diagnostic = nullptr);
    ~CombinedSkillLoader() override;
    CombinedSkillLoader(const CombinedSkillLoader&) = delete;
    CombinedSkillLoader& operator=(const CombinedSkillLoader&) = delete;

    [[nodiscard]] Discovery discover() override;
    [[nodiscard]] LoadedSkill load(std::string_view name) override;

    /// Whether the skill of the last discovery named `name` is in the run's workspace
    /// (true for an unknown name).
    [[nodiscard]] bool in_run_workspace(std::string_view name) const override;
    /// The reader the skill named `name` was found through (nullptr for an unknown name).
    [[nodiscard]] SkillReaderPtr reader_for(std::string_view name) const override;
    [[nodiscard]] const std::vector<SkillsConfig>& configs() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
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
/// `missing_directories` (`error` | `skip`), `duplicate_names` (`error` | `keep_first`).
/// Throws ConfigurationError naming the key for an unknown key, a bad value, or `include`
/// together with `exclude`; for text that is not valid YAML / JSON, a mapping key that is not
/// a string, and text past one of `limits` (size, nodes, bytes, depth; aliases count what they
/// copy). Only the first YAML document is read.
[[nodiscard]] std::vector<SkillsConfig> parse_agent_spec(std::string_view text, SpecFormat format,
                                                         const AgentSpecLimits& limits = {});

/// Reads an agent spec file (`.json` is JSON, anything else YAML) the way SKILL.md files are
/// read: a regular file only (a FIFO, a device or a directory is refused without blocking; a
/// symlink to a regular file is followed), at most `limits.max_bytes` bytes. Every failure,
/// reading or parsing, is a ConfigurationError whose message names the file.
[[nodiscard]] std::vector<SkillsConfig> load_agent_spec(const std::string& path, const AgentSpecLimits& limits = {});

}  // namespace agentskills
