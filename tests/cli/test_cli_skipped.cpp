// The shim commands (to-prompt, prompt, activate) report each skipped skill on stderr, once,
// with its reason, and go on with the others.
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_skipped_tests {

using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

TEST_CASE("shim commands: a skipped skill is one stderr line with its reason", "[cli][skipped]") {
    TempDir dir;
    dir.write("lib/good/SKILL.md", skill_md("good", "A good skill."));
    std::string long_body;
    for (int i = 0; i < 500; ++i) long_body += "line\n";
    dir.write("lib/long/SKILL.md", skill_md("long", "Too many lines.", long_body));
    const std::string lib = std::filesystem::canonical(dir.path("lib")).string();
    const std::string expected_err =
        "skipped (too_large): " + lib +
        "/long/SKILL.md: the file has 505 lines, more than the limit of 500; to lift it, set "
        "the option max_lines (0 = no limit) or pass --max-lines N (--max-lines 0) to agentskills\n";

    const auto to_prompt = run_cli({"to-prompt", "--root", lib});
    CHECK(to_prompt.status == 0);
    CHECK(to_prompt.err == "agentskills to-prompt: " + expected_err);
    CHECK(to_prompt.out.find("<name>good</name>") != std::string::npos);
    CHECK(to_prompt.out.find("<name>long</name>") == std::string::npos);

    const auto prompt = run_cli({"prompt", "--root", lib});
    CHECK(prompt.status == 0);
    CHECK(prompt.err == "agentskills prompt: " + expected_err);
}

TEST_CASE("shim commands: one aggregated warning for the Claude Code fields the library ignores", "[cli][skipped]") {
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\nmodel: opus\ncontext: fork\n---\nBody.\n");
    dir.write("lib/beta/SKILL.md", "---\nname: beta\ndescription: Second.\nmodel: haiku\n---\nBody.\n");
    dir.write("lib/plain/SKILL.md", skill_md("plain", "No such fields."));
    const std::string lib = std::filesystem::canonical(dir.path("lib")).string();
    const std::string warning =
        "warning: skills use Claude Code fields that this library does not implement (they have no effect "
        "here): context (alpha); model (alpha, beta) [ignored-behavioral-fields]\n";
    for (const char* command : {"to-prompt", "prompt"}) {
        const auto r = run_cli({command, "--root", lib});
        CHECK(r.status == 0);
        CHECK(r.err == std::string("agentskills ") + command + ": " + warning);
    }
    const auto activate = run_cli({"activate", "--root", lib, "plain"});
    CHECK(activate.status == 0);
    CHECK(activate.err == "agentskills activate: " + warning);
}

}  // namespace cli_skipped_tests
