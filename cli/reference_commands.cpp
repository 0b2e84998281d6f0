// agentskills CLI — `--profile reference`: the read-properties, to-prompt and validate commands
// print what the Python reference CLI skills-ref 0.1 prints, from agentskills::reference
// (agentskills/compat/reference.hpp).
#include "reference_commands.hpp"

#include <cstdio>
#include <filesystem>
#include <system_error>

#include <fmt/core.h>

#include <agentskills/compat/reference.hpp>

namespace agentskills::cli::reference {
namespace {
namespace fs = std::filesystem;
namespace ref = agentskills::reference;

// An exception the reference does not catch: Python prints a traceback and exits 1.
int crashed(const std::string& what) {
    fmt::print(stderr,
               "Traceback (most recent call last):\n  (skills-ref raises this; agentskills only reports it)\n{}\n",
               what);
    return 1;
}

bool all_exist(const std::string& command, const std::string& argument, const std::vector<std::string>& paths) {
    for (const auto& p : paths) {
        std::error_code ec;
        if (!fs::exists(p, ec)) {
            fmt::print(stderr, "{}", ref::missing_path_usage(command, argument, p));
            return false;
        }
    }
    return true;
}

}  // namespace

int read_properties_command(const std::string& path) {
    if (!all_exist("read-properties", "SKILL_PATH", {path})) return 2;
    const std::string dir = ref::is_skill_md_file(path) ? ref::python_path_parent(path) : path;
    const ref::Properties props = ref::read_properties(dir);
    if (!props.crash.empty()) return crashed(props.crash);
    if (!props.ok()) {
        fmt::print(stderr, "Error: {}\n", props.error);
        return 1;
    }
    fmt::print("{}\n", props.json);
    return 0;
}

int to_prompt_command(const std::vector<std::string>& paths) {
    if (!all_exist("to-prompt", "SKILL_PATHS...", paths)) return 2;
    std::string out = "<available_skills>";
    for (const auto& path : paths) {
        const std::string dir = ref::is_skill_md_file(path) ? ref::python_path_parent(path) : path;
        std::error_code ec;
        fs::path resolved = fs::canonical(dir, ec);
        if (ec) resolved = fs::absolute(dir, ec).lexically_normal();
        const ref::Properties props = ref::read_properties(resolved.string());
        if (!props.crash.empty()) return crashed(props.crash);
        if (!props.ok()) {
            fmt::print(stderr, "Error: {}\n", props.error);
            return 1;
        }
        const auto file = ref::find_skill_md(resolved.string());
        out += "\n<skill>\n<name>\n" + ref::html_escape(props.name) + "\n</name>\n<description>\n" +
               ref::html_escape(props.description) + "\n</description>\n<location>\n" + file.value_or("None") +
               "\n</location>\n</skill>";
    }
    out += "\n</available_skills>\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

int validate_command(const std::vector<std::string>& paths) {
    if (!all_exist("validate", "SKILL_PATH", paths)) return 2;
    int status = 0;
    for (const auto& path : paths) {
        const std::string dir = ref::is_skill_md_file(path) ? ref::python_path_parent(path) : ref::python_path(path);
        const ref::Validation v = ref::validate(dir);
        if (!v.crash.empty()) {
            status = crashed(v.crash);
            continue;
        }
        if (v.errors.empty()) {
            fmt::print("Valid skill: {}\n", dir);
            continue;
        }
        std::fflush(stdout);
        std::string text = fmt::format("Validation failed for {}:\n", dir);
        for (const auto& e : v.errors) text += "  - " + e + "\n";
        std::fwrite(text.data(), 1, text.size(), stderr);
        status = 1;
    }
    return status;
}

}  // namespace agentskills::cli::reference
