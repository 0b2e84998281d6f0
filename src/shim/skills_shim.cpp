// SkillsShim: the activator (activation.hpp) as a Shim of the harness — its block in the
// instructions, its tools on every turn, the turn's tools filtered, generations of a live catalog.
#include "agentskills/shim/skills_shim.hpp"

#include <utility>

#include <fmt/core.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/text.hpp"

namespace agentskills {

namespace detail {

/// What a binding shares with its tool handlers (one per catalog generation).
struct ShimBinding {
    std::uint64_t generation = 0;  // 0: not a live catalog's
    std::shared_ptr<const SkillActivator> activator;
    std::shared_ptr<const ShimStateActivationStore::Keys> store_keys;
    std::vector<std::string> own_tools;  // the activation tool, and the resource tool when offered

    [[nodiscard]] std::string activate(const ToolCall& call, RunState& state) const {
        ShimStateActivationStore store(state.shim_state, store_keys);
        ActivationResult r = activator->activate(store, call.arguments);
        if (r.status == ActivationStatus::load_error) {
            if (r.exception) std::rethrow_exception(r.exception);
            throw Error(r.error);
        }
        return std::move(r.text);
    }

    [[nodiscard]] std::string read_resource(const ToolCall& call, RunState& state) const {
        const ShimStateActivationStore store(state.shim_state, store_keys);
        return activator->read_resource(store, call.arguments);
    }
};

class BoundSkillsShim final : public BoundShim {
public:
    /// `owner` is the shim when it runs on generations (it must outlive this binding), else null.
    BoundSkillsShim(SkillsShim* owner, std::shared_ptr<const ShimBinding> binding, bool resource_tool)
        : owner_(owner), resource_tool_(resource_tool) {
        use(std::move(binding));
    }

    void on_run_start(RunState& state) override {
        if (owner_ == nullptr) return;
        std::shared_ptr<const ShimBinding> next = owner_->run_binding();
        if (next != binding_) {
            replace_block(state.instructions, binding_->activator->prompt_block(), next->activator->prompt_block());
            use(std::move(next));
        }
        state.shim_state.set(owner_->generation_key(), binding_->generation);
    }

    void prepare_turn(PreparedTurn& turn) override {
        RunState& state = turn.run_state();
        ShimStateActivationStore store(state.shim_state, binding_->store_keys);
        const SkillActivator& activator = *binding_->activator;
        if (!activator.invocable_names().empty()) {
            // Re-derived every turn: appended when the instructions lack it (first turn, or a host
            // that rebuilt them), not only the first time.
            (void)store.mark_prompt_delivered();
            const std::string& block = activator.prompt_block();
            if (state.instructions.find(block) == std::string::npos) turn.append_system_instruction(block);
            for (const auto& tool : tools_) turn.add_tool(tool);
        }
        const ToolFilter filter = activator.tool_filter(store, binding_->own_tools);
        for (const auto& d : filter.denied) turn.exclude_tool(d);
        if (filter.allowed) turn.restrict_tools(*filter.allowed);
    }

private:
    // The run's generation: its block, its tool handlers (they keep the binding they were made with).
    void use(std::shared_ptr<const ShimBinding> binding) {
        binding_ = std::move(binding);
        std::shared_ptr<const ShimBinding> b = binding_;
        tools_.clear();
        tools_.push_back(Tool{.spec = b->activator->tool_spec(), .handler = [b](const ToolCall& call, RunState& state) {
                                  return b->activate(call, state);
                              }});
        if (resource_tool_) {
            tools_.push_back(
                Tool{.spec = b->activator->resource_tool_spec(),
                     .handler = [b](const ToolCall& call, RunState& state) { return b->read_resource(call, state); }});
        }
    }

    // A conversation that holds the previous generation's block gets the new one in its place.
    static void replace_block(std::string& instructions, const std::string& before, const std::string& after) {
        if (before.empty() || before == after) return;
        const std::size_t pos = instructions.find(before);
        if (pos == std::string::npos) return;
        if (!after.empty()) {
            instructions.replace(pos, before.size(), after);
            return;
        }
        const bool separated = pos >= 2 && instructions.compare(pos - 2, 2, "\n\n") == 0;
        instructions.erase(separated ? pos - 2 : pos, before.size() + (separated ? 2 : 0));
    }

