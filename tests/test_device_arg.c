/* tests/test_device_arg.c: SB_ARGMIN and SB_ARGMAX on every device present
 * (POCL, and Oclgrind with small sizes), bit for bit (memcmp of the whole
 * result buffer: the value's bytes, the zero bytes after them, the
 * position, the sentinels after the record) and status for status against
 * sb_reduce_host() and oracle_reduce(), the literal fold and tree:
 *
 *   - f32, f64, f16, bf16 (into f32), i32, u8 (into u32), i64 and u64;
 *     |x| (BLAS i?amax, a checked i32 |INT32_MIN| overflowing), a wrapping
 *     |x|, SB_SKIP_NAN; data with NaNs, signed zeros, infinities and
 *     integer limits, masks that empty whole leaves or everything; sizes
 *     around the leaf and powers of two up to ~10^5; three launch shapes;
 *   - leaves that start with a NaN, which hide their right siblings'
 *     smaller values from the tree (docs/order.md), at hand-placed leaves;
 *   - the float modes (guarded, software f64, a flushing device);
 *   - sb_reduce_batched() rows and sb_reduce_segments() against the host
 *     forms; sb_partial_add() pieces merged with host pieces;
 *   - sb_reduce_enqueue() beside every sb_reduce() (its sb_device_arg_result
 *     record, the bytes around it untouched), and
 *     sb_reduce_batched_enqueue() of rows and of strided columns against
 *     sb_reduce_batched_host().
 *
 * Seeded (printed at start; SAMEBITS_TEST_SEED replays a run). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { X_PAD = 3, M_PAD = 7, MAX_PIECES = 12 };

static uint64_t seed;

#define R(op, in, acc, flags, map) \
    { SB_##op, SB_##in, (sb_type)(acc), (flags), SB_MAP_##map }
static const sb_reduction jobs[] = {
    R(ARGMIN, F32, 0, 0, NONE), R(ARGMAX, F32, 0, 0, NONE),
    R(ARGMIN, F64, 0, 0, NONE), R(ARGMAX, F64, 0, SB_SKIP_NAN, NONE),
    R(ARGMAX, F32, 0, 0, ABS), R(ARGMIN, F32, SB_F64, 0, NONE),
    R(ARGMIN, F16, 0, 0, NONE), R(ARGMAX, BF16, SB_F32, 0, NONE),
    R(ARGMIN, I32, 0, 0, NONE), R(ARGMAX, I32, 0, 0, ABS),
    R(ARGMAX, I16, 0, SB_WRAP, ABS), R(ARGMIN, U8, SB_U32, 0, NONE),
    R(ARGMAX, I64, 0, 0, NONE), R(ARGMIN, U64, 0, 0, NONE),
};

static const size_t pocl_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 65, 255, 257, 1023, 1025, 4095, 4097,
    65537, 100003,
};
static const size_t small_sizes[] = { 0, 1, 16, 17, 33, 65, 129 };

static bool is_half(sb_type t) { return t == SB_F16 || t == SB_BF16; }

/* Ties and NaNs decide argmin: the families where they are common. */
static void *make_x(sb_type t, size_t n, uint64_t s)
{
    void *x = checked_malloc(n * type_size(t) + 2);
    static const data_family families[] = {
        FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS, FAMILY_NEGATIVE_ZERO,
        FAMILY_LIMITS, FAMILY_UNIFORM,
    };
    static const half_family halves[] = {
        HALF_NAN_LEAVES, HALF_SIGNED_ZEROS, HALF_SPECIALS, HALF_MODERATE,
    };
    if (is_half(t))
        fill_half(halves[s % COUNT(halves)], t, x, n, s);
    else
        fill_data(families[s % COUNT(families)], t, 0, x, n, s);
    return x;
}

/* A batch's data: x (make_x()) and, every other k, a mask that empties
 * leaves, in host memory and in padded buffers of the device. */
typedef struct {
    void          *x;
    unsigned char *mask;
    cl_mem         xb, mb;
} batch_data;

