// Tests of loader.hpp: FilesystemSkillLoader discovery, policies, caching, resources, threads.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "fs_fixtures.hpp"

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

// Sets an environment variable and the working directory for one scope.
class ProcessScope {
public:
    ProcessScope(const std::string& home, const std::filesystem::path& cwd)
        : cwd_(std::filesystem::current_path()), had_home_(std::getenv("HOME") != nullptr) {
        if (had_home_) home_ = std::getenv("HOME");
        ::setenv("HOME", home.c_str(), 1);
        std::filesystem::current_path(cwd);
    }
    ~ProcessScope() {
        std::filesystem::current_path(cwd_);
        if (had_home_) {
            ::setenv("HOME", home_.c_str(), 1);
        } else {
            ::unsetenv("HOME");
        }
    }
    ProcessScope(const ProcessScope&) = delete;
    ProcessScope& operator=(const ProcessScope&) = delete;

private:
    std::filesystem::path cwd_;
    bool had_home_;
    std::string home_;
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
