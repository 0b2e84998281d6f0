// Tests of reader.hpp: path rules, the readers, the confined read, the local listing.
// One file per public header; the hostile cases are sections of it.
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include <agentskills/base/errors.hpp>
#include <agentskills/storage/reader.hpp>
#include "agentskills/activation/activation.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/catalog.hpp"
#include "agentskills/compat/substrate.hpp"
#include "agentskills/storage/reader.hpp"

#include "fs_fixtures.hpp"
#include "src/catalog/prefault.hpp"
#include "src/storage/local_fs.hpp"

#if defined(AGENTSKILLS_HAVE_MCP)
#include "agentskills/mcp/server.hpp"
#endif

// =======================================================================================
// Tests of reader.hpp: path rules, LocalSkillReader, MemorySkillReader, MountedReader.

namespace reader_tests {

using namespace std::string_literals;

using namespace agentskills;
using agentskills_test::TempDir;

TEST_CASE("normalize_relative_path collapses and refuses", "[reader][paths]") {
    CHECK(normalize_relative_path("a/b") == "a/b");
    CHECK(normalize_relative_path("./a//b/") == "a/b");
    CHECK(normalize_relative_path("a/./b/../c") == "a/c");
    CHECK(normalize_relative_path(".") == ".");
    CHECK(normalize_relative_path("a/..") == ".");
    CHECK_THROWS_AS(normalize_relative_path(""), PathError);
    CHECK_THROWS_AS(normalize_relative_path("/abs"), PathError);
    CHECK_THROWS_AS(normalize_relative_path("a\\b"), PathError);
    CHECK_THROWS_AS(normalize_relative_path(std::string("a\0b", 3)), PathError);
    CHECK_THROWS_AS(normalize_relative_path("C:/x"), PathError);
    CHECK_THROWS_AS(normalize_relative_path("a/d:stuff"), PathError);
    CHECK_THROWS_AS(normalize_relative_path("~/skills"), PathError);
    CHECK_THROWS_AS(normalize_relative_path("a/~b"), PathError);
    CHECK_THROWS_AS(normalize_relative_path(".."), PathError);
    CHECK_THROWS_AS(normalize_relative_path("a/../../b"), PathError);
}

TEST_CASE("normalize_virtual_path resolves from a rooted cwd", "[reader][paths]") {
    CHECK(normalize_virtual_path("/tenant//skills/./x") == "/tenant/skills/x");
    CHECK(normalize_virtual_path("skills", "/tenant") == "/tenant/skills");
    CHECK(normalize_virtual_path("../local/x", "/tenant/sessions") == "/tenant/local/x");
    CHECK(normalize_virtual_path("/") == "/");
    CHECK(normalize_virtual_path(".", "/") == "/");
    CHECK(normalize_virtual_path("/a/..") == "/");
    CHECK_THROWS_AS(normalize_virtual_path("/.."), PathError);
    CHECK_THROWS_AS(normalize_virtual_path("../../x", "/a"), PathError);
    CHECK_THROWS_AS(normalize_virtual_path("/a\\b"), PathError);
    CHECK_THROWS_AS(normalize_virtual_path("/~x"), PathError);
    CHECK_THROWS_AS(normalize_virtual_path("/C:/x"), PathError);
    CHECK_THROWS_AS(normalize_virtual_path(""), PathError);
    CHECK_THROWS_AS(normalize_virtual_path("x", "relative-cwd"), PathError);
}

TEST_CASE("join_path and path_basename", "[reader][paths]") {
    CHECK(join_path(".", "x") == "x");
    CHECK(join_path("/", "x") == "/x");
    CHECK(join_path("a/b", "c") == "a/b/c");
    CHECK(join_path("a/b/", "c") == "a/b/c");
    CHECK(path_basename("a/b/") == "b");
    CHECK(path_basename("a") == "a");
    CHECK(path_basename("/x/SKILL.md") == "SKILL.md");
}

TEST_CASE("MemorySkillReader reads, lists, stats and limits", "[reader][memory]") {
    MemorySkillReader r;
    r.add_file("skills/a/SKILL.md", "hello world", 42);
    r.add_file("skills/a/scripts/run.sh", "#!/bin/sh");
    r.add_directory("skills/empty");

    CHECK(r.read_file("skills/a/SKILL.md", 0).data == "hello world");
    CHECK(r.read_file("./skills//a/SKILL.md", 0).data == "hello world");
    auto limited = r.read_file("skills/a/SKILL.md", 5);
    CHECK(limited.data == "hello");
    CHECK(limited.truncated);
    CHECK_FALSE(r.read_file("skills/a/SKILL.md", 11).truncated);

    auto top = r.list_dir(".");
    REQUIRE(top.size() == 1);
    CHECK(top[0].name == "skills");
    CHECK(top[0].kind == EntryKind::directory);

    auto skills = r.list_dir("skills");
    REQUIRE(skills.size() == 2);
    CHECK(skills[0].name == "a");
    CHECK(skills[1].name == "empty");
    CHECK(r.list_dir("skills/empty").empty());

    auto a = r.list_dir("skills/a");
    REQUIRE(a.size() == 2);
    CHECK(a[0] == DirEntry{.name = "SKILL.md", .kind = EntryKind::file, .size = 11, .mtime_ns = 42});
    CHECK(a[1].name == "scripts");

    FileStat st = r.stat("skills/a/SKILL.md");
    CHECK(st.kind == EntryKind::file);
    CHECK(st.size == 11);
    CHECK(st.mtime_ns == 42);
    CHECK(r.stat("skills").kind == EntryKind::directory);
    CHECK(r.stat("skills/empty").kind == EntryKind::directory);

    // Replacing a file changes its identity even with the same size and mtime.
    r.add_file("skills/a/SKILL.md", "HELLO WORLD", 42);
    CHECK(r.stat("skills/a/SKILL.md").identity != st.identity);

    CHECK_THROWS_AS(r.read_file("skills/missing", 0), NotFoundError);
    CHECK_THROWS_AS(r.read_file("skills/a", 0), IoError);
    CHECK_THROWS_AS(r.list_dir("nope"), NotFoundError);
    CHECK_THROWS_AS(r.list_dir("skills/a/SKILL.md"), IoError);
    CHECK_THROWS_AS(r.stat("nope"), NotFoundError);
    CHECK_THROWS_AS(r.read_file("../x", 0), PathError);
    CHECK_THROWS_AS(r.read_file("/abs", 0), PathError);

    CHECK(r.remove("skills/a"));
    CHECK_THROWS_AS(r.stat("skills/a/SKILL.md"), NotFoundError);
    CHECK_FALSE(r.remove("skills/a"));
}

TEST_CASE("MemorySkillReader: one entry a name, in name order, whatever the path's spelling", "[reader][memory]") {
    MemorySkillReader r;
    r.add_file("lib/a", "file a");  // a file and a directory of one name: the file is listed
    r.add_file("lib/a/x", "x");
    r.add_file("lib/a/y/z", "z");
    r.add_file("lib/a-b/x", "x");  // sorts between the files below lib/a and lib/a itself
    r.add_file("lib/a.txt", "t");
    r.add_directory("lib/a-b");
    r.add_directory("lib/c");
    r.add_directory("lib/a/empty");
    const std::vector<DirEntry> expected{
        DirEntry{.name = "a", .kind = EntryKind::file, .size = 6},
        DirEntry{.name = "a-b", .kind = EntryKind::directory},
        DirEntry{.name = "a.txt", .kind = EntryKind::file, .size = 1},
        DirEntry{.name = "c", .kind = EntryKind::directory},
    };
    CHECK(r.list_dir("lib") == expected);
    for (const char* spelling : {"./lib", "lib/", "lib//.", "lib/c/..", "./lib/./"}) {
        CAPTURE(spelling);
        CHECK(r.list_dir(spelling) == expected);
    }
    CHECK_THROWS_AS(r.list_dir("lib/a/"), IoError);  // the file's name: not listed as a directory
    CHECK(r.list_dir("lib/a/y/") == std::vector<DirEntry>{DirEntry{.name = "z", .kind = EntryKind::file, .size = 1}});
    CHECK(r.read_file("lib/./a-b//x", 0).data == "x");
    CHECK(r.stat("lib/a/y/../x").size == 1);
    CHECK(r.stat("./lib/a-b/").kind == EntryKind::directory);
    // Spellings that are refused, whether or not a normal form would find something.
    for (const char* bad : {"lib/~a", "lib/C:/x", "lib\\a", "/lib/a", "../lib", "lib/../../x", ""}) {
        CAPTURE(bad);
        CHECK_THROWS_AS(r.stat(bad), PathError);
        CHECK_THROWS_AS(r.read_file(bad, 0), PathError);
        CHECK_THROWS_AS(r.list_dir(bad), PathError);
    }
    CHECK_THROWS_AS(r.stat(std::string_view("lib/a\0b", 7)), PathError);
}

using agentskills_test::ListingOnlyReader;

TEST_CASE("SkillReader::stat defaults to listing the parent", "[reader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/x/SKILL.md", "12345", 7);
    mem->add_file("top.txt", "1");
    ListingOnlyReader r(mem);
    FileStat st = r.stat("lib/x/SKILL.md");
    CHECK(st.kind == EntryKind::file);
    CHECK(st.size == 5);
    CHECK(st.mtime_ns == 7);
    CHECK(r.stat("lib").kind == EntryKind::directory);
    CHECK(r.stat("top.txt").size == 1);
    CHECK(r.stat(".").kind == EntryKind::directory);
    CHECK_THROWS_AS(r.stat("lib/nope"), NotFoundError);
    CHECK_THROWS_AS(r.stat("nope/deeper"), NotFoundError);
}

