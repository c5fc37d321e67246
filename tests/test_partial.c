/* tests/test_partial.c: an array cut anywhere into pieces, each reduced
 * into an sb_partial, merged in any grouping, finishes with the oracle's
 * bits and status.
 *
 * Every reduction below, on the data families that can show something
 * about it, with and without masks, at sizes around leaf and block
 * boundaries: cut into two at every position (small sizes), and into 1 to
 * 64 pieces at random positions, merged in a random grouping of adjacent
 * pieces (seeded, printed). And the two checked i64 sums of the issue: one
 * that overflows in the tree but not left to right, and one the other way
 * round, cut at every position and every pair of positions. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

/* Reduces x[0..n) cut at cuts[0..k) (increasing, inside [0, n]) into
 * partials, merged in a random grouping drawn from *state. */
static sb_status reduce_in_pieces(sb_reduction r, const unsigned char *x,
                                  const unsigned char *mask, size_t n,
                                  const size_t *cuts, size_t k,
                                  uint64_t *state, void *result)
{
    enum { MAX_PIECES = 64 };
    static sb_partial piece[MAX_PIECES];
    size_t bounds[MAX_PIECES + 1];
    const size_t size = type_size(r.input);
    bounds[0] = 0;
    for (size_t i = 0; i < k; i++)
        bounds[i + 1] = cuts[i];
    bounds[k + 1] = n;
    size_t count = k + 1;
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(sb_partial_init(&piece[i], r, bounds[i]), SB_OK);
        assert_int_equal(sb_partial_add_host(&piece[i], x + bounds[i] * size,
                                             mask ? mask + bounds[i] : NULL,
                                             bounds[i + 1] - bounds[i]),
                         SB_OK);
    }
    while (count > 1) {   /* merge a random adjacent pair */
        const size_t i = (size_t)random_below(state, count - 1);
        assert_int_equal(sb_partial_merge(&piece[i], &piece[i + 1]), SB_OK);
        memmove(&piece[i + 1], &piece[i + 2],
                (count - i - 2) * sizeof piece[0]);
        count--;
    }
    return sb_partial_finish(&piece[0], result);
}

/* The oracle's answer for a case, computed once for all its cuts. */
typedef struct {
    sb_status     status;
    unsigned char bytes[RESULT_BUFFER];
} answer;

static answer oracle_answer(const test_case *c, const unsigned char *x,
                            const unsigned char *mask)
{
    answer a;
    memset(a.bytes, RESULT_SENTINEL, sizeof a.bytes);
    a.status = oracle_reduce(c->r, x, mask, c->n, a.bytes);
    return a;
}

static unsigned long check_cuts(const test_case *c, const answer *oracle,
                                const unsigned char *x,
                                const unsigned char *mask, const size_t *cuts,
                                size_t k, uint64_t *state)
{
    unsigned char got[RESULT_BUFFER];
    const unsigned char *want = oracle->bytes;
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status ws = oracle->status;
    const sb_status gs = reduce_in_pieces(c->r, x, mask, c->n, cuts, k,
                                          state, got);
    if (gs == ws && bits_equal(want, got, sizeof got))
        return 0;
    print_case(stderr, c);
    fprintf(stderr, "  cuts:");
    for (size_t i = 0; i < k; i++)
        fprintf(stderr, " %zu", cuts[i]);
    fputc('\n', stderr);
    print_run("oracle", c->r, ws, want);
    print_run("partials", c->r, gs, got);
    return 1;
}

