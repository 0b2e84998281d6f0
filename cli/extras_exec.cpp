// agentskills CLI — `agentskills` runs `agentskills-extras` or `agentskills-extras-full` when a
// command line needs an optional component (extras.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "extras.hpp"
#include "messages.hpp"

namespace agentskills::cli {
namespace {

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

const Extras& extras(std::string_view needed_for, Component needed) {
    (void)needed;
    std::vector<std::string_view> programs;
#if defined(AGENTSKILLS_COMMON_HELPER)
    if (!in_full_helper_only(needed)) programs.push_back(extras_program_name);
#endif
#if defined(AGENTSKILLS_FULL_HELPER)
    programs.push_back(full_extras_program_name);
#endif
    if (programs.empty()) programs.push_back(extras_program_name);  // a build without components
    run_helper(needed_for, programs);
}

}  // namespace agentskills::cli
