// micro_callgrind WHAT N: runs one of the shim micro-benchmarks' operations N times with no
// timer, for instruction counts under `valgrind --tool=callgrind` (docs/performance.md,
// "Micro-benchmarks"). The fixture is BM_activate_first's: 1,000 skills of the in-memory library.
//   setup           builds the fixture only (subtract it: N is ignored)
//   activate-setup  N times what BM_activate_first does around the call: a fresh run state and
//                   the tool call (subtract it from the next)
//   activate        the same, with the first activation of a skill in each run state
//   discover-again  N repeated discover() calls of an unchanged in-memory library (1 thread)
//   first-turn      N times BM_first_turn_100_skills's operation (bind with a fresh loader over
//                   100 SKILL.md files on the local file system, written an hour ago, to the
//                   first request); prints on stderr the wall time per turn up to the request
//                   and of the teardown after it, and the user and system CPU time per turn
// The source uses only API that 059b56e had too, so that it can be built against an older
// library for a side-by-side count.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <sys/resource.h>
#include <unistd.h>

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
        std::fprintf(stderr, "usage: micro_callgrind setup|activate-setup|activate|discover-again|first-turn N\n");
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
    } else if (what == "first-turn") {
        namespace fs = std::filesystem;
        const fs::path lib = fs::temp_directory_path() / fmt::format("agentskills-micro-{}-lib-100", ::getpid());
        fs::remove_all(lib);
        for (int i = 0; i < 100; ++i) {
            const std::string name = fmt::format("migration-review-{:05}", i);
            fs::create_directories(lib / name);
            std::ofstream(lib / name / "SKILL.md") << agentskills::bench::sample_skill_md_named(name);
            fs::last_write_time(lib / name / "SKILL.md", fs::file_time_type::clock::now() - std::chrono::hours(1));
        }
        rusage before{};
        ::getrusage(RUSAGE_SELF, &before);
        using clock = std::chrono::steady_clock;
        clock::duration to_request{};  // from the shim's construction to the first request
        clock::duration teardown{};    // the shim's, the loader's and the catalog's end
        for (long i = 0; i < n; ++i) {
            const clock::time_point start = clock::now();
            clock::time_point requested;
            {
                agentskills::SkillsShimOptions options;
                options.loader = std::make_shared<agentskills::FilesystemSkillLoader>(
                    agentskills::FilesystemLoaderOptions{.roots = {lib.string()}, .include_default_roots = false});
                agentskills::SkillsShim shim(std::move(options));
                agentskills::AgentDescriptor agent;
                agent.name = "bench";
                std::unique_ptr<agentskills::BoundShim> bound = shim.bind(agent);
                agentskills::RunState run;
                bound->on_run_start(run);
                agentskills::PreparedTurn turn(run, {});
                bound->prepare_turn(turn);
                total += turn.visible_tool_specs().size() + turn.system_instruction().size();
                requested = clock::now();
            }
            const clock::time_point ended = clock::now();
            to_request += requested - start;
            teardown += ended - requested;
        }
        rusage after{};
        ::getrusage(RUSAGE_SELF, &after);
        const auto us = [](const timeval& a, const timeval& b) {
            return static_cast<double>(b.tv_sec - a.tv_sec) * 1e6 + static_cast<double>(b.tv_usec - a.tv_usec);
        };
        if (n > 0) {
            const auto per_turn_us = [n](clock::duration d) {
                return std::chrono::duration<double, std::micro>(d).count() / static_cast<double>(n);
            };
            std::fprintf(stderr, "wall per turn: to the request %.1f us, teardown %.1f us\n", per_turn_us(to_request),
                         per_turn_us(teardown));
            std::fprintf(stderr, "per turn: user %.1f us, system %.1f us\n",
                         us(before.ru_utime, after.ru_utime) / static_cast<double>(n),
                         us(before.ru_stime, after.ru_stime) / static_cast<double>(n));
        }
        fs::remove_all(lib);
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
