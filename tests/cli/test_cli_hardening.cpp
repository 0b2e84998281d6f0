// Output hardening of the program (issue 12): file names with bytes that are not UTF-8, fields
// that could forge a line of text output, numbers that do not fit.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/base/names.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_hardening_tests {

using agentskills::is_valid_utf8;
using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;
using namespace std::string_literals;

namespace {

const std::string fffd = "\xEF\xBF\xBD";

// A library with a good skill that holds `notes\xff.md` and a skill whose directory is named
// with the bytes FF FE (real names on disk).
struct BadBytesLibrary {
    TempDir dir;
    std::string lib;
    BadBytesLibrary() {
        dir.write("lib/good/SKILL.md", skill_md("good", "A good skill."));
        dir.write("lib/good/notes\xff.md", "notes\n");
        dir.write("lib/\xff\xfe/SKILL.md", skill_md("odd", "A skill in an odd directory."));
        lib = std::filesystem::canonical(dir.path("lib")).string();
    }
};

}  // namespace

TEST_CASE("cli: a file or directory name that is not UTF-8 costs no JSON output", "[cli][utf8]") {
    BadBytesLibrary b;

    SECTION("activate --json") {
        const auto r = run_cli({"activate", "--json", "--root", b.lib, "good", "odd"});
        REQUIRE(r.status == 0);
        REQUIRE(is_valid_utf8(r.out));
        const auto j = nlohmann::json::parse(r.out);
        REQUIRE(j.size() == 2);
        const std::string first = j[0]["content"];
        CHECK(first.find("<file path=\"notes" + fffd + ".md\" read_path=\"" + b.lib + "/good/notes" + fffd +
                         ".md\" />") != std::string::npos);
        const std::string second = j[1]["content"];
        CHECK(second.find("Skill directory: " + b.lib + "/" + fffd + fffd + "\n") != std::string::npos);
    }
    SECTION("activate text") {
        const auto r = run_cli({"activate", "--root", b.lib, "good"});
        REQUIRE(r.status == 0);
        CHECK(is_valid_utf8(r.out));
        CHECK(r.out.find("notes" + fffd + ".md") != std::string::npos);
    }
    SECTION("validate --json --root") {
        const auto r = run_cli({"validate", "--json", "--root", b.lib});
        REQUIRE(r.status == 0);
        REQUIRE(is_valid_utf8(r.out));
        const auto j = nlohmann::json::parse(r.out);
        REQUIRE(j["skills"].size() == 2);
        CHECK(j["skills"][0]["path"] == b.lib + "/good");
        CHECK(j["skills"][0]["valid"] == true);
        CHECK(j["skills"][1]["path"] == b.lib + "/" + fffd + fffd);
        CHECK(j["skills"][1]["skill_file"] == b.lib + "/" + fffd + fffd + "/SKILL.md");
        CHECK(j["skills"][1]["name"] == "odd");
    }
    SECTION("read-properties") {
        const auto r = run_cli({"read-properties", b.lib + "/\xff\xfe"});
        REQUIRE(r.status == 0);
        REQUIRE(is_valid_utf8(r.out));
        const auto j = nlohmann::json::parse(r.out);
        CHECK(j["name"] == "odd");
        CHECK(j["location"] == b.lib + "/" + fffd + fffd + "/SKILL.md");
        CHECK(j["root"] == b.lib + "/" + fffd + fffd);
    }
    SECTION("list --json") {
        const auto r = run_cli({"list", "--json", "--root", b.lib});
        REQUIRE(r.status == 0);
        REQUIRE(is_valid_utf8(r.out));
        const auto j = nlohmann::json::parse(r.out);
        CHECK(j["skills"].size() == 2);
    }
    SECTION("to-prompt and prompt") {
        for (const char* command : {"to-prompt", "prompt"}) {
            const auto r = run_cli({command, "--root", b.lib});
            REQUIRE(r.status == 0);
            CHECK(is_valid_utf8(r.out));
            CHECK(r.out.find("<location>" + b.lib + "/" + fffd + fffd + "/SKILL.md</location>") != std::string::npos);
            CHECK(r.out.find("<name>good</name>") != std::string::npos);
        }
    }
    SECTION("render") {
        const auto r = run_cli({"render", "--root", b.lib, "good"});
        REQUIRE(r.status == 0);
        CHECK(is_valid_utf8(r.out));
        CHECK(r.out.find("notes" + fffd + ".md") != std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------
// Line-oriented output cannot be forged (item 13)

namespace {

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        out.push_back(text.substr(pos, nl - pos));
        if (nl == std::string::npos) break;
        pos = nl + 1;
    }
    return out;
}

// A name whose TAB and newline would make a second record, and a terminal escape.
const std::string forged_name = "evil\tname\nforged\t/tmp/x/SKILL.md\x1b[2J";
const std::string forged_name_escaped = "evil\\tname\\nforged\\t/tmp/x/SKILL.md\\x1b[2J";

struct ForgingLibrary {
    TempDir dir;
    std::string lib;
    ForgingLibrary() {
        dir.write(
            "lib/evil/SKILL.md",
            "---\nname: \"evil\\tname\\nforged\\t/tmp/x/SKILL.md\\e[2J\"\ndescription: Forges records.\n---\nBody.\n");
        dir.write("lib/good/SKILL.md", skill_md("good", "A good skill."));
        dir.write("lib/new\nline/SKILL.md", "no frontmatter\n");  // skipped, with a newline in its path
        lib = std::filesystem::canonical(dir.path("lib")).string();
    }
};

}  // namespace

TEST_CASE("cli: list's text output is one line per record whatever the names hold", "[cli][forge]") {
    ForgingLibrary f;
    const auto r = run_cli({"list", "--root", f.lib});
    REQUIRE(r.status == 0);
    const auto lines = lines_of(r.out);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == forged_name_escaped + "\t" + f.lib + "/evil/SKILL.md");
    CHECK(lines[1] == "good\t" + f.lib + "/good/SKILL.md");
    CHECK(r.err.find(f.lib + "/new\\nline/SKILL.md:1: error: ") != std::string::npos);
    CHECK(r.out.find('\x1b') == std::string::npos);
    // Each diagnostic on stderr is one `PATH...` line.
    for (const auto& line : lines_of(r.err)) CHECK(line.rfind(f.lib + "/", 0) == 0);

    // JSON keeps the values as they are.
    const auto j = nlohmann::json::parse(run_cli({"list", "--json", "--root", f.lib}).out);
    CHECK(j["skills"][0]["name"] == forged_name);
    CHECK(j["skipped"][0]["path"] == f.lib + "/new\nline/SKILL.md");
}

