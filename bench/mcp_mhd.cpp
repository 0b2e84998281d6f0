// mcp_mhd --root DIR [--root DIR...] [--port PORT] [--threads N] [--timeout SECONDS] [--turbo 0|1]
//
// A benchmark-only prototype (issue 34: "measure two engines and choose"): the same
// agentskills::mcp::Server that `agentskills mcp --http` serves on Boost.Beast, behind
// libmicrohttpd in epoll mode (an internal thread pool, one epoll loop per thread) instead.
// bench/mcp_engines.sh runs both side by side; docs/performance.md ("Engines") has the figures.
//
// It answers POST /mcp with one 2026-07-28 era (stateless) JSON-RPC request per HTTP request:
// `server.handle(body, *server.open_session())`, 200 and application/json. It leaves out what
// the Beast server does besides: the Host and Origin checks, handshake-era sessions
// (Mcp-Session-Id), the MCP-Protocol-Version / Mcp-Method / Mcp-Name header checks, the
// per-client connection cap, the 431 on large headers, the total deadline per request and the
// separate pool for requests that may wait. It is not part of the library and not installed.
//
// With glibc's default malloc, a worker thread's arena tends to trim its heap (madvise) each
// time a large response is freed, and to take page faults again for the next one: about 6x the
// CPU per request. GLIBC_TUNABLES=glibc.malloc.trim_threshold=67108864 avoids that (measured).
#include <netinet/in.h>
#include <sys/resource.h>
#include <unistd.h>

#include <microhttpd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "agentskills/catalog/catalog.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/mcp/server.hpp"

namespace {

struct Args {
    std::vector<std::string> roots;
    unsigned port = 0;
    unsigned threads = 0;   // 0: the hardware threads
    unsigned timeout = 30;  // seconds without traffic before a connection is closed (idle, not total)
    bool turbo = true;      // MHD_USE_TURBO
};

/// What one request has received so far (MHD calls the handler once per body chunk).
struct Request {
    std::string body;
    bool too_large = false;
};

struct Context {
    const agentskills::mcp::Server* server = nullptr;
    std::size_t max_body = 0;
};

std::atomic<bool> stop_requested{false};
extern "C" void on_stop_signal(int) { stop_requested.store(true); }

MHD_Result reply(MHD_Connection* connection, unsigned status, std::string text, const char* content_type) {
    // The response owns the bytes: MHD frees them through the callback once sent.
    auto* owned = new std::string(std::move(text));
    MHD_Response* response = MHD_create_response_from_buffer_with_free_callback_cls(
        owned->size(), owned->data(), [](void* cls) { delete static_cast<std::string*>(cls); }, owned);
    if (response == nullptr) {
        delete owned;
        return MHD_NO;
    }
    if (content_type != nullptr) MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
    const MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

MHD_Result on_request(void* cls, MHD_Connection* connection, const char* url, const char* method, const char*,
                      const char* upload_data, std::size_t* upload_data_size, void** con_cls) {
    const auto& context = *static_cast<const Context*>(cls);
    if (*con_cls == nullptr) {  // the headers are in; the body (if any) comes in the next calls
        if (std::strcmp(url, "/mcp") != 0) return reply(connection, MHD_HTTP_NOT_FOUND, "", nullptr);
        if (std::strcmp(method, MHD_HTTP_METHOD_POST) != 0)
            return reply(connection, MHD_HTTP_METHOD_NOT_ALLOWED, "", nullptr);
        auto request = std::make_unique<Request>();
        if (const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, "Content-Length")) {
            const unsigned long long n = std::strtoull(length, nullptr, 10);
            // Answered before the body is read; libmicrohttpd then closes the connection.
            if (n > context.max_body) return reply(connection, MHD_HTTP_CONTENT_TOO_LARGE, "", nullptr);
            request->body.reserve(static_cast<std::size_t>(n));
        }
        *con_cls = request.release();
        return MHD_YES;
    }
    auto& request = *static_cast<Request*>(*con_cls);
    if (*upload_data_size != 0) {
        if (!request.too_large && request.body.size() + *upload_data_size <= context.max_body)
            request.body.append(upload_data, *upload_data_size);
        else
            request.too_large = true;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (request.too_large) return reply(connection, MHD_HTTP_CONTENT_TOO_LARGE, "", nullptr);
    const auto session = context.server->open_session();  // one request's worth (stateless era)
    agentskills::mcp::Exchange ex = context.server->handle(request.body, *session);
    if (!ex.response) return reply(connection, MHD_HTTP_ACCEPTED, "", nullptr);
    return reply(connection, MHD_HTTP_OK, std::move(*ex.response), "application/json");
}

void on_completed(void*, MHD_Connection*, void** con_cls, MHD_RequestTerminationCode) {
    delete static_cast<Request*>(*con_cls);
    *con_cls = nullptr;
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "mcp_mhd: %s\nusage: mcp_mhd --root DIR [--root DIR...] [--port PORT] [--threads N] "
                 "[--timeout SECONDS] [--turbo 0|1]\n",
                 why);
    std::exit(2);
}

Args parse(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string_view flag = argv[i];
        if (i + 1 >= argc) usage("a flag without its value");
        const char* value = argv[++i];
        if (flag == "--root")
            args.roots.emplace_back(value);
        else if (flag == "--port")
            args.port = static_cast<unsigned>(std::stoul(value));
        else if (flag == "--threads")
            args.threads = static_cast<unsigned>(std::stoul(value));
        else if (flag == "--turbo")
            args.turbo = std::string_view(value) != "0";
        else if (flag == "--timeout")
            args.timeout = static_cast<unsigned>(std::stoul(value));
        else
            usage("unknown flag");
    }
    if (args.roots.empty()) usage("--root is required");
    if (args.port > 65535) usage("--port takes 0 to 65535");
    return args;
}

}  // namespace

