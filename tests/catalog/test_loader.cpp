// Tests of loader.hpp: FilesystemSkillLoader, its reuse, lazy bodies and hostile libraries.
// One file per public header; the hostile cases are sections of it.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/compat/substrate.hpp>
#include <agentskills/parse/parser.hpp>
#include <agentskills/storage/reader.hpp>
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"

#include "fs_fixtures.hpp"
#include "support/corpus.hpp"
#include "support/home_environment.hpp"
#include "support/unlistable_reader.hpp"

// =======================================================================================
// Tests of loader.hpp: FilesystemSkillLoader discovery, policies, caching, resources, threads.

namespace loader_tests {

using namespace std::string_literals;

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

// Forwards to another reader and records what was asked of it.
class RecordingReader final : public SkillReader {
public:
    explicit RecordingReader(SkillReaderPtr inner) : inner_(std::move(inner)) {}

    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        record(path);
        reads_.fetch_add(1);
        return inner_->read_file(path, max_bytes);
    }
    std::vector<DirEntry> list_dir(std::string_view path) const override {
        record(path);
        return inner_->list_dir(path);
    }
    FileStat stat(std::string_view path) const override {
        record(path);
        return inner_->stat(path);
    }
    const FilePathResolver* path_resolver() const noexcept override { return inner_->path_resolver(); }
    bool is_local() const noexcept override { return inner_->is_local(); }

    [[nodiscard]] int reads() const { return reads_.load(); }
    void reset() { reads_ = 0; }
    [[nodiscard]] std::set<std::string> paths() const {
        std::lock_guard lock(mutex_);
        return paths_;
    }

private:
    void record(std::string_view path) const {
        std::lock_guard lock(mutex_);
        paths_.emplace(path);
    }
    SkillReaderPtr inner_;
    mutable std::atomic<int> reads_{0};
    mutable std::mutex mutex_;
    mutable std::set<std::string> paths_;
};

std::vector<std::string> names_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

const SkippedSkill* find_skipped(const Discovery& d, SkipReason reason) {
    for (const auto& s : d.skipped) {
        if (s.reason == reason) return &s;
    }
    return nullptr;
}

bool has_diagnostic_for(const Discovery& d, const std::string& path) {
    return std::any_of(d.diagnostics.begin(), d.diagnostics.end(), [&](const Diagnostic& x) { return x.path == path; });
}

FilesystemLoaderOptions memory_options(std::shared_ptr<MemorySkillReader> mem, std::vector<std::string> roots = {}) {
    FilesystemLoaderOptions o;
    o.reader = std::move(mem);
    o.roots = std::move(roots);
    return o;
}

}  // namespace

TEST_CASE("the fixture library: valid skills kept in name order, the broken one skipped", "[loader]") {
    FilesystemSkillLoader loader({.roots = {AGENTSKILLS_TEST_DATA_DIR "/library"}, .include_default_roots = false});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"code-review", "pdf-forms", "release-notes"});
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].reason == SkipReason::invalid);
    CHECK(d.skipped[0].path.ends_with("/broken-frontmatter/SKILL.md"));
    CHECK(d.skipped[0].message.find("broken-frontmatter") != std::string::npos);
    CHECK(has_diagnostic_for(d, d.skipped[0].path));
    const auto& first = d.skills[0];
    CHECK(std::filesystem::path(first.skill_file).is_absolute());
    CHECK(first.skill_file == first.root + "/SKILL.md");
    CHECK(first.library == std::filesystem::path(AGENTSKILLS_TEST_DATA_DIR "/library").lexically_normal().string());
}

TEST_CASE("earlier roots win and children are visited in byte order", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("project/zeta/SKILL.md", skill_md("zeta", "Project zeta."));
    mem->add_file("project/Alpha/SKILL.md", skill_md("Alpha", "Upper-case dir sorts first in byte order."));
    mem->add_file("project/alpha/SKILL.md", skill_md("alpha", "Project alpha."));
    mem->add_file("personal/alpha/SKILL.md", skill_md("alpha", "Personal alpha, shadowed."));
    mem->add_file("personal/beta/SKILL.md", skill_md("beta", "Personal beta."));

    FilesystemSkillLoader loader(memory_options(mem, {"project", "personal"}));
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"Alpha", "alpha", "zeta", "beta"});
    CHECK(d.skills[1].description == "Project alpha.");
    CHECK(d.skills[1].library == "project");
    const SkippedSkill* dup = find_skipped(d, SkipReason::duplicate_name);
    REQUIRE(dup != nullptr);
    CHECK(dup->path == "personal/alpha/SKILL.md");
    CHECK(dup->message.find("project/alpha/SKILL.md") != std::string::npos);
    CHECK(has_diagnostic_for(d, "personal/alpha/SKILL.md"));
}

TEST_CASE("two different files with one name: error fails, keep_first keeps the first", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("a/x/SKILL.md", skill_md("same", "First."));
    mem->add_file("b/y/SKILL.md", skill_md("same", "Second."));

    auto opts = memory_options(mem, {"a", "b"});
    opts.duplicate_names = DuplicateNames::error;
    FilesystemSkillLoader strict(opts);
    try {
        (void)strict.discover();
        FAIL("expected a DiscoveryError");
    } catch (const DiscoveryError& e) {
        const std::string what = e.what();
        CHECK(what.find("a/x/SKILL.md") != std::string::npos);
        CHECK(what.find("b/y/SKILL.md") != std::string::npos);
    }

    opts.duplicate_names = DuplicateNames::keep_first;
    FilesystemSkillLoader lenient(opts);
    Discovery d = lenient.discover();
    REQUIRE(d.skills.size() == 1);
    CHECK(d.skills[0].description == "First.");
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].reason == SkipReason::duplicate_name);
    CHECK(d.skipped[0].path == "b/y/SKILL.md");
}

TEST_CASE("a byte-identical copy counts once, even under duplicate_names error", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    const std::string text = skill_md("shared", "Identical in both libraries.");
    mem->add_file("agents/shared/SKILL.md", text);
    mem->add_file("claude/shared/SKILL.md", text);
    auto opts = memory_options(mem, {"agents", "claude"});
    opts.duplicate_names = DuplicateNames::error;
    FilesystemSkillLoader loader(opts);
    Discovery d = loader.discover();
    REQUIRE(d.skills.size() == 1);
    CHECK(d.skills[0].skill_file == "agents/shared/SKILL.md");
    CHECK(d.skipped.empty());
    CHECK(has_diagnostic_for(d, "claude/shared/SKILL.md"));  // an info note, not a skip
}

TEST_CASE("yaml_recovery reaches every parse of the loader: discover, and load under each body mode",
          "[loader][recovery]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/colon/SKILL.md", "---\nname: colon\ndescription: Use when: the user asks\n---\nColon body.\n");
    mem->add_file("lib/plain/SKILL.md", skill_md("plain", "A plain skill."));
    SECTION("none (the default): the skill is skipped with its YAML error") {
        FilesystemSkillLoader loader(memory_options(mem, {"lib"}));
        const Discovery d = loader.discover();
        REQUIRE(d.skills.size() == 1);
        CHECK(d.skills[0].name == "plain");
        REQUIRE(d.skipped.size() == 1);
        CHECK(d.skipped[0].path == "lib/colon/SKILL.md");
        CHECK(d.skipped[0].reason == SkipReason::invalid);
    }
    for (const auto& [lazy, keep] : {std::pair{false, true}, std::pair{true, true}, std::pair{false, false}}) {
        DYNAMIC_SECTION("plain_values, lazy_bodies " << lazy << ", keep_results " << keep) {
            auto opts = memory_options(mem, {"lib"});
            opts.yaml_recovery = YamlRecovery::plain_values;
            opts.lazy_bodies = lazy;
            opts.keep_results = keep;
            FilesystemSkillLoader loader(opts);
            const Discovery d = loader.discover();
            REQUIRE(d.skills.size() == 2);
            CHECK(d.skills[0].name == "colon");
            CHECK(d.skills[0].description == "Use when: the user asks");
            CHECK(d.skipped.empty());
            const auto recovered = std::find_if(d.diagnostics.begin(), d.diagnostics.end(),
                                                [](const Diagnostic& x) { return x.code == "yaml-recovered"; });
            REQUIRE(recovered != d.diagnostics.end());
            CHECK(recovered->path == "lib/colon/SKILL.md");
            CHECK(recovered->line == 3);
            const LoadedSkill loaded = loader.load("colon");
            CHECK(loaded.manifest.description == "Use when: the user asks");
            CHECK(loaded.instructions == "Colon body.");
        }
    }
}

TEST_CASE("an invalid SKILL.md does not hide a valid skill with its name", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("first/tool/SKILL.md", "---\nname: tool\ndescription: never closed\n");
    mem->add_file("second/tool/SKILL.md", skill_md("tool", "The valid one."));
    auto opts = memory_options(mem, {"first", "second"});
    opts.duplicate_names = DuplicateNames::error;
    FilesystemSkillLoader loader(opts);
    Discovery d = loader.discover();
    REQUIRE(d.skills.size() == 1);
    CHECK(d.skills[0].skill_file == "second/tool/SKILL.md");
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].reason == SkipReason::invalid);
    CHECK(d.skipped[0].path == "first/tool/SKILL.md");
}

TEST_CASE("a missing root: nothing under skip, an error under error", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/a/SKILL.md", skill_md("a", "A."));
    auto opts = memory_options(mem, {"missing", "lib"});
    opts.missing_directories = MissingDirectories::skip;
    FilesystemSkillLoader skip(opts);
    Discovery d = skip.discover();
    CHECK(names_of(d) == std::vector<std::string>{"a"});
    CHECK(d.skipped.empty());
    REQUIRE(has_diagnostic_for(d, "missing"));

    opts.missing_directories = MissingDirectories::error;
    FilesystemSkillLoader strict(opts);
    CHECK_THROWS_AS(strict.discover(), DiscoveryError);
}

TEST_CASE("a missing local root and the default roots", "[loader][local]") {
    TempDir tmp;
    tmp.write("lib/a/SKILL.md", skill_md("a", "A."));
    FilesystemSkillLoader skip({.roots = {tmp.path("nope"), tmp.path("lib")},
                                .include_default_roots = false,
                                .missing_directories = MissingDirectories::skip});
    CHECK(skip.discover().skills.size() == 1);
    FilesystemSkillLoader strict({.roots = {tmp.path("nope")},
                                  .include_default_roots = false,
                                  .missing_directories = MissingDirectories::error});
    CHECK_THROWS_AS(strict.discover(), DiscoveryError);
    // Default roots never fail discovery, whatever the policy.
    FilesystemSkillLoader defaults(
        {.roots = {tmp.path("lib")}, .include_default_roots = true, .missing_directories = MissingDirectories::error});
    CHECK_NOTHROW(defaults.discover());
}

TEST_CASE("a root that is a file, and a root that is itself a skill", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("file-root", "not a directory");
    mem->add_file("package/SKILL.md", skill_md("package", "A skill, not a library."));
    mem->add_file("lib/a/SKILL.md", skill_md("a", "A."));
    auto opts = memory_options(mem, {"file-root", "package", "lib"});
    opts.missing_directories = MissingDirectories::skip;
    FilesystemSkillLoader skip(opts);
    Discovery d = skip.discover();
    CHECK(names_of(d) == std::vector<std::string>{"a"});
    REQUIRE(d.skipped.size() == 2);
    CHECK(d.skipped[0].path == "file-root");
    CHECK(d.skipped[0].reason == SkipReason::not_a_directory);
    CHECK(d.skipped[1].path == "package");
    CHECK(d.skipped[1].reason == SkipReason::skill_package);
    CHECK(has_diagnostic_for(d, "file-root"));
    CHECK(has_diagnostic_for(d, "package"));

    opts.missing_directories = MissingDirectories::error;
    opts.roots = {"file-root"};
    CHECK_THROWS_AS(FilesystemSkillLoader(opts).discover(), DiscoveryError);
    opts.roots = {"package"};
    CHECK_THROWS_AS(FilesystemSkillLoader(opts).discover(), DiscoveryError);
}

TEST_CASE("an injected reader never touches the local file system", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("skills/refund-policy/SKILL.md", skill_md("refund-policy", "Refund questions."));
    mem->add_file("skills/refund-policy/references/policy.md", "policy");
    auto recording = std::make_shared<RecordingReader>(mem);
    // include_default_roots is on, but ignored for an injected reader.
    FilesystemSkillLoader loader({.roots = {"skills"}, .include_default_roots = true, .reader = recording});
    Discovery d = loader.discover();
    REQUIRE(d.skills.size() == 1);
    LoadedSkill s = loader.load("refund-policy");
    for (const auto& p : recording->paths()) {
        INFO(p);
        CHECK(p.front() != '/');
        CHECK(p.find(".agents") == std::string::npos);
        CHECK(p.find('~') == std::string::npos);
    }
    CHECK(loader.reader() == recording);
}

TEST_CASE("manifest paths: relative for a plain reader", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("skills/refund-policy/SKILL.md", skill_md("refund-policy", "Refund questions."));
    mem->add_file("refund-policy/SKILL.md", skill_md("top-level", "At the top."));

    FilesystemSkillLoader in_skills(memory_options(mem, {"./skills/"}));
    Discovery d = in_skills.discover();
    REQUIRE(d.skills.size() == 1);
    CHECK(d.skills[0].skill_file == "skills/refund-policy/SKILL.md");
    CHECK(d.skills[0].root == "skills/refund-policy");
    CHECK(d.skills[0].library == "skills");

    FilesystemSkillLoader at_dot(memory_options(mem));  // roots default to "."
    Discovery top = at_dot.discover();
    REQUIRE(top.skills.size() == 1);
    CHECK(top.skills[0].name == "top-level");
    CHECK(top.skills[0].skill_file == "refund-policy/SKILL.md");
    CHECK(top.skills[0].root == "refund-policy");
    CHECK(top.skills[0].library == ".");

    CHECK_THROWS_AS(FilesystemSkillLoader(memory_options(mem, {"../up"})), ConfigurationError);
    CHECK_THROWS_AS(FilesystemSkillLoader(memory_options(mem, {"/abs"})), ConfigurationError);
}

TEST_CASE("manifest paths: rooted for a mounted reader", "[loader][mount]") {
    auto tenant = std::make_shared<MemorySkillReader>();
    tenant->add_file("skills/refund-policy/SKILL.md", skill_md("refund-policy", "Refunds."));
    tenant->add_file("skills/refund-policy/references/policy.md", "p");
    auto local = std::make_shared<MemorySkillReader>();
    local->add_file("skills/refund-policy/SKILL.md", skill_md("refund-policy", "Local refunds, shadowed."));
    local->add_file("skills/lint/SKILL.md", skill_md("lint", "Lint things."));
    auto mounted = std::make_shared<MountedReader>(
        std::map<std::string, SkillReaderPtr, std::less<>>{{"tenant", tenant}, {"local", local}},
        "/tenant/sessions/s-1");
    // A relative mounted root starts at "/", not at the reader's cwd.
    FilesystemSkillLoader loader({.roots = {"/tenant/skills", "local/skills"}, .reader = mounted});
    Discovery d = loader.discover();
    REQUIRE(names_of(d) == std::vector<std::string>{"refund-policy", "lint"});
    CHECK(d.skills[0].skill_file == "/tenant/skills/refund-policy/SKILL.md");
    CHECK(d.skills[0].root == "/tenant/skills/refund-policy");
    CHECK(d.skills[0].library == "/tenant/skills");
    CHECK(d.skills[1].skill_file == "/local/skills/lint/SKILL.md");
    REQUIRE(find_skipped(d, SkipReason::duplicate_name) != nullptr);
    CHECK(find_skipped(d, SkipReason::duplicate_name)->path == "/local/skills/refund-policy/SKILL.md");

    LoadedSkill s = loader.load("refund-policy");
    REQUIRE(s.resources.size() == 1);
    CHECK(s.resources[0].path == "references/policy.md");

    // An unknown mount is a missing root: nothing under skip, an error under error.
    FilesystemSkillLoader unknown_skip({.roots = {"/nope/skills", "/local/skills"}, .reader = mounted});
    CHECK(unknown_skip.discover().skills.size() == 2);
    FilesystemSkillLoader unknown_error(
        {.roots = {"/nope/skills"}, .reader = mounted, .missing_directories = MissingDirectories::error});
    CHECK_THROWS_AS(unknown_error.discover(), DiscoveryError);
    // ".." above the virtual root is refused when the loader is built.
    CHECK_THROWS_AS(FilesystemSkillLoader({.roots = {"/../tenant/skills"}, .reader = mounted}), ConfigurationError);
}

TEST_CASE("a symlinked skill directory resolves to its target and counts once", "[loader][local]") {
    TempDir tmp;
    tmp.write("real/tool/SKILL.md", skill_md("tool", "The tool."));
    tmp.write("real/tool/scripts/run.sh", "echo");
    tmp.mkdir("links");
    std::filesystem::create_directory_symlink(tmp.path("real/tool"), tmp.path("links/tool-link"));

    // Only through the link: manifest paths are the target's.
    FilesystemSkillLoader via_link({.roots = {tmp.path("links")}, .include_default_roots = false});
    Discovery d = via_link.discover();
    REQUIRE(d.skills.size() == 1);
    const std::string target = std::filesystem::canonical(tmp.path("real/tool")).string();
    CHECK(d.skills[0].root == target);
    CHECK(d.skills[0].skill_file == target + "/SKILL.md");
    CHECK(d.skills[0].library == tmp.path("links"));

    // With the original too, under duplicate_names error: the same directory counts once.
    FilesystemSkillLoader both({.roots = {tmp.path("real"), tmp.path("links")},
                                .include_default_roots = false,
                                .duplicate_names = DuplicateNames::error});
    Discovery d2 = both.discover();
    REQUIRE(d2.skills.size() == 1);
    CHECK(d2.skipped.empty());
}

TEST_CASE("a symlinked library root is scanned once", "[loader][local]") {
    TempDir tmp;
    tmp.write("agents/a/SKILL.md", skill_md("a", "A."));
    std::filesystem::create_directory_symlink(tmp.path("agents"), tmp.path("claude"));
    FilesystemSkillLoader loader({.roots = {tmp.path("agents"), tmp.path("claude")},
                                  .include_default_roots = false,
                                  .duplicate_names = DuplicateNames::error});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"a"});
    CHECK(d.skipped.empty());
}

TEST_CASE("unreadable, oversized and odd SKILL.md files are skipped, the rest kept", "[loader][local]") {
    TempDir tmp;
    tmp.write("lib/good/SKILL.md", skill_md("good", "Fine."));
    tmp.mkdir("lib/fifo");
    REQUIRE(::mkfifo(tmp.path("lib/fifo/SKILL.md").c_str(), 0600) == 0);
    tmp.mkdir("lib/dir-named-skill/SKILL.md");
    tmp.write("lib/huge/SKILL.md", skill_md("huge", "Big.", std::string(5000, 'x')));
    tmp.write("lib/long/SKILL.md", skill_md("long", "Many lines.", std::string(40, '\n') + "end"));
    FilesystemSkillLoader loader(
        {.roots = {tmp.path("lib")}, .include_default_roots = false, .max_lines = 20, .max_bytes = 4096});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"good"});
    REQUIRE(d.skipped.size() == 4);
    std::map<std::string, SkipReason> by_dir;
    for (const auto& s : d.skipped) {
        by_dir[std::filesystem::path(s.path).parent_path().filename().string()] = s.reason;
        CHECK(has_diagnostic_for(d, s.path));
        CHECK(s.message.find(s.path) != std::string::npos);
    }
    CHECK(by_dir["fifo"] == SkipReason::unreadable);
    CHECK(by_dir["dir-named-skill"] == SkipReason::unreadable);
    CHECK(by_dir["huge"] == SkipReason::too_large);
    CHECK(by_dir["long"] == SkipReason::too_large);
}

