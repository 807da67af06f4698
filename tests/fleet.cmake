# `etprof gen fleet`: a labelled history of published bundles with known
# injected regressions; verified, deterministic, ingested into the store and
# seen there as fleet.json describes it (tests/fleet_check.py).
add_test(NAME fleet.generate
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/fleet_check.py
                 ${CMAKE_CURRENT_BINARY_DIR}/fleet)
set_tests_properties(fleet.generate PROPERTIES TIMEOUT 300 ENVIRONMENT
                     "${ETP_TEST_ENV};ETP_STORE_PROBE=$<TARGET_FILE:store_probe>")
