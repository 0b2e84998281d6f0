// agentskills CLI — the optional components as linked into `agentskills-extras` (all but libgit2
// and libpq) and `agentskills-extras-full` (every component) (extras.hpp).
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/base/version.hpp"
#include "agentskills/catalog/catalog.hpp"
#include "agentskills/catalog/live_catalog.hpp"
#include "agentskills/catalog/loader.hpp"
#include "command.hpp"
#include "extras.hpp"
#include "keep_until_exit.hpp"
#include "messages.hpp"
#if defined(AGENTSKILLS_HAVE_ARCHIVE)
#include "agentskills/archive/archive_reader.hpp"
#endif
#if defined(AGENTSKILLS_LINKED_GIT)
#include "agentskills/git/git_reader.hpp"
#endif
#if defined(AGENTSKILLS_HAVE_LOCK)
#include "agentskills/lock/lock.hpp"
#endif
#if defined(AGENTSKILLS_HAVE_MCP)
#include "agentskills/mcp/client.hpp"
#include "agentskills/mcp/server.hpp"
#endif
#if defined(AGENTSKILLS_LINKED_POSTGRES)
#include "agentskills/postgres/postgres_store.hpp"
#endif
#if defined(AGENTSKILLS_HAVE_SQLITE)
#include "agentskills/sqlite/sqlite_store.hpp"
#endif

namespace agentskills::cli {
namespace {

#if defined(AGENTSKILLS_HAVE_MCP)

SkillLoaderPtr mcp_loader(const SourceSpec& spec, std::string_view label, const SourceArgs& args) {
    mcp::ServerSource source;
    source.label = std::string(label);
    if (spec.kind == SourceSpec::Kind::mcp_command) {
        source.command = mcp::split_command_line(spec.value);
    } else if (spec.kind == SourceSpec::Kind::mcp_url) {
        source.url = spec.value;
        (void)mcp::make_http_transport(source.url);  // a URL it cannot use is a usage error now
    } else {
        throw ConfigurationError("make_mcp_source_loader: not an MCP source");
    }
    mcp::McpLoaderOptions options;
    if (args.max_lines) options.max_lines = *args.max_lines;
    if (args.max_bytes) options.max_bytes = *args.max_bytes;
    if (args.name_policy) options.name_policy = *args.name_policy;
    if (args.mcp_era == "2026-07-28") options.era = mcp::ProtocolEra::v2026_07_28;
    if (args.mcp_era == "2025-11-25") options.era = mcp::ProtocolEra::v2025_11_25;
    return std::make_shared<mcp::McpSkillLoader>(std::vector<mcp::ServerSource>{std::move(source)}, options);
}

std::atomic<bool> stop_requested{false};

/// The session store --state names: a PostgreSQL URI, else an SQLite file.
SessionStorePtr session_store(const std::string& state) {
    const bool postgres = state.rfind("postgresql://", 0) == 0 || state.rfind("postgres://", 0) == 0;
    if (postgres) {
#if defined(AGENTSKILLS_LINKED_POSTGRES)
        return std::make_shared<PostgresSessionStore>(state);
#elif defined(AGENTSKILLS_HAVE_POSTGRES)
        // agentskills-extras-full has it: it runs in place of this process (nothing was printed yet).
        (void)extras("--state postgresql://...", Component::postgres);
        throw ConfigurationError("--state postgresql://...: agentskills-extras-full did not start");
#else
        throw ConfigurationError(
            "--state postgresql://... needs a build with agentskills::postgres (CMake option AGENTSKILLS_POSTGRES)");
#endif
    }
#if defined(AGENTSKILLS_HAVE_SQLITE)
    return std::make_shared<SqliteSessionStore>(state);
#else
    throw ConfigurationError("--state FILE needs a build with agentskills::sqlite (CMake option AGENTSKILLS_SQLITE)");
#endif
}

extern "C" void on_stop_signal(int) { stop_requested.store(true); }

/// An HTTP server holds a descriptor per connection (HttpOptions::max_connections, 8192 by
/// default): the soft limit on open files is raised to the hard one (often 1024 against 524288).
void raise_descriptor_limit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &limit);
    }
}