int main(int argc, char** argv) try {
    const Args args = parse(argc, argv);

    // The library as `agentskills mcp --root DIR --http ...` reads it: the roots named, a missing
    // one an error, no default roots; served as over HTTP (no skill directory in activations).
    agentskills::FilesystemLoaderOptions options;
    options.roots = args.roots;
    options.include_default_roots = false;
    options.missing_directories = agentskills::MissingDirectories::error;
    const auto catalog =
        agentskills::discover_skill_catalog(std::make_shared<agentskills::FilesystemSkillLoader>(std::move(options)));
    agentskills::mcp::ServerOptions server_options;
    server_options.include_directory = false;
    const agentskills::mcp::Server server(catalog, server_options);  // it logs what it leaves out
    std::fprintf(stderr, "serving %zu skills (%zu left out)\n", server.served_skill_names().size(),
                 server.left_out().size());

    rlimit limit{};  // a descriptor per connection, as the agentskills command does
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &limit);
    }
    std::signal(SIGINT, on_stop_signal);
    std::signal(SIGTERM, on_stop_signal);
    std::signal(SIGPIPE, SIG_IGN);

    Context context{.server = &server, .max_body = server.options().max_message_bytes};
    const unsigned threads = args.threads != 0 ? args.threads : std::max(1u, std::thread::hardware_concurrency());
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<std::uint16_t>(args.port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    MHD_Daemon* daemon = MHD_start_daemon(
        MHD_USE_EPOLL_INTERNAL_THREAD | (args.turbo ? MHD_USE_TURBO : 0) | MHD_USE_ERROR_LOG,
        static_cast<std::uint16_t>(args.port), nullptr, nullptr, &on_request, &context, MHD_OPTION_SOCK_ADDR, &address,
        MHD_OPTION_THREAD_POOL_SIZE, threads, MHD_OPTION_CONNECTION_TIMEOUT, args.timeout, MHD_OPTION_CONNECTION_LIMIT,
        8192u, MHD_OPTION_NOTIFY_COMPLETED, &on_completed, nullptr, MHD_OPTION_END);
    if (daemon == nullptr) {
        std::fprintf(stderr, "mcp_mhd: cannot start libmicrohttpd on 127.0.0.1:%u\n", args.port);
        return 1;
    }
    const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    const unsigned port = info != nullptr ? info->port : args.port;
    std::fprintf(stderr, "listening on http://127.0.0.1:%u/mcp (libmicrohttpd %s, %u threads, epoll)\n", port,
                 MHD_get_version(), threads);
    while (!stop_requested.load()) ::usleep(200000);
    MHD_stop_daemon(daemon);
    return 0;
} catch (const std::exception& e) {
    std::fprintf(stderr, "mcp_mhd: %s\n", e.what());
    return 1;
}