TEST_CASE("include and exclude select by name", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/a/SKILL.md", skill_md("a", "A."));
    mem->add_file("lib/b/SKILL.md", skill_md("b", "B."));
    mem->add_file("lib/c/SKILL.md", skill_md("c", "C."));
    mem->add_file("lib/broken/SKILL.md", "no frontmatter at all");

    auto opts = memory_options(mem, {"lib"});
    opts.include = std::vector<std::string>{"c", "a"};
    Discovery inc = FilesystemSkillLoader(opts).discover();
    CHECK(names_of(inc) == std::vector<std::string>{"a", "c"});
    CHECK(inc.skipped.empty());  // the unselected broken skill adds nothing
    CHECK(inc.diagnostics.empty());

    opts.include = std::vector<std::string>{};
    CHECK(FilesystemSkillLoader(opts).discover().skills.empty());

    opts.include = std::vector<std::string>{"a", "zzz"};
    try {
        (void)FilesystemSkillLoader(opts).discover();
        FAIL("expected a DiscoveryError");
    } catch (const DiscoveryError& e) {
        CHECK(std::string(e.what()).find("zzz") != std::string::npos);
    }

    opts.include = std::nullopt;
    opts.exclude = {"b", "broken"};
    Discovery exc = FilesystemSkillLoader(opts).discover();
    CHECK(names_of(exc) == std::vector<std::string>{"a", "c"});
    CHECK(exc.skipped.empty());

    opts.include = std::vector<std::string>{"a"};
    CHECK_THROWS_AS(FilesystemSkillLoader(opts), ConfigurationError);
}

TEST_CASE("load serves cached instructions and fresh resources", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/tool/SKILL.md", skill_md("tool", "A tool.", "\n\nDo the thing.\n\n"));
    mem->add_file("lib/tool/scripts/run.sh", "run");
    auto recording = std::make_shared<RecordingReader>(mem);
    FilesystemSkillLoader loader({.roots = {"lib"}, .reader = recording});
    (void)loader.discover();
    recording->reset();

    LoadedSkill s = loader.load("tool");
    CHECK(s.manifest.name == "tool");
    CHECK(s.manifest.root == "lib/tool");
    CHECK(s.instructions == "Do the thing.");
    CHECK(s.resources == std::vector<SkillResource>{{"scripts/run.sh"}});
    CHECK(recording->reads() == 0);  // neither SKILL.md nor resources are read

    mem->add_file("lib/tool/references/new.md", "new");
    CHECK(loader.load("tool").resources.size() == 2);  // resources are listed at each load

    CHECK_THROWS_AS(loader.load("nope"), NotFoundError);
}

// Discovery keeps each body for load(), trimmed of blank lines: an ordinary one, one from a file
// with CRLF or lone CR line breaks (a run of the parse's LF copy), a short body under a large
// frontmatter, an empty one. Every shape must load the same text on the local fast path and
// through a reader, before and after a rewrite of the files that discovery has not seen yet, and
// after a rediscovery that reuses the cache.
TEST_CASE("load serves the body discovery kept, in every shape", "[loader][local]") {
    const std::string long_description(3000, 'd');
    const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> files = {
        {"plain",
         {"---\nname: plain\ndescription: P.\n---\n\n\nLine one.\n\nLine two.\n\n\n", "Line one.\n\nLine two."}},
        {"crlf",
         {"---\r\nname: crlf\r\ndescription: C.\r\n---\r\n\r\nStep one.\r\nStep two.\r\n", "Step one.\nStep two."}},
        {"lone-cr", {"---\rname: lone-cr\rdescription: L.\r---\rOnly CR.\r", "Only CR."}},
        {"short", {"---\nname: short\ndescription: " + long_description + "\n---\nTiny.\n", "Tiny."}},
        {"empty", {"---\nname: empty\ndescription: E.\n---\n", ""}},
        {"blank", {"---\nname: blank\ndescription: B.\n---\n \n\t\n\n", ""}},
        {"unended", {"---\nname: unended\ndescription: U.\n---\nNo newline at the end", "No newline at the end"}},
    };
    TempDir tmp;
    auto mem = std::make_shared<MemorySkillReader>();
    for (const auto& [name, content] : files) {
        tmp.write("lib/" + name + "/SKILL.md", content.first);
        mem->add_file("lib/" + name + "/SKILL.md", content.first);
    }
    FilesystemSkillLoader local({.roots = {tmp.path("lib")}, .include_default_roots = false, .threads = 1});
    FilesystemSkillLoader read(memory_options(mem, {"lib"}));
    for (FilesystemSkillLoader* loader : {&local, &read}) {
        REQUIRE(loader->discover().skills.size() == files.size());
        for (const auto& [name, content] : files) {
            INFO(name);
            CHECK(loader->load(name).instructions == content.second);
        }
    }
    // Rewritten on disk, not yet rediscovered: the bodies discovery kept are served.
    for (const auto& [name, content] : files) {
        tmp.write("lib/" + name + "/SKILL.md", std::string(content.first.size(), 'x'));
        mem->add_file("lib/" + name + "/SKILL.md", std::string(content.first.size(), 'x'));
        INFO(name);
        CHECK(local.load(name).instructions == content.second);
        CHECK(read.load(name).instructions == content.second);
    }
    // Written back, rediscovered (the cache re-reads what it cannot vouch for): the same bodies.
    for (const auto& [name, content] : files) {
        tmp.write("lib/" + name + "/SKILL.md", content.first);
        mem->add_file("lib/" + name + "/SKILL.md", content.first);
    }
    for (FilesystemSkillLoader* loader : {&local, &read}) {
        REQUIRE(loader->discover().skills.size() == files.size());
        REQUIRE(loader->discover().skills.size() == files.size());
        for (const auto& [name, content] : files) {
            INFO(name);
            CHECK(loader->load(name).instructions == content.second);
        }
    }
}

TEST_CASE("edits appear only after another discover()", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/tool/SKILL.md", skill_md("tool", "Old description.", "Old body."));
    FilesystemSkillLoader loader(memory_options(mem, {"lib"}));
    CHECK(loader.discover().skills.at(0).description == "Old description.");

    mem->add_file("lib/tool/SKILL.md", skill_md("tool", "New description.", "New body."));
    mem->add_file("lib/other/SKILL.md", skill_md("other", "Added."));
    CHECK(loader.load("tool").instructions == "Old body.");
    CHECK_THROWS_AS(loader.load("other"), NotFoundError);

    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"other", "tool"});
    CHECK(d.skills[1].description == "New description.");
    CHECK(loader.load("tool").instructions == "New body.");

    mem->remove("lib/other");
    CHECK(names_of(loader.discover()) == std::vector<std::string>{"tool"});
    CHECK_THROWS_AS(loader.load("other"), NotFoundError);
}

TEST_CASE("a second discover() over an unchanged library reads nothing again", "[loader][cache]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 30; ++i) {
        const std::string name = "skill-" + std::to_string(i);
        mem->add_file("lib/" + name + "/SKILL.md", skill_md(name, "Number " + std::to_string(i) + "."));
    }
    mem->add_file("lib/broken/SKILL.md", "not a skill");
    auto recording = std::make_shared<RecordingReader>(mem);
    FilesystemSkillLoader loader({.roots = {"lib"}, .reader = recording, .threads = 2});
    Discovery first = loader.discover();
    CHECK(first.skills.size() == 30);
    CHECK(recording->reads() == 31);

    recording->reset();
    Discovery second = loader.discover();
    CHECK(recording->reads() == 0);
    CHECK(names_of(second) == names_of(first));
    CHECK(second.skipped.size() == 1);
    CHECK(second.diagnostics == first.diagnostics);

    // One edit: exactly one file is read again.
    mem->add_file("lib/skill-7/SKILL.md", skill_md("skill-7", "Changed."));
    recording->reset();
    Discovery third = loader.discover();
    CHECK(recording->reads() == 1);
    CHECK(third.skills[std::size_t{0}].name == "skill-0");
    for (const auto& m : third.skills) {
        if (m.name == "skill-7") CHECK(m.description == "Changed.");
    }
}

TEST_CASE("the local cache notices a replaced file", "[loader][cache][local]") {
    TempDir tmp;
    tmp.write("lib/a/SKILL.md", skill_md("a", "First."));
    // An hour old, so the stat alone vouches for the content (see the racy case below).
    std::filesystem::last_write_time(tmp.path("lib/a/SKILL.md"),
                                     std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
    auto recording = std::make_shared<RecordingReader>(std::make_shared<LocalSkillReader>());
    FilesystemSkillLoader loader({.roots = {tmp.path("lib")}, .include_default_roots = false, .reader = recording});
    CHECK(loader.discover().skills.at(0).description == "First.");
    recording->reset();
    (void)loader.discover();
    CHECK(recording->reads() == 0);
    // Same size, written anew through a rename: the inode changes.
    tmp.write("lib/a/SKILL.md.new", skill_md("a", "Other."));
    std::filesystem::rename(tmp.path("lib/a/SKILL.md.new"), tmp.path("lib/a/SKILL.md"));
    recording->reset();
    CHECK(loader.discover().skills.at(0).description == "Other.");
    CHECK(recording->reads() == 1);
}

TEST_CASE("a settled library is not listed again, and changes to it are still seen", "[loader][cache][local]") {
    TempDir tmp;
    tmp.write("lib/a/SKILL.md", skill_md("a", "A."));
    tmp.write("lib/b/SKILL.md", skill_md("b", "B."));
    tmp.write("lib/c/notes.txt", "no SKILL.md yet");
    // Older than the settling margin: the next discovery's root stamps vouch for its listing.
    std::this_thread::sleep_for(std::chrono::milliseconds(2100));
    FilesystemSkillLoader loader({.roots = {tmp.path("lib")}, .include_default_roots = false});
    const auto names = [&] {
        std::vector<std::string> out;
        for (const auto& m : loader.discover().skills) out.push_back(m.name);
        return out;
    };
    CHECK(names() == std::vector<std::string>{"a", "b"});
    CHECK(names() == std::vector<std::string>{"a", "b"});  // unchanged: the stamps and stats match
    tmp.write("lib/c/SKILL.md", skill_md("c", "C."));      // a SKILL.md where there was none
    CHECK(names() == std::vector<std::string>{"a", "b", "c"});
    tmp.write("lib/d/SKILL.md", skill_md("d", "D."));  // a new child: the root's ctime moves
    CHECK(names() == std::vector<std::string>{"a", "b", "c", "d"});
    std::filesystem::remove_all(tmp.path("lib/b"));
    CHECK(names() == std::vector<std::string>{"a", "c", "d"});
    std::filesystem::rename(tmp.path("lib/a"), tmp.path("lib/e"));
    tmp.write("lib/e/SKILL.md", skill_md("e", "E."));
    CHECK(names() == std::vector<std::string>{"c", "d", "e"});
    CHECK(names() == std::vector<std::string>{"c", "d", "e"});
}

TEST_CASE("results do not depend on the number of threads", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 50; ++i) {
        const std::string name = "s" + std::to_string(i);
        mem->add_file("one/" + name + "/SKILL.md", skill_md(name, "One " + name));
        if (i % 3 == 0) mem->add_file("two/" + name + "/SKILL.md", skill_md(name, "Two " + name));
    }
    auto run = [&](std::size_t threads) {
        auto o = memory_options(mem, {"one", "two"});
        o.threads = threads;
        return FilesystemSkillLoader(o).discover();
    };
    Discovery a = run(1);
    Discovery b = run(2);
    Discovery c = run(7);
    CHECK(names_of(a) == names_of(b));
    CHECK(names_of(a) == names_of(c));
    CHECK(a.skipped.size() == 17);
    CHECK(b.skipped.size() == 17);
    for (std::size_t i = 0; i < a.skipped.size(); ++i) CHECK(a.skipped[i].path == c.skipped[i].path);
}

// Records the threads that read files.
class ThreadRecordingReader final : public SkillReader {
public:
    explicit ThreadRecordingReader(SkillReaderPtr inner) : inner_(std::move(inner)) {}
    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        {
            std::lock_guard lock(mutex_);
            threads_.insert(std::this_thread::get_id());
        }
        return inner_->read_file(path, max_bytes);
    }
    std::vector<DirEntry> list_dir(std::string_view path) const override { return inner_->list_dir(path); }
    FileStat stat(std::string_view path) const override { return inner_->stat(path); }
    [[nodiscard]] std::set<std::thread::id> threads() const {
        std::lock_guard lock(mutex_);
        return threads_;
    }

private:
    SkillReaderPtr inner_;
    mutable std::mutex mutex_;
    mutable std::set<std::thread::id> threads_;
};

TEST_CASE("threads = 0 keeps a small library on the calling thread", "[loader]") {
    // An agent's 100 skills are read and parsed by the thread that discovers (starting workers
    // would cost more than it saves, docs/performance.md); threads asked for are used as asked.
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 100; ++i) {
        const std::string name = "s" + std::to_string(i);
        mem->add_file("lib/" + name + "/SKILL.md", skill_md(name, "Skill " + name));
    }
    auto automatic = std::make_shared<ThreadRecordingReader>(mem);
    const Discovery d = FilesystemSkillLoader({.roots = {"lib"}, .reader = automatic, .threads = 0}).discover();
    CHECK(d.skills.size() == 100);
    CHECK(automatic->threads() == std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST_CASE("on_diagnostic sees every diagnostic of a discovery", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/bad/SKILL.md", "nothing here");
    mem->add_file("lib/good/SKILL.md", skill_md("good", "G."));
    std::vector<Diagnostic> seen;
    auto opts = memory_options(mem, {"lib", "missing"});
    opts.on_diagnostic = [&](const Diagnostic& d) { seen.push_back(d); };
    Discovery d = FilesystemSkillLoader(opts).discover();
    CHECK_FALSE(seen.empty());
    CHECK(seen == d.diagnostics);
}

TEST_CASE("resources: order, SKILL.md left out, directory symlinks not followed", "[loader][resources][local]") {
    TempDir tmp;
    tmp.write("tool/SKILL.md", skill_md("tool", "T."));
    tmp.write("tool/zz.txt", "z");
    tmp.write("tool/README.md", "r");
    tmp.write("tool/assets/logo.svg", "a");
    tmp.write("tool/references/b.md", "b");
    tmp.write("tool/references/a.md", "a");
    tmp.write("tool/scripts/run.py", "s");
    tmp.write("tool/scripts/lib/util.py", "u");
    tmp.write("tool/docs/SKILL.md", "a nested SKILL.md is a resource");
    tmp.write("outside/secret.txt", "x");
    std::filesystem::create_directory_symlink(tmp.path("outside"), tmp.path("tool/linked-dir"));
    std::filesystem::create_directory_symlink(tmp.path("tool"), tmp.path("tool/scripts/loop"));  // a loop
    std::filesystem::create_symlink(tmp.path("outside/secret.txt"), tmp.path("tool/file-link.txt"));

    LocalSkillReader r;
    auto res = list_skill_resources(r, tmp.path("tool"));
    std::vector<std::string> paths;
    for (const auto& x : res) paths.push_back(x.path);
    CHECK(paths == std::vector<std::string>{"scripts/lib/util.py", "scripts/run.py", "references/a.md",
                                            "references/b.md", "assets/logo.svg", "README.md", "docs/SKILL.md",
                                            "file-link.txt", "zz.txt"});
}

TEST_CASE("resources through a memory reader", "[loader][resources]") {
    MemorySkillReader mem;
    mem.add_file("s/SKILL.md", "x");
    mem.add_file("s/scripts", "a file named scripts is not the scripts folder");
    mem.add_file("s/assets/x.png", "p");
    auto res = list_skill_resources(mem, "s");
    REQUIRE(res.size() == 2);
    CHECK(res[0].path == "assets/x.png");
    CHECK(res[1].path == "scripts");
    CHECK_THROWS_AS(list_skill_resources(mem, "missing"), NotFoundError);
}

TEST_CASE("discover() and load() from 8 threads at once", "[loader][concurrency]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 40; ++i) {
        const std::string name = "skill-" + std::to_string(i);
        mem->add_file("lib/" + name + "/SKILL.md", skill_md(name, "D" + std::to_string(i), "Body " + name));
        mem->add_file("lib/" + name + "/scripts/run.sh", "run");
    }
    auto loader =
        std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem, .threads = 2});
    (void)loader->discover();
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 20; ++round) {
                try {
                    if ((t + round) % 3 == 0) {
                        // Edit a skill of this thread, then rediscover.
                        const std::string name = "skill-" + std::to_string(t);
                        mem->add_file("lib/" + name + "/SKILL.md",
                                      skill_md(name, "D" + std::to_string(t), "Body " + name));
                        if (loader->discover().skills.size() != 40) ++failures;
                    } else {
                        const std::string name = "skill-" + std::to_string((t * 7 + round) % 40);
                        LoadedSkill s = loader->load(name);
                        if (s.instructions != "Body " + name || s.resources.size() != 1) ++failures;
                    }
                } catch (...) {
                    ++failures;
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
}

TEST_CASE("discover() from 8 threads on a local library", "[loader][concurrency][local]") {
    TempDir tmp;
    for (int i = 0; i < 20; ++i) {
        const std::string name = "s" + std::to_string(i);
        tmp.write("lib/" + name + "/SKILL.md", skill_md(name, "D."));
    }
    FilesystemSkillLoader loader({.roots = {tmp.path("lib")}, .include_default_roots = false});
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&] {
            for (int round = 0; round < 5; ++round) {
                if (loader.discover().skills.size() != 20) ++failures;
                if (loader.load("s3").instructions != "Body.") ++failures;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
}

TEST_CASE("a mounted local directory and an in-memory store in one loader", "[loader][mount][local]") {
    TempDir tmp;
    tmp.write("app/skills/local-skill/SKILL.md", skill_md("local-skill", "On disk."));
    tmp.write("app/skills/local-skill/references/guide.md", "g");
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("skills/remote-skill/SKILL.md", skill_md("remote-skill", "In memory."));
    auto mounted = std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{
        {"local", std::make_shared<LocalSkillReader>(tmp.path("app"))}, {"tenant", mem}});
    FilesystemSkillLoader loader({.roots = {"/tenant/skills", "/local/skills"}, .reader = mounted});
    Discovery d = loader.discover();
    REQUIRE(names_of(d) == std::vector<std::string>{"remote-skill", "local-skill"});
    CHECK(d.skills[1].skill_file == "/local/skills/local-skill/SKILL.md");
    CHECK(loader.load("local-skill").resources == std::vector<SkillResource>{{"references/guide.md"}});
}

TEST_CASE("a local reader with a base directory resolves relative roots from it", "[loader][local]") {
    TempDir tmp;
    tmp.write("app/skills/a/SKILL.md", skill_md("a", "A."));
    FilesystemSkillLoader loader({.roots = {"skills"},
                                  .include_default_roots = false,
                                  .reader = std::make_shared<LocalSkillReader>(tmp.path("app"))});
    Discovery d = loader.discover();
    REQUIRE(d.skills.size() == 1);
    CHECK(d.skills[0].skill_file == tmp.path("app/skills/a/SKILL.md"));
}

TEST_CASE("require_valid: the name defaults to the directory and must match it", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/unnamed/SKILL.md", "---\ndescription: No name field.\n---\nBody.\n");
    mem->add_file("lib/mismatch/SKILL.md", skill_md("other-name", "Name differs from the directory."));
    mem->add_file("lib/Bad_Dir/SKILL.md", skill_md("Bad_Dir", "Breaks the rules."));
    auto opts = memory_options(mem, {"lib"});
    opts.name_policy = NamePolicy::require_valid;
    Discovery strict = FilesystemSkillLoader(opts).discover();
    CHECK(names_of(strict) == std::vector<std::string>{"unnamed"});
    CHECK(strict.skipped.size() == 2);
    for (const auto& s : strict.skipped) CHECK(s.reason == SkipReason::invalid);

    opts.name_policy = NamePolicy::keep;
    Discovery kept = FilesystemSkillLoader(opts).discover();
    CHECK(names_of(kept) == std::vector<std::string>{"Bad_Dir", "other-name"});
    CHECK(kept.skipped.size() == 1);  // no name at all is still an error under keep
}

TEST_CASE("a same-size rewrite right after discovery is noticed", "[loader][cache][local]") {
    TempDir tmp;
    tmp.write("lib/a/SKILL.md", skill_md("a", "Version 1."));
    auto recording = std::make_shared<RecordingReader>(std::make_shared<LocalSkillReader>());
    FilesystemSkillLoader loader({.roots = {tmp.path("lib")}, .include_default_roots = false, .reader = recording});
    CHECK(loader.discover().skills.at(0).description == "Version 1.");
    // Same size, same inode, possibly the same timestamp tick: the fresh file is re-read and compared.
    const auto mtime = std::filesystem::last_write_time(tmp.path("lib/a/SKILL.md"));
    tmp.write("lib/a/SKILL.md", skill_md("a", "Version 2."));
    std::filesystem::last_write_time(tmp.path("lib/a/SKILL.md"), mtime);
    CHECK(loader.discover().skills.at(0).description == "Version 2.");
}

using NoMtimeReader = agentskills_test::ListingOnlyReader;

TEST_CASE("a reader without mtimes: same-size edits are still seen", "[loader][cache]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/a/SKILL.md", skill_md("a", "AAAA"));
    FilesystemSkillLoader loader({.roots = {"lib"}, .reader = std::make_shared<NoMtimeReader>(mem)});
    CHECK(loader.discover().skills.at(0).description == "AAAA");
    mem->add_file("lib/a/SKILL.md", skill_md("a", "BBBB"));
    CHECK(loader.discover().skills.at(0).description == "BBBB");
    CHECK(loader.load("a").manifest.description == "BBBB");
}

