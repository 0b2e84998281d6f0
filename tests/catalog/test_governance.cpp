// Tests of governance.hpp and the admission stage of FilesystemSkillLoader: override modes and
// their precedence, trust of roots and the trust callback, nested skills and their bounds, and
// the skills configuration file.
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "agentskills/activation/activation.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/catalog.hpp"
#include "agentskills/catalog/governance.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/host/host.hpp"
#include "agentskills/shim/skills_shim.hpp"

#include "fs_fixtures.hpp"

// =======================================================================================
// Tests of governance.hpp and the admission stage of FilesystemSkillLoader: override modes and

namespace governance_tests {

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

std::shared_ptr<MemorySkillReader> four_skills() {
    auto reader = std::make_shared<MemorySkillReader>();
    reader->add_file("lib/alpha/SKILL.md", skill_md("alpha", "Alpha does a."));
    reader->add_file("lib/beta/SKILL.md", skill_md("beta", "Beta does b."));
    reader->add_file("lib/gamma/SKILL.md", skill_md("gamma", "Gamma does c."));
    reader->add_file("lib/delta/SKILL.md", skill_md("delta", "Delta does d."));
    return reader;
}

std::vector<std::string> names_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

const SkippedSkill* skipped_named(const Discovery& d, std::string_view path) {
    for (const auto& s : d.skipped) {
        if (s.path == path) return &s;
    }
    return nullptr;
}

bool has_code(const Discovery& d, std::string_view code, std::string_view path = {}) {
    for (const auto& x : d.diagnostics) {
        if (x.code == code && (path.empty() || x.path == path)) return true;
    }
    return false;
}

std::vector<OverrideRule> mixed_rules() {
    return {
        {.name = "", .path = "*", .mode = SkillMode::name_only},
        {.name = "alpha", .path = "", .mode = SkillMode::on},
        {.name = "gamma", .path = "", .mode = SkillMode::user_invocable_only},
        {.name = "delta", .path = "", .mode = SkillMode::off},
    };
}

}  // namespace

TEST_CASE("override modes: later rules win, off is skipped as disabled", "[governance][overrides]") {
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {"lib"}, .reader = four_skills(), .overrides = mixed_rules()});
    Discovery d = loader->discover();
    CHECK(names_of(d) == std::vector<std::string>{"alpha", "beta", "gamma"});
    CHECK(d.skills[0].mode == SkillMode::on);
    CHECK(d.skills[1].mode == SkillMode::name_only);
    CHECK(d.skills[2].mode == SkillMode::user_invocable_only);
    CHECK_FALSE(d.skills[2].model_invocable());
    const SkippedSkill* off = skipped_named(d, "lib/delta/SKILL.md");
    REQUIRE(off != nullptr);
    CHECK(off->reason == SkipReason::disabled);
    CHECK(to_string(off->reason) == "disabled");
    CHECK(off->message == "lib/delta/SKILL.md: skill 'delta' is turned off by an override rule");
    CHECK(has_code(d, codes::skill_disabled, "lib/delta/SKILL.md"));
    CHECK(nlohmann::json(d.skills[2]).at("mode") == "user-invocable-only");
    CHECK(nlohmann::json(d.skills[0]).at("mode") == "on");

    // load() knows the modes and refuses what was turned off.
    CHECK(loader->load("beta").manifest.mode == SkillMode::name_only);
    CHECK_THROWS_AS(loader->load("delta"), NotFoundError);
    // The same on a second, reused discovery.
    Discovery again = loader->discover();
    CHECK(names_of(again) == names_of(d));
    CHECK(again.skills[1].mode == SkillMode::name_only);
}

