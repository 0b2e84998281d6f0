// agentskills-cpp — GitTreeReader: one commit's tree, read from the object database (libgit2).
#include "agentskills/git/git_reader.hpp"

#include <git2.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "../storage/path_rules.hpp"
#include "agentskills/base/errors.hpp"

namespace agentskills {

namespace {

std::string last_git_error() {
    const git_error* e = git_error_last();
    return e != nullptr && e->message != nullptr ? std::string(e->message) : std::string("unknown libgit2 error");
}

// libgit2's global state, reference-counted by libgit2 itself.
struct GitLibrary {
    GitLibrary() { git_libgit2_init(); }
    ~GitLibrary() { git_libgit2_shutdown(); }
    GitLibrary(const GitLibrary&) = delete;
    GitLibrary& operator=(const GitLibrary&) = delete;
};

struct RepositoryFree {
    void operator()(git_repository* p) const noexcept { git_repository_free(p); }
};
struct OdbFree {
    void operator()(git_odb* p) const noexcept { git_odb_free(p); }
};
struct TreeFree {
    void operator()(git_tree* p) const noexcept { git_tree_free(p); }
};
struct ObjectFree {
    void operator()(git_object* p) const noexcept { git_object_free(p); }
};
struct BlobFree {
    void operator()(git_blob* p) const noexcept { git_blob_free(p); }
};
struct ReferenceFree {
    void operator()(git_reference* p) const noexcept { git_reference_free(p); }
};
using ObjectPtr = std::unique_ptr<git_object, ObjectFree>;
using TreePtr = std::shared_ptr<git_tree>;  // a loaded tree, shared with the cache of recent trees

// The trees a reader keeps loaded after use (its root is kept apart): at most this many, and at
// most this many bytes of tree objects together.
constexpr std::size_t recent_trees_max = 16;
constexpr std::uint64_t recent_tree_bytes_max = 16ULL << 20;

// Commit and tag objects loaded while a ref is resolved, at most (each within max_commit_bytes):
// `main~N` loads N + 1 commits (the last is the one read), and each annotated tag on the way one.
constexpr std::size_t resolve_objects_max = 1000;

// One plain path component as a tree entry name (hostile objects can hold anything).
// (A backslash too: the path rules refuse it, so such an entry could never be named.)
bool plain_component(std::string_view name) noexcept {
    return detail::is_plain_component(name) && name.find('\\') == std::string_view::npos;
}

std::uint64_t oid_prefix(const git_oid& oid) noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | oid.id[i];
    return v;
}

EntryKind kind_of(git_filemode_t mode) noexcept {
    switch (mode) {
        case GIT_FILEMODE_TREE:
            return EntryKind::directory;
        case GIT_FILEMODE_BLOB:
        case GIT_FILEMODE_BLOB_EXECUTABLE:
            return EntryKind::file;
        default:
            return EntryKind::other;
    }
}

const char* not_followed(git_filemode_t mode) noexcept {
    if (mode == GIT_FILEMODE_LINK) return "a symbolic link, not followed";
    if (mode == GIT_FILEMODE_COMMIT) return "a submodule, not followed";
    return "not a regular file";
}

// A repository with an `objects/info/alternates` file is refused before its object database is
// opened: libgit2 (1.5 has no option against it) reads objects through every object store the
// file names, any directory on the machine, so a repository unpacked from an archive could serve
// a skill from another user's repository. `git clone` never writes the file (`--shared` and
// `--reference` do). Anything at that path counts, a link or a directory too.
void refuse_alternates(const git_repository* repo, const std::string& repo_path) {
    git_buf objects = GIT_BUF_INIT;
    if (git_repository_item_path(&objects, repo, GIT_REPOSITORY_ITEM_OBJECTS) != 0) {
        git_buf_dispose(&objects);
        throw IoError(fmt::format("cannot open the git repository '{}': {}", repo_path, last_git_error()));
    }
    const std::filesystem::path alternates = std::filesystem::path(objects.ptr) / "info" / "alternates";
    git_buf_dispose(&objects);
    std::error_code ec;
    const std::filesystem::file_status status = std::filesystem::symlink_status(alternates, ec);
    if (status.type() == std::filesystem::file_type::not_found) return;
    if (ec) {
        throw IoError(fmt::format("cannot open the git repository '{}': cannot check '{}': {}", repo_path,
                                  alternates.string(), ec.message()));
    }
    throw IoError(
        fmt::format("cannot open the git repository '{}': it has '{}', which would have objects read from other "
                    "repositories (`git repack -a -d` and removing the file make it self-contained)",
                    repo_path, alternates.lexically_normal().string()));
}

// What a path names in the tree.
struct Resolved {
    git_filemode_t mode = GIT_FILEMODE_TREE;
    git_oid oid{};
};

}  // namespace

