// Tests for re-attach after compaction (SkillActivator::reattach, SkillsShim::reattach).
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/shim/skills_shim.hpp>

using namespace agentskills;

namespace {

LoadedSkill make_skill(const std::string& name, std::string instructions, std::vector<std::string> resources = {}) {
    LoadedSkill s;
    s.manifest.name = name;
    s.manifest.description = "The " + name + " skill.";
    s.manifest.root = "/app/skills/" + name;
    s.manifest.skill_file = s.manifest.root + "/SKILL.md";
    s.instructions = std::move(instructions);
    for (auto& r : resources) s.resources.push_back({std::move(r)});
    return s;
}

class FixedLoader final : public SkillLoader {
public:
    explicit FixedLoader(std::vector<LoadedSkill> skills, std::string failing = {})
        : skills_(std::move(skills)), failing_(std::move(failing)) {}
    [[nodiscard]] Discovery discover() override {
        Discovery d;
        for (const auto& s : skills_) d.skills.push_back(s.manifest);
        return d;
    }
    [[nodiscard]] LoadedSkill load(std::string_view name) override {
        if (name == failing_) throw IoError("disk on fire");
        for (const auto& s : skills_) {
            if (s.manifest.name == name) return s;
        }
        throw NotFoundError(std::string(name));
    }

private:
    std::vector<LoadedSkill> skills_;
    std::string failing_;
};

std::size_t words(std::string_view text) {
    std::size_t n = 0;
    bool in_word = false;
    for (char c : text) {
        const bool space = c == ' ' || c == '\n' || c == '\t';
        if (!space && !in_word) ++n;
        in_word = !space;
    }
    return n;
}

std::size_t code_points(std::string_view text) {
    std::size_t n = 0;
    for (char c : text) {
        if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++n;
    }
    return n;
}

std::string numbered_lines(int count) {
    std::string out;
    for (int i = 1; i <= count; ++i) out += fmt::format("Step {} of the procedure.\n", i);
    return out;
}

const std::string marker_big =
    "[Cut to fit the re-attach budget: the rest of this skill's instructions and its file list are left out. "
    "The whole skill is in /app/skills/big/SKILL.md.]";

}  // namespace

TEST_CASE("re-attach: whole texts, most recently activated first, measured by the host's counter",
          "[activation][re-attach]") {
    std::vector<LoadedSkill> skills = {make_skill("alpha", "Do alpha."), make_skill("beta", "Do beta.", {"a.md"}),
                                       make_skill("gamma", "Do gamma.")};
    auto catalog =
        std::make_shared<const SkillCatalog>(std::make_shared<FixedLoader>(skills), FixedLoader(skills).discover());
    const SkillActivator core(catalog);
    MemoryActivationStore store;
    for (const char* n : {"beta", "alpha", "gamma"}) {
        REQUIRE(core.activate_name(store, n).status == ActivationStatus::content);
    }
    std::atomic<int> calls{0};
    const Reattachment r = core.reattach(store, {.count = [&](std::string_view text) {
                                             ++calls;
                                             return words(text);
                                         }});
    CHECK(calls.load() >= 3);
    REQUIRE(r.skills.size() == 3);
    CHECK(r.skills[0].name == "gamma");
    CHECK(r.skills[1].name == "alpha");
    CHECK(r.skills[2].name == "beta");
    const std::string beta = render_activation_text(skills[1]);
    CHECK(r.skills[2].text == beta);
    CHECK(r.skills[2].size == words(beta));
    CHECK_FALSE(r.skills[2].cut);
    CHECK(r.text == r.skills[0].text + "\n\n" + r.skills[1].text + "\n\n" + beta);
    CHECK(r.size == r.skills[0].size + r.skills[1].size + r.skills[2].size);
    CHECK(r.omitted.empty());
    CHECK(r.unavailable.empty());
    // The same texts as active_skills_text, in the other order.
    CHECK(core.active_skills_text(store) == beta + "\n\n" + r.skills[1].text + "\n\n" + r.skills[0].text);
}

TEST_CASE("re-attach: a skill over its budget is cut after whole lines, with the marker line",
          "[activation][re-attach]") {
    std::vector<LoadedSkill> skills = {make_skill("big", numbered_lines(400), {"scripts/run.sh"})};
    auto catalog =
        std::make_shared<const SkillCatalog>(std::make_shared<FixedLoader>(skills), FixedLoader(skills).discover());
    const SkillActivator core(catalog);
    MemoryActivationStore store;
    REQUIRE(core.activate_name(store, "big").status == ActivationStatus::content);

    const std::size_t budget = 1000;  // code points by default
    const Reattachment r = core.reattach(store, {.per_skill_budget = budget});
    REQUIRE(r.skills.size() == 1);
    const ReattachedSkill& s = r.skills[0];
    CHECK(s.cut);
    CHECK(s.size <= budget);
    CHECK(s.size == code_points(s.text));
    CHECK(reattach_cut_marker("/app/skills/big/SKILL.md") == marker_big);
    // The largest whole number of lines that fits.
    const auto form = [](int lines) {
        return "<skill_content name=\"big\">\n" + numbered_lines(lines) + marker_big + "\n</skill_content>";
    };
    int k = 0;
    while (code_points(form(k + 1)) <= budget) ++k;
    REQUIRE(k > 0);
    CHECK(s.text == form(k));
    CHECK(s.text.find("<skill_resources>") == std::string::npos);

    SECTION("a budget below one line cuts inside the first line") {
        const std::size_t tiny = code_points(form(0)) + 10;
        const Reattachment t = core.reattach(store, {.per_skill_budget = tiny});
        REQUIRE(t.skills.size() == 1);
        CHECK(t.skills[0].text == "<skill_content name=\"big\">\nStep 1 of\n" + marker_big + "\n</skill_content>");
    }
    SECTION("a budget below the bare cut form: not re-attached, named") {
        const Reattachment t = core.reattach(store, {.per_skill_budget = 50});
        CHECK(t.skills.empty());
        CHECK(t.omitted == std::vector<std::string>{"big"});
        CHECK(t.text.empty());
    }
    SECTION("budget 0: no per-skill limit") {
        const Reattachment t = core.reattach(store, {.per_skill_budget = 0, .total_budget = 0});
        REQUIRE(t.skills.size() == 1);
        CHECK(t.skills[0].text == render_activation_text(skills[0]));
    }
}

