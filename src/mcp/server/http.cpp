// agentskills-cpp MCP server — the Streamable HTTP transport: POST /mcp with JSON responses,
// Host and Origin validation, the 2026-07-28 request headers, and Mcp-Session-Id sessions for the
// handshake era. Event-driven (Boost.Beast over Asio): a few io threads run every socket, a
// connection costs no thread; requests answered from memory are answered on the io thread, and
// the rest of the JSON-RPC handling runs on a small pool of its own so that a handler that waits
// (a store, a claim, a loader) never holds a socket thread.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/core.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include "../shared/internal.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/mcp/server.hpp"
#include "sessions.hpp"
#include "state.hpp"

namespace agentskills::mcp {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using nlohmann::json;
// One io_context per io thread, each run by that thread alone: a connection lives on one of them
// (given in turn as they are accepted), so its operations never run at once and need no strand
// (a strand's lock and its reference counts were on every operation). Naming that executor type
// (not the type-erased asio::any_io_executor of beast::tcp_stream) saves its copies and indirect
// calls on every operation.
using Executor = asio::io_context::executor_type;
using Socket = asio::basic_stream_socket<tcp, Executor>;
using Stream = beast::basic_stream<tcp, Executor>;

/// The io threads' contexts; each is kept running (a work guard) until stop().
class IoContexts {
public:
    explicit IoContexts(std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            contexts_.push_back(std::make_unique<asio::io_context>(1));
            guards_.emplace_back(contexts_.back()->get_executor());
        }
    }
    asio::io_context& first() { return *contexts_.front(); }
    /// The context of the next connection: each in turn.
    asio::io_context& next() { return *contexts_[next_++ % contexts_.size()]; }
    std::size_t size() const { return contexts_.size(); }
    asio::io_context& at(std::size_t i) { return *contexts_[i]; }
    void stop() {
        for (auto& guard : guards_) guard.reset();
        for (auto& context : contexts_) context->stop();
    }

private:
    std::vector<std::unique_ptr<asio::io_context>> contexts_;
    std::vector<asio::executor_work_guard<Executor>> guards_;
    std::size_t next_ = 0;  // read and written on the first context's thread only (the acceptor's)
};

std::string error_body(int code, std::string_view message) {
    return fmt::format("{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":{},\"message\":\"{}\"}}}}", code,
                       message);
}

/// `authority` (HOST or HOST:PORT, as in a Host header or after an Origin's scheme) split into its
/// name and its port (with the colon); false when the port is not 1 to 5 digits.
bool split_authority(std::string_view authority, std::string_view& name, std::string_view& port) {
    name = authority;
    port = {};
    if (authority.rfind('[', 0) == 0) {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return false;
        name = authority.substr(0, close + 1);
        port = authority.substr(close + 1);
    } else if (const std::size_t colon = authority.find(':'); colon != std::string_view::npos) {
        name = authority.substr(0, colon);
        port = authority.substr(colon);
    }
    if (!port.empty()) {
        if (port.front() != ':' || port.size() < 2 || port.size() > 6) return false;
        for (char c : port.substr(1)) {
            if (c < '0' || c > '9') return false;
        }
    }
    return true;
}

