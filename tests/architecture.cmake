# The tree's architecture: layers only look down (util < formats < analysis <
# outputs < cli, gen beside outputs) and no two files of the libraries call
# each other, read from the compiled objects themselves.
add_test(NAME architecture.layers_and_calls
         COMMAND ${PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_architecture.py ${PROJECT_SOURCE_DIR}
                 ${PROJECT_BINARY_DIR}/CMakeFiles/etprof.dir ${PROJECT_BINARY_DIR}/CMakeFiles/etprof_gen.dir)
