# VGF NX cycles: generated ETDumps of the real VGF program, analysed and
# checked against an oracle that decodes them independently (flatc + Python).
add_test(NAME nx_stats.oracle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/nx_stats_oracle.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers ${ETP_FIXTURES})
set_tests_properties(nx_stats.oracle PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 900)
# Beside the runtime result: a mixed dump's VGF instruction left out of the
# runtime totals, source links from the ETRecord's delegate map, the
# --companion-model alias, and the coverage-gap capture end to end.
foreach(case mixed links alias coverage)
  add_test(NAME nx_stats.${case}
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/nx_stats_scenarios.py $<TARGET_FILE:etprof_cli>
                   ${PROJECT_SOURCE_DIR}/schemas/flatbuffers ${ETP_FIXTURES} ${case})
  set_tests_properties(nx_stats.${case} PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 600)
endforeach()
