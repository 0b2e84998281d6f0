// Host-side use: agent specs and skills configuration files (YAML or JSON, read under a budget).
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/host/host.hpp"

#include <algorithm>
#include <charconv>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "../base/json_text_check.hpp"
#include "../parse/yaml.hpp"
#include "../parse/yaml_json.hpp"
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

// The text of a YAML document that yaml-cpp refuses: its what() ("yaml-cpp: error at line ...").
struct InvalidYaml {
    std::string what;
};

std::size_t bound(std::size_t limit) noexcept { return limit == 0 ? detail::yaml_unbounded : limit; }

/// The first YAML document of a spec as JSON, every scalar its literal text (no YAML 1.1
/// typing): the front end's tree (parse/yaml.hpp) read under the spec's budgets, where every
/// node made counts, and so does every node an alias copies and every node copied for an
/// anchor; the same for scalar bytes; and the nesting depth, counting what an alias brings. A
/// 1 KB alias bomb therefore stops after `max_nodes` nodes, not after the memory is gone.
/// Mapping keys must be strings and may not repeat. The checks run in document order over what
/// was read, so that a problem of the text before the place where a budget stopped the read (or
/// yaml-cpp did) is the one reported.
class SpecJson {
public:
    SpecJson(const detail::YamlTree& tree, const AgentSpecLimits& limits) : tree_(tree), limits_(limits) {}

    [[nodiscard]] json take() const {
        json out;
        const bool complete = !tree_.root || build(*tree_.root, out);
        if (tree_.problem) refuse(*tree_.problem);
        if (!complete || !tree_.root) return json(nullptr);
        return out;
    }

    static detail::YamlOptions options(const AgentSpecLimits& limits) {
        return {.bounds = {.max_nodes = bound(limits.max_nodes),
                           .max_text_bytes = bound(limits.max_text_bytes),
                           .max_depth = bound(limits.max_depth),
                           .max_json_bytes = detail::yaml_unbounded,
                           .text = detail::YamlBounds::Text::all,
                           .keys_count = true,
                           .anchor_copies_count = true,
                           .alias_counts_itself = false,
                           .alias_depth = true},
                .prescan = false,
                .valid_utf8 = false,
                .one_document = false};
    }

private:
    using YNode = detail::YNode;

    [[noreturn]] void refuse(const detail::YamlProblem& p) const {
        using Kind = detail::YamlProblem::Kind;
        const std::size_t line = p.mark ? p.mark->line + 1 : 0;
        switch (p.kind) {
            case Kind::nodes:
                throw ConfigurationError(fmt::format(
                    "agent spec: line {}: more than {} YAML nodes (anchors and aliases count every node they copy)",
                    line, limits_.max_nodes));
            case Kind::text_bytes:
                throw ConfigurationError(
                    fmt::format("agent spec: line {}: more than {} bytes of YAML text (anchors and aliases count "
                                "every byte they copy)",
                                line, limits_.max_text_bytes));
            case Kind::depth:
                throw ConfigurationError(fmt::format("agent spec: line {}: nested deeper than the limit of {} levels",
                                                     line, limits_.max_depth));
            default:
                throw InvalidYaml{p.what};
        }
    }

    // The agent spec's rules for the one walk (parse/yaml_json.hpp): every scalar as its text, a
    // key a string (an alias of one too), no key twice, no key without a value.
    struct Rules {
        const detail::YamlTree& tree;

        [[nodiscard]] json scalar(const YNode& n) const {
            if (n.kind == YNode::Kind::null) return nullptr;
            return n.text;
        }
        [[noreturn]] void unresolved_alias(const YNode& n) const {
            throw ConfigurationError(
                fmt::format("agent spec: line {}: an alias refers to an anchor that is not complete", n.line + 1));
        }
        bool alias_value(const YNode&, json&) const { return false; }
        bool key(const YNode& k, bool copy, std::string& text) const {
            json value;
            if (!detail::yaml_tree_json(k, value, *this, copy)) return false;
            if (!value.is_string()) {
                throw ConfigurationError(
                    fmt::format("agent spec: line {}: a mapping key must be a string", tree.alias_mark(k).line + 1));
            }
            text = value.get<std::string>();
            return true;
        }
        static constexpr bool checks_duplicates = true;
        bool missing_value(const YNode& mapping, const std::string& key) const {
            if (mapping.has(YNode::unclosed)) return false;
            throw ConfigurationError(
                fmt::format("agent spec: line {}: the key '{}' has no value", mapping.line + 1, key));
        }
        [[noreturn]] void duplicate_key(const YNode&, const std::string& key) const {
            throw ConfigurationError(fmt::format("agent spec: duplicate key '{}'", key));
        }
    };

