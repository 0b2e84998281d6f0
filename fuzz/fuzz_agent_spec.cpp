// Fuzz target: agent-spec parsing — parse_agent_spec over hostile YAML and JSON (alias bombs,
// deep nesting, odd keys and values) under the default budgets and under small ones.
//
// Input: an option byte, then the spec text.
//   bit 0: JSON (else YAML)
//   bit 1: small budgets (64 nodes, 256 text bytes, depth 4, 1,024 bytes of text)
#include <agentskills/base/errors.hpp>
#include <agentskills/base/names.hpp>
#include <agentskills/host/host.hpp>

#include "fuzz_common.hpp"

using namespace agentskills;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::Input in(data, size);
    const std::uint8_t flags = in.byte();
    const std::string_view text = in.rest();
    const SpecFormat format = (flags & 1) != 0 ? SpecFormat::json : SpecFormat::yaml;
    AgentSpecLimits limits;
    if ((flags & 2) != 0) limits = {.max_bytes = 1024, .max_nodes = 64, .max_text_bytes = 256, .max_depth = 4};

    std::vector<SkillsConfig> configs;
    try {
        configs = parse_agent_spec(text, format, limits);
    } catch (const ConfigurationError& e) {
        // The only exception: a message that can go into JSON or a terminal line as it is.
        FUZZ_CHECK(is_valid_utf8(e.what()));
        FUZZ_CHECK(std::string_view(e.what()).substr(0, 10) == "agent spec" ||
                   std::string_view(e.what()).substr(0, 20) == "skills configuration");
        return 0;
    }
    // Every configuration returned is one that can work, with valid UTF-8 values.
    std::size_t total = 0;
    for (const auto& c : configs) {
        FUZZ_CHECK(!c.directories.empty());
        FUZZ_CHECK(!(c.include && c.exclude));
        for (const auto& d : c.directories) {
            FUZZ_CHECK(!d.empty());
            FUZZ_CHECK(is_valid_utf8(d));
            total += d.size();
        }
        for (const auto* list : {&c.include, &c.exclude}) {
            if (!*list) continue;
            for (const auto& name : **list) {
                FUZZ_CHECK(is_valid_utf8(name));
                total += name.size();
            }
        }
        validate_skills_config(c);  // must not throw
    }
    // The text budget bounds what comes out, whatever aliases copied.
    if (limits.max_text_bytes != 0 && format == SpecFormat::yaml) FUZZ_CHECK(total <= limits.max_text_bytes);
    return 0;
}
