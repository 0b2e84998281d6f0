// agentskills-cpp MCP server — the skill index: listing, reading and hashing a skill's files
// through the loader's reader, and the URIs of what is served.
#include "index.hpp"

#include <algorithm>
#include <ctime>
#include <iterator>
#include <stdexcept>
#include <utility>

#include <fmt/core.h>

#include "../../base/byte_scans.hpp"
#include "../../catalog/incomplete_listing.hpp"
#include "../shared/internal.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "agentskills/catalog/loader.hpp"
#include "agentskills/mcp/server.hpp"

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

FileVersion version_of(const FileStat& st) {
    FileVersion v;
    v.size = st.size;
    v.identity = st.identity;
    v.mtime_ns = st.mtime_ns;
    v.ctime_ns = st.ctime_ns;
    return v;
}

}  // namespace

CachedBytes::CachedBytes(std::string bytes, std::shared_ptr<std::atomic<std::uint64_t>> used)
    : bytes_(std::move(bytes)), used_(std::move(used)) {}

CachedBytes::~CachedBytes() { used_->fetch_sub(bytes_.size()); }

FileSource::FileSource(SkillReaderPtr reader) : reader_(std::move(reader)) {
    if (!reader_) reader_ = std::make_shared<LocalSkillReader>();
}

void FileSource::read(const std::string& root, const std::string& rel, std::uint64_t limit, std::string& data,
                      FileVersion& version) const {
    read(*open_beneath(root), root, rel, limit, data, version);
}

std::unique_ptr<const BeneathDirectory> FileSource::open_beneath(const std::string& root) const {
    try {
        return reader_->open_beneath(root);
    } catch (const std::exception& e) {
        throw std::runtime_error(e.what());
    }
}

void FileSource::read(const BeneathDirectory& dir, const std::string& root, const std::string& rel, std::uint64_t limit,
                      std::string& data, FileVersion& version) const {
    const std::int64_t started = wall_clock_ns();
    ReadResult r;
    try {
        r = dir.read_file(rel, static_cast<std::size_t>(limit) + 1);
    } catch (const std::exception& e) {
        throw std::runtime_error(e.what());
    }
    if (r.truncated || r.data.size() > limit) {
        throw std::runtime_error(fmt::format("{} is larger than {} bytes", join_path(root, rel), limit));
    }
    data = std::move(r.data);
    version = version_of(r.stat);
    // A read that does not end where the stat said the file ends saw a file being written.
    if (data.size() != version.size) version.size = ~std::uint64_t{0};
    // Without an identity or a time, a rewrite of the same size cannot be told from no change.
    version.trusted = (version.identity != 0 || version.mtime_ns != 0) && version.mtime_ns < started - RACY_MARGIN_NS &&
                      version.ctime_ns < started - RACY_MARGIN_NS;
}

