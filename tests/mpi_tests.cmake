# tests/mpi_tests.cmake: samebits_mpi under mpirun with 1, 2, 3, 5 and 8
# ranks (oversubscribed on a small machine), include()d from
# tests/CMakeLists.txt where samebits_mpi is built.
#
# Plain builds only, not the sanitizer or valgrind stages: Open MPI's own
# allocations and its shared-memory transport are reported there (leaks
# of its init, reads of memory it maps between processes), and
# suppressing all of Open MPI would hide nothing of ours that the plain
# tests do not already check. The MPI code itself is small and uses only
# the public API, which the sanitizer stages cover.
#
# As root (CI), Open MPI needs OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM); in
# containers its single-copy mechanism (CMA) is often refused, so it is
# off; oversubscribing lets 8 ranks share 2 cores; and a machine without
# ssh or rsh would stop mpirun even for local ranks, so its remote agent
# is `false`, never used here.
if(NOT SAMEBITS_HAVE_MPI OR SAMEBITS_SANITIZE)
  return()
endif()
add_executable(test_mpi mpi/test_mpi.c)
target_link_libraries(test_mpi PRIVATE samebits::samebits_mpi sb_test_support
                      OpenCL::OpenCL)
target_compile_options(test_mpi PRIVATE ${SB_TEST_WARNINGS})
target_compile_definitions(test_mpi PRIVATE CL_TARGET_OPENCL_VERSION=120)
set(SB_MPI_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1"
  "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_btl_vader_single_copy_mechanism=none"
  "OMPI_MCA_rmaps_base_oversubscribe=1"
  "OMPI_MCA_plm_rsh_agent=false"
  "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")
foreach(np 1 2 3 5 8)
  add_test(NAME test_mpi_${np}_ranks
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
            ${MPIEXEC_PREFLAGS} $<TARGET_FILE:test_mpi> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(test_mpi_${np}_ranks PROPERTIES TIMEOUT 600
    LABELS mpi ENVIRONMENT "${SB_MPI_ENV}")
endforeach()
