// agentskills CLI — help text, usage errors, suggestions and `help [CMD]` (conventions.hpp).
#include "conventions.hpp"

#include <algorithm>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "messages.hpp"

#include "command.hpp"

namespace agentskills::cli {
namespace {

/// CLI11's formatter with every description wrapped so that its lines end by help_width.
class ProgramFormatter final : public CLI::Formatter {
public:
    ProgramFormatter() {
        column_width(column);
        label("SUBCOMMAND", "COMMAND");
        label("SUBCOMMANDS", "COMMANDS");
    }

    std::string make_option_desc(const CLI::Option* opt) const override {
        return wrap_text(CLI::Formatter::make_option_desc(opt), help_width - column);
    }
    std::string make_subcommand(const CLI::App* sub) const override {
        return "  " + sub->get_name() + "\n" + indented(wrap_text(sub->get_description(), help_width - 6), 6) + "\n";
    }
    std::string make_description(const CLI::App* app) const override {
        const std::string text = CLI::Formatter::make_description(app);
        return text.empty() ? text : wrap_text(text, help_width);
    }
    std::string make_footer(const CLI::App* app) const override {
        const std::string text = CLI::Formatter::make_footer(app);
        return text.empty() ? text : wrap_text(text, help_width);
    }

private:
    static constexpr std::size_t column = 26;

    static std::string indented(const std::string& text, std::size_t by) {
        std::string out(by, ' ');
        for (char c : text) {
            out += c;
            if (c == '\n') out.append(by, ' ');
        }
        return out;
    }
};

/// Optimal string alignment distance: insertions, deletions, substitutions and transpositions
/// of two neighbours count one each.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
    }
    return d[a.size()][b.size()];
}

/// The long option names of `cmd` ("--max-lines"), help included.
std::vector<std::string> long_options(const CLI::App& cmd) {
    std::vector<std::string> out;
    for (const CLI::Option* opt : cmd.get_options()) {
        for (const std::string& name : opt->get_lnames()) out.push_back("--" + name);
    }
    return out;
}

std::vector<std::string> command_names(const CLI::App& app) {
    std::vector<std::string> out;
    for (const CLI::App* sub : visible_commands(app)) out.push_back(sub->get_name());
    return out;
}

std::string did_you_mean(const std::optional<std::string>& guess) {
    return guess ? fmt::format("did you mean '{}'?", *guess) : std::string();
}

}  // namespace

std::string wrap_text(std::string_view text, std::size_t width) {
    std::string out;
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        while (line.size() > width) {
            std::size_t cut = line.rfind(' ', width);
            if (cut == std::string_view::npos || cut == 0) cut = line.find(' ', width);
            if (cut == std::string_view::npos) break;
            out.append(line.substr(0, cut));
            out += '\n';
            line.remove_prefix(cut + 1);
        }
        out.append(line);
        if (eol != std::string_view::npos) out += '\n';
    }
    return out;
}

std::string help_footer() {
    std::string text = "Exit status:";
    for (const ExitStatusRow& row : exit_statuses) text += fmt::format(" {} {};", row.status, row.meaning);
    text.back() = '.';
    return text + "\nRun 'agentskills help COMMAND' for the options of a command.";
}

std::shared_ptr<CLI::Formatter> make_formatter() { return std::make_shared<ProgramFormatter>(); }

std::string command_path(const CLI::App& cmd) {
    std::string path = cmd.get_name();
    for (const CLI::App* up = cmd.get_parent(); up != nullptr; up = up->get_parent())
        path = up->get_name() + " " + path;
    return path;
}

std::string usage_line(const CLI::App& cmd) { return ProgramFormatter().make_usage(&cmd, command_path(cmd)); }

int usage_error(const CLI::App& cmd, std::string_view message, std::string_view hint) {
    const std::string path = command_path(cmd);
    print_error_as(path, message);
    if (!hint.empty()) fmt::print(stderr, "{}: {}\n", path, hint);
    fmt::print(stderr, "{}Run '{} --help' for more information.\n", usage_line(cmd), path);
    return exit_usage;
}

std::optional<std::string> closest_name(std::string_view word, const std::vector<std::string>& candidates) {
    std::optional<std::string> best;
    std::size_t best_distance = 0;
    std::size_t prefixed = 0;
    std::string prefix_of;
    for (const std::string& c : candidates) {
        if (c.size() > word.size() && c.compare(0, word.size(), word) == 0) {
            ++prefixed;
            prefix_of = c;
        }
        const std::size_t d = edit_distance(word, c);
        if (!best || d < best_distance) {
            best = c;
            best_distance = d;
        }
    }
    const std::size_t letters = word.size() - std::min(word.size(), std::size_t{2} * (word.substr(0, 2) == "--"));
    const std::size_t allowed = std::max<std::size_t>(1, letters / 3);
    if (best && best_distance > 0 && best_distance <= allowed) return best;
    if (prefixed == 1 && letters >= 2) return prefix_of;
    return std::nullopt;
}

int report_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
    // The command the error is about: the deepest one selected.
    const CLI::App* where = &app;
    while (!where->get_subcommands().empty()) where = where->get_subcommands().front();
    // An unknown long option given to it (`--max-line`), or before a command an unknown command.
    bool after_command = where == &app;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (!after_command) {
            after_command = arg == where->get_name();
            continue;
        }
        if (arg == "--") break;
        if (arg.substr(0, 2) == "--") {
            const std::string name(arg.substr(0, arg.find('=')));
            if (where->get_option_no_throw(name) != nullptr) continue;
            return usage_error(*where, fmt::format("unknown option '{}'", name),
                               did_you_mean(closest_name(name, long_options(*where))));
        }
        if (where == &app && arg.substr(0, 1) != "-") {
            return usage_error(app, fmt::format("unknown command '{}'", arg),
                               did_you_mean(closest_name(arg, command_names(app))));
        }
    }
    if (where == &app && app.get_subcommands().empty() && dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
        return usage_error(app, "a command is required");
    }
    return usage_error(*where, e.what());
}

std::vector<const CLI::App*> visible_commands(const CLI::App& app) {
    std::vector<const CLI::App*> out;
    const std::function<bool(const CLI::App*)> visible = [](const CLI::App* s) { return !s->get_group().empty(); };
    for (const CLI::App* sub : app.get_subcommands(visible)) out.push_back(sub);
    return out;
}

void setup_help(CLI::App& app, int* status) {
    auto name = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("help", "Print the help of the program, or of COMMAND");
    cmd->add_option("command", *name, "A command");
    cmd->callback([&app, cmd, name, status] {
        // The formatter itself: App::help() would give the help of `help`, the command selected.
        const auto formatter = app.get_formatter();
        if (name->empty()) {
            std::cout << formatter->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
            *status = exit_ok;
            return;
        }
        for (const CLI::App* sub : visible_commands(app)) {
            if (sub->get_name() == *name) {
                std::cout << formatter->make_help(sub, command_path(*sub), CLI::AppFormatMode::Normal);
                *status = exit_ok;
                return;
            }
        }
        *status = usage_error(*cmd, fmt::format("unknown command '{}'", *name),
                              did_you_mean(closest_name(*name, command_names(app))));
    });
}

}  // namespace agentskills::cli
