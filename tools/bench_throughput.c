/* bench_throughput.c: part 1 of `samebits bench`: GB/s of input read by
 * sum, min and prod over f32, f64 and i32 at n = 2^s elements, in one
 * run: the host path on 1 thread and on threads = 0 (every CPU), a plain
 * left-to-right loop, the fastest memory read this CPU has (tools/
 * bench_read.c) on 1 thread and on as many threads as the host path uses, and for each device sb_reduce() on data
 * already in a cl_mem (SB_OPT_NO_HOST) next to a plain device read kernel
 * (built by bench_device_open(), tools/bench_common.c). The ratios say
 * what the fixed order costs against the loop a person would write and
 * against the speed of memory itself.
 *
 * Method: data is written (so every page is touched) before any timing;
 * each method runs once as a warm-up, which also sets how many calls make
 * one timed sample (at least BENCH_MIN_SAMPLE_S long, so that small n is
 * not lost in clock noise); then the methods take turns, `repeat` samples
 * each, and the best sample is reported (the least disturbed; the median
 * is in --json).
 */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samebits.h"

#define BENCH_MIN_SAMPLE_S   0.02
#define BENCH_MAX_METHODS    (5 + 2 * BENCH_MAX_DEVICES)

/* What one measurement reads: n elements of `type`, `bytes` in all. */
typedef struct {
    const void   *data;
    size_t        n;
    size_t        bytes;
    sb_type       type;
    sb_op         op;
    unsigned      threads;         /* the "all threads" count */
    unsigned      isa;             /* sb_host_options.isa of the host path */
    const bench_read_variant *read; /* the fastest read of this buffer */
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

/* A ratio column: the best GB/s of method `num` over that of `den`. */
typedef struct {
    /* Room for two device labels (bench.h: 15 characters at most) and
     * the words around them: "%s_over_%s_read", "%s/%s". */
    char   name[48];          /* JSON "name" */
    char   title[32];         /* column title */
    size_t num, den;          /* method indices */
} bench_ratio;

/* ---- the host methods --------------------------------------------------------- */

static sb_reduction reduction_of(const bench_input *in)
{
    const sb_reduction r = { .op = in->op, .input = in->type };
    return r;
}

static void sink(sb_type type, const void *result)
{
    switch (type) {
    case SB_F64: { double v; memcpy(&v, result, 8); bench_sink_f64 = v; break; }
    case SB_F32: { float v; memcpy(&v, result, 4); bench_sink_f32 = v; break; }
    default:     { int32_t v; memcpy(&v, result, 4); bench_sink_i64 = v; break; }
    }
}

static int host_reduce(const bench_input *in, unsigned threads)
{
    const sb_host_options opts = { .threads = threads, .isa = in->isa };
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
        bench_sink_f64 = v;
    } else if (in->type == SB_F32) {
        float v;
        PLAIN_LOOP(float, (const float *)in->data, in->n, in->op, v);
        bench_sink_f32 = v;
    } else if (in->type == SB_I64) {
        /* As below, in 64 bits: every element read (the i32 loop would
         * read half the buffer). */
        uint64_t v;
        const int64_t *x = in->data;
        if (in->op == SB_MIN) {
            int64_t m = x[0];
            for (size_t i = 1; i < in->n; i++)
                if (x[i] < m)
                    m = x[i];
            v = (uint64_t)m;
        } else {
            PLAIN_LOOP(uint64_t, (const uint64_t *)in->data, in->n, in->op, v);
        }
        bench_sink_i64 = (int64_t)v;
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
        bench_sink_i64 = (int32_t)v;
    }
    return 0;
}

/* Like the host path: the calling thread reads one slice and starts a
 * thread for each of the others on every call (bench_read_threads()). */
static int read_all(const bench_input *in, unsigned threads)
{
    return bench_read_threads(in->data, in->bytes, in->read->fn, threads);
}