namespace {

// Fails in chosen ways, to show that one failing skill does not stop the others.
class FaultyReader final : public SkillReader {
public:
    explicit FaultyReader(std::shared_ptr<MemorySkillReader> inner) : inner_(std::move(inner)) {}
    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        if (path == "lib/read-fails/SKILL.md") throw IoError("simulated read failure");
        if (path == "lib/throws-other/SKILL.md") throw std::runtime_error("not even an agentskills error");
        return inner_->read_file(path, max_bytes);
    }
    std::vector<DirEntry> list_dir(std::string_view path) const override {
        if (path == "broken-root") throw IoError("simulated listing failure");
        auto entries = inner_->list_dir(path);
        // A child that vanishes between the listing and its stat.
        if (path == "lib") entries.push_back(DirEntry{.name = "vanished", .kind = EntryKind::directory});
        return entries;
    }
    FileStat stat(std::string_view path) const override {
        if (path == "lib/stat-fails/SKILL.md") throw IoError("simulated stat failure");
        if (path == "broken-root") return FileStat{.kind = EntryKind::directory};
        return inner_->stat(path);
    }

private:
    std::shared_ptr<MemorySkillReader> inner_;
};

}  // namespace

TEST_CASE("a reader that fails for some skills: the others are still discovered", "[loader]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (const char* dir : {"good", "read-fails", "stat-fails", "throws-other", "zz-good"}) {
        mem->add_file(std::string("lib/") + dir + "/SKILL.md", skill_md(dir, "Some skill."));
    }
    auto faulty = std::make_shared<FaultyReader>(mem);
    FilesystemSkillLoader loader({.roots = {"lib"}, .reader = faulty});
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"good", "zz-good"});
    REQUIRE(d.skipped.size() == 3);
    for (const auto& s : d.skipped) {
        CHECK(s.reason == SkipReason::unreadable);
        CHECK(s.message.find(s.path) != std::string::npos);
        CHECK(has_diagnostic_for(d, s.path));
    }
    CHECK(d.skipped[0].message.find("simulated read failure") != std::string::npos);

    // A root that cannot be listed fails discovery as a whole.
    FilesystemSkillLoader broken({.roots = {"broken-root"}, .reader = faulty});
    CHECK_THROWS_AS(broken.discover(), DiscoveryError);
}

namespace {

// Sets $HOME and the working directory for one scope, and clears the variables other agents
// read for their folders (HomeEnvironment); all are put back after it.
class ProcessScope {
public:
    ProcessScope(const std::string& home, const std::filesystem::path& cwd)
        : cwd_(std::filesystem::current_path()), environment_(home) {
        std::filesystem::current_path(cwd);
    }
    ~ProcessScope() {
        std::error_code ec;
        std::filesystem::current_path(cwd_, ec);
    }
    ProcessScope(const ProcessScope&) = delete;
    ProcessScope& operator=(const ProcessScope&) = delete;

private:
    std::filesystem::path cwd_;
    agentskills_test::HomeEnvironment environment_;
};

}  // namespace

TEST_CASE("an injected LocalSkillReader with a base: the default root is the base's, not the process's",
          "[loader][local]") {
    TempDir home;
    home.write(".agents/skills/home-skill/SKILL.md", skill_md("home-skill", "H."));
    TempDir cwd;
    cwd.write(".agents/skills/cwd-skill/SKILL.md", skill_md("cwd-skill", "C."));
    TempDir base;
    base.write(".agents/skills/base-skill/SKILL.md", skill_md("base-skill", "B."));
    base.write("lib/mine/SKILL.md", skill_md("mine", "M."));
    ProcessScope scope(home.str(""), cwd.dir());

    FilesystemSkillLoader based({.reader = std::make_shared<LocalSkillReader>(base.str(""))});
    CHECK(names_of(based.discover()) == std::vector<std::string>{"base-skill"});
    FilesystemSkillLoader based_roots({.roots = {"lib"}, .reader = std::make_shared<LocalSkillReader>(base.str(""))});
    CHECK(names_of(based_roots.discover()) == std::vector<std::string>{"mine", "base-skill"});

    // Without a base, the process's two defaults, as with no reader at all.
    FilesystemSkillLoader plain({.reader = std::make_shared<LocalSkillReader>()});
    CHECK(names_of(plain.discover()) == std::vector<std::string>{"cwd-skill", "home-skill"});
    FilesystemSkillLoader none(FilesystemLoaderOptions{});
    CHECK(names_of(none.discover()) == std::vector<std::string>{"cwd-skill", "home-skill"});
}

}  // namespace loader_tests

// =======================================================================================
// Tests of the loader's hardening (issue 12): look-alike names, the resource cap, unreadable

namespace loader_hardening_tests {

using namespace std::string_literals;

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

std::vector<std::string> names_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

std::vector<const Diagnostic*> with_code(const Discovery& d, std::string_view code) {
    std::vector<const Diagnostic*> out;
    for (const auto& x : d.diagnostics) {
        if (x.code == code) out.push_back(&x);
    }
    return out;
}

FilesystemLoaderOptions memory_options(std::shared_ptr<MemorySkillReader> mem, std::vector<std::string> roots = {},
                                       std::size_t threads = 1) {
    FilesystemLoaderOptions o;
    o.reader = std::move(mem);
    o.roots = std::move(roots);
    o.threads = threads;
    return o;
}

// Sets an environment variable and the working directory for one test, and puts both back.
class ScopedHomeAndCwd {
public:
    ScopedHomeAndCwd(const std::string& home, const std::string& cwd) {
        if (const char* h = std::getenv("HOME")) old_home_ = h;
        old_cwd_ = std::filesystem::current_path().string();
        ::setenv("HOME", home.c_str(), 1);
        std::filesystem::current_path(cwd);
    }
    ~ScopedHomeAndCwd() {
        std::error_code ec;
        std::filesystem::current_path(old_cwd_, ec);
        if (old_home_) {
            ::setenv("HOME", old_home_->c_str(), 1);
        } else {
            ::unsetenv("HOME");
        }
    }
    ScopedHomeAndCwd(const ScopedHomeAndCwd&) = delete;
    ScopedHomeAndCwd& operator=(const ScopedHomeAndCwd&) = delete;

private:
    std::optional<std::string> old_home_;
    std::string old_cwd_;
};

const std::string fullwidth_alpha = "\xEF\xBD\x81\xEF\xBD\x8C\xEF\xBD\x90\xEF\xBD\x88\xEF\xBD\x81";  // ａｌｐｈａ
const std::string cyrillic_a_alpha = "\xD0\xB0lpha";                                                 // аlpha

}  // namespace

// ---------------------------------------------------------------------------------------
// Look-alikes (issue 12, item 8)

TEST_CASE("a look-alike that sorts first does not displace the canonical skill", "[loader][hardening]") {
    for (std::size_t threads : {1U, 4U}) {
        auto mem = std::make_shared<MemorySkillReader>();
        mem->add_file("lib/0-fullwidth/SKILL.md", skill_md(fullwidth_alpha, "Impostor.", "Impostor body."));
        mem->add_file("lib/alpha/SKILL.md", skill_md("alpha", "Real.", "Real body."));
        FilesystemSkillLoader loader(memory_options(mem, {"lib"}, threads));
        const Discovery d = loader.discover();
        REQUIRE(names_of(d) == std::vector<std::string>{"alpha"});
        CHECK(d.skills[0].skill_file == "lib/alpha/SKILL.md");
        REQUIRE(d.skipped.size() == 1);
        CHECK(d.skipped[0].path == "lib/0-fullwidth/SKILL.md");
        CHECK(d.skipped[0].reason == SkipReason::duplicate_name);
        CHECK(d.skipped[0].message ==
              "skill name '" + fullwidth_alpha +
                  "' of lib/0-fullwidth/SKILL.md is also used by lib/alpha/SKILL.md, whose name is in NFKC form and "
                  "matches its directory; that one is kept");
        const auto dup = with_code(d, codes::duplicate_name);
        REQUIRE(dup.size() == 1);
        CHECK(dup[0]->path == "lib/0-fullwidth/SKILL.md");
        CHECK(loader.load("alpha").instructions == "Real body.");
        CHECK(loader.load(fullwidth_alpha).instructions == "Real body.");
    }
}

TEST_CASE("a canonical skill in a later root wins over a look-alike in an earlier root", "[loader][hardening]") {
    auto mem = std::make_shared<MemorySkillReader>();
    // Not NFKC, in a directory of the right name.
    mem->add_file("first/alpha/SKILL.md", skill_md(fullwidth_alpha, "Impostor."));
    // NFKC, but not its directory's name.
    mem->add_file("first/aaa/SKILL.md", skill_md("beta", "Impostor too."));
    mem->add_file("second/alpha/SKILL.md", skill_md("alpha", "Real."));
    mem->add_file("second/beta/SKILL.md", skill_md("beta", "Real too."));
    FilesystemSkillLoader loader(memory_options(mem, {"first", "second"}));
    const Discovery d = loader.discover();
    REQUIRE(names_of(d) == std::vector<std::string>{"alpha", "beta"});
    CHECK(d.skills[0].skill_file == "second/alpha/SKILL.md");
    CHECK(d.skills[1].skill_file == "second/beta/SKILL.md");
    REQUIRE(d.skipped.size() == 2);
    CHECK(d.skipped[0].path == "first/aaa/SKILL.md");
    CHECK(d.skipped[1].path == "first/alpha/SKILL.md");
    CHECK(d.skipped[0].reason == SkipReason::duplicate_name);
    CHECK(d.skipped[1].reason == SkipReason::duplicate_name);
}

TEST_CASE("of two look-alikes or two canonical skills, the first still wins", "[loader][hardening]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("a/x/SKILL.md", skill_md(fullwidth_alpha, "First look-alike."));
    mem->add_file("a/y/SKILL.md", skill_md("alpha", "Second look-alike (wrong directory)."));
    mem->add_file("a/beta/SKILL.md", skill_md("beta", "First canonical."));
    mem->add_file("b/beta/SKILL.md", skill_md("beta", "Second canonical."));
    FilesystemSkillLoader loader(memory_options(mem, {"a", "b"}));
    const Discovery d = loader.discover();
    REQUIRE(names_of(d) == std::vector<std::string>{"beta", fullwidth_alpha});
    CHECK(d.skills[0].skill_file == "a/beta/SKILL.md");
    REQUIRE(d.skipped.size() == 2);
    CHECK(d.skipped[0].path == "a/y/SKILL.md");
    CHECK(d.skipped[0].message == "skill name 'alpha' of a/y/SKILL.md is already used by a/x/SKILL.md");
    CHECK(d.skipped[1].path == "b/beta/SKILL.md");
}

TEST_CASE("a look-alike under DuplicateNames::error still fails discovery", "[loader][hardening]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/0-fullwidth/SKILL.md", skill_md(fullwidth_alpha, "Impostor."));
    mem->add_file("lib/alpha/SKILL.md", skill_md("alpha", "Real."));
    auto opts = memory_options(mem, {"lib"});
    opts.duplicate_names = DuplicateNames::error;
    CHECK_THROWS_AS(FilesystemSkillLoader(opts).discover(), DiscoveryError);
}

TEST_CASE("names that render alike but are not NFKC-equal are reported", "[loader][hardening]") {
    struct Case {
        std::string look_alike;
        std::string dir;
    };
    const std::vector<Case> cases{
        {cyrillic_a_alpha, "zz-cyrillic"},
        {"al\xE2\x80\x8Bpha", "zz-zero-width-space"},  // U+200B inside
        {"\xE2\x80\xAE"
         "alpha",
         "zz-bidi-override"},                     // U+202E in front
        {"alph\xCE\xB1", "zz-greek-alpha"},       // Greek α at the end
        {"\xD0\x90LPHA", "zz-cyrillic-capital"},  // Cyrillic А + case
        {"alpha\xE2\x81\xA0", "zz-word-joiner"},  // U+2060 at the end
        {"a\xCC\x81lpha", "0-combining"},         // not a look-alike: á
    };
    for (const Case& c : cases) {
        CAPTURE(c.dir);
        auto mem = std::make_shared<MemorySkillReader>();
        mem->add_file("lib/alpha/SKILL.md", skill_md("alpha", "Real."));
        mem->add_file("lib/beta/SKILL.md", skill_md("beta", "Unrelated."));
        mem->add_file("lib/" + c.dir + "/SKILL.md", skill_md(c.look_alike, "Look-alike."));
        const Discovery d = FilesystemSkillLoader(memory_options(mem, {"lib"})).discover();
        CHECK(d.skills.size() == 3);  // different NFKC forms: both are skills
        const auto warnings = with_code(d, codes::confusable_name);
        if (c.dir == "0-combining") {
            CHECK(warnings.empty());
            continue;
        }
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0]->severity == Severity::warning);
        // On the look-alike, whichever sorts first, naming the plain skill.
        CHECK(warnings[0]->path == "lib/" + c.dir + "/SKILL.md");
        CHECK(warnings[0]->message.find("lib/alpha/SKILL.md") != std::string::npos);
        CHECK(warnings[0]->message.find("'alpha'") != std::string::npos);
    }
}

TEST_CASE("the confusable check is one pass over many skills", "[loader][hardening]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 3000; ++i) {
        const std::string name = "skill-" + std::to_string(i);
        mem->add_file("lib/" + name + "/SKILL.md", skill_md(name, "D."));
    }
    mem->add_file("lib/zz/SKILL.md", skill_md("skill-1\xE2\x80\x8C", "Zero-width non-joiner."));
    const Discovery d = FilesystemSkillLoader(memory_options(mem, {"lib"}, 2)).discover();
    CHECK(d.skills.size() == 3001);
    const auto warnings = with_code(d, codes::confusable_name);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0]->path == "lib/zz/SKILL.md");
}

TEST_CASE("the confusable check: plain names alone, and one capitalized name among them", "[loader][hardening]") {
    // Names of lowercase ASCII are their own skeleton (no map is built for them alone); a name
    // with capitals among them still meets the plain one it looks like.
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 500; ++i) {
        const std::string name = "tool-" + std::to_string(i);
        mem->add_file("lib/" + name + "/SKILL.md", skill_md(name, "D."));
    }
    SECTION("plain names only") {
        const Discovery d = FilesystemSkillLoader(memory_options(mem, {"lib"}, 2)).discover();
        CHECK(d.skills.size() == 500);
        CHECK(with_code(d, codes::confusable_name).empty());
    }
    SECTION("with a capitalized copy of one") {
        mem->add_file("lib/zz-upper/SKILL.md", skill_md("TOOL-42", "Capitals."));
        const Discovery d = FilesystemSkillLoader(memory_options(mem, {"lib"}, 2)).discover();
        CHECK(d.skills.size() == 501);
        const auto warnings = with_code(d, codes::confusable_name);
        REQUIRE(warnings.size() == 1);
        CHECK(warnings[0]->path == "lib/zz-upper/SKILL.md");
        CHECK(warnings[0]->message.find("'tool-42'") != std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------
// Resources (issue 12, item 10)

TEST_CASE("the listed resources are capped and the rest counted", "[loader][hardening][resources]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/big/SKILL.md", skill_md("big", "Many files."));
    for (int i = 0; i < 1500; ++i) mem->add_file("lib/big/data/f" + std::to_string(10000 + i) + ".txt", "x");
    mem->add_file("lib/big/scripts/run.sh", "s");
    FilesystemSkillLoader loader(memory_options(mem, {"lib"}));
    const LoadedSkill big = loader.load("big");
    REQUIRE(big.resources.size() == SKILL_MAX_RESOURCES);
    CHECK(big.omitted_resources == 501);
    CHECK(big.resources.front().path == "scripts/run.sh");
    CHECK(big.resources[1].path == "data/f10000.txt");
    CHECK(big.resources.back().path == "data/f10998.txt");

    auto opts = memory_options(mem, {"lib"});
    opts.max_resources = 3;
    const LoadedSkill three = FilesystemSkillLoader(opts).load("big");
    CHECK(three.resources == std::vector<SkillResource>{{"scripts/run.sh"}, {"data/f10000.txt"}, {"data/f10001.txt"}});
    CHECK(three.omitted_resources == 1498);
    opts.max_resources = 0;
    const LoadedSkill all = FilesystemSkillLoader(opts).load("big");
    CHECK(all.resources.size() == 1501);
    CHECK(all.omitted_resources == 0);
}

TEST_CASE("the resource walk stops at its entry limit", "[loader][hardening][resources]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("s/SKILL.md", "x");
    for (std::size_t i = 0; i < SKILL_RESOURCE_WALK_LIMIT + 10; ++i) mem->add_file("s/f" + std::to_string(i), "");
    const ResourceList listed = list_skill_resources(*mem, "s", ResourceListOptions{.max_resources = 5});
    CHECK(listed.resources.size() == 5);
    // SKILL.md is one of the entries looked at; the walk stopped at the limit.
    CHECK(listed.omitted == SKILL_RESOURCE_WALK_LIMIT - 1 - 5);
}

TEST_CASE("resource listing goes exactly 64 levels deep", "[loader][hardening][resources]") {
    MemorySkillReader mem;
    mem.add_file("s/SKILL.md", "x");
    std::string dir = "s";
    for (std::size_t level = 1; level <= SKILL_MAX_RESOURCE_DEPTH + 1; ++level) {
        dir += "/d";
        mem.add_file(dir + "/at-" + std::to_string(level), "");
    }
    const auto res = list_skill_resources(mem, "s");
    REQUIRE(res.size() == SKILL_MAX_RESOURCE_DEPTH);
    std::string deepest;
    for (std::size_t level = 1; level <= SKILL_MAX_RESOURCE_DEPTH; ++level) deepest += "d/";
    CHECK(std::any_of(res.begin(), res.end(), [&](const SkillResource& r) { return r.path == deepest + "at-64"; }));
    CHECK(std::none_of(res.begin(), res.end(), [](const SkillResource& r) { return r.path.ends_with("at-65"); }));
}

using agentskills_test::UnlistableReader;

TEST_CASE("the resource walk keeps the documented order whatever the reader's", "[loader][resources]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("s/SKILL.md", "x");
    // '-' and '.' sort before '/': "a-b" comes before "a/c" by path.
    for (const char* f : {"a/c", "a-b", "a.b/c", "b.txt", "assets/y", "references/z", "scripts/x", "scripts/a/b",
                          "scripts-old/w", "0"}) {
        mem->add_file(std::string("s/") + f, "");
    }
    const UnlistableReader reader(mem, true);
    const ResourceList all = list_skill_resources(reader, "s", {.max_resources = 0});
    CHECK(all.resources == std::vector<SkillResource>{{"scripts/a/b"},
                                                      {"scripts/x"},
                                                      {"references/z"},
                                                      {"assets/y"},
                                                      {"0"},
                                                      {"a-b"},
                                                      {"a.b/c"},
                                                      {"a/c"},
                                                      {"b.txt"},
                                                      {"scripts-old/w"}});
    const ResourceList three = list_skill_resources(reader, "s", {.max_resources = 3});
    CHECK(three.resources == std::vector<SkillResource>{{"scripts/a/b"}, {"scripts/x"}, {"references/z"}});
    CHECK(three.omitted == 7);
    CHECK_FALSE(three.incomplete);
}

TEST_CASE("the resource walk stopped at its entry limit lists the first files by path", "[loader][resources]") {
    // One directory of more entries than the walk looks at, listed backwards: the first 1,000 by
    // path are still the ones listed.
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("s/SKILL.md", "x");
    for (std::size_t i = 0; i < SKILL_RESOURCE_WALK_LIMIT + 50; ++i) mem->add_file(fmt::format("s/r/f{:06}", i), "");
    const ResourceList listed = list_skill_resources(UnlistableReader(mem, true), "s", {});
    REQUIRE(listed.resources.size() == SKILL_MAX_RESOURCES);
    CHECK(listed.resources.front().path == "r/f000000");
    CHECK(listed.resources.back().path == "r/f000999");
    // SKILL.md and r/ are two of the entries looked at.
    CHECK(listed.omitted == SKILL_RESOURCE_WALK_LIMIT - 2 - SKILL_MAX_RESOURCES);
    CHECK(listed.incomplete);
    CHECK(listed.entry_limit_reached);
    CHECK(listed.unlisted_directories.empty());
}

TEST_CASE("a resource directory left out says why: unreadable or too deep", "[loader][resources]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/res/SKILL.md", skill_md("res", "R."));
    mem->add_file("lib/res/notes.md", "n");
    mem->add_file("lib/res/secret/f", "s");
    std::string deep = "deep";
    for (std::size_t level = 1; level <= SKILL_MAX_RESOURCE_DEPTH; ++level) deep += "/d";
    mem->add_file("lib/res/" + deep + "/f", "f");
    auto reader = std::make_shared<UnlistableReader>(mem, true);
    reader->unreadable = {"lib/res/secret"};
    const ResourceList listed = list_skill_resources(*reader, "lib/res", {});
    CHECK(listed.unlisted_directories == std::vector<std::string>{deep, "secret"});
    CHECK(listed.unlisted_reasons == std::vector<UnlistedReason>{UnlistedReason::too_deep, UnlistedReason::unreadable});
    CHECK(listed.unlisted_errors == std::vector<std::string>{"", "cannot list 'lib/res/secret': Permission denied"});
    CHECK(listed.incomplete);
    CHECK_FALSE(listed.entry_limit_reached);

    FilesystemSkillLoader loader({.roots = {"lib"}, .reader = reader});
    (void)loader.discover();
    const LoadedSkill skill = loader.load("res");
    CHECK(skill.resources == std::vector<SkillResource>{{"notes.md"}});
    CHECK(skill.unlisted_directories == listed.unlisted_directories);
    CHECK(skill.unlisted_reasons == listed.unlisted_reasons);
    CHECK(render_activation_text(skill, {.include_directory = false})
              .ends_with("<skill_resources>\n  <file path=\"notes.md\" />\n"
                         "  The files in the directory \"" +
                         deep +
                         "\" are not listed: it lies too deep below the skill directory.\n"
                         "  The files in the directory \"secret\" are not listed: it could not be read.\n"
                         "</skill_resources>\n</skill_content>"));
}

