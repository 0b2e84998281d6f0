// Tests of parser.hpp: SKILL.md, its YAML front end and its hostile inputs.
// One file per public header; the hostile cases are sections of it.
#include <sys/wait.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/base/names.hpp>
#include <agentskills/parse/parser.hpp>

#include "src/parse/session.hpp"
#include "src/parse/yaml.hpp"
#include "support/corpus.hpp"

// =======================================================================================
// test_parser.cpp

namespace parser_tests {

using namespace agentskills;

namespace {

ParseResult parse(const std::string& text, ParseOptions opt = {}) {
    if (opt.path.empty()) opt.path = "lib/demo/SKILL.md";
    return parse_skill_md(text, opt);
}

bool has_code(const ParseResult& r, std::string_view code) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
}

const Diagnostic& diag(const ParseResult& r, std::string_view code) {
    auto it =
        std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
    REQUIRE(it != r.diagnostics.end());
    return *it;
}

std::string skill(const std::string& extra, const std::string& body = "Body text.\n") {
    return "---\nname: demo\ndescription: A demo skill.\n" + extra + "---\n" + body;
}

}  // namespace

TEST_CASE("a minimal skill parses", "[parser]") {
    auto r = parse(skill("", "\n\n# Title\n\nSome text.\n\n\n"));
    REQUIRE(r.ok());
    CHECK(r.manifest()->name == "demo");
    CHECK(r.manifest()->description == "A demo skill.");
    CHECK(r.manifest()->skill_file == "lib/demo/SKILL.md");
    CHECK(r.instructions == "# Title\n\nSome text.");
    CHECK(r.diagnostics.empty());
    CHECK_FALSE(r.skip_reason());
    CHECK(*r.manifest()->frontmatter == nlohmann::json{{"name", "demo"}, {"description", "A demo skill."}});
}

TEST_CASE("frontmatter delimiters", "[parser]") {
    SECTION("trailing spaces and CRLF are accepted") {
        auto r = parse("---  \r\nname: demo\r\ndescription: d\r\n--- \t\r\n\r\nLine one\r\nLine two\r\n");
        REQUIRE(r.ok());
        CHECK(r.manifest()->description == "d");
        CHECK(r.instructions == "Line one\nLine two");
    }
    SECTION("a lone CR is a line break, as in YAML 1.2 and the reference") {
        auto r = parse("---\rname: demo\rdescription: \"x\ry\"\r---\r\rLine one\rLine two\r");
        REQUIRE(r.ok());
        CHECK(r.manifest()->description == "x y");  // a break inside a quoted scalar folds
        CHECK(r.instructions == "Line one\nLine two");
        CHECK(r.diagnostics.empty());
        auto mixed = parse("---\r\nname: demo\rdescription: |\r\n  a\r  b\n---\rone\r\r\ntwo");
        REQUIRE(mixed.ok());
        CHECK(*mixed.manifest()->frontmatter == nlohmann::json{{"name", "demo"}, {"description", "a\nb\n"}});
        CHECK(mixed.instructions == "one\n\ntwo");
        CHECK(diag(parse("---\rname: demo\rdescription: d\rlicense: [a\r---\r"), "yaml-syntax").line == 5);
    }
    SECTION("a --- inside a value is not a delimiter") {
        auto r = parse("---\nname: demo\ndescription: before --- after\n---\nBody\n");
        REQUIRE(r.ok());
        CHECK(r.manifest()->description == "before --- after");
        CHECK(r.instructions == "Body");
    }
    SECTION("a body may be empty or missing") {
        auto r = parse("---\nname: demo\ndescription: d\n---");
        REQUIRE(r.ok());
        CHECK(r.instructions.empty());
    }
    SECTION("a line '----' does not close the frontmatter") {
        auto r = parse("---\nname: demo\ndescription: d\n----\n");
        CHECK_FALSE(r.ok());
        CHECK(has_code(r, "frontmatter-unclosed"));
    }
    SECTION("a UTF-8 BOM is accepted with a warning") {
        auto r = parse("\xEF\xBB\xBF---\nname: demo\ndescription: d\n---\nBody\n");
        REQUIRE(r.ok());
        CHECK(diag(r, "bom").severity == Severity::warning);
        CHECK(diag(r, "bom").line == 1);
    }
}

TEST_CASE("skip rules", "[parser]") {
    SECTION("no frontmatter") {
        auto r = parse("# Just markdown\n");
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(diag(r, "frontmatter-missing").line == 1);
    }
    SECTION("a blank line before the frontmatter") {
        auto r = parse("\n---\nname: demo\ndescription: d\n---\n");
        CHECK(has_code(r, "frontmatter-missing"));
    }
    SECTION("frontmatter not closed") {
        auto r = parse("---\nname: demo\ndescription: d\n");
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(has_code(r, "frontmatter-unclosed"));
    }
    SECTION("malformed YAML names the line") {
        auto r = parse("---\nname: demo\ndescription: Use when: the user asks\n---\n");
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(diag(r, "yaml-syntax").line == 3);
        CHECK(diag(r, "yaml-syntax").path == "lib/demo/SKILL.md");
    }
    SECTION("a line without ':' among the keys is a syntax error at that line, not a key") {
        // yaml-cpp alone reads such a line as a key with a null value: an unindented second line
        // of a description would become a key of its own, and the text would be lost.
        for (const char* text :
             {"---\nname: demo\ndescription: first line\nsecond line\n---\n",
              "---\nname: demo\ndescription: d\nmetadata:\n  a: b\n  stray\n---\n",
              "---\nname: demo\ndescription: d\nurl:http://x\n---\n", "---\nname: demo\ndescription: d\n~\n---\n"}) {
            INFO(text);
            const auto r = parse(text);
            CHECK(r.skip_reason() == SkipReason::invalid);
            CHECK(diag(r, "yaml-syntax").message == "the frontmatter is not valid YAML: could not find expected ':'");
            CHECK(diag(r, "yaml-syntax").line ==
                  (std::string_view(text).find("metadata") != std::string_view::npos ? 6u : 4u));
        }
        // yaml-cpp itself refuses a keyless line followed by a comment, in its own words.
        CHECK(diag(parse("---\nname: demo\ndescription: d\nnote # a: b\n---\n"), "yaml-syntax").line == 4);
        // What stays valid: an explicit key, an empty value, a ':' inside the key, a colon
        // before a comment, an indented continuation, a key in a flow mapping.
        for (const char* text :
             {"---\nname: demo\ndescription: d\n? k\n---\n", "---\nname: demo\ndescription: d\nk:\n---\n",
              "---\nname: demo\ndescription: d\na:b: c\n---\n", "---\nname: demo\ndescription: d\nk: # c\n---\n",
              "---\nname: demo\ndescription: first\n  second\n---\n",
              "---\nname: demo\ndescription: d\nm: {a, b: c}\n---\n"}) {
            INFO(text);
            CHECK(parse(text).ok());
        }
    }
    SECTION("frontmatter that is not a mapping") {
        CHECK(has_code(parse("---\n- a\n- b\n---\n"), "frontmatter-not-mapping"));
        CHECK(has_code(parse("---\n---\nBody\n"), "frontmatter-not-mapping"));
        CHECK(has_code(parse("---\n# only a comment\n---\n"), "frontmatter-not-mapping"));
        CHECK(has_code(parse("---\njust text\n---\n"), "frontmatter-not-mapping"));
    }
    SECTION("name missing, blank or not a string") {
        CHECK(diag(parse("---\ndescription: d\n---\n"), "name-missing").severity == Severity::error);
        CHECK(diag(parse("---\nname: \"  \"\ndescription: d\n---\n"), "name-blank").line == 2);
        CHECK(diag(parse("---\nname:\ndescription: d\n---\n"), "name-blank").line == 2);
        CHECK(has_code(parse("---\nname: [a, b]\ndescription: d\n---\n"), "name-not-string"));
    }
    SECTION("description missing, blank or not a string") {
        CHECK(has_code(parse("---\nname: demo\n---\n"), "description-missing"));
        CHECK(diag(parse("---\nname: demo\ndescription: \"   \"\n---\n"), "description-blank").line == 3);
        CHECK(has_code(parse("---\nname: demo\ndescription:\n---\n"), "description-blank"));
        CHECK(has_code(parse("---\nname: demo\ndescription:\n  a: b\n---\n"), "description-not-string"));
    }
    SECTION("invalid UTF-8 names the line") {
        auto r = parse("---\nname: demo\ndescription: bad \xFF byte\n---\n");
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(diag(r, "invalid-utf8").line == 3);
    }
    SECTION("invalid UTF-8 in the body also skips") {
        CHECK(has_code(parse(skill("", "ok\n\xC3\x28\n")), "invalid-utf8"));
    }
    SECTION("NUL bytes") {
        auto r = parse(std::string("---\nname: demo\ndescription: d\n---\nBody\0more\n", 40));
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(diag(r, "nul-byte").line == 5);
    }
    SECTION("more lines than the limit") {
        std::string body;
        for (int i = 0; i < 496; ++i) body += "line\n";
        auto at_limit = parse(skill("", body));  // 4 frontmatter lines + 496 = 500
        CHECK(at_limit.ok());
        auto over = parse(skill("", body + "one more\n"));
        CHECK(over.skip_reason() == SkipReason::too_large);
        CHECK(has_code(over, "too-many-lines"));
        CHECK(parse(skill("", body + "one more\n"), {.max_lines = 0}).ok());
        CHECK(parse(skill("", "a\nb\n"), {.max_lines = 5}).skip_reason() == SkipReason::too_large);
    }
    SECTION("more bytes than the limit") {
        auto r = parse(skill("", std::string(100, 'x')), {.max_bytes = 64});
        CHECK(r.skip_reason() == SkipReason::too_large);
        CHECK(has_code(r, "too-large"));
        auto cut = parse_skill_md("---\nname: demo\n", {.path = "p", .truncated = true});
        CHECK(cut.skip_reason() == SkipReason::too_large);
    }
    SECTION("bad invocation flags") {
        auto r = parse(skill("disable-model-invocation: yes\n"));
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(diag(r, "invocation-flag-invalid").line == 4);
        CHECK(has_code(parse(skill("user-invocable: 1\n")), "invocation-flag-invalid"));
        CHECK(has_code(parse(skill("user-invocable:\n")), "invocation-flag-invalid"));
    }
}

TEST_CASE("invocation flags accept true and false in any case", "[parser]") {
    auto r = parse(skill("disable-model-invocation: TRUE\nuser-invocable: False\n"));
    REQUIRE(r.ok());
    CHECK(r.manifest()->disable_model_invocation);
    CHECK_FALSE(r.manifest()->model_invocable());
    CHECK_FALSE(r.manifest()->user_invocable);
    auto d = parse(skill(""));
    CHECK_FALSE(d.manifest()->disable_model_invocation);
    CHECK(d.manifest()->user_invocable);
}

TEST_CASE("scalars keep their literal text", "[parser]") {
    auto r = parse(
        "---\nname: 123\ndescription: yes\nversion: 1.0\nlicense: ~\nmetadata:\n  v: 1.10\n  on: off\n  n: "
        "null\n---\n");
    REQUIRE(r.ok());
    CHECK(r.manifest()->name == "123");
    CHECK(r.manifest()->description == "yes");
    CHECK(r.manifest()->version == "1.0");
    CHECK(r.manifest()->license == "~");
    CHECK(r.manifest()->metadata == StringMap{{"v", "1.10"}, {"on", "off"}, {"n", "null"}});
    CHECK(r.manifest()->frontmatter->at("version") == "1.0");
}

