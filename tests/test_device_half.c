/* tests/test_device_half.c: f16 and bf16 inputs on every device present,
 * bit for bit (memcmp of whole result buffers) and status for status
 * against sb_reduce_host() / sb_dot_host() and tests/oracle.c, whose half
 * arithmetic shares nothing with the library's.
 *
 *   - sb_reduce (twice) and sb_reduce_enqueue for f16 and bf16 into f32,
 *     f64 and the type itself: every op, the maps abs and square,
 *     SB_SKIP_NAN; sizes around the leaf, powers of two +-1, a few
 *     thousands and about 10^5 (POCL; Oclgrind, a simulator, the small
 *     sizes only, once each); the half data families of
 *     support.h (cancellation, +-inf, NaNs, +-0, subnormals, huge values
 *     whose sums overflow, NaN-only leaves) and every mask kind (whole
 *     leaves empty among them). Two contexts per device: SB_OPT_NO_HOST
 *     with the device's shape, and host_max_n = 64 with four leaves per
 *     item (a GPU's folds); and the widest items the options allow
 *     (128 leaves and nodes per item) on a subset;
 *   - sb_dot and sb_dot_enqueue (the record's value is 2 bytes for a half
 *     accumulator, the rest of it untouched);
 *   - sb_partial_add / sb_partial_add_dot pieces at random cuts, merged
 *     with host pieces;
 *   - the float modes: guarded f32, software f64 and a flushing device
 *     (SB_OPT_FLUSH_SUBNORMALS), where the binary32 steps of a half
 *     accumulator and the bf16 subnormals must still be exact; a few
 *     hand-derived subnormal results on each.
 * rusticl (RUSTICL_ENABLE=llvmpipe), when present, is a flushing device
 * without fp64 and runs the medium sizes. The seed is printed
 * (SAMEBITS_TEST_SEED replays it). SAMEBITS_TEST_PART=2 runs
 * float_modes_match_host_and_oracle alone (the portable stage's, since it
 * builds the other modes' programs), =1 everything else; unset: all. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "device_support.h"
#include "oracle.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { X_PAD = 3, Y_PAD = 5, M_PAD = 7, MAX_PIECES = 8 };

static uint64_t seed;

/* ------------------------------------------------------------------------
 * What runs
 * ---------------------------------------------------------------------- */

#define R(op_, in_, acc_, flags_, map_) \
    { .op = SB_##op_, .input = SB_##in_, .accumulator = acc_, \
      .flags = flags_, .map = SB_MAP_##map_ }

/* Per half type: every op into the type itself, f32 and f64, the maps and
 * SB_SKIP_NAN (each a program of its own). */
#define HALF_JOBS(T)                                                      \
    R(SUM, T, 0, 0, NONE), R(SUM, T, SB_F32, 0, NONE),                    \
    R(SUM, T, SB_F64, 0, NONE), R(PROD, T, 0, 0, NONE),                   \
    R(PROD, T, SB_F32, 0, NONE), R(PROD, T, SB_F64, 0, NONE),             \
    R(MIN, T, 0, 0, NONE), R(MIN, T, SB_F32, 0, NONE),                    \
    R(MAX, T, 0, 0, NONE), R(MAX, T, SB_F64, 0, NONE),                    \
    R(ANY, T, 0, 0, NONE), R(ALL, T, 0, 0, NONE),                         \
    R(SUM, T, 0, 0, ABS), R(SUM, T, 0, 0, SQUARE),                        \
    R(MAX, T, 0, 0, ABS), R(SUM, T, SB_F32, 0, SQUARE),                   \
    R(PROD, T, SB_F64, 0, ABS), R(SUM, T, 0, SB_SKIP_NAN, NONE),          \
    R(MIN, T, 0, SB_SKIP_NAN, NONE), R(SUM, T, SB_F32, SB_SKIP_NAN, NONE), \
    R(ANY, T, 0, SB_SKIP_NAN, NONE), R(PROD, T, 0, SB_SKIP_NAN, SQUARE)

static const sb_reduction jobs[] = { HALF_JOBS(F16), HALF_JOBS(BF16) };

static const sb_reduction dots[] = {
    R(SUM, F16, 0, 0, NONE), R(SUM, F16, SB_F32, 0, NONE),
    R(SUM, BF16, 0, 0, NONE), R(SUM, BF16, SB_F64, 0, NONE),
    R(SUM, F16, 0, SB_SKIP_NAN, NONE), R(SUM, BF16, SB_F32, SB_SKIP_NAN, NONE),
};

/* The float modes' subset: where a mode changes the code. */
static const sb_reduction mode_jobs[] = {
    R(SUM, F16, 0, 0, NONE), R(SUM, BF16, 0, 0, NONE),
    R(PROD, BF16, 0, 0, NONE), R(SUM, BF16, SB_F32, 0, NONE),
    R(PROD, BF16, SB_F32, 0, NONE), R(MIN, BF16, SB_F32, 0, NONE),
    R(SUM, F16, SB_F64, 0, NONE), R(PROD, BF16, SB_F64, 0, NONE),
    R(SUM, BF16, 0, 0, SQUARE), R(MAX, F16, 0, 0, ABS),
    R(ANY, BF16, 0, 0, NONE), R(SUM, F16, 0, SB_SKIP_NAN, NONE),
};

static const size_t pocl_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    1023, 1024, 1025, 4095, 4096, 4097, 100003,
};
static const size_t small_sizes[] = { 0, 1, 15, 16, 17, 31, 32, 33, 65 };

