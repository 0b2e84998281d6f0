// agentskills-cpp MCP client — the Streamable HTTP transport (cpp-httplib): one POST per message,
// a JSON or text/event-stream answer read up to the size bound and the request's deadline.
#include <chrono>
#include <string>
#include <utility>

#include <fmt/core.h>
#include <httplib.h>

#include "agentskills/mcp/client.hpp"
#include "client_internal.hpp"

namespace agentskills::mcp {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

struct ParsedUrl {
    std::string host;
    int port = 80;
    std::string path;
};

ParsedUrl parse_url(const std::string& url) {
    auto bad = [&](std::string_view why) {
        return ConfigurationError(fmt::format("MCP server URL '{}': {}", url, why));
    };
    constexpr std::string_view http = "http://";
    if (url.rfind("https://", 0) == 0) throw bad("https is not supported by this build (cpp-httplib without OpenSSL)");
    if (url.rfind(http, 0) != 0) throw bad("not an http:// URL");
    for (char c : url) {
        if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) throw bad("white space or a control character");
    }
    std::string_view rest = std::string_view(url).substr(http.size());
    const std::size_t slash = rest.find_first_of("/?#");
    std::string_view authority = rest.substr(0, slash);
    ParsedUrl out;
    out.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
    if (out.path.front() != '/') throw bad("a query or fragment without a path");
    if (out.path.find('#') != std::string::npos) throw bad("a fragment");
    if (authority.find('@') != std::string_view::npos) throw bad("user information is not supported");
    std::string_view host = authority;
    std::string_view port;
    if (!host.empty() && host.front() == '[') {
        const std::size_t close = host.find(']');
        if (close == std::string_view::npos) throw bad("an unclosed IPv6 address");
        port = host.substr(close + 1);
        host = host.substr(1, close - 1);
        if (!port.empty() && port.front() != ':') throw bad("text after the IPv6 address");
        if (!port.empty()) port.remove_prefix(1);
    } else if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
        port = host.substr(colon + 1);
        host = host.substr(0, colon);
    }
    if (host.empty()) throw bad("no host");
    out.host = std::string(host);
    if (!port.empty()) {
        int p = 0;
        for (char c : port) {
            if (c < '0' || c > '9' || p > 65535) throw bad("a bad port");
            p = p * 10 + (c - '0');
        }
        if (p <= 0 || p > 65535) throw bad("a bad port");
        out.port = p;
    }
    return out;
}

class HttpTransport final : public ClientTransport {
public:
    HttpTransport(const std::string& url, const TransportLimits& limits)
        : limits_(limits), url_(parse_url(url)), client_(url_.host, url_.port) {
        const auto secs = std::chrono::duration_cast<std::chrono::seconds>(limits_.timeout);
        const auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(limits_.timeout - secs);
        client_.set_connection_timeout(static_cast<time_t>(secs.count()), static_cast<time_t>(usecs.count()));
        client_.set_read_timeout(static_cast<time_t>(secs.count()), static_cast<time_t>(usecs.count()));
        client_.set_write_timeout(static_cast<time_t>(secs.count()), static_cast<time_t>(usecs.count()));
        client_.set_keep_alive(true);
        // A request goes out in two writes (head, body): with Nagle's algorithm the body waits for
        // the ACK of the head, which the server delays (40 ms a request on Linux).
        client_.set_tcp_nodelay(true);
        client_.set_follow_location(false);
    }

    json request(const json& request, const json& id,
                 const std::vector<std::pair<std::string, std::string>>& headers) override {
        Exchange ex = post(request, headers);
        if (ex.status == 202 || ex.body.empty()) {
            throw ClientError(fmt::format("MCP HTTP server: HTTP {} without an answer", ex.status));
        }
        std::vector<json> messages;
        if (ex.content_type.rfind("text/event-stream", 0) == 0) {
            messages = client_detail::parse_sse(ex.body);
        } else if (ex.content_type.rfind("application/json", 0) == 0) {
            messages.push_back(client_detail::parse_message(ex.body));
        } else {
            throw ClientError(fmt::format("MCP HTTP server: HTTP {} with content type '{}'", ex.status,
                                          ex.content_type.substr(0, 100)));
        }
        for (auto& m : messages) {
            switch (client_detail::reply_to(m, id)) {
                case client_detail::Reply::answer:
                    return std::move(m);
                case client_detail::Reply::wrong:
                    throw ClientError(fmt::format("MCP HTTP server: {}", client_detail::wrong_reply(m, id)));
                case client_detail::Reply::unrelated:
                    break;
            }
        }
        if (ex.status >= 400) throw ClientError(fmt::format("MCP HTTP server: HTTP {}", ex.status));
        throw ClientError("MCP HTTP server: the answer does not hold the response to the request");
    }

    void notify(const json& notification, const std::vector<std::pair<std::string, std::string>>& headers) override {
        Exchange ex = post(notification, headers);
        if (ex.status >= 400) throw ClientError(fmt::format("MCP HTTP server: HTTP {} to a notification", ex.status));
    }

private:
    struct Exchange {
        int status = 0;
        std::string content_type;
        std::string body;
    };

    Exchange post(const json& message, const std::vector<std::pair<std::string, std::string>>& headers) {
        if (broken_) throw ClientError("MCP HTTP server: the connection is closed");
        const Clock::time_point deadline = Clock::now() + limits_.timeout;
        httplib::Request req;
        req.method = "POST";
        req.path = url_.path;
        req.body = message.dump(-1, ' ', false, json::error_handler_t::replace);
        req.set_header("Content-Type", "application/json");
        req.set_header("Accept", "application/json, text/event-stream");
        if (!session_id_.empty()) req.set_header("Mcp-Session-Id", session_id_);
        for (const auto& [k, v] : headers) req.set_header(k, v);
        Exchange ex;
        bool too_big = false;
        bool late = false;
        req.content_receiver = [&](const char* data, std::size_t len, std::uint64_t, std::uint64_t) {
            if (ex.body.size() + len > limits_.max_message_bytes) {
                too_big = true;
                return false;
            }
            if (Clock::now() > deadline) {
                late = true;
                return false;
            }
            ex.body.append(data, len);
            return true;
        };
        httplib::Response res;
        httplib::Error error = httplib::Error::Success;
        const bool ok = client_.send(req, res, error);
        if (too_big) fail(fmt::format("a message longer than {} bytes", limits_.max_message_bytes));
        if (late) fail(fmt::format("no complete answer within {} ms", limits_.timeout.count()));
        if (!ok) fail(fmt::format("request failed: {}", httplib::to_string(error)));
        ex.status = res.status;
        ex.content_type = res.get_header_value("Content-Type");
        if (res.has_header("Mcp-Session-Id")) {
            const std::string id = res.get_header_value("Mcp-Session-Id");
            if (id.size() <= 256) session_id_ = id;
        }
        return ex;
    }

    [[noreturn]] void fail(const std::string& why) {
        broken_ = true;
        client_.stop();
        throw ClientError(fmt::format("MCP HTTP server: {}", why));
    }

    TransportLimits limits_;
    ParsedUrl url_;
    httplib::Client client_;
    std::string session_id_;
    bool broken_ = false;
};

}  // namespace

std::unique_ptr<ClientTransport> make_http_transport(const std::string& url, const TransportLimits& limits) {
    return std::make_unique<HttpTransport>(url, limits);
}

}  // namespace agentskills::mcp
