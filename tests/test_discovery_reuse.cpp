// Tests of the repeated-discovery paths of FilesystemSkillLoader (issue 7): the cache of parsed
// files, the reuse of a whole unchanged discovery, and the local fast paths (d_type listing,
// one open per new SKILL.md, lstat without the reader). Each must give what a fresh loader gives.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "agentskills/catalog/loader.hpp"
#include "fs_fixtures.hpp"

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
