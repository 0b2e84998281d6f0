// agentskills-cpp — this header moved to <agentskills/shim/skills_shim.hpp>; the old path stays for existing code.
#pragma once

#include "shim/skills_shim.hpp"  // IWYU pragma: export
