// Hostile input and faults (issue 8, acceptance 2). Each test builds a library with two good
// skills ("alpha" and "zulu") and something bad, discovers it, and ends by checking that both
// good skills are still there and that a diagnostic and a SkippedSkill name the bad file.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/compat/substrate.hpp>
#include <agentskills/parse/parser.hpp>
#include <agentskills/storage/reader.hpp>

#include "fs_fixtures.hpp"

using namespace agentskills;
namespace fs = std::filesystem;
using namespace std::string_literals;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HOSTILE_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HOSTILE_SANITIZED 1
#endif
#endif
#ifndef HOSTILE_SANITIZED
#define HOSTILE_SANITIZED 0
#endif

namespace {

std::string skill_text(std::string_view name, std::string_view description = "A good skill.") {
    return "---\nname: "s + std::string(name) + "\ndescription: " + std::string(description) + "\n---\nDo the thing.\n";
}

using agentskills_test::TempDir;

// A library "lib" in `tmp` with the two good skills; returns its path.
std::string make_library(const TempDir& tmp) {
    tmp.write("lib/alpha/SKILL.md", skill_text("alpha"));
    tmp.write("lib/zulu/SKILL.md", skill_text("zulu"));
    return tmp.path("lib");
}

// A memory library "lib" with the two good skills.
std::shared_ptr<MemorySkillReader> memory_library() {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/alpha/SKILL.md", skill_text("alpha"));
    mem->add_file("lib/alpha/scripts/run.sh", "echo alpha\n");
    mem->add_file("lib/zulu/SKILL.md", skill_text("zulu"));
    return mem;
}

Discovery discover_memory(const std::shared_ptr<MemorySkillReader>& mem, FilesystemLoaderOptions opt = {}) {
    if (!opt.reader) opt.reader = mem;
    if (opt.roots.empty()) opt.roots = {"lib"};
    FilesystemSkillLoader loader(std::move(opt));
    return loader.discover();
}

Discovery discover_local(const std::string& root, FilesystemLoaderOptions opt = {}) {
    opt.roots = {root};
    opt.include_default_roots = false;
    FilesystemSkillLoader loader(std::move(opt));
    return loader.discover();
}

std::vector<std::string> names_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

// The end of every test: the good skills survive, and the bad file is named by a skipped
// entry (with `reason`) and by an error diagnostic.
void require_survivors_and_named(const Discovery& d, const std::string& bad_file, SkipReason reason,
                                 std::string_view code = {}) {
    INFO("bad file: " << bad_file);
    const auto names = names_of(d);
    CHECK(std::find(names.begin(), names.end(), "alpha") != names.end());
    CHECK(std::find(names.begin(), names.end(), "zulu") != names.end());
    for (const auto& m : d.skills) CHECK(m.skill_file != bad_file);
    const auto skipped =
        std::find_if(d.skipped.begin(), d.skipped.end(), [&](const SkippedSkill& s) { return s.path == bad_file; });
    REQUIRE(skipped != d.skipped.end());
    CHECK(skipped->reason == reason);
    CHECK(skipped->message.find(bad_file) != std::string::npos);
    const auto diag = std::find_if(d.diagnostics.begin(), d.diagnostics.end(), [&](const Diagnostic& x) {
        return x.path == bad_file && x.severity == Severity::error && (code.empty() || x.code == code);
    });
    CHECK(diag != d.diagnostics.end());
}

// A reader over a MemorySkillReader whose faults the test injects: hooks run before each
// call (they may throw or change the tree). Safe for several threads if the hooks are.
class FaultyReader final : public SkillReader {
public:
    explicit FaultyReader(std::shared_ptr<MemorySkillReader> inner) : inner_(std::move(inner)) {}

    std::function<void(std::string_view)> before_read;
    std::function<void(std::string_view)> before_list;
    std::function<void(std::string_view)> before_stat;
    std::function<void(std::string_view)> after_stat;
    bool ignore_byte_limit = false;  ///< a careless reader that returns whole files
    /// Entries a broken reader adds to each listing.
    std::function<std::vector<DirEntry>(std::string_view)> extra_entries;

    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        if (before_read) before_read(path);
        return inner_->read_file(path, ignore_byte_limit ? 0 : max_bytes);
    }
    std::vector<DirEntry> list_dir(std::string_view path) const override {
        if (before_list) before_list(path);
        std::vector<DirEntry> out = inner_->list_dir(path);
        if (extra_entries) {
            for (auto& e : extra_entries(path)) out.push_back(std::move(e));
        }
        return out;
    }
    FileStat stat(std::string_view path) const override {
        if (before_stat) before_stat(path);
        FileStat st = inner_->stat(path);
        if (after_stat) after_stat(path);
        return st;
    }

private:
    std::shared_ptr<MemorySkillReader> inner_;
};

// A local reader that records the largest read it returned.
class CountingReader final : public SkillReader {
public:
    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        ReadResult r = local_.read_file(path, max_bytes);
        std::size_t seen = largest.load();
        while (r.data.size() > seen && !largest.compare_exchange_weak(seen, r.data.size())) {
        }
        return r;
    }
    std::vector<DirEntry> list_dir(std::string_view path) const override { return local_.list_dir(path); }
    FileStat stat(std::string_view path) const override { return local_.stat(path); }
    bool is_local() const noexcept override { return true; }

    mutable std::atomic<std::size_t> largest{0};

private:
    LocalSkillReader local_;
};

long read_status_kib(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(field);
    while (std::getline(in, line)) {
        if (line.compare(0, n, field) == 0) return std::stol(line.substr(n + 1));
    }
    return -1;
}