struct GitTreeReader::Impl {
    GitLibrary library;  // first member: shut down last
    GitLimits limits;
    std::string ref;
    std::string commit_hex;
    std::int64_t time_ns = 0;
    std::unique_ptr<git_repository, RepositoryFree> repo;
    std::unique_ptr<git_odb, OdbFree> odb;
    TreePtr root;
    git_oid root_oid{};
    mutable std::mutex mutex;  // every libgit2 call on these objects
    // Trees loaded lately, the most recent last (under `mutex`). A walk reads or stats every file
    // of a directory, and each read walks its path from the root: without them, every file
    // loaded (inflated, parsed and checked) its directory's tree again, so the work for one
    // directory grew as its tree's size times its number of files (minutes for a lock of 8,000
    // files of one directory).
    struct RecentTree {
        git_oid oid;
        TreePtr tree;
        std::uint64_t bytes;
    };
    mutable std::vector<RecentTree> recent;
    mutable std::uint64_t recent_bytes = 0;
    std::size_t resolve_loads = 0;  // commits and tags loaded while `ref` is resolved

    // The size of an object from its header, without loading it.
    std::uint64_t object_size(const git_oid& oid, git_object_t expected, std::string_view path) const {
        std::size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        if (git_odb_read_header(&size, &type, odb.get(), &oid) != 0) {
            throw IoError(fmt::format("cannot read '{}' from the repository: {}", path, last_git_error()));
        }
        if (type != expected) {
            throw IoError(fmt::format("cannot read '{}': the object is a {}, not a {}", path,
                                      git_object_type2string(type), git_object_type2string(expected)));
        }
        return size;
    }

    TreePtr load_tree(const git_oid& oid, std::string_view path) const {
        for (auto it = recent.begin(); it != recent.end(); ++it) {
            if (git_oid_equal(&it->oid, &oid) != 0) {
                std::rotate(it, it + 1, recent.end());
                return recent.back().tree;
            }
        }
        const std::uint64_t size = object_size(oid, GIT_OBJECT_TREE, path);
        if (size > limits.max_tree_bytes) {
            throw IoError(fmt::format("cannot list '{}': a tree object of {} bytes, more than the limit of {}", path,
                                      size, limits.max_tree_bytes));
        }
        git_tree* tree = nullptr;
        if (git_tree_lookup(&tree, repo.get(), &oid) != 0) {
            throw IoError(fmt::format("cannot list '{}': {}", path, last_git_error()));
        }
        TreePtr owned(tree, TreeFree{});
        check_order(tree, path);
        recent.push_back(RecentTree{oid, owned, size});
        recent_bytes += size;
        while (recent.size() > recent_trees_max || recent_bytes > recent_tree_bytes_max) {
            recent_bytes -= recent.front().bytes;
            recent.erase(recent.begin());
        }
        return owned;
    }

