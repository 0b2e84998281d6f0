// agentskills-cpp — this header moved to <agentskills/git/git_reader.hpp>; the old path stays for existing code.
#pragma once

#include "git/git_reader.hpp"  // IWYU pragma: export
