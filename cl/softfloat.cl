/* softfloat.cl: IEEE 754 binary32 and binary64 arithmetic on bit patterns,
 * in integer operations only: addition and multiplication rounded to
 * nearest even, subnormals kept, infinities, signed zeros, NaN (returned
 * as the canonical quiet NaN, which is what every result gets anyway), and
 * the comparisons and conversions the reductions need.
 *
 * Two users: the guarded mode (float.cl), which takes the hardware result
 * where it is exact and these functions where a subnormal is involved on a
 * device that flushes them; and the software mode, which computes every
 * f64 step here on a device with no fp64 at all.
 *
 * The method, for both widths: align the significands in a 64-bit word
 * with spare low bits (the smaller operand shifted right "with jamming":
 * every bit shifted out is ORed into bit 0, so the word keeps knowing that
 * something was there), add or subtract, find the leading bit, and drop
 * the bits below the result's last place: its own when the result is
 * normal, the smallest subnormal's when it is not. What was dropped
 * decides the rounding: above half up, below half down, exactly half to
 * the even neighbour. Two spare bits and the jam bit are enough for a
 * correctly rounded sum; there are more here.
 *
 * Written in the subset of C that OpenCL C shares with C99 (SB_FN, uint,
 * ulong, clz, mul_hi), so tests/test_softfloat.c compiles this very file
 * on the host and compares it with the host's own IEEE arithmetic. */
#ifndef SB_FN
#define SB_FN inline
#endif
/* Functions the folds call once per element, inlined even where the
 * compiler's size heuristic would not: a call there serialises the
 * fold's independent chains. */
#ifndef SB_FN_INLINE
#define SB_FN_INLINE inline __attribute__((always_inline))
#endif

#define SB_F32_SIGN  0x80000000u
#define SB_F32_ABS   0x7FFFFFFFu
#define SB_F32_INF   0x7F800000u
#define SB_F32_QNAN  0x7FC00000u
#define SB_F64_SIGN  0x8000000000000000UL
#define SB_F64_ABS   0x7FFFFFFFFFFFFFFFUL
#define SB_F64_INF   0x7FF0000000000000UL
#define SB_F64_QNAN  0x7FF8000000000000UL
#define SB_F64_FRAC  0x000FFFFFFFFFFFFFUL

/* ---- classification --------------------------------------------------- */

SB_FN int sb_f32_is_nan(uint a) { return (a & SB_F32_ABS) > SB_F32_INF; }
SB_FN int sb_f64_is_nan(ulong a) { return (a & SB_F64_ABS) > SB_F64_INF; }

/* Whether a is a multiple of the smallest normal, 2^-126 (or is infinite
 * or NaN). The sum of two such numbers is zero or at least that normal in
 * magnitude, so it is never subnormal: a device that flushes subnormals
 * adds them exactly as IEEE says. Zero, and every float of magnitude
 * 2^-103 or more, is such a multiple; a subnormal never is. */
SB_FN int sb_f32_on_normal_grid(uint a)
{
    const uint e = (a >> 23) & 0xFFu, m = a & 0x7FFFFFu;
    if (e >= 24u)
        return 1;
    if (e == 0u)
        return m == 0u;
    return (m & ((1u << (24u - e)) - 1u)) == 0u;   /* its last place >= 2^-126 */
}

/* The same for binary64: multiples of 2^-1022. */
SB_FN int sb_f64_on_normal_grid(ulong a)
{
    const uint e = (uint)(a >> 52) & 0x7FFu;
    const ulong m = a & SB_F64_FRAC;
    if (e >= 53u)
        return 1;
    if (e == 0u)
        return m == 0UL;
    return (m & ((1UL << (53u - e)) - 1UL)) == 0UL;
}

/* ---- rounding ----------------------------------------------------------- */

/* s >> shift rounded to nearest, ties to even; shift in 1..63. */
SB_FN ulong sb_round_shift(ulong s, uint shift)
{
    const ulong kept = s >> shift;
    const ulong rest = s & ((1UL << shift) - 1UL);
    const ulong halfway = 1UL << (shift - 1u);
    return kept + (ulong)(rest > halfway || (rest == halfway && (kept & 1UL)));
}

/* x >> n with every bit shifted out ORed into bit 0 ("jamming"); n >= 0. */
SB_FN ulong sb_shift_right_jam(ulong x, uint n)
{
    if (n == 0u)
        return x;
    if (n >= 64u)
        return (ulong)(x != 0UL);
    return (x >> n) | (ulong)((x << (64u - n)) != 0UL);
}

/* ---- binary32 ------------------------------------------------------------- */

