// lock_read [SKILLS...] [--repeat N]: times parse_skill_lock over lock texts of 25,000, 50,000 and
// 100,000 skills (or the counts given), one file each, and prints one line per count: the skills,
// the text's bytes, the best wall time of N reads (default 3) and its time per skill.
//
// The text has no indentation: 100,000 skills of the indented form would pass
// SKILL_LOCK_MAX_BYTES (16 MiB).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <agentskills/lock/lock.hpp>

namespace {

std::string lock_text(std::size_t skills) {
    const std::string digest = agentskills::sha256_digest("---\nname: x\ndescription: y\n---\n");
    std::string text = R"({"skills":[)";
    text.reserve(skills * 140 + 32);
    for (std::size_t i = 0; i < skills; ++i) {
        if (i > 0) text += ',';
        text += R"({"files":{"SKILL.md":")" + digest + R"("},"name":"skill-)" + std::to_string(i) +
                R"(","source":"/srv/skills"})";
    }
    text += R"(],"version":1})";
    return text;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::size_t> counts;
    int repeat = 3;
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        if (arg == "--repeat" && i + 1 < argc) {
            repeat = std::max(1, std::atoi(argv[++i]));
        } else {
            counts.push_back(static_cast<std::size_t>(std::strtoul(argv[i], nullptr, 10)));
        }
    }
    if (counts.empty()) counts = {25'000, 50'000, 100'000};
    using clock = std::chrono::steady_clock;
    for (const std::size_t n : counts) {
        const std::string text = lock_text(n);
        double best = 1e300;
        std::size_t read = 0;
        for (int r = 0; r < repeat; ++r) {
            const auto t0 = clock::now();
            const agentskills::SkillLock lock = agentskills::parse_skill_lock(text);
            const auto t1 = clock::now();
            read = lock.skills.size();
            best = std::min(best, std::chrono::duration<double, std::milli>(t1 - t0).count());
        }
        if (read != n) {
            std::fprintf(stderr, "lock_read: read %zu skills of %zu\n", read, n);
            return 1;
        }
        std::printf("%7zu skills  %9zu bytes  %9.1f ms  %6.2f us/skill\n", n, text.size(), best,
                    best * 1000.0 / static_cast<double>(n));
    }
    return 0;
}