std::optional<FileVersion> FileSource::stat(const std::string& path) const {
    try {
        const FileStat st = reader_->stat(path);
        if (st.is_symlink || st.kind != EntryKind::file) return std::nullopt;
        return version_of(st);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

bool is_uri_name_part(std::string_view part) {
    return agentskills::detail::skip_ascii(part, 0) == part.size() && is_valid_skill_name(part);
}

std::string skill_root_uri(std::string_view catalog_name) {
    std::string uri(SCHEME);
    uri += catalog_name;
    std::replace(uri.begin() + static_cast<std::ptrdiff_t>(SCHEME.size()), uri.end(), ':', '/');
    return uri;
}

std::string file_uri(std::string_view root_uri, std::string_view rel) {
    std::string uri(root_uri);
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

namespace {

/// Checks the extension's and Agent Skills' rules on an entry; throws a sentence when one fails.
/// `name` is the catalog name: the frontmatter's name must be it, or for `group:skill` its last
/// part (the last segment of the skill's URI, which the extension's clients compare with it).
void check_frontmatter(const nlohmann::json& fm, const std::string& name) {
    const auto it = fm.find("name");
    if (it == fm.end() || !it->is_string()) throw std::runtime_error("the frontmatter has no string \"name\"");
    const std::size_t colon = name.rfind(':');
    const std::string_view own =
        colon == std::string::npos ? std::string_view(name) : std::string_view(name).substr(colon + 1);
    if (it->get_ref<const std::string&>() != own) {
        throw std::runtime_error(
            colon == std::string::npos
                ? fmt::format("the frontmatter name \"{}\" is not the catalog name \"{}\"",
                              it->get_ref<const std::string&>(), name)
                : fmt::format("the frontmatter name \"{}\" is not \"{}\", the last part of the catalog name \"{}\"",
                              it->get_ref<const std::string&>(), own, name));
    }
    // Each part is one segment of the skill's URI: in the extension's name rule, it needs no
    // escaping and the URI reads back to this skill.
    for (std::size_t start = 0;;) {
        const std::size_t end = std::min(name.find(':', start), name.size());
        const std::string_view part = std::string_view(name).substr(start, end - start);
        if (!is_uri_name_part(part)) {
            throw std::runtime_error(
                part.size() == name.size()
                    ? fmt::format("the name \"{}\" is not 1-64 ASCII lowercase letters, digits and single hyphens",
                                  name)
                    : fmt::format("the part \"{}\" of the catalog name \"{}\" is not 1-64 ASCII lowercase "
                                  "letters, digits and single hyphens",
                                  part, name));
        }
        if (end == name.size()) break;
        start = end + 1;
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

/// Every regular file below `root` (relative, '/'-separated; SKILL.md first, then by path) and
/// every directory, by the library's one resource walk: symbolic links are never followed and
/// never listed, other special files are left out, hidden names are served.
std::vector<std::string> walk(const FileSource& source, const std::string& root, std::size_t max_depth,
                              std::set<std::string>& dirs) {
    ResourceList listed;
    try {
        listed = list_skill_resources(*source.reader(), root,
                                      {.max_resources = SKILL_MAX_RESOURCES - 1,  // and SKILL.md
                                       .include_hidden = true,
                                       .include_symlinks = false,
                                       .list_directories = true,
                                       .max_depth = max_depth});
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("cannot list {}: {}", root, e.what()));
    }
    if (listed.omitted > 0) throw std::runtime_error(fmt::format("it has more than {} files", SKILL_MAX_RESOURCES));
    if (listed.incomplete)
        throw std::runtime_error(agentskills::detail::incomplete_listing_message(listed, root, max_depth));
    dirs.insert("");
    dirs.insert(listed.directories.begin(), listed.directories.end());
    std::vector<std::string> rels{"SKILL.md"};
    std::vector<std::string> others;
    for (auto& r : listed.resources) others.push_back(std::move(r.path));
    std::sort(others.begin(), others.end());
    rels.insert(rels.end(), std::make_move_iterator(others.begin()), std::make_move_iterator(others.end()));
    return rels;
}

}  // namespace

std::string entry_json_text(const SkillEntry& entry) {
    // The bytes nlohmann's dump gives the object {uri, frontmatter, resources: [{uri, digest,
    // size}...]}: keys in its order (sorted), no spaces. Only the frontmatter, which can hold
    // anything, goes through nlohmann; the rest is URIs, digests and sizes, written directly
    // rather than built as a tree (a copy of the frontmatter among them) and dumped.
    std::string frontmatter = dump(entry.frontmatter);
    std::string out;
    out.reserve(frontmatter.size() + 64 + 2 * entry.uri.size() + entry.files.size() * (128 + entry.uri.size()));
    out += R"({"frontmatter":)";
    out += frontmatter;
    out += R"(,"resources":[)";
    for (std::size_t i = 0; i < entry.files.size(); ++i) {
        const SkillFile& f = entry.files[i];
        out += i == 0 ? R"({"digest":)" : R"(,{"digest":)";
        append_json_string(out, f.digest);
        out += R"(,"size":)";
        out += std::to_string(f.size);
        out += R"(,"uri":)";
        append_json_string(out, f.uri);
        out += '}';
    }
    out += R"(],"uri":)";
    append_json_string(out, entry.uri);
    out += '}';
    return out;
}

EntryPtr build_entry(const SkillManifest& manifest, std::shared_ptr<const FileSource> source, std::size_t max_depth,
                     const ByteBudget& budget, const KnownFiles* known) {
    auto entry = std::make_shared<SkillEntry>();
    entry->manifest = manifest;
    entry->name = manifest.name;
    entry->root_uri = skill_root_uri(manifest.name);
    entry->uri = entry->root_uri + "/SKILL.md";
    entry->source = source;
    if (path_basename(manifest.skill_file) != "SKILL.md") {
        throw std::runtime_error("its skill file is not named SKILL.md");
    }
    const std::vector<std::string> rels = walk(*source, manifest.root, max_depth, entry->dirs);
    // Every file and directory is listed only under a URI that a read takes back (the one parser
    // of skill:// URIs): a name with a control character or bytes that are not UTF-8, or a path
    // over the URI bounds, would be listed and then refused.
    const auto check_uri = [](const std::string& uri, std::string_view what) {
        if (std::string why; !parse_skill_uri(uri, why)) {
            throw std::runtime_error(fmt::format("its {} {} cannot be read back by that URI: {}", what, uri, why));
        }
    };
    for (const auto& d : entry->dirs) {
        if (!d.empty()) check_uri(file_uri(entry->root_uri, d), "directory");
    }
    std::uint64_t total = 0;
    std::string bytes;                            // one buffer for every file of the skill
    std::unique_ptr<const BeneathDirectory> dir;  // the skill directory, opened at its first read
    for (const auto& rel : rels) {
        SkillFile f;
        f.rel = rel;
        f.uri = file_uri(entry->root_uri, rel);
        check_uri(f.uri, "file");
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
            if (!dir) dir = source->open_beneath(manifest.root);
            source->read(*dir, manifest.root, rel, SKILL_MAX_TOTAL_BYTES - total, bytes, f.version);
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
        f.mime = rel == "SKILL.md" ? "text/markdown" : std::string(media_type_for(rel, f.text));
        if (rel == "SKILL.md") {
            if (!f.text) throw std::runtime_error("SKILL.md is not valid UTF-8");
            std::optional<std::string> outside_sdk;
            entry->frontmatter = frontmatter_json(*content, max_depth, 100000, outside_sdk);
            if (outside_sdk) {
                throw std::runtime_error(fmt::format(
                    "the frontmatter has {}, which the official MCP SDK's frontmatter reader does not read, so its "
                    "clients could not verify the skill",
                    *outside_sdk));
            }
            check_frontmatter(entry->frontmatter, manifest.name);
        }
        entry->by_rel[rel] = entry->files.size();
        entry->files.push_back(std::move(f));
    }
    entry->json_text = entry_json_text(*entry);
    return entry;
}

}  // namespace agentskills::mcp::detail