/* Packs sign, the value s * 2^(e0 - 150 - spare), s != 0: the exponent
 * field e0 is that of the unit bit `spare` of s (the operands' alignment).
 * Rounds to the result's last place, normal or subnormal. */
SB_FN uint sb_f32_pack(uint sign, int e0, ulong s, uint spare)
{
    const int p = 63 - (int)clz(s);              /* leading bit of s */
    const int e = e0 + p - (int)spare - 23;     /* exponent field if normal */
    const int er = e >= 1 ? e : 1;              /* subnormals: field 0, scale 1 */
    const int shift = er - e0 + (int)spare;     /* bits below the last place */
    ulong m;
    if (shift <= 0)
        m = s << (uint)(-shift);                 /* exact */
    else if (shift >= 64)
        m = 0UL;                                 /* far below the last place */
    else
        m = sb_round_shift(s, (uint)shift);
    int field = er;
    if (m >= (1UL << 24)) {                      /* rounding carried out */
        m >>= 1;
        field++;
    }
    if (m < (1UL << 23))                         /* subnormal, or zero */
        field = 0;
    if (field >= 255)
        return (sign << 31) | SB_F32_INF;
    return (sign << 31) | ((uint)field << 23) | ((uint)m & 0x7FFFFFu);
}

SB_FN uint sb_f32_add(uint a, uint b)
{
    if (sb_f32_is_nan(a) || sb_f32_is_nan(b))
        return SB_F32_QNAN;
    uint sa = a >> 31, sb = b >> 31;
    uint xa = a & SB_F32_ABS, xb = b & SB_F32_ABS;
    if (xa == SB_F32_INF || xb == SB_F32_INF) {
        if (xa == SB_F32_INF && xb == SB_F32_INF && sa != sb)
            return SB_F32_QNAN;                  /* inf - inf */
        return xa == SB_F32_INF ? a : b;
    }
    if (xa == 0u && xb == 0u)
        return (sa & sb) << 31;                  /* -0 only for -0 + -0 */
    if (xb == 0u)
        return a;
    if (xa == 0u)
        return b;
    if (xa < xb) {                               /* |a| >= |b| from here */
        const uint t = xa; xa = xb; xb = t;
        const uint u = sa; sa = sb; sb = u;
    }
    int ea = (int)(xa >> 23), eb = (int)(xb >> 23);
    ulong ma = xa & 0x7FFFFFu, mb = xb & 0x7FFFFFu;
    if (ea != 0) ma |= 0x800000UL; else ea = 1;
    if (eb != 0) mb |= 0x800000UL; else eb = 1;
    const uint spare = 32u;                      /* hidden bit at bit 55 */
    const ulong A = ma << spare;
    const ulong B = sb_shift_right_jam(mb << spare, (uint)(ea - eb));
    const ulong s = sa == sb ? A + B : A - B;
    if (s == 0UL)
        return 0u;                               /* x - x is +0 */
    return sb_f32_pack(sa, ea, s, spare);
}

SB_FN uint sb_f32_mul(uint a, uint b)
{
    if (sb_f32_is_nan(a) || sb_f32_is_nan(b))
        return SB_F32_QNAN;
    const uint sign = (a ^ b) >> 31;
    const uint xa = a & SB_F32_ABS, xb = b & SB_F32_ABS;
    if (xa == SB_F32_INF || xb == SB_F32_INF)
        return (xa == 0u || xb == 0u) ? SB_F32_QNAN : (sign << 31) | SB_F32_INF;
    if (xa == 0u || xb == 0u)
        return sign << 31;
    int ea = (int)(xa >> 23), eb = (int)(xb >> 23);
    ulong ma = xa & 0x7FFFFFu, mb = xb & 0x7FFFFFu;
    if (ea != 0) ma |= 0x800000UL; else ea = 1;
    if (eb != 0) mb |= 0x800000UL; else eb = 1;
    /* The product's unit is 2^(ea - 150 + eb - 150); written as a value
     * with exponent field e0 = ea + eb - 127 and its unit at bit 23 of a
     * 46-bit (or 47-bit) product. */
    const ulong p = ma * mb;
    return sb_f32_pack(sign, ea + eb - 127, p, 23u);
}

/* b < a and b > a as IEEE compares them (false with a NaN, -0 == +0),
 * on bits: what min and max need where a device reads subnormals as 0. */
SB_FN long sb_f32_order(uint a)
{
    const long m = (long)(a & SB_F32_ABS);
    return (a >> 31) ? -m : m;
}
SB_FN int sb_f32_less(uint b, uint a)
{
    return !sb_f32_is_nan(a) && !sb_f32_is_nan(b)
           && sb_f32_order(b) < sb_f32_order(a);
}

/* ---- binary64 ------------------------------------------------------------- */

