# VGF (VgfBackend delegates): the reader's FlatBuffers sections against flatc
# (the oracle), the Model Explorer graphs against Arm's adapters' expected
# documents, malformed inputs, and the page's VGF view.
add_test(NAME vgf.flatc_oracle
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/vgf_flatc_compare.py
                 $<TARGET_FILE:etprof_cli> ${PROJECT_SOURCE_DIR}/schemas/flatbuffers
                 ${ETP_FIXTURES}/vgf-adapter/mobilenet_v2/input.vgf
                 ${ETP_FIXTURES}/pte-adapter/mobilenet_v2_vgf/input.pte)
set_tests_properties(vgf.flatc_oracle PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")

add_test(NAME vgf.graph.vgf_adapter
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/vgf_graph_check.py vgf
                 $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}/vgf-adapter/mobilenet_v2)
add_test(NAME vgf.graph.pte_delegates
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/vgf_graph_check.py pte
                 $<TARGET_FILE:etprof_cli> ${ETP_FIXTURES}/pte-adapter/mobilenet_v2_vgf)
set_tests_properties(vgf.graph.vgf_adapter vgf.graph.pte_delegates PROPERTIES
                     SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")

# A hand-made VGF (0.4.3, two segments, GLSL module, unknown opcode) and its
# broken variants: needs flatc to build the tables, not ../shared.
add_test(NAME vgf.synthetic
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/vgf_synth.py check
                 $<TARGET_FILE:etprof_cli> ${PROJECT_SOURCE_DIR}/schemas/flatbuffers)
set_tests_properties(vgf.synthetic PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}")

# The VGF delegate in a bundle and on its page, in headless Chromium (the
# screenshot stays in build/tests/vgf/page/ for people to look at).
add_test(NAME vgf.page.chromium
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/vgf_page_check.py
                 ${CMAKE_CURRENT_BINARY_DIR}/vgf/page)
set_tests_properties(vgf.page.chromium PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
