/* tests/test_device_batched.c: sb_reduce_batched(),
 * sb_reduce_batched_enqueue() and sb_reduce_segments() on every device
 * present (POCL, Oclgrind with small sizes), each reduction's answer
 * compared bit for bit (memcmp) and status for status with
 * sb_reduce_host() and oracle_reduce() of its gathered elements.
 *
 *   - rows, columns, negative and zero strides, with and without masks
 *     (whole rows masked out), n = 0 included, checked i32 sums where some
 *     rows overflow, f64 min rows with SB_EMPTY, counts (f32 with
 *     SB_SKIP_NAN, i16); contexts with the default
 *     host_max_n (small batches read back at once) and with
 *     SB_OPT_NO_HOST (every row launched); many short rows (the rows
 *     kernel), a few rows past its 2^18 elements (a chain each); rows
 *     side by side (the rows kernel's vector lanes on a CPU device:
 *     native float sums, min and max, halves among them; a partial last
 *     block; zero and negative batch strides); many
 *     columns side by side (the columns kernel, native float sums, min
 *     and max, halves among them; a partial last block);
 *   - the enqueue form's records (after a pad, untouched where no value);
 *   - segments with empty ones, from an offsets buffer; many short ones
 *     around long ones, which the default context maps run by run (and
 *     where a map may copy, Oclgrind, by chunks), SB_OPT_NO_HOST folds in
 *     the segments kernel; the kernel's longer segments (64 or more past
 *     8192 elements) beside the host's runs, adversarial lengths;
 *   - argmin / argmax (NaNs, signed zeros, |x|, NaN skipping) of many
 *     short rows and segments, through the chunks;
 *   - the context's sb_options.host reaches the read-back batches;
 *   - refusals: batches that reach before or past a buffer, offsets that
 *     decrease or lie past their buffer, records past the end, f16:
 *     the status, a detail, and nothing written.
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

#include "device_support.h"
#include "oracle.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { PAD = 5, CONTEXTS_PER_DEVICE = 2, STATUS_SENTINEL = 0x5A };

static uint64_t seed;

typedef struct {
    device_list     list;                /* first: device_suite_new() */
    device_context *contexts;
    size_t          context_count;
} suite;

static int setup(void **state)
{
    suite *s = device_suite_new(sizeof *s);
    if (s == NULL)
        return -1;
    s->contexts = calloc(s->list.count * CONTEXTS_PER_DEVICE,
                         sizeof *s->contexts);
    if (s->contexts == NULL)
        return -1;
    const sb_options no_host = { .flags = SB_OPT_NO_HOST };
    for (size_t d = 0; d < s->list.count; d++) {
        const sb_options *o[CONTEXTS_PER_DEVICE] = { NULL, &no_host };
        for (size_t k = 0; k < CONTEXTS_PER_DEVICE; k++) {
            device_context *dc = &s->contexts[s->context_count];
            if (device_context_open(dc, &s->list.devices[d], o[k]) != SB_OK)
                return -1;
            s->context_count++;
        }
    }
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    suite *s = *state;
    for (size_t i = 0; i < s->context_count; i++)
        device_context_close(&s->contexts[i]);
    free(s->contexts);
    device_suite_free(s);
    return 0;
}

/* Reduction b's answer (status, result bytes) against sb_reduce_host()
 * and the oracle of the gathered row. @return 1 if wrong. */