TEST_CASE("override modes: the exact prompt block and what the model may activate", "[governance][overrides]") {
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {"lib"}, .reader = four_skills(), .overrides = mixed_rules()});
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    SkillsShim shim({.catalog = catalog});
    SkillsPrompt p = shim.render_prompt(*catalog);
    const std::string block =
        "<available_skills>\n"
        "  <skill>\n"
        "    <name>alpha</name>\n"
        "    <description>Alpha does a.</description>\n"
        "    <location>lib/alpha/SKILL.md</location>\n"
        "  </skill>\n"
        "  <skill>\n"
        "    <name>beta</name>\n"
        "    <location>lib/beta/SKILL.md</location>\n"
        "  </skill>\n"
        "</available_skills>";
    CHECK(p.text.find(block) != std::string::npos);
    CHECK(p.listed == std::vector<std::string>{"alpha", "beta"});
    CHECK(p.text.find("gamma") == std::string::npos);
    CHECK(p.text.find("delta") == std::string::npos);

    SkillActivator model(catalog);
    CHECK(model.invocable_names() == std::vector<std::string>{"alpha", "beta"});
    MemoryActivationStore store;
    CHECK(model.activate_name(store, "gamma").status == ActivationStatus::unknown_name);
    CHECK(model.activate_name(store, "delta").status == ActivationStatus::unknown_name);
    CHECK(model.activate_name(store, "beta").status == ActivationStatus::content);
    // A host activating for a person reaches the user-invocable-only skill.
    SkillActivator host(catalog, {.model_invocable_only = false});
    MemoryActivationStore host_store;
    CHECK(host.activate_name(host_store, "gamma").status == ActivationStatus::content);
}

TEST_CASE("override modes: host catalogs offer user-invocable-only skills, not off ones", "[governance][overrides]") {
    SkillsConfig config{.directories = {"lib"}, .overrides = mixed_rules()};
    HostCatalog catalog = load_host_catalog(config, four_skills());
    REQUIRE(catalog.find("gamma") != nullptr);
    CHECK_FALSE(catalog.find("gamma")->model_invocable);
    CHECK(catalog.find("beta")->model_invocable);
    CHECK(catalog.find("delta") == nullptr);
    REQUIRE(catalog.skipped.size() == 1);
    CHECK(catalog.skipped[0].reason == SkipReason::disabled);
}

TEST_CASE("overrides apply after include and exclude", "[governance][overrides]") {
    SECTION("an excluded skill stays out whatever a rule says") {
        FilesystemSkillLoader loader({.roots = {"lib"},
                                      .reader = four_skills(),
                                      .exclude = {"beta"},
                                      .overrides = {{.name = "beta", .path = "", .mode = SkillMode::on}}});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"alpha", "delta", "gamma"});
        CHECK(d.skipped.empty());
    }
    SECTION("an included skill turned off is skipped as disabled, and include still checks names") {
        FilesystemSkillLoader loader({.roots = {"lib"},
                                      .reader = four_skills(),
                                      .include = std::vector<std::string>{"alpha", "delta"},
                                      .overrides = {{.name = "delta", .path = "", .mode = SkillMode::off}}});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"alpha"});
        REQUIRE(d.skipped.size() == 1);
        CHECK(d.skipped[0].reason == SkipReason::disabled);
    }
    SECTION("a path rule matches the directory relative to the library") {
        FilesystemSkillLoader loader({.roots = {"lib"},
                                      .reader = four_skills(),
                                      .overrides = {{.name = "", .path = "[ab]*", .mode = SkillMode::off},
                                                    {.name = "", .path = "lib/*", .mode = SkillMode::off}}});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"delta", "gamma"});
    }
    SECTION("a rule with both or neither of name and path is refused") {
        CHECK_THROWS_AS(FilesystemSkillLoader({.reader = four_skills(),
                                               .overrides = {{.name = "a", .path = "b", .mode = SkillMode::off}}}),
                        ConfigurationError);
        CHECK_THROWS_AS(FilesystemSkillLoader(
                            {.reader = four_skills(), .overrides = {{.name = "", .path = "", .mode = SkillMode::off}}}),
                        ConfigurationError);
    }
}

TEST_CASE("override_mode and override_matches", "[governance][overrides]") {
    const std::vector<OverrideRule> rules = {{.name = "", .path = "team/*", .mode = SkillMode::name_only},
                                             {.name = "team:keep", .path = "", .mode = SkillMode::on}};
    CHECK(override_mode(rules, "team:review", "team/review") == SkillMode::name_only);
    CHECK(override_mode(rules, "team:keep", "team/keep") == SkillMode::on);
    CHECK(override_mode(rules, "other", "other") == SkillMode::on);
    // `*` does not cross '/'.
    CHECK(override_mode(rules, "team:ops:deploy", "team/ops/deploy") == SkillMode::on);
    SkillMode m = SkillMode::on;
    CHECK(parse_skill_mode("user-invocable-only", m));
    CHECK(m == SkillMode::user_invocable_only);
    CHECK_FALSE(parse_skill_mode("Off", m));
}

