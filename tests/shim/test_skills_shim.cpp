// Tests of skills_shim.hpp: SkillsShim.
// One file per public header; the hostile cases are sections of it.
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/shim/skills_shim.hpp>
#include <agentskills/storage/reader.hpp>
#include "agentskills/harness.hpp"
#include "agentskills/host/host.hpp"
#include "agentskills/shim/skills_shim.hpp"

#include "fs_fixtures.hpp"

// =======================================================================================
// Tests for skills_shim.hpp: the exact texts and behaviour of SkillsShim on the harness.

namespace skills_shim_tests {

using namespace agentskills;
using nlohmann::json;

namespace {

LoadedSkill make_skill(std::string name, std::string description, std::string root, std::string instructions,
                       std::vector<std::string> resources = {}) {
    LoadedSkill s;
    s.manifest.name = std::move(name);
    s.manifest.description = std::move(description);
    s.manifest.root = root;
    s.manifest.skill_file = root + "/SKILL.md";
    s.instructions = std::move(instructions);
    for (auto& r : resources) s.resources.push_back({std::move(r)});
    return s;
}

/// A loader over fixed skills that counts its calls. Thread-safe.
class TestLoader final : public SkillLoader {
public:
    explicit TestLoader(std::vector<LoadedSkill> skills) : skills_(std::move(skills)) {}
    [[nodiscard]] Discovery discover() override {
        ++discovers;
        Discovery d;
        for (const auto& s : skills_) d.skills.push_back(s.manifest);
        return d;
    }
    [[nodiscard]] LoadedSkill load(std::string_view name) override {
        ++loads;
        for (const auto& s : skills_) {
            if (s.manifest.name == name) return s;
        }
        throw NotFoundError(std::string(name));
    }
    std::atomic<int> discovers{0};
    std::atomic<int> loads{0};

private:
    std::vector<LoadedSkill> skills_;
};

std::vector<LoadedSkill> fixture() {
    auto hidden = make_skill("secret-admin", "Rotate production secrets.", "skills/secret-admin", "Never.");
    hidden.manifest.disable_model_invocation = true;
    return {
        make_skill("pdf-forms", "Fill in and check PDF forms.", "skills/pdf-forms", "Run scripts/fill.py on the form.",
                   {"scripts/fill.py", "references/fields.md"}),
        make_skill("release-notes", "Write release notes from a changelog & commits.", "skills/release-notes",
                   "Group the changes by kind."),
        hidden,
    };
}

ToolCall activate(std::string id, std::string name, std::string tool = "activate_skill") {
    return ToolCall{.id = std::move(id), .name = std::move(tool), .arguments = json{{"name", name}}.dump()};
}

Tool plain_tool(std::string name) {
    return Tool{.spec = {.name = name, .description = name, .parameters = json::object(), .strict = false},
                .handler = [name](const ToolCall&, RunState&) { return name + " ran"; }};
}

std::vector<std::string> tool_names(const ModelRequest& r) {
    std::vector<std::string> out;
    for (const auto& t : r.tools) out.push_back(t.name);
    return out;
}

struct Setup {
    std::shared_ptr<TestLoader> loader;
    std::shared_ptr<SkillsShim> shim;
    std::shared_ptr<ScriptedModel> model;
    std::unique_ptr<DefaultAgent> agent;
};

Setup make_agent(std::vector<Message> script, SkillsShimOptions options = {}, std::vector<Tool> tools = {},
                 AgentOptions agent_options = {}, std::vector<LoadedSkill> skills = fixture()) {
    Setup s;
    s.loader = std::make_shared<TestLoader>(std::move(skills));
    if (!options.catalog) options.loader = s.loader;
    s.shim = std::make_shared<SkillsShim>(std::move(options));
    s.model = std::make_shared<ScriptedModel>(std::move(script));
    s.agent = std::make_unique<DefaultAgent>(AgentDescriptor{.name = "tester",
                                                             .instructions = "You are a careful assistant.",
                                                             .model = s.model,
                                                             .tools = std::move(tools),
                                                             .shims = {s.shim}},
                                             std::move(agent_options));
    return s;
}

const std::string expected_catalog =
    "<available_skills>\n"
    "  <skill>\n"
    "    <name>pdf-forms</name>\n"
    "    <description>Fill in and check PDF forms.</description>\n"
    "    <location>skills/pdf-forms/SKILL.md</location>\n"
    "  </skill>\n"
    "  <skill>\n"
    "    <name>release-notes</name>\n"
    "    <description>Write release notes from a changelog &amp; commits.</description>\n"
    "    <location>skills/release-notes/SKILL.md</location>\n"
    "  </skill>\n"
    "</available_skills>";

std::string expected_block(const std::string& tool = "activate_skill") {
    return "Skills are packaged instructions, with the scripts, references and other files they need, for "
           "particular kinds of tasks. The skills you can use are listed below, each with its name, a description "
           "of when it helps and the location of its SKILL.md file.\n"
           "\n"
           "Before you work on a task that matches a skill's description, call the `" +
           tool +
           "` tool with that skill's name: it returns the skill's full instructions and the files that come with "
           "it. Activate only the skills the task needs, each of them once; after activation its instructions stay "
           "in this conversation.\n"
           "\n" +
           expected_catalog;
}

const std::string expected_pdf_content =
    "<skill_content name=\"pdf-forms\">\n"
    "Run scripts/fill.py on the form.\n"
    "\n"
    "Skill directory: skills/pdf-forms\n"
    "Relative paths in these instructions start from the skill directory. Activating a skill does not change the "
    "working directory of any tool: give file tools the read_path of a resource listed below, or a path joined "
    "with the skill directory.\n"
    "\n"
    "<skill_resources>\n"
    "  <file path=\"scripts/fill.py\" read_path=\"skills/pdf-forms/scripts/fill.py\" />\n"
    "  <file path=\"references/fields.md\" read_path=\"skills/pdf-forms/references/fields.md\" />\n"
    "</skill_resources>\n"
    "</skill_content>";

std::string already_active(const std::string& name, const std::string& tool = "activate_skill") {
    return "The skill \"" + name + "\" is already active: its instructions are in the <skill_content name=\"" + name +
           "\"> block that an earlier " + tool +
           " call returned in this conversation. Keep following that block; "
           "do not call " +
           tool + " for this skill again.";
}

const std::string expected_tool_json = R"({"type":"function","function":{"name":"activate_skill",
  "description":"Activate one of the skills listed in <available_skills>: returns its full instructions and the files bundled with it. Call it before working on a task that matches the skill's description.",
  "parameters":{"type":"object","properties":{"name":{"type":"string","minLength":1,
  "description":"The skill's name, exactly as it appears in <available_skills>."}},
  "required":["name"],"additionalProperties":false},"strict":true}})";

}  // namespace

