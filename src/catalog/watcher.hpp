// agentskills-cpp — private: a directory watcher over Linux inotify, for LiveCatalog.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agentskills/base/diagnostics.hpp"

namespace agentskills::detail {

/// Watches library roots, their child directories (for SKILL.md) and, for a root that is not a
/// directory yet, its nearest existing parent. Once no relevant event came for `throttle` (at the
/// latest 8 throttles after a burst's first event), it re-arms its watches (new skill
/// directories, a root that appeared) and calls `on_change` on its own thread. One immediate
/// `on_change` follows the start.
class DirectoryWatcher {
public:
    struct Options {
        std::vector<std::string> roots;  // absolute, lexically normal
        std::chrono::milliseconds throttle{500};
        std::size_t max_directories = 0;
        std::function<void()> on_change;
        std::function<void(const Diagnostic&)> on_diagnostic;
    };

    /// Arms the watches on the calling thread, then starts the thread. Throws IoError.
    explicit DirectoryWatcher(Options options);
    /// Stops the thread and joins it. On the thread itself (its on_change ended the owner) it
    /// detaches instead: the thread owns its state and ends once on_change returns, calling
    /// neither callback again.
    ~DirectoryWatcher();
    DirectoryWatcher(const DirectoryWatcher&) = delete;
    DirectoryWatcher& operator=(const DirectoryWatcher&) = delete;

    [[nodiscard]] std::thread::id thread_id() const noexcept;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;  // shared with the thread, which may outlive this object
};

}  // namespace agentskills::detail
