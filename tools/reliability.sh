#!/usr/bin/env bash
# tools/reliability.sh: the long reliability stages, after tools/setup.sh
# has built build/ (CI runs both, see .ci/run):
#   1. the whole test suite in an AddressSanitizer + UBSan build (build-asan),
#      leaks included (LSan; suppressions only for leaks inside POCL);
#   2. the many-threads test in a ThreadSanitizer build (build-tsan);
#   3. valgrind memcheck over the host and bad-input tests;
#   4. each libFuzzer target for SAMEBITS_FUZZ_SECONDS (60) from its corpus;
#      SAMEBITS_FUZZ_SECONDS=0 leaves this stage out (CI does: its clang
#      build and run took 310 of CI's 3145 s, and the corpora and every
#      crash found are replayed by ctest in the plain and ASan builds).
# The huge-input test (4 GiB) runs in the plain build's ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
jobs=$(nproc)
supp=$here/tests/sanitizers
# Every build shares build/'s POCL kernel cache: same kernels, same options.
cache=$here/build/pocl-cache
werror=${SAMEBITS_WERROR:-OFF}

# Each stage's start, with the seconds since this script began, so that
# CI's log shows what each costs.
started=$SECONDS
stage() { echo; echo "=== reliability: $* (at $((SECONDS - started)) s) ==="; }

# What these stages need beyond tools/setup.sh: clang with libFuzzer and
# the sanitizer runtimes, and valgrind.
missing=()
for p in clang libclang-rt-dev valgrind; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}" >/dev/null
fi

# intercept_tls_get_addr=0, in the ASan stage here and in tools/fuzz.sh
# (LSan's stages; TSan has no tracer, and uses the interceptor to forget
# old accesses to a new TLS block): the __tls_get_addr interceptor of GCC <= 13 and LLVM <= 16
# (GCC 12's libasan and clang 14's here) takes a dynamic TLS block that
# malloc happens to place 16 bytes into a page for a glibc-2.19 block with a
# header, and reads a bogus address and size from the 16 bytes before it.
# LSan's stop-the-world tracer then scans that range and dies ("Tracer
# caught signal 11", after every test passed) -- a flake, since it depends
# on where malloc puts the TLS of POCL's, Oclgrind's or LLVM's threads.
# Without the interceptor nothing is lost here: a pointer held only in a
# dynamic TLS block still counts as live (glibc allocated the block, and
# LSan still finds it), and a leak is still reported.
# tests/sanitizers/tls_get_addr_check.sh checks all three with a
# dlopen()ed library, for gcc's runtime and clang's, first.
tls=intercept_tls_get_addr=0

# The OpenCL platforms these stages see: every one installed but Mesa's
# Clover, which cannot run under the sanitizers and has no device here
# (the reasons: tests/sanitizers/icd_vendors.sh). Plain runs see them all.
export OCL_ICD_VENDORS=$(tests/sanitizers/icd_vendors.sh "$here/build/icd-vendors-sanitizers")

stage "ASan + UBSan: the whole test suite"
tests/sanitizers/tls_get_addr_check.sh gcc
tests/sanitizers/tls_get_addr_check.sh clang
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSAMEBITS_SANITIZE=address,undefined -DSAMEBITS_WERROR="$werror" \
      -DSAMEBITS_POCL_CACHE_DIR="$cache" >/dev/null
cmake --build build-asan -j"$jobs"
# Sparse device tests (tests/device_support.h): every reduction, size and
# mask with the data families in rotation -- the sanitizers look at the
# library's memory, which the families do not change. For the same reason
# the device matrices of other shapes, maps and half types are left out
# (and of the float modes, which only the portable stage registers): on
# the host they run the code test_device_reduce, _enqueue, _partial,
# _batched and _count run (the build and launch of a program;
# what differs is the kernels, which no host sanitizer sees). Also left
# out, for the same reason: Oclgrind's corpus and race checks (they look
# at kernels through the simulator; the library's side of an Oclgrind run
# is test_device_reduce_on_oclgrind's, below), and the corpus's specification
# test (Python against the command's corpus, which check_host and
# check_pocl_* generate here too). They were 390 of the stage's 1840
# test-seconds (two tests at a time) on a 2-vCPU Zen 5 VM.
# The simulator itself runs in one test (test_device_reduce_on_oclgrind,
# the sums alone, SAMEBITS_TEST_FILTER; tests/device_tests.cmake says
# why), and no other test that lists every device takes it
# (SAMEBITS_TEST_NO_SIMULATOR).
# Where the host folds have a copy per instruction set, each runs as
# test_host_reduce_<set>, and test_host_reduce (the set the CPU picks)
# repeats one of them: it is left out (34 s under ASan; 2-vCPU Zen 5 VM).
# How a set is picked, test_host_isa checks.
same_as_a_copy=""
copies=$(ctest --test-dir build-asan -N -R '^test_host_reduce_sse2$')
if grep -q 'Total Tests: 1' <<<"$copies"; then
  same_as_a_copy='|^test_host_reduce$'
fi
SAMEBITS_TEST_SPARSE=1 SAMEBITS_TEST_NO_SIMULATOR=1 \
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:$tls \
LSAN_OPTIONS=suppressions=$supp/lsan.supp:print_suppressions=0 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j2 -LE huge \
        -E "^test_device_(shapes|maps|half)\$|^check_oclgrind_quick\$|^test_oclgrind_races\$|^corpus_matches_its_specification\$$same_as_a_copy"

stage "TSan: 8 threads on one context"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSAMEBITS_SANITIZE=thread -DSAMEBITS_WERROR="$werror" \
      -DSAMEBITS_POCL_CACHE_DIR="$cache" >/dev/null
cmake --build build-tsan -j"$jobs" --target test_threads
TSAN_OPTIONS=suppressions=$supp/tsan.supp:halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build-tsan --output-on-failure -R '^test_threads$'

stage "valgrind memcheck"
ctest --test-dir build --output-on-failure -j"$jobs" -C valgrind -L valgrind

fuzz_seconds=${SAMEBITS_FUZZ_SECONDS:-60}
if [ "$fuzz_seconds" != 0 ]; then
  stage "libFuzzer, $fuzz_seconds s per target"
  POCL_CACHE_DIR="$cache" tools/fuzz.sh "$fuzz_seconds" both
else
  stage "libFuzzer: left out (SAMEBITS_FUZZ_SECONDS=0)"
fi

echo; echo "reliability: all stages passed in $((SECONDS - started)) s"
