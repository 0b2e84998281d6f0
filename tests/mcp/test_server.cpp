// Tests of mcp/server.hpp: the MCP server, its HTTP transport and the frontmatter it serves.
// One file per public header; the hostile cases are sections of it.
#ifdef AGENTSKILLS_HAVE_MCP
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <httplib.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/base/version.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/host/host.hpp>
#include <agentskills/mcp/server.hpp>
#include <agentskills/parse/parser.hpp>
#include <agentskills/shim/skills_shim.hpp>

#include "fs_fixtures.hpp"
#include "src/mcp/shared/internal.hpp"
#include "support/corpus.hpp"
#include "support/http_fixture.hpp"
#include "support/unlistable_reader.hpp"

// =======================================================================================
// The MCP server's transport-agnostic handler: messages in, exact messages out.

namespace mcp_server_tests {

using namespace std::string_literals;

using nlohmann::json;
using namespace agentskills;
using agentskills_test::TempDir;

namespace {

const std::string ALPHA_MD =
    "---\nname: alpha\ndescription: First skill.\nversion: 1.0\nmetadata:\n  owner: docs\n---\n"
    "Use $ARGUMENTS carefully.\n";
const std::string BETA_MD =
    "---\nname: beta\ndescription: Only for people.\ndisable-model-invocation: true\n---\nBeta.\n";
const std::string GAMMA_MD = "---\nname: gamma\ndescription: Only for the model.\nuser-invocable: false\n---\nGamma.\n";

struct Fixture {
    TempDir dir;
    SkillCatalogPtr catalog;
    std::vector<std::string> logs;
    std::unique_ptr<mcp::Server> server;
    std::shared_ptr<mcp::Session> session;

    explicit Fixture(std::size_t page_size = mcp::DEFAULT_PAGE_SIZE) {
        dir.write("lib/alpha/SKILL.md", ALPHA_MD);
        dir.write("lib/alpha/references/guide.md", "guide\n");
        dir.write("lib/alpha/Q&A notes.md", "qa\n");
        dir.write("lib/alpha/assets/bin.dat", std::string("\x00\xff\x01", 3));
        dir.write("lib/beta/SKILL.md", BETA_MD);
        dir.write("lib/gamma/SKILL.md", GAMMA_MD);
        dir.write("lib/bad-meta/SKILL.md", "---\nname: bad-meta\ndescription: d\nmetadata:\n  count: 3\n---\nx\n");
        auto loader = std::make_shared<FilesystemSkillLoader>(
            FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false});
        catalog = discover_skill_catalog(loader);
        mcp::ServerOptions options;
        options.page_size = page_size;
        options.log = [this](std::string_view line) { logs.emplace_back(line); };
        server = std::make_unique<mcp::Server>(catalog, options);
        session = server->open_session();
    }

    json call(const json& message) { return call_text(message.dump()); }
    json call_text(const std::string& text) {
        const mcp::Exchange ex = server->handle(text, *session);
        REQUIRE(ex.response.has_value());
        return json::parse(*ex.response);
    }
    json request(const std::string& method, json params = json::object(), int id = 1) {
        return call({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    }
    void initialize() {
        const json r = request("initialize", {{"protocolVersion", "2025-11-25"},
                                              {"capabilities", json::object()},
                                              {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
        REQUIRE(r.contains("result"));
        (void)server->handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", *session);
    }
    static json modern(json params = json::object()) {
        params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                           {"io.modelcontextprotocol/clientCapabilities", json::object()}};
        return params;
    }
    std::string path(const std::string& rel) const { return dir.path("lib/" + rel); }
};

json error_of(int id, int code, const std::string& message) {
    return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

std::string digest(const std::string& bytes) { return mcp::detail::sha256_digest(bytes); }

}  // namespace

TEST_CASE("mcp: initialize declares the skills extension, resources, tools and prompts", "[mcp]") {
    Fixture f;
    const json r = f.request("initialize", {{"protocolVersion", "2025-11-25"}, {"capabilities", json::object()}});
    CHECK(r == json::parse(R"({"jsonrpc":"2.0","id":1,"result":{
        "protocolVersion":"2025-11-25",
        "capabilities":{"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}},
                        "prompts":{"listChanged":true},"resources":{"listChanged":true},"tools":{}},
        "serverInfo":{"name":"agentskills","version":")" +
                           std::string(version_string) + R"("}}})"));
    // An older revision the server knows is echoed; an unknown one gets the latest.
    CHECK(f.request("initialize", {{"protocolVersion", "2025-06-18"}})["result"]["protocolVersion"] == "2025-06-18");
    CHECK(f.request("initialize", {{"protocolVersion", "2099-01-01"}})["result"]["protocolVersion"] == "2025-11-25");
}

TEST_CASE("mcp: skills/list gives the frontmatter, every file, digests and sizes", "[mcp]") {
    Fixture f;
    f.initialize();
    const json r = f.request("skills/list");
    const json& skills = r.at("result").at("skills");
    REQUIRE(skills.size() == 3);  // bad-meta is left out
    const json expected_alpha = {
        {"uri", "skill://alpha/SKILL.md"},
        {"frontmatter",
         {{"name", "alpha"}, {"description", "First skill."}, {"version", 1.0}, {"metadata", {{"owner", "docs"}}}}},
        {"resources",
         json::array({
             {{"uri", "skill://alpha/SKILL.md"}, {"digest", digest(ALPHA_MD)}, {"size", ALPHA_MD.size()}},
             {{"uri", "skill://alpha/Q&A%20notes.md"}, {"digest", digest("qa\n")}, {"size", 3}},
             {{"uri", "skill://alpha/assets/bin.dat"}, {"digest", digest(std::string("\x00\xff\x01", 3))}, {"size", 3}},
             {{"uri", "skill://alpha/references/guide.md"}, {"digest", digest("guide\n")}, {"size", 6}},
         })}};
    CHECK(skills.at(0) == expected_alpha);
    CHECK(skills.at(1).at("uri") == "skill://beta/SKILL.md");
    CHECK(skills.at(2).at("uri") == "skill://gamma/SKILL.md");
    CHECK_FALSE(r.at("result").contains("nextCursor"));
    CHECK_FALSE(r.at("result").contains("resultType"));  // handshake era: no 2026 fields
    REQUIRE(f.server->left_out().size() == 1);
    CHECK(f.server->left_out()[0].name == "bad-meta");
    CHECK(f.server->left_out()[0].reason == "metadata does not map strings to strings");
    REQUIRE(f.logs.size() == 1);
    CHECK(f.logs[0] == "agentskills mcp: left out bad-meta (" + f.path("bad-meta/SKILL.md") +
                           "): metadata does not map strings to strings [mcp-skill-left-out]");
}

TEST_CASE("mcp: each skills/list item is the bytes nlohmann's dump gives for it", "[mcp]") {
    // The server writes an entry's text directly (entry_json_text); nlohmann's dump of the same
    // object is the reference, byte for byte. Parsed and dumped again, an item must come back as
    // it was written, and appear in the raw response as it is.
    const auto check_library = [](const std::filesystem::path& root, std::size_t& items) {
        auto loader = std::make_shared<FilesystemSkillLoader>(
            FilesystemLoaderOptions{.roots = {root.string()}, .include_default_roots = false});
        mcp::ServerOptions options;
        options.page_size = 100000;
        options.log = [](std::string_view) {};
        mcp::Server server(discover_skill_catalog(loader), options);
        const auto session = server.open_session();
        (void)server.handle(
            R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})", *session);
        (void)server.handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})", *session);
        const mcp::Exchange ex =
            server.handle(R"({"jsonrpc":"2.0","id":1,"method":"skills/list","params":{}})", *session);
        REQUIRE(ex.response.has_value());
        const json r = json::parse(*ex.response);
        for (const json& item : r.at("result").at("skills")) {
            const std::string text = item.dump(-1, ' ', false, json::error_handler_t::strict);
            CAPTURE(text.substr(0, 200));
            CHECK(ex.response->find(text) != std::string::npos);
            ++items;
        }
    };
    std::size_t items = 0;
    {
        Fixture f;  // quotes, spaces and '&' in file names, a binary file, metadata, a float
        f.dir.write("lib/delta/SKILL.md",
                    "---\nname: delta\ndescription: \"Quotes \\\" and \\\\ and \\t, \u00e9\u4e2d \U0001F600 and "
                    "\\u0001\"\nmetadata:\n  \"k\\\"ey\": \"v\\nw\"\n  z: \"1e400\"\n---\nDelta.\n");
        f.dir.write("lib/delta/d\xC3\xA9j\xC3\xA0 vu/\"q\" #1? 100%.txt", "x");
        f.dir.write("lib/delta/empty", "");
        check_library(f.dir.path("lib"), items);
        CHECK(items == 4);
    }
    // Every folder of skills in the shared corpus (support/corpus.hpp: required in CI).
    if (const auto corpus = agentskills_test::shared_corpus()) {
        std::set<std::filesystem::path> roots;
        for (const auto& e : std::filesystem::recursive_directory_iterator(*corpus / "libraries")) {
            if (e.is_regular_file() && e.path().filename() == "SKILL.md")
                roots.insert(e.path().parent_path().parent_path());
        }
        for (const auto& root : roots) check_library(root, items);
        CHECK(items > 1000);
    }
}

TEST_CASE("mcp: skills/list pages with an opaque cursor", "[mcp]") {
    Fixture f(2);
    f.initialize();
    const json first = f.request("skills/list").at("result");
    REQUIRE(first.at("skills").size() == 2);
    REQUIRE(first.contains("nextCursor"));
    const json second = f.request("skills/list", {{"cursor", first.at("nextCursor")}}).at("result");
    REQUIRE(second.at("skills").size() == 1);
    CHECK(second.at("skills").at(0).at("uri") == "skill://gamma/SKILL.md");
    CHECK_FALSE(second.contains("nextCursor"));
    CHECK(f.request("skills/list", {{"cursor", "bm9wZQ=="}}) == error_of(1, -32602, "invalid cursor"));
    CHECK(f.request("skills/list", {{"cursor", 3}}) == error_of(1, -32602, "cursor must be a string"));
}

TEST_CASE("mcp: skills/get answers for a served SKILL.md URI only", "[mcp]") {
    Fixture f;
    f.initialize();
    const json list = f.request("skills/list").at("result").at("skills");
    CHECK(f.request("skills/get", {{"uri", "skill://alpha/SKILL.md"}}).at("result").at("skill") == list.at(0));
    CHECK(f.request("skills/get", {{"uri", "skill://%61lpha/SKILL.md"}}).at("result").at("skill") == list.at(0));
    CHECK(f.request("skills/get", {{"uri", "skill://nope/SKILL.md"}}) ==
          error_of(1, -32602, "No skill is served at skill://nope/SKILL.md"));
    CHECK(f.request("skills/get", {{"uri", "skill://alpha/references/guide.md"}}) ==
          error_of(1, -32602, "No skill is served at skill://alpha/references/guide.md"));
    CHECK(f.request("skills/get", {{"uri", "skill://bad-meta/SKILL.md"}}) ==
          error_of(1, -32602, "No skill is served at skill://bad-meta/SKILL.md"));
    CHECK(f.request("skills/get") == error_of(1, -32602, "params.uri must be a string"));
}

TEST_CASE("mcp: resources/read serves text as text and other bytes as base64", "[mcp]") {
    Fixture f;
    f.initialize();
    CHECK(
        f.request("resources/read", {{"uri", "skill://alpha/SKILL.md"}}).at("result") ==
        json{{"contents",
              json::array({{{"uri", "skill://alpha/SKILL.md"}, {"mimeType", "text/markdown"}, {"text", ALPHA_MD}}})}});
    CHECK(f.request("resources/read", {{"uri", "skill://alpha/assets/bin.dat"}}).at("result") ==
          json{{"contents", json::array({{{"uri", "skill://alpha/assets/bin.dat"},
                                          {"mimeType", "application/octet-stream"},
                                          {"blob", "AP8B"}}})}});
    // Any spelling of the same name reaches the file.
    for (const char* uri : {"skill://alpha/Q&A%20notes.md", "skill://alpha/Q%26A%20notes.md"}) {
        CHECK(f.request("resources/read", {{"uri", uri}}).at("result").at("contents").at(0).at("text") == "qa\n");
    }
    // Not served: -32002 in the handshake era (2025-11-25), -32602 in 2026-07-28.
    const json missing = f.request("resources/read", {{"uri", "skill://alpha/nope.md"}});
    CHECK(missing == json{{"jsonrpc", "2.0"},
                          {"id", 1},
                          {"error",
                           {{"code", -32002},
                            {"message", "Resource not found: skill://alpha/nope.md"},
                            {"data", {{"uri", "skill://alpha/nope.md"}}}}}});
    CHECK(f.request("resources/read", Fixture::modern({{"uri", "skill://alpha/nope.md"}})).at("error").at("code") ==
          -32602);
    for (const char* uri : {"skill://alpha/../beta/SKILL.md", "skill://alpha/references", "skill://alpha",
                            "skill://alpha/SKILL.md?x=1", "skill://alpha//SKILL.md", "file:///etc/passwd"}) {
        CHECK(f.request("resources/read", {{"uri", uri}}).at("error").at("code") == -32002);
    }
}

TEST_CASE("mcp: a changed file is hashed again and only bytes matching the listing are served", "[mcp]") {
    Fixture f;
    f.initialize();
    const std::string changed = "guide, second edition\n";
    f.dir.write("lib/alpha/references/guide.md", changed);
    const json read = f.request("resources/read", {{"uri", "skill://alpha/references/guide.md"}});
    CHECK(read.at("result").at("contents").at(0).at("text") == changed);
    const json entry = f.request("skills/get", {{"uri", "skill://alpha/SKILL.md"}}).at("result").at("skill");
    CHECK(entry.at("resources").at(3) ==
          json{{"uri", "skill://alpha/references/guide.md"}, {"digest", digest(changed)}, {"size", changed.size()}});
    // A file that vanished is no longer listed or served.
    std::filesystem::remove(f.path("alpha/Q&A notes.md"));
    CHECK(f.request("resources/read", {{"uri", "skill://alpha/Q&A%20notes.md"}}).at("error").at("code") == -32002);
    CHECK(
        f.request("skills/get", {{"uri", "skill://alpha/SKILL.md"}}).at("result").at("skill").at("resources").size() ==
        3);
}

TEST_CASE("mcp: symbolic links and special files are never listed or followed", "[mcp]") {
    Fixture f;
    f.initialize();
    // Swapped for a link to a file outside the skill after listing: the read does not follow it.
    f.dir.write("secret.txt", "secret\n");
    std::filesystem::remove(f.path("alpha/references/guide.md"));
    std::filesystem::create_symlink(f.dir.path("secret.txt"), f.path("alpha/references/guide.md"));
    const json read = f.request("resources/read", {{"uri", "skill://alpha/references/guide.md"}});
    CHECK(read.at("error").at("code") == -32002);
    const json entry = f.request("skills/get", {{"uri", "skill://alpha/SKILL.md"}}).at("result").at("skill");
    for (const auto& r : entry.at("resources")) CHECK(r.at("uri") != "skill://alpha/references/guide.md");
    // A FIFO in a skill is not a file of it (and reading it would block).
    REQUIRE(::mkfifo(f.path("gamma/pipe").c_str(), 0600) == 0);
    std::filesystem::create_symlink(f.dir.path("secret.txt"), f.path("gamma/link.txt"));
    mcp::ServerOptions options;
    options.log = [](std::string_view) {};
    mcp::Server again(f.catalog, options);
    auto session = again.open_session();
    const mcp::Exchange ex = again.handle(json{{"jsonrpc", "2.0"},
                                               {"id", 1},
                                               {"method", "skills/get"},
                                               {"params", Fixture::modern({{"uri", "skill://gamma/SKILL.md"}})}}
                                              .dump(),
                                          *session);
    CHECK(json::parse(*ex.response).at("result").at("skill").at("resources").size() == 1);
}

TEST_CASE("mcp: resources/list, templates and directory reads", "[mcp]") {
    Fixture f;
    f.initialize();
    const json list = f.request("resources/list").at("result").at("resources");
    REQUIRE(list.size() == 3);
    CHECK(list.at(0) == json{{"uri", "skill://alpha/SKILL.md"},
                             {"name", "alpha"},
                             {"description", "First skill."},
                             {"mimeType", "text/markdown"},
                             {"size", ALPHA_MD.size()}});
    CHECK(f.request("resources/templates/list").at("result").at("resourceTemplates").at(0).at("uriTemplate") ==
          "skill://{+path}/SKILL.md");
    const json root = f.request("resources/directory/read", {{"uri", "skill://alpha"}}).at("result");
    CHECK(root == json::parse(R"({"resources":[
        {"uri":"skill://alpha/Q&A%20notes.md","name":"Q&A notes.md","mimeType":"text/markdown","size":3},
        {"uri":"skill://alpha/SKILL.md","name":"SKILL.md","mimeType":"text/markdown","size":)" +
                              std::to_string(ALPHA_MD.size()) + R"(},
        {"uri":"skill://alpha/assets","name":"assets","mimeType":"inode/directory"},
        {"uri":"skill://alpha/references","name":"references","mimeType":"inode/directory"}]})"));
    const json refs = f.request("resources/directory/read", {{"uri", "skill://alpha/references"}}).at("result");
    CHECK(refs.at("resources").size() == 1);
    CHECK(f.request("resources/directory/read", {{"uri", "skill://alpha/SKILL.md"}}) ==
          error_of(1, -32602, "skill://alpha/SKILL.md is not a directory resource"));
    CHECK(f.request("resources/directory/read", {{"uri", "skill://alpha/nope"}}) ==
          error_of(1, -32602, "No directory resource at skill://alpha/nope"));
}

