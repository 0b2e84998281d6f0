// Test support: two replicas of our MCP HTTP server (two serve_http loops, each with a session
// store of its own over one shared database, as two processes would have) and the checks every
// shared SessionStore must pass: a session opened on one continues on the other, activations
// happen once per session whichever replica answers, DELETE on one ends it on both, idle
// sessions expire, and the caps hold across replicas.
#pragma once

#ifdef AGENTSKILLS_HAVE_MCP

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/session_store.hpp>

#include "http_fixture.hpp"

namespace agentskills_test {

/// Makes a new store over the shared database (a new connection: what another process opens).
using SessionStoreFactory = std::function<agentskills::SessionStorePtr()>;

/// Idle timeouts at the ends of their type: `milliseconds::max()` keeps a session (the stores take
/// it as SESSION_MAX_IDLE_TIMEOUT; subtracted from the clock as it was, it overflowed and every
/// session ended at once, or the database refused the interval), and one below zero ends an idle
/// session as zero does.
inline void check_extreme_idle_timeouts(const SessionStoreFactory& make_store) {
    using namespace std::chrono_literals;
    using agentskills::SessionOpen;
    const agentskills::SessionStorePtr store = make_store();
    const agentskills::SessionLimits forever{.idle_timeout = std::chrono::milliseconds::max()};
    REQUIRE(store->open("extreme-a", "2025-11-25", "client", forever) == SessionOpen::opened);
    REQUIRE(store->open("extreme-b", "2025-11-25", "client", forever) == SessionOpen::opened);
    std::this_thread::sleep_for(20ms);
    CHECK(store->touch("extreme-a", std::chrono::milliseconds::max()) == "2025-11-25");
    CHECK(store->open("extreme-c", "2025-11-25", "client", forever) == SessionOpen::opened);
    CHECK(store->touch("extreme-b", std::chrono::milliseconds::max()) == "2025-11-25");
    static_assert(agentskills::bounded_idle_timeout(std::chrono::milliseconds::max()) ==
                  agentskills::SESSION_MAX_IDLE_TIMEOUT);
    std::this_thread::sleep_for(20ms);
    CHECK_FALSE(store->touch("extreme-a", std::chrono::milliseconds::min()).has_value());
    CHECK(store->touch("extreme-b", std::chrono::hours(1)) == "2025-11-25");
    CHECK(store->remove("extreme-b"));
    CHECK(store->remove("extreme-c"));
}

inline void check_replicated_sessions(const SessionStoreFactory& make_store) {
    using nlohmann::json;
    using namespace std::chrono_literals;
    const McpHttpFixture::Files files = {{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}};
    auto http = [&](std::chrono::milliseconds idle, std::size_t per_client) {
        agentskills::mcp::HttpOptions options = McpHttpFixture::default_http();
        options.session_store = make_store();
        options.session_idle_timeout = idle;
        options.max_sessions_per_client = per_client;
        return options;
    };
    const char* init = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";
    const char* activate =
        R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"activate_skill","arguments":{"name":"alpha"}}})";
    const auto text_of = [](const httplib::Result& r) {
        REQUIRE(r);
        REQUIRE(r->status == 200);
        return json::parse(r->body).at("result").at("content").at(0).at("text").get<std::string>();
    };
    const auto headers = [](const std::string& id) {
        return httplib::Headers{{"Mcp-Session-Id", id}, {"MCP-Protocol-Version", "2025-11-25"}};
    };

    {
        McpHttpFixture a(files, {}, http(30min, 3));
        McpHttpFixture b(files, {}, http(30min, 3));
        auto opened = a.post(init);
        REQUIRE(opened);
        REQUIRE(opened->status == 200);
        const std::string id = opened->get_header_value("Mcp-Session-Id");
        REQUIRE(id.size() == 32);
        // The session continues on the other replica, and was negotiated at 2025-11-25.
        auto listed = b.post(R"({"jsonrpc":"2.0","id":2,"method":"skills/list"})", headers(id));
        REQUIRE(listed);
        CHECK(listed->status == 200);
        CHECK(json::parse(listed->body).at("result").at("skills").size() == 1);
        // Activated once, whichever replica answers.
        CHECK(text_of(b.post(activate, headers(id))).find("Body.") != std::string::npos);
        CHECK(text_of(a.post(activate, headers(id))).find("already active") != std::string::npos);
        CHECK(text_of(b.post(activate, headers(id))).find("already active") != std::string::npos);
        // The per-client cap counts the sessions of every replica.
        REQUIRE(b.post(init)->status == 200);
        REQUIRE(a.post(init)->status == 200);
        auto over = b.post(init);
        REQUIRE(over);
        CHECK(over->status == 429);
        // DELETE on one replica ends the session on both.
        httplib::Client client("127.0.0.1", a.port);
        auto del = client.Delete("/mcp", headers(id));
        REQUIRE(del);
        CHECK(del->status == 200);
        auto gone = b.post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})", headers(id));
        REQUIRE(gone);
        CHECK(gone->status == 404);
        // Its place is free again (3 per client), and only once.
        CHECK(a.post(init)->status == 200);
        auto fourth = b.post(init);
        REQUIRE(fourth);
        CHECK(fourth->status == 429);
    }
    {
        // Idle expiry in the shared store: the session unused for 700 ms is gone on both.
        McpHttpFixture a(files, {}, http(700ms, 0));
        McpHttpFixture b(files, {}, http(700ms, 0));
        auto idle = a.post(init);
        auto busy = a.post(init);
        REQUIRE(idle);
        REQUIRE(busy);
        const std::string idle_id = idle->get_header_value("Mcp-Session-Id");
        const std::string busy_id = busy->get_header_value("Mcp-Session-Id");
        CHECK(text_of(a.post(activate, headers(idle_id))).find("Body.") != std::string::npos);
        for (int i = 0; i < 6; ++i) {
            std::this_thread::sleep_for(250ms);
            auto ping = (i % 2 == 0 ? a : b).post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", headers(busy_id));
            REQUIRE(ping);
            CHECK(ping->status == 200);
        }
        auto expired = b.post(R"({"jsonrpc":"2.0","id":6,"method":"ping"})", headers(idle_id));
        REQUIRE(expired);
        CHECK(expired->status == 404);
        auto again = a.post(R"({"jsonrpc":"2.0","id":7,"method":"ping"})", headers(idle_id));
        REQUIRE(again);
        CHECK(again->status == 404);
    }
}

}  // namespace agentskills_test

#endif  // AGENTSKILLS_HAVE_MCP