TEST_CASE("LocalSkillReader reads files with a byte limit", "[reader][local]") {
    TempDir tmp;
    tmp.write("small.txt", "0123456789");
    LocalSkillReader r;

    auto whole = r.read_file(tmp.path("small.txt"), 0);
    CHECK(whole.data == "0123456789");
    CHECK_FALSE(whole.truncated);
    CHECK_FALSE(r.read_file(tmp.path("small.txt"), 10).truncated);
    auto cut = r.read_file(tmp.path("small.txt"), 4);
    CHECK(cut.data == "0123");
    CHECK(cut.truncated);

    tmp.write("empty.txt", "");
    CHECK(r.read_file(tmp.path("empty.txt"), 100).data.empty());

    CHECK_THROWS_AS(r.read_file(tmp.path("missing.txt"), 0), NotFoundError);
    CHECK_THROWS_AS(r.read_file(tmp.path("small.txt/below"), 0), NotFoundError);
    CHECK_THROWS_AS(r.read_file(tmp.path(""), 0), IoError);  // a directory
}

TEST_CASE("LocalSkillReader never reads past the limit of a large file", "[reader][local]") {
    TempDir tmp;
    tmp.write("big.bin", "head");
    std::filesystem::resize_file(tmp.path("big.bin"), std::uintmax_t{100} << 20);  // 100 MiB (sparse)
    LocalSkillReader r;
    auto result = r.read_file(tmp.path("big.bin"), 1024);
    CHECK(result.truncated);
    CHECK(result.data.size() == 1024);
    CHECK(result.data.substr(0, 4) == "head");
}