TEST_CASE("mcp: the activation tool has the shim's schema and texts, once per session", "[mcp]") {
    Fixture f;
    f.initialize();
    SkillsShim shim(SkillsShimOptions{.catalog = f.catalog});
    const ToolSpec spec = shim.tool_spec();
    const json tools = f.request("tools/list").at("result").at("tools");
    CHECK(tools ==
          json::array({{{"name", spec.name}, {"description", spec.description}, {"inputSchema", spec.parameters}}}));

    const json args = {{"name", "activate_skill"}, {"arguments", {{"name", "alpha"}}}};
    const json one = f.request("tools/call", args).at("result");
    LoadedSkill loaded = f.catalog->load("alpha");
    CHECK(one == json{{"content", json::array({{{"type", "text"}, {"text", render_activation_text(loaded)}}})},
                      {"isError", false}});
    const json two = f.request("tools/call", args).at("result");
    CHECK(two.at("content").at(0).at("text") ==
          "The skill \"alpha\" is already active: its instructions are in the <skill_content name=\"alpha\"> block "
          "that an earlier activate_skill call returned in this conversation. Keep following that block; do not call "
          "activate_skill for this skill again.");
    // Another session activates afresh; a skill the model may not invoke is unknown to the tool.
    auto other = f.server->open_session();
    const mcp::Exchange ex = f.server->handle(
        json{{"jsonrpc", "2.0"}, {"id", 9}, {"method", "tools/call"}, {"params", Fixture::modern(args)}}.dump(),
        *other);
    CHECK(json::parse(*ex.response).at("result").at("content").at(0).at("text") == render_activation_text(loaded));
    const json beta = f.request("tools/call", {{"name", "activate_skill"}, {"arguments", {{"name", "beta"}}}});
    CHECK(beta.at("result").at("content").at(0).at("text") ==
          "There is no skill named \"beta\". Available skills: alpha, gamma.");
    CHECK(f.request("tools/call", {{"name", "other"}}) == error_of(1, -32602, "Unknown tool: other"));
    CHECK(f.request("tools/call", {{"name", "activate_skill"}, {"arguments", "x"}}) ==
          error_of(1, -32602, "params.arguments must be an object"));
}

TEST_CASE("mcp: prompts are the user-invocable skills and render their arguments", "[mcp]") {
    Fixture f;
    f.initialize();
    const json prompts = f.request("prompts/list").at("result").at("prompts");
    REQUIRE(prompts.size() == 2);  // alpha, beta (gamma is not user-invocable)
    CHECK(prompts.at(0) == json::parse(R"({"name":"alpha","description":"First skill.","arguments":[{"name":"arguments",
        "description":"Text for the skill: it replaces $ARGUMENTS in the instructions, or is appended when they have none.",
        "required":false}]})"));
    CHECK(prompts.at(1).at("name") == "beta");
    const json got = f.request("prompts/get", {{"name", "alpha"}, {"arguments", {{"arguments", "the tests"}}}});
    LoadedSkill loaded = f.catalog->load("alpha");
    SkillDefinition def;
    def.name = "alpha";
    def.body = loaded.instructions;
    def.manifest = loaded.manifest;
    def.resources = loaded.resources;
    const std::string text = def.render(std::string_view("the tests"));
    CHECK(text.find("Use the tests carefully.") != std::string::npos);
    CHECK(got.at("result") ==
          json{{"description", "First skill."},
               {"messages", json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})}});
    CHECK(f.request("prompts/get", {{"name", "gamma"}}) == error_of(1, -32602, "Unknown prompt: gamma"));
    CHECK(f.request("prompts/get", {{"name", "alpha"}, {"arguments", {{"arguments", 3}}}}) ==
          error_of(1, -32602, "prompt argument \"arguments\" must be a string"));
}

TEST_CASE("mcp: prompt arguments that make the text too large are invalid params", "[mcp][hardening]") {
    TempDir dir;
    std::string body;
    for (int i = 0; i < 100; ++i) body += "$ARGUMENTS ";
    dir.write("lib/many/SKILL.md", "---\nname: many\ndescription: d\n---\n" + body + "\n");
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false});
    mcp::ServerOptions options;
    options.log = [](std::string_view) {};
    mcp::Server server(discover_skill_catalog(loader), options);
    auto session = server.open_session();
    const auto get = [&](std::size_t size) {
        const json request = {{"jsonrpc", "2.0"},
                              {"id", 1},
                              {"method", "prompts/get"},
                              {"params",
                               {{"name", "many"},
                                {"arguments", {{"arguments", std::string(size, 'a')}}},
                                {"_meta",
                                 {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                  {"io.modelcontextprotocol/clientCapabilities", json::object()}}}}}};
        const mcp::Exchange ex = server.handle(request.dump(), *session);
        REQUIRE(ex.response);
        return json::parse(*ex.response);
    };
    // 100 x 50,000 bytes: over RENDER_MAX_BYTES (4 MiB) -> -32602, nothing built; the server goes on.
    const json big = get(50'000);
    CHECK(big.at("error").at("code") == -32602);
    CHECK(big.at("error").at("message").get<std::string>().find(std::to_string(RENDER_MAX_BYTES)) != std::string::npos);
    CHECK(get(1'000).at("result").at("messages").size() == 1);
}

TEST_CASE("mcp: JSON-RPC errors per the base protocol, and the server goes on", "[mcp]") {
    Fixture f;
    const json null_id = nullptr;
    const auto err = [](const json& id, int code, const std::string& m) {
        return json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", m}}}};
    };
    CHECK(f.call_text("{not json") == err(null_id, -32700, "Parse error: the message is not valid JSON"));
    CHECK(f.call_text("[]") == err(null_id, -32600, "Invalid Request: batches are not supported"));
    CHECK(f.call_text("42") == err(null_id, -32600, "Invalid Request: a message is a JSON object"));
    CHECK(f.call_text(R"({"jsonrpc":"1.0","id":3,"method":"ping"})") ==
          err(3, -32600, "Invalid Request: jsonrpc must be \"2.0\""));
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":3,"method":7})") ==
          err(3, -32600, "Invalid Request: method must be a string"));
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":null,"method":"ping"})") ==
          err(null_id, -32600, "Invalid Request: id must be a string or a number"));
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":"s","method":"ping","params":[1]})") ==
          err("s", -32602, "Invalid params: params must be an object"));
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":4,"method":"skills/list"})") ==
          err(4, -32600,
              "Invalid Request: skills/list before initialize; send initialize first, or give _meta "
              "io.modelcontextprotocol/protocolVersion 2026-07-28 (stateless era)"));
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":5,"method":"ping"})") ==
          json{{"jsonrpc", "2.0"}, {"id", 5}, {"result", json::object()}});
    f.initialize();
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":6,"method":"no/such"})") == err(6, -32601, "Method not found: no/such"));
    // The method as terminal text: a NUL, an escape sequence or a line break is written as an escape.
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":6,"method":"a\u0000b\u001b[31mc\nd\\e"})") ==
          err(6, -32601, "Method not found: a\\x00b\\x1b[31mc\\nd\\\\e"));
    CHECK(f.call_text(R"({"jsonrpc":"2.0","id":7,"method":"server/discover"})") ==
          err(7, -32601, "Method not found: server/discover"));
    // Notifications and responses get no answer.
    CHECK_FALSE(
        f.server->handle(R"({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}})", *f.session)
            .response);
    CHECK_FALSE(f.server->handle(R"({"jsonrpc":"2.0","id":1,"result":{}})", *f.session).response);
    // Bounds: size and nesting.
    const std::string big = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":")" +
                            std::string(mcp::DEFAULT_MAX_MESSAGE_BYTES, 'a') + "\"}}";
    CHECK(f.call_text(big) == err(null_id, -32600, "Invalid Request: the message is larger than 4194304 bytes"));
    std::string deep = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":)";
    for (int i = 0; i < 100; ++i) deep += "[";
    for (int i = 0; i < 100; ++i) deep += "]";
    deep += "}}";
    CHECK(f.call_text(deep) == err(null_id, -32600, "Invalid Request: the message nests deeper than 64 levels"));
    // Still serving.
    CHECK(f.request("skills/list").at("result").at("skills").size() == 3);
}

