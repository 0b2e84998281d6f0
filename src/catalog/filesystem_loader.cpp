// agentskills-cpp — FilesystemSkillLoader: discovery over library roots as a sequence of
// stages (see discovery_common.hpp), and loading.
#include "agentskills/catalog/loader.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "discovery/admit.hpp"
#include "discovery/common.hpp"
#include "discovery/nested.hpp"
#include "discovery/plugins.hpp"
#include "prefault.hpp"

namespace agentskills {

SkillLoader::~SkillLoader() = default;

using namespace detail;

struct FilesystemSkillLoader::Impl {
    FilesystemLoaderOptions options;
    Storage storage;
    Selection selection;
    std::vector<Root> roots;
    ParseCache parse_cache;
    SnapshotStore snapshots;

    mutable std::shared_mutex kept_mutex;
    KeptSkills kept;
    bool discovered = false;
    std::atomic<std::uint64_t> next_ticket{0};            // order of the discoveries' starts
    std::uint64_t published_ticket = 0;                   // the discovery load() serves (guarded by kept_mutex)
    std::unordered_set<std::string> untrusted_libraries;  // Root::path of the untrusted roots
    std::vector<std::string> project_roots;               // the project levels' folders (resolve_roots)
    std::vector<std::string> plugin_origins;              // the configured roots that are plugins or marketplaces
    Admitted admitted;                                    // guarded by kept_mutex
    Diagnostics plugin_diagnostics;                       // what reading the plugin manifests said (resolve_roots)
    bool prefixed = false;                                // a root is a plugin's skills folder (Root::name_prefix)
    std::uint64_t admitted_ticket = 0;                    // the discovery `admitted` is from

