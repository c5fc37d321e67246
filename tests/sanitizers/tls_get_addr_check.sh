#!/usr/bin/env bash
# tests/sanitizers/tls_get_addr_check.sh [cc]: why the sanitizer stages run
# with intercept_tls_get_addr=0 (tools/reliability.sh, tools/fuzz.sh), shown
# with the compiler's own ASan runtime (cc: gcc by default; clang too).
#
# A dlopen()ed library whose thread-local block is 16 bytes long gets that
# block from malloc at 16 bytes past a page boundary. The __tls_get_addr
# interceptor of GCC <= 13 and LLVM <= 16 takes such a block for a
# glibc-2.19 one with a header and reads its address and size from the 16
# bytes before it; LSan's tracer then scans that bogus range and dies. In
# the test binaries this happens by chance, as the TLS blocks of POCL's,
# Oclgrind's and LLVM's threads happen to fall.
#
# Checks, each with the option: (1) the leak check does not crash;
# (2) a malloc()ed block whose only pointer is in a dynamic TLS block is
# not reported; (3) a real leak (777 bytes from each of 5 threads) is
# still reported. Also prints whether the runtime has the bug at all (the
# check without the option). Exit status 0 when the three checks hold.
set -euo pipefail
cc=${1:-gcc}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tls-get-addr.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"

cat >main.c <<'EOF'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
static char *(*touch)(void);
static void *run(void *arg) { (void)arg; touch(); sleep(2); return NULL; }
int main(int argc, char **argv) {
  void *lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) { fprintf(stderr, "%s\n", dlerror()); return 2; }
  touch = (char *(*)(void))dlsym(lib, "touch");
  pthread_t threads[4];
  for (int i = 0; i < 4; i++) pthread_create(&threads[i], NULL, run, NULL);
  touch();
  usleep(200000);
  return 0; /* the threads, and their dynamic TLS, live on at the check */
}
EOF
cat >page16.c <<'EOF'
__thread char block[16];
char *touch(void) { block[0] = 1; return block; }
EOF
cat >held.c <<'EOF'
#include <stdlib.h>
__thread void *held[2];
char *touch(void) { held[0] = malloc(1000); return held[0]; }
EOF
cat >leaks.c <<'EOF'
#include <stdlib.h>
__thread char pad[16];
void *volatile sink;
char *touch(void) { sink = malloc(777); sink = NULL; return pad; }
EOF
"$cc" -g -fsanitize=address main.c -o main -ldl -lpthread
for lib in page16 held leaks; do
  "$cc" -shared -fPIC "$lib.c" -o "lib$lib.so"
done

# run <library> <ASAN_OPTIONS>: the program's output (its status is ignored).
run() { ASAN_OPTIONS="detect_leaks=1:$2" ./main "./lib$1.so" 2>&1 || true; }

failed=0
if run page16 "" | grep -q "Tracer caught signal"; then
  echo "$cc: this ASan runtime has the bug (tracer crash without the option)"
else
  echo "$cc: this ASan runtime does not show the bug"
fi
if run page16 intercept_tls_get_addr=0 | grep -q "Tracer caught signal"; then
  echo "FAIL: the tracer still crashes with intercept_tls_get_addr=0"; failed=1
fi
if run held intercept_tls_get_addr=0 | grep -q "LeakSanitizer: detected"; then
  echo "FAIL: a block held from dynamic TLS is reported as a leak"; failed=1
fi
if ! run leaks intercept_tls_get_addr=0 | grep -q "ERROR: LeakSanitizer: detected memory leaks"; then
  echo "FAIL: a real leak is not reported"; failed=1
fi
if [ "$failed" = 0 ]; then
  echo "$cc: with intercept_tls_get_addr=0 no crash, no false leak, real leaks found"
fi
exit "$failed"
