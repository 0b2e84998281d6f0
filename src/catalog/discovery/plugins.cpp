// agentskills-cpp — discovery, Claude Code plugins and marketplaces: a root whose `.claude-plugin/`
// holds `marketplace.json` (a list of plugins) or `plugin.json` (one plugin) stands for its
// plugins' `skills/` folders, or the skill paths a plugin declares (docs/loading.md, "Claude
// Code plugins and marketplaces").
#include "plugins.hpp"

#include <algorithm>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "../../base/json_text_check.hpp"
#include "../../parse/session.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/catalog/governance.hpp"

namespace agentskills::detail {

namespace {

constexpr std::string_view plugin_folder = ".claude-plugin";
constexpr std::string_view marketplace_manifest = ".claude-plugin/marketplace.json";
constexpr std::string_view plugin_manifest = ".claude-plugin/plugin.json";
constexpr std::string_view plugin_skills_folder = "skills";

enum class Found { absent, read, failed };

// Reads and parses the manifest `relative` below `dir` with the confined read (no symbolic link on
// the way, nothing above `dir`), bounded in size and depth. `why` says what failed; `bytes` is
// what was read (0 when nothing was).
Found read_manifest(const SkillReader& reader, const std::string& dir, std::string_view relative, nlohmann::json& out,
                    std::string& why, std::size_t& bytes) {
    bytes = 0;
    ReadResult r;
    try {
        r = reader.read_file_beneath(dir, relative, SKILL_PLUGIN_MANIFEST_MAX_BYTES);
    } catch (const NotFoundError&) {
        return Found::absent;
    } catch (const std::exception& e) {
        // Only a manifest that is there (a link, a directory, no permission to read it) is one
        // that failed. A root that cannot be searched at all is not a plugin: it stays a root,
        // whose listing reports it as it always did.
        try {
            (void)reader.stat(join_path(dir, relative));
        } catch (const std::exception&) {
            return Found::absent;
        }
        why = fmt::format("it cannot be read: {}", model_text(e.what()));
        return Found::failed;
    }
    bytes = r.data.size();
    if (r.truncated) {
        why = fmt::format("it is larger than {} bytes", SKILL_PLUGIN_MANIFEST_MAX_BYTES);
        return Found::failed;
    }
    // The core's JSON reader (base/json_text_check.hpp): the depth bounded while the document is
    // built (the formats need three levels), each key once per object.
    detail::JsonTextCheck json_reader({.max_depth = SKILL_PLUGIN_MANIFEST_MAX_DEPTH});
    using Fault = detail::JsonTextCheck::Fault;
    switch (json_reader.parse(r.data, out)) {
        case Fault::none:
        case Fault::values:  // no value bound is set
            break;
        case Fault::depth:
            why = fmt::format("it nests deeper than {} levels", SKILL_PLUGIN_MANIFEST_MAX_DEPTH);
            return Found::failed;
        case Fault::duplicate_key:
            why =
                fmt::format("it gives the key '{}' twice in one object", model_text(detail::shown(json_reader.key())));
            return Found::failed;
        case Fault::syntax:
            why = fmt::format("it is not valid JSON: {}", model_text(json_reader.syntax_error()));
            return Found::failed;
    }
    if (!out.is_object()) {
        why = "it is not a JSON object";
        return Found::failed;
    }
    return Found::read;
}

// The JSON type of a value with its article, for messages ("an array").
std::string type_of(const nlohmann::json& v) {
    const std::string_view name = v.type_name();
    if (name == "null") return "null";
    const bool vowel = !name.empty() && std::string_view("aeiou").find(name.front()) != std::string_view::npos;
    return fmt::format("{} {}", vowel ? "an" : "a", name);
}

class PluginScan {
public:
    PluginScan(const std::string& root, const SkillReader& reader, Diagnostics& diagnostics)
        : root_(root), reader_(reader), diagnostics_(diagnostics) {}

