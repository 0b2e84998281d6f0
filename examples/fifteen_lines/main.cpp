// The README's "Fifteen lines", compiled as they stand: CMake copies the code block under that
// heading of README.md into fifteen_lines.inc. This file only supplies `my_model`, a scripted
// model that activates one skill and then answers.
#include <memory>
#include <vector>

#include <agentskills/agentskills.hpp>

namespace {

const std::shared_ptr<agentskills::Model> my_model =
    std::make_shared<agentskills::ScriptedModel>(std::vector<agentskills::Message>{
        agentskills::assistant_message(
            "", {agentskills::ToolCall{
                    .id = "c1", .name = "activate_skill", .arguments = R"({"name": "sql-migration-review"})"}}),
        agentskills::assistant_message("The migration looks safe.")});

}  // namespace

#include "fifteen_lines.inc"
