// agentskills-cpp tests — the one way a test finds the shared corpus (../shared/corpus next to
// the clone, or AGENTSKILLS_CORPUS_DIR). A clone of its own has no corpus: a test that needs it
// then warns and checks nothing else. CI sets AGENTSKILLS_REQUIRE_CORPUS=1, and there a missing
// corpus fails the test instead of passing it unseen.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <system_error>

#include <catch2/catch.hpp>

namespace agentskills_test {

inline std::filesystem::path corpus_path() {
    if (const char* env = std::getenv("AGENTSKILLS_CORPUS_DIR"); env != nullptr && *env != '\0') return env;
    return std::filesystem::path(AGENTSKILLS_SOURCE_DIR).parent_path() / "shared" / "corpus";
}

/// The corpus folder, or nullopt (after a warning, or a failure under AGENTSKILLS_REQUIRE_CORPUS)
/// when it is not there.
inline std::optional<std::filesystem::path> shared_corpus() {
    const std::filesystem::path corpus = corpus_path();
    std::error_code ec;
    if (std::filesystem::is_directory(corpus / "libraries", ec)) return corpus;
    const char* required = std::getenv("AGENTSKILLS_REQUIRE_CORPUS");
    if (required != nullptr && *required != '\0' && *required != '0') {
        FAIL("no shared corpus at " << corpus.string() << " (AGENTSKILLS_REQUIRE_CORPUS is set)");
    }
    WARN("no shared corpus at " << corpus.string() << "; set AGENTSKILLS_CORPUS_DIR");
    return std::nullopt;
}

}  // namespace agentskills_test