    std::optional<std::vector<Root>> scan() {
        nlohmann::json doc;
        std::string why;
        std::size_t bytes = 0;
        const std::string market_path = join_path(root_, marketplace_manifest);
        root_manifest_ = market_path;
        switch (read_manifest(reader_, root_, marketplace_manifest, doc, why, bytes)) {
            case Found::read:
                bytes_ = bytes;
                marketplace(doc, market_path);
                return std::move(roots_);
            case Found::failed:
                refuse(market_path,
                       fmt::format("the marketplace {} is not used: {}; no plugin of it is loaded", market_path, why));
                return std::move(roots_);
            case Found::absent:
                break;
        }
        const std::string plugin_path = join_path(root_, plugin_manifest);
        root_manifest_ = plugin_path;
        switch (read_manifest(reader_, root_, plugin_manifest, doc, why, bytes)) {
            case Found::read:
                bytes_ = bytes;
                plugin(doc, plugin_path);
                return std::move(roots_);
            case Found::failed:
                refuse(plugin_path,
                       fmt::format("the plugin {} is not used: {}; none of its skills is loaded", plugin_path, why));
                return std::move(roots_);
            case Found::absent:
                break;
        }
        return std::nullopt;
    }

private:
    void refuse(std::string path, std::string message) {
        diagnostics_.push_back(
            Diagnostic{std::string(codes::plugin_refused), Severity::warning, std::move(path), 0, std::move(message)});
    }

    // The scan's budgets (SKILL_PLUGIN_SCAN_MAX_CHECKS, SKILL_PLUGIN_SCAN_MAX_BYTES), all plugins of
    // the root together: plugins of one marketplace may share a directory and its deep paths, or a
    // large plugin.json, which each entry would check or read again. The plugin being added that
    // goes past one is refused, once, with the plugins after it, and the scan stops.
    void exhaust(const std::string& what) {
        if (exhausted_) return;
        exhausted_ = true;
        refuse(root_manifest_, fmt::format("{} is not loaded, nor any plugin after it: the scan of {} reached its "
                                           "limit of {}",
                                           plugin_label_, root_manifest_, what));
    }
    // One more file-system check; false (after refusing) past the budget.
    bool check() {
        if (exhausted_) return false;
        if (++checks_ <= SKILL_PLUGIN_SCAN_MAX_CHECKS) return true;
        exhaust(fmt::format("{} file-system checks", SKILL_PLUGIN_SCAN_MAX_CHECKS));
        return false;
    }

    // A plugin root: its name from plugin.json, or the directory's when plugin.json has none.
    void plugin(const nlohmann::json& doc, const std::string& manifest_path) {
        std::string name;
        if (auto it = doc.find("name"); it != doc.end()) {
            if (!it->is_string()) {
                refuse(manifest_path, fmt::format("the plugin {} is not used: its name is {}, not a string",
                                                  manifest_path, type_of(*it)));
                return;
            }
            name = it->get<std::string>();
        } else {
            name = std::string(path_basename(root_));
        }
        const std::string label = "the plugin " + manifest_path;
        if (!valid_name(name, manifest_path, label)) return;
        Declared declared;
        if (!declare(doc, manifest_path, label, declared)) return;
        add(root_, "", name, manifest_path, label, std::move(declared), false);
    }

