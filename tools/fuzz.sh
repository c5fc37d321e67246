#!/usr/bin/env bash
# tools/fuzz.sh: builds the libFuzzer targets (clang, AddressSanitizer and
# UndefinedBehaviorSanitizer) in build-fuzz/ and runs them from the
# committed seed corpora, each for the given time. Exits non-zero on a crash
# or a mismatch, naming the input that caused it.
#
#   tools/fuzz.sh [seconds] [host|device|both|selftest]    (60 both)
#
#   host      fuzz_host: sb_reduce_host() against tests/oracle.c
#   device    fuzz_device: sb_reduce() on the default OpenCL device (POCL
#             without a GPU; SAMEBITS_DEVICE picks another) against the host
#   both      host and device, each for `seconds` (side by side where
#             there is a core for each)
#   selftest  checks that the harness can fail: fuzz_host_perturbed (built
#             with FUZZ_PERTURB=1, which flips a bit of some oracle results)
#             must crash within `seconds`
#
# The committed corpora (tests/fuzz/corpus_host, corpus_device) are copied
# to a scratch directory first and never modified. Environment:
#   SAMEBITS_FUZZ_BUILD_DIR  build directory (build-fuzz)
#   SAMEBITS_FUZZ_WORK       scratch directory (a new mktemp -d); the grown
#                            corpus and any crash-* file are left there
#   SAMEBITS_FUZZ_JOBS       parallel fuzzing processes per target (1)
#   SAMEBITS_FUZZ_ARGS       extra libFuzzer arguments
#
# Hours-long runs (say 8 h on 2 cores; POCL's kernel cache is kept in the
# build directory, so later runs start fast):
#   SAMEBITS_FUZZ_JOBS=2 SAMEBITS_FUZZ_WORK=$HOME/sb-fuzz tools/fuzz.sh 28800 host
#   SAMEBITS_FUZZ_WORK=$HOME/sb-fuzz tools/fuzz.sh 28800 device
# then keep what adds coverage, small, in the committed corpus:
#   build-fuzz/tests/fuzz_host -merge=1 tests/fuzz/corpus_host $HOME/sb-fuzz/host/corpus
# A crash must become a regression test: copy its crash-* file into
# tests/fuzz/corpus_<target>/ (the fuzz_*_replay ctest tests replay it).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
which="${2:-both}"
case "$which" in
  host|device|both|selftest) ;;
  *) echo "usage: tools/fuzz.sh [seconds] [host|device|both|selftest]" >&2
     exit 2 ;;
esac
case "$seconds" in
  ''|*[!0-9]*) echo "fuzz.sh: seconds must be a whole number" >&2; exit 2 ;;
esac
command -v clang >/dev/null || {
  echo "fuzz.sh: clang is needed (apt-get install clang libclang-rt-dev)" >&2
  exit 2
}

build="${SAMEBITS_FUZZ_BUILD_DIR:-build-fuzz}"
work="${SAMEBITS_FUZZ_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/samebits-fuzz.XXXXXX")}"
jobs="${SAMEBITS_FUZZ_JOBS:-1}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

cmake -S . -B "$build" -DCMAKE_C_COMPILER=clang \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DSAMEBITS_SANITIZE=address,undefined -DSAMEBITS_FUZZ=ON \
      -DSAMEBITS_BUILD_TOOLS=OFF >/dev/null
targets=()
case "$which" in
  host)     targets=(fuzz_host) ;;
  device)   targets=(fuzz_device) ;;
  both)     targets=(fuzz_host fuzz_device) ;;
  selftest) targets=(fuzz_host_perturbed) ;;
esac
cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"

build_abs="$(cd "$build" && pwd)"
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$build_abs/pocl-cache}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# libFuzzer checks leaks with LSan's tracer: the same __tls_get_addr
# interceptor flake as in tools/reliability.sh (see there), same remedy.
export ASAN_OPTIONS="intercept_tls_get_addr=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Every OpenCL platform but Mesa's Clover, as in tools/reliability.sh:
# loading Clover leaks 128 bytes in a module it unloads before LSan can
# name it, so a run of fuzz_device outside CI reported that leak whenever
# it fell in a checked input (tests/sanitizers/icd_vendors.sh). A caller's
# OCL_ICD_VENDORS stays.
if [ -z "${OCL_ICD_VENDORS:-}" ]; then
  OCL_ICD_VENDORS=$(tests/sanitizers/icd_vendors.sh "$build_abs/icd-vendors-fuzz")
  export OCL_ICD_VENDORS
