// agentskills-cpp — this header moved to <agentskills/catalog/policy_words.hpp>; the old path stays for existing code.
#pragma once

#include "catalog/policy_words.hpp"  // IWYU pragma: export