TEST_CASE("description and compatibility limits", "[parser]") {
    SECTION("1024 code points are kept, 1025 are cut with a warning") {
        std::string d1024;
        for (int i = 0; i < 1024; ++i) d1024 += "\xC3\xA9";
        auto ok = parse("---\nname: demo\ndescription: " + d1024 + "\n---\n");
        REQUIRE(ok.ok());
        CHECK(ok.manifest()->description == d1024);
        CHECK(ok.diagnostics.empty());
        auto cut = parse("---\nname: demo\ndescription: " + d1024 + "z\n---\n");
        REQUIRE(cut.ok());
        CHECK(cut.manifest()->description == d1024);
        CHECK(diag(cut, "description-too-long").severity == Severity::warning);
        CHECK(diag(cut, "description-too-long").line == 3);
    }
    SECTION("compatibility: 500 kept, 501 cut, empty is absent, non-string ignored") {
        const std::string c500(500, 'c');
        CHECK(parse(skill("compatibility: " + c500 + "\n")).manifest()->compatibility == c500);
        auto cut = parse(skill("compatibility: " + c500 + "x\n"));
        REQUIRE(cut.ok());
        CHECK(cut.manifest()->compatibility == c500);
        CHECK(diag(cut, "compatibility-too-long").severity == Severity::warning);
        auto empty = parse(skill("compatibility: \"\"\n"));
        REQUIRE(empty.ok());
        CHECK_FALSE(empty.manifest()->compatibility);
        CHECK(empty.diagnostics.empty());
        auto map = parse(skill("compatibility:\n  os: linux\n"));
        REQUIRE(map.ok());
        CHECK_FALSE(map.manifest()->compatibility);
        CHECK(has_code(map, "compatibility-not-string"));
    }
    SECTION("values are trimmed") {
        auto r = parse("---\nname: \"  demo  \"\ndescription: \"  d  \"\n---\n");
        REQUIRE(r.ok());
        CHECK(r.manifest()->name == "demo");
        CHECK(r.manifest()->description == "d");
    }
}

TEST_CASE("license and metadata", "[parser]") {
    auto r = parse(
        skill("license: Apache-2.0\nmetadata:\n  zeta: 1\n  alpha: two words\n  nested:\n    b: c\n  list: [x, y]\n"));
    REQUIRE(r.ok());
    CHECK(r.manifest()->license == "Apache-2.0");
    CHECK(r.manifest()->metadata ==
          StringMap{{"zeta", "1"}, {"alpha", "two words"}, {"nested", R"({"b":"c"})"}, {"list", R"(["x","y"])"}});
    auto list = parse(skill("metadata:\n  - a\n"));
    REQUIRE(list.ok());
    CHECK(list.manifest()->metadata.empty());
    CHECK(diag(list, "metadata-not-mapping").severity == Severity::warning);
    auto lic = parse(skill("license:\n  id: MIT\n"));
    REQUIRE(lic.ok());
    CHECK_FALSE(lic.manifest()->license);
    CHECK(has_code(lic, "license-not-string"));
}

TEST_CASE("tool lists", "[parser]") {
    SECTION("allowed-tools: space-separated string or list") {
        CHECK(parse(skill("allowed-tools: Read  Grep Bash(git:*)\n")).manifest()->allowed_tools ==
              std::vector<std::string>{"Read", "Grep", "Bash(git:*)"});
        CHECK(parse(skill("allowed-tools:\n  - Read\n  - Write\n")).manifest()->allowed_tools ==
              std::vector<std::string>{"Read", "Write"});
        CHECK(parse(skill("allowed-tools: [Read, Write]\n")).manifest()->allowed_tools ==
              std::vector<std::string>{"Read", "Write"});
    }
    SECTION("tools: comma-separated, de-duplicated, order kept, blanks dropped") {
        auto r = parse(skill("tools: read, grep, , write, read\n"));
        REQUIRE(r.manifest()->tools);
        CHECK(*r.manifest()->tools == std::vector<std::string>{"read", "grep", "write"});
        CHECK(*parse(skill("tools:\n  - read\n  - \"\"\n  - read\n  - bash\n")).manifest()->tools ==
              std::vector<std::string>{"read", "bash"});
    }
    SECTION("absent tools differs from empty tools") {
        CHECK_FALSE(parse(skill("")).manifest()->tools);
        // An explicit empty list narrows to nothing; a blank value counts as absent (issue 14).
        auto empty = parse(skill("tools: []\n"));
        REQUIRE(empty.manifest()->tools);
        CHECK(empty.manifest()->tools->empty());
        CHECK_FALSE(parse(skill("tools: \"\"\n")).manifest()->tools);
    }
    SECTION("disallowedTools and disallowed-tools") {
        CHECK(parse(skill("disallowedTools: bash, write\n")).manifest()->disallowed_tools ==
              std::vector<std::string>{"bash", "write"});
        CHECK(parse(skill("disallowed-tools:\n  - bash\n")).manifest()->disallowed_tools ==
              std::vector<std::string>{"bash"});
        CHECK(parse(skill("")).manifest()->disallowed_tools.empty());
    }
    SECTION("a mapping is ignored with a warning") {
        auto r = parse(skill("tools:\n  a: b\n"));
        REQUIRE(r.ok());
        CHECK_FALSE(r.manifest()->tools);
        CHECK(has_code(r, "field-type"));
    }
}

TEST_CASE("Agent Substrate fields, other keys and behavioural fields", "[parser]") {
    auto r =
        parse(skill("version: \"2.1\"\ncategory: development/project\ntags: [review, quality]\n"
                    "aliases:\n  - review-code\n  - pr-review\nrequires: git\nmodel: opus\n"
                    "when_to_use: always\nhooks:\n  pre: x\n"));
    REQUIRE(r.ok());
    const auto& m = *r.manifest();
    CHECK(m.version == "2.1");
    CHECK(m.category == "development/project");
    CHECK(m.tags == std::vector<std::string>{"review", "quality"});
    CHECK(m.aliases == std::vector<std::string>{"review-code", "pr-review"});
    CHECK(m.frontmatter->at("requires") == "git");
    CHECK(m.frontmatter->at("hooks") == nlohmann::json{{"pre", "x"}});
    CHECK(m.ignored_behavioral_fields == std::vector<std::string>{"model", "when_to_use", "hooks"});
}

TEST_CASE("duplicate keys: the last wins, with a warning", "[parser]") {
    auto r = parse("---\nname: demo\ndescription: first\ndescription: second\n---\n");
    REQUIRE(r.ok());
    CHECK(r.manifest()->description == "second");
    CHECK(diag(r, "duplicate-key").line == 4);
    CHECK(diag(r, "duplicate-key").severity == Severity::warning);
}

TEST_CASE("name policy keep", "[parser][names]") {
    SECTION("a rule-breaking name is kept as written, with warnings") {
        auto r = parse(skill(""), {.directory_name = "demo"});
        CHECK(r.diagnostics.empty());
        auto bad = parse("---\nname: My_Skill\ndescription: d\n---\n", {.directory_name = "my-skill"});
        REQUIRE(bad.ok());
        CHECK(bad.manifest()->name == "My_Skill");
        CHECK(diag(bad, "name-not-lowercase").severity == Severity::warning);
        CHECK(diag(bad, "name-invalid-character").line == 2);
        CHECK(has_code(bad, "name-directory-mismatch"));
    }
    SECTION("the name is required") {
        CHECK(has_code(parse("---\ndescription: d\n---\n", {.directory_name = "demo"}), "name-missing"));
    }
}

TEST_CASE("name policy require_valid", "[parser][names]") {
    const auto rv = [](const std::string& name, const std::string& dir) {
        return parse("---\nname: " + name + "\ndescription: d\n---\n",
                     {.name_policy = NamePolicy::require_valid, .directory_name = dir});
    };
    for (const char* ok : {"pdf-processing", "v2-tool-3", "\xE6\x8A\x80\xE8\x83\xBD",
                           "\xD0\xBC\xD0\xBE\xD0\xB9-\xD0\xBD\xD0\xB0\xD0\xB2\xD1\x8B\xD0\xBA", "caf\xC3\xA9"}) {
        INFO(ok);
        auto r = rv(ok, ok);
        REQUIRE(r.ok());
        CHECK(r.manifest()->name == ok);
    }
    SECTION("decomposed café matches a precomposed directory and is stored normalized") {
        auto r = rv("cafe\xCC\x81", "caf\xC3\xA9");
        REQUIRE(r.ok());
        CHECK(r.manifest()->name == "caf\xC3\xA9");
    }
    SECTION("fullwidth abc equals directory abc after NFKC") {
        auto r = rv("\xEF\xBD\x81\xEF\xBD\x82\xEF\xBD\x83", "abc");
        REQUIRE(r.ok());
        CHECK(r.manifest()->name == "abc");
    }
    SECTION("64 vs 65 code points") {
        CHECK(rv(std::string(64, 'a'), std::string(64, 'a')).ok());
        CHECK(diag(rv(std::string(65, 'a'), std::string(65, 'a')), "name-too-long").severity == Severity::error);
    }
    SECTION("each broken rule skips the skill") {
        const std::pair<const char*, const char*> cases[] = {
            {"-pdf", "name-hyphen-edge"},
            {"pdf-", "name-hyphen-edge"},
            {"pdf--processing", "name-consecutive-hyphens"},
            {"My-Skill", "name-not-lowercase"},
            {"my_skill", "name-invalid-character"},
            {"\xD0\x9D\xD0\x90\xD0\x92\xD0\xAB\xD0\x9A", "name-not-lowercase"},
            {"a\xC3\x97"
             "b",
             "name-invalid-character"},
        };
        for (const auto& [name, code] : cases) {
            INFO(name);
            auto r = rv(std::string("\"") + name + "\"", name);
            CHECK(r.skip_reason() == SkipReason::invalid);
            CHECK(diag(r, code).severity == Severity::error);
        }
    }
    SECTION("the name must equal the directory") {
        auto r = rv("pdf-processing", "pdf");
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(has_code(r, "name-directory-mismatch"));
    }
    SECTION("an omitted name defaults to the directory") {
        auto r = parse("---\ndescription: d\n---\n",
                       {.name_policy = NamePolicy::require_valid, .directory_name = "from-dir"});
        REQUIRE(r.ok());
        CHECK(r.manifest()->name == "from-dir");
        auto bad_dir = parse("---\ndescription: d\n---\n",
                             {.name_policy = NamePolicy::require_valid, .directory_name = "Bad_Dir"});
        CHECK(bad_dir.skip_reason() == SkipReason::invalid);
    }
}

TEST_CASE("hostile YAML stays bounded", "[parser]") {
    SECTION("an alias bomb in metadata") {
        std::string fm = "---\nname: demo\ndescription: d\nmetadata:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n";
        std::string prev = "a";
        for (char c = 'b'; c <= 'j'; ++c) {
            fm += std::string("  ") + c + ": &" + c + " [";
            for (int i = 0; i < 10; ++i) fm += (i ? ", *" : "*") + prev;
            fm += "]\n";
            prev = std::string(1, c);
        }
        fm += "---\n";
        auto r = parse(fm);
        CHECK(r.skip_reason() == SkipReason::invalid);
        CHECK(has_code(r, "yaml-too-complex"));
    }
    SECTION("deep nesting does not overflow the stack") {
        std::string deep = "---\nname: demo\ndescription: d\nmetadata: " + std::string(10000, '[') +
                           std::string(10000, ']') + "\n---\n";
        auto r = parse(deep, {.max_bytes = 0});
        CHECK_FALSE(r.ok());
        // Refused by the depth bound of the pre-scan (before yaml-cpp's own guard, which
        // reported yaml-syntax at 2,000 levels).
        CHECK(has_code(r, "yaml-too-complex"));
    }
}

TEST_CASE("reference profile", "[parser][reference]") {
    const auto ref = [](const std::string& text, const std::string& dir = "demo") {
        return parse(text, {.profile = ValidationProfile::reference, .directory_name = dir});
    };
    CHECK(ref(skill("license: MIT\nallowed-tools: Read\nmetadata:\n  a: b\ncompatibility: x\n")).ok());
    CHECK(has_code(ref(skill("version: 1\n")), "unknown-field"));
    CHECK(has_code(ref(skill("allowed-tools: [Read, Bash]\n")), "yaml-strict"));
    CHECK(has_code(ref(skill("metadata: {a: b}\n")), "yaml-strict"));
    CHECK(has_code(ref(skill("license: &x MIT\n")), "yaml-strict"));
    CHECK(has_code(ref(skill("license: !!str MIT\n")), "yaml-strict"));
    CHECK(has_code(ref("---\nname: demo\ndescription: a\ndescription: b\n---\n"), "duplicate-key"));
    CHECK(has_code(ref("\xEF\xBB\xBF---\nname: demo\ndescription: d\n---\n"), "bom"));
    CHECK(has_code(ref(skill("")), "name-directory-mismatch") == false);
    CHECK(has_code(ref(skill(""), "other"), "name-directory-mismatch"));
    CHECK(has_code(ref("---\ndescription: d\n---\n"), "name-missing"));
    CHECK(diag(ref("---\nname: demo\ndescription: " + std::string(1025, 'd') + "\n---\n"), "description-too-long")
              .severity == Severity::error);
    CHECK(has_code(ref(skill("compatibility: " + std::string(501, 'c') + "\n")), "compatibility-too-long"));
    CHECK(ref(skill("compatibility: \"\"\n")).ok());
    // No line limit in the reference profile.
    CHECK(ref(skill("", std::string(2000, '\n') + "end\n")).ok());
    // Quoted values are not flow collections; plain scalars are strings.
    CHECK(ref("---\nname: \"123\"\ndescription: true\n---\n", "123").ok());
}

