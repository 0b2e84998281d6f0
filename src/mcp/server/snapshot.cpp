// agentskills-cpp MCP server — building the served snapshot of a catalog, replacing it, and the
// sessions that hear about it.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "../shared/internal.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/version.hpp"
#include "index.hpp"
#include "state.hpp"

namespace agentskills::mcp {

using nlohmann::json;

namespace detail {

void invalid_params(const std::string& message) { throw RpcError(INVALID_PARAMS, message); }

const std::string& string_param(const json& params, const char* key) {
    const auto it = params.find(key);
    if (it == params.end() || !it->is_string()) invalid_params(fmt::format("params.{} must be a string", key));
    return it->get_ref<const std::string&>();
}

std::string encode_cursor(std::size_t offset) { return base64_encode(fmt::format("agentskills:{}", offset)); }

std::size_t decode_cursor(const json& params, std::size_t total) {
    const auto it = params.find("cursor");
    if (it == params.end() || it->is_null()) return 0;
    if (!it->is_string()) invalid_params("cursor must be a string");
    const auto text = base64_decode(it->get_ref<const std::string&>());
    constexpr std::string_view prefix = "agentskills:";
    if (text && text->rfind(prefix, 0) == 0 && text->size() > prefix.size() && text->size() < prefix.size() + 12 &&
        std::all_of(text->begin() + static_cast<std::ptrdiff_t>(prefix.size()), text->end(),
                    [](char c) { return c >= '0' && c <= '9'; })) {
        const std::size_t offset = std::stoull(text->substr(prefix.size()));
        if (offset <= total) return offset;
    }
    invalid_params("invalid cursor");
}

std::vector<EntryPtr> Snapshot::all() const {
    std::shared_lock lock(mutex);
    std::vector<EntryPtr> out;
    out.reserve(entries.size());
    for (const auto& e : entries) {
        if (e) out.push_back(e);
    }
    return out;
}

EntryPtr Snapshot::find(std::string_view name) const {
    std::shared_lock lock(mutex);
    auto it = by_name.find(std::string(name));
    return it == by_name.end() ? nullptr : entries[it->second];
}

std::optional<Snapshot::Located> Snapshot::locate(std::string_view uri) const {
    std::string why;
    const std::optional<SkillUri> parsed = parse_skill_uri(uri, why);
    if (!parsed) return std::nullopt;
    const std::vector<std::string>& segments = parsed->segments;
    std::shared_lock lock(mutex);
    std::string name;  // the catalog name of the first k segments
    for (std::size_t k = 0; k < segments.size(); ++k) {
        // Every part of a served skill's catalog name passes this (build_entry).
        if (!is_uri_name_part(segments[k])) break;
        if (k > 0) name += ':';
        name += segments[k];
        const auto it = by_name.find(name);
        if (it == by_name.end()) continue;
        if (!entries[it->second]) return std::nullopt;
        Located out{entries[it->second], {}};
        for (std::size_t i = k + 1; i < segments.size(); ++i) {
            if (i > k + 1) out.rel += '/';
            out.rel += segments[i];
        }
        return out;
    }
    return std::nullopt;
}

}  // namespace detail

using detail::EntryPtr;
using detail::Snapshot;
using detail::SnapshotPtr;

void Server::Impl::logline(std::string_view line) const {
    if (options.log) {
        options.log(line);
    } else {
        fmt::print(stderr, "{}\n", line);
    }
}

SnapshotPtr Server::Impl::snapshot() const {
    std::lock_guard lock(snapshot_mutex);
    return current;
}

SnapshotPtr Server::Impl::build(const SkillCatalogPtr& catalog, const Snapshot* previous) const {
    auto snap = std::make_shared<Snapshot>();
    snap->catalog = catalog;
    // Files of the previous snapshot, by source and path. A source is kept for as long as the
    // loader gives the same reader, so digests are reused only for paths of the same reader.
    std::vector<EntryPtr> kept;
    if (previous != nullptr) kept = previous->all();
    std::map<const SkillReader*, std::shared_ptr<const detail::FileSource>> sources;
    std::map<const detail::FileSource*, detail::KnownFiles> known;
    for (const auto& e : kept) {
        sources.emplace(e->source->reader().get(), e->source);
        for (const auto& f : e->files) known[e->source.get()].emplace(f.path, &f);
    }
    const auto leave_out = [&](const SkillManifest& m, const std::string& why) {
        snap->left_out.push_back({m.name, m.skill_file, why});
        logline(fmt::format("agentskills mcp: left out {} ({}): {} [{}]", m.name, m.skill_file, why,
                            codes::mcp_skill_left_out));
    };
    std::vector<std::pair<const SkillManifest*, EntryPtr>> built;
    std::set<std::string_view> names;
    for (const auto& m : *catalog) {
        try {
            SkillReaderPtr reader = catalog->loader() ? catalog->loader()->reader_for(m.name) : nullptr;
            auto& source = sources[reader.get()];
            if (!source) source = std::make_shared<const detail::FileSource>(reader);
            const auto k = known.find(source.get());
            built.emplace_back(&m, detail::build_entry(m, source, options.max_json_depth, budget,
                                                       k == known.end() ? nullptr : &k->second));
            names.insert(m.name);
        } catch (const std::exception& e) {
            leave_out(m, e.what());
        }
    }
    // A skill's URI is its catalog name's parts as segments, so `p:s` would lie inside the
    // directory of a served skill `p` (skill://p/s/SKILL.md, one of p's files by its URI): the
    // nested one is left out, and every URI names one skill.
    std::vector<SkillManifest> served;
    for (auto& [m, e] : built) {
        std::string_view outer;
        for (std::size_t colon = m->name.find(':'); colon != std::string::npos && outer.empty();
             colon = m->name.find(':', colon + 1)) {
            if (names.count(std::string_view(m->name).substr(0, colon)) != 0)
                outer = std::string_view(m->name).substr(0, colon);
        }
        if (!outer.empty()) {
            leave_out(*m, fmt::format("its URI {} lies inside the directory of the served skill \"{}\" ({})", e->uri,
                                      outer, detail::skill_root_uri(outer)));
            continue;
        }
        snap->by_name[m->name] = snap->entries.size();
        snap->entries.push_back(std::move(e));
        served.push_back(*m);
    }
    Discovery d;
    d.skills = std::move(served);
    snap->served = std::make_shared<const SkillCatalog>(catalog->loader(), std::move(d));
    SkillActivatorOptions activator;  // (named, not a designated temporary: GCC 12 -O3 warns of its std::function)
    activator.tool_name = options.tool_name;
    activator.include_directory = options.include_directory;
    // The server shows no system-prompt block (a client builds its own from skills/list), so none
    // is rendered: an empty one is given instead of the block of every served skill.
    activator.prompt_block = std::string();
    snap->activator = std::make_shared<const SkillActivator>(snap->served, std::move(activator));
    return snap;
}

EntryPtr Server::Impl::refresh(Snapshot& snap, const EntryPtr& old) const {
    EntryPtr fresh;
    try {
        fresh = detail::build_entry(old->manifest, old->source, options.max_json_depth, budget);
    } catch (const std::exception& e) {
        logline(fmt::format("agentskills mcp: {} changed and is no longer served: {} [{}]", old->name, e.what(),
                            codes::mcp_skill_left_out));
    }
    std::unique_lock lock(snap.mutex);
    auto it = snap.by_name.find(old->name);
    if (it != snap.by_name.end() && snap.entries[it->second] == old) snap.entries[it->second] = fresh;
    return it == snap.by_name.end() ? nullptr : snap.entries[it->second];
}

std::size_t Server::Impl::broadcast(std::string_view method) const {
    const std::string message = fmt::format(R"({{"jsonrpc":"2.0","method":"{}"}})", method);
    std::vector<std::shared_ptr<Session>> live;
    {
        std::lock_guard lock(sessions_mutex);
        auto& list = sessions;
        list.erase(std::remove_if(list.begin(), list.end(), [](const auto& w) { return w.expired(); }), list.end());
        for (const auto& w : list) {
            if (auto s = w.lock()) live.push_back(std::move(s));
        }
    }
    std::size_t sent = 0;
    for (const auto& s : live) {
        std::function<void(std::string_view)> sink;
        {
            std::lock_guard lock(s->mutex);
            // Only a handshake-era connection that finished `initialize` may be sent notifications.
            if (!s->initialized || s->version.empty() || !s->notify) continue;
            sink = s->notify;
        }
        try {
            sink(message);
            ++sent;
        } catch (const std::exception& e) {
            logline(fmt::format("agentskills mcp: cannot send {}: {}", method, e.what()));
        }
    }
    return sent;
}

detail::Page Server::Impl::page(const json& params, std::size_t total, json& result) const {
    detail::Page p;
    p.begin = detail::decode_cursor(params, total);
    p.end = std::min(total, p.begin + std::max<std::size_t>(1, options.page_size));
    if (p.end < total) result["nextCursor"] = detail::encode_cursor(p.end);
    return p;
}

json Server::Impl::capabilities() const {
    return {{"resources", {{"listChanged", true}}},
            {"prompts", {{"listChanged", true}}},
            {"tools", json::object()},
            {"extensions", {{std::string(SKILLS_EXTENSION_ID), {{"directoryRead", true}}}}}};
}

json Server::Impl::server_info() { return {{"name", "agentskills"}, {"version", version_string}}; }

std::string Server::Impl::modern_fields(bool modern) const {
    return modern ? fmt::format(R"(,"resultType":"complete","ttlMs":{},"cacheScope":"public")", options.ttl_ms)
                  : std::string();
}

// ---- Server --------------------------------------------------------------------------------

Server::Server(SkillCatalogPtr catalog, ServerOptions options) : impl_(std::make_unique<Impl>()) {
    if (!catalog) throw ConfigurationError("mcp::Server: no catalog");
    impl_->options = std::move(options);
    impl_->budget.limit = impl_->options.max_cached_bytes;
    impl_->current = impl_->build(catalog, nullptr);
}

Server::~Server() = default;

namespace {

/// What a client sees of a snapshot: the skill entries, and the prompts.
struct Signature {
    std::vector<std::string> skills;
    std::vector<std::pair<std::string, std::string>> prompts;
    bool operator==(const Signature&) const = default;
};

Signature signature_of(const Snapshot& snap) {
    Signature s;
    for (const auto& e : snap.all()) {
        s.skills.push_back(e->json_text);
        if (e->manifest.user_invocable) s.prompts.emplace_back(e->name, detail::dump(e->frontmatter.at("description")));
    }
    return s;
}

}  // namespace

CatalogUpdate Server::replace_catalog(SkillCatalogPtr catalog) {
    if (!catalog) throw ConfigurationError("mcp::Server::replace_catalog: no catalog");
    std::lock_guard one_at_a_time(impl_->replace_mutex);
    const SnapshotPtr before = impl_->snapshot();
    SnapshotPtr after = impl_->build(catalog, before.get());
    const Signature old_sig = signature_of(*before);
    const Signature new_sig = signature_of(*after);
    {
        std::lock_guard lock(impl_->snapshot_mutex);
        impl_->current = std::move(after);
    }
    CatalogUpdate update;
    update.resources_changed = old_sig.skills != new_sig.skills;
    update.prompts_changed = old_sig.prompts != new_sig.prompts;
    if (update.resources_changed) update.sessions_notified = impl_->broadcast("notifications/resources/list_changed");
    if (update.prompts_changed) {
        update.sessions_notified =
            std::max(update.sessions_notified, impl_->broadcast("notifications/prompts/list_changed"));
    }
    return update;
}

std::shared_ptr<Session> Server::open_session(std::function<void(std::string_view)> notify) const {
    auto session = std::make_shared<Session>();
    if (notify) {
        session->notify = std::move(notify);
        std::lock_guard lock(impl_->sessions_mutex);
        auto& list = impl_->sessions;
        list.erase(std::remove_if(list.begin(), list.end(), [](const auto& w) { return w.expired(); }), list.end());
        list.push_back(session);
    }
    return session;
}

std::vector<std::string> Server::served_skill_names() const {
    std::vector<std::string> out;
    for (const auto& e : impl_->snapshot()->all()) out.push_back(e->name);
    return out;
}

std::vector<LeftOutSkill> Server::left_out() const { return impl_->snapshot()->left_out; }
const ServerOptions& Server::options() const noexcept { return impl_->options; }
void Server::log(std::string_view line) const { impl_->logline(line); }

}  // namespace agentskills::mcp
