// agentskills-cpp — loading skills: the SkillLoader interface and FilesystemSkillLoader.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../base/diagnostics.hpp"
#include "../base/errors.hpp"
#include "../base/skill.hpp"
#include "../storage/reader.hpp"
#include "governance.hpp"

namespace agentskills {

/// What one `discover()` found.
struct Discovery {
    std::vector<SkillManifest> skills;  ///< valid skills, in catalog order
    std::vector<SkippedSkill> skipped;  ///< every file or root left out, in the order found
    Diagnostics diagnostics;            ///< every warning and error, with file and line
};

/// Source of skills. Implement it for discovery or loading that the file-system loader
/// cannot express; for another storage, give FilesystemSkillLoader a SkillReader instead.
///
/// Thread safety: `discover` and `load` may be called from several threads at once.
class SkillLoader {
public:
    virtual ~SkillLoader();
    /// Finds the skills. Throws DiscoveryError when discovery fails as a whole.
    [[nodiscard]] virtual Discovery discover() = 0;
    /// discover(), for a caller that keeps the result as it is (a SkillCatalog): the same result,
    /// shared and immutable. The default wraps discover(); FilesystemSkillLoader shares the
    /// manifests with its cache where it can instead of copying them (docs/loading.md).
    [[nodiscard]] virtual std::shared_ptr<const Discovery> discover_shared() {
        return std::make_shared<const Discovery>(discover());
    }
    /// Loads one discovered skill (name compared after NFKC). Throws NotFoundError.
    [[nodiscard]] virtual LoadedSkill load(std::string_view name) = 0;
    /// Whether the model's own file tools can reach the skill's directory, so that the
    /// activation text names it. True unless a loader reads skills from somewhere else than
    /// the run's workspace (see CombinedSkillLoader).
    [[nodiscard]] virtual bool in_run_workspace(std::string_view name) const {
        (void)name;
        return true;
    }
    /// The reader the files of the skill named `name` are read through (resources, activation),
    /// or nullptr when the loader does not read skills through a SkillReader or does not know
    /// the name; callers then use their configured or the local reader.
    [[nodiscard]] virtual SkillReaderPtr reader_for(std::string_view name) const {
        (void)name;
        return nullptr;
    }
};

using SkillLoaderPtr = std::shared_ptr<SkillLoader>;

/// Default cap on the resources `load` lists (FilesystemLoaderOptions::max_resources).
inline constexpr std::size_t SKILL_MAX_RESOURCES = 1000;
/// Directory levels below a skill directory that resource listing descends (a file in the 64th
/// level is listed, the 65th level is not visited).
inline constexpr std::size_t SKILL_MAX_RESOURCE_DEPTH = 64;
/// Directory entries resource listing looks at, at most, per skill; past it the walk stops and
/// the count of omitted files is a lower bound.
inline constexpr std::size_t SKILL_RESOURCE_WALK_LIMIT = 100'000;
/// Most directories a resource listing names as not listed (ResourceList::unlisted_directories).
inline constexpr std::size_t SKILL_MAX_UNLISTED_DIRECTORIES = 16;
/// Most worker threads one discovery uses, whatever `threads` asks: reading SKILL.md files gains
/// nothing past a few threads, and each thread's allocator arena keeps part of its peak, so the
/// cap also bounds the memory a hostile library can cost (docs/security.md).
inline constexpr std::size_t SKILL_MAX_DISCOVERY_THREADS = 8;

enum class MissingDirectories { error, skip };
enum class DuplicateNames { error, keep_first };

// ---------------------------------------------------------------------------------------
// Sources beyond plain directories (docs/sources.md). The core library only routes paths; the
// optional libraries provide the hooks: agentskills::archive `archive_child_source()`,
// agentskills::git `git_root_source()`.

/// Thrown by a source hook to refuse a child or a root; the loader skips it with `code()` as
/// the diagnostic code (for example `archive-refused`) and this message.
class SourceRefusedError : public IoError {
public:
    SourceRefusedError(std::string code, const std::string& message) : IoError(message), code_(std::move(code)) {}
    [[nodiscard]] const std::string& code() const noexcept { return code_; }

private:
    std::string code_;
};

/// What a ChildOpener makes of a library child file: a reader over the skill's files and the
/// skill directory inside it (a relative path of that reader, "." for its root).
struct ChildSource {
    SkillReaderPtr reader;
    std::string skill_dir = ".";
};

/// Turns a library child that is a file (not a directory) into a skill, for example a `.skill`
/// archive. The skill's paths are `<child path>!/<path inside the reader>` (docs/sources.md).
struct ChildOpener {
    /// Whether a child file of this name is for this opener (the loader lists no other files).
    std::function<bool(std::string_view file_name)> accepts;
    /// Opens the child file `path` (a path of `reader`, the loader's reader). Throws
    /// SourceRefusedError to refuse it, NotFoundError / IoError when it cannot be read; either
    /// way the child becomes a SkippedSkill and the other skills load. Called from discovery's
    /// worker threads, never twice at once for one path.
    std::function<ChildSource(const SkillReader& reader, const std::string& path)> open;
};

/// A library root served by a reader of its own (for example one git commit's tree).
struct RootSource {
    SkillReaderPtr reader;
    /// The library's directory inside `reader` (a relative path, "." for its root).
    std::string path = ".";
    /// Names the source in every path of its skills, `<label>!/<path inside reader>`. It must
    /// say what the reader holds (a git commit id, not a branch name), as discoveries reuse
    /// results by path.
    std::string label;
};

/// Turns a configured root into a RootSource, or nullopt when the root is not of its form.
/// Throws ConfigurationError for a malformed root (the loader's constructor fails),
/// NotFoundError when what it names does not exist (a missing root: skipped or an error as
/// `missing_directories` says), any other Error when it cannot be opened (an unreadable root).
using RootResolver = std::function<std::optional<RootSource>(const std::string& root)>;

/// The source hooks a loader uses; both empty by default (directories only).
struct SkillSources {
    std::vector<ChildOpener> child_openers = {};
    std::vector<RootResolver> root_resolvers = {};
};

/// Another agent whose skill folders a loader can add (FilesystemLoaderOptions::compat). The
/// folders of each, from its own documentation and what the agent itself lists, are in
/// docs/loading.md ("Other agents' folders"); its user folders follow its home variable
/// (CODEX_HOME, XDG_CONFIG_HOME, ...) when that is set to an absolute path.
enum class AgentFolders { claude, copilot, gemini, opencode, codex };

/// Named sets of loader limits (apply_loader_limits; docs/loading.md, "Limit presets").
enum class LoaderLimits {
    standard,  ///< this library's defaults: at most SKILL_MAX_FILE_LINES lines
    agents     ///< what Codex, Gemini CLI and the `skills` CLI load: no line limit
};

/// Most directory levels the default roots' upward walk visits, the start included
/// (docs/loading.md, "Libraries and roots").
inline constexpr std::size_t SKILL_PROJECT_MAX_LEVELS = 16;

struct FilesystemLoaderOptions {
    /// Library roots in precedence order (earlier wins).
    std::vector<std::string> roots = {};
    /// Append the project roots (`.agents/skills` of the start directory and of each directory
    /// above it up to the repository root, nearer first) and `~/.agents/skills` (local reader
    /// only; ignored otherwise). docs/loading.md, "Libraries and roots".
    bool include_default_roots = true;
    /// Other agents' folders to add after the default roots, each agent's project folders (with
    /// the same upward walk) then its user folders, in this order (local reader only; added
    /// whether or not include_default_roots is set; missing ones are skipped like default roots).
    std::vector<AgentFolders> compat = {};
    /// Storage; nullptr = the local file system.
    SkillReaderPtr reader = nullptr;
    NamePolicy name_policy = NamePolicy::keep;
    std::size_t max_lines = SKILL_MAX_FILE_LINES;  ///< 0 = no limit
    std::size_t max_bytes = SKILL_MAX_FILE_BYTES;  ///< 0 = no limit
    /// A frontmatter that is not valid YAML: the skill is skipped (`none`), or its misread plain
    /// values are read as text (`plain_values`; ParseOptions::yaml_recovery).
    YamlRecovery yaml_recovery = YamlRecovery::none;
    /// Only these names (after NFKC); an unknown name fails discovery. Not with `exclude`.
    std::optional<std::vector<std::string>> include = std::nullopt;
    /// Leave these names out (after NFKC).
    std::vector<std::string> exclude = {};
    MissingDirectories missing_directories = MissingDirectories::skip;
    DuplicateNames duplicate_names = DuplicateNames::keep_first;
    /// At most this many resources in LoadedSkill::resources (the first in listing order); the
    /// other files are counted in LoadedSkill::omitted_resources. 0 = no cap (the walk limit stays).
    std::size_t max_resources = SKILL_MAX_RESOURCES;
    /// List files and directories whose name starts with '.' as resources (left out by default).
    bool include_hidden_resources = false;
    /// Keep only the frontmatter of each skill (its manifest) and the file's stat, not its body:
    /// load() reads SKILL.md again, checks that it did not change since discovery (identity,
    /// mtime and size; the bytes when the stat cannot vouch for them) and parses it. A file that
    /// changed is parsed as it is now: load() serves the new manifest and body when it still
    /// parses under the same name, and throws IoError naming the problem otherwise. For hosts and
    /// commands that list many skills and activate few (a 10,000-skill catalog keeps a fraction of
    /// the memory, docs/performance.md).
    bool lazy_bodies = false;
    /// Keep what a discover() parsed for the next one (the parsed files and the last result, so
    /// that an unchanged library is not read again) and for load(). A caller that discovers once
    /// and prints what it found (the CLI's `list`, `to-prompt`, `prompt`) sets it false: each
    /// discovery then moves the manifests into the Discovery it returns instead of copying them,
    /// keeps no parse cache and no snapshot, and load() reads and parses the SKILL.md again (as
    /// under lazy_bodies, with the same checks). A second discover() reads everything again.
    bool keep_results = true;
    /// Build each manifest's `frontmatter` JSON (ParseOptions::frontmatter_json). A caller that
    /// never reads it (a catalog block: the CLI's `to-prompt` and `prompt`) sets it false: the
    /// manifests it discovers and loads then hold an empty frontmatter (`{}`); nothing else changes.
    bool frontmatter_json = true;
    /// How the frontmatter JSON types its scalars (ParseOptions::frontmatter_typing).
    FrontmatterTyping frontmatter_typing = FrontmatterTyping::text;
    /// Worker threads for discovery; at most SKILL_MAX_DISCOVERY_THREADS. 0 = up to the machine's
    /// cores, one for each 128 SKILL.md files at least (a library of fewer is read on the calling
    /// thread, which is faster than starting a worker); a number asked for is used as asked.
    std::size_t threads = 0;
    /// Called once for each diagnostic of each discovery (from the calling thread).
    std::function<void(const Diagnostic&)> on_diagnostic = nullptr;
    /// Archive children and other roots (docs/sources.md); resolved roots are opened once, when
    /// the loader is made.
    SkillSources sources = {};

