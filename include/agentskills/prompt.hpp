// agentskills-cpp — the texts the model sees: the catalog block and activation content.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "skill.hpp"

namespace agentskills {

/// Escapes `&`, `<`, `>`, `"` and `'` for XML text and attribute values.
[[nodiscard]] std::string xml_escape(std::string_view text);

/// `<available_skills>` with one `<skill>` (name, description, location) per manifest, in order.
[[nodiscard]] std::string render_available_skills(const std::vector<const SkillManifest*>& skills);

/// One entry of a catalog listing; `include_description = false` leaves `<description>` out
/// (what a size budget does to low-priority entries first).
struct CatalogEntry {
    const SkillManifest* manifest = nullptr;
    bool include_description = true;
};

/// `<available_skills>` over entries that may lack their description. Layout:
///
///     <available_skills>
///       <skill>
///         <name>NAME</name>
///         <description>DESCRIPTION</description>
///         <location>SKILL.md PATH</location>
///       </skill>
///     </available_skills>
///
/// Every value is XML-escaped. No entries: `<available_skills>` and its closing tag only.
///
/// The result is model text (text.hpp): valid UTF-8 with no control character other than TAB
/// and LF — each other one, each byte that is not UTF-8, and U+FFFE / U+FFFF become U+FFFD (CR LF
/// and CR become LF) — so it is well-formed XML 1.0 and holds no NUL.
[[nodiscard]] std::string render_available_skills(const std::vector<CatalogEntry>& entries);

/// The same bytes as render_available_skills(skills), handed to `sink` in pieces of about
/// 64 KB (each a run of whole lines) instead of built as one string: for a caller that writes
/// a large block out, such as the CLI's `to-prompt`, which then never holds the whole block.
void write_available_skills(const std::vector<const SkillManifest*>& skills,
                            const std::function<void(std::string_view)>& sink);

/// The note after the `Skill directory:` line of an activation result.
inline constexpr std::string_view SKILL_DIRECTORY_NOTE =
    "Relative paths in these instructions start from the skill directory. Activating a skill does not "
    "change the working directory of any tool: give file tools the read_path of a resource listed below, "
    "or a path joined with the skill directory.";

struct SkillContentOptions {
    /// Include the `Skill directory:` line and the note on relative references.
    bool include_directory = true;
};

/// The first-activation result, exactly as the activation core renders it: this is
/// `render_activation_text` (activation.hpp) with the same option, kept for the prompt API.
///
///     <skill_content name="NAME">
///     INSTRUCTIONS
///
///     Skill directory: ROOT
///     SKILL_DIRECTORY_NOTE
///
///     <skill_resources>
///       <file path="references/a.md" read_path="ROOT/references/a.md" />
///       and 3 more files are not listed.
///     </skill_resources>
///     </skill_content>
///
/// Without `include_directory` the `Skill directory:` line, the note and every `read_path` are
/// left out (the model's tools could not reach them). The `and N more` line is there only when
/// `omitted_resources > 0`. The instructions are verbatim Markdown except that the `<` of
/// anything reading as a wrapper tag (`skill_content`, `skill_resources`) is written `&lt;`;
/// the name, directory and paths are XML-escaped. The whole text is model text: control
/// characters other than TAB and LF, bytes that are not UTF-8, U+FFFE and U+FFFF become U+FFFD.
[[nodiscard]] std::string render_skill_content(const LoadedSkill& skill, const SkillContentOptions& options = {});

}  // namespace agentskills