    // Only a tree as git writes it: entries in git's order (git_tree_entry_cmp: a directory sorts
    // as its name and '/'), each name once. libgit2 lists a tree's entries as stored but finds a
    // name by a binary search, so in a hand-made tree out of order, or naming an entry twice, a
    // listed entry could not be found, or a read could find another entry than the listing showed
    // (another blob, or a directory listed as a file). git fsck calls such trees broken too.
    static void check_order(const git_tree* tree, std::string_view path) {
        const std::size_t count = git_tree_entrycount(tree);
        std::vector<std::string_view> names;
        names.reserve(count);
        for (std::size_t i = 0; i < count; ++i) {
            const git_tree_entry* entry = git_tree_entry_byindex(tree, i);
            names.emplace_back(git_tree_entry_name(entry));
            const int order = i > 0 ? git_tree_entry_cmp(git_tree_entry_byindex(tree, i - 1), entry) : -1;
            if (order == 0) twice(path, names.back());
            if (order > 0) {
                throw IoError(
                    fmt::format("cannot list '{}': a broken tree object, its entries not in git's order "
                                "(at '{}')",
                                path, names.back()));
            }
        }
        // A file and a directory of one name are in order ("x" before "x/"), not always adjacent.
        std::sort(names.begin(), names.end());
        if (const auto same = std::adjacent_find(names.begin(), names.end()); same != names.end()) twice(path, *same);
    }

    [[noreturn]] static void twice(std::string_view path, std::string_view name) {
        throw IoError(fmt::format("cannot list '{}': a broken tree object, naming '{}' twice", path, name));
    }

    // The object `name` names, found without loading any object: a full object id, a reference by
    // git's rules for short names ("main", "v1", "origin/main", "refs/...", "HEAD"; "@" is HEAD),
    // an abbreviated id or a `git describe` name ("v1-3-g0123abc"), in git_revparse_single's order.
    // nullopt when it names nothing.
    std::optional<git_oid> named_id(std::string_view name, const std::string& repo_path) const {
        const std::string text = name == "@" ? std::string("HEAD") : std::string(name);
        const bool hex = is_hex(text);
        git_oid oid{};
        if (hex && text.size() == GIT_OID_HEXSZ && git_oid_fromstr(&oid, text.c_str()) == 0 &&
            git_odb_exists(odb.get(), &oid) != 0) {
            return oid;
        }
        git_reference* named = nullptr;
        if (git_reference_dwim(&named, repo.get(), text.c_str()) == 0) {
            const std::unique_ptr<git_reference, ReferenceFree> owned(named);
            git_reference* direct = nullptr;
            if (const int rc = git_reference_resolve(&direct, named); rc != 0) {
                if (rc == GIT_ENOTFOUND) throw NotFoundError(fmt::format("ref '{}' not found in '{}'", ref, repo_path));
                throw IoError(fmt::format("cannot resolve ref '{}' in '{}': {}", ref, repo_path, last_git_error()));
            }
            const std::unique_ptr<git_reference, ReferenceFree> resolved(direct);
            if (const git_oid* target = git_reference_target(direct); target != nullptr) return *target;
            return std::nullopt;
        }
        if (hex) return abbreviated_id(text);
        if (const std::size_t g = text.rfind("-g"); g != std::string::npos && is_hex(text.substr(g + 2))) {
            return abbreviated_id(text.substr(g + 2));
        }
        return std::nullopt;
    }

    static bool is_hex(std::string_view text) noexcept {
        return !text.empty() && text.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
    }

    std::optional<git_oid> abbreviated_id(std::string_view hex) const {
        git_oid oid{};
        git_oid full{};
        if (hex.size() >= GIT_OID_MINPREFIXLEN && hex.size() < GIT_OID_HEXSZ &&
            git_oid_fromstrn(&oid, hex.data(), hex.size()) == 0 &&
            git_odb_exists_prefix(&full, odb.get(), &oid, hex.size()) == 0) {
            return full;
        }
        return std::nullopt;
    }

    // The type of `oid` from its header; a commit or tag over max_commit_bytes is refused here,
    // before anything loads it (its message is free text, and a few hundred kilobytes of a packed
    // repository can hold a gigabyte of it).
    git_object_t checked_type(const git_oid& oid, const std::string& repo_path) const {
        std::size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        if (git_odb_read_header(&size, &type, odb.get(), &oid) != 0) {
            throw IoError(fmt::format("cannot resolve ref '{}' in '{}': {}", ref, repo_path, last_git_error()));
        }
        if ((type == GIT_OBJECT_COMMIT || type == GIT_OBJECT_TAG) && size > limits.max_commit_bytes) {
            throw IoError(
                fmt::format("cannot resolve ref '{}' in '{}': a {} object of {} bytes, more than the "
                            "limit of {}",
                            ref, repo_path, git_object_type2string(type), size, limits.max_commit_bytes));
        }
        return type;
    }

