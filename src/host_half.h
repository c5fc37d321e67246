/* host_half.h: binary16 (f16) and bfloat16 (bf16) on the host, in integer
 * bit operations only (no _Float16, no F16C: the bits must not depend on
 * the compiler or the CPU). The one exception is the AVX-512 and AVX2
 * folds of full f16 blocks (host_kernels.c; the AVX2 build has F16C),
 * which convert with vcvtph2ps (a conversion to binary32 is exact, so
 * nothing there can depend on it) and round an f16 accumulator's steps
 * with vcvtps2ph (IEEE nearest even, the same bits as sb__round_f16() on
 * every non-NaN binary32, compared over all 2^32; NaNs made canonical).
 *
 * The host path computes a half accumulator in binary32: every f16 and
 * bf16 value is exactly a float, so a node holds its value as a float that
 * is always exactly a value of the half type. Each + or * is one binary32
 * operation on two such values, whose result is then rounded once to the
 * half type (sb__round_f16(), sb__round_bf16()); min, max and abs are
 * exact on the floats. docs/order.md asks for the exact result rounded
 * once; why the binary32 step followed by a second rounding gives exactly
 * that:
 *
 * Double rounding (first to a format of q bits, then to one of p bits, both
 * nearest even) equals one rounding to p bits when q >= 2p + 2, for +, -,
 * *, / and sqrt (Figueroa, "When is double rounding innocuous?", 1995), if
 * both roundings see unbounded exponents. binary32 has q = 24; f16 p = 11
 * (2p + 2 = 24) and bf16 p = 8 (18). What is left is the exponent range.
 *
 * f16 in binary32. Every f16 value is a multiple of 2^-24 of magnitude at
 * most 65504. A sum of two is a multiple of 2^-24 below 2^17: a binary32
 * normal (or 0), never rounded by the range, and where the f16 result is
 * subnormal (below 2^-14) the sum is exactly an f16 value (a multiple of
 * 2^-24), so nothing rounds there. A product has at most 22 significant
 * bits and lies in [2^-48, 2^32]: exact in binary32, so it is rounded once,
 * by sb__round_f16(), subnormal f16 results included. Overflow: the f16
 * rounding below works on the binary32 value with f16's precision and an
 * unbounded exponent and returns inf when that rounding reaches 2^16, as
 * IEEE 754 defines overflow (so 65519.99 -> 65504, 65520 -> inf: the tie
 * goes to the even 2^16). binary32 itself never overflows here.
 *
 * bf16 in binary32. bf16 has binary32's exponent range, so the binary32
 * step can underflow (below 2^-126 its spacing is 2^-149) or overflow.
 *   - Normal range: a product of two bf16 values has at most 16
 *     significant bits, so when it is at least 2^-126 it is exactly a
 *     binary32 (or at least 2^128, see overflow); a sum there has the full
 *     24 bits and Figueroa's bound applies.
 *   - Sums below 2^-109: every bf16 value is a multiple of 2^-133, and so
 *     is a sum; below 2^-109 a multiple of 2^-133 is exactly a binary32
 *     (24 bits from 2^-133 up), so the sum is exact and rounded once.
 *   - Products below 2^-126: binary32 and bf16 are both fixed point there,
 *     with spacings 2^-149 and 2^-133. A second rounding can only differ
 *     from one rounding when the binary32 result lands on a bf16 midpoint
 *     (an odd multiple of 2^-134) that the exact product m is not. m has
 *     at most 16 significant bits, m = M 2^E with M < 2^16. If E >= -149,
 *     m - midpoint is a non-zero multiple of 2^-149, at least one binary32
 *     spacing away, so binary32 does not round m onto the midpoint. If
 *     E < -149, m < 2^-134, and the only midpoint within reach is 2^-134
 *     itself, which rounds (tie, to even) to 0, as m does.
 *   - Overflow: the binary32 step gives inf only when the exact result is
 *     at least binary32's overflow threshold (2 - 2^-24) 2^127, above
 *     bf16's, (2 - 2^-8) 2^127, so inf is right. A finite binary32 result
 *     at or above bf16's threshold carries into the exponent field in
 *     sb__round_bf16() and becomes inf, as the single rounding does.
 * The subnormal arguments need the binary32 arithmetic to keep subnormals:
 * the host path runs in the default environment (fpenv.c: no flush to zero,
 * no denormals-are-zero). tests/test_host_half.c checks all of it against
 * the oracle, which rounds the exact results (exact double arithmetic and a
 * sum's exact error) by choosing between neighbours. */
#ifndef SB_HOST_HALF_H
#define SB_HOST_HALF_H

#include <stdint.h>
#include <string.h>

#define SB_F16_CANONICAL_NAN  0x7E00u
#define SB_BF16_CANONICAL_NAN 0x7FC0u

static inline uint32_t sb__float_bits(float v)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    return b;
}

