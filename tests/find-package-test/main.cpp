// A program that uses an installed agentskills through find_package.
#include <cstring>
#include <iostream>

#include <agentskills/agentskills.hpp>
#ifdef AGENTSKILLS_CONSUMER_MCP
#include <agentskills/mcp/server.hpp>
#endif

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
#ifdef AGENTSKILLS_CONSUMER_MCP
    agentskills::mcp::Server server(catalog);
    auto session = server.open_session();
    std::cout << "mcp: " << server.handle(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", *session).response.value_or("")
              << "\n";
#endif
    return catalog->empty() ? 1 : 0;
}
