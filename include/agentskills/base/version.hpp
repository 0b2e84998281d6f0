// agentskills-cpp — version of the library.
//
// This header is the one place the version is defined: CMakeLists.txt reads the three numbers
// below for project(VERSION), and the CMake package, agentskills.pc, the .deb and
// `agentskills --version` all take it from there.
#pragma once

#define AGENTSKILLS_VERSION_MAJOR 0
#define AGENTSKILLS_VERSION_MINOR 2
#define AGENTSKILLS_VERSION_PATCH 0

#define AGENTSKILLS_VERSION_STR_(x) #x
#define AGENTSKILLS_VERSION_STR(x) AGENTSKILLS_VERSION_STR_(x)

namespace agentskills {
/// "MAJOR.MINOR.PATCH", e.g. "0.2.0".
inline constexpr const char* version_string =
    AGENTSKILLS_VERSION_STR(AGENTSKILLS_VERSION_MAJOR) "." AGENTSKILLS_VERSION_STR(
        AGENTSKILLS_VERSION_MINOR) "." AGENTSKILLS_VERSION_STR(AGENTSKILLS_VERSION_PATCH);
}  // namespace agentskills
