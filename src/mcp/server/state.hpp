// agentskills-cpp MCP server — the handler's state shared by its method files: the served
// snapshot, sessions, JSON-RPC errors and paging.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "agentskills/activation/activation.hpp"
#include "agentskills/mcp/server.hpp"
#include "index.hpp"

namespace agentskills::mcp {

class Session {
public:
    std::mutex mutex;
    /// The skills this connection activated (the activation tool's store): in memory, or the
    /// session store's for a handshake-era HTTP session (shared by replicas).
    ActivationStorePtr activations = std::make_shared<MemoryActivationStore>();
    bool initialized = false;
    std::string version;
    /// Where server-initiated messages for this connection go (null = none can be sent).
    std::function<void(std::string_view)> notify;
};

namespace detail {

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

/// The versions of the handshake era this server speaks (`initialize` echoes one of them, the
/// HTTP transport accepts them in `MCP-Protocol-Version`); the first is the one it offers.
[[nodiscard]] const std::vector<std::string_view>& handshake_versions();

/// The protocol version that a request's `params` claim: the member
/// `io.modelcontextprotocol/protocolVersion` of `params._meta` when `_meta` is an object, of
/// whatever type; nullptr when there is none. A request with one is of the 2026-07-28 era. The
/// one test of the era, for the handler and for the HTTP transport's header check, both over the
/// same parse of the message.
[[nodiscard]] const nlohmann::json* claimed_protocol_version(const nlohmann::json& params);

/// A JSON-RPC error raised while handling a request.
struct RpcError : std::runtime_error {
    RpcError(int c, const std::string& message, nlohmann::json d = nullptr)
        : std::runtime_error(message), code(c), text(message), data(std::move(d)) {}
    int code;
    std::string text;  ///< the whole message (what() stops at a NUL)
    nlohmann::json data;
};

[[noreturn]] void invalid_params(const std::string& message);
[[nodiscard]] const std::string& string_param(const nlohmann::json& params, const char* key);

/// Offset of the page a `cursor` param names (0 without one); -32602 for a cursor we did not give.
[[nodiscard]] std::size_t decode_cursor(const nlohmann::json& params, std::size_t total);
[[nodiscard]] std::string encode_cursor(std::size_t offset);

/// Appends the head of a response, `{"jsonrpc":"2.0","id":ID,"MEMBER":` (MEMBER is `result` or
/// `error`), for a writer that puts the member's text straight after it and closes the response
/// with one more `}`. `id` is its JSON text as received (detail::id_text). Every response the
/// server writes starts here.
void append_response_head(std::string& out, std::string_view id, std::string_view member = "result");

struct Page {
    std::size_t begin = 0;
    std::size_t end = 0;
};

/// Everything served from one catalog: replaced whole by Server::replace_catalog, so a request
/// sees one catalog from start to end. Entries of skills whose files changed are replaced in
/// place (under `mutex`).
struct Snapshot {
    SkillCatalogPtr catalog;                          // as given
    SkillCatalogPtr served;                           // the served skills only, for the tool and prompts
    std::shared_ptr<const SkillActivator> activator;  // over `served`
    std::vector<LeftOutSkill> left_out;

    mutable std::shared_mutex mutex;
    std::vector<EntryPtr> entries;  // catalog order; null once a changed skill fails
    std::map<std::string, std::size_t> by_name;

    /// What a `skill://` URI names: a served skill and the path below its directory ("" for the
    /// directory itself).
    struct Located {
        EntryPtr entry;
        std::string rel;
    };

    [[nodiscard]] std::vector<EntryPtr> all() const;
    /// The served skill of this catalog name.
    [[nodiscard]] EntryPtr find(std::string_view name) const;
    /// The served skill whose URI (skill_root_uri) begins `uri`, and the rest of `uri`'s decoded
    /// path; nullopt when `uri` is not clean (parse_skill_uri) or names no served skill. No served
    /// skill's URI lies below another's (Impl::build), so at most one matches.
    [[nodiscard]] std::optional<Located> locate(std::string_view uri) const;
};

using SnapshotPtr = std::shared_ptr<Snapshot>;

}  // namespace detail

struct Server::Impl {
    ServerOptions options;
    detail::ByteBudget budget;

