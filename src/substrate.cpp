// The "Agent Substrate" facade: SkillPackage, SkillManager, SkillTool.
#include "agentskills/substrate.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "agentskills/host.hpp"
#include "agentskills/names.hpp"
#include "agentskills/prompt.hpp"

namespace agentskills {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// SkillPackage

namespace {

constexpr std::string_view scripts_prefix = "scripts/";
constexpr std::string_view references_prefix = "references/";

/// Splits a relative path into components, refusing anything that could leave the directory.
std::vector<std::string> checked_components(std::string_view path) {
    auto refuse = [&](std::string_view why) { throw PathError(fmt::format("refused path '{}': {}", path, why)); };
    if (path.empty()) refuse("empty");
    if (path.find('\0') != std::string_view::npos) refuse("contains NUL");
    if (path.find('\\') != std::string_view::npos) refuse("contains a backslash");
    if (path.front() == '/') refuse("absolute paths are not allowed");
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(start, end - start);
        if (part == "..") refuse("'..' is not allowed");
        if (!part.empty() && part.front() == '~') refuse("a component starting with '~' is not allowed");
        if (part.size() >= 2 && part[1] == ':' &&
            ((part[0] >= 'A' && part[0] <= 'Z') || (part[0] >= 'a' && part[0] <= 'z'))) {
            refuse("a drive is not allowed");
        }
        if (!part.empty() && part != ".") parts.emplace_back(part);
        start = end + 1;
    }
    if (parts.empty()) refuse("names no file");
    return parts;
}

std::string join_parts(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty()) out += '/';
        out += p;
    }
    return out;
}

std::string join(std::string_view dir, std::string_view rel) {
    if (dir.empty() || dir == ".") return std::string(rel);
    std::string out(dir);
    if (out.back() != '/') out += '/';
    out.append(rel);
    return out;
}

bool is_within(const fs::path& inside, const fs::path& root) {
    auto r = root.begin();
    auto i = inside.begin();
    for (; r != root.end(); ++r, ++i) {
        if (r->empty()) continue;  // trailing separator
        if (i == inside.end() || *i != *r) return false;
    }
    return true;
}

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
    std::string out = fmt::format("## Skill: {}\n", skill_.manifest.name);
    if (!skill_.instructions.empty()) out += fmt::format("\n{}\n", skill_.instructions);
    if (include_directory_ && !skill_.manifest.root.empty()) {
        out += fmt::format("\nSkill directory: {}\n", skill_.manifest.root);
    }
    if (!skill_.resources.empty()) {
        out += "\nBundled files (relative to the skill directory):\n";
        for (const auto& r : skill_.resources) out += fmt::format("- {}\n", r.path);
    }
    out.pop_back();  // no trailing newline
    return out;
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
    const std::vector<std::string> parts = checked_components(path);
    const std::string relative = join_parts(parts);
    if (auto found = read_inside(std::string(references_prefix) + relative, max_bytes)) return found;
    return read_inside(relative, max_bytes);
}