TEST_CASE("dotfiles and dot-directories are not resources unless asked for", "[loader][hardening][resources]") {
    TempDir tmp;
    tmp.write("lib/tool/SKILL.md", skill_md("tool", "T."));
    tmp.write("lib/tool/.env", "SECRET=1");
    tmp.write("lib/tool/.git/config", "[core]");
    tmp.write("lib/tool/scripts/.cache/x", "c");
    tmp.write("lib/tool/scripts/run.sh", "s");
    tmp.write("lib/tool/.hidden-dir/visible.txt", "v");
    FilesystemLoaderOptions opts{.roots = {tmp.path("lib")}, .include_default_roots = false};
    CHECK(FilesystemSkillLoader(opts).load("tool").resources == std::vector<SkillResource>{{"scripts/run.sh"}});
    opts.include_hidden_resources = true;
    CHECK(FilesystemSkillLoader(opts).load("tool").resources ==
          std::vector<SkillResource>{
              {"scripts/.cache/x"}, {"scripts/run.sh"}, {".env"}, {".git/config"}, {".hidden-dir/visible.txt"}});
}

// ---------------------------------------------------------------------------------------
// Default roots that fail (issue 12, item 11)

// Runs `body` in a child process without root's power to read anything (as `nobody` when the
// tests run as root), and returns its exit status (0 = every check passed).
template <class F>
int run_unprivileged(F&& body) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(99);
        ::_exit(body());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 98;
}

TEST_CASE("a resource directory nobody may read is named as unreadable", "[loader][resources][local]") {
    TempDir tmp;
    ::chmod(tmp.path().c_str(), 0755);
    tmp.write("lib/res/SKILL.md", skill_md("res", "R."));
    tmp.write("lib/res/secret/f", "s");
    for (const char* d : {"lib", "lib/res"}) ::chmod(tmp.path(d).c_str(), 0755);
    ::chmod(tmp.path("lib/res/SKILL.md").c_str(), 0644);
    ::chmod(tmp.path("lib/res/secret").c_str(), 0);
    constexpr int cannot_reach = 42;  // the temporary directory is not reachable without root
    const int status = run_unprivileged([&]() -> int {
        if (::access(tmp.path("lib/res/SKILL.md").c_str(), R_OK) != 0) return cannot_reach;
        try {
            FilesystemSkillLoader loader({.roots = {tmp.path("lib")}, .include_default_roots = false});
            (void)loader.discover();
            const LoadedSkill skill = loader.load("res");
            if (!skill.resources.empty()) return 1;
            if (skill.unlisted_directories != std::vector<std::string>{"secret"}) return 2;
            if (skill.unlisted_reasons != std::vector<UnlistedReason>{UnlistedReason::unreadable}) return 3;
            if (render_activation_text(skill, {.include_directory = false})
                    .find("  The files in the directory \"secret\" are not listed: it could not be read.\n") ==
                std::string::npos) {
                return 4;
            }
            return 0;
        } catch (...) {
            return 5;
        }
    });
    ::chmod(tmp.path("lib/res/secret").c_str(), 0755);
    if (status == cannot_reach) {
        WARN("the temporary directory is not reachable as nobody; not checked");
        return;
    }
    CHECK(status == 0);
}

TEST_CASE("a default root that cannot be listed is skipped and the home root still counts",
          "[loader][hardening][local]") {
    TempDir tmp;
    ::chmod(tmp.path().c_str(), 0755);
    tmp.write("locked/x/SKILL.md", skill_md("x", "X."));
    tmp.mkdir("repo/.agents");
    // The repository's .agents/skills links to a directory nobody may list: stat works, listing fails.
    std::filesystem::create_directory_symlink(tmp.path("locked"), tmp.path("repo/.agents/skills"));
    tmp.write("home/.agents/skills/mine/SKILL.md", skill_md("mine", "Mine."));
    for (const char* d :
         {"home", "home/.agents", "home/.agents/skills", "home/.agents/skills/mine", "repo", "repo/.agents"}) {
        ::chmod(tmp.path(d).c_str(), 0755);
    }
    ::chmod(tmp.path("home/.agents/skills/mine/SKILL.md").c_str(), 0644);
    ::chmod(tmp.path("locked").c_str(), 0);
    constexpr int cannot_reach = 42;  // the temporary directory is not reachable without root
    const int status = run_unprivileged([&]() -> int {
        if (::access(tmp.path("home/.agents/skills/mine/SKILL.md").c_str(), R_OK) != 0) return cannot_reach;
        try {
            ScopedHomeAndCwd scope(tmp.path("home"), tmp.path("repo"));
            FilesystemSkillLoader loader({.missing_directories = MissingDirectories::error});
            const Discovery d = loader.discover();
            if (names_of(d) != std::vector<std::string>{"mine"}) return 1;
            if (d.skipped.size() != 1 || d.skipped[0].reason != SkipReason::unreadable) return 2;
            if (!d.skipped[0].path.ends_with("repo/.agents/skills")) return 3;
            const auto notes = with_code(d, codes::root_unreadable);
            if (notes.size() != 1 || notes[0]->severity != Severity::warning || notes[0]->path != d.skipped[0].path) {
                return 4;
            }
            // The same directory as an explicit root still fails discovery, under either policy.
            for (auto policy : {MissingDirectories::skip, MissingDirectories::error}) {
                FilesystemSkillLoader explicit_root({.roots = {tmp.path("repo/.agents/skills")},
                                                     .include_default_roots = false,
                                                     .missing_directories = policy});
                try {
                    (void)explicit_root.discover();
                    return 5;
                } catch (const DiscoveryError&) {
                }
            }
            return 0;
        } catch (...) {
            return 6;  // the old code: DiscoveryError out of discover()
        }
    });
    ::chmod(tmp.path("locked").c_str(), 0700);
    if (status == cannot_reach) {
        WARN("the temporary directory is not reachable as an unprivileged user; case not exercised");
        return;
    }
    CHECK(status == 0);
}

TEST_CASE("a default root that is a symlink loop is skipped", "[loader][hardening][local]") {
    TempDir tmp;
    tmp.mkdir("repo/.agents");
    std::filesystem::create_directory_symlink(tmp.path("repo/.agents/skills"), tmp.path("repo/.agents/skills"));
    tmp.write("home/.agents/skills/mine/SKILL.md", skill_md("mine", "My own skill."));
    ScopedHomeAndCwd scope(tmp.path("home"), tmp.path("repo"));
    FilesystemSkillLoader loader({.missing_directories = MissingDirectories::error});
    Discovery d;
    REQUIRE_NOTHROW(d = loader.discover());
    CHECK(names_of(d) == std::vector<std::string>{"mine"});
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].path.ends_with("repo/.agents/skills"));
}

TEST_CASE("a root that is a link that cannot be followed is unreadable, and says why", "[loader][hardening][local]") {
    // A dangling link or a loop where a root should be was reported as a root that "is not a
    // directory" (`root-not-a-directory`, the code of a root that is a file), and an explicit one
    // was skipped under `skip`, where every other root that cannot be inspected fails discovery.
    TempDir tmp;
    tmp.mkdir("repo/.git");
    tmp.mkdir("repo/.agents");
    std::filesystem::create_directory_symlink(tmp.path("repo/.agents/skills"), tmp.path("repo/.agents/skills"));
    tmp.mkdir("home/.agents");
    std::filesystem::create_directory_symlink(tmp.path("home/gone"), tmp.path("home/.agents/skills"));
    tmp.write("lib/ok/SKILL.md", skill_md("ok", "Fine."));
    const std::string loop = tmp.path("repo/.agents/skills");
    const std::string dangling = tmp.path("home/.agents/skills");
    const std::string why = " is a symbolic link that cannot be followed (dangling, a loop, or no permission)";
    ScopedHomeAndCwd scope(tmp.path("home"), tmp.path("repo"));

    FilesystemSkillLoader loader({.roots = {tmp.path("lib")}});
    const Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"ok"});
    REQUIRE(d.skipped.size() == 2);
    CHECK(d.skipped[0].path == loop);
    CHECK(d.skipped[0].reason == SkipReason::unreadable);
    CHECK(d.skipped[0].message == loop + why);
    CHECK(d.skipped[1].path == dangling);
    CHECK(d.skipped[1].reason == SkipReason::unreadable);
    CHECK(d.skipped[1].message == dangling + why);
    std::vector<std::string> unreadable;
    for (const Diagnostic& x : d.diagnostics) {
        CHECK(x.code != codes::root_not_a_directory);
        if (x.code == codes::root_unreadable) unreadable.push_back(x.path + ": " + x.message);
    }
    CHECK(unreadable == std::vector<std::string>{loop + ": " + loop + why, dangling + ": " + dangling + why});

    // An explicit root that cannot be followed fails discovery under either policy, naming why.
    for (auto policy : {MissingDirectories::skip, MissingDirectories::error}) {
        FilesystemSkillLoader explicit_root(
            {.roots = {dangling}, .include_default_roots = false, .missing_directories = policy});
        CHECK_THROWS_WITH(explicit_root.discover(), dangling + why);
    }
    // A root that is a file is still `root-not-a-directory`.
    tmp.write("file-root", "x");
    FilesystemSkillLoader file_root({.roots = {tmp.path("file-root")},
                                     .include_default_roots = false,
                                     .missing_directories = MissingDirectories::skip});
    const Discovery f = file_root.discover();
    REQUIRE(f.skipped.size() == 1);
    CHECK(f.skipped[0].reason == SkipReason::not_a_directory);
}

// ---------------------------------------------------------------------------------------
// Names that are not UTF-8 (issue 12, item 2: the loader's part)

TEST_CASE("directory and file names that are not UTF-8 cost nothing to the other skills",
          "[loader][hardening][local]") {
    TempDir tmp;
    const std::string bad_dir = "\xFF\xFE";
    tmp.write("lib/" + bad_dir + "/SKILL.md", skill_md("odd-dir", "In a directory that is not UTF-8."));
    tmp.write("lib/good/SKILL.md", skill_md("good", "Good."));
    tmp.write("lib/good/notes\xFF.md", "n");
    tmp.write("lib/good/references/a.md", "a");
    tmp.write("lib/" + bad_dir + "/scripts/r\xC3\x28.sh", "s");
    tmp.write("lib/\xC0\xAF/SKILL.md", skill_md("\xC0\xAF", "A name that is not UTF-8 either."));
    for (auto policy : {NamePolicy::keep, NamePolicy::require_valid}) {
        CAPTURE(static_cast<int>(policy));
        FilesystemSkillLoader loader(
            {.roots = {tmp.path("lib")}, .include_default_roots = false, .name_policy = policy});
        Discovery d;
        REQUIRE_NOTHROW(d = loader.discover());
        std::vector<std::string> names = names_of(d);
        CHECK(std::find(names.begin(), names.end(), "good") != names.end());
        CHECK((std::find(names.begin(), names.end(), "odd-dir") != names.end()) == (policy == NamePolicy::keep));
        LoadedSkill good;
        REQUIRE_NOTHROW(good = loader.load("good"));
        CHECK(good.resources == std::vector<SkillResource>{{"references/a.md"}, {"notes\xFF.md"}});
        if (policy == NamePolicy::keep) {
            LoadedSkill odd;
            REQUIRE_NOTHROW(odd = loader.load("odd-dir"));
            CHECK(odd.manifest.root == tmp.path("lib/" + bad_dir));
            CHECK(odd.resources == std::vector<SkillResource>{{"scripts/r\xC3\x28.sh"}});
        }
        // Every diagnostic and skipped entry exists; the paths keep their bytes (a JSON writer
        // makes them valid UTF-8).
        for (const auto& s : d.skipped) CHECK(!s.message.empty());
    }
}

TEST_CASE("the look-alike check is bounded for very long names", "[loader][hardening]") {
    auto mem = std::make_shared<MemorySkillReader>();
    const std::string lower(2000, 'a');
    const std::string upper(2000, 'A');
    mem->add_file("lib/long-lower/SKILL.md", skill_md(lower, "Long."));
    mem->add_file("lib/long-upper/SKILL.md", skill_md(upper, "Long too."));
    mem->add_file("lib/short-lower/SKILL.md", skill_md("abc", "Short."));
    mem->add_file("lib/short-upper/SKILL.md", skill_md("ABC", "Short too."));
    const Discovery d = FilesystemSkillLoader(memory_options(mem, {"lib"})).discover();
    // Names past NFKC_MAX_CODE_POINTS are skipped even under `keep` (no lookup could find them),
    // so they never reach the look-alike check; the short pair is kept with a warning.
    REQUIRE(d.skills.size() == 2);
    CHECK(d.skipped.size() == 2);
    CHECK(with_code(d, codes::name_too_long).size() == 2);
    const auto warnings = with_code(d, codes::confusable_name);
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0]->path == "lib/short-upper/SKILL.md");
}

TEST_CASE("every kept skill loads by its own name, under every name policy", "[loader][hardening][names]") {
    // The class the discovery fuzzer found: a name the parser kept but the one lookup refused.
    auto mem = std::make_shared<MemorySkillReader>();
    const std::string at_bound(NFKC_MAX_CODE_POINTS, 'a');
    const std::string past_bound = "x\u00B2 " + std::string(NFKC_MAX_CODE_POINTS, 'b');
    mem->add_file("lib/at-bound/SKILL.md", skill_md(at_bound, "Exactly at the bound."));
    mem->add_file("lib/past-bound/SKILL.md", skill_md("\"" + past_bound + "\"", "One past it."));
    mem->add_file("lib/slash/SKILL.md", skill_md("/slash", "Starts with a slash."));
    mem->add_file("lib/fullwidth/SKILL.md", skill_md("\xEF\xBC\x8Fwide", "A fullwidth solidus first."));
    mem->add_file("lib/plain/SKILL.md", skill_md("plain", "An ordinary name."));
    for (const NamePolicy policy : {NamePolicy::keep, NamePolicy::require_valid}) {
        CAPTURE(policy == NamePolicy::keep);
        auto options = memory_options(mem, {"lib"});
        options.name_policy = policy;
        auto loader = std::make_shared<FilesystemSkillLoader>(options);
        const SkillCatalogPtr catalog = discover_skill_catalog(loader);
        for (const std::string& name : catalog->names()) {
            CAPTURE(name);
            CHECK(is_addressable_name(name));
            CHECK(names_equal(catalog->load(name).manifest.name, name));
        }
        const Diagnostics& diagnostics = catalog->diagnostics();
        const auto skipped_for = [&](std::string_view file, std::string_view code) {
            return std::any_of(diagnostics.begin(), diagnostics.end(), [&](const Diagnostic& x) {
                return x.path == file && x.code == code && x.severity == Severity::error;
            });
        };
        CHECK(skipped_for("lib/past-bound/SKILL.md", codes::name_too_long));
        CHECK(skipped_for("lib/slash/SKILL.md", codes::name_invalid_character));
        CHECK(catalog->find("plain") != nullptr);
        CHECK((catalog->find(at_bound) != nullptr) == (policy == NamePolicy::keep));
    }
    CHECK_FALSE(is_addressable_name(""));
    CHECK_FALSE(is_addressable_name("/a"));
    CHECK(is_addressable_name("a/"));
    CHECK(is_addressable_name(at_bound));
    CHECK_FALSE(is_addressable_name(at_bound + "a"));
}

}  // namespace loader_hardening_tests

// =======================================================================================
// Tests of the repeated-discovery paths of FilesystemSkillLoader (issue 7): the cache of parsed

namespace discovery_reuse_tests {

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

FilesystemLoaderOptions local_options(const TempDir& tmp, std::size_t threads = 2) {
    return {.roots = {tmp.path("lib")}, .include_default_roots = false, .threads = threads};
}

// What a loader that never discovered before sees.
Discovery fresh(const FilesystemLoaderOptions& options) {
    FilesystemSkillLoader loader(options);
    return loader.discover();
}

void check_same(const Discovery& a, const Discovery& b) {
    REQUIRE(names_of(a) == names_of(b));
    for (std::size_t i = 0; i < a.skills.size(); ++i) {
        CHECK(a.skills[i].description == b.skills[i].description);
        CHECK(a.skills[i].skill_file == b.skills[i].skill_file);
        CHECK(a.skills[i].root == b.skills[i].root);
        CHECK(a.skills[i].library == b.skills[i].library);
        CHECK(a.skills[i].frontmatter == b.skills[i].frontmatter);
    }
    CHECK(a.diagnostics == b.diagnostics);
    REQUIRE(a.skipped.size() == b.skipped.size());
    for (std::size_t i = 0; i < a.skipped.size(); ++i) {
        CHECK(a.skipped[i].path == b.skipped[i].path);
        CHECK(a.skipped[i].reason == b.skipped[i].reason);
        CHECK(a.skipped[i].message == b.skipped[i].message);
    }
}

}  // namespace

TEST_CASE("local: an unchanged stat means no new read, through both repeated paths", "[loader][cache][local]") {
    TempDir tmp;
    tmp.write("lib/a/SKILL.md", skill_md("a", "First."));
    tmp.write("lib/b/SKILL.md", skill_md("b", "Bee."));
    // Old modification times: a stat from the last seconds is not trusted (the loader then
    // re-reads the file to compare its bytes), a settled one is.
    const std::string file = tmp.path("lib/a/SKILL.md");
    const auto mtime = fs::last_write_time(file) - std::chrono::hours(24);
    fs::last_write_time(file, mtime);
    fs::last_write_time(tmp.path("lib/b/SKILL.md"), mtime);
    FilesystemSkillLoader loader(local_options(tmp));
    CHECK(loader.discover().skills.at(0).description == "First.");

    // Same size, same inode, the old modification time put back: the stat is unchanged, so
    // the loader must not notice (which shows that the stat it took when it first read the
    // file, with open + fstat, equals what the reader's lstat reports later).
    tmp.write("lib/a/SKILL.md", skill_md("a", "Other."));
    fs::last_write_time(file, mtime);
    CHECK(loader.discover().skills.at(0).description == "First.");  // the whole result reused

    tmp.write("lib/c/SKILL.md", skill_md("c", "Sea."));  // the listing changes: the merge runs
    Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"a", "b", "c"});
    CHECK(d.skills.at(0).description == "First.");  // still from the cache entry

    fs::last_write_time(file, mtime + std::chrono::seconds(5));  // now the stat differs
    CHECK(loader.discover().skills.at(0).description == "Other.");
}

