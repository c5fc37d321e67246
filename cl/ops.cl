/* ops.cl: this program's operation (SB_OP), as the leaf fold and the tree
 * use it (docs/order.md):
 *   sb_load(x)          an element as an accumulator value: its exact
 *                       conversion, its truth for any/all, or 1 for a
 *                       count
 *   sb_term(x, y, f)    what the fold reads of element x (and y): sb_load,
 *                       then the map, or the product of a dot product; a
 *                       checked integer map or product that does not fit
 *                       sets SB_OVERFLOW
 *   sb_in_is_nan(x)     whether an input element is a NaN (SB_SKIP_NAN)
 *   sb_step(a, b, f)    a op b, for the fold and for combine() alike; a
 *                       checked step that does not fit sets SB_OVERFLOW
 *   SB_HAS_START,       a leaf of sum, prod, any, all starts from the start
 *   sb_start()          value; min and max from their first element
 *   sb_first(e)         start op e for the leaf's first element (e itself
 *                       for min and max), without arithmetic
 *   sb_group_is_plain() whether 64 full elements allow the plain step for
 *   sb_plain_step()     their whole four-leaf subtree: the checked sum's
 *                       window (nothing can overflow), the guarded float
 *                       grids and comparisons (the hardware is exact); the
 *                       same bits
 *   sb_write(v, res)    the result's bytes: the canonical NaN for floats,
 *                       one byte 0 or 1 for any/all */

/* ---- an element as a value -------------------------------------------------- */

#if SB_IN_KIND != SB_KIND_INT && SB_IN_MODE == SB_MODE_NATIVE && \
    SB_IN_KIND == SB_KIND_F32
inline uint sb_in_bits32(in_t x) { return as_uint(x); }
#elif SB_IN_KIND == SB_KIND_F32
inline uint sb_in_bits32(in_t x) { return x; }
#endif

/* Truth, for any and all: not zero. NaN is true, -0 false, and a
 * subnormal true: on bits unless the hardware keeps subnormals. */
inline uint sb_truth(in_t x)
{
#if SB_IN_HALF
    return (x & (in_t)0x7FFFu) != (in_t)0;
#elif SB_IN_KIND == SB_KIND_INT || SB_IN_MODE == SB_MODE_NATIVE
    return x != (in_t)0;
#elif SB_IN_KIND == SB_KIND_F32
    return (x & SB_F32_ABS) != 0u;
#else
    return (x & SB_F64_ABS) != 0UL;
#endif
}

/* A half element's exact binary32 bits (arith_half.cl). */
#if SB_IN_KIND == SB_KIND_F16
inline uint sb_in_half_bits32(in_t x) { return sb_f16_to_f32_bits(x); }
#elif SB_IN_KIND == SB_KIND_BF16
inline uint sb_in_half_bits32(in_t x) { return sb_bf16_to_f32_bits(x); }
#endif

inline acc_t sb_load(in_t x)
{
#if SB_COUNT
    return (acc_t)1;                         /* one taking-part element */
#elif SB_IS_BOOLEAN
    return sb_truth(x);
#elif SB_IN_HALF
    /* Exact, in integer operations: into f32 (a half accumulator is one),
     * or through f32 into f64, on bits (a bf16 subnormal is an f32
     * subnormal, which only the native f32 mode lets the hardware hold). */
    #if SB_ACC_KIND == SB_KIND_F32 && SB_ACC_MODE == SB_MODE_NATIVE
    return as_float(sb_in_half_bits32(x));
    #elif SB_ACC_KIND == SB_KIND_F32
    return sb_in_half_bits32(x);
    #elif SB_ACC_MODE == SB_MODE_NATIVE
    return as_double(sb_f64_from_f32(sb_in_half_bits32(x)));
    #else
    return sb_f64_from_f32(sb_in_half_bits32(x));
    #endif
#elif SB_ACC_KIND == SB_KIND_INT || SB_ACC_KIND == SB_IN_KIND
    return (acc_t)x;                         /* same storage, or an integer */
#elif SB_ACC_KIND == SB_KIND_F32
    /* From an integer of at most 16 bits: exact, never subnormal. */
    #if SB_ACC_MODE == SB_MODE_NATIVE
    return (float)x;
    #else
    return as_uint((float)x);
    #endif
#elif SB_ACC_MODE == SB_MODE_NATIVE          /* f64 from f32 or an integer */
    #if SB_IN_KIND == SB_KIND_F32 && SB_IN_MODE != SB_MODE_NATIVE
    return as_double(sb_f64_from_f32(x));    /* the hardware would flush it */
    #else
    return (double)x;
    #endif
#elif SB_IN_KIND == SB_KIND_F32              /* f64 as bits, from f32 */
    return sb_f64_from_f32(sb_in_bits32(x));
#elif SB_ACC_MODE == SB_MODE_GUARDED         /* from an integer: exact */
    return as_ulong((double)x);
#else
    return sb_f64_from_long((long)x);        /* software, from an integer */
#endif
}

