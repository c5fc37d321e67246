# tests/huge_and_fuzz.cmake: the huge-input test and the fuzz targets,
# include()d from tests/CMakeLists.txt (after sb_add_test is defined).
#
#   test_huge           n > 2^32 on the host, the largest buffer on the
#                       device; ctest -L huge (about 4.1 GiB of memory).
#   fuzz_host_replay    every file of tests/fuzz/corpus_host through the
#                       host fuzz target, built with any compiler: the
#                       corpus (and every crash ever found, added to it) is
#                       replayed on each ctest run.
#   fuzz_device_replay  the same for tests/fuzz/corpus_device on the default
#                       OpenCL device (label device).
#   fuzz_host, fuzz_device
#                       the libFuzzer targets, with -DSAMEBITS_FUZZ=ON and
#                       clang; tools/fuzz.sh configures, builds and runs them.
set(SB_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
# POCL's kernel cache in the build tree, as device_tests.cmake does.
set(SB_HUGE_FUZZ_ENV "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")

# ---- huge inputs -------------------------------------------------------------
sb_add_test(test_huge 900)
target_link_libraries(test_huge PRIVATE OpenCL::OpenCL)
# Alone: it needs 4 GiB and both cores.
set_tests_properties(test_huge PROPERTIES LABELS huge RUN_SERIAL TRUE
  ENVIRONMENT "${SB_HUGE_FUZZ_ENV}")

# ---- corpus replay (every build) ---------------------------------------------
foreach(kind host device)
  add_executable(fuzz_${kind}_replay
    fuzz/fuzz_${kind}.c fuzz/fuzz_case.c fuzz/fuzz_replay.c)
  target_include_directories(fuzz_${kind}_replay PRIVATE ${SB_FUZZ_DIR})
  target_link_libraries(fuzz_${kind}_replay PRIVATE
    sb_test_support samebits::samebits OpenCL::OpenCL m)
  target_compile_options(fuzz_${kind}_replay PRIVATE
    ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
  set_target_properties(fuzz_${kind}_replay PROPERTIES C_STANDARD 11
    C_STANDARD_REQUIRED ON)
  add_test(NAME fuzz_${kind}_replay
    COMMAND fuzz_${kind}_replay ${SB_FUZZ_DIR}/corpus_${kind})
endforeach()
set_tests_properties(fuzz_host_replay PROPERTIES TIMEOUT 300)
set_tests_properties(fuzz_device_replay PROPERTIES TIMEOUT 600
  LABELS device ENVIRONMENT "${SB_HUGE_FUZZ_ENV}")

# ---- libFuzzer targets (SAMEBITS_FUZZ=ON, clang) ------------------------------
option(SAMEBITS_FUZZ
  "Build the libFuzzer targets fuzz_host and fuzz_device (clang, with SAMEBITS_SANITIZE)"
  OFF)
if(SAMEBITS_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "SAMEBITS_FUZZ needs clang (-DCMAKE_C_COMPILER=clang)")
  endif()
  if(NOT SAMEBITS_SANITIZE)
    # The sanitizer runtimes define the coverage hooks that the
    # instrumented library (linked into every test here) calls.
    message(FATAL_ERROR
      "SAMEBITS_FUZZ needs SAMEBITS_SANITIZE, e.g. address,undefined")
  endif()
  # Coverage feedback from the library itself, not only from the harness;
  # but no comparison tracing in the library and the oracle, whose inner
  # loops it would slow down fivefold: the decoder's comparisons are the
  # ones worth tracing.
  set(SB_FUZZ_QUIET -fsanitize=fuzzer-no-link -fno-sanitize-coverage=trace-cmp)
  target_compile_options(samebits_objects PRIVATE ${SB_FUZZ_QUIET})
  set_source_files_properties(oracle.c support.c PROPERTIES
    COMPILE_OPTIONS "-fno-sanitize-coverage=trace-cmp")
  foreach(kind host device)
    # The oracle and support code are compiled in, instrumented too.
    add_executable(fuzz_${kind} fuzz/fuzz_${kind}.c fuzz/fuzz_case.c
      oracle.c support.c)
    target_include_directories(fuzz_${kind} PRIVATE
      ${SB_FUZZ_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
    target_link_libraries(fuzz_${kind} PRIVATE
      samebits::samebits_static OpenCL::OpenCL Threads::Threads m)
    target_compile_options(fuzz_${kind} PRIVATE -fsanitize=fuzzer
      ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
    target_link_options(fuzz_${kind} PRIVATE -fsanitize=fuzzer)
    set_target_properties(fuzz_${kind} PROPERTIES C_STANDARD 11
      C_STANDARD_REQUIRED ON)
  endforeach()
  # FUZZ_PERTURB: a copy of fuzz_host that must fail (tools/fuzz.sh selftest).
  add_executable(fuzz_host_perturbed fuzz/fuzz_host.c fuzz/fuzz_case.c
    oracle.c support.c)
  target_include_directories(fuzz_host_perturbed PRIVATE
    ${SB_FUZZ_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(fuzz_host_perturbed PRIVATE
    samebits::samebits_static OpenCL::OpenCL Threads::Threads m)
  target_compile_definitions(fuzz_host_perturbed PRIVATE FUZZ_PERTURB=1)
  target_compile_options(fuzz_host_perturbed PRIVATE -fsanitize=fuzzer
    ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
  target_link_options(fuzz_host_perturbed PRIVATE -fsanitize=fuzzer)
endif()
