// The CLI's MCP sources: `list --mcp-command "agentskills mcp --root L"` against `list --root L`
// in each era, the order of --root and --mcp-* deciding precedence, two servers sharing a name,
// activation through a server, and bad flags.
#if defined(AGENTSKILLS_HAVE_MCP_CLIENT)

#include <cerrno>
#include <csignal>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/prompt.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

extern char** environ;

namespace cli_mcp_tests {

using agentskills::test::run_cli;
using nlohmann::json;

namespace {

const std::string HOSTILE = std::string(AGENTSKILLS_SOURCE_DIR) + "/tests/mcp/hostile_server.py";

std::string hostile(const std::string& mode) { return "python3 \"" + HOSTILE + "\" " + mode; }

std::vector<std::string> names_of(const json& listing) {
    std::vector<std::string> out;
    for (const auto& s : listing.at("skills")) out.push_back(s.at("name").get<std::string>());
    return out;
}

json list_json(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"list", "--json"};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_cli(all);
    INFO(r.err);
    REQUIRE((r.status == 0 || r.status == 1));
    return json::parse(r.out);
}

}  // namespace

TEST_CASE("cli mcp: list through `agentskills mcp` gives the local names, each era", "[mcp][client][cli]") {
    const std::string cli = AGENTSKILLS_CLI_PATH;
    const std::string server = "\"" + cli + "\" mcp --root library";
    const json local = list_json({"--root", "library"});
    REQUIRE(names_of(local).size() >= 3);
    for (const char* era : {"auto", "2026-07-28", "2025-11-25"}) {
        INFO(era);
        const json remote = list_json({"--mcp-era", era, "--mcp-command", server});
        CHECK(names_of(remote) == names_of(local));
        for (const auto& s : remote.at("skills")) {
            CHECK(s.at("library") == "mcp:mcp1");
            CHECK(s.at("location") == "skill://" + s.at("name").get<std::string>() + "/SKILL.md");
        }
        for (const auto& d : remote.at("diagnostics")) CHECK(d.at("code") != "mcp-verification-failed");
    }
}

TEST_CASE("cli mcp: the order of --root and --mcp-command decides precedence", "[mcp][client][cli]") {
    agentskills_test::TempDir dir;
    dir.write("lib/alpha/SKILL.md", "---\nname: alpha\ndescription: The local alpha.\n---\nLocal body.\n");
    const std::string lib = dir.path("lib");

    const json local_first = list_json({"--root", lib, "--mcp-command", hostile("honest")});
    CHECK(names_of(local_first) == std::vector<std::string>{"alpha", "beta"});
    CHECK(local_first.at("skills")[0].at("description") == "The local alpha.");
    REQUIRE(local_first.at("skipped").size() == 1);
    CHECK(local_first.at("skipped")[0].at("path") == "skill://alpha/SKILL.md");
    CHECK(local_first.at("skipped")[0].at("reason") == "duplicate_name");

    const json mcp_first = list_json({"--mcp-command", hostile("honest"), "--root", lib});
    CHECK(names_of(mcp_first) == std::vector<std::string>{"alpha", "beta"});
    CHECK(mcp_first.at("skills")[0].at("description") == "The first honest skill.");
    REQUIRE(mcp_first.at("skipped").size() == 1);
    CHECK(mcp_first.at("skipped")[0].at("path") == lib + "/alpha/SKILL.md");

    // Two servers with the same skills: both kept, told apart by the server label.
    const json two = list_json({"--mcp-command", hostile("honest"), "--mcp-command", hostile("legacy")});
    CHECK(names_of(two) == std::vector<std::string>{"mcp1:alpha", "mcp1:beta", "mcp2:alpha", "mcp2:beta"});

    // include / exclude apply to the combined catalog.
    CHECK(names_of(list_json({"--mcp-command", hostile("honest"), "--exclude", "beta"})) ==
          std::vector<std::string>{"alpha"});
    CHECK(names_of(list_json({"--root", lib, "--mcp-command", hostile("honest"), "--include", "beta"})) ==
          std::vector<std::string>{"beta"});
}

