// Output hardening (issue 12): every text that reaches JSON or the model is valid UTF-8 and
// free of control characters, whatever bytes a file name or a field holds.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/diagnostics.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/base/skill.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/harness.hpp>

using namespace agentskills;
using namespace std::string_literals;

namespace {

constexpr const char* fffd = "\xEF\xBF\xBD";

SkillManifest manifest_with_bad_bytes() {
    SkillManifest m;
    m.name = "bad\xff";
    m.description = "desc\xfe";
    m.skill_file = "/lib/\xff\xfe/SKILL.md";
    m.root = "/lib/\xff\xfe";
    m.library = "/lib\xc0";
    m.license = "MIT\xff";
    m.allowed_tools = {"Read\xff"};
    m.tags = {"t\xff"};
    m.metadata.emplace_back("k\xff", "v\xff");
    return m;
}

}  // namespace

TEST_CASE("to_json of a manifest, diagnostic and skipped skill is valid UTF-8 for any bytes", "[output][utf8]") {
    const SkillManifest m = manifest_with_bad_bytes();
    const nlohmann::json j = m;
    std::string text;
    REQUIRE_NOTHROW(text = j.dump());
    CHECK(is_valid_utf8(text));
    CHECK(j["location"] == "/lib/"s + fffd + fffd + "/SKILL.md");
    CHECK(j["root"] == "/lib/"s + fffd + fffd);
    CHECK(j["name"] == "bad"s + fffd);
    CHECK(j["metadata"]["k"s + fffd] == "v"s + fffd);
    CHECK(j["allowed-tools"][0] == "Read"s + fffd);

    const Diagnostic d{.code = "c", .severity = Severity::warning, .path = "/x\xff", .line = 3, .message = "m\xfe"};
    const nlohmann::json jd = d;
    REQUIRE_NOTHROW((void)jd.dump());
    CHECK(jd.dump() ==
          "{\"code\":\"c\",\"line\":3,\"message\":\"m\xEF\xBF\xBD\",\"path\":\"/x\xEF\xBF\xBD\","
          "\"severity\":\"warning\"}");

    const SkippedSkill s{.path = "/y\xff", .reason = SkipReason::unreadable, .message = "no\xff"};
    const nlohmann::json js = s;
    CHECK(js.dump() == "{\"message\":\"no\xEF\xBF\xBD\",\"path\":\"/y\xEF\xBF\xBD\",\"reason\":\"unreadable\"}");
}

TEST_CASE("a request whose messages hold bad bytes serializes", "[output][utf8][harness]") {
    ModelRequest request;
    request.messages.push_back(system_message("system \xff prompt"));
    request.messages.push_back(
        assistant_message("", {ToolCall{.id = "c\xff", .name = "n\xfe", .arguments = "{}\xff"}}));
    request.messages.push_back(tool_message("c\xff", "n\xfe", "result at /lib/\xff\xfe/notes.md"));
    request.tools.push_back(ToolSpec{.name = "t\xff", .description = "d\xff", .parameters = nlohmann::json::object()});
    const nlohmann::json j = to_json(request, "model");
    std::string text;
    REQUIRE_NOTHROW(text = j.dump());
    CHECK(is_valid_utf8(text));
    CHECK(j["messages"][0]["content"] == "system "s + fffd + " prompt");
    CHECK(j["messages"][1]["tool_calls"][0]["id"] == "c"s + fffd);
    CHECK(j["messages"][1]["tool_calls"][0]["function"]["arguments"] == "{}"s + fffd);
    CHECK(j["messages"][2]["content"] == "result at /lib/"s + fffd + fffd + "/notes.md");
    CHECK(j["messages"][2]["tool_call_id"] == "c"s + fffd);
    CHECK(j["tools"][0]["function"]["name"] == "t"s + fffd);
}

