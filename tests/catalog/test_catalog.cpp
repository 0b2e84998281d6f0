// Tests of catalog.hpp: SkillCatalog over a loader, and discover_skill_catalog.
#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/catalog.hpp"
#include "agentskills/compat/substrate.hpp"

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

#if defined(AGENTSKILLS_HAVE_MCP)
#include "agentskills/mcp/server.hpp"
#endif

// =======================================================================================
// Tests of catalog.hpp: SkillCatalog over a loader, and discover_skill_catalog.

namespace catalog_tests {

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

TEST_CASE("a copy of a catalog finds its own manifests; a catalog moved from finds none", "[catalog]") {
    // The name index is built at the first lookup and shared by copies (the same skills in the
    // same places); each catalog answers with its own manifests.
    auto loader = std::make_shared<CountingLoader>();
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    SkillCatalog copy = *catalog;  // before any lookup
    CHECK(copy.find("beta") == &copy.skills()[1]);
    CHECK(catalog->find("/beta") == &catalog->skills()[1]);
    CHECK(catalog->find("gamma") == nullptr);
    SkillCatalog moved = std::move(copy);
    CHECK(moved.find("alpha") == &moved.skills()[0]);
    CHECK(copy.find("alpha") == nullptr);  // NOLINT(bugprone-use-after-move): what it does then
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

// ---------------------------------------------------------------------------------------
// discover_shared: one copy of each manifest for the cache and the catalog

namespace {

std::vector<std::string> descriptions_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name + "=" + m.description);
    return out;
}

}  // namespace

TEST_CASE("discover_shared: the same result as discover(), whichever path it takes", "[catalog][shared]") {
    agentskills_test::TempDir tmp;
    for (const char* n : {"alpha", "beta", "gamma"})
        tmp.write(std::string("lib/") + n + "/SKILL.md", skill_md(n, "D1", "Body"));
    tmp.write("lib/broken/SKILL.md", "---\nname: broken\n---\n");  // skipped, with a diagnostic
    std::vector<Diagnostic> seen;
    auto loader = std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{
        .roots = {tmp.path("lib")}, .include_default_roots = false, .on_diagnostic = [&seen](const Diagnostic& d) {
            seen.push_back(d);
        }});
    const std::vector<std::string> want = {"alpha=D1", "beta=D1", "gamma=D1"};

    // The first discovery parses every file: its manifests move into the result.
    std::shared_ptr<const Discovery> first = loader->discover_shared();
    CHECK(descriptions_of(*first) == want);
    REQUIRE(first->skipped.size() == 1);
    CHECK(first->skipped[0].path == tmp.path("lib/broken/SKILL.md"));
    CHECK(first->diagnostics.size() == seen.size());  // the callback saw each diagnostic once
    CHECK(first->skills[0].skill_file == tmp.path("lib/alpha/SKILL.md"));
    CHECK(first->skills[1].root == tmp.path("lib/beta"));

    // The cache serves from those manifests: load(), and a second discovery, by value and shared.
    LoadedSkill beta = loader->load("beta");
    CHECK(beta.manifest.description == "D1");
    CHECK(beta.manifest.skill_file == tmp.path("lib/beta/SKILL.md"));
    CHECK(beta.instructions == "Body");
    CHECK(descriptions_of(loader->discover()) == want);
    std::shared_ptr<const Discovery> again = loader->discover_shared();
    CHECK(descriptions_of(*again) == want);
    CHECK(again != first);
    // Each result is its own: no element is shared between two results.
    CHECK(&again->skills[0] != &first->skills[0]);

    // An edit: the next result has it; the earlier ones are as they were.
    tmp.write("lib/beta/SKILL.md", skill_md("beta", "D2, described again", "New body"));
    std::shared_ptr<const Discovery> edited = loader->discover_shared();
    CHECK(descriptions_of(*edited) == std::vector<std::string>{"alpha=D1", "beta=D2, described again", "gamma=D1"});
    CHECK(descriptions_of(*first) == want);
    CHECK(descriptions_of(*again) == want);
    CHECK(loader->load("beta").instructions == "New body");

    // A result outlives its loader, and the loader outlives its results.
    std::weak_ptr<FilesystemSkillLoader> weak = loader;
    first.reset();
    again.reset();
    CHECK(loader->load("alpha").manifest.description == "D1");  // from the first result's manifests
    loader.reset();
    CHECK(weak.expired());
    CHECK(descriptions_of(*edited) == std::vector<std::string>{"alpha=D1", "beta=D2, described again", "gamma=D1"});
}

