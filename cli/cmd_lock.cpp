// agentskills lock --root DIR... — print a lock file (skills-lock.json) of the skills found:
// per skill its name, source root and the sha256 of every file (docs/loading.md, "Lock files").
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/errors.hpp>
#include <agentskills/loader.hpp>
#include <agentskills/lock.hpp>
#include <agentskills/text.hpp>

#include "command.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct LockArgs {
    SourceArgs sources;
};

// The root as the user wrote it, when it names the library a skill came from; else the library.
std::string source_of(const std::string& library, const std::vector<std::string>& roots) {
    for (const auto& r : roots) {
        std::error_code ec;
        const std::filesystem::path absolute = std::filesystem::absolute(r, ec);
        if (!ec && absolute.lexically_normal().generic_string() == library) return r;
        if (r == library) return r;
    }
    return library;
}

int run(const LockArgs& args) {
    try {
        FilesystemSkillLoader loader(filesystem_options(args.sources, {}, args.sources.roots));
        Discovery d = loader.discover();
        for (const auto& s : d.skipped) {
            fmt::print(stderr, "agentskills lock: skipped ({}): {}\n", to_string(s.reason), terminal_text(s.message));
        }
        SkillLock lock = make_skill_lock(d.skills, *loader.reader());
        for (auto& s : lock.skills) s.source = source_of(s.source, args.sources.roots);
        const std::string text = to_lock_text(lock);
        std::fwrite(text.data(), 1, text.size(), stdout);
        return exit_ok;
    } catch (const ConfigurationError& e) {
        fmt::print(stderr, "agentskills lock: {}\n", terminal_text(e.what()));
        return exit_usage;
    } catch (const Error& e) {
        fmt::print(stderr, "agentskills lock: {}\n", terminal_text(e.what()));
        return exit_failure;
    }
}

void setup(CLI::App& app, int* status) {
    auto args = std::make_shared<LockArgs>();
    auto* cmd = app.add_subcommand(
        "lock", "Print a lock file (JSON) of the skills of the roots: name, source and the sha256 of every file");
    add_source_options(*cmd, args->sources,
                       {.roots_required = true,
                        .mcp = false,
                        .selection = true,
                        .policies = true,
                        .limits = true,
                        .governance = true,
                        .lock = false});
    cmd->callback([args, status] { *status = run(*args); });
}

const RegisterCommand registration{"lock", setup};

}  // namespace
}  // namespace agentskills::cli
