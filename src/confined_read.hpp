// Internal: reading a file of a skill without leaving the skill directory.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "agentskills/reader.hpp"

namespace agentskills::detail {

/// Splits a relative path into components, refusing (PathError) anything that could leave the
/// directory: empty, absolute, a `..` or `~` component, a drive, a backslash or NUL.
[[nodiscard]] std::vector<std::string> checked_components(std::string_view path);

/// Components joined with '/'.
[[nodiscard]] std::string join_parts(const std::vector<std::string>& parts);

/// Reads `relative` (already checked) below the skill directory `root` through `reader`.
/// nullopt when it does not exist or is not a regular file. Throws PathError when a symlink on
/// the way leads out of the directory (local reader) or when any symlink is on the way (another
/// reader, whose links cannot be followed).
[[nodiscard]] std::optional<ReadResult> read_confined(const SkillReader& reader, const std::string& root,
                                                      const std::string& relative, std::size_t max_bytes);

}  // namespace agentskills::detail
