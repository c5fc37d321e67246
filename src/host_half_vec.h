/* host_half_vec.h: rounding W binary32 lanes to f16 or bf16 at once, for
 * the host's vector folds of half accumulators (host_kernels.c) and for
 * tests/test_half_rounding_sweep.c, which compares them with the scalar
 * sb__round_f16() / sb__round_bf16() of host_half.h. The includer defines
 * SB_VEC_BYTES and the vector types sb_vf (float), sb_vu32 (uint32_t) and
 * sb_vi32 (int32_t) of that many bytes, and includes <immintrin.h> where
 * AVX-512F or F16C is on. */
#ifndef SB_HOST_HALF_VEC_H
#define SB_HOST_HALF_VEC_H

/* The canonical quiet NaN in the lanes where nan is all ones, r in the
 * others: every rounding below ends so when its NaN must be canonical. */
static inline sb_vf vnan_select(sb_vu32 r, sb_vu32 nan)
{
    return (sb_vf)((r & ~nan) | (0x7FC00000u & nan));
}
/* All ones in the lanes of b that hold a NaN. */
static inline sb_vu32 vis_nan(sb_vu32 b)
{
    return (sb_vu32)((b & 0x7FFFFFFFu) > 0x7F800000u);
}
/* Every NaN lane made the canonical quiet NaN; other lanes unchanged. */
static inline sb_vf vnan_canonical(sb_vf v)
{
    return vnan_select((sb_vu32)v, vis_nan((sb_vu32)v));
}

/* Rounding W floats to the half type, as sb__round_f16() and
 * sb__round_bf16() do one (the same bits: tests/test_half_rounding_sweep.c
 * compares them, and test_host_half compares every half-accumulator path
 * with the oracle). For an f16 or
 * bf16 accumulator each step's binary32 result is rounded so (host_half.h
 * shows why that is the exactly rounded half result), so the steps can
 * run W leaves at a time instead of one scalar chain per leaf.
 * f16 on bits (builds without x86's conversions: SSE2, other CPUs):
 * from 2^-14 up, round the binary32 bits to 11 significant bits
 * (nearest even; a carry moves into the exponent), and 2^16 or more is
 * an overflow to inf (65520, the tie, goes to the even 2^16). Below 2^-14
 * the result is a multiple of 2^-24: adding 0.5 puts |v| where binary32's
 * spacing is 2^-24, rounding it there (nearest even: 0.5 is an even
 * multiple), and subtracting 0.5 again is exact. NaN: the canonical one. */
static inline sb_vf vround_f16_on_bits(sb_vf v)
{
    const sb_vu32 b = (sb_vu32)v;
    const sb_vu32 a = b & 0x7FFFFFFFu;
    const sb_vu32 normal = (a + 0xFFFu + ((a >> 13) & 1u)) & 0xFFFFE000u;
    const sb_vu32 small = (sb_vu32)(((sb_vf)a + 0.5f) - 0.5f);
    const sb_vu32 is_small = (sb_vu32)(a < 0x38800000u);
    const sb_vu32 r = (small & is_small) | (normal & ~is_small);
    const sb_vu32 over = (sb_vu32)(r >= 0x47800000u);
    const sb_vu32 signed_r = ((r & ~over) | (0x7F800000u & over)) |
                             (b & 0x80000000u);
    return vnan_select(signed_r, vis_nan(b));
}
/* The same roundings for the running value of a fold, one step of a
 * chain, with the NaN test left out: a NaN comes out as some NaN, not
 * necessarily the canonical one, and vnan_canonical() makes it so where
 * the chain ends. Every other pattern rounds to the same bits as above.
 * A NaN stays a NaN through the steps: an add or multiply of a NaN is
 * one, and
 *   f16:  the conversions keep it a NaN (vcvtps2ph keeps the top of its
 *         payload and quiets it); without them (SSE2) the bit operations
 *         would make it inf, so there this is the full rounding itself;
 *   bf16: its low 16 bits are 0, as in every value a half fold meets (a
 *         bf16 converted, a rounded step, or a NaN an operation made of
 *         them: the operand's payload, or the default NaN), so the
 *         rounding's carry never reaches the exponent and it comes out
 *         unchanged. A NaN with other low bits could come out as inf,
 *         or as -0 where the carry runs through the exponent into the
 *         sign bit.
 * Two conversions instead of four instructions for f16 on AVX-512 and
 * F16C, five bit operations instead of ten for bf16, at every step. */
static inline sb_vf vround_f16_nan_kept(sb_vf v)
{
#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
    /* AVX-512F converts to binary16 and back itself (vcvtps2ph with
     * nearest even from the immediate: subnormal results kept whatever
     * MXCSR.FTZ says, overflow to inf; vcvtph2ps exact): the IEEE
     * rounding, the same bits as the bit operations on every non-NaN
     * pattern. In place of the bit operations, these took 2^24 f16 sums
     * into f16 on one thread from 9.8 to 14.3 GB/s (AMD EPYC). */
    return (sb_vf)_mm512_cvtph_ps(_mm512_cvtps_ph(
        (__m512)v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif SB_VEC_BYTES == 32 && defined(__F16C__)
    /* F16C's vcvtps2ph and vcvtph2ps on 8 lanes (the AVX2 build): the
     * same instructions and so the same bits as the AVX-512 ones above. */
    return (sb_vf)_mm256_cvtph_ps(_mm256_cvtps_ph(
        (__m256)v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
    return vround_f16_on_bits(v);
#endif
}
static inline sb_vf vround_bf16_nan_kept(sb_vf v)
{
    const sb_vu32 b = (sb_vu32)v;
    return (sb_vf)((b + 0x7FFFu + ((b >> 16) & 1u)) & 0xFFFF0000u);
}

/* f16 with the canonical NaN. The conversions never make a NaN of a
 * non-NaN, and every NaN lane of the input is replaced, so the input's
 * NaN test serves; it runs beside them, not after them, where the
 * rounding is a step of a chain (a combine of two accumulators). */
static inline sb_vf vround_f16(sb_vf v)
{
#if (SB_VEC_BYTES == 64 && defined(__AVX512F__)) || \
    (SB_VEC_BYTES == 32 && defined(__F16C__))
    return vnan_select((sb_vu32)vround_f16_nan_kept(v), vis_nan((sb_vu32)v));
#else
    return vround_f16_on_bits(v);
#endif
}
/* bf16: the upper half of the binary32, rounded on the bits as
 * sb__float_to_bf16() does; NaN: the canonical one. The NaN test is on
 * the input: a NaN with low bits set can round to inf. */
static inline sb_vf vround_bf16(sb_vf v)
{
    return vnan_select((sb_vu32)vround_bf16_nan_kept(v),
                       vis_nan((sb_vu32)v));
}

#endif /* SB_HOST_HALF_VEC_H */