/* ---- maps and products, in the accumulator ------------------------------- */

/* One multiplication of the accumulator: rounded once for floats (the
 * guarded one exact where the hardware would flush: arith_float.cl),
 * checked or wrapping for integers. */
SB_FN_INLINE acc_t sb_term_mul(acc_t a, acc_t b, uint *f)
{
#if SB_ACC_KIND == SB_KIND_INT && SB_WRAP
    return sb_mul_wrap(a, b);
#elif SB_ACC_KIND == SB_KIND_INT
    return sb_mul_checked(a, b, f);
#else
    return sb_acc_mul(a, b);
#endif
}

/* |a|: floats clear the sign bit (NaNs too: the result's NaN is made
 * canonical anyway); a signed integer's minimum has no abs that fits, so
 * it overflows, or wraps to itself. Negated in unsigned arithmetic, where
 * the minimum is not undefined. */
SB_FN_INLINE acc_t sb_term_abs(acc_t a, uint *f)
{
#if SB_ACC_NATIVE_FLOAT
    return fabs(a);
#elif SB_ACC_KIND == SB_KIND_F32
    return a & SB_F32_ABS;
#elif SB_ACC_KIND == SB_KIND_F64
    return a & SB_F64_ABS;
#elif SB_ACC_SIGNED
    const acc_t minimum = SB_AS_ACC((uwrap_t)((uwrap_t)1 << (SB_ACC_BITS - 1)));
#if !SB_WRAP
    *f |= a == minimum ? SB_OVERFLOW : 0u;
#endif
    /* Two spellings, one value (src/device_programs.c, abs_by_select):
     * Mesa 22.3 miscompiles the first for an i64 made from an i32;
     * Oclgrind, which has no llvm.abs, builds the first unoptimised. */
#if SB_ABS_BY_SELECT
    return a < (acc_t)0 ? SB_AS_ACC((uwrap_t)(0u - (uwrap_t)a)) : a;
#else
    const uwrap_t s = (uwrap_t)(a >> (SB_ACC_BITS - 1));   /* all ones if < 0 */
    return SB_AS_ACC((uwrap_t)(((uwrap_t)a ^ s) - s));
#endif
#else
    return a;
#endif
}

/* The map of a converted element. */
SB_FN_INLINE acc_t sb_term_map(acc_t a, uint *f)
{
#if SB_MAP == SB_MAP_ABS
    return sb_term_abs(a, f);
#elif SB_MAP == SB_MAP_SQUARE
    return sb_term_mul(a, a, f);
#else
    return a;
#endif
}

/* What the fold reads of element x (y: the dot product's other factor,
 * ignored otherwise). */
SB_FN_INLINE acc_t sb_term(in_t x, in_t y, uint *f)
{
#if SB_DOT
    return sb_term_mul(sb_load(x), sb_load(y), f);
#else
    return sb_term_map(sb_load(x), f);
#endif
}

/* A NaN on bits where the hardware's compare could see a flushed value
 * differently (it cannot, but bits need no float instruction at all). */
