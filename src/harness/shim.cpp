#include "agentskills/harness/shim.hpp"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"

namespace agentskills {

using nlohmann::json;

// ---------------------------------------------------------------------------------------
// PreparedTurn.

PreparedTurn::PreparedTurn(RunState& state, std::vector<Tool> tools)
    : state_(&state), system_instruction_(state.instructions), tools_(std::move(tools)) {}

namespace {
void append_block(std::string& target, std::string_view text) {
    if (!target.empty()) target += "\n\n";
    target += text;
}
}  // namespace

void PreparedTurn::append_system_instruction(std::string_view text) {
    append_block(state_->instructions, text);
    append_block(system_instruction_, text);
}

void PreparedTurn::append_turn_instruction(std::string_view text) { append_block(system_instruction_, text); }

void PreparedTurn::add_tool(Tool tool) {
    for (const auto& t : tools_) {
        if (t.spec.name == tool.spec.name) {
            throw ConfigurationError(fmt::format("two tools named '{}' in one turn", tool.spec.name));
        }
    }
    tools_.push_back(std::move(tool));
}

void PreparedTurn::exclude_tool(std::string_view name) { excluded_.emplace(name); }

void PreparedTurn::restrict_tools(const std::vector<std::string>& allowed) {
    restrictions_.emplace_back(allowed.begin(), allowed.end());
}

std::vector<Tool> PreparedTurn::visible_tools() const {
    std::vector<Tool> out;
    for (const auto& t : tools_) {
        const std::string& n = t.spec.name;
        if (excluded_.count(n) != 0) continue;
        bool allowed =
            std::all_of(restrictions_.begin(), restrictions_.end(), [&](const auto& set) { return set.count(n) != 0; });
        if (allowed) out.push_back(t);
    }
    return out;
}

std::vector<ToolSpec> PreparedTurn::visible_tool_specs() const {
    std::vector<ToolSpec> out;
    for (auto& t : visible_tools()) out.push_back(std::move(t.spec));
    return out;
}

// ---------------------------------------------------------------------------------------
// Interfaces with out-of-line destructors and empty defaults.

BoundShim::~BoundShim() = default;
void BoundShim::on_run_start(RunState&) {}
void BoundShim::prepare_turn(PreparedTurn&) {}
void BoundShim::on_run_end(RunState&) {}
Shim::~Shim() = default;
RunnerHooks::~RunnerHooks() = default;
void RunnerHooks::on_agent_start(const AgentDescriptor&, const RunState&) {}
void RunnerHooks::on_agent_end(const AgentDescriptor&, const RunResult*) {}
void RunnerHooks::on_llm_start(const AgentDescriptor&, const ModelRequest&) {}
void RunnerHooks::on_llm_end(const AgentDescriptor&, const Message&) {}
void RunnerHooks::on_tool_call_start(const AgentDescriptor&, const ToolCall&) {}
void RunnerHooks::on_tool_call_end(const AgentDescriptor&, const ToolCall&, const ToolResult&) {}

}  // namespace agentskills
