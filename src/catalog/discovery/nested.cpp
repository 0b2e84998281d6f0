// agentskills-cpp — discovery, nested skills: a child directory of a root that is not a skill
// but holds skills is a group; its skills are named `group:skill` (docs/loading.md).
#include "nested.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/catalog/governance.hpp"

namespace agentskills::detail {

IgnoreRules::IgnoreRules(std::string_view text) {
    while (!text.empty()) {
        const std::size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
        // Comments, blank lines and negations (not supported: nothing is re-included).
        if (line.empty() || line.front() == '#' || line.front() == '!') continue;
        if (line.find('\0') != std::string_view::npos) continue;
        while (line.size() > 1 && line.back() == '/') line.remove_suffix(1);  // directories only: all we walk
        Rule r;
        if (line.front() == '/') {
            line.remove_prefix(1);
            r.anchored = true;
        }
        if (line.find('/') != std::string_view::npos) r.anchored = true;
        if (line.empty()) continue;
        r.pattern = std::string(line);
        rules_.push_back(std::move(r));
    }
}

bool IgnoreRules::ignored(std::string_view relative) const {
    if (rules_.empty()) return false;
    const std::string path(relative);
    const std::string name(path_basename(relative));
    for (const Rule& r : rules_) {
        if (r.anchored ? ::fnmatch(r.pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0
                       : ::fnmatch(r.pattern.c_str(), name.c_str(), 0) == 0) {
            return true;
        }
    }
    return false;
}

namespace {

bool has_skill_file(const std::vector<DirEntry>& entries) {
    return std::any_of(entries.begin(), entries.end(), [](const DirEntry& e) { return e.name == skill_file_name; });
}

class GroupWalker {
public:
    GroupWalker(const Root& root, std::size_t root_index, const Storage& storage, const NestedSettings& settings,
                Diagnostics& diagnostics)
        : root_(root), root_index_(root_index), storage_(storage), settings_(settings), diagnostics_(diagnostics) {
        read_ignore_rules();
    }

    /// The skills below the top-level directory `c` of the root (a child that is not a skill).
    void walk_top(const Candidate& c, std::vector<Candidate>& found) {
        if (c.is_symlink || !accept_group(c.dir_name, c.dir_name, c.child_dir)) return;
        std::vector<DirEntry> entries;
        if (!list(c.child_dir, entries)) return;
        visit(c.child_dir, c.dir_name, c.dir_name + SKILL_GROUP_SEPARATOR, 1, entries, found);
    }

private:
    void note(std::string_view code, Severity severity, std::string path, std::string message) {
        diagnostics_.push_back(Diagnostic{std::string(code), severity, std::move(path), 0, std::move(message)});
    }

    void read_ignore_rules() {
        const std::string path = join_path(root_.path, ".gitignore");
        try {
            ReadResult r = storage_.reader().read_file(path, SKILL_GITIGNORE_MAX_BYTES);
            if (r.truncated) {
                note(codes::nested_limit, Severity::warning, path,
                     fmt::format("{} is larger than {} bytes; its patterns are not applied to the nested walk", path,
                                 SKILL_GITIGNORE_MAX_BYTES));
                return;
            }
            IgnoreRules rules(r.data);
            if (rules.size() > SKILL_GITIGNORE_MAX_PATTERNS) {
                note(codes::nested_limit, Severity::warning, path,
                     fmt::format("{} holds more than {} patterns; its patterns are not applied to the nested walk",
                                 path, SKILL_GITIGNORE_MAX_PATTERNS));
                return;
            }
            rules_ = std::move(rules);
        } catch (const std::exception&) {
            // No .gitignore (or not readable): nothing is ignored.
        }
    }

    // Lists `dir` unless the root's directory bound is used up (then says so, once).
    bool list(const std::string& dir, std::vector<DirEntry>& out) {
        if (settings_.max_directories != 0 && listed_ >= settings_.max_directories) {
            if (!limit_reported_) {
                limit_reported_ = true;
                note(codes::nested_limit, Severity::warning, root_.path,
                     fmt::format("the nested walk of {} stopped at its limit of {} directories; skills below {} "
                                 "and the directories after it were not looked for",
                                 root_.path, settings_.max_directories, dir));
            }
            return false;
        }
        ++listed_;
        try {
            out = storage_.reader().list_dir(dir);
        } catch (const std::exception& e) {
            note(codes::skill_unreadable, Severity::warning, dir,
                 fmt::format("cannot list {} in the nested walk: {}", dir, model_text(e.what())));
            return false;
        }
        std::sort(out.begin(), out.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
        return true;
    }

    // Whether the walk may look into the directory `relative` (named `name`) at all.
    [[nodiscard]] bool visible(std::string_view name, std::string_view relative) const {
        return is_plain_entry_name(name) && name.front() != '.' && !rules_.ignored(relative);
    }

    // Whether a directory that is not a skill may be a group (its name obeys the name rules).
    bool accept_group(std::string_view name, std::string_view relative, const std::string& path) {
        if (!visible(name, relative)) return false;
        if (!is_valid_skill_name(name)) {
            note(codes::nested_group_refused, Severity::warning, path,
                 fmt::format("{} holds no SKILL.md and its name '{}' breaks the skill name rules, so it is not "
                             "searched for nested skills",
                             path, model_text(name)));
            return false;
        }
        return true;
    }

    void visit(const std::string& dir, const std::string& relative, const std::string& prefix, std::size_t level,
               const std::vector<DirEntry>& entries, std::vector<Candidate>& found) {
        for (const DirEntry& e : entries) {
            if (e.kind != EntryKind::directory) continue;
            const std::string rel = relative + "/" + e.name;
            if (!visible(e.name, rel)) continue;
            const std::string path = join_path(dir, e.name);
            std::vector<DirEntry> below;
            if (!list(path, below)) {
                if (limit_reported_) return;
                continue;
            }
            if (has_skill_file(below)) {
                Candidate c;
                c.root_index = root_index_;
                c.library = root_.path;
                c.child_dir = path;
                c.dir_name = e.name;
                c.is_symlink = e.is_symlink;
                prefixes_.push_back(prefix);
                found.push_back(std::move(c));
                continue;
            }
            if (e.is_symlink) continue;  // a linked directory is followed only as a skill
            if (level >= settings_.depth) {
                note(codes::nested_limit, Severity::info, path,
                     fmt::format("{} is {} group levels deep, past the nested depth of {}; it is not searched", path,
                                 level + 1, settings_.depth));
                continue;
            }
            if (!accept_group(e.name, rel, path)) continue;
            visit(path, rel, prefix + e.name + SKILL_GROUP_SEPARATOR, level + 1, below, found);
            if (limit_reported_) return;
        }
    }

public:
    std::vector<std::string> prefixes_;  // the group prefix of each found candidate, in order

private:
    const Root& root_;
    std::size_t root_index_;
    const Storage& storage_;
    const NestedSettings& settings_;
    Diagnostics& diagnostics_;
    IgnoreRules rules_;
    std::size_t listed_ = 0;
    bool limit_reported_ = false;
};

}  // namespace

void prefix_candidate(Candidate& c, const std::string& prefix) {
    if (c.entry && c.entry->manifest) {
        auto renamed = std::make_shared<CacheEntry>(*c.entry);
        // What a parse of the file again (lazy bodies, or load() without keep_results) checks the
        // name the file gives against: the prefixes (a plugin's before a group's), then the
        // directory's name, which an entry that is not lazy did not keep.
        if (renamed->dir_name.empty()) renamed->dir_name = c.dir_name;
        renamed->dir_name.insert(0, prefix);
        renamed->name_prefix_size += static_cast<std::uint32_t>(prefix.size());
        renamed->manifest->name = prefix + renamed->manifest->name;
        renamed->name_key = nfkc(renamed->manifest->name);
        c.entry = std::move(renamed);
    }
    c.dir_name = prefix + c.dir_name;
}

void expand_groups(std::vector<Candidate>& candidates, const std::vector<Root>& roots, const Storage& storage,
                   ParseCache& cache, const NestedSettings& settings, Threads threads, Diagnostics& diagnostics) {
    if (settings.depth == 0) return;
    std::vector<Candidate> out;
    out.reserve(candidates.size());
    std::size_t current_root = SIZE_MAX;
    std::unique_ptr<GroupWalker> walker;
    for (Candidate& c : candidates) {
        const bool group = !c.has_skill_file && !c.failure;
        if (!group) {
            out.push_back(std::move(c));
            continue;
        }
        if (!walker || c.root_index != current_root) {
            current_root = c.root_index;
            walker = std::make_unique<GroupWalker>(roots[c.root_index], c.root_index, storage, settings, diagnostics);
        }
        std::vector<Candidate> found;
        walker->prefixes_.clear();
        walker->walk_top(c, found);
        out.push_back(std::move(c));
        if (found.empty()) continue;
        parallel_for(found.size(), threads, files_per_thread, [&](std::size_t i) { cache.process(found[i]); });
        for (std::size_t i = 0; i < found.size(); ++i) {
            prefix_candidate(found[i], walker->prefixes_[i]);
            out.push_back(std::move(found[i]));
        }
    }
    candidates = std::move(out);
}

}  // namespace agentskills::detail
