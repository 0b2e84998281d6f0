// Tests of prompt.hpp: the texts the model sees, for any bytes.
// One file per public header; the hostile cases are sections of it.
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/diagnostics.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/base/skill.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/harness.hpp>

// =======================================================================================
// Tests for prompt.hpp: the exact texts the model sees.

namespace prompt_tests {

using namespace agentskills;

namespace {
SkillManifest manifest(std::string name, std::string description, std::string root) {
    SkillManifest m;
    m.name = std::move(name);
    m.description = std::move(description);
    m.root = root;
    m.skill_file = root + "/SKILL.md";
    return m;
}
}  // namespace

TEST_CASE("xml_escape escapes the five XML special characters", "[prompt]") {
    CHECK(xml_escape("a & b < c > d \" e ' f") == "a &amp; b &lt; c &gt; d &quot; e &apos; f");
    CHECK(xml_escape("") == "");
    CHECK(xml_escape("plain text, déjà vu") == "plain text, déjà vu");
}

TEST_CASE("render_available_skills lists name, description and location in order", "[prompt]") {
    auto a = manifest("alpha", "Does A & more.", "lib/alpha");
    auto b = manifest("beta", "Closes </available_skills> early?", "lib/beta");
    CHECK(render_available_skills(std::vector<const SkillManifest*>{&a, &b}) ==
          "<available_skills>\n"
          "  <skill>\n"
          "    <name>alpha</name>\n"
          "    <description>Does A &amp; more.</description>\n"
          "    <location>lib/alpha/SKILL.md</location>\n"
          "  </skill>\n"
          "  <skill>\n"
          "    <name>beta</name>\n"
          "    <description>Closes &lt;/available_skills&gt; early?</description>\n"
          "    <location>lib/beta/SKILL.md</location>\n"
          "  </skill>\n"
          "</available_skills>");
}

TEST_CASE("the prompt template: literal runs, doubled braces, every placeholder, each error", "[prompt]") {
    const std::vector<SkillManifest> skills = {manifest("alpha", "A.", "lib/alpha")};
    const std::string catalog = render_available_skills(std::vector<const SkillManifest*>{&skills[0]});
    const auto expand = [&](std::string tpl) {
        return render_skills_prompt(skills, SkillsPromptOptions{.system_prompt = std::move(tpl), .tool_name = "use"})
            .text;
    };
    CHECK(expand("plain text only") == "plain text only");
    CHECK(expand("{skills}") == catalog);
    CHECK(expand("a{{b}}c {tool_name}/{skill_count}/{omitted_count}\n{skills}\ntail}}") ==
          "a{b}c use/1/0\n" + catalog + "\ntail}");
    CHECK(expand("{{{tool_name}}}") == "{use}");
    CHECK(expand("") == "");
    // Errors, by their messages; check_system_prompt gives the same ones.
    const auto error_of = [](std::string tpl) {
        try {
            check_system_prompt(SystemPrompt(std::move(tpl)));
        } catch (const ConfigurationError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of("ok {skills} }") == "skills system prompt: stray '}' (write '}}' for a literal brace)");
    CHECK(error_of("} first") == "skills system prompt: stray '}' (write '}}' for a literal brace)");
    CHECK(error_of("open { brace") == "skills system prompt: unclosed '{' (write '{{' for a literal brace)");
    CHECK(error_of("{name}") ==
          "skills system prompt: unknown placeholder '{name}' (known: tool_name, skills, skill_count, omitted_count)");
    CHECK(error_of("{{}} {skills}") == "no error");
    CHECK_THROWS_AS(expand("x } y"), ConfigurationError);
}

TEST_CASE("render_available_skills can leave descriptions out and handles no entries", "[prompt]") {
    auto a = manifest("alpha", "Does A.", "/abs/alpha");
    CHECK(render_available_skills(std::vector<CatalogEntry>{{.manifest = &a, .include_description = false}}) ==
          "<available_skills>\n"
          "  <skill>\n"
          "    <name>alpha</name>\n"
          "    <location>/abs/alpha/SKILL.md</location>\n"
          "  </skill>\n"
          "</available_skills>");
    CHECK(render_available_skills(std::vector<CatalogEntry>{}) == "<available_skills>\n</available_skills>");
}

TEST_CASE("write_available_skills hands over the bytes of render_available_skills in pieces", "[prompt]") {
    std::vector<SkillManifest> skills;
    for (int i = 0; i < 2000; ++i) {
        const std::string n = std::to_string(i);
        skills.push_back(manifest("skill-" + n, "Does \"" + n + "\" & <more> \x01 \xff'.", "/lib/skill-" + n));
    }
    skills[7].mode = SkillMode::name_only;
    std::vector<const SkillManifest*> pointers;
    for (const auto& m : skills) pointers.push_back(&m);
    pointers.insert(pointers.begin() + 3, nullptr);  // left out, as by render_available_skills
    std::string joined;
    std::size_t pieces = 0;
    write_available_skills(pointers, [&](std::string_view piece) {
        joined.append(piece);
        ++pieces;
    });
    const std::string whole = render_available_skills(pointers);
    CHECK(whole.size() > 3 * 64 * 1024);
    CHECK(joined == whole);
    CHECK(pieces >= 3);
    std::string empty;
    write_available_skills({}, [&](std::string_view piece) { empty.append(piece); });
    CHECK(empty == "<available_skills>\n</available_skills>");
}

TEST_CASE("render_skill_content: instructions, directory, note and resources", "[prompt]") {
    LoadedSkill s;
    s.manifest = manifest("refunds", "Refund policy.", "skills/refunds");
    s.instructions = "# Refunds\n\nRead references/policy.md first.";
    s.resources = {{"scripts/calc.py"}, {"references/policy.md"}};
    CHECK(render_activation_text(s) ==
          "<skill_content name=\"refunds\">\n"
          "# Refunds\n"
          "\n"
          "Read references/policy.md first.\n"
          "\n"
          "Skill directory: skills/refunds\n"
          "Relative paths in these instructions start from the skill directory. Activating a skill does not "
          "change the working directory of any tool: give file tools the read_path of a resource listed below, "
          "or a path joined with the skill directory.\n"
          "\n"
          "<skill_resources>\n"
          "  <file path=\"scripts/calc.py\" read_path=\"skills/refunds/scripts/calc.py\" />\n"
          "  <file path=\"references/policy.md\" read_path=\"skills/refunds/references/policy.md\" />\n"
          "</skill_resources>\n"
          "</skill_content>");
}

TEST_CASE("render_skill_content keeps <skill_resources> when there are none", "[prompt]") {
    LoadedSkill s;
    s.manifest = manifest("a&b", "x", "/srv/a&b");
    s.instructions = "Do it.";
    CHECK(render_activation_text(s, {.include_directory = false}) ==
          "<skill_content name=\"a&amp;b\">\n"
          "Do it.\n"
          "\n"
          "<skill_resources>\n"
          "</skill_resources>\n"
          "</skill_content>");
    CHECK(render_activation_text(s) ==
          "<skill_content name=\"a&amp;b\">\n"
          "Do it.\n"
          "\n"
          "Skill directory: /srv/a&amp;b\n" +
              std::string(SKILL_DIRECTORY_NOTE) +
              "\n"
              "\n"
              "<skill_resources>\n"
              "</skill_resources>\n"
              "</skill_content>");
}

namespace {

// Whether every character of valid UTF-8 `s` is allowed by XML 1.0 (Char production) and is
// neither a C0 control other than TAB and LF nor DEL nor a C1 control.
bool xml10_model_chars(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        char32_t cp = 0;
        std::size_t n = 1;
        if (c < 0x80) {
            cp = c;
        } else if ((c & 0xE0) == 0xC0) {
            n = 2;
            cp = c & 0x1Fu;
        } else if ((c & 0xF0) == 0xE0) {
            n = 3;
            cp = c & 0x0Fu;
        } else if ((c & 0xF8) == 0xF0) {
            n = 4;
            cp = c & 0x07u;
        } else {
            return false;
        }
        if (i + n > s.size()) return false;
        for (std::size_t k = 1; k < n; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (cc & 0x3Fu);
        }
        i += n;
        if (cp == '\t' || cp == '\n') continue;
        if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F)) return false;
        if ((cp >= 0xD800 && cp <= 0xDFFF) || cp == 0xFFFE || cp == 0xFFFF || cp > 0x10FFFF) return false;
    }
    return true;
}

