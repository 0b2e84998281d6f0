// Examples of the documents that the program runs as they are written (they read the documents).
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "cli_runner.hpp"
#include "fs_fixtures.hpp"

namespace cli_docs_tests {

using agentskills::test::run_cli;
using agentskills_test::skill_md;
using agentskills_test::TempDir;

namespace {

std::string read_doc(const std::string& relative) {
    std::ifstream in(std::string(AGENTSKILLS_SOURCE_DIR) + "/" + relative, std::ios::binary);
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// The first ```yaml block after `marker` in `doc`, with the list item's indentation taken off.
std::string yaml_block_after(const std::string& doc, const std::string& marker) {
    const auto at = doc.find(marker);
    REQUIRE(at != std::string::npos);
    const std::string fence = "```yaml\n";
    const auto open = doc.find(fence, at);
    REQUIRE(open != std::string::npos);
    const auto line_start = doc.rfind('\n', open) + 1;
    const std::string indent = doc.substr(line_start, open - line_start);
    const auto close = doc.find("```", open + fence.size());
    REQUIRE(close != std::string::npos);
    std::istringstream lines(doc.substr(open + fence.size(), close - open - fence.size()));
    std::string out;
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(indent, 0) == 0) line.erase(0, indent.size());
        out += line + "\n";
    }
    return out;
}

}  // namespace

TEST_CASE("docs/host.md: the agent spec example renders as the text says", "[cli][docs]") {
    TempDir dir;
    dir.write(".agents/skills/code-review/SKILL.md", skill_md("code-review", "Reviews code.", "Review $ARGUMENTS."));
    dir.write(".agents/skills/release-notes/SKILL.md", skill_md("release-notes", "Writes notes."));
    const std::string spec = yaml_block_after(read_doc("docs/host.md"), "1. **An agent spec**");
    CHECK(spec.find("missing_directories: skip") != std::string::npos);
    dir.write("agent.yaml", spec);

    auto r = run_cli({"render", "--spec", "agent.yaml", "code-review", "src/app.py"}, dir.path());
    CHECK(r.err.empty());
    REQUIRE(r.status == 0);
    CHECK(r.out.rfind("<skill_content name=\"code-review\">\nReview src/app.py.\n", 0) == 0);

    // Without `missing_directories: skip`, the directories that do not exist fail discovery,
    // and --skip-missing (for --root only) does not change that.
    std::string strict = spec;
    strict.erase(strict.find("    missing_directories: skip\n"), std::string("    missing_directories: skip\n").size());
    dir.write("strict.yaml", strict);
    r = run_cli({"render", "--spec", "strict.yaml", "--skip-missing", "code-review"}, dir.path());
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(r.err.find("/opt/app/skills") != std::string::npos);
}

}  // namespace cli_docs_tests
