// agentskills prompt — the system-prompt block exactly as SkillsShim appends it.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/skills_shim.hpp>
#include <agentskills/text.hpp>

#include "command.hpp"
#include "numbers.hpp"
#include "shim_support.hpp"

namespace agentskills::cli {
namespace {

struct PromptArgs {
    SourceArgs sources;
    std::string tool_name = std::string(DEFAULT_SKILLS_TOOL_NAME);
    std::size_t budget = 0;
    bool show_omitted = false;
};

int run(const PromptArgs& args) {
    SkillCatalogPtr catalog = discover_sources(args.sources, "prompt", catalog_block_defaults);
    SkillsShim shim({.catalog = catalog, .tool_name = args.tool_name, .budget = {.limit = args.budget}});
    SkillsPrompt prompt = shim.render_prompt(*catalog);
    if (!prompt.text.empty()) fmt::print("{}\n", prompt.text);
    if (args.show_omitted) {
        for (const auto& name : prompt.omitted) fmt::print(stderr, "omitted: {}\n", terminal_text(name));
    }
    return exit_ok;
}

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<PromptArgs>();
    auto* cmd = app.add_subcommand(
        "prompt",
        "Print the skills block that SkillsShim appends to the system instruction (nothing when no skill "
        "is model-invocable)");
    add_source_options(*cmd, args->sources, {.roots_required = true});
    cmd->add_option("--tool-name", args->tool_name, "Name of the activation tool")->capture_default_str();
    cmd->add_option("--budget", args->budget, "Largest block size in characters (0 = no budget)")
        ->check(count_value())
        ->capture_default_str();
    cmd->add_flag("--show-omitted", args->show_omitted, "List the skills the budget left out on stderr");
    cmd->callback([args, status] { *status = run(*args); });
}

const RegisterCommand registration{"prompt", setup};

}  // namespace
}  // namespace agentskills::cli