static const struct {
    sb_reduction r;
    data_family  families[4];
} reductions[] = {
    { { SB_SUM, SB_F32, 0, 0, 0 }, { FAMILY_CANCELLATION, FAMILY_SPECIALS,
                                  FAMILY_SUBNORMAL, FAMILY_SIGNED_ZEROS } },
    { { SB_SUM, SB_F64, 0, 0, 0 }, { FAMILY_HUGE_RANGE, FAMILY_CANCELLATION,
                                  FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO } },
    { { SB_SUM, SB_F32, SB_F64, 0, 0 }, { FAMILY_CANCELLATION, FAMILY_SUBNORMAL,
                                       FAMILY_UNIFORM, FAMILY_SPECIALS } },
    { { SB_PROD, SB_F64, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_SPECIALS,
                                   FAMILY_SUBNORMAL, FAMILY_UNIFORM } },
    { { SB_MIN, SB_F32, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_SPECIALS,
                                  FAMILY_NEGATIVE_ZERO, FAMILY_UNIFORM } },
    { { SB_MAX, SB_F64, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_SPECIALS,
                                  FAMILY_HUGE_RANGE, FAMILY_UNIFORM } },
    { { SB_SUM, SB_I64, 0, 0, 0 }, { FAMILY_SUM_EDGE, FAMILY_LIMITS,
                                  FAMILY_CANCELLATION, FAMILY_UNIFORM } },
    { { SB_SUM, SB_I32, SB_I64, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM,
                                       FAMILY_SUM_EDGE, FAMILY_ALTERNATING } },
    { { SB_SUM, SB_U8, SB_U32, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM,
                                      FAMILY_SUM_EDGE, FAMILY_SUBNORMAL } },
    { { SB_SUM, SB_I16, 0, SB_WRAP, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM,
                                        FAMILY_SUM_EDGE, FAMILY_ALTERNATING } },
    { { SB_PROD, SB_I32, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_LIMITS,
                                   FAMILY_SUBNORMAL, FAMILY_UNIFORM } },
    { { SB_MIN, SB_I8, SB_I64, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM,
                                      FAMILY_SIGNED_ZEROS, FAMILY_LIMITS } },
    { { SB_MAX, SB_U64, 0, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM,
                                  FAMILY_HUGE_RANGE, FAMILY_LIMITS } },
    { { SB_ANY, SB_F32, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SUBNORMAL,
                                  FAMILY_SPECIALS, FAMILY_UNIFORM } },
    { { SB_ALL, SB_I16, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_LIMITS,
                                  FAMILY_UNIFORM, FAMILY_NEGATIVE_ZERO } },
};

static void pieces_match_the_oracle(void **state)
{
    (void)state;
    static const size_t sizes[] = { 0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65,
                                    255, 256, 257, 1000, 4095, 4096, 4097,
                                    9001, 65536 + 33 };
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_EMPTY_LEAVES, MASK_ALL_ZERO };
    unsigned long wrong = 0, cases = 0;
    for (size_t ri = 0; ri < COUNT(reductions); ri++)
        for (size_t z = 0; z < COUNT(sizes); z++)
            for (size_t fi = 0; fi < 4; fi++) {
                const mask_kind mk = masks[(z + fi) % COUNT(masks)];
                const test_case c = make_case(seed, reductions[ri].r,
                                              sizes[z], mk,
                                              reductions[ri].families[fi]);
                const size_t n = c.n;
                unsigned char *x = checked_malloc(n * type_size(c.r.input));
                fill_data(c.family, c.r.input, c.r.accumulator, x, n,
                          c.case_seed);
                unsigned char *mask = make_mask(mk, n, c.case_seed);
                uint64_t rs = c.case_seed;
                const answer oracle = oracle_answer(&c, x, mask);
                /* Two pieces, every cut; above 300 every 7th, above 5000
                 * every 257th (both prime to 16, so every slot of a leaf
                 * is cut somewhere). */
                const size_t step = n > 5000 ? 257 : n > 300 ? 7 : 1;
                for (size_t cut = 0; cut <= n; cut += step) {
                    wrong += check_cuts(&c, &oracle, x, mask, &cut, 1, &rs);
                    cases++;
                }
                /* 1 to 64 pieces at random cuts, random grouping: mostly
                 * 1 to 7, every fourth try up to 64. */
                for (int t = 0; t < 40; t++) {
                    size_t cuts[63];
                    const size_t k = t % 4 == 3
                                   ? (size_t)random_below(&rs, 64)
                                   : (size_t)random_below(&rs, 7);
                    random_cuts(&rs, n, k, cuts);
                    wrong += check_cuts(&c, &oracle, x, mask, cuts, k, &rs);
                    cases++;
                }
                free(mask);
                free(x);
            }
    printf("partials: %lu cuts and groupings (1 to 64 pieces), %lu wrong\n",
           cases, wrong);
    assert_int_equal(wrong, 0);
}

