/* cmd_bench.c: `samebits bench`: what the fixed order costs, on the host
 * path and on each OpenCL device.
 *
 * 1. Throughput. For sum, min and prod over f32, f64 and i32 at n = 2^s
 *    elements it measures, in one run, GB/s of input read by: the host
 *    path on 1 thread and on threads = 0 (every CPU), a plain
 *    left-to-right loop, a plain memory read on 1 thread and on as many
 *    threads as the host path uses, and for each device sb_reduce() on
 *    data already in a cl_mem (SB_OPT_NO_HOST) next to a plain device
 *    read kernel. The ratios say what the fixed order costs against the
 *    loop a person would write and against the speed of memory itself.
 * 2. Small calls: microseconds per call at n = 1, 1000, 10^5, through
 *    sb_reduce_host(), through sb_reduce() with its defaults (small n are
 *    reduced on the host) and with SB_OPT_NO_HOST (the device computes).
 * 3. First call: context creation, the first reduction (which builds the
 *    program and compiles its kernels) and the second, in a fresh child
 *    process, first with an empty kernel cache (POCL_CACHE_DIR and
 *    CUDA_CACHE_PATH pointed at a new empty directory), then again with
 *    the cache that run filled.
 *
 * Method: data is written (so every page is touched) before any timing;
 * each method runs once as a warm-up, which also sets how many calls make
 * one timed sample (at least BENCH_MIN_SAMPLE_S long, so that small n is
 * not lost in clock noise); then the methods take turns, `repeat` samples
 * each, and the best sample is reported (the least disturbed; the median
 * is in --json).
 */
#define _XOPEN_SOURCE 700         /* pthreads, posix_spawn, mkdtemp, nftw */

#include "cli.h"

#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"
#include "samebits.h"

extern char **environ;

#define BENCH_MIN_LOG2       4
#define BENCH_MAX_LOG2       33
#define BENCH_MAX_SIZES      16
#define BENCH_MAX_REPEAT     1000
#define BENCH_MIN_SAMPLE_S   0.02
#define BENCH_DEFAULT_REPEAT 5
#define BENCH_MAX_DEVICES    8
#define BENCH_MAX_METHODS    (5 + 2 * BENCH_MAX_DEVICES)

/* A device as the bench uses it: its context, a context that computes
 * everything on the device, and a plain read kernel as its baseline. */
typedef struct {
    const cli_device *dev;
    cl_context        cl_ctx;
    cl_command_queue  queue;       /* for the read kernel */
    sb_context       *sb;          /* SB_OPT_NO_HOST */
    sb_context       *sb_default;  /* default options: small n on the host */
    cl_kernel         read_kernel;
    cl_kernel         empty_kernel;  /* the floor of a launch */
    cl_program        read_program;
    cl_mem            read_out;
    size_t            read_global;
    sb_device_caps    caps;
} bench_device;

/* What one measurement reads: n elements of `type`, `bytes` in all. */
typedef struct {
    const void   *data;
    size_t        n;
    size_t        bytes;
    sb_type       type;
    sb_op         op;
    unsigned      threads;         /* the "all threads" count */
    cl_mem        dev_data[BENCH_MAX_DEVICES];
} bench_input;

typedef enum {
    METHOD_HOST_1, METHOD_HOST_ALL, METHOD_LOOP, METHOD_READ_1,
    METHOD_READ_ALL, METHOD_DEVICE, METHOD_DEVICE_READ
} bench_kind;

typedef struct {
    char          name[24];       /* column title and JSON "method" */
    bench_kind    kind;
    bench_device *device;         /* for the device methods */
    size_t        device_slot;
} bench_method;

typedef struct {
    double gbps_best;
    double gbps_median;
    double seconds_best;      /* one call, in the best sample */
    unsigned calls;           /* calls per timed sample */
} bench_result;

/* Results are stored here so that no loop or read can be optimised away:
 * a volatile store must happen, so its value must be computed. */
static volatile double   sink_f64;
static volatile float    sink_f32;
static volatile int64_t  sink_i64;
static volatile uint64_t sink_u64;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits bench [--device SEL] [--sizes S1,S2,...] [--repeat N]\n"
            "                      [--types T1,...] [--ops OP1,...] [--json]\n"
            "                      [--no-latency]\n"
            "\n"
            "1. GB/s of input read by sum, min and prod over f32, f64 and i32 at\n"
            "   n = 2^S elements (default sizes 20,24; S in %d..%d):\n"
            "     host-1thr   sb_reduce_host_opts, threads = 1\n"
            "     host-all    sb_reduce_host_opts, threads = 0 (every CPU, or\n"
            "                 SAMEBITS_THREADS)\n"
            "     plain-loop  for (i = 0; i < n; i++) s = s OP x[i];  in the type\n"
            "     read-1thr   plain memory read (XOR of 64-bit words), 1 thread\n"
            "     read-all    the same on as many threads as host-all\n"
            "     devN        sb_reduce on device N, data in a cl_mem, computed\n"
            "                 on the device (SB_OPT_NO_HOST); result read back\n"
            "     devN-read   a plain read kernel on device N (XOR of words)\n"
            "   and the ratios host1/loop, hostall/readall, devN/devN-read and\n"
            "   devN/readall (the device against the host's memory read).\n"
            "2. Microseconds per f32 sum call at n = 1, 1000, 100000: host path,\n"
            "   sb_reduce with its defaults (small n on the host) and forced onto\n"
            "   the device; next to the floor of any such call on each device:\n"
            "   one command round trip (a blocking 4-byte clEnqueueReadBuffer)\n"
            "   and an empty kernel's launch + clFinish.\n"
            "3. The first call on each device (program build and kernel\n"
            "   compilation), in a child process with an empty kernel cache, then\n"
            "   with the cache it filled.\n"
            "Each figure is the best of N timed samples (default %d) after one\n"
            "warm-up. Progress goes to stderr.\n"
            "\n"
            "  --device SEL  host, or devices (number of `samebits info`, P:D, a\n"
            "                part of a name, all); default every device but\n"
            "                simulators. --device host measures the host only.\n"
            "  --types LIST  part 1 for these of f32,f64,i32 (default all three)\n"
            "  --ops LIST    part 1 for these of sum,min,prod (default all three)\n"
            "  --json        one JSON object per line: the setup, each\n"
            "                measurement, each ratio, each latency\n"
            "  --no-latency  skip parts 2 and 3\n",
            BENCH_MIN_LOG2, BENCH_MAX_LOG2, BENCH_DEFAULT_REPEAT);
}

