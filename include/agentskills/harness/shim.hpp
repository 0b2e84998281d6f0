// agentskills-cpp — harness: the extension points of an agent. A Shim edits each model turn
// (PreparedTurn); RunnerHooks observe a run. Part of <agentskills/harness.hpp>.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "messages.hpp"
#include "run_state.hpp"

namespace agentskills {

struct AgentDescriptor;
struct ModelRequest;
struct RunResult;

/// What one model turn will send: the system instruction and the tools. Shims edit it in
/// `prepare_turn`; exclusions and restrictions are applied after every shim ran, so they
/// reach tools added by any shim, before or after the one that asked.
class PreparedTurn {
public:
    PreparedTurn(RunState& state, std::vector<Tool> tools);

    [[nodiscard]] RunState& run_state() noexcept { return *state_; }
    [[nodiscard]] const RunState& run_state() const noexcept { return *state_; }

    /// This turn's system instruction: the run's instructions plus turn-only additions.
    [[nodiscard]] const std::string& system_instruction() const noexcept { return system_instruction_; }
    /// Appends `text` to the run's instructions (kept for later turns and runs of this
    /// conversation) and to this turn's, after a blank line when they are not empty.
    void append_system_instruction(std::string_view text);
    /// Appends `text` to this turn's system instruction only, after a blank line.
    void append_turn_instruction(std::string_view text);

    /// Adds a tool. Throws ConfigurationError when a tool with that name is already present.
    void add_tool(Tool tool);
    /// Hides a tool (by exact name) from this turn, whoever added it. Constant time (a hash set).
    void exclude_tool(std::string_view name);
    /// Limits this turn to tools whose names are in `allowed`; several calls intersect. Linear in
    /// the size of `allowed`; `visible_tools` then costs one hash lookup per tool and restriction.
    void restrict_tools(const std::vector<std::string>& allowed);

    /// Every tool added so far, before exclusions and restrictions.
    [[nodiscard]] const std::vector<Tool>& all_tools() const noexcept { return tools_; }
    /// The tools the model will see: all tools minus exclusions, within every restriction.
    [[nodiscard]] std::vector<Tool> visible_tools() const;
    [[nodiscard]] std::vector<ToolSpec> visible_tool_specs() const;

private:
    RunState* state_;
    std::string system_instruction_;
    std::vector<Tool> tools_;
    std::unordered_set<std::string> excluded_;
    std::vector<std::unordered_set<std::string>> restrictions_;
};

struct AgentDescriptor;

/// A shim bound to one agent instance. Its callbacks run on the agent's thread, one run at a
/// time; tool handlers it adds may run in parallel and must be thread-safe.
class BoundShim {
public:
    virtual ~BoundShim();
    virtual void on_run_start(RunState& state);
    virtual void prepare_turn(PreparedTurn& turn);
    virtual void on_run_end(RunState& state);
};

/// A reusable extension of an agent (one shim object may serve many agents). `bind` is
/// called once per agent instance and may be called from several threads at once.
class Shim {
public:
    virtual ~Shim();
    /// A short identifier of this shim (used in state keys).
    [[nodiscard]] virtual std::string_view name() const noexcept = 0;
    [[nodiscard]] virtual std::unique_ptr<BoundShim> bind(const AgentDescriptor& agent) = 0;
};

using ShimPtr = std::shared_ptr<Shim>;

/// Observers of an agent's run. Every member has an empty default. `on_tool_call_start/end`
/// run on worker threads when tool calls run in parallel, so they must be thread-safe then.
class RunnerHooks {
public:
    virtual ~RunnerHooks();
    virtual void on_agent_start(const AgentDescriptor& agent, const RunState& state);
    /// `result` is null when the run ended with an exception.
    virtual void on_agent_end(const AgentDescriptor& agent, const RunResult* result);
    virtual void on_llm_start(const AgentDescriptor& agent, const ModelRequest& request);
    virtual void on_llm_end(const AgentDescriptor& agent, const Message& response);
    /// Sees the call exactly as the model produced it (raw JSON arguments).
    virtual void on_tool_call_start(const AgentDescriptor& agent, const ToolCall& call);
    virtual void on_tool_call_end(const AgentDescriptor& agent, const ToolCall& call, const ToolResult& result);
};

using RunnerHooksPtr = std::shared_ptr<RunnerHooks>;

}  // namespace agentskills
