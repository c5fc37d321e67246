/* tests/test_host_half.c: f16 (IEEE binary16) and bf16 (bfloat16) inputs on
 * the host, bit for bit (memcmp) and status for status against
 * tests/oracle.c, whose half arithmetic shares nothing with src/host_half.h
 * (it rounds exact results by choosing between neighbours).
 *
 *   - hand-derived examples (each expectation worked out in its comment),
 *     checked on the oracle and on the library: ties to even, overflow at
 *     65520, subnormal sums and products, canonical NaNs, signed zeros;
 *   - sb_reduce_host for f16 and bf16 into f32, f64 and the type itself,
 *     every op and map, with and without SB_SKIP_NAN, at sizes around
 *     leaves and powers of two, on data families of this file (cancellation,
 *     +-inf, NaNs of several payloads, +-0, subnormals, values whose sums
 *     overflow, NaN-only leaves), with every mask kind of support.h;
 *   - large inputs (about 10^5 and past the threading threshold) with
 *     threads 1 and 2 and every instruction set this CPU runs;
 *   - whole unmasked blocks, every reduction and dot product, on every
 *     instruction set (the kernels that convert and fold as they load);
 *   - sb_dot_host, and sb_partial_add_host / sb_partial_add_dot_host at
 *     random cuts merged in random groupings;
 *   - refused combinations (integer accumulators, f16 <-> bf16, SB_WRAP):
 *     SB_INVALID_ARGUMENT with a detail and the result untouched.
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

static bool untouched(const unsigned char *bytes)
{
    for (size_t i = 0; i < RESULT_BUFFER; i++)
        if (bytes[i] != RESULT_SENTINEL)
            return false;
    return true;
}

/* ------------------------------------------------------------------------
 * Hand-derived examples
 * ---------------------------------------------------------------------- */

typedef struct {
    const char    *name;
    sb_reduction   r;
    bool           dot;
    size_t         n;
    uint16_t       x[4], y[4];
    sb_status      status;
    unsigned char  expected[4];   /* little-endian result bytes */
    size_t         size;
} example;

#define R(op, in, acc, flags, map) { op, in, acc, flags, map }
#define B2(v) { (unsigned char)((v) & 0xFF), (unsigned char)((v) >> 8) }
#define B4(v) { (unsigned char)((v) & 0xFF), (unsigned char)(((v) >> 8) & 0xFF), \
                (unsigned char)(((v) >> 16) & 0xFF), (unsigned char)((v) >> 24) }

/* Patterns used below. f16: sign, 5 exponent bits (bias 15), 10 fraction
 * bits; bf16: sign, 8 exponent bits (bias 127), 7 fraction bits.
 *   f16  1.0 = 0x3C00, 1 + 2^-10 = 0x3C01, 1 + 2^-9 = 0x3C02,
 *        2^-11 = (15 - 11 = 4) << 10 = 0x1000, 8 = 18 << 10 = 0x4800,
 *        16 = 19 << 10 = 0x4C00, 256 = 23 << 10 = 0x5C00,
 *        65504 = (2 - 2^-10) 2^15 = 0x7BFF (the largest finite),
 *        2^-12 = 3 << 10 = 0x0C00, 2^-13 = 0x0800, 2^-24 = 0x0001;
 *   bf16 1.0 = 0x3F80, 0.5 = 0x3F00, 0.75 = 0x3F40, 2^-8 = 119 << 7 =
 *        0x3B80, 2^118 = 245 << 7 = 0x7A80, 2^119 = 0x7B00, the largest
 *        finite (2 - 2^-7) 2^127 = 0x7F7F, 2^-133 = 0x0001. */
