// agentskills validate — check skills and report every diagnostic.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <agentskills/base/diagnostics.hpp>
#include <agentskills/base/skill.hpp>
#include <agentskills/base/text.hpp>

#include "command.hpp"
#include "conventions.hpp"
#include "json_output.hpp"
#include "messages.hpp"
#include "reference_commands.hpp"
#include "skill_file.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {
namespace fs = std::filesystem;

struct ValidateArgs {
    std::vector<std::string> paths;
    SourceArgs sources;  // --root, --mcp-*, and the loader flags
    bool json = false;
    std::string profile = "standard";
};

// Children of a library that hold a skill file, in name order (the reference profile, which
// reads plain directories its own way).
std::vector<std::string> library_children(const std::string& root, bool allow_lowercase) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        if (!entry.is_directory(ec)) continue;
        if (find_skill_file(entry.path().string(), allow_lowercase)) out.push_back(entry.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

/// The verdicts, as text lines on standard output or as the entries of the JSON document.
class Report {
public:
    explicit Report(bool json) : json_(json) {}

    void add(const std::string& path, const std::string& skill_file, const std::optional<std::string>& name,
             std::optional<SkipReason> reason, const Diagnostics& diagnostics) {
        const bool valid = !reason.has_value();
        all_valid_ = all_valid_ && valid;
        if (json_) {
            results_.push_back(
                {{"path", path},
                 {"skill_file", skill_file},
                 {"valid", valid},
                 {"name", name ? nlohmann::json(*name) : nlohmann::json(nullptr)},
                 {"skip_reason", reason ? nlohmann::json(std::string(to_string(*reason))) : nlohmann::json(nullptr)},
                 {"diagnostics", diagnostics}});
            return;
        }
        for (const auto& d : diagnostics) fmt::print("{}\n", format_diagnostic(d));
        if (valid) fmt::print("{}: ok\n", terminal_text(path));
    }
    void fail() { all_valid_ = false; }
    [[nodiscard]] bool all_valid() const { return all_valid_; }
    [[nodiscard]] bool json() const { return json_; }
    nlohmann::json take() { return std::move(results_); }

private:
    bool json_;
    bool all_valid_ = true;
    nlohmann::json results_ = nlohmann::json::array();
};

// Every skill of the --root and --mcp-* sources, discovered as `list` discovers them (directories,
// archives, git: roots, MCP servers): a skill kept is valid, a skill left out is invalid; each
// with the diagnostics of its file.
void check_sources(const SourceArgs& sources, Report& report) {
    const Discovery d = make_source_loader(sources, {.lazy_bodies = true, .frontmatter_json = false})->discover();
    std::multimap<std::string, const Diagnostic*> by_path;
    for (const auto& x : d.diagnostics) by_path.emplace(x.path, &x);
    const auto take = [&by_path](const std::string& path) {
        Diagnostics mine;
        const auto [first, last] = by_path.equal_range(path);
        for (auto it = first; it != last; ++it) mine.push_back(*it->second);
        by_path.erase(first, last);
        return mine;
    };
    for (const auto& m : d.skills) report.add(m.root, m.skill_file, m.name, std::nullopt, take(m.skill_file));
    for (const auto& sk : d.skipped) report.add(sk.path, sk.path, std::nullopt, sk.reason, take(sk.path));
    if (report.json()) return;
    for (const auto& [path, x] : by_path) {  // about a root, not a skill
        if (x->severity != Severity::info) fmt::print("{}\n", format_diagnostic(*x));
    }
}

int run(const ValidateArgs& args) {
    const bool reference = args.profile == "reference";
    const SourceArgs& sources = args.sources;
    if (reference) {
        if (sources.has_mcp_sources()) throw UsageError("--profile reference does not read MCP servers");
        std::vector<std::string> targets = args.paths;
        for (const auto& root : sources.roots) {
            std::error_code ec;
            if (!fs::is_directory(root, ec)) throw Error(fmt::format("not a directory: {}", root));
            auto children = library_children(root, true);
            targets.insert(targets.end(), children.begin(), children.end());
        }
        // The reference's own messages; --json keeps this library's diagnostics for its verdicts.
        if (!args.json) return reference::validate_command(targets);
    }
    ParseOptions options = sources.parse_options();
    options.profile = reference ? ValidationProfile::reference : ValidationProfile::standard;
    Report report(args.json);
    for (const auto& path : args.paths) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            print_error(fmt::format("no such file or directory: {}", path));
            report.fail();
            continue;
        }
        CheckedSkill checked = check_skill(path, options);
        const SkillManifest* m = checked.result.manifest();
        report.add(checked.argument, checked.skill_file, m ? std::optional<std::string>(m->name) : std::nullopt,
                   checked.result.skip_reason(), checked.result.diagnostics);
    }
    if (reference) {
        for (const auto& root : sources.roots) {
            for (const auto& child : library_children(root, true)) {
                CheckedSkill checked = check_skill(child, options);
                const SkillManifest* m = checked.result.manifest();
                report.add(checked.argument, checked.skill_file, m ? std::optional<std::string>(m->name) : std::nullopt,
                           checked.result.skip_reason(), checked.result.diagnostics);
            }
        }
    } else if (!sources.roots.empty() || sources.has_mcp_sources()) {
        check_sources(sources, report);
    }
    if (args.json) {
        nlohmann::json doc{{"schema", validate_json_schema},
                           {"profile", args.profile},
                           {"valid", report.all_valid()},
                           {"skills", report.take()}};
        print_json(doc);
    }
    return report.all_valid() ? exit_ok : exit_failure;
}

}  // namespace
void setup_validate(CLI::App& app, int* status) {
    auto args = std::make_shared<ValidateArgs>();
    auto* cmd =
        app.add_subcommand("validate", "Check skills and print every diagnostic (exit 0 valid, 1 invalid, 2 usage)");
    cmd->add_option("path", args->paths, "A skill directory, its SKILL.md, or a .skill / .zip archive");
    add_source_options(*cmd, args->sources,
                       {.root_help = "A library: check every skill it holds, as list finds them (directories, "
                                     ".skill / .zip archives, git: roots)"});
    cmd->add_flag("--json", args->json, "Print one JSON document (schema in docs/cli.md)");
    cmd->add_option("--profile", args->profile,
                    "standard (this library's rules) or reference (skills-ref 0.1 verdicts)")
        ->check(CLI::IsMember({"standard", "reference"}))
        ->capture_default_str();
    cmd->callback([args, status, cmd] {
        if (args->paths.empty() && args->sources.roots.empty() && !args->sources.has_mcp_sources()) {
            *status = usage_error(*cmd, "give at least one PATH, --root DIR, --mcp-command or --mcp-url");
            return;
        }
        *status = run(*args);
    });
}

}  // namespace agentskills::cli
