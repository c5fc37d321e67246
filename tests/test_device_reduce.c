/* tests/test_device_reduce.c: sb_reduce() and sb_reduce_enqueue() on every
 * OpenCL device against tests/oracle.c and sb_reduce_host(), bit for bit.
 *
 * Every op x input type x allowed accumulator x (checked, and SB_WRAP where
 * it applies) x mask kind (none, random, leaf-emptying) x size class x data
 * family is a case. Contexts are made with SB_OPT_NO_HOST, so the kernels
 * really run, however small n is; each case runs sb_reduce() twice (both
 * results compared) and sb_reduce_enqueue() once, with x and the mask placed
 * at random offsets in their buffers. A few tests let the host shortcut
 * work and check that it gives the same bits.
 *
 * Oclgrind simulates every work-item (~100x slower than POCL): there the
 * work-groups have 32 work-items of one leaf instead of 256 of four (its
 * default shape is in test_device_shapes), each (reduction, size, mask)
 * gets one family in rotation, and sizes stop at 5003 elements,
 * which take three passes there. Other devices run the families in turn
 * too by default (tests/device_support.h): every reduction, size and
 * mask, one family each, sb_reduce_enqueue() one case in three;
 * SAMEBITS_TEST_SPARSE=0 (ctest -L sweep) runs every family at every size
 * up to ALL_FAMILIES_UP_TO, 6-9x the cases. On POCL, where each kernel costs
 * about 0.5 s to compile per work-group size (cold cache), only A = I runs the
 * inputs that need several work-groups: the pass over partials depends on
 * the accumulator alone.
 *
 * A mismatch prints the device, the options, the case (seed, case seed and
 * every parameter) and the layout, enough to replay it; each test stops
 * after MAX_MISMATCHES. SAMEBITS_TEST_PART=1 runs only the sums and
 * products, =2 the rest (ctest runs the halves side by side); unset: all.
 * SAMEBITS_TEST_FILTER=<glob> runs only the tests it names. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fnmatch.h>
#include <math.h>

#include "device_support.h"
#include "oracle.h"
#include "samebits.h"
#include "support.h"

enum { MAX_MISMATCHES = 20, MAX_SIZES = 32 };

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

/* Per device: its contexts and the sizes it runs. A size slot holds one
 * size or a few alternatives: POCL runs every alternative, Oclgrind one per
 * reduction, in rotation. */
enum { MAX_ALTERNATIVES = 4 };
typedef struct {
    size_t n[MAX_ALTERNATIVES];
    size_t count;
} size_slot;

typedef struct {
    const test_device *dev;
    device_context     main;     /* SB_OPT_NO_HOST; on Oclgrind a small
                                    launch shape too */
    size_t             group;    /* elements per work-group of `main` */
    size_slot          slots[MAX_SIZES];
    size_t             slot_count; /* the last slot is the large n */
} device_plan;

typedef struct {
    device_list  all;                /* first: see device_suite_new() */
    device_plan *plans;
} suite;

static unsigned floor_log2(size_t v)
{
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
}

static void add_slot(device_plan *p, size_t a, size_t b, size_t c, size_t d)
{
    const size_t given[MAX_ALTERNATIVES] = { a, b, c, d };
    size_slot *slot = &p->slots[p->slot_count++];
    slot->count = 0;
    for (size_t k = 0; k < MAX_ALTERNATIVES; k++)
        if (k == 0 || given[k] != 0)
            slot->n[slot->count++] = given[k];
}

/* 0, 1, around one and two leaves, then 2^k - 1, 2^k, 2^k + 1 for a few k,
 * then a larger n. On POCL k = 6, 10 and the elements of one work-group of
 * the default shape (so that the last size needs two), and about 2.6 * 10^5
 * elements; on Oclgrind k = 6, 10 and 5003 elements. */