TEST_CASE("local: repeated discoveries follow additions, removals and edits", "[loader][cache][local]") {
    TempDir tmp;
    for (int i = 0; i < 20; ++i) {
        const std::string name = "skill-" + std::to_string(i);
        tmp.write("lib/" + name + "/SKILL.md", skill_md(name, "Number " + std::to_string(i) + "."));
    }
    tmp.write("lib/broken/SKILL.md", "no frontmatter here");
    tmp.mkdir("lib/not-a-skill");
    tmp.write("lib/file.txt", "a file, not a directory");
    const auto options = local_options(tmp);
    FilesystemSkillLoader loader(options);

    Discovery first = loader.discover();
    check_same(first, fresh(options));
    check_same(loader.discover(), first);  // unchanged

    tmp.write("lib/skill-3/SKILL.md", skill_md("skill-3", "Edited, and longer than before."));
    Discovery edited = loader.discover();
    check_same(edited, fresh(options));
    for (const auto& m : edited.skills) {
        if (m.name == "skill-3") CHECK(m.description == "Edited, and longer than before.");
    }

    tmp.write("lib/not-a-skill/SKILL.md", skill_md("not-a-skill", "Now it is one."));  // listing unchanged
    Discovery appeared = loader.discover();
    check_same(appeared, fresh(options));
    CHECK(appeared.skills.size() == first.skills.size() + 1);

    fs::remove(tmp.path("lib/skill-7/SKILL.md"));  // listing unchanged, a SKILL.md gone
    Discovery removed = loader.discover();
    check_same(removed, fresh(options));
    CHECK(removed.skills.size() == first.skills.size());

    fs::remove_all(tmp.path("lib/skill-8"));
    check_same(loader.discover(), fresh(options));
    check_same(loader.discover(), fresh(options));
}

TEST_CASE("a large library: the reuse check in chunks beside the copy of the result",
          "[loader][cache][local][concurrency]") {
    // Over 512 children and more than one thread, the reuse check stats in chunks while one
    // task copies the last result; a difference anywhere must throw that copy away.
    TempDir tmp;
    constexpr int count = 700;
    constexpr int last = count - 1;
    const auto name_of = [](int i) {
        std::string n = std::to_string(i);
        return "skill-" + std::string(3 - n.size(), '0') + n;
    };
    const auto file_of = [&](int i) { return "lib/" + name_of(i) + "/SKILL.md"; };
    const auto numbered = [](int i) { return "Number " + std::to_string(i) + "."; };
    const auto write = [&](int i, const std::string& description) {
        tmp.write(file_of(i), skill_md(name_of(i), description));
    };
    // Settled modification times everywhere: a file changed in the last two seconds would send
    // every discovery down the full path, and the whole-result reuse would not be tested.
    const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24);
    const auto settle = [&](const std::string& relative) { fs::last_write_time(tmp.path(relative), old); };
    for (int i = 0; i < count; ++i) {
        write(i, numbered(i));
        settle(file_of(i));
    }
    tmp.write("lib/broken/SKILL.md", "no frontmatter here");
    settle("lib/broken/SKILL.md");
    const auto description_of = [&](const Discovery& d, const std::string& name) {
        for (const auto& m : d.skills) {
            if (m.name == name) return m.description;
        }
        return std::string("(absent)");
    };

    for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
        INFO("threads " << threads);
        const auto options = local_options(tmp, threads);
        FilesystemSkillLoader loader(options);
        const Discovery first = loader.discover();
        REQUIRE(first.skills.size() == count);
        check_same(first, fresh(options));
        check_same(loader.discover(), first);

        // The same size and stat in the last chunk: the whole result is reused (old text).
        write(last, "Number 000.");
        settle(file_of(last));
        CHECK(description_of(loader.discover(), name_of(last)) == numbered(last));

        // A stat that differs, first in the last chunk, then in the first one.
        write(last, "Edited at the end.");
        Discovery edited = loader.discover();
        CHECK(description_of(edited, name_of(last)) == "Edited at the end.");
        check_same(edited, fresh(options));
        write(0, "Edited at the start.");
        edited = loader.discover();
        CHECK(description_of(edited, name_of(0)) == "Edited at the start.");
        check_same(edited, fresh(options));
        check_same(loader.discover(), edited);

        // Put both back for the next thread count.
        for (const int i : {0, last}) {
            write(i, numbered(i));
            settle(file_of(i));
        }
    }
}

TEST_CASE("local: a symlinked skill directory is looked at again each time", "[loader][cache][local]") {
    TempDir tmp;
    tmp.write("store/one/SKILL.md", skill_md("linked", "Version one."));
    tmp.write("store/two/SKILL.md", skill_md("linked", "Version two."));
    tmp.write("lib/plain/SKILL.md", skill_md("plain", "Plain."));
    fs::create_directory_symlink(tmp.path("store/one"), tmp.path("lib/linked"));
    const auto options = local_options(tmp);
    FilesystemSkillLoader loader(options);
    CHECK(loader.discover().skills.at(0).description == "Version one.");
    CHECK(loader.discover().skills.at(0).description == "Version one.");

    fs::remove(tmp.path("lib/linked"));
    fs::create_directory_symlink(tmp.path("store/two"), tmp.path("lib/linked"));
    Discovery d = loader.discover();
    CHECK(d.skills.at(0).description == "Version two.");
    CHECK(d.skills.at(0).root == fs::canonical(tmp.path("store/two")).string());
    check_same(d, fresh(options));
}

TEST_CASE("local: a symlinked SKILL.md and an unreadable one take the general path", "[loader][cache][local]") {
    TempDir tmp;
    tmp.write("elsewhere/SKILL.md", skill_md("via-link", "Through a file symlink."));
    tmp.mkdir("lib/via-link");
    fs::create_symlink(tmp.path("elsewhere/SKILL.md"), tmp.path("lib/via-link/SKILL.md"));
    tmp.mkdir("lib/dir-not-file/SKILL.md");  // a directory named SKILL.md
    tmp.write("lib/ok/SKILL.md", skill_md("ok", "Fine."));
    const auto options = local_options(tmp, 1);
    FilesystemSkillLoader loader(options);
    Discovery first = loader.discover();
    CHECK(names_of(first) == std::vector<std::string>{"ok", "via-link"});
    REQUIRE(first.skipped.size() == 1);
    CHECK(first.skipped[0].reason == SkipReason::unreadable);
    check_same(loader.discover(), first);
    check_same(loader.discover(), fresh(options));
}

TEST_CASE("reuse keeps what the roots reported, and on_diagnostic still sees everything", "[loader][cache]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/a/SKILL.md", skill_md("a", "Aye."));
    mem->add_file("lib/bad/SKILL.md", "---\nname: bad\n---\nno description\n");
    std::size_t seen = 0;
    FilesystemLoaderOptions options{
        .roots = {"lib", "missing"}, .reader = mem, .on_diagnostic = [&](const Diagnostic&) { ++seen; }};
    FilesystemSkillLoader loader(options);
    Discovery first = loader.discover();
    const std::size_t per_discovery = seen;
    CHECK(per_discovery == first.diagnostics.size());
    CHECK(per_discovery >= 2);  // the missing root and the bad skill
    Discovery second = loader.discover();
    check_same(second, first);
    CHECK(seen == 2 * per_discovery);

    mem->add_file("missing/x/SKILL.md", skill_md("x", "The root exists now."));
    Discovery third = loader.discover();
    CHECK(names_of(third) == std::vector<std::string>{"a", "x"});
}

}  // namespace discovery_reuse_tests

// =======================================================================================
// FilesystemLoaderOptions::lazy_bodies: discovery keeps no body; load() reads the file again,

namespace lazy_bodies_tests {

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

FilesystemLoaderOptions options_for(const std::string& root, bool lazy) {
    return FilesystemLoaderOptions{.roots = {root}, .include_default_roots = false, .lazy_bodies = lazy};
}

std::string error_of(FilesystemSkillLoader& loader, std::string_view name) {
    try {
        (void)loader.load(name);
    } catch (const IoError& e) {
        return e.what();
    }
    return "(no IoError)";
}

}  // namespace

TEST_CASE("lazy bodies: load() serves what an eager loader serves", "[loader][lazy-bodies]") {
    TempDir dir;
    dir.write("alpha/SKILL.md", skill_md("alpha", "First skill.", "\n\nStep one.\r\nStep two.\n\n"));
    dir.write("beta/SKILL.md",
              "---\nname: beta\ndescription: |\n  Second\n  skill.\nmetadata:\n  k: v\n---\nBeta body.\n");
    dir.write("beta/scripts/run.sh", "echo hi\n");
    FilesystemSkillLoader eager(options_for(dir.path(), false));
    FilesystemSkillLoader lazy(options_for(dir.path(), true));
    const Discovery de = eager.discover();
    const Discovery dl = lazy.discover();
    REQUIRE(de.skills.size() == 2);
    REQUIRE(nlohmann::json(de.skills) == nlohmann::json(dl.skills));
    for (const char* name : {"alpha", "beta"}) {
        const LoadedSkill a = eager.load(name);
        const LoadedSkill b = lazy.load(name);
        CHECK(nlohmann::json(a.manifest) == nlohmann::json(b.manifest));
        CHECK(a.instructions == b.instructions);
        CHECK(a.resources.size() == b.resources.size());
    }
    CHECK(lazy.load("alpha").instructions == "Step one.\nStep two.");
    CHECK(lazy.load("beta").resources.size() == 1);
}

TEST_CASE("lazy bodies: a file edited after discovery is parsed again", "[loader][lazy-bodies]") {
    TempDir dir;
    dir.write("alpha/SKILL.md", skill_md("alpha", "First skill.", "Old body."));
    FilesystemSkillLoader loader(options_for(dir.path(), true));
    REQUIRE(loader.discover().skills.size() == 1);

    SECTION("still valid under the same name: the new manifest and body") {
        dir.write("alpha/SKILL.md", skill_md("alpha", "Edited description.", "New body, longer than before."));
        const LoadedSkill s = loader.load("alpha");
        CHECK(s.instructions == "New body, longer than before.");
        CHECK(s.manifest.description == "Edited description.");
        CHECK(s.manifest.skill_file == (std::filesystem::path(dir.path()) / "alpha" / "SKILL.md").string());
    }
    SECTION("the same size, other bytes: still seen") {
        dir.write("alpha/SKILL.md", skill_md("alpha", "First skill.", "New body."));
        CHECK(loader.load("alpha").instructions == "New body.");
    }
    SECTION("no longer parses: a clear IoError") {
        dir.write("alpha/SKILL.md", "---\nname: alpha\n---\nNo description now.\n");
        const std::string message = error_of(loader, "alpha");
        CHECK(message.find("alpha/SKILL.md changed since discovery and no longer parses: the frontmatter has no "
                           "'description'") != std::string::npos);
    }
    SECTION("names another skill now: a clear IoError") {
        dir.write("alpha/SKILL.md", skill_md("gamma", "Renamed.", "Body."));
        CHECK(error_of(loader, "alpha").find("changed since discovery and now names the skill 'gamma', not 'alpha'") !=
              std::string::npos);
    }
    SECTION("removed: the reader's error") {
        std::filesystem::remove(std::filesystem::path(dir.path()) / "alpha" / "SKILL.md");
        CHECK_THROWS_AS(loader.load("alpha"), NotFoundError);
    }
}

TEST_CASE("lazy bodies under a lock: a file changed since discovery is refused, not served unchecked",
          "[loader][lazy-bodies][lock]") {
    // The lock verifier checked the bytes discovery read; load() and frontmatter() never serve
    // others (an eager loader serves the body it kept). A fake verifier: every skill is locked.
    for (const bool keep_results : {true, false}) {
        CAPTURE(keep_results);
        TempDir dir;
        dir.write("alpha/SKILL.md", skill_md("alpha", "First skill.", "Old body."));
        FilesystemLoaderOptions options = options_for(dir.path(), true);
        options.keep_results = keep_results;
        int checks = 0;
        options.lock = [&checks](const SkillManifest&, const SkillReader&) {
            ++checks;
            return LockCheck{};
        };
        FilesystemSkillLoader loader(options);
        REQUIRE(loader.discover().skills.size() == 1);
        CHECK(checks == 1);
        CHECK(loader.load("alpha").instructions == "Old body.");  // unchanged: served
        dir.write("alpha/SKILL.md", skill_md("alpha", "First skill.", "New body, longer than before."));
        const std::string path = (std::filesystem::path(dir.path()) / "alpha" / "SKILL.md").string();
        const std::string expected =
            path + " changed since discovery, which checked it against the lock; discover again to check it";
        CHECK(error_of(loader, "alpha") == expected);
        if (keep_results) {
            CHECK(loader.frontmatter("alpha")->at("description") == "First skill.");  // the kept tree
        } else {
            CHECK_THROWS_WITH(loader.frontmatter("alpha"), expected);  // nothing kept: it would read the file
        }
        // A new discovery checks the file again, and then serves it.
        REQUIRE(loader.discover().skills.size() == 1);
        CHECK(checks == 2);
        CHECK(loader.load("alpha").instructions == "New body, longer than before.");
    }
}

TEST_CASE("lazy bodies: a reader without times or identities is checked byte for byte", "[loader][lazy-bodies]") {
    auto reader = std::make_shared<MemorySkillReader>();
    reader->add_file("alpha/SKILL.md", skill_md("alpha", "First skill.", "Body one."));
    FilesystemSkillLoader loader(FilesystemLoaderOptions{.reader = reader, .lazy_bodies = true});
    REQUIRE(loader.discover().skills.size() == 1);
    CHECK(loader.load("alpha").instructions == "Body one.");
    reader->add_file("alpha/SKILL.md", skill_md("alpha", "First skill.", "Body two."));  // same size
    CHECK(loader.load("alpha").instructions == "Body two.");
}

TEST_CASE("lazy bodies: an activation of a skill that broke after discovery says why", "[loader][lazy-bodies]") {
    TempDir dir;
    dir.write("alpha/SKILL.md", skill_md("alpha", "First skill.", "Body."));
    auto loader = std::make_shared<FilesystemSkillLoader>(options_for(dir.path(), true));
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    const SkillActivator core(catalog);
    MemoryActivationStore store;
    CHECK(core.activate(store, R"({"name":"alpha"})").status == ActivationStatus::content);
    dir.write("alpha/SKILL.md", "---\nname: alpha\ndescription: [unclosed\n---\nBody.\n");
    MemoryActivationStore fresh;
    const ActivationResult r = core.activate(fresh, R"({"name":"alpha"})");
    CHECK(r.status != ActivationStatus::content);
    CHECK(r.error.find("changed since discovery and no longer parses") != std::string::npos);
}

// FilesystemLoaderOptions::keep_results = false: the manifests move into the Discovery and
// load() parses the file again; what the caller sees is the same as with it on.
namespace {

void check_same_loaders(const FilesystemLoaderOptions& base) {
    FilesystemLoaderOptions kept = base;
    FilesystemLoaderOptions once = base;
    once.keep_results = false;
    FilesystemSkillLoader a(kept);
    FilesystemSkillLoader b(once);
    const Discovery da = a.discover();
    const Discovery db = b.discover();
    REQUIRE(nlohmann::json(da.skills) == nlohmann::json(db.skills));
    CHECK(nlohmann::json(da.skipped) == nlohmann::json(db.skipped));
    CHECK(nlohmann::json(da.diagnostics) == nlohmann::json(db.diagnostics));
    for (const SkillManifest& m : da.skills) {
        const LoadedSkill la = a.load(m.name);
        const LoadedSkill lb = b.load(m.name);
        CHECK(nlohmann::json(la.manifest) == nlohmann::json(lb.manifest));
        CHECK(la.instructions == lb.instructions);
        CHECK(la.resources == lb.resources);
    }
}

}  // namespace

TEST_CASE("keep_results off: the same discovery and loads as with it on", "[loader][keep-results]") {
    TempDir dir;
    dir.write("one/alpha/SKILL.md", skill_md("alpha", "First skill.", "\n\nStep one.\r\nStep two.\n\n"));
    dir.write("one/beta/SKILL.md",
              "---\nname: beta\ndescription: |\n  Second\n  skill.\nmetadata:\n  k: v\n---\nBody.\n");
    dir.write("one/beta/scripts/run.sh", "echo hi\n");
    dir.write("one/broken/SKILL.md", "---\nname: broken\n---\nNo description.\n");
    dir.write("two/alpha/SKILL.md", skill_md("alpha", "Shadowed by one/alpha.", "Other."));
    dir.write("two/gamma/SKILL.md", skill_md("gamma", "Third skill.", "Gamma body."));
    FilesystemLoaderOptions base{.roots = {dir.path("one"), dir.path("two")}, .include_default_roots = false};
    base.overrides = {OverrideRule{.name = "gamma", .mode = SkillMode::name_only}};
    SECTION("eager bodies") { check_same_loaders(base); }
    SECTION("lazy bodies") {
        base.lazy_bodies = true;
        check_same_loaders(base);
    }
    SECTION("a second discover() reads the library again") {
        base.keep_results = false;
        FilesystemSkillLoader loader(base);
        REQUIRE(loader.discover().skills.size() == 3);
        dir.write("two/delta/SKILL.md", skill_md("delta", "Fourth skill.", "Delta body."));
        dir.write("one/alpha/SKILL.md", skill_md("alpha", "Edited.", "New."));
        const Discovery again = loader.discover();
        REQUIRE(again.skills.size() == 4);
        CHECK(again.skills[0].description == "Edited.");
        CHECK(loader.load("alpha").instructions == "New.");
        CHECK(loader.load("delta").instructions == "Delta body.");
        CHECK(loader.load("gamma").manifest.mode == SkillMode::name_only);
    }
}

TEST_CASE("keep_results off: every library of the shared corpus discovers and loads the same",
          "[loader][keep-results][corpus]") {
    const auto corpus = agentskills_test::shared_corpus();
    if (!corpus) return;
    const std::filesystem::path libraries = *corpus / "libraries";
    // Every directory that holds a skill directory is a library root.
    std::set<std::string> roots;
    for (const auto& e : std::filesystem::recursive_directory_iterator(libraries)) {
        if (e.is_regular_file() && e.path().filename() == "SKILL.md") {
            roots.insert(e.path().parent_path().parent_path().string());
        }
    }
    std::size_t count = 0;
    for (const std::string& root : roots) {
        check_same_loaders(
            FilesystemLoaderOptions{.roots = {root}, .include_default_roots = false, .lazy_bodies = (count % 2) == 1});
        ++count;
    }
    CHECK(count >= 10);
}

