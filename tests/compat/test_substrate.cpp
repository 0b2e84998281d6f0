// Tests for substrate.hpp: SkillManager, SkillTool, SkillPackage.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <catch2/catch.hpp>

#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/compat/substrate.hpp"
#include "agentskills/storage/reader.hpp"

#include "fs_fixtures.hpp"

// =======================================================================================
// Tests for substrate.hpp: SkillManager, SkillTool, SkillPackage.

namespace substrate_tests {

namespace fs = std::filesystem;
using namespace agentskills;

namespace {

/// An in-memory loader that counts its calls.
class CountingLoader final : public SkillLoader {
public:
    void add(const std::string& name, const std::string& description, const std::string& body,
             std::vector<std::string> aliases = {}, bool hidden = false, std::vector<std::string> resources = {}) {
        std::lock_guard lock(mutex_);
        LoadedSkill s;
        s.manifest.name = name;
        s.manifest.description = description;
        s.manifest.root = "lib/" + name;
        s.manifest.skill_file = "lib/" + name + "/SKILL.md";
        s.manifest.aliases = std::move(aliases);
        s.manifest.disable_model_invocation = hidden;
        s.instructions = body;
        for (auto& r : resources) s.resources.push_back({std::move(r)});
        skills_[name] = std::move(s);
        order_.push_back(name);
    }
    Discovery discover() override {
        std::lock_guard lock(mutex_);
        ++discovers;
        Discovery d;
        for (const auto& n : order_) d.skills.push_back(skills_.at(n).manifest);
        return d;
    }
    LoadedSkill load(std::string_view name) override {
        std::lock_guard lock(mutex_);
        ++loads;
        auto it = skills_.find(std::string(name));
        if (it == skills_.end()) throw NotFoundError("no such skill");
        return it->second;
    }
    std::atomic<int> discovers{0};
    std::atomic<int> loads{0};

private:
    std::mutex mutex_;
    std::map<std::string, LoadedSkill> skills_;
    std::vector<std::string> order_;
};

std::shared_ptr<CountingLoader> sample_loader() {
    auto loader = std::make_shared<CountingLoader>();
    loader->add("code-review", "Review code for quality.", "Check every function.", {"review-code", "pr-review"}, false,
                {"scripts/build.sh", "references/schema.json"});
    loader->add("summarization", "Summarise text.", "Be brief.");
    loader->add("secret-admin", "Only a person may run this.", "Admin steps.", {}, true);
    return loader;
}

using agentskills_test::TempDir;

const std::string guidance =
    "Skills are packages of instructions for particular kinds of task. When a task matches the description "
    "of a skill listed below, call the `skill` tool with action \"activate\" and the skill's name to receive "
    "its instructions before you start; action \"list\" shows the skills again.\n\n";

}  // namespace

// ---------------------------------------------------------------------------------------
// SkillManager

TEST_CASE("SkillManager discovers at construction and again on demand", "[substrate][manager]") {
    auto loader = sample_loader();
    SkillManager manager({.loader = loader});
    CHECK(loader->discovers == 1);
    CHECK(manager.skills().size() == 3);
    CHECK(loader->loads == 0);  // metadata only

    manager.discover();
    manager.discover();
    CHECK(loader->discovers == 3);
    CHECK(manager.skills().size() == 3);

    loader->add("late", "Added later.", "Late body.");
    CHECK_FALSE(manager.find("late").has_value());
    manager.discover();
    REQUIRE(manager.find("late").has_value());
    CHECK(manager.skills().back().name == "late");

    SkillManager lazy({.loader = loader, .auto_discover = false});
    CHECK(lazy.skills().empty());
    CHECK_THROWS_AS(SkillManager({.loader = loader, .roots = {"x"}}), ConfigurationError);
}

TEST_CASE("SkillManager::inject_into_prompt", "[substrate][manager]") {
    auto loader = sample_loader();
    SkillManager manager({.loader = loader});
    std::vector<SkillManifest> all = manager.skills();
    const std::vector<const SkillManifest*> visible{&all[0], &all[1]};  // not secret-admin

    CHECK(manager.inject_into_prompt("You are helpful.") ==
          "You are helpful.\n\n" + guidance + render_available_skills(visible));
    CHECK(manager.inject_into_prompt("You are helpful.\n") ==
          "You are helpful.\n\n" + guidance + render_available_skills(visible));
    CHECK(manager.inject_into_prompt("") == guidance + render_available_skills(visible));

    auto empty = std::make_shared<CountingLoader>();
    empty->add("only-hidden", "Hidden.", "Body.", {}, true);
    SkillManager nothing({.loader = empty});
    CHECK(nothing.inject_into_prompt("Base prompt.") == "Base prompt.");

    SkillManager renamed({.loader = loader, .tool_name = "skills_tool"});
    CHECK(renamed.inject_into_prompt("B").find("call the `skills_tool` tool") != std::string::npos);
}

TEST_CASE("SkillManager activates by name and alias, loading the body once", "[substrate][manager]") {
    auto loader = sample_loader();
    SkillManager manager({.loader = loader});

    SkillPackagePtr by_name = manager.activate("code-review");
    REQUIRE(by_name != nullptr);
    CHECK(loader->loads == 1);
    CHECK(by_name->name() == "code-review");
    CHECK(by_name->instructions() == "Check every function.");

    SkillPackagePtr by_alias = manager.activate("pr-review");
    CHECK(by_alias == by_name);  // already active: the same package, no second load
    CHECK(loader->loads == 1);
    CHECK(manager.is_active("review-code"));
    CHECK(manager.active_names() == std::vector<std::string>{"code-review"});

    CHECK(manager.activate("no-such-skill") == nullptr);
    CHECK(loader->loads == 1);

    // A host may activate a skill hidden from the model.
    REQUIRE(manager.activate("secret-admin") != nullptr);
    CHECK(manager.active_names() == std::vector<std::string>{"code-review", "secret-admin"});
}

TEST_CASE("parallel activations of one skill load it once", "[substrate][manager]") {
    auto loader = sample_loader();
    SkillManager manager({.loader = loader});
    std::vector<SkillPackagePtr> got(8);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < got.size(); ++i) {
        threads.emplace_back([&, i] { got[i] = manager.activate(i % 2 == 0 ? "code-review" : "pr-review"); });
    }
    for (auto& t : threads) t.join();
    CHECK(loader->loads == 1);
    for (const auto& p : got) CHECK(p == got[0]);
    CHECK(manager.active_names() == std::vector<std::string>{"code-review"});
}

