#include "agentskills/diagnostics.hpp"

#include <fmt/core.h>

#include "agentskills/skill.hpp"

namespace agentskills {

std::string format_diagnostic(const Diagnostic& d) {
    if (d.line == 0) return fmt::format("{}: {}: {} [{}]", d.path, to_string(d.severity), d.message, d.code);
    return fmt::format("{}:{}: {}: {} [{}]", d.path, d.line, to_string(d.severity), d.message, d.code);
}

std::string_view to_string(SkipReason r) noexcept {
    switch (r) {
        case SkipReason::invalid: return "invalid";
        case SkipReason::duplicate_name: return "duplicate_name";
        case SkipReason::not_a_directory: return "not_a_directory";
        case SkipReason::skill_package: return "skill_package";
        case SkipReason::too_large: return "too_large";
        case SkipReason::unreadable: return "unreadable";
        case SkipReason::missing_directory: return "missing_directory";
    }
    return "invalid";
}

}  // namespace agentskills
