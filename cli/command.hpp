// agentskills CLI — the commands: exit statuses and the setup function of each command.
#pragma once

#include <CLI/CLI.hpp>

namespace agentskills::cli {

/// Exit status of the program: 0 success, 1 failure about the input, 2 usage error.
inline constexpr int exit_ok = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

/// Each command's file defines one `setup_NAME(app, status)`: it adds the subcommand to `app`,
/// whose callback stores the exit status in `*status`. main.cpp lists them (the command table).
void setup_activate(CLI::App& app, int* status);         // activate
void setup_list(CLI::App& app, int* status);             // list
void setup_lock(CLI::App& app, int* status);             // lock
void setup_mcp(CLI::App& app, int* status);              // mcp
void setup_prompt(CLI::App& app, int* status);           // prompt
void setup_read_properties(CLI::App& app, int* status);  // read-properties
void setup_render(CLI::App& app, int* status);           // render
void setup_to_prompt(CLI::App& app, int* status);        // to-prompt
void setup_tool_call(CLI::App& app, int* status);        // tool-call
void setup_tool_schema(CLI::App& app, int* status);      // tool-schema
void setup_tools(CLI::App& app, int* status);            // tools
void setup_validate(CLI::App& app, int* status);         // validate
void setup_watch(CLI::App& app, int* status);            // watch

}  // namespace agentskills::cli
