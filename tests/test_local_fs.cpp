// The one local directory listing (src/local_fs.hpp): what it reports of each kind of child in
// each mode, and its errors. LocalSkillReader, discovery, the MCP index and the watcher use it.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <agentskills/base/errors.hpp>
#include <agentskills/storage/reader.hpp>

#include "../src/catalog/prefault.hpp"
#include "../src/storage/local_fs.hpp"
#include "fs_fixtures.hpp"

using namespace agentskills;
namespace local = agentskills::detail::local;

namespace {

struct Seen {
    EntryKind kind;
    bool is_symlink;
    std::uint64_t bytes;
    bool has_time;
};

std::map<std::string, Seen> listing(const std::string& dir, local::ListOptions options, int& err) {
    std::string names;
    std::vector<local::ListedEntry> items;
    err = local::list_directory(dir, options, names, items);
    std::map<std::string, Seen> out;
    for (const auto& e : items) {
        out[names.substr(e.offset, e.size)] = Seen{e.kind, e.is_symlink, e.bytes, e.mtime_ns != 0};
    }
    return out;
}

// A directory with a file, a hidden file, a directory, links to both, a dangling link and a FIFO.
void fill(const agentskills_test::TempDir& dir) {
    dir.write("d/file.txt", "12345");
    dir.write("d/.hidden", "x");
    dir.mkdir("d/sub");
    std::filesystem::create_symlink("file.txt", dir.path("d/to-file"));
    std::filesystem::create_symlink("sub", dir.path("d/to-sub"));
    std::filesystem::create_symlink("nowhere", dir.path("d/dangling"));
    REQUIRE(::mkfifo(dir.path("d/fifo").c_str(), 0600) == 0);
}

}  // namespace

TEST_CASE("list_directory: kinds with links followed, hidden names, no dot entries", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = -1;
    const auto seen = listing(dir.path("d"), {.follow_symlinks = true, .stats = false}, err);
    CHECK(err == 0);
    REQUIRE(seen.size() == 7);
    CHECK(seen.count(".") == 0);
    CHECK(seen.count("..") == 0);
    CHECK(seen.at(".hidden").kind == EntryKind::file);
    CHECK(seen.at("file.txt").kind == EntryKind::file);
    CHECK_FALSE(seen.at("file.txt").is_symlink);
    CHECK(seen.at("sub").kind == EntryKind::directory);
    CHECK(seen.at("to-file").kind == EntryKind::file);
    CHECK(seen.at("to-file").is_symlink);
    CHECK(seen.at("to-sub").kind == EntryKind::directory);
    CHECK(seen.at("to-sub").is_symlink);
    CHECK(seen.at("dangling").kind == EntryKind::other);
    CHECK(seen.at("dangling").is_symlink);
    CHECK(seen.at("fifo").kind == EntryKind::other);
    CHECK(seen.at("file.txt").bytes == 0);  // no stats asked for
    CHECK_FALSE(seen.at("file.txt").has_time);
}

TEST_CASE("list_directory: links not followed are symlinks of kind other", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = -1;
    const auto seen = listing(dir.path("d"), {.follow_symlinks = false, .stats = false}, err);
    CHECK(err == 0);
    REQUIRE(seen.size() == 7);
    for (const char* link : {"to-file", "to-sub", "dangling"}) {
        CAPTURE(link);
        CHECK(seen.at(link).kind == EntryKind::other);
        CHECK(seen.at(link).is_symlink);
    }
    CHECK(seen.at("sub").kind == EntryKind::directory);
    CHECK(seen.at("file.txt").kind == EntryKind::file);
}

TEST_CASE("list_directory: stats give file sizes and times, a dangling link its own time", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = -1;
    const auto seen = listing(dir.path("d"), {.follow_symlinks = true, .stats = true}, err);
    CHECK(err == 0);
    CHECK(seen.at("file.txt").bytes == 5);
    CHECK(seen.at("file.txt").has_time);
    CHECK(seen.at("to-file").bytes == 5);
    CHECK(seen.at("sub").bytes == 0);
    CHECK(seen.at("dangling").kind == EntryKind::other);
    CHECK(seen.at("dangling").bytes == 0);
    CHECK(seen.at("dangling").has_time);
}

