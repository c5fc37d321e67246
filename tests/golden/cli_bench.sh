#!/usr/bin/env bash
# tests/golden/cli_bench.sh SAMEBITS: samebits bench on POCL, at the
# smallest size and one sample: every part prints what --help promises
# (each method, the device ratios, the latency floors and the first-call
# rows, all with status ok), and bad options are usage errors. It checks
# the shape of the report, never a speed.
set -u
sb=$1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

"$sb" bench --device pocl --sizes 10 --types f32,i32 --ops sum,prod \
      --repeat 1 --json >"$out/json" 2>"$out/err"
status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: bench --json: exit status $status"; sed 's/^/    /' "$out/err"
  fail=1
fi
dev=$(grep -o '"method":"dev[0-9]*"' "$out/json" | head -1 | sed 's/.*"\(dev[0-9]*\)"/\1/')
if [ -z "$dev" ]; then
  echo "FAIL: no device in the setup line"; fail=1; dev=dev_missing
fi
want() {   # PATTERN COUNT: lines of the JSON report matching PATTERN
  local got
  got=$(grep -c -- "$1" "$out/json")
  if [ "$got" != "$2" ]; then
    echo "FAIL: $got lines match '$1', expected $2"; fail=1
  fi
}
# 2 types x 1 size x 2 ops = 4 rows of each method and ratio.
for method in host-1thr host-all plain-loop read-1thr read-all "$dev" "$dev-read"; do
  want "\"kind\":\"measurement\".*\"method\":\"$method\"" 4
done
for ratio in host_1thr_over_plain_loop host_1thr_over_read_1thr host_all_over_read_all \
             "${dev}_over_${dev}_read" "${dev}_over_read_all"; do
  want "\"kind\":\"ratio\".*\"name\":\"$ratio\"" 4
done
# The host path's instruction set and the read baseline, named.
want '"kind":"setup".*"host_isa":"[a-z0-9]*","host_isa_source":' 1
want '"kind":"measurement".*"host_isa":"[a-z0-9]*","read":"\(words\|avx2\|avx512\)\(+pf[48]k\)\{0,1\}"' 28
want '"kind":"setup".*"host_prefetch":[0-9][0-9]*,' 1
# The last record: where the distance came from, each candidate's speed.
# (measured before the runs: the bench settles it first)
want '^{"kind":"prefetch","bytes":\(0\|4096\),"source":"measured","candidates":\[{"bytes":0,"gb_per_s":[0-9.]*},{"bytes":4096,"gb_per_s":[0-9.]*}\]}$' 1
want '"op":"min"' 0
want '"type":"f64"' 0
want '"kind":"latency","target":"host".*"status":"ok"' 3
want "\"target\":\"$dev\",\"path\":\"floor: blocking 4-byte read\".*\"status\":\"ok\"" 1
want "\"target\":\"$dev\",\"path\":\"floor: empty kernel + finish\".*\"status\":\"ok\".*round_trips" 1
want "\"target\":\"$dev\",\"path\":\"sb_reduce (defaults)\".*\"status\":\"ok\".*round_trips" 3
want "\"target\":\"$dev\",\"path\":\"sb_reduce (SB_OPT_NO_HOST)\".*\"status\":\"ok\".*round_trips" 3
want '"kind":"first_call".*"cache":"cold".*"status":"ok"' 1
want '"kind":"first_call".*"cache":"warm".*"status":"ok"' 1

# Bad options: exit status 2 and a message naming the option.
bad() {   # PATTERN ARGS...
  local pattern=$1; shift
  "$sb" bench "$@" >"$out/bad.out" 2>"$out/bad.err"
  local s=$?
  if [ $s -ne 2 ] || ! grep -q -- "$pattern" "$out/bad.err"; then
    echo "FAIL: bench $*: exit status $s (expected 2), stderr:"
    sed 's/^/    /' "$out/bad.err"; fail=1
  fi
}
bad "--types wants" --types f16
bad "--types wants" --types f32,f32,f32,f32
bad "--types wants" --types f64,f64
bad "--ops wants" --ops sum,min,sum
bad "--ops wants" --ops max
bad "--ops wants" --ops
bad "--sizes wants" --sizes 3
bad "--sizes wants" --sizes 10,12,10
bad "--repeat wants" --repeat 0
bad "--isa wants" --isa avx3
bad "--isa wants" --isa
bad "--prefetch wants" --prefetch
bad "--prefetch wants" --prefetch 4k
bad "--prefetch wants" --prefetch 2000000
# --prefetch is the distance the library then uses, named in the setup.
"$sb" bench --device host --sizes 10 --types f32 --ops sum --repeat 1 \
      --no-latency --prefetch 0 >"$out/pf.out" 2>"$out/pf.err" \
  && grep -q "; prefetch 0 bytes ahead (SAMEBITS_PREFETCH)$" "$out/pf.out" \
  || { echo "FAIL: --prefetch 0 not in the setup"; cat "$out/pf.out" "$out/pf.err"; fail=1; }
