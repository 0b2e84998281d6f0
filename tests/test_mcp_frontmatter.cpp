// The MCP server's frontmatter -> JSON conversion (YAML 1.2 core schema) and its helpers.
#ifdef AGENTSKILLS_HAVE_MCP

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/base/text.hpp>

#include "../src/mcp/shared/internal.hpp"

using nlohmann::json;
namespace d = agentskills::mcp::detail;

namespace {
json fm(const std::string& yaml) { return d::frontmatter_json("---\n" + yaml + "---\nBody\n"); }
}  // namespace

TEST_CASE("mcp frontmatter: plain scalars are typed by the YAML 1.2 core schema", "[mcp][frontmatter]") {
    const json j =
        fm("name: a\n"
           "description: d\n"
           "version: 1.0\n"
           "count: 42\n"
           "neg: -7\n"
           "octal: 0o17\n"
           "hex: 0x1F\n"
           "exp: 1e3\n"
           "t: True\n"
           "f: FALSE\n"
           "n1: ~\n"
           "n2: null\n"
           "n3:\n"
           "yes_is_text: yes\n"
           "on_is_text: on\n"
           "leading_zero: 007\n"
           "date_is_text: 2024-01-02\n");
    CHECK(j.at("version") == json(1.0));
    CHECK(j.at("version").is_number_float());
    CHECK(j.at("count") == 42);
    CHECK(j.at("neg") == -7);
    CHECK(j.at("octal") == 15);
    CHECK(j.at("hex") == 31);
    CHECK(j.at("exp") == json(1000.0));
    CHECK(j.at("t") == true);
    CHECK(j.at("f") == false);
    CHECK(j.at("n1").is_null());
    CHECK(j.at("n2").is_null());
    CHECK(j.at("n3").is_null());
    CHECK(j.at("yes_is_text") == "yes");
    CHECK(j.at("on_is_text") == "on");
    CHECK(j.at("leading_zero") == 7);
    CHECK(j.at("date_is_text") == "2024-01-02");
}

TEST_CASE("mcp frontmatter: quoted, block and tagged scalars", "[mcp][frontmatter]") {
    const json j =
        fm("name: a\n"
           "description: \"1.0\"\n"
           "single: '42'\n"
           "block: |\n  line one\n  line two\n"
           "folded: >-\n  one\n  two\n"
           "tagged: !!str 12\n"
           "tagged_int: !!int \"12\"\n"
           "metadata:\n  version: \"2.1\"\n  list: [1, two, 3.5]\n");
    CHECK(j.at("description") == "1.0");
    CHECK(j.at("single") == "42");
    CHECK(j.at("block") == "line one\nline two\n");
    CHECK(j.at("folded") == "one two");
    CHECK(j.at("tagged") == "12");
    CHECK(j.at("tagged_int") == 12);
    CHECK(j.at("metadata") == json::parse(R"({"version":"2.1","list":[1,"two",3.5]})"));
}

TEST_CASE("mcp frontmatter: anchors and aliases are expanded; keys keep their text", "[mcp][frontmatter]") {
    const json j = fm("name: a\ndescription: d\nbase: &b {x: 1, y: [true]}\ncopy: *b\n1: one\n");
    CHECK(j.at("copy") == j.at("base"));
    CHECK(j.at("copy") == json::parse(R"({"x":1,"y":[true]})"));
    CHECK(j.at("1") == "one");
}

