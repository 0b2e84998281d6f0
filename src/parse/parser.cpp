// SKILL.md parsing: the stages of a file (limits and encoding, frontmatter split, YAML), then
// the fields (fields.cpp). The YAML is read by the front end (yaml.hpp) under the bounds below.
#include "agentskills/parse/parser.hpp"

#include <algorithm>
#include <condition_variable>
#include <iterator>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/core.h>

#include "../base/byte_scans.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"
#include "session.hpp"
#include "yaml_json.hpp"

namespace agentskills {
namespace detail {

namespace {

// The parse of a frontmatter costs up to ~250 bytes of memory per byte (yaml-cpp's tokens, the
// tree, its JSON copy), so a discovery on many threads could hold many such parses at once.
// Frontmatters over SKILL_LARGE_FRONTMATTER_BYTES (no real skill comes near) therefore take a
// place in this process-wide gate first: at most SKILL_MAX_CONCURRENT_LARGE_PARSES at a time.
class LargeParseGate {
public:
    static LargeParseGate& instance() {
        static LargeParseGate gate;
        return gate;
    }
    void enter() {
        std::unique_lock<std::mutex> lock(mutex_);
        free_.wait(lock, [this] { return active_ < SKILL_MAX_CONCURRENT_LARGE_PARSES; });
        ++active_;
    }
    void leave() {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            --active_;
        }
        free_.notify_one();
    }

private:
    std::mutex mutex_;
    std::condition_variable free_;
    std::size_t active_ = 0;
};

// Holds a place in the gate for its lifetime when `large`.
class LargeParsePlace {
public:
    explicit LargeParsePlace(bool large) : large_(large) {
        if (large_) LargeParseGate::instance().enter();
    }
    ~LargeParsePlace() {
        if (!large_) return;
#if defined(__GLIBC__)
        // glibc keeps what a thread freed in that thread's arena, so without this each worker
        // thread would keep the peak of its largest parse resident.
        malloc_trim(0);
#endif
        LargeParseGate::instance().leave();
    }
    LargeParsePlace(const LargeParsePlace&) = delete;
    LargeParsePlace& operator=(const LargeParsePlace&) = delete;

private:
    bool large_;
};

// The parser's bounds: every node built, every node copied for an alias and every node copied
// for an anchor counts against the node budget (an alias counts as a node itself too); the text
// copied by anchors and aliases counts against the byte budget (one alias of a long scalar
// repeated many times is a bomb in bytes, not in nodes); nesting; the size of the JSON copy.
constexpr std::size_t max_yaml_nodes = 100000;
constexpr std::size_t max_yaml_copied_bytes = 4 * 1024 * 1024;

constexpr YamlOptions frontmatter_options{.bounds = {.max_nodes = max_yaml_nodes,
                                                     .max_text_bytes = max_yaml_copied_bytes,
                                                     .max_depth = SKILL_MAX_FRONTMATTER_DEPTH,
                                                     .max_json_bytes = SKILL_MAX_FRONTMATTER_JSON_BYTES,
                                                     .text = YamlBounds::Text::copied,
                                                     .keys_count = true,
                                                     .anchor_copies_count = true,
                                                     .alias_counts_itself = true,
                                                     .alias_depth = false},
                                          .prescan = true,
                                          .valid_utf8 = true,  // check_text has seen to it
                                          // yaml-cpp starts a second document where text goes on
                                          // after the top-level value ended; it would be lost.
                                          .one_document = true};

// What strict YAML refuses, from `n` on, in document order; an alias's copy is one finding.
void add_findings(const YamlTree& tree, const YNode& n, StrictFindings& out) {
    if (n.has(YNode::alias)) {
        out.add(tree.alias_mark(n).line, "an alias");
        return;
    }
    if (n.has(YNode::tagged)) out.add(n.line, fmt::format("the tag '{}'", tree.tag(n)));
    if (n.anchor != 0) out.add(n.line, "an anchor");
    if (n.has(YNode::flow)) out.add(n.line, std::string(flow_collection_finding));
    for (const YNode& item : n.items) add_findings(tree, item, out);
}

}  // namespace

StrictFindings strict_findings(const YamlTree& tree) {
    StrictFindings out;
    if (tree.root) add_findings(tree, *tree.root, out);
    return out;
}

YamlRead read_yaml(std::string_view frontmatter, StrictFindings* strict) {
    YamlTree tree = read_yaml_tree(frontmatter, frontmatter_options);
    YamlRead out;
    if (tree.problem) {
        out.problem = std::move(tree.problem);
        return out;
    }
    if (strict != nullptr) *strict = strict_findings(tree);
    out.root = std::move(tree.root);
    return out;
}

namespace {

// The parser's rules for the one walk (yaml_json.hpp): every scalar and null as its literal text,
// a key that is not a scalar as its compact JSON text, the later of two equal keys. The tree is
// complete here (read_yaml returns none with a problem), so nothing is refused.
struct FrontmatterTextRules {
    [[nodiscard]] nlohmann::json scalar(const YNode& n) const { return n.text; }
    void unresolved_alias(const YNode&) const {}
    bool alias_value(const YNode&, nlohmann::json&) const { return false; }
    bool key(const YNode& k, bool, std::string& text) const {
        text = key_text(k);
        return true;
    }
    bool missing_value(const YNode&, const std::string&) const { return true; }
    static constexpr bool checks_duplicates = false;
    void duplicate_key(const YNode&, const std::string&) const {}
};

}  // namespace

std::string key_text(const YNode& key) {
    if (key.is_scalar()) return key.text;
    return to_json(key).dump();
}

nlohmann::json to_json(const YNode& n) {
    nlohmann::json out;
    (void)yaml_tree_json(n, out, FrontmatterTextRules{});
    return out;
}

nlohmann::json frontmatter_text_json(std::string_view frontmatter) {
    const YamlRead yaml = read_yaml(frontmatter);
    return yaml.root ? to_json(*yaml.root) : nlohmann::json::object();
}

void Parse::add(std::string_view code, Level standard, Level ref, std::size_t file_line, std::string message) {
    const Level level = reference() ? ref : standard;
    if (level == Level::none) return;
    Diagnostic d;
    d.code = std::string(code);
    d.severity = level == Level::error ? Severity::error : level == Level::warning ? Severity::warning : Severity::info;
    d.path = std::string(opt_.path);
    d.line = file_line;
    d.message = std::move(message);
    if (d.severity == Severity::error) failed_ = true;
    out_.diagnostics.push_back(std::move(d));
}

void Parse::fatal(std::string_view code, std::size_t file_line, std::string message, SkipReason reason) {
    add(code, Level::error, Level::error, file_line, std::move(message));
    if (!skip_) skip_ = reason;
}

void Parse::run(std::string_view text) {
    out_.skip(SkipReason::invalid);
    if (!check_text(text) || !split_and_interpret(text) || failed_) out_.skip(skip_.value_or(SkipReason::invalid));
}

bool Parse::split_and_interpret(std::string_view text) {
    const std::optional<Split> parts = split(text);
    if (!parts) return false;
    const LargeParsePlace place(parts->frontmatter.size() > SKILL_LARGE_FRONTMATTER_BYTES);
    if (keep_instructions_) out_.instructions = trim_blank_lines(parts->body);
    std::string_view frontmatter = parts->frontmatter;
    std::optional<YNode> root = read_frontmatter(frontmatter);
    if (!root) return false;
    interpret(*root, frontmatter);
    recycle_yaml_tree(std::move(*root));
    return true;
}

// The whole file: size, line breaks (from here on `text` is the file with LF breaks only),
// encoding, NUL, byte-order mark (removed from `text`), line count.
bool Parse::check_text(std::string_view& text) {
    if (opt_.truncated || (opt_.max_bytes != 0 && text.size() > opt_.max_bytes)) {
        fatal(codes::too_large, 0,
              fmt::format("the file is larger than the byte limit ({} bytes); it was not read further", opt_.max_bytes),
              SkipReason::too_large);
        return false;
    }
    // One pass finds what the checks below need (byte_scans.hpp); lines are counted only where
    // a limit applies (a file of at most max_lines bytes cannot have more lines than that).
    const bool limited = !reference() && opt_.max_lines != 0 && text.size() > opt_.max_lines;
    TextScan scan = scan_text(text, limited);
    if (scan.nul_or_cr) {
        // CRLF and a lone CR are line breaks, as YAML 1.2 and the reference (Python's universal
        // newlines) read them: a file saved with CR endings is the same skill as with LF ones.
        const char* const before = text.data();
        text = with_lf_breaks(text, text_storage_);
        if (text.data() != before) scan = scan_text(text, limited);
    }
    // The pass checked the UTF-8 sequences where it found bytes from 0x80 on.
    if (!scan.valid_utf8) {
        // Name the first line that is not valid UTF-8 on its own.
        std::size_t line = 1;
        for (std::size_t begin = 0; begin < text.size(); ++line) {
            const std::size_t nl = text.find('\n', begin);
            const std::size_t end = nl == std::string_view::npos ? text.size() : nl;
            if (!is_valid_utf8(text.substr(begin, end - begin))) break;
            begin = end + 1;
        }
        fatal(codes::invalid_utf8, line, "the file is not valid UTF-8");
        return false;
    }
    if (const std::size_t nul = scan.nul_or_cr ? text.find('\0') : std::string_view::npos;
        nul != std::string_view::npos) {
        const auto before = text.substr(0, nul);
        fatal(codes::nul_byte, 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')),
              "the file contains a NUL byte; a SKILL.md must be text");
        return false;
    }
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        add(codes::bom, Level::warning, Level::error, 1,
            reference() ? "the file starts with a byte-order mark, not with the frontmatter line ---"
                        : "the file starts with a UTF-8 byte-order mark; it was ignored");
        text.remove_prefix(3);
        if (reference()) return false;
    }
    if (!limited) return true;
    // A last line without a newline counts (the byte-order mark holds none).
    const std::size_t lines = scan.newlines + ((!text.empty() && text.back() != '\n') ? 1 : 0);
    if (lines > opt_.max_lines) {
        fatal(codes::too_many_lines, opt_.max_lines + 1,
              fmt::format("the file has {} lines, more than the limit of {}; to lift it, set the option max_lines "
                          "(0 = no limit) or pass --max-lines N (--max-lines 0) to agentskills",
                          lines, opt_.max_lines),
              SkipReason::too_large);
        return false;
    }
    return true;
}

