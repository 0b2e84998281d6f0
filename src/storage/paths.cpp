// agentskills-cpp — storage: the path rules, one scanner for every path a reader takes
// (normalize_relative_path, normalize_virtual_path) and every path inside a skill (confined_path).
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "agentskills/storage/reader.hpp"

namespace agentskills {

namespace {

// What is wrong with a path, found by scan_path.
enum class Fault { none, empty, nul, backslash, absolute, tilde, drive, parent, climbs, no_file };

struct Scan {
    Fault fault = Fault::none;
    std::string_view component;  // the component at fault (tilde, drive)
};

// The one scanner. Applies the components of `path` to `parts`: empty components and `.` are
// dropped; `..` pops the last part when `allow_parent` (above the start it is `climbs`) and is a
// fault otherwise; a component starting with '~' or drive-like (`x:`) is refused. The characters
// NUL and backslash are refused anywhere.
Scan character_fault(std::string_view path) {
    if (path.empty()) return {Fault::empty, {}};
    if (path.find('\0') != std::string_view::npos) return {Fault::nul, {}};
    if (path.find('\\') != std::string_view::npos) return {Fault::backslash, {}};
    return {};
}

Scan scan_path(std::string_view path, bool allow_parent, std::vector<std::string_view>& parts) {
    if (const Scan s = character_fault(path); s.fault != Fault::none) return s;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string_view::npos) next = path.size();
        const std::string_view component = path.substr(pos, next - pos);
        pos = next + 1;
        if (component.empty() || component == ".") continue;
        if (component == "..") {
            if (!allow_parent) return {Fault::parent, component};
            if (parts.empty()) return {Fault::climbs, component};
            parts.pop_back();
            continue;
        }
        if (component.front() == '~') return {Fault::tilde, component};
        if (component.size() >= 2 && component[1] == ':') return {Fault::drive, component};
        parts.push_back(component);
    }
    return {};
}

// The words of a reader's namespace (normalize_relative_path, normalize_virtual_path).
[[noreturn]] void refuse_namespace_path(const Scan& scan, std::string_view whole) {
    switch (scan.fault) {
        case Fault::empty:
            throw PathError("empty path");
        case Fault::nul:
            throw PathError("path contains a NUL byte");
        case Fault::backslash:
            throw PathError(fmt::format("path '{}' contains a backslash", whole));
        case Fault::absolute:
            throw PathError(fmt::format("path '{}' is absolute; a relative path is required", whole));
        case Fault::tilde:
            throw PathError(fmt::format("path '{}': a component may not start with '~'", whole));
        case Fault::drive:
            throw PathError(fmt::format("path '{}': drive-like component '{}' is refused", whole, scan.component));
        case Fault::climbs:
        case Fault::parent:
            throw PathError(fmt::format("path '{}' climbs above its root", whole));
        case Fault::no_file:
        case Fault::none:
            break;
    }
    throw PathError(fmt::format("path '{}' is refused", whole));
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

}  // namespace

std::string normalize_relative_path(std::string_view path) {
    std::vector<std::string_view> parts;
    if (character_fault(path).fault == Fault::none && path.front() == '/')
        refuse_namespace_path({Fault::absolute, {}}, path);
    if (const Scan s = scan_path(path, /*allow_parent=*/true, parts); s.fault != Fault::none) {
        refuse_namespace_path(s, path);
    }
    return join_parts(parts, false);
}

std::string normalize_virtual_path(std::string_view path, std::string_view cwd) {
    std::vector<std::string_view> parts;
    if (const Scan s = character_fault(path); s.fault != Fault::none) refuse_namespace_path(s, path);
    if (path.front() != '/') {
        if (const Scan s = character_fault(cwd); s.fault != Fault::none) refuse_namespace_path(s, cwd);
        if (cwd.front() != '/') throw PathError(fmt::format("working directory '{}' is not a rooted path", cwd));
        if (const Scan s = scan_path(cwd, true, parts); s.fault != Fault::none) refuse_namespace_path(s, cwd);
    }
    if (const Scan s = scan_path(path, true, parts); s.fault != Fault::none) refuse_namespace_path(s, path);
    return join_parts(parts, true);
}

namespace {

// Why confined_path refuses a path (nullptr: it does not).
const char* confined_fault(std::string_view path, std::vector<std::string_view>& parts) {
    if (character_fault(path).fault == Fault::none && path.front() == '/') return "absolute paths are not allowed";
    switch (scan_path(path, /*allow_parent=*/false, parts).fault) {
        case Fault::none:
            return parts.empty() ? "names no file" : nullptr;
        case Fault::empty:
            return "empty";
        case Fault::nul:
            return "contains NUL";
        case Fault::backslash:
            return "contains a backslash";
        case Fault::absolute:
            return "absolute paths are not allowed";
        case Fault::tilde:
            return "a component starting with '~' is not allowed";
        case Fault::drive:
            return "a drive is not allowed";
        case Fault::parent:
        case Fault::climbs:
            return "'..' is not allowed";
        case Fault::no_file:
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
    std::string out(dir);
    if (out.back() != '/') out += '/';
    out += name;
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