/* Leaves of one element each at positions 0, 16, 32, 48 (the rest 0):
 * l0..l3. The tree adds (l0 + l1) + (l2 + l3); left to right adds the
 * prefixes l0, l0 + l1, l0 + l1 + l2. */
static void set_leaves(int64_t *x, int64_t l0, int64_t l1, int64_t l2,
                       int64_t l3)
{
    memset(x, 0, 64 * sizeof *x);
    x[0] = l0;
    x[16] = l1;
    x[32] = l2;
    x[48] = l3;
}

static void overflow_statuses_survive_every_cut(void **state)
{
    (void)state;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    int64_t x[64];
    /* Tree order overflows (l2 + l3 = MAX + 1), left to right never does:
     * -1, -1, MAX - 1, MAX. */
    const struct { int64_t l[4]; sb_status status; } cases[] = {
        { { -1, 0, INT64_MAX, 1 }, SB_OVERFLOW },
        /* Left to right overflows (MAX + 1 at the third prefix), the tree
         * never does: MAX, 0, then MAX + 0. */
        { { 0, INT64_MAX, 1, -1 }, SB_OK },
    };
    unsigned long wrong = 0;
    for (size_t k = 0; k < COUNT(cases); k++) {
        set_leaves(x, cases[k].l[0], cases[k].l[1], cases[k].l[2],
                   cases[k].l[3]);
        unsigned char want[8];
        assert_int_equal(oracle_reduce(r, x, NULL, 64, want),
                         cases[k].status);
        const test_case c = make_case(seed, r, 64, MASK_NONE, FAMILY_LIMITS);
        const answer oracle = oracle_answer(&c, (const unsigned char *)x,
                                            NULL);
        uint64_t rs = seed;
        for (size_t a = 0; a <= 64; a++)
            for (size_t b = a; b <= 64; b++) {
                const size_t cuts[2] = { a, b };
                wrong += check_cuts(&c, &oracle, (const unsigned char *)x,
                                    NULL, cuts, 2, &rs);
            }
    }
    assert_int_equal(wrong, 0);
}

static void bad_calls_are_refused_and_change_nothing(void **state)
{
    (void)state;
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F32 };
    const float x[4] = { 1, 2, 3, 4 };
    sb_partial a, b, before;
    float out = -1.0f;
    assert_int_equal(sb_partial_init(&a, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&a, x, NULL, 2), SB_OK);
    /* A gap. */
    assert_int_equal(sb_partial_init(&b, sum, 3), SB_OK);
    memcpy(&before, &a, sizeof a);
    assert_int_equal(sb_partial_merge(&a, &b), SB_INVALID_ARGUMENT);
    assert_memory_equal(&a, &before, sizeof a);
    assert_true(strstr(sb_error_detail(), "begins at 3") != NULL);
    /* Another reduction. */
    assert_int_equal(sb_partial_init(&b, max, 2), SB_OK);
    assert_int_equal(sb_partial_merge(&a, &b), SB_INVALID_ARGUMENT);
    assert_memory_equal(&a, &before, sizeof a);
    /* Not a partial. */
    memset(&b, 0x5A, sizeof b);
    assert_int_equal(sb_partial_merge(&a, &b), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_add_host(&b, x, NULL, 1),
                     SB_INVALID_ARGUMENT);
    /* Finish of a piece not at 0. */
    assert_int_equal(sb_partial_init(&b, sum, 2), SB_OK);
    assert_int_equal(sb_partial_finish(&b, &out), SB_INVALID_ARGUMENT);
    assert_true(out == -1.0f);
    /* NULLs and positions at 2^63. */
    assert_int_equal(sb_partial_init(NULL, sum, 0), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_init(&b, sum, UINT64_C(1) << 63),
                     SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_add_host(&a, NULL, NULL, 3),
                     SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_finish(&a, NULL), SB_INVALID_ARGUMENT);
    assert_memory_equal(&a, &before, sizeof a);
    /* Equal states are equal bytes: [0, 2) built in one piece and in two. */
    sb_partial one, two, rest;
    assert_int_equal(sb_partial_init(&one, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&one, x, NULL, 2), SB_OK);
    assert_int_equal(sb_partial_init(&two, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&two, x, NULL, 1), SB_OK);
    assert_int_equal(sb_partial_init(&rest, sum, 1), SB_OK);
    assert_int_equal(sb_partial_add_host(&rest, x + 1, NULL, 1), SB_OK);
    assert_int_equal(sb_partial_merge(&two, &rest), SB_OK);
    assert_memory_equal(&one, &two, sizeof one);
}

