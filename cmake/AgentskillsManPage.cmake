# cmake -DPROGRAM=<agentskills> -DVERSION=<x.y.z> -DOUT=<agentskills.1> -P AgentskillsManPage.cmake
# Writes a man page made of the program's own --help texts (the top level and each subcommand),
# so that the page cannot drift from the program.
foreach(_var PROGRAM VERSION OUT)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "AgentskillsManPage.cmake needs -D${_var}=...")
  endif()
endforeach()

function(_help out_var)
  execute_process(COMMAND "${PROGRAM}" ${ARGN} --help OUTPUT_VARIABLE _text RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} ${ARGN} --help failed (${_rc})")
  endif()
  # roff: a backslash is written \e; a line that starts with . or ' is protected with \&.
  string(REPLACE "\\" "\\e" _text "${_text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" _text "${_text}")
  set(${out_var} "${_text}" PARENT_SCOPE)
endfunction()

_help(_top)
execute_process(COMMAND "${PROGRAM}" --help OUTPUT_VARIABLE _raw)
string(REGEX REPLACE ".*\nSubcommands:\n" "" _subs "${_raw}")
string(REGEX MATCHALL "(^|\n)  [a-z][a-z0-9-]*" _names "${_subs}")

set(_page ".TH AGENTSKILLS 1 \"\" \"agentskills ${VERSION}\" \"User Commands\"\n")
string(APPEND _page ".SH NAME\nagentskills \\- validate, list and render Agent Skills (SKILL.md folders)\n")
string(APPEND _page ".SH SYNOPSIS\n.B agentskills\n\\fICOMMAND\\fR [\\fIOPTIONS\\fR]\n")
string(APPEND _page ".SH DESCRIPTION\n.nf\n${_top}.fi\n.SH COMMANDS\n")
foreach(_name IN LISTS _names)
  string(STRIP "${_name}" _name)
  _help(_sub ${_name})
  string(APPEND _page ".SS ${_name}\n.nf\n${_sub}.fi\n")
endforeach()
string(APPEND _page ".SH SEE ALSO\nThe documentation in /usr/share/doc/agentskills and docs/cli.md of the source.\n")
file(WRITE "${OUT}" "${_page}")
