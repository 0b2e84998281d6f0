// Test helpers: a unique temporary directory that removes itself.
#pragma once

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <unistd.h>

#include <agentskills/storage/reader.hpp>

namespace agentskills_test {

class TempDir {
public:
    TempDir() {
        static std::atomic<unsigned> counter{0};
        const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
        root_ = std::filesystem::temp_directory_path() /
                ("agentskills-test-" + std::to_string(::getpid()) + "-" + std::to_string(stamp) + "-" +
                 std::to_string(counter.fetch_add(1)));
        std::filesystem::create_directories(root_);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(root_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    /// Absolute path of `relative` below the directory ("" for the directory itself).
    [[nodiscard]] std::string path(std::string_view relative = {}) const {
        return relative.empty() ? root_.string() : (root_ / std::string(relative)).string();
    }
    /// The same as `path`, for tests that read better with it.
    [[nodiscard]] std::string str(std::string_view relative = {}) const { return path(relative); }
    /// The directory itself, for joining with `/`.
    [[nodiscard]] const std::filesystem::path& dir() const noexcept { return root_; }
    void mkdir(std::string_view relative) const { std::filesystem::create_directories(root_ / std::string(relative)); }
    void write(std::string_view relative, std::string_view content) const {
        const auto p = root_ / std::string(relative);
        std::filesystem::create_directories(p.parent_path());
        std::ofstream out(p, std::ios::binary | std::ios::trunc);
        out.write(content.data(), static_cast<std::streamsize>(content.size()));
    }

private:
    std::filesystem::path root_;
};

/// A reader that implements only the two required members over an in-memory store: no
/// modification times, no identities, the default `stat` (which lists the parent).
class ListingOnlyReader final : public agentskills::SkillReader {
public:
    explicit ListingOnlyReader(std::shared_ptr<agentskills::MemorySkillReader> inner) : inner_(std::move(inner)) {}
    agentskills::ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        return inner_->read_file(path, max_bytes);
    }
    std::vector<agentskills::DirEntry> list_dir(std::string_view path) const override { return inner_->list_dir(path); }

private:
    std::shared_ptr<agentskills::MemorySkillReader> inner_;
};

/// A small valid SKILL.md.
inline std::string skill_md(std::string_view name, std::string_view description, std::string_view body = "Body.") {
    std::string out = "---\nname: ";
    out += name;
    out += "\ndescription: ";
    out += description;
    out += "\n---\n";
    out += body;
    out += "\n";
    return out;
}

}  // namespace agentskills_test
