// agentskills-cpp MCP client — McpSkillLoader and its reader: skills/list paged and checked,
// SKILL.md read and verified, names told apart, files read lazily and verified on every read.
#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "../shared/internal.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/mcp/client.hpp"
#include "agentskills/parse/parser.hpp"
#include "client_internal.hpp"

namespace agentskills::mcp {

using client_detail::CheckedEntry;
using client_detail::EntryProblem;
using client_detail::ListedFile;
using nlohmann::json;

namespace {

/// One server: how to reach it and the session, made on first use and again after a failure.
struct ServerState {
    ServerSource source;
    std::unique_ptr<ClientTransport> given;  // the transport of the one-server constructor, until used
    bool used_given = false;
    std::shared_ptr<Client> client;
    std::mutex mutex;

    std::shared_ptr<Client> session(const McpLoaderOptions& options) {
        std::lock_guard lock(mutex);
        if (client) return client;
        if (given) {
            client = std::make_shared<Client>(std::move(given), options.era);
            used_given = true;
        } else if (used_given) {
            throw ClientError("the connection to the MCP server was lost");
        } else if (!source.command.empty()) {
            client = std::make_shared<Client>(
                make_stdio_transport(source.command, options.transport, {source.label, options.server_stderr}),
                options.era);
        } else {
            client = std::make_shared<Client>(make_http_transport(source.url, options.transport), options.era);
        }
        return client;
    }

    void drop(const std::shared_ptr<Client>& failed) {
        std::lock_guard lock(mutex);
        if (client == failed) client.reset();
    }
};

/// A verified skill of the last discovery.
struct Record {
    std::shared_ptr<ServerState> server;
    CheckedEntry entry;
    SkillManifest manifest;
    std::vector<SkillResource> resources;
};

/// What the reader looks up: every listed file and directory, by the path the loader gives out
/// (`skill://` + decoded segments).
struct Index {
    std::map<std::string, std::shared_ptr<const Record>, std::less<>> by_name;
    std::map<std::string, std::pair<std::shared_ptr<const Record>, const ListedFile*>, std::less<>> files;
    std::map<std::string, std::set<std::string>, std::less<>> dirs;  // path -> child names
};

int resource_rank(std::string_view path) {
    if (path.rfind("scripts/", 0) == 0) return 0;
    if (path.rfind("references/", 0) == 0) return 1;
    if (path.rfind("assets/", 0) == 0) return 2;
    return 3;
}

bool hidden(std::string_view path) {
    if (!path.empty() && path.front() == '.') return true;
    return path.find("/.") != std::string_view::npos;
}

std::string origin(const ServerState& s) { return "mcp:" + s.source.label; }

std::string joined(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty()) out += '/';
        out += p;
    }
    return out;
}

}  // namespace

struct McpSkillLoader::Impl {
    McpLoaderOptions options;
    std::vector<std::shared_ptr<ServerState>> servers;
    mutable std::shared_mutex mutex;
    std::shared_ptr<const Index> index = std::make_shared<Index>();

    std::shared_ptr<const Index> current() const {
        std::shared_lock lock(mutex);
        return index;
    }

    /// resources/read of one listed file, verified. Throws ClientError / ServerError from the
    /// server, IoError for bytes that do not match the listing.
    std::string fetch(const Record& r, const ListedFile& f) const {
        std::shared_ptr<Client> client = r.server->session(options);
        json result;
        try {
            result = client->call("resources/read", {{"uri", f.uri}});
        } catch (const ServerError&) {
            throw;
        } catch (const ClientError&) {
            r.server->drop(client);
            throw;
        }
        std::string bytes;
        try {
            bytes = client_detail::read_result_bytes(result, f.uri);
        } catch (const ClientError& err) {
            throw IoError(fmt::format("MCP server '{}': {}: the check 'content' failed: {}", r.server->source.label,
                                      f.uri, err.what()));
        }
        EntryProblem problem;
        if (!client_detail::verify_file(f, bytes, problem)) {
            throw IoError(fmt::format("MCP server '{}': {}: the check '{}' failed: {}", r.server->source.label, f.uri,
                                      problem.check, problem.message));
        }
        return bytes;
    }

