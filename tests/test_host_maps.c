/* tests/test_host_maps.c: element maps (abs, square), SB_SKIP_NAN and dot
 * products on the host, bit for bit and status for status against
 * tests/oracle.c (oracle_reduce(), oracle_dot()).
 *
 *   - sb_reduce_host for every valid (input, accumulator) pair x sum, prod,
 *     min, max x abs, square (checked and, for integer accumulators,
 *     wrapping), and SB_SKIP_NAN with and without maps for every op
 *     including any/all, on the data families of support.h, with masks that
 *     empty whole leaves and with NaNs that empty whole leaves, at sizes
 *     around leaf and block boundaries; two large sizes with threads 1 and
 *     2 and every instruction set this CPU runs;
 *   - sb_dot_host for every valid pair, checked, wrapping and skipping NaNs,
 *     x and y of different data;
 *   - partials: sb_partial_add_host with maps and skipped NaNs and
 *     sb_partial_add_dot_host, at random cuts, merged in random groupings;
 *     mixing the two kinds on one partial, or merging them, is refused and
 *     changes nothing;
 *   - refused combinations (SB_INVALID_ARGUMENT with a detail that names
 *     the problem, the result untouched), sb_reduction_check() and
 *     sb_dot_host() agreeing with the oracle's validity everywhere, and
 *     overflow details that name the element's position.
 *
 * Seeded (printed at start; SAMEBITS_TEST_SEED replays a run). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

/* The instruction sets this CPU runs (SB_ISA_BASELINE always). */
static unsigned isas[3];
static size_t isa_count;

static void find_isas(void)
{
    static const unsigned all[] = { SB_ISA_BASELINE, SB_ISA_AVX2,
                                    SB_ISA_AVX512 };
    isa_count = 0;
    for (size_t k = 0; k < COUNT(all); k++)
        if (sb_host_isa_check(all[k]) == SB_OK)
            isas[isa_count++] = all[k];
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sizes: around the leaf (16) and around powers of two up to 4096. */
static const size_t small_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
};
static const size_t large_sizes[] = { 70001, (1u << 18) + 3 };

static const data_family sum_families[] = { SUM_FAMILIES };
static const data_family prod_families[] = { PROD_FAMILIES };
static const data_family order_families[] = { ORDER_FAMILIES };
static const data_family boolean_families[] = { BOOLEAN_FAMILIES };

static const data_family *families_of(sb_op op, size_t *count)
{
    switch (op) {
    case SB_SUM:  *count = COUNT(sum_families);   return sum_families;
    case SB_PROD: *count = COUNT(prod_families);  return prod_families;
    case SB_MIN:
    case SB_MAX:  *count = COUNT(order_families); return order_families;
    default:      *count = COUNT(boolean_families);
                  return boolean_families;
    }
}

/* ------------------------------------------------------------------------
 * The reductions under test
 * ---------------------------------------------------------------------- */

/* Every valid (input, accumulator) pair, the accumulator 0 standing for
 * A = I (the explicit A = I is the same reduction). */
typedef struct { sb_type input, acc; } type_pair;
static type_pair pairs[TYPE_COUNT * (TYPE_COUNT + 1)];
static size_t pair_count;

static void find_pairs(void)
{
    pair_count = 0;
    for (int in = 1; in <= TYPE_COUNT; in++)
        for (int acc = 0; acc <= TYPE_COUNT; acc++) {
            if (acc == in)
                continue;
            const sb_reduction r = { SB_SUM, (sb_type)in, (sb_type)acc, 0,
                                     SB_MAP_NONE };
            if (oracle_reduction_is_valid(r))
                pairs[pair_count++] = (type_pair){ (sb_type)in,
                                                   (sb_type)acc };
        }
}

/* The reductions of sb_reduce_host() to check: every pair x sum, prod,
 * min, max x abs, square, checked and (integer accumulators) wrapping; and
 * for float inputs SB_SKIP_NAN with every op, without a map and with each
 * map (sum, prod, min, max). */
static size_t map_reductions(sb_reduction *out)
{
    size_t count = 0;
    for (size_t p = 0; p < pair_count; p++) {
        const sb_type in = pairs[p].input, acc = pairs[p].acc;
        const sb_type a = acc == 0 ? in : acc;
        for (int op = SB_SUM; op <= SB_MAX; op++)
            for (int map = SB_MAP_ABS; map <= SB_MAP_SQUARE; map++) {
                out[count++] = (sb_reduction){ (sb_op)op, in, acc, 0,
                                               (sb_map)map };
                if (!type_is_float(a))
                    out[count++] = (sb_reduction){ (sb_op)op, in, acc,
                                                   SB_WRAP, (sb_map)map };
            }
        if (type_is_float(in))
            for (int op = SB_SUM; op <= SB_ALL; op++)
                for (int map = SB_MAP_NONE; map <= SB_MAP_SQUARE; map++) {
                    if (map != SB_MAP_NONE && (op == SB_ANY || op == SB_ALL))
                        continue;
                    out[count++] = (sb_reduction){ (sb_op)op, in, acc,
                                                   SB_SKIP_NAN, (sb_map)map };
                }
    }
    return count;
}

/* The dot products: every pair, checked, wrapping (integer accumulators)
 * and skipping NaNs (float inputs). */
static size_t dot_reductions(sb_reduction *out)
{
    size_t count = 0;
    for (size_t p = 0; p < pair_count; p++) {
        const sb_type in = pairs[p].input, acc = pairs[p].acc;
        const sb_type a = acc == 0 ? in : acc;
        out[count++] = (sb_reduction){ SB_SUM, in, acc, 0, SB_MAP_NONE };
        if (!type_is_float(a))
            out[count++] = (sb_reduction){ SB_SUM, in, acc, SB_WRAP,
                                           SB_MAP_NONE };
        if (type_is_float(in))
            out[count++] = (sb_reduction){ SB_SUM, in, acc, SB_SKIP_NAN,
                                           SB_MAP_NONE };
    }
    return count;
}

enum { MAX_REDUCTIONS = 1024 };

/* Makes about half the leaves of x[0..n) (float type `t`) all NaN, with
 * random payloads and signs, so that SB_SKIP_NAN empties whole leaves. */
static void nan_leaves(sb_type t, void *x, size_t n, uint64_t s)
{
    uint64_t state = s;
    bool nan_leaf = false;
    for (size_t i = 0; i < n; i++) {
        if (i % 16 == 0)
            nan_leaf = random_below(&state, 2) == 0;
        if (!nan_leaf)
            continue;
        const uint64_t r = splitmix64(&state);
        if (t == SB_F32) {
            uint32_t bits = UINT32_C(0x7F800000) | ((uint32_t)r & 0x7FFFFF)
                          | ((uint32_t)(r >> 63) << 31);
            if ((bits & 0x7FFFFF) == 0)
                bits |= 1;
            memcpy((char *)x + 4 * i, &bits, 4);
        } else {
            uint64_t bits = UINT64_C(0x7FF0000000000000)
                          | (r & UINT64_C(0xFFFFFFFFFFFFF))
                          | (r & (UINT64_C(1) << 63));
            if ((bits & UINT64_C(0xFFFFFFFFFFFFF)) == 0)
                bits |= 1;
            memcpy((char *)x + 8 * i, &bits, 8);
        }
    }
}

