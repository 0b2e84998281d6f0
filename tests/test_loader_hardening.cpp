// Tests of the loader's hardening (issue 12): look-alike names, the resource cap, unreadable
// default roots, names that are not UTF-8.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "fs_fixtures.hpp"

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
    CHECK(d.skills.size() == 4);  // kept under the default `keep` policy (with warnings)
    const auto warnings = with_code(d, codes::confusable_name);
    REQUIRE(warnings.size() == 1);  // only the short pair: names past 1,024 bytes are not compared
    CHECK(warnings[0]->path == "lib/short-upper/SKILL.md");
}