static unsigned long compare_row(const char *what, sb_reduction r, size_t b,
                                 const unsigned char *g,
                                 const unsigned char *gmask, size_t n,
                                 sb_status status, const unsigned char *got)
{
    const size_t rs = sb_result_size(r);
    unsigned char want[RESULT_BUFFER], oracle[RESULT_BUFFER];
    unsigned char sentinel[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(oracle, RESULT_SENTINEL, sizeof oracle);
    memset(sentinel, RESULT_SENTINEL, sizeof sentinel);
    const sb_status ws = sb_reduce_host(r, g, gmask, n, want);
    const sb_status os = oracle_reduce(r, g, gmask, n, oracle);
    if (status == ws && ws == os && bits_equal(want, oracle, rs) &&
        bits_equal(got, ws == SB_OK ? want : sentinel, rs))
        return 0;
    fprintf(stderr, "%s: %s %s->%s, reduction %zu of n = %zu: got %s, "
            "sb_reduce_host %s, oracle %s\n", what, op_name(r.op),
            type_name(r.input), type_name(r.accumulator), b, n,
            status_name(status), status_name(ws), status_name(os));
    return 1;
}

/* The host data of a batch: `total` elements, element (0, 0) at `below`. */
typedef struct {
    unsigned char *x, *mask;
    size_t         below, total;
} host_batch;

static size_t magnitude(ptrdiff_t v) { return v < 0 ? (size_t)-v : (size_t)v; }

static host_batch make_host_batch(sb_reduction r, data_family f, bool masked,
                                  size_t n, ptrdiff_t es, size_t count,
                                  ptrdiff_t bs, uint64_t s)
{
    host_batch h = { 0 };
    size_t below = 0, above = 0;
    if (n > 0 && count > 0) {
        *(es < 0 ? &below : &above) += magnitude(es) * (n - 1);
        *(bs < 0 ? &below : &above) += magnitude(bs) * (count - 1);
    }
    h.below = below;
    h.total = below + above + 1;
    h.x = checked_malloc(h.total * type_size(r.input));
    if (r.input == SB_F16 || r.input == SB_BF16)   /* f is a half_family */
        fill_half((half_family)f, r.input, (uint16_t *)h.x, h.total, s);
    else
        fill_data(f, r.input, r.accumulator, h.x, h.total, s);
    if (masked) {
        h.mask = make_mask(MASK_EMPTY_LEAVES, h.total, mix_seed(s, 1));
        if (n > 0 && count > 1)       /* reduction 1 wholly masked out */
            for (size_t i = 0; i < n; i++)
                h.mask[(ptrdiff_t)below + bs + (ptrdiff_t)i * es] = 0;
    }
    return h;
}

/* Gathers row b of h into g / gmask. */
static void gather_row(sb_reduction r, const host_batch *h, size_t n,
                       ptrdiff_t es, ptrdiff_t bs, size_t b,
                       unsigned char *g, unsigned char *gmask)
{
    const size_t size = type_size(r.input);
    for (size_t i = 0; i < n; i++) {
        const ptrdiff_t at = (ptrdiff_t)h->below + (ptrdiff_t)b * bs
                           + (ptrdiff_t)i * es;
        memcpy(g + i * size, h->x + at * (ptrdiff_t)size, size);
        if (h->mask)
            gmask[i] = h->mask[at];
    }
}

/* One batch on one context, blocking and enqueued. @return wrong rows. */
/* Batches check_batch_on() saw where some rows overflowed and others
 * got their answers: a checked overflow is per row. */
static unsigned long batches_overflowing_in_part;

static unsigned long check_batch_on(const device_context *dc,
                                    sb_reduction r, data_family f,
                                    bool masked, size_t n, ptrdiff_t es,
                                    size_t count, ptrdiff_t bs, uint64_t s)
{
    const test_device *d = dc->dev;
    const size_t size = type_size(r.input), rs = sb_result_size(r);
    host_batch h = make_host_batch(r, f, masked, n, es, count, bs, s);
    unsigned char *padded = checked_malloc((h.total + PAD) * size);
    memset(padded, 0x11, PAD * size);
    memcpy(padded + PAD * size, h.x, h.total * size);
    cl_mem xb = make_buffer(d, (h.total + PAD) * size, padded);
    cl_mem mb = NULL;
    if (h.mask) {
        unsigned char *pm = checked_malloc(h.total + PAD);
        memset(pm, 1, PAD);
        memcpy(pm + PAD, h.mask, h.total);
        mb = make_buffer(d, h.total + PAD, pm);
        free(pm);
    }
    const size_t offset = PAD + h.below;
    char what[512];
    snprintf(what, sizeof what, "%s: n = %zu, count = %zu, strides %td %td%s",
             d->name, n, count, es, bs, masked ? ", masked" : "");

    unsigned char *results = checked_malloc(count * rs);
    sb_status *statuses = checked_malloc(count * sizeof *statuses);
    memset(results, RESULT_SENTINEL, count * rs);
    memset(statuses, STATUS_SENTINEL, count * sizeof *statuses);
    unsigned long wrong = 0;
    sb_status st = sb_reduce_batched(dc->ctx, NULL, r, xb, offset, mb,
                                     offset, n, es, count, bs, results,
                                     statuses);
    if (st != SB_OK) {
        fprintf(stderr, "%s: sb_reduce_batched %s (%s)\n", what,
                status_name(st), sb_error_detail());
        wrong += count;
    }
    /* The enqueue form, records after one pad record: sb_device_result,
     * or sb_device_arg_result for argmin / argmax. */
    const bool arg = r.op == SB_ARGMIN || r.op == SB_ARGMAX;
    const size_t rec_size = arg ? sizeof(sb_device_arg_result)
                                : sizeof(sb_device_result);
    const size_t rec_bytes = (count + 1) * rec_size;
    unsigned char *records = checked_malloc(rec_bytes);
    memset(records, RESULT_SENTINEL, rec_bytes);
    cl_mem rb = make_buffer(d, rec_bytes, records);
    cl_event done = NULL;
    st = sb_reduce_batched_enqueue(dc->ctx, d->queue, r, xb, offset, mb,
                                   offset, n, es, count, bs, rb, rec_size, 0,
                                   NULL, &done);
    if (st != SB_OK) {
        fprintf(stderr, "%s: sb_reduce_batched_enqueue %s (%s)\n", what,
                status_name(st), sb_error_detail());
        wrong += count;
    } else {
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        read_buffer(d, rb, 0, rec_bytes, records);
        for (size_t k = 0; k < rec_size; k++)
            assert_int_equal(records[k], RESULT_SENTINEL);
    }
    unsigned char *g = checked_malloc(n * size + 1);
    unsigned char *gmask = checked_malloc(n + 1);
    bool overflowed = false, answered = false;
    for (size_t b = 0; b < count; b++) {
        overflowed = overflowed || statuses[b] == SB_OVERFLOW;
        answered = answered || statuses[b] == SB_OK;
    }
    batches_overflowing_in_part += overflowed && answered;
    for (size_t b = 0; b < count && wrong == 0; b++) {
        gather_row(r, &h, n, es, bs, b, g, gmask);
        wrong += compare_row(what, r, b, g, h.mask ? gmask : NULL, n,
                             statuses[b], results + b * rs);
        /* The record as the host writes the result: an argmin's value
         * bytes, zeros after them (the record leaves them as they were),
         * the index. */
        const unsigned char *rec = records + (b + 1) * rec_size;
        int32_t rec_status;
        memcpy(&rec_status, rec + rec_size - 8, sizeof rec_status);
        unsigned char value[16];
        memcpy(value, rec, sizeof value);
        if (arg && rec_status == SB_OK) {
            const size_t v = type_size(r.accumulator ? r.accumulator
                                                     : r.input);
            memset(value + v, 0, 8 - v);
        }
        wrong += compare_row("enqueued", r, b, g, h.mask ? gmask : NULL, n,
                             (sb_status)rec_status, value);
    }
    free(g);
    free(gmask);
    free(records);
    free(results);
    free(statuses);
    free(padded);
    clReleaseMemObject(rb);
    clReleaseMemObject(xb);
    if (mb)
        clReleaseMemObject(mb);
    free(h.x);
    free(h.mask);
    return wrong;
}

typedef struct {
    sb_reduction r;
    data_family  family;
} reduction_case;

static const reduction_case reductions[] = {
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_UNIFORM },
    { { SB_SUM, SB_I32, 0, 0, SB_MAP_NONE }, FAMILY_LIMITS },
    { { SB_MIN, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    { { SB_SUM, SB_U8, SB_U32, 0, SB_MAP_NONE }, FAMILY_UNIFORM },
    { { SB_ANY, SB_I8, 0, 0, SB_MAP_NONE }, FAMILY_SUBNORMAL },
    { { SB_COUNT, SB_F32, 0, SB_SKIP_NAN, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_COUNT, SB_I16, 0, 0, SB_MAP_NONE }, FAMILY_LIMITS },
    /* Converted as they load where a CPU device folds in lanes. */
    { { SB_SUM, SB_F32, SB_F64, 0, SB_MAP_NONE }, FAMILY_CANCELLATION },
    { { SB_MAX, SB_F16, SB_F64, 0, SB_MAP_NONE },
      (data_family)HALF_SPECIALS },
    /* Integers into floats, converted as they load in lanes too. */
    { { SB_SUM, SB_I16, SB_F32, 0, SB_MAP_SQUARE }, FAMILY_LIMITS },
    { { SB_MAX, SB_I32, SB_F64, 0, SB_MAP_ABS }, FAMILY_LIMITS },
};

static void batches_match_the_host_and_the_oracle(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    batches_overflowing_in_part = 0;
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        const bool small = dc->dev->oclgrind;
        const size_t sizes_all[] = { 0, 1, 17, 33, 100, 3000 };
        const size_t size_count = small ? 4 : COUNT(sizes_all);
        for (size_t ri = 0; ri < COUNT(reductions); ri++) {
            const reduction_case *rc = &reductions[ri];
            for (size_t si = 0; si < size_count; si++) {
                const size_t n = sizes_all[si];
                const size_t count = small ? 3 : 5;
                const ptrdiff_t shapes[][2] = {
                    { 1, (ptrdiff_t)n + 3 },            /* rows */
                    { (ptrdiff_t)count + 1, 1 },        /* columns */
                    { -1, -((ptrdiff_t)n + 2) },        /* negative rows */
                    { 1, 0 },                           /* zero batch */
                    { 0, 1 },        /* zero element stride: one element
                                        n times a row */
                };
                for (size_t sh = 0; sh < COUNT(shapes); sh++) {
                    const bool masked = (ri + si + sh) % 2 == 1;
                    wrong += check_batch_on(dc, rc->r, rc->family, masked, n,
                                            shapes[sh][0], count,
                                            shapes[sh][1],
                                            mix_seed(seed, ci * 100000 +
                                                     ri * 1000 + si * 10 +
                                                     sh));
                }
            }
        }
    }
    /* The i32 sums of type limits: batches where some rows overflow
     * while others do not, on every device. */
    printf("batches with rows overflowing beside answered rows: %lu\n",
           batches_overflowing_in_part);
    assert_true(batches_overflowing_in_part >= s->list.count);
    assert_int_equal(wrong, 0);
}

/* Columns side by side (batch stride 1): where the program folds in
 * vector lanes (native float sums, min and max of every element) the
 * columns kernel, 16 (f64: 8) columns per work-item; counts that leave a
 * partial last block (folded as the last 16 columns, written from where
 * the block before ends), one block exactly (16; 8 for f64), one column
 * short of a block (15: mapped), and many; padded and negative element
 * strides; n from 2 to past the kernel's 2^18 (mapped, as are masked
 * batches and the programs with no lanes: NaN skipping here; every float
 * program on the portable stage's guarded devices). Half inputs take the
 * half families (support.h). Not on Oclgrind (a simulator: sizes past
 * 2^18; test_oclgrind_races runs its columns kernel). */
typedef struct {
    sb_reduction r;
    int          family;   /* a half_family for f16 / bf16 inputs */
} column_case;

static const column_case column_cases[] = {
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_UNIFORM },
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_MAX, SB_F32, 0, 0, SB_MAP_ABS }, FAMILY_SIGNED_ZEROS },
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_SQUARE }, FAMILY_HUGE_RANGE },
    { { SB_MIN, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    { { SB_SUM, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_CANCELLATION },
    { { SB_MAX, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_SUM, SB_F16, SB_F32, 0, SB_MAP_NONE }, HALF_RANDOM_BITS },
    { { SB_SUM, SB_F16, SB_F16, 0, SB_MAP_NONE }, HALF_SUBNORMAL },
    { { SB_MAX, SB_BF16, SB_F32, 0, SB_MAP_NONE }, HALF_SPECIALS },
    { { SB_SUM, SB_BF16, SB_BF16, 0, SB_MAP_SQUARE }, HALF_MODERATE },
    { { SB_SUM, SB_F32, 0, SB_SKIP_NAN, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_NEGATIVE_ZERO },
    { { SB_SUM, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    { { SB_SUM, SB_F32, SB_F64, 0, SB_MAP_NONE }, FAMILY_CANCELLATION },
    { { SB_MAX, SB_F16, SB_F64, 0, SB_MAP_ABS }, HALF_SPECIALS },
    { { SB_SUM, SB_F16, SB_F64, 0, SB_MAP_NONE }, HALF_RANDOM_BITS },
    { { SB_SUM, SB_BF16, SB_F64, 0, SB_MAP_SQUARE }, HALF_RANDOM_BITS },
    { { SB_SUM, SB_I16, SB_F32, 0, SB_MAP_SQUARE }, FAMILY_UNIFORM },
    { { SB_MAX, SB_I32, SB_F64, 0, SB_MAP_ABS }, FAMILY_LIMITS },
    { { SB_SUM, SB_U8, SB_F32, 0, SB_MAP_NONE }, FAMILY_UNIFORM },
};

static void many_columns_match(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    const size_t sizes[] = { 2, 15, 16, 17, 33, 256, 1000, 3001 };
    const size_t counts[] = { 37, 16, 100, 15, 8 };
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        if (dc->dev->oclgrind)
            continue;
        for (size_t k = 0; k < COUNT(column_cases); k++)
            for (size_t si = 0; si < COUNT(sizes); si++)
                for (size_t sh = 0; sh < 3; sh++) {
                    const size_t count = counts[(k + si + sh) %
                                                COUNT(counts)];
                    const ptrdiff_t es[] = { (ptrdiff_t)count,
                                             (ptrdiff_t)count + 3,
                                             -(ptrdiff_t)count - 1 };
                    const bool masked = (k + 2 * si + sh) % 7 == 6;
                    wrong += check_batch_on(dc, column_cases[k].r,
                                            (data_family)column_cases[k].family,
                                            masked, sizes[si], es[sh], count,
                                            1, mix_seed(seed, 9000000 +
                                                        ci * 10000 + k * 100
                                                        + si * 10 + sh));
                }
        /* The kernel's longest columns, and one past them (mapped). */
        if (ci % CONTEXTS_PER_DEVICE == 0)
            for (size_t n = (size_t)1 << 18; n <= ((size_t)1 << 18) + 1; n++)
                wrong += check_batch_on(dc, column_cases[0].r, FAMILY_UNIFORM,
                                        false, n, 17, 17, 1,
                                        mix_seed(seed, 9900000 + ci + n));
    }
    assert_int_equal(wrong, 0);
}

/* Rows side by side: where the program folds in vector lanes (the column
 * cases' native float sums, min and max of every element, and sums of
 * -0.0, which a leaf's first step turns into +0.0) a CPU device's rows
 * kernel folds 8 f32 (4 f64, 16 half, 8 half into f64) unmasked rows per
 * work-item, one
 * lane each, the rows' pieces transposed; counts that leave a partial
 * last block (folded as the last lanes' worth of rows, written from where
 * the block before ends), one block exactly, one row short of a block
 * (one row per item), and many; packed, padded, negative and zero batch
 * strides; n with no full leaf, with a partial last leaf and without, up
 * to near the kernel's 2^18 (64 rows: fewer that long take a launch chain
 * each). Masked batches and the programs with no lanes fold one row per
 * work-item. The suite's SB_OPT_NO_HOST context launches every batch; the
 * default one reduces the smaller ones on the host. Not on Oclgrind,
 * which has no lanes. */
static void rows_side_by_side_match(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    const size_t sizes[] = { 1, 2, 15, 16, 17, 33, 256, 1000, 3001 };
    const size_t counts[] = { 37, 16, 100, 15, 8, 17, 7, 4, 3 };
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        if (dc->dev->oclgrind)
            continue;
        for (size_t k = 0; k < COUNT(column_cases); k++)
            for (size_t si = 0; si < COUNT(sizes); si++)
                for (size_t sh = 0; sh < 4; sh++) {
                    const size_t n = sizes[si];
                    const size_t count = counts[(k + si + sh) %
                                                COUNT(counts)];
                    const ptrdiff_t bs[] = { (ptrdiff_t)n, (ptrdiff_t)n + 3,
                                             -(ptrdiff_t)n - 1, 0 };
                    const bool masked = (k + 2 * si + sh) % 7 == 6;
                    wrong += check_batch_on(dc, column_cases[k].r,
                                            (data_family)column_cases[k].family,
                                            masked, n, 1, count, bs[sh],
                                            mix_seed(seed, 9500000 +
                                                     ci * 10000 + k * 100
                                                     + si * 10 + sh));
                }
        /* Rows near the kernel's longest, with a partial last leaf and
         * the deepest counter, as many as the kernel takes at that
         * length (SB_ROWS_MIN_COUNT). */
        if (ci % CONTEXTS_PER_DEVICE == 0) {
            const size_t n = ((size_t)1 << 18) - 3;
            wrong += check_batch_on(dc, column_cases[0].r, FAMILY_UNIFORM,
                                    false, n, 1, 64, (ptrdiff_t)n + 5,
                                    mix_seed(seed, 9990000 + ci));
        }
    }
    assert_int_equal(wrong, 0);
}

/* Many short rows close together, packed, spaced and with a negative
 * batch stride: on the suite's contexts too many together for the host
 * shortcut (the rows kernel, one launch), and on a context whose
 * host_max_n takes the whole batch, mapped and reduced on the host in
 * chunks of 2^18 elements (src/device_batched.c), three or four, the
 * last one short. Not on Oclgrind (too slow). */
static void many_short_rows_match(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    enum { N = 1000, COUNT_ROWS = 900 };
    const ptrdiff_t strides[] = { N, N + 7, -(N + 7) };
    const sb_options roomy = { .host_max_n = 1 << 20 };
    for (size_t ci = 0; ci < s->context_count; ci++) {
        if (s->contexts[ci].dev->oclgrind)
            continue;
        /* The suite's context, then (once per device) the roomy one. */
        device_context own;
        const bool first = ci % CONTEXTS_PER_DEVICE == 0;
        if (first)
            assert_int_equal(device_context_open(&own, s->contexts[ci].dev,
                                                 &roomy), SB_OK);
        for (int pass = 0; pass < (first ? 2 : 1); pass++) {
            const device_context *dc = pass == 0 ? &s->contexts[ci] : &own;
            for (size_t ri = 0; ri < 3; ri++)
                for (size_t k = 0; k < COUNT(strides); k++)
                    wrong += check_batch_on(dc, reductions[ri].r,
                                            reductions[ri].family,
                                            (ri + k) % 2 == 0, N, 1,
                                            COUNT_ROWS, strides[k],
                                            mix_seed(seed, 7000000 + ci * 100
                                                     + pass * 50 + ri * 10
                                                     + k));
        }
        if (first)
            device_context_close(&own);
    }
    assert_int_equal(wrong, 0);
}

/* Many rows past host_max_n (2^15), which both contexts launch (on a
 * CPU device the rows kernel, a work-item per row or per lanes' worth of
 * rows); a few such rows
 * (too few for the rows kernel), and a few rows past 2^18 elements, a
 * launch chain each, several work-groups per row so that its node passes
 * need scratch buffers; both forms launch every row before reading any
 * record back. Not on Oclgrind (too slow for 3 * 10^6 elements). */
static void many_long_rows_match(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    enum { N = 40000, COUNT_ROWS = 80 };
    /* Rows past the rows kernel's 2^18 elements: a launch chain each. */
    enum { LONG_N = (1 << 18) + 35, LONG_ROWS = 3 };
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        if (dc->dev->oclgrind)
            continue;
        for (size_t ri = 0; ri < 2; ri++) {
            wrong += check_batch_on(dc, reductions[ri].r,
                                    reductions[ri].family, ri == 1, N, 1,
                                    COUNT_ROWS, ri == 0 ? N : -(N + 9),
                                    mix_seed(seed, 7500000 + ci * 100 + ri));
            wrong += check_batch_on(dc, reductions[ri].r,
                                    reductions[ri].family, ri == 0, LONG_N,
                                    1, LONG_ROWS,
                                    ri == 0 ? LONG_N : -(LONG_N + 3),
                                    mix_seed(seed, 7510000 + ci * 100 + ri));
            wrong += check_batch_on(dc, reductions[ri].r,
                                    reductions[ri].family, ri == 1, N, 1, 5,
                                    ri == 0 ? N + 1 : -N,
                                    mix_seed(seed, 7520000 + ci * 100 + ri));
        }
    }
    assert_int_equal(wrong, 0);
}

/* The `rows` records in rb, record b being row b of the f32 matrix x
 * (rows of n), against sb_reduce_host() and the oracle (compare_row()).
 * @return mismatches. */
static unsigned long compare_records(const test_device *d, sb_reduction r,
                                     cl_mem rb, const float *x, size_t n,
                                     size_t rows)
{
    sb_device_result *rec = checked_malloc(rows * sizeof *rec);
    read_buffer(d, rb, 0, rows * sizeof *rec, rec);
    unsigned long wrong = 0;
    for (size_t b = 0; b < rows; b++)
        wrong += compare_row(d->name, r, b,
                             (const unsigned char *)(x + b * n), NULL, n,
                             (sb_status)rec[b].status, rec[b].value);
    free(rec);
    return wrong;
}

/* The enqueue form with every row held back by a user event until the
 * call has returned: 70 rows in flight at once, more than the context's
 * 64 scratch buffers could hold one to a row (each row, too long for the
 * rows kernel's one work-item per row, is a launch chain that needs one
 * for its node pass; the form once failed with SB_OUT_OF_MEMORY at row
 * 65, however fast the device). The rows take turns with the same
 * buffers, each waiting for the one before. */
static void enqueued_rows_take_turns_with_scratch(void **state)
{
    suite *s = *state;
    enum { N = (1 << 18) + 16, ROWS = 70 };
    const sb_reduction r = reductions[0].r;
    float *x = checked_malloc((size_t)N * ROWS * sizeof *x);
    fill_data(FAMILY_UNIFORM, SB_F32, 0, x, (size_t)N * ROWS,
              mix_seed(seed, 7600000));
    unsigned long wrong = 0;
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        const test_device *d = dc->dev;
        if (d->oclgrind)
            continue;
        cl_mem xb = make_buffer(d, (size_t)N * ROWS * sizeof *x, x);
        cl_mem rb = make_buffer(d, ROWS * sizeof(sb_device_result), NULL);
        cl_int err = CL_SUCCESS;
        cl_event gate = clCreateUserEvent(d->cl_ctx, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_event done = NULL;
        const sb_status st = sb_reduce_batched_enqueue(dc->ctx, d->queue, r,
                                                       xb, 0, NULL, 0, N, 1,
                                                       ROWS, N, rb, 0, 1,
                                                       &gate, &done);
        assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE), CL_SUCCESS);
        if (st != SB_OK)
            fail_msg("%s: %s (%s)", d->name, status_name(st),
                     sb_error_detail());
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        wrong += compare_records(d, r, rb, x, N, ROWS);
        clReleaseEvent(done);
        clReleaseEvent(gate);
        /* The same rows as ROWS calls of one row each, each call waiting
         * for the `done` of the one before, all held back by a gate: a
         * call's `done` (the copy of its records) is the last use of its
         * scratch buffers, so the next call reuses them (sb_reduce_
         * batched_enqueue() once left them to the last row's event, and
         * the calls ran out of buffers after 64). */
        sb_device_result fill[ROWS];
        memset(fill, RESULT_SENTINEL, sizeof fill);   /* no record left */
        assert_int_equal(clEnqueueWriteBuffer(d->queue, rb, CL_TRUE, 0,
                                              sizeof fill, fill, 0, NULL,
                                              NULL),
                         CL_SUCCESS);
        cl_event gate2 = clCreateUserEvent(d->cl_ctx, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_event prev = gate2;
        sb_status chained = SB_OK;
        size_t calls = 0;
        for (; calls < ROWS && chained == SB_OK; calls++) {
            cl_event ev = NULL;
            chained = sb_reduce_batched_enqueue(dc->ctx, d->queue, r, xb,
                                                calls * N, NULL, 0, N, 1, 1,
                                                N, rb, calls * 16, 1, &prev,
                                                &ev);
            if (prev != gate2)
                clReleaseEvent(prev);
            prev = chained == SB_OK ? ev : NULL;
        }
        assert_int_equal(clSetUserEventStatus(gate2, CL_COMPLETE),
                         CL_SUCCESS);
        clReleaseEvent(gate2);
        if (chained != SB_OK)
            fail_msg("%s: chained call %zu: %s (%s)", d->name, calls - 1,
                     status_name(chained), sb_error_detail());
        assert_int_equal(clWaitForEvents(1, &prev), CL_SUCCESS);
        clReleaseEvent(prev);
        wrong += compare_records(d, r, rb, x, N, ROWS);
        clReleaseMemObject(xb);
        clReleaseMemObject(rb);
    }
    free(x);
    assert_int_equal(wrong, 0);
}

/* sb_reduce_segments() of reductions[ri] over segments `offsets` (count +
 * 1 of them, from 0 to total) against compare_row(). @return mismatches. */
static unsigned long check_segments_on(const device_context *dc,
                                       const reduction_case *rc, bool masked,
                                       const uint64_t *offsets, size_t count,
                                       uint64_t st)
{
    const test_device *d = dc->dev;
    const sb_reduction r = rc->r;
    const size_t size = type_size(r.input), rs = sb_result_size(r);
    const size_t total = (size_t)offsets[count];
    unsigned long wrong = 0;
    unsigned char *x = checked_malloc((total + PAD) * size);
    if (r.input == SB_F16 || r.input == SB_BF16)   /* a half_family */
        fill_half((half_family)rc->family, r.input, (uint16_t *)x,
                  total + PAD, mix_seed(st, 1));
    else
        fill_data(rc->family, r.input, r.accumulator, x, total + PAD,
                  mix_seed(st, 1));
    unsigned char *mask = masked ? make_mask(MASK_EMPTY_LEAVES, total + PAD,
                                             mix_seed(st, 2))
                                 : NULL;
    cl_mem xb = make_buffer(d, (total + PAD) * size, x);
    cl_mem mb = mask ? make_buffer(d, total + PAD, mask) : NULL;
    cl_mem ob = make_buffer(d, (count + 3) * sizeof(uint64_t), NULL);
    clEnqueueWriteBuffer(d->queue, ob, CL_TRUE, 2 * sizeof(uint64_t),
                         (count + 1) * sizeof(uint64_t), offsets, 0, NULL,
                         NULL);
    unsigned char *results = checked_malloc(count * rs);
    sb_status *statuses = checked_malloc(count * sizeof *statuses);
    memset(results, RESULT_SENTINEL, count * rs);
    const sb_status got = sb_reduce_segments(dc->ctx, NULL, r, xb, PAD, mb,
                                             PAD, ob, 2, count, results,
                                             statuses);
    if (got != SB_OK) {
        fprintf(stderr, "%s: sb_reduce_segments %s (%s)\n", d->name,
                status_name(got), sb_error_detail());
        wrong++;
    }
    for (size_t b = 0; b < count && got == SB_OK; b++)
        wrong += compare_row(d->name, r, b, x + (PAD + offsets[b]) * size,
                             mask ? mask + PAD + offsets[b] : NULL,
                             (size_t)(offsets[b + 1] - offsets[b]),
                             statuses[b], results + b * rs);
    clReleaseMemObject(xb);
    clReleaseMemObject(ob);
    if (mb)
        clReleaseMemObject(mb);
    free(results);
    free(statuses);
    free(x);
    free(mask);
    return wrong;
}

static void segments_match_the_host_and_the_oracle(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        const test_device *d = dc->dev;
        for (size_t ri = 0; ri < COUNT(reductions); ri++) {
            uint64_t st = mix_seed(seed, 7000 + ci * 100 + ri);
            const size_t count = d->oclgrind ? 6 : 17;
            const size_t total = d->oclgrind ? 90 : 2500;
            size_t cuts[18];
            random_cuts(&st, total, count + 1, cuts);
            uint64_t offsets[18];
            for (size_t b = 0; b <= count; b++)
                offsets[b] = cuts[b];
            wrong += check_segments_on(dc, &reductions[ri], ri % 2, offsets,
                                       count, st);
        }
    }
    assert_int_equal(wrong, 0);
}