    // A marketplace: each entry of `plugins` whose source is a path inside the root.
    void marketplace(const nlohmann::json& doc, const std::string& manifest_path) {
        const auto plugins = doc.find("plugins");
        if (plugins == doc.end() || !plugins->is_array()) {
            refuse(manifest_path,
                   fmt::format("the marketplace {} is not used: it has no 'plugins' array", manifest_path));
            return;
        }
        std::string plugin_root;
        if (auto meta = doc.find("metadata"); meta != doc.end() && meta->is_object()) {
            if (auto pr = meta->find("pluginRoot"); pr != meta->end()) {
                if (pr->is_string()) {
                    plugin_root = pr->get<std::string>();
                } else {
                    refuse(manifest_path, fmt::format("the marketplace {}: metadata.pluginRoot is {}, not a "
                                                      "string; it is ignored",
                                                      manifest_path, type_of(*pr)));
                }
            }
        }
        std::size_t index = 0;
        for (const nlohmann::json& entry : *plugins) {
            ++index;
            if (index > SKILL_MARKETPLACE_MAX_PLUGINS) {
                refuse(manifest_path,
                       fmt::format("the marketplace {} lists more than {} plugins; the plugins after "
                                   "entry {} are not loaded",
                                   manifest_path, SKILL_MARKETPLACE_MAX_PLUGINS, SKILL_MARKETPLACE_MAX_PLUGINS));
                return;
            }
            const std::string entry_label = fmt::format("entry {} of the marketplace {}", index, manifest_path);
            if (!entry.is_object()) {
                refuse(manifest_path,
                       fmt::format("{} is not used: it is {}, not an object", entry_label, type_of(entry)));
                continue;
            }
            const auto name = entry.find("name");
            if (name == entry.end() || !name->is_string()) {
                refuse(manifest_path, fmt::format("{} is not used: it has no name string", entry_label));
                continue;
            }
            const std::string label =
                fmt::format("plugin '{}' ({})", model_text(name->get<std::string>()), entry_label);
            if (!valid_name(name->get<std::string>(), manifest_path, label)) continue;
            const auto source = entry.find("source");
            if (source == entry.end()) {
                refuse(manifest_path, fmt::format("{} is not used: it has no source", label));
                continue;
            }
            if (source->is_object()) {
                const auto kind = source->find("source");
                refuse(manifest_path,
                       fmt::format("{} is not loaded: its source is remote ({}); only plugins inside the "
                                   "marketplace's directory are loaded",
                                   label,
                                   kind != source->end() && kind->is_string() ? model_text(kind->get<std::string>())
                                                                              : std::string("an object")));
                continue;
            }
            if (!source->is_string()) {
                refuse(manifest_path,
                       fmt::format("{} is not used: its source is {}, not a path", label, type_of(*source)));
                continue;
            }
            std::string relative = source->get<std::string>();
            if (relative.empty()) {
                refuse(manifest_path, fmt::format("{} is not used: its source is an empty path", label));
                continue;
            }
            if (!plugin_root.empty()) relative = join_path(plugin_root, relative);
            Declared declared;
            if (!declare(entry, manifest_path, label, declared)) continue;
            // `"strict": false`: the entry is the whole definition; otherwise the plugin's own
            // plugin.json may declare skill paths too.
            const auto strict = entry.find("strict");
            const bool read_plugin_json = strict == entry.end() || *strict != nlohmann::json(false);
            add(root_, relative, name->get<std::string>(), manifest_path, label, std::move(declared), read_plugin_json);
            if (exhausted_) return;
        }
    }

    bool valid_name(const std::string& name, const std::string& manifest_path, const std::string& label) {
        if (is_valid_skill_name(name)) return true;
        refuse(manifest_path, fmt::format("{} is not used: its name '{}' breaks the skill name rules, so its "
                                          "skills cannot be named '<plugin>:<skill>'",
                                          label, model_text(name)));
        return false;
    }

    // The skill paths a manifest declares in its `skills` field, each with the file that says it.
    struct Declared {
        std::vector<std::pair<std::string, std::string>> paths;  // {path as written, manifest}
        bool any = false;                                        // a `skills` field was there
    };

    // Adds the paths of `doc`'s `skills` field (a path, or an array of paths) to `out`. False,
    // after refusing the plugin, when the field or one of its entries is not a string.
    bool declare(const nlohmann::json& doc, const std::string& manifest_path, const std::string& label, Declared& out) {
        const auto field = doc.find("skills");
        if (field == doc.end()) return true;
        if (field->is_string()) {
            out.any = true;
            out.paths.emplace_back(field->get<std::string>(), manifest_path);
            return true;
        }
        if (!field->is_array()) {
            refuse(manifest_path, fmt::format("{} is not used: its 'skills' is {}, not a path or a list of paths",
                                              label, type_of(*field)));
            return false;
        }
        std::size_t index = 0;
        for (const nlohmann::json& path : *field) {
            ++index;
            if (!path.is_string()) {
                refuse(manifest_path, fmt::format("{} is not used: entry {} of its 'skills' is {}, not a path", label,
                                                  index, type_of(path)));
                return false;
            }
        }
        out.any = out.any || !field->empty();  // `"skills": []` declares nothing: `skills/` is used
        for (const nlohmann::json& path : *field) out.paths.emplace_back(path.get<std::string>(), manifest_path);
        return true;
    }

    // `path` (a source or a skill path) below the directory it is relative to, as `inside`
    // ("" for "." and "./", which name that directory itself); false, with `why`, for a path that
    // confined_path refuses otherwise (empty, absolute, `..`).
    static bool confine(const std::string& path, std::string& inside, std::string& why) {
        try {
            inside = confined_path(path);
            return true;
        } catch (const PathError& e) {
            if (!path.empty() && path.front() != '/' && path.find_first_not_of("./") == std::string::npos &&
                path.find("..") == std::string::npos) {
                inside.clear();
                return true;
            }
            why = model_text(e.what());
            return false;
        }
    }

