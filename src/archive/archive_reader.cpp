// agentskills-cpp — ArchiveReader: a zip archive checked, indexed and read in memory (libzip).
#include "agentskills/archive/archive_reader.hpp"

#include <zip.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "../storage/path_rules.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"

namespace agentskills {

std::string_view archive_problem_name(ArchiveProblem problem) noexcept {
    switch (problem) {
        case ArchiveProblem::too_large:
            return "too-large";
        case ArchiveProblem::malformed:
            return "malformed";
        case ArchiveProblem::too_many_entries:
            return "too-many-entries";
        case ArchiveProblem::file_too_large:
            return "file-too-large";
        case ArchiveProblem::total_too_large:
            return "total-too-large";
        case ArchiveProblem::ratio_too_high:
            return "ratio-too-high";
        case ArchiveProblem::size_mismatch:
            return "size-mismatch";
        case ArchiveProblem::unsafe_name:
            return "unsafe-name";
        case ArchiveProblem::duplicate_name:
            return "duplicate-name";
        case ArchiveProblem::conflicting_kind:
            return "conflicting-kind";
        case ArchiveProblem::symlink:
            return "symlink";
        case ArchiveProblem::not_regular:
            return "not-regular";
        case ArchiveProblem::encrypted:
            return "encrypted";
        case ArchiveProblem::unsupported:
            return "unsupported";
        case ArchiveProblem::no_skill:
            return "no-skill";
    }
    return "unknown";
}

namespace {

// An entry name fit for a message: valid UTF-8, control characters as \xNN.
std::string printable(std::string_view name) {
    const std::string text = valid_utf8(name);
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto byte = static_cast<unsigned char>(ch);
        if (byte < 0x20 || byte == 0x7F) {
            out += fmt::format("\\x{:02x}", byte);
        } else {
            out += ch;
        }
    }
    return out;
}

[[noreturn]] void refuse(ArchiveProblem problem, std::string_view entry, std::string_view why) {
    std::string shown = printable(entry);
    std::string message =
        entry.empty() ? fmt::format("archive refused ({}): {}", archive_problem_name(problem), why)
                      : fmt::format("archive refused ({}): entry '{}': {}", archive_problem_name(problem), shown, why);
    throw ArchiveError(problem, std::move(shown), message);
}

std::uint16_t le16(std::string_view b, std::size_t at) {
    return static_cast<std::uint16_t>(static_cast<unsigned char>(b[at]) |
                                      (static_cast<unsigned>(static_cast<unsigned char>(b[at + 1])) << 8));
}

std::uint64_t le_n(std::string_view b, std::size_t at, std::size_t n) {
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
    return v;
}

// What the end-of-central-directory record declares: the entry count and where the central
// directory lies. From its zip64 form when a zip64 locator precedes it, as libzip reads it.
struct EndRecord {
    std::uint64_t count = 0;
    std::uint64_t directory_offset = 0;
    std::uint64_t directory_size = 0;
};

// The end record, read before libzip allocates anything per entry. nullopt when no consistent
// record is found (libzip then decides whether the bytes are an archive at all).
//
// A record counts when its comment ends the file: that is every record libzip (ZIP_CHECKCONS)
// tries, and it keeps the one whose entries span the most bytes, while Info-ZIP's unzip and
// Python's zipfile take the last. Two such records could show a reviewer's tool one archive and
// the loader another, so a second one refuses the archive.
std::optional<EndRecord> end_record(std::string_view b) {
    constexpr std::size_t eocd_size = 22;
    if (b.size() < eocd_size) return std::nullopt;
    const std::size_t last = b.size() - eocd_size;
    const std::size_t first = last > 0xFFFF ? last - 0xFFFF : 0;
    std::optional<EndRecord> found;
    for (std::size_t pos = last + 1; pos-- > first;) {
        if (b.compare(pos, 4, "PK\x05\x06") != 0) continue;
        if (pos + eocd_size + le16(b, pos + 20) != b.size()) continue;  // the comment must end the file
        if (found) {
            refuse(ArchiveProblem::malformed, "",
                   fmt::format("two end-of-central-directory records (at bytes {} and later) that readers could "
                               "choose between",
                               pos));
        }
        EndRecord end{.count = std::max(le16(b, pos + 8), le16(b, pos + 10)),
                      .directory_offset = le_n(b, pos + 16, 4),
                      .directory_size = le_n(b, pos + 12, 4)};
        if (pos >= 20 && b.compare(pos - 20, 4, "PK\x06\x07") == 0) {
            const std::uint64_t at = le_n(b, pos - 20 + 8, 8);
            if (b.size() >= 56 && at <= b.size() - 56 &&
                b.compare(static_cast<std::size_t>(at), 4, "PK\x06\x06") == 0) {
                const auto z = static_cast<std::size_t>(at);
                end = EndRecord{.count = std::max(le_n(b, z + 24, 8), le_n(b, z + 32, 8)),
                                .directory_offset = le_n(b, z + 48, 8),
                                .directory_size = le_n(b, z + 40, 8)};
            }
        }
        found = end;
    }
    return found;
}

// Where the local header of the entry whose central header is `header` lies (libzip's reading):
// the header's offset, or, when that is 0xFFFFFFFF, the zip64 extra field's (its values in order,
// each there only when the header's own is 0xFFFFFFFF). nullopt when there is no such field.
std::optional<std::uint64_t> local_header_offset(std::string_view header, std::size_t name_size) {
    constexpr std::uint64_t in_zip64 = 0xFFFFFFFF;
    const std::uint64_t offset = le_n(header, 42, 4);
    if (offset != in_zip64) return offset;
    std::size_t at = 46 + name_size;
    const std::size_t end = at + le16(header, 30);
    while (end - at >= 4) {
        const std::size_t size = le16(header, at + 2);
        if (end - at - 4 < size) return std::nullopt;
        if (le16(header, at) == 0x0001) {
            std::size_t skip = 0;
            if (le_n(header, 24, 4) == in_zip64) skip += 8;  // the uncompressed size
            if (le_n(header, 20, 4) == in_zip64) skip += 8;  // the compressed size
            if (size < skip + 8) return std::nullopt;
            return le_n(header, at + 4 + skip, 8);
        }
        at += 4 + size;
    }
    return std::nullopt;
}

// An Info-ZIP Unicode Path field (0x7075: version, CRC-32 of the header's name, the name in UTF-8)
// in `extra`, a header's extra fields, that names the entry otherwise than `name`, its header's
// name: refused. libzip (and unzip) take that field's name in place of the header's whenever the
// CRC matches, even for ZIP_FL_ENC_RAW, and Python's zipfile ignores the field, so the two would
// list `demo/SKILL.md` and `demo/notes.md` for one entry. A field that repeats the header's name
// (what Info-ZIP's zip writes for a UTF-8 name) is accepted. Fields that do not fit are left to
// libzip.
void check_unicode_path(std::string_view extra, std::string_view name) {
    constexpr std::size_t unicode_path = 0x7075;
    constexpr std::size_t before_name = 5;  // the version byte and the CRC-32
    std::size_t at = 0;
    while (extra.size() - at >= 4) {
        const std::size_t size = le16(extra, at + 2);
        if (extra.size() - at - 4 < size) return;
        if (le16(extra, at) == unicode_path && size >= before_name) {
            const std::string_view other = extra.substr(at + 4 + before_name, size - before_name);
            if (other != name) {
                refuse(ArchiveProblem::malformed, name,
                       fmt::format("its Info-ZIP Unicode Path field names it '{}'", printable(other)));
            }
        }
        at += 4 + size;
    }
}

// The name in the local header of the entry whose central header is `header` and name `name`,
// compared byte for byte. libzip's own comparison of the two headers (ZIP_CHECKCONS) turns a NUL
// into a space in both names first, so it found `demo/SKILL.md\0x` (local) and `demo/SKILL.md x`
// (central) equal, and a reader that walks the local headers (a streaming unzipper such as
// bsdtar) would see another name than the loader. A local header that does not lie inside the
// archive is left to libzip (it refuses it).
void check_local_name(std::string_view b, std::string_view header, std::string_view name) {
    constexpr std::size_t local_size = 30;
    const std::optional<std::uint64_t> at = local_header_offset(header, name.size());
    if (!at || b.size() < local_size || *at > b.size() - local_size) return;
    const auto local = static_cast<std::size_t>(*at);
    if (b.compare(local, 4, "PK\x03\x04") != 0) return;
    const std::size_t local_name_size = le16(b, local + 26);
    if (b.size() - local - local_size < local_name_size) return;
    if (const std::string_view local_name = b.substr(local + local_size, local_name_size); local_name != name) {
        refuse(ArchiveProblem::malformed, name, fmt::format("its local header names it '{}'", printable(local_name)));
    }
    const std::size_t local_extra_size = le16(b, local + 28);
    if (b.size() - local - local_size - local_name_size < local_extra_size) return;
    check_unicode_path(b.substr(local + local_size + local_name_size, local_extra_size), name);
}

// The central directory's headers, walked before libzip reads them. libzip reads every header
// the directory holds, not just the declared count (Info-ZIP stores the count modulo 65,536, and
// libzip takes 65,536 more when the headers are there): one small end record could have libzip
// allocate and read hundreds of thousands of entries (690 MB for a 27 MB archive) before its own
// count is checked. And libzip turns a NUL in a name into a space, where unzip and Python's
// zipfile end the name at the NUL: `demo/SKILL.md\0x` would be another file for them than for
// the loader. A directory that does not lie inside the archive is left to libzip (it refuses it).
void check_central_headers(std::string_view b, const EndRecord& end, const ArchiveLimits& limits) {
    constexpr std::size_t header_size = 46;
    if (end.directory_offset > b.size() || end.directory_size > b.size() - end.directory_offset) return;
    auto pos = static_cast<std::size_t>(end.directory_offset);
    const auto stop = static_cast<std::size_t>(end.directory_offset + end.directory_size);
    std::size_t headers = 0;
    while (stop - pos >= header_size && b.compare(pos, 4, "PK\x01\x02") == 0) {
        if (++headers > limits.max_entries) {
            refuse(ArchiveProblem::too_many_entries, "",
                   fmt::format("more than {} entries in the central directory ({} declared)", limits.max_entries,
                               end.count));
        }
        const std::size_t name_size = le16(b, pos + 28);
        const std::size_t rest = name_size + le16(b, pos + 30) + le16(b, pos + 32);
        if (stop - pos - header_size < name_size) return;
        const std::string_view name = b.substr(pos + header_size, name_size);
        if (name.find('\0') != std::string_view::npos) {
            refuse(ArchiveProblem::unsafe_name, name, "a NUL byte in the name");
        }
        if (stop - pos - header_size < rest) return;
        check_unicode_path(b.substr(pos + header_size + name_size, le16(b, pos + 30)), name);
        check_local_name(b, b.substr(pos, header_size + rest), name);
        pos += header_size + rest;
    }
}

// The rules for the path of one entry (without its trailing '/'); `raw` names it in errors. The
// path rules' one scanner, strict: no empty or `.` component, no control character, no `..`.
void check_entry_path(std::string_view path, std::string_view raw, const ArchiveLimits& limits, bool after_nfkc) {
    const char* form = after_nfkc ? " after NFKC" : "";
    if (path.empty()) refuse(ArchiveProblem::unsafe_name, raw, "empty name");
    if (path.front() == '/') refuse(ArchiveProblem::unsafe_name, raw, fmt::format("absolute name{}", form));
    using detail::PathFault;
    const detail::PathScan scan = detail::scan_path(
        path, {.allow_parent = false, .refuse_empty_components = true, .refuse_controls = true}, nullptr);
    switch (scan.fault) {
        case PathFault::none:
            break;
        case PathFault::empty:
            refuse(ArchiveProblem::unsafe_name, raw, "empty name");
        case PathFault::backslash:
            refuse(ArchiveProblem::unsafe_name, raw, fmt::format("backslash in the name{}", form));
        case PathFault::nul:
        case PathFault::control:
            refuse(ArchiveProblem::unsafe_name, raw, "control character in the name");
        case PathFault::empty_component:
            refuse(ArchiveProblem::unsafe_name, raw, fmt::format("empty component{}", form));
        case PathFault::dot:
        case PathFault::parent:
        case PathFault::climbs:
            refuse(ArchiveProblem::unsafe_name, raw, fmt::format("'{}' component{}", scan.component, form));
        case PathFault::tilde:
            refuse(ArchiveProblem::unsafe_name, raw, fmt::format("component starting with '~'{}", form));
        case PathFault::drive:
            refuse(ArchiveProblem::unsafe_name, raw, fmt::format("drive-like component{}", form));
    }
    if (scan.components > limits.max_depth) {
        refuse(ArchiveProblem::unsafe_name, raw,
               fmt::format("{} directory levels, more than the limit of {}", scan.components, limits.max_depth));
    }
}

constexpr std::uint32_t unix_type_mask = 0170000;
constexpr std::uint32_t unix_regular = 0100000;
constexpr std::uint32_t unix_directory = 0040000;
constexpr std::uint32_t unix_symlink = 0120000;
constexpr std::uint32_t dos_volume = 0x08;
constexpr std::uint32_t dos_directory = 0x10;
constexpr std::uint32_t dos_reparse_point = 0x400;  // NTFS links and junctions

// The file type that the external attributes declare: the Unix mode in the upper 16 bits
// (when it has a type) and the DOS attribute bits in the lower ones, whatever the host system.
void check_attributes(std::uint32_t attributes, bool is_dir, std::string_view raw) {
    const std::uint32_t type = (attributes >> 16) & unix_type_mask;
    if (type == unix_symlink) refuse(ArchiveProblem::symlink, raw, "symbolic link entry");
    if (type != 0 && type != unix_regular && type != unix_directory) {
        refuse(ArchiveProblem::not_regular, raw,
               fmt::format("file type {:o} is neither a regular file nor a directory", type));
    }
    if ((attributes & dos_reparse_point) != 0) refuse(ArchiveProblem::symlink, raw, "reparse point (link) entry");
    if ((attributes & dos_volume) != 0) refuse(ArchiveProblem::not_regular, raw, "volume label entry");
    const bool says_dir = type == unix_directory || (type == 0 && (attributes & dos_directory) != 0);
    if (type == unix_regular && is_dir) {
        refuse(ArchiveProblem::not_regular, raw, "a name ending in '/' with the mode of a regular file");
    }
    if (says_dir && !is_dir) refuse(ArchiveProblem::not_regular, raw, "a directory whose name does not end in '/'");
}

struct Node {
    EntryKind kind = EntryKind::directory;
    bool explicit_entry = false;
    std::uint64_t size = 0;
    std::int64_t mtime_ns = 0;
    std::uint64_t index = 0;
    std::uint32_t crc = 0;
    std::vector<std::string> children;
};

std::string parent_of(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string(".") : std::string(path.substr(0, slash));
}

struct ZipCloser {
    void operator()(zip_t* za) const noexcept { zip_discard(za); }
};

}  // namespace