TEST_CASE("the frontmatter JSON is shared by copies of a manifest", "[parser][manifest]") {
    const auto r = parse("---\nname: demo\ndescription: d\nx-extra: [a, b]\n---\nBody\n");
    REQUIRE(r.manifest());
    const SkillManifest copy = *r.manifest();  // NOLINT(performance-unnecessary-copy-initialization)
    CHECK(&copy.frontmatter.get() == &r.manifest()->frontmatter.get());
    CHECK(copy.frontmatter->at("x-extra") == nlohmann::json::array({"a", "b"}));

    const SkillManifest blank;
    CHECK(blank.frontmatter->is_object());
    CHECK(blank.frontmatter->empty());
    CHECK(nlohmann::json(blank)["frontmatter"] == nlohmann::json::object());

    SkillManifest edited = copy;
    edited.frontmatter = nlohmann::json{{"name", "other"}};
    CHECK(edited.frontmatter->at("name") == "other");
    CHECK(copy.frontmatter->at("name") == "demo");  // the other copies keep theirs
    CHECK_FALSE(edited.frontmatter == copy.frontmatter);
    CHECK(SkillManifest(copy).frontmatter == copy.frontmatter);
    CHECK(SharedJson(nlohmann::json::object()) == blank.frontmatter);  // equal values, different trees
    CHECK(nlohmann::json(copy)["frontmatter"] == *copy.frontmatter);

    // `shares`: the same shared value, not an equal one.
    CHECK(copy.frontmatter.shares(r.manifest()->frontmatter));
    CHECK_FALSE(edited.frontmatter.shares(copy.frontmatter));
    CHECK_FALSE(SharedJson(nlohmann::json::object()).shares(blank.frontmatter));
    CHECK(SkillManifest().frontmatter.shares(blank.frontmatter));  // the default one
    // Two parses of one file give two values, with or without the tree (LiveCatalog tells a file
    // parsed again by this).
    for (const bool tree : {true, false}) {
        CAPTURE(tree);
        const std::string text = "---\nname: demo\ndescription: d\n---\nBody\n";
        const auto one = parse(text, {.frontmatter_json = tree});
        const auto two = parse(text, {.frontmatter_json = tree});
        REQUIRE(one.manifest());
        REQUIRE(two.manifest());
        CHECK_FALSE(one.manifest()->frontmatter.shares(two.manifest()->frontmatter));
        CHECK(one.manifest()->frontmatter == two.manifest()->frontmatter);
        CHECK(one.manifest()->frontmatter->empty() == !tree);
    }
}

TEST_CASE("a YAML error that quotes one byte of a character is still valid UTF-8", "[parser][utf8]") {
    // yaml-cpp names the first byte of an unknown escape; here "\" + U+FEFF (found by fuzz_parser).
    const auto r = parse("---\nname: \"odd-\\\xEF\xBB\xBF\"\ndescription: d\n---\nBody\n");
    REQUIRE_FALSE(r.ok());
    const Diagnostic& d = diag(r, "yaml-syntax");
    CHECK(d.line == 2);
    CHECK(d.message == "the frontmatter is not valid YAML: unknown escape character: \xEF\xBF\xBD");
    CHECK(is_valid_utf8(d.message));
}

TEST_CASE("the YAML escapes \\_ and \\N give their characters in UTF-8", "[parser][utf8]") {
    // yaml-cpp 0.7 decodes them to the single bytes 0xA0 and 0x85 (found by fuzz_parser).
    const auto r = parse("---\nname: demo\ndescription: \"non\\_breaking\\Nnext\"\nx-note: \"a\\_b\"\n---\nBody\n");
    REQUIRE(r.ok());
    CHECK(r.manifest()->description ==
          "non\xC2\xA0"
          "breaking\xC2\x85next");
    CHECK(r.manifest()->frontmatter->at("x-note") ==
          "a\xC2\xA0"
          "b");
    CHECK_NOTHROW(nlohmann::json(*r.manifest()).dump());
}

TEST_CASE("yaml_recovery plain_values reads a misread plain value as its text", "[parser][recovery]") {
    ParseOptions recover;
    recover.yaml_recovery = YamlRecovery::plain_values;
    const auto described = [](const std::string& value) {
        return "---\nname: demo\ndescription: " + value + "\n---\nBody.\n";
    };
    const auto description_of = [&](const std::string& text) {
        const ParseResult r = parse(text, recover);
        CAPTURE(text);
        REQUIRE(r.ok());
        CHECK(diag(r, "yaml-recovered").line == 3);
        CHECK((*r.manifest()->frontmatter)["description"] == r.manifest()->description);
        return r.manifest()->description;
    };

    SECTION("off by default: the skill is skipped, as the contract and the reference say") {
        const ParseResult r = parse(described("Use this skill when: the user asks about PDFs"));
        CHECK_FALSE(r.ok());
        CHECK(diag(r, "yaml-syntax").message == "the frontmatter is not valid YAML: illegal map value");
        CHECK_FALSE(has_code(r, "yaml-recovered"));
    }
    SECTION("a ': ' in a one-line value") {
        const ParseResult r = parse(described("Use this skill when: the user asks about PDFs"), recover);
        REQUIRE(r.ok());
        CHECK(r.manifest()->description == "Use this skill when: the user asks about PDFs");
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics[0].code == "yaml-recovered");
        CHECK(r.diagnostics[0].severity == Severity::warning);
        CHECK(r.diagnostics[0].path == "lib/demo/SKILL.md");
        CHECK(r.diagnostics[0].line == 3);
        CHECK(r.diagnostics[0].message ==
              "the value of 'description' is not valid as plain YAML text (a ': ' or an indicator in it); it was read "
              "as quoted text");
        CHECK(r.instructions == "Body.");
    }
    SECTION("indicators YAML gives another meaning at the start of a value, and text after ' #'") {
        CHECK(description_of(described("*bold* claims: none")) == "*bold* claims: none");
        CHECK(description_of(described("@mention the bot")) == "@mention the bot");
        CHECK(description_of(described("`npm test` runs it")) == "`npm test` runs it");
        CHECK(description_of(described("[Beta] Does X")) == "[Beta] Does X");
        CHECK(description_of(described("Swift Testing: #expect and #require")) ==
              "Swift Testing: #expect and #require");
        CHECK(description_of(described("a \"quoted\" path C:\\dir\\: here")) == "a \"quoted\" path C:\\dir\\: here");
        CHECK(description_of(described("ends with a colon:")) == "ends with a colon:");
    }
    SECTION("continuation lines fold as a plain scalar's do, and every later line keeps its number") {
        ParseOptions o = recover;
        o.directory_name = "other";
        const ParseResult r = parse(
            "---\ndescription: Build things. Use when: (1) one,\n  (2) two: more\n\n  and after a blank line\n"
            "tools: [Read, Write]\nlicense: MIT: see LICENSE\nname: demo\n---\nBody.\n",
            o);
        REQUIRE(r.ok());
        const SkillManifest& m = *r.manifest();
        CHECK(m.description == "Build things. Use when: (1) one, (2) two: more\nand after a blank line");
        CHECK(m.tools == std::vector<std::string>{"Read", "Write"});
        CHECK(m.license == "MIT: see LICENSE");
        REQUIRE(r.diagnostics.size() == 3);
        CHECK(r.diagnostics[0].code == "yaml-recovered");
        CHECK(r.diagnostics[0].line == 2);
        CHECK(r.diagnostics[1].code == "yaml-recovered");
        CHECK(r.diagnostics[1].line == 7);
        CHECK(r.diagnostics[1].message ==
              "the value of 'license' is not valid as plain YAML text (a ': ' or an indicator in it); it was read as "
              "quoted text");
        CHECK(r.diagnostics[2].code == "name-directory-mismatch");
        CHECK(r.diagnostics[2].line == 8);
    }
    SECTION("a file with CRLF line ends is recovered alike") {
        const ParseResult r =
            parse("---\r\nname: demo\r\ndescription: Use when: x,\r\n  and y\r\n---\r\nBody.\r\n", recover);
        REQUIRE(r.ok());
        CHECK(r.manifest()->description == "Use when: x, and y");
        CHECK(diag(r, "yaml-recovered").line == 3);
    }
    SECTION("a lone CR is a line break there too, and the lines count it") {
        // CR-only lines in the frontmatter, LF after it: the warning names the third line, as
        // the yaml-syntax error without the recovery does.
        const std::string text = "---\rname: demo\rdescription: Use when: x\rlicense: MIT\n---\nBody.\n";
        const ParseResult r = parse(text, recover);
        REQUIRE(r.ok());
        CHECK(r.manifest()->description == "Use when: x");
        CHECK(r.manifest()->license == "MIT");
        CHECK(diag(r, "yaml-recovered").line == 3);
        CHECK(diag(parse(text), "yaml-syntax").line == 3);
    }
    SECTION("what is not a misread plain value stays an error") {
        for (const std::string& text : std::vector<std::string>{
                 described("| Use when this capability is needed."),        // a block scalar's header with text
                 described("\"quoted\" then: more"),                        // a quoted scalar the writer chose
                 described("'single' then: more"),                          //
                 described("Use when: x\n  # a comment line\n  and more"),  // a comment line among its lines
                 std::string("---\nname: demo\ndescription: d\nmetadata:\n  author: github: someone\n---\n"),  // nested
                 std::string(
                     "---\nname: demo\ndescription: Use when: x\nmetadata:\n  tags: [a\n---\n"),  // another error
             }) {
            CAPTURE(text);
            const ParseResult r = parse(text, recover);
            CHECK_FALSE(r.ok());
            CHECK(has_code(r, "yaml-syntax"));
            CHECK_FALSE(has_code(r, "yaml-recovered"));
        }
    }
    SECTION("valid YAML is read as before: no value is rewritten") {
        const ParseResult r = parse(skill("license: \"MIT: see LICENSE\"\ntools: [Read]\n"), recover);
        REQUIRE(r.ok());
        CHECK(r.diagnostics.empty());
        CHECK(r.manifest()->license == "MIT: see LICENSE");
    }
    SECTION("the reference profile never recovers") {
        ParseOptions o = recover;
        o.profile = ValidationProfile::reference;
        const ParseResult r = parse(described("Use this skill when: the user asks"), o);
        CHECK_FALSE(r.ok());
        CHECK(has_code(r, "yaml-syntax"));
    }
    SECTION("a frontmatter longer than SKILL_MAX_YAML_RECOVERY_BYTES is not recovered") {
        const auto padded = [&](std::size_t frontmatter_bytes) {
            const std::string head = "name: demo\ndescription: Use when: x\n";
            const std::string comment = "# ";
            std::string pad = comment + std::string(frontmatter_bytes - head.size() - comment.size() - 1, 'p') + "\n";
            return "---\n" + head + pad + "---\nBody.\n";
        };
        CHECK(parse(padded(SKILL_MAX_YAML_RECOVERY_BYTES), recover).ok());
        const ParseResult over = parse(padded(SKILL_MAX_YAML_RECOVERY_BYTES + 1), recover);
        CHECK_FALSE(over.ok());
        CHECK(has_code(over, "yaml-syntax"));
    }
}

