// Fuzz target: the SKILL.md parser, both validation profiles and both name policies.
//
// Input: one option byte, then the text of a SKILL.md.
//   bit 0: reference profile       bit 1: require_valid name policy
//   bit 2: a directory name is known ("demo")   bit 3: small limits (20 lines, 2 KiB)
//   bit 4: the caller says the read was truncated   bit 5: the one pass counts lines
//   bit 6: yaml_recovery plain_values (checked against a parse without it)
// Also: the one pass over the text (scan_text) and is_valid_utf8 give utf8proc's UTF-8 verdict.
#include <algorithm>

#include <agentskills/base/names.hpp>
#include <agentskills/parse/parser.hpp>

#include <utf8proc.h>
#include <nlohmann/json.hpp>

#include "../src/base/byte_scans.hpp"
#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

// What utf8proc_iterate accepts, code point by code point.
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const std::string_view text = in.rest();

    const bool utf8 = utf8proc_accepts(text);
    FUZZ_CHECK(detail::scan_text(text, (flags & 32) != 0).valid_utf8 == utf8);
    FUZZ_CHECK(is_valid_utf8(text) == utf8);

    ParseOptions opt;
    opt.profile = (flags & 1) != 0 ? ValidationProfile::reference : ValidationProfile::standard;
    opt.name_policy = (flags & 2) != 0 ? NamePolicy::require_valid : NamePolicy::keep;
    opt.directory_name = (flags & 4) != 0 ? std::string_view("demo") : std::string_view();
    if ((flags & 8) != 0) {
        opt.max_lines = 20;
        opt.max_bytes = 2048;
    }
    opt.path = "lib/demo/SKILL.md";
    const bool truncated = (flags & 16) != 0;
    opt.truncated = truncated;
    if ((flags & 64) != 0) opt.yaml_recovery = YamlRecovery::plain_values;

    const ParseResult r = parse_skill_md(text, opt);

    // The recovery changes nothing of a file whose YAML reads, and recovers only after a
    // yaml-syntax error; a recovered value is a warning on a line of the file.
    if (opt.yaml_recovery != YamlRecovery::none) {
        ParseOptions plain = opt;
        plain.yaml_recovery = YamlRecovery::none;
        const ParseResult without = parse_skill_md(text, plain);
        std::size_t recovered = 0;
        // Lines as the parser counts them: LF, CRLF and a lone CR each end one.
        std::size_t lines = 1;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) ++lines;
        }
        for (const Diagnostic& d : r.diagnostics) {
            if (d.code != "yaml-recovered") continue;
            ++recovered;
            FUZZ_CHECK(d.severity == Severity::warning);
            FUZZ_CHECK(d.line >= 2 && d.line <= lines);
        }
        FUZZ_CHECK(recovered == 0 || opt.profile == ValidationProfile::standard);
        if (recovered == 0) {
            FUZZ_CHECK(r.ok() == without.ok());
            FUZZ_CHECK(r.diagnostics.size() == without.diagnostics.size());
            if (r.ok()) FUZZ_CHECK(r.manifest()->description == without.manifest()->description);
        } else {
            FUZZ_CHECK(!without.ok());
            FUZZ_CHECK(std::any_of(without.diagnostics.begin(), without.diagnostics.end(),
                                   [](const Diagnostic& d) { return d.code == "yaml-syntax"; }));
        }
    }

    // Exactly one of: a manifest, or a skip reason with an error diagnostic.
    FUZZ_CHECK(r.ok() != r.skip_reason().has_value());
    for (const Diagnostic& d : r.diagnostics) {
        FUZZ_CHECK(d.path == opt.path);
        FUZZ_CHECK(!d.code.empty());
        FUZZ_CHECK(is_valid_utf8(d.message) || !is_valid_utf8(text));
        (void)format_diagnostic(d);
        nlohmann::json j = d;
        (void)j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    if (truncated) FUZZ_CHECK(!r.ok() && *r.skip_reason() == SkipReason::too_large);
    if (!r.ok()) {
        FUZZ_CHECK(has_errors(r.diagnostics));
        return 0;
    }
    FUZZ_CHECK(!has_errors(r.diagnostics));
    const SkillManifest& m = *r.manifest();
    FUZZ_CHECK(is_valid_utf8(text));
    FUZZ_CHECK(text.find('\0') == std::string_view::npos);
    FUZZ_CHECK(opt.max_bytes == 0 || text.size() <= opt.max_bytes);
    FUZZ_CHECK(!m.name.empty());
    FUZZ_CHECK(!m.description.empty());
    FUZZ_CHECK(is_valid_utf8(m.name) && is_valid_utf8(m.description) && is_valid_utf8(r.instructions));
    FUZZ_CHECK(code_point_count(m.description) <= SKILL_MAX_DESCRIPTION_LENGTH);
    if (m.compatibility) FUZZ_CHECK(code_point_count(*m.compatibility) <= SKILL_MAX_COMPATIBILITY_LENGTH);
    if (opt.name_policy == NamePolicy::require_valid) {
        FUZZ_CHECK(is_valid_skill_name(m.name));
        if (!opt.directory_name.empty()) FUZZ_CHECK(names_equal(m.name, opt.directory_name));
    }
    FUZZ_CHECK(!is_blank_text(m.name) && !is_blank_text(m.description));
    if (opt.name_policy == NamePolicy::require_valid) {
        for (char c : m.description) {
            const auto u = static_cast<unsigned char>(c);
            FUZZ_CHECK(u >= 0x20 || c == '\t' || c == '\n');
        }
    }
    FUZZ_CHECK(m.allowed_tools.size() <= SKILL_MAX_TOOL_NAMES);
    FUZZ_CHECK(m.disallowed_tools.size() <= SKILL_MAX_TOOL_NAMES);
    if (m.tools) FUZZ_CHECK(m.tools->size() <= SKILL_MAX_TOOL_NAMES);
    FUZZ_CHECK(r.instructions.size() <= text.size());
    FUZZ_CHECK(m.frontmatter->is_object());
    // The JSON copy stays within its budget, printed compact or indented.
    FUZZ_CHECK(m.frontmatter->dump().size() <= SKILL_MAX_FRONTMATTER_JSON_BYTES);
    FUZZ_CHECK(m.frontmatter->dump(1).size() <= 2 * SKILL_MAX_FRONTMATTER_JSON_BYTES);
    // Every JSON form of the result can be produced and is valid UTF-8.
    nlohmann::json j = m;
    (void)j.dump();
    return 0;
}
