# The run-history store (`etprof db`, etprof/store.h): the same scenarios
# (tests/store_check.py) against SQLite and against a real PostgreSQL server.
#
# The server is a throwaway cluster (tests/tools/pg_cluster.sh) that ctest
# itself starts before the PostgreSQL tests (FIXTURES_SETUP) and stops after
# them (FIXTURES_CLEANUP), in a temporary directory, on a Unix socket only.
# Each build directory has its own (the ASan build runs the suite too).
# Without the PostgreSQL binaries the start fails, and with it every
# PostgreSQL test: CI installs Debian's `postgresql`.

# The query API on the command line, for the scenarios (series, exports).
add_executable(store_probe ${CMAKE_CURRENT_SOURCE_DIR}/support/store_probe.c)
target_include_directories(store_probe PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(store_probe PRIVATE etprof)

add_test(NAME store.pg.start
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/pg_cluster.sh start ${ETP_PG_DIR})
set_tests_properties(store.pg.start PROPERTIES FIXTURES_SETUP etp_pg TIMEOUT 120)
add_test(NAME store.pg.stop
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/pg_cluster.sh stop ${ETP_PG_DIR})
set_tests_properties(store.pg.stop PROPERTIES FIXTURES_CLEANUP etp_pg TIMEOUT 120)

set(ETP_STORE_CASES ingest content series export concurrent kill hostile secrets failures
    migrate gc analyze cli verbs)
foreach(engine sqlite postgresql)
  foreach(case ${ETP_STORE_CASES})
    set(name store.${case}.${engine})
    add_test(NAME ${name}
             COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/store_check.py ${case} ${engine}
                     ${CMAKE_CURRENT_BINARY_DIR}/store/${case}.${engine})
    set_tests_properties(${name} PROPERTIES TIMEOUT 600 ENVIRONMENT
                         "${ETP_TEST_ENV};ETP_STORE_PROBE=$<TARGET_FILE:store_probe>;ETP_PG_DIR=${ETP_PG_DIR}")
    if(engine STREQUAL "postgresql")
      set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED etp_pg)
    endif()
  endforeach()
endforeach()
