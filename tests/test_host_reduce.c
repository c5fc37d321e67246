/* tests/test_host_reduce.c: sb_reduce_host() against tests/oracle.c, bit for
 * bit, on random data.
 *
 * Every op x input type x allowed accumulator x mask kind x (checked, and
 * SB_WRAP where it applies) x size class x data family is one case; each
 * case runs the library twice (determinism) and compares status and the
 * whole result buffer with the oracle. A mismatch prints the case (seed,
 * case seed and every parameter), enough to replay it: rerun with
 * SAMEBITS_TEST_SEED=<seed>. Each test stops after MAX_MISMATCHES.
 * Last, a caller's rounding mode and flush-to-zero must change no bit and
 * must be handed back intact. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <fenv.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
#endif

#include "oracle.h"
#include "samebits.h"
#include "support.h"

enum { MAX_MISMATCHES = 20 };

static uint64_t seed;

/* 0, 1, around one and two leaves, then 2^k - 1, 2^k, 2^k + 1 for k = 6 ..
 * 12 (up to 256 leaves), then ragged sizes whose leaf counts, and their
 * counts of 16-leaf groups (a unit an implementation may work in), have
 * three or more bits set, so that several odd levels meet: 97 (7 leaves),
 * 1000 (63 leaves), 1789 (112 leaves, 7 groups), 3333 (209 leaves,
 * 14 groups), 7777 (487 leaves, 31 groups). */
static size_t sizes[8 + 3 * 7 + 5];
static size_t size_count;

static void make_sizes(void)
{
    static const size_t small[] = { 0, 1, 15, 16, 17, 31, 32, 33 };
    static const size_t ragged[] = { 97, 1000, 1789, 3333, 7777 };
    for (size_t k = 0; k < sizeof small / sizeof *small; k++)
        sizes[size_count++] = small[k];
    for (unsigned k = 6; k <= 12; k++) {
        sizes[size_count++] = ((size_t)1 << k) - 1;
        sizes[size_count++] = (size_t)1 << k;
        sizes[size_count++] = ((size_t)1 << k) + 1;
    }
    for (size_t k = 0; k < sizeof ragged / sizeof *ragged; k++)
        sizes[size_count++] = ragged[k];
}

static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM, MASK_EMPTY_LEAVES,
                                   MASK_ALTERNATE_LEAVES };

/* The families worth running per op. */
static const data_family sum_families[] = { SUM_FAMILIES };
static const data_family prod_families[] = { PROD_FAMILIES };
static const data_family order_families[] = { ORDER_FAMILIES };
static const data_family boolean_families[] = { BOOLEAN_FAMILIES };

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* Counts of what the oracle answered, so a run shows it covered overflow
 * and empty results, not only SB_OK. */
typedef struct {
    unsigned long cases, ok, empty, overflow;
} tally;

static void print_tally(const char *what, const tally *t)
{
    printf("%s: %lu cases (%lu ok, %lu empty, %lu overflow)\n", what,
           t->cases, t->ok, t->empty, t->overflow);
}

/* Runs every allowed (input, accumulator) pair of `op` with `flags` over
 * every size, mask and family given. Accumulator 0 stands for A = I; the
 * explicit A = I is run on the small sizes only. With SB_WRAP, only
 * integer accumulators (the others are refused, tested elsewhere).
 * @return the number of mismatches. */
static int run_matrix(sb_op op, unsigned flags, const data_family *families,
                      size_t family_count, tally *t)
{
    int wrong = 0;
    for (int input = 1; input <= TYPE_COUNT; input++) {
        for (int acc = 0; acc <= TYPE_COUNT; acc++) {
            const sb_reduction r = { .op = op, .input = (sb_type)input,
                                     .accumulator = (sb_type)acc,
                                     .flags = flags };
            if (!oracle_reduction_is_valid(r))
                continue;
            for (size_t s = 0; s < size_count; s++) {
                if (acc == input && sizes[s] > 33)
                    continue;
                for (size_t m = 0; m < COUNT(masks); m++) {
                    for (size_t f = 0; f < family_count; f++) {
                        const test_case c = make_case(seed, r, sizes[s],
                                                      masks[m], families[f]);
                        sb_status expected;
                        if (!check_against_oracle(&c, &expected))
                            wrong++;
                        t->cases++;
                        t->ok += expected == SB_OK;
                        t->empty += expected == SB_EMPTY;
                        t->overflow += expected == SB_OVERFLOW;
                        if (wrong >= MAX_MISMATCHES)
                            return wrong;
                    }
                }
            }
        }
    }
    return wrong;
}