static void make_sizes(device_plan *p)
{
    const bool slow = p->dev->oclgrind;
    const unsigned k_group = floor_log2(p->group);
    p->slot_count = 0;
    add_slot(p, 0, 0, 0, 0);
    add_slot(p, 1, 0, 0, 0);
    add_slot(p, 17, 0, 0, 0);
    add_slot(p, 33, 0, 0, 0);
    if (slow) {
        add_slot(p, 15, 16, 31, 32);
    } else {
        static const size_t small[] = { 15, 16, 31, 32 };
        for (size_t k = 0; k < COUNT(small); k++)
            add_slot(p, small[k], 0, 0, 0);
    }
    const unsigned ks[] = { 6, 10, k_group };
    for (size_t k = 0; k < (slow ? 2u : 3u); k++) {
        const size_t b = (size_t)1 << ks[k];
        if (slow) {
            add_slot(p, b - 1, b, b + 1, 0);
        } else {
            add_slot(p, b - 1, 0, 0, 0);
            add_slot(p, b, 0, 0, 0);
            add_slot(p, b + 1, 0, 0, 0);
        }
    }
    add_slot(p, slow ? 5003 : ((size_t)1 << 18) + 3, 0, 0, 0);
}

static int open_suite(void **state)
{
    suite *s = device_suite_new(sizeof *s);
    if (s == NULL)
        return -1;
    s->plans = checked_malloc(sizeof *s->plans * s->all.count);
    for (size_t i = 0; i < s->all.count; i++) {
        device_plan *p = &s->plans[i];
        p->dev = &s->all.devices[i];
        /* Oclgrind simulates each work-item of a work-group, however few
         * hold data: with its default of 256 a tiny case costs 8 ms, with
         * 32 under 1 ms (its default shape is in test_device_shapes). One
         * leaf per work-item and 8 nodes per pass over partials make 5003
         * elements take a leaves pass and two node passes. */
        const sb_options main_opts = { .flags = SB_OPT_NO_HOST };
        const sb_options oclgrind_opts = {
            .flags = SB_OPT_NO_HOST, .work_group_size = 32,
            .leaves_per_item = 1, .tree_work_group_size = 4,
            .nodes_per_item = 2 };
        if (device_context_open(&p->main, p->dev, p->dev->oclgrind
                                ? &oclgrind_opts : &main_opts) != SB_OK) {
            fprintf(stderr, "sb_context_create failed on %s\n",
                    p->dev->name);
            return -1;
        }
        p->group = p->dev->oclgrind
                   ? 32 * 16
                   : p->dev->caps.work_group_size *
                     p->dev->caps.leaves_per_item * 16;
        make_sizes(p);
    }
    *state = s;
    return 0;
}

static int close_suite(void **state)
{
    suite *s = *state;
    if (s == NULL)
        return 0;                   /* open_suite() failed */
    for (size_t i = 0; i < s->all.count; i++)
        device_context_close(&s->plans[i].main);
    free(s->plans);
    device_suite_free(s);
    return 0;
}

static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                   MASK_EMPTY_LEAVES };

/* The families worth running per op. */
static const data_family sum_families[] = {
    FAMILY_UNIFORM, FAMILY_CANCELLATION, FAMILY_SPECIALS, FAMILY_SUBNORMAL,
    FAMILY_LIMITS, FAMILY_SUM_EDGE, FAMILY_NEGATIVE_ZERO, FAMILY_HUGE_RANGE,
    FAMILY_ALTERNATING };
static const data_family prod_families[] = {
    FAMILY_PROD_EDGE, FAMILY_SPECIALS, FAMILY_SUBNORMAL, FAMILY_LIMITS,
    FAMILY_UNIFORM, FAMILY_NEGATIVE_ZERO, FAMILY_HUGE_RANGE };
static const data_family order_families[] = {    /* min and max */
    FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO, FAMILY_LIMITS, FAMILY_SUBNORMAL,
    FAMILY_UNIFORM, FAMILY_HUGE_RANGE };
static const data_family boolean_families[] = {  /* any and all */
    FAMILY_NEGATIVE_ZERO, FAMILY_SPECIALS, FAMILY_SUBNORMAL, FAMILY_LIMITS,
    FAMILY_UNIFORM };

/* Dense (SAMEBITS_TEST_SPARSE=0) every family runs at sizes up to this;
 * above it, and by default everywhere, one family per case in turn. */
enum { ALL_FAMILIES_UP_TO = 1025 };

