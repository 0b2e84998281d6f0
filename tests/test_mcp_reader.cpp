// The MCP server over storage that is not the local disk (files come through the loader's
// SkillReader), its file cache, and replace_catalog's notifications on stdio.
#ifdef AGENTSKILLS_HAVE_MCP

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <streambuf>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <agentskills/base/text.hpp>
#include <agentskills/catalog/catalog.hpp>
#include <agentskills/catalog/loader.hpp>
#include <agentskills/mcp/server.hpp>
#include <agentskills/storage/reader.hpp>

#include "../src/mcp/shared/internal.hpp"
#include "fs_fixtures.hpp"

using nlohmann::json;
using namespace agentskills;
using agentskills_test::TempDir;

namespace {

const std::string ALPHA_MD = "---\nname: alpha\ndescription: First skill.\n---\nAlpha body.\n";
const std::string BETA_MD = "---\nname: beta\ndescription: Second skill.\n---\nBeta body.\n";
constexpr std::int64_t OLD_MTIME_NS = 1'600'000'000'000'000'000;  // 2020: well before any read

std::string digest(const std::string& bytes) { return mcp::detail::sha256_digest(bytes); }

json modern(json params = json::object()) {
    params["_meta"] = {{"io.modelcontextprotocol/protocolVersion", "2026-07-28"},
                       {"io.modelcontextprotocol/clientCapabilities", json::object()}};
    return params;
}

json call(const mcp::Server& server, mcp::Session& session, const std::string& method, json params) {
    const mcp::Exchange ex = server.handle(
        json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", modern(std::move(params))}}.dump(), session);
    REQUIRE(ex.response.has_value());
    return json::parse(*ex.response);
}

SkillCatalogPtr catalog_over(SkillReaderPtr reader, std::string root) {
    return discover_skill_catalog(std::make_shared<FilesystemSkillLoader>(FilesystemLoaderOptions{
        .roots = {std::move(root)}, .include_default_roots = false, .reader = std::move(reader)}));
}

mcp::ServerOptions quiet() {
    mcp::ServerOptions options;
    options.log = [](std::string_view) {};
    return options;
}

}  // namespace

TEST_CASE("mcp: files are listed and read through the loader's reader (memory, mounted)", "[mcp]") {
    auto memory = std::make_shared<MemorySkillReader>();
    memory->add_file("lib/alpha/SKILL.md", ALPHA_MD, OLD_MTIME_NS);
    memory->add_file("lib/alpha/references/guide.md", "guide\n", OLD_MTIME_NS);
    memory->add_file("lib/alpha/assets/bin.dat", std::string("\x00\xff\x01", 3), OLD_MTIME_NS);
    memory->add_file("lib/beta/SKILL.md", BETA_MD, OLD_MTIME_NS);
    // The same bytes nowhere on disk: a mounted reader routes /store/... to the memory reader.
    const auto mounted =
        std::make_shared<MountedReader>(std::map<std::string, SkillReaderPtr, std::less<>>{{"store", memory}});
    const std::vector<std::pair<SkillReaderPtr, std::string>> setups = {{memory, "lib"}, {mounted, "/store/lib"}};
    for (const auto& [reader, root] : setups) {
        CAPTURE(root);
        mcp::Server server(catalog_over(reader, root), quiet());
        auto session = server.open_session();
        CHECK(server.served_skill_names() == std::vector<std::string>{"alpha", "beta"});
        const json alpha = call(server, *session, "skills/get", {{"uri", "skill://alpha/SKILL.md"}});
        CHECK(alpha.at("result").at("skill") ==
              json{{"uri", "skill://alpha/SKILL.md"},
                   {"frontmatter", {{"name", "alpha"}, {"description", "First skill."}}},
                   {"resources",
                    {{{"uri", "skill://alpha/SKILL.md"}, {"digest", digest(ALPHA_MD)}, {"size", ALPHA_MD.size()}},
                     {{"uri", "skill://alpha/assets/bin.dat"},
                      {"digest", digest(std::string("\x00\xff\x01", 3))},
                      {"size", 3}},
                     {{"uri", "skill://alpha/references/guide.md"}, {"digest", digest("guide\n")}, {"size", 6}}}}});
        CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/references/guide.md"}}) ==
              json::parse(R"({"jsonrpc":"2.0","id":1,"result":{"contents":[{"uri":"skill://alpha/references/guide.md",
                  "mimeType":"text/markdown","text":"guide\n"}],"resultType":"complete","ttlMs":60000,
                  "cacheScope":"public"}})"));
        CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/assets/bin.dat"}})
                  .at("result")
                  .at("contents")
                  .at(0)
                  .at("blob") == "AP8B");
        CHECK(call(server, *session, "resources/directory/read", {{"uri", "skill://alpha"}})
                  .at("result")
                  .at("resources")
                  .size() == 3);
        // The activation tool and prompts load through the same loader.
        const json activated =
            call(server, *session, "tools/call", {{"name", "activate_skill"}, {"arguments", {{"name", "beta"}}}});
        CHECK(activated.at("result").at("isError") == false);
        CHECK(activated.at("result").at("content").at(0).at("text").get<std::string>().find("Beta body.") !=
              std::string::npos);
    }
}

