/* tests/test_softfloat.c: cl/softfloat.cl, compiled here on the host as
 * C, against the host's own IEEE 754 arithmetic (SSE2: round to nearest
 * even, subnormals kept; the test checks that the environment is that).
 *
 * The kernels of the guarded and software modes compute with these very
 * functions wherever a device cannot, so every addition, multiplication,
 * comparison and conversion they may meet is compared bit for bit: random
 * bit patterns (all classes: NaN, infinities, zeros, subnormals, normals),
 * operands near each other (cancellation) and near the subnormal and
 * overflow boundaries, exhaustive pairs of a table of special values, and
 * every f32 -> f64 conversion class; and cl/arith_half.cl, the kernels'
 * f16/bf16 conversions and roundings, against src/host_half.h (the host
 * path's): every 16-bit pattern, and binary32 patterns around every
 * rounding boundary. NaN results must be NaN (the
 * functions return the canonical one; payloads are not promised). The
 * seed is printed; SAMEBITS_TEST_SEED replays a run. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "support.h"

/* What cl/softfloat.cl needs of OpenCL C, in C. */
typedef uint32_t uint;
typedef uint64_t ulong;
#define SB_FN static inline
#define SB_FN_INLINE static inline
static inline uint clz32(uint x) { return x ? (uint)__builtin_clz(x) : 32u; }
static inline uint clz64(ulong x) { return x ? (uint)__builtin_clzll(x) : 64u; }
#define clz(x) _Generic((x), uint: clz32, ulong: clz64)(x)
static inline ulong mul_hi(ulong a, ulong b)
{
    return (ulong)(((unsigned __int128)a * b) >> 64);
}
#include "../cl/softfloat.cl"
#include "../cl/arith_half.cl"
#include "../src/host_half.h"

static uint f32_bits(float f) { uint b; memcpy(&b, &f, 4); return b; }
static float f32_of(uint b) { float f; memcpy(&f, &b, 4); return f; }
static ulong f64_bits(double d) { ulong b; memcpy(&b, &d, 8); return b; }
static double f64_of(ulong b) { double d; memcpy(&d, &b, 8); return d; }

static unsigned long failures;

static void check32(const char *op, uint a, uint b, uint got, float want_f)
{
    const uint want = f32_bits(want_f);
    const int ok = isnan(want_f) ? sb_f32_is_nan(got) : got == want;
    if (!ok && failures++ < 20)
        fprintf(stderr, "f32 %s %08x %08x: got %08x, want %08x\n", op, a, b,
                got, want);
}

static void check64(const char *op, ulong a, ulong b, ulong got, double want_d)
{
    const ulong want = f64_bits(want_d);
    const int ok = isnan(want_d) ? sb_f64_is_nan(got) : got == want;
    if (!ok && failures++ < 20)
        fprintf(stderr, "f64 %s %016llx %016llx: got %016llx, want %016llx\n",
                op, (unsigned long long)a, (unsigned long long)b,
                (unsigned long long)got, (unsigned long long)want);
}

static void pair32(uint a, uint b)
{
    volatile float x = f32_of(a), y = f32_of(b);
    check32("+", a, b, sb_f32_add(a, b), x + y);
    check32("*", a, b, sb_f32_mul(a, b), x * y);
    const int lt = sb_f32_less(b, a), want_lt = y < x;
    if (lt != want_lt && failures++ < 20)
        fprintf(stderr, "f32 %08x < %08x: got %d\n", b, a, lt);
    const int on_grid = sb_f32_on_normal_grid(a);
    const int want_grid = isnan(x) || isinf(x)
                        || fmod(fabs((double)x), 0x1p-126) == 0.0;
    if (on_grid != want_grid && failures++ < 20)
        fprintf(stderr, "f32 on grid %08x: got %d\n", a, on_grid);
}

static void pair64(ulong a, ulong b)
{
    volatile double x = f64_of(a), y = f64_of(b);
    check64("+", a, b, sb_f64_add(a, b), x + y);
    check64("*", a, b, sb_f64_mul(a, b), x * y);
    const int lt = sb_f64_less(b, a), want_lt = y < x;
    if (lt != want_lt && failures++ < 20)
        fprintf(stderr, "f64 %016llx < %016llx: got %d\n",
                (unsigned long long)b, (unsigned long long)a, lt);
}

