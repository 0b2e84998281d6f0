// agentskills-cpp tests — a loader of two skills ("alpha", "beta") whose load() waits `delay`
// and fails its first `fail_first` calls: what the activation stores' tests (SQLite, PostgreSQL)
// race and roll back against. `activation_arguments` is the activation tool's JSON for a name.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>

namespace agentskills_test {

class DelayLoader final : public agentskills::SkillLoader {
public:
    agentskills::Discovery discover() override {
        agentskills::Discovery d;
        for (const char* n : {"alpha", "beta"}) {
            agentskills::SkillManifest m;
            m.name = n;
            m.description = "d";
            m.root = std::string("lib/") + n;
            m.skill_file = m.root + "/SKILL.md";
            d.skills.push_back(m);
        }
        return d;
    }
    agentskills::LoadedSkill load(std::string_view name) override {
        const int n = ++loads;
        std::this_thread::sleep_for(delay);
        if (n <= fail_first) throw agentskills::IoError("storage offline");
        agentskills::LoadedSkill s;
        for (auto& m : discover().skills) {
            if (agentskills::names_equal(m.name, name)) s.manifest = m;
        }
        s.instructions = "Body of " + std::string(name) + ".";
        return s;
    }
    std::atomic<int> loads{0};
    std::chrono::milliseconds delay{0};
    int fail_first = 0;
};

inline std::string activation_arguments(std::string_view name) {
    return std::string(R"({"name":")") + std::string(name) + "\"}";
}

}  // namespace agentskills_test
