# `etprof trace`: real runs checked against an independent flatc decode
# (event counts, exact times, nesting, operator names, determinism), and
# hand-made ETDumps for delegate time bases, overlaps, units and bad input.
set(R ${ETP_FIXTURES}/real-runs)
add_test(NAME trace.fixtures
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/trace_check.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers
                 ${ETP_FIXTURES}/executorch/tutorial.etdp
                 ${ETP_FIXTURES}/executorch/synthetic_multi_run.etdp
                 ${R}/et_add_x1.etdp:${R}/et_add_x1.pte
                 ${R}/et_add_x10.etdp:${R}/et_add_x10.pte
                 ${R}/np_dtypes_x10.etdp:${R}/np_dtypes_x10.pte
                 ${R}/np_multi_forward_x10.etdp:${R}/np_multi_forward_x10.pte
                 ${R}/np_const_methods_get_tensor_x3.etdp:${R}/np_const_methods_get_tensor_x3.pte
                 ${R}/xnn_np_add_x10.etdp:${R}/xnn_np_add_x10.pte
                 ${R}/cm_et_arduino_kws_x10.etdp:${R}/cm_et_arduino_kws_x10.pte
                 ${R}/et_bundled_program_debug_intermediate.etdp:${R}/et_bundled_program_debug_intermediate.bpte)
add_test(NAME trace.cases
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/trace_cases.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers ${ETP_FIXTURES})
# Selection (--executions, --first), the 200 MB guard and the progress line.
add_test(NAME trace.select
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/trace_select.py $<TARGET_FILE:etprof_cli>)
set_tests_properties(trace.fixtures trace.cases trace.select PROPERTIES SKIP_RETURN_CODE 77
                     ENVIRONMENT "${ETP_TEST_ENV}")
