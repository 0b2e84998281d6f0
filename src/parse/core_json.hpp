// agentskills-cpp (private) — a frontmatter as JSON typed by the YAML 1.2 core schema: the one
// typing of the library (ParseOptions::frontmatter_typing, the MCP server's and client's
// frontmatter, `list --json`).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "yaml.hpp"

namespace agentskills::detail {

/// The front end's options for a read that core_json types: `max_depth` levels and `max_nodes`
/// nodes (aliases expanded), with or without the fast path.
[[nodiscard]] YamlOptions core_json_options(std::size_t max_depth, std::size_t max_nodes, bool fast_path);

/// The JSON of a tree read with core_json_options, typed as a YAML 1.2 core-schema parser types
/// it: plain `null`/`~`/empty -> null, `true`/`false` (three spellings) -> bool, decimal, `0o`
/// and `0x` integers -> numbers, floats -> numbers, anything else (and every quoted or block
/// scalar) -> string; `!!str`/`!!int`/... tags are honoured. Keys are kept as written. Throws
/// std::runtime_error with a sentence for YAML that is not a mapping, does not parse, has a
/// non-scalar or duplicate key, a value JSON cannot hold (.inf, .nan), a value its tag does not
/// fit, nesting deeper than `max_depth` or more than `max_nodes` nodes.
[[nodiscard]] nlohmann::json core_json(const YamlTree& tree, std::size_t max_depth, std::size_t max_nodes);
/// The same over the YAML text of a frontmatter (the fast path where it reads the text).
[[nodiscard]] nlohmann::json core_json(std::string_view yaml, std::size_t max_depth = 64,
                                       std::size_t max_nodes = 100000);

/// core_json through the front end's fast path only: nullopt where the fast path does not read
/// the text or the text is refused.
[[nodiscard]] std::optional<nlohmann::json> simple_core_json(std::string_view yaml);

/// The JSON value of one plain YAML scalar under the core schema (see core_json).
[[nodiscard]] nlohmann::json core_schema_scalar(std::string_view plain);

}  // namespace agentskills::detail
