# Result bundles: a bundle written through the public API must satisfy the
# shipped JSON Schema (python3-jsonschema; a missing module fails the test),
# the schema must reject malformed manifests, and `etprof verify` must accept
# the bundle. Tamper cases live in unit/test_bundle.c.
add_executable(bundle_make ${CMAKE_CURRENT_SOURCE_DIR}/tools/bundle_make.c)
target_link_libraries(bundle_make PRIVATE etprof)

set(ETP_BUNDLE_TEST_DIR ${CMAKE_CURRENT_BINARY_DIR}/bundle-schema-test)
add_test(NAME bundle.make
         COMMAND sh -c "rm -rf \"$1\" \"$1.inputs\" && \"$2\" \"$1\"" sh
                 ${ETP_BUNDLE_TEST_DIR} $<TARGET_FILE:bundle_make>)
add_test(NAME bundle.schema
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/bundle_schema.py
                 ${PROJECT_SOURCE_DIR}/schemas/json/result_manifest.v1.schema.json ${ETP_BUNDLE_TEST_DIR})
add_test(NAME bundle.cli_verify_ok
         COMMAND $<TARGET_FILE:etprof_cli> verify --strict ${ETP_BUNDLE_TEST_DIR})
set_tests_properties(bundle.make PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}" FIXTURES_SETUP etp_bundle)
set_tests_properties(bundle.schema bundle.cli_verify_ok PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}"
                     FIXTURES_REQUIRED etp_bundle)
# mlia-output.json (MLIA's standardized result, schema 1.1.0 with the target
# schema): valid with python3-jsonschema on every real run, the Arm console,
# the demo and a VGF NX run, its numbers against summary.json's.
add_test(NAME bundle.mlia_output
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/mlia_check.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES})
set_tests_properties(bundle.mlia_output PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
