// agentskills-cpp — the "Agent Substrate" facade: SkillManager, SkillTool and SkillPackage.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "../activation/activation.hpp"
#include "../base/skill.hpp"
#include "../catalog/catalog.hpp"
#include "../catalog/loader.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

/// A fully loaded skill with helpers for its bundled files. Immutable once built, so it can
/// be shared between threads.
class SkillPackage {
public:
    /// `reader`: where the skill's files are read (nullptr = the local file system).
    /// `include_directory`: whether the context block names the skill directory.
    SkillPackage(LoadedSkill skill, SkillReaderPtr reader = nullptr, bool include_directory = true);

    [[nodiscard]] const std::string& name() const noexcept { return skill_.manifest.name; }
    [[nodiscard]] const SkillManifest& manifest() const noexcept { return skill_.manifest; }
    [[nodiscard]] const std::string& instructions() const noexcept { return skill_.instructions; }
    [[nodiscard]] const std::vector<SkillResource>& resources() const noexcept { return skill_.resources; }
    [[nodiscard]] const LoadedSkill& loaded() const noexcept { return skill_; }

    /// Markdown for the model: `## Skill: <name>`, the instructions, then (when known) the
    /// skill directory and the bundled files. Exact format in docs/host.md.
    [[nodiscard]] std::string to_context_block() const;

    /// Files under `scripts/`, relative to it (`build.sh`, `lib/util.py`), sorted.
    [[nodiscard]] std::vector<std::string> list_scripts() const;

    /// Reads a bundled file: `path` is looked up under `references/` first, then under the
    /// skill directory. Returns nullopt when neither exists. Throws PathError for a path that
    /// could leave the skill directory: empty, absolute, with a `..` or `~` component, a drive,
    /// a backslash or NUL, or one that reaches a symlink leading outside the skill directory
    /// (with a non-local reader, any symlink on the way is refused). `max_bytes` = 0 reads the
    /// whole file; otherwise at most that many bytes.
    [[nodiscard]] std::optional<std::string> read_reference(std::string_view path, std::size_t max_bytes = 0) const;

private:
    [[nodiscard]] std::optional<std::string> read_inside(const std::string& relative, std::size_t max_bytes) const;

    LoadedSkill skill_;
    SkillReaderPtr reader_;
    bool include_directory_;
};

using SkillPackagePtr = std::shared_ptr<const SkillPackage>;

/// The guidance SkillManager::inject_into_prompt puts before `<available_skills>` (a template of
/// render_skills_prompt: `{tool_name}` is SkillTool's name, `{skills}` the listing).
inline constexpr std::string_view SKILL_TOOL_SYSTEM_PROMPT =
    "Skills are packages of instructions for particular kinds of task. When a task matches the description of a "
    "skill listed below, call the `{tool_name}` tool with action \"activate\" and the skill's name to receive its "
    "instructions before you start; action \"list\" shows the skills again.\n"
    "\n"
    "{skills}";

struct SkillManagerOptions {
    /// Source of skills. nullptr = a FilesystemSkillLoader over `roots` (and, when `roots` is
    /// empty, the default roots `./.agents/skills` and `~/.agents/skills`).
    SkillLoaderPtr loader = nullptr;
    /// Library roots for the default loader; not with `loader`.
    std::vector<std::string> roots = {};
    /// Where packages read bundled files. nullptr = the loader's `reader_for` the skill (the
    /// reader of a FilesystemSkillLoader or CombinedSkillLoader), else the local file system.
    SkillReaderPtr reader = nullptr;
    /// Discover in the constructor.
    bool auto_discover = true;
    /// Name of the SkillTool, as the prompt guidance names it.
    std::string tool_name = "skill";
    /// How the default loader checks names. `require_valid`: names must follow the Agent Skills
    /// rules, and a skill whose name breaks them makes `discover` (so the constructor) throw
    /// ConfigurationError, whatever the loader.
    NamePolicy name_policy = NamePolicy::keep;
    /// How many names an unknown-name text of the SkillTool lists before "and N more".
    std::size_t max_listed_names = 20;
};

/// What `SkillManager::activate_once` returns.
struct ManagerActivation {
    SkillPackagePtr package;  ///< nullptr for an unknown name
    bool first = false;       ///< this call activated it (loaded the body)
};

