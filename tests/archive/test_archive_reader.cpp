// Tests of archive_reader.hpp: ArchiveReader, open_archive_skill and every refusal. Each bad
// archive is built here with libzip's write API (and, for lying headers, patched bytes).
#include <sys/stat.h>
#include <zip.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "agentskills/activation/activation.hpp"
#include "agentskills/activation/prompt.hpp"
#include "agentskills/archive/archive_reader.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/loader.hpp"

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

// =======================================================================================
// Tests of archive_reader.hpp: ArchiveReader, open_archive_skill and every refusal. Each bad

namespace archive_reader_tests {

using namespace agentskills;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

struct Item {
    std::string name;
    std::string content;
    bool directory = false;
    zip_int32_t method = ZIP_CM_DEFLATE;
    std::optional<std::pair<zip_uint8_t, zip_uint32_t>> attributes = std::nullopt;  // opsys, attributes
};

void check_zip(bool ok, zip_t* za, const char* what) {
    if (!ok) FAIL(what << ": " << zip_strerror(za));
}

// Builds a zip archive in memory with libzip's write API.
std::string build_zip(const std::vector<Item>& items) {
    if (items.empty()) return std::string("PK\x05\x06", 4) + std::string(18, '\0');  // libzip writes nothing
    zip_error_t error;
    zip_error_init(&error);
    zip_source_t* buffer = zip_source_buffer_create(nullptr, 0, 0, &error);
    REQUIRE(buffer != nullptr);
    zip_t* za = zip_open_from_source(buffer, ZIP_TRUNCATE, &error);
    REQUIRE(za != nullptr);
    zip_source_keep(buffer);
    for (const Item& item : items) {
        zip_int64_t index = -1;
        if (item.directory) {
            index = zip_dir_add(za, item.name.c_str(), 0);
        } else {
            zip_source_t* data = zip_source_buffer(za, item.content.data(), item.content.size(), 0);
            REQUIRE(data != nullptr);
            index = zip_file_add(za, item.name.c_str(), data, 0);
            if (index < 0) zip_source_free(data);
        }
        check_zip(index >= 0, za, "add");
        const auto i = static_cast<zip_uint64_t>(index);
        if (!item.directory) check_zip(zip_set_file_compression(za, i, item.method, 0) == 0, za, "compression");
        if (item.attributes) {
            check_zip(zip_file_set_external_attributes(za, i, 0, item.attributes->first, item.attributes->second) == 0,
                      za, "attributes");
        }
    }
    check_zip(zip_close(za) == 0, za, "close");
    REQUIRE(zip_source_open(buffer) == 0);
    REQUIRE(zip_source_seek(buffer, 0, SEEK_END) == 0);
    const zip_int64_t size = zip_source_tell(buffer);
    REQUIRE(zip_source_seek(buffer, 0, SEEK_SET) == 0);
    std::string out(static_cast<std::size_t>(size), '\0');
    REQUIRE(zip_source_read(buffer, out.data(), out.size()) == size);
    zip_source_close(buffer);
    zip_source_free(buffer);
    zip_error_fini(&error);
    return out;
}

// Bytes that deflate barely compresses (a linear congruential generator).
std::string noise(std::size_t n, std::uint32_t seed = 1) {
    std::string out(n, '\0');
    for (char& c : out) {
        seed = seed * 1664525U + 1013904223U;
        c = static_cast<char>(seed >> 24);
    }
    return out;
}

const std::string good_skill = skill_md("demo", "A demo skill.", "Do the demo.\n");

std::vector<Item> good_items() {
    return {{"demo/SKILL.md", good_skill},
            {"demo/scripts/run.sh", "#!/bin/sh\necho hi\n"},
            {"demo/references/guide.md", "# Guide\n"}};
}

std::vector<Item> with(std::vector<Item> items, Item extra) {
    items.push_back(std::move(extra));
    return items;
}

ArchiveProblem problem_of(const std::string& bytes, ArchiveLimits limits = {}) {
    try {
        (void)open_archive_skill(bytes, limits);
    } catch (const ArchiveError& e) {
        INFO(e.what());
        return e.problem();
    }
    FAIL("the archive was accepted");
    return ArchiveProblem::malformed;
}

void put_u16(std::string& b, std::size_t at, std::uint16_t v) {
    b[at] = static_cast<char>(v & 0xFF);
    b[at + 1] = static_cast<char>(v >> 8);
}
void put_u32(std::string& b, std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// Positions of every local header and central directory header.
std::vector<std::size_t> find_all(const std::string& b, std::string_view signature) {
    std::vector<std::size_t> out;
    for (std::size_t pos = b.find(signature); pos != std::string::npos; pos = b.find(signature, pos + 1)) {
        out.push_back(pos);
    }
    return out;
}

void replace_all(std::string& b, std::string_view from, std::string_view to) {
    REQUIRE(from.size() == to.size());
    std::size_t count = 0;
    for (std::size_t pos = b.find(from); pos != std::string::npos; pos = b.find(from, pos + 1)) {
        b.replace(pos, from.size(), to);
        ++count;
    }
    REQUIRE(count >= 2);  // the local header and the central directory
}

}  // namespace

TEST_CASE("ArchiveReader lists, stats and reads an archive held in memory", "[archive]") {
    const auto skill = open_archive_skill(build_zip(good_items()));
    CHECK(skill.skill_dir == "demo");
    CHECK(skill.skill_file == "demo/SKILL.md");
    const ArchiveReader& r = *skill.reader;
    CHECK(r.file_count() == 3);
    CHECK(r.total_bytes() == good_skill.size() + 18 + 8);

    auto top = r.list_dir(".");
    REQUIRE(top.size() == 1);
    CHECK(top[0].name == "demo");
    CHECK(top[0].kind == EntryKind::directory);

    auto names = [](std::vector<DirEntry> entries) {
        std::vector<std::string> out;
        for (const auto& e : entries) out.push_back(e.name + (e.kind == EntryKind::directory ? "/" : ""));
        std::sort(out.begin(), out.end());
        return out;
    };
    CHECK(names(r.list_dir("demo")) == std::vector<std::string>{"SKILL.md", "references/", "scripts/"});
    CHECK(names(r.list_dir("./demo/scripts/")) == std::vector<std::string>{"run.sh"});

    CHECK(r.read_file("demo/SKILL.md", 0).data == good_skill);
    CHECK_FALSE(r.read_file("demo/SKILL.md", 0).truncated);
    const ReadResult head = r.read_file("demo/scripts/run.sh", 4);
    CHECK(head.data == "#!/b");
    CHECK(head.truncated);
    CHECK(r.read_file("demo/scripts/run.sh", 1000).data == "#!/bin/sh\necho hi\n");

    const FileStat st = r.stat("demo/references/guide.md");
    CHECK(st.kind == EntryKind::file);
    CHECK(st.size == 8);
    CHECK_FALSE(st.is_symlink);
    CHECK(st.mtime_ns > 0);
    CHECK(st.identity != r.stat("demo/SKILL.md").identity);
    CHECK(r.stat(".").kind == EntryKind::directory);
    CHECK(r.stat("demo/scripts").kind == EntryKind::directory);

    CHECK_THROWS_AS(r.read_file("demo/missing.md", 0), NotFoundError);
    CHECK_THROWS_AS(r.stat("nope"), NotFoundError);
    CHECK_THROWS_AS(r.list_dir("demo/SKILL.md"), IoError);
    CHECK_THROWS_AS(r.read_file("demo", 0), IoError);
    CHECK_THROWS_AS(r.read_file("../demo/SKILL.md", 0), PathError);
    CHECK_THROWS_AS(r.read_file("/demo/SKILL.md", 0), PathError);
    CHECK_THROWS_AS(r.list_dir("demo\\scripts"), PathError);
}

TEST_CASE("open_archive_skill accepts SKILL.md at the root and explicit directory entries", "[archive]") {
    const auto root =
        open_archive_skill(build_zip({{"SKILL.md", good_skill}, {"assets/", "", true}, {"assets/logo.txt", "logo"}}));
    CHECK(root.skill_dir == ".");
    CHECK(root.skill_file == "SKILL.md");
    CHECK(root.reader->read_file("assets/logo.txt", 0).data == "logo");

    const auto nested = open_archive_skill(build_zip({{"demo/", "", true}, {"demo/SKILL.md", good_skill}}));
    CHECK(nested.skill_dir == "demo");
    CHECK(nested.reader->file_count() == 1);

    // A small, very compressible file (under the ratio threshold) and a stored file are fine.
    const auto small =
        open_archive_skill(build_zip(with(with(good_items(), {"demo/assets/zeros.bin", std::string(60000, '\0')}),
                                          {"demo/assets/stored.txt", "stored", false, ZIP_CM_STORE})));
    CHECK(small.reader->read_file("demo/assets/zeros.bin", 0).data == std::string(60000, '\0'));
    CHECK(small.reader->read_file("demo/assets/stored.txt", 0).data == "stored");
}

TEST_CASE("ArchiveReader::from_file reads the archive once and is bounded", "[archive]") {
    TempDir tmp;
    const std::string bytes = build_zip(good_items());
    tmp.write("demo.skill", bytes);
    const auto skill = open_archive_skill_file(tmp.path("demo.skill"));
    CHECK(skill.skill_dir == "demo");
    tmp.write("demo.skill", "overwritten");  // the reader holds its own snapshot
    CHECK(skill.reader->read_file("demo/SKILL.md", 0).data == good_skill);

    tmp.write("big.zip", bytes);
    try {
        (void)ArchiveReader::from_file(tmp.path("big.zip"), ArchiveLimits{.max_archive_bytes = bytes.size() - 1});
        FAIL("accepted");
    } catch (const ArchiveError& e) {
        CHECK(e.problem() == ArchiveProblem::too_large);
    }
    CHECK_THROWS_AS(ArchiveReader::from_file(tmp.path("absent.zip")), NotFoundError);
    CHECK_THROWS_AS(ArchiveReader::from_file(tmp.path()), IoError);  // a directory
}

TEST_CASE("FilesystemSkillLoader discovers the skill through an ArchiveReader", "[archive][loader]") {
    const auto skill = open_archive_skill(build_zip(good_items()));
    FilesystemSkillLoader loader({.roots = {"."}, .reader = skill.reader});
    const Discovery d = loader.discover();
    REQUIRE(d.skills.size() == 1);
    CHECK(d.skills[0].name == "demo");
    CHECK(d.skills[0].description == "A demo skill.");
    CHECK(d.skills[0].skill_file == "demo/SKILL.md");
    CHECK(d.skills[0].root == "demo");
    const LoadedSkill loaded = loader.load("demo");
    CHECK(loaded.instructions == "Do the demo.");
    std::vector<std::string> resources;
    for (const auto& res : list_skill_resources(*skill.reader, "demo")) resources.push_back(res.path);
    CHECK(resources == std::vector<std::string>{"scripts/run.sh", "references/guide.md"});
}

TEST_CASE("ArchiveReader refuses archives that are too large, malformed or have too many entries", "[archive]") {
    const std::string good = build_zip(good_items());
    CHECK(problem_of(good, {.max_archive_bytes = good.size() - 1}) == ArchiveProblem::too_large);
    CHECK(problem_of("this is not a zip archive at all, just some text") == ArchiveProblem::malformed);
    CHECK(problem_of(good.substr(0, good.size() / 2)) == ArchiveProblem::malformed);
    CHECK(problem_of(good.substr(0, good.size() - 10)) == ArchiveProblem::malformed);
    CHECK(problem_of("") == ArchiveProblem::malformed);

    std::vector<Item> many = good_items();
    for (int i = 0; i < 6; ++i) many.push_back({"demo/assets/f" + std::to_string(i), "x"});
    const std::string nine = build_zip(many);
    CHECK(problem_of(nine, {.max_entries = 8}) == ArchiveProblem::too_many_entries);
    CHECK_NOTHROW(open_archive_skill(nine, {.max_entries = 9}));
    // An end record whose count is made smaller does not get past: libzip finds it inconsistent,
    // or the count of libzip's entries is over the limit.
    std::string lying = nine;
    const auto eocd = find_all(lying, "PK\x05\x06");
    REQUIRE(eocd.size() == 1);
    put_u16(lying, eocd[0] + 8, 2);
    put_u16(lying, eocd[0] + 10, 2);
    const ArchiveProblem p = problem_of(lying, {.max_entries = 8});
    CHECK((p == ArchiveProblem::malformed || p == ArchiveProblem::too_many_entries));
}

TEST_CASE("ArchiveReader refuses decompression bombs", "[archive][hostile]") {
    SECTION("one file over the per-file size") {
        const auto bytes = build_zip(with(good_items(), {"demo/assets/big.bin", noise(300'000)}));
        CHECK(problem_of(bytes, {.max_file_bytes = 200'000}) == ArchiveProblem::file_too_large);
        CHECK_NOTHROW(open_archive_skill(bytes, {.max_file_bytes = 300'000}));
    }
    SECTION("files that add up to more than the total") {
        std::vector<Item> items = good_items();
        for (std::uint32_t i = 0; i < 4; ++i) items.push_back({"demo/assets/n" + std::to_string(i), noise(100'000, i)});
        const auto bytes = build_zip(items);
        CHECK(problem_of(bytes, {.max_total_bytes = 300'000}) == ArchiveProblem::total_too_large);
        CHECK_NOTHROW(open_archive_skill(bytes, {.max_total_bytes = 500'000}));
    }
    SECTION("a high compression ratio, with the default limits") {
        const auto bytes = build_zip(with(good_items(), {"demo/assets/zeros.bin", std::string(8u << 20, '\0')}));
        CHECK(bytes.size() < 100'000);
        CHECK(problem_of(bytes) == ArchiveProblem::ratio_too_high);
        CHECK_NOTHROW(open_archive_skill(bytes, {.max_ratio = 0}));
    }
    SECTION("many small compressible files: the whole archive's ratio") {
        std::vector<Item> items = good_items();
        for (int i = 0; i < 100; ++i) items.push_back({"demo/assets/z" + std::to_string(i), std::string(60'000, 'z')});
        const auto bytes = build_zip(items);
        CHECK(problem_of(bytes) == ArchiveProblem::ratio_too_high);  // each file is under the threshold
        CHECK_NOTHROW(open_archive_skill(bytes, {.max_ratio = 1000}));
    }
    SECTION("a header that claims fewer bytes than the data holds") {
        // Deflated noise whose sizes are patched down: the check at open stops at the claimed
        // size and finds more data behind it (or libzip finds the CRC wrong first).
        std::string bytes = build_zip({{"data.bin", noise(50'000)}});
        for (std::size_t at : find_all(bytes, "PK\x03\x04")) put_u32(bytes, at + 22, 1000);
        for (std::size_t at : find_all(bytes, "PK\x01\x02")) put_u32(bytes, at + 24, 1000);
        try {
            (void)ArchiveReader::from_bytes(bytes);
            FAIL("opened");
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::size_mismatch);
            CHECK(e.entry() == "data.bin");
        }
    }
    SECTION("a header that claims more bytes than the data holds") {
        std::string bytes = build_zip({{"data.bin", noise(5'000)}});
        for (std::size_t at : find_all(bytes, "PK\x03\x04")) put_u32(bytes, at + 22, 6000);
        for (std::size_t at : find_all(bytes, "PK\x01\x02")) put_u32(bytes, at + 24, 6000);
        try {
            (void)ArchiveReader::from_bytes(bytes);
            FAIL("opened");
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::size_mismatch);
            CHECK(e.entry() == "data.bin");
            CHECK(std::string(e.what()).find("5000 bytes decompressed, the header says 6000") != std::string::npos);
        }
    }
    SECTION("a stored entry whose sizes disagree") {
        std::string bytes = build_zip({{"data.txt", "stored text", false, ZIP_CM_STORE}});
        for (std::size_t at : find_all(bytes, "PK\x03\x04")) put_u32(bytes, at + 22, 100'000);
        for (std::size_t at : find_all(bytes, "PK\x01\x02")) put_u32(bytes, at + 24, 100'000);
        CHECK(problem_of(bytes) == ArchiveProblem::size_mismatch);
    }
}

TEST_CASE("ArchiveReader refuses at open a file whose data does not match its header", "[archive][hostile]") {
    // Every file is decompressed once when the archive is opened, so an archive is accepted or
    // refused as a whole, whichever files a command reads later (list reads SKILL.md only, lock
    // and mcp every file).
    const std::string good = build_zip(good_items());
    CHECK(ArchiveReader::from_bytes(good)->read_file("demo/scripts/run.sh", 0).data == "#!/bin/sh\necho hi\n");
    const auto entry_offsets = [](const std::string& b, std::string_view signature, std::size_t name_at,
                                  std::string_view name) {
        std::vector<std::size_t> out;
        for (std::size_t at : find_all(b, signature)) {
            if (b.compare(at + name_at, name.size(), name) == 0) out.push_back(at);
        }
        REQUIRE(out.size() == 1);
        return out.front();
    };
    constexpr std::string_view resource = "demo/references/guide.md";
    SECTION("a CRC that does not match the data") {
        std::string bytes = good;
        put_u32(bytes, entry_offsets(bytes, "PK\x03\x04", 30, resource) + 14, 1);
        put_u32(bytes, entry_offsets(bytes, "PK\x01\x02", 46, resource) + 16, 1);
        try {
            (void)ArchiveReader::from_bytes(bytes);
            FAIL("opened");
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::malformed);
            CHECK(e.entry() == resource);
            CHECK(std::string(e.what()) ==
                  "archive refused (malformed): entry 'demo/references/guide.md': the data "
                  "cannot be read: CRC error");
        }
    }
    SECTION("an uncompressed size larger than the data") {
        std::string bytes = good;
        put_u32(bytes, entry_offsets(bytes, "PK\x03\x04", 30, resource) + 22, 9);
        put_u32(bytes, entry_offsets(bytes, "PK\x01\x02", 46, resource) + 24, 9);
        CHECK(problem_of(bytes) == ArchiveProblem::size_mismatch);
    }
    SECTION("a deflate stream that is cut short") {
        // The compressed size patched down: the stream ends before its data does.
        std::string bytes = build_zip(with(good_items(), {"demo/assets/noise.bin", noise(4'000)}));
        const std::size_t local = entry_offsets(bytes, "PK\x03\x04", 30, "demo/assets/noise.bin");
        const std::size_t central = entry_offsets(bytes, "PK\x01\x02", 46, "demo/assets/noise.bin");
        put_u32(bytes, local + 18, 100);
        put_u32(bytes, central + 20, 100);
        const ArchiveProblem p = problem_of(bytes, {.max_ratio = 0});
        CHECK((p == ArchiveProblem::malformed || p == ArchiveProblem::size_mismatch));
    }
}

TEST_CASE("agentskills list, validate and lock refuse an archive with a lying resource alike", "[archive][cli]") {
    if (std::string(AGENTSKILLS_CLI_PATH).empty()) return;  // the program is not built
    // The resource's sizes say 9 bytes; its data holds 8. list and validate read SKILL.md only.
    std::string bytes = build_zip(good_items());
    for (std::size_t at : find_all(bytes, "PK\x03\x04")) {
        if (bytes.compare(at + 30, 24, "demo/references/guide.md") == 0) put_u32(bytes, at + 22, 9);
    }
    for (std::size_t at : find_all(bytes, "PK\x01\x02")) {
        if (bytes.compare(at + 46, 24, "demo/references/guide.md") == 0) put_u32(bytes, at + 24, 9);
    }
    TempDir tmp;
    tmp.write("lib/alpha/SKILL.md", skill_md("alpha", "A directory skill."));
    tmp.write("lib/demo.skill", bytes);
    const std::string lib = tmp.path("lib");
    const std::string refusal = lib +
                                "/demo.skill: archive refused (size-mismatch): entry "
                                "'demo/references/guide.md': 8 bytes decompressed, the header says 9";
    const auto list = agentskills::test::run_cli({"list", "--root", lib}, tmp.path());
    CHECK(list.status == 0);
    CHECK(list.out == "alpha\t" + lib + "/alpha/SKILL.md\n");
    const std::string diagnostic =
        lib + "/demo.skill: error: " + refusal + " [" + std::string(codes::archive_refused) + "]\n";
    CHECK(list.err == diagnostic);
    const auto validate = agentskills::test::run_cli({"validate", "--root", lib}, tmp.path());
    CHECK(validate.status == 1);
    CHECK(validate.out == lib + "/alpha: ok\n" + diagnostic);
    const auto lock = agentskills::test::run_cli({"lock", "--root", lib}, tmp.path());
    CHECK(lock.out.find("\"name\": \"alpha\"") != std::string::npos);
    CHECK(lock.out.find("\"name\": \"demo\"") == std::string::npos);
    CHECK(lock.err == "agentskills lock: skipped (unreadable): " + refusal + "\n");
}

TEST_CASE("ArchiveReader refuses two end records that readers could choose between", "[archive][hostile]") {
    // libzip (ZIP_CHECKCONS) tries every end record whose comment ends the file and keeps the one
    // whose entries span the most bytes; unzip and Python's zipfile take the last one. Here the
    // skill's end record has a comment that is a second end record, of an empty archive: libzip
    // read the skill, the other readers an archive with nothing in it.
    const std::string good = build_zip(good_items());
    const auto eocd = find_all(good, "PK\x05\x06");
    REQUIRE(eocd.size() == 1);
    REQUIRE(eocd[0] + 22 == good.size());
    std::string bytes = good;
    put_u16(bytes, eocd[0] + 20, 22);
    std::string second = std::string("PK\x05\x06", 4) + std::string(18, '\0');
    put_u32(second, 16, static_cast<std::uint32_t>(bytes.size()));  // an empty directory, right before it
    bytes += second;
    try {
        (void)ArchiveReader::from_bytes(bytes);
        FAIL("opened");
    } catch (const ArchiveError& e) {
        CHECK(e.problem() == ArchiveProblem::malformed);
        CHECK(std::string(e.what()) ==
              fmt::format("archive refused (malformed): two end-of-central-directory records (at bytes {} and "
                          "later) that readers could choose between",
                          eocd[0]));
    }
    // A comment that merely holds the signature (not a record that ends the file) is fine.
    std::string commented = good;
    const std::string comment = std::string("PK\x05\x06", 4) + std::string(30, '.');
    put_u16(commented, eocd[0] + 20, static_cast<std::uint16_t>(comment.size()));
    commented += comment;
    CHECK(open_archive_skill(commented).skill_dir == "demo");
}

namespace {

void append_u16(std::string& b, std::uint16_t v) {
    b.resize(b.size() + 2);
    put_u16(b, b.size() - 2, v);
}
void append_u32(std::string& b, std::uint32_t v) {
    b.resize(b.size() + 4);
    put_u32(b, b.size() - 4, v);
}
void append_u64(std::string& b, std::uint64_t v) {
    append_u32(b, static_cast<std::uint32_t>(v & 0xFFFFFFFF));
    append_u32(b, static_cast<std::uint32_t>(v >> 32));
}

// The end-of-central-directory record of a one-disk archive: `entries` on the disk and in all,
// the directory's size and offset, no comment.
void append_end_record(std::string& b, std::uint16_t entries, std::size_t directory_size, std::size_t directory) {
    append_u32(b, 0x06054b50);
    append_u32(b, 0);
    append_u16(b, entries);
    append_u16(b, entries);
    append_u32(b, static_cast<std::uint32_t>(directory_size));
    append_u32(b, static_cast<std::uint32_t>(directory));
    append_u16(b, 0);
}

// One stored file "a" and `headers` central directory headers that all name it; the end record
// declares `declared` entries (modulo 65,536, as Info-ZIP writes it), in a zip64 end record too
// when `zip64`.
std::string many_headers(std::size_t headers, std::uint64_t declared, bool zip64) {
    std::string b;
    append_u32(b, 0x04034b50);
    for (const std::uint16_t v : std::initializer_list<std::uint16_t>{20, 0, 0, 0, 0}) append_u16(b, v);
    for (const std::uint32_t v : {0xe8b7be43U, 1U, 1U}) append_u32(b, v);  // crc32("a"), sizes
    append_u16(b, 1);
    append_u16(b, 0);
    b += "aa";  // the name, then the data
    const std::size_t directory = b.size();
    std::string header;
    append_u32(header, 0x02014b50);
    for (const std::uint16_t v : std::initializer_list<std::uint16_t>{20, 20, 0, 0, 0, 0}) append_u16(header, v);
    for (const std::uint32_t v : {0xe8b7be43U, 1U, 1U}) append_u32(header, v);
    for (const std::uint16_t v : std::initializer_list<std::uint16_t>{1, 0, 0, 0, 0}) append_u16(header, v);
    append_u32(header, 0);  // external attributes
    append_u32(header, 0);  // local header offset
    header += "a";
    for (std::size_t i = 0; i < headers; ++i) b += header;
    const std::size_t directory_size = b.size() - directory;
    if (zip64) {
        const std::size_t record = b.size();
        append_u32(b, 0x06064b50);
        append_u64(b, 44);
        append_u16(b, 45);
        append_u16(b, 45);
        append_u32(b, 0);
        append_u32(b, 0);
        append_u64(b, declared);
        append_u64(b, declared);
        append_u64(b, directory_size);
        append_u64(b, directory);
        append_u32(b, 0x07064b50);
        append_u32(b, 0);
        append_u64(b, record);
        append_u32(b, 1);
    }
    append_end_record(b, static_cast<std::uint16_t>(zip64 ? 1 : declared % 65536), directory_size, directory);
    return b;
}

}  // namespace

TEST_CASE("ArchiveReader counts the central directory's headers before libzip reads them", "[archive][hostile]") {
    // libzip reads every header the directory holds: Info-ZIP stores the count modulo 65,536, and
    // libzip takes 65,536 more when they are there; a zip64 end record (read whenever its locator
    // is there) may declare what the 16-bit count does not. Either way one small end record had
    // libzip allocate and read every header (690 MB for a 27 MB archive) before its count was
    // checked. The headers are now counted first.
    CHECK_NOTHROW(ArchiveReader::from_bytes(many_headers(1, 1, false)));
    CHECK_NOTHROW(ArchiveReader::from_bytes(many_headers(1, 1, true)));
    for (const bool zip64 : {false, true}) {
        INFO("zip64 " << zip64);
        try {
            (void)ArchiveReader::from_bytes(many_headers(65'537, 65'537, zip64), {.max_entries = 8});
            FAIL("opened");
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::too_many_entries);
            CHECK(std::string(e.what()) ==
                  (zip64 ? "archive refused (too-many-entries): 65537 entries declared, more than the limit of 8"
                         : "archive refused (too-many-entries): more than 8 entries in the central directory (1 "
                           "declared)"));
        }
    }
    // The zip64 record's count read though the 16-bit one is small (not 0xFFFF).
    try {
        (void)ArchiveReader::from_bytes(many_headers(9, 9, true), {.max_entries = 8});
        FAIL("opened");
    } catch (const ArchiveError& e) {
        CHECK(std::string(e.what()) ==
              "archive refused (too-many-entries): 9 entries declared, more than the limit of 8");
    }
}

TEST_CASE("ArchiveReader refuses a NUL in a name (libzip reads it as a space)", "[archive][hostile]") {
    // unzip and Python's zipfile end the name at the NUL: they would see demo/SKILL.md twice.
    std::string bytes = build_zip(with(good_items(), {"demo/SKILL.md#evil", "---\nname: demo\n---\nOther.\n"}));
    replace_all(bytes, "demo/SKILL.md#evil", std::string("demo/SKILL.md\0evil", 18));
    try {
        (void)ArchiveReader::from_bytes(bytes);
        FAIL("opened");
    } catch (const ArchiveError& e) {
        CHECK(e.problem() == ArchiveProblem::unsafe_name);
        CHECK(e.entry() == "demo/SKILL.md\\x00evil");
        CHECK(std::string(e.what()) ==
              "archive refused (unsafe-name): entry 'demo/SKILL.md\\x00evil': a NUL byte in the name");
    }
}

namespace {

// One stored file holding "a", named `local_name` in its local header and `central_name` in the
// central directory; with `zip64`, the central header's local header offset is 0xFFFFFFFF and
// the offset is in a zip64 extra field.
std::string one_entry(const std::string& local_name, const std::string& central_name, bool zip64,
                      const std::string& local_extra = "", const std::string& central_extra = "") {
    std::string b;
    append_u32(b, 0x04034b50);
    for (const std::uint16_t v : std::initializer_list<std::uint16_t>{20, 0, 0, 0, 0}) append_u16(b, v);
    for (const std::uint32_t v : {0xe8b7be43U, 1U, 1U}) append_u32(b, v);  // crc32("a"), sizes
    append_u16(b, static_cast<std::uint16_t>(local_name.size()));
    append_u16(b, static_cast<std::uint16_t>(local_extra.size()));
    b += local_name + local_extra + "a";
    const std::size_t directory = b.size();
    append_u32(b, 0x02014b50);
    for (const std::uint16_t v : std::initializer_list<std::uint16_t>{45, 45, 0, 0, 0, 0}) append_u16(b, v);
    for (const std::uint32_t v : {0xe8b7be43U, 1U, 1U}) append_u32(b, v);
    append_u16(b, static_cast<std::uint16_t>(central_name.size()));
    append_u16(b, static_cast<std::uint16_t>((zip64 ? 12 : 0) + central_extra.size()));  // the extra fields
    for (const std::uint16_t v : std::initializer_list<std::uint16_t>{0, 0, 0}) append_u16(b, v);
    append_u32(b, 0);                       // external attributes
    append_u32(b, zip64 ? 0xFFFFFFFF : 0);  // local header offset
    b += central_name;
    if (zip64) {
        append_u16(b, 0x0001);
        append_u16(b, 8);
        append_u64(b, 0);  // the local header offset
    }
    b += central_extra;
    const std::size_t directory_size = b.size() - directory;
    append_end_record(b, 1, directory_size, directory);
    return b;
}

}  // namespace

TEST_CASE("ArchiveReader refuses a local header that names its entry otherwise", "[archive][hostile]") {
    // libzip (ZIP_CHECKCONS) compares each local header with its central directory header, but
    // after turning a NUL into a space in both names: a local `demo/notes\0md` passed for a
    // central `demo/notes md`. A reader that walks the local headers (bsdtar, a streaming
    // unzipper) would list another name than the loader. The names are compared byte for byte.
    const auto refusal = [](const std::string& bytes) -> std::string {
        try {
            (void)ArchiveReader::from_bytes(bytes);
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::malformed);
            return e.what();
        }
        return "opened";
    };
    const auto patch_first = [](std::string& b, std::string_view from, std::string_view to) {
        const std::size_t at = b.find(from);
        REQUIRE(at != std::string::npos);
        REQUIRE(from.size() == to.size());
        b.replace(at, from.size(), to);
    };
    std::string nul = build_zip(with(good_items(), {"demo/notes#md", "notes\n"}));
    patch_first(nul, "demo/notes#md", std::string("demo/notes\0md", 13));  // the local header comes first
    patch_first(nul, "demo/notes#md", "demo/notes md");                    // then the central directory
    CHECK(refusal(nul) ==
          "archive refused (malformed): entry 'demo/notes md': its local header names it 'demo/notes\\x00md'");
    // Any other difference too (libzip refused this one as inconsistent, without naming the entry).
    std::string other = build_zip(good_items());
    patch_first(other, "demo/scripts/run.sh", "demo/scripts/RUN.sh");
    CHECK(refusal(other) ==
          "archive refused (malformed): entry 'demo/scripts/run.sh': its local header names it 'demo/scripts/RUN.sh'");
    // The local header found through a zip64 extra field as well.
    for (const bool zip64 : {false, true}) {
        INFO("zip64 " << zip64);
        CHECK(ArchiveReader::from_bytes(one_entry("a b", "a b", zip64))->read_file("a b", 0).data == "a");
        CHECK(refusal(one_entry(std::string("a\0b", 3), "a b", zip64)) ==
              "archive refused (malformed): entry 'a b': its local header names it 'a\\x00b'");
    }
}

TEST_CASE("ArchiveReader refuses an Info-ZIP Unicode Path field that names its entry otherwise", "[archive][hostile]") {
    // libzip (and unzip) take the name of an Info-ZIP Unicode Path extra field (0x7075) in place of
    // the header's when the field's CRC-32 of the header's name matches, even for raw names;
    // Python's zipfile ignores the field. One entry was `SKILL.md` to the loader and `notes.md`
    // to a reviewer's script. A field that repeats the header's name is what Info-ZIP's zip writes.
    const auto unicode_path = [](std::uint32_t crc_of_header_name, const std::string& name) {
        std::string field;
        append_u16(field, 0x7075);
        append_u16(field, static_cast<std::uint16_t>(5 + name.size()));
        field += '\x01';  // version
        append_u32(field, crc_of_header_name);
        return field + name;
    };
    constexpr std::uint32_t crc_notes = 0xcd093235;  // CRC-32 of "notes.md"
    const auto refusal = [](const std::string& bytes) -> std::string {
        try {
            const auto reader = ArchiveReader::from_bytes(bytes);
            std::string listed;
            for (const auto& e : reader->list_dir(".")) listed += e.name + " ";
            return "opened: " + listed;
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::malformed);
            return e.what();
        }
    };
    const std::string expected =
        "archive refused (malformed): entry 'notes.md': its Info-ZIP Unicode Path field names it 'SKILL.md'";
    for (const bool zip64 : {false, true}) {
        INFO("zip64 " << zip64);
        // In the central directory (libzip listed SKILL.md), in the local header, in both.
        CHECK(refusal(one_entry("notes.md", "notes.md", zip64, "", unicode_path(crc_notes, "SKILL.md"))) == expected);
        CHECK(refusal(one_entry("notes.md", "notes.md", zip64, unicode_path(crc_notes, "SKILL.md"), "")) == expected);
        CHECK(refusal(one_entry("notes.md", "notes.md", zip64, unicode_path(crc_notes, "SKILL.md"),
                                unicode_path(crc_notes, "SKILL.md"))) == expected);
        // Whatever its CRC says.
        CHECK(refusal(one_entry("notes.md", "notes.md", zip64, "", unicode_path(0, "SKILL.md"))) == expected);
        // The same name again: the entry as the header names it.
        const std::string same = unicode_path(crc_notes, "notes.md");
        CHECK(refusal(one_entry("notes.md", "notes.md", zip64, same, same)) == "opened: notes.md ");
        CHECK(ArchiveReader::from_bytes(one_entry("notes.md", "notes.md", zip64, same, same))
                  ->read_file("notes.md", 0)
                  .data == "a");
    }
}

TEST_CASE("ArchiveReader refuses unsafe entry names", "[archive][hostile]") {
    const std::vector<std::string> bad = {
        "../evil.md",
        "demo/../../evil.md",
        "demo/./x.md",
        "./demo/x.md",
        "/etc/evil.md",
        "C:/evil.md",
        "demo/c:evil.md",
        "demo\\evil.md",
        "demo//evil.md",
        "~/evil.md",
        "demo/~evil.md",
        "demo/a\x01.md",
        "demo/a\x7f.md",
        "demo/a\xc2\x85.md",                    // U+0085, a C1 control
        "demo/\xff\xfe.md",                     // not UTF-8
        "\xef\xbc\x8e\xef\xbc\x8e/evil.md",     // fullwidth full stops: '..' after NFKC
        "demo\xef\xbc\x8f..\xef\xbc\x8f x.md",  // fullwidth solidus: 'demo/../ x.md' after NFKC
        "demo\xef\xbc\xbc"
        "evil.md",  // fullwidth backslash
        "demo/" + std::string(1100, 'a'),
    };
    for (const std::string& name : bad) {
        INFO(name);
        CHECK(problem_of(build_zip(with(good_items(), {name, "x"}))) == ArchiveProblem::unsafe_name);
    }
    std::string deep = "demo";
    for (int i = 0; i < 40; ++i) deep += "/d";
    CHECK(problem_of(build_zip(with(good_items(), {deep, "x"}))) == ArchiveProblem::unsafe_name);
    CHECK_NOTHROW(open_archive_skill(build_zip(with(good_items(), {deep, "x"})), {.max_depth = 64}));
    // Names that look odd but are fine.
    CHECK_NOTHROW(open_archive_skill(build_zip(with(good_items(), {"demo/a..b/c...md", "x"}))));
    CHECK_NOTHROW(open_archive_skill(build_zip(with(good_items(), {"demo/r\xc3\xa9sum\xc3\xa9.md", "x"}))));
}

TEST_CASE("ArchiveReader refuses links and entries that are not regular files", "[archive][hostile]") {
    auto unix_entry = [](std::string name, std::uint32_t mode, bool directory = false) {
        return Item{std::move(name), directory ? "" : "../../etc/passwd", directory, ZIP_CM_DEFLATE,
                    std::pair<zip_uint8_t, zip_uint32_t>{ZIP_OPSYS_UNIX, mode << 16}};
    };
    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/link", 0120777)))) == ArchiveProblem::symlink);
    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/linkdir/", 0120777, true)))) ==
          ArchiveProblem::symlink);
    // A link is a link whatever system the archive claims to come from.
    Item other_system = unix_entry("demo/link", 0120777);
    other_system.attributes->first = ZIP_OPSYS_OS_X;
    CHECK(problem_of(build_zip(with(good_items(), other_system))) == ArchiveProblem::symlink);
    Item reparse{"demo/junction", "x", false, ZIP_CM_DEFLATE,
                 std::pair<zip_uint8_t, zip_uint32_t>{ZIP_OPSYS_WINDOWS_NTFS, 0x420}};
    CHECK(problem_of(build_zip(with(good_items(), reparse))) == ArchiveProblem::symlink);

    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/fifo", 0010644)))) == ArchiveProblem::not_regular);
    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/chr", 0020644)))) == ArchiveProblem::not_regular);
    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/blk", 0060644)))) == ArchiveProblem::not_regular);
    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/sock", 0140755)))) == ArchiveProblem::not_regular);
    // A directory mode on a file name, and a file mode on a directory name.
    CHECK(problem_of(build_zip(with(good_items(), unix_entry("demo/d", 0040755)))) == ArchiveProblem::not_regular);
    Item file_mode_dir{"demo/d/", "", false, ZIP_CM_STORE,
                       std::pair<zip_uint8_t, zip_uint32_t>{ZIP_OPSYS_UNIX, 0100644U << 16}};
    CHECK(problem_of(build_zip(with(good_items(), file_mode_dir))) == ArchiveProblem::not_regular);
    Item dos_dir{"demo/d", "", false, ZIP_CM_STORE, std::pair<zip_uint8_t, zip_uint32_t>{ZIP_OPSYS_DOS, 0x10}};
    CHECK(problem_of(build_zip(with(good_items(), dos_dir))) == ArchiveProblem::not_regular);
    Item volume{"demo/label", "", false, ZIP_CM_STORE, std::pair<zip_uint8_t, zip_uint32_t>{ZIP_OPSYS_DOS, 0x08}};
    CHECK(problem_of(build_zip(with(good_items(), volume))) == ArchiveProblem::not_regular);
    Item dir_with_data{"demo/d/", "data", false, ZIP_CM_STORE};
    CHECK(problem_of(build_zip(with(good_items(), dir_with_data))) == ArchiveProblem::not_regular);

    // Ordinary modes are accepted (an executable script, a read-only file, a directory).
    CHECK_NOTHROW(open_archive_skill(build_zip(
        with(with(good_items(), unix_entry("demo/scripts/x.sh", 0100755)), unix_entry("demo/empty/", 0040755, true)))));
}

TEST_CASE("ArchiveReader refuses duplicate and colliding names", "[archive][hostile]") {
    SECTION("the same name twice") {
        std::string bytes = build_zip(with(with(good_items(), {"demo/AAAA.md", "one"}), {"demo/BBBB.md", "two"}));
        replace_all(bytes, "demo/BBBB.md", "demo/AAAA.md");
        const ArchiveProblem p = problem_of(bytes);
        CHECK(p == ArchiveProblem::duplicate_name);
    }
    SECTION("the same directory twice") {
        std::string bytes = build_zip(with(with(good_items(), {"demo/aaaa/", "", true}), {"demo/bbbb/", "", true}));
        replace_all(bytes, "demo/bbbb/", "demo/aaaa/");
        const ArchiveProblem p = problem_of(bytes);
        CHECK(p == ArchiveProblem::duplicate_name);
    }
    SECTION("names equal after NFKC") {
        // U+FB01 LATIN SMALL LIGATURE FI is "fi" after NFKC.
        CHECK(problem_of(build_zip(with(with(good_items(), {"demo/file.md", "a"}), {"demo/\xef\xac\x81le.md", "b"}))) ==
              ArchiveProblem::duplicate_name);
        // Directories collide too, even when only implied by the files inside them.
        CHECK(problem_of(build_zip(with(with(good_items(), {"demo/fi/a.md", "a"}), {"demo/\xef\xac\x81/b.md", "b"}))) ==
              ArchiveProblem::duplicate_name);
        // U+212B ANGSTROM SIGN and U+00C5: one name after NFKC.
        CHECK(problem_of(build_zip(with(with(good_items(), {"demo/\xc3\x85.md", "a"}),
                                        {"demo/\xe2\x84\xab.md", "b"}))) == ArchiveProblem::duplicate_name);
    }
    SECTION("a name that is a file and a directory") {
        CHECK(problem_of(build_zip(with(with(good_items(), {"demo/a", "file"}), {"demo/a/b", "below"}))) ==
              ArchiveProblem::conflicting_kind);
        CHECK(problem_of(build_zip(with(with(good_items(), {"demo/a/b", "below"}), {"demo/a", "file"}))) ==
              ArchiveProblem::conflicting_kind);
        CHECK(problem_of(build_zip(with(with(good_items(), {"demo/a/", "", true}), {"demo/a", "file"}))) ==
              ArchiveProblem::conflicting_kind);
    }
}

TEST_CASE("ArchiveReader refuses encrypted entries and unknown compression methods", "[archive][hostile]") {
    SECTION("unknown method") {
        std::string bytes = build_zip(with(good_items(), {"demo/data.txt", "plain", false, ZIP_CM_STORE}));
        // Method 6 (implode) is one libzip cannot decompress; patch it into the entry's headers.
        const auto local = find_all(bytes, "PK\x03\x04");
        const auto central = find_all(bytes, "PK\x01\x02");
        REQUIRE(local.size() == 4);
        REQUIRE(central.size() == 4);
        put_u16(bytes, local[3] + 8, 6);
        put_u16(bytes, central[3] + 10, 6);
        const ArchiveProblem p = problem_of(bytes);
        CHECK(p == ArchiveProblem::unsupported);
    }
    SECTION("encryption flag") {
        std::string bytes = build_zip(with(good_items(), {"demo/secret.txt", "plain", false, ZIP_CM_STORE}));
        const auto local = find_all(bytes, "PK\x03\x04");
        const auto central = find_all(bytes, "PK\x01\x02");
        // General-purpose flag bit 0: traditional PKWARE encryption.
        put_u16(bytes, local[3] + 6, static_cast<std::uint16_t>(bytes[local[3] + 6] | 1));
        put_u16(bytes, central[3] + 8, static_cast<std::uint16_t>(bytes[central[3] + 8] | 1));
        const ArchiveProblem p = problem_of(bytes);
        CHECK(p == ArchiveProblem::encrypted);
    }
}

TEST_CASE("open_archive_skill refuses archives without one skill", "[archive]") {
    CHECK(problem_of(build_zip({})) == ArchiveProblem::no_skill);
    CHECK(problem_of(build_zip({{"demo/README.md", "no skill"}})) == ArchiveProblem::no_skill);
    CHECK(problem_of(build_zip({{"one/SKILL.md", good_skill}, {"two/SKILL.md", good_skill}})) ==
          ArchiveProblem::no_skill);
    CHECK(problem_of(build_zip({{"demo/SKILL.md", good_skill}, {"README.md", "next to it"}})) ==
          ArchiveProblem::no_skill);
    CHECK(problem_of(build_zip({{"SKILL.md/", "", true}, {"SKILL.md/x", "x"}})) == ArchiveProblem::no_skill);
    CHECK(problem_of(build_zip({{"demo/SKILL.md/", "", true}})) == ArchiveProblem::no_skill);
    // ArchiveReader itself takes any layout.
    CHECK(ArchiveReader::from_bytes(build_zip({{"one/a", "a"}, {"two/b", "b"}}))->file_count() == 2);
}

TEST_CASE("archive errors name the problem and the entry", "[archive]") {
    try {
        (void)open_archive_skill(build_zip(with(good_items(), {"demo/../x\x01", "x"})));
        FAIL("accepted");
    } catch (const IoError& e) {
        const auto* archive_error = dynamic_cast<const ArchiveError*>(&e);
        REQUIRE(archive_error != nullptr);
        CHECK(archive_error->entry() == "demo/../x\\x01");
        CHECK(std::string(e.what()) ==
              "archive refused (unsafe-name): entry 'demo/../x\\x01': control character in the name");
    }
    CHECK(archive_problem_name(ArchiveProblem::ratio_too_high) == "ratio-too-high");
    CHECK(archive_problem_name(ArchiveProblem::no_skill) == "no-skill");
    CHECK(is_archive_skill_name("demo.skill"));
    CHECK(is_archive_skill_name("Demo.ZIP"));
    CHECK_FALSE(is_archive_skill_name(".zip"));
    CHECK_FALSE(is_archive_skill_name("demo.zipx"));
    CHECK_FALSE(is_archive_skill_name("demo"));
}

TEST_CASE("ArchiveReader is safe to read from several threads", "[archive][concurrency]") {
    std::vector<Item> items = good_items();
    for (std::uint32_t i = 0; i < 8; ++i) items.push_back({"demo/assets/n" + std::to_string(i), noise(20'000, i)});
    const auto skill = open_archive_skill(build_zip(items));
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (std::uint32_t t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int round = 0; round < 20; ++round) {
                const std::uint32_t i = (t + static_cast<std::uint32_t>(round)) % 8;
                if (skill.reader->read_file("demo/assets/n" + std::to_string(i), 0).data != noise(20'000, i))
                    ++failures;
                if (skill.reader->list_dir("demo/assets").size() != 8) ++failures;
                if (skill.reader->stat("demo/SKILL.md").size != good_skill.size()) ++failures;
            }
        });
    }
    for (auto& th : threads) th.join();
    CHECK(failures == 0);
}

// ---------------------------------------------------------------------------------------
// Archive children in a library (FilesystemLoaderOptions::sources, archive_child_source)

namespace {

FilesystemLoaderOptions archive_library(std::vector<std::string> roots, ArchiveLimits limits = {}) {
    FilesystemLoaderOptions o;
    o.roots = std::move(roots);
    o.include_default_roots = false;
    o.sources.child_openers = {archive_child_source(limits)};
    return o;
}

std::vector<std::string> skill_names(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& m : d.skills) out.push_back(m.name);
    return out;
}

std::vector<std::string> codes_of(const Discovery& d) {
    std::vector<std::string> out;
    for (const auto& x : d.diagnostics) out.push_back(x.code);
    return out;
}

}  // namespace

TEST_CASE("a FIFO named like an archive is reported, never opened", "[archive][loader][hostile]") {
    TempDir lib;
    lib.write("alpha/SKILL.md", skill_md("alpha", "A directory skill."));
    REQUIRE(::mkfifo(lib.path("pipe.skill").c_str(), 0600) == 0);  // nobody writes: an open would block
    REQUIRE(::mkfifo(lib.path("notes.fifo").c_str(), 0600) == 0);  // not a name a source opens: ignored
    FilesystemSkillLoader loader(archive_library({lib.path()}));
    const Discovery d = loader.discover();
    CHECK(skill_names(d) == std::vector<std::string>{"alpha"});
    REQUIRE(d.skipped.size() == 1);
    CHECK(d.skipped[0].path == lib.path("pipe.skill"));
    CHECK(d.skipped[0].reason == SkipReason::unreadable);
    CHECK(d.skipped[0].message ==
          lib.path("pipe.skill") + " is not a regular file (a FIFO, socket or device); it was not opened");
    CHECK(codes_of(d) == std::vector<std::string>{"skill-unreadable"});
}

TEST_CASE("agentskills validate reads an archive as list does", "[archive][cli]") {
    if (std::string(AGENTSKILLS_CLI_PATH).empty()) return;  // the program is not built
    TempDir lib;
    lib.write("demo.skill", build_zip(good_items()));
    lib.write("broken.zip", build_zip({{"SKILL.md", "---\nname: broken\n"}}));
    const auto listed = agentskills::test::run_cli({"list", "--root", lib.path()});
    CHECK(listed.out == "demo\t" + lib.path("demo.skill") + "!/demo/SKILL.md\n");
    // A PATH that is an archive, through the program's archive source.
    const auto one = agentskills::test::run_cli({"validate", lib.path("demo.skill")});
    CHECK(one.status == 0);
    CHECK(one.out == lib.path("demo.skill") + ": ok\n");
    const auto bad = agentskills::test::run_cli({"validate", "--json", lib.path("broken.zip")});
    CHECK(bad.status == 1);
    const auto j = nlohmann::json::parse(bad.out);
    CHECK(j["skills"][0]["skill_file"] == lib.path("broken.zip") + "!/SKILL.md");
    CHECK(j["skills"][0]["diagnostics"][0]["code"] == "frontmatter-unclosed");
    // A library of archives with --root: every skill list finds, the broken one invalid.
    const auto all = agentskills::test::run_cli({"validate", "--root", lib.path()});
    CHECK(all.status == 1);
    CHECK(all.out.find(lib.path("demo.skill") + "!/demo: ok\n") != std::string::npos);
    CHECK(all.out.find(lib.path("broken.zip") + "!/SKILL.md:1: error: ") != std::string::npos);
    CHECK(all.out.find("invalid-utf8") == std::string::npos);
}

TEST_CASE("a library child .skill or .zip is a skill, read in place", "[archive][loader]") {
    TempDir lib;
    lib.write("alpha/SKILL.md", skill_md("alpha", "A directory skill."));
    lib.write("demo.skill", build_zip(good_items()));
    lib.write("rooty.ZIP",
              build_zip({{"SKILL.md", skill_md("rooty", "At the root.", "Rooted.")}, {"references/r.md", "root ref"}}));
    lib.write("notes.txt", "not a skill");
    FilesystemSkillLoader loader(archive_library({lib.path()}));
    const Discovery d = loader.discover();
    CHECK(d.diagnostics.empty());
    CHECK(d.skipped.empty());
    REQUIRE(skill_names(d) == std::vector<std::string>{"alpha", "demo", "rooty"});
    CHECK(d.skills[1].skill_file == lib.path("demo.skill") + "!/demo/SKILL.md");
    CHECK(d.skills[1].root == lib.path("demo.skill") + "!/demo");
    CHECK(d.skills[1].library == lib.path());
    CHECK(d.skills[2].skill_file == lib.path("rooty.ZIP") + "!/SKILL.md");
    CHECK(d.skills[2].root == lib.path("rooty.ZIP") + "!");

    const LoadedSkill demo = loader.load("demo");
    CHECK(demo.instructions == "Do the demo.");
    std::vector<std::string> resources;
    for (const auto& r : demo.resources) resources.push_back(r.path);
    CHECK(resources == std::vector<std::string>{"scripts/run.sh", "references/guide.md"});
    const std::string root = lib.path("demo.skill") + "!/demo";
    CHECK(render_activation_text(demo, {.include_directory = true}) ==
          "<skill_content name=\"demo\">\nDo the demo.\n\nSkill directory: " + root + "\n" +
              std::string(SKILL_DIRECTORY_NOTE) +
              "\n\n<skill_resources>\n"
              "  <file path=\"scripts/run.sh\" read_path=\"" +
              root +
              "/scripts/run.sh\" />\n"
              "  <file path=\"references/guide.md\" read_path=\"" +
              root + "/references/guide.md\" />\n</skill_resources>\n</skill_content>");

    // The resource tool reads through the reader the loader gives for the skill.
    const SkillReaderPtr demo_reader = loader.reader_for("demo");
    REQUIRE(demo_reader != nullptr);
    CHECK(demo_reader != loader.reader());
    CHECK(loader.reader_for("alpha") == loader.reader());
    CHECK(read_skill_resource_text(demo, *demo_reader, "references/guide.md") == "# Guide\n");
    CHECK(demo_reader->read_file(root + "/scripts/run.sh", 0).data == "#!/bin/sh\necho hi\n");
    CHECK_THROWS_AS(demo_reader->read_file(root + "/../../etc/passwd", 0), PathError);

    const LoadedSkill rooty = loader.load("rooty");
    CHECK(rooty.instructions == "Rooted.");
    REQUIRE(rooty.resources.size() == 1);
    CHECK(rooty.resources[0].path == "references/r.md");
    CHECK(read_skill_resource_text(rooty, *loader.reader_for("rooty"), "references/r.md") == "root ref");

    // A new archive in place of the old one is read again; a removed one is gone.
    lib.write("demo.skill", build_zip({{"demo/SKILL.md", skill_md("demo", "Version two.")}}));
    const Discovery again = loader.discover();
    REQUIRE(skill_names(again) == std::vector<std::string>{"alpha", "demo", "rooty"});
    CHECK(again.skills[1].description == "Version two.");
    CHECK(loader.load("demo").resources.empty());
    std::filesystem::remove(lib.path("demo.skill"));
    CHECK(skill_names(loader.discover()) == std::vector<std::string>{"alpha", "rooty"});
    CHECK_THROWS_AS(loader.load("demo"), NotFoundError);

    // Without the source installed, archives are ordinary files.
    FilesystemSkillLoader plain({.roots = {lib.path()}, .include_default_roots = false});
    CHECK(skill_names(plain.discover()) == std::vector<std::string>{"alpha"});
}

TEST_CASE("every archive refusal skips that archive with archive-refused, and the others load", "[archive][loader]") {
    const ArchiveLimits limits{
        .max_archive_bytes = 1'000'000, .max_entries = 8, .max_file_bytes = 150'000, .max_total_bytes = 300'000};
    auto unix_entry = [](std::string name, std::uint32_t mode) {
        return Item{std::move(name), "../../etc/passwd", false, ZIP_CM_DEFLATE,
                    std::pair<zip_uint8_t, zip_uint32_t>{ZIP_OPSYS_UNIX, mode << 16}};
    };
    std::vector<Item> many = good_items();
    for (int i = 0; i < 6; ++i) many.push_back({"demo/assets/f" + std::to_string(i), "x"});
    std::vector<Item> total = good_items();
    for (std::uint32_t i = 0; i < 3; ++i) total.push_back({"demo/assets/n" + std::to_string(i), noise(120'000, i)});
    std::string mismatch = build_zip(with(good_items(), {"demo/data.txt", "stored text", false, ZIP_CM_STORE}));
    for (std::size_t at : find_all(mismatch, "PK\x03\x04")) {
        if (mismatch.compare(at + 30, 13, "demo/data.txt") == 0) put_u32(mismatch, at + 22, 90'000);
    }
    for (std::size_t at : find_all(mismatch, "PK\x01\x02")) {
        if (mismatch.compare(at + 46, 13, "demo/data.txt") == 0) put_u32(mismatch, at + 24, 90'000);
    }
    std::string unsupported = build_zip(with(good_items(), {"demo/data.txt", "plain", false, ZIP_CM_STORE}));
    std::string encrypted = unsupported;
    {
        const auto local = find_all(unsupported, "PK\x03\x04");
        const auto central = find_all(unsupported, "PK\x01\x02");
        REQUIRE(local.size() == 4);
        REQUIRE(central.size() == 4);
        put_u16(unsupported, local[3] + 8, 6);
        put_u16(unsupported, central[3] + 10, 6);
        put_u16(encrypted, local[3] + 6, static_cast<std::uint16_t>(encrypted[local[3] + 6] | 1));
        put_u16(encrypted, central[3] + 8, static_cast<std::uint16_t>(encrypted[central[3] + 8] | 1));
    }
    struct Bad {
        std::string problem;
        std::string bytes;
        std::string entry;  // the entry the message names ("" = the archive as a whole)
    };
    const std::vector<Bad> bad = {
        {"too-large", build_zip({{"demo/SKILL.md", good_skill}, {"demo/big.bin", noise(1'100'000)}}), ""},
        {"malformed", "this is not a zip archive", ""},
        {"too-many-entries", build_zip(many), ""},
        {"file-too-large", build_zip(with(good_items(), {"demo/assets/big.bin", noise(200'000)})),
         "demo/assets/big.bin"},
        {"total-too-large", build_zip(total), "demo/assets/n2"},
        {"ratio-too-high", build_zip(with(good_items(), {"demo/assets/zeros.bin", std::string(140'000, '\0')})),
         "demo/assets/zeros.bin"},
        {"size-mismatch", mismatch, "demo/data.txt"},
        {"unsafe-name", build_zip(with(good_items(), {"demo/../../evil.md", "x"})), "demo/../../evil.md"},
        {"duplicate-name", build_zip(with(with(good_items(), {"demo/file.md", "a"}), {"demo/\xef\xac\x81le.md", "b"})),
         "demo/\xef\xac\x81le.md"},
        {"conflicting-kind", build_zip(with(with(good_items(), {"demo/a", "file"}), {"demo/a/b", "below"})),
         "demo/a/b"},
        {"symlink", build_zip(with(good_items(), unix_entry("demo/link", 0120777))), "demo/link"},
        {"not-regular", build_zip(with(good_items(), unix_entry("demo/fifo", 0010644))), "demo/fifo"},
        {"encrypted", encrypted, "demo/data.txt"},
        {"unsupported", unsupported, "demo/data.txt"},
        {"no-skill", build_zip({{"demo/README.md", "no skill"}}), ""},
    };
    TempDir lib;
    lib.write("good/SKILL.md", skill_md("good", "The one that loads."));
    for (const Bad& b : bad) lib.write("bad-" + b.problem + ".skill", b.bytes);
    FilesystemSkillLoader loader(archive_library({lib.path()}, limits));
    const Discovery d = loader.discover();
    CHECK(skill_names(d) == std::vector<std::string>{"good"});
    REQUIRE(d.skipped.size() == bad.size());
    REQUIRE(d.diagnostics.size() == bad.size());
    std::vector<std::string> sorted_problems;
    for (const Bad& b : bad) sorted_problems.push_back(b.problem);
    std::sort(sorted_problems.begin(), sorted_problems.end());  // the library's children are in name order
    for (std::size_t i = 0; i < bad.size(); ++i) {
        const Bad& b =
            *std::find_if(bad.begin(), bad.end(), [&](const Bad& x) { return x.problem == sorted_problems[i]; });
        const std::string file = lib.path("bad-" + b.problem + ".skill");
        INFO(b.problem << ": " << d.skipped[i].message);
        CHECK(d.skipped[i].path == file);
        CHECK(d.skipped[i].reason == SkipReason::unreadable);
        const std::string head = file + ": archive refused (" + b.problem + "): ";
        CHECK(d.skipped[i].message.substr(0, head.size()) == head);
        if (!b.entry.empty()) CHECK(d.skipped[i].message.find("entry '" + b.entry + "'") != std::string::npos);
        CHECK(d.diagnostics[i].code == codes::archive_refused);
        CHECK(d.diagnostics[i].severity == Severity::error);
        CHECK(d.diagnostics[i].path == file);
        CHECK(d.diagnostics[i].message == d.skipped[i].message);
    }
    // Selection goes by the file's stem for a refused archive.
    auto excluding = archive_library({lib.path()}, limits);
    excluding.exclude = {"bad-malformed"};
    FilesystemSkillLoader excluded(std::move(excluding));
    CHECK(excluded.discover().skipped.size() == bad.size() - 1);
}

TEST_CASE("an archive child joins precedence and duplicate-name rules", "[archive][loader]") {
    TempDir a;
    TempDir b;
    a.write("demo/SKILL.md", skill_md("demo", "From a directory."));
    a.write("demo.skill", build_zip(good_items()));
    SECTION("a directory and an archive in one library: the first in name order is kept") {
        FilesystemSkillLoader loader(archive_library({a.path()}));
        const Discovery d = loader.discover();
        REQUIRE(d.skills.size() == 1);
        CHECK(d.skills[0].description == "From a directory.");
        REQUIRE(d.skipped.size() == 1);
        const std::string archived = a.path("demo.skill") + "!/demo/SKILL.md";
        CHECK(d.skipped[0].path == archived);
        CHECK(d.skipped[0].reason == SkipReason::duplicate_name);
        CHECK(d.skipped[0].message ==
              "skill name 'demo' of " + archived + " is already used by " + a.path("demo/SKILL.md"));
        CHECK(codes_of(d) == std::vector<std::string>{std::string(codes::duplicate_name)});
        auto strict = archive_library({a.path()});
        strict.duplicate_names = DuplicateNames::error;
        FilesystemSkillLoader strict_loader(std::move(strict));
        CHECK_THROWS_AS(strict_loader.discover(), DiscoveryError);
    }
    SECTION("an archive in an earlier root wins over a directory in a later one") {
        b.write("demo.skill", build_zip(good_items()));
        FilesystemSkillLoader loader(archive_library({b.path(), a.path()}));
        const Discovery d = loader.discover();
        REQUIRE(d.skills.size() == 1);
        CHECK(d.skills[0].description == "A demo skill.");
        CHECK(d.skills[0].skill_file == b.path("demo.skill") + "!/demo/SKILL.md");
        // a's directory differs; a's archive holds the same bytes: a copy.
        CHECK(codes_of(d) ==
              std::vector<std::string>{std::string(codes::duplicate_name), std::string(codes::duplicate_copy)});
        CHECK(loader.load("demo").instructions == "Do the demo.");
    }
    SECTION("exclude leaves the archive's skill out by its name") {
        auto o = archive_library({a.path()});
        o.exclude = {"demo"};
        FilesystemSkillLoader loader(std::move(o));
        const Discovery d = loader.discover();
        CHECK(d.skills.empty());
        CHECK(d.skipped.empty());
    }
}

TEST_CASE("discovery with archive children stays right when it is repeated", "[archive][loader]") {
    TempDir lib;
    lib.write("alpha/SKILL.md", skill_md("alpha", "A."));
    FilesystemSkillLoader loader(archive_library({lib.path()}));
    CHECK(skill_names(loader.discover()) == std::vector<std::string>{"alpha"});
    CHECK(skill_names(loader.discover()) == std::vector<std::string>{"alpha"});  // the snapshot
    lib.write("demo.zip", build_zip(good_items()));
    CHECK(skill_names(loader.discover()) == std::vector<std::string>{"alpha", "demo"});
    CHECK(skill_names(loader.discover()) == std::vector<std::string>{"alpha", "demo"});
    lib.write("demo.zip", "broken now");
    const Discovery d = loader.discover();
    CHECK(skill_names(d) == std::vector<std::string>{"alpha"});
    CHECK(codes_of(d) == std::vector<std::string>{std::string(codes::archive_refused)});
    // A directory named like an archive is still a directory.
    std::filesystem::remove(lib.path("demo.zip"));
    lib.write("demo.zip/SKILL.md", skill_md("demo.zip", "A directory with a dot.", "Dir."));
    auto o = archive_library({lib.path()});
    o.name_policy = NamePolicy::keep;
    FilesystemSkillLoader dir_loader(std::move(o));
    CHECK(skill_names(dir_loader.discover()) == std::vector<std::string>{"alpha", "demo.zip"});
}

TEST_CASE("agentskills list and render read a library holding a .skill", "[archive][cli]") {
    if (std::string(AGENTSKILLS_CLI_PATH).empty()) return;  // the program is not built
    TempDir tmp;
    tmp.write("lib/alpha/SKILL.md", skill_md("alpha", "A directory skill."));
    tmp.write("lib/demo.skill", build_zip(good_items()));
    tmp.write("lib/bad.zip", build_zip(with(good_items(), {"demo/../../evil.md", "x"})));
    const std::string lib = tmp.path("lib");
    const auto list = agentskills::test::run_cli({"list", "--root", lib}, tmp.path());
    CHECK(list.status == 0);
    CHECK(list.out == "alpha\t" + lib + "/alpha/SKILL.md\ndemo\t" + lib + "/demo.skill!/demo/SKILL.md\n");
    CHECK(list.err.find(lib + "/bad.zip: archive refused (unsafe-name): entry 'demo/../../evil.md': '..' component") !=
          std::string::npos);
    const auto render = agentskills::test::run_cli({"render", "--root", lib, "demo"}, tmp.path());
    CHECK(render.status == 0);
    CHECK(render.out.find("<file path=\"references/guide.md\" read_path=\"" + lib +
                          "/demo.skill!/demo/references/guide.md\" />") != std::string::npos);

    // A copy of the program without its optional components' program (cli/extras.hpp): the archive
    // children are skipped, saying why, and the directory skill still loads.
    const std::string program = tmp.path("bin/agentskills");
    std::filesystem::create_directories(tmp.path("bin"));
    std::filesystem::copy_file(AGENTSKILLS_CLI_PATH, program);
    std::filesystem::permissions(program, std::filesystem::perms::owner_all);
    const auto lone = agentskills::test::run_program(program, {"list", "--root", lib}, tmp.path());
    CHECK(lone.status == 0);
    const std::string why =
        ".skill and .zip library children needs the program agentskills-extras, which could not be "
        "run: " +
        tmp.path("bin") + "/agentskills-extras (not found); ";
    CHECK(lone.out == "alpha\t" + lib + "/alpha/SKILL.md\n");
    CHECK(lone.err.find(lib + "/bad.zip: error: cannot read " + lib + "/bad.zip: " + why) != std::string::npos);
    CHECK(lone.err.find(lib + "/demo.skill: error: cannot read " + lib + "/demo.skill: " + why) != std::string::npos);
}

}  // namespace archive_reader_tests
