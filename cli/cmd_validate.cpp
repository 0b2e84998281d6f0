// agentskills validate — check skills and report every diagnostic.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
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
#include "numbers.hpp"
#include "reference_commands.hpp"
#include "skill_file.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {
namespace fs = std::filesystem;

struct ValidateArgs {
    std::vector<std::string> paths;
    std::vector<std::string> roots;
    std::vector<std::string> mcp_commands;  // MCP servers: every skill they serve is checked
    std::vector<std::string> mcp_urls;
    bool json = false;
    std::string profile = "standard";
    std::string name_policy = "keep";
    std::size_t max_lines = SKILL_MAX_FILE_LINES;
    std::size_t max_bytes = SKILL_MAX_FILE_BYTES;
};

// Children of a library that hold a skill file, in name order.
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

int run(const ValidateArgs& args) {
    const bool reference = args.profile == "reference";
    std::vector<std::string> targets;
    for (const auto& path : args.paths) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            if (reference && !args.json) return reference::validate_command({path});  // its usage message
            fmt::print(stderr, "agentskills validate: no such file or directory: {}\n", terminal_text(path));
            return exit_usage;
        }
        targets.push_back(path);
    }
    for (const auto& root : args.roots) {
        std::error_code ec;
        if (!fs::is_directory(root, ec)) {
            fmt::print(stderr, "agentskills validate: not a directory: {}\n", terminal_text(root));
            return exit_usage;
        }
        auto children = library_children(root, reference);
        targets.insert(targets.end(), children.begin(), children.end());
    }
    if (reference && !(args.mcp_commands.empty() && args.mcp_urls.empty())) {
        fmt::print(stderr, "agentskills validate: --profile reference does not read MCP servers\n");
        return exit_usage;
    }
    // The reference's own messages; --json keeps this library's diagnostics for its verdicts.
    if (reference && !args.json) return reference::validate_command(targets);

    ParseOptions options;
    options.profile = reference ? ValidationProfile::reference : ValidationProfile::standard;
    options.name_policy = args.name_policy == "require_valid" ? NamePolicy::require_valid : NamePolicy::keep;
    options.max_lines = args.max_lines;
    options.max_bytes = args.max_bytes;

    bool all_valid = true;
    auto results = nlohmann::json::array();
    for (const auto& target : targets) {
        CheckedSkill checked = check_skill(target, options);
        const bool valid = checked.result.ok();
        all_valid = all_valid && valid;
        if (args.json) {
            nlohmann::json entry{
                {"path", checked.argument},
                {"skill_file", checked.skill_file},
                {"valid", valid},
                {"name", valid ? nlohmann::json(checked.result.manifest()->name) : nlohmann::json(nullptr)},
                {"skip_reason", checked.result.skip_reason()
                                    ? nlohmann::json(std::string(to_string(*checked.result.skip_reason())))
                                    : nlohmann::json(nullptr)},
                {"diagnostics", checked.result.diagnostics}};
            results.push_back(std::move(entry));
        } else {
            for (const auto& d : checked.result.diagnostics) fmt::print("{}\n", format_diagnostic(d));
            if (valid) fmt::print("{}: ok\n", terminal_text(checked.argument));
        }
    }
    // MCP servers: each served skill is checked as the loader checks it (the extension's checks,
    // then the parser); a refused one is invalid with its diagnostics.
    std::vector<SourceSpec> servers;
    for (const auto& c : args.mcp_commands) servers.push_back({SourceSpec::Kind::mcp_command, c});
    for (const auto& u : args.mcp_urls) servers.push_back({SourceSpec::Kind::mcp_url, u});
    SourceArgs source_args;
    source_args.max_lines = args.max_lines;
    source_args.max_bytes = args.max_bytes;
    source_args.name_policy = options.name_policy;
    for (std::size_t i = 0; i < servers.size(); ++i) {
        const Discovery d = make_mcp_source_loader(servers[i], fmt::format("mcp{}", i + 1), source_args)->discover();
        auto report = [&](const std::string& path, const std::optional<std::string>& name,
                          std::optional<SkipReason> reason) {
            Diagnostics mine;
            for (const auto& x : d.diagnostics) {
                if (x.path == path) mine.push_back(x);
            }
            const bool valid = !reason.has_value();
            all_valid = all_valid && valid;
            if (args.json) {
                results.push_back({{"path", path},
                                   {"skill_file", path},
                                   {"valid", valid},
                                   {"name", name ? nlohmann::json(*name) : nlohmann::json(nullptr)},
                                   {"skip_reason",
                                    reason ? nlohmann::json(std::string(to_string(*reason))) : nlohmann::json(nullptr)},
                                   {"diagnostics", mine}});
            } else {
                for (const auto& x : mine) fmt::print("{}\n", format_diagnostic(x));
                if (valid) fmt::print("{}: ok\n", terminal_text(path));
            }
        };
        for (const auto& m : d.skills) report(m.skill_file, m.name, std::nullopt);
        for (const auto& sk : d.skipped) report(sk.path, std::nullopt, sk.reason);
    }
    if (args.json) {
        nlohmann::json doc{{"schema", validate_json_schema},
                           {"profile", args.profile},
                           {"valid", all_valid},
                           {"skills", std::move(results)}};
        print_json(doc);
    }
    return all_valid ? exit_ok : exit_failure;
}

}  // namespace
void setup_validate(CLI::App& app, int* status) {
    auto args = std::make_shared<ValidateArgs>();
    auto* cmd =
        app.add_subcommand("validate", "Check skills and print every diagnostic (exit 0 valid, 1 invalid, 2 usage)");
    cmd->add_option("path", args->paths, "A skill directory or its SKILL.md");
    cmd->add_option("--root", args->roots, "A library: check each child directory that holds a SKILL.md");
    cmd->add_option("--mcp-command", args->mcp_commands,
                    "An MCP server to start, \"CMD ARGS\": check every skill it serves (repeatable)")
        ->allow_extra_args(false);
    cmd->add_option("--mcp-url", args->mcp_urls, "An MCP server's Streamable HTTP URL: check every skill it serves")
        ->allow_extra_args(false);
    cmd->add_flag("--json", args->json, "Print one JSON document (schema in docs/cli.md)");
    cmd->add_option("--profile", args->profile,
                    "standard (this library's rules) or reference (skills-ref 0.1 verdicts)")
        ->check(CLI::IsMember({"standard", "reference"}))
        ->capture_default_str();
    cmd->add_option("--name-policy", args->name_policy, "keep or require_valid")
        ->check(CLI::IsMember({"keep", "require_valid"}))
        ->capture_default_str();
    cmd->add_option("--max-lines", args->max_lines, "Line limit of a SKILL.md (0 = none; standard profile)")
        ->check(count_value())
        ->capture_default_str();
    cmd->add_option("--max-bytes", args->max_bytes, "Byte limit of a SKILL.md (0 = none)")
        ->check(count_value())
        ->capture_default_str();
    cmd->callback([args, status, cmd] {
        if (args->paths.empty() && args->roots.empty() && args->mcp_commands.empty() && args->mcp_urls.empty()) {
            *status = usage_error(*cmd, "give at least one PATH, --root DIR or --mcp-command/--mcp-url");
            return;
        }
        *status = run(*args);
    });
}

}  // namespace agentskills::cli
