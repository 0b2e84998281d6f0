// agentskills-cpp — LiveCatalog: generations, change sets and the watcher's refreshes.
#include "agentskills/catalog/live_catalog.hpp"

#include <algorithm>
#include <atomic>
#include <deque>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <nlohmann/json.hpp>

#include "../storage/local_fs.hpp"
#include "agentskills/base/errors.hpp"
#include "default_roots.hpp"
#include "watcher.hpp"

namespace agentskills {

namespace {

bool same_location(const SkillManifest& a, const SkillManifest& b) {
    return a.skill_file == b.skill_file && a.root == b.root && a.library == b.library;
}

bool skill_changed(const SkillManifest& a, const SkillManifest& b, bool by_value) {
    if (!same_location(a, b)) return true;
    if (by_value) return nlohmann::json(a) != nlohmann::json(b);
    // The file-system loaders share one parse of a file between discoveries while its stat is
    // unchanged: another frontmatter object means the file was parsed again. (Compared as shared
    // values: reading them would build every deferred tree.)
    if (!a.frontmatter.shares(b.frontmatter)) return true;
    return a.name != b.name || a.description != b.description;
}

// Diagnostics, and skipped entries, grouped by path.
template <class T, class Key>
std::unordered_map<std::string, std::vector<const T*>> by_path(const std::vector<T>& items, Key key) {
    std::unordered_map<std::string, std::vector<const T*>> out;
    for (const T& item : items) out[key(item)].push_back(&item);
    return out;
}

template <class T, class Same>
void differing_paths(const std::vector<T>& before, const std::vector<T>& after, Same same,
                     std::unordered_set<std::string>& out) {
    const auto path_of = [](const T& t) { return t.path; };
    auto a = by_path(before, path_of);
    auto b = by_path(after, path_of);
    const auto equal = [&](const std::vector<const T*>& x, const std::vector<const T*>& y) {
        if (x.size() != y.size()) return false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            if (!same(*x[i], *y[i])) return false;
        }
        return true;
    };
    for (const auto& [path, list] : a) {
        auto it = b.find(path);
        if (it == b.end() || !equal(list, it->second)) out.insert(path);
    }
    for (const auto& [path, list] : b) {
        if (a.count(path) == 0) out.insert(path);
    }
}

}  // namespace

CatalogChangeSet diff_catalogs(const SkillCatalog& before, const SkillCatalog& after, bool compare_by_value) {
    CatalogChangeSet cs;
    std::unordered_set<std::string> files;  // paths whose state changed
    std::unordered_map<std::string_view, const SkillManifest*> old_by_name;
    old_by_name.reserve(before.size());
    for (const auto& m : before) old_by_name.emplace(m.name, &m);
    std::unordered_set<std::string_view> new_names;
    new_names.reserve(after.size());
    for (const auto& m : after) {
        new_names.insert(m.name);
        auto it = old_by_name.find(m.name);
        if (it == old_by_name.end()) {
            cs.added.push_back(m.name);
            files.insert(m.skill_file);
        } else if (skill_changed(*it->second, m, compare_by_value)) {
            cs.changed.push_back(m.name);
            files.insert(m.skill_file);
            files.insert(it->second->skill_file);
        }
    }
    for (const auto& m : before) {
        if (new_names.count(m.name) == 0) {
            cs.removed.push_back(m.name);
            files.insert(m.skill_file);
        }
    }
    differing_paths(
        before.diagnostics(), after.diagnostics(), [](const Diagnostic& a, const Diagnostic& b) { return a == b; },
        files);
    differing_paths(
        before.skipped(), after.skipped(),
        [](const SkippedSkill& a, const SkippedSkill& b) { return a.reason == b.reason && a.message == b.message; },
        files);
    for (const auto& d : after.diagnostics()) {
        if (files.count(d.path) != 0) cs.diagnostics.push_back(d);
    }
    cs.files.assign(files.begin(), files.end());
    std::sort(cs.files.begin(), cs.files.end());
    return cs;
}

struct LiveCatalog::Impl {
    SkillLoaderPtr loader;
    LiveCatalogOptions options;

    mutable std::mutex state_mutex;
    CatalogGenerationPtr current;

    std::mutex refresh_mutex;  // one refresh at a time: generations in order

