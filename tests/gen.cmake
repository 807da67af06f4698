# `etprof gen`: generated ETDumps, programs and ETRecords are valid (flatc
# agrees with etprof's decode), match the documented demo design, are
# consistent with each other, and are deterministic.
add_test(NAME gen.scenarios
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/gen_check.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
set_tests_properties(gen.scenarios PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}")