/* ---- the host methods --------------------------------------------------------- */

static sb_reduction reduction_of(const bench_input *in)
{
    const sb_reduction r = { .op = in->op, .input = in->type };
    return r;
}

static void sink(sb_type type, const void *result)
{
    switch (type) {
    case SB_F64: { double v; memcpy(&v, result, 8); sink_f64 = v; break; }
    case SB_F32: { float v; memcpy(&v, result, 4); sink_f32 = v; break; }
    default:     { int32_t v; memcpy(&v, result, 4); sink_i64 = v; break; }
    }
}

static int host_reduce(const bench_input *in, unsigned threads)
{
    const sb_host_options opts = { .threads = threads };
    unsigned char result[8];
    const sb_status s = sb_reduce_host_opts(reduction_of(in), in->data, NULL,
                                            in->n, result, &opts);
    if (s != SB_OK) {
        cli_error("bench", "sb_reduce_host_opts: %s", sb_status_string(s));
        return -1;
    }
    sink(in->type, result);
    return 0;
}

/* The loop a person would write. The project builds without -ffast-math
 * and with -ffp-contract=off, so the compiler may neither reassociate it
 * (no vector partial sums) nor fuse anything: one step after another. */
#define PLAIN_LOOP(T, x, n, op, out)                                      \
    do {                                                                  \
        T acc_ = (x)[0];                                                  \
        if ((op) == SB_SUM) {                                             \
            acc_ = 0;                                                     \
            for (size_t i_ = 0; i_ < (n); i_++) acc_ += (x)[i_];          \
        } else if ((op) == SB_PROD) {                                     \
            acc_ = 1;                                                     \
            for (size_t i_ = 0; i_ < (n); i_++) acc_ *= (x)[i_];          \
        } else {                                                          \
            for (size_t i_ = 1; i_ < (n); i_++)                           \
                if ((x)[i_] < acc_) acc_ = (x)[i_];                       \
        }                                                                 \
        (out) = acc_;                                                     \
    } while (0)

static int plain_loop(const bench_input *in)
{
    if (in->type == SB_F64) {
        double v;
        PLAIN_LOOP(double, (const double *)in->data, in->n, in->op, v);
        sink_f64 = v;
    } else if (in->type == SB_F32) {
        float v;
        PLAIN_LOOP(float, (const float *)in->data, in->n, in->op, v);
        sink_f32 = v;
    } else {
        /* Wrapping, as unsigned: the ±1 and [-8, 7] data never overflow
         * anyway, and a signed overflow would be undefined. */
        uint32_t v;
        const int32_t *x = in->data;
        if (in->op == SB_MIN) {
            int32_t m = x[0];
            for (size_t i = 1; i < in->n; i++)
                if (x[i] < m)
                    m = x[i];
            v = (uint32_t)m;
        } else {
            PLAIN_LOOP(uint32_t, (const uint32_t *)in->data, in->n, in->op, v);
        }
        sink_i64 = (int32_t)v;
    }
    return 0;
}

/* XOR of the 64-bit words in bytes [begin, end) of `data` (8-aligned
 * offsets). memcpy reads the data as words without breaking C's aliasing
 * rules; it compiles to plain (vectorised) loads. */
static uint64_t xor_words(const unsigned char *data, size_t begin, size_t end)
{
    uint64_t acc = 0;
    for (size_t off = begin; off < end; off += sizeof acc) {
        uint64_t w;
        memcpy(&w, data + off, sizeof w);
        acc ^= w;
    }
    return acc;
}

typedef struct {
    const unsigned char *data;
    size_t begin, end;
    uint64_t result;
} read_slice;

static void *read_slice_run(void *arg)
{
    read_slice *s = arg;
    s->result = xor_words(s->data, s->begin, s->end);
    return NULL;
}

/* Like the host path: the calling thread reads one slice and starts a
 * thread for each of the others on every call, so the two pay the same
 * start-up cost. Slices are whole 64-byte lines. */
static int read_all(const bench_input *in, unsigned threads)
{
    enum { max_threads = 256 };
    read_slice slices[max_threads];
    pthread_t tid[max_threads];
    const unsigned t_count = threads == 0 ? 1u
                           : threads > max_threads ? max_threads : threads;
    const size_t lines = in->bytes / 64;
    for (unsigned t = 0; t < t_count; t++) {
        slices[t].data = in->data;
        slices[t].begin = lines * t / t_count * 64;
        slices[t].end = t + 1 == t_count ? in->bytes
                                         : lines * (t + 1) / t_count * 64;
    }
    unsigned started = 0;
    for (unsigned t = 1; t < t_count; t++) {
        if (pthread_create(&tid[t], NULL, read_slice_run, &slices[t]) != 0) {
            cli_error("bench", "pthread_create failed");
            break;
        }
        started = t;
    }
    read_slice_run(&slices[0]);
    uint64_t acc = slices[0].result;
    for (unsigned t = 1; t <= started; t++) {
        pthread_join(tid[t], NULL);
        acc ^= slices[t].result;
    }
    sink_u64 = acc;
    return started + 1 == t_count ? 0 : -1;
}