inline int sb_in_is_nan(in_t x)
{
#if SB_IN_KIND == SB_KIND_F16
    return (x & (in_t)0x7FFFu) > (in_t)0x7C00u;
#elif SB_IN_KIND == SB_KIND_BF16
    return (x & (in_t)0x7FFFu) > (in_t)0x7F80u;
#elif SB_IN_KIND == SB_KIND_INT
    return 0;
#elif SB_IN_MODE == SB_MODE_NATIVE
    return isnan(x);
#elif SB_IN_KIND == SB_KIND_F32
    return (x & SB_F32_ABS) > SB_F32_INF;
#else
    return (x & SB_F64_ABS) > SB_F64_INF;
#endif
}

/* ---- the step ------------------------------------------------------------------ */

/* Always inlined (softfloat.cl): every fold calls it once per element,
 * and a call there would serialise the fold's independent chains. */
SB_FN_INLINE acc_t sb_step(acc_t a, acc_t b, uint *f)
{
#if SB_OP == SB_OP_SUM && SB_ACC_KIND == SB_KIND_INT
    #if SB_WRAP
    return sb_add_wrap(a, b);
    #else
    return sb_add_checked(a, b, f);
    #endif
#elif SB_OP == SB_OP_PROD && SB_ACC_KIND == SB_KIND_INT
    #if SB_WRAP
    return sb_mul_wrap(a, b);
    #else
    return sb_mul_checked(a, b, f);
    #endif
#elif SB_OP == SB_OP_SUM
    return sb_acc_add(a, b);
#elif SB_OP == SB_OP_PROD
    return sb_acc_mul(a, b);
#elif SB_OP == SB_OP_MIN && SB_ACC_KIND == SB_KIND_INT
    return b < a ? b : a;          /* the right side only if strictly less */
#elif SB_OP == SB_OP_MAX && SB_ACC_KIND == SB_KIND_INT
    return b > a ? b : a;
#elif SB_OP == SB_OP_MIN
    return sb_acc_less(b, a) ? b : a;   /* NaNs and signed zeros follow */
#elif SB_OP == SB_OP_MAX
    return sb_acc_less(a, b) ? b : a;
#elif SB_OP == SB_OP_ANY
    return a | b;
#else
    return a & b;
#endif
}

/* Whether sb_step(a, b) of min / max takes its right side: where
 * argmin / argmax move the position with the value (the right side only
 * when strictly less / greater: a tie keeps the left, lower position, and
 * a NaN never replaces nor is replaced). */
inline int sb_step_takes_right(acc_t a, acc_t b)
{
#if SB_OP == SB_OP_MIN && SB_ACC_KIND == SB_KIND_INT
    return b < a;
#elif SB_OP == SB_OP_MAX && SB_ACC_KIND == SB_KIND_INT
    return b > a;
#elif SB_OP == SB_OP_MIN
    return sb_acc_less(b, a);
#elif SB_OP == SB_OP_MAX
    return sb_acc_less(a, b);
#else
    return 0;
#endif
}

#if SB_OP == SB_OP_SUM || SB_OP == SB_OP_PROD || SB_IS_BOOLEAN
#define SB_HAS_START 1
#else
#define SB_HAS_START 0
#endif

/* The start value; min and max have none, and never read this. */
inline acc_t sb_start(void)
{
#if SB_OP == SB_OP_PROD && SB_ACC_KIND == SB_KIND_INT
    return (acc_t)1;
#elif SB_OP == SB_OP_PROD
    return SB_ACC_ONE;
#elif SB_OP == SB_OP_ALL
    return 1u;
#elif SB_ACC_KIND == SB_KIND_INT || SB_IS_BOOLEAN
    return (acc_t)0;
#else
    return SB_ACC_ZERO;
#endif
}

/* A leaf's first element as its value so far, start op e, computed
 * without arithmetic: the element itself, except that a float sum turns
 * -0 into +0 (0 + -0 is +0). Written out because a compiler may drop an
 * addition of a constant +0 (Mesa 22.3's does, returning -0 for a leaf of
 * negative zeros), which would be right for every other value. */