TEST_CASE("trust: the callback decides for untrusted roots only", "[governance][trust]") {
    auto reader = std::make_shared<MemorySkillReader>();
    reader->add_file("mine/own/SKILL.md", skill_md("own", "Mine."));
    reader->add_file("theirs/friendly/SKILL.md", skill_md("friendly", "Allowed."));
    reader->add_file("theirs/sneaky/SKILL.md", skill_md("sneaky", "Denied."));
    auto asked = std::make_shared<std::vector<std::string>>();
    FilesystemSkillLoader loader({.roots = {"mine", "theirs"},
                                  .reader = reader,
                                  .untrusted_roots = {"theirs"},
                                  .trust = [asked](const SkillManifest& m) {
                                      asked->push_back(m.name);
                                      return m.name == "friendly" ? TrustDecision::allow : TrustDecision::deny;
                                  }});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"own", "friendly"});
    CHECK(*asked == std::vector<std::string>{"friendly", "sneaky"});
    const SkippedSkill* denied = skipped_named(d, "theirs/sneaky/SKILL.md");
    REQUIRE(denied != nullptr);
    CHECK(denied->reason == SkipReason::untrusted);
    CHECK(denied->message ==
          "theirs/sneaky/SKILL.md: skill 'sneaky' comes from the untrusted root theirs and was not allowed");
    CHECK(has_code(d, codes::skill_untrusted, "theirs/sneaky/SKILL.md"));
    CHECK_THROWS_AS(loader.load("sneaky"), NotFoundError);
    // Asked again on the next discovery (a reused one).
    asked->clear();
    CHECK(names_of(loader.discover()) == std::vector<std::string>{"own", "friendly"});
    CHECK(asked->size() == 2);
}

TEST_CASE("trust: without a callback, or asking for an absent lock, untrusted skills are withheld",
          "[governance][trust]") {
    auto reader = std::make_shared<MemorySkillReader>();
    reader->add_file("mine/own/SKILL.md", skill_md("own", "Mine."));
    reader->add_file("theirs/other/SKILL.md", skill_md("other", "Theirs."));
    SECTION("no callback") {
        FilesystemSkillLoader loader({.roots = {"mine", "theirs"}, .reader = reader, .untrusted_roots = {"theirs"}});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"own"});
        REQUIRE(d.skipped.size() == 1);
        CHECK(d.skipped[0].reason == SkipReason::untrusted);
        CHECK(d.skipped[0].message.find("(no trust callback)") != std::string::npos);
    }
    SECTION("the callback asks for the lock and none is given") {
        FilesystemSkillLoader loader({.roots = {"mine", "theirs"},
                                      .reader = reader,
                                      .untrusted_roots = {"theirs"},
                                      .trust = [](const SkillManifest&) { return TrustDecision::lock; }});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"own"});
        REQUIRE(d.skipped.size() == 1);
        CHECK(d.skipped[0].reason == SkipReason::untrusted);
        CHECK(d.skipped[0].message.find("none is given") != std::string::npos);
    }
    SECTION("a callback that throws denies") {
        FilesystemSkillLoader loader(
            {.roots = {"mine", "theirs"},
             .reader = reader,
             .untrusted_roots = {"theirs"},
             .trust = [](const SkillManifest&) -> TrustDecision { throw std::runtime_error("boom"); }});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"own"});
        CHECK(d.skipped.at(0).message.find("boom") != std::string::npos);
    }
    SECTION("an untrusted root that is not scanned is a configuration error") {
        CHECK_THROWS_AS(FilesystemSkillLoader({.roots = {"mine"}, .reader = reader, .untrusted_roots = {"theirs"}}),
                        ConfigurationError);
    }
    SECTION("overrides come first: a skill turned off is never offered to the callback") {
        int calls = 0;
        FilesystemSkillLoader loader({.roots = {"mine", "theirs"},
                                      .reader = reader,
                                      .overrides = {{.name = "other", .path = "", .mode = SkillMode::off}},
                                      .untrusted_roots = {"theirs"},
                                      .trust = [&calls](const SkillManifest&) {
                                          ++calls;
                                          return TrustDecision::allow;
                                      }});
        Discovery d = loader.discover();
        CHECK(calls == 0);
        CHECK(d.skipped.at(0).reason == SkipReason::disabled);
    }
}

