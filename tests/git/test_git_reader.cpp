// Tests of git_reader.hpp: GitTreeReader over temporary repositories made with the git CLI.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/git/git_reader.hpp"
#ifdef AGENTSKILLS_HAVE_LOCK
#include "agentskills/lock/lock.hpp"
#endif

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

// =======================================================================================
// Tests of git_reader.hpp: GitTreeReader over temporary repositories made with the git CLI.

namespace git_reader_tests {

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

std::string quote(std::string_view s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

// Runs git in `dir` with no system or user configuration; returns its output.
std::string git(const std::string& dir, const std::string& args) {
    // HOME points at the (config-less) directory itself, so no user configuration applies.
    const std::string command = "GIT_CONFIG_NOSYSTEM=1 HOME=" + quote(dir) + " XDG_CONFIG_HOME=" + quote(dir) +
                                " GIT_TERMINAL_PROMPT=0 git -C " + quote(dir) +
                                " -c user.name=Test -c user.email=test@example.invalid -c commit.gpgsign=false "
                                "-c tag.gpgsign=false -c init.defaultBranch=main -c core.autocrlf=false " +
                                args + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[4096];
    std::size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    const int status = ::pclose(pipe);
    INFO(command << "\n" << out);
    REQUIRE(status == 0);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
}

std::vector<std::string> names_of(const std::vector<DirEntry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries) out.push_back(e.name);
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<std::string> skill_names(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& s : d.skills) out.push_back(s.name);
    return out;
}

const std::string alpha_v1 = skill_md("alpha", "Alpha, first version.", "First body.\n");
const std::string alpha_v2 = skill_md("alpha", "Alpha, second version.", "Second body.\n");
const std::string beta = skill_md("beta", "Beta.", "Beta body.\n");

// A repository with two commits on main; tags v1 (lightweight) and v1-annotated on the first.
// Afterwards the work tree is changed without committing.
struct Repo {
    TempDir tmp;
    std::string dir = tmp.path("repo");
    std::string first;
    std::string second;

    Repo() {
        tmp.mkdir("repo");
        git(dir, "init -q");
        tmp.write("repo/skills/alpha/SKILL.md", alpha_v1);
        tmp.write("repo/skills/alpha/scripts/run.sh", "echo one\n");
        tmp.write("repo/README.md", "readme\n");
        for (int i = 0; i < 10; ++i) tmp.write("repo/wide/f" + std::to_string(i) + ".txt", "wide\n");
        git(dir, "add -A");
        git(dir, "commit -q -m first");
        git(dir, "tag v1");
        git(dir, "tag -a v1-annotated -m 'first release'");
        first = git(dir, "rev-parse HEAD");

        tmp.write("repo/skills/alpha/SKILL.md", alpha_v2);
        tmp.write("repo/skills/beta/SKILL.md", beta);
        git(dir, "add -A");
        git(dir, "commit -q -m second");
        second = git(dir, "rev-parse HEAD");

        // The work tree moves on; no reader may see it.
        std::filesystem::remove_all(tmp.path("repo/skills/alpha"));
        tmp.write("repo/skills/gamma/SKILL.md", skill_md("gamma", "Uncommitted."));
        tmp.write("repo/skills/beta/SKILL.md", skill_md("beta", "Edited, not committed."));
    }
};

}  // namespace

TEST_CASE("GitTreeReader reads the tree of a tag, not the work tree or the branch", "[git]") {
    Repo repo;
    const auto v1 = GitTreeReader::open(repo.dir, "v1");
    CHECK(v1->commit_id() == repo.first);
    CHECK(v1->ref() == "v1");
    CHECK(v1->commit_time_ns() > 0);
    CHECK(names_of(v1->list_dir(".")) == std::vector<std::string>{"README.md", "skills", "wide"});
    CHECK(names_of(v1->list_dir("skills")) == std::vector<std::string>{"alpha"});
    CHECK(v1->read_file("skills/alpha/SKILL.md", 0).data == alpha_v1);
    CHECK(v1->read_file("./skills//alpha/scripts/run.sh", 0).data == "echo one\n");

    const ReadResult head = v1->read_file("skills/alpha/SKILL.md", 3);
    CHECK(head.data == "---");
    CHECK(head.truncated);

    const FileStat st = v1->stat("skills/alpha/SKILL.md");
    CHECK(st.kind == EntryKind::file);
    CHECK(st.size == alpha_v1.size());
    CHECK(st.mtime_ns == v1->commit_time_ns());
    CHECK(st.identity != 0);
    CHECK(v1->stat("skills").kind == EntryKind::directory);
    CHECK(v1->stat(".").kind == EntryKind::directory);

    for (const DirEntry& e : v1->list_dir("skills/alpha")) {
        if (e.name == "SKILL.md") {
            CHECK(e.kind == EntryKind::file);
            CHECK(e.size == alpha_v1.size());
            CHECK_FALSE(e.is_symlink);
        }
    }

    // The same commit through an annotated tag, the full id and a short id.
    CHECK(GitTreeReader::open(repo.dir, "v1-annotated")->commit_id() == repo.first);
    CHECK(GitTreeReader::open(repo.dir, repo.first)->commit_id() == repo.first);
    CHECK(GitTreeReader::open(repo.dir, repo.first.substr(0, 10))->commit_id() == repo.first);

    // The branch has both commits; the edited work tree is invisible.
    const auto main = GitTreeReader::open(repo.dir, "main");
    CHECK(main->commit_id() == repo.second);
    CHECK(names_of(main->list_dir("skills")) == std::vector<std::string>{"alpha", "beta"});
    CHECK(main->read_file("skills/alpha/SKILL.md", 0).data == alpha_v2);
    CHECK(main->read_file("skills/beta/SKILL.md", 0).data == beta);
    CHECK(main->stat("skills/alpha/SKILL.md").identity != st.identity);

    // A reader opened before the branch moves keeps its commit.
    repo.tmp.write("repo/skills/alpha/SKILL.md", alpha_v1);
    git(repo.dir, "add -A");
    git(repo.dir, "commit -q -m third");
    CHECK(main->commit_id() == repo.second);
    CHECK(main->read_file("skills/beta/SKILL.md", 0).data == beta);
    CHECK(names_of(main->list_dir("skills")) == std::vector<std::string>{"alpha", "beta"});
}