TEST_CASE("the block is appended once, after a blank line, on the first turn only", "[shim]") {
    auto s = make_agent({assistant_message("", {activate("c1", "pdf-forms")}), assistant_message("first done"),
                         assistant_message("second done")});
    const std::string system = "You are a careful assistant.\n\n" + expected_block();
    CHECK(s.agent->run("fill my form").final_output == "first done");
    CHECK(s.agent->run("thanks").final_output == "second done");
    auto reqs = s.model->requests();
    REQUIRE(reqs.size() == 3);
    for (const auto& r : reqs) {
        REQUIRE(r.messages[0].role == Role::system);
        CHECK(r.messages[0].content == system);  // turn 2 and the second run: not appended again
    }
    CHECK(s.agent->run_state().instructions == system);
    CHECK(s.agent->run_state().shim_state.get("skills:system-prompt-appended") == true);
    CHECK(s.loader->discovers == 1);  // discovered once, at binding; runs do not rediscover
}

TEST_CASE("the block alone when the agent has no instructions; again after reset", "[shim]") {
    auto loader = std::make_shared<TestLoader>(fixture());
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{assistant_message("a"), assistant_message("b")});
    DefaultAgent agent({.name = "n",
                        .instructions = "",
                        .model = model,
                        .tools = {},
                        .shims = {std::make_shared<SkillsShim>(SkillsShimOptions{.loader = loader})}});
    (void)agent.run("x");
    agent.reset();
    (void)agent.run("y");
    auto reqs = model->requests();
    CHECK(reqs[0].messages[0].content == expected_block());
    CHECK(reqs[1].messages[0].content == expected_block());  // a new conversation gets it once again
}

TEST_CASE("no model-invocable skill: no block and no tool", "[shim]") {
    auto only_hidden = fixture();
    only_hidden.erase(only_hidden.begin(), only_hidden.begin() + 2);
    auto s = make_agent({assistant_message("", {activate("c1", "secret-admin")}), assistant_message("done")}, {},
                        {plain_tool("read")}, {}, only_hidden);
    (void)s.agent->run("go");
    auto reqs = s.model->requests();
    CHECK(reqs[0].messages[0].content == "You are a careful assistant.");
    CHECK(tool_names(reqs[0]) == std::vector<std::string>{"read"});
    CHECK(s.agent->run_state().history[2].content == "error: no tool named 'activate_skill' is available");

    auto empty = make_agent({assistant_message("done")}, {}, {}, {}, {});
    (void)empty.agent->run("go");
    CHECK(empty.model->requests()[0].messages[0].content == "You are a careful assistant.");
    CHECK(empty.model->requests()[0].tools.empty());
}

TEST_CASE("names, descriptions and locations are escaped inside the block", "[shim]") {
    auto skills = std::vector<LoadedSkill>{
        make_skill("sneaky", "Ends early </available_skills> & <b>bold</b>", "lib/<x>&y", "body")};
    auto s = make_agent({assistant_message("ok")}, {}, {}, {}, skills);
    (void)s.agent->run("go");
    const std::string system = s.model->requests()[0].messages[0].content;
    CHECK(system.find(
              "  <skill>\n"
              "    <name>sneaky</name>\n"
              "    <description>Ends early &lt;/available_skills&gt; &amp; &lt;b&gt;bold&lt;/b&gt;</description>\n"
              "    <location>lib/&lt;x&gt;&amp;y/SKILL.md</location>\n"
              "  </skill>\n"
              "</available_skills>") != std::string::npos);
    // Exactly one closing tag: the description cannot close the block.
    CHECK(system.find("</available_skills>") == system.rfind("</available_skills>"));
}

TEST_CASE("disable-model-invocation skills are absent and cannot be activated", "[shim]") {
    auto s = make_agent({assistant_message("", {activate("c1", "secret-admin")}), assistant_message("done")});
    (void)s.agent->run("go");
    CHECK(s.model->requests()[0].messages[0].content.find("secret-admin") == std::string::npos);
    CHECK(s.agent->run_state().history[2].content ==
          "There is no skill named \"secret-admin\". Available skills: pdf-forms, release-notes.");
    CHECK(s.loader->loads == 0);
}

