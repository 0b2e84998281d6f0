// A program built against an installed agentskills with nothing but pkg-config:
//     g++ -std=c++20 app.cpp $(pkg-config --cflags --libs agentskills)
// and with the components: `agentskills-<name>` modules and -DAGENTSKILLS_HAVE_<NAME>=1 each.
// It discovers the skills under argv[1] (YAML through yaml-cpp, names through utf8proc, so every
// private dependency of the static library must be on the link line) and prints how many it
// found, their names and the library version.
#include <iostream>
#include <memory>

#include <agentskills/agentskills.hpp>

#include "../find-package-test/use_components.hpp"

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: app LIBRARY_DIR\n";
        return 2;
    }
    auto loader = std::make_shared<agentskills::FilesystemSkillLoader>(
        agentskills::FilesystemLoaderOptions{.roots = {argv[1]}, .include_default_roots = false});
    auto catalog = agentskills::discover_skill_catalog(loader);
    std::cout << "agentskills " << agentskills::version_string << "\n";
    std::cout << "skills: " << catalog->size() << "\n";
    for (const auto& m : *catalog) std::cout << m.name << "\n";
    if (use_components(catalog, argc > 2 ? argv[2] : ".") != 0) return 4;
    return catalog->empty() ? 1 : 0;
}
