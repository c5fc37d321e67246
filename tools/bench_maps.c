/* bench_maps.c: part 5 of `samebits bench` (--maps): what element maps,
 * dot products, masks and NaN skipping cost next to the plain sum over
 * the same data.
 *
 * For f32, f64, f16 and bf16 (the half types into an f32 accumulator, then
 * into their own type: rows "f16>f16", "bf16>bf16"; then f32, f16 and
 * bf16 into f64: "f32>f64", "f16>f64", "bf16>f64"; then i32 into i64 and
 * into f64, whose nansum is refused, reported and not timed) at n = 2^S
 * (S: the largest of --sizes): the
 * fastest 1-thread read of the buffer, then sum, sum of |x| (SB_MAP_ABS),
 * sum of x*x (SB_MAP_SQUARE), the dot product of x with a second array,
 * the sum with a mask that takes 6 elements in 7 ("masked", GB/s of x
 * alone) and the sum with SB_SKIP_NAN (numpy's nansum; the data has no
 * NaN), on
 * the host on 1 thread and on every thread, and on each device (default
 * float mode, the data already in cl_mems). GB/s count every byte read:
 * both arrays for the dot product. The methods of one row take turns,
 * best of --repeat samples. The ratios: each method against the plain sum
 * in the same place, the 1-thread sum against the read of x, and the
 * 1-thread dot product against the read of x and y in turns (read2): two
 * streams can read slower than one (bench.h, bench_read_pair_best). */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "samebits.h"

enum { M_SUM, M_ABS, M_SQUARE, M_DOT, M_MASKED, M_NAN, M_COUNT };
static const char *const method_names[M_COUNT] = {
    "sum", "abs", "square", "dot", "masked", "nansum"
};

typedef struct {
    sb_type       type;
    sb_type       acc;         /* the row's accumulator */
    const void   *x, *y;
    const unsigned char *mask;  /* 6 in 7 taking part */
    size_t        n;
    unsigned      threads;     /* host: 1 or 0 (every thread) */
    bench_device *dev;         /* NULL: the host */
    cl_mem        xb, yb, maskb;
} maps_arg;

static sb_status run_method(const maps_arg *a, int m, unsigned char *out)
{
    sb_reduction r = { .op = SB_SUM, .input = a->type,
                       .accumulator = a->acc };
    if (m == M_ABS)
        r.map = SB_MAP_ABS;
    else if (m == M_SQUARE)
        r.map = SB_MAP_SQUARE;
    else if (m == M_NAN)
        r.flags = SB_SKIP_NAN;
    const int masked = m == M_MASKED;
    if (a->dev == NULL) {
        const sb_host_options opts = { .threads = a->threads };
        return m == M_DOT ? sb_dot_host_opts(r, a->x, a->y, NULL, a->n, out,
                                             &opts)
                          : sb_reduce_host_opts(r, a->x,
                                                masked ? a->mask : NULL,
                                                a->n, out, &opts);
    }
    return m == M_DOT ? sb_dot(a->dev->sb, NULL, r, a->xb, 0, a->yb, 0, NULL,
                               0, a->n, out)
                      : sb_reduce(a->dev->sb, NULL, r, a->xb, 0,
                                  masked ? a->maskb : NULL, 0, a->n, out);
}

/* Best seconds of each method, taking turns; *ok[m] is 0 for a method
 * the place refused (a device without maps, say: reported, not timed). */
static void time_methods(const maps_arg *a, unsigned repeat,
                         double best[M_COUNT], int ok[M_COUNT])
{
    unsigned char out[8];
    for (int m = 0; m < M_COUNT; m++) {
        best[m] = 0;
        ok[m] = run_method(a, m, out) == SB_OK;
        if (!ok[m])
            fprintf(stderr, "bench: maps: %s %s: %s\n",
                    a->dev ? a->dev->label : "host", method_names[m],
                    sb_error_detail());
    }
    for (unsigned i = 0; i < repeat; i++)
        for (int m = 0; m < M_COUNT; m++) {
            if (!ok[m])
                continue;
            const double t0 = cli_now();
            (void)run_method(a, m, out);
            const double t = cli_now() - t0;
            if (i == 0 || t < best[m])
                best[m] = t;
        }
    bench_sink_u64 = out[0];
}

