// agentskills-cpp — serving a skill catalog over MCP with the skills extension
// (`io.modelcontextprotocol/skills`, SEP-2640): the transport-agnostic JSON-RPC handler and the
// stdio and Streamable HTTP transports. Built as the separate `agentskills::mcp` library
// (CMake option AGENTSKILLS_MCP); see docs/mcp.md.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../activation/session_store.hpp"
#include "../catalog/catalog.hpp"

namespace agentskills::mcp {

inline constexpr std::string_view SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";
/// The handshake era (`initialize`, sessions).
inline constexpr std::string_view PROTOCOL_2025_11_25 = "2025-11-25";
/// The stateless era (`server/discover`, `_meta` on every request).
inline constexpr std::string_view PROTOCOL_2026_07_28 = "2026-07-28";

/// Largest JSON-RPC message accepted (bytes); a larger one gets -32600 (HTTP: 413).
inline constexpr std::size_t DEFAULT_MAX_MESSAGE_BYTES = 4u * 1024u * 1024u;
/// Deepest nesting of arrays and objects accepted in a message.
inline constexpr std::size_t DEFAULT_MAX_JSON_DEPTH = 64;
/// Per-skill limits of the extension: a skill over either is left out.
inline constexpr std::size_t SKILL_MAX_RESOURCES = 512;
inline constexpr std::uint64_t SKILL_MAX_TOTAL_BYTES = 16u * 1024u * 1024u;
/// Entries per page of skills/list, resources/list, prompts/list, resources/directory/read.
inline constexpr std::size_t DEFAULT_PAGE_SIZE = 100;
/// `ttlMs` of cacheable results in the 2026-07-28 era.
inline constexpr std::int64_t DEFAULT_TTL_MS = 60000;
/// Handshake-era HTTP sessions open at once (all clients); past it `initialize` gets 429. The
/// session defaults are SessionLimits' (one set of defaults for every store).
inline constexpr std::size_t DEFAULT_MAX_SESSIONS = SessionLimits{}.max_sessions;
/// Handshake-era HTTP sessions one client address may hold at once; past it `initialize` gets 429.
inline constexpr std::size_t DEFAULT_MAX_SESSIONS_PER_CLIENT = SessionLimits{}.max_per_client;
/// A handshake-era HTTP session unused this long ends (its id then gets 404).
inline constexpr std::chrono::milliseconds DEFAULT_SESSION_IDLE_TIMEOUT = SessionLimits{}.idle_timeout;
/// File bytes the server keeps in memory (all skills together) so that resources/read of an
/// unchanged file costs one stat; files past the budget are read and hashed again on each read.
inline constexpr std::uint64_t DEFAULT_MAX_CACHED_BYTES = 64u * 1024u * 1024u;
/// Bytes of HTTP answers built but not yet written to their clients, all connections together;
/// past it a new request gets 503 (HttpOptions::max_unsent_bytes).
inline constexpr std::size_t DEFAULT_MAX_UNSENT_BYTES = 64u * 1024u * 1024u;
/// Bytes of HTTP answers built but not yet written that one client address may hold, a quarter
/// of DEFAULT_MAX_UNSENT_BYTES: one client that does not read cannot take the whole cap
/// (HttpOptions::max_unsent_bytes_per_client).
inline constexpr std::size_t DEFAULT_MAX_UNSENT_BYTES_PER_CLIENT = DEFAULT_MAX_UNSENT_BYTES / 4;
/// Most io threads an HTTP server runs (HttpOptions::threads), and so at most 512 handler threads.
inline constexpr std::size_t MAX_HTTP_THREADS = 256;

struct ServerOptions {
    /// Name of the activation tool (as SkillsShimOptions::tool_name).
    std::string tool_name = "activate_skill";
    std::size_t page_size = DEFAULT_PAGE_SIZE;
    std::size_t max_message_bytes = DEFAULT_MAX_MESSAGE_BYTES;
    std::size_t max_json_depth = DEFAULT_MAX_JSON_DEPTH;
    std::int64_t ttl_ms = DEFAULT_TTL_MS;
    /// Whether activation texts and prompts name the skill directory on the server's disk
    /// (true for a local stdio server, whose client shares the file system).
    bool include_directory = true;
    /// Byte budget of the file cache (0 = no cache); see DEFAULT_MAX_CACHED_BYTES.
    std::uint64_t max_cached_bytes = DEFAULT_MAX_CACHED_BYTES;
    /// Where log lines go (one line each, no newline); nullptr = standard error.
    std::function<void(std::string_view)> log = nullptr;
};

/// A skill of the catalog that is not served, and why.
struct LeftOutSkill {
    std::string name;
    std::string path;    ///< its SKILL.md
    std::string reason;  ///< one sentence
};

/// State of one connection (stdio) or HTTP session: the negotiated era and the activated
/// skills. Create with Server::open_session(); thread-safe.
class Session;

/// What one message did, for a transport that must pick a status code.
struct Exchange {
    /// The response text; empty for a notification or a response from the client.
    std::optional<std::string> response;
    std::string method;        ///< the request's method ("" when it had none)
    bool modern = false;       ///< handled under 2026-07-28 (`_meta` protocolVersion)
    int error_code = 0;        ///< the JSON-RPC error code of the response, 0 for a result
    bool initialized = false;  ///< an `initialize` request that succeeded
};

/// What Server::replace_catalog changed and told.
struct CatalogUpdate {
    bool resources_changed = false;  ///< a skill entry (files, digests, frontmatter) differs, or the set of skills
    bool prompts_changed = false;    ///< the prompt list (names, descriptions) differs
    std::size_t sessions_notified = 0;
};

namespace detail {
struct ServerAccess;  // the library's own transports (internal)
}  // namespace detail

class Server {
public:
    /// Indexes every skill of `catalog` that fits the extension: lists, reads and hashes its
    /// files through the catalog loader's `reader_for(name)` (the local file system when that is
    /// null). The others are reported through the log and left_out(). Throws ConfigurationError
    /// for a bad tool name.
    explicit Server(SkillCatalogPtr catalog, ServerOptions options = {});
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// A new session. `notify`, when given, receives the server-initiated messages for it (one
    /// JSON-RPC notification text each, from the thread that calls replace_catalog); it is
    /// called only once the session finished the 2025-11-25 `initialize`, and must not call back
    /// into the server. The server keeps only a weak reference.
    [[nodiscard]] std::shared_ptr<Session> open_session(std::function<void(std::string_view)> notify = nullptr) const;

