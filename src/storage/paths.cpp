// agentskills-cpp — storage: the path rules, one scanner for every path a reader takes
// (normalize_relative_path, normalize_virtual_path) and every path inside a skill (confined_path).
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/storage/reader.hpp"
#include "path_rules.hpp"

namespace agentskills {

namespace detail {

PathScan path_character_fault(std::string_view path, bool refuse_controls) noexcept {
    if (path.empty()) return {PathFault::empty};
    if (path.find('\0') != std::string_view::npos) return {PathFault::nul};
    if (path.find('\\') != std::string_view::npos) return {PathFault::backslash};
    if (refuse_controls) {
        for (std::size_t i = 0; i < path.size(); ++i) {
            const auto byte = static_cast<unsigned char>(path[i]);
            const bool c1 = byte == 0xC2 && i + 1 < path.size() && static_cast<unsigned char>(path[i + 1]) >= 0x80 &&
                            static_cast<unsigned char>(path[i + 1]) <= 0x9F;
            if (byte < 0x20 || byte == 0x7F || c1) return {PathFault::control};
        }
    }
    return {};
}

PathScan scan_path(std::string_view path, PathRules rules, std::vector<std::string_view>* parts) {
    if (const PathScan s = path_character_fault(path, rules.refuse_controls); s.fault != PathFault::none) return s;
    std::size_t count = 0;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string_view::npos) next = path.size();
        const std::string_view component = path.substr(pos, next - pos);
        pos = next + 1;
        ++count;
        if (component.empty() || component == ".") {
            if (rules.refuse_empty_components) {
                return {component.empty() ? PathFault::empty_component : PathFault::dot, component, count};
            }
            continue;
        }
        if (component == "..") {
            if (!rules.allow_parent || parts == nullptr) return {PathFault::parent, component, count};
            if (parts->empty()) return {PathFault::climbs, component, count};
            parts->pop_back();
            continue;
        }
        if (component.front() == '~') return {PathFault::tilde, component, count};
        if (component.size() >= 2 && component[1] == ':') return {PathFault::drive, component, count};
        if (parts != nullptr) parts->push_back(component);
    }
    return {PathFault::none, {}, count};
}

}  // namespace detail

namespace {

using detail::PathFault;
using detail::PathScan;

// The words of a reader's namespace (normalize_relative_path, normalize_virtual_path).
[[noreturn]] void refuse_namespace_path(const PathScan& scan, std::string_view whole) {
    switch (scan.fault) {
        case PathFault::empty:
            throw PathError("empty path");
        case PathFault::nul:
            throw PathError("path contains a NUL byte");
        case PathFault::backslash:
            throw PathError(fmt::format("path '{}' contains a backslash", whole));
        case PathFault::tilde:
            throw PathError(fmt::format("path '{}': a component may not start with '~'", whole));
        case PathFault::drive:
            throw PathError(fmt::format("path '{}': drive-like component '{}' is refused", whole, scan.component));
        case PathFault::climbs:
        case PathFault::parent:
            throw PathError(fmt::format("path '{}' climbs above its root", whole));
        case PathFault::control:
        case PathFault::empty_component:
        case PathFault::dot:
        case PathFault::none:
            break;
    }
    throw PathError(fmt::format("path '{}' is refused", whole));
}

[[noreturn]] void refuse_absolute(std::string_view whole) {
    throw PathError(fmt::format("path '{}' is absolute; a relative path is required", whole));
}

std::string join_parts(const std::vector<std::string_view>& parts, bool rooted) {
    if (parts.empty()) return rooted ? "/" : ".";
    std::size_t size = 0;
    for (const auto part : parts) size += part.size() + 1;
    std::string out;
    out.reserve(size);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0 || rooted) out.push_back('/');
        out.append(parts[i].data(), parts[i].size());
    }
    return out;
}

constexpr detail::PathRules namespace_rules{.allow_parent = true};

}  // namespace

std::string normalize_relative_path(std::string_view path) {
    std::vector<std::string_view> parts;
    if (detail::path_character_fault(path).fault == PathFault::none && path.front() == '/') refuse_absolute(path);
    if (const PathScan s = detail::scan_path(path, namespace_rules, &parts); s.fault != PathFault::none) {
        refuse_namespace_path(s, path);
    }
    return join_parts(parts, false);
}

