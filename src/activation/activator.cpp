// The activation core: SkillActivator, over one catalog (activation.hpp).
#include "agentskills/activation/activation.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "texts.hpp"

namespace agentskills {

using nlohmann::json;
namespace texts = detail::texts;

// ---------------------------------------------------------------------------------------
// SkillActivator

std::string_view to_string(ActivationStatus status) noexcept {
    switch (status) {
        case ActivationStatus::content:
            return "content";
        case ActivationStatus::already_active:
            return "already-active";
        case ActivationStatus::unknown_name:
            return "unknown-name";
        case ActivationStatus::invalid_arguments:
            return "invalid-arguments";
        case ActivationStatus::load_error:
            return "load-error";
    }
    return "invalid-arguments";
}

ToolSpec activation_tool_spec(std::string_view tool_name) {
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
        .name = std::string(tool_name),
        .description =
            "Activate one of the skills listed in <available_skills>: returns its full instructions "
            "and the files bundled with it. Call it before working on a task that matches the "
            "skill's description.",
        .parameters = std::move(parameters),
        .strict = true,
    };
}

ToolSpec resource_tool_spec(std::string_view tool_name) {
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
        .name = std::string(tool_name),
        .description =
            "Read one of the files listed in the <skill_resources> of a skill you activated: returns "
            "the file's text.",
        .parameters = std::move(parameters),
        .strict = true,
    };
}

void check_tool_name(std::string_view name, std::string_view what) {
    const bool ok = !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    });
    if (!ok) {
        throw ConfigurationError(
            fmt::format("{} '{}' must be 1 to 64 letters, digits, '_' or '-'", what, model_text(name)));
    }
}

bool ToolFilter::keeps(std::string_view tool) const {
    if (std::binary_search(denied.begin(), denied.end(), tool)) return false;
    return !allowed || std::binary_search(allowed->begin(), allowed->end(), tool);
}

SkillActivator::SkillActivator(SkillCatalogPtr catalog, SkillActivatorOptions options)
    : catalog_(std::move(catalog)), options_(std::move(options)) {
    if (!catalog_) throw ConfigurationError("SkillActivator: the catalog is null");
    for (const auto& m : *catalog_) {
        if (m.model_invocable()) invocable_.push_back(m.name);
    }
    if (options_.prompt_block) return;  // prompt_block() serves it from options_ (not a second copy)
    check_system_prompt(options_.system_prompt);
    if (!invocable_.empty()) {
        SkillsPromptOptions prompt;
        prompt.system_prompt = options_.system_prompt;
        prompt.tool_name = options_.tool_name;
        prompt_block_ = render_skills_prompt(catalog_->skills(), prompt).text;
    }
}

const SkillManifest* SkillActivator::find(std::string_view name_or_alias) const {
    const SkillManifest* manifest = catalog_->find(name_or_alias);
    if (manifest == nullptr || (options_.model_invocable_only && !manifest->model_invocable())) return nullptr;
    return manifest;
}

bool SkillActivator::include_directory(const SkillManifest& skill) const {
    if (options_.include_directory) return *options_.include_directory;
    return !catalog_->loader() || catalog_->loader()->in_run_workspace(skill.name);
}

SkillReaderPtr SkillActivator::reader_for(const SkillManifest& skill) const {
    if (options_.resource_reader) return options_.resource_reader;
    if (const SkillLoaderPtr& loader = catalog_->loader()) {
        if (SkillReaderPtr r = loader->reader_for(skill.name)) return r;
    }
    static const SkillReaderPtr local = std::make_shared<LocalSkillReader>();
    return local;
}

ToolFilter SkillActivator::tool_filter(const ActivationStore& store, const std::vector<std::string>& own_tools) const {
    ToolFilter filter;
    const std::vector<std::string> active = store.active_names();
    if (active.empty()) return filter;
    std::set<std::string, std::less<>> denied;
    std::set<std::string, std::less<>> allowed;
    bool any_allow_list = false;
    for (const auto& n : active) {
        const SkillManifest* m = catalog_->find(n);
        if (m == nullptr) continue;
        denied.insert(m->disallowed_tools.begin(), m->disallowed_tools.end());
        if (m->tools) {
            any_allow_list = true;
            allowed.insert(m->tools->begin(), m->tools->end());
        }
    }
    filter.denied.assign(denied.begin(), denied.end());
    if (any_allow_list) {
        // The skills' own tools are never narrowed away by a `tools` list: only an explicit
        // `disallowedTools` entry hides them (otherwise no later skill could be activated).
        allowed.insert(own_tools.begin(), own_tools.end());
        filter.allowed.emplace(allowed.begin(), allowed.end());
    }
    return filter;
}