/* Many segments, short ones (some empty) around three longer ones past
 * the default host_max_n (2^15): the default context maps each run of
 * short ones (about 3.6 * 10^5 elements between long ones) at once, the
 * long ones launch; a context with host_max_n 2048 (every short one
 * still on the host) too, where the map is the buffer itself (a CPU
 * device), else in chunks of up to 2^18 elements; with SB_OPT_NO_HOST
 * the segments kernel takes the short ones. Not on Oclgrind (1.5 * 10^6
 * elements; runs_of_segments_past_the_kernel() has its chunks). */
static void many_segments_match_by_chunks(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    enum { SEGMENTS = 1200 };
    uint64_t *offsets = checked_malloc((SEGMENTS + 1) * sizeof *offsets);
    const sb_options chunked = { .host_max_n = 2048 };
    for (size_t ci = 0; ci < s->context_count; ci++) {
        if (s->contexts[ci].dev->oclgrind)
            continue;
        /* The suite's context, then (once per device) the chunked one. */
        device_context own;
        const bool first = ci % CONTEXTS_PER_DEVICE == 0;
        if (first)
            assert_int_equal(device_context_open(&own, s->contexts[ci].dev,
                                                 &chunked), SB_OK);
        for (size_t pass = 0; pass < (first ? 2u : 1u); pass++) {
            const device_context *dc = pass == 0 ? &s->contexts[ci] : &own;
            for (size_t ri = 0; ri < 3; ri++) {
                uint64_t st = mix_seed(seed, 8000 + ci * 100 + pass * 10
                                       + ri);
                offsets[0] = 0;
                for (size_t b = 0; b < SEGMENTS; b++) {
                    const uint64_t len = b % 397 == 5
                                       ? 32768 + random_below(&st, 9000)
                                       : b % 13 == 0 ? 0
                                       : random_below(&st, 2000);
                    offsets[b + 1] = offsets[b] + len;
                }
                wrong += check_segments_on(dc, &reductions[ri], ri % 2,
                                           offsets, SEGMENTS, st);
            }
        }
        if (first)
            device_context_close(&own);
    }
    free(offsets);
    assert_int_equal(wrong, 0);
}

