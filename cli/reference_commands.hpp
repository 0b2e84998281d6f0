// agentskills CLI — the commands of `--profile reference` (reference_commands.cpp).
#pragma once

#include <string>
#include <vector>

namespace agentskills::cli::reference {

/// `agentskills read-properties --profile reference PATH`: prints what `skills-ref read-properties`
/// prints and returns its exit status.
int read_properties_command(const std::string& path);

/// `agentskills to-prompt --profile reference PATH...`, as `skills-ref to-prompt`.
int to_prompt_command(const std::vector<std::string>& paths);

/// `agentskills validate --profile reference PATH...`, as `skills-ref validate` once per path;
/// the status is 1 when any path is invalid.
int validate_command(const std::vector<std::string>& paths);

}  // namespace agentskills::cli::reference