/* rusticl is slower (flushing, software f64): no 10^5 there. */
static bool slow_device(const test_device *d)
{
    return strstr(d->name, "rusticl") != NULL;
}

/* The half families worth running for `op`, in turn. */
static half_family family_for(sb_op op, size_t at)
{
    static const half_family sum[] = {
        HALF_RANDOM_BITS, HALF_MODERATE, HALF_CANCELLATION, HALF_SUBNORMAL,
        HALF_HUGE, HALF_SPECIALS, HALF_SIGNED_ZEROS, HALF_NAN_LEAVES,
        HALF_OVERFLOW_EDGE };
    static const half_family prod[] = {
        HALF_MODERATE, HALF_PROD_EDGE, HALF_SUBNORMAL, HALF_HUGE,
        HALF_SPECIALS, HALF_NEAR_ONE };
    static const half_family order[] = {
        HALF_RANDOM_BITS, HALF_SUBNORMAL, HALF_SPECIALS, HALF_SIGNED_ZEROS,
        HALF_HUGE, HALF_NAN_LEAVES, HALF_NAN_LED };
    static const half_family boolean[] = {
        HALF_SIGNED_ZEROS, HALF_SUBNORMAL, HALF_SPECIALS, HALF_RANDOM_BITS };
    switch (op) {
    case SB_SUM:  return sum[at % COUNT(sum)];
    case SB_PROD: return prod[at % COUNT(prod)];
    case SB_MIN:
    case SB_MAX:  return order[at % COUNT(order)];
    default:      return boolean[at % COUNT(boolean)];
    }
}

static void print_job(FILE *out, sb_reduction r, bool dot)
{
    fprintf(out, "%s%s %s->%s map %d flags 0x%x", dot ? "dot " : "",
            op_name(r.op), type_name(r.input), type_name(r.accumulator),
            (int)r.map, r.flags);
}

/* ------------------------------------------------------------------------
 * Reductions: sb_reduce and sb_reduce_enqueue
 * ---------------------------------------------------------------------- */

static bool check_reduction(const device_context *dc, sb_reduction r,
                            size_t n, half_family f, mask_kind mk,
                            unsigned runs, sb_status *oracle_status)
{
    const test_case c = make_case(seed, r, n, mk, FAMILY_UNIFORM);
    uint16_t *x = checked_malloc(n * 2 + 2);
    fill_half(f, r.input, x, n, c.case_seed);
    unsigned char *mask = make_mask(mk, n, mix_seed(c.case_seed, 2));
    const bool ok = check_data_on_device(dc, &c, x, mask, runs,
                                         oracle_status);
    if (!ok)
        fprintf(stderr, "  (half family %s)\n", half_family_name(f));
    free(mask);
    free(x);
    return ok;
}

/* Every job at every size, families and masks in turn (half the cases
 * unmasked, so that the fast folds run). */
