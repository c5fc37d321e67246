# tests/golden/golden_tests.cmake: the golden conformance corpus and the
# tests of the samebits command; include()d from tests/CMakeLists.txt
# (which defines sb_test_support, SB_TEST_WARNINGS and SB_TEST_FP_FLAGS).
#
#   write-golden            target: recomputes corpus.golden with the oracle
#                           (deliberate; review and commit the diff)
#   golden_matches_oracle   every golden line recomputed by the oracle
#   corpus_matches_its_specification  the case list and inputs regenerated
#                           from docs/corpus.md alone (Python) equal what
#                           tools/corpus.c generates
#   check_host              the corpus on the host path
#   check_pocl_<part>       the corpus on POCL, in four parts that run in
#                           parallel (POCL compiles each kernel on first use)
#   check_oclgrind_quick    the --quick subset on the Oclgrind simulator
#   cli_no_platform         info, check and demo with no OpenCL platform
#   cli_reduce              samebits reduce on good and bad files (text,
#                           .npy, .npz, raw; detection), check --dump
#   cli_reduce_axis         samebits reduce --axis 0|1 (C and Fortran order)
#                           and --segments: every answer the bits of
#                           sb_reduce_host() over its gathered elements,
#                           on the host and POCL; bad shapes and offsets
#   cli_bench               samebits bench: the report's shape, bad options
#   cli_settings            SAMEBITS_DEVICE / --device / SAMEBITS_THREADS / SAMEBITS_ISA mean
#                           one thing everywhere; exit statuses documented
#
# The device tests name their device with --device: where it is missing
# they fail with "no OpenCL device matches", never pass silently.

set(SB_GOLDEN_DIR ${CMAKE_CURRENT_LIST_DIR})
set(SB_GOLDEN_FILE ${SB_GOLDEN_DIR}/corpus.golden)

add_executable(write_golden ${SB_GOLDEN_DIR}/write_golden.c
                            ${PROJECT_SOURCE_DIR}/tools/corpus.c)
