/* tests/test_oracle_examples.c: hand-derived cases of ORDER.md, checked
 * against both tests/oracle.c and sb_reduce_host().
 *
 * Each expected value is worked out in the comment above its test, from
 * ORDER.md alone, so these tests check the oracle as much as the library:
 * the worked 80-element example, signed zeros through leaves and `none`,
 * NaN and infinity, checked integer overflow that depends on the tree,
 * widening accumulators, empty results and start values, and every
 * refused argument (including the whole input x accumulator table); and
 * element maps, skipped NaNs and dot products (oracle_dot() against
 * sb_dot_host()). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

static uint64_t seed;

/* ------------------------------------------------------------------------
 * Running a case on both implementations
 * ---------------------------------------------------------------------- */

typedef sb_status (*reduce_function)(sb_reduction, const void *,
                                     const unsigned char *, size_t, void *);

static const struct {
    const char     *name;
    reduce_function reduce;
} implementations[] = {
    { "oracle_reduce", oracle_reduce },
    { "sb_reduce_host", sb_reduce_host },
};

static bool all_sentinel(const unsigned char *bytes, size_t from)
{
    for (size_t i = from; i < RESULT_BUFFER; i++)
        if (bytes[i] != RESULT_SENTINEL)
            return false;
    return true;
}

/* The expected line of a mismatch report, as print_run() prints a
 * computed one; an expected error has no result to print. */
static void print_expected(sb_reduction r, sb_status status,
                           const void *expected)
{
    if (status == SB_OK)
        print_run("expected", r, status, expected);
    else
        fprintf(stderr, "  %-10s %s\n", "expected", status_name(status));
}

/* Runs (r, x, mask, n) on the oracle and on sb_reduce_host() and checks
 * that each returns `status` and, for SB_OK, writes exactly the `size`
 * bytes at `expected` and nothing after them; for any other status, writes
 * nothing at all. */
static void expect_result(sb_reduction r, const void *x,
                          const unsigned char *mask, size_t n,
                          sb_status status, const void *expected,
                          size_t size)
{
    bool all_agree = true;
    for (size_t k = 0; k < sizeof implementations / sizeof *implementations;
         k++) {
        unsigned char got[RESULT_BUFFER];
        memset(got, RESULT_SENTINEL, sizeof got);
        const sb_status s = implementations[k].reduce(r, x, mask, n, got);
        bool good = s == status;
        if (status == SB_OK)
            good = good && bits_equal(got, expected, size) &&
                   all_sentinel(got, size);
        else
            good = good && all_sentinel(got, 0);
        if (!good) {
            all_agree = false;
            fprintf(stderr, "%s: op=%s input=%s accumulator=%s flags=%u "
                    "n=%zu mask=%s\n", implementations[k].name,
                    op_name(r.op), type_name(r.input),
                    type_name(r.accumulator), r.flags, n,
                    mask ? "yes" : "no");
            print_expected(r, status, expected);
            print_run("got", r, s, got);
        }
    }
    assert_true(all_agree);
}

static void expect_status(sb_reduction r, const void *x,
                          const unsigned char *mask, size_t n,
                          sb_status status)
{
    expect_result(r, x, mask, n, status, NULL, 0);
}

static void expect_f32_bits(sb_reduction r, const void *x,
                            const unsigned char *mask, size_t n,
                            uint32_t bits)
{
    expect_result(r, x, mask, n, SB_OK, &bits, sizeof bits);
}

static void expect_f64_bits(sb_reduction r, const void *x,
                            const unsigned char *mask, size_t n,
                            uint64_t bits)
{
    expect_result(r, x, mask, n, SB_OK, &bits, sizeof bits);
}

/* Expects SB_OK and the integer `value` in the accumulator's width (for
 * any/all: one byte). */
static void expect_integer(sb_reduction r, const void *x,
                           const unsigned char *mask, size_t n,
                           int64_t value)
{
    const sb_type acc = r.accumulator == 0 ? r.input : r.accumulator;
    const size_t size = r.op == SB_ANY || r.op == SB_ALL ? 1 : type_size(acc);
    unsigned char bytes[8];
    for (size_t k = 0; k < 8; k++)
        bytes[k] = (unsigned char)((uint64_t)value >> (8 * k));
    expect_result(r, x, mask, n, SB_OK, bytes, size);
}

static float f32_from_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static double f64_from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint32_t bits_of_f32(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    return bits;
}

static uint64_t bits_of_f64(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    return bits;
}

static const uint32_t F32_CANONICAL_NAN = UINT32_C(0x7FC00000);
static const uint64_t F64_CANONICAL_NAN = UINT64_C(0x7FF8000000000000);

/* ------------------------------------------------------------------------
 * The worked example: 80 elements, 5 leaves, (((L0+L1)+(L2+L3))+L4)
 *
 * f32, B = 2^24 (0x4B800000). Above 2^24 only even integers are binary32
 * numbers, and a tie rounds to the even significand: B+1 -> B, B+3 -> B+4.
 * Data: x[0] = B, x[16] = 1, x[32] = 1, x[48] = 1, x[64] = -1, all other
 * elements +0.0. Each leaf folds exactly (adding +0.0 changes nothing):
 * L0 = B, L1 = L2 = L3 = 1, L4 = -1.
 *   level 1: L0+L1 = B+1 -> tie between B (significand even) and B+2 (odd)
 *            -> B;  L2+L3 = 2;  L4 moves up.
 *   level 2: B + 2 = B+2 exactly (0x4B800001);  L4 moves up.
 *   level 3: (B+2) + (-1) = B+1 -> tie -> B.   Result B = 0x4B800000.
 * Other orders give other bits, which is what makes the example a test:
 *   left to right: B, B+1->B, B, B, then B-1 = 16777215 exactly: 0x4B7FFFFF;
 *   pairing from the right, L0 + ((L1+L2)+(L3+L4)) = B + 2: 0x4B800001.
 * f64 is the same with B = 2^53: result 0x4340000000000000, left to right
 * 0x433FFFFFFFFFFFFF, from the right 0x4340000000000001.
 * ---------------------------------------------------------------------- */

static void sum_of_80_f32_follows_the_worked_example_tree(void **state)
{
    (void)state;
    float x[80] = { 0 };
    x[0] = 16777216.0f;
    x[16] = 1.0f;
    x[32] = 1.0f;
    x[48] = 1.0f;
    x[64] = -1.0f;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    expect_f32_bits(r, x, NULL, 80, UINT32_C(0x4B800000));

    /* The two other orders really do differ (computed, not assumed). */
    volatile float left_to_right = 0.0f;
    for (size_t i = 0; i < 80; i++)
        left_to_right = left_to_right + x[i];
    assert_int_equal(bits_of_f32(left_to_right), UINT32_C(0x4B7FFFFF));
    volatile float right = (x[16] + x[32]) + (x[48] + x[64]);
    right = x[0] + right;
    assert_int_equal(bits_of_f32(right), UINT32_C(0x4B800001));
}

static void sum_of_80_f64_follows_the_worked_example_tree(void **state)
{
    (void)state;
    double x[80] = { 0 };
    x[0] = 9007199254740992.0;             /* 2^53 */
    x[16] = 1.0;
    x[32] = 1.0;
    x[48] = 1.0;
    x[64] = -1.0;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    expect_f64_bits(r, x, NULL, 80, UINT64_C(0x4340000000000000));
}

/* Leaves are positions, not taking-part counts. n = 18, mask[0] = 0:
 * x[0] = 1000 (masked out), x[1] = B = 2^24, x[16] = x[17] = 1, rest 0.
 * By position: L0 = x1..x15 = B, L1 = x16 + x17 = 2; root B+2 = 0x4B800001.
 * Were the leaf the first 16 taking-part elements (x1..x16), it would be
 * B+1 -> B, then B + 1 -> B: 0x4B800000. */
static void a_mask_never_moves_a_leaf_boundary(void **state)
{
    (void)state;
    float x[18] = { 0 };
    unsigned char mask[18];
    memset(mask, 1, sizeof mask);
    mask[0] = 0;
    x[0] = 1000.0f;
    x[1] = 16777216.0f;
    x[16] = 1.0f;
    x[17] = 1.0f;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    expect_f32_bits(r, x, mask, 18, UINT32_C(0x4B800001));
}

/* ------------------------------------------------------------------------
 * Signed zeros
 * ---------------------------------------------------------------------- */

/* A sum leaf starts at +0.0 and, in round-to-nearest, +0.0 + -0.0 = +0.0,
 * so every leaf of all -0.0 is +0.0, and so is the root. */
static void sum_of_negative_zeros_is_positive_zero(void **state)
{
    (void)state;
    float xf[80];
    double xd[80];
    for (size_t i = 0; i < 80; i++) {
        xf[i] = -0.0f;
        xd[i] = -0.0;
    }
    const sb_reduction rf = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction rd = { .op = SB_SUM, .input = SB_F64 };
    const sb_reduction rfd = { .op = SB_SUM, .input = SB_F32,
                               .accumulator = SB_F64 };
    const size_t sizes[] = { 1, 5, 16, 17, 80 };
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        expect_f32_bits(rf, xf, NULL, sizes[k], 0);
        expect_f64_bits(rd, xd, NULL, sizes[k], 0);
        expect_f64_bits(rfd, xf, NULL, sizes[k], 0);
    }
}

/* For sum, a masked-out leaf (none) and a leaf of -0.0 cannot be told
 * apart by sign: a leaf that has a value started at +0.0, so a zero leaf
 * is +0.0, and combine(none, +0.0) = +0.0 too. Data: 48 elements of -0.0,
 * leaf 0 masked out, leaf 1 with only its first element taking part,
 * leaf 2 whole: L0 = none, L1 = +0 + -0 = +0, L2 = +0; root +0.0.
 * (Starting a leaf from the identity -0.0 instead would give -0.0.) */
