// Fuzz target: the two governance files a host reads from outside — a lock file
// (parse_skill_lock: JSON, versioned, digests and paths checked) and a skills configuration
// file (parse_governance_config: YAML or JSON under the agent-spec budgets).
//
// Input: an option byte, then the text.
//   bit 0: read it as a skills configuration (else as a lock file)
//   bit 1: with bit 0, small budgets (64 nodes, 256 text bytes, depth 4, 1,024 bytes)
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/host/host.hpp>
#include <agentskills/lock/lock.hpp>

#include "fuzz_common.hpp"

using namespace agentskills;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const std::string_view text = in.rest();
    if ((flags & 1) != 0) {
        AgentSpecLimits limits;
        if ((flags & 2) != 0) limits = {.max_bytes = 1024, .max_nodes = 64, .max_text_bytes = 256, .max_depth = 4};
        try {
            const GovernanceConfig config = parse_governance_config(text, limits);
            for (const auto& rule : config.overrides) FUZZ_CHECK(rule.name.empty() != rule.path.empty());
        } catch (const ConfigurationError& e) {
            FUZZ_CHECK(is_valid_utf8(e.what()));
        }
        return 0;
    }
    try {
        const SkillLock lock = parse_skill_lock(text);
        // What was accepted writes back and reads again to the same lock.
        const std::string again = to_lock_text(lock);
        FUZZ_CHECK(is_valid_utf8(again));
        FUZZ_CHECK(to_lock_text(parse_skill_lock(again)) == again);
    } catch (const ConfigurationError& e) {
        FUZZ_CHECK(is_valid_utf8(e.what()));
    }
    return 0;
}
