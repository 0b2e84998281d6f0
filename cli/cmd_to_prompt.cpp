// agentskills to-prompt — the <available_skills> catalog of libraries or skill directories.
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/core.h>

#include <agentskills/diagnostics.hpp>
#include <agentskills/prompt.hpp>

#include "command.hpp"
#include "shim_support.hpp"
#include "skill_file.hpp"

namespace agentskills::cli {
namespace {
namespace fs = std::filesystem;

struct ToPromptArgs {
    std::vector<std::string> roots;
    std::vector<std::string> skill_dirs;
};

int run(const ToPromptArgs& args) {
    int status = exit_ok;
    std::vector<SkillManifest> found;
    if (!args.roots.empty()) {
        SkillCatalogPtr catalog = discover_roots(args.roots, "to-prompt");
        found.insert(found.end(), catalog->begin(), catalog->end());
    }
    for (const auto& dir : args.skill_dirs) {
        CheckedSkill checked = check_skill(dir, ParseOptions{});
        for (const auto& d : checked.result.diagnostics) {
            if (d.severity == Severity::error || !checked.result.ok()) fmt::print(stderr, "{}\n", format_diagnostic(d));
        }
        if (!checked.result.ok()) {
            status = exit_failure;
            continue;
        }
        SkillManifest m = std::move(*checked.result.manifest);
        // The same absolute, resolved paths that the loader gives local skills.
        std::error_code ec;
        fs::path file = fs::canonical(checked.skill_file, ec);
        if (!ec) {
            m.skill_file = file.string();
            m.root = file.parent_path().string();
        }
        found.push_back(std::move(m));
    }
    std::vector<const SkillManifest*> visible;
    for (const auto& m : found) {
        if (m.model_invocable()) visible.push_back(&m);
    }
    fmt::print("{}\n", render_available_skills(visible));
    return status;
}

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<ToPromptArgs>();
    auto* cmd = app.add_subcommand(
        "to-prompt", "Print the <available_skills> catalog of the skills found (model-invocable ones only)");
    cmd->add_option("--root", args->roots, "A skills library (repeatable)")->allow_extra_args(false);
    cmd->add_option("skill_dir", args->skill_dirs, "A single skill directory (repeatable)");
    cmd->callback([args, status, cmd] {
        if (args->roots.empty() && args->skill_dirs.empty()) {
            fmt::print(stderr, "agentskills to-prompt: give --root DIR or SKILL_DIR\n{}", cmd->help());
            *status = exit_usage;
            return;
        }
        *status = run(*args);
    });
}

const RegisterCommand registration{"to-prompt", setup};

}  // namespace
}  // namespace agentskills::cli
