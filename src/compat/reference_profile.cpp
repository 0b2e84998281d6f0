// The reference profile (compat/reference.hpp): reading a SKILL.md as skills-ref 0.1 does (Path
// rules, the file's decoding and split; its frontmatter goes to reference_yaml.cpp), and its
// read_properties and validate.
#include "agentskills/compat/reference.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/core.h>
#include <utf8proc.h>

#include <agentskills/base/names.hpp>

#include "reference_detail.hpp"

namespace agentskills::reference {
using namespace detail;  // Python's str (reference_python.cpp)

namespace {
namespace fs = std::filesystem;

// --- Reading the file as Python's Path.read_text() does -------------------------------------

// Decodes like bytes.decode("utf-8"): empty when valid, else the UnicodeDecodeError text.
std::string utf8_decode_error(std::string_view b) {
    std::size_t i = 0;
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(b[k]); };
    while (i < b.size()) {
        const unsigned char c = at(i);
        if (c < 0x80) {
            ++i;
            continue;
        }
        std::size_t need = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            if (c == 0xE0) lo = 0xA0;
            if (c == 0xED) hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            if (c == 0xF0) lo = 0x90;
            if (c == 0xF4) hi = 0x8F;
        } else {
            return fmt::format("'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid start byte", c, i);
        }
        for (std::size_t k = 1; k <= need; ++k) {
            if (i + k >= b.size()) {
                return fmt::format("'utf-8' codec can't decode byte 0x{:02x} in position {}: unexpected end of data", c,
                                   i);
            }
            const unsigned char cc = at(i + k);
            const unsigned char l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
            if (cc < l || cc > h) {
                return fmt::format("'utf-8' codec can't decode byte 0x{:02x} in position {}: invalid continuation byte",
                                   c, i);
            }
        }
        i += need + 1;
    }
    return {};
}

// Universal newlines: "\r\n" and "\r" read as "\n".
std::string universal_newlines(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\r') {
            out += '\n';
            if (i + 1 < s.size() && s[i + 1] == '\n') ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

bool exists(const fs::path& p) {
    std::error_code ec;
    return fs::exists(p, ec);
}

}  // namespace

const Value* Value::find(const std::string& key) const {
    for (const auto& [k, v] : entries) {
        if (k == key) return &v;
    }
    return nullptr;
}

std::string python_path(const std::string& path) {
    if (path.empty()) return ".";
    std::string out;
    std::size_t i = 0;
    if (path[0] == '/') {
        // POSIX keeps exactly two leading slashes; one or three and more become one.
        const std::size_t n = path.find_first_not_of('/');
        out = (n == 2) ? "//" : "/";
        i = n == std::string::npos ? path.size() : n;
    }
    std::vector<std::string> parts;
    while (i < path.size()) {
        std::size_t j = path.find('/', i);
        if (j == std::string::npos) j = path.size();
        const std::string part = path.substr(i, j - i);
        if (!part.empty() && part != ".") parts.push_back(part);
        i = j + 1;
    }
    for (std::size_t k = 0; k < parts.size(); ++k) out += (k ? "/" : "") + parts[k];
    return out.empty() ? "." : out;
}