/* ---- the devices ----------------------------------------------------------------- */

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

static int device_open(bench_device *b, const cli_device *d)
{
    memset(b, 0, sizeof *b);
    b->dev = d;
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
    const sb_options no_host = { .flags = SB_OPT_NO_HOST };
    s = sb_context_create(b->cl_ctx, d->device, &no_host, &b->sb);
    if (s == SB_OK)
        s = sb_context_create(b->cl_ctx, d->device, NULL, &b->sb_default);
    if (s != SB_OK) {
        cli_error("bench", "device %u: sb_context_create: %s", d->index,
                  sb_status_string(s));
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

static void device_close(bench_device *b)
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

static int device_reduce(const bench_input *in, const bench_method *m)
{
    unsigned char result[8];
    const sb_status s = sb_reduce(m->device->sb, NULL, reduction_of(in),
                                  in->dev_data[m->device_slot], 0, NULL, 0,
                                  in->n, result);
    if (s != SB_OK) {
        cli_error("bench", "%s: sb_reduce: %s", m->name, sb_status_string(s));
        return -1;
    }
    sink(in->type, result);
    return 0;
}

static int device_read(const bench_input *in, const bench_method *m)
{
    bench_device *b = m->device;
    const cl_ulong words = in->bytes / 8;
    size_t global = b->read_global;
    /* On a CPU device one work-group runs on one thread: one item per
     * group spreads the chunks over every core (left to the runtime,
     * POCL put all 32 items in one group and read at one core's speed). */
    size_t one = 1;
    cl_int err = clSetKernelArg(b->read_kernel, 0, sizeof(cl_mem),
                                &in->dev_data[m->device_slot]);
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
    if (err != CL_SUCCESS) {
        cli_error("bench", "%s: %s", m->name, cli_cl_error_name(err));
        return -1;
    }
    return 0;
}

static int run_method(const bench_input *in, const bench_method *m)
{
    switch (m->kind) {
    case METHOD_HOST_1:      return host_reduce(in, 1);
    case METHOD_HOST_ALL:    return host_reduce(in, 0);
    case METHOD_LOOP:        return plain_loop(in);
    case METHOD_READ_1:      return read_all(in, 1);
    case METHOD_READ_ALL:    return read_all(in, in->threads);
    case METHOD_DEVICE:      return device_reduce(in, m);
    case METHOD_DEVICE_READ: return device_read(in, m);
    }
    return -1;
}

/* ---- timing ---------------------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs one call of each method as a warm-up, which also sets how many
 * calls make one sample, then takes `repeat` samples of every method in
 * turn: interleaved, a passing disturbance (another process, a frequency
 * change) is spread over all methods instead of spoiling one, which keeps
 * the ratios honest. */
static int measure_all(const bench_input *in, const bench_method *methods,
                       size_t method_count, unsigned repeat, bench_result *res)
{
    static double gbps[BENCH_MAX_METHODS][BENCH_MAX_REPEAT];
    for (size_t m = 0; m < method_count; m++) {
        const double t0 = cli_now();
        if (run_method(in, &methods[m]) != 0)
            return -1;
        const double warm = cli_now() - t0;
        res[m].calls = 1;
        if (warm < BENCH_MIN_SAMPLE_S)
            res[m].calls = warm <= 0.0 ? 1000u
                         : (unsigned)ceil(BENCH_MIN_SAMPLE_S / warm);
        res[m].seconds_best = 0.0;
    }
    for (unsigned r = 0; r < repeat; r++) {
        for (size_t m = 0; m < method_count; m++) {
            const double t0 = cli_now();
            for (unsigned c = 0; c < res[m].calls; c++)
                if (run_method(in, &methods[m]) != 0)
                    return -1;
            const double seconds = (cli_now() - t0) / res[m].calls;
            gbps[m][r] = (double)in->bytes / seconds * 1e-9;
            if (r == 0 || seconds < res[m].seconds_best)
                res[m].seconds_best = seconds;
        }
    }
    for (size_t m = 0; m < method_count; m++) {
        double *g = gbps[m];
        qsort(g, repeat, sizeof g[0], compare_double);
        res[m].gbps_best = g[repeat - 1];
        res[m].gbps_median = repeat % 2 ? g[repeat / 2]
                           : 0.5 * (g[repeat / 2 - 1] + g[repeat / 2]);
    }
    return 0;
}

/* Sum and min: floats in [1, 2), i32 in [-8, 7] (no overflow at any n).
 * Prod: +-1, so that products never overflow, underflow or go subnormal
 * (slow paths on some CPUs). Written before the clock starts. */
static void fill(void *data, sb_type type, sb_op op, size_t n)
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
        else if (type == SB_F32)
            ((float *)data)[i] = (float)v;
        else
            ((int32_t *)data)[i] = op == SB_PROD ? (int32_t)v
                                                 : (int32_t)(state >> 60) - 8;
    }
}

/* ---- output ----------------------------------------------------------------------- */

typedef struct {
    char   name[40];          /* JSON "name" */
    char   title[24];         /* column title */
    size_t num, den;          /* method indices */
} bench_ratio;

