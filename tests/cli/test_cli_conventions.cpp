// The conventions every subcommand follows (docs/cli.md): one exit-status table, one error
// format, --quiet, one set of source and loader flags, a missing --root is an error, and
// `list` prints skills only on standard output.
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_conventions_tests {

using agentskills::test::CliRun;
using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

// A skill of `lines` lines (more than the default limit of 500 when lines > 500).
std::string long_skill(const std::string& name, int lines) {
    std::string body;
    for (int i = 0; i < lines; ++i) body += "line\n";
    return skill_md(name, "A long skill.", body);
}

bool has_error_format(const CliRun& r, const std::string& command) {
    return r.err.rfind("agentskills " + command + ": error: ", 0) == 0;
}

/// How to run one subcommand: arguments that work, and where a skill name goes.
struct Command {
    std::string name;
    std::vector<std::string> good;  ///< a run that succeeds (sources, a name)
    enum class Names { none, positional, activate_flag, include } names = Names::include;
    bool reads_skills = true;               ///< takes the source and loader flags
    std::vector<std::string> missing_path;  ///< a run naming a path that does not exist
};

std::vector<Command> all_commands(const std::string& lib) {
    using N = Command::Names;
    const std::vector<std::string> root{"--root", lib};
    const std::vector<std::string> missing_root{"--root", lib + "/no-such-library"};
    std::vector<Command> out = {
        {"activate", {"--root", lib, "alpha"}, N::positional, true, {"--root", lib + "/no-such-library", "alpha"}},
        {"list", root, N::include, true, missing_root},
        {"lock", root, N::include, true, missing_root},
        {"mcp", root, N::include, true, missing_root},
        {"prompt", root, N::include, true, missing_root},
        {"read-properties", {lib + "/alpha"}, N::none, false, {lib + "/no-such-skill"}},
        {"render", {"--root", lib, "alpha"}, N::positional, true, {"--root", lib + "/no-such-library", "alpha"}},
        {"to-prompt", root, N::include, true, missing_root},
        {"tool-call", {"--input", lib + "/call.json"}, N::none, false, {"--input", lib + "/no-such-call.json"}},
        {"tool-schema", {}, N::none, false, {}},
        {"tools", {"--root", lib, "--activate", "alpha"}, N::activate_flag, true, missing_root},
        {"validate", root, N::include, true, {lib + "/no-such-skill"}},
        {"watch", {"--root", lib, "--timeout-ms", "1"}, N::include, true, {"--root", lib + "/no-such-library"}},
    };
    return out;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

// A library with one good skill and a tool call for `tool-call`.
struct Library {
    TempDir dir;
    std::string lib = dir.path("lib");
    Library() {
        dir.write("lib/alpha/SKILL.md", skill_md("alpha", "The alpha skill."));
        dir.write("lib/call.json", R"({"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}})");
    }
};

}  // namespace

TEST_CASE("exit status: every subcommand, the same bad inputs, one table", "[cli][conventions]") {
    Library l;
    for (const Command& c : all_commands(l.lib)) {
        INFO(c.name);
        if (c.name != "mcp") {  // mcp would serve its standard input
            const CliRun ok = run_cli(with({c.name}, c.good));
            INFO(ok.err);
            CHECK(ok.status == 0);
        }
        // An unknown flag and a malformed flag value: usage errors (2).
        const CliRun unknown = run_cli(with(with({c.name}, c.good), {"--no-such-flag"}));
        CHECK(unknown.status == 2);
        CHECK(has_error_format(unknown, c.name));
        const std::vector<std::string> malformed = c.reads_skills ? std::vector<std::string>{"--max-lines", "-1"}
                                                   : c.name == "read-properties"
                                                       ? std::vector<std::string>{"--max-lines", "abc"}
                                                       : std::vector<std::string>{"--format", "bogus"};
        const CliRun bad_value = run_cli(with(with({c.name}, c.good), malformed));
        CHECK(bad_value.status == 2);
        CHECK(has_error_format(bad_value, c.name));
        // A path or root that does not exist: a failure about the input (1), naming it.
        if (!c.missing_path.empty()) {
            const CliRun missing = run_cli(with({c.name}, c.missing_path));
            CHECK(missing.status == 1);
            CHECK(missing.err.find("agentskills " + c.name + ": error: ") != std::string::npos);
            CHECK(missing.err.find("no-such-") != std::string::npos);
        }
        // An unknown skill name: 1.
        std::vector<std::string> unknown_name;
        switch (c.names) {
            case Command::Names::none:
                break;
            case Command::Names::positional:
                unknown_name = {c.name, "--root", l.lib, "no-such-skill"};
                break;
            case Command::Names::activate_flag:
                unknown_name = {c.name, "--root", l.lib, "--activate", "no-such-skill"};
                break;
            case Command::Names::include:
                unknown_name = with(with({c.name}, c.good), {"--include", "no-such-skill"});
                break;
        }
        if (!unknown_name.empty()) {
            const CliRun r = run_cli(unknown_name);
            INFO(r.err);
            CHECK(r.status == 1);
            CHECK(r.err.find("agentskills " + c.name + ": error: ") != std::string::npos);
            CHECK(r.err.find("no-such-skill") != std::string::npos);
        }
    }
    // No subcommand, or an unknown one: the program's own prefix.
    const CliRun none = run_cli({"no-such-command"});
    CHECK(none.status == 2);
    CHECK(none.err.rfind("agentskills: error: ", 0) == 0);
}

