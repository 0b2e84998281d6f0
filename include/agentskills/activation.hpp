// agentskills-cpp — this header moved to <agentskills/activation/activation.hpp>; the old path stays for existing code.
#pragma once

#include "activation/activation.hpp"  // IWYU pragma: export
