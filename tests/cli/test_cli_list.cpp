// Tests of `agentskills list` (they run the built program).
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "agentskills/catalog/loader.hpp"
#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_list_tests {

using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

std::string library_dir() { return std::filesystem::canonical(AGENTSKILLS_TEST_DATA_DIR "/library").string(); }

}  // namespace

TEST_CASE("list: text output", "[cli][list]") {
    auto r = run_cli({"list", "--root", "library"});
    const std::string lib = library_dir();
    CHECK(r.status == 0);
    CHECK(r.out == "code-review\t" + lib + "/code-review/SKILL.md\n" + "pdf-forms\t" + lib + "/pdf-forms/SKILL.md\n" +
                       "release-notes\t" + lib + "/release-notes/SKILL.md\n");
    // What was left out goes to standard error only.
    CHECK(r.err == lib +
                       "/broken-frontmatter/SKILL.md:1: error: the frontmatter opened on line 1 is not closed by "
                       "a line '---' [frontmatter-unclosed]\n");
}

TEST_CASE("list: JSON output", "[cli][list]") {
    auto r =
        run_cli({"list", "--json", "--root", "library", "--root", "no-such-library", "--missing-directories", "skip"});
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    const std::string lib = library_dir();
    REQUIRE(j.at("skills").size() == 3);
    const auto& first = j["skills"][0];
    CHECK(first["name"] == "code-review");
    CHECK(first["description"] == "Review a change for correctness, tests and house style before it is merged.");
    CHECK(first["location"] == lib + "/code-review/SKILL.md");
    CHECK(first["root"] == lib + "/code-review");
    CHECK(first["library"] == lib);
    CHECK(first["license"] == "MIT");
    REQUIRE(j.at("skipped").size() == 1);
    CHECK(j["skipped"][0]["path"] == lib + "/broken-frontmatter/SKILL.md");
    CHECK(j["skipped"][0]["reason"] == "invalid");
    CHECK_FALSE(j["skipped"][0]["message"].get<std::string>().empty());
    bool saw_missing_root = false;
    bool saw_parse_error = false;
    for (const auto& d : j.at("diagnostics")) {
        if (d["code"] == "root-missing") saw_missing_root = true;
        if (d["code"] == "frontmatter-unclosed" && d["line"] == 1) saw_parse_error = true;
    }
    CHECK(saw_missing_root);
    CHECK(saw_parse_error);
    // The streamed output is exactly the document's own two-space dump.
    CHECK(r.out == j.dump(2) + "\n");
    CHECK(j.at("schema") == 2);
    // Each frontmatter (read again as it is printed) is the tree a discovery that builds them
    // gives, typed as the MCP server types it (schema 2).
    agentskills::FilesystemSkillLoader loader({.roots = {lib},
                                               .include_default_roots = false,
                                               .frontmatter_typing = agentskills::FrontmatterTyping::core_schema});
    const agentskills::Discovery d = loader.discover();
    REQUIRE(d.skills.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
        CHECK(j["skills"][i]["frontmatter"] == d.skills[i].frontmatter.get());
        CHECK(j["skills"][i]["frontmatter"].at("name") == d.skills[i].name);
    }
    CHECK(j["skills"][0]["frontmatter"].at("license") == "MIT");
}