TEST_CASE("mcp: every answer carries the request's id exactly as it was written", "[mcp][hardening]") {
    Fixture f;
    f.initialize();
    // The id token, then what the answer must start with: numbers of any size and form come back
    // as their token (nlohmann alone would print 123456789012345678901234567890 as 1.2345678901234568e+29).
    const std::vector<std::pair<std::string, std::string>> ids = {
        {"123456789012345678901234567890", "123456789012345678901234567890"},
        {"-98765432109876543210987654321", "-98765432109876543210987654321"},
        {"18446744073709551615", "18446744073709551615"},
        {"18446744073709551616", "18446744073709551616"},
        {"1.50", "1.50"},
        {"1e2", "1e2"},
        {"-0.0", "-0.0"},
        {"-0", "0"},  // an integer, which nlohmann gives without its text: the same number
        {"0", "0"},
        {"7", "7"},
        {"-3", "-3"},
        {"\"abc\"", "\"abc\""},
        {"\"\"", "\"\""}};
    for (const auto& [token, echoed] : ids) {
        CAPTURE(token);
        for (const std::string& method : {std::string("ping"), std::string("no/such"), std::string("skills/list")}) {
            const std::string request = R"({"jsonrpc":"2.0","id":)" + token + R"(,"method":")" + method + R"("})";
            const mcp::Exchange ex = f.server->handle(request, *f.session);
            REQUIRE(ex.response);
            CHECK(ex.response->rfind(R"({"jsonrpc":"2.0","id":)" + echoed + ",", 0) == 0);
        }
        // resources/read builds its answer without nlohmann: the same rule.
        const json read = {{"uri", "skill://alpha/references/guide.md"}};
        const std::string request =
            R"({"jsonrpc":"2.0","id":)" + token + R"(,"method":"resources/read","params":)" + read.dump() + "}";
        const mcp::Exchange ex = f.server->handle(request, *f.session);
        REQUIRE(ex.response);
        CHECK(ex.response->rfind(R"({"jsonrpc":"2.0","id":)" + echoed + ",", 0) == 0);
    }
    // A number past a double's range is not JSON that nlohmann reads: a parse error, id null.
    const mcp::Exchange huge = f.server->handle(R"({"jsonrpc":"2.0","id":1E400,"method":"ping"})", *f.session);
    REQUIRE(huge.response);
    CHECK(json::parse(*huge.response).at("error").at("code") == -32700);
    CHECK(json::parse(*huge.response).at("id").is_null());
    // A nested "id" is not the request's; two members "id" are refused (a reader that keeps the
    // first would answer another request than one that keeps the last), with a null id.
    const mcp::Exchange nested =
        f.server->handle(R"({"jsonrpc":"2.0","id":1.0,"params":{"id":2.5},"method":"ping"})", *f.session);
    REQUIRE(nested.response);
    CHECK(nested.response->rfind(R"({"jsonrpc":"2.0","id":1.0,)", 0) == 0);
    const mcp::Exchange twice =
        f.server->handle(R"({"jsonrpc":"2.0","id":1.0,"params":{"id":2.5},"method":"ping","id":3.25})", *f.session);
    REQUIRE(twice.response);
    CHECK(
        *twice.response ==
        R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the key \"id\" appears twice in one object"}})");
    // An id that is neither a string nor a number is refused with a null id.
    for (const std::string token : {"null", "true", "[1]", "{}"}) {
        const mcp::Exchange ex =
            f.server->handle(R"({"jsonrpc":"2.0","id":)" + token + R"(,"method":"ping"})", *f.session);
        REQUIRE(ex.response);
        CHECK(json::parse(*ex.response) ==
              json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,)"
                          R"("message":"Invalid Request: id must be a string or a number"}})"));
    }
}

TEST_CASE("mcp: the 2026-07-28 era: discover, _meta, resultType, caching fields, -32022", "[mcp]") {
    Fixture f;  // no initialize: the stateless era needs none
    const json discover = f.request("server/discover", Fixture::modern());
    CHECK(discover.at("result") == json::parse(R"({
        "resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],
        "capabilities":{"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}},
                        "prompts":{"listChanged":true},"resources":{"listChanged":true},"tools":{}},
        "_meta":{"io.modelcontextprotocol/serverInfo":{"name":"agentskills","version":")" +
                                               std::string(version_string) + R"("}},
        "ttlMs":60000,"cacheScope":"public"})"));
    const json list = f.request("skills/list", Fixture::modern()).at("result");
    CHECK(list.at("resultType") == "complete");
    CHECK(list.at("ttlMs") == 60000);
    CHECK(list.at("cacheScope") == "public");
    const json call =
        f.request("tools/call", Fixture::modern({{"name", "activate_skill"}, {"arguments", {{"name", "alpha"}}}}));
    CHECK(call.at("result").at("resultType") == "complete");
    CHECK_FALSE(call.at("result").contains("ttlMs"));
    json wrong = Fixture::modern();
    wrong["_meta"]["io.modelcontextprotocol/protocolVersion"] = "1900-01-01";
    CHECK(f.request("skills/list", wrong) == json::parse(R"({"jsonrpc":"2.0","id":1,"error":{"code":-32022,
        "message":"Unsupported protocol version",
        "data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}})"));
    json no_caps = {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}};
    CHECK(f.request("skills/list", no_caps) ==
          error_of(1, -32602, "_meta io.modelcontextprotocol/clientCapabilities must be an object"));
    CHECK(f.request("initialize", Fixture::modern({{"protocolVersion", "2026-07-28"}})) ==
          error_of(1, -32601, "Method not found: initialize"));
    CHECK(f.request("skills/get", Fixture::modern({{"uri", "skill://x/SKILL.md"}})) ==
          error_of(1, -32602, "No skill is served at skill://x/SKILL.md"));
}

TEST_CASE("mcp: skills over the extension's limits or rules are left out", "[mcp]") {
    TempDir dir;
    dir.write("lib/many/SKILL.md", "---\nname: many\ndescription: d\n---\nx\n");
    for (int i = 0; i < 512; ++i) dir.write("lib/many/f/" + std::to_string(i), "x");
    dir.write("lib/inf/SKILL.md", "---\nname: inf\ndescription: d\nx: .inf\n---\nx\n");
    dir.write("lib/Upper/SKILL.md", "---\nname: Upper\ndescription: d\n---\nx\n");
    dir.write("lib/café/SKILL.md", "---\nname: café\ndescription: d\n---\nx\n");
    dir.write("lib/ok/SKILL.md", "---\nname: ok\ndescription: d\n---\nx\n");
    // Files whose URI resources/read would refuse (parse_skill_uri): never listed, the skill is left out.
    for (const std::string name : {"nl", "badutf", "del", "long"}) {
        dir.write("lib/" + name + "/SKILL.md", "---\nname: " + name + "\ndescription: d\n---\nx\n");
    }
    dir.write("lib/nl/a\nb.md", "x");
    dir.write("lib/badutf/bad\xff.md", "x");
    std::filesystem::create_directories(dir.path("lib/del/d\x7f"));
    dir.write("lib/long/" + std::string(250, 'x') + "/" + std::string(250, 'y') + "/" + std::string(250, 'z') + "/" +
                  std::string(250, 'w') + "/" + std::string(250, 'v') + "/u.md",
              "x");
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false});
    std::vector<std::string> logs;
    mcp::ServerOptions options;
    options.log = [&](std::string_view l) { logs.emplace_back(l); };
    mcp::Server server(discover_skill_catalog(loader), options);
    CHECK(server.served_skill_names() == std::vector<std::string>{"ok"});
    std::map<std::string, std::string> reasons;
    for (const auto& l : server.left_out()) reasons[l.name] = l.reason;
    CHECK(
        reasons.at("nl") ==
        "its file skill://nl/a%0Ab.md cannot be read back by that URI: a segment that decodes to a control character");
    CHECK(reasons.at("badutf") ==
          "its file skill://badutf/bad%FF.md cannot be read back by that URI: a segment that is not UTF-8");
    CHECK(reasons.at("del") ==
          "its directory skill://del/d%7F cannot be read back by that URI: a segment that decodes to a control "
          "character");
    CHECK(reasons.at("long").find("cannot be read back by that URI: longer than 1024 bytes") != std::string::npos);
    CHECK(reasons.at("many") == "it has more than 512 files");
    CHECK(reasons.at("inf") == "the number .inf cannot be represented in JSON");
    CHECK(reasons.at("Upper") == "the name \"Upper\" is not 1-64 ASCII lowercase letters, digits and single hyphens");
    // Valid for Agent Skills, but not a URI segment and refused by the extension's clients.
    CHECK(reasons.at("café") == "the name \"café\" is not 1-64 ASCII lowercase letters, digits and single hyphens");
    CHECK(logs.size() == 8);
}

using agentskills_test::UnlistableReader;

TEST_CASE("mcp: a skill whose files cannot all be listed is left out with the true reason", "[mcp]") {
    TempDir dir;
    dir.write("lib/unread/SKILL.md", "---\nname: unread\ndescription: d\n---\nx\n");
    dir.write("lib/unread/secret/f", "s");
    dir.write("lib/deep/SKILL.md", "---\nname: deep\ndescription: d\n---\nx\n");
    std::string deep = "d";
    for (std::size_t level = 2; level <= mcp::DEFAULT_MAX_JSON_DEPTH + 1; ++level) deep += "/d";
    dir.write("lib/deep/" + deep + "/f", "f");
    dir.write("lib/ok/SKILL.md", "---\nname: ok\ndescription: d\n---\nx\n");
    auto reader = std::make_shared<UnlistableReader>(std::make_shared<LocalSkillReader>());
    reader->unreadable = {dir.path("lib/unread/secret")};
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false, .reader = reader});
    std::vector<std::string> logs;
    mcp::ServerOptions options;
    options.log = [&](std::string_view l) { logs.emplace_back(l); };
    mcp::Server server(discover_skill_catalog(loader), options);
    CHECK(server.served_skill_names() == std::vector<std::string>{"ok"});
    CHECK(logs.size() == 2);
    std::map<std::string, std::string> reasons;
    for (const auto& l : server.left_out()) reasons[l.name] = l.reason;
    CHECK(reasons.at("unread") == "the directory " + dir.path("lib/unread/secret") +
                                      " could not be read (cannot list '" + dir.path("lib/unread/secret") +
                                      "': Permission denied)");
    CHECK(reasons.at("deep") == "the directory " + dir.path("lib/deep/" + deep) + " lies deeper than 64 levels below " +
                                    dir.path("lib/deep"));
}

