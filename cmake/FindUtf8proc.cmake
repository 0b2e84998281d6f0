# Finds utf8proc (Debian's libutf8proc-dev ships no CMake config) and defines utf8proc::utf8proc.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_UTF8PROC QUIET libutf8proc)
endif()
find_path(Utf8proc_INCLUDE_DIR utf8proc.h HINTS ${PC_UTF8PROC_INCLUDE_DIRS})
find_library(Utf8proc_LIBRARY NAMES utf8proc HINTS ${PC_UTF8PROC_LIBRARY_DIRS})
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Utf8proc REQUIRED_VARS Utf8proc_LIBRARY Utf8proc_INCLUDE_DIR)
if(Utf8proc_FOUND AND NOT TARGET utf8proc::utf8proc)
  add_library(utf8proc::utf8proc UNKNOWN IMPORTED)
  set_target_properties(utf8proc::utf8proc PROPERTIES
    IMPORTED_LOCATION "${Utf8proc_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${Utf8proc_INCLUDE_DIR}")
endif()
mark_as_advanced(Utf8proc_INCLUDE_DIR Utf8proc_LIBRARY)
