// Fuzz target: the path rules (normalize_relative_path, normalize_virtual_path, join_path,
// path_basename), the in-memory reader's path handling and MountedReader routing.
//
// Input: a selector byte, then two strings separated by a 0xFF byte (a path and a cwd/second
// path). NUL, backslash, `~`, `..` and drive letters all reach the functions.
#include <agentskills/base/errors.hpp>
#include <agentskills/storage/reader.hpp>

#include <memory>

#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

bool refused_character(std::string_view p) {
    return p.find('\0') != std::string_view::npos || p.find('\\') != std::string_view::npos;
}

// A result of the normalizers: canonical, no refused component left.
void check_canonical(std::string_view out, bool rooted) {
    FUZZ_CHECK(!out.empty());
    FUZZ_CHECK(!refused_character(out));
    FUZZ_CHECK(out.find("//") == std::string_view::npos);
    FUZZ_CHECK(!fuzz::contains_component(out, ".."));
    if (rooted) {
        FUZZ_CHECK(out.front() == '/');
        FUZZ_CHECK(out == "/" || out.back() != '/');
        FUZZ_CHECK(!fuzz::contains_component(out.substr(1), "."));
    } else {
        FUZZ_CHECK(out.front() != '/');
        FUZZ_CHECK(out.back() != '/');
        FUZZ_CHECK(out == "." || !fuzz::contains_component(out, "."));
    }
    std::size_t pos = rooted ? 1 : 0;
    while (pos < out.size()) {
        std::size_t next = out.find('/', pos);
        if (next == std::string_view::npos) next = out.size();
        const std::string_view c = out.substr(pos, next - pos);
        FUZZ_CHECK(c.front() != '~');
        FUZZ_CHECK(!(c.size() >= 2 && c[1] == ':'));
        pos = next + 1;
    }
}

std::shared_ptr<const SkillReader> make_mounts() {
    static const std::shared_ptr<const SkillReader> mounted = [] {
        auto a = std::make_shared<MemorySkillReader>();
        a->add_file("lib/one/SKILL.md", "one");
        a->add_file("lib/one/scripts/run.sh", "run");
        a->add_directory("empty");
        auto b = std::make_shared<MemorySkillReader>();
        b->add_file("x", "x");
        return std::make_shared<const MountedReader>(
            std::map<std::string, SkillReaderPtr, std::less<>>{{"a", a}, {"b", b}}, "/a/lib");
    }();
    return mounted;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t selector = in.byte();
    const std::string_view path = in.until('\xFF');
    const std::string_view second = in.rest();

    // normalize_relative_path: refuses or yields a canonical relative path; idempotent.
    try {
        const std::string out = normalize_relative_path(path);
        FUZZ_CHECK(!path.empty() && path.front() != '/' && !refused_character(path));
        check_canonical(out, false);
        FUZZ_CHECK(normalize_relative_path(out) == out);
    } catch (const PathError&) {
    }

    // normalize_virtual_path against the second string as cwd.
    try {
        const std::string out = normalize_virtual_path(path, second);
        check_canonical(out, true);
        FUZZ_CHECK(normalize_virtual_path(out, "/") == out);
        FUZZ_CHECK(normalize_virtual_path(out, second.empty() ? "/" : second) == out);
    } catch (const PathError&) {
    }

    // join_path and path_basename never fail; joining keeps both parts.
    {
        const std::string joined = join_path(path, second);
        FUZZ_CHECK(joined.size() <= path.size() + second.size() + 1);
        if (!second.empty()) FUZZ_CHECK(joined.size() >= second.size());
        const std::string_view base = path_basename(joined);
        FUZZ_CHECK(base.size() <= joined.size());
    }

    // MemorySkillReader: adding a file under a path either refuses it or makes it readable
    // under its normalized form, and never lets it escape the tree.
    if ((selector & 1) != 0) {
        MemorySkillReader mem;
        try {
            mem.add_file(path, "content");
            const std::string key = normalize_relative_path(path);
            FUZZ_CHECK(mem.read_file(key, 0).data == "content");
            FUZZ_CHECK(mem.stat(key).kind == EntryKind::file);
            (void)mem.list_dir(".");
            FUZZ_CHECK(mem.remove(key));
        } catch (const PathError&) {
        }
        try {
            (void)mem.list_dir(second);
        } catch (const Error&) {
        }
    }

    // MountedReader routing: only agentskills errors, and a successful read is a file of the
    // mount the path names.
    const auto mounted = make_mounts();
    try {
        const ReadResult r = mounted->read_file(path, (selector & 2) != 0 ? 1 : 0);
        FUZZ_CHECK(r.data == "one" || r.data == "run" || r.data == "x" || r.data == "o" || r.data == "r");
    } catch (const Error&) {
    }
    try {
        for (const DirEntry& e : mounted->list_dir(path))
            FUZZ_CHECK(!e.name.empty() && e.name.find('/') == std::string::npos);
    } catch (const Error&) {
    }
    try {
        (void)mounted->stat(path);
    } catch (const Error&) {
    }
    try {
        const auto* resolver = mounted->path_resolver();
        FUZZ_CHECK(resolver != nullptr);
        check_canonical(resolver->resolve(path, second.empty() ? std::string_view("/") : second), true);
    } catch (const PathError&) {
    }
    return 0;
}
