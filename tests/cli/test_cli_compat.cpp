// Tests of where the program finds skills (issue 36): the default roots' walk up to the
// repository root, --compat for other agents' folders, --limits, the --config keys for both,
// and the npm `skills` CLI's lock file (they run the built program).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"
#include "support/home_environment.hpp"

namespace cli_compat_tests {

using agentskills::test::CliRun;
using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

// Runs the program with HOME set to `home` and the variables other agents read for their folders
// (--compat) set as `env` says, the others of them unset (the child inherits this process's
// environment, which is put back after the run).
CliRun run_with_env(const std::string& home, const std::map<std::string, std::string>& env,
                    const std::vector<std::string>& args, const std::string& cwd) {
    const agentskills_test::HomeEnvironment environment(home, env);
    return run_cli(args, cwd);
}

CliRun run_with_home(const std::string& home, const std::vector<std::string>& args, const std::string& cwd) {
    return run_with_env(home, {}, args, cwd);
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A repository with skills at three levels and in each agent's folders, and a home with the
// user folders of each agent.
void write_tree(const TempDir& t) {
    t.write("outside/.agents/skills/outside/SKILL.md", skill_md("outside", "Above the repository."));
    t.mkdir("outside/repo/.git");
    t.write("outside/repo/.agents/skills/top/SKILL.md", skill_md("top", "At the root."));
    t.write("outside/repo/sub/.agents/skills/mid/SKILL.md", skill_md("mid", "One up."));
    t.write("outside/repo/sub/dir/.agents/skills/low/SKILL.md", skill_md("low", "Here."));
    t.write("outside/repo/.claude/skills/p-claude/SKILL.md", skill_md("p-claude", "P."));
    t.write("outside/repo/.github/skills/p-github/SKILL.md", skill_md("p-github", "P."));
    t.write("outside/repo/sub/.gemini/skills/p-gemini/SKILL.md", skill_md("p-gemini", "P."));
    t.write("outside/repo/.opencode/skills/p-opencode/SKILL.md", skill_md("p-opencode", "P."));
    t.write("outside/repo/sub/.opencode/skill/p-opencode-skill/SKILL.md", skill_md("p-opencode-skill", "P."));
    t.write("outside/repo/.codex/skills/p-codex/SKILL.md", skill_md("p-codex", "P."));
    t.write("home/.agents/skills/u-agents/SKILL.md", skill_md("u-agents", "U."));
    t.write("home/.claude/skills/u-claude/SKILL.md", skill_md("u-claude", "U."));
    t.write("home/.copilot/skills/u-copilot/SKILL.md", skill_md("u-copilot", "U."));
    t.write("home/.gemini/skills/u-gemini/SKILL.md", skill_md("u-gemini", "U."));
    t.write("home/.config/opencode/skills/u-opencode/SKILL.md", skill_md("u-opencode", "U."));
    t.write("home/.codex/skills/u-codex/SKILL.md", skill_md("u-codex", "U."));
}

std::string line(const TempDir& t, const std::string& name, const std::string& library) {
    return name + "\t" + t.path(library + "/" + name + "/SKILL.md") + "\n";
}

}  // namespace

TEST_CASE("list from a subdirectory: .agents/skills of each level up to the repository root, then home",
          "[cli][walk]") {
    TempDir t;
    write_tree(t);
    const CliRun r = run_with_home(t.path("home"), {"list"}, t.path("outside/repo/sub/dir"));
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    CHECK(r.out == line(t, "low", "outside/repo/sub/dir/.agents/skills") +
                       line(t, "mid", "outside/repo/sub/.agents/skills") +
                       line(t, "top", "outside/repo/.agents/skills") + line(t, "u-agents", "home/.agents/skills"));
}

TEST_CASE("list --compat adds each agent's project folders (walked) and user folders after the standard roots",
          "[cli][compat]") {
    TempDir t;
    write_tree(t);
    const std::string cwd = t.path("outside/repo/sub");
    const std::string standard = line(t, "mid", "outside/repo/sub/.agents/skills") +
                                 line(t, "top", "outside/repo/.agents/skills") +
                                 line(t, "u-agents", "home/.agents/skills");
    const auto list = [&](const std::string& agents) {
        const CliRun r = run_with_home(t.path("home"), {"list", "--compat", agents}, cwd);
        CHECK(r.status == 0);
        CHECK(r.err.empty());
        return r.out;
    };
    CHECK(list("claude") ==
          standard + line(t, "p-claude", "outside/repo/.claude/skills") + line(t, "u-claude", "home/.claude/skills"));
    CHECK(list("copilot") == standard + line(t, "p-github", "outside/repo/.github/skills") +
                                 line(t, "p-claude", "outside/repo/.claude/skills") +
                                 line(t, "u-copilot", "home/.copilot/skills") +
                                 line(t, "u-claude", "home/.claude/skills"));
    CHECK(list("gemini") == standard + line(t, "p-gemini", "outside/repo/sub/.gemini/skills") +
                                line(t, "u-gemini", "home/.gemini/skills"));
    CHECK(list("opencode") == standard + line(t, "p-opencode", "outside/repo/.opencode/skills") +
                                  line(t, "p-opencode-skill", "outside/repo/sub/.opencode/skill") +
                                  line(t, "p-claude", "outside/repo/.claude/skills") +
                                  line(t, "u-opencode", "home/.config/opencode/skills") +
                                  line(t, "u-claude", "home/.claude/skills"));
    CHECK(list("codex") ==
          standard + line(t, "p-codex", "outside/repo/.codex/skills") + line(t, "u-codex", "home/.codex/skills"));
    CHECK(list("gemini,claude") == standard + line(t, "p-gemini", "outside/repo/sub/.gemini/skills") +
                                       line(t, "u-gemini", "home/.gemini/skills") +
                                       line(t, "p-claude", "outside/repo/.claude/skills") +
                                       line(t, "u-claude", "home/.claude/skills"));

    // The configuration file's `compat`, when no --compat is given.
    t.write("config.yaml", "skills:\n  compat: [codex]\n");
    const CliRun configured = run_with_home(t.path("home"), {"list", "--config", t.path("config.yaml")}, cwd);
    CHECK(configured.status == 0);
    CHECK(configured.out ==
          standard + line(t, "p-codex", "outside/repo/.codex/skills") + line(t, "u-codex", "home/.codex/skills"));
    const CliRun flag_wins =
        run_with_home(t.path("home"), {"list", "--config", t.path("config.yaml"), "--compat", "claude"}, cwd);
    CHECK(flag_wins.out ==
          standard + line(t, "p-claude", "outside/repo/.claude/skills") + line(t, "u-claude", "home/.claude/skills"));

    const CliRun bad = run_with_home(t.path("home"), {"list", "--compat", "cursor"}, cwd);
    CHECK(bad.status == 2);
    CHECK(bad.out.empty());
    const CliRun mcp = run_with_home(t.path("home"), {"list", "--compat", "claude", "--mcp-command", "true"}, cwd);
    CHECK(mcp.status == 2);
    CHECK(mcp.err.rfind("agentskills list: error: --compat: adds folders of the file system; it does not combine "
                        "with --mcp-command or --mcp-url\n",
                        0) == 0);
}

TEST_CASE("list --compat: the agents' home variables move their user folders", "[cli][compat]") {
    TempDir t;
    write_tree(t);
    t.write("elsewhere/codex/skills/e-codex/SKILL.md", skill_md("e-codex", "E."));
    t.write("elsewhere/xdg/opencode/skill/e-opencode/SKILL.md", skill_md("e-opencode", "E."));
    t.write("elsewhere/gemini/.agents/skills/e-gemini/SKILL.md", skill_md("e-gemini", "E."));
    const std::string cwd = t.path("outside/repo");
    const std::string standard =
        line(t, "top", "outside/repo/.agents/skills") + line(t, "u-agents", "home/.agents/skills");
    const CliRun codex =
        run_with_env(t.path("home"), {{"CODEX_HOME", t.path("elsewhere/codex")}}, {"list", "--compat", "codex"}, cwd);
    CHECK(codex.status == 0);
    CHECK(codex.err.empty());
    CHECK(codex.out ==
          standard + line(t, "p-codex", "outside/repo/.codex/skills") + line(t, "e-codex", "elsewhere/codex/skills"));
    const CliRun opencode = run_with_env(t.path("home"), {{"XDG_CONFIG_HOME", t.path("elsewhere/xdg")}},
                                         {"list", "--compat", "opencode"}, cwd);
    CHECK(opencode.out == standard + line(t, "p-opencode", "outside/repo/.opencode/skills") +
                              line(t, "p-claude", "outside/repo/.claude/skills") +
                              line(t, "e-opencode", "elsewhere/xdg/opencode/skill") +
                              line(t, "u-claude", "home/.claude/skills"));
    const CliRun gemini = run_with_env(t.path("home"), {{"GEMINI_CLI_HOME", t.path("elsewhere/gemini")}},
                                       {"list", "--compat", "gemini"}, cwd);
    CHECK(gemini.out == standard + line(t, "e-gemini", "elsewhere/gemini/.agents/skills"));
    // A relative value is ignored.
    const CliRun relative =
        run_with_env(t.path("home"), {{"CODEX_HOME", "elsewhere/codex"}}, {"list", "--compat", "codex"}, cwd);
    CHECK(relative.out ==
          standard + line(t, "p-codex", "outside/repo/.codex/skills") + line(t, "u-codex", "home/.codex/skills"));
}

TEST_CASE("list --limits agents and the config's limits load a 679-line skill, standard refuses it", "[cli][limits]") {
    TempDir t;
    std::string body;
    for (int i = 1; i <= 675; ++i) body += "line " + std::to_string(i) + "\n";
    body.pop_back();
    t.write("lib/long/SKILL.md", skill_md("long", "Long.", body));
    t.write("lib/wordy/SKILL.md", skill_md("wordy", std::string(1500, 'd')));
    const std::string long_line = "long\t" + t.path("lib/long/SKILL.md") + "\n";
    const std::string wordy_line = "wordy\t" + t.path("lib/wordy/SKILL.md") + "\n";
    const std::string cut = t.path("lib/wordy/SKILL.md") +
                            ":3: warning: 'description' has 1500 characters, more than 1024; it was cut at the "
                            "limit [description-too-long]\n";

    const CliRun standard = run_cli({"list", "--root", "lib"}, t.path());
    CHECK(standard.status == 0);
    CHECK(standard.out == wordy_line);
    CHECK(standard.err.find("the file has 679 lines, more than the limit of 500") != std::string::npos);
    CHECK(standard.err.find(cut) != std::string::npos);

    const CliRun agents = run_cli({"list", "--root", "lib", "--limits", "agents"}, t.path());
    CHECK(agents.status == 0);
    CHECK(agents.out == long_line + wordy_line);
    CHECK(agents.err == cut);

    // An explicit --max-lines wins over the preset; the config's limits apply without flags.
    CHECK(run_cli({"list", "--root", "lib", "--limits", "agents", "--max-lines", "500"}, t.path()).out == wordy_line);
    t.write("agents.yaml", "skills:\n  limits: agents\n");
    CHECK(run_cli({"list", "--root", "lib", "--config", "agents.yaml"}, t.path()).out == long_line + wordy_line);
    CHECK(run_cli({"list", "--root", "lib", "--config", "agents.yaml", "--limits", "standard"}, t.path()).out ==
          wordy_line);
}

TEST_CASE("list --yaml-recovery and the config's yaml_recovery load a skill whose description holds ': '",
          "[cli][recovery]") {
    TempDir t;
    t.write("lib/colon/SKILL.md", "---\nname: colon\ndescription: Use when: the user asks\n---\nBody.\n");
    t.write("lib/plain/SKILL.md", skill_md("plain", "Plain."));
    const std::string file = t.path("lib/colon/SKILL.md");
    const std::string colon_line = "colon\t" + file + "\n";
    const std::string plain_line = "plain\t" + t.path("lib/plain/SKILL.md") + "\n";
    const std::string recovered = file +
                                  ":3: warning: the value of 'description' is not valid as plain YAML text (a ': ' or "
                                  "an indicator in it); it was read as quoted text [yaml-recovered]\n";

    const CliRun none = run_cli({"list", "--root", "lib"}, t.path());
    CHECK(none.status == 0);
    CHECK(none.out == plain_line);
    CHECK(none.err.find(file + ":3: error: the frontmatter is not valid YAML: illegal map value [yaml-syntax]\n") !=
          std::string::npos);

    const CliRun plain = run_cli({"list", "--root", "lib", "--yaml-recovery", "plain_values"}, t.path());
    CHECK(plain.status == 0);
    CHECK(plain.out == colon_line + plain_line);
    CHECK(plain.err == recovered);

    const CliRun validate = run_cli({"validate", "--yaml-recovery", "plain_values", "lib/colon"}, t.path());
    CHECK(validate.status == 0);
    CHECK(validate.out ==
          "lib/colon/SKILL.md:3: warning: the value of 'description' is not valid as plain YAML text (a ': ' or an "
          "indicator in it); it was read as quoted text [yaml-recovered]\nlib/colon: ok\n");
    const CliRun properties = run_cli({"read-properties", "--yaml-recovery", "plain_values", "lib/colon"}, t.path());
    CHECK(properties.status == 0);
    CHECK(nlohmann::json::parse(properties.out)["description"] == "Use when: the user asks");
    CHECK(run_cli({"validate", "--profile", "reference", "--yaml-recovery", "plain_values", "lib/colon"}, t.path())
              .status == 1);

    // The config's key applies without the flag; the flag wins over it.
    t.write("recover.yaml", "skills:\n  yaml_recovery: plain_values\n");
    CHECK(run_cli({"list", "--root", "lib", "--config", "recover.yaml"}, t.path()).out == colon_line + plain_line);
    CHECK(run_cli({"list", "--root", "lib", "--config", "recover.yaml", "--yaml-recovery", "none"}, t.path()).out ==
          plain_line);
    CHECK(run_cli({"list", "--root", "lib", "--yaml-recovery", "lenient"}, t.path()).status == 2);
}

#ifdef AGENTSKILLS_HAVE_LOCK
TEST_CASE("the skills CLI's skills-lock.json: --lock refuses it naming the format, lock --output never overwrites it",
          "[cli][lock]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha does a."));
    // Written by the npm `skills` CLI 1.7.4 (see tests/lock/test_lock.cpp for how).
    const std::string foreign = read_text(AGENTSKILLS_TEST_DATA_DIR "/skills-cli/skills-lock.json");
    REQUIRE(!foreign.empty());
    t.write("skills-lock.json", foreign);

    const CliRun listed = run_cli({"list", "--root", "lib", "--lock", "skills-lock.json"}, t.path());
    CHECK(listed.status == 2);
    CHECK(listed.out.empty());
    CHECK(listed.err ==
          "agentskills list: error: lock file 'skills-lock.json': this is the npm 'skills' CLI's lock file "
          "(skills-lock.json: a 'skills' map with a 'computedHash' per skill), not an agentskills lock; its hashes "
          "are not verified here. Write an agentskills lock with 'agentskills lock --output agentskills-lock.json'\n");

    const CliRun over = run_cli({"lock", "--root", "lib", "--output", "skills-lock.json"}, t.path());
    CHECK(over.status == 2);
    CHECK(over.out.empty());
    CHECK(over.err ==
          "agentskills lock: error: lock --output 'skills-lock.json': the file is the npm 'skills' CLI's lock file "
          "(skills-lock.json); it is not overwritten. Write the agentskills lock to another file, such as "
          "agentskills-lock.json\n");
    CHECK(read_text(t.path("skills-lock.json")) == foreign);

    t.write("notes.txt", "mine\n");
    const CliRun other = run_cli({"lock", "--root", "lib", "--output", "notes.txt"}, t.path());
    CHECK(other.status == 2);
    CHECK(other.err ==
          "agentskills lock: error: lock --output 'notes.txt': the file exists and is not an agentskills lock "
          "file; it is not overwritten\n");
    CHECK(read_text(t.path("notes.txt")) == "mine\n");

    // Our own lock: written to the file (stdout stays empty), and written again over itself.
    const CliRun printed = run_cli({"lock", "--root", "lib"}, t.path());
    REQUIRE(printed.status == 0);
    for (int i = 0; i < 2; ++i) {
        const CliRun written = run_cli({"lock", "--root", "lib", "--output", "agentskills-lock.json"}, t.path());
        CHECK(written.status == 0);
        CHECK(written.out.empty());
        CHECK(read_text(t.path("agentskills-lock.json")) == printed.out);
    }
    CHECK(run_cli({"list", "--root", "lib", "--lock", "agentskills-lock.json", "--lock-strict"}, t.path()).status == 0);

    // A skill whose files cannot be digested costs only itself: left out with a note, status 1,
    // the rest locked (to standard output and to --output alike).
    t.write("lib/zz-big/SKILL.md", skill_md("zz-big", "Big."));
    t.write("lib/zz-big/data.bin", "");
    std::filesystem::resize_file(t.path("lib/zz-big/data.bin"), 64 * 1024 * 1024 + 1);  // sparse
    const std::string note = "agentskills lock: left out of the lock: " + t.path("lib/zz-big/SKILL.md") +
                             ": the files of zz-big cannot be locked: " + t.path("lib/zz-big/data.bin") +
                             " is larger than the lock limit of 67108864 bytes\n";
    const CliRun partial = run_cli({"lock", "--root", "lib"}, t.path());
    CHECK(partial.status == 1);
    CHECK(partial.out == printed.out);
    CHECK(partial.err == note);
    const CliRun partial_file = run_cli({"lock", "--root", "lib", "--output", "agentskills-lock.json"}, t.path());
    CHECK(partial_file.status == 1);
    CHECK(partial_file.err == note);
    CHECK(read_text(t.path("agentskills-lock.json")) == printed.out);
}
#endif

