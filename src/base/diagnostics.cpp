#include "agentskills/base/diagnostics.hpp"

#include <fmt/core.h>

#include "agentskills/base/skill.hpp"
#include "agentskills/base/text.hpp"

namespace agentskills {

std::string format_diagnostic(const Diagnostic& d) {
    // Path, message and code come from outside (file names, YAML text): each is escaped, so the
    // result is one line that no value can split into two records or use to drive a terminal.
    const std::string path = terminal_text(d.path);
    const std::string message = terminal_text(d.message);
    const std::string code = terminal_text(d.code);
    if (d.line == 0) return fmt::format("{}: {}: {} [{}]", path, to_string(d.severity), message, code);
    return fmt::format("{}:{}: {}: {} [{}]", path, d.line, to_string(d.severity), message, code);
}

std::string_view to_string(SkillMode mode) noexcept {
    switch (mode) {
        case SkillMode::on:
            return "on";
        case SkillMode::name_only:
            return "name-only";
        case SkillMode::user_invocable_only:
            return "user-invocable-only";
        case SkillMode::off:
            return "off";
    }
    return "on";
}

std::string_view to_string(SkipReason r) noexcept {
    switch (r) {
        case SkipReason::invalid:
            return "invalid";
        case SkipReason::duplicate_name:
            return "duplicate_name";
        case SkipReason::not_a_directory:
            return "not_a_directory";
        case SkipReason::skill_package:
            return "skill_package";
        case SkipReason::too_large:
            return "too_large";
        case SkipReason::unreadable:
            return "unreadable";
        case SkipReason::missing_directory:
            return "missing_directory";
        case SkipReason::disabled:
            return "disabled";
        case SkipReason::untrusted:
            return "untrusted";
        case SkipReason::digest_mismatch:
            return "digest_mismatch";
        case SkipReason::not_locked:
            return "not_locked";
    }
    return "invalid";
}

}  // namespace agentskills