std::string python_path_name(const std::string& path) {
    const std::string p = python_path(path);
    if (p == "." || p == "/" || p == "//") return "";
    const auto slash = p.rfind('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

std::string python_path_parent(const std::string& path) {
    const std::string p = python_path(path);
    if (p == "." || p == "/" || p == "//") return p;
    const auto slash = p.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    if (slash == 1 && p[0] == '/') return "//";
    return p.substr(0, slash);
}

bool is_skill_md_file(const std::string& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    std::string name = python_path_name(path);
    std::string lowered;
    for (char32_t c : code_points(name))
        append_utf8(lowered, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    return lowered == "skill.md";
}

std::optional<std::string> find_skill_md(const std::string& dir) {
    for (const char* name : {"SKILL.md", "skill.md"}) {
        const std::string p = python_path(dir) + (python_path(dir) == "/" ? "" : "/") + name;
        if (exists(p)) return python_path(p);
    }
    return std::nullopt;
}

Frontmatter read_frontmatter(const std::string& skill_md) {
    Frontmatter out;
    std::error_code ec;
    const auto status = fs::status(skill_md, ec);
    if (fs::is_directory(status)) {
        out.crash =
            fmt::format("IsADirectoryError: [Errno 21] Is a directory: {}", py_repr(std::string_view(skill_md)));
        return out;
    }
    if (!fs::is_regular_file(status)) {
        // The reference would wait on a FIFO or read a device without end; this profile does not.
        out.error = fmt::format("{} is not a regular file (agentskills does not read FIFOs or devices)", skill_md);
        return out;
    }
    std::ifstream in(skill_md, std::ios::binary);
    if (!in) {
        out.crash =
            fmt::format("PermissionError: [Errno 13] Permission denied: {}", py_repr(std::string_view(skill_md)));
        return out;
    }
    std::string bytes;
    bytes.resize(max_file_bytes + 1);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    bytes.resize(static_cast<std::size_t>(in.gcount()));
    if (bytes.size() > max_file_bytes) {
        out.error = fmt::format("SKILL.md is larger than {} bytes (agentskills' bound; the reference has none)",
                                max_file_bytes);
        return out;
    }
    if (std::string e = utf8_decode_error(bytes); !e.empty()) {
        out.crash = "UnicodeDecodeError: " + e;
        return out;
    }
    const std::string content = universal_newlines(bytes);
    if (content.rfind("---", 0) != 0) {
        out.error = "SKILL.md must start with YAML frontmatter (---)";
        return out;
    }
    const std::size_t second = content.find("---", 3);
    if (second == std::string::npos) {
        out.error = "SKILL.md frontmatter not properly closed with ---";
        return out;
    }
    return detail::load_frontmatter(content.substr(3, second - 3));
}

Properties read_properties(const std::string& skill_dir) {
    Properties p;
    const auto file = find_skill_md(skill_dir);
    if (!file) {
        p.error = fmt::format("SKILL.md not found in {}", python_path(skill_dir));
        return p;
    }
    Frontmatter fm = read_frontmatter(*file);
    if (!fm.crash.empty() || !fm.error.empty()) {
        p.crash = fm.crash;
        p.error = fm.error;
        return p;
    }
    Value& meta = *fm.map;
    const Value* name = meta.find("name");
    const Value* description = meta.find("description");
    if (!name) {
        p.error = "Missing required field in frontmatter: name";
        return p;
    }
    if (!description) {
        p.error = "Missing required field in frontmatter: description";
        return p;
    }
    if (name->kind != Value::Kind::string || py_strip(name->text).empty()) {
        p.error = "Field 'name' must be a non-empty string";
        return p;
    }
    if (description->kind != Value::Kind::string || py_strip(description->text).empty()) {
        p.error = "Field 'description' must be a non-empty string";
        return p;
    }
    p.name = py_strip(name->text);
    p.description = py_strip(description->text);
    Value dict;
    dict.kind = Value::Kind::map;
    dict.entries.push_back(Value::Entry{"name", Value{Value::Kind::string, p.name, {}, {}}});
    dict.entries.push_back(Value::Entry{"description", Value{Value::Kind::string, p.description, {}, {}}});
    for (const char* key : {"license", "compatibility", "allowed-tools"}) {
        if (const Value* v = meta.find(key)) dict.entries.push_back(Value::Entry{key, *v});
    }
    if (const Value* m = meta.find("metadata")) {
        // A mapping becomes {str(k): str(v)}; anything else is kept; empty values are left out.
        Value v = *m;
        if (v.kind == Value::Kind::map) {
            for (auto& [k, item] : v.entries) item = Value{Value::Kind::string, py_str(item), {}, {}};
        }
        const bool truthy = v.kind == Value::Kind::string ? !v.text.empty()
                            : v.kind == Value::Kind::list ? !v.items.empty()
                                                          : !v.entries.empty();
        if (truthy) dict.entries.push_back(Value::Entry{"metadata", std::move(v)});
    }
    json_value(p.json, dict, 0);
    return p;
}

Validation validate(const std::string& skill_dir) {
    Validation out;
    std::error_code ec;
    if (!fs::exists(skill_dir, ec)) {
        out.errors.push_back(fmt::format("Path does not exist: {}", python_path(skill_dir)));
        return out;
    }
    if (!fs::is_directory(skill_dir, ec)) {
        out.errors.push_back(fmt::format("Not a directory: {}", python_path(skill_dir)));
        return out;
    }
    const auto file = find_skill_md(skill_dir);
    if (!file) {
        out.errors.emplace_back("Missing required file: SKILL.md");
        return out;
    }
    Frontmatter fm = read_frontmatter(*file);
    if (!fm.crash.empty()) {
        out.crash = fm.crash;
        return out;
    }
    if (!fm.error.empty()) {
        out.errors.push_back(fm.error);
        return out;
    }
    const Value& meta = *fm.map;
    auto& errors = out.errors;

    static const std::vector<std::string> allowed{"allowed-tools", "compatibility", "description",
                                                  "license",       "metadata",      "name"};
    std::vector<std::string> extra;
    for (const auto& [k, v] : meta.entries) {
        if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) extra.push_back(k);
    }
    if (!extra.empty()) {
        std::sort(extra.begin(), extra.end());
        extra.erase(std::unique(extra.begin(), extra.end()), extra.end());
        std::string list;
        for (std::size_t i = 0; i < extra.size(); ++i) list += (i ? ", " : "") + extra[i];
        errors.push_back(
            fmt::format("Unexpected fields in frontmatter: {}. Only ['allowed-tools', 'compatibility', "
                        "'description', 'license', 'metadata', 'name'] are allowed.",
                        list));
    }

    if (const Value* name = meta.find("name"); !name) {
        errors.emplace_back("Missing required field in frontmatter: name");
    } else if (name->kind != Value::Kind::string || py_strip(name->text).empty()) {
        errors.emplace_back("Field 'name' must be a non-empty string");
    } else {
        const std::string n = nfkc(py_strip(name->text));
        const std::u32string cps = code_points(n);
        if (cps.size() > 64) {
            errors.push_back(fmt::format("Skill name '{}' exceeds 64 character limit ({} chars)", n, cps.size()));
        }
        if (changes_under_lower(n)) errors.push_back(fmt::format("Skill name '{}' must be lowercase", n));
        if (!cps.empty() && (cps.front() == '-' || cps.back() == '-')) {
            errors.emplace_back("Skill name cannot start or end with a hyphen");
        }
        if (n.find("--") != std::string::npos) errors.emplace_back("Skill name cannot contain consecutive hyphens");
        // Python's str.isalnum() of one character is is_letter_or_number.
        if (!std::all_of(cps.begin(), cps.end(), [](char32_t c) { return c == '-' || is_letter_or_number(c); })) {
            errors.push_back(fmt::format(
                "Skill name '{}' contains invalid characters. Only letters, digits, and hyphens are allowed.", n));
        }
        const std::string dir_name = python_path_name(skill_dir);
        if (nfkc(dir_name) != n) {
            errors.push_back(fmt::format("Directory name '{}' must match skill name '{}'", dir_name, n));
        }
    }

    if (const Value* d = meta.find("description"); !d) {
        errors.emplace_back("Missing required field in frontmatter: description");
    } else if (d->kind != Value::Kind::string || py_strip(d->text).empty()) {
        errors.emplace_back("Field 'description' must be a non-empty string");
    } else if (const std::size_t len = code_points(d->text).size(); len > 1024) {
        errors.push_back(fmt::format("Description exceeds 1024 character limit ({} chars)", len));
    }

    if (const Value* c = meta.find("compatibility")) {
        if (c->kind != Value::Kind::string) {
            errors.emplace_back("Field 'compatibility' must be a string");
        } else if (const std::size_t len = code_points(c->text).size(); len > 500) {
            errors.push_back(fmt::format("Compatibility exceeds 500 character limit ({} chars)", len));
        }
    }
    return out;
}

std::string html_escape(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#x27;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string missing_path_usage(const std::string& command, const std::string& argument, const std::string& path) {
    return fmt::format(
        "Usage: agentskills {0} [OPTIONS] {1}\nTry 'agentskills {0} --help' for help.\n\nError: "
        "Invalid value for '{1}': Path {2} does not exist.\n",
        command, argument, py_repr(std::string_view(path)));
}

}  // namespace agentskills::reference