TEST_CASE("keep_results off: selection, look-alikes, skipped files and nested groups as with it on",
          "[loader][keep-results]") {
    TempDir dir;
    // Candidates whose manifests are dropped between kept ones (in name order: b, c, d, f): a
    // skipped file, an excluded name, a directory without a SKILL.md, a look-alike of `last`
    // that sorts first (the canonical one wins), and a shadowed duplicate in the second root.
    dir.write("one/first/SKILL.md", skill_md("first", "Kept.", "A."));
    dir.write("one/b-broken/SKILL.md", "---\nname: b-broken\n---\nNo description.\n");
    dir.write("one/c-dropped/SKILL.md", skill_md("dropped", "Excluded.", "C."));
    dir.write("one/d-plain/notes.md", "not a skill\n");
    dir.write("one/e-middle/SKILL.md", skill_md("middle", "Kept.", "E."));
    dir.write("one/f-alias/SKILL.md", skill_md("last", "A look-alike directory.", "F."));
    dir.write("one/last/SKILL.md", skill_md("last", "The canonical one.", "L."));
    dir.write("two/first/SKILL.md", skill_md("first", "Shadowed.", "Other."));
    dir.write("two/zeta/SKILL.md", skill_md("zeta", "Kept.", "Z."));
    FilesystemLoaderOptions base{.roots = {dir.path("one"), dir.path("two")}, .include_default_roots = false};
    base.exclude = {"dropped"};
    SECTION("flat") {
        check_same_loaders(base);
        base.keep_results = false;
        FilesystemSkillLoader loader(base);
        const Discovery d = loader.discover();
        std::vector<std::string> names;
        for (const SkillManifest& m : d.skills) names.push_back(m.name + "=" + m.description);
        CHECK(names ==
              std::vector<std::string>{"middle=Kept.", "first=Kept.", "last=The canonical one.", "zeta=Kept."});
        CHECK(d.skills[2].root == dir.path("one/last"));
        CHECK(loader.load("last").instructions == "L.");
        CHECK(loader.reader_for("zeta") == loader.reader());
        CHECK_THROWS_AS(loader.load("dropped"), NotFoundError);
        CHECK_THROWS_AS(loader.load("b-broken"), NotFoundError);
    }
    SECTION("lazy bodies") {
        base.lazy_bodies = true;
        check_same_loaders(base);
    }
    SECTION("nested groups (candidates added after the parse)") {
        dir.write("one/group/inner/SKILL.md", skill_md("inner", "Nested.", "I."));
        base.nested_depth = 1;
        base.lazy_bodies = true;
        check_same_loaders(base);
        base.keep_results = false;
        FilesystemSkillLoader loader(base);
        CHECK(loader.discover().skills.size() == 5);
        CHECK(loader.load("group:inner").instructions == "I.");
    }
    SECTION("a nested skill edited after discovery keeps its group name") {
        base.nested_depth = 1;
        base.lazy_bodies = true;
        for (const bool keep : {true, false}) {
            dir.write("one/group/inner/SKILL.md", skill_md("inner", "Nested.", "I."));
            base.keep_results = keep;
            FilesystemSkillLoader loader(base);
            REQUIRE(loader.discover().skills.size() == 5);
            dir.write("one/group/inner/SKILL.md", skill_md("inner", "Edited.", keep ? "New body." : "Newer body."));
            const LoadedSkill s = loader.load("group:inner");
            CHECK(s.manifest.name == "group:inner");
            CHECK(s.manifest.description == "Edited.");
            CHECK(s.instructions == (keep ? "New body." : "Newer body."));
            dir.write("one/group/inner/SKILL.md", skill_md("other", "Renamed.", "B."));
            CHECK(error_of(loader, "group:inner").find("now names the skill 'group:other', not 'group:inner'") !=
                  std::string::npos);
        }
    }
}

TEST_CASE("FilesystemSkillLoader::frontmatter: the tree discovery gives, read again when it built none",
          "[loader][keep-results]") {
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "First skill.", "Alpha body."));
    dir.write("lib/beta/SKILL.md",
              "---\nname: beta\ndescription: Second skill.\nmetadata:\n  k: v\nx-extra: [1, 2]\n---\nBeta body.\n");
    FilesystemSkillLoader reference({.roots = {dir.path("lib")}, .include_default_roots = false});
    const Discovery expected = reference.discover();
    REQUIRE(expected.skills.size() == 2);
    for (const bool keep : {true, false}) {
        for (const bool lazy : {true, false}) {
            for (const bool json : {true, false}) {
                CAPTURE(keep, lazy, json);
                FilesystemSkillLoader loader({.roots = {dir.path("lib")},
                                              .include_default_roots = false,
                                              .lazy_bodies = lazy,
                                              .keep_results = keep,
                                              .frontmatter_json = json});
                const Discovery d = loader.discover();
                REQUIRE(d.skills.size() == 2);
                for (const auto& m : expected.skills) CHECK(loader.frontmatter(m.name).get() == m.frontmatter.get());
                CHECK(loader.frontmatter("beta")->at("x-extra") == nlohmann::json::array({"1", "2"}));
                CHECK_THROWS_AS(loader.frontmatter("gamma"), NotFoundError);
            }
        }
    }
    // Read again: a file that changed since discovery is checked as load() checks it.
    FilesystemSkillLoader lean(
        {.roots = {dir.path("lib")}, .include_default_roots = false, .keep_results = false, .frontmatter_json = false});
    REQUIRE(lean.discover().skills.size() == 2);
    dir.write("lib/beta/SKILL.md", "---\nname: gamma\ndescription: Renamed.\n---\nBody.\n");
    CHECK_THROWS_AS(lean.frontmatter("beta"), IoError);
    dir.write("lib/beta/SKILL.md", "---\nname: beta\ndescription: Changed, same name.\nlicense: MIT\n---\nBody.\n");
    CHECK(lean.frontmatter("beta").get() ==
          nlohmann::json({{"name", "beta"}, {"description", "Changed, same name."}, {"license", "MIT"}}));
    CHECK(lean.frontmatter("alpha").get() == expected.skills[0].frontmatter.get());
}

TEST_CASE("frontmatter_json off: empty frontmatter, everything else as with it on", "[loader][keep-results]") {
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", skill_md("alpha", "First skill.", "Alpha body."));
    dir.write("lib/beta/SKILL.md",
              "---\nname: beta\ndescription: Second skill.\nmetadata:\n  k: v\nx-extra: [1, 2]\n---\nBeta body.\n");
    dir.write("lib/broken/SKILL.md", "---\nname: broken\n---\nNo description.\n");
    for (const bool keep : {true, false}) {
        for (const bool lazy : {true, false}) {
            FilesystemLoaderOptions with{
                .roots = {dir.path("lib")}, .include_default_roots = false, .lazy_bodies = lazy, .keep_results = keep};
            FilesystemLoaderOptions without = with;
            without.frontmatter_json = false;
            FilesystemSkillLoader a(with);
            FilesystemSkillLoader b(without);
            const Discovery da = a.discover();
            const Discovery db = b.discover();
            REQUIRE(da.skills.size() == 2);
            REQUIRE(db.skills.size() == 2);
            CHECK(da.skills[1].frontmatter->at("x-extra") == nlohmann::json::array({"1", "2"}));
            CHECK(nlohmann::json(da.skipped) == nlohmann::json(db.skipped));
            CHECK(nlohmann::json(da.diagnostics) == nlohmann::json(db.diagnostics));
            for (std::size_t i = 0; i < da.skills.size(); ++i) {
                nlohmann::json ja = da.skills[i];
                nlohmann::json jb = db.skills[i];
                CHECK(jb.at("frontmatter") == nlohmann::json::object());
                ja.erase("frontmatter");
                jb.erase("frontmatter");
                CHECK(ja == jb);
                const LoadedSkill la = a.load(da.skills[i].name);
                const LoadedSkill lb = b.load(da.skills[i].name);
                CHECK(lb.manifest.frontmatter.get() == nlohmann::json::object());
                CHECK(la.instructions == lb.instructions);
                CHECK(la.manifest.metadata == lb.manifest.metadata);
            }
        }
    }
}

}  // namespace lazy_bodies_tests

// =======================================================================================
// Hostile input and faults (issue 8, acceptance 2). Each test builds a library with two good

