/* bench_segments.c: the segments of part 6 of `samebits bench`
 * (--batched): sb_reduce_segments_host, and sb_reduce_segments on each
 * device, over the f32 array the rest of the part uses, cut four ways:
 *   - "of 1000": segments of 1000 elements, the rows of part 6's first
 *     matrix given as offsets;
 *   - "skewed": 10^5 segments of 10, then one long segment holding the
 *     rest but for 10^5 more of 10 after it (the one long segment
 *     among many short ones, which must not hold them up);
 *   - "ragged": lengths 1 to 40 drawn at random (a fixed sequence), as a
 *     graph's neighbour lists or a batch of sentences cut them;
 *   - "mixed": lengths 1 to 1000 drawn the same way (documents, a
 *     power-law graph's longer lists), which no run of equal lengths
 *     and no few leaves' spread covers: the host sorts them into length
 *     classes.
 * Each on 1 thread (SAMEBITS_THREADS=1) and on every thread next to the
 * fastest read of the same bytes on as many threads, and on each device
 * (its default options: runs of short segments mapped and reduced on the
 * host, long ones launched) next to its read kernel over the same
 * cl_mem; methods take turns, best of --repeat. */
#include "bench.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "samebits.h"

enum { SHORT_COUNT = 100000, SHORT_N = 10, UNIFORM_N = 1000, CUTS = 4,
       RAGGED_MOST = 40, MIXED_MOST = 1000 };

typedef struct {
    const char *name;
    uint64_t   *offsets;   /* count + 1 */
    size_t      count;
} cut;

/* The lengths of a random cut: 1 to `most`, a fixed sequence (an LCG),
 * the last cut to end at n. With offsets NULL, only counts them. */
static size_t random_cut(size_t n, uint64_t most, uint64_t *offsets)
{
    uint64_t state = 0x9E3779B97F4A7C15u, at = 0;
    size_t count = 0;
    while (at < n) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint64_t len = 1 + (state >> 33) % most;
        if (len > n - at)
            len = n - at;
        if (offsets != NULL)
            offsets[count] = at;
        at += len;
        count++;
    }
    if (offsets != NULL)
        offsets[count] = at;
    return count;
}

/* The cuts of n elements (n >= 2 * SHORT_COUNT * SHORT_N + 1), or -1
 * when memory is short. */
static int cuts_make(size_t n, cut cuts[CUTS])
{
    const size_t uniform = n / UNIFORM_N;
    cuts[0] = (cut){ "of 1000", malloc((uniform + 1) * sizeof(uint64_t)),
                     uniform };
    cuts[1] = (cut){ "skewed", malloc((2 * SHORT_COUNT + 2)
                                      * sizeof(uint64_t)),
                     2 * SHORT_COUNT + 1 };
    const size_t ragged = random_cut(n, RAGGED_MOST, NULL);
    cuts[2] = (cut){ "ragged", malloc((ragged + 1) * sizeof(uint64_t)),
                     ragged };
    const size_t mixed = random_cut(n, MIXED_MOST, NULL);
    cuts[3] = (cut){ "mixed", malloc((mixed + 1) * sizeof(uint64_t)),
                     mixed };
    for (int k = 0; k < CUTS; k++)
        if (cuts[k].offsets == NULL)
            return -1;
    random_cut(n, RAGGED_MOST, cuts[2].offsets);
    random_cut(n, MIXED_MOST, cuts[3].offsets);
    for (size_t b = 0; b <= uniform; b++)
        cuts[0].offsets[b] = (uint64_t)b * UNIFORM_N;
    uint64_t *o = cuts[1].offsets;
    for (size_t b = 0; b <= SHORT_COUNT; b++)
        o[b] = (uint64_t)b * SHORT_N;
    const uint64_t long_end = n - (uint64_t)SHORT_COUNT * SHORT_N;
    for (size_t b = 0; b <= SHORT_COUNT; b++)
        o[SHORT_COUNT + 1 + b] = long_end + (uint64_t)b * SHORT_N;
    return 0;
}

static void print_line(int json, const cut *c, const char *where,
                       double seconds, size_t bytes, double read)
{
    const double gbs = seconds > 0 ? (double)bytes / seconds * 1e-9 : 0;
    const double read_gbs = read > 0 ? (double)bytes / read * 1e-9 : 0;
    const double ratio = read_gbs > 0 ? gbs / read_gbs : 0;
    if (json)
        printf("{\"part\":\"batched\",\"segments\":\"%s\",\"count\":%zu,"
               "\"where\":\"%s\",\"ms\":%.3f,\"gbs\":%.3f,\"read_gbs\":%.3f,"
               "\"over_read\":%.3f}\n", c->name, c->count, where,
               seconds * 1e3, gbs, read_gbs, ratio);
    else
        printf("%7zu %-9s  %-7s  %-5s  %8.2f  %6.1f  %6.1f  %6.2f\n",
               c->count, "segments", c->name, where, seconds * 1e3, gbs,
               read_gbs, ratio);
}

/* Best of `repeat` host calls, or 0 after a message on a failure. */
static double host_best(const float *x, const cut *c, unsigned repeat,
                        float *results, sb_status *statuses)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    double best = 0;
    for (unsigned i = 0; i <= repeat; i++) {   /* call 0 warms up */
        const double t0 = cli_now();
        if (sb_reduce_segments_host(r, x, NULL, c->offsets, c->count,
                                    results, statuses) != SB_OK) {
            cli_error("bench", "segments %s: %s", c->name,
                      sb_error_detail());
            return 0;
        }
        const double t = cli_now() - t0;
        if (i == 1 || (i > 1 && t < best))
            best = t;
    }
    bench_sink_f32 = results[0];
    return best;
}