    // Loads the commit or tag `oid` (of `type`, from checked_type): at most resolve_objects_max
    // of them while the ref is resolved.
    ObjectPtr load_checked(const git_oid& oid, git_object_t type, const std::string& repo_path) {
        if (++resolve_loads > resolve_objects_max) {
            throw IoError(fmt::format("cannot resolve ref '{}' in '{}': more than {} commit and tag objects on the way",
                                      ref, repo_path, resolve_objects_max));
        }
        git_object* object = nullptr;
        if (git_object_lookup(&object, repo.get(), &oid, type) != 0) {
            throw IoError(fmt::format("cannot resolve ref '{}' in '{}': {}", ref, repo_path, last_git_error()));
        }
        return ObjectPtr(object);
    }

    // Follows `oid` through annotated tags; the first object that is not a tag, and its type.
    std::pair<git_oid, git_object_t> peel_tags(git_oid oid, const std::string& repo_path) {
        for (;;) {
            const git_object_t type = checked_type(oid, repo_path);
            if (type != GIT_OBJECT_TAG) return {oid, type};
            const ObjectPtr tag = load_checked(oid, type, repo_path);
            oid = *git_tag_target_id(reinterpret_cast<const git_tag*>(tag.get()));
        }
    }

    // The commit `oid` leads to through annotated tags, each checked from its header first.
    ObjectPtr load_commit(const git_oid& oid, const std::string& repo_path) {
        const auto [target, type] = peel_tags(oid, repo_path);
        if (type != GIT_OBJECT_COMMIT) {
            throw IoError(fmt::format("ref '{}' in '{}' names no commit: it leads to a {}", ref, repo_path,
                                      git_object_type2string(type)));
        }
        return load_checked(target, type, repo_path);
    }

    [[noreturn]] void unsupported() const {
        throw ConfigurationError(
            fmt::format("'{}' is not a usable git ref: a branch, tag, reference, commit id or `git describe` name, "
                        "optionally followed by ~<n>, ^<n>, ^{{}}, ^{{commit}}, ^{{tree}}, ^{{blob}}, ^{{tag}} or "
                        "^{{object}}",
                        ref));
    }

    // What `ref` names. Its name (up to the first '~' or '^') is found without loading anything
    // (named_id); the revision suffixes after it are walked here, every commit and tag on the way
    // checked from its header before it is loaded (libgit2's revparse loads what it walks whole).
    // `<rev>:<path>` names a tree entry, never a commit to read (an IoError, as for a tag of a
    // tree); other revision syntax (`@{...}`, `:/text`, `^{/regex}`) is a ConfigurationError.
    git_oid resolve_ref(const std::string& repo_path) {
        const std::size_t cut = std::min(ref.find_first_of("~^"), ref.size());
        const std::string_view name = std::string_view(ref).substr(0, cut);
        if (const std::size_t colon = name.find(':'); colon != std::string_view::npos && colon > 0)
            names_entry(repo_path);
        if (name.empty() || name.front() == ':' || name.find("@{") != std::string_view::npos) unsupported();
        const std::optional<git_oid> found = named_id(name, repo_path);
        if (!found) throw NotFoundError(fmt::format("ref '{}' not found in '{}'", ref, repo_path));
        git_oid oid = *found;
        std::size_t pos = cut;
        while (pos < ref.size()) {
            const char op = ref[pos++];
            if (op == ':') names_entry(repo_path);
            if (op != '~' && op != '^') unsupported();
            if (op == '^' && pos < ref.size() && ref[pos] == '{') {
                const std::size_t close = ref.find('}', pos);
                if (close == std::string::npos) unsupported();
                oid = peel(oid, std::string_view(ref).substr(pos + 1, close - pos - 1), repo_path);
                pos = close + 1;
                continue;
            }
            std::size_t n = 0;
            const std::size_t digits = pos;
            for (; pos < ref.size() && ref[pos] >= '0' && ref[pos] <= '9'; ++pos) {
                n = std::min<std::size_t>(n * 10 + static_cast<std::size_t>(ref[pos] - '0'), resolve_objects_max + 1);
            }
            if (pos == digits) n = 1;
            if (op == '^') {
                const ObjectPtr commit = load_commit(oid, repo_path);
                const auto* c = reinterpret_cast<const git_commit*>(commit.get());
                if (n == 0) {
                    oid = *git_commit_id(c);
                } else if (n > git_commit_parentcount(c)) {
                    throw NotFoundError(fmt::format("ref '{}' not found in '{}'", ref, repo_path));
                } else {
                    oid = *git_commit_parent_id(c, static_cast<unsigned int>(n - 1));
                }
                continue;
            }
            for (std::size_t i = 0; i < n; ++i) {
                const ObjectPtr commit = load_commit(oid, repo_path);
                const auto* c = reinterpret_cast<const git_commit*>(commit.get());
                if (git_commit_parentcount(c) == 0) {
                    throw NotFoundError(fmt::format("ref '{}' not found in '{}'", ref, repo_path));
                }
                oid = *git_commit_parent_id(c, 0);
            }
        }
        return oid;
    }