// Runs `work` in a forked child and returns how much the child's peak resident set grew while
// it ran, in KiB (-1 when it could not be measured). The child resets its high-water mark
// (/proc/self/clear_refs) so that the test binary's own footprint does not count.
long peak_rss_growth_kib(const std::function<void()>& work) {
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ::close(fds[0]);
        long growth = -1;
        try {
            bool reset = false;
            if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
                reset = std::fputs("5", f) >= 0;
                reset = (std::fclose(f) == 0) && reset;
            }
            rusage before{};
            ::getrusage(RUSAGE_SELF, &before);
            const long base = reset ? read_status_kib("VmRSS:") : before.ru_maxrss;
            work();
            rusage after{};
            ::getrusage(RUSAGE_SELF, &after);
            const long peak = reset ? read_status_kib("VmHWM:") : after.ru_maxrss;
            growth = peak - base;
        } catch (...) {
            growth = -2;
        }
        const auto written = ::write(fds[1], &growth, sizeof growth);
        ::_exit(written == static_cast<ssize_t>(sizeof growth) ? 0 : 1);
    }
    ::close(fds[1]);
    long growth = -1;
    if (::read(fds[0], &growth, sizeof growth) != static_cast<ssize_t>(sizeof growth)) growth = -1;
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return growth;
}

