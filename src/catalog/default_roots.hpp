// agentskills-cpp — private: the default roots of a local loader (docs/loading.md, "Libraries
// and roots" and "Other agents' folders"), computed in one place for discovery (Storage) and
// for the live catalog's watcher.
#pragma once

#include <string>
#include <vector>

#include "agentskills/catalog/loader.hpp"

namespace agentskills::detail {

/// One default root of a local loader.
struct DefaultRoot {
    std::string path;       ///< absolute and lexically normal
    bool project = false;   ///< a level of the project walk (not a user folder)
    bool standard = false;  ///< `.agents/skills` (not one of the `compat` agents' folders)
};

/// The default roots of a local loader, in precedence order: `.agents/skills` at each project
/// level (local::project_levels from `base`, or from the working directory when `base` is
/// empty) and `~/.agents/skills` (the standard ones, which
/// FilesystemLoaderOptions::include_default_roots turns on); then each agent of `compat`, its
/// project folders at each level and its user folders. User folders only when `base` is empty
/// (a reader with a base directory stands for that directory, not for the process user): below
/// $HOME when it is set, or below the directory the agent's own variable names when that is an
/// absolute path (CODEX_HOME, XDG_CONFIG_HOME, ...: docs/loading.md, "Other agents' folders").
[[nodiscard]] std::vector<DefaultRoot> default_roots(const std::string& base, const std::vector<AgentFolders>& compat);

/// Every environment variable default_roots reads: HOME, then each agent's own variables (once
/// each, in the order of its table). Tests clear them all so the machine's values cannot change
/// what they find.
[[nodiscard]] std::vector<std::string> default_root_variables();

}  // namespace agentskills::detail
