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

    // The object `ref` names, found without loading any object: a full object id, a reference by
    // git's rules for short names ("main", "v1", "origin/main", "refs/...", "HEAD"), or an
    // abbreviated id, in git_revparse_single's order. nullopt for anything else (a revision
    // expression such as "main~1", a `git describe` name).
    std::optional<git_oid> named_id(const std::string& repo_path) const {
        const bool hex = ref.find_first_not_of("0123456789abcdefABCDEF") == std::string::npos;
        git_oid oid{};
        if (hex && ref.size() == GIT_OID_HEXSZ && git_oid_fromstr(&oid, ref.c_str()) == 0 &&
            git_odb_exists(odb.get(), &oid) != 0) {
            return oid;
        }
        git_reference* named = nullptr;
        if (git_reference_dwim(&named, repo.get(), ref.c_str()) == 0) {
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
        if (hex && ref.size() >= GIT_OID_MINPREFIXLEN && ref.size() < GIT_OID_HEXSZ &&
            git_oid_fromstrn(&oid, ref.c_str(), ref.size()) == 0) {
            git_oid full{};
            if (git_odb_exists_prefix(&full, odb.get(), &oid, ref.size()) == 0) return full;
        }
        return std::nullopt;
    }

    // Follows `oid` through annotated tags to a commit, reading each object's header first: a
    // commit or tag over max_commit_bytes is refused before it is loaded (its message is free
    // text, and a few hundred kilobytes of a packed repository can hold a gigabyte of it).
    ObjectPtr load_commit(git_oid oid, const std::string& repo_path) const {
        for (;;) {
            std::size_t size = 0;
            git_object_t type = GIT_OBJECT_INVALID;
            if (git_odb_read_header(&size, &type, odb.get(), &oid) != 0) {
                throw IoError(fmt::format("cannot resolve ref '{}' in '{}': {}", ref, repo_path, last_git_error()));
            }
            if (type != GIT_OBJECT_COMMIT && type != GIT_OBJECT_TAG) {
                throw IoError(fmt::format("ref '{}' in '{}' names no commit: it leads to a {}", ref, repo_path,
                                          git_object_type2string(type)));
            }
            if (size > limits.max_commit_bytes) {
                throw IoError(
                    fmt::format("cannot resolve ref '{}' in '{}': a {} object of {} bytes, more than the "
                                "limit of {}",
                                ref, repo_path, git_object_type2string(type), size, limits.max_commit_bytes));
            }
            git_object* object = nullptr;
            if (git_object_lookup(&object, repo.get(), &oid, type) != 0) {
                throw IoError(fmt::format("cannot resolve ref '{}' in '{}': {}", ref, repo_path, last_git_error()));
            }
            ObjectPtr owned(object);
            if (type == GIT_OBJECT_COMMIT) return owned;
            oid = *git_tag_target_id(reinterpret_cast<const git_tag*>(object));
        }
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

    ObjectPtr commit_object;
    if (const std::optional<git_oid> named = impl->named_id(repo_path)) {
        commit_object = impl->load_commit(*named, repo_path);
    } else {
        // A revision expression: libgit2 walks it, loading the objects on the way.
        git_object* object = nullptr;
        if (const int rc = git_revparse_single(&object, repo, impl->ref.c_str()); rc != 0) {
            if (rc == GIT_ENOTFOUND) {
                throw NotFoundError(fmt::format("ref '{}' not found in '{}'", ref, repo_path));
            }
            throw IoError(fmt::format("cannot resolve ref '{}' in '{}': {}", ref, repo_path, last_git_error()));
        }
        const ObjectPtr named_object(object);
        git_object* peeled = nullptr;
        if (git_object_peel(&peeled, object, GIT_OBJECT_COMMIT) != 0) {
            throw IoError(fmt::format("ref '{}' in '{}' names no commit: {}", ref, repo_path, last_git_error()));
        }
        commit_object.reset(peeled);
    }
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