    SkillsShim* owner_;
    bool resource_tool_;
    std::shared_ptr<const ShimBinding> binding_;
    std::vector<Tool> tools_;
};

}  // namespace detail

SkillsShim::SkillsShim(SkillsShimOptions options) : options_(std::move(options)) {
    if (options_.loader && options_.catalog) {
        throw ConfigurationError("SkillsShim: give a loader or a catalog, not both (a catalog carries its loader)");
    }
    check_tool_name(options_.tool_name, "SkillsShim: tool name");
    if (options_.name.empty()) throw ConfigurationError("SkillsShim: the shim name must not be empty");
    if (options_.resource_tool) {
        check_tool_name(options_.resource_tool_name, "SkillsShim: resource tool name");
        if (options_.resource_tool_name == options_.tool_name) {
            throw ConfigurationError("SkillsShim: the resource tool and the activation tool need different names");
        }
    }
    check_system_prompt(options_.system_prompt);
    if (options_.live_catalog && (options_.loader || options_.catalog)) {
        throw ConfigurationError("SkillsShim: give a live catalog, a loader or a catalog, only one of them");
    }
    if (options_.catalog && options_.reload != ReloadPolicy::never) {
        throw ConfigurationError("SkillsShim: a fixed catalog cannot be reloaded (give a loader or a live catalog)");
    }
    if (!options_.loader && !options_.catalog && !options_.live_catalog) {
        options_.loader = std::make_shared<FilesystemSkillLoader>();
    }
}

SkillsShim::~SkillsShim() = default;

std::string_view SkillsShim::name() const noexcept { return options_.name; }

std::string SkillsShim::active_skill_names_key() const {
    return ShimStateActivationStore::keys_for(options_.name)->active;
}

std::string SkillsShim::prompt_appended_key() const {
    return ShimStateActivationStore::keys_for(options_.name)->prompt;
}

std::vector<std::string> SkillsShim::active_skill_names(const RunState& state) const {
    return ShimStateActivationStore::active_names(state.shim_state, options_.name);
}

ToolSpec SkillsShim::tool_spec() const { return activation_tool_spec(options_.tool_name); }

ToolSpec SkillsShim::resource_tool_spec() const { return agentskills::resource_tool_spec(options_.resource_tool_name); }

SkillsPrompt SkillsShim::render_prompt(const SkillCatalog& catalog) const {
    SkillsPromptOptions prompt;
    prompt.system_prompt = options_.system_prompt;
    prompt.tool_name = options_.tool_name;
    prompt.budget = options_.budget;
    return render_skills_prompt(catalog.skills(), prompt);
}

std::unique_ptr<BoundShim> SkillsShim::bind(const AgentDescriptor& agent) {
    std::size_t self = 0;
    for (const auto& other : agent.shims) {
        if (other.get() == this) {
            ++self;
            continue;
        }
        const auto* skills = dynamic_cast<const SkillsShim*>(other.get());
        if (skills == nullptr) continue;
        if (skills->name() == name()) {
            throw ConfigurationError(fmt::format(
                "agent '{}': two skills shims are named '{}' (their state keys would collide); give each its own name",
                agent.name, name()));
        }
        if (skills->options().tool_name == options_.tool_name ||
            (options_.resource_tool && skills->options().resource_tool &&
             skills->options().resource_tool_name == options_.resource_tool_name)) {
            throw ConfigurationError(fmt::format(
                "agent '{}': two skills shims offer a tool named '{}'; give each its own tool_name", agent.name,
                skills->options().tool_name == options_.tool_name ? options_.tool_name : options_.resource_tool_name));
        }
    }
    if (self > 1) {
        throw ConfigurationError(
            fmt::format("agent '{}' lists the skills shim '{}' {} times", agent.name, name(), self));
    }

    if (live()) {
        const LiveCatalogPtr live_catalog = ensure_live();
        return std::make_unique<detail::BoundSkillsShim>(this, binding_for(live_catalog->current()),
                                                         options_.resource_tool);
    }
    SkillCatalogPtr catalog = options_.catalog ? options_.catalog : discover_skill_catalog(options_.loader);
    return std::make_unique<detail::BoundSkillsShim>(nullptr, make_binding(std::move(catalog), 0),
                                                     options_.resource_tool);
}

std::shared_ptr<const detail::ShimBinding> SkillsShim::make_binding(SkillCatalogPtr catalog, std::uint64_t generation) {
    SkillsPrompt prompt = render_prompt(*catalog);
    if (options_.on_diagnostic) {
        for (const auto& d : catalog_findings(*catalog, prompt)) options_.on_diagnostic(d);
    }

    SkillActivatorOptions activator;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    activator.tool_name = options_.tool_name;
    activator.max_listed_names = options_.max_listed_names;
    activator.wait_timeout = options_.activation_wait_timeout;
    activator.prompt_block = std::move(prompt.text);  // the one copy: prompt_block() reads it there
    activator.on_diagnostic = options_.on_diagnostic;
    activator.resource_tool_name = options_.resource_tool_name;
    activator.resource_reader = options_.resource_reader;
    activator.max_resource_bytes = options_.max_resource_bytes;
    auto binding = std::make_shared<detail::ShimBinding>();
    binding->generation = generation;
    binding->activator = std::make_shared<const SkillActivator>(catalog, std::move(activator));
    binding->store_keys = ShimStateActivationStore::keys_for(options_.name);
    binding->own_tools.push_back(options_.tool_name);
    if (options_.resource_tool) binding->own_tools.push_back(options_.resource_tool_name);
    std::lock_guard lock(mutex_);
    if (!last_binding_ || generation == 0 || generation >= last_binding_->generation) {
        last_catalog_ = catalog;
        last_omitted_ = std::move(prompt.omitted);  // (read above, for the findings, and not again)
        last_binding_ = binding;
    }
    return binding;
}

LiveCatalogPtr SkillsShim::ensure_live() {
    std::lock_guard lock(mutex_);
    if (live_) return live_;
    if (options_.live_catalog) {
        live_ = options_.live_catalog;
    } else {
        live_ =
            std::make_shared<LiveCatalog>(options_.loader, LiveCatalogOptions{.on_change = options_.on_catalog_change,
                                                                              .on_diagnostic = options_.on_diagnostic,
                                                                              .compare_by_value = false});
    }
    if (options_.reload == ReloadPolicy::watch && !live_->watching()) live_->start_watching(options_.watch);
    return live_;
}

std::shared_ptr<const detail::ShimBinding> SkillsShim::binding_for(const CatalogGenerationPtr& generation) {
    {
        std::lock_guard lock(mutex_);
        if (last_binding_ && last_binding_->generation == generation->number) return last_binding_;
    }
    return make_binding(generation->catalog, generation->number);
}

std::shared_ptr<const detail::ShimBinding> SkillsShim::run_binding() {
    const LiveCatalogPtr live_catalog = ensure_live();
    if (options_.reload == ReloadPolicy::every_run) {
        try {
            (void)live_catalog->refresh();
        } catch (const std::exception& e) {
            if (options_.on_diagnostic) {
                options_.on_diagnostic(Diagnostic{
                    .code = std::string(codes::refresh_failed),
                    .severity = Severity::error,
                    .path = {},
                    .line = 0,
                    .message = fmt::format("refreshing the skills catalog failed: {}", model_text(e.what()))});
            }
        }
    }
    return binding_for(live_catalog->current());
}

LiveCatalogPtr SkillsShim::live_catalog() const {
    if (options_.live_catalog) return options_.live_catalog;
    std::lock_guard lock(mutex_);
    return live_;
}

std::optional<CatalogChangeSet> SkillsShim::refresh() {
    if (!live()) throw ConfigurationError("SkillsShim: refresh needs a live catalog (set reload or live_catalog)");
    return ensure_live()->refresh();
}

std::string SkillsShim::generation_key() const { return options_.name + ":catalog-generation"; }

Reattachment SkillsShim::reattach(RunState& state, const ReattachOptions& options) const {
    std::shared_ptr<const detail::ShimBinding> binding;
    {
        std::lock_guard lock(mutex_);
        binding = last_binding_;
    }
    if (!binding) return {};
    const ShimStateActivationStore store(state.shim_state, options_.name);
    return binding->activator->reattach(store, options);
}

std::string SkillsShim::prompt_block() const {
    std::lock_guard lock(mutex_);
    return last_binding_ ? last_binding_->activator->prompt_block() : std::string();
}

SkillCatalogPtr SkillsShim::catalog() const {
    if (options_.catalog) return options_.catalog;
    std::lock_guard lock(mutex_);
    return last_catalog_;
}

std::vector<std::string> SkillsShim::omitted_skill_names() const {
    std::lock_guard lock(mutex_);
    return last_omitted_;
}

}  // namespace agentskills