TEST_CASE("trust: the project root ./.agents/skills can be untrusted", "[governance][trust]") {
    TempDir dir;
    dir.write(".agents/skills/repo-skill/SKILL.md", skill_md("repo-skill", "From the repository."));
    auto local = std::make_shared<LocalSkillReader>(dir.path());
    FilesystemSkillLoader trusting({.reader = local});
    CHECK(names_of(trusting.discover()) == std::vector<std::string>{"repo-skill"});
    FilesystemSkillLoader wary({.reader = local, .untrusted_project_root = true});
    Discovery d = wary.discover();
    CHECK(d.skills.empty());
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].reason == SkipReason::untrusted);
    CHECK(d.skipped[0].path == dir.path(".agents/skills/repo-skill/SKILL.md"));
}

// ---------------------------------------------------------------------------------------
// Nested skills

namespace {

std::string named(std::string_view name) { return skill_md(name, "Does " + std::string(name) + "."); }

}  // namespace

TEST_CASE("nested skills: groups give group:skill names, hidden and ignored directories are skipped",
          "[governance][nested]") {
    TempDir lib;
    lib.write("plain/SKILL.md", named("plain"));
    lib.write("team/review/SKILL.md", named("review"));
    lib.write("team/review/sub/SKILL.md", named("sub"));  // a resource of review, not a skill
    lib.write("team/ops/deploy/SKILL.md", named("deploy"));
    lib.write(".hidden/x/SKILL.md", named("x"));
    lib.write("team/.cache/y/SKILL.md", named("y"));
    lib.write("ignored/y/SKILL.md", named("y"));
    lib.write("vendor/tmp-stuff/SKILL.md", named("tmp-stuff"));
    lib.write("vendor/keep/SKILL.md", named("keep"));
    lib.write("deep/inner/z/SKILL.md", named("z"));
    lib.write("Bad Group/w/SKILL.md", named("w"));
    lib.write(".gitignore", "# comment\n\nignored/\ntmp-*\n/deep/inner\n!vendor/tmp-stuff\n");

    SECTION("off by default") {
        FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"plain"});
    }
    SECTION("depth 4") {
        FilesystemSkillLoader loader({.roots = {lib.path()},
                                      .include_default_roots = false,
                                      .name_policy = NamePolicy::require_valid,
                                      .nested_depth = SKILL_NESTED_DEFAULT_DEPTH});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"plain", "team:ops:deploy", "team:review", "vendor:keep"});
        CHECK(d.skipped.empty());
        CHECK(has_code(d, codes::nested_group_refused, lib.path("Bad Group")));
        LoadedSkill review = loader.load("team:review");
        CHECK(review.manifest.root == lib.path("team/review"));
        CHECK(review.resources == std::vector<SkillResource>{{"sub/SKILL.md"}});
        CHECK(loader.load("team:ops:deploy").instructions == "Body.");
        // An edit below a group is seen by the next discovery (no snapshot reuse).
        lib.write("team/fresh/SKILL.md", named("fresh"));
        CHECK(names_of(loader.discover()) ==
              std::vector<std::string>{"plain", "team:fresh", "team:ops:deploy", "team:review", "vendor:keep"});
    }
    SECTION("depth 1: a group below a group is reported, not searched") {
        FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false, .nested_depth = 1});
        Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"plain", "team:review", "vendor:keep"});
        CHECK(has_code(d, codes::nested_limit, lib.path("team/ops")));
    }
    SECTION("overrides see the nested path and name") {
        FilesystemSkillLoader loader({.roots = {lib.path()},
                                      .include_default_roots = false,
                                      .overrides = {{.name = "", .path = "team/*", .mode = SkillMode::off},
                                                    {.name = "team:review", .path = "", .mode = SkillMode::on}},
                                      .nested_depth = 4});
        CHECK(names_of(loader.discover()) ==
              std::vector<std::string>{"plain", "team:ops:deploy", "team:review", "vendor:keep"});
        FilesystemSkillLoader by_depth({.roots = {lib.path()},
                                        .include_default_roots = false,
                                        .overrides = {{.name = "", .path = "team/*/*", .mode = SkillMode::off}},
                                        .nested_depth = 4});
        CHECK(names_of(by_depth.discover()) == std::vector<std::string>{"plain", "team:review", "vendor:keep"});
    }
}