/* Runs one case on `dc` and counts it. @return false on a mismatch. */
static bool run_case(const device_context *dc, const test_case *c,
                     unsigned runs, tally *t)
{
    sb_status expected;
    const bool agreed = check_on_device(dc, c, runs, &expected);
    tally_add(t, expected, agreed);
    return agreed;
}

/* Where run_matrix_on() is, for run_size(). */
typedef struct {
    const device_plan *p;
    const data_family *families;
    size_t             family_count;
    unsigned long      turn;      /* cases so far: rotates the family */
    unsigned long      wrong;
    tally             *t;
} matrix_walk;

/* Runs reduction `r` at size `n` over the masks and families, as the
 * device allows. */
static void run_size(matrix_walk *w, sb_reduction r, size_t n)
{
    const device_plan *p = w->p;
    const bool slow = p->dev->oclgrind;
    const bool rotate = slow || p->dev->sparse || p->dev->families_in_turn;
    const bool every_family = !rotate && n <= ALL_FAMILIES_UP_TO;
    w->turn++;                  /* once per size */
    for (size_t m = 0; m < COUNT(masks); m++) {
        /* In turn: family turn + m with mask m, so that over consecutive
         * sizes each mask meets every family. (A turn per mask tied each
         * family to one mask: 3 divides 9 and 6.) */
        const size_t chosen = (w->turn + m) % w->family_count;
        for (size_t f = 0; f < w->family_count; f++) {
            if (!every_family && f != chosen)
                continue;
            const test_case c = make_case(seed, r, n, masks[m],
                                          w->families[f]);
            /* In turn, one case in three also checks
             * sb_reduce_enqueue(), with every mask and every family over
             * the sizes. */
            const unsigned runs = !rotate || (w->turn + 2 * m) % 3 == 0
                                  ? RUN_BOTH : RUN_REDUCE;
            w->wrong += !run_case(&p->main, &c, runs, w->t);
        }
    }
}

/* Runs every allowed (input, accumulator) pair of `op` with `flags` over the
 * device's sizes, the masks and the families given. Accumulator 0 stands
 * for A = I; the explicit A = I runs on sizes up to 33 only (not on
 * Oclgrind: it builds the same program as A = 0).
 * @return the number of mismatches. */
static unsigned long run_matrix_on(const device_plan *p, sb_op op,
                                   unsigned flags,
                                   const data_family *families,
                                   size_t family_count, tally *t)
{
    const bool slow = p->dev->oclgrind;
    matrix_walk w = { p, families, family_count, 0, 0, t };
    unsigned long pair = 0;
    for (int input = 1; input <= TYPE_COUNT; input++) {
        for (int acc = 0; acc <= TYPE_COUNT; acc++) {
            const sb_reduction r = { .op = op, .input = (sb_type)input,
                                     .accumulator = (sb_type)acc,
                                     .flags = flags };
            if (!oracle_reduction_is_valid(r) || (slow && acc == input))
                continue;
            pair++;
            for (size_t s = 0; s < p->slot_count; s++) {
                const size_slot *slot = &p->slots[s];
                for (size_t a = 0; a < slot->count; a++) {
                    const size_t n = slot->n[a];
                    if (slow && a != (pair + s) % slot->count)
                        continue;          /* one alternative, rotating */
                    if (acc == input && n > 33)
                        continue;
                    /* Several work-groups build the pass over partials,
                     * which depends only on the accumulator: on POCL
                     * (0.4 s a kernel, cold) only A = I takes it. */
                    if (!slow && acc != 0 && n > p->group)
                        continue;
                    run_size(&w, r, n);
                    if (w.wrong >= MAX_MISMATCHES)
                        return w.wrong;
                }
            }
        }
    }
    return w.wrong;
}

static void run_matrix(void **state, const char *what, sb_op op,
                       unsigned flags, const data_family *families,
                       size_t family_count)
{
    const suite *s = *state;
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->all.count; i++) {
        tally t = { 0 };
        wrong += run_matrix_on(&s->plans[i], op, flags, families,
                               family_count, &t);
        char label[400];
        snprintf(label, sizeof label, "%s on %s", what, s->all.devices[i].name);
        print_tally(label, &t);
    }
    assert_int_equal(wrong, 0);
}