TEST_CASE("SkillManager::active_context_block and deactivate_all", "[substrate][manager]") {
    auto loader = sample_loader();
    SkillManager manager({.loader = loader});
    CHECK(manager.active_context_block().empty());

    auto review = manager.activate("code-review");
    auto summary = manager.activate("summarization");
    REQUIRE(review);
    REQUIRE(summary);
    CHECK(manager.active_context_block() == review->to_context_block() + "\n\n" + summary->to_context_block());
    CHECK(manager.active_context_block() ==
          "## Skill: code-review\n\nCheck every function.\n\nSkill directory: lib/code-review\n\n"
          "Bundled files (relative to the skill directory):\n- scripts/build.sh\n- references/schema.json\n\n"
          "## Skill: summarization\n\nBe brief.\n\nSkill directory: lib/summarization");

    manager.deactivate_all();
    CHECK(manager.active().empty());
    CHECK(manager.active_context_block().empty());
    CHECK_FALSE(manager.is_active("code-review"));
    // Still usable after: the next activation loads again.
    REQUIRE(manager.activate("review-code") != nullptr);
    CHECK(loader->loads == 3);
}

TEST_CASE("SkillManager over a FilesystemSkillLoader", "[substrate][manager]") {
    TempDir dir;
    dir.write("skills/code-review/SKILL.md",
              "---\nname: code-review\ndescription: Review code.\naliases: [pr-review]\n---\n\nReview it.\n");
    dir.write("skills/code-review/scripts/run.sh", "#!/bin/sh\n");
    dir.write("skills/code-review/references/schema.json", "{}");
    SkillManager manager({.roots = {(dir.dir() / "skills").string()}});
    REQUIRE(manager.skills().size() == 1);
    auto package = manager.activate("pr-review");
    REQUIRE(package != nullptr);
    CHECK(package->list_scripts() == std::vector<std::string>{"run.sh"});
    CHECK(package->read_reference("schema.json") == std::optional<std::string>("{}"));
    const std::string root = fs::canonical(dir.dir() / "skills/code-review").string();
    CHECK(package->to_context_block().find("Skill directory: " + root) != std::string::npos);
}

