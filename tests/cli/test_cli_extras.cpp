// Tests of the optional components' program (cli/extras.hpp): `agentskills` links none of the
// optional libraries, the commands that need none work without `agentskills-extras`, those that
// need it run it, and say so when it is missing.
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_extras_tests {

using agentskills::test::run_cli;
using agentskills::test::run_program;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

// What `readelf -d` says the file needs (its NEEDED entries, one per line).
std::string needed_libraries(const std::string& file) {
    const std::string command = "readelf -d '" + file + "' 2>/dev/null";
    std::FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe) != nullptr) {
        const std::string line = buf;
        if (line.find("(NEEDED)") != std::string::npos) out += line;
    }
    REQUIRE(::pclose(pipe) == 0);
    return out;
}

bool built_with_extras() {
    return std::filesystem::exists(std::filesystem::path(AGENTSKILLS_CLI_PATH).parent_path() / "agentskills-extras");
}

// The program and the named helpers (hard links, else copies) in a directory of their own.
std::string program_with(const TempDir& dir, const std::vector<std::string>& helpers) {
    const std::filesystem::path from = std::filesystem::path(AGENTSKILLS_CLI_PATH).parent_path();
    std::filesystem::create_directories(dir.path("bin"));
    std::vector<std::string> files = helpers;
    files.push_back(std::filesystem::path(AGENTSKILLS_CLI_PATH).filename().string());
    for (const std::string& f : files) {
        std::error_code ec;
        std::filesystem::create_hard_link(from / f, dir.path("bin/" + f), ec);
        if (ec) std::filesystem::copy_file(from / f, dir.path("bin/" + f));
    }
    return dir.path("bin/agentskills");
}

// A copy of the program in a directory of its own, where no helper is.
std::string lone_program(const TempDir& dir) {
    const std::string copy = dir.path("bin/agentskills");
    std::filesystem::create_directories(dir.path("bin"));
    std::filesystem::copy_file(AGENTSKILLS_CLI_PATH, copy);
    ::chmod(copy.c_str(), 0755);
    return copy;
}

}  // namespace

TEST_CASE("extras: the program links only the core's libraries; agentskills-extras the optional ones",
          "[cli][extras]") {
    const std::string program = needed_libraries(AGENTSKILLS_CLI_PATH);
    REQUIRE(program.find("libstdc++") != std::string::npos);  // readelf read it
    for (const char* lib : {"libcpp-httplib", "libssl", "libcrypto", "libgit2", "libzip", "libsqlite3"}) {
        CAPTURE(lib);
        CHECK(program.find(lib) == std::string::npos);
    }
    if (!built_with_extras()) return;  // a build without any optional component has no helper
    const std::filesystem::path bin = std::filesystem::path(AGENTSKILLS_CLI_PATH).parent_path();
    const std::string module = needed_libraries((bin / "agentskills-extras").string());
#ifdef AGENTSKILLS_HAVE_MCP
    // One HTTP engine, Boost.Beast (headers only), for the MCP server and client; libcrypto for
    // the digests. No cpp-httplib and no libssl.
    CHECK(module.find("libcrypto") != std::string::npos);
    CHECK(module.find("libcpp-httplib") == std::string::npos);
    CHECK(module.find("libssl") == std::string::npos);
#endif
#ifdef AGENTSKILLS_HAVE_ARCHIVE
    CHECK(module.find("libzip") != std::string::npos);
#endif
    // libgit2 and libpq (and the libraries they load in turn) are agentskills-extras-full's only.
    CHECK(module.find("libgit2") == std::string::npos);
    CHECK(module.find("libpq") == std::string::npos);
#if defined(AGENTSKILLS_HAVE_GIT) || defined(AGENTSKILLS_HAVE_POSTGRES)
    const std::string full = needed_libraries((bin / "agentskills-extras-full").string());
#ifdef AGENTSKILLS_HAVE_GIT
    CHECK(full.find("libgit2") != std::string::npos);
#endif
#ifdef AGENTSKILLS_HAVE_POSTGRES
    CHECK(full.find("libpq") != std::string::npos);
#endif
#ifdef AGENTSKILLS_HAVE_ARCHIVE
    CHECK(full.find("libzip") != std::string::npos);
#endif
#ifdef AGENTSKILLS_HAVE_MCP
    CHECK(full.find("libcrypto") != std::string::npos);
    CHECK(full.find("libssl") == std::string::npos);
#endif
#endif
}

TEST_CASE("extras: without agentskills-extras, local commands work and the others name what is missing",
          "[cli][extras]") {
    if (!built_with_extras()) return;
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "First skill."));
    dir.write("lib/beta/SKILL.md", skill_md("beta", "Second skill."));
    const std::string program = lone_program(dir);
    const std::string lib = dir.path("lib");

    const auto with = run_cli({"list", "--json", "--root", lib});
    const auto without = run_program(program, {"list", "--json", "--root", lib});
    CHECK(without.status == 0);
    CHECK(without.out == with.out);
    CHECK(without.err == with.err);
    const auto prompt = run_program(program, {"to-prompt", "--root", lib});
    CHECK(prompt.status == 0);
    CHECK(prompt.out == run_cli({"to-prompt", "--root", lib}).out);

    const std::string missing = "needs the program agentskills-extras, which could not be run: " + dir.path("bin") +
                                "/agentskills-extras (not found); ";
