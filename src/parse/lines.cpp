// SKILL.md parsing: the text helpers (lines, blanks, delimiters, lists).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <unordered_set>

#include "../base/model_output.hpp"
#include "agentskills/base/names.hpp"
#include "session.hpp"

namespace agentskills::detail {

bool is_blank(std::string_view s) noexcept {
    return std::all_of(s.begin(), s.end(), [](char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
    });
}

std::string_view trim(std::string_view s) noexcept {
    const auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
    while (!s.empty() && ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && ws(s.back())) s.remove_suffix(1);
    return s;
}

// A line that is `---` followed only by spaces, tabs or a CR.
bool is_delimiter(std::string_view line) noexcept {
    if (line.substr(0, 3) != "---") return false;
    for (char c : line.substr(3)) {
        if (c != ' ' && c != '\t' && c != '\r') return false;
    }
    return true;
}

// `s` with CRLF and every lone CR turned into LF. Without a CR (the common case) nothing is
// copied: the result is `s` itself; otherwise the converted text is written to `storage`.
std::string_view with_lf_breaks(std::string_view s, std::string& storage) {
    std::size_t cr = s.find('\r');
    if (cr == std::string_view::npos) return s;
    storage.clear();
    storage.reserve(s.size());
    std::size_t from = 0;
    while (cr != std::string_view::npos) {
        storage.append(s.substr(from, cr - from)).push_back('\n');
        from = cr + 1;
        if (from < s.size() && s[from] == '\n') ++from;  // CRLF: one break
        cr = s.find('\r', from);
    }
    storage.append(s.substr(from));
    return storage;
}

// The body: text after the closing line, without leading and trailing blank lines, LF endings.
std::string trim_blank_lines(std::string_view text) {
    std::size_t begin = 0;
    while (begin < text.size()) {
        const std::size_t nl = text.find('\n', begin);
        const std::string_view line =
            text.substr(begin, nl == std::string_view::npos ? std::string_view::npos : nl - begin);
        if (!is_blank(line)) break;
        if (nl == std::string_view::npos) return {};
        begin = nl + 1;
    }
    std::size_t end = text.size();
    while (end > begin) {
        const std::size_t nl = text.rfind('\n', end - 1);
        const std::size_t line_begin = nl == std::string_view::npos ? 0 : nl + 1;
        if (line_begin < begin || !is_blank(text.substr(line_begin, end - line_begin))) break;
        end = nl == std::string_view::npos || nl < begin ? begin : nl;
    }
    return std::string(text.substr(begin, end - begin));
}

namespace {

// Calls `item` with each item of a list as split_list splits it, in order.
template <class Item>
void for_each_list_item(std::string_view text, bool on_commas, Item&& item) {
    if (on_commas) {
        std::size_t pos = 0;
        while (pos <= text.size()) {
            const std::size_t next = text.find(',', pos);
            const std::string_view one =
                trim(text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
            if (!one.empty()) item(one);
            if (next == std::string_view::npos) break;
            pos = next + 1;
        }
        return;
    }
    // White space and commas separate names, except inside parentheses: `Bash(git add:*), Read`
    // is two names, as `Bash(git add:*) Read` is.
    // Each name is a run of the text between two separators outside parentheses.
    std::size_t depth = 0;
    std::size_t begin = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool separator = c == ',' || c == ' ' || c == '\t' || c == '\r' || c == '\n';
        if (separator && depth == 0) {
            if (i > begin) item(text.substr(begin, i - begin));
            begin = i + 1;
            continue;
        }
        if (c == '(') ++depth;
        if (c == ')' && depth > 0) --depth;
    }
    if (text.size() > begin) item(text.substr(begin));
}

}  // namespace

std::vector<std::string> split_list(std::string_view text, bool on_commas) {
    // Counted first (a pass over a short text), so that the vector is allocated once.
    std::size_t count = 0;
    for_each_list_item(text, on_commas, [&count](std::string_view) { ++count; });
    std::vector<std::string> out;
    out.reserve(count);
    for_each_list_item(text, on_commas, [&out](std::string_view one) { out.emplace_back(one); });
    return out;
}

// Keeps the first of equal items, in order (a hash set: lists may hold ~100,000 items).
void dedupe(std::vector<std::string>& v) {
    constexpr std::size_t scanned = 16;  // up to this many items, each is compared with the kept ones
    if (v.size() <= scanned) {
        std::size_t kept = 0;
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (std::find(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(kept), v[i]) !=
                v.begin() + static_cast<std::ptrdiff_t>(kept)) {
                continue;
            }
            if (kept != i) v[kept] = std::move(v[i]);
            ++kept;
        }
        v.resize(kept);
        return;
    }
    std::unordered_set<std::string_view> seen;
    seen.reserve(v.size());
    std::vector<std::string> out;
    out.reserve(v.size());
    for (auto& s : v) {
        if (seen.count(s) != 0) continue;
        out.push_back(std::move(s));
        seen.insert(out.back());  // views into `out`, which never reallocates (reserved)
    }
    v = std::move(out);
}

// A value as quoted in a diagnostic: at most 64 code points, then an ellipsis (a hostile name may
// be a megabyte long; the message need not be).
std::string shown(std::string_view value) {
    constexpr std::size_t max_shown = 64;
    const std::string_view cut = truncate_code_points(value, max_shown);
    return cut.size() == value.size() ? std::string(value) : std::string(cut) + "\u2026";
}

// True when `s` holds a C0 control other than TAB and LF, DEL, or a C1 control (U+0080..U+009F).
bool has_control_character(std::string_view s) noexcept {
    for (std::size_t i = skip_plain_text(s, 0); i < s.size(); i = skip_plain_text(s, i + 1)) {
        const auto c = static_cast<unsigned char>(s[i]);
        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return true;
        if (c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) <= 0x9F) return true;
    }
    return false;
}

}  // namespace agentskills::detail