TEST_CASE("a file with CR or CRLF line ends is the same skill as with LF", "[parser]") {
    const std::vector<std::string> texts = {
        skill("", "\n# Title\n\nSome text.\n\n"),
        skill("license: MIT\nmetadata:\n  author: a\n  version: \"1.0\"\n"),
        skill("allowed-tools:\n  - Read\n  - Bash(git:*)\n", "one\ntwo\n"),
        skill("compatibility: >\n  folded\n  text\n"),
        "---\nname: Bad_Name\ndescription: d\n---\nbody\n",
        "---\nname: demo\ndescription: d\nlicense: [a\n---\n",
        "---\nname: demo\ndescription: \"open\n",
        "no frontmatter\n",
    };
    const auto same = [](const ParseResult& a, const ParseResult& b) {
        REQUIRE(a.ok() == b.ok());
        CHECK(a.skip_reason() == b.skip_reason());
        CHECK(a.instructions == b.instructions);
        REQUIRE(a.diagnostics.size() == b.diagnostics.size());
        for (std::size_t i = 0; i < a.diagnostics.size(); ++i) {
            CHECK(a.diagnostics[i].code == b.diagnostics[i].code);
            CHECK(a.diagnostics[i].line == b.diagnostics[i].line);
            CHECK(a.diagnostics[i].message == b.diagnostics[i].message);
        }
        if (a.ok()) CHECK(*a.manifest()->frontmatter == *b.manifest()->frontmatter);
    };
    for (const std::string& lf : texts) {
        CAPTURE(lf);
        const ParseResult want = parse(lf);
        std::string cr = lf;
        std::replace(cr.begin(), cr.end(), '\n', '\r');
        same(want, parse(cr));
        std::string crlf;
        for (char c : lf) {
            if (c == '\n') crlf.push_back('\r');
            crlf.push_back(c);
        }
        same(want, parse(crlf));
    }
}

}  // namespace parser_tests

// =======================================================================================
// Hardening of the parser and the name rules (issue 12): bounded NFKC, bounded frontmatter depth

namespace parser_hardening_tests {

using namespace agentskills;
using namespace std::string_literals;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HARDENING_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HARDENING_SANITIZED 1
#endif
#endif
#ifndef HARDENING_SANITIZED
#define HARDENING_SANITIZED 0
#endif

namespace {

ParseResult parse(const std::string& text, ParseOptions opt = {}) {
    if (opt.path.empty()) opt.path = "lib/demo/SKILL.md";
    return parse_skill_md(text, opt);
}

ParseOptions strict_names() {
    ParseOptions opt;
    opt.name_policy = NamePolicy::require_valid;
    opt.directory_name = "demo";
    return opt;
}

ParseOptions reference_profile() {
    ParseOptions opt;
    opt.profile = ValidationProfile::reference;
    return opt;
}

bool has_code(const ParseResult& r, std::string_view code) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
}

const Diagnostic& diag(const ParseResult& r, std::string_view code) {
    auto it =
        std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
    REQUIRE(it != r.diagnostics.end());
    return *it;
}

std::string skill(const std::string& extra) {
    return "---\nname: demo\ndescription: A demo skill.\n" + extra + "---\nBody\n";
}

std::string repeat(std::string_view s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// Peak resident-set growth, in KiB, of `work` run in a forked child (-1 when unknown). The child
// resets its high-water mark first, so that the memory of the test binary does not count.
long child_peak_growth_kib(const std::function<void()>& work) {
    const auto status_kib = [](const char* field) {
        long value = -1;
        if (FILE* f = std::fopen("/proc/self/status", "r")) {
            char line[256];
            const std::size_t n = std::char_traits<char>::length(field);
            while (std::fgets(line, sizeof line, f) != nullptr) {
                if (std::string_view(line).substr(0, n) == field) value = std::strtol(line + n, nullptr, 10);
            }
            std::fclose(f);
        }
        return value;
    };
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ::close(fds[0]);
        long growth = -1;
        if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
            const bool reset = std::fputs("5", f) >= 0;
            if (std::fclose(f) == 0 && reset) {
                const long base = status_kib("VmRSS:");
                work();
                growth = status_kib("VmHWM:") - base;
            }
        }
        const bool ok = ::write(fds[1], &growth, sizeof growth) == static_cast<ssize_t>(sizeof growth);
        ::_exit(ok ? 0 : 1);
    }
    ::close(fds[1]);
    long growth = -1;
    if (::read(fds[0], &growth, sizeof growth) != static_cast<ssize_t>(sizeof growth)) growth = -1;
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return growth;
}

}  // namespace

// ---- 1. NFKC is bounded

TEST_CASE("text over the NFKC bound is never normalized", "[names][hardening]") {
    // U+0301 (class 230) before U+0316 (class 220): canonical reordering would swap every pair,
    // in time quadratic in their number.
    const std::string marks = "a" + repeat("\xCC\x81", 2000) + repeat("\xCC\x96", 2000);
    CHECK(exceeds_nfkc_bound(marks));
    CHECK(nfkc(marks) == marks);
    CHECK(check_skill_name(marks) == std::vector{NameProblem::too_long});
    CHECK_FALSE(names_equal(marks, "a"));
    CHECK_FALSE(names_equal("a", marks));
    CHECK(names_equal(marks, marks));  // the same bytes are the same name

    // Exactly at the bound text is normalized; one code point more and it is not.
    const std::string fullwidth_a = "\xEF\xBD\x81";  // U+FF41
    CHECK_FALSE(exceeds_nfkc_bound(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS)));
    CHECK(nfkc(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS)) == std::string(NFKC_MAX_CODE_POINTS, 'a'));
    CHECK(exceeds_nfkc_bound(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1)));
    CHECK(nfkc(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1)) == repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1));
    CHECK(check_skill_name(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1)) == std::vector{NameProblem::too_long});
    // A too-long name still compares unequal, even with itself written differently.
    CHECK_FALSE(names_equal(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1), std::string(NFKC_MAX_CODE_POINTS + 1, 'a')));
    // ASCII needs no normalization and is returned as it is, however long.
    CHECK(nfkc(std::string(100000, 'a')) == std::string(100000, 'a'));
}

TEST_CASE("a name of a million combining marks is too long, quickly, in every policy", "[parser][hardening]") {
    // Past NFKC_MAX_CODE_POINTS no lookup could find the skill, so even `keep` skips it
    // (is_addressable_name); the name is never normalized and never shown in full.
    const std::string name = "a" + repeat("\xCC\x81", 250000) + repeat("\xCC\x96", 250000);
    for (ParseOptions opt : {ParseOptions{}, strict_names()}) {
        opt.max_bytes = 0;
        const auto skipped = parse("---\nname: " + name + "\ndescription: d\n---\n", opt);
        REQUIRE_FALSE(skipped.ok());
        CHECK(*skipped.skip_reason() == SkipReason::invalid);
        const Diagnostic& d = diag(skipped, "name-too-long");
        CHECK(d.severity == Severity::error);
        CHECK(d.message.size() < 400);
        for (const Diagnostic& x : skipped.diagnostics) CHECK(x.message.size() < 400);
    }
}

// ---- 3. Depth and the JSON copy are bounded

TEST_CASE("frontmatter nesting deeper than the bound is too complex", "[parser][hardening]") {
    const std::size_t over = SKILL_MAX_FRONTMATTER_DEPTH;  // + the top-level mapping = one too deep
    SECTION("flow sequences") {
        const auto r = parse(skill("x: " + std::string(over, '[') + "a" + std::string(over, ']') + "\n"));
        REQUIRE_FALSE(r.ok());
        CHECK(has_code(r, "yaml-too-complex"));
        CHECK(*r.skip_reason() == SkipReason::invalid);
    }
    SECTION("block mappings") {
        std::string yaml;
        for (std::size_t i = 0; i <= over; ++i) yaml += std::string(i, ' ') + "k:\n";
        yaml += std::string(over + 1, ' ') + "leaf\n";
        const auto r = parse(skill(yaml));
        REQUIRE_FALSE(r.ok());
        CHECK(has_code(r, "yaml-too-complex"));
    }
    SECTION("compact block sequences") {
        const auto r = parse(skill("x:\n" + repeat("- ", over) + "a\n"));
        REQUIRE_FALSE(r.ok());
        CHECK(has_code(r, "yaml-too-complex"));
    }
    SECTION("the line of the collection past the bound, in the diagnostic and its message") {
        // name (line 2), description (3), then one `k:` a line from line 4: the mapping that is
        // one too deep is the value of the `k:` on line 67, and starts on line 68.
        std::string yaml;
        for (std::size_t i = 0; i <= over + 4; ++i) yaml += std::string(i, ' ') + "k:\n";
        const auto r = parse(skill(yaml), {.max_lines = 0});
        REQUIRE_FALSE(r.ok());
        const Diagnostic& d = diag(r, "yaml-too-complex");
        CHECK(d.line == 68);
        CHECK(d.message == "the frontmatter nests collections deeper than 64 levels (line 68)");
        // A block sequence of one `-` a line, from line 5.
        std::string seq = "x:\n";
        for (std::size_t i = 1; i <= over + 4; ++i) seq += std::string(i, ' ') + "-\n";
        const auto s = parse(skill(seq), {.max_lines = 0});
        REQUIRE_FALSE(s.ok());
        const Diagnostic& ds = diag(s, "yaml-too-complex");
        CHECK(ds.line == 68);
        CHECK(ds.message == "the frontmatter nests collections deeper than 64 levels (line 68)");
    }
    SECTION("one level less is fine, in both profiles") {
        const std::string yaml = "x: " + std::string(over - 1, '[') + "a" + std::string(over - 1, ']') + "\n";
        REQUIRE(parse(skill(yaml)).ok());
        CHECK_FALSE(has_code(parse(skill(yaml), reference_profile()), "yaml-too-complex"));
    }
}

TEST_CASE("the YAML budgets report the line where they ran out", "[parser][hardening]") {
    const std::string budget =
        "the frontmatter expands past the YAML budget (100000 nodes, 4194304 bytes of text copied by anchors and "
        "aliases); is it an alias bomb?";
    SECTION("copied text: the aliases on line 6") {
        const std::string yaml =
            "big: &b " + std::string(600000, 'x') + "\nother: o\nc: [*b, *b, *b, *b, *b, *b, *b]\n";
        const auto r = parse(skill(yaml), {.max_bytes = 0});
        REQUIRE_FALSE(r.ok());
        const Diagnostic& d = diag(r, "yaml-too-complex");
        CHECK(d.line == 6);
        CHECK(d.message == budget);
    }
    SECTION("nodes built: one key and value a line from line 4") {
        // The top-level mapping, name and description are 5 nodes; 2 a line from then on: the
        // 100,001st node is the value on the line of the 49,998th key (line 50,001).
        std::string yaml;
        for (std::size_t i = 0; i < 60000; ++i) yaml += fmt::format("k{}: v\n", i);
        const auto r = parse(skill(yaml), {.max_lines = 0, .max_bytes = 0});
        REQUIRE_FALSE(r.ok());
        const Diagnostic& d = diag(r, "yaml-too-complex");
        CHECK(d.line == 50001);
        CHECK(d.message == budget);
    }
    SECTION("nodes copied by aliases: an alias on line 8") {
        // 10, 100, ..., 100,000 items on lines 4 to 8: the copy past 100,000 nodes is one of line 8's.
        std::string yaml = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
        std::string prev = "a";
        for (char c = 'b'; c <= 'f'; ++c) {
            yaml += std::string(1, c) + ": &" + c + " [";
            for (int i = 0; i < 10; ++i) yaml += (i ? ", *" : "*") + prev;
            yaml += "]\n";
            prev = std::string(1, c);
        }
        const auto r = parse(skill(yaml));
        REQUIRE_FALSE(r.ok());
        const Diagnostic& d = diag(r, "yaml-too-complex");
        CHECK(d.line == 8);
        CHECK(d.message == budget);
    }
}

