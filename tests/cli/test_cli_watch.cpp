// Tests of `agentskills watch` (they run the built program and read its lines as they come).
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "../cli_runner.hpp"
#include "../fs_fixtures.hpp"

using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;
using nlohmann::json;

namespace {

/// The program with `args`, its standard output read line by line while it runs.
class Watch {
public:
    explicit Watch(const std::string& args) {
        const std::string command = std::string("exec '") + AGENTSKILLS_CLI_PATH + "' " + args;
        pipe_ = ::popen(command.c_str(), "r");
    }
    ~Watch() {
        if (pipe_ != nullptr) (void)::pclose(pipe_);
    }
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

    /// The next line (without '\n'), or nullopt at the end of the output.
    std::optional<std::string> line() {
        std::string out;
        int c = 0;
        while ((c = std::fgetc(pipe_)) != EOF) {
            if (c == '\n') return out;
            out += static_cast<char>(c);
        }
        if (out.empty()) return std::nullopt;
        return out;
    }
    /// Waits for the exit; its status.
    int close() {
        const int status = ::pclose(pipe_);
        pipe_ = nullptr;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    [[nodiscard]] bool started() const noexcept { return pipe_ != nullptr; }

private:
    FILE* pipe_ = nullptr;
};

}  // namespace

TEST_CASE("watch --json: the first line, then one object per change set", "[cli][watch]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    t.write("lib/broken/SKILL.md", "---\nname: broken\n");
    Watch w("watch --json --root '" + t.path("lib") + "' --throttle-ms 20 --max-events 2 --timeout-ms 30000");
    REQUIRE(w.started());
    const auto first = w.line();
    REQUIRE(first.has_value());
    const json j1 = json::parse(*first);
    const std::string broken = t.path("lib/broken/SKILL.md");
    CHECK(j1.at("generation") == 1);
    CHECK(j1.at("previous") == 0);
    CHECK(j1.at("added") == json::array({"alpha"}));
    CHECK(j1.at("changed") == json::array());
    CHECK(j1.at("removed") == json::array());
    CHECK(j1.at("files") == json::array({t.path("lib/alpha/SKILL.md"), broken}));
    REQUIRE(j1.at("diagnostics").size() == 1);
    CHECK(j1["diagnostics"][0] == json{{"code", "frontmatter-unclosed"},
                                       {"line", 1},
                                       {"message", j1["diagnostics"][0]["message"]},
                                       {"path", broken},
                                       {"severity", "error"}});
    std::vector<std::string> keys;
    for (const auto& [k, v] : j1.items()) keys.push_back(k);
    CHECK(keys ==
          std::vector<std::string>{"added", "changed", "diagnostics", "files", "generation", "previous", "removed"});

    // The watcher is armed once the first line is out: fix the broken skill, edit alpha.
    t.write("lib/broken/SKILL.md", skill_md("broken", "Fixed."));
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha, edited."));
    const auto second = w.line();
    REQUIRE(second.has_value());
    const json j2 = json::parse(*second);
    CHECK(j2.at("generation") == 2);
    CHECK(j2.at("previous") == 1);
    // Both edits usually land in one window; the second may come in its own.
    const bool both = j2.at("added") == json::array({"broken"}) && j2.at("changed") == json::array({"alpha"});
    const bool one = j2.at("added") == json::array({"broken"}) || j2.at("changed") == json::array({"alpha"});
    CHECK((both || one));
    CHECK(j2.at("removed") == json::array());
    CHECK(j2.at("diagnostics") == json::array());
    CHECK_FALSE(w.line().has_value());
    CHECK(w.close() == 0);
}

TEST_CASE("watch: text lines, and --timeout-ms ends it", "[cli][watch]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    Watch w("watch --root '" + t.path("lib") + "' --throttle-ms 20 --timeout-ms 30000 --max-events 2 2>/dev/null");
    REQUIRE(w.started());
    CHECK(w.line() == std::optional<std::string>("generation 1: added alpha"));
    std::filesystem::remove_all(t.path("lib/alpha"));
    CHECK(w.line() == std::optional<std::string>("generation 2: removed alpha"));
    CHECK(w.close() == 0);

    auto r = run_cli({"watch", "--root", t.path("lib"), "--timeout-ms", "50"});
    CHECK(r.status == 0);
    CHECK(r.out == "generation 1: no skill added, changed or removed\n");
    auto bad = run_cli({"watch", "--root", t.path("lib"), "--timeout-ms", "-5"});
    CHECK(bad.status == 2);
}