TEST_CASE("exit status: activate and validate agree with the table", "[cli][conventions]") {
    Library l;
    // An unknown name in activate: the model's text is printed, the status is 1.
    const CliRun activate = run_cli({"activate", "--root", l.lib, "alpha", "nope"});
    CHECK(activate.status == 1);
    CHECK(activate.out.find("<skill_content name=\"alpha\">") != std::string::npos);
    CHECK(activate.err.find("agentskills activate: error: 'nope' was not activated: ") != std::string::npos);
    // A library without a model-invocable skill offers no tool: every name fails.
    l.dir.write("hidden/secret/SKILL.md",
                "---\nname: secret\ndescription: d\ndisable-model-invocation: true\n---\nx\n");
    const CliRun hidden = run_cli({"activate", "--root", l.dir.path("hidden"), "secret"});
    CHECK(hidden.status == 1);
    CHECK(hidden.err.find("error: 'secret' was not activated: error: no tool named 'activate_skill'") !=
          std::string::npos);
    // A missing path in validate and read-properties: 1 (the other paths are still checked).
    const CliRun validate = run_cli({"validate", l.lib + "/nope", l.lib + "/alpha"});
    CHECK(validate.status == 1);
    CHECK(validate.out == l.lib + "/alpha: ok\n");
    CHECK(validate.err == "agentskills validate: error: no such file or directory: " + l.lib + "/nope\n");
    CHECK(run_cli({"read-properties", l.lib + "/nope"}).status == 1);
    // No PATH and no source: a usage error (its whole text: test_cli_help.cpp).
    const CliRun none = run_cli({"validate"});
    CHECK(none.status == 2);
    CHECK(none.err.rfind(
              "agentskills validate: error: give at least one PATH, --root DIR, --mcp-command or --mcp-url\n", 0) == 0);
}

TEST_CASE("quiet flag: errors only on standard error, in every subcommand", "[cli][conventions]") {
    Library l;
    l.dir.write("lib/broken/SKILL.md", "---\nname: broken\n");
    l.dir.write("lib/odd/SKILL.md", skill_md("Odd", "A name against the rules."));
    const CliRun loud = run_cli({"prompt", "--root", l.lib});
    CHECK(loud.err.find("agentskills prompt: skipped (invalid): ") != std::string::npos);
    const CliRun list_loud = run_cli({"list", "--root", l.lib});
    CHECK(list_loud.err.find(": warning: ") != std::string::npos);
    for (const char* flag : {"-q", "--quiet"}) {
        const CliRun quiet = run_cli({"prompt", flag, "--root", l.lib});
        CHECK(quiet.status == 0);
        CHECK(quiet.out == loud.out);
        CHECK(quiet.err.empty());
        // list keeps the diagnostics of severity error, drops the warnings.
        const CliRun list = run_cli({"list", flag, "--root", l.lib});
        CHECK(list.out == list_loud.out);
        CHECK(list.err.find(": warning: ") == std::string::npos);
        CHECK(list.err.find("/broken/SKILL.md:1: error: ") != std::string::npos);
    }
    // Errors are still printed.
    const CliRun error = run_cli({"list", "-q", "--root", l.dir.path("nowhere")});
    CHECK(error.status == 1);
    CHECK(error.err == "agentskills list: error: library root " + l.dir.path("nowhere") + " does not exist\n");
    // Every subcommand takes it.
    for (const Command& c : all_commands(l.lib)) {
        INFO(c.name);
        const CliRun help = run_cli({c.name, "--help"});
        CHECK(help.out.find("-q,--quiet") != std::string::npos);
    }
}

TEST_CASE("loader flags: one set for every subcommand that reads skills", "[cli][conventions]") {
    Library l;
    const std::vector<std::string> flags = {"--root",
                                            "--include",
                                            "--exclude",
                                            "--missing-directories",
                                            "--duplicate-names",
                                            "--name-policy",
                                            "--max-lines",
                                            "--config",
                                            "--nested",
                                            "--quiet"};
    for (const Command& c : all_commands(l.lib)) {
        if (!c.reads_skills) continue;
        INFO(c.name);
        const std::string help = run_cli({c.name, "--help"}).out;
        for (const auto& f : flags) {
            INFO(f);
            CHECK(help.find(f) != std::string::npos);
        }
        CHECK(help.find("--max-bytes") != std::string::npos);  // render's bounds its output (docs/cli.md)
        const bool mcp = c.name != "mcp" && c.name != "watch" && c.name != "lock";
        CHECK((help.find("--mcp-command") != std::string::npos) == mcp);
        CHECK((help.find("--lock ") != std::string::npos) == (c.name != "lock"));
    }
}

