// agentskills-cpp — this header moved to <agentskills/compat/substrate.hpp>; the old path stays for existing code.
#pragma once

#include "compat/substrate.hpp"  // IWYU pragma: export
