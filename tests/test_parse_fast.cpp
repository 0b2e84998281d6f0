// The frontmatter fast path (src/parse/yaml_fast.cpp) gives exactly what the yaml-cpp path gives:
// over every SKILL.md of the shared corpus and over edge cases of each construct it reads or
// declines, with the result of parse_skill_md compared field by field and the trees node by node.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <agentskills/base/names.hpp>
#include <agentskills/parse/parser.hpp>
#include <nlohmann/json.hpp>

#include "../src/parse/session.hpp"
#include "../src/parse/yaml.hpp"

using namespace agentskills;
namespace fs = std::filesystem;

namespace {

fs::path corpus_dir() {
    if (const char* env = std::getenv("AGENTSKILLS_CORPUS_DIR"); env && *env) return env;
    return fs::path(AGENTSKILLS_SOURCE_DIR).parent_path() / "shared" / "corpus";
}

ParseResult parse_with(std::string_view text, const ParseOptions& opt, bool fast) {
    detail::set_frontmatter_fast_path(fast);
    ParseResult r = parse_skill_md(text, opt);
    detail::set_frontmatter_fast_path(true);
    return r;
}

// Everything a caller can see of a ParseResult, as one JSON value.
nlohmann::json seen(const ParseResult& r) {
    nlohmann::json j;
    j["ok"] = r.ok();
    j["skip"] = r.skip_reason() ? static_cast<int>(*r.skip_reason()) : -1;
    j["instructions"] = r.instructions;
    auto ds = nlohmann::json::array();
    for (const Diagnostic& d : r.diagnostics) {
        ds.push_back({d.code, static_cast<int>(d.severity), d.path, d.line, d.message});
    }
    j["diagnostics"] = ds;
    if (const SkillManifest* m = r.manifest()) {
        j["manifest"] = *m;
        j["frontmatter"] = m->frontmatter->dump();
    }
    return j;
}

nlohmann::json tree(const detail::YNode& n) {
    auto items = nlohmann::json::array();
    for (const auto& c : n.items) items.push_back(tree(c));
    return {static_cast<int>(n.kind), n.text, n.line, n.column, n.offset, n.anchor, n.flags, items};
}

// The strict-YAML findings of the fast path's tree.
detail::StrictFindings findings_of(const detail::YNode& root) {
    detail::YamlTree t;
    t.root = root;
    return detail::strict_findings(t);
}

// The frontmatter between the first two `---` lines of `text`, when there is one.
std::optional<std::string> frontmatter_of(const std::string& text) {
    if (text.rfind("---\n", 0) != 0) return std::nullopt;
    const std::size_t end = text.find("\n---", 3);
    if (end == std::string::npos) return std::nullopt;
    return text.substr(4, end + 1 - 4);
}

// Compares both paths on `text` under several option sets; true when the fast path read the
// frontmatter (its tree is then compared with yaml-cpp's too).
bool same_both_ways(const std::string& text, const std::string& label) {
    INFO(label);
    for (int flags = 0; flags < 8; ++flags) {
        ParseOptions opt;
        opt.profile = (flags & 1) != 0 ? ValidationProfile::reference : ValidationProfile::standard;
        opt.name_policy = (flags & 2) != 0 ? NamePolicy::require_valid : NamePolicy::keep;
        opt.directory_name = (flags & 4) != 0 ? std::string_view("demo") : std::string_view();
        opt.path = "lib/demo/SKILL.md";
        INFO("options " << flags);
        CHECK(seen(parse_with(text, opt, true)) == seen(parse_with(text, opt, false)));
    }
    const std::optional<std::string> fm = frontmatter_of(text);
    // The parser hands the fast path valid UTF-8 without CR (a file that is not is refused or
    // converted first, and was compared above).
    if (!fm || !is_valid_utf8(*fm) || fm->find('\r') != std::string::npos) return false;
    const std::optional<detail::YNode> fast = detail::read_common_yaml(*fm);
    if (!fast) return false;
    detail::StrictFindings strict;
    detail::set_frontmatter_fast_path(false);
    const detail::YamlRead slow = detail::read_yaml(*fm, &strict);
    detail::set_frontmatter_fast_path(true);
    REQUIRE(slow.root);
    CHECK(!slow.problem);
    CHECK(strict.list == findings_of(*fast).list);
    CHECK(tree(*fast).dump() == tree(*slow.root).dump());
    return true;
}

std::string skill(const std::string& frontmatter, const std::string& body = "Body.\n") {
    return "---\n" + frontmatter + "---\n" + body;
}

}  // namespace

