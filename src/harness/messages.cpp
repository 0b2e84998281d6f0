#include "agentskills/harness/messages.hpp"

#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"

namespace agentskills {

using nlohmann::json;

// ---------------------------------------------------------------------------------------
// Messages and JSON.

std::string_view to_string(Role role) noexcept {
    switch (role) {
        case Role::system:
            return "system";
        case Role::user:
            return "user";
        case Role::assistant:
            return "assistant";
        case Role::tool:
            return "tool";
    }
    return "user";
}

Role role_from_string(std::string_view text) {
    if (text == "system" || text == "developer") return Role::system;
    if (text == "user") return Role::user;
    if (text == "assistant") return Role::assistant;
    if (text == "tool") return Role::tool;
    throw ConfigurationError(fmt::format("unknown message role '{}'", text));
}

Message system_message(std::string content) { return Message{.role = Role::system, .content = std::move(content)}; }
Message user_message(std::string content) { return Message{.role = Role::user, .content = std::move(content)}; }

Message assistant_message(std::string content, std::vector<ToolCall> tool_calls) {
    return Message{.role = Role::assistant, .content = std::move(content), .tool_calls = std::move(tool_calls)};
}

Message tool_message(std::string tool_call_id, std::string name, std::string content) {
    return Message{.role = Role::tool,
                   .content = std::move(content),
                   .tool_call_id = std::move(tool_call_id),
                   .name = std::move(name)};
}

namespace {

// Every string of a request is made valid UTF-8 (U+FFFD for a bad byte; a path from a
// directory listing may hold any bytes), so that dumping a request never throws.
json text(std::string_view s) { return json(valid_utf8(s)); }

}  // namespace

json to_json(const ToolCall& call) {
    return json{{"id", text(call.id)},
                {"type", "function"},
                {"function", json{{"name", text(call.name)}, {"arguments", text(call.arguments)}}}};
}

json to_json(const Message& message) {
    json j = json::object();
    j["role"] = std::string(to_string(message.role));
    if (message.role == Role::assistant && !message.tool_calls.empty()) {
        j["content"] = message.content.empty() ? json(nullptr) : text(message.content);
        json calls = json::array();
        for (const auto& call : message.tool_calls) calls.push_back(to_json(call));
        j["tool_calls"] = std::move(calls);
    } else {
        j["content"] = text(message.content);
    }
    if (message.role == Role::tool) {
        j["tool_call_id"] = text(message.tool_call_id);
        if (!message.name.empty()) j["name"] = text(message.name);
    } else if (!message.name.empty()) {
        j["name"] = text(message.name);
    }
    return j;
}

json to_json(const ToolSpec& spec) {
    json function =
        json{{"name", text(spec.name)}, {"description", text(spec.description)}, {"parameters", spec.parameters}};
    if (spec.strict) function["strict"] = true;
    return json{{"type", "function"}, {"function", std::move(function)}};
}

json to_json(const std::vector<Message>& messages) {
    json out = json::array();
    for (const auto& m : messages) out.push_back(to_json(m));
    return out;
}

json to_json(const std::vector<ToolSpec>& specs) {
    json out = json::array();
    for (const auto& s : specs) out.push_back(to_json(s));
    return out;
}

namespace {

[[noreturn]] void bad_shape(std::string_view what, const json& j) {
    throw ConfigurationError(fmt::format("not a chat-completions {}: {}", what, j.dump()));
}

std::string string_field(const json& j, const char* key, std::string_view what, bool required) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) bad_shape(what, j);
        return {};
    }
    if (!it->is_string()) bad_shape(what, j);
    return it->get<std::string>();
}

/// Message content may be a string or an array of {"type":"text","text":...} parts.
std::string content_text(const json& j) {
    auto it = j.find("content");
    if (it == j.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    if (it->is_array()) {
        std::string out;
        for (const auto& part : *it) {
            if (part.is_object() && part.contains("text") && part["text"].is_string()) {
                out += part["text"].get<std::string>();
            }
        }
        return out;
    }
    bad_shape("message", j);
}

}  // namespace

ToolCall tool_call_from_json(const json& j) {
    if (!j.is_object()) bad_shape("tool call", j);
    auto fn = j.find("function");
    if (fn == j.end() || !fn->is_object()) bad_shape("tool call", j);
    ToolCall call;
    call.id = string_field(j, "id", "tool call", false);
    call.name = string_field(*fn, "name", "tool call", true);
    auto args = fn->find("arguments");
    if (args == fn->end() || args->is_null()) {
        call.arguments = "{}";
    } else if (args->is_string()) {
        call.arguments = args->get<std::string>();
    } else {
        call.arguments = args->dump();  // some servers send an object
    }
    return call;
}

Message message_from_json(const json& j) {
    if (!j.is_object()) bad_shape("message", j);
    Message m;
    m.role = role_from_string(string_field(j, "role", "message", true));
    m.content = content_text(j);
    if (auto it = j.find("tool_calls"); it != j.end() && !it->is_null()) {
        if (!it->is_array()) bad_shape("message", j);
        for (const auto& c : *it) m.tool_calls.push_back(tool_call_from_json(c));
    }
    m.tool_call_id = string_field(j, "tool_call_id", "message", false);
    m.name = string_field(j, "name", "message", false);
    return m;
}

ToolSpec tool_spec_from_json(const json& j) {
    if (!j.is_object()) bad_shape("tool", j);
    const json* fn = &j;
    if (auto it = j.find("function"); it != j.end()) {
        if (!it->is_object()) bad_shape("tool", j);
        fn = &*it;
    }
    ToolSpec spec;
    spec.name = string_field(*fn, "name", "tool", true);
    spec.description = string_field(*fn, "description", "tool", false);
    if (auto it = fn->find("parameters"); it != fn->end() && !it->is_null()) spec.parameters = *it;
    if (auto it = fn->find("strict"); it != fn->end() && it->is_boolean()) spec.strict = it->get<bool>();
    return spec;
}

}  // namespace agentskills