    void refuse(Discovery& d, const ServerState& s, const std::string& uri, SkipReason reason, std::string_view check,
                const std::string& message) const {
        const std::string path = valid_utf8(uri);
        const std::string text = valid_utf8(fmt::format("MCP server '{}': skill {} refused: the check '{}' failed: {}",
                                                        s.source.label, uri, check, message));
        d.skipped.push_back({path, reason, text});
        d.diagnostics.push_back({std::string(codes::mcp_verification_failed), Severity::error, path, 0, text});
    }

    void server_error(Discovery& d, const ServerState& s, const std::string& path, const std::string& what) const {
        const std::string text = valid_utf8(fmt::format("MCP server '{}': {}", s.source.label, what));
        d.skipped.push_back({path, SkipReason::unreadable, text});
        d.diagnostics.push_back({std::string(codes::mcp_server_error), Severity::error, path, 0, text});
    }

    /// Verifies one checked entry's SKILL.md and parses it. Returns nullptr when it is refused.
    std::shared_ptr<Record> verify(Discovery& d, const std::shared_ptr<ServerState>& s, CheckedEntry entry) const {
        const ListedFile& skill_md = entry.files.front();
        if (options.max_bytes != 0 && skill_md.size > options.max_bytes) {
            const std::string text =
                fmt::format("MCP server '{}': skill {} refused: SKILL.md is {} bytes, over the limit of {}",
                            s->source.label, entry.uri, skill_md.size, options.max_bytes);
            d.skipped.push_back({entry.uri, SkipReason::too_large, text});
            d.diagnostics.push_back({std::string(codes::too_large), Severity::error, entry.uri, 0, text});
            return nullptr;
        }
        auto record = std::make_shared<Record>();
        record->server = s;
        record->entry = std::move(entry);
        const CheckedEntry& e = record->entry;
        std::string text;
        std::shared_ptr<Client> client = s->session(options);
        json result;
        try {
            result = client->call("resources/read", {{"uri", e.files.front().uri}});
        } catch (const ServerError& err) {
            server_error(d, *s, e.uri, err.what());
            return nullptr;
        }
        try {
            text = client_detail::read_result_bytes(result, e.files.front().uri);
        } catch (const ClientError& err) {
            refuse(d, *s, e.uri, SkipReason::invalid, "content", err.what());
            return nullptr;
        }
        EntryProblem problem;
        if (!client_detail::verify_file(e.files.front(), text, problem)) {
            refuse(d, *s, e.uri, SkipReason::invalid, problem.check, problem.message);
            return nullptr;
        }
        json parsed;
        try {
            parsed = agentskills::mcp::detail::frontmatter_json(text);
        } catch (const std::exception& err) {
            refuse(d, *s, e.uri, SkipReason::invalid, "frontmatter",
                   fmt::format("SKILL.md's frontmatter does not convert: {}", err.what()));
            return nullptr;
        }
        if (parsed != e.frontmatter) {
            refuse(d, *s, e.uri, SkipReason::invalid, "frontmatter", "SKILL.md's frontmatter differs from the entry's");
            return nullptr;
        }
        const std::string skill_file = e.base() + "/SKILL.md";
        ParseOptions po;
        po.name_policy = options.name_policy;
        po.max_lines = options.max_lines;
        po.max_bytes = options.max_bytes;
        po.path = skill_file;
        po.directory_name = e.name;
        ParseResult pr = parse_skill_md(text, po);
        for (auto& diag : pr.diagnostics) d.diagnostics.push_back(std::move(diag));
        if (!pr.ok()) {
            const std::string why =
                fmt::format("MCP server '{}': skill {} is not a valid skill", s->source.label, e.uri);
            d.skipped.push_back({e.uri, pr.skip_reason().value_or(SkipReason::invalid), why});
            return nullptr;
        }
        SkillManifest m = std::move(*pr.manifest());
        if (m.name != e.name) {
            refuse(d, *s, e.uri, SkipReason::invalid, "name", "the parsed name differs from the URI's last segment");
            return nullptr;
        }
        const std::string base = e.base();
        const std::string library = origin(*s);
        set_location(m, {skill_file, base, library});
        if (!options.trust_allowed_tools) {
            m.allowed_tools.clear();
            m.tools.reset();
        }
        record->manifest = std::move(m);
        for (std::size_t i = 1; i < e.files.size(); ++i) {
            if (!hidden(e.files[i].relative)) record->resources.push_back({e.files[i].relative});
        }
        std::stable_sort(record->resources.begin(), record->resources.end(), [](const auto& a, const auto& b) {
            const int ra = resource_rank(a.path);
            const int rb = resource_rank(b.path);
            return ra != rb ? ra < rb : a.path < b.path;
        });
        return record;
    }

