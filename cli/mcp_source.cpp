// agentskills CLI — MCP servers as skill sources (--mcp-command, --mcp-url).
#include <string>
#include <utility>

#include <fmt/core.h>

#include "agentskills/errors.hpp"
#include "source_options.hpp"

namespace agentskills::cli {

#ifdef AGENTSKILLS_HAVE_MCP_CLIENT
// (the MCP client's factory and combinator; see docs/sources.md)
#else

SkillLoaderPtr make_mcp_source_loader(const SourceSpec& spec, std::string_view, const SourceArgs&) {
    throw ConfigurationError(fmt::format("{} '{}': this agentskills was built without the MCP client",
                                         spec.kind == SourceSpec::Kind::mcp_url ? "--mcp-url" : "--mcp-command",
                                         spec.value));
}

SkillLoaderPtr combine_source_loaders(std::vector<SkillLoaderPtr> loaders, const SourceArgs&) {
    if (loaders.size() == 1) return std::move(loaders.front());
    throw ConfigurationError("this agentskills was built without the MCP client");
}

#endif

}  // namespace agentskills::cli