# --maps: every type (f16 and bf16 into f32 too, f32, f16 and bf16 into
# f64) on 1 and all threads, with masked and NaN-skipping sums; i32 into
# i64 and f64 without NaN skipping (refused for integers).
"$sb" bench --device host --sizes 12 --types f32 --ops sum --repeat 1 \
      --no-latency --maps --json >"$out/maps.json" 2>"$out/maps.err"
for t in f32 f64 f16 bf16 'f32>f64' 'f16>f64' 'bf16>f64'; do
  got=$(grep -c "\"part\":\"maps\",\"type\":\"$t\",.*\"sum_gbs\".*\"dot_gbs\".*\"masked_gbs\".*\"nansum_gbs\"" "$out/maps.json")
  [ "$got" = 2 ] || { echo "FAIL: --maps: $got $t rows, expected 2"; cat "$out/maps.err"; fail=1; }
done
for t in 'i32>i64' 'i32>f64'; do
  got=$(grep -c "\"part\":\"maps\",\"type\":\"$t\",.*\"sum_gbs\".*\"dot_gbs\".*\"masked_gbs\":[0-9.]*}" "$out/maps.json")
  [ "$got" = 2 ] || { echo "FAIL: --maps: $got $t rows, expected 2"; cat "$out/maps.err"; fail=1; }
done
# --maps holds the 1-thread dot product to the read of both arrays.
grep -q '"where":"host1",.*"read2_gbs":' "$out/maps.json" \
  || { echo "FAIL: --maps: no read2_gbs"; fail=1; }
# --isa reaches --maps too (its calls take the defaults: SAMEBITS_ISA).
"$sb" bench --device host --sizes 12 --types f32 --ops sum --repeat 1 \
      --no-latency --maps --isa sse2 --json >"$out/maps_isa.json" 2>/dev/null
got=$(grep -c '"part":"maps",.*"where":"host[1]*","host_isa":"sse2"' "$out/maps_isa.json")
[ "$got" = 22 ] || { echo "FAIL: --maps --isa sse2: $got host rows on sse2, expected 22 (11 rows x 1 and all threads)"; fail=1; }
# --batched: rows and columns, and every cut of the segments (mixed
# lengths too) on 1 and all threads; on POCL rows and columns, and 1000
# rows (columns) of 16 in one call against one sb_reduce of 16.
"$sb" bench --device host,pocl --sizes 21 --types f32 --ops sum --repeat 1 \
      --no-latency --batched --json >"$out/batched.json" 2>"$out/batched.err"
for c in "of 1000" skewed ragged mixed; do
  got=$(grep -c "\"part\":\"batched\",\"segments\":\"$c\",.*\"where\":\"host1*\",.*\"over_read\"" "$out/batched.json")
  [ "$got" = 2 ] || { echo "FAIL: --batched: $got '$c' segment rows, expected 2"; cat "$out/batched.err"; fail=1; }
done
got=$(grep -c '"part":"batched","rows":.*"over_read"' "$out/batched.json")
[ "$got" = 12 ] || { echo "FAIL: --batched: $got rows/columns rows, expected 12"; fail=1; }
got=$(grep -c '"part":"batched","where":"dev[0-9]*","count":1000,"n":16,.*"call_over_batched"' "$out/batched.json")
[ "$got" = 2 ] || { echo "FAIL: --batched: $got POCL rows of 16, expected 2"; fail=1; }
# --isa takes each set this CPU runs (and names it in the setup); one it
# cannot run is a usage error that says so.
for isa in sse2 avx2 avx512; do
  "$sb" bench --device host --sizes 10 --types f32 --ops sum --repeat 1 \
        --no-latency --isa "$isa" >"$out/isa.out" 2>"$out/isa.err"
  s=$?
  if [ $s -eq 0 ]; then
    grep -q "^host path: $isa (--isa)" "$out/isa.out" \
      || { echo "FAIL: --isa $isa not in the setup"; cat "$out/isa.out"; fail=1; }
  elif [ $s -ne 2 ] || ! grep -q "cannot run" "$out/isa.err"; then
    echo "FAIL: --isa $isa: exit status $s"; cat "$out/isa.err"; fail=1
  else
    echo "(this CPU cannot run $isa: $(cat "$out/isa.err"))"
  fi
done

if [ $fail -eq 0 ]; then echo "cli_bench: all passed"; fi
exit $fail
