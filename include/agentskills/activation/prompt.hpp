// agentskills-cpp — the texts the model sees, each made by one renderer: the catalog block of the
// system prompt (render_skills_prompt, over render_available_skills) and the activation text
// (render_activation_text). The activator, the shim, the MCP server, the host API and the
// seed-002 facade all call these; none renders on its own.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "../base/skill.hpp"

namespace agentskills {

/// Escapes `&`, `<`, `>`, `"` and `'` for XML text and attribute values.
[[nodiscard]] std::string xml_escape(std::string_view text);

// ---------------------------------------------------------------------------------------
// The catalog block

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
/// Every value is XML-escaped. No entries: `<available_skills>` and its closing tag only. A skill
/// whose mode is `name-only` is listed without its description.
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

/// The built-in system-prompt template. Placeholders: `{tool_name}` (the activation tool),
/// `{skills}` (the `<available_skills>` listing, followed by a line that counts the skills a
/// budget left out, if any), `{skill_count}` (skills listed), `{omitted_count}`. `{{` and `}}`
/// give literal braces.
inline constexpr std::string_view DEFAULT_SKILLS_SYSTEM_PROMPT =
    "Skills are packaged instructions, with the scripts, references and other files they need, for "
    "particular kinds of tasks. The skills you can use are listed below, each with its name, a description "
    "of when it helps and the location of its SKILL.md file.\n"
    "\n"
    "Before you work on a task that matches a skill's description, call the `{tool_name}` tool with that "
    "skill's name: it returns the skill's full instructions and the files that come with it. Activate only "
    "the skills the task needs, each of them once; after activation its instructions stay in this "
    "conversation.\n"
    "\n"
    "{skills}";

/// What a system-prompt callback gets.
struct SkillsPromptContext {
    std::string_view tool_name;
    /// `<available_skills>` plus, when a budget omitted skills, the line that says how many.
    std::string_view skills;
    /// The `<available_skills>` element alone.
    std::string_view catalog;
    std::size_t skill_count = 0;    ///< skills listed
    std::size_t omitted_count = 0;  ///< model-invocable skills left out by the budget
};

using SystemPromptCallback = std::function<std::string(const SkillsPromptContext&)>;
/// A template string with placeholders, or a callback that builds the whole block.
using SystemPrompt = std::variant<std::string, SystemPromptCallback>;

/// Optional size budget of the system-prompt block.
struct CatalogBudget {
    /// Largest block size; 0 = no budget.
    std::size_t limit = 0;
    /// Measures a text (tokens, say); nullptr = Unicode code points.
    std::function<std::size_t(std::string_view)> count = nullptr;
    /// Higher priority is kept longer; ties keep the earlier catalog entry. nullptr = the
    /// catalog order (the end of the catalog goes first).
    std::function<int(const SkillManifest&)> priority = nullptr;
};

/// How render_skills_prompt builds the block.
struct SkillsPromptOptions {
    SystemPrompt system_prompt = std::string(DEFAULT_SKILLS_SYSTEM_PROMPT);
    /// The activation tool the guidance names (`{tool_name}`).
    std::string tool_name = "activate_skill";
    CatalogBudget budget = {};
};

/// The system-prompt block for one catalog.
struct SkillsPrompt {
    /// The block exactly as appended; empty when no skill is model-invocable.
    std::string text;
    std::vector<std::string> listed;               ///< in catalog order
    std::vector<std::string> without_description;  ///< listed, but without a description
    std::vector<std::string> omitted;              ///< left out by the budget, in catalog order
    std::size_t size = 0;                          ///< `text` measured by the budget's counter
};

/// Throws ConfigurationError for a template with an unknown placeholder or an unpaired brace,
/// and for an empty callback.
void check_system_prompt(const SystemPrompt& prompt);

/// The block for the model-invocable skills of `skills` (catalog order): the template expanded
/// (or the callback's text) over their `<available_skills>`. Over the budget, the least important
/// entries lose their descriptions first, then are left out (the block then says how many); the
/// result is the smallest such step that fits, or the last one. Empty without a model-invocable
/// skill. Throws ConfigurationError as check_system_prompt does.
[[nodiscard]] SkillsPrompt render_skills_prompt(const std::vector<SkillManifest>& skills,
                                                const SkillsPromptOptions& options = {});

// ---------------------------------------------------------------------------------------
// The activation text

/// The note after the `Skill directory:` line of an activation result.
inline constexpr std::string_view SKILL_DIRECTORY_NOTE =
    "Relative paths in these instructions start from the skill directory. Activating a skill does not "
    "change the working directory of any tool: give file tools the read_path of a resource listed below, "
    "or a path joined with the skill directory.";

/// Largest instructions text, in bytes, that substituting arguments may produce (4 MiB).
inline constexpr std::size_t RENDER_MAX_BYTES = 4 * 1024 * 1024;

/// The two shapes of the activation text.
enum class ActivationLayout {
    /// The `<skill_content>` block the activation tool, the shim, the MCP server and the host's
    /// `render` return (below).
    skill_content,
    /// The Markdown section of the seed-002 facade (SkillPackage::to_context_block, SkillTool):
    ///
    ///     ## Skill: NAME
    ///
    ///     INSTRUCTIONS
    ///
    ///     Skill directory: ROOT
    ///
    ///     Bundled files (relative to the skill directory):
    ///     - references/a.md
    ///
    /// (each part only when there is something to show; no trailing newline).
    section
};

/// How `render_activation_text` renders a skill.
struct ActivationTextOptions {
    /// Whether the model's own tools can reach the skill directory: with `true` the text has the
    /// `Skill directory:` line, the note and a `read_path` per file; with `false` neither (only
    /// the paths relative to the skill directory).
    bool include_directory = true;
    ActivationLayout layout = ActivationLayout::skill_content;
    /// A person's arguments: the instructions go through substitute_arguments first, bounded by
    /// `max_bytes` (0 = no limit; past it, ConfigurationError). nullopt = the instructions as they are.
    std::optional<std::string_view> arguments = std::nullopt;
    std::size_t max_bytes = RENDER_MAX_BYTES;
};

/// The first-activation text, exactly as every entry point hands it over:
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
/// `omitted_resources > 0` (`1 more file is`). A skill whose `library` is `mcp:LABEL` (served by
/// an MCP server, McpSkillLoader) gets the line `Source: the MCP server "LABEL".` and a blank line
/// before its resources. Every name, path and the body are made model text (valid UTF-8, no control
/// character but TAB and LF; U+FFFE and U+FFFF become U+FFFD too); names and paths are
/// XML-escaped; the body is verbatim except that the `<` of anything in it that reads as a tag of
/// the wrapper (`skill_content`, `skill_resources`, opening or closing, any ASCII case, `-` for
/// `_`, white space after `<` or `/`) is written `&lt;`, so that no body can end its block or forge
/// another. The `section` layout has the same pieces as that model text, unescaped (it is Markdown).
[[nodiscard]] std::string render_activation_text(const LoadedSkill& skill, const ActivationTextOptions& options = {});

/// `body` with the wrapper tags neutralized as `render_activation_text` does (no other change).
[[nodiscard]] std::string neutralize_wrapper_tags(std::string_view body);

// ---------------------------------------------------------------------------------------
// Arguments

/// Substitutes user arguments into a skill body (docs/host.md, "Rendering"):
/// every `$ARGUMENTS` placeholder becomes `arguments`; when the body holds none, the line
/// `ARGUMENTS: <arguments>` is appended after one blank line (nothing is appended when
/// `arguments` is empty). `$ARGUMENTS[N]`, `$ARGUMENTS` followed by a letter, digit or `_`,
/// `$0`, `$1,000` and every other `$` text are left as written. The inserted text is never
/// scanned again.
///
/// The size of the result is computed before it is built; past `max_bytes` (0 = no limit)
/// nothing is built and ConfigurationError says both sizes.
[[nodiscard]] std::string substitute_arguments(std::string_view body, std::string_view arguments,
                                               std::size_t max_bytes = RENDER_MAX_BYTES);

/// The size in bytes of `substitute_arguments(body, arguments)`, without building it
/// (SIZE_MAX when it would not fit in a size_t).
[[nodiscard]] std::size_t substituted_size(std::string_view body, std::string_view arguments) noexcept;

}  // namespace agentskills
