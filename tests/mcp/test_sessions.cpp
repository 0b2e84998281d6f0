// Tests of the handshake era's HTTP sessions (mcp/server.hpp's HttpOptions session fields and
// activation/session_store.hpp): a session ends when idle, or when its client ends it, never
// because other clients opened sessions; caps refuse new sessions (429) instead of evicting old
// ones.
#ifdef AGENTSKILLS_HAVE_MCP

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/session_store.hpp>
#include <agentskills/mcp/server.hpp>

#include "support/http_fixture.hpp"
#include "support/session_replicas.hpp"

namespace mcp_session_tests {

using nlohmann::json;
using namespace agentskills;
using namespace std::chrono_literals;

namespace {

const char* INIT = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";
const char* PING = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";
const char* ACTIVATE =
    R"({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"activate_skill","arguments":{"name":"alpha"}}})";

struct SessionFixture : agentskills_test::McpHttpFixture {
    explicit SessionFixture(mcp::HttpOptions http)
        : McpHttpFixture({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}}, {},
                         std::move(http)) {}

    /// POST from the client address `from` (a loopback address of its own: another client).
    [[nodiscard]] httplib::Result post_from(const std::string& from, const std::string& body,
                                            const httplib::Headers& headers = {}) const {
        httplib::Client client("127.0.0.1", port);
        client.set_interface(from);
        return client.Post("/mcp", headers, body, "application/json");
    }
    /// `initialize` from `from`: the session id ("" when refused) and the status.
    std::pair<std::string, int> open(const std::string& from = "127.0.0.1") const {
        auto r = post_from(from, INIT);
        REQUIRE(r);
        return {r->get_header_value("Mcp-Session-Id"), r->status};
    }
    int ping(const std::string& session, const std::string& from = "127.0.0.1") const {
        auto r = post_from(from, PING, {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}});
        REQUIRE(r);
        return r->status;
    }
};

mcp::HttpOptions options(std::size_t per_client, std::size_t total, std::chrono::milliseconds idle = 30min) {
    mcp::HttpOptions http = agentskills_test::McpHttpFixture::default_http();
    http.max_sessions_per_client = per_client;
    http.max_sessions = total;
    http.session_idle_timeout = idle;
    return http;
}

}  // namespace

TEST_CASE("mcp sessions: other clients opening sessions never end one", "[mcp][http][sessions]") {
    // The old table dropped the least recently used session once 1,024 were open: any client
    // could end everyone else's. Now the many are refused and the one goes on.
    SessionFixture f(options(/*per_client=*/0, /*total=*/16));
    const auto [a, a_status] = f.open("127.0.0.1");
    REQUIRE(a_status == 200);
    REQUIRE(a.size() == 32);
    int opened = 0;
    int refused = 0;
    for (int i = 0; i < 40; ++i) {
        const auto [id, status] = f.open("127.0.0.2");
        if (status == 200) {
            ++opened;
        } else {
            CHECK(status == 429);
            CHECK(id.empty());
            ++refused;
        }
    }
    CHECK(opened == 15);
    CHECK(refused == 25);
    CHECK(f.ping(a) == 200);
}

TEST_CASE("mcp sessions: a client over its cap gets 429, others still open theirs", "[mcp][http][sessions]") {
    SessionFixture f(options(/*per_client=*/3, /*total=*/100));
    const auto [a, a_status] = f.open("127.0.0.1");
    REQUIRE(a_status == 200);
    std::vector<std::string> many;
    for (int i = 0; i < 3; ++i) {
        const auto [id, status] = f.open("127.0.0.2");
        CHECK(status == 200);
        many.push_back(id);
    }
    auto over = f.post_from("127.0.0.2", INIT);
    REQUIRE(over);
    CHECK(over->status == 429);
    CHECK(json::parse(over->body).at("error").at("code") == -32600);
    CHECK(f.ping(a) == 200);
    for (const auto& id : many) CHECK(f.ping(id, "127.0.0.2") == 200);
    // Ending one of its sessions lets that client open another.
    httplib::Client client("127.0.0.1", f.port);
    auto del = client.Delete("/mcp", {{"Mcp-Session-Id", many.front()}});
    REQUIRE(del);
    CHECK(del->status == 200);
    CHECK(f.open("127.0.0.2").second == 200);
    CHECK(f.open("127.0.0.3").second == 200);
}