template <class F>
double seconds_of(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// "billion laughs": nine levels of nine aliases each (9^9 nodes if expanded).
std::string alias_bomb() {
    std::string s =
        "---\nname: bomb\ndescription: An alias bomb.\nmetadata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, "
        "lol]\n";
    for (int i = 1; i < 10; ++i) {
        s += "  a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
        for (int k = 0; k < 9; ++k) s += (k == 0 ? "*a" : ", *a") + std::to_string(i - 1);
        s += "]\n";
    }
    return s + "---\nBody\n";
}

// A frontmatter of 10,000 metadata lines.
std::string ten_thousand_lines() {
    std::string text = "---\nname: long\ndescription: Long frontmatter.\nmetadata:\n";
    for (int i = 0; i < 10000; ++i) text += "  key" + std::to_string(i) + ": value " + std::to_string(i) + "\n";
    return text + "---\nBody\n";
}

// 400 nested anchors over one collection of 95,000 scalars.
std::string nested_anchors() {
    std::string text = "---\nname: nest\ndescription: Nested anchors.\nmetadata:\n  k: ";
    constexpr int depth = 400;
    for (int i = 0; i < depth; ++i) text += "&n" + std::to_string(i) + " [";
    for (int i = 0; i < 95000; ++i) text += i == 0 ? "x" : ",x";
    return text + std::string(depth, ']') + "\n---\nBody\n";
}

// One 400 KB scalar aliased 20,000 times.
std::string byte_bomb() {
    std::string text =
        "---\nname: bytes\ndescription: Byte bomb.\nmetadata:\n  a: &a \"" + std::string(400000, 'x') + "\"\n  b: [*a";
    for (int i = 1; i < 20000; ++i) text += ", *a";
    return text + "]\n---\nBody\n";
}

// 30,000 metadata keys and 30,000 tags (25,000 distinct), each collection on one line.
std::string wide_collections() {
    std::string text = "---\nname: wide\ndescription: Wide.\nmetadata: {";
    for (int i = 0; i < 30000; ++i) text += (i == 0 ? "k" : ", k") + std::to_string(i) + ": v";
    text += "}\ntags: [";
    for (int i = 0; i < 30000; ++i) text += (i == 0 ? "t" : ", t") + std::to_string(i % 25000);
    return text + "]\n---\nBody\n";
}

// Writes lib/huge/SKILL.md as a sparse 100 MB file; returns its path.
std::string write_huge_skill_file(TempDir& tmp, const std::string& lib) {
    const std::string bad = lib + "/huge/SKILL.md";
    tmp.write("lib/huge/SKILL.md", skill_text("huge"));
    // A sparse file: 100 MB long, a few bytes on disk.
    const int fd = ::open(bad.c_str(), O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, 100L * 1024 * 1024) == 0);
    ::close(fd);
    REQUIRE(fs::file_size(bad) == 100U * 1024 * 1024);
    return bad;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Size limits
//
// These tests check that each bound fires (the diagnostic, the skip, the bytes asked for); how
// long the same inputs take is checked by the hidden "[perf]" test at the end of this file.

TEST_CASE("a 100 MB SKILL.md is read only up to the byte limit, in bounded memory", "[hostile]") {
    TempDir tmp;
    const std::string lib = make_library(tmp);
    const std::string bad = write_huge_skill_file(tmp, lib);

    auto reader = std::make_shared<CountingReader>();
    const Discovery d = discover_local(lib, {.reader = reader, .threads = 1});
    // The loader asked for at most the byte limit (the reader reads one byte more to know).
    CHECK(reader->largest.load() <= SKILL_MAX_FILE_BYTES);
    require_survivors_and_named(d, bad, SkipReason::too_large, "too-large");

    // Peak memory of a whole discovery stays far below the file's size.
    const long growth = peak_rss_growth_kib([&] { (void)discover_local(lib, {.threads = 1}); });
    INFO("peak RSS growth: " << growth << " KiB");
    REQUIRE(growth >= 0);
    CHECK(growth < 50L * 1024);
}

TEST_CASE("a reader that ignores the byte limit cannot push an oversized SKILL.md through", "[hostile]") {
    auto mem = memory_library();
    std::string big = skill_text("big") + std::string(2 * 1024 * 1024, 'x');
    mem->add_file("lib/big/SKILL.md", std::move(big));
    auto reader = std::make_shared<FaultyReader>(mem);
    reader->ignore_byte_limit = true;
    const Discovery d = discover_memory(mem, {.reader = reader});
    require_survivors_and_named(d, "lib/big/SKILL.md", SkipReason::too_large, "too-large");
}

TEST_CASE("a 10,000-line frontmatter is refused by the line limit, and parses within bounds without it", "[hostile]") {
    auto mem = memory_library();
    mem->add_file("lib/long/SKILL.md", ten_thousand_lines());

    const Discovery d = discover_memory(mem);
    require_survivors_and_named(d, "lib/long/SKILL.md", SkipReason::too_large, "too-many-lines");

    // With the line limit off, the same file is an ordinary (large) skill.
    const Discovery unlimited = discover_memory(mem, {.max_lines = 0});
    CHECK(unlimited.skills.size() == 3);
    const auto it =
        std::find_if(unlimited.skills.begin(), unlimited.skills.end(), [](const auto& m) { return m.name == "long"; });
    REQUIRE(it != unlimited.skills.end());
    CHECK(it->metadata.size() == 10000);
    CHECK(it->metadata.back() == std::pair<std::string, std::string>{"key9999", "value 9999"});
}

// ---------------------------------------------------------------------------------------
// Hostile YAML

TEST_CASE("a YAML alias bomb in metadata costs bounded time and memory", "[hostile]") {
    auto mem = memory_library();
    mem->add_file("lib/bomb/SKILL.md", alias_bomb());
    const Discovery d = discover_memory(mem, {.threads = 1});
    require_survivors_and_named(d, "lib/bomb/SKILL.md", SkipReason::invalid, "yaml-too-complex");

    if (!HOSTILE_SANITIZED) {
        const long growth = peak_rss_growth_kib([&] { (void)discover_memory(mem, {.threads = 1}); });
        INFO("peak RSS growth: " << growth << " KiB");
        REQUIRE(growth >= 0);
        CHECK(growth < 50L * 1024);
    }
}

TEST_CASE("nested anchors over one large collection do not copy it once per level", "[hostile]") {
    // Regression (found while fuzzing): each anchored level copied its whole subtree into the
    // anchor table, so 490 levels over 95,000 scalars (a 190 KB file) took about 4 GB.
    auto mem = memory_library();
    mem->add_file("lib/nest/SKILL.md", nested_anchors());
    const Discovery d = discover_memory(mem, {.threads = 1});
    require_survivors_and_named(d, "lib/nest/SKILL.md", SkipReason::invalid, "yaml-too-complex");
    if (!HOSTILE_SANITIZED) {
        const long growth = peak_rss_growth_kib([&] { (void)discover_memory(mem, {.threads = 1}); });
        INFO("peak RSS growth: " << growth << " KiB");
        REQUIRE(growth >= 0);
        CHECK(growth < 100L * 1024);
    }
}

TEST_CASE("one long scalar aliased many times is a bomb in bytes, and is bounded", "[hostile]") {
    // Regression (found while writing these tests): the node budget counted an alias of a
    // 400 KB scalar as one node, so 20,000 such aliases (a 480 KB file) asked for 8 GB.
    auto mem = memory_library();
    mem->add_file("lib/bytes/SKILL.md", byte_bomb());
    const Discovery d = discover_memory(mem, {.threads = 1});
    require_survivors_and_named(d, "lib/bytes/SKILL.md", SkipReason::invalid, "yaml-too-complex");
    if (!HOSTILE_SANITIZED) {
        const long growth = peak_rss_growth_kib([&] { (void)discover_memory(mem, {.threads = 1}); });
        INFO("peak RSS growth: " << growth << " KiB");
        REQUIRE(growth >= 0);
        CHECK(growth < 50L * 1024);
    }

    // A few aliases of a long scalar are fine.
    std::string few = "---\nname: few\ndescription: Few aliases.\nmetadata:\n  a: &a \"" + std::string(100000, 'y') +
                      "\"\n  b: [*a, *a, *a]\n---\nBody\n";
    mem->add_file("lib/few/SKILL.md", few);
    CHECK(names_of(discover_memory(mem)) == std::vector<std::string>{"alpha", "few", "zulu"});
}

TEST_CASE("wide collections on one line are handled in linear time", "[hostile]") {
    // Regression: metadata keys and list items were de-duplicated with a linear search each,
    // so 30,000 keys and 30,000 tags on two lines (a 540 KB file) took 30 s in a Debug build.
    auto mem = memory_library();
    mem->add_file("lib/wide/SKILL.md", wide_collections());
    const Discovery d = discover_memory(mem, {.threads = 1});
    const auto it = std::find_if(d.skills.begin(), d.skills.end(), [](const auto& m) { return m.name == "wide"; });
    REQUIRE(it != d.skills.end());
    CHECK(it->metadata.size() == 30000);
    CHECK(it->tags.size() == 25000);
    CHECK(names_of(d) == std::vector<std::string>{"alpha", "wide", "zulu"});

    // Past the node budget, the same shape is refused, and named.
    std::string huge = "---\nname: wider\ndescription: Wider.\nmetadata: {";
    for (int i = 0; i < 60000; ++i) huge += (i == 0 ? "k" : ", k") + std::to_string(i) + ": v";
    huge += "}\n---\n";
    mem->add_file("lib/wider/SKILL.md", huge);
    require_survivors_and_named(discover_memory(mem, {.threads = 1}), "lib/wider/SKILL.md", SkipReason::invalid,
                                "yaml-too-complex");
}

TEST_CASE("a 10,000-deep nested collection does not overflow the stack", "[hostile]") {
    constexpr int depth = 10000;
    const std::string flow_sequence = std::string(depth, '[') + "x" + std::string(depth, ']');
    std::string flow_mapping;
    for (int i = 0; i < depth; ++i) flow_mapping += "{a: ";
    flow_mapping += "x" + std::string(depth, '}');
    std::string block_sequence;
    for (int i = 0; i < depth; ++i) block_sequence += "- ";
    block_sequence += "x";

    const std::vector<std::pair<std::string, std::string>> shapes = {
        {"flow-sequence", "metadata:\n  deep: " + flow_sequence + "\n"},
        {"flow-mapping", "metadata:\n  deep: " + flow_mapping + "\n"},
        {"block-sequence", "tags:\n  " + block_sequence + "\n"},
        {"top-level", "deep: " + flow_sequence + "\n"},
    };
    for (const auto& [shape, yaml] : shapes) {
        SECTION(shape) {
            auto mem = memory_library();
            mem->add_file("lib/deep/SKILL.md", "---\nname: deep\ndescription: Deep.\n" + yaml + "---\nBody\n");
            const Discovery d = discover_memory(mem, {.max_lines = 0});
            require_survivors_and_named(d, "lib/deep/SKILL.md", SkipReason::invalid);
        }
    }
}

TEST_CASE("NUL bytes in a SKILL.md skip it", "[hostile]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"name", "---\nname: nul\0x\ndescription: d\n---\nBody\n"s},
        {"description", "---\nname: nul\ndescription: a\0b\n---\nBody\n"s},
        {"body", "---\nname: nul\ndescription: d\n---\nBody\0tail\n"s},
        {"first byte", "\0---\nname: nul\ndescription: d\n---\nBody\n"s},
    };
    for (const auto& [where, text] : cases) {
        SECTION(where) {
            auto mem = memory_library();
            mem->add_file("lib/nul/SKILL.md", text);
            const Discovery d = discover_memory(mem);
            require_survivors_and_named(d, "lib/nul/SKILL.md", SkipReason::invalid, "nul-byte");
        }
    }
}

