#include "agentskills/harness/tool_shapes.hpp"

#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"

namespace agentskills {

using nlohmann::json;

std::string_view to_string(ToolFormat format) noexcept {
    switch (format) {
        case ToolFormat::openai_chat:
            return "openai-chat";
        case ToolFormat::openai_responses:
            return "openai-responses";
        case ToolFormat::anthropic:
            return "anthropic";
        case ToolFormat::gemini:
            return "gemini";
        case ToolFormat::mcp:
            return "mcp";
    }
    return "openai-chat";
}

std::optional<ToolFormat> tool_format_from_string(std::string_view text) noexcept {
    for (ToolFormat f : ALL_TOOL_FORMATS) {
        if (to_string(f) == text) return f;
    }
    return std::nullopt;
}

namespace {

/// What the error messages call each format's tool call.
std::string_view call_kind(ToolFormat format) noexcept {
    switch (format) {
        case ToolFormat::openai_chat:
            return "OpenAI chat-completions tool call";
        case ToolFormat::openai_responses:
            return "OpenAI Responses function_call item";
        case ToolFormat::anthropic:
            return "Anthropic tool_use block";
        case ToolFormat::gemini:
            return "Gemini functionCall";
        case ToolFormat::mcp:
            return "MCP tools/call request";
    }
    return "tool call";
}

std::string_view type_name(const json& j) noexcept {
    switch (j.type()) {
        case json::value_t::null:
            return "null";
        case json::value_t::object:
            return "an object";
        case json::value_t::array:
            return "an array";
        case json::value_t::string:
            return "a string";
        case json::value_t::boolean:
            return "a boolean";
        case json::value_t::binary:
            return "binary";
        case json::value_t::discarded:
            return "nothing";
        default:
            return "a number";
    }
}

/// Whether `j` nests arrays and objects deeper than MAX_TOOL_ARGUMENT_DEPTH (a scalar is level 0).
/// Iterative, so hostile depth cannot overflow the stack here.
bool too_deep(const json& j) {
    std::vector<std::pair<const json*, std::size_t>> pending{{&j, 0}};
    while (!pending.empty()) {
        auto [node, depth] = pending.back();
        pending.pop_back();
        if (!node->is_structured()) continue;
        if (depth + 1 > MAX_TOOL_ARGUMENT_DEPTH) return true;
        for (const auto& child : *node) pending.emplace_back(&child, depth + 1);
    }
    return false;
}

[[noreturn]] void bad_call(ToolFormat format, std::string_view problem) {
    throw ConfigurationError(fmt::format("not a valid {}: {}", call_kind(format), problem));
}

void require_object(ToolFormat format, const json& j, std::string_view what) {
    if (!j.is_object()) bad_call(format, fmt::format("{} must be an object, not {}", what, type_name(j)));
}

/// The string under `key`; absent or null gives nullopt when not `required`.
std::optional<std::string> string_member(ToolFormat format, const json& j, const char* key, bool required) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) bad_call(format, fmt::format("the string field '{}' is missing", key));
        return std::nullopt;
    }
    if (!it->is_string()) bad_call(format, fmt::format("the field '{}' must be a string, not {}", key, type_name(*it)));
    return it->get<std::string>();
}

std::string required_name(ToolFormat format, const json& j) {
    std::string name = *string_member(format, j, "name", true);
    if (name.empty()) bad_call(format, "the field 'name' is empty");
    return name;
}

/// Object arguments as compact JSON text; absent or null as "{}".
std::string object_arguments(ToolFormat format, const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return "{}";
    if (!it->is_object())
        bad_call(format, fmt::format("the field '{}' must be an object, not {}", key, type_name(*it)));
    if (too_deep(*it))
        bad_call(format, fmt::format("the field '{}' nests deeper than {} levels", key, MAX_TOOL_ARGUMENT_DEPTH));
    return it->dump();
}

/// Arguments that are JSON text (a string) or, leniently, an object.
std::string text_arguments(ToolFormat format, const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) return "{}";
    if (it->is_string()) return it->get<std::string>();
    if (it->is_object()) {
        if (too_deep(*it))
            bad_call(format, fmt::format("the field '{}' nests deeper than {} levels", key, MAX_TOOL_ARGUMENT_DEPTH));
        return it->dump();
    }
    bad_call(format, fmt::format("the field '{}' must be a string, not {}", key, type_name(*it)));
}

void require_type(ToolFormat format, const json& j, std::string_view expected) {
    auto type = string_member(format, j, "type", true);
    if (*type != expected) bad_call(format, fmt::format("the field 'type' is not \"{}\"", expected));
}