static void checked_sums_match_the_oracle(void **state)
{
    run_matrix(state, "checked sum", SB_SUM, 0, sum_families,
               COUNT(sum_families));
}

static void wrapping_sums_match_the_oracle(void **state)
{
    run_matrix(state, "wrapping sum", SB_SUM, SB_WRAP, sum_families,
               COUNT(sum_families));
}

static void checked_products_match_the_oracle(void **state)
{
    run_matrix(state, "checked prod", SB_PROD, 0, prod_families,
               COUNT(prod_families));
}

static void wrapping_products_match_the_oracle(void **state)
{
    run_matrix(state, "wrapping prod", SB_PROD, SB_WRAP, prod_families,
               COUNT(prod_families));
}

static void minimums_match_the_oracle(void **state)
{
    run_matrix(state, "min", SB_MIN, 0, order_families,
               COUNT(order_families));
}

static void maximums_match_the_oracle(void **state)
{
    run_matrix(state, "max", SB_MAX, 0, order_families,
               COUNT(order_families));
}

static void any_matches_the_oracle(void **state)
{
    run_matrix(state, "any", SB_ANY, 0, boolean_families,
               COUNT(boolean_families));
}

static void all_matches_the_oracle(void **state)
{
    run_matrix(state, "all", SB_ALL, 0, boolean_families,
               COUNT(boolean_families));
}

/* check_window_edges()'s check: sb_reduce() on the context `context`. */
static bool device_agrees(void *context, const test_case *c, const void *x,
                          sb_status *oracle_status)
{
    return check_data_on_device(context, c, x, NULL, RUN_REDUCE,
                                oracle_status);
}

/* A checked sum whose 64 elements of a four-leaf fold lie in
 * [-2^(b-7), 2^(b-7)) (signed) or [0, 2^(b-6)) (unsigned) is folded with
 * plain adds (cl/types.cl, sb_in_sum_window): check_window_edges() with
 * blocks of 64, the type-limit element in the first and last lane of each
 * of the four 16-element vectors the fold loads. POCL folds eight leaves
 * at once (two four-leaf folds) with its default shape; on Oclgrind four
 * leaves per work-item make the four-leaf fold run. */
static void checked_sums_at_the_edges_of_the_leaf_window(void **state)
{
    const suite *s = *state;
    static const size_t pocl_sizes[] = { 64, 128, 2 * 128 + 5 };
    static const size_t oclgrind_sizes[] = { 64, 2 * 128 + 5 };
    static const size_t places[] = { 0, 15, 16, 31, 32, 47, 48, 63 };
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->all.count; i++) {
        const test_device *d = &s->all.devices[i];
        const sb_options opts = { .flags = SB_OPT_NO_HOST,
                                  .work_group_size = d->oclgrind ? 4 : 0,
                                  .leaves_per_item = d->oclgrind ? 4 : 0 };
        device_context dc;
        assert_int_equal(device_context_open(&dc, d, &opts), SB_OK);
        const size_t *sizes = d->oclgrind ? oclgrind_sizes : pocl_sizes;
        const size_t size_count = d->oclgrind ? COUNT(oclgrind_sizes)
                                              : COUNT(pocl_sizes);
        const unsigned long here = check_window_edges(
            6, sizes, size_count, places, COUNT(places), seed, device_agrees,
            &dc);
        device_context_close(&dc);
        printf("leaf window edges on %s: %lu wrong\n", d->name, here);
        wrong += here;
    }
    assert_int_equal(wrong, 0);
}

/* A full, unmasked work-item whose checked-sum elements all lie in the
 * window of its lpi * 16 elements ([-2^(b-1-k), 2^(b-1-k)) signed, below
 * 2^(b-k) unsigned, k = log2(lpi * 16)) is summed in any order, as vectors
 * (cl/reduce.cl, sb_order_free_item); an element just outside sends the
 * item back to the leaf-by-leaf fold. check_window_edges() with blocks of
 * one item, for several leaves per item, the type-limit element at an
 * item's first and last element and inside it; sizes of one item, of
 * several (the tree above the items checked), and with a short last item
 * (which never takes the vector fold). */
