#!/usr/bin/env bash
# tests/pocl/dlhandle_race_check.sh: why tests/test_threads.c launches each
# kernel once at its widest grid before its threads start, and what the
# README ("POCL before 7.0 and threads") tells users to do, shown with
# plain OpenCL on POCL's CPU device.
#
# POCL's CPU drivers keep the compiled work-group function of a kernel per
# (kernel, work-group size, widest grid so far); a launch wider than every
# entry gets a new one, put first. A finished launch gives its entry back
# by looking for the first entry of that kernel and work-group size, not
# the one it took. So launches running while a wider one starts and ends
# give their entries back to the new one, and once it is at zero the
# next give-back aborts: "pocl_release_dlhandle_cache: Assertion
# `found->ref_count > 0' failed". (POCL 3.1's pthread driver takes an
# entry twice per launch and gives it back once, so here it takes two
# such launches; with one, this script does not abort.) Upstream commit
# c9ac4c0c3 ("fix dlhandle cache"), first in POCL 7.0, hands each launch
# its own entry; Debian 12 ships 3.1 and Debian 13 6.0.
#
# Runs the same three launches twice: (1) as they come: two 1-item launches
# that spin for about a second on two queues, and a 2-item one on a third
# queue while they run; (2) the same after one 2-item launch on its own.
# Prints POCL's version and what each did. Exit status 0 when (2) ends
# normally; (1) aborts on POCL before 7.0. 2 when OpenCL fails to set up
# or launch (then nothing was shown).
set -euo pipefail
dir=$(mktemp -d "${TMPDIR:-/tmp}/pocl-dlhandle.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"

cat >race.c <<'C'
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static const char *src =
  "kernel void spin(global uint *p, int iters) {\n"
  "  uint v = p[get_global_id(0)];\n"
  "  for (int i = 0; i < iters; i++) v = v * 1103515245u + 12345u;\n"
  "  p[get_global_id(0)] = v;\n"
  "}\n";
#define CHECK(call) do { if ((call) != CL_SUCCESS) { \
    fprintf(stderr, "%s failed\n", #call); exit(2); } } while (0)
static void launch(cl_command_queue q, cl_kernel k, size_t width, int iters) {
  const size_t one = 1;
  CHECK(clSetKernelArg(k, 1, sizeof iters, &iters));
  CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &width, &one, 0, NULL, NULL));
  CHECK(clFlush(q));
}
int main(int argc, char **argv) {
  const int widest_first = argc > 1;
  cl_platform_id plats[16];
  cl_uint np = 0;
  cl_device_id dev = NULL;
  char version[256] = "";
  clGetPlatformIDs(16, plats, &np);
  for (cl_uint i = 0; i < np && dev == NULL; i++) {
    char name[256] = "";
    clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
    clGetPlatformInfo(plats[i], CL_PLATFORM_VERSION, sizeof version, version,
                      NULL);
    if (strstr(name, "Portable Computing Language"))
      clGetDeviceIDs(plats[i], CL_DEVICE_TYPE_CPU, 1, &dev, NULL);
  }
  if (dev == NULL) { fprintf(stderr, "no POCL CPU device\n"); return 2; }
  if (!widest_first) {
    printf("platform: %s\n", version);
    fflush(stdout);
  }
  cl_int err;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
  CHECK(err);
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
  CHECK(err);
  CHECK(clBuildProgram(p, 1, &dev, "", NULL, NULL));
  cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
  CHECK(err);
  cl_command_queue q[3];
  cl_kernel k[3];
  for (int i = 0; i < 3; i++) {
    q[i] = clCreateCommandQueue(ctx, dev, 0, &err);
    CHECK(err);
    k[i] = clCreateKernel(p, "spin", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k[i], 0, sizeof buf, &buf));
  }
  if (widest_first) { launch(q[2], k[2], 2, 1); CHECK(clFinish(q[2])); }
  launch(q[0], k[0], 1, 400000000);
  launch(q[1], k[1], 1, 400000000);
  usleep(200000);              /* both are running */
  launch(q[2], k[2], 2, 1);
  for (int i = 2; i >= 0; i--) CHECK(clFinish(q[i]));
  return 0;
}
C
cc -O1 race.c -o race -lOpenCL
pocl_threads=(env POCL_MAX_PTHREAD_COUNT=8)   # a worker for each launch

set +e
"${pocl_threads[@]}" ./race 2>race.err
as_they_come=$?
"${pocl_threads[@]}" ./race widest-first 2>>race.err
widest_first=$?
set -e
cat race.err
if ((as_they_come == 2 || widest_first == 2)); then
  echo "OpenCL failed (above): nothing shown"; exit 2
fi
if ((as_they_come == 134)) && grep -q "pocl_release_dlhandle_cache" race.err; then
  what="POCL's abort"
elif ((as_they_come == 0)); then
  what="did not abort"
else
  what="something else"
fi
echo "as they come: exit status $as_they_come ($what)"
echo "widest first: exit status $widest_first"
exit "$widest_first"
