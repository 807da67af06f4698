# `etprof analyze`: cross-checks between the inputs, tick-unit evidence from
# wall times, warm-up skipping, cold start, ranking and the --fail-on gate.
add_test(NAME analyze.crosscheck
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/crosscheck.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers ${ETP_FIXTURES})
set_tests_properties(analyze.crosscheck PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