// The frontmatter between the opening line `---` and the next line `---`, and the body after it.
std::optional<Parse::Split> Parse::split(std::string_view text) {
    const std::size_t first_nl = text.find('\n');
    if (!is_delimiter(text.substr(0, first_nl))) {
        fatal(codes::frontmatter_missing, 1, "the file must start with a line '---' that opens the YAML frontmatter");
        return std::nullopt;
    }
    if (first_nl == std::string_view::npos) {
        fatal(codes::frontmatter_unclosed, 1, "the frontmatter is not closed by a line '---'");
        return std::nullopt;
    }
    for (std::size_t pos = first_nl + 1; pos < text.size();) {
        const std::size_t nl = text.find('\n', pos);
        const std::string_view line =
            text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
        if (is_delimiter(line)) {
            const std::size_t body_begin = nl == std::string_view::npos ? text.size() : nl + 1;
            return Split{text.substr(first_nl + 1, pos - (first_nl + 1)), text.substr(body_begin)};
        }
        if (nl == std::string_view::npos) break;
        pos = nl + 1;
    }
    fatal(codes::frontmatter_unclosed, 1, "the frontmatter opened on line 1 is not closed by a line '---'");
    return std::nullopt;
}

// Every line the sentence names is the diagnostic's: the file's line of the YAML mark.
FrontmatterProblem Parse::frontmatter_problem(const YamlProblem& p) const {
    const std::size_t line = p.mark ? file_line(p.mark->line) : 0;
    switch (p.kind) {
        case YamlProblem::Kind::document_marker:
            return {codes::yaml_syntax, line,
                    fmt::format("the frontmatter has the YAML document marker '{}' on line {}; it must be one YAML "
                                "document (keys after the marker would be lost)",
                                p.message, line)};
        case YamlProblem::Kind::flow_depth:
            return {
                codes::yaml_too_complex, line,
                fmt::format("the frontmatter nests '[' and '{{' deeper than {} levels", SKILL_MAX_FRONTMATTER_DEPTH)};
        case YamlProblem::Kind::indicators:
            return {codes::yaml_too_complex, line,
                    fmt::format("the frontmatter has more than {} YAML indicator characters ([ ] {{ }} , & * ! - ? :); "
                                "it is refused before parsing",
                                SKILL_MAX_YAML_INDICATORS)};
        case YamlProblem::Kind::syntax:
            // yaml-cpp may quote one byte of a multi-byte character ("unknown escape character").
            return {codes::yaml_syntax, line,
                    fmt::format("the frontmatter is not valid YAML: {}", valid_utf8(p.message))};
        case YamlProblem::Kind::depth:
            return {codes::yaml_too_complex, line,
                    fmt::format("the frontmatter nests collections deeper than {} levels (line {})",
                                SKILL_MAX_FRONTMATTER_DEPTH, line)};
        case YamlProblem::Kind::json_bytes:
            return {codes::yaml_too_complex, 0,
                    fmt::format("the frontmatter is larger than {} bytes as JSON (aliases count once per use)",
                                SKILL_MAX_FRONTMATTER_JSON_BYTES)};
        case YamlProblem::Kind::second_document:
            return {codes::yaml_syntax, line,
                    fmt::format("the frontmatter is not valid YAML: the text goes on at line {} after its top-level "
                                "value has ended (a line indented less than the ones before it?); what follows "
                                "would be lost",
                                line)};
        case YamlProblem::Kind::nodes:
        case YamlProblem::Kind::text_bytes:
            break;
    }
    // `line`: where the budget ran out (the node or alias being read).
    return {codes::yaml_too_complex, line,
            fmt::format("the frontmatter expands past the YAML budget ({} nodes, {} bytes of text copied by anchors "
                        "and aliases); is it an alias bomb?",
                        max_yaml_nodes, max_yaml_copied_bytes)};
}

