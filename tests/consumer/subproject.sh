#!/usr/bin/env bash
# tests/consumer/subproject.sh SOURCE_DIR WORK_DIR: samebits inside another
# CMake project (add_subdirectory). With neither pkg-config (so no cmocka)
# nor MPFR to be found:
#   - it configures the library alone, as a user's project gets it (the
#     host folds for AVX2 and AVX-512 included), and builds it without
#     those two copies (below): no test, no command, no warning;
#   - it leaves the parent's CMAKE_BUILD_TYPE empty;
#   - the parent's program links samebits::samebits and runs;
#   - asked for the command (SAMEBITS_BUILD_TOOLS=ON), it builds it without
#     MPFR, and `samebits demo` runs without its exactly rounded row.
set -euo pipefail
source=$1 work=$2 here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
no_deps=(-DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON -DCMAKE_DISABLE_FIND_PACKAGE_MPFR=ON)
cmake -S "$here/subproject" -B "$work" -DSAMEBITS_SOURCE="$source" "${no_deps[@]}" >/dev/null
grep -q '^CMAKE_BUILD_TYPE:STRING=$' "$work/CMakeCache.txt" \
  || { echo "subproject: samebits wrote CMAKE_BUILD_TYPE into the parent's cache:"; grep '^CMAKE_BUILD_TYPE' "$work/CMakeCache.txt"; exit 1; }
# The copies of src/host_kernels.c for AVX2 and AVX-512 are configured
# (their targets exist) but not built: they are the same compiler commands
# as in the top-level build, which builds them, and here they took 120 of
# this test's 190 CPU-seconds, on CI's critical path (2-vCPU Zen 5 VM).
targets=$(cmake --build "$work" --target help)
for isa in avx2 avx512; do
  grep -q "samebits_host_$isa" <<<"$targets" \
    || { echo "subproject: no target for the $isa host folds"; exit 1; }
done
cmake "$work" -DSAMEBITS_HOST_ISA_VARIANTS=OFF >/dev/null
build() {
  cmake --build "$work" -j2 >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; echo "subproject: the build failed"; exit 1; }
  # (make's own "make[1]: warning: ..." under `make test` is not the
  # compiler's)
  if awk '/warning:/ && !/^g?make/ { found = 1 } END { exit !found }' \
         "$work/build.log"; then
    cat "$work/build.log"; echo "subproject: the build warns"; exit 1
  fi
}
build
tests=$(ctest --test-dir "$work" -N | sed -n 's/^Total Tests: //p')
[ "${tests:-0}" = 0 ] || { echo "subproject: $tests tests registered in the parent"; exit 1; }
[ ! -e "$work/samebits/tools/samebits" ] || { echo "subproject: the command was built"; exit 1; }
[ ! -d "$work/samebits/tests" ] || { echo "subproject: the tests were configured"; exit 1; }
"$work/parent_consumer"

cmake "$work" -DSAMEBITS_BUILD_TOOLS=ON >/dev/null
build
out=$("$work/samebits/tools/samebits" demo --device host)
if grep -q 'exactly rounded (MPFR)' <<<"$out" \
   || ! grep -q 'built without MPFR' <<<"$out"; then
  echo "subproject: demo without MPFR printed:"; echo "$out"; exit 1
fi
echo "subproject: library only, parent's cache untouched, no cmocka or MPFR needed, no warning; the command builds without MPFR"
