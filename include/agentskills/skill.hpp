// agentskills-cpp — this header moved to <agentskills/base/skill.hpp>; the old path stays for existing code.
#pragma once

#include "base/skill.hpp"  // IWYU pragma: export
