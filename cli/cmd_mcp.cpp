// `agentskills mcp`: serve skill libraries over MCP (skills extension), on stdio or Streamable HTTP.
// The server itself is one of the optional components (extras_linked.cpp).
#ifdef AGENTSKILLS_HAVE_MCP

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/mcp/server.hpp"
#include "command.hpp"
#include "extras.hpp"
#include "numbers.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct McpArgs {
    SourceArgs sources;
    McpServeArgs serve;
};

int run_mcp(const McpArgs& args) {
    FilesystemLoaderOptions options = filesystem_options(args.sources, {}, args.sources.roots);
    // The server lists every skill and activates few, and its index holds each SKILL.md's bytes:
    // the loader keeps no bodies (an activation reads the file again, with the checks of
    // lazy_bodies), but keeps its results, so that a --watch refresh reads only what changed.
    options.lazy_bodies = true;
    // What the server lists as a skill's frontmatter is read from the bytes it serves, split as
    // the SDK's client splits them (its index); the manifests' own JSON would go unread.
    options.frontmatter_json = false;
    const Extras& e = extras("the mcp command", Component::mcp);
    if (e.serve_mcp == nullptr) throw ConfigurationError("this agentskills was built without the MCP server");
    return e.serve_mcp(args.serve, std::move(options));
}

}  // namespace
void setup_mcp(CLI::App& app, int* status) {
    auto args = std::make_shared<McpArgs>();
    args->serve.page_size = mcp::DEFAULT_PAGE_SIZE;
    CLI::App* cmd = app.add_subcommand(
        "mcp", "Serve skill libraries over MCP (skills extension): stdio by default, Streamable HTTP with --http");
    add_source_options(
        *cmd, args->sources,
        {.root_help = "A library root (repeatable, in precedence order)", .roots_required = true, .mcp = false});
    cmd->add_option("--http", args->serve.http,
                    "Serve Streamable HTTP at HOST:PORT (POST /mcp); PORT 0 picks a free one");
    cmd->add_option("--allow-origin", args->serve.allowed_origins,
                    "An Origin accepted besides localhost, 127.0.0.1 and [::1] (repeatable)");
    cmd->add_option("--allow-host", args->serve.allowed_hosts,
                    "A Host (NAME or NAME:PORT) accepted besides localhost, 127.0.0.1 and [::1] (repeatable)");
    cmd->add_option("--threads", args->serve.threads, "HTTP io threads (0: one per hardware thread; at most 256)")
        ->check(count_value())
        ->check(CLI::Range(std::size_t{0}, mcp::MAX_HTTP_THREADS))
        ->capture_default_str();
    cmd->add_option("--max-connections", args->serve.max_connections,
                    "HTTP connections open at once (0: 8192); more are closed at once")
        ->check(count_value());
    cmd->add_option("--max-connections-per-client", args->serve.max_connections_per_client,
                    "HTTP connections open at once from one address (0: 1024); more are closed at once")
        ->check(count_value());
    cmd->add_option("--max-unsent-bytes", args->serve.max_unsent_bytes,
                    "Bytes of HTTP answers not yet written to their clients, all together (0: 64 MiB); past it a "
                    "request gets 503")
        ->check(count_value());
    cmd->add_option("--max-unsent-bytes-per-client", args->serve.max_unsent_bytes_per_client,
                    "(0: 16 MiB) The same for one client address; past it, only its requests get 503")
        ->check(count_value());
    cmd->add_option("--page-size", args->serve.page_size, "Entries per page of the list methods")
        ->check(count_value())
        ->capture_default_str();
    cmd->add_option("--tool-name", args->serve.tool_name, "Name of the activation tool")->capture_default_str();
    cmd->add_option("--skill-directory", args->serve.skill_directory,
                    "Name the skill directory in activation texts: yes, no, or auto (yes on stdio, no on HTTP)")
        ->check(CLI::IsMember({"auto", "yes", "no"}))
        ->capture_default_str();
    cmd->add_option("--state", args->serve.state,
                    "With --http: keep sessions and their activations in this store, shared by replicas: a "
                    "PostgreSQL URI (postgresql://...) or an SQLite file");
    cmd->add_option("--session-idle-timeout", args->serve.session_idle_timeout_s,
                    "With --http: end a handshake-era session unused for this many seconds (at most a year)")
        ->check(count_value())
        ->check(CLI::Range(std::size_t{1}, std::size_t{31536000}))
        ->capture_default_str();
    cmd->add_option("--max-sessions-per-client", args->serve.max_sessions_per_client,
                    "With --http: sessions one client address may hold (0: no cap)")
        ->check(count_value())
        ->capture_default_str();
    cmd->add_option("--trust-proxy", args->serve.trusted_proxies,
                    "With --http: a reverse proxy's IP address whose X-Forwarded-For names the client that "
                    "--max-sessions-per-client counts (repeatable)");
    cmd->add_flag("--watch", args->serve.watch,
                  "Watch the roots; on a change serve the new catalog and send notifications/resources/list_changed");
    cmd->callback([args, status] { *status = run_mcp(*args); });
}

}  // namespace agentskills::cli

#endif  // AGENTSKILLS_HAVE_MCP
