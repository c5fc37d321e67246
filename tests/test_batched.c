/* tests/test_batched.c: sb_reduce_batched_host() and
 * sb_reduce_segments_host(), many reductions in one call, each checked bit
 * for bit (memcmp) and status for status against sb_reduce_host() AND
 * oracle_reduce() of its own elements and mask bytes gathered into one
 * array (docs/order.md: a batch is that many independent reductions).
 *
 *   - rows, columns, negative, zero and mixed strides, for sums, products,
 *     min, max, any, all over integer, float and half types, with maps,
 *     SB_WRAP and SB_SKIP_NAN, at sizes around leaves, blocks and powers
 *     of two, n = 0 included, with masks that empty whole leaves and
 *     whole rows;
 *   - checked i32 sums at the type's limits where some rows overflow and
 *     others do not, and min/max rows where nothing takes part (SB_EMPTY)
 *     beside rows with a value; the results of rows without a value are
 *     untouched;
 *   - every call on SAMEBITS_THREADS 1 and 2, and with SAMEBITS_ISA naming
 *     each other instruction set this CPU runs (main() prints which it
 *     cannot): the bits equal;
 *   - a row of about 10^5 and one past the threading threshold (rows,
 *     columns), 1000 rows of 16;
 *   - rows side by side (host_kernels.c's rows folds): float sums and
 *     products, 1 to 70001 elements, counts around the vector lanes,
 *     tight, padded, negative and zero batch strides;
 *   - columns (the panels of host_columns.c): 1 to 1000 columns around
 *     vector and panel edges, 20000 columns (two heap panels), 0 to 4097
 *     rows, batch strides 1, 2 and -1, rows of the
 *     tight length and longer, every op over integer, float and half
 *     types, masks that empty leaves of some columns and whole columns,
 *     overflow in some columns only, min/max columns with nothing taking
 *     part;
 *   - segments: random offsets with empty segments, one long segment
 *     among many short ones, runs of equal lengths (side by side),
 *     offsets[0] > 0; ragged lengths, close (side by side too) and mixed
 *     (side by side by length class), around leaf edges, with NaNs and
 *     signed zeros, the last segment's end at an unreadable page;
 *   - refusals: SB_INVALID_ARGUMENT with a detail, and the results and
 *     statuses buffers untouched; count == 0 writes nothing.
 *
 * Seeded (printed at start; SAMEBITS_TEST_SEED replays a run). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <unistd.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { STATUS_SENTINEL = 0x5A };

static uint64_t seed;

/* ------------------------------------------------------------------------
 * Data
 * ---------------------------------------------------------------------- */

/* Half elements: random bit patterns, mostly finite values of moderate
 * exponent, with infinities, NaNs, zeros and subnormals sprinkled. */
static void fill_half_mixed(sb_type t, uint16_t *x, size_t n, uint64_t s)
{
    const unsigned exp_shift = t == SB_F16 ? 10 : 7;
    const unsigned exp_max = t == SB_F16 ? 31 : 255;
    const unsigned bias = t == SB_F16 ? 15 : 127;
    for (size_t i = 0; i < n; i++) {
        const uint64_t r = splitmix64(&s);
        unsigned e = bias - 4 + (unsigned)(r % 9);
        const unsigned special = (unsigned)((r >> 8) % 64);
        if (special == 0) e = exp_max;          /* inf or NaN */
        else if (special == 1) e = 0;           /* zero or subnormal */
        const unsigned frac = (unsigned)(r >> 16) & ((1u << exp_shift) - 1);
        const unsigned sign = (unsigned)(r >> 40) & 1u;
        x[i] = (uint16_t)((sign << 15) | (e << exp_shift) | frac);
    }
}

static void fill(sb_reduction r, data_family f, void *x, size_t n,
                 uint64_t s)
{
    if (r.input == SB_F16 || r.input == SB_BF16)
        fill_half_mixed(r.input, x, n, s);
    else
        fill_data(f, r.input, r.accumulator, x, n, s);
}

static size_t result_size(sb_reduction r)
{
    return sb_result_size(r);
}

/* ------------------------------------------------------------------------
 * The check of one call against its rows
 * ---------------------------------------------------------------------- */

/* What a call saw, for tests that need a mix of answers. */
typedef struct {
    unsigned long ok, empty, overflow;
} seen_statuses;

/* Compares reduction b of a call (results, statuses) with sb_reduce_host()
 * and oracle_reduce() of the gathered row g (gmask may be NULL). */