/// localhost, 127.0.0.1 or [::1], with any port.
bool loopback_authority(std::string_view authority) {
    std::string_view name;
    std::string_view port;
    if (!split_authority(authority, name, port)) return false;
    return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

bool loopback_origin(std::string_view origin) {
    if (origin.rfind("http://", 0) == 0) return loopback_authority(origin.substr(7));
    if (origin.rfind("https://", 0) == 0) return loopback_authority(origin.substr(8));
    return false;
}

using Request = bhttp::request<bhttp::string_body>;

/// What one request is answered with.
struct Reply {
    unsigned status = 200;
    std::string body;  ///< JSON; empty for none
    std::vector<std::pair<std::string, std::string>> headers;
    bool close = false;  ///< close the connection after this answer
};

Reply json_error(unsigned status, int code, std::string_view message) {
    return Reply{status, error_body(code, message), {}, false};
}

std::string_view header(const Request& req, std::string_view name) {
    const auto it = req.find(beast::string_view(name.data(), name.size()));
    if (it == req.end()) return {};
    const auto value = it->value();
    return {value.data(), value.size()};
}

bool has_header(const Request& req, std::string_view name) {
    return req.find(beast::string_view(name.data(), name.size())) != req.end();
}

/// The headers the transport reads as one value (header() gives the first line of a name). A
/// request that repeats one of them gets 400 before any is looked at: a second `Host` or `Origin`
/// must not hide behind a first that passes the check (RFC 9112 3.2 asks 400 for a second Host).
constexpr std::string_view SINGLE_HEADERS[] = {
    "Host", "Origin", "Content-Type", "Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"};

/// The first of SINGLE_HEADERS that `req` has more than once, or empty.
std::string_view repeated_header(const Request& req) {
    for (const std::string_view name : SINGLE_HEADERS) {
        if (req.count(beast::string_view(name.data(), name.size())) > 1) return name;
    }
    return {};
}

/// Whether a request that is not of the 2026-07-28 era (no `_meta` version in its body) carries an
/// MCP-Protocol-Version header naming no handshake-era version this server speaks. The transport
/// (2025-06-18 and later) answers such a request 400; one without the header is taken as
/// 2025-03-26. (A 2026-07-28 request's header must equal its body's version, header_mismatch,
/// and the handler answers an unsupported one -32022.)
bool unsupported_version_header(const Request& req) {
    if (!has_header(req, "MCP-Protocol-Version")) return false;
    const auto& versions = detail::handshake_versions();
    return std::find(versions.begin(), versions.end(), header(req, "MCP-Protocol-Version")) == versions.end();
}

Reply unsupported_version() {
    static const std::string message = [] {
        std::string text =
            fmt::format("Bad Request: unsupported MCP-Protocol-Version (this server speaks {}", PROTOCOL_2026_07_28);
        for (const std::string_view version : detail::handshake_versions()) text += fmt::format(", {}", version);
        return text + ")";
    }();
    return json_error(400, -32600, message);
}

/// The `params` object of a parsed message, or nullptr.
const json* params_of(const json& msg) {
    if (!msg.is_object()) return nullptr;
    const auto p = msg.find("params");
    return p != msg.end() && p->is_object() ? &*p : nullptr;
}

/// The 2026-07-28 transport's checks of the request headers against the body, before the body is
/// handled: MCP-Protocol-Version must name the body's `_meta` protocol version; for a modern
/// request, Mcp-Method is required and must be the method, and Mcp-Name is required for the
/// methods that name a tool, prompt or resource and must be that name (decoded from its base64
/// sentinel); a notification's Mcp-Method, when sent, must be its method. The message of the
/// -32020 error, or nullopt when the headers agree. The era is decided on the parsed body, by the
/// handler's own test (detail::claimed_protocol_version), never on its text: a body that spells
/// the `_meta` key with JSON escapes is the same message to both: `msg` is the body as the
/// handler's own reading (detail::read_message) gave it, and the handler takes it from there.
std::optional<std::string> header_mismatch(const Request& req, const json& msg) {
    const std::string_view version_header = header(req, "MCP-Protocol-Version");
    const bool modern_header = version_header.rfind("2026-", 0) == 0;
    const json* params = params_of(msg);
    const json* claim = params != nullptr ? detail::claimed_protocol_version(*params) : nullptr;
    if (claim == nullptr && !modern_header) return std::nullopt;  // the handshake era: nothing to check here
    if (claim == nullptr || !claim->is_string() || version_header != claim->get_ref<const std::string&>()) {
        return "Header mismatch: MCP-Protocol-Version does not match _meta io.modelcontextprotocol/protocolVersion";
    }
    // An unsupported older claim: the handler answers -32022.
    if (version_header < PROTOCOL_2026_07_28) return std::nullopt;
    const auto method_it = msg.find("method");
    if (method_it == msg.end() || !method_it->is_string()) return std::nullopt;  // the handler refuses it
    const std::string& method = method_it->get_ref<const std::string&>();
    const bool request = msg.contains("id");
    const bool has_method_header = has_header(req, "Mcp-Method");
    if (!has_method_header && request) return "Header mismatch: the required Mcp-Method header is missing";
    if (has_method_header && header(req, "Mcp-Method") != method) {
        return "Header mismatch: Mcp-Method does not match the method";
    }
    if (!request) return std::nullopt;
    const std::string_view field = detail::mcp_name_field(method);
    if (field.empty()) return std::nullopt;
    const json* value = nullptr;
    if (params != nullptr) {
        if (const auto it = params->find(field); it != params->end() && it->is_string()) value = &*it;
    }
    if (!has_header(req, "Mcp-Name")) {
        if (value == nullptr) return std::nullopt;  // nothing to mirror; the handler refuses the params
        return "Header mismatch: the required Mcp-Name header is missing";
    }
    const auto decoded = detail::decode_header_value(header(req, "Mcp-Name"));
    if (!decoded) return "Header mismatch: Mcp-Name carries an invalid base64 value";
    if (value == nullptr || *decoded != value->get_ref<const std::string&>()) {
        return fmt::format("Header mismatch: Mcp-Name does not match params.{}", field);
    }
    return std::nullopt;
}

/// What the transport shares between its connections.
struct Shared {
    const Server& server;
    const HttpOptions& options;
    detail::SessionTable sessions;
    std::mutex mutex;
    std::size_t open = 0;
    std::unordered_map<std::string, std::size_t> per_client;
    /// Bytes of answers built and not yet written (HttpOptions::max_unsent_bytes).
    std::atomic<std::size_t> unsent{0};
    /// The same by client address, under `mutex` (HttpOptions::max_unsent_bytes_per_client);
    /// a client holding nothing has no entry.
    std::unordered_map<std::string, std::size_t> unsent_per_client;

    Shared(const Server& s, const HttpOptions& o) : server(s), options(o), sessions(s, o) {}

    bool host_allowed(std::string_view host) const {
        if (loopback_authority(host)) return true;
        std::string_view name;
        std::string_view port;
        if (!split_authority(host, name, port)) return false;
        return std::any_of(options.allowed_hosts.begin(), options.allowed_hosts.end(),
                           [&](const std::string& allowed) { return allowed == host || allowed == name; });
    }
    bool origin_allowed(std::string_view origin) const {
        if (loopback_origin(origin)) return true;
        return std::any_of(options.allowed_origins.begin(), options.allowed_origins.end(),
                           [&](const std::string& allowed) { return allowed == origin; });
    }

    /// The client address that sessions are counted against: the peer, or behind a trusted
    /// proxy the rightmost X-Forwarded-For entry that is not a trusted proxy (HttpOptions).
    std::string session_client(const Request& req, const std::string& peer) const {
        const auto trusted = [this](std::string_view address) {
            return std::find(options.trusted_proxies.begin(), options.trusted_proxies.end(), address) !=
                   options.trusted_proxies.end();
        };
        if (options.trusted_proxies.empty() || !trusted(peer)) return peer;
        // Every X-Forwarded-For line, in order, is one list: the last hop appended last.
        std::vector<std::string_view> hops;
        const auto [first, last] = req.equal_range(beast::string_view("X-Forwarded-For"));
        for (auto it = first; it != last; ++it) {
            std::string_view list(it->value().data(), it->value().size());
            while (!list.empty()) {
                const std::size_t comma = list.find(',');
                std::string_view hop = list.substr(0, comma);
                while (!hop.empty() && (hop.front() == ' ' || hop.front() == '\t')) hop.remove_prefix(1);
                while (!hop.empty() && (hop.back() == ' ' || hop.back() == '\t')) hop.remove_suffix(1);
                hops.push_back(hop);
                list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
            }
        }
        for (auto hop = hops.rbegin(); hop != hops.rend(); ++hop) {
            if (trusted(*hop)) continue;
            beast::error_code ec;
            const auto address = asio::ip::make_address(std::string(*hop), ec);
            return ec ? peer : address.to_string();
        }
        return peer;
    }

    /// Counts a new connection from `client`; false when a cap is reached.
    bool admit(const std::string& client) {
        const std::lock_guard lock(mutex);
        auto& mine = per_client[client];
        if (open >= options.max_connections || mine >= options.max_connections_per_client) {
            if (mine == 0) per_client.erase(client);
            return false;
        }
        ++open;
        ++mine;
        return true;
    }
    void release(const std::string& client) {
        const std::lock_guard lock(mutex);
        --open;
        if (const auto it = per_client.find(client); it != per_client.end() && --it->second == 0) per_client.erase(it);
    }

    /// Why a new request from `client` may not be handled (nullptr: it may): at least
    /// max_unsent_bytes of answers are unsent in all, or max_unsent_bytes_per_client of this
    /// client's.
    const char* no_room_to_answer(const std::string& client) {
        if (options.max_unsent_bytes != 0 && unsent.load(std::memory_order_relaxed) >= options.max_unsent_bytes) {
            return "Service Unavailable: the server holds too many unsent answers; retry later";
        }
        if (options.max_unsent_bytes_per_client == 0) return nullptr;
        const std::lock_guard lock(mutex);
        const auto it = unsent_per_client.find(client);
        if (it != unsent_per_client.end() && it->second >= options.max_unsent_bytes_per_client) {
            return "Service Unavailable: the server holds too many unsent answers for this client; retry later";
        }
        return nullptr;
    }
    /// Counts `bytes` of an answer to `client` as unsent, until settle.
    void hold(const std::string& client, std::size_t bytes) {
        unsent.fetch_add(bytes, std::memory_order_relaxed);
        if (bytes == 0 || options.max_unsent_bytes_per_client == 0) return;
        const std::lock_guard lock(mutex);
        unsent_per_client[client] += bytes;
    }
    void settle(const std::string& client, std::size_t bytes) {
        unsent.fetch_sub(bytes, std::memory_order_relaxed);
        if (bytes == 0 || options.max_unsent_bytes_per_client == 0) return;
        const std::lock_guard lock(mutex);
        if (const auto it = unsent_per_client.find(client); it != unsent_per_client.end()) {
            it->second -= std::min(it->second, bytes);
            if (it->second == 0) unsent_per_client.erase(it);
        }
    }

    /// Whether `req` may be answered on the io thread that read it: a 2026-07-28 POST with no
    /// session whose `Mcp-Method` (which the header check holds to the body's method before
    /// anything is handled) is one that is answered from the catalog snapshot in memory — at most
    /// one stat and one bounded read of a regular file for `resources/read`, nothing that waits on
    /// an activation store, a claim, a loader or the session store. Everything else goes to the
    /// handling pool; the hand-off and the wake-up it costs are most of a small request's CPU.
    static bool answered_inline(const Request& req) {
        if (req.method() != bhttp::verb::post) return false;
        if (header(req, "MCP-Protocol-Version").rfind("2026-", 0) != 0 || has_header(req, "Mcp-Session-Id")) {
            return false;
        }
        const std::string_view method = header(req, "Mcp-Method");
        constexpr std::string_view in_memory[] = {"skills/list",
                                                  "skills/get",
                                                  "resources/read",
                                                  "resources/list",
                                                  "resources/templates/list",
                                                  "tools/list",
                                                  "prompts/list",
                                                  "server/discover",
                                                  "ping"};
        return std::find(std::begin(in_memory), std::end(in_memory), method) != std::end(in_memory);
    }

    /// The answer to one parsed request from `client` (its address).
    Reply answer(const Request& req, const std::string& client);
    Reply answer_post(const Request& req, const std::string& client);
};

Reply Shared::answer(const Request& req, const std::string& client) {
    if (const std::string_view repeated = repeated_header(req); !repeated.empty()) {
        return json_error(400, -32600, fmt::format("Bad Request: more than one {} header", repeated));
    }
    if (!host_allowed(header(req, "Host"))) return json_error(403, -32600, "Forbidden: Host not allowed");
    if (has_header(req, "Origin") && !origin_allowed(header(req, "Origin"))) {
        return json_error(403, -32600, "Forbidden: Origin not allowed");
    }
    std::string_view target(req.target().data(), req.target().size());
    target = target.substr(0, target.find('?'));
    if (target != "/mcp") return json_error(404, -32600, "Not Found: the MCP endpoint is /mcp");
    switch (req.method()) {
        case bhttp::verb::post:
            return answer_post(req, client);
        case bhttp::verb::delete_: {
            if (unsupported_version_header(req)) return unsupported_version();
            const std::string id(header(req, "Mcp-Session-Id"));
            Reply r;
            r.status = !id.empty() && sessions.remove(id) ? 200 : 404;
            return r;
        }
        default: {
            Reply r;
            r.status = 405;
            r.headers.emplace_back("Allow", "POST, DELETE");
            return r;
        }
    }
}

Reply Shared::answer_post(const Request& req, const std::string& client) {
    if (!detail::is_media_type(header(req, "Content-Type"), "application/json")) {
        return json_error(415, -32600, "Unsupported Media Type: send application/json");
    }
    json parsed;  // the body, read once, for the header checks and the handler
    if (detail::read_message(req.body(), server.options().max_json_depth, parsed) != detail::MessageFault::none) {
        // A body the reading refuses (not JSON, nested too deep, a key given twice) gets the
        // handler's error, which says why, whatever its headers claim: they are not compared
        // with a body that no one reads.
        const auto once = server.open_session();
        Exchange refused = detail::ServerAccess::handle(server, req.body(), nullptr, *once);
        return Reply{400, refused.response.value_or(std::string()), {}, false};
    }
    if (auto mismatch = header_mismatch(req, parsed)) return json_error(400, -32020, *mismatch);
    const json* params = params_of(parsed);
    const bool modern_body = params != nullptr && detail::claimed_protocol_version(*params) != nullptr;
    if (!modern_body && unsupported_version_header(req)) return unsupported_version();

    const bool modern_header = header(req, "MCP-Protocol-Version").rfind("2026-", 0) == 0;
    const std::string session_id(header(req, "Mcp-Session-Id"));
    std::shared_ptr<Session> session;
    if (!modern_header && !session_id.empty()) {
        session = sessions.find(session_id);
        if (!session) return json_error(404, -32600, "Not Found: unknown or expired Mcp-Session-Id");
    }
    if (!session) session = server.open_session();  // one request's worth (stateless era)

    // The handler takes the body as read above.
    Exchange ex = detail::ServerAccess::handle(server, req.body(), &parsed, *session);

    Reply reply;
    if (!ex.response) {
        reply.status = 202;
        return reply;
    }
    if (ex.initialized && session_id.empty()) {
        const auto id = sessions.add(session_client(req, client), session);
        if (!id) return json_error(429, -32600, "Too Many Requests: this client holds too many sessions");
        reply.headers.emplace_back("Mcp-Session-Id", *id);
    }
    switch (ex.error_code) {
        case -32700:
        case -32600:
        case -32022:
            reply.status = 400;
            break;
        case -32601:
            reply.status = ex.modern ? 404 : 200;
            break;
        default:
            reply.status = 200;
    }
    reply.body = std::move(*ex.response);
    return reply;
}

/// One accepted connection: reads requests one after another (pipelined ones in order), hands
/// each to the handler pool, writes its answer, and closes on a deadline, an error or `close`.
/// It reads its next request only once its answer is written, so it holds at most one answer;
/// what all connections hold together is capped by HttpOptions::max_unsent_bytes.
class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(Shared& shared, asio::thread_pool& handlers, Socket socket, std::string client)
        : shared_(shared),
          handlers_(handlers),
          stream_(std::move(socket)),
          buffer_(shared.server.options().max_message_bytes + shared.options.max_header_bytes + 65536),
          client_(std::move(client)) {}
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection() {
        settle();
        shared_.release(client_);
    }

    void start() {
        asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->wait(); });
    }

