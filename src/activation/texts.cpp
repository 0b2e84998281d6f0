// The fixed texts tool calls return to the model (model_texts.hpp has the style).
#include "texts.hpp"

#include <fmt/core.h>

#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"

namespace agentskills::detail::texts {

std::string shown(std::string_view value) {
    constexpr std::size_t max_bytes = 4 * max_quoted_code_points;  // 128 code points of at most 4 bytes
    // Short clean text (the usual name) is shown as it is: it has at most max_quoted_code_points.
    if (value.size() <= max_quoted_code_points && is_model_text(value)) return std::string(value);
    const bool cut_bytes = value.size() > max_bytes;
    std::string text = model_text(cut_bytes ? value.substr(0, max_bytes) : value);
    if (!cut_bytes && code_point_count(text) <= max_quoted_code_points) return text;
    std::string out(truncate_code_points(text, max_quoted_code_points));
    out += "\u2026";
    return out;
}

std::string quoted(std::string_view value) { return "\"" + shown(value) + "\""; }

std::string name_list(const std::vector<std::string>& names, std::size_t max_listed) {
    const std::size_t listed = std::min(names.size(), max_listed);
    std::string out;
    for (std::size_t i = 0; i < listed; ++i) {
        if (i > 0) out += ", ";
        out += model_text(names[i]);
    }
    if (names.size() > listed) out += fmt::format("{}and {} more", listed > 0 ? ", " : "", names.size() - listed);
    return out;
}

std::string unknown_skill(std::string_view requested, const std::vector<std::string>& available,
                          std::size_t max_listed) {
    if (available.empty())
        return fmt::format("There is no skill named {}. No skills are available.", quoted(requested));
    return fmt::format("There is no skill named {}. Available skills: {}.", quoted(requested),
                       name_list(available, max_listed));
}

std::string already_active(std::string_view name, std::string_view where, std::string_view tool_name) {
    // Appended piece by piece: this text answers every repeated activation.
    const std::string shown_name = shown(name);
    std::string out;
    out.reserve(190 + shown_name.size() + where.size() + 2 * tool_name.size());
    out += "The skill \"";
    out += shown_name;
    out += "\" is already active: its instructions are in ";
    out += where;
    out += " that an earlier ";
    out += tool_name;
    out += " call returned in this conversation. Keep following that block; do not call ";
    out += tool_name;
    out += " for this skill again.";
    return out;
}

std::string skill_content_block(std::string_view name) {
    const std::string shown_name = shown(name);
    std::string out;
    out.reserve(40 + shown_name.size());
    out += "the <skill_content name=\"";
    out += shown_name;
    out += "\"> block";
    return out;
}

std::string skill_section(std::string_view name) { return fmt::format("the \"## Skill: {}\" block", shown(name)); }

std::string load_failed(std::string_view name, std::string_view reason) {
    std::string_view r = reason;
    while (!r.empty() && (r.back() == '.' || r.back() == ' ' || r.back() == '\n')) r.remove_suffix(1);
    if (r.empty()) r = "unknown error";
    return fmt::format("The skill {} could not be loaded: {}.", quoted(name), model_text(r));
}

std::string still_activating(std::string_view name) {
    return fmt::format("The skill {} could not be activated: another call is still activating it. Try again later.",
                       quoted(name));
}

std::string not_active(std::string_view requested, std::string_view activation_tool) {
    return fmt::format("There is no active skill named {}. Activate it with {} first.", quoted(requested),
                       activation_tool);
}

std::string arguments_not_json() { return "The arguments are not valid JSON."; }

std::string arguments_not_object() { return "The arguments are not a JSON object."; }

std::string argument_missing(std::string_view argument) {
    return fmt::format("The argument {} is missing.", quoted(argument));
}

std::string argument_not_text(std::string_view argument) {
    return fmt::format("The argument {} must be a non-empty string.", quoted(argument));
}

std::string argument_unknown(std::string_view argument) {
    return fmt::format("The argument {} is not known.", quoted(argument));
}

std::string action_unknown(std::string_view action) {
    return fmt::format("The action {} is not known.", quoted(action));
}

std::string activation_usage(std::string_view tool_name, std::string_view example) {
    return fmt::format(
        "The {} tool takes one argument, \"name\": the name of a skill from <available_skills>, for "
        "example {{\"name\": \"{}\"}}.",
        tool_name, shown(example));
}

std::string resource_usage(std::string_view tool_name) {
    return fmt::format(
        "The {} tool takes two arguments: \"name\", an active skill, and \"path\", a file its "
        "<skill_resources> lists, for example {{\"name\": \"skill-name\", \"path\": \"references/guide.md\"}}.",
        tool_name);
}

std::string skill_tool_usage(std::string_view tool_name, std::string_view example) {
    return fmt::format(
        "The {} tool takes \"action\": \"list\" to list the skills, or \"activate\" with \"name\", the name of a "
        "skill, for example {{\"action\": \"activate\", \"name\": \"{}\"}}.",
        tool_name, shown(example));
}

std::string file_not_text(std::string_view path, std::string_view type, std::string_view size) {
    return fmt::format("The file \"{}\" is not text ({}, {}); it cannot be shown here.", model_text(path), type, size);
}

std::string file_cut_note(std::string_view path, std::size_t cap, std::size_t shown_bytes) {
    return fmt::format("[The file \"{}\" is longer than {} bytes; only its first {} bytes are shown.]",
                       model_text(path), cap, shown_bytes);
}

std::string reattach_cut_note(std::string_view skill_file) {
    std::string out =
        "[Cut to fit the re-attach budget: the rest of this skill's instructions and its file list are left out.";
    if (!skill_file.empty()) out += fmt::format(" The whole skill is in {}.", xml_escape(model_text(skill_file)));
    out += ']';
    return out;
}

std::string skills_not_listed(std::size_t n) {
    if (n == 1) return "1 more skill is not listed here, to keep this list within its size budget.";
    return fmt::format("{} more skills are not listed here, to keep this list within its size budget.", n);
}

std::string skill_list(const std::vector<std::string>& lines) {
    if (lines.empty()) return "No skills are available.";
    std::string out = "Available skills:";
    for (const auto& line : lines) {
        out += "\n- ";
        out += line;
    }
    return out;
}

}  // namespace agentskills::detail::texts