struct ArchiveReader::Impl {
    std::string bytes;
    ArchiveLimits limits;
    std::unique_ptr<zip_t, ZipCloser> zip;
    std::map<std::string, Node, std::less<>> nodes;  // "." is the root
    std::size_t files = 0;
    std::uint64_t total = 0;
    mutable std::mutex read_mutex;  // libzip's archive handle is not safe for concurrent reads

    void open();
    void index_entry(zip_uint64_t index, std::map<std::string, std::string, std::less<>>& nfkc_names);
    void add_node(const std::string& path, Node node, std::string_view raw,
                  std::map<std::string, std::string, std::less<>>& nfkc_names);
    [[nodiscard]] const Node& find(std::string_view path, std::string_view what) const;
    void decompress(const Node& node, std::string_view path, char* out, std::size_t want, bool whole) const;
};

void ArchiveReader::Impl::open() {
    if (bytes.size() > limits.max_archive_bytes) {
        refuse(ArchiveProblem::too_large, "",
               fmt::format("{} bytes, more than the limit of {}", bytes.size(), limits.max_archive_bytes));
    }
    if (bytes.empty()) refuse(ArchiveProblem::malformed, "", "an empty file is not a zip archive");
    if (const std::optional<EndRecord> end = end_record(bytes)) {
        if (end->count > limits.max_entries) {
            refuse(ArchiveProblem::too_many_entries, "",
                   fmt::format("{} entries declared, more than the limit of {}", end->count, limits.max_entries));
        }
        check_central_headers(bytes, *end, limits);
    }
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* source = zip_source_buffer_create(bytes.data(), bytes.size(), 0, &error);
    if (source == nullptr) {
        const std::string why = zip_error_strerror(&error);
        zip_error_fini(&error);
        throw IoError(fmt::format("cannot read the archive: {}", why));
    }
    zip_t* za = zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error);
    if (za == nullptr) {
        zip_source_free(source);
        const bool duplicate = zip_error_code_zip(&error) == ZIP_ER_EXISTS;  // libzip's own name check
        const std::string why = zip_error_strerror(&error);
        zip_error_fini(&error);
        if (duplicate) refuse(ArchiveProblem::duplicate_name, "", "two entries with one name");
        refuse(ArchiveProblem::malformed, "", fmt::format("not a readable zip archive: {}", why));
    }
    zip_error_fini(&error);
    zip.reset(za);

    const zip_int64_t count = zip_get_num_entries(za, 0);
    if (count < 0) refuse(ArchiveProblem::malformed, "", "no entry count");
    if (static_cast<std::uint64_t>(count) > limits.max_entries) {
        refuse(ArchiveProblem::too_many_entries, "",
               fmt::format("{} entries, more than the limit of {}", count, limits.max_entries));
    }
    nodes.emplace(".", Node{});
    std::map<std::string, std::string, std::less<>> nfkc_names;  // NFKC form -> path
    for (zip_uint64_t i = 0; i < static_cast<zip_uint64_t>(count); ++i) index_entry(i, nfkc_names);
    // The whole archive's ratio too: many small files (each under the threshold), or entries
    // that share overlapping compressed data, expand no more than max_ratio times the archive.
    const std::uint64_t archive_bytes = std::max<std::uint64_t>(bytes.size(), 1);
    if (limits.max_ratio != 0 && total >= limits.ratio_threshold_bytes && total / archive_bytes >= limits.max_ratio &&
        total > archive_bytes * limits.max_ratio) {
        refuse(ArchiveProblem::ratio_too_high, "",
               fmt::format("{} bytes uncompressed from an archive of {} bytes, a ratio over the limit of {}", total,
                           bytes.size(), limits.max_ratio));
    }
    for (auto& [path, node] : nodes) {
        if (path == ".") continue;
        const std::size_t slash = path.rfind('/');
        nodes.find(parent_of(path))
            ->second.children.push_back(slash == std::string::npos ? path : path.substr(slash + 1));
    }
    // Every file's data is decompressed once, now, through a small buffer (at most
    // max_total_bytes in all, bounded above): a file whose data does not match its header (its
    // size, its CRC, a broken stream) refuses the whole archive here, so the commands that read
    // only SKILL.md (list, validate, to-prompt) and those that read every file (lock, mcp)
    // accept and refuse the same archives. The bytes are kept, so a later read finds the same.
    for (const auto& [path, node] : nodes) {
        if (node.kind == EntryKind::file) decompress(node, path, nullptr, static_cast<std::size_t>(node.size), true);
    }
}

