/* bench_batched.c: part 6 of `samebits bench` (--batched): many
 * reductions in one call (sb_reduce_batched_host, and sb_reduce_batched on
 * each device) against the read of the same bytes.
 *
 * One f32 matrix of about 2^S elements (S: the largest of --sizes), in
 * two shapes: rows of 1000 (about 2^S / 1000 of them) and 1000 rows of
 * about 2^S / 1000. Of each shape, the row sums (elem_stride 1,
 * batch_stride the row length) and the column sums (elem_stride the row
 * length, batch_stride 1: host_columns.c's panels), on 1 thread
 * (SAMEBITS_THREADS=1) and on every thread, each next to the fastest read
 * of the matrix on as many threads; methods take turns, best of
 * --repeat. Then 1000
 * rows of 16 (and 1000 columns of 16) in one call, per reduction, against
 * one sb_reduce_host() call of 16 elements. Then, on each device (its
 * default float mode, SB_OPT_NO_HOST), the same matrix in a cl_mem: row
 * and column sums by sb_reduce_batched, next to the device's read kernel
 * over the same buffer; and 1000 rows (columns) of 16 in one call with
 * the default options against one sb_reduce() of 16. Last, the same
 * array cut into segments (bench_segments.c). */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samebits.h"

enum { B_ROWS, B_COLS, B_COUNT };
static const char *const method_names[B_COUNT] = { "rows", "columns" };

/* A rows x cols row-major matrix: the row sums or the column sums. */
static sb_status run_shape(const float *x, size_t rows, size_t cols, int m,
                           float *results, sb_status *statuses)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    if (m == B_ROWS)
        return sb_reduce_batched_host(r, x, NULL, cols, 1, rows,
                                      (ptrdiff_t)cols, results, statuses);
    return sb_reduce_batched_host(r, x, NULL, rows, (ptrdiff_t)cols, cols, 1,
                                  results, statuses);
}

static double best_of(const float *x, size_t rows, size_t cols, int m,
                      unsigned repeat, float *results, sb_status *statuses,
                      int *ok)
{
    double best = 0;
    *ok = run_shape(x, rows, cols, m, results, statuses) == SB_OK;
    if (!*ok) {
        fprintf(stderr, "bench: batched %s: %s\n", method_names[m],
                sb_error_detail());
        return 0;
    }
    for (unsigned i = 0; i < repeat; i++) {
        const double t0 = cli_now();
        (void)run_shape(x, rows, cols, m, results, statuses);
        const double t = cli_now() - t0;
        if (i == 0 || t < best)
            best = t;
    }
    bench_sink_f32 = results[0];
    return best;
}

/* One shape: the read on 1 and on every thread, then rows and columns on
 * 1 and every thread, each held to the read on as many threads. */
static void one_shape(int json, const float *x, size_t rows, size_t cols,
                      unsigned repeat, const bench_threads_env *env,
                      float *results, sb_status *statuses)
{
    const size_t bytes = rows * cols * sizeof(float);
    fprintf(stderr, "bench: batched %zu x %zu\n", rows, cols);
    bench_threads_set(env, 0);
    const double read[2] = {
        bench_read_best(x, bytes, cli_default_threads(), repeat),
        bench_read_best(x, bytes, 1, repeat),
    };
    double best[2][B_COUNT];
    int ok[2][B_COUNT];
    for (int one = 1; one >= 0; one--) {
        bench_threads_set(env, one);
        for (int m = 0; m < B_COUNT; m++)
            best[one][m] = best_of(x, rows, cols, m, repeat, results,
                                   statuses, &ok[one][m]);
    }
    bench_threads_set(env, 0);
    for (int m = 0; m < B_COUNT; m++)
        for (int one = 1; one >= 0; one--) {
            if (!ok[one][m])
                continue;
            const double read_gbs = read[one] > 0
                                  ? (double)bytes / read[one] * 1e-9 : 0;
            const double gbs = best[one][m] > 0
                             ? (double)bytes / best[one][m] * 1e-9 : 0;
            const double ratio = read_gbs > 0 ? gbs / read_gbs : 0;
            if (json)
                printf("{\"part\":\"batched\",\"rows\":%zu,\"cols\":%zu,"
                       "\"sums\":\"%s\",\"where\":\"%s\",\"ms\":%.3f,"
                       "\"gbs\":%.3f,\"read_gbs\":%.3f,\"over_read\":%.3f}\n",
                       rows, cols, method_names[m], one ? "host1" : "host",
                       best[one][m] * 1e3, gbs, read_gbs, ratio);
            else
                printf("%7zu x %-7zu  %-7s  %-5s  %8.2f  %6.1f  %6.1f  %6.2f\n",
                       rows, cols, method_names[m], one ? "host1" : "host",
                       best[one][m] * 1e3, gbs, read_gbs, ratio);
        }
}

