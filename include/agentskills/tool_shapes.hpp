// agentskills-cpp — this header moved to <agentskills/harness/tool_shapes.hpp>; the old path stays for existing code.
#pragma once

#include "harness/tool_shapes.hpp"  // IWYU pragma: export
