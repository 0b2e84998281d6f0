// The YAML front end's one recovery (yaml.hpp, recover_plain_values): a top-level value written
// as plain text that YAML cannot read as plain text (`description: Use when: the user asks`) is
// read as the double-quoted scalar of the same text. Skills written for agents whose readers
// accept such values are common (docs/skill-format.md, "Recovering plain values").
#include <string>
#include <string_view>
#include <vector>

#include "agentskills/parse/parser.hpp"
#include "yaml.hpp"

namespace agentskills::detail {
namespace {

struct Line {
    std::size_t begin = 0;  // first byte
    std::size_t end = 0;    // the byte after its content (before any CR and the LF)
};

std::vector<Line> split_lines(std::string_view text) {
    std::vector<Line> lines;
    std::size_t begin = 0;
    while (begin <= text.size()) {
        std::size_t lf = text.find('\n', begin);
        const bool last = lf == std::string_view::npos;
        if (last) lf = text.size();
        std::size_t end = lf;
        if (end > begin && text[end - 1] == '\r') --end;
        lines.push_back({begin, end});
        if (last) break;
        begin = lf + 1;
    }
    return lines;
}

bool blank(char c) noexcept { return c == ' ' || c == '\t'; }

// Where the value of the top-level entry on `line` starts (after the key's ':' and its blanks),
// or npos when the line is not `key: text` with a plain key and a plain-looking value on it;
// `key` is set to the key.
std::size_t plain_value_start(std::string_view line, std::string_view& key) noexcept {
    if (line.empty()) return std::string_view::npos;
    // What cannot start a plain key: blanks, a comment, indicators of YAML's other node kinds.
    static constexpr std::string_view not_key = " \t#-?:\"'[]{},&*!|>%@`";
    if (not_key.find(line.front()) != std::string_view::npos) return std::string_view::npos;
    std::size_t colon = 0;
    for (;;) {
        colon = line.find(':', colon + 1);
        if (colon == std::string_view::npos) return std::string_view::npos;
        if (colon + 1 == line.size() || blank(line[colon + 1])) break;
    }
    key = line.substr(0, colon);
    while (!key.empty() && blank(key.back())) key.remove_suffix(1);
    std::size_t value = colon + 1;
    while (value < line.size() && blank(line[value])) ++value;
    if (value == line.size()) return std::string_view::npos;  // a nested block follows, or nothing
    // Quoted and block scalars are the writer's own choice of style; a comment is no value.
    static constexpr std::string_view not_plain = "\"'|>#";
    if (not_plain.find(line[value]) != std::string_view::npos) return std::string_view::npos;
    return value;
}

bool parses(std::string_view yaml, const YamlOptions& options) {
    YamlOptions one = options;
    one.prescan = false;  // the whole frontmatter passed it
    const YamlTree tree = read_yaml_tree(yaml, one);
    return !tree.problem && tree.root && tree.root->kind == YNode::Kind::mapping;
}

}  // namespace

std::optional<std::string> recover_plain_values(std::string_view frontmatter, const YamlOptions& options,
                                                std::vector<RecoveredValue>& recovered) {
    recovered.clear();
    if (frontmatter.size() > SKILL_MAX_YAML_RECOVERY_BYTES) return std::nullopt;
    const std::vector<Line> lines = split_lines(frontmatter);
    std::string out;
    std::size_t copied = 0;  // bytes of `frontmatter` already in `out`
    for (std::size_t i = 0; i < lines.size();) {
        const std::string_view line = frontmatter.substr(lines[i].begin, lines[i].end - lines[i].begin);
        std::string_view key;
        const std::size_t value = plain_value_start(line, key);
        // The entry: its line and the lines below it that are indented or blank.
        std::size_t next = i + 1;
        std::size_t last = i;  // its last line with content
        while (next < lines.size()) {
            const std::string_view below = frontmatter.substr(lines[next].begin, lines[next].end - lines[next].begin);
            if (!below.empty() && !blank(below.front())) break;
            if (below.find_first_not_of(" \t") != std::string_view::npos) last = next;
            ++next;
        }
        if (value == std::string_view::npos) {
            i = next;
            continue;
        }
        const std::size_t entry_begin = lines[i].begin;
        const std::size_t entry_end = lines[last].end;
        const std::string_view entry = frontmatter.substr(entry_begin, entry_end - entry_begin);
        if (parses(entry, options)) {
            i = next;
            continue;
        }
        // The text of the value, as a plain scalar spans it: to the last character that is not a
        // blank. A ` #` inside a line is text here (the value is not valid YAML already, and the
        // readers that accept such values keep it); a comment line of its own among the lines
        // leaves the entry as it is.
        const std::size_t text_begin = entry_begin + value;
        std::size_t text_end = entry_end;
        while (text_end > text_begin && blank(frontmatter[text_end - 1])) --text_end;
        const std::string_view text = frontmatter.substr(text_begin, text_end - text_begin);
        bool comment = false;
        for (std::size_t k = 0; k < text.size() && !comment; ++k) {
            if (text[k] != '#') continue;
            std::size_t b = k;
            while (b > 0 && blank(text[b - 1])) --b;
            comment = b > 0 && text[b - 1] == '\n';
        }
        if (comment) {
            i = next;
            continue;
        }
        std::string quoted = "\"";
        for (char c : text) {
            if (c == '"' || c == '\\') quoted += '\\';
            quoted += c;
        }
        quoted += '"';
        std::string candidate(frontmatter.substr(entry_begin, text_begin - entry_begin));
        candidate += quoted;
        if (!parses(candidate, options)) {
            i = next;
            continue;
        }
        out.append(frontmatter.substr(copied, text_begin - copied));
        out += quoted;
        copied = text_end;
        recovered.push_back({i, std::string(key)});
        i = next;
    }
    if (recovered.empty()) return std::nullopt;
    out.append(frontmatter.substr(copied));
    return out;
}

}  // namespace agentskills::detail
