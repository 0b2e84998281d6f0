// agentskills-cpp MCP server — resources/list, resources/templates/list, resources/read and the
// extension's resources/directory/read.
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "../shared/internal.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "state.hpp"

namespace agentskills::mcp {

using detail::EntryPtr;
using detail::SkillFile;
using nlohmann::json;

json Server::Impl::resources_list(const detail::Snapshot& snap, const json& params) const {
    const auto all = snap.all();
    json result = json::object();
    const detail::Page p = page(params, all.size(), result);
    json resources = json::array();
    for (std::size_t i = p.begin; i < p.end; ++i) {
        const detail::SkillEntry& e = *all[i];
        resources.push_back({{"uri", e.uri},
                             {"name", e.name},
                             {"description", e.frontmatter.at("description")},
                             {"mimeType", "text/markdown"},
                             {"size", e.files.front().size}});
    }
    result["resources"] = std::move(resources);
    return result;
}

json Server::Impl::templates_list(const json& params) {
    (void)detail::decode_cursor(params, 0);
    return {{"resourceTemplates",
             json::array({{{"uriTemplate", "skill://{+path}/SKILL.md"},
                           {"name", "skill"},
                           {"description",
                            "The SKILL.md of a served skill; its other files are siblings of it. The path is the "
                            "skill's name, after the names of its plugin and groups for a skill in one "
                            "(plugin/skill)."},
                           {"mimeType", "text/markdown"}}})}};
}

/// The whole response of resources/read as JSON text. The bytes served are the cached bytes of
/// the listing when the file's version is unchanged (one stat), else the file read again and
/// hashed; either way they match the listed size and digest. They go into the response through
/// append_json_string (checked as UTF-8 when listed), which costs much less than building and
/// dumping a JSON tree for a large file.
std::string Server::Impl::resources_read(detail::Snapshot& snap, const json& params, bool modern,
                                         std::string_view id) const {
    const std::string& uri = detail::string_param(params, "uri");
    const int not_found = modern ? detail::INVALID_PARAMS : detail::RESOURCE_NOT_FOUND_2025;
    const auto located = snap.locate(uri);
    EntryPtr e = located ? located->entry : nullptr;
    const auto file_of = [&](const EntryPtr& entry) -> const SkillFile* {
        if (!entry) return nullptr;
        auto it = entry->by_rel.find(located->rel);
        return it == entry->by_rel.end() ? nullptr : &entry->files[it->second];
    };
    const auto missing = [&] {
        return detail::RpcError(not_found, fmt::format("Resource not found: {}", uri), json{{"uri", uri}});
    };
    const SkillFile* f = file_of(e);
    if (f == nullptr) throw missing();
    // One read buffer per thread, kept between reads unless a large file grew it.
    thread_local std::string buffer;
    struct Trim {
        ~Trim() {
            if (buffer.capacity() > (1u << 20)) std::string().swap(buffer);
        }
    } trim;
    for (int attempt = 0; attempt < 2; ++attempt) {
        const std::string* bytes = nullptr;
        if (f->cached && f->version.trusted) {
            const auto now = e->source->stat(f->path);
            if (now && now->same_file_state(f->version)) bytes = &f->cached->bytes();
        }
        if (bytes == nullptr) {
            detail::FileVersion version;
            try {
                e->source->read(e->manifest.root, f->rel, SKILL_MAX_TOTAL_BYTES, buffer, version);
            } catch (const std::exception&) {
                buffer.assign(static_cast<std::size_t>(f->size) + 1, '\0');  // cannot match: forces a refresh
            }
            if (buffer.size() == f->size && detail::sha256_digest(buffer) == f->digest) bytes = &buffer;
        }
        if (bytes != nullptr) {
            std::string out;
            out.reserve(bytes->size() + bytes->size() / 8 + 256);
            detail::append_response_head(out, id);
            out += R"({"contents":[{"uri":)";
            agentskills::append_json_string(out, f->uri);
            out += R"(,"mimeType":)";
            agentskills::append_json_string(out, f->mime);
            if (f->text) {
                out += R"(,"text":)";
                agentskills::append_json_string(out, *bytes);
            } else {
                out += R"(,"blob":")";
                out += detail::base64_encode(*bytes);
                out += '"';
            }
            out += "}]";
            out += modern_fields(modern);
            out += "}}";
            return out;
        }
        // The file changed since it was listed: list it anew, then serve only matching bytes.
        e = refresh(snap, e);
        f = file_of(e);
        if (f == nullptr) throw missing();
    }
    throw detail::RpcError(detail::INTERNAL_ERROR, fmt::format("{} keeps changing while it is read; try again", uri));
}

json Server::Impl::directory_read(const detail::Snapshot& snap, const json& params) const {
    const std::string& uri = detail::string_param(params, "uri");
    const auto located = snap.locate(uri);
    const EntryPtr e = located ? located->entry : nullptr;
    if (!e) detail::invalid_params(fmt::format("No directory resource at {}", uri));
    const std::string& rel = located->rel;
    if (!e->dirs.count(rel)) {
        if (e->by_rel.count(rel)) detail::invalid_params(fmt::format("{} is not a directory resource", uri));
        detail::invalid_params(fmt::format("No directory resource at {}", uri));
    }
    const std::string prefix = rel.empty() ? "" : rel + "/";
    std::vector<json> children;
    const auto direct_child = [&](const std::string& path) {
        return path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
               path.find('/', prefix.size()) == std::string::npos;
    };
    for (const auto& d : e->dirs) {
        if (!direct_child(d)) continue;
        children.push_back({{"uri", detail::file_uri(e->root_uri, d)},
                            {"name", valid_utf8(d.substr(prefix.size()))},
                            {"mimeType", "inode/directory"}});
    }
    for (const auto& f : e->files) {
        if (!direct_child(f.rel)) continue;
        children.push_back({{"uri", f.uri},
                            {"name", valid_utf8(f.rel.substr(prefix.size()))},
                            {"mimeType", f.mime},
                            {"size", f.size}});
    }
    std::sort(children.begin(), children.end(), [](const json& a, const json& b) {
        return a.at("uri").get_ref<const std::string&>() < b.at("uri").get_ref<const std::string&>();
    });
    json result = json::object();
    const detail::Page p = page(params, children.size(), result);
    json resources = json::array();
    for (std::size_t i = p.begin; i < p.end; ++i) resources.push_back(std::move(children[i]));
    result["resources"] = std::move(resources);
    return result;
}

}  // namespace agentskills::mcp
