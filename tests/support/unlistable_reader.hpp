// agentskills-cpp tests — a reader over another one whose listings go wrong as a test asks: the
// directories named in `unreadable` cannot be listed (as a directory of mode 000 cannot, for
// anyone but root), and with `backwards` every listing comes in reverse order (a file system's
// own order may be anything). Everything else is the inner reader's.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agentskills/base/errors.hpp"
#include "agentskills/storage/reader.hpp"

namespace agentskills_test {

class UnlistableReader final : public agentskills::SkillReader {
public:
    explicit UnlistableReader(std::shared_ptr<const agentskills::SkillReader> inner, bool backwards = false)
        : inner_(std::move(inner)), backwards_(backwards) {}

    std::vector<std::string> unreadable;

    agentskills::ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        return inner_->read_file(path, max_bytes);
    }
    std::vector<agentskills::DirEntry> list_dir(std::string_view path) const override {
        refuse(path);
        return ordered(inner_->list_dir(path));
    }
    std::vector<agentskills::DirEntry> list_dir_kinds(std::string_view path) const override {
        refuse(path);
        return ordered(inner_->list_dir_kinds(path));
    }
    agentskills::FileStat stat(std::string_view path) const override { return inner_->stat(path); }
    // Local paths when the inner reader's are: discovery lists a local root straight from the
    // file system, the resource walk through this reader.
    [[nodiscard]] bool is_local() const noexcept override { return inner_->is_local(); }

private:
    void refuse(std::string_view path) const {
        if (std::find(unreadable.begin(), unreadable.end(), path) != unreadable.end()) {
            throw agentskills::IoError("cannot list '" + std::string(path) + "': Permission denied");
        }
    }
    std::vector<agentskills::DirEntry> ordered(std::vector<agentskills::DirEntry> entries) const {
        if (backwards_) std::reverse(entries.begin(), entries.end());
        return entries;
    }

    std::shared_ptr<const agentskills::SkillReader> inner_;
    bool backwards_;
};

}  // namespace agentskills_test