    // Admission (docs/loading.md, "Admission"): applied to the skills the merge kept, in this
    // order: overrides, trust, lock.

    /// Override rules, in order (later rules win); see OverrideRule.
    std::vector<OverrideRule> overrides = {};
    /// Roots (written as in `roots`, resolved the same way) whose skills are untrusted. Each must
    /// be one of the roots scanned, or the constructor throws ConfigurationError.
    std::vector<std::string> untrusted_roots = {};
    /// Treat the project roots (every level of the upward walk, for `.agents/skills` and for
    /// the `compat` agents' project folders: a repository's own skills) as untrusted.
    bool untrusted_project_root = false;
    /// Decides for each skill of an untrusted root; nullptr denies them all.
    TrustCallback trust = nullptr;
    /// Verifies skills against a lock file (make_lock_verifier in lock.hpp); nullptr = no lock.
    LockVerifier lock = nullptr;
    /// With `lock`: refuse a skill the lock does not hold (`not_locked`); otherwise it is admitted.
    bool lock_strict = false;

    /// Groups below a root (docs/loading.md, "Nested skills"): 0 = off; N = skills down to N
    /// group directories deep, named `group:skill`.
    std::size_t nested_depth = 0;
    /// Directories the nested walk lists per root, at most (SKILL_NESTED_MAX_DIRECTORIES).
    std::size_t nested_max_directories = SKILL_NESTED_MAX_DIRECTORIES;
};

/// Sets the limits of `options` to the preset `limits`: `standard` restores max_lines to
/// SKILL_MAX_FILE_LINES; `agents` lifts it (0). Descriptions over SKILL_MAX_DESCRIPTION_LENGTH are
/// cut with a `description-too-long` warning under either (the parser's standard profile).
void apply_loader_limits(FilesystemLoaderOptions& options, LoaderLimits limits) noexcept;

/// Discovers skills in the immediate children of library roots and loads them.
class FilesystemSkillLoader final : public SkillLoader {
public:
    /// Throws ConfigurationError for options that cannot work (include with exclude, ...).
    explicit FilesystemSkillLoader(FilesystemLoaderOptions options = {});
    ~FilesystemSkillLoader() override;
    FilesystemSkillLoader(const FilesystemSkillLoader&) = delete;
    FilesystemSkillLoader& operator=(const FilesystemSkillLoader&) = delete;

