// agentskills-cpp (private) — positions in a frontmatter as ruamel counts them (code points),
// and its error text: what the strictyaml emulation (reference_yaml.cpp) and the stream-level
// checks (reference_stream.cpp) share.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "reference_detail.hpp"

namespace agentskills::reference::detail {

// A position in the frontmatter text, as ruamel counts it (code points, 0-based).
struct Mark {
    std::size_t pointer = 0;
    std::size_t line = 0;
    std::size_t column = 0;
};

class Source {
public:
    explicit Source(std::string_view text) : text_(text), cps_(code_points(text)) {
        // Byte offset of each code point, to turn yaml-cpp's byte positions into ruamel's.
        std::size_t byte = 0;
        for (char32_t c : cps_) {
            offsets_.push_back(byte);
            byte += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        }
        offsets_.push_back(byte);
        line_starts_.push_back(0);
        for (std::size_t i = 0; i < cps_.size(); ++i) {
            if (is_break(cps_[i])) line_starts_.push_back(i + 1);
        }
    }

    [[nodiscard]] Mark at_byte(std::size_t byte) const {
        const auto it = std::lower_bound(offsets_.begin(), offsets_.end(), byte);
        return at_pointer(static_cast<std::size_t>(it - offsets_.begin()));
    }

    [[nodiscard]] Mark at_pointer(std::size_t pointer) const {
        pointer = std::min(pointer, cps_.size());
        // The last line that starts at or before `pointer`.
        const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), pointer);
        Mark m;
        m.pointer = pointer;
        m.line = static_cast<std::size_t>(it - line_starts_.begin()) - 1;
        m.column = pointer - line_starts_[m.line];
        return m;
    }

    // StringMark.__str__ with its snippet (indent 4, at most 75 characters around the pointer).
    [[nodiscard]] std::string describe(const Mark& m) const {
        std::string out = fmt::format("  in \"<unicode string>\", line {}, column {}:\n", m.line + 1, m.column + 1);
        std::string head, tail;
        std::size_t start = m.pointer;
        while (start > 0 && !is_stop(cps_[start - 1])) {
            --start;
            if (static_cast<double>(m.pointer - start) > 75 / 2.0 - 1) {
                head = " ... ";
                start += 5;
                break;
            }
        }
        std::size_t end = m.pointer;
        while (end < cps_.size() && !is_stop(cps_[end])) {
            ++end;
            if (static_cast<double>(end - m.pointer) > 75 / 2.0 - 1) {
                tail = " ... ";
                end -= 5;
                break;
            }
        }
        out += "    " + head + to_utf8(std::u32string_view(cps_).substr(start, end > start ? end - start : 0)) + tail +
               "\n";
        out += std::string(4 + m.pointer - start + head.size(), ' ') + fmt::format("^ (line: {})", m.line + 1);
        return out;
    }

    [[nodiscard]] const std::u32string& cps() const noexcept { return cps_; }
    [[nodiscard]] std::string_view text() const noexcept { return text_; }

private:
    static bool is_break(char32_t c) { return c == '\n' || c == 0x85 || c == 0x2028 || c == 0x2029; }
    static bool is_stop(char32_t c) { return c == 0 || c == '\r' || is_break(c); }

    std::string_view text_;
    std::u32string cps_;
    std::vector<std::size_t> offsets_;
    std::vector<std::size_t> line_starts_;  // pointer of the first character of each line
};

// MarkedYAMLError.__str__: context, its mark (unless it is the problem's), problem, its mark.
inline std::string marked_error(const Source& src, const std::string& context, const std::optional<Mark>& context_mark,
                                const std::string& problem, const std::optional<Mark>& problem_mark) {
    std::vector<std::string> lines;
    if (!context.empty()) lines.push_back(context);
    if (context_mark &&
        (!problem_mark || context_mark->line != problem_mark->line || context_mark->column != problem_mark->column)) {
        lines.push_back(src.describe(*context_mark));
    }
    if (!problem.empty()) lines.push_back(problem);
    if (problem_mark) lines.push_back(src.describe(*problem_mark));
    std::string out;
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
    return out;
}

// ---- The stream around the first document, as ruamel's scanner and parser see it
// (reference_stream.cpp). yaml-cpp reads these differently or not at all, so the emulation
// checks them on the text.

/// ruamel's scanner skips only spaces between tokens: the first tab in the run of blanks that
/// starts at `p` (after a token, before the next one), if there is one.
[[nodiscard]] std::optional<std::size_t> tab_in_blanks(const Source& src, std::size_t p);

/// "found character '\t' that cannot start any token", at `tab`.
[[nodiscard]] std::string tab_error(const Source& src, std::size_t tab);

/// "while scanning a simple key": a scalar at `key` (at its block mapping's indentation) with no
/// ':' after it on its line. The problem mark is `stale_at` (where the scanner stands when it
/// finds the key stale), by default the next token or comment after the key's line.
[[nodiscard]] std::string simple_key_error(const Source& src, std::size_t key,
                                           std::optional<std::size_t> stale_at = std::nullopt);

/// The name ruamel's parser gives the token that starts at `p` where that token is sure to be the
/// next one it sees: nullopt for what its scanner refuses or reads otherwise (`- `, `? `, `: `,
/// `%`, `@`, a backquote), and when a ':' later on the line could make the scanner fail first.
[[nodiscard]] std::optional<std::string> next_token_name(const std::u32string& c, std::size_t p);

/// "while parsing a block node": the first token of the text cannot start a node (yaml-cpp ended
/// its first document there and started another).
[[nodiscard]] std::string first_node_error(const Source& src);

/// Where the first document ends for ruamel before the end of the text: a `...` line, or a
/// directive (`%` at the start of a line), at or after `from`.
struct StreamBreak {
    enum class Kind { document_end, directive };
    Kind kind = Kind::document_end;
    std::size_t pointer = 0;
};
[[nodiscard]] std::optional<StreamBreak> find_stream_break(const Source& src, std::size_t from = 0);

/// ruamel's error for what follows `brk` (without the "Invalid YAML in frontmatter: " prefix),
/// or nullopt when the stream ends well there. `first_content` is where the first document's
/// content starts, when it starts before the break.
[[nodiscard]] std::optional<std::string> stream_break_error(const Source& src, const StreamBreak& brk,
                                                            std::optional<std::size_t> first_content);

}  // namespace agentskills::reference::detail