/* A random f32: half the time uniform bits, else an exponent chosen from
 * the edges (subnormal, near the smallest normal, near overflow) or
 * anywhere, with a random fraction. */
static uint random_f32(uint64_t *st)
{
    const uint64_t r = splitmix64(st);
    if (r & 1)
        return (uint)(r >> 32);
    static const uint edges[] = { 0, 1, 2, 23, 24, 25, 126, 127, 128, 253,
                                  254, 255 };
    const uint e = (r & 6) ? edges[(r >> 8) % 12] : (uint)((r >> 8) % 256);
    uint frac = (uint)(r >> 40) & 0x7FFFFFu;
    if ((r >> 20) % 4 == 0)
        frac &= 0x7u << 20;                         /* few bits set */
    else if ((r >> 20) % 4 == 1)                    /* all ones, nearly: */
        frac = 0x7FFFFFu - ((uint)(r >> 24) & 3u);  /* rounding carries */
    return (uint)((r >> 2) & 1) << 31 | e << 23 | frac;
}

static ulong random_f64(uint64_t *st)
{
    const uint64_t r = splitmix64(st), f = splitmix64(st);
    if (r & 1)
        return f;
    static const uint edges[] = { 0, 1, 2, 52, 53, 54, 1022, 1023, 1024,
                                  2045, 2046, 2047 };
    const uint e = (r & 6) ? edges[(r >> 8) % 12] : (uint)((r >> 8) % 2048);
    ulong frac = f & SB_F64_FRAC;
    if ((r >> 20) % 4 == 0)
        frac &= 0x7UL << 49;
    else if ((r >> 20) % 4 == 1)
        frac = SB_F64_FRAC - ((r >> 24) & 3u);
    return (ulong)((r >> 2) & 1) << 63 | (ulong)e << 52 | frac;
}

static void host_is_ieee(void)
{
    /* The comparison needs the host to keep subnormals and round to
     * nearest: the default environment, which this checks. */
    assert_int_equal(fegetround(), FE_TONEAREST);
    volatile float tiny = 0x1p-149f;
    assert_true(tiny / 2.0f == 0.0f && tiny * 2.0f == 0x1p-148f);
    volatile double dtiny = 0x1p-1074;
    assert_true(dtiny * 3.0 == 0x3p-1074);
}

static void addition_and_multiplication_round_like_ieee(void **state)
{
    (void)state;
    host_is_ieee();
    uint64_t st = mix_seed(test_seed(0x736f6674666c74ull), 1);
    failures = 0;
    for (int i = 0; i < 2000000; i++) {
        uint a = random_f32(&st), b = random_f32(&st);
        if (i % 4 == 1)            /* cancellation: b near -a */
            b = (a ^ 0x80000000u) + (uint)(splitmix64(&st) % 5) - 2u;
        pair32(a, b);
        ulong c = random_f64(&st), d = random_f64(&st);
        if (i % 4 == 1)
            d = (c ^ SB_F64_SIGN) + (splitmix64(&st) % 5) - 2u;
        pair64(c, d);
    }
    /* Every pair of a table of special values. */
    static const float sf[] = { 0.0f, -0.0f, 1.0f, -1.0f, 0x1p-149f,
        -0x1p-149f, 0x1p-126f, -0x1p-126f, 0x1.fffffcp-127f, 0x1p-127f,
        0x1.000002p-126f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, NAN,
        0x1p-103f, 0x1p-104f, 0x1.8p-126f, 3.0f, 0x1p127f, 0x1p-63f };
    static const double sd[] = { 0.0, -0.0, 1.0, -1.0, 0x1p-1074,
        -0x1p-1074, 0x1p-1022, -0x1p-1022, 0x1.ffffffffffffep-1023,
        0x1p-1023, 0x1.0000000000001p-1022, DBL_MAX, -DBL_MAX, INFINITY,
        -INFINITY, NAN, 0x1p-970, 0x1p-971, 3.0, 0x1p1023, 0x1p-511,
        0x1.8p-1022, 0x1p-537 };
    for (size_t i = 0; i < sizeof sf / sizeof sf[0]; i++)
        for (size_t j = 0; j < sizeof sf / sizeof sf[0]; j++)
            pair32(f32_bits(sf[i]), f32_bits(sf[j]));
    for (size_t i = 0; i < sizeof sd / sizeof sd[0]; i++)
        for (size_t j = 0; j < sizeof sd / sizeof sd[0]; j++)
            pair64(f64_bits(sd[i]), f64_bits(sd[j]));
    printf("%lu mismatches\n", failures);
    assert_int_equal(failures, 0);
}

