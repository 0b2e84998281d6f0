// CombinedSkillLoader: the one merge of several sources (combined_loader.hpp), under the rules of
// merge_rules.hpp that the file-system loader's merge over its roots applies too.
#include "agentskills/catalog/combined_loader.hpp"

#include <iterator>
#include <map>
#include <set>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "merge_rules.hpp"

namespace agentskills {

void validate_skills_config(const SkillsConfig& config) {
    if (config.directories.empty()) {
        throw ConfigurationError("skills configuration: 'directories' names no library; pass at least one");
    }
    for (const auto& d : config.directories) {
        if (d.empty()) throw ConfigurationError("skills configuration: 'directories' holds an empty path");
    }
    if (config.include && config.exclude) {
        throw ConfigurationError("skills configuration: 'include' and 'exclude' cannot be used together");
    }
}

namespace {

struct Entry {
    std::size_t source = 0;  // which source found it
    std::string inner;       // the name its loader knows it by
    std::string name;        // the name in the combined catalog (qualified or not)
};

bool canonical(const SkillManifest& m) {
    return detail::is_canonical_name(m.name, nfkc(m.name), path_basename(m.root));
}

std::optional<ReadResult> read_for_compare(const SkillReaderPtr& reader, const std::string& path) {
    if (!reader) return std::nullopt;
    try {
        return reader->read_file(path, SKILL_MAX_FILE_BYTES);
    } catch (const Error&) {
        return std::nullopt;
    }
}

}  // namespace

struct CombinedSkillLoader::Impl {
    std::vector<LoaderSource> sources;
    CombinedLoaderOptions options;
    std::vector<SkillsConfig> configs;
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, Entry> entries;  // NFKC name -> where it lives

    [[nodiscard]] const Entry* entry(std::string_view name) const {
        auto it = entries.find(nfkc(name));
        return it == entries.end() ? nullptr : &it->second;
    }