    /// Serves `catalog` from now on (thread-safe; requests in flight finish on the old one).
    /// Files whose version (size, identity, times) is unchanged keep their digests and cached
    /// bytes instead of being read again; the rest is indexed as the constructor does. When
    /// what clients see changed, sends `notifications/resources/list_changed` (and
    /// `notifications/prompts/list_changed` when the prompts changed) to every session that
    /// has a `notify` sink and finished `initialize`. Activations of open sessions are kept.
    /// For `agentskills mcp --watch`. Throws ConfigurationError for a null catalog.
    CatalogUpdate replace_catalog(SkillCatalogPtr catalog);

    /// Handles one JSON-RPC message (UTF-8 JSON text). Never throws for bad input: it becomes
    /// the JSON-RPC error the base protocol names.
    [[nodiscard]] Exchange handle(std::string_view message, Session& session) const;

    /// Skills served, in catalog order.
    [[nodiscard]] std::vector<std::string> served_skill_names() const;
    /// Skills of the current catalog that are not served.
    [[nodiscard]] std::vector<LeftOutSkill> left_out() const;
    [[nodiscard]] const ServerOptions& options() const noexcept;
    void log(std::string_view line) const;

private:
    friend struct detail::ServerAccess;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Serves `server` over stdio: one JSON message per line in, one per line out, until end of
/// input. A line longer than the message bound is discarded unread and answered with -32600.
/// Notifications from replace_catalog are written between replies (never inside one). Returns 0
/// at end of input, or after the line whose answer could not be written (`out` failed). A write
/// to a pipe whose reader is gone raises SIGPIPE, which kills the process unless it is ignored:
/// a host that serves a pipe should ignore it (`agentskills mcp` does).
int serve_stdio(const Server& server, std::istream& in, std::ostream& out);

struct HttpOptions {
    std::string host = "127.0.0.1";
    int port = 0;  ///< 0 = a free port (reported through on_listening)
    /// Origins accepted besides http(s)://localhost, 127.0.0.1 and [::1] (any port). A request
    /// with any other Origin gets 403.
    std::vector<std::string> allowed_origins = {};
    std::size_t max_sessions = DEFAULT_MAX_SESSIONS;