static void checked_sums_at_the_edges_of_the_item_window(void **state)
{
    const suite *s = *state;
    static const unsigned pocl_lpi[] = { 8, 32, 128 };
    static const unsigned oclgrind_lpi[] = { 8 };
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->all.count; i++) {
        const test_device *d = &s->all.devices[i];
        const unsigned *lpis = d->oclgrind ? oclgrind_lpi : pocl_lpi;
        const size_t lpi_count = d->oclgrind ? COUNT(oclgrind_lpi)
                                             : COUNT(pocl_lpi);
        for (size_t j = 0; j < lpi_count; j++) {
            const size_t block = (size_t)lpis[j] * 16;
            const sb_options opts = { .flags = SB_OPT_NO_HOST,
                                      .work_group_size = 4,
                                      .leaves_per_item = lpis[j] };
            device_context dc;
            assert_int_equal(device_context_open(&dc, d, &opts), SB_OK);
            const size_t sizes[] = { block, 3 * block, 2 * block + 17 };
            const size_t places[] = { 0, block / 2 + 3, block - 1,
                                      2 * block + 16 };
            unsigned log2_block = 0;
            while (((size_t)1 << log2_block) < block)
                log2_block++;
            const unsigned long here = check_window_edges(
                log2_block, sizes, d->oclgrind ? 2 : COUNT(sizes), places,
                COUNT(places), seed, device_agrees, &dc);
            device_context_close(&dc);
            printf("item window edges on %s, %u leaves per item: %lu wrong\n",
                   d->name, lpis[j], here);
            wrong += here;
        }
    }
    assert_int_equal(wrong, 0);
}

/* Masked float min and max where POCL folds W leaves in vector lanes
 * (16 for f32, 8 for f64; cl/reduce.cl, sb_lane_leaves_masked): an
 * element that does not take part, or a leaf with none, holds the
 * infinity the strict step never takes over a value, which is exact
 * unless a NaN takes part. Groups of W leaves laid out to break that:
 * a NaN as a leaf's first element taking part after ones that do not,
 * leaves with no element left of a NaN, signed zeros and infinities
 * beside empty leaves, a group with one element (the extreme infinity
 * itself, and nothing else in the input takes part), a group with none
 * (before a NaN), an input with none. A NaN survives the tree only as a
 * left operand, so each NaN is in the first leaf of its group that has
 * an element, and the group is the input's first: pattern group, a plain
 * group, the pattern again, 5 more elements; every device, against the
 * oracle. */
enum { PATTERN_COUNT = 7 };

static double pattern_value(uint64_t *st)
{
    static const double pool[] = { -0.0, 0.0, 1.0, -1.0, 2.5, -7.0 };
    return pool[random_below(st, sizeof pool / sizeof *pool)];
}

/* Element i (0 .. W * 16 - 1) of pattern `k`'s group: its value (NaN
 * marked as such) and whether it takes part. */
static void pattern_element(unsigned k, size_t i, bool is_min, uint64_t *st,
                            double *value, unsigned char *keep)
{
    const size_t leaf = i / 16, at = i % 16;
    const double extreme = is_min ? INFINITY : -INFINITY;
    *value = pattern_value(st);
    *keep = 1;
    switch (k) {
    case 0:   /* leaf 0 empty, leaf 1's first taking part a NaN after two */
        if (leaf == 0 || (leaf == 1 && at < 2)) *keep = 0;
        if (leaf == 1 && at == 2) *value = NAN;
        break;
    case 1:   /* leaf 0: three out, then a NaN; no empty leaf */
        if (leaf == 0 && at < 3) *keep = 0;
        if (leaf == 0 && at == 3) *value = NAN;
        break;
    case 2:   /* leaves 0-3 empty, leaf 4 starts with a NaN */
        if (leaf < 4) *keep = 0;
        if (leaf == 4 && at == 0) *value = NAN;
        break;
    case 3:   /* no NaN: every other leaf empty, zeros and infinities */
        if (leaf % 2 == 0) *keep = 0;
        else if (random_below(st, 3) == 0) *keep = 0;
        if (random_below(st, 4) == 0)
            *value = random_below(st, 2) ? INFINITY : -INFINITY;
        break;
    case 4:   /* one element, the extreme infinity, at the end of leaf 7 */
        *keep = leaf == 7 && at == 15;
        *value = *keep ? extreme : *value;
        break;
    default:  /* 5, 6: no element (6: nor anywhere else in the input) */
        *keep = 0;
        break;
    }
}

