// Hardening of the parser and the name rules (issue 12): bounded NFKC, bounded frontmatter depth
// and JSON copy, control characters, tool-list caps, document markers, invisible blanks, token
// floods. Each case failed on the code before these bounds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include <agentskills/base/names.hpp>
#include <agentskills/parse/parser.hpp>

using namespace agentskills;
using namespace std::string_literals;

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HARDENING_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define HARDENING_SANITIZED 1
#endif
#endif
#ifndef HARDENING_SANITIZED
#define HARDENING_SANITIZED 0
#endif

namespace {

ParseResult parse(const std::string& text, ParseOptions opt = {}) {
    if (opt.path.empty()) opt.path = "lib/demo/SKILL.md";
    return parse_skill_md(text, opt);
}

ParseOptions strict_names() {
    ParseOptions opt;
    opt.name_policy = NamePolicy::require_valid;
    opt.directory_name = "demo";
    return opt;
}

ParseOptions reference_profile() {
    ParseOptions opt;
    opt.profile = ValidationProfile::reference;
    return opt;
}

bool has_code(const ParseResult& r, std::string_view code) {
    return std::any_of(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
}

const Diagnostic& diag(const ParseResult& r, std::string_view code) {
    auto it =
        std::find_if(r.diagnostics.begin(), r.diagnostics.end(), [&](const Diagnostic& d) { return d.code == code; });
    REQUIRE(it != r.diagnostics.end());
    return *it;
}

std::string skill(const std::string& extra) {
    return "---\nname: demo\ndescription: A demo skill.\n" + extra + "---\nBody\n";
}

std::string repeat(std::string_view s, std::size_t n) {
    std::string out;
    out.reserve(s.size() * n);
    for (std::size_t i = 0; i < n; ++i) out += s;
    return out;
}

// Peak resident-set growth, in KiB, of `work` run in a forked child (-1 when unknown). The child
// resets its high-water mark first, so that the memory of the test binary does not count.
long child_peak_growth_kib(const std::function<void()>& work) {
    const auto status_kib = [](const char* field) {
        long value = -1;
        if (FILE* f = std::fopen("/proc/self/status", "r")) {
            char line[256];
            const std::size_t n = std::char_traits<char>::length(field);
            while (std::fgets(line, sizeof line, f) != nullptr) {
                if (std::string_view(line).substr(0, n) == field) value = std::strtol(line + n, nullptr, 10);
            }
            std::fclose(f);
        }
        return value;
    };
    int fds[2];
    if (::pipe(fds) != 0) return -1;
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        ::close(fds[0]);
        long growth = -1;
        if (FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
            const bool reset = std::fputs("5", f) >= 0;
            if (std::fclose(f) == 0 && reset) {
                const long base = status_kib("VmRSS:");
                work();
                growth = status_kib("VmHWM:") - base;
            }
        }
        const bool ok = ::write(fds[1], &growth, sizeof growth) == static_cast<ssize_t>(sizeof growth);
        ::_exit(ok ? 0 : 1);
    }
    ::close(fds[1]);
    long growth = -1;
    if (::read(fds[0], &growth, sizeof growth) != static_cast<ssize_t>(sizeof growth)) growth = -1;
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return growth;
}

}  // namespace

// ---- 1. NFKC is bounded

TEST_CASE("text over the NFKC bound is never normalized", "[names][hardening]") {
    // U+0301 (class 230) before U+0316 (class 220): canonical reordering would swap every pair,
    // in time quadratic in their number.
    const std::string marks = "a" + repeat("\xCC\x81", 2000) + repeat("\xCC\x96", 2000);
    CHECK(exceeds_nfkc_bound(marks));
    CHECK(nfkc(marks) == marks);
    CHECK(check_skill_name(marks) == std::vector{NameProblem::too_long});
    CHECK_FALSE(names_equal(marks, "a"));
    CHECK_FALSE(names_equal("a", marks));
    CHECK(names_equal(marks, marks));  // the same bytes are the same name

    // Exactly at the bound text is normalized; one code point more and it is not.
    const std::string fullwidth_a = "\xEF\xBD\x81";  // U+FF41
    CHECK_FALSE(exceeds_nfkc_bound(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS)));
    CHECK(nfkc(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS)) == std::string(NFKC_MAX_CODE_POINTS, 'a'));
    CHECK(exceeds_nfkc_bound(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1)));
    CHECK(nfkc(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1)) == repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1));
    CHECK(check_skill_name(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1)) == std::vector{NameProblem::too_long});
    // A too-long name still compares unequal, even with itself written differently.
    CHECK_FALSE(names_equal(repeat(fullwidth_a, NFKC_MAX_CODE_POINTS + 1), std::string(NFKC_MAX_CODE_POINTS + 1, 'a')));
    // ASCII needs no normalization and is returned as it is, however long.
    CHECK(nfkc(std::string(100000, 'a')) == std::string(100000, 'a'));
}

