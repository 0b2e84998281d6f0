// Tests of mcp/client.hpp: the MCP client, its transports and its verifying loader.
// One file per public header; the hostile cases are sections of it.
#ifdef AGENTSKILLS_HAVE_MCP
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <httplib.h>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/diagnostic_codes.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/mcp/client.hpp>
#include <agentskills/mcp/server.hpp>
#include <agentskills/storage/reader.hpp>

#include "fs_fixtures.hpp"
#include "src/mcp/client/client_internal.hpp"
#include "src/mcp/shared/internal.hpp"
#include "support/http_fixture.hpp"

// =======================================================================================
// The MCP client as a skill source: command lines, URI checks, both transports and eras against

namespace mcp_client_tests {

using namespace std::string_literals;

using nlohmann::json;
using namespace agentskills;

namespace {

const std::string HOSTILE = std::string(AGENTSKILLS_SOURCE_DIR) + "/tests/mcp/hostile_server.py";

/// Loader options for the tests: a request timeout far above any answer's time on a loaded machine
/// (the tests are driven by the servers' answers; only the stall case waits for a timeout).
mcp::McpLoaderOptions quick(std::chrono::milliseconds timeout = std::chrono::milliseconds(60'000)) {
    mcp::McpLoaderOptions o;
    o.transport.timeout = timeout;
    return o;
}

std::shared_ptr<mcp::McpSkillLoader> hostile(const std::string& mode, mcp::McpLoaderOptions options = quick()) {
    return std::make_shared<mcp::McpSkillLoader>(
        std::vector<mcp::ServerSource>{{.label = "hostile", .command = {"python3", HOSTILE, mode}}}, options);
}

std::vector<std::string> names(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

/// The check named by each mcp-verification-failed diagnostic, by URI.
std::map<std::string, std::string> refusals(const Discovery& d) {
    std::map<std::string, std::string> out;
    for (const auto& diag : d.diagnostics) {
        if (diag.code != codes::mcp_verification_failed) continue;
        const std::size_t at = diag.message.find("the check '");
        REQUIRE(at != std::string::npos);
        const std::size_t from = at + 11;
        out[diag.path] = diag.message.substr(from, diag.message.find('\'', from) - from);
    }
    return out;
}

std::size_t count_code(const Discovery& d, std::string_view code) {
    return static_cast<std::size_t>(
        std::count_if(d.diagnostics.begin(), d.diagnostics.end(), [&](const Diagnostic& x) { return x.code == code; }));
}

}  // namespace

TEST_CASE("mcp client: command lines split on white space with double quotes", "[mcp][client]") {
    CHECK(mcp::split_command_line("  node  server.mjs --root /x ") ==
          std::vector<std::string>{"node", "server.mjs", "--root", "/x"});
    CHECK(mcp::split_command_line(R"(a "b c" d"e f"g "" "q\"x\\y" $HOME *)") ==
          std::vector<std::string>{"a", "b c", "de fg", "", "q\"x\\y", "$HOME", "*"});
    CHECK(mcp::split_command_line(R"(a\b 'c d')") == std::vector<std::string>{"a\\b", "'c", "d'"});
    CHECK_THROWS_AS(mcp::split_command_line("a \"b"), ConfigurationError);
    CHECK_THROWS_AS(mcp::split_command_line("   "), ConfigurationError);
    CHECK_THROWS_AS(mcp::split_command_line("\"\" x"), ConfigurationError);
}

TEST_CASE("mcp client: only clean skill:// URIs are accepted", "[mcp][client]") {
    std::string why;
    auto segments = [&](std::string_view uri) {
        auto u = mcp::client_detail::parse_skill_uri(uri, why);
        REQUIRE(u);
        return u->segments;
    };
    CHECK(segments("skill://a/SKILL.md") == std::vector<std::string>{"a", "SKILL.md"});
    CHECK(segments("skill://team/a/Q%26A%20x.md") == std::vector<std::string>{"team", "a", "Q&A x.md"});
    CHECK(segments("skill://a/caf\xc3\xa9.md") == std::vector<std::string>{"a", "caf\xc3\xa9.md"});
    for (const char* bad :
         {"skill://",      "skill:///a",       "skill://a//b",    "skill://a/",      "skill://../a",   "skill://a/../b",
          "skill://a/./b", "skill://%2e%2e/a", "skill://a/%2E/b", "skill://a%2Fb/c", "skill://a%2fb",  "skill://a%5Cb",
          "skill://a%00b", "skill://a%0ab",    "skill://a/b?x",   "skill://a/b#f",   "skill://u@h/a",  "skill://h:80/a",
          "file:///a",     "SKILL://a/b",      "skill:a/b",       "skill://a b/c",   "skill://a/b%zz", "skill://a/b%",
          "skill://a/%ff", "skill://a\\b",     "skill://a\"b"}) {
        INFO(bad);
        CHECK_FALSE(mcp::client_detail::parse_skill_uri(bad, why));
        CHECK_FALSE(why.empty());
    }
    CHECK_FALSE(mcp::client_detail::parse_skill_uri("skill://" + std::string(1100, 'a'), why));
}

TEST_CASE("mcp client: SSE bodies give their JSON-RPC messages", "[mcp][client]") {
    const auto messages = mcp::client_detail::parse_sse(
        ": comment\r\nevent: message\r\nid: 1\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n\r\n"
        "data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":7,\"result\":{}}\n\nevent: empty\n\n");
    REQUIRE(messages.size() == 2);
    CHECK(messages[1] == json{{"jsonrpc", "2.0"}, {"id", 7}, {"result", json::object()}});
    CHECK(mcp::client_detail::reply_to(messages[1], 7) == mcp::client_detail::Reply::answer);
    CHECK(mcp::client_detail::reply_to(messages[0], 7) == mcp::client_detail::Reply::unrelated);
    CHECK_THROWS_AS(mcp::client_detail::parse_sse("data: nope\n\n"), mcp::ClientError);
    CHECK_THROWS_AS(mcp::client_detail::parse_message(std::string(100, '[') + std::string(100, ']')), mcp::ClientError);
    CHECK_THROWS_AS(mcp::client_detail::parse_message(R"({"jsonrpc":"1.0","id":1,"result":{}})"), mcp::ClientError);
    // A key twice in one object: which member counts is the reader's guess, so none is taken.
    CHECK_THROWS_WITH(mcp::client_detail::parse_message(R"({"jsonrpc":"2.0","id":1,"id":2,"result":{}})"),
                      "the server sent a message with the key \"id\" twice in one object");
    CHECK_THROWS_WITH(
        mcp::client_detail::parse_message(R"({"jsonrpc":"2.0","id":1,"result":{"skills":[],"skills":[{}]}})"),
        "the server sent a message with the key \"skills\" twice in one object");
    CHECK(mcp::client_detail::parse_message(R"({"jsonrpc":"2.0","id":1,"result":{"a":{"id":2}}})")["id"] == 1);
}

TEST_CASE("mcp client: round trip through `agentskills mcp` over stdio, each era pinned", "[mcp][client]") {
    const std::string cli = AGENTSKILLS_CLI_PATH;
    if (cli.empty()) return;
    const std::string library = std::string(AGENTSKILLS_TEST_DATA_DIR) + "/library";
    auto local = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {library}, .include_default_roots = false});
    const Discovery expected = local->discover();
    REQUIRE(expected.skills.size() >= 3);
    for (const auto era : {mcp::ProtocolEra::v2026_07_28, mcp::ProtocolEra::v2025_11_25, mcp::ProtocolEra::automatic}) {
        mcp::McpLoaderOptions options = quick();
        options.era = era;
        options.trust_allowed_tools = true;
        mcp::McpSkillLoader loader({{.label = "ours", .command = {cli, "mcp", "--root", library}}}, options);
        const Discovery got = loader.discover();
        CHECK(count_code(got, codes::mcp_verification_failed) == 0);
        CHECK(count_code(got, codes::mcp_server_error) == 0);
        REQUIRE(names(got) == names(expected));
        for (const auto& m : expected.skills) {
            INFO(m.name);
            const LoadedSkill mine = loader.load(m.name);
            const LoadedSkill theirs = local->load(m.name);
            CHECK(mine.instructions == theirs.instructions);
            CHECK(mine.resources == theirs.resources);
            CHECK(mine.manifest.description == theirs.manifest.description);
            CHECK(mine.manifest.allowed_tools == theirs.manifest.allowed_tools);
            CHECK(mine.manifest.library == "mcp:ours");
            CHECK(mine.manifest.root == "skill://" + m.name);
            CHECK(mine.manifest.skill_file == "skill://" + m.name + "/SKILL.md");
            // Every file reads back through the verifying reader with the local bytes.
            const SkillReaderPtr reader = loader.reader_for(m.name);
            REQUIRE(reader);
            for (const auto& r : mine.resources) {
                CHECK(reader->read_file(mine.manifest.root + "/" + r.path, 0).data ==
                      local->reader()->read_file(theirs.manifest.root + "/" + r.path, 0).data);
            }
        }
    }
}

namespace {

/// Two skills (one with a file), listed one per page.
struct HttpServer : agentskills_test::McpHttpFixture {
    HttpServer()
        : McpHttpFixture(
              {{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nAlpha body.\n"},
               {"lib/alpha/references/a.md", "A\n"},
               {"lib/beta/SKILL.md", "---\nname: beta\ndescription: Second.\nversion: 1.0\n---\nBeta body.\n"}},
              options()) {}

    static mcp::ServerOptions options() {
        mcp::ServerOptions o;
        o.page_size = 1;
        return o;
    }
};

}  // namespace

TEST_CASE("mcp client: Streamable HTTP against our server, both eras, paged", "[mcp][client][http]") {
    HttpServer s;
    for (const auto era : {mcp::ProtocolEra::v2026_07_28, mcp::ProtocolEra::v2025_11_25}) {
        mcp::McpLoaderOptions options = quick();
        options.era = era;
        mcp::McpSkillLoader loader({{.label = "web", .url = "http://127.0.0.1:" + std::to_string(s.port) + "/mcp"}},
                                   options);
        const Discovery d = loader.discover();
        CHECK(d.diagnostics.empty());
        CHECK(names(d) == std::vector<std::string>{"alpha", "beta"});
        const LoadedSkill alpha = loader.load("alpha");
        CHECK(alpha.instructions == "Alpha body.");
        CHECK(alpha.resources == std::vector<SkillResource>{{"references/a.md"}});
        CHECK(loader.reader_for("alpha")->read_file("skill://alpha/references/a.md", 0).data == "A\n");
        CHECK(loader.load("beta").manifest.version == "1.0");
    }
    CHECK_THROWS_AS(mcp::make_http_transport("https://127.0.0.1/mcp"), ConfigurationError);
    CHECK_THROWS_AS(mcp::make_http_transport("ftp://x/"), ConfigurationError);
    CHECK_THROWS_AS(mcp::make_http_transport("http://a b/"), ConfigurationError);
    CHECK_THROWS_AS(mcp::make_http_transport("http://h:99999/"), ConfigurationError);
}

TEST_CASE("mcp client: an event-stream answer and the session id", "[mcp][client][http]") {
    httplib::Server http;
    std::atomic<int> with_session{0};
    http.Post("/mcp", [&](const httplib::Request& req, httplib::Response& res) {
        const json msg = json::parse(req.body);
        if (!msg.contains("id")) {
            res.status = 202;
            return;
        }
        if (req.get_header_value("Mcp-Session-Id") == "s-1") ++with_session;
        res.set_header("Mcp-Session-Id", "s-1");
        const std::string method = msg["method"];
        json result = json::object();
        if (method == "server/discover") {
            res.status = 200;
            res.set_content(
                json{{"jsonrpc", "2.0"}, {"id", msg["id"]}, {"error", {{"code", -32601}, {"message", "no"}}}}.dump(),
                "application/json");
            return;
        }
        if (method == "initialize") result = {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}};
        if (method == "skills/list") result = {{"skills", json::array()}};
        const std::string body =
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n"
            "event: message\ndata: " +
            json{{"jsonrpc", "2.0"}, {"id", msg["id"]}, {"result", result}}.dump() + "\n\n";
        res.set_content(body, "text/event-stream");
    });
    const int port = http.bind_to_any_port("127.0.0.1");
    std::thread t([&] { http.listen_after_bind(); });
    {
        mcp::Client client(
            mcp::make_http_transport("http://127.0.0.1:" + std::to_string(port) + "/mcp", quick().transport));
        CHECK(client.call("skills/list") == json{{"skills", json::array()}});
        CHECK(client.era() == mcp::ProtocolEra::v2025_11_25);
        CHECK(with_session.load() >= 2);  // notifications/initialized is not counted; skills/list is
    }
    http.stop();
    t.join();
}

TEST_CASE("mcp client: every lie of a hostile server is refused, honest skills load", "[mcp][client][hostile]") {
    auto loader = hostile("lies");
    const Discovery d = loader->discover();
    CHECK(names(d) == std::vector<std::string>{"alpha", "beta", "team-a:dup", "team-b:dup", "lying-file"});
    const std::map<std::string, std::string> expected = {
        {"skill://bad-digest/SKILL.md", "file-digest"}, {"skill://bad-size/SKILL.md", "file-size"},
        {"skill://bad-name/SKILL.md", "name"},          {"skill://bad-frontmatter/SKILL.md", "frontmatter"},
        {"skill://too-many/SKILL.md", "file-count"},    {"skill://too-big/SKILL.md", "total-size"},
        {"skill://../escape/SKILL.md", "uri"},          {"skill://a/../escape/SKILL.md", "uri"},
        {"skill://%2e%2e/escape/SKILL.md", "uri"},      {"skill://a%2Fescape/SKILL.md", "uri"},
        {"file:///etc/escape/SKILL.md", "uri"},         {"skill://escape/SKILL.md?x=1", "uri"},
        {"skill://escape/SKILL.md#f", "uri"},           {"skill://a//escape/SKILL.md", "uri"},
        {"skill://user@host/escape/SKILL.md", "uri"},   {"SKILL://escape/SKILL.md", "uri"},
        {"skill://./escape/SKILL.md", "uri"},           {"skill://outside/SKILL.md", "file-uri"},
        {"skill://other-content/SKILL.md", "content"},  {"skill://no-skill-md/SKILL.md", "skill-file-unlisted"},
        {"skill://beta/SKILL.md", "duplicate-uri"},
    };
    CHECK(refusals(d) == expected);
    CHECK(d.skipped.size() == expected.size());
    for (const auto& diag : d.diagnostics) {
        if (diag.code == codes::mcp_verification_failed) {
            CHECK(diag.message.rfind("MCP server 'hostile': skill " + diag.path + " refused: the check '", 0) == 0);
        }
    }
    CHECK(count_code(d, codes::mcp_name_qualified) == 2);
    CHECK(count_code(d, codes::mcp_server_error) == 0);

    // allowed-tools from a server is dropped unless the host opts in.
    CHECK(loader->load("alpha").manifest.allowed_tools.empty());
    mcp::McpLoaderOptions trusting = quick();
    trusting.trust_allowed_tools = true;
    auto trusted = hostile("lies", trusting);
    (void)trusted->discover();
    CHECK(trusted->load("alpha").manifest.allowed_tools == std::vector<std::string>{"Bash"});

    // The activation text gives skill:// URIs, never a local path.
    const LoadedSkill alpha = loader->load("alpha");
    CHECK(render_activation_text(alpha) ==
          std::string("<skill_content name=\"alpha\">\n# alpha\n\nAlpha body with "
                      "$ARGUMENTS.\n\nSkill directory: skill://alpha\n") +
              std::string(SKILL_DIRECTORY_NOTE) +
              "\n\nSource: the MCP server \"hostile\".\n\n<skill_resources>\n  <file path=\"scripts/run.sh\" "
              "read_path=\"skill://alpha/scripts/run.sh\" />\n</skill_resources>\n"
              "</skill_content>");
    CHECK(loader->in_run_workspace("alpha"));

    // A listed file whose bytes lie is refused when it is read; an unlisted path is not read.
    const SkillReaderPtr reader = loader->reader_for("lying-file");
    REQUIRE(reader);
    try {
        (void)reader->read_file("skill://lying-file/scripts/run.sh", 0);
        FAIL("a lying file was read");
    } catch (const IoError& e) {
        CHECK(std::string(e.what()).find("the check 'file-size' failed") != std::string::npos);
    }
    CHECK_THROWS_AS(reader->read_file("skill://lying-file/../alpha/SKILL.md", 0), NotFoundError);
    CHECK_THROWS_AS(reader->read_file("/etc/passwd", 0), NotFoundError);
    CHECK(reader->read_file("skill://alpha/scripts/run.sh", 5).data == "echo ");
    CHECK(reader->stat("skill://alpha/scripts").kind == EntryKind::directory);
    const auto children = reader->list_dir("skill://alpha");
    REQUIRE(children.size() == 2);
    CHECK(children[0].name == "SKILL.md");
    CHECK(children[1].name == "scripts");
    CHECK(children[1].kind == EntryKind::directory);
    CHECK(loader->reader_for("bad-digest") == nullptr);
    CHECK_THROWS_AS(loader->load("bad-digest"), NotFoundError);
    CHECK(loader->load("team-b:dup").manifest.description == "Dup from team-b.");
}

TEST_CASE("mcp client: a failing server is skipped with a clean error, nothing hangs", "[mcp][client][hostile]") {
    // Every case but the stall is driven by what the bad server does; the timeout is far above any
    // answer's time. The stall needs the timeout to fire (2 s), and every request to the honest
    // server beside it must meet it too: that server runs in this process (our HTTP server), so
    // no process start counts against it (a python3 server missed 2 s under a load of 12). If the
    // bad server's own start takes longer, the timeout still fires, on its first request.
    struct Case {
        std::string mode;
        std::string says;
        std::chrono::milliseconds timeout = std::chrono::milliseconds(60'000);
    };
    const std::vector<Case> cases = {
        {"stall", "no answer within 2000 ms", std::chrono::milliseconds(2'000)},
        {"die", "closed its output in the middle of a message"},
        {"garbage", "not JSON"},
        {"huge", "a message longer than 1048576 bytes"},
        {"error", "error -32603: Internal error"},
        {"cursor-loop", "a nextCursor it had given before"},
    };
    HttpServer honest;  // alpha and beta
    for (const auto& c : cases) {
        INFO(c.mode);
        mcp::McpLoaderOptions options = quick(c.timeout);
        options.transport.max_message_bytes = 1024 * 1024;
        const auto start = std::chrono::steady_clock::now();
        // The failing server next to an honest one: the honest skills still load.
        mcp::McpSkillLoader loader(
            {{.label = "bad", .command = {"python3", HOSTILE, c.mode}},
             {.label = "good", .url = "http://127.0.0.1:" + std::to_string(honest.port) + "/mcp"}},
            options);
        const Discovery d = loader.discover();
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(300));  // nothing hangs
        REQUIRE(count_code(d, codes::mcp_server_error) == 1);
        const auto& diag = *std::find_if(d.diagnostics.begin(), d.diagnostics.end(),
                                         [](const Diagnostic& x) { return x.code == codes::mcp_server_error; });
        CHECK(diag.path == "mcp:bad");
        CHECK(diag.message.rfind("MCP server 'bad': ", 0) == 0);
        CHECK(diag.message.find(c.says) != std::string::npos);
        if (c.mode == "cursor-loop") {
            // The first page was honest: its skill is kept, qualified against the other server's.
            CHECK(names(d) == std::vector<std::string>{"bad:alpha", "good:alpha", "beta"});
        } else {
            CHECK(names(d) == std::vector<std::string>{"alpha", "beta"});
        }
    }
}

TEST_CASE("mcp client: paging, the eras and a server that cannot start", "[mcp][client][hostile]") {
    const Discovery paged = hostile("paged")->discover();
    CHECK(names(paged) == std::vector<std::string>{"alpha", "beta", "page-0", "page-1", "page-2", "page-3"});

    mcp::McpLoaderOptions few = quick();
    few.max_pages = 2;
    const Discovery cut = hostile("paged", few)->discover();
    CHECK(names(cut) == std::vector<std::string>{"alpha", "beta", "page-0", "page-1"});
    CHECK(count_code(cut, codes::mcp_server_error) == 1);

    few = quick();
    few.max_entries = 3;
    CHECK(names(hostile("paged", few)->discover()) == std::vector<std::string>{"alpha", "beta", "page-0"});

    CHECK(names(hostile("legacy")->discover()) == std::vector<std::string>{"alpha", "beta"});
    CHECK(names(hostile("modern")->discover()) == std::vector<std::string>{"alpha", "beta"});
    mcp::McpLoaderOptions pinned = quick();
    pinned.era = mcp::ProtocolEra::v2026_07_28;
    const Discovery refused = hostile("legacy", pinned)->discover();
    CHECK(refused.skills.empty());
    CHECK(count_code(refused, codes::mcp_server_error) == 1);

    {
        mcp::Client client(mcp::make_stdio_transport({"python3", HOSTILE, "legacy"}, quick().transport));
        (void)client.call("skills/list");
        CHECK(client.era() == mcp::ProtocolEra::v2025_11_25);
        CHECK_THROWS_AS(client.call("nope/nope"), mcp::ServerError);
        CHECK(client.call("skills/list").at("skills").size() == 2);  // a JSON-RPC error leaves the session usable
    }

    mcp::McpSkillLoader missing({{.label = "gone", .command = {"/nonexistent/agentskills-mcp-server"}}}, quick());
    const Discovery none = missing.discover();
    CHECK(none.skills.empty());
    REQUIRE(none.diagnostics.size() == 1);
    CHECK(none.diagnostics[0].code == codes::mcp_server_error);
    CHECK(none.diagnostics[0].message.find("cannot start") != std::string::npos);

    using Sources = std::vector<mcp::ServerSource>;
    CHECK_THROWS_AS(mcp::McpSkillLoader(Sources{{.label = "", .command = {"x"}}}), ConfigurationError);
    CHECK_THROWS_AS(mcp::McpSkillLoader(Sources{{.label = "a", .command = {"x"}, .url = "http://h/"}}),
                    ConfigurationError);
    CHECK_THROWS_AS(mcp::McpSkillLoader(Sources{{.label = "a", .command = {"x"}}, {.label = "a", .command = {"y"}}}),
                    ConfigurationError);
}

// ---- Hardening III: the 2026-07-28 request headers, exact ids, cursor cycles, a stdio server's
// stderr and what it leaves running.

TEST_CASE("mcp client: Mcp-Name values are plain header-safe ASCII or base64 sentinels", "[mcp][client][http]") {
    using mcp::detail::header_value;
    // The examples of the transport's "Value Encoding" table.
    CHECK(header_value("us-west1") == "us-west1");
    CHECK(header_value("Hello, \xe4\xb8\x96\xe7\x95\x8c") == "=?base64?SGVsbG8sIOS4lueVjA==?=");
    CHECK(header_value(" padded ") == "=?base64?IHBhZGRlZCA=?=");
    CHECK(header_value("line1\nline2") == "=?base64?bGluZTEKbGluZTI=?=");
    CHECK(header_value("=?base64?literal?=") == "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
    // Space and tab inside a value are plain; at either end, like any other control or byte, not.
    CHECK(header_value("file:///projects/myapp/config.json") == "file:///projects/myapp/config.json");
    CHECK(header_value("a b\tc") == "a b\tc");
    CHECK(header_value("\tx") == "=?base64?CXg=?=");
    CHECK(header_value("x ") == "=?base64?eCA=?=");
    CHECK(header_value("a\x7f") == "=?base64?YX8=?=");
    CHECK(header_value("a\0b"s) == "=?base64?YQBi?=");
    CHECK(header_value("=?base64?=") == "=?base64?PT9iYXNlNjQ/PQ==?=");  // prefix and suffix overlap
    CHECK(header_value("=?base64?x") == "=?base64?x");                   // no suffix: not the pattern
    CHECK(header_value("x?=") == "x?=");
    CHECK(header_value("") == "");
    // What the server reads back (decode_header_value, the same helpers): every value round-trips.
    using mcp::detail::decode_header_value;
    for (const std::string& v : {"us-west1"s, "Hello, \xe4\xb8\x96\xe7\x95\x8c"s, " padded "s, "a\0b"s,
                                 "=?base64?literal?="s, "=?base64?="s, ""s}) {
        CHECK(decode_header_value(header_value(v)) == v);
    }
    CHECK(!decode_header_value("=?base64?not base64!?="));
}

namespace {

std::string skill_md(const std::string& name) {
    return "---\nname: " + name + "\ndescription: The skill " + name + ".\n---\n" + name + " body.\n";
}

/// A `skills/list` entry for `base` (`skill://.../NAME`) whose only file is skill_md(NAME).
json listed(const std::string& base, const std::string& name) {
    const std::string text = skill_md(name);
    return {{"uri", base + "/SKILL.md"},
            {"frontmatter", {{"name", name}, {"description", "The skill " + name + "."}}},
            {"resources",
             {{{"uri", base + "/SKILL.md"}, {"digest", mcp::detail::sha256_digest(text)}, {"size", text.size()}}}}};
}

/// A test's own Streamable HTTP server on 127.0.0.1, answering each POSTed message with
/// `answer(message, request)` (a body and its content type).
class TestHttpServer {
public:
    using Answer = std::function<std::pair<std::string, std::string>(const json&, const httplib::Request&)>;
    explicit TestHttpServer(Answer answer) : answer_(std::move(answer)) {
        http_.Post("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
            const json message = json::parse(req.body);
            if (!message.contains("id")) {
                res.status = 202;
                return;
            }
            auto [body, type] = answer_(message, req);
            res.status = type.empty() ? 400 : 200;
            res.set_content(body, type.empty() ? "application/json" : type);
        });
        port_ = http_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { http_.listen_after_bind(); });
    }
    TestHttpServer(const TestHttpServer&) = delete;
    TestHttpServer& operator=(const TestHttpServer&) = delete;
    ~TestHttpServer() {
        http_.stop();
        thread_.join();
    }
    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }

private:
    Answer answer_;
    httplib::Server http_;
    int port_ = 0;
    std::thread thread_;
};

json response(const json& message, json result) {
    return {{"jsonrpc", "2.0"}, {"id", message.at("id")}, {"result", std::move(result)}};
}

}  // namespace

TEST_CASE("mcp client: 2026-07-28 requests carry MCP-Protocol-Version and Mcp-Method and Mcp-Name",
          "[mcp][client][http]") {
    // A server that checks the standard request headers as the SDK's createMcpHandler does: a
    // missing or different header is -32020 (HTTP 400). It records what each request carried.
    const std::string accented = "skill://\xc3\xa9quipe/beta";  // a raw UTF-8 segment: base64 in Mcp-Name
    std::mutex mutex;
    std::vector<std::vector<std::string>> seen;  // method, MCP-Protocol-Version, Mcp-Method, Mcp-Name
    TestHttpServer server([&](const json& message, const httplib::Request& req) -> std::pair<std::string, std::string> {
        auto header = [&](const char* name) {
            return req.has_header(name) ? req.get_header_value(name) : std::string("(none)");
        };
        const std::string method = message.at("method");
        {
            std::lock_guard lock(mutex);
            seen.push_back({method, header("MCP-Protocol-Version"), header("Mcp-Method"), header("Mcp-Name")});
        }
        const json& params = message.at("params");
        std::string field;
        if (method == "tools/call" || method == "prompts/get") field = "name";
        if (method == "resources/read") field = "uri";
        std::string why;
        if (header("MCP-Protocol-Version") != params.at("_meta").at("io.modelcontextprotocol/protocolVersion")) {
            why = "MCP-Protocol-Version";
        } else if (header("Mcp-Method") != method) {
            why = "Mcp-Method";
        } else if (!field.empty() && params.contains(field) && params[field].is_string()) {
            std::string name = header("Mcp-Name");
            if (name.rfind("=?base64?", 0) == 0 && name.size() >= 11 && name.substr(name.size() - 2) == "?=") {
                name = mcp::detail::base64_decode(name.substr(9, name.size() - 11)).value_or("(bad base64)");
            }
            if (name != params[field]) why = "Mcp-Name";
        }
        if (!why.empty()) {
            return {json{{"jsonrpc", "2.0"},
                         {"id", message.at("id")},
                         {"error", {{"code", -32020}, {"message", why + " header missing or different"}}}}
                        .dump(),
                    ""};
        }
        json result = json::object();
        if (method == "server/discover") result = {{"supportedVersions", json::array({"2026-07-28"})}};
        if (method == "skills/list")
            result = {{"skills", {listed("skill://alpha", "alpha"), listed(accented, "beta")}}};
        if (method == "resources/read") {
            const std::string uri = params.at("uri");
            const std::string name = uri.find("alpha") != std::string::npos ? "alpha" : "beta";
            result = {{"contents", {{{"uri", uri}, {"mimeType", "text/markdown"}, {"text", skill_md(name)}}}}};
        }
        return {response(message, result).dump(), "application/json"};
    });

    mcp::McpLoaderOptions options = quick();
    options.era = mcp::ProtocolEra::v2026_07_28;
    mcp::McpSkillLoader loader({{.label = "checked", .url = server.url()}}, options);
    const Discovery d = loader.discover();
    CHECK(d.diagnostics.empty());
    CHECK(names(d) == std::vector<std::string>{"alpha", "beta"});
    CHECK(loader.load("beta").instructions == "beta body.");

    mcp::Client client(mcp::make_http_transport(server.url(), quick().transport), mcp::ProtocolEra::v2026_07_28);
    (void)client.call("tools/call", {{"name", "=?base64?literal?="}, {"arguments", json::object()}});
    (void)client.call("prompts/get", {{"name", "review"}});
    (void)client.call("tools/call", {{"name", 7}});  // not a string: nothing to mirror

    const std::string v = "2026-07-28";
    const std::vector<std::vector<std::string>> expected = {
        {"server/discover", v, "server/discover", "(none)"},
        {"skills/list", v, "skills/list", "(none)"},
        {"resources/read", v, "resources/read", "skill://alpha/SKILL.md"},
        {"resources/read", v, "resources/read", "=?base64?c2tpbGw6Ly/DqXF1aXBlL2JldGEvU0tJTEwubWQ=?="},
        {"resources/read", v, "resources/read", "=?base64?c2tpbGw6Ly/DqXF1aXBlL2JldGEvU0tJTEwubWQ=?="},  // load()
        {"server/discover", v, "server/discover", "(none)"},
        {"tools/call", v, "tools/call", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="},
        {"prompts/get", v, "prompts/get", "review"},
        {"tools/call", v, "tools/call", "(none)"},
    };
    std::lock_guard lock(mutex);
    CHECK(seen == expected);
}

namespace {

/// A stdio server (`python3 -c ECHO_SERVER REPLY`): answers server/discover, and test/echo with
/// the lines of REPLY, `ID` replaced by the request's id as JSON.
constexpr const char* ECHO_SERVER = R"PY(
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    if m["method"] == "test/echo":
        out = sys.argv[1].replace("ID", json.dumps(m["id"]))
    else:
        out = json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"supportedVersions": ["2026-07-28"]}})
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
)PY";

}  // namespace

