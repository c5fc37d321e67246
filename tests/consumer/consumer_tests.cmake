# tests/consumer/consumer_tests.cmake: samebits as others use it, each test
# outside this build's own targets (include()d from the top CMakeLists.txt):
#   install_consumer   `cmake --install` into a staging prefix; a program
#                      built with find_package (shared, static) and with
#                      pkg-config runs; the installed command starts
set(SB_CONSUMER_DIR ${CMAKE_CURRENT_SOURCE_DIR}/tests/consumer)
add_test(NAME install_consumer
  COMMAND bash ${SB_CONSUMER_DIR}/run.sh ${CMAKE_BINARY_DIR}
          ${CMAKE_BINARY_DIR}/consumer-test)
set_tests_properties(install_consumer PROPERTIES TIMEOUT 300)
#   samebits_as_subproject  add_subdirectory() from a parent: the library
#                      alone, the parent's cache untouched, no cmocka or
#                      MPFR needed; the command without MPFR
#   host_only_flavour  -DSAMEBITS_OPENCL=OFF with no OpenCL anywhere
add_test(NAME samebits_as_subproject
  COMMAND bash ${SB_CONSUMER_DIR}/subproject.sh ${CMAKE_CURRENT_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/subproject-test)
add_test(NAME host_only_flavour
  COMMAND bash ${SB_CONSUMER_DIR}/host_only.sh ${CMAKE_CURRENT_SOURCE_DIR}
          ${CMAKE_BINARY_DIR}/host-only-test)
set_tests_properties(samebits_as_subproject host_only_flavour PROPERTIES TIMEOUT 900)
# Label packaging: the README's test command leaves them out (each builds
# samebits again: 290 of its 1960 test-seconds in CI, 2026-12-05) and CI
# runs them as a stage of their own (.ci/run), as does ctest -L packaging.
set_tests_properties(install_consumer samebits_as_subproject host_only_flavour
  PROPERTIES LABELS packaging)
