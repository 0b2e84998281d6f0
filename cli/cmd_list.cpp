// `agentskills list`: discover the skills of one or more library roots and print them.
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "agentskills/errors.hpp"
#include "agentskills/loader.hpp"
#include "agentskills/text.hpp"
#include "command.hpp"
#include "json_output.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct ListArgs {
    bool json = false;
    SourceArgs sources;
};

// Writes `"key": [ ... ]` one element at a time, so that a large library never exists twice
// in memory as a JSON document and as its text. The result is what
// `json{{"diagnostics",…},{"skills",…},{"skipped",…}}.dump(2)` prints (keys in sorted order).
template <class T>
void print_json_array(std::ostream& out, std::string_view key, const std::vector<T>& items, bool last) {
    out << "  \"" << key << "\": [";
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string text = dump_json(nlohmann::json(items[i]));
        out << (i == 0 ? "\n    " : ",\n    ");
        for (char ch : text) {
            out << ch;
            if (ch == '\n') out << "    ";
        }
    }
    out << (items.empty() ? "]" : "\n  ]") << (last ? "\n" : ",\n");
}

void print_discovery_json(std::ostream& out, const Discovery& d) {
    out << "{\n";
    print_json_array(out, "diagnostics", d.diagnostics, false);
    print_json_array(out, "skills", d.skills, false);
    print_json_array(out, "skipped", d.skipped, true);
    out << "}\n";
}

int run_list(const ListArgs& args) {
    Discovery discovery;
    try {
        const SkillLoaderPtr loader = make_source_loader(
            args.sources, {.standard_roots_when_none = true, .missing_directories = MissingDirectories::skip});
        discovery = loader->discover();
    } catch (const ConfigurationError& e) {
        fmt::print(stderr, "agentskills list: {}\n", terminal_text(e.what()));
        return exit_usage;
    } catch (const DiscoveryError& e) {
        fmt::print(stderr, "agentskills list: {}\n", terminal_text(e.what()));
        return exit_failure;
    }

    if (args.json) {
        // Indented by two spaces; invalid UTF-8 in a path or message is replaced, never fatal.
        print_discovery_json(std::cout, discovery);
        return exit_ok;
    }
    // One record per line, TAB between fields: every field is escaped (terminal_text), so a
    // TAB or newline in a name or path cannot forge a field or a record.
    for (const auto& m : discovery.skills) {
        fmt::print("{}\t{}\n", terminal_text(m.name), terminal_text(m.skill_file));
    }
    for (const auto& s : discovery.skipped) {
        fmt::print("skipped\t{}\t{}\t{}\n", to_string(s.reason), terminal_text(s.path), terminal_text(s.message));
    }
    for (const auto& d : discovery.diagnostics) {
        if (d.severity != Severity::info) fmt::print(stderr, "{}\n", format_diagnostic(d));
    }
    return exit_ok;
}

void setup_list(CLI::App& app, int* status) {
    auto args = std::make_shared<ListArgs>();
    CLI::App* cmd = app.add_subcommand("list", "Discover the skills of library roots and list them");
    cmd->add_flag("--json", args->json, "Print {skills, skipped, diagnostics} as JSON");
    add_source_options(*cmd, args->sources,
                       {.root_help = "A library root (repeatable, in precedence order); default: the standard roots "
                                     "(missing ones are skipped)",
                        .selection = true,
                        .policies = true,
                        .limits = true});
    cmd->callback([args, status] { *status = run_list(*args); });
}

const RegisterCommand reg{"list", setup_list};

}  // namespace
}  // namespace agentskills::cli
