// Tests of text.hpp: model text, terminal text and JSON strings, and their scans.
// One file per public header; the hostile cases are sections of it.
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <utf8proc.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/activation/activation.hpp>
#include <agentskills/activation/prompt.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/base/skill.hpp>
#include <agentskills/base/text.hpp>
#include <agentskills/storage/reader.hpp>

#include "src/base/byte_scans.hpp"
#include "src/base/json_text_check.hpp"

// =======================================================================================
// test_text.cpp

namespace text_tests {

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

TEST_CASE("terminal_text: each byte and sequence at every offset of a plain run", "[text]") {
    // Printable ASCII goes through in runs found 16 or 8 bytes a step; everything else one code
    // point at a time. Each piece below, put after 0-40 plain bytes and before 0-20, must come
    // out as the piece's own escape between the unchanged plain bytes.
    std::vector<std::pair<std::string, std::string>> pieces;
    for (int b = 0; b < 0x80; ++b) {
        const char c = static_cast<char>(b);
        std::string expected;
        if (c == '\\') {
            expected = "\\\\";
        } else if (c == '\t') {
            expected = "\\t";
        } else if (c == '\n') {
            expected = "\\n";
        } else if (c == '\r') {
            expected = "\\r";
        } else if (b < 0x20 || b == 0x7F) {
            static constexpr char hex[] = "0123456789abcdef";
            expected = std::string("\\x") + hex[b >> 4] + hex[b & 15];
        } else {
            expected = std::string(1, c);
        }
        pieces.emplace_back(std::string(1, c), expected);
    }
    pieces.emplace_back("\xC2\x9B", "\\u009b");                   // a C1 control
    pieces.emplace_back("\xFE", "\xEF\xBF\xBD");                  // never in UTF-8
    pieces.emplace_back("\xE6\x8A", "\xEF\xBF\xBD\xEF\xBF\xBD");  // cut short: each byte replaced
    pieces.emplace_back("\xC3\xA9", "\xC3\xA9");                  // e acute
    pieces.emplace_back("\xE6\x8A\x80", "\xE6\x8A\x80");          // a CJK character
    pieces.emplace_back("\xF0\x9F\x98\x80", "\xF0\x9F\x98\x80");  // an emoji
    for (const auto& [piece, escaped] : pieces) {
        for (std::size_t before = 0; before <= 40; ++before) {
            for (const std::size_t after : std::initializer_list<std::size_t>{0, 1, 7, 8, 9, 15, 16, 17, 20}) {
                const std::string head(before, 'a');
                const std::string tail(after, 'z');
                INFO("piece " << nlohmann::json(piece).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace)
                              << " after " << before << " plain bytes, before " << after);
                CHECK(terminal_text(head + piece + tail) == head + escaped + tail);
                CHECK(terminal_text(head + piece + piece + tail) == head + escaped + escaped + tail);
            }
        }
    }
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
    // code point U+0080..U+00FF) at each offset of strings around those sizes, and around 64 and
    // 128 bytes (the blocks of a mask-at-a-time scan), between clean ASCII, UTF-8 and specials.
    std::vector<std::size_t> lengths;
    for (std::size_t length = 0; length <= 34; ++length) lengths.push_back(length);
    for (std::size_t length = 60; length <= 68; ++length) lengths.push_back(length);
    for (std::size_t length = 124; length <= 130; ++length) lengths.push_back(length);
    for (unsigned value = 0; value < 256; ++value) {
        const std::string special = code_point_of_byte(value);
        for (const std::size_t length : lengths) {
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
    // Code points of two, three and four bytes at every offset up to 130, in runs of escapes.
    for (const std::string cp : {"\xC3\xA9", "\xE6\x8A\x80", "\xF0\x9F\x98\x80"}) {
        for (std::size_t at = 0; at <= 130; ++at) {
            CAPTURE(cp.size(), at);
            check_like_dump(std::string(at, 'a') + cp + std::string(70, '\n') + cp);
            check_like_dump(std::string(at, '"') + cp + "tail");
        }
    }
    check_like_dump(std::string(1000, '"'));
    check_like_dump(std::string(1000, '\0'));
    check_like_dump(std::string(1000, '\x7f'));
}

TEST_CASE("byte scans: newline counts and yaml_indicator_mask agree with a byte-by-byte look", "[text]") {
    // Every byte value at every position of blocks of several lengths, and long runs (the
    // 16-byte lanes add up for 255 steps at a time).
    const std::string_view indicators("\n[{]},&*!-?:");
    const auto naive_mask = [&](std::string_view s, std::size_t pos) {
        std::uint64_t mask = 0;
        for (std::size_t k = 0; k < 64 && pos + k < s.size(); ++k) {
            if (indicators.find(s[pos + k]) != std::string_view::npos) mask |= std::uint64_t{1} << k;
        }
        return mask;
    };
    std::uint32_t seed = 12345;
    const auto random_byte = [&] {
        seed = seed * 1103515245U + 12345U;
        return static_cast<char>((seed >> 16) & 0xFF);
    };
    for (std::size_t len : {0U, 1U, 7U, 8U, 15U, 16U, 17U, 31U, 33U, 63U, 64U, 65U, 100U, 130U}) {
        for (int c = 0; c < 256; ++c) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = static_cast<char>(c);
                INFO("len " << len << " byte " << c << " at " << at);
                CHECK(detail::scan_text(s, true).newlines ==
                      static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')));
                CHECK(detail::yaml_indicator_mask(s, 0) == naive_mask(s, 0));
                CHECK(detail::yaml_indicator_mask(s, at) == naive_mask(s, at));
                CHECK(detail::yaml_indicator_mask(s, at / 2) == naive_mask(s, at / 2));
            }
        }
    }
    for (std::size_t len : {4095U, 4096U, 4097U, 70000U}) {
        std::string lines(len, '\n');
        CHECK(detail::scan_text(lines, true).newlines == len);
        std::string mixed;
        for (std::size_t i = 0; i < len; ++i) mixed += random_byte();
        CHECK(detail::scan_text(mixed, true).newlines ==
              static_cast<std::size_t>(std::count(mixed.begin(), mixed.end(), '\n')));
        for (std::size_t pos = 0; pos < 300; ++pos)
            CHECK(detail::yaml_indicator_mask(mixed, pos) == naive_mask(mixed, pos));
        CHECK(detail::yaml_indicator_mask(mixed, len - 1) == naive_mask(mixed, len - 1));
        CHECK(detail::yaml_indicator_mask(std::string(len, 'x'), 0) == 0);
        CHECK(detail::yaml_indicator_mask(std::string(len, ':'), 0) == ~std::uint64_t{0});
    }
    CHECK(detail::yaml_indicator_mask("abc", 5) == 0);
    CHECK(detail::yaml_indicator_mask("a:c", 0) == 2);
}

// What utf8proc_iterate accepts, code point by code point: the oracle of the UTF-8 checks.
bool utf8proc_accepts(std::string_view s) {
    std::size_t pos = 0;
    while (pos < s.size()) {
        utf8proc_int32_t cp = 0;
        const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(s.data()) + pos,
                                        static_cast<utf8proc_ssize_t>(s.size() - pos), &cp);
        if (n <= 0) return false;
        pos += static_cast<std::size_t>(n);
    }
    return true;
}

