#!/usr/bin/env bash
# tests/sanitizers/icd_vendors.sh DIR: fills DIR with links to every
# installed OpenCL ICD but Mesa's Clover (libMesaOpenCL.so), for
# OCL_ICD_VENDORS=DIR, and prints DIR. The sanitizer and valgrind stages
# (tools/reliability.sh) and the README's ASan snippets use it.
#
# Clover has no device without a GPU driver, and two things make it
# unusable under the sanitizers: its static initialisation throws a C++
# exception, which aborts a C program under ASan (the __cxa_throw
# interceptor finds no libstdc++ to call: "CHECK failed:
# real___cxa_throw != 0"), and it leaks 128 bytes inside gallium's
# pipe_swrast.so, which it unloads before LeakSanitizer can name the
# module. Rusticl, in the same package, stays: its one leak (the
# platform's screens, made in clGetPlatformIDs) is suppressed by name in
# lsan.supp and valgrind.supp. Plain runs see every platform.
set -euo pipefail
dir=$1
rm -rf "$dir" && mkdir -p "$dir"
for icd in /etc/OpenCL/vendors/*.icd; do
  [ -e "$icd" ] || continue
  grep -q 'libMesaOpenCL' "$icd" && continue
  ln -s "$icd" "$dir/"
done
echo "$dir"
