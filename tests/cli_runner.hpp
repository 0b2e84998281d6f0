// Runs the agentskills program for the CLI tests.
#pragma once

#include <string>
#include <vector>

namespace agentskills::test {

struct CliRun {
    int status = -1;
    std::string out;
    std::string err;
};

/// Runs the built `agentskills` with `args` (each passed as one argument) in `cwd`.
CliRun run_cli(const std::vector<std::string>& args, const std::string& cwd = AGENTSKILLS_TEST_DATA_DIR);

/// Runs `program` (a copy of the built one, say) with `args` in `cwd`.
CliRun run_program(const std::string& program, const std::vector<std::string>& args,
                   const std::string& cwd = AGENTSKILLS_TEST_DATA_DIR);

}  // namespace agentskills::test