ToolCall parse_chat(const json& j) {
    constexpr ToolFormat f = ToolFormat::openai_chat;
    require_object(f, j, "the call");
    if (auto it = j.find("type"); it != j.end() && !it->is_null()) require_type(f, j, "function");
    auto fn = j.find("function");
    if (fn == j.end()) bad_call(f, "the field 'function' is missing");
    require_object(f, *fn, "the field 'function'");
    ToolCall call;
    call.id = string_member(f, j, "id", false).value_or("");
    call.name = required_name(f, *fn);
    call.arguments = text_arguments(f, *fn, "arguments");
    return call;
}

ToolCall parse_responses(const json& j) {
    constexpr ToolFormat f = ToolFormat::openai_responses;
    require_object(f, j, "the item");
    require_type(f, j, "function_call");
    ToolCall call;
    call.id = *string_member(f, j, "call_id", true);
    call.name = required_name(f, j);
    call.arguments = text_arguments(f, j, "arguments");
    return call;
}

ToolCall parse_anthropic(const json& j) {
    constexpr ToolFormat f = ToolFormat::anthropic;
    require_object(f, j, "the block");
    require_type(f, j, "tool_use");
    ToolCall call;
    call.id = *string_member(f, j, "id", true);
    call.name = required_name(f, j);
    call.arguments = object_arguments(f, j, "input");
    return call;
}

ToolCall parse_gemini(const json& j) {
    constexpr ToolFormat f = ToolFormat::gemini;
    require_object(f, j, "the part");
    const json* fc = &j;
    if (auto it = j.find("functionCall"); it != j.end()) {
        require_object(f, *it, "the field 'functionCall'");
        fc = &*it;
    }
    ToolCall call;
    call.id = string_member(f, *fc, "id", false).value_or("");
    call.name = required_name(f, *fc);
    call.arguments = object_arguments(f, *fc, "args");
    return call;
}

ToolCall parse_mcp(const json& j) {
    constexpr ToolFormat f = ToolFormat::mcp;
    require_object(f, j, "the request");
    const json* params = &j;
    std::string id;
    if (j.contains("method") || j.contains("params")) {
        auto method = string_member(f, j, "method", true);
        if (*method != "tools/call") bad_call(f, "the field 'method' is not \"tools/call\"");
        auto it = j.find("params");
        if (it == j.end()) bad_call(f, "the field 'params' is missing");
        require_object(f, *it, "the field 'params'");
        params = &*it;
        if (auto rid = j.find("id"); rid != j.end()) {
            if (rid->is_string()) {
                id = rid->get<std::string>();
            } else if (rid->is_number_integer()) {
                id = rid->dump();
            } else {
                bad_call(f, fmt::format("the field 'id' must be a string or an integer, not {}", type_name(*rid)));
            }
        }
    }
    ToolCall call;
    call.id = std::move(id);
    call.name = required_name(f, *params);
    call.arguments = object_arguments(f, *params, "arguments");
    return call;
}

/// Whether an output item is of the format's tool-call kind (the others are skipped).
bool is_call_item(ToolFormat format, const json& item) {
    if (!item.is_object()) return format == ToolFormat::openai_chat || format == ToolFormat::mcp;
    switch (format) {
        case ToolFormat::openai_chat:
        case ToolFormat::mcp:
            return true;
        case ToolFormat::openai_responses: {
            auto it = item.find("type");
            return it != item.end() && it->is_string() && it->get<std::string>() == "function_call";
        }
        case ToolFormat::anthropic: {
            auto it = item.find("type");
            return it != item.end() && it->is_string() && it->get<std::string>() == "tool_use";
        }
        case ToolFormat::gemini:
            return item.contains("functionCall");
    }
    return false;
}

/// The arguments of `call` as a JSON object, for the formats that carry an object.
json arguments_object(ToolFormat format, const ToolCall& call) {
    if (call.arguments.empty()) return json::object();
    json args = json::parse(call.arguments, nullptr, /*allow_exceptions=*/false);
    if (args.is_discarded()) {
        throw ConfigurationError(fmt::format(
            "the arguments of a tool call are not valid JSON: the {} shape needs a JSON object", to_string(format)));
    }
    if (!args.is_object()) {
        throw ConfigurationError(fmt::format("the arguments of a tool call are {}: the {} shape needs a JSON object",
                                             type_name(args), to_string(format)));
    }
    if (too_deep(args)) {
        throw ConfigurationError(
            fmt::format("the arguments of a tool call nest deeper than {} levels", MAX_TOOL_ARGUMENT_DEPTH));
    }
    return args;
}

/// Anthropic and MCP require an object schema: no parameters (null or `{}`) becomes
/// `{"type":"object"}`; anything else is passed on as given.
json object_schema(const json& parameters) {
    if (parameters.is_null() || (parameters.is_object() && parameters.empty())) return json{{"type", "object"}};
    return parameters;
}

}  // namespace

