// agentskills-cpp MCP server — the skills extension's methods: skills/list and skills/get,
// assembled from each entry's JSON text (made once per entry).
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

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
    // One walk over the entries picks the page's texts; the response is sized for them alone.
    std::vector<const std::string*> texts;
    texts.reserve(p.end > p.begin ? p.end - p.begin : 0);
    std::size_t size = 96 + id.size() + tail.size();
    std::size_t k = 0;
    for (const auto& e : snap.entries) {
        if (k >= p.end) break;
        if (!e) continue;
        if (k++ < p.begin) continue;
        texts.push_back(&e->json_text);
        size += e->json_text.size() + 1;
    }
    std::string out;
    out.reserve(size);
    detail::append_response_head(out, id);
    out += R"({"skills":[)";
    for (std::size_t i = 0; i < texts.size(); ++i) {
        if (i > 0) out += ',';
        out += *texts[i];
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
    const auto located = snap.locate(uri);
    const detail::EntryPtr e = located && located->rel == "SKILL.md" ? located->entry : nullptr;
    if (!e) detail::invalid_params(fmt::format("No skill is served at {}", uri));
    const std::string tail = modern_fields(modern);
    std::string out;
    out.reserve(64 + id.size() + e->json_text.size() + tail.size());
    detail::append_response_head(out, id);
    out += R"({"skill":)";
    out += e->json_text;
    out += tail;
    out += "}}";
    return out;
}

}  // namespace agentskills::mcp
