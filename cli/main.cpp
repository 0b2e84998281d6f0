// agentskills — command-line program over the agentskills-cpp library.
#include <malloc.h>

#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include <agentskills/base/errors.hpp>
#include <agentskills/base/version.hpp>

#include "command.hpp"
#include "conventions.hpp"

#include "extras.hpp"
#include "messages.hpp"

namespace agentskills::cli {
namespace {

/// The command table, in the order `--help` lists them.
struct Command {
    const char* name;
    void (*setup)(CLI::App& app, int* status);
};

constexpr Command commands[] = {
    {"activate", setup_activate},
    {"completion", setup_completion},
    {"help", setup_help},
    {"list", setup_list},
#if defined(AGENTSKILLS_HAVE_LOCK)
    {"lock", setup_lock},
#endif
    {"man", setup_man},
    {"mcp", setup_mcp},
    {"prompt", setup_prompt},
    {"read-properties", setup_read_properties},
    {"render", setup_render},
    {"to-prompt", setup_to_prompt},
    {"tool-call", setup_tool_call},
    {"tool-schema", setup_tool_schema},
    {"tools", setup_tools},
    {"validate", setup_validate},
    {"watch", setup_watch},
};

// The command that the first argument names, when it needs no other command set up; nullptr
// for the program's own options, an unknown name, and `help`, `man` and `completion` (which
// print every command). A run sets up only its command: building the others' options is most
// of the program's start-up.
const Command* only_command(int argc, char** argv) {
    if (argc < 2) return nullptr;
    const std::string_view first = argv[1];
    if (first == "help" || first == "man" || first == "completion") return nullptr;
    for (const Command& command : commands) {
        if (first == command.name) return &command;
    }
    return nullptr;
}

}  // namespace
}  // namespace agentskills::cli

int main(int argc, char** argv) {
    using namespace agentskills::cli;
    // Discovery's worker threads grow their allocator arenas page by page (one mprotect each,
    // thousands over a large library); a larger step costs address space, not memory.
    (void)mallopt(M_TOP_PAD, 16 << 20);
    forget_launcher_tunables();
    CLI::App app{"agentskills: " + std::string(program_summary), "agentskills"};
    app.formatter(make_formatter());  // before the commands: they inherit it
    app.group("Commands");            // the heading of the command list (inherited as their group)
    app.require_subcommand(1);
    app.set_version_flag("-V,--version", std::string("agentskills ") + agentskills::version_string);
    keep_program_arguments(argc, argv);  // for the extras (extras.hpp)
    int status = exit_ok;
    if (const Command* one = only_command(argc, argv)) {
        one->setup(app, &status);
    } else {
        for (const Command& command : commands) command.setup(app, &status);
    }
    for (CLI::App* sub : app.get_subcommands({})) add_common_options(*sub);
    app.footer(help_footer());  // after the commands, which would inherit it
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        return report_parse_error(app, e, argc, argv);
    } catch (const UsageError& e) {
        print_error(e.what());
        return exit_usage;
    } catch (const agentskills::ConfigurationError& e) {
        // Options, or a file an option names (--config, --lock, --spec), that cannot work.
        print_error(e.what());
        return exit_usage;
    } catch (const std::exception& e) {
        print_error(e.what());
        return exit_failure;
    }
    return status;
}