json tool_spec_json(ToolFormat format, const ToolSpec& spec) {
    switch (format) {
        case ToolFormat::openai_chat:
            return to_json(spec);
        case ToolFormat::openai_responses: {
            json j = {{"type", "function"}, {"name", spec.name}};
            if (!spec.description.empty()) j["description"] = spec.description;
            j["parameters"] = spec.parameters;
            j["strict"] = spec.strict;
            return j;
        }
        case ToolFormat::anthropic: {
            json j = {{"name", spec.name}};
            if (!spec.description.empty()) j["description"] = spec.description;
            j["input_schema"] = object_schema(spec.parameters);
            if (spec.strict) j["strict"] = true;
            return j;
        }
        case ToolFormat::gemini: {
            json j = {{"name", spec.name}};
            if (!spec.description.empty()) j["description"] = spec.description;
            j["parametersJsonSchema"] = spec.parameters;
            return j;
        }
        case ToolFormat::mcp: {
            json j = {{"name", spec.name}};
            if (!spec.description.empty()) j["description"] = spec.description;
            j["inputSchema"] = object_schema(spec.parameters);
            return j;
        }
    }
    return to_json(spec);
}

json tools_json(ToolFormat format, const std::vector<ToolSpec>& specs) {
    json out = json::array();
    if (format == ToolFormat::gemini) {
        if (specs.empty()) return out;
        json declarations = json::array();
        for (const auto& s : specs) declarations.push_back(tool_spec_json(format, s));
        out.push_back(json{{"functionDeclarations", std::move(declarations)}});
        return out;
    }
    for (const auto& s : specs) out.push_back(tool_spec_json(format, s));
    return out;
}

ToolCall parse_tool_call(ToolFormat format, const json& j) {
    switch (format) {
        case ToolFormat::openai_chat:
            return parse_chat(j);
        case ToolFormat::openai_responses:
            return parse_responses(j);
        case ToolFormat::anthropic:
            return parse_anthropic(j);
        case ToolFormat::gemini:
            return parse_gemini(j);
        case ToolFormat::mcp:
            return parse_mcp(j);
    }
    return parse_chat(j);
}

std::vector<ToolCall> parse_tool_calls(ToolFormat format, const json& items) {
    if (!items.is_array()) {
        throw ConfigurationError(
            fmt::format("the {} tool calls must be an array of items, not {}", to_string(format), type_name(items)));
    }
    std::vector<ToolCall> calls;
    for (const auto& item : items) {
        if (is_call_item(format, item)) calls.push_back(parse_tool_call(format, item));
    }
    return calls;
}

json tool_call_json(ToolFormat format, const ToolCall& call) {
    switch (format) {
        case ToolFormat::openai_chat:
            return to_json(call);
        case ToolFormat::openai_responses:
            return json{
                {"type", "function_call"}, {"call_id", call.id}, {"name", call.name}, {"arguments", call.arguments}};
        case ToolFormat::anthropic:
            return json{
                {"type", "tool_use"}, {"id", call.id}, {"name", call.name}, {"input", arguments_object(format, call)}};
        case ToolFormat::gemini: {
            json fc = json::object();
            if (!call.id.empty()) fc["id"] = call.id;
            fc["name"] = call.name;
            fc["args"] = arguments_object(format, call);
            return json{{"functionCall", std::move(fc)}};
        }
        case ToolFormat::mcp:
            return json{{"name", call.name}, {"arguments", arguments_object(format, call)}};
    }
    return to_json(call);
}

json tool_result_json(ToolFormat format, const ToolResult& result) {
    switch (format) {
        case ToolFormat::openai_chat:
            return json{{"role", "tool"}, {"tool_call_id", result.tool_call_id}, {"content", result.content}};
        case ToolFormat::openai_responses:
            return json{{"type", "function_call_output"}, {"call_id", result.tool_call_id}, {"output", result.content}};
        case ToolFormat::anthropic: {
            json j = {{"type", "tool_result"}, {"tool_use_id", result.tool_call_id}, {"content", result.content}};
            if (result.is_error) j["is_error"] = true;
            return j;
        }
        case ToolFormat::gemini: {
            json fr = json::object();
            if (!result.tool_call_id.empty()) fr["id"] = result.tool_call_id;
            fr["name"] = result.name;
            fr["response"] = json{{result.is_error ? "error" : "output", result.content}};
            return json{{"functionResponse", std::move(fr)}};
        }
        case ToolFormat::mcp: {
            json j = {{"content", json::array({json{{"type", "text"}, {"text", result.content}}})}};
            if (result.is_error) j["isError"] = true;
            return j;
        }
    }
    return json::object();
}

}  // namespace agentskills