/* ---- the device methods -------------------------------------------------------- */

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
    if (bench_device_read(m->device, in->dev_data[m->device_slot],
                          in->bytes) != 0) {
        cli_error("bench", "%s: the read kernel failed", m->name);
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

/* ---- output ----------------------------------------------------------------------- */

static void print_json_row(const bench_input *in, unsigned log2n,
                           unsigned repeat, const bench_method *methods,
                           size_t method_count, const bench_result *res,
                           const bench_ratio *ratios, size_t ratio_count)
{
    for (size_t m = 0; m < method_count; m++)
        printf("{\"kind\":\"measurement\",\"op\":\"%s\",\"type\":\"%s\","
               "\"log2n\":%u,\"n\":%zu,\"bytes\":%zu,\"method\":\"%s\","
               "\"threads\":%u,\"calls_per_sample\":%u,\"repeat\":%u,"
               "\"gbps_best\":%.3f,\"gbps_median\":%.3f,\"seconds_best\":%.9f,"
               "\"host_isa\":\"%s\",\"read\":\"%s\"}\n",
               sb_op_name(in->op), sb_type_name(in->type), log2n, in->n,
               in->bytes, methods[m].name,
               methods[m].kind == METHOD_HOST_ALL
                   || methods[m].kind == METHOD_READ_ALL ? in->threads : 1u,
               res[m].calls, repeat, res[m].gbps_best, res[m].gbps_median,
               res[m].seconds_best,
               sb_isa_name(sb_host_isa(&(sb_host_options){ .isa = in->isa })),
               in->read->name);
    for (size_t q = 0; q < ratio_count; q++)
        printf("{\"kind\":\"ratio\",\"op\":\"%s\",\"type\":\"%s\",\"log2n\":%u,"
               "\"name\":\"%s\",\"value\":%.3f}\n", sb_op_name(in->op),
               sb_type_name(in->type), log2n, ratios[q].name,
               res[ratios[q].num].gbps_best / res[ratios[q].den].gbps_best);
}

/* The part's title and the column header (text). */
static void print_text_title(unsigned repeat, const bench_method *methods,
                             size_t method_count, const bench_ratio *ratios,
                             size_t ratio_count)
{
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
    printf("  | read\n");
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
    printf("  | %s\n", in->read->name);
    fflush(stdout);
}

/* ---- the part ------------------------------------------------------------------- */

/* The methods, in column order, and the ratios between them. */
/* The index of the samebits method of device column `b` among the first
 * `count` methods. */
static size_t methods_of_device(const bench_method *methods, size_t count,
                                const bench_device *b)
{
    for (size_t k = 0; k < count; k++)
        if (methods[k].kind == METHOD_DEVICE && methods[k].device == b)
            return k;
    return 0;
}

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
    ratios[q++] = (bench_ratio){ "host_1thr_over_read_1thr", "host1/read1",
                                 METHOD_HOST_1, METHOD_READ_1 };
    ratios[q++] = (bench_ratio){ "host_all_over_read_all", "hostall/readall",
                                 METHOD_HOST_ALL, METHOD_READ_ALL };
    for (size_t i = 0; i < dev_count; i++) {
        const char *d = devs[i].label;
        methods[m] = (bench_method){ .kind = METHOD_DEVICE, .device = &devs[i],
                                     .device_slot = i };
        snprintf(methods[m].name, sizeof methods[m].name, "%s", d);
        m++;
        methods[m] = (bench_method){ .kind = METHOD_DEVICE_READ,
                                     .device = &devs[i], .device_slot = i };
        snprintf(methods[m].name, sizeof methods[m].name, "%s-read", d);
        m++;
        bench_ratio *r = &ratios[q++];
        snprintf(r->name, sizeof r->name, "%s_over_%s_read", d, d);
        snprintf(r->title, sizeof r->title, "%s/read", d);
        r->num = m - 2;
        r->den = m - 1;
        /* Another mode of a device measured before: against that device's
         * first column (the mode it needs), in the same run. */
        for (size_t j = 0; j < i; j++)
            if (devs[j].dev == devs[i].dev) {
                r = &ratios[q++];
                snprintf(r->name, sizeof r->name, "%s_over_%s", d,
                         devs[j].label);
                snprintf(r->title, sizeof r->title, "%s/%s", d, devs[j].label);
                r->num = m - 2;
                r->den = methods_of_device(methods, m, &devs[j]);
                break;
            }
        /* Against the machine's memory: meaningful only for a CPU device,
         * which reads the same memory as the host. */
        if (devs[i].caps.is_gpu)
            continue;
        r = &ratios[q++];
        snprintf(r->name, sizeof r->name, "%s_over_read_all", d);
        snprintf(r->title, sizeof r->title, "%s/readall", d);
        r->num = m - 2;
        r->den = METHOD_READ_ALL;       /* host methods come first */
    }
    *method_count = m;
    *ratio_count = q;
}