/// Coordinates discovery, the prompt catalog and activation. Every member is safe to call
/// from several threads at once.
class SkillManager {
public:
    /// Throws ConfigurationError for both `loader` and `roots`, and what `discover` throws
    /// when `auto_discover` is set.
    explicit SkillManager(SkillManagerOptions options = {});
    SkillManager(const SkillManager&) = delete;
    SkillManager& operator=(const SkillManager&) = delete;

    /// Scans again; safe to call any number of times. Active packages stay active.
    /// Throws DiscoveryError when the loader does.
    void discover();

    /// Manifests of the last discovery, in catalog order (model-invocable or not).
    [[nodiscard]] std::vector<SkillManifest> skills() const;
    [[nodiscard]] std::vector<SkippedSkill> skipped() const;
    /// The manifest whose name or alias is `name_or_alias` (after NFKC), if any. Names win
    /// over aliases; among aliases the first skill in catalog order wins.
    [[nodiscard]] std::optional<SkillManifest> find(std::string_view name_or_alias) const;

    /// `base`, followed by a blank line, a short guidance naming the tool and
    /// `<available_skills>` for the model-invocable skills. `base` unchanged without any.
    [[nodiscard]] std::string inject_into_prompt(std::string_view base) const;

    /// Activates by name or alias, loading the body on the first activation only.
    /// nullptr for an unknown name. Activating an active skill returns the same package.
    /// Throws what the loader throws (the skill stays inactive).
    [[nodiscard]] SkillPackagePtr activate(std::string_view name_or_alias);
    /// The same, saying whether this call was the first activation: of parallel calls exactly
    /// one is (the others wait for its load and get the same package).
    [[nodiscard]] ManagerActivation activate_once(std::string_view name_or_alias);
    [[nodiscard]] bool is_active(std::string_view name_or_alias) const;
    /// Active packages, in activation order.
    [[nodiscard]] std::vector<SkillPackagePtr> active() const;
    [[nodiscard]] std::vector<std::string> active_names() const;
    /// The context blocks of the active skills in activation order, separated by blank
    /// lines; empty when none is active.
    [[nodiscard]] std::string active_context_block() const;
    /// Forgets every activation (between conversations).
    void deactivate_all();

    [[nodiscard]] const std::string& tool_name() const noexcept { return options_.tool_name; }
    [[nodiscard]] std::size_t max_listed_names() const noexcept { return options_.max_listed_names; }
    [[nodiscard]] const SkillLoaderPtr& loader() const noexcept { return options_.loader; }

private:
    [[nodiscard]] const SkillManifest* find_locked(std::string_view name_or_alias) const;
    [[nodiscard]] SkillReaderPtr reader_for(const SkillManifest& manifest) const;
    [[nodiscard]] bool include_directory_for(const SkillManifest& manifest) const;

    SkillManagerOptions options_;
    mutable std::mutex mutex_;                         // guards the state below
    std::shared_ptr<const SkillActivator> activator_;  // over the catalog of the last discovery
    std::shared_ptr<MemoryActivationStore> store_ = std::make_shared<MemoryActivationStore>();
    std::unordered_map<std::string, SkillPackagePtr> packages_;  // active, by name
    std::vector<SkillPackagePtr> active_;
};

/// The one model-callable tool of the facade, with two actions: `list` (names and
/// descriptions of the model-invocable skills) and `activate` (the context block of one).
/// Skills with `disable-model-invocation: true` are neither listed nor activatable here.
class SkillTool {
public:
    /// Throws ConfigurationError for a null manager.
    explicit SkillTool(std::shared_ptr<SkillManager> manager);

    [[nodiscard]] const std::string& name() const noexcept { return manager_->tool_name(); }
    [[nodiscard]] std::string description() const;
    /// JSON schema of the arguments: `action` (`list` | `activate`, required) and `name`.
    [[nodiscard]] nlohmann::json parameters_schema() const;
    /// The tool in the OpenAI chat-completions shape: `{"type":"function","function":{...}}`.
    [[nodiscard]] nlohmann::json tool_spec() const;

    /// Runs one call from the JSON text of its arguments (as a model sends it). Bad arguments
    /// give a plain error text for the model, never an exception.
    [[nodiscard]] std::string execute(std::string_view arguments_json) const;
    /// Same, from arguments already parsed.
    [[nodiscard]] std::string execute_object(const nlohmann::json& arguments) const;

private:
    [[nodiscard]] std::string execute_unchecked(const nlohmann::json& arguments) const;

    std::shared_ptr<SkillManager> manager_;
};

}  // namespace agentskills
