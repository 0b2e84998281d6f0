// What a complete ```cpp program of README.md and docs/*.md may use without declaring it: the
// host's own `my_model`, here a scripted model that activates one skill of
// examples/quickstart/skills and then answers. The programs run in examples/quickstart, so a
// root "skills" is that library (tests/docs/CMakeLists.txt).
#pragma once

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