    // The JSON of `n` into `out`; false when `n` is a collection the read stopped inside (its
    // items are checked, it never reached its parent).
    bool build(const YNode& n, json& out) const { return detail::yaml_tree_json(n, out, Rules{tree_}); }

    const detail::YamlTree& tree_;
    const AgentSpecLimits& limits_;
};

// A YAML spec's tree and its JSON; ConfigurationError past a budget or for a bad key,
// InvalidYaml for text that is not YAML.
struct SpecYaml {
    detail::YamlTree tree;
    json doc;
};

SpecYaml yaml_to_json(std::string_view text, const AgentSpecLimits& limits) {
    SpecYaml out;
    out.tree = detail::read_yaml_tree(text, SpecJson::options(limits));
    out.doc = SpecJson(out.tree, limits).take();
    return out;
}

// A JSON spec under the same budgets, and the same rule for a key given twice as the YAML form
// (json::parse would keep the last value): the shared JSON reader (base/json_text_check.hpp).
json json_to_json(std::string_view text, const AgentSpecLimits& limits) {
    detail::JsonTextCheck check({.max_depth = limits.max_depth, .max_values = limits.max_nodes});
    using Fault = detail::JsonTextCheck::Fault;
    json doc;
    switch (check.parse(text, doc)) {
        case Fault::values:
            throw ConfigurationError(fmt::format("agent spec: more than {} JSON values", limits.max_nodes));
        case Fault::depth:
            throw ConfigurationError(
                fmt::format("agent spec: nested deeper than the limit of {} levels", limits.max_depth));
        case Fault::duplicate_key:
            throw ConfigurationError(fmt::format("agent spec: duplicate key '{}'", check.key()));
        case Fault::syntax:
            throw ConfigurationError(fmt::format("agent spec: invalid JSON: {}", valid_utf8(check.syntax_error())));
        case Fault::none:
            break;
    }
    return doc;
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
            doc = yaml_to_json(text, limits).doc;
        } catch (const InvalidYaml& e) {
            throw ConfigurationError(fmt::format("agent spec: invalid YAML: {}", valid_utf8(e.what)));
        }
    }
    return configs_from_document(doc);
}

namespace {

/// The bytes of a configuration file (`what`: "agent spec", "skills config"), read as SKILL.md
/// files are: a non-blocking open, then fstat; anything but a regular file (a FIFO, a device such
/// as /dev/zero, a directory) is refused before any read, and no more than `max_bytes` + 1 bytes
/// are read. Then `parse(bytes)`; every ConfigurationError names the file: "WHAT: X" becomes
/// "WHAT 'PATH': X".
template <typename Parse>
auto load_config_file(const std::string& path, const AgentSpecLimits& limits, std::string_view what, Parse&& parse) {
    const std::string shown = valid_utf8(path);
    static const LocalSkillReader reader;
    ReadResult read;
    try {
        read = reader.read_file(path, limits.max_bytes);
    } catch (const Error& e) {
        // The reader's message names the file ("cannot read 'PATH': ...").
        throw ConfigurationError(fmt::format("{}: {}", what, valid_utf8(e.what())));
    }
    if (read.truncated) {
        throw ConfigurationError(
            fmt::format("{} '{}': the file is larger than the limit of {} bytes", what, shown, limits.max_bytes));
    }
    try {
        return parse(read.data);
    } catch (const ConfigurationError& e) {
        std::string_view message = e.what();
        if (message.starts_with(what) && message.substr(what.size()).starts_with(": ")) {
            message.remove_prefix(what.size() + 2);
        }
        throw ConfigurationError(fmt::format("{} '{}': {}", what, shown, message));
    }
}

}  // namespace

std::vector<SkillsConfig> load_agent_spec(const std::string& path, const AgentSpecLimits& limits) {
    const bool is_json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    return load_config_file(path, limits, "agent spec", [&](const std::string& text) {
        return parse_agent_spec(text, is_json ? SpecFormat::json : SpecFormat::yaml, limits);
    });
}

// ---------------------------------------------------------------------------------------
// Governance configurations (`--config FILE`)