TEST_CASE("perf: reading 1 KiB of a 100 MiB file takes under a second", "[.][perf]") {
    TempDir tmp;
    tmp.write("big.bin", "head");
    std::filesystem::resize_file(tmp.path("big.bin"), std::uintmax_t{100} << 20);  // 100 MiB (sparse)
    LocalSkillReader r;
    const auto start = std::chrono::steady_clock::now();
    auto result = r.read_file(tmp.path("big.bin"), 1024);
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    CHECK(result.data.size() == 1024);
}

TEST_CASE("LocalSkillReader refuses FIFOs without blocking", "[reader][local]") {
    TempDir tmp;
    REQUIRE(::mkfifo(tmp.path("SKILL.md").c_str(), 0600) == 0);
    LocalSkillReader r;
    CHECK_THROWS_AS(r.read_file(tmp.path("SKILL.md"), 100), IoError);
    CHECK(r.stat(tmp.path("SKILL.md")).kind == EntryKind::other);
}

TEST_CASE("LocalSkillReader lists children with kind, size, mtime and symlink flag", "[reader][local]") {
    TempDir tmp;
    tmp.write("dir/file.txt", "abc");
    tmp.mkdir("dir/sub");
    std::filesystem::create_symlink(tmp.path("dir/sub"), tmp.path("dir/link-to-sub"));
    std::filesystem::create_symlink(tmp.path("dir/file.txt"), tmp.path("dir/link-to-file"));
    std::filesystem::create_symlink(tmp.path("dir/nowhere"), tmp.path("dir/dangling"));
    LocalSkillReader r;
    auto entries = r.list_dir(tmp.path("dir"));
    std::sort(entries.begin(), entries.end(), [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
    REQUIRE(entries.size() == 5);
    CHECK(entries[0].name == "dangling");
    CHECK(entries[0].kind == EntryKind::other);
    CHECK(entries[0].is_symlink);
    CHECK(entries[1].name == "file.txt");
    CHECK(entries[1].kind == EntryKind::file);
    CHECK(entries[1].size == 3);
    CHECK(entries[1].mtime_ns > 0);
    CHECK_FALSE(entries[1].is_symlink);
    CHECK(entries[2].name == "link-to-file");
    CHECK(entries[2].kind == EntryKind::file);
    CHECK(entries[2].is_symlink);
    CHECK(entries[3].name == "link-to-sub");
    CHECK(entries[3].kind == EntryKind::directory);
    CHECK(entries[3].is_symlink);
    CHECK(entries[4].name == "sub");
    CHECK(entries[4].kind == EntryKind::directory);

    CHECK_THROWS_AS(r.list_dir(tmp.path("missing")), NotFoundError);
    CHECK_THROWS_AS(r.list_dir(tmp.path("dir/file.txt")), IoError);

    FileStat a = r.stat(tmp.path("dir/file.txt"));
    FileStat b = r.stat(tmp.path("dir/link-to-file"));
    CHECK(a.identity == b.identity);
    CHECK(b.is_symlink);
    CHECK_FALSE(a.is_symlink);
    CHECK_THROWS_AS(r.stat(tmp.path("missing")), NotFoundError);
}

TEST_CASE("MountedReader routes rooted virtual paths", "[reader][mount]") {
    auto tenant = std::make_shared<MemorySkillReader>();
    tenant->add_file("skills/a/SKILL.md", "tenant");
    auto local = std::make_shared<MemorySkillReader>();
    local->add_file("skills/b/SKILL.md", "local");
    MountedReader m({{"tenant", tenant}, {"local", local}});

    CHECK(m.path_resolver() == &m);
    CHECK(m.read_file("/tenant/skills/a/SKILL.md", 0).data == "tenant");
    CHECK(m.read_file("/local/skills/b/SKILL.md", 0).data == "local");
    CHECK(m.read_file("tenant/skills/a/SKILL.md", 0).data == "tenant");  // from cwd "/"
    CHECK(m.read_file("/local/../tenant/skills/./a//SKILL.md", 0).data == "tenant");

    auto top = m.list_dir("/");
    REQUIRE(top.size() == 2);
    CHECK(top[0].name == "local");
    CHECK(top[0].kind == EntryKind::directory);
    CHECK(top[1].name == "tenant");
    CHECK(m.list_dir("/tenant").size() == 1);
    CHECK(m.stat("/").kind == EntryKind::directory);
    CHECK(m.stat("/tenant").kind == EntryKind::directory);
    CHECK(m.stat("/tenant/skills/a/SKILL.md").size == 6);

    // Unknown mount: not found, with no prefix match and no fallback.
    CHECK_THROWS_AS(m.read_file("/ten/skills/a/SKILL.md", 0), NotFoundError);
    CHECK_THROWS_AS(m.read_file("/tenant2/skills/a/SKILL.md", 0), NotFoundError);
    CHECK_THROWS_AS(m.list_dir("/other"), NotFoundError);
    // A mount root and "/" are not files.
    CHECK_THROWS_AS(m.read_file("/", 0), IoError);
    CHECK_THROWS_AS(m.read_file("/tenant", 0), IoError);
    // ".." above "/" is refused.
    CHECK_THROWS_AS(m.read_file("/../tenant/skills/a/SKILL.md", 0), PathError);
    CHECK_THROWS_AS(m.list_dir("/tenant/../.."), PathError);
    // Child errors propagate unchanged.
    CHECK_THROWS_AS(m.read_file("/tenant/skills/none", 0), NotFoundError);
    CHECK_THROWS_AS(m.read_file("/tenant/skills/a", 0), IoError);

    CHECK(m.resolve("x/../y", "/tenant") == "/tenant/y");
}

TEST_CASE("MountedReader resolves relative paths from its cwd", "[reader][mount]") {
    auto tenant = std::make_shared<MemorySkillReader>();
    tenant->add_file("sessions/s1/notes.md", "n");
    tenant->add_file("skills/a/SKILL.md", "s");
    MountedReader m({{"tenant", tenant}}, "/tenant/sessions/s1");
    CHECK(m.cwd() == "/tenant/sessions/s1");
    CHECK(m.read_file("notes.md", 0).data == "n");
    CHECK(m.read_file("../../skills/a/SKILL.md", 0).data == "s");
    CHECK(m.read_file("/tenant/skills/a/SKILL.md", 0).data == "s");
}

TEST_CASE("MountedReader refuses invalid mount names", "[reader][mount]") {
    auto r = std::make_shared<MemorySkillReader>();
    for (const char* bad : {"", ".", "..", "a/b", "~home", "C:", "a\\b"}) {
        INFO(bad);
        CHECK_THROWS_AS(MountedReader({{bad, r}}), ConfigurationError);
    }
    CHECK_THROWS_AS(MountedReader({{"ok", nullptr}}), ConfigurationError);
    CHECK_NOTHROW(MountedReader({{"ok-name", r}, {"x.y", r}}));
}

TEST_CASE("readers are safe to share between threads", "[reader][concurrency]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 20; ++i) mem->add_file("lib/s" + std::to_string(i) + "/SKILL.md", "x");
    MountedReader m({{"m", mem}});
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 50; ++i) {
                if (t % 2 == 0) mem->add_file("lib/w" + std::to_string(t) + "/SKILL.md", std::to_string(i));
                if (m.list_dir("/m/lib").size() >= 20 && m.read_file("/m/lib/s1/SKILL.md", 0).data == "x") ++ok;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(ok.load() == 8 * 50);
}

TEST_CASE("LocalSkillReader with a base directory", "[reader][local]") {
    TempDir tmp;
    tmp.write("app/skills/a/SKILL.md", "local a");
    LocalSkillReader r(tmp.path("app") + "/");
    CHECK(r.base_directory() == tmp.path("app"));
    CHECK(r.read_file("skills/a/SKILL.md", 0).data == "local a");
    CHECK(r.list_dir(".").at(0).name == "skills");
    CHECK(r.stat("skills/a").kind == EntryKind::directory);
    CHECK(r.read_file(tmp.path("app/skills/a/SKILL.md"), 0).data == "local a");  // absolute paths as they are

    // As the child of a MountedReader: local and in-memory storage side by side.
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("skills/b/SKILL.md", "memory b");
    MountedReader m({{"local", std::make_shared<LocalSkillReader>(tmp.path("app"))}, {"tenant", mem}});
    CHECK(m.read_file("/local/skills/a/SKILL.md", 0).data == "local a");
    CHECK(m.read_file("/tenant/skills/b/SKILL.md", 0).data == "memory b");
    CHECK(m.list_dir("/local").at(0).name == "skills");
    CHECK_THROWS_AS(m.read_file("/local/../../etc/passwd", 0), PathError);
}

// ---------------------------------------------------------------------------------------
// The confined read (read_file_beneath)

TEST_CASE("confined_path: the refusals, and no '..' at all", "[reader][paths][confined]") {
    CHECK(confined_path("a/b") == "a/b");
    CHECK(confined_path("./a//b/") == "a/b");
    const auto refused = [](const char* path, const std::string& message) {
        CAPTURE(path);
        try {
            (void)confined_path(path);
            FAIL("not refused");
        } catch (const PathError& e) {
            CHECK(std::string(e.what()) == message);
        }
    };
    refused("a/../b", "refused path 'a/../b': '..' is not allowed");
    refused("../x", "refused path '../x': '..' is not allowed");
    refused("/etc/passwd", "refused path '/etc/passwd': absolute paths are not allowed");
    refused("~/x", "refused path '~/x': a component starting with '~' is not allowed");
    refused("c:/x", "refused path 'c:/x': a drive is not allowed");
    refused("a\\b", "refused path 'a\\b': contains a backslash");
    refused("", "refused path '': empty");
    refused("./", "refused path './': names no file");
}

TEST_CASE("read_file_beneath: no symlink at any step, in any reader", "[reader][confined]") {
    TempDir tmp;
    tmp.write("skill/a.md", "inside");
    tmp.write("skill/sub/b.md", "below");
    tmp.write("outside.md", "OUTSIDE");
    std::filesystem::create_symlink("a.md", tmp.path("skill/inner-link.md"));
    std::filesystem::create_symlink(tmp.path("outside.md"), tmp.path("skill/out-link.md"));
    std::filesystem::create_directory_symlink(tmp.path("skill/sub"), tmp.path("skill/dir-link"));
    const LocalSkillReader local;
    const std::string dir = tmp.path("skill");
    CHECK(local.read_file_beneath(dir, "a.md", 0).data == "inside");
    CHECK(local.read_file_beneath(dir, "sub/b.md", 0).data == "below");
    const ReadResult r = local.read_file_beneath(dir, "sub/b.md", 3);
    CHECK(r.data == "bel");
    CHECK(r.truncated);
    CHECK(r.stat.size == 5);
    CHECK(r.stat.identity != 0);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "inner-link.md", 0), PathError);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "out-link.md", 0), PathError);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "dir-link/b.md", 0), PathError);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "../outside.md", 0), PathError);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "missing.md", 0), NotFoundError);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "a.md/x", 0), NotFoundError);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "sub", 0), IoError);
    REQUIRE(::mkfifo(tmp.path("skill/fifo").c_str(), 0600) == 0);
    CHECK_THROWS_AS(local.read_file_beneath(dir, "fifo", 0), IoError);  // refused, not waited on

    // The same rules through the default (a reader without a descriptor) and a mount.
    MemorySkillReader memory;
    memory.add_file("skill/a.md", "inside");
    CHECK(memory.read_file_beneath("skill", "a.md", 0).data == "inside");
    CHECK(memory.read_file_beneath("skill", "a.md", 0).stat.size == 6);
    CHECK_THROWS_AS(memory.read_file_beneath("skill", "../skill/a.md", 0), PathError);
    CHECK_THROWS_AS(memory.read_file_beneath("skill", "b.md", 0), NotFoundError);
    const MountedReader mounted({{"local", std::make_shared<LocalSkillReader>(tmp.path())}});
    CHECK(mounted.read_file_beneath("/local/skill", "a.md", 0).data == "inside");
    CHECK_THROWS_AS(mounted.read_file_beneath("/local/skill", "out-link.md", 0), PathError);
}