TEST_CASE("discover_shared: a catalog, and a result admission edits", "[catalog][shared]") {
    agentskills_test::TempDir tmp;
    for (const char* n : {"alpha", "beta"}) tmp.write(std::string("lib/") + n + "/SKILL.md", skill_md(n, "D", "Body"));
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {tmp.path("lib")},
                                .include_default_roots = false,
                                .overrides = {{.name = "beta", .path = "", .mode = SkillMode::user_invocable_only}}});
    SkillCatalogPtr catalog = discover_skill_catalog(loader);
    REQUIRE(catalog->names() == std::vector<std::string>{"alpha", "beta"});
    CHECK(catalog->get("beta")->mode == SkillMode::user_invocable_only);
    CHECK(catalog->get("alpha")->mode == SkillMode::on);
    // The override changed the result, not what the loader keeps for the next one.
    std::shared_ptr<const Discovery> again = loader->discover_shared();
    CHECK(again->skills[1].mode == SkillMode::user_invocable_only);
    CHECK(catalog->load("beta").manifest.mode == SkillMode::user_invocable_only);

    // A catalog copied or moved keeps the skills; the one moved from is empty.
    SkillCatalog copy = *catalog;
    SkillCatalog moved = std::move(copy);
    CHECK(moved.names() == std::vector<std::string>{"alpha", "beta"});
    CHECK(copy.empty());  // NOLINT(bugprone-use-after-move): what it does then
    CHECK(copy.skills().empty());
    CHECK(SkillCatalog(loader, std::shared_ptr<const Discovery>()).empty());
}

TEST_CASE("discover_shared from several threads while files change", "[catalog][shared][concurrency]") {
    agentskills_test::TempDir tmp;
    constexpr int skills = 24;
    for (int i = 0; i < skills; ++i) {
        const std::string n = "s" + std::to_string(i);
        tmp.write("lib/" + n + "/SKILL.md", skill_md(n, "D" + std::to_string(i), "Body " + n));
    }
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {tmp.path("lib")}, .include_default_roots = false, .threads = 2});
    // Every result must be whole and consistent: each skill's description names it.
    const auto consistent = [](const Discovery& d) {
        if (d.skills.size() != skills) return false;
        for (const auto& m : d.skills) {
            if (m.description.rfind("D" + m.name.substr(1), 0) != 0) return false;
        }
        return true;
    };
    std::atomic<int> failures{0};
    std::vector<std::shared_ptr<const Discovery>> kept(6);
    std::vector<std::thread> threads;
    for (int t = 0; t < 6; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 8; ++round) {
                try {
                    if (t % 3 == 0) {
                        if (!consistent(loader->discover())) ++failures;
                    } else if (t % 3 == 1) {
                        kept[static_cast<std::size_t>(t)] = loader->discover_shared();
                        if (!consistent(*kept[static_cast<std::size_t>(t)])) ++failures;
                    } else {
                        const std::string n = "s" + std::to_string((t + round) % skills);
                        if (loader->load(n).instructions != "Body " + n) ++failures;
                    }
                } catch (...) {
                    ++failures;
                }
            }
        });
    }
    // Edits meanwhile, each a whole new file renamed over the old one: descriptions grow, names stay.
    for (int i = 0; i < 40; ++i) {
        const std::string n = "s" + std::to_string(i % skills);
        tmp.write("stage/SKILL.md",
                  skill_md(n, "D" + std::to_string(i % skills) + " v" + std::to_string(i), "Body " + n));
        std::filesystem::rename(tmp.path("stage/SKILL.md"), tmp.path("lib/" + n + "/SKILL.md"));
    }
    for (auto& th : threads) th.join();
    CHECK(failures.load() == 0);
    for (const auto& d : kept) {
        if (d) CHECK(consistent(*d));  // still whole after the other discoveries
    }
    CHECK(consistent(*loader->discover_shared()));

    // First discoveries at the same time on a new loader: each may share, none may see another's
    // manifests move.
    for (int round = 0; round < 10; ++round) {
        auto fresh = std::make_shared<FilesystemSkillLoader>(
            FilesystemLoaderOptions{.roots = {tmp.path("lib")}, .include_default_roots = false, .threads = 1});
        std::atomic<int> ready{0};
        std::vector<std::shared_ptr<const Discovery>> results(4);
        std::vector<std::thread> firsts;
        for (int t = 0; t < 4; ++t) {
            firsts.emplace_back([&, t] {
                ++ready;
                while (ready.load() < 4) std::this_thread::yield();
                try {
                    results[static_cast<std::size_t>(t)] =
                        t % 2 == 0 ? fresh->discover_shared() : std::make_shared<const Discovery>(fresh->discover());
                    if (fresh->load("s5").instructions != "Body s5") ++failures;
                } catch (...) {
                    ++failures;
                }
            });
        }
        for (auto& th : firsts) th.join();
        for (const auto& d : results) {
            if (!d || !consistent(*d)) ++failures;
        }
        CHECK(consistent(*fresh->discover_shared()));
    }
    CHECK(failures.load() == 0);
}

