# tests/device_tests.cmake: the OpenCL device tests, include()d at the end of
# tests/CMakeLists.txt. Each runs on every device present but the Oclgrind
# simulator (POCL in CI), and again on the simulator alone (below), and
# needs at least one: no device is a failure, not a skip. ctest -L device
# runs them all but test_device_modes and the half types' float modes,
# which the portable stage runs (below).
#
# POCL compiles each kernel for each work-group size on first use (about
# 0.5 s each, cold); its cache lives in the build tree so that later runs,
# and the tests of one run, share it.
#
# The suites leave the Oclgrind simulator out (SAMEBITS_TEST_NO_SIMULATOR)
# and run again on it alone as <suite>_on_oclgrind (label simulator, end
# of this file): the README's test command leaves that label out for
# time, CI runs it as a stage of its own.
set(SB_DEVICE_ENV
  "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR};SAMEBITS_TEST_NO_SIMULATOR=1")

# sb_add_device_executable(<name>): tests/<name>.c linked with OpenCL and
# tests/device_support.c; sb_add_device_test(<name> <timeout> [labels...])
# also registers it with ctest.
function(sb_add_device_executable name)
  sb_add_test_executable(${name})
  target_sources(${name} PRIVATE device_support.c)
  target_link_libraries(${name} PRIVATE OpenCL::OpenCL)
endfunction()

function(sb_add_device_test name timeout)
  sb_add_device_executable(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout})
  set(labels device ${ARGN})
  set_tests_properties(${name} PROPERTIES
    LABELS "${labels}"
    ENVIRONMENT "${SB_DEVICE_ENV}")
endfunction()

# test_device_reduce runs in two halves side by side (SAMEBITS_TEST_PART):
# sums and products, then everything else. COST makes ctest -j start the
# longest tests first. The whole label costs about 420 CPU-seconds from a
# cold POCL cache (170 warm); the timeouts leave room for a busy machine.
sb_add_device_test(test_device_reduce 900)
set_tests_properties(test_device_reduce PROPERTIES COST 300
  ENVIRONMENT "${SB_DEVICE_ENV};SAMEBITS_TEST_PART=1")
add_test(NAME test_device_reduce_part2 COMMAND test_device_reduce)
set_tests_properties(test_device_reduce_part2 PROPERTIES COST 290
  TIMEOUT 900 LABELS device
  ENVIRONMENT "${SB_DEVICE_ENV};SAMEBITS_TEST_PART=2")
sb_add_device_test(test_device_shapes 900)
set_tests_properties(test_device_shapes PROPERTIES COST 200)
sb_add_device_test(test_device_enqueue 900)
sb_add_device_test(test_device_select 300)
# test_device_modes forces every float mode, the work of the portable
# stage (portable_tests.cmake), which runs it. That moved its 2.5 minutes
# of a core out of the README's command, not out of CI: in the portable
# stage it still builds most of its programs (the stage took 143 s
# longer, 2026-12-05).
sb_add_device_executable(test_device_modes)

# Oclgrind with data-race, uninitialised-value and API checks: any
# diagnostic it writes to its log fails the test (the program empties the
# log first and reads it at the end).
sb_add_device_test(test_oclgrind_races 900 oclgrind simulator)
set_tests_properties(test_oclgrind_races PROPERTIES ENVIRONMENT
  "${SB_DEVICE_ENV};SAMEBITS_DEVICE=oclgrind;OCLGRIND_DATA_RACES=1;OCLGRIND_UNINITIALIZED=1;OCLGRIND_CHECK_API=1;OCLGRIND_LOG=${CMAKE_CURRENT_BINARY_DIR}/oclgrind-races.log")

# sb_partial_add(): pieces of one array on every device present, merged
# with host pieces.
sb_add_device_test(test_device_partial 900)

# Maps, SB_SKIP_NAN and dot products (sb_dot, sb_dot_enqueue,
# sb_partial_add_dot) on every device present, against the host path.
sb_add_device_test(test_device_maps 600)

# Batched and segmented reductions (sb_reduce_batched,
# sb_reduce_batched_enqueue, sb_reduce_segments) on every device present,
# against sb_reduce_host and the oracle; small sizes on Oclgrind.
sb_add_device_test(test_device_batched 600)

# SB_COUNT on every device present: every input type, SB_SKIP_NAN, masks,
# sb_reduce_enqueue()'s record, the float modes and sb_partial_add(),
# against sb_reduce_host() and the oracle; small sizes on Oclgrind.
sb_add_device_test(test_device_count 900)

