// Tests of the command line's conventions (they run the built program): help [CMD], -V,
// "did you mean" for commands and flags, usage lines, completion scripts and the man page.
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"

namespace cli_help_tests {

using agentskills::test::run_cli;
using agentskills::test::run_program;

namespace {

/// The command names --help lists under "Commands:".
std::vector<std::string> listed_commands() {
    const auto help = run_cli({"--help"});
    std::vector<std::string> names;
    std::istringstream in(help.out.substr(help.out.find("\nCommands:\n") + 11));
    std::string line;
    while (std::getline(in, line) && !line.empty()) {
        if (line.size() > 2 && line[0] == ' ' && line[1] == ' ' && line[2] != ' ') names.push_back(line.substr(2));
    }
    return names;
}

/// Lines of `text` wider than 80 columns (bytes: the texts are ASCII).
std::vector<std::string> wide_lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.size() > 80) out.push_back(line);
    }
    return out;
}

/// Runs `script` in bash with $AGENTSKILLS set to the program.
agentskills::test::CliRun bash(const std::string& script) {
    return run_program("/bin/bash", {"-c", "AGENTSKILLS='" AGENTSKILLS_CLI_PATH "'; " + script});
}

}  // namespace

TEST_CASE("help [CMD] prints the program's or the command's help", "[cli][conventions]") {
    const auto top = run_cli({"help"});
    CHECK(top.status == 0);
    CHECK(top.out == run_cli({"--help"}).out);
    CHECK(top.out.find("Exit status: 0 success; 1 failure about the input") != std::string::npos);

    const auto list = run_cli({"help", "list"});
    CHECK(list.status == 0);
    CHECK(list.out == run_cli({"list", "--help"}).out);
    CHECK(list.out.find("\nUsage: agentskills list [OPTIONS]\n") != std::string::npos);

    const auto unknown = run_cli({"help", "lsit"});
    CHECK(unknown.status == 2);
    CHECK(unknown.out.empty());
    CHECK(unknown.err.find("agentskills help: error: unknown command 'lsit'\n") == 0);
    CHECK(unknown.err.find("did you mean 'list'?") != std::string::npos);
}

TEST_CASE("version: -V and --version print it", "[cli][conventions]") {
    const auto shortv = run_cli({"-V"});
    const auto longv = run_cli({"--version"});
    CHECK(shortv.status == 0);
    CHECK(longv.status == 0);
    CHECK(shortv.out.rfind("agentskills ", 0) == 0);
    CHECK(shortv.out == longv.out);
}

TEST_CASE("a mistyped command or flag is a usage error with a suggestion", "[cli][conventions]") {
    const auto command = run_cli({"lsit"});
    CHECK(command.status == 2);
    CHECK(command.out.empty());
    CHECK(command.err ==
          "agentskills: error: unknown command 'lsit'\n"
          "agentskills: did you mean 'list'?\n"
          "Usage: agentskills [OPTIONS] COMMAND\n"
          "Run 'agentskills --help' for more information.\n");

    const auto flag = run_cli({"list", "--max-line", "3", "--root", "library"});
    CHECK(flag.status == 2);
    CHECK(flag.out.empty());
    CHECK(flag.err.rfind("agentskills list: error: unknown option '--max-line'\n"
                         "agentskills list: did you mean '--max-lines'?\n"
                         "Usage: agentskills list [OPTIONS]",
                         0) == 0);

    // Too far from every name: no guess, the error alone.
    const auto far = run_cli({"zzzzzz"});
    CHECK(far.status == 2);
    CHECK(far.err.find("did you mean") == std::string::npos);
    CHECK(far.err.find("unknown command 'zzzzzz'") != std::string::npos);

    const auto none = run_cli({});
    CHECK(none.status == 2);
    CHECK(none.err.rfind("agentskills: error: a command is required\n", 0) == 0);
}