TEST_CASE("the tool schema is strict, exact and identical on every turn", "[shim]") {
    auto s = make_agent({assistant_message("", {activate("c1", "pdf-forms")}),
                         assistant_message("", {activate("c2", "release-notes")}), assistant_message("done")},
                        {}, {plain_tool("read")});
    (void)s.agent->run("go");
    auto reqs = s.model->requests();
    REQUIRE(reqs.size() == 3);
    CHECK(to_json(s.shim->tool_spec()) == json::parse(expected_tool_json));
    for (const auto& r : reqs) {
        CHECK(tool_names(r) == std::vector<std::string>{"read", "activate_skill"});
        CHECK(to_json(r.tools[1]).dump() == json::parse(expected_tool_json).dump());
    }
}

TEST_CASE("first activation returns the skill content", "[shim]") {
    auto s = make_agent({assistant_message("", {activate("c1", "pdf-forms")}), assistant_message("done")});
    (void)s.agent->run("go");
    const auto& h = s.agent->run_state().history;
    REQUIRE(h.size() == 4);
    CHECK(h[2] == tool_message("c1", "activate_skill", expected_pdf_content));
    CHECK(s.shim->active_skill_names(s.agent->run_state()) == std::vector<std::string>{"pdf-forms"});
    CHECK(s.agent->run_state().shim_state.get("skills:active-skill-names") == json::array({"pdf-forms"}));
    CHECK(s.loader->loads == 1);

    auto empty = make_agent({assistant_message("", {activate("c1", "release-notes")}), assistant_message("done")});
    (void)empty.agent->run("go");
    CHECK(empty.agent->run_state().history[2].content ==
          "<skill_content name=\"release-notes\">\n"
          "Group the changes by kind.\n"
          "\n"
          "Skill directory: skills/release-notes\n" +
              std::string(SKILL_DIRECTORY_NOTE) +
              "\n"
              "\n"
              "<skill_resources>\n"
              "</skill_resources>\n"
              "</skill_content>");
}

TEST_CASE("unknown names, bad arguments and the 'and N more' cut", "[shim]") {
    auto s = make_agent(
        {assistant_message(
             "", {activate("c1", "nope"), ToolCall{.id = "c2", .name = "activate_skill", .arguments = "{oops"},
                  ToolCall{.id = "c3", .name = "activate_skill", .arguments = R"({"name":""})"}}),
         assistant_message("done")});
    (void)s.agent->run("go");
    const auto& h = s.agent->run_state().history;
    CHECK(h[2].content == "There is no skill named \"nope\". Available skills: pdf-forms, release-notes.");
    const std::string usage =
        "The activate_skill tool takes one argument, \"name\": the name of a skill from <available_skills>, for "
        "example {\"name\": \"pdf-forms\"}.";
    CHECK(h[3].content == "The arguments are not valid JSON. " + usage);
    CHECK(h[4].content == "The argument \"name\" must be a non-empty string. " + usage);
    CHECK(s.shim->active_skill_names(s.agent->run_state()).empty());

    std::vector<LoadedSkill> many;
    for (int i = 0; i < 5; ++i) many.push_back(make_skill("s" + std::to_string(i), "d", "r" + std::to_string(i), "b"));
    auto cut = make_agent({assistant_message("", {activate("c1", "zzz")}), assistant_message("done")},
                          {.max_listed_names = 3}, {}, {}, many);
    (void)cut.agent->run("go");
    CHECK(cut.agent->run_state().history[2].content ==
          "There is no skill named \"zzz\". Available skills: s0, s1, s2, and 2 more.");
}

TEST_CASE("a repeat on a later turn or run gets the already-active text", "[shim]") {
    auto s = make_agent({assistant_message("", {activate("c1", "pdf-forms")}),
                         assistant_message("", {activate("c2", "pdf-forms")}), assistant_message("done"),
                         assistant_message("", {activate("c3", "pdf-forms")}), assistant_message("done again")});
    (void)s.agent->run("go");
    (void)s.agent->run("and again");
    const auto& h = s.agent->run_state().history;
    CHECK(h[2].content == expected_pdf_content);
    CHECK(h[4] == tool_message("c2", "activate_skill", already_active("pdf-forms")));
    CHECK(h[8] == tool_message("c3", "activate_skill", already_active("pdf-forms")));
    CHECK(s.loader->loads == 1);
}

TEST_CASE("two calls for one skill in one response: content, then already active", "[shim]") {
    auto s = make_agent({assistant_message("", {activate("c1", "pdf-forms"), activate("c2", "pdf-forms"),
                                                activate("c3", "release-notes")}),
                         assistant_message("done")});
    (void)s.agent->run("go");
    const auto& h = s.agent->run_state().history;
    CHECK(h[2].content == expected_pdf_content);
    CHECK(h[3].content == already_active("pdf-forms"));
    CHECK(h[4].content.rfind("<skill_content name=\"release-notes\">", 0) == 0);
    CHECK(s.shim->active_skill_names(s.agent->run_state()) == std::vector<std::string>{"pdf-forms", "release-notes"});
    CHECK(s.loader->loads == 2);
}

TEST_CASE("32 concurrent calls for one skill: one content, 31 already active, one load", "[shim][concurrency]") {
    std::vector<ToolCall> calls;
    for (int i = 0; i < 32; ++i) calls.push_back(activate("c" + std::to_string(i), "pdf-forms"));
    auto s = make_agent({assistant_message("", calls), assistant_message("done")}, {}, {},
                        {.max_turns = 4, .parallel_tool_calls = true, .hooks = nullptr});
    (void)s.agent->run("go");
    int content = 0;
    int repeats = 0;
    for (const auto& m : s.agent->run_state().history) {
        if (m.role != Role::tool) continue;
        if (m.content == expected_pdf_content) ++content;
        if (m.content == already_active("pdf-forms")) ++repeats;
    }
    CHECK(content == 1);
    CHECK(repeats == 31);
    CHECK(s.loader->loads == 1);
    CHECK(s.shim->active_skill_names(s.agent->run_state()) == std::vector<std::string>{"pdf-forms"});
}