// ---------------------------------------------------------------------------------------
// The one name rule, at every entry point

TEST_CASE("SkillNameIndex: a leading '/', NFKC and aliases; names win over aliases", "[catalog][names]") {
    std::vector<SkillManifest> skills(3);
    skills[0].name = "alpha";
    skills[0].aliases = {"al", "beta"};
    skills[1].name = "beta";
    skills[2].name = "gamma";
    skills[2].aliases = {"al", "g"};
    const SkillNameIndex index(skills);
    CHECK(index.find("alpha") == std::optional<std::size_t>(0));
    CHECK(index.find("/alpha") == std::optional<std::size_t>(0));
    CHECK(index.find("\xEF\xBD\x81lpha") == std::optional<std::size_t>(0));  // FULLWIDTH a, NFKC "alpha"
    CHECK(index.find("al") == std::optional<std::size_t>(0));                // the first skill with the alias
    CHECK(index.find("beta") == std::optional<std::size_t>(1));              // a name wins over an alias
    CHECK(index.find("/g") == std::optional<std::size_t>(2));
    CHECK_FALSE(index.find("ALPHA"));  // NFKC does not fold case
    CHECK_FALSE(index.find("//alpha"));
    CHECK_FALSE(index.find(""));
    CHECK_FALSE(index.find("/"));
    CHECK_FALSE(index.find(std::string(SKILL_LOOKUP_MAX_BYTES + 1, 'a')));
}

#if defined(AGENTSKILLS_HAVE_MCP)
TEST_CASE("one name rule: activate, render, the MCP tool and SkillManager agree", "[catalog][names][cli][mcp]") {
    agentskills_test::TempDir dir;
    dir.write("lib/alpha/SKILL.md", "---\nname: alpha\ndescription: The first.\naliases: [al]\n---\nDo alpha.\n");
    dir.write("lib/beta/SKILL.md", skill_md("beta", "The second."));
    const std::string lib = dir.path("lib");
    struct Case {
        std::string name;
        bool found;
    };
    const std::vector<Case> cases = {{"alpha", true},   {"al", true},       {"/alpha", true},
                                     {"/al", true},     {"ALPHA", false},   {"\xEF\xBD\x81lpha", true},
                                     {"alpha ", false}, {"//alpha", false}, {"gamma", false}};
    auto loader = std::make_shared<FilesystemSkillLoader>(
        FilesystemLoaderOptions{.roots = {lib}, .include_default_roots = false});
    mcp::Server server(discover_skill_catalog(loader));
    for (const Case& c : cases) {
        CAPTURE(c.name);
        const std::string content = "<skill_content name=\"alpha\">";
        // agentskills activate
        const auto activate = agentskills::test::run_cli({"activate", "--root", lib, c.name});
        CHECK((activate.status == 0) == c.found);  // an unknown name: its text, and status 1
        CHECK((activate.out.rfind(content, 0) == 0) == c.found);
        // agentskills render
        const auto render = agentskills::test::run_cli({"render", "--root", lib, c.name});
        CHECK((render.status == 0) == c.found);
        CHECK((render.out.rfind(content, 0) == 0) == c.found);
        // the MCP server's activation tool, in a session of its own
        auto session = server.open_session();
        const nlohmann::json call = {{"jsonrpc", "2.0"},
                                     {"id", 1},
                                     {"method", "tools/call"},
                                     {"params",
                                      {{"name", "activate_skill"},
                                       {"arguments", {{"name", c.name}}},
                                       {"_meta",
                                        {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                                         {"io.modelcontextprotocol/clientCapabilities", nlohmann::json::object()}}}}}};
        const mcp::Exchange ex = server.handle(call.dump(), *session);
        REQUIRE(ex.response);
        const std::string text = nlohmann::json::parse(*ex.response).at("result").at("content").at(0).at("text");
        CHECK((text.rfind(content, 0) == 0) == c.found);
        // SkillManager
        SkillManager manager(SkillManagerOptions{.loader = loader});
        CHECK((manager.activate(c.name) != nullptr) == c.found);
    }
}
#endif

}  // namespace catalog_tests
