// The activation core: stores, the activation text and SkillActivator.
#include "agentskills/activation.hpp"

#include <algorithm>
#include <map>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "agentskills/diagnostic_codes.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"
#include "agentskills/prompt.hpp"
#include "agentskills/skills_shim.hpp"
#include "agentskills/text.hpp"
#include "model_output.hpp"
#include "model_texts.hpp"

namespace agentskills {

using nlohmann::json;
namespace texts = detail::texts;

// ---------------------------------------------------------------------------------------
// ActivationStore

ActivationStore::~ActivationStore() = default;

void ActivationStore::wait_for_change(std::string_view /*name*/, std::chrono::steady_clock::time_point deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(5), deadline - now));
}

bool ActivationStore::is_active(std::string_view name) const {
    const std::vector<std::string> names = active_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

// ---------------------------------------------------------------------------------------
// MemoryActivationStore

namespace {
bool contains(const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

ClaimResult MemoryActivationStore::claim(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (contains(active_, name)) return ClaimResult::already_active;
    if (contains(pending_, name)) return ClaimResult::in_progress;
    pending_.emplace_back(name);
    return ClaimResult::claimed;
}

void MemoryActivationStore::confirm(std::string_view name) {
    {
        std::lock_guard lock(mutex_);
        std::erase(pending_, name);
        if (!contains(active_, name)) active_.emplace_back(name);
    }
    changed_.notify_all();
}

void MemoryActivationStore::roll_back(std::string_view name) {
    {
        std::lock_guard lock(mutex_);
        std::erase(pending_, name);
    }
    changed_.notify_all();
}

std::vector<std::string> MemoryActivationStore::active_names() const {
    std::lock_guard lock(mutex_);
    return active_;
}

bool MemoryActivationStore::is_active(std::string_view name) const {
    std::lock_guard lock(mutex_);
    return contains(active_, name);
}

bool MemoryActivationStore::prompt_delivered() const {
    std::lock_guard lock(mutex_);
    return prompt_delivered_;
}

bool MemoryActivationStore::mark_prompt_delivered() {
    std::lock_guard lock(mutex_);
    return !std::exchange(prompt_delivered_, true);
}

void MemoryActivationStore::wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline, [&] { return !contains(pending_, name); });
}

void MemoryActivationStore::clear() {
    {
        std::lock_guard lock(mutex_);
        active_.clear();
        pending_.clear();
        prompt_delivered_ = false;
    }
    changed_.notify_all();
}

// ---------------------------------------------------------------------------------------
// ShimStateActivationStore

namespace {

bool array_has(const json& object, const std::string& key, std::string_view name) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) return false;
    return std::any_of(it->begin(), it->end(),
                       [&](const json& v) { return v.is_string() && v.get_ref<const std::string&>() == name; });
}

void array_remove(json& object, const std::string& key, std::string_view name) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) return;
    for (auto pos = it->begin(); pos != it->end();) {
        if (pos->is_string() && pos->get_ref<const std::string&>() == name) {
            pos = it->erase(pos);
        } else {
            ++pos;
        }
    }
}

}  // namespace

std::shared_ptr<const ShimStateActivationStore::Keys> ShimStateActivationStore::keys_for(std::string_view shim_name) {
    return std::make_shared<const Keys>(Keys{
        .active = std::string(shim_name) + std::string(ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX),
        .prompt = std::string(shim_name) + ":system-prompt-appended",
        .pending = std::string(shim_name) + ":pending-skill-names",
    });
}

ShimStateActivationStore::ShimStateActivationStore(ShimState& state, std::string_view shim_name)
    : state_(&state), keys_(keys_for(shim_name)) {}

ShimStateActivationStore::ShimStateActivationStore(ShimState& state, std::shared_ptr<const Keys> keys)
    : state_(&state), keys_(std::move(keys)) {
    if (!keys_) throw ConfigurationError("ShimStateActivationStore: the keys are null");
}

// The update lambdas below capture one pointer, so that std::function holds them without
// allocating.

ClaimResult ShimStateActivationStore::claim(std::string_view name) {
    struct Call {
        const Keys* keys;
        std::string_view name;
        ClaimResult result = ClaimResult::claimed;
    } call{keys_.get(), name};
    state_->update([c = &call](json& o) {
        if (array_has(o, c->keys->active, c->name)) {
            c->result = ClaimResult::already_active;
        } else if (array_has(o, c->keys->pending, c->name)) {
            c->result = ClaimResult::in_progress;
        } else {
            json& pending = o[c->keys->pending];
            if (!pending.is_array()) pending = json::array();
            pending.push_back(std::string(c->name));
        }
    });
    return call.result;
}

