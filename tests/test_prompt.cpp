// Tests for prompt.hpp: the exact texts the model sees.
#include <catch2/catch.hpp>

#include <agentskills/prompt.hpp>

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

TEST_CASE("render_skill_content: instructions, directory, note and resources", "[prompt]") {
    LoadedSkill s;
    s.manifest = manifest("refunds", "Refund policy.", "skills/refunds");
    s.instructions = "# Refunds\n\nRead references/policy.md first.";
    s.resources = {{"scripts/calc.py"}, {"references/policy.md"}};
    CHECK(render_skill_content(s) ==
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
    CHECK(render_skill_content(s, {.include_directory = false}) ==
          "<skill_content name=\"a&amp;b\">\n"
          "Do it.\n"
          "\n"
          "<skill_resources>\n"
          "</skill_resources>\n"
          "</skill_content>");
    CHECK(render_skill_content(s) ==
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