static void print_json_setup(const char *cpu, unsigned threads,
                             unsigned repeat, const bench_device *devs,
                             size_t dev_count)
{
    printf("{\"kind\":\"setup\",\"command\":");
    cli_json_string(stdout, cli_command_line());
    printf(",\"samebits_version\":\"%s\",\"cpu\":", SAMEBITS_VERSION_STRING);
    cli_json_string(stdout, cpu);
    printf(",\"online_cpus\":%u,\"threads_all\":%u,\"repeat\":%u,"
           "\"warmup\":1,\"statistic\":\"best\",\"unit\":\"GB/s\",\"devices\":[",
           cli_online_cpus(), threads, repeat);
    for (size_t i = 0; i < dev_count; i++) {
        char title[300];
        cli_device_title(devs[i].dev, title, sizeof title);
        printf("%s{\"method\":\"dev%u\",\"name\":", i ? "," : "",
               devs[i].dev->index);
        cli_json_string(stdout, title);
        printf("}");
    }
    printf("]}\n");
}

static void print_json_row(const bench_input *in, unsigned log2n,
                           unsigned repeat, const bench_method *methods,
                           size_t method_count, const bench_result *res,
                           const bench_ratio *ratios, size_t ratio_count)
{
    for (size_t m = 0; m < method_count; m++)
        printf("{\"kind\":\"measurement\",\"op\":\"%s\",\"type\":\"%s\","
               "\"log2n\":%u,\"n\":%zu,\"bytes\":%zu,\"method\":\"%s\","
               "\"threads\":%u,\"calls_per_sample\":%u,\"repeat\":%u,"
               "\"gbps_best\":%.3f,\"gbps_median\":%.3f,\"seconds_best\":%.9f}\n",
               sb_op_name(in->op), sb_type_name(in->type), log2n, in->n,
               in->bytes, methods[m].name,
               methods[m].kind == METHOD_HOST_ALL
                   || methods[m].kind == METHOD_READ_ALL ? in->threads : 1u,
               res[m].calls, repeat, res[m].gbps_best, res[m].gbps_median,
               res[m].seconds_best);
    for (size_t q = 0; q < ratio_count; q++)
        printf("{\"kind\":\"ratio\",\"op\":\"%s\",\"type\":\"%s\",\"log2n\":%u,"
               "\"name\":\"%s\",\"value\":%.3f}\n", sb_op_name(in->op),
               sb_type_name(in->type), log2n, ratios[q].name,
               res[ratios[q].num].gbps_best / res[ratios[q].den].gbps_best);
}

static void print_text_header(const char *cpu, unsigned threads,
                              unsigned repeat, const bench_device *devs,
                              size_t dev_count, const bench_method *methods,
                              size_t method_count, const bench_ratio *ratios,
                              size_t ratio_count)
{
    printf("command: %s\n", cli_command_line());
    printf("cpu: %s; %u online CPUs; host-all = threads 0 = %u threads%s\n",
           cpu, cli_online_cpus(), threads,
           getenv("SAMEBITS_THREADS") != NULL ? " (SAMEBITS_THREADS)" : "");
    for (size_t i = 0; i < dev_count; i++) {
        char title[300];
        cli_device_title(devs[i].dev, title, sizeof title);
        printf("dev%u: %s; launch shape %zu x %u leaves\n", devs[i].dev->index,
               title, devs[i].caps.work_group_size, devs[i].caps.leaves_per_item);
    }
    printf("\n1. GB/s of input read (n x element size / time of one call): "
           "best of %u samples\nafter 1 warm-up; a sample repeats the call for "
           ">= %.0f ms; methods take turns;\ndata written before timing; "
           "device data already in a cl_mem.\n\n", repeat,
           BENCH_MIN_SAMPLE_S * 1e3);
    printf("%-4s %-4s %-5s", "type", "op", "n");
    for (size_t m = 0; m < method_count; m++)
        printf(" %10s", methods[m].name);
    printf("  |");
    for (size_t q = 0; q < ratio_count; q++)
        printf(" %s", ratios[q].title);
    printf("\n");
}

static void print_text_row(const bench_input *in, unsigned log2n,
                           size_t method_count, const bench_result *res,
                           const bench_ratio *ratios, size_t ratio_count)
{
    char size[16];
    snprintf(size, sizeof size, "2^%u", log2n);
    printf("%-4s %-4s %-5s", sb_type_name(in->type), sb_op_name(in->op), size);
    for (size_t m = 0; m < method_count; m++)
        printf(" %10.2f", res[m].gbps_best);
    printf("  |");
    for (size_t q = 0; q < ratio_count; q++)
        printf(" %*.2f", (int)strlen(ratios[q].title),
               res[ratios[q].num].gbps_best / res[ratios[q].den].gbps_best);
    printf("\n");
    fflush(stdout);
}

/* ---- 2. small calls ------------------------------------------------------------------ */

/* Microseconds per call of `fn`: the best of 5 samples of >= 10 ms each. */
typedef sb_status (*latency_fn)(void *arg);

static double micros_per_call(latency_fn fn, void *arg, sb_status *status)
{
    double best = 0.0;
    *status = fn(arg);                  /* warm-up (and the build, if any) */
    if (*status != SB_OK)
        return 0.0;
    for (int sample = 0; sample < 5; sample++) {
        unsigned calls = 0;
        const double t0 = cli_now();
        double t = t0;
        do {
            fn(arg);
            calls++;
            t = cli_now();
        } while (t - t0 < 0.01);
        const double us = (t - t0) / calls * 1e6;
        if (sample == 0 || us < best)
            best = us;
    }
    return best;
}

typedef struct {
    const float  *x;
    cl_mem        buf;
    size_t        n;
    sb_context   *ctx;
    bench_device *device;      /* for the floors */
} latency_arg;

