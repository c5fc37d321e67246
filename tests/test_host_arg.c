/* tests/test_host_arg.c: SB_ARGMIN, SB_ARGMAX and SB_COUNT on the host,
 * bit for bit (value bytes and index) and status for status against
 * tests/oracle.c.
 *
 *   - hand-derived examples (ties across leaves, +-0 ties, NaNs starting
 *     and inside leaves), each derived in a comment from ORDER.md and
 *     checked against the oracle and the library;
 *   - sb_reduce_host_opts for every pair min/max allow x argmin, argmax x
 *     no map, abs, square (checked, and wrapping for integers) x skip-nan,
 *     on the data families of support.h (ties, +-0, NaNs, limits) with
 *     every mask kind, at sizes around leaves and powers of two, threads
 *     0/1/2 and every instruction set this CPU runs; NaN-led and all-NaN
 *     leaves; large sizes (10^5, 2^18 + 3) with threads 1 and 2;
 *   - f16 / bf16 inputs;
 *   - SB_COUNT for every input type with masks and NaN skipping;
 *   - partials at random cuts merged in random groupings;
 *   - batched rows, columns and segments;
 *   - refused combinations: status, detail, result untouched.
 *
 * Seeded (printed at start; SAMEBITS_TEST_SEED replays a run). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

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

static const size_t small_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    1023, 1024, 1025, 4095, 4096, 4097, 8193,
};

static const data_family order_families[] = { ORDER_FAMILIES };

/* Runs r on caller data through the library (sb_reduce_host_opts with
 * `threads`, `isa`) and the oracle; true when status and all 16 result
 * bytes agree. Prints a mismatch. */
static bool agrees(const char *what, sb_reduction r, const void *x,
                   const unsigned char *mask, size_t n, unsigned threads,
                   unsigned isa)
{
    unsigned char want[16], got[16];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_host_options opts = { .threads = threads, .isa = isa };
    const sb_status ws = oracle_reduce(r, x, mask, n, want);
    const sb_status gs = sb_reduce_host_opts(r, x, mask, n, got, &opts);
    if (ws == gs && memcmp(want, got, sizeof got) == 0)
        return true;
    fprintf(stderr, "MISMATCH %s: %s %s->%s flags %u map %d n %zu\n", what,
            op_name(r.op), type_name(r.input), type_name(r.accumulator),
            r.flags, (int)r.map, n);
    print_run("oracle", r, ws, want);
    print_run("library", r, gs, got);
    return false;
}

static uint64_t index_of(const unsigned char *result)
{
    sb_arg_result a;
    memcpy(&a, result, sizeof a);
    return a.index;
}

/* ------------------------------------------------------------------------
 * Hand-derived examples
 * ---------------------------------------------------------------------- */

/* 40 f32 elements, all 1.0f but x[5] = x[20] = x[35] = 0.5f.
 * Leaves: L0 = 0..15, L1 = 16..31, L2 = 32..39.
 * argmin: L0 folds from x[0] = 1; x[5] = 0.5 < 1 replaces it: (0.5, 5);
 * no later element is < 0.5. L1: (0.5, 20). L2: (0.5, 35).
 * Tree: level 1 = combine(L0, L1), L2 moves up. combine((0.5,5),
 * (0.5,20)): 0.5 < 0.5 is false, left stays: (0.5, 5). Root =
 * combine((0.5,5), (0.5,35)) = (0.5, 5). Index 5: the tie across leaves
 * goes to the lower position.
 * argmax: L0 starts at x[0] = 1; nothing is > 1: (1, 0). Root (1, 0). */
