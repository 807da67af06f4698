# One command-line convention across the commands (inputs in any order,
# wrong kinds named, help, usage errors, exit statuses, -o).
add_test(NAME cli.convention
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cli_convention.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES})
set_tests_properties(cli.convention PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
add_test(NAME views.page_figures
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/page_figures.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES})
set_tests_properties(views.page_figures PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
# One unit per terminal table on every real run, with and without its log (issue 31).
add_test(NAME text.units
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/text_units.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES})
set_tests_properties(text.units PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