    enum class Step { found, missing, refused };

    // Walks from `base` down `inside` (components joined by '/'; "" = `base` itself): every step
    // must be a directory that is not a symbolic link. `at` is the last step reached. A step that
    // cannot be inspected, is a link or is not a directory refuses `label` (`missing` is left to
    // the caller, with `at` the step that is missing).
    Step walk(const std::string& base, const std::string& inside, const std::string& manifest_path,
              const std::string& label, std::string& at) {
        at = base;
        std::size_t start = 0;
        while (start < inside.size()) {
            const std::size_t slash = inside.find('/', start);
            const std::size_t stop = slash == std::string::npos ? inside.size() : slash;
            const std::string_view step = std::string_view(inside).substr(start, stop - start);
            if (at.empty() || at == ".") {  // join_path's rule, in place: no copy of `at` a step
                at = step;
            } else {
                if (at.back() != '/') at += '/';
                at += step;
            }
            start = stop + 1;
            if (!check()) return Step::refused;
            FileStat st;
            try {
                st = reader_.stat(at);
            } catch (const NotFoundError&) {
                return Step::missing;
            } catch (const std::exception& e) {
                refuse(manifest_path,
                       fmt::format("{} is not used: cannot inspect {}: {}", label, at, model_text(e.what())));
                return Step::refused;
            }
            if (st.is_symlink) {
                refuse(manifest_path, fmt::format("{} is not used: {} is a symbolic link; a plugin's folders must "
                                                  "lie inside {} without links",
                                                  label, at, base));
                return Step::refused;
            }
            if (st.kind != EntryKind::directory) {
                refuse(manifest_path, fmt::format("{} is not used: {} is not a directory", label, at));
                return Step::refused;
            }
        }
        return Step::found;
    }