TEST_CASE("mcp client: a response matches its request only by the very id sent", "[mcp][client][hostile]") {
    // The client's second request (after server/discover) has the id 2. `says` empty: the answer.
    struct Case {
        std::string reply;
        std::string says;
    };
    const std::string ok = R"(,"result":{"ok":true}})";
    const std::vector<Case> cases = {
        {R"({"jsonrpc":"2.0","id":ID)" + ok, ""},
        {R"({"jsonrpc":"2.0", "id" : ID )" + ok, ""},
        {R"({"jsonrpc":"2.0","method":"notifications/message","params":{}})"
         "\n"
         R"({"jsonrpc":"2.0","id":ID)" +
             ok,
         ""},
        {R"({"jsonrpc":"2.0","id":"ID")" + ok, R"(with id "2", not the request's id)"},
        {R"({"jsonrpc":"2.0","id":ID.0)" + ok, "with id 2.0, not the request's id"},
        {R"({"jsonrpc":"2.0","id":IDe0)" + ok, "with id 2.0, not the request's id"},
        {R"({"jsonrpc":"2.0","id":true)" + ok, "with id true, not the request's id"},
        {R"({"jsonrpc":"2.0","id":[ID])" + ok, "with id [2], not the request's id"},
        {R"({"jsonrpc":"2.0","id":{"id":ID})" + ok, R"(with id {"id":2}, not the request's id)"},
        {R"({"jsonrpc":"2.0","id":1ID)" + ok, "with id 12, not the request's id"},
        {R"({"jsonrpc":"2.0","id":-ID)" + ok, "with id -2, not the request's id"},
        {R"({"jsonrpc":"2.0","id":ID8446744073709551616)" + ok, "with id 2.844674407370955e+19, not"},
        {R"({"jsonrpc":"2.0","id":ID00000000000000000000)" + ok, "with id 2e+20, not the request's id"},
        {R"({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}})",
         "with id null, not the request's id"},
        {R"({"jsonrpc":"2.0","result":{"ok":true}})", "a response without an id to request 2"},
        {R"({"jsonrpc":"2.0","id":ID})", "with id 2 but neither result nor error"},
        // A wrong id before the right one: the wrong one is the answer's error, not skipped.
        {R"({"jsonrpc":"2.0","id":"ID")" + ok + "\n" + R"({"jsonrpc":"2.0","id":ID)" + ok,
         R"(with id "2", not the request's id)"},
    };
    auto check = [](mcp::Client& client, const Case& c) {
        if (c.says.empty()) {
            CHECK(client.call("test/echo") == json{{"ok", true}});
            return;
        }
        try {
            (void)client.call("test/echo");
            FAIL("the reply was taken as the answer");
        } catch (const mcp::ServerError& e) {
            FAIL(std::string("a JSON-RPC error, not a mismatch: ") + e.what());
        } catch (const mcp::ClientError& e) {
            CHECK_THAT(e.what(), Catch::Matchers::Contains(c.says));
        }
    };
    for (const auto& c : cases) {
        INFO(c.reply);
        {
            INFO("stdio");
            mcp::Client client(mcp::make_stdio_transport({"python3", "-c", ECHO_SERVER, c.reply}, quick().transport),
                               mcp::ProtocolEra::v2026_07_28);
            check(client, c);
        }
        {
            INFO("HTTP (more than one message: an event stream)");
            TestHttpServer server(
                [&](const json& message, const httplib::Request&) -> std::pair<std::string, std::string> {
                    if (message.at("method") != "test/echo") {
                        return {response(message, {{"supportedVersions", json::array({"2026-07-28"})}}).dump(),
                                "application/json"};
                    }
                    std::string text = c.reply;
                    for (std::size_t at = text.find("ID"); at != std::string::npos; at = text.find("ID", at)) {
                        text.replace(at, 2, message.at("id").dump());
                    }
                    if (text.find('\n') == std::string::npos) return {text, "application/json"};
                    std::string events;
                    std::size_t start = 0;
                    while (start <= text.size()) {
                        const std::size_t nl = std::min(text.find('\n', start), text.size());
                        events += "event: message\ndata: " + text.substr(start, nl - start) + "\n\n";
                        start = nl + 1;
                    }
                    return {events, "text/event-stream"};
                });
            mcp::Client client(mcp::make_http_transport(server.url(), quick().transport),
                               mcp::ProtocolEra::v2026_07_28);
            check(client, c);
        }
    }
}