namespace {

// The line (1-based) of each rule of `skills: overrides:` and of each key's value in it, from the
// tree the bounded read accepted (an alias's copy has the lines of what it copies).
struct RuleLines {
    std::vector<std::size_t> rule;
    std::vector<std::unordered_map<std::string, std::size_t>> keys;
};

const detail::YNode* value_of(const detail::YNode& map, std::string_view key) {
    for (std::size_t i = 0; i + 1 < map.items.size(); i += 2) {
        if (map.items[i].kind == detail::YNode::Kind::scalar && map.items[i].text == key) return &map.items[i + 1];
    }
    return nullptr;
}

RuleLines rule_lines(const detail::YamlTree& tree) {
    using Kind = detail::YNode::Kind;
    RuleLines out;
    if (!tree.root || tree.root->kind != Kind::mapping) return out;
    const detail::YNode* skills = value_of(*tree.root, "skills");
    if (skills == nullptr || skills->kind != Kind::mapping) return out;
    const detail::YNode* list = value_of(*skills, "overrides");
    if (list == nullptr || list->kind != Kind::sequence) return out;
    for (const detail::YNode& item : list->items) {
        out.rule.push_back(std::size_t{item.line} + 1);
        auto& keys = out.keys.emplace_back();
        if (item.kind != Kind::mapping) continue;
        for (std::size_t i = 0; i + 1 < item.items.size(); i += 2) {
            if (item.items[i].kind == Kind::scalar)
                keys.emplace(item.items[i].text, std::size_t{item.items[i + 1].line} + 1);
        }
    }
    return out;
}

// The label of a skills config's messages. load_config_file is given it, and strips "LABEL: " from
// a message to name the file instead; the budget messages are re-labelled with it.
constexpr std::string_view config_label = "skills config";

// A limit of a skills config: decimal digits only, fitting in a size_t (0 = no limit).
std::size_t config_count(const json& value, std::string_view key) {
    const std::string text = value.is_string() ? value.get<std::string>() : std::string();
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || ec != std::errc() ||
        end != text.data() + text.size()) {
        throw ConfigurationError(fmt::format("skills config: '{}' must be a count (digits 0-9, 0 = no limit), not {}",
                                             key, describe(value)));
    }
    return n;
}

// A policy word of a skills config (`limits: agents`, each item of `compat`).
template <class E>
E config_word(const json& v, std::string_view key) {
    if (v.is_string()) {
        if (auto value = policy_from_word<E>(v.get<std::string>())) return *value;
    }
    throw ConfigurationError(
        fmt::format("skills config: '{}' must be {}, not {}", key, policy_word_choices<E>(),
                    v.is_string() ? fmt::format("'{}'", valid_utf8(v.get<std::string>())) : describe(v)));
}

GovernanceConfig governance_from(std::string_view text, const AgentSpecLimits& limits) {
    if (over(text.size(), limits.max_bytes)) {
        throw ConfigurationError(fmt::format("skills config: the text is {} bytes, more than the limit of {}",
                                             text.size(), limits.max_bytes));
    }
    SpecYaml yaml;
    try {
        yaml = yaml_to_json(text, limits);
    } catch (const InvalidYaml& e) {
        throw ConfigurationError(fmt::format("skills config: invalid YAML: {}", valid_utf8(e.what)));
    } catch (const ConfigurationError& e) {
        // The budget messages say "agent spec: line N: ..."; this is a skills config.
        std::string_view message = e.what();
        constexpr std::string_view spec = "agent spec: ";
        if (message.substr(0, spec.size()) == spec) message.remove_prefix(spec.size());
        throw ConfigurationError(fmt::format("{}: {}", config_label, message));
    }
    const json& doc = yaml.doc;
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
            if (k == "max_lines" || k == "max_bytes") {
                (k == "max_lines" ? out.max_lines : out.max_bytes) = config_count(v, k);
                continue;
            }
            if (k == "limits") {
                out.limits = config_word<LoaderLimits>(v, k);
                continue;
            }
            if (k == "yaml_recovery") {
                out.yaml_recovery = config_word<YamlRecovery>(v, k);
                continue;
            }
            if (k == "compat") {
                if (!v.is_array()) {
                    throw ConfigurationError(
                        fmt::format("skills config: 'compat' must be a list of agent names, not {}", describe(v)));
                }
                out.compat.emplace();
                for (const json& agent : v) out.compat->push_back(config_word<AgentFolders>(agent, "compat"));
                continue;
            }
            if (k != "overrides") {
                throw ConfigurationError(
                    fmt::format("skills config: unknown key '{}' under 'skills' (accepted: "
                                "max_lines, max_bytes, limits, yaml_recovery, compat, overrides)",
                                k));
            }
            const RuleLines lines = rule_lines(yaml.tree);
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
    return load_config_file(path, limits, config_label,
                            [&](const std::string& text) { return governance_from(text, limits); });
}

}  // namespace agentskills
