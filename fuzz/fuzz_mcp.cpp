// Fuzz target: the MCP server's JSON-RPC handler (agentskills::mcp::Server::handle) and its
// frontmatter -> JSON conversion.
//
// Input: an option byte, then JSON-RPC messages separated by '\n', handled in order on one
// session (the state carries over, as on a stdio connection).
//   option bits: 0 initialize the session first   1 also feed the whole input (with the SDK-subset
//                check) and each message to frontmatter_json
//                2 wrap each message's params in the 2026-07-28 _meta (when it parses)
// Invariants: every request gets exactly one JSON-RPC response that parses, carries
// "jsonrpc":"2.0", the request's id (as sent when it is a string or a number, else null) and
// either a result or an error with an integer code; notifications get none.
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/mcp/server.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "../src/mcp/shared/internal.hpp"
#include "fuzz_common.hpp"

using namespace agentskills;
using nlohmann::json;

namespace {

void write(const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

const mcp::Server& server() {
    static const std::unique_ptr<mcp::Server> instance = [] {
        const auto root =
            std::filesystem::temp_directory_path() / ("agentskills-fuzz-mcp-" + std::to_string(::getpid()));
        write(root / "lib/alpha/SKILL.md",
              "---\nname: alpha\ndescription: First.\nversion: 1.0\n---\nUse $ARGUMENTS.\n");
        write(root / "lib/alpha/references/a b.md", "ref\n");
        write(root / "lib/alpha/assets/x.bin", std::string("\x00\x01\xfe", 3));
        write(root / "lib/beta/SKILL.md", "---\nname: beta\ndescription: Second.\nuser-invocable: false\n---\nB.\n");
        // A plugin: its skill `tools:lint` is served at skill://tools/lint/SKILL.md.
        write(root / "plugin/.claude-plugin/plugin.json", R"({"name": "tools"})");
        write(root / "plugin/skills/lint/SKILL.md", "---\nname: lint\ndescription: Third.\n---\nL.\n");
        write(root / "plugin/skills/lint/scripts/run.sh", "echo\n");
        auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{
            .roots = {(root / "lib").string(), (root / "plugin").string()}, .include_default_roots = false});
        mcp::ServerOptions options;
        options.page_size = 1;
        options.log = [](std::string_view) {};
        return std::make_unique<mcp::Server>(discover_skill_catalog(loader), options);
    }();
    return *instance;
}

void check_response(const mcp::Exchange& ex, bool is_request, const json& request) {
    if (!is_request) return;
    FUZZ_CHECK(ex.response.has_value());
    const json r = json::parse(*ex.response, nullptr, false);
    FUZZ_CHECK(!r.is_discarded() && r.is_object());
    // The id comes back as sent (a string or a number of any size or form), else null.
    const json& id = request["id"];
    if (id.is_string() || id.is_number()) {
        FUZZ_CHECK(r.contains("id") && r["id"] == id);
        if (id.is_number_float()) FUZZ_CHECK(r["id"].is_number_float());
    } else {
        FUZZ_CHECK(r.contains("id") && r["id"].is_null());
    }
    FUZZ_CHECK(r.value("jsonrpc", "") == "2.0");
    FUZZ_CHECK(r.contains("result") != r.contains("error"));
    if (r.contains("error")) {
        FUZZ_CHECK(r["error"].is_object() && r["error"]["code"].is_number_integer());
        FUZZ_CHECK(r["error"]["message"].is_string());
        FUZZ_CHECK(r["error"]["code"].get<int>() == ex.error_code);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const mcp::Server& s = server();
    auto session = s.open_session();
    if (flags & 1) {
        (void)s.handle(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})",
                       *session);
    }
    if (flags & 2) {
        // The whole input as a SKILL.md: its frontmatter JSON and the SDK-subset check.
        try {
            std::optional<std::string> outside_sdk;
            (void)mcp::detail::frontmatter_json(in.rest(), 16, 2000, outside_sdk);
            FUZZ_CHECK(!outside_sdk || !outside_sdk->empty());
        } catch (const std::runtime_error&) {
        }
    }
    int messages = 0;
    while (!in.empty() && messages++ < 32) {
        std::string message(in.until('\n'));
        if (flags & 2) {
            try {
                (void)mcp::detail::frontmatter_json(message, 16, 2000);
            } catch (const std::runtime_error&) {
            }
        }
        // The handler's one reading of a message (depth, a key given twice) against json::parse:
        // what it accepts is json::parse's document, and what json::parse refuses it refuses.
        json parsed;
        const auto fault = mcp::detail::read_message(message, s.options().max_json_depth, parsed);
        const json plain = json::parse(message, nullptr, false);
        if (fault == mcp::detail::MessageFault::none) FUZZ_CHECK(parsed == plain);  // false when discarded
        if (fault == mcp::detail::MessageFault::syntax) FUZZ_CHECK(plain.is_discarded());
        if (fault != mcp::detail::MessageFault::none) FUZZ_CHECK(parsed.is_null());
        if ((flags & 4) && parsed.is_object() && parsed.contains("method")) {
            json& params = parsed["params"];
            if (params.is_null()) params = json::object();
            if (params.is_object()) {
                params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                   {"io.modelcontextprotocol/clientCapabilities", json::object()}};
                message = parsed.dump();
            }
        }
        // A request is an object with a method and an id, as the handler reads it (a message it
        // refuses to read is answered with a null id); its own bounds decide the rest.
        const bool is_request = message.size() <= s.options().max_message_bytes && parsed.is_object() &&
                                parsed.contains("method") && parsed.contains("id");
        const mcp::Exchange ex = s.handle(message, *session);
        check_response(ex, is_request, parsed);
    }
    return 0;
}