TEST_CASE("a custom tool name shows in the block, the schema and the already-active text", "[shim]") {
    auto s = make_agent(
        {assistant_message("", {activate("c1", "pdf-forms", "use_skill"), activate("c2", "pdf-forms", "use_skill")}),
         assistant_message("done")},
        {.tool_name = "use_skill"});
    (void)s.agent->run("go");
    auto reqs = s.model->requests();
    CHECK(reqs[0].messages[0].content == "You are a careful assistant.\n\n" + expected_block("use_skill"));
    CHECK(tool_names(reqs[0]) == std::vector<std::string>{"use_skill"});
    CHECK(s.agent->run_state().history[3].content == already_active("pdf-forms", "use_skill"));
    CHECK_THROWS_AS(SkillsShim({.loader = std::make_shared<TestLoader>(fixture()), .tool_name = "bad name"}),
                    ConfigurationError);
}

TEST_CASE("a custom template: placeholders, braces and a callback", "[shim]") {
    auto s = make_agent(
        {assistant_message("ok")},
        {.system_prompt = "{{skills}} via {tool_name} ({skill_count} listed, {omitted_count} left out):\n{skills}"});
    (void)s.agent->run("go");
    CHECK(s.model->requests()[0].messages[0].content ==
          "You are a careful assistant.\n\n{skills} via activate_skill (2 listed, 0 left out):\n" + expected_catalog);

    SystemPromptCallback cb = [](const SkillsPromptContext& ctx) {
        return "Use " + std::string(ctx.tool_name) + " for " + std::to_string(ctx.skill_count) + " skills.\n" +
               std::string(ctx.catalog);
    };
    auto c = make_agent({assistant_message("ok")}, {.system_prompt = cb});
    (void)c.agent->run("go");
    CHECK(c.model->requests()[0].messages[0].content ==
          "You are a careful assistant.\n\nUse activate_skill for 2 skills.\n" + expected_catalog);

    auto loader = std::make_shared<TestLoader>(fixture());
    CHECK_THROWS_AS(SkillsShim({.loader = loader, .system_prompt = "{unknown}"}), ConfigurationError);
    CHECK_THROWS_AS(SkillsShim({.loader = loader, .system_prompt = "open { brace"}), ConfigurationError);
    CHECK_THROWS_AS(SkillsShim({.loader = loader, .system_prompt = SystemPromptCallback{}}), ConfigurationError);
}

TEST_CASE("a custom shim name changes the state keys", "[shim]") {
    auto s =
        make_agent({assistant_message("", {activate("c1", "pdf-forms")}), assistant_message("done")}, {.name = "docs"});
    (void)s.agent->run("go");
    const RunState& st = s.agent->run_state();
    CHECK(s.shim->name() == "docs");
    CHECK(s.shim->active_skill_names_key() == "docs:active-skill-names");
    CHECK(st.shim_state.get("docs:active-skill-names") == json::array({"pdf-forms"}));
    CHECK_FALSE(st.shim_state.contains("skills:active-skill-names"));
    CHECK(st.shim_state.get("docs:system-prompt-appended") == true);
    CHECK(s.shim->active_skill_names(st) == std::vector<std::string>{"pdf-forms"});
    CHECK(SkillsShim({.loader = s.loader}).active_skill_names(st).empty());
    CHECK(RunStateView(st).active_skill_names() == std::vector<std::string>{"pdf-forms"});
}

TEST_CASE("RunStateView unions every active-skill-names key", "[shim]") {
    RunState st;
    st.shim_state.set("docs:active-skill-names", json::array({"b", "a"}));
    st.shim_state.set("skills:active-skill-names", json::array({"a", "c"}));
    st.shim_state.set("other:names", json::array({"z"}));
    CHECK(RunStateView(st).active_skill_names() == std::vector<std::string>{"b", "a", "c"});
}

TEST_CASE("two skills shims in one agent: the run-state view gives the union", "[shim]") {
    auto docs =
        std::make_shared<TestLoader>(std::vector<LoadedSkill>{make_skill("guide", "Docs guide.", "d/guide", "g")});
    auto main_loader = std::make_shared<TestLoader>(fixture());
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("", {activate("c1", "pdf-forms"), activate("c2", "guide", "open_doc_skill")}),
        assistant_message("done")});
    DefaultAgent agent({.name = "two",
                        .instructions = "",
                        .model = model,
                        .tools = {},
                        .shims = {std::make_shared<SkillsShim>(SkillsShimOptions{.loader = main_loader}),
                                  std::make_shared<SkillsShim>(SkillsShimOptions{
                                      .loader = docs, .tool_name = "open_doc_skill", .name = "docs"})}});
    (void)agent.run("go");
    CHECK(RunStateView(agent.run_state()).active_skill_names() == std::vector<std::string>{"guide", "pdf-forms"});
}

TEST_CASE("a loader and a catalog together are a configuration error", "[shim]") {
    auto loader = std::make_shared<TestLoader>(fixture());
    auto catalog = discover_skill_catalog(loader);
    CHECK_THROWS_AS(SkillsShim({.loader = loader, .catalog = catalog}), ConfigurationError);
}