TEST_CASE("fast path: every SKILL.md of the shared corpus parses as through yaml-cpp", "[parser][fast-path]") {
    const fs::path corpus = corpus_dir();
    std::error_code ec;
    if (!fs::is_directory(corpus, ec)) {
        WARN("no shared corpus at " << corpus.string() << "; set AGENTSKILLS_CORPUS_DIR");
        return;
    }
    std::size_t files = 0;
    std::size_t fast = 0;
    for (const auto& e : fs::recursive_directory_iterator(corpus, fs::directory_options::skip_permission_denied)) {
        if (!e.is_regular_file() || e.path().filename() != "SKILL.md") continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        ++files;
        if (same_both_ways(ss.str(), e.path().string())) ++fast;
    }
    INFO(fast << " of " << files << " frontmatters read by the fast path");
    CHECK(files > 0);
    // Nearly all of the corpus has the common shape (1,520 of 1,544 files when this was written;
    // the rest have anchors, flow mappings, multi-line plain scalars and the like): the fast path
    // must actually be taken.
    CHECK(fast * 10 > files * 9);
}

TEST_CASE("frontmatter_json = false changes nothing but the frontmatter JSON", "[parser]") {
    const fs::path corpus = corpus_dir();
    std::error_code ec;
    if (!fs::is_directory(corpus, ec)) {
        WARN("no shared corpus at " << corpus.string() << "; set AGENTSKILLS_CORPUS_DIR");
        return;
    }
    std::size_t kept = 0;
    for (const auto& e : fs::recursive_directory_iterator(corpus, fs::directory_options::skip_permission_denied)) {
        if (!e.is_regular_file() || e.path().filename() != "SKILL.md") continue;
        std::ifstream in(e.path(), std::ios::binary);
        std::stringstream ss;
        ss << in.rdbuf();
        INFO(e.path().string());
        for (const bool fast : {true, false}) {
            ParseOptions opt;
            opt.path = "lib/demo/SKILL.md";
            const ParseResult with = parse_with(ss.str(), opt, fast);
            opt.frontmatter_json = false;
            const ParseResult without = parse_with(ss.str(), opt, fast);
            nlohmann::json a = seen(with);
            nlohmann::json b = seen(without);
            if (without.manifest() != nullptr) {
                ++kept;
                CHECK(without.manifest()->frontmatter->dump() == "{}");
                CHECK(with.manifest()->frontmatter->is_object());
                a.erase("frontmatter");
                b.erase("frontmatter");
                a["manifest"].erase("frontmatter");
                b["manifest"].erase("frontmatter");
            }
            CHECK(a == b);
        }
    }
    CHECK(kept > 1000);
}

TEST_CASE("fast path: constructs it reads give the yaml-cpp tree", "[parser][fast-path]") {
    const std::vector<std::string> read = {
        "name: demo\ndescription: Does things.\n",
        "name: demo\ndescription: 'It''s quoted: yes'\n",
        "name: demo\ndescription: \"Double \\\"quoted\\\" \\\\ \\/ \\n \\t\"\n",
        "name: demo\ndescription: plain with # a comment\nlicense: MIT # trailing\n",
        "name: demo\ndescription: a:b, c]d} e[f {g\n",
        "name: demo\ndescription: x\nmetadata:\n  version: \"1.0\"\n  author: someone\n",
        "name: demo\ndescription: x\nmetadata:\n  list:\n    - a\n    - 'b'\n  k: v\n",
        "name: demo\ndescription: x\nallowed-tools:\n  - Read\n  - Bash(git:*)\n",
        "name: demo\ndescription: x\ntags:\n- one\n- two\nlicense: MIT\n",
        "# a comment\nname: demo\n\ndescription: x\n# another\n",
        "name: demo\ndescription: x\nlicense: null\nversion: ~\ncategory: NULL\n",
        "name: demo\ndescription: x\nname: other\n",
        "name: demo\ndescription: x\ndisable-model-invocation: True\nuser-invocable: false\n",
        "name: demo\ndescription: caf\xC3\xA9 \xE2\x80\x94 \xF0\x9F\x98\x80\n",
        "name: demo\ndescription: x   \n",
        "name: demo\ndescription: x\nmetadata:\n  a:\n    b: c\n",
        "name: demo\ndescription: ''\n",
        "name: demo\ndescription: \"\"\n",
        "name: demo\ndescription: x\ntools: Read, Write\n",
        // One-line flow sequences of plain words (the strict profile's finding compared too).
        "name: demo\ndescription: x\ntags: [a, b]\n",
        "name: demo\ndescription: x\ntags: []\nmcp: [ ]\naliases: [one]\n",
        "name: demo\ndescription: x\nallowed-tools: [Read, Grep,Glob , web-search, a/b.c, f(x), two words]  # c\n",
        "name: demo\ndescription: x\nmetadata:\n  tags: [x, y]\n  k: v\n",
        // Block scalars of the plain form: literal and folded, clipped and stripped.
        "name: demo\ndescription: |\n  block\n",
        "name: demo\ndescription: >-\n  folded\n",
        "name: demo\ndescription: >\n  one\n  two\n\n  three\n\n\n  four\nlicense: MIT\n",
        "name: demo\ndescription: |-\n  one\n  two\n\n  three\n\n\n  four\nlicense: MIT\n",
        "name: demo\ndescription: |\n  one\n  two\n\n\nlicense: MIT\n",
        "name: demo\ndescription: >-\n  one\n  two\n\n",
        "name: demo\ndescription: >\n    deep: no key # no comment\n    - no item\nlicense: MIT\n",
        "name: demo\ndescription: |\n  # not a comment\n  'not quoted' [x] {y} &z *w !v\n# a comment\nlicense: MIT\n",
        "name: demo\nmetadata:\n  notes: >-\n    nested\n    folded\n  k: v\ndescription: x\n",
        "name: demo\ndescription: >\n  caf\xC3\xA9 \xE2\x80\x94\n  null\n",
        "name: demo\ndescription: |\n  null\n",
    };
    for (const std::string& fm : read) {
        INFO(fm);
        CHECK(same_both_ways(skill(fm), fm));
    }
}

