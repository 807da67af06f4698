# Findings (etprof/findings.h): the five runtime profiles of the Model
# Explorer learning path rebuilt as ETDumps (flatc) for real and written
# programs, each with the findings it must give and nothing contradictory;
# a withheld finding; --finding thresholds. Then every real run of the
# fixtures, the device log and the demo against a checked-in list of the
# findings that fire (no false alarms). Work files in build/tests/findings/.
add_test(NAME findings.seed_profiles
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/findings/seed_profiles.py $<TARGET_FILE:etprof_cli>
                 ${CMAKE_CURRENT_BINARY_DIR}/findings/seed)
add_test(NAME findings.real_runs
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/findings/real_runs.py $<TARGET_FILE:etprof_cli>
                 ${CMAKE_CURRENT_SOURCE_DIR}/findings/real_runs_expected.json
                 ${CMAKE_CURRENT_BINARY_DIR}/findings/real)
set_tests_properties(findings.seed_profiles findings.real_runs PROPERTIES SKIP_RETURN_CODE 77
                     ENVIRONMENT "${ETP_TEST_ENV}")
# A bundle whose summary.json holds malformed findings is refused by diff
# with exit 1 and one line (the demo, re-sealed: no fixtures needed).
add_test(NAME findings.bad_bundle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/findings/bad_bundle_findings.py $<TARGET_FILE:etprof_cli>
                 ${CMAKE_CURRENT_BINARY_DIR}/findings/bad_bundle)
set_tests_properties(findings.bad_bundle PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}")