TEST_CASE("the JSON copy of the frontmatter has a byte budget that aliases count toward", "[parser][hardening]") {
    // 1,000 control characters are 6,000 bytes of JSON; 800 aliases of them are 4.8 MB of JSON
    // from a 7 KB file, within the YAML node and copied-text budgets.
    const std::string controls = repeat("\\x01", 1000);
    std::string yaml = "metadata:\n  a: &a \"" + controls + "\"\n  b: [*a";
    for (int i = 1; i < 800; ++i) yaml += ", *a";
    yaml += "]\n";
    const auto r = parse(skill(yaml));
    REQUIRE_FALSE(r.ok());
    CHECK(has_code(r, "yaml-too-complex"));
    CHECK(diag(r, "yaml-too-complex").message.find("JSON") != std::string::npos);

    // 400 aliases (2.4 MB of JSON) fit; the copy is made and is what the file says.
    std::string fits = "metadata:\n  a: &a \"" + controls + "\"\n  b: [*a";
    for (int i = 1; i < 400; ++i) fits += ", *a";
    fits += "]\n";
    const auto ok = parse(skill(fits));
    REQUIRE(ok.ok());
    CHECK(ok.manifest()->frontmatter->at("metadata").at("b").size() == 400);
    CHECK(ok.manifest()->frontmatter->dump().size() <= SKILL_MAX_FRONTMATTER_JSON_BYTES);
}

TEST_CASE("printed frontmatter stays proportionate to the file", "[parser][hardening]") {
    // The shape of the issue: deep flow sequences around aliases of earlier lines. Either it is
    // refused, or its indented JSON is at most a few MB.
    std::string yaml = "metadata:\n  l0: &l0 [" + repeat("x, ", 200) + "x]\n";
    for (int i = 1; i < 40; ++i) {
        yaml += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " " + std::string(60, '[') + "*l" +
                std::to_string(i - 1) + ", *l" + std::to_string(i - 1) + std::string(60, ']') + "\n";
    }
    const auto r = parse(skill(yaml));
    if (r.ok()) {
        CHECK(r.manifest()->frontmatter->dump(2).size() < 3 * SKILL_MAX_FRONTMATTER_JSON_BYTES);
    } else {
        CHECK(has_code(r, "yaml-too-complex"));
    }
}

// ---- 7. Control characters in name and description

TEST_CASE("control characters in name or description are invalid under require_valid", "[parser][hardening]") {
    for (const std::string escape :
         {"\\0", "\\x00", "\\u0000", "\\e[2J", "\\x1b]0;title\\x07", "\\x85", "\\u009b", "\\x7f", "\\r", "\\x08"}) {
        INFO(escape);
        const auto desc = parse("---\nname: demo\ndescription: \"before " + escape + " after\"\n---\n", strict_names());
        REQUIRE_FALSE(desc.ok());
        CHECK(*desc.skip_reason() == SkipReason::invalid);
        CHECK(diag(desc, "description-control-character").severity == Severity::error);

        const auto kept = parse("---\nname: demo\ndescription: \"before " + escape + " after\"\n---\n");
        REQUIRE(kept.ok());
        CHECK(diag(kept, "description-control-character").severity == Severity::warning);

        const auto name = parse("---\nname: \"de" + escape + "mo\"\ndescription: d\n---\n", strict_names());
        REQUIRE_FALSE(name.ok());
        CHECK(*name.skip_reason() == SkipReason::invalid);
        CHECK(has_errors(name.diagnostics));
    }
    // TAB and line feed are text.
    const auto fine = parse("---\nname: demo\ndescription: \"a\\tb\\nc\"\n---\n", strict_names());
    REQUIRE(fine.ok());
    CHECK(fine.manifest()->description == "a\tb\nc");
}

// ---- 5. Tool lists are capped

TEST_CASE("tool lists keep at most SKILL_MAX_TOOL_NAMES names, with a warning", "[parser][hardening]") {
    std::string comma_list;
    std::string space_list;
    std::string block_list;
    for (std::size_t i = 0; i < SKILL_MAX_TOOL_NAMES + 500; ++i) {
        comma_list += (i == 0 ? "t" : ", t") + std::to_string(i);
        space_list += (i == 0 ? "t" : " t") + std::to_string(i);
        block_list += "  - t" + std::to_string(i) + "\n";
    }
    SECTION("tools") {
        const auto r = parse(skill("tools: " + comma_list + "\n"));
        REQUIRE(r.ok());
        REQUIRE(r.manifest()->tools);
        CHECK(r.manifest()->tools->size() == SKILL_MAX_TOOL_NAMES);
        CHECK(r.manifest()->tools->back() == "t" + std::to_string(SKILL_MAX_TOOL_NAMES - 1));
        const Diagnostic& d = diag(r, "tool-list-too-long");
        CHECK(d.severity == Severity::warning);
        CHECK(d.line == 4);
        CHECK(d.message.find("1000") != std::string::npos);
    }
    SECTION("disallowedTools, both spellings together") {
        ParseOptions opt;
        opt.max_lines = 0;  // one line per name
        const auto r = parse(skill("disallowedTools:\n" + block_list + "disallowed-tools: extra\n"), opt);
        REQUIRE(r.ok());
        CHECK(r.manifest()->disallowed_tools.size() == SKILL_MAX_TOOL_NAMES);
        CHECK(has_code(r, "tool-list-too-long"));
    }
    SECTION("allowed-tools, in both profiles") {
        for (const ParseOptions& opt : {ParseOptions{}, reference_profile()}) {
            const auto r = parse(skill("allowed-tools: " + space_list + "\n"), opt);
            REQUIRE(r.ok());
            CHECK(r.manifest()->allowed_tools.size() == SKILL_MAX_TOOL_NAMES);
            CHECK(diag(r, "tool-list-too-long").severity == Severity::warning);
        }
    }
    SECTION("duplicates do not count") {
        const auto r = parse(skill("tools: " + repeat("Read, ", 5000) + "Write\n"));
        REQUIRE(r.ok());
        CHECK(*r.manifest()->tools == std::vector<std::string>{"Read", "Write"});
        CHECK_FALSE(has_code(r, "tool-list-too-long"));
    }
}

// ---- 12. One YAML document

TEST_CASE("a YAML document marker inside the frontmatter is a syntax error", "[parser][hardening]") {
    const std::vector<std::string> cases = {
        "---\nname: demo\ndescription: d\n...\ndisable-model-invocation: true\n---\nBody\n",
        "---\nname: demo\ndescription: d\n...\n---\nBody\n",
        "---\nname: demo\ndescription: d\n... # end\n---\nBody\n",
        "---\nname: demo\ndescription: d\n--- disable-model-invocation: true\n---\nBody\n",
        "---\nname: demo\ndescription: d\n---\t{x: 1}\n---\nBody\n",
        "---\r\nname: demo\r\ndescription: d\r\n...\r\nuser-invocable: false\r\n---\r\nBody\r\n",
    };
    for (const auto& text : cases) {
        INFO(text);
        for (const ParseOptions& opt : {ParseOptions{}, reference_profile(), strict_names()}) {
            const auto r = parse(text, opt);
            REQUIRE_FALSE(r.ok());
            CHECK(*r.skip_reason() == SkipReason::invalid);
            CHECK(diag(r, "yaml-syntax").line == 4);
        }
    }
    // Not markers: three dots or dashes inside a line, or followed by text.
    const auto fine = parse("---\nname: demo\ndescription: wait... ---\nx: |\n  ...\n  --- \n...more: 1\n---\n");
    REQUIRE(fine.ok());
    CHECK(fine.manifest()->frontmatter->at("x") == "...\n--- \n");
}

TEST_CASE("a quoted scalar never closed is a syntax error, not the rest of the frontmatter", "[parser][hardening]") {
    // yaml-cpp alone read these to the end of the text: the keys after the quote became its text.
    const std::string dq =
        "the frontmatter is not valid YAML: end of the text inside a double-quoted scalar (no closing \")";
    const std::string sq =
        "the frontmatter is not valid YAML: end of the text inside a single-quoted scalar (no closing ')";
    const std::vector<std::tuple<std::string, std::size_t, std::string>> cases = {
        {"---\nname: demo\ndescription: \"Helper\ndisable-model-invocation: true\n---\nBody\n", 3, dq},
        {"---\nname: demo\ndescription: 'abc\nlicense: MIT\n---\nBody\n", 3, sq},
        {"---\nname: demo\ndescription: \"abc\\\n---\nBody\n", 3, dq},
        {"---\nname: demo\ndescription: \"abc\n  def\n---\nBody\n", 3, dq},
        {"---\nname: demo\ndescription: 'a\n  b''\n---\nBody\n", 3, sq},
        {"---\nname: demo\ndescription: d\nmetadata: {\"a\": \"b}\n---\nBody\n", 4, dq},
        {"---\r\nname: demo\r\ndescription: \"Helper\r\nlicense: MIT\r\n---\r\nBody\r\n", 3, dq},
    };
    for (const auto& [text, line, message] : cases) {
        INFO(text);
        for (const ParseOptions& opt : {ParseOptions{}, reference_profile(), strict_names()}) {
            const auto r = parse(text, opt);
            REQUIRE_FALSE(r.ok());
            CHECK(*r.skip_reason() == SkipReason::invalid);
            CHECK(diag(r, "yaml-syntax").line == line);
            CHECK(diag(r, "yaml-syntax").message == message);
        }
    }
    // Closed ones, over lines, with escaped quotes inside, as keys: read as before.
    const auto fine =
        parse("---\nname: demo\ndescription: \"a\\\"b\n  c\"\n'it''s': 'x''\n  y'\n\"k\": \"v\\\\\"\n---\nBody\n");
    REQUIRE(fine.ok());
    CHECK(fine.manifest()->description == "a\"b c");
    CHECK(fine.manifest()->frontmatter->at("it's") == "x' y");
    CHECK(fine.manifest()->frontmatter->at("k") == "v\\");
}

TEST_CASE("a value on a later line must be indented more than its key; no line starts with '%'",
          "[parser][hardening]") {
    // yaml-cpp took these as the values of the key above (or dropped the '%' line, keys and all);
    // YAML, and every other reader, refuses them.
    const std::string colon = "the frontmatter is not valid YAML: could not find expected ':'";
    const std::string percent =
        "the frontmatter is not valid YAML: a line starts with '%', a YAML directive, which can only come before "
        "the document";
    const std::vector<std::tuple<std::string, std::size_t, std::string>> cases = {
        {"req:\n  mcp:\n  [rube]\n", 7, colon},
        {"req:\n[rube]\n", 6, colon},
        {"req:\n  mcp:\n  {a: b}\n", 7, colon},
        {"req:\n  mcp:\n  \"rube\"\n", 7, colon},
        {"req:\n'x'\n", 6, colon},
        {"x: &a d\nreq:\n*a\n", 7, colon},
        {"req:\n  mcp:\n  &x [rube]\n", 7, colon},
        {"req:\n  mcp:\n  !!seq [rube]\n", 7, colon},
        {"req:\n%  mcp: [rube]\n", 6, percent},
        {"%YAML 1.2\n", 5, percent},
        {"x: \"a\n%b\"\n", 6, percent},
    };
    // Text that goes on after the top-level value ended: yaml-cpp began a second document there
    // and the loader read only the first, the keys after it lost.
    const auto after_end = [](std::size_t line) {
        return fmt::format(
            "the frontmatter is not valid YAML: the text goes on at line {} after its top-level value "
            "has ended (a line indented less than the ones before it?); what follows would be lost",
            line);
    };
    for (const auto& [text, line] : std::vector<std::pair<std::string, std::size_t>>{
             {"---\n  name: demo\n  description: d\nlicense: MIT\n---\nBody\n", 4},
             {"---\n- x\nname: demo\ndescription: d\n---\nBody\n", 3}}) {
        INFO(text);
        const auto r = parse(text);
        REQUIRE_FALSE(r.ok());
        CHECK(diag(r, "yaml-syntax").line == line);
        CHECK(diag(r, "yaml-syntax").message == after_end(line));
    }
    for (const auto& [extra, line, message] : cases) {
        const std::string text = "---\nname: demo\ndescription: d\nlicense: MIT\n" + extra + "---\nBody\n";
        INFO(text);
        for (const ParseOptions& opt : {ParseOptions{}, strict_names()}) {
            const auto r = parse(text, opt);
            REQUIRE_FALSE(r.ok());
            CHECK(diag(r, "yaml-syntax").line == line);
            CHECK(diag(r, "yaml-syntax").message == message);
        }
    }
    // Indented more, a block sequence at the key's indentation, an empty value, '%' inside a line
    // or on an indented line of a quoted value: read as before.
    const auto fine = parse(
        "---\nname: demo\ndescription: d\nreq:\n  mcp:\n   [rube]\nlist:\n- x\nempty:\nnext: 50%\nq: \"a\n  "
        "%b\"\n---\n");
    REQUIRE(fine.ok());
    CHECK(fine.manifest()->frontmatter->at("req").at("mcp") == nlohmann::json::array({"rube"}));
    CHECK(fine.manifest()->frontmatter->at("list") == nlohmann::json::array({"x"}));
    CHECK(fine.manifest()->frontmatter->contains("empty"));
    CHECK(fine.manifest()->frontmatter->at("next") == "50%");
    CHECK(fine.manifest()->frontmatter->at("q") == "a %b");
}