void ArchiveReader::Impl::index_entry(zip_uint64_t index, std::map<std::string, std::string, std::less<>>& nfkc_names) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(zip.get(), index, ZIP_FL_ENC_RAW, &st) != 0 || (st.valid & ZIP_STAT_NAME) == 0 ||
        st.name == nullptr) {
        refuse(ArchiveProblem::malformed, "", fmt::format("entry {} cannot be read", index));
    }
    const std::string_view raw = st.name;
    if (raw.size() > limits.max_name_bytes) {
        refuse(ArchiveProblem::unsafe_name, raw.substr(0, 64),
               fmt::format("name of {} bytes, more than the limit of {}", raw.size(), limits.max_name_bytes));
    }
    if (!is_valid_utf8(raw)) refuse(ArchiveProblem::unsafe_name, raw, "the name is not valid UTF-8");
    const bool is_dir = !raw.empty() && raw.back() == '/';
    const std::string path(is_dir ? raw.substr(0, raw.size() - 1) : raw);
    check_entry_path(path, raw, limits, false);
    if (const std::string folded = nfkc(path); folded != path) check_entry_path(folded, raw, limits, true);

    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(zip.get(), index, 0, &opsys, &attributes) != 0) {
        refuse(ArchiveProblem::malformed, raw, "no external attributes");
    }
    check_attributes(attributes, is_dir, raw);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) != 0 && st.encryption_method != ZIP_EM_NONE) {
        refuse(ArchiveProblem::encrypted, raw, "encrypted entry");
    }
    constexpr zip_uint64_t needed = ZIP_STAT_SIZE | ZIP_STAT_COMP_SIZE | ZIP_STAT_COMP_METHOD;
    if ((st.valid & needed) != needed) refuse(ArchiveProblem::malformed, raw, "sizes or method unknown");

    Node node;
    node.explicit_entry = true;
    node.index = index;
    if ((st.valid & ZIP_STAT_MTIME) != 0 && st.mtime > 0)
        node.mtime_ns = static_cast<std::int64_t>(st.mtime) * 1'000'000'000;
    if (is_dir) {
        if (st.size != 0) refuse(ArchiveProblem::not_regular, raw, "a directory entry with data");
        node.kind = EntryKind::directory;
    } else {
        if (zip_compression_method_supported(st.comp_method, 0) == 0) {
            refuse(ArchiveProblem::unsupported, raw, fmt::format("compression method {}", st.comp_method));
        }
        if (st.comp_method == ZIP_CM_STORE && st.comp_size != st.size) {
            refuse(ArchiveProblem::size_mismatch, raw, "a stored entry whose compressed and uncompressed sizes differ");
        }
        if (st.size > limits.max_file_bytes) {
            refuse(ArchiveProblem::file_too_large, raw,
                   fmt::format("{} bytes uncompressed, more than the limit of {}", st.size, limits.max_file_bytes));
        }
        if (limits.max_ratio != 0 && st.size >= limits.ratio_threshold_bytes) {
            const std::uint64_t compressed = std::max<std::uint64_t>(st.comp_size, 1);
            if (st.size / compressed >= limits.max_ratio && st.size > compressed * limits.max_ratio) {
                refuse(ArchiveProblem::ratio_too_high, raw,
                       fmt::format("{} bytes from {} compressed, a ratio over the limit of {}", st.size, st.comp_size,
                                   limits.max_ratio));
            }
        }
        total += st.size;
        if (total > limits.max_total_bytes) {
            refuse(ArchiveProblem::total_too_large, raw,
                   fmt::format("the files add up to more than the limit of {} bytes uncompressed",
                               limits.max_total_bytes));
        }
        node.kind = EntryKind::file;
        node.size = st.size;
        node.crc = (st.valid & ZIP_STAT_CRC) != 0 ? st.crc : 0;
        ++files;
    }
    // Parent directories exist implicitly.
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        add_node(path.substr(0, slash), Node{}, raw, nfkc_names);
    }
    add_node(path, std::move(node), raw, nfkc_names);
}