    void discover_server(Discovery& d, const std::shared_ptr<ServerState>& s,
                         std::vector<std::shared_ptr<Record>>& out) const {
        const std::string where = origin(*s);
        std::shared_ptr<Client> client;
        try {
            client = s->session(options);
        } catch (const ClientError& err) {
            server_error(d, *s, where, err.what());
            return;
        }
        std::set<std::string, std::less<>> uris;
        // Every cursor of this listing, as its digest (at most max_pages of 71 bytes, whatever the
        // cursors' length): a cursor given twice is a cycle (A, B, A, ...), which ends the listing.
        std::set<std::string, std::less<>> cursors;
        std::optional<std::string> cursor;
        std::size_t entries = 0;
        try {
            for (std::size_t page = 0;; ++page) {
                if (page == options.max_pages) {
                    server_error(
                        d, *s, where,
                        fmt::format("skills/list has more than {} pages; the rest is not read", options.max_pages));
                    break;
                }
                json params = json::object();
                if (cursor) params["cursor"] = *cursor;
                json result = client->call("skills/list", std::move(params));
                if (!result.is_object() || !result.contains("skills") || !result["skills"].is_array()) {
                    throw ClientError("the skills/list result has no skills array");
                }
                bool full = false;
                for (const auto& raw : result["skills"]) {
                    if (++entries > options.max_entries) {
                        server_error(d, *s, where,
                                     fmt::format("skills/list lists more than {} skills; the rest is not read",
                                                 options.max_entries));
                        full = true;
                        break;
                    }
                    EntryProblem problem;
                    std::string uri = "(no uri)";
                    std::optional<CheckedEntry> entry = client_detail::check_entry(
                        raw, {options.max_skill_files, options.max_skill_bytes}, problem, uri);
                    if (!entry) {
                        const bool size = problem.check == "file-count" || problem.check == "total-size";
                        refuse(d, *s, uri, size ? SkipReason::too_large : SkipReason::invalid, problem.check,
                               problem.message);
                        continue;
                    }
                    if (!uris.insert(entry->base()).second) {
                        refuse(d, *s, entry->uri, SkipReason::duplicate_name, "duplicate-uri",
                               "the skill is listed more than once");
                        continue;
                    }
                    if (auto record = verify(d, s, std::move(*entry))) out.push_back(std::move(record));
                }
                if (full) break;
                const auto next = result.find("nextCursor");
                if (next == result.end() || next->is_null()) break;
                if (!next->is_string() || next->get_ref<const std::string&>().empty()) {
                    throw ClientError("the skills/list nextCursor is not a non-empty string");
                }
                if (!cursors.insert(detail::sha256_digest(next->get_ref<const std::string&>())).second) {
                    server_error(d, *s, where,
                                 fmt::format("skills/list gave a nextCursor it had given before (after page {}), "
                                             "a cycle; the rest is not read",
                                             page + 1));
                    break;
                }
                cursor = next->get<std::string>();
            }
        } catch (const ServerError& err) {
            server_error(d, *s, where, err.what());
        } catch (const ClientError& err) {
            s->drop(client);
            server_error(d, *s, where, err.what());
        }
    }