TEST_CASE("cli mcp: activation through a server names skill:// URIs", "[mcp][client][cli]") {
    const auto r = run_cli({"activate", "--mcp-command", hostile("honest"), "alpha"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("<skill_content name=\"alpha\">\n# alpha\n\nAlpha body with $ARGUMENTS.\n\nSkill directory: "
                     "skill://alpha\n") != std::string::npos);
    CHECK(r.out.find("read_path=\"skill://alpha/scripts/run.sh\"") != std::string::npos);

    const auto p = run_cli({"prompt", "--mcp-command", hostile("honest")});
    INFO(p.err);
    CHECK(p.status == 0);
    CHECK(p.out.find("alpha") != std::string::npos);
    CHECK(p.out.find("The second honest skill.") != std::string::npos);
}

TEST_CASE("cli mcp: render and validate read servers too", "[mcp][client][cli]") {
    const auto r = run_cli({"render", "--mcp-command", hostile("honest"), "/alpha", "x", "y"});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.rfind(
              "<skill_content name=\"alpha\">\n# alpha\n\nAlpha body with x y.\n\nSkill directory: skill://alpha\n",
              0) == 0);
    CHECK(run_cli({"render", "--mcp-command", hostile("honest"), "gamma"}).status == 1);

    const auto v = run_cli({"validate", "--json", "--mcp-command", hostile("lies")});
    CHECK(v.status == 1);
    const json doc = json::parse(v.out);
    CHECK(doc.at("valid") == false);
    std::size_t valid = 0;
    std::size_t invalid = 0;
    for (const auto& s : doc.at("skills")) {
        (s.at("valid") == true ? valid : invalid) += 1;
        if (s.at("path") == "skill://bad-digest/SKILL.md") {
            CHECK(s.at("skip_reason") == "invalid");
            REQUIRE(s.at("diagnostics").size() == 1);
            CHECK(s.at("diagnostics")[0].at("code") == "mcp-verification-failed");
        }
    }
    CHECK(valid == 5);
    CHECK(invalid == 21);
    const auto ok = run_cli({"validate", "--mcp-command", hostile("honest")});
    CHECK(ok.status == 0);
    CHECK(ok.out == "skill://alpha: ok\nskill://beta: ok\n");  // each skill by its directory
}

TEST_CASE("cli mcp: lying skills are reported, bad flags are usage errors", "[mcp][client][cli]") {
    const json lies = list_json({"--mcp-command", hostile("lies")});
    CHECK(names_of(lies) == std::vector<std::string>{"alpha", "beta", "team-a:dup", "team-b:dup", "lying-file"});
    std::size_t refused = 0;
    for (const auto& d : lies.at("diagnostics")) refused += d.at("code") == "mcp-verification-failed" ? 1 : 0;
    CHECK(refused == 21);

    const auto gone = run_cli({"list", "--mcp-command", "/nonexistent/mcp-server"});
    CHECK(gone.err.find("mcp-server-error") != std::string::npos);
    CHECK(run_cli({"list", "--mcp-url", "ftp://x/"}).status != 0);
    CHECK(run_cli({"list", "--mcp-command", "\"unclosed"}).status != 0);
    CHECK(run_cli({"list", "--mcp-era", "2024", "--mcp-command", "x"}).status == 2);
}

