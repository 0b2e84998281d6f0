// agentskills-cpp tests — the environment variables that choose where a local loader looks for
// skills: $HOME and the home variables of the agents `compat` knows (docs/loading.md, "Other
// agents' folders"). For one scope, all of them are unset, then HOME and the ones given are set;
// all are put back afterwards, so the machine's own values cannot change what a test finds.
#pragma once

#include <array>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>

namespace agentskills_test {

class HomeEnvironment {
public:
    static constexpr std::array<const char*, 7> variables = {
        "HOME",      "CLAUDE_CONFIG_DIR", "COPILOT_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME", "OPENCODE_CONFIG_DIR",
        "CODEX_HOME"};

    explicit HomeEnvironment(const std::string& home, const std::map<std::string, std::string>& set = {}) {
        for (std::size_t i = 0; i < variables.size(); ++i) {
            if (const char* v = std::getenv(variables[i])) saved_[i] = v;
            ::unsetenv(variables[i]);
        }
        ::setenv("HOME", home.c_str(), 1);
        for (const auto& [name, value] : set) ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~HomeEnvironment() {
        for (std::size_t i = 0; i < variables.size(); ++i) {
            if (saved_[i]) {
                ::setenv(variables[i], saved_[i]->c_str(), 1);
            } else {
                ::unsetenv(variables[i]);
            }
        }
    }
    HomeEnvironment(const HomeEnvironment&) = delete;
    HomeEnvironment& operator=(const HomeEnvironment&) = delete;

private:
    std::array<std::optional<std::string>, variables.size()> saved_;
};

}  // namespace agentskills_test
