// Host-side use: arguments and combined configurations (definitions: host_definition.cpp; agent
// specs and configuration files: host_spec.cpp).
#include "agentskills/host.hpp"
#include "agentskills/diagnostic_codes.hpp"

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <mutex>
#include <shared_mutex>
#include <sstream>
#include <unordered_map>
#include <utility>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "agentskills/activation.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"
#include "agentskills/policy_words.hpp"
#include "agentskills/prompt.hpp"
#include "canonical_name.hpp"
#include "yaml_text.hpp"

namespace agentskills {

// ---------------------------------------------------------------------------------------
// Arguments

namespace {

constexpr std::string_view arguments_placeholder = "$ARGUMENTS";

bool is_word_char(char c) noexcept {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/// Whether `text[pos..]` (just past `$ARGUMENTS`) starts an index `[digits]`.
bool starts_index(std::string_view text, std::size_t pos) noexcept {
    if (pos >= text.size() || text[pos] != '[') return false;
    std::size_t i = pos + 1;
    const std::size_t first_digit = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i > first_digit && i < text.size() && text[i] == ']';
}

}  // namespace

namespace {

constexpr std::string_view arguments_line = "ARGUMENTS: ";

/// Calls f(hit) for each standalone `$ARGUMENTS` of `body`, in order.
template <class F>
void for_each_placeholder(std::string_view body, F&& f) {
    std::size_t pos = 0;
    while (pos < body.size()) {
        const std::size_t hit = body.find(arguments_placeholder, pos);
        if (hit == std::string_view::npos) break;
        const std::size_t after = hit + arguments_placeholder.size();
        if (!(after < body.size() && is_word_char(body[after])) && !starts_index(body, after)) f(hit);
        pos = after;
    }
}

}  // namespace

std::size_t substituted_size(std::string_view body, std::string_view arguments) noexcept {
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::size_t count = 0;
    for_each_placeholder(body, [&](std::size_t) { ++count; });
    if (count == 0) {
        if (arguments.empty()) return body.size();
        const std::size_t extra = (body.empty() ? 0 : 2) + arguments_line.size();
        return arguments.size() > max - body.size() - extra ? max : body.size() + extra + arguments.size();
    }
    const std::size_t base = body.size() - count * arguments_placeholder.size();
    if (arguments.size() != 0 && count > (max - base) / arguments.size()) return max;
    return base + count * arguments.size();
}

std::string substitute_arguments(std::string_view body, std::string_view arguments, std::size_t max_bytes) {
    // The size is known before anything is built, so a body with many placeholders and a long
    // argument fails here instead of asking for gigabytes.
    const std::size_t size = substituted_size(body, arguments);
    if (max_bytes != 0 && size > max_bytes) {
        throw ConfigurationError(fmt::format(
            "the instructions with the arguments substituted would be {} bytes, more than the limit of {} bytes", size,
            max_bytes));
    }
    std::string out;
    out.reserve(size);
    std::size_t pos = 0;
    bool replaced = false;
    for_each_placeholder(body, [&](std::size_t hit) {
        out.append(body.substr(pos, hit - pos));
        out.append(arguments);
        pos = hit + arguments_placeholder.size();
        replaced = true;
    });
    out.append(body.substr(pos));
    if (!replaced && !arguments.empty()) {
        if (!out.empty()) out.append("\n\n");
        out.append(arguments_line);
        out.append(arguments);
    }
    return out;
}

// ---------------------------------------------------------------------------------------
// Configurations

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
    std::size_t config = 0;   // which configuration found it
    std::string loader_name;  // the name its loader knows it by
};

}  // namespace

struct CombinedSkillLoader::Impl {
    std::vector<SkillsConfig> configs;
    std::vector<std::shared_ptr<FilesystemSkillLoader>> loaders;
    std::vector<SkillReaderPtr> readers;  // the reader each loader uses
    mutable std::shared_mutex mutex;
    std::unordered_map<std::string, Entry> entries;  // NFKC name -> where it lives
    std::function<void(const Diagnostic&)> on_diagnostic;

    [[nodiscard]] bool in_run(std::size_t i) const {
        return configs[i].in_run_workspace.value_or(configs[i].workspace == nullptr);
    }
};

CombinedSkillLoader::CombinedSkillLoader(std::vector<SkillsConfig> configs, const SkillReaderPtr& workspace,
                                         std::function<void(const Diagnostic&)> on_diagnostic)
    : impl_(std::make_unique<Impl>()) {
    impl_->on_diagnostic = std::move(on_diagnostic);
    if (configs.empty()) throw ConfigurationError("CombinedSkillLoader: no skills configuration given");
    for (const auto& c : configs) validate_skills_config(c);
    impl_->configs = std::move(configs);
    for (const auto& c : impl_->configs) {
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
        o.on_diagnostic = nullptr;
        o.sources = c.sources;
        auto loader = std::make_shared<FilesystemSkillLoader>(std::move(o));
        impl_->readers.push_back(loader->reader());
        impl_->loaders.push_back(std::move(loader));
    }
}

CombinedSkillLoader::~CombinedSkillLoader() = default;

namespace {

bool canonical(const SkillManifest& m) {
    return detail::is_canonical_name(m.name, nfkc(m.name), path_basename(m.root));
}

std::optional<ReadResult> read_for_compare(const SkillReader& reader, const std::string& path) {
    try {
        return reader.read_file(path, SKILL_MAX_FILE_BYTES);
    } catch (const Error&) {
        return std::nullopt;
    }
}

}  // namespace