namespace {

/// A loader of its own that reads through a given reader and keeps skills out of the workspace.
class ElsewhereLoader final : public SkillLoader {
public:
    explicit ElsewhereLoader(SkillReaderPtr reader) : reader_(std::move(reader)) {}
    Discovery discover() override {
        Discovery d;
        d.skills.push_back(skill().manifest);
        return d;
    }
    LoadedSkill load(std::string_view) override { return skill(); }
    bool in_run_workspace(std::string_view name) const override { return name != "remote"; }
    SkillReaderPtr reader_for(std::string_view name) const override { return name == "remote" ? reader_ : nullptr; }

private:
    static LoadedSkill skill() {
        LoadedSkill s;
        s.manifest.name = "remote";
        s.manifest.description = "Served from elsewhere.";
        s.manifest.root = "lib/remote";
        s.manifest.skill_file = "lib/remote/SKILL.md";
        s.instructions = "Use the guide.";
        s.resources = {{"references/guide.md"}};
        return s;
    }
    SkillReaderPtr reader_;
};

}  // namespace

TEST_CASE("SkillManager asks any loader for the reader and the workspace", "[substrate][manager]") {
    auto reader = std::make_shared<MemorySkillReader>();
    reader->add_file("lib/remote/references/guide.md", "the guide");
    SkillManager manager({.loader = std::make_shared<ElsewhereLoader>(reader)});
    auto package = manager.activate("remote");
    REQUIRE(package != nullptr);
    CHECK(package->read_reference("guide.md") == std::optional<std::string>("the guide"));
    CHECK(package->to_context_block() ==
          "## Skill: remote\n\nUse the guide.\n\n"
          "Bundled files (relative to the skill directory):\n- references/guide.md");

    // The base class defaults: no reader of its own, always in the workspace.
    const CountingLoader plain;
    CHECK(plain.reader_for("code-review") == nullptr);
    CHECK(plain.in_run_workspace("code-review"));
}

// ---------------------------------------------------------------------------------------
// SkillTool

TEST_CASE("SkillTool schema and spec", "[substrate][tool]") {
    auto manager = std::make_shared<SkillManager>(SkillManagerOptions{.loader = sample_loader()});
    SkillTool tool(manager);
    CHECK(tool.name() == "skill");
    CHECK(tool.parameters_schema() == nlohmann::json::parse(R"({
      "type": "object",
      "properties": {
        "action": {"type": "string", "enum": ["list", "activate"],
                   "description": "What to do: list the skills or activate one."},
        "name": {"type": "string", "minLength": 1,
                 "description": "The skill to activate (its name or an alias). Required for \"activate\"."}
      },
      "required": ["action"],
      "additionalProperties": false
    })"));
    const nlohmann::json spec = tool.tool_spec();
    CHECK(spec["type"] == "function");
    CHECK(spec["function"]["name"] == "skill");
    CHECK(spec["function"]["description"] == tool.description());
    CHECK(spec["function"]["parameters"] == tool.parameters_schema());
    CHECK(tool.tool_spec() == spec);  // stable
    CHECK_THROWS_AS(SkillTool(nullptr), ConfigurationError);
}

