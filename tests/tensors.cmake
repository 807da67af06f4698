# The tensors a run logged: `etprof tensors`, analyze's values and bundled
# check (statistics recomputed with numpy at flatc's offsets; the bundled
# program's ten test cases run through ExecuTorch's example_runner).
get_filename_component(ETP_SHARED_FOR_TENSORS "${PROJECT_SOURCE_DIR}/../shared" ABSOLUTE)
add_test(NAME tensors.check
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tensors_check.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers ${ETP_SHARED_FOR_TENSORS}/tools)
set_tests_properties(tensors.check PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