namespace {

/// An in-process server for the loader: skills/list pages by cursor ("" first; each page lists
/// skills by name and gives a nextCursor, "" for none), SKILL.md of each for resources/read.
/// Counts the skills/list requests.
class PagedTransport final : public mcp::ClientTransport {
public:
    struct Page {
        std::vector<std::string> skills;
        std::string next;
    };
    PagedTransport(std::map<std::string, Page> pages, std::shared_ptr<std::atomic<int>> lists)
        : pages_(std::move(pages)), lists_(std::move(lists)) {}

    json request(const json& request, const json& /*id*/,
                 const std::vector<std::pair<std::string, std::string>>& /*headers*/) override {
        const std::string method = request.at("method");
        const json& params = request.at("params");
        json result = json::object();
        if (method == "server/discover") result = {{"supportedVersions", json::array({"2026-07-28"})}};
        if (method == "skills/list") {
            ++*lists_;
            const Page& page = pages_.at(params.value("cursor", std::string()));
            result["skills"] = json::array();
            for (const auto& name : page.skills) result["skills"].push_back(listed("skill://" + name, name));
            if (!page.next.empty()) result["nextCursor"] = page.next;
        }
        if (method == "resources/read") {
            const std::string uri = params.at("uri");
            const std::string name = uri.substr(8, uri.size() - 8 - 9);  // skill://NAME/SKILL.md
            result = {{"contents", {{{"uri", uri}, {"text", skill_md(name)}}}}};
        }
        return response(request, result);
    }
    void notify(const json& /*n*/, const std::vector<std::pair<std::string, std::string>>& /*h*/) override {}

private:
    std::map<std::string, Page> pages_;
    std::shared_ptr<std::atomic<int>> lists_;
};

}  // namespace

