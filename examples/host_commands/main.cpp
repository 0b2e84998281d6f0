// Host-side use of skills: an agent spec, person-invoked commands, and the SkillManager facade.
//
//   host_commands SKILLS_DIR
#include <iostream>
#include <memory>
#include <string>

#include <agentskills/agentskills.hpp>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: host_commands SKILLS_DIR\n";
        return 2;
    }
    using namespace agentskills;

    // 1. The skills configuration comes from an agent spec (YAML here; JSON works the same way).
    const std::string spec =
        "model: some-provider:some-model\n"
        "capabilities:\n"
        "  - Skills:\n"
        "      directories: " +
        std::string(argv[1]) + "\n";
    const std::vector<SkillsConfig> configs = parse_agent_spec(spec, SpecFormat::yaml);

    // 2. A terminal client offers every user-invocable skill as a /command.
    const HostCatalog catalog = load_host_catalog(configs);
    for (const auto& skipped : catalog.skipped) std::cerr << "skipped: " << skipped.message << "\n";
    std::cout << "commands:";
    for (const auto& skill : catalog.skills) {
        if (skill.user_invocable) std::cout << " /" << skill.name;
    }
    std::cout << "\n\n";

    // 3. The person types `/code-review src/app.py`: this text goes to the agent as a prompt.
    if (const SkillDefinition* review = catalog.find("/code-review")) {
        std::cout << review->render("src/app.py") << "\n\n";
    }

    // 4. The same libraries through the Agent Substrate facade: the model only sees the skills
    //    it may invoke, and activates them with one tool.
    auto manager =
        std::make_shared<SkillManager>(SkillManagerOptions{.loader = std::make_shared<CombinedSkillLoader>(configs)});
    std::cout << "model sees:";
    for (const auto& m : manager->skills()) {
        if (m.model_invocable()) std::cout << " " << m.name;
    }
    std::cout << "\n";
    const SkillTool tool(manager);
    std::cout << tool.execute(R"({"action": "activate", "name": "review"})") << "\n\n";
    if (auto package = manager->activate("code-review")) {
        std::cout << package->read_reference("severity.md").value_or("(no reference)");
    }
    manager->deactivate_all();
    return 0;
}