/* Part 1 for one type and size: the data, on the host and on every
 * device, then each op. */
static int bench_size(const bench_throughput_plan *plan, sb_type type,
                      unsigned log2n, bench_device *devs, size_t dev_count,
                      const bench_method *methods, size_t method_count,
                      const bench_ratio *ratios, size_t ratio_count)
{
    const size_t n = (size_t)1 << log2n;
    const size_t bytes = n * sb_type_size(type);
    void *data = bench_alloc_data(bytes);
    if (data == NULL) {
        cli_error("bench", "cannot allocate %zu bytes for %s at 2^%u", bytes,
                  sb_type_name(type), log2n);
        return -1;
    }
    int rc = 0;
    bench_input in = { .data = data, .n = n, .bytes = bytes, .type = type,
                       .threads = plan->threads, .isa = plan->isa };
    int filled = -1;                   /* the op the data was filled for */
    for (size_t o = 0; o < plan->op_count && rc == 0; o++) {
        in.op = (sb_op)plan->ops[o];
        fprintf(stderr, "bench: %s %s 2^%u: filling", sb_type_name(type),
                sb_op_name(in.op), log2n);
        fflush(stderr);
        /* Sum and min share their data; prod has its own. */
        const int data_kind = in.op == SB_PROD;
        if (filled != data_kind) {
            filled = data_kind;
            bench_fill(data, type, in.op, n);
            in.read = bench_read_pick(data, bytes);
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
        fprintf(stderr, ", measuring (read baseline: %s)\n", in.read->name);
        bench_result res[BENCH_MAX_METHODS];
        if (rc == 0)
            rc = measure_all(&in, methods, method_count, plan->repeat, res);
        if (rc != 0)
            break;
        if (plan->json)
            print_json_row(&in, log2n, plan->repeat, methods, method_count,
                           res, ratios, ratio_count);
        else
            print_text_row(&in, log2n, method_count, res, ratios, ratio_count);
    }
    for (size_t i = 0; i < dev_count; i++)
        if (in.dev_data[i] != NULL)
            clReleaseMemObject(in.dev_data[i]);
    bench_free_data(data, bytes);
    return rc;
}

int bench_throughput(const bench_throughput_plan *plan, bench_device *devs,
                     size_t dev_count, int no_platform)
{
    bench_method methods[BENCH_MAX_METHODS];
    bench_ratio ratios[3 + 3 * BENCH_MAX_DEVICES];
    size_t method_count, ratio_count;
    make_methods(devs, dev_count, methods, &method_count, ratios, &ratio_count);
    if (!plan->json)
        print_text_title(plan->repeat, methods, method_count, ratios,
                         ratio_count);
    if (no_platform && !plan->json)
        printf("(no OpenCL platform: the host only)\n");
    for (size_t ti = 0; ti < plan->type_count; ti++)
        for (size_t si = 0; si < plan->size_count; si++)
            if (bench_size(plan, (sb_type)plan->types[ti],
                           (unsigned)plan->sizes[si], devs, dev_count,
                           methods, method_count, ratios, ratio_count) != 0)
                return -1;
    return 0;
}