// The YAML of the frontmatter as a tree whose root is a mapping; strict-YAML findings reported
// (the reference profile's errors; the standard profile has no use for them).
std::optional<YNode> Parse::read_frontmatter(std::string_view& frontmatter) {
    StrictFindings strict;
    YamlRead yaml = read_yaml(frontmatter, reference() ? &strict : nullptr);
    std::optional<FrontmatterProblem> problem;
    if (yaml.problem) problem = frontmatter_problem(*yaml.problem);
    if (problem && problem->code == codes::yaml_syntax) {
        if (std::optional<YamlRead> again = recover(frontmatter)) {
            yaml = std::move(*again);  // read without a problem
            problem.reset();
        }
    }
    if (problem) {
        fatal(problem->code, problem->line, std::move(problem->message));
        return std::nullopt;
    }
    for (const auto& [line, what] : strict.list) {
        add(codes::yaml_strict, Level::none, Level::error, file_line(line),
            fmt::format("the frontmatter uses {}, which strict YAML does not allow", what));
    }
    if (!yaml.root || yaml.root->kind != YNode::Kind::mapping) {
        fatal(codes::frontmatter_not_mapping, 2, "the frontmatter must be a YAML mapping of keys to values");
        return std::nullopt;
    }
    return std::move(yaml.root);
}

