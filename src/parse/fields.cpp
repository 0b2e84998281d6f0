// SKILL.md parsing: one reader per frontmatter field, in the order `interpret` calls them.
#include <algorithm>
#include <exception>
#include <iterator>

#include <fmt/core.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"
#include "core_json.hpp"
#include "session.hpp"

namespace agentskills::detail {
namespace {

constexpr std::string_view behavioral_fields[] = {"agent",        "argument-hint", "arguments",  "context",
                                                  "dependencies", "effort",        "hooks",      "model",
                                                  "paths",        "shell",         "when_to_use"};
constexpr std::string_view reference_fields[] = {"allowed-tools", "compatibility", "description",
                                                 "license",       "metadata",      "name"};

std::string_view describe(NameProblem p) noexcept {
    switch (p) {
        case NameProblem::empty:
            return "is empty or blank";
        case NameProblem::too_long:
            return "is longer than 64 characters";
        case NameProblem::not_lowercase:
            return "must be lowercase";
        case NameProblem::edge_hyphen:
            return "must not start or end with a hyphen";
        case NameProblem::consecutive_hyphens:
            return "must not contain consecutive hyphens";
        case NameProblem::invalid_character:
            return "may only contain letters, digits and hyphens";
    }
    return "is invalid";
}

std::string_view code_of(NameProblem p) noexcept {
    switch (p) {
        case NameProblem::empty:
            return codes::name_blank;
        case NameProblem::too_long:
            return codes::name_too_long;
        case NameProblem::not_lowercase:
            return codes::name_not_lowercase;
        case NameProblem::edge_hyphen:
            return codes::name_hyphen_edge;
        case NameProblem::consecutive_hyphens:
            return codes::name_consecutive_hyphens;
        case NameProblem::invalid_character:
            return codes::name_invalid_character;
    }
    return codes::name_invalid;
}

// A string field's value, trimmed except under the reference profile (which keeps it as
// written), cut to `limit` code points with a warning (an error under the reference profile).
struct Limited {
    std::string value;
    std::size_t code_points = 0;
    bool cut = false;
};
Limited limited(std::string_view value, std::size_t limit) {
    Limited out;
    out.code_points = code_point_count(value);
    out.cut = out.code_points > limit;
    out.value = std::string(out.cut ? truncate_code_points(value, limit) : value);
    return out;
}

}  // namespace

// The frontmatter JSON, typed as asked: the literal text of each scalar, or the core schema's
// values (core_json.hpp, the typing the MCP server uses), read again from the text with the
// front end's typing options.
SharedJson Parse::frontmatter_json(const YNode& root, std::string_view frontmatter) {
    if (opt_.frontmatter_typing == FrontmatterTyping::text) {
        // Built on its first read (most manifests' trees are never read: a catalog block, an
        // activation): the same reader and walk, later. A large frontmatter is built now, while
        // the parse holds its place in the gate of large parses.
        if (frontmatter.size() <= SKILL_LARGE_FRONTMATTER_BYTES) {
            return SharedJson::deferred(std::string(frontmatter), &frontmatter_text_json);
        }
        return to_json(root);
    }
    try {
        return core_json(frontmatter);
    } catch (const std::exception& e) {
        add(codes::frontmatter_not_json, Level::warning, Level::warning, file_line(0),
            fmt::format("the frontmatter cannot be typed as JSON under the YAML 1.2 core schema: {}; it is left "
                        "empty",
                        e.what()));
        return nlohmann::json::object();
    }
}

void Parse::interpret(const YNode& root, std::string_view frontmatter) {
    collect_fields(root);
    SkillManifest m;
    m.skill_file = std::string(opt_.path);
    // Without the tree, still an empty object of this parse's own: the identity of a manifest's
    // frontmatter tells a file parsed again from a parse the loader kept (LiveCatalog's
    // comparison by parse), and the shared default would make every parse look the same.
    m.frontmatter = opt_.frontmatter_json ? frontmatter_json(root, frontmatter) : SharedJson(nlohmann::json::object());
    if (reference()) check_reference_keys();
    read_name(m);
    read_description(m);
    read_compatibility(m);
    read_license(m);
    read_metadata(m);
    read_tool_lists(m);
    read_invocation_flags(m);
    read_version_and_category(m);
    read_tags_and_aliases(m);
    note_behavioral_fields(m);
    if (!failed_) out_.keep(std::move(m));
}

// Top-level keys, the last of a duplicated key winning (as JSON does).
void Parse::collect_fields(const YNode& root) {
    fields_.reserve(root.items.size() / 2);  // one allocation, not a growth step per key or two
    for (std::size_t i = 0; i + 1 < root.items.size(); i += 2) {
        std::string key = key_text(root.items[i]);
        const std::size_t line = file_line(root.items[i].line);
        if (const Field* seen = field(key)) {
            add(codes::duplicate_key, Level::warning, Level::error, line,
                fmt::format("the key '{}' appears more than once; the last value is used", key));
            Field& f = fields_[static_cast<std::size_t>(seen - fields_.data())];
            f.value = &root.items[i + 1];
            f.line = line;
            continue;
        }
        if (!field_index_.empty()) {
            field_index_.emplace(key, fields_.size());
        } else if (fields_.size() == indexed_fields) {
            for (std::size_t k = 0; k < fields_.size(); ++k) field_index_.emplace(fields_[k].key, k);
            field_index_.emplace(key, fields_.size());
        }
        fields_.push_back({std::move(key), &root.items[i + 1], line});
    }
}

const Parse::Field* Parse::field(std::string_view key) const {
    if (!field_index_.empty()) {
        auto it = field_index_.find(std::string(key));
        return it == field_index_.end() ? nullptr : &fields_[it->second];
    }
    for (const Field& f : fields_) {
        if (f.key == key) return &f;
    }
    return nullptr;
}

const YNode* Parse::find(std::string_view key) const {
    const Field* f = field(key);
    return f == nullptr ? nullptr : f->value;
}

std::size_t Parse::line_of(std::string_view key) const {
    const Field* f = field(key);
    return f == nullptr ? 2 : f->line;
}

void Parse::check_reference_keys() {
    std::vector<std::string> unknown;
    for (const Field& f : fields_) {
        if (std::find(std::begin(reference_fields), std::end(reference_fields), f.key) == std::end(reference_fields)) {
            unknown.push_back(f.key);
        }
    }
    if (unknown.empty()) return;
    std::sort(unknown.begin(), unknown.end());
    std::string list;
    for (const auto& k : unknown) list += (list.empty() ? "" : ", ") + k;
    add(codes::unknown_field, Level::none, Level::error, line_of(unknown.front()),
        fmt::format("unexpected keys in the frontmatter: {} (the reference allows only allowed-tools, "
                    "compatibility, description, license, metadata and name)",
                    list));
}

void Parse::read_name(SkillManifest& m) {
    const YNode* node = find("name");
    const std::size_t line = line_of("name");
    if (node == nullptr) {
        if (require_valid() && !reference() && !opt_.directory_name.empty()) {
            check_name_rules(nfkc(opt_.directory_name), line, m);
        } else {
            fatal(codes::name_missing, 2, "the frontmatter has no 'name'");
        }
        return;
    }
    if (!node->is_scalar()) {
        fatal(codes::name_not_string, line, "'name' must be a string");
        return;
    }
    const std::string_view name = trim(node->text);
    if (is_blank_text(name)) {
        fatal(codes::name_blank, line,
              name.empty() ? "'name' is empty" : "'name' is blank (only white space or invisible characters)");
        return;
    }
    check_name_rules(name, line, m);
}

void Parse::check_name_rules(std::string_view name, std::size_t line, SkillManifest& m) {
    if (!reference() && !is_addressable_name(name)) {  // kept, no lookup would find it
        const bool slash = name.front() == '/';
        fatal(slash ? codes::name_invalid_character : codes::name_too_long, line,
              slash ? fmt::format("the name '{}' starts with '/', which every name lookup drops", shown(name))
                    : fmt::format("the name has more than {} characters; no name lookup would find it",
                                  NFKC_MAX_CODE_POINTS));
        return;
    }
    const Level rule_level = require_valid() ? Level::error : Level::warning;
    std::string normalized = nfkc(name);
    for (NameProblem p : check_skill_name(normalized)) {
        add(code_of(p), rule_level, Level::error, line,
            fmt::format("the name '{}' {}", shown(normalized), describe(p)));
    }
    if (!opt_.directory_name.empty() && !names_equal(opt_.directory_name, normalized)) {
        add(codes::name_directory_mismatch, rule_level, Level::error, line,
            fmt::format("the name '{}' does not match its directory '{}'", shown(normalized),
                        shown(opt_.directory_name)));
    }
    // The name as written (NFKC under require_valid); usually the two are the same bytes, and the
    // normalized copy is moved instead of copying the name again.
    m.name = require_valid() || normalized == name ? std::move(normalized) : std::string(name);
}

void Parse::read_description(SkillManifest& m) {
    const YNode* d = find("description");
    const std::size_t line = line_of("description");
    if (d == nullptr) {
        fatal(codes::description_missing, 2, "the frontmatter has no 'description'");
        return;
    }
    if (!d->is_scalar()) {
        fatal(codes::description_not_string, line, "'description' must be a string");
        return;
    }
    if (is_blank_text(d->text)) {
        fatal(codes::description_blank, line,
              is_blank(d->text) ? "'description' is empty"
                                : "'description' is blank (only white space or invisible characters)");
        return;
    }
    if (has_control_character(d->text)) {
        const Level level = require_valid() ? Level::error : Level::warning;
        add(codes::description_control_character, level, level, line,
            "'description' holds a control character (only TAB and line feed are allowed)");
    }
    Limited value = limited(reference() ? std::string_view(d->text) : trim(d->text), SKILL_MAX_DESCRIPTION_LENGTH);
    if (value.cut) {
        add(codes::description_too_long, Level::warning, Level::error, line,
            fmt::format("'description' has {} characters, more than {}{}", value.code_points,
                        SKILL_MAX_DESCRIPTION_LENGTH, reference() ? "" : "; it was cut at the limit"));
    }
    m.description = std::move(value.value);
}

void Parse::read_compatibility(SkillManifest& m) {
    const YNode* c = find("compatibility");
    if (c == nullptr) return;
    const std::size_t line = line_of("compatibility");
    if (!c->is_scalar()) {
        add(codes::compatibility_not_string, Level::warning, Level::error, line,
            "'compatibility' must be a string; it was ignored");
        return;
    }
    Limited value = limited(reference() ? std::string_view(c->text) : trim(c->text), SKILL_MAX_COMPATIBILITY_LENGTH);
    if (value.cut) {
        add(codes::compatibility_too_long, Level::warning, Level::error, line,
            fmt::format("'compatibility' has {} characters, more than {}{}", value.code_points,
                        SKILL_MAX_COMPATIBILITY_LENGTH, reference() ? "" : "; it was cut at the limit"));
    }
    if (!value.value.empty()) m.compatibility = std::move(value.value);
}

void Parse::read_license(SkillManifest& m) {
    const YNode* l = find("license");
    if (l == nullptr) return;
    if (!l->is_scalar()) {
        add(codes::license_not_string, Level::warning, Level::none, line_of("license"),
            "'license' must be a string; it was ignored");
        return;
    }
    if (!trim(l->text).empty()) m.license = std::string(trim(l->text));
}

// An ordered string map: scalars keep their text, other values become compact JSON; the last of
// a duplicated key wins, in the place of the first.
void Parse::read_metadata(SkillManifest& m) {
    const YNode* md = find("metadata");
    if (md == nullptr) return;
    if (md->kind != YNode::Kind::mapping) {
        if (!(md->kind == YNode::Kind::null && md->text.empty())) {
            add(codes::metadata_not_mapping, Level::warning, Level::none, line_of("metadata"),
                "'metadata' must be a mapping of keys to values; it was ignored");
        }
        return;
    }
    // The later of two equal keys wins, in the place of the first. A handful of keys is found by
    // a scan; past `indexed_fields` keys a hash index is kept as well (key -> index in m.metadata).
    std::unordered_map<std::string, std::size_t> position;
    m.metadata.reserve(md->items.size() / 2);  // one entry for each key at most
    for (std::size_t i = 0; i + 1 < md->items.size(); i += 2) {
        const YNode& value = md->items[i + 1];
        std::string text = value.is_scalar() ? value.text : to_json(value).dump();
        std::string key = key_text(md->items[i]);
        std::size_t at = m.metadata.size();
        if (m.metadata.size() < indexed_fields) {
            for (std::size_t k = 0; k < m.metadata.size(); ++k) {
                if (m.metadata[k].first == key) {
                    at = k;
                    break;
                }
            }
        } else {
            if (position.empty()) {
                for (std::size_t k = 0; k < m.metadata.size(); ++k) position.emplace(m.metadata[k].first, k);
            }
            auto [it, inserted] = position.emplace(key, m.metadata.size());
            if (!inserted) at = it->second;
        }
        if (at == m.metadata.size()) {
            m.metadata.emplace_back(std::move(key), std::move(text));
        } else {
            m.metadata[at].second = std::move(text);
        }
    }
}

void Parse::read_tool_lists(SkillManifest& m) {
    if (const YNode* at = find("allowed-tools")) {
        if (auto list = read_list(*at, "allowed-tools", false)) m.allowed_tools = std::move(*list);
        cap_tool_names(m.allowed_tools, "allowed-tools", line_of("allowed-tools"));
    }
    if (const YNode* t = find("tools")) {
        if (t->kind == YNode::Kind::null || (t->kind == YNode::Kind::scalar && trim(t->text).empty())) {
            // `tools:`, `tools: ~`, `tools: ""`: no list was given, so every tool stays available.
            add(codes::tool_list_empty, Level::warning, Level::none, line_of("tools"),
                "'tools' has no value; it counts as absent and every tool stays available");
        } else if (auto list = read_list(*t, "tools", true)) {
            cap_tool_names(*list, "tools", line_of("tools"));
            m.tools = std::move(*list);
        }
    }
    for (std::string_view key : {"disallowedTools", "disallowed-tools"}) {
        if (const YNode* t = find(key)) {
            if (auto list = read_list(*t, key, true)) {
                m.disallowed_tools.insert(m.disallowed_tools.end(), list->begin(), list->end());
            }
        }
    }
    dedupe(m.disallowed_tools);
    cap_tool_names(m.disallowed_tools, "disallowedTools",
                   line_of(find("disallowedTools") != nullptr ? "disallowedTools" : "disallowed-tools"));
}

void Parse::read_invocation_flags(SkillManifest& m) {
    if (reference()) return;  // not keys of the reference format
    if (const YNode* f = find("disable-model-invocation")) {
        if (auto v = read_flag(*f, "disable-model-invocation")) m.disable_model_invocation = *v;
    }
    if (const YNode* f = find("user-invocable")) {
        if (auto v = read_flag(*f, "user-invocable")) m.user_invocable = *v;
    }
}

void Parse::read_version_and_category(SkillManifest& m) {
    for (std::string_view key : {"version", "category"}) {
        const YNode* v = find(key);
        if (v == nullptr) continue;
        if (!v->is_scalar()) {
            add(codes::field_type, Level::warning, Level::none, line_of(key),
                fmt::format("'{}' must be a string; it was ignored", key));
            continue;
        }
        if (!trim(v->text).empty()) (key == "version" ? m.version : m.category) = std::string(trim(v->text));
    }
}

void Parse::read_tags_and_aliases(SkillManifest& m) {
    if (const YNode* t = find("tags")) {
        if (auto list = read_list(*t, "tags", true)) m.tags = std::move(*list);
    }
    if (const YNode* a = find("aliases")) {
        if (auto list = read_list(*a, "aliases", true)) m.aliases = std::move(*list);
    }
}

void Parse::note_behavioral_fields(SkillManifest& m) const {
    for (const Field& f : fields_) {
        if (std::find(std::begin(behavioral_fields), std::end(behavioral_fields), f.key) !=
            std::end(behavioral_fields)) {
            m.ignored_behavioral_fields.push_back(f.key);
        }
    }
}

std::optional<std::vector<std::string>> Parse::read_list(const YNode& node, std::string_view key, bool commas) {
    std::vector<std::string> out;
    if (node.is_scalar()) {
        out = split_list(node.text, commas);
    } else if (node.kind == YNode::Kind::sequence) {
        for (const auto& item : node.items) {
            if (!item.is_scalar()) {
                add(codes::field_type, Level::warning, Level::none, file_line(item.line),
                    fmt::format("an item of '{}' is not a plain value; it was ignored", key));
                continue;
            }
            const auto t = trim(item.text);
            if (!t.empty()) out.emplace_back(t);
        }
    } else {
        add(codes::field_type, Level::warning, Level::none, file_line(node.line),
            fmt::format("'{}' must be a string or a list; it was ignored", key));
        return std::nullopt;
    }
    dedupe(out);
    return out;
}

void Parse::cap_tool_names(std::vector<std::string>& names, std::string_view key, std::size_t line) {
    if (names.size() <= SKILL_MAX_TOOL_NAMES) return;
    add(codes::tool_list_too_long, Level::warning, Level::warning, line,
        fmt::format("'{}' names {} tools, more than the limit of {}; the names after the first {} were dropped", key,
                    names.size(), SKILL_MAX_TOOL_NAMES, SKILL_MAX_TOOL_NAMES));
    names.resize(SKILL_MAX_TOOL_NAMES);
}

std::optional<bool> Parse::read_flag(const YNode& node, std::string_view key) {
    if (node.is_scalar()) {
        std::string lower(trim(node.text));
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; });
        if (lower == "true") return true;
        if (lower == "false") return false;
    }
    add(codes::invocation_flag_invalid, Level::error, Level::none, file_line(node.line),
        fmt::format("'{}' must be true or false, not '{}'; the skill is skipped rather than guess", key,
                    node.is_scalar() ? node.text : to_json(node).dump()));
    return std::nullopt;
}

}  // namespace agentskills::detail