static void checked_sums_match_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_SUM, 0, sum_families,
                                 COUNT(sum_families), &t);
    print_tally("checked sum", &t);
    assert_int_equal(wrong, 0);
}

static void wrapping_sums_match_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_SUM, SB_WRAP, sum_families,
                                 COUNT(sum_families), &t);
    print_tally("wrapping sum", &t);
    assert_int_equal(wrong, 0);
}

static void checked_products_match_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_PROD, 0, prod_families,
                                 COUNT(prod_families), &t);
    print_tally("checked prod", &t);
    assert_int_equal(wrong, 0);
}

static void wrapping_products_match_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_PROD, SB_WRAP, prod_families,
                                 COUNT(prod_families), &t);
    print_tally("wrapping prod", &t);
    assert_int_equal(wrong, 0);
}

static void minimums_match_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_MIN, 0, order_families,
                                 COUNT(order_families), &t);
    print_tally("min", &t);
    assert_int_equal(wrong, 0);
}

static void maximums_match_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_MAX, 0, order_families,
                                 COUNT(order_families), &t);
    print_tally("max", &t);
    assert_int_equal(wrong, 0);
}

static void any_matches_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_ANY, 0, boolean_families,
                                 COUNT(boolean_families), &t);
    print_tally("any", &t);
    assert_int_equal(wrong, 0);
}

static void all_matches_the_oracle(void **state)
{
    (void)state;
    tally t = { 0 };
    const int wrong = run_matrix(SB_ALL, 0, boolean_families,
                                 COUNT(boolean_families), &t);
    print_tally("all", &t);
    assert_int_equal(wrong, 0);
}

/* A few cases per op at large sizes, where the library works in blocks and
 * threads and several tree levels sit above any one block. The sizes are
 * ragged at every scale: 122317 has 7645 = 0b1110111011101 leaves, 300007
 * has 18751 and 1000003 has 62501, so whatever power-of-two group of leaves
 * an implementation works in, several groups of different heights must be
 * joined at the end (where an odd node moves up). Float sums of uniform
 * data round at most combines, so a wrong grouping shows in the bits. */
static void large_inputs_match_the_oracle(void **state)
{
    (void)state;
    static const struct {
        sb_reduction r;
        data_family  family;
        mask_kind    mask;
    } cases[] = {
        { { SB_SUM, SB_F32, 0, 0, 0 },          FAMILY_UNIFORM,      MASK_NONE },
        { { SB_SUM, SB_F32, 0, 0, 0 },          FAMILY_UNIFORM,      MASK_RANDOM },
        { { SB_SUM, SB_F32, 0, 0, 0 },          FAMILY_ALTERNATING,  MASK_EMPTY_LEAVES },
        { { SB_SUM, SB_F64, 0, 0, 0 },          FAMILY_UNIFORM,      MASK_NONE },
        { { SB_SUM, SB_F64, 0, 0, 0 },          FAMILY_UNIFORM,      MASK_ALTERNATE_LEAVES },
        { { SB_SUM, SB_F32, SB_F64, 0, 0 },     FAMILY_UNIFORM,      MASK_NONE },
        { { SB_SUM, SB_F32, SB_F64, 0, 0 },     FAMILY_HUGE_RANGE,   MASK_RANDOM },
        { { SB_SUM, SB_F64, 0, 0, 0 },          FAMILY_CANCELLATION, MASK_EMPTY_LEAVES },
        { { SB_SUM, SB_F64, 0, 0, 0 },          FAMILY_SPECIALS,     MASK_NONE },
        { { SB_SUM, SB_I16, SB_F32, 0, 0 },     FAMILY_UNIFORM,      MASK_NONE },
        { { SB_SUM, SB_I32, SB_I64, 0, 0 },     FAMILY_UNIFORM,      MASK_RANDOM },
        { { SB_SUM, SB_I64, 0, 0, 0 },          FAMILY_SUM_EDGE,     MASK_NONE },
        { { SB_SUM, SB_I32, 0, 0, 0 },          FAMILY_SUM_EDGE,     MASK_RANDOM },
        { { SB_SUM, SB_I64, 0, SB_WRAP, 0 },    FAMILY_UNIFORM,      MASK_RANDOM },
        { { SB_SUM, SB_U8, SB_U32, 0, 0 },      FAMILY_UNIFORM,      MASK_NONE },
        { { SB_PROD, SB_F32, 0, 0, 0 },         FAMILY_PROD_EDGE,    MASK_ALTERNATE_LEAVES },
        { { SB_PROD, SB_F64, 0, 0, 0 },         FAMILY_PROD_EDGE,    MASK_NONE },
        { { SB_PROD, SB_I64, 0, 0, 0 },         FAMILY_PROD_EDGE,    MASK_RANDOM },
        { { SB_MIN, SB_F32, 0, 0, 0 },          FAMILY_SPECIALS,     MASK_EMPTY_LEAVES },
        { { SB_MIN, SB_F64, 0, 0, 0 },          FAMILY_SIGNED_ZEROS, MASK_RANDOM },
        { { SB_MAX, SB_F64, 0, 0, 0 },          FAMILY_NEGATIVE_ZERO, MASK_RANDOM },
        { { SB_MAX, SB_F32, 0, 0, 0 },          FAMILY_SIGNED_ZEROS, MASK_EMPTY_LEAVES },
        { { SB_MIN, SB_U16, SB_I32, 0, 0 },     FAMILY_UNIFORM,      MASK_NONE },
        { { SB_MAX, SB_I8, SB_F64, 0, 0 },      FAMILY_LIMITS,       MASK_EMPTY_LEAVES },
        { { SB_ANY, SB_F32, 0, 0, 0 },          FAMILY_NEGATIVE_ZERO, MASK_RANDOM },
        { { SB_ALL, SB_U8, 0, 0, 0 },           FAMILY_UNIFORM,      MASK_NONE },
    };
    static const size_t large[] = { ((size_t)1 << 14) + 1,
                                    ((size_t)1 << 16) + 3, 122317, 300007,
                                    1000003 };
    int wrong = 0;
    for (size_t s = 0; s < COUNT(large); s++) {
        for (size_t k = 0; k < COUNT(cases); k++) {
            const test_case c = make_case(seed, cases[k].r, large[s],
                                          cases[k].mask, cases[k].family);
            if (!check_against_oracle(&c, NULL))
                wrong++;
        }
    }
    assert_int_equal(wrong, 0);
}

