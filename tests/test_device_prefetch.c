/* tests/test_device_prefetch.c: POCL's programs and the prefetch distance.
 * The distance is measured by the host folds (src/host_prefetch.c), so it
 * may come out otherwise from one process to the next; it reaches the
 * kernels as their last argument (`ahead`), never as a build option,
 * because a build option that followed a timing made a new program for
 * POCL's kernel cache, compiled again for seconds by any process whose
 * measurement differed. Checked here, on POCL:
 *   - a second context on the same cl_context, with another distance,
 *     builds nothing: the programs' options are the same (the library
 *     shares a program between contexts of equal options);
 *   - sb_leaves, sb_rows and sb_segments are launched with the distance
 *     in use at the launch (SAMEBITS_PREFETCH, or sb_host_prefetch());
 *   - the bits equal the oracle's at every distance.
 * Linked to the static library to count the library's OpenCL calls
 * through its table (src/cl_api.h). Seeded (printed at start;
 * SAMEBITS_TEST_SEED replays a run). */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cl_api.h"              /* sb__cl: src/, linked statically */
#include "oracle.h"
#include "support.h"

static uint64_t seed;

/* ---- the library's calls, counted ---------------------------------------- */

static sb__cl_api real;
static unsigned builds;            /* clBuildProgram calls */
/* The `ahead` argument last set for each kernel that takes one; ~0u:
 * never set. */
static const char *const ahead_kernels[] = { "sb_leaves", "sb_rows",
                                             "sb_segments" };
enum { AHEAD_KERNELS = 3 };
static cl_uint ahead_set[AHEAD_KERNELS];

static cl_int CL_API_CALL counting_build(cl_program p, cl_uint n,
        const cl_device_id *d, const char *options,
        void (CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    builds++;
    return real.clBuildProgram(p, n, d, options, notify, user);
}

/* Records the last argument of the kernels that take a distance. */
static cl_int CL_API_CALL recording_set_arg(cl_kernel k, cl_uint index,
                                            size_t size, const void *value)
{
    char name[64] = "";
    cl_uint args = 0;
    if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name,
                        NULL) == CL_SUCCESS
        && clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args,
                           NULL) == CL_SUCCESS
        && index + 1 == args && size == sizeof(cl_uint) && value != NULL)
        for (int i = 0; i < AHEAD_KERNELS; i++)
            if (strcmp(name, ahead_kernels[i]) == 0)
                memcpy(&ahead_set[i], value, sizeof(cl_uint));
    return real.clSetKernelArg(k, index, size, value);
}

static void forget_launches(void)
{
    for (int i = 0; i < AHEAD_KERNELS; i++)
        ahead_set[i] = ~0u;
}

/* ---- POCL ------------------------------------------------------------------ */

typedef struct {
    cl_context       cl_ctx;
    cl_device_id     device;
    cl_command_queue queue;
} pocl;

/* The first device of the first POCL platform (the CPU device; a POCL
 * with a CUDA device too has two, which a name would not tell apart). */