TEST_CASE("mcp client: a cursor cycle (A B A ...) ends the listing at the first repeat and is reported once",
          "[mcp][client][hostile]") {
    auto lists = std::make_shared<std::atomic<int>>(0);
    const std::map<std::string, PagedTransport::Page> pages = {
        {"", {{"alpha"}, "A"}}, {"A", {{"beta"}, "B"}}, {"B", {{"gamma"}, "A"}}};
    mcp::McpSkillLoader loader("cycle", std::make_unique<PagedTransport>(pages, lists), quick());
    const Discovery d = loader.discover();
    CHECK(names(d) == std::vector<std::string>{"alpha", "beta", "gamma"});
    CHECK(lists->load() == 3);  // "", A, B: the second A is not asked for
    REQUIRE(d.diagnostics.size() == 1);
    CHECK(d.diagnostics[0].code == codes::mcp_server_error);
    CHECK(d.diagnostics[0].message ==
          "MCP server 'cycle': skills/list gave a nextCursor it had given before (after page 3), a cycle; the rest is "
          "not read");
    CHECK(d.skipped.size() == 1);
    // The session stays usable: the skills load.
    CHECK(loader.load("gamma").instructions == "gamma body.");
}

TEST_CASE("mcp client: a stdio server's stderr is labelled, escaped and bounded", "[mcp][client][hostile]") {
    // Terminal sequences and 300,000 bytes on stderr before the server answers anything.
    const std::string script = R"PY(
import os, sys
sys.stderr.buffer.write(b"first \x1b[31mred\x1b[0m\r\n" + b"tab\there \x07 caf\xc3\xa9\n" + b"x" * 300000 + b"\nlast\n")
sys.stderr.buffer.flush()
os.execvp("python3", ["python3", sys.argv[1], "honest"])
)PY";
    const std::size_t total = 20 + 17 + 300'000 + 1 + 5;
    std::vector<std::string> lines;
    {
        mcp::McpLoaderOptions options = quick();
        options.server_stderr = [&lines](std::string_view line) { lines.emplace_back(line); };
        mcp::McpSkillLoader loader({{.label = "noisy", .command = {"python3", "-c", script, HOSTILE}}}, options);
        const Discovery d = loader.discover();
        CHECK(names(d) == std::vector<std::string>{"alpha", "beta"});
        CHECK(d.diagnostics.empty());
    }  // closed: the rest of the pipe is read, the count of dropped bytes reported
    const std::string label = "MCP server 'noisy' (stderr): ";
    const std::size_t bound = mcp::CLIENT_MAX_STDERR_BYTES;
    const std::vector<std::string> expected = {
        label + "first \\x1b[31mred\\x1b[0m",
        label + "tab\\there \\x07 caf\xc3\xa9",
        label + std::string(bound - 20 - 17, 'x'),  // the line the bound cut
        label + std::to_string(total - bound) + " more bytes dropped (over the bound of 65536 bytes)",
    };
    CHECK(lines == expected);
}

