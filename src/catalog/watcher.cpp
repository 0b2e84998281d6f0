// agentskills-cpp — the directory watcher of LiveCatalog (Linux inotify; no other dependency).
//
// One thread owns the inotify descriptor. It sleeps in poll() on that descriptor and on an
// eventfd that stop() writes. Relevant events are coalesced: once no relevant event came for
// `throttle` (or at the latest 8 throttles after the first event of a burst, so that endless
// edits still refresh), the watches are re-armed (the set of directories is computed again: new
// skill directories, a root that appeared, one that vanished) and on_change runs, once per burst.
#include "watcher.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "../storage/local_fs.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"

namespace agentskills::detail {

namespace {

constexpr std::uint32_t watch_mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_CLOSE_WRITE |
                                     IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR;
constexpr std::uint32_t self_events = IN_DELETE_SELF | IN_MOVE_SELF;

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_symlink(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
}

// What one watched directory is to the watcher.
struct WatchInfo {
    enum class Kind { root, child, ancestor } kind = Kind::root;
    std::string next;  // ancestor: the name towards the root (the root's own, a link's, a missing one's)
};

// Whether an event on a directory of this kind can change the catalog.
bool relevant(const WatchInfo& w, std::uint32_t mask, std::string_view name) {
    if ((mask & self_events) != 0) return true;
    switch (w.kind) {
        case WatchInfo::Kind::root:
            return !name.empty();
        case WatchInfo::Kind::child:
            return name == "SKILL.md";
        case WatchInfo::Kind::ancestor:
            return name == w.next;
    }
    return false;
}

}  // namespace

struct DirectoryWatcher::Impl {
    Options options;
    int inotify_fd = -1;
    int stop_fd = -1;
    std::unordered_map<int, std::vector<WatchInfo>> watches;  // wd -> what it is (one inode, several paths)
    bool incomplete = false;
    std::thread thread;
    std::atomic<bool> stopped{false};  // set by the destructor: no callback after it

    explicit Impl(Options o) : options(std::move(o)) {}
    ~Impl() {
        if (inotify_fd >= 0) ::close(inotify_fd);
        if (stop_fd >= 0) ::close(stop_fd);
    }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    void report(Diagnostic d) const {
        if (!options.on_diagnostic || stopped.load()) return;
        try {
            options.on_diagnostic(d);
        } catch (...) {  // a failing observer must not stop the watcher
        }
    }

    // The directories to watch, roots and ancestors first, then the roots' children.
    [[nodiscard]] std::vector<std::pair<std::string, WatchInfo>> desired() const {
        std::vector<std::pair<std::string, WatchInfo>> first;
        std::vector<std::pair<std::string, WatchInfo>> children;
        for (const std::string& root : options.roots) {
            const bool exists = is_directory(root);
            if (exists) {
                first.push_back({root, WatchInfo{WatchInfo::Kind::root, {}}});
                // The children that are directories, symlinks to one included (the one local
                // listing, local_fs.hpp); a listing that fails part way keeps what it found.
                std::string names;
                std::vector<local::ListedEntry> items;
                (void)local::list_directory(root, {.follow_symlinks = true, .stats = false}, names, items);
                for (const local::ListedEntry& item : items) {
                    if (item.kind != EntryKind::directory) continue;
                    const std::string_view name = std::string_view(names).substr(item.offset, item.size);
                    std::string path = root == "/" ? "/" + std::string(name) : root + "/" + std::string(name);
                    children.push_back({std::move(path), WatchInfo{WatchInfo::Kind::child, {}}});
                }
            }
            // What the root path names can change without an event on what it named when armed
            // (a root renamed, removed or made a link, a link retargeted: `ln -sfn`): the nearest
            // existing parent is watched for the root's name (for a missing root, the next
            // component towards it), and above it the parent of each component that is a
            // symbolic link, for that link's name.
            std::filesystem::path p(root);
            if (!p.has_filename()) continue;  // "/"
            std::string next = p.filename().string();
            bool wanted = true;
            for (p = p.parent_path(); !p.empty(); p = p.parent_path()) {
                if (wanted && is_directory(p.string())) {
                    first.push_back({p.string(), WatchInfo{WatchInfo::Kind::ancestor, next}});
                    wanted = false;
                }
                if (p == p.root_path()) break;
                wanted = wanted || is_symlink(p.string());
                next = p.filename().string();
            }
        }
        first.insert(first.end(), std::make_move_iterator(children.begin()), std::make_move_iterator(children.end()));
        return first;
    }

    // Computes the directories again and brings the watches in line with them.
    void arm() {
        std::vector<std::pair<std::string, WatchInfo>> want = desired();
        std::unordered_map<int, std::vector<WatchInfo>> now;
        std::size_t skipped = 0;
        std::string failure;
        const std::size_t cap = options.max_directories;
        for (auto& [path, info] : want) {
            if (cap != 0 && now.size() >= cap) {
                ++skipped;
                continue;
            }
            const int wd = ::inotify_add_watch(inotify_fd, path.c_str(), watch_mask);
            if (wd < 0) {
                if (errno == ENOSPC || errno == ENOMEM) {
                    ++skipped;
                    if (failure.empty()) failure = std::strerror(errno);
                }
                continue;  // ENOENT, ENOTDIR, EACCES: gone or unreadable; the parent's events tell
            }
            now[wd].push_back(std::move(info));
        }
        for (const auto& [wd, infos] : watches) {
            if (now.count(wd) == 0) (void)::inotify_rm_watch(inotify_fd, wd);
        }
        watches = std::move(now);
        const bool was_incomplete = incomplete;
        incomplete = skipped != 0;
        if (incomplete && !was_incomplete) {
            report(Diagnostic{
                .code = std::string(codes::watch_incomplete),
                .severity = Severity::warning,
                .path = {},
                .line = 0,
                .message = fmt::format(
                    "the skills watcher could not watch {} of {} directories ({}); changes there are seen only "
                    "at the next refresh",
                    skipped, want.size(),
                    failure.empty() ? fmt::format("more than its limit of {}", cap)
                                    : "the system's limit: " + failure)});
        }
    }

