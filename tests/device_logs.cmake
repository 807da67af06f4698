# Device logs (specs/runner-logs.md): every format and version, the fixture
# console log with its carried ETDump, hostile logs, the Ethos-U split, and
# `etprof run` with a fake runner.
add_test(NAME device_logs.formats
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/device_logs.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
add_test(NAME device_logs.run
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/run_cmd.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES})
set_tests_properties(device_logs.formats device_logs.run PROPERTIES SKIP_RETURN_CODE 77
                     ENVIRONMENT "${ETP_TEST_ENV}")
# The debug buffer beside an ETDump (--debug-buffer or carried by a --log):
# every logged tensor inside it, recorded as an input; the ETDump from a log.
add_test(NAME device_logs.debug_buffer
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/debug_buffer.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
set_tests_properties(device_logs.debug_buffer PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
# The Ethos-U split on the report page: its table, the node details panel,
# no console error, in headless Chromium (pages in build/tests/ethosu/page/).
add_test(NAME device_logs.ethosu_page.chromium
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/ethosu_page_check.py
                 ${CMAKE_CURRENT_BINARY_DIR}/ethosu/page)
set_tests_properties(device_logs.ethosu_page.chromium PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
# `etprof run` and `analyze --log` with ExecuTorch's own runners
# (../shared/tools/executorch/): executor_runner, its no-log Release build
# and example_runner on the real programs; each bundle verifies and its
# Method::execute equals flatc's decode of the ETDump the runner wrote.
get_filename_component(ETP_SHARED "${PROJECT_SOURCE_DIR}/../shared" ABSOLUTE)
add_test(NAME device_logs.real_runners
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/real_runners.py $<TARGET_FILE:etprof_cli> ${ETP_SHARED}
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
set_tests_properties(device_logs.real_runners PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
