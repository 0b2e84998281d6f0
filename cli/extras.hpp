// agentskills CLI — the optional components, in programs of their own.
//
// The program `agentskills` links only the core library. What needs Boost.Beast and OpenSSL (the
// `mcp` command, --mcp-command / --mcp-url sources), libzip (`.skill` / `.zip` library children),
// libcrypto (`lock`, --lock) or SQLite (`mcp --state FILE`) is in `agentskills-extras`; what needs
// libgit2 (`git:` roots) or libpq (`mcp --state postgresql://...`) is in `agentskills-extras-full`,
// which links every component. When a command line needs a component, `agentskills` runs the
// helper that has it in its place (execv, with the same arguments, the way git runs its helpers),
// and `agentskills-extras` runs `agentskills-extras-full` the same way when it meets a `git:` root
// or a PostgreSQL state. So a command that needs none of them (list, to-prompt, validate of local
// files, ...) never loads those libraries (they cost about 6 MB of memory in every run,
// docs/performance.md), the `mcp` and `lock` commands never load libgit2 and libpq (with what
// they load in turn, 28 more libraries: 10-14 ms of every start on these machines), and there
// is never a second copy of the core in one process.
//
// A helper is looked for beside the program (a build tree), then in the installed layout
// (`<bindir>/../<libexecdir>/agentskills/`, AGENTSKILLS_EXTRAS_RELATIVE_DIR); where
// `agentskills-extras` cannot be run, `agentskills-extras-full`, which has its components too, is.
// No environment variable or search path is used (docs/security.md).
#pragma once

#include <stdlib.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agentskills/activation/session_store.hpp"
#include "agentskills/catalog/governance.hpp"
#include "agentskills/catalog/loader.hpp"
#include "source_options.hpp"