int serve_mcp(const McpServeArgs& args, FilesystemLoaderOptions options) {
    std::string host = "127.0.0.1";
    int port = 0;
    const bool use_http = !args.http.empty();
    if (use_http) {
        const std::size_t colon = args.http.rfind(':');
        if (colon == std::string::npos) {
            throw UsageError(fmt::format("--http takes HOST:PORT, got '{}'", args.http));
        }
        host = args.http.substr(0, colon);
        if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
        try {
            port = std::stoi(args.http.substr(colon + 1));
        } catch (const std::exception&) {
            port = -1;
        }
        if (host.empty() || port < 0 || port > 65535) {
            throw UsageError(fmt::format("--http takes HOST:PORT, got '{}'", args.http));
        }
    }
    if (!args.state.empty() && !use_http) throw UsageError("--state needs --http (stdio has one session)");
    // Opened before the catalog is read: a store that cannot be used stops the command at once.
    const SessionStorePtr sessions = args.state.empty() ? nullptr : session_store(args.state);

    SkillCatalogPtr catalog;
    // --watch: each change set of the live catalog goes to the server, which tells the clients.
    std::shared_ptr<LiveCatalog> live;
    std::atomic<mcp::Server*> watched_server{nullptr};
    {
        auto loader = std::make_shared<FilesystemSkillLoader>(std::move(options));
        if (args.watch) {
            live = std::make_shared<LiveCatalog>(
                loader, LiveCatalogOptions{.on_change =
                                               [&watched_server, &live](const CatalogChangeSet& cs) {
                                                   mcp::Server* target = watched_server.load();
                                                   if (target == nullptr) return;
                                                   const mcp::CatalogUpdate u =
                                                       target->replace_catalog(live->catalog());
                                                   print_note(
                                                       fmt::format("generation {}: {} added, {} changed, "
                                                                   "{} removed; {} session(s) notified",
                                                                   cs.generation, cs.added.size(), cs.changed.size(),
                                                                   cs.removed.size(), u.sessions_notified));
                                               },
                                           .on_diagnostic = [](const Diagnostic& d) { print_diagnostic(d); },
                                           .compare_by_value = false});
            catalog = live->catalog();
        } else {
            catalog = discover_skill_catalog(loader);
        }
    }
    {
        MessageBatch notes;  // one write for them all
        for (const auto& s : catalog->skipped())
            notes.note(fmt::format("skipped ({}): {}", to_string(s.reason), s.message));
    }

    mcp::ServerOptions server_options;
    server_options.tool_name = args.tool_name;
    server_options.page_size = args.page_size;
    server_options.include_directory = args.skill_directory == "auto" ? !use_http : args.skill_directory == "yes";
    if (quiet()) server_options.log = [](std::string_view) {};  // its lines are notes (left out, changed)
    // The index and the catalog live until the process exits: freeing them (every file kept,
    // every manifest) takes longer than the operating system takes to reclaim them.
    const auto server = std::make_shared<mcp::Server>(catalog, server_options);
    keep_until_exit(server);
    keep_until_exit(catalog);
    print_note(
        fmt::format("serving {} skills ({} left out)", server->served_skill_names().size(), server->left_out().size()));
    if (live) {
        watched_server.store(server.get());
        try {
            live->start_watching();
        } catch (const Error& e) {
            print_error(fmt::format("--watch: {}", e.what()));
            return exit_failure;
        }
    }
    // The watcher stops before the server goes away.
    struct StopWatching {
        std::shared_ptr<LiveCatalog>& live;
        ~StopWatching() {
            if (live) live->stop_watching();
        }
    } stop_watching{live};

    if (!use_http) {
        // A client that closes its end makes the next write fail (EPIPE) and the loop end with
        // status 0, instead of the signal killing the server in the middle of a reply.
        std::signal(SIGPIPE, SIG_IGN);
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
    http.allowed_hosts = args.allowed_hosts;
    http.threads = args.threads;
    if (args.max_connections != 0) http.max_connections = args.max_connections;
    if (args.max_connections_per_client != 0) http.max_connections_per_client = args.max_connections_per_client;
    if (args.max_unsent_bytes != 0) http.max_unsent_bytes = args.max_unsent_bytes;
    if (args.max_unsent_bytes_per_client != 0) http.max_unsent_bytes_per_client = args.max_unsent_bytes_per_client;
    raise_descriptor_limit();
    http.session_store = sessions;
    http.session_idle_timeout =
        std::chrono::seconds(static_cast<std::chrono::seconds::rep>(args.session_idle_timeout_s));
    http.max_sessions_per_client = args.max_sessions_per_client;
    http.trusted_proxies = args.trusted_proxies;
    http.on_listening = [&host](int bound) {
        const bool v6 = host.find(':') != std::string::npos;
        // Printed under --quiet too: it names the port (PORT 0 picks one).
        fmt::print(stderr, "agentskills mcp: listening on http://{}{}{}:{}/mcp\n", v6 ? "[" : "", host, v6 ? "]" : "",
                   bound);
    };
    http.should_stop = [] { return stop_requested.load(); };
    return mcp::serve_http(*server, http) == 0 ? exit_ok : exit_failure;
}

#endif  // AGENTSKILLS_HAVE_MCP

#if defined(AGENTSKILLS_HAVE_LOCK)

// The root as the user wrote it, when it names the library a skill came from; else the library.
std::string source_of(const std::string& library, const std::vector<std::string>& roots) {
    for (const auto& r : roots) {
        std::error_code ec;
        const std::filesystem::path absolute = std::filesystem::absolute(r, ec);
        if (!ec && absolute.lexically_normal().generic_string() == library) return r;
        if (r == library) return r;
    }
    return library;
}

// `lock --output FILE` writes over an agentskills lock only: never over the `skills` CLI's
// skills-lock.json or any other file.
void check_lock_output(const std::string& output) {
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(output, ec);
    if (ec || !std::filesystem::exists(status)) return;  // a new file (an error shows when it is written)
    const std::string& shown = output;
    std::string text;
    if (std::filesystem::is_regular_file(status)) {
        std::ifstream in(output, std::ios::binary);
        text.resize(SKILL_LOCK_MAX_BYTES + 1);
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        text.resize(static_cast<std::size_t>(in.gcount()));
    }
    switch (lock_format(text)) {
        case LockFormat::agentskills:
            return;
        case LockFormat::skills_cli:
            throw ConfigurationError(fmt::format(
                "lock --output '{}': the file is the npm 'skills' CLI's lock file (skills-lock.json); it is not "
                "overwritten. Write the agentskills lock to another file, such as {}",
                shown, SKILL_LOCK_FILE_NAME));
        case LockFormat::other:
            break;
    }
    throw ConfigurationError(fmt::format(
        "lock --output '{}': the file exists and is not an agentskills lock file; it is not overwritten", shown));
}

int print_lock(const std::vector<std::string>& roots, FilesystemLoaderOptions options, const std::string& output) {
    if (!output.empty()) check_lock_output(output);
    FilesystemSkillLoader loader(std::move(options));
    Discovery d = loader.discover();
    // Each skill through its own reader (git:, archives); one whose files cannot be digested is
    // left out of the lock (status 1), the others are still locked.
    std::vector<SkippedSkill> left_out;
    SkillLock lock = make_skill_lock(d.skills, loader, left_out);
    {
        MessageBatch notes;  // one write for them all
        for (const auto& s : d.skipped) notes.note(fmt::format("skipped ({}): {}", to_string(s.reason), s.message));
        for (const auto& s : left_out) notes.note(fmt::format("left out of the lock: {}", s.message));
    }
    for (auto& s : lock.skills) s.source = source_of(s.source, roots);
    const std::string text = to_lock_text(lock);
    const int status = left_out.empty() ? exit_ok : exit_failure;
    if (output.empty()) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return status;
    }
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) throw IoError(fmt::format("lock --output '{}': the file could not be written", output));
    return status;
}