TEST_CASE("byte scans: scan_text's UTF-8 check, sequences across every block boundary", "[text][utf8]") {
    // Well-formed and malformed sequences at every position of texts whose lengths cross the
    // 8-, 16- and 32-byte steps and the 255-step chunks, alone and two in a row.
    const std::vector<std::string> sequences = {
        "\xC3\xA9",     "\xE2\x80\x94", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", "\xED\x9F\xBF",  // well-formed
        "\x80",         "\xBF",         "\xC0\x80",         "\xC1\xBF",         "\xC3",
        "\xE2\x80",     "\xF0\x9F\x98",  // lone, overlong, cut
        "\xE0\x9F\xBF", "\xED\xA0\x80", "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
        "\xFF",         "\xC3\xC3",     "\xE2\x28\xA1",     "\xC3\xA9\x80"};
    for (const std::size_t len : {1U, 8U, 15U, 16U, 31U, 32U, 33U, 40U, 64U, 70U}) {
        for (std::size_t at = 0; at < len; ++at) {
            for (const std::string& seq : sequences) {
                std::string s(len, 'a');
                s.replace(at, std::min(seq.size(), len - at), seq.substr(0, len - at));
                INFO("len " << len << " at " << at << " sequence of " << seq.size());
                CHECK(detail::scan_text(s, false).valid_utf8 == utf8proc_accepts(s));
                CHECK(is_valid_utf8(s) == utf8proc_accepts(s));
                std::string two = s + seq + "b" + seq;
                CHECK(detail::scan_text(two, true).valid_utf8 == utf8proc_accepts(two));
            }
        }
    }
    // Long texts: valid characters throughout, then one byte broken at the chunk edges.
    std::mt19937 random(2026);
    const std::vector<std::string> characters = {"a", "\n", "\xC3\xA9", "\xE6\x8A\x80", "\xF0\x9F\x98\x80", " "};
    for (const std::size_t len : {8160U, 8191U, 16384U, 70000U}) {
        std::string text;
        while (text.size() < len) text += characters[random() % characters.size()];
        CHECK(detail::scan_text(text, false).valid_utf8);
        CHECK(utf8proc_accepts(text));
        for (const std::size_t at : {std::size_t{0}, std::size_t{31}, std::size_t{8159}, std::size_t{8160},
                                     std::size_t{8161}, text.size() / 2, text.size() - 1}) {
            for (const char bad : {'\x80', '\xC3', '\xFF'}) {
                std::string broken = text;
                broken[at] = bad;
                INFO("len " << len << " at " << at);
                CHECK(detail::scan_text(broken, false).valid_utf8 == utf8proc_accepts(broken));
            }
        }
    }
}

