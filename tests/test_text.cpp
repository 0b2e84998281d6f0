#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <agentskills/text.hpp>

using namespace agentskills;

TEST_CASE("model_text keeps clean text, TAB and LF", "[text]") {
    CHECK(model_text("plain\ttext\nline two") == "plain\ttext\nline two");
    CHECK(is_model_text("caf\xC3\xA9"));
    CHECK(model_text("") == "");
}

TEST_CASE("model_text replaces controls, bad bytes and CR", "[text]") {
    using namespace std::string_literals;
    CHECK(model_text("a\0b"s) ==
          "a\xEF\xBF\xBD"
          "b");
    CHECK(model_text("\x1b[2J") == "\xEF\xBF\xBD[2J");
    CHECK(model_text("x\xC2\x85y") == "x\xEF\xBF\xBDy");  // NEL, a C1 control
    CHECK(model_text("x\x7fy") == "x\xEF\xBF\xBDy");
    CHECK(model_text("bad\xff") == "bad\xEF\xBF\xBD");
    CHECK(model_text("a\r\nb\rc") == "a\nb\nc");
    CHECK_FALSE(is_model_text("a\rb"));
}

TEST_CASE("terminal_text escapes what could forge a record or drive a terminal", "[text]") {
    CHECK(terminal_text("name\twith\nnewline") == "name\\twith\\nnewline");
    CHECK(terminal_text("back\\slash") == "back\\\\slash");
    CHECK(terminal_text("\x1b]0;title\x07") == "\\x1b]0;title\\x07");
    CHECK(terminal_text("x\xC2\x9by") == "x\\u009by");
    CHECK(terminal_text("bad\xfe") == "bad\xEF\xBF\xBD");
    CHECK(terminal_text("\xE6\x8A\x80\xE8\x83\xBD") == "\xE6\x8A\x80\xE8\x83\xBD");
}

TEST_CASE("json_string: the escapes, in both modes", "[text][json]") {
    using namespace std::string_literals;
    CHECK(json_string("") == "\"\"");
    CHECK(json_string("plain text") == "\"plain text\"");
    CHECK(json_string("q\"b\\s\b\f\n\r\t\x01\x1f\x7f"s) == R"("q\"b\\s\b\f\n\r\t\u0001\u001f)"
                                                           "\x7f\"");
    CHECK(json_string("nul\0"s) == R"("nul\u0000")");
    CHECK(json_string("caf\xC3\xA9 \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
    // ascii: Python's json.dumps bytes.
    CHECK(json_string("caf\xC3\xA9 \xF0\x9F\x98\x80\x7f", JsonEscape::ascii) == R"("caf\u00e9 \ud83d\ude00\u007f")");
    CHECK(json_string("bad\xFE!", JsonEscape::ascii) == R"("bad\ufffd!")");
    std::string out = "[";
    append_json_string(out, "a");
    out += ",";
    append_json_string(out, "\xE2\x82\xAC", JsonEscape::ascii);
    CHECK(out == R"(["a","\u20ac")");
}

TEST_CASE("json_string: the same bytes as nlohmann::json::dump for valid UTF-8", "[text][json]") {
    using namespace std::string_literals;
    std::vector<std::string> samples = {""s,
                                        "x"s,
                                        "\"\\/"s,
                                        "\x7f"s,
                                        "\xC2\x85 NEL"s,
                                        "\xEF\xBF\xBF"s,
                                        "\xF4\x8F\xBF\xBF"s,
                                        "mixed \t\xE6\x8A\x80\n\"end\""s};
    std::string every_control;
    for (char c = 0; c < 0x20; ++c) every_control.push_back(c);
    samples.push_back(every_control);
    for (const auto& s : samples) {
        const nlohmann::json j = s;
        CHECK(json_string(s) == j.dump());
        CHECK(json_string(s, JsonEscape::ascii) == j.dump(-1, ' ', /*ensure_ascii=*/true));
    }
}
