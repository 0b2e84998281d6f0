// Custom loaders (docs/loaders.md): skills from storage this library does not ship a reader for.
//
// 1. A SkillReader over an object store (keys, bytes, an ETag-like generation per object), given
//    to the ordinary FilesystemSkillLoader: discovery, skips, reuse and rediscovery come from the
//    loader; the reader only answers read_file, list_dir and stat, and its stat() identity decides
//    whether a second discovery reads a SKILL.md again.
// 2. A SkillLoader over database rows (one SKILL.md text per row): the loader parses each row with
//    parse_skill_md and sets the location fields with set_location; an own loop activates its
//    skills through SkillActivator, with its own prompt template.
//
//   custom_loader     (no arguments: the store and the rows are built in)
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <agentskills/agentskills.hpp>

namespace as = agentskills;

namespace {

// ---------------------------------------------------------------------------------------
// 1. An object store

/// The store: keys with '/' in them, as object stores name objects; no directories of its own.
class ObjectStore {
public:
    struct Object {
        std::string bytes;
        std::uint64_t generation = 0;  // changes with every put, as an ETag does
        std::int64_t mtime_ns = 0;
        bool unavailable = false;  // the service answers 503 for it
    };

    void put(const std::string& key, std::string bytes, bool unavailable = false) {
        std::lock_guard lock(mutex_);
        // A fixed past time: a file written within the last two seconds would be read again to
        // be safe (docs/loading.md, "Caching and repeated discovery").
        objects_[key] = Object{std::move(bytes), ++generation_, 1'700'000'000'000'000'000, unavailable};
    }
    [[nodiscard]] std::map<std::string, Object> snapshot() const {
        std::lock_guard lock(mutex_);
        return objects_;
    }

private:
    mutable std::mutex mutex_;
    std::map<std::string, Object> objects_;
    std::uint64_t generation_ = 0;
};

/// The reader: relative POSIX paths are keys; a directory is a key prefix. Every member may run
/// on several threads at once (discovery's workers): it only reads a snapshot of the store.
class ObjectStoreReader final : public as::SkillReader {
public:
    explicit ObjectStoreReader(std::shared_ptr<const ObjectStore> store) : store_(std::move(store)) {}

    [[nodiscard]] as::ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        const auto objects = store_->snapshot();
        const auto it = objects.find(std::string(path));
        // NotFoundError: the path does not exist. Anything else that goes wrong is an IoError,
        // and the loader skips that skill as `unreadable` (the others still load).
        if (it == objects.end()) throw as::NotFoundError("no object " + std::string(path));
        if (it->second.unavailable) throw as::IoError("the store answered 503 for " + std::string(path));
        reads.fetch_add(1);
        as::ReadResult out;
        out.truncated = max_bytes != 0 && it->second.bytes.size() > max_bytes;
        out.data = out.truncated ? it->second.bytes.substr(0, max_bytes) : it->second.bytes;
        return out;
    }

    [[nodiscard]] std::vector<as::DirEntry> list_dir(std::string_view path) const override {
        const std::string prefix = path == "." ? "" : std::string(path) + "/";
        std::map<std::string, as::DirEntry> children;
        for (const auto& [key, object] : store_->snapshot()) {
            if (key.compare(0, prefix.size(), prefix) != 0) continue;
            const std::string rest = key.substr(prefix.size());
            const auto slash = rest.find('/');
            as::DirEntry e;
            e.name = rest.substr(0, slash);
            e.kind = slash == std::string::npos ? as::EntryKind::file : as::EntryKind::directory;
            if (e.kind == as::EntryKind::file) {
                e.size = object.bytes.size();
                e.mtime_ns = object.mtime_ns;
            }
            children.emplace(e.name, e);
        }
        if (children.empty() && !prefix.empty()) throw as::NotFoundError("no objects below " + std::string(path));
        std::vector<as::DirEntry> out;
        for (auto& [name, entry] : children) out.push_back(std::move(entry));
        return out;
    }

    /// The identity is the object's generation: a put changes it, so the next discovery reads
    /// the SKILL.md again; while it stays the same (with size and time), the parse is reused.
    [[nodiscard]] as::FileStat stat(std::string_view path) const override {
        const auto objects = store_->snapshot();
        if (const auto it = objects.find(std::string(path)); it != objects.end()) {
            return as::FileStat{.kind = as::EntryKind::file,
                                .size = it->second.bytes.size(),
                                .mtime_ns = it->second.mtime_ns,
                                .identity = it->second.generation};
        }
        const std::string prefix = std::string(path) + "/";
        for (const auto& entry : objects) {
            if (entry.first.compare(0, prefix.size(), prefix) == 0)
                return as::FileStat{.kind = as::EntryKind::directory};
        }
        throw as::NotFoundError("no object " + std::string(path));
    }

    mutable std::atomic<int> reads{0};  // SKILL.md and resource bytes read, for the printout

private:
    std::shared_ptr<const ObjectStore> store_;
};

std::string skill_md(std::string_view name, std::string_view description, std::string_view body) {
    return "---\nname: " + std::string(name) + "\ndescription: " + std::string(description) + "\n---\n" +
           std::string(body) + "\n";
}

void print_discovery(const char* title, const as::Discovery& d, ObjectStoreReader& reader) {
    std::printf("%s:", title);
    for (const auto& m : d.skills) std::printf(" %s (%s)", m.name.c_str(), m.skill_file.c_str());
    std::printf("\n  skipped:");
    for (const auto& s : d.skipped) {
        std::printf(" %s [%s]", s.path.c_str(), std::string(as::to_string(s.reason)).c_str());
    }
    std::printf("\n  files read: %d\n", reader.reads.exchange(0));
}

