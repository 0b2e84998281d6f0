// agentskills-cpp — CombinedSkillLoader: several sources (loaders) served as one catalog, by the
// one merge of the library: the host's skills configurations and the CLI's roots and MCP servers
// both go through it.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../base/diagnostics.hpp"
#include "../storage/reader.hpp"
#include "governance.hpp"
#include "loader.hpp"

namespace agentskills {

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
    /// Source hooks for the libraries (archive children, `git:` roots; docs/sources.md). An
    /// agent spec never sets them: the host installs the ones it is built with.
    SkillSources sources = {};
    /// Override rules for this configuration's skills (FilesystemLoaderOptions::overrides).
    std::vector<OverrideRule> overrides = {};
};

/// Throws ConfigurationError when `config` cannot work: no directory, or both `include` and
/// `exclude`.
void validate_skills_config(const SkillsConfig& config);

/// One source of a CombinedSkillLoader.
struct LoaderSource {
    SkillLoaderPtr loader;
    /// What happens to a skill of this source whose name an earlier source's skill has (unless
    /// both are the same SKILL.md, or byte-identical copies, which count once): `error` fails
    /// discovery with a DiscoveryError naming both files; `keep_first` keeps the earlier one and
    /// reports this one as `duplicate_name` — except that a name in NFKC form that matches its
    /// directory is kept over an earlier look-alike (which is then the one reported).
    DuplicateNames duplicate_names = DuplicateNames::error;
    /// Whether the model's own tools reach this source's skills; nullopt = as its loader says.
    std::optional<bool> in_run_workspace = std::nullopt;
    /// Non-empty: when skills of two or more qualified sources share a name, each of them is
    /// renamed `<qualifier>:<name>` (warning `mcp-name-qualified`) instead of being a duplicate.
    /// The CLI gives each MCP server source its label.
    std::string qualifier = {};
};

/// The merge's own selection, over the combined names (each source keeps its own too).
struct CombinedLoaderOptions {
    /// Only these names (after NFKC); a name that selects nothing fails discovery. Not with `exclude`.
    std::optional<std::vector<std::string>> include = std::nullopt;
    /// Leave these names out (after NFKC); a name that leaves nothing out is a warning.
    std::vector<std::string> exclude = {};
    /// Called once for each diagnostic of each `discover()` — what each source's discovery reported
    /// and what the merge adds — in the order of `Discovery::diagnostics`, on the calling thread,
    /// after the merge.
    std::function<void(const Diagnostic&)> on_diagnostic = nullptr;
};

/// Serves several sources through one catalog: each is discovered on its own, then the results
/// are merged in source order under LoaderSource's rules. Thread safety: `discover` and `load` may
/// be called from several threads at once.
class CombinedSkillLoader final : public SkillLoader {
public:
    /// Throws ConfigurationError for an empty list, a null loader, or include with exclude.
    explicit CombinedSkillLoader(std::vector<LoaderSource> sources, CombinedLoaderOptions options = {});
    /// The skills configurations of a host or an agent spec: one FilesystemSkillLoader each (no
    /// default roots; its own include/exclude, missing-directory and name rules), whose
    /// `duplicate_names` says what a name already selected by an earlier configuration does.
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
    /// The configurations it was made from (empty when made from sources).
    [[nodiscard]] const std::vector<SkillsConfig>& configs() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace agentskills
