// agentskills-cpp — the Python reference validator skills-ref 0.1, reproduced: how it reads a
// SKILL.md (Python text decoding with universal newlines, a split at the first two "---" of the
// file, strictyaml without a schema), its checks and its messages. This is what the CLI's
// `--profile reference` prints; the library's own parser (parse/parser.hpp) is not used here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace agentskills::reference {

/// Bounds of this profile (docs/security.md): a larger SKILL.md, or a frontmatter with more YAML
/// nodes, is refused with an error. The reference itself has neither.
inline constexpr std::size_t max_file_bytes = 16 * 1024 * 1024;
inline constexpr std::size_t max_yaml_nodes = 100000;

/// A frontmatter value as strictyaml's schema-less load gives it: every scalar is a string.
struct Value {
    enum class Kind { string, list, map };
    Kind kind = Kind::string;
    std::string text;          ///< string
    std::vector<Value> items;  ///< list
    struct Entry;
    std::vector<Entry> entries;  ///< map, in document order

    [[nodiscard]] const Value* find(const std::string& key) const;
};

struct Value::Entry {
    std::string first;
    Value second;
};

/// What Python's str() of a Path gives for `path` ("a//b/" -> "a/b", "./x" -> "x", "" -> ".").
[[nodiscard]] std::string python_path(const std::string& path);

/// Python's os.path.basename of python_path(path) (Path.name): "" for "." and "/".
[[nodiscard]] std::string python_path_name(const std::string& path);

/// True when `path` is a file whose name, lowercased, is "skill.md" (the reference then uses its
/// parent directory).
[[nodiscard]] bool is_skill_md_file(const std::string& path);

/// Path.parent of python_path(path).
[[nodiscard]] std::string python_path_parent(const std::string& path);

/// The frontmatter of a SKILL.md, or why the reference cannot read one.
struct Frontmatter {
    std::optional<Value> map;  ///< a mapping; empty when `error` or `crash` is set
    std::string error;         ///< the reference's ParseError text
    std::string crash;         ///< a Python exception the reference does not catch (one line)
};

/// The reference's find_skill_md: `dir`/SKILL.md, else `dir`/skill.md, when it exists.
[[nodiscard]] std::optional<std::string> find_skill_md(const std::string& dir);

/// Reads and splits `skill_md` and loads its frontmatter as strictyaml does.
[[nodiscard]] Frontmatter read_frontmatter(const std::string& skill_md);

/// The reference's read_properties: the properties as its to_dict() JSON text (indent 2, ASCII),
/// or the message of the SkillError it raises (`crash` for an uncaught exception).
struct Properties {
    std::string name;
    std::string description;
    std::string json;  ///< json.dumps(props.to_dict(), indent=2)
    std::string error;
    std::string crash;
    [[nodiscard]] bool ok() const noexcept { return error.empty() && crash.empty(); }
};
[[nodiscard]] Properties read_properties(const std::string& skill_dir);

/// The reference's validate(): its error messages, empty when the skill is valid.
struct Validation {
    std::vector<std::string> errors;
    std::string crash;
};
[[nodiscard]] Validation validate(const std::string& skill_dir);

/// Python's html.escape(s, quote=True).
[[nodiscard]] std::string html_escape(const std::string& s);

/// The message the reference's CLI (click) prints for a path that does not exist, and exits 2.
[[nodiscard]] std::string missing_path_usage(const std::string& command, const std::string& argument,
                                             const std::string& path);

}  // namespace agentskills::reference
