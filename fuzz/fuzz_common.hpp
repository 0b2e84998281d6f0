// Shared helpers of the libFuzzer targets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

// An invariant of the library; a violation is a crash that libFuzzer reports with its input.
#define FUZZ_CHECK(cond)                                                                      \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                     \
        }                                                                                     \
    } while (false)

namespace fuzz {

/// Reads the fuzz input front to back: option bytes first, then text.
class Input {
public:
    Input(const std::uint8_t* data, std::size_t size) : data_(reinterpret_cast<const char*>(data), size) {}

    /// One byte (0 when exhausted).
    std::uint8_t byte() {
        if (data_.empty()) return 0;
        const auto b = static_cast<std::uint8_t>(data_.front());
        data_.remove_prefix(1);
        return b;
    }
    /// Text up to the next `sep` byte (or the end); the separator is consumed.
    std::string_view until(char sep) {
        const std::size_t pos = data_.find(sep);
        const std::string_view out = data_.substr(0, pos);
        data_.remove_prefix(pos == std::string_view::npos ? data_.size() : pos + 1);
        return out;
    }
    [[nodiscard]] std::string_view rest() const noexcept { return data_; }
    [[nodiscard]] bool empty() const noexcept { return data_.empty(); }

private:
    std::string_view data_;
};

inline bool contains_component(std::string_view path, std::string_view component) {
    std::size_t pos = 0;
    while (pos <= path.size()) {
        std::size_t next = path.find('/', pos);
        if (next == std::string_view::npos) next = path.size();
        if (path.substr(pos, next - pos) == component) return true;
        pos = next + 1;
    }
    return false;
}

}  // namespace fuzz
