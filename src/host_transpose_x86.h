/* host_transpose_x86.h: the W x W transposes of host_kernels.c's folds,
 * spelled in x86's own shuffles for the AVX2 and AVX-512 copies, and
 * bf16 leaves made floats in them and in the SSE2 copy (the baseline).
 *
 * The generic transpose (SB_SWAPS_*, host_kernels.c) swaps one bit of
 * the row number with the same bit of the lane number per stage. That
 * pattern is no single x86 instruction: GCC 12 built a 16 x 16 f32
 * transpose from about 60 vpermt2ps, vshufps and vshuff32x4 and 24
 * register copies (vpermt2ps overwrites a source). The textbook sequence
 * below has as many shuffles, but no copies, and the first half of them
 * within 128-bit lanes: unpcklps / unpckhps, then unpcklpd / unpckhpd
 * (AVX2: vshufps), then whole 128-bit lanes (vshuff32x4, vperm2f128).
 * One thread, 2^16 elements in L2, AMD EPYC Zen 5: a 16 x 16 f32 fold
 * of our own went from 16.5 to 26 Gelem/s; in the library (bench,
 * README: Performance) f32 sums from 71 to 79 GB/s and f32 min from 72
 * to 85, f64 and i32 unchanged.
 *
 * The result is the same transpose: R[k] lane l = row l's element k,
 * whatever the element type (the vectors are reinterpreted, never
 * converted), so the bits of every fold are unchanged
 * (tests/test_host_isa.c and test_host_reduce check every ISA copy
 * against the oracle; test_host_half the half rows below).
 * The includer defines SB_VEC_BYTES and includes <immintrin.h>. Always
 * inlined: GCC's inliner left some of the many callers calling one out
 * of line, the rows passing through the stack (f16 |x| sums into f32 at
 * 0.6 of the plain sum). */
#ifndef SB_HOST_TRANSPOSE_X86_H
#define SB_HOST_TRANSPOSE_X86_H

