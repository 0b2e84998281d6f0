// agentskills-cpp — this header moved to <agentskills/base/diagnostics.hpp>; the old path stays for existing code.
#pragma once

#include "base/diagnostics.hpp"  // IWYU pragma: export
