// agentskills-cpp — SkillsShim: exposes a skill catalog to the model of an agent.
//
// Once bound to an agent, the shim appends a guidance block with `<available_skills>` to the
// system instruction (whenever the conversation's instructions lack it), adds one strict,
// cache-stable activation tool, returns each skill's instructions once per conversation (repeats
// get a short "already active" text) through the activation core (activation.hpp), records active
// names in the run state and filters the turn's tools by the `tools` / `disallowedTools` of the
// active skills (deny first; its own tools are only hidden by `disallowedTools`). See docs/shim.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "../activation/activation.hpp"
#include "../activation/prompt.hpp"
#include "../base/diagnostics.hpp"
#include "../base/skill.hpp"
#include "../catalog/catalog.hpp"
#include "../catalog/live_catalog.hpp"
#include "../catalog/loader.hpp"
#include "../harness/agent.hpp"
#include "../harness/shim.hpp"
#include "../storage/reader.hpp"

namespace agentskills {

inline constexpr std::string_view DEFAULT_SKILLS_SHIM_NAME = "skills";

namespace detail {
struct ShimBinding;
class BoundSkillsShim;
}  // namespace detail

/// When a SkillsShim discovers its skills again (docs/shim.md, "Generations").
enum class ReloadPolicy {
    never,      ///< once per binding (a given `catalog`: never); the default
    every_run,  ///< refresh the live catalog at the start of every run
    on_demand,  ///< the host refreshes (`SkillsShim::refresh`, `LiveCatalog::refresh`)
    watch       ///< a watcher refreshes after changes below the roots (`watch`)
};

struct SkillsShimOptions {
    /// Where skills come from; nullptr (with no catalog) = a FilesystemSkillLoader with its
    /// default roots. Discovered once per agent the shim binds to.
    SkillLoaderPtr loader = nullptr;
    /// An already discovered catalog, shared with the host and never rediscovered.
    /// Giving both `loader` and `catalog` is a ConfigurationError.
    SkillCatalogPtr catalog = nullptr;
    SystemPrompt system_prompt = std::string(DEFAULT_SKILLS_SYSTEM_PROMPT);
    /// Name of the activation tool (1–64 of `[A-Za-z0-9_-]`).
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
    /// Shim name, the prefix of its `shim_state` keys.
    std::string name = std::string(DEFAULT_SKILLS_SHIM_NAME);
    CatalogBudget budget = {};
    /// How many available names an unknown-name result lists before "and N more".
    std::size_t max_listed_names = 20;
    /// Gets, at every bind, the catalog's diagnostics, one `skill-skipped` warning per skipped
    /// path without one, a `prompt-budget-omitted` warning when the budget left skills out, and
    /// one aggregated `ignored-behavioral-fields` warning; at activation, `resource-list-truncated`.
    /// Called on the binding or tool-handler thread; must be thread-safe with parallel tool calls.
    std::function<void(const Diagnostic&)> on_diagnostic = nullptr;
    /// Also offer `read_skill_resource(name, path)`: one listed file of an active skill, as text
    /// (for models without file tools). Off by default.
    bool resource_tool = false;
    /// Name of that tool (1–64 of `[A-Za-z0-9_-]`, not the activation tool's).
    std::string resource_tool_name = std::string(DEFAULT_RESOURCE_TOOL_NAME);
    /// Largest text it returns, in bytes (longer files are cut, with a note).
    std::size_t max_resource_bytes = 256 * 1024;
    /// Where it reads; nullptr = the loader's `reader_for` the skill (the reader a
    /// FilesystemSkillLoader or CombinedSkillLoader found it through), else the local file system.
    SkillReaderPtr resource_reader = nullptr;
    /// How long an activation waits for a parallel call's load of the same skill.
    std::chrono::milliseconds activation_wait_timeout = std::chrono::milliseconds(60000);
    /// A live catalog shared with the host: every run starts on its current generation and keeps
    /// it to its end. Not with `loader` or `catalog`.
    LiveCatalogPtr live_catalog = nullptr;
    /// Anything but `never` makes the shim run on generations: over `live_catalog`, or over a
    /// LiveCatalog it builds around `loader` at its first binding. Not with `catalog`.
    ReloadPolicy reload = ReloadPolicy::never;
    /// The watcher's roots and throttle under ReloadPolicy::watch.
    WatchOptions watch = {};
    /// Sees the change sets of the LiveCatalog the shim builds (not of a given `live_catalog`).
    std::function<void(const CatalogChangeSet&)> on_catalog_change = nullptr;
};

/// The Agent Skills shim. Thread safety: one SkillsShim may be bound to many agents from
/// several threads; its bindings' tool handlers are safe to run in parallel. A shim on
/// generations (`reload` or `live_catalog`) must outlive its bindings (DefaultAgent keeps it).
class SkillsShim final : public Shim {
public:
    /// Throws ConfigurationError for a loader plus a catalog, a bad tool or shim name, or a
    /// template with an unknown placeholder.
    explicit SkillsShim(SkillsShimOptions options = {});
    ~SkillsShim() override;

