// Tests of tool_shapes.hpp: the providers' tool shapes.
// One file per public header; the hostile cases are sections of it.
#include <cstdint>
#include <iterator>
#include <string>

#include <catch2/catch.hpp>

#include <agentskills/base/errors.hpp>
#include <agentskills/harness/tool_shapes.hpp>
#include <agentskills/shim/skills_shim.hpp>

// =======================================================================================
// Tests for tool_shapes.hpp: tools, tool calls and tool results in each provider's shape.

namespace tool_shapes_tests {

using namespace agentskills;
using nlohmann::json;

namespace {

ToolSpec weather_spec() {
    return ToolSpec{.name = "get_weather",
                    .description = "Current weather for a city.",
                    .parameters = json::parse(R"({"type":"object","properties":{"city":{"type":"string"}},)"
                                              R"("required":["city"],"additionalProperties":false})"),
                    .strict = true};
}

constexpr const char* weather_schema =
    R"({"additionalProperties":false,"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"})";

/// The message of the ConfigurationError `fn` throws; fails the test when it throws nothing.
template <class Fn>
std::string error_of(Fn fn) {
    try {
        (void)fn();
    } catch (const ConfigurationError& e) {
        return e.what();
    }
    FAIL("no ConfigurationError");
    return {};
}

}  // namespace

TEST_CASE("tool formats: names round-trip", "[tool_shapes]") {
    for (ToolFormat f : ALL_TOOL_FORMATS) CHECK(tool_format_from_string(to_string(f)) == f);
    CHECK(to_string(ToolFormat::openai_chat) == "openai-chat");
    CHECK(to_string(ToolFormat::openai_responses) == "openai-responses");
    CHECK(to_string(ToolFormat::anthropic) == "anthropic");
    CHECK(to_string(ToolFormat::gemini) == "gemini");
    CHECK(to_string(ToolFormat::mcp) == "mcp");
    CHECK_FALSE(tool_format_from_string("openai").has_value());
    CHECK_FALSE(tool_format_from_string("").has_value());
    CHECK_FALSE(tool_format_from_string("MCP").has_value());
}

TEST_CASE("tool specs: exact JSON in each shape", "[tool_shapes]") {
    const ToolSpec spec = weather_spec();
    const std::string schema = weather_schema;
    CHECK(tool_spec_json(ToolFormat::openai_chat, spec).dump() ==
          R"({"function":{"description":"Current weather for a city.","name":"get_weather","parameters":)" + schema +
              R"(,"strict":true},"type":"function"})");
    CHECK(tool_spec_json(ToolFormat::openai_responses, spec).dump() ==
          R"({"description":"Current weather for a city.","name":"get_weather","parameters":)" + schema +
              R"(,"strict":true,"type":"function"})");
    CHECK(tool_spec_json(ToolFormat::anthropic, spec).dump() ==
          R"({"description":"Current weather for a city.","input_schema":)" + schema +
              R"(,"name":"get_weather","strict":true})");
    CHECK(tool_spec_json(ToolFormat::gemini, spec).dump() ==
          R"({"description":"Current weather for a city.","name":"get_weather","parametersJsonSchema":)" + schema +
              "}");
    CHECK(tool_spec_json(ToolFormat::mcp, spec).dump() ==
          R"({"description":"Current weather for a city.","inputSchema":)" + schema + R"(,"name":"get_weather"})");
}

TEST_CASE("tool specs: openai-chat is exactly harness to_json", "[tool_shapes]") {
    SkillsShim shim({.catalog = std::make_shared<const SkillCatalog>(nullptr, Discovery{})});
    const ToolSpec spec = shim.tool_spec();
    CHECK(tool_spec_json(ToolFormat::openai_chat, spec).dump() == to_json(spec).dump());
    CHECK(tools_json(ToolFormat::openai_chat, {spec, weather_spec()}).dump() ==
          to_json(std::vector<ToolSpec>{spec, weather_spec()}).dump());
}

TEST_CASE("tool specs: not strict, no description, no parameters", "[tool_shapes]") {
    const ToolSpec bare{.name = "ping"};
    CHECK(tool_spec_json(ToolFormat::openai_chat, bare).dump() ==
          R"({"function":{"description":"","name":"ping","parameters":{}},"type":"function"})");
    CHECK(tool_spec_json(ToolFormat::openai_responses, bare).dump() ==
          R"({"name":"ping","parameters":{},"strict":false,"type":"function"})");
    CHECK(tool_spec_json(ToolFormat::anthropic, bare).dump() == R"({"input_schema":{"type":"object"},"name":"ping"})");
    CHECK(tool_spec_json(ToolFormat::gemini, bare).dump() == R"({"name":"ping","parametersJsonSchema":{}})");
    CHECK(tool_spec_json(ToolFormat::mcp, bare).dump() == R"({"inputSchema":{"type":"object"},"name":"ping"})");
    ToolSpec null_params = bare;
    null_params.parameters = nullptr;
    CHECK(tool_spec_json(ToolFormat::mcp, null_params).dump() == R"({"inputSchema":{"type":"object"},"name":"ping"})");
}

TEST_CASE("tools lists: gemini groups every declaration in one Tool", "[tool_shapes]") {
    const ToolSpec a{.name = "a", .description = "A."};
    const ToolSpec b{.name = "b"};
    CHECK(tools_json(ToolFormat::gemini, {a, b}).dump() ==
          R"([{"functionDeclarations":[{"description":"A.","name":"a","parametersJsonSchema":{}},)"
          R"({"name":"b","parametersJsonSchema":{}}]}])");
    CHECK(tools_json(ToolFormat::gemini, {}).dump() == "[]");
    CHECK(tools_json(ToolFormat::mcp, {a, b}).dump() ==
          R"([{"description":"A.","inputSchema":{"type":"object"},"name":"a"},)"
          R"({"inputSchema":{"type":"object"},"name":"b"}])");
    CHECK(tools_json(ToolFormat::anthropic, {}).dump() == "[]");
}

TEST_CASE("tool calls: parsed from each shape", "[tool_shapes]") {
    const ToolCall expected{.id = "call_1", .name = "get_weather", .arguments = R"({"city":"Oslo"})"};
    CHECK(parse_tool_call(ToolFormat::openai_chat,
                          json::parse(R"({"id":"call_1","type":"function","function":{"name":"get_weather",)"
                                      R"("arguments":"{\"city\":\"Oslo\"}"}})")) == expected);
    CHECK(parse_tool_call(
              ToolFormat::openai_responses,
              json::parse(R"({"type":"function_call","id":"fc_9","call_id":"call_1",)"
                          R"("name":"get_weather","arguments":"{\"city\":\"Oslo\"}","status":"completed"})")) ==
          expected);
    CHECK(parse_tool_call(ToolFormat::anthropic,
                          json::parse(R"({"type":"tool_use","id":"call_1","name":"get_weather",)"
                                      R"("input":{"city":"Oslo"},"caller":{"type":"direct"}})")) == expected);
    CHECK(parse_tool_call(ToolFormat::gemini, json::parse(R"({"functionCall":{"id":"call_1","name":"get_weather",)"
                                                          R"("args":{"city":"Oslo"}},"thoughtSignature":"x"})")) ==
          expected);
    CHECK(parse_tool_call(ToolFormat::gemini,
                          json::parse(R"({"id":"call_1","name":"get_weather","args":{"city":"Oslo"}})")) == expected);
    CHECK(parse_tool_call(ToolFormat::mcp,
                          json::parse(R"({"jsonrpc":"2.0","id":"call_1","method":"tools/call",)"
                                      R"("params":{"name":"get_weather","arguments":{"city":"Oslo"}}})")) == expected);
}

TEST_CASE("tool calls: ids and arguments that are absent or given otherwise", "[tool_shapes]") {
    // Gemini often sends no id; no args means no arguments.
    CHECK(parse_tool_call(ToolFormat::gemini, json::parse(R"({"functionCall":{"name":"ping"}})")) ==
          ToolCall{.id = "", .name = "ping", .arguments = "{}"});
    // MCP: a numeric JSON-RPC id becomes its text; the params alone have no id.
    CHECK(parse_tool_call(ToolFormat::mcp, json::parse(R"({"jsonrpc":"2.0","id":7,"method":"tools/call",)"
                                                       R"("params":{"name":"ping"}})")) ==
          ToolCall{.id = "7", .name = "ping", .arguments = "{}"});
    CHECK(parse_tool_call(ToolFormat::mcp, json::parse(R"({"name":"ping","arguments":{"a":1}})")) ==
          ToolCall{.id = "", .name = "ping", .arguments = R"({"a":1})"});
    // The OpenAI shapes keep the argument text as the model wrote it, even when malformed.
    CHECK(parse_tool_call(ToolFormat::openai_responses,
                          json::parse(R"({"type":"function_call","call_id":"c","name":"ping","arguments":"{oops"})"))
              .arguments == "{oops");
    CHECK(
        parse_tool_call(ToolFormat::openai_chat, json::parse(R"({"function":{"name":"ping","arguments":{"a":1}}})")) ==
        ToolCall{.id = "", .name = "ping", .arguments = R"({"a":1})"});
    CHECK(parse_tool_call(ToolFormat::anthropic, json::parse(R"({"type":"tool_use","id":"t","name":"ping"})"))
              .arguments == "{}");
}

TEST_CASE("tool calls: bad shapes are a clear ConfigurationError", "[tool_shapes]") {
    using F = ToolFormat;
    struct Case {
        F format;
        const char* input;
        const char* message;
    };
    const Case cases[] = {
        {F::openai_chat, "[]",
         "not a valid OpenAI chat-completions tool call: the call must be an object, not an array"},
        {F::openai_chat, R"({"id":"x"})",
         "not a valid OpenAI chat-completions tool call: the field 'function' is missing"},
        {F::openai_chat, R"({"function":"f"})",
         "not a valid OpenAI chat-completions tool call: the field 'function' must be an object, not a string"},
        {F::openai_chat, R"({"type":"custom","function":{"name":"a"}})",
         "not a valid OpenAI chat-completions tool call: the field 'type' is not \"function\""},
        {F::openai_chat, R"({"function":{"name":""}})",
         "not a valid OpenAI chat-completions tool call: the field 'name' is empty"},
        {F::openai_chat, R"({"function":{"name":"a","arguments":[1]}})",
         "not a valid OpenAI chat-completions tool call: the field 'arguments' must be a string, not an array"},
        {F::openai_responses, R"({"type":"message","call_id":"c","name":"a"})",
         "not a valid OpenAI Responses function_call item: the field 'type' is not \"function_call\""},
        {F::openai_responses, R"({"type":"function_call","name":"a"})",
         "not a valid OpenAI Responses function_call item: the string field 'call_id' is missing"},
        {F::openai_responses, R"({"type":"function_call","call_id":3,"name":"a"})",
         "not a valid OpenAI Responses function_call item: the field 'call_id' must be a string, not a number"},
        {F::anthropic, R"({"id":"t","name":"a"})",
         "not a valid Anthropic tool_use block: the string field 'type' is missing"},
        {F::anthropic, R"({"type":"tool_use","id":"t","name":"a","input":"{}"})",
         "not a valid Anthropic tool_use block: the field 'input' must be an object, not a string"},
        {F::anthropic, R"({"type":"tool_use","name":"a"})",
         "not a valid Anthropic tool_use block: the string field 'id' is missing"},
        {F::gemini, R"({"functionCall":[]})",
         "not a valid Gemini functionCall: the field 'functionCall' must be an object, not an array"},
        {F::gemini, R"({"functionCall":{"args":{}}})",
         "not a valid Gemini functionCall: the string field 'name' is missing"},
        {F::gemini, R"({"functionCall":{"name":"a","args":[]}})",
         "not a valid Gemini functionCall: the field 'args' must be an object, not an array"},
        {F::gemini, "null", "not a valid Gemini functionCall: the part must be an object, not null"},
        {F::mcp, R"({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}})",
         "not a valid MCP tools/call request: the field 'method' is not \"tools/call\""},
        {F::mcp, R"({"jsonrpc":"2.0","id":1,"method":"tools/call"})",
         "not a valid MCP tools/call request: the field 'params' is missing"},
        {F::mcp, R"({"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"a"}})",
         "not a valid MCP tools/call request: the field 'id' must be a string or an integer, not an array"},
        {F::mcp, R"({"name":"a","arguments":"x"})",
         "not a valid MCP tools/call request: the field 'arguments' must be an object, not a string"},
        {F::mcp, "7", "not a valid MCP tools/call request: the request must be an object, not a number"},
    };
    for (const auto& c : cases) {
        INFO(to_string(c.format) << " " << c.input);
        CHECK(error_of([&] { return parse_tool_call(c.format, json::parse(c.input)); }) == c.message);
    }
}

TEST_CASE("tool calls: error messages do not echo the input", "[tool_shapes]") {
    const std::string secret(5000, 'z');
    const json j = {{"type", "tool_use"}, {"id", secret}, {"name", 3}};
    const std::string message = error_of([&] { return parse_tool_call(ToolFormat::anthropic, j); });
    CHECK(message == "not a valid Anthropic tool_use block: the field 'name' must be a string, not a number");
}

TEST_CASE("tool calls: picked out of a response's items", "[tool_shapes]") {
    const json responses_output = json::parse(R"([
        {"type":"reasoning","id":"rs_1","summary":[]},
        {"type":"message","id":"m","role":"assistant","content":[]},
        {"type":"function_call","call_id":"c1","name":"a","arguments":"{}"},
        {"type":"function_call","call_id":"c2","name":"b","arguments":"{\"x\":1}"}])");
    CHECK(parse_tool_calls(ToolFormat::openai_responses, responses_output) ==
          std::vector<ToolCall>{{.id = "c1", .name = "a", .arguments = "{}"},
                                {.id = "c2", .name = "b", .arguments = R"({"x":1})"}});
    const json anthropic_content = json::parse(R"([
        {"type":"text","text":"Let me look."},
        {"type":"tool_use","id":"t1","name":"a","input":{}}])");
    CHECK(parse_tool_calls(ToolFormat::anthropic, anthropic_content) ==
          std::vector<ToolCall>{{.id = "t1", .name = "a", .arguments = "{}"}});
    const json gemini_parts = json::parse(R"([{"text":"hi"},{"functionCall":{"name":"a","args":{"k":"v"}}}])");
    CHECK(parse_tool_calls(ToolFormat::gemini, gemini_parts) ==
          std::vector<ToolCall>{{.id = "", .name = "a", .arguments = R"({"k":"v"})"}});
    // A call-kind item with a bad shape is an error, not skipped.
    CHECK(error_of([&] {
              return parse_tool_calls(ToolFormat::anthropic,
                                      json::parse(R"([{"type":"text","text":""},{"type":"tool_use","name":"a"}])"));
          }) == "not a valid Anthropic tool_use block: the string field 'id' is missing");
    CHECK(error_of([&] { return parse_tool_calls(ToolFormat::mcp, json::parse(R"([{"name":"a"},5])")); }) ==
          "not a valid MCP tools/call request: the request must be an object, not a number");
    CHECK(error_of([&] { return parse_tool_calls(ToolFormat::gemini, json::parse(R"({"parts":[]})")); }) ==
          "the gemini tool calls must be an array of items, not an object");
}

