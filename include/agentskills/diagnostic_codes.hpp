// agentskills-cpp — this header moved to <agentskills/base/diagnostic_codes.hpp>; the old path stays for existing code.
#pragma once

#include "base/diagnostic_codes.hpp"  // IWYU pragma: export