static const example examples[] = {
    /* 1 + 2^-11 is halfway between 1 and the next f16, 1 + 2^-10: a tie,
     * to the even fraction, 1.0. (+0 + 1 is exact first.) */
    { "f16 1 + 2^-11 ties to 1", R(SB_SUM, SB_F16, 0, 0, 0), false, 2,
      { 0x3C00, 0x1000 }, { 0 }, SB_OK, B2(0x3C00), 2 },
    /* (1 + 2^-10) + 2^-11 is halfway between 0x3C01 (odd) and 0x3C02:
     * the even one, 1 + 2^-9. */
    { "f16 (1 + 2^-10) + 2^-11 ties up to even", R(SB_SUM, SB_F16, 0, 0, 0),
      false, 2, { 0x3C01, 0x1000 }, { 0 }, SB_OK, B2(0x3C02), 2 },
    /* 65504 + 8 = 65512, below the midpoint 65520 between 65504 and 2^16:
     * 65504. */
    { "f16 65504 + 8 stays 65504", R(SB_SUM, SB_F16, 0, 0, 0), false, 2,
      { 0x7BFF, 0x4800 }, { 0 }, SB_OK, B2(0x7BFF), 2 },
    /* 65504 + 16 = 65520, exactly the midpoint: 65504 has an odd fraction
     * (0x3FF), 2^16 an even one, and 2^16 is past the largest finite:
     * +inf. */
    { "f16 65504 + 16 is inf", R(SB_SUM, SB_F16, 0, 0, 0), false, 2,
      { 0x7BFF, 0x4C00 }, { 0 }, SB_OK, B2(0x7C00), 2 },
    /* In f32 the same sum is exact: 2 * 65504 = 131008 = 1.9990234375 *
     * 2^16: exponent 143 (0x8F), fraction 0.9990234375 * 2^23 = 0x7FE000:
     * 0x47FFE000. */
    { "f16 65504 + 65504 in f32 is 131008", R(SB_SUM, SB_F16, SB_F32, 0, 0),
      false, 2, { 0x7BFF, 0x7BFF }, { 0 }, SB_OK, B4(0x47FFE000u), 4 },
    /* 256 * 256 = 2^16 > 65520: +inf. */
    { "f16 256 * 256 is inf", R(SB_PROD, SB_F16, 0, 0, 0), false, 2,
      { 0x5C00, 0x5C00 }, { 0 }, SB_OK, B2(0x7C00), 2 },
    /* (2^-12)^2 = 2^-24, the smallest subnormal, exactly: 0x0001. */
    { "f16 square of 2^-12 is the smallest subnormal",
      R(SB_SUM, SB_F16, 0, 0, SB_MAP_SQUARE), false, 1, { 0x0C00 }, { 0 },
      SB_OK, B2(0x0001), 2 },
    /* (2^-13)^2 = 2^-26, below half the smallest subnormal (2^-25): +0. */
    { "f16 square of 2^-13 is +0", R(SB_SUM, SB_F16, 0, 0, SB_MAP_SQUARE),
      false, 1, { 0x0800 }, { 0 }, SB_OK, B2(0x0000), 2 },
    /* (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: above 0x3C02 by less than half an
     * ulp (2^-11): 0x3C02. In f32 it is exact: 0x3F800000 + 2^-9 (bit 14,
     * 0x4000) + 2^-20 (bit 3, 0x8) = 0x3F804008. */
    { "f16 dot (1 + 2^-10)^2 rounds to 1 + 2^-9", R(SB_SUM, SB_F16, 0, 0, 0),
      true, 1, { 0x3C01 }, { 0x3C01 }, SB_OK, B2(0x3C02), 2 },
    { "f16 dot (1 + 2^-10)^2 in f32 is exact",
      R(SB_SUM, SB_F16, SB_F32, 0, 0), true, 1, { 0x3C01 }, { 0x3C01 },
      SB_OK, B4(0x3F804008u), 4 },
    /* min over +0, -0: -0 < +0 is false, so the first stays: +0. */
    { "f16 min of +0, -0 is +0", R(SB_MIN, SB_F16, 0, 0, 0), false, 2,
      { 0x0000, 0x8000 }, { 0 }, SB_OK, B2(0x0000), 2 },
    /* any: -0 and +0 are false; a NaN is true. all: -0 is false. */
    { "f16 any of -0, +0 is 0", R(SB_ANY, SB_F16, 0, 0, 0), false, 2,
      { 0x8000, 0x0000 }, { 0 }, SB_OK, { 0 }, 1 },
    { "f16 any of -0, NaN is 1", R(SB_ANY, SB_F16, 0, 0, 0), false, 2,
      { 0x8000, 0x7C01 }, { 0 }, SB_OK, { 1 }, 1 },
    { "bf16 all of 1, -0 is 0", R(SB_ALL, SB_BF16, 0, 0, 0), false, 2,
      { 0x3F80, 0x8000 }, { 0 }, SB_OK, { 0 }, 1 },
    /* bf16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7: the even 1.0. */
    { "bf16 1 + 2^-8 ties to 1", R(SB_SUM, SB_BF16, 0, 0, 0), false, 2,
      { 0x3F80, 0x3B80 }, { 0 }, SB_OK, B2(0x3F80), 2 },
    /* The largest finite bf16 plus half its ulp (2^120 / 2 = 2^119) is the
     * midpoint to 2^128: ties to the even 2^128, past the range: +inf.
     * Plus 2^118 is below the midpoint: the largest finite. */
    { "bf16 max + 2^119 is inf", R(SB_SUM, SB_BF16, 0, 0, 0), false, 2,
      { 0x7F7F, 0x7B00 }, { 0 }, SB_OK, B2(0x7F80), 2 },
    { "bf16 max + 2^118 stays max", R(SB_SUM, SB_BF16, 0, 0, 0), false, 2,
      { 0x7F7F, 0x7A80 }, { 0 }, SB_OK, B2(0x7F7F), 2 },
    /* 2^-133 * 0.5 = 2^-134, halfway between +0 and 2^-133: the even +0.
     * 2^-133 * 0.75 is above the midpoint: 2^-133. -2^-133 * 0.5: -0.
     * (The fold starts from 1: 1 * x is x exactly.) */
    { "bf16 2^-133 * 0.5 is +0", R(SB_PROD, SB_BF16, 0, 0, 0), false, 2,
      { 0x0001, 0x3F00 }, { 0 }, SB_OK, B2(0x0000), 2 },
    { "bf16 2^-133 * 0.75 is 2^-133", R(SB_PROD, SB_BF16, 0, 0, 0), false, 2,
      { 0x0001, 0x3F40 }, { 0 }, SB_OK, B2(0x0001), 2 },
    { "bf16 -2^-133 * 0.5 is -0", R(SB_PROD, SB_BF16, 0, 0, 0), false, 2,
      { 0x8001, 0x3F00 }, { 0 }, SB_OK, B2(0x8000), 2 },
    /* A signalling NaN with a payload, and a negative NaN: the canonical
     * quiet NaN of the accumulator, 0x7FC0 for bf16, 0x7FC00000 in f32,
     * 0x7E00 for f16. */
    { "bf16 NaN sum is 0x7FC0", R(SB_SUM, SB_BF16, 0, 0, 0), false, 3,
      { 0x3F80, 0x7F81, 0xFFFF }, { 0 }, SB_OK, B2(0x7FC0), 2 },
    { "bf16 NaN sum in f32 is 0x7FC00000", R(SB_SUM, SB_BF16, SB_F32, 0, 0),
      false, 2, { 0x3F80, 0x7F81 }, { 0 }, SB_OK, B4(0x7FC00000u), 4 },
    { "f16 max of a NaN is 0x7E00", R(SB_MAX, SB_F16, 0, 0, 0), false, 2,
      { 0xFC01, 0x3C00 }, { 0 }, SB_OK, B2(0x7E00), 2 },
    /* inf - inf is a NaN. */
    { "f16 inf + -inf is 0x7E00", R(SB_SUM, SB_F16, 0, 0, 0), false, 2,
      { 0x7C00, 0xFC00 }, { 0 }, SB_OK, B2(0x7E00), 2 },
    /* With NaNs skipped only 1.0 takes part. */
    { "bf16 nansum of 1, NaN is 1", R(SB_SUM, SB_BF16, 0, SB_SKIP_NAN, 0),
      false, 2, { 0x3F80, 0xFFC1 }, { 0 }, SB_OK, B2(0x3F80), 2 },
    /* abs clears the sign: |-65504| = 65504. */
    { "f16 max |x| of -65504, 1", R(SB_MAX, SB_F16, 0, 0, SB_MAP_ABS), false,
      2, { 0xFBFF, 0x3C00 }, { 0 }, SB_OK, B2(0x7BFF), 2 },
    /* Nothing takes part: min is empty, sum +0, prod 1 (0x3C00). */
    { "f16 min over nothing is empty", R(SB_MIN, SB_F16, 0, 0, 0), false, 0,
      { 0 }, { 0 }, SB_EMPTY, { 0 }, 0 },
    { "f16 prod over nothing is 1", R(SB_PROD, SB_F16, 0, 0, 0), false, 0,
      { 0 }, { 0 }, SB_OK, B2(0x3C00), 2 },
};

