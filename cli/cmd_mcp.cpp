// `agentskills mcp`: serve skill libraries over MCP (skills extension), on stdio or Streamable HTTP.
#ifdef AGENTSKILLS_HAVE_MCP

#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "agentskills/catalog.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/loader.hpp"
#include "agentskills/mcp_server.hpp"
#include "command.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct McpArgs {
    SourceArgs sources;
    std::string http;
    std::vector<std::string> allowed_origins;
    std::size_t threads = 16;
    std::size_t page_size = mcp::DEFAULT_PAGE_SIZE;
    std::string tool_name = "activate_skill";
    std::string skill_directory = "auto";
};

std::atomic<bool> stop_requested{false};

extern "C" void on_stop_signal(int) { stop_requested.store(true); }

int run_mcp(const McpArgs& args) {
    FilesystemLoaderOptions options =
        filesystem_options(args.sources, {.missing_directories = MissingDirectories::skip}, args.sources.roots);

    std::string host = "127.0.0.1";
    int port = 0;
    const bool use_http = !args.http.empty();
    if (use_http) {
        const std::size_t colon = args.http.rfind(':');
        if (colon == std::string::npos) {
            fmt::print(stderr, "agentskills mcp: --http takes HOST:PORT, got '{}'\n", args.http);
            return exit_usage;
        }
        host = args.http.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        try {
            port = std::stoi(args.http.substr(colon + 1));
        } catch (const std::exception&) {
            port = -1;
        }
        if (host.empty() || port < 0 || port > 65535) {
            fmt::print(stderr, "agentskills mcp: --http takes HOST:PORT, got '{}'\n", args.http);
            return exit_usage;
        }
    }

    SkillCatalogPtr catalog;
    try {
        auto loader = std::make_shared<FilesystemSkillLoader>(std::move(options));
        catalog = discover_skill_catalog(loader);
    } catch (const ConfigurationError& e) {
        fmt::print(stderr, "agentskills mcp: {}\n", e.what());
        return exit_usage;
    } catch (const DiscoveryError& e) {
        fmt::print(stderr, "agentskills mcp: {}\n", e.what());
        return exit_failure;
    }
    for (const auto& s : catalog->skipped()) {
        fmt::print(stderr, "agentskills mcp: skipped ({}): {}\n", to_string(s.reason), s.message);
    }

    mcp::ServerOptions server_options;
    server_options.tool_name = args.tool_name;
    server_options.page_size = args.page_size;
    server_options.include_directory = args.skill_directory == "auto" ? !use_http : args.skill_directory == "yes";
    std::unique_ptr<mcp::Server> server;
    try {
        server = std::make_unique<mcp::Server>(catalog, server_options);
    } catch (const ConfigurationError& e) {
        fmt::print(stderr, "agentskills mcp: {}\n", e.what());
        return exit_usage;
    }
    fmt::print(stderr, "agentskills mcp: serving {} skills ({} left out)\n", server->served_skill_names().size(),
               server->left_out().size());

    if (!use_http) {
        std::ios::sync_with_stdio(false);
        return mcp::serve_stdio(*server, std::cin, std::cout);
    }
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGPIPE, SIG_IGN);
    mcp::HttpOptions http;
    http.host = host;
    http.port = port;
    http.allowed_origins = args.allowed_origins;
    http.threads = args.threads;
    http.on_listening = [&host](int bound) {
        const bool v6 = host.find(':') != std::string::npos;
        fmt::print(stderr, "agentskills mcp: listening on http://{}{}{}:{}/mcp\n", v6 ? "[" : "", host, v6 ? "]" : "",
                   bound);
    };
    http.should_stop = [] { return stop_requested.load(); };
    return mcp::serve_http(*server, http) == 0 ? exit_ok : exit_failure;
}

void setup_mcp(CLI::App& app, int* status) {
    auto args = std::make_shared<McpArgs>();
    CLI::App* cmd = app.add_subcommand(
        "mcp", "Serve skill libraries over MCP (skills extension): stdio by default, Streamable HTTP with --http");
    add_source_options(*cmd, args->sources,
                       {.root_help = "A library root (repeatable, in precedence order)",
                        .roots_required = true,
                        .mcp = false,
                        .selection = true,
                        .policies = true,
                        .limits = true});
    cmd->add_option("--http", args->http, "Serve Streamable HTTP at HOST:PORT (POST /mcp); PORT 0 picks a free one");
    cmd->add_option("--allow-origin", args->allowed_origins,
                    "An Origin accepted besides localhost, 127.0.0.1 and [::1] (repeatable)");
    cmd->add_option("--threads", args->threads, "HTTP worker threads")->capture_default_str();
    cmd->add_option("--page-size", args->page_size, "Entries per page of the list methods")->capture_default_str();
    cmd->add_option("--tool-name", args->tool_name, "Name of the activation tool")->capture_default_str();
    cmd->add_option("--skill-directory", args->skill_directory,
                    "Name the skill directory in activation texts: yes, no, or auto (yes on stdio, no on HTTP)")
        ->check(CLI::IsMember({"auto", "yes", "no"}))
        ->capture_default_str();
    cmd->callback([args, status] { *status = run_mcp(*args); });
}

const RegisterCommand reg{"mcp", setup_mcp};

}  // namespace
}  // namespace agentskills::cli

#endif  // AGENTSKILLS_HAVE_MCP