private:
    // Waits (at most idle_timeout) for the first byte of the next request, unless it is here.
    void wait() {
        if (buffer_.size() > 0) {
            read();
            return;
        }
        stream_.expires_after(shared_.options.idle_timeout);
        stream_.async_read_some(buffer_.prepare(4096),
                                [self = shared_from_this()](beast::error_code ec, std::size_t n) {
                                    if (ec) return self->close();
                                    self->buffer_.commit(n);
                                    self->read();
                                });
    }

    // Reads one whole request within request_timeout of its first byte.
    void read() {
        parser_.emplace();
        parser_->body_limit(shared_.server.options().max_message_bytes);
        parser_->header_limit(
            static_cast<std::uint32_t>(std::min<std::size_t>(shared_.options.max_header_bytes, UINT32_MAX)));
        stream_.expires_after(shared_.options.request_timeout);
        bhttp::async_read_header(stream_, buffer_, *parser_,
                                 [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                     if (ec) return self->on_read(ec);
                                     self->read_body();
                                 });
    }

    // The body, within the same deadline; a client that asked (`Expect: 100-continue`, as curl
    // does for larger bodies) is told to send it first.
    void read_body() {
        if (!beast::iequals(parser_->get()[bhttp::field::expect], "100-continue") || parser_->is_done()) {
            bhttp::async_read(stream_, buffer_, *parser_,
                              [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
            return;
        }
        continue_ = std::make_unique<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_, 11);
        bhttp::async_write(stream_, *continue_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            self->continue_.reset();
            if (ec) return self->close();
            bhttp::async_read(self->stream_, self->buffer_, *self->parser_,
                              [self](beast::error_code read_ec, std::size_t) { self->on_read(read_ec); });
        });
    }

    void on_read(beast::error_code ec) {
        if (ec == bhttp::error::body_limit) {
            return write(json_error(413, -32600, "Payload Too Large: the message is over the server's limit"), false);
        }
        if (ec == bhttp::error::header_limit) {
            return write(json_error(431, -32600, "Request Header Fields Too Large"), false);
        }
        if (ec && ec.category() == bhttp::make_error_code(bhttp::error::bad_method).category() &&
            ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
            return write(json_error(400, -32600, "Bad Request: not an HTTP/1.1 request"), false);
        }
        if (ec) return close();
        auto request = std::make_shared<Request>(parser_->release());
        parser_.reset();
        const bool keep_alive = request->keep_alive();
        if (Shared::answered_inline(*request)) return write(answer(*request), keep_alive);
        asio::post(handlers_, [self = shared_from_this(), request, keep_alive] {
            Reply reply = self->answer(*request);
            asio::post(self->stream_.get_executor(), [self, reply = std::move(reply), keep_alive]() mutable {
                self->write(std::move(reply), keep_alive);
            });
        });
    }

    // The answer to `request`, counted in Shared::unsent until it is written (write, settle).
    // While too many bytes of answers wait for their clients (in all, or for this client), a
    // request is refused unhandled.
    Reply answer(const Request& request) {
        Reply reply;
        if (const char* why = shared_.no_room_to_answer(client_)) {
            reply = json_error(503, -32600, why);
            reply.headers.emplace_back("Retry-After", "1");
        } else {
            try {
                reply = shared_.answer(request, client_);
            } catch (const std::exception&) {
                reply = json_error(500, -32603, "Internal error");
            }
        }
        held_ = reply.body.size();
        shared_.hold(client_, held_);
        return reply;
    }

    // Gives back the count of this connection's answer (written, or never to be).
    void settle() {
        shared_.settle(client_, held_);
        held_ = 0;
    }

    void write(Reply reply, bool keep_alive) {
        response_ = {};
        response_.version(11);
        response_.result(reply.status);
        for (auto& [name, value] : reply.headers) response_.set(name, value);
        if (!reply.body.empty()) response_.set(bhttp::field::content_type, "application/json");
        response_.body() = std::move(reply.body);
        response_.keep_alive(keep_alive && !reply.close);
        response_.prepare_payload();
        stream_.expires_after(shared_.options.request_timeout);
        bhttp::async_write(stream_, response_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
            const bool keep_open = self->response_.keep_alive();
            self->response_ = {};  // the answer's bytes go now, not when the next one comes
            self->settle();
            if (ec) return self->close();
            if (!keep_open) return self->linger();
            self->wait();
        });
    }

    // Ends a connection after its last answer: stops sending, then reads and drops what the
    // client still sends (a refused body) for a short while, so that the answer is not lost to a
    // reset; then closes.
    void linger() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        stream_.expires_after(
            std::min<std::chrono::milliseconds>(shared_.options.request_timeout, std::chrono::milliseconds(2000)));
        drain();
    }
    void drain() {
        buffer_.clear();
        stream_.async_read_some(buffer_.prepare(65536), [self = shared_from_this()](beast::error_code ec, std::size_t) {
            if (ec) return self->close();
            self->drain();
        });
    }

    void close() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
        stream_.close();
    }

    Shared& shared_;
    asio::thread_pool& handlers_;
    Stream stream_;
    beast::flat_buffer buffer_;
    std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
    bhttp::response<bhttp::string_body> response_;
    std::unique_ptr<bhttp::response<bhttp::empty_body>> continue_;
    std::string client_;
    std::size_t held_ = 0;  ///< bytes of the answer counted in Shared::unsent (set where it is built)
};

