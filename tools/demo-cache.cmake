# The demo's configuration (`tools/dev.sh demo`, loaded with `cmake -C`): the core library and the
# examples, without the program, the tests or any optional component, so that it needs only the
# core's Debian packages. FORCE: a cache left by another configuration never carries over.
# tests/check_demo_configuration.cmake holds the demo to it.
set(BUILD_TESTING OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_BUILD_TESTS OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_BUILD_CLI OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_BUILD_EXAMPLES ON CACHE BOOL "" FORCE)
set(AGENTSKILLS_SQLITE OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_LOCK OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_MCP OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_ARCHIVES OFF CACHE BOOL "" FORCE)
set(AGENTSKILLS_GIT OFF CACHE BOOL "" FORCE)
# No install rules: writing agentskills.pc needs pkg-config, which the demo does not install.
set(AGENTSKILLS_INSTALL OFF CACHE BOOL "" FORCE)
