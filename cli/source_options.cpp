// agentskills CLI — the shared skill-source flags (source_options.hpp).
#include "source_options.hpp"

#include <charconv>
#include <map>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/combined_loader.hpp"
#include "agentskills/catalog/governance.hpp"
#include "agentskills/catalog/policy_words.hpp"
#include "agentskills/host/host.hpp"
#if defined(AGENTSKILLS_HAVE_ARCHIVE)
#include "agentskills/archive/archive_reader.hpp"
#endif
#include "extras.hpp"
#include "messages.hpp"
#include "numbers.hpp"

namespace agentskills::cli {
namespace {

// A CLI11 transformer accepting the policy words of `Enum` (any case), giving the enumerator.
template <class Enum>
CLI::Option* add_policy(CLI::App& cmd, const char* flag, std::optional<Enum>& target, const char* help) {
    std::map<std::string, Enum> words;
    for (const auto& w : policy_words<Enum>) words.emplace(std::string(w.word), w.value);
    return cmd.add_option(flag, target, help)
        ->transform(CLI::CheckedTransformer(words, CLI::ignore_case).description(""))
        ->option_text(policy_word_list<Enum>());
}

}  // namespace

std::vector<SourceSpec> SourceArgs::sources() const {
    std::vector<SourceSpec> out;
    if (!has_mcp_sources()) {
        for (const auto& r : roots) out.push_back({SourceSpec::Kind::root, r});
        return out;
    }
    // CLI11 records each occurrence of an option in parse order; each occurrence carries one
    // value here (allow_extra_args(false)), so the n-th occurrence is the n-th value.
    std::size_t next_root = 0;
    std::size_t next_command = 0;
    std::size_t next_url = 0;
    if (command != nullptr) {
        for (const CLI::Option* opt : command->parse_order()) {
            if (opt == root_option && next_root < roots.size()) {
                out.push_back({SourceSpec::Kind::root, roots[next_root++]});
            } else if (opt == mcp_command_option && next_command < mcp_commands.size()) {
                out.push_back({SourceSpec::Kind::mcp_command, mcp_commands[next_command++]});
            } else if (opt == mcp_url_option && next_url < mcp_urls.size()) {
                out.push_back({SourceSpec::Kind::mcp_url, mcp_urls[next_url++]});
            }
        }
    }
    if (next_root != roots.size() || next_command != mcp_commands.size() || next_url != mcp_urls.size()) {
        throw UsageError("give one value per --root, --mcp-command and --mcp-url flag when they are mixed");
    }
    return out;
}

void add_source_options(CLI::App& cmd, SourceArgs& args, const SourceFlags& flags) {
    CLI::Option* root = cmd.add_option("--root", args.roots, flags.root_help)->allow_extra_args(false);
    args.command = &cmd;
    args.root_option = root;
    if (flags.mcp) {
        CLI::Option* command =
            cmd.add_option("--mcp-command", args.mcp_commands,
                           "An MCP server to start, \"CMD ARGS\" (repeatable, ordered among the --root flags)")
                ->allow_extra_args(false);
        CLI::Option* url =
            cmd.add_option("--mcp-url", args.mcp_urls,
                           "An MCP server's Streamable HTTP URL (repeatable, ordered among the --root flags)")
                ->allow_extra_args(false);
        args.mcp_command_option = command;
        args.mcp_url_option = url;
        cmd.add_option("--mcp-era", args.mcp_era,
                       "Protocol era of the MCP servers: auto (server/discover, else initialize), or pin one")
            ->check(CLI::IsMember({"auto", "2026-07-28", "2025-11-25"}))
            ->capture_default_str();
    }
    CLI::Option* include = cmd.add_option("--include", args.include, "Only this skill name (repeatable)");
    cmd.add_option("--exclude", args.exclude, "Leave this skill name out (repeatable)")->excludes(include);
    add_policy(cmd, "--missing-directories", args.missing_directories,
               "A --root that does not exist (or a missing git repository or ref): error (default) or skip");
    add_policy(cmd, "--duplicate-names", args.duplicate_names, "Two skills with one name (default: keep_first)");
    {
        std::map<std::string, AgentFolders> agents;
        for (const auto& w : policy_words<AgentFolders>) agents.emplace(std::string(w.word), w.value);
        cmd.add_option("--compat", args.compat,
                       fmt::format("Also read these agents' skill folders ({}; comma-separated)",
                                   policy_word_list<AgentFolders>()))
            ->delimiter(',')
            ->allow_extra_args(false)
            ->transform(CLI::CheckedTransformer(agents, CLI::ignore_case).description(""))
            ->option_text("AGENT[,AGENT...]");
    }
    args.roots_required = flags.roots_required;
    add_loader_options(cmd, args, flags.max_bytes);
    args.nested_option =
        cmd.add_option("--nested", args.nested,
                       fmt::format("Find skills in group directories below the roots, named group:skill, down to "
                                   "DEPTH groups (default {}; write --nested=DEPTH)",
                                   SKILL_NESTED_DEFAULT_DEPTH))
            ->expected(0, 1)
            ->check(count_value())
            ->option_text("[=DEPTH]");
    if (flags.lock) {
        cmd.add_option("--lock", args.lock, "Lock file (agentskills-lock.json): refuse skills whose files changed")
            ->allow_extra_args(false);
        cmd.add_flag("--lock-strict", args.lock_strict, "With --lock: also refuse skills the lock file does not hold");
    }
}

void add_loader_options(CLI::App& cmd, SourceArgs& args, bool max_bytes) {
    add_policy(cmd, "--name-policy", args.name_policy, "How names are checked (default: keep)");
    cmd.add_option("--max-lines", args.max_lines,
                   fmt::format("Line limit of a SKILL.md (0 = none; default: {})", SKILL_MAX_FILE_LINES))
        ->check(count_value());
    if (max_bytes) {
        cmd.add_option("--max-bytes", args.max_bytes,
                       fmt::format("Byte limit of a SKILL.md (0 = none; default: {})", SKILL_MAX_FILE_BYTES))
            ->check(count_value());
    }
    add_policy(cmd, "--limits", args.limits,
               "Loader limits preset: standard (500 lines) or agents (no line limit, as Codex and Gemini CLI load)");
    add_policy(cmd, "--yaml-recovery", args.yaml_recovery,
               "A frontmatter that is not valid YAML: none (skip the skill; default) or plain_values (read a "
               "top-level value such as 'description: Use when: ...' as text, with a warning)");
    cmd.add_option("--config", args.config,
                   "Skills configuration file (YAML: skills: max_lines, max_bytes, limits, yaml_recovery, compat, "
                   "overrides)")
        ->allow_extra_args(false);
    // After parsing: at least one source where the command needs one (a usage error, like a
    // missing required option), then the --config file, whose limits apply where no flag is given.
    cmd.parse_complete_callback([&args] {
        if (args.roots_required && args.roots.empty() && !args.has_mcp_sources()) {
            throw CLI::RequiredError(args.mcp_command_option != nullptr ? "--root, --mcp-command or --mcp-url"
                                                                        : "--root");
        }
        if (args.lock_strict && args.lock.empty()) throw CLI::ValidationError("--lock-strict", "needs --lock FILE");
        // A preset is a value of max_lines: the flags before the file, the limits before the preset.
        const auto preset_lines = [](LoaderLimits limits) {
            FilesystemLoaderOptions preset;
            apply_loader_limits(preset, limits);
            return preset.max_lines;
        };
        if (!args.max_lines && args.limits) args.max_lines = preset_lines(*args.limits);
        if (!args.config.empty()) {
            GovernanceConfig config = load_governance_config(args.config);
            args.overrides = std::move(config.overrides);
            if (!args.max_lines) args.max_lines = config.max_lines;
            if (!args.max_lines && config.limits) args.max_lines = preset_lines(*config.limits);
            if (!args.max_bytes) args.max_bytes = config.max_bytes;
            if (!args.yaml_recovery) args.yaml_recovery = config.yaml_recovery;
            if (args.compat.empty() && config.compat) args.compat = *config.compat;
        }
        if (!args.compat.empty() && args.has_mcp_sources()) {
            throw CLI::ValidationError("--compat",
                                       "adds folders of the file system; it does not combine with "
                                       "--mcp-command or --mcp-url");
        }
    });
}

ParseOptions SourceArgs::parse_options() const {
    ParseOptions options;
    if (name_policy) options.name_policy = *name_policy;
    if (max_lines) options.max_lines = *max_lines;
    if (max_bytes) options.max_bytes = *max_bytes;
    if (yaml_recovery) options.yaml_recovery = *yaml_recovery;
    return options;
}

std::size_t nested_depth(const SourceArgs& args) {
    if (args.nested_option == nullptr || args.nested_option->count() == 0) return 0;
    if (args.nested.empty()) return SKILL_NESTED_DEFAULT_DEPTH;
    std::size_t depth = 0;
    (void)std::from_chars(args.nested.data(), args.nested.data() + args.nested.size(), depth);
    return depth;
}

// The hooks decide by name or syntax here, without the libraries; the module (extras.hpp) is
// opened only for a child or a root that is theirs.
SkillSources builtin_sources() {
    SkillSources sources;
#if defined(AGENTSKILLS_HAVE_ARCHIVE)
    ChildOpener archives;
    archives.accepts = [](std::string_view file_name) { return is_archive_skill_name(file_name); };
    archives.open = [](const SkillReader& reader, const std::string& path) {
        static const ChildOpener real = [] {
            const Extras& e = extras(".skill and .zip library children", Component::archive);
            if (e.archive_child_source == nullptr)
                throw ConfigurationError("this agentskills was built without agentskills::archive");
            return e.archive_child_source();
        }();
        return real.open(reader, path);
    };
    sources.child_openers.push_back(std::move(archives));
#endif
#if defined(AGENTSKILLS_HAVE_GIT)
    sources.root_resolvers.push_back([](const std::string& root) -> std::optional<RootSource> {
        if (root.rfind("git:", 0) != 0) return std::nullopt;  // as parse_git_root decides
        const Extras& e = extras("a git: root", Component::git);
        if (e.git_root_source == nullptr)
            throw ConfigurationError("this agentskills was built without agentskills::git");
        return e.git_root_source()(root);
    });
#endif
    return sources;
}

FilesystemLoaderOptions filesystem_options(const SourceArgs& args, const SourceDefaults& defaults,
                                           std::vector<std::string> roots) {
    FilesystemLoaderOptions options;
    options.include_default_roots = defaults.standard_roots_when_none && roots.empty() && !args.has_mcp_sources();
    options.roots = std::move(roots);
    // A root the user named is an error when it is missing; the standard roots are skipped
    // silently (the loader never fails discovery over a default root).
    options.missing_directories = args.missing_directories.value_or(MissingDirectories::error);
    if (args.duplicate_names) options.duplicate_names = *args.duplicate_names;
    if (args.name_policy) options.name_policy = *args.name_policy;
    if (args.max_lines) options.max_lines = *args.max_lines;
    if (args.max_bytes) options.max_bytes = *args.max_bytes;
    if (args.yaml_recovery) options.yaml_recovery = *args.yaml_recovery;
    options.compat = args.compat;
    if (!args.include.empty()) options.include = args.include;
    options.exclude = args.exclude;
    options.lazy_bodies = defaults.lazy_bodies;
    // Such a command discovers once and prints: nothing is kept for another discovery.
    options.keep_results = !defaults.lazy_bodies;
    options.frontmatter_json = defaults.frontmatter_json;
    options.frontmatter_typing = defaults.frontmatter_typing;
    options.sources = builtin_sources();
    // Governance: override rules, nested groups, the lock (docs/loading.md, "Admission").
    options.overrides = args.overrides;
    options.nested_depth = nested_depth(args);
    if (!args.lock.empty()) {
#ifdef AGENTSKILLS_HAVE_LOCK
        const Extras& e = extras("--lock", Component::lock);
        if (e.lock_verifier == nullptr)
            throw ConfigurationError("this agentskills was built without agentskills::lock");
        options.lock = e.lock_verifier(args.lock);
        options.lock_strict = args.lock_strict;
#else
        throw ConfigurationError(
            "--lock needs a build with agentskills::lock (CMake option AGENTSKILLS_LOCK, OpenSSL)");
#endif
    }
    return options;
}

// MCP servers as skill sources (--mcp-command, --mcp-url): the MCP client is one of the extras.
#ifdef AGENTSKILLS_HAVE_MCP_CLIENT

SkillLoaderPtr make_mcp_source_loader(const SourceSpec& spec, std::string_view label, const SourceArgs& args) {
    const Extras& e = extras(spec.kind == SourceSpec::Kind::mcp_url ? "--mcp-url" : "--mcp-command", Component::mcp);
    if (e.mcp_loader == nullptr) throw ConfigurationError("this agentskills was built without the MCP client");
    return e.mcp_loader(spec, label, args);
}

#else

SkillLoaderPtr make_mcp_source_loader(const SourceSpec& spec, std::string_view, const SourceArgs&) {
    throw ConfigurationError(fmt::format("{} '{}': this agentskills was built without the MCP client",
                                         spec.kind == SourceSpec::Kind::mcp_url ? "--mcp-url" : "--mcp-command",
                                         spec.value));
}

#endif

SkillLoaderPtr make_source_loader(const SourceArgs& args, const SourceDefaults& defaults) {
    if (!args.has_mcp_sources()) {
        return std::make_shared<FilesystemSkillLoader>(filesystem_options(args, defaults, args.roots));
    }
    // Roots and servers in command-line order, merged by the one merge: a name that skills of two
    // servers share is qualified with each server's label; any other repeat is a duplicate.
    const DuplicateNames duplicates = args.duplicate_names.value_or(DuplicateNames::keep_first);
    std::vector<LoaderSource> sources;
    std::vector<std::string> run;  // consecutive roots
    std::size_t servers = 0;
    const auto flush = [&] {
        if (run.empty()) return;
        SourceArgs unselected = args;  // include/exclude apply to the combined catalog
        unselected.include.clear();
        unselected.exclude.clear();
        sources.push_back(
            {.loader = std::make_shared<FilesystemSkillLoader>(filesystem_options(unselected, defaults, run)),
             .duplicate_names = duplicates,
             .in_run_workspace = std::nullopt,
             .qualifier = {}});
        run.clear();
    };
    for (const SourceSpec& s : args.sources()) {
        if (s.kind == SourceSpec::Kind::root) {
            run.push_back(s.value);
            continue;
        }
        flush();
        std::string label = fmt::format("mcp{}", ++servers);
        sources.push_back({.loader = make_mcp_source_loader(s, label, args),
                           .duplicate_names = duplicates,
                           .in_run_workspace = std::nullopt,
                           .qualifier = std::move(label)});
    }
    flush();
    CombinedLoaderOptions options;
    if (!args.include.empty()) options.include = args.include;
    options.exclude = args.exclude;
    return std::make_shared<CombinedSkillLoader>(std::move(sources), std::move(options));
}

}  // namespace agentskills::cli
