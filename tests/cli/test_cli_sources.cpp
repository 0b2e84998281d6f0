// Tests of the source flags every discovering command shares (cli/source_options.*) and of the
// policy words (agentskills/policy_words.hpp) they and the agent specs use.
#include <string>

#include <catch2/catch.hpp>

#include "agentskills/base/errors.hpp"
#include "agentskills/catalog/policy_words.hpp"
#include "agentskills/host/host.hpp"
#include "cli_runner.hpp"

namespace cli_sources_tests {

using agentskills::test::run_cli;

TEST_CASE("policy words: every word maps to its enumerator and back", "[cli][policy]") {
    using namespace agentskills;
    for (const auto& w : policy_words<DuplicateNames>) {
        CHECK(policy_from_word<DuplicateNames>(w.word) == w.value);
        CHECK(to_string(w.value) == w.word);
    }
    for (const auto& w : policy_words<MissingDirectories>)
        CHECK(policy_from_word<MissingDirectories>(w.word) == w.value);
    for (const auto& w : policy_words<NamePolicy>) CHECK(policy_from_word<NamePolicy>(w.word) == w.value);
    CHECK(to_string(DuplicateNames::keep_first) == "keep_first");
    CHECK(to_string(MissingDirectories::skip) == "skip");
    CHECK(to_string(NamePolicy::require_valid) == "require_valid");
    CHECK_FALSE(policy_from_word<DuplicateNames>("Keep_First").has_value());
    CHECK_FALSE(policy_from_word<NamePolicy>("").has_value());
    CHECK(policy_word_list<DuplicateNames>() == "error|keep_first");
    CHECK(policy_word_choices<MissingDirectories>() == "'error' or 'skip'");
}

TEST_CASE("policy words: an agent spec names the choices of a bad policy word", "[cli][policy]") {
    using namespace agentskills;
    try {
        (void)parse_agent_spec("Skills:\n  directories: [a]\n  duplicate_names: first\n", SpecFormat::yaml);
        FAIL("no error");
    } catch (const ConfigurationError& e) {
        CHECK(std::string(e.what()) == "agent spec: 'duplicate_names' must be 'error' or 'keep_first', not 'first'");
    }
}

TEST_CASE("source flags: the policy words are accepted in any case, others are usage errors", "[cli][policy]") {
    auto ok = run_cli({"list", "--root", "library", "--duplicate-names", "KEEP_FIRST", "--name-policy", "Keep"});
    CHECK(ok.status == 0);
    auto bad = run_cli({"list", "--root", "library", "--missing-directories", "ignore"});
    CHECK(bad.status == 2);
    CHECK(bad.err.find("--missing-directories") != std::string::npos);
}

TEST_CASE("source flags: prompt, activate and tools need at least one source", "[cli][policy]") {
    for (const char* command : {"prompt", "activate", "tools"}) {
        auto r = run_cli({command, "x"});
        INFO(command);
        CHECK(r.status == 2);
        CHECK(r.err.find("--root, --mcp-command or --mcp-url is required") != std::string::npos);
    }
}

TEST_CASE("source flags: --root takes one value per flag", "[cli][policy]") {
    auto r = run_cli({"prompt", "--root", "library", "library"});
    CHECK(r.status == 2);
}

}  // namespace cli_sources_tests