#ifdef AGENTSKILLS_HAVE_LOCK
    const auto lock = run_program(program, {"lock", "--root", lib});
    CHECK(lock.status == 2);
    CHECK(lock.out.empty());
    CHECK(lock.err.rfind("agentskills lock: error: the lock command " + missing, 0) == 0);
    const auto locked = run_program(program, {"list", "--root", lib, "--lock", dir.path("agentskills-lock.json")});
    CHECK(locked.status == 2);
    CHECK(locked.err.find("--lock " + missing) != std::string::npos);
#endif
#ifdef AGENTSKILLS_HAVE_GIT
    const auto git = run_program(program, {"list", "--root", "git:" + dir.path("repo") + "@main"});
    CHECK(git.status == 2);
    CHECK(git.err.find("a git: root needs the program agentskills-extras-full, which could not be run: " +
                       dir.path("bin") + "/agentskills-extras-full (not found); ") != std::string::npos);
#endif
#ifdef AGENTSKILLS_HAVE_MCP
    const auto mcp = run_program(program, {"mcp", "--root", lib});
    CHECK(mcp.status == 2);
    CHECK(mcp.err.rfind("agentskills mcp: error: the mcp command " + missing, 0) == 0);
    const auto source = run_program(program, {"list", "--mcp-command", "no-such-server"});
    CHECK(source.status == 2);
    CHECK(source.err.find("--mcp-command " + missing) != std::string::npos);
#endif
}

TEST_CASE("extras: a command line that needs a component runs agentskills-extras in its place", "[cli][extras]") {
    if (!built_with_extras()) return;
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "First skill."));
    const std::string helper =
        (std::filesystem::path(AGENTSKILLS_CLI_PATH).parent_path() / "agentskills-extras").string();
#ifdef AGENTSKILLS_HAVE_LOCK
    // The same bytes as the helper run directly: the program ran it with the same arguments.
    const auto through = run_cli({"lock", "--root", dir.path("lib")});
    const auto direct = run_program(helper, {"lock", "--root", dir.path("lib")});
    CHECK(through.status == 0);
    CHECK(through.out == direct.out);
    CHECK(through.out.find("\"name\": \"alpha\"") != std::string::npos);
#endif
    // A command that needs no component never runs it: the helper gone, the output stays.
    const auto list = run_cli({"list", "--root", dir.path("lib")});
    CHECK(list.status == 0);
    CHECK(list.out == "alpha\t" + dir.path("lib") + "/alpha/SKILL.md\n");
}

TEST_CASE("extras: a large library restarts the program with its heap on huge pages, and nothing it prints changes",
          "[cli][extras]") {
    // Past huge_pages_min_entries (cli/extras.hpp: 4,096) entries in its roots, a discovering
    // command runs the program again in place (where transparent huge pages are "madvise", as on
    // the machines CI runs on); with the user's own GLIBC_TUNABLES it never does. Either way the
    // output, the notes on standard error (once each) and the exit status are the same.
    TempDir dir;
    for (int i = 0; i < 4100; ++i) dir.mkdir("lib/empty-" + std::to_string(i));
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "First skill."));
    dir.write("lib/beta/SKILL.md", skill_md("beta", "Second skill."));
    dir.write("lib/gamma/SKILL.md", "---\nname: gamma\n---\nNo description: skipped.\n");
    const std::string lib = dir.path("lib");
    for (const std::vector<std::string>& command : {std::vector<std::string>{"to-prompt", "--root", lib},
                                                    {"prompt", "--root", lib},
                                                    {"list", "--root", lib},
                                                    {"list", "--json", "--root", lib},
                                                    {"activate", "--root", lib, "beta"}}) {
        std::vector<std::string> restarted = {"-u", "GLIBC_TUNABLES", AGENTSKILLS_CLI_PATH};
        std::vector<std::string> kept = {"GLIBC_TUNABLES=glibc.malloc.check=0", AGENTSKILLS_CLI_PATH};
        restarted.insert(restarted.end(), command.begin(), command.end());
        kept.insert(kept.end(), command.begin(), command.end());
        const auto a = run_program("/usr/bin/env", restarted);
        const auto b = run_program("/usr/bin/env", kept);
        INFO(command[0]);
        CHECK(a.status == b.status);
        CHECK(a.out == b.out);
        CHECK(a.err == b.err);
        CHECK(a.out.find("beta") != std::string::npos);
        if (command[0] != "activate" && command[1] != "--json") {
            // The skipped skill is noted once, not once per start (list --json reports it in its output).
            const std::size_t note = a.err.find("gamma/SKILL.md");
            CHECK(note != std::string::npos);
            CHECK(a.err.find("gamma/SKILL.md", note + 1) == std::string::npos);
        }
    }
}

