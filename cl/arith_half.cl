/* arith_half.cl: f16 (IEEE binary16) and bf16 (bfloat16) elements, read as
 * their 16-bit patterns (ushort), so that no device needs cl_khr_fp16 and
 * no half instruction of any device ever touches them.
 *
 *   sb_f16_to_f32_bits(h), sb_bf16_to_f32_bits(h)
 *       the exact binary32 bits of a half value (an f16 subnormal becomes
 *       a binary32 normal; a bf16 subnormal is a binary32 subnormal, which
 *       the f32 modes of arith_float.cl handle like any other);
 *   sb_f32_to_f16_bits(b), sb_f32_to_bf16_bits(b)
 *       binary32 bits rounded to the half type: nearest even, subnormal
 *       results kept, overflow to +-inf, any NaN the canonical 0x7E00 /
 *       0x7FC0;
 *   sb_round_f16(b), sb_round_bf16(b)
 *       the same, back as binary32 bits (exactly the half value).
 *
 * A half accumulator holds its nodes as binary32 values that are exactly
 * half values, as the host path does (src/host_half.h, whose comment
 * proves why one binary32 step followed by one rounding to the half type
 * is the exact result rounded once): arith_float.cl rounds each + and *
 * of such a program with these functions, after the binary32 operation of
 * the device's f32 mode (native, or guarded where the device flushes
 * subnormals, so that the binary32 step keeps them).
 *
 * Integer operations only, in the subset of C that OpenCL C shares with
 * C99 (SB_FN, uint, clz), as softfloat.cl: a port of src/host_half.h,
 * line for line. */

#define SB_F16_QNAN  0x7E00u
#define SB_BF16_QNAN 0x7FC0u

/* f16 bits -> binary32 bits, exactly. A subnormal f16 (exponent field 0),
 * f 2^-24 with 0 < f < 2^10, is a binary32 normal: shift the leading one
 * up to bit 10, each shift lowering the exponent from that of 2^-14. */
SB_FN uint sb_f16_to_f32_bits(uint h)
{
    /* On 32-bit words: the exponent and fraction fields shifted into
     * binary32's places (Oclgrind 21.10 took the normal branch for a
     * negative zero or subnormal when these tests were on the 16-bit
     * value itself). */
    const uint w = (h & 0xFFFFu) << 13;
    const uint sign = (w & 0x10000000u) << 3;
    const uint exponent = w & 0x0F800000u;           /* field << 23 */
    const uint fraction = w & 0x007FE000u;           /* fraction << 13 */
    if (exponent == 0x0F800000u)                     /* inf, NaN */
        return sign | 0x7F800000u | fraction;
    if (exponent != 0u)                              /* normal: +112 */
        return sign | (exponent + 0x38000000u) | fraction;
    if (fraction == 0u)                              /* +-0 */
        return sign;
    /* Shift the leading one up to bit 23 (1 .. 10 places), lowering the
     * field from that of 2^-14 (113) by as much. By clz, not a loop of
     * single shifts: Mesa's rusticl (llvmpipe, LLVM 15) got that loop
     * wrong in programs of 128 leaves per work-item (an f16 sum of f16,
     * 4097 elements: 0x2380 for 0xbc7d; `samebits check` on rusticl). */
    const uint shift = (uint)clz(fraction) - 8u;
    return sign | ((113u - shift) << 23) | ((fraction << shift) & 0x007FFFFFu);
}

/* bf16 bits -> binary32 bits, exactly: the upper half of the binary32. */
SB_FN uint sb_bf16_to_f32_bits(uint h)
{
    return (h & 0xFFFFu) << 16;
}

/* binary32 bits -> f16 bits, rounded to nearest even (src/host_half.h,
 * sb__float_to_f16(), says why each bound is where it is). */
SB_FN uint sb_f32_to_f16_bits(uint b)
{
    const uint sign = (b >> 16) & 0x8000u;
    const uint a = b & 0x7FFFFFFFu;
    if (a > 0x7F800000u)
        return SB_F16_QNAN;
    if (a >= 0x477FF000u)          /* >= 65520, inf included: inf */
        return sign | 0x7C00u;
    if (a >= 0x38800000u) {        /* >= 2^-14: normal, or a carry up */
        const uint rounded = a + 0xFFFu + ((a >> 13) & 1u);
        return sign | ((rounded - 0x38000000u) >> 13);
    }
    if (a < 0x33000000u)           /* < 2^-25: to zero */
        return sign;
    /* Subnormal (or the smallest normal, by a carry): the significand m
     * shifted right by 126 - e (14 .. 24) bits, nearest even. */
    const uint e = a >> 23;
    const uint m = (a & 0x7FFFFFu) | 0x800000u;
    const uint shift = 126u - e;
    const uint kept = m >> shift;
    const uint rest = m & ((1u << shift) - 1u);
    const uint halfway = 1u << (shift - 1u);
    const uint up =
        (rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u;
    return sign | (kept + up);
}

/* binary32 bits -> bf16 bits, rounded to nearest even: the same exponent
 * field, so the rounding is a carry into bit 16 (up to inf; subnormals
 * are fixed point in both). */
SB_FN uint sb_f32_to_bf16_bits(uint b)
{
    if ((b & 0x7FFFFFFFu) > 0x7F800000u)
        return SB_BF16_QNAN;
    return (b + 0x7FFFu + ((b >> 16) & 1u)) >> 16;
}

/* A binary32 result rounded once to the half type, as binary32 bits. */
SB_FN uint sb_round_f16(uint b)
{
    return sb_f16_to_f32_bits(sb_f32_to_f16_bits(b));
}

SB_FN uint sb_round_bf16(uint b)
{
    return sb_bf16_to_f32_bits(sb_f32_to_bf16_bits(b));
}