inline acc_t sb_first(acc_t e)
{
#if SB_OP == SB_OP_SUM && SB_ACC_KIND != SB_KIND_INT && \
    SB_ACC_MODE == SB_MODE_NATIVE
    return e == SB_ACC_ZERO ? SB_ACC_ZERO : e;       /* +0 for either zero */
#elif SB_OP == SB_OP_SUM && SB_ACC_KIND == SB_KIND_F32
    return (e & SB_F32_ABS) == 0u ? 0u : e;
#elif SB_OP == SB_OP_SUM && SB_ACC_KIND == SB_KIND_F64
    return (e & SB_F64_ABS) == 0UL ? 0UL : e;
#else
    return e;   /* 0 + x, 1 * x, 0 | t and 1 & t are x and t exactly */
#endif
}

/* ---- plain groups ------------------------------------------------------------------ */

/* Whether every lane of four 16-vectors of float bits is zero or has a
 * biased exponent of at least `e_min` (infinities and NaNs pass). One
 * unsigned compare per element, |x| - 1 < 2^(mantissa bits) * e_min - 1
 * being exactly "not zero and below", folded by min across the 64 lanes
 * (halving the vector, without any() or &&, which POCL turns into a
 * branch per lane: half the speed of a guarded f32 sum) and tested once. */
#if SB_IN_KIND == SB_KIND_F32
inline uint sb_min_lanes_u32(uint16 m)
{
    const uint8 a = min(m.lo, m.hi);
    const uint4 b = min(a.lo, a.hi);
    const uint2 c = min(b.lo, b.hi);
    return min(c.x, c.y);
}
inline int sb_f32_lanes_at_least(uint16 e0, uint16 e1, uint16 e2, uint16 e3,
                                 uint e_min)
{
    const uint16 mag = (uint16)SB_F32_ABS, one = (uint16)1u;
    const uint16 m = min(min((e0 & mag) - one, (e1 & mag) - one),
                         min((e2 & mag) - one, (e3 & mag) - one));
    return sb_min_lanes_u32(m) >= (e_min << 23) - 1u;
}
#if SB_IN_MODE == SB_MODE_NATIVE
#define SB_IN16_BITS(e) as_uint16(e)
#else
#define SB_IN16_BITS(e) (e)
#endif
#elif SB_IN_KIND == SB_KIND_F64
inline ulong sb_min_lanes_u64(ulong16 m)
{
    const ulong8 a = min(m.lo, m.hi);
    const ulong4 b = min(a.lo, a.hi);
    const ulong2 c = min(b.lo, b.hi);
    return min(c.x, c.y);
}
inline int sb_f64_lanes_at_least(ulong16 e0, ulong16 e1, ulong16 e2,
                                 ulong16 e3, ulong e_min)
{
    const ulong16 mag = (ulong16)SB_F64_ABS, one = (ulong16)1UL;
    const ulong16 m = min(min((e0 & mag) - one, (e1 & mag) - one),
                          min((e2 & mag) - one, (e3 & mag) - one));
    return sb_min_lanes_u64(m) >= (e_min << 52) - 1UL;
}
#if SB_IN_MODE == SB_MODE_NATIVE
#define SB_IN16_BITS(e) as_ulong16(e)
#else
#define SB_IN16_BITS(e) (e)
#endif
#endif

#if SB_HAVE_SUM_WINDOW
#define SB_HAVE_PLAIN 1
inline int sb_group_is_plain(in16_t e0, in16_t e1, in16_t e2, in16_t e3)
{
    return sb_in_sum_window(e0, e1, e2, e3);
}
inline acc_t sb_plain_step(acc_t a, acc_t b) { return sb_add_wrap(a, b); }

#elif SB_ACC_KIND != SB_KIND_INT && SB_ACC_MODE == SB_MODE_GUARDED && \
      !SB_IS_BOOLEAN && SB_MAP != SB_MAP_SQUARE && !SB_DOT && !SB_IN_HALF
