// agentskills-cpp — this header moved to <agentskills/archive/archive_reader.hpp>; the old path stays for existing
// code.
#pragma once

#include "archive/archive_reader.hpp"  // IWYU pragma: export
