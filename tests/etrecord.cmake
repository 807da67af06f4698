# ETRecord: `etprof dump --json` against Python's own zipfile + json reading.
add_test(NAME etrecord.dump_json
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/etrecord_dump_check.py
                 $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}
                 executorch/sample_etrecord.bin
                 real-runs/cm_et_arduino_kws_x10.etrecord)
set_tests_properties(etrecord.dump_json PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
