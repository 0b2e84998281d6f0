// agentskills render --root DIR... NAME [ARGUMENTS...]: what a person's `/NAME ARGUMENTS` sends.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/host/host.hpp"
#include "command.hpp"
#include "numbers.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct RenderArgs {
    SourceArgs sources;  // --root, --mcp-command, --mcp-url
    std::string spec;
    std::string name;
    std::vector<std::string> arguments;
    bool skip_missing = false;
    std::size_t max_bytes = RENDER_MAX_BYTES;
};

/// The skill named `name` among the command line's sources when they include an MCP server
/// (nullopt when there is none), found by the one name rule and loaded as load_host_catalog would.
std::optional<SkillDefinition> find_in_sources(const RenderArgs& args) {
    const SkillLoaderPtr loader = make_source_loader(
        args.sources,
        {.missing_directories = args.skip_missing ? MissingDirectories::skip : MissingDirectories::error});
    const SkillCatalogPtr catalog = discover_skill_catalog(loader);
    for (const auto& s : catalog->skipped()) {
        fmt::print(stderr, "agentskills render: note: {}\n", terminal_text(s.message));
    }
    const SkillManifest* m = catalog->find(args.name);
    if (m == nullptr) return std::nullopt;
    return SkillDefinition::from_loaded(catalog->load(*m), loader->in_run_workspace(m->name));
}

int render_catalog(const RenderArgs& args) {
    std::vector<SkillsConfig> configs;
    if (!args.spec.empty()) configs = load_agent_spec(args.spec);
    std::optional<SkillDefinition> from_sources;
    if (args.sources.has_mcp_sources()) {
        if (!configs.empty()) {
            fmt::print(stderr, "agentskills render: --spec cannot be combined with --mcp-command or --mcp-url\n");
            return exit_usage;
        }
        from_sources = find_in_sources(args);
        if (!from_sources) {
            fmt::print(stderr, "agentskills render: no skill named '{}'\n", terminal_text(args.name));
            return exit_failure;
        }
    } else if (!args.sources.roots.empty()) {
        SkillsConfig c;
        c.directories = args.sources.roots;
        c.missing_directories = args.skip_missing ? MissingDirectories::skip : MissingDirectories::error;
        c.name_policy = NamePolicy::keep;
        configs.push_back(std::move(c));
    }
    if (configs.empty() && !from_sources) {
        fmt::print(stderr, "agentskills render: pass --root DIR or --spec FILE\n");
        return exit_usage;
    }
    if (!from_sources) {
        for (SkillsConfig& c : configs) c.sources = builtin_sources();  // archives, git: roots
        // --config's rules come after each configuration's own (later rules win).
        const std::vector<OverrideRule> rules = args.sources.config.empty()
                                                    ? std::vector<OverrideRule>{}
                                                    : load_governance_config(args.sources.config).overrides;
        for (auto& c : configs) c.overrides.insert(c.overrides.end(), rules.begin(), rules.end());
    }
    HostCatalog catalog;
    if (!from_sources) catalog = load_host_catalog(configs);
    for (const auto& s : catalog.skipped) {
        fmt::print(stderr, "agentskills render: note: {}\n", terminal_text(s.message));
    }
    const SkillDefinition* skill = from_sources ? &*from_sources : catalog.find(args.name);
    if (skill == nullptr) {
        std::string names;
        for (const auto& s : catalog.skills) names += (names.empty() ? "" : ", ") + terminal_text(s.name);
        fmt::print(stderr, "agentskills render: no skill named '{}' (available: {})\n", terminal_text(args.name),
                   names.empty() ? "none" : names);
        return exit_failure;
    }
    std::string out;
    if (args.arguments.empty()) {
        out = skill->render(std::nullopt, args.max_bytes);
    } else {
        std::string joined;
        for (const auto& a : args.arguments) joined += (joined.empty() ? "" : " ") + a;
        out = skill->render(joined, args.max_bytes);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
    return exit_ok;
}

int run_render(const RenderArgs& args) {
    try {
        return render_catalog(args);
    } catch (const Error& e) {
        // A bad or unreadable spec, a failed discovery, a rendering past --max-bytes.
        fmt::print(stderr, "agentskills render: {}\n", terminal_text(e.what()));
        return exit_failure;
    }
}

}  // namespace
void setup_render(CLI::App& app, int* status) {
    auto args = std::make_shared<RenderArgs>();
    CLI::App* cmd = app.add_subcommand(
        "render", "Print a skill as a person's invocation sends it: the activation text, with ARGUMENTS substituted");
    add_source_options(
        *cmd, args->sources,
        {.root_help = "Skill library directory (repeat the option for several, in precedence order)", .lock = false});
    cmd->add_option("--spec", args->spec, "Agent spec (YAML, or JSON for .json) whose Skills configurations to read");
    cmd->add_flag("--skip-missing", args->skip_missing, "Leave out --root directories that do not exist");
    cmd->add_option("--max-bytes", args->max_bytes,
                    "Largest instructions text after substituting ARGUMENTS, in bytes (0 = no limit)")
        ->check(count_value())
        ->capture_default_str();
    cmd->add_option("name", args->name, "Skill name (a leading '/' is ignored)")->required();
    cmd->add_option("arguments", args->arguments, "Arguments; several words are joined with single spaces");
    cmd->callback([args, status]() { *status = run_render(*args); });
}

}  // namespace agentskills::cli