void object_store() {
    std::puts("== 1. a SkillReader over an object store");
    auto store = std::make_shared<ObjectStore>();
    store->put("skills/pdf-forms/SKILL.md", skill_md("pdf-forms", "Fill PDF forms.", "Run scripts/fill.py."));
    store->put("skills/pdf-forms/scripts/fill.py", "print('filled')\n");
    store->put("skills/release-notes/SKILL.md", skill_md("release-notes", "Write release notes.", "Group by kind."));
    store->put("skills/broken/SKILL.md", skill_md("broken", "Never read.", "-"), /*unavailable=*/true);
    store->put("skills/notes/readme.txt", "a folder without a SKILL.md is no skill\n");

    auto reader = std::make_shared<ObjectStoreReader>(store);
    as::FilesystemSkillLoader loader({.roots = {"skills"}, .reader = reader});
    print_discovery("discovery 1", loader.discover(), *reader);
    print_discovery("discovery 2, nothing changed", loader.discover(), *reader);
    store->put("skills/release-notes/SKILL.md", skill_md("release-notes", "Write release notes.", "Group by type."));
    print_discovery("discovery 3, release-notes put again", loader.discover(), *reader);

    const as::LoadedSkill pdf = loader.load("pdf-forms");
    std::printf("load pdf-forms: root %s, library %s, instructions \"%s\", resources:", pdf.manifest.root.c_str(),
                pdf.manifest.library.c_str(), pdf.instructions.c_str());
    for (const auto& r : pdf.resources) std::printf(" %s", r.path.c_str());
    std::printf("\n\n");
}

// ---------------------------------------------------------------------------------------
// 2. Database rows

struct Row {
    int id = 0;
    std::string skill_md;  // the SKILL.md text, as stored
};

/// A loader of its own: each row is one skill, `db://skills/<id>/SKILL.md`. It parses with the
/// library's parser (the same rules, diagnostics and skip reasons as every loader) and sets the
/// location fields with set_location, the helper the shipped loaders use.
class RowLoader final : public as::SkillLoader {
public:
    explicit RowLoader(std::vector<Row> rows) : rows_(std::move(rows)) {}

    [[nodiscard]] as::Discovery discover() override {
        as::Discovery d;
        for (const Row& row : rows_) {
            Parsed p = parse(row);
            for (auto& diagnostic : p.result.diagnostics) d.diagnostics.push_back(std::move(diagnostic));
            if (!p.result.ok()) {
                d.skipped.push_back(as::SkippedSkill{p.file, p.result.skip_reason().value_or(as::SkipReason::invalid),
                                                     p.file + " is not a valid skill"});
                continue;
            }
            d.skills.push_back(std::move(*p.result.manifest()));
        }
        return d;
    }

    /// Throws NotFoundError for a name it does not hold (the activator answers "unknown").
    [[nodiscard]] as::LoadedSkill load(std::string_view name) override {
        for (const Row& row : rows_) {
            Parsed p = parse(row);
            if (!p.result.ok() || !as::names_equal(p.result.manifest()->name, name)) continue;
            as::LoadedSkill out;
            out.manifest = std::move(*p.result.manifest());
            out.instructions = std::move(p.result.instructions);
            return out;  // no resources: a row holds only its SKILL.md
        }
        throw as::NotFoundError("no skill named '" + std::string(name) + "' in the database");
    }

    /// The model's file tools cannot reach db://, so activation texts name no directory.
    [[nodiscard]] bool in_run_workspace(std::string_view) const override { return false; }

private:
    struct Parsed {
        std::string file;
        as::ParseResult result;
    };
    static Parsed parse(const Row& row) {
        const std::string dir = "db://skills/" + std::to_string(row.id);
        Parsed p{dir + "/SKILL.md", {}};
        as::ParseOptions options;
        options.path = p.file;  // diagnostics name it; the parser sets skill_file from it
        p.result = as::parse_skill_md(row.skill_md, options);
        if (as::SkillManifest* m = p.result.manifest()) set_location(*m, {p.file, dir, "db://skills"});
        return p;
    }
    std::vector<Row> rows_;
};

void database_rows() {
    std::puts("== 2. a SkillLoader over database rows, activated by an own loop");
    auto loader = std::make_shared<RowLoader>(std::vector<Row>{
        {1, skill_md("sql-style", "House style for SQL.", "Upper-case keywords; one clause per line.")},
        {2, skill_md("incident-summary", "Summarize an incident.", "Timeline first, then impact.")},
        {3, "---\nname: broken row\n---\nno description\n"}});
    const as::SkillCatalogPtr catalog = as::discover_skill_catalog(loader);
    for (const auto& d : catalog->diagnostics()) std::printf("diagnostic: %s\n", as::format_diagnostic(d).c_str());
    for (const auto& s : catalog->skipped()) {
        std::printf("skipped: %s [%s]\n", s.path.c_str(), std::string(as::to_string(s.reason)).c_str());
    }

    as::SkillActivatorOptions options;
    options.tool_name = "use_skill";
    options.system_prompt = "This app has {skill_count} skills; call {tool_name} to use one.\n{skills}";
    const as::SkillActivator core(catalog, options);
    std::printf("-- the prompt block:\n%s\n", core.prompt_block().c_str());

    as::MemoryActivationStore store;  // one conversation
    for (const char* args : {R"({"name": "sql-style"})", R"({"name": "sql-style"})", R"({"name": "nope"})"}) {
        const as::ActivationResult r = core.activate(store, args);
        std::printf("-- %s %s:\n%s\n", args, std::string(as::to_string(r.status)).c_str(), r.text.c_str());
    }
}

}  // namespace

int main() {
    try {
        object_store();
        database_rows();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "custom_loader: %s\n", e.what());
        return 1;
    }
    return 0;
}