/* Segments that the host takes and the kernel does not, 2.2 million
 * elements of them, on a context with host_max_n 8192: lengths
 * 2049 to 8192 lie past a GPU's segments kernel (2048 elements, 128
 * leaves an item) and within the host's reach. Where a map may copy (a
 * GPU, Oclgrind: no host-unified memory) they are mapped in runs of at
 * most 128 host_max_n = 2^20 elements, so three runs or more, each
 * reduced with its offsets made relative to its start; on a CPU device
 * (the map is the buffer) in one. Only on the first context of each
 * device: this is about the host's runs, which no option but host_max_n
 * changes. */
static void runs_of_segments_past_the_kernel(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    /* Enough for 2^21 + 10^5 elements of segments of 2049 or more. */
    enum { SEGMENTS = 1100 };
    uint64_t *offsets = checked_malloc((SEGMENTS + 1) * sizeof *offsets);
    const sb_options runs = { .host_max_n = 8192 };
    for (size_t ci = 0; ci < s->context_count;
         ci += CONTEXTS_PER_DEVICE) {
        device_context own;
        assert_int_equal(device_context_open(&own, s->contexts[ci].dev,
                                             &runs), SB_OK);
        for (size_t ri = 0; ri < 3; ri++) {
            uint64_t st = mix_seed(seed, 8500 + ci * 100 + ri);
            size_t count = 0;
            offsets[0] = 0;
            while (offsets[count] < 2 * ((uint64_t)1 << 20) + 100000) {
                offsets[count + 1] = offsets[count] + 2049
                                     + random_below(&st, 8192 - 2049 + 1);
                count++;
            }
            wrong += check_segments_on(&own, &reductions[ri], ri % 2,
                                       offsets, count, st);
        }
        device_context_close(&own);
    }
    free(offsets);
    assert_int_equal(wrong, 0);
}