TEST_CASE("mcp sessions: an idle session expires, a used one does not", "[mcp][http][sessions]") {
    constexpr auto idle_timeout = 1500ms;
    SessionFixture f(options(/*per_client=*/2, /*total=*/100, idle_timeout));
    const auto [idle, s1] = f.open();
    const auto [busy, s2] = f.open();
    const auto opened = std::chrono::steady_clock::now();
    REQUIRE(s1 == 200);
    REQUIRE(s2 == 200);
    CHECK(f.open().second == 429);  // two per client
    // `busy` is used every 100 ms until `idle` has gone unused for longer than the timeout: a
    // gap between two uses is far under the timeout, however late this thread is scheduled.
    while (std::chrono::steady_clock::now() - opened < idle_timeout + 300ms) {
        std::this_thread::sleep_for(100ms);
        CHECK(f.ping(busy) == 200);
    }
    CHECK(f.ping(idle) == 404);
    // The expired session no longer counts against its client.
    CHECK(f.open().second == 200);
    CHECK(f.ping(busy) == 200);
}

TEST_CASE("mcp sessions: activations belong to the session and survive the session cache", "[mcp][http][sessions]") {
    SessionFixture f(options(/*per_client=*/0, /*total=*/0));
    const auto [a, status] = f.open();
    REQUIRE(status == 200);
    const httplib::Headers headers = {{"Mcp-Session-Id", a}, {"MCP-Protocol-Version", "2025-11-25"}};
    auto first = f.post(ACTIVATE, headers);
    REQUIRE(first);
    CHECK(json::parse(first->body).at("result").at("content").at(0).at("text").get<std::string>().find("Body.") !=
          std::string::npos);
    // More sessions than the table keeps made: `a` is made again from the store.
    for (int i = 0; i < 200; ++i) REQUIRE(f.open().second == 200);
    auto second = f.post(ACTIVATE, headers);
    REQUIRE(second);
    CHECK(json::parse(second->body)
              .at("result")
              .at("content")
              .at(0)
              .at("text")
              .get<std::string>()
              .find("already active") != std::string::npos);
    // Another session starts with nothing active.
    const auto [b, b_status] = f.open();
    REQUIRE(b_status == 200);
    auto other = f.post(ACTIVATE, {{"Mcp-Session-Id", b}, {"MCP-Protocol-Version", "2025-11-25"}});
    REQUIRE(other);
    CHECK(json::parse(other->body).at("result").at("content").at(0).at("text").get<std::string>().find("Body.") !=
          std::string::npos);
}

TEST_CASE("mcp sessions: behind a trusted proxy, X-Forwarded-For names the client", "[mcp][http][sessions]") {
    mcp::HttpOptions http = options(/*per_client=*/2, /*total=*/64);
    http.trusted_proxies = {"127.0.0.1"};
    SessionFixture f(http);
    const auto open_as = [&](const std::string& from, const std::string& forwarded) {
        auto r = f.post_from(from, INIT, {{"X-Forwarded-For", forwarded}});
        REQUIRE(r);
        return r->status;
    };
    // Two clients behind the proxy, each with its own cap of 2.
    CHECK(open_as("127.0.0.1", "10.0.0.1") == 200);
    CHECK(open_as("127.0.0.1", "10.0.0.1") == 200);
    CHECK(open_as("127.0.0.1", "10.0.0.1") == 429);
    CHECK(open_as("127.0.0.1", "10.0.0.2") == 200);
    // What a client claims comes first; the proxy appends the address it saw last.
    CHECK(open_as("127.0.0.1", "10.0.0.2, 10.0.0.3") == 200);
    CHECK(open_as("127.0.0.1", "10.0.0.9,10.0.0.1") == 429);
    // A trusted hop is passed over.
    CHECK(open_as("127.0.0.1", "10.0.0.4, 127.0.0.1") == 200);
    // Not an address: the proxy's own address is counted.
    CHECK(open_as("127.0.0.1", "not-an-address") == 200);
    CHECK(open_as("127.0.0.1", "") == 200);
    CHECK(open_as("127.0.0.1", "unknown") == 429);
    // A peer that is not a trusted proxy is itself, whatever it forwards.
    CHECK(open_as("127.0.0.2", "10.0.0.5") == 200);
    CHECK(open_as("127.0.0.2", "10.0.0.6") == 200);
    CHECK(open_as("127.0.0.2", "10.0.0.7") == 429);
}