static sb_status run_example(const example *e, bool oracle,
                             unsigned char *out)
{
    if (e->dot)
        return oracle ? oracle_dot(e->r, e->x, e->y, NULL, e->n, out)
                      : sb_dot_host(e->r, e->x, e->y, NULL, e->n, out);
    return oracle ? oracle_reduce(e->r, e->x, NULL, e->n, out)
                  : sb_reduce_host(e->r, e->x, NULL, e->n, out);
}

static void hand_examples_hold_on_oracle_and_library(void **state)
{
    (void)state;
    unsigned wrong = 0;
    for (size_t k = 0; k < COUNT(examples); k++) {
        const example *e = &examples[k];
        for (int oracle = 1; oracle >= 0; oracle--) {
            unsigned char out[RESULT_BUFFER];
            memset(out, RESULT_SENTINEL, sizeof out);
            const sb_status s = run_example(e, oracle != 0, out);
            bool ok = s == e->status;
            if (ok && s == SB_OK)
                ok = memcmp(out, e->expected, e->size) == 0 &&
                     out[e->size] == RESULT_SENTINEL;
            if (ok && s != SB_OK)
                ok = untouched(out);
            if (!ok) {
                wrong++;
                fprintf(stderr, "%s: %s gave %s, bytes %02x %02x %02x %02x\n",
                        e->name, oracle ? "oracle" : "library",
                        status_name(s), out[0], out[1], out[2], out[3]);
            }
        }
    }
    assert_int_equal(wrong, 0);
}

/* The half families of support.h worth running per operation. */
static const half_family sum_families[] = {
    HALF_RANDOM_BITS, HALF_MODERATE, HALF_CANCELLATION, HALF_SUBNORMAL,
    HALF_HUGE, HALF_SPECIALS, HALF_SIGNED_ZEROS, HALF_NAN_LEAVES,
    HALF_OVERFLOW_EDGE };
static const half_family prod_families[] = {
    HALF_MODERATE, HALF_PROD_EDGE, HALF_SUBNORMAL, HALF_HUGE, HALF_SPECIALS,
    HALF_NEAR_ONE };
static const half_family order_families[] = {
    HALF_RANDOM_BITS, HALF_SUBNORMAL, HALF_SPECIALS, HALF_SIGNED_ZEROS,
    HALF_NAN_LEAVES, HALF_NAN_LED };
static const half_family boolean_families[] = {
    HALF_RANDOM_BITS, HALF_SUBNORMAL, HALF_SPECIALS, HALF_SIGNED_ZEROS };

static const half_family *families_of(sb_op op, size_t *count)
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

static const sb_type half_types[] = { SB_F16, SB_BF16 };
/* 0 is the type itself (SB_SAME_AS_INPUT); the explicit type is the same
 * reduction, checked in the refusal test's validity part. */