TEST_CASE("the catalog block is valid UTF-8 for a location with bad bytes", "[output][utf8][prompt]") {
    SkillManifest m;
    m.name = "good";
    m.description = "A good skill.";
    m.skill_file = "/lib/\xff\xfe/SKILL.md";
    CHECK(render_available_skills(std::vector<const SkillManifest*>{&m}) ==
          "<available_skills>\n  <skill>\n    <name>good</name>\n    <description>A good skill.</description>\n"
          "    <location>/lib/\xEF\xBF\xBD\xEF\xBF\xBD/SKILL.md</location>\n  </skill>\n</available_skills>");
}

TEST_CASE("activation text is valid UTF-8 for a resource named with bad bytes", "[output][utf8][prompt]") {
    LoadedSkill s;
    s.manifest.name = "good";
    s.manifest.root = "/lib/good";
    s.instructions = "Body.";
    s.resources = {SkillResource{"notes\xff.md"}, SkillResource{"ok.md"}};
    const std::string text = render_activation_text(s, {.include_directory = false});
    CHECK(text ==
          "<skill_content name=\"good\">\nBody.\n\n<skill_resources>\n"
          "  <file path=\"notes\xEF\xBF\xBD.md\" />\n"
          "  <file path=\"ok.md\" />\n</skill_resources>\n</skill_content>");
}

// ---------------------------------------------------------------------------------------
// Agent specs (issue 12, item 6)

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <future>

#include <agentskills/base/errors.hpp>
#include <agentskills/host/host.hpp>

#include "fs_fixtures.hpp"

namespace {

std::string spec_error(std::string_view text, SpecFormat format, const AgentSpecLimits& limits = {}) {
    try {
        (void)parse_agent_spec(text, format, limits);
    } catch (const ConfigurationError& e) {
        return e.what();
    }
    return "<no error>";
}

std::string load_error(const std::string& path) {
    try {
        (void)load_agent_spec(path);
    } catch (const ConfigurationError& e) {
        return e.what();
    } catch (const std::exception& e) {
        return std::string("<not a ConfigurationError> ") + e.what();
    }
    return "<no error>";
}

// A YAML alias bomb: `levels` levels, each a list of `width` aliases of the level below.
std::string alias_bomb(int levels, int width) {
    std::string out = "directories: x\nbomb:\n  l0: &l0 [a, a, a, a, a, a, a, a, a]\n";
    for (int i = 1; i < levels; ++i) {
        out += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int j = 0; j < width; ++j) out += (j ? ", *l" : "*l") + std::to_string(i - 1);
        out += "]\n";
    }
    return out;
}

}  // namespace