static inline float sb__bits_float(uint32_t b)
{
    float v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* f16 bits -> float, exactly, without branches (so that a loop of them
 * vectorises; the loop with a normalising branch ran the f16 -> f32 sum
 * at 1 GB/s). A NaN stays a NaN (its payload moved up; the result is
 * canonicalised anyway). Normal: the exponent field rebased by 127 - 15.
 * Subnormal or zero: f 2^-24 with f < 2^10, an exact int -> float
 * conversion and an exact scaling to a binary32 normal (no subnormal in
 * or out, so no flush mode can touch it); -0.0 keeps its sign. */
static inline float sb__f16_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t magnitude = h & 0x7FFFu;
    const uint32_t normal = sign | ((magnitude << 13) + (112u << 23));
    const uint32_t special = sign | 0x7F800000u | ((magnitude & 0x3FFu) << 13);
    const uint32_t small = sign |
        sb__float_bits((float)(int32_t)magnitude * 0x1p-24f);
    return sb__bits_float(magnitude >= 0x7C00u ? special
                          : magnitude >= 0x400u ? normal : small);
}

/* sb__f16_to_float() on a vector of uint32 lanes holding f16 bits, for
 * the vector loops (the fused loads of host_kernels.c, the blocks of
 * host_prepare.c): GCC does not vectorise the scalar decode's selects
 * (f16 -> f32 sums at 2.2 GB/s, AMD EPYC). The bits moved into binary32's
 * place (h << 13) are a binary32 of h's value times 2^-112, subnormal for
 * h's subnormals; times 2^112 is exact, since the host path keeps
 * subnormals (fpenv.c); inf and NaN get the all-ones exponent. VU32 and
 * VF: the uint32_t and float vector types of h's width (GCC's
 * vector_size; a cast between them keeps the bits). */
#define SB_VEC_F16_TO_F32(h, VU32, VF)                                      \
    ((VF)(((h) & 0x8000u) << 16 |                                           \
          (VU32)((VF)(((h) & 0x7FFFu) << 13) * 0x1p112f) |                  \
          ((VU32)(((h) & 0x7FFFu) >= 0x7C00u) & 0x7F800000u)))

/* bf16 bits -> float, exactly: the upper half of the binary32. */
static inline float sb__bf16_to_float(uint16_t h)
{
    return sb__bits_float((uint32_t)h << 16);
}

/* float -> f16 bits, rounded to nearest even; subnormal results kept;
 * overflow to +-inf; any NaN -> 0x7E00. */
static inline uint16_t sb__float_to_f16(float v)
{
    const uint32_t b = sb__float_bits(v);
    const uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    const uint32_t a = b & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return SB_F16_CANONICAL_NAN;
    if (a >= 0x477FF000u)          /* >= 65520 (inf included): the tie at
                                      65520 goes to the even 2^16: inf */
        return (uint16_t)(sign | 0x7C00u);
    if (a >= 0x38800000u) {        /* >= 2^-14: an f16 normal, unless it
                                      rounds up to the next binade, which
                                      the carry into the exponent does */
        const uint32_t rounded = a + 0xFFFu + ((a >> 13) & 1u);
        return (uint16_t)(sign | ((rounded - 0x38000000u) >> 13));
    }
    if (a < 0x33000000u)           /* < 2^-25: below half the smallest
                                      subnormal (2^-25 itself is a tie to
                                      0, handled below) */
        return sign;
    /* Subnormal result (or the smallest normal, by a carry): the value in
     * units of 2^-24 is m 2^(e-150) / 2^-24 = m 2^(e-126), with m the
     * 24-bit significand and e the binary32 exponent field (102..112), so
     * shift m right by 126 - e (14..24) bits, rounding to nearest even. */
    const uint32_t e = a >> 23;
    const uint32_t m = (a & 0x7FFFFFu) | 0x800000u;
    const unsigned shift = 126u - e;
    const uint32_t kept = m >> shift;
    const uint32_t rest = m & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    const uint32_t up = rest > half || (rest == half && (kept & 1u));
    return (uint16_t)(sign | (kept + up));  /* 0x400: the smallest normal */
}

/* float -> bf16 bits, rounded to nearest even; subnormal results kept;
 * overflow to +-inf; any NaN -> 0x7FC0. bf16 is the upper half of the
 * binary32, with the same exponent field, so rounding is on the bits:
 * adding 0x7FFF (+1 when the kept part is odd) carries into bit 16 exactly
 * when the lower half is above one half (or equal, towards even), and a
 * carry out of the fraction raises the exponent, up to inf. Subnormals are
 * fixed point in both, so the same rule holds there. */
static inline uint16_t sb__float_to_bf16(float v)
{
    const uint32_t b = sb__float_bits(v);
    if ((b & 0x7FFFFFFFu) > 0x7F800000u)
        return SB_BF16_CANONICAL_NAN;
    return (uint16_t)((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

/* A binary32 result rounded to the half type, back as a float (exactly
 * the half value; a NaN stays a NaN). */
static inline float sb__round_f16(float v)
{
    return sb__f16_to_float(sb__float_to_f16(v));
}

static inline float sb__round_bf16(float v)
{
    return sb__bf16_to_float(sb__float_to_bf16(v));
}

#endif /* SB_HOST_HALF_H */