TEST_CASE("mcp: a file changed in the reader is hashed again; stale bytes are never served", "[mcp]") {
    auto memory = std::make_shared<MemorySkillReader>();
    memory->add_file("lib/alpha/SKILL.md", ALPHA_MD, OLD_MTIME_NS);
    memory->add_file("lib/alpha/notes.txt", "one\n", OLD_MTIME_NS);
    memory->add_file("lib/alpha/gone.txt", "bye\n", OLD_MTIME_NS);
    mcp::Server server(catalog_over(memory, "lib"), quiet());
    auto session = server.open_session();
    // Served from the cache (the version is old and unchanged) ...
    CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/notes.txt"}})
              .at("result")
              .at("contents")
              .at(0)
              .at("text") == "one\n");
    // ... until the file changes: same size, same time, new bytes (a new identity).
    memory->add_file("lib/alpha/notes.txt", "two\n", OLD_MTIME_NS);
    CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/notes.txt"}})
              .at("result")
              .at("contents")
              .at(0)
              .at("text") == "two\n");
    const json entry = call(server, *session, "skills/get", {{"uri", "skill://alpha/SKILL.md"}});
    CHECK(entry.at("result").at("skill").at("resources").at(2) ==
          json{{"uri", "skill://alpha/notes.txt"}, {"digest", digest("two\n")}, {"size", 4}});
    // A file removed from the reader is no longer listed nor served.
    REQUIRE(memory->remove("lib/alpha/gone.txt"));
    CHECK(call(server, *session, "resources/read", {{"uri", "skill://alpha/gone.txt"}}).at("error").at("code") ==
          -32602);
    CHECK(call(server, *session, "skills/get", {{"uri", "skill://alpha/SKILL.md"}})
              .at("result")
              .at("skill")
              .at("resources")
              .size() == 2);
}

TEST_CASE("mcp: a local file rewritten with its old size and time is still noticed", "[mcp]") {
    TempDir dir;
    dir.write("lib/alpha/SKILL.md", ALPHA_MD);
    dir.write("lib/alpha/notes.txt", "one\n");
    // Let the files' times fall out of the racy window, so the server caches their bytes.
    std::this_thread::sleep_for(std::chrono::milliseconds(3200));
    mcp::Server server(catalog_over(nullptr, dir.path("lib")), quiet());
    auto session = server.open_session();
    const std::string uri = "skill://alpha/notes.txt";
    CHECK(call(server, *session, "resources/read", {{"uri", uri}}).at("result").at("contents").at(0).at("text") ==
          "one\n");
    struct stat before {};
    REQUIRE(::stat(dir.path("lib/alpha/notes.txt").c_str(), &before) == 0);
    dir.write("lib/alpha/notes.txt", "two\n");
    const timespec times[2] = {before.st_atim, before.st_mtim};  // put the modification time back
    REQUIRE(::utimensat(AT_FDCWD, dir.path("lib/alpha/notes.txt").c_str(), times, 0) == 0);
    CHECK(call(server, *session, "resources/read", {{"uri", uri}}).at("result").at("contents").at(0).at("text") ==
          "two\n");
}

TEST_CASE("mcp: resources/read text escaping matches a JSON serializer at every offset", "[mcp]") {
    // The escaper skips 8 bytes at a time: put each byte that needs escaping, and some that do
    // not (UTF-8, DEL, '/'), at every position of strings around the word size.
    const std::vector<std::string> specials = {"\"",   "\\",   "\n",   "\r", "\t",       std::string(1, '\0'),
                                               "\x01", "\x1f", "\x7f", "/",  "\xc3\xa9", "\xe2\x82\xac",
                                               " "};
    for (std::size_t length = 0; length <= 20; ++length) {
        for (const auto& special : specials) {
            for (std::size_t at = 0; at <= length; ++at) {
                std::string text(length, 'a');
                text.insert(at, special);
                std::string out = "x";
                agentskills::append_json_string(out, text);
                CAPTURE(length, at, special);
                REQUIRE(out == "x" + json(text).dump());
            }
        }
    }
}

