cmake_minimum_required(VERSION 3.20)
# The demo's configuration (tools/demo-cache.cmake, `tools/dev.sh demo`) configures without the
# packages that only the program, the tests and the optional components need (found packages
# hidden with CMAKE_DISABLE_FIND_PACKAGE_*), and its `quickstart` target builds the core library
# and the example alone (a Ninja dry run lists nothing else). Run with -DSOURCE=<project dir>
# -DBUILD=<scratch dir> -DCXX=<compiler>.
file(REMOVE_RECURSE "${BUILD}")
set(hidden)
foreach(package IN ITEMS Catch2 CLI11 SQLite3 OpenSSL PkgConfig)
  list(APPEND hidden -DCMAKE_DISABLE_FIND_PACKAGE_${package}=ON)
endforeach()
execute_process(
  COMMAND ${CMAKE_COMMAND} -S "${SOURCE}" -B "${BUILD}" -G Ninja -C "${SOURCE}/tools/demo-cache.cmake"
          -DCMAKE_CXX_COMPILER=${CXX} ${hidden}
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the demo configuration fails without the optional packages:\n${out}\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build "${BUILD}" --target quickstart -- -n
  OUTPUT_VARIABLE plan ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ninja -n quickstart failed: ${err}")
endif()
string(REGEX MATCHALL "Building CXX object [^\n]*" objects "${plan}")
set(others "")
foreach(object IN LISTS objects)
  if(NOT object MATCHES "object (src/CMakeFiles/agentskills\\.dir/|examples/quickstart/CMakeFiles/quickstart\\.dir/)")
    list(APPEND others "${object}")
  endif()
endforeach()
list(LENGTH objects count)
if(count EQUAL 0 OR others)
  list(JOIN others "\n  " text)
  message(FATAL_ERROR "the demo builds more than the core library and quickstart (${count} objects):\n  ${text}")
endif()
file(REMOVE_RECURSE "${BUILD}")
message(STATUS "the demo configuration: ${count} objects, the core library and quickstart only")
