// agentskills-cpp — this header moved to <agentskills/base/version.hpp>; the old path stays for existing code.
#pragma once

#include "base/version.hpp"  // IWYU pragma: export
