// agentskills-cpp MCP server — the skills extension's methods: skills/list and skills/get,
// assembled from each entry's JSON text (made once per entry).
#include <string>

#include <fmt/core.h>

#include "state.hpp"

namespace agentskills::mcp {

using nlohmann::json;

std::string Server::Impl::skills_list(const detail::Snapshot& snap, const json& params, bool modern) const {
    const auto all = snap.all();
    json cursor = json::object();
    const detail::Page p = page(params, all.size(), cursor);
    std::size_t size = 64;
    for (std::size_t i = p.begin; i < p.end; ++i) size += all[i]->json_text.size() + 1;
    std::string out;
    out.reserve(size);
    out += R"({"skills":[)";
    for (std::size_t i = p.begin; i < p.end; ++i) {
        if (i > p.begin) out += ',';
        out += all[i]->json_text;
    }
    out += ']';
    if (cursor.contains("nextCursor")) out += R"(,"nextCursor":)" + detail::dump(cursor["nextCursor"]);
    return out + modern_fields(modern) + '}';
}

std::string Server::Impl::skills_get(const detail::Snapshot& snap, const json& params, bool modern) const {
    const std::string& uri = detail::string_param(params, "uri");
    const auto parsed = detail::skill_uri_parts(uri);
    const detail::EntryPtr e = parsed && parsed->rel == "SKILL.md" ? snap.find(parsed->name) : nullptr;
    if (!e) detail::invalid_params(fmt::format("No skill is served at {}", uri));
    return R"({"skill":)" + e->json_text + modern_fields(modern) + '}';
}

}  // namespace agentskills::mcp
