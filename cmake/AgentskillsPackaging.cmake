# Install-time metadata: pkg-config files, the man page and the Debian package (CPack).
#
# Targets installed by optional components are packaged without being named here: the .deb holds
# everything `install()` puts under the prefix. A component whose library is static and links
# something a consumer must also link calls
#     agentskills_install_pkgconfig(TARGET <t> NAME <name> DESCRIPTION <text>
#                                   [REQUIRES <pc modules>] [PRIVATE_MODULES <pc modules>]
#                                   [PRIVATE_LIBS <ldflags>] [DEB_DEPENDS <debian -dev packages>])
# which writes <name>.pc from cmake/agentskills.pc.in and adds DEB_DEPENDS to the Depends of the
# package. The main library uses the same call (CMakeLists.txt).

include_guard(GLOBAL)
find_package(PkgConfig QUIET)

set(AGENTSKILLS_PKGCONFIG_DIR "${CMAKE_INSTALL_LIBDIR}/pkgconfig" CACHE STRING
  "Where agentskills.pc is installed, relative to the prefix")

# An absolute install directory stays as it is; a relative one goes under ${prefix}.
function(_agentskills_pc_dir out_var dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out_var} "${dir}" PARENT_SCOPE)
  else()
    set(${out_var} "\${prefix}/${dir}" PARENT_SCOPE)
  endif()
endfunction()