static int run_jobs(const device_context *dc, const sb_reduction *list,
                    size_t count, size_t every, const size_t *sizes,
                    size_t size_count, unsigned reps, unsigned runs,
                    tally *t)
{
    int failures = 0;
    for (size_t k = 0; k < count; k += every)
        for (size_t s = 0; s < size_count; s++)
            for (unsigned rep = 0; rep < reps; rep++) {
                /* Sparse (SAMEBITS_TEST_SPARSE): one of the two, in
                 * turn; by s / 2, since (k + s) % 2 chose only even
                 * families (at is 7k + 3s + rep) and two masks. */
                if (dc->dev->sparse && rep != (k + s / 2) % reps)
                    continue;
                const size_t at = k * 7 + s * 3 + rep;
                const mask_kind mk = rep == 0 ? MASK_NONE
                    : (mask_kind)(1 + (k + s) % (MASK_COUNT - 1));
                sb_status os;
                const bool ok = check_reduction(dc, list[k], sizes[s],
                                                family_for(list[k].op, at),
                                                mk, runs, &os);
                failures += !ok;
                tally_add(t, os, ok);
            }
    return failures;
}

static void half_reductions_match_host_and_oracle(void **state)
{
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o[2] = {
            { .flags = SB_OPT_NO_HOST },
            { .host_max_n = 64, .leaves_per_item = 4 },
        };
        for (size_t c = 0; c < 2; c++) {
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &o[c]), SB_OK);
            tally t = { 0 };
            if (dev->oclgrind) {
                keep_buffers();
                failures += run_jobs(&dc, jobs, COUNT(jobs), c == 0 ? 1 : 5,
                                     small_sizes, COUNT(small_sizes), 1,
                                     c == 0 ? RUN_BOTH : RUN_REDUCE, &t);
                release_kept_buffers();
            } else {
                failures += run_jobs(&dc, jobs, COUNT(jobs), 1, pocl_sizes,
                                     COUNT(pocl_sizes) -
                                     (c == 1 || slow_device(dev) ? 1 : 0),
                                     2, c == 0 ? RUN_BOTH : RUN_REDUCE, &t);
            }
            printf("%s, context %zu: ", dev->name, c);
            print_tally("half reductions", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* The widest work-items the options allow (samebits.h, sb_options), on
 * the device alone. */
static const sb_options widest_items = { .flags = SB_OPT_NO_HOST,
                                         .leaves_per_item = 128,
                                         .nodes_per_item = 128 };

/* The widest work-items the options allow (128 leaves and nodes per
 * item: samebits.h, sb_options), on sizes that fill one or two of them:
 * the folds' longest unrolled loops. rusticl's compiler got the f16
 * conversion's normalising loop wrong there only (an f16 sum of 4097
 * masked f16 elements: 0x2380 for 0xbc7d); the other contexts never
 * built such a program. */
static void widest_items_match_host_and_oracle(void **state)
{
    static const size_t sizes[] = { 2047, 2048, 4097, 8193 };
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &widest_items),
                         SB_OK);
        tally t = { 0 };
        if (dev->oclgrind)
            keep_buffers();
        failures += run_jobs(&dc, mode_jobs, COUNT(mode_jobs),
                             dev->oclgrind ? 3 : 1, sizes,
                             dev->oclgrind ? 2 : COUNT(sizes), 2, RUN_REDUCE,
                             &t);
        if (dev->oclgrind)
            release_kept_buffers();
        printf("%s, 128 leaves per item: ", dev->name);
        print_tally("half reductions", &t);
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

/* Masks that empty whole aligned runs of 16 leaves and of 128
 * (MASK_EMPTY_RUNS) beside runs that are not empty, on sizes of many
 * such runs, in items of 128 leaves (the default on a CPU device, where
 * the work-groups are enough to spread; fixed here, so that small sizes
 * and many cores keep it): a CPU device folds a masked or NaN-skipping
 * sum's 16 leaves in vector lanes, a half accumulator's 8 runs of them
 * at once, and takes a run or a set of runs with no element taking part
 * another way. A random mask almost never empties 16 leaves in a row,
 * and an all-zero one empties every run. Oclgrind runs the same kernels
 * in the widest items above; not here, for its time, nor rusticl, whose
 * llvmpipe never folds in lanes (src/device_programs.c). */