#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
/* 16 x 16 of 32-bit elements: 64 shuffles in 4 stages. */
static inline __attribute__((always_inline)) void
sb_transpose_16x32(__m512 r[16])
{
    __m512 t[16];
    for (int i = 0; i < 8; i++) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 2; j++) {
            const __m512d a = _mm512_castps_pd(t[4 * i + j]);
            const __m512d b = _mm512_castps_pd(t[4 * i + j + 2]);
            r[4 * i + 2 * j] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
            r[4 * i + 2 * j + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
        }
    /* Now lane 4q + c of r[4i + m] is row 4i + c's element 4q + m:
     * the 128-bit lane q still has to move to row bits 2 and 3. */
    for (int i = 0; i < 4; i++)
        for (int h = 0; h < 2; h++) {
            const int a = i + 8 * h;
            t[a] = _mm512_shuffle_f32x4(r[a], r[a + 4], 0x88);
            t[a + 4] = _mm512_shuffle_f32x4(r[a], r[a + 4], 0xDD);
        }
    for (int i = 0; i < 8; i++) {
        r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
        r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
    }
}
/* 8 x 8 of 64-bit elements: 24 shuffles in 3 stages. */
static inline __attribute__((always_inline)) void
sb_transpose_8x64(__m512d r[8])
{
    __m512d t[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_pd(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_pd(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const int a = 4 * i + j;
            r[a] = _mm512_shuffle_f64x2(t[a], t[a + 2], 0x88);
            r[a + 2] = _mm512_shuffle_f64x2(t[a], t[a + 2], 0xDD);
        }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_shuffle_f64x2(r[i], r[i + 4], 0x88);
        t[i + 4] = _mm512_shuffle_f64x2(r[i], r[i + 4], 0xDD);
    }
    for (int i = 0; i < 8; i++) r[i] = t[i];
}
#  if defined(__AVX512BW__)
/* 16 leaves of 16 halves (512 bytes at p, leaf after leaf) as 16 float
 * rows, r[k] lane l holding element k of some leaf (below: which),
 * converted exactly.
 *
 * f16, by vcvtph2ps: r[k] lane l = element k of leaf 2l (l < 8) or
 * 2(l - 8) + 1. Transposed as 16-bit words before the conversion, two
 * leaves to a register: 24 unpacks within 128-bit lanes and 8 lane
 * moves, then 8 extracts and 16 conversions; against 16 conversions and
 * 64 shuffles of converted floats. One thread, 2^16 elements in L2, AMD
 * EPYC Zen 5: a fold of our own went from 21 to 28 Gelem/s; the
 * library's sums into f32 from 29 to 35 GB/s of f16.
 *
 * bf16 (sb_bf16_registers_transposed): a bf16 is the upper half of a float,
 * and a 32-bit word of a leaf holds its elements 2d (low half) and
 * 2d + 1 (high half): a shift left by 16 makes the first a float, a mask
 * of the low half the second. So the leaves are transposed as 32-bit
 * words (16 unpacks within 128-bit lanes and 8 lane moves) and the
 * floats made by 8 shifts and 8 ands, instead of a 16-bit transpose
 * and 16 unpacks with zeros (48 shuffles in all, against 24; on Intel
 * the ands run on any vector port and the shifts off the shuffle one).
 * r[k] lane l = element k of leaf
 * 0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15 (lane l).
 * bf16 sums into f32 on one thread, medians of 12 A/B runs, AMD EPYC
 * Zen 5: 1.03-1.04x in cache (2^16-2^20), 1.14x from memory (2^27);
 * into bf16 0.98-1.00 (noise: its rounding steps are the limit).
 * Intel's cores run 512-bit shuffles on one port only, so halving them
 * should count for more there (not measured: no Intel CPU was at hand).
 *
 * Putting the leaves in order would cost a permute per row: the folds
 * step each lane as its own leaf and put the lanes back in order once
 * per call (sb_half_lanes_in_order), before their tree. */
static inline __attribute__((always_inline)) void
sb_bf16_registers_transposed(__m512i z[8], __m512 r[16])
{
    __m512i t[8];
    /* 4 x 4 transposes of 32-bit words within each 128-bit lane of
     * registers 0-3 and of 4-7: t[4g + k]'s lane q holds word k of the
     * lane q of each of z[4g] .. z[4g + 3]. */
    for (int g = 0; g < 2; g++) {
        const __m512i *s = z + 4 * g;
        const __m512i a = _mm512_unpacklo_epi32(s[0], s[1]);
        const __m512i b = _mm512_unpackhi_epi32(s[0], s[1]);
        const __m512i c = _mm512_unpacklo_epi32(s[2], s[3]);
        const __m512i e = _mm512_unpackhi_epi32(s[2], s[3]);
        t[4 * g] = _mm512_unpacklo_epi64(a, c);
        t[4 * g + 1] = _mm512_unpackhi_epi64(a, c);
        t[4 * g + 2] = _mm512_unpacklo_epi64(b, e);
        t[4 * g + 3] = _mm512_unpackhi_epi64(b, e);
    }
    /* z[m]'s 128-bit lane q holds words 4 (q & 1) .. + 3 of leaf
     * 2m + (q >> 1); so t[4g + k]'s lanes 0 and 2 hold word k, lanes 1
     * and 3 word 4 + k, of leaves 8g + 0, 2, 4, 6 (lanes 0, 1) and
     * 8g + 1, 3, 5, 7 (lanes 2, 3). Word w of all 16 leaves: */
    const __m512i upper = _mm512_set1_epi32((int)0xFFFF0000u);
    for (int k = 0; k < 4; k++) {
        const __m512i lo = _mm512_shuffle_i32x4(t[k], t[4 + k],
                                                _MM_SHUFFLE(2, 0, 2, 0));
        const __m512i hi = _mm512_shuffle_i32x4(t[k], t[4 + k],
                                                _MM_SHUFFLE(3, 1, 3, 1));
        r[2 * k] = _mm512_castsi512_ps(_mm512_slli_epi32(lo, 16));
        r[2 * k + 1] = _mm512_castsi512_ps(_mm512_and_si512(lo, upper));
        r[2 * k + 8] = _mm512_castsi512_ps(_mm512_slli_epi32(hi, 16));
        r[2 * k + 9] = _mm512_castsi512_ps(_mm512_and_si512(hi, upper));
    }
}
/* The same from the 8 registers z holds (512 bytes, leaf after leaf). */
static inline __attribute__((always_inline)) void
sb_half_registers_transposed(__m512i z[8], int is_bf16, __m512 r[16])
{
    if (is_bf16) {
        sb_bf16_registers_transposed(z, r);
        return;
    }
    __m512i t[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm512_unpacklo_epi16(z[2 * i], z[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi16(z[2 * i], z[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const int a = 4 * i + j;
            z[4 * i + 2 * j] = _mm512_unpacklo_epi32(t[a], t[a + 2]);
            z[4 * i + 2 * j + 1] = _mm512_unpackhi_epi32(t[a], t[a + 2]);
        }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm512_unpacklo_epi64(z[i], z[i + 4]);
        t[i + 4] = _mm512_unpackhi_epi64(z[i], z[i + 4]);
    }
    /* Lane q of t[j] now holds element column[j] + 8 (q & 1) of the
     * even leaves (q < 2) or of the odd ones: t[j] becomes the rows of
     * elements column[j] and column[j] + 8. */
    static const int column[8] = { 0, 2, 4, 6, 1, 3, 5, 7 };
    for (int j = 0; j < 8; j++) {
        /* One column's 16 leaves to each 256-bit half. */
        const __m512i u = _mm512_shuffle_i64x2(t[j], t[j], 0xD8);
        r[column[j]] = _mm512_cvtph_ps(_mm512_castsi512_si256(u));
        r[column[j] + 8] = _mm512_cvtph_ps(_mm512_extracti64x4_epi64(u, 1));
    }
}
static inline __attribute__((always_inline)) void
sb_half_rows_transposed(const uint16_t *p, int is_bf16, __m512 r[16])
{
    __m512i z[8];
    for (int m = 0; m < 8; m++)
        z[m] = _mm512_loadu_si512((const void *)(p + 32 * m));
    sb_half_registers_transposed(z, is_bf16, r);
}
/* The 16 leaves at p as sb_half_rows_transposed() loads them, each
 * element that does not take part made the half `fill` first (bits; the
 * masked folds' skip value, whose conversion is exact): with `mask`
 * (NULL: none), those whose byte is 0; with skip_nan, the NaNs. So the
 * masked folds of halves take the 16-bit transposes of the unmasked ones
 * instead of converting each row and transposing floats (64 shuffles of
 * 16 registers, against 32 of 8): masked f16 sums into f32 read 0.55 of
 * the unmasked ones in cache. Returns whether a NaN was loaded (taking
 * part or not), as the folds' `seen`. */
static inline __attribute__((always_inline)) int
sb_half_rows_transposed_masked(const uint16_t *p, const unsigned char *mask,
                               int skip_nan, int is_bf16, __m512i fill,
                               __m512 r[16])
{
    const __m512i magnitude = _mm512_set1_epi16(0x7FFF);
    const __m512i inf = _mm512_set1_epi16(is_bf16 ? 0x7F80 : 0x7C00);
    __m512i z[8];
    __mmask32 nan_any = 0;
    for (int m = 0; m < 8; m++) {
        const __m512i e = _mm512_loadu_si512((const void *)(p + 32 * m));
        const __mmask32 nan = _mm512_cmpgt_epu16_mask(
            _mm512_and_si512(e, magnitude), inf);
        __mmask32 keep = ~(__mmask32)0;
        if (mask != NULL) {
            /* 32 bytes, so that the mask is read no further than its
             * elements; the register's upper half is undefined, and
             * its bits of the test are cut off by the cast. */
            const __m512i b = _mm512_castsi256_si512(_mm256_loadu_si256(
                (const __m256i *)(mask + 32 * m)));
            keep = (__mmask32)_mm512_test_epi8_mask(b, b);
        }
        if (skip_nan)
            keep &= (__mmask32)~nan;
        nan_any |= nan;
        z[m] = _mm512_mask_blend_epi16(keep, fill, e);
    }
    sb_half_registers_transposed(z, is_bf16, r);
    return nan_any != 0;
}
/* The lanes of a register of sb_half_rows_transposed()'s leaves in the
 * leaves' order. */
static inline __attribute__((always_inline)) __m512
sb_half_lanes_in_order(__m512 v, int is_bf16)
{
    const __m512i lane_of_leaf = is_bf16
        ? _mm512_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7,
                            8, 12, 9, 13, 10, 14, 11, 15)
        : _mm512_setr_epi32(0, 8, 1, 9, 2, 10, 3, 11,
                            4, 12, 5, 13, 6, 14, 7, 15);
    return _mm512_permutexvar_ps(lane_of_leaf, v);
}
#    define SB_HAVE_X86_HALF_ROWS 1
#  endif
#  define SB_X86_TRANSPOSE_16(V, R)                                         \
    SB_X86_TRANSPOSE_(V, R, 16, __m512, sb_transpose_16x32)
#  define SB_X86_TRANSPOSE_8(V, R)                                          \
    SB_X86_TRANSPOSE_(V, R, 8, __m512d, sb_transpose_8x64)
#  define SB_HAVE_X86_TRANSPOSE 1
#elif SB_VEC_BYTES == 32 && defined(__AVX__)
/* 8 x 8 of 32-bit elements: 24 shuffles in 3 stages. */
static inline __attribute__((always_inline)) void
sb_transpose_8x32(__m256 r[8])
{
    __m256 t[8];
    for (int i = 0; i < 4; i++) {
        t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++) {
            const int a = 4 * i + j;
            r[4 * i + 2 * j] = _mm256_shuffle_ps(t[a], t[a + 2], 0x44);
            r[4 * i + 2 * j + 1] = _mm256_shuffle_ps(t[a], t[a + 2], 0xEE);
        }
    for (int i = 0; i < 4; i++) {
        t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
        t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
    }
    for (int i = 0; i < 8; i++) r[i] = t[i];
}
/* 4 x 4 of 64-bit elements: 8 shuffles in 2 stages. */
static inline __attribute__((always_inline)) void
sb_transpose_4x64(__m256d r[4])
{
    __m256d t[4];
    for (int i = 0; i < 2; i++) {
        t[2 * i] = _mm256_unpacklo_pd(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm256_unpackhi_pd(r[2 * i], r[2 * i + 1]);
    }
    for (int i = 0; i < 2; i++) {
        r[i] = _mm256_permute2f128_pd(t[i], t[i + 2], 0x20);
        r[i + 2] = _mm256_permute2f128_pd(t[i], t[i + 2], 0x31);
    }
}
#  define SB_X86_TRANSPOSE_8(V, R)                                          \
    SB_X86_TRANSPOSE_(V, R, 8, __m256, sb_transpose_8x32)
#  define SB_X86_TRANSPOSE_4(V, R)                                          \
    SB_X86_TRANSPOSE_(V, R, 4, __m256d, sb_transpose_4x64)
#  define SB_HAVE_X86_TRANSPOSE 1
#  if defined(__AVX2__)
/* Elements i .. i + 7 of 8 leaves of bf16 (leaf l's at p + 16 l) as 8
 * float rows, the leaves in lane order: r[k] lane l = element i + k of
 * leaf l. As sb_bf16_registers_transposed() does on AVX-512: transposed as
 * 32-bit words (4 loads into upper halves, then 8 unpacks within 128-bit
 * lanes), each word made two floats by a shift and a mask; against 8
 * widening loads, 8 shifts and a 24-shuffle transpose of floats. bf16
 * sums on one thread, medians of 8 A/B runs, AMD EPYC Zen 5: into f32
 * 1.36x in cache (2^16), 1.22x from memory (2^27); into bf16 1.13x and
 * 1.12x. */
static inline __attribute__((always_inline)) void
sb_bf16_rows(const uint16_t *p, __m256 r[8])
{
    __m256i a[4];
    for (int j = 0; j < 4; j++)
        a[j] = _mm256_inserti128_si256(
            _mm256_castsi128_si256(
                _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * j))),
            _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * (j + 4))),
            1);
    /* a[j]: words 0-3 of leaf j, then of leaf j + 4. */
    const __m256i lo01 = _mm256_unpacklo_epi32(a[0], a[1]);
    const __m256i hi01 = _mm256_unpackhi_epi32(a[0], a[1]);
    const __m256i lo23 = _mm256_unpacklo_epi32(a[2], a[3]);
    const __m256i hi23 = _mm256_unpackhi_epi32(a[2], a[3]);
    const __m256i w[4] = {
        _mm256_unpacklo_epi64(lo01, lo23), _mm256_unpackhi_epi64(lo01, lo23),
        _mm256_unpacklo_epi64(hi01, hi23), _mm256_unpackhi_epi64(hi01, hi23),
    };
    const __m256i upper = _mm256_set1_epi32((int)0xFFFF0000u);
    for (int k = 0; k < 4; k++) {
        r[2 * k] = _mm256_castsi256_ps(_mm256_slli_epi32(w[k], 16));
        r[2 * k + 1] = _mm256_castsi256_ps(_mm256_and_si256(w[k], upper));
    }
}
#    define SB_BF16_ROW __m256
#    define SB_HAVE_X86_BF16_ROWS 1
#  endif
#elif SB_VEC_BYTES == 16 && defined(__SSE2__)
/* The same for 4 leaves of bf16 (leaf l's at p + 16 l), elements i .. i
 * + 3: 2 unpacks of 32-bit words and 2 of 64-bit, 2 shifts and 2
 * masks; against 4 widening unpacks and an 8-shuffle transpose of
 * floats (the same sums on SSE2: into f32 1.38x and 1.31x, into bf16
 * 1.15x and 1.14x). */
