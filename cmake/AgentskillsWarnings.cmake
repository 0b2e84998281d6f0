# Warning flags for this project's own targets (never pushed onto consumers).
function(agentskills_set_warnings target)
  if(MSVC)
    target_compile_options(${target} INTERFACE /W4)
    if(AGENTSKILLS_WARNINGS_AS_ERRORS)
      target_compile_options(${target} INTERFACE /WX)
    endif()
  else()
    target_compile_options(${target} INTERFACE -Wall -Wextra -Wpedantic -Wconversion -Wshadow)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      # GCC 12 at -O3 (Release) reports false -Wrestrict warnings inside std::string for code
      # such as `"s" + std::to_string(i)` (GCC bug 105651); they would fail -Werror builds.
      target_compile_options(${target} INTERFACE -Wno-restrict)
    endif()
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND AGENTSKILLS_UNITY_BUILD)
      # In a unity build each source is #included into a batch file, and GCC then takes it for a
      # header: a pimpl `Impl` with a member of a type from the source's anonymous namespace draws
      # -Wsubobject-linkage, which guards against ODR breaks between translation units that
      # cannot happen here (each source is in exactly one batch). The dev preset builds each
      # source alone (AGENTSKILLS_UNITY_BUILD=OFF), with the warning.
      target_compile_options(${target} INTERFACE -Wno-subobject-linkage)
    endif()
    if(AGENTSKILLS_WARNINGS_AS_ERRORS)
      target_compile_options(${target} INTERFACE -Werror)
    endif()
  endif()
endfunction()
