// agentskills-cpp — discovery, stage 4: merge the parsed candidates in precedence order.
#include <iterator>
#include <string>
#include <unordered_map>

#include <fmt/core.h>

#include "../confusables.hpp"
#include "../merge_rules.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "common.hpp"

namespace agentskills::detail {

namespace {

const Diagnostic* first_error(const Diagnostics& ds) {
    for (const auto& d : ds) {
        if (d.severity == Severity::error) return &d;
    }
    return nullptr;
}

bool canonical(const Candidate& c) {
    return is_canonical_name(c.manifest()->name, c.entry->name_key, c.directory_name());
}

class Merger {
public:
    Merger(const std::vector<Candidate>& candidates, const Selection& selection, DuplicateNames policy,
           const Storage& storage, const ParseCache& cache, Discovery& out)
        : candidates_(candidates),
          selection_(selection),
          policy_(policy),
          storage_(storage),
          cache_(cache),
          out_(out) {}

    Merged run(const std::optional<std::vector<std::string>>& include_names,
               const std::vector<std::string>& exclude_names);

private:
    void note(std::string_view code, Severity severity, std::string path, std::string message) {
        out_.diagnostics.push_back(Diagnostic{std::string(code), severity, std::move(path), 0, std::move(message)});
    }
    void take_diagnostics(const CacheEntry& e);
    [[nodiscard]] std::string take_skip_message(const CacheEntry& e) const;
    void choose_winners();
    void add_failed(const Candidate& c);
    void add_duplicate(const Candidate& c, std::size_t index, std::size_t winner);
    void add_kept(const Candidate& c, std::size_t index);
    void check_include(const std::vector<std::string>& names) const;
    void check_exclude(const std::vector<std::string>& names);

