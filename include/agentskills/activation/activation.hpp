// agentskills-cpp — the activation core: what happens when a model asks for a skill.
//
// A SkillActivator turns the raw JSON arguments of one activation call into a typed result
// (content, already active, unknown name, invalid arguments, load error) plus the text for the
// model. Who has activated what lives in an ActivationStore: in memory, in a RunState's
// `shim_state`, or (agentskills::sqlite, <agentskills/sqlite_store.hpp>) in a database file that
// several processes share. Any agent loop can call it; SkillsShim, SkillTool and SkillManager
// use it too. See docs/shim.md, "Using the shim in your own agent loop".
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../base/diagnostics.hpp"
#include "../base/skill.hpp"
#include "../catalog/catalog.hpp"
#include "../harness/messages.hpp"
#include "../harness/run_state.hpp"
#include "../storage/reader.hpp"
#include "prompt.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Activation stores

/// What `ActivationStore::claim` found.
enum class ClaimResult {
    claimed,         ///< the caller holds the claim now and must `confirm` or `roll_back` it
    already_active,  ///< an earlier claim was confirmed
    in_progress      ///< another caller holds an unconfirmed claim
};

/// Where one conversation records its activations. Names are catalog names (compared exactly).
/// Every member may be called from several threads at once; a store shared between processes
/// (SQLite) keeps the same promises across them.
class ActivationStore {
public:
    virtual ~ActivationStore();
    /// Claims `name` atomically: of any number of simultaneous callers exactly one gets `claimed`.
    [[nodiscard]] virtual ClaimResult claim(std::string_view name) = 0;
    /// Makes a claim active (it joins `active_names`, in confirmation order).
    virtual void confirm(std::string_view name) = 0;
    /// Drops an unconfirmed claim, so that a later caller can claim the name again.
    virtual void roll_back(std::string_view name) = 0;
    /// Confirmed names, in activation order.
    [[nodiscard]] virtual std::vector<std::string> active_names() const = 0;
    /// Whether the system-prompt block was recorded as delivered in this conversation.
    [[nodiscard]] virtual bool prompt_delivered() const = 0;
    /// Records the delivery; returns true when this call recorded it (false: it already was).
    virtual bool mark_prompt_delivered() = 0;
    /// Waits until the claim on `name` may have changed, or until `deadline`. The default
    /// sleeps a few milliseconds (stores that can be woken up override it).
    virtual void wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline);
    /// Whether `name` is among `active_names()`.
    [[nodiscard]] virtual bool is_active(std::string_view name) const;
};

using ActivationStorePtr = std::shared_ptr<ActivationStore>;

/// A store in this process's memory (one conversation). Waiters are woken on every change.
class MemoryActivationStore final : public ActivationStore {
public:
    MemoryActivationStore() = default;
    [[nodiscard]] ClaimResult claim(std::string_view name) override;
    void confirm(std::string_view name) override;
    void roll_back(std::string_view name) override;
    [[nodiscard]] std::vector<std::string> active_names() const override;
    [[nodiscard]] bool prompt_delivered() const override;
    bool mark_prompt_delivered() override;
    void wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) override;
    [[nodiscard]] bool is_active(std::string_view name) const override;
    /// Forgets every activation and the delivery record (a new conversation).
    void clear();

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> active_;
    std::vector<std::string> pending_;
    bool prompt_delivered_ = false;
};

/// A store over a run state's `shim_state`, with the keys SkillsShim has always used:
/// `"<shim>:active-skill-names"` (array, activation order) and `"<shim>:system-prompt-appended"`
/// (`true`), plus `"<shim>:pending-skill-names"` while a claim is unconfirmed (removed when empty).
/// The ShimState must outlive the store.
class ShimStateActivationStore final : public ActivationStore {
public:
    /// The three keys of one shim name, built once and shared by the stores of every call.
    struct Keys {
        std::string active;
        std::string prompt;
        std::string pending;
    };
    [[nodiscard]] static std::shared_ptr<const Keys> keys_for(std::string_view shim_name);

    explicit ShimStateActivationStore(ShimState& state, std::string_view shim_name = "skills");
    /// A store over `state` with keys from keys_for (not null).
    ShimStateActivationStore(ShimState& state, std::shared_ptr<const Keys> keys);
    [[nodiscard]] ClaimResult claim(std::string_view name) override;
    void confirm(std::string_view name) override;
    void roll_back(std::string_view name) override;
    [[nodiscard]] std::vector<std::string> active_names() const override;
    [[nodiscard]] bool prompt_delivered() const override;
    bool mark_prompt_delivered() override;
    /// The active names that the store of `shim_name` over `state` would give (read only).
    [[nodiscard]] static std::vector<std::string> active_names(const ShimState& state, std::string_view shim_name);