// ParseOptions::yaml_recovery: the frontmatter read again with its misread plain values quoted,
// when that reads without a problem; each value recovered is a warning at its line.
std::optional<YamlRead> Parse::recover(std::string_view& frontmatter) {
    if (opt_.yaml_recovery != YamlRecovery::plain_values || reference()) return std::nullopt;
    std::vector<RecoveredValue> values;
    std::optional<std::string> text = recover_plain_values(frontmatter, frontmatter_options, values);
    if (!text) return std::nullopt;
    YamlRead again = read_yaml(*text);
    if (again.problem) return std::nullopt;
    for (const RecoveredValue& v : values) {
        add(codes::yaml_recovered, Level::warning, Level::none, file_line(v.line),
            fmt::format("the value of '{}' is not valid as plain YAML text (a ': ' or an indicator in it); it was "
                        "read as quoted text",
                        shown(v.key)));
    }
    recovered_storage_ = std::move(*text);
    frontmatter = recovered_storage_;
    return again;
}

}  // namespace detail

ParseResult parse_skill_md(std::string_view text, const ParseOptions& options) {
    ParseResult result;
    detail::Parse(options, result).run(text);
    return result;
}

ParseResult parse_skill_md(std::string_view text, const ParseOptions& options, bool truncated) {
    ParseOptions copy = options;
    copy.truncated = options.truncated || truncated;
    return parse_skill_md(text, copy);
}

}  // namespace agentskills
