// Tests of `agentskills tools`, `agentskills tool-schema --format` and `agentskills tool-call`
// (they run the built program).
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_tools_tests {

using agentskills::test::run_cli;
using agentskills_test::TempDir;

namespace {

/// A library with skills that narrow and deny tools.
struct ToolsLibrary {
    TempDir dir;
    ToolsLibrary() {
        dir.write("lib/plain/SKILL.md", "---\nname: plain\ndescription: No tool fields.\n---\nBody.\n");
        dir.write(
            "lib/narrow/SKILL.md",
            "---\nname: narrow\ndescription: Narrows the tools.\ntools: [read, bash, activate_skill]\n---\nBody.\n");
        dir.write("lib/deny/SKILL.md",
                  "---\nname: deny\ndescription: Denies bash.\ndisallowedTools: [bash]\n---\nBody.\n");
        dir.write("lib/hide-activation/SKILL.md",
                  "---\nname: hide-activation\ndescription: Denies the activation tool.\n"
                  "disallowed-tools: [activate_skill]\n---\nBody.\n");
        dir.write("lib/manual/SKILL.md",
                  "---\nname: manual\ndescription: Only for people.\ndisable-model-invocation: true\n---\nBody.\n");
        dir.write("lib/custom/SKILL.md",
                  "---\nname: custom\ndescription: Keeps a renamed activation tool.\ntools: [write, use_skill]\n---\n"
                  "Body.\n");
    }
    [[nodiscard]] agentskills::test::CliRun tools(std::vector<std::string> extra) const {
        std::vector<std::string> args = {"tools", "--root", dir.path("lib"), "--pool", "read,write,bash"};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(args);
    }
};

const std::string description =
    "\"description\":\"Activate one of the skills listed in <available_skills>: returns its full instructions and "
    "the files bundled with it. Call it before working on a task that matches the skill's description.\"";
const std::string schema =
    "{\"additionalProperties\":false,\"properties\":{\"name\":{\"description\":\"The skill's name, exactly as it "
    "appears in <available_skills>.\",\"minLength\":1,\"type\":\"string\"}},\"required\":[\"name\"],\"type\":"
    "\"object\"}";

}  // namespace

TEST_CASE("tools: no activation shows the pool and the activation tool", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({});
    CHECK(r.status == 0);
    CHECK(r.out == "read\nwrite\nbash\nactivate_skill\n");
    CHECK(r.err.empty());
}

TEST_CASE("tools: a skill without tool fields changes nothing", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "plain"});
    CHECK(r.status == 0);
    CHECK(r.out == "read\nwrite\nbash\nactivate_skill\n");
}

TEST_CASE("tools: a skill's tools list narrows the turn", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "narrow"});
    CHECK(r.status == 0);
    CHECK(r.out == "read\nbash\nactivate_skill\n");
}

TEST_CASE("tools: disallowedTools removes a tool", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "deny"});
    CHECK(r.status == 0);
    CHECK(r.out == "read\nwrite\nactivate_skill\n");
}

TEST_CASE("tools: deny first, then the tools lists", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "narrow", "deny"});
    CHECK(r.status == 0);
    CHECK(r.out == "read\nactivate_skill\n");
    // The order of activation does not matter, nor does a repeat.
    auto again = lib.tools({"--activate", "deny", "narrow", "deny"});
    CHECK(again.status == 0);
    CHECK(again.out == "read\nactivate_skill\n");
}

TEST_CASE("tools: an explicit deny hides the activation tool", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "hide-activation"});
    CHECK(r.status == 0);
    CHECK(r.out == "read\nwrite\nbash\n");
}

TEST_CASE("tools: a renamed activation tool", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--tool-name", "use_skill", "--activate", "custom"});
    CHECK(r.status == 0);
    CHECK(r.out == "write\nuse_skill\n");
}

TEST_CASE("tools: a repeated or empty pool entry counts once", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = run_cli({"tools", "--root", lib.dir.path("lib"), "--pool", "read,,read", "--pool", "grep"});
    CHECK(r.status == 0);
    CHECK(r.out == "read\ngrep\nactivate_skill\n");
}

TEST_CASE("tools: a pool name with a line break stays on one line", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = run_cli({"tools", "--root", lib.dir.path("lib"), "--pool", "a\nb"});
    CHECK(r.status == 0);
    CHECK(r.out == "a\\nb\nactivate_skill\n");
}