    [[nodiscard]] const std::string& active_key() const noexcept { return keys_->active; }
    [[nodiscard]] const std::string& prompt_key() const noexcept { return keys_->prompt; }
    [[nodiscard]] const std::string& pending_key() const noexcept { return keys_->pending; }

private:
    ShimState* state_;
    std::shared_ptr<const Keys> keys_;
};

// ---------------------------------------------------------------------------------------
// Active skills in a run state

/// Suffix of the `shim_state` keys where skills shims record the active skill names
/// (`"<shim name>:active-skill-names"`, an array in activation order).
inline constexpr std::string_view ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX = ":active-skill-names";

/// The skills side of a run state: what the skills shims of an agent recorded in it (read only).
class RunStateView {
public:
    explicit RunStateView(const RunState& state) noexcept : state_(&state) {}
    /// The union of the names under every `shim_state` key ending in
    /// ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX: keys in sorted order, names in activation order,
    /// each name once.
    [[nodiscard]] std::vector<std::string> active_skill_names() const;

private:
    const RunState* state_;
};

// ---------------------------------------------------------------------------------------
// Re-attach after compaction

/// Default budget of one skill's re-attached content (in the counter's units: tokens, say).
inline constexpr std::size_t DEFAULT_REATTACH_SKILL_BUDGET = 5'000;
/// Default budget of all re-attached content together.
inline constexpr std::size_t DEFAULT_REATTACH_TOTAL_BUDGET = 25'000;

/// How `SkillActivator::reattach` measures and cuts.
struct ReattachOptions {
    std::size_t per_skill_budget = DEFAULT_REATTACH_SKILL_BUDGET;  ///< 0 = no per-skill budget
    std::size_t total_budget = DEFAULT_REATTACH_TOTAL_BUDGET;      ///< 0 = no combined budget
    /// The host's token counter; nullptr = characters (Unicode code points).
    std::function<std::size_t(std::string_view)> count = nullptr;
};

/// One re-attached skill.
struct ReattachedSkill {
    std::string name;
    /// The activation text, or its cut form (docs/shim.md, "Re-attach after compaction").
    std::string text;
    bool cut = false;
    std::size_t size = 0;  ///< `text` measured by the counter
};

/// The content to put back after the history that held the active skills was compacted.
struct Reattachment {
    /// Most recently activated first.
    std::vector<ReattachedSkill> skills;
    /// Active skills that did not fit (not even cut), most recently activated first.
    std::vector<std::string> omitted;
    /// Active skills no longer in the catalog, or whose load failed, most recently activated first.
    std::vector<std::string> unavailable;
    /// The texts of `skills`, in that order, separated by a blank line.
    std::string text;
    /// Sum of the skills' sizes (the separators are not counted).
    std::size_t size = 0;
};

/// The line that ends a cut re-attached skill, before `</skill_content>`: names the SKILL.md
/// when the model's tools can reach it (`skill_file` not empty).
[[nodiscard]] std::string reattach_cut_marker(std::string_view skill_file);

// ---------------------------------------------------------------------------------------
// Activation

enum class ActivationStatus {
    content,            ///< first activation: `text` holds the skill's instructions
    already_active,     ///< activated earlier in this conversation
    unknown_name,       ///< no model-invocable skill has that name
    invalid_arguments,  ///< the arguments are not `{"name": "<non-empty string>"}`
    load_error          ///< the loader failed (the claim was rolled back), or a wait timed out
};

[[nodiscard]] std::string_view to_string(ActivationStatus status) noexcept;

/// The outcome of one activation call.
struct ActivationResult {
    ActivationStatus status = ActivationStatus::invalid_arguments;
    /// The name the model sent, as model text and cut to 128 code points (empty when there was none).
    std::string requested;
    /// The catalog name (content, already_active, load_error).
    std::string name;
    /// The text for the model.
    std::string text;
    /// unknown_name: the names the text lists (at most `max_listed_names`) and how many it left out.
    std::vector<std::string> available;
    std::size_t more_available = 0;
    /// content: the loaded skill.
    std::shared_ptr<const LoadedSkill> skill;
    /// load_error: the error message, and the exception the loader threw (null for a timeout).
    std::string error;
    std::exception_ptr exception;

    [[nodiscard]] bool is_error() const noexcept { return status == ActivationStatus::load_error; }
};

/// Longest model-sent name that is looked up (the catalog's bound, SKILL_LOOKUP_MAX_BYTES).
inline constexpr std::size_t ACTIVATION_MAX_NAME_BYTES = SKILL_LOOKUP_MAX_BYTES;
inline constexpr std::size_t ACTIVATION_MAX_NAME_CODE_POINTS = SKILL_LOOKUP_MAX_CODE_POINTS;