    std::mutex delivery_mutex;  // the change sets not yet handed to on_change, in order
    std::deque<CatalogChangeSet> queue;
    bool delivering = false;

    mutable std::mutex watcher_mutex;
    std::unique_ptr<detail::DirectoryWatcher> watcher;
    bool starting = false;        // a start_watching is arming (outside the lock)
    bool stop_requested = false;  // stop_watching came meanwhile: that start ends unwatched
    std::atomic<std::uint64_t> watcher_refreshes{0};

    [[nodiscard]] CatalogGenerationPtr current_generation() const {
        std::lock_guard lock(state_mutex);
        return current;
    }

    // Every refresh, the caller's and the watcher's. Runs on an Impl its caller holds a reference
    // to, so an on_change that ends the LiveCatalog leaves it whole until the refresh returns.
    std::optional<CatalogChangeSet> refresh() {
        std::optional<CatalogChangeSet> result;
        {
            std::lock_guard refreshing(refresh_mutex);
            std::shared_ptr<const Discovery> d = loader->discover_shared();
            auto next = std::make_shared<const SkillCatalog>(loader, std::move(d));
            const CatalogGenerationPtr previous = current_generation();
            CatalogChangeSet cs = diff_catalogs(*previous->catalog, *next, options.compare_by_value);
            if (cs.empty()) return std::nullopt;
            cs.previous = previous->number;
            cs.generation = previous->number + 1;
            {
                std::lock_guard lock(state_mutex);
                current = std::make_shared<const CatalogGeneration>(CatalogGeneration{cs.generation, std::move(next)});
            }
            {
                std::lock_guard lock(delivery_mutex);
                queue.push_back(cs);
            }
            result = std::move(cs);
        }
        deliver();
        return result;
    }

    // Hands queued change sets to on_change, outside every lock but this thread's turn: one
    // thread delivers at a time, so the callback sees generations in order.
    void deliver() {
        {
            std::lock_guard lock(delivery_mutex);
            if (delivering) return;
            delivering = true;
        }
        while (true) {
            CatalogChangeSet cs;
            {
                std::lock_guard lock(delivery_mutex);
                if (queue.empty()) {
                    delivering = false;
                    return;
                }
                cs = std::move(queue.front());
                queue.pop_front();
            }
            if (!options.on_change) continue;
            try {
                options.on_change(cs);
            } catch (...) {
                std::lock_guard lock(delivery_mutex);
                delivering = false;
                throw;
            }
        }
    }

    [[nodiscard]] std::vector<std::string> default_watch_roots() const {
        const auto* fs = dynamic_cast<const FilesystemSkillLoader*>(loader.get());
        if (fs == nullptr || !fs->reader()->is_local()) return {};
        const auto* local = dynamic_cast<const LocalSkillReader*>(fs->reader().get());
        const std::string base = local != nullptr ? local->base_directory() : std::string();
        std::vector<std::string> out;
        for (const auto& r : fs->options().roots) out.push_back(r);
        // The loader's own default roots (the same walk and agents' folders as discovery).
        for (detail::DefaultRoot& d : detail::default_roots(base, fs->options().compat)) {
            if (fs->options().include_default_roots || !d.standard) out.push_back(std::move(d.path));
        }
        for (auto& r : out) r = detail::local::absolute_normal(r, base);
        return out;
    }
};

LiveCatalog::LiveCatalog(SkillLoaderPtr loader, LiveCatalogOptions options) : impl_(std::make_shared<Impl>()) {
    if (!loader) throw ConfigurationError("LiveCatalog: the loader is null");
    // The comparison by parse needs a loader that keeps its parses between discoveries: one that
    // parses every file again would report every skill as changed at every refresh.
    if (const auto* fs = dynamic_cast<const FilesystemSkillLoader*>(loader.get());
        fs != nullptr && !fs->options().keep_results && !options.compare_by_value) {
        throw ConfigurationError(
            "LiveCatalog: the FilesystemSkillLoader keeps no results (keep_results is false), so every refresh would "
            "parse every file again and report every skill as changed; keep its results, or set compare_by_value");
    }
    impl_->loader = std::move(loader);
    impl_->options = std::move(options);
    std::shared_ptr<const Discovery> d = impl_->loader->discover_shared();
    impl_->current = std::make_shared<const CatalogGeneration>(
        CatalogGeneration{1, std::make_shared<const SkillCatalog>(impl_->loader, std::move(d))});
}

