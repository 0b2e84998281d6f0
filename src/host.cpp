// Host-side use: rendering with arguments, combined configurations, agent specs.
#include "agentskills/host.hpp"
#include "agentskills/diagnostic_codes.hpp"

#include <algorithm>
#include <iterator>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>
#include <utility>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "agentskills/activation.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"
#include "agentskills/policy_words.hpp"
#include "agentskills/prompt.hpp"
#include "canonical_name.hpp"
#include "yaml_text.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Arguments

namespace {

constexpr std::string_view arguments_placeholder = "$ARGUMENTS";

bool is_word_char(char c) noexcept {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/// Whether `text[pos..]` (just past `$ARGUMENTS`) starts an index `[digits]`.
bool starts_index(std::string_view text, std::size_t pos) noexcept {
    if (pos >= text.size() || text[pos] != '[') return false;
    std::size_t i = pos + 1;
    const std::size_t first_digit = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > first_digit && i < text.size() && text[i] == ']';
}

}  // namespace

namespace {

constexpr std::string_view arguments_line = "ARGUMENTS: ";

/// Calls f(hit) for each standalone `$ARGUMENTS` of `body`, in order.
template <class F>
void for_each_placeholder(std::string_view body, F&& f) {
    std::size_t pos = 0;
    while (pos < body.size()) {
        const std::size_t hit = body.find(arguments_placeholder, pos);
        if (hit == std::string_view::npos) break;
        const std::size_t after = hit + arguments_placeholder.size();
        if (!(after < body.size() && is_word_char(body[after])) && !starts_index(body, after)) f(hit);
        pos = after;
    }
}

}  // namespace

std::size_t substituted_size(std::string_view body, std::string_view arguments) noexcept {
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::size_t count = 0;
    for_each_placeholder(body, [&](std::size_t) { ++count; });
    if (count == 0) {
        if (arguments.empty()) return body.size();
        const std::size_t extra = (body.empty() ? 0 : 2) + arguments_line.size();
        return arguments.size() > max - body.size() - extra ? max : body.size() + extra + arguments.size();
    }
    const std::size_t base = body.size() - count * arguments_placeholder.size();
    if (arguments.size() != 0 && count > (max - base) / arguments.size()) return max;
    return base + count * arguments.size();
}

std::string substitute_arguments(std::string_view body, std::string_view arguments, std::size_t max_bytes) {
    // The size is known before anything is built, so a body with many placeholders and a long
    // argument fails here instead of asking for gigabytes.
    const std::size_t size = substituted_size(body, arguments);
    if (max_bytes != 0 && size > max_bytes) {
        throw ConfigurationError(fmt::format(
            "the instructions with the arguments substituted would be {} bytes, more than the limit of {} bytes", size,
            max_bytes));
    }
    std::string out;
    out.reserve(size);
    std::size_t pos = 0;
    bool replaced = false;
    for_each_placeholder(body, [&](std::size_t hit) {
        out.append(body.substr(pos, hit - pos));
        out.append(arguments);
        pos = hit + arguments_placeholder.size();
        replaced = true;
    });
    out.append(body.substr(pos));
    if (!replaced && !arguments.empty()) {
        if (!out.empty()) out.append("\n\n");
        out.append(arguments_line);
        out.append(arguments);
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// Skill definitions

std::string SkillDefinition::render(std::optional<std::string_view> arguments, std::size_t max_bytes) const {
    LoadedSkill skill{manifest, arguments ? substitute_arguments(body, *arguments, max_bytes) : body, resources,
                      omitted_resources};
    // The activation core's renderer: render() is exactly what the model is handed.
    return render_activation_text(skill, ActivationTextOptions{.include_directory = in_run_workspace});
}

const SkillDefinition* HostCatalog::find(std::string_view name) const {
    if (!name.empty() && name.front() == '/') name.remove_prefix(1);
    const std::string key = nfkc(name);
    for (const auto& s : skills) {
        if (nfkc(s.name) == key) return &s;
    }
    return nullptr;
}

// ---------------------------------------------------------------------------------------
// Configurations

void validate_skills_config(const SkillsConfig& config) {
    if (config.directories.empty()) {
        throw ConfigurationError("skills configuration: 'directories' names no library; pass at least one");
    }
    for (const auto& d : config.directories) {
        if (d.empty()) throw ConfigurationError("skills configuration: 'directories' holds an empty path");
    }
    if (config.include && config.exclude) {
        throw ConfigurationError("skills configuration: 'include' and 'exclude' cannot be used together");
    }
}

namespace {

struct Entry {
    std::size_t config = 0;   // which configuration found it
    std::string loader_name;  // the name its loader knows it by
};

}  // namespace

struct CombinedSkillLoader::Impl {
    std::vector<SkillsConfig> configs;
    std::vector<std::shared_ptr<FilesystemSkillLoader>> loaders;
    std::vector<SkillReaderPtr> readers;  // the reader each loader uses
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, Entry> entries;  // NFKC name -> where it lives
    std::function<void(const Diagnostic&)> on_diagnostic;

    [[nodiscard]] bool in_run(std::size_t i) const {
        return configs[i].in_run_workspace.value_or(configs[i].workspace == nullptr);
    }
};

CombinedSkillLoader::CombinedSkillLoader(std::vector<SkillsConfig> configs, const SkillReaderPtr& workspace,
                                         std::function<void(const Diagnostic&)> on_diagnostic)
    : impl_(std::make_unique<Impl>()) {
    impl_->on_diagnostic = std::move(on_diagnostic);
    if (configs.empty()) throw ConfigurationError("CombinedSkillLoader: no skills configuration given");
    for (const auto& c : configs) validate_skills_config(c);
    impl_->configs = std::move(configs);
    for (const auto& c : impl_->configs) {
        FilesystemLoaderOptions o;
        o.roots = c.directories;
        o.include_default_roots = false;
        o.reader = c.workspace ? c.workspace : workspace;
        o.name_policy = c.name_policy;
        o.include = c.include;
        o.exclude = c.exclude.value_or(std::vector<std::string>{});
        o.missing_directories = c.missing_directories;
        o.duplicate_names = c.duplicate_names;
        o.on_diagnostic = nullptr;
        auto loader = std::make_shared<FilesystemSkillLoader>(std::move(o));
        impl_->readers.push_back(loader->reader());
        impl_->loaders.push_back(std::move(loader));
    }
}

CombinedSkillLoader::~CombinedSkillLoader() = default;

namespace {

bool canonical(const SkillManifest& m) {
    return detail::is_canonical_name(m.name, nfkc(m.name), path_basename(m.root));
}

std::optional<ReadResult> read_for_compare(const SkillReader& reader, const std::string& path) {
    try {
        return reader.read_file(path, SKILL_MAX_FILE_BYTES);
    } catch (const Error&) {
        return std::nullopt;
    }
}

}  // namespace

Discovery CombinedSkillLoader::discover() {
    Discovery out;
    std::unordered_map<std::string, Entry> entries;
    std::unordered_map<std::string, std::size_t> position;  // NFKC name -> index in out.skills
    for (std::size_t i = 0; i < impl_->loaders.size(); ++i) {
        Discovery d = impl_->loaders[i]->discover();
        out.skipped.insert(out.skipped.end(), std::make_move_iterator(d.skipped.begin()),
                           std::make_move_iterator(d.skipped.end()));
        out.diagnostics.insert(out.diagnostics.end(), std::make_move_iterator(d.diagnostics.begin()),
                               std::make_move_iterator(d.diagnostics.end()));
        for (auto& m : d.skills) {
            std::string key = nfkc(m.name);
            auto found = entries.find(key);
            if (found == entries.end()) {
                entries.emplace(key, Entry{i, m.name});
                position.emplace(std::move(key), out.skills.size());
                out.skills.push_back(std::move(m));
                continue;
            }
            const SkillManifest& first = out.skills[position.at(key)];
            const std::size_t j = found->second.config;
            // Two local readers share one namespace (absolute, resolved paths).
            const bool same_reader = impl_->readers[i] == impl_->readers[j] ||
                                     (impl_->readers[i]->is_local() && impl_->readers[j]->is_local());
            if (same_reader && first.skill_file == m.skill_file) continue;  // the same SKILL.md
            auto a = read_for_compare(*impl_->readers[j], first.skill_file);
            auto b = read_for_compare(*impl_->readers[i], m.skill_file);
            if (a && b && !a->truncated && !b->truncated && a->data == b->data) continue;  // identical copy
            if (impl_->configs[i].duplicate_names == DuplicateNames::keep_first) {
                if (!canonical(first) && canonical(m)) {
                    // The loader's rule: a look-alike never displaces the canonical skill, even
                    // from an earlier configuration. The canonical one takes its place.
                    std::string message = fmt::format(
                        "{}: skipped: the skill name '{}' is also used by {}, selected by a later configuration, "
                        "whose name is in NFKC form and matches its directory; that one is kept",
                        first.skill_file, first.name, m.skill_file);
                    out.diagnostics.push_back(Diagnostic{std::string(codes::duplicate_name), Severity::warning,
                                                         first.skill_file, 0, message});
                    out.skipped.push_back(
                        SkippedSkill{first.skill_file, SkipReason::duplicate_name, std::move(message)});
                    found->second = Entry{i, m.name};
                    out.skills[position.at(key)] = std::move(m);
                    continue;
                }
                std::string message = fmt::format(
                    "{}: skipped: the skill name '{}' is already used by {}, selected by an earlier "
                    "configuration (the first is kept)",
                    m.skill_file, m.name, first.skill_file);
                out.diagnostics.push_back(
                    Diagnostic{std::string(codes::duplicate_name), Severity::warning, m.skill_file, 0, message});
                out.skipped.push_back(SkippedSkill{m.skill_file, SkipReason::duplicate_name, std::move(message)});
                continue;
            }
            throw DiscoveryError(
                fmt::format("two skills configurations select the name '{}' from different SKILL.md files: {} and {} "
                            "(set duplicate_names to keep_first on the later configuration to keep the first)",
                            m.name, first.skill_file, m.skill_file));
        }
    }
    {
        std::unique_lock lock(impl_->mutex);
        impl_->entries = std::move(entries);
    }
    if (impl_->on_diagnostic) {
        for (const auto& d : out.diagnostics) impl_->on_diagnostic(d);
    }
    return out;
}

LoadedSkill CombinedSkillLoader::load(std::string_view name) {
    Entry entry;
    {
        std::shared_lock lock(impl_->mutex);
        auto it = impl_->entries.find(nfkc(name));
        if (it == impl_->entries.end()) {
            throw NotFoundError(fmt::format("no skill named '{}' was discovered", name));
        }
        entry = it->second;
    }
    return impl_->loaders[entry.config]->load(entry.loader_name);
}

bool CombinedSkillLoader::in_run_workspace(std::string_view name) const {
    std::shared_lock lock(impl_->mutex);
    auto it = impl_->entries.find(nfkc(name));
    return it == impl_->entries.end() ? true : impl_->in_run(it->second.config);
}

SkillReaderPtr CombinedSkillLoader::reader_for(std::string_view name) const {
    std::shared_lock lock(impl_->mutex);
    auto it = impl_->entries.find(nfkc(name));
    return it == impl_->entries.end() ? nullptr : impl_->readers[it->second.config];
}

const std::vector<SkillsConfig>& CombinedSkillLoader::configs() const noexcept { return impl_->configs; }

HostCatalog load_host_catalog(const std::vector<SkillsConfig>& configs, const SkillReaderPtr& workspace) {
    CombinedSkillLoader loader(configs, workspace);
    Discovery d = loader.discover();
    HostCatalog catalog;
    catalog.skipped = std::move(d.skipped);
    catalog.diagnostics = std::move(d.diagnostics);
    catalog.skills.reserve(d.skills.size());
    for (const auto& m : d.skills) {
        LoadedSkill loaded = loader.load(m.name);
        SkillDefinition def;
        def.name = loaded.manifest.name;
        def.description = loaded.manifest.description;
        def.body = std::move(loaded.instructions);
        def.path = loaded.manifest.skill_file;
        def.directory = loaded.manifest.root;
        def.model_invocable = loaded.manifest.model_invocable();
        def.user_invocable = loaded.manifest.user_invocable;
        def.in_run_workspace = loader.in_run_workspace(m.name);
        def.ignored_behavioral_fields = loaded.manifest.ignored_behavioral_fields;
        def.manifest = std::move(loaded.manifest);
        def.resources = std::move(loaded.resources);
        def.omitted_resources = loaded.omitted_resources;
        catalog.skills.push_back(std::move(def));
    }
    return catalog;
}

HostCatalog load_host_catalog(const SkillsConfig& config, const SkillReaderPtr& workspace) {
    return load_host_catalog(std::vector<SkillsConfig>{config}, workspace);
}

// ---------------------------------------------------------------------------------------
// Agent specs

namespace {

using nlohmann::json;

constexpr std::string_view config_keys = "directories, include, exclude, missing_directories, duplicate_names";

bool over(std::size_t value, std::size_t limit) noexcept { return limit != 0 && value > limit; }

/// YAML -> JSON with every scalar as its literal text (no YAML 1.1 typing), built from
/// yaml-cpp's parse events under a budget: every node made counts, and so does every node an
/// alias copies and every node copied into the anchor table; the same for scalar bytes; and
/// the nesting depth, counting what an alias brings. A 1 KB alias bomb therefore stops after
/// `max_nodes` nodes, not after the memory is gone. Mapping keys must be strings.
class SpecJsonBuilder final : public YAML::EventHandler {
public:
    explicit SpecJsonBuilder(const AgentSpecLimits& limits) : limits_(limits) {}

    [[nodiscard]] json take() { return root_ ? std::move(*root_) : json(nullptr); }

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(json(nullptr), 0, anchor, mark); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  const std::string& value) override {
        std::string text = detail::yaml_scalar_text(value);
        const std::size_t bytes = text.size();
        leaf(json(std::move(text)), bytes, anchor, mark);
    }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        if (anchor >= anchors_.size() || !anchors_[anchor]) {
            throw ConfigurationError(
                fmt::format("agent spec: line {}: an alias refers to an anchor that is not complete", mark.line + 1));
        }
        const Anchored& a = *anchors_[anchor];
        charge(a.nodes, a.text, mark);
        made_nodes_ += a.nodes;
        made_text_ += a.text;
        if (over(stack_.size() + a.height, limits_.max_depth)) too_deep(mark);
        add(json(a.value), a.height, mark);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(json::array(), anchor, mark);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(json::object(), anchor, mark);
    }
    void OnMapEnd() override { close(); }

private:
    struct Frame {
        json value;
        YAML::anchor_t anchor = YAML::NullAnchor;
        YAML::Mark mark;
        std::size_t nodes_before = 0;  // nodes made before the collection started
        std::size_t text_before = 0;
        std::size_t height = 1;  // levels of this collection and what it holds
        std::optional<std::string> key = std::nullopt;
    };
    struct Anchored {
        json value;
        std::size_t nodes = 0;
        std::size_t text = 0;
        std::size_t height = 0;
    };

    [[noreturn]] void too_deep(const YAML::Mark& mark) const {
        throw ConfigurationError(fmt::format("agent spec: line {}: nested deeper than the limit of {} levels",
                                             mark.line + 1, limits_.max_depth));
    }

    void charge(std::size_t nodes, std::size_t text, const YAML::Mark& mark) {
        nodes_ += nodes;
        text_ += text;
        if (over(nodes_, limits_.max_nodes)) {
            throw ConfigurationError(fmt::format(
                "agent spec: line {}: more than {} YAML nodes (anchors and aliases count every node they copy)",
                mark.line + 1, limits_.max_nodes));
        }
        if (over(text_, limits_.max_text_bytes)) {
            throw ConfigurationError(fmt::format(
                "agent spec: line {}: more than {} bytes of YAML text (anchors and aliases count every byte they copy)",
                mark.line + 1, limits_.max_text_bytes));
        }
    }

    void remember(YAML::anchor_t anchor, const json& value, std::size_t nodes, std::size_t text, std::size_t height,
                  const YAML::Mark& mark) {
        if (anchor == YAML::NullAnchor) return;
        charge(nodes, text, mark);  // the copy in the anchor table
        // yaml-cpp numbers anchors 1, 2, ... in document order, so the table grows by one.
        if (anchor >= anchors_.size()) anchors_.resize(anchor + 1);
        anchors_[anchor] = Anchored{value, nodes, text, height};
    }

    void leaf(json value, std::size_t bytes, YAML::anchor_t anchor, const YAML::Mark& mark) {
        charge(1, bytes, mark);
        made_nodes_ += 1;
        made_text_ += bytes;
        remember(anchor, value, 1, bytes, 0, mark);
        add(std::move(value), 0, mark);
    }

    void open(json value, YAML::anchor_t anchor, const YAML::Mark& mark) {
        charge(1, 0, mark);
        if (over(stack_.size() + 1, limits_.max_depth)) too_deep(mark);
        stack_.push_back(Frame{std::move(value), anchor, mark, made_nodes_, made_text_, 1, std::nullopt});
        made_nodes_ += 1;
    }

    void close() {
        Frame f = std::move(stack_.back());
        stack_.pop_back();
        if (f.key) {
            throw ConfigurationError(
                fmt::format("agent spec: line {}: the key '{}' has no value", f.mark.line + 1, *f.key));
        }
        remember(f.anchor, f.value, made_nodes_ - f.nodes_before, made_text_ - f.text_before, f.height, f.mark);
        add(std::move(f.value), f.height, f.mark);
    }

    void add(json value, std::size_t height, const YAML::Mark& mark) {
        if (stack_.empty()) {
            if (!root_) root_ = std::move(value);
            return;
        }
        Frame& top = stack_.back();
        top.height = std::max(top.height, height + 1);
        if (top.value.is_array()) {
            top.value.push_back(std::move(value));
            return;
        }
        if (!top.key) {
            if (!value.is_string()) {
                throw ConfigurationError(
                    fmt::format("agent spec: line {}: a mapping key must be a string", mark.line + 1));
            }
            top.key = value.get<std::string>();
            return;
        }
        if (top.value.contains(*top.key)) {
            throw ConfigurationError(fmt::format("agent spec: duplicate key '{}'", *top.key));
        }
        top.value[*top.key] = std::move(value);
        top.key.reset();
    }

    AgentSpecLimits limits_;
    std::vector<Frame> stack_;
    std::vector<std::optional<Anchored>> anchors_;
    std::optional<json> root_;
    std::size_t nodes_ = 0;  // the budget used: nodes made, copied by aliases, copied into the table
    std::size_t text_ = 0;
    std::size_t made_nodes_ = 0;  // nodes of the document itself (aliases expanded)
    std::size_t made_text_ = 0;
};

json yaml_to_json(std::string_view text, const AgentSpecLimits& limits) {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    SpecJsonBuilder builder(limits);
    (void)parser.HandleNextDocument(builder);  // the first document, as YAML::Load reads it
    return builder.take();
}

json json_to_json(std::string_view text, const AgentSpecLimits& limits) {
    std::size_t nodes = 0;
    const json::parser_callback_t check = [&](int depth, json::parse_event_t event, json&) {
        if (event == json::parse_event_t::key || event == json::parse_event_t::object_end ||
            event == json::parse_event_t::array_end) {
            return true;
        }
        if (over(++nodes, limits.max_nodes)) {
            throw ConfigurationError(fmt::format("agent spec: more than {} JSON values", limits.max_nodes));
        }
        if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
            over(static_cast<std::size_t>(depth) + 1, limits.max_depth)) {
            throw ConfigurationError(
                fmt::format("agent spec: nested deeper than the limit of {} levels", limits.max_depth));
        }
        return true;
    };
    return json::parse(text, check);
}

// A value as an error message quotes it: valid UTF-8, at most about 80 code points.
std::string describe(const json& v) {
    constexpr std::size_t max_code_points = 80;
    const std::string text =
        v.is_string() ? valid_utf8(v.get<std::string>()) : v.dump(-1, ' ', false, json::error_handler_t::replace);
    const std::string_view shown = truncate_code_points(text, max_code_points);
    const std::string_view more = shown.size() < text.size() ? "..." : "";
    return v.is_string() ? fmt::format("'{}{}'", shown, more) : fmt::format("{}{}", shown, more);
}

std::vector<std::string> string_list(const json& v, std::string_view key, bool allow_single) {
    std::vector<std::string> out;
    if (allow_single && v.is_string()) {
        out.push_back(v.get<std::string>());
        return out;
    }
    if (!v.is_array()) {
        throw ConfigurationError(fmt::format("agent spec: '{}' must be {}a list of strings, not {}", key,
                                             allow_single ? "a string or " : "", describe(v)));
    }
    for (const auto& item : v) {
        if (!item.is_string()) {
            throw ConfigurationError(
                fmt::format("agent spec: '{}' must hold only strings, not {}", key, describe(item)));
        }
        out.push_back(item.get<std::string>());
    }
    return out;
}

std::string string_value(const json& v, std::string_view key) {
    if (!v.is_string()) {
        throw ConfigurationError(fmt::format("agent spec: '{}' must be a string, not {}", key, describe(v)));
    }
    return v.get<std::string>();
}

// A policy word (policy_words.hpp), mapped to its enumerator; anything else names every choice.
template <class E>
E policy_value(const json& v, std::string_view key) {
    const std::string s = string_value(v, key);
    if (auto value = policy_from_word<E>(s)) return *value;
    throw ConfigurationError(fmt::format("agent spec: '{}' must be {}, not '{}'", key, policy_word_choices<E>(), s));
}

SkillsConfig config_from_mapping(const json& m) {
    SkillsConfig c;
    bool has_directories = false;
    for (const auto& [key, value] : m.items()) {
        if (key == "directories") {
            c.directories = string_list(value, key, true);
            has_directories = true;
        } else if (key == "include") {
            c.include = string_list(value, key, false);
        } else if (key == "exclude") {
            c.exclude = string_list(value, key, false);
        } else if (key == "missing_directories") {
            c.missing_directories = policy_value<MissingDirectories>(value, key);
        } else if (key == "duplicate_names") {
            c.duplicate_names = policy_value<DuplicateNames>(value, key);
        } else {
            throw ConfigurationError(
                fmt::format("agent spec: unknown key '{}' in a Skills configuration (accepted: {})", key, config_keys));
        }
    }
    if (!has_directories) {
        throw ConfigurationError("agent spec: a Skills configuration needs 'directories'");
    }
    if (c.include && c.exclude) {
        throw ConfigurationError("agent spec: 'include' and 'exclude' cannot be used together");
    }
    validate_skills_config(c);
    return c;
}

/// The value of a `Skills` entry: a mapping, or directories given directly.
SkillsConfig config_from_value(const json& v) {
    if (v.is_object()) return config_from_mapping(v);
    if (v.is_string() || v.is_array()) {
        SkillsConfig c;
        c.directories = string_list(v, "directories", true);
        validate_skills_config(c);
        return c;
    }
    throw ConfigurationError(
        fmt::format("agent spec: 'Skills' must be a mapping, a string or a list of strings, not {}", describe(v)));
}

std::vector<SkillsConfig> configs_from_document(const json& doc) {
    std::vector<SkillsConfig> out;
    if (!doc.is_object()) {
        throw ConfigurationError(fmt::format("agent spec: the document must be a mapping, not {}", describe(doc)));
    }
    if (doc.contains("capabilities")) {
        const json& caps = doc.at("capabilities");
        if (caps.is_null()) return out;
        if (!caps.is_array()) throw ConfigurationError("agent spec: 'capabilities' must be a list");
        for (const auto& cap : caps) {
            if (cap.is_string() && cap.get<std::string>() == "Skills") {
                throw ConfigurationError("agent spec: a Skills capability needs 'directories'");
            }
            if (!cap.is_object() || !cap.contains("Skills")) continue;  // another capability
            if (cap.size() != 1) {
                throw ConfigurationError("agent spec: a capabilities entry with 'Skills' must hold that one key");
            }
            out.push_back(config_from_value(cap.at("Skills")));
        }
        return out;
    }
    if (doc.size() == 1 && doc.contains("Skills")) {
        out.push_back(config_from_value(doc.at("Skills")));
        return out;
    }
    out.push_back(config_from_mapping(doc));
    return out;
}

}  // namespace