Discovery CombinedSkillLoader::discover() {
    Discovery out;
    std::unordered_map<std::string, Entry> entries;
    std::unordered_map<std::string, std::size_t> position;  // NFKC name -> index in out.skills
    for (std::size_t i = 0; i < impl_->loaders.size(); ++i) {
        Discovery d = impl_->loaders[i]->discover();
        out.skipped.insert(out.skipped.end(), std::make_move_iterator(d.skipped.begin()),
                           std::make_move_iterator(d.skipped.end()));
        out.diagnostics.insert(out.diagnostics.end(), std::make_move_iterator(d.diagnostics.begin()),
                               std::make_move_iterator(d.diagnostics.end()));
        for (auto& m : d.skills) {
            std::string key = nfkc(m.name);
            auto found = entries.find(key);
            if (found == entries.end()) {
                entries.emplace(key, Entry{i, m.name});
                position.emplace(std::move(key), out.skills.size());
                out.skills.push_back(std::move(m));
                continue;
            }
            const SkillManifest& first = out.skills[position.at(key)];
            const std::size_t j = found->second.config;
            // Two local readers share one namespace (absolute, resolved paths).
            const bool same_reader = impl_->readers[i] == impl_->readers[j] ||
                                     (impl_->readers[i]->is_local() && impl_->readers[j]->is_local());
            if (same_reader && first.skill_file == m.skill_file) continue;  // the same SKILL.md
            auto a = read_for_compare(*impl_->loaders[j]->reader_for(first.name), first.skill_file);
            auto b = read_for_compare(*impl_->loaders[i]->reader_for(m.name), m.skill_file);
            if (a && b && !a->truncated && !b->truncated && a->data == b->data) continue;  // identical copy
            if (impl_->configs[i].duplicate_names == DuplicateNames::keep_first) {
                if (!canonical(first) && canonical(m)) {
                    // The loader's rule: a look-alike never displaces the canonical skill, even
                    // from an earlier configuration. The canonical one takes its place.
                    std::string message = fmt::format(
                        "{}: skipped: the skill name '{}' is also used by {}, selected by a later configuration, "
                        "whose name is in NFKC form and matches its directory; that one is kept",
                        first.skill_file, first.name, m.skill_file);
                    out.diagnostics.push_back(Diagnostic{std::string(codes::duplicate_name), Severity::warning,
                                                         first.skill_file, 0, message});
                    out.skipped.push_back(
                        SkippedSkill{first.skill_file, SkipReason::duplicate_name, std::move(message)});
                    found->second = Entry{i, m.name};
                    out.skills[position.at(key)] = std::move(m);
                    continue;
                }
                std::string message = fmt::format(
                    "{}: skipped: the skill name '{}' is already used by {}, selected by an earlier "
                    "configuration (the first is kept)",
                    m.skill_file, m.name, first.skill_file);
                out.diagnostics.push_back(
                    Diagnostic{std::string(codes::duplicate_name), Severity::warning, m.skill_file, 0, message});
                out.skipped.push_back(SkippedSkill{m.skill_file, SkipReason::duplicate_name, std::move(message)});
                continue;
            }
            throw DiscoveryError(
                fmt::format("two skills configurations select the name '{}' from different SKILL.md files: {} and {} "
                            "(set duplicate_names to keep_first on the later configuration to keep the first)",
                            m.name, first.skill_file, m.skill_file));
        }
    }
    {
        std::unique_lock lock(impl_->mutex);
        impl_->entries = std::move(entries);
    }
    if (impl_->on_diagnostic) {
        for (const auto& d : out.diagnostics) impl_->on_diagnostic(d);
    }
    return out;
}

LoadedSkill CombinedSkillLoader::load(std::string_view name) {
    Entry entry;
    {
        std::shared_lock lock(impl_->mutex);
        auto it = impl_->entries.find(nfkc(name));
        if (it == impl_->entries.end()) {
            throw NotFoundError(fmt::format("no skill named '{}' was discovered", name));
        }
        entry = it->second;
    }
    return impl_->loaders[entry.config]->load(entry.loader_name);
}

bool CombinedSkillLoader::in_run_workspace(std::string_view name) const {
    std::shared_lock lock(impl_->mutex);
    auto it = impl_->entries.find(nfkc(name));
    return it == impl_->entries.end() ? true : impl_->in_run(it->second.config);
}

SkillReaderPtr CombinedSkillLoader::reader_for(std::string_view name) const {
    std::shared_lock lock(impl_->mutex);
    auto it = impl_->entries.find(nfkc(name));
    return it == impl_->entries.end() ? nullptr : impl_->loaders[it->second.config]->reader_for(it->second.loader_name);
}

const std::vector<SkillsConfig>& CombinedSkillLoader::configs() const noexcept { return impl_->configs; }

HostCatalog load_host_catalog(const std::vector<SkillsConfig>& configs, const SkillReaderPtr& workspace) {
    CombinedSkillLoader loader(configs, workspace);
    Discovery d = loader.discover();
    HostCatalog catalog;
    catalog.skipped = std::move(d.skipped);
    catalog.diagnostics = std::move(d.diagnostics);
    catalog.skills.reserve(d.skills.size());
    for (const auto& m : d.skills) {
        catalog.skills.push_back(SkillDefinition::from_loaded(loader.load(m.name), loader.in_run_workspace(m.name)));
    }
    return catalog;
}

HostCatalog load_host_catalog(const SkillsConfig& config, const SkillReaderPtr& workspace) {
    return load_host_catalog(std::vector<SkillsConfig>{config}, workspace);
}

}  // namespace agentskills
