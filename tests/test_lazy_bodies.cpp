// FilesystemLoaderOptions::lazy_bodies: discovery keeps no body; load() reads the file again,
// serves what an eager loader serves when it did not change, re-parses it when it did, and
// throws IoError when it no longer parses or names another skill.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include <agentskills/activation/activation.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/storage/reader.hpp>
#include <nlohmann/json.hpp>

#include "fs_fixtures.hpp"

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
    const char* env = std::getenv("AGENTSKILLS_CORPUS_DIR");
    const std::filesystem::path corpus =
        env != nullptr && *env != '\0'
            ? std::filesystem::path(env)
            : std::filesystem::path(AGENTSKILLS_SOURCE_DIR).parent_path() / "shared" / "corpus";
    const std::filesystem::path libraries = corpus / "libraries";
    REQUIRE(std::filesystem::is_directory(libraries));
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