TEST_CASE("validate without arguments: a usage error with the command's usage line", "[cli][conventions]") {
    const auto r = run_cli({"validate"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "agentskills validate: error: give at least one PATH, --root DIR, --mcp-command or --mcp-url\n"
          "Usage: agentskills validate [OPTIONS] [path...]\n"
          "Run 'agentskills validate --help' for more information.\n");
}

TEST_CASE("--help fits in 80 columns, for the program and every command", "[cli][conventions]") {
    const std::vector<std::string> names = listed_commands();
    REQUIRE(names.size() >= 14);
    CHECK(wide_lines(run_cli({"--help"}).out).empty());
    for (const auto& name : names) {
        INFO(name);
        const auto help = run_cli({name, "--help"});
        CHECK(help.status == 0);
        CHECK(help.out.find("\nUsage: agentskills " + name + " ") != std::string::npos);
        CHECK(wide_lines(help.out).empty());
    }
}

TEST_CASE("completion bash: the script loads and completes commands, flags and values", "[cli][conventions]") {
    const std::string load = "source <(\"$AGENTSKILLS\" completion bash) && ";
    const auto command = bash(load + "COMP_WORDS=(agentskills li); COMP_CWORD=1; _agentskills; echo ${COMPREPLY[@]}");
    CHECK(command.status == 0);
    CHECK(command.out == "list\n");
    const auto flag =
        bash(load + "COMP_WORDS=(agentskills list --max-l); COMP_CWORD=2; _agentskills; echo ${COMPREPLY[@]}");
    CHECK(flag.out == "--max-lines\n");
    const auto value =
        bash(load + "COMP_WORDS=(agentskills validate --profile r); COMP_CWORD=3; _agentskills; echo ${COMPREPLY[@]}");
    CHECK(value.out == "reference\n");
    const auto shells =
        bash(load + "COMP_WORDS=(agentskills completion ''); COMP_CWORD=2; _agentskills; echo ${COMPREPLY[@]}");
    CHECK(shells.out.rfind("bash zsh fish ", 0) == 0);
    // Every command --help lists is offered.
    const auto all = bash(load + "COMP_WORDS=(agentskills ''); COMP_CWORD=1; _agentskills; echo ${COMPREPLY[@]}");
    const std::string offered = " " + all.out.substr(0, all.out.size() - 1) + " ";
    for (const auto& name : listed_commands()) CHECK(offered.find(" " + name + " ") != std::string::npos);
    CHECK(all.out.find(" man ") == std::string::npos);  // hidden
}

TEST_CASE("completion zsh and fish name every command", "[cli][conventions]") {
    const auto zsh = run_cli({"completion", "zsh"});
    const auto fish = run_cli({"completion", "fish"});
    CHECK(zsh.status == 0);
    CHECK(fish.status == 0);
    CHECK(zsh.out.rfind("#compdef agentskills\n", 0) == 0);
    for (const auto& name : listed_commands()) {
        INFO(name);
        CHECK(zsh.out.find("\n        '" + name + ":") != std::string::npos);
        CHECK(zsh.out.find("\n        " + name + ")\n") != std::string::npos);
        CHECK(fish.out.find("-n __fish_use_subcommand -a " + name + " ") != std::string::npos);
    }
    CHECK(zsh.out.find("'*--max-lines[") != std::string::npos);
    CHECK(fish.out.find("'__fish_seen_subcommand_from list' -l max-lines -r -F") != std::string::npos);
    CHECK(run_cli({"completion", "tcsh"}).status == 2);
}

TEST_CASE("the man page: its sections, every command, 80 columns", "[cli][conventions]") {
    const auto man = run_cli({"man"});
    REQUIRE(man.status == 0);
    for (const char* section : {".SH NAME\n", ".SH SYNOPSIS\n", ".SH DESCRIPTION\n", ".SH COMMANDS\n", ".SH OPTIONS\n",
                                ".SH \"EXIT STATUS\"\n", ".SH FILES\n", ".SH ENVIRONMENT\n", ".SH EXAMPLES\n"}) {
        INFO(section);
        CHECK(man.out.find(section) != std::string::npos);
    }
    for (const auto& name : listed_commands()) {
        INFO(name);
        std::string escaped;
        for (char c : name) escaped += c == '-' ? std::string("\\-") : std::string(1, c);
        CHECK(man.out.find(".SS \"agentskills " + escaped) != std::string::npos);
    }
    // The variables --compat reads (docs/loading.md, "Other agents' folders").
    CHECK(man.out.find(
              "\n.B CODEX_HOME\nWith \\-\\-compat codex: its skills folder instead of ~/.codex/skills. An empty\n"
              "or relative value is ignored (docs/loading.md).\n") != std::string::npos);
    // docs/cli.md's exit table, in its words.
    CHECK(man.out.find(".SH \"EXIT STATUS\"\n.TP\n.B 0\nsuccess\n.TP\n.B 1\nfailure about the input (unknown skill, "
                       "missing path or root, invalid skill)\n.TP\n.B 2\nusage error\n") != std::string::npos);
    CHECK(wide_lines(man.out).empty());
    // As man shows it (groff's 78 columns): no line is wider than 80 either.
    const auto shown = bash("set -o pipefail; \"$AGENTSKILLS\" man | groff -man -Tascii -P-cbu 2>/dev/null");
    REQUIRE(shown.status == 0);
    CHECK(shown.out.find("EXIT STATUS") != std::string::npos);
    CHECK(wide_lines(shown.out).empty());
}

}  // namespace cli_help_tests