TEST_CASE("mcp client: what a stdio server leaves running is killed with it (setsid and double fork)",
          "[mcp][client][hostile]") {
    // The server starts a child in a session of its own and a double-forked daemon (orphaned at
    // once), writes their pids, then serves.
    const std::string script = R"PY(
import os, sys, time
def linger():
    time.sleep(600)
    os._exit(0)
child = os.fork()
if child == 0:
    os.setsid()
    linger()
r, w = os.pipe()
first = os.fork()
if first == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(w, str(os.getpid()).encode())
        linger()
    os._exit(0)
os.close(w)
os.waitpid(first, 0)
daemon = os.read(r, 32).decode()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(f"{child} {daemon}\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
os.execvp("python3", ["python3", sys.argv[2], "honest"])
)PY";
    agentskills_test::TempDir dir;
    const std::string pid_file = dir.path("pids");
    std::vector<pid_t> pids;
    {
        mcp::McpSkillLoader loader({{.label = "leaky", .command = {"python3", "-c", script, pid_file, HOSTILE}}},
                                   quick());
        CHECK(names(loader.discover()) == std::vector<std::string>{"alpha", "beta"});
        std::ifstream in(pid_file);
        long pid = 0;
        while (in >> pid) pids.push_back(static_cast<pid_t>(pid));
        REQUIRE(pids.size() == 2);
        for (const pid_t p : pids) {
            REQUIRE(p > 1);
            CHECK(::kill(p, 0) == 0);  // running while the server runs
        }
    }
    for (const pid_t p : pids) {
        INFO(p);
        const bool gone = ::kill(p, 0) != 0 && errno == ESRCH;
        CHECK(gone);
        if (!gone) (void)::kill(p, SIGKILL);  // do not leave it behind when the check fails
    }
}