TEST_CASE("mcp frontmatter: what JSON cannot hold, or what is unbounded, is refused", "[mcp][frontmatter]") {
    CHECK_THROWS_WITH(fm("name: a\nx: .inf\n"), Catch::Contains("cannot be represented in JSON"));
    CHECK_THROWS_WITH(fm("name: a\nx: .NaN\n"), Catch::Contains("cannot be represented in JSON"));
    CHECK_THROWS_WITH(fm("name: a\nname: b\n"), Catch::Contains("appears twice"));
    CHECK_THROWS_WITH(fm("[a, b]: c\n"), Catch::Contains("mapping key must be a string scalar"));
    CHECK_THROWS_WITH(fm("- a\n- b\n"), Catch::Contains("not a mapping"));
    CHECK_THROWS_WITH(fm("a: [unclosed\n"), Catch::Contains("not valid YAML"));
    CHECK_THROWS_WITH(d::frontmatter_json("no frontmatter\n"), Catch::Contains("does not begin"));
    CHECK_THROWS_WITH(d::frontmatter_json("---\nname: a\n"), Catch::Contains("no closing"));
    // Exponential alias expansion stops at the node bound.
    std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    char prev = 'a';
    for (char c = 'b'; c <= 'j'; ++c) {
        laughs += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + prev;
        laughs += "]\n";
        prev = c;
    }
    CHECK_THROWS_WITH(fm(laughs), Catch::Contains("more than 100000 values"));
    // Nesting deeper than the bound.
    std::string deep = "a: ";
    for (int i = 0; i < 80; ++i) deep += "[";
    for (int i = 0; i < 80; ++i) deep += "]";
    CHECK_THROWS_WITH(fm(deep + "\n"), Catch::Contains("deeper than 64"));
}

