// agentskills-cpp — storage: the one scanner of relative paths, for every part of the library
// that takes a path apart (the readers' namespaces, confined_path, archive entry names, the
// in-memory reader's keys) and the one rule for a single path component.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace agentskills::detail {

/// What is wrong with a path, found by scan_path.
enum class PathFault {
    none,
    empty,            // the whole path is empty
    nul,              // a NUL byte
    backslash,        // a backslash
    control,          // a C0 control, DEL or a C1 control (PathRules::refuse_controls)
    tilde,            // a component starting with '~'
    drive,            // a drive-like component (`x:...`)
    parent,           // `..` where it is not allowed
    climbs,           // `..` above the start
    empty_component,  // an empty component (PathRules::refuse_empty_components)
    dot,              // a `.` component (PathRules::refuse_empty_components)
};

struct PathScan {
    PathFault fault = PathFault::none;
    std::string_view component = {};  // the component at fault
    std::size_t components = 0;       // the components scanned (with `.` and empty ones)
};

struct PathRules {
    /// `..` pops the last part (above the start it is `climbs`); otherwise it is `parent`.
    bool allow_parent = false;
    /// Empty and `.` components are faults instead of being dropped.
    bool refuse_empty_components = false;
    /// C0 controls, DEL and C1 controls (U+0080-U+009F as UTF-8) are faults.
    bool refuse_controls = false;
};

/// The characters of a whole path: empty, NUL, backslash, and with `refuse_controls` the controls.
[[nodiscard]] PathScan path_character_fault(std::string_view path, bool refuse_controls = false) noexcept;

/// The one scanner. Applies the components of `path` (after path_character_fault) to `parts`,
/// when given: empty components and `.` are dropped (or refused), `..` as the rules say, a
/// component starting with '~' or drive-like is refused. A leading '/' is an empty first
/// component: the callers decide what a rooted path is. Without `parts`, `..` is `parent`.
[[nodiscard]] PathScan scan_path(std::string_view path, PathRules rules, std::vector<std::string_view>* parts);

/// One plain path component: not empty, not `.` or `..`, no '/' and no NUL — a name a directory
/// listing, a tree or a mount may hold without climbing anywhere when joined to a path.
[[nodiscard]] constexpr bool is_plain_component(std::string_view name) noexcept {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

}  // namespace agentskills::detail
