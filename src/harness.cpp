#include "agentskills/harness.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"

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

json to_json(const ModelRequest& request, std::string_view model_name) {
    json j = json::object();
    if (!model_name.empty()) j["model"] = std::string(model_name);
    j["messages"] = to_json(request.messages);
    if (!request.tools.empty()) j["tools"] = to_json(request.tools);
    return j;
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

// ---------------------------------------------------------------------------------------
// ShimState.

ShimState::ShimState(json initial) {
    if (!initial.is_object()) throw ConfigurationError("shim state must be a JSON object");
    data_ = std::move(initial);
}

ShimState::ShimState(const ShimState& other) : data_(other.snapshot()) {}

ShimState& ShimState::operator=(const ShimState& other) {
    if (this != &other) {
        json copy = other.snapshot();
        std::lock_guard lock(mutex_);
        data_ = std::move(copy);
    }
    return *this;
}

json ShimState::get(std::string_view key) const {
    std::lock_guard lock(mutex_);
    auto it = data_.find(key);
    return it == data_.end() ? json(nullptr) : *it;
}

bool ShimState::contains(std::string_view key) const {
    std::lock_guard lock(mutex_);
    return data_.contains(key);
}

void ShimState::set(std::string_view key, json value) {
    std::lock_guard lock(mutex_);
    data_[std::string(key)] = std::move(value);
}

bool ShimState::set_if_absent(std::string_view key, json value) {
    std::lock_guard lock(mutex_);
    if (data_.contains(key)) return false;
    data_[std::string(key)] = std::move(value);
    return true;
}

bool ShimState::append_if_unique(std::string_view key, const json& value) {
    std::lock_guard lock(mutex_);
    json& slot = data_[std::string(key)];
    if (!slot.is_array()) slot = json::array();
    if (std::find(slot.begin(), slot.end(), value) != slot.end()) return false;
    slot.push_back(value);
    return true;
}

bool ShimState::remove_value(std::string_view key, const json& value) {
    std::lock_guard lock(mutex_);
    auto it = data_.find(key);
    if (it == data_.end() || !it->is_array()) return false;
    auto pos = std::find(it->begin(), it->end(), value);
    if (pos == it->end()) return false;
    it->erase(pos);
    return true;
}

bool ShimState::erase(std::string_view key) {
    std::lock_guard lock(mutex_);
    auto it = data_.find(key);
    if (it == data_.end()) return false;
    data_.erase(it);
    return true;
}

void ShimState::update(const std::function<void(json&)>& fn) {
    std::lock_guard lock(mutex_);
    fn(data_);
    if (!data_.is_object()) data_ = json::object();
}

json ShimState::snapshot() const {
    std::lock_guard lock(mutex_);
    return data_;
}

std::vector<std::string> RunStateView::active_skill_names() const {
    const json all = state_->shim_state.snapshot();
    std::vector<std::string> out;
    for (const auto& [key, value] : all.items()) {
        if (key.size() < ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX.size() ||
            std::string_view(key).substr(key.size() - ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX.size()) !=
                ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX) {
            continue;
        }
        if (!value.is_array()) continue;
        for (const auto& name : value) {
            if (!name.is_string()) continue;
            auto s = name.get<std::string>();
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
        }
    }
    return out;
}

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
Model::~Model() = default;
RunnerHooks::~RunnerHooks() = default;
void RunnerHooks::on_agent_start(const AgentDescriptor&, const RunState&) {}
void RunnerHooks::on_agent_end(const AgentDescriptor&, const RunResult*) {}
void RunnerHooks::on_llm_start(const AgentDescriptor&, const ModelRequest&) {}
void RunnerHooks::on_llm_end(const AgentDescriptor&, const Message&) {}
void RunnerHooks::on_tool_call_start(const AgentDescriptor&, const ToolCall&) {}
void RunnerHooks::on_tool_call_end(const AgentDescriptor&, const ToolCall&, const ToolResult&) {}

// ---------------------------------------------------------------------------------------
// ScriptedModel.

ScriptedModel::ScriptedModel(std::vector<Message> responses) : responses_(std::move(responses)) {}

Message ScriptedModel::complete(const ModelRequest& request) {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (next_ >= responses_.size()) {
        throw Error(fmt::format("scripted model: no response left for request {}", requests_.size()));
    }
    return responses_[next_++];
}

std::vector<ModelRequest> ScriptedModel::requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
}

std::size_t ScriptedModel::remaining() const {
    std::lock_guard lock(mutex_);
    return responses_.size() - next_;
}