TEST_CASE("a shared catalog is not rediscovered", "[shim]") {
    auto loader = std::make_shared<TestLoader>(fixture());
    auto catalog = discover_skill_catalog(loader);
    REQUIRE(loader->discovers == 1);
    auto shim = std::make_shared<SkillsShim>(SkillsShimOptions{.catalog = catalog});
    for (int i = 0; i < 2; ++i) {
        auto model = std::make_shared<ScriptedModel>(
            std::vector<Message>{assistant_message("", {activate("c", "pdf-forms")}), assistant_message("ok")});
        DefaultAgent agent({.name = "a", .instructions = "", .model = model, .tools = {}, .shims = {shim}});
        (void)agent.run("go");
        CHECK(agent.run_state().history[2].content == expected_pdf_content);
    }
    CHECK(loader->discovers == 1);
    CHECK(loader->loads == 2);  // one per agent instance (each has its own run state)
    CHECK(shim->catalog() == catalog);

    // A loader-based shim discovers once per agent instance it binds to.
    auto own = std::make_shared<TestLoader>(fixture());
    auto loader_shim = std::make_shared<SkillsShim>(SkillsShimOptions{.loader = own});
    auto m = std::make_shared<ScriptedModel>(std::vector<Message>{});
    DefaultAgent a1({.name = "a1", .instructions = "", .model = m, .tools = {}, .shims = {loader_shim}});
    DefaultAgent a2({.name = "a2", .instructions = "", .model = m, .tools = {}, .shims = {loader_shim}});
    CHECK(own->discovers == 2);
}

namespace {

std::vector<LoadedSkill> filtering_fixture() {
    auto reader = make_skill("reader", "Read-only work.", "f/reader", "Only read.");
    reader.manifest.tools = std::vector<std::string>{"read", "grep", "bash"};
    reader.manifest.disallowed_tools = {"bash"};
    auto writer = make_skill("writer", "Writes.", "f/writer", "Write.");
    writer.manifest.tools = std::vector<std::string>{"write", "activate_skill"};
    auto quiet = make_skill("quiet", "No more skills, no shell.", "f/quiet", "Quiet.");
    quiet.manifest.disallowed_tools = {"activate_skill", "bash"};
    return {reader, writer, quiet};
}

/// Adds a `bash` tool on every turn: placed after SkillsShim in the descriptor.
class ShellShim final : public Shim {
public:
    [[nodiscard]] std::string_view name() const noexcept override { return "shell"; }
    [[nodiscard]] std::unique_ptr<BoundShim> bind(const AgentDescriptor&) override {
        struct Bound final : BoundShim {
            void prepare_turn(PreparedTurn& turn) override { turn.add_tool(plain_tool("bash")); }
        };
        return std::make_unique<Bound>();
    }
};

}  // namespace

TEST_CASE("deny-first tool filtering, including hiding activate_skill", "[shim]") {
    const std::vector<Tool> tools = {plain_tool("read"), plain_tool("write"), plain_tool("grep"), plain_tool("bash")};

    SECTION("an allow list limits the pool; its denies win; activate_skill outside the list stays") {
        auto s = make_agent({assistant_message("", {activate("c1", "reader")}), assistant_message("ok")}, {}, tools, {},
                            filtering_fixture());
        (void)s.agent->run("go");
        auto reqs = s.model->requests();
        CHECK(tool_names(reqs[0]) == std::vector<std::string>{"read", "write", "grep", "bash", "activate_skill"});
        // A `tools` list never hides the activation tool (only `disallowedTools` can).
        CHECK(tool_names(reqs[1]) == std::vector<std::string>{"read", "grep", "activate_skill"});
    }
    SECTION("allow lists of several active skills are united; denies of any skill still win") {
        auto s = make_agent({assistant_message("", {activate("c1", "reader"), activate("c2", "writer")}),
                             assistant_message("", {activate("c3", "quiet")}), assistant_message("ok")},
                            {}, tools, {}, filtering_fixture());
        (void)s.agent->run("go");
        auto reqs = s.model->requests();
        CHECK(tool_names(reqs[1]) == std::vector<std::string>{"read", "write", "grep", "activate_skill"});
        CHECK(tool_names(reqs[2]) == std::vector<std::string>{"read", "write", "grep"});
    }
    SECTION("a deny list alone keeps every other tool and can hide activate_skill") {
        auto s = make_agent({assistant_message("", {activate("c1", "quiet")}), assistant_message("ok")}, {}, tools, {},
                            filtering_fixture());
        (void)s.agent->run("go");
        CHECK(tool_names(s.model->requests()[1]) == std::vector<std::string>{"read", "write", "grep"});
    }
}

TEST_CASE("filtering also hides tools added by a shim placed after SkillsShim", "[shim]") {
    auto loader = std::make_shared<TestLoader>(filtering_fixture());
    auto model = std::make_shared<ScriptedModel>(
        std::vector<Message>{assistant_message("", {activate("c1", "quiet")}), assistant_message("ok")});
    DefaultAgent agent(
        {.name = "f",
         .instructions = "",
         .model = model,
         .tools = {plain_tool("read")},
         .shims = {std::make_shared<SkillsShim>(SkillsShimOptions{.loader = loader}), std::make_shared<ShellShim>()}});
    (void)agent.run("go");
    auto reqs = model->requests();
    CHECK(tool_names(reqs[0]) == std::vector<std::string>{"read", "activate_skill", "bash"});
    CHECK(tool_names(reqs[1]) == std::vector<std::string>{"read"});
}