std::vector<SkillsConfig> parse_agent_spec(std::string_view text, SpecFormat format, const AgentSpecLimits& limits) {
    if (over(text.size(), limits.max_bytes)) {
        throw ConfigurationError(
            fmt::format("agent spec: the text is {} bytes, more than the limit of {}", text.size(), limits.max_bytes));
    }
    json doc;
    if (format == SpecFormat::json) {
        try {
            doc = json_to_json(text, limits);
        } catch (const json::exception& e) {
            throw ConfigurationError(fmt::format("agent spec: invalid JSON: {}", valid_utf8(e.what())));
        }
    } else {
        try {
            doc = yaml_to_json(text, limits);
        } catch (const YAML::Exception& e) {
            throw ConfigurationError(fmt::format("agent spec: invalid YAML: {}", valid_utf8(e.what())));
        }
    }
    return configs_from_document(doc);
}

std::vector<SkillsConfig> load_agent_spec(const std::string& path, const AgentSpecLimits& limits) {
    const std::string shown = valid_utf8(path);
    // The reader SKILL.md files go through: a non-blocking open, then fstat; anything but a
    // regular file (a FIFO, a device such as /dev/zero, a directory) is refused before any read,
    // and no more than `max_bytes` + 1 bytes are read.
    static const LocalSkillReader reader;
    ReadResult read;
    try {
        read = reader.read_file(path, limits.max_bytes);
    } catch (const Error& e) {
        // The reader's message names the file ("cannot read 'PATH': ...").
        throw ConfigurationError(fmt::format("agent spec: {}", valid_utf8(e.what())));
    }
    if (read.truncated) {
        throw ConfigurationError(
            fmt::format("agent spec '{}': the file is larger than the limit of {} bytes", shown, limits.max_bytes));
    }
    const bool is_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    try {
        return parse_agent_spec(read.data, is_json ? SpecFormat::json : SpecFormat::yaml, limits);
    } catch (const ConfigurationError& e) {
        // Every message names the file: "agent spec: X" becomes "agent spec 'PATH': X".
        std::string_view message = e.what();
        constexpr std::string_view prefix = "agent spec: ";
        if (message.substr(0, prefix.size()) == prefix) message.remove_prefix(prefix.size());
        throw ConfigurationError(fmt::format("agent spec '{}': {}", shown, message));
    }
}

}  // namespace agentskills
