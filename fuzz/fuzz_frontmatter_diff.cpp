// Differential fuzz target: the frontmatter fast path (src/parse/yaml_fast.cpp) against yaml-cpp.
//
// Input: one option byte (as fuzz_parser.cpp: bit 0 reference profile, bit 1 require_valid,
// bit 2 directory name "demo", bit 3 small limits), then text. Two comparisons, each aborting on
// any difference:
//   1. the text as a whole SKILL.md: parse_skill_md with the fast path and without it gives the
//      same result (kept or skipped, skip reason, body, every diagnostic, the manifest as JSON);
//   2. the text as a frontmatter: when the fast path reads it, yaml-cpp reads the same tree
//      (kinds, texts, marks, anchors, flags) with the same strict-YAML findings (flow collections).
// The fast path fills the room of the tree read before it on the thread (recycle_yaml_tree; the
// parser gives back every tree, and so does this target), yaml-cpp builds afresh: the comparisons
// also hold the reuse of one input's tree for the next to a tree built from nothing.
#include <agentskills/base/names.hpp>
#include <agentskills/parse/parser.hpp>

#include <nlohmann/json.hpp>

#include "../src/parse/session.hpp"
#include "../src/parse/yaml.hpp"
#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

ParseResult parse_with(std::string_view text, const ParseOptions& opt, bool fast) {
    detail::set_frontmatter_fast_path(fast);
    ParseResult r = parse_skill_md(text, opt);
    detail::set_frontmatter_fast_path(true);
    return r;
}

void check_same(const ParseResult& a, const ParseResult& b) {
    FUZZ_CHECK(a.ok() == b.ok());
    FUZZ_CHECK(a.skip_reason() == b.skip_reason());
    FUZZ_CHECK(a.instructions == b.instructions);
    FUZZ_CHECK(a.diagnostics.size() == b.diagnostics.size());
    for (std::size_t i = 0; i < a.diagnostics.size(); ++i) {
        const Diagnostic& x = a.diagnostics[i];
        const Diagnostic& y = b.diagnostics[i];
        FUZZ_CHECK(x.code == y.code && x.severity == y.severity && x.path == y.path && x.line == y.line &&
                   x.message == y.message);
    }
    if (a.ok()) {
        const nlohmann::json ja = *a.manifest();
        const nlohmann::json jb = *b.manifest();
        FUZZ_CHECK(ja == jb);
        FUZZ_CHECK(a.manifest()->frontmatter->dump() == b.manifest()->frontmatter->dump());
    }
}

bool same_tree(const detail::YNode& a, const detail::YNode& b) {
    if (a.kind != b.kind || a.text != b.text || a.line != b.line || a.column != b.column || a.offset != b.offset ||
        a.anchor != b.anchor || a.flags != b.flags) {
        return false;
    }
    if (a.items.size() != b.items.size()) return false;
    for (std::size_t i = 0; i < a.items.size(); ++i) {
        if (!same_tree(a.items[i], b.items[i])) return false;
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const std::string_view text = in.rest();

    ParseOptions opt;
    opt.profile = (flags & 1) != 0 ? ValidationProfile::reference : ValidationProfile::standard;
    opt.name_policy = (flags & 2) != 0 ? NamePolicy::require_valid : NamePolicy::keep;
    opt.directory_name = (flags & 4) != 0 ? std::string_view("demo") : std::string_view();
    if ((flags & 8) != 0) {
        opt.max_lines = 20;
        opt.max_bytes = 2048;
    }
    opt.path = "lib/demo/SKILL.md";
    check_same(parse_with(text, opt, true), parse_with(text, opt, false));

    // The text as a frontmatter (the parser hands the fast path valid UTF-8 without CRLF).
    if (!is_valid_utf8(text) || text.find('\0') != std::string_view::npos) return 0;
    if (detail::prescan_yaml(text)) return 0;
    if (std::optional<detail::YNode> fast = detail::read_common_yaml(text)) {
        detail::StrictFindings strict;
        detail::set_frontmatter_fast_path(false);
        const detail::YamlRead slow = detail::read_yaml(text, &strict);
        detail::set_frontmatter_fast_path(true);
        FUZZ_CHECK(!slow.problem);
        FUZZ_CHECK(slow.root.has_value());
        detail::YamlTree fast_tree;
        fast_tree.root = *fast;
        FUZZ_CHECK(strict.list == detail::strict_findings(fast_tree).list);
        FUZZ_CHECK(same_tree(*fast, *slow.root));
        // The next input's fast reads fill this tree's room (recycle_yaml_tree), as in a discovery.
        detail::recycle_yaml_tree(std::move(*fast));
    }
    return 0;
}
