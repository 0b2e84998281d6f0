#include "agentskills/activation/prompt.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <numeric>

#include "../base/model_output.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/storage/reader.hpp"
#include "texts.hpp"

namespace agentskills {

namespace texts = detail::texts;

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    std::size_t from = 0;  // start of the run of characters not copied yet
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::string_view entity;
        switch (text[i]) {
            case '&':
                entity = "&amp;";
                break;
            case '<':
                entity = "&lt;";
                break;
            case '>':
                entity = "&gt;";
                break;
            case '"':
                entity = "&quot;";
                break;
            case '\'':
                entity = "&apos;";
                break;
            default:
                continue;
        }
        out.append(text.substr(from, i - from));
        out.append(entity);
        from = i + 1;
    }
    out.append(text.substr(from));
    return out;
}

namespace {

void append_skill_entry(std::string& out, const CatalogEntry& e) {
    const SkillManifest& m = *e.manifest;
    out += "  <skill>\n    <name>";
    detail::append_finished_xml(out, m.name);
    out += "</name>\n";
    if (e.include_description && m.mode != SkillMode::name_only) {
        out += "    <description>";
        detail::append_finished_xml(out, m.description);
        out += "</description>\n";
    }
    out += "    <location>";
    detail::append_finished_xml(out, m.skill_file);
    out += "</location>\n  </skill>\n";
}

constexpr std::string_view catalog_open = "<available_skills>\n";
constexpr std::string_view catalog_close = "</available_skills>";

}  // namespace

std::string render_available_skills(const std::vector<CatalogEntry>& entries) {
    // Sized once (escaping may still grow it): a 10,000-skill block is megabytes, and growing it
    // by doubling would hold two copies at the peak of a to-prompt run.
    std::size_t size = 64;
    for (const auto& e : entries) {
        if (e.manifest == nullptr) continue;
        size += 104 + e.manifest->name.size() + e.manifest->skill_file.size() +
                (e.include_description ? e.manifest->description.size() : 0);
    }
    std::string out;
    out.reserve(size);
    out += catalog_open;
    for (const auto& e : entries) {
        if (e.manifest != nullptr) append_skill_entry(out, e);
    }
    out += catalog_close;
    // Each value went in as finished model text and the markup is plain ASCII, so the block is
    // finished model text as a whole (model_output.hpp) without a pass over it.
    return out;
}

void write_available_skills(const std::vector<const SkillManifest*>& skills,
                            const std::function<void(std::string_view)>& sink) {
    constexpr std::size_t piece = 64 * 1024;
    std::string out;
    out.reserve(piece + 4096);
    out += catalog_open;
    for (const SkillManifest* m : skills) {
        if (m == nullptr) continue;
        append_skill_entry(out, CatalogEntry{.manifest = m, .include_description = true});
        if (out.size() >= piece) {
            sink(out);
            out.clear();
        }
    }
    out += catalog_close;
    sink(out);
}

std::string render_available_skills(const std::vector<const SkillManifest*>& skills) {
    std::vector<CatalogEntry> entries;
    entries.reserve(skills.size());
    for (const auto* m : skills) entries.push_back({.manifest = m, .include_description = true});
    return render_available_skills(entries);
}

// ---------------------------------------------------------------------------------------
// The system-prompt block

namespace {

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
    // Sized for one {skills}, the usual template, so that the block (tens of kilobytes for an
    // agent's skills) is copied once and not moved again by growth.
    if (values != nullptr) out.reserve(tpl.size() + values->skills.size() + values->tool_name.size() + 16);
    std::size_t i = 0;
    while (i < tpl.size()) {
        char c = tpl[i];
        if (c != '{' && c != '}') {
            // A run of literal text up to the next brace.
            const std::size_t next = tpl.find_first_of("{}", i);
            const std::size_t end = next == std::string_view::npos ? tpl.size() : next;
            out.append(tpl.substr(i, end - i));
            i = end;
        } else if (c == '{' && i + 1 < tpl.size() && tpl[i + 1] == '{') {
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
        } else {
            throw ConfigurationError("skills system prompt: stray '}' (write '}}' for a literal brace)");
        }
    }
    return out;
}

}  // namespace

void check_system_prompt(const SystemPrompt& prompt) {
    if (const auto* tpl = std::get_if<std::string>(&prompt)) {
        (void)expand_template(*tpl, nullptr);
    } else if (!std::get<SystemPromptCallback>(prompt)) {
        throw ConfigurationError("skills system prompt: the callback is empty");
    }
}

