# The Python package (python/) over libetprof.so, with the system
# /usr/bin/python3 and Debian's python3-pytest, and the install story.
#
# Under ETP_SANITIZE the library carries ASan, whose runtime must be loaded
# first: python runs with LD_PRELOAD of gcc's libasan and detect_leaks=0
# (the interpreter's own allocations live until exit and are not leaks of
# ours; the C side's leaks are caught by the cmocka and CLI tests of the
# same build, and the 1,000-analysis RSS test runs in the normal build).
if(NOT TARGET etprof_shared)
  return()
endif()
set(ETP_PY_ENV ${ETP_TEST_ENV} "ETPROF_LIBRARY=$<TARGET_FILE:etprof_shared>"
    "PYTHONDONTWRITEBYTECODE=1")
if(ETP_SANITIZE)
  execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=libasan.so
                  OUTPUT_VARIABLE ETP_LIBASAN OUTPUT_STRIP_TRAILING_WHITESPACE)
  list(FILTER ETP_PY_ENV EXCLUDE REGEX "^ASAN_OPTIONS=")
  list(APPEND ETP_PY_ENV "LD_PRELOAD=${ETP_LIBASAN}" "ASAN_OPTIONS=detect_leaks=0"
       "ETP_ASAN=1")
endif()
add_test(NAME python.package
         COMMAND ${PYTHON3} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/python)
# etprof.History reads PostgreSQL too: the store tests' cluster (store.cmake); its
# series are compared with the query API's own JSON (store_probe, store.cmake).
set_tests_properties(python.package PROPERTIES ENVIRONMENT
                     "${ETP_PY_ENV};ETP_PG_DIR=${ETP_PG_DIR};ETP_STORE_PROBE=$<TARGET_FILE:store_probe>"
                     TIMEOUT 900 SKIP_RETURN_CODE 77 FIXTURES_REQUIRED etp_pg)
add_test(NAME python.install
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python_install.sh ${PROJECT_BINARY_DIR}
                 ${PYTHON3} ${CMAKE_C_COMPILER} $<BOOL:${ETP_SANITIZE}>)
set_tests_properties(python.install PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}" TIMEOUT 600
                     SKIP_RETURN_CODE 77)
# The same with the first python3 on PATH when it is not Debian's (a pyenv
# 3.11 without the wheel package on these machines): the README's line must
# work with it too. Skips where python3 is /usr/bin/python3.
add_test(NAME python.install.path_python3
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python_install.sh ${PROJECT_BINARY_DIR}
                 PATH ${CMAKE_C_COMPILER} $<BOOL:${ETP_SANITIZE}>)
set_tests_properties(python.install.path_python3 PROPERTIES ENVIRONMENT "${ETP_TEST_ENV}"
                     TIMEOUT 600 SKIP_RETURN_CODE 77)
