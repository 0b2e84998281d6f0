// agentskills-cpp — this header moved to <agentskills/parse/parser.hpp>; the old path stays for existing code.
#pragma once

#include "parse/parser.hpp"  // IWYU pragma: export
