#include <catch2/catch.hpp>

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
