// Test support: our MCP server over Streamable HTTP on a loopback port, in a thread of its own,
// serving the skills the test writes into a temporary directory (shared by the HTTP transport
// tests and the MCP client tests).
#pragma once

#ifdef AGENTSKILLS_HAVE_MCP

#include <atomic>
#include <future>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <httplib.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/mcp/server.hpp>

#include "../fs_fixtures.hpp"

namespace agentskills_test {

/// Writes `files` (path under the temporary directory, content), discovers the skills under its
/// `lib` folder, and serves them on 127.0.0.1 at an unused port (`port`) until destroyed. The
/// server's log is silent unless `options.log` is set; `http.threads` defaults to 2 here;
/// `http.on_listening` and `http.should_stop` belong to the fixture.
class McpHttpFixture {
public:
    using Files = std::vector<std::pair<std::string, std::string>>;

    explicit McpHttpFixture(const Files& files, agentskills::mcp::ServerOptions options = {},
                            agentskills::mcp::HttpOptions http = default_http()) {
        for (const auto& [path, content] : files) dir.write(path, content);
        auto loader = std::make_shared<agentskills::FilesystemSkillLoader>(
            agentskills::FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false});
        if (!options.log) options.log = [](std::string_view) {};
        server = std::make_unique<agentskills::mcp::Server>(agentskills::discover_skill_catalog(loader), options);
        std::promise<int> bound;
        auto ready = bound.get_future();
        thread_ = std::thread([this, &bound, http = std::move(http)]() mutable {
            http.on_listening = [&bound](int p) { bound.set_value(p); };
            http.should_stop = [this] { return stop_.load(); };
            (void)agentskills::mcp::serve_http(*server, http);
        });
        port = ready.get();
    }
    McpHttpFixture(const McpHttpFixture&) = delete;
    McpHttpFixture& operator=(const McpHttpFixture&) = delete;
    ~McpHttpFixture() {
        stop_ = true;
        thread_.join();
    }

    /// The transport's default HTTP options, with two worker threads.
    static agentskills::mcp::HttpOptions default_http() {
        agentskills::mcp::HttpOptions http;
        http.threads = 2;
        return http;
    }

    /// `http://127.0.0.1:PORT/mcp`.
    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port) + "/mcp"; }

    /// POSTs `body` (JSON) to /mcp with `headers`.
    httplib::Result post(const std::string& body, const httplib::Headers& headers = {}) const {
        httplib::Client client("127.0.0.1", port);
        return client.Post("/mcp", headers, body, "application/json");
    }

    /// post(), then its status and its body as JSON (`{}` for an empty body); the request must
    /// have been answered.
    std::pair<int, nlohmann::json> post_json(const std::string& body, const httplib::Headers& headers = {}) const {
        const httplib::Result r = post(body, headers);
        REQUIRE(r);
        return {r->status, nlohmann::json::parse(r->body.empty() ? "{}" : r->body)};
    }

    TempDir dir;
    std::unique_ptr<agentskills::mcp::Server> server;
    int port = 0;

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace agentskills_test

#endif  // AGENTSKILLS_HAVE_MCP