    [[nodiscard]] Discovery discover() override;
    /// The same result as discover(). When this discovery parsed every file itself (the first
    /// one, usually), kept its results (keep_results) and has no admission rule to apply
    /// (overrides, trust, lock), the kept manifests move into the returned Discovery and the
    /// cache keeps those, instead of one copy each; otherwise it is discover()'s result, shared.
    [[nodiscard]] std::shared_ptr<const Discovery> discover_shared() override;
    [[nodiscard]] LoadedSkill load(std::string_view name) override;
    /// The whole frontmatter of the discovered skill `name` as JSON (SkillManifest::frontmatter).
    /// The tree discovery built when it kept it (keep_results and frontmatter_json on); otherwise
    /// the SKILL.md is read and parsed again, with load()'s checks: IoError when it changed since
    /// discovery and no longer parses or now names another skill. NotFoundError for a name not
    /// discovered. For a caller that prints every frontmatter one at a time (`list --json`), so
    /// that discovery need not hold a tree per skill. Thread-safe.
    [[nodiscard]] SharedJson frontmatter(std::string_view name);

    [[nodiscard]] const FilesystemLoaderOptions& options() const noexcept;
    /// The reader in use (the local one when none was given).
    [[nodiscard]] const SkillReaderPtr& reader() const noexcept;
    /// reader(), or for a skill of a source (an archive child, a resolved root) a reader that
    /// takes its `<source>!/<path>` paths.
    [[nodiscard]] SkillReaderPtr reader_for(std::string_view name) const override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// How list_skill_resources walks and caps.
struct ResourceListOptions {
    std::size_t max_resources = SKILL_MAX_RESOURCES;  ///< 0 = no cap
    bool include_hidden = false;                      ///< list names starting with '.'
    /// List files reached through a symbolic link (they are listed by default; a directory link
    /// is never followed). The MCP server leaves them out: it serves no link.
    bool include_symlinks = true;
    /// Fill ResourceList::directories.
    bool list_directories = false;
    /// Directory levels visited below the skill directory (at most SKILL_MAX_RESOURCE_DEPTH).
    std::size_t max_depth = SKILL_MAX_RESOURCE_DEPTH;
};

/// The listed resources and the number of further files left out by the cap.
struct ResourceList {
    std::vector<SkillResource> resources;
    std::size_t omitted = 0;
    /// With `list_directories`: every directory below the skill directory that was visited
    /// (relative, '/'-separated, sorted by bytes).
    std::vector<std::string> directories = {};
    /// Some directory was not visited (past `max_depth`, a directory the reader could not list,
    /// or the walk limit was reached), so the listing may lack files (`omitted` does not count them).
    bool incomplete = false;
    /// The directories below the skill directory whose files are not listed because the reader
    /// could not list them (over its own listing limit, vanished, no permission) or they lie past
    /// `max_depth`: relative paths in the order met, at most SKILL_MAX_UNLISTED_DIRECTORIES.
    std::vector<std::string> unlisted_directories = {};
    /// Why each of `unlisted_directories` is not listed, index for index.
    std::vector<UnlistedReason> unlisted_reasons = {};
    /// The reader's own error for each of `unlisted_directories`, index for index ("cannot list
    /// '...': Permission denied"); empty for a directory left out as too deep. For the operator's
    /// messages (`agentskills mcp`, `lock`); the activation text does not carry it.
    std::vector<std::string> unlisted_errors = {};
    /// The walk looked at SKILL_RESOURCE_WALK_LIMIT directory entries and stopped there. The
    /// files listed are still the first of the documented order (the walk goes in that order);
    /// files after the last one looked at are missing, and `omitted` does not count them.
    bool entry_limit_reached = false;
};

/// Lists the resources of a skill directory through `reader`: every file below `skill_dir`
/// except its own SKILL.md, not following directory symlinks, at most SKILL_MAX_RESOURCE_DEPTH
/// levels deep, without names starting with '.' unless `include_hidden`, ordered scripts/,
/// references/, assets/, then the rest, each by path; the first `max_resources` of that order
/// are kept. The walk looks at no more than SKILL_RESOURCE_WALK_LIMIT entries, and looks at
/// them in that order (each directory's entries sorted), so that what it lists when it stops
/// there is still the first files of the order.
[[nodiscard]] ResourceList list_skill_resources(const SkillReader& reader, std::string_view skill_dir,
                                                const ResourceListOptions& options);

/// The same with the default options; only the resources.
[[nodiscard]] std::vector<SkillResource> list_skill_resources(const SkillReader& reader, std::string_view skill_dir);

}  // namespace agentskills