std::optional<std::string> SkillPackage::read_inside(const std::string& relative, std::size_t max_bytes) const {
    const std::string& root = skill_.manifest.root;
    if (reader_->is_local()) {
        std::error_code ec;
        const fs::path root_real = fs::canonical(fs::path(root.empty() ? "." : root), ec);
        if (ec) return std::nullopt;  // the skill directory itself is gone
        // Walk the components so that a symlink on the way, dangling or not, is judged by
        // where it leads.
        fs::path current = root_real;
        for (const auto& part : fs::path(relative)) {
            current /= part;
            const fs::file_status st = fs::symlink_status(current, ec);
            if (ec || st.type() == fs::file_type::not_found) return std::nullopt;
            if (st.type() == fs::file_type::symlink) {
                fs::path link = fs::read_symlink(current, ec);
                if (!ec && link.is_relative()) link = current.parent_path() / link;
                const fs::path resolved = ec ? fs::path() : fs::weakly_canonical(link, ec);
                if (ec || !is_within(resolved, root_real)) {
                    throw PathError(
                        fmt::format("refused path '{}': a symlink leads outside the skill directory", relative));
                }
                current = resolved;
            }
        }
        if (!fs::exists(current, ec) || !fs::is_regular_file(current, ec)) return std::nullopt;
        try {
            return reader_->read_file(current.string(), max_bytes).data;
        } catch (const NotFoundError&) {
            return std::nullopt;
        }
    }
    // Another reader: its namespace has no symlinks we can follow, so refuse any on the way.
    std::string current = root;
    for (const auto& part : checked_components(relative)) {
        current = join(current, part);
        FileStat st;
        try {
            st = reader_->stat(current);
        } catch (const NotFoundError&) {
            return std::nullopt;
        }
        if (st.is_symlink) {
            throw PathError(fmt::format("refused path '{}': it goes through a symlink", relative));
        }
    }
    try {
        return reader_->read_file(current, max_bytes).data;
    } catch (const NotFoundError&) {
        return std::nullopt;
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
        o.include_default_roots = options_.roots.empty();
        o.reader = options_.reader;
        options_.loader = std::make_shared<FilesystemSkillLoader>(std::move(o));
    }
    if (options_.auto_discover) discover();
}

void SkillManager::discover() {
    Discovery d = options_.loader->discover();
    std::unordered_map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < d.skills.size(); ++i) index.emplace(nfkc(d.skills[i].name), i);
    for (std::size_t i = 0; i < d.skills.size(); ++i) {
        for (const auto& alias : d.skills[i].aliases) index.emplace(nfkc(alias), i);  // names win
    }
    std::lock_guard lock(mutex_);
    discovery_ = std::move(d);
    index_ = std::move(index);
}

std::vector<SkillManifest> SkillManager::skills() const {
    std::lock_guard lock(mutex_);
    return discovery_.skills;
}

std::vector<SkippedSkill> SkillManager::skipped() const {
    std::lock_guard lock(mutex_);
    return discovery_.skipped;
}

const SkillManifest* SkillManager::find_locked(std::string_view name_or_alias) const {
    auto it = index_.find(nfkc(name_or_alias));
    return it == index_.end() ? nullptr : &discovery_.skills[it->second];
}

std::optional<SkillManifest> SkillManager::find(std::string_view name_or_alias) const {
    std::lock_guard lock(mutex_);
    const SkillManifest* m = find_locked(name_or_alias);
    return m ? std::optional<SkillManifest>(*m) : std::nullopt;
}

std::string SkillManager::inject_into_prompt(std::string_view base) const {
    std::lock_guard lock(mutex_);
    std::vector<const SkillManifest*> visible;
    for (const auto& m : discovery_.skills) {
        if (m.model_invocable()) visible.push_back(&m);
    }
    std::string out(base);
    if (visible.empty()) return out;
    if (!out.empty()) {
        while (!out.empty() && out.back() == '\n') out.pop_back();
        out += "\n\n";
    }
    out += fmt::format(
        "Skills are packages of instructions for particular kinds of task. When a task matches "
        "the description of a skill listed below, call the `{0}` tool with action \"activate\" and "
        "the skill's name to receive its instructions before you start; action \"list\" shows the "
        "skills again.\n\n",
        options_.tool_name);
    out += render_available_skills(visible);
    return out;
}

SkillReaderPtr SkillManager::reader_for(const SkillManifest& manifest) const {
    if (options_.reader) return options_.reader;
    if (auto* fsl = dynamic_cast<FilesystemSkillLoader*>(options_.loader.get())) return fsl->reader();
    if (auto* combined = dynamic_cast<CombinedSkillLoader*>(options_.loader.get())) {
        return combined->reader_for(manifest.name);
    }
    return nullptr;
}