    explicit Impl(FilesystemLoaderOptions opts);
    void resolve_roots();
    void resolve_trust();
    [[nodiscard]] AdmissionSettings admission() const noexcept {
        return AdmissionSettings{&options.overrides, &untrusted_libraries, &options.trust,
                                 &options.lock,      options.lock_strict,  &storage.reader()};
    }
    /// The last stage, on the result in place: the plugin notes, admission, the callback.
    void finish(std::uint64_t ticket, Discovery& out);
    [[nodiscard]] Threads thread_count() const noexcept {
        // The machine's cores, asked once per process (glibc reads /sys for each call, and a
        // discovery asks several times).
        static const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
        const std::size_t asked = options.threads != 0 ? options.threads : cores;
        return {std::min(asked, SKILL_MAX_DISCOVERY_THREADS), options.threads == 0};
    }
    void publish(std::uint64_t ticket, KeptSkills kept_now);
    void report(const Discovery& out) const;
    /// What one discovery returns: its result, or (asked with `share`, and when nothing stands in
    /// the way: ParseCache::share_fresh) the same result shared with the cache, `value` then empty.
    struct Result {
        Discovery value;
        std::shared_ptr<const Discovery> shared;
    };
    Result discover(bool share);
    /// Discovers once if nothing was discovered yet (load() and frontmatter() before any discover()).
    void ensure_discovered();
    /// The kept, admitted skill under `key` (nfkc of `name`); call with kept_mutex held. Throws NotFoundError.
    const Kept& kept_skill(const std::string& key, std::string_view name) const;
};

FilesystemSkillLoader::Impl::Impl(FilesystemLoaderOptions opts)
    : options(std::move(opts)),
      storage(options.reader, options.sources),
      parse_cache(storage, ParseSettings{options.name_policy, options.max_lines, options.max_bytes, options.lazy_bodies,
                                         options.keep_results, options.frontmatter_json, options.frontmatter_typing,
                                         options.yaml_recovery}) {
    if (options.include.has_value() && !options.exclude.empty()) {
        throw ConfigurationError("include and exclude cannot be used together");
    }
    if (options.include) {
        selection.include.emplace();
        for (const auto& n : *options.include) selection.include->insert(nfkc(n));
    }
    for (const auto& n : options.exclude) selection.exclude.insert(nfkc(n));
    for (const auto& rule : options.overrides) {
        if (rule.name.empty() == rule.path.empty()) {
            throw ConfigurationError("an override rule needs exactly one of 'name' and 'path'");
        }
    }
    resolve_roots();
    resolve_trust();
}

void FilesystemSkillLoader::Impl::resolve_trust() {
    for (const auto& root : options.untrusted_roots) {
        std::string path;
        try {
            path = storage.resolve_root(root);
        } catch (const PathError& e) {
            throw ConfigurationError(fmt::format("invalid untrusted root '{}': {}", root, e.what()));
        }
        // A plugin or marketplace root stands for its plugins' skills folders: each is untrusted.
        bool known = false;
        for (const Root& r : roots) {
            if (r.path != path && r.origin != path) continue;
            known = true;
            untrusted_libraries.insert(r.path);
        }
        if (!known && std::find(plugin_origins.begin(), plugin_origins.end(), path) == plugin_origins.end()) {
            throw ConfigurationError(fmt::format("untrusted root '{}' is not one of the roots scanned", root));
        }
    }
    if (options.untrusted_project_root) {
        for (std::string& path : project_roots) untrusted_libraries.insert(std::move(path));
        project_roots.clear();
    }
}

void FilesystemSkillLoader::Impl::resolve_roots() {
    auto add_root = [&](Root root) {
        for (const auto& r : roots) {
            // The same root twice is scanned once (two plugins' views of one folder are two).
            if (r.path == root.path && r.name_prefix == root.name_prefix && r.only == root.only) return;
        }
        roots.push_back(std::move(root));
    };
    auto add = [&](std::string path, bool is_default) {
        Root r;
        r.path = std::move(path);
        r.is_default = is_default;
        add_root(std::move(r));
    };
    for (const auto& root : options.roots) {
        if (root.empty()) throw ConfigurationError("a library root is an empty path");
        if (std::optional<Root> source = storage.source_root(root)) {  // a git tree, ...
            add_root(std::move(*source));
            continue;
        }
        std::string path;
        try {
            path = storage.resolve_root(root);
        } catch (const PathError& e) {
            throw ConfigurationError(fmt::format("invalid library root '{}': {}", root, e.what()));
        }
        // A Claude Code marketplace or plugin: its plugins' skills folders instead of itself.
        if (std::optional<std::vector<Root>> plugins = plugin_roots(path, storage, plugin_diagnostics)) {
            plugin_origins.push_back(path);
            for (Root& r : *plugins) add_root(std::move(r));
            continue;
        }
        add(std::move(path), false);
    }
    prefixed = std::any_of(roots.begin(), roots.end(), [](const Root& r) { return !r.name_prefix.empty(); });
    if (storage.local()) {
        // Computed once, and only when something uses it (the walk stats directories): the
        // default roots, the agents' folders, or untrusted_project_root, which names the project
        // levels whether or not they are scanned.
        const bool walk = options.include_default_roots || !options.compat.empty() || options.untrusted_project_root;
        if (!walk) return;
        for (DefaultRoot& d : storage.default_roots(options.compat)) {
            if (d.project) project_roots.push_back(d.path);
            if (options.include_default_roots || !d.standard) add(std::move(d.path), true);
        }
    } else if (options.roots.empty()) {
        add(storage.implicit_root(), false);
    }
}

void apply_loader_limits(FilesystemLoaderOptions& options, LoaderLimits limits) noexcept {
    // The description rule is the parser's (cut at SKILL_MAX_DESCRIPTION_LENGTH with a
    // warning) under both presets; only the line limit differs.
    options.max_lines = limits == LoaderLimits::agents ? 0 : SKILL_MAX_FILE_LINES;
}

// Of two overlapping discoveries, the one that started later wins, whichever ends last.
void FilesystemSkillLoader::Impl::publish(std::uint64_t ticket, KeptSkills kept_now) {
    std::unique_lock lock(kept_mutex);
    if (ticket > published_ticket) {
        kept = std::move(kept_now);
        published_ticket = ticket;
    }
    discovered = true;
}

void FilesystemSkillLoader::Impl::report(const Discovery& out) const {
    if (options.on_diagnostic) {
        for (const auto& d : out.diagnostics) options.on_diagnostic(d);
    }
}

// Admission runs on every discovery (a reused one too: a lock covers files no stat was taken
// of, and the trust callback decides each time).
void FilesystemSkillLoader::Impl::finish(std::uint64_t ticket, Discovery& out) {
    // Said on every discovery (the manifests were read once, when the loader was built), first.
    if (!plugin_diagnostics.empty()) {
        out.diagnostics.insert(out.diagnostics.begin(), plugin_diagnostics.begin(), plugin_diagnostics.end());
    }
    const AdmissionSettings settings = admission();
    if (settings.active()) {
        Admitted now = admit(out, settings);
        std::unique_lock lock(kept_mutex);
        if (ticket > admitted_ticket) {
            admitted = std::move(now);
            admitted_ticket = ticket;
        }
    }
    report(out);
}

FilesystemSkillLoader::Impl::Result FilesystemSkillLoader::Impl::discover(bool share) {
    const std::uint64_t ticket = next_ticket.fetch_add(1) + 1;
    // A nested walk looks below the children, where the snapshot's stats do not reach; without
    // keep_results there is no snapshot. Plugins' skills are renamed after the parse, as nested
    // ones are: the same general path.
    const bool nested = options.nested_depth > 0;
    const bool renamed = nested || prefixed;
    const bool snapshot = !renamed && options.keep_results;
    RootStamps stamps;
    if (snapshot) {
        stamps = stamp_roots(roots, storage);  // before the listing they vouch for
        if (std::optional<Discovery> same = snapshots.reuse_unlisted(stamps, roots, storage, thread_count())) {
            finish(ticket, *same);  // the same entries and files: the last result again
            return {std::move(*same), nullptr};
        }
    }
    RootListing listing;
    list_roots(roots, storage, selection, options.missing_directories, listing);
    if (snapshot) {
        if (std::optional<Discovery> same = snapshots.reuse(listing, roots, storage, thread_count(), stamps)) {
            finish(ticket, *same);  // an unchanged library: the last result again
            return {std::move(*same), nullptr};
        }
    }
    std::vector<Candidate> candidates = make_candidates(roots, listing);
    Discovery out{{}, listing.skipped, listing.diagnostics};
    std::shared_ptr<Discovery> shared;  // the result, when it is shared with the cache
    // Without keep_results, each manifest is parsed into the element of the result's vector of
    // its candidate, which is compacted after the merge: one array of manifests, never two.
    // (A nested walk adds candidates as it goes; it takes the general path.)
    const bool slots = !options.keep_results && !renamed;
    if (slots) {
        // Nothing reads the listing again (no snapshot): the candidates hold what they need.
        listing.listed.clear();
        listing.listed.shrink_to_fit();
        reserve_prefaulted(out.skills, candidates.size());
        out.skills.resize(candidates.size());
        for (std::size_t i = 0; i < candidates.size(); ++i) candidates[i].slot = &out.skills[i];
    }
    // Each local root opened once: its children's SKILL.md files are opened relative to it.
    std::vector<int> root_fds = storage.open_roots(roots);
    {
        struct Closer {
            std::vector<int>& fds;
            ~Closer() { Storage::close_roots(fds); }
        } closer{root_fds};
        parallel_for(candidates.size(), thread_count(), files_per_thread,
                     [&](std::size_t i) { parse_cache.process(candidates[i], root_fds[candidates[i].root_index]); });
    }
    if (nested) {
        expand_groups(candidates, roots, storage, parse_cache,
                      NestedSettings{options.nested_depth, options.nested_max_directories}, thread_count(),
                      out.diagnostics);
    }
    if (prefixed) {
        // A plugin's skills (nested ones too) are `plugin:skill`, renamed as a group's are.
        for (Candidate& c : candidates) {
            const std::string& prefix = roots[c.root_index].name_prefix;
            if (!prefix.empty() && (c.has_skill_file || c.failure)) prefix_candidate(c, prefix);
        }
    }
    Merged merged = merge_candidates(candidates, selection, options.include, options.exclude, options.duplicate_names,
                                     storage, parse_cache, out);
    if (slots) {
        // The kept manifests to the front; the rest (duplicates, excluded) are dropped. A kept manifest is its
        // candidate's slot's (no cache to hit, so none is an entry's), and the merge keeps them in candidate order:
        // each one's slot is at or after its place, and not yet written to. The const_cast is sound for the reason
        // given below.
        for (std::size_t k = 0; k < merged.order.size(); ++k) {
            const SkillManifest* from = merged.order[k].get();
            if (from != &out.skills[k]) out.skills[k] = std::move(const_cast<SkillManifest&>(*from));  // NOLINT
        }
        out.skills.resize(merged.order.size());
        merged.order.clear();
        parse_cache.keep_only({});
    } else if (options.keep_results && share && !renamed && !admission().active() &&
               std::none_of(candidates.begin(), candidates.end(), [](const Candidate& c) { return c.from_cache; })) {
        // A discovery that parsed every file itself (the first, usually), for a caller that keeps
        // the result as it is (a catalog): the cache's manifests move into the shared result and
        // the cache holds those, one copy for both. Admission would edit the result afterwards,
        // and a discovery with cache hits would keep the result of an earlier one alive: those copy.
        shared = std::make_shared<Discovery>(std::move(out));
        parse_cache.share_fresh(candidates, merged, shared);
        parse_cache.keep_only(merged.live_files);
    } else if (options.keep_results) {
        out.skills.resize(merged.order.size());
        // The caller's copies of the kept manifests, made on the worker threads.
        parallel_for(merged.order.size(), thread_count(), copies_per_thread,
                     [&](std::size_t i) { out.skills[i] = *merged.order[i]; });
        parse_cache.keep_only(merged.live_files);
    } else {
        out.skills.resize(merged.order.size());
        // Nothing reads the parsed manifests after this (load() parses the file again): they move
        // into the result. Each was made mutable (a cache entry's, or a placed copy) and each
        // kept skill has its own, so the const_cast is sound.
        for (std::size_t i = 0; i < merged.order.size(); ++i) {
            out.skills[i] = std::move(const_cast<SkillManifest&>(*merged.order[i]));  // NOLINT
        }
        merged.order.clear();
        parse_cache.keep_only({});
    }
    // Without keep_results nothing reads the candidates' paths again: the kept ones move.
    publish(ticket, KeptSkills(candidates, merged.kept, !options.keep_results));
    if (ticket == next_ticket.load()) storage.retire_children(candidates);  // no discovery started since
    if (shared) {
        if (snapshot) snapshots.capture(listing, candidates, merged, *shared, std::move(stamps));
        finish(ticket, *shared);  // admission is off: the notes only, not the manifests
        return {{}, std::move(shared)};
    }
    if (snapshot) snapshots.capture(listing, candidates, merged, out, std::move(stamps));
    finish(ticket, out);
    return {std::move(out), nullptr};
}

FilesystemSkillLoader::FilesystemSkillLoader(FilesystemLoaderOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

FilesystemSkillLoader::~FilesystemSkillLoader() = default;

Discovery FilesystemSkillLoader::discover() {
    Impl::Result r = impl_->discover(false);
    return std::move(r.value);
}

std::shared_ptr<const Discovery> FilesystemSkillLoader::discover_shared() {
    Impl::Result r = impl_->discover(true);
    return r.shared ? std::move(r.shared) : std::make_shared<const Discovery>(std::move(r.value));
}

void FilesystemSkillLoader::Impl::ensure_discovered() {
    bool need_discovery = false;
    {
        std::shared_lock lock(kept_mutex);
        need_discovery = !discovered;
    }
    if (need_discovery) (void)discover(false);
}

const Kept& FilesystemSkillLoader::Impl::kept_skill(const std::string& key, std::string_view name) const {
    const Kept* found = kept.find(key);
    if (found == nullptr || admitted.refused.count(key) != 0) {
        throw NotFoundError(fmt::format("no discovered skill named '{}'", name));
    }
    return *found;
}

LoadedSkill FilesystemSkillLoader::load(std::string_view name) {
    impl_->ensure_discovered();
    LoadedSkill out;
    Kept lazy;  // a lazy entry, whose body is read below (outside the lock)
    {
        std::shared_lock lock(impl_->kept_mutex);
        const std::string key = nfkc(name);
        const Kept& k = impl_->kept_skill(key, name);
        const bool reparse = !impl_->options.keep_results;  // the manifest moved into the Discovery
        if (!reparse) {
            out.manifest = *k.entry->manifest;
            set_location(out.manifest, k.location());
        }
        if (auto mode = impl_->admitted.modes.find(key); mode != impl_->admitted.modes.end()) {
            out.manifest.mode = mode->second;
        }
        if (k.entry->lazy || reparse) {
            lazy = k;
        } else {
            out.instructions = k.entry->instructions;
        }
    }
    if (lazy.entry) {
        const SkillMode mode = out.manifest.mode;
        const bool take = !impl_->options.keep_results;
        out.instructions = impl_->parse_cache.lazy_body(*lazy.entry, lazy.location(), out.manifest, take,
                                                        /*frontmatter_json=*/false,
                                                        /*refuse_changed=*/static_cast<bool>(impl_->options.lock));
        if (take) out.manifest.mode = mode;
    }
    ResourceList listed = list_skill_resources(
        *impl_->storage.reader_for_path(out.manifest.root), out.manifest.root,
        ResourceListOptions{impl_->options.max_resources, impl_->options.include_hidden_resources});
    out.resources = std::move(listed.resources);
    out.omitted_resources = listed.omitted;
    out.unlisted_directories = std::move(listed.unlisted_directories);
    out.resources_incomplete = listed.incomplete;
    out.unlisted_reasons = std::move(listed.unlisted_reasons);
    return out;
}

SharedJson FilesystemSkillLoader::frontmatter(std::string_view name) {
    impl_->ensure_discovered();
    Kept kept;
    {
        std::shared_lock lock(impl_->kept_mutex);
        const Kept& found = impl_->kept_skill(nfkc(name), name);
        if (impl_->options.keep_results && impl_->options.frontmatter_json && found.entry->manifest) {
            return found.entry->manifest->frontmatter;
        }
        kept = found;
    }
    SkillManifest now;
    (void)impl_->parse_cache.lazy_body(*kept.entry, kept.location(), now, /*take_manifest=*/true,
                                       /*frontmatter_json=*/true,
                                       /*refuse_changed=*/static_cast<bool>(impl_->options.lock));
    return now.frontmatter;
}

const FilesystemLoaderOptions& FilesystemSkillLoader::options() const noexcept { return impl_->options; }

const SkillReaderPtr& FilesystemSkillLoader::reader() const noexcept { return impl_->storage.reader_ptr(); }

SkillReaderPtr FilesystemSkillLoader::reader_for(std::string_view name) const {
    std::shared_lock lock(impl_->kept_mutex);
    const Kept* found = impl_->kept.find(nfkc(name));
    return found == nullptr ? reader() : impl_->storage.reader_for_path(found->location().root);
}

}  // namespace agentskills