TEST_CASE("invalid UTF-8 in name, description or body skips the skill", "[hostile]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"name", "---\nname: bad\xC3\x28\ndescription: d\n---\nBody\n"},
        {"description", "---\nname: bad\ndescription: over\xC0\xAFlong\n---\nBody\n"},
        {"body", "---\nname: bad\ndescription: d\n---\nBody \xED\xA0\x80 surrogate\n"},
        {"truncated sequence at the end", "---\nname: bad\ndescription: d\n---\nBody \xE2\x82"},
        {"beyond U+10FFFF", "---\nname: bad\ndescription: d\n---\n\xF4\x90\x80\x80\n"},
    };
    for (const auto& [where, text] : cases) {
        SECTION(where) {
            auto mem = memory_library();
            mem->add_file("lib/bad/SKILL.md", text);
            const Discovery d = discover_memory(mem);
            require_survivors_and_named(d, "lib/bad/SKILL.md", SkipReason::invalid, "invalid-utf8");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Odd files on disk

TEST_CASE("a FIFO named SKILL.md does not block discovery", "[hostile]") {
    TempDir tmp;
    const std::string lib = make_library(tmp);
    fs::create_directories(lib + "/fifo");
    const std::string bad = lib + "/fifo/SKILL.md";
    REQUIRE(::mkfifo(bad.c_str(), 0600) == 0);

    // Watchdog: if discovery is stuck opening or reading the FIFO, a writer unblocks it (and
    // the test fails) instead of hanging the suite.
    std::atomic<bool> done{false};
    std::atomic<bool> had_to_unblock{false};
    std::thread watchdog([&] {
        for (int i = 0; i < 100 && !done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
        while (!done.load()) {
            const int fd = ::open(bad.c_str(), O_WRONLY | O_NONBLOCK);
            if (fd >= 0) {
                had_to_unblock = true;
                ::close(fd);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
    Discovery d;
    try {
        d = discover_local(lib);
    } catch (...) {
        done = true;
        watchdog.join();
        throw;
    }
    done = true;
    watchdog.join();
    CHECK_FALSE(had_to_unblock.load());
    require_survivors_and_named(d, bad, SkipReason::unreadable);
}

TEST_CASE("a SKILL.md that is a directory is skipped", "[hostile]") {
    TempDir tmp;
    const std::string lib = make_library(tmp);
    tmp.write("lib/dir/SKILL.md/inner.txt", "x");
    const std::string bad = lib + "/dir/SKILL.md";
    require_survivors_and_named(discover_local(lib), bad, SkipReason::unreadable);

    // The same through the in-memory reader.
    auto mem = memory_library();
    mem->add_file("lib/dir/SKILL.md/inner.txt", "x");
    require_survivors_and_named(discover_memory(mem), "lib/dir/SKILL.md", SkipReason::unreadable);
}

TEST_CASE("symlink loops do not hang discovery or loading", "[hostile]") {
    TempDir tmp;
    const std::string lib = make_library(tmp);
    // A SKILL.md that is a link to itself.
    fs::create_directories(lib + "/self");
    const std::string bad = lib + "/self/SKILL.md";
    fs::create_symlink("SKILL.md", bad);
    // Two skill directories that point at each other, and one that points at itself.
    fs::create_directory_symlink(lib + "/ping", lib + "/pong");
    fs::create_directory_symlink(lib + "/pong", lib + "/ping");
    fs::create_directory_symlink(lib + "/loop", lib + "/loop");
    // Inside a good skill: a directory link back to the skill, and to the library.
    fs::create_directories(lib + "/alpha/references");
    tmp.write("lib/alpha/references/guide.md", "guide");
    fs::create_directory_symlink(lib + "/alpha", lib + "/alpha/references/again");
    fs::create_directory_symlink(lib, lib + "/alpha/up");

    const Discovery d = discover_local(lib);
    require_survivors_and_named(d, bad, SkipReason::unreadable);

    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {lib}, .include_default_roots = false});
    const auto catalog = discover_skill_catalog(loader);
    const LoadedSkill alpha = catalog->load("alpha");
    REQUIRE(alpha.resources.size() == 1);
    CHECK(alpha.resources[0].path == "references/guide.md");
}

TEST_CASE("a library child that is a dangling or looping symlink is reported", "[hostile]") {
    TempDir tmp;
    const std::string lib = make_library(tmp);
    fs::create_directory_symlink(lib + "/loop", lib + "/loop");
    fs::create_directory_symlink(lib + "/nowhere", lib + "/dangling");
    const Discovery d = discover_local(lib);
    for (const auto& bad : std::vector<std::string>{lib + "/loop", lib + "/dangling"}) {
        INFO("bad: " << bad);
        const auto names = names_of(d);
        CHECK(names == std::vector<std::string>{"alpha", "zulu"});
        const auto skipped =
            std::find_if(d.skipped.begin(), d.skipped.end(), [&](const SkippedSkill& s) { return s.path == bad; });
        REQUIRE(skipped != d.skipped.end());
        CHECK(skipped->reason == SkipReason::unreadable);
        CHECK(skipped->message.find(bad) != std::string::npos);
        const auto diag = std::find_if(d.diagnostics.begin(), d.diagnostics.end(),
                                       [&](const Diagnostic& x) { return x.path == bad; });
        CHECK(diag != d.diagnostics.end());
    }
}

// ---------------------------------------------------------------------------------------
// Faults of the reader

TEST_CASE("a skill directory that disappears during discovery", "[hostile]") {
    SECTION("between its stat and its read") {
        auto mem = memory_library();
        mem->add_file("lib/vanish/SKILL.md", skill_text("vanish"));
        auto reader = std::make_shared<FaultyReader>(mem);
        reader->after_stat = [&](std::string_view path) {
            if (path == "lib/vanish/SKILL.md") mem->remove("lib/vanish");
        };
        const Discovery d = discover_memory(mem, {.reader = reader, .threads = 1});
        require_survivors_and_named(d, "lib/vanish/SKILL.md", SkipReason::unreadable);
    }
    SECTION("right after the library was listed") {
        auto mem = memory_library();
        mem->add_file("lib/vanish/SKILL.md", skill_text("vanish"));
        auto reader = std::make_shared<FaultyReader>(mem);
        reader->before_stat = [&](std::string_view path) {
            if (path == "lib/vanish/SKILL.md") mem->remove("lib/vanish");
        };
        const Discovery d = discover_memory(mem, {.reader = reader, .threads = 1});
        // Nothing is left to name: the directory is simply not a skill any more.
        CHECK(names_of(d) == std::vector<std::string>{"alpha", "zulu"});
    }
    SECTION("between discovery and load") {
        auto mem = memory_library();
        auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem});
        const auto catalog = discover_skill_catalog(loader);
        REQUIRE(catalog->has("alpha"));
        mem->remove("lib/alpha");
        CHECK_THROWS_AS(catalog->load("alpha"), NotFoundError);
        CHECK(catalog->load("zulu").manifest.name == "zulu");
    }
}

TEST_CASE("a reader that throws on one skill costs only that skill", "[hostile]") {
    const std::vector<std::pair<std::string, std::function<void()>>> faults = {
        {"IoError", [] { throw IoError("injected I/O failure"); }},
        {"PathError", [] { throw PathError("injected path refusal"); }},
        {"std::runtime_error", [] { throw std::runtime_error("injected foreign exception"); }},
        {"std::bad_alloc", [] { throw std::bad_alloc(); }},
    };
    for (const auto& entry : faults) {
        const std::string& kind = entry.first;
        const std::function<void()>& fault = entry.second;  // not a structured binding: lambdas capture it
        SECTION("read_file throws " + kind) {
            auto mem = memory_library();
            mem->add_file("lib/faulty/SKILL.md", skill_text("faulty"));
            auto reader = std::make_shared<FaultyReader>(mem);
            reader->before_read = [&](std::string_view path) {
                if (path == "lib/faulty/SKILL.md") fault();
            };
            const Discovery d = discover_memory(mem, {.reader = reader, .threads = 2});
            require_survivors_and_named(d, "lib/faulty/SKILL.md", SkipReason::unreadable);
        }
        SECTION("stat throws " + kind) {
            auto mem = memory_library();
            mem->add_file("lib/faulty/SKILL.md", skill_text("faulty"));
            auto reader = std::make_shared<FaultyReader>(mem);
            reader->before_stat = [&](std::string_view path) {
                if (path == "lib/faulty/SKILL.md") fault();
            };
            const Discovery d = discover_memory(mem, {.reader = reader, .threads = 2});
            require_survivors_and_named(d, "lib/faulty/SKILL.md", SkipReason::unreadable);
        }
    }
    SECTION("listing the resources throws at load") {
        auto mem = memory_library();
        auto reader = std::make_shared<FaultyReader>(mem);
        auto loader =
            std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = reader});
        const auto catalog = discover_skill_catalog(loader);
        reader->before_list = [](std::string_view path) {
            if (path.starts_with("lib/alpha")) throw IoError("injected listing failure");
        };
        CHECK_THROWS_AS(catalog->load("alpha"), IoError);
        CHECK(catalog->load("zulu").manifest.name == "zulu");
    }
}

TEST_CASE("a reader that lists hostile entry names cannot lead the loader out of its root", "[hostile][paths]") {
    auto mem = memory_library();
    mem->add_file("SKILL.md", skill_text("outside"));  // above the library root "lib"
    mem->add_file("lib/alpha/secret/SKILL.md", "nested");
    auto reader = std::make_shared<FaultyReader>(mem);
    reader->extra_entries = [](std::string_view) {
        std::vector<DirEntry> out;
        for (const auto& name : std::vector<std::string>{"..", ".", "", "x/../..", "a\\b", "nul\0"s}) {
            out.push_back(DirEntry{.name = name, .kind = EntryKind::directory});
        }
        return out;
    };
    const Discovery d = discover_memory(mem, {.reader = reader, .threads = 1});
    CHECK(names_of(d) == std::vector<std::string>{"alpha", "zulu"});
    const auto warned = std::count_if(d.diagnostics.begin(), d.diagnostics.end(),
                                      [](const Diagnostic& x) { return x.path.starts_with("lib"); });
    CHECK(warned >= 6);

    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {"lib"}, .reader = reader, .threads = 1});
    const auto catalog = discover_skill_catalog(loader);
    const LoadedSkill alpha = catalog->load("alpha");
    for (const auto& r : alpha.resources) {
        INFO("resource: " << r.path);
        CHECK_FALSE(r.path.starts_with(".."));
        CHECK(r.path.find("/..") == std::string::npos);
        CHECK(r.path.find('\0') == std::string::npos);
    }
    CHECK(alpha.resources == std::vector<SkillResource>{{"scripts/run.sh"}, {"secret/SKILL.md"}});
}

