#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <agentskills/base/text.hpp>

#include "../src/base/byte_scans.hpp"

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

namespace {

// Every byte value as the one code point it starts (0x00..0x7F as itself, 0x80..0xFF as the
// two-byte UTF-8 of U+0080..U+00FF), so each string stays valid UTF-8.
std::string code_point_of_byte(unsigned value) {
    std::string out;
    if (value < 0x80) {
        out.push_back(static_cast<char>(value));
    } else {
        out.push_back(static_cast<char>(0xC0 | (value >> 6)));
        out.push_back(static_cast<char>(0x80 | (value & 0x3F)));
    }
    return out;
}

void check_like_dump(const std::string& s) {
    const nlohmann::json j = s;
    CAPTURE(s.size());
    REQUIRE(json_string(s) == j.dump());
    REQUIRE(json_string(s, JsonEscape::ascii) == j.dump(-1, ' ', /*ensure_ascii=*/true));
    std::string appended = "prefix";  // appends after what is there
    append_json_string(appended, s);
    REQUIRE(appended == "prefix" + j.dump());
}

}  // namespace

TEST_CASE("append_json_string: every byte value at every offset of a word, as nlohmann dumps it", "[text][json]") {
    // The escaper skips clean stretches 8 or 16 bytes at a time: put each byte value (and each
    // code point U+0080..U+00FF) at each offset of strings around those sizes, between clean
    // ASCII, UTF-8 and other specials.
    for (unsigned value = 0; value < 256; ++value) {
        const std::string special = code_point_of_byte(value);
        for (std::size_t length = 0; length <= 34; ++length) {
            for (std::size_t at = 0; at <= length; ++at) {
                std::string text(length, 'a');
                text.insert(at, special);
                CAPTURE(value, length, at);
                check_like_dump(text);
            }
        }
        check_like_dump("\xC3\xA9" + special + std::string(17, 'z') + special + "\xE6\x8A\x80");
    }
    // All 256 byte values in one string: the ASCII half against nlohmann; raw bytes from 0x80 on
    // are ill-formed alone (nlohmann would throw), so that half is checked by the rule.
    std::string ascii_half;
    for (unsigned value = 0; value < 0x80; ++value) ascii_half.push_back(static_cast<char>(value));
    check_like_dump(ascii_half);
    std::string high_half;
    for (unsigned value = 0x80; value < 0x100; ++value) high_half.push_back(static_cast<char>(value));
    CHECK(json_string(high_half) == "\"" + high_half + "\"");  // utf8: copied as they are
    std::string expected = "\"";
    for (unsigned value = 0x80; value < 0x100; ++value) expected += "\\ufffd";  // each byte ill-formed alone
    CHECK(json_string(high_half, JsonEscape::ascii) == expected + "\"");
}

TEST_CASE("append_json_string: long runs, clean and escaped, as nlohmann dumps them", "[text][json]") {
    std::string text;
    for (int i = 0; i < 4000; ++i) text += "plain ASCII run ";  // 64,000 clean bytes
    check_like_dump(text);
    std::string every_code_point;
    for (unsigned value = 0; value < 256; ++value) every_code_point += code_point_of_byte(value);
    std::string mixed;
    for (int i = 0; i < 300; ++i) {
        mixed += every_code_point;
        mixed += std::string(static_cast<std::size_t>(i % 37), 'q');
        mixed += "\xE6\x8A\x80\xF0\x9F\x98\x80\"\\";
    }
    check_like_dump(mixed);
    check_like_dump(std::string(1000, '"'));
    check_like_dump(std::string(1000, '\0'));
    check_like_dump(std::string(1000, '\x7f'));
}

TEST_CASE("byte scans: count_newlines and next_yaml_indicator agree with a byte-by-byte look", "[text]") {
    // Every byte value at every position of blocks of several lengths, and long runs (the
    // 16-byte lanes add up for 255 steps at a time).
    const std::string_view indicators("\n[{]},&*!-?:");
    const auto naive_next = [&](std::string_view s, std::size_t pos) {
        for (; pos < s.size(); ++pos) {
            if (indicators.find(s[pos]) != std::string_view::npos) return pos;
        }
        return s.size();
    };
    std::uint32_t seed = 12345;
    const auto random_byte = [&] {
        seed = seed * 1103515245U + 12345U;
        return static_cast<char>((seed >> 16) & 0xFF);
    };
    for (std::size_t len : {0U, 1U, 7U, 8U, 15U, 16U, 17U, 31U, 33U, 64U, 100U}) {
        for (int c = 0; c < 256; ++c) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = static_cast<char>(c);
                INFO("len " << len << " byte " << c << " at " << at);
                CHECK(detail::count_newlines(s) == static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')));
                CHECK(detail::next_yaml_indicator(s, 0) == naive_next(s, 0));
                CHECK(detail::next_yaml_indicator(s, at) == naive_next(s, at));
            }
        }
    }
    for (std::size_t len : {4095U, 4096U, 4097U, 70000U}) {
        std::string lines(len, '\n');
        CHECK(detail::count_newlines(lines) == len);
        std::string mixed;
        for (std::size_t i = 0; i < len; ++i) mixed += random_byte();
        CHECK(detail::count_newlines(mixed) == static_cast<std::size_t>(std::count(mixed.begin(), mixed.end(), '\n')));
        for (std::size_t pos = 0; pos < 300; ++pos)
            CHECK(detail::next_yaml_indicator(mixed, pos) == naive_next(mixed, pos));
        CHECK(detail::next_yaml_indicator(std::string(len, 'x'), 0) == len);
    }
    CHECK(detail::next_yaml_indicator("abc", 5) == 3);
}

TEST_CASE("byte scans: skip_ascii and json_string_bound agree with a byte-by-byte look", "[text]") {
    const auto naive_ascii = [](std::string_view s, std::size_t pos) {
        while (pos < s.size() && static_cast<unsigned char>(s[pos]) < 0x80) ++pos;
        return std::min(pos, s.size());
    };
    const auto naive_bound = [](std::string_view s) {
        std::size_t n = 2;
        for (char ch : s) {
            const auto u = static_cast<unsigned char>(ch);
            n += u < 0x20 ? 6 : (u == '"' || u == '\\') ? 2 : 1;
        }
        return n;
    };
    for (std::size_t len : {0U, 1U, 7U, 8U, 15U, 16U, 17U, 63U, 64U, 65U, 130U}) {
        for (int c = 0; c < 256; ++c) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = static_cast<char>(c);
                INFO("len " << len << " byte " << c << " at " << at);
                CHECK(detail::skip_ascii(s, 0) == naive_ascii(s, 0));
                CHECK(detail::skip_ascii(s, at) == naive_ascii(s, at));
                CHECK(detail::json_string_bound(s) == naive_bound(s));
            }
        }
    }
    CHECK(detail::skip_ascii("abc", 9) == 3);
    CHECK(detail::json_string_bound(std::string(100, '"')) == 202);
    CHECK(detail::json_string_bound(std::string(100, '\x01')) == 602);
}
