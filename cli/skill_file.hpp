// agentskills CLI — finding and parsing one skill directory on the local file system.
#pragma once

#include <optional>
#include <string>

#include <agentskills/parse/parser.hpp>

namespace agentskills::cli {

/// One skill checked by `validate` or read by `read-properties`.
struct CheckedSkill {
    std::string argument;    ///< the path as the user gave it
    std::string skill_file;  ///< the SKILL.md that was read ("" when none was found)
    ParseResult result;
};

/// The SKILL.md of `path` (a skill directory or the file itself). With `allow_lowercase`, a
/// `skill.md` is taken when `SKILL.md` is absent. Empty when there is none.
[[nodiscard]] std::optional<std::string> find_skill_file(const std::string& path, bool allow_lowercase);

/// Reads and parses the skill at `path` with `options` (path and directory name are filled in).
/// Under the standard profile, a file that a source of this program opens (a `.skill` / `.zip`
/// archive, builtin_sources()) is read through that source, its paths written `PATH!/SKILL.md`
/// as the loader writes them. Never throws for bad input: a missing or unreadable file becomes a
/// diagnostic.
[[nodiscard]] CheckedSkill check_skill(const std::string& path, ParseOptions options);

}  // namespace agentskills::cli
