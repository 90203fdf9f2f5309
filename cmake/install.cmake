# What `cmake --install build --prefix P` puts under P, and the .deb CPack makes of the same
# (docs/install.md): the two programs and the CUDA module, the Python module (app/python), the plugin header with a CMake
# package and a pkg-config file for plugin authors, the example plugins with a standalone
# build, the documents, and a desktop entry with its icon for tilelens-gui.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/include/tilelens/plugin.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tilelens)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/install/tilelensConfig.cmake.in ${PROJECT_BINARY_DIR}/tilelensConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilelens PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tilelensConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tilelensConfig.cmake ${PROJECT_BINARY_DIR}/tilelensConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tilelens)
# Relocatable: the prefix is found from the .pc file's own place (--prefix at install time, or a .deb).
file(RELATIVE_PATH TILELENS_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" TILELENS_PC_TO_PREFIX "${TILELENS_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/install/tilelens-plugin.pc.in ${PROJECT_BINARY_DIR}/tilelens-plugin.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tilelens-plugin.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(TILELENS_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/tilelens)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${TILELENS_DOC_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${TILELENS_DOC_DIR})
install(FILES ${PROJECT_SOURCE_DIR}/examples/plugins/eager.c ${PROJECT_SOURCE_DIR}/examples/plugins/lru.c
        DESTINATION ${TILELENS_DOC_DIR}/examples/plugins)
install(FILES ${PROJECT_SOURCE_DIR}/examples/python/policies.py ${PROJECT_SOURCE_DIR}/examples/python/compare.py
              ${PROJECT_SOURCE_DIR}/examples/python/speed.py DESTINATION ${TILELENS_DOC_DIR}/examples/python)
install(FILES ${PROJECT_SOURCE_DIR}/examples/plugins/standalone.cmake DESTINATION ${TILELENS_DOC_DIR}/examples/plugins RENAME CMakeLists.txt)

if(TARGET tilelens-gui)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/tilelens-gui.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${PROJECT_SOURCE_DIR}/resources/tilelens.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tilelens)
set(CPACK_PACKAGE_CONTACT "tilelens developers <tilelens@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Replay and measure how task schedulers use a GPU's limited memory")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # the shared libraries the programs link (Qt, SQLite, METIS), found by dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-pandas, python3-matplotlib")  # the Python module and its example
include(CPack)