    /// Names used more than once become `<prefix>:<name>` (the URI's path prefix, else the label),
    /// then `<label>:<prefix/>name` if that still collides.
    static void qualify(Discovery& d, std::vector<std::shared_ptr<Record>>& records) {
        std::map<std::string, std::size_t, std::less<>> count;
        for (const auto& r : records) ++count[nfkc(r->manifest.name)];
        std::map<std::string, std::size_t, std::less<>> qualified;
        auto first_choice = [](const Record& r) {
            return (r.entry.prefix.empty() ? r.server->source.label : joined(r.entry.prefix)) + ":" + r.entry.name;
        };
        for (const auto& r : records) {
            if (count[nfkc(r->manifest.name)] > 1) ++qualified[first_choice(*r)];
        }
        for (auto& r : records) {
            if (count[nfkc(r->manifest.name)] < 2) continue;
            std::string name = first_choice(*r);
            if (qualified[name] > 1) {
                name = r->server->source.label + ":" +
                       (r->entry.prefix.empty() ? std::string() : joined(r->entry.prefix) + "/") + r->entry.name;
            }
            const std::string text =
                fmt::format("MCP server '{}': the name '{}' is used by more than one skill; {} is listed as '{}'",
                            r->server->source.label, r->manifest.name, r->entry.uri, name);
            d.diagnostics.push_back({std::string(codes::mcp_name_qualified), Severity::warning, r->entry.uri, 0, text});
            r->manifest.name = std::move(name);
        }
    }
};

McpSkillLoader::McpSkillLoader(std::vector<ServerSource> servers, McpLoaderOptions options)
    : impl_(std::make_shared<Impl>()) {
    impl_->options = std::move(options);
    std::set<std::string, std::less<>> labels;
    for (auto& s : servers) {
        if (s.label.empty()) throw ConfigurationError("McpSkillLoader: a server without a label");
        if (s.command.empty() == s.url.empty()) {
            throw ConfigurationError(
                fmt::format("McpSkillLoader: server '{}' needs a command or a URL (one of them)", s.label));
        }
        if (!labels.insert(s.label).second) {
            throw ConfigurationError(fmt::format("McpSkillLoader: two servers are labelled '{}'", s.label));
        }
        auto state = std::make_shared<ServerState>();
        state->source = std::move(s);
        impl_->servers.push_back(std::move(state));
    }
}

McpSkillLoader::McpSkillLoader(std::string label, std::unique_ptr<ClientTransport> transport, McpLoaderOptions options)
    : impl_(std::make_shared<Impl>()) {
    if (label.empty()) throw ConfigurationError("McpSkillLoader: a server without a label");
    if (!transport) throw ConfigurationError("McpSkillLoader: no transport");
    impl_->options = std::move(options);
    auto state = std::make_shared<ServerState>();
    state->source.label = std::move(label);
    state->given = std::move(transport);
    impl_->servers.push_back(std::move(state));
}

McpSkillLoader::~McpSkillLoader() = default;

Discovery McpSkillLoader::discover() {
    Discovery d;
    std::vector<std::shared_ptr<Record>> records;
    for (const auto& s : impl_->servers) impl_->discover_server(d, s, records);
    Impl::qualify(d, records);
    auto index = std::make_shared<Index>();
    for (const auto& r : records) {
        std::shared_ptr<const Record> cr = r;
        index->by_name.emplace(r->manifest.name, cr);
        const std::string base = r->entry.base();
        index->dirs[base];
        for (const auto& f : r->entry.files) {
            std::string path = base;
            std::string dir = base;
            std::size_t start = 0;
            while (true) {
                const std::size_t slash = f.relative.find('/', start);
                const std::string part =
                    f.relative.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
                index->dirs[dir].insert(part);
                path = dir + "/" + part;
                if (slash == std::string::npos) break;
                dir = path;
                index->dirs[dir];
                start = slash + 1;
            }
            index->files.emplace(path, std::make_pair(cr, &f));
        }
        d.skills.push_back(r->manifest);
    }
    std::unique_lock lock(impl_->mutex);
    impl_->index = std::move(index);
    return d;
}

