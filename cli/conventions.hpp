// agentskills CLI — the conventions of the command line: help text 80 columns wide, usage errors
// with the command's usage line and a "did you mean" suggestion, `help [CMD]`, and the texts the
// man page and completion scripts share with --help (completion.cpp walks the same CLI::App).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace agentskills::cli {

/// No line of --help (nor of the man page's source) is wider than this.
inline constexpr std::size_t help_width = 80;

/// The program's summary (NAME in the man page, the first line of --help).
inline constexpr std::string_view program_summary = "validate, list and render Agent Skills (SKILL.md folders)";

/// The exit statuses, as docs/cli.md's table says them: --help's footer (help_footer) and the
/// man page's EXIT STATUS are made of these rows.
struct ExitStatusRow {
    int status;
    std::string_view meaning;
};
inline constexpr ExitStatusRow exit_statuses[] = {
    {0, "success"},
    {1, "failure about the input (unknown skill, missing path or root, invalid skill)"},
    {2, "usage error"},
};

/// The footer of the program's --help: the exit statuses and where a command's help is.
[[nodiscard]] std::string help_footer();

/// `text` with line breaks at spaces so that no line is wider than `width` (a longer word stays
/// whole); its own line breaks are kept.
[[nodiscard]] std::string wrap_text(std::string_view text, std::size_t width);

/// The formatter of every command: descriptions wrapped to help_width, "COMMAND" for CLI11's
/// "SUBCOMMAND". Set on the program before its commands are added (they inherit it).
[[nodiscard]] std::shared_ptr<CLI::Formatter> make_formatter();

/// "agentskills validate": the program's name and the command's, as typed.
[[nodiscard]] std::string command_path(const CLI::App& cmd);

/// "Usage: agentskills validate [OPTIONS] [path...]" and a newline.
[[nodiscard]] std::string usage_line(const CLI::App& cmd);

/// A usage error of `cmd` on standard error — `agentskills CMD: error: MESSAGE` (print_error_as,
/// which escapes MESSAGE), then `hint`
/// (a suggestion, when not empty), the usage line and where the help is — and exit_usage.
int usage_error(const CLI::App& cmd, std::string_view message, std::string_view hint = {});

/// The candidate closest to `word` by edit distance (a transposition counts one), when it is
/// close enough to be a typo (at most a third of the word's letters, at least one) or `word` is
/// a prefix of it alone; nullopt otherwise. The one place the program guesses what was meant.
[[nodiscard]] std::optional<std::string> closest_name(std::string_view word,
                                                      const std::vector<std::string>& candidates);

/// The usage error for a command line CLI11 refused (`e`): an unknown command or option is named,
/// with a "did you mean" for the closest command or long option of the command it was given to.
int report_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv);

/// The commands that present the program itself: `help [CMD]` (help.cpp), `completion
/// bash|zsh|fish` and the hidden `man` (completion.cpp).
void setup_help(CLI::App& app, int* status);
void setup_completion(CLI::App& app, int* status);
void setup_man(CLI::App& app, int* status);

/// The visible commands of `app`, in --help's order.
[[nodiscard]] std::vector<const CLI::App*> visible_commands(const CLI::App& app);

}  // namespace agentskills::cli
