// A program that uses an installed agentskills through find_package, with every optional
// component the package was asked for (CMakeLists.txt, AGENTSKILLS_CONSUMER_COMPONENTS).
#include <cstring>
#include <filesystem>
#include <iostream>

#include <agentskills/agentskills.hpp>

#include "use_components.hpp"

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    if (std::strcmp(AGENTSKILLS_PACKAGE_VERSION, agentskills::version_string) != 0) {
        std::cerr << "CMake package version " << AGENTSKILLS_PACKAGE_VERSION << " but the headers say "
                  << agentskills::version_string << "\n";
        return 3;
    }
    auto loader = std::make_shared<agentskills::FilesystemSkillLoader>(
        agentskills::FilesystemLoaderOptions{.roots = {argv[1]}, .include_default_roots = false});
    auto catalog = agentskills::discover_skill_catalog(loader);
    std::cout << "agentskills " << agentskills::version_string << "\n";
    std::cout << "skills: " << catalog->size() << "\n";
    for (const auto& m : *catalog) std::cout << m.name << "\n";
    if (use_components(catalog, std::filesystem::current_path().string()) != 0) return 4;
    return catalog->empty() ? 1 : 0;
}
