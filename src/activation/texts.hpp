// agentskills-cpp — private: every fixed text a tool call returns to the model, in one style.
//
// The style (docs/shim.md, "Texts the model sees"):
// - full sentences, each starting with a capital letter and ending with a period;
// - a skill name, file path, argument or action the sentence is about is in double quotes, as
//   model text, cut at 128 code points with "…" (quoted());
// - a tool name is written bare (it is an identifier, 1 to 64 of [A-Za-z0-9_-]);
// - a list of names follows a label and a colon, comma-separated, at most `max_listed` of them
//   and then "and N more" (name_list());
// - a wrong call says what is wrong in one sentence and then how the tool is called.
// Exception messages (the `error: MESSAGE` results) keep the exception style, errors.hpp.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace agentskills::detail::texts {

/// Most code points of a name or path that a text quotes.
inline constexpr std::size_t max_quoted_code_points = 128;

/// `value` as a text shows it: model text, cut after 128 code points with "…" (only the first
/// 512 bytes are looked at, so a hostile value costs no more than a short one).
[[nodiscard]] std::string shown(std::string_view value);

/// shown(value) in double quotes.
[[nodiscard]] std::string quoted(std::string_view value);

/// "a, b, c" or "a, b, and 3 more": the first `max_listed` of `names` (as model text).
[[nodiscard]] std::string name_list(const std::vector<std::string>& names, std::size_t max_listed);

/// `There is no skill named "x". Available skills: a, b.` (or `No skills are available.`).
[[nodiscard]] std::string unknown_skill(std::string_view requested, const std::vector<std::string>& available,
                                        std::size_t max_listed);

/// `The skill "x" is already active: its instructions are in WHERE that an earlier TOOL call
/// returned in this conversation. Keep following ...`. `where` names the block the tool returned.
[[nodiscard]] std::string already_active(std::string_view name, std::string_view where, std::string_view tool_name);

/// Where the activation tool's content is: `the <skill_content name="x"> block`.
[[nodiscard]] std::string skill_content_block(std::string_view name);

/// Where SkillTool's content is: `the "## Skill: x" block`.
[[nodiscard]] std::string skill_section(std::string_view name);

/// `The skill "x" could not be loaded: REASON.`
[[nodiscard]] std::string load_failed(std::string_view name, std::string_view reason);

/// `The skill "x" could not be activated: another call is still activating it. Try again later.`
[[nodiscard]] std::string still_activating(std::string_view name);

/// `There is no active skill named "x". Activate it with TOOL first.`
[[nodiscard]] std::string not_active(std::string_view requested, std::string_view activation_tool);

// What is wrong with a call's arguments (one sentence each).
[[nodiscard]] std::string arguments_not_json();
[[nodiscard]] std::string arguments_not_object();
[[nodiscard]] std::string argument_missing(std::string_view argument);
[[nodiscard]] std::string argument_not_text(std::string_view argument);
[[nodiscard]] std::string argument_unknown(std::string_view argument);
[[nodiscard]] std::string action_unknown(std::string_view action);

/// How the activation tool is called, with `example` as the example name.
[[nodiscard]] std::string activation_usage(std::string_view tool_name, std::string_view example);

/// How the read_skill_resource tool is called.
[[nodiscard]] std::string resource_usage(std::string_view tool_name);

/// How SkillTool is called, with `example` as the example name.
[[nodiscard]] std::string skill_tool_usage(std::string_view tool_name, std::string_view example);

/// `The file "P" is not text (TYPE, SIZE); it cannot be shown here.`
[[nodiscard]] std::string file_not_text(std::string_view path, std::string_view type, std::string_view size);

/// `[The file "P" is longer than CAP bytes; only its first SHOWN bytes are shown.]`
[[nodiscard]] std::string file_cut_note(std::string_view path, std::size_t cap, std::size_t shown);

/// `[Cut to fit the re-attach budget: ... left out. The whole skill is in PATH.]`: the end of a
/// re-attached skill cut to its budget; the last sentence only when `skill_file` is not empty
/// (it is XML-escaped model text there: the note sits inside a `<skill_content>` block).
[[nodiscard]] std::string reattach_cut_note(std::string_view skill_file);

/// `N more skills are not listed here, to keep this list within its size budget.` (`1 more
/// skill is ...` for one): the line after a catalog block that a budget shortened.
[[nodiscard]] std::string skills_not_listed(std::size_t n);

/// SkillTool's list: `Available skills:` and one `- name: description` line each, or
/// `No skills are available.`. `lines` are the `name: description` parts.
[[nodiscard]] std::string skill_list(const std::vector<std::string>& lines);

}  // namespace agentskills::detail::texts
