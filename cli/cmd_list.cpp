// `agentskills list`: discover the skills of one or more library roots and print them.
#include <algorithm>
#include <atomic>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "agentskills/base/errors.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/catalog/loader.hpp"
#include "command.hpp"
#include "extras.hpp"
#include "json_output.hpp"
#include "messages.hpp"
#include "source_options.hpp"

namespace agentskills::cli {
namespace {

struct ListArgs {
    bool json = false;
    SourceArgs sources;
};

// Writes `"key": [ ... ]` one element at a time, so that a large library never exists twice
// in memory as a JSON document and as its text. The result is what
// `json{{"diagnostics",…},{"schema",2},{"skills",…},{"skipped",…}}.dump(2)` prints (keys in
// sorted order).
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

// The skills array. With `fs` (a file-system loader whose discovery built no frontmatter JSON),
// each skill's frontmatter is read again just before it is printed, a batch at a time on a few
// threads, so that only a batch of trees exists at once; a skill whose file changed since
// discovery is printed with an empty frontmatter and named on stderr (`changed` counts them).
void print_skills_json(std::ostream& out, std::vector<SkillManifest>& skills, FilesystemSkillLoader* fs,
                       std::size_t& changed) {
    constexpr std::size_t batch = 256;
    const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
    std::vector<std::string> problems(fs != nullptr ? std::min(batch, skills.size()) : 0);
    out << "  \"skills\": [";
    for (std::size_t begin = 0; begin < skills.size(); begin += batch) {
        const std::size_t end = std::min(skills.size(), begin + batch);
        if (fs != nullptr) {
            std::atomic<std::size_t> next{begin};
            const auto work = [&] {
                for (std::size_t i = next++; i < end; i = next++) {
                    try {
                        skills[i].frontmatter = fs->frontmatter(skills[i].name);
                    } catch (const std::exception& e) {
                        problems[i - begin] = e.what();
                    }
                }
            };
            std::vector<std::thread> helpers;
            for (std::size_t t = 1; t < threads && t < end - begin; ++t) helpers.emplace_back(work);
            work();
            for (auto& h : helpers) h.join();
        }
        for (std::size_t i = begin; i < end; ++i) {
            SkillManifest& m = skills[i];
            if (fs != nullptr && !problems[i - begin].empty()) {
                ++changed;
                print_error(fmt::format("{}: its frontmatter is left out: {}", m.name, problems[i - begin]));
                problems[i - begin].clear();
            }
            const std::string text = dump_json(nlohmann::json(m));
            if (fs != nullptr) m.frontmatter = SharedJson();
            out << (i == 0 ? "\n    " : ",\n    ");
            for (char ch : text) {
                out << ch;
                if (ch == '\n') out << "    ";
            }
        }
    }
    out << (skills.empty() ? "]" : "\n  ]") << ",\n";
}

int run_list(const ListArgs& args) {
    // Nothing prints a frontmatter but --json, which reads each one again as it prints it
    // (a file-system loader; an MCP source's come with its skills).
    restart_for_large_library(args.sources.roots);
    const bool frontmatter_json = args.json && args.sources.has_mcp_sources();
    const SkillLoaderPtr loader =
        make_source_loader(args.sources, {.standard_roots_when_none = true,
                                          .lazy_bodies = true,
                                          .frontmatter_json = frontmatter_json,
                                          .frontmatter_typing = FrontmatterTyping::core_schema});
    Discovery discovery = loader->discover();

    if (args.json) {
        auto* fs = dynamic_cast<FilesystemSkillLoader*>(loader.get());
        if (fs != nullptr && fs->options().frontmatter_json) fs = nullptr;  // the trees are there
        std::size_t changed = 0;
        // Indented by two spaces; invalid UTF-8 in a path or message is replaced, never fatal.
        std::cout << "{\n";
        print_json_array(std::cout, "diagnostics", discovery.diagnostics, false);
        std::cout << "  \"schema\": " << list_json_schema << ",\n";
        print_skills_json(std::cout, discovery.skills, fs, changed);
        print_json_array(std::cout, "skipped", discovery.skipped, true);
        std::cout << "}\n";
        return changed == 0 ? exit_ok : exit_failure;
    }
    // One record per line, TAB between fields: every field is escaped (terminal_text), so a
    // TAB or newline in a name or path cannot forge a field or a record.
    for (const auto& m : discovery.skills) {
        fmt::print("{}\t{}\n", terminal_text(m.name), terminal_text(m.skill_file));
    }
    // Standard output holds skills only; what was left out is said by its diagnostics.
    MessageBatch lines;  // one write for them all
    for (const auto& d : discovery.diagnostics) {
        if (d.severity != Severity::info) lines.diagnostic(d);
    }
    return exit_ok;
}

}  // namespace
void setup_list(CLI::App& app, int* status) {
    auto args = std::make_shared<ListArgs>();
    CLI::App* cmd = app.add_subcommand("list", "Discover the skills of library roots and list them");
    cmd->add_flag("--json", args->json,
                  "Print {schema, skills, skipped, diagnostics} as JSON (docs/schemas/list.schema.json)");
    add_source_options(*cmd, args->sources,
                       {.root_help = "A library root (repeatable, in precedence order); default: the standard roots "
                                     "(missing ones are skipped)"});
    cmd->callback([args, status] { *status = run_list(*args); });
}

}  // namespace agentskills::cli