static double read_seconds(const void *x, size_t bytes, unsigned repeat)
{
    const bench_read_variant *v = bench_read_pick(x, bytes);
    double best = 0;
    for (unsigned i = 0; i < repeat; i++) {
        const double t0 = cli_now();
        bench_sink_u64 = v->fn(x, 0, bytes);
        const double t = cli_now() - t0;
        if (i == 0 || t < best)
            best = t;
    }
    return best;
}

static void report(int json, const char *type, const char *where,
                   size_t bytes, double read, double read2,
                   const double best[M_COUNT], const int ok[M_COUNT])
{
    double gbs[M_COUNT];
    for (int m = 0; m < M_COUNT; m++)
        gbs[m] = ok[m] && best[m] > 0
               ? (m == M_DOT ? 2.0 : 1.0) * (double)bytes / best[m] * 1e-9
               : 0;
    const double read_gbs = read > 0 ? (double)bytes / read * 1e-9 : 0;
    const double read2_gbs = read2 > 0 ? 2.0 * (double)bytes / read2 * 1e-9
                                       : 0;
    if (json) {
        printf("{\"part\":\"maps\",\"type\":\"%s\",\"where\":\"%s\"", type,
               where);
        if (strncmp(where, "host", 4) == 0)   /* the set the calls took */
            printf(",\"host_isa\":\"%s\"",
                   sb_isa_name(sb_host_isa(&(sb_host_options){ 0 })));
        if (read_gbs > 0)
            printf(",\"read_gbs\":%.3f", read_gbs);
        if (read2_gbs > 0)
            printf(",\"read2_gbs\":%.3f", read2_gbs);
        for (int m = 0; m < M_COUNT; m++)
            if (ok[m])
                printf(",\"%s_gbs\":%.3f", method_names[m], gbs[m]);
        printf("}\n");
        return;
    }
    printf("%-9s  %-6s", type, where);
    if (read_gbs > 0)
        printf("  %6.1f  %6.1f", read_gbs, read2_gbs);
    else
        printf("  %6s  %6s", "", "");
    for (int m = 0; m < M_COUNT; m++)
        if (ok[m])
            printf("  %6.1f", gbs[m]);
        else
            printf("  %6s", "-");
    for (int m = M_ABS; m < M_COUNT; m++)
        if (ok[m] && ok[M_SUM] && gbs[M_SUM] > 0)
            printf("  %6.2f", gbs[m] / gbs[M_SUM]);
        else
            printf("  %6s", "-");
    if (read_gbs > 0 && read2_gbs > 0 && ok[M_SUM] && ok[M_DOT])
        printf("  %6.2f  %6.2f", gbs[M_SUM] / read_gbs,
               gbs[M_DOT] / read2_gbs);
    printf("\n");
}

static int sb__bench_is_half(sb_type t)
{
    return t == SB_F16 || t == SB_BF16;
}