LockVerifier lock_verifier(const std::string& lock_file) { return make_lock_verifier(load_skill_lock(lock_file)); }

#endif  // AGENTSKILLS_HAVE_LOCK

#if defined(AGENTSKILLS_HAVE_ARCHIVE)
ChildOpener archive_source() { return archive_child_source(); }
#endif
#if defined(AGENTSKILLS_LINKED_GIT)
RootResolver git_source() { return git_root_source(); }
#endif

Extras make_extras() {
    Extras e;
#if defined(AGENTSKILLS_HAVE_ARCHIVE)
    e.archive_child_source = archive_source;
#endif
#if defined(AGENTSKILLS_LINKED_GIT)
    e.git_root_source = git_source;
#endif
#if defined(AGENTSKILLS_HAVE_LOCK)
    e.lock_verifier = lock_verifier;
    e.print_lock = print_lock;
#endif
#if defined(AGENTSKILLS_HAVE_MCP)
    e.mcp_loader = mcp_loader;
    e.serve_mcp = serve_mcp;
#endif
    return e;
}

}  // namespace

// The helper is started by the launcher with its heap on huge pages already.
void restart_for_large_library(const std::vector<std::string>& /*roots*/) {}

// Whether this helper links `c`: agentskills-extras-full links every component built,
// agentskills-extras all but libgit2's and libpq's.
constexpr bool linked_here(Component c) {
#if defined(AGENTSKILLS_LINKED_GIT) || defined(AGENTSKILLS_LINKED_POSTGRES)
    (void)c;
    return true;
#else
    return !in_full_helper_only(c);
#endif
}

const Extras& extras(std::string_view needed_for, Component needed) {
    if (!linked_here(needed)) run_helper(needed_for, {full_extras_program_name});
    static const Extras linked = make_extras();
    return linked;
}

}  // namespace agentskills::cli