TEST_CASE("byte scans: scan_text agrees with a byte-by-byte look", "[text]") {
    // Every byte value at every position of blocks of several lengths (the 8-, 16- and 32-byte
    // steps and their tails), two marked bytes, and long runs (255 steps per chunk).
    const auto check = [](const std::string& s) {
        for (const bool count : {false, true}) {
            const detail::TextScan got = detail::scan_text(s, count);
            std::size_t first = s.size();
            for (std::size_t i = 0; i < s.size(); ++i) {
                if (static_cast<unsigned char>(s[i]) >= 0x80) {
                    first = i;
                    break;
                }
            }
            CHECK(got.first_non_ascii == first);
            CHECK(got.valid_utf8 == utf8proc_accepts(s));
            CHECK(got.nul_or_cr == (s.find('\0') != std::string::npos || s.find('\r') != std::string::npos));
            CHECK(got.newlines == (count ? static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')) : 0U));
        }
    };
    for (std::size_t len : {0U, 1U, 7U, 8U, 15U, 16U, 17U, 31U, 32U, 33U, 63U, 64U, 65U, 100U}) {
        for (int c = 0; c < 256; ++c) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = static_cast<char>(c);
                INFO("len " << len << " byte " << c << " at " << at);
                check(s);
                if (at + 5 < len) {
                    s[at + 5] = '\n';
                    check(s);
                }
            }
        }
    }
    std::uint32_t seed = 777;
    const auto random_ascii = [&] {
        seed = seed * 1103515245U + 12345U;
        return static_cast<char>(((seed >> 16) & 0x3F) + 0x20);
    };
    for (std::size_t len : {4095U, 8160U, 8161U, 16384U, 70000U}) {
        std::string text(len, '\n');
        check(text);
        for (std::size_t i = 0; i < len; i += 3) text[i] = random_ascii();
        check(text);
        for (const std::size_t at : {len - 1, len / 2, std::size_t{8160}, std::size_t{4080}}) {
            if (at >= len) continue;
            std::string marked = text;
            marked[at] = '\xC3';
            check(marked);
            marked[at] = '\r';
            check(marked);
            marked[at] = '\0';
            check(marked);
        }
    }
}