TEST_CASE("SkillTool list and activate", "[substrate][tool]") {
    auto loader = sample_loader();
    auto manager = std::make_shared<SkillManager>(SkillManagerOptions{.loader = loader});
    SkillTool tool(manager);

    CHECK(tool.execute(R"({"action": "list"})") ==
          "Available skills:\n- code-review: Review code for quality.\n- summarization: Summarise text.");

    const std::string first = tool.execute(R"({"action": "activate", "name": "review-code"})");
    REQUIRE(manager->activate("code-review") != nullptr);
    CHECK(first == manager->activate("code-review")->to_context_block());
    CHECK(loader->loads == 1);
    CHECK(tool.execute_object(nlohmann::json{{"action", "activate"}, {"name", "code-review"}}) ==
          "The skill \"code-review\" is already active: its instructions are in the \"## Skill: code-review\" block "
          "that an earlier skill call returned in this conversation. Keep following that block; do not call skill "
          "for this skill again.");
    CHECK(loader->loads == 1);

    // Hidden from the model: neither listed nor activatable through the tool.
    CHECK(tool.execute(R"({"action": "activate", "name": "secret-admin"})") ==
          "There is no skill named \"secret-admin\". Available skills: code-review, summarization.");
    CHECK_FALSE(manager->is_active("secret-admin"));
    CHECK(tool.execute(R"({"action": "activate", "name": "nope"})") ==
          "There is no skill named \"nope\". Available skills: code-review, summarization.");

    // Bad calls are answered with a message, never an exception.
    const std::string usage =
        " The skill tool takes \"action\": \"list\" to list the skills, or \"activate\" with \"name\", the name "
        "of a skill, for example {\"action\": \"activate\", \"name\": \"code-review\"}.";
    CHECK(tool.execute(R"({"action": "activate"})") == "The argument \"name\" is missing." + usage);
    CHECK(tool.execute(R"({"action": "activate", "name": ""})") ==
          "The argument \"name\" must be a non-empty string." + usage);
    CHECK(tool.execute(R"({"action": "activate", "name": 7})") ==
          "The argument \"name\" must be a non-empty string." + usage);
    CHECK(tool.execute(R"({"action": "delete"})") == "The action \"delete\" is not known." + usage);
    CHECK(tool.execute(R"({})") == "The argument \"action\" is missing." + usage);
    CHECK(tool.execute(R"({"action": 1})") == "The argument \"action\" must be a non-empty string." + usage);
    CHECK(tool.execute(R"({"action": "list", "extra": 1})") == "The argument \"extra\" is not known." + usage);
    CHECK(tool.execute(R"([1])") == "The arguments are not a JSON object." + usage);
    CHECK(tool.execute("{not json") == "The arguments are not valid JSON." + usage);

    manager->deactivate_all();
    CHECK(tool.execute(R"({"action": "activate", "name": "code-review"})") == first);

    auto empty = std::make_shared<SkillManager>(SkillManagerOptions{.loader = std::make_shared<CountingLoader>()});
    CHECK(SkillTool(empty).execute(R"({"action": "list"})") == "No skills are available.");
    CHECK(SkillTool(empty).execute(R"({"action": "activate", "name": "x"})") ==
          "There is no skill named \"x\". No skills are available.");
    CHECK(SkillTool(empty).execute(R"({"action": "go"})") ==
          "The action \"go\" is not known. The skill tool takes \"action\": \"list\" to list the skills, or "
          "\"activate\" with \"name\", the name of a skill, for example {\"action\": \"activate\", \"name\": "
          "\"skill-name\"}.");
}

// ---------------------------------------------------------------------------------------
// SkillPackage

TEST_CASE("SkillPackage::to_context_block and list_scripts", "[substrate][package]") {
    LoadedSkill s;
    s.manifest.name = "builder";
    s.manifest.root = "/skills/builder";
    s.instructions = "Build it.";
    s.resources = {
        {"scripts/build.sh"}, {"scripts/lib/util.py"}, {"scripts/a.py"}, {"references/x.md"}, {"scriptsx/no.sh"}};
    const SkillPackage package(s);
    CHECK(package.list_scripts() == std::vector<std::string>{"a.py", "build.sh", "lib/util.py"});
    CHECK(package.to_context_block() ==
          "## Skill: builder\n\nBuild it.\n\nSkill directory: /skills/builder\n\n"
          "Bundled files (relative to the skill directory):\n- scripts/build.sh\n- scripts/lib/util.py\n"
          "- scripts/a.py\n- references/x.md\n- scriptsx/no.sh");

    LoadedSkill bare;
    bare.manifest.name = "bare";
    bare.manifest.root = "/skills/bare";
    CHECK(SkillPackage(bare, nullptr, false).to_context_block() == "## Skill: bare");
    CHECK(SkillPackage(bare).list_scripts().empty());
}

