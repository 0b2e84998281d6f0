// agentskills-cpp — harness: the Model interface, a ScriptedModel for tests and examples, and
// DefaultAgent, which runs the tool loop of one agent. Part of <agentskills/harness.hpp>.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages.hpp"
#include "run_state.hpp"
#include "shim.hpp"

namespace agentskills {

/// One model request: the system message (when the instruction is not empty), then the
/// history; and the tools visible this turn.
struct ModelRequest {
    std::vector<Message> messages;
    std::vector<ToolSpec> tools = {};
};

/// Chat-completions request body: {"model", "messages", "tools"} ("tools" left out when empty).
[[nodiscard]] nlohmann::json to_json(const ModelRequest& request, std::string_view model_name = {});

/// A language model. Thread safety: `complete` may be called by several agents at once.
class Model {
public:
    virtual ~Model();
    /// Returns the assistant message (text and/or tool calls).
    [[nodiscard]] virtual Message complete(const ModelRequest& request) = 0;
};

using ModelPtr = std::shared_ptr<Model>;

/// Returns pre-scripted assistant messages in order and records every request it saw.
/// Throws Error when asked for more responses than scripted. Thread-safe.
class ScriptedModel final : public Model {
public:
    explicit ScriptedModel(std::vector<Message> responses);
    [[nodiscard]] Message complete(const ModelRequest& request) override;
    /// Copies of the requests seen so far, in order.
    [[nodiscard]] std::vector<ModelRequest> requests() const;
    [[nodiscard]] std::size_t remaining() const;

private:
    mutable std::mutex mutex_;
    std::vector<Message> responses_;
    std::size_t next_ = 0;
    std::vector<ModelRequest> requests_;
};

/// The declarative definition of an agent.
struct AgentDescriptor {
    std::string name;
    std::string instructions = {};
    ModelPtr model = nullptr;
    std::vector<Tool> tools = {};
    std::vector<ShimPtr> shims = {};
};

/// The outcome of one `DefaultAgent::run`.
struct RunResult {
    std::string final_output;        ///< content of the last assistant message
    std::size_t turns = 0;           ///< model turns taken by this run
    bool max_turns_reached = false;  ///< stopped with tool calls still pending
};

struct AgentOptions {
    /// Model turns allowed per run.
    std::size_t max_turns = 16;
    /// Run the tool calls of one response concurrently (results keep the call order).
    bool parallel_tool_calls = false;
    RunnerHooksPtr hooks = nullptr;
};

/// Runs the tool loop of one agent instance. The shims of the descriptor are bound at
/// construction. One conversation (RunState) persists across `run` calls until `reset`.
/// Not thread-safe: one `run` at a time.
class DefaultAgent {
public:
    /// Throws ConfigurationError without a model.
    explicit DefaultAgent(AgentDescriptor descriptor, AgentOptions options = {});
    ~DefaultAgent();
    DefaultAgent(const DefaultAgent&) = delete;
    DefaultAgent& operator=(const DefaultAgent&) = delete;

    /// Adds `input` as a user message and runs turns until the model answers without tool
    /// calls or `max_turns` is reached.
    RunResult run(std::string_view input);
    /// Starts a new conversation (fresh RunState with the descriptor's instructions).
    void reset();

    [[nodiscard]] RunState& run_state() noexcept { return *state_; }
    [[nodiscard]] const RunState& run_state() const noexcept { return *state_; }
    [[nodiscard]] const AgentDescriptor& descriptor() const noexcept { return descriptor_; }

private:
    [[nodiscard]] std::vector<ToolResult> run_tool_calls(const std::vector<ToolCall>& calls,
                                                         const std::vector<Tool>& tools);
    [[nodiscard]] ToolResult run_tool_call(const ToolCall& call, const std::vector<Tool>& tools);

    AgentDescriptor descriptor_;
    AgentOptions options_;
    std::vector<std::unique_ptr<BoundShim>> bound_;
    std::unique_ptr<RunState> state_;
};

}  // namespace agentskills
