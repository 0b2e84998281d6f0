// agentskills-cpp MCP client — the Streamable HTTP transport (Boost.Beast, the engine of the
// server side too): one POST per message on a kept-alive connection, a JSON or
// text/event-stream answer read up to the size bound and the request's deadline.
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include <fmt/core.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include "agentskills/mcp/client.hpp"
#include "client_internal.hpp"

namespace agentskills::mcp {
namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

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
    if (url.rfind("https://", 0) == 0) throw bad("https is not supported (put a TLS proxy in front of the server)");
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
        : limits_(limits), url_(parse_url(url)), stream_(io_) {}

    json request(const json& request, const json& id,
                 const std::vector<std::pair<std::string, std::string>>& headers) override {
        Exchange ex = post(request, headers);
        if (ex.status == 202 || ex.body.empty()) {
            throw ClientError(fmt::format("MCP HTTP server: HTTP {} without an answer", ex.status));
        }
        std::vector<json> messages;
        if (detail::is_media_type(ex.content_type, "text/event-stream")) {
            messages = client_detail::parse_sse(ex.body);
        } else if (detail::is_media_type(ex.content_type, "application/json")) {
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

    // Runs the asynchronous operations started on io_ until they finish or `deadline` passes
    // (then the socket is closed, which ends them with operation_aborted). One deadline covers
    // connecting, writing the request and reading the whole answer.
    void run_until(Clock::time_point deadline) {
        io_.restart();
        while (io_.run_one_until(deadline) > 0) {
        }
        if (!io_.stopped()) {
            timed_out_ = true;
            stream_.close();
            io_.restart();
            io_.run();  // let the handlers see the close
        }
    }

    void connect(Clock::time_point deadline) {
        asio::ip::tcp::resolver resolver(io_);
        beast::error_code ec;
        asio::ip::tcp::resolver::results_type endpoints;
        resolver.async_resolve(url_.host, std::to_string(url_.port),
                               [&](beast::error_code e, asio::ip::tcp::resolver::results_type r) {
                                   ec = e;
                                   endpoints = std::move(r);
                               });
        run_until(deadline);
        if (timed_out_) fail(fmt::format("could not connect within {} ms", limits_.timeout.count()));
        if (ec) fail(fmt::format("cannot resolve '{}': {}", url_.host, ec.message()));
        stream_.socket().close(ec);
        stream_.async_connect(endpoints, [&](beast::error_code e, const asio::ip::tcp::endpoint&) { ec = e; });
        run_until(deadline);
        if (timed_out_) fail(fmt::format("could not connect within {} ms", limits_.timeout.count()));
        if (ec) fail(fmt::format("cannot connect to {}:{}: {}", url_.host, url_.port, ec.message()));
        // Small JSON requests must not wait for the ACK of the one before (Nagle's algorithm).
        stream_.socket().set_option(asio::ip::tcp::no_delay(true), ec);
        connected_ = true;
    }

    Exchange post(const json& message, const std::vector<std::pair<std::string, std::string>>& headers) {
        if (broken_) throw ClientError("MCP HTTP server: the connection is closed");
        const Clock::time_point deadline = Clock::now() + limits_.timeout;
        // A kept-alive connection the server closed since the last answer fails at once on write
        // or read with nothing received: then the request is sent once more on a new connection.
        for (int attempt = 0;; ++attempt) {
            if (!connected_) connect(deadline);
            bool received_any = false;
            std::optional<Exchange> ex = exchange(message, headers, deadline, received_any);
            if (ex) return std::move(*ex);
            if (attempt > 0 || received_any || timed_out_) break;
            beast::error_code ignored;
            stream_.socket().close(ignored);
            connected_ = false;
        }
        if (timed_out_) fail(fmt::format("no complete answer within {} ms", limits_.timeout.count()));
        fail(last_error_);
    }

    std::optional<Exchange> exchange(const json& message,
                                     const std::vector<std::pair<std::string, std::string>>& headers,
                                     Clock::time_point deadline, bool& received_any) {
        bhttp::request<bhttp::string_body> req{bhttp::verb::post, url_.path, 11};
        req.set(bhttp::field::host, url_.port == 80 ? url_.host : fmt::format("{}:{}", url_.host, url_.port));
        req.set(bhttp::field::content_type, "application/json");
        req.set(bhttp::field::accept, "application/json, text/event-stream");
        if (!session_id_.empty()) req.set("Mcp-Session-Id", session_id_);
        for (const auto& [k, v] : headers) req.set(k, v);
        req.body() = message.dump(-1, ' ', false, json::error_handler_t::replace);
        req.prepare_payload();
        req.keep_alive(true);

        beast::error_code ec;
        bhttp::async_write(stream_, req, [&](beast::error_code e, std::size_t) { ec = e; });
        run_until(deadline);
        if (timed_out_) return std::nullopt;
        if (ec) {
            last_error_ = fmt::format("request failed: {}", ec.message());
            return std::nullopt;
        }
        bhttp::response_parser<bhttp::string_body> parser;
        parser.header_limit(64 * 1024);
        parser.body_limit(limits_.max_message_bytes);  // a chunked or close-delimited body
        bhttp::async_read_header(stream_, buffer_, parser, [&](beast::error_code e, std::size_t) { ec = e; });
        run_until(deadline);
        received_any = parser.got_some();
        if (timed_out_) return std::nullopt;
        const auto too_big = [&] { fail(fmt::format("a message longer than {} bytes", limits_.max_message_bytes)); };
        if (!ec && parser.content_length() && *parser.content_length() > limits_.max_message_bytes) too_big();
        if (!ec && !parser.is_done()) {
            bhttp::async_read(stream_, buffer_, parser, [&](beast::error_code e, std::size_t) { ec = e; });
            run_until(deadline);
            if (timed_out_) return std::nullopt;
        }
        if (ec == bhttp::error::body_limit) too_big();
        if (ec) {
            last_error_ = fmt::format("request failed: {}", ec.message());
            return std::nullopt;
        }
        auto res = parser.release();
        Exchange ex;
        ex.status = static_cast<int>(res.result_int());
        ex.content_type = std::string(res[bhttp::field::content_type]);
        if (const auto it = res.find("Mcp-Session-Id"); it != res.end() && it->value().size() <= 256) {
            session_id_ = std::string(it->value());
        }
        ex.body = std::move(res.body());
        if (!res.keep_alive()) {
            beast::error_code ignored;
            stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
            stream_.socket().close(ignored);
            connected_ = false;
        }
        return ex;
    }

    [[noreturn]] void fail(const std::string& why) {
        broken_ = true;
        beast::error_code ignored;
        stream_.socket().close(ignored);
        throw ClientError(fmt::format("MCP HTTP server: {}", why));
    }

    TransportLimits limits_;
    ParsedUrl url_;
    asio::io_context io_{1};
    beast::tcp_stream stream_;
    beast::flat_buffer buffer_;
    std::string session_id_;
    std::string last_error_;
    bool connected_ = false;
    bool timed_out_ = false;
    bool broken_ = false;
};

}  // namespace

std::unique_ptr<ClientTransport> make_http_transport(const std::string& url, const TransportLimits& limits) {
    return std::make_unique<HttpTransport>(url, limits);
}

}  // namespace agentskills::mcp
