// discover_twice LIB [THREADS]: times a first and a second FilesystemSkillLoader::discover() of
// one library in one process (the second reuses the stat-checked cache), and prints both.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <sys/resource.h>

#include <agentskills/catalog/loader.hpp>

namespace {

// CPU time (user + system, every thread) of the process so far, in ms.
double cpu_ms() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto ms = [](const timeval& tv) {
        return static_cast<double>(tv.tv_sec) * 1e3 + static_cast<double>(tv.tv_usec) / 1e3;
    };
    return ms(usage.ru_utime) + ms(usage.ru_stime);
}

}  // namespace

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

    const double c0 = cpu_ms();
    auto t0 = clock::now();
    const auto first = loader.discover();
    auto t1 = clock::now();
    const double first_cpu = cpu_ms() - c0;
    double best_second = 1e300;
    double best_second_cpu = 1e300;
    double plain_second = 0;  // the call right after the first, not the best of several
    std::size_t second_count = 0;
    for (int i = 0; i < repeat; ++i) {
        const double c1 = cpu_ms();
        auto s0 = clock::now();
        const auto second = loader.discover();
        auto s1 = clock::now();
        best_second_cpu = std::min(best_second_cpu, cpu_ms() - c1);
        best_second = std::min(best_second, ms(s1 - s0));
        if (i == 0) plain_second = ms(s1 - s0);
        second_count = second.skills.size();
    }
    // What copying the manifests alone costs (a Discovery is returned by value).
    const double k0 = cpu_ms();
    auto k1 = clock::now();
    const std::vector<agentskills::SkillManifest> copy = first.skills;
    auto k2 = clock::now();
    const double copy_cpu = cpu_ms() - k0;
    const double first_ms = ms(t1 - t0);
    std::printf(
        "skills %zu skipped %zu\n"
        "first  %8.2f ms wall %8.2f ms cpu\n"
        "second %8.2f ms wall %8.2f ms cpu (%zu skills, best of %d)\n"
        "ratio  %7.1f%% wall %7.1f%% cpu\n"
        "plain  %8.2f ms wall (the second call alone), ratio %.1f%%\n",
        first.skills.size(), first.skipped.size(), first_ms, first_cpu, best_second, best_second_cpu, second_count,
        repeat, 100.0 * best_second / first_ms, 100.0 * best_second_cpu / first_cpu, plain_second,
        100.0 * plain_second / first_ms);
    std::printf("copy of the %zu manifests alone: %.2f ms wall %.2f ms cpu\n", copy.size(), ms(k2 - k1), copy_cpu);
    return 0;
}