TEST_CASE("FilesystemSkillLoader discovers a tag's skills through GitTreeReader", "[git][loader]") {
    Repo repo;
    FilesystemSkillLoader at_tag({.roots = {"skills"}, .reader = GitTreeReader::open(repo.dir, "v1")});
    const Discovery d1 = at_tag.discover();
    CHECK(skill_names(d1) == std::vector<std::string>{"alpha"});
    REQUIRE(d1.skills.size() == 1);
    CHECK(d1.skills[0].description == "Alpha, first version.");
    CHECK(d1.skills[0].skill_file == "skills/alpha/SKILL.md");
    const LoadedSkill loaded = at_tag.load("alpha");
    CHECK(loaded.instructions == "First body.");
    REQUIRE(loaded.resources.size() == 1);
    CHECK(loaded.resources[0].path == "scripts/run.sh");

    FilesystemSkillLoader at_branch({.roots = {"skills"}, .reader = GitTreeReader::open(repo.dir, "main")});
    const Discovery d2 = at_branch.discover();
    CHECK(skill_names(d2) == std::vector<std::string>{"alpha", "beta"});
    CHECK(d2.skills[0].description == "Alpha, second version.");
    CHECK(d2.skills[1].description == "Beta.");
}

TEST_CASE("GitTreeReader opens bare repositories and the .git directory", "[git]") {
    Repo repo;
    git(repo.tmp.path(), "clone -q --bare repo repo.git");
    const auto bare = GitTreeReader::open(repo.tmp.path("repo.git"), "v1");
    CHECK(bare->commit_id() == repo.first);
    CHECK(bare->read_file("skills/alpha/SKILL.md", 0).data == alpha_v1);
    CHECK(GitTreeReader::open(repo.dir + "/.git", "main")->commit_id() == repo.second);
}

TEST_CASE("GitTreeReader refuses bad repositories, refs and paths", "[git]") {
    Repo repo;
    CHECK_THROWS_AS(GitTreeReader::open(repo.tmp.path("absent"), "main"), NotFoundError);
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir + "/skills", "main"), NotFoundError);  // no parent search
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, "no-such-branch"), NotFoundError);
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, ""), ConfigurationError);
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, "--all"), ConfigurationError);
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, std::string("main\0x", 6)), ConfigurationError);
    CHECK_THROWS_AS(GitTreeReader::open("", "main"), ConfigurationError);
    // A ref that names a tree or a blob, not a commit.
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, "main:skills"), IoError);
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, "main:README.md"), IoError);

    const auto r = GitTreeReader::open(repo.dir, "main");
    CHECK_THROWS_AS(r->read_file("skills/none/SKILL.md", 0), NotFoundError);
    CHECK_THROWS_AS(r->read_file("README.md/x", 0), NotFoundError);
    CHECK_THROWS_AS(r->read_file("skills", 0), IoError);
    CHECK_THROWS_AS(r->list_dir("README.md"), IoError);
    CHECK_THROWS_AS(r->stat("missing"), NotFoundError);
    CHECK_THROWS_AS(r->read_file("../repo/README.md", 0), PathError);
    CHECK_THROWS_AS(r->read_file("/README.md", 0), PathError);
    CHECK_THROWS_AS(r->list_dir("skills\\alpha"), PathError);
}

TEST_CASE("GitTreeReader does not follow symlinks or submodules", "[git][hostile]") {
    Repo repo;
    git(repo.dir, "checkout -q -f main");
    git(repo.dir, "clean -q -f -d");
    git(repo.dir, "checkout -q -b links");
    std::filesystem::create_symlink("alpha", repo.tmp.path("repo/skills/linked"));
    std::filesystem::create_symlink("/etc/passwd", repo.tmp.path("repo/skills/alpha/passwd.md"));
    git(repo.dir, "add -A");
    // A gitlink (submodule entry) pointing at the first commit.
    git(repo.dir, "update-index --add --cacheinfo 160000," + repo.first + ",skills/sub");
    git(repo.dir, "commit -q -m links");

    const auto r = GitTreeReader::open(repo.dir, "links");
    bool saw_link = false;
    bool saw_sub = false;
    for (const DirEntry& e : r->list_dir("skills")) {
        if (e.name == "linked") {
            saw_link = true;
            CHECK(e.kind == EntryKind::other);
            CHECK(e.is_symlink);
        }
        if (e.name == "sub") {
            saw_sub = true;
            CHECK(e.kind == EntryKind::other);
            CHECK_FALSE(e.is_symlink);
        }
    }
    CHECK(saw_link);
    CHECK(saw_sub);
    CHECK(r->stat("skills/linked").is_symlink);
    CHECK(r->stat("skills/linked").kind == EntryKind::other);
    CHECK(r->stat("skills/sub").kind == EntryKind::other);
    CHECK_THROWS_AS(r->read_file("skills/linked/SKILL.md", 0), NotFoundError);
    CHECK_THROWS_AS(r->list_dir("skills/linked"), IoError);
    CHECK_THROWS_AS(r->read_file("skills/linked", 0), IoError);
    CHECK_THROWS_AS(r->read_file("skills/alpha/passwd.md", 0), IoError);
    CHECK_THROWS_AS(r->list_dir("skills/sub"), IoError);
    CHECK_THROWS_AS(r->read_file("skills/sub/SKILL.md", 0), NotFoundError);

    // Discovery keeps the real skills; the link is not a second alpha and the gitlink no skill.
    FilesystemSkillLoader loader({.roots = {"skills"}, .reader = r});
    const Discovery d = loader.discover();
    CHECK(skill_names(d) == std::vector<std::string>{"alpha", "beta"});
    std::vector<std::string> resources;
    for (const auto& res : loader.load("alpha").resources) resources.push_back(res.path);
    CHECK(std::find(resources.begin(), resources.end(), "skills/alpha/passwd.md") == resources.end());
}

