#include "agentskills/skills_shim.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "agentskills/activation.hpp"
#include "agentskills/diagnostic_codes.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/host.hpp"
#include "agentskills/prompt.hpp"
#include "agentskills/text.hpp"
#include "model_texts.hpp"

namespace agentskills {

using nlohmann::json;
namespace texts = detail::texts;

namespace {

std::size_t count_code_points(std::string_view text) noexcept {
    std::size_t n = 0;
    for (char c : text) {
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    }
    return n;
}

bool valid_tool_name(std::string_view name) noexcept {
    if (name.empty() || name.size() > 64) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
}

struct PlaceholderValues {
    std::string_view tool_name;
    std::string_view skills;
    std::string skill_count;
    std::string omitted_count;
};

/// Expands `{tool_name}`, `{skills}`, `{skill_count}`, `{omitted_count}`, `{{` and `}}`.
/// With `values == nullptr` it only checks the template (throws ConfigurationError).
std::string expand_template(std::string_view tpl, const PlaceholderValues* values) {
    std::string out;
    std::size_t i = 0;
    while (i < tpl.size()) {
        char c = tpl[i];
        if (c == '{' && i + 1 < tpl.size() && tpl[i + 1] == '{') {
            out += '{';
            i += 2;
        } else if (c == '}' && i + 1 < tpl.size() && tpl[i + 1] == '}') {
            out += '}';
            i += 2;
        } else if (c == '{') {
            std::size_t close = tpl.find('}', i);
            if (close == std::string_view::npos) {
                throw ConfigurationError("skills system prompt: unclosed '{' (write '{{' for a literal brace)");
            }
            std::string_view key = tpl.substr(i + 1, close - i - 1);
            if (key == "tool_name") {
                if (values) out += values->tool_name;
            } else if (key == "skills") {
                if (values) out += values->skills;
            } else if (key == "skill_count") {
                if (values) out += values->skill_count;
            } else if (key == "omitted_count") {
                if (values) out += values->omitted_count;
            } else {
                throw ConfigurationError(fmt::format(
                    "skills system prompt: unknown placeholder '{{{}}}' (known: tool_name, skills, skill_count, "
                    "omitted_count)",
                    key));
            }
            i = close + 1;
        } else if (c == '}') {
            throw ConfigurationError("skills system prompt: stray '}' (write '}}' for a literal brace)");
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

ToolSpec make_tool_spec(const std::string& tool_name) { return activation_tool_spec(tool_name); }

ToolSpec make_resource_tool_spec(const std::string& tool_name) {
    json parameters = {
        {"type", "object"},
        {"properties",
         {{"name", {{"type", "string"}, {"minLength", 1}, {"description", "The name of an active skill."}}},
          {"path",
           {{"type", "string"},
            {"minLength", 1},
            {"description", "A file path as the skill's <skill_resources> lists it (relative to the skill)."}}}}},
        {"required", json::array({"name", "path"})},
        {"additionalProperties", false},
    };
    return ToolSpec{
        .name = tool_name,
        .description =
            "Read one of the files listed in the <skill_resources> of a skill you activated: returns "
            "the file's text.",
        .parameters = std::move(parameters),
        .strict = true,
    };
}

/// The reader a skill's files are read through.
SkillReaderPtr reader_for(const SkillCatalog& catalog, const SkillReaderPtr& configured, const std::string& name) {
    if (configured) return configured;
    if (const SkillLoaderPtr& loader = catalog.loader()) {
        if (SkillReaderPtr r = loader->reader_for(name)) return r;
    }
    static const SkillReaderPtr local = std::make_shared<LocalSkillReader>();
    return local;
}

}  // namespace

namespace detail {

/// What a binding shares with its tool handlers (one per catalog generation).
struct ShimBinding {
    std::uint64_t generation = 0;  // 0: not a live catalog's
    std::shared_ptr<const SkillActivator> activator;
    std::string shim_name;
    std::shared_ptr<const ShimStateActivationStore::Keys> store_keys;  // of shim_name
    std::string tool_name;
    std::string resource_tool_name;
    std::size_t max_resource_bytes = 0;
    SkillReaderPtr resource_reader;

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
        const json args = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
        std::string problem;
        // The string argument `key`, or nullptr with `problem` saying what is wrong.
        auto text_argument = [&](const char* key) -> const std::string* {
            if (!problem.empty()) return nullptr;
            if (args.is_discarded()) {
                problem = texts::arguments_not_json();
            } else if (!args.is_object()) {
                problem = texts::arguments_not_object();
            } else if (auto it = args.find(key); it == args.end()) {
                problem = texts::argument_missing(key);
            } else if (!it->is_string() || it->get_ref<const std::string&>().empty()) {
                problem = texts::argument_not_text(key);
            } else {
                return &it->get_ref<const std::string&>();
            }
            return nullptr;
        };
        const std::string* name = text_argument("name");
        const std::string* path = text_argument("path");
        if (name == nullptr || path == nullptr) return problem + " " + texts::resource_usage(resource_tool_name);
        const SkillCatalog& catalog = *activator->catalog();
        const SkillManifest* manifest = name->size() > ACTIVATION_MAX_NAME_BYTES ? nullptr : catalog.get(*name);
        ShimStateActivationStore store(state.shim_state, store_keys);
        if (manifest == nullptr || !store.is_active(manifest->name)) return texts::not_active(*name, tool_name);
        const LoadedSkill skill = catalog.load(manifest->name);
        return read_skill_resource_text(skill, *reader_for(catalog, resource_reader, manifest->name), *path,
                                        max_resource_bytes);
    }
};

class BoundSkillsShim final : public BoundShim {
public:
    /// `owner` is the shim when it runs on generations (it must outlive this binding), else null.
    BoundSkillsShim(SkillsShim* owner, std::shared_ptr<const ShimBinding> binding, ToolSpec spec,
                    std::optional<ToolSpec> resource_spec)
        : owner_(owner), spec_(std::move(spec)), resource_spec_(std::move(resource_spec)) {
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
        const std::string& block = binding_->activator->prompt_block();
        if (!binding_->activator->invocable_names().empty()) {
            // Re-derived every turn: appended when the instructions lack it (first turn, or a host
            // that rebuilt them), not only the first time.
            (void)store.mark_prompt_delivered();
            if (state.instructions.find(block) == std::string::npos) turn.append_system_instruction(block);
            turn.add_tool(tool_);
            if (resource_tool_) turn.add_tool(*resource_tool_);
        }
        apply_tool_filters(turn, store);
    }

private:
    void apply_tool_filters(PreparedTurn& turn, const ShimStateActivationStore& store) const {
        const std::vector<std::string> active = store.active_names();
        if (active.empty()) return;
        const SkillCatalog& catalog = *binding_->activator->catalog();
        bool any_allow_list = false;
        std::unordered_set<std::string> denied;
        std::unordered_set<std::string> allowed;
        for (const auto& n : active) {
            const SkillManifest* m = catalog.get(n);
            if (m == nullptr) continue;
            denied.insert(m->disallowed_tools.begin(), m->disallowed_tools.end());
            if (m->tools) {
                any_allow_list = true;
                allowed.insert(m->tools->begin(), m->tools->end());
            }
        }
        for (const auto& d : denied) turn.exclude_tool(d);
        if (any_allow_list) {
            // The skills' own tools are never narrowed away by a `tools` list: only an explicit
            // `disallowedTools` entry hides them (otherwise no later skill could be activated).
            allowed.insert(binding_->tool_name);
            if (resource_tool_) allowed.insert(binding_->resource_tool_name);
            turn.restrict_tools(std::vector<std::string>(allowed.begin(), allowed.end()));
        }
    }

    // The run's generation: its block, its tool handlers (they keep the binding they were made with).
    void use(std::shared_ptr<const ShimBinding> binding) {
        binding_ = std::move(binding);
        std::shared_ptr<const ShimBinding> b = binding_;
        tool_ = Tool{.spec = spec_,
                     .handler = [b](const ToolCall& call, RunState& state) { return b->activate(call, state); }};
        if (resource_spec_) {
            resource_tool_ = Tool{.spec = *resource_spec_, .handler = [b](const ToolCall& call, RunState& state) {
                                      return b->read_resource(call, state);
                                  }};
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
    ToolSpec spec_;
    std::optional<ToolSpec> resource_spec_;
    std::shared_ptr<const ShimBinding> binding_;
    Tool tool_;
    std::optional<Tool> resource_tool_;
};

}  // namespace detail

namespace {

void report_bind_diagnostics(const SkillCatalog& catalog, const SkillsPrompt& prompt,
                             const std::function<void(const Diagnostic&)>& report) {
    std::unordered_set<std::string> paths_with_diagnostic;
    for (const auto& d : catalog.diagnostics()) {
        paths_with_diagnostic.insert(d.path);
        report(d);
    }
    for (const auto& s : catalog.skipped()) {
        if (paths_with_diagnostic.count(s.path) != 0) continue;
        report(Diagnostic{.code = std::string(codes::skill_skipped),
                          .severity = Severity::warning,
                          .path = s.path,
                          .line = 0,
                          .message = s.message});
    }
    if (!prompt.omitted.empty()) {
        std::string names;
        for (const auto& n : prompt.omitted) {
            if (!names.empty()) names += ", ";
            names += model_text(n);
        }
        report(Diagnostic{.code = std::string(codes::prompt_budget_omitted),
                          .severity = Severity::warning,
                          .path = {},
                          .line = 0,
                          .message = fmt::format("the catalog budget left {} skill(s) out of the system prompt: {}",
                                                 prompt.omitted.size(), names)});
    }
    if (auto w = ignored_behavioral_fields_warning(catalog.skills())) report(*w);
}

}  // namespace

SkillsShim::SkillsShim(SkillsShimOptions options) : options_(std::move(options)) {
    if (options_.loader && options_.catalog) {
        throw ConfigurationError("SkillsShim: give a loader or a catalog, not both (a catalog carries its loader)");
    }
    if (!valid_tool_name(options_.tool_name)) {
        throw ConfigurationError(
            fmt::format("SkillsShim: tool name '{}' must be 1 to 64 letters, digits, '_' or '-'", options_.tool_name));
    }
    if (options_.name.empty()) throw ConfigurationError("SkillsShim: the shim name must not be empty");
    if (options_.resource_tool) {
        if (!valid_tool_name(options_.resource_tool_name)) {
            throw ConfigurationError(
                fmt::format("SkillsShim: resource tool name '{}' must be 1 to 64 letters, digits, "
                            "'_' or '-'",
                            options_.resource_tool_name));
        }
        if (options_.resource_tool_name == options_.tool_name) {
            throw ConfigurationError("SkillsShim: the resource tool and the activation tool need different names");
        }
    }
    if (const auto* tpl = std::get_if<std::string>(&options_.system_prompt)) {
        (void)expand_template(*tpl, nullptr);
    } else if (!std::get<SystemPromptCallback>(options_.system_prompt)) {
        throw ConfigurationError("SkillsShim: the system prompt callback is empty");
    }
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
    return options_.name + std::string(ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX);
}

std::string SkillsShim::prompt_appended_key() const { return options_.name + ":system-prompt-appended"; }

std::vector<std::string> SkillsShim::active_skill_names(const RunState& state) const {
    std::vector<std::string> out;
    json value = state.shim_state.get(active_skill_names_key());
    if (!value.is_array()) return out;
    for (const auto& n : value) {
        if (n.is_string()) out.push_back(n.get<std::string>());
    }
    return out;
}

ToolSpec SkillsShim::tool_spec() const { return make_tool_spec(options_.tool_name); }

SkillsPrompt SkillsShim::render_prompt(const SkillCatalog& catalog) const {
    std::vector<const SkillManifest*> invocable;
    for (const auto& m : catalog) {
        if (m.model_invocable()) invocable.push_back(&m);
    }
    SkillsPrompt result;
    if (invocable.empty()) return result;
    const std::size_t n = invocable.size();
    const CatalogBudget& budget = options_.budget;
    auto measure = [&](std::string_view text) { return budget.count ? budget.count(text) : count_code_points(text); };

    // rank[i] = catalog position of the i-th most important entry.
    std::vector<std::size_t> rank(n);
    std::iota(rank.begin(), rank.end(), std::size_t{0});
    if (budget.priority) {
        std::vector<int> prio(n);
        for (std::size_t i = 0; i < n; ++i) prio[i] = budget.priority(*invocable[i]);
        std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return prio[a] > prio[b]; });
    }

    // Step k of degradation: the min(k, n) least important entries lose their description,
    // the max(0, k - n) least important are left out.
    enum class Fate { full, bare, omitted };
    std::vector<Fate> fate(n);
    auto render = [&](std::size_t k, SkillsPrompt& out) {
        std::fill(fate.begin(), fate.end(), Fate::full);
        for (std::size_t j = 0; j < std::min(k, n); ++j) fate[rank[n - 1 - j]] = Fate::bare;
        for (std::size_t j = 0; k > n && j < k - n; ++j) fate[rank[n - 1 - j]] = Fate::omitted;
        std::vector<CatalogEntry> entries;
        out.listed.clear();
        out.without_description.clear();
        out.omitted.clear();
        for (std::size_t i = 0; i < n; ++i) {
            if (fate[i] == Fate::omitted) {
                out.omitted.push_back(invocable[i]->name);
                continue;
            }
            entries.push_back({.manifest = invocable[i], .include_description = fate[i] == Fate::full});
            out.listed.push_back(invocable[i]->name);
            if (fate[i] == Fate::bare) out.without_description.push_back(invocable[i]->name);
        }
        std::string catalog_text = render_available_skills(entries);
        std::string skills_text = catalog_text;
        if (!out.omitted.empty()) skills_text += "\n" + texts::skills_not_listed(out.omitted.size());
        if (const auto* tpl = std::get_if<std::string>(&options_.system_prompt)) {
            PlaceholderValues values{.tool_name = options_.tool_name,
                                     .skills = skills_text,
                                     .skill_count = std::to_string(out.listed.size()),
                                     .omitted_count = std::to_string(out.omitted.size())};
            out.text = expand_template(*tpl, &values);
        } else {
            SkillsPromptContext ctx{.tool_name = options_.tool_name,
                                    .skills = skills_text,
                                    .catalog = catalog_text,
                                    .skill_count = out.listed.size(),
                                    .omitted_count = out.omitted.size()};
            out.text = std::get<SystemPromptCallback>(options_.system_prompt)(ctx);
        }
        out.size = measure(out.text);
        return budget.limit == 0 || out.size <= budget.limit;
    };

    if (render(0, result)) return result;
    // Find a small k whose block fits; `hi` always fits (or is the last step).
    std::size_t lo = 0;
    std::size_t hi = 2 * n;
    SkillsPrompt candidate;
    if (!render(hi, candidate)) return candidate;  // even an empty listing is over budget
    while (hi - lo > 1) {
        std::size_t mid = lo + (hi - lo) / 2;
        if (render(mid, candidate)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    (void)render(hi, result);
    return result;
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
        return std::make_unique<detail::BoundSkillsShim>(
            this, binding_for(live_catalog->current()), tool_spec(),
            options_.resource_tool ? std::optional<ToolSpec>(resource_tool_spec()) : std::nullopt);
    }
    SkillCatalogPtr catalog = options_.catalog ? options_.catalog : discover_skill_catalog(options_.loader);
    return std::make_unique<detail::BoundSkillsShim>(
        nullptr, make_binding(std::move(catalog), 0), tool_spec(),
        options_.resource_tool ? std::optional<ToolSpec>(resource_tool_spec()) : std::nullopt);
}

std::shared_ptr<const detail::ShimBinding> SkillsShim::make_binding(SkillCatalogPtr catalog, std::uint64_t generation) {
    SkillsPrompt prompt = render_prompt(*catalog);
    if (options_.on_diagnostic) report_bind_diagnostics(*catalog, prompt, options_.on_diagnostic);

    auto binding = std::make_shared<detail::ShimBinding>();
    binding->generation = generation;
    binding->activator = std::make_shared<const SkillActivator>(
        catalog, SkillActivatorOptions{.tool_name = options_.tool_name,
                                       .max_listed_names = options_.max_listed_names,
                                       .wait_timeout = options_.activation_wait_timeout,
                                       .prompt_block = prompt.text,
                                       .on_diagnostic = options_.on_diagnostic});
    binding->shim_name = options_.name;
    binding->store_keys = ShimStateActivationStore::keys_for(options_.name);
    binding->tool_name = options_.tool_name;
    binding->resource_tool_name = options_.resource_tool_name;
    binding->max_resource_bytes = options_.max_resource_bytes;
    binding->resource_reader = options_.resource_reader;
    std::lock_guard lock(mutex_);
    if (!last_binding_ || generation == 0 || generation >= last_binding_->generation) {
        last_catalog_ = catalog;
        last_omitted_ = prompt.omitted;
        last_block_ = prompt.text;
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

ToolSpec SkillsShim::resource_tool_spec() const { return make_resource_tool_spec(options_.resource_tool_name); }

std::string SkillsShim::prompt_block() const {
    std::lock_guard lock(mutex_);
    return last_block_;
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
