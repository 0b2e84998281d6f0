// agentskills-cpp — this header moved to <agentskills/sqlite/sqlite_store.hpp>; the old path stays for existing code.
#pragma once

#include "sqlite/sqlite_store.hpp"  // IWYU pragma: export
