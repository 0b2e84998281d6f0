// Tests of diagnostic_codes.hpp: every code, documented and used.
// One file per public header; the hostile cases are sections of it.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include <agentskills/base/diagnostic_codes.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/parse/parser.hpp>
#include <agentskills/storage/reader.hpp>

// =======================================================================================
// The registry of diagnostic codes: every constant is documented in docs/diagnostics.md, every

namespace diagnostic_codes_tests {

using namespace agentskills;
namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool is_known(std::string_view code) {
    return std::find(codes::all.begin(), codes::all.end(), code) != codes::all.end();
}

bool is_kebab_case(std::string_view code) {
    if (code.empty() || code.front() == '-' || code.back() == '-') return false;
    for (std::size_t i = 0; i < code.size(); ++i) {
        const char c = code[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        if (!ok || (c == '-' && code[i + 1] == '-')) return false;
    }
    return true;
}

// Every code emitted by parsing `text` under each profile and name policy, with and without a
// directory name.
void collect_parse_codes(std::string_view text, std::set<std::string>& out) {
    for (const auto profile : {ValidationProfile::standard, ValidationProfile::reference}) {
        for (const auto policy : {NamePolicy::keep, NamePolicy::require_valid}) {
            for (const std::string_view dir : {std::string_view(), std::string_view("demo")}) {
                ParseOptions opt;
                opt.profile = profile;
                opt.name_policy = policy;
                opt.directory_name = dir;
                opt.path = "lib/demo/SKILL.md";
                for (const Diagnostic& d : parse_skill_md(text, opt).diagnostics) out.insert(d.code);
            }
        }
    }
}

std::string repeat(std::string_view s, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// Hostile and broken inputs that between them reach every parser finding.
std::vector<std::string> hostile_inputs() {
    using namespace std::string_literals;
    const std::string head = "---\nname: demo\ndescription: d\n";
    std::string many_tools;
    for (int i = 0; i < 1100; ++i) many_tools += "t" + std::to_string(i) + ",";
    std::vector<std::string> v = {
        "",
        "no frontmatter\n",
        "---\nname: demo\n",
        "---\n---\n",
        "---\n- a\n---\n",
        "\xEF\xBB\xBF---\nname: demo\ndescription: d\n---\n",
        "---\nname: demo\ndescription: \xFF\n---\n",
        "---\nname: demo\ndescription: a\0b\n---\n"s,
        "---\nname: [a]\ndescription: [b]\n---\n",
        "---\nname: \"\\u200b\"\ndescription: \"\\u3000\"\n---\n",
        "---\ndescription: d\n---\n",
        "---\nname: demo\n---\n",
        "---\nname: -Bad--Name_" + std::string(70, 'x') + "-\ndescription: d\n---\n",
        head + "description: \"\\e[2J\"\n---\n",
        head + "description: " + std::string(1100, 'x') + "\ncompatibility: " + std::string(600, 'y') + "\n---\n",
        head + "compatibility: [a]\nlicense: [b]\nmetadata: [c]\nversion: [d]\ntools: {a: b}\ntags: [[x]]\n---\n",
        head + "disable-model-invocation: maybe\nuser-invocable: 2\n---\n",
        head + "name: again\nextra: &a [x]\ncopy: *a\ntagged: !t x\n---\n",
        head + "tools: " + many_tools + "\n---\n",
        head + "x: [unclosed\n---\n",
        head + "...\nmore: 1\n---\n",
        head + "x: " + std::string(5000, '[') + "\n---\n",
        head + "x: [" + repeat("a,", 100001) + "]\n---\n",
        head +
            "metadata:\n  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n  f: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n---\n",
        head + repeat("k: v\n", 600) + "---\n",
        std::string(SKILL_MAX_FILE_BYTES + 1, 'x'),
    };
    return v;
}

}  // namespace

TEST_CASE("every code is kebab-case and listed once", "[diagnostics]") {
    std::set<std::string_view> seen;
    for (const std::string_view code : codes::all) {
        INFO(code);
        CHECK(is_kebab_case(code));
        CHECK(seen.insert(code).second);
    }
    CHECK_FALSE(is_kebab_case("duplicate_name"));
    CHECK_FALSE(is_kebab_case("Name-Blank"));
    CHECK_FALSE(is_kebab_case("name--blank"));
}

TEST_CASE("docs/diagnostics.md documents every code", "[diagnostics]") {
    const std::string doc = read_text(fs::path(AGENTSKILLS_SOURCE_DIR) / "docs" / "diagnostics.md");
    REQUIRE_FALSE(doc.empty());
    for (const std::string_view code : codes::all) {
        INFO(code);
        // A row of a table: "| `code` |".
        CHECK(doc.find("| `" + std::string(code) + "` |") != std::string::npos);
    }
}

TEST_CASE("every code the parser and the loader emit is in codes::all", "[diagnostics]") {
    std::set<std::string> emitted;
    std::size_t files = 0;
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(AGENTSKILLS_TEST_DATA_DIR))) {
        if (entry.path().filename() != "SKILL.md") continue;
        collect_parse_codes(read_text(entry.path()), emitted);
        ++files;
    }
    CHECK(files >= 8);
    const fs::path seeds = fs::path(AGENTSKILLS_SOURCE_DIR) / "fuzz" / "seeds" / "parser";
    for (const auto& entry : fs::directory_iterator(seeds)) {
        const std::string seed = read_text(entry.path());
        if (!seed.empty()) collect_parse_codes(std::string_view(seed).substr(1), emitted);  // byte 0: fuzz options
        ++files;
    }
    for (const std::string& text : hostile_inputs()) collect_parse_codes(text, emitted);

    // Discovery over the test libraries, a missing root, a file, a skill used as a root, and a
    // library whose skills share a name.
    const fs::path data(AGENTSKILLS_TEST_DATA_DIR);
    auto mem = std::make_shared<MemorySkillReader>();
    mem->add_file("dup/a/SKILL.md", "---\nname: same\ndescription: d\n---\n");
    mem->add_file("dup/b/SKILL.md", "---\nname: same\ndescription: other\n---\n");
    mem->add_file("dup/c/SKILL.md", "---\nname: bad\ndescription: d\nuser-invocable: 2\n---\n");
    mem->add_file("pkg/SKILL.md", "---\nname: pkg\ndescription: d\n---\n");
    mem->add_file("file", "x");
    for (const NamePolicy policy : {NamePolicy::keep, NamePolicy::require_valid}) {
        FilesystemLoaderOptions local;
        local.roots = {(data / "library").string(),
                       (data / "validate").string(),
                       (data / "host").string(),
                       (data / "no-such-root").string(),
                       (data / "validate" / "good-skill").string(),
                       (data / "library" / "README.md").string()};
        local.include_default_roots = false;
        local.name_policy = policy;
        FilesystemSkillLoader loader(local);
        for (const Diagnostic& d : loader.discover().diagnostics) emitted.insert(d.code);

        FilesystemLoaderOptions memory;
        memory.roots = {"dup", "dup", "pkg", "file", "missing"};
        memory.reader = mem;
        memory.name_policy = policy;
        FilesystemSkillLoader in_memory(memory);
        for (const Diagnostic& d : in_memory.discover().diagnostics) emitted.insert(d.code);
    }

    INFO(files << " files");
    CHECK(emitted.size() >= 30);  // the inputs above do reach most findings
    for (const std::string& code : emitted) {
        INFO(code);
        CHECK(is_known(code));
    }
}

}  // namespace diagnostic_codes_tests
