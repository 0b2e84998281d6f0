cmake_minimum_required(VERSION 3.20)
# Runs PROGRAM with SKILLS as its one argument and compares the output with EXPECTED (the
# skills path replaced by <SKILLS>): check_cli.cmake with those arguments and exit status 0.
set(ARGS "%SKILLS%")
set(EXIT 0)
include("${CMAKE_CURRENT_LIST_DIR}/check_cli.cmake")