TEST_CASE("SkillPackage::read_reference stays inside the skill directory", "[substrate][package]") {
    TempDir dir;
    dir.write("skill/SKILL.md", "---\nname: skill\ndescription: d\n---\nbody\n");
    dir.write("skill/references/schema.json", "{\"a\": 1}");
    dir.write("skill/notes.md", "notes");
    dir.write("skill/assets/logo.txt", "logo");
    dir.write("secret.txt", "top secret");
    fs::create_directory_symlink(dir.dir(), dir.dir() / "skill/references/up");
    fs::create_symlink(dir.dir() / "secret.txt", dir.dir() / "skill/leak.txt");
    fs::create_symlink(dir.dir() / "gone.txt", dir.dir() / "skill/dangling-out.txt");
    fs::create_symlink("notes.md", dir.dir() / "skill/inner-link.md");

    LoadedSkill s;
    s.manifest.name = "skill";
    s.manifest.root = (dir.dir() / "skill").string();
    const SkillPackage package(s);

    CHECK(package.read_reference("schema.json") == std::optional<std::string>("{\"a\": 1}"));
    CHECK(package.read_reference("references/schema.json") == std::optional<std::string>("{\"a\": 1}"));
    CHECK(package.read_reference("notes.md") == std::optional<std::string>("notes"));
    CHECK(package.read_reference("./assets/logo.txt") == std::optional<std::string>("logo"));
    // No link at any step, not even one that stays inside (the one confined read, SPEC 11).
    CHECK_THROWS_AS(package.read_reference("inner-link.md"), PathError);
    CHECK(package.read_reference("schema.json", 3) == std::optional<std::string>("{\"a"));

    CHECK_FALSE(package.read_reference("missing.txt").has_value());
    CHECK_FALSE(package.read_reference("assets/missing.txt").has_value());
    CHECK_FALSE(package.read_reference("assets").has_value());  // a directory is not a file

    CHECK_THROWS_AS(package.read_reference("../x"), PathError);
    CHECK_THROWS_AS(package.read_reference("../secret.txt"), PathError);
    CHECK_THROWS_AS(package.read_reference("assets/../../secret.txt"), PathError);
    CHECK_THROWS_AS(package.read_reference((dir.dir() / "secret.txt").string()), PathError);
    CHECK_THROWS_AS(package.read_reference("/etc/passwd"), PathError);
    CHECK_THROWS_AS(package.read_reference("leak.txt"), PathError);
    CHECK_THROWS_AS(package.read_reference("up/secret.txt"), PathError);
    CHECK_THROWS_AS(package.read_reference("dangling-out.txt"), PathError);
    CHECK_THROWS_AS(package.read_reference(""), PathError);
    CHECK_THROWS_AS(package.read_reference("~/x"), PathError);
    CHECK_THROWS_AS(package.read_reference("C:/x"), PathError);
    CHECK_THROWS_AS(package.read_reference("a\\b"), PathError);
}

TEST_CASE("SkillPackage::read_reference through an in-memory reader", "[substrate][package]") {
    auto reader = std::make_shared<MemorySkillReader>();
    reader->add_file("lib/s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
    reader->add_file("lib/s/references/guide.md", "guide");
    reader->add_file("lib/s/data.csv", "1,2");
    reader->add_file("lib/other/secret.md", "secret");
    LoadedSkill s;
    s.manifest.name = "s";
    s.manifest.root = "lib/s";
    const SkillPackage package(s, reader);
    CHECK(package.read_reference("guide.md") == std::optional<std::string>("guide"));
    CHECK(package.read_reference("data.csv") == std::optional<std::string>("1,2"));
    CHECK_FALSE(package.read_reference("nothing.md").has_value());
    CHECK_THROWS_AS(package.read_reference("../other/secret.md"), PathError);
    CHECK_THROWS_AS(package.read_reference("/lib/other/secret.md"), PathError);
}

}  // namespace substrate_tests
