// agentskills — command-line program over the agentskills-cpp library.
#include <malloc.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <string>

#include <fmt/core.h>

#include <agentskills/text.hpp>
#include <agentskills/version.hpp>

#include "command.hpp"

namespace agentskills::cli {

std::vector<CommandRegistration>& command_registry() {
    static std::vector<CommandRegistration> registry;
    return registry;
}

}  // namespace agentskills::cli

int main(int argc, char** argv) {
    using namespace agentskills::cli;
    // Discovery's worker threads grow their allocator arenas page by page (one mprotect each,
    // thousands over a large library); a larger step costs address space, not memory.
    (void)mallopt(M_TOP_PAD, 16 << 20);
    CLI::App app{"agentskills: validate, list and render Agent Skills (SKILL.md folders)", "agentskills"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("agentskills ") + agentskills::version_string);
    int status = exit_ok;
    auto& registry = command_registry();
    std::sort(registry.begin(), registry.end(),
              [](const CommandRegistration& a, const CommandRegistration& b) { return a.name < b.name; });
    for (const auto& command : registry) command.setup(app, &status);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return exit_usage;
    } catch (const std::exception& e) {
        fmt::print(stderr, "agentskills: error: {}\n", agentskills::terminal_text(e.what()));
        return exit_failure;
    }
    return status;
}
