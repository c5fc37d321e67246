#!/usr/bin/env bash
# tests/golden/cli_no_platform.sh SAMEBITS: the samebits command on a
# machine with no OpenCL platform (ctest points OCL_ICD_VENDORS at an empty
# directory). info, check and demo must work on the host path and say
# clearly that there is no platform; naming a device must fail clearly.
set -u
sb=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

# expect NAME STATUS PATTERN FILE: the command's exit status and a line.
expect() {
  local name=$1 want=$2 pattern=$3 file=$4 got
  got=$(cat "$out/$name.status")
  if [ "$got" != "$want" ]; then
    echo "FAIL: $name: exit status $got, expected $want"; fail=1
  fi
  if ! grep -q -- "$pattern" "$out/$file"; then
    echo "FAIL: $name: no line matching '$pattern' in its $file:"
    sed 's/^/    /' "$out/$file"; fail=1
  fi
}
run() {
  local name=$1; shift
  "$sb" "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.status"
}

run info info
expect info 0 "No OpenCL platform found" info.out
expect info 0 "host path" info.out

run check_host check --device host
expect check_host 0 "check: PASS" check_host.out

run check_default check --quick
expect check_default 0 "No OpenCL platform found" check_default.out
expect check_default 0 "check: PASS" check_default.out

run check_device check --device 0
expect check_device 4 "there is no OpenCL device here" check_device.err

run demo demo
expect demo 0 "No OpenCL platform found" demo.out
expect demo 0 "bit-identical" demo.out

run bench bench --sizes 10 --repeat 1
expect bench 0 "no OpenCL platform: the host only" bench.out

run reduce_device reduce --op sum --type f64 --device 0 /dev/null
expect reduce_device 4 "there is no OpenCL device here" reduce_device.err

if [ $fail -eq 0 ]; then echo "cli_no_platform: all passed"; fi
exit $fail