namespace {
class RecordingHooks final : public RunnerHooks {
public:
    void on_agent_start(const AgentDescriptor& a, const RunState&) override {
        events.push_back("agent_start " + a.name);
    }
    void on_agent_end(const AgentDescriptor&, const RunResult* r) override {
        events.push_back("agent_end " + (r ? r->final_output : std::string("<error>")));
    }
    void on_llm_start(const AgentDescriptor&, const ModelRequest& r) override {
        events.push_back("llm_start " + std::to_string(r.tools.size()));
    }
    void on_llm_end(const AgentDescriptor&, const Message& m) override {
        events.push_back("llm_end " + std::to_string(m.tool_calls.size()));
    }
    void on_tool_call_start(const AgentDescriptor&, const ToolCall& c) override {
        events.push_back("tool_start " + c.id + " " + c.name + " " + c.arguments);
    }
    void on_tool_call_end(const AgentDescriptor&, const ToolCall& c, const ToolResult& r) override {
        events.push_back("tool_end " + c.id + " " + c.name + " " + c.arguments + " -> " +
                         r.content.substr(0, r.content.find('\n')));
    }
    std::vector<std::string> events;
};
}  // namespace

TEST_CASE("hooks see the activate_skill call start and end with its raw arguments", "[shim]") {
    auto hooks = std::make_shared<RecordingHooks>();
    const std::string raw = "{ \"name\" :  \"pdf-forms\" }";
    auto s = make_agent({assistant_message("", {ToolCall{.id = "c1", .name = "activate_skill", .arguments = raw}}),
                         assistant_message("done")},
                        {}, {}, {.max_turns = 4, .parallel_tool_calls = false, .hooks = hooks});
    (void)s.agent->run("go");
    CHECK(hooks->events == std::vector<std::string>{
                               "agent_start tester",
                               "llm_start 1",
                               "llm_end 1",
                               "tool_start c1 activate_skill " + raw,
                               "tool_end c1 activate_skill " + raw + " -> <skill_content name=\"pdf-forms\">",
                               "llm_start 1",
                               "llm_end 0",
                               "agent_end done",
                           });
}

// ---------------------------------------------------------------------------------------
// Budget.

namespace {
std::vector<LoadedSkill> many_skills(int n) {
    std::vector<LoadedSkill> out;
    for (int i = 0; i < n; ++i) {
        auto id = std::to_string(i);
        out.push_back(make_skill("skill-" + id,
                                 "Handles task number " + id + " of the large library, with a longer description.",
                                 "/lib/skill-" + id, "body " + id));
    }
    return out;
}
}  // namespace

TEST_CASE("budget: 1,000 skills within 8,000 characters", "[shim][budget]") {
    auto loader = std::make_shared<TestLoader>(many_skills(1000));
    auto catalog = discover_skill_catalog(loader);
    auto shim_ptr = std::make_shared<SkillsShim>(SkillsShimOptions{.catalog = catalog, .budget = {.limit = 8000}});
    const SkillsShim& shim = *shim_ptr;
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{assistant_message("ok")});
    DefaultAgent agent({.name = "big", .instructions = "", .model = model, .tools = {}, .shims = {shim_ptr}});
    (void)agent.run("go");
    const std::string block = model->requests()[0].messages[0].content;
    CHECK(block.size() <= 8000);

    SkillsPrompt p = shim.render_prompt(*catalog);
    CHECK(p.text == block);
    CHECK(p.size <= 8000);
    REQUIRE_FALSE(p.omitted.empty());
    CHECK(p.listed.size() + p.omitted.size() == 1000);
    CHECK(p.without_description.size() == p.listed.size());
    CHECK(block.find(std::to_string(p.omitted.size()) +
                     " more skills are not listed here, to keep this list within its size budget.") !=
          std::string::npos);
    // The end of the catalog goes first.
    CHECK(p.listed.front() == "skill-0");
    CHECK(p.omitted.back() == "skill-999");
    CHECK(p.omitted.front() == "skill-" + std::to_string(p.listed.size()));
    // The host API of the bound shim returns the same names.
    auto bound = std::make_shared<SkillsShim>(SkillsShimOptions{.catalog = catalog, .budget = {.limit = 8000}});
    DefaultAgent a2({.name = "b2", .instructions = "", .model = model, .tools = {}, .shims = {bound}});
    CHECK(bound->omitted_skill_names() == p.omitted);
    // Omitted skills can still be activated.
    CHECK(block.find("skill-999") == std::string::npos);

    SkillsShim unlimited({.catalog = catalog});
    SkillsPrompt all = unlimited.render_prompt(*catalog);
    CHECK(all.omitted.empty());
    CHECK(all.without_description.empty());
    CHECK(all.listed.size() == 1000);
    CHECK(all.text.find("not listed here") == std::string::npos);
}

