// Tests of names.hpp: Unicode helpers and the skill-name rules.
// One file per public header; the hostile cases are sections of it.
#include <string>

#include <catch2/catch.hpp>

#include <agentskills/base/names.hpp>
#include <agentskills/base/skill.hpp>

// =======================================================================================
// test_names.cpp

namespace names_tests {

using namespace agentskills;

TEST_CASE("valid names under the agentskills.io rules", "[names]") {
    for (const char* name : {"pdf-processing", "v2-tool-3", "\xE6\x8A\x80\xE8\x83\xBD" /* 技能 */,
                             "\xD0\xBC\xD0\xBE\xD0\xB9-\xD0\xBD\xD0\xB0\xD0\xB2\xD1\x8B\xD0\xBA" /* мой-навык */,
                             "caf\xC3\xA9" /* café precomposed */, "cafe\xCC\x81" /* cafe + U+0301 */,
                             "a\xD9\xA3" /* a + Arabic-Indic 3 */, "x\xC2\xB2" /* x² -> x2 */, "123"}) {
        INFO(name);
        CHECK(check_skill_name(name).empty());
        CHECK(is_valid_skill_name(name));
    }
}

TEST_CASE("length is counted in code points after NFKC", "[names]") {
    CHECK(is_valid_skill_name(std::string(64, 'a')));
    CHECK(check_skill_name(std::string(65, 'a')) == std::vector{NameProblem::too_long});
    // 64 two-byte code points are 128 bytes and still valid.
    std::string e64;
    for (int i = 0; i < 64; ++i) e64 += "\xC3\xA9";
    CHECK(is_valid_skill_name(e64));
    CHECK(check_skill_name(e64 + "\xC3\xA9") == std::vector{NameProblem::too_long});
}

TEST_CASE("invalid names and the rule each breaks", "[names]") {
    CHECK(check_skill_name("") == std::vector{NameProblem::empty});
    CHECK(check_skill_name("-pdf") == std::vector{NameProblem::edge_hyphen});
    CHECK(check_skill_name("pdf-") == std::vector{NameProblem::edge_hyphen});
    CHECK(check_skill_name("pdf--processing") == std::vector{NameProblem::consecutive_hyphens});
    CHECK(check_skill_name("My-Skill") == std::vector{NameProblem::not_lowercase});
    CHECK(check_skill_name("my_skill") == std::vector{NameProblem::invalid_character});
    CHECK(check_skill_name("\xD0\x9D\xD0\x90\xD0\x92\xD0\xAB\xD0\x9A" /* НАВЫК */) ==
          std::vector{NameProblem::not_lowercase});
    CHECK(check_skill_name("a\xC3\x97"
                           "b" /* a×b */) == std::vector{NameProblem::invalid_character});
    CHECK(check_skill_name("my skill") == std::vector{NameProblem::invalid_character});
    CHECK(check_skill_name("my.skill") == std::vector{NameProblem::invalid_character});
    CHECK(check_skill_name("\xC7\x85"
                           "a" /* titlecase Dž */) == std::vector{NameProblem::not_lowercase});
    CHECK(check_skill_name("-A_") ==
          std::vector{NameProblem::not_lowercase, NameProblem::edge_hyphen, NameProblem::invalid_character});
}

TEST_CASE("every ASCII byte inside a name, and the same byte beside a non-ASCII letter", "[names]") {
    // ASCII names are checked a byte at a time, others code point by code point after NFKC: the
    // same rule either way (U+00E9 is a lowercase letter, so it changes no verdict).
    for (int b = 0; b < 0x80; ++b) {
        const char c = static_cast<char>(b);
        const bool upper = c >= 'A' && c <= 'Z';
        const bool allowed = (c >= 'a' && c <= 'z') || upper || (c >= '0' && c <= '9') || c == '-';
        std::vector<NameProblem> expected;
        if (upper) expected.push_back(NameProblem::not_lowercase);
        if (!allowed) expected.push_back(NameProblem::invalid_character);
        const std::string ascii = std::string("a") + c + "b";
        INFO("byte " << b);
        CHECK(check_skill_name(ascii) == expected);
        CHECK(check_skill_name(ascii + "\xC3\xA9") == expected);
    }
    CHECK(check_skill_name(std::string(" \t ")) == std::vector{NameProblem::empty});
    CHECK(check_skill_name(std::string(64, 'a') + "\xC3\xA9") == std::vector{NameProblem::too_long});
    CHECK(check_skill_name("-a--B-") ==
          std::vector{NameProblem::not_lowercase, NameProblem::edge_hyphen, NameProblem::consecutive_hyphens});
}

TEST_CASE("is_letter_or_number: the letters and numbers a name may hold", "[names]") {
    // Letters of each kind (Lu, Ll, Lt, Lm, Lo) and numbers (Nd, Nl, No).
    for (const char32_t cp :
         {U'A', U'z', U'7', U'\u00E9', U'\u01C5', U'\u02B0', U'\u6280', U'\u0663', U'\u2160', U'\u00BD'}) {
        INFO("U+" << std::hex << static_cast<unsigned>(cp));
        CHECK(is_letter_or_number(cp));
    }
    // Punctuation, symbols, marks, spaces, controls, unassigned and surrogate code points.
    for (const char32_t cp : {U'-', U'_', U' ', U'.', U'\u0000', U'\u007F', U'\u0301', U'\u00A0', U'\u2014', U'\uFFFD',
                              U'\U0001F600', char32_t{0x0378}, char32_t{0xD800}, char32_t{0x110000}}) {
        INFO("U+" << std::hex << static_cast<unsigned>(cp));
        CHECK_FALSE(is_letter_or_number(cp));
    }
    // The name rule follows it beyond ASCII: an Arabic-Indic digit (U+0663) passes, an em dash fails.
    CHECK(check_skill_name("step-\xD9\xA3").empty());
    CHECK(check_skill_name("a\xE2\x80\x94"
                           "b") == std::vector{NameProblem::invalid_character});
}

TEST_CASE("NFKC normalization", "[names]") {
    CHECK(nfkc("abc") == "abc");
    CHECK(nfkc("\xEF\xBD\x81\xEF\xBD\x82\xEF\xBD\x83" /* ａｂｃ */) == "abc");
    CHECK(nfkc("cafe\xCC\x81") == "caf\xC3\xA9");
    CHECK(names_equal("\xEF\xBD\x81\xEF\xBD\x82\xEF\xBD\x83", "abc"));
    CHECK(names_equal("cafe\xCC\x81", "caf\xC3\xA9"));
    CHECK_FALSE(names_equal("abc", "abd"));
    CHECK(nfkc("\xFF\xFE") == "\xFF\xFE");  // invalid UTF-8 comes back unchanged
}

TEST_CASE("UTF-8 validity, code points and truncation", "[names]") {
    CHECK(is_valid_utf8("plain"));
    CHECK(is_valid_utf8("\xE6\x8A\x80"));
    CHECK_FALSE(is_valid_utf8("\xFF"));
    CHECK_FALSE(is_valid_utf8("\xC0\xAF"));      // overlong '/'
    CHECK_FALSE(is_valid_utf8("\xED\xA0\x80"));  // surrogate
    CHECK_FALSE(is_valid_utf8("\xE6\x8A"));      // cut short
    CHECK(code_point_count("caf\xC3\xA9") == 4);
    CHECK(truncate_code_points("caf\xC3\xA9s", 4) == "caf\xC3\xA9");
    CHECK(truncate_code_points("abc", 10) == "abc");
    CHECK(truncate_code_points("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 1) == "\xF0\x9F\x98\x80");
}

TEST_CASE("valid_utf8 replaces each byte that starts no well-formed sequence", "[names][utf8]") {
    CHECK(valid_utf8("") == "");
    CHECK(valid_utf8("plain ascii") == "plain ascii");
    CHECK(valid_utf8("caf\xC3\xA9 \xE6\x8A\x80 \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE6\x8A\x80 \xF0\x9F\x98\x80");
    CHECK(valid_utf8("escape: \xEF") == "escape: \xEF\xBF\xBD");                  // the first byte of U+FEFF alone
    CHECK(valid_utf8("\xEF\xBB") == "\xEF\xBF\xBD\xEF\xBF\xBD");                  // a cut 3-byte sequence: one per byte
    CHECK(valid_utf8("a\xC0\xAF_") == "a\xEF\xBF\xBD\xEF\xBF\xBD_");              // overlong '/'
    CHECK(valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
    CHECK(valid_utf8("\xFF") == "\xEF\xBF\xBD");
    CHECK(is_valid_utf8(valid_utf8("x\x80y\xF4\x90\x80\x80z")));
}

TEST_CASE("valid_utf8 can read stray bytes as Latin-1", "[names][utf8]") {
    CHECK(valid_utf8("x\xA0y\x85z", InvalidByte::latin1) == "x\xC2\xA0y\xC2\x85z");
    CHECK(valid_utf8("\xFF", InvalidByte::latin1) == "\xC3\xBF");
    CHECK(valid_utf8("caf\xC3\xA9", InvalidByte::latin1) == "caf\xC3\xA9");  // valid text is kept
}

}  // namespace names_tests