/// Accepts connections until closed; over a cap a connection is closed at once.
class Listener : public std::enable_shared_from_this<Listener> {
public:
    Listener(IoContexts& io, Shared& shared, asio::thread_pool& handlers)
        : io_(io),
          shared_(shared),
          handlers_(handlers),
          acceptor_(io.first().get_executor()),
          retry_(acceptor_.get_executor()) {}

    bool open(const tcp::endpoint& endpoint, beast::error_code& ec) {
        acceptor_.open(endpoint.protocol(), ec);
        if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
        if (!ec) acceptor_.bind(endpoint, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
        return !ec;
    }
    int port() const { return acceptor_.local_endpoint().port(); }

    void accept() {
        acceptor_.async_accept(io_.next().get_executor(),
                               [self = shared_from_this()](beast::error_code ec, Socket socket) {
                                   if (!self->acceptor_.is_open()) return;
                                   if (ec) {  // out of descriptors, or an aborted handshake: try again shortly
                                       self->retry_.expires_after(std::chrono::milliseconds(20));
                                       self->retry_.async_wait([self](beast::error_code) {
                                           if (self->acceptor_.is_open()) self->accept();
                                       });
                                       return;
                                   }
                                   self->admit(std::move(socket));
                                   self->accept();
                               });
    }

    /// Closes the acceptor, then stops every io context.
    void stop() {
        asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
            beast::error_code ignored;
            self->acceptor_.close(ignored);
            self->retry_.cancel();
            self->io_.stop();
        });
    }

