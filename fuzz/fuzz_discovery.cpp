// Fuzz target: discovery and loading by FilesystemSkillLoader over an in-memory tree built
// from the input (MemorySkillReader, optionally behind a MountedReader).
//
// Input: an option byte, then records separated by 0x01 bytes; each record is
//   <path> '\n' <content>
// A record whose path ends with '/' adds an empty directory. Paths the reader refuses are
// dropped (that refusal is itself exercised).
//   option bits: 0 require_valid   1 duplicate names = error   2 roots "lib","lib2" (else ".")
//                3 mounted at /m   4 small limits (40 lines, 4 KiB)   5 include/exclude "demo"
//                7 nested walk (depth 4), which reads each root's `.gitignore` from the tree
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/governance.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/storage/reader.hpp>

#include <memory>
#include <set>

#include "fuzz_common.hpp"

using namespace agentskills;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();

    auto mem = std::make_shared<MemorySkillReader>();
    std::set<std::string> files;
    int records = 0;
    while (!in.empty() && records++ < 64) {
        std::string_view record = in.until('\x01');
        const std::size_t nl = record.find('\n');
        const std::string_view path = record.substr(0, nl);
        const std::string_view content = nl == std::string_view::npos ? std::string_view() : record.substr(nl + 1);
        try {
            if (!path.empty() && path.back() == '/') {
                mem->add_directory(path.substr(0, path.size() - 1));
            } else {
                mem->add_file(path, std::string(content));
                files.insert(normalize_relative_path(path));
            }
        } catch (const PathError&) {
        }
    }

    const bool mounted = (flags & 8) != 0;
    FilesystemLoaderOptions opt;
    opt.reader = mem;
    if (mounted) {
        opt.reader =
            std::make_shared<const MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"m", mem}});
    }
    if ((flags & 4) != 0) {
        opt.roots = mounted ? std::vector<std::string>{"/m/lib", "m/lib2"} : std::vector<std::string>{"lib", "lib2"};
    } else if (mounted) {
        opt.roots = {"/m"};
    }
    opt.name_policy = (flags & 1) != 0 ? NamePolicy::require_valid : NamePolicy::keep;
    opt.duplicate_names = (flags & 2) != 0 ? DuplicateNames::error : DuplicateNames::keep_first;
    if ((flags & 16) != 0) {
        opt.max_lines = 40;
        opt.max_bytes = 4096;
    }
    if ((flags & 32) != 0) {
        if ((flags & 64) != 0) {
            opt.include = std::vector<std::string>{"demo"};
        } else {
            opt.exclude = {"demo"};
        }
    }
    if ((flags & 128) != 0) opt.nested_depth = SKILL_NESTED_DEFAULT_DEPTH;
    opt.threads = 1;

    auto loader = std::make_shared<FilesystemSkillLoader>(opt);
    Discovery d;
    try {
        d = loader->discover();
    } catch (const DiscoveryError&) {
        return 0;  // duplicate names under `error`, an unknown include name, a root that cannot be listed
    }

    // Every discovered skill comes from a SKILL.md of the tree; names are unique after NFKC;
    // every skipped entry names a path and says why.
    std::set<std::string> names;
    for (const SkillManifest& m : d.skills) {
        std::string file = m.skill_file;
        if (mounted) {
            FUZZ_CHECK(file.rfind("/m/", 0) == 0);
            file = file.substr(3);
        }
        FUZZ_CHECK(files.count(file) == 1);
        FUZZ_CHECK(path_basename(file) == "SKILL.md");
        FUZZ_CHECK(names.insert(nfkc(m.name)).second);
        if (opt.name_policy == NamePolicy::require_valid) {
            // A Claude Code plugin's skill is `plugin:skill` (a root with .claude-plugin/): each
            // part obeys the name rules.
            std::string_view rest = m.name;
            for (std::size_t colon = rest.find(SKILL_GROUP_SEPARATOR);; colon = rest.find(SKILL_GROUP_SEPARATOR)) {
                FUZZ_CHECK(is_valid_skill_name(rest.substr(0, colon)));
                if (colon == std::string_view::npos) break;
                rest.remove_prefix(colon + 1);
            }
        }
        if (opt.exclude.size() == 1) FUZZ_CHECK(nfkc(m.name) != "demo");
        if (opt.include) FUZZ_CHECK(nfkc(m.name) == "demo");
    }
    for (const SkippedSkill& s : d.skipped) {
        FUZZ_CHECK(!s.path.empty());
        FUZZ_CHECK(!s.message.empty());
    }

    // A kept skill whose name is not canonical (NFKC, equal to its directory name) never has
    // displaced a canonical one: no skipped duplicate of its name lives in a directory of that name.
    for (const SkillManifest& m : d.skills) {
        const std::string key = nfkc(m.name);
        if (m.name == key && path_basename(m.root) == m.name) continue;
        for (const SkippedSkill& s : d.skipped) {
            if (s.reason != SkipReason::duplicate_name) continue;
            const std::string dir(
                path_basename(s.path.substr(0, s.path.size() - std::string_view("/SKILL.md").size())));
            if (dir != key) continue;
            // That skipped file may still have been a look-alike itself; only a canonical name counts.
            const std::string quoted = "skill name '" + key + "' of " + s.path + " is ";
            FUZZ_CHECK(s.message.rfind(quoted, 0) != 0);
        }
    }

    // A second discovery over the same tree (served from the cache) agrees with the first.
    const Discovery again = loader->discover();
    FUZZ_CHECK(again.skills.size() == d.skills.size());
    FUZZ_CHECK(again.skipped.size() == d.skipped.size());
    for (std::size_t i = 0; i < d.skills.size(); ++i) FUZZ_CHECK(again.skills[i].skill_file == d.skills[i].skill_file);

    // Every discovered skill loads; its resources are files of its own directory.
    const SkillCatalog catalog(loader, std::move(d));
    for (const std::string& name : catalog.names()) {
        const LoadedSkill skill = catalog.load(name);
        FUZZ_CHECK(names_equal(skill.manifest.name, name));
        FUZZ_CHECK(skill.resources.size() <= SKILL_MAX_RESOURCES);
        for (const SkillResource& r : skill.resources) {
            FUZZ_CHECK(!r.path.empty() && r.path.front() != '/');
            // Hidden names are left out by default, in every component.
            FUZZ_CHECK(r.path.front() != '.' && r.path.find("/.") == std::string::npos);
            FUZZ_CHECK(!fuzz::contains_component(r.path, ".."));
            FUZZ_CHECK(r.path != "SKILL.md");
            std::string full = join_path(skill.manifest.root, r.path);
            if (mounted) full = full.substr(3);
            FUZZ_CHECK(files.count(full) == 1);
        }
    }
    try {
        (void)catalog.load("no-such-skill-\xFF");
        FUZZ_CHECK(catalog.has("no-such-skill-\xFF"));
    } catch (const NotFoundError&) {
    }
    return 0;
}
