# `etprof diff --numerics` (tests/diff_numerics.py): the intermediate-output
# run against itself, against copies of its debug buffer with an
# instruction's output or the program output perturbed (figures recomputed
# with numpy at flatc's offsets), bad inputs, the diff bundle's numerics
# artifacts and overlay, and the page's numerics table in headless Chromium.
foreach(case same inner output bad bundle chromium)
  add_test(NAME diff_numerics.${case}
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/diff_numerics.py ${case}
                   ${CMAKE_CURRENT_BINARY_DIR}/diff_numerics/${case})
  set_tests_properties(diff_numerics.${case} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
endforeach()
