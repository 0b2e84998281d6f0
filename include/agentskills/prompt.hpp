// agentskills-cpp — this header moved to <agentskills/activation/prompt.hpp>; the old path stays for existing code.
#pragma once

#include "activation/prompt.hpp"  // IWYU pragma: export