namespace {

struct KeysAndName {
    const ShimStateActivationStore::Keys* keys;
    std::string_view name;
};

void remove_pending(json& o, const KeysAndName& c) {
    array_remove(o, c.keys->pending, c.name);
    if (auto it = o.find(c.keys->pending); it != o.end() && (!it->is_array() || it->empty())) o.erase(it);
}

}  // namespace

void ShimStateActivationStore::confirm(std::string_view name) {
    const KeysAndName call{keys_.get(), name};
    state_->update([c = &call](json& o) {
        auto* object = o.get_ptr<json::object_t*>();
        const auto pending = object == nullptr ? json::object_t::iterator() : object->find(c->keys->pending);
        const bool only_this_pending = object != nullptr && pending != object->end() && pending->second.is_array() &&
                                       pending->second.size() == 1 && pending->second[0].is_string() &&
                                       pending->second[0].get_ref<const std::string&>() == c->name;
        if (only_this_pending && object->find(c->keys->active) == object->end()) {
            // The usual first activation: the pending entry (["name"]) becomes the active one
            // in place, its node and strings reused; the state is what the general path gives.
            auto node = object->extract(pending);
            node.key() = c->keys->active;
            object->insert(std::move(node));
            return;
        }
        remove_pending(o, *c);
        if (!array_has(o, c->keys->active, c->name)) {
            json& active = o[c->keys->active];
            if (!active.is_array()) active = json::array();
            active.push_back(std::string(c->name));
        }
    });
}

void ShimStateActivationStore::roll_back(std::string_view name) {
    const KeysAndName call{keys_.get(), name};
    state_->update([c = &call](json& o) { remove_pending(o, *c); });
}

std::vector<std::string> ShimStateActivationStore::active_names() const {
    std::vector<std::string> out;
    const json value = state_->get(keys_->active);
    if (!value.is_array()) return out;
    for (const auto& n : value) {
        if (n.is_string()) out.push_back(n.get<std::string>());
    }
    return out;
}

bool ShimStateActivationStore::prompt_delivered() const { return state_->get(keys_->prompt) == true; }

bool ShimStateActivationStore::mark_prompt_delivered() {
    struct Call {
        const Keys* keys;
        bool marked = false;
    } call{keys_.get()};
    state_->update([c = &call](json& o) {
        auto it = o.find(c->keys->prompt);
        if (it != o.end() && *it == true) return;
        o[c->keys->prompt] = true;
        c->marked = true;
    });
    return call.marked;
}

// ---------------------------------------------------------------------------------------
// Active skills in a run state