// ---------------------------------------------------------------------------------------
// Hostile paths given to every API that takes one

namespace {

const std::vector<std::string>& hostile_paths() {
    static const std::vector<std::string> paths = {
        "",      "..",         "../lib", "lib/../..",  "lib/../../etc/passwd", "/etc/passwd",
        "/",     "lib/\0/x"s,  "lib\0"s, "lib\\alpha", "..\\..\\windows",      "~",
        "~/lib", "lib/~alpha", "C:/lib", "lib/c:",
    };
    return paths;
}

bool is_absolute_only(std::string_view p) {
    return !p.empty() && p.front() == '/' && p.find('\0') == std::string_view::npos &&
           p.find('\\') == std::string_view::npos;
}

}  // namespace

TEST_CASE("hostile paths: normalize_relative_path and normalize_virtual_path refuse them", "[hostile][paths]") {
    for (const auto& p : hostile_paths()) {
        INFO("path: " << p);
        CHECK_THROWS_AS(normalize_relative_path(p), PathError);
        if (p == "/" || p == "/etc/passwd") {
            CHECK(normalize_virtual_path(p) == p);  // rooted paths are the virtual namespace
        } else if (p == ".." || p == "../lib" || p == "lib/../.." || p == "lib/../../etc/passwd") {
            CHECK_THROWS_AS(normalize_virtual_path(p, "/"), PathError);
            CHECK(normalize_virtual_path(p, "/a/b/c").starts_with("/"));  // enough room to climb
        } else {
            CHECK_THROWS_AS(normalize_virtual_path(p, "/"), PathError);
        }
        // As a working directory, too.
        if (!is_absolute_only(p)) CHECK_THROWS_AS(normalize_virtual_path("x", p), PathError);
    }
    // join_path is lexical and never throws; what it builds is checked by whoever reads it.
    for (const auto& p : hostile_paths()) CHECK_NOTHROW((void)join_path("lib", p));
}

