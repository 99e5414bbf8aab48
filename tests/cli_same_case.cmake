# Runs the kvplan CLI twice and checks that both runs exit 0 with the same stdout and stderr, and that the
# stdout matches OUT_RE: an engine's flag names (or a suffix) plan exactly what kvplan's own do.
# -DEXE=... -DARGS="a|b|c" -DSAME_AS="a|b|d" -DOUT_RE=regex
string(REPLACE "|" ";" argv "${ARGS}")
string(REPLACE "|" ";" argv_same "${SAME_AS}")
execute_process(COMMAND "${EXE}" ${argv} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
execute_process(COMMAND "${EXE}" ${argv_same} RESULT_VARIABLE rc_same OUTPUT_VARIABLE out_same
                ERROR_VARIABLE err_same)
set(ctx "\n--- args: ${ARGS}\n--- exit code: ${rc}\n--- stdout:\n${out}\n--- stderr:\n${err}")
set(ctx_same "\n--- args: ${SAME_AS}\n--- exit code: ${rc_same}\n--- stdout:\n${out_same}\n--- stderr:\n${err_same}")
if(NOT rc EQUAL 0 OR NOT rc_same EQUAL 0)
  message(FATAL_ERROR "exit codes ${rc} and ${rc_same}, expected 0${ctx}${ctx_same}")
endif()
if(NOT out STREQUAL out_same OR NOT err STREQUAL err_same)
  message(FATAL_ERROR "the two runs differ${ctx}${ctx_same}")
endif()
if(NOT out MATCHES "${OUT_RE}")
  message(FATAL_ERROR "stdout does not match '${OUT_RE}'${ctx}")
endif()
