// agentskills-cpp — this header moved to <agentskills/catalog/loader.hpp>; the old path stays for existing code.
#pragma once

#include "catalog/loader.hpp"  // IWYU pragma: export
