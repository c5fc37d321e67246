#!/usr/bin/env bash
# tests/header/check_header.sh INCLUDE_DIR CONFIG_DIR LIB_DIR WORK_DIR:
# builds header_use.c with gcc and clang (C99 and C11, with the system's
# OpenCL headers and with a copy of them on -I) and header_use.cpp with g++
# and clang++, under -Wall -Wextra -Werror (-Wpedantic for C), against the
# built library, for OpenCL 1.2 and 3.0 with the OpenCL headers included
# before and after samebits.h, and runs each program. samebits.h must not
# pin CL_TARGET_OPENCL_VERSION (the old header's 120 broke opencl.hpp and
# hid OpenCL 2.0's API from C), and must not leave the OpenCL headers to
# print their "#pragma message" (an error under clang's -Werror).
# Every compiler is required: tools/setup.sh installs them.
set -euo pipefail
include=$1 config=$2 libdir=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
flags=(-Wall -Wextra -Werror -I"$include" -I"$config")
link=(-L"$libdir" -lsamebits -lOpenCL -Wl,-rpath,"$libdir")
# The OpenCL headers also as a program's own copy (-I, not a system
# directory): then the compiler warns inside them too, and a typedef that
# samebits.h repeated would be an error in C99.
mkdir -p "$work/vendored" && cp -r "$(dirname "$(echo '#include <CL/cl.h>' | cpp -H -o /dev/null 2>&1 | sed -n 's/^\. //p' | head -n 1)")" "$work/vendored/CL"
count=0
for cc in gcc clang; do
  command -v $cc >/dev/null || { echo "check_header: $cc is missing (tools/setup.sh installs it)"; exit 1; }
  for std in c99 c11; do
    for headers in system vendored; do
      extra=()
      [ $headers = vendored ] && extra=(-I"$work/vendored")
      for version in 120 300; do
        for first in 0 1; do
          out=$work/c-$cc-$std-$headers-$version-$first
          $cc -std=$std -Wpedantic "${flags[@]}" "${extra[@]}" \
              -DSB_TEST_CL_VERSION=$version -DSB_TEST_CL_FIRST=$first \
              "$here/header_use.c" -o "$out" "${link[@]}"
          "$out" >/dev/null
          count=$((count + 1))
        done
      done
    done
  done
done
for cxx in g++ clang++; do
  command -v $cxx >/dev/null || { echo "check_header: $cxx is missing (tools/setup.sh installs it)"; exit 1; }
  for std in c++11 c++17; do
    out=$work/cpp-$cxx-$std-plain
    $cxx -std=$std "${flags[@]}" -DSB_TEST_BINDINGS=0 -DSB_TEST_CL_VERSION=0 \
         -DSB_TEST_CL_FIRST=0 "$here/header_use.cpp" -o "$out" "${link[@]}"
    "$out" >/dev/null
    count=$((count + 1))
    for version in 120 300; do
      for first in 0 1; do
        out=$work/cpp-$cxx-$std-$version-$first
        $cxx -std=$std "${flags[@]}" -DSB_TEST_BINDINGS=1 \
             -DSB_TEST_CL_VERSION=$version -DSB_TEST_CL_FIRST=$first \
             "$here/header_use.cpp" -o "$out" "${link[@]}"
        "$out" >/dev/null
        count=$((count + 1))
      done
    done
  done
done
echo "check_header: $count programs built without a warning and ran"