TEST_CASE("mcp: skills of plugins and groups are served at skill://plugin/skill/SKILL.md", "[mcp]") {
    // A marketplace (two plugins) and a plain library that has a skill named like one plugin.
    TempDir dir;
    dir.write("market/.claude-plugin/marketplace.json", R"({"name": "m", "plugins": [
        {"name": "docs", "source": "./docs"}, {"name": "tools", "source": "./tools"}]})");
    dir.write("market/docs/skills/pdf/SKILL.md", "---\nname: pdf\ndescription: Read PDFs.\n---\nPDF.\n");
    dir.write("market/docs/skills/pdf/references/forms.md", "forms\n");
    dir.write("market/tools/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint.\n---\nLint.\n");
    dir.write("flat/tools/SKILL.md", "---\nname: tools\ndescription: Tools.\n---\nTools.\n");
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {dir.path("market"), dir.path("flat")}, .include_default_roots = false});
    std::vector<std::string> logs;
    mcp::ServerOptions options;
    options.log = [&](std::string_view l) { logs.emplace_back(l); };
    mcp::Server server(discover_skill_catalog(loader), options);
    CHECK(server.served_skill_names() == std::vector<std::string>{"docs:pdf", "tools"});
    // skill://tools/lint/SKILL.md would be a file of the skill `tools` by its URI.
    REQUIRE(server.left_out().size() == 1);
    CHECK(server.left_out()[0].name == "tools:lint");
    CHECK(server.left_out()[0].reason ==
          "its URI skill://tools/lint/SKILL.md lies inside the directory of the served skill \"tools\" "
          "(skill://tools)");
    CHECK(logs == std::vector<std::string>{"agentskills mcp: left out tools:lint (" +
                                           dir.path("market/tools/skills/lint/SKILL.md") +
                                           "): its URI skill://tools/lint/SKILL.md lies inside the directory of "
                                           "the served skill \"tools\" (skill://tools) [mcp-skill-left-out]"});

    auto session = server.open_session();
    const auto ask = [&](const std::string& method, const json& params) {
        const auto ex =
            server.handle(json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(), *session);
        return json::parse(ex.response.value());
    };
    (void)ask("initialize", {{"protocolVersion", "2025-11-25"},
                             {"capabilities", json::object()},
                             {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    const json pdf_md_size = std::string("---\nname: pdf\ndescription: Read PDFs.\n---\nPDF.\n").size();
    const json entry = ask("skills/get", {{"uri", "skill://docs/pdf/SKILL.md"}}).at("result").at("skill");
    CHECK(entry.at("uri") == "skill://docs/pdf/SKILL.md");
    CHECK(entry.at("frontmatter") == json{{"name", "pdf"}, {"description", "Read PDFs."}});
    REQUIRE(entry.at("resources").size() == 2);
    CHECK(entry.at("resources").at(0).at("uri") == "skill://docs/pdf/SKILL.md");
    CHECK(entry.at("resources").at(1).at("uri") == "skill://docs/pdf/references/forms.md");
    CHECK(ask("resources/read", {{"uri", "skill://docs/pdf/references/forms.md"}}).at("result") ==
          json::parse(R"({"contents":[{"uri":"skill://docs/pdf/references/forms.md","mimeType":"text/markdown",
              "text":"forms\n"}]})"));
    CHECK(ask("resources/directory/read", {{"uri", "skill://docs/pdf"}}).at("result") ==
          json::parse(R"({"resources":[
              {"uri":"skill://docs/pdf/SKILL.md","name":"SKILL.md","mimeType":"text/markdown","size":)" +
                      pdf_md_size.dump() + R"(},
              {"uri":"skill://docs/pdf/references","name":"references","mimeType":"inode/directory"}]})"));
    // The plugin alone, the bare skill name, a colon in a segment and the left-out skill name nothing.
    CHECK(ask("resources/directory/read", {{"uri", "skill://docs"}}) ==
          error_of(1, -32602, "No directory resource at skill://docs"));
    CHECK(ask("skills/get", {{"uri", "skill://pdf/SKILL.md"}}) ==
          error_of(1, -32602, "No skill is served at skill://pdf/SKILL.md"));
    CHECK(ask("skills/get", {{"uri", "skill://docs/docs:pdf/SKILL.md"}}) ==
          error_of(1, -32602, "No skill is served at skill://docs/docs:pdf/SKILL.md"));
    CHECK(ask("skills/get", {{"uri", "skill://tools/lint/SKILL.md"}}) ==
          error_of(1, -32602, "No skill is served at skill://tools/lint/SKILL.md"));
    // The tool and the prompts take the catalog name.
    const json call = ask("tools/call", {{"name", "activate_skill"}, {"arguments", {{"name", "docs:pdf"}}}});
    CHECK(call.at("result").at("isError") == false);
    CHECK(call.at("result").at("content").at(0).at("text").get<std::string>().find(
              "<skill_content name=\"docs:pdf\">") != std::string::npos);
    CHECK(ask("prompts/get", {{"name", "docs:pdf"}}).at("result").at("messages").size() == 1);
}

TEST_CASE("mcp: a frontmatter the SDK's reader does not read is left out, with where and what", "[mcp][hardening]") {
    // Each is valid YAML that the library reads; the official SDK's client re-parses SKILL.md
    // with its own subset reader, would refuse these and fail the verification.
    const std::vector<std::pair<std::string, std::string>> outside = {
        {"argument-hint: [optional: date]\n", "a mapping inside a flow collection (`[key: value]`) on line 4"},
        {"x: &a one\ny: *a\n", "an anchor, alias or tag on line 4"},
        {"x: !!str one\n", "an anchor, alias or tag on line 4"},
        {"x: \"two\n  lines\"\n", "a quoted value over more than one line on line 4"},
        {"x: [a,\n  b]\n", "a flow collection over more than one line on line 4"},
        {"x: |2\n   indented\n", "a block scalar indentation indicator on line 4"},
        {"1: one\n", "a key that is not a string ('1') on line 4"},
        {"? complex\n: value\n", "a complex key (`? key`) on line 4"},
        {"x: plain\n \tcontinued\n", "a tab in the indentation on line 5"},
        {"x: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[z]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
         "nesting deeper than 32 levels on line 4"},
    };
    const std::vector<std::string> inside = {"argument-hint: \"[optional: date]\"\n",
                                             "x: [a, {b: c}]\n",
                                             "x: [[a], [b]]\n",
                                             "x: |-\n  block\n",
                                             "x: >\n  folded\n  text\n",
                                             "x: plain\n  continued\n",
                                             "\"1\": one\n",
                                             "x: [a, b] # comment\n"};
    TempDir dir;
    for (std::size_t i = 0; i < outside.size(); ++i) {
        const std::string name = "out-" + std::to_string(i);
        dir.write("lib/" + name + "/SKILL.md",
                  "---\nname: " + name + "\ndescription: d\n" + outside[i].first + "---\nx\n");
    }
    for (std::size_t i = 0; i < inside.size(); ++i) {
        const std::string name = "in-" + std::to_string(i);
        dir.write("lib/" + name + "/SKILL.md", "---\nname: " + name + "\ndescription: d\n" + inside[i] + "---\nx\n");
    }
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false});
    mcp::ServerOptions options;
    options.log = [](std::string_view) {};
    mcp::Server server(discover_skill_catalog(loader), options);
    std::map<std::string, std::string> reasons;
    for (const auto& l : server.left_out()) reasons[l.name] = l.reason;
    for (std::size_t i = 0; i < outside.size(); ++i) {
        const std::string name = "out-" + std::to_string(i);
        CAPTURE(name, outside[i].first);
        REQUIRE(reasons.count(name) == 1);
        CHECK(reasons.at(name) == "the frontmatter has " + outside[i].second +
                                      ", which the official MCP SDK's frontmatter reader does not read, so its "
                                      "clients could not verify the skill");
    }
    std::vector<std::string> served = server.served_skill_names();
    CHECK(served.size() == inside.size());
    for (std::size_t i = 0; i < inside.size(); ++i) {
        CAPTURE(inside[i]);
        CHECK(std::count(served.begin(), served.end(), "in-" + std::to_string(i)) == 1);
    }
}

TEST_CASE("mcp: stdio transport, one message per line, over-long lines refused", "[mcp]") {
    Fixture f;
    std::string input = R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})"
                        "\n\n"
                        R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                        "\n";
    input += std::string(mcp::DEFAULT_MAX_MESSAGE_BYTES + 10, ' ') + "x\n";
    input += R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
             "\r\n";
    // Exactly the limit, with LF and with CRLF (the CR is not part of the message); one byte more.
    const auto ping_of = [](std::size_t size, int id) {
        std::string m = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) + R"(,"method":"ping"})";
        m.insert(1, size - m.size(), ' ');
        return m;
    };
    const std::size_t limit = mcp::DEFAULT_MAX_MESSAGE_BYTES;
    input += ping_of(limit, 3) + "\n" + ping_of(limit, 4) + "\r\n" + ping_of(limit + 1, 5) + "\r\n" +
             ping_of(limit, 6) + "\r\r\n";
    std::istringstream in(input);
    std::ostringstream out;
    CHECK(mcp::serve_stdio(*f.server, in, out) == 0);
    std::istringstream lines(out.str());
    std::vector<json> replies;
    for (std::string line; std::getline(lines, line);) replies.push_back(json::parse(line));
    REQUIRE(replies.size() == 7);
    CHECK(replies[3] == json{{"jsonrpc", "2.0"}, {"id", 3}, {"result", json::object()}});
    CHECK(replies[4] == json{{"jsonrpc", "2.0"}, {"id", 4}, {"result", json::object()}});
    CHECK(replies[5].at("error").at("code") == -32600);
    CHECK(replies[6].at("error").at("code") == -32600);
    CHECK(replies[0].at("result").at("protocolVersion") == "2025-11-25");
    CHECK(replies[1] == json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,
        "message":"Invalid Request: the message is larger than 4194304 bytes"}})"));
    CHECK(replies[2] == json{{"jsonrpc", "2.0"}, {"id", 2}, {"result", json::object()}});
}

TEST_CASE("mcp: one server handles many sessions from many threads", "[mcp][concurrency]") {
    Fixture f;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&f, &failures, t] {
            auto session = f.server->open_session();
            for (int i = 0; i < 50; ++i) {
                const json req = {{"jsonrpc", "2.0"},
                                  {"id", i},
                                  {"method", i % 3 == 0   ? "skills/list"
                                             : i % 3 == 1 ? "resources/read"
                                                          : "tools/call"},
                                  {"params", Fixture::modern({{"uri", "skill://alpha/references/guide.md"},
                                                              {"name", "activate_skill"},
                                                              {"arguments", {{"name", "gamma"}}}})}};
                const mcp::Exchange ex = f.server->handle(req.dump(), *session);
                if (!ex.response || ex.error_code != 0) failures.fetch_add(1);
            }
            (void)t;
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
}

}  // namespace mcp_server_tests

// =======================================================================================
// The MCP server's Streamable HTTP transport on loopback: status codes, Origin, sessions, headers.

namespace mcp_http_tests {

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
    auto not_found = f.post(unknown, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "no/such"}});
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

