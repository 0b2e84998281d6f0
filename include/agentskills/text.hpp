// agentskills-cpp — this header moved to <agentskills/base/text.hpp>; the old path stays for existing code.
#pragma once

#include "base/text.hpp"  // IWYU pragma: export