    const std::vector<Candidate>& candidates_;
    const Selection& selection_;
    DuplicateNames policy_;
    const Storage& storage_;
    const ParseCache& cache_;
    Discovery& out_;
    Merged merged_;
    // Views into the candidates and their cache entries, which outlive the merge.
    std::unordered_map<std::string_view, std::size_t> winners_;  // NFKC name -> kept candidate
    std::unordered_set<std::string> skipped_dir_names_;          // for the include check
    std::unordered_set<std::string> excluded_seen_;              // NFKC names an exclude left out
};

// Of several skills with one name, the first whose name is canonical wins; when none is, the
// first. A look-alike that sorts first never displaces the real skill.
void Merger::choose_winners() {
    winners_.reserve(candidates_.size());
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
        const Candidate& c = candidates_[i];
        if (!c.parsed() || !selection_.selected(c.entry->name_key)) continue;
        auto [it, added] = winners_.emplace(c.entry->name_key, i);
        if (!added && !canonical(candidates_[it->second]) && canonical(c)) it->second = i;
    }
}

// Without a cache (keep_results off) each entry is this discovery's alone, made mutable, and
// nothing reads its diagnostics or skip message after the merge: they move into the result
// instead of being copied (so the const_casts are sound).
void Merger::take_diagnostics(const CacheEntry& e) {
    if (cache_.keeps()) {
        out_.diagnostics.insert(out_.diagnostics.end(), e.diagnostics.begin(), e.diagnostics.end());
        return;
    }
    auto& ds = const_cast<Diagnostics&>(e.diagnostics);  // NOLINT
    out_.diagnostics.insert(out_.diagnostics.end(), std::make_move_iterator(ds.begin()),
                            std::make_move_iterator(ds.end()));
    Diagnostics().swap(ds);
}

std::string Merger::take_skip_message(const CacheEntry& e) const {
    if (cache_.keeps()) return e.skip_message;
    return std::move(const_cast<std::string&>(e.skip_message));  // NOLINT
}

void Merger::add_failed(const Candidate& c) {
    // Without a name, selection goes by the directory name.
    std::string dir_key = nfkc(c.directory_name());
    if (!selection_.selected(dir_key)) {
        if (!selection_.exclude.empty()) excluded_seen_.insert(std::move(dir_key));
        return;
    }
    skipped_dir_names_.insert(std::move(dir_key));
    if (c.failure) {
        note(c.failure_code().empty() ? codes::skill_unreadable : c.failure_code(), Severity::error, c.skill_file,
             std::string(c.failure_message()));
        out_.skipped.push_back(SkippedSkill{c.skill_file, *c.failure, std::string(c.failure_message())});
        return;
    }
    const CacheEntry& e = *c.entry;
    const bool has_error = first_error(e.diagnostics) != nullptr;
    take_diagnostics(e);
    if (!has_error) note(codes::skill_skipped, Severity::error, c.skill_file, e.skip_message);
    out_.skipped.push_back(
        SkippedSkill{c.skill_file, e.skip_reason.value_or(SkipReason::invalid), take_skip_message(e)});
}

void Merger::add_duplicate(const Candidate& c, std::size_t index, std::size_t winner) {
    const Candidate& kept = candidates_[winner];
    const bool same_dir = storage_.same_directory(kept.skill_dir, c.skill_dir);
    if (same_dir || cache_.same_bytes(kept, c)) {
        note(codes::duplicate_copy, Severity::info, c.skill_file,
             fmt::format("{} is the same skill as {} ({}); it counts once", c.skill_file, kept.skill_file,
                         same_dir ? "same directory" : "byte-identical SKILL.md"));
        return;
    }
    const std::string& name = c.manifest()->name;
    std::string message = winner < index ? duplicate_message(name, c.skill_file, kept.skill_file)
                                         : displaced_message(name, c.skill_file, kept.skill_file);
    if (policy_ == DuplicateNames::error) throw DiscoveryError(message);
    note(codes::duplicate_name, Severity::warning, c.skill_file, message);
    out_.skipped.push_back(SkippedSkill{c.skill_file, SkipReason::duplicate_name, std::move(message)});
}

void Merger::add_kept(const Candidate& c, std::size_t index) {
    const CacheEntry& e = *c.entry;
    take_diagnostics(e);
    if (e.placed) {
        // In the result's vector already, with this candidate's location (no cache: parsed here).
        merged_.order.emplace_back(std::shared_ptr<const SkillManifest>(), c.slot);
        merged_.kept.push_back(index);
        return;
    }
    // The cached manifest has this candidate's location, unless the same file was cached under
    // another root (a symlinked library): then a copy gets the right one.
    std::shared_ptr<const SkillManifest> manifest(c.entry, &*e.manifest);
    if (!has_location(*e.manifest, c.location())) {
        auto placed = std::make_shared<SkillManifest>(*e.manifest);
        set_location(*placed, c.location());
        manifest = std::move(placed);
    }
    merged_.order.push_back(std::move(manifest));
    merged_.kept.push_back(index);
}

void Merger::check_include(const std::vector<std::string>& names) const {
    std::vector<std::string> unknown;
    for (const auto& name : names) {
        const std::string key = nfkc(name);
        if (winners_.count(std::string_view(key)) == 0 && skipped_dir_names_.count(key) == 0) unknown.push_back(name);
    }
    if (!unknown.empty()) throw DiscoveryError(unknown_include_message(unknown));
}

// An exclude name that left nothing out is most likely a typo; unlike an unknown include name
// (which would leave the run without a skill it asked for) it costs nothing, so it is a warning.
void Merger::check_exclude(const std::vector<std::string>& names) {
    std::unordered_set<std::string> reported;
    for (const auto& name : names) {
        std::string key = nfkc(name);
        if (excluded_seen_.count(key) != 0 || !reported.insert(key).second) continue;
        note(codes::exclude_unknown, Severity::warning, "", unknown_exclude_message(name));
    }
}

Merged Merger::run(const std::optional<std::vector<std::string>>& include_names,
                   const std::vector<std::string>& exclude_names) {
    choose_winners();
    merged_.order.reserve(candidates_.size());
    merged_.kept.reserve(candidates_.size());
    const bool track_files = cache_.keeps();  // for the cache's next discovery only
    if (track_files) merged_.live_files.reserve(candidates_.size());
    for (std::size_t i = 0; i < candidates_.size(); ++i) {
        const Candidate& c = candidates_[i];
        if (!c.has_skill_file) continue;
        if (track_files) merged_.live_files.insert(c.skill_file);
        if (!c.parsed()) {
            add_failed(c);
            continue;
        }
        if (!selection_.selected(c.entry->name_key)) {
            excluded_seen_.insert(c.entry->name_key);
            continue;
        }
        const std::size_t winner = winners_.at(c.entry->name_key);
        if (winner != i) {
            add_duplicate(c, i, winner);
        } else {
            add_kept(c, i);
        }
    }
    note_confusable_names(merged_.order, out_.diagnostics);
    if (include_names) check_include(*include_names);
    if (!exclude_names.empty()) check_exclude(exclude_names);
    return std::move(merged_);
}

}  // namespace

Merged merge_candidates(const std::vector<Candidate>& candidates, const Selection& selection,
                        const std::optional<std::vector<std::string>>& include_names,
                        const std::vector<std::string>& exclude_names, DuplicateNames policy, const Storage& storage,
                        const ParseCache& cache, Discovery& out) {
    return Merger(candidates, selection, policy, storage, cache, out).run(include_names, exclude_names);
}

}  // namespace agentskills::detail