    mutable std::mutex snapshot_mutex;  // guards `current` (the pointer, not the snapshot)
    detail::SnapshotPtr current;
    std::mutex replace_mutex;  // one replace_catalog at a time

    mutable std::mutex sessions_mutex;
    mutable std::vector<std::weak_ptr<Session>> sessions;  // those with a notify sink

    void logline(std::string_view line) const;
    [[nodiscard]] detail::SnapshotPtr snapshot() const;

    /// Indexes `catalog` (reusing the digests of `previous` for unchanged files).
    [[nodiscard]] detail::SnapshotPtr build(const SkillCatalogPtr& catalog, const detail::Snapshot* previous) const;
    /// Re-reads a skill whose file changed; returns the new entry or null when it is no longer served.
    detail::EntryPtr refresh(detail::Snapshot& snap, const detail::EntryPtr& old) const;
    /// Sends a notification to every handshake-era session with a sink.
    std::size_t broadcast(std::string_view method) const;

    detail::Page page(const nlohmann::json& params, std::size_t total, nlohmann::json& result) const;
    [[nodiscard]] nlohmann::json capabilities() const;
    [[nodiscard]] static nlohmann::json server_info();
    /// `,"resultType":…,"ttlMs":…,"cacheScope":…` for a cacheable result in the 2026-07-28 era.
    [[nodiscard]] std::string modern_fields(bool modern) const;

    // ---- methods (each in the file of its group) ---------------------------------------------
    // skills_methods.cpp
    // Each returns the whole response (`id`: its JSON text as received).
    [[nodiscard]] std::string skills_list(const detail::Snapshot& snap, const nlohmann::json& params, bool modern,
                                          std::string_view id) const;
    [[nodiscard]] std::string skills_get(const detail::Snapshot& snap, const nlohmann::json& params, bool modern,
                                         std::string_view id) const;
    // resources_methods.cpp
    [[nodiscard]] nlohmann::json resources_list(const detail::Snapshot& snap, const nlohmann::json& params) const;
    [[nodiscard]] static nlohmann::json templates_list(const nlohmann::json& params);
    [[nodiscard]] std::string resources_read(detail::Snapshot& snap, const nlohmann::json& params, bool modern,
                                             std::string_view id) const;  // id: its JSON text
    [[nodiscard]] nlohmann::json directory_read(const detail::Snapshot& snap, const nlohmann::json& params) const;
    // tools_prompts.cpp
    [[nodiscard]] static nlohmann::json tools_list(const detail::Snapshot& snap, const nlohmann::json& params);
    [[nodiscard]] static nlohmann::json tools_call(const detail::Snapshot& snap, const nlohmann::json& params,
                                                   Session& session);
    [[nodiscard]] nlohmann::json prompts_list(const detail::Snapshot& snap, const nlohmann::json& params) const;
    [[nodiscard]] nlohmann::json prompts_get(const detail::Snapshot& snap, const nlohmann::json& params) const;
    // dispatch.cpp
    [[nodiscard]] nlohmann::json initialize(const nlohmann::json& params, Session& session) const;
    [[nodiscard]] nlohmann::json discover() const;
};

namespace detail {

/// How the library's transports reach the server's handler.
struct ServerAccess {
    /// Server::handle, for a transport that may have parsed the message already: `parsed`, when
    /// not null, is `message` as detail::read_message read it with the server's max_json_depth;
    /// it is used (moved from) instead of reading the message again.
    [[nodiscard]] static Exchange handle(const Server& server, std::string_view message, nlohmann::json* parsed,
                                         Session& session);
};

}  // namespace detail

}  // namespace agentskills::mcp