std::string normalize_virtual_path(std::string_view path, std::string_view cwd) {
    std::vector<std::string_view> parts;
    if (const PathScan s = detail::path_character_fault(path); s.fault != PathFault::none) {
        refuse_namespace_path(s, path);
    }
    if (path.front() != '/') {
        if (const PathScan s = detail::path_character_fault(cwd); s.fault != PathFault::none) {
            refuse_namespace_path(s, cwd);
        }
        if (cwd.front() != '/') throw PathError(fmt::format("working directory '{}' is not a rooted path", cwd));
        if (const PathScan s = detail::scan_path(cwd, namespace_rules, &parts); s.fault != PathFault::none) {
            refuse_namespace_path(s, cwd);
        }
    }
    if (const PathScan s = detail::scan_path(path, namespace_rules, &parts); s.fault != PathFault::none) {
        refuse_namespace_path(s, path);
    }
    return join_parts(parts, true);
}

namespace {

// Why confined_path refuses a path (nullptr: it does not).
const char* confined_fault(std::string_view path, std::vector<std::string_view>& parts) {
    if (detail::path_character_fault(path).fault == PathFault::none && path.front() == '/') {
        return "absolute paths are not allowed";
    }
    switch (detail::scan_path(path, {}, &parts).fault) {
        case PathFault::none:
            return parts.empty() ? "names no file" : nullptr;
        case PathFault::empty:
            return "empty";
        case PathFault::nul:
            return "contains NUL";
        case PathFault::backslash:
            return "contains a backslash";
        case PathFault::tilde:
            return "a component starting with '~' is not allowed";
        case PathFault::drive:
            return "a drive is not allowed";
        case PathFault::parent:
        case PathFault::climbs:
            return "'..' is not allowed";
        case PathFault::control:
        case PathFault::empty_component:
        case PathFault::dot:
            break;
    }
    return "names no file";
}

}  // namespace

std::string confined_path(std::string_view path) {
    std::vector<std::string_view> parts;
    if (const char* why = confined_fault(path, parts)) {
        throw PathError(fmt::format("refused path '{}': {}", path, why));
    }
    return join_parts(parts, false);
}

std::string join_path(std::string_view dir, std::string_view name) {
    if (name.empty()) return std::string(dir);
    if (dir.empty() || dir == ".") return std::string(name);
    // One allocation of the exact size (a copy of `dir` grown twice would double its capacity).
    const bool slash = dir.back() != '/';
    std::string out;
    out.reserve(dir.size() + (slash ? 1 : 0) + name.size());
    out.append(dir);
    if (slash) out += '/';
    out.append(name);
    return out;
}

std::string_view path_basename(std::string_view path) noexcept {
    while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
    if (path == "/") return {};
    std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view media_type_for(std::string_view file_name, bool is_text) noexcept {
    file_name = path_basename(file_name);
    const std::size_t dot = file_name.rfind('.');
    const std::string_view ext = dot == std::string_view::npos ? std::string_view() : file_name.substr(dot + 1);
    const auto is = [ext](std::string_view known) {
        if (ext.size() != known.size()) return false;
        for (std::size_t i = 0; i < ext.size(); ++i) {
            const char c = ext[i] >= 'A' && ext[i] <= 'Z' ? static_cast<char>(ext[i] - 'A' + 'a') : ext[i];
            if (c != known[i]) return false;
        }
        return true;
    };
    struct Entry {
        std::string_view ext;
        std::string_view type;
    };
    static constexpr Entry known[] = {
        {"md", "text/markdown"},      {"markdown", "text/markdown"}, {"txt", "text/plain"},
        {"py", "text/x-python"},      {"sh", "text/x-shellscript"},  {"js", "text/javascript"},
        {"mjs", "text/javascript"},   {"ts", "text/x-typescript"},   {"json", "application/json"},
        {"yaml", "application/yaml"}, {"yml", "application/yaml"},   {"html", "text/html"},
        {"css", "text/css"},          {"csv", "text/csv"},           {"xml", "application/xml"},
        {"png", "image/png"},         {"jpg", "image/jpeg"},         {"jpeg", "image/jpeg"},
        {"gif", "image/gif"},         {"svg", "image/svg+xml"},      {"webp", "image/webp"},
        {"pdf", "application/pdf"},   {"zip", "application/zip"},    {"gz", "application/gzip"},
        {"tgz", "application/gzip"},  {"wasm", "application/wasm"},  {"toml", "application/toml"},
    };
    if (!ext.empty()) {
        for (const auto& e : known) {
            if (is(e.ext)) return e.type;
        }
    }
    return is_text ? "text/plain" : "application/octet-stream";
}

}  // namespace agentskills
