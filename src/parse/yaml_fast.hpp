// agentskills-cpp (private) — the frontmatter fast path (parse_fast.cpp): the common shape of a
// frontmatter read into the same tree that yaml-cpp's events build (parse_yaml.cpp), without
// yaml-cpp. Anything it is not sure of is left to yaml-cpp.
#pragma once

#include <optional>
#include <string_view>

#include "yaml.hpp"

namespace agentskills::detail {

// The tree of `frontmatter` when it has the common shape, node for node, text for text and line
// for line what read_yaml builds through yaml-cpp, and with the same strict-YAML findings added
// to `strict` (a flow collection is one); nullopt when it does not (the caller then parses it
// with yaml-cpp). The shape: lines of `key: value` at column 0, whose value is a plain, single-
// or double-quoted scalar on the key's line, a one-line flow sequence of plain words, a block
// scalar of the plain form (`|`, `|-`, `>`, `>-`, its lines indented alike), a block list of
// scalars, or a block mapping of the same shape, up to a few levels deep; blank lines; comment
// lines at column 0 and comments after a value. No tab, CR or other control character, no
// anchor, alias, tag, flow mapping, multi-line plain or quoted scalar, empty value or directive.
[[nodiscard]] std::optional<YNode> read_common_yaml(std::string_view frontmatter, StrictFindings* strict = nullptr);

// Whether read_yaml tries read_common_yaml first, for the calling thread (default true). The
// differential fuzz target and the tests turn it off to get the yaml-cpp result to compare.
[[nodiscard]] bool frontmatter_fast_path_enabled() noexcept;
void set_frontmatter_fast_path(bool enabled) noexcept;

}  // namespace agentskills::detail
