#!/usr/bin/env bash
# tools/setup.sh: installs what samebits needs (Debian/Ubuntu packages) and
# builds it into build/. Safe to run again: it installs only what is missing
# and rebuilds only what changed.
#   SAMEBITS_WERROR=ON     treat warnings as errors (CI)
#   SAMEBITS_BUILD_DIR=... build somewhere else than ./build
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake gcc make pkg-config binutils
  libcmocka-dev          # tests
  g++ clang              # the header is tested from C and C++ with both
  opencl-clhpp-headers   # ... and with the OpenCL C++ bindings
  libmpfr-dev            # exactly rounded reference sums (samebits demo)
  zlib1g-dev             # compressed .npz inputs (samebits reduce)
  ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo   # OpenCL
  oclgrind               # a second, independent OpenCL device for tests
  mesa-opencl-icd        # rusticl: a third (RUSTICL_ENABLE=llvmpipe), with
                         # flushed f32 subnormals and no fp64
  python3                # tests/golden/corpus_reference.py, tools/check_braces.py
  mpi-default-dev mpi-default-bin   # samebits_mpi and its tests (Debian's
                                    # default MPI: Open MPI)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# Debian's oclgrind package installs its ICD library but does not register
# it with the ICD loader.
icd=/etc/OpenCL/vendors/oclgrind.icd
lib=/usr/lib/oclgrind/liboclgrind-rt-icd.so
if [ ! -e "$icd" ] && [ -e "$lib" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "$lib" | $sudo tee "$icd" >/dev/null
fi

build="${SAMEBITS_BUILD_DIR:-build}"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
      -DSAMEBITS_WERROR="${SAMEBITS_WERROR:-OFF}" >/dev/null
cmake --build "$build" -j"$(nproc)"
