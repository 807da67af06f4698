# Result bundle content (tests/bundle_content.py): every JSON artifact of
# `etprof analyze -o` against its schema in schemas/ (python3-jsonschema; a
# missing module fails), cross-file consistency, operators.csv as RFC 4180
# with one row per entity, golden files, determinism, failed analyses that
# leave no manifest, tampering caught by `etprof verify`. Only `real` needs
# ../shared/fixtures and skips (77) when it is absent.
foreach(mode schemas demo golden determinism failure tamper real)
  add_test(NAME bundle_content.${mode}
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/bundle_content.py ${mode}
                   $<TARGET_FILE:etprof_cli> ${PROJECT_SOURCE_DIR} ${ETP_FIXTURES}
                   ${CMAKE_CURRENT_BINARY_DIR}/bundle-content/${mode})
  set_tests_properties(bundle_content.${mode} PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}")
endforeach()
set_tests_properties(bundle_content.real PROPERTIES SKIP_RETURN_CODE 77)
