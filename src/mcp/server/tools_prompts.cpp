// agentskills-cpp MCP server — the activation tool (the SkillsShim's) and the prompts (one per
// user-invocable skill).
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/harness/tool_shapes.hpp"
#include "state.hpp"

namespace agentskills::mcp {

using detail::EntryPtr;
using nlohmann::json;

json Server::Impl::tools_list(const detail::Snapshot& snap, const json& params) {
    (void)detail::decode_cursor(params, 0);
    json tools = json::array();
    if (!snap.activator->invocable_names().empty())
        tools.push_back(tool_spec_json(ToolFormat::mcp, snap.activator->tool_spec()));
    return {{"tools", std::move(tools)}};
}

json Server::Impl::tools_call(const detail::Snapshot& snap, const json& params, Session& session) {
    const std::string& name = detail::string_param(params, "name");
    if (snap.activator->invocable_names().empty() || name != snap.activator->options().tool_name) {
        detail::invalid_params(fmt::format("Unknown tool: {}", name));
    }
    json arguments = json::object();
    if (const auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
        if (!it->is_object()) detail::invalid_params("params.arguments must be an object");
        arguments = *it;
    }
    // The store serializes what it must; activations of one session may run in parallel.
    const ActivationResult r = snap.activator->activate(*session.activations, arguments.dump());
    const bool is_error = r.status == ActivationStatus::load_error;
    std::string text = is_error ? fmt::format("error: {}", r.error) : r.text;
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
    const SkillManifest* skill = snap.served->find(name);  // the one name rule
    const EntryPtr e = skill ? snap.find(skill->name) : nullptr;
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
    std::string text;
    try {
        text = render_activation_text(
            snap.served->load(e->manifest),
            {.include_directory = options.include_directory,
             .arguments = arguments ? std::optional<std::string_view>(*arguments) : std::nullopt});
    } catch (const ConfigurationError& err) {
        // Arguments that make the text larger than RENDER_MAX_BYTES: the client's parameters.
        detail::invalid_params(err.what());
    }
    return {
        {"description", e->frontmatter.at("description")},
        {"messages", json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", std::move(text)}}}}})}};
}

}  // namespace agentskills::mcp
