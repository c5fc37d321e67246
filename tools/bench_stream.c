/* bench_stream.c: part 4 of `samebits bench` (--stream): what reducing in
 * pieces through sb_partial costs next to one call over the same array.
 *
 * An f32 sum of n = 2^S elements (S: the largest of --sizes): on the host,
 * sb_reduce_host() over the whole array, then sb_partial_add_host() of
 * consecutive pieces of 2^14 ... 2^24 elements and one finish; on each
 * device, sb_reduce() over the whole cl_mem, then sb_partial_add() of
 * pieces of 2^20, 2^22 and 2^24 of the same cl_mem (each piece one
 * aligned subtree: one launch and one blocking read each). The one call
 * and the pieces take turns, best of --repeat samples. Then the partial's
 * size and the cost of one sb_partial_merge(). Every piece run's bits are
 * compared with the one call's; a difference is reported as an error. */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "samebits.h"

typedef struct {
    const float  *x;
    size_t        n, piece;
    bench_device *dev;        /* NULL: the host */
    cl_mem        buf;
} stream_arg;

static sb_status one_call(const stream_arg *a, float *out)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    if (a->dev == NULL)
        return sb_reduce_host(r, a->x, NULL, a->n, out);
    return sb_reduce(a->dev->sb, NULL, r, a->buf, 0, NULL, 0, a->n, out);
}

static sb_status in_pieces(const stream_arg *a, float *out)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    sb_partial p;
    sb_status s = sb_partial_init(&p, r, 0);
    for (size_t at = 0; s == SB_OK && at < a->n; at += a->piece) {
        const size_t k = a->n - at < a->piece ? a->n - at : a->piece;
        s = a->dev == NULL ? sb_partial_add_host(&p, a->x + at, NULL, k)
                           : sb_partial_add(a->dev->sb, NULL, &p, a->buf, at,
                                            NULL, 0, k);
    }
    return s == SB_OK ? sb_partial_finish(&p, out) : s;
}

/* Best seconds of the one call and of the pieces, taking turns. */
static int time_both(const stream_arg *a, unsigned repeat, double *one,
                     double *pieces)
{
    float want = 0, got = 0;
    if (one_call(a, &want) != SB_OK || in_pieces(a, &got) != SB_OK) {
        cli_error("bench", "stream: %s", sb_error_detail());
        return -1;
    }
    if (memcmp(&want, &got, sizeof want) != 0) {
        cli_error("bench", "stream: pieces of %zu gave other bits than one "
                  "call: a bug, please report it", a->piece);
        return -1;
    }
    *one = *pieces = 0;
    for (unsigned i = 0; i < repeat; i++) {
        double t = cli_now();
        (void)one_call(a, &want);
        t = cli_now() - t;
        if (i == 0 || t < *one)
            *one = t;
        t = cli_now();
        (void)in_pieces(a, &got);
        t = cli_now() - t;
        if (i == 0 || t < *pieces)
            *pieces = t;
    }
    bench_sink_f32 = want + got;
    return 0;
}

static void report(int json, const char *where, size_t n, size_t piece,
                   double one, double pieces)
{
    const double bytes = 4.0 * (double)n;
    if (json)
        printf("{\"part\":\"stream\",\"where\":\"%s\",\"n\":%zu,\"piece\":%zu,"
               "\"one_call_gbs\":%.3f,\"pieces_gbs\":%.3f,\"ratio\":%.3f}\n",
               where, n, piece, bytes / one * 1e-9, bytes / pieces * 1e-9,
               one / pieces);
    else
        printf("%-6s  2^%-2d  %14.2f  %14.2f  %8.2f\n", where,
               __builtin_ctzll((unsigned long long)piece), bytes / one * 1e-9,
               bytes / pieces * 1e-9, one / pieces);
}

/* Nanoseconds per sb_partial_merge() of two partials with nodes at every
 * level (cut at an odd position of a 2^20-element array). */
static double merge_cost(const float *x)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    const size_t n = (size_t)1 << 20, cut = 333331;
    sb_partial left, right, work;
    if (sb_partial_init(&left, r, 0) != SB_OK
            || sb_partial_add_host(&left, x, NULL, cut) != SB_OK
            || sb_partial_init(&right, r, cut) != SB_OK
            || sb_partial_add_host(&right, x + cut, NULL, n - cut) != SB_OK)
        return -1;
    unsigned count = 0;
    const double t0 = cli_now();
    double t = t0;
    do {
        memcpy(&work, &left, sizeof work);
        if (sb_partial_merge(&work, &right) != SB_OK)
            return -1;
        count++;
        t = cli_now();
    } while (t - t0 < 0.05);
    return (t - t0) / count * 1e9;
}

int bench_stream(int json, int log2_n, unsigned repeat, bench_device *devs,
                 size_t dev_count)
{
    const size_t n = (size_t)1 << log2_n;
    float *x = bench_alloc_data(n * sizeof *x);
    if (x == NULL) {
        cli_error("bench", "stream: out of memory for 2^%d f32", log2_n);
        return -1;
    }
    bench_fill(x, SB_F32, SB_SUM, n);
    if (!json)
        printf("\n4. f32 sum of 2^%d elements in one call and in pieces "
               "through sb_partial (GB/s, best of %u, taking turns)\n\n"
               "where   piece   one call GB/s  in pieces GB/s  pieces/one\n",
               log2_n, repeat);
    int rc = 0;
    for (int lg = 14; rc == 0 && lg <= 24 && lg <= log2_n; lg += 2) {
        const stream_arg a = { .x = x, .n = n, .piece = (size_t)1 << lg };
        double one, pieces;
        fprintf(stderr, "bench: stream host 2^%d\n", lg);
        rc = time_both(&a, repeat, &one, &pieces);
        if (rc == 0)
            report(json, "host", n, a.piece, one, pieces);
    }
    for (size_t d = 0; rc == 0 && d < dev_count; d++) {
        if (devs[d].mode_flags != 0 || devs[d].float_mode != 0)
            continue;                  /* the default mode only */
        cl_int err = CL_SUCCESS;
        cl_mem buf = clCreateBuffer(devs[d].cl_ctx, CL_MEM_READ_ONLY
                                    | CL_MEM_COPY_HOST_PTR, n * sizeof *x, x,
                                    &err);
        if (buf == NULL) {
            fprintf(stderr, "bench: stream: %s: no buffer of 2^%d f32 (%s)\n",
                    devs[d].label, log2_n, cli_cl_error_name(err));
            continue;
        }
        for (int lg = 20; rc == 0 && lg <= 24 && lg <= log2_n; lg += 2) {
            const stream_arg a = { .x = x, .n = n, .piece = (size_t)1 << lg,
                                   .dev = &devs[d], .buf = buf };
            double one, pieces;
            fprintf(stderr, "bench: stream %s 2^%d\n", devs[d].label, lg);
            rc = time_both(&a, repeat, &one, &pieces);
            if (rc == 0)
                report(json, devs[d].label, n, a.piece, one, pieces);
        }
        clReleaseMemObject(buf);
    }
    if (rc == 0) {
        const double ns = merge_cost(x);
        if (json)
            printf("{\"part\":\"stream\",\"partial_bytes\":%zu,"
                   "\"merge_ns\":%.0f}\n", sizeof(sb_partial), ns);
        else
            printf("\nan sb_partial is %zu bytes; one sb_partial_merge() "
                   "(cut at an odd position of 2^20) takes %.0f ns\n",
                   sizeof(sb_partial), ns);
    }
    bench_free_data(x, n * sizeof *x);
    return rc;
}