/// Largest number of bytes read_skill_resource returns by default.
inline constexpr std::size_t DEFAULT_MAX_RESOURCE_BYTES = 256 * 1024;

inline constexpr std::string_view DEFAULT_SKILLS_TOOL_NAME = "activate_skill";
inline constexpr std::string_view DEFAULT_RESOURCE_TOOL_NAME = "read_skill_resource";

struct SkillActivatorOptions {
    /// Name of the activation tool, as the texts name it.
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
    /// How many names an unknown-name text lists before "and N more".
    std::size_t max_listed_names = 20;
    /// How long a caller that finds another caller's claim in progress waits for its outcome.
    std::chrono::milliseconds wait_timeout = std::chrono::milliseconds(60000);
    /// The system-prompt template (or a callback that builds the block), as
    /// SkillsShimOptions::system_prompt: the block is render_skills_prompt over the catalog with
    /// it and this tool name. The constructor throws ConfigurationError as check_system_prompt does.
    SystemPrompt system_prompt = std::string(DEFAULT_SKILLS_SYSTEM_PROMPT);
    /// The whole system-prompt block, already built; nullopt = rendered from `system_prompt`.
    std::optional<std::string> prompt_block = std::nullopt;
    /// Gets findings about activations (a resource list cut by the loader's cap).
    std::function<void(const Diagnostic&)> on_diagnostic = nullptr;
    /// Treat skills with `disable-model-invocation: true` as unknown (false: a host activating).
    bool model_invocable_only = true;
    /// Whether activation texts may name the skill directory: nullopt = as the loader says
    /// (SkillLoader::in_run_workspace); false for a server whose clients do not share its disk.
    std::optional<bool> include_directory = std::nullopt;
    /// The optional read_skill_resource tool: its name (as its texts name it), where it reads
    /// (nullptr = the loader's reader_for the skill, else the local file system) and the largest
    /// text it returns.
    std::string resource_tool_name = std::string(DEFAULT_RESOURCE_TOOL_NAME);
    SkillReaderPtr resource_reader = nullptr;
    std::size_t max_resource_bytes = DEFAULT_MAX_RESOURCE_BYTES;
};

/// What the active skills of a conversation allow of a turn's tools (docs/shim.md, "Tool
/// filtering"): `denied` is taken away first; then, when `allowed` is set, only those tools
/// stay. The activation tool (and the resource tool) are in `allowed` whenever it is set: only
/// an explicit `disallowedTools` entry hides them.
struct ToolFilter {
    std::vector<std::string> denied;                  ///< sorted, each once
    std::optional<std::vector<std::string>> allowed;  ///< sorted, each once
    [[nodiscard]] bool empty() const noexcept { return denied.empty() && !allowed; }
    /// Whether a tool of that name stays.
    [[nodiscard]] bool keeps(std::string_view tool) const;
};

/// The activation core over one catalog: every entry point (SkillsShim, the MCP server's tool and
/// prompts, the host API, SkillManager / SkillTool, the CLI) goes through it. Names are resolved
/// by the catalog's one rule (SkillCatalog::find: a leading '/', NFKC, aliases), texts come from
/// the renderers of prompt.hpp. Immutable once built: share it between threads.
class SkillActivator {
public:
    /// Throws ConfigurationError for a null catalog.
    explicit SkillActivator(SkillCatalogPtr catalog, SkillActivatorOptions options = {});

    /// One activation call from the model's raw JSON arguments. Never throws for bad arguments
    /// or a failing loader (see the result); a failing store throws.
    [[nodiscard]] ActivationResult activate(ActivationStore& store, std::string_view arguments_json) const;
    /// The same from a name or an alias. `before_confirm` runs after a successful load, before
    /// the claim is confirmed (so that whatever it records exists once others see the skill
    /// active); when it throws, the claim is rolled back and the result is a load error.
    [[nodiscard]] ActivationResult activate_name(
        ActivationStore& store, std::string_view name_or_alias,
        const std::function<void(const LoadedSkill&)>& before_confirm = nullptr) const;

    /// The skill a model or a person names (SkillCatalog::find), when this activator offers it
    /// (model-invocable, unless `model_invocable_only` is off); nullptr otherwise.
    [[nodiscard]] const SkillManifest* find(std::string_view name_or_alias) const;

    /// The system-prompt block this conversation needs (the same text at every turn; empty when no
    /// skill is model-invocable). Re-derive it whenever the host rebuilds its instructions.
    [[nodiscard]] const std::string& prompt_block() const noexcept {
        return options_.prompt_block ? *options_.prompt_block : prompt_block_;
    }
    /// The activation texts of the skills active in `store`, in activation order, separated by
    /// blank lines (loaded again): what to put back after history that held them was compacted.
    [[nodiscard]] std::string active_skills_text(const ActivationStore& store) const;
    /// The same within budgets: each active skill's activation text (loaded again), cut to
    /// `per_skill_budget` and together to `total_budget`, most recently activated first, measured
    /// by `count`; what did not fit is named. Never throws for a failing load (see `unavailable`).
    [[nodiscard]] Reattachment reattach(const ActivationStore& store, const ReattachOptions& options = {}) const;