TEST_CASE("tools: an unknown or hidden NAME exits 1", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "deny", "no-such-skill"});
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(r.err.rfind(
              "agentskills tools: error: 'no-such-skill' was not activated: There is no skill named \"no-such-skill\".",
              0) == 0);
    CHECK(r.err.find("'deny'") == std::string::npos);
    // A skill with disable-model-invocation is not the model's to activate.
    auto manual = lib.tools({"--activate", "manual"});
    CHECK(manual.status == 1);
    CHECK(manual.out.empty());
    CHECK(manual.err.rfind("agentskills tools: error: 'manual' was not activated: ", 0) == 0);
}

TEST_CASE("tools and activate: a NAME that is not UTF-8 is an unknown name, not a JSON error", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = lib.tools({"--activate", "bad\xFF"});
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("agentskills tools: error: 'bad\xEF\xBF\xBD' was not activated: There is no skill named "
                      "\"bad\xEF\xBF\xBD\".",
                      0) == 0);
    auto a = run_cli({"activate", "--root", lib.dir.path("lib"), "bad\xFF"});
    CHECK(a.status == 1);
    CHECK(a.out.rfind("There is no skill named \"bad\xEF\xBF\xBD\". Available skills: ", 0) == 0);
}

TEST_CASE("tools: a pool tool named like the activation tool is a usage error", "[cli][tools]") {
    ToolsLibrary lib;
    auto r = run_cli({"tools", "--root", lib.dir.path("lib"), "--pool", "read,activate_skill"});
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "agentskills tools: error: two tools named 'activate_skill' in one turn\n");
}

TEST_CASE("tool-schema: each --format, exactly", "[cli][tool-schema]") {
    struct Case {
        const char* format;
        std::string expected;
    };
    const Case cases[] = {
        {"openai-chat", "{\"function\":{" + description + ",\"name\":\"use_skill\",\"parameters\":" + schema +
                            ",\"strict\":true},\"type\":\"function\"}\n"},
        {"openai-responses", "{" + description + ",\"name\":\"use_skill\",\"parameters\":" + schema +
                                 ",\"strict\":true,\"type\":\"function\"}\n"},
        {"anthropic", "{" + description + ",\"input_schema\":" + schema + ",\"name\":\"use_skill\",\"strict\":true}\n"},
        {"gemini", "{\"functionDeclarations\":[{" + description +
                       ",\"name\":\"use_skill\",\"parametersJsonSchema\":" + schema + "}]}\n"},
        {"mcp", "{" + description + ",\"inputSchema\":" + schema + ",\"name\":\"use_skill\"}\n"},
    };
    for (const auto& c : cases) {
        INFO(c.format);
        auto r = run_cli({"tool-schema", "--format", c.format, "--compact", "--tool-name", "use_skill"});
        CHECK(r.status == 0);
        CHECK(r.out == c.expected);
    }
}

TEST_CASE("tool-schema: the default is the chat-completions shape", "[cli][tool-schema]") {
    auto plain = run_cli({"tool-schema", "--compact"});
    auto chat = run_cli({"tool-schema", "--compact", "--format", "openai-chat"});
    CHECK(plain.status == 0);
    CHECK(plain.out == chat.out);
    CHECK(plain.out.rfind("{\"function\":{" + description + ",\"name\":\"activate_skill\"", 0) == 0);
    auto bad = run_cli({"tool-schema", "--format", "openai"});
    CHECK(bad.status == 2);
    CHECK(bad.out.empty());
}

TEST_CASE("tool-call: each shape read and written back with a result", "[cli][tool-call]") {
    TempDir dir;
    struct Case {
        const char* format;
        const char* input;
        const char* output;
    };
    const Case cases[] = {
        {"openai-chat",
         R"({"id":"call_1","type":"function","function":{"name":"activate_skill","arguments":"{\"name\":\"pdf\"}"}})",
         R"({"function":{"arguments":"{\"name\":\"pdf\"}","name":"activate_skill"},"id":"call_1","type":"function"})"
         "\n"
         R"({"content":"done","role":"tool","tool_call_id":"call_1"})"
         "\n"},
        {"openai-responses",
         R"({"type":"function_call","id":"fc_1","call_id":"call_1","name":"activate_skill",)"
         R"("arguments":"{\"name\":\"pdf\"}","status":"completed"})",
         R"({"arguments":"{\"name\":\"pdf\"}","call_id":"call_1","name":"activate_skill","type":"function_call"})"
         "\n"
         R"({"call_id":"call_1","output":"done","type":"function_call_output"})"
         "\n"},
        {"anthropic",
         R"({"type":"tool_use","id":"toolu_1","name":"activate_skill","input":{"name":"pdf"},"caller":{"type":"direct"}})",
         R"({"id":"toolu_1","input":{"name":"pdf"},"name":"activate_skill","type":"tool_use"})"
         "\n"
         R"({"content":"done","tool_use_id":"toolu_1","type":"tool_result"})"
         "\n"},
        {"gemini", R"({"functionCall":{"name":"activate_skill","args":{"name":"pdf"}}})",
         R"({"functionCall":{"args":{"name":"pdf"},"name":"activate_skill"}})"
         "\n"
         R"({"functionResponse":{"name":"activate_skill","response":{"output":"done"}}})"
         "\n"},
        {"mcp",
         R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"activate_skill","arguments":{"name":"pdf"}}})",
         R"({"arguments":{"name":"pdf"},"name":"activate_skill"})"
         "\n"
         R"({"content":[{"text":"done","type":"text"}]})"
         "\n"},
    };
    for (const auto& c : cases) {
        INFO(c.format);
        dir.write("call.json", c.input);
        auto r = run_cli({"tool-call", "--format", c.format, "--input", dir.path("call.json"), "--content", "done"});
        CHECK(r.status == 0);
        CHECK(r.out == c.output);
        CHECK(r.err.empty());
    }
}