TEST_CASE("list_directory: errors are the errno of the failing call; the fd is taken over", "[local-fs]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    int err = 0;
    CHECK(listing(dir.path("missing"), {}, err).empty());
    CHECK(err == ENOENT);
    CHECK(listing(dir.path("d/file.txt"), {}, err).empty());
    CHECK(err == ENOTDIR);
    std::string names;
    std::vector<local::ListedEntry> items;
    CHECK(local::list_directory(-1, {}, names, items) == EBADF);
    const int fd = ::open(dir.path("d").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(fd >= 0);
    CHECK(local::list_directory(fd, {}, names, items) == 0);
    CHECK(items.size() == 7);
    errno = 0;
    CHECK(::fcntl(fd, F_GETFD) == -1);  // closed by the listing
    CHECK(errno == EBADF);
}

TEST_CASE("list_kinds and LocalSkillReader::list_dir report what list_directory does", "[local-fs][reader]") {
    const agentskills_test::TempDir dir;
    fill(dir);
    std::string names;
    std::vector<local::NameKind> kinds;
    REQUIRE(local::list_kinds(dir.path("d"), names, kinds));
    REQUIRE(kinds.size() == 7);
    std::map<std::string, local::NameKind> by_name;
    for (const auto& k : kinds) by_name[names.substr(k.offset, k.size)] = k;
    CHECK(by_name.at("to-sub").kind == EntryKind::directory);
    CHECK(by_name.at("to-sub").is_symlink);
    CHECK_FALSE(local::list_kinds(dir.path("missing"), names, kinds));

    LocalSkillReader reader;
    std::map<std::string, DirEntry> entries;
    for (auto& e : reader.list_dir(dir.path("d"))) entries[e.name] = e;
    REQUIRE(entries.size() == 7);
    CHECK(entries.at("to-file").kind == EntryKind::file);
    CHECK(entries.at("to-file").size == 5);
    CHECK(entries.at("dangling").kind == EntryKind::other);
    CHECK(entries.at("dangling").is_symlink);
    CHECK(entries.at("fifo").kind == EntryKind::other);
    CHECK_THROWS_AS(reader.list_dir(dir.path("missing")), NotFoundError);
    CHECK_THROWS_AS(reader.list_dir(dir.path("d/file.txt")), IoError);
}

// src/prefault.hpp: mapping an array's pages ahead changes neither its contents nor what the
// vector holds, whatever the size and alignment (and does nothing below its threshold).
TEST_CASE("prefault and reserve_prefaulted keep every byte and element", "[local_fs][prefault]") {
    SECTION("a filled buffer keeps its bytes, aligned or not, large or small") {
        for (const std::size_t size :
             {std::size_t{1}, std::size_t{4095}, std::size_t{300'000}, std::size_t{5'300'000}}) {
            std::vector<unsigned char> bytes(size + 7);
            for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 31 + 7);
            const std::vector<unsigned char> before = bytes;
            for (const std::size_t offset : {std::size_t{0}, std::size_t{3}, std::size_t{7}}) {
                detail::prefault(bytes.data() + offset, size);
                detail::prefault(bytes.data() + offset, size, 0);  // no threshold
            }
            CHECK(bytes == before);
        }
    }
    SECTION("null and empty ranges are ignored") {
        detail::prefault(nullptr, 1 << 20, 0);
        int x = 42;
        detail::prefault(&x, 0, 0);
        CHECK(x == 42);
    }
    SECTION("reserve_prefaulted reserves, and a vector that already holds elements keeps them") {
        std::vector<std::string> v{"first", std::string(100, 'x'), "third"};
        detail::reserve_prefaulted(v, 100'000);
        CHECK(v.capacity() >= 100'000);
        REQUIRE(v.size() == 3);
        CHECK(v[0] == "first");
        CHECK(v[1] == std::string(100, 'x'));
        CHECK(v[2] == "third");
        v.resize(100'000);
        CHECK(v[99'999].empty());
        std::vector<int> empty;
        detail::reserve_prefaulted(empty, 0);
        CHECK(empty.empty());
    }
}
