// agentskills-cpp — diagnostics: what the library says about bad or odd input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace agentskills {

enum class Severity { error, warning, info };

[[nodiscard]] constexpr std::string_view to_string(Severity s) noexcept {
    switch (s) {
        case Severity::error:
            return "error";
        case Severity::warning:
            return "warning";
        case Severity::info:
            return "info";
    }
    return "error";
}

/// One finding about one file. `code` is stable (see docs/diagnostics.md); `line` is 1-based,
/// 0 when the finding is about the whole file.
struct Diagnostic {
    std::string code;
    Severity severity = Severity::error;
    std::string path;
    std::size_t line = 0;
    std::string message;

    friend bool operator==(const Diagnostic&, const Diagnostic&) = default;
};

using Diagnostics = std::vector<Diagnostic>;

/// {code, severity, path, line, message} (nlohmann ADL).
void to_json(nlohmann::json& j, const Diagnostic& d);

/// `PATH:LINE: SEVERITY: MESSAGE [CODE]` (`PATH: ...` when the line is 0), one line: path,
/// message and code are escaped with terminal_text (TAB, newline, backslash and every other
/// control character written as an escape; invalid UTF-8 as U+FFFD).
[[nodiscard]] std::string format_diagnostic(const Diagnostic& d);

[[nodiscard]] inline bool has_errors(const Diagnostics& ds) noexcept {
    for (const auto& d : ds) {
        if (d.severity == Severity::error) return true;
    }
    return false;
}

}  // namespace agentskills
