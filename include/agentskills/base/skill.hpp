// agentskills-cpp — the value types of a skill: manifest, resource, loaded skill, skipped skill.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace agentskills {

/// Limits from the Agent Skills specification (code points, not bytes).
inline constexpr std::size_t SKILL_MAX_NAME_LENGTH = 64;
inline constexpr std::size_t SKILL_MAX_DESCRIPTION_LENGTH = 1024;
inline constexpr std::size_t SKILL_MAX_COMPATIBILITY_LENGTH = 500;
/// Default line limit of a SKILL.md file (0 in options means no limit).
inline constexpr std::size_t SKILL_MAX_FILE_LINES = 500;
/// Default byte limit of a SKILL.md file; a larger file is never read past this.
inline constexpr std::size_t SKILL_MAX_FILE_BYTES = 1024 * 1024;

/// How the `name` field is checked.
enum class NamePolicy {
    keep,          ///< the frontmatter name is kept as written, even when it breaks the rules
    require_valid  ///< name may be omitted (directory name); must obey the rules and match the directory
};

/// How a catalog offers a skill; set by override rules (governance.hpp), `on` otherwise.
enum class SkillMode {
    on,                   ///< listed with its description, activatable by the model
    name_only,            ///< listed in the catalog block without `<description>`
    user_invocable_only,  ///< hidden from the model (block and tool enum); a host may still offer it
    off                   ///< left out of discovery (SkippedSkill reason `disabled`)
};

/// `on`, `name-only`, `user-invocable-only`, `off`.
[[nodiscard]] std::string_view to_string(SkillMode mode) noexcept;

/// Ordered string -> string map (insertion order of the YAML mapping).
using StringMap = std::vector<std::pair<std::string, std::string>>;

/// An immutable JSON value shared by its copies: copying one costs a reference count, not a
/// copy of the tree (a manifest is copied into every `Discovery`). Read it like a pointer to
/// `const nlohmann::json`; it is never null: a default one reads as an empty object.
class SharedJson {
public:
    SharedJson() noexcept = default;
    /// Takes the value (implicit, so `manifest.frontmatter = nlohmann::json{...}` works).
    SharedJson(nlohmann::json value)  // NOLINT(google-explicit-constructor)
        : value_(std::make_shared<const nlohmann::json>(std::move(value))) {}

    /// A value that `build(source)` makes on its first read (once, thread-safe; the copies share
    /// it), for a tree that is rarely read: the parser's frontmatter (ParseOptions::frontmatter_json).
    /// `build` must give the same value for the same source and throw nothing but std::bad_alloc
    /// (which then ends the program: a read is noexcept).
    [[nodiscard]] static SharedJson deferred(std::string source, nlohmann::json (*build)(std::string_view));

    [[nodiscard]] const nlohmann::json& get() const noexcept {
        return value_ ? *value_ : deferred_ ? built() : empty_object();
    }
    [[nodiscard]] const nlohmann::json& operator*() const noexcept { return get(); }
    [[nodiscard]] const nlohmann::json* operator->() const noexcept { return &get(); }

    /// The same shared value: copies of one SharedJson (two default ones too). Builds nothing.
    [[nodiscard]] bool shares(const SharedJson& other) const noexcept {
        return value_ == other.value_ && deferred_ == other.deferred_;
    }

    /// Equal values (not only the same shared tree).
    friend bool operator==(const SharedJson& a, const SharedJson& b) noexcept {
        return a.shares(b) || a.get() == b.get();
    }

private:
    struct Deferred;
    static const nlohmann::json& empty_object() noexcept;
    [[nodiscard]] const nlohmann::json& built() const noexcept;
    std::shared_ptr<const nlohmann::json> value_;
    std::shared_ptr<Deferred> deferred_;  // set instead of value_ by deferred()
};

/// nlohmann ADL: a SharedJson converts to its value (`nlohmann::json j = manifest.frontmatter;`).
inline void to_json(nlohmann::json& j, const SharedJson& v) { j = v.get(); }

/// How `SkillManifest::frontmatter` holds the frontmatter's scalars (ParseOptions::frontmatter_typing).
enum class FrontmatterTyping {
    text,        ///< every scalar as its literal text: `true`, `12` and `"12"` are the strings "true", "12", "12"
    core_schema  ///< typed as a YAML 1.2 core-schema reader types it (`true` -> true, `12` -> 12, `"12"` -> "12"),
                 ///< the typing the MCP server sends and `list --json` prints
};

/// What the parser does (ParseOptions::yaml_recovery) with a frontmatter that is not valid YAML (docs/skill-format.md,
/// "Recovering plain values").
enum class YamlRecovery {
    none,         ///< the skill is skipped (`yaml-syntax`): the contract, and the reference's verdict
    plain_values  ///< a top-level value written as plain text that YAML cannot read as plain text
                  ///< (`description: Use when: the user asks`) is read as that text, with a
                  ///< `yaml-recovered` warning; the agentskills.io client guide's fallback
};

/// Discovered metadata of one skill plus its locations in the reader's namespace.
struct SkillManifest {
    std::string name;         ///< as written (trimmed); NFKC-normalized under require_valid
    std::string description;  ///< trimmed; at most SKILL_MAX_DESCRIPTION_LENGTH code points
    std::string skill_file;   ///< path of SKILL.md (absolute for local skills)
    std::string root;         ///< the skill directory (the folder holding SKILL.md)
    std::string library;      ///< the library root it was discovered under ("" if parsed alone)

