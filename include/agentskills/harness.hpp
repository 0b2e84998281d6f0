// agentskills-cpp — a minimal, harness-neutral agent surface that shims plug into.
//
// Messages, tools and tool calls (with JSON in the OpenAI chat-completions shape), run state
// with a thread-safe JSON `shim_state`, the Shim / BoundShim extension points, runner hooks,
// a Model interface, a DefaultAgent that runs the tool loop, and a ScriptedModel for tests and
// examples. A host that has its own agent loop can drive shims directly (docs/shim.md).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Messages, tools, tool calls.

enum class Role { system, user, assistant, tool };

[[nodiscard]] std::string_view to_string(Role role) noexcept;
/// Parses "system", "user", "assistant" or "tool"; throws ConfigurationError otherwise.
[[nodiscard]] Role role_from_string(std::string_view text);

/// One tool call requested by the model. `arguments` is the raw JSON text the model produced
/// (it may be malformed; the tool decides what to do with it).
struct ToolCall {
    std::string id;
    std::string name;
    std::string arguments = "{}";

    friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

/// One chat message. `tool_calls` only on assistant messages; `tool_call_id` (and the tool's
/// `name`) only on tool messages.
struct Message {
    Role role = Role::user;
    std::string content;
    std::vector<ToolCall> tool_calls = {};
    std::string tool_call_id = {};
    std::string name = {};

    friend bool operator==(const Message&, const Message&) = default;
};

[[nodiscard]] Message system_message(std::string content);
[[nodiscard]] Message user_message(std::string content);
[[nodiscard]] Message assistant_message(std::string content, std::vector<ToolCall> tool_calls = {});
[[nodiscard]] Message tool_message(std::string tool_call_id, std::string name, std::string content);

/// What the model is told about a tool: its name, description and JSON-schema parameters.
struct ToolSpec {
    std::string name;
    std::string description = {};
    nlohmann::json parameters = nlohmann::json::object();
    bool strict = false;

    friend bool operator==(const ToolSpec&, const ToolSpec&) = default;
};

/// The outcome of one tool call, as it goes back to the model.
struct ToolResult {
    std::string tool_call_id;
    std::string name;
    std::string content;
    bool is_error = false;

    friend bool operator==(const ToolResult&, const ToolResult&) = default;
};

struct RunState;

/// Executes one call of a tool and returns the text for the model. An exception becomes an
/// error result ("error: <what>"). With parallel tool calls the handler runs on worker threads.
using ToolHandler = std::function<std::string(const ToolCall& call, RunState& state)>;

/// A tool the model can call: its spec and the handler that runs it.
struct Tool {
    ToolSpec spec;
    ToolHandler handler = nullptr;
};

// OpenAI chat-completions JSON. Tools: {"type":"function","function":{name, description,
// parameters, strict}}; tool calls: {"id","type":"function","function":{"name","arguments"}}.
[[nodiscard]] nlohmann::json to_json(const Message& message);
[[nodiscard]] nlohmann::json to_json(const ToolSpec& spec);
[[nodiscard]] nlohmann::json to_json(const ToolCall& call);
[[nodiscard]] nlohmann::json to_json(const std::vector<Message>& messages);
[[nodiscard]] nlohmann::json to_json(const std::vector<ToolSpec>& specs);
/// Each throws ConfigurationError when `j` does not have the expected shape.
[[nodiscard]] Message message_from_json(const nlohmann::json& j);
[[nodiscard]] ToolSpec tool_spec_from_json(const nlohmann::json& j);
[[nodiscard]] ToolCall tool_call_from_json(const nlohmann::json& j);

// ---------------------------------------------------------------------------------------
// Run state.

/// A JSON object shared by the shims of one run, with atomic operations. Every member is
/// safe to call from several threads at once (tool handlers may run in parallel).
class ShimState {
public:
    ShimState() = default;
    explicit ShimState(nlohmann::json initial);
    ShimState(const ShimState& other);
    ShimState& operator=(const ShimState& other);
    ~ShimState() = default;

    /// The value under `key`, or null when absent.
    [[nodiscard]] nlohmann::json get(std::string_view key) const;
    [[nodiscard]] bool contains(std::string_view key) const;
    void set(std::string_view key, nlohmann::json value);
    /// Sets `key` only when it is absent; returns whether it did.
    bool set_if_absent(std::string_view key, nlohmann::json value);
    /// Appends `value` to the array under `key` (created when absent) unless it is already in
    /// it; returns whether it appended. A non-array value under `key` is replaced by an array.
    bool append_if_unique(std::string_view key, const nlohmann::json& value);
    /// Removes `value` from the array under `key`; returns whether it was there.
    bool remove_value(std::string_view key, const nlohmann::json& value);
    /// Removes `key`; returns whether it was there.
    bool erase(std::string_view key);
    /// Runs `fn` on the whole object under the lock (keep it short; do not call back in).
    void update(const std::function<void(nlohmann::json& object)>& fn);
    /// A copy of the whole object.
    [[nodiscard]] nlohmann::json snapshot() const;

private:
    mutable std::mutex mutex_;
    nlohmann::json data_ = nlohmann::json::object();
};

/// The state of one conversation with an agent: it persists across `DefaultAgent::run` calls
/// until `reset`. `instructions` is the system instruction (shims may append to it once).
/// The agent loop owns `history` and `turn_count`; shims use `shim_state`.
struct RunState {
    std::string instructions;
    std::vector<Message> history = {};
    std::size_t turn_count = 0;  ///< model turns completed in this conversation
    ShimState shim_state = {};
};

/// Suffix of the `shim_state` keys where skills shims record the active skill names
/// (`"<shim name>:active-skill-names"`, an array in activation order).
inline constexpr std::string_view ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX = ":active-skill-names";

/// Read-only helpers over a run state.
class RunStateView {
public:
    explicit RunStateView(const RunState& state) noexcept : state_(&state) {}
    /// The union of the names under every `shim_state` key ending in
    /// ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX: keys in sorted order, names in activation order,
    /// each name once.
    [[nodiscard]] std::vector<std::string> active_skill_names() const;

private:
    const RunState* state_;
};

// ---------------------------------------------------------------------------------------
// Shims.

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

// ---------------------------------------------------------------------------------------
// Model, hooks, agent.

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
