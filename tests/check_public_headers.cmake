# Fails when a public header includes a private dependency.
file(GLOB_RECURSE headers "${DIR}/*.hpp")
foreach(h IN LISTS headers)
  file(STRINGS "${h}" lines REGEX "#[ \t]*include[ \t]*[<\"](yaml-cpp|fmt|utf8proc|CLI)")
  if(lines)
    message(FATAL_ERROR "${h} includes a private dependency: ${lines}")
  endif()
endforeach()
message(STATUS "checked public headers: no private dependencies")