SkillsPrompt render_skills_prompt(const std::vector<SkillManifest>& skills, const SkillsPromptOptions& options) {
    std::vector<const SkillManifest*> invocable;
    for (const auto& m : skills) {
        if (m.model_invocable()) invocable.push_back(&m);
    }
    SkillsPrompt result;
    if (invocable.empty()) return result;
    const std::size_t n = invocable.size();
    const CatalogBudget& budget = options.budget;
    auto measure = [&](std::string_view text) { return budget.count ? budget.count(text) : code_point_count(text); };

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
        const std::string catalog_text = render_available_skills(entries);
        // {skills} is the catalog, with a line after it when the budget left skills out.
        std::string with_note;
        if (!out.omitted.empty()) with_note = catalog_text + "\n" + texts::skills_not_listed(out.omitted.size());
        const std::string_view skills_text = out.omitted.empty() ? std::string_view(catalog_text) : with_note;
        if (const auto* tpl = std::get_if<std::string>(&options.system_prompt)) {
            PlaceholderValues values{.tool_name = options.tool_name,
                                     .skills = skills_text,
                                     .skill_count = std::to_string(out.listed.size()),
                                     .omitted_count = std::to_string(out.omitted.size())};
            out.text = expand_template(*tpl, &values);
        } else {
            SkillsPromptContext ctx{.tool_name = options.tool_name,
                                    .skills = skills_text,
                                    .catalog = catalog_text,
                                    .skill_count = out.listed.size(),
                                    .omitted_count = out.omitted.size()};
            out.text = std::get<SystemPromptCallback>(options.system_prompt)(ctx);
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

namespace {

// The seed-002 facade's Markdown section (ActivationLayout::section).
std::string render_section(const LoadedSkill& skill, std::string_view instructions, bool include_directory) {
    const SkillManifest& m = skill.manifest;
    std::string out = "## Skill: ";
    out += detail::finished_model_text(m.name);
    out += '\n';
    if (!instructions.empty()) {
        out += '\n';
        out += detail::finished_model_text(instructions);
        out += '\n';
    }
    if (include_directory && !m.root.empty()) {
        out += "\nSkill directory: ";
        out += detail::finished_model_text(m.root);
        out += '\n';
    }
    if (!skill.resources.empty()) {
        out += "\nBundled files (relative to the skill directory):\n";
        for (const auto& r : skill.resources) {
            out += "- ";
            out += detail::finished_model_text(r.path);
            out += '\n';
        }
    }
    out.pop_back();  // no trailing newline
    return out;
}

}  // namespace

std::string render_activation_text(const LoadedSkill& skill, const ActivationTextOptions& options) {
    std::string substituted;
    std::string_view instructions = skill.instructions;
    if (options.arguments) {
        substituted = substitute_arguments(skill.instructions, *options.arguments, options.max_bytes);
        instructions = substituted;
    }
    if (options.layout == ActivationLayout::section)
        return render_section(skill, instructions, options.include_directory);
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
    out.reserve(instructions.size() + m.name.size() + 2 * root.size() + SKILL_DIRECTORY_NOTE.size() + 160 +
                (mcp ? m.library.size() + 32 : 0) + skill.resources.size() * (root.size() + 48));
    out += "<skill_content name=\"";
    detail::append_finished_xml(out, m.name);
    out += "\">\n";
    if (!instructions.empty()) {
        if (detail::is_finished_model_text(instructions)) {
            append_neutralized(out, instructions);
        } else {
            append_neutralized(out, detail::finished_model_text(instructions));
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
    // Whatever the reader: a directory whose files could not be listed is named, never dropped.
    for (std::size_t i = 0; i < skill.unlisted_directories.size(); ++i) {
        out += "  The files in the directory \"";
        detail::append_finished_xml(out, skill.unlisted_directories[i]);
        if (i >= skill.unlisted_reasons.size()) {
            out += "\" are not listed: it could not be read in full.\n";  // the loader did not say why
        } else if (skill.unlisted_reasons[i] == UnlistedReason::too_deep) {
            out += "\" are not listed: it lies too deep below the skill directory.\n";
        } else {
            out += "\" are not listed: it could not be read.\n";
        }
    }
    if (skill.resources_incomplete && skill.unlisted_directories.empty()) {
        out += "  The listing stopped early: more files may exist.\n";
    }
    out += "</skill_resources>\n</skill_content>";
    return out;
}

}  // namespace agentskills
