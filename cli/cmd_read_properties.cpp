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
#include "messages.hpp"
#include "reference_commands.hpp"
#include "skill_file.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct ReadPropertiesArgs {
    std::string path;
    SourceArgs loader;  // the loader flags (no sources: the skill is PATH)
    std::string profile = "standard";
};

int run(const ReadPropertiesArgs& args) {
    CheckedSkill checked = check_skill(args.path, args.loader.parse_options());
    if (!checked.result.ok()) {
        for (const auto& d : checked.result.diagnostics) {
            if (d.severity == Severity::error) print_diagnostic(d);
        }
        print_error(fmt::format("cannot read the skill at {}", args.path));
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
    add_loader_options(*cmd, args->loader);
    cmd->add_option("--profile", args->profile, "standard, or reference (print what skills-ref 0.1 prints)")
        ->check(CLI::IsMember({"standard", "reference"}))
        ->capture_default_str();
    cmd->callback([args, status] {
        *status = args->profile == "reference" ? reference::read_properties_command(args->path) : run(*args);
    });
}

}  // namespace agentskills::cli
