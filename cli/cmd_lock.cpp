// agentskills lock --root DIR... [--output FILE] — print a lock file (agentskills-lock.json) of the skills found:
// per skill its name, source root and the sha256 of every file (docs/loading.md, "Lock files").
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <agentskills/base/errors.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/catalog/loader.hpp>

#include "command.hpp"
#include "extras.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct LockArgs {
    SourceArgs sources;
    std::string output;  ///< --output FILE ("" = stdout)
};

int run(const LockArgs& args) {
    FilesystemLoaderOptions options = filesystem_options(args.sources, {}, args.sources.roots);
    const Extras& e = extras("the lock command", Component::lock);
    if (e.print_lock == nullptr) throw ConfigurationError("this agentskills was built without agentskills::lock");
    return e.print_lock(args.sources.roots, std::move(options), args.output);
}

}  // namespace
void setup_lock(CLI::App& app, int* status) {
    auto args = std::make_shared<LockArgs>();
    auto* cmd = app.add_subcommand(
        "lock", "Print a lock file (JSON) of the skills of the roots: name, source and the sha256 of every file");
    add_source_options(*cmd, args->sources, {.roots_required = true, .mcp = false, .lock = false});
    cmd->add_option("--output", args->output,
                    "Write the lock to FILE (agentskills-lock.json) instead of stdout; a file that is not an "
                    "agentskills lock (the skills CLI's skills-lock.json) is never overwritten")
        ->option_text("FILE")
        ->allow_extra_args(false);
    cmd->callback([args, status] { *status = run(*args); });
}

}  // namespace agentskills::cli
