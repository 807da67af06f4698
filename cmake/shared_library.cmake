# libetprof.so: the same library as the static one (which the CLI and the
# tests link), built a second time position-independent, exporting only the
# functions the public headers declare (a version script generated from
# include/etprof/*.h; everything else is local). Installed with the headers
# and etprof.pc. The input generators (etprof/gen.h) are not part of it.
include(GNUInstallDirs)
find_program(ETP_PYTHON3 NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT ETP_PYTHON3)
  find_program(ETP_PYTHON3 NAMES python3)
endif()
if(ETP_FUZZ OR NOT ETP_PYTHON3)
  message(STATUS "libetprof.so not built (ETP_FUZZ, or no python3 to generate its export map)")
  return()
endif()

set(ETP_SOVERSION 0)
file(GLOB ETP_PUBLIC_HEADERS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/etprof/*.h)
set(ETP_EXPORTED_HEADERS ${ETP_PUBLIC_HEADERS})
list(FILTER ETP_EXPORTED_HEADERS EXCLUDE REGEX "/gen\\.h$")
set(ETP_EXPORT_MAP ${CMAKE_CURRENT_BINARY_DIR}/generated/libetprof.map)
add_custom_command(
  OUTPUT ${ETP_EXPORT_MAP}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/generated
  COMMAND ${ETP_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/export_map.py ${ETP_EXPORT_MAP}
          ${ETP_EXPORTED_HEADERS}
  DEPENDS ${ETP_EXPORTED_HEADERS} ${CMAKE_CURRENT_SOURCE_DIR}/cmake/export_map.py
  COMMENT "Listing libetprof.so's exports from the public headers"
  VERBATIM)
add_custom_target(etprof_export_map DEPENDS ${ETP_EXPORT_MAP})

add_library(etprof_shared SHARED ${ETP_LIB_SOURCES} ${ETP_ASSETS_C})
add_dependencies(etprof_shared etprof_export_map)
set_target_properties(etprof_shared PROPERTIES
  OUTPUT_NAME etprof
  VERSION ${PROJECT_VERSION}
  SOVERSION ${ETP_SOVERSION}
  LINK_DEPENDS ${ETP_EXPORT_MAP})
target_include_directories(etprof_shared PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}> PRIVATE src)
target_link_libraries(etprof_shared PRIVATE PkgConfig::JANSSON PkgConfig::LIBZIP OpenSSL::Crypto
                      PkgConfig::SQLITE3 PkgConfig::LIBPQ Threads::Threads m)
target_compile_definitions(etprof_shared PRIVATE ETP_VERSION="${PROJECT_VERSION}")
target_link_options(etprof_shared PRIVATE "LINKER:--version-script=${ETP_EXPORT_MAP}")

# etprof.pc names its prefix relative to itself, so it stays right when the
# prefix is chosen at install time (cmake --install --prefix DIR).
file(RELATIVE_PATH ETP_PC_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" ETP_PC_PREFIX "${ETP_PC_PREFIX}")
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/etprof.pc.in
               ${CMAKE_CURRENT_BINARY_DIR}/generated/etprof.pc @ONLY)
install(TARGETS etprof_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${ETP_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/etprof)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/generated/etprof.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