# SB_ARGMIN / SB_ARGMAX on every device present (kernels whose nodes carry
# positions): types, maps, SB_SKIP_NAN, masks, NaN-led leaves, launch
# shapes, float modes, batches, segments, partials and the enqueue forms'
# records, against sb_reduce_host() and the oracle.
sb_add_device_test(test_device_arg 900)

# f16 and bf16 on every device present (read as 16-bit integers, computed
# in binary32: no cl_khr_fp16), against the host path and the oracle: every
# op, maps, SB_SKIP_NAN, dot products, partials and the float modes. About
# 40 programs: most of its time on a cold POCL cache is building them.
# Its float modes, which build the other modes' programs, run in the
# portable stage (test_device_half_float_modes, portable_tests.cmake):
# 49 of its 171 s alone from a cold POCL cache on a 2-vCPU Zen 5 VM.
sb_add_device_test(test_device_half 900)
set_tests_properties(test_device_half PROPERTIES COST 150
  ENVIRONMENT "${SB_DEVICE_ENV};SAMEBITS_TEST_PART=1")

# The two biggest device matrices run their data families in turn by
# default (tests/device_support.h: every reduction, size and mask, one or
# two families each). Dense, every family at every size and mask, 4-9x the
# cases, POCL only: -DSAMEBITS_SWEEP_TESTS=ON and ctest -L sweep.
if(SAMEBITS_SWEEP_TESTS)
  foreach(suite test_device_reduce test_device_modes)
    add_test(NAME ${suite}_dense COMMAND ${suite})
    set_tests_properties(${suite}_dense PROPERTIES TIMEOUT 3600
      LABELS sweep
      ENVIRONMENT "${SB_DEVICE_ENV};SAMEBITS_DEVICE=pocl;SAMEBITS_TEST_SPARSE=0")
  endforeach()
endif()

# The prefetch distance reaches POCL's kernels as an argument, never as a
# build option: another distance builds no program again. POCL only (the
# one device whose kernels prefetch), which is why it fails without POCL.
# Linked to the static library to count the library's OpenCL calls
# (src/cl_api.h).
sb_add_test(test_device_prefetch 300 STATIC)
target_include_directories(test_device_prefetch PRIVATE
  ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(test_device_prefetch PRIVATE OpenCL::OpenCL)
set_tests_properties(test_device_prefetch PROPERTIES LABELS device
  ENVIRONMENT "${SB_DEVICE_ENV}")

# The device suites on the Oclgrind simulator alone (label simulator; ctest
# -L simulator also runs the corpus and race checks on it): small cases,
# about 7 minutes of CPU warm (440 s on a 2-vCPU Zen 5 VM), which the
# README's test command leaves out.
# A sanitizer build runs only the sums there: the library's side of a
# simulator run is POCL's but for the launch plans of an OpenCL 1.2 device
# without sub-groups, which they meet, and under ASan the simulator took
# six times POCL's time (test_device_reduce's first half: 104 s against
# 17). The products, half of that run, launch the same way (113 -> 57 s,
# 2-vCPU Zen 5 VM).
set(SB_SIMULATOR_SUITES test_device_reduce test_device_shapes
    test_device_enqueue test_device_partial test_device_maps
    test_device_batched test_device_count test_device_arg test_device_half)
set(SB_SIMULATOR_PART "")
if(SAMEBITS_SANITIZE)
  set(SB_SIMULATOR_SUITES test_device_reduce)
  set(SB_SIMULATOR_PART ";SAMEBITS_TEST_PART=1;SAMEBITS_TEST_FILTER=*sums*")
endif()
set(SB_SIMULATOR_ENV "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR}")
foreach(suite ${SB_SIMULATOR_SUITES})
  add_test(NAME ${suite}_on_oclgrind COMMAND ${suite})
  set_tests_properties(${suite}_on_oclgrind PROPERTIES TIMEOUT 900
    LABELS "device;simulator" ENVIRONMENT
    "${SB_SIMULATOR_ENV};SAMEBITS_DEVICE=oclgrind${SB_SIMULATOR_PART}")
endforeach()
if(NOT SAMEBITS_SANITIZE)
  # Pieces of one reduction on several devices: with every device present
  # (POCL, Oclgrind and the host in one result), the simulator among them.
  set_tests_properties(test_device_partial_on_oclgrind PROPERTIES
    ENVIRONMENT "${SB_SIMULATOR_ENV}")
  # test_device_half's float modes skip the simulator: its first part.
  set_tests_properties(test_device_half_on_oclgrind PROPERTIES ENVIRONMENT
    "${SB_SIMULATOR_ENV};SAMEBITS_DEVICE=oclgrind;SAMEBITS_TEST_PART=1")
endif()
