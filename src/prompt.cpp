#include "agentskills/prompt.hpp"

#include <fmt/core.h>

#include "agentskills/activation.hpp"
#include "agentskills/reader.hpp"
#include "agentskills/text.hpp"
#include "model_output.hpp"

namespace agentskills {

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

std::string render_skill_content(const LoadedSkill& skill, const SkillContentOptions& options) {
    // One renderer: the text the activation core hands the model.
    return render_activation_text(skill, ActivationTextOptions{.include_directory = options.include_directory});
}

}  // namespace agentskills
