// agentskills-cpp MCP server — the Streamable HTTP transport (cpp-httplib): POST /mcp with JSON
// responses, Origin validation, and Mcp-Session-Id sessions for the handshake era.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <httplib.h>

#include "../shared/internal.hpp"
#include "agentskills/mcp/server.hpp"
#include "sessions.hpp"

namespace agentskills::mcp {
namespace {

std::string error_body(int code, std::string_view message) {
    return fmt::format("{{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{{\"code\":{},\"message\":\"{}\"}}}}", code,
                       message);
}

bool loopback_origin(std::string_view origin) {
    std::string_view rest;
    if (origin.rfind("http://", 0) == 0) {
        rest = origin.substr(7);
    } else if (origin.rfind("https://", 0) == 0) {
        rest = origin.substr(8);
    } else {
        return false;
    }
    std::string_view host = rest;
    std::string_view port;
    if (host.rfind("[::1]", 0) == 0) {
        port = host.substr(5);
        host = host.substr(0, 5);
    } else if (const std::size_t colon = host.find(':'); colon != std::string_view::npos) {
        port = host.substr(colon);
        host = host.substr(0, colon);
    }
    if (!port.empty()) {
        if (port.front() != ':' || port.size() < 2 || port.size() > 6) return false;
        for (char c : port.substr(1)) {
            if (c < '0' || c > '9') return false;
        }
    }
    return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
}

}  // namespace

int serve_http(const Server& server, const HttpOptions& options) {
    httplib::Server http;
    detail::SessionTable sessions(server, options);
    const std::size_t threads = options.threads == 0 ? 1 : options.threads;
    http.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    http.set_payload_max_length(server.options().max_message_bytes);
    http.set_read_timeout(10, 0);
    http.set_write_timeout(10, 0);
    http.set_keep_alive_max_count(1000);
    http.set_tcp_nodelay(true);  // small JSON replies must not wait for delayed ACKs

    const auto origin_allowed = [&options](const std::string& origin) {
        if (loopback_origin(origin)) return true;
        for (const auto& allowed : options.allowed_origins) {
            if (allowed == origin) return true;
        }
        return false;
    };

    http.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
        if (req.has_header("Origin") && !origin_allowed(req.get_header_value("Origin"))) {
            res.status = 403;
            res.set_content(error_body(-32600, "Forbidden: Origin not allowed"), "application/json");
            return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
    });

    http.Post("/mcp", [&](const httplib::Request& req, httplib::Response& res) {
        const std::string content_type = req.get_header_value("Content-Type");
        if (content_type.rfind("application/json", 0) != 0) {
            res.status = 415;
            res.set_content(error_body(-32600, "Unsupported Media Type: send application/json"), "application/json");
            return;
        }
        const std::string version_header = req.get_header_value("MCP-Protocol-Version");
        const bool modern_header = version_header.rfind("2026-", 0) == 0;
        const std::string session_id = req.get_header_value("Mcp-Session-Id");
        std::shared_ptr<Session> session;
        bool unknown_session = false;
        if (!modern_header && !session_id.empty()) {
            session = sessions.find(session_id);
            unknown_session = session == nullptr;
        }
        if (!session) session = server.open_session();  // one request's worth (stateless era)

        Exchange ex = server.handle(req.body, *session);

        if (ex.modern || modern_header) {
            std::string requested;
            if (ex.modern) {
                const auto body = nlohmann::json::parse(req.body, nullptr, false);
                requested =
                    body.at("params").at("_meta").at("io.modelcontextprotocol/protocolVersion").get<std::string>();
            }
            const std::string method_header = req.get_header_value("Mcp-Method");
            if (version_header != requested || (!method_header.empty() && method_header != ex.method)) {
                res.status = 400;
                res.set_content(error_body(-32020, version_header != requested
                                                       ? "Header mismatch: MCP-Protocol-Version does not match "
                                                         "_meta io.modelcontextprotocol/protocolVersion"
                                                       : "Header mismatch: Mcp-Method does not match the method"),
                                "application/json");
                return;
            }
        } else if (unknown_session) {
            res.status = 404;
            res.set_content(error_body(-32600, "Not Found: unknown or expired Mcp-Session-Id"), "application/json");
            return;
        }
        if (!ex.response) {
            res.status = 202;
            return;
        }
        if (ex.initialized && session_id.empty()) {
            const auto id = sessions.add(req.remote_addr, session);
            if (!id) {
                res.status = 429;
                res.set_content(error_body(-32600, "Too Many Requests: this client holds too many sessions"),
                                "application/json");
                return;
            }
            res.set_header("Mcp-Session-Id", *id);
        }
        switch (ex.error_code) {
            case -32700:
            case -32600:
            case -32022:
                res.status = 400;
                break;
            case -32601:
                res.status = ex.modern ? 404 : 200;
                break;
            default:
                res.status = 200;
        }
        res.set_content(*ex.response, "application/json");
    });

    http.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
        res.status = 405;
        res.set_header("Allow", "POST, DELETE");
    });

    http.Delete("/mcp", [&](const httplib::Request& req, httplib::Response& res) {
        const std::string id = req.get_header_value("Mcp-Session-Id");
        res.status = !id.empty() && sessions.remove(id) ? 200 : 404;
    });

    int port = options.port;
    if (port == 0) {
        port = http.bind_to_any_port(options.host);
        if (port < 0) port = 0;
    } else if (!http.bind_to_port(options.host, port)) {
        port = 0;
    }
    if (port <= 0) {
        server.log(fmt::format("agentskills mcp: cannot listen on {}:{}", options.host, options.port));
        return 1;
    }
    if (options.on_listening) options.on_listening(port);

    std::atomic<bool> done{false};
    std::thread watcher;
    if (options.should_stop) {
        watcher = std::thread([&] {
            while (!done.load()) {
                if (options.should_stop()) {
                    http.stop();
                    return;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
    }
    const bool ok = http.listen_after_bind();
    done = true;
    if (watcher.joinable()) watcher.join();
    return ok ? 0 : 1;
}

}  // namespace agentskills::mcp
