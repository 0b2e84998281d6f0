// agentskills-cpp — harness: chat messages, tools and tool calls, and their JSON in the OpenAI
// chat-completions shape. Part of <agentskills/harness.hpp>.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills {

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

}  // namespace agentskills
