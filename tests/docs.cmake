# docs/issue-codes.md is generated from the registry; keep them in sync.
add_test(NAME docs.issue_codes
         COMMAND sh -c "$<TARGET_FILE:etprof_cli> analyze --list-issue-codes | diff -u ${PROJECT_SOURCE_DIR}/docs/issue-codes.md -")