TEST_CASE("open_beneath: several confined reads below one directory, in any reader", "[reader][confined]") {
    TempDir tmp;
    tmp.write("skill/a.md", "inside");
    tmp.write("skill/sub/b.md", "below");
    tmp.write("outside.md", "OUTSIDE");
    std::filesystem::create_symlink(tmp.path("outside.md"), tmp.path("skill/out-link.md"));
    std::filesystem::create_directory_symlink(tmp.path("skill/sub"), tmp.path("skill/dir-link"));
    const LocalSkillReader local;
    const auto dir = local.open_beneath(tmp.path("skill"));
    CHECK(dir->read_file("a.md", 0).data == "inside");
    CHECK(dir->read_file("sub/b.md", 0).data == "below");
    const ReadResult r = dir->read_file("sub/b.md", 3);
    CHECK(r.data == "bel");
    CHECK(r.truncated);
    CHECK(r.stat.size == 5);
    CHECK(r.stat == local.read_file_beneath(tmp.path("skill"), "sub/b.md", 3).stat);
    CHECK_THROWS_AS(dir->read_file("out-link.md", 0), PathError);
    CHECK_THROWS_AS(dir->read_file("dir-link/b.md", 0), PathError);
    CHECK_THROWS_AS(dir->read_file("../outside.md", 0), PathError);
    CHECK_THROWS_AS(dir->read_file("missing.md", 0), NotFoundError);
    CHECK_THROWS_AS(dir->read_file("sub", 0), IoError);

    SECTION("the directory opened is the one read, even after the path is moved") {
        std::filesystem::rename(tmp.path("skill"), tmp.path("moved"));
        tmp.write("skill/a.md", "a new directory at the old path");
        CHECK(dir->read_file("a.md", 0).data == "inside");
        CHECK(local.open_beneath(tmp.path("skill"))->read_file("a.md", 0).data == "a new directory at the old path");
    }
    SECTION("a directory that is not there: each read says so, as read_file_beneath does") {
        const auto gone = local.open_beneath(tmp.path("nowhere"));
        std::string one;
        std::string other;
        try {
            (void)gone->read_file("a.md", 0);
        } catch (const NotFoundError& e) {
            one = e.what();
        }
        try {
            (void)local.read_file_beneath(tmp.path("nowhere"), "a.md", 0);
        } catch (const NotFoundError& e) {
            other = e.what();
        }
        CHECK_FALSE(one.empty());
        CHECK(one == other);
        CHECK_THROWS_AS(local.open_beneath(tmp.path("skill/a.md"))->read_file("x", 0),
                        NotFoundError);  // as read_file_beneath
    }
    SECTION("the default reads through read_file_beneath; a mount routes to its reader") {
        MemorySkillReader memory;
        memory.add_file("skill/a.md", "in memory");
        const auto in_memory = memory.open_beneath("skill");
        CHECK(in_memory->read_file("a.md", 0).data == "in memory");
        CHECK_THROWS_AS(in_memory->read_file("../skill/a.md", 0), PathError);
        CHECK_THROWS_AS(in_memory->read_file("b.md", 0), NotFoundError);
        const MountedReader mounted({{"local", std::make_shared<LocalSkillReader>(tmp.path())}});
        const auto routed = mounted.open_beneath("/local/skill");
        CHECK(routed->read_file("a.md", 0).data == "inside");
        CHECK_THROWS_AS(routed->read_file("out-link.md", 0), PathError);
        CHECK_THROWS_AS(mounted.open_beneath("/")->read_file("a.md", 0), PathError);
    }
}