TEST_CASE("tool calls: written back in each shape", "[tool_shapes]") {
    const ToolCall call{.id = "call_1", .name = "get_weather", .arguments = R"({"city":"Oslo"})"};
    CHECK(tool_call_json(ToolFormat::openai_chat, call).dump() ==
          R"({"function":{"arguments":"{\"city\":\"Oslo\"}","name":"get_weather"},"id":"call_1","type":"function"})");
    CHECK(tool_call_json(ToolFormat::openai_responses, call).dump() ==
          R"({"arguments":"{\"city\":\"Oslo\"}","call_id":"call_1","name":"get_weather","type":"function_call"})");
    CHECK(tool_call_json(ToolFormat::anthropic, call).dump() ==
          R"({"id":"call_1","input":{"city":"Oslo"},"name":"get_weather","type":"tool_use"})");
    CHECK(tool_call_json(ToolFormat::gemini, call).dump() ==
          R"({"functionCall":{"args":{"city":"Oslo"},"id":"call_1","name":"get_weather"}})");
    CHECK(tool_call_json(ToolFormat::mcp, call).dump() == R"({"arguments":{"city":"Oslo"},"name":"get_weather"})");
    // Without an id Gemini's part has none; empty arguments are an empty object.
    CHECK(tool_call_json(ToolFormat::gemini, {.id = "", .name = "ping", .arguments = ""}).dump() ==
          R"({"functionCall":{"args":{},"name":"ping"}})");
}

