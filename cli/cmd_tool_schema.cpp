// agentskills tool-schema — the activation tool in the chat-completions shape.
#include <iostream>
#include <memory>
#include <string>

#include <agentskills/skills_shim.hpp>

#include "command.hpp"
#include "json_output.hpp"

namespace agentskills::cli {
namespace {

struct ToolSchemaArgs {
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
    bool compact = false;
};

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<ToolSchemaArgs>();
    auto* cmd = app.add_subcommand("tool-schema", "Print the JSON of the activation tool that SkillsShim adds");
    cmd->add_option("--tool-name", args->tool_name, "Name of the activation tool")->capture_default_str();
    cmd->add_flag("--compact", args->compact, "One line instead of indented JSON");
    cmd->callback([args, status] {
        // A catalog is not needed for the schema: it is the same for every library.
        SkillsShim shim(
            {.catalog = std::make_shared<const SkillCatalog>(nullptr, Discovery{}), .tool_name = args->tool_name});
        print_json(to_json(shim.tool_spec()), args->compact ? -1 : 2);
        *status = exit_ok;
    });
}

const RegisterCommand registration{"tool-schema", setup};

}  // namespace
}  // namespace agentskills::cli