namespace {

using Clock = std::chrono::steady_clock;

/// A raw loopback TCP connection to the server (slow, idle and pipelined clients), closed when
/// destroyed; from source address `from` (any 127.x.y.z) when given.
struct RawClient {
    int fd = -1;
    explicit RawClient(int port, const char* from = nullptr) : fd(open(port, from)) { REQUIRE(fd >= 0); }
    /// Without a Catch assertion (Catch's are not thread-safe): `fd` is -1 when it fails.
    RawClient(int port, std::nothrow_t) : fd(open(port, nullptr)) {}
    static int open(int port, const char* from) {
        const int s = ::socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0) return -1;
        if (from != nullptr) {
            sockaddr_in local{};
            local.sin_family = AF_INET;
            ::inet_pton(AF_INET, from, &local.sin_addr);
            if (::bind(s, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
                ::close(s);
                return -1;
            }
        }
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<std::uint16_t>(port));
        ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
        if (::connect(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
            ::close(s);
            return -1;
        }
        return s;
    }
    RawClient(const RawClient&) = delete;
    RawClient& operator=(const RawClient&) = delete;
    RawClient(RawClient&& other) noexcept : fd(std::exchange(other.fd, -1)) {}
    ~RawClient() {
        if (fd >= 0) ::close(fd);
    }
    /// False when the server has closed (or reset) the connection.
    bool send(std::string_view bytes) const {
        while (!bytes.empty()) {
            const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
            if (n <= 0) return false;
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }
    /// Waits up to `timeout` for bytes: what came, "" when the server closed, nullopt on timeout.
    std::optional<std::string> receive(std::chrono::milliseconds timeout) const {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(timeout.count())) <= 0) return std::nullopt;
        char chunk[65536];
        const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
        return n <= 0 ? std::string() : std::string(chunk, static_cast<std::size_t>(n));
    }
    /// Reads `count` whole responses (status, body), within `timeout` in all; fewer when the server
    /// closes or the time is up.
    std::vector<std::pair<int, std::string>> responses(std::size_t count, std::chrono::milliseconds timeout) const {
        std::vector<std::pair<int, std::string>> out;
        std::string pending;
        const auto until = Clock::now() + timeout;
        while (out.size() < count) {
            const std::size_t end = pending.find("\r\n\r\n");
            if (end != std::string::npos) {
                const std::string head = pending.substr(0, end);
                std::size_t length = 0;
                for (const char* name : {"Content-Length: ", "content-length: "}) {
                    if (const std::size_t at = head.find(name); at != std::string::npos) {
                        length = std::stoul(head.substr(at + std::strlen(name)));
                    }
                }
                if (pending.size() >= end + 4 + length) {
                    out.emplace_back(std::stoi(head.substr(9, 3)), pending.substr(end + 4, length));
                    pending.erase(0, end + 4 + length);
                    continue;
                }
            }
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
            if (left.count() <= 0) break;
            const auto got = receive(left);
            if (!got || got->empty()) break;
            pending += *got;
        }
        return out;
    }
};

std::string http_post(const std::string& body, const std::vector<std::string>& headers = {},
                      const std::string& host = "127.0.0.1") {
    std::string text = "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n";
    for (const auto& h : headers) text += h + "\r\n";
    return text + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string modern_request(int id, const std::string& method, json params = json::object()) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
}

const std::vector<std::string> MODERN_LIST_HEADERS = {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: skills/list"};

/// A fresh client's skills/list, answered 200: the milliseconds it took, from connect to answer.
long fresh_client_ms(int port) {
    const auto start = Clock::now();
    RawClient fresh(port);
    REQUIRE(fresh.send(http_post(MODERN_LIST, MODERN_LIST_HEADERS)));
    const auto got = fresh.responses(1, std::chrono::milliseconds(5000));
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    REQUIRE(got.size() == 1);
    CHECK(got[0].first == 200);
    return static_cast<long>(ms);
}

/// Raises the soft limit on open files to at least `wanted` (the hard limit allowing).
void want_descriptors(rlim_t wanted) {
    rlimit limit{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
    if (limit.rlim_cur < wanted) {
        limit.rlim_cur = std::min(wanted, limit.rlim_max);
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
    }
    REQUIRE(limit.rlim_cur >= wanted);
}

}  // namespace

TEST_CASE("mcp http: pipelined requests are all answered, in order", "[mcp][http]") {
    HttpFixture f;
    RawClient client(f.port);
    std::string three;
    for (int id : {11, 12, 13}) three += http_post(modern_request(id, "skills/list"), MODERN_LIST_HEADERS);
    REQUIRE(client.send(three));
    const auto got = client.responses(3, std::chrono::milliseconds(5000));
    REQUIRE(got.size() == 3);
    for (int i = 0; i < 3; ++i) {
        CHECK(got[static_cast<std::size_t>(i)].first == 200);
        CHECK(json::parse(got[static_cast<std::size_t>(i)].second).at("id") == 11 + i);
    }
    // The connection stays open for a fourth.
    REQUIRE(client.send(http_post(modern_request(14, "skills/list"), MODERN_LIST_HEADERS)));
    const auto fourth = client.responses(1, std::chrono::milliseconds(5000));
    REQUIRE(fourth.size() == 1);
    CHECK(json::parse(fourth[0].second).at("id") == 14);
}

TEST_CASE("mcp http: Expect: 100-continue is answered before the body", "[mcp][http]") {
    HttpFixture f;
    RawClient client(f.port);
    std::string request =
        http_post(MODERN_LIST, {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: skills/list", "Expect: 100-continue"});
    const std::size_t head = request.find("\r\n\r\n") + 4;
    REQUIRE(client.send(request.substr(0, head)));
    const auto interim = client.receive(std::chrono::milliseconds(3000));
    REQUIRE(interim.has_value());
    CHECK(interim->rfind("HTTP/1.1 100 Continue\r\n", 0) == 0);
    REQUIRE(client.send(request.substr(head)));
    const auto got = client.responses(1, std::chrono::milliseconds(3000));
    REQUIRE(got.size() == 1);
    CHECK(got[0].first == 200);
}

TEST_CASE("mcp http: slow clients never stop a fresh one; a request has a total deadline", "[mcp][http]") {
    mcp::HttpOptions options = HttpFixture::http();
    options.request_timeout = std::chrono::milliseconds(1500);
    agentskills_test::McpHttpFixture f({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}},
                                       {}, options);
    want_descriptors(512);
    // 64 clients send a request's headers one line at a time, a line every 100 ms.
    std::vector<RawClient> slow;
    for (int i = 0; i < 64; ++i) {
        slow.emplace_back(f.port);
        REQUIRE(slow.back().send("POST /mcp HTTP/1.1\r\n"));
    }
    std::atomic<bool> done{false};
    std::atomic<int> closed_by_server{0};
    std::thread trickle([&] {
        std::vector<bool> open(slow.size(), true);
        for (int line = 0; !done.load(); ++line) {
            for (std::size_t i = 0; i < slow.size(); ++i) {
                if (open[i] && !slow[i].send("X-Slow-" + std::to_string(line) + ": 1\r\n")) {
                    open[i] = false;
                    closed_by_server.fetch_add(1);
                }
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    CHECK(fresh_client_ms(f.port) < 500);
    // Past the deadline (1.5 s from each request's first byte) every slow client is cut off,
    // although it never stopped sending.
    std::this_thread::sleep_for(std::chrono::milliseconds(3000));
    done = true;
    trickle.join();
    int cut = 0;
    for (const auto& c : slow) {
        const auto rest = c.receive(std::chrono::milliseconds(100));
        if (closed_by_server.load() == 64 || (rest && rest->empty())) ++cut;
    }
    CHECK(cut == 64);
    CHECK(fresh_client_ms(f.port) < 500);
}

TEST_CASE("mcp http: 1,000 idle keep-alive connections and a fresh client answered within 100 ms", "[mcp][http]") {
    want_descriptors(4096);
    HttpFixture f;
    std::vector<RawClient> idle;
    for (int i = 0; i < 1000; ++i) {
        idle.emplace_back(f.port);
        REQUIRE(idle.back().send(http_post(modern_request(i, "skills/list"), MODERN_LIST_HEADERS)));
    }
    for (const auto& c : idle) REQUIRE(c.responses(1, std::chrono::milliseconds(10000)).size() == 1);
    // All 1,000 are open and idle now; a new client is answered at once.
    long best = 100000;
    for (int attempt = 0; attempt < 3; ++attempt) best = std::min(best, fresh_client_ms(f.port));
    CHECK(best < 100);
    // And the idle ones are still served.
    for (std::size_t i = 0; i < idle.size(); i += 100) {
        REQUIRE(idle[i].send(http_post(modern_request(5000, "skills/list"), MODERN_LIST_HEADERS)));
        const auto again = idle[i].responses(1, std::chrono::milliseconds(5000));
        REQUIRE(again.size() == 1);
        CHECK(again[0].first == 200);
    }
}

TEST_CASE("mcp http: an idle keep-alive connection is closed after idle_timeout", "[mcp][http]") {
    mcp::HttpOptions options = HttpFixture::http();
    options.idle_timeout = std::chrono::milliseconds(300);
    agentskills_test::McpHttpFixture f({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}},
                                       {}, options);
    RawClient client(f.port);
    REQUIRE(client.send(http_post(MODERN_LIST, MODERN_LIST_HEADERS)));
    REQUIRE(client.responses(1, std::chrono::milliseconds(5000)).size() == 1);
    const auto start = Clock::now();
    const auto rest = client.receive(std::chrono::milliseconds(3000));
    REQUIRE(rest.has_value());
    CHECK(rest->empty());  // closed by the server
    CHECK(Clock::now() - start < std::chrono::milliseconds(2000));
}

TEST_CASE("mcp http: connections are capped per client address and in all", "[mcp][http]") {
    mcp::HttpOptions options = HttpFixture::http();
    options.max_connections_per_client = 2;
    options.max_connections = 3;
    agentskills_test::McpHttpFixture f({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}},
                                       {}, options);
    const auto served = [&](const RawClient& c) {
        if (!c.send(http_post(MODERN_LIST, MODERN_LIST_HEADERS))) return false;
        const auto got = c.responses(1, std::chrono::milliseconds(3000));
        return got.size() == 1 && got[0].first == 200;
    };
    RawClient a1(f.port, "127.0.0.1");
    RawClient a2(f.port, "127.0.0.1");
    CHECK(served(a1));
    CHECK(served(a2));
    {
        RawClient a3(f.port, "127.0.0.1");  // a third from the same address
        CHECK_FALSE(served(a3));
    }
    RawClient b1(f.port, "127.0.0.2");  // another address: the third connection in all
    CHECK(served(b1));
    {
        RawClient b2(f.port, "127.0.0.2");  // a fourth in all
        CHECK_FALSE(served(b2));
    }
    // A closed connection frees its place, once the server has seen it close (tried again for
    // up to 20 s, as the server may see the close late).
    { RawClient gone(std::move(a1)); }
    bool again = false;
    for (const auto deadline = Clock::now() + std::chrono::seconds(20); !again && Clock::now() < deadline;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        RawClient a4(f.port, "127.0.0.1");
        again = served(a4);
    }
    CHECK(again);
}

TEST_CASE("mcp http: Host must be loopback or allowed", "[mcp][http]") {
    mcp::HttpOptions options = HttpFixture::http();
    options.allowed_hosts = {"mcp.example", "other.example:8443"};
    agentskills_test::McpHttpFixture f({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}},
                                       {}, options);
    const auto status_for = [&](const std::string& host) {
        RawClient c(f.port);
        REQUIRE(c.send(http_post(MODERN_LIST, MODERN_LIST_HEADERS, host)));
        const auto got = c.responses(1, std::chrono::milliseconds(3000));
        REQUIRE(got.size() == 1);
        if (got[0].first == 403) CHECK(json::parse(got[0].second).at("error").at("code") == -32600);
        return got[0].first;
    };
    for (const char* ok : {"localhost", "localhost:3000", "127.0.0.1:1", "[::1]", "[::1]:8080", "mcp.example",
                           "mcp.example:80", "other.example:8443"}) {
        CAPTURE(ok);
        CHECK(status_for(ok) == 200);
    }
    for (const char* bad : {"evil.example", "localhost.evil.example", "127.0.0.1.evil.example", "127.0.0.1:80x",
                            "other.example", "other.example:9000", "mcp.example.evil"}) {
        CAPTURE(bad);
        CHECK(status_for(bad) == 403);
    }
    // No Host at all (HTTP/1.1 requires one).
    RawClient none(f.port);
    REQUIRE(none.send("POST /mcp HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"));
    const auto got = none.responses(1, std::chrono::milliseconds(3000));
    REQUIRE(got.size() == 1);
    CHECK(got[0].first == 403);
}

TEST_CASE("mcp http: Mcp-Method and Mcp-Name are required and must match the body", "[mcp][http]") {
    HttpFixture f;
    const httplib::Headers modern = {{"MCP-Protocol-Version", "2026-07-28"}};
    const auto with = [&](std::initializer_list<std::pair<const std::string, std::string>> more) {
        httplib::Headers h = modern;
        for (const auto& kv : more) h.insert(kv);
        return h;
    };
    const auto mismatch = [](const std::pair<int, json>& r) {
        return r.first == 400 && r.second.at("error").at("code") == -32020;
    };
    // Mcp-Method: required for every request, equal to the method.
    CHECK(mismatch(f.post_json(modern_request(1, "skills/list"), modern)));
    CHECK(mismatch(f.post_json(modern_request(1, "skills/list"), with({{"Mcp-Method", "Skills/list"}}))));
    CHECK(f.post_json(modern_request(1, "skills/list"), with({{"Mcp-Method", "skills/list"}})).first == 200);

    // Mcp-Name: tools/call names the tool, prompts/get the prompt, resources/read the URI.
    const json call = {{"name", "activate_skill"}, {"arguments", {{"name", "alpha"}}}};
    CHECK(mismatch(f.post_json(modern_request(2, "tools/call", call), with({{"Mcp-Method", "tools/call"}}))));
    CHECK(mismatch(f.post_json(modern_request(2, "tools/call", call),
                               with({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "other_tool"}}))));
    CHECK(f.post_json(modern_request(2, "tools/call", call),
                      with({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "activate_skill"}}))
              .first == 200);
    // A name in the base64 sentinel is decoded before the comparison; a broken sentinel is refused.
    const std::string encoded = "=?base64?" + mcp::detail::base64_encode("activate_skill") + "?=";
    CHECK(
        f.post_json(modern_request(3, "tools/call", call), with({{"Mcp-Method", "tools/call"}, {"Mcp-Name", encoded}}))
            .first == 200);
    CHECK(mismatch(f.post_json(modern_request(3, "tools/call", call),
                               with({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "=?base64?!!!?="}}))));

    const json read = {{"uri", "skill://alpha/SKILL.md"}};
    CHECK(mismatch(f.post_json(modern_request(4, "resources/read", read), with({{"Mcp-Method", "resources/read"}}))));
    CHECK(mismatch(f.post_json(modern_request(4, "resources/read", read),
                               with({{"Mcp-Method", "resources/read"}, {"Mcp-Name", "skill://beta/SKILL.md"}}))));
    CHECK(f.post_json(modern_request(4, "resources/read", read),
                      with({{"Mcp-Method", "resources/read"}, {"Mcp-Name", "skill://alpha/SKILL.md"}}))
              .first == 200);

    const json prompt = {{"name", "alpha"}};
    CHECK(mismatch(f.post_json(modern_request(5, "prompts/get", prompt), with({{"Mcp-Method", "prompts/get"}}))));
    CHECK(f.post_json(modern_request(5, "prompts/get", prompt),
                      with({{"Mcp-Method", "prompts/get"}, {"Mcp-Name", "alpha"}}))
              .first == 200);

    // The check reads the body as the handler does: keys come in any order, and a "name" or
    // "_meta" anywhere but directly in params is not one. A key given twice in one object is
    // refused whichever header would match it (a reader in front of us that kept the first
    // "method" would see another request): the handler's -32600, not a header mismatch.
    const std::string meta = R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
                             R"("io.modelcontextprotocol/clientCapabilities":{}})";
    const std::string twice =
        R"({"jsonrpc":"2.0","id":6,"method":"tools/list","method":"skills/list","params":{)" + meta + "}}";
    for (const char* method : {"skills/list", "tools/list"}) {
        const auto [status, body] = f.post_json(twice, with({{"Mcp-Method", method}}));
        CHECK(status == 400);
        CHECK(body == json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,)"
                                  R"("message":"Invalid Request: the key \"method\" appears twice in one object"}})"));
    }
    const std::string reordered = R"({"params":{"arguments":{"name":"alpha","_meta":{}},"name":"activate_skill",)" +
                                  meta + R"(},"method":"tools/call","id":7,"jsonrpc":"2.0"})";
    CHECK(f.post_json(reordered, with({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "activate_skill"}})).first == 200);
    CHECK(mismatch(f.post_json(reordered, with({{"Mcp-Method", "tools/call"}, {"Mcp-Name", "alpha"}}))));
    // Two _meta members: refused the same way.
    const std::string meta_twice = R"({"jsonrpc":"2.0","id":8,"method":"skills/list","params":{)" + meta +
                                   R"(,"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}})";
    const auto [meta_status, meta_body] = f.post_json(meta_twice, with({{"Mcp-Method", "skills/list"}}));
    CHECK(meta_status == 400);
    CHECK(meta_body.at("error").at("message") == "Invalid Request: the key \"_meta\" appears twice in one object");

    // A notification needs no Mcp-Method (the SDK's server too), but one that is sent must match.
    json note = {{"jsonrpc", "2.0"},
                 {"method", "notifications/cancelled"},
                 {"params", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"}}}}}};
    CHECK(f.post_json(note.dump(), modern).first == 202);
    CHECK(mismatch(f.post_json(note.dump(), with({{"Mcp-Method", "ping"}}))));
}

TEST_CASE("mcp http: the header check reads the era from the parsed body, escapes and all", "[mcp][http]") {
    HttpFixture f;
    const auto mismatch = [](const std::pair<int, json>& r) {
        return r.first == 400 && r.second.at("error").at("code") == -32020;
    };
    // The `_meta` key written with JSON escapes is the same key to the handler, so the request is
    // of the 2026-07-28 era and its headers are checked as any other's.
    for (const std::string key :
         {R"(io.modelcontextprotocol\/protocolVersion)", R"(io.modelcontextprotocol\u002fprotocolVersion)",
          R"(\u0069o.modelcontextprotocol/protocolVersion)"}) {
        CAPTURE(key);
        const std::string body = R"({"jsonrpc":"2.0","id":1,"method":"resources/read","params":{)"
                                 R"("uri":"skill://alpha/SKILL.md","_meta":{")" +
                                 key + R"(":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}})";
        CHECK(mismatch(f.post_json(body, {})));
        CHECK(mismatch(f.post_json(body, {{"Mcp-Method", "resources/read"}, {"Mcp-Name", "skill://alpha/SKILL.md"}})));
        CHECK(mismatch(f.post_json(
            body,
            {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "ping"}, {"Mcp-Name", "skill://beta/SKILL.md"}})));
        CHECK(mismatch(f.post_json(body, {{"MCP-Protocol-Version", "2026-07-28"}, {"Mcp-Method", "resources/read"}})));
        const auto ok = f.post_json(body, {{"MCP-Protocol-Version", "2026-07-28"},
                                           {"Mcp-Method", "resources/read"},
                                           {"Mcp-Name", "skill://alpha/SKILL.md"}});
        CHECK(ok.first == 200);
        CHECK(ok.second.at("result").at("resultType") == "complete");  // handled as 2026-07-28
    }
    // A version that is not a string is a claim too: no header can equal it.
    const std::string number = R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{)"
                               R"("io.modelcontextprotocol/protocolVersion":20260728,)"
                               R"("io.modelcontextprotocol/clientCapabilities":{}}}})";
    CHECK(mismatch(f.post_json(number, {})));
}