static void sum_over_masked_and_negative_zero_leaves_is_positive_zero(
        void **state)
{
    (void)state;
    double x[48];
    unsigned char mask[48];
    for (size_t i = 0; i < 48; i++) {
        x[i] = -0.0;
        mask[i] = i < 16 ? 0 : i < 32 ? (i == 16) : 1;
    }
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    expect_f64_bits(r, x, mask, 48, 0);
    expect_f64_bits(r, x, mask + 16, 1, 0);
    float xf[17];
    for (size_t i = 0; i < 17; i++)
        xf[i] = -0.0f;
    expect_f32_bits((sb_reduction){ .op = SB_SUM, .input = SB_F32 }, xf,
                    mask + 15, 17, 0);
}

/* prod starts at 1: 1 * -0.0 = -0.0, and -0.0 * -0.0 = +0.0. One -0.0 in
 * 16 ones gives -0.0 (0x80000000); two, in separate leaves, give
 * (-0.0) * (-0.0) = +0.0. */
static void prod_keeps_the_sign_of_zero(void **state)
{
    (void)state;
    float x[32];
    for (size_t i = 0; i < 32; i++)
        x[i] = 1.0f;
    x[3] = -0.0f;
    const sb_reduction r = { .op = SB_PROD, .input = SB_F32 };
    expect_f32_bits(r, x, NULL, 16, UINT32_C(0x80000000));
    x[20] = -0.0f;
    expect_f32_bits(r, x, NULL, 32, 0);
}

/* Within a leaf, a later element replaces the value only if strictly
 * smaller (larger); -0.0 < +0.0 is false, so the first zero stays:
 * min(+0, -0) = +0, min(-0, +0) = -0, max(-0, +0) = -0, max(+0, -0) = +0. */
static void min_and_max_keep_the_first_of_equal_zeros_in_a_leaf(void **s)
{
    (void)s;
    const double pos_neg[2] = { 0.0, -0.0 };
    const double neg_pos[2] = { -0.0, 0.0 };
    const sb_reduction min = { .op = SB_MIN, .input = SB_F64 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F64 };
    const uint64_t negative_zero = UINT64_C(0x8000000000000000);
    expect_f64_bits(min, pos_neg, NULL, 2, 0);
    expect_f64_bits(min, neg_pos, NULL, 2, negative_zero);
    expect_f64_bits(max, neg_pos, NULL, 2, negative_zero);
    expect_f64_bits(max, pos_neg, NULL, 2, 0);
}

/* Between leaves: min is r < l ? r : l. Leaf 0 all +0.0, leaf 1 all -0.0:
 * -0 < +0 is false, the left +0.0 stays. Swapped, -0.0 stays. */
static void min_tree_combine_keeps_the_left_of_equal_zeros(void **state)
{
    (void)state;
    float x[32];
    for (size_t i = 0; i < 32; i++)
        x[i] = i < 16 ? 0.0f : -0.0f;
    const sb_reduction r = { .op = SB_MIN, .input = SB_F32 };
    expect_f32_bits(r, x, NULL, 32, 0);
    for (size_t i = 0; i < 32; i++)
        x[i] = i < 16 ? -0.0f : 0.0f;
    expect_f32_bits(r, x, NULL, 32, UINT32_C(0x80000000));
}

/* A leaf with nothing taking part is `none`, not a zero: leaf 0 all +0.0
 * but masked out, leaf 1 all -0.0. combine(none, -0.0) = -0.0, whereas
 * with leaf 0 taking part the root is +0.0 (previous test). Same for max
 * with the signs swapped. */
static void masked_out_leaf_is_none_not_zero_in_min_and_max(void **state)
{
    (void)state;
    float x[32];
    unsigned char mask[32];
    for (size_t i = 0; i < 32; i++) {
        x[i] = i < 16 ? 0.0f : -0.0f;
        mask[i] = i < 16 ? 0 : 1;
    }
    const sb_reduction min = { .op = SB_MIN, .input = SB_F32 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F32 };
    expect_f32_bits(min, x, mask, 32, UINT32_C(0x80000000));
    for (size_t i = 0; i < 32; i++)
        x[i] = i < 16 ? -0.0f : 0.0f;
    expect_f32_bits(max, x, NULL, 32, UINT32_C(0x80000000));
    expect_f32_bits(max, x, mask, 32, 0);
}

/* The place where padding with an identity would be wrong: leaf 0 masked
 * out, leaf 1 starts with a NaN (so L1 = NaN). combine(none, NaN) = NaN,
 * the canonical NaN. Padding with +inf would give combine(+inf, NaN) =
 * (NaN < +inf ? NaN : +inf) = +inf. */
static void masked_out_left_leaf_passes_a_nan_leaf_through_min(void **state)
{
    (void)state;
    float x[32];
    unsigned char mask[32];
    for (size_t i = 0; i < 32; i++) {
        x[i] = (float)i;
        mask[i] = i < 16 ? 0 : 1;
    }
    x[16] = f32_from_bits(UINT32_C(0x7FC00001));
    const sb_reduction r = { .op = SB_MIN, .input = SB_F32 };
    expect_f32_bits(r, x, mask, 32, F32_CANONICAL_NAN);
}

/* ------------------------------------------------------------------------
 * NaN and infinity
 * ---------------------------------------------------------------------- */

/* inf + -inf is a NaN (x86 makes it 0xFFF8...: sign set); the result is
 * the canonical 0x7FC00000 / 0x7FF8000000000000. */
static void infinity_minus_infinity_is_the_canonical_nan(void **state)
{
    (void)state;
    const float xf[2] = { f32_from_bits(UINT32_C(0x7F800000)),
                          f32_from_bits(UINT32_C(0xFF800000)) };
    const double xd[2] = { f64_from_bits(UINT64_C(0x7FF0000000000000)),
                           f64_from_bits(UINT64_C(0xFFF0000000000000)) };
    expect_f32_bits((sb_reduction){ .op = SB_SUM, .input = SB_F32 }, xf, NULL,
                    2, F32_CANONICAL_NAN);
    expect_f64_bits((sb_reduction){ .op = SB_SUM, .input = SB_F64 }, xd, NULL,
                    2, F64_CANONICAL_NAN);
    expect_f64_bits((sb_reduction){ .op = SB_SUM, .input = SB_F32,
                                    .accumulator = SB_F64 },
                    xf, NULL, 2, F64_CANONICAL_NAN);
    /* 0 * inf is a NaN too. */
    const double zero_inf[2] = { 0.0, xd[0] };
    expect_f64_bits((sb_reduction){ .op = SB_PROD, .input = SB_F64 },
                    zero_inf, NULL, 2, F64_CANONICAL_NAN);
}

/* A NaN with a payload and its sign set, quiet or signalling, comes out as
 * the canonical quiet NaN, through sum, prod, min, and f32 -> f64. */
static void nan_payloads_become_the_canonical_nan(void **state)
{
    (void)state;
    const double xd[3] = { 1.0, f64_from_bits(UINT64_C(0xFFF0000000000001)),
                           2.0 };
    const float xf[3] = { 2.0f, f32_from_bits(UINT32_C(0xFFC12345)), 1.0f };
    expect_f64_bits((sb_reduction){ .op = SB_SUM, .input = SB_F64 }, xd, NULL,
                    3, F64_CANONICAL_NAN);
    expect_f64_bits((sb_reduction){ .op = SB_PROD, .input = SB_F64 }, xd,
                    NULL, 3, F64_CANONICAL_NAN);
    expect_f32_bits((sb_reduction){ .op = SB_PROD, .input = SB_F32 }, xf,
                    NULL, 3, F32_CANONICAL_NAN);
    expect_f64_bits((sb_reduction){ .op = SB_SUM, .input = SB_F32,
                                    .accumulator = SB_F64 },
                    xf, NULL, 3, F64_CANONICAL_NAN);
    /* A lone NaN is the first element of its leaf: min/max keep it. */
    expect_f32_bits((sb_reduction){ .op = SB_MIN, .input = SB_F32 }, xf + 1,
                    NULL, 1, F32_CANONICAL_NAN);
    expect_f64_bits((sb_reduction){ .op = SB_MAX, .input = SB_F64 }, xd + 1,
                    NULL, 1, F64_CANONICAL_NAN);
}

/* In a leaf, "x replaces v only if x < v": with v = NaN every comparison
 * is false, so a NaN first in a leaf survives the fold; a NaN later in the
 * leaf never replaces v (NaN < v is false), so it is ignored.
 * min [NaN, 1, -5] = NaN; min [1, NaN, -5] = -5 (0xC0A00000);
 * max [NaN, 1, 7] = NaN;  max [1, NaN, 7] = 7 (0x40E00000). */
static void nan_first_in_a_leaf_survives_and_later_is_ignored(void **state)
{
    (void)state;
    const float nan = f32_from_bits(UINT32_C(0x7FC00000));
    const float min_first[3] = { nan, 1.0f, -5.0f };
    const float min_later[3] = { 1.0f, nan, -5.0f };
    const float max_first[3] = { nan, 1.0f, 7.0f };
    const float max_later[3] = { 1.0f, nan, 7.0f };
    const sb_reduction min = { .op = SB_MIN, .input = SB_F32 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F32 };
    expect_f32_bits(min, min_first, NULL, 3, F32_CANONICAL_NAN);
    expect_f32_bits(min, min_later, NULL, 3, UINT32_C(0xC0A00000));
    expect_f32_bits(max, max_first, NULL, 3, F32_CANONICAL_NAN);
    expect_f32_bits(max, max_later, NULL, 3, UINT32_C(0x40E00000));
}

/* Between leaves, min is r < l ? r : l: a NaN on the right never replaces
 * the left; a NaN on the left is never replaced.
 * L0 = 1, L1 = NaN: 1.0 (0x3FF0000000000000). L0 = NaN, L1 = 1: NaN. */
