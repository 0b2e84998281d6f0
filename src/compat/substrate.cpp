// The "Agent Substrate" facade: SkillPackage, SkillManager, SkillTool.
#include "agentskills/compat/substrate.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/core.h>

#include "../activation/texts.hpp"
#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"

namespace agentskills {

namespace fs = std::filesystem;
namespace texts = detail::texts;

// ---------------------------------------------------------------------------------------
// SkillPackage

namespace {

constexpr std::string_view scripts_prefix = "scripts/";
constexpr std::string_view references_prefix = "references/";

const SkillReaderPtr& local_reader() {
    static const SkillReaderPtr reader = std::make_shared<LocalSkillReader>();
    return reader;
}

}  // namespace

SkillPackage::SkillPackage(LoadedSkill skill, SkillReaderPtr reader, bool include_directory)
    : skill_(std::move(skill)), reader_(std::move(reader)), include_directory_(include_directory) {
    if (!reader_) reader_ = local_reader();
}

std::string SkillPackage::to_context_block() const {
    return render_activation_text(skill_,
                                  {.include_directory = include_directory_, .layout = ActivationLayout::section});
}

std::vector<std::string> SkillPackage::list_scripts() const {
    std::vector<std::string> out;
    for (const auto& r : skill_.resources) {
        if (r.path.size() > scripts_prefix.size() && r.path.compare(0, scripts_prefix.size(), scripts_prefix) == 0) {
            out.push_back(r.path.substr(scripts_prefix.size()));
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::optional<std::string> SkillPackage::read_reference(std::string_view path, std::size_t max_bytes) const {
    const std::string relative = confined_path(path);
    if (auto found = read_inside(std::string(references_prefix) + relative, max_bytes)) return found;
    return read_inside(relative, max_bytes);
}

std::optional<std::string> SkillPackage::read_inside(const std::string& relative, std::size_t max_bytes) const {
    try {
        return reader_->read_file_beneath(skill_.manifest.root, relative, max_bytes).data;
    } catch (const NotFoundError&) {
        return std::nullopt;  // not there (or a parent is not a directory)
    } catch (const IoError&) {
        return std::nullopt;  // not a regular file
    }
}

// ---------------------------------------------------------------------------------------
// SkillManager

SkillManager::SkillManager(SkillManagerOptions options) : options_(std::move(options)) {
    if (options_.loader && !options_.roots.empty()) {
        throw ConfigurationError("SkillManager: pass either a loader or roots, not both");
    }
    if (!options_.loader) {
        FilesystemLoaderOptions o;
        o.roots = options_.roots;
        // The default roots are the process's own (`./.agents/skills`, `~/.agents/skills`): never
        // with an injected reader, which serves its own namespace (its "." when no root is named).
        o.include_default_roots = options_.roots.empty() && !options_.reader;
        if (o.roots.empty() && options_.reader) o.roots = {"."};
        o.reader = options_.reader;
        o.name_policy = options_.name_policy;
        options_.loader = std::make_shared<FilesystemSkillLoader>(std::move(o));
    }
    if (options_.auto_discover) discover();
}

void SkillManager::discover() {
    std::shared_ptr<const Discovery> shared = options_.loader->discover_shared();
    const Discovery& d = *shared;
    if (options_.name_policy == NamePolicy::require_valid) {
        std::string problems;
        auto add = [&](const std::string& what) {
            if (!problems.empty()) problems += "; ";
            problems += model_text(what);
        };
        for (const auto& m : d.skills) {
            if (!is_valid_skill_name(m.name))
                add(fmt::format("'{}' ({}) is not a valid skill name", m.name, m.skill_file));
        }
        for (const auto& diag : d.diagnostics) {
            if (diag.severity == Severity::error && diag.code.rfind("name-", 0) == 0) add(format_diagnostic(diag));
        }
        if (!problems.empty()) {
            throw ConfigurationError(fmt::format("SkillManager (require_valid): invalid skill names: {}", problems));
        }
    }
    auto catalog = std::make_shared<const SkillCatalog>(options_.loader, std::move(shared));
    SkillActivatorOptions activator;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    activator.tool_name = options_.tool_name;
    activator.max_listed_names = options_.max_listed_names;
    activator.prompt_block = std::string();
    activator.model_invocable_only = false;
    auto core = std::make_shared<const SkillActivator>(catalog, std::move(activator));
    std::lock_guard lock(mutex_);
    activator_ = std::move(core);
}

std::vector<SkillManifest> SkillManager::skills() const {
    std::lock_guard lock(mutex_);
    return activator_ ? activator_->catalog()->skills() : std::vector<SkillManifest>{};
}

std::vector<SkippedSkill> SkillManager::skipped() const {
    std::lock_guard lock(mutex_);
    return activator_ ? activator_->catalog()->skipped() : std::vector<SkippedSkill>{};
}

const SkillManifest* SkillManager::find_locked(std::string_view name_or_alias) const {
    return activator_ ? activator_->catalog()->find(name_or_alias) : nullptr;
}

std::optional<SkillManifest> SkillManager::find(std::string_view name_or_alias) const {
    std::lock_guard lock(mutex_);
    const SkillManifest* m = find_locked(name_or_alias);
    return m ? std::optional<SkillManifest>(*m) : std::nullopt;
}

std::string SkillManager::inject_into_prompt(std::string_view base) const {
    std::shared_ptr<const SkillActivator> activator;
    {
        std::lock_guard lock(mutex_);
        activator = activator_;
    }
    std::string out(base);
    if (!activator || activator->invocable_names().empty()) return out;
    if (!out.empty()) {
        while (!out.empty() && out.back() == '\n') out.pop_back();
        out += "\n\n";
    }
    SkillsPromptOptions prompt;
    prompt.system_prompt = std::string(SKILL_TOOL_SYSTEM_PROMPT);
    prompt.tool_name = options_.tool_name;
    out += render_skills_prompt(activator->catalog()->skills(), prompt).text;
    return out;
}

SkillReaderPtr SkillManager::reader_for(const SkillManifest& manifest) const {
    if (options_.reader) return options_.reader;
    return options_.loader->reader_for(manifest.name);
}

bool SkillManager::include_directory_for(const SkillManifest& manifest) const {
    return options_.loader->in_run_workspace(manifest.name);
}

SkillPackagePtr SkillManager::activate(std::string_view name_or_alias) { return activate_once(name_or_alias).package; }

ManagerActivation SkillManager::activate_once(std::string_view name_or_alias) {
    std::string name;
    std::shared_ptr<const SkillActivator> activator;
    std::shared_ptr<MemoryActivationStore> store;
    {
        std::lock_guard lock(mutex_);
        const SkillManifest* m = find_locked(name_or_alias);
        if (m == nullptr) return {};
        name = m->name;
        activator = activator_;
        store = store_;
    }
    SkillPackagePtr created;
    // The core dedupes (one load; parallel callers wait for its outcome); the package is
    // recorded before the claim is confirmed, so whoever then sees the skill active finds it.
    ActivationResult r = activator->activate_name(*store, name, [&](const LoadedSkill& loaded) {
        SkillReaderPtr reader = reader_for(loaded.manifest);
        const bool include_directory = include_directory_for(loaded.manifest);
        created = std::make_shared<const SkillPackage>(loaded, std::move(reader), include_directory);
        std::lock_guard lock(mutex_);
        packages_[name] = created;
        active_.push_back(created);
    });
    switch (r.status) {
        case ActivationStatus::content:
            return {created, true};
        case ActivationStatus::already_active: {
            std::lock_guard lock(mutex_);
            auto it = packages_.find(name);
            return {it == packages_.end() ? nullptr : it->second, false};
        }
        case ActivationStatus::load_error:
            if (r.exception) std::rethrow_exception(r.exception);
            throw Error(r.error);
        case ActivationStatus::unknown_name:
        case ActivationStatus::invalid_arguments:
            break;
    }
    return {};
}

bool SkillManager::is_active(std::string_view name_or_alias) const {
    std::lock_guard lock(mutex_);
    const SkillManifest* m = find_locked(name_or_alias);
    const std::string name = m ? m->name : std::string(name_or_alias);
    return std::any_of(active_.begin(), active_.end(),
                       [&](const SkillPackagePtr& p) { return names_equal(p->name(), name); });
}

std::vector<SkillPackagePtr> SkillManager::active() const {
    std::lock_guard lock(mutex_);
    return active_;
}

std::vector<std::string> SkillManager::active_names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    out.reserve(active_.size());
    for (const auto& p : active_) out.push_back(p->name());
    return out;
}

std::string SkillManager::active_context_block() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const auto& p : active_) {
        if (!out.empty()) out += "\n\n";
        out += p->to_context_block();
    }
    return out;
}

void SkillManager::deactivate_all() {
    std::lock_guard lock(mutex_);
    active_.clear();
    packages_.clear();
    store_ = std::make_shared<MemoryActivationStore>();  // a fresh conversation; a load under way keeps the old one
}

// ---------------------------------------------------------------------------------------
// SkillTool

SkillTool::SkillTool(std::shared_ptr<SkillManager> manager) : manager_(std::move(manager)) {
    if (!manager_) throw ConfigurationError("SkillTool: manager is null");
}

std::string SkillTool::description() const {
    return "Work with skills (packages of task-specific instructions). Action \"list\" returns the name "
           "and description of every available skill; action \"activate\" with a skill name returns "
           "that skill's instructions.";
}

nlohmann::json SkillTool::parameters_schema() const {
    return nlohmann::json{
        {"type", "object"},
        {"properties",
         {{"action",
           {{"type", "string"},
            {"enum", {"list", "activate"}},
            {"description", "What to do: list the skills or activate one."}}},
          {"name",
           {{"type", "string"},
            {"minLength", 1},
            {"description", "The skill to activate (its name or an alias). Required for \"activate\"."}}}}},
        {"required", {"action"}},
        {"additionalProperties", false}};
}

nlohmann::json SkillTool::tool_spec() const {
    return nlohmann::json{
        {"type", "function"},
        {"function", {{"name", name()}, {"description", description()}, {"parameters", parameters_schema()}}}};
}

namespace {

std::string list_visible(const std::vector<SkillManifest>& skills) {
    std::vector<std::string> lines;
    for (const auto& m : skills) {
        if (m.model_invocable()) lines.push_back(fmt::format("{}: {}", m.name, m.description));
    }
    return texts::skill_list(lines);
}

std::vector<std::string> visible_names(const std::vector<SkillManifest>& skills) {
    std::vector<std::string> out;
    for (const auto& m : skills) {
        if (m.model_invocable()) out.push_back(m.name);
    }
    return out;
}

/// What is wrong with a call, then how the tool is called.
std::string wrong_call(const std::string& problem, const SkillManager& manager) {
    const std::vector<std::string> names = visible_names(manager.skills());
    return problem + " " +
           texts::skill_tool_usage(manager.tool_name(), names.empty() ? std::string("skill-name") : names.front());
}

}  // namespace

std::string SkillTool::execute_object(const nlohmann::json& arguments) const {
    return model_text(execute_unchecked(arguments));
}

std::string SkillTool::execute_unchecked(const nlohmann::json& arguments) const {
    auto wrong = [&](const std::string& problem) { return wrong_call(problem, *manager_); };
    if (!arguments.is_object()) return wrong(texts::arguments_not_object());
    for (const auto& item : arguments.items()) {
        if (item.key() != "action" && item.key() != "name") return wrong(texts::argument_unknown(item.key()));
    }
    auto action_it = arguments.find("action");
    if (action_it == arguments.end()) return wrong(texts::argument_missing("action"));
    if (!action_it->is_string() || action_it->get_ref<const std::string&>().empty()) {
        return wrong(texts::argument_not_text("action"));
    }
    const std::string& action = action_it->get_ref<const std::string&>();
    if (action == "list") return list_visible(manager_->skills());
    if (action != "activate") return wrong(texts::action_unknown(action));
    auto name_it = arguments.find("name");
    if (name_it == arguments.end()) return wrong(texts::argument_missing("name"));
    if (!name_it->is_string() || name_it->get_ref<const std::string&>().empty()) {
        return wrong(texts::argument_not_text("name"));
    }
    const std::string& requested = name_it->get_ref<const std::string&>();
    const std::size_t max_listed = manager_->max_listed_names();
    std::optional<SkillManifest> manifest;
    manifest = manager_->find(requested);
    if (!manifest || !manifest->model_invocable()) {
        return texts::unknown_skill(requested, visible_names(manager_->skills()), max_listed);
    }
    const ManagerActivation got = manager_->activate_once(manifest->name);
    if (!got.package) return texts::unknown_skill(requested, visible_names(manager_->skills()), max_listed);
    if (!got.first) return texts::already_active(manifest->name, texts::skill_section(manifest->name), name());
    return got.package->to_context_block();
}

std::string SkillTool::execute(std::string_view arguments_json) const {
    nlohmann::json args;
    try {
        args = nlohmann::json::parse(arguments_json);
    } catch (const nlohmann::json::exception&) {
        return wrong_call(texts::arguments_not_json(), *manager_);
    }
    return execute_object(args);
}

}  // namespace agentskills