TEST_CASE("mcp http: an unsupported MCP-Protocol-Version header is 400", "[mcp][http]") {
    HttpFixture f;
    auto init = f.post(INIT);
    REQUIRE(init);
    REQUIRE(init->status == 200);
    const std::string session = init->get_header_value("Mcp-Session-Id");
    const std::string list = R"({"jsonrpc":"2.0","id":2,"method":"skills/list"})";
    const std::string unsupported_message =
        "Bad Request: unsupported MCP-Protocol-Version (this server speaks 2026-07-28, 2025-11-25, 2025-06-18, "
        "2025-03-26)";
    for (const char* bad : {"1999-01-01", "2025-11-26", "latest", "2025-11-25,2025-06-18"}) {
        CAPTURE(bad);
        auto r = f.post(list, {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", bad}});
        REQUIRE(r);
        CHECK(r->status == 400);
        const json error = json::parse(r->body).at("error");
        CHECK(error.at("code") == -32600);
        CHECK(error.at("message") == unsupported_message);
    }
    // Before a session too: an initialize that names a version this server does not speak.
    auto bad_init = f.post(INIT, {{"MCP-Protocol-Version", "1999-01-01"}});
    REQUIRE(bad_init);
    CHECK(bad_init->status == 400);
    CHECK(json::parse(bad_init->body).at("error").at("code") == -32600);
    // The handshake versions, or no header (taken as 2025-03-26), are served.
    for (const char* ok : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
        auto r = f.post(list, {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", ok}});
        REQUIRE(r);
        CHECK(r->status == 200);
    }
    auto none = f.post(list, {{"Mcp-Session-Id", session}});
    REQUIRE(none);
    CHECK(none->status == 200);
    // A 2026-07-28 header on a request without the body's claim stays a mismatch (-32020).
    auto modern = f.post(list, {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "2026-07-28"}});
    REQUIRE(modern);
    CHECK(modern->status == 400);
    CHECK(json::parse(modern->body).at("error").at("code") == -32020);
    // DELETE with an unsupported version ends nothing.
    httplib::Client client("127.0.0.1", f.port);
    auto del = client.Delete("/mcp", {{"Mcp-Session-Id", session}, {"MCP-Protocol-Version", "1999-01-01"}});
    REQUIRE(del);
    CHECK(del->status == 400);
    CHECK(json::parse(del->body).at("error").at("code") == -32600);
    auto still = f.post(list, {{"Mcp-Session-Id", session}});
    REQUIRE(still);
    CHECK(still->status == 200);
}

TEST_CASE("mcp http: Content-Type is parsed as a media type", "[mcp][http]") {
    HttpFixture f;
    const auto status_for = [&](const std::string& content_type) {
        RawClient c(f.port);
        std::string request = http_post(MODERN_LIST, MODERN_LIST_HEADERS);
        const std::string plain = "Content-Type: application/json\r\n";
        request.replace(request.find(plain), plain.size(),
                        content_type.empty() ? std::string() : "Content-Type: " + content_type + "\r\n");
        REQUIRE(c.send(request));
        const auto got = c.responses(1, std::chrono::milliseconds(5000));
        REQUIRE(got.size() == 1);
        if (got[0].first == 415) {
            CHECK(json::parse(got[0].second) ==
                  json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,)"
                              R"("message":"Unsupported Media Type: send application/json"}})"));
        }
        return got[0].first;
    };
    for (const char* ok :
         {"application/json", "Application/JSON", "APPLICATION/json", "application/json; charset=utf-8",
          "application/json;charset=UTF-8", "application/json ; charset=\"utf-8\""}) {
        CAPTURE(ok);
        CHECK(status_for(ok) == 200);
    }
    for (const char* bad : {"application/jsonfoo", "application/json-patch+json", "application/json5", "text/plain",
                            "application/", "json", "application/json/x", "application / json", ""}) {
        CAPTURE(bad);
        CHECK(status_for(bad) == 415);
    }
}

TEST_CASE("mcp http: a repeated Host, Origin, session or MCP header is 400", "[mcp][http]") {
    HttpFixture f;
    auto init = f.post(INIT);
    REQUIRE(init);
    const std::string session = init->get_header_value("Mcp-Session-Id");
    const auto answer_to = [&](const std::vector<std::string>& headers) {
        RawClient c(f.port);
        REQUIRE(c.send(http_post(MODERN_LIST, headers)));
        const auto got = c.responses(1, std::chrono::milliseconds(5000));
        REQUIRE(got.size() == 1);
        return got[0];
    };
    const auto refused = [&](const std::vector<std::string>& headers, const std::string& name) {
        const auto got = answer_to(headers);
        CHECK(got.first == 400);
        CHECK(json::parse(got.second) ==
              json{{"jsonrpc", "2.0"},
                   {"id", nullptr},
                   {"error", {{"code", -32600}, {"message", "Bad Request: more than one " + name + " header"}}}});
    };
    std::vector<std::string> modern = MODERN_LIST_HEADERS;
    const auto with = [&](std::initializer_list<std::string> more) {
        std::vector<std::string> h = modern;
        h.insert(h.end(), more);
        return h;
    };
    // http_post writes `Host: 127.0.0.1` and one Content-Type first.
    refused(with({"Host: evil.example"}), "Host");
    refused(with({"Host: 127.0.0.1"}), "Host");  // even the same value twice (RFC 9112 3.2)
    refused(with({"Origin: http://localhost", "Origin: http://evil.example"}), "Origin");
    refused(with({"Content-Type: text/plain"}), "Content-Type");
    refused(with({"Mcp-Session-Id: " + session, "Mcp-Session-Id: feed"}), "Mcp-Session-Id");
    refused(with({"MCP-Protocol-Version: 2025-11-25"}), "MCP-Protocol-Version");
    refused(with({"Mcp-Method: tools/list"}), "Mcp-Method");
    refused(with({"Mcp-Name: a", "mcp-name: b"}), "Mcp-Name");
    // One of each is served; a header the transport does not read may repeat.
    CHECK(answer_to(with({"Origin: http://localhost", "X-Other: 1", "X-Other: 2"})).first == 200);
}

TEST_CASE("mcp http: io threads past MAX_HTTP_THREADS are a configuration error", "[mcp][http]") {
    agentskills_test::TempDir dir;
    dir.write("lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n");
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {dir.path("lib")}, .include_default_roots = false});
    mcp::Server server(discover_skill_catalog(loader));
    mcp::HttpOptions options = HttpFixture::http();
    options.threads = mcp::MAX_HTTP_THREADS + 1;
    CHECK_THROWS_MATCHES(mcp::serve_http(server, options), ConfigurationError,
                         Catch::Matchers::Message("HttpOptions::threads is 257, over the bound of 256"));
}

