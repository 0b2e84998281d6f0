// agentskills CLI — the optional components, in a module opened on first need.
//
// The program itself links only the core library. What needs cpp-httplib and OpenSSL (the `mcp`
// command, --mcp-command / --mcp-url sources), libgit2 (`git:` roots), libzip (`.skill` / `.zip`
// library children) or libcrypto (`lock`, --lock) is in `agentskills-extras.so`, which the
// program opens with dlopen the first time a command line needs one of them. A command that
// needs none of them (list, to-prompt, validate of local files, ...) never loads those libraries:
// they cost about 6 MB of memory and their start-up work in every run (docs/performance.md).
//
// The module is looked for beside the program (a build tree), then in the installed layout
// (`<bindir>/../<libdir>/agentskills/`, AGENTSKILLS_EXTRAS_RELATIVE_DIR). It holds its own copy
// of the core library; what crosses between the two (loaders, hooks, options) is the core's
// types, built from the same sources by the same build.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "agentskills/governance.hpp"
#include "agentskills/loader.hpp"
#include "source_options.hpp"

namespace agentskills::cli {

/// What `agentskills mcp` serves with, besides its loader options.
struct McpServeArgs {
    std::string http;  ///< HOST:PORT; empty: stdio
    std::vector<std::string> allowed_origins;
    std::size_t threads = 16;
    std::size_t page_size = 100;
    std::string tool_name = "activate_skill";
    std::string skill_directory = "auto";
    bool watch = false;
};

/// The module's entry points; a member is nullptr when the build has not that component.
struct Extras {
    /// The program's version and the size of this struct: a module of another build is refused.
    const char* version = nullptr;
    std::size_t size = 0;
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
    /// `agentskills lock`: print the lock text of the skills of `options`; returns the exit status.
    int (*print_lock)(const std::vector<std::string>& roots, FilesystemLoaderOptions options) = nullptr;
};

/// The module, opened on the first call (thread-safe). Throws ConfigurationError naming `needed_for`
/// (what the command line asked for) when the module cannot be found or opened, or is of another build.
const Extras& extras(std::string_view needed_for);

/// The name the entry point is exported under (a function returning `const Extras*`).
inline constexpr const char* extras_entry_point = "agentskills_cli_extras_v1";

/// The module's file name.
inline constexpr const char* extras_file_name = "agentskills-extras.so";

}  // namespace agentskills::cli