TEST_CASE("mcp client: closing a stdio server does not wait for a process the host forked meanwhile",
          "[mcp][client][hostile]") {
    auto loader = std::make_unique<mcp::McpSkillLoader>(
        std::vector<mcp::ServerSource>{{.label = "a", .command = {"python3", HOSTILE, "honest"}}}, quick());
    REQUIRE(names(loader->discover()) == std::vector<std::string>{"alpha", "beta"});
    // A child made by fork() alone holds every descriptor of the host, the client's end of the
    // reaper's control socket included, until it exits (60 s): the close must not wait for it.
    const pid_t holder = ::fork();
    if (holder == 0) {
        ::alarm(60);
        ::pause();
        ::_exit(0);
    }
    REQUIRE(holder > 0);
    const auto start = std::chrono::steady_clock::now();
    loader.reset();
    const auto took = std::chrono::steady_clock::now() - start;
    ::kill(holder, SIGKILL);
    ::waitpid(holder, nullptr, 0);
    CHECK(took < std::chrono::seconds(30));  // 0.1 s here; 60 s when the reaper waited for the hang-up
}

}  // namespace mcp_client_tests

// =======================================================================================
// The MCP server over storage that is not the local disk (files come through the loader's

namespace mcp_reader_tests {

using nlohmann::json;
using namespace agentskills;
using agentskills_test::TempDir;

namespace {

const std::string ALPHA_MD = "---\nname: alpha\ndescription: First skill.\n---\nAlpha body.\n";
const std::string BETA_MD = "---\nname: beta\ndescription: Second skill.\n---\nBeta body.\n";
constexpr std::int64_t OLD_MTIME_NS = 1'600'000'000'000'000'000;  // 2020: well before any read

std::string digest(const std::string& bytes) { return mcp::detail::sha256_digest(bytes); }

json modern(json params = json::object()) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return params;
}

json call(const mcp::Server& server, mcp::Session& session, const std::string& method, json params) {
    const mcp::Exchange ex = server.handle(
        json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", modern(std::move(params))}}.dump(), session);
    REQUIRE(ex.response.has_value());
    return json::parse(*ex.response);
}

SkillCatalogPtr catalog_over(SkillReaderPtr reader, std::string root) {
    return discover_skill_catalog(std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{
        .roots = {std::move(root)}, .include_default_roots = false, .reader = std::move(reader)}));
}

mcp::ServerOptions quiet() {
    mcp::ServerOptions options;
    options.log = [](std::string_view) {};
    return options;
}

}  // namespace

