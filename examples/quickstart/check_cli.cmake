cmake_minimum_required(VERSION 3.20)
# Runs PROGRAM with ARGS (a ;-list, where %SKILLS% stands for the skills directory), replaces
# the resolved skills path in the output by <SKILLS> and compares it with EXPECTED.
# Set UPDATE=ON to rewrite EXPECTED instead.
string(REPLACE "%SKILLS%" "${SKILLS}" args "${ARGS}")
execute_process(COMMAND "${PROGRAM}" ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL "${EXIT}")
  message(FATAL_ERROR "${PROGRAM} ${args}: exit ${rc}, expected ${EXIT}: ${err}")
endif()
file(REAL_PATH "${SKILLS}" real_skills)
string(REPLACE "${real_skills}" "<SKILLS>" out "${out}")
if(UPDATE)
  file(WRITE "${EXPECTED}" "${out}")
  return()
endif()
file(READ "${EXPECTED}" expected)
if(NOT out STREQUAL expected)
  message(FATAL_ERROR "output of ${PROGRAM} ${args} differs from ${EXPECTED}:\n${out}")
endif()
