/* tests/test_oclgrind_races.c: the kernels have no data race, read no
 * uninitialised value and touch no memory out of bounds, as the Oclgrind
 * simulator sees them.
 *
 * A representative set of reductions (float and checked integer sums,
 * products, min/max with NaNs and masks, widening, any, counts, argmin
 * and argmax, whose nodes carry positions) runs on
 * Oclgrind over launch shapes that take every code path of the kernels:
 * the default shape, several passes over partials, emulated sub-groups
 * (wider than one and equal to the work-group), sub-groups off with the
 * four-leaf fast path, one work-item per work-group; through sb_reduce() and
 * sb_reduce_enqueue(); the rows and the columns kernels through both
 * batched forms. The bits are checked as everywhere else. Oclgrind
 * runs with OCLGRIND_DATA_RACES=1, OCLGRIND_UNINITIALIZED=1 and
 * OCLGRIND_CHECK_API=1 and writes every diagnostic to OCLGRIND_LOG; the
 * last test requires that log to exist and be empty.
 *
 * ctest sets those variables (tests/device_tests.cmake); run by hand, the
 * program sets any that are missing itself, with the log at
 * ./oclgrind-races.log and SAMEBITS_DEVICE=oclgrind. Oclgrind empties its
 * log whenever a cl_context is created, so this program makes exactly one
 * (open_devices()) and reads the log after releasing it.
 *
 * Oclgrind 21.10's uninitialised-value check keeps the shadow state of a
 * released buffer and applies it to the next buffer that reuses its id
 * (it never frees shadow memory): a scratch buffer of samebits, made
 * without host data, then reads as uninitialised past the size of the
 * buffer released before it, although every byte read was written. So
 * nothing is released until the end: every sb_context lives through all
 * cases, and check_on_device() keeps its buffers (keep_buffers()).
 *
 * Its uninitialised-value check also misreads the vector-lane leaf folds
 * (cl/reduce.cl, sb_lane_leaves(), sb_lane_leaves_masked(): 16 f32 or 8
 * f64 leaves side by side, transposed with __builtin_shufflevector): it
 * reports their min and max nodes as uninitialised, and crashes inside
 * its own Uninitialized::instructionExecuted() (a memcpy) on their sums,
 * f32 and f64 alike, where the same reductions one leaf at a time are
 * clean (a sum of 1024 f64 with 8 leaves per item against 4; its false
 * reports on vector types: jrprice/Oclgrind#126). Those folds are
 * private-register code, with no local memory to race on; every device
 * test checks their bits against the oracle, Oclgrind's unchecked runs
 * included. So no case here has an item of a lane's worth of leaves with
 * a reduction that folds in lanes (folds_in_lanes()). */
#define _POSIX_C_SOURCE 200809L  /* setenv */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "device_support.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;
static const char *log_path;

typedef device_list suite;

static void the_device_is_oclgrind(void **state)
{
    const suite *s = *state;
    for (size_t i = 0; i < s->count; i++) {
        if (!s->devices[i].oclgrind)
            fprintf(stderr, "%s is not Oclgrind (SAMEBITS_DEVICE=%s)\n",
                    s->devices[i].name, getenv("SAMEBITS_DEVICE"));
        assert_true(s->devices[i].oclgrind);
    }
}

static const sb_options shapes[] = {
    { .flags = SB_OPT_NO_HOST },                                 /* default */
    { .flags = SB_OPT_NO_HOST, .work_group_size = 16, .leaves_per_item = 2,
      .tree_work_group_size = 4, .nodes_per_item = 2 },         /* 3 passes */
    { .flags = SB_OPT_NO_HOST, .work_group_size = 32, .leaves_per_item = 1,
      .tree_work_group_size = 16, .nodes_per_item = 2,
      .subgroups = SB_SUBGROUPS_EMULATE, .emulated_subgroup_size = 8 },
    { .flags = SB_OPT_NO_HOST, .work_group_size = 4, .leaves_per_item = 2,
      .tree_work_group_size = 4, .nodes_per_item = 1,
      .subgroups = SB_SUBGROUPS_EMULATE, .emulated_subgroup_size = 4 },
    { .flags = SB_OPT_NO_HOST, .work_group_size = 8, .leaves_per_item = 8,
      .tree_work_group_size = 8, .nodes_per_item = 4,
      .subgroups = SB_SUBGROUPS_OFF },                      /* fast path */
    { .flags = SB_OPT_NO_HOST, .work_group_size = 1, .leaves_per_item = 1,
      .tree_work_group_size = 2, .nodes_per_item = 1 },     /* many passes */
};