TEST_CASE("hostile paths: MemorySkillReader refuses them in every member", "[hostile][paths]") {
    auto mem = memory_library();
    for (const auto& p : hostile_paths()) {
        INFO("path: " << p);
        CHECK_THROWS_AS(mem->add_file(p, "x"), PathError);
        CHECK_THROWS_AS(mem->add_directory(p), PathError);
        CHECK_THROWS_AS(mem->remove(p), PathError);
        CHECK_THROWS_AS(mem->read_file(p, 0), PathError);
        CHECK_THROWS_AS(mem->list_dir(p), PathError);
        CHECK_THROWS_AS(mem->stat(p), PathError);
        CHECK_THROWS_AS(list_skill_resources(*mem, p), PathError);
    }
    // Nothing was added or removed.
    CHECK(names_of(discover_memory(mem)) == std::vector<std::string>{"alpha", "zulu"});
}

TEST_CASE("hostile paths: MountedReader refuses them and never leaves its mounts", "[hostile][paths]") {
    auto mem = memory_library();
    const auto mounted =
        std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"m", mem}});
    for (const auto& p : hostile_paths()) {
        INFO("path: " << p);
        // Every hostile path is refused, or (rooted ones) lands on an unknown mount or on `/`.
        CHECK_THROWS_AS(mounted->read_file(p, 0), Error);
        if (p != "/") CHECK_THROWS_AS(mounted->list_dir(p), Error);  // "/" lists the mounts
        const std::string under_mount = "/m/" + p;
        if (p.find('\0') != std::string::npos || p.find('\\') != std::string::npos || p.starts_with("~") ||
            p.find("/~") != std::string::npos || p.find(':') != std::string::npos) {
            CHECK_THROWS_AS(mounted->read_file(under_mount, 0), PathError);
            CHECK_THROWS_AS(mounted->stat(under_mount), PathError);
            CHECK_THROWS_AS(mounted->resolve(under_mount), PathError);
        }
    }
    CHECK_THROWS_AS(mounted->read_file("/m/../../lib/alpha/SKILL.md", 0), PathError);
    CHECK_THROWS_AS(mounted->read_file("/m/lib/../../../x", 0), PathError);
    CHECK_THROWS_AS(mounted->read_file("/mm/lib/alpha/SKILL.md", 0), NotFoundError);  // no prefix match
    CHECK_THROWS_AS(mounted->read_file("/", 0), IoError);
    CHECK_THROWS_AS(mounted->read_file("/m", 0), IoError);
    CHECK(mounted->read_file("/m/lib/./alpha//SKILL.md", 0).data == skill_text("alpha"));

    // Mount names and working directories are checked at construction.
    for (const auto& name : std::vector<std::string>{""s, "."s, ".."s, "a/b"s, "a\0b"s, "a\\b"s, "~m"s, "c:"s}) {
        INFO("mount name: " << name);
        CHECK_THROWS_AS(MountedReader({{name, mem}}), ConfigurationError);
    }
    CHECK(MountedReader({{"m", mem}}, "m/lib").cwd() == "/m/lib");  // a relative cwd starts from "/"
    for (const auto& cwd : std::vector<std::string>{"/../x"s, "/a\0b"s, "/a\\b"s, "/~"s}) {
        INFO("cwd: " << cwd);
        CHECK_THROWS_AS(MountedReader({{"m", mem}}, cwd), ConfigurationError);
    }
}