void ArchiveReader::Impl::add_node(const std::string& path, Node node, std::string_view raw,
                                   std::map<std::string, std::string, std::less<>>& nfkc_names) {
    const std::string folded = nfkc(path);
    auto [named, fresh] = nfkc_names.emplace(folded, path);
    if (!fresh && named->second != path) {
        refuse(ArchiveProblem::duplicate_name, raw,
               fmt::format("equal after NFKC to the entry '{}'", printable(named->second)));
    }
    auto it = nodes.find(path);
    if (it == nodes.end()) {
        nodes.emplace(path, std::move(node));
        return;
    }
    Node& existing = it->second;
    if (existing.kind != node.kind) {
        refuse(ArchiveProblem::conflicting_kind, raw, "a name that is both a file and a directory");
    }
    if (node.explicit_entry) {
        if (existing.explicit_entry) refuse(ArchiveProblem::duplicate_name, raw, "a second entry with this name");
        existing = std::move(node);  // an explicit directory after files inside it
    }
}

const Node& ArchiveReader::Impl::find(std::string_view path, std::string_view what) const {
    const std::string key = normalize_relative_path(path);
    auto it = nodes.find(key);
    if (it == nodes.end()) throw NotFoundError(fmt::format("cannot {} '{}': no such entry in the archive", what, path));
    return it->second;
}

