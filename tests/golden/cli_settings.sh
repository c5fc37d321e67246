#!/usr/bin/env bash
# tests/golden/cli_settings.sh SAMEBITS README: one meaning for every
# setting, and the command's documented contract.
#   - `samebits info` numbers the devices as the library does, and for
#     SAMEBITS_DEVICE=N names device N as the default; --device N, the
#     library's SAMEBITS_DEVICE=N and "P:D" reach the same device;
#   - a name that matches several devices is refused the same way by
#     --device and by SAMEBITS_DEVICE (exit 4, the devices listed);
#   - SAMEBITS_THREADS and SAMEBITS_ISA are read by the library's parsers:
#     `info` and `bench` say when one is ignored, and never credit it;
#   - `samebits --help` and the README give the exit statuses; check's
#     help, its --list and the README give the same number of cases.
set -u
sb=$1 readme=$2
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The devices, as info lists them: "  device N: NAME   [--device N or P:D, ...]".
info=$("$sb" info)
mapfile -t devices < <(sed -n 's/^  device \([0-9]*\): .*\[--device [0-9]* or \([0-9]*:[0-9]*\),.*/\1 \2/p' <<<"$info")
[ ${#devices[@]} -ge 1 ] || bad "info lists no device:"$'\n'"$info"
for d in "${devices[@]}"; do
  n=${d%% *} pd=${d#* }
  grep -q "SAMEBITS_DEVICE=$n\]" <<<"$info" || bad "info does not give SAMEBITS_DEVICE=$n for device $n"
  got=$(SAMEBITS_DEVICE=$n "$sb" info | sed -n 's/^default device (sb_context_create_default): device \([0-9]*\).*/\1/p')
  [ "$got" = "$n" ] || bad "SAMEBITS_DEVICE=$n: info names device '$got' as the default"
  # --device N, --device P:D: the same device in the JSON record.
  a=$(printf '1\n2\n' | "$sb" reduce --op sum --type f64 --device "$n" --json | sed -n 's/.*"device":"\([^"]*\)".*/\1/p')
  b=$(printf '1\n2\n' | "$sb" reduce --op sum --type f64 --device "$pd" --json | sed -n 's/.*"device":"\([^"]*\)".*/\1/p')
  [ -n "$a" ] && [ "$a" = "$b" ] || bad "--device $n gives '$a', --device $pd gives '$b'"
done

# Ambiguity is refused everywhere: every platform version starts with
# "OpenCL", so "opencl" names every device.
if [ ${#devices[@]} -ge 2 ]; then
  printf '1\n' | "$sb" reduce --op sum --type f32 --device opencl >/dev/null 2>"$TMPDIR/amb.err"
  rc=$?
  [ $rc = 4 ] || bad "--device opencl: exit $rc, want 4"
  grep -q "'opencl' matches ${#devices[@]} devices" "$TMPDIR/amb.err" || bad "--device opencl: $(cat "$TMPDIR/amb.err")"
  line=$(SAMEBITS_DEVICE=opencl "$sb" info | grep '^default device')
  grep -q "NONE: SAMEBITS_DEVICE=opencl: 'opencl' matches ${#devices[@]} devices" <<<"$line" \
    || bad "SAMEBITS_DEVICE=opencl: info says: $line"
else
  printf '1\n' | "$sb" reduce --op sum --type f32 --device opencl >/dev/null \
    || bad "--device opencl with one device must select it"
fi

# SAMEBITS_THREADS: the library's reading.
for value in -1 0 4x " 4" 99999999999999999999x; do
  line=$(SAMEBITS_THREADS="$value" "$sb" info | grep '^host path')
  grep -q "SAMEBITS_THREADS is IGNORED: '$value' is not a thread count" <<<"$line" \
    || bad "SAMEBITS_THREADS='$value': info says: $line"
done
line=$(SAMEBITS_THREADS=3 "$sb" info | grep '^host path')
grep -q "; 3 threads (.*from SAMEBITS_THREADS=3)" <<<"$line" || bad "SAMEBITS_THREADS=3: info says: $line"
line=$(SAMEBITS_THREADS=99999999999999999999 "$sb" info | grep '^host path')
grep -q "; 256 threads" <<<"$line" || bad "SAMEBITS_THREADS=99999999999999999999: info says: $line"

# SAMEBITS_ISA: the library's reading, in info and bench.
line=$(SAMEBITS_ISA=bogus "$sb" info | grep 'instruction set')
grep -q "SAMEBITS_ISA is IGNORED: 'bogus' is not an instruction set" <<<"$line" \
  || bad "SAMEBITS_ISA=bogus: info says: $line"
line=$(SAMEBITS_ISA=sse2 "$sb" info | grep 'instruction set')
grep -q "instruction set sse2 (.*from SAMEBITS_ISA=sse2)" <<<"$line" \
  || bad "SAMEBITS_ISA=sse2: info says: $line"
line=$(SAMEBITS_ISA=sse2 "$sb" bench --device host --sizes 10 --repeat 1 --no-latency 2>/dev/null | grep '^host path:')
grep -q "^host path: sse2 (SAMEBITS_ISA)" <<<"$line" || bad "SAMEBITS_ISA=sse2: bench says: $line"
line=$(SAMEBITS_ISA=bogus "$sb" bench --device host --sizes 10 --repeat 1 --no-latency 2>/dev/null | grep '^host path:')
grep -q "SAMEBITS_ISA ignored" <<<"$line" || bad "SAMEBITS_ISA=bogus: bench says: $line"

# bench credits SAMEBITS_THREADS only when the library takes it.
line=$(SAMEBITS_THREADS=abc "$sb" bench --device host --sizes 10 --repeat 1 --no-latency 2>/dev/null | grep '^cpu:')
grep -q "(SAMEBITS_THREADS ignored)" <<<"$line" || bad "SAMEBITS_THREADS=abc: bench says: $line"
line=$(SAMEBITS_THREADS=1 "$sb" bench --device host --sizes 10 --repeat 1 --no-latency 2>/dev/null | grep '^cpu:')
grep -q "= 1 threads (SAMEBITS_THREADS)$" <<<"$line" || bad "SAMEBITS_THREADS=1: bench says: $line"

# ... and SAMEBITS_PREFETCH the same way (digits only, else measured).
line=$(SAMEBITS_PREFETCH=1k "$sb" bench --device host --sizes 10 --repeat 1 --no-latency 2>/dev/null | grep '^host path:')
grep -Eq "; SAMEBITS_PREFETCH ignored; prefetch (0|4096) bytes ahead \(measured: 0 -> [0-9.]+ GB/s, 4096 -> [0-9.]+ GB/s\)$" <<<"$line" || bad "SAMEBITS_PREFETCH=1k: bench says: $line"
line=$(SAMEBITS_PREFETCH=512 "$sb" bench --device host --sizes 10 --repeat 1 --no-latency 2>/dev/null | grep '^host path:')
grep -q "prefetch 512 bytes ahead (SAMEBITS_PREFETCH)$" <<<"$line" || bad "SAMEBITS_PREFETCH=512: bench says: $line"

# The exit statuses, in --help and in the README, one line per status.
help=$("$sb" --help)
for code in "0  the value was printed" "1  no value" "2  a bad command line" \
            "3  an input" "4  no such device" "5  check, demo"; do
  grep -qF "  $code" <<<"$help" || bad "samebits --help lacks exit status '$code'"
done
for code in 0 1 2 3 4 5; do
  grep -qE "^\| $code \|" "$readme" || bad "the README's exit status table lacks $code"
done
"$sb" --bogus >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || bad "samebits --bogus: exit $rc, want 2"
"$sb" check --filter 'no-such-case' >/dev/null 2>&1; rc=$?
[ $rc = 2 ] || bad "check --filter no-such-case: exit $rc, want 2"
"$sb" check --golden /no/such/file >/dev/null 2>&1; rc=$?
[ $rc = 3 ] || bad "check --golden /no/such/file: exit $rc, want 3"
"$sb" check --device no-such-device >/dev/null 2>&1; rc=$?
[ $rc = 4 ] || bad "check --device no-such-device: exit $rc, want 4"
"$sb" bench --device no-such-device --json >"$TMPDIR/bench.json" 2>/dev/null; rc=$?
[ $rc = 4 ] || bad "bench --device no-such-device: exit $rc, want 4"
grep -q '^{"kind":"error","exit":4,"error":".*no-such-device' "$TMPDIR/bench.json" \
  || bad "bench --json failure record: $(cat "$TMPDIR/bench.json")"

# One number of cases: check --list, check --help and the README.
count=$("$sb" check --list | sed -n 's/^# \([0-9]*\) cases.*/\1/p')
[ -n "$count" ] || bad "check --list gives no count"
printed=$(printf "%d,%03d" $((count / 1000)) $((count % 1000)))
[ "$count" -lt 1000 ] && printed=$count
"$sb" check --help | grep -q "$printed cases" || bad "check --help does not say $printed cases"
grep -q "$printed cases" "$readme" || bad "the README does not say $printed cases"
if grep -oE '[0-9],?[0-9]{3} cases' "$readme" | grep -v "^$printed cases" | grep -q .; then
  bad "the README gives another number of cases: $(grep -oE '[0-9],?[0-9]{3} cases' "$readme" | sort -u | tr '\n' ' ')"
fi

[ $fail = 0 ] && echo "cli_settings: all passed"
exit $fail
