// Tests of archive_reader.hpp: ArchiveReader, open_archive_skill and every refusal. Each bad
// archive is built here with libzip's write API (and, for lying headers, patched bytes).
#include <zip.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "agentskills/archive_reader.hpp"
#include "agentskills/errors.hpp"
#include "agentskills/loader.hpp"
#include "fs_fixtures.hpp"

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
        // Deflated noise whose sizes are patched down: the read stops at the claimed size and
        // finds more data behind it.
        std::string bytes = build_zip({{"data.bin", noise(50'000)}});
        for (std::size_t at : find_all(bytes, "PK\x03\x04")) put_u32(bytes, at + 22, 1000);
        for (std::size_t at : find_all(bytes, "PK\x01\x02")) put_u32(bytes, at + 24, 1000);
        const auto reader = ArchiveReader::from_bytes(bytes);
        CHECK(reader->stat("data.bin").size == 1000);
        try {
            (void)reader->read_file("data.bin", 0);
            FAIL("read");
        } catch (const ArchiveError& e) {
            CHECK(e.problem() == ArchiveProblem::size_mismatch);
        } catch (const IoError& e) {
            // libzip noticed first (a CRC error); refused all the same.
            CHECK(std::string(e.what()).find("data.bin") != std::string::npos);
        }
        CHECK(reader->read_file("data.bin", 100).data.size() == 100);  // a bounded prefix is fine
    }
    SECTION("a header that claims more bytes than the data holds") {
        std::string bytes = build_zip({{"data.bin", noise(5'000)}});
        for (std::size_t at : find_all(bytes, "PK\x03\x04")) put_u32(bytes, at + 22, 6000);
        for (std::size_t at : find_all(bytes, "PK\x01\x02")) put_u32(bytes, at + 24, 6000);
        const auto reader = ArchiveReader::from_bytes(bytes);
        CHECK_THROWS_AS(reader->read_file("data.bin", 0), IoError);
    }
    SECTION("a stored entry whose sizes disagree") {
        std::string bytes = build_zip({{"data.txt", "stored text", false, ZIP_CM_STORE}});
        for (std::size_t at : find_all(bytes, "PK\x03\x04")) put_u32(bytes, at + 22, 100'000);
        for (std::size_t at : find_all(bytes, "PK\x01\x02")) put_u32(bytes, at + 24, 100'000);
        CHECK(problem_of(bytes) == ArchiveProblem::size_mismatch);
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
