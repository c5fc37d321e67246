# tests/portable_tests.cmake: the devices that cannot compute every float
# type natively, and the guarded and software modes forced on the ones
# that can (include()d from tests/CMakeLists.txt when configured with
# -DSAMEBITS_PORTABLE_TESTS=ON; .ci/run does, then runs ctest -L portable).
# Behind an option, not in the README's test command: these rebuild every
# float kernel in other modes (29 min on a 2-vCPU Zen 3 VM from cold
# POCL and Mesa caches until llvmpipe took the one-leaf folds,
# src/device_programs.c: chain_folds_ok; rusticl's share went from about
# 23 min to 4).
#
#   check_rusticl_quick_*    the --quick corpus on Mesa's rusticl (llvmpipe:
#                            f32 subnormals not reported, no fp64: f32
#                            guarded, f64 in software) for a choice of
#                            reductions that takes every float path once
#   check_rusticl_*          the whole corpus on rusticl, in six parts
#                            (8/16-bit and 32/64-bit integers, f32, f64,
#                            f16, bf16): label rusticl_full, not portable
#   check_pocl_flushing      the float and half cases on POCL as a device that really
#                            flushes subnormals (-cl-denorms-are-zero), guarded
#   check_pocl_software      the f64 cases with f64 forced into software
#   check_oclgrind_*_quick   the same two modes forced on Oclgrind (--quick)
#   <suite>_on_rusticl       the device tests on rusticl
#   <suite>_on_flushing_pocl the device tests on the flushing POCL device
#   test_oclgrind_races_<mode>  Oclgrind's race and uninitialised-memory
#                            checks over the guarded and software kernels
#   test_device_modes, test_device_half_float_modes  every float mode
#                            forced on POCL (and Oclgrind for the first)
# Integer cases are left out of the mode runs: their kernels have no float
# and are the same code in every mode.
# The device tests run sparse here as everywhere (tests/device_support.h:
# every reduction, size and mask, the data families in rotation); rusticl,
# whose launches cost ~30x POCL's, says so even if the caller's
# environment asks for dense.
set(SB_RUSTICL_ENV
  "RUSTICL_ENABLE=llvmpipe;SAMEBITS_DEVICE=rusticl;SAMEBITS_TEST_SPARSE=1")
set(SB_FLUSHING_ENV "SAMEBITS_DEVICE=pocl;SAMEBITS_TEST_FLUSH_SUBNORMALS=1")
set(SB_FLOAT_CASES "*.f32.*,*.f64.*,*.f16.*,*.bf16.*")

function(sb_portable_test name timeout env)
  set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS portable
    ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR};${env}")
endfunction()

# The whole corpus on rusticl in parts by input type (its f32 runs
# guarded and its f64 in software; the halves' binary32 steps guarded):
# ctest -L rusticl_full (not "portable_full": ctest -L takes a regular
# expression, and -L portable would match it). With the four- and
# eight-leaf folds llvmpipe spent 25-45 s of LLVM on each program (perf:
# 98% of the time in libLLVM), which made these six about an hour of CPU
# on a 2-vCPU Zen 3 VM; with its one-leaf fold they take 4.5 min (of
# which 3.3 for the 8- and 16-bit integers, with the most programs), and
# CI keeps the quick corpus below.
function(sb_check_rusticl part)
  set(globs "")
  foreach(type ${ARGN})
    foreach(op sum prod min max any all dot argmin argmax count)
      list(APPEND globs "${op}.${type}.*")
    endforeach()
  endforeach()
  string(REPLACE ";" "," globs "${globs}")
  add_test(NAME check_rusticl_${part}
           COMMAND ${SB_CLI} check --device rusticl --filter ${globs})
  set_tests_properties(check_rusticl_${part} PROPERTIES TIMEOUT 2400
    LABELS rusticl_full
    ENVIRONMENT "POCL_CACHE_DIR=${SAMEBITS_POCL_CACHE_DIR};RUSTICL_ENABLE=llvmpipe")
endfunction()
# The corpus runs through the command: without it (SAMEBITS_BUILD_TOOLS
# OFF) only the device suites below are registered.
if(TARGET samebits_cli)
  sb_check_rusticl(integers_8_16 i8 u8 i16 u16)
  sb_check_rusticl(integers_32_64 i32 u32 i64 u64)
  sb_check_rusticl(f32 f32)
  sb_check_rusticl(f64 f64)
  sb_check_rusticl(f16 f16)
  sb_check_rusticl(bf16 bf16)
