// agentskills-cpp — the default roots of a local loader (default_roots.hpp).
#include "default_roots.hpp"

#include <filesystem>

#include "../storage/local_fs.hpp"

namespace agentskills::detail {
namespace {

namespace fs = std::filesystem;

// Each agent's folders, from its documentation (docs/loading.md, "Other agents' folders"):
// project folders (relative to each project level), then user folders (relative to $HOME).
// Codex's are what its own `skills/list` finds (codex 0.171.0, scripts/ci/agents.sh checks it):
// `.codex/skills` beside `.agents/skills` at each level, `~/.codex/skills` beside `~/.agents/skills`.
struct AgentFolderList {
    std::vector<const char*> project;
    std::vector<const char*> user;
};

const AgentFolderList& folders_of(AgentFolders agent) {
    static const AgentFolderList claude{{".claude/skills"}, {".claude/skills"}};
    static const AgentFolderList copilot{{".github/skills", ".claude/skills"}, {".copilot/skills", ".claude/skills"}};
    static const AgentFolderList gemini{{".gemini/skills"}, {".gemini/skills"}};
    static const AgentFolderList opencode{{".opencode/skills", ".claude/skills"},
                                          {".config/opencode/skills", ".claude/skills"}};
    static const AgentFolderList codex{{".codex/skills"}, {".codex/skills"}};
    switch (agent) {
        case AgentFolders::claude:
            return claude;
        case AgentFolders::copilot:
            return copilot;
        case AgentFolders::gemini:
            return gemini;
        case AgentFolders::opencode:
            return opencode;
        case AgentFolders::codex:
            break;
    }
    return codex;
}

}  // namespace

std::vector<DefaultRoot> default_roots(const std::string& base, const std::vector<AgentFolders>& compat) {
    std::vector<DefaultRoot> out;
    const std::vector<std::string> levels =
        local::project_levels(local::absolute_normal(".", base), SKILL_PROJECT_MAX_LEVELS);
    const std::string home = base.empty() ? local::home_directory() : std::string();
    bool standard = true;
    const auto add_project = [&](const char* folder) {
        for (const std::string& level : levels) {
            out.push_back({(fs::path(level) / folder).lexically_normal().string(), true, standard});
        }
    };
    const auto add_user = [&](const char* folder) {
        if (!home.empty()) out.push_back({(fs::path(home) / folder).lexically_normal().string(), false, standard});
    };
    add_project(".agents/skills");
    add_user(".agents/skills");
    standard = false;
    for (const AgentFolders agent : compat) {
        const AgentFolderList& list = folders_of(agent);
        for (const char* folder : list.project) add_project(folder);
        for (const char* folder : list.user) add_user(folder);
    }
    return out;
}

}  // namespace agentskills::detail