static void conversions_to_f64_are_exact(void **state)
{
    (void)state;
    host_is_ieee();
    failures = 0;
    /* Every f32 exponent, with fractions of few and many bits. */
    for (uint e = 0; e < 256; e++)
        for (uint k = 0; k < 64; k++) {
            const uint frac = k < 24 ? (k ? 1u << (k - 1) : 0u)
                            : (k * 0x9E3779B9u) & 0x7FFFFFu;
            for (uint sign = 0; sign < 2; sign++) {
                const uint a = sign << 31 | e << 23 | frac;
                const volatile float x = f32_of(a);
                check64("from f32", a, 0, sb_f64_from_f32(a), (double)x);
            }
        }
    static const long ints[] = { 0, 1, -1, 127, -128, 255, 32767, -32768,
        65535, 2147483647L, -2147483647L - 1, 4294967295L, 12345, -9999 };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        check64("from long", (ulong)ints[i], 0, sb_f64_from_long(ints[i]),
                (double)ints[i]);
        if (ints[i] >= 0)
            check64("from ulong", (ulong)ints[i], 0,
                    sb_f64_from_ulong((ulong)ints[i]), (double)ints[i]);
    }
    printf("%lu mismatches\n", failures);
    assert_int_equal(failures, 0);
}

/* cl/arith_half.cl gives the host path's bits (src/host_half.h): every
 * half pattern converted, and binary32 patterns of every exponent with
 * fractions at and around the half types' rounding points rounded. */
static void half_conversions_match_the_host_path(void **state)
{
    (void)state;
    failures = 0;
    for (uint h = 0; h < 0x10000u; h++) {
        const uint f16 = f32_bits(sb__f16_to_float((uint16_t)h));
        const uint bf16 = f32_bits(sb__bf16_to_float((uint16_t)h));
        if ((sb_f16_to_f32_bits(h) != f16 || sb_bf16_to_f32_bits(h) != bf16)
            && failures++ < 20)
            fprintf(stderr, "half %04x: f16 %08x (host %08x), bf16 %08x "
                    "(host %08x)\n", h, sb_f16_to_f32_bits(h), f16,
                    sb_bf16_to_f32_bits(h), bf16);
    }
    uint64_t rng = 0x5EED0F16ULL;
    for (uint e = 0; e < 256; e++)
        for (uint k = 0; k < 4096; k++) {
            /* Low bits near 0, the midpoints and the ends of the f16
             * (13 dropped bits) and bf16 (16) grids, and random ones. */
            const uint r = (uint)splitmix64(&rng);
            const uint low = k < 1024 ? (k & 0xFu) + (k >> 4 & 3u) * 0x0FFCu
                           : k < 2048 ? 0x7FFFu + (k & 3u) - 1u
                           : k < 3072 ? 0x0FFFu + (k & 3u) - 1u : r;
            const uint a = (r & 0x80000000u) | e << 23
                         | ((r & 0x007F0000u) | (low & 0xFFFFu));
            const uint want16 = sb__float_to_f16(f32_of(a));
            const uint wantb = sb__float_to_bf16(f32_of(a));
            const uint round16 = f32_bits(sb__round_f16(f32_of(a)));
            const uint roundb = f32_bits(sb__round_bf16(f32_of(a)));
            if ((sb_f32_to_f16_bits(a) != want16 ||
                 sb_f32_to_bf16_bits(a) != wantb ||
                 sb_round_f16(a) != round16 || sb_round_bf16(a) != roundb)
                && failures++ < 20)
                fprintf(stderr, "f32 %08x: f16 %04x (host %04x), bf16 %04x "
                        "(host %04x)\n", a, sb_f32_to_f16_bits(a), want16,
                        sb_f32_to_bf16_bits(a), wantb);
        }
    printf("%lu mismatches\n", failures);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(addition_and_multiplication_round_like_ieee),
        cmocka_unit_test(conversions_to_f64_are_exact),
        cmocka_unit_test(half_conversions_match_the_host_path),
    };
    return cmocka_run_group_tests_name("softfloat", tests, NULL, NULL);
}
