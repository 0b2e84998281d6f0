// agentskills-cpp — discovery, stages 2 and 6: reuse the last result when nothing changed, and
// capture the result for the next discovery.
//
// When a new discovery finds the roots reporting the same, the same children, and every
// SKILL.md with the same stat, its result is the same: it is copied from the snapshot without
// reading, parsing or merging anything (a repeated discover() costs about what listing the
// library costs; docs/performance.md).
#include <atomic>
#include <string>

#include "common.hpp"

namespace agentskills::detail {

struct SnapshotStore::Snapshot {
    struct Child {
        std::size_t root_index = 0;
        std::string dir_name;
        std::string skill_file;  // empty: the child had no SKILL.md
        std::string relative;    // "<dir_name>/SKILL.md"
        FileStat stat;           // of skill_file
    };
    Diagnostics root_diagnostics;  // what listing the roots reported
    std::vector<SkippedSkill> root_skipped;
    std::vector<Child> children;  // every child directory, in order
    std::vector<std::shared_ptr<const SkillManifest>> skills;
    std::vector<SkippedSkill> skipped;
    Diagnostics diagnostics;
};

namespace {

bool same_skipped(const std::vector<SkippedSkill>& a, const std::vector<SkippedSkill>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].path != b[i].path || a[i].reason != b[i].reason || a[i].message != b[i].message) return false;
    }
    return true;
}

}  // namespace

std::optional<Discovery> SnapshotStore::reuse_unlisted(const RootStamps& now, const std::vector<Root>& roots,
                                                       const Storage& storage, Threads threads) {
    std::shared_ptr<const Snapshot> snap;
    std::shared_ptr<const RootStamps> then;
    {
        std::lock_guard lock(mutex_);
        snap = last_;
        then = stamps_;
    }
    if (!snap || !then || then->stamps.size() != now.stamps.size()) return std::nullopt;
    for (std::size_t i = 0; i < now.stamps.size(); ++i) {
        const auto& a = now.stamps[i];
        const auto& b = then->stamps[i];
        if (!a || !b || !(*a == *b)) return std::nullopt;
        // A change made in the same clock tick as the listing may not have moved the ctime.
        if (!a->missing && a->ctime_ns >= then->taken_ns - settled_stamp_ns) return std::nullopt;
    }
    return same_files(*snap, roots, storage, threads);
}

std::optional<Discovery> SnapshotStore::reuse(const RootListing& listing, const std::vector<Root>& roots,
                                              const Storage& storage, Threads threads, RootStamps stamps) {
    std::shared_ptr<const Snapshot> snap;
    {
        std::lock_guard lock(mutex_);
        snap = last_;
    }
    if (!snap) return std::nullopt;
    if (listing.diagnostics != snap->root_diagnostics || !same_skipped(listing.skipped, snap->root_skipped)) {
        return std::nullopt;
    }
    std::size_t k = 0;
    for (const Listed& l : listing.listed) {
        for (const RootEntry& e : l.children) {
            if (k == snap->children.size()) return std::nullopt;
            const Snapshot::Child& s = snap->children[k++];
            // A file child is a source (an archive): its skill is not vouched for by a stat here.
            if (e.is_symlink || e.kind != EntryKind::directory || l.root_index != s.root_index ||
                e.name != s.dir_name) {
                return std::nullopt;
            }
        }
    }
    if (k != snap->children.size()) return std::nullopt;
    std::optional<Discovery> out = same_files(*snap, roots, storage, threads);
    if (out) {
        std::lock_guard lock(mutex_);
        if (last_ == snap) stamps_ = std::make_shared<const RootStamps>(std::move(stamps));
    }
    return out;
}

