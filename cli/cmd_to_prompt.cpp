// agentskills to-prompt — the <available_skills> catalog of libraries or skill directories.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/core.h>

#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/diagnostics.hpp>

#include "command.hpp"
#include "conventions.hpp"
#include "keep_until_exit.hpp"
#include "messages.hpp"
#include "reference_commands.hpp"
#include "shim_support.hpp"
#include "skill_file.hpp"

namespace agentskills::cli {
namespace {
namespace fs = std::filesystem;

struct ToPromptArgs {
    SourceArgs sources;
    std::vector<std::string> skill_dirs;
    std::string profile = "standard";
};

int run(const ToPromptArgs& args) {
    int status = exit_ok;
    // Pointers into the catalog (no copies of its manifests) and into `singles`, which is sized
    // up front so that its elements do not move.
    std::vector<const SkillManifest*> found;
    if (!args.sources.roots.empty() || args.sources.has_mcp_sources()) {
        SkillCatalogPtr catalog = discover_sources(args.sources, catalog_block_defaults);
        found.reserve(catalog->size() + args.skill_dirs.size());
        for (const auto& m : *catalog) found.push_back(&m);
        keep_until_exit(catalog);
    }
    auto singles = std::make_shared<std::vector<SkillManifest>>();
    singles->reserve(args.skill_dirs.size());
    for (const auto& dir : args.skill_dirs) {
        CheckedSkill checked = check_skill(dir, args.sources.parse_options());
        for (const auto& d : checked.result.diagnostics) {
            if (d.severity == Severity::error || !checked.result.ok()) print_diagnostic(d);
        }
        if (!checked.result.ok()) {
            status = exit_failure;
            continue;
        }
        SkillManifest m = std::move(*checked.result.manifest());
        // The same absolute, resolved paths that the loader gives local skills.
        std::error_code ec;
        fs::path file = fs::canonical(checked.skill_file, ec);
        if (!ec) {
            m.skill_file = file.string();
            m.root = file.parent_path().string();
        }
        singles->push_back(std::move(m));
        found.push_back(&singles->back());
    }
    std::vector<const SkillManifest*> visible;
    visible.reserve(found.size());
    for (const SkillManifest* m : found) {
        if (m->model_invocable()) visible.push_back(m);
    }
    // Written in pieces: a 10,000-skill block is megabytes that need not be held at once.
    write_available_skills(visible, [](std::string_view piece) { std::fwrite(piece.data(), 1, piece.size(), stdout); });
    std::fputc('\n', stdout);
    keep_until_exit(std::move(singles));
    return status;
}

}  // namespace
void setup_to_prompt(CLI::App& app, int* status) {
    auto args = std::make_shared<ToPromptArgs>();
    auto* cmd = app.add_subcommand(
        "to-prompt", "Print the <available_skills> catalog of the skills found (model-invocable ones only)");
    add_source_options(*cmd, args->sources);
    cmd->add_option("skill_dir", args->skill_dirs, "A single skill directory (repeatable)");
    cmd->add_option("--profile", args->profile, "standard, or reference (print what skills-ref 0.1 prints)")
        ->check(CLI::IsMember({"standard", "reference"}))
        ->capture_default_str();
    cmd->callback([args, status, cmd] {
        const bool has_sources = !args->sources.roots.empty() || args->sources.has_mcp_sources();
        if (!has_sources && args->skill_dirs.empty()) {
            *status = usage_error(*cmd, "give --root DIR, --mcp-command, --mcp-url or SKILL_DIR");
            return;
        }
        if (args->profile == "reference") {
            if (has_sources) throw UsageError("--profile reference takes SKILL_DIR arguments only");
            *status = reference::to_prompt_command(args->skill_dirs);
            return;
        }
        *status = run(*args);
    });
}

}  // namespace agentskills::cli
