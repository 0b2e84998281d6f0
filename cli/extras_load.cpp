// agentskills CLI — opening the optional components' module (extras.hpp).
#include <dlfcn.h>
#include <unistd.h>

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "agentskills/errors.hpp"
#include "agentskills/version.hpp"
#include "extras.hpp"

#ifndef AGENTSKILLS_EXTRAS_RELATIVE_DIR
#define AGENTSKILLS_EXTRAS_RELATIVE_DIR "../lib/agentskills"
#endif

namespace agentskills::cli {
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

struct Loaded {
    const Extras* extras = nullptr;
    std::string problem;  // why it is not loaded
};

Loaded open_module() {
    const std::string dir = program_directory();
    if (dir.empty()) return {nullptr, "cannot tell where the program is (/proc/self/exe)"};
    const std::vector<std::string> candidates = {
        fmt::format("{}/{}", dir, extras_file_name),
        fmt::format("{}/{}/{}", dir, AGENTSKILLS_EXTRAS_RELATIVE_DIR, extras_file_name)};
    std::vector<std::string> tried;
    for (const std::string& path : candidates) {
        if (::access(path.c_str(), F_OK) != 0) {
            tried.push_back(path);
            continue;
        }
        // Never closed: what it makes (loaders, hooks) lives until the program exits.
        void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = ::dlerror();
            return {nullptr, fmt::format("{}: {}", path, why != nullptr ? why : "dlopen failed")};
        }
        using Entry = const Extras* (*)();
        void* symbol = ::dlsym(handle, extras_entry_point);
        if (symbol == nullptr) return {nullptr, fmt::format("{}: no {}", path, extras_entry_point)};
        Entry entry = nullptr;
        static_assert(sizeof(entry) == sizeof(symbol));
        std::memcpy(&entry, &symbol, sizeof(entry));  // POSIX: a function's address from dlsym
        const Extras* e = entry();
        if (e == nullptr || e->size != sizeof(Extras) || e->version == nullptr ||
            std::strcmp(e->version, version_string) != 0) {
            return {nullptr, fmt::format("{}: built for another agentskills (module {}, program {})", path,
                                         e != nullptr && e->version != nullptr ? e->version : "?", version_string)};
        }
        return {e, {}};
    }
    return {nullptr, fmt::format("not found (looked for {})", fmt::join(tried, " and "))};
}

}  // namespace

const Extras& extras(std::string_view needed_for) {
    static std::once_flag once;
    static Loaded loaded;
    std::call_once(once, [] { loaded = open_module(); });
    if (loaded.extras == nullptr) {
        throw ConfigurationError(fmt::format("{} needs the module {}, which this program could not open: {}",
                                             needed_for, extras_file_name, loaded.problem));
    }
    return *loaded.extras;
}

}  // namespace agentskills::cli