static void nan_leaf_is_kept_only_on_the_left_of_a_combine(void **state)
{
    (void)state;
    double x[32];
    const double nan = f64_from_bits(UINT64_C(0x7FF8000000000000));
    for (size_t i = 0; i < 32; i++)
        x[i] = i < 16 ? 1.0 : nan;
    const sb_reduction min = { .op = SB_MIN, .input = SB_F64 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F64 };
    expect_f64_bits(min, x, NULL, 32, UINT64_C(0x3FF0000000000000));
    expect_f64_bits(max, x, NULL, 32, UINT64_C(0x3FF0000000000000));
    for (size_t i = 0; i < 32; i++)
        x[i] = i < 16 ? nan : 1.0;
    expect_f64_bits(min, x, NULL, 32, F64_CANONICAL_NAN);
    expect_f64_bits(max, x, NULL, 32, F64_CANONICAL_NAN);
}

/* ------------------------------------------------------------------------
 * Checked integer overflow follows the tree
 * ---------------------------------------------------------------------- */

/* n = 18, x[0] = -30, x[16] = MAX-10, x[17] = 20, rest 0 (M = INT64_MAX).
 * Left to right: -30, M-40, M-20: fits. Tree: L0 = -30; L1 = 0 + (M-10)
 * = M-10, then (M-10) + 20 = M+10 does not fit: SB_OVERFLOW. SB_WRAP
 * is order-free: the exact total M-20 fits, so it is the result. */
static void i64_sum_overflowing_in_a_leaf_but_not_left_to_right_fails(
        void **state)
{
    (void)state;
    int64_t x[18] = { 0 };
    x[0] = -30;
    x[16] = INT64_MAX - 10;
    x[17] = 20;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    expect_status(r, x, NULL, 18, SB_OVERFLOW);
    const sb_reduction wrap = { .op = SB_SUM, .input = SB_I64,
                                .flags = SB_WRAP };
    expect_integer(wrap, x, NULL, 18, INT64_MAX - 20);
}

/* n = 64 (4 leaves), x[0] = -30, x[32] = M-10, x[48] = 20, rest 0.
 * Leaves: L0 = -30, L1 = 0, L2 = M-10, L3 = 20 (no leaf overflows).
 * Level 1: L0+L1 = -30; L2+L3 = M+10: SB_OVERFLOW in the tree itself.
 * Left to right: -30, M-40, M-20: fits. */
static void i64_sum_overflowing_between_leaves_but_not_left_to_right_fails(
        void **state)
{
    (void)state;
    int64_t x[64] = { 0 };
    x[0] = -30;
    x[32] = INT64_MAX - 10;
    x[48] = 20;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    expect_status(r, x, NULL, 64, SB_OVERFLOW);
    /* Masking out x[48] removes the overflow: L3 = none, root M-40. */
    unsigned char mask[64];
    memset(mask, 1, sizeof mask);
    mask[48] = 0;
    expect_integer(r, x, mask, 64, INT64_MAX - 40);
}

/* n = 18, x[15] = 20, x[16] = M-10, x[17] = -30, rest 0.
 * Left to right: 20, then 20 + (M-10) = M+10 does not fit. Tree: L0 = 20;
 * L1 = (M-10) + (-30) = M-40; root 20 + (M-40) = M-20: fits, SB_OK. */
static void i64_sum_overflowing_left_to_right_but_not_in_the_tree_succeeds(
        void **state)
{
    (void)state;
    int64_t x[18] = { 0 };
    x[15] = 20;
    x[16] = INT64_MAX - 10;
    x[17] = -30;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    expect_integer(r, x, NULL, 18, INT64_MAX - 20);
}

/* 2^20 + 3 elements of 255 (u8): the exact sum is 255 * 1048579 =
 * 267387645, below 2^31, so u32, u64 and i32 accumulators hold it. With
 * A = u8 the first leaf step 255 + 255 overflows; SB_WRAP gives
 * 267387645 mod 256 = 255 * 3 mod 256 = 253.
 * In f32: every leaf is 16 * 255 = 4080 and each aligned subtree of 2^k
 * leaves 4080 * 2^k, all exact (8 significant bits); 2^16 + 1 leaves make
 * the root (4080 * 2^16) + (3 * 255) = 267386880 + 765 = 267387645, which
 * lies in [2^27, 2^28) where binary32 steps by 16: 267387645 / 16 =
 * 16711727.8 -> 16711728 * 16 = 267387648; biased exponent 127 + 27 =
 * 0x9A, fraction (267387648 - 2^27) / 16 = 0x7F0030: bits 0x4D7F0030. */
static void u8_sum_widens_into_larger_accumulators(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 20 | 3;
    uint8_t *x = checked_malloc(n);
    memset(x, 255, n);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_U8,
                                   .accumulator = SB_U32 },
                   x, NULL, n, 267387645);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_U8,
                                   .accumulator = SB_U64 },
                   x, NULL, n, 267387645);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_U8,
                                   .accumulator = SB_I32 },
                   x, NULL, n, 267387645);
    expect_status((sb_reduction){ .op = SB_SUM, .input = SB_U8 }, x, NULL, n,
                  SB_OVERFLOW);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_U8,
                                   .flags = SB_WRAP },
                   x, NULL, n, 253);
    expect_f32_bits((sb_reduction){ .op = SB_SUM, .input = SB_U8,
                                    .accumulator = SB_F32 },
                    x, NULL, n, UINT32_C(0x4D7F0030));
    free(x);
}

/* 2^20 elements of 65535 (u16): 65535 * 2^20 = 68718428160 > 2^32 - 1,
 * so A = u32 overflows (checked) while u64 holds it. Wrapped in u32:
 * 65535 * 2^20 mod 2^32 = (2^16 - 1) * 2^20 mod 2^32 = 2^32 - 2^20
 * (2^36 vanishes) = 4293918720. */
static void u16_sum_overflows_u32_but_fits_u64(void **state)
{
    (void)state;
    const size_t n = (size_t)1 << 20;
    uint16_t *x = checked_malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = 65535;
    expect_status((sb_reduction){ .op = SB_SUM, .input = SB_U16,
                                  .accumulator = SB_U32 },
                  x, NULL, n, SB_OVERFLOW);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_U16,
                                   .accumulator = SB_U32, .flags = SB_WRAP },
                   x, NULL, n, (int64_t)4293918720u);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_U16,
                                   .accumulator = SB_U64 },
                   x, NULL, n, 68718428160);
    free(x);
}

/* i8 in i8: 100 + 100 = 200 > 127: overflow; wrapped 200 - 256 = -56.
 * -128 + -1 = -129: overflow; wrapped 127. -128 * -1 = 128: overflow;
 * wrapped -128. 16 * 8 = 128: overflow; wrapped -128. In i32: 200. */
static void i8_arithmetic_overflows_i8_and_wraps_on_request(void **state)
{
    (void)state;
    const int8_t hundreds[2] = { 100, 100 };
    const int8_t lowest_minus_one[2] = { -128, -1 };
    const int8_t sixteen_eight[2] = { 16, 8 };
    const sb_reduction sum = { .op = SB_SUM, .input = SB_I8 };
    const sb_reduction prod = { .op = SB_PROD, .input = SB_I8 };
    const sb_reduction sum_wrap = { .op = SB_SUM, .input = SB_I8,
                                    .flags = SB_WRAP };
    const sb_reduction prod_wrap = { .op = SB_PROD, .input = SB_I8,
                                     .flags = SB_WRAP };
    expect_status(sum, hundreds, NULL, 2, SB_OVERFLOW);
    expect_integer(sum_wrap, hundreds, NULL, 2, -56);
    expect_status(sum, lowest_minus_one, NULL, 2, SB_OVERFLOW);
    expect_integer(sum_wrap, lowest_minus_one, NULL, 2, 127);
    expect_status(prod, lowest_minus_one, NULL, 2, SB_OVERFLOW);
    expect_integer(prod_wrap, lowest_minus_one, NULL, 2, -128);
    expect_status(prod, sixteen_eight, NULL, 2, SB_OVERFLOW);
    expect_integer(prod_wrap, sixteen_eight, NULL, 2, -128);
    expect_integer((sb_reduction){ .op = SB_SUM, .input = SB_I8,
                                   .accumulator = SB_I32 },
                   hundreds, NULL, 2, 200);
}

/* u64 prod: 2^32 * 2^32 = 2^64 does not fit; wrapped it is 0. i64 prod:
 * -2^62 * 2 = -2^63 = INT64_MIN fits exactly; * -1 then overflows. */
static void u64_and_i64_prod_overflow_at_the_exact_boundary(void **state)
{
    (void)state;
    const uint64_t halves[2] = { UINT64_C(1) << 32, UINT64_C(1) << 32 };
    expect_status((sb_reduction){ .op = SB_PROD, .input = SB_U64 }, halves,
                  NULL, 2, SB_OVERFLOW);
    expect_integer((sb_reduction){ .op = SB_PROD, .input = SB_U64,
                                   .flags = SB_WRAP },
                   halves, NULL, 2, 0);
    const int64_t to_lowest[2] = { -(INT64_C(1) << 62), 2 };
    expect_integer((sb_reduction){ .op = SB_PROD, .input = SB_I64 },
                   to_lowest, NULL, 2, INT64_MIN);
    const int64_t past_lowest[3] = { -(INT64_C(1) << 62), 2, -1 };
    expect_status((sb_reduction){ .op = SB_PROD, .input = SB_I64 },
                  past_lowest, NULL, 3, SB_OVERFLOW);
}

/* min, max, any, all never overflow, and SB_WRAP changes nothing there. */
static void integer_min_max_ignore_the_wrap_flag(void **state)
{
    (void)state;
    const int8_t x[4] = { 5, -128, 127, 0 };
    expect_integer((sb_reduction){ .op = SB_MIN, .input = SB_I8 }, x, NULL, 4,
                   -128);
    expect_integer((sb_reduction){ .op = SB_MIN, .input = SB_I8,
                                   .flags = SB_WRAP },
                   x, NULL, 4, -128);
    expect_integer((sb_reduction){ .op = SB_MAX, .input = SB_I8,
                                   .accumulator = SB_I64, .flags = SB_WRAP },
                   x, NULL, 4, 127);
    expect_integer((sb_reduction){ .op = SB_ANY, .input = SB_I8,
                                   .flags = SB_WRAP },
                   x, NULL, 4, 1);
}

