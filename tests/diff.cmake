# `etprof diff` (tests/diff_check.py): real portable vs XNNPACK runs, a run
# against itself, a tampered bundle, generated pairs with an injected
# slowdown (the bootstrap intervals re-computed in Python), mismatched pairs,
# the diff bundle, and its page in headless Chromium (screenshot kept in
# build/tests/diff/chromium/ for people to look at), and the findings that
# appeared, disappeared or were kept.
foreach(case real same tamper slowdown mismatch bundle chromium findings)
  add_test(NAME diff.${case}
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/diff_check.py ${case}
                   ${CMAKE_CURRENT_BINARY_DIR}/diff/${case})
  set_tests_properties(diff.${case} PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
endforeach()