std::optional<Discovery> SnapshotStore::same_files(const Snapshot& snapshot, const std::vector<Root>& roots,
                                                   const Storage& storage, Threads threads) {
    const Snapshot* snap = &snapshot;
    // Stat every SKILL.md again (on the worker threads) and compare; local files relative to
    // their root, opened once.
    std::vector<int> root_fds = storage.open_roots(roots);
    struct FdsCloser {
        std::vector<int>& fds;
        ~FdsCloser() { Storage::close_roots(fds); }
    } fds_closer{root_fds};
    std::atomic<bool> same{true};
    const auto check = [&](std::size_t i) {
        const Snapshot::Child& s = snap->children[i];
        std::string absent;  // where a SKILL.md would be
        if (s.skill_file.empty()) absent = join_path(join_path(roots[s.root_index].path, s.dir_name), skill_file_name);
        const std::string& path = s.skill_file.empty() ? absent : s.skill_file;
        FileStat now;
        switch (storage.probe(path, root_fds[s.root_index], s.relative, now)) {
            case Storage::Probe::found:
                if (s.skill_file.empty() || !same_file_state(now, s.stat)) same = false;
                break;
            case Storage::Probe::missing:
                if (!s.skill_file.empty()) same = false;
                break;
            case Storage::Probe::failed:
                same = false;
                break;
        }
    };
    Discovery out;
    const auto copy_result = [&] {
        out.skills.reserve(snap->skills.size());
        for (const auto& m : snap->skills) {
            if (!same.load(std::memory_order_relaxed)) return;
            out.skills.push_back(*m);
        }
        out.skipped = snap->skipped;
        out.diagnostics = snap->diagnostics;
    };
    constexpr std::size_t chunk = 256;  // stats per task
    const std::size_t n = snap->children.size();
    if (threads.max <= 1 || n < 2 * chunk) {
        parallel_for(n, threads, stats_per_thread, [&](std::size_t i) {
            if (same.load(std::memory_order_relaxed)) check(i);
        });
        if (!same) return std::nullopt;
        copy_result();
        return out;
    }
    // Task 0 copies the last result while the other tasks stat (the copy is thrown away when a
    // stat differs). Copying is mostly malloc and gains little from more threads; the stats
    // spread well, and the thread that copied joins them when it is done.
    const std::size_t chunks = (n + chunk - 1) / chunk;
    parallel_for(chunks + 1, threads, 1, [&](std::size_t task) {
        if (task == 0) {
            copy_result();
            return;
        }
        const std::size_t begin = (task - 1) * chunk;
        for (std::size_t i = begin; i < std::min(n, begin + chunk) && same.load(std::memory_order_relaxed); ++i) {
            check(i);
        }
    });
    if (!same) return std::nullopt;
    return out;
}

void SnapshotStore::capture(const RootListing& listing, const std::vector<Candidate>& candidates, Merged& merged,
                            const Discovery& out, RootStamps stamps) {
    std::shared_ptr<Snapshot> snap;
    const bool reusable = std::none_of(candidates.begin(), candidates.end(), [](const Candidate& c) {
        return c.is_symlink || c.source_child || c.failure.has_value() ||
               (c.has_skill_file && (!c.entry || c.entry->verify));
    });
    if (reusable) {
        snap = std::make_shared<Snapshot>();
        snap->root_diagnostics = listing.diagnostics;
        snap->root_skipped = listing.skipped;
        snap->children.reserve(candidates.size());
        for (const Candidate& c : candidates) {
            Snapshot::Child child;
            child.root_index = c.root_index;
            child.dir_name = c.dir_name;
            child.relative = join_path(c.dir_name, skill_file_name);
            if (c.has_skill_file) {
                child.skill_file = c.skill_file;
                child.stat = c.entry->stat;
            }
            snap->children.push_back(std::move(child));
        }
        snap->skills = std::move(merged.order);
        snap->skipped = out.skipped;
        snap->diagnostics = out.diagnostics;
    }
    std::lock_guard lock(mutex_);
    stamps_ = snap ? std::make_shared<const RootStamps>(std::move(stamps)) : nullptr;
    last_ = std::move(snap);
}

}  // namespace agentskills::detail
