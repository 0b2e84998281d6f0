// agentskills-cpp — this header moved to <agentskills/host/host.hpp>; the old path stays for existing code.
#pragma once

#include "host/host.hpp"  // IWYU pragma: export
