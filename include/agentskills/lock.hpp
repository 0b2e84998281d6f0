// agentskills-cpp — this header moved to <agentskills/lock/lock.hpp>; the old path stays for existing code.
#pragma once

#include "lock/lock.hpp"  // IWYU pragma: export