TEST_CASE("GitTreeReader bounds blobs and trees before loading them", "[git][hostile]") {
    Repo repo;
    const auto small = GitTreeReader::open(repo.dir, "main", {.max_blob_bytes = 20});
    try {
        (void)small->read_file("skills/alpha/SKILL.md", 5);
        FAIL("read");
    } catch (const IoError& e) {
        CHECK(std::string(e.what()).find("more than the limit of 20") != std::string::npos);
    }
    CHECK(small->read_file("README.md", 0).data == "readme\n");           // 7 bytes
    CHECK(small->stat("skills/alpha/SKILL.md").size == alpha_v2.size());  // headers only

    const auto narrow = GitTreeReader::open(repo.dir, "main", {.max_tree_entries = 1});
    CHECK_THROWS_AS(narrow->list_dir("skills"), IoError);
    CHECK(names_of(narrow->list_dir("skills/beta")) == std::vector<std::string>{"SKILL.md"});

    // Every tree here is under 200 bytes but wide/ (ten entries, about 340 bytes).
    const auto tiny_trees = GitTreeReader::open(repo.dir, "main", {.max_tree_bytes = 200});
    CHECK(tiny_trees->read_file("skills/alpha/scripts/run.sh", 0).data == "echo one\n");
    CHECK_THROWS_AS(tiny_trees->read_file("wide/f0.txt", 0), IoError);
    CHECK_THROWS_AS(tiny_trees->list_dir("wide"), IoError);
    CHECK(GitTreeReader::open(repo.dir, "main", {.max_tree_bytes = 400})->read_file("wide/f0.txt", 0).data == "wide\n");
    CHECK_THROWS_AS(GitTreeReader::open(repo.dir, "main", {.max_tree_bytes = 10}), IoError);  // the root tree
}

TEST_CASE("a git-root skill's directory over the listing limit is named, not dropped", "[git][hostile][resources]") {
    TempDir tmp;
    const std::string dir = tmp.path("repo");
    tmp.mkdir("repo");
    git(dir, "init -q");
    tmp.write("repo/skills/wide/SKILL.md", skill_md("wide", "A skill with a wide folder.", "Body.\n"));
    tmp.write("repo/skills/wide/notes.md", "notes\n");
    for (int i = 0; i < 5; ++i) tmp.write("repo/skills/wide/references/r" + std::to_string(i) + ".md", "r\n");
    git(dir, "add -A");
    git(dir, "commit -q -m wide");
    // Three entries a directory: skills/ (1) and wide/ (3) list, references/ (5) does not.
    FilesystemSkillLoader loader(
        {.roots = {"skills"}, .reader = GitTreeReader::open(dir, "main", {.max_tree_entries = 3})});
    (void)loader.discover();
    const LoadedSkill skill = loader.load("wide");
    CHECK(skill.resources == std::vector<SkillResource>{{"notes.md"}});
    CHECK(skill.unlisted_directories == std::vector<std::string>{"references"});
    CHECK(skill.unlisted_reasons == std::vector<UnlistedReason>{UnlistedReason::unreadable});
    CHECK(skill.resources_incomplete);
    const std::string text = render_activation_text(skill, {.include_directory = false});
    CHECK(text.find("<skill_resources>\n  <file path=\"notes.md\" />\n"
                    "  The files in the directory \"references\" are not listed: it could not be read.\n"
                    "</skill_resources>") != std::string::npos);
    // Within the limit, everything is listed and nothing is said.
    FilesystemSkillLoader wide_enough({.roots = {"skills"}, .reader = GitTreeReader::open(dir, "main")});
    (void)wide_enough.discover();
    const LoadedSkill all = wide_enough.load("wide");
    CHECK(all.resources.size() == 6);
    CHECK(all.unlisted_directories.empty());
    CHECK_FALSE(all.resources_incomplete);
    CHECK(render_activation_text(all).find("could not be read") == std::string::npos);
}

TEST_CASE("parse_git_root splits git: roots", "[git]") {
    CHECK_FALSE(parse_git_root("skills").has_value());
    CHECK_FALSE(parse_git_root("/abs/git:x@y").has_value());
    CHECK(parse_git_root("git:/srv/repo@main") == GitRoot{"/srv/repo", "main", "."});
    CHECK(parse_git_root("git:../repo.git@v1.2:skills/") == GitRoot{"../repo.git", "v1.2", "skills"});
    CHECK(parse_git_root("git:/home/u@host/repo@feature/x:a/b") == GitRoot{"/home/u@host/repo", "feature/x", "a/b"});
    CHECK(parse_git_root("git:repo@0123abcd:") == GitRoot{"repo", "0123abcd", "."});
    CHECK_THROWS_AS(parse_git_root("git:/srv/repo"), ConfigurationError);
    CHECK_THROWS_AS(parse_git_root("git:@main"), ConfigurationError);
    CHECK_THROWS_AS(parse_git_root("git:/srv/repo@"), ConfigurationError);
    CHECK_THROWS_AS(parse_git_root("git:/srv/repo@:skills"), ConfigurationError);
    CHECK_THROWS_AS(parse_git_root("git:/srv/repo@main:../x"), ConfigurationError);
    CHECK_THROWS_AS(parse_git_root("git:/srv/repo@main:/abs"), ConfigurationError);
}

TEST_CASE("GitTreeReader is safe to use from several threads", "[git][concurrency]") {
    Repo repo;
    const auto r = GitTreeReader::open(repo.dir, "main");
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 50; ++i) {
                if (r->read_file("skills/beta/SKILL.md", 0).data != beta) ++failures;
                if (r->list_dir("skills").size() != 2) ++failures;
                if (r->stat("skills/alpha/SKILL.md").size != alpha_v2.size()) ++failures;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures == 0);
}

namespace {

// What open() says of a commit or tag over the default bound of 1 MiB.
std::string size_refusal(const std::string& dir, const std::string& ref, const std::string& kind,
                         const std::string& size) {
    return fmt::format("cannot resolve ref '{}' in '{}': a {} object of {} bytes, more than the limit of 1048576", ref,
                       dir, kind, size);
}

}  // namespace