TEST_CASE("nested skills: the depth bound", "[governance][nested]") {
    TempDir lib;
    lib.write("a/b/c/d/four/SKILL.md", named("four"));
    lib.write("a/b/c/d/e/five/SKILL.md", named("five"));
    FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false, .nested_depth = 4});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"a:b:c:d:four"});
    CHECK(has_code(d, codes::nested_limit, lib.path("a/b/c/d/e")));
}

TEST_CASE("nested skills: the directory bound is a diagnostic, not a truncation in silence", "[governance][nested]") {
    TempDir lib;
    for (const char* n : {"s1", "s2", "s3", "s4"}) lib.write(std::string("g/") + n + "/SKILL.md", named(n));
    lib.write("h/s5/SKILL.md", named("s5"));
    FilesystemSkillLoader loader(
        {.roots = {lib.path()}, .include_default_roots = false, .nested_depth = 4, .nested_max_directories = 3});
    Discovery d = loader.discover();
    // g, g/s1 and g/s2 are listed; then the bound is reached.
    CHECK(names_of(d) == std::vector<std::string>{"g:s1", "g:s2"});
    std::size_t limits = 0;
    for (const auto& x : d.diagnostics) {
        if (x.code == codes::nested_limit) {
            ++limits;
            CHECK(x.severity == Severity::warning);
            CHECK(x.path == lib.path());
            CHECK(x.message.find("limit of 3 directories") != std::string::npos);
        }
    }
    CHECK(limits == 1);
    CHECK(SKILL_NESTED_MAX_DIRECTORIES == 2000);
    CHECK(FilesystemLoaderOptions{}.nested_max_directories == 2000);
}

TEST_CASE("nested skills: the group separator never reaches a tool name", "[governance][nested]") {
    TempDir lib;
    lib.write("team/review/SKILL.md", named("review"));
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {lib.path()}, .include_default_roots = false, .nested_depth = 2});
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    SkillActivator activator(catalog);
    CHECK(activator.tool_spec().name == "activate_skill");
    MemoryActivationStore store;
    ActivationResult r = activator.activate(store, R"({"name":"team:review"})");
    CHECK(r.status == ActivationStatus::content);
    CHECK(r.text.rfind("<skill_content name=\"team:review\">", 0) == 0);
}

// ---------------------------------------------------------------------------------------
// The skills configuration file

TEST_CASE("skills config: rules in order", "[governance][config]") {
    GovernanceConfig c = parse_governance_config(
        "skills:\n"
        "  overrides:\n"
        "    - name: code-review\n"
        "      mode: name-only\n"
        "    - path: \"team/*\"\n"
        "      mode: off\n");
    REQUIRE(c.overrides.size() == 2);
    CHECK(c.overrides[0].name == "code-review");
    CHECK(c.overrides[0].mode == SkillMode::name_only);
    CHECK(c.overrides[1].path == "team/*");
    CHECK(c.overrides[1].mode == SkillMode::off);
    CHECK(parse_governance_config("").overrides.empty());
}

TEST_CASE("skills config: the loader's limits", "[governance][config]") {
    const GovernanceConfig c = parse_governance_config("skills:\n  max_lines: 0\n  max_bytes: 2097152\n");
    CHECK(c.max_lines == std::optional<std::size_t>(0));
    CHECK(c.max_bytes == std::optional<std::size_t>(2097152));
    CHECK(c.overrides.empty());
    const GovernanceConfig none = parse_governance_config("skills:\n  overrides: []\n");
    CHECK_FALSE(none.max_lines.has_value());
    CHECK_FALSE(none.max_bytes.has_value());
}

