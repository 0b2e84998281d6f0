// A program that uses an installed agentskills through find_package.
#include <iostream>

#include <agentskills/agentskills.hpp>

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    auto loader = std::make_shared<agentskills::FilesystemSkillLoader>(
        agentskills::FilesystemLoaderOptions{.roots = {argv[1]}, .include_default_roots = false});
    auto catalog = agentskills::discover_skill_catalog(loader);
    std::cout << "skills: " << catalog->size() << "\n";
    for (const auto& m : *catalog) std::cout << m.name << "\n";
    return catalog->empty() ? 1 : 0;
}
