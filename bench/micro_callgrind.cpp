// micro_callgrind WHAT N: runs one of the shim micro-benchmarks' operations N times with no
// timer, for instruction counts under `valgrind --tool=callgrind` (docs/performance.md,
// "Micro-benchmarks"). The fixture is BM_activate_first's: 1,000 skills of the in-memory library.
//   setup           builds the fixture only (subtract it: N is ignored)
//   activate-setup  N times what BM_activate_first does around the call: a fresh run state and
//                   the tool call (subtract it from the next)
//   activate        the same, with the first activation of a skill in each run state
//   discover-again  N repeated discover() calls of an unchanged in-memory library (1 thread)
// The source uses only API that 059b56e had too, so that it can be built against an older
// library for a side-by-side count.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <fmt/core.h>

#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/harness.hpp>
#include <agentskills/shim/skills_shim.hpp>

#include "bench_data.hpp"

namespace {

struct Fixture {
    std::shared_ptr<agentskills::SkillsShim> shim;
    std::unique_ptr<agentskills::BoundShim> bound;
    agentskills::ToolHandler activate;

    Fixture() {
        agentskills::FilesystemLoaderOptions options;
        options.reader = agentskills::bench::memory_library(1000);
        auto catalog =
            agentskills::discover_skill_catalog(std::make_shared<agentskills::FilesystemSkillLoader>(options));
        agentskills::SkillsShimOptions shim_options;
        shim_options.catalog = catalog;
        shim = std::make_shared<agentskills::SkillsShim>(std::move(shim_options));
        agentskills::AgentDescriptor agent;
        agent.name = "bench";
        bound = shim->bind(agent);
        agentskills::RunState state;
        bound->on_run_start(state);
        agentskills::PreparedTurn turn(state, {});
        bound->prepare_turn(turn);
        for (const auto& tool : turn.all_tools()) {
            if (tool.spec.name == shim->options().tool_name) activate = tool.handler;
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: micro_callgrind setup|activate-setup|activate|discover-again N\n");
        return 2;
    }
    const std::string what = argv[1];
    const long n = std::atol(argv[2]);
    std::size_t total = 0;
    if (what == "discover-again") {
        agentskills::FilesystemLoaderOptions options;
        options.reader = agentskills::bench::memory_library(1000);
        options.threads = 1;
        agentskills::FilesystemSkillLoader loader(options);
        (void)loader.discover();
        for (long i = 0; i < n; ++i) total += loader.discover().skills.size();
    } else if (what == "setup" || what == "activate-setup" || what == "activate") {
        Fixture f;
        if (!f.activate) {
            std::fprintf(stderr, "micro_callgrind: no activation tool\n");
            return 1;
        }
        for (long i = 0; what != "setup" && i < n; ++i) {
            agentskills::RunState run;  // a fresh conversation: nothing active yet
            const agentskills::ToolCall call{
                .id = "call-1",
                .name = "activate_skill",
                .arguments = fmt::format(R"({{"name":"migration-review-{:05}"}})", i % 1000)};
            total += what == "activate" ? f.activate(call, run).size() : call.arguments.size();
        }
    } else {
        std::fprintf(stderr, "micro_callgrind: unknown WHAT '%s'\n", argv[1]);
        return 2;
    }
    std::printf("%zu\n", total);
    return 0;
}
