// Tests of the harness (messages, run state, shims, the agent loop).
// One file per public header; the hostile cases are sections of it.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <catch2/catch.hpp>

#include <agentskills/base/errors.hpp>
#include <agentskills/harness.hpp>

// =======================================================================================
// Tests for harness.hpp: messages and JSON, run state, prepared turns, the agent loop.

namespace harness_tests {

using namespace agentskills;
using nlohmann::json;

namespace {

Tool echo_tool(std::string name) {
    return Tool{.spec = {.name = name, .description = "Echo", .parameters = json::object(), .strict = false},
                .handler = [name](const ToolCall& call, RunState&) { return name + ":" + call.arguments; }};
}

/// Adds a fixed tool and a turn-only instruction on every turn.
class ExtraToolShim final : public Shim {
public:
    explicit ExtraToolShim(std::string tool) : tool_(std::move(tool)) {}
    [[nodiscard]] std::string_view name() const noexcept override { return "extra"; }
    [[nodiscard]] std::unique_ptr<BoundShim> bind(const AgentDescriptor&) override {
        struct Bound final : BoundShim {
            std::string tool;
            void prepare_turn(PreparedTurn& turn) override {
                turn.add_tool(echo_tool(tool));
                turn.append_turn_instruction("turn note");
            }
        };
        auto b = std::make_unique<Bound>();
        b->tool = tool_;
        return b;
    }

private:
    std::string tool_;
};

}  // namespace

TEST_CASE("messages convert to and from chat-completions JSON", "[harness]") {
    Message call = assistant_message("", {ToolCall{.id = "c1", .name = "read", .arguments = R"({"path":"a"})"}});
    CHECK(to_json(call) == json::parse(R"({"role":"assistant","content":null,
        "tool_calls":[{"id":"c1","type":"function","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]})"));
    CHECK(message_from_json(to_json(call)) == call);

    Message result = tool_message("c1", "read", "contents");
    CHECK(to_json(result) == json::parse(R"({"role":"tool","content":"contents","tool_call_id":"c1","name":"read"})"));
    CHECK(message_from_json(to_json(result)) == result);

    CHECK(to_json(user_message("hi")) == json::parse(R"({"role":"user","content":"hi"})"));
    CHECK(message_from_json(
              json::parse(R"({"role":"system","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]})")) ==
          system_message("ab"));
    CHECK_THROWS_AS(message_from_json(json::parse(R"({"content":"x"})")), ConfigurationError);
    CHECK_THROWS_AS(message_from_json(json::parse(R"({"role":"robot","content":"x"})")), ConfigurationError);
}

TEST_CASE("tool specs and tool calls convert to and from JSON", "[harness]") {
    ToolSpec spec{.name = "read", .description = "Read a file", .parameters = json{{"type", "object"}}, .strict = true};
    CHECK(to_json(spec) == json::parse(R"({"type":"function","function":{"name":"read","description":"Read a file",
        "parameters":{"type":"object"},"strict":true}})"));
    CHECK(tool_spec_from_json(to_json(spec)) == spec);
    // Arguments sent as an object are kept as their JSON text.
    CHECK(tool_call_from_json(json::parse(R"({"id":"x","function":{"name":"f","arguments":{"a":1}}})")).arguments ==
          R"({"a":1})");
    ModelRequest req{.messages = {system_message("s"), user_message("u")}, .tools = {spec}};
    json body = to_json(req, "gpt-test");
    CHECK(body["model"] == "gpt-test");
    CHECK(body["messages"].size() == 2);
    CHECK(body["tools"][0]["function"]["name"] == "read");
    CHECK_FALSE(to_json(ModelRequest{.messages = {}, .tools = {}}).contains("tools"));
}

TEST_CASE("ShimState operations", "[harness]") {
    ShimState s;
    CHECK(s.get("k").is_null());
    CHECK(s.append_if_unique("k", "a"));
    CHECK(s.append_if_unique("k", "b"));
    CHECK_FALSE(s.append_if_unique("k", "a"));
    CHECK(s.get("k") == json::array({"a", "b"}));
    CHECK(s.remove_value("k", "a"));
    CHECK_FALSE(s.remove_value("k", "a"));
    CHECK(s.set_if_absent("flag", true));
    CHECK_FALSE(s.set_if_absent("flag", false));
    CHECK(s.get("flag") == true);
    s.set("n", 3);
    s.update([](json& j) { j["n"] = j["n"].get<int>() + 1; });
    CHECK(s.get("n") == 4);
    CHECK(s.erase("n"));
    CHECK_FALSE(s.contains("n"));
    ShimState copy = s;
    CHECK(copy.snapshot() == s.snapshot());
    CHECK_THROWS_AS(ShimState(json::array()), ConfigurationError);
}

TEST_CASE("ShimState append_if_unique is atomic", "[harness][concurrency]") {
    ShimState s;
    std::atomic<int> appended{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 200; ++i) {
                if (s.append_if_unique("names", i % 50)) ++appended;
                if (t == 0) (void)s.snapshot();
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(appended == 50);
    CHECK(s.get("names").size() == 50);
}

TEST_CASE("PreparedTurn applies exclusions and restrictions after everything was added", "[harness]") {
    RunState st;
    st.instructions = "base";
    PreparedTurn turn(st, {echo_tool("read"), echo_tool("write")});
    turn.exclude_tool("bash");
    turn.restrict_tools({"read", "bash", "grep"});
    turn.add_tool(echo_tool("bash"));
    turn.add_tool(echo_tool("grep"));
    CHECK_THROWS_AS(turn.add_tool(echo_tool("grep")), ConfigurationError);
    std::vector<std::string> names;
    for (const auto& s : turn.visible_tool_specs()) names.push_back(s.name);
    CHECK(names == std::vector<std::string>{"read", "grep"});
    CHECK(turn.all_tools().size() == 4);

    turn.append_system_instruction("persisted");
    turn.append_turn_instruction("transient");
    CHECK(turn.system_instruction() == "base\n\npersisted\n\ntransient");
    CHECK(st.instructions == "base\n\npersisted");

    RunState empty;
    PreparedTurn t2(empty, {});
    t2.append_system_instruction("only");
    CHECK(empty.instructions == "only");
}

TEST_CASE("DefaultAgent runs the tool loop and records what the model saw", "[harness]") {
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{
        assistant_message("", {ToolCall{.id = "1", .name = "read", .arguments = "{}"},
                               ToolCall{.id = "2", .name = "missing", .arguments = "{}"}}),
        assistant_message("done"),
    });
    DefaultAgent agent({.name = "a",
                        .instructions = "sys",
                        .model = model,
                        .tools = {echo_tool("read")},
                        .shims = {std::make_shared<ExtraToolShim>("extra")}});
    RunResult r = agent.run("hello");
    CHECK(r.final_output == "done");
    CHECK(r.turns == 2);
    CHECK_FALSE(r.max_turns_reached);
    const auto& h = agent.run_state().history;
    REQUIRE(h.size() == 5);
    CHECK(h[0] == user_message("hello"));
    CHECK(h[2] == tool_message("1", "read", "read:{}"));
    CHECK(h[3] == tool_message("2", "missing", "error: no tool named 'missing' is available"));
    CHECK(agent.run_state().turn_count == 2);
    auto reqs = model->requests();
    REQUIRE(reqs.size() == 2);
    CHECK(reqs[0].messages[0] == system_message("sys\n\nturn note"));
    CHECK(reqs[0].tools.size() == 2);
    CHECK(reqs[1].messages.size() == 5);
    CHECK(agent.run_state().instructions == "sys");
    CHECK_THROWS_AS(agent.run("again"), Error);  // the script is exhausted
}

TEST_CASE("DefaultAgent stops at max_turns and turns handler exceptions into error results", "[harness]") {
    Tool boom{.spec = {.name = "boom", .description = "", .parameters = json::object(), .strict = false},
              .handler = [](const ToolCall&, RunState&) -> std::string { throw std::runtime_error("bad input"); }};
    auto call = assistant_message("", {ToolCall{.id = "1", .name = "boom", .arguments = "{}"}});
    auto model = std::make_shared<ScriptedModel>(std::vector<Message>{call, call, call});
    DefaultAgent agent({.name = "a", .instructions = "", .model = model, .tools = {boom}, .shims = {}},
                       {.max_turns = 2, .parallel_tool_calls = false, .hooks = nullptr});
    RunResult r = agent.run("go");
    CHECK(r.max_turns_reached);
    CHECK(r.turns == 2);
    CHECK(agent.run_state().history[2].content == "error: bad input");
    CHECK(model->requests()[0].messages[0].role == Role::user);  // no system message when empty
    agent.reset();
    CHECK(agent.run_state().history.empty());
    CHECK_THROWS_AS(DefaultAgent({.name = "x", .instructions = "", .model = nullptr, .tools = {}, .shims = {}}),
                    ConfigurationError);
}

TEST_CASE("DefaultAgent runs one response's tool calls in parallel, keeping their order", "[harness][concurrency]") {
    std::atomic<int> inside{0};
    std::atomic<int> peak{0};
    Tool slow{.spec = {.name = "slow", .description = "", .parameters = json::object(), .strict = false},
              .handler = [&](const ToolCall& c, RunState&) {
                  int now = ++inside;
                  int prev = peak.load();
                  while (now > prev && !peak.compare_exchange_weak(prev, now)) {
                  }
                  // Each call stays until another one is running beside it (or 10 s have passed):
                  // calls run in parallel meet however late their threads start, and calls run
                  // one after another never do.
                  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                  while (peak.load() < 2 && std::chrono::steady_clock::now() < deadline) {
                      std::this_thread::sleep_for(std::chrono::milliseconds(1));
                  }
                  --inside;
                  return c.id;
              }};
    std::vector<ToolCall> calls;
    for (int i = 0; i < 4; ++i) calls.push_back({.id = std::to_string(i), .name = "slow", .arguments = "{}"});
    auto model =
        std::make_shared<ScriptedModel>(std::vector<Message>{assistant_message("", calls), assistant_message("ok")});
    DefaultAgent agent({.name = "p", .instructions = "", .model = model, .tools = {slow}, .shims = {}},
                       {.max_turns = 4, .parallel_tool_calls = true, .hooks = nullptr});
    (void)agent.run("go");
    const auto& h = agent.run_state().history;
    for (int i = 0; i < 4; ++i) CHECK(h[static_cast<std::size_t>(2 + i)].content == std::to_string(i));
    CHECK(peak.load() > 1);
}

TEST_CASE("the harness layer knows nothing about skills", "[harness]") {
    // Its headers include only each other, nlohmann/json and the standard library, and never
    // speak of skills (the project name "agentskills" aside).
    const std::filesystem::path dir = std::filesystem::path(AGENTSKILLS_SOURCE_DIR) / "include/agentskills/harness";
    const std::vector<std::string> parts = {"agent.hpp", "messages.hpp", "run_state.hpp", "shim.hpp",
                                            "tool_shapes.hpp"};
    std::size_t seen = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        INFO(file);
        CHECK(std::find(parts.begin(), parts.end(), file) != parts.end());
        ++seen;
        std::ifstream in(entry.path());
        REQUIRE(in);
        std::string line;
        while (std::getline(in, line)) {
            INFO(line);
            std::string lower;
            std::transform(line.begin(), line.end(), std::back_inserter(lower),
                           [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
            for (auto pos = lower.find("agentskills"); pos != std::string::npos; pos = lower.find("agentskills"))
                lower.erase(pos, 11);
            CHECK(lower.find("skill") == std::string::npos);
            if (line.rfind("#include \"", 0) == 0) {
                const std::string target = line.substr(10, line.find('"', 10) - 10);
                CHECK(std::find(parts.begin(), parts.end(), target) != parts.end());
            } else if (line.rfind("#include <", 0) == 0) {
                const std::string target = line.substr(10, line.find('>', 10) - 10);
                CHECK((target == "nlohmann/json.hpp" || target.find('/') == std::string::npos));
            }
        }
    }
    CHECK(seen == parts.size());
}

}  // namespace harness_tests