static void masked_min_max_lane_groups_match_the_oracle(void **state)
{
    const suite *s = *state;
    static const sb_reduction rs[] = {
        { SB_MIN, SB_F32, 0, 0, 0 }, { SB_MAX, SB_F32, 0, 0, 0 },
        { SB_MIN, SB_F64, 0, 0, 0 }, { SB_MAX, SB_F64, 0, 0, 0 } };
    unsigned long wrong = 0, cases = 0;
    for (size_t i = 0; i < s->all.count; i++) {
        const test_device *d = &s->all.devices[i];
        const sb_options opts = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, d, &opts), SB_OK);
        for (size_t j = 0; j < COUNT(rs); j++) {
            const sb_reduction r = rs[j];
            const bool f32 = r.input == SB_F32;
            const size_t group = (f32 ? 16 : 8) * 16;
            const size_t n = 3 * group + 5;
            for (unsigned k = 0; k < PATTERN_COUNT; k++) {
                test_case c = make_case(seed, r, n, MASK_RANDOM,
                                        FAMILY_SPECIALS);
                c.case_seed = mix_seed(c.case_seed, k);
                uint64_t st = c.case_seed;
                void *x = checked_malloc(n * type_size(r.input));
                unsigned char *mask = checked_malloc(n);
                for (size_t e = 0; e < n; e++) {
                    double v;
                    unsigned char keep;
                    const size_t g = e / group;
                    if (g == 0 || g == 2)
                        pattern_element(k, e % group, r.op == SB_MIN, &st,
                                        &v, &keep);
                    else {
                        v = pattern_value(&st);
                        /* 4, 6: nothing else takes part, so that a
                         * group's wrong infinity or none shows */
                        keep = k != 4 && k != 6;
                        /* 5: right of a group with none, a NaN that
                         * survives only if that group is none */
                        if (k == 5 && e == group)
                            v = NAN;
                    }
                    mask[e] = keep;
                    if (f32)
                        ((float *)x)[e] = (float)v;
                    else
                        ((double *)x)[e] = v;
                }
                sb_status oracle_status;
                if (!check_data_on_device(&dc, &c, x, mask, RUN_BOTH,
                                          &oracle_status)) {
                    fprintf(stderr, "  lane-group pattern %u\n", k);
                    wrong++;
                }
                cases++;
                free(mask);
                free(x);
            }
        }
        device_context_close(&dc);
    }
    printf("masked min/max lane groups: %lu cases, %lu wrong\n", cases,
           wrong);
    assert_int_equal(wrong, 0);
}

