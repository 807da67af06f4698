# Atomic publication of `etprof analyze -o DIR`: a failed, refused, broken or
# killed run leaves the previous bundle byte-identical and verifiable, with
# no staging or moved-aside directory beside it; a re-publication leaves no
# stale artifact (tests/publish_atomic.py). Not timed: the kill scenarios
# wait for the staging directory, then signal.
add_test(NAME publish.atomic
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/publish_atomic.py $<TARGET_FILE:etprof_cli>
                 ${ETP_FIXTURES} ${CMAKE_CURRENT_BINARY_DIR}/publish-atomic)
set_tests_properties(publish.atomic PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