constexpr char hostile_bytes[] = "n\0u\x01l\x1b[2J\x1b]0;t\x07\r\n\x7f\xC2\x85\xC2\x9B\xEF\xBF\xBE\xEF\xBF\xBF\xff";
const std::string hostile(hostile_bytes, sizeof hostile_bytes - 1);

}  // namespace

TEST_CASE("the catalog block carries no control character but TAB and LF, and is XML 1.0", "[prompt][control]") {
    SkillManifest m = manifest("a" + hostile, "d\tx\ny" + hostile, "/srv/r" + hostile);
    const std::string block = render_available_skills(std::vector<const SkillManifest*>{&m});
    CHECK(xml10_model_chars(block));
    const std::string fffd = "\xEF\xBF\xBD";
    // NUL, SOH, ESC, ESC, BEL become U+FFFD; CR LF becomes LF; DEL, NEL, CSI, U+FFFE, U+FFFF and
    // the stray byte become U+FFFD.
    const std::string clean = "n" + fffd + "u" + fffd + "l" + fffd + "[2J" + fffd + "]0;t" + fffd + "\n" + fffd + fffd +
                              fffd + fffd + fffd + fffd;
    CHECK(block == "<available_skills>\n  <skill>\n    <name>a" + clean + "</name>\n    <description>d\tx\ny" + clean +
                       "</description>\n    <location>/srv/r" + clean +
                       "/SKILL.md</location>\n  </skill>\n</available_skills>");
    // Clean text is untouched (U+FFFD and other non-ASCII characters included).
    SkillManifest plain = manifest("caf\xC3\xA9", "\xEF\xBF\xBD \xE6\x8A\x80", "/srv/x");
    CHECK(render_available_skills(std::vector<const SkillManifest*>{&plain})
              .find("<name>caf\xC3\xA9</name>\n    <description>\xEF\xBF\xBD \xE6\x8A\x80</description>") !=
          std::string::npos);
}

TEST_CASE("activation text carries no control character but TAB and LF", "[prompt][control]") {
    LoadedSkill s;
    s.manifest = manifest("n\x1b", "x", "/srv/d\x07");
    s.instructions = "Body\twith\ttabs\nand a NUL " + std::string(1, '\0') + " and ESC \x1b[31m.";
    s.resources = {SkillResource{"r\x01.md"}};
    const std::string text = render_activation_text(s);
    CHECK(xml10_model_chars(text));
    CHECK(text.rfind("<skill_content name=\"n\xEF\xBF\xBD\">\nBody\twith\ttabs\nand a NUL \xEF\xBF\xBD and ESC "
                     "\xEF\xBF\xBD[31m.\n\nSkill directory: /srv/d\xEF\xBF\xBD\n",
                     0) == 0);
    CHECK(text.find("<file path=\"r\xEF\xBF\xBD.md\" read_path=\"/srv/d\xEF\xBF\xBD/r\xEF\xBF\xBD.md\" />") !=
          std::string::npos);
}

}  // namespace prompt_tests

// =======================================================================================
// Output hardening (issue 12): every text that reaches JSON or the model is valid UTF-8 and

namespace output_tests {

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

}  // namespace output_tests