TEST_CASE("race: a resource swapped for an outside symlink is never read through", "[reader][confined][race]") {
    TempDir tmp;
    tmp.write("lib/alpha/SKILL.md", "---\nname: alpha\ndescription: Reads its data.\n---\nRead references/data.md.\n");
    tmp.write("lib/alpha/references/data.md", "inside data");
    tmp.write("secret.txt", "OUTSIDE-SECRET");
    const std::string data = tmp.path("lib/alpha/references/data.md");
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {tmp.path("lib")}, .include_default_roots = false});
    const SkillCatalogPtr catalog = discover_skill_catalog(loader);
    const LoadedSkill skill = catalog->load("alpha");
    REQUIRE(skill.resources == std::vector<SkillResource>{{"references/data.md"}});
    const SkillPackage package(skill);
#if defined(AGENTSKILLS_HAVE_MCP)
    mcp::Server server(catalog);  // indexed while the file is a file
    REQUIRE(server.served_skill_names() == std::vector<std::string>{"alpha"});
    auto session = server.open_session();
    const std::string read_request =
        R"({"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"skill://alpha/references/data.md",)"
        R"("_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",)"
        R"("io.modelcontextprotocol/clientCapabilities":{}}}})";
#endif

    // The swapper puts a regular file and a symlink to the secret in place, in turn, by rename
    // (each swap atomic), as long as the readers read.
    std::atomic<bool> done{false};
    std::thread swapper([&] {
        const std::string file = data + ".file";
        const std::string link = data + ".link";
        for (unsigned i = 0; !done.load(); ++i) {
            if (i % 2 == 0) {
                std::ofstream(file) << "inside data";
                std::filesystem::rename(file, data);
            } else {
                std::error_code ec;
                std::filesystem::remove(link, ec);
                std::filesystem::create_symlink(tmp.path("secret.txt"), link);
                std::filesystem::rename(link, data);
            }
        }
    });
    constexpr int attempts = 10'000;
    int leaks = 0;
    int read_inside = 0;
    LocalSkillReader local;
    // At least `attempts` rounds, and on until one read got the file: on a loaded machine the
    // swapper can be descheduled with the link in place while all the rounds run (a CI run saw
    // 10,000 rounds in 0.23 s and no read of the file); 20 s at the most.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    for (int i = 0; i < attempts || (read_inside == 0 && std::chrono::steady_clock::now() < deadline); ++i) {
        std::vector<std::string> seen;
        try {
            seen.push_back(read_skill_resource_text(skill, local, "references/data.md"));
        } catch (const Error&) {
        }
        try {
            if (auto text = package.read_reference("data.md")) seen.push_back(*text);
        } catch (const Error&) {
        }
