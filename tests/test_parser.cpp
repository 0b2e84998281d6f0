#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include <agentskills/base/names.hpp>
#include <agentskills/parse/parser.hpp>

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