TEST_CASE("hostile paths: FilesystemSkillLoader roots with injected readers", "[hostile][paths]") {
    auto mem = memory_library();
    for (const auto& p : hostile_paths()) {
        INFO("root: " << p);
        CHECK_THROWS_AS(FilesystemSkillLoader({.roots = {p}, .reader = mem}), ConfigurationError);
    }
    const auto mounted =
        std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"m", mem}});
    for (const auto& root :
         std::vector<std::string>{""s, "/m/../.."s, "~"s, "/m/~x"s, "/m/a\0b"s, "/m/a\\b"s, "/m/C:"s, "../m"s}) {
        INFO("mounted root: " << root);
        CHECK_THROWS_AS(FilesystemSkillLoader({.roots = {root}, .reader = mounted}), ConfigurationError);
    }
    // A rooted path to an unknown mount is just a missing root.
    FilesystemSkillLoader missing({.roots = {"/etc", "/m/lib"}, .reader = mounted});
    CHECK(names_of(missing.discover()) == std::vector<std::string>{"alpha", "zulu"});

    // The local reader: a NUL is refused (never truncated into another path).
    bool refused = false;
    try {
        FilesystemSkillLoader local({.roots = {"/tmp\0/etc"s}, .include_default_roots = false});
        (void)local.discover();
    } catch (const Error&) {
        refused = true;
    }
    CHECK(refused);
    const LocalSkillReader local_reader;
    CHECK_THROWS_AS(local_reader.read_file("/etc/hostname\0x"s, 0), PathError);
    CHECK_THROWS_AS(local_reader.list_dir("/etc\0"s), PathError);
    CHECK_THROWS_AS(local_reader.stat(""), PathError);
    // `~` is an ordinary name for the local reader: it is never expanded to a home directory.
    CHECK_THROWS_AS(local_reader.read_file("~/.profile", 0), NotFoundError);
}

TEST_CASE("hostile paths: SkillCatalog::load and list_skill_resources", "[hostile][paths]") {
    auto mem = memory_library();
    auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem});
    const auto catalog = discover_skill_catalog(loader);
    for (const auto& p : hostile_paths()) {
        INFO("name: " << p);
        CHECK_FALSE(catalog->has(p));
        CHECK_THROWS_AS(catalog->load(p), NotFoundError);
        CHECK_THROWS_AS(loader->load(p), NotFoundError);
    }
    for (const auto& name : std::vector<std::string>{"lib/alpha"s, "alpha/../zulu"s, "alpha\0"s, "./alpha"s}) {
        INFO("name: " << name);
        CHECK_THROWS_AS(catalog->load(name), NotFoundError);
    }
    CHECK(catalog->load("alpha").resources == std::vector<SkillResource>{{"scripts/run.sh"}});

    const auto mounted =
        std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"m", mem}});
    CHECK_THROWS_AS(list_skill_resources(*mounted, "/m/../../lib/alpha"), PathError);
    CHECK_THROWS_AS(list_skill_resources(*mounted, "/m/lib/alpha\\x"), PathError);
    CHECK(list_skill_resources(*mounted, "/m/lib/alpha") == std::vector<SkillResource>{{"scripts/run.sh"}});
}

TEST_CASE("hostile paths: SkillPackage::read_reference stays inside the skill", "[hostile][paths]") {
    TempDir tmp;
    const std::string lib = make_library(tmp);
    tmp.write("lib/alpha/references/guide.md", "guide");
    tmp.write("outside.txt", "secret");
    fs::create_symlink(tmp.dir() / "outside.txt", lib + "/alpha/references/escape.md");
    fs::create_directory_symlink(tmp.dir(), lib + "/alpha/references/up");
    fs::create_symlink("loop.md", lib + "/alpha/references/loop.md");
    REQUIRE(::mkfifo((lib + "/alpha/references/fifo.md").c_str(), 0600) == 0);

    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {lib}, .include_default_roots = false});
    const auto catalog = discover_skill_catalog(loader);
    const SkillPackage package(catalog->load("alpha"));
    CHECK(package.read_reference("guide.md") == "guide");
    CHECK(package.read_reference("references/guide.md", 3) == "gui");
    for (const auto& p : hostile_paths()) {
        INFO("path: " << p);
        CHECK_THROWS_AS(package.read_reference(p), PathError);
    }
    CHECK_THROWS_AS(package.read_reference("escape.md"), PathError);
    CHECK_THROWS_AS(package.read_reference("up/outside.txt"), PathError);
    CHECK_THROWS_AS(package.read_reference("references/../../zulu/SKILL.md"), PathError);
    // A symlink loop and a FIFO are refused or absent, never followed or waited on.
    bool loop_refused = false;
    try {
        loop_refused = !package.read_reference("loop.md").has_value();
    } catch (const PathError&) {
        loop_refused = true;
    }
    CHECK(loop_refused);
    bool fifo_refused = false;
    try {
        fifo_refused = !package.read_reference("fifo.md").has_value();
    } catch (const Error&) {
        fifo_refused = true;
    }
    CHECK(fifo_refused);

    // Through an in-memory reader and a mounted one.
    auto mem = memory_library();
    mem->add_file("lib/alpha/references/guide.md", "guide");
    const auto mounted =
        std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"m", mem}});
    for (const SkillReaderPtr& reader : {SkillReaderPtr(mem), SkillReaderPtr(mounted)}) {
        auto l = std::make_shared<FilesystemSkillLoader>(
            FilesystemLoaderOptions{.roots = {reader == mounted ? "/m/lib" : "lib"}, .reader = reader});
        const SkillPackage p(discover_skill_catalog(l)->load("alpha"), reader);
        CHECK(p.read_reference("guide.md") == "guide");
        for (const auto& h : hostile_paths()) {
            INFO("path: " << h);
            CHECK_THROWS_AS(p.read_reference(h), PathError);
        }
        CHECK_THROWS_AS(p.read_reference("../zulu/SKILL.md"), PathError);
    }
}

