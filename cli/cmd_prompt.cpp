// agentskills prompt — the system-prompt block exactly as the shim appends it (render_skills_prompt).
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/activation/activation.hpp>
#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/text.hpp>

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
    SkillCatalogPtr catalog = discover_sources(args.sources, catalog_block_defaults);
    check_tool_name(args.tool_name, "SkillsShim: tool name");
    SkillsPromptOptions options;
    options.tool_name = args.tool_name;
    options.budget.limit = args.budget;
    const SkillsPrompt prompt = render_skills_prompt(catalog->skills(), options);
    if (!prompt.text.empty()) fmt::print("{}\n", prompt.text);
    if (args.show_omitted) {
        for (const auto& name : prompt.omitted) fmt::print(stderr, "omitted: {}\n", terminal_text(name));
    }
    return exit_ok;
}

}  // namespace
void setup_prompt(CLI::App& app, int* status) {
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

}  // namespace agentskills::cli