TEST_CASE("budget: descriptions go before entries, by priority, with a token counter", "[shim][budget]") {
    auto loader = std::make_shared<TestLoader>(many_skills(6));
    auto catalog = discover_skill_catalog(loader);
    const std::size_t full = SkillsShim({.catalog = catalog}).render_prompt(*catalog).size;

    // Just under the full size: only the last entry loses its description.
    SkillsPrompt trimmed = SkillsShim({.catalog = catalog, .budget = {.limit = full - 1}}).render_prompt(*catalog);
    CHECK(trimmed.without_description == std::vector<std::string>{"skill-5"});
    CHECK(trimmed.omitted.empty());
    CHECK(trimmed.size <= full - 1);

    // Priorities: skill-0 is the least important.
    auto prio = [](const SkillManifest& m) { return m.name == "skill-0" ? 0 : 1; };
    SkillsPrompt by_prio =
        SkillsShim({.catalog = catalog, .budget = {.limit = full - 1, .count = nullptr, .priority = prio}})
            .render_prompt(*catalog);
    CHECK(by_prio.without_description == std::vector<std::string>{"skill-0"});

    // Every description gone is still too much: the last entry is left out, and reported.
    std::size_t all_bare = full;
    for (const auto& m : *catalog)
        all_bare -= std::string("    <description></description>\n").size() + m.description.size();
    SkillsPrompt one_out = SkillsShim({.catalog = catalog, .budget = {.limit = all_bare - 1}}).render_prompt(*catalog);
    CHECK(one_out.omitted == std::vector<std::string>{"skill-5"});
    CHECK(one_out.without_description.size() == 5);
    CHECK(one_out.size <= all_bare - 1);
    CHECK(one_out.text.find("</available_skills>\n1 more skill is not listed here, to keep this list within its "
                            "size budget.") != std::string::npos);

    // A token counter (words, here).
    auto words = [](std::string_view t) {
        std::size_t n = 0;
        bool in = false;
        for (char c : t) {
            bool space = c == ' ' || c == '\n';
            if (!space && !in) ++n;
            in = !space;
        }
        return n;
    };
    const std::size_t full_words = words(SkillsShim({.catalog = catalog}).render_prompt(*catalog).text);
    SkillsPrompt tokens =
        SkillsShim({.catalog = catalog, .budget = {.limit = full_words - 1, .count = words, .priority = nullptr}})
            .render_prompt(*catalog);
    CHECK(tokens.size == words(tokens.text));
    CHECK(tokens.size <= full_words - 1);
    CHECK(tokens.without_description == std::vector<std::string>{"skill-5"});
}

// ---------------------------------------------------------------------------------------
// Activation through FilesystemSkillLoader: read_path in each reader's namespace.

namespace {

const std::string refund_md =
    "---\n"
    "name: refund-policy\n"
    "description: Decide refunds under the store policy.\n"
    "---\n"
    "\n"
    "Check references/policy.md before answering.\n";

std::string refund_content(const std::string& root) {
    return "<skill_content name=\"refund-policy\">\n"
           "Check references/policy.md before answering.\n"
           "\n"
           "Skill directory: " +
           root + "\n" + std::string(SKILL_DIRECTORY_NOTE) +
           "\n"
           "\n"
           "<skill_resources>\n"
           "  <file path=\"scripts/refund.py\" read_path=\"" +
           root +
           "/scripts/refund.py\" />\n"
           "  <file path=\"references/policy.md\" read_path=\"" +
           root +
           "/references/policy.md\" />\n"
           "  <file path=\"notes.txt\" read_path=\"" +
           root +
           "/notes.txt\" />\n"
           "</skill_resources>\n"
           "</skill_content>";
}

std::shared_ptr<MemorySkillReader> refund_memory() {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("skills/refund-policy/SKILL.md", refund_md);
    mem->add_file("skills/refund-policy/references/policy.md", "Refunds within 30 days.");
    mem->add_file("skills/refund-policy/scripts/refund.py", "print('ok')");
    mem->add_file("skills/refund-policy/notes.txt", "n");
    return mem;
}

std::string activate_once(const SkillLoaderPtr& loader, std::string* location = nullptr) {
    auto model = std::make_shared<ScriptedModel>(
        std::vector<Message>{assistant_message("", {activate("c1", "refund-policy")}), assistant_message("ok")});
    DefaultAgent agent({.name = "r",
                        .instructions = "",
                        .model = model,
                        .tools = {},
                        .shims = {std::make_shared<SkillsShim>(SkillsShimOptions{.loader = loader})}});
    (void)agent.run("refund?");
    if (location != nullptr) {
        const std::string sys = model->requests()[0].messages[0].content;
        auto b = sys.find("<location>") + 10;
        *location = sys.substr(b, sys.find("</location>") - b);
    }
    return agent.run_state().history[2].content;
}

}  // namespace

TEST_CASE("activation read_path: plain injected reader (relative paths)", "[shim][reader]") {
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {"skills"}, .include_default_roots = false, .reader = refund_memory()});
    std::string location;
    CHECK(activate_once(loader, &location) == refund_content("skills/refund-policy"));
    CHECK(location == "skills/refund-policy/SKILL.md");
}

TEST_CASE("activation read_path: mounted reader (rooted virtual paths)", "[shim][reader]") {
    auto tenant = std::make_shared<MemorySkillReader>();
    tenant->add_file("sessions/s1/notes.md", "x");
    auto mounted = std::make_shared<MountedReader>(
        std::map<std::string, SkillReaderPtr, std::less<>>{{"local", refund_memory()}, {"tenant", tenant}});
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {"/local/skills"}, .include_default_roots = false, .reader = mounted});
    std::string location;
    CHECK(activate_once(loader, &location) == refund_content("/local/skills/refund-policy"));
    CHECK(location == "/local/skills/refund-policy/SKILL.md");
}

TEST_CASE("activation read_path: local file system (absolute paths)", "[shim][reader]") {
    namespace fs = std::filesystem;
    const fs::path base = fs::temp_directory_path() / ("agentskills-shim-" + std::to_string(::getpid()));
    fs::remove_all(base);
    const fs::path dir = base / "skills" / "refund-policy";
    fs::create_directories(dir / "references");
    fs::create_directories(dir / "scripts");
    std::ofstream(dir / "SKILL.md") << refund_md;
    std::ofstream(dir / "references" / "policy.md") << "Refunds within 30 days.";
    std::ofstream(dir / "scripts" / "refund.py") << "print('ok')";
    std::ofstream(dir / "notes.txt") << "n";
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {(base / "skills").string()}, .include_default_roots = false});
    const std::string root = fs::canonical(dir).string();
    std::string location;
    CHECK(activate_once(loader, &location) == refund_content(root));
    CHECK(location == root + "/SKILL.md");
    fs::remove_all(base);
}