TEST_CASE("GitTreeReader bounds the commits and tags a ref leads through before loading them", "[git][hostile]") {
    // A commit's or tag's message is free text: 2 MiB here (a gigabyte packs into a few hundred
    // kilobytes). Over max_commit_bytes (1 MiB) it is refused from its header, never loaded.
    Repo repo;
    repo.tmp.write("message", std::string(std::size_t{2} << 20, 'm'));
    const std::string message = quote(repo.tmp.path("message"));
    const std::string huge = git(repo.dir, "commit-tree " + git(repo.dir, "rev-parse main^{tree}") + " -F " + message);
    git(repo.dir, "update-ref refs/heads/huge " + huge);
    git(repo.dir, "tag to-huge " + huge);
    git(repo.dir, "tag -a big-tag -F " + message + " main");
    git(repo.dir, "tag -a tree-tag -m 'a tree' main^{tree}");
    const std::string commit_size = git(repo.dir, "cat-file -s " + huge);
    const std::string tag_size = git(repo.dir, "cat-file -s big-tag");
    const auto refusal = [&](const std::string& ref, const std::string& kind, const std::string& size) {
        return size_refusal(repo.dir, ref, kind, size);
    };
    for (const std::string& ref :
         {std::string("huge"), std::string("refs/heads/huge"), huge, huge.substr(0, 12), std::string("to-huge")}) {
        CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, ref), refusal(ref, "commit", commit_size));
    }
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "big-tag"), refusal("big-tag", "tag", tag_size));
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "tree-tag"),
                      "ref 'tree-tag' in '" + repo.dir + "' names no commit: it leads to a tree");
    // Under a larger bound they open as before; small ones are untouched.
    const GitLimits larger{.max_commit_bytes = std::uint64_t{4} << 20};
    CHECK(GitTreeReader::open(repo.dir, "huge", larger)->commit_id() == huge);
    CHECK(GitTreeReader::open(repo.dir, "big-tag", larger)->commit_id() == repo.second);
    CHECK(GitTreeReader::open(repo.dir, "v1-annotated")->commit_id() == repo.first);
    CHECK(GitTreeReader::open(repo.dir, repo.first.substr(0, 7))->commit_id() == repo.first);
    CHECK(GitTreeReader::open(repo.dir, "HEAD")->commit_id() == repo.second);
    CHECK(GitTreeReader::open(repo.dir, "main~1")->commit_id() == repo.first);  // an expression
}

TEST_CASE("GitTreeReader bounds the commits and tags a revision expression walks", "[git][hostile]") {
    // `main~1` went to libgit2's revparse, which loads every commit and tag it walks whole: a
    // commit with a 2 MiB message one step behind a branch was loaded, however small the bound.
    Repo repo;
    repo.tmp.write("message", std::string(std::size_t{2} << 20, 'm'));
    const std::string message = quote(repo.tmp.path("message"));
    const std::string tree = git(repo.dir, "rev-parse main^{tree}");
    const std::string huge = git(repo.dir, "commit-tree " + tree + " -p main -F " + message);
    const std::string child = git(repo.dir, "commit-tree " + tree + " -p " + huge + " -m child");
    git(repo.dir, "update-ref refs/heads/child " + child);
    git(repo.dir, "tag to-huge " + huge);
    git(repo.dir, "tag -a big-tag -F " + message + " main");
    const std::string commit_size = git(repo.dir, "cat-file -s " + huge);
    const std::string tag_size = git(repo.dir, "cat-file -s big-tag");
    const auto refusal = [&](const std::string& ref, const std::string& kind, const std::string& size) {
        return size_refusal(repo.dir, ref, kind, size);
    };
    for (const std::string& ref :
         std::vector<std::string>{"child~1", "child^", "child^1", "child~1^{tree}", "child^^{commit}", "to-huge^{}",
                                  "to-huge^0", "child~2", child.substr(0, 10) + "~1"}) {
        INFO(ref);
        CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, ref), refusal(ref, "commit", commit_size));
    }
    for (const std::string& ref : std::vector<std::string>{"big-tag^{}", "big-tag^{commit}", "big-tag~0"}) {
        CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, ref), refusal(ref, "tag", tag_size));
    }
    const GitLimits larger{.max_commit_bytes = std::uint64_t{4} << 20};
    CHECK(GitTreeReader::open(repo.dir, "child~1", larger)->commit_id() == huge);
    CHECK(GitTreeReader::open(repo.dir, "child~2", larger)->commit_id() == repo.second);
    CHECK(GitTreeReader::open(repo.dir, "big-tag^{}", larger)->commit_id() == repo.second);

    // A long walk: at most 1,000 commit and tag objects are loaded (`deep~N` loads N + 1).
    std::string stream =
        "commit refs/heads/deep\ncommitter T <t@example.invalid> 0 +0000\ndata 1\nc\n"
        "M 644 inline f\ndata 2\nf\n\n";
    for (int i = 0; i < 1000; ++i)
        stream += "commit refs/heads/deep\ncommitter T <t@example.invalid> 0 +0000\ndata 1\nc\n\n";
    repo.tmp.write("stream", stream);
    git(repo.dir, "fast-import --quiet < " + quote(repo.tmp.path("stream")));
    CHECK(GitTreeReader::open(repo.dir, "deep~998")->commit_id() == git(repo.dir, "rev-parse deep~998"));
    CHECK_THROWS_WITH(
        GitTreeReader::open(repo.dir, "deep~1000"),
        "cannot resolve ref 'deep~1000' in '" + repo.dir + "': more than 1000 commit and tag objects on the way");
}

