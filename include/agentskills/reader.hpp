// agentskills-cpp — this header moved to <agentskills/storage/reader.hpp>; the old path stays for existing code.
#pragma once

#include "storage/reader.hpp"  // IWYU pragma: export
