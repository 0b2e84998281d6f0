// render() against what the model really receives through SkillsShim.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <catch2/catch.hpp>

#include "agentskills/harness.hpp"
#include "agentskills/host/host.hpp"
#include "agentskills/shim/skills_shim.hpp"

#include "fs_fixtures.hpp"

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
