// agentskills-cpp — this header moved to <agentskills/mcp/client.hpp>; the old path stays for existing code.
#pragma once

#include "mcp/client.hpp"  // IWYU pragma: export