/* ------------------------------------------------------------------------
 * sb_reduce_host with maps and SB_SKIP_NAN
 * ---------------------------------------------------------------------- */

static void reduce_with_maps_matches_the_oracle(void **state)
{
    (void)state;
    static sb_reduction list[MAX_REDUCTIONS];
    const size_t count = map_reductions(list);
    const double start = seconds_now();
    unsigned long cases = 0, wrong = 0, statuses[SB_OVERFLOW + 1] = { 0 };
    for (size_t k = 0; k < count; k++) {
        size_t family_count;
        const data_family *families = families_of(list[k].op, &family_count);
        for (size_t z = 0; z < COUNT(small_sizes); z++)
            for (size_t f = 0; f < family_count; f++) {
                const mask_kind mk = (mask_kind)((z + f + k) % MASK_COUNT);
                test_case c = make_case(seed, list[k], small_sizes[z], mk,
                                        families[f]);
                /* Threads 1 or 2 (0: the default) and each instruction set
                 * in turn: the bits never depend on them. */
                c.threads = (unsigned)((z + f) % 3);
                c.isa = isas[(z + f + k) % isa_count];
                sb_status st;
                wrong += !check_against_oracle(&c, &st);
                if (st <= SB_OVERFLOW)
                    statuses[st]++;
                cases++;
                /* Skipped NaNs that empty whole leaves. */
                if (list[k].flags & SB_SKIP_NAN) {
                    const size_t n = c.n;
                    void *x = checked_malloc(n * type_size(c.r.input));
                    fill_data(c.family, c.r.input, c.r.accumulator, x, n,
                              c.case_seed);
                    nan_leaves(c.r.input, x, n, mix_seed(c.case_seed, 3));
                    unsigned char *mask = make_mask(mk, n,
                                                    mix_seed(c.case_seed, 1));
                    wrong += !check_data_against_oracle(&c, x, mask, &st);
                    if (st <= SB_OVERFLOW)
                        statuses[st]++;
                    cases++;
                    free(mask);
                    free(x);
                }
            }
    }
    printf("sb_reduce_host, maps and skip-nan: %zu reductions, %lu cases "
           "(%lu ok, %lu empty, %lu overflow), %lu wrong, %.1f s\n", count,
           cases, statuses[SB_OK], statuses[SB_EMPTY], statuses[SB_OVERFLOW],
           wrong, seconds_now() - start);
    assert_int_equal(wrong, 0);
}

/* One large case: the oracle once, the library with threads 1 and 2 and
 * each instruction set. `y` NULL: a reduction; otherwise a dot product
 * (whose options can only come from SAMEBITS_THREADS / SAMEBITS_ISA). */
static unsigned long check_large(const test_case *c, const void *x,
                                 const void *y, const unsigned char *mask)
{
    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    const sb_status ws = y == NULL
        ? oracle_reduce(c->r, x, mask, c->n, want)
        : oracle_dot(c->r, x, y, mask, c->n, want);
    unsigned long wrong = 0;
    for (unsigned threads = 1; threads <= 2; threads++)
        for (size_t i = 0; i < isa_count; i++) {
            unsigned char got[RESULT_BUFFER];
            memset(got, RESULT_SENTINEL, sizeof got);
            sb_status gs;
            if (y == NULL) {
                const sb_host_options opts = { threads, isas[i] };
                gs = sb_reduce_host_opts(c->r, x, mask, c->n, got, &opts);
            } else {
                char text[8];
                snprintf(text, sizeof text, "%u", threads);
                setenv("SAMEBITS_THREADS", text, 1);
                setenv("SAMEBITS_ISA", sb_isa_name(isas[i]), 1);
                assert_int_equal(sb_host_thread_count(NULL), threads);
                assert_int_equal(sb_host_isa(NULL), isas[i]);
                gs = sb_dot_host(c->r, x, y, mask, c->n, got);
                unsetenv("SAMEBITS_THREADS");
                unsetenv("SAMEBITS_ISA");
            }
            if (gs != ws || !bits_equal(got, want, sizeof got)) {
                fprintf(stderr, "MISMATCH (%s, threads %u, isa %s) ",
                        y == NULL ? "reduce" : "dot", threads,
                        sb_isa_name(isas[i]));
                print_case(stderr, c);
                print_run("oracle", c->r, ws, want);
                print_run("host", c->r, gs, got);
                wrong++;
            }
        }
    return wrong;
}

/* The families for large cases, in turn: some overflow, some do not. */
static const data_family large_families[] = {
    FAMILY_SUBNORMAL, FAMILY_SPECIALS, FAMILY_UNIFORM, FAMILY_HUGE_RANGE,
    FAMILY_SIGNED_ZEROS, FAMILY_LIMITS, FAMILY_CANCELLATION,
};
static const mask_kind large_masks[] = { MASK_NONE, MASK_EMPTY_LEAVES,
                                         MASK_RANDOM };