bool SkillManager::include_directory_for(const SkillManifest& manifest) const {
    if (auto* combined = dynamic_cast<CombinedSkillLoader*>(options_.loader.get())) {
        return combined->in_run_workspace(manifest.name);
    }
    return true;
}

SkillPackagePtr SkillManager::activate(std::string_view name_or_alias) {
    // Parallel activations wait here, so each body is loaded once; readers of the state only
    // take mutex_ and are not held up by a load.
    std::lock_guard activation(activation_mutex_);
    std::string name;
    {
        std::lock_guard lock(mutex_);
        const SkillManifest* m = find_locked(name_or_alias);
        if (m == nullptr) return nullptr;
        for (const auto& p : active_) {
            if (names_equal(p->name(), m->name)) return p;
        }
        name = m->name;
    }
    // Load outside mutex_: it may read files.
    LoadedSkill loaded = options_.loader->load(name);
    SkillReaderPtr reader = reader_for(loaded.manifest);
    const bool include_directory = include_directory_for(loaded.manifest);
    auto package = std::make_shared<const SkillPackage>(std::move(loaded), std::move(reader), include_directory);
    std::lock_guard lock(mutex_);
    for (const auto& p : active_) {
        if (names_equal(p->name(), package->name())) return p;  // activated meanwhile (after a discover)
    }
    active_.push_back(package);
    return package;
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
    std::string out;
    for (const auto& m : skills) {
        if (!m.model_invocable()) continue;
        out += fmt::format("\n- {}: {}", m.name, m.description);
    }
    if (out.empty()) return "No skills are available.";
    return "Available skills:" + out;
}

std::string visible_names(const std::vector<SkillManifest>& skills) {
    std::string out;
    for (const auto& m : skills) {
        if (!m.model_invocable()) continue;
        if (!out.empty()) out += ", ";
        out += m.name;
    }
    return out.empty() ? std::string("none") : out;
}

}  // namespace

std::string SkillTool::execute_object(const nlohmann::json& arguments) const {
    if (!arguments.is_object()) return "Error: the arguments must be a JSON object with an \"action\".";
    for (const auto& item : arguments.items()) {
        if (item.key() != "action" && item.key() != "name") {
            return fmt::format("Error: unknown argument \"{}\"; expected \"action\" and \"name\".", item.key());
        }
    }
    auto action_it = arguments.find("action");
    if (action_it == arguments.end() || !action_it->is_string()) {
        return "Error: \"action\" is required and must be \"list\" or \"activate\".";
    }
    const std::string action = action_it->get<std::string>();
    if (action == "list") return list_visible(manager_->skills());
    if (action != "activate") {
        return fmt::format("Error: unknown action \"{}\"; use \"list\" or \"activate\".", action);
    }
    auto name_it = arguments.find("name");
    if (name_it == arguments.end() || !name_it->is_string() || name_it->get<std::string>().empty()) {
        return "Error: action \"activate\" needs the \"name\" of a skill.";
    }
    const std::string requested = name_it->get<std::string>();
    const std::optional<SkillManifest> manifest = manager_->find(requested);
    if (!manifest || !manifest->model_invocable()) {
        return fmt::format("Unknown skill \"{}\". Available skills: {}.", requested, visible_names(manager_->skills()));
    }
    if (manager_->is_active(manifest->name)) {
        return fmt::format("The skill \"{}\" is already active; follow the instructions it returned earlier.",
                           manifest->name);
    }
    SkillPackagePtr package = manager_->activate(manifest->name);
    if (!package) {
        return fmt::format("Unknown skill \"{}\". Available skills: {}.", requested, visible_names(manager_->skills()));
    }
    return package->to_context_block();
}

std::string SkillTool::execute(std::string_view arguments_json) const {
    nlohmann::json args;
    try {
        args = nlohmann::json::parse(arguments_json);
    } catch (const nlohmann::json::exception&) {
        return "Error: the arguments are not valid JSON.";
    }
    return execute_object(args);
}

}  // namespace agentskills