static batch_data batch_data_make(const test_device *dev, sb_reduction r,
                                  size_t n, size_t k, uint64_t st)
{
    const size_t es = type_size(r.input);
    batch_data b;
    b.x = make_x(r.input, n, st);
    b.mask = make_mask(k % 2 ? MASK_EMPTY_LEAVES : MASK_NONE, n,
                       mix_seed(st, 2));
    b.xb = padded_copy(dev, b.x, n * es, X_PAD * es);
    b.mb = b.mask ? padded_copy(dev, b.mask, n, M_PAD) : NULL;
    return b;
}

static void batch_data_free(batch_data *b)
{
    clReleaseMemObject(b->xb);
    if (b->mb)
        clReleaseMemObject(b->mb);
    free(b->mask);
    free(b->x);
}

static bool check_arg(const device_context *dc, sb_reduction r, size_t n,
                      mask_kind mk, sb_status *os, uint64_t salt)
{
    const test_case c = make_case(mix_seed(seed, salt), r, n, mk,
                                  FAMILY_SPECIALS);
    void *x = make_x(r.input, n, c.case_seed);
    unsigned char *mask = make_mask(mk, n, mix_seed(c.case_seed, 2));
    const bool ok = check_data_on_device(dc, &c, x, mask, RUN_BOTH, os);
    free(mask);
    free(x);
    return ok;
}

static int run_args(const device_context *dc, const size_t *sizes,
                    size_t size_count, size_t every, tally *t)
{
    int failures = 0;
    for (size_t k = 0; k < COUNT(jobs); k += every)
        for (size_t s = 0; s < size_count; s++)
            for (unsigned rep = 0; rep < 2; rep++) {
                if (dc->dev->sparse && rep != (k + s / 2) % 2)
                    continue;
                const mask_kind mk = rep == 0 ? MASK_NONE
                    : (mask_kind)(1 + (k + s) % (MASK_COUNT - 1));
                sb_status os;
                const bool ok = check_arg(dc, jobs[k], sizes[s], mk, &os,
                                          k * 1000 + s * 10 + rep);
                failures += !ok;
                tally_add(t, os, ok);
            }
    return failures;
}

static void args_match_host_and_oracle(void **state)
{
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o[3] = {
            { .flags = SB_OPT_NO_HOST },
            { .host_max_n = 64, .leaves_per_item = 4 },
            { .flags = SB_OPT_NO_HOST, .work_group_size = 16,
              .leaves_per_item = 1, .tree_work_group_size = 16,
              .nodes_per_item = 2 },
        };
        /* All three stay open to the end: contexts of one cl_context
         * share a program while one of them holds it, so each program is
         * built once (Oclgrind keeps no kernel cache). */
        device_context held[3];
        for (size_t c = 0; c < 3; c++) {
            device_context *const pdc = &held[c];
            assert_int_equal(device_context_open(pdc, dev, &o[c]), SB_OK);
            device_context dc = *pdc;
            tally t = { 0 };
            if (dev->oclgrind) {
                keep_buffers();
                failures += run_args(&dc, small_sizes,
                                     c == 0 ? COUNT(small_sizes) : 3,
                                     c == 0 ? 1 : 3, &t);
                release_kept_buffers();
            } else {
                failures += run_args(&dc, pocl_sizes, COUNT(pocl_sizes), 1,
                                     &t);
            }
            printf("%s, context %zu: ", dev->name, c);
            print_tally("argmin/argmax", &t);
        }
        for (size_t c = 0; c < 3; c++)
            device_context_close(&held[c]);
    }
    assert_int_equal(failures, 0);
}

/* Moderate values, then NaNs at the start of chosen leaves, and smaller
 * values both behind a NaN-led left sibling (lost to the tree) and where
 * the tree sees them. The positions are chosen here; what the answer must
 * be is the oracle's. */