static void a_tie_across_leaves_keeps_the_lowest_position(void **state)
{
    (void)state;
    float x[40];
    for (int i = 0; i < 40; i++)
        x[i] = 1.0f;
    x[5] = x[20] = x[35] = 0.5f;
    const sb_reduction rmin = { SB_ARGMIN, SB_F32, 0, 0, SB_MAP_NONE };
    const sb_reduction rmax = { SB_ARGMAX, SB_F32, 0, 0, SB_MAP_NONE };
    unsigned char got[16], want[16];
    assert_int_equal(sb_reduce_host(rmin, x, NULL, 40, got), SB_OK);
    assert_int_equal(oracle_reduce(rmin, x, NULL, 40, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 5);
    float v;
    memcpy(&v, got, 4);
    assert_true(v == 0.5f);
    assert_int_equal(sb_reduce_host(rmax, x, NULL, 40, got), SB_OK);
    assert_int_equal(oracle_reduce(rmax, x, NULL, 40, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 0);
    /* Masking out x[0..5]: L0 starts at x[6] = 1 -> (1, 6) for argmax,
     * and argmin's L0 is (1, 6) too (no 0.5 left in it), so argmin is
     * decided by L1: combine((1,6), (0.5,20)) takes the right: (0.5, 20). */
    unsigned char mask[40];
    memset(mask, 1, sizeof mask);
    memset(mask, 0, 6);
    assert_int_equal(sb_reduce_host(rmin, x, mask, 40, got), SB_OK);
    assert_int_equal(oracle_reduce(rmin, x, mask, 40, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 20);
    assert_int_equal(sb_reduce_host(rmax, x, mask, 40, got), SB_OK);
    assert_int_equal(index_of(got), 6);
}

/* 32 f64 elements: x[3] = -0.0, x[9] = +0.0, x[17] = -0.0, the rest 1.
 * argmin: L0 = (1, 0) -> x[3] = -0 < 1: (-0, 3); x[9] = +0 < -0 is false:
 * stays (-0, 3). L1 = (1, 16) -> x[17] = -0: (-0, 17). Root: +0 == -0,
 * neither is strictly smaller: (-0, 3). With x[3] = +0.0 instead the
 * root is (+0, 3): the first zero wins, whatever its sign. */
static void signed_zero_ties_keep_the_first(void **state)
{
    (void)state;
    double x[32];
    for (int i = 0; i < 32; i++)
        x[i] = 1.0;
    x[3] = -0.0;
    x[9] = 0.0;
    x[17] = -0.0;
    const sb_reduction r = { SB_ARGMIN, SB_F64, 0, 0, SB_MAP_NONE };
    unsigned char got[16], want[16];
    assert_int_equal(sb_reduce_host(r, x, NULL, 32, got), SB_OK);
    assert_int_equal(oracle_reduce(r, x, NULL, 32, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 3);
    double v;
    memcpy(&v, got, 8);
    assert_true(v == 0.0 && signbit(v));
    x[3] = 0.0;
    assert_int_equal(sb_reduce_host(r, x, NULL, 32, got), SB_OK);
    assert_int_equal(oracle_reduce(r, x, NULL, 32, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 3);
    memcpy(&v, got, 8);
    assert_true(v == 0.0 && !signbit(v));
}

/* 48 f32 elements: x[i] = i + 1 (all >= 1), but x[2] = NaN, x[16] = NaN
 * (the start of leaf 1), x[20] = 0.25.
 * argmin, leaves: L0 starts at x[0] = 1; x[2] = NaN < 1 is false:
 * passed over; nothing else < 1: (1, 0). L1 starts at x[16] = NaN; every
 * "x < NaN" is false, so x[20] = 0.25 never replaces it: (NaN, 16).
 * L2 = (33, 32). Tree: combine(L0, L1): NaN < 1 is false: (1, 0); then
 * combine((1, 0), L2): 33 < 1 false: (1, 0). Root (1, 0): the NaN of
 * leaf 1 lost as a right operand, and took 0.25 with it.
 * With x[0..15] masked out, L0 is none: combine(none, L1) = (NaN, 16);
 * combine((NaN, 16), (33, 32)): 33 < NaN is false: (NaN, 16). The NaN
 * is the root (canonical 0x7FC00000), index 16.
 * With SB_SKIP_NAN (no mask): L1 starts at x[17] = 18 and takes x[20] =
 * 0.25: (0.25, 20); root combine((1,0), (0.25,20)) = (0.25, 20). */
static void nans_starting_and_inside_leaves(void **state)
{
    (void)state;
    float x[48];
    for (int i = 0; i < 48; i++)
        x[i] = (float)(i + 1);
    x[2] = NAN;
    x[16] = NAN;
    x[20] = 0.25f;
    const sb_reduction r = { SB_ARGMIN, SB_F32, 0, 0, SB_MAP_NONE };
    unsigned char got[16], want[16];
    assert_int_equal(sb_reduce_host(r, x, NULL, 48, got), SB_OK);
    assert_int_equal(oracle_reduce(r, x, NULL, 48, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 0);

    unsigned char mask[48];
    memset(mask, 1, sizeof mask);
    memset(mask, 0, 16);
    assert_int_equal(sb_reduce_host(r, x, mask, 48, got), SB_OK);
    assert_int_equal(oracle_reduce(r, x, mask, 48, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 16);
    uint32_t bits;
    memcpy(&bits, got, 4);
    assert_int_equal(bits, 0x7FC00000u);
    const unsigned char zero[4] = { 0 };
    assert_memory_equal(got + 4, zero, 4);   /* the rest of value: zero */

    const sb_reduction skip = { SB_ARGMIN, SB_F32, 0, SB_SKIP_NAN,
                                SB_MAP_NONE };
    assert_int_equal(sb_reduce_host(skip, x, NULL, 48, got), SB_OK);
    assert_int_equal(oracle_reduce(skip, x, NULL, 48, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 20);
}

/* BLAS i?amax on i32: argmax of |x|. x = { 3, -7, 7, INT32_MIN }:
 * abs(INT32_MIN) does not fit i32: SB_OVERFLOW (for every op, ORDER.md).
 * Under SB_WRAP abs(INT32_MIN) wraps to INT32_MIN, the smallest i32, so
 * the leaf folds 3 -> |-7| = 7 > 3: (7, 1) -> |7| = 7 not > 7 -> (7, 1)
 * -> INT32_MIN not > 7: root (7, 1). count of the same 4: 4. */
static void iamax_overflows_or_wraps_on_int_min(void **state)
{
    (void)state;
    const int32_t x[4] = { 3, -7, 7, INT32_MIN };
    const sb_reduction r = { SB_ARGMAX, SB_I32, 0, 0, SB_MAP_ABS };
    unsigned char got[16], want[16];
    memset(got, RESULT_SENTINEL, sizeof got);
    assert_int_equal(sb_reduce_host(r, x, NULL, 4, got), SB_OVERFLOW);
    assert_int_equal(oracle_reduce(r, x, NULL, 4, want), SB_OVERFLOW);
    for (int i = 0; i < 16; i++)
        assert_int_equal(got[i], RESULT_SENTINEL);
    const sb_reduction w = { SB_ARGMAX, SB_I32, 0, SB_WRAP, SB_MAP_ABS };
    assert_int_equal(sb_reduce_host(w, x, NULL, 4, got), SB_OK);
    assert_int_equal(oracle_reduce(w, x, NULL, 4, want), SB_OK);
    assert_memory_equal(got, want, 16);
    assert_int_equal(index_of(got), 1);
    int32_t v;
    memcpy(&v, got, 4);
    assert_int_equal(v, 7);
    const sb_reduction c = { SB_COUNT, SB_I32, 0, 0, SB_MAP_NONE };
    uint64_t count = 99;
    assert_int_equal(sb_reduce_host(c, x, NULL, 4, &count), SB_OK);
    assert_int_equal(count, 4);
}

/* ------------------------------------------------------------------------
 * Randomised: every pair, map, flag, family, mask, size
 * ---------------------------------------------------------------------- */

static size_t arg_reductions(sb_reduction *out)
{
    size_t count = 0;
    for (int op = SB_ARGMIN; op <= SB_ARGMAX; op++)
        for (int in = 1; in <= TYPE_COUNT; in++)
            for (int acc = 0; acc <= TYPE_COUNT; acc++) {
                if (acc == in)
                    continue;
                for (int map = SB_MAP_NONE; map <= SB_MAP_SQUARE; map++)
                    for (unsigned flags = 0; flags <= 3; flags++) {
                        const sb_reduction r = { (sb_op)op, (sb_type)in,
                                                 (sb_type)acc, flags,
                                                 (sb_map)map };
                        if (!oracle_reduction_is_valid(r))
                            continue;
                        /* SB_WRAP only matters with an integer map. */
                        if ((flags & SB_WRAP) && map == SB_MAP_NONE)
                            continue;
                        out[count++] = r;
                    }
            }
    return count;
}

static void argmin_argmax_match_the_oracle(void **state)
{
    (void)state;
    static sb_reduction list[2 * TYPE_COUNT * (TYPE_COUNT + 1) * 3 * 4];
    const size_t count = arg_reductions(list);
    unsigned long cases = 0, wrong = 0, statuses[SB_OVERFLOW + 1] = { 0 };
    for (size_t k = 0; k < count; k++)
        for (size_t z = 0; z < COUNT(small_sizes); z++)
            for (size_t f = 0; f < COUNT(order_families); f++) {
                const mask_kind mk = (mask_kind)((z + f + k) % MASK_COUNT);
                test_case c = make_case(seed, list[k], small_sizes[z], mk,
                                        order_families[f]);
                c.threads = (unsigned)((z + f) % 3);
                c.isa = isas[(z + f + k) % isa_count];
                sb_status st;
                wrong += !check_against_oracle(&c, &st);
                if (st <= SB_OVERFLOW)
                    statuses[st]++;
                cases++;
            }
    printf("argmin/argmax: %zu reductions, %lu cases (%lu ok, %lu empty, "
           "%lu overflow), %lu wrong\n", count, cases, statuses[SB_OK],
           statuses[SB_EMPTY], statuses[SB_OVERFLOW], wrong);
    assert_int_equal(wrong, 0);
}

/* Float data with NaNs at leaf starts, inside leaves and whole NaN
 * leaves, and with many equal values (ties), every size, mask, ISA. */
static void fill_nan_ties(sb_type t, void *x, size_t n, uint64_t s)
{
    uint64_t st = s;
    for (size_t i = 0; i < n; i++) {
        const uint64_t kind = random_below(&st, 16);
        double v = (double)random_below(&st, 4) - 1.5;   /* few values */
        if (kind == 0 || (i % 16 == 0 && kind < 6) ||
            ((i / 16) % 7 == 3))                          /* NaN leaves */
            v = NAN;
        else if (kind == 1)
            v = -0.0;
        else if (kind == 2)
            v = 0.0;
        if (t == SB_F32) {
            const float f = (float)v;
            memcpy((char *)x + 4 * i, &f, 4);
        } else {
            memcpy((char *)x + 8 * i, &v, 8);
        }
    }
}

static void nan_and_tie_data_match_the_oracle(void **state)
{
    (void)state;
    unsigned long cases = 0, wrong = 0;
    static const sb_type types[][2] = { { SB_F32, 0 }, { SB_F32, SB_F64 },
                                        { SB_F64, 0 } };
    for (size_t t = 0; t < COUNT(types); t++)
        for (int op = SB_ARGMIN; op <= SB_COUNT; op++)
            for (unsigned flags = 0; flags <= SB_SKIP_NAN; flags += 2)
                for (int map = 0; map <= (op == SB_COUNT ? 0 : 1); map++)
                    for (size_t z = 0; z < COUNT(small_sizes); z++)
                        for (int mk = 0; mk < MASK_COUNT; mk++) {
                            const sb_reduction r = {
                                (sb_op)op, types[t][0],
                                op == SB_COUNT ? 0 : types[t][1], flags,
                                (sb_map)map };
                            const size_t n = small_sizes[z];
                            const uint64_t s = mix_seed(seed, cases);
                            void *x = checked_malloc(n * 8);
                            fill_nan_ties(r.input, x, n, s);
                            unsigned char *mask = make_mask(
                                (mask_kind)mk, n, mix_seed(s, 1));
                            const unsigned isa = isas[cases % isa_count];
                            wrong += !agrees("nan/ties", r, x, mask, n,
                                             (unsigned)(cases % 3), isa);
                            cases++;
                            free(mask);
                            free(x);
                        }
    printf("NaN and tie data: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

static void large_sizes_match_on_every_isa_and_thread_count(void **state)
{
    (void)state;
    static const size_t sizes[] = { 100003, (1u << 18) + 3 };
    static const sb_reduction rs[] = {
        { SB_ARGMIN, SB_F32, 0, 0, SB_MAP_NONE },
        { SB_ARGMAX, SB_F64, 0, SB_SKIP_NAN, SB_MAP_ABS },
        { SB_ARGMAX, SB_I32, SB_I64, 0, SB_MAP_NONE },
        { SB_ARGMIN, SB_U8, 0, 0, SB_MAP_NONE },
        { SB_COUNT, SB_F32, 0, SB_SKIP_NAN, SB_MAP_NONE },
    };
    static const data_family fams[] = { FAMILY_SIGNED_ZEROS,
                                         FAMILY_SPECIALS, FAMILY_LIMITS };
    unsigned long wrong = 0, cases = 0;
    for (size_t z = 0; z < COUNT(sizes); z++)
        for (size_t k = 0; k < COUNT(rs); k++) {
            const data_family fam = fams[(z + k) % COUNT(fams)];
            const mask_kind mk = (mask_kind)((z + k) % MASK_COUNT);
            test_case c = make_case(seed, rs[k], sizes[z], mk, fam);
            const size_t n = c.n;
            void *x = checked_malloc(n * type_size(c.r.input));
            fill_data(fam, c.r.input, c.r.accumulator, x, n, c.case_seed);
            unsigned char *mask = make_mask(mk, n, mix_seed(c.case_seed, 1));
            unsigned char want[16];
            memset(want, RESULT_SENTINEL, sizeof want);
            const sb_status ws = oracle_reduce(c.r, x, mask, n, want);
            for (unsigned threads = 1; threads <= 2; threads++)
                for (size_t i = 0; i < isa_count; i++) {
                    unsigned char got[16];
                    memset(got, RESULT_SENTINEL, sizeof got);
                    const sb_host_options o = { threads, isas[i] };
                    const sb_status gs = sb_reduce_host_opts(c.r, x, mask,
                                                             n, got, &o);
                    cases++;
                    if (gs != ws || memcmp(got, want, 16) != 0) {
                        wrong++;
                        print_case(stderr, &c);
                    }
                }
            free(mask);
            free(x);
        }
    printf("large sizes: %lu runs, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* f16 and bf16 inputs: random bit patterns (NaNs, infs, +-0 included). */
static void half_inputs_match_the_oracle(void **state)
{
    (void)state;
    static const sb_type halves[] = { SB_F16, SB_BF16 };
    static const sb_type accs[] = { 0, SB_F32, SB_F64 };
    unsigned long cases = 0, wrong = 0;
    for (size_t h = 0; h < COUNT(halves); h++)
        for (int op = SB_ARGMIN; op <= SB_COUNT; op++)
            for (size_t a = 0; a < (op == SB_COUNT ? 1 : COUNT(accs)); a++)
                for (unsigned flags = 0; flags <= SB_SKIP_NAN; flags += 2)
                    for (size_t z = 0; z < COUNT(small_sizes); z++) {
                        const sb_reduction r = { (sb_op)op, halves[h],
                                                 accs[a], flags,
                                                 z % 2 && op != SB_COUNT
                                                 ? SB_MAP_ABS : SB_MAP_NONE };
                        const size_t n = small_sizes[z];
                        uint64_t s = mix_seed(seed, 1000 + cases);
                        uint16_t *x = checked_malloc(n * 2);
                        for (size_t i = 0; i < n; i++) {
                            /* Few distinct values for ties, some NaNs. */
                            const uint64_t k = random_below(&s, 12);
                            static const uint16_t f16v[] = {
                                0x3C00, 0xBC00, 0x0000, 0x8000, 0x7E01,
                                0xFC00, 0x7C00, 0x0001, 0x4000, 0xC000,
                                0x3C00, 0x7D00 };
                            static const uint16_t bf16v[] = {
                                0x3F80, 0xBF80, 0x0000, 0x8000, 0x7FC1,
                                0xFF80, 0x7F80, 0x0001, 0x4000, 0xC000,
                                0x3F80, 0xFF90 };
                            x[i] = halves[h] == SB_F16 ? f16v[k] : bf16v[k];
                        }
                        unsigned char *mask = make_mask(
                            (mask_kind)(z % MASK_COUNT), n, mix_seed(s, 2));
                        wrong += !agrees("half", r, x, mask, n,
                                         (unsigned)(z % 3),
                                         isas[z % isa_count]);
                        cases++;
                        free(mask);
                        free(x);
                    }
    printf("f16/bf16: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Count
 * ---------------------------------------------------------------------- */

static void count_counts_taking_part_elements(void **state)
{
    (void)state;
    unsigned long cases = 0, wrong = 0;
    for (int in = 1; in <= TYPE_COUNT; in++)
        for (unsigned flags = 0; flags <= 2; flags += 2)
            for (size_t z = 0; z < COUNT(small_sizes); z++)
                for (int mk = 0; mk < MASK_COUNT; mk++) {
                    const sb_reduction r = { SB_COUNT, (sb_type)in,
                                             z % 2 ? (sb_type)in : 0, flags,
                                             SB_MAP_NONE };
                    if (!oracle_reduction_is_valid(r))
                        continue;
                    test_case c = make_case(seed, r, small_sizes[z],
                                            (mask_kind)mk, FAMILY_SPECIALS);
                    c.threads = (unsigned)(z % 3);
                    c.isa = isas[(z + (size_t)mk) % isa_count];
                    sb_status st;
                    wrong += !check_against_oracle(&c, &st);
                    wrong += st != SB_OK;   /* never empty, never overflow */
                    cases++;
                }
    /* An all-zero mask: 0, SB_OK. */
    const float x[3] = { 1, 2, 3 };
    const unsigned char zero[3] = { 0 };
    const sb_reduction r = { SB_COUNT, SB_F32, 0, 0, SB_MAP_NONE };
    uint64_t got = 77;
    assert_int_equal(sb_reduce_host(r, x, zero, 3, &got), SB_OK);
    assert_int_equal(got, 0);
    assert_int_equal(sb_reduce_host(r, NULL, NULL, 0, &got), SB_OK);
    assert_int_equal(got, 0);
    printf("count: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Partials
 * ---------------------------------------------------------------------- */

static sb_status reduce_in_pieces(sb_reduction r, const unsigned char *x,
                                  const unsigned char *mask, size_t n,
                                  const size_t *cuts, size_t k,
                                  uint64_t *state, void *result)
{
    enum { MAX_PIECES = 64 };
    static sb_partial piece[MAX_PIECES];
    size_t order[MAX_PIECES];
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
        assert_int_equal(sb_partial_add_host(&piece[i], x + b * size,
                                             mask ? mask + b : NULL, len),
                         SB_OK);
        order[i] = i;
    }
    while (count > 1) {
        const size_t i = (size_t)random_below(state, count - 1);
        assert_int_equal(sb_partial_merge(&piece[order[i]],
                                          &piece[order[i + 1]]), SB_OK);
        memmove(&order[i + 1], &order[i + 2],
                (count - i - 2) * sizeof order[0]);
        count--;
    }
    return sb_partial_finish(&piece[order[0]], result);
}

static void partials_carry_the_index_through_cuts_and_merges(void **state)
{
    (void)state;
    static const size_t sizes[] = { 0, 1, 15, 16, 17, 33, 255, 256, 257,
                                    1000, 4097, 9001 };
    static const sb_reduction rs[] = {
        { SB_ARGMIN, SB_F32, 0, 0, SB_MAP_NONE },
        { SB_ARGMAX, SB_F32, SB_F64, SB_SKIP_NAN, SB_MAP_ABS },
        { SB_ARGMIN, SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE },
        { SB_ARGMAX, SB_I16, SB_I32, 0, SB_MAP_NONE },
        { SB_ARGMAX, SB_I32, 0, 0, SB_MAP_ABS },
        { SB_ARGMAX, SB_I32, 0, SB_WRAP, SB_MAP_ABS },
        { SB_ARGMIN, SB_U64, 0, 0, SB_MAP_NONE },
        { SB_COUNT, SB_F64, 0, SB_SKIP_NAN, SB_MAP_NONE },
        { SB_COUNT, SB_I8, 0, 0, SB_MAP_NONE },
    };
    static const data_family fams[] = { FAMILY_SIGNED_ZEROS,
                                         FAMILY_SPECIALS, FAMILY_LIMITS };
    unsigned long cases = 0, wrong = 0;
    for (size_t ri = 0; ri < COUNT(rs); ri++)
        for (size_t z = 0; z < COUNT(sizes); z++)
            for (size_t fi = 0; fi < COUNT(fams); fi++) {
                const sb_reduction r = rs[ri];
                const mask_kind mk = (mask_kind)((z + fi + ri) % MASK_COUNT);
                const test_case c = make_case(seed, r, sizes[z], mk,
                                              fams[fi]);
                const size_t n = c.n;
                unsigned char *x = checked_malloc(n * type_size(r.input));
                fill_data(c.family, r.input, r.accumulator, x, n,
                          c.case_seed);
                unsigned char *mask = make_mask(mk, n,
                                                mix_seed(c.case_seed, 1));
                unsigned char want[16];
                memset(want, RESULT_SENTINEL, sizeof want);
                const sb_status ws = oracle_reduce(r, x, mask, n, want);
                uint64_t rs_state = c.case_seed;
                for (int t = 0; t < 16; t++) {
                    size_t cuts[63];
                    const size_t k = t % 4 == 3
                                   ? (size_t)random_below(&rs_state, 64)
                                   : (size_t)random_below(&rs_state, 7);
                    random_cuts(&rs_state, n, k, cuts);
                    unsigned char got[16];
                    memset(got, RESULT_SENTINEL, sizeof got);
                    const sb_status gs = reduce_in_pieces(
                        r, x, mask, n, cuts, k, &rs_state, got);
                    cases++;
                    if (gs == ws && memcmp(got, want, 16) == 0)
                        continue;
                    wrong++;
                    fprintf(stderr, "MISMATCH (partials) ");
                    print_case(stderr, &c);
                    print_run("oracle", r, ws, want);
                    print_run("partials", r, gs, got);
                }
                free(mask);
                free(x);
            }
    printf("partials: %lu cuts and groupings, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Batches: rows, columns, reversed rows, zero strides, segments
 * ---------------------------------------------------------------------- */

static void batches_give_each_row_its_own_index(void **state)
{
    (void)state;
    static const sb_reduction rs[] = {
        { SB_ARGMIN, SB_F32, 0, 0, SB_MAP_NONE },
        { SB_ARGMAX, SB_F64, 0, SB_SKIP_NAN, SB_MAP_ABS },
        { SB_ARGMAX, SB_I32, 0, 0, SB_MAP_ABS },
        { SB_ARGMIN, SB_U16, SB_U32, 0, SB_MAP_NONE },
        { SB_COUNT, SB_F32, 0, SB_SKIP_NAN, SB_MAP_NONE },
    };
    static const size_t shapes[][2] = { { 7, 1 }, { 5, 17 }, { 33, 40 },
                                        { 3, 4097 }, { 0, 5 }, { 4, 0 } };
    unsigned long cases = 0, wrong = 0;
    for (size_t ri = 0; ri < COUNT(rs); ri++)
        for (size_t si = 0; si < COUNT(shapes); si++) {
            const sb_reduction r = rs[ri];
            const size_t rows = shapes[si][0], cols = shapes[si][1];
            const size_t total = rows * cols, esize = type_size(r.input);
            const uint64_t s = mix_seed(seed, 7000 + ri * 100 + si);
            unsigned char *x = checked_malloc(total * esize);
            fill_data(FAMILY_SPECIALS, r.input, r.accumulator, x, total, s);
            unsigned char *mask = make_mask(MASK_EMPTY_LEAVES, total,
                                            mix_seed(s, 1));
            const size_t rsz = oracle_result_size(r);
            const size_t most = (rows > 2 * cols ? rows : 2 * cols) + 1;
            unsigned char *res = checked_malloc(most * 16);
            sb_status *st = checked_malloc(most * sizeof *st);
            unsigned char *row = checked_malloc(most * esize);
            unsigned char *row_mask = checked_malloc(most);
            /* Ragged segments over the same elements: `rows` of random
             * lengths from 0 to 2 cols (an empty one among them), their
             * total at most `total`. */
            uint64_t *ragged = checked_malloc((rows + 1) * 8);
            uint64_t cut = mix_seed(s, 2);
            ragged[0] = 0;
            for (size_t b = 0; b < rows; b++) {
                const uint64_t len = b == 1 ? 0
                                   : random_below(&cut, 2 * cols + 1);
                ragged[b + 1] = ragged[b] + len > total ? total
                              : ragged[b] + len;
            }
            /* Pass 0: rows (elem_stride 1); pass 1: the columns of the
             * transposed view (the same x read as rows x cols, column c
             * being reduction c of `rows` elements); pass 2: segments;
             * pass 3: the rows reversed (element and batch strides
             * negative, from the last element); pass 4: an element
             * stride of 0 (row b is x[b cols], cols times: equal values,
             * so the lowest position); pass 5: ragged segments. */
            for (int pass = 0; pass < 6; pass++) {
                if (pass == 3 && total == 0)
                    continue;   /* no last element to start from */
                const size_t count = pass == 1 ? cols : rows;
                memset(res, RESULT_SENTINEL, most * 16);
                sb_status s2;
                if (pass == 0) {
                    s2 = sb_reduce_batched_host(r, x, mask, cols, 1, rows,
                                                (ptrdiff_t)cols, res, st);
                } else if (pass == 1) {
                    s2 = sb_reduce_batched_host(r, x, mask, rows,
                                                (ptrdiff_t)cols, cols, 1,
                                                res, st);
                } else if (pass == 3) {
                    s2 = sb_reduce_batched_host(r, x + (total - 1) * esize,
                                                mask + (total - 1), cols, -1,
                                                rows, -(ptrdiff_t)cols, res,
                                                st);
                } else if (pass == 4) {
                    s2 = sb_reduce_batched_host(r, x, mask, cols, 0, rows,
                                                (ptrdiff_t)cols, res, st);
                } else if (pass == 5) {
                    s2 = sb_reduce_segments_host(r, x, mask, ragged, rows,
                                                 res, st);
                } else {
                    uint64_t *offs = checked_malloc((rows + 1) * 8);
                    for (size_t b = 0; b <= rows; b++)
                        offs[b] = b * cols;
                    s2 = sb_reduce_segments_host(r, x, mask, offs, rows,
                                                 res, st);
                    free(offs);
                }
                assert_int_equal(s2, SB_OK);
                for (size_t b = 0; b < count; b++) {
                    const size_t len = pass == 1 ? rows
                                     : pass == 5 ? (size_t)(ragged[b + 1]
                                                            - ragged[b])
                                     : cols;
                    for (size_t i = 0; i < len; i++) {
                        const size_t at = pass == 1 ? i * cols + b
                                        : pass == 3 ? total - 1 - b * cols - i
                                        : pass == 4 ? b * cols
                                        : pass == 5 ? (size_t)ragged[b] + i
                                        : b * cols + i;
                        memcpy(row + i * esize, x + at * esize, esize);
                        row_mask[i] = mask[at];
                    }
                    unsigned char want[16];
                    memset(want, RESULT_SENTINEL, sizeof want);
                    const sb_status ws = oracle_reduce(r, row, row_mask, len,
                                                       want);
                    cases++;
                    if (ws == st[b] && (ws != SB_OK ||
                                        memcmp(want, res + b * rsz, rsz) == 0))
                        continue;
                    wrong++;
                    fprintf(stderr, "MISMATCH batch pass %d %s row %zu of "
                            "%zu x %zu: oracle %s, library %s\n", pass,
                            op_name(r.op), b, rows, cols, status_name(ws),
                            status_name(st[b]));
                }
            }
            free(ragged);
            free(row_mask);
            free(row);
            free(st);
            free(res);
            free(mask);
            free(x);
        }
    printf("batches: %lu rows, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Refusals
 * ---------------------------------------------------------------------- */

static void expect_refusal(sb_reduction r, const char *needle)
{
    const float x[2] = { 1, 2 };
    unsigned char got[16];
    memset(got, RESULT_SENTINEL, sizeof got);
    assert_int_equal(sb_reduce_host(r, x, NULL, 2, got), SB_INVALID_ARGUMENT);
    if (strstr(sb_error_detail(), needle) == NULL) {
        fprintf(stderr, "detail '%s' lacks '%s'\n", sb_error_detail(),
                needle);
        fail();
    }
    for (size_t i = 0; i < sizeof got; i++)
        assert_int_equal(got[i], RESULT_SENTINEL);
    assert_int_equal(sb_result_size(r), 0);
    assert_false(oracle_reduction_is_valid(r));
}

static void bad_combinations_are_refused_with_a_detail(void **state)
{
    (void)state;
    expect_refusal((sb_reduction){ SB_COUNT, SB_F32, SB_F64, 0, 0 },
                   "accumulator");
    expect_refusal((sb_reduction){ SB_COUNT, SB_F32, 0, 0, SB_MAP_ABS },
                   "map");
    expect_refusal((sb_reduction){ SB_COUNT, SB_F32, 0, SB_WRAP, 0 },
                   "SB_WRAP");
    expect_refusal((sb_reduction){ SB_ARGMIN, SB_F32, SB_I32, 0, 0 },
                   "exact widening");
    expect_refusal((sb_reduction){ SB_ARGMAX, SB_F32, 0, SB_WRAP, 0 },
                   "SB_WRAP");
    expect_refusal((sb_reduction){ SB_ARGMAX, SB_I32, 0, SB_SKIP_NAN, 0 },
                   "SB_SKIP_NAN");
    expect_refusal((sb_reduction){ (sb_op)(SB_COUNT + 1), SB_F32, 0, 0, 0 },
                   "sb_op");
    /* Dot products are sums. */
    const float x[2] = { 1, 2 };
    unsigned char got[16];
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_reduction d = { SB_ARGMAX, SB_F32, 0, 0, 0 };
    assert_int_equal(sb_dot_host(d, x, x, NULL, 2, got), SB_INVALID_ARGUMENT);
    assert_non_null(strstr(sb_error_detail(), "argmax"));
    for (size_t i = 0; i < sizeof got; i++)
        assert_int_equal(got[i], RESULT_SENTINEL);
    /* Names and sizes. */
    assert_string_equal(sb_op_name(SB_ARGMIN), "argmin");
    assert_string_equal(sb_op_name(SB_ARGMAX), "argmax");
    assert_string_equal(sb_op_name(SB_COUNT), "count");
    assert_int_equal(sb_result_size(d), 16);
    const sb_reduction c = { SB_COUNT, SB_U8, 0, 0, 0 };
    assert_int_equal(sb_result_size(c), 8);
    assert_int_equal(sizeof(sb_arg_result), 16);
#if SAMEBITS_OPENCL   /* the device record exists in device builds only */
    assert_int_equal(sizeof(sb_device_arg_result), 24);
    assert_int_equal(offsetof(sb_device_arg_result, status), 16);
#endif
    /* An empty argmin: SB_EMPTY, result untouched. */
    assert_int_equal(sb_reduce_host(d, x, (const unsigned char *)"\0\0", 2,
                                    got), SB_EMPTY);
    for (size_t i = 0; i < sizeof got; i++)
        assert_int_equal(got[i], RESULT_SENTINEL);
}

int main(void)
{
    seed = test_seed(20250611u);
    find_isas();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_tie_across_leaves_keeps_the_lowest_position),
        cmocka_unit_test(signed_zero_ties_keep_the_first),
        cmocka_unit_test(nans_starting_and_inside_leaves),
        cmocka_unit_test(iamax_overflows_or_wraps_on_int_min),
        cmocka_unit_test(bad_combinations_are_refused_with_a_detail),
        cmocka_unit_test(count_counts_taking_part_elements),
        cmocka_unit_test(argmin_argmax_match_the_oracle),
        cmocka_unit_test(nan_and_tie_data_match_the_oracle),
        cmocka_unit_test(half_inputs_match_the_oracle),
        cmocka_unit_test(large_sizes_match_on_every_isa_and_thread_count),
        cmocka_unit_test(partials_carry_the_index_through_cuts_and_merges),
        cmocka_unit_test(batches_give_each_row_its_own_index),
    };
    return cmocka_run_group_tests_name("host_arg", tests, NULL, NULL);
}