static const sb_type accumulators[] = { SB_SAME_AS_INPUT, SB_F32, SB_F64 };

/* Every (type, accumulator) x sum, prod, min, max x no map, abs, square x
 * with and without SB_SKIP_NAN; any and all with and without it. */
static size_t all_reductions(sb_reduction *out)
{
    size_t count = 0;
    for (size_t t = 0; t < COUNT(half_types); t++) {
        for (size_t a = 0; a < COUNT(accumulators); a++)
            for (int op = SB_SUM; op <= SB_MAX; op++)
                for (int map = SB_MAP_NONE; map <= SB_MAP_SQUARE; map++)
                    for (unsigned flags = 0; flags <= SB_SKIP_NAN;
                         flags += SB_SKIP_NAN)
                        out[count++] = (sb_reduction){
                            (sb_op)op, half_types[t], accumulators[a], flags,
                            (sb_map)map };
        for (int op = SB_ANY; op <= SB_ALL; op++)
            for (unsigned flags = 0; flags <= SB_SKIP_NAN;
                 flags += SB_SKIP_NAN)
                out[count++] = (sb_reduction){ (sb_op)op, half_types[t], 0,
                                               flags, SB_MAP_NONE };
    }
    return count;
}

enum { MAX_REDUCTIONS = 2 * (3 * 4 * 3 * 2 + 4) };

static const size_t small_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 3001, 4095, 4096,
    4097, 8191, 8193,
};

static const char *reduction_text(sb_reduction r, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s->%s map %d flags %u", op_name(r.op),
             type_name(r.input), type_name(r.accumulator), (int)r.map,
             r.flags);
    return buf;
}

/* One case: oracle once, the library with each of `configs` options. */
static bool check_case(sb_reduction r, bool dot, const uint16_t *x,
                       const uint16_t *y, const unsigned char *mask, size_t n,
                       const sb_host_options *configs, size_t config_count,
                       const char *what)
{
    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    const sb_status expected = dot ? oracle_dot(r, x, y, mask, n, want)
                                   : oracle_reduce(r, x, mask, n, want);
    bool agree = true;
    for (size_t c = 0; c < config_count; c++) {
        unsigned char got[RESULT_BUFFER];
        memset(got, RESULT_SENTINEL, sizeof got);
        const sb_host_options *o = configs ? &configs[c] : NULL;
        const sb_status s = dot ? sb_dot_host_opts(r, x, y, mask, n, got, o)
                                : sb_reduce_host_opts(r, x, mask, n, got, o);
        if (s != expected || memcmp(got, want, sizeof got) != 0) {
            char text[96];
            fprintf(stderr, "MISMATCH %s%s n=%zu %s threads %u isa %u "
                    "(seed %llu)\n", dot ? "dot " : "",
                    reduction_text(r, text, sizeof text), n, what,
                    o ? o->threads : 0, o ? o->isa : 0,
                    (unsigned long long)seed);
            print_run("oracle", r, expected, want);
            print_run("library", r, s, got);
            agree = false;
        }
    }
    return agree;
}

