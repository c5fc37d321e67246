/* bench_common.c: what more than one part of `samebits bench` needs (see
 * bench.h): the devices as the bench opens them, with the plain read
 * kernel that is part 1's device baseline and the empty kernel that is
 * part 2's launch floor; the data every part measures (bench_fill); and
 * the volatile sinks that keep results from being optimised away.
 *
 * Kept apart so that each part's file holds only its own measurement and
 * nothing is written twice. */
#define _DEFAULT_SOURCE           /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "bench.h"

#include <stdlib.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <stdint.h>
#include <string.h>

#include "samebits.h"

/* ---- the sinks ------------------------------------------------------------------ */

volatile double   bench_sink_f64;
volatile float    bench_sink_f32;
volatile int64_t  bench_sink_i64;
volatile uint64_t bench_sink_u64;

/* ---- the devices ---------------------------------------------------------------- */

/* The device's memory-read baseline: each work-item XORs 64-bit words.
 * On a GPU consecutive items read consecutive words (coalesced); on a CPU
 * device, which runs the items of a group one after the other, each item
 * reads one contiguous chunk, 8 words (64 bytes) per load, as wide as
 * POCL vectorises (scalar loads measured 20% slower there). */
static const char *read_kernel_source =
    "__kernel void bench_read(__global const ulong *x, ulong n,\n"
    "                         __global ulong *out, uint chunked) {\n"
    "    const ulong g = get_global_id(0), items = get_global_size(0);\n"
    "    ulong acc = 0;\n"
    "    if (chunked) {\n"
    "        const ulong blocks = n / 8, per = (blocks + items - 1) / items;\n"
    "        const ulong end = min(blocks, (g + 1) * per);\n"
    "        ulong8 acc8 = 0;\n"
    "        for (ulong i = g * per; i < end; i++)\n"
    "            acc8 ^= vload8(i, x);\n"
    "        acc = acc8.s0 ^ acc8.s1 ^ acc8.s2 ^ acc8.s3\n"
    "            ^ acc8.s4 ^ acc8.s5 ^ acc8.s6 ^ acc8.s7;\n"
    "        if (g == items - 1)\n"
    "            for (ulong i = blocks * 8; i < n; i++)\n"
    "                acc ^= x[i];\n"
    "    } else {\n"
    "        for (ulong i = g; i < n; i += items)\n"
    "            acc ^= x[i];\n"
    "    }\n"
    "    out[g] = acc;\n"
    "}\n"
    "__kernel void bench_nothing(void) {}\n";

int bench_device_read_sample(bench_device *b, cl_mem data, size_t bytes,
                             unsigned i, double *best)
{
    const double t0 = cli_now();
    if (bench_device_read(b, data, bytes) != 0) {
        cli_error("bench", "%s: the read kernel failed", b->label);
        return -1;
    }
    const double t = cli_now() - t0;
    if (i == 1 || (i > 1 && t < *best))
        *best = t;
    return 0;
}

