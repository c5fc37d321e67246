#!/usr/bin/env bash
# tests/consumer/host_only.sh SOURCE_DIR WORK_DIR: the host-only flavour
# (-DSAMEBITS_OPENCL=OFF) needs no OpenCL at all. The build, with its own
# (host) tests, runs with OpenCL's CMake package disabled and with a
# poisoned CL/ include directory first on the path (any #include <CL/...>
# is an #error), its tests pass, then:
#   - the library links no OpenCL loader and exports no device function;
#   - the installed header says SAMEBITS_OPENCL 0 and declares no device
#     API (a program calling sb_context_create_default does not compile);
#   - the CMake package and the .pc file say they are host-only;
#   - a program built with find_package (still with no OpenCL) runs.
set -euo pipefail
source=$1 work=$2 here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work/poison/CL"
for h in cl.h opencl.h cl_platform.h cl_version.h cl_ext.h; do
  echo "#error \"a host-only samebits must not include <CL/$h>\"" > "$work/poison/CL/$h"
done
no_opencl=(-DCMAKE_DISABLE_FIND_PACKAGE_OpenCL=ON "-DCMAKE_C_FLAGS=-I$work/poison")
# The baseline copy of the host folds alone (SAMEBITS_HOST_ISA_VARIANTS=OFF):
# what this test checks is the flavour's packaging; the AVX2 and AVX-512
# copies are the same code in both flavours, and the main build and
# samebits_as_subproject build them (they were a third of this test's
# time).
cmake -S "$source" -B "$work/build" -DSAMEBITS_OPENCL=OFF \
      -DSAMEBITS_HOST_ISA_VARIANTS=OFF \
      -DCMAKE_BUILD_TYPE=Release "${no_opencl[@]}" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
# Its own tests: the host ones, built with the poisoned CL/ too. Not the
# reruns of test_host_reduce per instruction set nor test_host_isa: the
# folds they vary are the same code in both flavours, and the main build
# runs them (they were half of this test's time).
ctest --test-dir "$work/build" --output-on-failure -j2 \
      -E '^test_host_reduce_(sse2|avx2|avx512)$|^test_host_isa$' \
      >"$work/ctest.log" 2>&1 \
  || { cat "$work/ctest.log"; echo "host_only: its tests failed"; exit 1; }
grep -q 'test_host_reduce .* Passed' "$work/ctest.log" \
  || { cat "$work/ctest.log"; echo "host_only: the host tests did not run"; exit 1; }
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
lib=$(find "$work/prefix" -name 'libsamebits.so' | head -n 1)
libdir=$(dirname "$lib")
if objdump -p "$lib" | grep -q 'NEEDED.*OpenCL'; then
  echo "host_only: libsamebits.so needs the OpenCL loader"; exit 1
fi
nm -D --defined-only "$lib" | grep -q ' sb_reduce_host$' \
  || { echo "host_only: sb_reduce_host is not exported"; exit 1; }
if nm -D --defined-only "$lib" | grep -qE ' sb_(reduce|reduce_enqueue|context_create_default|device_select)$'; then
  echo "host_only: the library exports device functions"; exit 1
fi
grep -q '#define SAMEBITS_OPENCL 0' "$work/prefix/include/samebits_config.h" \
  || { echo "host_only: samebits_config.h does not say SAMEBITS_OPENCL 0"; exit 1; }
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --variable=opencl samebits)" = no ] || { echo "host_only: samebits.pc does not say opencl=no"; exit 1; }
pkg-config --print-requires samebits | grep -q OpenCL && { echo "host_only: samebits.pc requires OpenCL"; exit 1; }
grep -q 'set(samebits_OPENCL OFF)' "$libdir/cmake/samebits/samebitsConfig.cmake" \
  || { echo "host_only: samebitsConfig.cmake does not say samebits_OPENCL OFF"; exit 1; }
# No device API in the header: such a call does not compile.
cat > "$work/device_call.c" <<'C'
#include <samebits.h>
int main(void) { sb_context *ctx; return sb_context_create_default(NULL, &ctx); }
C
if cc -std=c11 -Werror -I"$work/poison" -I"$work/prefix/include" -c "$work/device_call.c" \
      -o "$work/device_call.o" 2>"$work/device_call.log"; then
  echo "host_only: a device call compiled against the host-only header"; exit 1
fi
grep -q 'sb_context' "$work/device_call.log" || { cat "$work/device_call.log"; exit 1; }
cmake -S "$here" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" "${no_opencl[@]}" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/consumer/consumer"
"$work/consumer/consumer_static"
cc -I"$work/poison" "$here/consumer.c" -o "$work/pc_consumer" $(pkg-config --cflags --libs samebits)
LD_LIBRARY_PATH="$libdir" "$work/pc_consumer"
echo "host_only: built, installed and used with no OpenCL header, loader or package"
