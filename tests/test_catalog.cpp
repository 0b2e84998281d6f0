// Tests of catalog.hpp: SkillCatalog over a loader, and discover_skill_catalog.
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "agentskills/catalog.hpp"
#include "agentskills/errors.hpp"
#include "fs_fixtures.hpp"

using namespace agentskills;
using agentskills_test::skill_md;

namespace {

// A custom loader written against the interface, counting its calls.
class CountingLoader final : public SkillLoader {
public:
    Discovery discover() override {
        ++discoveries;
        Discovery d;
        SkillManifest a;
        a.name = "alpha";
        a.description = "First.";
        a.skill_file = "lib/alpha/SKILL.md";
        a.root = "lib/alpha";
        SkillManifest b = a;
        b.name = "beta";
        b.skill_file = "lib/beta/SKILL.md";
        b.root = "lib/beta";
        d.skills = {a, b};
        d.skipped.push_back(SkippedSkill{"lib/bad/SKILL.md", SkipReason::invalid, "lib/bad/SKILL.md: broken"});
        return d;
    }
    LoadedSkill load(std::string_view name) override {
        ++loads;
        LoadedSkill s;
        s.manifest.name = std::string(name);
        s.instructions = "Instructions of " + std::string(name);
        return s;
    }
    std::atomic<int> discoveries{0};
    std::atomic<int> loads{0};
};

}  // namespace

TEST_CASE("SkillCatalog exposes the discovered manifests", "[catalog]") {
    auto loader = std::make_shared<CountingLoader>();
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    CHECK(loader->discoveries == 1);
    CHECK(catalog->size() == 2);
    CHECK_FALSE(catalog->empty());
    CHECK(catalog->names() == std::vector<std::string>{"alpha", "beta"});
    CHECK(catalog->has("alpha"));
    CHECK_FALSE(catalog->has("gamma"));
    REQUIRE(catalog->get("beta") != nullptr);
    CHECK(catalog->get("beta")->root == "lib/beta");
    CHECK(catalog->get("gamma") == nullptr);
    REQUIRE(catalog->skipped().size() == 1);
    CHECK(catalog->skipped()[0].reason == SkipReason::invalid);
    CHECK(catalog->loader() == loader);

    std::vector<std::string> iterated;
    for (const SkillManifest& m : *catalog) iterated.push_back(m.name);
    CHECK(iterated == catalog->names());

    CHECK(catalog->load("alpha").instructions == "Instructions of alpha");
    CHECK(loader->loads == 1);
    CHECK_THROWS_AS(catalog->load("gamma"), NotFoundError);
    CHECK(loader->loads == 1);  // an unknown name never reaches the loader
    CHECK(loader->discoveries == 1);
}

TEST_CASE("SkillCatalog compares names after NFKC", "[catalog]") {
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("lib/cafe/SKILL.md", skill_md("caf\xC3\xA9", "Composed e-acute."));
    auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem});
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    // "cafe" + U+0301 (combining acute) is the same name after normalization.
    CHECK(catalog->has("cafe\xCC\x81"));
    // Fullwidth letters fold to ASCII under NFKC.
    mem->add_file("lib/wide/SKILL.md", skill_md("wide", "Plain."));
    catalog = discover_skill_catalog(loader);
    CHECK(catalog->has("\xEF\xBD\x97\xEF\xBD\x89\xEF\xBD\x84\xEF\xBD\x85"));  // "ｗｉｄｅ"
    CHECK(catalog->load("\xEF\xBD\x97\xEF\xBD\x89\xEF\xBD\x84\xEF\xBD\x85").manifest.name == "wide");
}

TEST_CASE("a catalog over the file-system loader and the fixture library", "[catalog]") {
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {AGENTSKILLS_TEST_DATA_DIR "/library"}, .include_default_roots = false});
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    CHECK(catalog->names() == std::vector<std::string>{"code-review", "pdf-forms", "release-notes"});
    REQUIRE(catalog->skipped().size() == 1);
    CHECK_FALSE(catalog->diagnostics().empty());
    LoadedSkill pdf = catalog->load("pdf-forms");
    std::vector<std::string> paths;
    for (const auto& r : pdf.resources) paths.push_back(r.path);
    CHECK(paths == std::vector<std::string>{"scripts/fill.py", "assets/blank.txt", "NOTES.txt"});
    CHECK(pdf.instructions.rfind("Run scripts/fill.py", 0) == 0);
}

TEST_CASE("discover_skill_catalog refuses a null loader", "[catalog]") {
    CHECK_THROWS_AS(discover_skill_catalog(nullptr), ConfigurationError);
}

TEST_CASE("one catalog shared by threads", "[catalog][concurrency]") {
    auto mem = std::make_shared<MemorySkillReader>();
    for (int i = 0; i < 10; ++i) {
        const std::string n = "s" + std::to_string(i);
        mem->add_file("lib/" + n + "/SKILL.md", skill_md(n, "D", "Body " + n));
    }
    auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{.roots = {"lib"}, .reader = mem});
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 30; ++i) {
                const std::string n = "s" + std::to_string((t + i) % 10);
                if (!catalog->has(n) || catalog->load(n).instructions != "Body " + n) ++failures;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
}