TEST_CASE("byte scans: count_code_points agrees with a byte-by-byte count", "[text]") {
    const auto naive = [](std::string_view s) {
        std::size_t n = 0;
        for (char ch : s) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80 ? 1 : 0;
        return n;
    };
    for (std::size_t len : {0U, 1U, 7U, 8U, 9U, 15U, 16U, 17U, 31U, 33U, 64U, 100U}) {
        for (int c = 0; c < 256; ++c) {
            for (std::size_t at = 0; at < len; ++at) {
                std::string s(len, 'a');
                s[at] = static_cast<char>(c);
                INFO("len " << len << " byte " << c << " at " << at);
                CHECK(detail::count_code_points(s) == naive(s));
                std::string cont(len, '\x80');  // every other byte a continuation byte
                cont[at] = static_cast<char>(c);
                CHECK(detail::count_code_points(cont) == naive(cont));
            }
        }
    }
    std::uint32_t seed = 777;
    for (std::size_t len : {4095U, 4096U, 4097U, 70000U}) {
        std::string mixed;
        for (std::size_t i = 0; i < len; ++i) {
            seed = seed * 1103515245U + 12345U;
            mixed += static_cast<char>((seed >> 16) & 0xFF);
        }
        CHECK(detail::count_code_points(mixed) == naive(mixed));
        CHECK(detail::count_code_points(std::string(len, '\xBF')) == 0);
        CHECK(detail::count_code_points(std::string(len, '\xC0')) == len);
        CHECK(code_point_count(mixed) == naive(mixed));
    }
    CHECK(code_point_count("h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80") == 9);
}