TEST_CASE("tool calls: round trip through every shape", "[tool_shapes]") {
    const ToolCall call{.id = "call_1", .name = "get_weather", .arguments = R"({"city":"Oslo"})"};
    for (ToolFormat f : ALL_TOOL_FORMATS) {
        INFO(to_string(f));
        ToolCall back = parse_tool_call(f, tool_call_json(f, call));
        if (f == ToolFormat::mcp) back.id = call.id;  // the params carry no id
        CHECK(back == call);
    }
}

TEST_CASE("tool calls: arguments that are not a JSON object cannot be written as one", "[tool_shapes]") {
    const ToolCall broken{.id = "c", .name = "a", .arguments = "{oops"};
    CHECK(error_of([&] { return tool_call_json(ToolFormat::anthropic, broken); }) ==
          "the arguments of a tool call are not valid JSON: the anthropic shape needs a JSON object");
    const ToolCall list{.id = "c", .name = "a", .arguments = "[1,2]"};
    CHECK(error_of([&] { return tool_call_json(ToolFormat::mcp, list); }) ==
          "the arguments of a tool call are an array: the mcp shape needs a JSON object");
    // The OpenAI shapes carry the text as it is.
    CHECK(tool_call_json(ToolFormat::openai_responses, broken)["arguments"] == "{oops");
}