static inline __attribute__((always_inline)) void
sb_bf16_rows(const uint16_t *p, __m128 r[4])
{
    __m128i a[4];
    for (int j = 0; j < 4; j++)
        a[j] = _mm_loadl_epi64((const __m128i *)(const void *)(p + 16 * j));
    const __m128i lo01 = _mm_unpacklo_epi32(a[0], a[1]);
    const __m128i lo23 = _mm_unpacklo_epi32(a[2], a[3]);
    const __m128i w[2] = {
        _mm_unpacklo_epi64(lo01, lo23), _mm_unpackhi_epi64(lo01, lo23),
    };
    const __m128i upper = _mm_set1_epi32((int)0xFFFF0000u);
    for (int k = 0; k < 2; k++) {
        r[2 * k] = _mm_castsi128_ps(_mm_slli_epi32(w[k], 16));
        r[2 * k + 1] = _mm_castsi128_ps(_mm_and_si128(w[k], upper));
    }
}
#  define SB_BF16_ROW __m128
#  define SB_HAVE_X86_BF16_ROWS 1
#endif

/* R (W vectors of type V, any element type of SB_VEC_BYTES / W bytes)
 * reinterpreted as the intrinsics' type X, transposed by FN, and back. */
#define SB_X86_TRANSPOSE_(V, R, W, X, FN)                                   \
    {                                                                       \
        _Static_assert(sizeof(V) == sizeof(X), "one register per row");     \
        X x_[W];                                                            \
        for (int k_ = 0; k_ < (W); k_++) x_[k_] = (X)(R)[k_];               \
        FN(x_);                                                             \
        for (int k_ = 0; k_ < (W); k_++) (R)[k_] = (V)x_[k_];               \
    }

#endif
