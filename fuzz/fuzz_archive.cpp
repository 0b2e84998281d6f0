// Fuzz target: ArchiveReader and open_archive_skill over arbitrary bytes (libzip).
//
// Input: a selector byte (which limits), then the archive's bytes. The target opens the
// archive, walks every directory, stats and reads every file whole and as a prefix, and
// checks that what the reader says agrees with itself and stays within the limits.
#include <agentskills/archive/archive_reader.hpp>
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>

#include <memory>
#include <string>

#include "fuzz_common.hpp"

using namespace agentskills;

namespace {

struct Walk {
    const ArchiveReader& reader;
    const ArchiveLimits& limits;
    std::size_t files = 0;
    std::uint64_t bytes = 0;

    void visit(const std::string& dir, std::size_t depth) {
        FUZZ_CHECK(depth <= limits.max_depth);
        for (const DirEntry& e : reader.list_dir(dir)) {
            // One plain, valid UTF-8 component without control characters.
            FUZZ_CHECK(!e.name.empty());
            FUZZ_CHECK(e.name != "." && e.name != "..");
            FUZZ_CHECK(e.name.find('/') == std::string::npos);
            FUZZ_CHECK(e.name.find('\\') == std::string::npos);
            FUZZ_CHECK(e.name.front() != '~');
            FUZZ_CHECK(is_valid_utf8(e.name));
            for (const char c : e.name) FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
            FUZZ_CHECK(!e.is_symlink);
            FUZZ_CHECK(e.kind != EntryKind::other);
            const std::string path = join_path(dir, e.name);
            FUZZ_CHECK(normalize_relative_path(path) == path);
            const FileStat st = reader.stat(path);
            FUZZ_CHECK(st.kind == e.kind);
            FUZZ_CHECK(st.size == e.size);
            if (e.kind == EntryKind::directory) {
                FUZZ_CHECK(e.size == 0);
                visit(path, depth + 1);
                continue;
            }
            ++files;
            bytes += e.size;
            FUZZ_CHECK(e.size <= limits.max_file_bytes);
            const std::size_t prefix = 7;
            try {
                const ReadResult head = reader.read_file(path, prefix);
                FUZZ_CHECK(head.data.size() == std::min<std::uint64_t>(prefix, e.size));
                FUZZ_CHECK(head.truncated == (e.size > prefix));
                const ReadResult all = reader.read_file(path, 0);
                FUZZ_CHECK(all.data.size() == e.size);
                FUZZ_CHECK(!all.truncated);
                FUZZ_CHECK(all.data.compare(0, head.data.size(), head.data) == 0);
            } catch (const IoError&) {
                // A corrupt stream, a CRC or size mismatch: refused, nothing more was returned.
            }
        }
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t selector = in.byte();
    ArchiveLimits limits;
    if ((selector & 1) != 0) {
        limits.max_entries = 16;
        limits.max_file_bytes = 4096;
        limits.max_total_bytes = 8192;
        limits.max_ratio = 20;
        limits.ratio_threshold_bytes = 256;
        limits.max_depth = 4;
        limits.max_name_bytes = 64;
    }
    const std::string bytes(in.rest());
    try {
        const auto reader = ArchiveReader::from_bytes(bytes, limits);
        Walk walk{*reader, limits};
        walk.visit(".", 0);
        FUZZ_CHECK(walk.files == reader->file_count());
        FUZZ_CHECK(walk.bytes == reader->total_bytes());
        FUZZ_CHECK(walk.bytes <= limits.max_total_bytes);
    } catch (const ArchiveError& e) {
        FUZZ_CHECK(!archive_problem_name(e.problem()).empty());
        FUZZ_CHECK(is_valid_utf8(e.what()));
    } catch (const IoError&) {
    }
    if ((selector & 2) != 0) {
        try {
            const ArchiveSkill skill = open_archive_skill(bytes, limits);
            FUZZ_CHECK(skill.reader->stat(skill.skill_file).kind == EntryKind::file);
            FUZZ_CHECK(skill.skill_dir == "." || skill.skill_dir.find('/') == std::string::npos);
        } catch (const IoError&) {
        }
    }
    return 0;
}