TEST_CASE("a name of a million combining marks is too long, quickly, in every policy", "[parser][hardening]") {
    const std::string name = "a" + repeat("\xCC\x81", 250000) + repeat("\xCC\x96", 250000);
    ParseOptions opt;
    opt.max_bytes = 0;
    const auto kept = parse("---\nname: " + name + "\ndescription: d\n---\n", opt);
    REQUIRE(kept.ok());
    CHECK(kept.manifest()->name == name);
    const Diagnostic& d = diag(kept, "name-too-long");
    CHECK(d.severity == Severity::warning);
    CHECK(d.message.size() < 400);  // the name is shown cut, not in full

    ParseOptions strict = strict_names();
    strict.max_bytes = 0;
    const auto skipped = parse("---\nname: " + name + "\ndescription: d\n---\n", strict);
    REQUIRE_FALSE(skipped.ok());
    CHECK(*skipped.skip_reason() == SkipReason::invalid);
    CHECK(diag(skipped, "name-too-long").severity == Severity::error);
    CHECK(diag(skipped, "name-directory-mismatch").message.size() < 400);
}

// ---- 3. Depth and the JSON copy are bounded

TEST_CASE("frontmatter nesting deeper than the bound is too complex", "[parser][hardening]") {
    const std::size_t over = SKILL_MAX_FRONTMATTER_DEPTH;  // + the top-level mapping = one too deep
    SECTION("flow sequences") {
        const auto r = parse(skill("x: " + std::string(over, '[') + "a" + std::string(over, ']') + "\n"));
        REQUIRE_FALSE(r.ok());
        CHECK(has_code(r, "yaml-too-complex"));
        CHECK(*r.skip_reason() == SkipReason::invalid);
    }
    SECTION("block mappings") {
        std::string yaml;
        for (std::size_t i = 0; i <= over; ++i) yaml += std::string(i, ' ') + "k:\n";
        yaml += std::string(over + 1, ' ') + "leaf\n";
        const auto r = parse(skill(yaml));
        REQUIRE_FALSE(r.ok());
        CHECK(has_code(r, "yaml-too-complex"));
    }
    SECTION("compact block sequences") {
        const auto r = parse(skill("x:\n" + repeat("- ", over) + "a\n"));
        REQUIRE_FALSE(r.ok());
        CHECK(has_code(r, "yaml-too-complex"));
    }
    SECTION("one level less is fine, in both profiles") {
        const std::string yaml = "x: " + std::string(over - 1, '[') + "a" + std::string(over - 1, ']') + "\n";
        REQUIRE(parse(skill(yaml)).ok());
        CHECK_FALSE(has_code(parse(skill(yaml), reference_profile()), "yaml-too-complex"));
    }
}

TEST_CASE("the JSON copy of the frontmatter has a byte budget that aliases count toward", "[parser][hardening]") {
    // 1,000 control characters are 6,000 bytes of JSON; 800 aliases of them are 4.8 MB of JSON
    // from a 7 KB file, within the YAML node and copied-text budgets.
    const std::string controls = repeat("\\x01", 1000);
    std::string yaml = "metadata:\n  a: &a \"" + controls + "\"\n  b: [*a";
    for (int i = 1; i < 800; ++i) yaml += ", *a";
    yaml += "]\n";
    const auto r = parse(skill(yaml));
    REQUIRE_FALSE(r.ok());
    CHECK(has_code(r, "yaml-too-complex"));
    CHECK(diag(r, "yaml-too-complex").message.find("JSON") != std::string::npos);

    // 400 aliases (2.4 MB of JSON) fit; the copy is made and is what the file says.
    std::string fits = "metadata:\n  a: &a \"" + controls + "\"\n  b: [*a";
    for (int i = 1; i < 400; ++i) fits += ", *a";
    fits += "]\n";
    const auto ok = parse(skill(fits));
    REQUIRE(ok.ok());
    CHECK(ok.manifest()->frontmatter->at("metadata").at("b").size() == 400);
    CHECK(ok.manifest()->frontmatter->dump().size() <= SKILL_MAX_FRONTMATTER_JSON_BYTES);
}

