#!/usr/bin/env bash
# tests/readme/check_snippets.sh README INCLUDE_DIR CONFIG_DIR LIB_DIR WORK_DIR:
# every ```c block of the README is a whole program that a reader can copy:
# each is built with -Wall -Wextra -Werror -fsanitize=address,undefined
# against the built library and run (the device ones on the default
# device, POCL here). A block that does not build, warns, crashes, leaks
# or reads out of bounds fails the test.
set -euo pipefail
readme=$1 include=$2 config=$3 libdir=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
# Split the README into snippet_<k>.c, one per ```c block.
awk -v dir="$work" '
  /^```c[ \t]*$/ { k++; file = sprintf("%s/snippet_%d.c", dir, k); inside = 1; next }
  /^```/ && inside { inside = 0; close(file); next }
  inside { print > file }
  END { if (inside) { print "unterminated ```c block" > "/dev/stderr"; exit 1 } }
' "$readme"
shopt -s nullglob
snippets=("$work"/snippet_*.c)
if ((${#snippets[@]} == 0)); then
  echo "check_snippets: no \`\`\`c block in $readme"; exit 1
fi
# Each program runs twice. First with the leak check off: on a cold POCL
# kernel cache POCL's compiler keeps LLVM state that LeakSanitizer can
# attribute to POCL only with slow full unwinding (tests/sanitizers/
# lsan.supp). Then, the cache warm, with the leak check on: every leak is
# reported. The TLS interceptor is off as in tools/reliability.sh.
asan=abort_on_error=1:intercept_tls_get_addr=0
# The platforms a sanitized program can load (not Mesa's Clover: see
# tests/sanitizers/icd_vendors.sh).
export OCL_ICD_VENDORS=$("$here/../sanitizers/icd_vendors.sh" "$work/icd-vendors")
export LSAN_OPTIONS=suppressions=$here/../sanitizers/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
for src in "${snippets[@]}"; do
  exe=${src%.c}
  echo "== $(basename "$src")"
  cc -std=c11 -Wall -Wextra -Werror -fsanitize=address,undefined \
     -fno-omit-frame-pointer -I"$include" -I"$config" "$src" -o "$exe" \
     -L"$libdir" -lsamebits -lOpenCL -lm -Wl,-rpath,"$libdir"
  ASAN_OPTIONS=detect_leaks=0:$asan "$exe" >/dev/null
  ASAN_OPTIONS=detect_leaks=1:$asan "$exe"
done
echo "check_snippets: ${#snippets[@]} README programs built without a warning and ran clean"
