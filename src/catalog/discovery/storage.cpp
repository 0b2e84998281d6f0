// agentskills-cpp — discovery's access to storage: the reader, and for the local file system
// the fast paths of local_fs.cpp. The only place where discovery tells the two apart.
#include <unistd.h>

#include <filesystem>

#include <fmt/core.h>

#include "../../storage/local_fs.hpp"
#include "agentskills/base/errors.hpp"
#include "common.hpp"

namespace agentskills::detail {

Storage::Storage(SkillReaderPtr reader, SkillSources sources)
    : reader_(reader ? std::move(reader) : std::make_shared<const LocalSkillReader>()),
      routed_reader_(reader_),
      local_(reader_->is_local()),
      resolver_(reader_->path_resolver()) {
    if (const auto* local_reader = dynamic_cast<const LocalSkillReader*>(reader_.get())) {
        base_ = local_reader->base_directory();
    }
    install_sources(std::move(sources));
}

std::string Storage::resolve_root(const std::string& root) const {
    try {
        if (local_) return local::absolute_normal(root, base_);
        if (resolver_ != nullptr) return resolver_->resolve(root, "/");
        return normalize_relative_path(root);
    } catch (const std::filesystem::filesystem_error& e) {
        throw PathError(e.what());
    }
}

std::vector<DefaultRoot> Storage::default_roots(const std::vector<AgentFolders>& compat) const {
    if (!local_) return {};
    // A LocalSkillReader with a base directory stands for that directory, not for the process:
    // its walk starts at BASE, and the process user's home folders are not its own.
    return detail::default_roots(base_, compat);
}

std::string Storage::implicit_root() const { return resolver_ != nullptr ? resolver_->resolve(".", "/") : "."; }

std::string Storage::library_key(const std::string& root) const {
    if (!local_ || routed(root)) return root;
    return local::canonical(root).value_or(root);
}

void Storage::list_root(const std::string& root, Listed& out) const {
    if (local_ && !routed(root)) {
        std::vector<local::NameKind> items;
        if (local::list_kinds(root, out.names, items)) {
            // Views only now: the buffer no longer moves.
            out.children.reserve(items.size());
            for (const local::NameKind& item : items) {
                out.children.push_back(RootEntry{std::string_view(out.names).substr(item.offset, item.size), item.kind,
                                                 item.is_symlink, item.special_target});
            }
            return;
        }
        out.names.clear();  // the reader reports the error properly
    }
    out.entries = routed_reader_->list_dir(root);
    out.children.reserve(out.entries.size());
    for (const DirEntry& e : out.entries)
        out.children.push_back(RootEntry{e.name, e.kind, e.is_symlink, e.special_target});
}

std::string Storage::skill_dir(const std::string& child_dir, bool is_symlink) const {
    if (local_ && is_symlink && !routed(child_dir)) return local::canonical(child_dir).value_or(child_dir);
    return child_dir;
}

std::string Storage::skill_dir(std::string&& child_dir, bool is_symlink) const {
    if (local_ && is_symlink && !routed(child_dir)) return local::canonical(child_dir).value_or(child_dir);
    return std::move(child_dir);
}

bool Storage::same_directory(const std::string& a, const std::string& b) const {
    if (a == b) return true;
    if (!local_ || routed(a) || routed(b)) return false;
    const std::optional<std::string> ca = local::canonical(a);
    const std::optional<std::string> cb = local::canonical(b);
    return ca && cb && *ca == *cb;
}

Storage::Fresh Storage::read_fresh(const std::string& path, std::size_t max_bytes, FileStat& st, std::string_view& data,
                                   bool& truncated, int dir_fd, const char* relative) const {
    if (!local_ || routed(path)) return Fresh::general;
    switch (local::read_new_file(path, max_bytes, st, data, truncated, dir_fd, relative)) {
        case local::FreshRead::read:
            return Fresh::read;
        case local::FreshRead::missing:
            return Fresh::missing;
        case local::FreshRead::fallback:
            break;
    }
    return Fresh::general;
}

std::vector<int> Storage::open_roots(const std::vector<Root>& roots) const {
    std::vector<int> fds(roots.size(), -1);
    if (!local_) return fds;
    for (std::size_t i = 0; i < roots.size(); ++i) {
        if (roots[i].failure.empty() && !routed(roots[i].path)) {
            fds[i] = local::open_directory(roots[i].path).release();  // -1 when it cannot be opened
        }
    }
    return fds;
}

std::optional<local::DirectoryStamp> Storage::stamp_root(const Root& root) const {
    if (!local_ || !root.failure.empty() || routed(root.path)) return std::nullopt;
    return local::directory_stamp(root.path);
}

RootStamps stamp_roots(const std::vector<Root>& roots, const Storage& storage) {
    RootStamps out;
    out.taken_ns = local::realtime_ns();
    out.stamps.reserve(roots.size());
    for (const Root& root : roots) out.stamps.push_back(storage.stamp_root(root));
    return out;
}

void Storage::close_roots(std::vector<int>& fds) noexcept {
    for (int& fd : fds) {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
}

Storage::Probe Storage::probe(const std::string& path, int root_fd, const std::string& relative, FileStat& st) const {
    if (local_ && !routed(path)) {
        bool missing = false;
        if (std::optional<FileStat> now = local::lstat_plain(path, root_fd, relative, missing)) {
            st = *now;
            return Probe::found;
        }
        if (missing) return Probe::missing;
    }
    try {
        st = routed_reader_->stat(path);
        return Probe::found;
    } catch (const NotFoundError&) {
        return Probe::missing;
    } catch (const std::exception&) {
        return Probe::failed;
    }
}

}  // namespace agentskills::detail
