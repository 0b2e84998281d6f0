// agentskills-cpp — this header moved to <agentskills/catalog/live_catalog.hpp>; the old path stays for existing code.
#pragma once

#include "catalog/live_catalog.hpp"  // IWYU pragma: export
