# Views of an analysis (model_explorer/ of a bundle): the graph collection
# with the ETRecord source graph, overlays whose node ids exist in the graph
# they target, the instruction <-> operator mapping, the standalone page
# (self-contained, deterministic), and the page in headless Chromium (ready
# marker, no console errors, first paint within budget on the 5,000- and
# 10,000-instruction runs, screenshots whose drawing area holds a drawing,
# kept in build/tests/views/chromium-*/ for people to look at). The gate (a .pte
# changed after the analysis) is tested in unit/test_views.c.
# huge (10,000 instructions) is checked in Chromium only: its bundle is the
# big one's, twice the size.
foreach(kind demo real big huge)
  set(whats bundle chromium)
  if(kind STREQUAL "huge")
    set(whats chromium)
  endif()
  foreach(what ${whats})
    add_test(NAME views.${what}.${kind}
             COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/views_check.py ${what} ${kind}
                     ${CMAKE_CURRENT_BINARY_DIR}/views/${what}-${kind})
    set_tests_properties(views.${what}.${kind} PROPERTIES SKIP_RETURN_CODE 77
                         ENVIRONMENT "${ETP_TEST_ENV}")
  endforeach()
endforeach()
# The Findings panel of the page in headless Chromium: the panel lists the
# analysis' findings (the data block is summary.json's), a click highlights
# exactly the affected table rows and drawn nodes, a second click clears it.
add_test(NAME views.findings.chromium
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/findings_page_check.py
                 ${CMAKE_CURRENT_BINARY_DIR}/views/findings)
set_tests_properties(views.findings.chromium PROPERTIES SKIP_RETURN_CODE 77 ENVIRONMENT "${ETP_TEST_ENV}")