TEST_CASE("GitTreeReader walks ~, ^ and ^{type} itself and refuses other revision syntax", "[git]") {
    Repo repo;
    git(repo.dir, "tag -a tree-tag -m 'a tree' main^{tree}");
    const auto id = [&](const std::string& ref) { return GitTreeReader::open(repo.dir, ref)->commit_id(); };
    CHECK(id("main^") == repo.first);
    CHECK(id("main~") == repo.first);
    CHECK(id("HEAD~1") == repo.first);
    CHECK(id("main^0") == repo.second);
    CHECK(id("main~0") == repo.second);
    CHECK(id("main^1~0^{commit}") == repo.first);
    CHECK(id("v1-annotated^{}") == repo.first);
    CHECK(id("v1-annotated^{commit}") == repo.first);
    CHECK(id("v1-annotated^{tag}^{object}^{}") == repo.first);
    CHECK(id("@") == repo.second);
    CHECK(id("@~1") == repo.first);
    CHECK(id(repo.second.substr(0, 8) + "^") == repo.first);
    CHECK(id("v1-1-g" + repo.second.substr(0, 7)) == repo.second);  // a `git describe` name
    CHECK(id("v1-annotated-1-g" + repo.second.substr(0, 7) + "~1") == repo.first);
    // Names that lead nowhere are not found; a walk past the first commit neither.
    for (const std::string& ref :
         std::vector<std::string>{"main~2", "main^2", "main~5", "no-such~1", "v9-1-gffffffffff"}) {
        INFO(ref);
        CHECK_THROWS_AS(GitTreeReader::open(repo.dir, ref), NotFoundError);
    }
    // A tree or a blob names no commit; ^{tag} of a commit, ^{blob} of a commit lead nowhere.
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "main^{tree}"),
                      "ref 'main^{tree}' in '" + repo.dir + "' names no commit: it leads to a tree");
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "tree-tag^{}"),
                      "ref 'tree-tag^{}' in '" + repo.dir + "' names no commit: it leads to a tree");
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "main^{tag}"),
                      "cannot resolve ref 'main^{tag}' in '" + repo.dir + "': a commit does not lead to a tag");
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "tree-tag^{commit}"),
                      "ref 'tree-tag^{commit}' in '" + repo.dir + "' names no commit: it leads to a tree");
    CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, "main^{blob}"),
                      "cannot resolve ref 'main^{blob}' in '" + repo.dir + "': a commit does not lead to a blob");
    // `<rev>:<path>` names a tree entry, never a commit.
    for (const std::string& ref : std::vector<std::string>{"main:skills", "main~1:skills", "v1^{}:README.md"}) {
        CHECK_THROWS_WITH(GitTreeReader::open(repo.dir, ref),
                          "ref '" + ref + "' in '" + repo.dir + "' names no commit: `<rev>:<path>` names a tree entry");
    }
    // The rest of git's revision syntax is refused: reflogs, upstreams, message searches, the index.
    for (const std::string& ref :
         std::vector<std::string>{"main@{0}", "HEAD@{1}", "@{-1}", "main@{upstream}", ":/first", "main^{/first}",
                                  ":0:README.md", "main^{tre", "main^{commitx}", "main~1x", "^main", "~1", "main~-1"}) {
        INFO(ref);
        CHECK_THROWS_AS(GitTreeReader::open(repo.dir, ref), ConfigurationError);
    }
}

TEST_CASE("GitTreeReader does not list the impossible names of a hand-made tree", "[git][hostile]") {
    Repo repo;
    const std::string blob_hex = git(repo.dir, "rev-parse main:README.md");
    REQUIRE(blob_hex.size() == 40);
    std::string blob_id;
    for (std::size_t i = 0; i < 40; i += 2) {
        blob_id += static_cast<char>(std::stoi(blob_hex.substr(i, 2), nullptr, 16));
    }
    // Tree entries are "<mode> <name>\0<20-byte id>"; git itself never writes these names.
    std::string tree;
    for (const std::string name : {".", "..", "a\\b", "dup", "fine.md"}) {
        tree += "100644 " + name + std::string(1, '\0') + blob_id;
    }
    repo.tmp.write("crafted-tree", tree);
    const std::string tree_id =
        git(repo.dir, "hash-object --literally -t tree -w " + quote(repo.tmp.path("crafted-tree")));
    const std::string commit = git(repo.dir, "commit-tree " + tree_id + " -m crafted");
    git(repo.dir, "update-ref refs/heads/crafted " + commit);

    const auto r = GitTreeReader::open(repo.dir, "crafted");
    CHECK(names_of(r->list_dir(".")) == std::vector<std::string>{"dup", "fine.md"});
    CHECK(r->read_file("fine.md", 0).data == "readme\n");
    CHECK_THROWS_AS(r->read_file("..", 0), PathError);
}