SB_FN ulong sb_f64_pack(ulong sign, int e0, ulong s, uint spare)
{
    const int p = 63 - (int)clz(s);
    const int e = e0 + p - (int)spare - 52;
    const int er = e >= 1 ? e : 1;
    const int shift = er - e0 + (int)spare;
    ulong m;
    if (shift <= 0)
        m = s << (uint)(-shift);
    else if (shift >= 64)
        m = 0UL;
    else
        m = sb_round_shift(s, (uint)shift);
    int field = er;
    if (m >= (1UL << 53)) {
        m >>= 1;
        field++;
    }
    if (m < (1UL << 52))
        field = 0;
    if (field >= 2047)
        return (sign << 63) | SB_F64_INF;
    return (sign << 63) | ((ulong)field << 52) | (m & SB_F64_FRAC);
}

SB_FN ulong sb_f64_add_general(ulong a, ulong b)
{
    if (sb_f64_is_nan(a) || sb_f64_is_nan(b))
        return SB_F64_QNAN;
    ulong sa = a >> 63, sb = b >> 63;
    ulong xa = a & SB_F64_ABS, xb = b & SB_F64_ABS;
    if (xa == SB_F64_INF || xb == SB_F64_INF) {
        if (xa == SB_F64_INF && xb == SB_F64_INF && sa != sb)
            return SB_F64_QNAN;
        return xa == SB_F64_INF ? a : b;
    }
    if (xa == 0UL && xb == 0UL)
        return (sa & sb) << 63;
    if (xb == 0UL)
        return a;
    if (xa == 0UL)
        return b;
    if (xa < xb) {
        const ulong t = xa; xa = xb; xb = t;
        const ulong u = sa; sa = sb; sb = u;
    }
    int ea = (int)(xa >> 52), eb = (int)(xb >> 52);
    ulong ma = xa & SB_F64_FRAC, mb = xb & SB_F64_FRAC;
    if (ea != 0) ma |= 1UL << 52; else ea = 1;
    if (eb != 0) mb |= 1UL << 52; else eb = 1;
    const uint spare = 9u;                       /* hidden bit at bit 61 */
    const ulong A = ma << spare;
    const ulong B = sb_shift_right_jam(mb << spare, (uint)(ea - eb));
    const ulong s = sa == sb ? A + B : A - B;
    if (s == 0UL)
        return 0UL;
    return sb_f64_pack(sa, ea, s, spare);
}

/* a + b, for every a and b. The common case, both operands normal and
 * the result normal, is a short path without data-dependent branches (the
 * software mode spends its time here, and a carry that comes and goes
 * with the data would be a mispredicted branch in every other step):
 * align the smaller significand with jamming, add or subtract, shift the
 * leading bit to bit 63 (clz: 0 after a carry, up to 53 after
 * cancellation) and round at bit 11. Adding the significand, hidden bit
 * included, to the exponent field minus one lets a rounding carry step
 * the exponent (and reach infinity) by itself. Zeros, subnormals,
 * infinities, NaN, an exact zero, a subnormal result and an overflow
 * take sb_f64_add_general(). Inlined into the fold even where the
 * compiler's size heuristic would not (it calls the general case). */
SB_FN_INLINE ulong sb_f64_add(ulong a, ulong b)
{
    const ulong xa = a & SB_F64_ABS, xb = b & SB_F64_ABS;
    const int a_big = xa >= xb;
    const ulong hi = a_big ? xa : xb, lo = a_big ? xb : xa;
    const uint eh = (uint)(hi >> 52), el = (uint)(lo >> 52);
    const uint d = eh - el < 63u ? eh - el : 63u;   /* 63: all jammed */
    const ulong A = ((hi & SB_F64_FRAC) | (1UL << 52)) << 10;  /* bit 62 */
    const ulong b0 = ((lo & SB_F64_FRAC) | (1UL << 52)) << 10;
    const ulong B = (b0 >> d) | (ulong)(((b0 << (63u - d)) << 1) != 0UL);
    const ulong s = ((a ^ b) >> 63) ? A - B : A + B;
    const uint c = s ? (uint)clz(s) : 0u;
    const int e = (int)eh + 1 - (int)c;             /* the result's field */
    if (eh >= 2047u || el == 0u || s == 0UL || e < 1 || e > 2046)
        return sb_f64_add_general(a, b);
    const ulong n = s << c;                         /* leading bit at 63 */
    const ulong kept = n >> 11, rest = n & 0x7FFUL;
    const ulong m = kept + (ulong)(rest > 0x400UL ||
                                   (rest == 0x400UL && (kept & 1UL)));
    const ulong sign = (a_big ? a : b) & SB_F64_SIGN;
    return sign | ((((ulong)e - 1UL) << 52) + m);
}

