// The reference profile: what ruamel's scanner and parser make of the stream around the first
// document of a frontmatter, where yaml-cpp reads the text otherwise — a `...` line and what
// follows it, a directive, a tab between tokens, a scalar at a mapping's indentation without its
// ':' (see reference_marks.hpp). Every message is ruamel's, with its marks.
#include <algorithm>

#include <fmt/core.h>

#include "reference_marks.hpp"

namespace agentskills::reference::detail {
namespace {

bool blank_or_break(const std::u32string& c, std::size_t i) {
    return i >= c.size() || c[i] == ' ' || c[i] == '\t' || c[i] == '\n';
}

// Where ruamel's scanner starts its next token from `p`: past spaces, line breaks and comments
// (never past a tab).
std::size_t next_token(const std::u32string& c, std::size_t p) {
    while (p < c.size()) {
        if (c[p] == ' ' || c[p] == '\n') {
            ++p;
        } else if (c[p] == '#') {
            while (p < c.size() && c[p] != '\n') ++p;
        } else {
            break;
        }
    }
    return p;
}

// Where the round-trip scanner stands when it finds a simple key stale, from the end of the key's
// line: past line breaks and spaces, at the next token or at a comment that starts a line
// (comments are tokens to it).
std::size_t next_token_or_comment(const std::u32string& c, std::size_t p) {
    while (p < c.size() && (c[p] == ' ' || c[p] == '\n')) ++p;
    return p;
}

std::size_t line_end(const std::u32string& c, std::size_t p) {
    while (p < c.size() && c[p] != '\n') ++p;
    return p;
}

bool document_end_at(const std::u32string& c, std::size_t p) {
    return p + 3 <= c.size() && c[p] == '.' && c[p + 1] == '.' && c[p + 2] == '.' && blank_or_break(c, p + 3);
}

// The id ruamel's parser prints for the token that starts at `p`, at the start of a document.
std::string token_id(const Source& src, std::size_t p) {
    const auto& c = src.cps();
    if (p >= c.size()) return "<stream end>";
    if (src.at_pointer(p).column == 0 && document_end_at(c, p)) return "<document end>";
    // A flow entry or a closing bracket never starts a key: it is its own token.
    if (c[p] == ',' || c[p] == ']' || c[p] == '}') return std::string(1, static_cast<char>(c[p]));
    // What the scanner puts first at a new indentation: a block collection's start.
    if (c[p] == '-' && blank_or_break(c, p + 1)) return "<block sequence start>";
    if (c[p] == '?' && blank_or_break(c, p + 1)) return "<block mapping start>";
    for (std::size_t i = p; i < c.size() && c[i] != '\n'; ++i) {
        if (c[i] == ':' && blank_or_break(c, i + 1)) return "<block mapping start>";
    }
    return next_token_name(c, p).value_or("<scalar>");
}

// After directives (at `p`, a '%' at the start of a line): ruamel wants a `---`, which a
// frontmatter cannot hold (the reference splits the file at the first two).
std::string after_directives(const Source& src, std::size_t p) {
    const auto& c = src.cps();
    // A directive takes its line break with it, so on the line right after it no simple key,
    // block entry or explicit key may start; a blank or comment line in between allows them.
    bool next_line = true;
    while (p < c.size() && c[p] == '%' && src.at_pointer(p).column == 0) {
        const std::size_t after = line_end(c, p) + 1;
        p = next_token(c, after);
        next_line =
            std::find(c.begin() + static_cast<std::ptrdiff_t>(std::min(after, c.size())),
                      c.begin() + static_cast<std::ptrdiff_t>(p), U'\n') == c.begin() + static_cast<std::ptrdiff_t>(p);
    }
    if (p < c.size() && c[p] == '\t') return tab_error(src, p);
    if (next_line && p < c.size()) {
        if (c[p] == '-' && blank_or_break(c, p + 1)) {
            return marked_error(src, "", std::nullopt, "sequence entries are not allowed here", src.at_pointer(p));
        }
        if (c[p] == '?' && blank_or_break(c, p + 1)) {
            return marked_error(src, "", std::nullopt, "mapping keys are not allowed here", src.at_pointer(p));
        }
        for (std::size_t i = p; i < c.size() && c[i] != '\n'; ++i) {
            if (c[i] == '#' && i > p && c[i - 1] == ' ') break;
            if (c[i] == ':' && blank_or_break(c, i + 1)) {
                return marked_error(src, "", std::nullopt, "mapping values are not allowed here", src.at_pointer(i));
            }
        }
    }
    return marked_error(src, "", std::nullopt,
                        fmt::format("expected '<document start>', but found '{}'", token_id(src, p)),
                        src.at_pointer(p));
}

}  // namespace

// The name ruamel's parser gives the token that starts at `p`, where that token is sure to be
// the next one it sees: nullopt for what its scanner refuses or reads otherwise (`- `, `? `, `: `,
// `%`, `@`, a backquote), and when a ':' later on the line could make the scanner fail first.
std::optional<std::string> next_token_name(const std::u32string& c, std::size_t p) {
    if (p >= c.size()) return std::nullopt;
    for (std::size_t i = p; i < c.size() && c[i] != '\n'; ++i) {
        if (c[i] == ':') return std::nullopt;
    }
    const char32_t ch = c[p];
    const bool blank_after = p + 1 >= c.size() || c[p + 1] == ' ' || c[p + 1] == '\t' || c[p + 1] == '\n';
    switch (ch) {
        case '[':
        case ']':
        case '{':
        case '}':
        case ',':
            return std::string(1, static_cast<char>(ch));
        case '&':
            return "<anchor>";
        case '*':
            return "<alias>";
        case '!':
            return "<tag>";
        case '-':
        case '?':
            if (blank_after) return std::nullopt;
            return "<scalar>";
        case '%':
        case '@':
        case '`':
        case '#':
        case ' ':
        case '\t':
        case '\n':
            return std::nullopt;
        default:
            return "<scalar>";  // a plain, quoted or block scalar
    }
}

std::string first_node_error(const Source& src) {
    const std::size_t p = next_token(src.cps(), 0);
    const Mark at = src.at_pointer(p);
    return marked_error(src, "while parsing a block node", at,
                        fmt::format("expected the node content, but found '{}'", token_id(src, p)), at);
}

std::optional<std::size_t> tab_in_blanks(const Source& src, std::size_t p) {
    const auto& c = src.cps();
    for (std::size_t i = p; i < c.size() && (c[i] == ' ' || c[i] == '\t'); ++i) {
        if (c[i] == '\t') return i;
    }
    return std::nullopt;
}

std::string tab_error(const Source& src, std::size_t tab) {
    return marked_error(src, "while scanning for the next token", std::nullopt,
                        "found character '\\t' that cannot start any token", src.at_pointer(tab));
}

std::string simple_key_error(const Source& src, std::size_t key, std::optional<std::size_t> stale_at) {
    const auto& c = src.cps();
    return marked_error(src, "while scanning a simple key", src.at_pointer(key), "could not find expected ':'",
                        src.at_pointer(stale_at ? *stale_at : next_token_or_comment(c, line_end(c, key))));
}

std::optional<StreamBreak> find_stream_break(const Source& src, std::size_t from) {
    const auto& c = src.cps();
    for (std::size_t p = from; p < c.size(); p = line_end(c, p) + 1) {
        if (p > 0 && c[p - 1] != '\n') continue;  // `from` inside a line: its next line
        if (c[p] == '%') return StreamBreak{StreamBreak::Kind::directive, p};
        if (document_end_at(c, p)) return StreamBreak{StreamBreak::Kind::document_end, p};
    }
    return std::nullopt;
}

std::optional<std::string> stream_break_error(const Source& src, const StreamBreak& brk,
                                              std::optional<std::size_t> first_content) {
    const auto& c = src.cps();
    if (brk.kind == StreamBreak::Kind::directive) return after_directives(src, brk.pointer);
    if (auto tab = tab_in_blanks(src, brk.pointer + 3)) return tab_error(src, *tab);
    if (!first_content) {
        // An implicit first document that starts with `...`: its node has no content.
        const Mark at = src.at_pointer(brk.pointer);
        return marked_error(src, "while parsing a block node", at,
                            "expected the node content, but found '<document end>'", at);
    }
    // YAML 1.2: after `...` an implicit document may start, and strictyaml wants one document.
    const std::size_t next = next_token(c, brk.pointer + 3);
    if (next >= c.size()) return std::nullopt;
    if (src.at_pointer(next).line == src.at_pointer(brk.pointer).line) {
        // Text after `...` on its line: no simple key may start there, so a ':' in it is refused.
        for (std::size_t i = next; i < c.size() && c[i] != '\n'; ++i) {
            if (c[i] == '#' && c[i - 1] == ' ') break;
            if (c[i] == ':' && blank_or_break(c, i + 1)) {
                return marked_error(src, "", std::nullopt, "mapping values are not allowed here", src.at_pointer(i));
            }
        }
    }
    if (c[next] == '\t') return tab_error(src, next);
    if (c[next] == '%' && src.at_pointer(next).column == 0) return after_directives(src, next);
    if (c[next] == '@' || c[next] == '`') {
        return marked_error(src, "while scanning for the next token", std::nullopt,
                            fmt::format("found character {} that cannot start any token",
                                        py_repr(to_utf8(std::u32string_view(c).substr(next, 1)))),
                            src.at_pointer(next));
    }
    return marked_error(src, "expected a single document in the stream", src.at_pointer(*first_content),
                        "but found another document", src.at_pointer(next));
}

}  // namespace agentskills::reference::detail
