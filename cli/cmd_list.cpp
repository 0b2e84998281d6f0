// `agentskills list`: discover the skills of one or more library roots and print them.
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "agentskills/errors.hpp"
#include "agentskills/loader.hpp"
#include "command.hpp"

namespace agentskills::cli {
namespace {

struct ListArgs {
    bool json = false;
    std::vector<std::string> roots;
    std::vector<std::string> include;
    std::vector<std::string> exclude;
    MissingDirectories missing_directories = MissingDirectories::skip;
    DuplicateNames duplicate_names = DuplicateNames::keep_first;
    NamePolicy name_policy = NamePolicy::keep;
};

nlohmann::ordered_json skill_to_json(const SkillManifest& m) {
    nlohmann::ordered_json j = {
        {"name", m.name},
        {"description", m.description},
        {"location", m.skill_file},
        {"root", m.root},
        {"library", m.library},
        {"model_invocable", m.model_invocable()},
        {"user_invocable", m.user_invocable},
    };
    if (m.license) j["license"] = *m.license;
    if (m.compatibility) j["compatibility"] = *m.compatibility;
    if (m.version) j["version"] = *m.version;
    if (!m.metadata.empty()) {
        nlohmann::ordered_json meta = nlohmann::ordered_json::object();
        for (const auto& [k, v] : m.metadata) meta[k] = v;
        j["metadata"] = std::move(meta);
    }
    if (m.tools) j["tools"] = *m.tools;
    if (!m.disallowed_tools.empty()) j["disallowed_tools"] = m.disallowed_tools;
    if (!m.ignored_behavioral_fields.empty()) j["ignored_behavioral_fields"] = m.ignored_behavioral_fields;
    return j;
}

nlohmann::ordered_json discovery_to_json(const Discovery& d) {
    nlohmann::ordered_json skills = nlohmann::ordered_json::array();
    for (const auto& m : d.skills) skills.push_back(skill_to_json(m));
    nlohmann::ordered_json skipped = nlohmann::ordered_json::array();
    for (const auto& s : d.skipped) {
        skipped.push_back({{"path", s.path}, {"reason", std::string(to_string(s.reason))}, {"message", s.message}});
    }
    nlohmann::ordered_json diagnostics = nlohmann::ordered_json::array();
    for (const auto& x : d.diagnostics) {
        diagnostics.push_back({{"code", x.code},
                               {"severity", std::string(to_string(x.severity))},
                               {"path", x.path},
                               {"line", x.line},
                               {"message", x.message}});
    }
    return {{"skills", std::move(skills)}, {"skipped", std::move(skipped)}, {"diagnostics", std::move(diagnostics)}};
}

int run_list(const ListArgs& args) {
    FilesystemLoaderOptions options;
    options.roots = args.roots;
    options.include_default_roots = args.roots.empty();
    options.name_policy = args.name_policy;
    if (!args.include.empty()) options.include = args.include;
    options.exclude = args.exclude;
    options.missing_directories = args.missing_directories;
    options.duplicate_names = args.duplicate_names;

    Discovery discovery;
    try {
        FilesystemSkillLoader loader(std::move(options));
        discovery = loader.discover();
    } catch (const ConfigurationError& e) {
        fmt::print(stderr, "agentskills list: {}\n", e.what());
        return exit_usage;
    } catch (const DiscoveryError& e) {
        fmt::print(stderr, "agentskills list: {}\n", e.what());
        return exit_failure;
    }

    if (args.json) {
        // Indented by two spaces; invalid UTF-8 in a path or message is replaced, never fatal.
        std::cout << discovery_to_json(discovery).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
        return exit_ok;
    }
    for (const auto& m : discovery.skills) fmt::print("{}\t{}\n", m.name, m.skill_file);
    for (const auto& s : discovery.skipped) fmt::print("skipped\t{}\t{}\t{}\n", to_string(s.reason), s.path, s.message);
    for (const auto& d : discovery.diagnostics) {
        if (d.severity != Severity::info) fmt::print(stderr, "{}\n", format_diagnostic(d));
    }
    return exit_ok;
}

void setup_list(CLI::App& app, int* status) {
    auto args = std::make_shared<ListArgs>();
    CLI::App* cmd = app.add_subcommand("list", "Discover the skills of library roots and list them");
    cmd->add_flag("--json", args->json, "Print {skills, skipped, diagnostics} as JSON");
    cmd->add_option("--root", args->roots, "A library root (repeatable, in precedence order); default: the standard roots");
    CLI::Option* include = cmd->add_option("--include", args->include, "Only this skill name (repeatable)");
    cmd->add_option("--exclude", args->exclude, "Leave this skill name out (repeatable)")->excludes(include);
    const std::map<std::string, MissingDirectories> missing{{"error", MissingDirectories::error},
                                                            {"skip", MissingDirectories::skip}};
    cmd->add_option("--missing-directories", args->missing_directories, "error|skip (default: skip)")
        ->transform(CLI::CheckedTransformer(missing, CLI::ignore_case));
    const std::map<std::string, DuplicateNames> duplicates{{"error", DuplicateNames::error},
                                                           {"keep_first", DuplicateNames::keep_first}};
    cmd->add_option("--duplicate-names", args->duplicate_names, "error|keep_first (default: keep_first)")
        ->transform(CLI::CheckedTransformer(duplicates, CLI::ignore_case));
    const std::map<std::string, NamePolicy> policies{{"keep", NamePolicy::keep},
                                                     {"require_valid", NamePolicy::require_valid}};
    cmd->add_option("--name-policy", args->name_policy, "keep|require_valid (default: keep)")
        ->transform(CLI::CheckedTransformer(policies, CLI::ignore_case));
    cmd->callback([args, status] { *status = run_list(*args); });
}

const RegisterCommand reg{"list", setup_list};

}  // namespace
}  // namespace agentskills::cli
