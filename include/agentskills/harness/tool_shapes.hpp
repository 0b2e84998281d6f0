// agentskills-cpp — tool definitions, tool calls and tool results in the JSON shapes of the
// major model APIs: OpenAI chat completions, OpenAI Responses, Anthropic Messages, Google
// Gemini and MCP. Three directions per shape: the tools a request offers (out), the tool calls a
// response holds (in), and the results that go back (out). See docs/shim.md, "Provider tool shapes".
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages.hpp"

namespace agentskills {

/// A provider's JSON shape for tools, tool calls and tool results.
enum class ToolFormat {
    openai_chat,       ///< OpenAI chat completions (the shape of harness.hpp's `to_json`)
    openai_responses,  ///< OpenAI Responses: function tools, `function_call` / `function_call_output` items
    anthropic,         ///< Anthropic Messages: tools with `input_schema`, `tool_use` / `tool_result` blocks
    gemini,            ///< Google Gemini: `functionDeclarations`, `functionCall` / `functionResponse` parts
    mcp,               ///< Model Context Protocol: Tool, `tools/call` params, CallToolResult
};

/// Deepest nesting of arrays and objects accepted in a tool call's arguments (the arguments object
/// itself is level 1). Deeper arguments are refused with ConfigurationError: writing them out
/// would recurse that deep. Real arguments stay within a handful of levels.
inline constexpr std::size_t MAX_TOOL_ARGUMENT_DEPTH = 128;

/// Every format, in declaration order.
inline constexpr std::array<ToolFormat, 5> ALL_TOOL_FORMATS = {
    ToolFormat::openai_chat, ToolFormat::openai_responses, ToolFormat::anthropic, ToolFormat::gemini, ToolFormat::mcp};

/// "openai-chat", "openai-responses", "anthropic", "gemini" or "mcp".
[[nodiscard]] std::string_view to_string(ToolFormat format) noexcept;
/// The format named by `to_string`, or nullopt for any other text.
[[nodiscard]] std::optional<ToolFormat> tool_format_from_string(std::string_view text) noexcept;

// ---------------------------------------------------------------------------------------
// Tools out.

/// One tool definition:
/// - openai_chat: `{"type":"function","function":{name, description, parameters[, strict]}}`
///   (exactly `to_json(spec)`);
/// - openai_responses: `{"type":"function", name, description, parameters, "strict": bool}`;
/// - anthropic: `{name, description, input_schema[, "strict": true]}`;
/// - gemini: a FunctionDeclaration `{name, description, parametersJsonSchema}` (no strict flag);
/// - mcp: a Tool `{name, description, inputSchema}`.
/// `description` is left out when empty (except in openai_chat, which keeps today's output).
/// Anthropic and MCP require an object schema: parameters that are null or `{}` are sent as
/// `{"type":"object"}` there.
[[nodiscard]] nlohmann::json tool_spec_json(ToolFormat format, const ToolSpec& spec);

/// The value of a request's tools list: an array with one `tool_spec_json` per spec, except for
/// gemini, whose array holds one Tool object `{"functionDeclarations":[...]}` with every
/// declaration (an empty array when `specs` is empty).
[[nodiscard]] nlohmann::json tools_json(ToolFormat format, const std::vector<ToolSpec>& specs);

// ---------------------------------------------------------------------------------------
// Tool calls in (and back out, to replay the model's turn in the history).

/// Reads one tool call the model made. Accepted input:
/// - openai_chat: `{"id","type":"function","function":{"name","arguments"}}`;
/// - openai_responses: a `{"type":"function_call","call_id","name","arguments"}` item
///   (`ToolCall::id` = `call_id`);
/// - anthropic: a `{"type":"tool_use","id","name","input"}` content block;
/// - gemini: a part `{"functionCall":{...}}` or the bare FunctionCall `{"name","args"[,"id"]}`;
/// - mcp: a `tools/call` request (`{"jsonrpc","id","method":"tools/call","params":{...}}`,
///   `ToolCall::id` = the JSON-RPC id as text) or its params `{"name","arguments"}` alone.
/// Object arguments become their compact JSON text; absent or null arguments give `"{}"`;
/// arguments nested deeper than MAX_TOOL_ARGUMENT_DEPTH are refused.
/// Throws ConfigurationError, naming the format and the offending field, for any other shape
/// (never echoing the input).
[[nodiscard]] ToolCall parse_tool_call(ToolFormat format, const nlohmann::json& j);

/// The tool calls among a list of output items: chat's `tool_calls` array, the Responses
/// `output` array, an Anthropic `content` array, a Gemini `parts` array, or an array of MCP
/// calls. Items of another kind (text, reasoning, ...) are skipped; an item of the call kind
/// with a bad shape, or a value that is not an array, throws ConfigurationError. For mcp every
/// item must be a call.
[[nodiscard]] std::vector<ToolCall> parse_tool_calls(ToolFormat format, const nlohmann::json& items);

/// One tool call in the format's shape, as the assistant's turn is replayed to the model:
/// openai_chat `to_json(call)`; openai_responses a `function_call` item; anthropic a `tool_use`
/// block; gemini a `{"functionCall":{...}}` part (`id` only when not empty); mcp the
/// `tools/call` params `{"name","arguments"}`. The formats other than the two OpenAI ones carry
/// arguments as a JSON object: arguments that are not the text of a JSON object, or nest deeper
/// than MAX_TOOL_ARGUMENT_DEPTH, throw ConfigurationError.
[[nodiscard]] nlohmann::json tool_call_json(ToolFormat format, const ToolCall& call);

// ---------------------------------------------------------------------------------------
// Tool results out.

/// One tool result in the format's shape:
/// - openai_chat: a tool message `{"role":"tool","tool_call_id","content"}`;
/// - openai_responses: a `{"type":"function_call_output","call_id","output"}` item;
/// - anthropic: a `{"type":"tool_result","tool_use_id","content"[,"is_error":true]}` block;
/// - gemini: a part `{"functionResponse":{["id",]"name","response":{"output"|"error": content}}}`;
/// - mcp: a CallToolResult `{"content":[{"type":"text","text"}][,"isError":true]}`.
/// The two OpenAI shapes have no error flag: the content alone says so.
[[nodiscard]] nlohmann::json tool_result_json(ToolFormat format, const ToolResult& result);

}  // namespace agentskills
