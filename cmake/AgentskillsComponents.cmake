# The optional components (sqlite, lock, archive, git, mcp): each is a library of its own,
# `agentskills::<name>`, built, installed, exported and found the same way.
#
#   agentskills_add_component(<name>
#     SOURCES <files under src/>            # its sources
#     HEADERS <files under include/agentskills/>   # its public headers (installed only with it)
#     DEPENDS <components>                  # other components it links (PUBLIC)
#     LINK <targets>                        # what it links privately (imported targets)
#     FIND_DEPENDENCIES <lines>             # CMake code the package config runs before its targets
#     PC_REQUIRES_PRIVATE <pkg-config modules> PC_LIBS_PRIVATE <flags>
#     DEB_DEPENDS <Debian -dev packages>
#     DESCRIPTION <text>)
#
# It defines the target `agentskills_<name>` (alias `agentskills::<name>`, exported as
# `agentskills::<name>`) and the compile definition AGENTSKILLS_HAVE_<NAME>=1 for its users;
# with AGENTSKILLS_INSTALL it installs the library, its headers, an export set
# `agentskills-<name>-targets.cmake`, a file `agentskills-<name>.cmake` that the package config
# includes (it finds what the component links, then loads its targets and sets
# agentskills_<name>_FOUND) and `agentskills-<name>.pc`.
include_guard(GLOBAL)

set_property(GLOBAL PROPERTY AGENTSKILLS_COMPONENTS "")

function(agentskills_add_component name)
  cmake_parse_arguments(ARG "" "DESCRIPTION"
    "SOURCES;HEADERS;DEPENDS;LINK;FIND_DEPENDENCIES;PC_REQUIRES_PRIVATE;PC_LIBS_PRIVATE;DEB_DEPENDS" ${ARGN})
  set(target agentskills_${name})
  string(TOUPPER "${name}" upper)
  list(TRANSFORM ARG_SOURCES PREPEND "${PROJECT_SOURCE_DIR}/src/")
  set(headers ${ARG_HEADERS})
  list(TRANSFORM headers PREPEND "${PROJECT_SOURCE_DIR}/include/agentskills/")
  add_library(${target} ${ARG_SOURCES} ${headers})
  add_library(agentskills::${name} ALIAS ${target})
  set_target_properties(${target} PROPERTIES CXX_EXTENSIONS OFF POSITION_INDEPENDENT_CODE ON EXPORT_NAME ${name}
    VERSION ${PROJECT_VERSION} SOVERSION ${AGENTSKILLS_SOVERSION})
  target_compile_definitions(${target} PUBLIC AGENTSKILLS_HAVE_${upper}=1)
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/src")
  set(public_deps agentskills)
  set(pc_requires agentskills)
  foreach(dep IN LISTS ARG_DEPENDS)
    list(APPEND public_deps agentskills_${dep})
    list(APPEND pc_requires agentskills-${dep})
  endforeach()
  target_link_libraries(${target} PUBLIC ${public_deps}
    PRIVATE ${ARG_LINK} fmt::fmt $<BUILD_INTERFACE:agentskills_project_options>)
  set_property(GLOBAL APPEND PROPERTY AGENTSKILLS_COMPONENTS ${name})
  set_property(GLOBAL PROPERTY AGENTSKILLS_COMPONENT_${name}_HEADERS ${ARG_HEADERS})

  if(NOT AGENTSKILLS_INSTALL)
    return()
  endif()
  install(TARGETS ${target} EXPORT agentskills-${name}-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  agentskills_install_headers(${ARG_HEADERS})
  install(EXPORT agentskills-${name}-targets NAMESPACE agentskills:: DESTINATION ${AGENTSKILLS_CMAKE_DIR})
  # What the package config runs for this component (cmake/agentskillsConfig.cmake.in).
  set(lines "# The component ${name} (agentskills::${name}), written by agentskills_add_component.")
  list(APPEND lines "set(agentskills_${name}_FOUND FALSE)")
  foreach(dep IN LISTS ARG_DEPENDS)
    list(APPEND lines "if(NOT TARGET agentskills::${dep})" "  return()" "endif()")
  endforeach()
  foreach(line IN LISTS ARG_FIND_DEPENDENCIES)
    list(APPEND lines "${line}")
  endforeach()
  list(APPEND lines "include(\"\${CMAKE_CURRENT_LIST_DIR}/agentskills-${name}-targets.cmake\")"
                    "set(agentskills_${name}_FOUND TRUE)")
  list(JOIN lines "\n" content)
  file(WRITE "${PROJECT_BINARY_DIR}/cmake/agentskills-${name}.cmake" "${content}\n")
  install(FILES "${PROJECT_BINARY_DIR}/cmake/agentskills-${name}.cmake" DESTINATION ${AGENTSKILLS_CMAKE_DIR})
  agentskills_install_pkgconfig(TARGET ${target} NAME agentskills-${name}
    DESCRIPTION "${ARG_DESCRIPTION}" REQUIRES ${pc_requires}
    PRIVATE_MODULES ${ARG_PC_REQUIRES_PRIVATE} PRIVATE_LIBS ${ARG_PC_LIBS_PRIVATE}
    DEB_DEPENDS ${ARG_DEB_DEPENDS})
endfunction()

# Installs public headers (paths below include/agentskills/) at their place below the prefix.
function(agentskills_install_headers)
  foreach(header IN LISTS ARGN)
    get_filename_component(dir "${header}" DIRECTORY)
    install(FILES "${PROJECT_SOURCE_DIR}/include/agentskills/${header}"
      DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}/agentskills/${dir}")
  endforeach()
endfunction()