LoadedSkill McpSkillLoader::load(std::string_view name) {
    const std::shared_ptr<const Index> index = impl_->current();
    std::shared_ptr<const Record> record;
    if (auto it = index->by_name.find(name); it != index->by_name.end()) {
        record = it->second;
    } else {
        for (const auto& [n, r] : index->by_name) {
            if (names_equal(n, name)) record = r;
        }
    }
    if (!record) throw NotFoundError(fmt::format("no MCP skill named '{}'", name));
    const std::string text = impl_->fetch(*record, record->entry.files.front());
    ParseOptions po;
    po.name_policy = NamePolicy::keep;
    po.max_lines = impl_->options.max_lines;
    po.max_bytes = impl_->options.max_bytes;
    po.path = record->manifest.skill_file;
    ParseResult pr = parse_skill_md(text, po);
    if (!pr.ok()) throw IoError(fmt::format("{}: SKILL.md no longer parses", record->entry.uri));
    return LoadedSkill{record->manifest, std::move(pr.instructions), record->resources, 0};
}

bool McpSkillLoader::in_run_workspace(std::string_view /*name*/) const { return true; }

namespace {

class McpSkillReader final : public SkillReader {
public:
    using Fetch = std::function<std::string(const Record&, const ListedFile&)>;
    McpSkillReader(std::shared_ptr<const Index> index, Fetch fetch)
        : index_(std::move(index)), fetch_(std::move(fetch)) {}

    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        const auto it = index_->files.find(path);
        if (it == index_->files.end()) {
            if (index_->dirs.count(path) != 0) throw IoError(fmt::format("'{}' is a directory", path));
            throw NotFoundError(fmt::format("'{}' is not a listed file of an MCP skill", path));
        }
        ReadResult out;
        out.data = fetch_(*it->second.first, *it->second.second);
        if (max_bytes != 0 && out.data.size() > max_bytes) {
            out.data.resize(max_bytes);
            out.truncated = true;
        }
        return out;
    }

    std::vector<DirEntry> list_dir(std::string_view path) const override {
        const auto it = index_->dirs.find(path);
        if (it == index_->dirs.end()) {
            if (index_->files.count(path) != 0) throw IoError(fmt::format("'{}' is not a directory", path));
            throw NotFoundError(fmt::format("'{}' is not a directory of an MCP skill", path));
        }
        std::vector<DirEntry> out;
        for (const auto& child : it->second) {
            const std::string full = std::string(path) + "/" + child;
            DirEntry e;
            e.name = child;
            if (const auto f = index_->files.find(full); f != index_->files.end()) {
                e.kind = EntryKind::file;
                e.size = f->second.second->size;
            } else {
                e.kind = EntryKind::directory;
            }
            out.push_back(std::move(e));
        }
        return out;
    }

    FileStat stat(std::string_view path) const override {
        FileStat st;
        if (const auto f = index_->files.find(path); f != index_->files.end()) {
            st.kind = EntryKind::file;
            st.size = f->second.second->size;
            st.identity = std::hash<std::string>{}(f->second.second->digest);
            return st;
        }
        if (index_->dirs.count(path) != 0) {
            st.kind = EntryKind::directory;
            return st;
        }
        throw NotFoundError(fmt::format("'{}' is not listed by an MCP server", path));
    }

private:
    std::shared_ptr<const Index> index_;
    Fetch fetch_;
};

}  // namespace

SkillReaderPtr McpSkillLoader::reader_for(std::string_view name) const {
    std::shared_ptr<const Index> index = impl_->current();
    if (index->by_name.find(name) == index->by_name.end()) return nullptr;
    std::weak_ptr<const Impl> weak = impl_;
    return std::make_shared<McpSkillReader>(std::move(index), [weak](const Record& r, const ListedFile& f) {
        const std::shared_ptr<const Impl> impl = weak.lock();
        if (!impl) throw IoError("the MCP skill loader is gone");
        return impl->fetch(r, f);
    });
}

}  // namespace agentskills::mcp
