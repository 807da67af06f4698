# Decoding tests: etprof's own reader against flatc, the independent oracle.
add_test(NAME formats.flatc_oracle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/flatc_compare.py $<TARGET_FILE:etprof_cli>
                 ${PROJECT_SOURCE_DIR}/schemas/flatbuffers
                 ${ETP_FIXTURES}/executorch/tutorial.etdp
                 ${ETP_FIXTURES}/executorch/synthetic_multi_run.etdp
                 ${ETP_FIXTURES}/executorch/add.pte
                 ${ETP_FIXTURES}/executorch/arduino_add.pte
                 ${ETP_FIXTURES}/executorch/module_linear.pte
                 ${ETP_FIXTURES}/real-runs/cm_et_arduino_kws_x10.etdp
                 ${ETP_FIXTURES}/real-runs/cm_et_arduino_kws_x10.pte
                 ${ETP_FIXTURES}/real-runs/et_add_x1.etdp
                 ${ETP_FIXTURES}/real-runs/et_add_x1.pte
                 ${ETP_FIXTURES}/real-runs/et_add_x10.etdp
                 ${ETP_FIXTURES}/real-runs/et_add_x10.pte
                 ${ETP_FIXTURES}/real-runs/et_bundled_program_debug_intermediate.etdp
                 ${ETP_FIXTURES}/real-runs/et_bundled_program_debug_intermediate.bpte
                 ${ETP_FIXTURES}/real-runs/np_const_methods_get_tensor_x3.etdp
                 ${ETP_FIXTURES}/real-runs/np_const_methods_get_tensor_x3.pte
                 ${ETP_FIXTURES}/real-runs/np_dtypes_x10.etdp
                 ${ETP_FIXTURES}/real-runs/np_dtypes_x10.pte
                 ${ETP_FIXTURES}/real-runs/np_multi_forward_x10.etdp
                 ${ETP_FIXTURES}/real-runs/np_multi_forward_x10.pte
                 ${ETP_FIXTURES}/real-runs/xnn_np_add_x10.etdp
                 ${ETP_FIXTURES}/real-runs/xnn_np_add_x10.pte
                 ${ETP_FIXTURES}/pte-adapter/mobilenet_v2_ethosu/input.pte
                 ${ETP_FIXTURES}/pte-adapter/mobilenet_v2_vgf/input.pte)
set_tests_properties(formats.flatc_oracle PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