static pocl open_pocl(void)
{
    sb_device_entry e[32];
    size_t count = 0;
    if (sb_device_list(e, 32, &count) != SB_OK)
        fail_msg("sb_device_list: %s", sb_error_detail());
    pocl p = { NULL, NULL, NULL };
    for (size_t i = 0; i < count && i < 32 && p.device == NULL; i++) {
        char version[256] = "";
        clGetPlatformInfo(e[i].platform, CL_PLATFORM_VERSION,
                          sizeof version - 1, version, NULL);
        if (strstr(version, "PoCL") != NULL || strstr(version, "pocl") != NULL)
            p.device = e[i].device;
    }
    if (p.device == NULL)
        fail_msg("no POCL device among %zu: this test needs POCL", count);
    cl_int err;
    p.cl_ctx = clCreateContext(NULL, 1, &p.device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    p.queue = clCreateCommandQueue(p.cl_ctx, p.device, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    return p;
}

static void close_pocl(pocl *p)
{
    clReleaseCommandQueue(p->queue);
    clReleaseContext(p->cl_ctx);
}

static sb_context *device_only_context(const pocl *p)
{
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    sb_context *ctx = NULL;
    const sb_status s = sb_context_create(p->cl_ctx, p->device, &opts, &ctx);
    if (s != SB_OK)
        fail_msg("sb_context_create: %s: %s", status_name(s), sb_error_detail());
    return ctx;
}

/* ---- the checks ------------------------------------------------------------ */

enum { N = (1 << 16) + 5, ROWS = 48, ROW_N = 1000 };

/* f32 sums of x[0..N) on ctx: the whole array (sb_leaves), ROWS rows of
 * ROW_N (sb_reduce_batched: sb_rows) and the same rows as segments
 * (sb_reduce_segments: sb_segments), each against the oracle. */
static void reduce_all(sb_context *ctx, const pocl *p, const float *x,
                       const char *distance)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    cl_int err;
    cl_mem buf = clCreateBuffer(p->cl_ctx, CL_MEM_READ_ONLY |
                                CL_MEM_COPY_HOST_PTR, N * sizeof *x,
                                (void *)x, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_ulong cuts[ROWS + 1];
    for (size_t b = 0; b <= ROWS; b++)
        cuts[b] = b * ROW_N;
    cl_mem offsets = clCreateBuffer(p->cl_ctx, CL_MEM_READ_ONLY |
                                    CL_MEM_COPY_HOST_PTR, sizeof cuts, cuts,
                                    &err);
    assert_int_equal(err, CL_SUCCESS);

    float got, want;
    sb_status s = sb_reduce(ctx, p->queue, r, buf, 0, NULL, 0, N, &got);
    assert_int_equal(oracle_reduce(r, x, NULL, N, &want), SB_OK);
    if (s != SB_OK || !bits_equal(&got, &want, sizeof got))
        fail_msg("prefetch %s, seed %llu: sum of %d: %s, %a, oracle %a",
                 distance, (unsigned long long)seed, N, status_name(s),
                 (double)got, (double)want);

    float rows[ROWS], segs[ROWS];
    sb_status row_s[ROWS], seg_s[ROWS];
    s = sb_reduce_batched(ctx, p->queue, r, buf, 0, NULL, 0, ROW_N, 1, ROWS,
                          ROW_N, rows, row_s);
    assert_int_equal(s, SB_OK);
    s = sb_reduce_segments(ctx, p->queue, r, buf, 0, NULL, 0, offsets, 0,
                           ROWS, segs, seg_s);
    assert_int_equal(s, SB_OK);
    for (size_t b = 0; b < ROWS; b++) {
        assert_int_equal(oracle_reduce(r, x + b * ROW_N, NULL, ROW_N, &want),
                         SB_OK);
        if (row_s[b] != SB_OK || !bits_equal(&rows[b], &want, sizeof want)
            || seg_s[b] != SB_OK || !bits_equal(&segs[b], &want, sizeof want))
            fail_msg("prefetch %s, seed %llu: row %zu: batched %s %a, "
                     "segment %s %a, oracle %a", distance,
                     (unsigned long long)seed, b, status_name(row_s[b]),
                     (double)rows[b], status_name(seg_s[b]), (double)segs[b],
                     (double)want);
    }
    clReleaseMemObject(offsets);
    clReleaseMemObject(buf);
}

/* Every kernel that takes a distance was launched with `want`. */
static void assert_launched_with(cl_uint want, const char *distance)
{
    for (int i = 0; i < AHEAD_KERNELS; i++)
        if (ahead_set[i] != want)
            fail_msg("prefetch %s: %s was launched with ahead = %u, want %u "
                     "(~0u: not launched)", distance, ahead_kernels[i],
                     ahead_set[i], want);
}

static void the_distance_is_an_argument_not_a_build_option(void **state)
{
    (void)state;
    float *x = checked_malloc(N * sizeof *x);
    uint64_t st = seed;
    for (size_t i = 0; i < N; i++)   /* mixed signs and magnitudes */
        x[i] = (float)((random_unit(&st) - 0.5) * (double)(1u << (i % 20)));
    pocl p = open_pocl();

    /* The first context builds at 4096 bytes. */
    setenv("SAMEBITS_PREFETCH", "4096", 1);
    builds = 0;
    forget_launches();
    sb_context *first = device_only_context(&p);
    reduce_all(first, &p, x, "4096");
    assert_true(builds > 0);             /* the wrapper saw the builds */
    assert_launched_with(4096, "4096");

    /* A second, while the first holds its programs: another distance,
     * the same programs, none built. */
    setenv("SAMEBITS_PREFETCH", "0", 1);
    const unsigned built_before = builds;
    forget_launches();
    sb_context *second = device_only_context(&p);
    reduce_all(second, &p, x, "0");
    if (builds != built_before)
        fail_msg("SAMEBITS_PREFETCH=0 after 4096 built %u more programs: "
                 "the distance is in the build options",
                 builds - built_before);
    assert_launched_with(0, "0");

    /* The first context's programs, built at 4096, take what is in use
     * at each launch: 1024, then (unset) sb_host_prefetch(). */
    setenv("SAMEBITS_PREFETCH", "1024", 1);
    forget_launches();
    reduce_all(first, &p, x, "1024");
    assert_launched_with(1024, "1024");
    unsetenv("SAMEBITS_PREFETCH");
    forget_launches();
    reduce_all(first, &p, x, "measured");
    char what[32];
    snprintf(what, sizeof what, "measured (%zu)", sb_host_prefetch());
    assert_launched_with((cl_uint)sb_host_prefetch(), what);
    if (builds != built_before)
        fail_msg("the first context built %u more programs",
                 builds - built_before);

    sb_context_release(second);
    sb_context_release(first);
    close_pocl(&p);
    free(x);
}

int main(void)
{
    seed = test_seed(0x9e3779b97f4a7c15u);   /* prints it */
    real = sb__cl;
    sb__cl.clBuildProgram = counting_build;
    sb__cl.clSetKernelArg = recording_set_arg;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_distance_is_an_argument_not_a_build_option),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