static int on_host(int json, const float *x, size_t n,
                   const cut cuts[CUTS],
                   unsigned repeat, const bench_threads_env *env,
                   float *results, sb_status *statuses)
{
    const size_t bytes = n * sizeof(float);
    bench_threads_set(env, 0);
    const double read[2] = {
        bench_read_best(x, bytes, cli_default_threads(), repeat),
        bench_read_best(x, bytes, 1, repeat),
    };
    for (int k = 0; k < CUTS; k++)
        for (int one = 1; one >= 0; one--) {
            bench_threads_set(env, one);
            const double t = host_best(x, &cuts[k], repeat, results,
                                       statuses);
            bench_threads_set(env, 0);
            if (t == 0)
                return -1;
            print_line(json, &cuts[k], one ? "host1" : "host", t, bytes,
                       read[one]);
        }
    return 0;
}

/* Both cuts on one device: the read kernel and each cut with the default
 * options (short segments on the host) and with SB_OPT_NO_HOST (the
 * segments kernel), taking turns. */
static int on_device(int json, bench_device *b, const float *x, size_t n,
                     const cut cuts[CUTS], unsigned repeat, float *results,
                     sb_status *statuses)
{
    const size_t bytes = n * sizeof(float);
    cl_int err = CL_SUCCESS;
    cl_mem xb = clCreateBuffer(b->cl_ctx, CL_MEM_READ_ONLY
                               | CL_MEM_COPY_HOST_PTR, bytes, (void *)x,
                               &err);
    cl_mem ob[CUTS] = { NULL };
    for (int k = 0; k < CUTS && xb != NULL && err == CL_SUCCESS; k++)
        ob[k] = clCreateBuffer(b->cl_ctx, CL_MEM_READ_ONLY
                               | CL_MEM_COPY_HOST_PTR,
                               (cuts[k].count + 1) * sizeof(uint64_t),
                               cuts[k].offsets, &err);
    int rc = 0;
    bool made = xb != NULL;
    for (int k = 0; k < CUTS; k++)
        made = made && ob[k] != NULL;
    if (!made) {
        cli_error("bench", "%s: segments: clCreateBuffer: %s", b->label,
                  cli_cl_error_name(err));
        rc = -1;
    }
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    double read = 0, best[CUTS][2] = { { 0, 0 } };
    for (unsigned i = 0; i <= repeat && rc == 0; i++) {
        /* Sample 0 warms up (kernel builds) and is not counted. */
        if (bench_device_read_sample(b, xb, bytes, i, &read) != 0) {
            rc = -1;
            break;
        }
        for (int k = 0; k < 2 * CUTS && rc == 0; k++) {
            sb_context *ctx = k % 2 == 0 ? b->sb_default : b->sb;
            const double t0 = cli_now();
            if (sb_reduce_segments(ctx, b->queue, r, xb, 0, NULL, 0,
                                   ob[k / 2], 0, cuts[k / 2].count, results,
                                   statuses) != SB_OK) {
                cli_error("bench", "%s: sb_reduce_segments %s: %s", b->label,
                          cuts[k / 2].name, sb_error_detail());
                rc = -1;
            }
            const double t = cli_now() - t0;
            double *bt = &best[k / 2][k % 2];
            if (i == 1 || (i > 1 && t < *bt))
                *bt = t;
        }
    }
    bench_sink_f32 = results[0];
    char kernel_label[sizeof b->label + 1];
    snprintf(kernel_label, sizeof kernel_label, "%sk", b->label);
    for (int k = 0; k < CUTS && rc == 0; k++) {
        print_line(json, &cuts[k], b->label, best[k][0], bytes, read);
        print_line(json, &cuts[k], kernel_label, best[k][1], bytes, read);
    }
    for (int k = 0; k < CUTS; k++)
        if (ob[k] != NULL)
            clReleaseMemObject(ob[k]);
    if (xb != NULL)
        clReleaseMemObject(xb);
    return rc;
}

int bench_segments(int json, const float *x, size_t n, unsigned repeat,
                   const bench_threads_env *env, bench_device *devs,
                   size_t dev_count)
{
    if (n < 2 * (size_t)SHORT_COUNT * SHORT_N + UNIFORM_N)
        return 0;   /* too few elements for the skewed cut */
    cut cuts[CUTS] = { { 0 } };
    int rc = cuts_make(n, cuts) != 0 ? -1 : 0;
    size_t most = 0;
    for (int k = 0; k < CUTS; k++)
        if (cuts[k].count > most)
            most = cuts[k].count;
    float *results = malloc(most * sizeof *results);
    sb_status *statuses = malloc(most * sizeof *statuses);
    rc = rc != 0 || results == NULL || statuses == NULL ? -1 : 0;
    if (rc != 0)
        cli_error("bench", "segments: out of memory");
    fprintf(stderr, "bench: segments\n");
    if (rc == 0 && !json)
        printf("\n  count   segments  cut      where        ms    GB/s    "
               "read  /read   (sb_reduce_segments_host; on a device "
               "sb_reduce_segments, default options, and devNk with "
               "SB_OPT_NO_HOST: the segments kernel; over its read kernel)"
               "\n");
    if (rc == 0)
        rc = on_host(json, x, n, cuts, repeat, env, results, statuses);
    for (size_t d = 0; d < dev_count && rc == 0; d++) {
        if (devs[d].mode_flags != 0 || devs[d].float_mode != 0)
            continue;                /* the default float mode only */
        rc = on_device(json, &devs[d], x, n, cuts, repeat, results,
                       statuses);
    }
    for (int k = 0; k < CUTS; k++)
        free(cuts[k].offsets);
    free(results);
    free(statuses);
    return rc;
}