// ---------------------------------------------------------------------------------------
// DefaultAgent.

DefaultAgent::DefaultAgent(AgentDescriptor descriptor, AgentOptions options)
    : descriptor_(std::move(descriptor)), options_(std::move(options)) {
    if (!descriptor_.model) throw ConfigurationError(fmt::format("agent '{}' has no model", descriptor_.name));
    for (const auto& shim : descriptor_.shims) {
        if (!shim) throw ConfigurationError(fmt::format("agent '{}' has a null shim", descriptor_.name));
        bound_.push_back(shim->bind(descriptor_));
        if (!bound_.back()) throw ConfigurationError(fmt::format("shim '{}' returned no binding", shim->name()));
    }
    reset();
}

DefaultAgent::~DefaultAgent() = default;

void DefaultAgent::reset() {
    state_ = std::make_unique<RunState>();
    state_->instructions = descriptor_.instructions;
}

ToolResult DefaultAgent::run_tool_call(const ToolCall& call, const std::vector<Tool>& tools) {
    RunnerHooks* hooks = options_.hooks.get();
    if (hooks != nullptr) hooks->on_tool_call_start(descriptor_, call);
    ToolResult result{.tool_call_id = call.id, .name = call.name, .content = {}, .is_error = false};
    auto it = std::find_if(tools.begin(), tools.end(), [&](const Tool& t) { return t.spec.name == call.name; });
    if (it == tools.end() || !it->handler) {
        result.content = fmt::format("error: no tool named '{}' is available", call.name);
        result.is_error = true;
    } else {
        try {
            result.content = it->handler(call, *state_);
        } catch (const std::exception& e) {
            result.content = fmt::format("error: {}", e.what());
            result.is_error = true;
        }
    }
    if (hooks != nullptr) hooks->on_tool_call_end(descriptor_, call, result);
    return result;
}

std::vector<ToolResult> DefaultAgent::run_tool_calls(const std::vector<ToolCall>& calls,
                                                     const std::vector<Tool>& tools) {
    std::vector<ToolResult> results;
    results.reserve(calls.size());
    if (!options_.parallel_tool_calls || calls.size() < 2) {
        for (const auto& call : calls) results.push_back(run_tool_call(call, tools));
        return results;
    }
    std::vector<std::future<ToolResult>> futures;
    futures.reserve(calls.size());
    for (const auto& call : calls) {
        futures.push_back(std::async(std::launch::async, [this, &call, &tools] { return run_tool_call(call, tools); }));
    }
    for (auto& f : futures) results.push_back(f.get());
    return results;
}

RunResult DefaultAgent::run(std::string_view input) {
    RunnerHooks* hooks = options_.hooks.get();
    RunState& state = *state_;
    if (hooks != nullptr) hooks->on_agent_start(descriptor_, state);
    RunResult result;
    try {
        for (auto& b : bound_) b->on_run_start(state);
        state.history.push_back(user_message(std::string(input)));
        while (true) {
            if (result.turns >= options_.max_turns) {
                result.max_turns_reached = true;
                break;
            }
            PreparedTurn turn(state, descriptor_.tools);
            for (auto& b : bound_) b->prepare_turn(turn);
            std::vector<Tool> tools = turn.visible_tools();

            ModelRequest request;
            request.messages.reserve(state.history.size() + 1);
            if (!turn.system_instruction().empty())
                request.messages.push_back(system_message(turn.system_instruction()));
            request.messages.insert(request.messages.end(), state.history.begin(), state.history.end());
            for (const auto& t : tools) request.tools.push_back(t.spec);

            if (hooks != nullptr) hooks->on_llm_start(descriptor_, request);
            Message response = descriptor_.model->complete(request);
            response.role = Role::assistant;
            if (hooks != nullptr) hooks->on_llm_end(descriptor_, response);
            ++state.turn_count;
            ++result.turns;
            state.history.push_back(response);
            result.final_output = response.content;
            if (response.tool_calls.empty()) break;

            for (auto& r : run_tool_calls(response.tool_calls, tools)) {
                state.history.push_back(
                    tool_message(std::move(r.tool_call_id), std::move(r.name), std::move(r.content)));
            }
        }
        for (auto& b : bound_) b->on_run_end(state);
    } catch (...) {
        if (hooks != nullptr) hooks->on_agent_end(descriptor_, nullptr);
        throw;
    }
    if (hooks != nullptr) hooks->on_agent_end(descriptor_, &result);
    return result;
}

}  // namespace agentskills