TEST_CASE("tool results: exact JSON in each shape", "[tool_shapes]") {
    const ToolResult ok{.tool_call_id = "call_1", .name = "get_weather", .content = "Sunny, 21 C", .is_error = false};
    CHECK(tool_result_json(ToolFormat::openai_chat, ok).dump() ==
          R"({"content":"Sunny, 21 C","role":"tool","tool_call_id":"call_1"})");
    CHECK(tool_result_json(ToolFormat::openai_responses, ok).dump() ==
          R"({"call_id":"call_1","output":"Sunny, 21 C","type":"function_call_output"})");
    CHECK(tool_result_json(ToolFormat::anthropic, ok).dump() ==
          R"({"content":"Sunny, 21 C","tool_use_id":"call_1","type":"tool_result"})");
    CHECK(tool_result_json(ToolFormat::gemini, ok).dump() ==
          R"({"functionResponse":{"id":"call_1","name":"get_weather","response":{"output":"Sunny, 21 C"}}})");
    CHECK(tool_result_json(ToolFormat::mcp, ok).dump() == R"({"content":[{"text":"Sunny, 21 C","type":"text"}]})");

    const ToolResult bad{.tool_call_id = "", .name = "get_weather", .content = "error: no city", .is_error = true};
    CHECK(tool_result_json(ToolFormat::openai_chat, bad).dump() ==
          R"({"content":"error: no city","role":"tool","tool_call_id":""})");
    CHECK(tool_result_json(ToolFormat::anthropic, bad).dump() ==
          R"({"content":"error: no city","is_error":true,"tool_use_id":"","type":"tool_result"})");
    CHECK(tool_result_json(ToolFormat::gemini, bad).dump() ==
          R"({"functionResponse":{"name":"get_weather","response":{"error":"error: no city"}}})");
    CHECK(tool_result_json(ToolFormat::mcp, bad).dump() ==
          R"({"content":[{"text":"error: no city","type":"text"}],"isError":true})");
}