static void reductions_match_oracle_at_small_sizes(void **state)
{
    (void)state;
    sb_reduction rs[MAX_REDUCTIONS];
    const size_t count = all_reductions(rs);
    uint16_t *x = checked_malloc(8193 * sizeof *x);
    unsigned long cases = 0, wrong = 0;
    for (size_t k = 0; k < count; k++) {
        size_t family_count;
        const half_family *families = families_of(rs[k].op, &family_count);
        for (size_t f = 0; f < family_count; f++)
            for (size_t s = 0; s < COUNT(small_sizes); s++) {
                const size_t n = small_sizes[s];
                const uint64_t case_seed = mix_seed(seed, k * 100000 + f * 1000 + s);
                const mask_kind mk = (mask_kind)((s + f + k) % MASK_COUNT);
                fill_half(families[f], rs[k].input, x, n, case_seed);
                unsigned char *mask = make_mask(mk, n, mix_seed(case_seed, 1));
                char what[64];
                snprintf(what, sizeof what, "%s mask %s",
                         half_family_name(families[f]), mask_name(mk));
                cases++;
                wrong += !check_case(rs[k], false, x, NULL, mask, n, NULL, 1,
                                     what);
                free(mask);
            }
    }
    free(x);
    printf("small sizes: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ~10^5 and past the threading threshold (2^18): threads 1 and 2 and
 * every instruction set, for each (type, accumulator) x op, a map or
 * two, and skipped NaNs. */
static void large_inputs_match_oracle_on_any_threads_and_isa(void **state)
{
    (void)state;
    static const size_t sizes[] = { 100003, (1u << 18) + 3 };
    sb_host_options configs[6];
    size_t config_count = 0;
    for (size_t i = 0; i < isa_count; i++)
        for (unsigned t = 1; t <= 2; t++)
            configs[config_count++] = (sb_host_options){ t, isas[i] };
    uint16_t *x = checked_malloc(sizes[1] * sizeof *x);
    unsigned long cases = 0, wrong = 0;
    for (size_t t = 0; t < COUNT(half_types); t++)
        for (size_t a = 0; a < COUNT(accumulators); a++)
            for (int op = SB_SUM; op <= SB_ALL; op++)
                for (size_t z = 0; z < COUNT(sizes); z++) {
                    if (op >= SB_ANY && a != 0)
                        continue;
                    const sb_map map = z == 0 ? SB_MAP_NONE
                                     : op == SB_SUM ? SB_MAP_SQUARE
                                     : op == SB_MAX ? SB_MAP_ABS
                                     : SB_MAP_NONE;
                    const unsigned flags = op == SB_MIN && z == 1
                                         ? SB_SKIP_NAN : 0;
                    const sb_reduction r = { (sb_op)op, half_types[t],
                                             accumulators[a], flags, map };
                    const half_family family =
                        op == SB_SUM ? (z == 0 ? HALF_CANCELLATION
                                               : HALF_MODERATE)
                      : op == SB_PROD ? HALF_PROD_EDGE
                      : op == SB_MIN ? HALF_NAN_LEAVES : HALF_SUBNORMAL;
                    const uint64_t case_seed =
                        mix_seed(seed, 7000000 + t * 10000 + a * 1000 +
                                 (uint64_t)op * 10 + z);
                    fill_half(family, r.input, x, sizes[z], case_seed);
                    const mask_kind mk = z == 0 ? MASK_EMPTY_LEAVES
                                                : MASK_RANDOM;
                    unsigned char *mask = make_mask(mk, sizes[z],
                                                    mix_seed(case_seed, 1));
                    char what[64];
                    snprintf(what, sizeof what, "%s mask %s",
                             half_family_name(family), mask_name(mk));
                    cases++;
                    wrong += !check_case(r, false, x, NULL, mask, sizes[z],
                                         configs, config_count, what);
                    free(mask);
                }
    free(x);
    printf("large sizes: %lu cases x %zu configurations, %lu wrong\n", cases,
           config_count, wrong);
    assert_int_equal(wrong, 0);
}

/* Whole unmasked blocks (4096 elements) are folded by the per
 * instruction set kernels that convert, map or multiply, round to the
 * half type and fold as they load (host_kernels.c): every reduction and
 * dot product, each of its data families, on every instruction set this
 * CPU runs, with no mask, so that no element leaves those kernels. */
static void unmasked_blocks_match_oracle_on_every_isa(void **state)
{
    (void)state;
    static const size_t sizes[] = { 4096, 3 * 4096 + 17 };
    sb_host_options configs[3];
    for (size_t i = 0; i < isa_count; i++)
        configs[i] = (sb_host_options){ 1, isas[i] };
    sb_reduction rs[MAX_REDUCTIONS];
    const size_t count = all_reductions(rs);
    uint16_t *x = checked_malloc(sizes[1] * sizeof *x);
    uint16_t *y = checked_malloc(sizes[1] * sizeof *y);
    unsigned long cases = 0, wrong = 0;
    for (size_t k = 0; k < count; k++) {
        size_t family_count;
        const half_family *families = families_of(rs[k].op, &family_count);
        /* A dot product of each sum: x * y, the map moved onto nothing. */
        const bool dot_too = rs[k].op == SB_SUM && rs[k].map == SB_MAP_NONE;
        for (size_t f = 0; f < family_count; f++)
            for (size_t s = 0; s < COUNT(sizes); s++) {
                const uint64_t cs = mix_seed(seed, 11000000 + k * 1000 +
                                             f * 10 + s);
                fill_half(families[f], rs[k].input, x, sizes[s], cs);
                fill_half(families[(f + 1) % family_count], rs[k].input, y,
                          sizes[s], mix_seed(cs, 2));
                char what[64];
                snprintf(what, sizeof what, "%s no mask",
                         half_family_name(families[f]));
                cases++;
                wrong += !check_case(rs[k], false, x, NULL, NULL, sizes[s],
                                     configs, isa_count, what);
                if (dot_too) {
                    cases++;
                    wrong += !check_case(rs[k], true, x, y, NULL, sizes[s],
                                         configs, isa_count, what);
                }
            }
    }
    /* A square or a product is rounded to a half accumulator before the
     * addition: folding the unrounded one differs from the oracle in
     * about one block of moderate values in ten (a bf16 run of 200
     * blocks: 18), so 256 blocks of those. */
    for (size_t t = 0; t < COUNT(half_types); t++)
        for (unsigned rep = 0; rep < 256; rep++) {
            const uint64_t cs = mix_seed(seed, 12000000 + t * 1000 + rep);
            fill_half(HALF_MODERATE, half_types[t], x, 4096, cs);
            fill_half(HALF_MODERATE, half_types[t], y, 4096, mix_seed(cs, 2));
            const sb_reduction square = { SB_SUM, half_types[t], 0, 0,
                                          SB_MAP_SQUARE };
            const sb_reduction plain = { SB_SUM, half_types[t], 0, 0,
                                         SB_MAP_NONE };
            cases += 2;
            wrong += !check_case(square, false, x, NULL, NULL, 4096, configs,
                                 isa_count, "moderate no mask");
            wrong += !check_case(plain, true, x, y, NULL, 4096, configs,
                                 isa_count, "moderate no mask");
        }
    free(x);
    free(y);
    printf("unmasked blocks: %lu cases x %zu instruction sets, %lu wrong\n",
           cases, isa_count, wrong);
    assert_int_equal(wrong, 0);
}

static void dot_products_match_oracle(void **state)
{
    (void)state;
    static const half_family families[] = {
        HALF_MODERATE, HALF_SPECIALS, HALF_SUBNORMAL, HALF_HUGE,
        HALF_CANCELLATION };
    static const size_t sizes[] = { 0, 1, 16, 17, 33, 255, 257, 4097,
                                    100003 };
    uint16_t *x = checked_malloc(100003 * sizeof *x);
    uint16_t *y = checked_malloc(100003 * sizeof *y);
    sb_host_options configs[6];
    size_t config_count = 0;
    for (size_t i = 0; i < isa_count; i++)
        for (unsigned t = 1; t <= 2; t++)
            configs[config_count++] = (sb_host_options){ t, isas[i] };
    unsigned long cases = 0, wrong = 0;
    for (size_t t = 0; t < COUNT(half_types); t++)
        for (size_t a = 0; a < COUNT(accumulators); a++)
            for (unsigned flags = 0; flags <= SB_SKIP_NAN;
                 flags += SB_SKIP_NAN)
                for (size_t f = 0; f < COUNT(families); f++)
                    for (size_t s = 0; s < COUNT(sizes); s++) {
                        const sb_reduction r = { SB_SUM, half_types[t],
                                                 accumulators[a], flags,
                                                 SB_MAP_NONE };
                        const size_t n = sizes[s];
                        const uint64_t cs = mix_seed(seed, 9000000 +
                            t * 100000 + a * 10000 + flags * 1000 + f * 100 + s);
                        fill_half(families[f], r.input, x, n, cs);
                        fill_half(families[(f + 1) % COUNT(families)],
                                  r.input, y, n, mix_seed(cs, 2));
                        const mask_kind mk = (mask_kind)((s + f) % MASK_COUNT);
                        unsigned char *mask = make_mask(mk, n, mix_seed(cs, 1));
                        char what[64];
                        snprintf(what, sizeof what, "%s mask %s",
                                 half_family_name(families[f]), mask_name(mk));
                        cases++;
                        wrong += !check_case(r, true, x, y, mask, n,
                                             n > 4097 ? configs : NULL,
                                             n > 4097 ? config_count : 1,
                                             what);
                        free(mask);
                    }
    free(x);
    free(y);
    printf("dot products: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* Single steps: a sum of two elements is one rounded addition ((+0 + a)
 * is a exactly), a one-term dot product one rounded multiplication. Half
 * the operands are random patterns; in the other half the second operand's
 * exponent is chosen so that the exact result lands near the edges, where
 * host_half.h's argument is at its finest: around the smallest subnormal,
 * the subnormal/normal boundary and the overflow threshold. */
static void single_steps_round_as_the_oracle_at_the_edges(void **state)
{
    (void)state;
    enum { PAIRS = 60000 };
    uint64_t rng = mix_seed(seed, 424242);
    unsigned long cases = 0, wrong = 0;
    for (size_t t = 0; t < COUNT(half_types); t++) {
        const half_format *f = half_format_of(half_types[t]);
        const int emin = 1 - (int)f->bias, emax = (int)f->bias;
        const int edges[] = { emin - (int)f->fraction_bits - 1, emin - 1,
                              emin, emax, emax + 1 };
        for (unsigned i = 0; i < PAIRS; i++) {
            uint16_t x[2], y[1];
            x[0] = (uint16_t)splitmix64(&rng);
            x[1] = (uint16_t)splitmix64(&rng);
            const bool product = i % 2 == 1;
            if (random_below(&rng, 2) == 0) {
                const unsigned field0 = (x[0] >> f->fraction_bits) &
                                        f->field_max;
                if (field0 != 0 && field0 != f->field_max) {
                    const int e0 = (int)field0 - (int)f->bias;
                    const int target = edges[random_below(&rng, COUNT(edges))]
                                     + (int)random_below(&rng, 3) - 1;
                    /* product: e0 + e1 ~ target; sum: e1 ~ target, with a
                     * sign that may cancel. */
                    const int e1 = product ? target - e0 : target;
                    const int field1 = e1 + (int)f->bias;
                    if (field1 >= 1 && field1 < (int)f->field_max)
                        x[1] = half_pattern(f, (unsigned)random_below(&rng, 2),
                                       (unsigned)field1,
                                       (unsigned)splitmix64(&rng));
                }
            }
            const sb_reduction r = { SB_SUM, half_types[t], 0, 0,
                                     SB_MAP_NONE };
            y[0] = x[1];
            cases++;
            wrong += product ? !check_case(r, true, x, y, NULL, 1, NULL, 1,
                                           "single product")
                             : !check_case(r, false, x, NULL, NULL, 2, NULL,
                                           1, "single sum");
        }
    }
    printf("single steps: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Partials
 * ---------------------------------------------------------------------- */

/* The pieces [cuts[i-1], cuts[i]) into partials of their own, merged in
 * a random grouping (adjacent pairs), finished; or (sequential) all
 * appended to one partial. Status and bits as the oracle's. */
static bool partial_case(sb_reduction r, bool dot, const uint16_t *x,
                         const uint16_t *y, const unsigned char *mask,
                         size_t n, uint64_t *rng, bool sequential)
{
    enum { MAX_PIECES = 6 };
    const size_t k = 1 + (size_t)random_below(rng, MAX_PIECES - 1);
    size_t cuts[MAX_PIECES + 1];
    random_cuts(rng, n, k - 1, cuts + 1);
    cuts[0] = 0;
    cuts[k] = n;
    static sb_partial parts[MAX_PIECES];
    size_t count = sequential ? 1 : k;
    for (size_t i = 0; i < count; i++)
        if (sb_partial_init(&parts[i], r, sequential ? 0 : cuts[i]) != SB_OK)
            return false;
    for (size_t i = 0; i < k; i++) {
        sb_partial *p = &parts[sequential ? 0 : i];
        const size_t b = cuts[i], len = cuts[i + 1] - cuts[i];
        const sb_status s = dot
            ? sb_partial_add_dot_host(p, x + b, y + b, mask ? mask + b : NULL,
                                      len)
            : sb_partial_add_host(p, x + b, mask ? mask + b : NULL, len);
        if (s != SB_OK) {
            fprintf(stderr, "partial add: %s (%s)\n", status_name(s),
                    sb_error_detail());
            return false;
        }
    }
    while (count > 1) {
        const size_t at = (size_t)random_below(rng, count - 1);
        if (sb_partial_merge(&parts[at], &parts[at + 1]) != SB_OK) {
            fprintf(stderr, "merge: %s\n", sb_error_detail());
            return false;
        }
        memmove(&parts[at + 1], &parts[at + 2],
                (count - at - 2) * sizeof parts[0]);
        count--;
    }
    unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status expected = dot ? oracle_dot(r, x, y, mask, n, want)
                                   : oracle_reduce(r, x, mask, n, want);
    const sb_status s = sb_partial_finish(&parts[0], got);
    if (s != expected || memcmp(got, want, sizeof got) != 0) {
        char text[96];
        fprintf(stderr, "MISMATCH partial%s %s n=%zu pieces %zu\n",
                dot ? " dot" : "", reduction_text(r, text, sizeof text), n, k);
        print_run("oracle", r, expected, want);
        print_run("library", r, s, got);
        return false;
    }
    return true;
}

static void partials_match_oracle_at_any_cut(void **state)
{
    (void)state;
    static const size_t sizes[] = { 0, 5, 17, 100, 1000, 5003, 70001 };
    sb_reduction rs[MAX_REDUCTIONS];
    const size_t count = all_reductions(rs);
    uint16_t *x = checked_malloc(70001 * sizeof *x);
    uint16_t *y = checked_malloc(70001 * sizeof *y);
    uint64_t rng = mix_seed(seed, 31337);
    unsigned long cases = 0, wrong = 0;
    for (size_t k = 0; k < count; k++)
        for (size_t s = 0; s < COUNT(sizes); s++) {
            const size_t n = sizes[s];
            if (n > 5003 && rs[k].map != SB_MAP_NONE)
                continue;
            size_t family_count;
            const half_family *families = families_of(rs[k].op,
                                                      &family_count);
            const half_family family = families[(k + s) % family_count];
            const uint64_t cs = mix_seed(seed, 5000000 + k * 100 + s);
            fill_half(family, rs[k].input, x, n, cs);
            unsigned char *mask = make_mask((mask_kind)((k + s) % MASK_COUNT),
                                            n, mix_seed(cs, 1));
            for (int sequential = 0; sequential <= 1; sequential++) {
                cases++;
                wrong += !partial_case(rs[k], false, x, NULL, mask, n, &rng,
                                       sequential != 0);
            }
            if (rs[k].op == SB_SUM && rs[k].map == SB_MAP_NONE) {
                fill_half(HALF_MODERATE, rs[k].input, y, n, mix_seed(cs, 2));
                cases++;
                wrong += !partial_case(rs[k], true, x, y, mask, n, &rng,
                                       false);
            }
            free(mask);
        }
    free(x);
    free(y);
    printf("partials: %lu cases, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Types, sizes and refusals
 * ---------------------------------------------------------------------- */

static void half_types_have_names_sizes_and_result_sizes(void **state)
{
    (void)state;
    assert_int_equal(SB_F16, 11);
    assert_int_equal(SB_BF16, 12);
    assert_int_equal(sb_type_size(SB_F16), 2);
    assert_int_equal(sb_type_size(SB_BF16), 2);
    assert_string_equal(sb_type_name(SB_F16), "f16");
    assert_string_equal(sb_type_name(SB_BF16), "bf16");
    assert_int_equal(sb_type_size((sb_type)13), 0);
    for (size_t t = 0; t < COUNT(half_types); t++) {
        const sb_type in = half_types[t];
        const sb_reduction same = { SB_SUM, in, 0, 0, SB_MAP_NONE };
        const sb_reduction self = { SB_MAX, in, in, SB_SKIP_NAN, SB_MAP_ABS };
        const sb_reduction f32 = { SB_PROD, in, SB_F32, 0, SB_MAP_SQUARE };
        const sb_reduction f64 = { SB_MIN, in, SB_F64, 0, SB_MAP_NONE };
        const sb_reduction any = { SB_ANY, in, in, SB_SKIP_NAN, SB_MAP_NONE };
        assert_int_equal(sb_result_size(same), 2);
        assert_int_equal(sb_result_size(self), 2);
        assert_int_equal(sb_result_size(f32), 4);
        assert_int_equal(sb_result_size(f64), 8);
        assert_int_equal(sb_result_size(any), 1);
        assert_int_equal(oracle_result_size(self), 2);
        assert_int_equal(sb_reduction_check(self), SB_OK);
    }
}

static void refused_combinations_leave_the_result_untouched(void **state)
{
    (void)state;
    static const struct {
        sb_reduction r;
        const char  *detail;   /* a part of sb_error_detail() */
    } bad[] = {
        { { SB_SUM, SB_F16, SB_I32, 0, 0 }, "f16 -> i32" },
        { { SB_SUM, SB_F16, SB_I64, 0, 0 }, "f16 -> i64" },
        { { SB_MAX, SB_F16, SB_U32, 0, 0 }, "f16 -> u32" },
        { { SB_SUM, SB_BF16, SB_I32, 0, 0 }, "bf16 -> i32" },
        { { SB_MIN, SB_BF16, SB_U64, 0, 0 }, "bf16 -> u64" },
        { { SB_SUM, SB_F16, SB_BF16, 0, 0 }, "f16 -> bf16" },
        { { SB_SUM, SB_BF16, SB_F16, 0, 0 }, "bf16 -> f16" },
        { { SB_SUM, SB_F32, SB_F16, 0, 0 }, "f32 -> f16" },
        { { SB_SUM, SB_F32, SB_BF16, 0, 0 }, "f32 -> bf16" },
        { { SB_SUM, SB_I8, SB_F16, 0, 0 }, "i8 -> f16" },
        { { SB_MAX, SB_U16, SB_BF16, 0, 0 }, "u16 -> bf16" },
        { { SB_SUM, SB_F16, 0, SB_WRAP, 0 }, "SB_WRAP" },
        { { SB_PROD, SB_BF16, SB_F32, SB_WRAP, 0 }, "SB_WRAP" },
        { { SB_ANY, SB_F16, 0, SB_WRAP, 0 }, "SB_WRAP" },
        { { SB_ALL, SB_BF16, SB_F32, 0, 0 }, "accumulator" },
        { { SB_ANY, SB_F16, 0, 0, SB_MAP_ABS }, "map" },
    };
    const uint16_t x[3] = { 0x3C00, 0x3C00, 0x3C00 };
    unsigned wrong = 0;
    for (size_t k = 0; k < COUNT(bad); k++) {
        const sb_reduction r = bad[k].r;
        unsigned char out[RESULT_BUFFER];
        memset(out, RESULT_SENTINEL, sizeof out);
        sb_status s = sb_reduce_host(r, x, NULL, 3, out);
        bool ok = s == SB_INVALID_ARGUMENT && untouched(out) &&
                  strstr(sb_error_detail(), bad[k].detail) != NULL;
        if (r.op == SB_SUM && r.map == SB_MAP_NONE) {
            s = sb_dot_host(r, x, x, NULL, 3, out);
            ok = ok && s == SB_INVALID_ARGUMENT && untouched(out) &&
                 sb_error_detail()[0] != '\0';
        }
        sb_partial p;
        ok = ok && sb_partial_init(&p, r, 0) == SB_INVALID_ARGUMENT &&
             sb_error_detail()[0] != '\0';
        ok = ok && sb_reduction_check(r) == SB_INVALID_ARGUMENT &&
             sb_result_size(r) == 0 && !oracle_reduction_is_valid(r) &&
             oracle_reduce(r, x, NULL, 3, out) == SB_INVALID_ARGUMENT &&
             untouched(out);
        if (!ok) {
            wrong++;
            char text[96];
            fprintf(stderr, "refusal of %s: status %s, detail '%s'\n",
                    reduction_text(r, text, sizeof text), status_name(s),
                    sb_error_detail());
        }
    }
    /* A dot product with a map is refused as for every type. */
    unsigned char out[RESULT_BUFFER];
    memset(out, RESULT_SENTINEL, sizeof out);
    const sb_reduction mapped = { SB_SUM, SB_F16, 0, 0, SB_MAP_SQUARE };
    assert_int_equal(sb_dot_host(mapped, x, x, NULL, 3, out),
                     SB_INVALID_ARGUMENT);
    assert_true(untouched(out));
    assert_int_equal(wrong, 0);
}

int main(void)
{
    seed = test_seed(20260611u);
    find_isas();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(half_types_have_names_sizes_and_result_sizes),
        cmocka_unit_test(hand_examples_hold_on_oracle_and_library),
        cmocka_unit_test(refused_combinations_leave_the_result_untouched),
        cmocka_unit_test(single_steps_round_as_the_oracle_at_the_edges),
        cmocka_unit_test(reductions_match_oracle_at_small_sizes),
        cmocka_unit_test(large_inputs_match_oracle_on_any_threads_and_isa),
        cmocka_unit_test(unmasked_blocks_match_oracle_on_every_isa),
        cmocka_unit_test(dot_products_match_oracle),
        cmocka_unit_test(partials_match_oracle_at_any_cut),
    };
    return cmocka_run_group_tests_name("host_half", tests, NULL, NULL);
}