endif()
# What CI runs on rusticl (label portable): the --quick corpus (every
# family, sizes up to 4097, two launch shapes) of
# reductions chosen so that each float path of the device runs once --
# guarded f32 sums, min/max, |x| and NaN skipping; software f64 sums,
# products, min, dot, argmax and count; halves with binary32 and half
# accumulators; 64-bit and widened integers -- in two parts side by side.
# (Each "op.input.accumulator" prefix is one program, with its map and
# NaN-skipping variants.) The device suites *_on_rusticl below add every
# op and type at their own sizes.
function(sb_check_rusticl_quick part)
  set(globs "")
  foreach(prefix ${ARGN})
    list(APPEND globs "${prefix}.*")
  endforeach()
  string(REPLACE ";" "," globs "${globs}")
  add_test(NAME check_rusticl_quick_${part}
           COMMAND ${SB_CLI} check --device rusticl --quick --filter ${globs})
  sb_portable_test(check_rusticl_quick_${part} 1200 "RUSTICL_ENABLE=llvmpipe")
endfunction()
if(TARGET samebits_cli)
  sb_check_rusticl_quick(f32_f64 sum.f32.f32 max.f32.f32 argmin.f32.f32
    dot.f32.f64 sum.f64.f64 prod.f64.f64 min.f64.f64 argmax.f64.f64
    count.f64.f64)
  sb_check_rusticl_quick(halves_integers sum.f16.f32 sum.f16.f16 min.bf16.f32
    sum.bf16.bf16 dot.bf16.f32 sum.i64.i64 sum.u8.u32 min.i16.f64)
  add_test(NAME check_pocl_flushing
           COMMAND ${SB_CLI} check --device pocl --flush-subnormals
                   --filter ${SB_FLOAT_CASES})
  sb_portable_test(check_pocl_flushing 1200 "")
  add_test(NAME check_pocl_software
           COMMAND ${SB_CLI} check --device pocl --float-mode software
                   --filter "*.f64.*")
  sb_portable_test(check_pocl_software 1200 "")
  foreach(mode guarded software)
    add_test(NAME check_oclgrind_${mode}_quick
             COMMAND ${SB_CLI} check --device oclgrind --quick --float-mode ${mode}
                     --filter ${SB_FLOAT_CASES})
    sb_portable_test(check_oclgrind_${mode}_quick 1200 "")
  endforeach()
  set_tests_properties(check_pocl_flushing PROPERTIES COST 125)
endif()
# Every float mode on the default devices (POCL, Oclgrind): built in
# device_tests.cmake, run only here.
add_test(NAME test_device_modes COMMAND test_device_modes)
sb_portable_test(test_device_modes 1200 "")
set_tests_properties(test_device_modes PROPERTIES COST 150)
# The same for the half types (the other half of test_device_half).
add_test(NAME test_device_half_float_modes COMMAND test_device_half)
sb_portable_test(test_device_half_float_modes 1200 "SAMEBITS_TEST_PART=2")

foreach(suite test_device_reduce test_device_shapes test_device_enqueue
              test_device_modes test_device_maps test_device_half
              test_device_count test_device_arg test_device_batched)
  add_test(NAME ${suite}_on_rusticl COMMAND ${suite})
  sb_portable_test(${suite}_on_rusticl 1200 "${SB_RUSTICL_ENV}")
  add_test(NAME ${suite}_on_flushing_pocl COMMAND ${suite})
  sb_portable_test(${suite}_on_flushing_pocl 1200 "${SB_FLUSHING_ENV}")
endforeach()
# test_device_reduce on rusticl in its two halves (SAMEBITS_TEST_PART, as
# in the default stage), so that they run side by side: 73 and 86 s from
# a cold Mesa cache on a 2-vCPU Zen 3 VM.
sb_portable_test(test_device_reduce_on_rusticl 1200
  "${SB_RUSTICL_ENV};SAMEBITS_TEST_PART=1")
add_test(NAME test_device_reduce_on_rusticl_part2 COMMAND test_device_reduce)
sb_portable_test(test_device_reduce_on_rusticl_part2 1200
  "${SB_RUSTICL_ENV};SAMEBITS_TEST_PART=2")

# The longest tests of the stage (seconds from cold caches on a 2-vCPU
# Zen 3 VM): COST makes ctest -j start them first, so that the short
# tests fill the other core instead of the long ones running alone at the
# end.
set_tests_properties(test_device_reduce_on_flushing_pocl PROPERTIES COST 240)
set_tests_properties(test_device_reduce_on_rusticl_part2 PROPERTIES COST 90)

foreach(mode guarded software)
  add_test(NAME test_oclgrind_races_${mode} COMMAND test_oclgrind_races)
  sb_portable_test(test_oclgrind_races_${mode} 1200
    "SAMEBITS_DEVICE=oclgrind;SAMEBITS_TEST_FLOAT_MODE=${mode};OCLGRIND_DATA_RACES=1;OCLGRIND_UNINITIALIZED=1;OCLGRIND_CHECK_API=1;OCLGRIND_LOG=${CMAKE_CURRENT_BINARY_DIR}/oclgrind-races-${mode}.log")
endforeach()