static void masks_emptying_runs_match_host_and_oracle(void **state)
{
    static const sb_reduction runs_jobs[] = {
        R(SUM, F16, 0, 0, NONE), R(SUM, BF16, 0, 0, NONE),
        R(SUM, F16, 0, SB_SKIP_NAN, NONE), R(SUM, BF16, 0, SB_SKIP_NAN, NONE),
        R(SUM, F16, 0, 0, SQUARE), R(SUM, BF16, 0, 0, ABS),
        R(SUM, F16, SB_F32, 0, NONE), R(SUM, BF16, SB_F64, SB_SKIP_NAN, NONE),
        R(MIN, F16, SB_F32, 0, NONE), R(MAX, BF16, 0, SB_SKIP_NAN, NONE),
    };
    static const size_t sizes[] = { 3 * 2048 + 17, 100003 };
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        if (dev->oclgrind || slow_device(dev))
            continue;
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &widest_items),
                         SB_OK);
        tally t = { 0 };
        for (size_t k = 0; k < COUNT(runs_jobs); k++)
            for (size_t s = 0; s < COUNT(sizes); s++) {
                sb_status os;
                const bool ok = check_reduction(
                    &dc, runs_jobs[k], sizes[s],
                    family_for(runs_jobs[k].op, k * 2 + s), MASK_EMPTY_RUNS,
                    RUN_BOTH, &os);
                failures += !ok;
                tally_add(&t, os, ok);
            }
        printf("%s, masks emptying runs of leaves: ", dev->name);
        print_tally("half reductions", &t);
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------
 * Dot products: sb_dot and sb_dot_enqueue
 * ---------------------------------------------------------------------- */

/* One case's data: x, y and the mask, on the host and in padded buffers. */
typedef struct {
    size_t         n;
    uint16_t      *x, *y;
    unsigned char *mask;
    cl_mem         xb, yb, mb;
} half_data;

static half_data make_half_data(const test_device *d, sb_type t, size_t n,
                                half_family f, mask_kind mk, uint64_t cs)
{
    half_data h = { n, checked_malloc(n * 2 + 2), checked_malloc(n * 2 + 2),
                    make_mask(mk, n, mix_seed(cs, 2)), NULL, NULL, NULL };
    fill_half(f, t, h.x, n, cs);
    /* The other factor from the moderate family now and then, so that
     * specials meet ordinary values. */
    fill_half(cs % 3 == 0 ? HALF_MODERATE : f, t, h.y, n, mix_seed(cs, 1));
    h.xb = padded_copy(d, h.x, n * 2, X_PAD * 2);
    h.yb = padded_copy(d, h.y, n * 2, Y_PAD * 2);
    if (h.mask)
        h.mb = padded_copy(d, h.mask, n, M_PAD);
    return h;
}

static void free_half_data(half_data *h)
{
    clReleaseMemObject(h->xb);
    clReleaseMemObject(h->yb);
    if (h->mb)
        clReleaseMemObject(h->mb);
    free(h->x);
    free(h->y);
    free(h->mask);
}

/* sb_dot twice and sb_dot_enqueue once against sb_dot_host and the
 * oracle. */