int bench_device_read(bench_device *b, cl_mem data, size_t bytes)
{
    const cl_ulong words = bytes / 8;
    size_t global = b->read_global;
    /* On a CPU device one work-group runs on one thread: one item per
     * group spreads the chunks over every core (left to the runtime,
     * POCL put all 32 items in one group and read at one core's speed). */
    size_t one = 1;
    cl_int err = clSetKernelArg(b->read_kernel, 0, sizeof(cl_mem), &data);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->read_kernel, 1, sizeof words, &words);
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->read_kernel, 2, sizeof(cl_mem), &b->read_out);
    const cl_uint chunked = !b->caps.is_gpu;
    if (err == CL_SUCCESS)
        err = clSetKernelArg(b->read_kernel, 3, sizeof chunked, &chunked);
    if (err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(b->queue, b->read_kernel, 1, NULL,
                                     &global, b->caps.is_gpu ? NULL : &one,
                                     0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(b->queue);
    return err == CL_SUCCESS ? 0 : -1;
}

int bench_device_open(bench_device *b, const cli_device *d, bench_mode mode)
{
    static const char suffix[BENCH_MODE_COUNT] = { 0, 'g', 's', 'f' };
    memset(b, 0, sizeof *b);
    b->dev = d;
    snprintf(b->label, sizeof b->label, "dev%u%c", d->index, suffix[mode]);
    b->float_mode = mode == BENCH_MODE_GUARDED ? SB_MODE_GUARDED
                  : mode == BENCH_MODE_SOFTWARE ? SB_MODE_SOFTWARE : 0;
    b->mode_flags = mode == BENCH_MODE_FLUSHING ? SB_OPT_FLUSH_SUBNORMALS : 0;
    cl_int err = CL_SUCCESS;
    sb_status s = sb_device_report(d->device, &b->caps);
    if (s != SB_OK) {
        cli_error("bench", "device %u: %s", d->index, sb_status_string(s));
        return -1;
    }
    b->cl_ctx = cli_cl_context(d, &err);
    if (b->cl_ctx != NULL)
        b->queue = clCreateCommandQueue(b->cl_ctx, d->device, 0, &err);
    if (b->queue == NULL) {
        cli_error("bench", "device %u: %s", d->index, cli_cl_error_name(err));
        return -1;
    }
    const sb_options no_host = { .flags = SB_OPT_NO_HOST | b->mode_flags,
                                 .float_mode = b->float_mode };
    const sb_options defaults = { .flags = b->mode_flags,
                                  .float_mode = b->float_mode };
    s = sb_context_create(b->cl_ctx, d->device, &no_host, &b->sb);
    if (s == SB_OK)
        s = sb_context_create(b->cl_ctx, d->device, &defaults, &b->sb_default);
    if (s == SB_OK)
        s = sb_context_report(b->sb, &b->caps);   /* the modes it computes in */
    if (s != SB_OK) {
        cli_error("bench", "device %u: %s", d->index, sb_error_detail());
        return -1;
    }
    cl_uint units = 1;
    clGetDeviceInfo(d->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units,
                    &units, NULL);
    /* Enough items to fill a GPU; a CPU device needs few, fat ones. */
    b->read_global = (size_t)(units ? units : 1) * (b->caps.is_gpu ? 2048 : 16);
    b->read_program = clCreateProgramWithSource(b->cl_ctx, 1,
                                                &read_kernel_source, NULL, &err);
    if (b->read_program != NULL)
        err = clBuildProgram(b->read_program, 1, &d->device, "", NULL, NULL);
    if (err == CL_SUCCESS)
        b->read_kernel = clCreateKernel(b->read_program, "bench_read", &err);
    if (b->read_kernel != NULL)
        b->empty_kernel = clCreateKernel(b->read_program, "bench_nothing",
                                         &err);
    if (b->empty_kernel != NULL)
        b->read_out = clCreateBuffer(b->cl_ctx, CL_MEM_WRITE_ONLY,
                                     b->read_global * 8, NULL, &err);
    if (b->read_out == NULL) {
        cli_error("bench", "device %u: the read kernel: %s", d->index,
                  cli_cl_error_name(err));
        return -1;
    }
    return 0;
}

void bench_device_close(bench_device *b)
{
    if (b->read_out != NULL)
        clReleaseMemObject(b->read_out);
    if (b->read_kernel != NULL)
        clReleaseKernel(b->read_kernel);
    if (b->empty_kernel != NULL)
        clReleaseKernel(b->empty_kernel);
    if (b->read_program != NULL)
        clReleaseProgram(b->read_program);
    sb_context_release(b->sb);
    sb_context_release(b->sb_default);
    if (b->queue != NULL)
        clReleaseCommandQueue(b->queue);
    if (b->cl_ctx != NULL)
        clReleaseContext(b->cl_ctx);
}

/* ---- the data ------------------------------------------------------------------- */

void *bench_alloc_data(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const size_t huge = (size_t)2 << 20;
    if (bytes >= huge) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        (void)madvise(p, bytes, MADV_HUGEPAGE);   /* a hint: may be refused */
        return p;
    }
#endif
    return malloc(bytes);
}

void bench_free_data(void *data, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= ((size_t)2 << 20)) {
        if (data != NULL)
            munmap(data, bytes);
        return;
    }
#endif
    (void)bytes;
    free(data);
}

void bench_fill(void *data, sb_type type, sb_op op, size_t n)
{
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13;        /* xorshift64 */
        state ^= state >> 7;
        state ^= state << 17;
        const double v = op == SB_PROD ? ((state >> 63) ? -1.0 : 1.0)
                                       : 1.0 + (double)(state >> 11) * 0x1p-53;
        if (type == SB_F64)
            ((double *)data)[i] = v;
        else if (type == SB_F16)     /* [1, 2) (+-1 for products) */
            ((uint16_t *)data)[i] = (uint16_t)(op == SB_PROD
                ? 0x3C00u | (unsigned)(state >> 63) << 15
                : 0x3C00u | (unsigned)(state >> 54));
        else if (type == SB_BF16)
            ((uint16_t *)data)[i] = (uint16_t)(op == SB_PROD
                ? 0x3F80u | (unsigned)(state >> 63) << 15
                : 0x3F80u | (unsigned)(state >> 57));
        else if (type == SB_F32)
            ((float *)data)[i] = (float)v;
        else if (type == SB_I64)
            ((int64_t *)data)[i] = op == SB_PROD ? (int64_t)v
                                                 : (int64_t)(state >> 60) - 8;
        else
            ((int32_t *)data)[i] = op == SB_PROD ? (int32_t)v
                                                 : (int32_t)(state >> 60) - 8;
    }
}

void bench_threads_save(bench_threads_env *e)
{
    const char *v = getenv("SAMEBITS_THREADS");
    e->had = v != NULL && strlen(v) < sizeof e->saved;
    if (e->had)
        strcpy(e->saved, v);
}

void bench_threads_set(const bench_threads_env *e, int one)
{
    if (one)
        setenv("SAMEBITS_THREADS", "1", 1);
    else if (e->had)
        setenv("SAMEBITS_THREADS", e->saved, 1);
    else
        unsetenv("SAMEBITS_THREADS");
}