TEST_CASE("mcp helpers: digest, base64, percent escapes, JSON depth", "[mcp]") {
    CHECK(d::sha256_digest("abc") == "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(d::sha256_digest("") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(d::base64_encode("") == "");
    CHECK(d::base64_encode("f") == "Zg==");
    CHECK(d::base64_encode("fo") == "Zm8=");
    CHECK(d::base64_encode("foo") == "Zm9v");
    CHECK(d::base64_decode("Zm8=") == std::optional<std::string>("fo"));
    CHECK_FALSE(d::base64_decode("Zm8").has_value());
    CHECK_FALSE(d::base64_decode("Z=m8").has_value());
    CHECK(d::encode_segment("Q&A notes.md") == "Q&A%20notes.md");
    CHECK(d::encode_segment("a%b?c#d\xC3\xA9") == "a%25b%3Fc%23d%C3%A9");
    CHECK(d::decode_percent("Q%26A%20x") == std::optional<std::string>("Q&A x"));
    CHECK_FALSE(d::decode_percent("bad%2").has_value());
    CHECK_FALSE(d::decode_percent("bad%zz").has_value());
    CHECK(d::json_depth(R"({"a":[1,{"b":"[[[["}]})", 64) == 3);
    CHECK(d::json_depth(R"("\"[")", 64) == 0);
    std::string escaped;
    const std::string raw = std::string("q\"b\\ n\n r\r t\t \x01 \x7f \xC3\xA9 ") + '\0';
    agentskills::append_json_string(escaped, raw);  // the core escaper the MCP server uses
    CHECK(escaped == "\"q\\\"b\\\\ n\\n r\\r t\\t \\u0001 \x7f \xC3\xA9 \\u0000\"");
    CHECK(json::parse(escaped) == raw);
    CHECK(agentskills::media_type_for("x.MD", true) == "text/markdown");
    CHECK(agentskills::media_type_for("blob", false) == "application/octet-stream");
    CHECK(agentskills::media_type_for("notes", true) == "text/plain");
}

namespace {

/// Wherever the fast path answers, it gives what yaml-cpp gives; where yaml-cpp refuses the text,
/// the fast path does not answer.
void check_paths_agree(const std::string& yaml) {
    CAPTURE(yaml);
    const std::optional<json> fast = d::simple_frontmatter_json(yaml);
    if (!fast) return;
    json slow;
    REQUIRE_NOTHROW(slow = d::yaml_frontmatter_json(yaml));
    CHECK(*fast == slow);
}

}  // namespace

TEST_CASE("mcp: the fast frontmatter path agrees with yaml-cpp", "[mcp]") {
    const std::vector<std::string> answered = {
        "name: a\ndescription: d\n",
        "name: a\ndescription: d\nversion: 1.0\ncount: 12\nflag: true\nnone: ~\nempty:\n",
        "name: a\nmetadata:\n  owner: docs\n  version: \"2\"\n  n: 0x1f\nlicense: MIT\n",
        "name: a\ndescription: 'it''s'\n",  // not answered (inner quote), checked anyway
        "description: Don't panic, it's \"fine\" \xE2\x80\x94 url http://x.y/z?a=b&c\n",
        "description: \"a: b # c\"\nother: 'x \\ y'\n",
        "a: -5\nb: -.5\nc: +7\nd: 1e3\ne: 0o17\nf: yes\ng: 2024-01-01\nh: a#b\ni: x|y>z\n",
        "name: a\n\ndescription: d\n\nmetadata:\n\n  k: v\n",
    };
    for (const auto& y : answered) check_paths_agree(y);
    CHECK(d::simple_frontmatter_json("name: a\ndescription: d\nversion: 1.0\ncount: 12\nflag: true\nnone: ~\n") ==
          json::parse(R"({"name":"a","description":"d","version":1.0,"count":12,"flag":true,"none":null})"));
    // The one fast path of the library's YAML front end (src/parse/yaml.hpp) also reads flow
    // sequences of words, block scalars, block lists and mappings; wherever it answers, it
    // agrees with yaml-cpp.
    const std::vector<std::string> shapes = {
        "tags: [a, b]\n", "d: |\n  block\n", "d: >\n  folded\n",     "a: b # comment\n", "# c\na: b\n",
        "a:\n  - x\n",    "a:\n    b: c\n",  "a:\n  b:\n    c: d\n", "a: \"x\\ny\"\n",   "a: x,y\n",
    };
    for (const auto& y : shapes) check_paths_agree(y);
    // Left to yaml-cpp: what the fast path does not read (a repeated key, a continued plain
    // scalar, anchors, aliases, tags, flow mappings, an empty value, tabs, CR, other controls, a
    // BOM, an explicit key, indented keys, text yaml-cpp refuses).
    const std::vector<std::string> refused = {
        "name: a\ndescription: long\n  continued\n",
        "name: a\nname: b\n",
        "x: &a 1\ny: *a\n",
        "a: !!str 1\n",
        "a: b: c\n",
        "a: 'x' y\n",
        "a: x\ty\n",
        "a: .inf\n",
        "? a\n: b\n",
        " a: b\n",
        "a: {b: c}\n",
        "a: @x\n",
        "a: %x\n",
        "a: `x`\n",
        "a: x\xC2\x85y\n",
        "a: \xEF\xBB\xBFx\n",
        "a: x\r\n",
        "empty:\n",
    };
    for (const auto& y : refused) {
        CAPTURE(y);
        CHECK_FALSE(d::simple_frontmatter_json(y).has_value());
    }
    // And whatever it makes of the other shapes, it agrees with yaml-cpp.
    for (const auto& y : std::vector<std::string>{"a:b\n", "a: x \n", "a:  x\n", "a: -\n", "1a: b\n", "a: x:\n"}) {
        check_paths_agree(y);
    }
    // Every SKILL.md of a corpus, when AGENTSKILLS_CORPUS names one (the shared corpus in CI).
    if (const char* corpus = std::getenv("AGENTSKILLS_CORPUS")) {
        std::size_t files = 0;
        for (const auto& e : std::filesystem::recursive_directory_iterator(
                 corpus, std::filesystem::directory_options::skip_permission_denied)) {
            if (!e.is_regular_file() || e.path().filename() != "SKILL.md") continue;
            std::ifstream in(e.path(), std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            const std::string md = text.str();
            if (md.rfind("---\n", 0) != 0) continue;
            const std::size_t close = md.find("\n---\n", 3);
            if (close == std::string::npos) continue;
            check_paths_agree(md.substr(4, close - 3));
            ++files;
        }
        CHECK(files > 0);
    }
}

#endif  // AGENTSKILLS_HAVE_MCP
