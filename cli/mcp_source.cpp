// agentskills CLI — MCP servers as skill sources (--mcp-command, --mcp-url), and the loader that
// puts the sources together in command-line order.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "agentskills/diagnostic_codes.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"
#include "agentskills/text.hpp"
#include "source_options.hpp"

#ifdef AGENTSKILLS_HAVE_MCP_CLIENT
#include "extras.hpp"
#endif

namespace agentskills::cli {

#ifdef AGENTSKILLS_HAVE_MCP_CLIENT

namespace {

constexpr std::string_view MCP_ORIGIN = "mcp:";

bool from_mcp(const SkillManifest& m) { return m.library.rfind(MCP_ORIGIN, 0) == 0; }

/// Several loaders as one catalog, earlier loaders winning. A name that skills of two MCP loaders
/// share is kept for each as `<label>:<name>` (mcp-name-qualified); any other name found again
/// later (local after local, local after MCP, MCP after local) is a duplicate: skipped with
/// duplicate-name under keep_first, a DiscoveryError under error. include/exclude apply to the
/// combined names.
class SourceStack final : public SkillLoader {
public:
    SourceStack(std::vector<SkillLoaderPtr> loaders, const SourceArgs& args)
        : loaders_(std::move(loaders)),
          duplicates_(args.duplicate_names.value_or(DuplicateNames::keep_first)),
          exclude_(args.exclude) {
        if (!args.include.empty()) include_ = args.include;
    }

    Discovery discover() override {
        struct Found {
            std::size_t loader;
            SkillManifest manifest;
            std::string inner;  // the name its loader knows it by
        };
        Discovery out;
        std::vector<Found> found;
        for (std::size_t i = 0; i < loaders_.size(); ++i) {
            Discovery d = loaders_[i]->discover();
            for (auto& s : d.skipped) out.skipped.push_back(std::move(s));
            for (auto& x : d.diagnostics) out.diagnostics.push_back(std::move(x));
            for (auto& m : d.skills) {
                std::string inner = m.name;
                found.push_back({i, std::move(m), std::move(inner)});
            }
        }
        // Names that skills of two or more MCP loaders share: each is qualified with its label.
        std::map<std::string, std::set<std::size_t>, std::less<>> mcp_loaders;
        for (const auto& f : found) {
            if (from_mcp(f.manifest)) mcp_loaders[nfkc(f.manifest.name)].insert(f.loader);
        }
        for (auto& f : found) {
            if (!from_mcp(f.manifest) || mcp_loaders[nfkc(f.manifest.name)].size() < 2) continue;
            const std::string label = f.manifest.library.substr(MCP_ORIGIN.size());
            std::string name = label + ":" + f.manifest.name;
            out.diagnostics.push_back(
                {std::string(codes::mcp_name_qualified), Severity::warning, f.manifest.skill_file, 0,
                 fmt::format(
                     "MCP server '{}': the name '{}' is also served by another MCP server; {} is listed as '{}'", label,
                     f.manifest.name, f.manifest.skill_file, name)});
            f.manifest.name = std::move(name);
        }
        // Precedence, then the selection.
        std::map<std::string, std::string, std::less<>> winners;  // name key -> skill_file
        std::map<std::string, std::pair<std::size_t, std::string>, std::less<>> owners;
        std::set<std::string, std::less<>> excluded;
        std::set<std::string, std::less<>> exclude_keys;
        for (const auto& e : exclude_) exclude_keys.insert(nfkc(e));
        std::set<std::string, std::less<>> include_keys;
        if (include_) {
            for (const auto& n : *include_) include_keys.insert(nfkc(n));
        }
        for (auto& f : found) {
            const std::string key = nfkc(f.manifest.name);
            if (const auto w = winners.find(key); w != winners.end()) {
                std::string message = fmt::format("skill name '{}' of {} is already used by {}", f.manifest.name,
                                                  f.manifest.skill_file, w->second);
                if (duplicates_ == DuplicateNames::error) throw DiscoveryError(message);
                out.diagnostics.push_back(
                    {std::string(codes::duplicate_name), Severity::warning, f.manifest.skill_file, 0, message});
                out.skipped.push_back({f.manifest.skill_file, SkipReason::duplicate_name, std::move(message)});
                continue;
            }
            winners.emplace(key, f.manifest.skill_file);
            if (exclude_keys.count(key) != 0) {
                excluded.insert(key);
                continue;
            }
            if (include_ && include_keys.count(key) == 0) continue;
            owners.emplace(f.manifest.name, std::make_pair(f.loader, f.inner));
            out.skills.push_back(std::move(f.manifest));
        }
        if (include_) {
            std::string unknown;
            for (const auto& n : *include_) {
                if (winners.count(nfkc(n)) == 0) unknown += (unknown.empty() ? "'" : ", '") + n + "'";
            }
            if (!unknown.empty()) throw DiscoveryError(fmt::format("include names no discovered skill: {}", unknown));
        }
        std::set<std::string, std::less<>> reported;
        for (const auto& n : exclude_) {
            const std::string key = nfkc(n);
            if (excluded.count(key) != 0 || !reported.insert(key).second) continue;
            out.diagnostics.push_back({std::string(codes::exclude_unknown), Severity::warning, "", 0,
                                       fmt::format("exclude names no discovered skill: '{}'", model_text(n))});
        }
        std::unique_lock lock(mutex_);
        owners_ = std::move(owners);
        return out;
    }

