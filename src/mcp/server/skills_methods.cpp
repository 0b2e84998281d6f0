// agentskills-cpp MCP server — the skills extension's methods: skills/list and skills/get,
// assembled from each entry's JSON text (made once per entry).
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>

#include <fmt/core.h>

#include "state.hpp"

namespace agentskills::mcp {

using nlohmann::json;

std::string Server::Impl::skills_list(const detail::Snapshot& snap, const json& params, bool modern,
                                      std::string_view id) const {
    const std::string tail = modern_fields(modern);
    // The entries are read under the snapshot's lock instead of copied out (a reference count
    // taken and dropped per skill per request).
    const std::shared_lock lock(snap.mutex);
    std::size_t total = 0;
    for (const auto& e : snap.entries) total += e ? 1 : 0;
    json cursor = json::object();
    const detail::Page p = page(params, total, cursor);
    std::size_t size = 96 + id.size() + tail.size();  // room for this page only
    std::size_t k = 0;
    for (const auto& e : snap.entries) {
        if (!e) continue;
        if (k >= p.begin && k < p.end) size += e->json_text.size() + 1;
        if (++k >= p.end) break;
    }
    std::string out;
    out.reserve(size);
    detail::append_result_head(out, id);
    out += R"({"skills":[)";
    std::size_t i = 0;
    for (const auto& e : snap.entries) {
        if (!e) continue;
        if (i >= p.begin && i < p.end) {
            if (i > p.begin) out += ',';
            out += e->json_text;
        }
        if (++i >= p.end) break;
    }
    out += ']';
    if (cursor.contains("nextCursor")) {
        out += R"(,"nextCursor":)";
        out += detail::dump(cursor["nextCursor"]);
    }
    out += tail;
    out += "}}";
    return out;
}

std::string Server::Impl::skills_get(const detail::Snapshot& snap, const json& params, bool modern,
                                     std::string_view id) const {
    const std::string& uri = detail::string_param(params, "uri");
    const auto parsed = detail::skill_uri_parts(uri);
    const detail::EntryPtr e = parsed && parsed->rel == "SKILL.md" ? snap.find(parsed->name) : nullptr;
    if (!e) detail::invalid_params(fmt::format("No skill is served at {}", uri));
    const std::string tail = modern_fields(modern);
    std::string out;
    out.reserve(64 + id.size() + e->json_text.size() + tail.size());
    detail::append_result_head(out, id);
    out += R"({"skill":)";
    out += e->json_text;
    out += tail;
    out += "}}";
    return out;
}

}  // namespace agentskills::mcp