std::vector<std::string> RunStateView::active_skill_names() const {
    const json all = state_->shim_state.snapshot();
    std::vector<std::string> out;
    for (const auto& [key, value] : all.items()) {
        if (key.size() < ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX.size() ||
            std::string_view(key).substr(key.size() - ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX.size()) !=
                ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX) {
            continue;
        }
        if (!value.is_array()) continue;
        for (const auto& name : value) {
            if (!name.is_string()) continue;
            auto s = name.get<std::string>();
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// The activation text

namespace {

bool ascii_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

char ascii_lower(char c) noexcept { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

/// Whether `text` at `pos` starts with `word` (ASCII case-insensitive, `-` matching `_`).
bool word_at(std::string_view text, std::size_t pos, std::string_view word) noexcept {
    if (text.size() - pos < word.size()) return false;
    for (std::size_t k = 0; k < word.size(); ++k) {
        char c = ascii_lower(text[pos + k]);
        if (c == '-') c = '_';
        if (c != word[k]) return false;
    }
    return true;
}

/// Whether the `<` at `i` opens something that reads as a wrapper tag.
bool wrapper_tag_at(std::string_view text, std::size_t i) noexcept {
    std::size_t j = i + 1;
    while (j < text.size() && ascii_space(text[j])) ++j;
    if (j < text.size() && text[j] == '/') ++j;
    while (j < text.size() && ascii_space(text[j])) ++j;
    return word_at(text, j, "skill_content") || word_at(text, j, "skill_resources");
}

// Appends `body` to `out` with the `<` of each wrapper tag written `&lt;`.
void append_neutralized(std::string& out, std::string_view body) {
    std::size_t from = 0;
    for (std::size_t i = body.find('<'); i != std::string_view::npos; i = body.find('<', i + 1)) {
        if (!wrapper_tag_at(body, i)) continue;
        out.append(body.substr(from, i - from));
        out += "&lt;";
        from = i + 1;
    }
    out.append(body.substr(from));
}

}  // namespace

std::string neutralize_wrapper_tags(std::string_view body) {
    std::string out;
    out.reserve(body.size());
    append_neutralized(out, body);
    return out;
}

std::string render_activation_text(const LoadedSkill& skill, const ActivationTextOptions& options) {
    // Every piece goes in as finished model text (model_output.hpp) and the markup is plain
    // ASCII, so the whole text is finished without a last pass over it; wrapper tags are
    // neutralized in the model text of the instructions (a control after `<` is U+FFFD by then).
    const SkillManifest& m = skill.manifest;
    std::string root_copy;  // only when the root needs cleaning
    const std::string_view root = detail::is_finished_model_text(m.root)
                                      ? std::string_view(m.root)
                                      : std::string_view(root_copy = detail::finished_model_text(m.root));
    const bool mcp = std::string_view(m.library).substr(0, 4) == "mcp:";  // served by an MCP server
    std::string out;
    out.reserve(skill.instructions.size() + m.name.size() + 2 * root.size() + SKILL_DIRECTORY_NOTE.size() + 160 +
                (mcp ? m.library.size() + 32 : 0) + skill.resources.size() * (root.size() + 48));
    out += "<skill_content name=\"";
    detail::append_finished_xml(out, m.name);
    out += "\">\n";
    if (!skill.instructions.empty()) {
        if (detail::is_finished_model_text(skill.instructions)) {
            append_neutralized(out, skill.instructions);
        } else {
            append_neutralized(out, detail::finished_model_text(skill.instructions));
        }
        out += "\n\n";
    }
    if (options.include_directory) {
        out += "Skill directory: ";
        detail::append_finished_xml(out, root);
        out += '\n';
        out += SKILL_DIRECTORY_NOTE;
        out += "\n\n";
    }
    if (mcp) {
        out += "Source: the MCP server \"";
        detail::append_finished_xml(out, std::string_view(m.library).substr(4));
        out += "\".\n\n";
    }
    out += "<skill_resources>\n";
    for (const auto& r : skill.resources) {
        const std::string path = detail::finished_model_text(r.path);
        out += "  <file path=\"";
        detail::append_finished_xml(out, path);
        if (options.include_directory) {
            out += "\" read_path=\"";
            detail::append_finished_xml(out, join_path(root, path));
        }
        out += "\" />\n";
    }
    if (skill.omitted_resources == 1) {
        out += "  and 1 more file is not listed.\n";
    } else if (skill.omitted_resources > 1) {
        out += fmt::format("  and {} more files are not listed.\n", skill.omitted_resources);
    }
    out += "</skill_resources>\n</skill_content>";
    return out;
}

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

SkillActivator::SkillActivator(SkillCatalogPtr catalog, SkillActivatorOptions options)
    : catalog_(std::move(catalog)), options_(std::move(options)) {
    if (!catalog_) throw ConfigurationError("SkillActivator: the catalog is null");
    for (const auto& m : *catalog_) {
        if (m.model_invocable()) invocable_.push_back(m.name);
    }
    if (options_.prompt_block) {
        prompt_block_ = *options_.prompt_block;
    } else if (invocable_.empty()) {
        prompt_block_.clear();
    } else {
        SkillsShimOptions shim_options;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
        shim_options.catalog = catalog_;
        shim_options.tool_name = options_.tool_name;
        SkillsShim shim(std::move(shim_options));
        prompt_block_ = shim.render_prompt(*catalog_).text;
    }
}

ToolSpec SkillActivator::tool_spec() const { return activation_tool_spec(options_.tool_name); }

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

bool SkillActivator::reachable(const SkillManifest& manifest) const {
    return !catalog_->loader() || catalog_->loader()->in_run_workspace(manifest.name);
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
    // A name far longer than any valid one is unknown without being normalized (NFKC time grows
    // faster than linearly with hostile combining sequences).
    // (A name of at most ACTIVATION_MAX_NAME_CODE_POINTS bytes has no more code points than that.)
    if (requested.size() > ACTIVATION_MAX_NAME_BYTES ||
        (requested.size() > ACTIVATION_MAX_NAME_CODE_POINTS && is_valid_utf8(requested) &&
         code_point_count(requested) > ACTIVATION_MAX_NAME_CODE_POINTS)) {
        return unknown(requested);
    }
    const SkillManifest* manifest = catalog_->get(requested);
    if (manifest == nullptr || (options_.model_invocable_only && !manifest->model_invocable())) {
        return unknown(requested);
    }

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
            r.text = render_activation_text(*skill, {.include_directory = reachable(*manifest)});
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
        const SkillManifest* m = catalog_->get(name);
        if (m == nullptr) continue;
        if (!out.empty()) out += "\n\n";
        out += render_activation_text(catalog_->load(m->name), {.include_directory = reachable(*m)});
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// Diagnostics

std::optional<Diagnostic> ignored_behavioral_fields_warning(const std::vector<SkillManifest>& skills) {
    std::map<std::string, std::vector<std::string>> users;  // field -> skills, sorted by field
    for (const auto& m : skills) {
        for (const auto& f : m.ignored_behavioral_fields) {
            auto& list = users[model_text(f)];
            if (!contains(list, m.name)) list.push_back(model_text(m.name));
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