TEST_CASE("re-attach: the combined budget keeps the most recent skills and names the others",
          "[activation][re-attach]") {
    std::vector<LoadedSkill> skills = {make_skill("one", numbered_lines(20)), make_skill("two", numbered_lines(20)),
                                       make_skill("three", numbered_lines(20))};
    auto catalog =
        std::make_shared<const SkillCatalog>(std::make_shared<FixedLoader>(skills), FixedLoader(skills).discover());
    const SkillActivator core(catalog);
    MemoryActivationStore store;
    for (const char* n : {"one", "two", "three"})
        REQUIRE(core.activate_name(store, n).status == ActivationStatus::content);
    // A token counter: four bytes a token, rounded up.
    const auto tokens = [](std::string_view text) { return (text.size() + 3) / 4; };
    const std::size_t w3 = tokens(render_activation_text(skills[2]));
    const std::size_t w2 = tokens(render_activation_text(skills[1]));

    SECTION("room for two whole skills and too little for a third") {
        const Reattachment r =
            core.reattach(store, {.per_skill_budget = 5000, .total_budget = w3 + w2 + 10, .count = tokens});
        REQUIRE(r.skills.size() == 2);
        CHECK(r.skills[0].name == "three");
        CHECK(r.skills[1].name == "two");
        CHECK_FALSE(r.skills[0].cut);
        CHECK(r.omitted == std::vector<std::string>{"one"});
        CHECK(r.size == w3 + w2);
    }
    SECTION("the last one that fits is cut to what is left") {
        const Reattachment r =
            core.reattach(store, {.per_skill_budget = 5000, .total_budget = w3 + w2 + 100, .count = tokens});
        REQUIRE(r.skills.size() == 3);
        CHECK(r.skills[2].name == "one");
        CHECK(r.skills[2].cut);
        CHECK(r.skills[2].size <= 100);
        CHECK(r.size <= w3 + w2 + 100);
        CHECK(r.omitted.empty());
    }
}

TEST_CASE("re-attach: skills that left the catalog or fail to load are named as unavailable",
          "[activation][re-attach]") {
    std::vector<LoadedSkill> skills = {make_skill("alpha", "A."), make_skill("broken", "B.")};
    auto catalog = std::make_shared<const SkillCatalog>(std::make_shared<FixedLoader>(skills, "broken"),
                                                        FixedLoader(skills).discover());
    const SkillActivator core(catalog);
    MemoryActivationStore store;
    REQUIRE(core.activate_name(store, "alpha").status == ActivationStatus::content);
    REQUIRE(store.claim("broken") == ClaimResult::claimed);
    store.confirm("broken");
    REQUIRE(store.claim("ghost") == ClaimResult::claimed);
    store.confirm("ghost");
    const Reattachment r = core.reattach(store);
    REQUIRE(r.skills.size() == 1);
    CHECK(r.skills[0].name == "alpha");
    CHECK(r.unavailable == std::vector<std::string>{"ghost", "broken"});
}

TEST_CASE("re-attach: SkillsShim gives it for a run state", "[activation][re-attach][shim]") {
    std::vector<LoadedSkill> skills = {make_skill("alpha", "Do alpha."), make_skill("beta", "Do beta.")};
    auto catalog =
        std::make_shared<const SkillCatalog>(std::make_shared<FixedLoader>(skills), FixedLoader(skills).discover());
    auto shim = std::make_shared<SkillsShim>(SkillsShimOptions{.catalog = catalog});
    RunState none;
    CHECK(shim->reattach(none).skills.empty());
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("", {ToolCall{.id = "1", .name = "activate_skill", .arguments = R"({"name":"alpha"})"}}),
        assistant_message("", {ToolCall{.id = "2", .name = "activate_skill", .arguments = R"({"name":"beta"})"}}),
        assistant_message("done")});
    DefaultAgent agent({.name = "a", .model = model, .shims = {shim}});
    (void)agent.run("go");
    const Reattachment r = shim->reattach(agent.run_state(), {.per_skill_budget = 1000});
    REQUIRE(r.skills.size() == 2);
    CHECK(r.skills[0].name == "beta");
    CHECK(r.skills[1].name == "alpha");
    CHECK(r.skills[0].text == render_activation_text(skills[1]));
}
