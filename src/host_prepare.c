/* host_prepare.c: the elements the fold reads when they are not the input
 * as it is (docs/order.md, "Element maps, dot products"): each taking-part
 * element converted exactly to the accumulator, then mapped (abs,
 * square) or multiplied by its partner (dot products), in the
 * accumulator; and, when NaNs are skipped, the mask that leaves them out.
 *
 * Elements that do not take part become 0 before any map or product, so
 * that a masked-out INT32_MIN is no overflow: the fold never reads them.
 * One loop per (input, accumulator) pair and kind of element, each simple
 * enough for the compiler to vectorise. */
#include <math.h>
#include <string.h>
#include "host_engine.h"
#include "host_half.h"

/* Compiled once per instruction set of the host path (CMakeLists.txt, as
 * host_kernels.c): the wider copies convert f16 with F16C and vectorise
 * the loops below in their registers. Through the baseline copy alone,
 * f16 sums into f64 ran at 3.0 GB/s of input on one thread, masked f16
 * sums into f32 at 3.4 and NaN-skipping ones at 2.8 (AMD EPYC Zen 4,
 * 2^24), against 17 for the unmasked f16 sum. */
#if !defined(SB_HOST_ISA) || SB_HOST_ISA == SB_ISA_BASELINE
#  define SB_PREPARE_COPY sb__prepare_baseline
#elif SB_HOST_ISA == SB_ISA_AVX2
#  define SB_PREPARE_COPY sb__prepare_avx2
#elif SB_HOST_ISA == SB_ISA_AVX512
#  define SB_PREPARE_COPY sb__prepare_avx512
#else
#  error "SB_HOST_ISA: unknown instruction set"
#endif

/* ---- one element in the accumulator ---------------------------------------- */

/* abs and products per accumulator type, checked (setting *ov) or
 * wrapping. __builtin_mul_overflow stores the product modulo 2^bits, which
 * is the wrapping answer. A signed abs fits unless v is the minimum, whose
 * wrapped abs is itself. */
#define SB_SIGNED_OPS_(tag, ctype, minimum)                                  \
static inline ctype abs_##tag(ctype v, bool *ov)                             \
{                                                                            \
    *ov |= v == (minimum);                                                   \
    return v == (minimum) ? v : v < 0 ? (ctype)-v : v;                       \
}                                                                            \
static inline ctype mul_##tag(ctype a, ctype b, bool *ov)                    \
{                                                                            \
    ctype r;                                                                 \
    *ov |= __builtin_mul_overflow(a, b, &r);                                 \
    return r;                                                                \
}
#define SB_UNSIGNED_OPS_(tag, ctype)                                         \
static inline ctype abs_##tag(ctype v, bool *ov)                             \
{                                                                            \
    (void)ov;                                                                \
    return v;                                                                \
}                                                                            \
static inline ctype mul_##tag(ctype a, ctype b, bool *ov)                    \
{                                                                            \
    ctype r;                                                                 \
    *ov |= __builtin_mul_overflow(a, b, &r);                                 \
    return r;                                                                \
}
SB_SIGNED_OPS_(i8, int8_t, INT8_MIN)
SB_SIGNED_OPS_(i16, int16_t, INT16_MIN)
SB_SIGNED_OPS_(i32, int32_t, INT32_MIN)
SB_SIGNED_OPS_(i64, int64_t, INT64_MIN)
SB_UNSIGNED_OPS_(u8, uint8_t)
SB_UNSIGNED_OPS_(u16, uint16_t)
SB_UNSIGNED_OPS_(u32, uint32_t)
SB_UNSIGNED_OPS_(u64, uint64_t)
#undef SB_SIGNED_OPS_
#undef SB_UNSIGNED_OPS_

/* Floats: abs clears the sign bit (NaNs and -0 too); a product is one
 * IEEE multiplication (the library is built with -ffp-contract=off). */
static inline float abs_f32(float v, bool *ov) { (void)ov; return fabsf(v); }
static inline double abs_f64(double v, bool *ov) { (void)ov; return fabs(v); }
static inline float mul_f32(float a, float b, bool *ov)
{
    (void)ov;
    return a * b;
}
static inline double mul_f64(double a, double b, bool *ov)
{
    (void)ov;
    return a * b;
}

/* ---- one loop per pair ----------------------------------------------------- */

/* NaN tests for the input type: only floats have NaNs (SB_SKIP_NAN is
 * refused for integer inputs). */
