# docs/issue-codes.md is generated from the registry; keep them in sync.
add_test(NAME docs.issue_codes
         COMMAND sh -c "$<TARGET_FILE:etprof_cli> analyze --list-issue-codes | diff -u ${PROJECT_SOURCE_DIR}/docs/issue-codes.md -")
# Every code emitted (analysis issues, diff warnings) is in the registry for its
# scope, and every registry code is emitted somewhere.
add_test(NAME docs.issue_codes_emitted
         COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_issue_codes.py
                 $<TARGET_FILE:etprof_cli> ${PROJECT_SOURCE_DIR})
# docs/findings.md is generated from the finding registry; keep them in sync,
# and every finding code is recorded by a rule (and none outside the registry).
add_test(NAME docs.findings
         COMMAND sh -c "$<TARGET_FILE:etprof_cli> analyze --list-finding-codes | diff -u ${PROJECT_SOURCE_DIR}/docs/findings.md -")
add_test(NAME docs.finding_codes_recorded
         COMMAND python3 ${PROJECT_SOURCE_DIR}/tests/tools/check_finding_codes.py
                 $<TARGET_FILE:etprof_cli> ${PROJECT_SOURCE_DIR})