namespace {

// The 20 bytes of an object id given in hex.
std::string raw_id(const std::string& hex) {
    REQUIRE(hex.size() == 40);
    std::string out;
    for (std::size_t i = 0; i < 40; i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    return out;
}

// A tree object written as given ("<mode> <name>\0<id>" per entry, in this order), as git never would.
std::string hand_made_tree(const Repo& repo, const std::vector<std::pair<std::string, std::string>>& entries) {
    std::string tree;
    for (const auto& entry : entries) tree += entry.first + std::string(1, '\0') + raw_id(entry.second);
    repo.tmp.write("hand-made-tree", tree);
    return git(repo.dir, "hash-object --literally -t tree -w " + quote(repo.tmp.path("hand-made-tree")));
}

}  // namespace

TEST_CASE("GitTreeReader refuses hand-made trees out of git's order or naming an entry twice", "[git][hostile]") {
    // libgit2 lists a tree's entries as stored but finds a name by a binary search: in such a tree
    // the listing and the reads disagreed (a listed file not found, or another blob read than the
    // one listed).
    Repo repo;
    repo.tmp.write("one.md", skill_md("twice", "The first of two."));
    repo.tmp.write("two.md", skill_md("twice", "The second of two."));
    repo.tmp.write("sorted.md", skill_md("sorted", "In git's order."));
    const auto blob = [&](const std::string& file) {
        return git(repo.dir, "hash-object -w " + quote(repo.tmp.path(file)));
    };
    const std::string one = blob("one.md");
    const std::string two = blob("two.md");
    const std::string alpha = git(repo.dir, "rev-parse main:skills/alpha");
    const std::string twice = hand_made_tree(repo, {{"100644 SKILL.md", one}, {"100644 SKILL.md", two}});
    const std::string file_and_dir =
        hand_made_tree(repo, {{"100644 SKILL.md", one}, {"100644 SKILL.md-x", two}, {"40000 SKILL.md", alpha}});
    const std::string unsorted =
        hand_made_tree(repo, {{"100644 b.md", one}, {"100644 c.md", two}, {"100644 SKILL.md", one}});
    const std::string sorted =
        hand_made_tree(repo, {{"100644 SKILL.md", blob("sorted.md")}, {"100644 b.md", one}, {"100644 c.md", two}});
    std::string listing;
    for (const auto& [name, id] : std::vector<std::pair<std::string, std::string>>{{"alpha", alpha},
                                                                                   {"twice", twice},
                                                                                   {"file-and-dir", file_and_dir},
                                                                                   {"unsorted", unsorted},
                                                                                   {"sorted", sorted}}) {
        listing += "040000 tree " + id + "\t" + name + "\n";
    }
    repo.tmp.write("mktree", listing);
    const std::string root = git(repo.dir, "mktree < " + quote(repo.tmp.path("mktree")));
    const std::string commit = git(repo.dir, "commit-tree " + root + " -m hand-made");
    git(repo.dir, "update-ref refs/heads/hand-made " + commit);

    const auto r = GitTreeReader::open(repo.dir, "hand-made");
    CHECK(names_of(r->list_dir(".")) ==
          std::vector<std::string>{"alpha", "file-and-dir", "sorted", "twice", "unsorted"});
    CHECK(names_of(r->list_dir("sorted")) == std::vector<std::string>{"SKILL.md", "b.md", "c.md"});
    CHECK(r->read_file("sorted/b.md", 0).data == skill_md("twice", "The first of two."));
    const auto refused = [&](const std::string& path, const std::string& why) {
        INFO(path);
        for (int call = 0; call < 3; ++call) {
            try {
                if (call == 0) (void)r->list_dir(path);
                if (call == 1) (void)r->read_file(path + "/SKILL.md", 0);
                if (call == 2) (void)r->stat(path + "/SKILL.md");
                FAIL("call " << call << " accepted the tree");
            } catch (const IoError& e) {
                CHECK(std::string(e.what()).find(why) != std::string::npos);
            }
        }
    };
    refused("twice", "a broken tree object, naming 'SKILL.md' twice");
    refused("file-and-dir", "a broken tree object, naming 'SKILL.md' twice");
    refused("unsorted", "a broken tree object, its entries not in git's order (at 'SKILL.md')");

    // Through a loader: the broken directories are skipped and named, the others load.
    FilesystemLoaderOptions o;
    o.roots = {"git:" + repo.dir + "@hand-made"};
    o.include_default_roots = false;
    o.sources.root_resolvers = {git_root_source()};
    FilesystemSkillLoader loader(std::move(o));
    const Discovery d = loader.discover();
    CHECK(skill_names(d) == std::vector<std::string>{"alpha", "sorted"});
    std::vector<std::string> skipped;
    for (const auto& s : d.skipped) skipped.push_back(s.path + ": " + s.message);
    const std::string at = "git:" + repo.dir + "@" + commit + "!/";
    const auto refusal = [&](const std::string& dir, const std::string& why) {
        const std::string file = at + dir + "/SKILL.md";
        return file + ": cannot read " + file + ": cannot list '" + dir + "/SKILL.md': a broken tree object, " + why;
    };
    CHECK(skipped == std::vector<std::string>{refusal("file-and-dir", "naming 'SKILL.md' twice"),
                                              refusal("twice", "naming 'SKILL.md' twice"),
                                              refusal("unsorted", "its entries not in git's order (at 'SKILL.md')")});
}

TEST_CASE("GitTreeReader loads a wide directory's tree once for all its files", "[git][hostile]") {
    // A directory tree of nearly 4 MiB (the default max_tree_bytes): 15,000 files with long names,
    // all one blob. Every read walks its path from the root; the directory's tree is now loaded
    // once and kept, where it was loaded (inflated, parsed) again for every file read, so that
    // reading 2,000 of its files took minutes (and a lock of such a skill, longer).
    Repo repo;
    const std::string blob = git(repo.dir, "rev-parse main:README.md");
    const std::string pad(230, 'n');
    std::vector<std::pair<std::string, std::string>> entries;
    for (int i = 0; i < 15'000; ++i) entries.emplace_back(fmt::format("100644 {}{:05}", pad, i), blob);
    const std::string wide = hand_made_tree(repo, entries);
    repo.tmp.write("mktree", "040000 tree " + wide + "\twide\n");
    const std::string root = git(repo.dir, "mktree < " + quote(repo.tmp.path("mktree")));
    git(repo.dir, "update-ref refs/heads/wide " + git(repo.dir, "commit-tree " + root + " -m wide"));
    const auto r = GitTreeReader::open(repo.dir, "wide");
    REQUIRE(r->stat("wide").kind == EntryKind::directory);
    const auto start = std::chrono::steady_clock::now();
    std::size_t read = 0;
    for (int i = 0; i < 2'000; ++i) {
        const std::string path = fmt::format("wide/{}{:05}", pad, i * 7);
        if (r->read_file(path, 0).data == "readme\n" && r->stat(path).size == 7) ++read;
    }
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(read == 2'000);
    CHECK(seconds < 10.0);
}

// ---------------------------------------------------------------------------------------
// `git:` roots in a loader (FilesystemLoaderOptions::sources, git_root_source)

namespace {

std::vector<std::string> files_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.skill_file + " " + m.description);
    return out;
}

FilesystemLoaderOptions git_library(std::vector<std::string> roots) {
    FilesystemLoaderOptions o;
    o.roots = std::move(roots);
    o.include_default_roots = false;
    o.sources.root_resolvers = {git_root_source()};
    return o;
}

}  // namespace

TEST_CASE("a git: root reads the library from the commit's tree", "[git][loader]") {
    Repo repo;
    FilesystemSkillLoader at_tag(git_library({"git:" + repo.dir + "@v1:skills"}));
    const Discovery d1 = at_tag.discover();
    CHECK(d1.diagnostics.empty());
    REQUIRE(skill_names(d1) == std::vector<std::string>{"alpha"});
    const std::string label = "git:" + repo.dir + "@" + repo.first;
    CHECK(d1.skills[0].description == "Alpha, first version.");
    CHECK(d1.skills[0].skill_file == label + "!/skills/alpha/SKILL.md");
    CHECK(d1.skills[0].root == label + "!/skills/alpha");
    CHECK(d1.skills[0].library == label + "!/skills");
    const LoadedSkill loaded = at_tag.load("alpha");
    CHECK(loaded.instructions == "First body.");
    REQUIRE(loaded.resources.size() == 1);
    CHECK(loaded.resources[0].path == "scripts/run.sh");
    const SkillReaderPtr reader = at_tag.reader_for("alpha");
    REQUIRE(reader != nullptr);
    CHECK(reader->read_file(label + "!/skills/alpha/scripts/run.sh", 0).data == "echo one\n");
    // The same discovery again (the snapshot), and the same after the branch moves on.
    CHECK(files_of(at_tag.discover()) == files_of(d1));
    repo.tmp.write("repo/skills/delta/SKILL.md", skill_md("delta", "Third commit."));
    git(repo.dir, "add skills/delta");  // only delta: the rest of the work tree stays uncommitted
    git(repo.dir, "commit -q -m third");
    CHECK(files_of(at_tag.discover()) == files_of(d1));
    FilesystemSkillLoader fresh_tag(git_library({"git:" + repo.dir + "@v1:skills"}));
    CHECK(files_of(fresh_tag.discover()) == files_of(d1));

    // The branch: its commit when the loader is made, never the work tree (gamma, edited beta).
    FilesystemSkillLoader at_branch(git_library({"git:" + repo.dir + "@main:skills"}));
    const Discovery d2 = at_branch.discover();
    REQUIRE(skill_names(d2) == std::vector<std::string>{"alpha", "beta", "delta"});
    CHECK(d2.skills[0].description == "Alpha, second version.");
    CHECK(d2.skills[1].description == "Beta.");

    // A git root before a local one wins on a shared name; the local one's other skills load.
    TempDir local;
    local.write("alpha/SKILL.md", skill_md("alpha", "Local alpha."));
    local.write("omega/SKILL.md", skill_md("omega", "Local omega."));
    FilesystemSkillLoader mixed(git_library({"git:" + repo.dir + "@v1:skills", local.path()}));
    const Discovery d3 = mixed.discover();
    CHECK(skill_names(d3) == std::vector<std::string>{"alpha", "omega"});
    CHECK(d3.skills[0].description == "Alpha, first version.");
    CHECK(mixed.reader_for("omega") == mixed.reader());
    REQUIRE(d3.skipped.size() == 1);
    CHECK(d3.skipped[0].reason == SkipReason::duplicate_name);
}

TEST_CASE("a git: root of a bare repository, and the tree's root as the library", "[git][loader]") {
    Repo repo;
    git(repo.tmp.path(), "clone -q --bare repo repo.git");
    FilesystemSkillLoader bare(git_library({"git:" + repo.tmp.path("repo.git") + "@v1-annotated:skills"}));
    const Discovery d = bare.discover();
    REQUIRE(skill_names(d) == std::vector<std::string>{"alpha"});
    CHECK(d.skills[0].skill_file == "git:" + repo.tmp.path("repo.git") + "@" + repo.first + "!/skills/alpha/SKILL.md");
    CHECK(bare.load("alpha").instructions == "First body.");

    // Without `:<path>` the library is the tree's root: skills/ and wide/ hold no SKILL.md.
    FilesystemSkillLoader top(git_library({"git:" + repo.dir + "@" + repo.first}));
    const Discovery t = top.discover();
    CHECK(t.skills.empty());
    CHECK(t.skipped.empty());
}

TEST_CASE("a git: root whose repository or ref is missing is a missing root", "[git][loader]") {
    Repo repo;
    for (const std::string& root : {"git:" + repo.dir + "@no-such-tag", "git:" + repo.tmp.path("absent") + "@main"}) {
        INFO(root);
        TempDir local;
        local.write("omega/SKILL.md", skill_md("omega", "Local omega."));
        FilesystemSkillLoader skipping(git_library({root, local.path()}));
        const Discovery d = skipping.discover();
        CHECK(skill_names(d) == std::vector<std::string>{"omega"});
        REQUIRE(d.diagnostics.size() == 1);
        CHECK(d.diagnostics[0].code == "root-missing");
        CHECK(d.diagnostics[0].severity == Severity::info);
        CHECK(d.diagnostics[0].path == root);
        CHECK(d.diagnostics[0].message.rfind("library root " + root + " does not exist: ", 0) == 0);

        auto strict = git_library({root, local.path()});
        strict.missing_directories = MissingDirectories::error;
        FilesystemSkillLoader failing(std::move(strict));
        CHECK_THROWS_AS(failing.discover(), DiscoveryError);
    }
    // A ref that names a blob cannot be a library: discovery fails for an explicit root.
    FilesystemSkillLoader blob(git_library({"git:" + repo.dir + "@" + repo.first + ":README.md"}));
    const Discovery b = blob.discover();
    CHECK(b.skills.empty());
    REQUIRE(b.skipped.size() == 1);
    CHECK(b.skipped[0].reason == SkipReason::not_a_directory);
    FilesystemSkillLoader tree_ref(git_library({"git:" + repo.dir + "@v1^{tree}"}));
    CHECK_THROWS_AS(tree_ref.discover(), DiscoveryError);
    // Malformed roots stop the loader's construction.
    CHECK_THROWS_AS(FilesystemSkillLoader(git_library({"git:" + repo.dir})), ConfigurationError);
    CHECK_THROWS_AS(FilesystemSkillLoader(git_library({"git:" + repo.dir + "@v1:../up"})), ConfigurationError);
    // Without the source installed, a git: root is an ordinary (missing) path.
    FilesystemSkillLoader plain({.roots = {"git:" + repo.dir + "@v1"}, .include_default_roots = false});
    CHECK(plain.discover().skills.empty());
}

TEST_CASE("GitTreeReader refuses a repository that reads objects through alternates", "[git][hostile]") {
    // `objects/info/alternates` names other object stores, any directory on the machine: a
    // repository unpacked from an archive could serve a skill from another user's repository.
    // `git clone --shared` writes the file, its commits' objects staying in the source.
    Repo repo;
    const std::string shared = repo.tmp.path("shared");
    git(repo.tmp.path(), "clone -q --shared --bare " + quote(repo.dir) + " " + quote(shared));
    const std::string alternates = shared + "/objects/info/alternates";
    REQUIRE(std::filesystem::is_regular_file(alternates));
    std::string names;
    {
        std::ifstream in(alternates);
        std::getline(in, names);
    }
    CHECK(names == repo.dir + "/.git/objects");
    CHECK_THROWS_WITH(GitTreeReader::open(shared, "main"),
                      "cannot open the git repository '" + shared + "': it has '" + alternates +
                          "', which would have objects read from other repositories (`git repack -a -d` and "
                          "removing the file make it self-contained)");
    // Whatever is there: an empty file, a directory, a dangling link.
    const std::string named = "it has '" + alternates + "'";
    std::filesystem::remove(alternates);
    repo.tmp.write("shared/objects/info/alternates", "");
    CHECK_THROWS_WITH(GitTreeReader::open(shared, "main"), Catch::Contains(named));
    std::filesystem::remove(alternates);
    std::filesystem::create_directory(alternates);
    CHECK_THROWS_WITH(GitTreeReader::open(shared, "main"), Catch::Contains(named));
    std::filesystem::remove(alternates);
    std::filesystem::create_symlink(repo.tmp.path("nowhere"), alternates);
    CHECK_THROWS_WITH(GitTreeReader::open(shared, "main"), Catch::Contains(named));
    std::filesystem::remove(alternates);
    // Without the file, the source's objects are out of reach; repacked first, the clone is whole.
    CHECK_THROWS_AS(GitTreeReader::open(shared, "main"), IoError);
    repo.tmp.write("shared/objects/info/alternates", names + "\n");
    git(shared, "repack -q -a -d");
    std::filesystem::remove(alternates);
    CHECK(GitTreeReader::open(shared, "main")->commit_id() == repo.second);
    // A work tree's .git, and through a root: the root fails naming the file (not a missing root).
    const std::string work = repo.tmp.path("work");
    git(repo.tmp.path(), "clone -q --shared " + quote(repo.dir) + " " + quote(work));
    CHECK_THROWS_WITH(GitTreeReader::open(work, "main"), Catch::Contains(work + "/.git/objects/info/alternates"));
    FilesystemSkillLoader loader(git_library({"git:" + work + "@main:skills"}));
    CHECK_THROWS_WITH(loader.discover(), Catch::Contains(work + "/.git/objects/info/alternates"));
}

TEST_CASE("agentskills list --root git:<repo>@<tag>", "[git][cli]") {
    if (std::string(AGENTSKILLS_CLI_PATH).empty()) return;  // the program is not built
    Repo repo;
    const auto r = agentskills::test::run_cli({"list", "--root", "git:" + repo.dir + "@v1:skills"}, repo.tmp.path());
    CHECK(r.status == 0);
    CHECK(r.out == "alpha\tgit:" + repo.dir + "@" + repo.first + "!/skills/alpha/SKILL.md\n");
    // A repository or ref the user named that is missing is an error naming it, by default.
    for (const std::string& root : {"git:" + repo.dir + "@no-such-tag", "git:" + repo.tmp.path("nowhere") + "@HEAD"}) {
        INFO(root);
        const auto missing = agentskills::test::run_cli({"list", "--root", root}, repo.tmp.path());
        CHECK(missing.status == 1);
        CHECK(missing.out.empty());
        CHECK(missing.err.rfind("agentskills list: error: library root " + root + " does not exist", 0) == 0);
        const auto skipped =
            agentskills::test::run_cli({"list", "--root", root, "--missing-directories", "skip"}, repo.tmp.path());
        CHECK(skipped.status == 0);
        CHECK(skipped.out.empty());
        CHECK(skipped.err.empty());
    }
}

TEST_CASE("agentskills validate --root git:<repo>@<ref> checks the skills list finds there", "[git][cli]") {
    if (std::string(AGENTSKILLS_CLI_PATH).empty()) return;  // the program is not built
    Repo repo;
    const std::string root = "git:" + repo.dir + "@v1:skills";
    const auto r = agentskills::test::run_cli({"validate", "--root", root}, repo.tmp.path());
    CHECK(r.status == 0);
    CHECK(r.out == "git:" + repo.dir + "@" + repo.first + "!/skills/alpha: ok\n");
    const auto missing =
        agentskills::test::run_cli({"validate", "--root", "git:" + repo.dir + "@nope"}, repo.tmp.path());
    CHECK(missing.status == 1);
    CHECK(missing.err.rfind("agentskills validate: error: ", 0) == 0);
}

#ifdef AGENTSKILLS_HAVE_LOCK
TEST_CASE("agentskills lock --root git:<repo>@<tag> digests the files of the commit", "[git][cli][lock]") {
    if (std::string(AGENTSKILLS_CLI_PATH).empty()) return;  // the program is not built
    Repo repo;
    // The work tree has no skills/alpha any more: only the commit's files can be digested.
    const std::string root = "git:" + repo.dir + "@v1:skills";
    const std::string expected =
        fmt::format(R"({{
  "skills": [
    {{
      "files": {{
        "SKILL.md": "{}",
        "scripts/run.sh": "{}"
      }},
      "name": "alpha",
      "source": "git:{}@{}!/skills"
    }}
  ],
  "version": 1
}}
)",
                    sha256_digest(alpha_v1), sha256_digest("echo one\n"), repo.dir, repo.first);
    // The program runs agentskills-extras for `lock`, which runs agentskills-extras-full for the
    // git: root; each helper started directly gives the same.
    const std::filesystem::path bin = std::filesystem::path(AGENTSKILLS_CLI_PATH).parent_path();
    for (const std::string& program : {std::string(AGENTSKILLS_CLI_PATH), (bin / "agentskills-extras").string(),
                                       (bin / "agentskills-extras-full").string()}) {
        INFO(program);
        const auto r = agentskills::test::run_program(program, {"lock", "--root", root}, repo.tmp.path());
        CHECK(r.status == 0);
        CHECK(r.err.empty());
        CHECK(r.out == expected);
    }
    // The lock it wrote verifies the same root.
    const auto written =
        agentskills::test::run_cli({"lock", "--root", root, "--output", repo.tmp.path("lock.json")}, repo.tmp.path());
    REQUIRE(written.status == 0);
    const auto verified = agentskills::test::run_cli(
        {"list", "--root", root, "--lock", repo.tmp.path("lock.json"), "--lock-strict"}, repo.tmp.path());
    CHECK(verified.status == 0);
    CHECK(verified.out == "alpha\tgit:" + repo.dir + "@" + repo.first + "!/skills/alpha/SKILL.md\n");
}
#endif

}  // namespace git_reader_tests
