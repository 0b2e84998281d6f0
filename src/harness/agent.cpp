#include "agentskills/harness/agent.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"

namespace agentskills {

using nlohmann::json;

Model::~Model() = default;

json to_json(const ModelRequest& request, std::string_view model_name) {
    json j = json::object();
    if (!model_name.empty()) j["model"] = std::string(model_name);
    j["messages"] = to_json(request.messages);
    if (!request.tools.empty()) j["tools"] = to_json(request.tools);
    return j;
}

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
