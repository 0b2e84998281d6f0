// agentskills-cpp — this header moved to <agentskills/mcp/server.hpp>; the old path stays for existing code.
#pragma once

#include "mcp/server.hpp"  // IWYU pragma: export
