// The optional components, used by the installed-package consumers (main.cpp through CMake,
// ../pkg-config-test/app.cpp through pkg-config): one call into each component the build of the
// consumer has (AGENTSKILLS_HAVE_<NAME>, set by linking agentskills::<name> or by the pkg-config
// check), so that a component whose library or dependencies do not link fails the build, and one
// that does not work fails the run.
#pragma once

#include <chrono>
#include <iostream>
#include <string>

#include <agentskills/agentskills.hpp>
#if defined(AGENTSKILLS_HAVE_SQLITE)
#include <agentskills/sqlite/sqlite_store.hpp>
#endif
#if defined(AGENTSKILLS_HAVE_POSTGRES)
#include <agentskills/postgres/postgres_store.hpp>
#endif
#if defined(AGENTSKILLS_HAVE_LOCK)
#include <agentskills/lock/lock.hpp>
#endif
#if defined(AGENTSKILLS_HAVE_ARCHIVE)
#include <agentskills/archive/archive_reader.hpp>
#endif
#if defined(AGENTSKILLS_HAVE_GIT)
#include <agentskills/git/git_reader.hpp>
#endif
#if defined(AGENTSKILLS_HAVE_MCP)
#include <agentskills/mcp/client.hpp>
#include <agentskills/mcp/server.hpp>
#endif

/// 0 when every component of the build answered as it should; prints one line per component.
inline int use_components(const agentskills::SkillCatalogPtr& catalog, const std::string& scratch_dir) {
    namespace as = agentskills;
    int failures = 0;
    (void)catalog;
    (void)scratch_dir;
#if defined(AGENTSKILLS_HAVE_SQLITE)
    {
        as::SqliteActivationStore store(scratch_dir + "/consumer-activations.db");
        store.reset();
        const bool claimed = store.claim("alpha") == as::ClaimResult::claimed;
        store.confirm("alpha");
        std::cout << "sqlite: " << (claimed && store.is_active("alpha") ? "ok" : "FAILED") << "\n";
        failures += claimed && store.is_active("alpha") ? 0 : 1;
    }
#endif
#if defined(AGENTSKILLS_HAVE_POSTGRES)
    {
        // No server here: a connection that cannot be made is an Error naming the masked URI.
        bool ok = false;
        try {
            as::PostgresActivationStore store("postgresql://consumer:pw-123@127.0.0.1:1/none",
                                              {.connect_timeout = std::chrono::milliseconds(2000)});
        } catch (const as::Error& e) {
            const std::string what = e.what();
            ok = what.find("postgresql://consumer:***@127.0.0.1:1/none") != std::string::npos &&
                 what.find("pw-123") == std::string::npos;
        }
        std::cout << "postgres: " << (ok ? "ok" : "FAILED") << "\n";
        failures += ok ? 0 : 1;
    }
#endif
#if defined(AGENTSKILLS_HAVE_LOCK)
    {
        const std::string digest = as::sha256_digest("");
        const bool ok = digest == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        std::cout << "lock: " << (ok ? "ok" : "FAILED") << "\n";
        failures += ok ? 0 : 1;
    }
#endif
#if defined(AGENTSKILLS_HAVE_ARCHIVE)
    {
        bool ok = false;
        try {
            (void)as::open_archive_skill(std::string("not a zip archive"));
        } catch (const as::ArchiveError& e) {
            ok = e.problem() == as::ArchiveProblem::malformed;
        }
        std::cout << "archive: " << (ok ? "ok" : "FAILED") << "\n";
        failures += ok ? 0 : 1;
    }
#endif
#if defined(AGENTSKILLS_HAVE_GIT)
    {
        const auto root = as::parse_git_root("git:/srv/repo@main:skills");
        bool ok = root && root->repo_path == "/srv/repo" && root->ref == "main" && root->path == "skills";
        try {
            (void)as::GitTreeReader::open(scratch_dir + "/no-such-repository", "main");
            ok = false;
        } catch (const as::NotFoundError&) {
        }
        std::cout << "git: " << (ok ? "ok" : "FAILED") << "\n";
        failures += ok ? 0 : 1;
    }
#endif
#if defined(AGENTSKILLS_HAVE_MCP)
    {
        as::mcp::Server server(catalog);
        auto session = server.open_session();
        const std::string pong =
            server.handle(R"({"jsonrpc":"2.0","id":1,"method":"ping"})", *session).response.value_or("");
        const bool ok = pong == R"({"jsonrpc":"2.0","id":1,"result":{}})" &&
                        as::mcp::split_command_line("a \"b c\"") == std::vector<std::string>{"a", "b c"};
        std::cout << "mcp: " << (ok ? "ok" : "FAILED " + pong) << "\n";
        failures += ok ? 0 : 1;
    }
#endif
    return failures;
}