TEST_CASE("loader flags: --max-lines 0 and the config key lift the line limit everywhere", "[cli][conventions]") {
    TempDir dir;
    dir.write("lib/big/SKILL.md", long_skill("big", 679));
    dir.write("lifted.yaml", "skills:\n  max_lines: 0\n");
    dir.write("bad.yaml", "skills:\n  max_lines: -1\n");
    const std::string lib = dir.path("lib");
    const std::vector<std::vector<std::string>> runs = {
        {"list", "--root", lib},           {"prompt", "--root", lib},
        {"to-prompt", "--root", lib},      {"activate", "--root", lib, "big"},
        {"render", "--root", lib, "big"},  {"tools", "--root", lib, "--activate", "big"},
        {"validate", lib + "/big"},        {"validate", "--root", lib},
        {"read-properties", lib + "/big"}, {"lock", "--root", lib}};
    for (const auto& run : runs) {
        INFO(run[0] << " " << run[1]);
        const CliRun limited = run_cli(run);
        const std::string all = limited.out + limited.err;
        CHECK(all.find(" lines, more than the limit of 500; to lift it, set the option max_lines "
                       "(0 = no limit) or pass --max-lines N (--max-lines 0) to agentskills") != std::string::npos);
        for (const auto& lift :
             {std::vector<std::string>{"--max-lines", "0"}, std::vector<std::string>{"--max-lines", "700"},
              std::vector<std::string>{"--config", dir.path("lifted.yaml")}}) {
            INFO(lift[0] << " " << lift[1]);
            const CliRun lifted = run_cli(with(run, lift));
            INFO(lifted.err);
            CHECK(lifted.status == 0);
            CHECK(lifted.err.find("too-many-lines") == std::string::npos);
            CHECK(lifted.out.find("more than the limit") == std::string::npos);
        }
        // A flag wins over the file; a bad key is a usage error naming the file's key.
        const CliRun flag_wins = run_cli(with(run, {"--config", dir.path("lifted.yaml"), "--max-lines", "10"}));
        CHECK((flag_wins.out + flag_wins.err).find("more than the limit of 10;") != std::string::npos);
        const CliRun bad = run_cli(with(run, {"--config", dir.path("bad.yaml")}));
        CHECK(bad.status == 2);
        CHECK(bad.err.find("'max_lines' must be a count") != std::string::npos);
    }
}

TEST_CASE("missing roots and roots that are skills: an error in every subcommand unless skipped",
          "[cli][conventions]") {
    Library l;
    const std::string nowhere = l.dir.path("nowhere");
    for (const Command& c : all_commands(l.lib)) {
        if (!c.reads_skills || c.name == "mcp") continue;
        INFO(c.name);
        std::vector<std::string> args{c.name, "--root", l.lib, "--root", nowhere};
        for (std::size_t i = 2; i < c.good.size(); ++i) args.push_back(c.good[i]);
        const CliRun r = run_cli(args);
        CHECK(r.status == 1);
        CHECK(r.err.find("agentskills " + c.name + ": error: library root " + nowhere + " does not exist") !=
              std::string::npos);
        const CliRun skipped = run_cli(with(args, {"--missing-directories", "skip"}));
        INFO(skipped.err);
        CHECK(skipped.status == 0);
        CHECK(skipped.err.find("error") == std::string::npos);
    }
    // A root that is itself a skill is no library: an error too, a skill_package skip if asked.
    const std::string skill_root = l.lib + "/alpha";
    const CliRun package = run_cli({"list", "--root", skill_root});
    CHECK(package.status == 1);
    CHECK(package.out.empty());
    CHECK(package.err.find("agentskills list: error: library root " + skill_root +
                           " holds a SKILL.md itself: it is a skill, not a library of skills") != std::string::npos);
    const CliRun package_skipped = run_cli({"list", "--json", "--missing-directories", "skip", "--root", skill_root});
    CHECK(package_skipped.status == 0);
    CHECK(package_skipped.out.find("\"skill_package\"") != std::string::npos);
    // The standard roots stay silent when they do not exist.
    const CliRun standard = run_cli({"list"}, l.dir.path());
    CHECK(standard.status == 0);
    CHECK(standard.err.empty());
}

TEST_CASE("list: standard output carries skills only", "[cli][conventions]") {
    Library l;
    l.dir.write("lib/broken/SKILL.md", "---\nname: broken\n");
    l.dir.write("lib/big/SKILL.md", long_skill("big", 600));
    const CliRun r = run_cli({"list", "--root", l.lib});
    CHECK(r.status == 0);
    CHECK(r.out == "alpha\t" + std::filesystem::canonical(l.lib).string() + "/alpha/SKILL.md\n");
    CHECK(r.err.find("/broken/SKILL.md:1: error: ") != std::string::npos);
    CHECK(r.err.find("/big/SKILL.md:501: error: the file has 605 lines") != std::string::npos);
}

}  // namespace cli_conventions_tests