/* 1000 reductions of 16 in one call against one call of 16. */
static void short_reductions(int json, unsigned repeat,
                             const bench_threads_env *env, float *results,
                             sb_status *statuses)
{
    enum { COUNT = 1000, N = 16 };
    static float x[COUNT * N];
    bench_fill(x, SB_F32, SB_SUM, COUNT * N);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    bench_threads_set(env, 1);
    double single = 0, best[B_COUNT] = { 0 };
    float out = 0;
    for (unsigned i = 0; i < repeat; i++) {
        const double t0 = cli_now();
        unsigned failed = 0;
        for (int k = 0; k < COUNT; k++)
            failed += sb_reduce_host(r, x + k * N, NULL, N, &out) != SB_OK;
        bench_sink_u64 = failed;
        const double t = (cli_now() - t0) / COUNT;
        if (i == 0 || t < single)
            single = t;
        for (int m = 0; m < B_COUNT; m++) {
            /* rows of 16, or 16 rows of COUNT: the sums of its columns */
            const size_t rows = m == B_ROWS ? COUNT : N;
            const size_t cols = m == B_ROWS ? N : COUNT;
            const double t1 = cli_now();
            (void)run_shape(x, rows, cols, m, results, statuses);
            const double tm = (cli_now() - t1) / COUNT;
            if (i == 0 || tm < best[m])
                best[m] = tm;
        }
    }
    bench_threads_set(env, 0);
    bench_sink_f32 = out + results[0];
    for (int m = 0; m < B_COUNT; m++) {
        const double ratio = best[m] > 0 ? single / best[m] : 0;
        if (json)
            printf("{\"part\":\"batched\",\"count\":%d,\"n\":%d,"
                   "\"sums\":\"%s\",\"ns_per_reduction\":%.1f,"
                   "\"ns_per_call\":%.1f,\"call_over_batched\":%.2f}\n",
                   COUNT, N, method_names[m], best[m] * 1e9, single * 1e9,
                   ratio);
        else
            printf("%d %s of %d: %.1f ns each in one call; one "
                   "sb_reduce_host of %d: %.1f ns (%.1fx)\n", COUNT,
                   m == B_ROWS ? "rows" : "columns", N, best[m] * 1e9, N,
                   single * 1e9, ratio);
    }
}

/* A rows x cols row-major matrix in a cl_mem: its row or column sums on
 * the device. */
static sb_status run_device_shape(bench_device *b, cl_mem x, size_t rows,
                                  size_t cols, int m, float *results,
                                  sb_status *statuses)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    if (m == B_ROWS)
        return sb_reduce_batched(b->sb, b->queue, r, x, 0, NULL, 0, cols, 1,
                                 rows, (ptrdiff_t)cols, results, statuses);
    return sb_reduce_batched(b->sb, b->queue, r, x, 0, NULL, 0, rows,
                             (ptrdiff_t)cols, cols, 1, results, statuses);
}

/* Both shapes on one device: the read kernel, rows, columns, taking
 * turns, best of `repeat`. Returns 0, or -1 after a message. */