fi

# run_fuzzer <binary> <corpus name> <output dir>: libFuzzer's status. It
# runs in <output dir> (where -jobs writes its fuzz-N.log files) and logs to
# <output dir>/log.
run_fuzzer() {
  local binary="$build_abs/tests/$1" corpus="$2" out="$3" status=0
  rm -rf "$out"
  mkdir -p "$out/corpus" "$out/artifacts"
  cp tests/fuzz/"$corpus"/* "$out/corpus/"
  local parallel=()
  if [ "$jobs" -gt 1 ]; then
    parallel=(-jobs="$jobs" -workers="$jobs")
  fi
  # -timeout: one input may take seconds (n ~ 10^6 under ASan, or a cold
  # POCL kernel build); -rss_limit_mb: POCL and its LLVM need about 1 GiB;
  # -len_control=0: inputs may be long at once (the header alone is 9
  # bytes, so the default slow growth from 4 bytes would leave the data
  # empty for minutes).
  # shellcheck disable=SC2086
  (cd "$out" && SAMEBITS_FUZZ_ARTIFACTS="$out/artifacts" exec "$binary" \
      -max_total_time="$seconds" -timeout=120 -rss_limit_mb=4096 \
      -max_len=1024 -len_control=0 -print_final_stats=1 \
      -artifact_prefix="$out/artifacts/" "${parallel[@]}" \
      ${SAMEBITS_FUZZ_ARGS:-} "$out/corpus") >"$out/log" 2>&1 || status=$?
  grep -E '^#[0-9]+ +(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' \
    "$out/log" || true
  return "$status"
}

# fuzz_target <target>: runs it, then 0 if it found nothing (for the
# selftest: if it found the planted mismatch), else 1 with the inputs.
fuzz_target() {
  local target="$1" kind out status=0
  kind="${target#fuzz_}"
  kind="${kind%_perturbed}"
  out="$work/${target#fuzz_}"
  echo "== $target for ${seconds}s (log: $out/log)"
  run_fuzzer "$target" "corpus_$kind" "$out" || status=$?
  # What counts: crash-, leak-, timeout-, oom- (libFuzzer) and mismatch-
  # (the targets themselves); slow-unit- files are only slow inputs.
  local artifacts=() f
  for f in "$out"/artifacts/*; do
    case "${f##*/}" in
      crash-*|leak-*|timeout-*|oom-*|mismatch-*) artifacts+=("$f") ;;
    esac
  done
  if [ "$which" = selftest ]; then
    if [ "$status" -ne 0 ] && ((${#artifacts[@]})) &&
       grep -q "fuzz_host MISMATCH" "$out/log"; then
      echo "== selftest: the perturbed target failed as it must (${artifacts[0]})"
    else
      echo "== selftest FAILED: the perturbed target found no mismatch" >&2
      return 1
    fi
  elif [ "$status" -ne 0 ] || ((${#artifacts[@]})); then
    echo "== $target FAILED (status $status); inputs:" >&2
    if ((${#artifacts[@]})); then ls -l "${artifacts[@]}" >&2; fi
    grep -A12 -E 'MISMATCH|ERROR: ' "$out/log" | head -40 >&2 || true
    echo "Replay: $build/tests/$target <file>. Add the file to" \
         "tests/fuzz/corpus_$kind/ as a regression test." >&2
    return 1
  else
    echo "== $target: no crash; corpus grew to $(find "$out/corpus" -type f | wc -l) inputs"
  fi
}

# `both` on a machine with a core per target runs them side by side
# (CI's 2 cores: 60 s of wall time instead of 120), each report printed
# whole when both are done.
failed=0
if [ "${#targets[@]}" -gt 1 ] && [ "$(nproc)" -ge $((${#targets[@]} * jobs)) ]; then
  pids=()
  for target in "${targets[@]}"; do
    echo "== $target started: its report follows when all are done (log: $work/${target#fuzz_}/log)"
    fuzz_target "$target" >"$work/$target.report" 2>&1 &
    pids+=($!)
  done
  for i in "${!targets[@]}"; do
    status=0
    wait "${pids[$i]}" || status=$?
    if [ "$status" -ne 0 ]; then
      failed=1
      cat "$work/${targets[$i]}.report" >&2
    else
      cat "$work/${targets[$i]}.report"
    fi
  done
else
  for target in "${targets[@]}"; do
    fuzz_target "$target" || failed=1
  done
fi
exit "$failed"