TEST_CASE("list: selection and policies", "[cli][list]") {
    SECTION("include") {
        auto r = run_cli({"list", "--json", "--root", "library", "--include", "pdf-forms"});
        REQUIRE(r.status == 0);
        const auto j = nlohmann::json::parse(r.out);
        REQUIRE(j["skills"].size() == 1);
        CHECK(j["skills"][0]["name"] == "pdf-forms");
        CHECK(j["skipped"].empty());
    }
    SECTION("exclude") {
        auto r = run_cli({"list", "--root", "library", "--exclude", "pdf-forms", "--exclude", "code-review"});
        CHECK(r.status == 0);
        CHECK(r.out.rfind("release-notes\t", 0) == 0);
    }
    SECTION("an unknown include name fails with exit 1") {
        auto r = run_cli({"list", "--root", "library", "--include", "no-such-skill"});
        CHECK(r.status == 1);
        CHECK(r.err.find("no-such-skill") != std::string::npos);
    }
    SECTION("include with exclude is a usage error") {
        auto r = run_cli({"list", "--root", "library", "--include", "a", "--exclude", "b"});
        CHECK(r.status == 2);
    }
    SECTION("a missing root fails with exit 1 (the default), or is skipped under skip") {
        auto r = run_cli({"list", "--root", "no-such-library"});
        CHECK(r.status == 1);
        CHECK(r.out.empty());
        CHECK(r.err == "agentskills list: error: library root " + std::string(AGENTSKILLS_TEST_DATA_DIR) +
                           "/no-such-library does not exist\n");
        auto skip = run_cli({"list", "--root", "no-such-library", "--missing-directories", "skip"});
        CHECK(skip.status == 0);
        CHECK(skip.out.empty());
        CHECK(skip.err.empty());
    }
    SECTION("a bad policy value is a usage error") {
        auto r = run_cli({"list", "--root", "library", "--duplicate-names", "maybe"});
        CHECK(r.status == 2);
    }
    SECTION("a root that is a skill fails, or is skipped under skip") {
        auto skip = run_cli({"list", "--json", "--root", "library/code-review", "--missing-directories", "skip"});
        REQUIRE(skip.status == 0);
        const auto j = nlohmann::json::parse(skip.out);
        REQUIRE(j["skipped"].size() == 1);
        CHECK(j["skipped"][0]["reason"] == "skill_package");
        auto strict = run_cli({"list", "--root", "library/code-review"});
        CHECK(strict.status == 1);
    }
}

TEST_CASE("list: duplicate names across roots", "[cli][list]") {
    TempDir tmp;
    tmp.write("first/tool/SKILL.md", skill_md("tool", "First tool."));
    tmp.write("second/tool/SKILL.md", skill_md("tool", "Second tool."));
    auto keep = run_cli({"list", "--json", "--root", "first", "--root", "second"}, tmp.path());
    REQUIRE(keep.status == 0);
    const auto j = nlohmann::json::parse(keep.out);
    REQUIRE(j["skills"].size() == 1);
    CHECK(j["skills"][0]["description"] == "First tool.");
    REQUIRE(j["skipped"].size() == 1);
    CHECK(j["skipped"][0]["reason"] == "duplicate_name");

    auto strict = run_cli({"list", "--root", "first", "--root", "second", "--duplicate-names", "error"}, tmp.path());
    CHECK(strict.status == 1);
    CHECK(strict.err.find("first/tool/SKILL.md") != std::string::npos);
    CHECK(strict.err.find("second/tool/SKILL.md") != std::string::npos);
}

TEST_CASE("list: without --root the default roots apply", "[cli][list]") {
    TempDir tmp;
    tmp.write(".agents/skills/project-skill/SKILL.md", skill_md("project-skill", "From the project."));
    auto r = run_cli({"list"}, tmp.path());
    CHECK(r.status == 0);
    const std::string dir = std::filesystem::canonical(tmp.path()).string();
    CHECK(r.out.find("project-skill\t" + dir + "/.agents/skills/project-skill/SKILL.md\n") != std::string::npos);
}

TEST_CASE("list --json, schema 2: frontmatter values typed as the MCP server types them", "[cli][list][json]") {
    TempDir tmp;
    tmp.write("lib/typed/SKILL.md",
              "---\nname: typed\ndescription: Typed values.\ndisable-model-invocation: true\nversion: 1.0\n"
              "count: 12\nquoted: \"12\"\nnothing: ~\nlist: [1, two]\n---\nBody\n");
    tmp.write("lib/twice/SKILL.md", "---\nname: twice\ndescription: A nested key twice.\nm:\n  k: 1\n  k: 2\n---\n");
    auto r = run_cli({"list", "--json", "--root", "lib"}, tmp.path());
    REQUIRE(r.status == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j.at("schema") == 2);
    REQUIRE(j.at("skills").size() == 2);
    CHECK(j["skills"][1]["frontmatter"] == nlohmann::json::parse(R"({"name": "typed", "description": "Typed values.",
        "disable-model-invocation": true, "version": 1.0, "count": 12, "quoted": "12", "nothing": null,
        "list": [1, "two"]})"));
    // What the core schema cannot make JSON (a key twice) prints as {}: the skill is still listed.
    CHECK(j["skills"][0]["name"] == "twice");
    CHECK(j["skills"][0]["frontmatter"] == nlohmann::json::object());
}

}  // namespace cli_list_tests