/* The exact 106-bit product of two 53-bit significands, reduced to 64
 * bits with its low bits jammed: the rounding sees everything it needs. */
SB_FN ulong sb_mul_jam(ulong x, ulong y, uint *dropped)
{
    const ulong hi = mul_hi(x, y), lo = x * y;
    if (hi == 0UL) {
        *dropped = 0u;
        return lo;
    }
    /* Keep 63 bits from the leading one down; jam the rest. */
    const uint lead = 127u - (uint)clz(hi);      /* leading bit, 64..127 */
    const uint n = lead - 62u;                   /* 2..65: bits to drop */
    ulong kept;
    ulong rest;
    if (n >= 64u) {
        kept = hi >> (n - 64u);
        rest = lo | (hi & ((1UL << (n - 64u)) - 1UL));
    } else {
        kept = (hi << (64u - n)) | (lo >> n);
        rest = lo & ((1UL << n) - 1UL);
    }
    *dropped = n;
    return kept | (ulong)(rest != 0UL);
}

SB_FN ulong sb_f64_mul(ulong a, ulong b)
{
    if (sb_f64_is_nan(a) || sb_f64_is_nan(b))
        return SB_F64_QNAN;
    const ulong sign = (a ^ b) >> 63;
    const ulong xa = a & SB_F64_ABS, xb = b & SB_F64_ABS;
    if (xa == SB_F64_INF || xb == SB_F64_INF)
        return (xa == 0UL || xb == 0UL) ? SB_F64_QNAN : (sign << 63) | SB_F64_INF;
    if (xa == 0UL || xb == 0UL)
        return sign << 63;
    int ea = (int)(xa >> 52), eb = (int)(xb >> 52);
    ulong ma = xa & SB_F64_FRAC, mb = xb & SB_F64_FRAC;
    if (ea != 0) ma |= 1UL << 52; else ea = 1;
    if (eb != 0) mb |= 1UL << 52; else eb = 1;
    uint dropped;
    const ulong p = sb_mul_jam(ma, mb, &dropped);
    /* The exact product's unit is 2^(ea - 1075 + eb - 1075); `dropped`
     * bits later it is 2^(ea + eb - 2150 + dropped), which sb_f64_pack
     * reads as e0 - 1075 with no spare bits. */
    return sb_f64_pack(sign, ea + eb - 1075 + (int)dropped, p, 0u);
}

SB_FN long sb_f64_order(ulong a)
{
    const long m = (long)(a & SB_F64_ABS);
    return (a >> 63) ? -m : m;
}
SB_FN int sb_f64_less(ulong b, ulong a)
{
    return !sb_f64_is_nan(a) && !sb_f64_is_nan(b)
           && sb_f64_order(b) < sb_f64_order(a);
}

/* ---- conversions to binary64 (all exact) ------------------------------------ */

SB_FN ulong sb_f64_from_f32(uint a)
{
    const ulong sign = (ulong)(a >> 31) << 63;
    const uint e = (a >> 23) & 0xFFu;
    uint m = a & 0x7FFFFFu;
    if (e == 0xFFu)                               /* inf, NaN (stays NaN) */
        return sign | SB_F64_INF | ((ulong)m << 29);
    if (e == 0u) {
        if (m == 0u)
            return sign;
        /* A subnormal f32 is a normal f64: move its leading one up to
         * the hidden place. */
        const uint k = (uint)clz(m) - 8u;         /* m < 2^23: k >= 1 */
        m = (m << k) & 0x7FFFFFu;
        return sign | ((ulong)(1023 - 126 - (int)k) << 52) | ((ulong)m << 29);
    }
    return sign | ((ulong)(e + 1023u - 127u) << 52) | ((ulong)m << 29);
}

/* An integer of magnitude below 2^53 (every one samebits converts). The
 * sign and magnitude come from bit operations: Mesa's llvmpipe (22.3)
 * compiles `(long)i < 0`, for a 32-bit i widened, to "false". */
SB_FN ulong sb_f64_from_long(long v)
{
    if (v == 0)
        return 0UL;
    const ulong u = (ulong)v, neg = u >> 63;
    const ulong mag = (u ^ (0UL - neg)) + neg;    /* |v|, two's complement */
    const uint k = 63u - (uint)clz(mag);          /* leading bit */
    return (neg << 63) | ((ulong)(1023u + k) << 52)
         | ((mag << (52u - k)) & SB_F64_FRAC);
}

SB_FN ulong sb_f64_from_ulong(ulong v)
{
    if (v == 0UL)
        return 0UL;
    const uint k = 63u - (uint)clz(v);
    return ((ulong)(1023u + k) << 52) | ((v << (52u - k)) & SB_F64_FRAC);
}
