# Runs `redscope run -q --expect CSV ROOT` and checks the summary line.
#   CSV, ROOT, REDSCOPE, WORK: paths; EXCLUDE: drop CSV rows containing it;
#   EXPECT_PASSED: the number of rows that must pass (default: all rows).
if(NOT EXISTS "${CSV}")
  # ctest marks the test skipped on this line (SKIP_REGULAR_EXPRESSION).
  message(FATAL_ERROR "SKIP: ${CSV} not found (../shared is absent); conformance not checked")
endif()
file(STRINGS "${CSV}" rows)
get_filename_component(csv_dir "${CSV}" DIRECTORY)
get_filename_component(csv_name "${CSV}" NAME_WE)
set(kept "")
set(count 0)
foreach(row IN LISTS rows)
  if(row STREQUAL "")
    continue()
  endif()
  if(DEFINED EXCLUDE AND row MATCHES "${EXCLUDE}")
    continue()
  endif()
  string(APPEND kept "${csv_dir}/${row}\n")
  math(EXPR count "${count} + 1")
endforeach()
set(filtered "${WORK}/${csv_name}-absolute.csv")
file(WRITE "${filtered}" "${kept}")
if(NOT DEFINED EXPECT_PASSED)
  set(EXPECT_PASSED ${count})
endif()
execute_process(COMMAND "${REDSCOPE}" run -q -j 2 --expect "${filtered}" "${ROOT}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT out MATCHES "${EXPECT_PASSED} passed, 0 failed")
  message(FATAL_ERROR "expected '${EXPECT_PASSED} passed, 0 failed' (exit ${rc})\n${err}")
endif()
# Exit 1 only says some other file in ROOT could not be checked (e.g. proxy
# tests outside the CSV); anything else is a crash or a usage error.
if(NOT rc EQUAL 0 AND NOT rc EQUAL 1)
  message(FATAL_ERROR "redscope exited with ${rc}\n${err}")
endif()