namespace agentskills::cli {

/// What `agentskills mcp` serves with, besides its loader options.
struct McpServeArgs {
    std::string http;  ///< HOST:PORT; empty: stdio
    std::vector<std::string> allowed_origins;
    std::vector<std::string> allowed_hosts;
    std::size_t threads = 0;                      ///< io threads; 0 = the hardware threads
    std::size_t max_connections = 0;              ///< 0 = HttpOptions' default
    std::size_t max_connections_per_client = 0;   ///< 0 = HttpOptions' default
    std::size_t max_unsent_bytes = 0;             ///< 0 = HttpOptions' default
    std::size_t max_unsent_bytes_per_client = 0;  ///< 0 = HttpOptions' default
    std::size_t page_size = 100;
    std::string tool_name = "activate_skill";
    std::string skill_directory = "auto";
    bool watch = false;
    /// --state: where handshake-era HTTP sessions live (a SQLite path or a PostgreSQL URI);
    /// empty: this process's memory.
    std::string state;
    /// --session-idle-timeout (SessionLimits' default)
    std::size_t session_idle_timeout_s = static_cast<std::size_t>(
        std::chrono::duration_cast<std::chrono::seconds>(SessionLimits{}.idle_timeout).count());
    /// --max-sessions-per-client (SessionLimits' default)
    std::size_t max_sessions_per_client = SessionLimits{}.max_per_client;
    std::vector<std::string> trusted_proxies;  ///< --trust-proxy
};

/// The components' entry points; a member is nullptr when the build has not that component.
struct Extras {
    /// agentskills::archive: archive_child_source().
    ChildOpener (*archive_child_source)() = nullptr;
    /// agentskills::git: git_root_source().
    RootResolver (*git_root_source)() = nullptr;
    /// agentskills::lock: make_lock_verifier(load_skill_lock(path)).
    LockVerifier (*lock_verifier)(const std::string& lock_file) = nullptr;
    /// The MCP client: a loader over one server (cli/mcp_source.cpp, make_mcp_source_loader).
    SkillLoaderPtr (*mcp_loader)(const SourceSpec& spec, std::string_view label, const SourceArgs& args) = nullptr;
    /// `agentskills mcp`: serve the roots of `options`; returns the exit status.
    int (*serve_mcp)(const McpServeArgs& args, FilesystemLoaderOptions options) = nullptr;
    /// `agentskills lock`: print the lock text of the skills of `options` (to stdout, or to the
    /// file `output` unless it holds something other than an agentskills lock); returns the exit status.
    int (*print_lock)(const std::vector<std::string>& roots, FilesystemLoaderOptions options,
                      const std::string& output) = nullptr;
};

/// The optional components, as the command line needs them.
enum class Component { archive, git, lock, mcp, postgres, sqlite };

/// Whether `agentskills-extras-full` is the only helper with `c` (libgit2, libpq).
[[nodiscard]] constexpr bool in_full_helper_only(Component c) noexcept {
    return c == Component::git || c == Component::postgres;
}

/// The components. In a helper that links `needed` they are linked in and this returns them.
/// Elsewhere (`agentskills`; `agentskills-extras` for a component only
/// `agentskills-extras-full` has) this runs the helper that has it, with the program's
/// arguments, in place of this process and does not return; when no such helper can be run it
/// throws ConfigurationError naming `needed_for` (what the command line asked for) and the paths
/// tried.
const Extras& extras(std::string_view needed_for, Component needed);

/// Runs the first of `programs` (file names) found beside this program or in the installed
/// layout, with this program's arguments, in place of this process (helpers.cpp); throws
/// ConfigurationError naming `needed_for`, the first of `programs` and the paths tried when none
/// can be run.
[[noreturn]] void run_helper(std::string_view needed_for, const std::vector<std::string_view>& programs);

/// The arguments keep_program_arguments kept (argv, with its null pointer at the end).
std::vector<char*>& program_arguments();

/// Sets the allocator's huge-page tunable for the helper about to start, unless the user set
/// GLIBC_TUNABLES (helpers.cpp).
void ask_for_huge_pages();

/// Keeps the program's arguments for the helper (main calls it first).
void keep_program_arguments(int argc, char** argv);

/// A discovery over local roots with at least `huge_pages_min_entries` entries in all (counted
/// before anything is read or printed) runs this program again in place, with its heap on huge
/// pages as the helper's is (extras_exec.cpp): on these machines a page fault costs several
/// microseconds, and a large library's heap faults in page by page. Only where transparent huge
/// pages are "madvise" (with "always" the heap has them already), only when the user did not set
/// GLIBC_TUNABLES, once, and never after something was printed. The commands call it first
/// thing (discover_sources, list). The helper itself is started with the tunables: there it does
/// nothing.
void restart_for_large_library(const std::vector<std::string>& roots);
inline constexpr std::size_t huge_pages_min_entries = 4096;

/// The helpers' file names: the one without libgit2 and libpq, and the one with every component.
inline constexpr std::string_view extras_program_name = "agentskills-extras";
inline constexpr std::string_view full_extras_program_name = "agentskills-extras-full";

/// Set (to "1") beside GLIBC_TUNABLES when the launcher chose the allocator's tunables for the
/// helper (extras_exec.cpp); the helper's main() then removes both (forget_launcher_tunables).
inline constexpr const char* launcher_tunables_marker = "AGENTSKILLS_LAUNCHER_TUNABLES";

/// Whether this process started with the tunables its launcher chose (set by
/// forget_launcher_tunables, which main() calls first).
inline bool& started_with_launcher_tunables() {
    static bool started = false;
    return started;
}

/// Removes the tunables the launcher set for this process only, so that the programs this one
/// starts (an MCP server of --mcp-command, git) run as the user started us.
inline void forget_launcher_tunables() {
    if (std::getenv(launcher_tunables_marker) == nullptr) return;
    started_with_launcher_tunables() = true;
    (void)::unsetenv("GLIBC_TUNABLES");
    (void)::unsetenv(launcher_tunables_marker);
}

}  // namespace agentskills::cli