TEST_CASE("printed frontmatter stays proportionate to the file", "[parser][hardening]") {
    // The shape of the issue: deep flow sequences around aliases of earlier lines. Either it is
    // refused, or its indented JSON is at most a few MB.
    std::string yaml = "metadata:\n  l0: &l0 [" + repeat("x, ", 200) + "x]\n";
    for (int i = 1; i < 40; ++i) {
        yaml += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " " + std::string(60, '[') + "*l" +
                std::to_string(i - 1) + ", *l" + std::to_string(i - 1) + std::string(60, ']') + "\n";
    }
    const auto r = parse(skill(yaml));
    if (r.ok()) {
        CHECK(r.manifest()->frontmatter->dump(2).size() < 3 * SKILL_MAX_FRONTMATTER_JSON_BYTES);
    } else {
        CHECK(has_code(r, "yaml-too-complex"));
    }
}

// ---- 7. Control characters in name and description

TEST_CASE("control characters in name or description are invalid under require_valid", "[parser][hardening]") {
    for (const std::string escape :
         {"\\0", "\\x00", "\\u0000", "\\e[2J", "\\x1b]0;title\\x07", "\\x85", "\\u009b", "\\x7f", "\\r", "\\x08"}) {
        INFO(escape);
        const auto desc = parse("---\nname: demo\ndescription: \"before " + escape + " after\"\n---\n", strict_names());
        REQUIRE_FALSE(desc.ok());
        CHECK(*desc.skip_reason() == SkipReason::invalid);
        CHECK(diag(desc, "description-control-character").severity == Severity::error);

        const auto kept = parse("---\nname: demo\ndescription: \"before " + escape + " after\"\n---\n");
        REQUIRE(kept.ok());
        CHECK(diag(kept, "description-control-character").severity == Severity::warning);

        const auto name = parse("---\nname: \"de" + escape + "mo\"\ndescription: d\n---\n", strict_names());
        REQUIRE_FALSE(name.ok());
        CHECK(*name.skip_reason() == SkipReason::invalid);
        CHECK(has_errors(name.diagnostics));
    }
    // TAB and line feed are text.
    const auto fine = parse("---\nname: demo\ndescription: \"a\\tb\\nc\"\n---\n", strict_names());
    REQUIRE(fine.ok());
    CHECK(fine.manifest()->description == "a\tb\nc");
}

// ---- 5. Tool lists are capped

TEST_CASE("tool lists keep at most SKILL_MAX_TOOL_NAMES names, with a warning", "[parser][hardening]") {
    std::string comma_list;
    std::string space_list;
    std::string block_list;
    for (std::size_t i = 0; i < SKILL_MAX_TOOL_NAMES + 500; ++i) {
        comma_list += (i == 0 ? "t" : ", t") + std::to_string(i);
        space_list += (i == 0 ? "t" : " t") + std::to_string(i);
        block_list += "  - t" + std::to_string(i) + "\n";
    }
    SECTION("tools") {
        const auto r = parse(skill("tools: " + comma_list + "\n"));
        REQUIRE(r.ok());
        REQUIRE(r.manifest()->tools);
        CHECK(r.manifest()->tools->size() == SKILL_MAX_TOOL_NAMES);
        CHECK(r.manifest()->tools->back() == "t" + std::to_string(SKILL_MAX_TOOL_NAMES - 1));
        const Diagnostic& d = diag(r, "tool-list-too-long");
        CHECK(d.severity == Severity::warning);
        CHECK(d.line == 4);
        CHECK(d.message.find("1000") != std::string::npos);
    }
    SECTION("disallowedTools, both spellings together") {
        ParseOptions opt;
        opt.max_lines = 0;  // one line per name
        const auto r = parse(skill("disallowedTools:\n" + block_list + "disallowed-tools: extra\n"), opt);
        REQUIRE(r.ok());
        CHECK(r.manifest()->disallowed_tools.size() == SKILL_MAX_TOOL_NAMES);
        CHECK(has_code(r, "tool-list-too-long"));
    }
    SECTION("allowed-tools, in both profiles") {
        for (const ParseOptions& opt : {ParseOptions{}, reference_profile()}) {
            const auto r = parse(skill("allowed-tools: " + space_list + "\n"), opt);
            REQUIRE(r.ok());
            CHECK(r.manifest()->allowed_tools.size() == SKILL_MAX_TOOL_NAMES);
            CHECK(diag(r, "tool-list-too-long").severity == Severity::warning);
        }
    }
    SECTION("duplicates do not count") {
        const auto r = parse(skill("tools: " + repeat("Read, ", 5000) + "Write\n"));
        REQUIRE(r.ok());
        CHECK(*r.manifest()->tools == std::vector<std::string>{"Read", "Write"});
        CHECK_FALSE(has_code(r, "tool-list-too-long"));
    }
}

