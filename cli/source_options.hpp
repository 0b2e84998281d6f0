// agentskills CLI — the skill-source flags every command shares, and the loader they describe.
//
// Each command that reads skills declares its source and loader flags here, all of them
// (add_source_options), so `--root`, `--include`, `--max-lines`, ... read the same and mean the
// same everywhere, and a new source or loader flag is added once. Policy words come from
// agentskills/policy_words.hpp.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "agentskills/base/skill.hpp"
#include "agentskills/catalog/governance.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/parse/parser.hpp"

namespace agentskills::cli {

/// One skill source of the command line, in the order given (earlier sources win).
struct SourceSpec {
    enum class Kind { root, mcp_command, mcp_url };
    Kind kind = Kind::root;
    std::string value;
};

/// What a command's source flags said. Unset optionals keep the command's defaults.
struct SourceArgs {
    std::vector<std::string> roots;         ///< every --root, in order
    std::vector<std::string> mcp_commands;  ///< every --mcp-command, in order
    std::vector<std::string> mcp_urls;      ///< every --mcp-url, in order
    std::string mcp_era = "auto";           ///< --mcp-era: auto, 2026-07-28 or 2025-11-25
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    std::optional<MissingDirectories> missing_directories;
    std::optional<DuplicateNames> duplicate_names;
    std::optional<NamePolicy> name_policy;
    /// --max-lines, --max-bytes; after parsing, the --config file's `max_lines` / `max_bytes`
    /// when the flag was not given.
    std::optional<std::size_t> max_lines;
    std::optional<std::size_t> max_bytes;
    /// --limits PRESET; after parsing, folded into max_lines (an explicit --max-lines wins, then
    /// --limits, then the --config file's `max_lines`, then its `limits`).
    std::optional<LoaderLimits> limits;
    /// --yaml-recovery; after parsing, the --config file's `yaml_recovery` when the flag was not given.
    std::optional<YamlRecovery> yaml_recovery;
    /// --compat AGENT[,AGENT...] (FilesystemLoaderOptions::compat); after parsing, the --config
    /// file's `compat` when the flag was not given.
    std::vector<AgentFolders> compat;
    std::string config;                   ///< --config FILE (read once, when the flags are parsed)
    std::vector<OverrideRule> overrides;  ///< the --config file's override rules
    std::string lock;                     ///< --lock FILE
    bool lock_strict = false;             ///< --lock-strict
    std::string nested;                   ///< the DEPTH of --nested=DEPTH ("" = the default depth)
    const CLI::Option* nested_option = nullptr;
    bool roots_required = false;  ///< SourceFlags::roots_required, checked after parsing

    /// Set by add_source_options; used to restore the command-line order of the sources.
    CLI::App* command = nullptr;
    const CLI::Option* root_option = nullptr;
    const CLI::Option* mcp_command_option = nullptr;
    const CLI::Option* mcp_url_option = nullptr;

    /// The sources in command-line order. Throws UsageError when --root and --mcp-* are mixed
    /// but one occurrence of a flag carried several values (the order is then unknown).
    [[nodiscard]] std::vector<SourceSpec> sources() const;
    [[nodiscard]] bool has_mcp_sources() const noexcept { return !mcp_commands.empty() || !mcp_urls.empty(); }
    /// The parser's options under these flags: name policy, limits and YAML recovery (the
    /// defaults when unset).
    [[nodiscard]] ParseOptions parse_options() const;
};

/// How `--root` reads in a command's help, and the few flags a command leaves out. Every command
/// that reads skills takes every other source and loader flag; docs/cli.md ("Source and loader
/// flags") says why a command leaves one out.
struct SourceFlags {
    std::string root_help = "A skills library (repeatable; earlier roots win)";
    bool roots_required = false;  ///< at least one source (a --root or an --mcp-*)
    bool mcp = true;              ///< --mcp-command, --mcp-url, --mcp-era (not: mcp, watch, lock)
    bool lock = true;             ///< --lock, --lock-strict (not: lock, which writes the lock file)
    bool max_bytes = true;        ///< --max-bytes (not: render, whose --max-bytes bounds its output)
};

/// What the command does when a flag is not given.
struct SourceDefaults {
    bool standard_roots_when_none = false;  ///< no source at all: the standard roots (list, watch)
    /// FilesystemLoaderOptions::lazy_bodies: for commands that discover once and never print a
    /// body (they also turn keep_results off).
    bool lazy_bodies = false;
    /// FilesystemLoaderOptions::frontmatter_json: false for commands that never print a
    /// manifest's `frontmatter` (a catalog block).
    bool frontmatter_json = true;
    /// FilesystemLoaderOptions::frontmatter_typing (`list --json` types it as the MCP server does).
    FrontmatterTyping frontmatter_typing = FrontmatterTyping::text;
};

/// Declares the source and loader flags on `cmd` (all but those `flags` leaves out), storing into
/// `args` (which must outlive parsing). Once the command line is parsed, `--config` is read
/// (a ConfigurationError names the file and line) and fills what the flags did not set.
void add_source_options(CLI::App& cmd, SourceArgs& args, const SourceFlags& flags = {});

/// The loader flags alone, for a command that reads one skill by its path (read-properties):
/// --name-policy, --max-lines, --max-bytes (unless `max_bytes` is false), --limits,
/// --yaml-recovery and --config. Part of
/// add_source_options.
void add_loader_options(CLI::App& cmd, SourceArgs& args, bool max_bytes = true);

/// The source hooks this program is built with: `.skill` / `.zip` library children
/// (agentskills::archive) and `git:<repo>@<ref>[:<path>]` roots (agentskills::git).
[[nodiscard]] SkillSources builtin_sources();

/// The group depth --nested asks for (0 without it; SKILL_NESTED_DEFAULT_DEPTH without a value).
[[nodiscard]] std::size_t nested_depth(const SourceArgs& args);

/// The file-system loader options for `roots` under the flags and defaults (with builtin_sources()).
/// A root the user named that does not exist (or a git repository or ref that is missing) fails
/// discovery unless --missing-directories skip; the standard roots are skipped silently. Reads
/// --lock (ConfigurationError for a bad file, or --lock in a build without agentskills::lock).
[[nodiscard]] FilesystemLoaderOptions filesystem_options(const SourceArgs& args, const SourceDefaults& defaults,
                                                         std::vector<std::string> roots);

/// The loader the sources describe: one FilesystemSkillLoader over every --root when there is
/// no MCP source (exactly what the flags say); else one loader per run of consecutive roots and
/// one per MCP server, combined in command-line order. Throws ConfigurationError.
[[nodiscard]] SkillLoaderPtr make_source_loader(const SourceArgs& args, const SourceDefaults& defaults);

// Implemented in cli/mcp_source.cpp (an error when the program is built without MCP support).

/// A loader over the MCP server `spec` (kind mcp_command or mcp_url); `label` names the server
/// in diagnostics and prefixes.
[[nodiscard]] SkillLoaderPtr make_mcp_source_loader(const SourceSpec& spec, std::string_view label,
                                                    const SourceArgs& args);
}  // namespace agentskills::cli
