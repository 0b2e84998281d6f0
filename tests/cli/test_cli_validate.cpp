#include <filesystem>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace cli_validate_tests {

using agentskills::test::run_cli;

TEST_CASE("validate: text output and exit status", "[cli]") {
    SECTION("a valid skill") {
        auto r = run_cli({"validate", "validate/good-skill"});
        CHECK(r.status == 0);
        CHECK(r.out == "validate/good-skill: ok\n");
        CHECK(r.err.empty());
    }
    SECTION("the SKILL.md itself may be given") {
        auto r = run_cli({"validate", "validate/good-skill/SKILL.md"});
        CHECK(r.status == 0);
        CHECK(r.out == "validate/good-skill/SKILL.md: ok\n");
    }
    SECTION("warnings do not fail under the keep policy") {
        auto r = run_cli({"validate", "validate/Bad_Name"});
        CHECK(r.status == 0);
        CHECK(r.out ==
              "validate/Bad_Name/SKILL.md:2: warning: the name 'Bad_Name' must be lowercase [name-not-lowercase]\n"
              "validate/Bad_Name/SKILL.md:2: warning: the name 'Bad_Name' may only contain letters, digits and hyphens "
              "[name-invalid-character]\n"
              "validate/Bad_Name: ok\n");
    }
    SECTION("require_valid turns them into errors") {
        auto r = run_cli({"validate", "--name-policy", "require_valid", "validate/Bad_Name"});
        CHECK(r.status == 1);
        CHECK(r.out ==
              "validate/Bad_Name/SKILL.md:2: error: the name 'Bad_Name' must be lowercase [name-not-lowercase]\n"
              "validate/Bad_Name/SKILL.md:2: error: the name 'Bad_Name' may only contain letters, digits and hyphens "
              "[name-invalid-character]\n");
    }
    SECTION("one invalid among several: exit 1, all reported") {
        auto r = run_cli({"validate", "validate/good-skill", "validate/no-frontmatter", "validate/empty-dir"});
        CHECK(r.status == 1);
        CHECK(r.out ==
              "validate/good-skill: ok\n"
              "validate/no-frontmatter/SKILL.md:1: error: the file must start with a line '---' that opens the YAML "
              "frontmatter [frontmatter-missing]\n"
              "validate/empty-dir: error: no SKILL.md in 'validate/empty-dir' [skill-file-missing]\n");
    }
    SECTION("a whole library with --root: the skills list finds, with the loader's paths") {
        auto r = run_cli({"validate", "--root", "validate"});
        const std::string lib = std::filesystem::canonical(AGENTSKILLS_TEST_DATA_DIR "/validate").string();
        CHECK(r.status == 1);
        CHECK(r.out == lib +
                           "/Bad_Name/SKILL.md:2: warning: the name 'Bad_Name' must be lowercase "
                           "[name-not-lowercase]\n" +
                           lib +
                           "/Bad_Name/SKILL.md:2: warning: the name 'Bad_Name' may only contain letters, digits "
                           "and hyphens [name-invalid-character]\n" +
                           lib + "/Bad_Name: ok\n" + lib + "/good-skill: ok\n" + lib +
                           "/no-frontmatter/SKILL.md:1: error: the file must start with a line '---' that opens the "
                           "YAML frontmatter [frontmatter-missing]\n");
        // A missing root is an error, as in list.
        auto missing = run_cli({"validate", "--root", "no-such-library"});
        CHECK(missing.status == 1);
        CHECK(missing.err == "agentskills validate: error: library root " + std::string(AGENTSKILLS_TEST_DATA_DIR) +
                                 "/no-such-library does not exist\n");
    }
    SECTION("usage errors exit 2") {
        CHECK(run_cli({"validate"}).status == 2);
        CHECK(run_cli({"validate", "does/not/exist"}).status == 1);  // a failure about the input
        CHECK(run_cli({"validate", "--profile", "bogus", "validate/good-skill"}).status == 2);
        CHECK(run_cli({"validate", "--no-such-flag", "validate/good-skill"}).status == 2);
        CHECK(run_cli({}).status == 2);
    }
}

TEST_CASE("validate --json", "[cli]") {
    auto r = run_cli({"validate", "--json", "validate/good-skill", "validate/no-frontmatter"});
    CHECK(r.status == 1);
    const auto expected = R"({
  "profile": "standard",
  "schema": 1,
  "skills": [
    {
      "diagnostics": [],
      "name": "good-skill",
      "path": "validate/good-skill",
      "skill_file": "validate/good-skill/SKILL.md",
      "skip_reason": null,
      "valid": true
    },
    {
      "diagnostics": [
        {
          "code": "frontmatter-missing",
          "line": 1,
          "message": "the file must start with a line '---' that opens the YAML frontmatter",
          "path": "validate/no-frontmatter/SKILL.md",
          "severity": "error"
        }
      ],
      "name": null,
      "path": "validate/no-frontmatter",
      "skill_file": "validate/no-frontmatter/SKILL.md",
      "skip_reason": "invalid",
      "valid": false
    }
  ],
  "valid": false
}
)";
    CHECK(r.out == expected);
    CHECK(nlohmann::json::parse(r.out)["valid"] == false);
}

TEST_CASE("validate --profile reference", "[cli]") {
    auto ok = run_cli({"validate", "--profile", "reference", "validate/good-skill"});
    CHECK(ok.status == 0);
    auto bad = run_cli({"validate", "--profile", "reference", "--json", "validate/Bad_Name"});
    CHECK(bad.status == 1);
    const auto j = nlohmann::json::parse(bad.out);
    CHECK(j["profile"] == "reference");
    CHECK(j["skills"][0]["valid"] == false);
    CHECK(j["skills"][0]["diagnostics"].size() == 2);
}

TEST_CASE("read-properties", "[cli]") {
    auto r = run_cli({"read-properties", "validate/good-skill"});
    CHECK(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["name"] == "good-skill");
    CHECK(j["description"] == "Checks that a valid skill passes.");
    CHECK(j["license"] == "MIT");
    CHECK(j["compatibility"] == nullptr);
    CHECK(j["allowed-tools"] == nlohmann::json::array());
    CHECK(j["metadata"] == nlohmann::json{{"version", "1.0"}});
    CHECK(j["location"] == "validate/good-skill/SKILL.md");
    CHECK(j["root"] == "validate/good-skill");

    auto bad = run_cli({"read-properties", "validate/no-frontmatter"});
    CHECK(bad.status == 1);
    CHECK(bad.out.empty());
    CHECK(bad.err ==
          "validate/no-frontmatter/SKILL.md:1: error: the file must start with a line '---' that opens the YAML "
          "frontmatter [frontmatter-missing]\n"
          "agentskills read-properties: error: cannot read the skill at validate/no-frontmatter\n");
    CHECK(run_cli({"read-properties"}).status == 2);
}

}  // namespace cli_validate_tests