// ---- 12. One YAML document

TEST_CASE("a YAML document marker inside the frontmatter is a syntax error", "[parser][hardening]") {
    const std::vector<std::string> cases = {
        "---\nname: demo\ndescription: d\n...\ndisable-model-invocation: true\n---\nBody\n",
        "---\nname: demo\ndescription: d\n...\n---\nBody\n",
        "---\nname: demo\ndescription: d\n... # end\n---\nBody\n",
        "---\nname: demo\ndescription: d\n--- disable-model-invocation: true\n---\nBody\n",
        "---\nname: demo\ndescription: d\n---\t{x: 1}\n---\nBody\n",
        "---\r\nname: demo\r\ndescription: d\r\n...\r\nuser-invocable: false\r\n---\r\nBody\r\n",
    };
    for (const auto& text : cases) {
        INFO(text);
        for (const ParseOptions& opt : {ParseOptions{}, reference_profile(), strict_names()}) {
            const auto r = parse(text, opt);
            REQUIRE_FALSE(r.ok());
            CHECK(*r.skip_reason() == SkipReason::invalid);
            CHECK(diag(r, "yaml-syntax").line == 4);
        }
    }
    // Not markers: three dots or dashes inside a line, or followed by text.
    const auto fine = parse("---\nname: demo\ndescription: wait... ---\nx: |\n  ...\n  --- \n...more: 1\n---\n");
    REQUIRE(fine.ok());
    CHECK(fine.manifest()->frontmatter->at("x") == "...\n--- \n");
}

// ---- 14. Blank means invisible too

TEST_CASE("blank text: white space and default-ignorable code points", "[names][hardening]") {
    for (const char* blank : {"", " \t\n\r\v\f", "\xC2\xA0" /* NBSP */, "\xE3\x80\x80" /* U+3000 */,
                              "\xE2\x80\x8B" /* ZWSP */, "\xE2\x80\xA8" /* U+2028 */, "\xE2\x81\xA0" /* U+2060 */,
                              "\xC2\x85" /* NEL */, "\xE2\x80\x8D\xE2\x80\x8C" /* ZWJ ZWNJ */, "\xEF\xBB\xBF" /* BOM */,
                              "\xC2\xAD" /* soft hyphen */, "\xEF\xB8\x8F" /* VS16 */, "\xE1\x9A\x80" /* U+1680 */,
                              "\xE3\x85\xA4" /* U+3164 Hangul filler */, "\xF3\xA0\x80\xA0" /* U+E0020 tag space */}) {
        INFO(blank);
        CHECK(is_blank_text(blank));
        if (*blank != '\0') CHECK(check_skill_name(blank) == std::vector{NameProblem::empty});
    }
    for (const char* text : {"a", " a ",
                             "\xE2\x80\x8B"
                             "a",
                             "-", "\xC2\xB7", "\xFF"}) {
        INFO(text);
        CHECK_FALSE(is_blank_text(text));
    }
}

TEST_CASE("names and descriptions of only invisible characters are blank", "[parser][hardening]") {
    for (const std::string yaml_value :
         {"\"\\u00a0\"", "\"\\u3000\"", "\"\\u200b\"", "\"\\u2028\"", "\"\\u2060\"", "\"\\N\"", "\"\\_\"",
          "\"\\u200b\\u200d\\ufeff\"", "\xE2\x80\x8B", "\xE3\x80\x80\xE3\x80\x80"}) {
        INFO(yaml_value);
        for (const ParseOptions& opt : {ParseOptions{}, strict_names(), reference_profile()}) {
            const auto name = parse("---\nname: " + yaml_value + "\ndescription: d\n---\n", opt);
            REQUIRE_FALSE(name.ok());
            CHECK(diag(name, "name-blank").line == 2);
            const auto desc = parse("---\nname: demo\ndescription: " + yaml_value + "\n---\n", opt);
            REQUIRE_FALSE(desc.ok());
            CHECK(diag(desc, "description-blank").line == 3);
        }
    }
}

// ---- 15. Token floods are refused before yaml-cpp