/* Not for squares and products: the test below is on the input's
 * magnitudes, which they change (the square of 1e-30f is subnormal); abs
 * keeps every magnitude, so the test holds for |x| as for x. Not for half
 * inputs either: their steps take the guarded test one by one. */
#define SB_HAVE_PLAIN 1
/* Sum: elements of magnitude 2^-103 (2^-970) or more, or zero, are on the
 * normal grid (arith_float.cl). Product: elements of magnitude 1/2 or more
 * (or zero, or infinite) keep every product of up to 64 of them at 2^-64
 * or more, far above the smallest normal. Min and max: elements that are
 * not subnormal compare on the hardware as on bits (a flushing device
 * reads only subnormals as zero), and min and max return one of them.
 * Elements converted from f32 into a guarded f64, or from integers, are
 * never subnormal and always on the sum's grid; for products the f32
 * exponent tells. */
#if SB_OP == SB_OP_SUM
#define SB_F32_PLAIN_MIN 24u
#define SB_F64_PLAIN_MIN 53UL
#elif SB_OP == SB_OP_PROD
#define SB_F32_PLAIN_MIN 126u
#define SB_F64_PLAIN_MIN 1022UL
#else
#define SB_F32_PLAIN_MIN 1u
#define SB_F64_PLAIN_MIN 1UL
#endif
inline int sb_group_is_plain(in16_t e0, in16_t e1, in16_t e2, in16_t e3)
{
#if SB_IN_KIND == SB_KIND_INT || \
    (SB_OP != SB_OP_PROD && SB_IN_KIND == SB_KIND_F32 && SB_ACC_KIND == SB_KIND_F64)
    return 1;
#elif SB_IN_KIND == SB_KIND_F32
    return sb_f32_lanes_at_least(SB_IN16_BITS(e0), SB_IN16_BITS(e1),
                                 SB_IN16_BITS(e2), SB_IN16_BITS(e3),
                                 SB_F32_PLAIN_MIN);
#else
    return sb_f64_lanes_at_least(SB_IN16_BITS(e0), SB_IN16_BITS(e1),
                                 SB_IN16_BITS(e2), SB_IN16_BITS(e3),
                                 SB_F64_PLAIN_MIN);
#endif
}
#if SB_OP == SB_OP_SUM
inline acc_t sb_plain_step(acc_t a, acc_t b) { return sb_acc_plain_add(a, b); }
#elif SB_OP == SB_OP_PROD
inline acc_t sb_plain_step(acc_t a, acc_t b) { return sb_acc_plain_mul(a, b); }
#elif SB_OP == SB_OP_MIN
inline acc_t sb_plain_step(acc_t a, acc_t b)
{
    return sb_acc_plain_less(b, a) ? b : a;
}
#else
inline acc_t sb_plain_step(acc_t a, acc_t b)
{
    return sb_acc_plain_less(a, b) ? b : a;
}
#endif

#else
#define SB_HAVE_PLAIN 0      /* every group takes the step's own fold */
#endif

/* ---- the result ------------------------------------------------------------------- */

inline void sb_write(acc_t v, global uchar *res)
{
#if SB_IS_BOOLEAN
    *res = v != 0u ? 1 : 0;
#elif SB_ACC_HALF
    /* Two bytes: the node is exactly a half value, so this rounding is
     * exact, and a NaN becomes the half type's canonical NaN. */
    #if SB_ACC_MODE == SB_MODE_NATIVE
    const uint bits = as_uint(v);
    #else
    const uint bits = v;
    #endif
    #if SB_ACC_HALF == SB_KIND_F16
    *(global ushort *)res = (ushort)sb_f32_to_f16_bits(bits);
    #else
    *(global ushort *)res = (ushort)sb_f32_to_bf16_bits(bits);
    #endif
#elif SB_ACC_KIND == SB_KIND_INT
    *(global acc_t *)res = v;
#else
    /* Hardware differs in NaN payloads; the order returns one NaN. */
    *(global acc_t *)res = sb_acc_is_nan(v) ? SB_ACC_QNAN : v;
#endif
}
