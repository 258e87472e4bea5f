# The CMake package: `cmake --install <build> --prefix <prefix>` writes
# <prefix>/lib/cmake/crest/{CrestConfig,CrestConfigVersion,CrestTargets}.cmake
# next to the libraries, headers and tools the folders install into the
# CrestTargets export set. A consumer calls find_package(Crest) and links
# Crest::<name> (docs/Embedding.md; test/Embedding builds one).

include(CMakePackageConfigHelpers)

set(CREST_INSTALL_PACKAGE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/crest")
set(CREST_LLVM_VERSION "${LLVM_VERSION_MAJOR}.${LLVM_VERSION_MINOR}")

install(EXPORT CrestTargets
  NAMESPACE Crest::
  DESTINATION ${CREST_INSTALL_PACKAGE_DIR}
)

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/CrestConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/CrestConfig.cmake
  INSTALL_DESTINATION ${CREST_INSTALL_PACKAGE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR
)
# 0.x: a new minor version may change the API.
write_basic_package_version_file(
  ${CMAKE_CURRENT_BINARY_DIR}/CrestConfigVersion.cmake
  VERSION ${PROJECT_VERSION}
  COMPATIBILITY SameMinorVersion
)
install(FILES
  ${CMAKE_CURRENT_BINARY_DIR}/CrestConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/CrestConfigVersion.cmake
  DESTINATION ${CREST_INSTALL_PACKAGE_DIR}
)
