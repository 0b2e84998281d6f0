// agentskills render --root DIR... NAME [ARGUMENTS...]: what a person's `/NAME ARGUMENTS` sends.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "agentskills/host.hpp"
#include "command.hpp"

namespace agentskills::cli {
namespace {

struct RenderArgs {
    std::vector<std::string> roots;
    std::string spec;
    std::string name;
    std::vector<std::string> arguments;
    bool skip_missing = false;
};

int run_render(const RenderArgs& args) {
    std::vector<SkillsConfig> configs;
    if (!args.spec.empty()) configs = load_agent_spec(args.spec);
    if (!args.roots.empty()) {
        SkillsConfig c;
        c.directories = args.roots;
        c.missing_directories = args.skip_missing ? MissingDirectories::skip : MissingDirectories::error;
        c.name_policy = NamePolicy::keep;
        configs.push_back(std::move(c));
    }
    if (configs.empty()) {
        fmt::print(stderr, "agentskills render: pass --root DIR or --spec FILE\n");
        return exit_usage;
    }
    const HostCatalog catalog = load_host_catalog(configs);
    for (const auto& s : catalog.skipped) fmt::print(stderr, "agentskills render: note: {}\n", s.message);
    const SkillDefinition* skill = catalog.find(args.name);
    if (skill == nullptr) {
        std::string names;
        for (const auto& s : catalog.skills) names += (names.empty() ? "" : ", ") + s.name;
        fmt::print(stderr, "agentskills render: no skill named '{}' (available: {})\n", args.name,
                   names.empty() ? "none" : names);
        return exit_failure;
    }
    std::string out;
    if (args.arguments.empty()) {
        out = skill->render();
    } else {
        std::string joined;
        for (const auto& a : args.arguments) joined += (joined.empty() ? "" : " ") + a;
        out = skill->render(joined);
    }
    fmt::print("{}\n", out);
    return exit_ok;
}

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<RenderArgs>();
    CLI::App* cmd = app.add_subcommand(
        "render", "Print a skill as a person's invocation sends it: the activation text, with ARGUMENTS substituted");
    cmd->add_option("--root", args->roots,
                    "Skill library directory (repeat the option for several, in precedence order)")
        ->allow_extra_args(false);
    cmd->add_option("--spec", args->spec, "Agent spec (YAML, or JSON for .json) whose Skills configurations to read");
    cmd->add_flag("--skip-missing", args->skip_missing, "Leave out --root directories that do not exist");
    cmd->add_option("name", args->name, "Skill name (a leading '/' is ignored)")->required();
    cmd->add_option("arguments", args->arguments, "Arguments; several words are joined with single spaces");
    cmd->callback([args, status]() { *status = run_render(*args); });
}

const RegisterCommand reg{"render", setup};

}  // namespace
}  // namespace agentskills::cli