static int device_shapes(int json, bench_device *b, const float *x,
                         size_t other, size_t length, unsigned repeat,
                         float *results, sb_status *statuses)
{
    const size_t bytes = other * length * sizeof(float);
    cl_int err = CL_SUCCESS;
    cl_mem xb = clCreateBuffer(b->cl_ctx, CL_MEM_READ_ONLY
                               | CL_MEM_COPY_HOST_PTR, bytes, (void *)x,
                               &err);
    if (xb == NULL) {
        cli_error("bench", "%s: batched: clCreateBuffer of %zu bytes: %s",
                  b->label, bytes, cli_cl_error_name(err));
        return -1;
    }
    int rc = 0;
    for (int shape = 0; shape < 2 && rc == 0; shape++) {
        const size_t rows = shape == 0 ? other : length;
        const size_t cols = shape == 0 ? length : other;
        fprintf(stderr, "bench: batched %zu x %zu on %s\n", rows, cols,
                b->label);
        double read = 0, best[B_COUNT] = { 0 };
        for (unsigned i = 0; i <= repeat && rc == 0; i++) {
            /* Sample 0 warms up (kernel builds) and is not counted. */
            if (bench_device_read_sample(b, xb, bytes, i, &read) != 0) {
                rc = -1;
                break;
            }
            double t0, t;
            for (int m = 0; m < B_COUNT; m++) {
                t0 = cli_now();
                const sb_status s = run_device_shape(b, xb, rows, cols, m,
                                                     results, statuses);
                t = cli_now() - t0;
                if (s != SB_OK) {
                    cli_error("bench", "%s: sb_reduce_batched %s: %s",
                              b->label, method_names[m], sb_error_detail());
                    rc = -1;
                    break;
                }
                if (i == 1 || (i > 1 && t < best[m]))
                    best[m] = t;
            }
        }
        bench_sink_f32 = results[0];
        const double read_gbs = read > 0 ? (double)bytes / read * 1e-9 : 0;
        for (int m = 0; m < B_COUNT && rc == 0; m++) {
            const double gbs = best[m] > 0 ? (double)bytes / best[m] * 1e-9
                                           : 0;
            const double ratio = read_gbs > 0 ? gbs / read_gbs : 0;
            if (json)
                printf("{\"part\":\"batched\",\"rows\":%zu,\"cols\":%zu,"
                       "\"sums\":\"%s\",\"where\":\"%s\",\"ms\":%.3f,"
                       "\"gbs\":%.3f,\"read_gbs\":%.3f,\"over_read\":%.3f}\n",
                       rows, cols, method_names[m], b->label, best[m] * 1e3,
                       gbs, read_gbs, ratio);
            else
                printf("%7zu x %-7zu  %-7s  %-5s  %8.2f  %6.1f  %6.1f  %6.2f\n",
                       rows, cols, method_names[m], b->label, best[m] * 1e3,
                       gbs, read_gbs, ratio);
        }
    }
    clReleaseMemObject(xb);
    return rc;
}

/* 1000 rows of 16 (and 1000 columns of 16) in a cl_mem, in one
 * sb_reduce_batched() call on the device's default context, against one
 * sb_reduce() of 16 elements on it (a command round trip: the host
 * shortcut reads them back), best of `repeat` after a warm-up. */
