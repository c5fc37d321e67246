# tests/reliability_tests.cmake: bad input, OpenCL fault injection, many
# threads on one context, and valgrind runs; include()d at the end of
# tests/CMakeLists.txt. `ctest -L reliability` runs the first three (also in
# the ASan+UBSan and TSan builds of tools/reliability.sh). The
# valgrind runs are too slow for the default set: they belong to the ctest
# configuration "valgrind" only, so a plain `ctest` skips them and
# `ctest -C valgrind -L valgrind` runs them.
#
# Every test here needs POCL (test_bad_input runs on Oclgrind too, with
# small inputs). POCL's kernel cache is SAMEBITS_POCL_CACHE_DIR, shared
# with the device tests (and, in tools/reliability.sh, with the sanitizer
# builds: with a warm cache POCL compiles nothing, and its compiler's leaks
# stay out of the leak check; see sanitizers/lsan.supp).
set(SB_RELIABILITY_ENV "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")
set(SB_SANITIZER_DIR ${CMAKE_CURRENT_SOURCE_DIR}/sanitizers)

# A test of sb_add_test() that also uses tests/device_support.c.
function(sb_add_reliability_test name timeout)
  sb_add_test(${name} ${timeout})
  target_sources(${name} PRIVATE device_support.c)
  target_link_libraries(${name} PRIVATE OpenCL::OpenCL)
  set_tests_properties(${name} PROPERTIES
    LABELS "reliability"
    ENVIRONMENT "${SB_RELIABILITY_ENV}")
endfunction()

sb_add_reliability_test(test_bad_input 300)
sb_add_reliability_test(test_threads 600)

# Fault injection replaces entries of the library's internal tables sb__cl
# and sb__mem (src/cl_api.h): hidden symbols, reachable only by linking the
# static library. So this test is built on its own, without
# sb_test_support (which links the shared library), and compiles the
# support files itself.
add_executable(test_cl_faults test_cl_faults.c cl_fault_harness.c support.c
  oracle.c)
target_include_directories(test_cl_faults PRIVATE
  ${CMAKE_CURRENT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_cl_faults PRIVATE samebits::samebits_static
  OpenCL::OpenCL PkgConfig::CMOCKA Threads::Threads m)
target_compile_options(test_cl_faults PRIVATE
  ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
set_target_properties(test_cl_faults PROPERTIES C_STANDARD 11
  C_STANDARD_REQUIRED ON)
add_test(NAME test_cl_faults COMMAND test_cl_faults)
set_tests_properties(test_cl_faults PROPERTIES TIMEOUT 600
  LABELS "reliability" ENVIRONMENT "${SB_RELIABILITY_ENV}")

# valgrind memcheck (ctest -C valgrind -L valgrind), each run under ~2
# minutes: test_oracle_examples (host path, ~3 s) and test_bad_input on
# Oclgrind only (~75 s). Not POCL: under valgrind POCL sees another CPU
# (haswell instead of the host's), finds none of its cached kernels and
# compiles them with LLVM under valgrind (15 minutes and more); the device
# path of samebits is the same code whichever device runs the kernels, and
# POCL's side is covered by the ASan build. Not the host tests with large
# inputs (test_host_reduce takes more than 5 minutes). Any memcheck error,
# or a definite or indirect leak, fails the run; "possibly lost" blocks
# (the stacks of POCL's and Oclgrind's threads, alive at exit) do not.
find_program(SB_VALGRIND valgrind)
if(SB_VALGRIND)
  set(SB_VALGRIND_COMMAND ${SB_VALGRIND} --error-exitcode=1
    --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect
    --suppressions=${SB_SANITIZER_DIR}/valgrind.supp)
  add_test(NAME valgrind_test_oracle_examples CONFIGURATIONS valgrind
    COMMAND ${SB_VALGRIND_COMMAND} $<TARGET_FILE:test_oracle_examples>)
  set_tests_properties(valgrind_test_oracle_examples PROPERTIES TIMEOUT 300
    LABELS "valgrind")
  # test_bad_input in two halves of its rows (SAMEBITS_TEST_PART), which
  # ctest -j2 runs side by side: valgrind runs one thread at a time, and
  # whole it kept one core busy for 130 s while the other idled (CI,
  # 2-vCPU Zen 5 VM, 2026-12-06).
  foreach(part 1 2)
    add_test(NAME valgrind_test_bad_input_part${part} CONFIGURATIONS valgrind
      COMMAND ${SB_VALGRIND_COMMAND} $<TARGET_FILE:test_bad_input>)
    set_tests_properties(valgrind_test_bad_input_part${part} PROPERTIES
      TIMEOUT 300 LABELS "valgrind" COST 100
      ENVIRONMENT "${SB_RELIABILITY_ENV};SAMEBITS_DEVICE=oclgrind;SAMEBITS_TEST_PART=${part}")
  endforeach()
endif()