/* ------------------------------------------------------------------------
 * Nothing to reduce: empty and start values
 * ---------------------------------------------------------------------- */

/* min and max over no element (n = 0 with x NULL, or an all-zero mask)
 * return SB_EMPTY and write nothing, for every type. */
static void min_and_max_over_nothing_are_empty(void **state)
{
    (void)state;
    unsigned char zeros[8 * 40] = { 0 };
    unsigned char mask[40] = { 0 };
    for (int t = 1; t <= TYPE_COUNT; t++) {
        for (int op = SB_MIN; op <= SB_MAX; op++) {
            const sb_reduction r = { .op = (sb_op)op, .input = (sb_type)t };
            expect_status(r, NULL, NULL, 0, SB_EMPTY);
            expect_status(r, zeros, mask, 40, SB_EMPTY);
            expect_status(r, zeros, NULL, 0, SB_EMPTY);
        }
    }
}

/* Over nothing: sum 0 (+0.0), prod 1, any 0, all 1, in the accumulator's
 * format: f32 +0.0 = 0x00000000, 1.0f = 0x3F800000; f64 1.0 =
 * 0x3FF0000000000000; integers 0 and 1 in their width. */
static void sum_prod_any_all_over_nothing_give_their_start_values(void **s)
{
    (void)s;
    unsigned char zeros[8 * 40] = { 0 };
    unsigned char mask[40] = { 0 };
    for (int t = 1; t <= TYPE_COUNT; t++) {
        const sb_type type = (sb_type)t;
        const sb_reduction sum = { .op = SB_SUM, .input = type };
        const sb_reduction prod = { .op = SB_PROD, .input = type };
        const sb_reduction any = { .op = SB_ANY, .input = type };
        const sb_reduction all = { .op = SB_ALL, .input = type };
        const void *xs[2] = { NULL, zeros };
        const unsigned char *masks[2] = { NULL, mask };
        const size_t ns[2] = { 0, 40 };
        for (size_t k = 0; k < 2; k++) {
            if (type == SB_F32) {
                expect_f32_bits(sum, xs[k], masks[k], ns[k], 0);
                expect_f32_bits(prod, xs[k], masks[k], ns[k],
                                UINT32_C(0x3F800000));
            } else if (type == SB_F64) {
                expect_f64_bits(sum, xs[k], masks[k], ns[k], 0);
                expect_f64_bits(prod, xs[k], masks[k], ns[k],
                                UINT64_C(0x3FF0000000000000));
            } else {
                expect_integer(sum, xs[k], masks[k], ns[k], 0);
                expect_integer(prod, xs[k], masks[k], ns[k], 1);
            }
            expect_integer(any, xs[k], masks[k], ns[k], 0);
            expect_integer(all, xs[k], masks[k], ns[k], 1);
        }
    }
    /* A widening accumulator writes its own width: u8 -> u64 prod is 1 in
     * 8 bytes, i16 -> f64 sum is +0.0 in 8 bytes. */
    expect_integer((sb_reduction){ .op = SB_PROD, .input = SB_U8,
                                   .accumulator = SB_U64 },
                   NULL, NULL, 0, 1);
    expect_f64_bits((sb_reduction){ .op = SB_SUM, .input = SB_I16,
                                    .accumulator = SB_F64 },
                    NULL, NULL, 0, 0);
}

/* any/all read x != 0: -0.0 is false, NaN is true. */
static void any_and_all_treat_nan_as_true_and_negative_zero_as_false(
        void **state)
{
    (void)state;
    const double nan = f64_from_bits(UINT64_C(0xFFF8000000000123));
    const double zeros[2] = { -0.0, -0.0 };
    const double zero_nan[2] = { -0.0, nan };
    const double nan_one[2] = { nan, 1.0 };
    const double one_zero[2] = { 1.0, -0.0 };
    const sb_reduction any = { .op = SB_ANY, .input = SB_F64 };
    const sb_reduction all = { .op = SB_ALL, .input = SB_F64 };
    expect_integer(any, zeros, NULL, 2, 0);
    expect_integer(any, zero_nan, NULL, 2, 1);
    expect_integer(all, nan_one, NULL, 2, 1);
    expect_integer(all, one_zero, NULL, 2, 0);
    /* Masked-out elements do not count: all over [1, -0.0] with -0.0
     * masked out is 1. */
    const unsigned char first_only[2] = { 1, 0 };
    expect_integer(all, one_zero, first_only, 2, 1);
    const int16_t ints[40] = { [37] = -1 };
    expect_integer((sb_reduction){ .op = SB_ANY, .input = SB_I16 }, ints,
                   NULL, 40, 1);
    expect_integer((sb_reduction){ .op = SB_ALL, .input = SB_I16 }, ints,
                   NULL, 40, 0);
}

/* ------------------------------------------------------------------------
 * Refused arguments
 * ---------------------------------------------------------------------- */

/* The allowed input/accumulator pairs of sum, prod, min and max, written
 * out from ORDER.md and samebits.h independently of tests/oracle.c.
 * Rows: input i8 .. f64. Columns: accumulator
 *     0 (same)  i8  u8  i16  u16  i32  u32  i64  u64  f32  f64
 * 'y' allowed, '.' refused. */
static const char *const arithmetic_pairs[TYPE_COUNT] = {
    /* i8  */ "yy...y.y.yy",
    /* u8  */ "y.y..yyyyyy",
    /* i16 */ "y..y.y.y.yy",
    /* u16 */ "y...yyyyyyy",
    /* i32 */ "y....y.y..y",
    /* u32 */ "y.....yyy.y",
    /* i64 */ "y......y...",
    /* u64 */ "y.......y..",
    /* f32 */ "y........yy",
    /* f64 */ "y.........y",
};

static bool pair_is_allowed(sb_op op, int input, int acc)
{
    if (op == SB_ANY || op == SB_ALL)
        return acc == 0 || acc == input;
    return arithmetic_pairs[input - 1][acc] == 'y';
}

/* Checks the whole 10 x 11 table for `op` and `flags`: the oracle, the
 * library's sb_reduction_check(), sb_result_size() and sb_reduce_host()
 * (on three zero elements) all agree with `expect(input, acc)`. */
static void check_pair_table(sb_op op, unsigned flags)
{
    unsigned char zeros[3 * 8] = { 0 };
    int wrong = 0;
    for (int input = 1; input <= TYPE_COUNT; input++) {
        for (int acc = 0; acc <= TYPE_COUNT; acc++) {
            const sb_reduction r = { .op = op, .input = (sb_type)input,
                                     .accumulator = (sb_type)acc,
                                     .flags = flags };
            const int effective = acc == 0 ? input : acc;
            const bool allowed = pair_is_allowed(op, input, acc) &&
                !((flags & SB_WRAP) && type_is_float((sb_type)effective));
            const size_t size = !allowed ? 0
                : op == SB_ANY || op == SB_ALL ? 1
                : type_size((sb_type)effective);
            unsigned char out[RESULT_BUFFER];
            memset(out, RESULT_SENTINEL, sizeof out);
            const sb_status host = sb_reduce_host(r, zeros, NULL, 3, out);
            const sb_status check = sb_reduction_check(r);
            const bool good =
                oracle_reduction_is_valid(r) == allowed &&
                oracle_result_size(r) == size &&
                check == (allowed ? SB_OK : SB_INVALID_ARGUMENT) &&
                sb_result_size(r) == size &&
                (allowed ? host == SB_OK : host == SB_INVALID_ARGUMENT &&
                                           all_sentinel(out, 0));
            if (!good) {
                wrong++;
                fprintf(stderr, "op=%s input=%s accumulator=%s flags=%u: "
                        "expected %s (size %zu); oracle %s (size %zu), "
                        "sb_reduction_check %s, sb_result_size %zu, "
                        "sb_reduce_host %s\n",
                        op_name(op), type_name((sb_type)input),
                        type_name((sb_type)acc), flags,
                        allowed ? "allowed" : "refused", size,
                        oracle_reduction_is_valid(r) ? "allowed" : "refused",
                        oracle_result_size(r), status_name(check),
                        sb_result_size(r), status_name(host));
            }
        }
    }
    assert_int_equal(wrong, 0);
}

static void sum_type_pairs_follow_the_table(void **state)
{
    (void)state;
    check_pair_table(SB_SUM, 0);
}
static void prod_type_pairs_follow_the_table(void **state)
{
    (void)state;
    check_pair_table(SB_PROD, 0);
}
static void min_type_pairs_follow_the_table(void **state)
{
    (void)state;
    check_pair_table(SB_MIN, 0);
}
static void max_type_pairs_follow_the_table(void **state)
{
    (void)state;
    check_pair_table(SB_MAX, 0);
}
static void any_takes_no_accumulator_but_its_input_type(void **state)
{
    (void)state;
    check_pair_table(SB_ANY, 0);
}
static void all_takes_no_accumulator_but_its_input_type(void **state)
{
    (void)state;
    check_pair_table(SB_ALL, 0);
}

/* SB_WRAP: the same table, minus every pair with a float accumulator
 * (including any/all over f32/f64, whose accumulator is the input). */
static void wrap_is_refused_with_a_float_accumulator(void **state)
{
    (void)state;
    for (int op = SB_SUM; op <= SB_ALL; op++)
        check_pair_table((sb_op)op, SB_WRAP);
}

/* Bit 1 (2u) is SB_SKIP_NAN now, refused on i32 for its own reason (no
 * NaN); the bits above it are unknown, on an integer and a float input. */
