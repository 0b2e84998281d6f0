// agentskills CLI — running a helper program in place of this one (extras.hpp): `agentskills`
// runs `agentskills-extras` or `agentskills-extras-full`, and `agentskills-extras` runs
// `agentskills-extras-full`, with the same arguments.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "agentskills/base/errors.hpp"
#include "extras.hpp"

#ifndef AGENTSKILLS_EXTRAS_RELATIVE_DIR
#define AGENTSKILLS_EXTRAS_RELATIVE_DIR "../libexec/agentskills"
#endif

namespace agentskills::cli {

std::vector<char*>& program_arguments() {
    static std::vector<char*> arguments;
    return arguments;
}

void keep_program_arguments(int argc, char** argv) { program_arguments().assign(argv, argv + argc + 1); }

// The extras serve, index and hash whole libraries (the MCP server keeps file bytes in memory):
// their heap grows by tens of megabytes, one page fault per 4 KiB page, and a page fault is
// costly on virtual machines. glibc's allocator can back its heap with transparent huge pages
// (tunable glibc.malloc.hugetlb=1, glibc 2.35 and later; older ones ignore it). A tunable is read
// when a program starts, so the program that runs a helper sets it for the helper, unless the
// user set GLIBC_TUNABLES; main() removes it again, so that what the helper starts does not
// inherit it.
void ask_for_huge_pages() {
    if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
    (void)::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 0);
    (void)::setenv(launcher_tunables_marker, "1", 1);
}

namespace {

// The directory of the running program ("" when /proc/self/exe cannot be read).
std::string program_directory() {
    std::vector<char> buffer(4096);
    const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size());
    if (n <= 0 || static_cast<std::size_t>(n) >= buffer.size()) return {};
    std::string path(buffer.data(), static_cast<std::size_t>(n));
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash == 0 ? 1 : slash);
}

}  // namespace

void run_helper(std::string_view needed_for, const std::vector<std::string_view>& programs) {
    const std::string_view first = programs.empty() ? extras_program_name : programs.front();
    const std::string dir = program_directory();
    if (dir.empty()) {
        throw ConfigurationError(
            fmt::format("{} needs the program {}, and this program cannot tell where it is "
                        "(/proc/self/exe)",
                        needed_for, first));
    }
    std::vector<std::string> problems;
    std::vector<char*>& argv = program_arguments();
    for (const std::string_view program : programs) {
        for (const std::string& path : {fmt::format("{}/{}", dir, program),
                                        fmt::format("{}/{}/{}", dir, AGENTSKILLS_EXTRAS_RELATIVE_DIR, program)}) {
            if (::access(path.c_str(), X_OK) != 0) {
                problems.push_back(fmt::format("{} (not found)", path));
                continue;
            }
            if (!argv.empty()) {
                ask_for_huge_pages();
                ::execv(path.c_str(), argv.data());  // returns only when it failed
            }
            problems.push_back(fmt::format("{} ({})", path, argv.empty() ? "no arguments kept" : std::strerror(errno)));
        }
    }
    throw ConfigurationError(fmt::format("{} needs the program {}, which could not be run: {}", needed_for, first,
                                         fmt::join(problems, "; ")));
}

}  // namespace agentskills::cli