std::string SkillActivator::read_resource(const ActivationStore& store, std::string_view arguments_json) const {
    const json args = json::parse(arguments_json, nullptr, /*allow_exceptions=*/false);
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
    if (name == nullptr || path == nullptr) return problem + " " + texts::resource_usage(options_.resource_tool_name);
    const SkillManifest* manifest = find(*name);
    if (manifest == nullptr || !store.is_active(manifest->name)) return texts::not_active(*name, options_.tool_name);
    const LoadedSkill skill = catalog_->load(*manifest);
    return read_skill_resource_text(skill, *reader_for(*manifest), *path, options_.max_resource_bytes);
}

ToolSpec SkillActivator::tool_spec() const { return activation_tool_spec(options_.tool_name); }

ToolSpec SkillActivator::resource_tool_spec() const {
    return agentskills::resource_tool_spec(options_.resource_tool_name);
}

std::string SkillActivator::usage_text() const {
    return texts::activation_usage(options_.tool_name,
                                   invocable_.empty() ? std::string_view("skill-name") : invocable_.front());
}

std::string SkillActivator::already_active_text(std::string_view name) const {
    return texts::already_active(name, texts::skill_content_block(name), options_.tool_name);
}

ActivationResult SkillActivator::unknown(std::string_view requested) const {
    ActivationResult r;
    r.status = ActivationStatus::unknown_name;
    r.text = texts::unknown_skill(requested, invocable_, options_.max_listed_names);
    r.requested = texts::shown(requested);
    const std::size_t listed = std::min(invocable_.size(), options_.max_listed_names);
    for (std::size_t i = 0; i < listed; ++i) r.available.push_back(model_text(invocable_[i]));
    r.more_available = invocable_.size() - listed;
    return r;
}

namespace {

// What `activate` needs of its arguments, read by nlohmann's SAX parser so that no JSON tree is
// built: whether the text is one JSON value (the same grammar as json::parse), whether that is
// an object, and its `name` member (the last one when the key repeats, as json::parse keeps).
class ArgumentsReader final : public nlohmann::json_sax<json> {
public:
    enum class Name { missing, text, other };
    bool root_object = false;
    Name name_kind = Name::missing;
    std::string name;

    bool null() override { return value(Name::other); }
    bool boolean(bool /*v*/) override { return value(Name::other); }
    bool number_integer(number_integer_t /*v*/) override { return value(Name::other); }
    bool number_unsigned(number_unsigned_t /*v*/) override { return value(Name::other); }
    bool number_float(number_float_t /*v*/, const string_t& /*s*/) override { return value(Name::other); }
    bool string(string_t& v) override {
        if (depth_ == 1 && at_name_) name = std::move(v);
        return value(Name::text);
    }
    bool binary(binary_t& /*v*/) override { return value(Name::other); }
    bool start_object(std::size_t /*n*/) override { return open(true); }
    bool start_array(std::size_t /*n*/) override { return open(false); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        if (depth_ == 1) at_name_ = k == "name";
        return true;
    }
    bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                     const nlohmann::detail::exception& /*e*/) override {
        return false;
    }

private:
    bool value(Name kind) {
        if (depth_ == 1 && at_name_) name_kind = kind;
        return true;
    }
    bool open(bool object) {
        if (depth_ == 0) root_object = object;
        value(Name::other);
        ++depth_;
        return true;
    }
    bool close() {
        --depth_;
        if (depth_ == 1) at_name_ = false;
        return true;
    }
    std::size_t depth_ = 0;
    bool at_name_ = false;  // the member being read is the root object's `name`
};

}  // namespace

ActivationResult SkillActivator::activate(ActivationStore& store, std::string_view arguments_json) const {
    ArgumentsReader args;
    std::string problem;
    if (!json::sax_parse(arguments_json, &args)) {
        problem = texts::arguments_not_json();
    } else if (!args.root_object) {
        problem = texts::arguments_not_object();
    } else if (args.name_kind == ArgumentsReader::Name::missing) {
        problem = texts::argument_missing("name");
    } else if (args.name_kind != ArgumentsReader::Name::text || args.name.empty()) {
        problem = texts::argument_not_text("name");
    } else {
        return activate_name(store, args.name);
    }
    ActivationResult r;
    r.status = ActivationStatus::invalid_arguments;
    r.text = problem + " " + usage_text();
    return r;
}

