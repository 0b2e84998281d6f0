// agentskills render --root DIR... NAME [ARGUMENTS...]: what a person's `/NAME ARGUMENTS` sends.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/catalog/combined_loader.hpp"
#include "agentskills/host/host.hpp"
#include "command.hpp"
#include "messages.hpp"
#include "numbers.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct RenderArgs {
    SourceArgs sources;  // --root, --mcp-command, --mcp-url and the loader flags
    std::string spec;
    std::string name;
    std::vector<std::string> arguments;
    std::size_t max_bytes = RENDER_MAX_BYTES;
};

/// The loader of the command line: its sources, after the skills configurations of --spec
/// (each with the --config rules after its own) when one is given.
SkillLoaderPtr render_loader(const RenderArgs& args) {
    const bool has_sources = !args.sources.roots.empty() || args.sources.has_mcp_sources();
    if (args.spec.empty()) {
        if (!has_sources) throw UsageError("pass --root DIR, --mcp-command, --mcp-url or --spec FILE");
        return make_source_loader(args.sources, {});
    }
    std::vector<SkillsConfig> configs = load_agent_spec(args.spec);
    for (SkillsConfig& c : configs) {
        c.sources = builtin_sources();  // archives, git: roots
        c.overrides.insert(c.overrides.end(), args.sources.overrides.begin(), args.sources.overrides.end());
    }
    std::vector<LoaderSource> parts;
    parts.push_back({.loader = std::make_shared<CombinedSkillLoader>(std::move(configs)),
                     .duplicate_names = DuplicateNames::error,
                     .in_run_workspace = std::nullopt,
                     .qualifier = {}});
    if (has_sources) {
        parts.push_back({.loader = make_source_loader(args.sources, {}),
                         .duplicate_names = DuplicateNames::error,
                         .in_run_workspace = std::nullopt,
                         .qualifier = {}});
    }
    return std::make_shared<CombinedSkillLoader>(std::move(parts));
}

/// The skill `name` names (the one name rule), loaded as load_host_catalog loads it.
SkillDefinition find_skill(const RenderArgs& args) {
    const SkillLoaderPtr loader = render_loader(args);
    const SkillCatalogPtr catalog = discover_skill_catalog(loader);
    for (const auto& s : catalog->skipped()) print_note(fmt::format("note: {}", s.message));
    const SkillManifest* m = catalog->find(args.name);
    if (m == nullptr) {
        std::string names;
        for (const auto& s : catalog->skills()) names += (names.empty() ? "" : ", ") + s.name;
        throw Error(fmt::format("no skill named '{}' (available: {})", args.name, names.empty() ? "none" : names));
    }
    return SkillDefinition::from_loaded(catalog->load(*m), loader->in_run_workspace(m->name));
}

int run_render(const RenderArgs& args) {
    const SkillDefinition skill = find_skill(args);
    std::string out;
    if (args.arguments.empty()) {
        out = skill.render(std::nullopt, args.max_bytes);
    } else {
        std::string joined;
        for (const auto& a : args.arguments) joined += (joined.empty() ? "" : " ") + a;
        try {
            out = skill.render(joined, args.max_bytes);
        } catch (const ConfigurationError& e) {
            throw Error(e.what());  // the text past --max-bytes: a failure about the input (status 1)
        }
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::fputc('\n', stdout);
    return exit_ok;
}

}  // namespace
void setup_render(CLI::App& app, int* status) {
    auto args = std::make_shared<RenderArgs>();
    CLI::App* cmd = app.add_subcommand(
        "render", "Print a skill as a person's invocation sends it: the activation text, with ARGUMENTS substituted");
    add_source_options(*cmd, args->sources,
                       {.root_help = "Skill library directory (repeat the option for several, in precedence order)",
                        .max_bytes = false});
    cmd->add_option("--spec", args->spec, "Agent spec (YAML, or JSON for .json) whose Skills configurations to read");
    cmd->add_flag_callback(
        "--skip-missing", [args] { args->sources.missing_directories = MissingDirectories::skip; },
        "The same as --missing-directories skip");
    cmd->add_option("--max-bytes", args->max_bytes,
                    "Largest instructions text after substituting ARGUMENTS, in bytes (0 = no limit)")
        ->check(count_value())
        ->capture_default_str();
    cmd->add_option("name", args->name, "Skill name (a leading '/' is ignored)")->required();
    cmd->add_option("arguments", args->arguments, "Arguments; several words are joined with single spaces");
    cmd->callback([args, status]() { *status = run_render(*args); });
}

}  // namespace agentskills::cli
