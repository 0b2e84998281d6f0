// agentskills-cpp (private) — the pieces of the reference profile (compat/reference.hpp): text as
// Python's str methods see it (reference_python.cpp) and strictyaml's load of a frontmatter over
// the library's YAML front end (reference_yaml.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "agentskills/compat/reference.hpp"

namespace agentskills::reference::detail {

// ---- Python's str (reference_python.cpp)

/// The code points of UTF-8 text (U+FFFD for a byte that is not).
[[nodiscard]] std::u32string code_points(std::string_view s);
void append_utf8(std::string& out, char32_t cp);
[[nodiscard]] std::string to_utf8(std::u32string_view s);
/// str.strip()
[[nodiscard]] std::string py_strip(std::string_view s);
/// name != name.lower(): some character changes under lowercasing.
[[nodiscard]] bool changes_under_lower(std::string_view s);
/// repr() of a str, and of a frontmatter value (a list or a dict as Python prints it).
[[nodiscard]] std::string py_repr(std::string_view s);
[[nodiscard]] std::string py_repr(const Value& v);
/// str() of a frontmatter value: a string as it is, a list or a dict as its repr.
[[nodiscard]] std::string py_str(const Value& v);
/// json.dumps(value, indent=2) at nesting `depth`, appended to `out`.
void json_value(std::string& out, const Value& v, std::size_t depth);

// ---- strictyaml (reference_yaml.cpp)

/// The frontmatter text between the two "---" (valid UTF-8 with LF breaks) loaded as strictyaml
/// loads it: the mapping, the message of the YAMLError it raises ("Invalid YAML in frontmatter:
/// ..."), or the one line of an exception it does not catch.
[[nodiscard]] Frontmatter load_frontmatter(const std::string& text);

}  // namespace agentskills::reference::detail
