#include "skill_file.hpp"

#include <filesystem>
#include <system_error>

#include <fmt/core.h>

#include <agentskills/base/diagnostic_codes.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/storage/reader.hpp>

#include "source_options.hpp"

namespace agentskills::cli {
namespace fs = std::filesystem;

std::optional<std::string> find_skill_file(const std::string& path, bool allow_lowercase) {
    std::error_code ec;
    const fs::path p(path);
    if (fs::is_directory(p, ec)) {
        for (const char* name : {"SKILL.md", "skill.md"}) {
            if (std::string_view(name) == "skill.md" && !allow_lowercase) break;
            // Compare the real directory entry so that a case-insensitive file system does not
            // turn skill.md into SKILL.md.
            for (const auto& entry : fs::directory_iterator(p, ec)) {
                if (entry.path().filename() == name) return (p / name).string();
            }
        }
        return std::nullopt;
    }
    if (fs::exists(p, ec)) return path;
    return std::nullopt;
}

namespace {

// A file a source of this program opens as a skill (a `.skill` / `.zip` archive): read through
// that source, as the loader reads a library child of that name. False when no source takes it.
bool check_source_child(const std::string& path, ParseOptions& options, CheckedSkill& out) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    const std::string file_name = fs::path(path).filename().string();
    static const SkillSources sources = builtin_sources();
    for (const ChildOpener& opener : sources.child_openers) {
        if (!opener.accepts(file_name)) continue;
        static const LocalSkillReader local;
        std::string dir_name = fs::path(file_name).stem().string();
        try {
            const ChildSource child = opener.open(local, path);
            const std::string inner = child.skill_dir.empty() || child.skill_dir == "." ? "" : child.skill_dir + "/";
            if (!inner.empty()) dir_name = fs::path(child.skill_dir).filename().string();
            out.skill_file = path + "!/" + inner + "SKILL.md";
            options.path = out.skill_file;
            options.directory_name = dir_name;
            ReadResult read = child.reader->read_file(inner + "SKILL.md", options.max_bytes);
            options.truncated = read.truncated;
            out.result = parse_skill_md(read.data, options);
            if (SkillManifest* m = out.result.manifest())
                m->root = path + "!" + (inner.empty() ? "" : "/" + child.skill_dir);
        } catch (const SourceRefusedError& e) {
            out.skill_file = out.skill_file.empty() ? path : out.skill_file;
            out.result.diagnostics.push_back(
                {.code = e.code(), .severity = Severity::error, .path = path, .line = 0, .message = e.what()});
            out.result.skip(SkipReason::unreadable);
        } catch (const Error& e) {
            out.result.diagnostics.push_back({.code = std::string(codes::skill_unreadable),
                                              .severity = Severity::error,
                                              .path = out.skill_file.empty() ? path : out.skill_file,
                                              .line = 0,
                                              .message = fmt::format("cannot read the file: {}", e.what())});
            out.result.skip(SkipReason::unreadable);
        }
        return true;
    }
    return false;
}

}  // namespace

CheckedSkill check_skill(const std::string& path, ParseOptions options) {
    CheckedSkill out;
    out.argument = path;
    if (options.profile == ValidationProfile::standard && check_source_child(path, options, out)) return out;
    const bool lowercase_ok = options.profile == ValidationProfile::reference;
    auto file = find_skill_file(path, lowercase_ok);
    if (!file) {
        Diagnostic d{.code = std::string(codes::skill_file_missing),
                     .severity = Severity::error,
                     .path = path,
                     .line = 0,
                     .message = fmt::format("no SKILL.md in '{}'", path)};
        out.result.diagnostics.push_back(std::move(d));
        out.result.skip(SkipReason::unreadable);
        return out;
    }
    out.skill_file = *file;
    fs::path skill_path(*file);
    std::string dir_name = fs::absolute(skill_path).lexically_normal().parent_path().filename().string();
    options.path = out.skill_file;
    options.directory_name = dir_name;
    try {
        static const LocalSkillReader reader;
        const std::size_t limit = options.max_bytes;
        ReadResult read = reader.read_file(*file, limit);
        options.truncated = read.truncated;
        out.result = parse_skill_md(read.data, options);
        if (SkillManifest* m = out.result.manifest()) m->root = skill_path.parent_path().string();
    } catch (const Error& e) {
        Diagnostic d{.code = std::string(codes::skill_unreadable),
                     .severity = Severity::error,
                     .path = *file,
                     .line = 0,
                     .message = fmt::format("cannot read the file: {}", e.what())};
        out.result.diagnostics.push_back(std::move(d));
        out.result.skip(SkipReason::unreadable);
    }
    return out;
}

}  // namespace agentskills::cli