static const struct {
    sb_reduction r;
    data_family  family;
    mask_kind    mask;
} reductions[] = {
    { { SB_SUM, SB_F32, 0, 0, 0 }, FAMILY_SPECIALS, MASK_EMPTY_LEAVES },
    { { SB_MAX, SB_F64, 0, 0, 0 }, FAMILY_NEGATIVE_ZERO, MASK_RANDOM },
    { { SB_SUM, SB_I64, 0, 0, 0 }, FAMILY_SUM_EDGE, MASK_NONE },
    { { SB_SUM, SB_U8, SB_U32, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
    { { SB_PROD, SB_F64, 0, 0, 0 }, FAMILY_PROD_EDGE, MASK_ALTERNATE_LEAVES },
    { { SB_ANY, SB_F32, 0, 0, 0 }, FAMILY_NEGATIVE_ZERO, MASK_RANDOM },
    { { SB_MIN, SB_I16, SB_I64, 0, 0 }, FAMILY_LIMITS, MASK_NONE },
    { { SB_COUNT, SB_F32, 0, SB_SKIP_NAN, 0 }, FAMILY_SPECIALS,
      MASK_EMPTY_LEAVES },
    { { SB_COUNT, SB_U8, 0, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
    { { SB_ARGMIN, SB_F32, 0, 0, 0 }, FAMILY_SPECIALS, MASK_EMPTY_LEAVES },
    { { SB_ARGMAX, SB_I32, 0, 0, SB_MAP_ABS }, FAMILY_LIMITS, MASK_NONE },
};

/* Whether a reduction, with lpi leaves per item, may fold its items'
 * leaves in vector lanes on Oclgrind (cl/reduce.cl: SB_LANE_LEAVES and
 * SB_LANE_MASKED; src/device_programs.c, sb__column_lanes()): a sum, min
 * or max with no position of a float type into its own type, of f32 or a
 * half into f64, of a half into f32, or of an integer into f32 or f64
 * (the ones a plan allows); 8 leaves into f64, else 16. */
static bool folds_in_lanes(sb_reduction r, size_t lpi)
{
    const bool half = r.input == SB_F16 || r.input == SB_BF16;
    const sb_type acc = r.accumulator != 0 ? r.accumulator : r.input;
    const bool float_acc = acc == SB_F32 || acc == SB_F64;
    const bool integer = r.input != SB_F32 && r.input != SB_F64 && !half;
    const bool floats = r.input == SB_F32 || r.input == SB_F64 || half
                        || (integer && float_acc);
    const bool into = acc == r.input || (acc == SB_F64 && r.input == SB_F32)
                      || (half && float_acc) || (integer && float_acc);
    const bool op = r.op == SB_SUM || r.op == SB_MIN || r.op == SB_MAX;
    return floats && into && op && lpi >= (acc == SB_F64 ? 8u : 16u);
}

static void representative_reductions_run_clean(void **state)
{
    const suite *s = *state;
    keep_buffers();
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->count; i++) {
        const test_device *d = &s->devices[i];
        device_context dc[COUNT(shapes)];
        for (size_t k = 0; k < COUNT(shapes); k++)
            assert_int_equal(device_context_open(&dc[k], d, &shapes[k]),
                             SB_OK);
        tally t = { 0 };
        for (size_t k = 0; k < COUNT(shapes); k++) {
            /* Defaults resolved as samebits.h says, for the sizes only. */
            const size_t wg = shapes[k].work_group_size
                              ? shapes[k].work_group_size
                              : d->caps.work_group_size;
            const size_t lpi = shapes[k].leaves_per_item
                               ? shapes[k].leaves_per_item
                               : d->caps.leaves_per_item;
            size_t big = 3 * wg * lpi * 16 + 21;
            big = big > 1500 ? 1500 : big;
            const size_t sizes[] = { 5, 100, big };
            for (size_t z = 0; z < COUNT(sizes); z++)
                for (size_t j = 0; j < COUNT(reductions); j++) {
                    if (folds_in_lanes(reductions[j].r, lpi))
                        continue;   /* see the file's comment */
                    const test_case c = make_case(
                        seed, reductions[j].r, sizes[z], reductions[j].mask,
                        reductions[j].family);
                    sb_status expected;
                    const bool agreed = check_on_device(
                        &dc[k], &c, (z + j) % 2 ? RUN_BOTH : RUN_REDUCE,
                        &expected);
                    tally_add(&t, expected, agreed);
                    wrong += !agreed;
                }
        }
        for (size_t k = 0; k < COUNT(shapes); k++)
            device_context_close(&dc[k]);
        char label[400];
        snprintf(label, sizeof label, "race-checked reductions on %s",
                 d->name);
        print_tally(label, &t);
    }
    release_kept_buffers();
    assert_int_equal(wrong, 0);
}

/* The rows kernel (one work-item per row) through both batched forms:
 * rows with a negative stride, with a mask (the sum) and without (the
 * argmin: four full leaves at a time, then a part), an argmin's
 * positions, a last work-group with items past the last row. Every
 * buffer is made before the calls and released after them (see the file
 * comment); the blocking form, whose records buffer is its own, last. */
static void batched_rows_run_clean(void **state)
{
    const suite *s = *state;
    keep_buffers();
    enum { N = 77, ROWS = 17, PAD = 3 };
    static const sb_reduction rs[] = {
        { SB_SUM, SB_F32, 0, 0, 0 }, { SB_ARGMIN, SB_I32, 0, 0, 0 },
    };
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->count; i++) {
        const test_device *d = &s->devices[i];
        device_context dc;
        assert_int_equal(device_context_open(&dc, d, &shapes[0]), SB_OK);
        for (size_t k = 0; k < COUNT(rs); k++) {
            const sb_reduction r = rs[k];
            const size_t es = type_size(r.input);
            unsigned char x[N * ROWS * 8], mask[N * ROWS];
            fill_data(FAMILY_SPECIALS, r.input, 0, x, N * ROWS,
                      mix_seed(seed, 60 + k));
            for (size_t j = 0; j < N * ROWS; j++)
                mask[j] = (unsigned char)((j * 7 + k) % 5 != 0);
            /* Row b at element (ROWS - 1 - b) * N: a negative stride. */
            const ptrdiff_t stride = -(ptrdiff_t)N;
            const size_t first = (ROWS - 1) * N;
            unsigned char want[ROWS * 16], got[ROWS * 16];
            sb_status ws[ROWS], gs[ROWS];
            memset(want, RESULT_SENTINEL, sizeof want);
            memset(got, RESULT_SENTINEL, sizeof got);
            const bool masked = k == 0;
            assert_int_equal(sb_reduce_batched_host(r, x + first * es,
                                                    masked ? mask + first
                                                           : NULL,
                                                    N, 1, ROWS, stride, want,
                                                    ws), SB_OK);
            cl_mem xb = padded_copy(d, x, N * ROWS * es, PAD * es);
            cl_mem mb = masked ? padded_copy(d, mask, N * ROWS, PAD) : NULL;
            unsigned char init[ROWS * 24];
            memset(init, RESULT_SENTINEL, sizeof init);
            cl_mem rb = make_buffer(d, sizeof init, init);
            cl_event done = NULL;
            assert_int_equal(sb_reduce_batched_enqueue(
                                 dc.ctx, NULL, r, xb, PAD + first, mb,
                                 masked ? PAD + first : 0, N, 1, ROWS, stride,
                                 rb, 0, 0, NULL, &done), SB_OK);
            assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
            unsigned char back[sizeof init];
            read_buffer(d, rb, 0, sizeof back, back);
            assert_int_equal(sb_reduce_batched(dc.ctx, NULL, r, xb,
                                               PAD + first, mb,
                                               masked ? PAD + first : 0, N, 1,
                                               ROWS, stride, got, gs),
                             SB_OK);
            const size_t rsz = sb_result_size(r);
            const size_t rec = r.op == SB_ARGMIN ? 24 : 16;
            for (size_t b = 0; b < ROWS; b++) {
                int32_t status;
                memcpy(&status, back + b * rec + rec - 8, sizeof status);
                wrong += gs[b] != ws[b] || status != (int32_t)ws[b]
                         || memcmp(got + b * rsz, want + b * rsz, rsz) != 0;
                if (ws[b] == SB_OK)   /* the value's 4 bytes, the index */
                    wrong += memcmp(back + b * rec, want + b * rsz, 4) != 0
                             || (rec == 24 && memcmp(back + b * rec + 8,
                                                     want + b * rsz + 8,
                                                     8) != 0);
            }
            clReleaseMemObject(rb);
            if (mb != NULL)
                clReleaseMemObject(mb);
            clReleaseMemObject(xb);
        }
        device_context_close(&dc);
    }
    release_kept_buffers();
    assert_int_equal(wrong, 0);
}

/* The columns kernel (batch stride 1; sb_columns: a vector of columns
 * per work-item, one leaf at a time with a barrier after each): f32 sums,
 * f64 max and i16 sums of squares into f32 (an integer converted as it
 * loads) of 100 columns (a partial last block, which overlaps the
 * one before and writes only its own columns), in the default shape (one
 * group of 256 items, most past the last column) and in work-groups of 4
 * (Oclgrind is a GPU to the library, whose columns groups follow
 * work_group_size: 2 groups of f32 items, 4 of f64, the last with items
 * past the last column), each with a positive and a negative element
 * stride, through both batched forms. Buffers kept as above. */
static void batched_columns_run_clean(void **state)
{
    const suite *s = *state;
    keep_buffers();
    enum { N = 50, COLUMNS = 100, PAD = 3 };
    static const sb_reduction rs[] = {
        { SB_SUM, SB_F32, 0, 0, 0 }, { SB_MAX, SB_F64, 0, 0, 0 },
        { SB_SUM, SB_I16, SB_F32, 0, SB_MAP_SQUARE },
    };
    static const sb_options narrow = { .flags = SB_OPT_NO_HOST,
                                       .work_group_size = 4 };
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->count; i++) {
        const test_device *d = &s->devices[i];
        device_context dc[2];
        assert_int_equal(device_context_open(&dc[0], d, &shapes[0]), SB_OK);
        assert_int_equal(device_context_open(&dc[1], d, &narrow), SB_OK);
        for (size_t k = 0; k < 4 * COUNT(rs); k++) {
            const sb_reduction r = rs[k % COUNT(rs)];
            const device_context *c = &dc[k / (2 * COUNT(rs))];
            const size_t es = type_size(r.input), total = N * COLUMNS;
            unsigned char x[N * COLUMNS * 8];
            fill_data(FAMILY_SPECIALS, r.input, 0, x, total,
                      mix_seed(seed, 80 + k));
            /* Element i of column c at i * COLUMNS + c, or (every other
             * pair of runs) at (N - 1 - i) * COLUMNS + c: a negative
             * element stride. */
            const bool down = (k / COUNT(rs)) % 2 == 0;
            const ptrdiff_t step = down ? COLUMNS : -(ptrdiff_t)COLUMNS;
            const size_t first = down ? 0 : (N - 1) * COLUMNS;
            unsigned char want[COLUMNS * 16], got[COLUMNS * 16];
            sb_status ws[COLUMNS], gs[COLUMNS];
            memset(want, RESULT_SENTINEL, sizeof want);
            memset(got, RESULT_SENTINEL, sizeof got);
            assert_int_equal(sb_reduce_batched_host(r, x + first * es, NULL,
                                                    N, step, COLUMNS, 1,
                                                    want, ws), SB_OK);
            cl_mem xb = padded_copy(d, x, total * es, PAD * es);
            unsigned char init[COLUMNS * 16];
            memset(init, RESULT_SENTINEL, sizeof init);
            cl_mem rb = make_buffer(d, sizeof init, init);
            cl_event done = NULL;
            assert_int_equal(sb_reduce_batched_enqueue(
                                 c->ctx, NULL, r, xb, PAD + first, NULL, 0,
                                 N, step, COLUMNS, 1, rb, 0, 0, NULL, &done),
                             SB_OK);
            assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
            clReleaseEvent(done);
            unsigned char back[sizeof init];
            read_buffer(d, rb, 0, sizeof back, back);
            assert_int_equal(sb_reduce_batched(c->ctx, NULL, r, xb,
                                               PAD + first, NULL, 0, N, step,
                                               COLUMNS, 1, got, gs), SB_OK);
            const size_t rsz = sb_result_size(r);
            for (size_t b = 0; b < COLUMNS; b++) {
                int32_t status;
                memcpy(&status, back + b * 16 + 8, sizeof status);
                wrong += gs[b] != ws[b] || status != (int32_t)ws[b]
                         || memcmp(got + b * rsz, want + b * rsz, rsz) != 0
                         || memcmp(back + b * 16, want + b * rsz, rsz) != 0;
            }
            clReleaseMemObject(rb);
            clReleaseMemObject(xb);
        }
        device_context_close(&dc[1]);
        device_context_close(&dc[0]);
    }
    release_kept_buffers();
    assert_int_equal(wrong, 0);
}

/* Runs after the group above has released the cl_context, so that Oclgrind
 * has written (and closed) everything. */
static void oclgrind_logged_nothing(void **state)
{
    (void)state;
    FILE *f = fopen(log_path, "rb");
    if (f == NULL)
        fprintf(stderr, "Oclgrind wrote no log at %s: was OCLGRIND_LOG "
                "honoured (is the device Oclgrind)?\n", log_path);
    assert_non_null(f);
    char text[4001];
    const size_t got = fread(text, 1, sizeof text - 1, f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fclose(f);
    text[got] = '\0';
    if (size != 0)
        fprintf(stderr, "Oclgrind logged %ld bytes to %s; the first:\n%s\n",
                size, log_path, text);
    assert_int_equal(size, 0);
}

int main(void)
{
    /* Before any OpenCL call: Oclgrind reads these when a context is made. */
    setenv("SAMEBITS_DEVICE", "oclgrind", 0);
    setenv("OCLGRIND_DATA_RACES", "1", 0);
    setenv("OCLGRIND_UNINITIALIZED", "1", 0);
    setenv("OCLGRIND_CHECK_API", "1", 0);
    setenv("OCLGRIND_LOG", "oclgrind-races.log", 0);
    log_path = getenv("OCLGRIND_LOG");
    unlink(log_path);               /* a stale log must not pass or fail */

    const struct CMUnitTest run[] = {
        cmocka_unit_test(the_device_is_oclgrind),
        cmocka_unit_test(representative_reductions_run_clean),
        cmocka_unit_test(batched_rows_run_clean),
        cmocka_unit_test(batched_columns_run_clean),
    };
    const struct CMUnitTest check[] = {
        cmocka_unit_test(oclgrind_logged_nothing),
    };
    seed = test_seed(20240611u);
    printf("Oclgrind log: %s\n", log_path);
    int failed = cmocka_run_group_tests_name("oclgrind_races", run,
                                             device_list_setup,
                                             device_list_teardown);
    failed += cmocka_run_group_tests_name("oclgrind_log", check, NULL, NULL);
    return failed;
}