/* check_window_edges()'s check: the host path against the oracle. */
static bool host_agrees(void *context, const test_case *c, const void *x,
                        sb_status *oracle_status)
{
    (void)context;
    return check_data_against_oracle(c, x, NULL, oracle_status);
}

/* The host path computes a full block of 4096 elements in one pass where
 * the algebra allows (src/host_kernels.c): among them checked 32/64-bit
 * sums whose elements all lie in [-2^(b-13), 2^(b-13)), unsigned
 * [0, 2^(b-12)), where no partial sum can overflow. At the edges of that
 * window (check_window_edges(): one value just inside or outside, alone or
 * with a type-limit element at 100 or last in the block, which matters
 * because the range is checked after each quarter) the bits and statuses
 * must be the oracle's, and at n = 4096 the ones the arithmetic fixes. */
static void whole_block_sums_at_the_edges_of_their_window(void **state)
{
    (void)state;
    static const size_t sizes_here[] = { 4096, 2 * 4096 + 5 };
    static const size_t places[] = { 100, 4095 };
    assert_int_equal(check_window_edges(12, sizes_here, COUNT(sizes_here),
                                        places, COUNT(places), seed,
                                        host_agrees, NULL), 0);
}

/* The caller's floating-point environment: rounding upward, and on x86
 * flush-to-zero and denormals-are-zero (what -ffast-math turns on), with
 * FE_DIVBYZERO raised and every other flag clear. samebits.h promises
 * that the host path computes in the default environment anyway and hands
 * this one back unchanged, flags included. */
#ifdef HAVE_MXCSR
enum { MXCSR_FTZ = 0x8000, MXCSR_DAZ = 0x0040 };
#endif

static void enter_hostile_environment(void)
{
    feclearexcept(FE_ALL_EXCEPT);
    fesetround(FE_UPWARD);
#ifdef HAVE_MXCSR
    _mm_setcsr(_mm_getcsr() | MXCSR_FTZ | MXCSR_DAZ);
#endif
    feraiseexcept(FE_DIVBYZERO);
}

/* @return whether the hostile environment is still exactly in place. */
static bool hostile_environment_is_intact(void)
{
    bool intact = fegetround() == FE_UPWARD &&
                  fetestexcept(FE_ALL_EXCEPT) == FE_DIVBYZERO;
#ifdef HAVE_MXCSR
    intact = intact &&
             (_mm_getcsr() & (MXCSR_FTZ | MXCSR_DAZ)) ==
             (MXCSR_FTZ | MXCSR_DAZ);
#endif
    return intact;
}

