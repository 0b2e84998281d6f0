// Substituting a person's arguments into a skill's instructions (prompt.hpp, "Arguments").
#include <limits>

#include <fmt/core.h>

#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/errors.hpp"

namespace agentskills {

namespace {

constexpr std::string_view arguments_placeholder = "$ARGUMENTS";

bool is_word_char(char c) noexcept {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/// Whether `text[pos..]` (just past `$ARGUMENTS`) starts an index `[digits]`.
bool starts_index(std::string_view text, std::size_t pos) noexcept {
    if (pos >= text.size() || text[pos] != '[') return false;
    std::size_t i = pos + 1;
    const std::size_t first_digit = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > first_digit && i < text.size() && text[i] == ']';
}

}  // namespace

namespace {

constexpr std::string_view arguments_line = "ARGUMENTS: ";

/// Calls f(hit) for each standalone `$ARGUMENTS` of `body`, in order.
template <class F>
void for_each_placeholder(std::string_view body, F&& f) {
    std::size_t pos = 0;
    while (pos < body.size()) {
        const std::size_t hit = body.find(arguments_placeholder, pos);
        if (hit == std::string_view::npos) break;
        const std::size_t after = hit + arguments_placeholder.size();
        if (!(after < body.size() && is_word_char(body[after])) && !starts_index(body, after)) f(hit);
        pos = after;
    }
}

}  // namespace

std::size_t substituted_size(std::string_view body, std::string_view arguments) noexcept {
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::size_t count = 0;
    for_each_placeholder(body, [&](std::size_t) { ++count; });
    if (count == 0) {
        if (arguments.empty()) return body.size();
        const std::size_t extra = (body.empty() ? 0 : 2) + arguments_line.size();
        return arguments.size() > max - body.size() - extra ? max : body.size() + extra + arguments.size();
    }
    const std::size_t base = body.size() - count * arguments_placeholder.size();
    if (arguments.size() != 0 && count > (max - base) / arguments.size()) return max;
    return base + count * arguments.size();
}

std::string substitute_arguments(std::string_view body, std::string_view arguments, std::size_t max_bytes) {
    // The size is known before anything is built, so a body with many placeholders and a long
    // argument fails here instead of asking for gigabytes.
    const std::size_t size = substituted_size(body, arguments);
    if (max_bytes != 0 && size > max_bytes) {
        throw ConfigurationError(fmt::format(
            "the instructions with the arguments substituted would be {} bytes, more than the limit of {} bytes", size,
            max_bytes));
    }
    std::string out;
    out.reserve(size);
    std::size_t pos = 0;
    bool replaced = false;
    for_each_placeholder(body, [&](std::size_t hit) {
        out.append(body.substr(pos, hit - pos));
        out.append(arguments);
        pos = hit + arguments_placeholder.size();
        replaced = true;
    });
    out.append(body.substr(pos));
    if (!replaced && !arguments.empty()) {
        if (!out.empty()) out.append("\n\n");
        out.append(arguments_line);
        out.append(arguments);
    }
    return out;
}

}  // namespace agentskills
