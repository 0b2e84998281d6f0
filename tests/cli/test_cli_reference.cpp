// `--profile reference` prints byte for byte what the Python reference CLI skills-ref 0.1 prints:
// every run recorded in tests/reference/expected.json (scripts/make_reference_outputs.py) is
// repeated with agentskills and compared.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "support/corpus.hpp"

namespace cli_reference_tests {

using agentskills::test::run_cli;
namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
        s.replace(pos, from.size(), to);
    }
    return s;
}

std::string fnv1a64(const std::string& data) {
    std::uint64_t h = 0xCBF29CE484222325ULL;
    for (char c : data) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001B3ULL;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

// Python's traceback is not reproduced: of a crash only the exception line is compared.
std::string last_line(const std::string& s) {
    std::string t = s;
    while (!t.empty() && t.back() == '\n') t.pop_back();
    const auto nl = t.rfind('\n');
    return (nl == std::string::npos ? t : t.substr(nl + 1)) + "\n";
}

struct Counts {
    std::size_t compared = 0;
    std::size_t skipped = 0;
};

// AGENTSKILLS_TEST_SAMPLE=N (CI's sanitizer stage, where every process start costs a few tenths
// of a second) keeps every Nth recorded run of the shared corpus, the first among them; the plain
// build compares them all. The project's own inputs are always compared whole.
std::size_t corpus_sample() {
    const char* env = std::getenv("AGENTSKILLS_TEST_SAMPLE");
    if (env == nullptr || *env == '\0') return 1;
    char* end = nullptr;
    const unsigned long n = std::strtoul(env, &end, 10);
    return *end == '\0' && n >= 1 ? static_cast<std::size_t>(n) : 1;
}

Counts compare_all(const std::string& which) {
    std::ifstream in(fs::path(AGENTSKILLS_SOURCE_DIR) / "tests" / "reference" / "expected.json");
    REQUIRE(in.good());
    const auto doc = nlohmann::json::parse(in);
    const fs::path own = fs::canonical(fs::path(AGENTSKILLS_SOURCE_DIR) / "tests" / "reference" / "skills");
    const fs::path corpus = agentskills_test::corpus_path();
    Counts counts;
    const std::size_t sample = which == "corpus" ? corpus_sample() : 1;
    std::size_t seen = 0;
    for (const auto& e : doc.at("entries")) {
        if (e.at("cwd") != which) continue;
        if (seen++ % sample != 0) continue;
        const bool in_corpus = which == "corpus";
        std::error_code ec;
        if (in_corpus && !fs::is_directory(corpus, ec)) {
            ++counts.skipped;
            continue;
        }
        const fs::path cwd = in_corpus ? fs::canonical(corpus) : own;
        std::vector<std::string> args = e.at("args").get<std::vector<std::string>>();
        args.insert(args.begin() + 1, {"--profile", "reference"});
        auto r = run_cli(args, cwd.string());
        // What differs by machine or program name: the directory of the run and the usage line.
        std::string out = replace_all(r.out, cwd.string(), "@DIR@");
        std::string err = replace_all(r.err, cwd.string(), "@DIR@");
        if (e.at("crash").get<bool>()) err = last_line(err);
        INFO(e.at("args").dump() << " in " << cwd.string());
        CHECK(r.status == e.at("status").get<int>());
        if (in_corpus) {
            INFO("stdout:\n" << out << "\nstderr:\n" << err);
            CHECK(out.size() == e.at("stdout_size").get<std::size_t>());
            CHECK(fnv1a64(out) == e.at("stdout_fnv1a64").get<std::string>());
            CHECK(err.size() == e.at("stderr_size").get<std::size_t>());
            CHECK(fnv1a64(err) == e.at("stderr_fnv1a64").get<std::string>());
        } else {
            CHECK(out == e.at("stdout").get<std::string>());
            CHECK(err == replace_all(e.at("stderr").get<std::string>(), "python -m skills_ref.cli", "agentskills"));
        }
        ++counts.compared;
    }
    return counts;
}

}  // namespace

TEST_CASE("reference profile: the project's own inputs match skills-ref byte for byte", "[cli][reference]") {
    const Counts c = compare_all("own");
    CHECK(c.compared >= 90);
}

TEST_CASE("reference profile: the shared corpus cases and sample match skills-ref byte for byte", "[cli][reference]") {
    if (!agentskills_test::shared_corpus()) return;  // warned (or failed, where the corpus is required)
    const Counts c = compare_all("corpus");
    if (c.skipped > 0) {
        WARN("../shared/corpus is missing (set AGENTSKILLS_CORPUS_DIR): " << c.skipped << " recorded runs skipped");
        CHECK(c.compared == 0);
        return;
    }
    CHECK(c.compared >= 400 / corpus_sample());
}

TEST_CASE("reference profile: the default profile keeps its own output", "[cli][reference]") {
    const std::string dir = std::string(AGENTSKILLS_SOURCE_DIR) + "/tests/reference/skills";
    auto standard = run_cli({"read-properties", "all-fields"}, dir);
    auto reference = run_cli({"read-properties", "--profile", "reference", "all-fields"}, dir);
    CHECK(standard.status == 0);
    CHECK(reference.status == 0);
    CHECK(standard.out != reference.out);
    CHECK(nlohmann::json::parse(standard.out)["allowed-tools"] == nlohmann::json::array({"Read", "Grep"}));
    auto to_prompt = run_cli({"to-prompt", "--profile", "reference", "--root", "."}, dir);
    CHECK(to_prompt.status == 2);
}

}  // namespace cli_reference_tests