static void leave_hostile_environment(void)
{
    fesetenv(FE_DFL_ENV);
#ifdef HAVE_MXCSR
    _mm_setcsr(_mm_getcsr() & ~(unsigned)(MXCSR_FTZ | MXCSR_DAZ));
#endif
}

static void caller_rounding_mode_and_flush_to_zero_change_no_bit(void **s)
{
    (void)s;
    static const struct {
        sb_reduction r;
        data_family  family;
        mask_kind    mask;
        size_t       n;
    } cases[] = {
        { { SB_SUM, SB_F32, 0, 0, 0 },      FAMILY_SUBNORMAL,   MASK_NONE,   4097 },
        { { SB_SUM, SB_F64, 0, 0, 0 },      FAMILY_SUBNORMAL,   MASK_RANDOM, 300007 },
        { { SB_SUM, SB_F32, 0, 0, 0 },      FAMILY_UNIFORM,     MASK_NONE,   300007 },
        { { SB_SUM, SB_F32, SB_F64, 0, 0 }, FAMILY_HUGE_RANGE,  MASK_NONE,   7777 },
        { { SB_PROD, SB_F64, 0, 0, 0 },     FAMILY_PROD_EDGE,   MASK_NONE,   4097 },
        { { SB_PROD, SB_F32, 0, 0, 0 },     FAMILY_SUBNORMAL,   MASK_RANDOM, 33 },
        { { SB_MIN, SB_F32, 0, 0, 0 },      FAMILY_SUBNORMAL,   MASK_NONE,   1789 },
        { { SB_ANY, SB_F64, 0, 0, 0 },      FAMILY_SUBNORMAL,   MASK_NONE,   1000 },
    };
    int wrong = 0;
    for (size_t k = 0; k < COUNT(cases); k++) {
        const test_case c = make_case(seed, cases[k].r, cases[k].n,
                                      cases[k].mask, cases[k].family);
        const size_t size = type_size(c.r.input);
        void *x = checked_malloc(c.n * size);
        fill_data(c.family, c.r.input, c.r.accumulator, x, c.n, c.case_seed);
        unsigned char *mask = make_mask(c.mask, c.n, mix_seed(c.case_seed, 1));
        unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
        memset(want, RESULT_SENTINEL, sizeof want);
        memset(got, RESULT_SENTINEL, sizeof got);
        const sb_status expected = oracle_reduce(c.r, x, mask, c.n, want);

        enter_hostile_environment();
        const sb_status status = sb_reduce_host(c.r, x, mask, c.n, got);
        const bool intact = hostile_environment_is_intact();
        leave_hostile_environment();

        if (status != expected || !bits_equal(got, want, sizeof got) ||
            !intact) {
            wrong++;
            fprintf(stderr, "MISMATCH in a hostile environment ");
            print_case(stderr, &c);
            print_run("oracle", c.r, expected, want);
            print_run("host", c.r, status, got);
            fprintf(stderr, "  caller's environment %s\n",
                    intact ? "restored" : "NOT restored");
        }
        free(mask);
        free(x);
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checked_sums_match_the_oracle),
        cmocka_unit_test(wrapping_sums_match_the_oracle),
        cmocka_unit_test(checked_products_match_the_oracle),
        cmocka_unit_test(wrapping_products_match_the_oracle),
        cmocka_unit_test(minimums_match_the_oracle),
        cmocka_unit_test(maximums_match_the_oracle),
        cmocka_unit_test(any_matches_the_oracle),
        cmocka_unit_test(all_matches_the_oracle),
        cmocka_unit_test(large_inputs_match_the_oracle),
        cmocka_unit_test(whole_block_sums_at_the_edges_of_their_window),
        cmocka_unit_test(caller_rounding_mode_and_flush_to_zero_change_no_bit),
    };
    seed = test_seed(20240611u);
    make_sizes();
    /* tests/CMakeLists.txt runs this suite once per instruction set, by
     * SAMEBITS_ISA; a set this CPU cannot run is a fact worth a line. */
    const char *asked = getenv("SAMEBITS_ISA");
    unsigned isa;
    printf("host path: %s", sb_isa_name(sb_host_isa(NULL)));
    if (asked != NULL && sb_isa_parse(asked, &isa) == SB_OK &&
        sb_host_isa_check(isa) != SB_OK)
        printf(" (SAMEBITS_ISA=%s: %s)", asked, sb_error_detail());
    printf("\n");
    return cmocka_run_group_tests_name("host_reduce", tests, NULL, NULL);
}