/* The segments kernel (one launch, a work-item per segment): 64 or more
 * segments past SB_ROWS_ALWAYS_N (8192) let it take them, up to 2^18
 * elements on a CPU device (2^15 on llvmpipe), where fewer go to a launch
 * chain each; on the default context only those past host_max_n (2^15:
 * the shorter ones stay on the host, beside it), with SB_OPT_NO_HOST all
 * of them. The lengths: 64 or more of 32769 to 60000 (past host_max_n),
 * others of 8193 to 32768, among adversarial short ones (0, 1, 15, 16,
 * 17, 31, 32, 33, 255, 256, 257, 1000 and random), in random order, in
 * runs of one length (up to 20 short or 10 long ones: a run of a
 * register's lanes of them, unmasked, folds side by side in the kernel of
 * a CPU device's native float sums, min and max); sums (signed zeros
 * among them), min, max, counts and argmin / argmax, masked every other
 * time. Not on Oclgrind (millions of elements). */
static const reduction_case kernel_segment_reductions[] = {
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_CANCELLATION },
    { { SB_SUM, SB_I32, 0, 0, SB_MAP_NONE }, FAMILY_LIMITS },
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_NEGATIVE_ZERO },
    { { SB_MAX, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_SUM, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    { { SB_MIN, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    { { SB_COUNT, SB_F32, 0, SB_SKIP_NAN, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_ARGMAX, SB_F32, 0, 0, SB_MAP_ABS }, FAMILY_SPECIALS },
    { { SB_ARGMIN, SB_F64, 0, 0, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    /* into f64: bf16 (masked: ri odd) over bf16's whole range, whose
     * sums round in f64; f32 unmasked, so that its runs fold in lanes */
    { { SB_SUM, SB_BF16, SB_F64, 0, SB_MAP_NONE },
      (data_family)HALF_RANDOM_BITS },
    { { SB_SUM, SB_F32, SB_F64, 0, SB_MAP_NONE }, FAMILY_CANCELLATION },
};

static void segments_of_every_length_by_the_kernel(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    /* A run is long 45 times in 100; a long one is past host_max_n 60
     * times in 100. */
    enum { SEGMENTS = 600, LONG_IN = 45, OVER_IN = 60, OVERS = 64 };
    static const uint64_t edges[] = { 0, 1, 15, 16, 17, 31, 32, 33, 255, 256,
                                      257, 1000 };
    uint64_t *offsets = checked_malloc((SEGMENTS + 1) * sizeof *offsets);
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        if (dc->dev->oclgrind)
            continue;
        for (size_t ri = 0; ri < COUNT(kernel_segment_reductions); ri++) {
            const reduction_case *rc = &kernel_segment_reductions[ri];
            uint64_t st = mix_seed(seed, 8500 + ci * 100 + ri);
            offsets[0] = 0;
            size_t overs = 0;
            for (size_t b = 0; b < SEGMENTS;) {
                const bool must = overs < OVERS
                                  && SEGMENTS - b < 2 * (OVERS - overs);
                const bool is_long = must
                                     || random_below(&st, 100) < LONG_IN;
                const bool is_over = must || (is_long &&
                                     random_below(&st, 100) < OVER_IN);
                const size_t run = 1 + random_below(&st, is_long ? 10 : 20);
                const uint64_t len = is_over
                                   ? 32769 + random_below(&st, 60000 - 32769)
                                   : is_long
                                   ? 8193 + random_below(&st, 32768 - 8193)
                                   : b % 3 == 0 ? random_below(&st, 3000)
                                   : edges[random_below(&st, COUNT(edges))];
                for (size_t j = 0; j < run && b < SEGMENTS; j++, b++) {
                    offsets[b + 1] = offsets[b] + len;
                    overs += is_over;
                }
            }
            /* Else the kernel takes none beside the host's runs. */
            assert_true(overs >= OVERS);
            wrong += check_segments_on(dc, rc, ri % 2 == 1, offsets,
                                       SEGMENTS, mix_seed(st, 3));
        }
    }
    free(offsets);
    assert_int_equal(wrong, 0);
}

/* Argmin and argmax of many short rows (the rows kernel's positions) and
 * segments (the default context maps runs of short ones back by chunks
 * and reduces them with the host's arg path): NaNs, signed zeros and
 * ties (the lower position wins), |x| (BLAS i?amax), NaN skipping, a mask
 * that empties leaves and whole rows; against sb_reduce_host() and the
 * oracle's literal fold and tree. Only the default context here
 * (test_device_arg covers the SB_OPT_NO_HOST one with small batches). */
static const reduction_case arg_reductions[] = {
    { { SB_ARGMIN, SB_F32, 0, 0, SB_MAP_NONE }, FAMILY_SPECIALS },
    { { SB_ARGMAX, SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE }, FAMILY_SIGNED_ZEROS },
    { { SB_ARGMAX, SB_F32, 0, 0, SB_MAP_ABS }, FAMILY_SIGNED_ZEROS },
    { { SB_ARGMIN, SB_I32, 0, 0, SB_MAP_NONE }, FAMILY_LIMITS },
};

static void args_of_short_rows_and_segments_by_chunks(void **state)
{
    suite *s = *state;
    unsigned long wrong = 0;
    enum { N = 700, ROWS = 1000, SEGMENTS = 900 };
    uint64_t *offsets = checked_malloc((SEGMENTS + 1) * sizeof *offsets);
    for (size_t ci = 0; ci < s->context_count; ci++) {
        const device_context *dc = &s->contexts[ci];
        if (dc->dev->oclgrind || (dc->opts.flags & SB_OPT_NO_HOST))
            continue;
        for (size_t ai = 0; ai < COUNT(arg_reductions); ai++) {
            const reduction_case *rc = &arg_reductions[ai];
            uint64_t st = mix_seed(seed, 9000 + ci * 100 + ai);
            wrong += check_batch_on(dc, rc->r, rc->family, ai % 2 == 1, N, 1,
                                    ROWS, ai < 2 ? N : -(N + 3),
                                    mix_seed(st, 1));
            offsets[0] = 0;
            for (size_t b = 0; b < SEGMENTS; b++)
                offsets[b + 1] = offsets[b]
                               + (b % 11 == 0 ? 0 : random_below(&st, 1200));
            wrong += check_segments_on(dc, rc, ai % 2 == 0, offsets, SEGMENTS,
                                       mix_seed(st, 2));
        }
    }
    free(offsets);
    assert_int_equal(wrong, 0);
}

static void refused_calls_write_nothing(void **state)
{
    suite *s = *state;
    const device_context *dc = &s->contexts[0];
    const test_device *d = dc->dev;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction argmin = { .op = SB_ARGMIN, .input = SB_F32 };
    float x[40] = { 0 };
    cl_mem xb = make_buffer(d, sizeof x, x);
    cl_mem rb = make_buffer(d, 4 * sizeof(sb_device_result), NULL);
    const uint64_t bad_offsets[4] = { 0, 5, 3, 9 };
    const uint64_t long_offsets[4] = { 0, 5, 9, 41 };
    cl_mem ob = make_buffer(d, sizeof bad_offsets, bad_offsets);
    cl_mem lb = make_buffer(d, sizeof long_offsets, long_offsets);
    unsigned char results[4 * 8];
    sb_status statuses[4];
    struct { const char *what; sb_status want; sb_status got; } c[12];
    size_t k = 0;
#define CASE(w, status, call)                                              \
    do {                                                                   \
        memset(results, RESULT_SENTINEL, sizeof results);                  \
        memset(statuses, STATUS_SENTINEL, sizeof statuses);                \
        c[k].what = (w); c[k].want = (status); c[k].got = (call);          \
        printf("  %s: %s\n", c[k].what, sb_error_detail());               \
        assert_true(strlen(sb_error_detail()) > 0);                        \
        for (size_t i = 0; i < sizeof results; i++)                        \
            assert_int_equal(results[i], RESULT_SENTINEL);                 \
        for (size_t i = 0; i < sizeof statuses; i++)                       \
            assert_int_equal(((unsigned char *)statuses)[i],               \
                             STATUS_SENTINEL);                             \
        assert_int_equal(c[k].got, c[k].want);                             \
        k++;                                                               \
    } while (0)
    CASE("rows past the end", SB_INVALID_ARGUMENT,
         sb_reduce_batched(dc->ctx, NULL, r, xb, 0, NULL, 0, 10, 1, 5, 10,
                           results, statuses));
    CASE("columns past the end", SB_INVALID_ARGUMENT,
         sb_reduce_batched(dc->ctx, NULL, r, xb, 1, NULL, 0, 10, 4, 4, 1,
                           results, statuses));
    CASE("before element 0", SB_INVALID_ARGUMENT,
         sb_reduce_batched(dc->ctx, NULL, r, xb, 3, NULL, 0, 5, -1, 2, 1,
                           results, statuses));
    CASE("strides past PTRDIFF_MAX", SB_INVALID_ARGUMENT,
         sb_reduce_batched(dc->ctx, NULL, r, xb, 0, NULL, 0, 3, PTRDIFF_MAX,
                           2, 1, results, statuses));
    CASE("NULL statuses", SB_INVALID_ARGUMENT,
         sb_reduce_batched(dc->ctx, NULL, r, xb, 0, NULL, 0, 2, 1, 2, 2,
                           results, NULL));
    CASE("argmin records (24 bytes each) past the end", SB_INVALID_ARGUMENT,
         sb_reduce_batched_enqueue(dc->ctx, NULL, argmin, xb, 0, NULL, 0, 2,
                                   1, 3, 2, rb, 0, 0, NULL, NULL));
    CASE("records past the end", SB_INVALID_ARGUMENT,
         sb_reduce_batched_enqueue(dc->ctx, NULL, r, xb, 0, NULL, 0, 2, 1, 4,
                                   2, rb, 8, 0, NULL, NULL));
    CASE("records offset not a multiple of 8", SB_INVALID_ARGUMENT,
         sb_reduce_batched_enqueue(dc->ctx, NULL, r, xb, 0, NULL, 0, 2, 1, 2,
                                   2, rb, 4, 0, NULL, NULL));
    CASE("offsets decrease", SB_INVALID_ARGUMENT,
         sb_reduce_segments(dc->ctx, NULL, r, xb, 0, NULL, 0, ob, 0, 3,
                            results, statuses));
    CASE("offsets past their buffer", SB_INVALID_ARGUMENT,
         sb_reduce_segments(dc->ctx, NULL, r, xb, 0, NULL, 0, ob, 1, 3,
                            results, statuses));
    CASE("segments past the end of x", SB_INVALID_ARGUMENT,
         sb_reduce_segments(dc->ctx, NULL, r, xb, 0, NULL, 0, lb, 0, 3,
                            results, statuses));
#undef CASE
    clReleaseMemObject(xb);
    clReleaseMemObject(rb);
    clReleaseMemObject(ob);
    clReleaseMemObject(lb);
}

/* The host reductions of the device forms (the read-back batches: short
 * rows by chunks, strided rows, runs of short segments) run with the
 * context's sb_options.host, as sb_reduce()'s do. The bits never depend
 * on it, so what shows it is a setting they refuse: an instruction set
 * that is no SB_ISA_* value is refused by all four, as by sb_reduce(),
 * writing nothing; SB_ISA_BASELINE with one thread gives the host's bits. */
static void context_host_options_reach_the_read_backs(void **state)
{
    suite *s = *state;
    const test_device *d = s->contexts[0].dev;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    enum { N = 100, ROWS = 40 };
    float x[N * ROWS];
    for (size_t i = 0; i < N * ROWS; i++)
        x[i] = (float)((i * 2654435761u) % 1000u) * 0.37f - 150.0f;
    const uint64_t offsets[4] = { 0, 17, 17, 300 };
    cl_mem xb = make_buffer(d, sizeof x, x);
    cl_mem ob = make_buffer(d, sizeof offsets, offsets);
    float want[ROWS], got[ROWS];
    sb_status want_st[ROWS], got_st[ROWS];
    for (int pass = 0; pass < 2; pass++) {
        sb_options o = { 0 };
        o.host.isa = pass == 0 ? 0x7fu : SB_ISA_BASELINE;
        o.host.threads = 1;
        device_context dc;
        assert_int_equal(device_context_open(&dc, d, &o), SB_OK);
        const sb_status expect = pass == 0 ? SB_INVALID_ARGUMENT : SB_OK;
        float one;
        assert_int_equal(sb_reduce(dc.ctx, NULL, r, xb, 0, NULL, 0, N, &one),
                         expect);
        struct { const char *what; sb_status st; size_t count; } c[3];
        memset(got, RESULT_SENTINEL, sizeof got);
        memset(got_st, RESULT_SENTINEL, sizeof got_st);
        c[0].what = "short rows by chunks";
        c[0].count = ROWS;
        c[0].st = sb_reduce_batched(dc.ctx, NULL, r, xb, 0, NULL, 0, N, 1,
                                    ROWS, N, got, got_st);
        if (pass == 1) {
            assert_int_equal(sb_reduce_batched_host(r, x, NULL, N, 1, ROWS, N,
                                                    want, want_st), SB_OK);
            assert_memory_equal(got, want, sizeof want);
            assert_memory_equal(got_st, want_st, sizeof want_st);
        }
        c[1].what = "strided rows";
        c[1].count = ROWS / 2;
        c[1].st = sb_reduce_batched(dc.ctx, NULL, r, xb, 0, NULL, 0, N / 2, 2,
                                    ROWS / 2, 2 * N, got,
                                    got_st);
        if (pass == 1) {
            assert_int_equal(sb_reduce_batched_host(r, x, NULL, N / 2, 2,
                                                    ROWS / 2, 2 * N, want,
                                                    want_st), SB_OK);
            assert_memory_equal(got, want, ROWS / 2 * sizeof *want);
            assert_memory_equal(got_st, want_st, ROWS / 2 * sizeof *want_st);
        }
        c[2].what = "short segments";
        c[2].count = 3;
        c[2].st = sb_reduce_segments(dc.ctx, NULL, r, xb, 0, NULL, 0, ob, 0,
                                     3, got, got_st);
        if (pass == 1) {
            assert_int_equal(sb_reduce_segments_host(r, x, NULL, offsets, 3,
                                                     want, want_st), SB_OK);
            assert_memory_equal(got, want, 3 * sizeof *want);
            assert_memory_equal(got_st, want_st, 3 * sizeof *want_st);
        }
        for (size_t k = 0; k < 3; k++) {
            printf("  host.isa %#x, %s: %s%s%s\n", o.host.isa, c[k].what,
                   status_name(c[k].st), c[k].st ? ": " : "",
                   c[k].st ? sb_error_detail() : "");
            assert_int_equal(c[k].st, expect);
        }
        if (pass == 0)   /* refused: nothing written */
            for (size_t i = 0; i < sizeof got; i++) {
                assert_int_equal(((unsigned char *)got)[i], RESULT_SENTINEL);
                assert_int_equal(((unsigned char *)got_st)[i % sizeof got_st],
                                 RESULT_SENTINEL);
            }
        device_context_close(&dc);
    }
    clReleaseMemObject(xb);
    clReleaseMemObject(ob);
}

int main(void)
{
    seed = test_seed(20240918u);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refused_calls_write_nothing),
        cmocka_unit_test(batches_match_the_host_and_the_oracle),
        cmocka_unit_test(rows_side_by_side_match),
        cmocka_unit_test(many_short_rows_match),
        cmocka_unit_test(many_columns_match),
        cmocka_unit_test(many_long_rows_match),
        cmocka_unit_test(enqueued_rows_take_turns_with_scratch),
        cmocka_unit_test(many_segments_match_by_chunks),
        cmocka_unit_test(runs_of_segments_past_the_kernel),
        cmocka_unit_test(segments_of_every_length_by_the_kernel),
        cmocka_unit_test(segments_match_the_host_and_the_oracle),
        cmocka_unit_test(args_of_short_rows_and_segments_by_chunks),
        cmocka_unit_test(context_host_options_reach_the_read_backs),
    };
    return cmocka_run_group_tests_name("device_batched", tests, setup,
                                       teardown);
}
