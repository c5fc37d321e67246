# tests/docs_tests.cmake: what the documentation promises a reader, tested
# (include()d from tests/CMakeLists.txt):
#   header_in_c_and_cpp  samebits.h with gcc, clang, g++ and clang++ under
#                        -Wall -Wextra -Werror, OpenCL 1.2 and 3.0, the
#                        OpenCL headers (C) or bindings (C++) included
#                        before and after it
#   readme_snippets      every ```c block of README.md built with -Werror
#                        and ASan + UBSan, and run
# Not in a sanitizer build: these programs are built as a user builds
# them (the snippets instrumented on their own), against the plain library.
if(SAMEBITS_SANITIZE)
  return()
endif()
set(SB_CONFIG_INCLUDE ${PROJECT_BINARY_DIR}/include)
add_test(NAME header_in_c_and_cpp
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/header/check_header.sh
          ${PROJECT_SOURCE_DIR}/include ${SB_CONFIG_INCLUDE}
          $<TARGET_FILE_DIR:samebits> ${CMAKE_CURRENT_BINARY_DIR}/header-check)
set_tests_properties(header_in_c_and_cpp PROPERTIES TIMEOUT 600)
add_test(NAME readme_snippets
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/readme/check_snippets.sh
          ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/include
          ${SB_CONFIG_INCLUDE} $<TARGET_FILE_DIR:samebits>
          ${CMAKE_CURRENT_BINARY_DIR}/readme-snippets)
set_tests_properties(readme_snippets PROPERTIES TIMEOUT 600
  ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")

# docs/examples: built and run. several_devices splits one array over every
# device present and the host; mpi_sum over 3 MPI ranks (where samebits_mpi
# is built; the same Open MPI settings as tests/mpi_tests.cmake).
add_subdirectory(${PROJECT_SOURCE_DIR}/docs/examples
                 ${PROJECT_BINARY_DIR}/docs/examples)
add_test(NAME example_several_devices COMMAND several_devices)
set_tests_properties(example_several_devices PROPERTIES TIMEOUT 600
  ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")
if(SAMEBITS_HAVE_MPI)
  add_test(NAME example_mpi_sum
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3
            ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_sum> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(example_mpi_sum PROPERTIES TIMEOUT 300 LABELS mpi
    ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_btl_vader_single_copy_mechanism=none;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_plm_rsh_agent=false")
endif()
