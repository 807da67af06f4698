# Model Explorer graph: `etprof graph` against Arm's PTE-adapter fixtures
# (structural comparison per the spec's section 3.8, and byte equality of the
# main graph), an independent Python rebuild of every real program's graph,
# and a synthetic program covering what the real files do not.
foreach(case mobilenet_v2_ethosu mobilenet_v2_vgf)
  add_test(NAME mexplorer.fixture.${case}
           COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/me_graph_check.py fixture
                   $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}/pte-adapter/${case})
  set_tests_properties(mexplorer.fixture.${case} PROPERTIES SKIP_RETURN_CODE 77
                       ENVIRONMENT "${ETP_TEST_ENV}")
endforeach()

add_test(NAME mexplorer.oracle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/me_graph_check.py oracle
                 $<TARGET_FILE:etprof_cli>
                 ${ETP_FIXTURES}/executorch/add.pte
                 ${ETP_FIXTURES}/executorch/arduino_add.pte
                 ${ETP_FIXTURES}/executorch/module_linear.pte
                 ${ETP_FIXTURES}/real-runs/cm_et_arduino_kws_x10.pte
                 ${ETP_FIXTURES}/real-runs/et_add_x1.pte
                 ${ETP_FIXTURES}/real-runs/np_const_methods_get_tensor_x3.pte
                 ${ETP_FIXTURES}/real-runs/np_dtypes_x10.pte
                 ${ETP_FIXTURES}/real-runs/np_multi_forward_x10.pte
                 ${ETP_FIXTURES}/real-runs/xnn_np_add_x10.pte
                 ${ETP_FIXTURES}/pte-adapter/mobilenet_v2_ethosu/input.pte
                 ${ETP_FIXTURES}/pte-adapter/mobilenet_v2_vgf/input.pte)
set_tests_properties(mexplorer.oracle PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")

add_test(NAME mexplorer.synthetic
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/me_synthetic.py
                 $<TARGET_FILE:etprof_cli> ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
set_tests_properties(mexplorer.synthetic PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}")

# --model-explorer files|overlays|none and --no-model-explorer on real runs:
# what each level keeps (tests/me_levels.py).
add_test(NAME mexplorer.levels
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/me_levels.py $<TARGET_FILE:etprof_cli>
                 ${ETP_FIXTURES} ${CMAKE_CURRENT_BINARY_DIR}/me-levels)
set_tests_properties(mexplorer.levels PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
# `etprof view`: the graph and page of a light bundle made later, byte for
# byte a full publication's, its inputs checked by SHA-256.
get_filename_component(ETP_SHARED_TOOLS "${PROJECT_SOURCE_DIR}/../shared/tools/executorch" ABSOLUTE)
add_test(NAME mexplorer.view
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/view_check.py $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}
                 ${ETP_SHARED_TOOLS})
set_tests_properties(mexplorer.view PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