namespace hostile_tests {

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

TEST_CASE("a SKILL.md that is a dangling or looping symlink says so", "[hostile]") {
    // The layout of a repository whose `.gemini/skills/<name>/SKILL.md` links point at files
    // that were moved: each is skipped with the reason, the others load.
    TempDir tmp;
    const std::string lib = make_library(tmp);
    fs::create_directory(lib + "/moved");
    fs::create_symlink("../../elsewhere/moved/SKILL.md", lib + "/moved/SKILL.md");
    fs::create_directory(lib + "/looped");
    fs::create_symlink("SKILL.md", lib + "/looped/SKILL.md");
    const Discovery d = discover_local(lib);
    CHECK(names_of(d) == std::vector<std::string>{"alpha", "zulu"});
    for (const std::string dir : {"moved", "looped"}) {
        const std::string path = lib + "/" + dir + "/SKILL.md";
        INFO(path);
        const auto skipped =
            std::find_if(d.skipped.begin(), d.skipped.end(), [&](const SkippedSkill& s) { return s.path == path; });
        REQUIRE(skipped != d.skipped.end());
        CHECK(skipped->reason == SkipReason::unreadable);
        CHECK(skipped->message ==
              path + " is a symbolic link that cannot be followed (dangling, a loop, or no permission)");
    }
}

TEST_CASE("a symbolic link to a FIFO or a device is reported as such, not as dangling", "[hostile]") {
    // The kind of the link's target is known from the stat that followed it: a SKILL.md that links
    // to a FIFO or a device, and a library child that links to a FIFO, say what they are.
    TempDir tmp;
    const std::string lib = make_library(tmp);
    const std::string fifo = tmp.path("outside-fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    fs::create_directory(lib + "/to-fifo");
    fs::create_symlink(fifo, lib + "/to-fifo/SKILL.md");
    fs::create_directory(lib + "/to-device");
    fs::create_symlink("/dev/null", lib + "/to-device/SKILL.md");
    fs::create_symlink(fifo, lib + "/child-fifo");
    fs::create_directory(lib + "/dangling");
    fs::create_symlink(tmp.path("nowhere"), lib + "/dangling/SKILL.md");
    const Discovery d = discover_local(lib);
    CHECK(names_of(d) == std::vector<std::string>{"alpha", "zulu"});
    const std::string special =
        " is a symbolic link to something that is not a regular file (a FIFO, device or socket)";
    const std::vector<std::pair<std::string, std::string>> expected{
        {lib + "/child-fifo", lib + "/child-fifo" + special},
        {lib + "/dangling/SKILL.md",
         lib + "/dangling/SKILL.md is a symbolic link that cannot be followed (dangling, a loop, or no permission)"},
        {lib + "/to-device/SKILL.md", lib + "/to-device/SKILL.md" + special},
        {lib + "/to-fifo/SKILL.md", lib + "/to-fifo/SKILL.md" + special},
    };
    for (const auto& entry : expected) {
        const std::string& path = entry.first;  // (Clang 14's lambdas cannot capture structured bindings)
        const std::string& message = entry.second;
        INFO(path);
        const auto skipped =
            std::find_if(d.skipped.begin(), d.skipped.end(), [&](const SkippedSkill& s) { return s.path == path; });
        REQUIRE(skipped != d.skipped.end());
        CHECK(skipped->reason == SkipReason::unreadable);
        CHECK(skipped->message == message);
        const auto diag = std::find_if(d.diagnostics.begin(), d.diagnostics.end(),
                                       [&](const Diagnostic& x) { return x.path == path; });
        REQUIRE(diag != d.diagnostics.end());
        CHECK(diag->code == codes::skill_unreadable);
        CHECK(diag->line == 0);  // no line applies: the file is not read
        CHECK(diag->message == message);
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

}  // namespace hostile_tests

// =======================================================================================
// Tests of the default roots' upward walk, the other agents' folders and the limit presets
// (issue 36). A LocalSkillReader with a base directory stands for the working directory, so the
// walk is tested without changing the process's; HOME is set for the scope of each test.

namespace loader_tests {

namespace {

// Sets HOME for one scope (the working directory too, when given).
class HomeScope {
public:
    explicit HomeScope(const std::string& home) : scope_(home, std::filesystem::current_path()) {}

private:
    ProcessScope scope_;
};

FilesystemSkillLoader based_loader(const std::string& base, FilesystemLoaderOptions options = {}) {
    options.reader = std::make_shared<LocalSkillReader>(base);
    return FilesystemSkillLoader(std::move(options));
}

std::vector<std::string> libraries_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.library);
    return out;
}

}  // namespace

TEST_CASE("default roots: .agents/skills at each level up to the repository root, nearer first", "[loader][walk]") {
    TempDir t;
    t.write(".agents/skills/outside/SKILL.md", skill_md("outside", "Above the repository."));
    t.mkdir("repo/.git");
    t.write("repo/.agents/skills/top/SKILL.md", skill_md("top", "At the root."));
    t.write("repo/.agents/skills/shared/SKILL.md", skill_md("shared", "The far copy."));
    t.write("repo/sub/.agents/skills/mid/SKILL.md", skill_md("mid", "One up."));
    t.write("repo/sub/dir/.agents/skills/low/SKILL.md", skill_md("low", "Here."));
    t.write("repo/sub/dir/.agents/skills/shared/SKILL.md", skill_md("shared", "The near copy."));
    TempDir home;
    HomeScope scope(home.path());

    const Discovery d = based_loader(t.path("repo/sub/dir")).discover();
    CHECK(names_of(d) == std::vector<std::string>{"low", "shared", "mid", "top"});
    CHECK(libraries_of(d) ==
          std::vector<std::string>{t.path("repo/sub/dir/.agents/skills"), t.path("repo/sub/dir/.agents/skills"),
                                   t.path("repo/sub/.agents/skills"), t.path("repo/.agents/skills")});
    REQUIRE(d.skills.size() == 4);
    CHECK(d.skills[1].description == "The near copy.");  // nearer wins

    // A .git file (a worktree or a submodule) ends the walk as a directory does.
    t.write("repo/sub/.git", "gitdir: /elsewhere\n");
    CHECK(names_of(based_loader(t.path("repo/sub/dir")).discover()) ==
          std::vector<std::string>{"low", "shared", "mid"});
}

TEST_CASE("default roots: the walk stops below the home directory, without a repository or home it is the start alone",
          "[loader][walk]") {
    TempDir t;
    t.write("home/.agents/skills/user/SKILL.md", skill_md("user", "The user's."));
    t.write("home/a/.agents/skills/a-level/SKILL.md", skill_md("a-level", "Under home."));
    t.write("home/a/b/.agents/skills/b-level/SKILL.md", skill_md("b-level", "The start."));
    t.write("x/.agents/skills/planted/SKILL.md", skill_md("planted", "Above a directory of no repository."));
    t.write("x/y/.agents/skills/here/SKILL.md", skill_md("here", "The start."));
    HomeScope scope(t.path("home"));

    // Under home: the levels below it (home's own folder is the user root, not a project level,
    // and a reader with a base has no user roots).
    CHECK(names_of(based_loader(t.path("home/a/b")).discover()) == std::vector<std::string>{"b-level", "a-level"});
    // Neither .git nor home above: only the start directory, as before the walk.
    CHECK(names_of(based_loader(t.path("x/y")).discover()) == std::vector<std::string>{"here"});
}

TEST_CASE("default roots: the walk never goes up into a directory anyone may write to, like /tmp", "[loader][walk]") {
    // `pub` stands for /tmp: writable by every user. A `.git` planted in it, or a home directory
    // above it (HOME=/, as in many containers), vouched for it, and the skills anyone put in its
    // `.agents/skills` were loaded.
    TempDir t;
    t.write("pub/.agents/skills/planted/SKILL.md", skill_md("planted", "Put there by another user."));
    t.write("pub/work/.agents/skills/here/SKILL.md", skill_md("here", "The start."));
    t.write("pub/work/sub/.agents/skills/low/SKILL.md", skill_md("low", "Below the start's parent."));
    std::filesystem::permissions(t.path("pub"), std::filesystem::perms::all);  // 0777
    {
        HomeScope scope(t.path());  // home above `pub`
        CHECK(names_of(based_loader(t.path("pub/work")).discover()) == std::vector<std::string>{"here"});
        CHECK(names_of(based_loader(t.path("pub/work/sub")).discover()) == std::vector<std::string>{"low"});
    }
    t.mkdir("pub/.git");
    TempDir home;
    HomeScope scope(home.path());
    CHECK(names_of(based_loader(t.path("pub/work")).discover()) == std::vector<std::string>{"here"});
    // The start itself is the directory the host chose: read whoever may write to it.
    CHECK(names_of(based_loader(t.path("pub")).discover()) == std::vector<std::string>{"planted"});
    // A directory only its owner may write to is a level as before.
    std::filesystem::permissions(t.path("pub"), std::filesystem::perms::owner_all);
    CHECK(names_of(based_loader(t.path("pub/work")).discover()) == std::vector<std::string>{"here", "planted"});
}

TEST_CASE("default roots: the walk visits at most SKILL_PROJECT_MAX_LEVELS directories", "[loader][walk]") {
    REQUIRE(SKILL_PROJECT_MAX_LEVELS == 16);
    TempDir t;
    TempDir home;
    HomeScope scope(home.path());
    std::string deep;  // 15 levels below t: the start and its 15 parents up to t are 16 directories
    for (int i = 0; i < 15; ++i) deep += "d/";
    t.write(deep + ".agents/skills/start/SKILL.md", skill_md("start", "The start."));
    t.write(".agents/skills/root/SKILL.md", skill_md("root", "The repository root."));
    t.mkdir(".git");
    CHECK(names_of(based_loader(t.path(deep)).discover()) == std::vector<std::string>{"start", "root"});

    // One level deeper: the repository root is the 17th directory, past the bound; the start alone.
    t.write(deep + "d/.agents/skills/deeper/SKILL.md", skill_md("deeper", "One further down."));
    CHECK(names_of(based_loader(t.path(deep + "d")).discover()) == std::vector<std::string>{"deeper"});
}

TEST_CASE("default roots: untrusted_project_root covers every project level, not the user's folder",
          "[loader][walk][trust]") {
    TempDir t;
    t.mkdir("repo/.git");
    t.write("repo/.agents/skills/top/SKILL.md", skill_md("top", "At the root."));
    t.write("repo/sub/.agents/skills/low/SKILL.md", skill_md("low", "Here."));
    t.write("repo/sub/.claude/skills/claude-low/SKILL.md", skill_md("claude-low", "Claude's, here."));
    t.write("home/.agents/skills/user/SKILL.md", skill_md("user", "The user's."));
    ProcessScope scope(t.path("home"), t.path("repo/sub"));

    FilesystemSkillLoader loader({.compat = {AgentFolders::claude}, .untrusted_project_root = true});
    const Discovery d = loader.discover();
    CHECK(names_of(d) == std::vector<std::string>{"user"});
    std::vector<std::string> untrusted;
    for (const auto& s : d.skipped) {
        if (s.reason == SkipReason::untrusted) untrusted.push_back(s.path);
    }
    CHECK(untrusted == std::vector<std::string>{t.path("repo/sub/.agents/skills/low/SKILL.md"),
                                                t.path("repo/.agents/skills/top/SKILL.md"),
                                                t.path("repo/sub/.claude/skills/claude-low/SKILL.md")});
}

namespace {

// A skill in each user folder of the agents `compat` knows, below home/ of `t`: u-agents,
// u-claude, u-copilot, u-gemini, u-opencode, u-opencode-skill, u-codex.
void write_user_folders(const TempDir& t) {
    const std::vector<std::pair<std::string, std::string>> user = {
        {".agents/skills", "u-agents"},
        {".claude/skills", "u-claude"},
        {".copilot/skills", "u-copilot"},
        {".gemini/skills", "u-gemini"},
        {".config/opencode/skills", "u-opencode"},
        {".config/opencode/skill", "u-opencode-skill"},
        {".codex/skills", "u-codex"},
    };
    for (const auto& [folder, name] : user) t.write("home/" + folder + "/" + name + "/SKILL.md", skill_md(name, "U."));
}

}  // namespace

TEST_CASE("compat: each agent adds its project folders (walked) and its user folders, after the standard roots",
          "[loader][compat]") {
    TempDir t;
    t.mkdir("repo/.git");
    t.write("repo/.agents/skills/standard/SKILL.md", skill_md("standard", "Standard."));
    const std::vector<std::pair<std::string, std::string>> project = {
        {".claude/skills", "p-claude"},     {".github/skills", "p-github"},          {".gemini/skills", "p-gemini"},
        {".opencode/skills", "p-opencode"}, {".opencode/skill", "p-opencode-skill"}, {".codex/skills", "p-codex"},
    };
    for (const auto& [folder, name] : project) {
        t.write("repo/" + folder + "/" + name + "/SKILL.md", skill_md(name, "P."));
        t.write("repo/sub/" + folder + "/" + name + "-sub/SKILL.md", skill_md(name + "-sub", "P."));
    }
    write_user_folders(t);
    ProcessScope scope(t.path("home"), t.path("repo/sub"));

    const auto with = [](std::vector<AgentFolders> compat) {
        FilesystemSkillLoader loader({.compat = std::move(compat)});
        return names_of(loader.discover());
    };
    using V = std::vector<std::string>;
    CHECK(with({}) == V{"standard", "u-agents"});
    CHECK(with({AgentFolders::claude}) == V{"standard", "u-agents", "p-claude-sub", "p-claude", "u-claude"});
    CHECK(with({AgentFolders::copilot}) ==
          V{"standard", "u-agents", "p-github-sub", "p-github", "p-claude-sub", "p-claude", "u-copilot", "u-claude"});
    CHECK(with({AgentFolders::gemini}) == V{"standard", "u-agents", "p-gemini-sub", "p-gemini", "u-gemini"});
    CHECK(with({AgentFolders::opencode}) == V{"standard", "u-agents", "p-opencode-sub", "p-opencode",
                                              "p-opencode-skill-sub", "p-opencode-skill", "p-claude-sub", "p-claude",
                                              "u-opencode", "u-opencode-skill", "u-claude"});
    CHECK(with({AgentFolders::codex}) == V{"standard", "u-agents", "p-codex-sub", "p-codex", "u-codex"});
    // Two agents that share a folder: it is scanned once, where it first appears.
    CHECK(with({AgentFolders::claude, AgentFolders::copilot}) ==
          V{"standard", "u-agents", "p-claude-sub", "p-claude", "u-claude", "p-github-sub", "p-github", "u-copilot"});
    // Without the standard roots, the agents' folders still count.
    FilesystemSkillLoader only({.include_default_roots = false, .compat = {AgentFolders::gemini}});
    CHECK(names_of(only.discover()) == V{"p-gemini-sub", "p-gemini", "u-gemini"});
}

TEST_CASE("compat: an agent's home variable, set to an absolute path, moves its user folders", "[loader][compat]") {
    TempDir t;
    t.mkdir("repo/.git");
    write_user_folders(t);
    const std::vector<std::pair<std::string, std::string>> elsewhere = {
        {"claude/skills", "e-claude"},
        {"copilot/skills", "e-copilot"},
        {"gemini/.gemini/skills", "e-gemini"},
        {"gemini/.agents/skills", "e-gemini-agents"},
        {"xdg/opencode/skills", "e-opencode"},
        {"xdg/opencode/skill", "e-opencode-skill"},
        {"opencode-dir/skills", "e-opencode-dir"},
        {"opencode-dir/skill", "e-opencode-dir-skill"},
        {"codex/skills", "e-codex"},
    };
    for (const auto& [folder, name] : elsewhere)
        t.write("alt/" + folder + "/" + name + "/SKILL.md", skill_md(name, "E."));
    ProcessScope scope(t.path("home"), t.path("repo"));
    const auto with = [](AgentFolders agent) {
        FilesystemSkillLoader loader({.compat = {agent}});
        return names_of(loader.discover());
    };
    using V = std::vector<std::string>;

    ::setenv("CLAUDE_CONFIG_DIR", t.path("alt/claude").c_str(), 1);
    ::setenv("COPILOT_HOME", t.path("alt/copilot").c_str(), 1);
    ::setenv("GEMINI_CLI_HOME", t.path("alt/gemini").c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", t.path("alt/xdg").c_str(), 1);
    ::setenv("CODEX_HOME", t.path("alt/codex").c_str(), 1);
    CHECK(with(AgentFolders::claude) == V{"u-agents", "e-claude"});
    // Copilot's `~/.claude/skills` is not its own home's: it stays where it is.
    CHECK(with(AgentFolders::copilot) == V{"u-agents", "e-copilot", "u-claude"});
    // $HOME's .agents/skills is a standard root; Gemini CLI also reads the one below its home.
    CHECK(with(AgentFolders::gemini) == V{"u-agents", "e-gemini", "e-gemini-agents"});
    CHECK(with(AgentFolders::opencode) == V{"u-agents", "e-opencode", "e-opencode-skill", "u-claude"});
    CHECK(with(AgentFolders::codex) == V{"u-agents", "e-codex"});
    // OPENCODE_CONFIG_DIR adds its folders; it moves nothing.
    ::setenv("OPENCODE_CONFIG_DIR", t.path("alt/opencode-dir").c_str(), 1);
    CHECK(with(AgentFolders::opencode) ==
          V{"u-agents", "e-opencode", "e-opencode-skill", "e-opencode-dir", "e-opencode-dir-skill", "u-claude"});
    ::unsetenv("XDG_CONFIG_HOME");
    CHECK(with(AgentFolders::opencode) ==
          V{"u-agents", "u-opencode", "u-opencode-skill", "e-opencode-dir", "e-opencode-dir-skill", "u-claude"});

    // An empty or relative value is ignored: the home's folder again.
    ::setenv("CODEX_HOME", "", 1);
    CHECK(with(AgentFolders::codex) == V{"u-agents", "u-codex"});
    ::setenv("CODEX_HOME", "alt/codex", 1);
    CHECK(with(AgentFolders::codex) == V{"u-agents", "u-codex"});
    // A value is taken lexically normal; one that names a folder the list has already is
    // scanned once, where it first appears.
    ::setenv("CODEX_HOME", (t.path("home") + "/.agents/../.codex").c_str(), 1);
    CHECK(with(AgentFolders::codex) == V{"u-agents", "u-codex"});
    ::setenv("CLAUDE_CONFIG_DIR", t.path("home/.agents").c_str(), 1);
    CHECK(with(AgentFolders::claude) == V{"u-agents"});

    // A reader with a base stands for that directory: no user folders, named by a variable or not.
    ::setenv("CODEX_HOME", t.path("alt/codex").c_str(), 1);
    CHECK(names_of(based_loader(t.path("repo"), {.compat = {AgentFolders::codex}}).discover()).empty());
}

TEST_CASE("compat: the variables the default roots read, as docs/loading.md lists them", "[loader][compat]") {
    // HomeEnvironment clears exactly these; an agent added to the table adds its variable here.
    CHECK(agentskills::detail::default_root_variables() ==
          std::vector<std::string>{"HOME", "CLAUDE_CONFIG_DIR", "COPILOT_HOME", "GEMINI_CLI_HOME", "XDG_CONFIG_HOME",
                                   "OPENCODE_CONFIG_DIR", "CODEX_HOME"});
}

TEST_CASE("limit presets: agents loads a 679-line skill, descriptions over 1,024 characters are cut either way",
          "[loader][limits]") {
    TempDir t;
    std::string body;
    for (int i = 1; i <= 675; ++i) body += "line " + std::to_string(i) + "\n";
    body.pop_back();  // skill_md ends the body with its own line feed: 4 + 675 lines
    t.write("lib/long/SKILL.md", skill_md("long", "Long.", body));
    t.write("lib/wordy/SKILL.md", skill_md("wordy", std::string(1500, 'd')));
    const auto lines = [&] {
        std::ifstream in(t.path("lib/long/SKILL.md"));
        return std::count(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>(), '\n');
    }();
    REQUIRE(lines == 679);

    FilesystemLoaderOptions standard{.roots = {t.path("lib")}, .include_default_roots = false};
    FilesystemLoaderOptions agents = standard;
    apply_loader_limits(agents, LoaderLimits::agents);
    CHECK(agents.max_lines == 0);
    FilesystemLoaderOptions back = agents;
    apply_loader_limits(back, LoaderLimits::standard);
    CHECK(back.max_lines == SKILL_MAX_FILE_LINES);

    const Discovery refused = FilesystemSkillLoader(standard).discover();
    CHECK(names_of(refused) == std::vector<std::string>{"wordy"});
    REQUIRE(refused.skipped.size() == 1);
    CHECK(refused.skipped[0].reason == SkipReason::too_large);

    const Discovery loaded = FilesystemSkillLoader(agents).discover();
    CHECK(names_of(loaded) == std::vector<std::string>{"long", "wordy"});
    CHECK(loaded.skipped.empty());
    for (const Discovery* d : {&refused, &loaded}) {
        const auto wordy =
            std::find_if(d->skills.begin(), d->skills.end(), [](const auto& m) { return m.name == "wordy"; });
        REQUIRE(wordy != d->skills.end());
        CHECK(wordy->description == std::string(SKILL_MAX_DESCRIPTION_LENGTH, 'd'));
        CHECK(std::any_of(d->diagnostics.begin(), d->diagnostics.end(),
                          [](const Diagnostic& x) { return x.code == "description-too-long"; }));
    }
}

}  // namespace loader_tests

// =======================================================================================
// Claude Code plugins and marketplaces as roots (docs/loading.md).

namespace loader_tests {

namespace {

const Diagnostic* find_code(const Discovery& d, std::string_view code, const std::string& path) {
    for (const Diagnostic& x : d.diagnostics) {
        if (x.code == code && x.path == path) return &x;
    }
    return nullptr;
}

std::size_t count_code(const Discovery& d, std::string_view code) {
    return static_cast<std::size_t>(
        std::count_if(d.diagnostics.begin(), d.diagnostics.end(), [&](const Diagnostic& x) { return x.code == code; }));
}

// A marketplace with two local plugins (one with a plugin.json, one without), one remote entry,
// and a plugin with no skills folder; the layout of trailofbits/skills (plugins/<p>/skills/<s>).
void write_marketplace(const TempDir& t) {
    t.write(".claude-plugin/marketplace.json", R"({
  "name": "market",
  "owner": {"name": "someone"},
  "plugins": [
    {"name": "auditor", "source": "./plugins/auditor", "description": "a plugin"},
    {"name": "far", "source": {"source": "github", "repo": "owner/repo"}},
    {"name": "helpers", "source": "./plugins/helpers"},
    {"name": "commands-only", "source": "./plugins/commands-only"}
  ]
})");
    t.write("plugins/auditor/.claude-plugin/plugin.json", R"({"name": "auditor", "version": "1.0.0"})");
    t.write("plugins/auditor/skills/auditor/SKILL.md", skill_md("auditor", "Audits."));
    t.write("plugins/auditor/README.md", "not a skill\n");
    t.write("plugins/helpers/skills/format/SKILL.md", skill_md("format", "Formats."));
    t.write("plugins/helpers/skills/lint/SKILL.md", skill_md("lint", "Lints.", "Lint body."));
    t.write("plugins/commands-only/.claude-plugin/plugin.json", R"({"name": "commands-only"})");
    t.write("plugins/commands-only/commands/run.md", "# run\n");
}

}  // namespace

TEST_CASE("plugins: a plugin root names its skills plugin:skill, and loads them", "[loader][plugins]") {
    TempDir t;
    t.write("tools/.claude-plugin/plugin.json", R"({"name": "tools", "description": "x", "version": "2.0.0"})");
    t.write("tools/skills/alpha/SKILL.md", skill_md("alpha", "First.", "Alpha body."));
    t.write("tools/skills/beta/SKILL.md", skill_md("beta", "Second."));
    t.write("tools/skills/team/gamma/SKILL.md", skill_md("gamma", "Nested."));
    t.write("tools/commands/hello.md", "# hello\n");

    SECTION("kept results, lazy bodies, no kept results: the same names, the same bodies") {
        for (int mode = 0; mode < 3; ++mode) {
            INFO(mode);
            FilesystemSkillLoader loader({.roots = {t.path("tools")},
                                          .include_default_roots = false,
                                          .name_policy = NamePolicy::require_valid,
                                          .lazy_bodies = mode == 1,
                                          .keep_results = mode != 2});
            const Discovery d = loader.discover();
            CHECK(names_of(d) == std::vector<std::string>{"tools:alpha", "tools:beta"});
            CHECK(d.skipped.empty());
            CHECK(d.diagnostics.empty());
            const LoadedSkill alpha = loader.load("tools:alpha");
            CHECK(alpha.manifest.name == "tools:alpha");
            CHECK(alpha.instructions == "Alpha body.");
            CHECK(alpha.manifest.root == t.path("tools/skills/alpha"));
            CHECK_THROWS_AS(loader.load("alpha"), NotFoundError);
            // A second discovery gives the same.
            CHECK(names_of(loader.discover()) == std::vector<std::string>{"tools:alpha", "tools:beta"});
        }
    }
    SECTION("with the nested walk, a group inside the plugin is plugin:group:skill") {
        for (int mode = 0; mode < 3; ++mode) {
            INFO(mode);
            FilesystemSkillLoader loader({.roots = {t.path("tools")},
                                          .include_default_roots = false,
                                          .name_policy = NamePolicy::require_valid,
                                          .lazy_bodies = mode == 1,
                                          .keep_results = mode != 2,
                                          .nested_depth = SKILL_NESTED_DEFAULT_DEPTH});
            CHECK(names_of(loader.discover()) ==
                  std::vector<std::string>{"tools:alpha", "tools:beta", "tools:team:gamma"});
            CHECK(loader.load("tools:team:gamma").instructions == "Body.");
            CHECK(loader.load("tools:team:gamma").manifest.name == "tools:team:gamma");
            CHECK(loader.frontmatter("tools:alpha")->at("name") == "alpha");
        }
    }
    SECTION("the skills folder given as an ordinary library: nested names load without kept results too") {
        FilesystemSkillLoader loader({.roots = {t.path("tools/skills")},
                                      .include_default_roots = false,
                                      .keep_results = false,
                                      .nested_depth = SKILL_NESTED_DEFAULT_DEPTH});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"alpha", "beta", "team:gamma"});
        CHECK(loader.load("team:gamma").instructions == "Body.");
    }
    SECTION("a plugin.json without a name: the directory's name") {
        t.write("tools/.claude-plugin/plugin.json", R"({"version": "1.0.0"})");
        FilesystemSkillLoader loader({.roots = {t.path("tools")}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"tools:alpha", "tools:beta"});
    }
    SECTION("an untrusted plugin root covers its skills") {
        FilesystemSkillLoader loader({.roots = {t.path("tools")},
                                      .include_default_roots = false,
                                      .untrusted_roots = {t.path("tools")},
                                      .trust = [](const SkillManifest& m) {
                                          return m.name == "tools:beta" ? TrustDecision::allow : TrustDecision::deny;
                                      }});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"tools:beta"});
    }
}

TEST_CASE("plugins: a marketplace root loads its local plugins and names the remote one it skips",
          "[loader][plugins]") {
    TempDir t;
    write_marketplace(t);
    const std::string manifest = t.path(".claude-plugin/marketplace.json");

    SECTION("flat") {
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        const Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"auditor:auditor", "helpers:format", "helpers:lint"});
        REQUIRE(count_code(d, codes::plugin_refused) == 1);
        const Diagnostic* far = find_code(d, codes::plugin_refused, manifest);
        REQUIRE(far != nullptr);
        CHECK(far->severity == Severity::warning);
        CHECK(far->message == "plugin 'far' (entry 2 of the marketplace " + manifest +
                                  ") is not loaded: its source is remote (github); only plugins inside the "
                                  "marketplace's directory are loaded");
        CHECK(loader.load("helpers:lint").instructions == "Lint body.");
        // Said again on every discovery.
        CHECK(count_code(loader.discover(), codes::plugin_refused) == 1);
    }
    SECTION("the trailofbits layout under --nested: plugin:skill, not plugin:skills:skill") {
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false, .nested_depth = 4});
        CHECK(names_of(loader.discover()) ==
              std::vector<std::string>{"auditor:auditor", "helpers:format", "helpers:lint"});
    }
    SECTION("a plugin root inside the marketplace is a source of its own") {
        FilesystemSkillLoader loader({.roots = {t.path("plugins/auditor")}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"auditor:auditor"});
    }
    SECTION("a plugin's folder given as a plain root too: both sets of names; the same root twice: once") {
        FilesystemSkillLoader loader(
            {.roots = {t.path("plugins/helpers/skills"), t.path(), t.path()}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) ==
              std::vector<std::string>{"format", "lint", "auditor:auditor", "helpers:format", "helpers:lint"});
    }
    SECTION("metadata.pluginRoot is put before the sources") {
        t.write(".claude-plugin/marketplace.json",
                R"({"metadata": {"pluginRoot": "./plugins"}, "plugins": [{"name": "helpers", "source": "helpers"}]})");
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"helpers:format", "helpers:lint"});
    }
    SECTION("an ordinary root next to it is unchanged") {
        TempDir lib;
        lib.write("plain/SKILL.md", skill_md("plain", "Plain."));
        lib.write("skills/x/SKILL.md", skill_md("x", "Not a plugin: no .claude-plugin."));
        FilesystemSkillLoader loader({.roots = {lib.path(), t.path()}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) ==
              std::vector<std::string>{"plain", "auditor:auditor", "helpers:format", "helpers:lint"});
    }
}

TEST_CASE("plugins: the skill paths a manifest declares replace its skills folder", "[loader][plugins]") {
    TempDir t;
    // The layout of anthropics/skills: three plugins share the marketplace's own directory and
    // each names its skills in one `skills/` folder; one skill there belongs to no plugin.
    t.write(".claude-plugin/marketplace.json", R"({"name": "m", "plugins": [
        {"name": "documents", "source": "./", "strict": false, "skills": ["./skills/xlsx", "./skills/docx"]},
        {"name": "examples", "source": "./", "strict": false, "skills": ["./skills/art", "./skills/art/"]},
        {"name": "api", "source": "./", "strict": false, "skills": ["./skills/api"]}]})");
    for (const char* name : {"api", "art", "docx", "xlsx", "stray"}) {
        t.write(std::string("skills/") + name + "/SKILL.md",
                skill_md(name, "A skill.", std::string("Body of ") + name));
    }
    const std::vector<std::string> expected = {"documents:docx", "documents:xlsx", "examples:art", "api:api"};

    SECTION("each plugin has the skills it names, in every mode, and loads them") {
        for (int mode = 0; mode < 3; ++mode) {
            INFO(mode);
            FilesystemSkillLoader loader({.roots = {t.path()},
                                          .include_default_roots = false,
                                          .name_policy = NamePolicy::require_valid,
                                          .lazy_bodies = mode == 1,
                                          .keep_results = mode != 2});
            const Discovery d = loader.discover();
            CHECK(names_of(d) == expected);
            CHECK(d.skipped.empty());
            CHECK(d.diagnostics.empty());
            CHECK(loader.load("examples:art").instructions == "Body of art");
            CHECK(loader.load("api:api").manifest.root == t.path("skills/api"));
            CHECK_THROWS_AS(loader.load("documents:art"), NotFoundError);
            CHECK(names_of(loader.discover()) == expected);
        }
    }
    SECTION("under the nested walk too") {
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false, .nested_depth = 4});
        CHECK(names_of(loader.discover()) == expected);
    }
    SECTION("a folder of skills, as a string; skills/ is no longer read") {
        t.write(".claude-plugin/marketplace.json",
                R"({"plugins": [{"name": "p", "source": "./plug", "skills": "./custom"}]})");
        t.write("plug/custom/one/SKILL.md", skill_md("one", "One."));
        t.write("plug/skills/two/SKILL.md", skill_md("two", "Two."));
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"p:one"});
    }
    SECTION("a strict entry adds the paths of the plugin's own plugin.json; a non-strict one does not read it") {
        t.write("plug/.claude-plugin/plugin.json", R"({"name": "p", "skills": ["./more/two"]})");
        t.write("plug/more/two/SKILL.md", skill_md("two", "Two."));
        t.write("plug/skills/one/SKILL.md", skill_md("one", "One."));
        t.write("plug/skills/three/SKILL.md", skill_md("three", "Three."));
        t.write(".claude-plugin/marketplace.json",
                R"({"plugins": [{"name": "p", "source": "./plug", "skills": ["./skills/one"]}]})");
        {
            FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
            CHECK(names_of(loader.discover()) == std::vector<std::string>{"p:one", "p:two"});
        }
        t.write(".claude-plugin/marketplace.json",
                R"({"plugins": [{"name": "p", "source": "./plug", "strict": false, "skills": ["./skills/one"]}]})");
        t.write("plug/.claude-plugin/plugin.json", "{ not json");
        {
            FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
            const Discovery d = loader.discover();
            CHECK(names_of(d) == std::vector<std::string>{"p:one"});
            CHECK(count_code(d, codes::plugin_refused) == 0);
        }
        SECTION("a strict entry whose plugin.json is broken is refused, naming the file") {
            t.write(".claude-plugin/marketplace.json", R"({"plugins": [{"name": "p", "source": "./plug"}]})");
            FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
            const Discovery d = loader.discover();
            CHECK(names_of(d).empty());
            const std::string own = t.path("plug/.claude-plugin/plugin.json");
            const Diagnostic* x = find_code(d, codes::plugin_refused, own);
            REQUIRE(x != nullptr);
            CHECK(x->message.rfind("plugin 'p' (entry 1 of the marketplace " +
                                       t.path(".claude-plugin/marketplace.json") + ") is not used: its manifest " +
                                       own + " cannot be used: it is not valid JSON",
                                   0) == 0);
        }
    }
    SECTION("a plugin root's plugin.json declares them too; an empty list keeps skills/") {
        t.write("tools/.claude-plugin/plugin.json", R"({"name": "tools", "skills": ["./extra/a", "./skills/b"]})");
        t.write("tools/extra/a/SKILL.md", skill_md("a", "A."));
        t.write("tools/skills/b/SKILL.md", skill_md("b", "B."));
        t.write("tools/skills/c/SKILL.md", skill_md("c", "C."));
        {
            FilesystemSkillLoader loader({.roots = {t.path("tools")}, .include_default_roots = false});
            CHECK(names_of(loader.discover()) == std::vector<std::string>{"tools:a", "tools:b"});
        }
        t.write("tools/.claude-plugin/plugin.json", R"({"name": "tools", "skills": []})");
        FilesystemSkillLoader loader({.roots = {t.path("tools")}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"tools:b", "tools:c"});
    }
    SECTION("two plugins naming one skill directory: it is loaded under both names") {
        t.write(".claude-plugin/marketplace.json", R"({"plugins": [
            {"name": "a", "source": "./", "skills": ["./skills/api"]},
            {"name": "b", "source": "./", "skills": ["./skills/api", "./skills/art"]}]})");
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        const Discovery d = loader.discover();
        CHECK(names_of(d) == std::vector<std::string>{"a:api", "b:api", "b:art"});
        CHECK(d.skipped.empty());
        CHECK(loader.load("b:api").manifest.root == loader.load("a:api").manifest.root);
    }
    SECTION("a folder named whole and one of its skills named alone: every skill of the folder, once") {
        t.write(".claude-plugin/marketplace.json",
                R"({"plugins": [{"name": "p", "source": "./", "skills": ["./skills/api", "./skills"]}]})");
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        CHECK(names_of(loader.discover()) == std::vector<std::string>{"p:api", "p:art", "p:docx", "p:stray", "p:xlsx"});
    }
}