TEST_CASE("token floods are refused before parsing, in little memory", "[parser][hardening]") {
    const std::size_t n = SKILL_MAX_FILE_BYTES - 100;
    const std::vector<std::pair<std::string, std::string>> floods = {
        {"[", "x: " + std::string(n, '[') + "\n"},     {"{", "x: " + std::string(n, '{') + "\n"},
        {"[a,", "x: [" + repeat("a,", n / 2) + "]\n"}, {"&a", "x: [" + repeat("&a ", n / 3) + "]\n"},
        {"- ", "x:\n" + repeat("- ", n / 2) + "a\n"},  {"? ", "x: " + repeat("? ", n / 2) + "\n"},
        {"[]", "x: " + repeat("[]", n / 2) + "\n"},
    };
    for (const auto& [what, yaml] : floods) {
        SECTION(what) {
            const std::string text = skill(yaml);
            REQUIRE(text.size() <= SKILL_MAX_FILE_BYTES);
            const auto r = parse(text);
            REQUIRE_FALSE(r.ok());
            CHECK(diag(r, "yaml-too-complex").line >= 4);
            if (!HARDENING_SANITIZED) {
                const long growth = child_peak_growth_kib([&] { (void)parse(text); });
                INFO("peak RSS growth: " << growth << " KiB");
                REQUIRE(growth >= 0);
                CHECK(growth < 32L * 1024);
            }
        }
    }
}

TEST_CASE("the indicator budget leaves room for wide but honest frontmatter", "[parser][hardening]") {
    // 30,000 flow-mapping entries: 60,001 indicators, under the budget of 100,000.
    std::string yaml = "metadata: {";
    for (int i = 0; i < 30000; ++i) yaml += (i == 0 ? "k" : ", k") + std::to_string(i) + ": v";
    yaml += "}\n";
    ParseOptions opt;
    opt.max_bytes = 0;
    const auto r = parse(skill(yaml), opt);
    REQUIRE(r.ok());
    CHECK(r.manifest()->metadata.size() == 30000);
}

// ---- ParseResult holds a manifest or a skip reason, never both, never neither

TEST_CASE("ParseResult is a manifest or a skip reason", "[parser]") {
    ParseResult r;
    CHECK_FALSE(r.ok());
    CHECK(r.manifest() == nullptr);
    CHECK(r.skip_reason() == SkipReason::invalid);
    SkillManifest m;
    m.name = "demo";
    r.keep(m);
    REQUIRE(r.ok());
    CHECK(r.manifest()->name == "demo");
    CHECK_FALSE(r.skip_reason());
    r.skip(SkipReason::unreadable);
    CHECK_FALSE(r.ok());
    CHECK(r.manifest() == nullptr);
    CHECK(r.skip_reason() == SkipReason::unreadable);

    for (const std::string text : {"---\nname: demo\ndescription: d\n---\n", "---\nname: demo\n---\n", "", "\xFF"}) {
        const auto parsed = parse(text);
        CHECK(parsed.ok() == (parsed.manifest() != nullptr));
        CHECK(parsed.ok() != parsed.skip_reason().has_value());
        CHECK(parsed.ok() != has_errors(parsed.diagnostics));
    }
}

TEST_CASE("the deprecated truncated overload still skips", "[parser]") {
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    const auto r = parse_skill_md("---\nname: demo\ndescription: d\n---\n", ParseOptions{}, true);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    CHECK(r.skip_reason() == SkipReason::too_large);
    ParseOptions opt;
    opt.truncated = true;
    CHECK(parse_skill_md("---\nname: demo\ndescription: d\n---\n", opt).skip_reason() == SkipReason::too_large);
}

TEST_CASE("large frontmatters parsed from several threads give the results of one thread", "[parser][concurrency]") {
    // Over SKILL_LARGE_FRONTMATTER_BYTES, parses pass one at a time through the process-wide gate.
    std::string yaml = "metadata: {";
    for (int i = 0; i < 3000; ++i) yaml += (i == 0 ? "k" : ", k") + std::to_string(i) + ": v";
    yaml += "}\n";
    const std::string large = skill(yaml);
    const std::string small = skill("");
    REQUIRE(large.size() > SKILL_LARGE_FRONTMATTER_BYTES);
    const auto expected = parse(large);
    REQUIRE(expected.ok());
    std::vector<std::thread> threads;
    std::vector<int> agreed(4, 0);
    for (std::size_t t = 0; t < agreed.size(); ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 5; ++i) {
                const auto r = parse(i % 2 == 0 ? large : small);
                const bool same = i % 2 == 0 ? r.ok() && *r.manifest()->frontmatter == *expected.manifest()->frontmatter
                                             : r.ok() && r.manifest()->name == "demo";
                agreed[t] += same ? 1 : 0;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(agreed == std::vector<int>(4, 5));
}
