/* arith_float.cl: the accumulator's float arithmetic, in the mode the host
 * chose for this device (src/device_caps.c):
 *   native    the hardware's IEEE operations (the device keeps subnormals);
 *   guarded   the hardware where its result is provably the IEEE one, the
 *             integer code of softfloat.cl where a subnormal is involved
 *             (the device flushes them, so its operations would not be);
 *   software  every step in softfloat.cl (binary64 on a device without
 *             fp64).
 * The accumulator is then stored as its bits (uint, ulong; types.cl), and
 * only these functions turn bits into hardware floats, where it is safe.
 *
 * When the hardware is exact on a flushing device:
 *   a + b  when a and b are multiples of the smallest normal (2^-126, or
 *          2^-1022): their exact sum is then zero or at least that normal,
 *          no operand and no result is subnormal, and flushing changes
 *          nothing (sb_f32_on_normal_grid()). Sums of such numbers are
 *          such numbers: a fold of them never leaves the grid.
 *   a * b  when neither is subnormal and, both being finite and non-zero,
 *          their exponents add up to the smallest normal's or more: the
 *          exact product is then at least the smallest normal, so it is
 *          neither flushed before rounding nor after (devices differ on
 *          which they test: this margin makes both agree).
 *   b < a  when neither is subnormal (a flushing device reads a
 *          subnormal as zero): only for a group of elements that ops.cl
 *          checked; a single step compares on bits (sb_f32_less()).
 * The "plain" steps are the hardware operations alone, for a group of
 * elements that ops.cl has checked once for all.
 *
 * A half accumulator (SB_ACC_HALF: f16 or bf16) is an f32 accumulator
 * whose every + and * is rounded once more, to the half type
 * (arith_half.cl, SB_ACC_ROUND): its nodes are binary32 values that are
 * exactly half values. The binary32 step is the f32 mode's, so it keeps
 * subnormals on every device. */

/* The rounding of a half accumulator's steps, on the accumulator's
 * storage (float in the native mode, its bits otherwise). */
#if SB_ACC_HALF == SB_KIND_F16
#define SB_ROUND_HALF_BITS(b) sb_round_f16(b)
#elif SB_ACC_HALF == SB_KIND_BF16
#define SB_ROUND_HALF_BITS(b) sb_round_bf16(b)
#endif
#if !SB_ACC_HALF
#define SB_ACC_ROUND(v) (v)
#elif SB_ACC_MODE == SB_MODE_NATIVE
#define SB_ACC_ROUND(v) as_float(SB_ROUND_HALF_BITS(as_uint(v)))
#else
#define SB_ACC_ROUND(v) SB_ROUND_HALF_BITS(v)
#endif

#if SB_ACC_KIND == SB_KIND_F32 && SB_ACC_MODE == SB_MODE_NATIVE
inline acc_t sb_acc_add(acc_t a, acc_t b) { return SB_ACC_ROUND(a + b); }
inline acc_t sb_acc_mul(acc_t a, acc_t b) { return SB_ACC_ROUND(a * b); }
inline int sb_acc_less(acc_t b, acc_t a) { return b < a; }
inline int sb_acc_is_nan(acc_t a) { return isnan(a); }
#define SB_ACC_ZERO 0.0f
#define SB_ACC_ONE  1.0f
#define SB_ACC_QNAN as_float(SB_F32_QNAN)

