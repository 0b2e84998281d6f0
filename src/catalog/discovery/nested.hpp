// agentskills-cpp — private: nested discovery (groups of skills below a root), run after the
// parse of the roots' children when FilesystemLoaderOptions::nested_depth > 0.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common.hpp"

namespace agentskills::detail {

struct NestedSettings {
    std::size_t depth = 0;            // most group levels
    std::size_t max_directories = 0;  // directories listed per root, at most (0 = no bound)
};

/// The patterns of a root's `.gitignore`, in the documented subset (docs/loading.md).
class IgnoreRules {
public:
    /// Reads the rules from the text of a .gitignore.
    explicit IgnoreRules(std::string_view text);
    IgnoreRules() = default;
    /// How many patterns it holds (comments, blank lines and negations are not patterns).
    [[nodiscard]] std::size_t size() const noexcept { return rules_.size(); }
    /// Whether the directory `relative` ('/'-separated, below the root) is ignored.
    [[nodiscard]] bool ignored(std::string_view relative) const;

private:
    struct Rule {
        std::string pattern;
        bool anchored = false;  // matched against the whole relative path
    };
    std::vector<Rule> rules_;
};

/// The candidate under a prefixed name (`group:` or `plugin:`, ending in SKILL_GROUP_SEPARATOR):
/// its directory name and parsed name get `prefix` in front, and a lazy entry remembers it
/// (CacheEntry::name_prefix_size) so that a reparse checks the file's own name. The one renaming
/// of discovery: nested groups and Claude Code plugins both name their skills through it.
void prefix_candidate(Candidate& c, const std::string& prefix);

/// Walks the child directories of the roots that are not skills (groups) and inserts, after
/// each group's candidate, a parsed candidate for every skill found below it, named
/// `group:skill` (dir_name is the prefixed name). Bounds and refusals become diagnostics.
void expand_groups(std::vector<Candidate>& candidates, const std::vector<Root>& roots, const Storage& storage,
                   ParseCache& cache, const NestedSettings& settings, Threads threads, Diagnostics& diagnostics);

}  // namespace agentskills::detail
