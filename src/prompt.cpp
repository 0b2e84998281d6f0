#include "agentskills/prompt.hpp"

#include <fmt/core.h>

#include "agentskills/reader.hpp"

namespace agentskills {

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string render_available_skills(const std::vector<CatalogEntry>& entries) {
    std::string out = "<available_skills>\n";
    for (const auto& e : entries) {
        if (e.manifest == nullptr) continue;
        const SkillManifest& m = *e.manifest;
        out += "  <skill>\n    <name>";
        out += xml_escape(m.name);
        out += "</name>\n";
        if (e.include_description) {
            out += "    <description>";
            out += xml_escape(m.description);
            out += "</description>\n";
        }
        out += "    <location>";
        out += xml_escape(m.skill_file);
        out += "</location>\n  </skill>\n";
    }
    out += "</available_skills>";
    return out;
}

std::string render_available_skills(const std::vector<const SkillManifest*>& skills) {
    std::vector<CatalogEntry> entries;
    entries.reserve(skills.size());
    for (const auto* m : skills) entries.push_back({.manifest = m, .include_description = true});
    return render_available_skills(entries);
}

std::string render_skill_content(const LoadedSkill& skill, const SkillContentOptions& options) {
    const SkillManifest& m = skill.manifest;
    std::string out = fmt::format("<skill_content name=\"{}\">\n", xml_escape(m.name));
    if (!skill.instructions.empty()) {
        out += skill.instructions;
        out += "\n\n";
    }
    if (options.include_directory) {
        out += fmt::format("Skill directory: {}\n{}\n\n", xml_escape(m.root), SKILL_DIRECTORY_NOTE);
    }
    out += "<skill_resources>\n";
    for (const auto& r : skill.resources) {
        out += fmt::format("  <file path=\"{}\" read_path=\"{}\" />\n", xml_escape(r.path),
                           xml_escape(join_path(m.root, r.path)));
    }
    out += "</skill_resources>\n</skill_content>";
    return out;
}

}  // namespace agentskills