TEST_CASE("a failed load is an error result and leaves the skill inactive", "[shim]") {
    auto skills = fixture();
    auto loader = std::make_shared<TestLoader>(skills);
    // A catalog that lists a skill the loader cannot load.
    Discovery d;
    for (const auto& s : skills) d.skills.push_back(s.manifest);
    d.skills.push_back(make_skill("ghost", "Vanished from storage.", "skills/ghost", "").manifest);
    auto catalog = std::make_shared<const SkillCatalog>(loader, d);
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{assistant_message("", {activate("c1", "ghost")}),
                                                                      assistant_message("", {activate("c2", "ghost")}),
                                                                      assistant_message("done")});
    auto shim = std::make_shared<SkillsShim>(SkillsShimOptions{.catalog = catalog});
    DefaultAgent agent({.name = "g", .instructions = "", .model = model, .tools = {}, .shims = {shim}});
    (void)agent.run("go");
    const auto& h = agent.run_state().history;
    CHECK(h[2].content == "error: ghost");
    CHECK(h[4].content == "error: ghost");  // tried again, not "already active"
    CHECK(shim->active_skill_names(agent.run_state()).empty());
    CHECK(loader->loads == 2);
}

}  // namespace skills_shim_tests

// =======================================================================================
// render() against what the model really receives through SkillsShim.

namespace host_shim_tests {

namespace fs = std::filesystem;
using namespace agentskills;

namespace {

using ShimTempDir = agentskills_test::TempDir;

}  // namespace

TEST_CASE("render() is the text the model receives when SkillsShim activates the skill", "[host][render][shim]") {
    ShimTempDir dir;
    dir.write("skills/code-review/SKILL.md",
              "---\nname: code-review\ndescription: Review a change.\n---\n\nReview $ARGUMENTS by severity.\n");
    dir.write("skills/code-review/references/levels.md", "high, medium, low");
    dir.write("skills/publish/SKILL.md",
              "---\nname: publish\ndescription: Publish a release.\ndisable-model-invocation: true\n---\nShip it.\n");
    const SkillsConfig config{.directories = {dir.str("skills")}};

    const HostCatalog catalog = load_host_catalog(config);
    REQUIRE(catalog.skills.size() == 2);
    const SkillDefinition* review = catalog.find("code-review");
    REQUIRE(review != nullptr);

    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("",
                          {ToolCall{.id = "c1", .name = "activate_skill", .arguments = R"({"name": "code-review"})"}}),
        assistant_message("done")});
    auto shim = std::make_shared<SkillsShim>(
        SkillsShimOptions{.loader = std::make_shared<CombinedSkillLoader>(std::vector<SkillsConfig>{config})});
    DefaultAgent agent(AgentDescriptor{.name = "a", .instructions = "Base.", .model = model, .shims = {shim}});
    (void)agent.run("please review");

    const auto& history = agent.run_state().history;
    REQUIRE(history.size() >= 3);
    CHECK(history[2].role == Role::tool);
    CHECK(history[2].content == review->render());

    // `publish` is in the host catalog (for people) but not in the model's.
    const SkillDefinition* publish = catalog.find("publish");
    REQUIRE(publish != nullptr);
    CHECK_FALSE(publish->model_invocable);
    const std::string system = model->requests().at(0).messages.at(0).content;
    CHECK(system.find("<name>code-review</name>") != std::string::npos);
    CHECK(system.find("<name>publish</name>") == std::string::npos);
}

TEST_CASE("a skill read from another workspace: the model's activation leaves the directory out, as render() does",
          "[host][render][shim]") {
    auto storage = std::make_shared<MemorySkillReader>();
    storage->add_file("app/skills/deploy/SKILL.md",
                      "---\nname: deploy\ndescription: Deploy the app.\n---\nRun the deploy.\n");
    storage->add_file("app/skills/deploy/scripts/go.sh", "echo go\n");
    const SkillsConfig config{.directories = {"app/skills"}, .workspace = storage};

    const HostCatalog catalog = load_host_catalog(config);
    const SkillDefinition* deploy = catalog.find("deploy");
    REQUIRE(deploy != nullptr);
    CHECK_FALSE(deploy->in_run_workspace);

    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("", {ToolCall{.id = "c1", .name = "activate_skill", .arguments = R"({"name": "deploy"})"}}),
        assistant_message("done")});
    auto shim = std::make_shared<SkillsShim>(
        SkillsShimOptions{.loader = std::make_shared<CombinedSkillLoader>(std::vector<SkillsConfig>{config})});
    DefaultAgent agent(AgentDescriptor{.name = "a", .model = model, .shims = {shim}});
    (void)agent.run("deploy it");

    const auto& history = agent.run_state().history;
    REQUIRE(history.size() >= 3);
    // No directory and no read_path the model's tools could not reach (issue 14, item 5).
    // SkillDefinition::render gives the same text (one renderer, render_activation_text).
    CHECK(history[2].content ==
          "<skill_content name=\"deploy\">\n"
          "Run the deploy.\n"
          "\n"
          "<skill_resources>\n"
          "  <file path=\"scripts/go.sh\" />\n"
          "</skill_resources>\n"
          "</skill_content>");
    CHECK(history[2].content.find("Skill directory:") == std::string::npos);
    CHECK(deploy->render() == history[2].content);
}

}  // namespace host_shim_tests
