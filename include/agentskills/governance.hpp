// agentskills-cpp — this header moved to <agentskills/catalog/governance.hpp>; the old path stays for existing code.
#pragma once

#include "catalog/governance.hpp"  // IWYU pragma: export