static void a_failed_partial_absorbs_what_it_meets(void **state)
{
    (void)state;
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    const float x[4] = { 1, 2, 3, 4 };
    sb_partial a, b, c, before;
    float out = -1.0f;
    int origin = 0;
    assert_int_equal(sb_partial_init(&a, sum, 0), SB_OK);
    assert_int_equal(sb_partial_add_host(&a, x, NULL, 2), SB_OK);
    assert_int_equal(sb_partial_failure(&a, &origin), SB_OK);
    /* Not failures: answers, and SB_OK. */
    assert_int_equal(sb_partial_fail(&b, SB_OK, 1, "no"), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_fail(&b, SB_EMPTY, 1, "no"),
                     SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_fail(&b, SB_OVERFLOW, 1, "no"),
                     SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_fail(NULL, SB_OUT_OF_MEMORY, 1, "no"),
                     SB_INVALID_ARGUMENT);
    /* b: failed at origin 7. Adding to it changes nothing. */
    assert_int_equal(sb_partial_init(&b, sum, 2), SB_OK);
    assert_int_equal(sb_partial_fail(&b, SB_OUT_OF_MEMORY, 7,
                                     "piece 7 ran out"), SB_OK);
    memcpy(&before, &b, sizeof b);
    assert_int_equal(sb_partial_add_host(&b, x, NULL, 2), SB_OUT_OF_MEMORY);
    assert_memory_equal(&b, &before, sizeof b);
    assert_int_equal(sb_partial_failure(&b, &origin), SB_OUT_OF_MEMORY);
    assert_int_equal(origin, 7);
    assert_string_equal(sb_error_detail(), "piece 7 ran out");
    /* Healthy left, failed right: the failure. */
    assert_int_equal(sb_partial_merge(&a, &b), SB_OK);
    assert_int_equal(sb_partial_finish(&a, &out), SB_OUT_OF_MEMORY);
    assert_string_equal(sb_error_detail(), "piece 7 ran out");
    assert_true(out == -1.0f);
    /* Failed left, failed right: the left one; failed left absorbs a
     * healthy right at any position, of any reduction. */
    assert_int_equal(sb_partial_init(&c, sum, 0), SB_OK);
    assert_int_equal(sb_partial_fail(&c, SB_OPENCL_ERROR, 3, NULL), SB_OK);
    assert_int_equal(sb_partial_merge(&c, &b), SB_OK);
    assert_int_equal(sb_partial_failure(&c, &origin), SB_OPENCL_ERROR);
    assert_int_equal(origin, 3);
    assert_string_equal(sb_error_detail(),
                        sb_status_string(SB_OPENCL_ERROR));
    const sb_reduction max = { .op = SB_MAX, .input = SB_I32 };
    assert_int_equal(sb_partial_init(&a, max, 999), SB_OK);
    assert_int_equal(sb_partial_merge(&c, &a), SB_OK);
    assert_int_equal(sb_partial_finish(&c, &out), SB_OPENCL_ERROR);
    /* A long detail is cut, not overrun. */
    char longer[600];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    assert_int_equal(sb_partial_fail(&c, SB_INVALID_ARGUMENT, 0, longer),
                     SB_OK);
    assert_int_equal(sb_partial_finish(&c, &out), SB_INVALID_ARGUMENT);
    assert_int_equal(strlen(sb_error_detail()), 239);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pieces_match_the_oracle),
        cmocka_unit_test(overflow_statuses_survive_every_cut),
        cmocka_unit_test(bad_calls_are_refused_and_change_nothing),
        cmocka_unit_test(a_failed_partial_absorbs_what_it_meets),
    };
    seed = test_seed(20261201u);
    return cmocka_run_group_tests_name("partial", tests, NULL, NULL);
}
