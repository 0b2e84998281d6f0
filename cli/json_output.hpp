// agentskills CLI — every JSON document the program prints goes through here.
#pragma once

#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace agentskills::cli {

/// The `"schema"` member of the program's own JSON documents (docs/cli.md, "JSON outputs"): a
/// change of their shape or of a value's type raises it, and docs/schemas/ holds a JSON Schema
/// for each version printed. Outputs in a shape another program defines (read-properties, the
/// reference's; tool-schema, tool-call and activate --json, a provider's; lock, agentskills-lock.json
/// with its own `version`) carry no such member.
inline constexpr int list_json_schema = 2;      ///< list --json (2: frontmatter typed by the YAML core schema)
inline constexpr int validate_json_schema = 1;  ///< validate --json
inline constexpr int watch_json_schema = 1;     ///< watch --json, on each line

/// `j` as text: `indent` spaces per level (-1 = one line). A string that is not valid UTF-8
/// (a path from a directory listing, a value a host built by hand) has each bad byte written
/// as U+FFFD instead of making the dump throw, so one odd entry never costs the whole output.
[[nodiscard]] inline std::string dump_json(const nlohmann::json& j, int indent = 2) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Prints `dump_json(j, indent)` and a newline on standard output.
inline void print_json(const nlohmann::json& j, int indent = 2) { std::cout << dump_json(j, indent) << '\n'; }

}  // namespace agentskills::cli