#if defined(AGENTSKILLS_HAVE_MCP)
        const mcp::Exchange ex = server.handle(read_request, *session);
        if (ex.response) seen.push_back(*ex.response);
#endif
        for (const auto& s : seen) {
            if (s.find("OUTSIDE") != std::string::npos) ++leaks;
            if (s.find("inside data") != std::string::npos) ++read_inside;
        }
    }
    done.store(true);
    swapper.join();
    CHECK(leaks == 0);
    CHECK(read_inside > 0);  // the swaps did not keep every read from the file
}

}  // namespace reader_tests

// =======================================================================================
// The one local directory listing (src/local_fs.hpp): what it reports of each kind of child in

namespace local_fs_tests {

using namespace agentskills;
namespace local = agentskills::detail::local;

namespace {

struct Seen {
    EntryKind kind;
    bool is_symlink;
    std::uint64_t bytes;
    bool has_time;
};

std::map<std::string, Seen> listing(const std::string& dir, local::ListOptions options, int& err) {
    std::string names;
    std::vector<local::ListedEntry> items;
    err = local::list_directory(dir, options, names, items);
    std::map<std::string, Seen> out;
    for (const auto& e : items) {
        out[names.substr(e.offset, e.size)] = Seen{e.kind, e.is_symlink, e.bytes, e.mtime_ns != 0};
    }
    return out;
}

// A directory with a file, a hidden file, a directory, links to both, a dangling link and a FIFO.
void fill(const agentskills_test::TempDir& dir) {
    dir.write("d/file.txt", "12345");
    dir.write("d/.hidden", "x");
    dir.mkdir("d/sub");
    std::filesystem::create_symlink("file.txt", dir.path("d/to-file"));
    std::filesystem::create_symlink("sub", dir.path("d/to-sub"));
    std::filesystem::create_symlink("nowhere", dir.path("d/dangling"));
    REQUIRE(::mkfifo(dir.path("d/fifo").c_str(), 0600) == 0);
}

}  // namespace

TEST_CASE("list_directory: kinds with links followed, hidden names, no dot entries", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = -1;
    const auto seen = listing(dir.path("d"), {.follow_symlinks = true, .stats = false}, err);
    CHECK(err == 0);
    REQUIRE(seen.size() == 7);
    CHECK(seen.count(".") == 0);
    CHECK(seen.count("..") == 0);
    CHECK(seen.at(".hidden").kind == EntryKind::file);
    CHECK(seen.at("file.txt").kind == EntryKind::file);
    CHECK_FALSE(seen.at("file.txt").is_symlink);
    CHECK(seen.at("sub").kind == EntryKind::directory);
    CHECK(seen.at("to-file").kind == EntryKind::file);
    CHECK(seen.at("to-file").is_symlink);
    CHECK(seen.at("to-sub").kind == EntryKind::directory);
    CHECK(seen.at("to-sub").is_symlink);
    CHECK(seen.at("dangling").kind == EntryKind::other);
    CHECK(seen.at("dangling").is_symlink);
    CHECK(seen.at("fifo").kind == EntryKind::other);
    CHECK(seen.at("file.txt").bytes == 0);  // no stats asked for
    CHECK_FALSE(seen.at("file.txt").has_time);
}

TEST_CASE("list_directory: links not followed are symlinks of kind other", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = -1;
    const auto seen = listing(dir.path("d"), {.follow_symlinks = false, .stats = false}, err);
    CHECK(err == 0);
    REQUIRE(seen.size() == 7);
    for (const char* link : {"to-file", "to-sub", "dangling"}) {
        CAPTURE(link);
        CHECK(seen.at(link).kind == EntryKind::other);
        CHECK(seen.at(link).is_symlink);
    }
    CHECK(seen.at("sub").kind == EntryKind::directory);
    CHECK(seen.at("file.txt").kind == EntryKind::file);
}

TEST_CASE("list_directory: stats give file sizes and times, a dangling link its own time", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = -1;
    const auto seen = listing(dir.path("d"), {.follow_symlinks = true, .stats = true}, err);
    CHECK(err == 0);
    CHECK(seen.at("file.txt").bytes == 5);
    CHECK(seen.at("file.txt").has_time);
    CHECK(seen.at("to-file").bytes == 5);
    CHECK(seen.at("sub").bytes == 0);
    CHECK(seen.at("dangling").kind == EntryKind::other);
    CHECK(seen.at("dangling").bytes == 0);
    CHECK(seen.at("dangling").has_time);
}

TEST_CASE("list_directory: errors are the errno of the failing call; the fd is taken over", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = 0;
    CHECK(listing(dir.path("missing"), {}, err).empty());
    CHECK(err == ENOENT);
    CHECK(listing(dir.path("d/file.txt"), {}, err).empty());
    CHECK(err == ENOTDIR);
    std::string names;
    std::vector<local::ListedEntry> items;
    CHECK(local::list_directory(-1, {}, names, items) == EBADF);
    const int fd = ::open(dir.path("d").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    CHECK(local::list_directory(fd, {}, names, items) == 0);
    CHECK(items.size() == 7);
    errno = 0;
    CHECK(::fcntl(fd, F_GETFD) == -1);  // closed by the listing
    CHECK(errno == EBADF);
}

TEST_CASE("list_kinds and LocalSkillReader::list_dir report what list_directory does", "[local-fs][reader]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    std::string names;
    std::vector<local::NameKind> kinds;
    REQUIRE(local::list_kinds(dir.path("d"), names, kinds));
    REQUIRE(kinds.size() == 7);
    std::map<std::string, local::NameKind> by_name;
    for (const auto& k : kinds) by_name[names.substr(k.offset, k.size)] = k;
    CHECK(by_name.at("to-sub").kind == EntryKind::directory);
    CHECK(by_name.at("to-sub").is_symlink);
    CHECK_FALSE(local::list_kinds(dir.path("missing"), names, kinds));

    LocalSkillReader reader;
    std::map<std::string, DirEntry> entries;
    for (auto& e : reader.list_dir(dir.path("d"))) entries[e.name] = e;
    REQUIRE(entries.size() == 7);
    CHECK(entries.at("to-file").kind == EntryKind::file);
    CHECK(entries.at("to-file").size == 5);
    CHECK(entries.at("dangling").kind == EntryKind::other);
    CHECK(entries.at("dangling").is_symlink);
    CHECK(entries.at("fifo").kind == EntryKind::other);
    CHECK_THROWS_AS(reader.list_dir(dir.path("missing")), NotFoundError);
    CHECK_THROWS_AS(reader.list_dir(dir.path("d/file.txt")), IoError);
}

TEST_CASE("LocalSkillReader::list_dir_kinds: list_dir's names and kinds, without sizes or times",
          "[local-fs][reader]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    LocalSkillReader reader;
    std::map<std::string, DirEntry> full;
    for (auto& e : reader.list_dir(dir.path("d"))) full[e.name] = e;
    std::map<std::string, DirEntry> kinds;
    for (auto& e : reader.list_dir_kinds(dir.path("d"))) kinds[e.name] = e;
    REQUIRE(kinds.size() == full.size());
    for (const auto& [name, e] : full) {
        CAPTURE(name);
        REQUIRE(kinds.count(name) == 1);
        CHECK(kinds.at(name).kind == e.kind);
        CHECK(kinds.at(name).is_symlink == e.is_symlink);
        CHECK(kinds.at(name).size == 0);
        CHECK(kinds.at(name).mtime_ns == 0);
    }
    CHECK(full.at("file.txt").size == 5);  // list_dir itself still stats
    CHECK_THROWS_AS(reader.list_dir_kinds(dir.path("missing")), NotFoundError);
    CHECK_THROWS_AS(reader.list_dir_kinds(dir.path("d/file.txt")), IoError);

    // A reader without its own: list_dir; a mount: its reader's.
    MemorySkillReader memory;
    memory.add_file("d/a.md", "abc");
    const auto listed = memory.list_dir_kinds("d");
    REQUIRE(listed.size() == 1);
    CHECK(listed[0].size == 3);
    const MountedReader mounted({{"local", std::make_shared<LocalSkillReader>(dir.path())}});
    CHECK(mounted.list_dir_kinds("/local/d").size() == full.size());
    CHECK(mounted.list_dir_kinds("/").size() == 1);
}

TEST_CASE("list_directory: a directory larger than one getdents64 buffer lists every entry once", "[local-fs]") {
    const agentskills_test::TempDir dir;
    // 1,500 entries of 60-byte names: about 120 KB of records, several calls of the 32 KiB buffer.
    constexpr int count = 1500;
    for (int i = 0; i < count; ++i) {
        dir.write(fmt::format("big/{:060d}", i), "");
    }
    dir.mkdir("big/a-directory");
    int err = -1;
    const auto seen = listing(dir.path("big"), {.follow_symlinks = true, .stats = false}, err);
    CHECK(err == 0);
    CHECK(seen.size() == count + 1);
    CHECK(seen.count(fmt::format("{:060d}", 0)) == 1);
    CHECK(seen.count(fmt::format("{:060d}", count - 1)) == 1);
    CHECK(seen.at(fmt::format("{:060d}", 777)).kind == EntryKind::file);
    CHECK(seen.at("a-directory").kind == EntryKind::directory);
    const auto with_stats = listing(dir.path("big"), {.follow_symlinks = true, .stats = true}, err);
    CHECK(err == 0);
    CHECK(with_stats.size() == count + 1);
}

// src/prefault.hpp: mapping an array's pages ahead changes neither its contents nor what the
// vector holds, whatever the size and alignment (and does nothing below its threshold).
TEST_CASE("prefault and reserve_prefaulted keep every byte and element", "[local_fs][prefault]") {
    SECTION("a filled buffer keeps its bytes, aligned or not, large or small") {
        for (const std::size_t size :
             {std::size_t{1}, std::size_t{4095}, std::size_t{300'000}, std::size_t{5'300'000}}) {
            std::vector<unsigned char> bytes(size + 7);
            for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 31 + 7);
            const std::vector<unsigned char> before = bytes;
            for (const std::size_t offset : {std::size_t{0}, std::size_t{3}, std::size_t{7}}) {
                detail::prefault(bytes.data() + offset, size);
                detail::prefault(bytes.data() + offset, size, 0);  // no threshold
            }
            CHECK(bytes == before);
        }
    }
    SECTION("null and empty ranges are ignored") {
        detail::prefault(nullptr, 1 << 20, 0);
        int x = 42;
        detail::prefault(&x, 0, 0);
        CHECK(x == 42);
    }
    SECTION("reserve_prefaulted reserves, and a vector that already holds elements keeps them") {
        std::vector<std::string> v{"first", std::string(100, 'x'), "third"};
        detail::reserve_prefaulted(v, 100'000);
        CHECK(v.capacity() >= 100'000);
        REQUIRE(v.size() == 3);
        CHECK(v[0] == "first");
        CHECK(v[1] == std::string(100, 'x'));
        CHECK(v[2] == "third");
        v.resize(100'000);
        CHECK(v[99'999].empty());
        std::vector<int> empty;
        detail::reserve_prefaulted(empty, 0);
        CHECK(empty.empty());
    }
}

}  // namespace local_fs_tests