TEST_CASE("json reader: the document json::parse builds, in one pass, with depth, value and key checks", "[text]") {
    using Check = detail::JsonTextCheck;
    using Fault = Check::Fault;
    const auto read = [](std::string_view text, Check::Limits limits = {}) {
        Check reader(limits);
        nlohmann::json out = "unchanged";
        const Fault f = reader.parse(text, out);
        return std::make_pair(f, std::move(out));
    };
    // The same document as json::parse, for every kind of value and nesting.
    for (const std::string_view text :
         {R"({"a":[1,-2,3.5e2,true,false,null,"x\"y\\z\u00e9"],"b":{"c":{}},"d":[],"e":[[1],[2,[3]]]})",
          R"([{"a":1},{"a":2},{"a":{"a":3}}])", R"("top")", "17", "-0.5", "null", " {\"k\" : [ ] } ",
          R"({"": 1, "\u0000": 2})", R"({"big":18446744073709551615,"neg":-9223372036854775808})"}) {
        const auto [f, doc] = read(text);
        CHECK(f == Fault::none);
        CHECK(doc == nlohmann::json::parse(text));
        CHECK(doc.dump() == nlohmann::json::parse(text).dump());
    }
    // Syntax: what json::parse refuses, with its message; the output is null.
    for (const std::string_view text : {"", "{", "[1,]", "{\"a\":1} x", "{'a':1}", "[1] [2]", "nul"}) {
        Check reader({});
        nlohmann::json out = 1;
        CHECK(reader.parse(text, out) == Fault::syntax);
        CHECK(out.is_null());
        CHECK_FALSE(reader.syntax_error().empty());
        CHECK(nlohmann::json::parse(text, nullptr, false).is_discarded());
    }
    // Depth: the top-level value is level 1; a string holding brackets is no level.
    CHECK(read(R"({"a":[1,{"b":"[[[["}]})", {.max_depth = 3}).first == Fault::none);
    CHECK(read(R"({"a":[1,{"b":[]}]})", {.max_depth = 3}).first == Fault::depth);
    CHECK(read(R"({"a":[1,{"b":[]}]})", {.max_depth = 3}).second.is_null());
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    CHECK(read(deep, {.max_depth = 64}).first == Fault::depth);
    CHECK(read(deep, {.max_depth = 100000}).first == Fault::none);
    // Values: arrays and objects count.
    CHECK(read("[1,2,3]", {.max_values = 4}).first == Fault::none);
    CHECK(read("[1,2,3]", {.max_values = 3}).first == Fault::values);
    CHECK(read(R"({"a":{}})", {.max_values = 1}).first == Fault::values);
    // A key twice in one object, at any level, is refused with the key and where the object is;
    // the same key in two objects is not.
    CHECK(read(R"([{"a":1},{"a":2}])").first == Fault::none);
    {
        Check reader({});
        nlohmann::json out;
        CHECK(reader.parse(R"({"skills":[{"x":1},{"files":[0,{"p":1,"p":2}]}]})", out) == Fault::duplicate_key);
        CHECK(out.is_null());
        CHECK(reader.key() == "p");
        CHECK(reader.pointer() == "/skills/1/files/1");
        CHECK(reader.parse(R"({"id":1,"method":"ping","id":2})", out) == Fault::duplicate_key);
        CHECK(reader.key() == "id");
        CHECK(reader.pointer().empty());
        // Spelled with escapes, a key is the same key.
        CHECK(reader.parse(R"({"method":"a","me\u0074hod":"b"})", out) == Fault::duplicate_key);
        CHECK(reader.key() == "method");
        // One reader reads again after a fault.
        CHECK(reader.parse(R"({"a":[1]})", out) == Fault::none);
        CHECK(out == nlohmann::json::parse(R"({"a":[1]})"));
    }
    // Many small objects: linear (json::parse's callback form was quadratic here).
    std::string many = "[";
    for (int i = 0; i < 200000; ++i) many += i == 0 ? "{\"a\":1}" : ",{\"a\":1}";
    many += "]";
    const auto [f, doc] = read(many);
    CHECK(f == Fault::none);
    CHECK(doc.size() == 200000);
}

TEST_CASE("byte scans: find_either_byte agrees with a byte-by-byte look", "[text]") {
    const auto naive = [](std::string_view s, std::size_t pos, char a, char b) {
        while (pos < s.size() && s[pos] != a && s[pos] != b) ++pos;
        return std::min(pos, s.size());
    };
    const std::pair<char, char> pairs[] = {{':', '#'}, {'"', '\\'}, {'\x01', '\x80'}, {'\x7f', '\xff'}};
    for (const auto& [a, b] : pairs) {
        // Fillers without a or b: one letter, and the neighbours of both (a borrow or carry in a
        // word test would show there) with NUL and bytes from 0x80 on.
        std::string neighbours;
        for (const char c : {a, b}) {
            for (const int d : {-1, 1}) {
                const auto n = static_cast<char>(static_cast<unsigned char>(c) + d);
                if (n != a && n != b) neighbours += n;
            }
        }
        for (const char extra : {'\0', '\x80', '\xfe'}) {
            if (extra != a && extra != b) neighbours += extra;
        }
        for (std::size_t len : {0U, 1U, 7U, 8U, 9U, 15U, 16U, 17U, 31U, 33U, 64U, 70U}) {
            std::string mixed(len, ' ');
            for (std::size_t i = 0; i < len; ++i) mixed[i] = neighbours[i % neighbours.size()];
            for (const std::string& filler : {std::string(len, 'a'), mixed}) {
                for (int c = 0; c < 256; ++c) {
                    for (std::size_t at = 0; at < len; ++at) {
                        std::string s = filler;
                        s[at] = static_cast<char>(c);
                        INFO("pair " << int(a) << "," << int(b) << " len " << len << " byte " << c << " at " << at);
                        CHECK(detail::find_either_byte(s, 0, a, b) == naive(s, 0, a, b));
                        CHECK(detail::find_either_byte(s, at, a, b) == naive(s, at, a, b));
                        CHECK(detail::find_either_byte(s, at + 1, a, b) == naive(s, at + 1, a, b));
                    }
                }
            }
        }
    }
    CHECK(detail::find_either_byte("a:b", 9, ':', '#') == 3);
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

}  // namespace text_tests

// =======================================================================================
// The one-pass model text (text.cpp) and the renderers that build on it give the same bytes as

namespace model_output_tests {

using namespace agentskills;

namespace {

constexpr std::string_view fffd = "\xEF\xBF\xBD";

// The length of the well-formed UTF-8 sequence at `pos` (Unicode table 3-7), 0 when ill-formed.
std::size_t sequence_length(std::string_view s, std::size_t pos, std::uint32_t& cp) {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[pos + i]); };
    const std::size_t left = s.size() - pos;
    const unsigned char c = b(0);
    auto cont = [&](std::size_t i, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
        return i < left && b(i) >= lo && b(i) <= hi;
    };
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF && cont(1)) {
        cp = ((c & 0x1Fu) << 6) | (b(1) & 0x3Fu);
        return 2;
    }
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xE0 && c <= 0xEF) {
        if (c == 0xE0) lo = 0xA0;
        if (c == 0xED) hi = 0x9F;
        if (!cont(1, lo, hi) || !cont(2)) return 0;
        cp = ((c & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (c == 0xF0) lo = 0x90;
        if (c == 0xF4) hi = 0x8F;
        if (!cont(1, lo, hi) || !cont(2) || !cont(3)) return 0;
        cp = ((c & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) | (b(3) & 0x3Fu);
        return 4;
    }
    return 0;
}

// model_text by its definition, one code point at a time; `finish` also turns U+FFFE and
// U+FFFF into U+FFFD.
std::string reference_model_text(std::string_view s, bool finish = false) {
    std::string out;
    bool after_cr = false;
    for (std::size_t pos = 0; pos < s.size();) {
        std::uint32_t cp = 0;
        const std::size_t len = sequence_length(s, pos, cp);
        const bool was_cr = after_cr;
        after_cr = false;
        if (len == 0) {
            out += fffd;
            ++pos;
            continue;
        }
        if (cp == '\r') {
            out += '\n';
            after_cr = true;
        } else if (cp == '\n') {
            if (!was_cr) out += '\n';
        } else if (cp != '\t' && is_control_code_point(static_cast<char32_t>(cp))) {
            out += fffd;
        } else if (finish && (cp == 0xFFFE || cp == 0xFFFF)) {
            out += fffd;
        } else {
            out.append(s.substr(pos, len));
        }
        pos += len;
    }
    return out;
}

std::string reference_finish(const std::string& s) { return reference_model_text(s, true); }

// The catalog block as it was built before the fused pass.
std::string reference_block(const std::vector<CatalogEntry>& entries) {
    std::string out = "<available_skills>\n";
    for (const auto& e : entries) {
        const SkillManifest& m = *e.manifest;
        out += "  <skill>\n    <name>" + xml_escape(m.name) + "</name>\n";
        if (e.include_description && m.mode != SkillMode::name_only) {
            out += "    <description>" + xml_escape(m.description) + "</description>\n";
        }
        out += "    <location>" + xml_escape(m.skill_file) + "</location>\n  </skill>\n";
    }
    out += "</available_skills>";
    return reference_finish(out);
}

// The activation text as it was built before the fused pass.
std::string reference_activation(const LoadedSkill& skill, bool include_directory) {
    const SkillManifest& m = skill.manifest;
    const std::string root = model_text(m.root);
    std::string out = "<skill_content name=\"" + xml_escape(model_text(m.name)) + "\">\n";
    if (!skill.instructions.empty()) out += neutralize_wrapper_tags(model_text(skill.instructions)) + "\n\n";
    if (include_directory) {
        out += "Skill directory: " + xml_escape(root) + "\n" + std::string(SKILL_DIRECTORY_NOTE) + "\n\n";
    }
    if (std::string_view(m.library).substr(0, 4) == "mcp:") {
        out += "Source: the MCP server \"" + xml_escape(model_text(m.library.substr(4))) + "\".\n\n";
    }
    out += "<skill_resources>\n";
    for (const auto& r : skill.resources) {
        const std::string path = model_text(r.path);
        if (include_directory) {
            out += "  <file path=\"" + xml_escape(path) + "\" read_path=\"" + xml_escape(join_path(root, path)) +
                   "\" />\n";
        } else {
            out += "  <file path=\"" + xml_escape(path) + "\" />\n";
        }
    }
    if (skill.omitted_resources == 1) {
        out += "  and 1 more file is not listed.\n";
    } else if (skill.omitted_resources > 1) {
        out += "  and " + std::to_string(skill.omitted_resources) + " more files are not listed.\n";
    }
    out += "</skill_resources>\n</skill_content>";
    return reference_finish(out);
}

// Random text from pieces that exercise every branch: CR/LF pairs split or not, controls,
// C1, ill-formed and truncated sequences, U+FFFE/U+FFFF, XML specials, wrapper tags (with
// spaces and controls after `<`) and clean runs longer than a 16-byte step.
class Pieces {
public:
    explicit Pieces(std::uint32_t seed) : rng_(seed) {}

    std::string text(std::size_t max_pieces) {
        static const std::vector<std::string> pieces = {
            "a",
            "plain words here",
            std::string(23, 'x'),
            std::string(40, 'y'),
            "\n",
            "\r",
            "\r\n",
            "\t",
            std::string(1, '\0'),
            "\x01",
            "\x0b",
            "\x0c",
            "\x1b[2J",
            "\x7f",
            "\xC2\x85",
            "\xC2\x9F",
            "\xC2\xA0",
            "\xC3\xA9",
            "\xE2\x82\xAC",
            "\xF0\x9F\x98\x80",
            "\xEF\xBF\xBE",
            "\xEF\xBF\xBF",
            "\xEF\xBF\xBD",
            "\xEF\xBF",
            "\xC3",
            "\xE2\x82",
            "\xF0\x9F\x98",
            "\xFF",
            "\x80",
            "\xED\xA0\x80",
            "\xC0\xAF",
            "&",
            "<",
            ">",
            "\"",
            "'",
            "&amp;",
            "<skill_content name=\"x\">",
            "</skill_content>",
            "< /SKILL-RESOURCES",
            "<\x0cskill_content",
            "<\rskill_content",
            "<\x01skill_resources",
            "<",
            "skill_content",
        };
        std::string out;
        const std::size_t count = std::uniform_int_distribution<std::size_t>(0, max_pieces)(rng_);
        for (std::size_t i = 0; i < count; ++i) {
            out += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng_)];
        }
        return out;
    }

    bool coin() { return std::uniform_int_distribution<int>(0, 1)(rng_) == 1; }

    std::size_t below(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

private:
    std::mt19937 rng_;
};

}  // namespace

TEST_CASE("model_text and is_model_text agree with the code point definition", "[text][model-output]") {
    Pieces pieces(1234);
    for (int i = 0; i < 4000; ++i) {
        const std::string s = pieces.text(30);
        const std::string expected = reference_model_text(s);
        CAPTURE(s);
        REQUIRE(model_text(s) == expected);
        REQUIRE(is_model_text(s) == (expected == s));
    }
    // Each byte value at each offset of a 16-byte step, between clean ASCII.
    for (unsigned value = 0; value < 256; ++value) {
        for (std::size_t at = 0; at < 40; ++at) {
            std::string s(40, 'k');
            s[at] = static_cast<char>(value);
            CAPTURE(value, at);
            REQUIRE(model_text(s) == reference_model_text(s));
        }
    }
    // (Built with append: GCC 12 warns falsely about a chain of operator+ here, -Warray-bounds.)
    std::string crlf_at_step(15, 'a');
    crlf_at_step.append("\r\n").append(15, 'b').append("\r").append(16, 'c');
    std::string expected(15, 'a');
    expected.append("\n").append(15, 'b').append("\n").append(16, 'c');
    CHECK(model_text(crlf_at_step) == expected);
}

TEST_CASE("model text of long text: each byte value at offsets of the 128- and 256-byte steps",
          "[text][model-output]") {
    // Long clean runs go by in blocks (256 bytes with AVX2, 128 with SSE2); one byte of each value
    // at offsets across two blocks of each, and a TAB or CR LF beside it, must come out as the
    // byte-by-byte definition says.
    const std::string base = [] {
        std::string s;
        while (s.size() < 700) s += "Read the change in order, `ALTER TABLE` | note {x} [y] ~z;\n";
        return s.substr(0, 700);
    }();
    REQUIRE(is_model_text(base));
    for (unsigned value = 0; value < 256; ++value) {
        for (std::size_t at : {0UL,   1UL,   15UL,  16UL,  31UL,  32UL,  63UL,  64UL,  127UL, 128UL, 129UL,
                               200UL, 255UL, 256UL, 257UL, 383UL, 384UL, 511UL, 512UL, 513UL, 640UL, 699UL}) {
            std::string s = base;
            s[at] = static_cast<char>(value);
            CAPTURE(value, at);
            const std::string expected = reference_model_text(s);
            REQUIRE(model_text(s) == expected);
            REQUIRE(is_model_text(s) == (expected == s));
            LoadedSkill skill;  // the body of an activation: finished model text, wrapper tags neutralized
            skill.manifest.name = "long";
            skill.manifest.root = "skills/long";
            skill.instructions = s;
            REQUIRE(render_activation_text(skill, {.include_directory = true}) == reference_activation(skill, true));
        }
    }
    for (std::size_t at = 0; at + 1 < base.size(); at += 37) {
        std::string tab = base;
        tab[at] = '\t';
        CHECK(is_model_text(tab));
        std::string crlf = base;
        crlf[at] = '\r';
        crlf[at + 1] = '\n';
        CAPTURE(at);
        CHECK_FALSE(is_model_text(crlf));
        CHECK(model_text(crlf) == reference_model_text(crlf));
    }
}

TEST_CASE("render_available_skills: the same bytes as escaping each value and finishing the block",
          "[prompt][model-output]") {
    Pieces pieces(99);
    for (int round = 0; round < 300; ++round) {
        std::vector<SkillManifest> manifests(1 + pieces.below(6));
        std::vector<CatalogEntry> entries;
        for (auto& m : manifests) {
            m.name = pieces.text(6);
            m.description = pieces.text(20);
            m.skill_file = pieces.text(5) + "/SKILL.md";
            if (pieces.below(5) == 0) m.mode = SkillMode::name_only;
        }
        for (const auto& m : manifests) entries.push_back({.manifest = &m, .include_description = pieces.coin()});
        const std::string block = render_available_skills(entries);
        REQUIRE(block == reference_block(entries));
        REQUIRE(is_model_text(block));
    }
}

TEST_CASE("render_activation_text: the same bytes as cleaning each value and finishing the text",
          "[activation][model-output]") {
    Pieces pieces(7);
    for (int round = 0; round < 600; ++round) {
        LoadedSkill skill;
        skill.manifest.name = pieces.text(5);
        skill.manifest.root = pieces.coin() ? pieces.text(4) : std::string(".");
        skill.manifest.library = pieces.coin() ? "mcp:" + pieces.text(4) : pieces.text(3);
        skill.instructions = pieces.text(60);
        const std::size_t files = pieces.below(4);
        for (std::size_t i = 0; i < files; ++i) skill.resources.push_back({.path = pieces.text(4)});
        skill.omitted_resources = pieces.below(3);
        const bool include_directory = pieces.coin();
        const std::string text = render_activation_text(skill, {.include_directory = include_directory});
        CAPTURE(skill.instructions);
        REQUIRE(text == reference_activation(skill, include_directory));
        REQUIRE(is_model_text(text));
    }
}

}  // namespace model_output_tests
