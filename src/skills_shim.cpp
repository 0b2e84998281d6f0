#include "agentskills/skills_shim.hpp"

#include <algorithm>
#include <numeric>
#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "agentskills/prompt.hpp"

namespace agentskills {

using nlohmann::json;

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

std::string omitted_line(std::size_t n) {
    if (n == 1) return "1 more skill is not listed here, to keep this list within its size budget.";
    return fmt::format("{} more skills are not listed here, to keep this list within its size budget.", n);
}

ToolSpec make_tool_spec(const std::string& tool_name) {
    json parameters = {
        {"type", "object"},
        {"properties",
         {{"name",
           {{"type", "string"},
            {"minLength", 1},
            {"description", "The skill's name, exactly as it appears in <available_skills>."}}}}},
        {"required", json::array({"name"})},
        {"additionalProperties", false},
    };
    return ToolSpec{
        .name = tool_name,
        .description =
            "Activate one of the skills listed in <available_skills>: returns its full instructions "
            "and the files bundled with it. Call it before working on a task that matches the "
            "skill's description.",
        .parameters = std::move(parameters),
        .strict = true,
    };
}

/// What a binding shares with its tool handler.
struct Binding {
    SkillCatalogPtr catalog;
    std::string tool_name;
    std::string active_key;
    std::size_t max_listed_names = 20;
    std::vector<std::string> invocable;  // model-invocable names, catalog order

    [[nodiscard]] std::string unknown_result(std::string_view requested) const {
        std::string list;
        std::size_t shown = std::min(invocable.size(), max_listed_names);
        for (std::size_t i = 0; i < shown; ++i) {
            if (i > 0) list += ", ";
            list += invocable[i];
        }
        if (invocable.size() > shown) {
            list += fmt::format("{}and {} more", shown > 0 ? ", " : "", invocable.size() - shown);
        }
        return fmt::format("There is no skill named \"{}\". Available skills: {}.", requested, list);
    }

    [[nodiscard]] std::string already_active_result(std::string_view name) const {
        return fmt::format(
            "The skill \"{0}\" is already active: its instructions are in the <skill_content name=\"{0}\"> block "
            "that an earlier {1} call returned in this conversation. Keep following that block; do not call {1} "
            "for this skill again.",
            name, tool_name);
    }

    [[nodiscard]] std::string activate(const ToolCall& call, RunState& state) const {
        json args = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
        if (args.is_discarded() || !args.is_object() || !args.contains("name") || !args["name"].is_string() ||
            args["name"].get_ref<const std::string&>().empty()) {
            return fmt::format(
                "The {} tool takes one argument, \"name\": the name of a skill from <available_skills>, for "
                "example {{\"name\": \"{}\"}}.",
                tool_name, invocable.empty() ? std::string("skill-name") : invocable.front());
        }
        const std::string& requested = args["name"].get_ref<const std::string&>();
        const SkillManifest* manifest = catalog->get(requested);
        if (manifest == nullptr || !manifest->model_invocable()) return unknown_result(requested);
        if (!state.shim_state.append_if_unique(active_key, manifest->name)) {
            return already_active_result(manifest->name);
        }
        try {
            const bool reachable = !catalog->loader() || catalog->loader()->in_run_workspace(manifest->name);
            return render_skill_content(catalog->load(manifest->name), {.include_directory = reachable});
        } catch (...) {
            // Not active after all: a later call may try again.
            (void)state.shim_state.remove_value(active_key, manifest->name);
            throw;
        }
    }
};

class BoundSkillsShim final : public BoundShim {
public:
    BoundSkillsShim(std::shared_ptr<const Binding> binding, std::string block, std::string prompt_key, ToolSpec spec)
        : binding_(std::move(binding)), block_(std::move(block)), prompt_key_(std::move(prompt_key)) {
        std::shared_ptr<const Binding> b = binding_;
        tool_ = Tool{.spec = std::move(spec),
                     .handler = [b](const ToolCall& call, RunState& state) { return b->activate(call, state); }};
    }

    void prepare_turn(PreparedTurn& turn) override {
        RunState& state = turn.run_state();
        if (!binding_->invocable.empty()) {
            if (state.shim_state.set_if_absent(prompt_key_, true)) turn.append_system_instruction(block_);
            turn.add_tool(tool_);
        }
        apply_tool_filters(turn);
    }

private:
    void apply_tool_filters(PreparedTurn& turn) const {
        json active = turn.run_state().shim_state.get(binding_->active_key);
        if (!active.is_array() || active.empty()) return;
        bool any_allow_list = false;
        std::vector<std::string> allowed;
        for (const auto& n : active) {
            if (!n.is_string()) continue;
            const SkillManifest* m = binding_->catalog->get(n.get_ref<const std::string&>());
            if (m == nullptr) continue;
            for (const auto& denied : m->disallowed_tools) turn.exclude_tool(denied);
            if (m->tools) {
                any_allow_list = true;
                for (const auto& t : *m->tools) {
                    if (std::find(allowed.begin(), allowed.end(), t) == allowed.end()) allowed.push_back(t);
                }
            }
        }
        if (any_allow_list) turn.restrict_tools(allowed);
    }

    std::shared_ptr<const Binding> binding_;
    std::string block_;
    std::string prompt_key_;
    Tool tool_;
};

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
    if (const auto* tpl = std::get_if<std::string>(&options_.system_prompt)) {
        (void)expand_template(*tpl, nullptr);
    } else if (!std::get<SystemPromptCallback>(options_.system_prompt)) {
        throw ConfigurationError("SkillsShim: the system prompt callback is empty");
    }
    if (!options_.loader && !options_.catalog) {
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
        if (!out.omitted.empty()) skills_text += "\n" + omitted_line(out.omitted.size());
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

std::unique_ptr<BoundShim> SkillsShim::bind(const AgentDescriptor& /*agent*/) {
    SkillCatalogPtr catalog = options_.catalog ? options_.catalog : discover_skill_catalog(options_.loader);
    SkillsPrompt prompt = render_prompt(*catalog);

    auto binding = std::make_shared<Binding>();
    binding->catalog = catalog;
    binding->tool_name = options_.tool_name;
    binding->active_key = active_skill_names_key();
    binding->max_listed_names = options_.max_listed_names;
    for (const auto& m : *catalog) {
        if (m.model_invocable()) binding->invocable.push_back(m.name);
    }
    {
        std::lock_guard lock(mutex_);
        last_catalog_ = catalog;
        last_omitted_ = prompt.omitted;
    }
    return std::make_unique<BoundSkillsShim>(std::move(binding), std::move(prompt.text), prompt_appended_key(),
                                             tool_spec());
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