    [[nodiscard]] std::string_view name() const noexcept override;
    /// Discovers (unless a catalog was given) and prepares the block and the tool. Throws
    /// ConfigurationError when `agent` has this shim twice, or another SkillsShim with the same
    /// shim name or tool name (one block would be lost).
    [[nodiscard]] std::unique_ptr<BoundShim> bind(const AgentDescriptor& agent) override;

    [[nodiscard]] const SkillsShimOptions& options() const noexcept { return options_; }

    /// `"<name>:active-skill-names"`.
    [[nodiscard]] std::string active_skill_names_key() const;
    /// `"<name>:system-prompt-appended"`: set once the block went into the run's instructions.
    [[nodiscard]] std::string prompt_appended_key() const;
    /// Names activated so far in `state` through this shim, in activation order.
    [[nodiscard]] std::vector<std::string> active_skill_names(const RunState& state) const;

    /// The activation tool as the model sees it (identical on every turn).
    [[nodiscard]] ToolSpec tool_spec() const;
    /// The read_skill_resource tool's spec (offered only with `resource_tool`).
    [[nodiscard]] ToolSpec resource_tool_spec() const;
    /// The block the latest binding's conversations need in their system prompt (empty before
    /// any binding, or when no skill is model-invocable). Each turn the binding appends it to
    /// `RunState::instructions` again when they no longer contain it (a host rebuilt them).
    [[nodiscard]] std::string prompt_block() const;
    /// The block for `catalog` under this shim's template, tool name and budget.
    [[nodiscard]] SkillsPrompt render_prompt(const SkillCatalog& catalog) const;

    /// The catalog of the latest binding (the shared one when given), or nullptr before any.
    [[nodiscard]] SkillCatalogPtr catalog() const;
    /// The skills the budget left out of the latest binding's block, in catalog order.
    [[nodiscard]] std::vector<std::string> omitted_skill_names() const;

    /// The live catalog the shim runs on (given, or built at the first binding), or nullptr.
    [[nodiscard]] LiveCatalogPtr live_catalog() const;
    /// Refreshes the live catalog now; the next run of each agent gets the new generation.
    /// Throws ConfigurationError when the shim has no live catalog, DiscoveryError.
    std::optional<CatalogChangeSet> refresh();
    /// `"<name>:catalog-generation"`: the generation a run started on (live catalogs only).
    [[nodiscard]] std::string generation_key() const;
    /// The content to re-attach for the skills active in `state` after its history was compacted
    /// (SkillActivator::reattach over the latest binding's catalog). Empty before any binding.
    [[nodiscard]] Reattachment reattach(RunState& state, const ReattachOptions& options = {}) const;

private:
    friend class detail::BoundSkillsShim;
    [[nodiscard]] std::shared_ptr<const detail::ShimBinding> make_binding(SkillCatalogPtr catalog,
                                                                          std::uint64_t generation);
    [[nodiscard]] std::shared_ptr<const detail::ShimBinding> binding_for(const CatalogGenerationPtr& generation);
    /// At a run's start: refreshes under every_run, then the current generation's binding.
    [[nodiscard]] std::shared_ptr<const detail::ShimBinding> run_binding();
    [[nodiscard]] bool live() const noexcept { return options_.live_catalog || options_.reload != ReloadPolicy::never; }
    LiveCatalogPtr ensure_live();

    SkillsShimOptions options_;
    mutable std::mutex mutex_;
    SkillCatalogPtr last_catalog_;
    std::vector<std::string> last_omitted_;
    std::shared_ptr<const detail::ShimBinding> last_binding_;  // its activator holds the last block
    LiveCatalogPtr live_;
};

}  // namespace agentskills
