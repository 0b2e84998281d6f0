# Runs PROGRAM with SKILLS, replaces the (resolved) skills path by <SKILLS> and compares the
# output with EXPECTED. Set UPDATE=ON to rewrite EXPECTED instead.
execute_process(COMMAND "${PROGRAM}" "${SKILLS}" OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "quickstart failed (${rc}): ${err}")
endif()
file(REAL_PATH "${SKILLS}" real_skills)
string(REPLACE "${real_skills}" "<SKILLS>" out "${out}")
if(UPDATE)
  file(WRITE "${EXPECTED}" "${out}")
  return()
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/quickstart_actual.txt" "${out}")
  message(FATAL_ERROR "quickstart output differs from ${EXPECTED}; actual output in "
                      "${CMAKE_CURRENT_BINARY_DIR}/quickstart_actual.txt")
endif()
message(STATUS "quickstart output matches")