LiveCatalog::~LiveCatalog() {
    std::unique_ptr<detail::DirectoryWatcher> w;
    {
        std::lock_guard lock(impl_->watcher_mutex);
        w = std::move(impl_->watcher);
    }
    // Joins the thread, which may be refreshing (impl_ is still whole). On that thread itself
    // (an on_change dropped the last reference) the watcher detaches instead, and the refresh
    // running there holds its own reference to impl_.
    w.reset();
}

CatalogGenerationPtr LiveCatalog::current() const { return impl_->current_generation(); }

std::optional<CatalogChangeSet> LiveCatalog::refresh() {
    const std::shared_ptr<Impl> impl = impl_;  // on_change may end this LiveCatalog
    return impl->refresh();
}

void LiveCatalog::start_watching(WatchOptions options) {
    std::vector<std::string> roots = options.roots.empty() ? impl_->default_watch_roots() : options.roots;
    if (roots.empty()) {
        throw ConfigurationError(
            "LiveCatalog: no roots to watch (give WatchOptions::roots for a loader that is not a local "
            "FilesystemSkillLoader)");
    }
    for (auto& r : roots) {
        if (r.empty()) throw ConfigurationError("LiveCatalog: a watched root is an empty path");
        r = detail::local::absolute_normal(r);
        while (r.size() > 1 && r.back() == '/') r.pop_back();
    }
    {
        std::lock_guard lock(impl_->watcher_mutex);
        if (impl_->watcher || impl_->starting) throw ConfigurationError("LiveCatalog: already watching");
        impl_->starting = true;
        impl_->stop_requested = false;
    }
    // Armed under no lock: the first arming reports watch-incomplete on this thread, and
    // on_diagnostic may call back into the catalog (watching(), stop_watching()).
    std::unique_ptr<detail::DirectoryWatcher> w;
    try {
        w = std::make_unique<detail::DirectoryWatcher>(detail::DirectoryWatcher::Options{
            .roots = std::move(roots),
            .throttle = std::clamp(options.throttle, std::chrono::milliseconds(0), WATCH_MAX_THROTTLE),
            .max_directories = std::min(options.max_directories == 0 ? WATCH_MAX_DIRECTORIES : options.max_directories,
                                        WATCH_MAX_DIRECTORIES),
            .on_change =
                [weak = std::weak_ptr<Impl>(impl_)] {
                    // The watcher's thread outlives a LiveCatalog ended by an on_change it runs.
                    const std::shared_ptr<Impl> impl = weak.lock();
                    if (!impl) return;
                    // Counted once the refresh has finished (or thrown): a caller that waits for the
                    // count to move knows that refresh has read the files.
                    struct Count {
                        std::atomic<std::uint64_t>& n;
                        ~Count() { n.fetch_add(1); }
                    } count{impl->watcher_refreshes};
                    (void)impl->refresh();
                },
            .on_diagnostic = impl_->options.on_diagnostic,
        });
    } catch (...) {
        std::lock_guard lock(impl_->watcher_mutex);
        impl_->starting = false;
        throw;
    }
    std::lock_guard lock(impl_->watcher_mutex);
    impl_->starting = false;
    if (impl_->stop_requested) {
        impl_->stop_requested = false;
        return;  // w stops and joins (its thread is not this one)
    }
    impl_->watcher = std::move(w);
}

void LiveCatalog::stop_watching() {
    std::unique_ptr<detail::DirectoryWatcher> w;
    {
        std::lock_guard lock(impl_->watcher_mutex);
        if (impl_->watcher && impl_->watcher->thread_id() == std::this_thread::get_id()) {
            throw ConfigurationError("LiveCatalog: stop_watching called from the watcher's own thread");
        }
        w = std::move(impl_->watcher);
        if (impl_->starting) impl_->stop_requested = true;
    }
    w.reset();
}

bool LiveCatalog::watching() const {
    std::lock_guard lock(impl_->watcher_mutex);
    return impl_->watcher != nullptr;
}

std::uint64_t LiveCatalog::watcher_refreshes() const { return impl_->watcher_refreshes.load(); }

const SkillLoaderPtr& LiveCatalog::loader() const noexcept { return impl_->loader; }

const LiveCatalogOptions& LiveCatalog::options() const noexcept { return impl_->options; }

}  // namespace agentskills
