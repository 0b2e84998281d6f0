// agentskills read-properties — the manifest of one skill as JSON.
#include <iostream>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/base/diagnostics.hpp>
#include <agentskills/base/skill.hpp>
#include <agentskills/base/text.hpp>

#include "command.hpp"
#include "json_output.hpp"
#include "reference_commands.hpp"
#include "skill_file.hpp"

namespace agentskills::cli {
namespace {

struct ReadPropertiesArgs {
    std::string path;
    std::string name_policy = "keep";
    std::string profile = "standard";
};

int run(const ReadPropertiesArgs& args) {
    ParseOptions options;
    options.name_policy = args.name_policy == "require_valid" ? NamePolicy::require_valid : NamePolicy::keep;
    CheckedSkill checked = check_skill(args.path, options);
    if (!checked.result.ok()) {
        for (const auto& d : checked.result.diagnostics) {
            if (d.severity == Severity::error) fmt::print(stderr, "{}\n", format_diagnostic(d));
        }
        fmt::print(stderr, "agentskills read-properties: cannot read the skill at {}\n", terminal_text(args.path));
        return exit_failure;
    }
    nlohmann::json j = *checked.result.manifest();
    print_json(j);
    return exit_ok;
}

}  // namespace
void setup_read_properties(CLI::App& app, int* status) {
    auto args = std::make_shared<ReadPropertiesArgs>();
    auto* cmd = app.add_subcommand("read-properties", "Print the manifest of one skill as JSON");
    cmd->add_option("path", args->path, "A skill directory or its SKILL.md")->required();
    cmd->add_option("--name-policy", args->name_policy, "keep or require_valid")
        ->check(CLI::IsMember({"keep", "require_valid"}))
        ->capture_default_str();
    cmd->add_option("--profile", args->profile, "standard, or reference (print what skills-ref 0.1 prints)")
        ->check(CLI::IsMember({"standard", "reference"}))
        ->capture_default_str();
    cmd->callback([args, status] {
        *status = args->profile == "reference" ? reference::read_properties_command(args->path) : run(*args);
    });
}

}  // namespace agentskills::cli