static int device_short_reductions(int json, bench_device *b,
                                   unsigned repeat, float *results,
                                   sb_status *statuses)
{
    enum { COUNT = 1000, N = 16 };
    static float x[COUNT * N];
    bench_fill(x, SB_F32, SB_SUM, COUNT * N);
    cl_int err = CL_SUCCESS;
    cl_mem xb = clCreateBuffer(b->cl_ctx, CL_MEM_READ_ONLY
                               | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    if (xb == NULL) {
        cli_error("bench", "%s: batched: clCreateBuffer: %s", b->label,
                  cli_cl_error_name(err));
        return -1;
    }
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    double single = 0, best[B_COUNT] = { 0 };
    int rc = 0;
    for (unsigned i = 0; i <= repeat && rc == 0; i++) {
        double t0 = cli_now();
        sb_status s = sb_reduce(b->sb_default, b->queue, r, xb, 0, NULL, 0,
                                N, results);
        double t = cli_now() - t0;
        if (i == 1 || (i > 1 && t < single))
            single = t;
        for (int m = 0; m < B_COUNT && s == SB_OK; m++) {
            const size_t rows = m == B_ROWS ? COUNT : N;
            const size_t cols = m == B_ROWS ? N : COUNT;
            t0 = cli_now();
            s = m == B_ROWS
              ? sb_reduce_batched(b->sb_default, b->queue, r, xb, 0, NULL, 0,
                                  cols, 1, rows, (ptrdiff_t)cols, results,
                                  statuses)
              : sb_reduce_batched(b->sb_default, b->queue, r, xb, 0, NULL, 0,
                                  rows, (ptrdiff_t)cols, cols, 1, results,
                                  statuses);
            t = (cli_now() - t0) / COUNT;
            if (i == 1 || (i > 1 && t < best[m]))
                best[m] = t;
        }
        if (s != SB_OK) {
            cli_error("bench", "%s: short reductions: %s", b->label,
                      sb_error_detail());
            rc = -1;
        }
    }
    bench_sink_f32 = results[0];
    for (int m = 0; m < B_COUNT && rc == 0; m++) {
        const double ratio = best[m] > 0 ? single / best[m] : 0;
        if (json)
            printf("{\"part\":\"batched\",\"where\":\"%s\",\"count\":%d,"
                   "\"n\":%d,\"sums\":\"%s\",\"ns_per_reduction\":%.1f,"
                   "\"ns_per_call\":%.1f,\"call_over_batched\":%.2f}\n",
                   b->label, COUNT, N, method_names[m], best[m] * 1e9,
                   single * 1e9, ratio);
        else
            printf("%s: %d %s of %d: %.1f ns each in one call; one "
                   "sb_reduce of %d: %.1f ns (%.1fx)\n", b->label, COUNT,
                   m == B_ROWS ? "rows" : "columns", N, best[m] * 1e9, N,
                   single * 1e9, ratio);
    }
    clReleaseMemObject(xb);
    return rc;
}

int bench_batched(int json, int log2_n, unsigned repeat, bench_device *devs,
                  size_t dev_count)
{
    const size_t total = (size_t)1 << log2_n;
    const size_t length = 1000;
    const size_t other = (total + length - 1) / length;
    const size_t bytes = other * length * sizeof(float);
    float *x = bench_alloc_data(bytes);
    float *results = malloc((other > 1000 ? other : 1000) * sizeof *results);
    sb_status *statuses = malloc((other > 1000 ? other : 1000)
                                 * sizeof *statuses);
    if (x == NULL || results == NULL || statuses == NULL) {
        cli_error("bench", "batched: out of memory for 2^%d f32", log2_n);
        bench_free_data(x, bytes);
        free(results);
        free(statuses);
        return -1;
    }
    bench_fill(x, SB_F32, SB_SUM, other * length);
    bench_threads_env env;
    bench_threads_save(&env);
    if (!json)
        printf("\n6. many f32 sums in one call (sb_reduce_batched_host) at "
               "about 2^%d elements (best of %u, taking turns; host1: "
               "SAMEBITS_THREADS=1; read: the fastest read on as many "
               "threads)\n\n"
               "   rows x cols     sums     where        ms    GB/s    read"
               "  /read\n", log2_n, repeat);
    one_shape(json, x, other, length, repeat, &env, results, statuses);
    one_shape(json, x, length, other, repeat, &env, results, statuses);
    if (!json)
        printf("\n");
    short_reductions(json, repeat, &env, results, statuses);
    int rc = 0;
    if (dev_count > 0 && !json)
        printf("\n   rows x cols     sums     where        ms    GB/s    read"
               "  /read   (sb_reduce_batched on the device; read: its read "
               "kernel over the same cl_mem)\n");
    for (size_t d = 0; d < dev_count && rc == 0; d++) {
        if (devs[d].mode_flags != 0 || devs[d].float_mode != 0)
            continue;                /* the default float mode only */
        rc = device_shapes(json, &devs[d], x, other, length, repeat, results,
                           statuses);
        if (rc == 0)
            rc = device_short_reductions(json, &devs[d], repeat, results,
                                         statuses);
    }
    if (rc == 0)
        rc = bench_segments(json, x, other * length, repeat, &env, devs,
                            dev_count);
    bench_free_data(x, bytes);
    free(results);
    free(statuses);
    return rc;
}