TEST_CASE("cli: validate's PATH:LINE: lines cannot be forged", "[cli][forge]") {
    ForgingLibrary f;
    const auto r = run_cli({"validate", f.lib + "/new\nline", "--root", f.lib});
    CHECK(r.status == 1);
    const auto lines = lines_of(r.out);
    REQUIRE_FALSE(lines.empty());
    for (const auto& line : lines) {
        INFO(line);
        CHECK(line.rfind(f.lib + "/", 0) == 0);
        CHECK(line.find('\x1b') == std::string::npos);
    }
    CHECK(r.out.find(f.lib + "/evil/SKILL.md:2: warning: ") != std::string::npos);
    CHECK(r.out.find(forged_name_escaped) != std::string::npos);
    CHECK(r.out.find(f.lib + "/new\\nline/SKILL.md:1: error: the file must start with a line '---'") !=
          std::string::npos);
    CHECK(r.out.find(f.lib + "/new\\nline: ok") == std::string::npos);
    // --json is unaffected.
    const auto j = nlohmann::json::parse(run_cli({"validate", "--json", "--root", f.lib}).out);
    CHECK(j["skills"][0]["name"] == forged_name);
}

TEST_CASE("cli: stderr lines of the shim commands and render are one line each", "[cli][forge]") {
    ForgingLibrary f;
    for (const char* command : {"to-prompt", "prompt", "activate"}) {
        std::vector<std::string> args{command, "--root", f.lib};
        if (std::string(command) == "activate") args.push_back("good");
        const auto r = run_cli(args);
        INFO(command);
        CHECK(r.status == 0);
        const auto lines = lines_of(r.err);
        REQUIRE(lines.size() == 1);
        CHECK(lines[0].rfind("agentskills "s + command + ": skipped (invalid): " + f.lib + "/new\\nline/SKILL.md: ",
                             0) == 0);
    }
    const auto omitted = run_cli({"prompt", "--root", f.lib, "--budget", "1", "--show-omitted"});
    CHECK(omitted.err.find("omitted: " + forged_name_escaped + "\n") != std::string::npos);
    const auto unknown = run_cli({"render", "--root", f.lib, "nope\nforged"});
    CHECK(unknown.status == 1);
    CHECK(lines_of(unknown.err).size() == 2);  // the note on the skipped skill, then the error
    CHECK(unknown.err.find("no skill named 'nope\\nforged' (available: " + forged_name_escaped + ", good)") !=
          std::string::npos);
}

