// agentskills-cpp — this header moved to <agentskills/base/errors.hpp>; the old path stays for existing code.
#pragma once

#include "base/errors.hpp"  // IWYU pragma: export