static unsigned long compare_row(const char *what, sb_reduction r, size_t b,
                                 const unsigned char *g,
                                 const unsigned char *gmask, size_t n,
                                 const unsigned char *results,
                                 const sb_status *statuses,
                                 seen_statuses *seen)
{
    const size_t rs = result_size(r);
    unsigned char want[RESULT_BUFFER], oracle[RESULT_BUFFER];
    unsigned char sentinel[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(oracle, RESULT_SENTINEL, sizeof oracle);
    memset(sentinel, RESULT_SENTINEL, sizeof sentinel);
    const sb_status ws = sb_reduce_host(r, g, gmask, n, want);
    const sb_status os = oracle_reduce(r, g, gmask, n, oracle);
    const unsigned char *got = results + b * rs;
    bool ok = statuses[b] == ws && ws == os
           && bits_equal(want, oracle, RESULT_BUFFER);
    if (ok)
        ok = bits_equal(got, ws == SB_OK ? want : sentinel, rs);
    if (seen != NULL) {
        seen->ok += statuses[b] == SB_OK;
        seen->empty += statuses[b] == SB_EMPTY;
        seen->overflow += statuses[b] == SB_OVERFLOW;
    }
    if (ok)
        return 0;
    fprintf(stderr, "%s: %s %s->%s map %d flags %u, reduction %zu of n = "
            "%zu:\n", what, op_name(r.op), type_name(r.input),
            type_name(r.accumulator), (int)r.map, r.flags, b, n);
    print_run("got", r, statuses[b], got);
    print_run("sb_reduce_host", r, ws, want);
    print_run("oracle", r, os, oracle);
    return 1;
}

/* One call on SAMEBITS_THREADS = `threads`, into sentinel-filled buffers
 * (caller's), which it returns the status of. */
static void set_threads(unsigned threads)
{
    char text[16];
    snprintf(text, sizeof text, "%u", threads);
    setenv("SAMEBITS_THREADS", text, 1);
}

/* One host call of the test: a batch (offsets NULL) or segments. */
typedef struct {
    sb_reduction r;
    const unsigned char *x, *mask;
    size_t n;            /* a batch's row length */
    ptrdiff_t es, bs;    /* a batch's strides */
    const uint64_t *offsets;
    size_t count;
} host_call;

static sb_status run_call(const host_call *c, unsigned char *results,
                          sb_status *statuses)
{
    if (c->offsets != NULL)
        return sb_reduce_segments_host(c->r, c->x, c->mask, c->offsets,
                                       c->count, results, statuses);
    return sb_reduce_batched_host(c->r, c->x, c->mask, c->n, c->es, c->count,
                                  c->bs, results, statuses);
}

/* When not 0, check_calls_agree() also runs each call on this many threads. */
static unsigned extra_threads;

/* The instruction sets the host folds are built for (host_isa.c). */
static const unsigned other_isas[] = { SB_ISA_BASELINE, SB_ISA_AVX2,
                                       SB_ISA_AVX512 };

/* The call once more, into results[1] / statuses[1] (sentinel-filled),
 * on `threads` threads and, when isa is not NULL, with SAMEBITS_ISA
 * naming it (the caller's value restored after): true when the call
 * succeeds and agrees bit for bit with results[0] / statuses[0]. */
static bool rerun_agrees(const host_call *c, unsigned threads,
                         const char *isa, unsigned char *results[2],
                         sb_status *statuses[2])
{
    const size_t rs = result_size(c->r);
    memset(results[1], RESULT_SENTINEL, c->count * rs);
    memset(statuses[1], STATUS_SENTINEL, c->count * sizeof(sb_status));
    set_threads(threads);
    const char *had = getenv("SAMEBITS_ISA");
    char saved[32] = "";
    if (had != NULL)
        snprintf(saved, sizeof saved, "%s", had);
    if (isa != NULL)
        setenv("SAMEBITS_ISA", isa, 1);
    const sb_status s = run_call(c, results[1], statuses[1]);
    if (had != NULL)
        setenv("SAMEBITS_ISA", saved, 1);
    else
        unsetenv("SAMEBITS_ISA");
    unsetenv("SAMEBITS_THREADS");
    return s == SB_OK &&
           bits_equal(results[0], results[1], c->count * rs) &&
           bits_equal(statuses[0], statuses[1],
                      c->count * sizeof(sb_status));
}

static void free_runs(unsigned char *results[2], sb_status *statuses[2])
{
    for (int k = 0; k < 2; k++) {
        free(results[k]);
        free(statuses[k]);
    }
}

/* Runs the call on 1 and 2 threads with the widest instruction set, on 2
 * threads with each other one this CPU runs (and on extra_threads), into
 * results[0] / statuses[0] (allocated here, freed by the caller unless
 * *failed) and checks the calls agree bit for bit. @return the number of
 * disagreements, or count + 1 with *failed set (nothing left allocated)
 * when a first call fails. */
static unsigned long run_everywhere(const char *what, const host_call *c,
                                    unsigned char *results[2],
                                    sb_status *statuses[2], bool *failed)
{
    *failed = false;
    const size_t rs = result_size(c->r);
    for (int k = 0; k < 2; k++) {
        results[k] = checked_malloc(c->count * rs + 1);
        statuses[k] = checked_malloc(c->count * sizeof(sb_status) + 1);
    }
    for (int k = 0; k < 2; k++) {
        memset(results[k], RESULT_SENTINEL, c->count * rs);
        memset(statuses[k], STATUS_SENTINEL, c->count * sizeof(sb_status));
        set_threads((unsigned)k + 1);
        const sb_status s = run_call(c, results[k], statuses[k]);
        if (s != SB_OK) {
            fprintf(stderr, "%s: the call returned %s (%s)\n", what,
                    status_name(s), sb_error_detail());
            unsetenv("SAMEBITS_THREADS");
            free_runs(results, statuses);
            *failed = true;
            return c->count + 1;
        }
        assert_string_equal(sb_error_detail(), "");
    }
    unsetenv("SAMEBITS_THREADS");
    unsigned long wrong = 0;
    if (!bits_equal(results[0], results[1], c->count * rs) ||
        !bits_equal(statuses[0], statuses[1],
                    c->count * sizeof(sb_status))) {
        fprintf(stderr, "%s: threads 1 and 2 differ\n", what);
        wrong++;
    }
    for (size_t i = 0; i < COUNT(other_isas); i++) {
        if (sb_host_isa_check(other_isas[i]) != SB_OK ||
            other_isas[i] == sb_host_isa(NULL))
            continue;
        if (!rerun_agrees(c, 2, sb_isa_name(other_isas[i]), results,
                          statuses)) {
            fprintf(stderr, "%s: %s differs from %s\n", what,
                    sb_isa_name(other_isas[i]), sb_isa_name(sb_host_isa(NULL)));
            wrong++;
        }
    }
    if (extra_threads != 0 &&
        !rerun_agrees(c, extra_threads, NULL, results, statuses)) {
        fprintf(stderr, "%s: %u threads differ from 1\n", what,
                extra_threads);
        wrong++;
    }
    return wrong;
}

/* Runs the batch everywhere (run_everywhere()), then checks every row.
 * @return the number of wrong rows. */
static unsigned long check_batched(const char *what, sb_reduction r,
                                   const unsigned char *x,
                                   const unsigned char *mask, size_t n,
                                   ptrdiff_t es, size_t count, ptrdiff_t bs,
                                   seen_statuses *seen)
{
    const host_call c = { r, x, mask, n, es, bs, NULL, count };
    const size_t size = type_size(r.input);
    unsigned char *results[2];
    sb_status *statuses[2];
    bool failed;
    unsigned long wrong = run_everywhere(what, &c, results, statuses,
                                         &failed);
    if (failed)
        return wrong;
    unsigned char *g = checked_malloc(n * size + 1);
    unsigned char *gmask = mask ? checked_malloc(n + 1) : NULL;
    for (size_t b = 0; b < count; b++) {
        for (size_t i = 0; i < n; i++) {
            const ptrdiff_t at = (ptrdiff_t)b * bs + (ptrdiff_t)i * es;
            memcpy(g + i * size, x + at * (ptrdiff_t)size, size);
            if (mask)
                gmask[i] = mask[at];
        }
        wrong += compare_row(what, r, b, g, gmask, n, results[0],
                             statuses[0], seen);
    }
    free(g);
    free(gmask);
    free_runs(results, statuses);
    return wrong;
}

/* Runs the segments everywhere (run_everywhere()), then checks every
 * segment. @return the number of wrong segments. */
static unsigned long check_segments(const char *what, sb_reduction r,
                                    const unsigned char *x,
                                    const unsigned char *mask,
                                    const uint64_t *offsets, size_t count,
                                    seen_statuses *seen)
{
    const host_call c = { r, x, mask, 0, 0, 0, offsets, count };
    const size_t size = type_size(r.input);
    unsigned char *results[2];
    sb_status *statuses[2];
    bool failed;
    unsigned long wrong = run_everywhere(what, &c, results, statuses,
                                         &failed);
    if (failed)
        return wrong;
    for (size_t b = 0; b < count; b++) {
        const size_t n = (size_t)(offsets[b + 1] - offsets[b]);
        wrong += compare_row(what, r, b, x + offsets[b] * size,
                             mask ? mask + offsets[b] : NULL, n, results[0],
                             statuses[0], seen);
    }
    free_runs(results, statuses);
    return wrong;
}

/* ------------------------------------------------------------------------
 * Shapes
 * ---------------------------------------------------------------------- */

typedef enum {
    SHAPE_ROWS,          /* elem_stride 1, batch_stride n + 3 */
    SHAPE_COLUMNS,       /* elem_stride count + 1, batch_stride 1 */
    SHAPE_NEGATIVE_ROWS, /* elem_stride -1, batch_stride -(n + 2) */
    SHAPE_NEGATIVE_COLUMNS, /* elem_stride -(count + 2), batch_stride -1 */
    SHAPE_ZERO_ELEM,     /* elem_stride 0: one element n times per row */
    SHAPE_ZERO_BATCH,    /* batch_stride 0: every row the same */
    SHAPE_MIXED,         /* elem_stride 2, batch_stride -3: overlapping */
    SHAPE_COUNT
} shape;

static const char *const shape_names[SHAPE_COUNT] = {
    "rows", "columns", "negative rows", "negative columns",
    "zero elem_stride", "zero batch_stride", "mixed"
};

static void strides_of(shape sh, size_t n, size_t count, ptrdiff_t *es,
                       ptrdiff_t *bs)
{
    switch (sh) {
    case SHAPE_ROWS:       *es = 1; *bs = (ptrdiff_t)n + 3; break;
    case SHAPE_COLUMNS:    *es = (ptrdiff_t)count + 1; *bs = 1; break;
    case SHAPE_NEGATIVE_ROWS: *es = -1; *bs = -((ptrdiff_t)n + 2); break;
    case SHAPE_NEGATIVE_COLUMNS:
        *es = -((ptrdiff_t)count + 2); *bs = -1; break;
    case SHAPE_ZERO_ELEM:  *es = 0; *bs = 1; break;
    case SHAPE_ZERO_BATCH: *es = 1; *bs = 0; break;
    default:               *es = 2; *bs = -3; break;
    }
}

/* A buffer that holds every element of a batch, and where element (0, 0)
 * is in it. */
typedef struct {
    unsigned char *data, *mask;   /* mask NULL for MASK_NONE */
    size_t         below, total;  /* elements */
} batch_buffer;

static size_t magnitude(ptrdiff_t v) { return v < 0 ? (size_t)-v : (size_t)v; }

static batch_buffer make_batch(sb_reduction r, data_family f, mask_kind mk,
                               size_t n, ptrdiff_t es, size_t count,
                               ptrdiff_t bs, uint64_t s)
{
    batch_buffer bb = { 0 };
    size_t below = 0, above = 0;
    if (n > 0 && count > 0) {
        *(es < 0 ? &below : &above) += magnitude(es) * (n - 1);
        *(bs < 0 ? &below : &above) += magnitude(bs) * (count - 1);
    }
    bb.below = below;
    bb.total = below + above + 1;
    bb.data = checked_malloc(bb.total * type_size(r.input));
    fill(r, f, bb.data, bb.total, s);
    bb.mask = make_mask(mk, bb.total, mix_seed(s, 1));
    return bb;
}

static void free_batch(batch_buffer *bb)
{
    free(bb->data);
    free(bb->mask);
}

/* Zeroes the mask bytes of every element of reduction b (with overlapping
 * strides this empties parts of other reductions too: fine). */
static void empty_row(batch_buffer *bb, size_t size, size_t n, ptrdiff_t es,
                      ptrdiff_t bs, size_t b)
{
    (void)size;
    for (size_t i = 0; i < n; i++)
        bb->mask[(ptrdiff_t)bb->below + (ptrdiff_t)b * bs
                 + (ptrdiff_t)i * es] = 0;
}

/* ------------------------------------------------------------------------
 * The reductions tested
 * ---------------------------------------------------------------------- */

typedef struct {
    sb_reduction r;
    data_family  family;
} reduction_case;

#define R(op, in, acc, flags, map) { (op), (in), (acc), (flags), (map) }
static const reduction_case reductions[] = {
    { R(SB_SUM, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_CANCELLATION },
    { R(SB_SUM, SB_F32, SB_F64, 0, SB_MAP_NONE), FAMILY_HUGE_RANGE },
    { R(SB_SUM, SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_SUM, SB_F32, 0, 0, SB_MAP_SQUARE), FAMILY_SUBNORMAL },
    { R(SB_SUM, SB_I32, 0, 0, SB_MAP_NONE), FAMILY_SUM_EDGE },
    { R(SB_SUM, SB_I32, 0, SB_WRAP, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_SUM, SB_U8, SB_U32, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM, SB_I64, 0, 0, SB_MAP_ABS), FAMILY_SUM_EDGE },
    { R(SB_SUM, SB_I16, SB_F32, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_PROD, SB_I16, SB_I64, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_MIN, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
    { R(SB_MAX, SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MIN, SB_I32, SB_I64, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_MAX, SB_U64, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MAX, SB_I32, 0, 0, SB_MAP_ABS), FAMILY_LIMITS },
    { R(SB_ANY, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_NEGATIVE_ZERO },
    { R(SB_ALL, SB_I8, 0, 0, SB_MAP_NONE), FAMILY_SUBNORMAL },
    { R(SB_ANY, SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_SUM, SB_F16, SB_F32, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM, SB_F16, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MAX, SB_BF16, 0, SB_SKIP_NAN, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_BF16, SB_F64, 0, SB_MAP_SQUARE), FAMILY_UNIFORM },
    { R(SB_ALL, SB_F16, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
};

static const size_t sizes[] = { 0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                255, 256, 257, 1023, 1024, 1025, 4095,
                                4096, 4097, 8193 };

/* ------------------------------------------------------------------------
 * Tests
 * ---------------------------------------------------------------------- */

static void batches_of_every_shape_match_the_host_and_the_oracle(void **state)
{
    (void)state;
    static const mask_kind masks[] = { MASK_NONE, MASK_EMPTY_LEAVES,
                                       MASK_RANDOM };
    unsigned long wrong = 0, calls = 0;
    for (size_t ri = 0; ri < COUNT(reductions); ri++) {
        const reduction_case *rc = &reductions[ri];
        for (size_t si = 0; si < COUNT(sizes); si++) {
            const size_t n = sizes[si];
            for (int sh = 0; sh < SHAPE_COUNT; sh++) {
                const mask_kind mk = masks[(ri + si + (size_t)sh)
                                           % COUNT(masks)];
                const size_t count = n < 64 ? 7 : 3;
                ptrdiff_t es, bs;
                strides_of((shape)sh, n, count, &es, &bs);
                const uint64_t s = mix_seed(seed, ri * 1000003u + si * 101u
                                                  + (unsigned)sh);
                batch_buffer bb = make_batch(rc->r, rc->family, mk, n, es,
                                             count, bs, s);
                if (bb.mask != NULL && n > 0)   /* a whole row empty */
                    empty_row(&bb, type_size(rc->r.input), n, es, bs, 1);
                char what[128];
                snprintf(what, sizeof what, "%s, n = %zu, count = %zu, "
                         "strides %td %td, mask %s", shape_names[sh], n,
                         count, es, bs, mask_name(mk));
                const size_t size = type_size(rc->r.input);
                wrong += check_batched(what, rc->r,
                                       bb.data + bb.below * size,
                                       bb.mask ? bb.mask + bb.below : NULL,
                                       n, es, count, bs, NULL);
                calls++;
                free_batch(&bb);
            }
        }
    }
    printf("%lu batched calls, %lu wrong\n", calls, wrong);
    assert_int_equal(wrong, 0);
}

/* Checked i32 sums whose rows reach the type's limits: rows of INT32_MAX
 * pairs overflow, rows of INT32_MAX and INT32_MIN pairs do not, and rows
 * mix both; min rows whose mask is all zero are SB_EMPTY next to rows
 * with a value. */
static void overflowing_and_empty_rows_sit_beside_answers(void **state)
{
    (void)state;
    const sb_reduction sum = { .op = SB_SUM, .input = SB_I32 };
    enum { N = 33, ROWS = 12 };
    int32_t x[ROWS * N];
    for (size_t b = 0; b < ROWS; b++)
        for (size_t i = 0; i < N; i++) {
            int32_t v;
            switch (b % 4) {
            case 0: v = INT32_MAX; break;                       /* overflows */
            case 1: v = i % 2 ? INT32_MIN : INT32_MAX; break;   /* fits */
            case 2: v = (int32_t)i - 16; break;                 /* small */
            default: v = i == 20 ? INT32_MAX : 1; break;        /* overflows
                                                                   at 21 */
            }
            x[b * N + i] = v;
        }
    seen_statuses seen = { 0 };
    unsigned long wrong = check_batched("i32 limits, rows", sum,
                                        (const unsigned char *)x, NULL, N, 1,
                                        ROWS, N, &seen);
    wrong += check_batched("i32 limits, columns", sum,
                           (const unsigned char *)x, NULL, ROWS, N, N, 1,
                           &seen);
    assert_int_equal(wrong, 0);
    assert_true(seen.ok > 0 && seen.overflow > 0);

    const sb_reduction min = { .op = SB_MIN, .input = SB_F64 };
    double y[ROWS * N];
    unsigned char mask[ROWS * N];
    fill_data(FAMILY_SIGNED_ZEROS, SB_F64, SB_F64, y, ROWS * N,
              mix_seed(seed, 7));
    for (size_t k = 0; k < ROWS * N; k++)
        mask[k] = (unsigned char)((k / N) % 3 == 0 ? 0 : 1 + k % 5);
    seen = (seen_statuses){ 0 };
    wrong = check_batched("f64 min, empty rows", min,
                          (const unsigned char *)y, mask, N, 1, ROWS, N,
                          &seen);
    assert_int_equal(wrong, 0);
    assert_true(seen.ok > 0 && seen.empty > 0);
    /* n == 0: every reduction has the empty answer. */
    seen = (seen_statuses){ 0 };
    wrong = check_batched("f64 min, n = 0", min, (const unsigned char *)y,
                          NULL, 0, 1, 5, 3, &seen);
    assert_int_equal(wrong, 0);
    assert_int_equal(seen.empty, 5);
}

static void long_rows_and_many_short_rows_agree_on_1_and_2_threads(void **s)
{
    (void)s;
    const sb_reduction r[] = {
        { .op = SB_SUM, .input = SB_F64 },
        { .op = SB_SUM, .input = SB_I32, .accumulator = SB_I64 },
        { .op = SB_MAX, .input = SB_F32, .flags = SB_SKIP_NAN },
    };
    static const struct { size_t n, count; shape sh; mask_kind mk; } big[] = {
        { 100003, 2, SHAPE_ROWS, MASK_NONE },
        { 100003, 2, SHAPE_COLUMNS, MASK_EMPTY_LEAVES },
        { 16, 1000, SHAPE_ROWS, MASK_RANDOM },
        { 16, 1000, SHAPE_COLUMNS, MASK_NONE },
        { (1u << 18) + 5, 2, SHAPE_ROWS, MASK_RANDOM },
        { (1u << 18) + 5, 2, SHAPE_NEGATIVE_COLUMNS, MASK_NONE },
        { 1000, 300, SHAPE_ROWS, MASK_NONE },
    };
    unsigned long wrong = 0;
    for (size_t k = 0; k < COUNT(r); k++)
        for (size_t c = 0; c < COUNT(big); c++) {
            ptrdiff_t es, bs;
            strides_of(big[c].sh, big[c].n, big[c].count, &es, &bs);
            batch_buffer bb = make_batch(r[k], k == 2 ? FAMILY_SPECIALS
                                                      : FAMILY_UNIFORM,
                                         big[c].mk, big[c].n, es,
                                         big[c].count, bs,
                                         mix_seed(seed, 500 + k * 16 + c));
            char what[128];
            snprintf(what, sizeof what, "large %s, n = %zu, count = %zu",
                     shape_names[big[c].sh], big[c].n, big[c].count);
            const size_t size = type_size(r[k].input);
            wrong += check_batched(what, r[k], bb.data + bb.below * size,
                                   bb.mask ? bb.mask + bb.below : NULL,
                                   big[c].n, es, big[c].count, bs, NULL);
            free_batch(&bb);
        }
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Rows side by side (sb__rows_fn of host_kernels.c): unmasked contiguous
 * float sums, products, min and max, a register's lanes of rows at a time
 * ---------------------------------------------------------------------- */

/* Row lengths around leaves and blocks, up to 70001 (a task holds a
 * register's lanes of rows whatever their length); counts around the
 * lanes (2 to 16 per register on x86-64), so that groups and the rows
 * left over one at a time both run; batch strides tight, padded,
 * negative and zero (every row the same). */
static void rows_side_by_side_match_the_host_and_the_oracle(void **state)
{
    (void)state;
    static const reduction_case cases[] = {
        { R(SB_SUM,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_CANCELLATION },
        { R(SB_SUM,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_HUGE_RANGE },
        { R(SB_SUM,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
        { R(SB_SUM,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SUBNORMAL },
        { R(SB_PROD, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
        { R(SB_PROD, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
        { R(SB_SUM,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
        { R(SB_SUM,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_NEGATIVE_ZERO },
        { R(SB_MIN,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
        { R(SB_MAX,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
        { R(SB_MAX,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_NEGATIVE_ZERO },
        { R(SB_MIN,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    };
    static const size_t lengths[] = { 1, 2, 15, 16, 17, 31, 32, 33, 255, 256,
                                      257, 1000, 4095, 4096, 4097, 70001 };
    static const size_t counts[] = { 1, 3, 4, 5, 7, 8, 9, 16, 17, 33 };
    unsigned long wrong = 0, calls = 0;
    size_t turn = 0;
    for (size_t li = 0; li < COUNT(lengths); li++)
        for (size_t ci = 0; ci < COUNT(counts); ci++, turn++) {
            const size_t n = lengths[li], count = counts[ci];
            if (n * count > 600000)
                continue;
            const reduction_case *rc = &cases[turn % COUNT(cases)];
            ptrdiff_t bs;
            switch (turn % 4) {
            case 0:  bs = (ptrdiff_t)n; break;
            case 1:  bs = (ptrdiff_t)n + 3; break;
            case 2:  bs = -(ptrdiff_t)n - 1; break;
            default: bs = 0; break;
            }
            batch_buffer bb = make_batch(rc->r, rc->family, MASK_NONE, n, 1,
                                         count, bs, mix_seed(seed, 50000 + turn));
            char what[160];
            snprintf(what, sizeof what, "rows side by side, n = %zu, "
                     "count = %zu, batch_stride %td", n, count, bs);
            const size_t size = type_size(rc->r.input);
            wrong += check_batched(what, rc->r, bb.data + bb.below * size,
                                   NULL, n, 1, count, bs, NULL);
            free_batch(&bb);
            calls++;
        }
    /* One past the threading threshold, nine rows: on two threads each
     * row is split over both, on one the first eight (four, sixteen: the
     * lanes) go side by side and the rest one at a time. */
    const reduction_case *rc = &cases[0];
    const size_t n = ((size_t)1 << 18) + 17;
    batch_buffer bb = make_batch(rc->r, rc->family, MASK_NONE, n, 1, 9,
                                 (ptrdiff_t)n, mix_seed(seed, 59999));
    wrong += check_batched("rows side by side, 9 rows of 2^18 + 17", rc->r,
                           bb.data, NULL, n, 1, 9, (ptrdiff_t)n, NULL);
    free_batch(&bb);
    printf("%lu calls, %lu wrong\n", calls + 1, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Columns: the panels of adjacent reductions (host_columns.c)
 * ---------------------------------------------------------------------- */

/* Every op over every integer, float and half type, wrapping and checked
 * integers, and a few prepared plans (conversions, a map, NaN skipping),
 * which keep the gather path: the same checks hold for both. */
static const reduction_case column_reductions[] = {
    { R(SB_SUM,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_SUM,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_CANCELLATION },
    { R(SB_PROD, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SUBNORMAL },
    { R(SB_SUM,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
    { R(SB_PROD, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_PROD, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MIN,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
    { R(SB_MAX,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MIN,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MAX,  SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
    { R(SB_SUM,  SB_I8,  0, 0, SB_MAP_NONE), FAMILY_SUM_EDGE },
    { R(SB_SUM,  SB_U8,  0, SB_WRAP, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM,  SB_I16, 0, SB_WRAP, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_SUM,  SB_U16, 0, 0, SB_MAP_NONE), FAMILY_SUM_EDGE },
    { R(SB_SUM,  SB_I32, 0, 0, SB_MAP_NONE), FAMILY_SUM_EDGE },
    { R(SB_SUM,  SB_I32, 0, SB_WRAP, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_SUM,  SB_U32, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_SUM,  SB_I64, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_SUM,  SB_U64, 0, SB_WRAP, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_I8,  0, SB_WRAP, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_U8,  0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_PROD, SB_I16, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_PROD, SB_U16, 0, SB_WRAP, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_I32, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_PROD, SB_U32, 0, SB_WRAP, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_I64, 0, SB_WRAP, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_PROD, SB_U64, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_MIN,  SB_I8,  0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MAX,  SB_U8,  0, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_MIN,  SB_I16, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_MAX,  SB_U16, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MAX,  SB_I32, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MIN,  SB_U32, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MAX,  SB_I64, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_MIN,  SB_U64, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
    { R(SB_ANY,  SB_F32, 0, 0, SB_MAP_NONE), FAMILY_NEGATIVE_ZERO },
    { R(SB_ALL,  SB_I16, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM,  SB_I32, SB_I64, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_SUM,  SB_F32, SB_F64, 0, SB_MAP_NONE), FAMILY_HUGE_RANGE },
    { R(SB_SUM,  SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MAX,  SB_F32, 0, 0, SB_MAP_ABS), FAMILY_SPECIALS },
    { R(SB_SUM,  SB_F16, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_MIN,  SB_BF16, 0, 0, SB_MAP_NONE), FAMILY_UNIFORM },
    { R(SB_PROD, SB_F16, SB_F32, 0, SB_MAP_NONE), FAMILY_UNIFORM },
};

/* 1907 rows: 120 leaves, four entries left on the merge stack. */
static const size_t column_rows[] = { 0, 1, 15, 16, 17, 31, 32, 33, 1000,
                                      1907, 4097 };
/* 15, 16, 17, 31, 32, 33, 63, 64, 65: around vectors of 4 to 64 bytes;
 * 1000: a panel's width on one thread (1008) and cut on two. */
static const size_t column_counts[] = { 1, 15, 16, 17, 31, 32, 33, 63, 64,
                                        65, 1000 };

/* The mask of a column batch, per column: whole columns empty (b % 7 ==
 * 3), and elsewhere each leaf of 16 positions at random empty, full, or
 * random bytes (0 about a quarter of the time). */
static void column_mask(batch_buffer *bb, size_t n, ptrdiff_t es,
                        size_t count, ptrdiff_t bs, uint64_t s)
{
    for (size_t b = 0; b < count; b++)
        for (size_t i = 0; i < n; i++) {
            uint64_t h = mix_seed(s, b * 1000003u + i / 16);
            const unsigned leaf = (unsigned)(splitmix64(&h) % 3);
            unsigned char m;
            if (b % 7 == 3 || leaf == 0)
                m = 0;
            else if (leaf == 1)
                m = 1;
            else {
                uint64_t e = mix_seed(s, (b * 1000003u + i) | (1ull << 62));
                const uint64_t v = splitmix64(&e);
                m = v % 4 == 0 ? 0 : (unsigned char)(1 + (v >> 8) % 255);
            }
            bb->mask[(ptrdiff_t)bb->below + (ptrdiff_t)b * bs
                     + (ptrdiff_t)i * es] = m;
        }
}

/* One column batch: elem_stride the row length (count * |bs|), or a
 * longer row (`pad` elements more), and negative when `flip`. */
static unsigned long check_columns(const reduction_case *rc, size_t n,
                                   size_t count, ptrdiff_t bs, size_t pad,
                                   bool flip, bool masked, uint64_t s,
                                   seen_statuses *seen)
{
    const size_t row = count * magnitude(bs) + pad;
    const ptrdiff_t es = flip ? -(ptrdiff_t)row : (ptrdiff_t)row;
    batch_buffer bb = make_batch(rc->r, rc->family,
                                 masked ? MASK_RANDOM : MASK_NONE, n, es,
                                 count, bs, s);
    if (masked)
        column_mask(&bb, n, es, count, bs, mix_seed(s, 3));
    char what[160];
    snprintf(what, sizeof what, "columns, n = %zu, count = %zu, strides "
             "%td %td, %s", n, count, es, bs, masked ? "masked" : "no mask");
    const size_t size = type_size(rc->r.input);
    const unsigned long wrong = check_batched(
            what, rc->r, bb.data + bb.below * size,
            bb.mask ? bb.mask + bb.below : NULL, n, es, count, bs, seen);
    free_batch(&bb);
    return wrong;
}

/* Every (rows, columns) pair of the lists above, each with three
 * reductions of the list in turn, batch strides 1, 2 and -1, rows of the
 * tight length and longer, with and without masks. */
static void column_panels_match_the_host_and_the_oracle(void **state)
{
    (void)state;
    static const ptrdiff_t batch_strides[] = { 1, 2, -1 };
    unsigned long wrong = 0, calls = 0;
    size_t turn = 0;
    for (size_t ni = 0; ni < COUNT(column_rows); ni++)
        for (size_t ci = 0; ci < COUNT(column_counts); ci++)
            for (int k = 0; k < 3; k++, turn++) {
                const size_t n = column_rows[ni], count = column_counts[ci];
                const reduction_case *rc =
                        &column_reductions[turn % COUNT(column_reductions)];
                const ptrdiff_t bs = batch_strides[turn % 3];
                const size_t pad = (turn / 3) % 2 ? 5 : 0;
                const bool flip = bs < 0 && (turn / 6) % 2;
                const bool masked = (turn / 2) % 2;
                wrong += check_columns(rc, n, count, bs, pad, flip, masked,
                                       mix_seed(seed, 20000 + turn), NULL);
                calls++;
            }
    printf("%lu column calls, %lu wrong\n", calls, wrong);
    assert_int_equal(wrong, 0);
}

/* Each reduction of the list over the same shapes: 65 columns (a
 * vector's multiple and one column) of 33 rows and 1000 rows, masked and
 * not; the
 * masked checked integers, min and max see overflows and empty columns
 * beside answers. */
static void every_column_reduction_meets_vector_edges(void **state)
{
    (void)state;
    unsigned long wrong = 0;
    seen_statuses seen = { 0 };
    for (size_t ri = 0; ri < COUNT(column_reductions); ri++) {
        const reduction_case *rc = &column_reductions[ri];
        for (int k = 0; k < 4; k++) {
            const size_t n = k < 2 ? 33 : 1000;
            wrong += check_columns(rc, n, 65, k == 3 ? -1 : 1, (size_t)k,
                                   k == 3, k % 2 == 1,
                                   mix_seed(seed, 30000 + ri * 4 + (size_t)k),
                                   &seen);
        }
    }
    printf("ok %lu, empty %lu, overflow %lu\n", seen.ok, seen.empty,
           seen.overflow);
    assert_int_equal(wrong, 0);
    assert_true(seen.ok > 0 && seen.empty > 0 && seen.overflow > 0);
}

/* Panels wider than a fold's stack frame take a merge stack on the heap
 * (host_batched.c: column_width()): 20000 f32 columns of 33 rows are two
 * panels on one thread (16384 columns at most; i16 one panel); 5000
 * columns of f64 at 1000 rows are two panels of 4672 (the heap's 256 KiB
 * of values at 7 slots); masked and not, strides 1 and -1. On 5 threads
 * (extra_threads) there are fewer panels than threads: positions cut into
 * chunks (cut_positions()), two panels by three chunks for the f32. */
static void wide_panels_match_the_host_and_the_oracle(void **state)
{
    (void)state;
    static const reduction_case cases[] = {
        { R(SB_SUM, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_CANCELLATION },
        { R(SB_MIN, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
        { R(SB_SUM, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_HUGE_RANGE },
        { R(SB_SUM, SB_I16, 0, 0, SB_MAP_NONE), FAMILY_SUM_EDGE },
    };
    unsigned long wrong = 0;
    extra_threads = 5;
    for (size_t k = 0; k < COUNT(cases); k++) {
        const bool f64 = cases[k].r.input == SB_F64;
        const size_t n = f64 ? 1000 : 33, count = f64 ? 5000 : 20000;
        wrong += check_columns(&cases[k], n, count, k % 2 ? -1 : 1, k, k == 3,
                               k >= 2, mix_seed(seed, 40000 + k), NULL);
    }
    extra_threads = 0;
    assert_int_equal(wrong, 0);
}

/* A few long columns on two threads: one panel, its positions cut into
 * five chunks (1250 leaves, chunks of 256), masked so that whole columns
 * (b % 7 == 3) and whole leaves are empty: checked sums that overflow in
 * some columns and min / max with nothing taking part in others, beside
 * answers, through the chunks' roots. */
static void few_long_columns_cut_into_chunks(void **state)
{
    (void)state;
    static const reduction_case cases[] = {
        { R(SB_SUM, SB_I32, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
        { R(SB_SUM, SB_I8,  0, 0, SB_MAP_NONE), FAMILY_SUM_EDGE },
        { R(SB_MIN, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
        { R(SB_MAX, SB_U16, 0, 0, SB_MAP_NONE), FAMILY_LIMITS },
        { R(SB_SUM, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_CANCELLATION },
        { R(SB_PROD, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    };
    unsigned long wrong = 0;
    seen_statuses seen = { 0 };
    for (size_t k = 0; k < COUNT(cases); k++)
        wrong += check_columns(&cases[k], 20000, 20, k % 2 ? -1 : 1, k % 3,
                               k == 1, true, mix_seed(seed, 45000 + k), &seen);
    printf("ok %lu, empty %lu, overflow %lu\n", seen.ok, seen.empty,
           seen.overflow);
    assert_int_equal(wrong, 0);
    assert_true(seen.ok > 0 && seen.empty > 0 && seen.overflow > 0);
}

/* Checked i32 sums, 70 columns of 1000 rows, where columns 0, 4, 8, ...
 * overflow (INT32_MAX everywhere), columns 1, 5, ... do not (INT32_MAX and
 * INT32_MIN alternate), columns 2, 6, ... overflow in one leaf only, and
 * the rest hold small values; and f32 min where every third column has
 * nothing taking part. */
static void overflow_and_empty_stay_in_their_columns(void **state)
{
    (void)state;
    enum { ROWS = 1000, COLS = 70 };
    int32_t *x = checked_malloc(ROWS * COLS * sizeof *x);
    for (size_t i = 0; i < ROWS; i++)
        for (size_t b = 0; b < COLS; b++) {
            int32_t v;
            switch (b % 4) {
            case 0: v = INT32_MAX; break;
            case 1: v = i % 2 ? INT32_MIN : INT32_MAX; break;
            case 2: v = i / 16 == 40 ? INT32_MAX / 4 : (int32_t)(i % 7) - 3;
                    break;
            default: v = (int32_t)(b * 3) - (int32_t)i; break;
            }
            x[i * COLS + b] = v;
        }
    const sb_reduction sum = { .op = SB_SUM, .input = SB_I32 };
    seen_statuses seen = { 0 };
    unsigned long wrong = check_batched("i32 sum, overflowing columns", sum,
                                        (const unsigned char *)x, NULL, ROWS,
                                        COLS, COLS, 1, &seen);
    assert_int_equal(wrong, 0);
    assert_true(seen.ok >= COLS / 2 && seen.overflow >= COLS / 4);
    float *y = checked_malloc(ROWS * COLS * sizeof *y);
    unsigned char *mask = checked_malloc(ROWS * COLS);
    fill_data(FAMILY_SIGNED_ZEROS, SB_F32, SB_F32, y, ROWS * COLS,
              mix_seed(seed, 40000));
    for (size_t i = 0; i < ROWS; i++)
        for (size_t b = 0; b < COLS; b++)
            mask[i * COLS + b] = (unsigned char)(b % 3 == 0 ? 0
                                 : (i / 16 + b) % 5 == 0 ? 0 : 1 + i % 3);
    const sb_reduction min = { .op = SB_MIN, .input = SB_F32 };
    seen = (seen_statuses){ 0 };
    wrong = check_batched("f32 min, empty columns", min,
                          (const unsigned char *)y, mask, ROWS, COLS, COLS,
                          1, &seen);
    assert_int_equal(wrong, 0);
    assert_int_equal(seen.empty, (COLS + 2) / 3);
    free(x);
    free(y);
    free(mask);
}

static void segments_match_the_host_and_the_oracle(void **state)
{
    (void)state;
    unsigned long wrong = 0;
    for (size_t ri = 0; ri < COUNT(reductions); ri++) {
        const reduction_case *rc = &reductions[ri];
        const size_t size = type_size(rc->r.input);
        for (int layout = 0; layout < 6; layout++) {
            uint64_t st = mix_seed(seed, 9000 + ri * 8 + (size_t)layout);
            size_t count;
            uint64_t *offsets;
            if (layout >= 4) {
                /* Runs of equal lengths (unmasked: side by side where the
                 * plan has the rows' fold, a register's lanes of
                 * segments at a time), runs shorter than the lanes and
                 * runs that tasks of 2^14 elements cut (the 40 of
                 * 1000). */
                static const size_t runs[][2] = {
                    { 10, 8 }, { 10, 3 }, { 1, 16 }, { 0, 2 }, { 17, 9 },
                    { 1000, 40 }, { 16, 24 }, { 5, 7 }, { 33, 17 },
                    { 2, 1 }, { 300, 8 },
                };
                count = 0;
                for (size_t k = 0; k < COUNT(runs); k++)
                    count += runs[k][1];
                offsets = checked_malloc((count + 1) * sizeof *offsets);
                offsets[0] = 5;
                size_t b = 0;
                for (size_t k = 0; k < COUNT(runs); k++)
                    for (size_t i = 0; i < runs[k][1]; i++, b++)
                        offsets[b + 1] = offsets[b] + runs[k][0];
            } else if (layout == 3) {   /* skewed: one long among short */
                count = 400;
                offsets = checked_malloc((count + 1) * sizeof *offsets);
                offsets[0] = 5;
                for (size_t b = 0; b < count; b++)
                    offsets[b + 1] = offsets[b]
                                   + (b == 37 ? 100003 : random_below(&st, 20));
            } else {                    /* random, with empty segments */
                count = layout == 0 ? 1 : layout == 1 ? 9 : 60;
                const size_t total = layout == 2 ? 5000 : 700;
                size_t *cuts = checked_malloc((count + 1) * sizeof *cuts);
                random_cuts(&st, total, count + 1, cuts);
                offsets = checked_malloc((count + 1) * sizeof *offsets);
                for (size_t b = 0; b <= count; b++)
                    offsets[b] = cuts[b];
                free(cuts);
            }
            const size_t total = (size_t)offsets[count] + 3;
            unsigned char *x = checked_malloc(total * size);
            fill(rc->r, rc->family, x, total, mix_seed(st, 1));
            const mask_kind mk = layout % 2 ? MASK_EMPTY_LEAVES : MASK_NONE;
            unsigned char *mask = make_mask(mk, total, mix_seed(st, 2));
            char what[96];
            snprintf(what, sizeof what, "segments, layout %d, count %zu",
                     layout, count);
            wrong += check_segments(what, rc->r, x, mask, offsets, count,
                                    NULL);
            free(x);
            free(mask);
            free(offsets);
        }
    }
    assert_int_equal(wrong, 0);
}

/* Ragged segments side by side (host_kernels.c's ragged folds: a
 * register's lanes of unmasked segments of about one length, gathered
 * into length classes by host_batched.c): lengths 1 to 40, around leaf
 * edges (15, 16, 17, 31, 32, 33, 47, 48, 49), 33 to 96 (3 to 6 leaves: a
 * lane that ends at 3 leaves keeps its counter while the others push a
 * 5th leaf lower), 990 to 1010, 1 to 300 and 1 to 2000 (many classes at
 * once: full groups, half-full ones folded padded at a task's end and
 * the rest one at a time, on 1 thread one task, on 2 threads many), a
 * call that ends with whole groups one element short of x's end, runs
 * of equal ones among them, and now and then an empty segment or one far
 * longer (which break a group); native float sums, products, min and max
 * over NaNs, infinities, signed zeros, subnormals and huge ranges;
 * unmasked, and masked once (one at a time). */
static const reduction_case ragged_reductions[] = {
    { R(SB_SUM, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_NEGATIVE_ZERO },
    { R(SB_SUM, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_SUM, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_HUGE_RANGE },
    { R(SB_SUM, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
    { R(SB_PROD, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_PROD_EDGE },
    { R(SB_PROD, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MIN, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MIN, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SUBNORMAL },
    { R(SB_MAX, SB_F32, 0, 0, SB_MAP_NONE), FAMILY_SPECIALS },
    { R(SB_MAX, SB_F64, 0, 0, SB_MAP_NONE), FAMILY_SIGNED_ZEROS },
};

/* `bytes` of writable memory whose end is the start of a page that
 * cannot be read, so that a fold that reads past the call's last element
 * crashes the test (past a malloc'd buffer's end it would read padding,
 * which only a sanitizer notices). */
typedef struct {
    void          *map;
    size_t         len;
    unsigned char *data;
} guarded_buffer;

static guarded_buffer guarded_alloc(size_t bytes)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t body = (bytes + page - 1) / page * page;
    guarded_buffer g = { NULL, body + page, NULL };
    g.map = mmap(NULL, g.len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(g.map != MAP_FAILED);
    assert_int_equal(mprotect((unsigned char *)g.map + body, page,
                              PROT_NONE), 0);
    g.data = (unsigned char *)g.map + body - bytes;
    return g;
}

static void ragged_segments_fold_side_by_side(void **state)
{
    (void)state;
    unsigned long wrong = 0;
    static const uint64_t edges[] = { 15, 16, 17, 31, 32, 33, 47, 48, 49 };
    enum { COUNT_OF = 700 };
    uint64_t *offsets = checked_malloc((COUNT_OF + 1) * sizeof *offsets);
    for (size_t ri = 0; ri < COUNT(ragged_reductions); ri++) {
        const reduction_case *rc = &ragged_reductions[ri];
        const size_t size = type_size(rc->r.input);
        for (int layout = 0; layout < 7; layout++) {
            uint64_t st = mix_seed(seed, 9500 + ri * 8 + (size_t)layout);
            offsets[0] = 3;
            /* Layout 6: the call's end. 32 segments of 17 and 18 in turn
             * fill whole groups of their class on every register width,
             * and the last of them ends one element before x does: its
             * partial leaf, loaded whole, would read 14 elements past. */
            const size_t count = layout == 6 ? 33 : COUNT_OF;
            for (size_t b = 0; layout == 6 && b < count; b++)
                offsets[b + 1] = offsets[b] + (b == 32 ? 1 : 17 + b % 2);
            for (size_t b = 0; layout != 6 && b < COUNT_OF;) {
                const uint64_t pick = random_below(&st, 100);
                const size_t run = pick < 10 ? 1 + random_below(&st, 12) : 1;
                uint64_t len = layout == 5 ? 1 + random_below(&st, 2000)
                             : layout == 4 ? 1 + random_below(&st, 300)
                             : layout == 2 ? 990 + random_below(&st, 21)
                             : layout == 1 ? 33 + random_below(&st, 64)
                             : pick < 40 ? edges[random_below(&st,
                                                              COUNT(edges))]
                             : 1 + random_below(&st, 40);
                if (pick >= 97)
                    len = pick == 99 ? 0 : 3000 + random_below(&st, 100);
                for (size_t k = 0; k < run && b < COUNT_OF; k++, b++)
                    offsets[b + 1] = offsets[b] + len;
            }
            /* x ends with the last segment, at an unreadable page. */
            const size_t total = (size_t)offsets[count];
            const guarded_buffer xg = guarded_alloc(total * size);
            unsigned char *x = xg.data;
            fill(rc->r, rc->family, x, total, mix_seed(st, 1));
            const mask_kind mk = layout == 3 ? MASK_EMPTY_LEAVES : MASK_NONE;
            unsigned char *mask = make_mask(mk, total, mix_seed(st, 2));
            char what[96];
            snprintf(what, sizeof what, "ragged segments, layout %d",
                     layout);
            wrong += check_segments(what, rc->r, x, mask, offsets, count,
                                    NULL);
            munmap(xg.map, xg.len);
            free(mask);
        }
    }
    free(offsets);
    assert_int_equal(wrong, 0);
}

/* A refused call: the status, a detail, and nothing written. */
static void expect_refusal(const char *what, sb_status s,
                           const unsigned char *results, size_t rbytes,
                           const sb_status *statuses, size_t count)
{
    if (s != SB_INVALID_ARGUMENT)
        fprintf(stderr, "%s: %s\n", what, status_name(s));
    assert_int_equal(s, SB_INVALID_ARGUMENT);
    assert_true(strlen(sb_error_detail()) > 0);
    printf("  %s: %s\n", what, sb_error_detail());
    for (size_t k = 0; k < rbytes; k++)
        assert_int_equal(results[k], RESULT_SENTINEL);
    const unsigned char *sb = (const unsigned char *)statuses;
    for (size_t k = 0; k < count * sizeof(sb_status); k++)
        assert_int_equal(sb[k], STATUS_SENTINEL);
}

static void refusals_write_nothing(void **state)
{
    (void)state;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    const sb_reduction bad = { .op = (sb_op)99, .input = SB_F64 };
    const sb_reduction bad_pair = { .op = SB_SUM, .input = SB_F32,
                                    .accumulator = SB_I32 };
    double x[64] = { 0 };
    unsigned char results[8 * 4];
    sb_status statuses[4];
    uint64_t offsets[5] = { 0, 3, 9, 9, 20 };
#define RESET() (memset(results, RESULT_SENTINEL, sizeof results), \
                 memset(statuses, STATUS_SENTINEL, sizeof statuses))
#define REFUSED(what, call) \
    do { RESET(); expect_refusal(what, (call), results, sizeof results, \
                                 statuses, 4); } while (0)
    REFUSED("unknown op", sb_reduce_batched_host(bad, x, NULL, 4, 1, 4, 4,
                                                 results, statuses));
    REFUSED("unknown op, count 0", sb_reduce_batched_host(bad, x, NULL, 4, 1,
                                                 0, 4, results, statuses));
    REFUSED("f32 -> i32", sb_reduce_batched_host(bad_pair, x, NULL, 4, 1, 4,
                                                 4, results, statuses));
    REFUSED("NULL results", sb_reduce_batched_host(r, x, NULL, 4, 1, 4, 4,
                                                   NULL, statuses));
    REFUSED("NULL statuses", sb_reduce_batched_host(r, x, NULL, 4, 1, 4, 4,
                                                    results, NULL));
    REFUSED("NULL x", sb_reduce_batched_host(r, NULL, NULL, 4, 1, 4, 4,
                                             results, statuses));
    REFUSED("n bytes past SIZE_MAX", sb_reduce_batched_host(r, x, NULL,
            SIZE_MAX / 4, 0, 4, 0, results, statuses));
    REFUSED("elem_stride too large", sb_reduce_batched_host(r, x, NULL, 3,
            PTRDIFF_MAX, 4, 1, results, statuses));
    REFUSED("batch_stride too small", sb_reduce_batched_host(r, x, NULL, 3,
            1, 4, PTRDIFF_MIN, results, statuses));
    REFUSED("span past PTRDIFF_MAX", sb_reduce_batched_host(r, x, NULL, 3,
            PTRDIFF_MAX / 16, 4, -(PTRDIFF_MAX / 16), results, statuses));
    REFUSED("segments: unknown op", sb_reduce_segments_host(bad, x, NULL,
            offsets, 4, results, statuses));
    REFUSED("segments: NULL offsets", sb_reduce_segments_host(r, x, NULL,
            NULL, 4, results, statuses));
    REFUSED("segments: NULL results", sb_reduce_segments_host(r, x, NULL,
            offsets, 4, NULL, statuses));
    REFUSED("segments: NULL statuses", sb_reduce_segments_host(r, x, NULL,
            offsets, 4, results, NULL));
    REFUSED("segments: NULL x", sb_reduce_segments_host(r, NULL, NULL,
            offsets, 4, results, statuses));
    offsets[3] = 8;
    REFUSED("segments: offsets decrease", sb_reduce_segments_host(r, x,
            NULL, offsets, 4, results, statuses));
    offsets[3] = 9;
    offsets[4] = UINT64_MAX;
    REFUSED("segments: end past the address space",
            sb_reduce_segments_host(r, x, NULL, offsets, 4, results,
                                    statuses));
    offsets[4] = 20;

    /* Accepted calls that write nothing: count 0 (NULL everything), and
     * a NULL x when no element is read. */
    RESET();
    assert_int_equal(sb_reduce_batched_host(r, NULL, NULL, 4, 1, 0, 4, NULL,
                                            NULL), SB_OK);
    assert_int_equal(sb_reduce_segments_host(r, NULL, NULL, NULL, 0, NULL,
                                             NULL), SB_OK);
    assert_string_equal(sb_error_detail(), "");
    assert_int_equal(sb_reduce_batched_host(r, NULL, NULL, 0, 1, 4, 4,
                                            results, statuses), SB_OK);
    for (size_t b = 0; b < 4; b++) {
        assert_int_equal(statuses[b], SB_OK);
        const double zero = 0.0;
        assert_memory_equal(results + 8 * b, &zero, 8);
    }
    const uint64_t same[5] = { 7, 7, 7, 7, 7 };
    RESET();
    assert_int_equal(sb_reduce_segments_host(r, NULL, NULL, same, 4, results,
                                             statuses), SB_OK);
    assert_int_equal(statuses[3], SB_OK);
#undef REFUSED
#undef RESET
}

int main(void)
{
    seed = test_seed(20240917u);
    for (size_t i = 0; i < COUNT(other_isas); i++)
        printf("instruction set %s: %s\n", sb_isa_name(other_isas[i]),
               other_isas[i] == sb_host_isa(NULL) ? "the widest, every call"
               : sb_host_isa_check(other_isas[i]) == SB_OK
               ? "checked against the widest"
               : "not run, this CPU cannot run it");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals_write_nothing),
        cmocka_unit_test(overflowing_and_empty_rows_sit_beside_answers),
        cmocka_unit_test(batches_of_every_shape_match_the_host_and_the_oracle),
        cmocka_unit_test(segments_match_the_host_and_the_oracle),
        cmocka_unit_test(ragged_segments_fold_side_by_side),
        cmocka_unit_test(long_rows_and_many_short_rows_agree_on_1_and_2_threads),
        cmocka_unit_test(rows_side_by_side_match_the_host_and_the_oracle),
        cmocka_unit_test(column_panels_match_the_host_and_the_oracle),
        cmocka_unit_test(every_column_reduction_meets_vector_edges),
        cmocka_unit_test(wide_panels_match_the_host_and_the_oracle),
        cmocka_unit_test(few_long_columns_cut_into_chunks),
        cmocka_unit_test(overflow_and_empty_stay_in_their_columns),
    };
    return cmocka_run_group_tests_name("batched", tests, NULL, NULL);
}