TEST_CASE("cli: the prompt block and activation text carry no control character but TAB and LF", "[cli][forge]") {
    ForgingLibrary f;
    for (const char* command : {"to-prompt", "prompt"}) {
        const auto r = run_cli({command, "--root", f.lib});
        REQUIRE(r.status == 0);
        CHECK(r.out.find('\x1b') == std::string::npos);
        CHECK(r.out.find("<name>evil\tname\nforged\t/tmp/x/SKILL.md" + fffd + "[2J</name>") != std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------
// Agent specs and the rendering budget through `render` (items 6 and 4)

TEST_CASE("cli: render --spec refuses hostile specs with exit 2 and the file named", "[cli][spec]") {
    TempDir dir;
    dir.write("lib/good/SKILL.md", skill_md("good", "A good skill."));
    std::string bomb = "directories: " + dir.str("lib") + "\nbomb:\n  l0: &l0 [a, a, a, a, a, a, a, a, a]\n";
    for (int i = 1; i < 9; ++i) {
        bomb += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
        for (int k = 0; k < 9; ++k) bomb += (k ? ", *l" : "*l") + std::to_string(i - 1);
        bomb += "]\n";
    }
    dir.write("bomb.yaml", bomb);
    const std::string fifo = dir.str("fifo.yaml");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const std::string zero = dir.str("zero.yaml");
    REQUIRE(::symlink("/dev/zero", zero.c_str()) == 0);
    dir.write("deep.json", std::string(200'000, '[') + std::string(200'000, ']'));
    for (const std::string name : {"bomb.yaml", "fifo.yaml", "zero.yaml", "deep.json"}) {
        const auto r = run_cli({"render", "--spec", dir.str(name), "good"});
        INFO(name << ": " << r.err);
        CHECK(r.status == 2);
        CHECK(r.out.empty());
        CHECK(r.err.rfind("agentskills render: error: agent spec", 0) == 0);
        CHECK(r.err.find(dir.str(name)) != std::string::npos);
    }
    dir.write("ok.yaml", "directories: " + dir.str("lib") + "\n");
    const auto ok = run_cli({"render", "--spec", dir.str("ok.yaml"), "good"});
    CHECK(ok.status == 0);
    CHECK(ok.out.rfind("<skill_content name=\"good\">\nBody.\n", 0) == 0);
}

TEST_CASE("cli: render stops at --max-bytes with exit 1", "[cli][render]") {
    TempDir dir;
    std::string body;
    for (int i = 0; i < 90'000; ++i) body += "$ARGUMENTS ";
    dir.write("lib/many/SKILL.md", skill_md("many", "Many placeholders.", body));
    const std::string argument(5'000, 'a');
    const auto r = run_cli({"render", "--root", dir.str("lib"), "many", argument});
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "agentskills render: error: the instructions with the arguments substituted would be 450090000 bytes, more "
          "than "
          "the limit of 4194304 bytes\n");
    dir.write("lib/small/SKILL.md", skill_md("small", "One placeholder.", "Do $ARGUMENTS."));
    CHECK(run_cli({"render", "--root", dir.str("lib"), "--max-bytes", "7", "small", "xyz"}).status == 0);
    CHECK(run_cli({"render", "--root", dir.str("lib"), "--max-bytes", "6", "small", "xyz"}).status == 1);
    CHECK(run_cli({"render", "--root", dir.str("lib"), "--max-bytes", "0", "small", argument}).status == 0);
}

// ---------------------------------------------------------------------------------------
// Counts: negative, signed, non-numeric and overflowing values are usage errors

TEST_CASE("cli: every count option refuses values that are not a size", "[cli][usage]") {
    TempDir dir;
    dir.write("lib/good/SKILL.md", skill_md("good", "A good skill."));
    const std::string lib = dir.str("lib");
    const std::vector<std::vector<std::string>> commands = {
        {"prompt", "--root", lib, "--budget"},
        {"validate", lib + "/good", "--max-bytes"},
        {"validate", lib + "/good", "--max-lines"},
        {"render", "--root", lib, "good", "--max-bytes"},
    };
    for (const auto& command : commands) {
        for (const std::string value :
             {"-1", "99999999999999999999999", "18446744073709551616", "+5", "1x", " 1", "0x10", ""}) {
            auto args = command;
            args.push_back(value);
            const auto r = run_cli(args);
            INFO(command[0] << " " << command.back() << " '" << value << "': " << r.err);
            CHECK(r.status == 2);
            CHECK(r.out.empty());
        }
        auto bad = command;
        bad.push_back("-1\x1b");
        const auto r = run_cli(bad);
        CHECK(r.err.find(command.back() + ": not a count (digits 0-9 only): '-1\\x1b'") != std::string::npos);
        std::vector<std::string> args(command.begin(), command.end());
        args.emplace_back(std::to_string(std::numeric_limits<std::size_t>::max()));  // SIZE_MAX is a size
        INFO(command[0] << " " << command.back() << " SIZE_MAX");
        CHECK(run_cli(args).status == 0);
    }
}

}  // namespace cli_hardening_tests
