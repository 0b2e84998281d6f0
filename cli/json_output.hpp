// agentskills CLI — every JSON document the program prints goes through here.
#pragma once

#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace agentskills::cli {

/// `j` as text: `indent` spaces per level (-1 = one line). A string that is not valid UTF-8
/// (a path from a directory listing, a value a host built by hand) has each bad byte written
/// as U+FFFD instead of making the dump throw, so one odd entry never costs the whole output.
[[nodiscard]] inline std::string dump_json(const nlohmann::json& j, int indent = 2) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

/// Prints `dump_json(j, indent)` and a newline on standard output.
inline void print_json(const nlohmann::json& j, int indent = 2) { std::cout << dump_json(j, indent) << '\n'; }

}  // namespace agentskills::cli