#ifdef AGENTSKILLS_HAVE_MCP
TEST_CASE("extras: the helper runs with the allocator's huge-page tunable, what it starts does not inherit it",
          "[cli][extras]") {
    TempDir dir;
    // An "MCP server" that records the environment of the program that started it (the helper,
    // as the kernel started it) and its own, then exits: the list fails, the files stay.
    const std::string script = dir.path("record.sh");
    dir.write("record.sh", "#!/bin/sh\ntr '\\0' '\\n' < /proc/$PPID/environ > \"" + dir.path("helper.txt") +
                               "\"\nenv > \"" + dir.path("child.txt") + "\"\n");
    ::chmod(script.c_str(), 0755);
    const auto read = [&](const char* name) {
        std::ifstream in(dir.path(name), std::ios::binary);
        return "\n" + std::string(std::istreambuf_iterator<char>(in), {});
    };

    (void)run_program("/usr/bin/env", {"-u", "GLIBC_TUNABLES", AGENTSKILLS_CLI_PATH, "list", "--mcp-command", script});
    CHECK(read("helper.txt").find("\nGLIBC_TUNABLES=glibc.malloc.hugetlb=1\n") != std::string::npos);
    CHECK(read("helper.txt").find("\nAGENTSKILLS_LAUNCHER_TUNABLES=1\n") != std::string::npos);
    CHECK(read("child.txt").find("GLIBC_TUNABLES") == std::string::npos);
    CHECK(read("child.txt").find("AGENTSKILLS_LAUNCHER_TUNABLES") == std::string::npos);

    // The user's own tunables are theirs: kept as they are, for the helper and what it starts.
    (void)run_program("/usr/bin/env",
                      {"GLIBC_TUNABLES=glibc.malloc.check=0", AGENTSKILLS_CLI_PATH, "list", "--mcp-command", script});
    CHECK(read("helper.txt").find("\nGLIBC_TUNABLES=glibc.malloc.check=0\n") != std::string::npos);
    CHECK(read("helper.txt").find("AGENTSKILLS_LAUNCHER_TUNABLES") == std::string::npos);
    CHECK(read("child.txt").find("\nGLIBC_TUNABLES=glibc.malloc.check=0\n") != std::string::npos);
}
#endif

#if defined(AGENTSKILLS_HAVE_LOCK) && (defined(AGENTSKILLS_HAVE_GIT) || defined(AGENTSKILLS_HAVE_POSTGRES))
TEST_CASE("extras: agentskills-extras-full has what agentskills-extras lacks, and stands in for it", "[cli][extras]") {
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "First skill."));
    const std::string lib = dir.path("lib");
    const auto expected = run_cli({"lock", "--root", lib});
    REQUIRE(expected.status == 0);
    REQUIRE(expected.out.find("\"name\": \"alpha\"") != std::string::npos);

    // Only agentskills-extras-full beside the program: it serves what agentskills-extras would.
    TempDir full_only;
    const std::string with_full = program_with(full_only, {"agentskills-extras-full"});
    const auto through_full = run_program(with_full, {"lock", "--root", lib});
    CHECK(through_full.status == 0);
    CHECK(through_full.out == expected.out);
    CHECK(through_full.err == expected.err);

#ifdef AGENTSKILLS_HAVE_GIT
    // Only agentskills-extras beside the program: `lock` runs it, and it needs
    // agentskills-extras-full for a git: root, names it and the paths it tried, and stops.
    TempDir common_only;
    const std::string with_common = program_with(common_only, {"agentskills-extras"});
    const auto git = run_program(with_common, {"lock", "--root", "git:" + dir.path("repo") + "@main"});
    CHECK(git.status == 2);
    CHECK(git.out.empty());
    CHECK(git.err.rfind("agentskills lock: error: a git: root needs the program agentskills-extras-full, which could "
                        "not be run: " +
                            common_only.path("bin") + "/agentskills-extras-full (not found); ",
                        0) == 0);
    // Local roots need no more than agentskills-extras.
    const auto local = run_program(with_common, {"lock", "--root", lib});
    CHECK(local.status == 0);
    CHECK(local.out == expected.out);
#endif

#if defined(AGENTSKILLS_HAVE_POSTGRES) && defined(AGENTSKILLS_HAVE_MCP)
    // --state postgresql://...: agentskills-extras runs agentskills-extras-full before it reads
    // anything, and libpq's refusal (nothing listens on port 1) is what the user reads.
    const std::string helper =
        (std::filesystem::path(AGENTSKILLS_CLI_PATH).parent_path() / "agentskills-extras").string();
    for (const std::string& program : {std::string(AGENTSKILLS_CLI_PATH), helper}) {
        INFO(program);
        const auto r = run_program(program, {"mcp", "--root", lib, "--http", "127.0.0.1:0", "--state",
                                             "postgresql://127.0.0.1:1/none?connect_timeout=5"});
        CHECK(r.status == 1);
        CHECK(r.out.empty());
        CHECK(r.err.rfind("agentskills mcp: error: postgres activation store "
                          "'postgresql://127.0.0.1:1/none?connect_timeout=5': cannot connect: ",
                          0) == 0);
    }
#endif
}
#endif

}  // namespace cli_extras_tests