    std::optional<std::string> license;
    std::optional<std::string> compatibility;
    StringMap metadata;
    std::vector<std::string> allowed_tools;         ///< advisory (`allowed-tools`)
    std::optional<std::vector<std::string>> tools;  ///< absent != empty
    std::vector<std::string> disallowed_tools;
    bool disable_model_invocation = false;
    bool user_invocable = true;
    std::optional<std::string> version;
    std::optional<std::string> category;
    std::vector<std::string> tags;
    std::vector<std::string> aliases;
    /// Claude-Code behavioural keys present in the frontmatter that this library does not implement.
    std::vector<std::string> ignored_behavioral_fields;
    /// The whole frontmatter as a JSON object; every scalar is its literal text unless the
    /// parse was asked for `FrontmatterTyping::core_schema`. Shared by the copies of the manifest:
    /// `m.frontmatter->at("key")`, `m.frontmatter->contains("key")`.
    SharedJson frontmatter;
    /// What the override rules made of the skill (`on` without rules); never `off` in a catalog.
    SkillMode mode = SkillMode::on;

    /// False when the frontmatter disables model invocation or an override makes the skill
    /// `user-invocable-only`: the model's block and tool leave it out.
    [[nodiscard]] bool model_invocable() const noexcept {
        return !disable_model_invocation && mode != SkillMode::user_invocable_only;
    }
};

/// Where a skill lives, in the reader's namespace: the three location fields of a manifest.
struct SkillLocation {
    std::string_view skill_file;  ///< the SKILL.md
    std::string_view root;        ///< the skill directory (the folder holding SKILL.md)
    std::string_view library;     ///< the library root it was found under ("" if none)
};

/// Sets the location fields of `m` (`skill_file`, `root`, `library`): the one place they are
/// set, by the shipped loaders and by a loader of one's own (docs/loaders.md). For a
/// LoadedSkill, set those of its `manifest`.
inline void set_location(SkillManifest& m, const SkillLocation& where) {
    // assign: a field that already holds the value (the parser sets skill_file to the path it
    // read) keeps its buffer; a view into the field itself is allowed.
    m.skill_file.assign(where.skill_file);
    m.root.assign(where.root);
    m.library.assign(where.library);
}

/// Whether the location fields of `m` are `where`.
[[nodiscard]] inline bool has_location(const SkillManifest& m, const SkillLocation& where) noexcept {
    return m.skill_file == where.skill_file && m.root == where.root && m.library == where.library;
}

/// One bundled file of a skill; `path` is relative to the skill directory, '/'-separated.
struct SkillResource {
    std::string path;
    friend bool operator==(const SkillResource&, const SkillResource&) = default;
};

/// Why the files of a directory below a skill are missing from its resource listing
/// (ResourceList::unlisted_reasons, LoadedSkill::unlisted_reasons).
enum class UnlistedReason {
    unreadable,  ///< the reader could not list it (no permission, vanished, over its own listing limit)
    too_deep,    ///< it lies past the directory levels the listing descends (SKILL_MAX_RESOURCE_DEPTH)
};

/// What `SkillLoader::load` returns: manifest, instructions (body without frontmatter), resources.
struct LoadedSkill {
    SkillManifest manifest;
    std::string instructions;
    std::vector<SkillResource> resources;
    /// Files of the skill directory left out of `resources` by the loader's resource cap (0 when
    /// every file is listed); activation text says "and N more".
    std::size_t omitted_resources = 0;
    /// Directories whose files are not in `resources` because they could not be listed (or lie
    /// too deep); activation text names them. `resources_incomplete`: the listing stopped early
    /// (these or the walk limit), so files may be missing from it; activation text says so.
    std::vector<std::string> unlisted_directories = {};
    bool resources_incomplete = false;
    /// Why each of `unlisted_directories` is not listed, index for index. A loader that leaves it
    /// empty says nothing of the reason: activation text then says "could not be read in full".
    std::vector<UnlistedReason> unlisted_reasons = {};
};

enum class SkipReason {
    invalid,            ///< bad frontmatter, bad UTF-8, bad name or flags
    duplicate_name,     ///< a different SKILL.md with a name found earlier (keep_first)
    not_a_directory,    ///< a library root that is a file
    skill_package,      ///< a library root that is itself a skill
    too_large,          ///< over the byte or line limit
    unreadable,         ///< the reader failed
    missing_directory,  ///< a library root that does not exist (reported under skip)
    disabled,           ///< an override rule set the skill `off`
    untrusted,          ///< from an untrusted root, and the host's trust callback did not allow it
    digest_mismatch,    ///< a file differs from the lock file (or appeared, or went missing)
    not_locked          ///< not in the lock file, under strict locking (or as the trust callback asked)
};

[[nodiscard]] std::string_view to_string(SkipReason r) noexcept;

/// A SKILL.md or library path that was left out, and why.
struct SkippedSkill {
    std::string path;
    SkipReason reason = SkipReason::invalid;
    std::string message;  ///< one sentence that names the path and the problem
};

/// JSON forms (nlohmann ADL). A manifest has every key, `null` for an absent optional value:
/// name, description, license, compatibility, allowed-tools, metadata, tools,
/// disallowed-tools, disable-model-invocation, user-invocable, version, category, tags,
/// aliases, ignored-behavioral-fields, location (SKILL.md), root (skill directory), library,
/// frontmatter, mode (to_string(SkillMode)). A skipped skill is {path, reason, message}.
void to_json(nlohmann::json& j, const SkillManifest& m);
void to_json(nlohmann::json& j, const SkippedSkill& s);

}  // namespace agentskills