    // Reads what is queued; true when an event can change the catalog.
    bool drain() {
        alignas(inotify_event) std::array<char, 16 * 1024> buffer{};
        bool any = false;
        while (true) {
            const ssize_t n = ::read(inotify_fd, buffer.data(), buffer.size());
            if (n <= 0) break;  // EAGAIN: empty
            std::size_t offset = 0;
            while (offset + sizeof(inotify_event) <= static_cast<std::size_t>(n)) {
                inotify_event ev{};
                std::memcpy(&ev, buffer.data() + offset, sizeof ev);
                const std::size_t name_at = offset + sizeof(inotify_event);
                std::string_view name;
                if (ev.len > 0 && name_at + ev.len <= static_cast<std::size_t>(n)) {
                    name = std::string_view(buffer.data() + name_at, ::strnlen(buffer.data() + name_at, ev.len));
                }
                offset = name_at + ev.len;
                if ((ev.mask & IN_Q_OVERFLOW) != 0) {
                    any = true;
                    continue;
                }
                auto it = watches.find(ev.wd);
                if (it == watches.end()) continue;  // a watch that was removed
                for (const WatchInfo& w : it->second) {
                    if (relevant(w, ev.mask, name)) any = true;
                }
            }
        }
        return any;
    }

    void fire() {
        arm();
        if (!options.on_change || stopped.load()) return;
        try {
            options.on_change();
        } catch (const std::exception& e) {
            report(Diagnostic{.code = std::string(codes::refresh_failed),
                              .severity = Severity::error,
                              .path = {},
                              .line = 0,
                              .message = fmt::format("refreshing the skills catalog failed: {}", e.what())});
        } catch (...) {
            report(Diagnostic{.code = std::string(codes::refresh_failed),
                              .severity = Severity::error,
                              .path = {},
                              .line = 0,
                              .message = "refreshing the skills catalog failed"});
        }
    }

    void run() {
        using clock = std::chrono::steady_clock;
        // One refresh for whatever changed between the catalog's last discovery and arming. It is
        // a burst like any other: it waits for `throttle` of quiet, so that edits made right after
        // arming (a file being written) join it instead of being read half-written.
        bool pending = true;
        clock::time_point first = clock::now();  // the first event of the current burst
        clock::time_point deadline = first + options.throttle;
        while (true) {
            int timeout = -1;
            if (pending) {
                const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now()).count();
                timeout = left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 60'000));
            }
            std::array<pollfd, 2> fds{pollfd{inotify_fd, POLLIN, 0}, pollfd{stop_fd, POLLIN, 0}};
            const int r = ::poll(fds.data(), fds.size(), timeout);
            if (r < 0 && errno != EINTR) break;
            if (r > 0 && (fds[1].revents & POLLIN) != 0) break;
            if (r > 0 && (fds[0].revents & POLLIN) != 0 && drain()) {
                // Quiet for `throttle`, or at the latest 8 throttles after the burst began.
                const clock::time_point now = clock::now();
                if (!pending) first = now;
                pending = true;
                deadline = std::min(now + options.throttle, first + 8 * options.throttle);
            }
            if (pending && clock::now() >= deadline) {
                pending = false;
                fire();
            }
        }
    }
};

DirectoryWatcher::DirectoryWatcher(Options options) : impl_(std::make_shared<Impl>(std::move(options))) {
    impl_->inotify_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (impl_->inotify_fd < 0) {
        throw IoError(fmt::format("cannot start the skills watcher: inotify: {}", std::strerror(errno)));
    }
    impl_->stop_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (impl_->stop_fd < 0) {
        throw IoError(fmt::format("cannot start the skills watcher: eventfd: {}", std::strerror(errno)));
    }
    impl_->arm();
    impl_->thread = std::thread([impl = impl_] { impl->run(); });
}

DirectoryWatcher::~DirectoryWatcher() {
    impl_->stopped.store(true);
    const std::uint64_t one = 1;
    (void)!::write(impl_->stop_fd, &one, sizeof one);
    if (!impl_->thread.joinable()) return;
    // On the watcher's own thread (its on_change dropped the last reference to the owner) a join
    // would wait for itself (std::terminate): the thread keeps its state alive and ends once the
    // running on_change returns.
    if (impl_->thread.get_id() == std::this_thread::get_id()) {
        impl_->thread.detach();
    } else {
        impl_->thread.join();
    }
}

std::thread::id DirectoryWatcher::thread_id() const noexcept { return impl_->thread.get_id(); }

}  // namespace agentskills::detail
