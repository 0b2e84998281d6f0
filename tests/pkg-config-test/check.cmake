# cmake -DPREFIX=<install prefix> -DCXX=<compiler> -DSOURCE=<app.cpp> -DOUT=<binary> -DLIBRARY=<skills dir>
#       [-DVERSION=<x.y.z>] [-DEXTRA_FLAGS=<flags;...>] [-DSTATIC=ON] [-DCOMPONENTS=<name;...>] -P check.cmake
# With COMPONENTS, the modules agentskills-<name> join the query and -DAGENTSKILLS_HAVE_<NAME>=1
# the flags, so that the program uses each component (use_components.hpp).
# Builds app.cpp against the agentskills.pc installed under PREFIX (pkg-config --define-prefix
# relocates it there), runs it over LIBRARY and checks that it found a skill and, when VERSION is
# given, that `pkg-config --modversion` and the program both report it.
set(ENV{PKG_CONFIG_PATH} "")
file(GLOB _pc_dirs LIST_DIRECTORIES true "${PREFIX}/lib*/pkgconfig" "${PREFIX}/lib/*/pkgconfig")
list(JOIN _pc_dirs ":" _pc_path)
set(ENV{PKG_CONFIG_PATH} "${_pc_path}")
set(_static)
if(STATIC)
  set(_static --static)
endif()
set(_modules agentskills)
set(_defines)
foreach(_component IN LISTS COMPONENTS)
  string(TOUPPER "${_component}" _upper)
  list(APPEND _modules agentskills-${_component})
  list(APPEND _defines -DAGENTSKILLS_HAVE_${_upper}=1)
endforeach()
execute_process(COMMAND pkg-config --define-prefix ${_static} --cflags --libs ${_modules}
  OUTPUT_VARIABLE _flags RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "pkg-config found no ${_modules} under ${_pc_path}")
endif()
message(STATUS "pkg-config ${_static} --cflags --libs ${_modules}: ${_flags}")
separate_arguments(_flags UNIX_COMMAND "${_flags}")
list(APPEND _flags ${_defines})
execute_process(COMMAND "${CXX}" -std=c++20 ${EXTRA_FLAGS} "${SOURCE}" -o "${OUT}" ${_flags} RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "building ${SOURCE} with the pkg-config flags failed")
endif()
get_filename_component(_scratch "${OUT}" DIRECTORY)
execute_process(COMMAND "${OUT}" "${LIBRARY}" "${_scratch}" OUTPUT_VARIABLE _out RESULT_VARIABLE _rc)
message(STATUS "${_out}")
if(NOT _rc EQUAL 0 OR NOT _out MATCHES "\nskills: [1-9]")
  message(FATAL_ERROR "the pkg-config consumer found no skill (exit ${_rc})")
endif()
if(VERSION)
  execute_process(COMMAND pkg-config --define-prefix --modversion agentskills OUTPUT_VARIABLE _mod
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _mod STREQUAL VERSION OR NOT _out MATCHES "^agentskills ${VERSION}\n")
    message(FATAL_ERROR "version: pkg-config says '${_mod}', the program '${_out}', expected ${VERSION}")
  endif()
endif()
