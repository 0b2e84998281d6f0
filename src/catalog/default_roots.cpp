// agentskills-cpp — the default roots of a local loader (default_roots.hpp).
#include "default_roots.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "agentskills/catalog/policy_words.hpp"

#include "../storage/local_fs.hpp"

namespace agentskills::detail {
namespace {

namespace fs = std::filesystem;

// Each agent's folders, from its documentation and from what the agent itself lists
// (docs/loading.md, "Other agents' folders"; scripts/ci/agents.sh compares them with Codex,
// Gemini CLI, OpenCode and the GitHub Copilot CLI on every CI run): project folders (relative to
// each project level), then user folders.
//
// A user folder is below the directory an environment variable of the agent names when that is
// set to an absolute path (CODEX_HOME, COPILOT_HOME, ...: the agent then reads it instead of its
// folder in the home directory), else below $HOME; `below_home` null: only when the variable is
// set (OpenCode's OPENCODE_CONFIG_DIR adds a folder; Gemini CLI reads `.agents/skills` below
// GEMINI_CLI_HOME, and below $HOME that folder is a standard root already).
struct UserFolder {
    const char* variable;  ///< nullptr: always below $HOME
    const char* below_variable;
    const char* below_home;  ///< nullptr: nothing without the variable
};

struct AgentFolderList {
    std::vector<const char*> project;
    std::vector<UserFolder> user;
};

const AgentFolderList& folders_of(AgentFolders agent) {
    static const AgentFolderList claude{{".claude/skills"}, {{"CLAUDE_CONFIG_DIR", "skills", ".claude/skills"}}};
    static const AgentFolderList copilot{
        {".github/skills", ".claude/skills"},
        {{"COPILOT_HOME", "skills", ".copilot/skills"}, {nullptr, nullptr, ".claude/skills"}}};
    static const AgentFolderList gemini{
        {".gemini/skills"},
        {{"GEMINI_CLI_HOME", ".gemini/skills", ".gemini/skills"}, {"GEMINI_CLI_HOME", ".agents/skills", nullptr}}};
    static const AgentFolderList opencode{{".opencode/skills", ".opencode/skill", ".claude/skills"},
                                          {{"XDG_CONFIG_HOME", "opencode/skills", ".config/opencode/skills"},
                                           {"XDG_CONFIG_HOME", "opencode/skill", ".config/opencode/skill"},
                                           {"OPENCODE_CONFIG_DIR", "skills", nullptr},
                                           {"OPENCODE_CONFIG_DIR", "skill", nullptr},
                                           {nullptr, nullptr, ".claude/skills"}}};
    static const AgentFolderList codex{{".codex/skills"}, {{"CODEX_HOME", "skills", ".codex/skills"}}};
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

/// The directory an environment variable names: its value when that is an absolute path
/// (lexically normal), else nothing (unset, empty or relative: ignored, as the XDG Base
/// Directory specification says of its variables).
std::string directory_from(const char* variable) {
    const char* value = std::getenv(variable);
    if (value == nullptr || value[0] != '/') return {};
    return local::absolute_normal(value);
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
    const auto add_agent_user = [&](const UserFolder& folder) {
        const std::string named = folder.variable != nullptr && base.empty() ? directory_from(folder.variable) : "";
        if (!named.empty()) {
            out.push_back({(fs::path(named) / folder.below_variable).lexically_normal().string(), false, standard});
        } else if (folder.below_home != nullptr) {
            add_user(folder.below_home);
        }
    };
    add_project(".agents/skills");
    add_user(".agents/skills");
    standard = false;
    for (const AgentFolders agent : compat) {
        const AgentFolderList& list = folders_of(agent);
        for (const char* folder : list.project) add_project(folder);
        for (const UserFolder& folder : list.user) add_agent_user(folder);
    }
    return out;
}

std::vector<std::string> default_root_variables() {
    std::vector<std::string> out{"HOME"};
    for (const auto& word : policy_words<AgentFolders>) {
        for (const UserFolder& folder : folders_of(word.value).user) {
            if (folder.variable != nullptr && std::find(out.begin(), out.end(), folder.variable) == out.end()) {
                out.emplace_back(folder.variable);
            }
        }
    }
    return out;
}

}  // namespace agentskills::detail