TEST_CASE("tool-call: --error marks the result", "[cli][tool-call]") {
    TempDir dir;
    dir.write("call.json", R"({"name":"activate_skill","arguments":{}})");
    auto r = run_cli(
        {"tool-call", "--format", "mcp", "--input", dir.path("call.json"), "--content", "no such skill", "--error"});
    CHECK(r.status == 0);
    CHECK(r.out ==
          "{\"arguments\":{},\"name\":\"activate_skill\"}\n"
          "{\"content\":[{\"text\":\"no such skill\",\"type\":\"text\"}],\"isError\":true}\n");
}

TEST_CASE("tool-call: --content that is not UTF-8 becomes U+FFFD", "[cli][tool-call]") {
    TempDir dir;
    dir.write("call.json", R"({"name":"a"})");
    auto r = run_cli({"tool-call", "--format", "mcp", "--input", dir.path("call.json"), "--content", "ok \xff"});
    CHECK(r.status == 0);
    CHECK(r.out ==
          "{\"arguments\":{},\"name\":\"a\"}\n{\"content\":[{\"text\":\"ok \xEF\xBF\xBD\",\"type\":\"text\"}]}\n");
}

TEST_CASE("tool-call: bad input exits 1 with a clear message", "[cli][tool-call]") {
    TempDir dir;
    dir.write("bad-shape.json", R"({"type":"tool_use","id":"toolu_1"})");
    dir.write("not-json.json", "{");
    auto shape = run_cli({"tool-call", "--format", "anthropic", "--input", dir.path("bad-shape.json")});
    CHECK(shape.status == 1);
    CHECK(shape.out.empty());
    CHECK(shape.err ==
          "agentskills tool-call: error: not a valid Anthropic tool_use block: the string field 'name' is missing\n");
    auto syntax = run_cli({"tool-call", "--format", "gemini", "--input", dir.path("not-json.json")});
    CHECK(syntax.status == 1);
    CHECK(syntax.err ==
          "agentskills tool-call: error: the input file " + dir.path("not-json.json") + " is not valid JSON\n");
    auto missing = run_cli({"tool-call", "--input", dir.path("missing.json")});
    CHECK(missing.status == 1);
    CHECK(missing.err == "agentskills tool-call: error: cannot read the input file " + dir.path("missing.json") + "\n");
    // Hostile depth: a clear error, not a stack overflow.
    dir.write("deep.json", R"({"type":"tool_use","id":"t","name":"a","input":{"x":)" + std::string(200000, '[') +
                               std::string(200000, ']') + "}}");
    auto deep = run_cli({"tool-call", "--format", "anthropic", "--input", dir.path("deep.json")});
    CHECK(deep.status == 1);
    CHECK(deep.out.empty());
    CHECK(deep.err ==
          "agentskills tool-call: error: not a valid Anthropic tool_use block: the field 'input' nests deeper "
          "than 128 levels\n");
    // Arguments that are not an object: the chat shape keeps the text as it is.
    dir.write("chat.json", R"({"id":"c","function":{"name":"a","arguments":"[1]"}})");
    auto chat = run_cli({"tool-call", "--format", "openai-chat", "--input", dir.path("chat.json")});
    CHECK(chat.status == 0);
    CHECK(chat.out.rfind(R"({"function":{"arguments":"[1]","name":"a"},"id":"c","type":"function"})", 0) == 0);
}

}  // namespace cli_tools_tests