TEST_CASE("list --root over a Claude Code marketplace and a plugin: plugin:skill names, the remote entry named",
          "[cli][plugins]") {
    TempDir t;
    t.write("market/.claude-plugin/marketplace.json", R"({"name": "market", "plugins": [
        {"name": "agentic-actions-auditor", "source": "./plugins/agentic-actions-auditor"},
        {"name": "far", "source": {"source": "github", "repo": "owner/repo"}},
        {"name": "helpers", "source": "./plugins/helpers"}]})");
    t.write("market/plugins/agentic-actions-auditor/.claude-plugin/plugin.json",
            R"({"name": "agentic-actions-auditor"})");
    t.write("market/plugins/agentic-actions-auditor/skills/agentic-actions-auditor/SKILL.md",
            skill_md("agentic-actions-auditor", "Audits."));
    t.write("market/plugins/helpers/skills/format/SKILL.md", skill_md("format", "Formats."));
    t.write("solo/.claude-plugin/plugin.json", R"({"name": "solo-tools"})");
    t.write("solo/skills/one/SKILL.md", skill_md("one", "One."));
    const std::string manifest = t.path("market/.claude-plugin/marketplace.json");

    for (const bool nested : {false, true}) {
        INFO(nested);
        std::vector<std::string> args = {"list", "--json", "--root", t.path("market"), "--root", t.path("solo")};
        if (nested) args.emplace_back("--nested");
        const CliRun r = run_cli(args, t.path());
        CHECK(r.status == 0);
        const auto j = nlohmann::json::parse(r.out);
        std::vector<std::string> names;
        for (const auto& s : j["skills"]) names.push_back(s["name"].get<std::string>());
        CHECK(names == std::vector<std::string>{"agentic-actions-auditor:agentic-actions-auditor", "helpers:format",
                                                "solo-tools:one"});
        CHECK(j["skills"][0]["location"] ==
              t.path("market/plugins/agentic-actions-auditor/skills/agentic-actions-auditor/SKILL.md"));
        CHECK(j["skills"][0]["library"] == t.path("market/plugins/agentic-actions-auditor/skills"));
        REQUIRE(j["diagnostics"].size() == 1);
        CHECK(j["diagnostics"][0]["code"] == "plugin-refused");
        CHECK(j["diagnostics"][0]["path"] == manifest);
        CHECK(j["diagnostics"][0]["severity"] == "warning");
        CHECK(j["diagnostics"][0]["message"] ==
              "plugin 'far' (entry 2 of the marketplace " + manifest +
                  ") is not loaded: its source is remote (github); only plugins inside the marketplace's "
                  "directory are loaded");
    }
    SECTION("text output: the lines, and the warning on standard error") {
        const CliRun r = run_cli({"list", "--root", t.path("market")}, t.path());
        CHECK(r.status == 0);
        CHECK(r.out == "agentic-actions-auditor:agentic-actions-auditor\t" +
                           t.path("market/plugins/agentic-actions-auditor/skills/agentic-actions-auditor/SKILL.md") +
                           "\nhelpers:format\t" + t.path("market/plugins/helpers/skills/format/SKILL.md") + "\n");
        CHECK(r.err.find("plugin 'far'") != std::string::npos);
    }
}

}  // namespace cli_compat_tests