private:
    void admit(Socket socket) {
        beast::error_code ec;
        const auto peer = socket.remote_endpoint(ec);
        if (ec) return;
        std::string client = peer.address().to_string();
        if (!shared_.admit(client)) return;          // the socket closes as it goes out of scope
        socket.set_option(tcp::no_delay(true), ec);  // small JSON replies must not wait for delayed ACKs
        std::make_shared<Connection>(shared_, handlers_, std::move(socket), std::move(client))->start();
    }

    IoContexts& io_;
    Shared& shared_;
    asio::thread_pool& handlers_;
    tcp::acceptor acceptor_;
    asio::steady_timer retry_;
};

}  // namespace

int serve_http(const Server& server, const HttpOptions& options) {
    if (options.threads > MAX_HTTP_THREADS) {
        throw ConfigurationError(
            fmt::format("HttpOptions::threads is {}, over the bound of {}", options.threads, MAX_HTTP_THREADS));
    }
    Shared shared(server, options);
    std::size_t threads = options.threads;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    IoContexts io(threads);
    asio::thread_pool handlers(std::max<std::size_t>(4, 2 * threads));

    tcp::endpoint endpoint;
    beast::error_code ec;
    tcp::resolver resolver(io.first());
    const auto found = resolver.resolve(options.host, std::to_string(options.port),
                                        tcp::resolver::numeric_service | tcp::resolver::passive, ec);
    auto listener = std::make_shared<Listener>(io, shared, handlers);
    if (ec || found.empty() || !listener->open(found.begin()->endpoint(), ec)) {
        server.log(fmt::format("agentskills mcp: cannot listen on {}:{}", options.host, options.port));
        return 1;
    }
    if (options.on_listening) options.on_listening(listener->port());
    listener->accept();

    asio::steady_timer poll(io.first());
    std::function<void()> watch = [&] {
        poll.expires_after(std::chrono::milliseconds(100));
        poll.async_wait([&](beast::error_code wait_ec) {
            if (wait_ec) return;
            if (options.should_stop && options.should_stop()) {
                listener->stop();
                return;
            }
            watch();
        });
    };
    if (options.should_stop) watch();

    std::vector<std::thread> runners;
    for (std::size_t i = 1; i < io.size(); ++i) runners.emplace_back([&io, i] { io.at(i).run(); });
    io.first().run();
    for (auto& runner : runners) runner.join();
    handlers.join();  // handlers still running post their answers to the stopped context: dropped
    return 0;
}

}  // namespace agentskills::mcp