TEST_CASE("a document marker's diagnostic and its message name the same line of the file", "[parser][hardening]") {
    const auto message = [](std::string_view marker, std::size_t line) {
        return fmt::format(
            "the frontmatter has the YAML document marker '{}' on line {}; it must be one YAML "
            "document (keys after the marker would be lost)",
            marker, line);
    };
    const std::vector<std::tuple<std::string, std::string, std::size_t>> cases = {
        {"---\nname: demo\ndescription: d\n...\n---\nBody\n", "...", 4},
        {"---\nname: demo\ndescription: d\n--- y\n---\nBody\n", "---", 4},
        {"---\r\nname: demo\r\ndescription: d\r\n...\r\n---\r\nBody\r\n", "...", 4},
        {"---\nname: demo\n\n# a comment\ndescription: d\n\n...\n---\nBody\n", "...", 7},
    };
    for (const auto& [text, marker, line] : cases) {
        INFO(text);
        const auto r = parse(text);
        REQUIRE_FALSE(r.ok());
        const Diagnostic& d = diag(r, "yaml-syntax");
        CHECK(d.line == line);
        CHECK(d.message == message(marker, line));
    }
}

// ---- 14. Blank means invisible too

TEST_CASE("blank text: white space and default-ignorable code points", "[names][hardening]") {
    for (const char* blank : {"", " \t\n\r\v\f", "\xC2\xA0" /* NBSP */, "\xE3\x80\x80" /* U+3000 */,
                              "\xE2\x80\x8B" /* ZWSP */, "\xE2\x80\xA8" /* U+2028 */, "\xE2\x81\xA0" /* U+2060 */,
                              "\xC2\x85" /* NEL */, "\xE2\x80\x8D\xE2\x80\x8C" /* ZWJ ZWNJ */, "\xEF\xBB\xBF" /* BOM */,
                              "\xC2\xAD" /* soft hyphen */, "\xEF\xB8\x8F" /* VS16 */, "\xE1\x9A\x80" /* U+1680 */,
                              "\xE3\x85\xA4" /* U+3164 Hangul filler */, "\xF3\xA0\x80\xA0" /* U+E0020 tag space */}) {
        INFO(blank);
        CHECK(is_blank_text(blank));
        if (*blank != '\0') CHECK(check_skill_name(blank) == std::vector{NameProblem::empty});
    }
    for (const char* text : {"a", " a ",
                             "\xE2\x80\x8B"
                             "a",
                             "-", "\xC2\xB7", "\xFF"}) {
        INFO(text);
        CHECK_FALSE(is_blank_text(text));
    }
}

TEST_CASE("names and descriptions of only invisible characters are blank", "[parser][hardening]") {
    for (const std::string yaml_value :
         {"\"\\u00a0\"", "\"\\u3000\"", "\"\\u200b\"", "\"\\u2028\"", "\"\\u2060\"", "\"\\N\"", "\"\\_\"",
          "\"\\u200b\\u200d\\ufeff\"", "\xE2\x80\x8B", "\xE3\x80\x80\xE3\x80\x80"}) {
        INFO(yaml_value);
        for (const ParseOptions& opt : {ParseOptions{}, strict_names(), reference_profile()}) {
            const auto name = parse("---\nname: " + yaml_value + "\ndescription: d\n---\n", opt);
            REQUIRE_FALSE(name.ok());
            CHECK(diag(name, "name-blank").line == 2);
            const auto desc = parse("---\nname: demo\ndescription: " + yaml_value + "\n---\n", opt);
            REQUIRE_FALSE(desc.ok());
            CHECK(diag(desc, "description-blank").line == 3);
        }
    }
}

// ---- 15. Token floods are refused before yaml-cpp

TEST_CASE("token floods are refused before parsing, in little memory", "[parser][hardening]") {
    const std::size_t n = SKILL_MAX_FILE_BYTES - 100;
    const std::vector<std::pair<std::string, std::string>> floods = {
        {"[", "x: " + std::string(n, '[') + "\n"},     {"{", "x: " + std::string(n, '{') + "\n"},
        {"[a,", "x: [" + repeat("a,", n / 2) + "]\n"}, {"&a", "x: [" + repeat("&a ", n / 3) + "]\n"},
        {"- ", "x:\n" + repeat("- ", n / 2) + "a\n"},  {"? ", "x: " + repeat("? ", n / 2) + "\n"},
        {"[]", "x: " + repeat("[]", n / 2) + "\n"},
    };
    for (const auto& [what, yaml] : floods) {
        SECTION(what) {
            const std::string text = skill(yaml);
            REQUIRE(text.size() <= SKILL_MAX_FILE_BYTES);
            const auto r = parse(text);
            REQUIRE_FALSE(r.ok());
            CHECK(diag(r, "yaml-too-complex").line >= 4);
            if (!HARDENING_SANITIZED) {
                const long growth = child_peak_growth_kib([&] { (void)parse(text); });
                INFO("peak RSS growth: " << growth << " KiB");
                REQUIRE(growth >= 0);
                CHECK(growth < 32L * 1024);
            }
        }
    }
}

TEST_CASE("the indicator budget leaves room for wide but honest frontmatter", "[parser][hardening]") {
    // 30,000 flow-mapping entries: 60,001 indicators, under the budget of 100,000.
    std::string yaml = "metadata: {";
    for (int i = 0; i < 30000; ++i) yaml += (i == 0 ? "k" : ", k") + std::to_string(i) + ": v";
    yaml += "}\n";
    ParseOptions opt;
    opt.max_bytes = 0;
    const auto r = parse(skill(yaml), opt);
    REQUIRE(r.ok());
    CHECK(r.manifest()->metadata.size() == 30000);
}

// ---- ParseResult holds a manifest or a skip reason, never both, never neither

TEST_CASE("ParseResult is a manifest or a skip reason", "[parser]") {
    ParseResult r;
    CHECK_FALSE(r.ok());
    CHECK(r.manifest() == nullptr);
    CHECK(r.skip_reason() == SkipReason::invalid);
    SkillManifest m;
    m.name = "demo";
    r.keep(m);
    REQUIRE(r.ok());
    CHECK(r.manifest()->name == "demo");
    CHECK_FALSE(r.skip_reason());
    r.skip(SkipReason::unreadable);
    CHECK_FALSE(r.ok());
    CHECK(r.manifest() == nullptr);
    CHECK(r.skip_reason() == SkipReason::unreadable);

    for (const std::string text : {"---\nname: demo\ndescription: d\n---\n", "---\nname: demo\n---\n", "", "\xFF"}) {
        const auto parsed = parse(text);
        CHECK(parsed.ok() == (parsed.manifest() != nullptr));
        CHECK(parsed.ok() != parsed.skip_reason().has_value());
        CHECK(parsed.ok() != has_errors(parsed.diagnostics));
    }
}

TEST_CASE("the deprecated truncated overload still skips", "[parser]") {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    const auto r = parse_skill_md("---\nname: demo\ndescription: d\n---\n", ParseOptions{}, true);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    CHECK(r.skip_reason() == SkipReason::too_large);
    ParseOptions opt;
    opt.truncated = true;
    CHECK(parse_skill_md("---\nname: demo\ndescription: d\n---\n", opt).skip_reason() == SkipReason::too_large);
}

TEST_CASE("large frontmatters parsed from several threads give the results of one thread", "[parser][concurrency]") {
    // Over SKILL_LARGE_FRONTMATTER_BYTES, parses pass one at a time through the process-wide gate.
    std::string yaml = "metadata: {";
    for (int i = 0; i < 3000; ++i) yaml += (i == 0 ? "k" : ", k") + std::to_string(i) + ": v";
    yaml += "}\n";
    const std::string large = skill(yaml);
    const std::string small = skill("");
    REQUIRE(large.size() > SKILL_LARGE_FRONTMATTER_BYTES);
    const auto expected = parse(large);
    REQUIRE(expected.ok());
    std::vector<std::thread> threads;
    std::vector<int> agreed(4, 0);
    for (std::size_t t = 0; t < agreed.size(); ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 5; ++i) {
                const auto r = parse(i % 2 == 0 ? large : small);
                const bool same = i % 2 == 0 ? r.ok() && *r.manifest()->frontmatter == *expected.manifest()->frontmatter
                                             : r.ok() && r.manifest()->name == "demo";
                agreed[t] += same ? 1 : 0;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(agreed == std::vector<int>(4, 5));
}

}  // namespace parser_hardening_tests

// =======================================================================================
// The frontmatter fast path (src/parse/yaml_fast.cpp) gives exactly what the yaml-cpp path gives:

