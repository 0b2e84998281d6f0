// Fuzz target: what the model sees — xml_escape, render_available_skills and
// render_activation_text over hostile names, descriptions, paths, bodies and resource paths.
//
// Input: an option byte, then fields separated by 0x01 bytes:
//   name, description, skill file, skill directory, body, resource paths (0x02-separated)
// A second skill is made from the same fields reversed, so the catalog has two entries.
#include <agentskills/activation/activation.hpp>
#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/base/text.hpp>

#include <algorithm>

#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

std::size_t count_char(std::string_view s, char c) {
    return static_cast<std::size_t>(std::count(s.begin(), s.end(), c));
}

std::string non_empty(std::string_view s) { return s.empty() ? std::string("x") : std::string(s); }

// What the model is shown of `s`: model_text, then U+FFFE and U+FFFF as U+FFFD.
std::string as_model_sees(std::string_view s) {
    std::string out = model_text(s);
    for (std::size_t pos = out.find("\xEF\xBF"); pos != std::string::npos; pos = out.find("\xEF\xBF", pos + 3)) {
        if (pos + 2 < out.size() && (out[pos + 2] == '\xBE' || out[pos + 2] == '\xBF')) out[pos + 2] = '\xBD';
    }
    return out;
}

// Model text: valid UTF-8, no control but TAB and LF, no U+FFFE / U+FFFF (so XML 1.0 characters).
bool is_clean_model_text(std::string_view s) {
    return is_valid_utf8(s) && is_model_text(s) && s.find("\xEF\xBF\xBE") == std::string_view::npos &&
           s.find("\xEF\xBF\xBF") == std::string_view::npos;
}

// Undoes xml_escape's five entities.
std::string unescape(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] != '&') {
            out += s[i++];
            continue;
        }
        const std::size_t semi = s.find(';', i);
        FUZZ_CHECK(semi != std::string_view::npos);
        const std::string_view entity = s.substr(i, semi - i + 1);
        if (entity == "&amp;")
            out += '&';
        else if (entity == "&lt;")
            out += '<';
        else if (entity == "&gt;")
            out += '>';
        else if (entity == "&quot;")
            out += '"';
        else if (entity == "&apos;" || entity == "&#39;")
            out += '\'';
        else
            FUZZ_CHECK(false && "unknown entity");
        i = semi + 1;
    }
    return out;
}

SkillManifest manifest(std::string name, std::string description, std::string file, std::string dir) {
    SkillManifest m;
    m.name = std::move(name);
    m.description = std::move(description);
    m.skill_file = std::move(file);
    m.root = std::move(dir);
    return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const std::string name = non_empty(in.until('\x01'));
    const std::string description = non_empty(in.until('\x01'));
    const std::string file = non_empty(in.until('\x01'));
    const std::string dir = non_empty(in.until('\x01'));
    const std::string body(in.until('\x01'));
    std::vector<SkillResource> resources;
    for (fuzz::Input res(reinterpret_cast<const std::uint8_t*>(in.rest().data()), in.rest().size());
         !res.empty() && resources.size() < 32;) {
        resources.push_back(SkillResource{non_empty(res.until('\x02'))});
    }

    // xml_escape: no markup character survives, and it is reversible.
    const std::string escaped = xml_escape(name);
    FUZZ_CHECK(escaped.find_first_of("<>\"'") == std::string::npos);
    FUZZ_CHECK(unescape(escaped) == name);

    // The catalog block: every field is escaped, so the markup is that of a plain catalog.
    SkillManifest a = manifest(name, description, file, dir);
    SkillManifest b = manifest(std::string(description.rbegin(), description.rend()),
                               std::string(name.rbegin(), name.rend()), dir, file);
    const std::string block = render_available_skills(std::vector<const SkillManifest*>{&a, &b});
    SkillManifest pa = manifest("x", "x", "x", "x");
    SkillManifest pb = manifest("x", "x", "x", "x");
    const std::string plain_block = render_available_skills(std::vector<const SkillManifest*>{&pa, &pb});
    FUZZ_CHECK(is_clean_model_text(block));
    FUZZ_CHECK(count_char(block, '<') == count_char(plain_block, '<'));
    FUZZ_CHECK(count_char(block, '>') == count_char(plain_block, '>'));
    // The same with descriptions left out (what a catalog budget does) and a null entry.
    const std::vector<CatalogEntry> entries = {{&a, (flags & 2) != 0}, {nullptr, true}, {&b, (flags & 4) != 0}};
    const std::vector<CatalogEntry> plain_entries = {{&pa, (flags & 2) != 0}, {&pb, (flags & 4) != 0}};
    FUZZ_CHECK(count_char(render_available_skills(entries), '<') ==
               count_char(render_available_skills(plain_entries), '<'));

    // The activation result is the activation core's text: the instructions as the model may see
    // them, wrapper tags neutralized; everything else is escaped.
    LoadedSkill skill;
    skill.manifest = a;
    skill.instructions = body;
    skill.resources = resources;
    ActivationTextOptions options;
    options.include_directory = (flags & 1) != 0;
    const std::string content = render_activation_text(skill, options);
    LoadedSkill plain;
    plain.manifest = manifest("x", "x", "x", "x");
    plain.instructions = std::string(body.size(), 'x');
    plain.resources.assign(resources.size(), SkillResource{"x"});
    const std::string plain_content = render_activation_text(plain, options);
    // The body's wrapper tags are neutralized (their `<` written `&lt;`); no other `<` is added.
    const std::string shown_body = neutralize_wrapper_tags(as_model_sees(body));
    FUZZ_CHECK(count_char(content, '<') == count_char(plain_content, '<') + count_char(shown_body, '<'));
    FUZZ_CHECK(is_clean_model_text(content));
    FUZZ_CHECK(content.find(shown_body) != std::string::npos);
    // The facade's section layout is the same pieces as model text, with no markup of its own.
    const std::string section = render_activation_text(
        skill, {.include_directory = options.include_directory, .layout = ActivationLayout::section});
    FUZZ_CHECK(is_clean_model_text(section));
    return 0;
}