static void unknown_flag_bits_are_refused(void **state)
{
    (void)state;
    const int32_t x[2] = { 1, 2 };
    const unsigned flags[] = { 2u, 4u, 8u, 0x80000000u, SB_WRAP | 4u,
                               SB_SKIP_NAN | 4u };
    const sb_type inputs[] = { SB_I32, SB_F32 };
    for (size_t t = 0; t < 2; t++)
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++) {
            if (inputs[t] == SB_F32 && flags[k] == SB_SKIP_NAN)
                continue;                 /* valid for a float input */
            const sb_reduction r = { .op = SB_SUM, .input = inputs[t],
                                     .flags = flags[k] };
            expect_status(r, x, NULL, 2, SB_INVALID_ARGUMENT);
            assert_int_equal(sb_reduction_check(r), SB_INVALID_ARGUMENT);
            assert_int_equal(sb_result_size(r), 0);
        }
}

static void unknown_op_or_type_is_refused(void **state)
{
    (void)state;
    const int32_t x[2] = { 1, 2 };
    const sb_reduction bad[] = {
        { .op = (sb_op)(SB_COUNT + 1), .input = SB_I32 },
        { .op = (sb_op)-1, .input = SB_I32 },
        { .op = SB_SUM, .input = (sb_type)0 },
        { .op = SB_SUM, .input = (sb_type)13 },
        { .op = SB_SUM, .input = SB_I32, .accumulator = (sb_type)13 },
        { .op = SB_ANY, .input = (sb_type)0 },
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        expect_status(bad[k], x, NULL, 2, SB_INVALID_ARGUMENT);
        assert_int_equal(sb_reduction_check(bad[k]), SB_INVALID_ARGUMENT);
        assert_int_equal(sb_result_size(bad[k]), 0);
    }
}

static void null_x_with_elements_is_refused(void **state)
{
    (void)state;
    const unsigned char mask[3] = { 1, 1, 1 };
    for (int op = SB_SUM; op <= SB_ALL; op++) {
        const sb_reduction r = { .op = (sb_op)op, .input = SB_F64 };
        expect_status(r, NULL, NULL, 3, SB_INVALID_ARGUMENT);
        expect_status(r, NULL, mask, 3, SB_INVALID_ARGUMENT);
    }
}

/* NULL result is refused whatever else is given, even with n = 0. */
static void null_result_is_refused(void **state)
{
    (void)state;
    const double x[3] = { 1.0, 2.0, 3.0 };
    for (int op = SB_SUM; op <= SB_ALL; op++) {
        const sb_reduction r = { .op = (sb_op)op, .input = SB_F64 };
        assert_int_equal(oracle_reduce(r, x, NULL, 3, NULL),
                         SB_INVALID_ARGUMENT);
        assert_int_equal(sb_reduce_host(r, x, NULL, 3, NULL),
                         SB_INVALID_ARGUMENT);
        assert_int_equal(sb_reduce_host(r, NULL, NULL, 0, NULL),
                         SB_INVALID_ARGUMENT);
    }
}

/* Every failure leaves result untouched (the helper checks all 16 bytes of
 * a 0xAA-filled buffer): overflow, empty, refused pair, NULL x. */