    // `oid^{type}`: "" follows annotated tags, "object" is `oid` itself, "tag" must be a tag, the
    // others peel to an object of that type (a commit's tree for "tree").
    git_oid peel(const git_oid& oid, std::string_view type, const std::string& repo_path) {
        if (type == "object") {
            (void)checked_type(oid, repo_path);
            return oid;
        }
        if (type == "tag") {
            if (const git_object_t t = checked_type(oid, repo_path); t != GIT_OBJECT_TAG)
                cannot_peel(t, type, repo_path);
            return oid;
        }
        if (type == "commit") return *git_object_id(load_commit(oid, repo_path).get());
        if (type != "" && type != "tree" && type != "blob") unsupported();
        const auto [target, t] = peel_tags(oid, repo_path);
        if (type == "" || type == git_object_type2string(t)) return target;
        if (type == "tree" && t == GIT_OBJECT_COMMIT) {
            return *git_commit_tree_id(reinterpret_cast<const git_commit*>(load_checked(target, t, repo_path).get()));
        }
        cannot_peel(t, type, repo_path);
    }

    [[noreturn]] void names_entry(const std::string& repo_path) const {
        throw IoError(
            fmt::format("ref '{}' in '{}' names no commit: `<rev>:<path>` names a tree entry", ref, repo_path));
    }

    [[noreturn]] void cannot_peel(git_object_t from, std::string_view to, const std::string& repo_path) const {
        throw IoError(fmt::format("cannot resolve ref '{}' in '{}': a {} does not lead to a {}", ref, repo_path,
                                  git_object_type2string(from), to));
    }

    // Walks the tree one component at a time, loading each subtree only after its size is checked.
    Resolved resolve(std::string_view path, const std::string& key) const {
        Resolved out{GIT_FILEMODE_TREE, root_oid};
        if (key == ".") return out;
        TreePtr owned;
        const git_tree* current = root.get();
        std::size_t pos = 0;
        while (pos <= key.size()) {
            std::size_t next = key.find('/', pos);
            if (next == std::string::npos) next = key.size();
            const std::string component = key.substr(pos, next - pos);
            pos = next + 1;
            const git_tree_entry* entry = git_tree_entry_byname(current, component.c_str());
            if (entry == nullptr) throw NotFoundError(fmt::format("'{}' does not exist in the tree", path));
            out.mode = git_tree_entry_filemode(entry);
            out.oid = *git_tree_entry_id(entry);
            if (pos > key.size()) break;
            if (out.mode != GIT_FILEMODE_TREE) {
                throw NotFoundError(fmt::format("'{}' does not exist in the tree: '{}' is {}", path, component,
                                                out.mode == GIT_FILEMODE_LINK || out.mode == GIT_FILEMODE_COMMIT
                                                    ? not_followed(out.mode)
                                                    : "not a directory"));
            }
            owned = load_tree(out.oid, path);
            current = owned.get();
        }
        return out;
    }
};

GitTreeReader::GitTreeReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GitTreeReader::~GitTreeReader() = default;

