/* arith_int.cl: integer arithmetic of the order (docs/order.md): steps
 * checked for overflow (the flag SB_OVERFLOW is set when a step's exact
 * result does not fit the accumulator), wrapping steps (modulo 2^bits),
 * and the window of element values in which a checked sum cannot overflow
 * and may take plain adds. */

/* ---- checked integer steps: *ov |= the exact result does not fit -------- */

#if SB_ACC_KIND == SB_KIND_INT
#if SB_ACC_BITS < 32
/* 8/16-bit: the exact result of two such values fits an int. */
inline acc_t sb_add_checked(acc_t a, acc_t b, uint *ov)
{
    const int r = (int)a + (int)b;
    *ov |= (r != (int)(acc_t)r) ? SB_OVERFLOW : 0u;
    return (acc_t)r;   /* only used when it fits */
}
/* mul24, not `*`: clang turns "widen, multiply, check the fit" into
 * llvm.umul.with.overflow.i8/i16, which some devices (Oclgrind 21.10)
 * cannot run. Both operands fit 24 bits, so mul24 is exact, and the
 * unsigned form holds the largest product, 65535^2. */
inline acc_t sb_mul_checked(acc_t a, acc_t b, uint *ov)
{
#if SB_ACC_SIGNED
    const int r = mul24((int)a, (int)b);
    *ov |= (r != (int)(acc_t)r) ? SB_OVERFLOW : 0u;
#else
    const uint r = mul24((uint)a, (uint)b);
    *ov |= (r != (uint)(acc_t)r) ? SB_OVERFLOW : 0u;
#endif
    return (acc_t)r;
}
#elif SB_ACC_SIGNED
/* Signed 32/64-bit: add in unsigned arithmetic (no undefined overflow), and
 * overflow iff both operands have the sign the result lacks. */
#if SB_ACC_BITS == 32
typedef uint  uacc_t;
#else
typedef ulong uacc_t;
#endif
inline acc_t sb_add_checked(acc_t a, acc_t b, uint *ov)
{
    const acc_t r = SB_AS_ACC((uacc_t)a + (uacc_t)b);
    *ov |= (((a ^ r) & (b ^ r)) < 0) ? SB_OVERFLOW : 0u;
    return r;
}
inline acc_t sb_mul_checked(acc_t a, acc_t b, uint *ov)
{
    const acc_t lo = SB_AS_ACC((uacc_t)a * (uacc_t)b);
    const acc_t hi = mul_hi(a, b);
    /* The exact product fits iff the high half is the sign extension of
     * the low half. */
    *ov |= (hi != (lo >> (SB_ACC_BITS - 1))) ? SB_OVERFLOW : 0u;
    return lo;
}
#else
inline acc_t sb_add_checked(acc_t a, acc_t b, uint *ov)
{
    const acc_t r = a + b;
    *ov |= (r < a) ? SB_OVERFLOW : 0u;
    return r;
}
inline acc_t sb_mul_checked(acc_t a, acc_t b, uint *ov)
{
    *ov |= (mul_hi(a, b) != 0) ? SB_OVERFLOW : 0u;
    return a * b;
}
#endif

/* Wrapping: two's complement modulo 2^bits, computed unsigned. */
#if SB_ACC_BITS == 8
typedef uchar  uwrap_t;
#elif SB_ACC_BITS == 16
typedef ushort uwrap_t;
#elif SB_ACC_BITS == 32
typedef uint   uwrap_t;
#else
typedef ulong  uwrap_t;
#endif

/* sb_in_sum_window(e0, e1, e2, e3): whether the 64 elements all lie where
 * no sum of up to 64 of them, hence no partial of a four-leaf fold and its
 * tree, can overflow: [-2^(b-7), 2^(b-7)) for a signed b-bit accumulator,
 * [0, 2^(b-6)) for an unsigned one. There the checked sum's steps are plain
 * adds (sb_add_wrap, exact as nothing wraps), which vectorise; the leaf
 * fold falls back to the checked steps otherwise (ops.cl). One unsigned compare
 * per element: x + 2^(b-7) (signed) or x (unsigned) below 2^(b-6). Only
 * for 32/64-bit accumulators: for 8/16 bits the window is too narrow to
 * matter. */
/* Not with a map or a product: the window is on the input values. */
#if SB_ACC_BITS >= 32 && SB_CHECKED && SB_OP == SB_OP_SUM && !SB_TERMS
#define SB_HAVE_SUM_WINDOW 1
#if SB_ACC_BITS == 32
#define SB_UACC_NAME uint
#else
#define SB_UACC_NAME ulong
#endif
typedef SB_CAT(SB_UACC_NAME, 16) uacc16_t;
#define SB_WINDOW_LANES(e)                                                    \
    SB_CAT(as_, SB_CAT(SB_UACC_NAME, 16))(                                    \
        SB_CAT(convert_, SB_CAT(SB_ACC_T, 16))(e))
inline int sb_in_sum_window(in16_t e0, in16_t e1, in16_t e2, in16_t e3)
{
#if SB_ACC_SIGNED
    const uacc16_t offset = (uacc16_t)((SB_UACC_NAME)1 << (SB_ACC_BITS - 7));
#else
    const uacc16_t offset = (uacc16_t)0;
#endif
    const uacc16_t t = (SB_WINDOW_LANES(e0) + offset) |
                       (SB_WINDOW_LANES(e1) + offset) |
                       (SB_WINDOW_LANES(e2) + offset) |
                       (SB_WINDOW_LANES(e3) + offset);
    return !any((t >> (SB_UACC_NAME)(SB_ACC_BITS - 6)) != (uacc16_t)0);
}
#else
#define SB_HAVE_SUM_WINDOW 0
#endif

inline acc_t sb_add_wrap(acc_t a, acc_t b)
{
    return SB_AS_ACC((uwrap_t)((uwrap_t)a + (uwrap_t)b));
}
inline acc_t sb_mul_wrap(acc_t a, acc_t b)
{
    /* Small types promote to int, where the product could overflow. */
    return SB_AS_ACC((uwrap_t)((ulong)(uwrap_t)a * (ulong)(uwrap_t)b));
}
#endif /* SB_ACC_KIND == SB_KIND_INT */
