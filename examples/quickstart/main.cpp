// Quickstart: an agent with a scripted model uses SkillsShim.
//
// The model activates two skills in one response, asks for one of them again together with a
// skill that does not exist, then answers. The program prints the final system instruction,
// the activation tool, the tools offered on each turn, every tool message, the shim state and
// the hook events.
//
//   quickstart [SKILLS_DIR]     (default: the skills/ folder next to this file)
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <agentskills/agentskills.hpp>

#ifndef QUICKSTART_SKILLS_DIR
#define QUICKSTART_SKILLS_DIR "skills"
#endif

namespace as = agentskills;

namespace {

/// Logs agent, model and tool-call events, in the spirit of an audit trail.
class LoggingHooks final : public as::RunnerHooks {
public:
    void on_agent_start(const as::AgentDescriptor& agent, const as::RunState& state) override {
        log("agent start: " + agent.name + " (next turn " + std::to_string(state.turn_count + 1) + ")");
    }
    void on_llm_start(const as::AgentDescriptor&, const as::ModelRequest& request) override {
        log("model request: " + std::to_string(request.messages.size()) + " messages, " +
            std::to_string(request.tools.size()) + " tools");
    }
    void on_tool_call_start(const as::AgentDescriptor&, const as::ToolCall& call) override {
        if (call.name == as::DEFAULT_SKILLS_TOOL_NAME) log("skill activation start: " + call.id + " " + call.arguments);
    }
    void on_tool_call_end(const as::AgentDescriptor&, const as::ToolCall& call, const as::ToolResult& result) override {
        if (call.name == as::DEFAULT_SKILLS_TOOL_NAME) {
            log("skill activation end: " + call.id + ": " +
                result.content.substr(0, result.content.find_first_of(":\n")));
        }
    }
    void on_agent_end(const as::AgentDescriptor& agent, const as::RunResult* result) override {
        log("agent end: " + agent.name + (result ? " after " + std::to_string(result->turns) + " turns" : " (error)"));
    }
    std::vector<std::string> lines;

private:
    void log(std::string line) { lines.push_back(std::move(line)); }
};

as::Tool fake_tool(std::string name, std::string description) {
    return as::Tool{.spec = {.name = name,
                             .description = std::move(description),
                             .parameters = {{"type", "object"},
                                            {"properties", {{"path", {{"type", "string"}}}}},
                                            {"additionalProperties", false}},
                             .strict = false},
                    .handler = [name](const as::ToolCall&, as::RunState&) { return name + ": not used here"; }};
}

as::ToolCall call(std::string id, std::string skill) {
    return {.id = std::move(id), .name = "activate_skill", .arguments = nlohmann::json{{"name", skill}}.dump()};
}

void heading(const char* title) { std::printf("\n===== %s =====\n", title); }

}  // namespace

int main(int argc, char** argv) {
    const std::string skills_dir = argc > 1 ? argv[1] : QUICKSTART_SKILLS_DIR;
    try {
        // 1. A loader over one library root, discovered once and shared with the shim.
        auto loader = std::make_shared<as::FilesystemSkillLoader>(
            as::FilesystemLoaderOptions{.roots = {skills_dir}, .include_default_roots = false});
        auto catalog = as::discover_skill_catalog(loader);
        as::SkillsShimOptions shim_options;
        shim_options.catalog = catalog;
        auto shim = std::make_shared<as::SkillsShim>(std::move(shim_options));

        // 2. A scripted model stands in for a real one.
        auto model = std::make_shared<as::ScriptedModel>(std::vector<as::Message>{
            as::assistant_message("", {call("call_1", "changelog-writer"), call("call_2", "sql-migration-review")}),
            as::assistant_message("", {call("call_3", "changelog-writer"), call("call_4", "db-tuning")}),
            as::assistant_message("The release notes are drafted and the migration is reviewed."),
        });

        // 3. The agent: its own tools plus the shim.
        auto hooks = std::make_shared<LoggingHooks>();
        as::DefaultAgent agent(
            {.name = "release-helper",
             .instructions = "You help engineers prepare releases.",
             .model = model,
             .tools = {fake_tool("read_file", "Read a text file."), fake_tool("shell", "Run a shell command.")},
             .shims = {shim}},
            {.max_turns = 8, .parallel_tool_calls = false, .hooks = hooks});

        as::RunResult result = agent.run("Prepare the notes for release 2.4 and check migration 0042.");
        const auto requests = model->requests();

        heading("final system instruction");
        std::printf("%s\n", requests.back().messages.front().content.c_str());

        heading("activation tool");
        std::printf("%s\n", as::to_json(shim->tool_spec()).dump(2).c_str());

        heading("tools offered on each turn");
        for (std::size_t i = 0; i < requests.size(); ++i) {
            std::string names;
            for (const auto& t : requests[i].tools) names += (names.empty() ? "" : ", ") + t.name;
            std::printf("turn %zu: %s\n", i + 1, names.c_str());
        }

        heading("tool messages");
        for (const auto& m : agent.run_state().history) {
            if (m.role != as::Role::tool) continue;
            std::printf("--- %s %s ---\n%s\n", m.name.c_str(), m.tool_call_id.c_str(), m.content.c_str());
        }

        heading("shim state");
        std::printf("%s\n", agent.run_state().shim_state.snapshot().dump(2).c_str());
        std::string active;
        for (const auto& n : shim->active_skill_names(agent.run_state())) active += (active.empty() ? "" : ", ") + n;
        std::printf("active skills: %s\n", active.c_str());

        heading("hook events");
        for (const auto& line : hooks->lines) std::printf("%s\n", line.c_str());

        heading("final answer");
        std::printf("%s\n", result.final_output.c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "quickstart: %s\n", e.what());
        return 1;
    }
}
