#!/usr/bin/env bash
# tests/consumer/run.sh BUILD_DIR WORK_DIR: installs BUILD_DIR into a staging
# prefix, then
#   - runs the installed command with no LD_LIBRARY_PATH (it finds its
#     library through its relative RPATH), also after the prefix is moved;
#   - builds and runs consumer.c through the CMake package (shared and
#     static) and through pkg-config;
#   - checks the SONAME carries the minor version (README: ABI) and the
#     package says it is the OpenCL flavour.
set -euo pipefail
build=$1 work=$2 here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
unset LD_LIBRARY_PATH

# The installed command starts from anywhere, with any prefix.
version=$(grep -E '^#define SAMEBITS_VERSION_(MAJOR|MINOR|PATCH) ' \
          "$work/prefix/include/samebits.h" | awk '{print $3}' | paste -sd.)
got=$("$work/prefix/bin/samebits" --version)
[ "$got" = "samebits $version" ] || { echo "installed samebits --version: '$got', want 'samebits $version'"; exit 1; }
sum=$(printf '1\n2\n3\n' | "$work/prefix/bin/samebits" reduce --op sum --type i32 -)
[ "$sum" = 6 ] || { echo "installed samebits reduce: '$sum', want 6"; exit 1; }
runpath=$(readelf -d "$work/prefix/bin/samebits" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
case "$runpath" in
  '$ORIGIN/'*) ;;
  *) echo "installed samebits has RUNPATH '$runpath', want \$ORIGIN/..."; exit 1 ;;
esac
mv "$work/prefix" "$work/moved"
got=$("$work/moved/bin/samebits" --version)
[ "$got" = "samebits $version" ] || { echo "moved samebits --version: '$got'"; exit 1; }
mv "$work/moved" "$work/prefix"

# The ABI policy: libsamebits.so.MAJOR.MINOR while MAJOR is 0.
libdir=$(dirname "$(find "$work/prefix" -name 'libsamebits.so' | head -n 1)")
major=${version%%.*} rest=${version#*.} minor=${rest%%.*}
want_soname=libsamebits.so.$major
[ "$major" = 0 ] && want_soname=libsamebits.so.0.$minor
soname=$(objdump -p "$libdir/libsamebits.so" | awk '/SONAME/ {print $2}')
[ "$soname" = "$want_soname" ] || { echo "SONAME $soname, want $want_soname"; exit 1; }
[ -e "$libdir/$soname" ] || { echo "no $libdir/$soname"; exit 1; }

cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$libdir" "$work/cmake/consumer"
"$work/cmake/consumer_static"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
[ "$(pkg-config --variable=opencl samebits)" = yes ] || { echo "samebits.pc: opencl is not 'yes'"; exit 1; }
grep -q 'set(samebits_OPENCL ON)' "$libdir/cmake/samebits/samebitsConfig.cmake" \
  || { echo "samebitsConfig.cmake: samebits_OPENCL is not ON"; exit 1; }
cc "$here/consumer.c" -o "$work/pc_consumer" $(pkg-config --cflags --libs samebits)
LD_LIBRARY_PATH="$libdir" "$work/pc_consumer"
echo "consumer: the installed command runs (also moved); CMake package (shared, static) and pkg-config work; SONAME $soname"