static bool check_dot(const device_context *dc, sb_reduction r, size_t n,
                      half_family f, mask_kind mk, uint64_t cs,
                      sb_status *oracle_status)
{
    const test_device *d = dc->dev;
    half_data h = make_half_data(d, r.input, n, f, mk, cs);
    unsigned char want[RESULT_BUFFER], host[RESULT_BUFFER];
    unsigned char got[2][RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(host, RESULT_SENTINEL, sizeof host);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status ws = oracle_dot(r, h.x, h.y, h.mask, n, want);
    const sb_status hs = sb_dot_host(r, h.x, h.y, h.mask, n, host);
    *oracle_status = ws;
    bool ok = hs == ws && memcmp(host, want, sizeof want) == 0;
    sb_status gs[2];
    for (int k = 0; k < 2; k++) {
        gs[k] = sb_dot(dc->ctx, NULL, r, h.xb, X_PAD, h.yb, Y_PAD, h.mb,
                       M_PAD, n, got[k]);
        ok = ok && gs[k] == ws && memcmp(got[k], want, sizeof want) == 0;
    }
    /* The record at byte 16 of a 48-byte buffer: its value's first
     * result-size bytes written, the rest of the buffer as it was. */
    unsigned char before[48], after[48];
    memset(before, RESULT_SENTINEL, sizeof before);
    cl_mem res = make_buffer(d, sizeof before, before);
    cl_event ev = NULL;
    const sb_status es = sb_dot_enqueue(dc->ctx, NULL, r, h.xb, X_PAD, h.yb,
                                        Y_PAD, h.mb, M_PAD, n, res, 16, 0,
                                        NULL, &ev);
    if (es == SB_OK) {
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
    }
    read_buffer(d, res, 0, sizeof after, after);
    clReleaseMemObject(res);
    const size_t rsize = oracle_result_size(r);
    int32_t status;
    memcpy(&status, after + 24, sizeof status);
    memcpy(before + 16, want, rsize);
    memcpy(before + 24, &status, sizeof status);
    ok = ok && es == SB_OK && status == (int32_t)ws &&
         memcmp(before, after, sizeof after) == 0;
    if (!ok) {
        fprintf(stderr, "MISMATCH %s: ", d->name);
        print_job(stderr, r, true);
        fprintf(stderr, " n=%zu family=%s mask=%s seed=0x%llx case=0x%llx\n",
                n, half_family_name(f), mask_name(mk),
                (unsigned long long)seed, (unsigned long long)cs);
        print_run("oracle", r, ws, want);
        print_run("host", r, hs, host);
        print_run("device#1", r, gs[0], got[0]);
        print_run("device#2", r, gs[1], got[1]);
        fprintf(stderr, "  enqueue %s, record status %d, value ",
                status_name(es), (int)status);
        print_result(stderr, r, after + 16);
        fprintf(stderr, " (%s)\n", sb_error_detail());
    }
    free_half_data(&h);
    return ok;
}

static void half_dots_match_host_and_oracle(void **state)
{
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
        if (dev->oclgrind)
            keep_buffers();
        const size_t *sizes = dev->oclgrind ? small_sizes : pocl_sizes;
        const size_t size_count = dev->oclgrind ? 6
            : COUNT(pocl_sizes) - (slow_device(dev) ? 1 : 0);
        tally t = { 0 };
        for (size_t k = 0; k < COUNT(dots); k += dev->oclgrind ? 2 : 1)
            for (size_t s = 0; s < size_count; s++) {
                const size_t at = k * 5 + s;
                const mask_kind mk = (mask_kind)(at % MASK_COUNT);
                const uint64_t cs = mix_seed(seed, 0xD07 + at * 1000003u);
                sb_status os;
                const bool ok = check_dot(&dc, dots[k], sizes[s],
                                          family_for(SB_SUM, at), mk, cs,
                                          &os);
                failures += !ok;
                tally_add(&t, os, ok);
            }
        if (dev->oclgrind)
            release_kept_buffers();
        printf("%s: ", dev->name);
        print_tally("half dot products", &t);
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------
 * Partials: sb_partial_add and sb_partial_add_dot
 * ---------------------------------------------------------------------- */

/* Pieces at random cuts: even ones added on the device to the running
 * partial, odd ones on the host into a partial of their own, merged. */
static bool check_partial(const device_context *dc, sb_reduction r, bool dot,
                          size_t n, half_family f, mask_kind mk, uint64_t cs)
{
    half_data h = make_half_data(dc->dev, r.input, n, f, mk, cs);
    unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status ws = dot ? oracle_dot(r, h.x, h.y, h.mask, n, want)
                             : oracle_reduce(r, h.x, h.mask, n, want);
    uint64_t rs = mix_seed(cs, 9);
    size_t cuts[MAX_PIECES + 1];
    const size_t k = (size_t)random_below(&rs, MAX_PIECES);
    random_cuts(&rs, n, k, cuts + 1);
    cuts[0] = 0;
    sb_partial p;
    sb_status s = sb_partial_init(&p, r, 0);
    for (size_t i = 0; i <= k && s == SB_OK; i++) {
        const size_t b = cuts[i], e = i == k ? n : cuts[i + 1];
        const unsigned char *m = h.mask ? h.mask + b : NULL;
        if (i % 2 == 0) {
            s = dot ? sb_partial_add_dot(dc->ctx, NULL, &p, h.xb, X_PAD + b,
                                         h.yb, Y_PAD + b, h.mb, M_PAD + b,
                                         e - b)
                    : sb_partial_add(dc->ctx, NULL, &p, h.xb, X_PAD + b, h.mb,
                                     M_PAD + b, e - b);
        } else {
            sb_partial q;
            s = sb_partial_init(&q, r, b);
            if (s == SB_OK)
                s = dot ? sb_partial_add_dot_host(&q, h.x + b, h.y + b, m,
                                                  e - b)
                        : sb_partial_add_host(&q, h.x + b, m, e - b);
            if (s == SB_OK)
                s = sb_partial_merge(&p, &q);
        }
    }
    if (s == SB_OK)
        s = sb_partial_finish(&p, got);
    const bool ok = s == ws && memcmp(got, want, sizeof want) == 0;
    if (!ok) {
        fprintf(stderr, "MISMATCH %s: partial ", dc->dev->name);
        print_job(stderr, r, dot);
        fprintf(stderr, " n=%zu pieces=%zu family=%s mask=%s seed=0x%llx "
                "case=0x%llx (%s)\n", n, k + 1, half_family_name(f),
                mask_name(mk), (unsigned long long)seed,
                (unsigned long long)cs, sb_error_detail());
        print_run("oracle", r, ws, want);
        print_run("pieces", r, s, got);
    }
    free_half_data(&h);
    return ok;
}

static void half_partials_match_the_oracle(void **state)
{
    const device_list *list = *state;
    static const sb_reduction rs[] = {
        R(SUM, F16, 0, 0, NONE), R(SUM, BF16, SB_F32, 0, NONE),
        R(PROD, BF16, 0, 0, NONE), R(MAX, F16, SB_F64, 0, NONE),
        R(MIN, BF16, 0, SB_SKIP_NAN, NONE), R(SUM, F16, 0, 0, SQUARE),
        R(ALL, F16, 0, 0, NONE),
    };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
        if (dev->oclgrind)
            keep_buffers();
        static const size_t big[] = { 40, 100, 1000, 5000 };
        static const size_t small[] = { 40, 100 };
        const size_t *sizes = dev->oclgrind ? small : big;
        const size_t size_count = dev->oclgrind ? COUNT(small) : COUNT(big);
        unsigned long cases = 0;
        for (size_t k = 0; k < COUNT(rs) + 2; k++)
            for (size_t s = 0; s < size_count; s++) {
                const bool dot = k >= COUNT(rs);
                const sb_reduction r = dot ? dots[(k - COUNT(rs)) * 2]
                                           : rs[k];
                const size_t at = k * 3 + s;
                const uint64_t cs = mix_seed(seed, 0xAA7 + at * 1000003u);
                failures += !check_partial(&dc, r, dot, sizes[s],
                                           family_for(r.op, at),
                                           (mask_kind)(at % MASK_COUNT), cs);
                cases++;
            }
        if (dev->oclgrind)
            release_kept_buffers();
        printf("%s: %lu half partials\n", dev->name, cases);
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

/* ------------------------------------------------------------------------
 * Float modes
 * ---------------------------------------------------------------------- */

static void float_modes_match_host_and_oracle(void **state)
{
    const device_list *list = *state;
    static const sb_options modes[] = {
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_GUARDED },
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_SOFTWARE },
        { .flags = SB_OPT_NO_HOST | SB_OPT_FLUSH_SUBNORMALS },
    };
    static const size_t sizes[] = { 1, 17, 64, 65, 200, 4097, 40000 };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        if (dev->oclgrind)
            continue;   /* slow; the other tests run it in its own modes */
        for (size_t m = 0; m < COUNT(modes); m++) {
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &modes[m]), SB_OK);
            tally t = { 0 };
            failures += run_jobs(&dc, mode_jobs, COUNT(mode_jobs), 1, sizes,
                                 COUNT(sizes), 2, RUN_BOTH, &t);
            printf("%s, mode %zu: ", dev->name, m);
            print_tally("half modes", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* Results worked out by hand, where a flushing binary32 step would be
 * wrong, on every device in its own modes and, but on Oclgrind, as a
 * flushing device. */
typedef struct {
    const char  *name;
    sb_reduction r;
    uint16_t     x[2];
    uint32_t     want;   /* result bits, little-endian, 2 or 4 bytes */
} subnormal_example;

static const subnormal_example subnormal_examples[] = {
    /* 2^-133 + 2^-133 = 2^-132: bf16 0x0002; in f32 0x00020000. */
    { "bf16 2^-133 + 2^-133", R(SUM, BF16, 0, 0, NONE), { 0x0001, 0x0001 },
      0x0002u },
    { "bf16 2^-133 + 2^-133 in f32", R(SUM, BF16, SB_F32, 0, NONE),
      { 0x0001, 0x0001 }, 0x00020000u },
    /* 2^-133 * 0.75 is above the midpoint 2^-134: 2^-133. */
    { "bf16 2^-133 * 0.75", R(PROD, BF16, 0, 0, NONE), { 0x0001, 0x3F40 },
      0x0001u },
    /* The smallest normal 2^-126 (0x0080) * 0.5 = 2^-127: bf16 0x0040. */
    { "bf16 2^-126 * 0.5", R(PROD, BF16, 0, 0, NONE), { 0x0080, 0x3F00 },
      0x0040u },
    /* max of a bf16 subnormal and +0: the subnormal (greater). */
    { "bf16 max(+0, 2^-133) in f32", R(MAX, BF16, SB_F32, 0, NONE),
      { 0x0000, 0x0001 }, 0x00010000u },
    /* f16 2^-24 + 2^-24 = 2^-23: 0x0002; in f32 2^-23 = 0x34000000. */
    { "f16 2^-24 + 2^-24", R(SUM, F16, 0, 0, NONE), { 0x0001, 0x0001 },
      0x0002u },
    { "f16 2^-24 + 2^-24 in f32", R(SUM, F16, SB_F32, 0, NONE),
      { 0x0001, 0x0001 }, 0x34000000u },
    /* 65504 + 16 = 65520, the midpoint to 2^16: inf. */
    { "f16 65504 + 16", R(SUM, F16, 0, 0, NONE), { 0x7BFF, 0x4C00 },
      0x7C00u },
};

static void subnormal_steps_are_exact_everywhere(void **state)
{
    const device_list *list = *state;
    unsigned wrong = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        for (int flush = 0; flush <= !dev->oclgrind; flush++) {
            const sb_options o = { .flags = SB_OPT_NO_HOST |
                                   (flush ? SB_OPT_FLUSH_SUBNORMALS : 0u) };
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
            for (size_t k = 0; k < COUNT(subnormal_examples); k++) {
                const subnormal_example *e = &subnormal_examples[k];
                cl_mem xb = make_buffer(dev, sizeof e->x, e->x);
                unsigned char got[RESULT_BUFFER], host[RESULT_BUFFER];
                unsigned char want[RESULT_BUFFER];
                memset(got, RESULT_SENTINEL, sizeof got);
                memset(host, RESULT_SENTINEL, sizeof host);
                memset(want, RESULT_SENTINEL, sizeof want);
                const size_t rsize = oracle_result_size(e->r);
                for (size_t i = 0; i < rsize; i++)
                    want[i] = (unsigned char)(e->want >> (8 * i));
                const sb_status hs = sb_reduce_host(e->r, e->x, NULL, 2,
                                                    host);
                const sb_status gs = sb_reduce(dc.ctx, NULL, e->r, xb, 0,
                                               NULL, 0, 2, got);
                clReleaseMemObject(xb);
                if (hs != SB_OK || gs != SB_OK ||
                    memcmp(host, want, sizeof want) != 0 ||
                    memcmp(got, want, sizeof want) != 0) {
                    wrong++;
                    fprintf(stderr, "%s%s: %s: host %s %02x%02x%02x%02x, "
                            "device %s %02x%02x%02x%02x, want 0x%x\n",
                            dev->name, flush ? " (flushing)" : "", e->name,
                            status_name(hs), host[3], host[2], host[1],
                            host[0], status_name(gs), got[3], got[2], got[1],
                            got[0], (unsigned)e->want);
                }
            }
            device_context_close(&dc);
        }
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    seed = test_seed(0x4841F16BF16ULL);
    const struct CMUnitTest own_modes[] = {
        cmocka_unit_test(subnormal_steps_are_exact_everywhere),
        cmocka_unit_test(half_reductions_match_host_and_oracle),
        cmocka_unit_test(widest_items_match_host_and_oracle),
        cmocka_unit_test(masks_emptying_runs_match_host_and_oracle),
        cmocka_unit_test(half_dots_match_host_and_oracle),
        cmocka_unit_test(half_partials_match_the_oracle),
    };
    const struct CMUnitTest other_modes[] = {
        cmocka_unit_test(float_modes_match_host_and_oracle),
    };
    int failed = 0;
    if (test_part_runs(1))
        failed += cmocka_run_group_tests_name("device_half", own_modes,
                                              device_list_setup,
                                              device_list_teardown);
    if (test_part_runs(2))
        failed += cmocka_run_group_tests_name("device_half_float_modes",
                                              other_modes, device_list_setup,
                                              device_list_teardown);
    return failed;
}
