# `etprof analyze`: every attribution rule on purpose-built inputs, an
# independent recomputation on the real runs, and end-to-end smoke runs.
set(R ${ETP_FIXTURES}/real-runs)
add_test(NAME analyze.rules
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analyze_rules.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
add_test(NAME analyze.oracle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/analyze_oracle.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers
                 ${R}/cm_et_arduino_kws_x10 ${R}/et_add_x1 ${R}/et_add_x10 ${R}/np_dtypes_x10
                 ${R}/np_multi_forward_x10::forward ${R}/np_multi_forward_x10::double
                 ${R}/xnn_np_add_x10 ${R}/et_bundled_program_debug_intermediate:bpte
                 ${R}/np_const_methods_get_tensor_x3::get_tensor)
add_test(NAME analyze.smoke COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/analyze_smoke.sh $<TARGET_FILE:etprof_cli>)
set_tests_properties(analyze.rules analyze.oracle analyze.smoke PROPERTIES SKIP_RETURN_CODE 77
                     ENVIRONMENT "${ETP_TEST_ENV}")
add_test(NAME analyze.runner_log
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/runner_log.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES})
set_tests_properties(analyze.runner_log PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
# `analyze --json` carries everything summary.json has (issue 30): on every
# kind of run (plain, ETRecord, logs, Ethos-U, VGF statistics) the two
# documents hold the same members with the same values, but for the
# analysis-only ones (docs/result-bundle.md), and their schemas agree.
add_test(NAME analyze.json_equals_summary
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/json_equals_summary.py $<TARGET_FILE:etprof_cli>
                 ${ETP_FIXTURES} ${PROJECT_SOURCE_DIR})
set_tests_properties(analyze.json_equals_summary PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600
                     ENVIRONMENT "${ETP_TEST_ENV}")