TEST_CASE("plugins: hostile skill paths are refused one by one, the others load", "[loader][plugins]") {
    TempDir t;
    t.write("market/skills/fine/SKILL.md", skill_md("fine", "Fine."));
    t.write("market/skills/other/SKILL.md", skill_md("other", "Other."));
    t.write("market/notes.txt", "a file\n");
    t.write("outside/stolen/SKILL.md", skill_md("stolen", "Outside."));
    std::filesystem::create_directory_symlink(t.path("outside/stolen"), t.path("market/skills/link"));
    std::filesystem::create_directory_symlink(t.path("outside"), t.path("market/out"));
    const std::string manifest = t.path("market/.claude-plugin/marketplace.json");
    const auto discover = [&] {
        FilesystemSkillLoader loader({.roots = {t.path("market")}, .include_default_roots = false});
        return loader.discover();
    };
    const auto message_of = [](const Discovery& d, std::string_view words) -> std::string {
        for (const Diagnostic& x : d.diagnostics) {
            if (x.code == codes::plugin_refused && x.message.find(words) != std::string::npos) return x.message;
        }
        return {};
    };

    SECTION("paths that leave the plugin, links, files and missing paths") {
        t.write("market/.claude-plugin/marketplace.json", R"({"plugins": [{"name": "p", "source": "./", "skills": [
            "../outside/stolen", "/etc", "", "./skills/link", "./out/stolen", "./notes.txt", "./skills/gone",
            "./skills/fine"]}]})");
        const Discovery d = discover();
        CHECK(names_of(d) == std::vector<std::string>{"p:fine"});
        CHECK(count_code(d, codes::plugin_refused) == 7);
        const std::string label = "of plugin 'p' (entry 1 of the marketplace " + manifest + ")";
        CHECK(message_of(d, "'../outside/stolen'")
                  .rfind("skill path '../outside/stolen' " + label + " is not used: it is not a path inside " +
                             t.path("market") + ": ",
                         0) == 0);
        CHECK(!message_of(d, "skill path '/etc'").empty());
        CHECK(!message_of(d, "skill path '' ").empty());
        CHECK(message_of(d, "'./skills/link'") ==
              "skill path './skills/link' " + label + " is not used: " + t.path("market/skills/link") +
                  " is a symbolic link; a plugin's folders must lie inside " + t.path("market") + " without links");
        CHECK(!message_of(d, "'./out/stolen'").empty());
        CHECK(message_of(d, "'./notes.txt'") == "skill path './notes.txt' " + label + " is not used: " +
                                                    t.path("market/notes.txt") + " is not a directory");
        CHECK(message_of(d, "'./skills/gone'") == "skill path './skills/gone' " + label + " is not used: " +
                                                      t.path("market/skills/gone") + " does not exist");
        for (const Diagnostic& x : d.diagnostics) CHECK(x.path == manifest);
    }
    SECTION("a skills field of the wrong type refuses its plugin, not the others") {
        t.write("market/.claude-plugin/marketplace.json", R"({"plugins": [
            {"name": "num", "source": "./", "skills": 7},
            {"name": "obj", "source": "./", "skills": {"a": "./skills/fine"}},
            {"name": "mixed", "source": "./", "skills": ["./skills/fine", null]},
            {"name": "ok", "source": "./", "skills": ["./skills/other"]}]})");
        const Discovery d = discover();
        CHECK(names_of(d) == std::vector<std::string>{"ok:other"});
        CHECK(count_code(d, codes::plugin_refused) == 3);
        CHECK(message_of(d, "'num'") == "plugin 'num' (entry 1 of the marketplace " + manifest +
                                            ") is not used: its 'skills' is a number, not a path or a list of paths");
        CHECK(message_of(d, "'obj'") == "plugin 'obj' (entry 2 of the marketplace " + manifest +
                                            ") is not used: its 'skills' is an object, not a path or a list of paths");
        CHECK(message_of(d, "'mixed'") == "plugin 'mixed' (entry 3 of the marketplace " + manifest +
                                              ") is not used: entry 2 of its 'skills' is null, not a path");
    }
    SECTION("more paths than the bound") {
        std::string text = R"({"plugins": [{"name": "p", "source": "./", "skills": [)";
        for (std::size_t i = 0; i < SKILL_PLUGIN_MAX_SKILL_PATHS; ++i) text += R"("./skills/fine",)";
        text += R"("./skills/other"]}]})";
        t.write("market/.claude-plugin/marketplace.json", text);
        const Discovery d = discover();
        CHECK(names_of(d) == std::vector<std::string>{"p:fine"});
        CHECK(message_of(d, "paths after") == "plugin 'p' (entry 1 of the marketplace " + manifest +
                                                  "): its 'skills' lists more than 1000 paths; the paths after entry "
                                                  "1000 are not loaded");
    }
}

TEST_CASE("plugins: hostile manifests and sources are diagnostics naming the file, never a crash",
          "[loader][plugins]") {
    TempDir t;
    t.write("market/plugins/ok/skills/fine/SKILL.md", skill_md("fine", "Fine."));
    t.write("outside/skills/stolen/SKILL.md", skill_md("stolen", "Outside."));
    t.write("market/plugins/inner/skills/x/SKILL.md", skill_md("x", "X."));
    std::filesystem::create_directory_symlink(t.path("outside"), t.path("market/plugins/link"));
    std::filesystem::create_directory_symlink(t.path("outside/skills"), t.path("market/plugins/inner/skills2"));
    const std::string manifest = t.path("market/.claude-plugin/marketplace.json");
    const auto discover = [&] {
        FilesystemSkillLoader loader({.roots = {t.path("market")}, .include_default_roots = false});
        return loader.discover();
    };
    const auto refused_with = [&](const Discovery& d, std::string_view words) {
        return std::any_of(d.diagnostics.begin(), d.diagnostics.end(), [&](const Diagnostic& x) {
            return x.code == codes::plugin_refused && x.path == manifest && x.message.find(words) != std::string::npos;
        });
    };

    SECTION("sources that leave the marketplace, and wrong types, are refused one by one") {
        t.write("market/.claude-plugin/marketplace.json", R"({"plugins": [
            {"name": "up", "source": "../outside"},
            {"name": "abs", "source": "/etc"},
            {"name": "slash", "source": "/"},
            {"name": "empty", "source": ""},
            {"name": "link", "source": "./plugins/link"},
            {"name": "missing", "source": "./plugins/nowhere"},
            {"name": "Bad Name", "source": "./plugins/ok"},
            {"name": 7, "source": "./plugins/ok"},
            {"name": "num", "source": 7},
            {"name": "nosource"},
            "a string",
            {"name": "ok", "source": "./plugins/ok"}]})");
        const Discovery d = discover();
        CHECK(names_of(d) == std::vector<std::string>{"ok:fine"});
        CHECK(count_code(d, codes::plugin_refused) == 11);
        CHECK(refused_with(d, "plugin 'up' (entry 1 of the marketplace " + manifest + ") is not used: its source "));
        CHECK(refused_with(d, "plugin 'abs'"));
        CHECK(refused_with(d, "plugin 'slash'"));
        CHECK(refused_with(d, "plugin 'empty' (entry 4 of the marketplace " + manifest +
                                  ") is not used: its source is an empty path"));
        CHECK(refused_with(d, "is a symbolic link"));
        CHECK(refused_with(d, t.path("market/plugins/nowhere") + " does not exist"));
        CHECK(refused_with(d, "its name 'Bad Name' breaks the skill name rules"));
        CHECK(refused_with(d, "entry 8 of the marketplace " + manifest + " is not used: it has no name string"));
        CHECK(refused_with(d, "its source is a number, not a path"));
        CHECK(refused_with(d, "plugin 'nosource'"));
        CHECK(
            refused_with(d, "entry 11 of the marketplace " + manifest + " is not used: it is a string, not an object"));
    }
    SECTION("a plugin's skills folder that is a link out is refused") {
        std::filesystem::remove(t.path("market/plugins/inner/skills/x/SKILL.md"));
        std::filesystem::remove_all(t.path("market/plugins/inner/skills"));
        std::filesystem::rename(t.path("market/plugins/inner/skills2"), t.path("market/plugins/inner/skills"));
        t.write("market/.claude-plugin/marketplace.json",
                R"({"plugins": [{"name": "inner", "source": "./plugins/inner"}]})");
        const Discovery d = discover();
        CHECK(names_of(d).empty());
        CHECK(refused_with(d, "is a symbolic link"));
    }
    SECTION("a broken marketplace.json loads nothing of the root, and says why") {
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"{\"plugins\": [", "it is not valid JSON"},
            {"[]", "it is not a JSON object"},
            {R"({"plugins": {"name": "x"}})", "it has no 'plugins' array"},
            {R"({"plugins": [{"name": "x", "source": "./a)"
             "\xff\xfe"
             R"("}]})",
             "it is not valid JSON"},
            {std::string(100000, '[') + std::string(100000, ']'), "nests deeper than 32 levels"},
            // A reader that keeps the first of two members would load another plugin than one
            // that keeps the last.
            {R"({"plugins": [{"name": "x", "source": "./a", "source": "./b"}]})",
             "it gives the key 'source' twice in one object"},
            {R"({"plugins": [], "plugins": [{"name": "x", "source": "./a"}]})",
             "it gives the key 'plugins' twice in one object"},
            {"{\"plugins\": [], \"pad\": \"" + std::string(SKILL_PLUGIN_MANIFEST_MAX_BYTES, 'x') + "\"}",
             "larger than 1048576 bytes"},
        };
        for (const auto& [text, why] : cases) {
            INFO(why);
            t.write("market/.claude-plugin/marketplace.json", text);
            Discovery d;
            REQUIRE_NOTHROW(d = discover());
            CHECK(names_of(d).empty());
            CHECK(count_code(d, codes::plugin_refused) == 1);
            CHECK(refused_with(d, "the marketplace " + manifest + " is not used: "));
            CHECK(refused_with(d, why));
        }
    }
    SECTION("a marketplace.json that is a link is not read") {
        t.write("elsewhere.json", R"({"plugins": [{"name": "ok", "source": "./plugins/ok"}]})");
        t.mkdir("market/.claude-plugin");
        std::filesystem::create_symlink(t.path("elsewhere.json"), manifest);
        const Discovery d = discover();
        CHECK(names_of(d).empty());
        CHECK(refused_with(d, "it cannot be read"));
    }
    SECTION("a .claude-plugin folder that is a link is not followed") {
        // Discovery tells a root without .claude-plugin by one lstat; a link there is not "none".
        t.write("elsewhere/marketplace.json", R"({"plugins": [{"name": "ok", "source": "./plugins/ok"}]})");
        std::filesystem::create_directory_symlink(t.path("elsewhere"), t.path("market/.claude-plugin"));
        const Discovery d = discover();
        CHECK(names_of(d).empty());
        CHECK(count_code(d, codes::plugin_refused) == 1);
        CHECK(refused_with(d, "the marketplace " + manifest + " is not used: it cannot be read"));
    }
    SECTION("a .claude-plugin that is a file: no plugin, an ordinary root") {
        t.write("market/.claude-plugin", "not a folder");
        t.write("market/plain/SKILL.md", skill_md("plain", "An ordinary skill of the root."));
        const Discovery d = discover();
        CHECK(names_of(d) == std::vector<std::string>{"plain"});
        CHECK(count_code(d, codes::plugin_refused) == 0);
    }
    SECTION("a plugin.json whose name is not a string") {
        t.write("market/plugins/ok/.claude-plugin/plugin.json", R"({"name": ["ok"]})");
        FilesystemSkillLoader loader({.roots = {t.path("market/plugins/ok")}, .include_default_roots = false});
        const Discovery d = loader.discover();
        CHECK(names_of(d).empty());
        const Diagnostic* x =
            find_code(d, codes::plugin_refused, t.path("market/plugins/ok/.claude-plugin/plugin.json"));
        REQUIRE(x != nullptr);
        CHECK(x->message == "the plugin " + t.path("market/plugins/ok/.claude-plugin/plugin.json") +
                                " is not used: its name is an array, not a string");
    }
    SECTION("more plugins than the bound") {
        std::string text = R"({"plugins": [)";
        for (std::size_t i = 0; i <= SKILL_MARKETPLACE_MAX_PLUGINS; ++i) {
            text += R"({"name": "ok", "source": {"source": "url"}},)";
        }
        text += R"({"name": "ok", "source": "./plugins/ok"}]})";
        t.write("market/.claude-plugin/marketplace.json", text);
        const Discovery d = discover();
        CHECK(names_of(d).empty());
        CHECK(refused_with(d, "lists more than 1000 plugins"));
    }
}

TEST_CASE("plugins: at most 16 plugins of one root load the same folder whole", "[loader][plugins][hostile]") {
    // 20 entries name one plugin whose skills/ folder holds two skills: each loaded the folder
    // whole under its own name, at one check however many skills the folder holds.
    REQUIRE(SKILL_PLUGIN_FOLDER_MAX_PLUGINS == 16);
    TempDir t;
    const std::string manifest = t.path(".claude-plugin/marketplace.json");
    t.write("plug/skills/a/SKILL.md", skill_md("a", "A."));
    t.write("plug/skills/b/SKILL.md", skill_md("b", "B."));
    t.write("only/x/SKILL.md", skill_md("x", "X."));
    std::string text = R"({"name": "m", "plugins": [)";
    for (int i = 1; i <= 20; ++i) {
        text += fmt::format(R"({}{{"name": "q{}", "source": "./plug", "strict": false}})", i == 1 ? "" : ",", i);
    }
    // Named one by one, a skill costs checks of its own: these are not counted against the folder.
    for (int i = 1; i <= 20; ++i) {
        text += fmt::format(R"(,{{"name": "o{}", "source": "./", "strict": false, "skills": "./only/x"}})", i);
    }
    t.write(".claude-plugin/marketplace.json", text + "]}");
    FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
    const Discovery d = loader.discover();
    std::vector<std::string> names;
    for (const auto& s : d.skills) names.push_back(s.name);
    CHECK(names.size() == 2 * 16 + 20);
    CHECK(std::count(names.begin(), names.end(), "q16:a") == 1);
    CHECK(std::count(names.begin(), names.end(), "q17:a") == 0);
    CHECK(std::count(names.begin(), names.end(), "o20:x") == 1);
    CHECK(count_code(d, codes::plugin_refused) == 4);
    const Diagnostic* x = find_code(d, codes::plugin_refused, manifest);
    REQUIRE(x != nullptr);
    CHECK(x->message == "plugin 'q17' (entry 17 of the marketplace " + manifest + ") does not load " +
                            t.path("plug/skills") + ": 16 plugins of " + manifest +
                            " load that folder already, the most that may");
}

TEST_CASE("plugins: one root's scan is bounded in checks and manifest bytes, however many entries share a plugin",
          "[loader][plugins][hostile]") {
    TempDir t;
    const std::string manifest = t.path(".claude-plugin/marketplace.json");
    SECTION("file-system checks") {
        // 1,000 entries share the marketplace's directory and each declares one skill 100 levels
        // down: 101 checks each (the 100 directories, then its SKILL.md), 101,000 in all. Each
        // entry walked the same path again; a deeper chain and longer lists made it hours.
        REQUIRE(SKILL_PLUGIN_SCAN_MAX_CHECKS == 100'000);
        std::string chain = "./";
        for (int i = 0; i < 99; ++i) chain += "c/";
        chain += "s";
        t.write(chain + "/SKILL.md", skill_md("s", "Deep."));
        std::string text = R"({"name": "m", "plugins": [)";
        for (int i = 1; i <= 1000; ++i) {
            text += fmt::format(R"({}{{"name": "p{}", "source": "./", "strict": false, "skills": "{}"}})",
                                i == 1 ? "" : ",", i, chain);
        }
        t.write(".claude-plugin/marketplace.json", text + "]}");
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        const Discovery d = loader.discover();
        // 990 entries fit (99,990 checks); the 991st reaches past the bound on its 11th.
        REQUIRE(d.skills.size() == 990);
        CHECK(d.skills.front().name == "p1:s");
        CHECK(d.skills.back().name == "p990:s");
        CHECK(count_code(d, codes::plugin_refused) == 1);
        const Diagnostic* x = find_code(d, codes::plugin_refused, manifest);
        REQUIRE(x != nullptr);
        CHECK(x->message == "plugin 'p991' (entry 991 of the marketplace " + manifest +
                                ") is not loaded, nor any plugin after it: the scan of " + manifest +
                                " reached its limit of 100000 file-system checks");
    }
    SECTION("manifest bytes") {
        // 20 strict entries share a plugin whose plugin.json is 1,000,000 bytes: each read it again.
        REQUIRE(SKILL_PLUGIN_SCAN_MAX_BYTES == 16 * 1024 * 1024);
        const std::string head = R"({"name": "x", "description": ")";
        t.write("plug/.claude-plugin/plugin.json", head + std::string(1'000'000 - head.size() - 2, 'd') + "\"}");
        t.write("plug/skills/s/SKILL.md", skill_md("s", "Shared."));
        std::string text = R"({"name": "m", "plugins": [)";
        for (int i = 1; i <= 20; ++i)
            text += fmt::format(R"({}{{"name": "q{}", "source": "./plug"}})", i == 1 ? "" : ",", i);
        text += "]}";
        t.write(".claude-plugin/marketplace.json", text);
        FilesystemSkillLoader loader({.roots = {t.path()}, .include_default_roots = false});
        const Discovery d = loader.discover();
        // The marketplace and 16 reads of plugin.json fit in 16 MiB; the 17th reaches past it.
        REQUIRE(text.size() + 16 * 1'000'000 <= SKILL_PLUGIN_SCAN_MAX_BYTES);
        REQUIRE(text.size() + 17 * 1'000'000 > SKILL_PLUGIN_SCAN_MAX_BYTES);
        REQUIRE(d.skills.size() == 16);
        CHECK(d.skills.back().name == "q16:s");
        CHECK(count_code(d, codes::plugin_refused) == 1);
        const Diagnostic* x = find_code(d, codes::plugin_refused, manifest);
        REQUIRE(x != nullptr);
        CHECK(x->message == "plugin 'q17' (entry 17 of the marketplace " + manifest +
                                ") is not loaded, nor any plugin after it: the scan of " + manifest +
                                " reached its limit of 16777216 bytes of manifests");
    }
}

}  // namespace loader_tests
