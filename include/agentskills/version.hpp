// agentskills-cpp — version of the library.
#pragma once

#define AGENTSKILLS_VERSION_MAJOR 0
#define AGENTSKILLS_VERSION_MINOR 1
#define AGENTSKILLS_VERSION_PATCH 0

namespace agentskills {
inline constexpr const char* version_string = "0.1.0";
}  // namespace agentskills