TEST_CASE("mcp: files are listed and read through the loader's reader (memory, mounted)", "[mcp]") {
    auto memory = std::make_shared<MemorySkillReader>();
    memory->add_file("lib/alpha/SKILL.md", ALPHA_MD, OLD_MTIME_NS);
    memory->add_file("lib/alpha/references/guide.md", "guide\n", OLD_MTIME_NS);
    memory->add_file("lib/alpha/assets/bin.dat", std::string("\x00\xff\x01", 3), OLD_MTIME_NS);
    memory->add_file("lib/beta/SKILL.md", BETA_MD, OLD_MTIME_NS);
    // The same bytes nowhere on disk: a mounted reader routes /store/... to the memory reader.
    const auto mounted =
        std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"store", memory}});
    const std::vector<std::pair<SkillReaderPtr, std::string>> setups = {{memory, "lib"}, {mounted, "/store/lib"}};
    for (const auto& [reader, root] : setups) {
        CAPTURE(root);
        mcp::Server server(catalog_over(reader, root), quiet());
        auto session = server.open_session();
        CHECK(server.served_skill_names() == std::vector<std::string>{"alpha", "beta"});
        const json alpha = call(server, *session, "skills/get", {{"uri", "skill://alpha/SKILL.md"}});
        CHECK(alpha.at("result").at("skill") ==
              json{{"uri", "skill://alpha/SKILL.md"},
                   {"frontmatter", {{"name", "alpha"}, {"description", "First skill."}}},
                   {"resources",
                    {{{"uri", "skill://alpha/SKILL.md"}, {"digest", digest(ALPHA_MD)}, {"size", ALPHA_MD.size()}},
                     {{"uri", "skill://alpha/assets/bin.dat"},
                      {"digest", digest(std::string("\x00\xff\x01", 3))},
                      {"size", 3}},
                     {{"uri", "skill://alpha/references/guide.md"}, {"digest", digest("guide\n")}, {"size", 6}}}}});
        CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/references/guide.md"}}) ==
              json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"skill://alpha/references/guide.md",
                  "mimeType":"text/markdown","text":"guide\n"}],"resultType":"complete","ttlMs":60000,
                  "cacheScope":"public"}})"));
        CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/assets/bin.dat"}})
                  .at("result")
                  .at("contents")
                  .at(0)
                  .at("blob") == "AP8B");
        CHECK(call(server, *session, "resources/directory/read", {{"uri", "skill://alpha"}})
                  .at("result")
                  .at("resources")
                  .size() == 3);
        // The activation tool and prompts load through the same loader.
        const json activated =
            call(server, *session, "tools/call", {{"name", "activate_skill"}, {"arguments", {{"name", "beta"}}}});
        CHECK(activated.at("result").at("isError") == false);
        CHECK(activated.at("result").at("content").at(0).at("text").get<std::string>().find("Beta body.") !=
              std::string::npos);
    }
}

TEST_CASE("mcp: a file changed in the reader is hashed again; stale bytes are never served", "[mcp]") {
    auto memory = std::make_shared<MemorySkillReader>();
    memory->add_file("lib/alpha/SKILL.md", ALPHA_MD, OLD_MTIME_NS);
    memory->add_file("lib/alpha/notes.txt", "one\n", OLD_MTIME_NS);
    memory->add_file("lib/alpha/gone.txt", "bye\n", OLD_MTIME_NS);
    mcp::Server server(catalog_over(memory, "lib"), quiet());
    auto session = server.open_session();
    // Served from the cache (the version is old and unchanged) ...
    CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/notes.txt"}})
              .at("result")
              .at("contents")
              .at(0)
              .at("text") == "one\n");
    // ... until the file changes: same size, same time, new bytes (a new identity).
    memory->add_file("lib/alpha/notes.txt", "two\n", OLD_MTIME_NS);
    CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/notes.txt"}})
              .at("result")
              .at("contents")
              .at(0)
              .at("text") == "two\n");
    const json entry = call(server, *session, "skills/get", {{"uri", "skill://alpha/SKILL.md"}});
    CHECK(entry.at("result").at("skill").at("resources").at(2) ==
          json{{"uri", "skill://alpha/notes.txt"}, {"digest", digest("two\n")}, {"size", 4}});
    // A file removed from the reader is no longer listed nor served.
    REQUIRE(memory->remove("lib/alpha/gone.txt"));
    CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/gone.txt"}}).at("error").at("code") ==
          -32602);
    CHECK(call(server, *session, "skills/get", {{"uri", "skill://alpha/SKILL.md"}})
              .at("result")
              .at("skill")
              .at("resources")
              .size() == 2);
}

TEST_CASE("mcp: a local file rewritten with its old size and time is still noticed", "[mcp]") {
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", ALPHA_MD);
    dir.write("lib/alpha/notes.txt", "one\n");
    // Let the files' times fall out of the racy window, so the server caches their bytes.
    std::this_thread::sleep_for(std::chrono::milliseconds(3200));
    mcp::Server server(catalog_over(nullptr, dir.path("lib")), quiet());
    auto session = server.open_session();
    const std::string uri = "skill://alpha/notes.txt";
    CHECK(call(server, *session, "resources/read", {{"uri", uri}}).at("result").at("contents").at(0).at("text") ==
          "one\n");
    struct stat before {};
    REQUIRE(::stat(dir.path("lib/alpha/notes.txt").c_str(), &before) == 0);
    dir.write("lib/alpha/notes.txt", "two\n");
    const timespec times[2] = {before.st_atim, before.st_mtim};  // put the modification time back
    REQUIRE(::utimensat(AT_FDCWD, dir.path("lib/alpha/notes.txt").c_str(), times, 0) == 0);
    CHECK(call(server, *session, "resources/read", {{"uri", uri}}).at("result").at("contents").at(0).at("text") ==
          "two\n");
}

TEST_CASE("mcp: resources/read text escaping matches a JSON serializer at every offset", "[mcp]") {
    // The escaper skips 8 bytes at a time: put each byte that needs escaping, and some that do
    // not (UTF-8, DEL, '/'), at every position of strings around the word size.
    const std::vector<std::string> specials = {"\"",   "\\",   "\n",   "\r", "\t",       std::string(1, '\0'),
                                               "\x01", "\x1f", "\x7f", "/",  "\xc3\xa9", "\xe2\x82\xac",
                                               " "};
    for (std::size_t length = 0; length <= 20; ++length) {
        for (const auto& special : specials) {
            for (std::size_t at = 0; at <= length; ++at) {
                std::string text(length, 'a');
                text.insert(at, special);
                std::string out = "x";
                agentskills::append_json_string(out, text);
                CAPTURE(length, at, special);
                REQUIRE(out == "x" + json(text).dump());
            }
        }
    }
}

namespace {

/// An input stream buffer fed by the test, blocking when empty until more comes or it is closed.
class FeedBuf final : public std::streambuf {
public:
    void feed(const std::string& text) {
        std::lock_guard lock(mutex_);
        pending_ += text;
        cv_.notify_all();
    }
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        cv_.notify_all();
    }

protected:
    int_type underflow() override {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return !pending_.empty() || closed_; });
        if (pending_.empty()) return traits_type::eof();
        current_.swap(pending_);
        pending_.clear();
        setg(current_.data(), current_.data(), current_.data() + current_.size());
        return traits_type::to_int_type(current_.front());
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::string pending_;
    std::string current_;
    bool closed_ = false;
};

/// An output stream buffer whose lines the test can wait for.
class LinesBuf final : public std::streambuf {
public:
    std::vector<std::string> wait_for(std::size_t count) {
        std::unique_lock lock(mutex_);
        cv_.wait_for(lock, std::chrono::seconds(120), [&] { return lines_.size() >= count; });
        return lines_;
    }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        std::lock_guard lock(mutex_);
        if (c == '\n') {
            lines_.push_back(std::move(partial_));
            partial_.clear();
            cv_.notify_all();
        } else {
            partial_.push_back(traits_type::to_char_type(c));
        }
        return c;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> lines_;
    std::string partial_;
};

}  // namespace

