// agentskills CLI — `completion bash|zsh|fish` and the hidden `man`: both walk the program's
// CLI::App (its commands, their options and descriptions), the source --help is made of, so that
// neither can list a command or flag the program does not have.
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include <agentskills/base/version.hpp>

#include "command.hpp"
#include "conventions.hpp"

namespace agentskills::cli {
namespace {

/// One option of a command as the scripts need it.
struct OptionInfo {
    std::vector<std::string> names;  ///< "--root", "-r"
    std::string description;
    bool takes_value = false;
    std::vector<std::string> choices;  ///< the values of a `{a,b,c}` check, when it has one
};

struct CommandInfo {
    std::string name;
    std::string description;
    std::vector<OptionInfo> options;
    std::vector<std::string> positional_choices;
    bool positional = false;
};

/// The values of an IsMember check, from the type text CLI11 shows ("TEXT:{bash,zsh,fish}").
std::vector<std::string> choices_of(const CLI::Option& opt) {
    const std::string type = opt.get_type_name();
    const std::size_t open = type.find('{');
    const std::size_t close = type.find('}', open);
    std::vector<std::string> out;
    if (open == std::string::npos || close == std::string::npos) return out;
    std::string_view list = std::string_view(type).substr(open + 1, close - open - 1);
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        out.emplace_back(list.substr(0, comma));
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return out;
}

/// Whether the option reads a value (a flag does not; CLI11 names no type for a flag).
bool takes_value(const CLI::Option& opt) { return !opt.get_positional() && !opt.get_type_name().empty(); }

/// The first line of a description, for a completion menu.
std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

CommandInfo command_info(const CLI::App& cmd) {
    CommandInfo info{cmd.get_name(), cmd.get_description(), {}, {}, false};
    for (const CLI::Option* opt : cmd.get_options()) {
        if (opt->get_group().empty()) continue;  // hidden
        if (opt->get_positional()) {
            info.positional = true;
            const std::vector<std::string> choices = choices_of(*opt);
            info.positional_choices.insert(info.positional_choices.end(), choices.begin(), choices.end());
            continue;
        }
        OptionInfo o;
        for (const std::string& l : opt->get_lnames()) o.names.push_back("--" + l);
        for (const std::string& s : opt->get_snames()) o.names.push_back("-" + s);
        o.description = opt->get_description();
        o.takes_value = takes_value(*opt);
        o.choices = choices_of(*opt);
        info.options.push_back(std::move(o));
    }
    return info;
}

/// The program itself (its own options, as the "" command) and each visible command.
std::vector<CommandInfo> program_info(const CLI::App& app) {
    std::vector<CommandInfo> out{command_info(app)};
    out.front().name.clear();
    for (const CLI::App* sub : visible_commands(app)) out.push_back(command_info(*sub));
    return out;
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
    return out;
}

/// `text` inside single quotes for sh, zsh and fish ('\'' closes, escapes, reopens; fish reads \').
std::string shell_quoted(std::string_view text, bool fish = false) {
    std::string out = "'";
    for (char c : text) {
        if (c == '\'') {
            out += fish ? "\\'" : "'\\''";
        } else if (c == '\\' && fish) {
            out += "\\\\";
        } else {
            out += c;
        }
    }
    return out + "'";
}

std::string bash_script(const std::vector<CommandInfo>& program) {
    std::string cases;
    for (const CommandInfo& c : program) {
        std::vector<std::string> words = c.positional_choices;
        std::string value_cases;
        for (const OptionInfo& o : c.options) {
            words.insert(words.end(), o.names.begin(), o.names.end());
            if (!o.takes_value) continue;
            value_cases +=
                fmt::format("                {}) COMPREPLY=($(compgen {} -- \"$cur\")); return ;;\n",
                            join(o.names, "|"), o.choices.empty() ? "-f" : "-W " + shell_quoted(join(o.choices, " ")));
        }
        if (c.name.empty()) {
            for (const CommandInfo& sub : program) {
                if (!sub.name.empty()) words.push_back(sub.name);
            }
        }
        cases += fmt::format("        {})\n", c.name.empty() ? "''" : c.name);
        if (!value_cases.empty()) cases += "            case $prev in\n" + value_cases + "            esac\n";
        cases += fmt::format("            words={} ;;\n", shell_quoted(join(words, " ")));
    }
    return "# bash completion for agentskills (made by `agentskills completion bash`).\n"
           "# Load it with: source <(agentskills completion bash)\n"
           "_agentskills() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= words= i\n"
           "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
           "        case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n"
           "    done\n"
           "    case $cmd in\n" +
           cases +
           "        *) return ;;\n"
           "    esac\n"
           "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
           "}\n"
           "complete -o default -F _agentskills agentskills\n";
}

/// A description inside a zsh spec: first line, brackets and colons escaped.
std::string zsh_text(const std::string& text) {
    std::string out;
    for (char c : first_line(text)) {
        if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

std::string zsh_script(const std::vector<CommandInfo>& program) {
    std::string commands;
    std::string cases;
    for (const CommandInfo& c : program) {
        if (c.name.empty()) continue;
        commands += "        " + shell_quoted(c.name + ":" + zsh_text(c.description)) + "\n";
        std::string specs;
        for (const OptionInfo& o : c.options) {
            const std::string action = !o.takes_value      ? ""
                                       : o.choices.empty() ? ":value:_files"
                                                           : ":value:(" + join(o.choices, " ") + ")";
            for (const std::string& n : o.names) {
                specs += " \\\n            " + shell_quoted("*" + n + "[" + zsh_text(o.description) + "]" + action);
            }
        }
        if (c.positional) {
            specs += " \\\n            " + shell_quoted(c.positional_choices.empty()
                                                            ? "*:file:_files"
                                                            : "*:value:(" + join(c.positional_choices, " ") + ")");
        }
        cases += "        " + c.name + ")\n            _arguments" + specs + " ;;\n";
    }
    return "#compdef agentskills\n"
           "# zsh completion for agentskills (made by `agentskills completion zsh`).\n"
           "# Load it with: source <(agentskills completion zsh), or save it as _agentskills in $fpath.\n"
           "_agentskills() {\n"
           "    local -a commands\n"
           "    commands=(\n" +
           commands +
           "    )\n"
           "    if (( CURRENT == 2 )); then\n"
           "        _describe -t commands 'agentskills command' commands\n"
           "        return\n"
           "    fi\n"
           "    local cmd=$words[2]\n"
           "    shift words\n"
           "    (( CURRENT-- ))\n"
           "    case $cmd in\n" +
           cases +
           "    esac\n"
           "}\n"
           "if [ \"$funcstack[1]\" = _agentskills ]; then\n"
           "    _agentskills \"$@\"\n"
           "else\n"
           "    compdef _agentskills agentskills\n"
           "fi\n";
}

std::string fish_script(const std::vector<CommandInfo>& program) {
    std::string out =
        "# fish completion for agentskills (made by `agentskills completion fish`).\n"
        "# Load it with: agentskills completion fish | source\n"
        "complete -c agentskills -f\n";
    for (const CommandInfo& c : program) {
        const std::string when =
            c.name.empty() ? "__fish_use_subcommand" : shell_quoted("__fish_seen_subcommand_from " + c.name, true);
        if (!c.name.empty()) {
            out += fmt::format("complete -c agentskills -n __fish_use_subcommand -a {} -d {}\n", c.name,
                               shell_quoted(first_line(c.description), true));
            if (c.positional) {
                out += fmt::format("complete -c agentskills -n {} {}\n", when,
                                   c.positional_choices.empty()
                                       ? std::string("-F")
                                       : "-a " + shell_quoted(join(c.positional_choices, " "), true));
            }
        }
        for (const OptionInfo& o : c.options) {
            std::string flags;
            for (const std::string& n : o.names)
                flags += (n.substr(0, 2) == "--" ? " -l " + n.substr(2) : " -s " + n.substr(1));
            if (o.takes_value)
                flags += o.choices.empty() ? " -r -F" : " -x -a " + shell_quoted(join(o.choices, " "), true);
            out += fmt::format("complete -c agentskills -n {}{} -d {}\n", when, flags,
                               shell_quoted(first_line(o.description), true));
        }
    }
    return out;
}

// ---- The man page

/// Text for roff: a backslash as \e, a hyphen as \- (so that a flag copied from the page works).
std::string escaped(std::string_view text) {
    std::string out;
    for (char c : text) out += c == '\\' ? std::string("\\e") : c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
}

/// roff source lines of `text` (escaped already): wrapped to help_width, a leading '.' or '\''
/// protected.
std::string roff_lines(std::string_view text) {
    std::string out;
    const std::string wrapped = wrap_text(text, help_width - 2);
    for (std::string_view rest = wrapped; !rest.empty();) {
        const std::size_t eol = rest.find('\n');
        std::string_view line = rest.substr(0, eol);
        rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
        if (!line.empty() && (line.front() == '.' || line.front() == '\'')) out += "\\&";
        out.append(line);
        out += '\n';
    }
    return out;
}

std::string roff(std::string_view text) { return roff_lines(escaped(text)); }

/// An option or command name in roff: bold.
std::string roff_name(std::string_view name) { return "\\fB" + escaped(name) + "\\fR"; }

constexpr std::string_view program_description =
    "agentskills reads Agent Skills (folders holding a SKILL.md: YAML frontmatter and Markdown instructions) from "
    "library roots, archives, git repositories and MCP servers. It checks them against the format's rules "
    "(validate), lists them (list, watch), prints what an agent host sends a model (to-prompt, prompt, "
    "tool-schema, activate, render, tools, tool-call), pins them (lock) and serves them over MCP (mcp).";

struct Example {
    std::string_view command;
    std::string_view what;
};
constexpr Example examples[] = {
    {"agentskills list --root ~/skills", "List the skills of a library, one NAME<TAB>SKILL.md line each."},
    {"agentskills validate --root ~/skills", "Check every skill of a library; exit status 1 when one is invalid."},
    {"agentskills list --json --root ~/skills | jq '.skills[].name'", "The same list as JSON (schema 2)."},
    {"agentskills activate --root ~/skills code-review",
     "Print what the activation tool returns when a model calls it for code-review."},
    {"agentskills help validate", "Print the options of validate."},
    {"source <(agentskills completion bash)", "Complete commands and flags in bash."},
};

std::string man_page(const CLI::App& app) {
    std::string out = fmt::format(".TH AGENTSKILLS 1 \"\" \"agentskills {}\" \"User Commands\"\n", version_string);
    out += ".SH NAME\nagentskills \\- " + roff(program_summary);
    out += ".SH SYNOPSIS\n.B agentskills\n.I COMMAND\n.RI [ OPTIONS ] \" \" [ ARGUMENTS ]\n.br\n";
    out += ".B agentskills help\n.RI [ COMMAND ]\n.br\n.B agentskills \\-V\n";
    out += ".SH DESCRIPTION\n" + roff(program_description);
    out += ".PP\n" + roff(
                         "Each command is described below with its options, as its --help prints them; "
                         "agentskills help COMMAND prints the same.");
    out += ".SH COMMANDS\n";
    for (const CLI::App* sub : visible_commands(app)) {
        std::string usage = usage_line(*sub);
        usage = usage.substr(usage.find(' ') + 1);  // without "Usage: "
        if (!usage.empty() && usage.back() == '\n') usage.pop_back();
        out += ".SS \"" + escaped(usage) + "\"\n" + roff(sub->get_description());
        for (const CLI::Option* opt : sub->get_options()) {
            if (opt->get_group().empty()) continue;
            std::string names = opt->get_positional() ? "\\fI" + opt->get_name() + "\\fR" : "";
            for (const std::string& l : opt->get_lnames()) names += (names.empty() ? "" : ", ") + roff_name("--" + l);
            for (const std::string& s : opt->get_snames()) names += (names.empty() ? "" : ", ") + roff_name("-" + s);
            std::string description = opt->get_description();
            if (takes_value(*opt)) {
                const std::string type = opt->get_type_name();
                names += " \\fI" + escaped(type.substr(0, type.find(':'))) + "\\fR";
                const std::vector<std::string> choices = choices_of(*opt);
                if (!choices.empty()) description += " (one of: " + join(choices, ", ") + ")";
            }
            out += ".TP\n" + names + "\n" + roff(description);
        }
    }
    out += ".SH OPTIONS\n";
    for (const CLI::Option* opt : app.get_options()) {
        std::string names;
        for (const std::string& s : opt->get_snames()) names += (names.empty() ? "" : ", ") + roff_name("-" + s);
        for (const std::string& l : opt->get_lnames()) names += (names.empty() ? "" : ", ") + roff_name("--" + l);
        out += ".TP\n" + names + "\n" + roff(opt->get_description());
    }
    out += ".SH \"EXIT STATUS\"\n";
    for (const ExitStatusRow& row : exit_statuses) out += fmt::format(".TP\n.B {}\n", row.status) + roff(row.meaning);
    out +=
        ".SH FILES\n"
        ".TP\n.I ./.agents/skills\n" +
        roff(
            "The project's skill libraries: the .agents/skills of the working directory and of each directory "
            "above it up to the repository root (the nearest directory with .git), nearer first; default roots "
            "of the commands that read skills, used when no --root is given (list, watch). A missing default "
            "root is skipped silently.") +
        ".TP\n.I ~/.agents/skills\n" + roff("The user's skill library, the other default root.") +
        ".TP\n.I agentskills-lock.json\n" +
        roff(
            "A lock file: lock --output writes one, --lock FILE refuses skills whose files differ from it. The "
            "skills CLI's skills-lock.json is another format: it is refused, and never overwritten.") +
        ".TP\n.I LIBEXECDIR/agentskills/agentskills\\-extras\n" +
        roff(
            "The same program with the optional components linked in; agentskills runs it in its place for "
            "archives, git: roots, MCP servers and lock files.");
    out += ".SH ENVIRONMENT\n.TP\n.B HOME\n" + roff("Where ~/.agents/skills is.") + ".TP\n.B PATH\n" +
           roff("Where --mcp-command finds a server program given by name.");
    // The variables --compat reads, as the agents do (an absolute path; others are ignored).
    constexpr std::pair<std::string_view, std::string_view> agent_variables[] = {
        {"CLAUDE_CONFIG_DIR", "With --compat claude: its skills folder instead of ~/.claude/skills."},
        {"COPILOT_HOME", "With --compat copilot: its skills folder instead of ~/.copilot/skills."},
        {"GEMINI_CLI_HOME", "With --compat gemini: its .gemini/skills and .agents/skills instead of ~/.gemini/skills."},
        {"XDG_CONFIG_HOME",
         "With --compat opencode: opencode/skills and opencode/skill below it instead of below "
         "~/.config."},
        {"OPENCODE_CONFIG_DIR", "With --compat opencode: its skills and skill folders too."},
        {"CODEX_HOME", "With --compat codex: its skills folder instead of ~/.codex/skills."},
    };
    for (const auto& [variable, what] : agent_variables) {
        out += ".TP\n.B " + std::string(variable) + "\n" +
               roff(std::string(what) + " An empty or relative value is ignored (docs/loading.md).");
    }
    out += ".SH EXAMPLES\n";
    for (const Example& e : examples) out += ".TP\n.B " + roff(e.command) + roff(e.what);
    out += ".SH \"SEE ALSO\"\n" +
           roff(
               "docs/cli.md of the source (and /usr/share/doc/agentskills), which holds the JSON schemas of the "
               "outputs under docs/schemas/.");
    return out;
}

}  // namespace

void setup_completion(CLI::App& app, int* status) {
    auto shell = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("completion", "Print a completion script for bash, zsh or fish");
    cmd->add_option("shell", *shell, "The shell")->required()->check(CLI::IsMember({"bash", "zsh", "fish"}));
    cmd->callback([&app, shell, status] {
        const std::vector<CommandInfo> program = program_info(app);
        std::cout << (*shell == "bash"  ? bash_script(program)
                      : *shell == "zsh" ? zsh_script(program)
                                        : fish_script(program));
        *status = exit_ok;
    });
}

void setup_man(CLI::App& app, int* status) {
    CLI::App* cmd = app.add_subcommand("man", "Print the man page (roff)");
    cmd->group("");  // hidden: the build writes agentskills.1 with it
    cmd->callback([&app, status] {
        std::cout << man_page(app);
        *status = exit_ok;
    });
}

}  // namespace agentskills::cli