TEST_CASE("skills config: the limits preset and the other agents' folders (issue 36)", "[governance][config]") {
    const GovernanceConfig c =
        parse_governance_config("skills:\n  limits: agents\n  compat: [claude, copilot, gemini, opencode, codex]\n");
    CHECK(c.limits == std::optional<LoaderLimits>(LoaderLimits::agents));
    REQUIRE(c.compat.has_value());
    CHECK(*c.compat == std::vector<AgentFolders>{AgentFolders::claude, AgentFolders::copilot, AgentFolders::gemini,
                                                 AgentFolders::opencode, AgentFolders::codex});
    CHECK_FALSE(c.max_lines.has_value());
    const GovernanceConfig none = parse_governance_config("skills:\n  max_lines: 10\n");
    CHECK_FALSE(none.limits.has_value());
    CHECK_FALSE(none.compat.has_value());
    CHECK(parse_governance_config("skills:\n  limits: standard\n  compat: []\n").compat ==
          std::optional<std::vector<AgentFolders>>(std::vector<AgentFolders>{}));
}

TEST_CASE("skills config: errors name the line", "[governance][config]") {
    auto message = [](std::string_view text) {
        try {
            (void)parse_governance_config(text);
        } catch (const ConfigurationError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(
        message("skills:\n  overrides:\n    - name: a\n      mode: on\n    - path: \"t/*\"\n      mode: sometimes\n") ==
        "skills config: line 6: override rule 2, 'mode': unknown mode 'sometimes' (accepted: on, name-only, "
        "user-invocable-only, off)");
    CHECK(message("skills:\n  overrides:\n    - name: a\n      path: b\n      mode: on\n") ==
          "skills config: line 3: override rule 1: a rule needs exactly one of 'name' and 'path'");
    CHECK(message("skills:\n  overrides:\n    - name: a\n") ==
          "skills config: line 3: override rule 1: a rule needs 'mode' (on, name-only, user-invocable-only, off)");
    CHECK(message("skills:\n  overrides:\n    - name: a\n      mode: on\n      colour: red\n") ==
          "skills config: line 5: override rule 1, 'colour': unknown key (accepted: name, path, mode)");
    CHECK(message("skills:\n  other: 1\n") ==
          "skills config: unknown key 'other' under 'skills' (accepted: max_lines, max_bytes, limits, yaml_recovery, "
          "compat, overrides)");
    CHECK(message("skills:\n  limits: lax\n") == "skills config: 'limits' must be 'standard' or 'agents', not 'lax'");
    CHECK(message("skills:\n  yaml_recovery: lenient\n") ==
          "skills config: 'yaml_recovery' must be 'none' or 'plain_values', not 'lenient'");
    CHECK(message("skills:\n  compat: claude\n") ==
          "skills config: 'compat' must be a list of agent names, not 'claude'");
    CHECK(message("skills:\n  compat: [claude, cursor]\n") ==
          "skills config: 'compat' must be 'claude', 'copilot', 'gemini', 'opencode' or 'codex', not 'cursor'");
    CHECK(message("skills:\n  max_lines: -1\n") ==
          "skills config: 'max_lines' must be a count (digits 0-9, 0 = no limit), not '-1'");
    CHECK(message("skills:\n  max_bytes: [1]\n") ==
          "skills config: 'max_bytes' must be a count (digits 0-9, 0 = no limit), not [\"1\"]");
    CHECK(message("skills:\n  max_lines: 99999999999999999999999\n").find("must be a count") != std::string::npos);
    CHECK(message("skilz: {}\n") == "skills config: unknown top-level key 'skilz' (accepted: skills)");
    CHECK(message("skills:\n  overrides: [\n").find("invalid YAML") != std::string::npos);
    // Bounds: the agent spec budgets apply (here, depth).
    std::string deep = "skills:\n  overrides:\n    - name: ";
    for (int i = 0; i < 100; ++i) deep += "[";
    for (int i = 0; i < 100; ++i) deep += "]";
    deep += "\n";
    CHECK(message(deep).find("deeper than the limit") != std::string::npos);
    AgentSpecLimits small;
    small.max_bytes = 10;
    CHECK_THROWS_WITH(parse_governance_config("skills:\n  overrides: []\n", small),
                      Catch::Contains("more than the limit of 10"));
}

TEST_CASE("skills config: files, and overrides in agent specs", "[governance][config]") {
    TempDir dir;
    dir.write("config.yaml", "skills:\n  overrides:\n    - name: x\n      mode: bogus\n");
    CHECK_THROWS_WITH(load_governance_config(dir.path("config.yaml")),
                      Catch::StartsWith("skills config '" + dir.path("config.yaml") + "': line 4: override rule 1"));
    CHECK_THROWS_WITH(load_governance_config(dir.path("missing.yaml")), Catch::Contains("missing.yaml"));
    // Read as agent specs are (one reader for both): bounded, and nothing but a regular file.
    AgentSpecLimits small;
    small.max_bytes = 16;
    dir.write("big.yaml", "skills:\n  overrides: []\n");
    CHECK_THROWS_WITH(load_governance_config(dir.path("big.yaml"), small),
                      "skills config '" + dir.path("big.yaml") + "': the file is larger than the limit of 16 bytes");
    dir.mkdir("folder.yaml");
    CHECK_THROWS_WITH(load_governance_config(dir.path("folder.yaml")),
                      Catch::StartsWith("skills config: ") && Catch::Contains("folder.yaml"));

    std::vector<SkillsConfig> specs = parse_agent_spec(
        "capabilities:\n  - Skills:\n      directories: [lib]\n      overrides:\n        - name: a\n          mode: "
        "off\n",
        SpecFormat::yaml);
    REQUIRE(specs.size() == 1);
    REQUIRE(specs[0].overrides.size() == 1);
    CHECK(specs[0].overrides[0].mode == SkillMode::off);
    CHECK_THROWS_WITH(
        parse_agent_spec("directories: [lib]\noverrides:\n  - name: a\n    mode: maybe\n", SpecFormat::yaml),
        Catch::StartsWith("agent spec: 'overrides' item 1, 'mode': unknown mode 'maybe'"));
}

TEST_CASE("nested skills: a .gitignore over its bound is not applied, and says so", "[governance][nested]") {
    TempDir lib;
    lib.write("ignored/y/SKILL.md", named("y"));
    lib.write(".gitignore", "ignored/\n" + std::string(SKILL_GITIGNORE_MAX_BYTES, '#'));
    FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false, .nested_depth = 2});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"ignored:y"});
    CHECK(has_code(d, codes::nested_limit, lib.path(".gitignore")));
    // Within the bound, the same pattern applies.
    lib.write(".gitignore", "ignored/\n");
    CHECK(loader.discover().skills.empty());
}

