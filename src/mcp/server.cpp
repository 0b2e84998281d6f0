// agentskills-cpp MCP server — the skill index and the transport-agnostic JSON-RPC handler.
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "agentskills/diagnostic_codes.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/harness.hpp"
#include "agentskills/host.hpp"
#include "agentskills/mcp_server.hpp"
#include "agentskills/names.hpp"
#include "agentskills/skills_shim.hpp"
#include "agentskills/version.hpp"
#include "internal.hpp"

namespace agentskills::mcp {

using nlohmann::json;

class Session {
public:
    std::mutex mutex;
    RunState state;
    bool initialized = false;
    std::string version;
};

namespace {

namespace fs = std::filesystem;

constexpr int PARSE_ERROR = -32700;
constexpr int INVALID_REQUEST = -32600;
constexpr int METHOD_NOT_FOUND = -32601;
constexpr int INVALID_PARAMS = -32602;
constexpr int INTERNAL_ERROR = -32603;
constexpr int RESOURCE_NOT_FOUND_2025 = -32002;
constexpr int UNSUPPORTED_PROTOCOL_VERSION = -32022;

constexpr std::string_view META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
constexpr std::string_view META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
constexpr std::string_view META_SERVER_INFO = "io.modelcontextprotocol/serverInfo";
constexpr std::string_view SCHEME = "skill://";

const std::vector<std::string_view>& legacy_versions() {
    static const std::vector<std::string_view> v = {PROTOCOL_2025_11_25, "2025-06-18", "2025-03-26"};
    return v;
}

/// A JSON-RPC error raised while handling a request.
struct RpcError : std::runtime_error {
    RpcError(int c, const std::string& message, json d = nullptr)
        : std::runtime_error(message), code(c), data(std::move(d)) {}
    int code;
    json data;
};

[[noreturn]] void invalid_params(const std::string& message) { throw RpcError(INVALID_PARAMS, message); }

struct SkillFile {
    std::string rel;     // '/'-separated, raw bytes
    std::string uri;     // skill://NAME/encoded/rel
    std::string native;  // path on disk
    std::string digest;
    std::uint64_t size = 0;
    bool text = false;
    std::string mime;
};

struct SkillEntry {
    SkillManifest manifest;
    std::string name;
    std::string root_uri;  // skill://NAME
    std::string uri;       // skill://NAME/SKILL.md
    json frontmatter;
    std::vector<SkillFile> files;               // SKILL.md first, then by path
    std::map<std::string, std::size_t> by_rel;  // rel -> index in files
    std::set<std::string> dirs;                 // rel paths of directories, "" = the root
    std::string json_text;  // the Skill entry as JSON text (an entry never changes; a changed skill is a new one)
};

using EntryPtr = std::shared_ptr<const SkillEntry>;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

/// Reads a regular file whole. The last path component is not followed if it is a symbolic link
/// and a FIFO or device is refused before any read, so a file swapped after listing can neither
/// redirect the read nor block it.
void read_whole_into(const std::string& path, std::uint64_t limit, std::string& data) {
    data.clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot open {}", path));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        throw std::runtime_error(fmt::format("{} is not a regular file", path));
    }
    if (static_cast<std::uint64_t>(st.st_size) > limit) {
        throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
    }
    // Read straight into the string: its size is the file's plus one byte, so that growth since
    // the fstat shows as a longer read (and a short read as a shorter string).
    data.resize(static_cast<std::size_t>(st.st_size) + 1);
    std::size_t used = 0;
    for (;;) {
        if (used == data.size()) {
            if (data.size() > limit) throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
            data.resize(data.size() * 2);
        }
        const ssize_t n = ::read(fd, data.data() + used, data.size() - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(fmt::format("cannot read {}", path));
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    data.resize(used);
    if (data.size() > limit) throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
}

std::string file_uri(std::string_view name, std::string_view rel) {
    std::string uri = std::string(SCHEME) + std::string(name);
    std::size_t start = 0;
    while (start <= rel.size()) {
        std::size_t end = rel.find('/', start);
        if (end == std::string_view::npos) end = rel.size();
        uri += '/';
        uri += detail::encode_segment(rel.substr(start, end - start));
        start = end + 1;
    }
    return uri;
}

bool is_skill_name(std::string_view name) {
    if (name.empty() || name.size() > SKILL_MAX_NAME_LENGTH) return false;
    if (name.front() == '-' || name.back() == '-' || name.find("--") != std::string_view::npos) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

/// Checks the extension's and Agent Skills' rules on an entry; throws a sentence when one fails.
void check_frontmatter(const json& fm, const std::string& name) {
    const auto it = fm.find("name");
    if (it == fm.end() || !it->is_string()) throw std::runtime_error("the frontmatter has no string \"name\"");
    if (it->get_ref<const std::string&>() != name) {
        throw std::runtime_error(fmt::format("the frontmatter name \"{}\" is not the catalog name \"{}\"",
                                             it->get_ref<const std::string&>(), name));
    }
    if (!is_skill_name(name)) {
        throw std::runtime_error(
            fmt::format("the name \"{}\" is not 1-64 lowercase letters, digits and single hyphens", name));
    }
    const auto d = fm.find("description");
    if (d == fm.end() || !d->is_string()) throw std::runtime_error("the frontmatter has no string \"description\"");
    const std::size_t dn = code_point_count(d->get_ref<const std::string&>());
    if (dn == 0 || dn > SKILL_MAX_DESCRIPTION_LENGTH) {
        throw std::runtime_error("the description is not 1-1024 characters");
    }
    if (const auto c = fm.find("compatibility"); c != fm.end()) {
        if (!c->is_string() || c->get_ref<const std::string&>().empty() ||
            code_point_count(c->get_ref<const std::string&>()) > SKILL_MAX_COMPATIBILITY_LENGTH) {
            throw std::runtime_error("compatibility is not a string of 1-500 characters");
        }
    }
    if (const auto m = fm.find("metadata"); m != fm.end()) {
        if (!m->is_object() || !std::all_of(m->begin(), m->end(), [](const json& v) { return v.is_string(); })) {
            throw std::runtime_error("metadata does not map strings to strings");
        }
    }
}

/// Reads, hashes and checks one skill; throws a sentence when it cannot be served.
EntryPtr build_entry(const SkillManifest& manifest, std::size_t max_depth) {
    auto entry = std::make_shared<SkillEntry>();
    entry->manifest = manifest;
    entry->name = manifest.name;
    entry->root_uri = std::string(SCHEME) + manifest.name;
    entry->uri = entry->root_uri + "/SKILL.md";
    if (path_basename(manifest.skill_file) != "SKILL.md") {
        throw std::runtime_error("its skill file is not named SKILL.md");
    }
    const fs::path root(manifest.root);
    std::vector<std::string> rels;
    std::error_code ec;
    fs::recursive_directory_iterator it(root, fs::directory_options::none, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot list {}: {}", manifest.root, ec.message()));
    entry->dirs.insert("");
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) throw std::runtime_error(fmt::format("cannot list {}: {}", manifest.root, ec.message()));
        if (static_cast<std::size_t>(it.depth()) >= max_depth) {
            throw std::runtime_error(fmt::format("{} nests deeper than {} directories", manifest.root, max_depth));
        }
        const fs::file_status st = it->symlink_status(ec);
        if (ec) continue;
        const std::string rel = it->path().lexically_relative(root).generic_string();
        if (fs::is_symlink(st)) continue;  // never followed, never served (docs/mcp.md)
        if (fs::is_directory(st)) {
            entry->dirs.insert(rel);
            continue;
        }
        if (!fs::is_regular_file(st)) continue;
        rels.push_back(rel);
        if (rels.size() > SKILL_MAX_RESOURCES) {
            throw std::runtime_error(fmt::format("it has more than {} files", SKILL_MAX_RESOURCES));
        }
    }
    std::sort(rels.begin(), rels.end(), [](const std::string& a, const std::string& b) {
        if ((a == "SKILL.md") != (b == "SKILL.md")) return a == "SKILL.md";
        return a < b;
    });
    if (rels.empty() || rels.front() != "SKILL.md") throw std::runtime_error("SKILL.md is missing");
    std::uint64_t total = 0;
    std::string bytes;  // one buffer for every file of the skill
    for (const auto& rel : rels) {
        SkillFile f;
        f.rel = rel;
        f.uri = file_uri(manifest.name, rel);
        f.native = (root / fs::path(rel)).string();
        read_whole_into(f.native, SKILL_MAX_TOTAL_BYTES - total, bytes);
        total += bytes.size();
        f.size = bytes.size();
        f.digest = detail::sha256_digest(bytes);
        f.text = is_valid_utf8(bytes);
        f.mime = rel == "SKILL.md" ? "text/markdown" : detail::mime_type_for(path_basename(rel), f.text);
        if (rel == "SKILL.md") {
            if (!f.text) throw std::runtime_error("SKILL.md is not valid UTF-8");
            entry->frontmatter = detail::frontmatter_json(bytes, max_depth);
            check_frontmatter(entry->frontmatter, manifest.name);
        }
        entry->by_rel[rel] = entry->files.size();
        entry->files.push_back(std::move(f));
    }
    json resources = json::array();
    for (const auto& f : entry->files) resources.push_back({{"uri", f.uri}, {"digest", f.digest}, {"size", f.size}});
    entry->json_text =
        dump(json{{"uri", entry->uri}, {"frontmatter", entry->frontmatter}, {"resources", std::move(resources)}});
    return entry;
}

/// A `skill://` URI split into the skill name and the decoded path below its root.
struct ParsedUri {
    std::string name;
    std::string rel;  // "" for the root
};

std::optional<ParsedUri> parse_skill_uri(std::string_view uri) {
    if (uri.substr(0, SCHEME.size()) != SCHEME) return std::nullopt;
    uri.remove_prefix(SCHEME.size());
    if (uri.find_first_of("?#") != std::string_view::npos) return std::nullopt;
    ParsedUri out;
    std::size_t start = 0;
    bool first = true;
    while (start <= uri.size()) {
        std::size_t end = uri.find('/', start);
        if (end == std::string_view::npos) end = uri.size();
        auto decoded = detail::decode_percent(uri.substr(start, end - start));
        if (!decoded || decoded->empty() || *decoded == "." || *decoded == ".." ||
            decoded->find('/') != std::string::npos || decoded->find('\0') != std::string::npos) {
            return std::nullopt;
        }
        if (first) {
            out.name = std::move(*decoded);
            first = false;
        } else {
            if (!out.rel.empty()) out.rel += '/';
            out.rel += *decoded;
        }
        start = end + 1;
    }
    return out;
}

/// Forwards to the catalog; says whether activation texts may name the skill directory.
class ServedLoader final : public SkillLoader {
public:
    ServedLoader(SkillCatalogPtr catalog, bool in_workspace)
        : catalog_(std::move(catalog)), in_workspace_(in_workspace) {}
    Discovery discover() override { throw DiscoveryError("the MCP server's catalog is discovered once"); }
    LoadedSkill load(std::string_view name) override { return catalog_->load(name); }
    bool in_run_workspace(std::string_view) const override { return in_workspace_; }

private:
    SkillCatalogPtr catalog_;
    bool in_workspace_;
};

std::string encode_cursor(std::size_t offset) { return detail::base64_encode(fmt::format("agentskills:{}", offset)); }

std::size_t decode_cursor(const json& params, std::size_t total) {
    const auto it = params.find("cursor");
    if (it == params.end() || it->is_null()) return 0;
    if (!it->is_string()) invalid_params("cursor must be a string");
    const auto text = detail::base64_decode(it->get_ref<const std::string&>());
    constexpr std::string_view prefix = "agentskills:";
    if (text && text->rfind(prefix, 0) == 0 && text->size() > prefix.size() && text->size() < prefix.size() + 12 &&
        std::all_of(text->begin() + static_cast<std::ptrdiff_t>(prefix.size()), text->end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
        const std::size_t offset = std::stoull(text->substr(prefix.size()));
        if (offset <= total) return offset;
    }
    invalid_params("invalid cursor");
}

const std::string& string_param(const json& params, const char* key) {
    const auto it = params.find(key);
    if (it == params.end() || !it->is_string()) invalid_params(fmt::format("params.{} must be a string", key));
    return it->get_ref<const std::string&>();
}

json error_response(const json& id, int code, std::string_view message, const json& data = nullptr) {
    json err = {{"code", code}, {"message", message}};
    if (!data.is_null()) err["data"] = data;
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", std::move(err)}};
}

}  // namespace

struct Server::Impl {
    ServerOptions options;
    SkillCatalogPtr catalog;  // as given
    SkillCatalogPtr served;   // the served skills only, for the shim and prompts
    std::shared_ptr<SkillsShim> shim;
    std::unique_ptr<BoundShim> bound;
    std::optional<Tool> tool;
    std::vector<LeftOutSkill> left_out;

    mutable std::shared_mutex mutex;
    std::vector<EntryPtr> entries;  // catalog order; null once a changed skill fails
    std::map<std::string, std::size_t> by_name;

    void logline(std::string_view line) const {
        if (options.log) {
            options.log(line);
        } else {
            fmt::print(stderr, "{}\n", line);
        }
    }

    [[nodiscard]] std::vector<EntryPtr> snapshot() const {
        std::shared_lock lock(mutex);
        std::vector<EntryPtr> out;
        out.reserve(entries.size());
        for (const auto& e : entries) {
            if (e) out.push_back(e);
        }
        return out;
    }

    [[nodiscard]] EntryPtr find(std::string_view name) const {
        std::shared_lock lock(mutex);
        auto it = by_name.find(std::string(name));
        return it == by_name.end() ? nullptr : entries[it->second];
    }

    /// Re-reads a skill whose file changed; returns the new entry or null when it is no longer served.
    EntryPtr refresh(const EntryPtr& old) {
        EntryPtr fresh;
        try {
            fresh = build_entry(old->manifest, options.max_json_depth);
        } catch (const std::exception& e) {
            logline(fmt::format("agentskills mcp: {} changed and is no longer served: {} [{}]", old->name, e.what(),
                                codes::mcp_skill_left_out));
        }
        std::unique_lock lock(mutex);
        auto it = by_name.find(old->name);
        if (it != by_name.end() && entries[it->second] == old) entries[it->second] = fresh;
        return it == by_name.end() ? nullptr : entries[it->second];
    }

    struct Page {
        std::size_t begin = 0;
        std::size_t end = 0;
    };
    Page page(const json& params, std::size_t total, json& result) const {
        Page p;
        p.begin = decode_cursor(params, total);
        p.end = std::min(total, p.begin + std::max<std::size_t>(1, options.page_size));
        if (p.end < total) result["nextCursor"] = encode_cursor(p.end);
        return p;
    }

    json capabilities() const {
        json caps = {{"resources", json::object()},
                     {"prompts", json::object()},
                     {"extensions", {{std::string(SKILLS_EXTENSION_ID), {{"directoryRead", true}}}}}};
        caps["tools"] = json::object();
        return caps;
    }

    json server_info() const { return {{"name", "agentskills"}, {"version", version_string}}; }

    // ---- methods -------------------------------------------------------------------------

    /// `,"resultType":…,"ttlMs":…,"cacheScope":…` for a cacheable result in the 2026-07-28 era.
    [[nodiscard]] std::string modern_fields(bool modern) const {
        return modern ? fmt::format(R"(,"resultType":"complete","ttlMs":{},"cacheScope":"public")", options.ttl_ms)
                      : std::string();
    }

    /// skills/list and skills/get are assembled from each entry's JSON text, made once.
    std::string skills_list(const json& params, bool modern) const {
        const auto all = snapshot();
        json cursor = json::object();
        const Page p = page(params, all.size(), cursor);
        std::string out = R"({"skills":[)";
        for (std::size_t i = p.begin; i < p.end; ++i) {
            if (i > p.begin) out += ',';
            out += all[i]->json_text;
        }
        out += ']';
        if (cursor.contains("nextCursor")) out += R"(,"nextCursor":)" + dump(cursor["nextCursor"]);
        return out + modern_fields(modern) + '}';
    }

    EntryPtr skill_for_uri(const std::string& uri) const {
        const auto parsed = parse_skill_uri(uri);
        if (!parsed || parsed->rel != "SKILL.md") return nullptr;
        return find(parsed->name);
    }

    std::string skills_get(const json& params, bool modern) const {
        const std::string& uri = string_param(params, "uri");
        const EntryPtr e = skill_for_uri(uri);
        if (!e) invalid_params(fmt::format("No skill is served at {}", uri));
        return R"({"skill":)" + e->json_text + modern_fields(modern) + '}';
    }

    json resources_list(const json& params) const {
        const auto all = snapshot();
        json result = json::object();
        const Page p = page(params, all.size(), result);
        json resources = json::array();
        for (std::size_t i = p.begin; i < p.end; ++i) {
            const SkillEntry& e = *all[i];
            resources.push_back({{"uri", e.uri},
                                 {"name", e.name},
                                 {"description", e.frontmatter.at("description")},
                                 {"mimeType", "text/markdown"},
                                 {"size", e.files.front().size}});
        }
        result["resources"] = std::move(resources);
        return result;
    }

    static json templates_list(const json& params) {
        (void)decode_cursor(params, 0);
        return {{"resourceTemplates",
                 json::array({{{"uriTemplate", "skill://{name}/SKILL.md"},
                               {"name", "skill"},
                               {"description", "The SKILL.md of a served skill; its other files are siblings of it."},
                               {"mimeType", "text/markdown"}}})}};
    }

    /// The result object of resources/read as JSON text. The file's bytes go into it through
    /// append_json_string (they were checked as UTF-8 when listed and match the digest now),
    /// which costs much less than building and dumping a JSON tree for a large file.
    std::string resources_read(const json& params, bool modern, const json& id) {
        const std::string& uri = string_param(params, "uri");
        const int not_found = modern ? INVALID_PARAMS : RESOURCE_NOT_FOUND_2025;
        const auto parsed = parse_skill_uri(uri);
        EntryPtr e = parsed ? find(parsed->name) : nullptr;
        const auto file_of = [&](const EntryPtr& entry) -> const SkillFile* {
            if (!entry) return nullptr;
            auto it = entry->by_rel.find(parsed->rel);
            return it == entry->by_rel.end() ? nullptr : &entry->files[it->second];
        };
        const SkillFile* f = file_of(e);
        if (f == nullptr) throw RpcError(not_found, fmt::format("Resource not found: {}", uri), json{{"uri", uri}});
        // One read buffer per thread, kept between reads unless a large file grew it.
        thread_local std::string bytes;
        struct Trim {
            ~Trim() {
                if (bytes.capacity() > (1u << 20)) std::string().swap(bytes);
            }
        } trim;
        for (int attempt = 0; attempt < 2; ++attempt) {
            try {
                read_whole_into(f->native, SKILL_MAX_TOTAL_BYTES, bytes);
            } catch (const std::exception&) {
                bytes.clear();
                bytes.push_back('\0');  // forces a refresh below: the size cannot match a vanished file
                bytes.resize(static_cast<std::size_t>(f->size) + 1);
            }
            if (bytes.size() == f->size && detail::sha256_digest(bytes) == f->digest) {
                std::string out;
                out.reserve(bytes.size() + bytes.size() / 8 + 256);
                out += R"({"jsonrpc":"2.0","id":)";
                out += dump(id);
                out += R"(,"result":{"contents":[{"uri":)";
                out += dump(json(f->uri));
                out += R"(,"mimeType":)";
                out += dump(json(f->mime));
                if (f->text) {
                    out += R"(,"text":)";
                    detail::append_json_string(out, bytes);
                } else {
                    out += R"(,"blob":")";
                    out += detail::base64_encode(bytes);
                    out += '"';
                }
                out += "}]";
                out += modern_fields(modern);
                out += "}}";
                return out;
            }
            // The file changed since it was listed: list it anew, then serve only matching bytes.
            e = refresh(e);
            f = file_of(e);
            if (f == nullptr) throw RpcError(not_found, fmt::format("Resource not found: {}", uri), json{{"uri", uri}});
        }
        throw RpcError(INTERNAL_ERROR, fmt::format("{} keeps changing while it is read; try again", uri));
    }

    json directory_read(const json& params) const {
        const std::string& uri = string_param(params, "uri");
        const auto parsed = parse_skill_uri(uri);
        const EntryPtr e = parsed ? find(parsed->name) : nullptr;
        if (!e) invalid_params(fmt::format("No directory resource at {}", uri));
        if (!e->dirs.count(parsed->rel)) {
            if (e->by_rel.count(parsed->rel)) invalid_params(fmt::format("{} is not a directory resource", uri));
            invalid_params(fmt::format("No directory resource at {}", uri));
        }
        const std::string prefix = parsed->rel.empty() ? "" : parsed->rel + "/";
        std::vector<json> children;
        const auto direct_child = [&](const std::string& rel) {
            return rel.size() > prefix.size() && rel.compare(0, prefix.size(), prefix) == 0 &&
                   rel.find('/', prefix.size()) == std::string::npos;
        };
        for (const auto& d : e->dirs) {
            if (!direct_child(d)) continue;
            children.push_back({{"uri", file_uri(e->name, d)},
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
        const Page p = page(params, children.size(), result);
        json resources = json::array();
        for (std::size_t i = p.begin; i < p.end; ++i) resources.push_back(std::move(children[i]));
        result["resources"] = std::move(resources);
        return result;
    }

    json tools_list(const json& params) const {
        (void)decode_cursor(params, 0);
        json tools = json::array();
        if (tool) {
            tools.push_back({{"name", tool->spec.name},
                             {"description", tool->spec.description},
                             {"inputSchema", tool->spec.parameters}});
        }
        return {{"tools", std::move(tools)}};
    }

    json tools_call(const json& params, Session& session) const {
        const std::string& name = string_param(params, "name");
        if (!tool || name != tool->spec.name) invalid_params(fmt::format("Unknown tool: {}", name));
        json arguments = json::object();
        if (const auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
            if (!it->is_object()) invalid_params("params.arguments must be an object");
            arguments = *it;
        }
        std::string text;
        bool is_error = false;
        try {
            std::lock_guard lock(session.mutex);
            text = tool->handler(ToolCall{.id = "mcp", .name = name, .arguments = arguments.dump()}, session.state);
        } catch (const std::exception& e) {
            text = fmt::format("error: {}", e.what());
            is_error = true;
        }
        return {{"content", json::array({{{"type", "text"}, {"text", std::move(text)}}})}, {"isError", is_error}};
    }

    [[nodiscard]] std::vector<EntryPtr> prompt_skills() const {
        std::vector<EntryPtr> out;
        for (auto& e : snapshot()) {
            if (e->manifest.user_invocable) out.push_back(e);
        }
        return out;
    }

    json prompts_list(const json& params) const {
        const auto all = prompt_skills();
        json result = json::object();
        const Page p = page(params, all.size(), result);
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

    json prompts_get(const json& params) const {
        const std::string& name = string_param(params, "name");
        const EntryPtr e = find(name);
        if (!e || !e->manifest.user_invocable) invalid_params(fmt::format("Unknown prompt: {}", name));
        std::optional<std::string> arguments;
        if (const auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
            if (!it->is_object()) invalid_params("params.arguments must be an object");
            for (const auto& [key, value] : it->items()) {
                if (!value.is_string()) invalid_params(fmt::format("prompt argument \"{}\" must be a string", key));
                if (key != "arguments") invalid_params(fmt::format("unknown prompt argument \"{}\"", key));
                arguments = value.get<std::string>();
            }
        }
        LoadedSkill loaded = served->load(e->name);
        SkillDefinition def;
        def.name = loaded.manifest.name;
        def.description = loaded.manifest.description;
        def.body = std::move(loaded.instructions);
        def.path = loaded.manifest.skill_file;
        def.directory = loaded.manifest.root;
        def.model_invocable = loaded.manifest.model_invocable();
        def.user_invocable = loaded.manifest.user_invocable;
        def.in_run_workspace = options.include_directory;
        def.manifest = std::move(loaded.manifest);
        def.resources = std::move(loaded.resources);
        std::string text = arguments ? def.render(std::string_view(*arguments)) : def.render();
        return {{"description", e->frontmatter.at("description")},
                {"messages",
                 json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", std::move(text)}}}}})}};
    }

    json initialize(const json& params, Session& session) const {
        const std::string& requested = string_param(params, "protocolVersion");
        std::string version(PROTOCOL_2025_11_25);
        for (auto v : legacy_versions()) {
            if (v == requested) version = requested;
        }
        {
            std::lock_guard lock(session.mutex);
            session.initialized = true;
            session.version = version;
        }
        return {{"protocolVersion", version}, {"capabilities", capabilities()}, {"serverInfo", server_info()}};
    }

    json discover() const {
        return {
            {"supportedVersions", json::array({std::string(PROTOCOL_2026_07_28), std::string(PROTOCOL_2025_11_25)})},
            {"capabilities", capabilities()},
            {"_meta", {{std::string(META_SERVER_INFO), server_info()}}}};
    }
};

Server::Server(SkillCatalogPtr catalog, ServerOptions options) : impl_(std::make_unique<Impl>()) {
    if (!catalog) throw ConfigurationError("mcp::Server: no catalog");
    impl_->options = std::move(options);
    impl_->catalog = catalog;
    std::vector<SkillManifest> served;
    for (const auto& m : *catalog) {
        try {
            EntryPtr e = build_entry(m, impl_->options.max_json_depth);
            impl_->by_name[m.name] = impl_->entries.size();
            impl_->entries.push_back(std::move(e));
            served.push_back(m);
        } catch (const std::exception& e) {
            impl_->left_out.push_back({m.name, m.skill_file, e.what()});
            impl_->logline(fmt::format("agentskills mcp: left out {} ({}): {} [{}]", m.name, m.skill_file, e.what(),
                                       codes::mcp_skill_left_out));
        }
    }
    Discovery d;
    d.skills = std::move(served);
    auto loader = std::make_shared<ServedLoader>(catalog, impl_->options.include_directory);
    impl_->served = std::make_shared<const SkillCatalog>(loader, std::move(d));
    impl_->shim = std::make_shared<SkillsShim>(
        SkillsShimOptions{.catalog = impl_->served, .tool_name = impl_->options.tool_name});
    impl_->bound = impl_->shim->bind(AgentDescriptor{.name = "agentskills-mcp"});
    RunState scratch;
    PreparedTurn turn(scratch, {});
    impl_->bound->prepare_turn(turn);
    for (const auto& t : turn.all_tools()) {
        if (t.spec.name == impl_->options.tool_name) impl_->tool = t;
    }
}

Server::~Server() = default;

std::shared_ptr<Session> Server::open_session() const { return std::make_shared<Session>(); }

std::vector<std::string> Server::served_skill_names() const {
    std::vector<std::string> out;
    for (const auto& e : impl_->snapshot()) out.push_back(e->name);
    return out;
}

const std::vector<LeftOutSkill>& Server::left_out() const noexcept { return impl_->left_out; }
const ServerOptions& Server::options() const noexcept { return impl_->options; }
void Server::log(std::string_view line) const { impl_->logline(line); }

Exchange Server::handle(std::string_view message, Session& session) const {
    Exchange ex;
    Impl& impl = *impl_;
    const auto fail = [&](const json& id, int code, std::string_view text, const json& data = nullptr) {
        ex.error_code = code;
        ex.response = dump(error_response(id, code, text, data));
        return ex;
    };
    if (message.size() > impl.options.max_message_bytes) {
        return fail(
            nullptr, INVALID_REQUEST,
            fmt::format("Invalid Request: the message is larger than {} bytes", impl.options.max_message_bytes));
    }
    if (detail::json_depth(message, impl.options.max_json_depth) > impl.options.max_json_depth) {
        return fail(
            nullptr, INVALID_REQUEST,
            fmt::format("Invalid Request: the message nests deeper than {} levels", impl.options.max_json_depth));
    }
    json msg = json::parse(message, nullptr, /*allow_exceptions=*/false);
    if (msg.is_discarded()) return fail(nullptr, PARSE_ERROR, "Parse error: the message is not valid JSON");
    if (msg.is_array()) return fail(nullptr, INVALID_REQUEST, "Invalid Request: batches are not supported");
    if (!msg.is_object()) return fail(nullptr, INVALID_REQUEST, "Invalid Request: a message is a JSON object");

    const auto id_it = msg.find("id");
    const bool has_id = id_it != msg.end();
    const bool id_ok = has_id && (id_it->is_string() || id_it->is_number());
    const json id = id_ok ? *id_it : json(nullptr);
    const auto method_it = msg.find("method");
    if (method_it == msg.end()) {
        // A response from the client (we send no requests) is dropped; anything else is invalid.
        if (has_id && (msg.contains("result") || msg.contains("error"))) return ex;
        return fail(id, INVALID_REQUEST, "Invalid Request: no method");
    }
    const auto jsonrpc = msg.find("jsonrpc");
    if (jsonrpc == msg.end() || *jsonrpc != "2.0")
        return fail(id, INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"");
    if (!method_it->is_string()) return fail(id, INVALID_REQUEST, "Invalid Request: method must be a string");
    if (has_id && !id_ok) return fail(nullptr, INVALID_REQUEST, "Invalid Request: id must be a string or a number");
    ex.method = method_it->get<std::string>();
    json params = json::object();
    if (const auto p = msg.find("params"); p != msg.end()) {
        if (p->is_array()) return has_id ? fail(id, INVALID_PARAMS, "Invalid params: params must be an object") : ex;
        if (!p->is_object())
            return has_id ? fail(id, INVALID_REQUEST, "Invalid Request: params must be an object") : ex;
        params = *p;
    }

    if (!has_id) {
        // Notifications: nothing to answer; `initialized` and `cancelled` need nothing either
        // (requests are answered synchronously, so there is nothing in flight to cancel).
        if (ex.method == "notifications/initialized") {
            std::lock_guard lock(session.mutex);
            session.initialized = true;
        }
        return ex;
    }

    const json* meta = nullptr;
    if (const auto m = params.find("_meta"); m != params.end()) {
        if (!m->is_object()) return fail(id, INVALID_PARAMS, "Invalid params: _meta must be an object");
        meta = &*m;
    }
    const bool modern = meta != nullptr && meta->contains(std::string(META_PROTOCOL_VERSION));
    ex.modern = modern;
    try {
        if (modern) {
            const json& v = meta->at(std::string(META_PROTOCOL_VERSION));
            if (!v.is_string()) invalid_params("_meta io.modelcontextprotocol/protocolVersion must be a string");
            if (v.get_ref<const std::string&>() != PROTOCOL_2026_07_28) {
                throw RpcError(
                    UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                    {{"supported", json::array({std::string(PROTOCOL_2026_07_28), std::string(PROTOCOL_2025_11_25)})},
                     {"requested", v}});
            }
            const auto caps = meta->find(std::string(META_CLIENT_CAPABILITIES));
            if (caps == meta->end() || !caps->is_object()) {
                invalid_params("_meta io.modelcontextprotocol/clientCapabilities must be an object");
            }
        } else if (ex.method != "initialize" && ex.method != "ping") {
            bool initialized = false;
            {
                std::lock_guard lock(session.mutex);
                initialized = session.initialized;
            }
            if (!initialized) {
                throw RpcError(INVALID_REQUEST,
                               fmt::format("Invalid Request: {} before initialize; send initialize first, or give "
                                           "_meta {} {} (stateless era)",
                                           ex.method, META_PROTOCOL_VERSION, PROTOCOL_2026_07_28));
            }
        }

        json result;
        bool cacheable = false;
        const std::string& method = ex.method;
        if (method == "initialize" && !modern) {
            result = impl.initialize(params, session);
            ex.initialized = true;
        } else if (method == "server/discover" && modern) {
            result = impl.discover();
            cacheable = true;
        } else if (method == "ping") {
            result = json::object();
        } else if (method == "skills/list" || method == "skills/get") {
            const std::string text =
                method == "skills/list" ? impl.skills_list(params, modern) : impl.skills_get(params, modern);
            ex.response = fmt::format(R"({{"jsonrpc":"2.0","id":{},"result":{}}})", dump(id), text);
            return ex;
        } else if (method == "resources/list") {
            result = impl.resources_list(params);
            cacheable = true;
        } else if (method == "resources/templates/list") {
            result = Impl::templates_list(params);
            cacheable = true;
        } else if (method == "resources/read") {
            ex.response = impl.resources_read(params, modern, id);
            return ex;
        } else if (method == "resources/directory/read") {
            result = impl.directory_read(params);
            cacheable = true;
        } else if (method == "tools/list") {
            result = impl.tools_list(params);
            cacheable = true;
        } else if (method == "tools/call") {
            result = impl.tools_call(params, session);
        } else if (method == "prompts/list") {
            result = impl.prompts_list(params);
            cacheable = true;
        } else if (method == "prompts/get") {
            result = impl.prompts_get(params);
        } else {
            throw RpcError(METHOD_NOT_FOUND, fmt::format("Method not found: {}", method));
        }
        if (modern) {
            result["resultType"] = "complete";
            if (cacheable) {
                result["ttlMs"] = impl.options.ttl_ms;
                result["cacheScope"] = "public";
            }
        }
        ex.response = dump(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
        return ex;
    } catch (const RpcError& e) {
        return fail(id, e.code, e.what(), e.data);
    } catch (const NotFoundError& e) {
        return fail(id, INVALID_PARAMS, e.what());
    } catch (const std::exception& e) {
        return fail(id, INTERNAL_ERROR, fmt::format("Internal error: {}", e.what()));
    }
}

}  // namespace agentskills::mcp