static int one_type(int json, sb_type type, sb_type acc, int log2_n,
                    unsigned repeat, bench_device *devs, size_t dev_count)
{
    const size_t n = (size_t)1 << log2_n, bytes = n * sb_type_size(type);
    unsigned char *x = bench_alloc_data(bytes), *y = bench_alloc_data(bytes);
    if (x == NULL || y == NULL) {
        cli_error("bench", "maps: out of memory for 2 x 2^%d %s", log2_n,
                  sb_type_name(type));
        bench_free_data(x, bytes);
        bench_free_data(y, bytes);
        return -1;
    }
    unsigned char *mask = bench_alloc_data(n);
    if (mask == NULL) {
        cli_error("bench", "maps: out of memory for a mask of 2^%d", log2_n);
        bench_free_data(x, bytes);
        bench_free_data(y, bytes);
        return -1;
    }
    bench_fill(x, type, SB_SUM, n);
    bench_fill(y, type, SB_SUM, n);
    for (size_t i = 0; i < n; i++)
        mask[i] = i % 7 != 3;
    /* "f16" for a half type into f32 (and f32, f64 into themselves),
     * "f16>f16" for one into itself, "type>acc" for anything else. */
    char tname[24];
    if ((acc == SB_F32 && type != SB_F32) ||
        (acc == type && !sb__bench_is_half(type)))
        snprintf(tname, sizeof tname, "%s", sb_type_name(type));
    else
        snprintf(tname, sizeof tname, "%s>%s", sb_type_name(type),
                 sb_type_name(acc));
    double best[M_COUNT];
    int ok[M_COUNT];
    maps_arg a = { .type = type, .x = x, .y = y, .mask = mask, .n = n,
                   .threads = 1, .acc = acc };
    fprintf(stderr, "bench: maps %s host\n", tname);
    const double read = read_seconds(x, bytes, repeat);
    const double read2 = bench_read_pair_best(x, y, bytes, repeat);
    time_methods(&a, repeat, best, ok);
    report(json, tname, "host1", bytes, read, read2, best, ok);
    a.threads = 0;
    time_methods(&a, repeat, best, ok);
    report(json, tname, "host", bytes, 0, 0, best, ok);
    for (size_t d = 0; d < dev_count; d++) {
        if (devs[d].mode_flags != 0 || devs[d].float_mode != 0)
            continue;                  /* the default mode only */
        if (type == SB_F64 && devs[d].caps.type_status[SB_F64] != SB_OK)
            continue;
        cl_int err = CL_SUCCESS;
        a.dev = &devs[d];
        a.xb = clCreateBuffer(devs[d].cl_ctx, CL_MEM_READ_ONLY
                              | CL_MEM_COPY_HOST_PTR, bytes, x, &err);
        a.yb = a.xb == NULL ? NULL
             : clCreateBuffer(devs[d].cl_ctx, CL_MEM_READ_ONLY
                              | CL_MEM_COPY_HOST_PTR, bytes, y, &err);
        a.maskb = a.yb == NULL ? NULL
             : clCreateBuffer(devs[d].cl_ctx, CL_MEM_READ_ONLY
                              | CL_MEM_COPY_HOST_PTR, n, mask, &err);
        if (a.maskb != NULL) {
            fprintf(stderr, "bench: maps %s %s\n", tname, devs[d].label);
            time_methods(&a, repeat, best, ok);
            report(json, tname, devs[d].label, bytes, 0, 0, best, ok);
        } else {
            fprintf(stderr, "bench: maps: %s: no buffers of 2^%d %s (%s)\n",
                    devs[d].label, log2_n, tname, cli_cl_error_name(err));
        }
        if (a.maskb != NULL)
            clReleaseMemObject(a.maskb);
        if (a.yb != NULL)
            clReleaseMemObject(a.yb);
        if (a.xb != NULL)
            clReleaseMemObject(a.xb);
    }
    bench_free_data(x, bytes);
    bench_free_data(y, bytes);
    bench_free_data(mask, n);
    return 0;
}

int bench_maps(int json, int log2_n, unsigned repeat, bench_device *devs,
               size_t dev_count)
{
    if (!json)
        printf("\n5. maps, dot products, masks and NaN skipping at 2^%d "
               "elements (GB/s of input read, best of %u, taking turns; a "
               "dot product reads two arrays, a masked sum counts x alone "
               "(6 in 7 take part), nansum is SB_SKIP_NAN over data with "
               "no NaN; f16 and bf16 into an f32 accumulator, then as "
               "t>t into their own; f32>f64, f16>f64 and bf16>f64 into f64; "
               "i32 into i64 and f64, where nansum is refused: no NaN)\n\n"
               "type       where     read   read2     sum     abs  square"
               "     dot  masked  nansum  abs/sum sq/sum dot/sum mask/sum "
               "nan/sum sum/read dot/read2\n",
               log2_n, repeat);
    static const struct { sb_type type, acc; } rows[] = {
        { SB_F32, SB_F32 }, { SB_F64, SB_F64 }, { SB_F16, SB_F32 },
        { SB_BF16, SB_F32 }, { SB_F16, SB_F16 }, { SB_BF16, SB_BF16 },
        { SB_F32, SB_F64 }, { SB_F16, SB_F64 }, { SB_BF16, SB_F64 },
        { SB_I32, SB_I64 }, { SB_I32, SB_F64 } };
    for (size_t t = 0; t < sizeof rows / sizeof *rows; t++)
        if (one_type(json, rows[t].type, rows[t].acc, log2_n, repeat, devs,
                     dev_count) != 0)
            return -1;
    return 0;
}