TEST_CASE("cli mcp: --state needs --http and a store that opens; session flags are checked", "[mcp][cli][sessions]") {
    const auto stdio = run_cli({"mcp", "--root", "library", "--state", "/nonexistent/state.db"});
    CHECK(stdio.status == 2);
    CHECK(stdio.err.find("--state needs --http") != std::string::npos);
    // A store that cannot be opened stops the command before it listens.
    const auto bad_file =
        run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--state", "/nonexistent/dir/state.db"});
    CHECK(bad_file.status == 1);
    CHECK(bad_file.err.find("listening") == std::string::npos);
    CHECK(bad_file.err.find("/nonexistent/dir/state.db") != std::string::npos);
#if defined(AGENTSKILLS_HAVE_POSTGRES)
    const auto bad_server = run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--state",
                                     "postgresql:///none?host=/nonexistent/socket-dir&password=hunter22"});
    CHECK(bad_server.status == 1);
    CHECK(bad_server.err.find("cannot connect") != std::string::npos);
    CHECK(bad_server.err.find("hunter22") == std::string::npos);
#endif
    CHECK(run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--session-idle-timeout", "0"}).status == 2);
    CHECK(run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--max-sessions-per-client", "many"}).status ==
          2);
}

TEST_CASE("cli mcp: --max-unsent-bytes sets the HTTP server's cap on unsent answers", "[mcp][cli]") {
    const auto help = run_cli({"mcp", "--help"});
    CHECK(help.status == 0);
    CHECK(help.out.find("--max-unsent-bytes") != std::string::npos);
    CHECK(help.out.find("(0: 64 MiB)") != std::string::npos);
    CHECK(help.out.find("--max-unsent-bytes-per-client") != std::string::npos);
    CHECK(help.out.find("(0: 16 MiB)") != std::string::npos);
    CHECK(run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--max-unsent-bytes", "many"}).status == 2);
    CHECK(
        run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--max-unsent-bytes-per-client", "-1"}).status ==
        2);
}

TEST_CASE("cli mcp: every count option takes digits only; --threads at most 256", "[mcp][cli]") {
    // CLI11 alone read `-1` into a size_t as its largest value: no cap at all.
    for (const char* option :
         {"--threads", "--max-connections", "--max-connections-per-client", "--max-unsent-bytes",
          "--max-unsent-bytes-per-client", "--page-size", "--session-idle-timeout", "--max-sessions-per-client"}) {
        for (const char* value : {"-1", "+5", "1x", "99999999999999999999999"}) {
            INFO(option << " " << value);
            const auto r = run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", option, value});
            CHECK(r.status == 2);
            CHECK(r.err.find(std::string(option) + ": ") != std::string::npos);
        }
    }
    const auto many = run_cli({"mcp", "--root", "library", "--http", "127.0.0.1:0", "--threads", "257"});
    CHECK(many.status == 2);
    CHECK(many.err.find("--threads") != std::string::npos);
}

#ifdef AGENTSKILLS_HAVE_MCP
TEST_CASE("cli mcp: a client that closes the server's output ends it with status 0, not SIGPIPE", "[mcp][cli]") {
    // stdin: two requests, then end of input; stdout: a pipe whose reader is already gone.
    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    REQUIRE(::pipe(in) == 0);
    REQUIRE(::pipe(out) == 0);
    ::close(out[0]);
    const std::string requests =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    REQUIRE(::write(in[1], requests.data(), requests.size()) == static_cast<ssize_t>(requests.size()));
    ::close(in[1]);
    const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    REQUIRE(null_fd >= 0);
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    ::posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    ::posix_spawn_file_actions_adddup2(&actions, null_fd, 2);
    ::posix_spawn_file_actions_addchdir_np(&actions, AGENTSKILLS_TEST_DATA_DIR);
    // The server starts with SIGPIPE at its default action, whatever this process does with it.
    posix_spawnattr_t attr;
    ::posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    ::posix_spawnattr_setsigdefault(&attr, &defaults);
    ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    std::string program = AGENTSKILLS_CLI_PATH;
    std::vector<std::string> args = {"mcp", "--root", "library"};
    std::vector<char*> argv{program.data()};
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
    ::close(in[0]);
    ::close(out[1]);
    ::close(null_fd);
    REQUIRE(spawned == 0);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    INFO("signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0));
    CHECK(WIFEXITED(status));
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}
#endif

}  // namespace cli_mcp_tests

#endif
