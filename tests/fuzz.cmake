# Short libFuzzer smoke runs of every fuzz/fuzz_*.c target (normal build only:
# the sanitizer build would just repeat it).
if(NOT ETP_SANITIZE)
  add_test(NAME fuzz.smoke COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz_smoke.sh ${PROJECT_SOURCE_DIR} ${ETP_FIXTURES} 5)
  set_tests_properties(fuzz.smoke PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 1200)
endif()
