// agentskills-cpp — LiveCatalog: a catalog that is refreshed, as a sequence of immutable
// generations, on demand or by a file-system watcher (Linux inotify). See docs/loading.md,
// "Reloading and watching".
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../base/diagnostics.hpp"
#include "catalog.hpp"
#include "loader.hpp"

namespace agentskills {

/// One immutable state of a LiveCatalog. `number` starts at 1 and grows by one per published
/// change; a generation is never modified, so a run can keep it as long as it likes.
struct CatalogGeneration {
    std::uint64_t number = 0;
    SkillCatalogPtr catalog;
};

using CatalogGenerationPtr = std::shared_ptr<const CatalogGeneration>;

/// What one refresh changed, between generation `previous` and generation `generation`.
struct CatalogChangeSet {
    std::uint64_t generation = 0;  ///< the generation this change published
    std::uint64_t previous = 0;    ///< the generation it replaced
    /// Catalog names: `added` and `changed` in the new catalog's order, `removed` in the old one's.
    std::vector<std::string> added;
    std::vector<std::string> changed;
    std::vector<std::string> removed;
    /// The new discovery's diagnostics whose path is a changed file (in discovery order): the
    /// SKILL.md of an added, changed or removed skill, or a path whose skipped entry or
    /// diagnostics differ from the previous generation's (a file that broke, or was fixed).
    Diagnostics diagnostics;
    /// Those changed paths, sorted (byte order); "" stands for diagnostics without a path.
    std::vector<std::string> files;

    /// Nothing changed (a refresh then publishes no generation).
    [[nodiscard]] bool empty() const noexcept {
        return added.empty() && changed.empty() && removed.empty() && files.empty();
    }
};

/// Default throttle of the watcher: a refresh runs once no relevant event came for this long (at
/// the latest 8 throttles after the first event of a burst), so a burst of edits is one refresh.
inline constexpr std::chrono::milliseconds DEFAULT_WATCH_THROTTLE{500};
/// Longest throttle a watcher uses (a longer WatchOptions::throttle is this one; a negative one, 0):
/// the deadlines it computes stay far inside the clock's range.
inline constexpr std::chrono::milliseconds WATCH_MAX_THROTTLE{std::chrono::hours(1)};
/// Most directories one watcher watches (roots, their child directories, the nearest existing
/// parent of each root, the parents of links on a root's path). Past it, a `watch-incomplete`
/// warning; see docs/security.md.
inline constexpr std::size_t WATCH_MAX_DIRECTORIES = 20'000;

struct WatchOptions {
    /// Local directories to watch. Empty = the roots of a FilesystemSkillLoader over the local file
    /// system (its `roots`, plus the default roots when `include_default_roots`); for any other
    /// loader, roots are required.
    std::vector<std::string> roots = {};
    /// The quiet time that ends a burst of events (one refresh per burst; at most 8 throttles).
    /// Between 0 and WATCH_MAX_THROTTLE.
    std::chrono::milliseconds throttle = DEFAULT_WATCH_THROTTLE;
    /// Watch at most this many directories (bounded by WATCH_MAX_DIRECTORIES).
    std::size_t max_directories = WATCH_MAX_DIRECTORIES;
};

struct LiveCatalogOptions {
    /// Sees every published change set, in generation order, never under a lock of the catalog
    /// (it may call `current()` or `refresh()`). Called on the thread that refreshed: the caller of
    /// `refresh()`, or the watcher's thread.
    std::function<void(const CatalogChangeSet&)> on_change = nullptr;
    /// Gets the watcher's problems (`watch-incomplete`) and the failures of the refreshes it runs
    /// (`refresh-failed`; the current generation stays). Called on the watcher's thread, except
    /// for the first arming's `watch-incomplete`, which comes on the thread of `start_watching`
    /// before it returns. Never under a lock of the catalog: it may call `current()`, `refresh()`,
    /// `watching()`, and `stop_watching()` there (that start then ends unwatched).
    std::function<void(const Diagnostic&)> on_diagnostic = nullptr;
    /// How a skill counts as changed. false (for the file-system loaders): its location or any
    /// manifest field differs, or its SKILL.md was parsed again (the loader re-parses a file
    /// when its size, modification time or identity changed, so body edits count; so does a
    /// touch; it needs `keep_results`, and holds with or without `frontmatter_json` and
    /// `lazy_bodies`). true: only a different location or manifest value counts (for a custom
    /// loader that builds new manifests at every discover; edits of the body alone are then not
    /// seen).
    bool compare_by_value = false;
};

/// A catalog that can be refreshed. Each refresh re-discovers through the loader (a repeated
/// `discover()` re-reads only what changed) and, when anything changed, publishes a new
/// generation and a change set. Thread safety: every member may be called from any thread;
/// refreshes are serialized.
class LiveCatalog {
public:
    /// Discovers generation 1. Throws ConfigurationError for a null loader, and for a
    /// FilesystemSkillLoader without `keep_results` unless `compare_by_value` is set (it parses
    /// every file again at each discover, so every skill would count as changed); DiscoveryError.
    explicit LiveCatalog(SkillLoaderPtr loader, LiveCatalogOptions options = {});
    ~LiveCatalog();
    LiveCatalog(const LiveCatalog&) = delete;
    LiveCatalog& operator=(const LiveCatalog&) = delete;

    /// The generation published last.
    [[nodiscard]] CatalogGenerationPtr current() const;
    [[nodiscard]] SkillCatalogPtr catalog() const { return current()->catalog; }
    [[nodiscard]] std::uint64_t generation() const { return current()->number; }

    /// Discovers again; when anything changed, publishes a new generation, calls `on_change`
    /// and returns the change set (nullopt: nothing changed). Throws DiscoveryError (the current
    /// generation stays).
    std::optional<CatalogChangeSet> refresh();

    /// Starts a watcher thread (inotify) that refreshes after changes below the roots, throttled.
    /// A root that does not exist yet is watched through its nearest existing parent and picked up
    /// when it appears. Returns once the watches are in place. Throws ConfigurationError when no
    /// roots are known or it already watches, IoError when inotify is unavailable.
    void start_watching(WatchOptions options = {});
    /// Stops and joins the watcher (no-op when not watching). Not from `on_change` on the watcher's
    /// thread. The destructor may run there (an `on_change` that drops the last reference): it
    /// then stops the watcher without joining it, and the thread ends once that `on_change`
    /// returns, calling neither callback again.
    void stop_watching();
    [[nodiscard]] bool watching() const;
    /// Refreshes the watcher has finished (each may or may not have published a change); the
    /// count moves after the refresh, so once it has, that refresh has read the files.
    [[nodiscard]] std::uint64_t watcher_refreshes() const;

    [[nodiscard]] const SkillLoaderPtr& loader() const noexcept;
    [[nodiscard]] const LiveCatalogOptions& options() const noexcept;

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;  // a running refresh holds it too: on_change may end the LiveCatalog
};

using LiveCatalogPtr = std::shared_ptr<LiveCatalog>;

/// The change set between two catalogs (what `refresh` reports), under the rules of
/// LiveCatalogOptions::compare_by_value; the generation numbers are left 0.
[[nodiscard]] CatalogChangeSet diff_catalogs(const SkillCatalog& before, const SkillCatalog& after,
                                             bool compare_by_value = false);

}  // namespace agentskills