/* The reductions the large-input and host-shortcut tests run. */
static const struct {
    sb_reduction r;
    data_family  family;
    mask_kind    mask;
} mixed[] = {
    { { SB_SUM, SB_F32, 0, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
    { { SB_SUM, SB_F32, SB_F64, 0, 0 }, FAMILY_HUGE_RANGE, MASK_RANDOM },
    { { SB_SUM, SB_F64, 0, 0, 0 }, FAMILY_CANCELLATION, MASK_EMPTY_LEAVES },
    { { SB_SUM, SB_F64, 0, 0, 0 }, FAMILY_SPECIALS, MASK_NONE },
    { { SB_SUM, SB_F32, 0, 0, 0 }, FAMILY_SUBNORMAL, MASK_RANDOM },
    { { SB_SUM, SB_I32, SB_I64, 0, 0 }, FAMILY_UNIFORM, MASK_RANDOM },
    { { SB_SUM, SB_I64, 0, 0, 0 }, FAMILY_SUM_EDGE, MASK_NONE },
    { { SB_SUM, SB_I64, 0, SB_WRAP, 0 }, FAMILY_UNIFORM, MASK_RANDOM },
    { { SB_SUM, SB_U8, SB_U32, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
    { { SB_SUM, SB_I16, SB_F32, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
    { { SB_PROD, SB_F32, 0, 0, 0 }, FAMILY_PROD_EDGE, MASK_ALTERNATE_LEAVES },
    { { SB_PROD, SB_F64, 0, 0, 0 }, FAMILY_PROD_EDGE, MASK_NONE },
    { { SB_PROD, SB_I64, 0, 0, 0 }, FAMILY_PROD_EDGE, MASK_RANDOM },
    { { SB_MIN, SB_F32, 0, 0, 0 }, FAMILY_SPECIALS, MASK_EMPTY_LEAVES },
    { { SB_MAX, SB_F64, 0, 0, 0 }, FAMILY_NEGATIVE_ZERO, MASK_RANDOM },
    { { SB_MIN, SB_U16, SB_I32, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
    { { SB_MAX, SB_I8, SB_F64, 0, 0 }, FAMILY_LIMITS, MASK_EMPTY_LEAVES },
    { { SB_MIN, SB_F64, 0, 0, 0 }, FAMILY_UNIFORM, MASK_ALL_ZERO },
    /* masked integer items folded order-free on a CPU device, their
     * elements that do not take part the op's identity, and whole items
     * with none (MASK_EMPTY_RUNS: aligned runs of 128 leaves) no node */
    { { SB_MIN, SB_I32, 0, 0, 0 }, FAMILY_LIMITS, MASK_EMPTY_RUNS },
    { { SB_MAX, SB_I64, 0, 0, 0 }, FAMILY_UNIFORM, MASK_ALL_ZERO },
    { { SB_MAX, SB_I16, 0, 0, 0 }, FAMILY_LIMITS, MASK_RANDOM },
    { { SB_MIN, SB_U8, 0, 0, 0 }, FAMILY_LIMITS, MASK_EMPTY_RUNS },
    { { SB_SUM, SB_I32, SB_I64, 0, 0 }, FAMILY_SUM_EDGE, MASK_EMPTY_RUNS },
    { { SB_PROD, SB_I32, 0, SB_WRAP, 0 }, FAMILY_UNIFORM, MASK_EMPTY_RUNS },
    { { SB_ANY, SB_F32, 0, 0, 0 }, FAMILY_NEGATIVE_ZERO, MASK_RANDOM },
    { { SB_ALL, SB_U8, 0, 0, 0 }, FAMILY_UNIFORM, MASK_NONE },
};

/* Sizes where many work-groups sit below the passes over partials: on POCL
 * about 10^6 elements (over a hundred work-groups of its default shape),
 * on Oclgrind a few thousand (three passes of its small shape). */
static void large_inputs_match_the_oracle(void **state)
{
    const suite *s = *state;
    static const size_t pocl_sizes[] = { 1000003, ((size_t)1 << 17) + 17 };
    static const size_t oclgrind_sizes[] = { 4097, 3001 };
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->all.count; i++) {
        const device_plan *p = &s->plans[i];
        const size_t *sizes = p->dev->oclgrind ? oclgrind_sizes : pocl_sizes;
        tally t = { 0 };
        for (size_t z = 0; z < 2; z++)
            for (size_t k = 0; k < COUNT(mixed); k++) {
                const test_case c = make_case(seed, mixed[k].r, sizes[z],
                                              mixed[k].mask,
                                              mixed[k].family);
                wrong += !run_case(&p->main, &c, RUN_BOTH, &t);
            }
        char label[400];
        snprintf(label, sizeof label, "large inputs on %s", p->dev->name);
        print_tally(label, &t);
    }
    assert_int_equal(wrong, 0);
}

/* Without SB_OPT_NO_HOST, inputs up to host_max_n are reduced on the host
 * (the ranges read back): the bits must be the same as the kernels'. Run with
 * the default threshold (32768) and with host_max_n = 100, across both. */
static void the_host_shortcut_gives_the_same_bits(void **state)
{
    const suite *s = *state;
    static const size_t sizes[] = { 0, 1, 99, 100, 101, 1000, 32768, 32769 };
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->all.count; i++) {
        const test_device *d = &s->all.devices[i];
        const sb_options with_default = { 0 };
        const sb_options with_100 = { .host_max_n = 100,
                                      .host = { .threads = 2 } };
        const sb_options *choices[] = { &with_default, &with_100 };
        tally t = { 0 };
        for (size_t o = 0; o < 2; o++) {
            device_context dc;
            assert_int_equal(device_context_open(&dc, d, choices[o]), SB_OK);
            for (size_t z = 0; z < COUNT(sizes); z++) {
                if (d->oclgrind && sizes[z] > 10000 && o == 1)
                    continue;          /* kernels that big: too slow there */
                for (size_t k = 0; k < COUNT(mixed); k += 3) {
                    const test_case c = make_case(seed, mixed[k].r,
                                                  sizes[z], mixed[k].mask,
                                                  mixed[k].family);
                    wrong += !run_case(&dc, &c, RUN_REDUCE, &t);
                }
            }
            device_context_close(&dc);
        }
        char label[400];
        snprintf(label, sizeof label, "host shortcut on %s", d->name);
        print_tally(label, &t);
    }
    assert_int_equal(wrong, 0);
}

/* SAMEBITS_TEST_FILTER: a glob ('*', '?') of the tests to run, handed to
 * cmocka (cmocka_set_test_filter()); the sanitizer build's simulator run
 * takes the sums alone (tests/device_tests.cmake). @return false, having
 * said why, if it names none of the tests of the parts that run, so that
 * a renamed test cannot make that run pass by running nothing. */
static bool filter_names_a_test(const struct CMUnitTest *a, size_t a_count,
                                const struct CMUnitTest *b, size_t b_count)
{
    const char *glob = getenv("SAMEBITS_TEST_FILTER");
    if (glob == NULL || glob[0] == '\0')
        return true;
    if (strpbrk(glob, "[\\") != NULL) {
        /* cmocka's globs have '*' and '?' alone: fnmatch() would read
         * these differently. */
        fprintf(stderr, "SAMEBITS_TEST_FILTER=%s: only '*' and '?' are "
                "wildcards\n", glob);
        return false;
    }
    cmocka_set_test_filter(glob);
    for (size_t i = 0; i < a_count; i++)
        if (test_part_runs(1) && fnmatch(glob, a[i].name, 0) == 0)
            return true;
    for (size_t i = 0; i < b_count; i++)
        if (test_part_runs(2) && fnmatch(glob, b[i].name, 0) == 0)
            return true;
    fprintf(stderr, "SAMEBITS_TEST_FILTER=%s names no test that runs\n", glob);
    return false;
}

int main(void)
{
    const struct CMUnitTest arithmetic[] = {
        cmocka_unit_test(checked_sums_match_the_oracle),
        cmocka_unit_test(checked_sums_at_the_edges_of_the_leaf_window),
        cmocka_unit_test(checked_sums_at_the_edges_of_the_item_window),
        cmocka_unit_test(wrapping_sums_match_the_oracle),
        cmocka_unit_test(checked_products_match_the_oracle),
        cmocka_unit_test(wrapping_products_match_the_oracle),
    };
    const struct CMUnitTest the_rest[] = {
        cmocka_unit_test(minimums_match_the_oracle),
        cmocka_unit_test(maximums_match_the_oracle),
        cmocka_unit_test(masked_min_max_lane_groups_match_the_oracle),
        cmocka_unit_test(any_matches_the_oracle),
        cmocka_unit_test(all_matches_the_oracle),
        cmocka_unit_test(large_inputs_match_the_oracle),
        cmocka_unit_test(the_host_shortcut_gives_the_same_bits),
    };
    seed = test_seed(20240611u);
    if (!filter_names_a_test(arithmetic, COUNT(arithmetic), the_rest,
                             COUNT(the_rest)))
        return 1;
    int failed = 0;
    if (test_part_runs(1))
        failed += cmocka_run_group_tests_name("device_reduce_sum_prod",
                                              arithmetic, open_suite,
                                              close_suite);
    if (test_part_runs(2))
        failed += cmocka_run_group_tests_name("device_reduce_other",
                                              the_rest, open_suite,
                                              close_suite);
    return failed;
}