namespace {

/// An object nested `levels` deep: {"a":[[...]]} with the object as level 1.
json nested(std::size_t levels) {
    json inner = json::array();
    for (std::size_t i = 2; i < levels; ++i) inner = json::array({std::move(inner)});
    return levels <= 1 ? json::object() : json{{"a", std::move(inner)}};
}

}  // namespace

TEST_CASE("tool calls: arguments deeper than the bound are refused, never a crash", "[tool_shapes][hostile]") {
    const json ok = nested(MAX_TOOL_ARGUMENT_DEPTH);
    const json deep = nested(MAX_TOOL_ARGUMENT_DEPTH + 1);
    CHECK(parse_tool_call(ToolFormat::anthropic, json{{"type", "tool_use"}, {"id", "t"}, {"name", "a"}, {"input", ok}})
              .arguments == ok.dump());
    CHECK(error_of([&] {
              return parse_tool_call(ToolFormat::anthropic,
                                     json{{"type", "tool_use"}, {"id", "t"}, {"name", "a"}, {"input", deep}});
          }) == "not a valid Anthropic tool_use block: the field 'input' nests deeper than 128 levels");
    CHECK(error_of([&] {
              return parse_tool_call(ToolFormat::gemini, json{{"functionCall", {{"name", "a"}, {"args", deep}}}});
          }) == "not a valid Gemini functionCall: the field 'args' nests deeper than 128 levels");
    CHECK(error_of([&] {
              return parse_tool_call(ToolFormat::mcp, json{{"name", "a"}, {"arguments", deep}});
          }) == "not a valid MCP tools/call request: the field 'arguments' nests deeper than 128 levels");
    CHECK(error_of([&] {
              return parse_tool_call(ToolFormat::openai_chat, json{{"function", {{"name", "a"}, {"arguments", deep}}}});
          }) == "not a valid OpenAI chat-completions tool call: the field 'arguments' nests deeper than 128 levels");
    CHECK(error_of([&] {
              return parse_tool_call(
                  ToolFormat::openai_responses,
                  json{{"type", "function_call"}, {"call_id", "c"}, {"name", "a"}, {"arguments", deep}});
          }) == "not a valid OpenAI Responses function_call item: the field 'arguments' nests deeper than 128 levels");
    // Far deeper input: still a clear error (the check itself does not recurse).
    const std::string very_deep = std::string(200000, '[') + std::string(200000, ']');
    // (Built by moves: copying a value this deep would itself recurse.)
    json request = json::object();
    request["name"] = "a";
    request["arguments"] = json::object();
    request["arguments"]["x"] = json::parse(very_deep);
    CHECK(error_of([&] { return parse_tool_call(ToolFormat::mcp, request); }) ==
          "not a valid MCP tools/call request: the field 'arguments' nests deeper than 128 levels");
    // Text arguments written as an object obey the same bound.
    const ToolCall text_call{.id = "c", .name = "a", .arguments = R"({"x":)" + very_deep + "}"};
    CHECK(error_of([&] { return tool_call_json(ToolFormat::anthropic, text_call); }) ==
          "the arguments of a tool call nest deeper than 128 levels");
    CHECK(tool_call_json(ToolFormat::gemini, {.id = "", .name = "a", .arguments = ok.dump()})["functionCall"]["args"] ==
          ok);
}