ArchiveReader::ArchiveReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ArchiveReader::~ArchiveReader() = default;

std::shared_ptr<const ArchiveReader> ArchiveReader::from_bytes(std::string bytes, ArchiveLimits limits) {
    auto impl = std::make_unique<Impl>();
    impl->bytes = std::move(bytes);
    impl->limits = limits;
    impl->open();
    return std::shared_ptr<const ArchiveReader>(new ArchiveReader(std::move(impl)));
}

std::shared_ptr<const ArchiveReader> ArchiveReader::from_file(const std::string& path, ArchiveLimits limits) {
    const std::size_t cap = limits.max_archive_bytes >= std::numeric_limits<std::size_t>::max() - 1
                                ? std::numeric_limits<std::size_t>::max() - 1
                                : static_cast<std::size_t>(limits.max_archive_bytes) + 1;
    ReadResult read = LocalSkillReader().read_file(path, cap);
    if (read.truncated || read.data.size() > limits.max_archive_bytes) {
        refuse(ArchiveProblem::too_large, "",
               fmt::format("'{}' is larger than the limit of {} bytes", printable(path), limits.max_archive_bytes));
    }
    return from_bytes(std::move(read.data), limits);
}

// Decompresses the file `node` (named `path` in errors): `want` bytes into `out`, or, without
// `out`, through a small buffer whose bytes are dropped. With `whole`, one byte more is asked
// for: a stream that ends early or goes on is size-mismatch, and libzip checks the CRC at its end.
void ArchiveReader::Impl::decompress(const Node& node, std::string_view path, char* out, std::size_t want,
                                     bool whole) const {
    std::lock_guard lock(read_mutex);
    zip_file_t* file = zip_fopen_index(zip.get(), node.index, 0);
    if (file == nullptr) refuse(ArchiveProblem::malformed, path, zip_strerror(zip.get()));
    struct FileCloser {
        zip_file_t* f;
        ~FileCloser() { zip_fclose(f); }
    } closer{file};
    const auto corrupt = [&] {
        refuse(ArchiveProblem::malformed, path, fmt::format("the data cannot be read: {}", zip_file_strerror(file)));
    };
    constexpr std::size_t chunk = 64 << 10;
    std::string scratch(out == nullptr ? chunk : 0, '\0');
    // A running count: never more than the checked size, and a short or long stream is refused.
    std::size_t got = 0;
    while (got < want) {
        const std::size_t ask = out == nullptr ? std::min(chunk, want - got) : want - got;
        const zip_int64_t n = zip_fread(file, out == nullptr ? scratch.data() : out + got, ask);
        if (n < 0) corrupt();
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    if (got < want) {
        refuse(ArchiveProblem::size_mismatch, path,
               fmt::format("{} bytes decompressed, the header says {}", got, node.size));
    }
    if (whole) {
        char extra = 0;
        const zip_int64_t n = zip_fread(file, &extra, 1);
        if (n < 0) corrupt();
        if (n > 0) {
            refuse(ArchiveProblem::size_mismatch, path,
                   fmt::format("more data than the {} bytes the header says", node.size));
        }
    }
}

ReadResult ArchiveReader::read_file(std::string_view path, std::size_t max_bytes) const {
    const Node& node = impl_->find(path, "read");
    if (node.kind != EntryKind::file) throw IoError(fmt::format("cannot read '{}': it is a directory", path));
    const bool partial = max_bytes != 0 && max_bytes < node.size;
    const auto want = static_cast<std::size_t>(partial ? max_bytes : node.size);
    ReadResult result;
    result.truncated = partial;
    result.data.resize(want);
    impl_->decompress(node, path, result.data.data(), want, !partial);
    return result;
}

std::vector<DirEntry> ArchiveReader::list_dir(std::string_view path) const {
    const Node& node = impl_->find(path, "list");
    if (node.kind != EntryKind::directory) throw IoError(fmt::format("cannot list '{}': not a directory", path));
    const std::string base = normalize_relative_path(path);
    std::vector<DirEntry> out;
    out.reserve(node.children.size());
    for (const std::string& name : node.children) {
        const Node& child = impl_->nodes.find(join_path(base, name))->second;
        out.push_back(DirEntry{.name = name, .kind = child.kind, .size = child.size, .mtime_ns = child.mtime_ns});
    }
    return out;
}

FileStat ArchiveReader::stat(std::string_view path) const {
    const Node& node = impl_->find(path, "stat");
    return FileStat{.kind = node.kind,
                    .size = node.size,
                    .mtime_ns = node.mtime_ns,
                    .identity = (static_cast<std::uint64_t>(node.crc) << 32) ^ (node.index + 1)};
}

std::size_t ArchiveReader::file_count() const noexcept { return impl_->files; }
std::uint64_t ArchiveReader::total_bytes() const noexcept { return impl_->total; }

// ---------------------------------------------------------------------------------------

namespace {

ArchiveSkill find_skill(std::shared_ptr<const ArchiveReader> reader) {
    constexpr std::string_view skill_md = "SKILL.md";
    const std::vector<DirEntry> top = reader->list_dir(".");
    for (const DirEntry& e : top) {
        if (e.name == skill_md && e.kind == EntryKind::file) {
            return ArchiveSkill{std::move(reader), ".", std::string(skill_md)};
        }
    }
    if (top.size() != 1 || top.front().kind != EntryKind::directory) {
        refuse(ArchiveProblem::no_skill, "",
               fmt::format("{} top-level entries; an archive skill holds SKILL.md at its root or exactly one "
                           "top-level directory holding SKILL.md",
                           top.size()));
    }
    const std::string dir = top.front().name;
    const std::string file = join_path(dir, skill_md);
    FileStat st;
    try {
        st = reader->stat(file);
    } catch (const NotFoundError&) {
        refuse(ArchiveProblem::no_skill, dir + "/", "the top-level directory holds no SKILL.md");
    }
    if (st.kind != EntryKind::file) refuse(ArchiveProblem::no_skill, file, "SKILL.md is not a file");
    return ArchiveSkill{std::move(reader), dir, file};
}

}  // namespace

ArchiveSkill open_archive_skill(std::string bytes, ArchiveLimits limits) {
    return find_skill(ArchiveReader::from_bytes(std::move(bytes), limits));
}

ArchiveSkill open_archive_skill_file(const std::string& path, ArchiveLimits limits) {
    return find_skill(ArchiveReader::from_file(path, limits));
}

ChildOpener archive_child_source(ArchiveLimits limits) {
    ChildOpener opener;
    opener.accepts = [](std::string_view file_name) { return is_archive_skill_name(file_name); };
    opener.open = [limits](const SkillReader& reader, const std::string& path) {
        try {
            const std::uint64_t cap = limits.max_archive_bytes;
            const std::size_t want =
                cap >= std::numeric_limits<std::size_t>::max() - 1 ? std::size_t{0} : static_cast<std::size_t>(cap) + 1;
            // A file over the cap reads as cap + 1 bytes, which open_archive_skill refuses (too-large).
            ReadResult read = reader.read_file(path, want);
            ArchiveSkill skill = open_archive_skill(std::move(read.data), limits);
            return ChildSource{std::move(skill.reader), std::move(skill.skill_dir)};
        } catch (const ArchiveError& e) {
            throw SourceRefusedError(std::string(codes::archive_refused), fmt::format("{}: {}", path, e.what()));
        }
    };
    return opener;
}

}  // namespace agentskills
