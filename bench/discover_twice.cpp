// discover_twice LIB [THREADS]: times a first and a second FilesystemSkillLoader::discover() of
// one library in one process (the second reuses the stat-checked cache), and prints both.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <agentskills/loader.hpp>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: discover_twice LIB [THREADS] [REPEAT]\n");
        return 2;
    }
    agentskills::FilesystemLoaderOptions options;
    options.roots = {argv[1]};
    options.include_default_roots = false;
    if (argc > 2) options.threads = static_cast<std::size_t>(std::strtoul(argv[2], nullptr, 10));
    const int repeat = argc > 3 ? std::atoi(argv[3]) : 1;
    agentskills::FilesystemSkillLoader loader(options);
    using clock = std::chrono::steady_clock;
    const auto ms = [](clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); };

    auto t0 = clock::now();
    const auto first = loader.discover();
    auto t1 = clock::now();
    double best_second = 1e300;
    std::size_t second_count = 0;
    for (int i = 0; i < repeat; ++i) {
        auto s0 = clock::now();
        const auto second = loader.discover();
        auto s1 = clock::now();
        best_second = std::min(best_second, ms(s1 - s0));
        second_count = second.skills.size();
    }
    const double first_ms = ms(t1 - t0);
    std::printf("skills %zu skipped %zu\nfirst  %.2f ms\nsecond %.2f ms (%zu skills)\nratio  %.1f%%\n",
                first.skills.size(), first.skipped.size(), first_ms, best_second, second_count,
                100.0 * best_second / first_ms);
    return 0;
}