    // --- Connections and requests (the event-driven engine, Boost.Beast/Asio) ---
    /// Threads that run the sockets (Asio io threads); 0 = the hardware threads. A connection
    /// costs no thread: JSON-RPC handling runs on a separate pool of max(4, 2 x threads). At most
    /// MAX_HTTP_THREADS; serve_http throws ConfigurationError past it.
    std::size_t threads = 0;
    /// `Host` values accepted besides localhost, 127.0.0.1 and [::1] (any port): an entry
    /// matches the whole header (`mcp.example:8080`) or its name without the port
    /// (`mcp.example`). A request with any other Host, or none, gets 403 (DNS rebinding).
    std::vector<std::string> allowed_hosts = {};
    /// A request's whole time, headers and body, from its first byte; then the connection closes.
    std::chrono::milliseconds request_timeout{10000};
    /// How long a keep-alive connection may wait for the first byte of its next request.
    std::chrono::milliseconds idle_timeout{30000};
    /// Open connections at once, all clients together; a connection past it is closed at once.
    std::size_t max_connections = 8192;
    /// Open connections at once from one client address; a connection past it is closed at once.
    std::size_t max_connections_per_client = 1024;
    /// Bytes of a request's start line and headers together; past it: 431 and close.
    std::size_t max_header_bytes = 16u * 1024u;
    /// Bytes of answers built but not yet written, all connections together (a client that does
    /// not read holds its answer until request_timeout; a connection reads its next request only
    /// once its answer is written). A request that arrives while at least this many are unsent is
    /// not handled: it gets 503 with -32600 and `Retry-After: 1`. The answers being built when the
    /// cap is reached may pass it, by at most one answer per io and handler thread. 0 = no cap.
    std::size_t max_unsent_bytes = DEFAULT_MAX_UNSENT_BYTES;
    /// The same, for the connections of one client address (the peer's, as for
    /// max_connections_per_client: behind a proxy, the proxy's), so that one client that does
    /// not read cannot hold the whole of max_unsent_bytes and have every other client refused.
    /// Past it, that client's new requests get 503 in the same way; others are still answered.
    /// 0 = no share (only max_unsent_bytes).
    std::size_t max_unsent_bytes_per_client = DEFAULT_MAX_UNSENT_BYTES_PER_CLIENT;

    /// Called once the socket listens, with the bound port.
    std::function<void(int port)> on_listening = nullptr;
    /// Polled twice a second; returning true stops the server (nullptr = never).
    std::function<bool()> should_stop = nullptr;

    // ---- Handshake-era sessions (`Mcp-Session-Id`) ----------------------------------------
    // A session ends when it was unused for session_idle_timeout or its client sends DELETE;
    // never because other clients opened sessions. `max_sessions` (above) caps them all
    // together, max_sessions_per_client each client address: past either, `initialize` gets
    // 429 and the open sessions are kept. Behind a reverse proxy every client has the proxy's
    // address unless the proxy is trusted (trusted_proxies); else raise max_sessions_per_client
    // (or make it 0) there.

    /// A session unused this long ends (its id then gets 404).
    std::chrono::milliseconds session_idle_timeout = DEFAULT_SESSION_IDLE_TIMEOUT;
    /// Sessions one client address may hold at once (0 = no cap).
    std::size_t max_sessions_per_client = DEFAULT_MAX_SESSIONS_PER_CLIENT;
    /// Addresses of reverse proxies whose `X-Forwarded-For` is believed (exact IP addresses, as
    /// `127.0.0.1` or `::1`). For a request whose peer is one of them, the client address that
    /// max_sessions_per_client counts is the rightmost address in X-Forwarded-For that is not
    /// itself a trusted proxy (the peer when there is none, or when that entry is not an IP
    /// address). Any other peer's X-Forwarded-For is ignored. Connection caps count peers.
    std::vector<std::string> trusted_proxies = {};
    /// Where sessions and their activations live: null = this process's memory. Give a store
    /// that several replicas share (agentskills::sqlite's SqliteSessionStore,
    /// agentskills::postgres's PostgresSessionStore) so that any replica serves any session.
    SessionStorePtr session_store = nullptr;
};

/// Serves `server` over Streamable HTTP at POST /mcp (JSON responses, no SSE) until
/// should_stop says so. Returns 0 on a clean stop, 1 when the address cannot be bound. Throws
/// ConfigurationError for options out of their bounds (HttpOptions::threads).
int serve_http(const Server& server, const HttpOptions& options);

}  // namespace agentskills::mcp
