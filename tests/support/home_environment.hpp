// agentskills-cpp tests — the environment variables that choose where a local loader looks for
// skills: $HOME and the home variables of the agents `compat` knows (docs/loading.md, "Other
// agents' folders"), as the library's own table lists them (detail::default_root_variables). For
// one scope, all of them are unset, then HOME and the ones given are set; all are put back
// afterwards, so the machine's own values cannot change what a test finds.
#pragma once

#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/catalog/default_roots.hpp"

namespace agentskills_test {

class HomeEnvironment {
public:
    explicit HomeEnvironment(const std::string& home, const std::map<std::string, std::string>& set = {}) {
        for (std::string& name : agentskills::detail::default_root_variables()) {
            const char* v = std::getenv(name.c_str());
            saved_.emplace_back(std::move(name), v != nullptr ? std::optional<std::string>(v) : std::nullopt);
            ::unsetenv(saved_.back().first.c_str());
        }
        ::setenv("HOME", home.c_str(), 1);
        for (const auto& [name, value] : set) ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~HomeEnvironment() {
        for (const auto& [name, value] : saved_) {
            if (value) {
                ::setenv(name.c_str(), value->c_str(), 1);
            } else {
                ::unsetenv(name.c_str());
            }
        }
    }
    HomeEnvironment(const HomeEnvironment&) = delete;
    HomeEnvironment& operator=(const HomeEnvironment&) = delete;

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

}  // namespace agentskills_test