#elif SB_ACC_KIND == SB_KIND_F32
inline int sb_f32_mul_exact(uint a, uint b)
{
    const uint ea = (a >> 23) & 0xFFu, eb = (b >> 23) & 0xFFu;
    if ((ea == 0u && (a & 0x7FFFFFu)) || (eb == 0u && (b & 0x7FFFFFu)))
        return 0;                                /* a subnormal operand */
    return ea == 0u || eb == 0u || ea == 0xFFu || eb == 0xFFu
        || ea + eb >= 128u;                      /* >= 2^-126 exactly */
}
inline acc_t sb_acc_plain_add(acc_t a, acc_t b)
{
    return SB_ACC_ROUND(as_uint(as_float(a) + as_float(b)));
}
inline acc_t sb_acc_plain_mul(acc_t a, acc_t b)
{
    return SB_ACC_ROUND(as_uint(as_float(a) * as_float(b)));
}
inline int sb_acc_plain_less(acc_t b, acc_t a)
{
    return as_float(b) < as_float(a);
}
inline acc_t sb_acc_add(acc_t a, acc_t b)
{
    return sb_f32_on_normal_grid(a) && sb_f32_on_normal_grid(b)
           ? sb_acc_plain_add(a, b) : SB_ACC_ROUND(sb_f32_add(a, b));
}
inline acc_t sb_acc_mul(acc_t a, acc_t b)
{
    return sb_f32_mul_exact(a, b) ? sb_acc_plain_mul(a, b)
                                  : SB_ACC_ROUND(sb_f32_mul(a, b));
}
inline int sb_acc_less(acc_t b, acc_t a) { return sb_f32_less(b, a); }
inline int sb_acc_is_nan(acc_t a) { return sb_f32_is_nan(a); }
#define SB_ACC_ZERO 0u
#define SB_ACC_ONE  0x3F800000u
#define SB_ACC_QNAN SB_F32_QNAN

#elif SB_ACC_KIND == SB_KIND_F64 && SB_ACC_MODE == SB_MODE_NATIVE
inline acc_t sb_acc_add(acc_t a, acc_t b) { return a + b; }
inline acc_t sb_acc_mul(acc_t a, acc_t b) { return a * b; }
inline int sb_acc_less(acc_t b, acc_t a) { return b < a; }
inline int sb_acc_is_nan(acc_t a) { return isnan(a); }
#define SB_ACC_ZERO 0.0
#define SB_ACC_ONE  1.0
#define SB_ACC_QNAN as_double(SB_F64_QNAN)

#elif SB_ACC_KIND == SB_KIND_F64 && SB_ACC_MODE == SB_MODE_GUARDED
inline int sb_f64_mul_exact(ulong a, ulong b)
{
    const uint ea = (uint)(a >> 52) & 0x7FFu, eb = (uint)(b >> 52) & 0x7FFu;
    if ((ea == 0u && (a & SB_F64_FRAC)) || (eb == 0u && (b & SB_F64_FRAC)))
        return 0;
    return ea == 0u || eb == 0u || ea == 0x7FFu || eb == 0x7FFu
        || ea + eb >= 1024u;                     /* >= 2^-1022 exactly */
}
inline acc_t sb_acc_plain_add(acc_t a, acc_t b)
{
    return as_ulong(as_double(a) + as_double(b));
}
inline acc_t sb_acc_plain_mul(acc_t a, acc_t b)
{
    return as_ulong(as_double(a) * as_double(b));
}
inline int sb_acc_plain_less(acc_t b, acc_t a)
{
    return as_double(b) < as_double(a);
}
inline acc_t sb_acc_add(acc_t a, acc_t b)
{
    return sb_f64_on_normal_grid(a) && sb_f64_on_normal_grid(b)
           ? sb_acc_plain_add(a, b) : sb_f64_add(a, b);
}
inline acc_t sb_acc_mul(acc_t a, acc_t b)
{
    return sb_f64_mul_exact(a, b) ? sb_acc_plain_mul(a, b) : sb_f64_mul(a, b);
}
inline int sb_acc_less(acc_t b, acc_t a) { return sb_f64_less(b, a); }
inline int sb_acc_is_nan(acc_t a) { return sb_f64_is_nan(a); }
#define SB_ACC_ZERO 0UL
#define SB_ACC_ONE  0x3FF0000000000000UL
#define SB_ACC_QNAN SB_F64_QNAN

#elif SB_ACC_KIND == SB_KIND_F64
/* Inlined, so that the fold's chains run side by side (softfloat.cl). */
SB_FN_INLINE acc_t sb_acc_add(acc_t a, acc_t b) { return sb_f64_add(a, b); }
inline acc_t sb_acc_mul(acc_t a, acc_t b) { return sb_f64_mul(a, b); }
inline int sb_acc_less(acc_t b, acc_t a) { return sb_f64_less(b, a); }
inline int sb_acc_is_nan(acc_t a) { return sb_f64_is_nan(a); }
#define SB_ACC_ZERO 0UL
#define SB_ACC_ONE  0x3FF0000000000000UL
#define SB_ACC_QNAN SB_F64_QNAN
#endif
