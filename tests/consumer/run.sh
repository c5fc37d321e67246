#!/usr/bin/env bash
# tests/consumer/run.sh BUILD_DIR WORK_DIR: installs BUILD_DIR into a staging
# prefix, then builds and runs consumer.c through the CMake package (shared
# and static) and through pkg-config.
set -euo pipefail
build=$1 work=$2 here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
libdir=$(dirname "$(find "$work/prefix" -name 'libsamebits.so' | head -n 1)")
LD_LIBRARY_PATH="$libdir" "$work/cmake/consumer"
"$work/cmake/consumer_static"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
cc "$here/consumer.c" -o "$work/pc_consumer" $(pkg-config --cflags --libs samebits)
LD_LIBRARY_PATH="$libdir" "$work/pc_consumer"
echo "consumer: CMake package (shared, static) and pkg-config all work"