TEST_CASE("nested skills: a .gitignore of more patterns than its bound is not applied, and says so",
          "[governance][nested][hostile]") {
    // Every directory the walk meets is matched against every pattern: 32,000 two-byte patterns
    // (within 64 KiB) cost 2.3 s over 2,000 directories in the ASan build, and the ignored
    // directories do not count toward the walk's bound of listed directories.
    constexpr std::size_t bound = SKILL_GITIGNORE_MAX_PATTERNS;
    REQUIRE(bound == 1'000);
    TempDir lib;
    lib.write("ignored/y/SKILL.md", named("y"));
    std::string patterns = "# comments, blank lines and negations are not patterns\n\n!x\nignored/\n";
    for (std::size_t i = 1; i < bound; ++i) patterns += "p" + std::to_string(i) + "\n";
    lib.write(".gitignore", patterns);
    FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false, .nested_depth = 2});
    CHECK(loader.discover().skills.empty());  // the bound itself: applied

    lib.write(".gitignore", patterns + "one-more\n");
    const Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"ignored:y"});
    std::vector<std::string> messages;
    for (const Diagnostic& diag : d.diagnostics) {
        if (diag.code == codes::nested_limit && diag.path == lib.path(".gitignore")) messages.push_back(diag.message);
    }
    CHECK(messages == std::vector<std::string>{lib.path(".gitignore") +
                                               " holds more than 1000 patterns; its patterns are not applied to the "
                                               "nested walk"});
}

}  // namespace governance_tests
