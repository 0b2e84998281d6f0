// agentskills-cpp MCP server — the activation tool (the SkillsShim's) and the prompts (one per
// user-invocable skill).
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "agentskills/host.hpp"
#include "state.hpp"

namespace agentskills::mcp {

using detail::EntryPtr;
using nlohmann::json;

json Server::Impl::tools_list(const detail::Snapshot& snap, const json& params) {
    (void)detail::decode_cursor(params, 0);
    json tools = json::array();
    if (snap.tool) {
        tools.push_back({{"name", snap.tool->spec.name},
                         {"description", snap.tool->spec.description},
                         {"inputSchema", snap.tool->spec.parameters}});
    }
    return {{"tools", std::move(tools)}};
}

json Server::Impl::tools_call(const detail::Snapshot& snap, const json& params, Session& session) {
    const std::string& name = detail::string_param(params, "name");
    if (!snap.tool || name != snap.tool->spec.name) detail::invalid_params(fmt::format("Unknown tool: {}", name));
    json arguments = json::object();
    if (const auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
        if (!it->is_object()) detail::invalid_params("params.arguments must be an object");
        arguments = *it;
    }
    std::string text;
    bool is_error = false;
    try {
        std::lock_guard lock(session.mutex);
        text = snap.tool->handler(ToolCall{.id = "mcp", .name = name, .arguments = arguments.dump()}, session.state);
    } catch (const std::exception& e) {
        text = fmt::format("error: {}", e.what());
        is_error = true;
    }
    return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})}, {"isError", is_error}};
}

json Server::Impl::prompts_list(const detail::Snapshot& snap, const json& params) const {
    std::vector<EntryPtr> all;
    for (auto& e : snap.all()) {
        if (e->manifest.user_invocable) all.push_back(std::move(e));
    }
    json result = json::object();
    const detail::Page p = page(params, all.size(), result);
    json prompts = json::array();
    for (std::size_t i = p.begin; i < p.end; ++i) {
        prompts.push_back({{"name", all[i]->name},
                           {"description", all[i]->frontmatter.at("description")},
                           {"arguments", json::array({{{"name", "arguments"},
                                                       {"description",
                                                        "Text for the skill: it replaces $ARGUMENTS in the "
                                                        "instructions, or is appended when they have none."},
                                                       {"required", false}}})}});
    }
    result["prompts"] = std::move(prompts);
    return result;
}

json Server::Impl::prompts_get(const detail::Snapshot& snap, const json& params) const {
    const std::string& name = detail::string_param(params, "name");
    const EntryPtr e = snap.find(name);
    if (!e || !e->manifest.user_invocable) detail::invalid_params(fmt::format("Unknown prompt: {}", name));
    std::optional<std::string> arguments;
    if (const auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
        if (!it->is_object()) detail::invalid_params("params.arguments must be an object");
        for (const auto& [key, value] : it->items()) {
            if (!value.is_string()) {
                detail::invalid_params(fmt::format("prompt argument \"{}\" must be a string", key));
            }
            if (key != "arguments") detail::invalid_params(fmt::format("unknown prompt argument \"{}\"", key));
            arguments = value.get<std::string>();
        }
    }
    const SkillDefinition def = SkillDefinition::from_loaded(snap.served->load(e->name), options.include_directory);
    std::string text = arguments ? def.render(std::string_view(*arguments)) : def.render();
    return {
        {"description", e->frontmatter.at("description")},
        {"messages", json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", std::move(text)}}}}})}};
}

}  // namespace agentskills::mcp
