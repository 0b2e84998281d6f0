// The MCP server's Streamable HTTP transport on loopback: status codes, Origin, sessions, headers.
#ifdef AGENTSKILLS_HAVE_MCP

#include <chrono>
#include <memory>
#include <string>

#include <httplib.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/mcp/server.hpp>

#include "fs_fixtures.hpp"
#include "support/http_fixture.hpp"

using nlohmann::json;
using namespace agentskills;

namespace {

const char* INIT = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})";
const char* MODERN_LIST =
    R"({"jsonrpc":"2.0","id":2,"method":"skills/list","params":{"_meta":{)"
    R"("io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";

/// One skill, and one allowed Origin besides loopback.
struct HttpFixture : agentskills_test::McpHttpFixture {
    HttpFixture()
        : McpHttpFixture({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}}, {}, http()) {}

    static mcp::HttpOptions http() {
        mcp::HttpOptions options = default_http();
        options.allowed_origins = {"https://app.example"};
        return options;
    }
};

}  // namespace

TEST_CASE("mcp http: handshake sessions, notifications and errors", "[mcp][http]") {
    HttpFixture f;
    auto init = f.post(INIT);
    REQUIRE(init);
    CHECK(init->status == 200);
    const std::string session = init->get_header_value("Mcp-Session-Id");
    CHECK(session.size() == 32);
    CHECK(json::parse(init->body).at("result").at("protocolVersion") == "2025-11-25");

    const httplib::Headers with_session = {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2025-11-25"}};
    auto note = f.post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", with_session);
    REQUIRE(note);
    CHECK(note->status == 202);
    CHECK(note->body.empty());
    auto list = f.post(R"({"jsonrpc":"2.0","id":2,"method":"skills/list"})", with_session);
    REQUIRE(list);
    CHECK(list->status == 200);
    CHECK(json::parse(list->body).at("result").at("skills").size() == 1);

    // Without a session the handshake era is not initialized; an unknown session is 404.
    auto no_session = f.post(R"({"jsonrpc":"2.0","id":3,"method":"skills/list"})");
    REQUIRE(no_session);
    CHECK(no_session->status == 400);
    CHECK(json::parse(no_session->body).at("error").at("code") == -32600);
    auto unknown = f.post(R"({"jsonrpc":"2.0","id":4,"method":"ping"})", {{"Mcp-Session-Id", "feed"}});
    REQUIRE(unknown);
    CHECK(unknown->status == 404);

    auto parse_error = f.post("{oops", with_session);
    REQUIRE(parse_error);
    CHECK(parse_error->status == 400);
    CHECK(json::parse(parse_error->body).at("error").at("code") == -32700);

    // A session ends with DELETE.
    httplib::Client client("127.0.0.1", f.port);
    auto del = client.Delete("/mcp", {{"Mcp-Session-Id", session}});
    REQUIRE(del);
    CHECK(del->status == 200);
    auto after = f.post(R"({"jsonrpc":"2.0","id":5,"method":"ping"})", with_session);
    REQUIRE(after);
    CHECK(after->status == 404);
    auto get = client.Get("/mcp");
    REQUIRE(get);
    CHECK(get->status == 405);
}

TEST_CASE("mcp http: Origin, media type and size bounds", "[mcp][http]") {
    HttpFixture f;
    for (const char* ok : {"http://localhost:3000", "http://127.0.0.1", "https://[::1]:8443", "https://app.example"}) {
        auto r = f.post(INIT, {{"Origin", ok}});
        REQUIRE(r);
        CHECK(r->status == 200);
    }
    for (const char* bad : {"http://evil.example", "null", "http://localhost.evil.example", "http://127.0.0.1:80x"}) {
        auto r = f.post(INIT, {{"Origin", bad}});
        REQUIRE(r);
        CHECK(r->status == 403);
    }
    httplib::Client client("127.0.0.1", f.port);
    auto text = client.Post("/mcp", INIT, "text/plain");
    REQUIRE(text);
    CHECK(text->status == 415);
    auto big = client.Post("/mcp", std::string(mcp::DEFAULT_MAX_MESSAGE_BYTES + 1, ' '), "application/json");
    REQUIRE(big);
    CHECK(big->status == 413);
}

TEST_CASE("mcp http: the stateless era checks its headers", "[mcp][http]") {
    HttpFixture f;
    auto ok = f.post(MODERN_LIST, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "skills/list"}});
    REQUIRE(ok);
    CHECK(ok->status == 200);
    CHECK(ok->get_header_value("Mcp-Session-Id").empty());
    CHECK(json::parse(ok->body).at("result").at("resultType") == "complete");

    auto mismatch = f.post(MODERN_LIST, {{"MCP-Protocol-Version", "2025-11-25"}});
    REQUIRE(mismatch);
    CHECK(mismatch->status == 400);
    CHECK(json::parse(mismatch->body).at("error").at("code") == -32020);
    auto method = f.post(MODERN_LIST, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "tools/list"}});
    REQUIRE(method);
    CHECK(method->status == 400);

    std::string unknown = MODERN_LIST;
    unknown.replace(unknown.find("skills/list"), 11, "no/such");
    auto not_found = f.post(unknown, {{"MCP-Protocol-Version", "2026-07-28"}});
    REQUIRE(not_found);
    CHECK(not_found->status == 404);
    CHECK(json::parse(not_found->body).at("error").at("code") == -32601);

    std::string old = MODERN_LIST;
    old.replace(old.find("2026-07-28"), 10, "1900-01-01");
    auto unsupported = f.post(old, {{"MCP-Protocol-Version", "1900-01-01"}});
    REQUIRE(unsupported);
    CHECK(unsupported->status == 400);
    CHECK(json::parse(unsupported->body).at("error").at("code") == -32022);
}

#endif  // AGENTSKILLS_HAVE_MCP