/// A MemorySessionStore whose `touch` waits while `slow` is set: a session store on a database
/// that is slow to answer.
class WaitingSessionStore final : public SessionStore {
public:
    SessionOpen open(std::string_view id, std::string_view version, std::string_view client,
                     const SessionLimits& limits) override {
        return inner_.open(id, version, client, limits);
    }
    std::optional<std::string> touch(std::string_view id, std::chrono::milliseconds idle_timeout) override {
        if (slow.load()) {
            ++waiting;
            std::this_thread::sleep_for(2s);
        }
        return inner_.touch(id, idle_timeout);
    }
    bool remove(std::string_view id) override { return inner_.remove(id); }
    ActivationStorePtr activations(std::string_view id) override { return inner_.activations(id); }

    std::atomic<bool> slow{false};
    std::atomic<int> waiting{0};  ///< calls of `touch` that waited

private:
    MemorySessionStore inner_;
};

TEST_CASE("mcp http: a request that waits on the session store holds no io thread", "[mcp][http][sessions]") {
    // One io thread. A session's request waits 2 s on the store; meanwhile a stateless
    // skills/list (answered on the io thread) and another session's ping are answered at once.
    auto store = std::make_shared<WaitingSessionStore>();
    mcp::HttpOptions http = options(0, 16);
    http.threads = 1;
    http.session_store = store;
    SessionFixture f(http);
    const auto [a, a_status] = f.open();
    REQUIRE(a_status == 200);
    store->slow = true;
    const std::string session = a;  // a lambda may not capture a structured binding (Clang 14)
    std::thread waiting([&] { CHECK(f.ping(session) == 200); });
    // Until the ping waits in touch() (it does for 2 s from then on).
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (store->waiting.load() == 0 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
    REQUIRE(store->waiting.load() == 1);
    const auto start = std::chrono::steady_clock::now();
    auto list = f.post(
        R"({"jsonrpc":"2.0","id":4,"method":"skills/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})",
        {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "skills/list"}});
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE(list);
    CHECK(list->status == 200);
    CHECK(json::parse(list->body).at("result").at("skills").size() == 1);
    CHECK(took < 1s);
    waiting.join();
}

TEST_CASE("MemorySessionStore: idle timeouts at the ends of their type", "[mcp][sessions]") {
    agentskills_test::check_extreme_idle_timeouts([] { return std::make_shared<MemorySessionStore>(); });
}

TEST_CASE("MemorySessionStore: caps, idle expiry and removal", "[mcp][sessions]") {
    MemorySessionStore store;
    // The steps before the wait take microseconds; the timeout leaves them a wide margin on a
    // loaded machine.
    const SessionLimits limits{.idle_timeout = 1500ms, .max_per_client = 2, .max_sessions = 3};
    CHECK(store.open("a", "2025-11-25", "c1", limits) == SessionOpen::opened);
    CHECK(store.open("b", "2025-11-25", "c1", limits) == SessionOpen::opened);
    CHECK(store.open("c", "2025-11-25", "c1", limits) == SessionOpen::client_full);
    CHECK(store.open("d", "2025-11-25", "c2", limits) == SessionOpen::opened);
    CHECK(store.open("e", "2025-11-25", "c3", limits) == SessionOpen::full);
    CHECK(store.touch("a", limits.idle_timeout) == "2025-11-25");
    CHECK_FALSE(store.touch("c", limits.idle_timeout).has_value());
    CHECK(store.activations("a") == store.activations("a"));
    CHECK(store.activations("a") != store.activations("b"));
    CHECK(store.remove("b"));
    CHECK_FALSE(store.remove("b"));
    CHECK(store.open("f", "2025-11-25", "c1", limits) == SessionOpen::opened);
    std::this_thread::sleep_for(limits.idle_timeout + 100ms);
    CHECK_FALSE(store.touch("a", limits.idle_timeout).has_value());
    CHECK(store.open("g", "2025-11-25", "c1", limits) == SessionOpen::opened);
    CHECK(store.size() == 1);
}

}  // namespace mcp_session_tests

#endif  // AGENTSKILLS_HAVE_MCP