#define SB_IS_NAN_i8(v)  0
#define SB_IS_NAN_u8(v)  0
#define SB_IS_NAN_i16(v) 0
#define SB_IS_NAN_u16(v) 0
#define SB_IS_NAN_i32(v) 0
#define SB_IS_NAN_u32(v) 0
#define SB_IS_NAN_i64(v) 0
#define SB_IS_NAN_u64(v) 0
#define SB_IS_NAN_f32(v) ((v) != (v))
#define SB_IS_NAN_f64(v) ((v) != (v))

/* The taking-part test of element i: the mask, then (with skip) NaNs. */
#define SB_TAKES_PART_(in, i)                                                \
    ((mask == NULL || mask[i] != 0) &&                                       \
     !(skip && (SB_IS_NAN_##in(x[i]) ||                                      \
                (y != NULL && SB_IS_NAN_##in(y[i])))))

#define SB_PREPARE_FN_(in, ac)                                               \
static bool prepare_##in##_##ac(const sb__plan *plan, const void *xv,       \
                                const void *yv, const unsigned char *mask,  \
                                size_t count, void *outv,                   \
                                unsigned char *mask_out)                    \
{                                                                            \
    const sb__ctype_##in *x = xv, *y = yv;                                   \
    sb__ctype_##ac *out = outv;                                              \
    const bool skip = plan->skip_nan;                                        \
    bool ov = false;                                                         \
    if (skip)                                                                \
        for (size_t i = 0; i < count; i++)                                   \
            mask_out[i] = SB_TAKES_PART_(in, i);                             \
    const unsigned char *m = skip ? mask_out : mask;                         \
    if (m == NULL) {                                                         \
        /* Every element takes part: straight loops, vectorised. */          \
        if (plan->dot)                                                       \
            for (size_t i = 0; i < count; i++)                               \
                out[i] = mul_##ac((sb__ctype_##ac)x[i], (sb__ctype_##ac)y[i], \
                                  &ov);                                      \
        else if (plan->map == SB_MAP_ABS)                                    \
            for (size_t i = 0; i < count; i++)                               \
                out[i] = abs_##ac((sb__ctype_##ac)x[i], &ov);                \
        else if (plan->map == SB_MAP_SQUARE)                                 \
            for (size_t i = 0; i < count; i++)                               \
                out[i] = mul_##ac((sb__ctype_##ac)x[i], (sb__ctype_##ac)x[i], \
                                  &ov);                                      \
        else                                                                 \
            for (size_t i = 0; i < count; i++)                               \
                out[i] = (sb__ctype_##ac)x[i];                               \
        return ov;                                                           \
    }                                                                        \
    if (plan->dot) {                                                         \
        for (size_t i = 0; i < count; i++) {                                 \
            const bool take = m == NULL || m[i] != 0;                        \
            const sb__ctype_##ac a = take ? (sb__ctype_##ac)x[i] : 0;        \
            const sb__ctype_##ac b = take ? (sb__ctype_##ac)y[i] : 0;        \
            out[i] = mul_##ac(a, b, &ov);                                    \
        }                                                                    \
    } else if (plan->map == SB_MAP_ABS) {                                    \
        for (size_t i = 0; i < count; i++) {                                 \
            const bool take = m == NULL || m[i] != 0;                        \
            out[i] = abs_##ac(take ? (sb__ctype_##ac)x[i] : 0, &ov);         \
        }                                                                    \
    } else if (plan->map == SB_MAP_SQUARE) {                                 \
        for (size_t i = 0; i < count; i++) {                                 \
            const bool take = m == NULL || m[i] != 0;                        \
            const sb__ctype_##ac a = take ? (sb__ctype_##ac)x[i] : 0;        \
            out[i] = mul_##ac(a, a, &ov);                                    \
        }                                                                    \
    } else {                                                                 \
        for (size_t i = 0; i < count; i++)                                   \
            out[i] = (sb__ctype_##ac)x[i];                                   \
    }                                                                        \
    return ov;                                                               \
}
#define SB_SAME_PAIR_(e, tag, ctype, f, s, cl) SB_PREPARE_FN_(tag, tag)
SB_TYPE_LIST(SB_SAME_PAIR_)
#undef SB_SAME_PAIR_
SB_WIDENING_LIST(SB_PREPARE_FN_)

/* ---- half inputs ----------------------------------------------------------- */

/* f16 and bf16 elements (host_half.h) become the fold's type CT: float for
 * an f32 accumulator and for a half one (whose floats are always exactly
 * half values: a square or a product is rounded to the half type, ROUND),
 * double for f64. Each conversion is exact; abs clears the sign bit. */
#define SB_NO_ROUND(v) (v)

/* x[0..count) of f16 bits into floats, four at a time in vector
 * registers (SB_VEC_F16_TO_F32, host_half.h). Full unmasked blocks take
 * the per-instruction-set copy of it in host_kernels.c, fused with the
 * fold. */
#if defined(__AVX512F__) || defined(__F16C__)
/* vcvtph2ps (16 lanes with AVX-512F, 8 with F16C): exact for every f16
 * pattern, whatever MXCSR's DAZ says. (The baseline copy lands here too
 * when the build's own flags include F16C.) */
#  include <immintrin.h>
#  if defined(__AVX512F__)
#    define SB_F16_LANES 16
#    define SB_F16_CONVERT(out, x)                                           \
    _mm512_storeu_ps((out), _mm512_cvtph_ps(                                 \
        _mm256_loadu_si256((const __m256i *)(const void *)(x))))
#  else
#    define SB_F16_LANES 8
#    define SB_F16_CONVERT(out, x)                                           \
    _mm256_storeu_ps((out), _mm256_cvtph_ps(                                 \
        _mm_loadu_si128((const __m128i *)(const void *)(x))))
#  endif
static void f16_block_to_float(const uint16_t *x, float *out, size_t count)
{
    size_t i = 0;
    for (; i + SB_F16_LANES <= count; i += SB_F16_LANES)
        SB_F16_CONVERT(out + i, x + i);
    for (; i < count; i++)
        out[i] = sb__f16_to_float(x[i]);
}
#define SB_F16_BLOCK(x, out, count) f16_block_to_float((x), (out), (count))
#elif defined(__GNUC__)
typedef uint32_t sb_u32x4 __attribute__((vector_size(16)));
typedef uint16_t sb_u16x4 __attribute__((vector_size(8)));
typedef float    sb_f32x4 __attribute__((vector_size(16)));
static void f16_block_to_float(const uint16_t *x, float *out, size_t count)
{
    size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        sb_u16x4 halves;
        memcpy(&halves, x + i, sizeof halves);
        const sb_u32x4 h = __builtin_convertvector(halves, sb_u32x4);
        const sb_f32x4 f = SB_VEC_F16_TO_F32(h, sb_u32x4, sb_f32x4);
        memcpy(out + i, &f, sizeof f);
    }
    for (; i < count; i++)
        out[i] = sb__f16_to_float(x[i]);
}
#define SB_F16_BLOCK(x, out, count) f16_block_to_float((x), (out), (count))
#else
#define SB_F16_BLOCK(x, out, count)                                          \
    for (size_t i_ = 0; i_ < (count); i_++) (out)[i_] = sb__f16_to_float((x)[i_]);
#endif
/* bf16 bits into floats: the upper halves of binary32s. */
#define SB_BF16_BLOCK(x, out, count)                                         \
    for (size_t i_ = 0; i_ < (count); i_++) (out)[i_] = sb__bf16_to_float((x)[i_]);

/* The elements are first converted to floats a piece at a time, in the
 * vector loops above (exact), then mapped, multiplied or rounded in loops
 * over floats, one per kind of element and with or without a mask, each
 * simple enough to vectorise where the accumulator is f32 or f64. Per
 * element through sb__f16_to_float() with the map chosen inside the loop,
 * masked f16 sums ran at 1 GB/s and f16 -> f64 sums at 1.3-2.0 (AMD
 * EPYC, 2^24, 1 thread; now 1.5 and 2.3). */
#define SB_HALF_PIECE 512
/* out[i] = EXPR for the piece's elements, taking part or not (TAKE). */
#define SB_HALF_LOOP_(EXPR)                                                  \
    if (m == NULL) {                                                         \
        for (size_t i = 0; i < c; i++) { const bool take = true; (void)take; out[at + i] = (EXPR); } \
    } else {                                                                 \
        for (size_t i = 0; i < c; i++) { const bool take = m[i] != 0; out[at + i] = (EXPR); } \
    }
#define SB_HALF_PREPARE_FN_(name, TO_FLOATS, CT, ABS, ROUND)                 \
static bool prepare_##name(const sb__plan *plan, const void *xv,             \
                           const void *yv, const unsigned char *mask,        \
                           size_t count, void *outv,                         \
                           unsigned char *mask_out)                          \
{                                                                            \
    const uint16_t *x = xv, *y = yv;                                         \
    CT *out = outv;                                                          \
    _Alignas(64) float a_[SB_HALF_PIECE], b[SB_HALF_PIECE];                  \
    /* Into f32 with no map or product, the floats are the output:      \
     * converted there, not copied (masked f16 sums 4.1 -> 4.2-4.9 GB/s). */ \
    const bool direct = sizeof(CT) == sizeof(float) && !plan->dot &&        \
                        plan->map == SB_MAP_NONE;                            \
    for (size_t at = 0; at < count; at += SB_HALF_PIECE) {                   \
        const size_t c = count - at < SB_HALF_PIECE ? count - at : SB_HALF_PIECE; \
        float *const a = direct ? (float *)(void *)(out + at) : a_;          \
        TO_FLOATS(x + at, a, c);                                             \
        if (plan->dot) {                                                     \
            TO_FLOATS(y + at, b, c);                                         \
        }                                                                    \
        const unsigned char *m = mask != NULL ? mask + at : NULL;            \
        if (plan->skip_nan) {                                                \
            unsigned char *mo = mask_out + at;                               \
            if (plan->dot)                                                   \
                for (size_t i = 0; i < c; i++)                               \
                    mo[i] = (m == NULL || m[i] != 0) & (a[i] == a[i]) & (b[i] == b[i]); \
            else                                                             \
                for (size_t i = 0; i < c; i++)                               \
                    mo[i] = (m == NULL || m[i] != 0) & (a[i] == a[i]);       \
            m = mo;                                                          \
        }                                                                    \
        /* Elements that do not take part become 0 (the fold skips them). */ \
        if (plan->dot) {                                                     \
            SB_HALF_LOOP_(take ? (CT)ROUND((CT)a[i] * (CT)b[i]) : (CT)0)     \
        } else if (plan->map == SB_MAP_ABS) {                                \
            SB_HALF_LOOP_(take ? (CT)ABS((CT)a[i]) : (CT)0)                  \
        } else if (plan->map == SB_MAP_SQUARE) {                             \
            SB_HALF_LOOP_(take ? (CT)ROUND((CT)a[i] * (CT)a[i]) : (CT)0)     \
        } else if (!direct) {                                                \
            for (size_t i = 0; i < c; i++) out[at + i] = (CT)a[i];           \
        }                                                                    \
    }                                                                        \
    return false;   /* floats: nothing overflows */                          \
}
SB_HALF_PREPARE_FN_(f16_f16, SB_F16_BLOCK, float,  fabsf, sb__round_f16)
SB_HALF_PREPARE_FN_(f16_f32, SB_F16_BLOCK, float,  fabsf, SB_NO_ROUND)
SB_HALF_PREPARE_FN_(f16_f64, SB_F16_BLOCK, double, fabs,  SB_NO_ROUND)
SB_HALF_PREPARE_FN_(bf16_bf16, SB_BF16_BLOCK, float, fabsf, sb__round_bf16)
SB_HALF_PREPARE_FN_(bf16_f32, SB_BF16_BLOCK, float,  fabsf, SB_NO_ROUND)
SB_HALF_PREPARE_FN_(bf16_f64, SB_BF16_BLOCK, double, fabs,  SB_NO_ROUND)
#undef SB_HALF_LOOP_
#undef SB_HALF_PREPARE_FN_

const unsigned char *SB_PREPARE_COPY(const sb__plan *plan, const void *x,
                                     const void *y, const unsigned char *mask,
                                     size_t count, void *out,
                                     unsigned char *mask_out, bool *overflow)
{
    bool ov = false;
#define SB_PREPARE_CASE_(in, ac)                                             \
    if (plan->input == (sb_type)SB__T_##in && plan->acc == (sb_type)SB__T_##ac) \
        ov = prepare_##in##_##ac(plan, x, y, mask, count, out, mask_out);   \
    else
#define SB_SAME_CASE_(e, tag, ctype, f, s, cl) SB_PREPARE_CASE_(tag, tag)
    SB_TYPE_LIST(SB_SAME_CASE_)
    SB_WIDENING_LIST(SB_PREPARE_CASE_)
    SB_PREPARE_CASE_(f16, f16)
    SB_PREPARE_CASE_(bf16, bf16)
    SB_HALF_WIDENING_LIST(SB_PREPARE_CASE_)
        memset(out, 0, count * sb_type_size(plan->acc));  /* not reached */
#undef SB_SAME_CASE_
#undef SB_PREPARE_CASE_
    /* Only a checked plan reports it; a wrapping one keeps the wrapped
     * values. */
    *overflow |= ov && plan->checked;
    return plan->skip_nan ? mask_out : mask;
}

#if !defined(SB_HOST_ISA) || SB_HOST_ISA == SB_ISA_BASELINE
const unsigned char *sb__prepare(const sb__plan *plan, const void *x,
                                 const void *y, const unsigned char *mask,
                                 size_t count, void *out,
                                 unsigned char *mask_out, bool *overflow)
{
    return sb__prepare_baseline(plan, x, y, mask, count, out, mask_out,
                                overflow);
}
#endif