    // The same SKILL.md (one reader, or two local ones, and one path) or a byte-identical copy.
    [[nodiscard]] bool same_skill(const Entry& a, const SkillManifest& ma, const Entry& b,
                                  const SkillManifest& mb) const {
        const SkillReaderPtr ra = sources[a.source].loader->reader_for(a.inner);
        const SkillReaderPtr rb = sources[b.source].loader->reader_for(b.inner);
        const bool same_reader = ra == rb || (ra && rb && ra->is_local() && rb->is_local());
        if (same_reader && ma.skill_file == mb.skill_file) return true;
        const auto x = read_for_compare(ra, ma.skill_file);
        const auto y = read_for_compare(rb, mb.skill_file);
        return x && y && !x->truncated && !y->truncated && x->data == y->data;
    }
};

CombinedSkillLoader::CombinedSkillLoader(std::vector<LoaderSource> sources, CombinedLoaderOptions options)
    : impl_(std::make_unique<Impl>()) {
    if (sources.empty()) throw ConfigurationError("CombinedSkillLoader: no source given");
    for (const auto& s : sources) {
        if (!s.loader) throw ConfigurationError("CombinedSkillLoader: a source has no loader");
    }
    if (options.include && !options.exclude.empty()) {
        throw ConfigurationError("CombinedSkillLoader: 'include' and 'exclude' cannot be used together");
    }
    impl_->sources = std::move(sources);
    impl_->options = std::move(options);
}

CombinedSkillLoader::CombinedSkillLoader(std::vector<SkillsConfig> configs, const SkillReaderPtr& workspace,
                                         std::function<void(const Diagnostic&)> on_diagnostic)
    : impl_(std::make_unique<Impl>()) {
    if (configs.empty()) throw ConfigurationError("CombinedSkillLoader: no skills configuration given");
    for (const auto& c : configs) validate_skills_config(c);
    for (const auto& c : configs) {
        FilesystemLoaderOptions o;
        o.roots = c.directories;
        o.include_default_roots = false;
        o.reader = c.workspace ? c.workspace : workspace;
        o.name_policy = c.name_policy;
        o.include = c.include;
        o.exclude = c.exclude.value_or(std::vector<std::string>{});
        o.missing_directories = c.missing_directories;
        o.duplicate_names = c.duplicate_names;
        o.overrides = c.overrides;
        o.sources = c.sources;
        impl_->sources.push_back(LoaderSource{.loader = std::make_shared<FilesystemSkillLoader>(std::move(o)),
                                              .duplicate_names = c.duplicate_names,
                                              .in_run_workspace = c.in_run_workspace.value_or(c.workspace == nullptr),
                                              .qualifier = {}});
    }
    impl_->configs = std::move(configs);
    impl_->options.on_diagnostic = std::move(on_diagnostic);
}

CombinedSkillLoader::~CombinedSkillLoader() = default;

Discovery CombinedSkillLoader::discover() {
    Impl& impl = *impl_;
    Discovery out;
    struct Found {
        Entry entry;
        SkillManifest manifest;
    };
    std::vector<Found> found;
    for (std::size_t i = 0; i < impl.sources.size(); ++i) {
        Discovery d = impl.sources[i].loader->discover();
        out.skipped.insert(out.skipped.end(), std::make_move_iterator(d.skipped.begin()),
                           std::make_move_iterator(d.skipped.end()));
        out.diagnostics.insert(out.diagnostics.end(), std::make_move_iterator(d.diagnostics.begin()),
                               std::make_move_iterator(d.diagnostics.end()));
        for (auto& m : d.skills) found.push_back({Entry{i, m.name, m.name}, std::move(m)});
    }

    // Names that skills of two or more qualified sources share: each such skill is renamed.
    std::map<std::string, std::set<std::size_t>, std::less<>> qualified_sources;
    for (const auto& f : found) {
        if (!impl.sources[f.entry.source].qualifier.empty())
            qualified_sources[nfkc(f.manifest.name)].insert(f.entry.source);
    }
    for (auto& f : found) {
        const std::string& qualifier = impl.sources[f.entry.source].qualifier;
        if (qualifier.empty() || qualified_sources[nfkc(f.manifest.name)].size() < 2) continue;
        std::string name = qualifier + ":" + f.manifest.name;
        out.diagnostics.push_back({std::string(codes::mcp_name_qualified), Severity::warning, f.manifest.skill_file, 0,
                                   fmt::format("{}: the name '{}' is also used by another source; {} is listed as '{}'",
                                               qualifier, f.manifest.name, f.manifest.skill_file, name)});
        f.manifest.name = name;
        f.entry.name = std::move(name);
    }

    // Precedence: the first of a name is kept, unless a later canonical one displaces a look-alike.
    std::unordered_map<std::string, std::size_t> position;  // NFKC name -> index in `kept`
    std::vector<Found> kept;
    const auto duplicate = [&](const SkillManifest& m, const SkillManifest& other, bool displaced) {
        std::string message = displaced ? detail::displaced_message(m.name, m.skill_file, other.skill_file)
                                        : detail::duplicate_message(m.name, m.skill_file, other.skill_file);
        out.diagnostics.push_back(
            Diagnostic{std::string(codes::duplicate_name), Severity::warning, m.skill_file, 0, message});
        out.skipped.push_back(SkippedSkill{m.skill_file, SkipReason::duplicate_name, std::move(message)});
    };
    for (auto& f : found) {
        std::string key = nfkc(f.manifest.name);
        auto at = position.find(key);
        if (at == position.end()) {
            position.emplace(std::move(key), kept.size());
            kept.push_back(std::move(f));
            continue;
        }
        Found& first = kept[at->second];
        if (impl.same_skill(first.entry, first.manifest, f.entry, f.manifest)) continue;  // counts once
        if (impl.sources[f.entry.source].duplicate_names == DuplicateNames::error) {
            throw DiscoveryError(
                detail::duplicate_message(f.manifest.name, f.manifest.skill_file, first.manifest.skill_file));
        }
        if (!canonical(first.manifest) && canonical(f.manifest)) {
            duplicate(first.manifest, f.manifest, true);
            first = std::move(f);
        } else {
            duplicate(f.manifest, first.manifest, false);
        }
    }

    // The merge's own selection.
    const CombinedLoaderOptions& opt = impl.options;
    std::unordered_set<std::string> include_keys;
    std::unordered_set<std::string> exclude_keys;
    if (opt.include) {
        for (const auto& n : *opt.include) include_keys.insert(nfkc(n));
    }
    for (const auto& n : opt.exclude) exclude_keys.insert(nfkc(n));
    std::unordered_set<std::string> excluded;
    std::unordered_map<std::string, Entry> entries;
    for (auto& f : kept) {
        std::string key = nfkc(f.manifest.name);
        if (exclude_keys.count(key) != 0) {
            excluded.insert(std::move(key));
            continue;
        }
        if (opt.include && include_keys.count(key) == 0) continue;
        entries.emplace(std::move(key), std::move(f.entry));
        out.skills.push_back(std::move(f.manifest));
    }
    if (opt.include) {
        std::vector<std::string> unknown;
        for (const auto& n : *opt.include) {
            if (position.count(nfkc(n)) == 0) unknown.push_back(n);
        }
        if (!unknown.empty()) throw DiscoveryError(detail::unknown_include_message(unknown));
    }
    std::unordered_set<std::string> reported;
    for (const auto& n : opt.exclude) {
        std::string key = nfkc(n);
        if (excluded.count(key) != 0 || !reported.insert(key).second) continue;
        out.diagnostics.push_back(
            {std::string(codes::exclude_unknown), Severity::warning, "", 0, detail::unknown_exclude_message(n)});
    }
    {
        std::unique_lock lock(impl.mutex);
        impl.entries = std::move(entries);
    }
    if (opt.on_diagnostic) {
        for (const auto& d : out.diagnostics) opt.on_diagnostic(d);
    }
    return out;
}

LoadedSkill CombinedSkillLoader::load(std::string_view name) {
    Entry entry;
    {
        std::shared_lock lock(impl_->mutex);
        const Entry* e = impl_->entry(name);
        if (e == nullptr) throw NotFoundError(fmt::format("no skill named '{}' was discovered", name));
        entry = *e;
    }
    LoadedSkill skill = impl_->sources[entry.source].loader->load(entry.inner);
    if (entry.name != entry.inner) skill.manifest.name = entry.name;
    return skill;
}

bool CombinedSkillLoader::in_run_workspace(std::string_view name) const {
    std::shared_lock lock(impl_->mutex);
    const Entry* e = impl_->entry(name);
    if (e == nullptr) return true;
    const LoaderSource& source = impl_->sources[e->source];
    return source.in_run_workspace.value_or(source.loader->in_run_workspace(e->inner));
}

SkillReaderPtr CombinedSkillLoader::reader_for(std::string_view name) const {
    std::shared_lock lock(impl_->mutex);
    const Entry* e = impl_->entry(name);
    return e == nullptr ? nullptr : impl_->sources[e->source].loader->reader_for(e->inner);
}

const std::vector<SkillsConfig>& CombinedSkillLoader::configs() const noexcept { return impl_->configs; }

}  // namespace agentskills
