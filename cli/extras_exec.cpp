// agentskills CLI — `agentskills` runs `agentskills-extras` when a command line needs an
// optional component (extras.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "agentskills/base/errors.hpp"
#include "extras.hpp"
#include "messages.hpp"

#ifndef AGENTSKILLS_EXTRAS_RELATIVE_DIR
#define AGENTSKILLS_EXTRAS_RELATIVE_DIR "../libexec/agentskills"
#endif

namespace agentskills::cli {
namespace {

std::vector<char*>& program_arguments() {
    static std::vector<char*> arguments;
    return arguments;
}

// The directory of the running program ("" when /proc/self/exe cannot be read).
std::string program_directory() {
    std::vector<char> buffer(4096);
    const ssize_t n = ::readlink("/proc/self/exe", buffer.data(), buffer.size());
    if (n <= 0 || static_cast<std::size_t>(n) >= buffer.size()) return {};
    std::string path(buffer.data(), static_cast<std::size_t>(n));
    const std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash == 0 ? 1 : slash);
}

// The extras serve, index and hash whole libraries (the MCP server keeps file bytes in memory):
// their heap grows by tens of megabytes, one page fault per 4 KiB page, and a page fault is
// costly on virtual machines. glibc's allocator can back its heap with transparent huge pages
// (tunable glibc.malloc.hugetlb=1, glibc 2.35 and later; older ones ignore it). A tunable is read
// when a program starts, so the launcher sets it for the program it runs, unless the user set
// GLIBC_TUNABLES; main() removes it again, so that what the extras start does not inherit it.
void ask_for_huge_pages() {
    if (std::getenv("GLIBC_TUNABLES") != nullptr) return;
    (void)::setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 0);
    (void)::setenv(launcher_tunables_marker, "1", 1);
}

// Entries of the directories `roots` names, counted up to `limit` (a root that is not a
// directory we can open, a git: ref or an archive, counts nothing). A directory's link count is
// 2 plus its subdirectories on ext4, XFS and tmpfs (1 on file systems that do not count, such as
// btrfs): a lower bound of its entries that one fstat gives, enough for a library of skill
// folders, which is then not read. Only the restart's choice depends on this count.
std::size_t count_entries(const std::vector<std::string>& roots, std::size_t limit) {
    std::size_t n = 0;
    for (const std::string& root : roots) {
        const int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0) continue;
        struct stat st {};
        if (::fstat(fd, &st) == 0 && st.st_nlink > 2 && st.st_nlink - 2 >= limit - n) {
            ::close(fd);
            return limit;
        }
        DIR* dir = ::fdopendir(fd);
        if (dir == nullptr) {
            ::close(fd);
            continue;
        }
        while (n < limit && ::readdir(dir) != nullptr) ++n;
        ::closedir(dir);
        if (n >= limit) break;
    }
    return n;
}

// Whether the kernel gives huge pages to memory that asks for them, and to that memory only.
bool huge_pages_on_request() {
    std::FILE* f = std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "re");
    if (f == nullptr) return false;
    char line[128] = {};
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    return read && std::strstr(line, "[madvise]") != nullptr;
}

}  // namespace

void restart_for_large_library(const std::vector<std::string>& roots) {
    if (started_with_launcher_tunables() || std::getenv("GLIBC_TUNABLES") != nullptr) return;
    std::vector<char*>& argv = program_arguments();
    if (argv.empty() || printed_anything()) return;
    if (count_entries(roots, huge_pages_min_entries) < huge_pages_min_entries) return;
    // Output waiting in a buffer would be lost by the restart (and printed again if flushed).
    if (__fpending(stdout) != 0 || __fpending(stderr) != 0) return;
    if (!huge_pages_on_request()) return;
    ask_for_huge_pages();
    ::execv("/proc/self/exe", argv.data());  // returns only when it failed: go on as we are
    forget_launcher_tunables();
    started_with_launcher_tunables() = true;  // no second try
}

void keep_program_arguments(int argc, char** argv) { program_arguments().assign(argv, argv + argc + 1); }

const Extras& extras(std::string_view needed_for) {
    const std::string dir = program_directory();
    if (dir.empty()) {
        throw ConfigurationError(
            fmt::format("{} needs the program {}, and this program cannot tell where it is "
                        "(/proc/self/exe)",
                        needed_for, extras_program_name));
    }
    const std::vector<std::string> candidates = {
        fmt::format("{}/{}", dir, extras_program_name),
        fmt::format("{}/{}/{}", dir, AGENTSKILLS_EXTRAS_RELATIVE_DIR, extras_program_name)};
    std::vector<std::string> problems;
    std::vector<char*>& argv = program_arguments();
    for (const std::string& path : candidates) {
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
    throw ConfigurationError(fmt::format("{} needs the program {}, which could not be run: {}", needed_for,
                                         extras_program_name, fmt::join(problems, "; ")));
}

}  // namespace agentskills::cli
