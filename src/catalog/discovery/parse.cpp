// agentskills-cpp — discovery, stage 3: read and parse each child's SKILL.md, with the cache
// of parsed files (a file whose stat is unchanged is not read or parsed again).
#include <chrono>
#include <functional>
#include <string>

#include <fmt/core.h>

#include "../../parse/session.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/parse/parser.hpp"
#include "common.hpp"

namespace agentskills::detail {

namespace {

// Whether a stat cannot tell a later edit apart: the reader knows neither a modification time
// nor an identity, or the file was modified so recently that another write within the same
// timestamp tick would leave size, mtime and inode unchanged (the "racy" case). Such entries
// are re-read (not re-parsed) on the next discovery and compared byte for byte.
bool stat_needs_verification(const FileStat& st) {
    if (st.mtime_ns == 0) return st.identity == 0;
    constexpr std::int64_t racy_window_ns = 2'000'000'000;
    const std::int64_t now_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    return now_ns - st.mtime_ns < racy_window_ns;
}

std::string first_error_message(const Diagnostics& ds) {
    for (const auto& d : ds) {
        if (d.severity == Severity::error) return d.message;
    }
    return ds.empty() ? std::string("invalid SKILL.md") : ds.front().message;
}

}  // namespace

bool ParseCache::cached(const std::string& path) {
    std::lock_guard lock(mutex_);
    return entries_.count(path) != 0;
}

void ParseCache::process(Candidate& c, int root_fd) {
    try {
        // A directory child (not a symlink) of a local root: its SKILL.md relative to the root.
        const bool relative = root_fd >= 0 && !c.source_child && !c.is_symlink && !c.dir_name.empty();
        if (c.source_child) {
            storage_.open_child(c);  // an archive: its skill's paths are `<archive>!/...`
        } else {
            // With a slot (keep_results off, no nested walk) nothing reads child_dir again.
            c.skill_dir = c.slot != nullptr ? storage_.skill_dir(std::move(c.child_dir), c.is_symlink)
                                            : storage_.skill_dir(c.child_dir, c.is_symlink);
            c.skill_file = join_path(c.skill_dir, skill_file_name);
        }
        if (storage_.local() && !cached(c.skill_file)) {
            // A file the cache has never seen (every file of a first discovery): the fast path.
            FileStat st;
            std::string_view data;
            bool truncated = false;
            thread_local std::string below;
            if (relative) {
                below.assign(c.dir_name).append("/").append(skill_file_name);
            }
            switch (storage_.read_fresh(c.skill_file, settings_.max_bytes, st, data, truncated, relative ? root_fd : -1,
                                        relative ? below.c_str() : nullptr)) {
                case Storage::Fresh::missing:
                    return;  // an ordinary directory, not a skill
                case Storage::Fresh::read:
                    c.has_skill_file = true;
                    store(c, st, data, truncated);
                    return;
                case Storage::Fresh::general:
                    break;
            }
        }
        const SkillReader& reader = storage_.reader();
        FileStat st;
        try {
            st = reader.stat(c.skill_file);
        } catch (const NotFoundError&) {
            return;  // an ordinary directory, not a skill
        }
        c.has_skill_file = true;
        if (st.kind != EntryKind::file) {
            c.fail(SkipReason::unreadable, st.is_symlink && st.kind == EntryKind::other
                                               ? unfollowable_link_message(c.skill_file, st.special_target)
                                               : fmt::format("{} is not a regular file", c.skill_file));
            return;
        }
        CacheEntryPtr hit;
        {
            std::lock_guard lock(mutex_);
            auto it = entries_.find(c.skill_file);
            if (it != entries_.end() && same_file_state(it->second->stat, st)) {
                hit = it->second;
                hit->taken.set();  // under the mutex: see share_fresh
            }
        }
        if (hit && !hit->verify) {
            c.entry = std::move(hit);
            c.from_cache = true;
            return;
        }
        ReadResult read = reader.read_file(c.skill_file, settings_.max_bytes);
        if (hit && hit->hashed && read.truncated == hit->truncated && read.data.size() == hit->text_size &&
            std::hash<std::string_view>{}(read.data) == hit->text_hash) {
            // The same bytes: keep the parse, and trust the stat from now on if it has settled.
            c.from_cache = true;
            if (stat_needs_verification(st)) {
                c.entry = std::move(hit);
                return;
            }
            auto settled = std::make_shared<CacheEntry>(*hit);
            settled->verify = false;
            settled->taken.set();  // in the cache from now on, and this discovery's too
            CacheEntryPtr shared = std::move(settled);
            std::lock_guard lock(mutex_);
            entries_[c.skill_file] = shared;
            c.entry = std::move(shared);
            return;
        }
        store(c, st, read.data, read.truncated);
    } catch (const SourceRefusedError& e) {
        c.has_skill_file = true;
        c.fail(SkipReason::unreadable, e.what(), std::string(e.code()));
    } catch (const std::exception& e) {
        c.has_skill_file = true;
        c.fail(SkipReason::unreadable,
               fmt::format("cannot read {}: {}",
                           !c.skill_file.empty() ? c.skill_file : (!c.child_dir.empty() ? c.child_dir : c.skill_dir),
                           e.what()));
    }
}

// Parses the bytes of c.skill_file, caches the result under its path and gives it to `c`.
void ParseCache::store(Candidate& c, const FileStat& st, std::string_view data, bool truncated) {
    auto entry = std::make_shared<CacheEntry>();
    entry->stat = st;
    entry->verify = stat_needs_verification(st);
    entry->truncated = truncated;
    ParseOptions popts = settings_.parse_options();
    popts.path = c.skill_file;  // for the diagnostics; the location is set below
    popts.directory_name = c.dir_name;
    popts.truncated = truncated;
    ParseResult parsed;
    {
        Parse parse(popts, parsed);
        if (settings_.lazy_bodies) parse.drop_instructions();
        parse.run(data);
    }
    SkillManifest* manifest = parsed.manifest();
    const bool move_dir_name = settings_.lazy_bodies && c.slot != nullptr;  // not read again from `c`
    if (settings_.lazy_bodies) {
        entry->lazy = true;
        entry->dir_name = move_dir_name ? std::move(c.dir_name) : c.dir_name;
    } else {
        entry->instructions = std::move(parsed.instructions);
    }
    entry->diagnostics = std::move(parsed.diagnostics);
    entry->skip_reason = parsed.skip_reason();
    if (truncated) entry->skip_reason = SkipReason::too_large;
    if (entry->skip_reason) manifest = nullptr;
    if (manifest == nullptr && !entry->skip_reason) entry->skip_reason = SkipReason::invalid;
    if (entry->skip_reason) {
        entry->skip_message = fmt::format("{}: {}", c.skill_file, first_error_message(entry->diagnostics));
        if (*entry->skip_reason == SkipReason::too_large && truncated && entry->diagnostics.empty()) {
            entry->skip_message =
                fmt::format("{}: larger than the limit of {} bytes", c.skill_file, settings_.max_bytes);
        }
    }
    entry->text_size = data.size();
    if (entry->verify) {
        entry->text_hash = std::hash<std::string_view>{}(data);
        entry->hashed = true;
    }
    if (manifest != nullptr) {
        entry->name_key = nfkc(manifest->name);
        set_location(*manifest, c.location());
        if (c.slot != nullptr) {  // keep_results off: straight into the result's vector
            *c.slot = std::move(*manifest);
            entry->placed = true;
        } else {
            entry->manifest = std::move(*manifest);
        }
    }
    CacheEntryPtr shared = std::move(entry);
    if (settings_.keep) {
        std::lock_guard lock(mutex_);
        entries_[c.skill_file] = shared;
    }
    c.entry = std::move(shared);
    c.dir_name_in_entry = move_dir_name;
}

std::string ParseCache::lazy_body(const CacheEntry& entry, const SkillLocation& where, SkillManifest& manifest,
                                  bool take_manifest, bool frontmatter_json, bool refuse_changed) const {
    const SkillReader& reader = storage_.reader();
    const std::string path(where.skill_file);
    const FileStat before = reader.stat(path);
    ReadResult read = reader.read_file(path, settings_.max_bytes);
    const FileStat after = reader.stat(path);
    // The bytes of discovery when the stat (taken around the read) is the one of discovery and
    // vouches for them, or when they hash the same.
    bool same = same_file_state(before, entry.stat) && same_file_state(after, entry.stat) &&
                read.truncated == entry.truncated && read.data.size() == entry.text_size;
    if (same && (entry.verify || entry.hashed)) {
        same = entry.hashed && std::hash<std::string_view>{}(read.data) == entry.text_hash;
    }
    // The lock vouched for the bytes discovery read, not for these.
    if (!same && refuse_changed) {
        throw IoError(fmt::format(
            "{} changed since discovery, which checked it against the lock; discover again to check it", path));
    }
    ParseOptions popts = settings_.parse_options();
    popts.frontmatter_json = settings_.frontmatter_json || frontmatter_json;
    popts.path = path;
    const std::string_view name_prefix = std::string_view(entry.dir_name).substr(0, entry.name_prefix_size);
    popts.directory_name = std::string_view(entry.dir_name).substr(entry.name_prefix_size);
    popts.truncated = read.truncated;
    ParseResult parsed = parse_skill_md(read.data, popts);
    if (same && !take_manifest) return std::move(parsed.instructions);
    SkillManifest* now = parsed.manifest();
    if (now == nullptr) {
        throw IoError(fmt::format("{} changed since discovery and no longer parses: {}", path,
                                  first_error_message(parsed.diagnostics)));
    }
    now->name.insert(0, name_prefix);  // a nested skill's name, as discovery gave it
    if (nfkc(now->name) != entry.name_key) {
        throw IoError(
            fmt::format("{} changed since discovery and now names the skill '{}', not '{}'", path, now->name,
                        // (a manifest given to the Discovery was moved from)
                        entry.manifest && !entry.manifest->name.empty() ? entry.manifest->name : entry.name_key));
    }
    set_location(*now, where);
    manifest = std::move(*now);
    return std::move(parsed.instructions);
}

bool ParseCache::same_bytes(const Candidate& a, const Candidate& b) const {
    const CacheEntry& ea = *a.entry;
    const CacheEntry& eb = *b.entry;
    if (ea.text_size != eb.text_size || ea.truncated || eb.truncated) return false;
    if (ea.hashed && eb.hashed && ea.text_hash != eb.text_hash) return false;
    try {
        const SkillReader& reader = storage_.reader();
        return reader.read_file(a.skill_file, settings_.max_bytes).data ==
               reader.read_file(b.skill_file, settings_.max_bytes).data;
    } catch (const std::exception&) {
        return false;
    }
}

void ParseCache::share_fresh(const std::vector<Candidate>& candidates, Merged& merged,
                             const std::shared_ptr<Discovery>& out) {
    const std::size_t n = merged.order.size();
    out->skills.resize(n);
    // Under the mutex, which every cache hit takes (process): no other discovery can take an
    // entry from the cache between the check of `taken` and the move.
    std::lock_guard lock(mutex_);
    for (std::size_t k = 0; k < n; ++k) {
        const Candidate& c = candidates[merged.kept[k]];
        const SkillManifest* from = merged.order[k].get();
        const CacheEntry* entry = c.entry.get();
        bool move = entry != nullptr && !c.from_cache && !entry->taken.get() && entry->manifest &&
                    &*entry->manifest == from && !entry->placed;
        if (move) {
            const auto it = entries_.find(c.skill_file);
            move = it != entries_.end() && it->second.get() == entry;  // not replaced by another discovery
        }
        SkillManifest& to = out->skills[k];
        if (move) {
            // The entry is this discovery's and no one else's yet; nothing reads the manifest
            // while it moves. (The const_cast: entries are built here and only read elsewhere.)
            auto& box = const_cast<ManifestBox&>(entry->manifest);  // NOLINT
            to = std::move(*box);
            box.share(std::shared_ptr<SkillManifest>(out, &to));
        } else {
            to = *from;
        }
        merged.order[k] = std::shared_ptr<const SkillManifest>(out, &to);
    }
}

void ParseCache::keep_only(const std::unordered_set<std::string_view>& live) {
    std::lock_guard lock(mutex_);
    for (auto it = entries_.begin(); it != entries_.end();) {
        it = live.count(it->first) > 0 ? std::next(it) : entries_.erase(it);
    }
}

}  // namespace agentskills::detail