namespace {

using Answer = std::pair<int, std::string>;

// Asks `ping` every 20 ms until it is refused (at most a minute); returns the last answer.
Answer first_refusal(const std::function<Answer()>& ping) {
    Answer got{0, ""};
    for (const auto deadline = Clock::now() + std::chrono::seconds(60); Clock::now() < deadline;) {
        got = ping();
        if (got.first != 200) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return got;
}

// Reads the two answers `slow` waited for (each a whole file of `size` bytes), then asks `ping`
// until it is served again (at most a minute).
void read_then_served(const RawClient& slow, std::size_t size, const std::function<Answer()>& ping) {
    const auto both = slow.responses(2, std::chrono::milliseconds(60000));
    REQUIRE(both.size() == 2);
    for (const auto& [status, body] : both) {
        CHECK(status == 200);
        CHECK(json::parse(body).at("result").at("contents").at(0).at("text").get_ref<const std::string&>().size() ==
              size);
    }
    bool served = false;
    for (const auto deadline = Clock::now() + std::chrono::seconds(60); !served && Clock::now() < deadline;) {
        served = ping().first == 200;
        if (!served) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(served);
}

}  // namespace

TEST_CASE("mcp http: answers not yet written are capped in all; past the cap a request gets 503", "[mcp][http]") {
    // A file whose answer is larger than the kernel holds for a client that does not read
    // (loopback: the server's send buffer, at most 4 MiB by default, and the client's receive
    // buffer, which grows only as the client reads).
    const std::string big(12u * 1024u * 1024u, 'a');
    mcp::HttpOptions options = HttpFixture::http();
    options.max_unsent_bytes = 1024u * 1024u;
    options.request_timeout = std::chrono::seconds(120);  // the reader below is not cut off meanwhile
    agentskills_test::McpHttpFixture f(
        {{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}, {"lib/alpha/big.txt", big}}, {},
        options);
    const std::string uri = "skill://alpha/big.txt";
    const std::string read =
        http_post(modern_request(1, "resources/read", {{"uri", uri}}),
                  {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: resources/read", "Mcp-Name: " + uri});
    const auto ping = [&] {
        RawClient c(f.port);
        REQUIRE(c.send(http_post(modern_request(2, "ping"), {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: ping"})));
        const auto got = c.responses(1, std::chrono::milliseconds(10000));
        REQUIRE(got.size() == 1);
        return got[0];
    };
    CHECK(ping().first == 200);

    // A client that asks for the big file, twice on one connection, and reads nothing yet.
    RawClient slow(f.port);
    REQUIRE(slow.send(read + read));
    // Once its answer is built and waiting (more than the cap), a new request is refused unhandled.
    const Answer refused = first_refusal(ping);
    REQUIRE(refused.first == 503);
    CHECK(json::parse(refused.second) ==
          json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,)"
                      R"("message":"Service Unavailable: the server holds too many unsent answers; retry later"}})"));

    // The slow client reads its answers: the first is whole; the second was read only after the
    // first was written, when the cap no longer held (its own answer counted no more) and so is
    // whole too. Then new requests are answered again.
    read_then_served(slow, big.size(), ping);
}

TEST_CASE("mcp http: one client's unsent answers are capped by its share; other clients are still answered",
          "[mcp][http]") {
    const std::string big(12u * 1024u * 1024u, 'a');
    mcp::HttpOptions options = HttpFixture::http();
    options.max_unsent_bytes = 0;  // no cap in all: the share alone is what refuses
    options.max_unsent_bytes_per_client = 1024u * 1024u;
    options.request_timeout = std::chrono::seconds(120);
    agentskills_test::McpHttpFixture f(
        {{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}, {"lib/alpha/big.txt", big}}, {},
        options);
    const std::string uri = "skill://alpha/big.txt";
    const std::string read =
        http_post(modern_request(1, "resources/read", {{"uri", uri}}),
                  {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: resources/read", "Mcp-Name: " + uri});
    const auto ping_from = [&](const char* address) {
        RawClient c(f.port, address);
        REQUIRE(c.send(http_post(modern_request(2, "ping"), {"MCP-Protocol-Version: 2026-07-28", "Mcp-Method: ping"})));
        const auto got = c.responses(1, std::chrono::milliseconds(10000));
        REQUIRE(got.size() == 1);
        return got[0];
    };
    CHECK(ping_from("127.0.0.1").first == 200);

    // 127.0.0.1 asks for the big file twice on one connection and reads nothing yet.
    RawClient slow(f.port, "127.0.0.1");
    REQUIRE(slow.send(read + read));
    const auto ping_local = [&] { return ping_from("127.0.0.1"); };
    const Answer refused = first_refusal(ping_local);
    REQUIRE(refused.first == 503);
    CHECK(json::parse(refused.second) ==
          json::parse(R"({"jsonrpc":"2.0","id":null,"error":{"code":-32600,)"
                      R"("message":"Service Unavailable: the server holds too many unsent answers for this client; )"
                      R"(retry later"}})"));
    // Another address is answered meanwhile (and its answer is not held against 127.0.0.1).
    const auto other = ping_from("127.0.0.2");
    CHECK(other.first == 200);
    CHECK(json::parse(other.second) == json{{"jsonrpc", "2.0"}, {"id", 2}, {"result", {{"resultType", "complete"}}}});
    CHECK(ping_from("127.0.0.1").first == 503);

    // Once the slow client has read its answers, its requests are answered again.
    read_then_served(slow, big.size(), ping_local);
}

TEST_CASE("mcp http: many clients at once over keep-alive connections", "[mcp][http][concurrency]") {
    // 200 handshake sessions from one address: the per-client session cap is not what this tests.
    mcp::HttpOptions options = HttpFixture::http();
    options.max_sessions_per_client = 0;
    agentskills_test::McpHttpFixture f({{"lib/alpha/SKILL.md", "---\nname: alpha\ndescription: First.\n---\nBody.\n"}},
                                       {}, options);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            RawClient c(f.port, std::nothrow);
            if (c.fd < 0) {
                failures.fetch_add(1);
                return;
            }
            for (int i = 0; i < 25; ++i) {
                const int id = t * 1000 + i;
                std::string batch = http_post(modern_request(id, "skills/list"), MODERN_LIST_HEADERS);
                batch += http_post(INIT, {});
                if (!c.send(batch)) {
                    failures.fetch_add(1);
                    return;
                }
                const auto got = c.responses(2, std::chrono::milliseconds(10000));
                if (got.size() != 2 || got[0].first != 200 || json::parse(got[0].second).at("id") != id ||
                    got[1].first != 200) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
}

}  // namespace mcp_http_tests

// =======================================================================================
// The MCP server's frontmatter -> JSON conversion (YAML 1.2 core schema) and its helpers.

namespace mcp_frontmatter_tests {

using nlohmann::json;
namespace d = agentskills::mcp::detail;

namespace {
json fm(const std::string& yaml) { return d::frontmatter_json("---\n" + yaml + "---\nBody\n"); }
}  // namespace

TEST_CASE("mcp frontmatter: plain scalars are typed by the YAML 1.2 core schema", "[mcp][frontmatter]") {
    const json j =
        fm("name: a\n"
           "description: d\n"
           "version: 1.0\n"
           "count: 42\n"
           "neg: -7\n"
           "octal: 0o17\n"
           "hex: 0x1F\n"
           "exp: 1e3\n"
           "t: True\n"
           "f: FALSE\n"
           "n1: ~\n"
           "n2: null\n"
           "n3:\n"
           "yes_is_text: yes\n"
           "on_is_text: on\n"
           "leading_zero: 007\n"
           "date_is_text: 2024-01-02\n");
    CHECK(j.at("version") == json(1.0));
    CHECK(j.at("version").is_number_float());
    CHECK(j.at("count") == 42);
    CHECK(j.at("neg") == -7);
    CHECK(j.at("octal") == 15);
    CHECK(j.at("hex") == 31);
    CHECK(j.at("exp") == json(1000.0));
    CHECK(j.at("t") == true);
    CHECK(j.at("f") == false);
    CHECK(j.at("n1").is_null());
    CHECK(j.at("n2").is_null());
    CHECK(j.at("n3").is_null());
    CHECK(j.at("yes_is_text") == "yes");
    CHECK(j.at("on_is_text") == "on");
    CHECK(j.at("leading_zero") == 7);
    CHECK(j.at("date_is_text") == "2024-01-02");
}

TEST_CASE("mcp frontmatter: quoted, block and tagged scalars", "[mcp][frontmatter]") {
    const json j =
        fm("name: a\n"
           "description: \"1.0\"\n"
           "single: '42'\n"
           "block: |\n  line one\n  line two\n"
           "folded: >-\n  one\n  two\n"
           "tagged: !!str 12\n"
           "tagged_int: !!int \"12\"\n"
           "metadata:\n  version: \"2.1\"\n  list: [1, two, 3.5]\n");
    CHECK(j.at("description") == "1.0");
    CHECK(j.at("single") == "42");
    CHECK(j.at("block") == "line one\nline two\n");
    CHECK(j.at("folded") == "one two");
    CHECK(j.at("tagged") == "12");
    CHECK(j.at("tagged_int") == 12);
    CHECK(j.at("metadata") == json::parse(R"({"version":"2.1","list":[1,"two",3.5]})"));
}

TEST_CASE("mcp frontmatter: anchors and aliases are expanded; keys keep their text", "[mcp][frontmatter]") {
    const json j = fm("name: a\ndescription: d\nbase: &b {x: 1, y: [true]}\ncopy: *b\n1: one\n");
    CHECK(j.at("copy") == j.at("base"));
    CHECK(j.at("copy") == json::parse(R"({"x":1,"y":[true]})"));
    CHECK(j.at("1") == "one");
}

TEST_CASE("mcp frontmatter: what JSON cannot hold, or what is unbounded, is refused", "[mcp][frontmatter]") {
    CHECK_THROWS_WITH(fm("name: a\nx: .inf\n"), Catch::Contains("cannot be represented in JSON"));
    CHECK_THROWS_WITH(fm("name: a\nx: .NaN\n"), Catch::Contains("cannot be represented in JSON"));
    CHECK_THROWS_WITH(fm("name: a\nname: b\n"), Catch::Contains("appears twice"));
    CHECK_THROWS_WITH(fm("[a, b]: c\n"), Catch::Contains("mapping key must be a string scalar"));
    CHECK_THROWS_WITH(fm("- a\n- b\n"), Catch::Contains("not a mapping"));
    CHECK_THROWS_WITH(fm("a: [unclosed\n"), Catch::Contains("not valid YAML"));
    CHECK_THROWS_WITH(d::frontmatter_json("no frontmatter\n"), Catch::Contains("does not begin"));
    CHECK_THROWS_WITH(d::frontmatter_json("---\nname: a\n"), Catch::Contains("no closing"));
    // Exponential alias expansion stops at the node bound.
    std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'j'; ++c) {
        laughs += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + prev;
        laughs += "]\n";
        prev = c;
    }
    CHECK_THROWS_WITH(fm(laughs), Catch::Contains("more than 100000 values"));
    // Nesting deeper than the bound.
    std::string deep = "a: ";
    for (int i = 0; i < 80; ++i) deep += "[";
    for (int i = 0; i < 80; ++i) deep += "]";
    CHECK_THROWS_WITH(fm(deep + "\n"), Catch::Contains("deeper than 64"));
}

TEST_CASE("mcp helpers: digest, base64, percent escapes, JSON depth", "[mcp]") {
    CHECK(d::sha256_digest("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(d::sha256_digest("") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(d::base64_encode("") == "");
    CHECK(d::base64_encode("f") == "Zg==");
    CHECK(d::base64_encode("fo") == "Zm8=");
    CHECK(d::base64_encode("foo") == "Zm9v");
    CHECK(d::base64_decode("Zm8=") == std::optional<std::string>("fo"));
    CHECK_FALSE(d::base64_decode("Zm8").has_value());
    CHECK_FALSE(d::base64_decode("Z=m8").has_value());
    CHECK(d::is_media_type("application/json", "application/json"));
    CHECK(d::is_media_type(" Application/JSON ; charset=utf-8", "application/json"));
    CHECK(d::is_media_type("text/event-stream;charset=UTF-8", "text/event-stream"));
    CHECK_FALSE(d::is_media_type("application/jsonx", "application/json"));
    CHECK_FALSE(d::is_media_type("application/json-patch+json", "application/json"));
    CHECK_FALSE(d::is_media_type("text/event-streams", "text/event-stream"));
    CHECK_FALSE(d::is_media_type("", "application/json"));
    CHECK(d::encode_segment("Q&A notes.md") == "Q&A%20notes.md");
    CHECK(d::encode_segment("a%b?c#d\xC3\xA9") == "a%25b%3Fc%23d%C3%A9");
    CHECK(d::decode_percent("Q%26A%20x") == std::optional<std::string>("Q&A x"));
    CHECK_FALSE(d::decode_percent("bad%2").has_value());
    CHECK_FALSE(d::decode_percent("bad%zz").has_value());
    {
        // The one reading of a message's text, both ways.
        nlohmann::json m;
        std::string repeated;
        CHECK(d::read_message(R"({"a":[1,{"b":"[[[["}]})", 3, m) == d::MessageFault::none);
        CHECK(m["a"][1]["b"] == "[[[[");
        CHECK(d::read_message(R"({"a":[1,{"b":[]}]})", 3, m) == d::MessageFault::depth);
        CHECK(m.is_null());
        CHECK(d::read_message(R"({"a":1})", 0, m) == d::MessageFault::depth);
        CHECK(d::read_message(R"("\"[")", 0, m) == d::MessageFault::none);
        CHECK(d::read_message(R"({"id":1,"id":2})", 64, m, &repeated) == d::MessageFault::duplicate_key);
        CHECK(repeated == "id");
        CHECK(d::read_message(R"({"id":1)", 64, m) == d::MessageFault::syntax);
    }
    std::string escaped;
    const std::string raw = std::string("q\"b\\ n\n r\r t\t \x01 \x7f \xC3\xA9 ") + '\0';
    agentskills::append_json_string(escaped, raw);  // the core escaper the MCP server uses
    CHECK(escaped == "\"q\\\"b\\\\ n\\n r\\r t\\t \\u0001 \x7f \xC3\xA9 \\u0000\"");
    CHECK(json::parse(escaped) == raw);
    CHECK(agentskills::media_type_for("x.MD", true) == "text/markdown");
    CHECK(agentskills::media_type_for("blob", false) == "application/octet-stream");
    CHECK(agentskills::media_type_for("notes", true) == "text/plain");
}

namespace {

/// Wherever the fast path answers, it gives what yaml-cpp gives; where yaml-cpp refuses the text,
/// the fast path does not answer.
void check_paths_agree(const std::string& yaml) {
    CAPTURE(yaml);
    const std::optional<json> fast = d::simple_frontmatter_json(yaml);
    if (!fast) return;
    json slow;
    REQUIRE_NOTHROW(slow = d::yaml_frontmatter_json(yaml));
    CHECK(*fast == slow);
}

}  // namespace

TEST_CASE("mcp: the fast frontmatter path agrees with yaml-cpp", "[mcp]") {
    const std::vector<std::string> answered = {
        "name: a\ndescription: d\n",
        "name: a\ndescription: d\nversion: 1.0\ncount: 12\nflag: true\nnone: ~\nempty:\n",
        "name: a\nmetadata:\n  owner: docs\n  version: \"2\"\n  n: 0x1f\nlicense: MIT\n",
        "name: a\ndescription: 'it''s'\n",  // not answered (inner quote), checked anyway
        "description: Don't panic, it's \"fine\" \xE2\x80\x94 url http://x.y/z?a=b&c\n",
        "description: \"a: b # c\"\nother: 'x \\ y'\n",
        "a: -5\nb: -.5\nc: +7\nd: 1e3\ne: 0o17\nf: yes\ng: 2024-01-01\nh: a#b\ni: x|y>z\n",
        "name: a\n\ndescription: d\n\nmetadata:\n\n  k: v\n",
    };
    for (const auto& y : answered) check_paths_agree(y);
    CHECK(d::simple_frontmatter_json("name: a\ndescription: d\nversion: 1.0\ncount: 12\nflag: true\nnone: ~\n") ==
          json::parse(R"({"name":"a","description":"d","version":1.0,"count":12,"flag":true,"none":null})"));
    // The one fast path of the library's YAML front end (src/parse/yaml.hpp) also reads flow
    // sequences of words, block scalars, block lists and mappings; wherever it answers, it
    // agrees with yaml-cpp.
    const std::vector<std::string> shapes = {
        "tags: [a, b]\n",
        "d: |\n  block\n",
        "d: >\n  folded\n",
        "a: b # comment\n",
        "# c\na: b\n",
        "a:\n  - x\n",
        "a:\n    b: c\n",
        "a:\n  b:\n    c: d\n",
        "a: \"x\\ny\"\n",
        "a: x,y\n",
        "name: a\ndescription: long\n  continued\n",
        "a:\n  below\n  and on\n",
        "a: b\n  # c\n",
    };
    for (const auto& y : shapes) check_paths_agree(y);
    // Left to yaml-cpp: what the fast path does not read (a repeated key, anchors, aliases,
    // tags, flow mappings, an empty value, tabs, CR, other controls, a BOM, an explicit key,
    // indented keys, text yaml-cpp refuses).
    const std::vector<std::string> refused = {
        "name: a\nname: b\n", "x: &a 1\ny: *a\n", "a: !!str 1\n",
        "a: b: c\n",          "a: 'x' y\n",       "a: x\ty\n",
        "a: .inf\n",          "? a\n: b\n",       " a: b\n",
        "a: {b: c}\n",        "a: @x\n",          "a: %x\n",
        "a: `x`\n",           "a: x\xC2\x85y\n",  "a: \xEF\xBB\xBFx\n",
        "a: x\r\n",           "empty:\n",
    };
    for (const auto& y : refused) {
        CAPTURE(y);
        CHECK_FALSE(d::simple_frontmatter_json(y).has_value());
    }
    // And whatever it makes of the other shapes, it agrees with yaml-cpp.
    for (const auto& y : std::vector<std::string>{"a:b\n", "a: x \n", "a:  x\n", "a: -\n", "1a: b\n", "a: x:\n"}) {
        check_paths_agree(y);
    }
    // Every SKILL.md of the shared corpus (support/corpus.hpp: required in CI).
    if (const auto corpus = agentskills_test::shared_corpus()) {
        std::size_t files = 0;
        for (const auto& e : std::filesystem::recursive_directory_iterator(
                 *corpus, std::filesystem::directory_options::skip_permission_denied)) {
            if (!e.is_regular_file() || e.path().filename() != "SKILL.md") continue;
            std::ifstream in(e.path(), std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            const std::string md = text.str();
            if (md.rfind("---\n", 0) != 0) continue;
            const std::size_t close = md.find("\n---\n", 3);
            if (close == std::string::npos) continue;
            check_paths_agree(md.substr(4, close - 3));
            ++files;
        }
        CHECK(files > 0);
    }
}

}  // namespace mcp_frontmatter_tests

#endif  // AGENTSKILLS_HAVE_MCP

TEST_CASE("FrontmatterTyping::core_schema is the server's frontmatter JSON (one typing)",
          "[mcp][frontmatter][parser]") {
    const std::vector<std::string> yamls = {
        "name: a\ndescription: d\ndisable-model-invocation: true\nversion: 1.0\ncount: 12\nq: \"12\"\nn: ~\n",
        "name: a\ndescription: d\nhex: 0x1F\noctal: 0o17\nexp: 1e3\nlist: [1, two, \"3\", false]\n",
        "name: a\ndescription: d\nmetadata:\n  a: yes\n  b: !!str 5\n  c: !!float 2\n  d: |\n    block\n",
        "name: a\ndescription: d\nanchor: &x {k: 1}\ncopy: *x\n",
    };
    for (const auto& yaml : yamls) {
        INFO(yaml);
        const std::string text = "---\n" + yaml + "---\nBody\n";
        agentskills::ParseOptions opt;
        opt.frontmatter_typing = agentskills::FrontmatterTyping::core_schema;
        const agentskills::ParseResult r = agentskills::parse_skill_md(text, opt);
        REQUIRE(r.ok());
        CHECK(r.manifest()->frontmatter.get() == agentskills::mcp::detail::frontmatter_json(text));
        CHECK(r.diagnostics.empty());
    }
    // The default stays the literal text.
    const agentskills::ParseResult text = agentskills::parse_skill_md("---\nname: a\ndescription: d\nn: 12\n---\n");
    REQUIRE(text.ok());
    CHECK(text.manifest()->frontmatter->at("n") == "12");
}

TEST_CASE("FrontmatterTyping::core_schema: a frontmatter JSON cannot hold is left empty with a warning",
          "[mcp][frontmatter][parser]") {
    for (const std::string yaml : {"name: a\ndescription: d\nx: .inf\n", "name: a\ndescription: d\nx: !!int abc\n",
                                   "name: a\ndescription: d\nm:\n  k: 1\n  k: 2\n"}) {
        INFO(yaml);
        agentskills::ParseOptions opt;
        opt.frontmatter_typing = agentskills::FrontmatterTyping::core_schema;
        const agentskills::ParseResult r = agentskills::parse_skill_md("---\n" + yaml + "---\nBody\n", opt);
        REQUIRE(r.ok());  // the skill itself is kept, its typed fields read as usual
        CHECK(r.manifest()->name == "a");
        CHECK(r.manifest()->frontmatter->dump() == "{}");
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics[0].code == "frontmatter-not-json");
        CHECK(r.diagnostics[0].severity == agentskills::Severity::warning);
    }
}