    LoadedSkill load(std::string_view name) override {
        const auto [loader, inner] = owner(name);
        if (!loader) throw NotFoundError(fmt::format("no skill named '{}'", name));
        LoadedSkill s = loader->load(inner);
        s.manifest.name = resolved(name);
        return s;
    }

    bool in_run_workspace(std::string_view name) const override {
        const auto [loader, inner] = owner(name);
        return loader ? loader->in_run_workspace(inner) : true;
    }

    SkillReaderPtr reader_for(std::string_view name) const override {
        const auto [loader, inner] = owner(name);
        return loader ? loader->reader_for(inner) : nullptr;
    }

private:
    std::pair<SkillLoader*, std::string> owner(std::string_view name) const {
        std::shared_lock lock(mutex_);
        auto it = owners_.find(name);
        if (it == owners_.end()) {
            for (auto i = owners_.begin(); i != owners_.end(); ++i) {
                if (names_equal(i->first, name)) it = i;
            }
        }
        if (it == owners_.end()) return {nullptr, {}};
        return {loaders_[it->second.first].get(), it->second.second};
    }

    std::string resolved(std::string_view name) const {
        std::shared_lock lock(mutex_);
        if (owners_.count(name) != 0) return std::string(name);
        for (const auto& [n, o] : owners_) {
            if (names_equal(n, name)) return n;
        }
        return std::string(name);
    }

    std::vector<SkillLoaderPtr> loaders_;
    DuplicateNames duplicates_;
    std::optional<std::vector<std::string>> include_;
    std::vector<std::string> exclude_;
    mutable std::shared_mutex mutex_;
    std::map<std::string, std::pair<std::size_t, std::string>, std::less<>> owners_;
};

}  // namespace

SkillLoaderPtr make_mcp_source_loader(const SourceSpec& spec, std::string_view label, const SourceArgs& args) {
    const Extras& e = extras(spec.kind == SourceSpec::Kind::mcp_url ? "--mcp-url" : "--mcp-command");
    if (e.mcp_loader == nullptr) throw ConfigurationError("this agentskills was built without the MCP client");
    return e.mcp_loader(spec, label, args);
}

SkillLoaderPtr combine_source_loaders(std::vector<SkillLoaderPtr> loaders, const SourceArgs& args) {
    return std::make_shared<SourceStack>(std::move(loaders), args);
}

#else

SkillLoaderPtr make_mcp_source_loader(const SourceSpec& spec, std::string_view, const SourceArgs&) {
    throw ConfigurationError(fmt::format("{} '{}': this agentskills was built without the MCP client",
                                         spec.kind == SourceSpec::Kind::mcp_url ? "--mcp-url" : "--mcp-command",
                                         spec.value));
}

SkillLoaderPtr combine_source_loaders(std::vector<SkillLoaderPtr> loaders, const SourceArgs&) {
    if (loaders.size() == 1) return std::move(loaders.front());
    throw ConfigurationError("this agentskills was built without the MCP client");
}

#endif

}  // namespace agentskills::cli
