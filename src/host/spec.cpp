// Host-side use: agent specs and skills configuration files (YAML or JSON, read under a budget).
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/host/host.hpp"

#include <algorithm>
#include <functional>
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

#include "../parse/yaml_text.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/catalog/policy_words.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Agent specs

namespace {

using nlohmann::json;

constexpr std::string_view config_keys =
    "directories, include, exclude, missing_directories, duplicate_names, overrides";

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

// Where an override rule's error is: rule `index`, key `key` ("" for the rule itself).
using RuleWhere = std::function<std::string(std::size_t index, std::string_view key)>;

constexpr std::string_view mode_words = "on, name-only, user-invocable-only, off";

/// The override rules of a list value: `[{name: X | path: GLOB, mode: MODE}, ...]`.
std::vector<OverrideRule> overrides_from(const json& v, const RuleWhere& where) {
    std::vector<OverrideRule> out;
    if (v.is_null()) return out;
    if (!v.is_array()) {
        throw ConfigurationError(
            fmt::format("{}: 'overrides' must be a list of rules, not {}", where(SIZE_MAX, ""), describe(v)));
    }
    if (v.size() > OVERRIDES_MAX_RULES) {
        throw ConfigurationError(
            fmt::format("{}: more than {} override rules", where(SIZE_MAX, ""), OVERRIDES_MAX_RULES));
    }
    for (std::size_t i = 0; i < v.size(); ++i) {
        const json& item = v[i];
        if (!item.is_object()) {
            throw ConfigurationError(fmt::format(
                "{}: a rule must be a mapping with 'name' or 'path' and 'mode', not {}", where(i, ""), describe(item)));
        }
        OverrideRule rule;
        bool has_mode = false;
        for (const auto& [key, value] : item.items()) {
            if (!value.is_string()) {
                throw ConfigurationError(fmt::format("{}: must be a string, not {}", where(i, key), describe(value)));
            }
            const std::string text = value.get<std::string>();
            if (key == "name") {
                if (text.empty()) throw ConfigurationError(fmt::format("{}: the name is empty", where(i, key)));
                rule.name = text;
            } else if (key == "path") {
                if (text.empty()) throw ConfigurationError(fmt::format("{}: the glob is empty", where(i, key)));
                rule.path = text;
            } else if (key == "mode") {
                if (!parse_skill_mode(text, rule.mode)) {
                    throw ConfigurationError(
                        fmt::format("{}: unknown mode {} (accepted: {})", where(i, key), describe(value), mode_words));
                }
                has_mode = true;
            } else {
                throw ConfigurationError(fmt::format("{}: unknown key (accepted: name, path, mode)", where(i, key)));
            }
        }
        if (rule.name.empty() == rule.path.empty()) {
            throw ConfigurationError(fmt::format("{}: a rule needs exactly one of 'name' and 'path'", where(i, "")));
        }
        if (!has_mode) throw ConfigurationError(fmt::format("{}: a rule needs 'mode' ({})", where(i, ""), mode_words));
        out.push_back(std::move(rule));
    }
    return out;
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
        } else if (key == "overrides") {
            c.overrides = overrides_from(value, [](std::size_t i, std::string_view k) {
                if (i == SIZE_MAX) return std::string("agent spec");
                return k.empty() ? fmt::format("agent spec: 'overrides' item {}", i + 1)
                                 : fmt::format("agent spec: 'overrides' item {}, '{}'", i + 1, k);
            });
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

// ---------------------------------------------------------------------------------------
// Governance configurations (`--config FILE`)

namespace {

// The line (1-based) of each rule of `skills: overrides:` and of each key's value in it, read
// after the bounded pass has accepted the text (yaml-cpp's nodes share what aliases copy).
struct RuleLines {
    std::vector<std::size_t> rule;
    std::vector<std::unordered_map<std::string, std::size_t>> keys;
};

RuleLines rule_lines(std::string_view text) {
    RuleLines out;
    try {
        const YAML::Node doc = YAML::Load(std::string(text));
        if (!doc.IsMap() || !doc["skills"] || !doc["skills"].IsMap()) return out;
        const YAML::Node list = doc["skills"]["overrides"];
        if (!list || !list.IsSequence()) return out;
        for (const YAML::Node& item : list) {
            out.rule.push_back(static_cast<std::size_t>(item.Mark().line) + 1);
            auto& keys = out.keys.emplace_back();
            if (!item.IsMap()) continue;
            for (const auto& kv : item) {
                if (kv.first.IsScalar()) {
                    keys.emplace(kv.first.Scalar(), static_cast<std::size_t>(kv.second.Mark().line) + 1);
                }
            }
        }
    } catch (const YAML::Exception&) {
        // Lines are a courtesy: the bounded pass has already judged the text.
    }
    return out;
}

constexpr std::string_view config_prefix = "skills config: ";

GovernanceConfig governance_from(std::string_view text, const AgentSpecLimits& limits) {
    if (over(text.size(), limits.max_bytes)) {
        throw ConfigurationError(fmt::format("skills config: the text is {} bytes, more than the limit of {}",
                                             text.size(), limits.max_bytes));
    }
    json doc;
    try {
        doc = yaml_to_json(text, limits);
    } catch (const YAML::Exception& e) {
        throw ConfigurationError(fmt::format("skills config: invalid YAML: {}", valid_utf8(e.what())));
    } catch (const ConfigurationError& e) {
        // The budget messages say "agent spec: line N: ..."; this is a skills config.
        std::string_view message = e.what();
        constexpr std::string_view spec = "agent spec: ";
        if (message.substr(0, spec.size()) == spec) message.remove_prefix(spec.size());
        throw ConfigurationError(fmt::format("{}{}", config_prefix, message));
    }
    GovernanceConfig out;
    if (doc.is_null()) return out;
    if (!doc.is_object()) {
        throw ConfigurationError(fmt::format("skills config: the document must be a mapping, not {}", describe(doc)));
    }
    for (const auto& [key, value] : doc.items()) {
        if (key != "skills") {
            throw ConfigurationError(fmt::format("skills config: unknown top-level key '{}' (accepted: skills)", key));
        }
        if (value.is_null()) continue;
        if (!value.is_object()) {
            throw ConfigurationError(fmt::format("skills config: 'skills' must be a mapping, not {}", describe(value)));
        }
        for (const auto& [k, v] : value.items()) {
            if (k != "overrides") {
                throw ConfigurationError(
                    fmt::format("skills config: unknown key '{}' under 'skills' (accepted: overrides)", k));
            }
            const RuleLines lines = rule_lines(text);
            out.overrides = overrides_from(v, [&lines](std::size_t i, std::string_view rule_key) {
                std::size_t line = 0;
                if (i < lines.rule.size()) {
                    line = lines.rule[i];
                    if (auto it = lines.keys[i].find(std::string(rule_key));
                        !rule_key.empty() && it != lines.keys[i].end()) {
                        line = it->second;
                    }
                }
                std::string where = line != 0 ? fmt::format("skills config: line {}", line) : "skills config";
                if (i == SIZE_MAX) return where;
                where += fmt::format(": override rule {}", i + 1);
                if (!rule_key.empty()) where += fmt::format(", '{}'", valid_utf8(rule_key));
                return where;
            });
        }
    }
    return out;
}

}  // namespace

GovernanceConfig parse_governance_config(std::string_view text, const AgentSpecLimits& limits) {
    return governance_from(text, limits);
}

GovernanceConfig load_governance_config(const std::string& path, const AgentSpecLimits& limits) {
    const std::string shown = valid_utf8(path);
    static const LocalSkillReader reader;
    ReadResult read;
    try {
        read = reader.read_file(path, limits.max_bytes);
    } catch (const Error& e) {
        throw ConfigurationError(fmt::format("skills config: {}", valid_utf8(e.what())));
    }
    if (read.truncated) {
        throw ConfigurationError(
            fmt::format("skills config '{}': the file is larger than the limit of {} bytes", shown, limits.max_bytes));
    }
    try {
        return governance_from(read.data, limits);
    } catch (const ConfigurationError& e) {
        std::string_view message = e.what();
        if (message.substr(0, config_prefix.size()) == config_prefix) message.remove_prefix(config_prefix.size());
        throw ConfigurationError(fmt::format("skills config '{}': {}", shown, message));
    }
}

}  // namespace agentskills