static void nothing_is_written_to_result_on_error(void **state)
{
    (void)state;
    const int8_t hundreds[2] = { 100, 100 };
    expect_status((sb_reduction){ .op = SB_SUM, .input = SB_I8 }, hundreds,
                  NULL, 2, SB_OVERFLOW);
    expect_status((sb_reduction){ .op = SB_MIN, .input = SB_F64 }, NULL,
                  NULL, 0, SB_EMPTY);
    expect_status((sb_reduction){ .op = SB_SUM, .input = SB_I64,
                                  .accumulator = SB_I32 },
                  hundreds, NULL, 1, SB_INVALID_ARGUMENT);
    expect_status((sb_reduction){ .op = SB_SUM, .input = SB_I8 }, NULL, NULL,
                  2, SB_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------------------
 * Element maps, skipped NaNs and dot products (ORDER.md: "Element maps,
 * dot products, half precision, positions")
 *
 * "A map (abs, square) is applied to each taking-part element after its
 * conversion to A, in A: abs is exact for floats; square is one rounded
 * multiplication. For integers, an abs or square that does not fit A ... is
 * an overflow under checked arithmetic, for every operation ..., or wraps
 * modulo 2^bits(A) in the wrapping mode." Every expected value below is
 * worked out by hand in the comment above it.
 * ---------------------------------------------------------------------- */

static sb_reduction mapped(sb_op op, sb_type input, sb_type acc,
                           unsigned flags, sb_map map)
{
    const sb_reduction r = { op, input, acc, flags, map };
    return r;
}

/* asum = SUM + ABS, f32.
 * { -0.0, -1.5, 2.25, -0.0 }: abs clears each sign bit: +0, 1.5, 2.25, +0.
 *   fold: +0 + +0 = +0; +0 + 1.5 = 1.5; 1.5 + 2.25 = 3.75; 3.75 + 0 = 3.75.
 *   3.75 = 1.875 * 2^1: exponent 128 (0x40000000), fraction .875 = 0x700000:
 *   0x40700000.
 * { 1, NaN with the sign set and payload 1 (0xFFC00001), 2 }: abs gives
 *   0x7FC00001 (still a NaN); 1 + NaN = NaN; NaN + 2 = NaN: the canonical
 *   0x7FC00000. With SB_SKIP_NAN the NaN does not take part: 1 + 2 = 3 =
 *   1.5 * 2^1: 0x40400000.
 * max |x| of { -0.0 }: abs(-0.0) = +0.0: 0x00000000, where max of { -0.0 }
 *   is the element itself, 0x80000000. */
static void asum_clears_signs_of_zeros_and_nans(void **state)
{
    (void)state;
    const sb_reduction asum = mapped(SB_SUM, SB_F32, 0, 0, SB_MAP_ABS);
    const float x[4] = { -0.0f, -1.5f, 2.25f, -0.0f };
    expect_f32_bits(asum, x, NULL, 4, UINT32_C(0x40700000));

    const float y[3] = { 1.0f, f32_from_bits(UINT32_C(0xFFC00001)), 2.0f };
    expect_f32_bits(asum, y, NULL, 3, F32_CANONICAL_NAN);
    expect_f32_bits(mapped(SB_SUM, SB_F32, 0, SB_SKIP_NAN, SB_MAP_ABS), y,
                    NULL, 3, UINT32_C(0x40400000));

    const float negative_zero[1] = { -0.0f };
    expect_f32_bits(mapped(SB_MAX, SB_F32, 0, 0, SB_MAP_ABS), negative_zero,
                    NULL, 1, UINT32_C(0x00000000));
    expect_f32_bits(mapped(SB_MAX, SB_F32, 0, 0, SB_MAP_NONE), negative_zero,
                    NULL, 1, UINT32_C(0x80000000));
}

/* Squared sum = SUM + SQUARE, f32; each square is rounded once, subnormals
 * kept.
 * x = 3 * 2^-76 (a normal binary32, 1.5 * 2^-75): x^2 = 9 * 2^-152
 *   = 1.125 * 2^-149, between the subnormals 1 * 2^-149 and 2 * 2^-149,
 *   nearer 1: the square is 2^-149 (0x00000001), not flushed to 0. Two such
 *   elements: 0 + 2^-149 = 2^-149, then + 2^-149 = 2^-148: 0x00000002.
 * x = 2^64 (and -2^64): x^2 = 2^128 > FLT_MAX: +inf (0x7F800000) for both
 *   signs; +inf + 1 = +inf. With an f64 accumulator the element is first
 *   converted to f64 and squared there: 2^128 exactly (exponent 1151 =
 *   0x47F: 0x47F0000000000000); 2^128 + 1 rounds back to 2^128 (the ulp of
 *   2^128 in binary64 is 2^76), and + 2^128 from the second element gives
 *   2^129 = 0x4800000000000000. */
static void squares_round_once_to_subnormals_and_to_infinity(void **state)
{
    (void)state;
    const sb_reduction ssq = mapped(SB_SUM, SB_F32, 0, 0, SB_MAP_SQUARE);
    const float tiny[2] = { 3.0f * 0x1p-76f, -3.0f * 0x1p-76f };
    expect_f32_bits(ssq, tiny, NULL, 1, UINT32_C(0x00000001));
    expect_f32_bits(ssq, tiny, NULL, 2, UINT32_C(0x00000002));

    const float big[3] = { 0x1p64f, 1.0f, -0x1p64f };
    expect_f32_bits(ssq, big, NULL, 3, UINT32_C(0x7F800000));
    expect_f64_bits(mapped(SB_SUM, SB_F32, SB_F64, 0, SB_MAP_SQUARE), big,
                    NULL, 2, UINT64_C(0x47F0000000000000));
    expect_f64_bits(mapped(SB_SUM, SB_F32, SB_F64, 0, SB_MAP_SQUARE), big,
                    NULL, 3, UINT64_C(0x4800000000000000));
}

/* max vs max |x| over { 3, -5, 4 }:
 *   max: v = 3; -5 > 3 no; 4 > 3 yes: 4 (f64 0x4010000000000000);
 *   max |x|: 3, 5, 4: v = 3; 5 > 3: 5; 4 > 5 no: 5 (0x4014000000000000).
 *   The same in i32: 4 and 5; min |x| is 3 and min is -5. */
static void max_abs_differs_from_max(void **state)
{
    (void)state;
    const double d[3] = { 3.0, -5.0, 4.0 };
    expect_f64_bits(mapped(SB_MAX, SB_F64, 0, 0, SB_MAP_NONE), d, NULL, 3,
                    UINT64_C(0x4010000000000000));
    expect_f64_bits(mapped(SB_MAX, SB_F64, 0, 0, SB_MAP_ABS), d, NULL, 3,
                    UINT64_C(0x4014000000000000));
    const int32_t i[3] = { 3, -5, 4 };
    expect_integer(mapped(SB_MAX, SB_I32, 0, 0, SB_MAP_NONE), i, NULL, 3, 4);
    expect_integer(mapped(SB_MAX, SB_I32, 0, 0, SB_MAP_ABS), i, NULL, 3, 5);
    expect_integer(mapped(SB_MIN, SB_I32, 0, 0, SB_MAP_NONE), i, NULL, 3, -5);
    expect_integer(mapped(SB_MIN, SB_I32, 0, 0, SB_MAP_ABS), i, NULL, 3, 3);
}

/* min |x| with ties of + and -.
 * { -2, 2, -1, 1 } (f32): abs: 2, 2, 1, 1: v = 2; 2 < 2 no; 1 < 2 yes: 1;
 *   1 < 1 no: +1.0 = 0x3F800000 (never -1: the sign is cleared first).
 * Zeros in two leaves, x[0] and x[16], the rest masked out:
 *   { -0.0 at 0, +0.0 at 16 }: min: leaves -0.0 and +0.0; the right replaces
 *   the left only if +0 < -0, which is false: -0.0 = 0x80000000.
 *   { +0.0 at 0, -0.0 at 16 }: likewise the left: +0.0 = 0x00000000.
 *   min |x| of either: both leaves are +0.0: 0x00000000. */
static void min_abs_ties_of_both_signs(void **state)
{
    (void)state;
    const sb_reduction min_abs = mapped(SB_MIN, SB_F32, 0, 0, SB_MAP_ABS);
    const sb_reduction min = mapped(SB_MIN, SB_F32, 0, 0, SB_MAP_NONE);
    const float x[4] = { -2.0f, 2.0f, -1.0f, 1.0f };
    expect_f32_bits(min_abs, x, NULL, 4, UINT32_C(0x3F800000));

    float z[17] = { 0 };
    unsigned char mask[17] = { 0 };
    mask[0] = mask[16] = 1;
    z[0] = -0.0f;
    z[16] = 0.0f;
    expect_f32_bits(min, z, mask, 17, UINT32_C(0x80000000));
    expect_f32_bits(min_abs, z, mask, 17, UINT32_C(0x00000000));
    z[0] = 0.0f;
    z[16] = -0.0f;
    expect_f32_bits(min, z, mask, 17, UINT32_C(0x00000000));
    expect_f32_bits(min_abs, z, mask, 17, UINT32_C(0x00000000));
}

/* abs(INT32_MIN) = 2^31 does not fit i32 (max 2^31 - 1): an overflow for
 * every op, min and max included, although max and min themselves never
 * overflow. In i32 -> i64 it is first converted to i64, where 2^31 fits:
 *   { 5, INT32_MIN, 7 }: abs 5, 2147483648, 7: sum 2147483660, max
 *   2147483648, min 5, prod 5 * 2147483648 * 7 = 75161927680. */
static void abs_of_int32_min_overflows_i32_but_fits_i64(void **state)
{
    (void)state;
    const int32_t x[3] = { 5, INT32_MIN, 7 };
    for (int op = SB_SUM; op <= SB_MAX; op++)
        expect_status(mapped((sb_op)op, SB_I32, 0, 0, SB_MAP_ABS), x, NULL, 3,
                      SB_OVERFLOW);
    expect_integer(mapped(SB_SUM, SB_I32, SB_I64, 0, SB_MAP_ABS), x, NULL, 3,
                   INT64_C(2147483660));
    expect_integer(mapped(SB_MAX, SB_I32, SB_I64, 0, SB_MAP_ABS), x, NULL, 3,
                   INT64_C(2147483648));
    expect_integer(mapped(SB_MIN, SB_I32, SB_I64, 0, SB_MAP_ABS), x, NULL, 3,
                   5);
    expect_integer(mapped(SB_PROD, SB_I32, SB_I64, 0, SB_MAP_ABS), x, NULL, 3,
                   INT64_C(75161927680));
}

/* SB_WRAP: abs(INT8_MIN) = 128 = -128 modulo 2^8, so |INT8_MIN| is INT8_MIN.
 *   { INT8_MIN }: sum 0 + (-128) = -128.
 *   { INT8_MIN, 100 }: abs -128, 100: max 100, min -128.
 *   Checked (no SB_WRAP), the same elements overflow, for max too. */
static void wrapped_abs_of_int8_min_is_int8_min(void **state)
{
    (void)state;
    const int8_t x[2] = { INT8_MIN, 100 };
    expect_integer(mapped(SB_SUM, SB_I8, 0, SB_WRAP, SB_MAP_ABS), x, NULL, 1,
                   -128);
    expect_integer(mapped(SB_MAX, SB_I8, 0, SB_WRAP, SB_MAP_ABS), x, NULL, 2,
                   100);
    expect_integer(mapped(SB_MIN, SB_I8, 0, SB_WRAP, SB_MAP_ABS), x, NULL, 2,
                   -128);
    expect_status(mapped(SB_MAX, SB_I8, 0, 0, SB_MAP_ABS), x, NULL, 2,
                  SB_OVERFLOW);
}

/* Squares of i16 (max 32767): 181^2 = 32761 fits, 182^2 = 33124 does not.
 *   { 181 }: sum of squares 32761.
 *   { 181, 182 }: checked: overflow (in the map, for max as well).
 *   SB_WRAP: 33124 - 65536 = -32412; sum 32761 + (-32412) = 349 (and the
 *     exact 65885 modulo 65536 is 349 too: wrapping is order-free); max of
 *     the squares 32761.
 *   i16 -> i32: 65885, no overflow.
 *   i16 -> f32, x = 32767: 32767^2 = 1073676289 = 0x3FFF0001 (30 bits); in
 *     [2^29, 2^30) binary32 numbers are 64 apart: 1073676289 / 64 =
 *     16776192.02, so it rounds to 16776192 * 64 = 1073676288 = 1.999878 *
 *     2^29: exponent 156 (0x4E000000), fraction (1073676288 - 2^29) / 64 =
 *     8387584 = 0x7FFC00: 0x4E7FFC00. The square is rounded in the
 *     accumulator, once. */
static void i16_square_overflows_and_wraps(void **state)
{
    (void)state;
    const int16_t x[2] = { 181, 182 };
    expect_integer(mapped(SB_SUM, SB_I16, 0, 0, SB_MAP_SQUARE), x, NULL, 1,
                   32761);
    expect_status(mapped(SB_SUM, SB_I16, 0, 0, SB_MAP_SQUARE), x, NULL, 2,
                  SB_OVERFLOW);
    expect_status(mapped(SB_MAX, SB_I16, 0, 0, SB_MAP_SQUARE), x, NULL, 2,
                  SB_OVERFLOW);
    expect_integer(mapped(SB_SUM, SB_I16, 0, SB_WRAP, SB_MAP_SQUARE), x, NULL,
                   2, 349);
    expect_integer(mapped(SB_MAX, SB_I16, 0, SB_WRAP, SB_MAP_SQUARE), x, NULL,
                   2, 32761);
    expect_integer(mapped(SB_SUM, SB_I16, SB_I32, 0, SB_MAP_SQUARE), x, NULL,
                   2, 65885);
    const int16_t big[1] = { 32767 };
    expect_f32_bits(mapped(SB_SUM, SB_I16, SB_F32, 0, SB_MAP_SQUARE), big,
                    NULL, 1, UINT32_C(0x4E7FFC00));
}

/* The map is applied to taking-part elements only: { INT32_MIN, 3, -4 }
 * with mask { 0, 1, 1 }: abs 3, 4: sum 7, max 4; no overflow. Unmasked the
 * same reduction overflows. */
static void masked_out_int32_min_is_not_mapped(void **state)
{
    (void)state;
    const int32_t x[3] = { INT32_MIN, 3, -4 };
    const unsigned char mask[3] = { 0, 1, 1 };
    expect_integer(mapped(SB_SUM, SB_I32, 0, 0, SB_MAP_ABS), x, mask, 3, 7);
    expect_integer(mapped(SB_MAX, SB_I32, 0, 0, SB_MAP_ABS), x, mask, 3, 4);
    expect_status(mapped(SB_MAX, SB_I32, 0, 0, SB_MAP_ABS), x, NULL, 3,
                  SB_OVERFLOW);
}

/* SB_SKIP_NAN: "a float element that is a NaN does not take part, exactly as
 * if its mask byte were 0".
 * 32 NaNs (two leaves): nothing takes part: sum +0.0 (0x00000000), prod 1
 *   (0x3F800000), min and max SB_EMPTY, any 0, all 1; with the abs map too.
 * Leaf 0 all NaN, leaf 1 = { 2, 1, then NaNs }: with skipping, leaf 0 is
 *   none and leaf 1 is min(2, 1) = 1: combine(none, 1) = 1 (0x3F800000).
 *   Without: leaf 0 is NaN (its first element; later NaNs do not replace
 *   it), leaf 1 is 1; 1 < NaN is false, so NaN: 0x7FC00000.
 * any over { NaN, 0.0 }: a NaN is true (1); skipped, only 0.0 is left: 0. */
static void skipped_nans_empty_whole_leaves(void **state)
{
    (void)state;
    float x[32];
    for (size_t i = 0; i < 32; i++)
        x[i] = f32_from_bits(UINT32_C(0x7FC00000) + (uint32_t)i);
    const unsigned skip = SB_SKIP_NAN;
    expect_f32_bits(mapped(SB_SUM, SB_F32, 0, skip, 0), x, NULL, 32, 0);
    expect_f32_bits(mapped(SB_SUM, SB_F32, 0, skip, SB_MAP_ABS), x, NULL, 32,
                    0);
    expect_f32_bits(mapped(SB_PROD, SB_F32, 0, skip, 0), x, NULL, 32,
                    UINT32_C(0x3F800000));
    expect_status(mapped(SB_MIN, SB_F32, 0, skip, 0), x, NULL, 32, SB_EMPTY);
    expect_status(mapped(SB_MAX, SB_F32, 0, skip, SB_MAP_SQUARE), x, NULL, 32,
                  SB_EMPTY);
    expect_integer(mapped(SB_ANY, SB_F32, 0, skip, 0), x, NULL, 32, 0);
    expect_integer(mapped(SB_ALL, SB_F32, 0, skip, 0), x, NULL, 32, 1);

    x[16] = 2.0f;
    x[17] = 1.0f;
    expect_f32_bits(mapped(SB_MIN, SB_F32, 0, skip, 0), x, NULL, 32,
                    UINT32_C(0x3F800000));
    expect_f32_bits(mapped(SB_MIN, SB_F32, 0, 0, 0), x, NULL, 32,
                    F32_CANONICAL_NAN);

    const double d[2] = { f64_from_bits(UINT64_C(0xFFF0000000000001)), 0.0 };
    expect_integer(mapped(SB_ANY, SB_F64, 0, 0, 0), d, NULL, 2, 1);
    expect_integer(mapped(SB_ANY, SB_F64, 0, skip, 0), d, NULL, 2, 0);
}

/* Dot products: run on oracle_dot() and sb_dot_host(), as expect_result()
 * does for reductions. */
static void expect_dot(sb_reduction r, const void *x, const void *y,
                       const unsigned char *mask, size_t n, sb_status status,
                       const void *expected, size_t size)
{
    unsigned char oracle[RESULT_BUFFER], host[RESULT_BUFFER];
    memset(oracle, RESULT_SENTINEL, sizeof oracle);
    memset(host, RESULT_SENTINEL, sizeof host);
    const sb_status so = oracle_dot(r, x, y, mask, n, oracle);
    const sb_status sh = sb_dot_host(r, x, y, mask, n, host);
    bool good = so == status && sh == status;
    if (status == SB_OK)
        good = good && bits_equal(oracle, expected, size) &&
               bits_equal(host, expected, size) &&
               all_sentinel(oracle, size) && all_sentinel(host, size);
    else
        good = good && all_sentinel(oracle, 0) && all_sentinel(host, 0);
    if (!good) {
        fprintf(stderr, "dot: input=%s accumulator=%s flags=%u n=%zu\n",
                type_name(r.input), type_name(r.accumulator), r.flags, n);
        print_expected(r, status, expected);
        print_run("oracle", r, so, oracle);
        print_run("host", r, sh, host);
    }
    assert_true(good);
}

static void expect_dot_integer(sb_reduction r, const void *x, const void *y,
                               size_t n, int64_t value)
{
    const sb_type acc = r.accumulator == 0 ? r.input : r.accumulator;
    unsigned char bytes[8];
    for (size_t k = 0; k < 8; k++)
        bytes[k] = (unsigned char)((uint64_t)value >> (8 * k));
    expect_dot(r, x, y, NULL, n, SB_OK, bytes, type_size(acc));
}

/* Integer products are checked like any step, or wrap:
 * i32: x = { 65536, 3 }, y = { 32768, 4 }: 65536 * 32768 = 2^31 > INT32_MAX:
 *   overflow. SB_WRAP: 2^31 modulo 2^32 read as i32 is -2^31; 0 + (-2^31) +
 *   12 = -2147483636. i32 -> i64: 2147483648 + 12 = 2147483660.
 * u8: 255 * 255 = 65025 > 255: overflow; wrapped 65025 = 254 * 256 + 1: 1. */
static void dot_integer_products_overflow_or_wrap(void **state)
{
    (void)state;
    const int32_t x[2] = { 65536, 3 }, y[2] = { 32768, 4 };
    const sb_reduction dot = { .op = SB_SUM, .input = SB_I32 };
    expect_dot(dot, x, y, NULL, 2, SB_OVERFLOW, NULL, 0);
    expect_dot_integer(mapped(SB_SUM, SB_I32, 0, SB_WRAP, 0), x, y, 2,
                       INT64_C(-2147483636));
    expect_dot_integer(mapped(SB_SUM, SB_I32, SB_I64, 0, 0), x, y, 2,
                       INT64_C(2147483660));
    const uint8_t u[1] = { 255 };
    expect_dot(mapped(SB_SUM, SB_U8, 0, 0, 0), u, u, NULL, 1, SB_OVERFLOW,
               NULL, 0);
    expect_dot_integer(mapped(SB_SUM, SB_U8, 0, SB_WRAP, 0), u, u, 1, 1);
}

/* SB_SKIP_NAN in a dot product: "a term is skipped when either factor is a
 * NaN". x = { 1, 2, 3 }, y = { 10, NaN, 100 }: 1*10 + 3*100 = 310 =
 *   1.2109375 * 2^8: exponent 1031 (0x407), fraction 0.2109375 = 27/128:
 *   0x4073600000000000. Without skipping 2 * NaN is NaN: canonical NaN.
 * A product that is a NaN of non-NaN factors is not skipped: inf * 0 = NaN,
 *   so x = { inf }, y = { 0 } gives the canonical NaN even with skipping. */
static void dot_skips_a_nan_in_y_only(void **state)
{
    (void)state;
    const double x[3] = { 1.0, 2.0, 3.0 };
    const double y[3] = { 10.0, f64_from_bits(UINT64_C(0x7FF0000000000123)),
                          100.0 };
    const uint64_t want = UINT64_C(0x4073600000000000);
    expect_dot(mapped(SB_SUM, SB_F64, 0, SB_SKIP_NAN, 0), x, y, NULL, 3,
               SB_OK, &want, 8);
    expect_dot(mapped(SB_SUM, SB_F64, 0, 0, 0), x, y, NULL, 3, SB_OK,
               &F64_CANONICAL_NAN, 8);
    const double inf[1] = { INFINITY }, zero[1] = { 0.0 };
    expect_dot(mapped(SB_SUM, SB_F64, 0, SB_SKIP_NAN, 0), inf, zero, NULL, 1,
               SB_OK, &F64_CANONICAL_NAN, 8);
}

/* "one rounded multiplication (never fused with the following addition)".
 * f64, a = 1 + 2^-27: a * a = 1 + 2^-26 + 2^-54. The ulp of [1, 2) is
 *   2^-52; 2^-54 is less than half of it, so the product rounds to
 *   p = 1 + 2^-26. x = { -(1 + 2^-26), a }, y = { 1, a }: terms -p and p:
 *   0 + (-p) = -p; -p + p = +0.0 (an exact zero sum is +0 in nearest-even):
 *   0x0000000000000000. Fused, the second step would be fma(a, a, -p) =
 *   exactly 2^-54 = 0x3C90000000000000 (exponent 1023 - 54 = 969 = 0x3C9).
 * f32, a = 1 + 2^-13: a * a = 1 + 2^-12 + 2^-26, ulp 2^-23, rounds to
 *   1 + 2^-12; the dot is +0.0 and the fused form 2^-26 = 0x32800000
 *   (exponent 127 - 26 = 101 = 0x65). */
static void dot_rounds_each_product_before_adding(void **state)
{
    (void)state;
    const double a = 1.0 + 0x1p-27, p = 1.0 + 0x1p-26;
    const double x[2] = { -p, a }, y[2] = { 1.0, a };
    const uint64_t zero64 = 0;
    expect_dot(mapped(SB_SUM, SB_F64, 0, 0, 0), x, y, NULL, 2, SB_OK,
               &zero64, 8);
    assert_int_equal(bits_of_f64(fma(a, a, -p)),
                     UINT64_C(0x3C90000000000000));   /* computed: differs */

    const float af = 1.0f + 0x1p-13f, pf = 1.0f + 0x1p-12f;
    const float xf[2] = { -pf, af }, yf[2] = { 1.0f, af };
    const uint32_t zero32 = 0;
    expect_dot(mapped(SB_SUM, SB_F32, 0, 0, 0), xf, yf, NULL, 2, SB_OK,
               &zero32, 4);
    assert_int_equal(bits_of_f32(fmaf(af, af, -pf)), UINT32_C(0x32800000));
    /* In f32 -> f64 the product of the converted factors is exact
     * (24 + 24 bits fit 53): (1 + 2^-12 + 2^-26) - (1 + 2^-12) = 2^-26,
     * exponent 1023 - 26 = 997 = 0x3E5: 0x3E50000000000000. */
    const uint64_t small = UINT64_C(0x3E50000000000000);
    expect_dot(mapped(SB_SUM, SB_F32, SB_F64, 0, 0), xf, yf, NULL, 2, SB_OK,
               &small, 8);
}

/* Validity: a map is refused with any/all and an unknown map is refused; a
 * dot product must be SB_SUM without a map; SB_SKIP_NAN only for float
 * inputs. */
static void maps_and_dots_refuse_bad_combinations(void **state)
{
    (void)state;
    const float f[2] = { 1.0f, 2.0f };
    const int32_t i[2] = { 1, 2 };
    expect_status(mapped(SB_ANY, SB_F32, 0, 0, SB_MAP_ABS), f, NULL, 2,
                  SB_INVALID_ARGUMENT);
    expect_status(mapped(SB_ALL, SB_I32, 0, 0, SB_MAP_SQUARE), i, NULL, 2,
                  SB_INVALID_ARGUMENT);
    expect_status(mapped(SB_SUM, SB_F32, 0, 0, (sb_map)3), f, NULL, 2,
                  SB_INVALID_ARGUMENT);
    expect_status(mapped(SB_SUM, SB_F32, 0, 0, (sb_map)-1), f, NULL, 2,
                  SB_INVALID_ARGUMENT);
    expect_status(mapped(SB_SUM, SB_I32, 0, SB_SKIP_NAN, 0), i, NULL, 2,
                  SB_INVALID_ARGUMENT);
    expect_status(mapped(SB_SUM, SB_I8, SB_F32, SB_SKIP_NAN, 0), i, NULL, 2,
                  SB_INVALID_ARGUMENT);   /* the input has no NaN */
    expect_status(mapped(SB_SUM, SB_F32, 0, 4u, 0), f, NULL, 2,
                  SB_INVALID_ARGUMENT);
    expect_dot(mapped(SB_MIN, SB_F32, 0, 0, 0), f, f, NULL, 2,
               SB_INVALID_ARGUMENT, NULL, 0);
    expect_dot(mapped(SB_PROD, SB_F32, 0, 0, 0), f, f, NULL, 2,
               SB_INVALID_ARGUMENT, NULL, 0);
    expect_dot(mapped(SB_SUM, SB_F32, 0, 0, SB_MAP_ABS), f, f, NULL, 2,
               SB_INVALID_ARGUMENT, NULL, 0);
    expect_dot(mapped(SB_SUM, SB_F32, 0, 0, 0), f, NULL, NULL, 2,
               SB_INVALID_ARGUMENT, NULL, 0);
    assert_false(oracle_dot_is_valid(mapped(SB_ANY, SB_F32, 0, 0, 0)));
    assert_true(oracle_dot_is_valid(mapped(SB_SUM, SB_F32, SB_F64,
                                           SB_SKIP_NAN, 0)));
    assert_true(oracle_reduction_is_valid(mapped(SB_ANY, SB_F64, 0,
                                                 SB_SKIP_NAN, 0)));
    assert_true(oracle_reduction_is_valid(mapped(SB_MIN, SB_U8, SB_F32, 0,
                                                 SB_MAP_SQUARE)));
}

/* ------------------------------------------------------------------------
 * The oracle against the equivalent form of ORDER.md
 * ---------------------------------------------------------------------- */

/* ORDER.md's equivalent form: pad the leaves with `none` to a power of two
 * and reduce a perfect binary tree, each aligned block being a subtree.
 * Written recursively here, independently of the oracle's level loop, for
 * f64 sum/prod/min/max. Returns false for `none`. */
static bool padded_subtree(sb_op op, const double *x,
                           const unsigned char *mask, size_t n,
                           size_t first_leaf, size_t leaf_count,
                           double *value)
{
    if (leaf_count == 1) {
        bool has = false;
        double v = op == SB_PROD ? 1.0 : 0.0;
        for (size_t i = first_leaf * 16; i < n && i < first_leaf * 16 + 16;
             i++) {
            if (mask != NULL && mask[i] == 0)
                continue;
            if (!has && (op == SB_MIN || op == SB_MAX))
                v = x[i];
            else if (op == SB_SUM)
                v = v + x[i];
            else if (op == SB_PROD)
                v = v * x[i];
            else if (op == SB_MIN)
                v = x[i] < v ? x[i] : v;
            else
                v = x[i] > v ? x[i] : v;
            has = true;
        }
        *value = v;
        return has;
    }
    double l, r;
    const size_t half = leaf_count / 2;
    const bool has_l = padded_subtree(op, x, mask, n, first_leaf, half, &l);
    const bool has_r = padded_subtree(op, x, mask, n, first_leaf + half, half,
                                      &r);
    if (!has_l || !has_r) {
        *value = has_l ? l : r;
        return has_l || has_r;
    }
    if (op == SB_SUM)
        *value = l + r;
    else if (op == SB_PROD)
        *value = l * r;
    else if (op == SB_MIN)
        *value = r < l ? r : l;
    else
        *value = r > l ? r : l;
    return true;
}

static void oracle_equals_the_padded_perfect_tree_form(void **state)
{
    (void)state;
    int wrong = 0;
    for (size_t n = 0; n <= 700; n += 1 + n / 8) {
        for (int op = SB_SUM; op <= SB_MAX; op++) {
            for (int m = MASK_NONE; m < MASK_COUNT; m++) {
                const sb_reduction r = { .op = (sb_op)op, .input = SB_F64 };
                const data_family family =
                    op == SB_PROD ? FAMILY_PROD_EDGE : FAMILY_SPECIALS;
                const test_case c = make_case(seed, r, n, (mask_kind)m,
                                              family);
                double *x = checked_malloc(n * sizeof *x);
                fill_data(family, SB_F64, 0, x, n, c.case_seed);
                unsigned char *mask = make_mask((mask_kind)m, n,
                                                mix_seed(c.case_seed, 1));
                size_t leaves = 1;
                while (leaves * 16 < n)
                    leaves *= 2;
                double padded;
                const bool has = padded_subtree((sb_op)op, x, mask, n, 0,
                                                leaves, &padded);
                unsigned char want[RESULT_BUFFER];
                memset(want, RESULT_SENTINEL, sizeof want);
                sb_status want_status = SB_OK;
                if (!has && (op == SB_MIN || op == SB_MAX)) {
                    want_status = SB_EMPTY;
                } else {
                    uint64_t bits = bits_of_f64(has ? padded
                                                    : op == SB_PROD ? 1.0
                                                                    : 0.0);
                    if (padded != padded && has)
                        bits = F64_CANONICAL_NAN;
                    memcpy(want, &bits, sizeof bits);
                }
                unsigned char got[RESULT_BUFFER];
                memset(got, RESULT_SENTINEL, sizeof got);
                const sb_status s = oracle_reduce(r, x, mask, n, got);
                if (s != want_status || !bits_equal(got, want, sizeof got)) {
                    wrong++;
                    print_case(stderr, &c);
                    fprintf(stderr, "  padded form %s ",
                            status_name(want_status));
                    print_result(stderr, r, want);
                    fprintf(stderr, "\n  oracle      %s ", status_name(s));
                    print_result(stderr, r, got);
                    fprintf(stderr, "\n");
                }
                if (!check_data_against_oracle(&c, x, mask, NULL))
                    wrong++;
                free(mask);
                free(x);
            }
        }
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sum_of_80_f32_follows_the_worked_example_tree),
        cmocka_unit_test(sum_of_80_f64_follows_the_worked_example_tree),
        cmocka_unit_test(a_mask_never_moves_a_leaf_boundary),
        cmocka_unit_test(sum_of_negative_zeros_is_positive_zero),
        cmocka_unit_test(
            sum_over_masked_and_negative_zero_leaves_is_positive_zero),
        cmocka_unit_test(prod_keeps_the_sign_of_zero),
        cmocka_unit_test(min_and_max_keep_the_first_of_equal_zeros_in_a_leaf),
        cmocka_unit_test(min_tree_combine_keeps_the_left_of_equal_zeros),
        cmocka_unit_test(masked_out_leaf_is_none_not_zero_in_min_and_max),
        cmocka_unit_test(masked_out_left_leaf_passes_a_nan_leaf_through_min),
        cmocka_unit_test(infinity_minus_infinity_is_the_canonical_nan),
        cmocka_unit_test(nan_payloads_become_the_canonical_nan),
        cmocka_unit_test(nan_first_in_a_leaf_survives_and_later_is_ignored),
        cmocka_unit_test(nan_leaf_is_kept_only_on_the_left_of_a_combine),
        cmocka_unit_test(
            i64_sum_overflowing_in_a_leaf_but_not_left_to_right_fails),
        cmocka_unit_test(
            i64_sum_overflowing_between_leaves_but_not_left_to_right_fails),
        cmocka_unit_test(
            i64_sum_overflowing_left_to_right_but_not_in_the_tree_succeeds),
        cmocka_unit_test(u8_sum_widens_into_larger_accumulators),
        cmocka_unit_test(u16_sum_overflows_u32_but_fits_u64),
        cmocka_unit_test(i8_arithmetic_overflows_i8_and_wraps_on_request),
        cmocka_unit_test(u64_and_i64_prod_overflow_at_the_exact_boundary),
        cmocka_unit_test(integer_min_max_ignore_the_wrap_flag),
        cmocka_unit_test(min_and_max_over_nothing_are_empty),
        cmocka_unit_test(
            sum_prod_any_all_over_nothing_give_their_start_values),
        cmocka_unit_test(
            any_and_all_treat_nan_as_true_and_negative_zero_as_false),
        cmocka_unit_test(sum_type_pairs_follow_the_table),
        cmocka_unit_test(prod_type_pairs_follow_the_table),
        cmocka_unit_test(min_type_pairs_follow_the_table),
        cmocka_unit_test(max_type_pairs_follow_the_table),
        cmocka_unit_test(any_takes_no_accumulator_but_its_input_type),
        cmocka_unit_test(all_takes_no_accumulator_but_its_input_type),
        cmocka_unit_test(wrap_is_refused_with_a_float_accumulator),
        cmocka_unit_test(unknown_flag_bits_are_refused),
        cmocka_unit_test(unknown_op_or_type_is_refused),
        cmocka_unit_test(null_x_with_elements_is_refused),
        cmocka_unit_test(null_result_is_refused),
        cmocka_unit_test(nothing_is_written_to_result_on_error),
        cmocka_unit_test(asum_clears_signs_of_zeros_and_nans),
        cmocka_unit_test(squares_round_once_to_subnormals_and_to_infinity),
        cmocka_unit_test(max_abs_differs_from_max),
        cmocka_unit_test(min_abs_ties_of_both_signs),
        cmocka_unit_test(abs_of_int32_min_overflows_i32_but_fits_i64),
        cmocka_unit_test(wrapped_abs_of_int8_min_is_int8_min),
        cmocka_unit_test(i16_square_overflows_and_wraps),
        cmocka_unit_test(masked_out_int32_min_is_not_mapped),
        cmocka_unit_test(skipped_nans_empty_whole_leaves),
        cmocka_unit_test(dot_integer_products_overflow_or_wrap),
        cmocka_unit_test(dot_skips_a_nan_in_y_only),
        cmocka_unit_test(dot_rounds_each_product_before_adding),
        cmocka_unit_test(maps_and_dots_refuse_bad_combinations),
        cmocka_unit_test(oracle_equals_the_padded_perfect_tree_form),
    };
    seed = test_seed(20240611u);
    return cmocka_run_group_tests_name("oracle_examples", tests, NULL, NULL);
}
