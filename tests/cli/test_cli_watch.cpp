// Tests of `agentskills watch` (they run the built program and read its lines as they come).
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_watch_tests {

using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;
using nlohmann::json;

namespace {

/// The program with `args`, its standard output read line by line while it runs.
class Watch {
public:
    explicit Watch(const std::string& args) {
        std::string command = "exec '";  // appended, not `+`: GCC 12 draws a false -Warray-bounds
        command.append(AGENTSKILLS_CLI_PATH).append("' ").append(args);
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
    Watch w("watch --json --root '" + t.path("lib") + "' --throttle-ms 200 --max-events 2 --timeout-ms 30000");
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
    CHECK(keys == std::vector<std::string>{"added", "changed", "diagnostics", "files", "generation", "previous",
                                           "removed", "schema"});
    CHECK(j1.at("schema") == 1);

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

TEST_CASE("watch: the largest --timeout-ms does not end it at once", "[cli][watch]") {
    // 9223372036854775807 ms as the clock's nanoseconds overflowed to -1 ms: the timeout had
    // passed before it began, and the program ended after its first line (and its first 50 ms
    // wait for the event limit: a throttle longer than that keeps the edit out of it).
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    Watch w("watch --root '" + t.path("lib") +
            "' --throttle-ms 300 --timeout-ms 9223372036854775807 --max-events 2 2>/dev/null");
    REQUIRE(w.started());
    CHECK(w.line() == std::optional<std::string>("generation 1: added alpha"));
    std::filesystem::remove_all(t.path("lib/alpha"));
    CHECK(w.line() == std::optional<std::string>("generation 2: removed alpha"));
    CHECK(w.close() == 0);
}

TEST_CASE("watch: SIGTERM after the first line stops it with status 0", "[cli][watch]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    // The shell prints the program's pid on a line of its own, then its status when it ended.
    Watch w("watch --json --root '" + t.path("lib") + "' --timeout-ms 30000 & echo $!; wait $!; echo status=$?");
    REQUIRE(w.started());
    long pid = 0;
    bool first_line = false;
    while (pid == 0 || !first_line) {
        const auto line = w.line();
        REQUIRE(line.has_value());
        if (!line->empty() && line->front() == '{') {
            CHECK(json::parse(*line).at("added") == json::array({"alpha"}));
            first_line = true;
        } else {
            pid = std::stol(*line);
        }
    }
    REQUIRE(::kill(static_cast<pid_t>(pid), SIGTERM) == 0);
    CHECK(w.line() == std::optional<std::string>("status=0"));
    CHECK(w.close() == 0);
}

#ifdef AGENTSKILLS_HAVE_MCP
namespace {

/// A line from `fd` within `timeout` (without '\n'), or nullopt at the end or past the deadline.
std::optional<std::string> read_line(int fd, std::string& pending, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
        const std::size_t nl = pending.find('\n');
        if (nl != std::string::npos) {
            std::string line = pending.substr(0, nl);
            pending.erase(0, nl + 1);
            return line;
        }
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return std::nullopt;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
        char buf[4096];
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) return std::nullopt;
        pending.append(buf, static_cast<std::size_t>(n));
    }
}

/// `agentskills ARGS...` with its standard input and output on pipes (standard error to
/// /dev/null): lines in, lines out. finish() ends its input and returns its exit status.
class StdioServer {
public:
    explicit StdioServer(std::vector<std::string> args) {
        int to_server[2];
        int from_server[2];
        REQUIRE(::pipe(to_server) == 0);
        REQUIRE(::pipe(from_server) == 0);
        std::vector<char*> argv{const_cast<char*>(AGENTSKILLS_CLI_PATH)};
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::dup2(to_server[0], 0);
            ::dup2(from_server[1], 1);
            const int null = ::open("/dev/null", O_WRONLY);
            ::dup2(null, 2);
            ::close(to_server[1]);
            ::close(from_server[0]);
            ::execv(AGENTSKILLS_CLI_PATH, argv.data());
            ::_exit(127);
        }
        ::close(to_server[0]);
        ::close(from_server[1]);
        in_ = to_server[1];
        out_ = from_server[0];
    }
    ~StdioServer() {
        if (pid_ <= 0) return;  // finished
        ::close(in_);
        ::kill(pid_, SIGKILL);
        (void)::waitpid(pid_, nullptr, 0);
        ::close(out_);
    }
    StdioServer(const StdioServer&) = delete;
    StdioServer& operator=(const StdioServer&) = delete;

    void send(const std::string& line) {
        const std::string text = line + "\n";
        REQUIRE(::write(in_, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    }
    /// The next message, parsed; fails the test after 20 s without one.
    json receive() {
        const auto line = read_line(out_, pending_, std::chrono::seconds(20));
        REQUIRE(line.has_value());
        return json::parse(*line);
    }
    /// Sends a request and returns its `result`, skipping notifications sent before it.
    json call(int id, const std::string& method, const json& params = json::object()) {
        send(json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump());
        for (;;) {
            json j = receive();
            if (j.contains("id")) {
                CHECK(j.at("id") == id);
                return j.at("result");
            }
        }
    }
    /// Ends the server's input (it exits) and waits: its status as waitpid gives it.
    int finish() {
        ::close(in_);
        int status = 0;
        REQUIRE(::waitpid(pid_, &status, 0) == pid_);
        pid_ = -1;
        ::close(out_);
        return status;
    }

private:
    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    std::string pending_;
};

const json INITIALIZE = {{"protocolVersion", "2025-11-25"},
                         {"capabilities", json::object()},
                         {"clientInfo", {{"name", "test"}, {"version", "1"}}}};

}  // namespace

TEST_CASE("mcp --watch: an edit swaps the catalog and sends notifications/resources/list_changed",
          "[cli][watch][mcp]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha."));
    StdioServer server({"mcp", "--watch", "--root", t.path("lib")});
    (void)server.call(1, "initialize", INITIALIZE);
    server.send(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    (void)server.call(2, "ping");

    t.write("lib/beta/SKILL.md", skill_md("beta", "Beta."));
    std::optional<json> notification;
    while (!notification) {
        const json j = server.receive();
        if (j.value("method", "") == "notifications/resources/list_changed") notification = j;
    }
    CHECK(*notification == json{{"jsonrpc", "2.0"}, {"method", "notifications/resources/list_changed"}});
    CHECK(server.call(3, "resources/list").dump().find("beta") != std::string::npos);

    // An edit of a body alone (same name and description) is a change too.
    const std::string before = server.call(4, "skills/get", {{"uri", "skill://alpha/SKILL.md"}}).dump();
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha.", "A new body, longer than the first."));
    notification.reset();
    while (!notification) {
        const json j = server.receive();
        if (j.value("method", "") == "notifications/resources/list_changed") notification = j;
    }
    const json after = server.call(5, "skills/get", {{"uri", "skill://alpha/SKILL.md"}});
    CHECK(after.dump() != before);
    CHECK(server.call(6, "resources/read", {{"uri", "skill://alpha/SKILL.md"}}).at("contents").at(0).at("text") ==
          skill_md("alpha", "Alpha.", "A new body, longer than the first."));
    const int status = server.finish();
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("mcp: a SKILL.md rewritten while served: tools/call and resources/read both give the new text",
          "[cli][mcp]") {
    TempDir t;
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha.", "Old body."));
    StdioServer server({"mcp", "--root", t.path("lib")});
    (void)server.call(1, "initialize", INITIALIZE);
    const std::string uri = "skill://alpha/SKILL.md";
    CHECK(server.call(2, "resources/read", {{"uri", uri}}).at("contents").at(0).at("text") ==
          skill_md("alpha", "Alpha.", "Old body."));

    // Served, then rewritten under the same name (a larger file, so that the change is seen
    // whatever the file system's time stamps).
    t.write("lib/alpha/SKILL.md", skill_md("alpha", "Alpha.", "New body, longer than the old one."));
    const json read = server.call(3, "resources/read", {{"uri", uri}});
    CHECK(read.at("contents").at(0).at("text") == skill_md("alpha", "Alpha.", "New body, longer than the old one."));
    const json activated =
        server.call(4, "tools/call", {{"name", "activate_skill"}, {"arguments", {{"name", "alpha"}}}});
    CHECK(activated.at("isError") == false);
    const std::string text = activated.at("content").at(0).at("text").get<std::string>();
    CHECK(text.find("New body, longer than the old one.") != std::string::npos);
    CHECK(text.find("Old body.") == std::string::npos);
    const int status = server.finish();
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}
#endif

}  // namespace cli_watch_tests