    // The plugin at `relative` below `base` ("" = `base` itself), named `name`. Its skills are
    // those of the paths it declares (a skill directory, or a folder of skills), which replace
    // the `skills/` folder; with none declared, `skills/` when it is there. `plugin_json`: the
    // plugin's own `.claude-plugin/plugin.json` may declare paths too (a strict marketplace entry).
    void add(const std::string& base, const std::string& relative, const std::string& name,
             const std::string& manifest_path, const std::string& label, Declared declared, bool plugin_json) {
        plugin_label_ = label;
        std::string inside;
        if (!relative.empty()) {
            std::string why;
            if (!confine(relative, inside, why)) {
                refuse(manifest_path, fmt::format("{} is not used: its source '{}' is not a path inside {}: {}", label,
                                                  model_text(relative), base, why));
                return;
            }
        }
        std::string plugin_dir;
        switch (walk(base, inside, manifest_path, label, plugin_dir)) {
            case Step::found:
                break;
            case Step::missing:
                refuse(manifest_path,
                       fmt::format("{} is not used: its directory {} does not exist", label, plugin_dir));
                return;
            case Step::refused:
                return;
        }
        if (plugin_json) {
            nlohmann::json doc;
            std::string why;
            const std::string own = join_path(plugin_dir, plugin_manifest);
            std::size_t bytes = 0;
            const Found found = read_manifest(reader_, plugin_dir, plugin_manifest, doc, why, bytes);
            bytes_ += bytes;
            if (bytes_ > SKILL_PLUGIN_SCAN_MAX_BYTES) {
                exhaust(fmt::format("{} bytes of manifests", SKILL_PLUGIN_SCAN_MAX_BYTES));
                return;
            }
            switch (found) {
                case Found::read:
                    if (!declare(doc, own, label, declared)) return;
                    break;
                case Found::failed:
                    refuse(own, fmt::format("{} is not used: its manifest {} cannot be used: {}", label, own, why));
                    return;
                case Found::absent:
                    break;
            }
        }
        // The plugin's folders, each whole (every child a skill) or with the children it names.
        struct Folder {
            std::string path;
            bool whole = false;
            std::vector<std::string> only;
        };
        std::vector<Folder> folders;
        const auto folder = [&](const std::string& path) -> Folder& {
            for (Folder& f : folders) {
                if (f.path == path) return f;
            }
            return folders.emplace_back(Folder{path, false, {}});
        };
        if (!declared.any) {
            std::string skills;
            if (walk(plugin_dir, std::string(plugin_skills_folder), manifest_path, label, skills) != Step::found) {
                return;  // no skills folder (commands or agents only): no skills, silently (or past the budget)
            }
            folder(skills).whole = true;
        }
        std::size_t index = 0;
        for (const auto& [path, from] : declared.paths) {
            if (++index > SKILL_PLUGIN_MAX_SKILL_PATHS) {
                refuse(from, fmt::format("{}: its 'skills' lists more than {} paths; the paths after entry {} are "
                                         "not loaded",
                                         label, SKILL_PLUGIN_MAX_SKILL_PATHS, SKILL_PLUGIN_MAX_SKILL_PATHS));
                break;
            }
            const std::string skill_label = fmt::format("skill path '{}' of {}", model_text(path), label);
            std::string below;
            std::string why;
            if (!confine(path, below, why)) {
                refuse(from,
                       fmt::format("{} is not used: it is not a path inside {}: {}", skill_label, plugin_dir, why));
                continue;
            }
            std::string dir;
            switch (walk(plugin_dir, below, from, skill_label, dir)) {
                case Step::found:
                    break;
                case Step::missing:
                    refuse(from, fmt::format("{} is not used: {} does not exist", skill_label, dir));
                    continue;
                case Step::refused:
                    if (exhausted_) return;
                    continue;
            }
            // A directory holding a SKILL.md is one skill (its parent's child of that name); any
            // other is a folder of skills.
            bool skill_dir = false;
            if (!below.empty()) {
                if (!check()) return;
                try {
                    (void)reader_.stat(join_path(dir, skill_file_name));
                    skill_dir = true;
                } catch (const NotFoundError&) {
                } catch (const std::exception& e) {
                    refuse(from, fmt::format("{} is not used: cannot inspect {}: {}", skill_label,
                                             join_path(dir, skill_file_name), model_text(e.what())));
                    continue;
                }
            }
            if (!skill_dir) {
                folder(dir).whole = true;
                continue;
            }
            const std::size_t slash = below.rfind('/');
            folder(slash == std::string::npos ? plugin_dir : join_path(plugin_dir, below.substr(0, slash)))
                .only.emplace_back(path_basename(dir));
        }
        for (Folder& f : folders) {
            if (f.whole) {
                const auto loading = static_cast<std::size_t>(std::count_if(
                    roots_.begin(), roots_.end(), [&](const Root& r) { return r.only.empty() && r.path == f.path; }));
                if (loading >= SKILL_PLUGIN_FOLDER_MAX_PLUGINS) {
                    refuse(manifest_path,
                           fmt::format("{} does not load {}: {} plugins of {} load that folder already, the most "
                                       "that may",
                                       label, f.path, SKILL_PLUGIN_FOLDER_MAX_PLUGINS, root_manifest_));
                    continue;
                }
            }
            Root r;
            r.path = std::move(f.path);
            if (!f.whole) {  // a folder also declared whole keeps every child
                std::sort(f.only.begin(), f.only.end());
                f.only.erase(std::unique(f.only.begin(), f.only.end()), f.only.end());
                r.only = std::move(f.only);
            }
            r.is_default = true;  // skipped, not fatal, when unreadable
            r.name_prefix = name + SKILL_GROUP_SEPARATOR;
            r.origin = root_;
            roots_.push_back(std::move(r));
        }
    }

    const std::string& root_;
    const SkillReader& reader_;
    Diagnostics& diagnostics_;
    std::vector<Root> roots_;
    std::string root_manifest_;  // the root's marketplace.json or plugin.json
    std::string plugin_label_;   // the plugin being added
    std::size_t checks_ = 0;     // file-system checks so far
    std::size_t bytes_ = 0;      // manifest bytes read so far
    bool exhausted_ = false;     // a budget was reached: nothing more is loaded
};

}  // namespace

std::optional<std::vector<Root>> plugin_roots(const std::string& root, const Storage& storage,
                                              Diagnostics& diagnostics) {
    // Nearly every root has no `.claude-plugin`. On the local file system Storage::probe says so
    // with one lstat, instead of two confined reads that each throw NotFoundError (a symbolic link
    // there is not "missing": the confined reads refuse it as before). Another reader may know a
    // folder only by the files below it: the reads ask it.
    if (storage.local()) {
        FileStat st;
        if (storage.probe(join_path(root, plugin_folder), -1, std::string(), st) == Storage::Probe::missing) {
            return std::nullopt;
        }
    }
    return PluginScan(root, storage.reader(), diagnostics).scan();
}

}  // namespace agentskills::detail