TEST_CASE("mcp: replace_catalog notifies an initialized stdio client", "[mcp][concurrency]") {
    auto memory = std::make_shared<MemorySkillReader>();
    memory->add_file("lib/alpha/SKILL.md", ALPHA_MD, OLD_MTIME_NS);
    mcp::Server server(catalog_over(memory, "lib"), quiet());

    // A session that never initialized is not sent anything.
    std::vector<std::string> unsent;
    const auto silent = server.open_session([&unsent](std::string_view m) { unsent.emplace_back(m); });

    FeedBuf in_buf;
    LinesBuf out_buf;
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    std::thread serving([&] { (void)mcp::serve_stdio(server, in, out); });
    in_buf.feed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})"
                "\n"
                R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                "\n"
                R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
                "\n");
    REQUIRE(out_buf.wait_for(2).size() == 2);

    // Nothing a client sees changed: no notification.
    mcp::CatalogUpdate same = server.replace_catalog(catalog_over(memory, "lib"));
    CHECK(!same.resources_changed);
    CHECK(!same.prompts_changed);
    CHECK(same.sessions_notified == 0);

    memory->add_file("lib/beta/SKILL.md", BETA_MD, OLD_MTIME_NS);
    const mcp::CatalogUpdate update = server.replace_catalog(catalog_over(memory, "lib"));
    CHECK(update.resources_changed);
    CHECK(update.prompts_changed);
    CHECK(update.sessions_notified == 1);
    std::vector<std::string> lines = out_buf.wait_for(4);
    REQUIRE(lines.size() == 4);
    CHECK(lines[2] == R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");
    CHECK(lines[3] == R"({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"})");
    CHECK(server.served_skill_names() == std::vector<std::string>{"alpha", "beta"});

    // The connection goes on with the new catalog.
    in_buf.feed(R"({"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":"skill://beta/SKILL.md"}})"
                "\n");
    lines = out_buf.wait_for(5);
    REQUIRE(lines.size() == 5);
    CHECK(json::parse(lines[4]).at("result").at("skill").at("uri") == "skill://beta/SKILL.md");

    // A changed body changes the listing (digest) but not the prompts.
    memory->add_file("lib/beta/SKILL.md", BETA_MD + "More.\n", OLD_MTIME_NS);
    const mcp::CatalogUpdate body = server.replace_catalog(catalog_over(memory, "lib"));
    CHECK(body.resources_changed);
    CHECK(!body.prompts_changed);
    lines = out_buf.wait_for(6);
    REQUIRE(lines.size() == 6);
    CHECK(lines[5] == R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");

    in_buf.close();
    serving.join();
    CHECK(unsent.empty());
    // After the connection ended, a replacement writes nothing anywhere.
    memory->remove("lib/beta");
    CHECK(server.replace_catalog(catalog_over(memory, "lib")).sessions_notified == 0);
    CHECK(out_buf.wait_for(0).size() == 6);
}

}  // namespace mcp_reader_tests

namespace mcp_http_client_tests {

using nlohmann::json;
using namespace agentskills;

namespace {

/// A raw HTTP/1.1 server on 127.0.0.1 for the client transport's edge cases. Each connection
/// reads one request (head and Content-Length body) and then, by `mode`:
///   "close":   answers it (no `Connection: close`, so the client keeps the connection) and closes;
///   "trickle": sends a head announcing 1,000 bytes, then one byte every 50 ms;
///   "huge":    announces a body of 2 MiB and sends it.
class RawHttpServer {
public:
    explicit RawHttpServer(std::string mode) : mode_(std::move(mode)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(listener_ >= 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
        REQUIRE(::listen(listener_, 16) == 0);
        socklen_t len = sizeof addr;
        REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { run(); });
    }
    RawHttpServer(const RawHttpServer&) = delete;
    RawHttpServer& operator=(const RawHttpServer&) = delete;
    ~RawHttpServer() {
        stop_ = true;
        ::shutdown(listener_, SHUT_RDWR);
        thread_.join();
        ::close(listener_);
    }
    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/mcp"; }
    [[nodiscard]] int connections() const { return connections_.load(); }

private:
    void run() {
        while (!stop_) {
            const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd < 0) return;
            ++connections_;
            serve(fd);
            ::close(fd);
        }
    }

    void serve(int fd) {
        std::string in;
        char buf[4096];
        std::size_t body_at = std::string::npos;
        std::size_t length = 0;
        while (body_at == std::string::npos || in.size() < body_at + length) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n <= 0) return;
            in.append(buf, static_cast<std::size_t>(n));
            if (body_at == std::string::npos) {
                const std::size_t end = in.find("\r\n\r\n");
                if (end == std::string::npos) continue;
                body_at = end + 4;
                std::string head = in.substr(0, end);
                std::transform(head.begin(), head.end(), head.begin(), [](unsigned char c) { return std::tolower(c); });
                const std::size_t cl = head.find("content-length:");
                if (cl != std::string::npos) length = std::stoul(head.substr(cl + 15));
            }
        }
        const json message = json::parse(in.substr(body_at, length));
        const auto send = [fd](const std::string& text) {
            return ::send(fd, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
        };
        if (mode_ == "close") {
            const std::string body =
                json{{"jsonrpc", "2.0"}, {"id", message.at("id")}, {"result", {{"n", connections_.load()}}}}.dump();
            send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                 "\r\n\r\n" + body);
        } else if (mode_ == "trickle") {
            if (!send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n")) return;
            for (int i = 0; i < 1000 && !stop_; ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
                if (!send(" ")) return;
            }
        } else if (mode_ == "huge") {
            send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n" +
                 std::string(2097152, ' '));
        }
    }

    std::string mode_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> connections_{0};
    std::thread thread_;
};

}  // namespace

TEST_CASE("mcp client http: a kept-alive connection the server closed is opened again; one deadline, one bound",
          "[mcp][client][http]") {
    {
        // The server closes every connection after its answer: each request finds the old one
        // dead (nothing received) and goes out once more on a new connection.
        RawHttpServer server("close");
        auto transport = mcp::make_http_transport(server.url(), mcp::TransportLimits{});
        for (int i = 1; i <= 3; ++i) {
            const json answer = transport->request({{"jsonrpc", "2.0"}, {"id", i}, {"method", "x"}}, i, {});
            CHECK(answer.at("result").at("n") == i);
        }
        CHECK(server.connections() == 3);
    }
    {
        // A body that comes one byte at a time: the deadline covers the whole answer.
        RawHttpServer server("trickle");
        mcp::TransportLimits limits;
        limits.timeout = std::chrono::milliseconds(1'000);
        auto transport = mcp::make_http_transport(server.url(), limits);
        const auto start = std::chrono::steady_clock::now();
        try {
            (void)transport->request({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "x"}}, 1, {});
            FAIL("no error");
        } catch (const mcp::ClientError& e) {
            CHECK(std::string(e.what()) == "MCP HTTP server: no complete answer within 1000 ms");
        }
        CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        CHECK_THROWS_WITH(transport->request({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "x"}}, 2, {}),
                          "MCP HTTP server: the connection is closed");
    }
    {
        RawHttpServer server("huge");
        mcp::TransportLimits limits;
        limits.max_message_bytes = 1024 * 1024;
        auto transport = mcp::make_http_transport(server.url(), limits);
        CHECK_THROWS_WITH(transport->request({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "x"}}, 1, {}),
                          "MCP HTTP server: a message longer than 1048576 bytes");
    }
}

}  // namespace mcp_http_client_tests

#endif  // AGENTSKILLS_HAVE_MCP