TEST_CASE("fast path: a frontmatter text without a final line break reads as through yaml-cpp", "[parser][fast-path]") {
    // The parser hands over the lines before the closing `---`, so a real frontmatter ends with
    // a line break; the reader must not rely on it (the differential fuzz target feeds any text).
    const std::vector<std::string> texts = {
        "on: >\n  folded line one\n  line two",
        "on: |\n  literal\n  two",
        "on: >-\n  stripped",
        "on: |\n  a\n\n  b",
        "on: [a, b]",
        "on: x",
    };
    for (const std::string& fm : texts) {
        INFO(fm);
        const std::optional<detail::YNode> fast = detail::read_common_yaml(fm);
        REQUIRE(fast.has_value());
        detail::StrictFindings strict;
        detail::set_frontmatter_fast_path(false);
        const detail::YamlRead slow = detail::read_yaml(fm, &strict);
        detail::set_frontmatter_fast_path(true);
        REQUIRE(slow.root);
        CHECK(strict.list == findings_of(*fast).list);
        CHECK(tree(*fast).dump() == tree(*slow.root).dump());
    }
}

TEST_CASE("fast path: constructs it declines parse as through yaml-cpp", "[parser][fast-path]") {
    const std::vector<std::string> declined = {
        "",
        "# only a comment\n",
        "name: demo\ndescription: first line\n  second line\n",
        // Flow sequences past plain words.
        "name: demo\ndescription: x\ntags: [a, b,]\n",
        "name: demo\ndescription: x\ntags: [a,, b]\n",
        "name: demo\ndescription: x\ntags: [a\n  , b]\n",
        "name: demo\ndescription: x\ntags: ['a', \"b\"]\n",
        "name: demo\ndescription: x\ntags: [a: b]\n",
        "name: demo\ndescription: x\ntags: [Bash(git:*)]\n",
        "name: demo\ndescription: x\ntags: [[a]]\n",
        "name: demo\ndescription: x\ntags: [a, {b: c}]\n",
        "name: demo\ndescription: x\ntags: [null, b]\n",
        "name: demo\ndescription: x\ntags: [~]\n",
        "name: demo\ndescription: x\ntags: [a  b]\n",
        "name: demo\ndescription: x\ntags: [a] b\n",
        "name: demo\ndescription: x\ntags: [a]#c\n",
        "name: demo\ndescription: x\ntags: [-a]\n",
        "name: demo\ndescription: x\ntags: [*a]\n",
        "name: demo\ndescription: x\ntags:\n  - [a]\n",
        // Block scalars past the plain form.
        "name: demo\ndescription: |+\n  kept\n\n",
        "name: demo\ndescription: >2\n   indented\n",
        "name: demo\ndescription: |-2\n  x\n",
        "name: demo\ndescription: | # comment\n  x\n",
        "name: demo\ndescription: |  \n  x\n",
        "name: demo\ndescription: >\n\n  after an empty line\n",
        "name: demo\ndescription: >\n  one\n    more indented\n  two\n",
        "name: demo\ndescription: >\n  one\n  \n  two\n",
        "name: demo\ndescription: >\n  trailing space \n",
        "name: demo\ndescription: >\n    four\n  two\n",
        "name: demo\ndescription: >\nlicense: MIT\n",
        "name: demo\ndescription: >\n",
        "name: demo\ndescription: >x\n  y\n",
        "name: demo\ntags:\n  - |\n    x\ndescription: x\n",
        "name: demo\ndescription: &a x\nlicense: *a\n",
        "name: demo\ndescription: !!str x\n",
        "name: demo\ndescription: x\nmetadata: {a: b}\n",
        "name: demo\ndescription: 'open\n  quote'\n",
        "name: demo\ndescription: \"open\n  quote\"\n",
        "name: demo\ndescription: \"\\x41\\u00e9\"\n",
        "name: demo\ndescription:\tx\n",
        "name: demo\ndescription: x\nlicense:\n",
        "name: demo\ndescription: x\nmetadata:\n",
        "name: demo\ndescription: x\n  # indented comment\n",
        "name: demo\ndescription: Use when: asked\n",
        "name: demo\ndescription: x:\n",
        "name: demo\ndescription: - x\n",
        "name: demo\ndescription: 'x' y\n",
        "name: demo\ndescription: \"x\"y\n",
        "name: demo\ndescription: x\n- item\n",
        "  name: demo\n  description: x\n",
        "name : demo\ndescription: x\n",
        "\"name\": demo\ndescription: x\n",
        "null: demo\ndescription: x\n",
        "name: demo\ndescription: x\nmetadata:\n  a: b\n   c: d\n",
        "name: demo\ndescription: x\nmetadata:\n    a: b\n  c: d\n",
        "name: demo\ndescription: x\ntags:\n  - a\n  - b: c\n",
        "name: demo\ndescription: x\ntags:\n  -\n  - b\n",
        "name: demo\ndescription: x\ntags:\n  - - a\n",
        "name: demo\ndescription: x \xC2\x85 y\n",
        "name: demo\ndescription: x \xE2\x80\xA8 y\n",
        "name: demo\ndescription: \xEF\xBB\xBFx\n",
        "%YAML 1.2\nname: demo\ndescription: x\n",
        "? name\n: demo\ndescription: x\n",
        "name: demo\ndescription: x\n...\n",
        "name: demo\ndescription: @x\n",
        "name: demo\ndescription: `x`\n",
        "name: demo\ndescription: x\x01y\n",
        "name: demo\ndescription: x\nlicense: # nothing\n",
    };
    for (const std::string& fm : declined) {
        INFO(fm);
        CHECK_FALSE(detail::read_common_yaml(fm).has_value());
        CHECK_FALSE(same_both_ways(skill(fm), fm));
    }
    // Whole files around the frontmatter: CRLF, a byte-order mark, no closing line, a body only.
    for (const std::string& text : {std::string("---\r\nname: demo\r\ndescription: x\r\n---\r\nBody\r\n"),
                                    std::string("\xEF\xBB\xBF---\nname: demo\ndescription: x\n---\nBody\n"),
                                    std::string("---\nname: demo\ndescription: x\n"), std::string("Body only\n"),
                                    std::string("---\nname: demo\ndescription: x\n---\n")}) {
        (void)same_both_ways(text, text);
    }
}

TEST_CASE("fast path: the JSON budget applies to the trees it builds", "[parser][fast-path]") {
    // One long scalar past SKILL_MAX_FRONTMATTER_JSON_BYTES: the same refusal both ways.
    std::string fm =
        "name: demo\ndescription: x\nnotes: " + std::string(SKILL_MAX_FRONTMATTER_JSON_BYTES + 10, 'a') + "\n";
    REQUIRE(detail::read_common_yaml(fm).has_value());
    ParseOptions opt;
    opt.max_bytes = 0;
    opt.max_lines = 0;
    const ParseResult fast = parse_with(skill(fm), opt, true);
    CHECK(seen(fast) == seen(parse_with(skill(fm), opt, false)));
    REQUIRE_FALSE(fast.ok());
    REQUIRE(!fast.diagnostics.empty());
    CHECK(fast.diagnostics.front().code == "yaml-too-complex");
}