std::shared_ptr<const GitTreeReader> GitTreeReader::open(const std::string& repo_path, std::string_view ref,
                                                         GitLimits limits) {
    if (repo_path.empty() || repo_path.find('\0') != std::string::npos) {
        throw ConfigurationError("a git repository path must be a non-empty path without NUL");
    }
    if (ref.empty() || ref.find('\0') != std::string_view::npos || ref.front() == '-') {
        throw ConfigurationError(fmt::format("'{}' is not a usable git ref", ref));
    }
    auto impl = std::make_unique<Impl>();
    impl->limits = limits;
    impl->ref = std::string(ref);

    git_repository* repo = nullptr;
    if (const int rc = git_repository_open_ext(&repo, repo_path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
        rc != 0) {
        if (rc == GIT_ENOTFOUND) {
            throw NotFoundError(fmt::format("'{}' is not a git repository: {}", repo_path, last_git_error()));
        }
        throw IoError(fmt::format("cannot open the git repository '{}': {}", repo_path, last_git_error()));
    }
    impl->repo.reset(repo);
    refuse_alternates(repo, repo_path);

    git_odb* odb = nullptr;
    if (git_repository_odb(&odb, repo) != 0) {
        throw IoError(fmt::format("cannot open the object database of '{}': {}", repo_path, last_git_error()));
    }
    impl->odb.reset(odb);

    const ObjectPtr commit_object = impl->load_commit(impl->resolve_ref(repo_path), repo_path);
    const auto* commit = reinterpret_cast<const git_commit*>(commit_object.get());

    char hex[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(hex, sizeof hex, git_commit_id(commit));
    impl->commit_hex = hex;
    impl->time_ns = static_cast<std::int64_t>(git_commit_time(commit)) * 1'000'000'000;

    impl->root_oid = *git_commit_tree_id(commit);
    impl->root = impl->load_tree(impl->root_oid, ".");
    return std::shared_ptr<const GitTreeReader>(new GitTreeReader(std::move(impl)));
}

ReadResult GitTreeReader::read_file(std::string_view path, std::size_t max_bytes) const {
    const std::string key = normalize_relative_path(path);
    std::lock_guard lock(impl_->mutex);
    const Resolved r = impl_->resolve(path, key);
    if (r.mode == GIT_FILEMODE_TREE) throw IoError(fmt::format("cannot read '{}': it is a directory", path));
    if (kind_of(r.mode) != EntryKind::file)
        throw IoError(fmt::format("cannot read '{}': {}", path, not_followed(r.mode)));
    const std::uint64_t size = impl_->object_size(r.oid, GIT_OBJECT_BLOB, path);
    if (size > impl_->limits.max_blob_bytes) {
        throw IoError(fmt::format("cannot read '{}': a blob of {} bytes, more than the limit of {}", path, size,
                                  impl_->limits.max_blob_bytes));
    }
    git_blob* blob = nullptr;
    if (git_blob_lookup(&blob, impl_->repo.get(), &r.oid) != 0) {
        throw IoError(fmt::format("cannot read '{}': {}", path, last_git_error()));
    }
    std::unique_ptr<git_blob, BlobFree> owned(blob);
    const auto raw_size = static_cast<std::uint64_t>(git_blob_rawsize(blob));
    if (raw_size != size) {
        throw IoError(
            fmt::format("cannot read '{}': the blob holds {} bytes, its header says {}", path, raw_size, size));
    }
    const bool partial = max_bytes != 0 && max_bytes < raw_size;
    const auto n = static_cast<std::size_t>(partial ? max_bytes : raw_size);
    ReadResult result;
    result.data.assign(static_cast<const char*>(git_blob_rawcontent(blob)), n);
    result.truncated = partial;
    return result;
}

std::vector<DirEntry> GitTreeReader::list_dir(std::string_view path) const {
    const std::string key = normalize_relative_path(path);
    std::lock_guard lock(impl_->mutex);
    const Resolved r = impl_->resolve(path, key);
    if (r.mode != GIT_FILEMODE_TREE) {
        throw IoError(fmt::format("cannot list '{}': {}", path,
                                  kind_of(r.mode) == EntryKind::file ? "not a directory" : not_followed(r.mode)));
    }
    TreePtr loaded;
    const git_tree* tree = impl_->root.get();
    if (key != ".") {
        loaded = impl_->load_tree(r.oid, path);
        tree = loaded.get();
    }
    const std::size_t count = git_tree_entrycount(tree);
    if (count > impl_->limits.max_tree_entries) {
        throw IoError(fmt::format("cannot list '{}': {} entries, more than the limit of {}", path, count,
                                  impl_->limits.max_tree_entries));
    }
    std::vector<DirEntry> out;
    out.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const git_tree_entry* entry = git_tree_entry_byindex(tree, i);
        const std::string_view name = git_tree_entry_name(entry);
        if (!plain_component(name)) continue;  // (load_tree refused a tree that names an entry twice)
        const git_filemode_t mode = git_tree_entry_filemode(entry);
        DirEntry e;
        e.name = std::string(name);
        e.kind = kind_of(mode);
        e.is_symlink = mode == GIT_FILEMODE_LINK;
        e.mtime_ns = impl_->time_ns;
        if (e.kind == EntryKind::file) {
            e.size = impl_->object_size(*git_tree_entry_id(entry), GIT_OBJECT_BLOB, join_path(key, name));
        }
        out.push_back(std::move(e));
    }
    return out;
}

FileStat GitTreeReader::stat(std::string_view path) const {
    const std::string key = normalize_relative_path(path);
    std::lock_guard lock(impl_->mutex);
    const Resolved r = impl_->resolve(path, key);
    FileStat st;
    st.kind = kind_of(r.mode);
    st.is_symlink = r.mode == GIT_FILEMODE_LINK;
    st.mtime_ns = impl_->time_ns;
    st.identity = oid_prefix(r.oid);
    if (st.kind == EntryKind::file) st.size = impl_->object_size(r.oid, GIT_OBJECT_BLOB, path);
    return st;
}

const std::string& GitTreeReader::commit_id() const noexcept { return impl_->commit_hex; }
const std::string& GitTreeReader::ref() const noexcept { return impl_->ref; }
std::int64_t GitTreeReader::commit_time_ns() const noexcept { return impl_->time_ns; }

std::optional<GitRoot> parse_git_root(std::string_view root) {
    constexpr std::string_view prefix = "git:";
    if (root.substr(0, prefix.size()) != prefix) return std::nullopt;
    const std::string_view rest = root.substr(prefix.size());
    const std::size_t at = rest.rfind('@');
    if (at == std::string_view::npos || at == 0) {
        throw ConfigurationError(fmt::format("git root '{}': expected git:<repo-path>@<ref>[:<path>]", root));
    }
    GitRoot out;
    out.repo_path = std::string(rest.substr(0, at));
    std::string_view ref = rest.substr(at + 1);
    if (const std::size_t colon = ref.find(':'); colon != std::string_view::npos) {
        const std::string_view inside = ref.substr(colon + 1);
        ref = ref.substr(0, colon);
        if (!inside.empty()) {
            try {
                out.path = normalize_relative_path(inside);
            } catch (const PathError& e) {
                throw ConfigurationError(fmt::format("git root '{}': {}", root, e.what()));
            }
        }
    }
    if (ref.empty()) throw ConfigurationError(fmt::format("git root '{}' names no ref", root));
    out.ref = std::string(ref);
    return out;
}

RootResolver git_root_source(GitLimits limits) {
    return [limits](const std::string& root) -> std::optional<RootSource> {
        std::optional<GitRoot> g = parse_git_root(root);
        if (!g) return std::nullopt;
        std::shared_ptr<const GitTreeReader> reader = GitTreeReader::open(g->repo_path, g->ref, limits);
        std::error_code ec;
        std::filesystem::path repo = std::filesystem::absolute(g->repo_path, ec);
        std::string repo_text = ec ? g->repo_path : repo.lexically_normal().string();
        while (repo_text.size() > 1 && repo_text.back() == '/') repo_text.pop_back();
        RootSource source;
        source.label = fmt::format("git:{}@{}", repo_text, reader->commit_id());
        source.reader = std::move(reader);
        source.path = g->path;
        return source;
    };
}

}  // namespace agentskills
