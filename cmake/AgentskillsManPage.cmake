# cmake -DPROGRAM=<agentskills> -DOUT=<agentskills.1> -P AgentskillsManPage.cmake
# Writes the man page the program prints with its hidden `man` command: made from the same
# command table as --help (cli/completion.cpp), so that the page cannot drift from the program.
foreach(_var PROGRAM OUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "AgentskillsManPage.cmake needs -D${_var}=...")
  endif()
endforeach()
execute_process(COMMAND "${PROGRAM}" man OUTPUT_VARIABLE _page RESULT_VARIABLE _rc)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} man failed (${_rc})")
endif()
file(WRITE "${OUT}" "${_page}")