target_include_directories(write_golden PRIVATE ${PROJECT_SOURCE_DIR}/tools)
target_link_libraries(write_golden PRIVATE sb_test_support samebits::samebits)
target_compile_options(write_golden PRIVATE ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
set_target_properties(write_golden PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)

add_custom_target(write-golden
  COMMAND write_golden write ${SB_GOLDEN_FILE}
  COMMENT "Recomputing tests/golden/corpus.golden with the oracle: review "
          "the diff, and call out every changed line in the commit message"
  VERBATIM)

add_test(NAME golden_matches_oracle
         COMMAND write_golden verify ${SB_GOLDEN_FILE})
set_tests_properties(golden_matches_oracle PROPERTIES TIMEOUT 600)

if(NOT TARGET samebits_cli)
  return()   # configured with -DSAMEBITS_BUILD_TOOLS=OFF
endif()
set(SB_CLI $<TARGET_FILE:samebits_cli>)

find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  add_test(NAME corpus_matches_its_specification
           COMMAND ${Python3_EXECUTABLE} ${SB_GOLDEN_DIR}/corpus_reference.py
                   ${SB_CLI} ${CMAKE_CURRENT_BINARY_DIR}/corpus-reference)
  set_tests_properties(corpus_matches_its_specification PROPERTIES TIMEOUT 600)
else()
  message(WARNING "No python3: the test corpus_matches_its_specification "
                  "(docs/corpus.md against tools/corpus.c) is not run")
endif()

add_test(NAME check_host COMMAND ${SB_CLI} check --device host)
set_tests_properties(check_host PROPERTIES TIMEOUT 600)

# POCL builds one program per (input, accumulator) pair and compiles each
# kernel per work-group size on first use (about 0.5 s each, cached in
# POCL_CACHE_DIR): the corpus needs about 460 of them, about four minutes
# of one core with a cold cache. The parts split the input types so that
# no program is built twice; the first three cost about the same, the
# fourth (the half types, corpus part 5) less.
function(sb_check_pocl part)
  set(globs "")
  foreach(type ${ARGN})
    foreach(op sum prod min max any all dot argmin argmax count)
      list(APPEND globs "${op}.${type}.*")
    endforeach()
  endforeach()
  string(REPLACE ";" "," globs "${globs}")
  add_test(NAME check_pocl_${part}
           COMMAND ${SB_CLI} check --device pocl --filter ${globs})
  set_tests_properties(check_pocl_${part} PROPERTIES TIMEOUT 900
    ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")
endfunction()
sb_check_pocl(i8_u8 i8 u8)
sb_check_pocl(i16_u16 i16 u16)
sb_check_pocl(32_64 i32 u32 i64 u64 f32 f64)
sb_check_pocl(half f16 bf16)

add_test(NAME check_oclgrind_quick
         COMMAND ${SB_CLI} check --device oclgrind --quick)
set_tests_properties(check_oclgrind_quick PROPERTIES TIMEOUT 900
  LABELS simulator)

# No OpenCL platform at all: the ICD loader (ocl-icd) reads its vendor list
# from OCL_ICD_VENDORS, here an empty directory.
set(SB_NO_ICD_DIR ${CMAKE_CURRENT_BINARY_DIR}/no-opencl-vendors)
file(MAKE_DIRECTORY ${SB_NO_ICD_DIR})
add_test(NAME cli_no_platform
         COMMAND bash ${SB_GOLDEN_DIR}/cli_no_platform.sh ${SB_CLI})
set_tests_properties(cli_no_platform PROPERTIES TIMEOUT 600
  ENVIRONMENT "OCL_ICD_VENDORS=${SB_NO_ICD_DIR}")

add_executable(test_cli_reduce ${SB_GOLDEN_DIR}/test_cli_reduce.c)
target_link_libraries(test_cli_reduce PRIVATE samebits::samebits PkgConfig::CMOCKA)
target_compile_options(test_cli_reduce PRIVATE ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
set_target_properties(test_cli_reduce PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
# The test deflates .npz members with zlib, as np.savez_compressed does;
# the command finds zlib the same way (tools/CMakeLists.txt), and without
# it the test checks that a deflated member is refused, saying why.
find_package(ZLIB)
if(ZLIB_FOUND)
  target_link_libraries(test_cli_reduce PRIVATE ZLIB::ZLIB)
  target_compile_definitions(test_cli_reduce PRIVATE SB_TEST_HAVE_ZLIB=1)
endif()
add_test(NAME cli_reduce
         COMMAND test_cli_reduce ${SB_CLI} ${CMAKE_CURRENT_BINARY_DIR}/cli-reduce-files
                 ${SB_GOLDEN_FILE})
set_tests_properties(cli_reduce PROPERTIES TIMEOUT 600)

add_executable(test_cli_axis ${SB_GOLDEN_DIR}/test_cli_axis.c)
target_link_libraries(test_cli_axis PRIVATE samebits::samebits PkgConfig::CMOCKA m)
target_compile_options(test_cli_axis PRIVATE ${SB_TEST_WARNINGS} ${SB_TEST_FP_FLAGS})
set_target_properties(test_cli_axis PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
add_test(NAME cli_reduce_axis
         COMMAND test_cli_axis ${SB_CLI} ${CMAKE_CURRENT_BINARY_DIR}/cli-axis-files)
set_tests_properties(cli_reduce_axis PROPERTIES TIMEOUT 600
  ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")

# One meaning for every setting (SAMEBITS_DEVICE, --device, SAMEBITS_THREADS)
# and the command's contract (exit statuses, the corpus size) as the help
# and the README give them.
add_test(NAME cli_settings
         COMMAND bash ${SB_GOLDEN_DIR}/cli_settings.sh ${SB_CLI}
                 ${PROJECT_SOURCE_DIR}/README.md)
set_tests_properties(cli_settings PROPERTIES TIMEOUT 600
  ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR};TMPDIR=${CMAKE_CURRENT_BINARY_DIR}")

# samebits bench on POCL at the smallest size: the report's shape and its
# bad options (speed is never asserted). Its first-call part builds in an
# empty cache of its own, whatever POCL_CACHE_DIR says.
add_test(NAME cli_bench
         COMMAND bash ${SB_GOLDEN_DIR}/cli_bench.sh ${SB_CLI})
set_tests_properties(cli_bench PROPERTIES TIMEOUT 600
  ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")