static sb_status latency_host(void *p)
{
    latency_arg *a = p;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    float result;
    const sb_status s = sb_reduce_host(r, a->x, NULL, a->n, &result);
    sink_f32 = result;
    return s;
}

static sb_status latency_device(void *p)
{
    latency_arg *a = p;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    float result;
    const sb_status s = sb_reduce(a->ctx, NULL, r, a->buf, 0, NULL, 0, a->n,
                                  &result);
    sink_f32 = result;
    return s;
}

/* The floor of anything sb_reduce() does with a cl_mem: one blocking
 * command, the cheapest there is. */
static sb_status latency_round_trip(void *p)
{
    latency_arg *a = p;
    float value;
    const cl_int err = clEnqueueReadBuffer(a->device->queue, a->buf, CL_TRUE,
                                           0, sizeof value, &value, 0, NULL,
                                           NULL);
    sink_f32 = value;
    return err == CL_SUCCESS ? SB_OK : SB_OPENCL_ERROR;
}

/* The floor of a device computation: one launch of a kernel that does
 * nothing, and waiting for it. */
static sb_status latency_empty_launch(void *p)
{
    latency_arg *a = p;
    size_t one = 1;
    cl_int err = clEnqueueNDRangeKernel(a->device->queue,
                                        a->device->empty_kernel, 1, NULL,
                                        &one, &one, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = clFinish(a->device->queue);
    return err == CL_SUCCESS ? SB_OK : SB_OPENCL_ERROR;
}

/* n == 0: a floor (no n). floor_us > 0: also the call's cost in command
 * round trips of the same device. */
static void print_latency(int json, const char *target, const char *path,
                          size_t n, double us, sb_status s, double floor_us)
{
    char size[24] = "-", ratio[32] = "";
    if (n != 0)
        snprintf(size, sizeof size, "%zu", n);
    if (json) {
        printf("{\"kind\":\"latency\",\"target\":\"%s\",\"path\":\"%s\","
               "\"op\":\"sum\",\"type\":\"f32\",\"n\":%s,\"status\":\"%s\","
               "\"microseconds_best\":%.3f", target, path,
               n != 0 ? size : "null", corpus_status_word(s), us);
        if (floor_us > 0.0 && s == SB_OK)
            printf(",\"round_trips\":%.3f", us / floor_us);
        printf("}\n");
    } else if (s != SB_OK) {
        printf("  %-6s %-30s %8s  %s\n", target, path, size,
               sb_status_string(s));
    } else {
        if (floor_us > 0.0)
            snprintf(ratio, sizeof ratio, "  %11.2f", us / floor_us);
        printf("  %-6s %-30s %8s  %10.1f%s\n", target, path, size, us, ratio);
    }
}

static int small_calls(int json, bench_device *devs, size_t dev_count)
{
    static const size_t sizes[] = { 1, 1000, 100000 };
    const size_t max_n = 100000;
    float *x = malloc(max_n * sizeof *x);
    if (x == NULL) {
        cli_error("bench", "out of memory");
        return -1;
    }
    fill(x, SB_F32, SB_SUM, max_n);
    if (!json)
        printf("\n2. Microseconds per f32 sum call (best of 5 samples of "
               ">= 10 ms), and on a device\n   the same in round trips (the "
               "first floor: one blocking command):\n"
               "  %-6s %-30s %8s  %10s  %11s\n", "target", "path", "n",
               "us/call", "round trips");
    for (size_t k = 0; k < 3; k++) {
        fprintf(stderr, "bench: small calls, n = %zu\n", sizes[k]);
        latency_arg a = { .x = x, .n = sizes[k] };
        sb_status s;
        const double us = micros_per_call(latency_host, &a, &s);
        print_latency(json, "host", "sb_reduce_host", sizes[k], us, s, 0.0);
    }
    for (size_t i = 0; i < dev_count; i++) {
        bench_device *b = &devs[i];
        char target[16];
        snprintf(target, sizeof target, "dev%u", b->dev->index);
        cl_int err = CL_SUCCESS;
        cl_mem buf = clCreateBuffer(b->cl_ctx,
                                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    max_n * sizeof *x, x, &err);
        if (buf == NULL) {
            cli_error("bench", "%s: %s", target, cli_cl_error_name(err));
            free(x);
            return -1;
        }
        fprintf(stderr, "bench: small calls, %s, floors\n", target);
        latency_arg floor = { .buf = buf, .device = b };
        sb_status fs;
        const double trip = micros_per_call(latency_round_trip, &floor, &fs);
        print_latency(json, target, "floor: blocking 4-byte read", 0, trip,
                      fs, 0.0);
        const double per_trip = fs == SB_OK ? trip : 0.0;
        const double launch = micros_per_call(latency_empty_launch, &floor,
                                              &fs);
        print_latency(json, target, "floor: empty kernel + finish", 0, launch,
                      fs, per_trip);
        for (size_t k = 0; k < 3; k++) {
            fprintf(stderr, "bench: small calls, %s, n = %zu\n", target, sizes[k]);
            latency_arg a = { .buf = buf, .n = sizes[k], .ctx = b->sb_default };
            sb_status s;
            double us = micros_per_call(latency_device, &a, &s);
            print_latency(json, target, "sb_reduce (defaults)", sizes[k], us, s,
                          per_trip);
            a.ctx = b->sb;
            us = micros_per_call(latency_device, &a, &s);
            print_latency(json, target, "sb_reduce (SB_OPT_NO_HOST)", sizes[k],
                          us, s, per_trip);
        }
        clReleaseMemObject(buf);
    }
    free(x);
    return 0;
}

/* ---- 3. the first call, in a child process -------------------------------------------- */

/* The child: `samebits bench --first-call-child N` times context creation,
 * the first f32 sum on device N (program build, kernel compilation) and
 * the second, and prints one line for the parent. */
static int first_call_child(const char *index)
{
    cli_device_list list;
    cli_devices_load(&list);
    unsigned long i;
    if (cli_parse_uint(index, 0, list.count ? list.count - 1 : 0, &i) != 0
            || list.count == 0) {
        cli_devices_free(&list);
        return CLI_EXIT_FAILURE;
    }
    const double t0 = cli_now();
    cl_int err = CL_SUCCESS;
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    sb_context *ctx = NULL;
    cl_context clctx = cli_cl_context(&list.devices[i], &err);
    sb_status s = clctx == NULL ? SB_OPENCL_ERROR
                : sb_context_create(clctx, list.devices[i].device, &opts, &ctx);
    const double t1 = cli_now();
    float x[4096], result;
    fill(x, SB_F32, SB_SUM, 4096);
    cl_mem buf = s != SB_OK ? NULL
               : clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof x, x, &err);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    const double t2 = cli_now();
    if (s == SB_OK)
        s = buf == NULL ? SB_OPENCL_ERROR
                        : sb_reduce(ctx, NULL, r, buf, 0, NULL, 0, 4096, &result);
    const double t3 = cli_now();
    if (s == SB_OK)
        s = sb_reduce(ctx, NULL, r, buf, 0, NULL, 0, 4096, &result);
    const double t4 = cli_now();
    printf("first-call %s %.6f %.6f %.6f\n", corpus_status_word(s), t1 - t0,
           t3 - t2, t4 - t3);
    if (buf != NULL)
        clReleaseMemObject(buf);
    sb_context_release(ctx);
    if (clctx != NULL)
        clReleaseContext(clctx);
    cli_devices_free(&list);
    return s == SB_OK ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Runs the child with the kernel caches at `cache_dir`; parses its line. */
static int run_child(unsigned index, const char *cache_dir, double *times,
                     char *status, size_t status_size)
{
    char pocl[600], cuda[600], idx[16], out_path[600];
    snprintf(pocl, sizeof pocl, "POCL_CACHE_DIR=%s", cache_dir);
    snprintf(cuda, sizeof cuda, "CUDA_CACHE_PATH=%s", cache_dir);
    snprintf(idx, sizeof idx, "%u", index);
    snprintf(out_path, sizeof out_path, "%s/child-output.txt", cache_dir);

    /* The environment: ours, with the two cache variables replaced. */
    size_t count = 0;
    while (environ[count] != NULL)
        count++;
    char **env = calloc(count + 3, sizeof *env);
    if (env == NULL)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        if (strncmp(environ[i], "POCL_CACHE_DIR=", 15) != 0
                && strncmp(environ[i], "CUDA_CACHE_PATH=", 16) != 0)
            env[k++] = environ[i];
    env[k++] = pocl;
    env[k++] = cuda;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path,
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char self[] = "/proc/self/exe", name[] = "samebits", cmd[] = "bench",
         opt[] = "--first-call-child";
    char *argv[] = { name, cmd, opt, idx, NULL };
    pid_t pid;
    const int rc = posix_spawn(&pid, self, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    int wstatus = 0;
    if (rc != 0 || waitpid(pid, &wstatus, 0) < 0)
        return -1;
    FILE *f = fopen(out_path, "r");
    char word[32] = "";
    const int got = f == NULL ? 0
                  : fscanf(f, "first-call %31s %lf %lf %lf", word, &times[0],
                           &times[1], &times[2]);
    if (f != NULL)
        fclose(f);
    remove(out_path);
    snprintf(status, status_size, "%s", word);
    return got == 4 ? 0 : -1;
}

static int first_calls(int json, const bench_device *devs, size_t dev_count)
{
    if (dev_count == 0)
        return 0;
    if (!json)
        printf("\n3. The first call on a device, in a new process (f32 sum, "
               "n = 4096): seconds\n   (cold: an empty kernel cache, "
               "POCL_CACHE_DIR and CUDA_CACHE_PATH; warm: the cache\n   the "
               "cold run filled)\n  %-6s %-6s %10s %12s %12s\n", "target",
               "cache", "context", "first call", "second call");
    for (size_t i = 0; i < dev_count; i++) {
        char dir[] = "/tmp/samebits-bench-cache-XXXXXX";
        if (mkdtemp(dir) == NULL) {
            cli_error("bench", "mkdtemp: cannot make a cache directory");
            return -1;
        }
        for (int warm = 0; warm <= 1; warm++) {
            fprintf(stderr, "bench: first call, dev%u, %s cache\n",
                    devs[i].dev->index, warm ? "warm" : "cold");
            double t[3] = { 0, 0, 0 };
            char status[32] = "";
            const int rc = run_child(devs[i].dev->index, dir, t, status,
                                     sizeof status);
            const char *cache = warm ? "warm" : "cold";
            if (json)
                printf("{\"kind\":\"first_call\",\"target\":\"dev%u\","
                       "\"cache\":\"%s\",\"status\":\"%s\",\"context_s\":%.6f,"
                       "\"first_call_s\":%.6f,\"second_call_s\":%.6f}\n",
                       devs[i].dev->index, cache, rc == 0 ? status : "failed",
                       t[0], t[1], t[2]);
            else if (rc != 0 || strcmp(status, "ok") != 0)
                printf("  dev%-3u %-6s %s\n", devs[i].dev->index, cache,
                       rc == 0 ? status : "the child process failed");
            else
                printf("  dev%-3u %-6s %10.3f %12.3f %12.6f\n",
                       devs[i].dev->index, cache, t[0], t[1], t[2]);
        }
        nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    }
    return 0;
}

/* ---- the command ---------------------------------------------------------------------- */

/* One item of a comma-separated option: its value, or -1 if invalid. */
typedef int (*parse_item_fn)(const char *item);

static int parse_log2_size(const char *item)
{
    unsigned long v;
    return cli_parse_uint(item, BENCH_MIN_LOG2, BENCH_MAX_LOG2, &v) == 0
         ? (int)v : -1;
}

/* Parses "20,24,27" (or "f32,f64", "sum,min") into out[] with `parse`;
 * with `allowed`, only those values are accepted. Returns the count, or 0
 * if invalid, repeated or more than `max`. */
static size_t parse_list(const char *s, parse_item_fn parse,
                         const int *allowed, size_t allowed_count,
                         int *out, size_t max)
{
    size_t count = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        const int v = parse(tok);
        size_t a = 0, seen = 0;
        while (allowed != NULL && a < allowed_count && allowed[a] != v)
            a++;
        while (seen < count && out[seen] != v)
            seen++;
        if (v < 0 || (allowed != NULL && a == allowed_count) || count == max
                || seen < count)
            return 0;
        out[count++] = v;
    }
    return count;
}

/* The methods, in column order, and the ratios between them. */
static void make_methods(bench_device *devs, size_t dev_count,
                         bench_method *methods, size_t *method_count,
                         bench_ratio *ratios, size_t *ratio_count)
{
    static const struct { const char *name; bench_kind kind; } host[] = {
        { "host-1thr", METHOD_HOST_1 }, { "host-all", METHOD_HOST_ALL },
        { "plain-loop", METHOD_LOOP }, { "read-1thr", METHOD_READ_1 },
        { "read-all", METHOD_READ_ALL },
    };
    size_t m = 0, q = 0;
    for (size_t i = 0; i < 5; i++) {
        snprintf(methods[m].name, sizeof methods[m].name, "%s", host[i].name);
        methods[m++].kind = host[i].kind;
    }
    ratios[q++] = (bench_ratio){ "host_1thr_over_plain_loop", "host1/loop",
                                 METHOD_HOST_1, METHOD_LOOP };
    ratios[q++] = (bench_ratio){ "host_all_over_read_all", "hostall/readall",
                                 METHOD_HOST_ALL, METHOD_READ_ALL };
    for (size_t i = 0; i < dev_count; i++) {
        const unsigned d = devs[i].dev->index;
        methods[m] = (bench_method){ .kind = METHOD_DEVICE, .device = &devs[i],
                                     .device_slot = i };
        snprintf(methods[m].name, sizeof methods[m].name, "dev%u", d);
        m++;
        methods[m] = (bench_method){ .kind = METHOD_DEVICE_READ,
                                     .device = &devs[i], .device_slot = i };
        snprintf(methods[m].name, sizeof methods[m].name, "dev%u-read", d);
        m++;
        bench_ratio *r = &ratios[q++];
        snprintf(r->name, sizeof r->name, "dev%u_over_dev%u_read", d, d);
        snprintf(r->title, sizeof r->title, "dev%u/read", d);
        r->num = m - 2;
        r->den = m - 1;
        /* Against the machine's memory: meaningful only for a CPU device,
         * which reads the same memory as the host. */
        if (devs[i].caps.is_gpu)
            continue;
        r = &ratios[q++];
        snprintf(r->name, sizeof r->name, "dev%u_over_read_all", d);
        snprintf(r->title, sizeof r->title, "dev%u/readall", d);
        r->num = m - 2;
        r->den = METHOD_READ_ALL;       /* host methods come first */
    }
    *method_count = m;
    *ratio_count = q;
}

/* Part 1 for one type and size: the data, on the host and on every
 * device, then each op. */
static int bench_size(sb_type type, unsigned log2n, const int *ops,
                      size_t op_count, unsigned repeat, int json,
                      unsigned threads, bench_device *devs, size_t dev_count,
                      const bench_method *methods, size_t method_count,
                      const bench_ratio *ratios, size_t ratio_count)
{
    const size_t n = (size_t)1 << log2n;
    const size_t bytes = n * sb_type_size(type);
    void *data = malloc(bytes);
    if (data == NULL) {
        cli_error("bench", "cannot allocate %zu bytes for %s at 2^%u", bytes,
                  sb_type_name(type), log2n);
        return -1;
    }
    int rc = 0;
    bench_input in = { .data = data, .n = n, .bytes = bytes, .type = type,
                       .threads = threads };
    int filled = -1;                   /* the op the data was filled for */
    for (size_t o = 0; o < op_count && rc == 0; o++) {
        in.op = (sb_op)ops[o];
        fprintf(stderr, "bench: %s %s 2^%u: filling", sb_type_name(type),
                sb_op_name(in.op), log2n);
        fflush(stderr);
        /* Sum and min share their data; prod has its own. */
        const int data_kind = in.op == SB_PROD;
        if (filled != data_kind) {
            filled = data_kind;
            fill(data, type, in.op, n);
            for (size_t i = 0; i < dev_count; i++) {
                cl_int err = CL_SUCCESS;
                if (in.dev_data[i] != NULL)
                    clReleaseMemObject(in.dev_data[i]);
                in.dev_data[i] = clCreateBuffer(devs[i].cl_ctx,
                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, data,
                        &err);
                if (in.dev_data[i] == NULL) {
                    cli_error("bench", "dev%u: %zu bytes: %s",
                              devs[i].dev->index, bytes,
                              cli_cl_error_name(err));
                    rc = -1;
                }
            }
        }
        fprintf(stderr, ", measuring\n");
        bench_result res[BENCH_MAX_METHODS];
        if (rc == 0)
            rc = measure_all(&in, methods, method_count, repeat, res);
        if (rc != 0)
            break;
        if (json)
            print_json_row(&in, log2n, repeat, methods, method_count, res,
                           ratios, ratio_count);
        else
            print_text_row(&in, log2n, method_count, res, ratios, ratio_count);
    }
    for (size_t i = 0; i < dev_count; i++)
        if (in.dev_data[i] != NULL)
            clReleaseMemObject(in.dev_data[i]);
    free(data);
    return rc;
}

int cmd_bench(int argc, char **argv)
{
    int sizes[BENCH_MAX_SIZES] = { 20, 24 };
    size_t size_count = 2;
    unsigned long repeat = BENCH_DEFAULT_REPEAT;
    int json = 0, latency = 1;
    const char *device_spec = NULL;
    static const int all_types[] = { SB_F32, SB_F64, SB_I32 };
    static const int all_ops[] = { SB_SUM, SB_MIN, SB_PROD };
    enum { TYPES = sizeof all_types / sizeof *all_types,
           OPS = sizeof all_ops / sizeof *all_ops };
    int types[TYPES], ops[OPS];
    memcpy(types, all_types, sizeof types);
    memcpy(ops, all_ops, sizeof ops);
    size_t type_count = TYPES, op_count = OPS;

    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if (strcmp(argv[i], "--no-latency") == 0) {
            latency = 0;
        } else if ((v = cli_option_value(argc, argv, &i, "--first-call-child",
                                         &missing)) != NULL) {
            return first_call_child(v);
        } else if ((v = cli_option_value(argc, argv, &i, "--device",
                                         &missing)) != NULL || missing) {
            if (missing) {
                cli_error("bench", "--device wants host, N, P:D, a name or all");
                return CLI_EXIT_USAGE;
            }
            device_spec = v;
        } else if ((v = cli_option_value(argc, argv, &i, "--sizes",
                                         &missing)) != NULL || missing) {
            size_count = missing ? 0 : parse_list(v, parse_log2_size, NULL, 0,
                                                  sizes, BENCH_MAX_SIZES);
            if (size_count == 0) {
                cli_error("bench", "--sizes wants log2 sizes in %d..%d, "
                          "separated by commas, each once (at most %d)",
                          BENCH_MIN_LOG2, BENCH_MAX_LOG2, BENCH_MAX_SIZES);
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--types",
                                         &missing)) != NULL || missing) {
            type_count = missing ? 0 : parse_list(v, cli_parse_type,
                                                  all_types, TYPES, types,
                                                  TYPES);
            if (type_count == 0) {
                cli_error("bench", "--types wants one or more of f32,f64,i32, each once");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--ops",
                                         &missing)) != NULL || missing) {
            op_count = missing ? 0 : parse_list(v, cli_parse_op, all_ops,
                                                OPS, ops, OPS);
            if (op_count == 0) {
                cli_error("bench", "--ops wants one or more of sum,min,prod, each once");
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--repeat",
                                         &missing)) != NULL || missing) {
            if (missing || cli_parse_uint(v, 1, BENCH_MAX_REPEAT,
                                          &repeat) != 0) {
                cli_error("bench", "--repeat wants a count in 1..%d",
                          BENCH_MAX_REPEAT);
                return CLI_EXIT_USAGE;
            }
        } else {
            cli_error("bench", "unknown option '%s'", argv[i]);
            print_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }

    cli_device_list list;
    cli_selection sel;
    if (cli_select_or_all("bench", device_spec, 0, &list, &sel) != 0)
        return CLI_EXIT_FAILURE;
    if (sel.count > BENCH_MAX_DEVICES)
        sel.count = BENCH_MAX_DEVICES;

    int rc = CLI_EXIT_FAILURE;
    bench_device devs[BENCH_MAX_DEVICES];
    size_t dev_count = 0;
    for (size_t i = 0; i < sel.count; i++) {
        fprintf(stderr, "bench: dev%u: building kernels\n",
                sel.devices[i]->index);
        if (device_open(&devs[dev_count++], sel.devices[i]) != 0)
            goto done;
    }
    bench_method methods[BENCH_MAX_METHODS];
    bench_ratio ratios[2 + 2 * BENCH_MAX_DEVICES];
    size_t method_count, ratio_count;
    make_methods(devs, dev_count, methods, &method_count, ratios, &ratio_count);

    char cpu[256];
    cli_cpu_model(cpu, sizeof cpu);
    const unsigned threads = cli_default_threads();
    if (json)
        print_json_setup(cpu, threads, (unsigned)repeat, devs, dev_count);
    else
        print_text_header(cpu, threads, (unsigned)repeat, devs, dev_count,
                          methods, method_count, ratios, ratio_count);
    if (list.platform_count == 0 && !json)
        printf("(no OpenCL platform: the host only)\n");

    for (size_t ti = 0; ti < type_count; ti++)
        for (size_t si = 0; si < size_count; si++)
            if (bench_size((sb_type)types[ti], (unsigned)sizes[si], ops, op_count,
                           (unsigned)repeat, json,
                           threads, devs, dev_count, methods, method_count,
                           ratios, ratio_count) != 0)
                goto done;
    if (latency && (small_calls(json, devs, dev_count) != 0
                    || first_calls(json, devs, dev_count) != 0))
        goto done;
    rc = CLI_EXIT_OK;
done:
    for (size_t i = 0; i < dev_count; i++)
        device_close(&devs[i]);
    cli_devices_free(&list);
    return rc;
}
