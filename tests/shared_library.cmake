# libetprof.so exports only the public API (functions of include/etprof/*.h).
if(NOT TARGET etprof_shared)
  return()
endif()
add_test(NAME shared_library.exports
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/shared_library_exports.py
                 $<TARGET_FILE:etprof_shared> $<TARGET_FILE:etprof> ${PROJECT_SOURCE_DIR})