function(agentskills_install_pkgconfig)
  cmake_parse_arguments(ARG "" "TARGET;NAME;DESCRIPTION" "REQUIRES;PRIVATE_MODULES;PRIVATE_LIBS;DEB_DEPENDS" ${ARGN})
  get_target_property(_type ${ARG_TARGET} TYPE)
  get_target_property(_output ${ARG_TARGET} OUTPUT_NAME)
  if(NOT _output)
    set(_output ${ARG_TARGET})
  endif()

  # What each private module puts on a link line, asked of pkg-config now, so that the file
  # names the same libraries as the build used.
  set(_private_ldflags)
  foreach(_module IN LISTS ARG_PRIVATE_MODULES)
    string(MAKE_C_IDENTIFIER "_agentskills_pc_${_module}" _prefix)
    if(PkgConfig_FOUND)
      pkg_check_modules(${_prefix} QUIET ${_module})
    endif()
    if(NOT ${_prefix}_FOUND)
      message(FATAL_ERROR "agentskills_install_pkgconfig(${ARG_NAME}): pkg-config module '${_module}' not found; "
                          "its .pc file is needed to write ${ARG_NAME}.pc")
    endif()
    # -L of a directory the linker searches anyway (/usr/lib/<triplet>) is left out.
    foreach(_flag IN LISTS ${_prefix}_LDFLAGS)
      if(_flag MATCHES "^-L(.*)$" AND CMAKE_MATCH_1 IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
        continue()
      endif()
      list(APPEND _private_ldflags ${_flag})
    endforeach()
  endforeach()
  list(APPEND _private_ldflags ${ARG_PRIVATE_LIBS})
  list(REMOVE_DUPLICATES _private_ldflags)
  list(JOIN _private_ldflags " " _private_ldflags)

  set(AGENTSKILLS_PC_NAME ${ARG_NAME})
  set(AGENTSKILLS_PC_DESCRIPTION "${ARG_DESCRIPTION}")
  set(AGENTSKILLS_PC_LIBNAME ${_output})
  list(JOIN ARG_REQUIRES " " AGENTSKILLS_PC_REQUIRES)
  list(JOIN ARG_PRIVATE_MODULES " " AGENTSKILLS_PC_REQUIRES_PRIVATE)
  if(_type STREQUAL "STATIC_LIBRARY")
    # A static archive records none of its dependencies, and plain `pkg-config --libs` does not
    # read Requires.private, so the private libraries go on the Libs line itself; --static
    # gives them again through Requires.private, which is harmless.
    set(AGENTSKILLS_PC_LIBS "${_private_ldflags}")
    set(AGENTSKILLS_PC_LIBS_PRIVATE "${_private_ldflags}")
    if(ARG_DEB_DEPENDS)
      set_property(GLOBAL APPEND PROPERTY AGENTSKILLS_DEB_DEPENDS ${ARG_DEB_DEPENDS})
    endif()
  else()
    set(AGENTSKILLS_PC_LIBS "")
    set(AGENTSKILLS_PC_LIBS_PRIVATE "${_private_ldflags}")
  endif()
  set(AGENTSKILLS_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  _agentskills_pc_dir(AGENTSKILLS_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
  _agentskills_pc_dir(AGENTSKILLS_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
  configure_file("${PROJECT_SOURCE_DIR}/cmake/agentskills.pc.in" "${PROJECT_BINARY_DIR}/pkgconfig/${ARG_NAME}.pc" @ONLY)
  install(FILES "${PROJECT_BINARY_DIR}/pkgconfig/${ARG_NAME}.pc" DESTINATION "${AGENTSKILLS_PKGCONFIG_DIR}")
endfunction()

# The man page, printed by the program itself (`agentskills man`, from the table --help is made of)
# at build time.
function(agentskills_install_man_page program_target)
  set(_page "${PROJECT_BINARY_DIR}/man/agentskills.1")
  add_custom_command(OUTPUT "${_page}"
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:${program_target}> -DOUT=${_page}
            -P "${PROJECT_SOURCE_DIR}/cmake/AgentskillsManPage.cmake"
    DEPENDS ${program_target} "${PROJECT_SOURCE_DIR}/cmake/AgentskillsManPage.cmake"
    COMMENT "Writing the agentskills(1) man page (agentskills man)" VERBATIM)
  add_custom_target(agentskills_man ALL DEPENDS "${_page}")
  install(FILES "${_page}" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
endfunction()

# CPack: `cpack -G DEB` in a build configured with -DCMAKE_INSTALL_PREFIX=/usr. Call last, after
# every install() rule and agentskills_install_pkgconfig() call.
function(agentskills_configure_cpack)
  install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" DESTINATION "${CMAKE_INSTALL_DOCDIR}" RENAME copyright)

  set(CPACK_PACKAGE_NAME agentskills)
  set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
  set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
  set(CPACK_PACKAGE_DESCRIPTION
      "agentskills-cpp reads Agent Skills (folders with a SKILL.md) for C++ agent runtimes. This "
      "package holds the library (headers, static library, CMake package, pkg-config file) and the "
      "agentskills program.")
  string(JOIN "" CPACK_PACKAGE_DESCRIPTION ${CPACK_PACKAGE_DESCRIPTION})
  set(CPACK_PACKAGE_HOMEPAGE_URL "${PROJECT_HOMEPAGE_URL}")
  set(CPACK_PACKAGE_VENDOR "agentskills-cpp")
  set(CPACK_PACKAGE_CONTACT "agentskills-cpp maintainers <maintainers@agentskills-cpp.invalid>")
  set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
  set(CPACK_STRIP_FILES ON)

  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
  set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
  set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
  # Runtime libraries of the installed programs and shared libraries, found by dpkg-shlibdeps.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
  # A static library carries none of its dependencies: a consumer links them itself, so it needs
  # their -dev packages (headers, .so links, .pc and CMake files). The public header needs
  # nlohmann's headers whatever the library type.
  get_property(_dev GLOBAL PROPERTY AGENTSKILLS_DEB_DEPENDS)
  list(PREPEND _dev nlohmann-json3-dev)
  list(REMOVE_DUPLICATES _dev)
  list(JOIN _dev ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake, pkg-config")
  if(NOT CPACK_GENERATOR)
    set(CPACK_GENERATOR DEB)
  endif()
  include(CPack)
endfunction()