namespace {

/// A small deterministic generator of JSON values shaped like tool calls, with wrong types mixed in.
class RandomJson {
public:
    explicit RandomJson(std::uint32_t seed) : state_(seed) {}

    json value(int depth) {
        static const char* const keys[] = {"type",   "id",       "call_id",       "name",       "arguments", "input",
                                           "args",   "function", "functionCall",  "params",     "method",    "jsonrpc",
                                           "status", "tool_use", "function_call", "tools/call", "x"};
        switch (next() % (depth > 3 ? 5 : 8)) {
            case 0:
                return nullptr;
            case 1:
                return next() % 2 == 0;
            case 2:
                return static_cast<int>(next() % 100) - 50;
            case 3:
                return std::string(keys[next() % std::size(keys)]);
            case 4:
                return next() % 2 == 0 ? json("{\"a\":1}") : json("{bad");
            case 5: {
                json a = json::array();
                for (std::uint32_t i = next() % 3; i > 0; --i) a.push_back(value(depth + 1));
                return a;
            }
            default: {
                json o = json::object();
                for (std::uint32_t i = next() % 5; i > 0; --i) o[keys[next() % std::size(keys)]] = value(depth + 1);
                return o;
            }
        }
    }

private:
    std::uint32_t next() {
        state_ = state_ * 1664525u + 1013904223u;
        return state_ >> 8;
    }
    std::uint32_t state_;
};

}  // namespace

TEST_CASE("tool calls: any JSON value parses or throws ConfigurationError", "[tool_shapes][hostile]") {
    RandomJson gen(12345);
    std::size_t parsed = 0;
    std::size_t refused = 0;
    for (int i = 0; i < 4000; ++i) {
        const json j = gen.value(0);
        for (ToolFormat f : ALL_TOOL_FORMATS) {
            try {
                const ToolCall call = parse_tool_call(f, j);
                ++parsed;
                CHECK_FALSE(call.name.empty());
                // What was read can be written back, or is refused cleanly.
                try {
                    (void)tool_call_json(f, call).dump();
                } catch (const ConfigurationError&) {
                }
            } catch (const ConfigurationError&) {
                ++refused;
            }
            try {
                (void)parse_tool_calls(f, json::array({j, j}));
            } catch (const ConfigurationError&) {
            }
        }
    }
    CHECK(parsed > 0);
    CHECK(refused > 0);
}

}  // namespace tool_shapes_tests
