# Run history outputs (etprof/history_io.h) on histories built in memory by
# tests/support/history_demo.c: listings, trends and verdicts in every form,
# the exports against their documented columns and PyTorch's v3 record
# (schemas/json/pytorch_v3.schema.json, python3-jsonschema), hostile labels
# read back exactly, and the trend page in headless Chromium (data drawn, no
# console message, hover, a screenshot that holds a drawing; the big case
# draws 100,000 points and reports its size and drawing time). Screenshots
# stay in build/tests/history/ for people to look at.
add_executable(history_demo ${CMAKE_CURRENT_SOURCE_DIR}/support/history_demo.c)
target_include_directories(history_demo PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(history_demo PRIVATE etprof_gen etprof)
foreach(what outputs exports hostile chromium chromium-big)
  add_test(NAME history.${what}
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/history_check.py ${what}
                   $<TARGET_FILE:history_demo> ${CMAKE_CURRENT_BINARY_DIR}/history/${what})
  set_tests_properties(history.${what} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
endforeach()