// ---------------------------------------------------------------------------------------
// Concurrency (run under ThreadSanitizer in CI)

TEST_CASE("concurrent discover and load while the tree changes", "[concurrency][hostile]") {
    auto mem = memory_library();
    for (int i = 0; i < 20; ++i)
        mem->add_file("lib/s" + std::to_string(i) + "/SKILL.md", skill_text("s" + std::to_string(i)));
    mem->add_file("lib/bomb/SKILL.md", alias_bomb());
    auto loader =
        std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem, .threads = 4});

    std::atomic<bool> stop{false};
    std::atomic<int> discoveries{0};
    std::atomic<int> loads{0};
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
        threads.emplace_back([&] {
            while (!stop.load()) {
                try {
                    const Discovery d = loader->discover();
                    // The good skills are always there; the churned one may or may not be.
                    const auto names = names_of(d);
                    if (std::find(names.begin(), names.end(), "alpha") == names.end()) ++failures;
                    ++discoveries;
                } catch (...) {
                    ++failures;
                }
            }
        });
    }
    for (int t = 0; t < 2; ++t) {
        threads.emplace_back([&] {
            while (!stop.load()) {
                try {
                    if (loader->load("alpha").manifest.name != "alpha") ++failures;
                    ++loads;
                } catch (...) {
                    ++failures;
                }
                try {
                    (void)loader->load("churn");
                } catch (const NotFoundError&) {
                } catch (...) {
                    ++failures;
                }
            }
        });
    }
    for (int i = 0; i < 200; ++i) {
        if (i % 2 == 0) {
            mem->add_file("lib/churn/SKILL.md", skill_text("churn", "Version " + std::to_string(i)));
            mem->add_file("lib/churn/references/r.md", "r");
        } else {
            mem->remove("lib/churn");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    while (discoveries.load() < 5 || loads.load() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop = true;
    for (auto& t : threads) t.join();
    CHECK(failures.load() == 0);

    const Discovery last = loader->discover();
    require_survivors_and_named(last, "lib/bomb/SKILL.md", SkipReason::invalid, "yaml-too-complex");
}

TEST_CASE("a shared catalog answers from several threads", "[concurrency][hostile]") {
    auto mem = memory_library();
    mem->add_file("lib/nul/SKILL.md", "---\nname: nul\ndescription: a\0b\n---\n"s);
    auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem});
    const auto catalog = discover_skill_catalog(loader);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 50; ++i) {
                const char* name = (i + t) % 2 == 0 ? "alpha" : "zulu";
                try {
                    if (!catalog->has(name) || catalog->load(name).manifest.name != name) ++failures;
                    if (catalog->has("nul") || catalog->has("../alpha")) ++failures;
                } catch (...) {
                    ++failures;
                }
            }
        });
    }
    for (auto& t : threads) t.join();
    CHECK(failures.load() == 0);
    require_survivors_and_named(loader->discover(), "lib/nul/SKILL.md", SkipReason::invalid, "nul-byte");
}

TEST_CASE("discovery with worker threads gives the same result as without", "[concurrency][hostile]") {
    auto mem = memory_library();
    for (int i = 0; i < 40; ++i) {
        const std::string n = "k" + std::to_string(i);
        mem->add_file("lib/" + n + "/SKILL.md", i % 5 == 0 ? "---\nname: " + n + "\n---\n" : skill_text(n));
    }
    mem->add_file("lib/bomb/SKILL.md", alias_bomb());
    const Discovery one = discover_memory(mem, {.threads = 1});
    const Discovery many = discover_memory(mem, {.threads = 8});
    CHECK(names_of(one) == names_of(many));
    REQUIRE(one.skipped.size() == many.skipped.size());
    for (std::size_t i = 0; i < one.skipped.size(); ++i) CHECK(one.skipped[i].path == many.skipped[i].path);
    CHECK(one.diagnostics == many.diagnostics);
    require_survivors_and_named(many, "lib/bomb/SKILL.md", SkipReason::invalid, "yaml-too-complex");
}

// ---------------------------------------------------------------------------------------
// Time bounds (hidden: run with `agentskills_tests "[perf]"` or `ctest -C perf -L perf`)

TEST_CASE("perf: hostile SKILL.md files are discovered within their time bounds", "[.][perf]") {
    // Generous bounds for a busy machine; the figures on an idle one are far lower.
    struct Case {
        const char* name;
        std::string file;
        FilesystemLoaderOptions options;
        double max_seconds;
    };
    const std::vector<Case> cases = {
        {"10,000 lines, no line limit", ten_thousand_lines(), {.max_lines = 0}, 10.0},
        {"alias bomb", alias_bomb(), {.threads = 1}, 5.0},
        {"nested anchors", nested_anchors(), {.threads = 1}, 10.0},
        {"byte bomb", byte_bomb(), {.threads = 1}, 5.0},
        {"wide collections", wide_collections(), {.threads = 1}, 10.0},
    };
    for (const auto& c : cases) {
        SECTION(c.name) {
            auto mem = memory_library();
            mem->add_file("lib/hostile/SKILL.md", c.file);
            Discovery d;
            const double secs = seconds_of([&] { d = discover_memory(mem, c.options); });
            INFO(c.name << ": " << secs << " s");
            CHECK(secs < c.max_seconds);
            CHECK(names_of(d).size() >= 2);
        }
    }
    SECTION("a sparse 100 MB SKILL.md") {
        TempDir tmp;
        const std::string lib = make_library(tmp);
        (void)write_huge_skill_file(tmp, lib);
        Discovery d;
        const double secs = seconds_of([&] { d = discover_local(lib, {.threads = 1}); });
        CHECK(secs < 10.0);
        CHECK(names_of(d) == std::vector<std::string>{"alpha", "zulu"});
    }
}
