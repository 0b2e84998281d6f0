// agentskills CLI — each subcommand registers itself from its own file.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace agentskills::cli {

/// Exit status of the program: 0 success, 1 failure about the input, 2 usage error.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

/// `setup` adds one subcommand to `app`; its callback stores the exit status in `*status`.
struct CommandRegistration {
    std::string name;
    std::function<void(CLI::App& app, int* status)> setup;
};

std::vector<CommandRegistration>& command_registry();

/// Use at namespace scope in a command's file: `static const RegisterCommand reg{"name", setup};`
struct RegisterCommand {
    RegisterCommand(std::string name, std::function<void(CLI::App&, int*)> setup) {
        command_registry().push_back({std::move(name), std::move(setup)});
    }
};

}  // namespace agentskills::cli