TEST_CASE("agent spec: an alias bomb stops at the node budget", "[host][spec][hostile]") {
    const std::string bomb = alias_bomb(9, 9);  // about 9^9 = 387 million nodes if expanded
    REQUIRE(bomb.size() < 1024);
    const std::string error = spec_error(bomb, SpecFormat::yaml);
    CHECK(error.find("more than 100000 YAML nodes") != std::string::npos);
    // A long scalar aliased many times stops at the text budget.
    std::string text_bomb = "directories: x\nlong: &s " + std::string(100'000, 'a') + "\ncopies: [";
    for (int i = 0; i < 60; ++i) text_bomb += i ? ", *s" : "*s";
    text_bomb += "]\n";
    CHECK(spec_error(text_bomb, SpecFormat::yaml).find("bytes of YAML text") != std::string::npos);
    // Small budgets apply as given; aliases still work under them.
    const auto c = parse_agent_spec("capabilities:\n  - Skills: &d [lib1, lib2]\n  - Skills: *d\n", SpecFormat::yaml);
    REQUIRE(c.size() == 2);
    CHECK(c[1].directories == std::vector<std::string>{"lib1", "lib2"});
    CHECK(
        spec_error("directories: [a, b, c, d]\n", SpecFormat::yaml, {.max_nodes = 4}).find("more than 4 YAML nodes") !=
        std::string::npos);
}

TEST_CASE("perf: an agent-spec alias bomb and a huge substitution are refused at once", "[.][perf]") {
    auto started = std::chrono::steady_clock::now();
    CHECK(spec_error(alias_bomb(9, 9), SpecFormat::yaml).find("more than 100000 YAML nodes") != std::string::npos);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(5));
    std::string body;
    for (int i = 0; i < 95'000; ++i) body += "$ARGUMENTS ";
    started = std::chrono::steady_clock::now();
    CHECK_THROWS_AS(substitute_arguments(body, std::string(5'000, 'a')), ConfigurationError);
    CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(2));
}

TEST_CASE("agent spec: depth, size and key budgets", "[host][spec][hostile]") {
    std::string deep_yaml = "directories: x\nx: ";
    std::string deep_json = "{\"directories\": \"x\", \"x\": ";
    for (int i = 0; i < 100; ++i) {
        deep_yaml += "[";
        deep_json += "[";
    }
    for (int i = 0; i < 100; ++i) {
        deep_yaml += "]";
        deep_json += "]";
    }
    deep_json += "}";
    CHECK(spec_error(deep_yaml, SpecFormat::yaml).find("nested deeper than the limit of 64 levels") !=
          std::string::npos);
    CHECK(spec_error(deep_json, SpecFormat::json).find("nested deeper than the limit of 64 levels") !=
          std::string::npos);
    // An alias cannot carry nesting past the limit either.
    std::string alias_deep = "a: &a ";
    for (int i = 0; i < 40; ++i) alias_deep += "[";
    for (int i = 0; i < 40; ++i) alias_deep += "]";
    alias_deep += "\nb: ";
    for (int i = 0; i < 40; ++i) alias_deep += "[";
    alias_deep += "*a";
    for (int i = 0; i < 40; ++i) alias_deep += "]";
    CHECK(spec_error(alias_deep, SpecFormat::yaml).find("nested deeper") != std::string::npos);
    // Text past the byte limit is refused before it is parsed.
    const std::string big = "directories: x\n# " + std::string(AGENT_SPEC_MAX_BYTES, 'c') + "\n";
    CHECK(spec_error(big, SpecFormat::yaml).find("more than the limit of 262144") != std::string::npos);
    // Keys must be strings; an error quotes at most about 80 characters of a value.
    CHECK(spec_error("? [a]\n: b\n", SpecFormat::yaml).find("a mapping key must be a string") != std::string::npos);
    const std::string quoted = spec_error("directories: [" + std::string(10'000, 'q') + ", [x]]\n", SpecFormat::yaml);
    CHECK(quoted.size() < 300);
    // The same document as YAML::Load read it: every scalar is its text, the first document only.
    const auto first = parse_agent_spec("directories: [1, yes, ~x]\n---\ndirectories: other\n", SpecFormat::yaml);
    CHECK(first.at(0).directories == std::vector<std::string>{"1", "yes", "~x"});
}

TEST_CASE("load_agent_spec: regular files only, bounded, every failure a ConfigurationError naming the file",
          "[host][spec][hostile]") {
    agentskills_test::TempDir dir;
    dir.write("ok.yaml", "directories: lib\n");
    CHECK(load_agent_spec(dir.str("ok.yaml")).at(0).directories == std::vector<std::string>{"lib"});

    const std::string absent = dir.str("absent.yaml");
    CHECK(load_error(absent).find("agent spec: cannot read '" + absent + "'") == 0);

    // A FIFO is refused without blocking (a watchdog fails the test instead of hanging).
    const std::string fifo = dir.str("fifo.yaml");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto fifo_result = std::async(std::launch::async, [&] { return load_error(fifo); });
    REQUIRE(fifo_result.wait_for(std::chrono::seconds(10)) == std::future_status::ready);
    const std::string fifo_error = fifo_result.get();
    CHECK(fifo_error.find("'" + fifo + "'") != std::string::npos);
    CHECK(fifo_error.find("not a regular file") != std::string::npos);

    // A link to /dev/zero is a device, refused before any read.
    const std::string zero = dir.str("zero.yaml");
    REQUIRE(::symlink("/dev/zero", zero.c_str()) == 0);
    const std::string zero_error = load_error(zero);
    CHECK(zero_error.find("'" + zero + "'") != std::string::npos);
    CHECK(zero_error.find("not a regular file") != std::string::npos);

    CHECK(load_error(dir.str()).find("it is a directory") != std::string::npos);

    dir.write("big.yaml", "directories: x\n" + std::string(AGENT_SPEC_MAX_BYTES, '#') + "\n");
    CHECK(load_error(dir.str("big.yaml")) ==
          "agent spec '" + dir.str("big.yaml") + "': the file is larger than the limit of 262144 bytes");

    dir.write("bomb.yaml", alias_bomb(9, 9));
    CHECK(load_error(dir.str("bomb.yaml")).find("agent spec '" + dir.str("bomb.yaml") + "': line ") == 0);
    dir.write("bad.json", "{\"directories\": 1}");
    CHECK(load_error(dir.str("bad.json")) ==
          "agent spec '" + dir.str("bad.json") + "': 'directories' must be a string or a list of strings, not 1");
    dir.write("empty.yaml", "directories: []\n");
    CHECK(load_error(dir.str("empty.yaml")).find("agent spec '" + dir.str("empty.yaml") + "': skills configuration") ==
          0);
}

// ---------------------------------------------------------------------------------------
// Rendering budget (issue 12, item 4)

TEST_CASE("substitute_arguments: the size is known and bounded before anything is built", "[host][render][hostile]") {
    CHECK(substituted_size("Review $ARGUMENTS, then test $ARGUMENTS.", "src/app.py") ==
          substitute_arguments("Review $ARGUMENTS, then test $ARGUMENTS.", "src/app.py").size());
    CHECK(substituted_size("Plain", "x") == std::string("Plain\n\nARGUMENTS: x").size());
    CHECK(substituted_size("", "x") == std::string("ARGUMENTS: x").size());
    CHECK(substituted_size("$ARGUMENTS[0] $ARGUMENTSx", "abc") ==
          substitute_arguments("$ARGUMENTS[0] $ARGUMENTSx", "abc").size());
    CHECK(substituted_size("Plain", "") == 5);

    // 95,000 placeholders and a 5 KB argument would be 475 MB: refused at once.
    std::string body;
    for (int i = 0; i < 95'000; ++i) body += "$ARGUMENTS ";
    const std::string argument(5'000, 'a');
    try {
        (void)substitute_arguments(body, argument);
        FAIL("no error");
    } catch (const ConfigurationError& e) {
        // The size is computed before anything is built (the text would be 475 MB).
        CHECK(std::string(e.what()) ==
              "the instructions with the arguments substituted would be 475095000 bytes, more than the limit of "
              "4194304 bytes");
    }
    // Exactly at the limit is fine; one byte more is not; 0 = no limit.
    CHECK(substitute_arguments("$ARGUMENTS", "abcd", 4) == "abcd");
    CHECK_THROWS_AS(substitute_arguments("$ARGUMENTS", "abcde", 4), ConfigurationError);
    CHECK_THROWS_AS(substitute_arguments("Plain", "x", 8), ConfigurationError);
    CHECK(substitute_arguments("$ARGUMENTS$ARGUMENTS", "xyz", 0) == "xyzxyz");
    // A size that overflows size_t is reported as SIZE_MAX, not wrapped around.
    CHECK(substituted_size(body, std::string_view(argument.data(), 1)) == body.size() - 95'000 * 9);
}

TEST_CASE("SkillDefinition::render passes its bound on", "[host][render][hostile]") {
    SkillDefinition d;
    d.name = "s";
    d.manifest.name = "s";
    d.body = "Do $ARGUMENTS.";
    CHECK(d.render("x").find("Do x.") != std::string::npos);
    CHECK_THROWS_AS(d.render(std::string(100, 'x'), 50), ConfigurationError);
    CHECK(d.render(std::string(100, 'x'), 0).find(std::string(100, 'x')) != std::string::npos);
}
