// agentskills-cpp — this header moved to <agentskills/catalog/catalog.hpp>; the old path stays for existing code.
#pragma once

#include "catalog/catalog.hpp"  // IWYU pragma: export
