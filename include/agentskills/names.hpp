// agentskills-cpp — this header moved to <agentskills/base/names.hpp>; the old path stays for existing code.
#pragma once

#include "base/names.hpp"  // IWYU pragma: export