ActivationResult SkillActivator::activate_name(ActivationStore& store, std::string_view requested,
                                               const std::function<void(const LoadedSkill&)>& before_confirm) const {
    if (requested.empty()) {
        ActivationResult r;
        r.status = ActivationStatus::invalid_arguments;
        r.text = texts::argument_not_text("name") + " " + usage_text();
        return r;
    }
    const SkillManifest* manifest = find(requested);
    if (manifest == nullptr) return unknown(requested);
    return activate_skill(store, requested, *manifest, before_confirm);
}

ActivationResult SkillActivator::activate_skill(ActivationStore& store, std::string_view requested,
                                                const SkillManifest& skill_manifest,
                                                const std::function<void(const LoadedSkill&)>& before_confirm) const {
    const SkillManifest* manifest = &skill_manifest;
    std::optional<std::chrono::steady_clock::time_point> deadline;  // read from the clock when first needed
    for (;;) {
        switch (store.claim(manifest->name)) {
            case ClaimResult::already_active: {
                ActivationResult r;
                r.status = ActivationStatus::already_active;
                r.requested = texts::shown(requested);
                r.name = manifest->name;
                r.text = already_active_text(manifest->name);
                return r;
            }
            case ClaimResult::in_progress:
                if (!deadline) deadline = std::chrono::steady_clock::now() + options_.wait_timeout;
                if (std::chrono::steady_clock::now() >= *deadline) {
                    ActivationResult r;
                    r.status = ActivationStatus::load_error;
                    r.requested = texts::shown(requested);
                    r.name = manifest->name;
                    r.error = fmt::format("the skill '{}' is still being activated by another call",
                                          model_text(manifest->name));
                    r.text = texts::still_activating(manifest->name);
                    return r;
                }
                store.wait_for_change(manifest->name, *deadline);
                continue;
            case ClaimResult::claimed:
                break;
        }
        ActivationResult r;
        r.requested = texts::shown(requested);
        r.name = manifest->name;
        try {
            auto skill = std::make_shared<const LoadedSkill>(catalog_->load(*manifest));
            if (before_confirm) before_confirm(*skill);
            store.confirm(manifest->name);
            r.status = ActivationStatus::content;
            r.text = render_activation_text(*skill, {.include_directory = include_directory(*manifest)});
            if (skill->omitted_resources > 0 && options_.on_diagnostic) {
                options_.on_diagnostic(Diagnostic{
                    .code = std::string(codes::resource_list_truncated),
                    .severity = Severity::warning,
                    .path = model_text(skill->manifest.skill_file),
                    .line = 0,
                    .message = fmt::format("the activation text of '{}' lists {} files; {} more are not listed",
                                           model_text(skill->manifest.name), skill->resources.size(),
                                           skill->omitted_resources)});
            }
            r.skill = std::move(skill);
            return r;
        } catch (const std::exception& e) {
            r.exception = std::current_exception();
            r.error = model_text(e.what());
        } catch (...) {
            r.exception = std::current_exception();
            r.error = "unknown error";
        }
        store.roll_back(manifest->name);
        r.status = ActivationStatus::load_error;
        r.text = texts::load_failed(manifest->name, r.error);
        return r;
    }
}

std::string SkillActivator::active_skills_text(const ActivationStore& store) const {
    std::string out;
    for (const auto& name : store.active_names()) {
        const SkillManifest* m = catalog_->find(name);
        if (m == nullptr) continue;
        if (!out.empty()) out += "\n\n";
        out += render_activation_text(catalog_->load(*m), {.include_directory = include_directory(*m)});
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// Diagnostics

Diagnostics catalog_findings(const SkillCatalog& catalog, const SkillsPrompt& prompt) {
    Diagnostics out;
    const auto report = [&out](Diagnostic d) { out.push_back(std::move(d)); };
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
    return out;
}

std::optional<Diagnostic> ignored_behavioral_fields_warning(const std::vector<SkillManifest>& skills) {
    std::map<std::string, std::vector<std::string>> users;  // field -> skills, sorted by field
    for (const auto& m : skills) {
        for (const auto& f : m.ignored_behavioral_fields) {
            auto& list = users[model_text(f)];
            if (std::find(list.begin(), list.end(), m.name) == list.end()) list.push_back(model_text(m.name));
        }
    }
    if (users.empty()) return std::nullopt;
    std::string fields;
    for (const auto& [field, names] : users) {
        if (!fields.empty()) fields += "; ";
        fields += field + " (";
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (i > 0) fields += ", ";
            fields += names[i];
        }
        fields += ")";
    }
    return Diagnostic{.code = std::string(codes::ignored_behavioral_fields),
                      .severity = Severity::warning,
                      .path = {},
                      .line = 0,
                      .message = fmt::format("skills use Claude Code fields that this library does not implement "
                                             "(they have no effect here): {}",
                                             fields)};
}

}  // namespace agentskills
