// Confined reads of skill files, and the text of the read_skill_resource tool.
#include <filesystem>
#include <system_error>
#include <utility>

#include <fmt/core.h>

#include "agentskills/activation.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/names.hpp"
#include "agentskills/text.hpp"
#include "confined_read.hpp"
#include "model_texts.hpp"

namespace agentskills {

namespace fs = std::filesystem;

namespace detail {

/// Splits a relative path into components, refusing anything that could leave the directory.
std::vector<std::string> checked_components(std::string_view path) {
    auto refuse = [&](std::string_view why) { throw PathError(fmt::format("refused path '{}': {}", path, why)); };
    if (path.empty()) refuse("empty");
    if (path.find('\0') != std::string_view::npos) refuse("contains NUL");
    if (path.find('\\') != std::string_view::npos) refuse("contains a backslash");
    if (path.front() == '/') refuse("absolute paths are not allowed");
    std::vector<std::string> parts;
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(start, end - start);
        if (part == "..") refuse("'..' is not allowed");
        if (!part.empty() && part.front() == '~') refuse("a component starting with '~' is not allowed");
        if (part.size() >= 2 && part[1] == ':' &&
            ((part[0] >= 'A' && part[0] <= 'Z') || (part[0] >= 'a' && part[0] <= 'z'))) {
            refuse("a drive is not allowed");
        }
        if (!part.empty() && part != ".") parts.emplace_back(part);
        start = end + 1;
    }
    if (parts.empty()) refuse("names no file");
    return parts;
}

std::string join_parts(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) {
        if (!out.empty()) out += '/';
        out += p;
    }
    return out;
}

namespace {

std::string join(std::string_view dir, std::string_view rel) {
    if (dir.empty() || dir == ".") return std::string(rel);
    std::string out(dir);
    if (out.back() != '/') out += '/';
    out.append(rel);
    return out;
}

bool is_within(const fs::path& inside, const fs::path& root) {
    auto r = root.begin();
    auto i = inside.begin();
    for (; r != root.end(); ++r, ++i) {
        if (r->empty()) continue;  // trailing separator
        if (i == inside.end() || *i != *r) return false;
    }
    return true;
}

}  // namespace

std::optional<ReadResult> read_confined(const SkillReader& reader, const std::string& root, const std::string& relative,
                                        std::size_t max_bytes) {
    if (reader.is_local()) {
        std::error_code ec;
        const fs::path root_real = fs::canonical(fs::path(root.empty() ? "." : root), ec);
        if (ec) return std::nullopt;  // the skill directory itself is gone
        // Walk the components so that a symlink on the way, dangling or not, is judged by
        // where it leads.
        fs::path current = root_real;
        for (const auto& part : fs::path(relative)) {
            current /= part;
            const fs::file_status st = fs::symlink_status(current, ec);
            if (ec || st.type() == fs::file_type::not_found) return std::nullopt;
            if (st.type() == fs::file_type::symlink) {
                fs::path link = fs::read_symlink(current, ec);
                if (!ec && link.is_relative()) link = current.parent_path() / link;
                const fs::path resolved = ec ? fs::path() : fs::weakly_canonical(link, ec);
                if (ec || !is_within(resolved, root_real)) {
                    throw PathError(
                        fmt::format("refused path '{}': a symlink leads outside the skill directory", relative));
                }
                current = resolved;
            }
        }
        if (!fs::exists(current, ec) || !fs::is_regular_file(current, ec)) return std::nullopt;
        try {
            return reader.read_file(current.string(), max_bytes);
        } catch (const NotFoundError&) {
            return std::nullopt;
        }
    }
    // Another reader: its namespace has no symlinks we can follow, so refuse any on the way.
    std::string current = root;
    for (const auto& part : checked_components(relative)) {
        current = join(current, part);
        FileStat st;
        try {
            st = reader.stat(current);
        } catch (const NotFoundError&) {
            return std::nullopt;
        }
        if (st.is_symlink) {
            throw PathError(fmt::format("refused path '{}': it goes through a symlink", relative));
        }
    }
    try {
        return reader.read_file(current, max_bytes);
    } catch (const NotFoundError&) {
        return std::nullopt;
    }
}

}  // namespace detail

namespace {

std::string_view guess_type(std::string_view path) noexcept {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos)
        return "application/octet-stream";
    std::string ext;
    for (char c : path.substr(dot + 1)) ext += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (ext == "png") return "image/png";
    if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
    if (ext == "gif") return "image/gif";
    if (ext == "webp") return "image/webp";
    if (ext == "pdf") return "application/pdf";
    if (ext == "zip") return "application/zip";
    if (ext == "gz" || ext == "tgz") return "application/gzip";
    if (ext == "wasm") return "application/wasm";
    return "application/octet-stream";
}

}  // namespace

std::string read_skill_resource_text(const LoadedSkill& skill, const SkillReader& reader, std::string_view path,
                                     std::size_t max_bytes) {
    const std::string relative = detail::join_parts(detail::checked_components(path));
    bool listed = false;
    for (const auto& r : skill.resources) {
        if (r.path == relative) {
            listed = true;
            break;
        }
    }
    const std::string shown = model_text(relative);
    const std::string skill_name = model_text(skill.manifest.name);
    if (!listed) {
        throw NotFoundError(fmt::format("'{}' is not one of the files listed for the skill '{}'", shown, skill_name));
    }
    const std::size_t cap = max_bytes == 0 ? DEFAULT_MAX_RESOURCE_BYTES : max_bytes;
    std::optional<ReadResult> read = detail::read_confined(reader, skill.manifest.root, relative, cap);
    if (!read) throw NotFoundError(fmt::format("the file '{}' of the skill '{}' cannot be read", shown, skill_name));
    std::string& data = read->data;
    bool text = data.find('\0') == std::string::npos;
    if (text && !is_valid_utf8(data) && read->truncated) {
        // The cap may have cut the last character: drop its first bytes.
        for (std::size_t drop = 1; drop <= 3 && drop <= data.size(); ++drop) {
            if (is_valid_utf8(std::string_view(data).substr(0, data.size() - drop))) {
                data.resize(data.size() - drop);
                break;
            }
        }
    }
    text = text && is_valid_utf8(data);
    if (!text) {
        std::string size;
        try {
            size = fmt::format("{} bytes", reader.stat(join_path(skill.manifest.root, relative)).size);
        } catch (const std::exception&) {
            size = read->truncated ? fmt::format("more than {} bytes", cap) : fmt::format("{} bytes", data.size());
        }
        return detail::texts::file_not_text(relative, guess_type(relative), size);
    }
    std::string out = model_text(data);
    if (read->truncated) {
        out += "\n\n";
        out += detail::texts::file_cut_note(relative, cap, data.size());
    }
    return out;
}

}  // namespace agentskills