namespace parse_fast_tests {

using namespace agentskills;
namespace fs = std::filesystem;

namespace {

ParseResult parse_with(std::string_view text, const ParseOptions& opt, bool fast) {
    detail::set_frontmatter_fast_path(fast);
    ParseResult r = parse_skill_md(text, opt);
    detail::set_frontmatter_fast_path(true);
    return r;
}

// Everything a caller can see of a ParseResult, as one JSON value.
nlohmann::json seen(const ParseResult& r) {
    nlohmann::json j;
    j["ok"] = r.ok();
    j["skip"] = r.skip_reason() ? static_cast<int>(*r.skip_reason()) : -1;
    j["instructions"] = r.instructions;
    auto ds = nlohmann::json::array();
    for (const Diagnostic& d : r.diagnostics) {
        ds.push_back({d.code, static_cast<int>(d.severity), d.path, d.line, d.message});
    }
    j["diagnostics"] = ds;
    if (const SkillManifest* m = r.manifest()) {
        j["manifest"] = *m;
        j["frontmatter"] = m->frontmatter->dump();
    }
    return j;
}

nlohmann::json tree(const detail::YNode& n) {
    auto items = nlohmann::json::array();
    for (const auto& c : n.items) items.push_back(tree(c));
    return {static_cast<int>(n.kind), n.text, n.line, n.column, n.offset, n.anchor, n.flags, items};
}

// The strict-YAML findings of the fast path's tree.
detail::StrictFindings findings_of(const detail::YNode& root) {
    detail::YamlTree t;
    t.root = root;
    return detail::strict_findings(t);
}

// The frontmatter between the first two `---` lines of `text`, when there is one.
std::optional<std::string> frontmatter_of(const std::string& text) {
    if (text.rfind("---\n", 0) != 0) return std::nullopt;
    const std::size_t end = text.find("\n---", 3);
    if (end == std::string::npos) return std::nullopt;
    return text.substr(4, end + 1 - 4);
}

// Compares both paths on `text` under several option sets; true when the fast path read the
// frontmatter (its tree is then compared with yaml-cpp's too).
bool same_both_ways(const std::string& text, const std::string& label) {
    INFO(label);
    for (int flags = 0; flags < 8; ++flags) {
        ParseOptions opt;
        opt.profile = (flags & 1) != 0 ? ValidationProfile::reference : ValidationProfile::standard;
        opt.name_policy = (flags & 2) != 0 ? NamePolicy::require_valid : NamePolicy::keep;
        opt.directory_name = (flags & 4) != 0 ? std::string_view("demo") : std::string_view();
        opt.path = "lib/demo/SKILL.md";
        INFO("options " << flags);
        CHECK(seen(parse_with(text, opt, true)) == seen(parse_with(text, opt, false)));
    }
    const std::optional<std::string> fm = frontmatter_of(text);
    // The parser hands the fast path valid UTF-8 without CR (a file that is not is refused or
    // converted first, and was compared above).
    if (!fm || !is_valid_utf8(*fm) || fm->find('\r') != std::string::npos) return false;
    const std::optional<detail::YNode> fast = detail::read_common_yaml(*fm);
    if (!fast) return false;
    detail::StrictFindings strict;
    detail::set_frontmatter_fast_path(false);
    const detail::YamlRead slow = detail::read_yaml(*fm, &strict);
    detail::set_frontmatter_fast_path(true);
    REQUIRE(slow.root);
    CHECK(!slow.problem);
    CHECK(strict.list == findings_of(*fast).list);
    CHECK(tree(*fast).dump() == tree(*slow.root).dump());
    return true;
}

std::string skill(const std::string& frontmatter, const std::string& body = "Body.\n") {
    return "---\n" + frontmatter + "---\n" + body;
}

}  // namespace

TEST_CASE("fast path: every SKILL.md of the shared corpus parses as through yaml-cpp", "[parser][fast-path]") {
    const auto found = agentskills_test::shared_corpus();
    if (!found) return;
    const fs::path corpus = *found;
    std::size_t files = 0;
    std::size_t fast = 0;
    for (const auto& e : fs::recursive_directory_iterator(corpus, fs::directory_options::skip_permission_denied)) {
        if (!e.is_regular_file() || e.path().filename() != "SKILL.md") continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        ++files;
        if (same_both_ways(ss.str(), e.path().string())) ++fast;
    }
    INFO(fast << " of " << files << " frontmatters read by the fast path");
    CHECK(files > 0);
    // Nearly all of the corpus has the common shape (1,520 of 1,544 files when this was written;
    // the rest have anchors, flow mappings, lists of mappings and the like): the fast path
    // must actually be taken.
    CHECK(fast * 10 > files * 9);
}

TEST_CASE("fast path: a tree read into the room of the tree before is the tree read afresh", "[parser][fast-path]") {
    // Shapes that grow and shrink from one to the next: a scalar where a collection was, fewer
    // list items than before, a nested mapping where a flow list was, a block scalar where a
    // quoted one was; one that the fast path gives up on half-way (an anchor on its last line);
    // one too large to be kept (more than 64 nodes).
    std::string wide;
    for (int i = 0; i < 40; ++i) wide += "key-" + std::to_string(i) + ": value number " + std::to_string(i) + "\n";
    const std::vector<std::string> frontmatters = {
        "name: a\ndescription: plain\n",
        "name: b\ndescription: >-\n  folded line one\n  line two\nmetadata:\n  author: x\n  tags: [one, two, three]\n",
        "name: c\nallowed-tools:\n  - Read\n  - Grep\n  - Bash\nauthors:\n  - name: one\n    email: e@x\n  - name: "
        "two\n",
        "metadata:\n  k: v\nname: 'quoted ''x'''\ndescription: \"dq \\n x\"\n",
        "name: d\ndescription: |\n  literal\n  block\n\nlicense: MIT # comment\nallowed-tools: [Read]\n",
        "name: e\ndescription: x\nmetadata:\n  a: b\n  c: d\nother: &anchor y\n",
        "name: f\ndescription: goes on\n  over a second line\nmetadata: plain\n",
        "name: " + std::string(300, 'g') + "\ndescription: " + std::string(2000, 'h') + "\n" + wide,
    };
    // The tree of `text` on a thread that has read nothing before (nothing kept), as JSON.
    const auto afresh = [](const std::string& text) {
        std::string out;
        std::thread([&] {
            const std::optional<detail::YNode> t = detail::read_common_yaml(text);
            out = t ? tree(*t).dump() : "none";
        }).join();
        return out;
    };
    const auto parsed_afresh = [](const std::string& text) {
        nlohmann::json out;
        std::thread([&] {
            ParseOptions opt;
            opt.path = "lib/demo/SKILL.md";
            out = seen(parse_skill_md(text, opt));
        }).join();
        return out;
    };
    for (const std::string& before : frontmatters) {
        for (const std::string& text : frontmatters) {
            INFO("before:\n" << before << "then:\n" << text);
            const std::string expected = afresh(text);
            const nlohmann::json expected_parse = parsed_afresh(skill(text));
            std::thread([&] {
                // The tree before given back directly...
                if (std::optional<detail::YNode> t = detail::read_common_yaml(before)) {
                    detail::recycle_yaml_tree(std::move(*t));
                }
                const std::optional<detail::YNode> again = detail::read_common_yaml(text);
                CHECK((again ? tree(*again).dump() : "none") == expected);
                // ... and by the parser, which gives back every tree it read.
                ParseOptions opt;
                opt.path = "lib/demo/SKILL.md";
                (void)parse_skill_md(skill(before), opt);
                CHECK(seen(parse_skill_md(skill(text), opt)) == expected_parse);
                (void)parse_skill_md(skill(before), opt);
                detail::set_frontmatter_fast_path(false);
                CHECK(seen(parse_skill_md(skill(text), opt)) == expected_parse);
                detail::set_frontmatter_fast_path(true);
            }).join();
        }
    }
    // What a thread keeps: a tree of a real frontmatter's size, not one over 64 nodes.
    std::thread([&] {
        CHECK(detail::spare_yaml_nodes() == 0);
        std::optional<detail::YNode> small = detail::read_common_yaml(frontmatters[2]);
        REQUIRE(small);
        detail::recycle_yaml_tree(std::move(*small));
        CHECK(detail::spare_yaml_nodes() == 18);
        std::optional<detail::YNode> large = detail::read_common_yaml(frontmatters.back());
        REQUIRE(large);
        CHECK(detail::spare_yaml_nodes() == 0);  // the read took the kept tree
        detail::recycle_yaml_tree(std::move(*large));
        CHECK(detail::spare_yaml_nodes() == 0);  // 85 nodes: freed, not kept
    }).join();
}

TEST_CASE("frontmatter_json = false changes nothing but the frontmatter JSON", "[parser]") {
    const auto found = agentskills_test::shared_corpus();
    if (!found) return;
    const fs::path corpus = *found;
    std::size_t kept = 0;
    for (const auto& e : fs::recursive_directory_iterator(corpus, fs::directory_options::skip_permission_denied)) {
        if (!e.is_regular_file() || e.path().filename() != "SKILL.md") continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        INFO(e.path().string());
        for (const bool fast : {true, false}) {
            ParseOptions opt;
            opt.path = "lib/demo/SKILL.md";
            const ParseResult with = parse_with(ss.str(), opt, fast);
            opt.frontmatter_json = false;
            const ParseResult without = parse_with(ss.str(), opt, fast);
            nlohmann::json a = seen(with);
            nlohmann::json b = seen(without);
            if (without.manifest() != nullptr) {
                ++kept;
                CHECK(without.manifest()->frontmatter->dump() == "{}");
                CHECK(with.manifest()->frontmatter->is_object());
                a.erase("frontmatter");
                b.erase("frontmatter");
                a["manifest"].erase("frontmatter");
                b["manifest"].erase("frontmatter");
            }
            CHECK(a == b);
        }
    }
    CHECK(kept > 1000);
}

TEST_CASE("fast path: constructs it reads give the yaml-cpp tree", "[parser][fast-path]") {
    const std::vector<std::string> read = {
        "name: demo\ndescription: Does things.\n",
        "name: demo\ndescription: 'It''s quoted: yes'\n",
        "name: demo\ndescription: \"Double \\\"quoted\\\" \\\\ \\/ \\n \\t\"\n",
        "name: demo\ndescription: plain with # a comment\nlicense: MIT # trailing\n",
        "name: demo\ndescription: a:b, c]d} e[f {g\n",
        "name: demo\ndescription: x\nmetadata:\n  version: \"1.0\"\n  author: someone\n",
        "name: demo\ndescription: x\nmetadata:\n  list:\n    - a\n    - 'b'\n  k: v\n",
        "name: demo\ndescription: x\nallowed-tools:\n  - Read\n  - Bash(git:*)\n",
        "name: demo\ndescription: x\ntags:\n- one\n- two\nlicense: MIT\n",
        "# a comment\nname: demo\n\ndescription: x\n# another\n",
        "name: demo\ndescription: x\nlicense: null\nversion: ~\ncategory: NULL\n",
        "name: demo\ndescription: x\nname: other\n",
        "name: demo\ndescription: x\ndisable-model-invocation: True\nuser-invocable: false\n",
        "name: demo\ndescription: caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80\n",
        "name: demo\ndescription: x   \n",
        "name: demo\ndescription: x\nmetadata:\n  a:\n    b: c\n",
        "name: demo\ndescription: ''\n",
        "name: demo\ndescription: \"\"\n",
        "name: demo\ndescription: x\ntools: Read, Write\n",
        // One-line flow sequences of plain words (the strict profile's finding compared too).
        "name: demo\ndescription: x\ntags: [a, b]\n",
        "name: demo\ndescription: x\ntags: []\nmcp: [ ]\naliases: [one]\n",
        "name: demo\ndescription: x\nallowed-tools: [Read, Grep,Glob , web-search, a/b.c, f(x), two words]  # c\n",
        "name: demo\ndescription: x\nmetadata:\n  tags: [x, y]\n  k: v\n",
        // Block scalars of the plain form: literal and folded, clipped and stripped.
        "name: demo\ndescription: |\n  block\n",
        "name: demo\ndescription: >-\n  folded\n",
        "name: demo\ndescription: >\n  one\n  two\n\n  three\n\n\n  four\nlicense: MIT\n",
        "name: demo\ndescription: |-\n  one\n  two\n\n  three\n\n\n  four\nlicense: MIT\n",
        "name: demo\ndescription: |\n  one\n  two\n\n\nlicense: MIT\n",
        "name: demo\ndescription: >-\n  one\n  two\n\n",
        "name: demo\ndescription: >\n    deep: no key # no comment\n    - no item\nlicense: MIT\n",
        "name: demo\ndescription: |\n  # not a comment\n  'not quoted' [x] {y} &z *w !v\n# a comment\nlicense: MIT\n",
        "name: demo\nmetadata:\n  notes: >-\n    nested\n    folded\n  k: v\ndescription: x\n",
        // Plain scalars over several lines (the shapes of real libraries), and comment lines at
        // any indentation.
        "name: demo\ndescription: first line\n  second line\n",
        "name: demo\ndescription: Scan skills. Use when asked to \"scan a skill\",\n  \"audit a skill\", or assess\n  "
        "whether it is safe.\nallowed-tools: Read, Grep\n",
        "name: demo\ndescription:\n  React best practices. Use\n  when building components.\nlicense: MIT\n",
        "name: demo\ndescription: one\n\n  two\n  \n\n   three   \n\nlicense: MIT\n",
        "name: demo\ndescription: null\n  or not\nversion: 12\n     34\n",
        "name: demo\ndescription: x\nmetadata:\n  notes: a\n    b\n      c\n  k: v\n",
        "name: demo\ndescription: x\nmetadata:\n  version: 1.5.6\n  # a note\n    # deeper\n  author: someone\n",
        "name: demo\ndescription: >\n  caf\xC3\xA9 \xE2\x80\x94\n  null\n",
        "name: demo\ndescription: |\n  null\n",
        // Lists whose items are small mappings (authors, contributors), beside scalar items.
        "name: demo\ndescription: x\nauthors:\n  - name: A One\n    github: a1\n  - name: B\n    github: b\nlicense: "
        "MIT\n",
        "name: demo\ndescription: x\ncontributors:\n- name: x\n  org: Y, Inc. / @y\n- name: z\nlicense: MIT\n",
        "name: demo\ndescription: x\ntags:\n  - a\n  - b: c\n",
        "name: demo\ndescription: x\nitems:\n  -   name: wide\n      k: 'v'\n  - name: \"q\"\n    k: null\n",
        "name: demo\ndescription: x\nmetadata:\n  people:\n    - name: x\n      roles:\n        - a\n        - b\n"
        "      info:\n        k: v\n    - name: y\n  k: v\n",
        "name: demo\ndescription: x\nlist:\n  - note:\n      long text\n      over lines\n    k: v\n",
        "name: demo\ndescription: x\nlist:\n  - k:\n    - a\n    - b\n    j: v\n",
        "name: demo\ndescription: x\nlist:\n  - k: v # c\n    # a comment\n\n    j: |\n      block\n",
    };
    for (const std::string& fm : read) {
        INFO(fm);
        CHECK(same_both_ways(skill(fm), fm));
    }
}

TEST_CASE("fast path: a frontmatter text without a final line break reads as through yaml-cpp", "[parser][fast-path]") {
    // The parser hands over the lines before the closing `---`, so a real frontmatter ends with
    // a line break; the reader must not rely on it (the differential fuzz target feeds any text).
    const std::vector<std::string> texts = {
        "on: >\n  folded line one\n  line two",
        "on: |\n  literal\n  two",
        "on: >-\n  stripped",
        "on: |\n  a\n\n  b",
        "on: [a, b]",
        "on: x",
        "on: last\n  line",
        "on: last\n  line\n\n  ",
    };
    for (const std::string& fm : texts) {
        INFO(fm);
        const std::optional<detail::YNode> fast = detail::read_common_yaml(fm);
        REQUIRE(fast.has_value());
        detail::StrictFindings strict;
        detail::set_frontmatter_fast_path(false);
        const detail::YamlRead slow = detail::read_yaml(fm, &strict);
        detail::set_frontmatter_fast_path(true);
        REQUIRE(slow.root);
        CHECK(strict.list == findings_of(*fast).list);
        CHECK(tree(*fast).dump() == tree(*slow.root).dump());
    }
}

TEST_CASE("fast path: constructs it declines parse as through yaml-cpp", "[parser][fast-path]") {
    const std::vector<std::string> declined = {
        "",
        "# only a comment\n",
        // Plain scalars over several lines past plain text.
        "name: demo\ndescription: first # comment\n  second line\n",
        "name: demo\ndescription: first\n  key: value\n",
        "name: demo\ndescription: first\n  ends with:\n",
        "name: demo\ndescription: first\n  - item\n",
        "name: demo\ndescription: first\n  [a]\n",
        "name: demo\ndescription: first\n  has # comment\n",
        "name: demo\ndescription: 'first'\n  second\n",
        "name: demo\ndescription:\n  'quoted'\n",
        "name: demo\ndescription: 'quoted'\n  # a comment below\nlicense: MIT\n",
        // Flow sequences past plain words.
        "name: demo\ndescription: x\ntags: [a, b,]\n",
        "name: demo\ndescription: x\ntags: [a,, b]\n",
        "name: demo\ndescription: x\ntags: [a\n  , b]\n",
        "name: demo\ndescription: x\ntags: ['a', \"b\"]\n",
        "name: demo\ndescription: x\ntags: [a: b]\n",
        "name: demo\ndescription: x\ntags: [Bash(git:*)]\n",
        "name: demo\ndescription: x\ntags: [[a]]\n",
        "name: demo\ndescription: x\ntags: [a, {b: c}]\n",
        "name: demo\ndescription: x\ntags: [null, b]\n",
        "name: demo\ndescription: x\ntags: [~]\n",
        "name: demo\ndescription: x\ntags: [a  b]\n",
        "name: demo\ndescription: x\ntags: [a] b\n",
        "name: demo\ndescription: x\ntags: [a]#c\n",
        "name: demo\ndescription: x\ntags: [-a]\n",
        "name: demo\ndescription: x\ntags: [*a]\n",
        "name: demo\ndescription: x\ntags:\n  - [a]\n",
        // Block scalars past the plain form.
        "name: demo\ndescription: |+\n  kept\n\n",
        "name: demo\ndescription: >2\n   indented\n",
        "name: demo\ndescription: |-2\n  x\n",
        "name: demo\ndescription: | # comment\n  x\n",
        "name: demo\ndescription: |  \n  x\n",
        "name: demo\ndescription: >\n\n  after an empty line\n",
        "name: demo\ndescription: >\n  one\n    more indented\n  two\n",
        "name: demo\ndescription: >\n  one\n  \n  two\n",
        "name: demo\ndescription: >\n  trailing space \n",
        "name: demo\ndescription: >\n    four\n  two\n",
        "name: demo\ndescription: >\nlicense: MIT\n",
        "name: demo\ndescription: >\n",
        "name: demo\ndescription: >x\n  y\n",
        "name: demo\ntags:\n  - |\n    x\ndescription: x\n",
        "name: demo\ndescription: &a x\nlicense: *a\n",
        "name: demo\ndescription: !!str x\n",
        "name: demo\ndescription: x\nmetadata: {a: b}\n",
        "name: demo\ndescription: 'open\n  quote'\n",
        "name: demo\ndescription: \"open\n  quote\"\n",
        "name: demo\ndescription: \"\\x41\\u00e9\"\n",
        "name: demo\ndescription:\tx\n",
        "name: demo\ndescription: x\nlicense:\n",
        "name: demo\ndescription: x\nmetadata:\n",
        "name: demo\ndescription: x\n  # indented comment\n",
        "name: demo\ndescription: Use when: asked\n",
        "name: demo\ndescription: x:\n",
        "name: demo\ndescription: - x\n",
        "name: demo\ndescription: 'x' y\n",
        "name: demo\ndescription: \"x\"y\n",
        "name: demo\ndescription: x\n- item\n",
        "  name: demo\n  description: x\n",
        "name : demo\ndescription: x\n",
        "\"name\": demo\ndescription: x\n",
        "null: demo\ndescription: x\n",
        "name: demo\ndescription: x\nmetadata:\n  a: b\n   c: d\n",
        "name: demo\ndescription: x\nmetadata:\n    a: b\n  c: d\n",
        "name: demo\ndescription: x\ntags:\n  - a: b\n     c: d\n",
        "name: demo\ndescription: x\ntags:\n  - a: b\n   c: d\n",
        "name: demo\ndescription: x\ntags:\n  - a: b\n    - c\n",
        "name: demo\ndescription: x\ntags:\n  - a: b\n  - 'k': v\n",
        "name: demo\ndescription: x\ntags:\n  - k: v: w\n",
        "name: demo\ndescription: x\ntags:\n  - a: &x b\n",
        "name: demo\ndescription: x\ntags:\n  -\n  - b\n",
        "name: demo\ndescription: x\ntags:\n  - - a\n",
        "name: demo\ndescription: x \xC2\x85 y\n",
        "name: demo\ndescription: x \xE2\x80\xA8 y\n",
        "name: demo\ndescription: \xEF\xBB\xBFx\n",
        "%YAML 1.2\nname: demo\ndescription: x\n",
        "? name\n: demo\ndescription: x\n",
        "name: demo\ndescription: x\n...\n",
        "name: demo\ndescription: @x\n",
        "name: demo\ndescription: `x`\n",
        "name: demo\ndescription: x\x01y\n",
        "name: demo\ndescription: x\nlicense: # nothing\n",
    };
    for (const std::string& fm : declined) {
        INFO(fm);
        CHECK_FALSE(detail::read_common_yaml(fm).has_value());
        CHECK_FALSE(same_both_ways(skill(fm), fm));
    }
    // Whole files around the frontmatter: CRLF, a byte-order mark, no closing line, a body only.
    for (const std::string& text : {std::string("---\r\nname: demo\r\ndescription: x\r\n---\r\nBody\r\n"),
                                    std::string("\xEF\xBB\xBF---\nname: demo\ndescription: x\n---\nBody\n"),
                                    std::string("---\nname: demo\ndescription: x\n"), std::string("Body only\n"),
                                    std::string("---\nname: demo\ndescription: x\n---\n")}) {
        (void)same_both_ways(text, text);
    }
}

TEST_CASE("fast path: the JSON budget applies to the trees it builds", "[parser][fast-path]") {
    // One long scalar past SKILL_MAX_FRONTMATTER_JSON_BYTES: the same refusal both ways.
    std::string fm =
        "name: demo\ndescription: x\nnotes: " + std::string(SKILL_MAX_FRONTMATTER_JSON_BYTES + 10, 'a') + "\n";
    REQUIRE(detail::read_common_yaml(fm).has_value());
    ParseOptions opt;
    opt.max_bytes = 0;
    opt.max_lines = 0;
    const ParseResult fast = parse_with(skill(fm), opt, true);
    CHECK(seen(fast) == seen(parse_with(skill(fm), opt, false)));
    REQUIRE_FALSE(fast.ok());
    REQUIRE(!fast.diagnostics.empty());
    CHECK(fast.diagnostics.front().code == "yaml-too-complex");
}

TEST_CASE("fast path: its trees stay within the JSON bound read_yaml_tree relies on", "[parser][fast-path]") {
    // read_yaml_tree does not walk a fast-path tree when fast_path_json_bound(size) is within the
    // limit: 50 bytes per node (depth) and 6 per byte of text (escapes) must hold for the shapes
    // that come closest.
    const auto nodes_of = [](const detail::YNode& root) {
        std::size_t n = 0;
        std::vector<const detail::YNode*> todo{&root};
        while (!todo.empty()) {
            const detail::YNode* x = todo.back();
            todo.pop_back();
            ++n;
            for (const auto& c : x->items) todo.push_back(&c);
        }
        return n;
    };
    std::vector<std::string> texts;
    // The deepest nesting the fast path reads, with one-byte scalars.
    std::string deepest;
    for (std::size_t depth = 1; depth < 20; ++depth) {
        std::string fm = "name: demo\n";
        for (std::size_t i = 0; i < depth; ++i) fm += std::string(2 * i, ' ') + "k:\n";
        fm += std::string(2 * depth, ' ') + "a: b\n" + std::string(2 * depth, ' ') + "c:\n" +
              std::string(2 * depth, ' ') + "- d\n";
        if (!detail::read_common_yaml(fm)) break;
        deepest = fm;
    }
    REQUIRE_FALSE(deepest.empty());
    texts.push_back(deepest);
    // Escapes that cost the most JSON per byte of text (a control character: `\n`, `\t`), and
    // quotes and backslashes in every scalar form.
    std::string escapes = "name: demo\nnotes: \"";
    for (int i = 0; i < 5000; ++i) escapes += "\\n\\t\\\"\\\\";
    escapes += "\"\nq: 'a\"b\\c'\nplain: a\"b\\c\nblock: |\n  \"\\\n  \\\"\n";
    texts.push_back(escapes);
    // Many nodes: a long list of one-byte items, and many one-byte keys.
    std::string items = "name: demo\ntags:\n";
    for (int i = 0; i < 19000; ++i) items += "  - x\n";
    texts.push_back(items);
    std::string keys = "name: demo\nm:\n";
    for (int i = 0; i < 9000; ++i) keys += "  k" + std::to_string(i) + ": v\n";
    texts.push_back(keys);
    for (const std::string& fm : texts) {
        INFO(fm.substr(0, 80));
        const std::optional<detail::YNode> tree = detail::read_common_yaml(fm);
        REQUIRE(tree.has_value());
        const std::size_t nodes = nodes_of(*tree);
        CHECK(nodes <= detail::fast_path_max_nodes);
        const std::size_t charge = detail::json_charge(*tree);
        CHECK(charge <= detail::fast_path_json_per_node * nodes + detail::fast_path_json_per_byte * fm.size());
        CHECK(charge <= detail::fast_path_json_bound(fm.size()));
    }
    // Each repetition of 8 bytes of text (`\n\t\"\\` escaped) costs 16 bytes of JSON (6 for each
    // control character, 2 for the quote and the backslash): 2 per byte, a third of the bound's 6.
    const std::size_t charge = detail::json_charge(*detail::read_common_yaml(escapes));
    CHECK(charge >= 16 * 5000);
    // Under a limit below the bound the walk runs, and refuses what passes the limit.
    detail::YamlOptions small;
    small.bounds.max_json_bytes = charge - 1;
    const detail::YamlTree refused = detail::read_yaml_tree(escapes, small);
    REQUIRE(refused.problem.has_value());
    CHECK(refused.problem->kind == detail::YamlProblem::Kind::json_bytes);
    small.bounds.max_json_bytes = charge;
    CHECK_FALSE(detail::read_yaml_tree(escapes, small).problem.has_value());
}

}  // namespace parse_fast_tests