static void large_reductions_match_on_every_isa_and_thread_count(void **s)
{
    (void)s;
    const double start = seconds_now();
    unsigned long cases = 0, runs = 0, wrong = 0;
    size_t k = 0;
    for (size_t p = 0; p < pair_count; p++) {
        const sb_type in = pairs[p].input, acc = pairs[p].acc;
        const sb_type a = acc == 0 ? in : acc;
        sb_reduction list[10];
        size_t count = 0;
        list[count++] = (sb_reduction){ SB_SUM, in, acc, 0, SB_MAP_ABS };
        list[count++] = (sb_reduction){ SB_SUM, in, acc, 0, SB_MAP_SQUARE };
        list[count++] = (sb_reduction){ SB_MAX, in, acc, 0, SB_MAP_ABS };
        list[count++] = (sb_reduction){ SB_MIN, in, acc, 0, SB_MAP_SQUARE };
        if (!type_is_float(a))
            list[count++] = (sb_reduction){ SB_SUM, in, acc, SB_WRAP,
                                            SB_MAP_SQUARE };
        if (type_is_float(in)) {
            list[count++] = (sb_reduction){ SB_SUM, in, acc, SB_SKIP_NAN, 0 };
            list[count++] = (sb_reduction){ SB_MIN, in, acc, SB_SKIP_NAN, 0 };
            list[count++] = (sb_reduction){ SB_ANY, in, acc, SB_SKIP_NAN, 0 };
            list[count++] = (sb_reduction){ SB_SUM, in, acc, SB_SKIP_NAN,
                                            SB_MAP_SQUARE };
        }
        for (size_t j = 0; j < count; j++, k++)
            for (size_t z = 0; z < COUNT(large_sizes); z++) {
                const mask_kind mk = large_masks[(k + z) % COUNT(large_masks)];
                const data_family f =
                    large_families[(k + z) % COUNT(large_families)];
                const test_case c = make_case(seed, list[j], large_sizes[z],
                                              mk, f);
                void *x = checked_malloc(c.n * type_size(in));
                fill_data(f, in, acc, x, c.n, c.case_seed);
                if ((list[j].flags & SB_SKIP_NAN) && z == 1)
                    nan_leaves(in, x, c.n, mix_seed(c.case_seed, 3));
                unsigned char *mask = make_mask(mk, c.n,
                                                mix_seed(c.case_seed, 1));
                wrong += check_large(&c, x, NULL, mask);
                cases++;
                runs += 2 * isa_count;
                free(mask);
                free(x);
            }
    }
    printf("sb_reduce_host_opts, large: %lu cases, %lu library runs (threads "
           "1, 2 x %zu isas), %lu wrong, %.1f s\n", cases, runs, isa_count,
           wrong, seconds_now() - start);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * sb_dot_host
 * ---------------------------------------------------------------------- */

/* x from family `fx`, y from another family of the list, seeded apart. */
typedef struct {
    void          *x, *y;
    unsigned char *mask;
} dot_data;

static dot_data make_dot_data(const test_case *c, data_family fy)
{
    const size_t size = type_size(c->r.input);
    dot_data d;
    d.x = checked_malloc(c->n * size);
    d.y = checked_malloc(c->n * size);
    fill_data(c->family, c->r.input, c->r.accumulator, d.x, c->n,
              c->case_seed);
    fill_data(fy, c->r.input, c->r.accumulator, d.y, c->n,
              mix_seed(c->case_seed, 2));
    if (c->r.flags & SB_SKIP_NAN) {
        /* NaN leaves in x on some cases, in y on others. */
        const uint64_t h = mix_seed(c->case_seed, 4);
        if (h % 3 == 1)
            nan_leaves(c->r.input, d.x, c->n, h);
        else if (h % 3 == 2)
            nan_leaves(c->r.input, d.y, c->n, h);
    }
    d.mask = make_mask(c->mask, c->n, mix_seed(c->case_seed, 1));
    return d;
}

static void free_dot_data(dot_data *d)
{
    free(d->x);
    free(d->y);
    free(d->mask);
}

static unsigned long dot_statuses[SB_OVERFLOW + 1];

static bool check_dot(const test_case *c, const dot_data *d)
{
    unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status ws = oracle_dot(c->r, d->x, d->y, d->mask, c->n, want);
    const sb_status gs = sb_dot_host(c->r, d->x, d->y, d->mask, c->n, got);
    if (ws <= SB_OVERFLOW)
        dot_statuses[ws]++;
    if (gs == ws && bits_equal(got, want, sizeof got))
        return true;
    fprintf(stderr, "MISMATCH (dot) ");
    print_case(stderr, c);
    print_run("oracle", c->r, ws, want);
    print_run("host", c->r, gs, got);
    return false;
}

static void dot_matches_the_oracle(void **state)
{
    (void)state;
    static sb_reduction list[MAX_REDUCTIONS];
    const size_t count = dot_reductions(list);
    const double start = seconds_now();
    unsigned long cases = 0, wrong = 0;
    for (size_t k = 0; k < count; k++)
        for (size_t z = 0; z < COUNT(small_sizes); z++)
            for (size_t f = 0; f < COUNT(sum_families); f++) {
                const mask_kind mk = (mask_kind)((z + f + k) % MASK_COUNT);
                const test_case c = make_case(seed, list[k], small_sizes[z],
                                              mk, sum_families[f]);
                const data_family fy =
                    sum_families[(f + 1 + z) % COUNT(sum_families)];
                dot_data d = make_dot_data(&c, fy);
                wrong += !check_dot(&c, &d);
                cases++;
                free_dot_data(&d);
            }
    unsigned long large = 0;
    for (size_t k = 0; k < count; k++)
        for (size_t z = 0; z < COUNT(large_sizes); z++) {
            const mask_kind mk = large_masks[(k + z) % COUNT(large_masks)];
            const data_family f =
                large_families[(k + z) % COUNT(large_families)];
            const test_case c = make_case(seed, list[k], large_sizes[z], mk,
                                          f);
            dot_data d = make_dot_data(
                &c, large_families[(k + z + 2) % COUNT(large_families)]);
            wrong += check_large(&c, d.x, d.y, d.mask);
            large++;
            free_dot_data(&d);
        }
    printf("sb_dot_host: %zu reductions, %lu cases (%lu ok, %lu overflow) "
           "and %lu large ones (threads 1, 2 x %zu isas), %lu wrong, %.1f s\n",
           count, cases, dot_statuses[SB_OK], dot_statuses[SB_OVERFLOW],
           large, isa_count, wrong, seconds_now() - start);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Partials
 * ---------------------------------------------------------------------- */

/* x[0..n) (and y, for a dot product) cut at cuts[0..k) into partials,
 * merged in a random grouping of adjacent pieces drawn from *state. */
static sb_status reduce_in_pieces(sb_reduction r, const unsigned char *x,
                                  const unsigned char *y,
                                  const unsigned char *mask, size_t n,
                                  const size_t *cuts, size_t k,
                                  uint64_t *state, void *result)
{
    enum { MAX_PIECES = 64 };
    static sb_partial piece[MAX_PIECES];
    size_t order[MAX_PIECES];          /* the pieces left, in position order */
    size_t bounds[MAX_PIECES + 1];
    const size_t size = type_size(r.input);
    bounds[0] = 0;
    for (size_t i = 0; i < k; i++)
        bounds[i + 1] = cuts[i];
    bounds[k + 1] = n;
    size_t count = k + 1;
    for (size_t i = 0; i < count; i++) {
        const size_t b = bounds[i], len = bounds[i + 1] - bounds[i];
        assert_int_equal(sb_partial_init(&piece[i], r, b), SB_OK);
        const sb_status s = y == NULL
            ? sb_partial_add_host(&piece[i], x + b * size,
                                  mask ? mask + b : NULL, len)
            : sb_partial_add_dot_host(&piece[i], x + b * size, y + b * size,
                                      mask ? mask + b : NULL, len);
        assert_int_equal(s, SB_OK);
        order[i] = i;
    }
    while (count > 1) {   /* merge a random adjacent pair */
        const size_t i = (size_t)random_below(state, count - 1);
        assert_int_equal(sb_partial_merge(&piece[order[i]],
                                          &piece[order[i + 1]]), SB_OK);
        memmove(&order[i + 1], &order[i + 2],
                (count - i - 2) * sizeof order[0]);
        count--;
    }
    return sb_partial_finish(&piece[order[0]], result);
}

static const struct {
    sb_reduction r;
    bool         dot;
    data_family  families[3];
} partial_cases[] = {
    { { SB_SUM, SB_F32, 0, 0, SB_MAP_ABS }, false,
      { FAMILY_CANCELLATION, FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO } },
    { { SB_SUM, SB_F32, 0, SB_SKIP_NAN, SB_MAP_SQUARE }, false,
      { FAMILY_SPECIALS, FAMILY_SUBNORMAL, FAMILY_HUGE_RANGE } },
    { { SB_SUM, SB_F32, SB_F64, SB_SKIP_NAN, SB_MAP_SQUARE }, false,
      { FAMILY_SPECIALS, FAMILY_UNIFORM, FAMILY_SUBNORMAL } },
    { { SB_MAX, SB_F64, 0, SB_SKIP_NAN, SB_MAP_ABS }, false,
      { FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS, FAMILY_HUGE_RANGE } },
    { { SB_MIN, SB_F64, 0, SB_SKIP_NAN, 0 }, false,
      { FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS, FAMILY_UNIFORM } },
    { { SB_MIN, SB_F32, 0, 0, SB_MAP_ABS }, false,
      { FAMILY_SIGNED_ZEROS, FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO } },
    { { SB_PROD, SB_F64, 0, SB_SKIP_NAN, SB_MAP_SQUARE }, false,
      { FAMILY_PROD_EDGE, FAMILY_SPECIALS, FAMILY_SUBNORMAL } },
    { { SB_ANY, SB_F32, 0, SB_SKIP_NAN, 0 }, false,
      { FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO, FAMILY_SIGNED_ZEROS } },
    { { SB_ALL, SB_F64, 0, SB_SKIP_NAN, 0 }, false,
      { FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS, FAMILY_UNIFORM } },
    { { SB_MAX, SB_I32, 0, 0, SB_MAP_ABS }, false,
      { FAMILY_LIMITS, FAMILY_UNIFORM, FAMILY_SPECIALS } },
    { { SB_SUM, SB_I32, SB_I64, 0, SB_MAP_ABS }, false,
      { FAMILY_LIMITS, FAMILY_UNIFORM, FAMILY_SUM_EDGE } },
    { { SB_SUM, SB_I16, 0, SB_WRAP, SB_MAP_SQUARE }, false,
      { FAMILY_LIMITS, FAMILY_UNIFORM, FAMILY_ALTERNATING } },
    { { SB_PROD, SB_I8, 0, SB_WRAP, SB_MAP_ABS }, false,
      { FAMILY_LIMITS, FAMILY_PROD_EDGE, FAMILY_UNIFORM } },
    { { SB_SUM, SB_U16, SB_U32, 0, SB_MAP_SQUARE }, false,
      { FAMILY_UNIFORM, FAMILY_LIMITS, FAMILY_SUBNORMAL } },
    { { SB_MIN, SB_I64, 0, 0, SB_MAP_SQUARE }, false,
      { FAMILY_SUBNORMAL, FAMILY_LIMITS, FAMILY_HUGE_RANGE } },
    { { SB_SUM, SB_I8, SB_F32, 0, SB_MAP_SQUARE }, false,
      { FAMILY_UNIFORM, FAMILY_LIMITS, FAMILY_ALTERNATING } },
    { { SB_SUM, SB_F32, 0, 0, 0 }, true,
      { FAMILY_CANCELLATION, FAMILY_SPECIALS, FAMILY_SUBNORMAL } },
    { { SB_SUM, SB_F32, SB_F64, SB_SKIP_NAN, 0 }, true,
      { FAMILY_SPECIALS, FAMILY_HUGE_RANGE, FAMILY_UNIFORM } },
    { { SB_SUM, SB_F64, 0, SB_SKIP_NAN, 0 }, true,
      { FAMILY_SPECIALS, FAMILY_CANCELLATION, FAMILY_SIGNED_ZEROS } },
    { { SB_SUM, SB_I32, 0, SB_WRAP, 0 }, true,
      { FAMILY_UNIFORM, FAMILY_LIMITS, FAMILY_ALTERNATING } },
    { { SB_SUM, SB_I32, 0, 0, 0 }, true,
      { FAMILY_SUBNORMAL, FAMILY_LIMITS, FAMILY_SUM_EDGE } },
    { { SB_SUM, SB_I16, SB_I64, 0, 0 }, true,
      { FAMILY_LIMITS, FAMILY_UNIFORM, FAMILY_SUM_EDGE } },
    { { SB_SUM, SB_U8, SB_U32, 0, 0 }, true,
      { FAMILY_UNIFORM, FAMILY_LIMITS, FAMILY_SUBNORMAL } },
    { { SB_SUM, SB_I8, SB_F32, 0, 0 }, true,
      { FAMILY_UNIFORM, FAMILY_LIMITS, FAMILY_ALTERNATING } },
};

static void partials_with_maps_and_dots_match_the_oracle(void **state)
{
    (void)state;
    static const size_t sizes[] = { 0, 1, 15, 16, 17, 33, 255, 256, 257,
                                    1000, 4097, 9001 };
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_EMPTY_LEAVES, MASK_ALL_ZERO,
                                       MASK_ALTERNATE_LEAVES };
    const double start = seconds_now();
    unsigned long cases = 0, wrong = 0;
    for (size_t ri = 0; ri < COUNT(partial_cases); ri++)
        for (size_t z = 0; z < COUNT(sizes); z++)
            for (size_t fi = 0; fi < 3; fi++) {
                const sb_reduction r = partial_cases[ri].r;
                const mask_kind mk = masks[(z + fi + ri) % COUNT(masks)];
                const test_case c = make_case(seed, r, sizes[z], mk,
                                              partial_cases[ri].families[fi]);
                const size_t n = c.n;
                dot_data d;
                if (partial_cases[ri].dot) {
                    d = make_dot_data(&c, partial_cases[ri].families[
                                              (fi + 1) % 3]);
                } else {
                    d.x = checked_malloc(n * type_size(r.input));
                    d.y = NULL;
                    fill_data(c.family, r.input, r.accumulator, d.x, n,
                              c.case_seed);
                    if (r.flags & SB_SKIP_NAN && fi == 0)
                        nan_leaves(r.input, d.x, n, mix_seed(c.case_seed, 3));
                    d.mask = make_mask(mk, n, mix_seed(c.case_seed, 1));
                }
                unsigned char want[RESULT_BUFFER];
                memset(want, RESULT_SENTINEL, sizeof want);
                const sb_status ws = d.y == NULL
                    ? oracle_reduce(r, d.x, d.mask, n, want)
                    : oracle_dot(r, d.x, d.y, d.mask, n, want);
                uint64_t rs = c.case_seed;
                /* 1 to 64 pieces at random cuts, random grouping: mostly 1
                 * to 7, every fourth try up to 64. */
                for (int t = 0; t < 24; t++) {
                    size_t cuts[63];
                    const size_t k = t % 4 == 3
                                   ? (size_t)random_below(&rs, 64)
                                   : (size_t)random_below(&rs, 7);
                    random_cuts(&rs, n, k, cuts);
                    unsigned char got[RESULT_BUFFER];
                    memset(got, RESULT_SENTINEL, sizeof got);
                    const sb_status gs = reduce_in_pieces(
                        r, d.x, d.y, d.mask, n, cuts, k, &rs, got);
                    cases++;
                    if (gs == ws && bits_equal(got, want, sizeof got))
                        continue;
                    wrong++;
                    fprintf(stderr, "MISMATCH (partials, %s) ",
                            d.y ? "dot" : "elements");
                    print_case(stderr, &c);
                    fprintf(stderr, "  cuts:");
                    for (size_t i = 0; i < k; i++)
                        fprintf(stderr, " %zu", cuts[i]);
                    fputc('\n', stderr);
                    print_run("oracle", r, ws, want);
                    print_run("partials", r, gs, got);
                }
                free_dot_data(&d);
            }
    printf("partials with maps, skip-nan and dot terms: %lu cuts and "
           "groupings, %lu wrong, %.1f s\n", cases, wrong,
           seconds_now() - start);
    assert_int_equal(wrong, 0);
}

/* "once it holds elements of sb_partial_add_host() it refuses dot terms,
 * and the reverse (SB_INVALID_ARGUMENT), and so does a merge of the two
 * kinds; an empty partial takes either." */
static void partials_refuse_to_mix_elements_and_dot_terms(void **state)
{
    (void)state;
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    const float x[4] = { 1, 2, 3, 4 }, y[4] = { 5, 6, 7, 8 };
    sb_partial elements, terms, before, empty;
    assert_int_equal(sb_partial_init(&elements, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&elements, x, NULL, 2), SB_OK);
    assert_int_equal(sb_partial_init(&terms, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_dot_host(&terms, x, y, NULL, 2), SB_OK);

    memcpy(&before, &elements, sizeof before);
    assert_int_equal(sb_partial_add_dot_host(&elements, x + 2, y + 2, NULL, 2),
                     SB_INVALID_ARGUMENT);
    assert_true(sb_error_detail()[0] != '\0');
    assert_memory_equal(&elements, &before, sizeof before);

    memcpy(&before, &terms, sizeof before);
    assert_int_equal(sb_partial_add_host(&terms, x + 2, NULL, 2),
                     SB_INVALID_ARGUMENT);
    assert_true(sb_error_detail()[0] != '\0');
    assert_memory_equal(&terms, &before, sizeof before);

    /* Merges of the two kinds, both ways. */
    sb_partial right_elements, right_terms;
    assert_int_equal(sb_partial_init(&right_elements, sum, 2), SB_OK);
    assert_int_equal(sb_partial_add_host(&right_elements, x + 2, NULL, 2),
                     SB_OK);
    assert_int_equal(sb_partial_init(&right_terms, sum, 2), SB_OK);
    assert_int_equal(sb_partial_add_dot_host(&right_terms, x + 2, y + 2,
                                             NULL, 2), SB_OK);
    memcpy(&before, &elements, sizeof before);
    assert_int_equal(sb_partial_merge(&elements, &right_terms),
                     SB_INVALID_ARGUMENT);
    assert_true(sb_error_detail()[0] != '\0');
    assert_memory_equal(&elements, &before, sizeof before);
    memcpy(&before, &terms, sizeof before);
    assert_int_equal(sb_partial_merge(&terms, &right_elements),
                     SB_INVALID_ARGUMENT);
    assert_true(sb_error_detail()[0] != '\0');
    assert_memory_equal(&terms, &before, sizeof before);

    /* The right kinds still merge and finish: the dot is 5 + 12 + 21 + 32
     * = 70, the sum 10. */
    float out = -1.0f;
    assert_int_equal(sb_partial_merge(&terms, &right_terms), SB_OK);
    assert_int_equal(sb_partial_finish(&terms, &out), SB_OK);
    assert_true(out == 70.0f);
    assert_int_equal(sb_partial_merge(&elements, &right_elements), SB_OK);
    assert_int_equal(sb_partial_finish(&elements, &out), SB_OK);
    assert_true(out == 10.0f);

    /* An empty partial takes either kind, and merges with either, on the
     * left and on the right. [0, 2): the dot 5 + 12 = 17, the sum 3. */
    assert_int_equal(sb_partial_init(&empty, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_dot_host(&empty, x, y, NULL, 2), SB_OK);
    assert_int_equal(sb_partial_init(&empty, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&empty, x, NULL, 2), SB_OK);
    sb_partial empty_right;
    assert_int_equal(sb_partial_init(&empty_right, sum, 2), SB_OK);
    assert_int_equal(sb_partial_init(&terms, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_dot_host(&terms, x, y, NULL, 2), SB_OK);
    assert_int_equal(sb_partial_init(&empty, sum, 0), SB_OK);
    assert_int_equal(sb_partial_merge(&empty, &terms), SB_OK);
    assert_int_equal(sb_partial_merge(&empty, &empty_right), SB_OK);
    assert_int_equal(sb_partial_finish(&empty, &out), SB_OK);
    assert_true(out == 17.0f);
    assert_int_equal(sb_partial_init(&elements, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&elements, x, NULL, 2), SB_OK);
    assert_int_equal(sb_partial_init(&empty, sum, 0), SB_OK);
    assert_int_equal(sb_partial_merge(&empty, &elements), SB_OK);
    assert_int_equal(sb_partial_merge(&empty, &empty_right), SB_OK);
    assert_int_equal(sb_partial_finish(&empty, &out), SB_OK);
    assert_true(out == 3.0f);

    /* A dot partial of a reduction that is no dot product: refused, and
     * nothing changes. */
    const sb_reduction bad[] = {
        { SB_MIN, SB_F32, 0, 0, SB_MAP_NONE },
        { SB_SUM, SB_F32, 0, 0, SB_MAP_ABS },
    };
    for (size_t k = 0; k < COUNT(bad); k++) {
        sb_partial p;
        assert_int_equal(sb_partial_init(&p, bad[k], 0), SB_OK);
        memcpy(&before, &p, sizeof before);
        assert_int_equal(sb_partial_add_dot_host(&p, x, y, NULL, 2),
                         SB_INVALID_ARGUMENT);
        assert_true(sb_error_detail()[0] != '\0');
        assert_memory_equal(&p, &before, sizeof before);
    }
}

/* ------------------------------------------------------------------------
 * Refused combinations, details
 * ---------------------------------------------------------------------- */

static bool untouched(const unsigned char *bytes)
{
    for (size_t i = 0; i < RESULT_BUFFER; i++)
        if (bytes[i] != RESULT_SENTINEL)
            return false;
    return true;
}

/* Runs a refused call's result buffer check and its detail: it must name
 * `word`. */
static void expect_refusal(const char *what, sb_status s,
                           const unsigned char *result, const char *word)
{
    const char *detail = sb_error_detail();
    const bool good = s == SB_INVALID_ARGUMENT && untouched(result) &&
                      detail[0] != '\0' && strstr(detail, word) != NULL;
    if (!good)
        fprintf(stderr, "%s: %s, detail \"%s\" (wanted SB_INVALID_ARGUMENT "
                "naming \"%s\")%s\n", what, status_name(s), detail, word,
                untouched(result) ? "" : ", result written");
    assert_true(good);
}

static void bad_combinations_are_refused_with_a_detail(void **state)
{
    (void)state;
    const float f[4] = { 1, 2, 3, 4 };
    const int32_t i[4] = { 1, 2, 3, 4 };
    unsigned char out[RESULT_BUFFER];
#define REFUSED(call, word)                                                 \
    do {                                                                    \
        memset(out, RESULT_SENTINEL, sizeof out);                           \
        expect_refusal(#call, (call), out, (word));                         \
    } while (0)
    REFUSED(sb_dot_host((sb_reduction){ SB_MIN, SB_F32, 0, 0, 0 }, f, f,
                        NULL, 4, out), "SB_SUM");
    REFUSED(sb_dot_host((sb_reduction){ SB_SUM, SB_F32, 0, 0, SB_MAP_ABS },
                        f, f, NULL, 4, out), "map");
    REFUSED(sb_dot_host((sb_reduction){ SB_SUM, SB_F32, 0, 0,
                                        SB_MAP_SQUARE }, f, f, NULL, 4, out),
            "map");
    REFUSED(sb_reduce_host((sb_reduction){ SB_ANY, SB_F32, 0, 0,
                                           SB_MAP_ABS }, f, NULL, 4, out),
            "map");
    REFUSED(sb_reduce_host((sb_reduction){ SB_ALL, SB_I32, 0, 0,
                                           SB_MAP_SQUARE }, i, NULL, 4, out),
            "map");
    REFUSED(sb_reduce_host((sb_reduction){ SB_SUM, SB_F32, 0, 0, (sb_map)3 },
                           f, NULL, 4, out), "map");
    REFUSED(sb_reduce_host((sb_reduction){ SB_SUM, SB_I32, 0, SB_SKIP_NAN,
                                           0 }, i, NULL, 4, out),
            "SB_SKIP_NAN");
    REFUSED(sb_dot_host((sb_reduction){ SB_SUM, SB_I32, 0, SB_SKIP_NAN, 0 },
                        i, i, NULL, 4, out), "SB_SKIP_NAN");
    REFUSED(sb_dot_host((sb_reduction){ SB_SUM, SB_F32, 0, 0, 0 }, f, NULL,
                        NULL, 4, out), "y");
    REFUSED(sb_dot_host((sb_reduction){ SB_SUM, SB_F32, 0, 0, 0 }, NULL, f,
                        NULL, 4, out), "x");
#undef REFUSED
    /* Neither the oracle writes. */
    memset(out, RESULT_SENTINEL, sizeof out);
    assert_int_equal(oracle_dot((sb_reduction){ SB_SUM, SB_F32, 0, 0, 0 }, f,
                                NULL, NULL, 4, out), SB_INVALID_ARGUMENT);
    assert_true(untouched(out));
}

/* sb_reduction_check(), sb_result_size() and sb_dot_host() (n = 0) agree
 * with the oracle's validity on every op, type pair, flag set and map,
 * unknown values included. */
static void validity_agrees_with_the_oracle_everywhere(void **state)
{
    (void)state;
    static const int maps[] = { -1, SB_MAP_NONE, SB_MAP_ABS, SB_MAP_SQUARE,
                                3, 100 };
    unsigned long combinations = 0, valid = 0, valid_dots = 0, wrong = 0;
    for (int op = -1; op <= SB_ALL + 1; op++)
        for (int in = 0; in <= TYPE_COUNT + 1; in++)
            for (int acc = 0; acc <= TYPE_COUNT + 1; acc++)
                for (unsigned flags = 0; flags < 8; flags++)
                    for (size_t m = 0; m < COUNT(maps); m++) {
                        const sb_reduction r = { (sb_op)op, (sb_type)in,
                                                 (sb_type)acc, flags,
                                                 (sb_map)maps[m] };
                        const bool ok = oracle_reduction_is_valid(r);
                        const bool dot_ok = oracle_dot_is_valid(r);
                        unsigned char out[RESULT_BUFFER];
                        const sb_status check = sb_reduction_check(r);
                        const sb_status dot =
                            sb_dot_host(r, NULL, NULL, NULL, 0, out);
                        combinations++;
                        valid += ok;
                        valid_dots += dot_ok;
                        if ((check == SB_OK) != ok ||
                            (sb_result_size(r) != 0) != ok ||
                            sb_result_size(r) != oracle_result_size(r) ||
                            (dot == SB_OK) != dot_ok ||
                            (!dot_ok && dot != SB_INVALID_ARGUMENT) ||
                            (!ok && sb_error_detail()[0] == '\0')) {
                            if (wrong++ < 10)
                                fprintf(stderr, "validity: op %d input %d "
                                        "acc %d flags %u map %d: oracle %d "
                                        "dot %d, library %s, dot %s\n", op,
                                        in, acc, flags, maps[m], ok, dot_ok,
                                        status_name(check),
                                        status_name(dot));
                        }
                    }
    printf("validity: %lu combinations, %lu valid reductions, %lu valid "
           "dot products, %lu wrong\n", combinations, valid, valid_dots,
           wrong);
    assert_int_equal(wrong, 0);
}

/* An abs, square or product that overflows names the element position. */
static void overflow_details_name_the_position(void **state)
{
    (void)state;
    static const size_t sizes[] = { 1, 40, 4097, 70001 };
    unsigned long checks = 0;
    for (size_t z = 0; z < COUNT(sizes); z++) {
        const size_t n = sizes[z];
        int32_t *x = checked_malloc(n * sizeof *x);
        int32_t *y = checked_malloc(n * sizeof *y);
        const size_t places[] = { 0, n / 2, n - 1, n > 17 ? 17 : 0 };
        for (size_t pi = 0; pi < COUNT(places); pi++) {
            const size_t at = places[pi];
            char want[64];
            snprintf(want, sizeof want, "position %zu", at);
            for (size_t i = 0; i < n; i++)
                x[i] = y[i] = (int32_t)(i % 7) - 3;
            for (int op = SB_SUM; op <= SB_MAX; op++) {
                int32_t out = 0;
                x[at] = INT32_MIN;
                const sb_reduction abs_r = { (sb_op)op, SB_I32, 0, 0,
                                             SB_MAP_ABS };
                assert_int_equal(sb_reduce_host(abs_r, x, NULL, n, &out),
                                 SB_OVERFLOW);
                if (strstr(sb_error_detail(), want) == NULL)
                    fail_msg("abs %s: detail \"%s\" lacks \"%s\"",
                             op_name((sb_op)op), sb_error_detail(), want);
                assert_int_equal(oracle_reduce(abs_r, x, NULL, n, &out),
                                 SB_OVERFLOW);
                x[at] = 46341;     /* 46341^2 = 2147488281 > INT32_MAX */
                const sb_reduction square_r = { (sb_op)op, SB_I32, 0, 0,
                                                SB_MAP_SQUARE };
                assert_int_equal(sb_reduce_host(square_r, x, NULL, n, &out),
                                 SB_OVERFLOW);
                if (strstr(sb_error_detail(), want) == NULL)
                    fail_msg("square %s: detail \"%s\" lacks \"%s\"",
                             op_name((sb_op)op), sb_error_detail(), want);
                checks += 2;
            }
            x[at] = 65536;
            y[at] = -65536;       /* -2^32 */
            int32_t out = 0;
            const sb_reduction dot = { SB_SUM, SB_I32, 0, 0, 0 };
            assert_int_equal(sb_dot_host(dot, x, y, NULL, n, &out),
                             SB_OVERFLOW);
            if (strstr(sb_error_detail(), want) == NULL)
                fail_msg("dot: detail \"%s\" lacks \"%s\"", sb_error_detail(),
                         want);
            checks++;
        }
        free(x);
        free(y);
    }
    printf("overflow details: %lu checked\n", checks);
}

/* ------------------------------------------------------------------------
 * Full unmasked blocks: the tree over a block's leaves, on every set
 * ---------------------------------------------------------------------- */

/* Data whose result depends on the shape of the tree, for op on f32 or
 * f64 (t): sums and dot products of uniform values in [-1, 1) (every
 * grouping rounds differently), products of 1 + u / 256 (no underflow to
 * 0), min and max of uniform values with a NaN first in some leaves (a
 * NaN node survives a combine only as its left side). */
static void tree_sensitive(sb_type t, sb_op op, void *x, size_t n,
                           uint64_t s)
{
    uint64_t state = s;
    for (size_t i = 0; i < n; i++) {
        double v = 2.0 * random_unit(&state) - 1.0;
        if (op == SB_PROD)
            v = 1.0 + v / 256.0;
        else if ((op == SB_MIN || op == SB_MAX) && i % 16 == 0
                 && random_below(&state, 8) == 0)
            v = NAN;
        if (t == SB_F32) {
            const float f = (float)v;
            memcpy((char *)x + 4 * i, &f, 4);
        } else {
            memcpy((char *)x + 8 * i, &v, 8);
        }
    }
}

/* Every float reduction with a map (and without), and every float dot
 * product, over whole unmasked blocks on each instruction set: the
 * mapped and dot folds reduce their leaves to registers and merge them
 * into the block's tree as they go (host_kernels.c, VTREE_PUSH), a path
 * the mixed cases above reach on few sets and with data (NaNs, zeros)
 * that hides a wrong tree. */
static void full_blocks_take_the_tree_on_every_isa(void **state)
{
    (void)state;
    static const size_t sizes[] = { 4096, 3 * 4096 + 5 };
    static const sb_type types[] = { SB_F32, SB_F64 };
    unsigned long cases = 0, wrong = 0;
    for (size_t ti = 0; ti < COUNT(types); ti++)
        for (size_t si = 0; si < COUNT(sizes); si++)
            for (int op = SB_SUM; op <= SB_MAX; op++)
                for (int map = SB_MAP_NONE; map <= SB_MAP_SQUARE + 1; map++) {
                    /* map SB_MAP_SQUARE + 1: the dot product (sums only). */
                    const bool dot = map == SB_MAP_SQUARE + 1;
                    if (dot && op != SB_SUM)
                        continue;
                    const sb_type t = types[ti];
                    const size_t n = sizes[si];
                    const sb_reduction r = { (sb_op)op, t, 0, 0,
                                             dot ? SB_MAP_NONE : (sb_map)map };
                    const size_t bytes = n * sb_type_size(t);
                    unsigned char *x = checked_malloc(bytes);
                    unsigned char *y = checked_malloc(bytes);
                    const uint64_t s = mix_seed(seed, 900 + cases);
                    tree_sensitive(t, (sb_op)op, x, n, s);
                    tree_sensitive(t, (sb_op)op, y, n, mix_seed(s, 1));
                    unsigned char want[RESULT_BUFFER];
                    memset(want, RESULT_SENTINEL, sizeof want);
                    const sb_status ws = dot
                        ? oracle_dot(r, x, y, NULL, n, want)
                        : oracle_reduce(r, x, NULL, n, want);
                    for (size_t i = 0; i < isa_count; i++) {
                        const sb_host_options opts = { 1, isas[i] };
                        unsigned char got[RESULT_BUFFER];
                        memset(got, RESULT_SENTINEL, sizeof got);
                        const sb_status gs = dot
                            ? sb_dot_host_opts(r, x, y, NULL, n, got, &opts)
                            : sb_reduce_host_opts(r, x, NULL, n, got, &opts);
                        if (gs != ws || !bits_equal(got, want, sizeof got)) {
                            fprintf(stderr, "MISMATCH %s %s %s%s, n = %zu, "
                                    "isa %s, seed %llu\n",
                                    type_name(t), op_name((sb_op)op),
                                    dot ? "dot" : "map ",
                                    dot ? "" : sb_map_name((sb_map)map), n,
                                    sb_isa_name(isas[i]),
                                    (unsigned long long)seed);
                            print_run("oracle", r, ws, want);
                            print_run("host", r, gs, got);
                            wrong++;
                        }
                    }
                    free(x);
                    free(y);
                    cases++;
                }
    printf("full blocks: %lu cases on %zu instruction sets, %lu wrong\n",
           cases, isa_count, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Full blocks with a mask or skipping NaNs, converted as they load
 * ---------------------------------------------------------------------- */

/* Every float input into each accumulator it converts to, sum, prod, min
 * and max, over whole blocks with a mask and with NaNs skipped (with and
 * without a mask), on each instruction set: host_kernels.c folds these
 * blocks as they load (DEFINE_CONV_FOLD_BLOCKS), takes its tree in
 * registers where every leaf has an element, and finds the leaves that
 * have one from the mask alone unless the fold loaded a NaN. */
static void masked_and_nan_skipping_blocks_match_on_every_isa(void **state)
{
    (void)state;
    static const struct { sb_type in, acc; } pairs_[] = {
        { SB_F32, SB_SAME_AS_INPUT }, { SB_F32, SB_F64 },
        { SB_F64, SB_SAME_AS_INPUT },
        { SB_F16, SB_SAME_AS_INPUT }, { SB_F16, SB_F32 }, { SB_F16, SB_F64 },
        { SB_BF16, SB_SAME_AS_INPUT }, { SB_BF16, SB_F32 }, { SB_BF16, SB_F64 },
    };
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_ALTERNATE_LEAVES };
    const size_t n = 3 * 4096 + 4096 / 2 + 5;
    unsigned long cases = 0, wrong = 0;
    for (size_t p = 0; p < COUNT(pairs_); p++)
        for (int layout = 0; layout < NAN_BLOCK_LAYOUTS; layout++)
            for (size_t m = 0; m < COUNT(masks); m++)
                for (unsigned flags = 0; flags <= SB_SKIP_NAN; flags += SB_SKIP_NAN)
                    for (int op = SB_SUM; op <= SB_MAX; op++) {
                        if (flags == 0 && (layout != 0 || masks[m] == MASK_NONE))
                            continue;   /* NaNs taking part: one layout */
                        const sb_reduction r = { (sb_op)op, pairs_[p].in,
                                                 pairs_[p].acc, flags, 0 };
                        const uint64_t s = mix_seed(seed, 1200 + cases);
                        unsigned char *x = checked_malloc(n * sb_type_size(r.input));
                        fill_nan_blocks(r.input, x, n, layout, s);
                        unsigned char *mask = make_mask(masks[m], n, mix_seed(s, 1));
                        unsigned char want[RESULT_BUFFER];
                        memset(want, RESULT_SENTINEL, sizeof want);
                        const sb_status ws = oracle_reduce(r, x, mask, n, want);
                        for (size_t i = 0; i < isa_count; i++) {
                            const sb_host_options opts = { 1, isas[i] };
                            unsigned char got[RESULT_BUFFER];
                            memset(got, RESULT_SENTINEL, sizeof got);
                            const sb_status gs =
                                sb_reduce_host_opts(r, x, mask, n, got, &opts);
                            if (gs != ws || !bits_equal(got, want, sizeof got)) {
                                fprintf(stderr, "MISMATCH %s>%s %s flags %u "
                                        "layout %d mask %d isa %s seed %llu\n",
                                        type_name(r.input),
                                        type_name(r.accumulator),
                                        op_name(r.op), flags, layout,
                                        (int)masks[m], sb_isa_name(isas[i]),
                                        (unsigned long long)seed);
                                print_run("oracle", r, ws, want);
                                print_run("host", r, gs, got);
                                wrong++;
                            }
                        }
                        free(x);
                        free(mask);
                        cases++;
                    }
    printf("masked and NaN-skipping blocks: %lu cases on %zu instruction "
           "sets, %lu wrong\n", cases, isa_count, wrong);
    assert_int_equal(wrong, 0);
}

/* Stores v, in range for integer type t, as element i of x. */
static void store_int(sb_type t, void *x, size_t i, long long v,
                      unsigned long long u, bool use_u)
{
    unsigned char *p = (unsigned char *)x + i * type_size(t);
    switch (t) {
    case SB_I8:  { int8_t w = (int8_t)v; memcpy(p, &w, 1); break; }
    case SB_U8:  { uint8_t w = (uint8_t)u; memcpy(p, &w, 1); break; }
    case SB_I16: { int16_t w = (int16_t)v; memcpy(p, &w, 2); break; }
    case SB_U16: { uint16_t w = (uint16_t)u; memcpy(p, &w, 2); break; }
    case SB_I32: { int32_t w = (int32_t)v; memcpy(p, &w, 4); break; }
    case SB_U32: { uint32_t w = (uint32_t)u; memcpy(p, &w, 4); break; }
    case SB_I64: { int64_t w = (int64_t)v; memcpy(p, &w, 8); break; }
    case SB_U64: { uint64_t w = use_u ? u : (uint64_t)v; memcpy(p, &w, 8);
                   break; }
    default: break;
    }
}

/* Integer sums, min and max, plain, of |x| and of x^2, and dot products
 * (y of its own values), over one full block whose elements are 2^k
 * (every fifth element half of it), or all 2^k - 1, or all -2^k and all
 * -(2^k - 1) (signed) or all 2^k (unsigned), every k the input type
 * holds up to its largest value, with no mask, a random one and one that
 * takes nothing, on each instruction set; checked, and plain and x^2 sums
 * wrapping. host_kernels.c folds such blocks in any order where no step
 * can leave the accumulator, a window it checks in powers of two (giving
 * the block to the ordered, checked fold outside it): so each window's
 * edge and one past it are here (a block of one value reaches them: a
 * sum of 4096 times -2^k, a min of the type's largest alone), and a
 * checked overflow must be reported as the oracle reports it. */
static void integer_blocks_at_powers_of_two_match_on_every_isa(void **state)
{
    (void)state;
    enum { N = 4096, KINDS = 12 };
    /* kind: sum, min, max x no map, |x|, x^2; then dot, wrapping sums */
    static const sb_op ops[] = { SB_SUM, SB_MIN, SB_MAX };
    static const sb_map maps[] = { SB_MAP_NONE, SB_MAP_ABS, SB_MAP_SQUARE };
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_ALL_ZERO };
    unsigned long cases = 0, wrong = 0;
    void *x = checked_malloc(N * 8), *y = checked_malloc(N * 8);
    for (int in_ = SB_I8; in_ <= SB_U64; in_++)
        for (int acc_ = SB_I8; acc_ <= SB_U64; acc_++) {
            /* every integer input into itself and each wider integer */
            const sb_type in = (sb_type)in_, acc = (sb_type)acc_;
            const sb_reduction probe = { SB_SUM, in, acc, 0, SB_MAP_NONE };
            if (!oracle_reduction_is_valid(probe))
                continue;
            const unsigned bits = (unsigned)type_size(in) * 8;
            const bool is_signed = type_is_signed(in);
            for (unsigned k = 0; k <= bits; k++)
                for (int variant = 0; variant < 4; variant++) {
                    /* 2^k (0 standing for 2^64), then the magnitude */
                    const unsigned long long p2 = k < 64 ? 1ULL << k : 0;
                    const unsigned long long mag = variant & 1 ? p2 - 1 : p2;
                    const bool negative = is_signed && variant >= 2;
                    if ((k == 64 && !(variant & 1)) ||
                        (!is_signed && variant == 3) ||
                        (negative && mag == 0))
                        continue;
                    if (is_signed
                        ? mag > (1ULL << (bits - 1)) - (negative ? 0 : 1)
                        : bits < 64 && mag > (1ULL << bits) - 1)
                        continue;   /* out of the type's range */
                    const long long v = negative ? -(long long)(mag - 1) - 1
                                                 : (long long)mag;
                    for (size_t i = 0; i < N; i++) {
                        const bool half = i % 5 == 1 && variant == 0;
                        store_int(in, x, i, half ? v / 2 : v,
                                  half ? mag / 2 : mag, !is_signed);
                        const bool other = i % 3 != 0;
                        store_int(in, y, i, other ? v / 2 : v,
                                  other ? mag / 2 : mag, !is_signed);
                    }
                    for (int kind = 0; kind < KINDS; kind++) {
                        const bool dot = kind == 9;
                        const sb_reduction r = {
                            kind < 9 ? ops[kind % 3] : SB_SUM, in, acc,
                            kind > 9 ? SB_WRAP : 0,
                            kind < 9 ? maps[kind / 3]
                                     : kind == 11 ? SB_MAP_SQUARE
                                                  : SB_MAP_NONE };
                        for (size_t m = 0; m < COUNT(masks); m++) {
                            unsigned char *mask =
                                make_mask(masks[m], N, mix_seed(seed, cases));
                            unsigned char want[RESULT_BUFFER];
                            memset(want, RESULT_SENTINEL, sizeof want);
                            const sb_status ws =
                                dot ? oracle_dot(r, x, y, mask, N, want)
                                    : oracle_reduce(r, x, mask, N, want);
                            for (size_t i = 0; i < isa_count; i++) {
                                const sb_host_options opts = { 1, isas[i] };
                                unsigned char got[RESULT_BUFFER];
                                memset(got, RESULT_SENTINEL, sizeof got);
                                const sb_status gs =
                                    dot ? sb_dot_host_opts(r, x, y, mask, N,
                                                           got, &opts)
                                        : sb_reduce_host_opts(r, x, mask, N,
                                                              got, &opts);
                                if (gs != ws ||
                                    !bits_equal(got, want, sizeof got)) {
                                    fprintf(stderr, "MISMATCH %s>%s %s map "
                                            "%d dot %d flags %u value %lld "
                                            "(%llu) mask %s isa %s (seed "
                                            "%llu)\n",
                                            type_name(in), type_name(acc),
                                            op_name(r.op), (int)r.map,
                                            (int)dot, r.flags, v, mag,
                                            mask_name(masks[m]),
                                            sb_isa_name(isas[i]),
                                            (unsigned long long)seed);
                                    print_run("oracle", r, ws, want);
                                    print_run("host", r, gs, got);
                                    wrong++;
                                }
                            }
                            free(mask);
                            cases++;
                        }
                    }
                }
        }
    free(x);
    free(y);
    printf("integer blocks at powers of two: %lu cases on %zu instruction "
           "sets, %lu wrong\n", cases, isa_count, wrong);
    assert_true(cases > 0);
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(validity_agrees_with_the_oracle_everywhere),
        cmocka_unit_test(bad_combinations_are_refused_with_a_detail),
        cmocka_unit_test(overflow_details_name_the_position),
        cmocka_unit_test(reduce_with_maps_matches_the_oracle),
        cmocka_unit_test(large_reductions_match_on_every_isa_and_thread_count),
        cmocka_unit_test(dot_matches_the_oracle),
        cmocka_unit_test(full_blocks_take_the_tree_on_every_isa),
        cmocka_unit_test(masked_and_nan_skipping_blocks_match_on_every_isa),
        cmocka_unit_test(integer_blocks_at_powers_of_two_match_on_every_isa),
        cmocka_unit_test(partials_with_maps_and_dots_match_the_oracle),
        cmocka_unit_test(partials_refuse_to_mix_elements_and_dot_terms),
    };
    seed = test_seed(20260315u);
    find_isas();
    find_pairs();
    printf("%zu valid (input, accumulator) pairs; isas:", pair_count);
    for (size_t i = 0; i < isa_count; i++)
        printf(" %s", sb_isa_name(isas[i]));
    printf("\n");
    return cmocka_run_group_tests_name("host_maps", tests, NULL, NULL);
}