    /// What the skills active in `store` allow of a turn's tools (their `tools` and
    /// `disallowedTools`); `own_tools` (the activation and resource tools) stay in any allow-list.
    [[nodiscard]] ToolFilter tool_filter(const ActivationStore& store, const std::vector<std::string>& own_tools) const;

    /// One read_skill_resource call from its raw JSON arguments (`{"name": ..., "path": ...}`):
    /// the text of one listed file of an active skill (read_skill_resource_text). Bad arguments or
    /// a skill that is not active give a text for the model; a refused or unreadable path throws
    /// (PathError, NotFoundError, IoError), as a tool handler does.
    [[nodiscard]] std::string read_resource(const ActivationStore& store, std::string_view arguments_json) const;

    /// The activation tool (strict; identical on every call).
    [[nodiscard]] ToolSpec tool_spec() const;
    /// The read_skill_resource tool (strict; identical on every call).
    [[nodiscard]] ToolSpec resource_tool_spec() const;
    [[nodiscard]] const SkillCatalogPtr& catalog() const noexcept { return catalog_; }
    [[nodiscard]] const SkillActivatorOptions& options() const noexcept { return options_; }
    /// Model-invocable names, in catalog order.
    [[nodiscard]] const std::vector<std::string>& invocable_names() const noexcept { return invocable_; }
    /// Whether the activation text of `skill` names its directory.
    [[nodiscard]] bool include_directory(const SkillManifest& skill) const;
    /// The reader the files of `skill` are read through (never null).
    [[nodiscard]] SkillReaderPtr reader_for(const SkillManifest& skill) const;

    /// The fixed texts.
    [[nodiscard]] std::string usage_text() const;
    [[nodiscard]] std::string already_active_text(std::string_view name) const;
    /// The unknown-name text: the name asked for and the available names, at most
    /// `max_listed_names` of them, then "and N more".
    [[nodiscard]] ActivationResult unknown(std::string_view requested) const;

private:
    [[nodiscard]] ActivationResult activate_skill(ActivationStore& store, std::string_view requested,
                                                  const SkillManifest& manifest,
                                                  const std::function<void(const LoadedSkill&)>& before_confirm) const;

    SkillCatalogPtr catalog_;
    SkillActivatorOptions options_;
    std::vector<std::string> invocable_;
    std::string prompt_block_;
};

/// The activation tool spec for `tool_name` (what SkillsShim offers).
[[nodiscard]] ToolSpec activation_tool_spec(std::string_view tool_name);
/// The read_skill_resource tool spec for `tool_name`.
[[nodiscard]] ToolSpec resource_tool_spec(std::string_view tool_name);

/// Throws ConfigurationError unless `name` is 1 to 64 of `[A-Za-z0-9_-]` (a tool name every
/// provider accepts); `what` names it in the message.
void check_tool_name(std::string_view name, std::string_view what);

/// What a host hears about a catalog when it binds it (SkillsShimOptions::on_diagnostic), in this
/// order: the catalog's diagnostics, a `skill-skipped` warning for each skipped path that has none,
/// a `prompt-budget-omitted` warning when `prompt` left skills out, and the one
/// `ignored-behavioral-fields` warning.
[[nodiscard]] Diagnostics catalog_findings(const SkillCatalog& catalog, const SkillsPrompt& prompt);

/// One warning (code `ignored-behavioral-fields`) naming every Claude-Code behavioural field that
/// `skills` use but this library does not implement, each with the skills using it; nullopt when
/// none does.
[[nodiscard]] std::optional<Diagnostic> ignored_behavioral_fields_warning(const std::vector<SkillManifest>& skills);

// ---------------------------------------------------------------------------------------
// Reading one resource of a skill (the optional read_skill_resource tool)

/// The text of one *listed* resource of `skill`, read through `reader` and confined to the skill
/// directory: a path that is not one of `skill.resources`, that is absolute, has a `..`, `~`,
/// backslash or NUL, or reaches a symlink leading out of the directory is refused. Text longer
/// than `max_bytes` is cut (at a character boundary) with a note; a file that is not UTF-8 text
/// gives a one-line note with its size and type instead. The result is model text.
[[nodiscard]] std::string read_skill_resource_text(const LoadedSkill& skill, const SkillReader& reader,
                                                   std::string_view path,
                                                   std::size_t max_bytes = DEFAULT_MAX_RESOURCE_BYTES);

}  // namespace agentskills
