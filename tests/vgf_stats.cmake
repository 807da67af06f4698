# VGF NX cycles: generated ETDumps of the real VGF program, analysed and
# checked against an oracle that decodes them independently (flatc + Python).
add_test(NAME vgf_stats.oracle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/vgf_stats_oracle.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schema ${ETP_FIXTURES})
set_tests_properties(vgf_stats.oracle PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}" SKIP_RETURN_CODE 77 TIMEOUT 900)