namespace {

/// An input stream buffer fed by the test, blocking when empty until more comes or it is closed.
class FeedBuf final : public std::streambuf {
public:
    void feed(const std::string& text) {
        std::lock_guard lock(mutex_);
        pending_ += text;
        cv_.notify_all();
    }
    void close() {
        std::lock_guard lock(mutex_);
        closed_ = true;
        cv_.notify_all();
    }

protected:
    int_type underflow() override {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return !pending_.empty() || closed_; });
        if (pending_.empty()) return traits_type::eof();
        current_.swap(pending_);
        pending_.clear();
        setg(current_.data(), current_.data(), current_.data() + current_.size());
        return traits_type::to_int_type(current_.front());
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::string pending_;
    std::string current_;
    bool closed_ = false;
};

/// An output stream buffer whose lines the test can wait for.
class LinesBuf final : public std::streambuf {
public:
    std::vector<std::string> wait_for(std::size_t count) {
        std::unique_lock lock(mutex_);
        cv_.wait_for(lock, std::chrono::seconds(10), [&] { return lines_.size() >= count; });
        return lines_;
    }

protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        std::lock_guard lock(mutex_);
        if (c == '\n') {
            lines_.push_back(std::move(partial_));
            partial_.clear();
            cv_.notify_all();
        } else {
            partial_.push_back(traits_type::to_char_type(c));
        }
        return c;
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    std::vector<std::string> lines_;
    std::string partial_;
};

}  // namespace

TEST_CASE("mcp: replace_catalog notifies an initialized stdio client", "[mcp][concurrency]") {
    auto memory = std::make_shared<MemorySkillReader>();
    memory->add_file("lib/alpha/SKILL.md", ALPHA_MD, OLD_MTIME_NS);
    mcp::Server server(catalog_over(memory, "lib"), quiet());

    // A session that never initialized is not sent anything.
    std::vector<std::string> unsent;
    const auto silent = server.open_session([&unsent](std::string_view m) { unsent.emplace_back(m); });

    FeedBuf in_buf;
    LinesBuf out_buf;
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    std::thread serving([&] { (void)mcp::serve_stdio(server, in, out); });
    in_buf.feed(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})"
                "\n"
                R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                "\n"
                R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
                "\n");
    REQUIRE(out_buf.wait_for(2).size() == 2);

    // Nothing a client sees changed: no notification.
    mcp::CatalogUpdate same = server.replace_catalog(catalog_over(memory, "lib"));
    CHECK(!same.resources_changed);
    CHECK(!same.prompts_changed);
    CHECK(same.sessions_notified == 0);

    memory->add_file("lib/beta/SKILL.md", BETA_MD, OLD_MTIME_NS);
    const mcp::CatalogUpdate update = server.replace_catalog(catalog_over(memory, "lib"));
    CHECK(update.resources_changed);
    CHECK(update.prompts_changed);
    CHECK(update.sessions_notified == 1);
    std::vector<std::string> lines = out_buf.wait_for(4);
    REQUIRE(lines.size() == 4);
    CHECK(lines[2] == R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");
    CHECK(lines[3] == R"({"jsonrpc":"2.0","method":"notifications/prompts/list_changed"})");
    CHECK(server.served_skill_names() == std::vector<std::string>{"alpha", "beta"});

    // The connection goes on with the new catalog.
    in_buf.feed(R"({"jsonrpc":"2.0","id":3,"method":"skills/get","params":{"uri":"skill://beta/SKILL.md"}})"
                "\n");
    lines = out_buf.wait_for(5);
    REQUIRE(lines.size() == 5);
    CHECK(json::parse(lines[4]).at("result").at("skill").at("uri") == "skill://beta/SKILL.md");

    // A changed body changes the listing (digest) but not the prompts.
    memory->add_file("lib/beta/SKILL.md", BETA_MD + "More.\n", OLD_MTIME_NS);
    const mcp::CatalogUpdate body = server.replace_catalog(catalog_over(memory, "lib"));
    CHECK(body.resources_changed);
    CHECK(!body.prompts_changed);
    lines = out_buf.wait_for(6);
    REQUIRE(lines.size() == 6);
    CHECK(lines[5] == R"({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})");

    in_buf.close();
    serving.join();
    CHECK(unsent.empty());
    // After the connection ended, a replacement writes nothing anywhere.
    memory->remove("lib/beta");
    CHECK(server.replace_catalog(catalog_over(memory, "lib")).sessions_notified == 0);
    CHECK(out_buf.wait_for(0).size() == 6);
}

#endif  // AGENTSKILLS_HAVE_MCP
