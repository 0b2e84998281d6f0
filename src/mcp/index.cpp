// agentskills-cpp MCP server — the skill index: listing, reading and hashing a skill's files
// through the loader's reader, and the URIs of what is served.
#include "index.hpp"

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <stdexcept>
#include <utility>

#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../local_fs.hpp"
#include "agentskills/mcp_server.hpp"
#include "agentskills/names.hpp"
#include "internal.hpp"

namespace agentskills::mcp::detail {

namespace {

/// A version is trusted only when its times are older than the read by this much: more than the
/// timestamp granularity of any file system in use (FAT has 2 s).
constexpr std::int64_t RACY_MARGIN_NS = 3'000'000'000;

std::int64_t wall_clock_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

std::int64_t ns_of(const timespec& ts) { return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec; }

FileVersion version_of(const struct stat& st) {
    FileVersion v;
    v.size = static_cast<std::uint64_t>(st.st_size);
    v.identity = static_cast<std::uint64_t>(st.st_ino);
    v.device = static_cast<std::uint64_t>(st.st_dev);
    v.mtime_ns = ns_of(st.st_mtim);
    v.ctime_ns = ns_of(st.st_ctim);
    return v;
}

FileVersion version_of(const FileStat& st) {
    FileVersion v;
    v.size = st.size;
    v.identity = st.identity;
    v.mtime_ns = st.mtime_ns;
    return v;
}

/// Reads a local regular file whole. The last path component is not followed if it is a symbolic
/// link and a FIFO or device is refused before any read, so a file swapped after listing can
/// neither redirect the read nor block it.
void read_local(const std::string& path, std::uint64_t limit, std::string& data, FileVersion& version) {
    data.clear();
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot open {}", path));
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        throw std::runtime_error(fmt::format("{} is not a regular file", path));
    }
    if (static_cast<std::uint64_t>(st.st_size) > limit) {
        throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
    }
    version = version_of(st);
    // Read straight into the string: its size is the file's plus one byte, so that growth since
    // the fstat shows as a longer read (and a short read as a shorter string).
    data.resize(static_cast<std::size_t>(st.st_size) + 1);
    std::size_t used = 0;
    for (;;) {
        if (used == data.size()) {
            if (data.size() > limit) throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
            data.resize(data.size() * 2);
        }
        const ssize_t n = ::read(fd, data.data() + used, data.size() - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(fmt::format("cannot read {}", path));
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
    }
    data.resize(used);
    if (data.size() > limit) throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
    // A read that does not end where the fstat said the file ends saw a file being written.
    if (used != version.size) version.size = ~std::uint64_t{0};
}

}  // namespace

CachedBytes::CachedBytes(std::string bytes, std::shared_ptr<std::atomic<std::uint64_t>> used)
    : bytes_(std::move(bytes)), used_(std::move(used)) {}

CachedBytes::~CachedBytes() { used_->fetch_sub(bytes_.size()); }

FileSource::FileSource(SkillReaderPtr reader) : reader_(std::move(reader)) {
    if (!reader_) reader_ = std::make_shared<LocalSkillReader>();
    local_ = reader_->is_local();
    if (const auto* l = dynamic_cast<const LocalSkillReader*>(reader_.get())) base_ = l->base_directory();
}

void FileSource::read(const std::string& path, std::uint64_t limit, std::string& data, FileVersion& version) const {
    const std::int64_t started = wall_clock_ns();
    if (local_) {
        const std::string native =
            base_.empty() || (!path.empty() && path.front() == '/') ? path : join_path(base_, path);
        read_local(native, limit, data, version);
        version.trusted = version.mtime_ns < started - RACY_MARGIN_NS && version.ctime_ns < started - RACY_MARGIN_NS;
        return;
    }
    FileStat st;
    try {
        st = reader_->stat(path);
    } catch (const std::exception& e) {
        throw std::runtime_error(e.what());
    }
    if (st.is_symlink || st.kind != EntryKind::file) {
        throw std::runtime_error(fmt::format("{} is not a regular file", path));
    }
    if (st.size > limit) throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
    ReadResult r;
    try {
        r = reader_->read_file(path, static_cast<std::size_t>(limit) + 1);
    } catch (const std::exception& e) {
        throw std::runtime_error(e.what());
    }
    if (r.truncated || r.data.size() > limit) {
        throw std::runtime_error(fmt::format("{} is larger than {} bytes", path, limit));
    }
    data = std::move(r.data);
    version = version_of(st);
    if (data.size() != version.size) version.size = ~std::uint64_t{0};  // changed between stat and read
    // Without an identity or a time, a rewrite of the same size cannot be told from no change.
    version.trusted = (version.identity != 0 || version.mtime_ns != 0) && version.mtime_ns < started - RACY_MARGIN_NS;
}

std::optional<FileVersion> FileSource::stat(const std::string& path) const {
    if (local_) {
        const std::string native =
            base_.empty() || (!path.empty() && path.front() == '/') ? path : join_path(base_, path);
        struct stat st {};
        if (::lstat(native.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
        return version_of(st);
    }
    try {
        const FileStat st = reader_->stat(path);
        if (st.is_symlink || st.kind != EntryKind::file) return std::nullopt;
        return version_of(st);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::vector<DirEntry> FileSource::list(const std::string& path) const {
    if (!local_) return reader_->list_dir(path);
    // The local file system, through the one local listing (local_fs.hpp): each child's kind
    // and link-ness from the directory entry's type where the file system gives it (no stat per
    // file); sizes and times are not needed here.
    const std::string native = base_.empty() || (!path.empty() && path.front() == '/') ? path : join_path(base_, path);
    const int fd = ::open(native.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot open the directory {}", path));
    std::string names;
    std::vector<agentskills::detail::local::ListedEntry> items;
    // Links are not followed: a symlink is listed as a symlink of kind other.
    if (agentskills::detail::local::list_directory(fd, {.follow_symlinks = false, .stats = false}, names, items) != 0) {
        throw std::runtime_error(fmt::format("cannot list {}", path));
    }
    std::vector<DirEntry> out;
    out.reserve(items.size());
    for (const auto& item : items) {
        DirEntry entry;
        entry.name.assign(names, item.offset, item.size);
        entry.kind = item.kind;
        entry.is_symlink = item.is_symlink;
        out.push_back(std::move(entry));
    }
    return out;
}

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

std::string file_uri(std::string_view name, std::string_view rel) {
    std::string uri = std::string(SCHEME) + std::string(name);
    std::size_t start = 0;
    while (start <= rel.size()) {
        std::size_t end = rel.find('/', start);
        if (end == std::string_view::npos) end = rel.size();
        uri += '/';
        uri += encode_segment(rel.substr(start, end - start));
        start = end + 1;
    }
    return uri;
}

std::optional<ParsedUri> parse_skill_uri(std::string_view uri) {
    if (uri.substr(0, SCHEME.size()) != SCHEME) return std::nullopt;
    uri.remove_prefix(SCHEME.size());
    if (uri.find_first_of("?#") != std::string_view::npos) return std::nullopt;
    ParsedUri out;
    std::size_t start = 0;
    bool first = true;
    while (start <= uri.size()) {
        std::size_t end = uri.find('/', start);
        if (end == std::string_view::npos) end = uri.size();
        auto decoded = decode_percent(uri.substr(start, end - start));
        if (!decoded || decoded->empty() || *decoded == "." || *decoded == ".." ||
            decoded->find('/') != std::string::npos || decoded->find('\0') != std::string::npos) {
            return std::nullopt;
        }
        if (first) {
            out.name = std::move(*decoded);
            first = false;
        } else {
            if (!out.rel.empty()) out.rel += '/';
            out.rel += *decoded;
        }
        start = end + 1;
    }
    return out;
}

namespace {

bool is_skill_name(std::string_view name) {
    if (name.empty() || name.size() > SKILL_MAX_NAME_LENGTH) return false;
    if (name.front() == '-' || name.back() == '-' || name.find("--") != std::string_view::npos) return false;
    return std::all_of(name.begin(), name.end(),
                       [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; });
}

/// Checks the extension's and Agent Skills' rules on an entry; throws a sentence when one fails.
void check_frontmatter(const nlohmann::json& fm, const std::string& name) {
    const auto it = fm.find("name");
    if (it == fm.end() || !it->is_string()) throw std::runtime_error("the frontmatter has no string \"name\"");
    if (it->get_ref<const std::string&>() != name) {
        throw std::runtime_error(fmt::format("the frontmatter name \"{}\" is not the catalog name \"{}\"",
                                             it->get_ref<const std::string&>(), name));
    }
    if (!is_skill_name(name)) {
        throw std::runtime_error(
            fmt::format("the name \"{}\" is not 1-64 lowercase letters, digits and single hyphens", name));
    }
    const auto d = fm.find("description");
    if (d == fm.end() || !d->is_string()) throw std::runtime_error("the frontmatter has no string \"description\"");
    const std::size_t dn = code_point_count(d->get_ref<const std::string&>());
    if (dn == 0 || dn > SKILL_MAX_DESCRIPTION_LENGTH) {
        throw std::runtime_error("the description is not 1-1024 characters");
    }
    if (const auto c = fm.find("compatibility"); c != fm.end()) {
        if (!c->is_string() || c->get_ref<const std::string&>().empty() ||
            code_point_count(c->get_ref<const std::string&>()) > SKILL_MAX_COMPATIBILITY_LENGTH) {
            throw std::runtime_error("compatibility is not a string of 1-500 characters");
        }
    }
    if (const auto m = fm.find("metadata"); m != fm.end()) {
        if (!m->is_object() ||
            !std::all_of(m->begin(), m->end(), [](const nlohmann::json& v) { return v.is_string(); })) {
            throw std::runtime_error("metadata does not map strings to strings");
        }
    }
}

/// Every regular file below `root` (relative, '/'-separated) and every directory; symbolic links
/// are never followed and never listed, other special files are ignored.
void walk(const FileSource& source, const std::string& root, std::size_t max_depth, std::vector<std::string>& files,
          std::set<std::string>& dirs) {
    struct Pending {
        std::string rel;
        std::size_t depth;
    };
    std::vector<Pending> stack{{"", 0}};
    dirs.insert("");
    while (!stack.empty()) {
        Pending dir = std::move(stack.back());
        stack.pop_back();
        std::vector<DirEntry> children;
        try {
            children = source.list(dir.rel.empty() ? root : join_path(root, dir.rel));
        } catch (const std::exception& e) {
            throw std::runtime_error(fmt::format("cannot list {}: {}", root, e.what()));
        }
        if (dir.depth >= max_depth && !children.empty()) {
            throw std::runtime_error(fmt::format("{} nests deeper than {} directories", root, max_depth));
        }
        for (auto& child : children) {
            if (child.is_symlink) continue;  // never followed, never served (docs/mcp.md)
            std::string rel = dir.rel.empty() ? child.name : dir.rel + "/" + child.name;
            if (child.kind == EntryKind::directory) {
                dirs.insert(rel);
                stack.push_back({std::move(rel), dir.depth + 1});
            } else if (child.kind == EntryKind::file) {
                files.push_back(std::move(rel));
                if (files.size() > SKILL_MAX_RESOURCES) {
                    throw std::runtime_error(fmt::format("it has more than {} files", SKILL_MAX_RESOURCES));
                }
            }
        }
    }
}

}  // namespace

EntryPtr build_entry(const SkillManifest& manifest, std::shared_ptr<const FileSource> source, std::size_t max_depth,
                     const ByteBudget& budget, const KnownFiles* known) {
    auto entry = std::make_shared<SkillEntry>();
    entry->manifest = manifest;
    entry->name = manifest.name;
    entry->root_uri = std::string(SCHEME) + manifest.name;
    entry->uri = entry->root_uri + "/SKILL.md";
    entry->source = source;
    if (path_basename(manifest.skill_file) != "SKILL.md") {
        throw std::runtime_error("its skill file is not named SKILL.md");
    }
    std::vector<std::string> rels;
    walk(*source, manifest.root, max_depth, rels, entry->dirs);
    std::sort(rels.begin(), rels.end(), [](const std::string& a, const std::string& b) {
        if ((a == "SKILL.md") != (b == "SKILL.md")) return a == "SKILL.md";
        return a < b;
    });
    if (rels.empty() || rels.front() != "SKILL.md") throw std::runtime_error("SKILL.md is missing");
    std::uint64_t total = 0;
    std::string bytes;  // one buffer for every file of the skill
    for (const auto& rel : rels) {
        SkillFile f;
        f.rel = rel;
        f.uri = file_uri(manifest.name, rel);
        f.path = join_path(manifest.root, rel);
        // A file indexed before whose version is unchanged and was trusted keeps its digest and
        // cached bytes; it is not read again (SKILL.md is, for its frontmatter, unless cached).
        const SkillFile* old = nullptr;
        if (known != nullptr) {
            const auto it = known->find(f.path);
            if (it != known->end() && it->second->version.trusted) {
                const auto now = source->stat(f.path);
                if (now && now->same_file_state(it->second->version)) old = it->second;
            }
        }
        const std::string* content = &bytes;  // the file's bytes, for SKILL.md's frontmatter
        if (old != nullptr && (rel != "SKILL.md" || old->cached)) {
            if (old->size > SKILL_MAX_TOTAL_BYTES - total) {
                throw std::runtime_error(
                    fmt::format("{} is larger than {} bytes", f.path, SKILL_MAX_TOTAL_BYTES - total));
            }
            f.size = old->size;
            f.digest = old->digest;
            f.text = old->text;
            f.version = old->version;
            f.cached = old->cached;
            if (f.cached) content = &f.cached->bytes();
        } else {
            source->read(f.path, SKILL_MAX_TOTAL_BYTES - total, bytes, f.version);
            f.size = bytes.size();
            f.digest = sha256_digest(bytes);
            f.text = is_valid_utf8(bytes);
            // A file read while it was being written is served, but never from the cache.
            if (f.version.size != f.size) f.version.trusted = false;
            if (f.version.trusted && budget.used->fetch_add(f.size) + f.size <= budget.limit) {
                // The buffer itself goes into the cache (no copy); the next file gets a new one.
                f.cached = std::make_shared<const CachedBytes>(std::move(bytes), budget.used);
                bytes = std::string();
                content = &f.cached->bytes();
            } else if (f.version.trusted) {
                budget.used->fetch_sub(f.size);
            }
        }
        total += f.size;
        f.mime = rel == "SKILL.md" ? "text/markdown" : mime_type_for(path_basename(rel), f.text);
        if (rel == "SKILL.md") {
            if (!f.text) throw std::runtime_error("SKILL.md is not valid UTF-8");
            entry->frontmatter = frontmatter_json(*content, max_depth);
            check_frontmatter(entry->frontmatter, manifest.name);
        }
        entry->by_rel[rel] = entry->files.size();
        entry->files.push_back(std::move(f));
    }
    nlohmann::json resources = nlohmann::json::array();
    for (const auto& f : entry->files) resources.push_back({{"uri", f.uri}, {"digest", f.digest}, {"size", f.size}});
    entry->json_text = dump(
        nlohmann::json{{"uri", entry->uri}, {"frontmatter", entry->frontmatter}, {"resources", std::move(resources)}});
    return entry;
}

}  // namespace agentskills::mcp::detail