static void nan_led_leaves_hide_their_subtrees(void **state)
{
    const device_list *list = *state;
    enum { N = 16 * 70 + 5 };
    static float x[N];
    static const struct { size_t nan_leaves[3], small_at[2]; } layouts[] = {
        { { 8, 20, 0 }, { 9 * 16 + 4, 50 * 16 + 7 } },   /* 9 hidden */
        { { 0, 0, 0 }, { 3, 100 } },                      /* NaN at 0 */
        { { 32, 33, 0 }, { 34 * 16, 60 * 16 + 1 } },     /* 34 hidden */
        { { 1, 3, 5 }, { 2 * 16 + 3, 69 * 16 + 15 } },
    };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
        if (dev->oclgrind)
            keep_buffers();
        for (size_t l = 0; l < COUNT(layouts); l++)
            for (int op = 0; op < 2; op++)
                for (int masked = 0; masked < 2; masked++) {
                    uint64_t st = mix_seed(seed, 900 + l * 4 + op * 2
                                           + (unsigned)masked);
                    for (size_t i = 0; i < N; i++)
                        x[i] = 1.0f + (float)random_below(&st, 1000) / 1024;
                    for (size_t j = 0; j < 3; j++)
                        if (layouts[l].nan_leaves[j] != 0 || j == 0)
                            x[16 * layouts[l].nan_leaves[j]] = NAN;
                    const float far = op ? 9.0f : -9.0f;
                    x[layouts[l].small_at[0]] = far;        /* the extreme */
                    x[layouts[l].small_at[1]] = far / 2;    /* visible */
                    const sb_reduction r = { .op = op ? SB_ARGMAX : SB_ARGMIN,
                                             .input = SB_F32 };
                    /* The mask takes the first NaN out of its leaf. */
                    unsigned char *mask = NULL;
                    if (masked) {
                        mask = checked_malloc(N);
                        memset(mask, 1, N);
                        mask[16 * layouts[l].nan_leaves[0]] = 0;
                    }
                    const test_case c = make_case(seed, r, N,
                                                  masked ? MASK_RANDOM
                                                         : MASK_NONE,
                                                  FAMILY_SPECIALS);
                    sb_status os;
                    const bool ok = check_data_on_device(&dc, &c, x, mask,
                                                         RUN_BOTH, &os);
                    assert_int_equal(os, SB_OK);
                    failures += !ok;
                    free(mask);
                }
        if (dev->oclgrind)
            release_kept_buffers();
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

static void args_match_in_every_float_mode(void **state)
{
    const device_list *list = *state;
    static const sb_options modes[] = {
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_GUARDED },
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_SOFTWARE },
        { .flags = SB_OPT_NO_HOST | SB_OPT_FLUSH_SUBNORMALS },
    };
    static const size_t sizes[] = { 1, 17, 65, 4097, 40000 };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        for (size_t m = 0; m < COUNT(modes); m++) {
            if (dev->oclgrind && m != 1)
                continue;   /* slow: the software mode only, small sizes */
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &modes[m]), SB_OK);
            tally t = { 0 };
            if (dev->oclgrind)
                keep_buffers();
            /* The float jobs: the first eight. */
            for (size_t k = 0; k < 8; k++)
                for (size_t s = 0; s < (dev->oclgrind ? 2 : COUNT(sizes));
                     s++) {
                    sb_status os;
                    const mask_kind mk = (k + s) % 2 ? MASK_EMPTY_LEAVES
                                                     : MASK_NONE;
                    const bool ok = check_arg(&dc, jobs[k], sizes[s], mk,
                                              &os, 5000 + m * 100 + k * 10
                                              + s);
                    failures += !ok;
                    tally_add(&t, os, ok);
                }
            if (dev->oclgrind)
                release_kept_buffers();
            printf("%s, mode %zu: ", dev->name, m);
            print_tally("argmin/argmax modes", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* Rows of a matrix and ragged segments on the device, and the partial
 * pieces of one array, against the host forms. */
static void batches_segments_and_partials(void **state)
{
    const device_list *list = *state;
    static const sb_reduction rs[] = {
        R(ARGMIN, F32, 0, 0, NONE), R(ARGMAX, I32, 0, 0, ABS),
        R(ARGMIN, F16, 0, 0, NONE), R(ARGMAX, F64, 0, SB_SKIP_NAN, NONE),
    };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
        if (dev->oclgrind)
            keep_buffers();
        for (size_t k = 0; k < COUNT(rs); k++) {
            const sb_reduction r = rs[k];
            uint64_t st = mix_seed(seed, 700 + d * 10 + k);
            const size_t rows = 5, cols = dev->oclgrind ? 80 : 1000;
            const size_t n = rows * cols, es = type_size(r.input);
            batch_data data = batch_data_make(dev, r, n, k, st);
            void *const x = data.x;
            const unsigned char *const mask = data.mask;
            const cl_mem xb = data.xb, mb = data.mb;

            sb_arg_result want[5], got[5];
            sb_status ws[5], gs[5];
            memset(want, 0xA5, sizeof want);
            memset(got, 0xA5, sizeof got);
            assert_int_equal(sb_reduce_batched_host(r, x, mask, cols, 1, rows,
                                                    (ptrdiff_t)cols, want, ws),
                             SB_OK);
            assert_int_equal(sb_reduce_batched(dc.ctx, NULL, r, xb, X_PAD,
                                               mb, M_PAD, cols, 1, rows,
                                               (ptrdiff_t)cols, got, gs),
                             SB_OK);
            if (memcmp(ws, gs, sizeof ws) != 0
                    || memcmp(want, got, sizeof want) != 0) {
                fprintf(stderr, "BATCH MISMATCH %s: job %zu\n", dev->name, k);
                failures++;
            }

            const uint64_t off[5] = { 0, 0, 17, 16 * 20 + 3, n };
            cl_mem ob = make_buffer(dev, sizeof off, off);
            memset(want, 0xA5, sizeof want);
            memset(got, 0xA5, sizeof got);
            assert_int_equal(sb_reduce_segments_host(r, x, mask, off, 4, want,
                                                     ws), SB_OK);
            assert_int_equal(sb_reduce_segments(dc.ctx, NULL, r, xb, X_PAD,
                                                mb, M_PAD, ob, 0, 4, got, gs),
                             SB_OK);
            if (memcmp(ws, gs, 4 * sizeof *ws) != 0
                    || memcmp(want, got, 4 * sizeof *want) != 0) {
                fprintf(stderr, "SEGMENT MISMATCH %s: job %zu\n", dev->name,
                        k);
                failures++;
            }
            clReleaseMemObject(ob);

            size_t cuts[MAX_PIECES];
            const size_t pieces = 1 + random_below(&st, MAX_PIECES - 1);
            random_cuts(&st, n, pieces - 1, cuts);
            cuts[pieces - 1] = n;
            sb_partial all;
            assert_int_equal(sb_partial_init(&all, r, 0), SB_OK);
            size_t from = 0;
            for (size_t i = 0; i < pieces; i++) {
                const size_t len = cuts[i] - from;
                sb_partial piece;
                assert_int_equal(sb_partial_init(&piece, r, from), SB_OK);
                const sb_status s = random_below(&st, 4) == 0
                    ? sb_partial_add_host(&piece, (char *)x + from * es,
                                          mask ? mask + from : NULL, len)
                    : sb_partial_add(dc.ctx, NULL, &piece, xb, X_PAD + from,
                                     mb, M_PAD + from, len);
                assert_int_equal(s, SB_OK);
                assert_int_equal(sb_partial_merge(&all, &piece), SB_OK);
                from = cuts[i];
            }
            unsigned char w[RESULT_BUFFER], g[RESULT_BUFFER];
            memset(w, RESULT_SENTINEL, sizeof w);
            memset(g, RESULT_SENTINEL, sizeof g);
            const sb_status hs = sb_reduce_host(r, x, mask, n, w);
            const sb_status ps = sb_partial_finish(&all, g);
            if (hs != ps || memcmp(w, g, sizeof w) != 0) {
                fprintf(stderr, "PARTIAL MISMATCH %s: job %zu, %zu pieces, "
                        "host %s, partial %s\n", dev->name, k, pieces,
                        status_name(hs), status_name(ps));
                failures++;
            }
            batch_data_free(&data);
        }
        if (dev->oclgrind)
            release_kept_buffers();
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

/* Rows (launched, one chain each) and strided columns (read back) of a
 * matrix by sb_reduce_batched_enqueue(): each record against
 * sb_reduce_batched_host(), the value and position where SB_OK, the
 * sentinel bytes elsewhere, nothing past the last record written. */
static int batched_records_match(const device_context *dc, sb_reduction r,
                                 const void *x, const unsigned char *mask,
                                 cl_mem xb, cl_mem mb, size_t n,
                                 ptrdiff_t elem_stride, size_t count,
                                 ptrdiff_t batch_stride, const char *what)
{
    const test_device *dev = dc->dev;
    enum { MAX_ROWS = 8, REC = sizeof(sb_device_arg_result) };
    assert_true(count <= MAX_ROWS);
    sb_arg_result want[MAX_ROWS];
    sb_status ws[MAX_ROWS];
    memset(want, RESULT_SENTINEL, sizeof want);
    assert_int_equal(sb_reduce_batched_host(r, x, mask, n, elem_stride, count,
                                            batch_stride, want, ws), SB_OK);
    unsigned char init[(MAX_ROWS + 1) * REC], back[sizeof init];
    memset(init, RESULT_SENTINEL, sizeof init);
    cl_mem rb = make_buffer(dev, sizeof init, init);
    cl_event done = NULL;
    assert_int_equal(sb_reduce_batched_enqueue(dc->ctx, NULL, r, xb, X_PAD,
                                               mb, M_PAD, n, elem_stride,
                                               count, batch_stride, rb, 0, 0,
                                               NULL, &done), SB_OK);
    assert_non_null(done);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    read_buffer(dev, rb, 0, sizeof back, back);
    clReleaseMemObject(rb);
    int failures = 0;
    for (size_t b = 0; b < count; b++) {
        const unsigned char *rec = back + b * REC;
        int32_t status;
        memcpy(&status, rec + offsetof(sb_device_arg_result, status),
               sizeof status);
        /* Where SB_OK: the value's bytes, the rest of `value` as it was
         * (the host's sb_arg_result has zeros there), the index. */
        const size_t v = type_size(r.accumulator ? r.accumulator : r.input);
        const bool ok = status == (int32_t)ws[b] &&
            (ws[b] == SB_OK
                 ? memcmp(rec, want[b].value, v) == 0 &&
                   memcmp(rec + v, init, 8 - v) == 0 &&
                   memcmp(rec + 8, &want[b].index, 8) == 0
                 : memcmp(rec, init, sizeof want[b]) == 0);
        if (!ok) {
            fprintf(stderr, "BATCHED ENQUEUE MISMATCH %s: %s, %s of %s, row "
                    "%zu: status %d, host %s\n", dev->name, what,
                    r.op == SB_ARGMIN ? "argmin" : "argmax",
                    type_name(r.input), b, (int)status, status_name(ws[b]));
            failures++;
        }
    }
    if (memcmp(back + count * REC, init, REC) != 0) {
        fprintf(stderr, "BATCHED ENQUEUE %s: %s wrote past its records\n",
                dev->name, what);
        failures++;
    }
    return failures;
}

static void batched_enqueue_matches_host(void **state)
{
    const device_list *list = *state;
    static const sb_reduction rs[] = {
        R(ARGMIN, F32, 0, 0, NONE), R(ARGMAX, I32, 0, 0, ABS),
        R(ARGMIN, BF16, SB_F32, 0, NONE), R(ARGMAX, F64, 0, SB_SKIP_NAN, NONE),
        R(ARGMIN, U8, SB_U32, 0, NONE),
    };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
        if (dev->oclgrind)
            keep_buffers();
        for (size_t k = 0; k < COUNT(rs); k++) {
            const sb_reduction r = rs[k];
            uint64_t st = mix_seed(seed, 800 + d * 10 + k);
            const size_t rows = 5, cols = dev->oclgrind ? 70 : 999;
            batch_data b = batch_data_make(dev, r, rows * cols, k, st);
            failures += batched_records_match(&dc, r, b.x, b.mask, b.xb, b.mb,
                                              cols, 1, rows, (ptrdiff_t)cols,
                                              "rows");
            failures += batched_records_match(&dc, r, b.x, b.mask, b.xb, b.mb,
                                              rows, (ptrdiff_t)cols, 7, 1,
                                              "columns");
            batch_data_free(&b);
        }
        if (dev->oclgrind)
            release_kept_buffers();
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    seed = test_seed(0xA7691Du);   /* prints it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(args_match_host_and_oracle),
        cmocka_unit_test(nan_led_leaves_hide_their_subtrees),
        cmocka_unit_test(args_match_in_every_float_mode),
        cmocka_unit_test(batches_segments_and_partials),
        cmocka_unit_test(batched_enqueue_matches_host),
    };
    return cmocka_run_group_tests_name("device_arg", tests,
                                       device_list_setup,
                                       device_list_teardown);
}
