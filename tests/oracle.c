/* tests/oracle.c: the reference reduction, transcribed line by line from
 * ORDER.md (the section each piece implements is named above it).
 *
 * Written for the reader, not for speed: every element is read on its own,
 * every leaf value and tree node is an explicit `node` that is either
 * `none` or holds an exact value of the accumulator type, and the tree is
 * built level by level in an array. Integer steps are computed exactly in
 * 128 bits and then checked against (or wrapped into) the accumulator's
 * range; float steps are done in the accumulator's own C type. The file is
 * compiled with -ffp-contract=off, and each float step is stored through a
 * volatile so that no excess precision or contraction can reach it.
 *
 * Maps (abs, square), skipped NaNs and dot products only change what
 * enters the leaf fold (take_element()); the fold, the tree and the
 * result are the same for all of them. */
#include "oracle.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/* ------------------------------------------------------------------------
 * The types (samebits.h: sb_type)
 * ---------------------------------------------------------------------- */

static bool type_is_known(sb_type t)
{
    return (int)t >= (int)SB_I8 && (int)t <= (int)SB_BF16;
}

static bool type_is_half(sb_type t)
{
    return t == SB_F16 || t == SB_BF16;
}

static bool type_is_float(sb_type t)
{
    return t == SB_F32 || t == SB_F64 || type_is_half(t);
}

static bool type_is_signed_integer(sb_type t)
{
    return t == SB_I8 || t == SB_I16 || t == SB_I32 || t == SB_I64;
}

static unsigned type_bits(sb_type t)
{
    switch (t) {
    case SB_I8:  case SB_U8:  return 8;
    case SB_I16: case SB_U16: case SB_F16: case SB_BF16: return 16;
    case SB_I32: case SB_U32: case SB_F32: return 32;
    case SB_I64: case SB_U64: case SB_F64: return 64;
    case SB_SAME_AS_INPUT: break;   /* not a type */
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Inputs: which input/accumulator pairs are allowed
 *
 * ORDER.md: "Only exact conversions are allowed: integer widening
 * (i8/i16/i32 -> i32/i64, u8/u16/u32 -> u32/u64, unsigned to a strictly
 * wider signed type), f32 -> f64, and integers to a float type that holds
 * them exactly (i8/u8/i16/u16 -> f32, i8/u8/i16/u16/i32/u32 -> f64).
 * A = I is always allowed." samebits.h narrows "unsigned to a strictly
 * wider signed type" to i32/i64: u8, u16 -> i32, i64; u32 -> i64.
 * Each row below is one clause; lists end at 0, which is not a type.
 * ---------------------------------------------------------------------- */

typedef struct {
    sb_type from[7];
    sb_type to[3];
} conversion_rule;

static const conversion_rule conversion_rules[] = {
    /* integer widening */
    { { SB_I8, SB_I16, SB_I32 },                   { SB_I32, SB_I64 } },
    { { SB_U8, SB_U16, SB_U32 },                   { SB_U32, SB_U64 } },
    /* unsigned to a strictly wider signed type (i32/i64 only) */
    { { SB_U8, SB_U16 },                           { SB_I32, SB_I64 } },
    { { SB_U32 },                                  { SB_I64 } },
    /* f32 -> f64 */
    { { SB_F32 },                                  { SB_F64 } },
    /* "f16 (IEEE binary16) and bf16 (bfloat16) inputs convert exactly to
     * f32 and f64" */
    { { SB_F16, SB_BF16 },                         { SB_F32, SB_F64 } },
    /* integers to a float type that holds them exactly */
    { { SB_I8, SB_U8, SB_I16, SB_U16 },            { SB_F32 } },
    { { SB_I8, SB_U8, SB_I16, SB_U16, SB_I32, SB_U32 }, { SB_F64 } },
};

static bool list_contains(const sb_type *list, size_t length, sb_type t)
{
    for (size_t i = 0; i < length && list[i] != 0; i++)
        if (list[i] == t)
            return true;
    return false;
}

static bool conversion_is_allowed(sb_type input, sb_type acc)
{
    if (acc == input)
        return true;                                /* A = I, always */
    for (size_t k = 0; k < sizeof conversion_rules / sizeof *conversion_rules;
         k++) {
        const conversion_rule *rule = &conversion_rules[k];
        if (list_contains(rule->from, 7, input) &&
            list_contains(rule->to, 3, acc))
            return true;
    }
    return false;
}

static sb_type accumulator_of(sb_reduction r)
{
    return r.accumulator == 0 ? r.input : r.accumulator;
}

/* API-2.md: "SB_ARGMIN, SB_ARGMAX, SB_COUNT: new sb_op values, after
 * SB_ALL, in this order". */
static bool op_is_known(sb_op op)
{
    return (int)op >= (int)SB_SUM && (int)op <= (int)SB_COUNT;
}

static bool op_is_boolean(sb_op op)
{
    return op == SB_ANY || op == SB_ALL;
}

static bool op_is_arg(sb_op op)
{
    return op == SB_ARGMIN || op == SB_ARGMAX;
}

/* "min and max have none", and so have argmin / argmax, which "return the
 * min / max value". */
static bool op_has_no_start(sb_op op)
{
    return op == SB_MIN || op == SB_MAX || op_is_arg(op);
}

/* samebits.h: "typedef enum { SB_MAP_NONE = 0, SB_MAP_ABS, SB_MAP_SQUARE }
 * sb_map". */
static bool map_is_known(sb_map map)
{
    return (int)map >= (int)SB_MAP_NONE && (int)map <= (int)SB_MAP_SQUARE;
}

bool oracle_reduction_is_valid(sb_reduction r)
{
    if (!op_is_known(r.op))
        return false;
    if (!type_is_known(r.input))
        return false;
    if (r.accumulator != 0 && !type_is_known(r.accumulator))
        return false;
    if ((r.flags & ~(SB_WRAP | SB_SKIP_NAN)) != 0)
        return false;                               /* unknown flag bits */
    if (!map_is_known(r.map))
        return false;                               /* unknown map */
    const sb_type acc = accumulator_of(r);
    if (op_is_boolean(r.op) || r.op == SB_COUNT) {
        /* "any and all have no accumulator: it must be 0 or the input type";
         * COUNT: "input any type, no accumulator, no map" (API-2.md). */
        if (acc != r.input)
            return false;
    } else if (!conversion_is_allowed(r.input, acc)) {
        return false;
    }
    /* SB_WRAP is refused with a float accumulator. For any/all the
     * accumulator field names the input type, so SB_WRAP on a float any/all
     * is refused too. */
    if ((r.flags & SB_WRAP) && type_is_float(acc))
        return false;
    /* SB_SKIP_NAN: "Valid for f32 and f64 inputs, with every op ...
     * Refused (SB_INVALID_ARGUMENT) for integer inputs, which have no
     * NaN." It is the input that is float, not the accumulator. */
    if ((r.flags & SB_SKIP_NAN) && !type_is_float(r.input))
        return false;
    /* A map is "Valid with sum, prod, min and max ... Refused with any/all"
     * (API-2.md: "Not valid with any/all/count"). */
    if (r.map != SB_MAP_NONE && (op_is_boolean(r.op) || r.op == SB_COUNT))
        return false;
    return true;
}

/* sb_dot_host(): "r.op must be SB_SUM and r.map SB_MAP_NONE"; every other
 * rule (types, pairs, flags) is that of a reduction. */
bool oracle_dot_is_valid(sb_reduction r)
{
    return oracle_reduction_is_valid(r) && r.op == SB_SUM &&
           r.map == SB_MAP_NONE;
}

size_t oracle_result_size(sb_reduction r)
{
    if (!oracle_reduction_is_valid(r))
        return 0;
    if (op_is_boolean(r.op))
        return 1;
    /* API-2.md: "sb_result_size() is 16 for them [argmin, argmax] ... 8
     * [for count]". */
    if (op_is_arg(r.op))
        return 16;
    if (r.op == SB_COUNT)
        return 8;
    return type_bits(accumulator_of(r)) / 8;
}

/* ------------------------------------------------------------------------
 * The half types, from their definitions
 *
 * ORDER.md: "f16 (IEEE binary16) and bf16 (bfloat16) ... With the input
 * type as accumulator, every step is rounded to that type (nearest even,
 * subnormals kept); a NaN result is the canonical quiet NaN 0x7E00 (f16)
 * or 0x7FC0 (bf16)."
 *
 * A 16-bit pattern is a sign bit, an exponent field of 16 - p bits and a
 * fraction of p - 1 bits (p: the precision). Both formats are described by
 * their parameters alone, and every value is read and written through
 * decode(): a value is found among the patterns, never built from bits
 * by arithmetic on them. Values are held in doubles, which hold every
 * value of both formats exactly (and every product of two of them).
 * ---------------------------------------------------------------------- */

typedef struct {
    int      precision;      /* p, the leading bit included */
    int      max_exponent;   /* emax; the exponent bias; emin = 1 - emax */
    uint16_t canonical_nan;
} half_format;

static const half_format binary16 = { 11, 15, 0x7E00 };   /* IEEE 754 */
static const half_format bfloat16 = { 8, 127, 0x7FC0 };   /* binary32's top */

static const half_format *format_of(sb_type t)
{
    return t == SB_F16 ? &binary16 : &bfloat16;
}

static unsigned fraction_bits(const half_format *f)
{
    return (unsigned)f->precision - 1;
}

static unsigned exponent_field_max(const half_format *f)
{
    return (1u << (16 - f->precision)) - 1;    /* all ones: inf and NaN */
}

/* The positive pattern of +inf; the one below it is the largest finite. */
static unsigned infinity_pattern(const half_format *f)
{
    return exponent_field_max(f) << fraction_bits(f);
}

/* The value of a pattern (IEEE 754, 3.4): field E = 0 is a subnormal
 * F 2^(emin - (p-1)); otherwise (2^(p-1) + F) 2^(E - bias - (p-1)). */
static double decode(const half_format *f, unsigned pattern)
{
    const unsigned sign = (pattern >> 15) & 1;
    const unsigned field = (pattern >> fraction_bits(f)) & exponent_field_max(f);
    const unsigned fraction = pattern & ((1u << fraction_bits(f)) - 1);
    const int emin = 1 - f->max_exponent;
    double magnitude;
    if (field == exponent_field_max(f))
        magnitude = fraction == 0 ? INFINITY : NAN;
    else if (field == 0)
        magnitude = ldexp((double)fraction, emin - (int)fraction_bits(f));
    else
        magnitude = ldexp((double)((1u << fraction_bits(f)) + fraction),
                          (int)field - f->max_exponent - (int)fraction_bits(f));
    return sign ? -magnitude : magnitude;
}

/* Whether the real number hi + lo is at least `value` (hi: the double
 * nearest to it, lo: the exact rest). Rounding is monotonic, so hi > value
 * means the real number is above it, hi < value below; when hi == value
 * the rest decides. */
static int compare_exact(double hi, double lo, double value)
{
    if (hi != value)
        return hi > value ? 1 : -1;
    return lo > 0 ? 1 : lo < 0 ? -1 : 0;
}

/* The value of format f nearest to the real number hi + lo (as above; lo
 * is 0 when hi is exact), ties to the even pattern; beyond the largest
 * finite value it is rounded as if the exponent went on (the next value
 * being 2^(emax+1)) and becomes inf if it gets there (IEEE 754, 7.4). */
static double round_exact(const half_format *f, double hi, double lo)
{
    if (isnan(hi) || isinf(hi))
        return hi;
    if (hi == 0)
        return hi;              /* an exact zero: its sign is the step's */
    const bool negative = hi < 0;
    if (negative) {
        hi = -hi;
        lo = -lo;
    }
    /* The neighbours: the largest finite pattern at or below the number
     * (binary search; patterns of positive values increase with them),
     * and the one after it. */
    unsigned below = 0, top = infinity_pattern(f) - 1;
    while (below < top) {
        const unsigned middle = below + (top - below + 1) / 2;
        if (compare_exact(hi, lo, decode(f, middle)) >= 0)
            below = middle;
        else
            top = middle - 1;
    }
    const unsigned above = below + 1;
    const double low_value = decode(f, below);
    const double high_value = above == infinity_pattern(f)
                            ? ldexp(1.0, f->max_exponent + 1)
                            : decode(f, above);
    const double midpoint = (low_value + high_value) / 2;   /* exact */
    const int side = compare_exact(hi, lo, midpoint);
    unsigned chosen;
    if (compare_exact(hi, lo, low_value) == 0)
        chosen = below;                          /* exactly representable */
    else if (side < 0)
        chosen = below;
    else if (side > 0)
        chosen = above;
    else
        chosen = below % 2 == 0 ? below : above; /* a tie: the even one */
    const double value = decode(f, chosen);      /* inf for the inf pattern */
    return negative ? -value : value;
}

/* The pattern of a value of format f (a NaN: the canonical one): the
 * positive pattern whose value is |value| (binary search, as above), and
 * the sign. */
static unsigned encode(const half_format *f, double value)
{
    if (isnan(value))
        return f->canonical_nan;
    const unsigned sign = signbit(value) ? 0x8000u : 0;
    unsigned low = 0, high = infinity_pattern(f);
    while (low < high) {
        const unsigned middle = low + (high - low) / 2;
        if (decode(f, middle) < fabs(value))
            low = middle + 1;
        else
            high = middle;
    }
    if (decode(f, low) != fabs(value))
        abort();    /* not a value of f: the oracle itself is wrong */
    return sign | low;
}

/* ------------------------------------------------------------------------
 * Reading one element, exactly
 * ---------------------------------------------------------------------- */

/* One input element without any rounding: an integer of any input type
 * fits `integer`, and a binary32 converts to binary64 exactly. */
typedef struct {
    bool   is_float;
    int128 integer;    /* when !is_float */
    double real;       /* when is_float */
} exact_value;

static exact_value read_element(sb_type t, const void *x, size_t i)
{
    const unsigned char *at = (const unsigned char *)x + i * (type_bits(t) / 8);
    exact_value v = { false, 0, 0.0 };
    switch (t) {
    case SB_I8:  { int8_t   e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_U8:  { uint8_t  e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_I16: { int16_t  e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_U16: { uint16_t e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_I32: { int32_t  e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_U32: { uint32_t e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_I64: { int64_t  e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_U64: { uint64_t e; memcpy(&e, at, sizeof e); v.integer = e; break; }
    case SB_F32: { float    e; memcpy(&e, at, sizeof e); v.is_float = true;
                   v.real = (double)e; break; }
    case SB_F64: { double   e; memcpy(&e, at, sizeof e); v.is_float = true;
                   v.real = e; break; }
    case SB_F16:
    case SB_BF16: { uint16_t e; memcpy(&e, at, sizeof e); v.is_float = true;
                    v.real = decode(format_of(t), e); break; }
    case SB_SAME_AS_INPUT: break;   /* not a type */
    }
    return v;
}

/* ORDER.md: "any and all read an element as true iff it is not equal to
 * zero (x != 0; for floats a NaN is true, -0.0 is false)." */
static bool element_is_true(exact_value v)
{
    return v.is_float ? v.real != 0.0 : v.integer != 0;
}

/* Whether an element is a float NaN (a binary32 NaN stays a NaN when read
 * as binary64). Integers have no NaN. */
static bool element_is_nan(exact_value v)
{
    return v.is_float && isnan(v.real);
}

/* ------------------------------------------------------------------------
 * Nodes: a leaf value or a tree node, or `none`
 * ---------------------------------------------------------------------- */

typedef struct {
    bool has;            /* false: `none`, no value */
    union {
        int64_t  i;      /* signed integer accumulators (i8 .. i64) */
        uint64_t u;      /* unsigned integer accumulators (u8 .. u64) */
        float    f;      /* f32 */
        double   d;      /* f64, and f16 / bf16 (their values are doubles) */
        bool     b;      /* any, all */
    } v;
    uint64_t position;   /* argmin / argmax: "the position of the element
                            whose value the fold and the tree carried" */
} node;

static const node none = { false, { 0 }, 0 };

/* What a reduction computes in, fixed once per call. */
typedef struct {
    sb_op   op;
    sb_type acc;         /* the accumulator type (unused by any/all) */
    bool    wrap;        /* SB_WRAP */
    sb_map  map;         /* r.map (always SB_MAP_NONE for a dot product) */
    bool    skip_nan;    /* SB_SKIP_NAN */
} reducer;

/* What is reduced: the elements x[0..n), or for a dot product the terms
 * x[i] * y[i]. */
typedef struct {
    sb_type              input;
    const void          *x;
    bool                 is_dot;
    const void          *y;     /* the second factors of a dot product */
    const unsigned char *mask;  /* NULL: every position takes part */
    size_t               n;
} elements;

/* "Each element that takes part is converted to A first." The conversion
 * is exact because only exact pairs pass validation. */
static node convert_to_accumulator(const reducer *rd, exact_value e)
{
    node out = { true, { 0 }, 0 };
    if (op_is_boolean(rd->op)) {
        out.v.b = element_is_true(e);
    } else if (rd->acc == SB_F32) {
        out.v.f = e.is_float ? (float)e.real : (float)e.integer;
    } else if (rd->acc == SB_F64 || type_is_half(rd->acc)) {
        /* A half accumulator takes only its own input type: exact. */
        out.v.d = e.is_float ? e.real : (double)e.integer;
    } else if (type_is_signed_integer(rd->acc)) {
        out.v.i = (int64_t)e.integer;
    } else {
        out.v.u = (uint64_t)e.integer;
    }
    return out;
}

/* The start value of sum, prod, any, all ("sum 0 (+0.0 for floats), prod 1,
 * any false, all true"). */
static node start_value(const reducer *rd)
{
    node out = { true, { 0 }, 0 };
    const int one = rd->op == SB_PROD ? 1 : 0;
    switch (rd->op) {
    case SB_ANY: out.v.b = false; return out;
    case SB_ALL: out.v.b = true;  return out;
    default: break;
    }
    if (rd->acc == SB_F32)
        out.v.f = (float)one;               /* +0.0f or 1.0f */
    else if (rd->acc == SB_F64 || type_is_half(rd->acc))
        out.v.d = (double)one;              /* +0.0 or 1.0 */
    else if (type_is_signed_integer(rd->acc))
        out.v.i = one;
    else
        out.v.u = (uint64_t)one;
    return out;
}

/* ------------------------------------------------------------------------
 * Integers: "overflow follows the tree"
 * ---------------------------------------------------------------------- */

/* Checked: "if any step's exact result does not fit A, the reduction fails
 * with the status overflow". Wrapping: "two's-complement arithmetic modulo
 * 2^bits(A)". `exact` is the step's exact result. */
static bool signed_result(const reducer *rd, int128 exact, int64_t *out)
{
    const unsigned bits = type_bits(rd->acc);
    const int128 lowest = -((int128)1 << (bits - 1));
    const int128 highest = ((int128)1 << (bits - 1)) - 1;
    if (exact >= lowest && exact <= highest) {
        *out = (int64_t)exact;
        return true;
    }
    if (!rd->wrap)
        return false;
    /* Keep the low `bits` bits (in unsigned arithmetic, which is defined
     * modulo 2^128), then read them as a two's-complement number. */
    const uint128 modulus = (uint128)1 << bits;
    const uint128 low = (uint128)exact & (modulus - 1);
    const int128 value = low > (uint128)highest ? (int128)low - (int128)modulus
                                                : (int128)low;
    *out = (int64_t)value;
    return true;
}

static bool unsigned_result(const reducer *rd, uint128 exact, uint64_t *out)
{
    const unsigned bits = type_bits(rd->acc);
    const uint128 highest = ((uint128)1 << bits) - 1;
    if (exact <= highest) {
        *out = (uint64_t)exact;
        return true;
    }
    if (!rd->wrap)
        return false;
    *out = (uint64_t)(exact & highest);
    return true;
}

/* ------------------------------------------------------------------------
 * One step: v = l OP r (a leaf-fold step or a tree combine)
 * ---------------------------------------------------------------------- */

static float float_step(sb_op op, float l, float r)
{
    volatile float result;  /* rounded to binary32 here, once */
    switch (op) {
    case SB_SUM:  result = l + r; break;
    case SB_PROD: result = l * r; break;
    case SB_MIN:  result = r < l ? r : l; break;
    default:      result = r > l ? r : l; break;       /* SB_MAX */
    }
    return result;
}

static double double_step(sb_op op, double l, double r)
{
    volatile double result; /* rounded to binary64 here, once */
    switch (op) {
    case SB_SUM:  result = l + r; break;
    case SB_PROD: result = l * r; break;
    case SB_MIN:  result = r < l ? r : l; break;
    default:      result = r > l ? r : l; break;       /* SB_MAX */
    }
    return result;
}

/* A step "as if in" f16 / bf16: the exact result, rounded once. A product
 * of two half values is exact in binary64 (at most 22 bits, exponents far
 * inside its range). A sum need not be (2^127 + 2^-133 in bf16), so it is
 * taken as hi + lo, hi the rounded binary64 sum and lo its exact error
 * (Knuth's TwoSum, exact in binary64 when nothing overflows, which sums
 * of two half values cannot). min and max pick an operand: exact. */
static double half_step(const half_format *f, sb_op op, double l, double r)
{
    volatile double hi, lo = 0.0;
    switch (op) {
    case SB_SUM: {
        hi = l + r;
        if (isfinite(hi)) {
            volatile double r_part = hi - l;
            volatile double l_part = hi - r_part;
            lo = (l - l_part) + (r - r_part);
        }
        break;
    }
    case SB_PROD: hi = l * r; break;
    case SB_MIN:  return r < l ? r : l;
    default:      return r > l ? r : l;              /* SB_MAX */
    }
    return round_exact(f, hi, lo);
}

/* argmin / argmax: whether r replaces l, "only when strictly smaller /
 * larger" (comparisons with a NaN are false, so a NaN never replaces and
 * is never replaced). Compared in the accumulator. */
static bool arg_replaces(const reducer *rd, node l, node r)
{
    const bool min = rd->op == SB_ARGMIN;
    if (rd->acc == SB_F32)
        return min ? r.v.f < l.v.f : r.v.f > l.v.f;
    if (rd->acc == SB_F64 || type_is_half(rd->acc))
        return min ? r.v.d < l.v.d : r.v.d > l.v.d;
    if (type_is_signed_integer(rd->acc))
        return min ? r.v.i < l.v.i : r.v.i > l.v.i;
    return min ? r.v.u < l.v.u : r.v.u > l.v.u;
}

/* Computes `l OP r` for two nodes that both have a value. For min and max
 * the right operand replaces the left only if strictly smaller / larger:
 * this is the leaf fold's "x replaces v only if x < v" with l = v, r = x,
 * and the tree's "r < l ? r : l". Returns false on a checked overflow. */
static bool step(const reducer *rd, node l, node r, node *out)
{
    out->has = true;
    if (op_is_arg(rd->op)) {
        /* The whole node, value and position, of the side that wins. */
        *out = arg_replaces(rd, l, r) ? r : l;
        return true;
    }
    switch (rd->op) {
    case SB_ANY: out->v.b = l.v.b || r.v.b; return true;
    case SB_ALL: out->v.b = l.v.b && r.v.b; return true;
    default: break;
    }
    if (rd->acc == SB_F32) {
        out->v.f = float_step(rd->op, l.v.f, r.v.f);
        return true;
    }
    if (rd->acc == SB_F64) {
        out->v.d = double_step(rd->op, l.v.d, r.v.d);
        return true;
    }
    if (type_is_half(rd->acc)) {
        out->v.d = half_step(format_of(rd->acc), rd->op, l.v.d, r.v.d);
        return true;
    }
    if (type_is_signed_integer(rd->acc)) {
        const int128 a = l.v.i, b = r.v.i;
        switch (rd->op) {
        case SB_SUM:  return signed_result(rd, a + b, &out->v.i);
        case SB_PROD: return signed_result(rd, a * b, &out->v.i);
        case SB_MIN:  out->v.i = b < a ? r.v.i : l.v.i; return true;
        default:      out->v.i = b > a ? r.v.i : l.v.i; return true;
        }
    }
    const uint128 a = l.v.u, b = r.v.u;
    switch (rd->op) {
    case SB_SUM:  return unsigned_result(rd, a + b, &out->v.u);
    case SB_PROD: return unsigned_result(rd, a * b, &out->v.u);
    case SB_MIN:  out->v.u = b < a ? r.v.u : l.v.u; return true;
    default:      out->v.u = b > a ? r.v.u : l.v.u; return true;
    }
}

/* "combine(l, r): if l is none the result is r; if r is none the result is
 * l; [otherwise l OP r]". */
static bool combine(const reducer *rd, node l, node r, node *out)
{
    if (!l.has) {
        *out = r;
        return true;
    }
    if (!r.has) {
        *out = l;
        return true;
    }
    return step(rd, l, r, out);
}

/* ------------------------------------------------------------------------
 * The leaf fold
 * ---------------------------------------------------------------------- */

enum { LEAF_SIZE = 16 };

static bool takes_part(const unsigned char *mask, size_t i)
{
    return mask == NULL || mask[i] != 0;
}

/* ------------------------------------------------------------------------
 * Element maps and dot-product terms
 *
 * ORDER.md: "A map (abs, square) is applied to each taking-part element
 * after its conversion to A, in A: abs is exact for floats; square is one
 * rounded multiplication. For integers, an abs or square that does not fit
 * A (abs(INT32_MIN) in i32) is an overflow under checked arithmetic, for
 * every operation including min, max, argmin and argmax, or wraps modulo
 * 2^bits(A) in the wrapping mode."
 * ---------------------------------------------------------------------- */

/* |e| in A. Floats: "exact (the sign bit cleared, NaNs included)"
 * (samebits.h), so the bit is cleared, not computed. Integers: the exact
 * |e| in 128 bits, then checked or wrapped like any step. An unsigned
 * accumulator holds no negative value: |e| = e. */
static bool absolute(const reducer *rd, node e, node *out)
{
    *out = e;
    if (rd->acc == SB_F32) {
        uint32_t bits;
        memcpy(&bits, &e.v.f, sizeof bits);
        bits &= UINT32_C(0x7FFFFFFF);
        memcpy(&out->v.f, &bits, sizeof bits);
        return true;
    }
    if (rd->acc == SB_F64 || type_is_half(rd->acc)) {
        uint64_t bits;
        memcpy(&bits, &e.v.d, sizeof bits);
        bits &= UINT64_C(0x7FFFFFFFFFFFFFFF);
        memcpy(&out->v.d, &bits, sizeof bits);
        return true;
    }
    if (type_is_signed_integer(rd->acc)) {
        const int128 exact = e.v.i < 0 ? -(int128)e.v.i : (int128)e.v.i;
        return signed_result(rd, exact, &out->v.i);
    }
    return true;
}

/* a * b in A: one rounded float multiplication (stored through a volatile,
 * never fused with what follows), or the exact integer product in 128 bits
 * (|INT64_MIN|^2 = 2^126 and (2^64-1)^2 < 2^128 fit), checked or wrapped.
 * Returns false on a checked overflow. */
static bool multiply(const reducer *rd, node a, node b, node *out)
{
    out->has = true;
    if (rd->acc == SB_F32) {
        volatile float product = a.v.f * b.v.f;
        out->v.f = product;
        return true;
    }
    if (rd->acc == SB_F64) {
        volatile double product = a.v.d * b.v.d;
        out->v.d = product;
        return true;
    }
    if (type_is_half(rd->acc)) {
        out->v.d = half_step(format_of(rd->acc), SB_PROD, a.v.d, b.v.d);
        return true;
    }
    if (type_is_signed_integer(rd->acc))
        return signed_result(rd, (int128)a.v.i * (int128)b.v.i, &out->v.i);
    return unsigned_result(rd, (uint128)a.v.u * (uint128)b.v.u, &out->v.u);
}

static bool apply_map(const reducer *rd, node e, node *out)
{
    switch (rd->map) {
    case SB_MAP_ABS:    return absolute(rd, e, out);
    case SB_MAP_SQUARE: return multiply(rd, e, e, out);
    case SB_MAP_NONE:   break;
    }
    *out = e;
    return true;
}

typedef enum {
    ELEMENT_SKIPPED,     /* does not take part */
    ELEMENT_TAKES_PART,  /* *out holds its value in A */
    ELEMENT_OVERFLOW     /* its map or product does not fit A (checked) */
} element_status;

/* Position i as it enters the leaf fold. */
static element_status take_element(const reducer *rd, const elements *in,
                                   size_t i, node *out)
{
    /* "element i takes part iff mask[i] != 0" */
    if (!takes_part(in->mask, i))
        return ELEMENT_SKIPPED;
    const exact_value a = read_element(in->input, in->x, i);
    if (!in->is_dot) {
        /* "Skipping NaNs (on request): a float element that is a NaN does
         * not take part, exactly as if its mask byte were 0". */
        if (rd->skip_nan && element_is_nan(a))
            return ELEMENT_SKIPPED;
        /* "Each element that takes part is converted to A first", then the
         * map "is applied ... after its conversion to A, in A". */
        return apply_map(rd, convert_to_accumulator(rd, a), out)
             ? ELEMENT_TAKES_PART : ELEMENT_OVERFLOW;
    }
    const exact_value b = read_element(in->input, in->y, i);
    /* sb_dot_host(): with SB_SKIP_NAN "a term is skipped when either
     * factor is a NaN". */
    if (rd->skip_nan && (element_is_nan(a) || element_is_nan(b)))
        return ELEMENT_SKIPPED;
    /* "A dot product's element i is x[i] * y[i], both converted to A
     * first, one rounded multiplication (never fused with the following
     * addition); then the sum order above." */
    return multiply(rd, convert_to_accumulator(rd, a),
                    convert_to_accumulator(rd, b), out)
         ? ELEMENT_TAKES_PART : ELEMENT_OVERFLOW;
}

/* Folds leaf `j` (positions 16j .. min(16j+15, n-1)) left to right.
 * sum/prod/any/all: v = start; v = v OP x for each taking-part x.
 * min/max: v = the first taking-part element; later ones replace it only
 * if strictly smaller / larger. No taking-part element: none. */
static bool fold_leaf(const reducer *rd, const elements *in, size_t j,
                      node *out)
{
    const size_t n = in->n;
    const size_t first = j * LEAF_SIZE;
    const size_t last = first + LEAF_SIZE - 1 < n - 1 ? first + LEAF_SIZE - 1
                                                      : n - 1;
    const bool has_start = !op_has_no_start(rd->op);
    bool any_taking_part = false;
    node v = has_start ? start_value(rd) : none;
    for (size_t i = first; i <= last; i++) {
        node e;
        const element_status status = take_element(rd, in, i, &e);
        if (status == ELEMENT_SKIPPED)
            continue;
        if (status == ELEMENT_OVERFLOW)
            return false;          /* "an overflow ... for every operation" */
        e.position = i;            /* "counted from the reduction's first
                                      element (0-based)" */
        any_taking_part = true;
        if (!v.has) {
            v = e;                 /* min/max: the first taking-part element */
        } else if (!step(rd, v, e, &v)) {
            return false;
        }
    }
    *out = any_taking_part ? v : none;
    return true;
}

/* ------------------------------------------------------------------------
 * The result
 * ---------------------------------------------------------------------- */

/* Writes a node that has a value, in the accumulator's format. A NaN is
 * written as the canonical quiet NaN. */
static void write_result(const reducer *rd, node root, void *result)
{
    if (op_is_boolean(rd->op)) {
        const uint8_t b = root.v.b ? 1 : 0;
        memcpy(result, &b, 1);
        return;
    }
    if (op_is_arg(rd->op)) {
        /* API-2.md: "value is what SB_MIN / SB_MAX returns (the first
         * sb_type_size(accumulator) bytes; the rest zero); index is the
         * position". Written as min / max writes it, then the index. */
        const reducer as_min_max = { rd->op == SB_ARGMIN ? SB_MIN : SB_MAX,
                                     rd->acc, rd->wrap, rd->map,
                                     rd->skip_nan };
        unsigned char record[16] = { 0 };
        write_result(&as_min_max, root, record);
        memcpy(record + 8, &root.position, 8);
        memcpy(result, record, 16);
        return;
    }
    switch (rd->acc) {
    case SB_F32: {
        uint32_t bits;
        memcpy(&bits, &root.v.f, 4);
        if (isnan(root.v.f))
            bits = UINT32_C(0x7FC00000);
        memcpy(result, &bits, 4);
        return;
    }
    case SB_F64: {
        uint64_t bits;
        memcpy(&bits, &root.v.d, 8);
        if (isnan(root.v.d))
            bits = UINT64_C(0x7FF8000000000000);
        memcpy(result, &bits, 8);
        return;
    }
    case SB_I8:  { int8_t   v = (int8_t)root.v.i;   memcpy(result, &v, 1); return; }
    case SB_I16: { int16_t  v = (int16_t)root.v.i;  memcpy(result, &v, 2); return; }
    case SB_I32: { int32_t  v = (int32_t)root.v.i;  memcpy(result, &v, 4); return; }
    case SB_I64: { int64_t  v = root.v.i;           memcpy(result, &v, 8); return; }
    case SB_U8:  { uint8_t  v = (uint8_t)root.v.u;  memcpy(result, &v, 1); return; }
    case SB_U16: { uint16_t v = (uint16_t)root.v.u; memcpy(result, &v, 2); return; }
    case SB_U32: { uint32_t v = (uint32_t)root.v.u; memcpy(result, &v, 4); return; }
    case SB_U64: { uint64_t v = root.v.u;           memcpy(result, &v, 8); return; }
    case SB_F16:
    case SB_BF16: {
        const uint16_t v = (uint16_t)encode(format_of(rd->acc), root.v.d);
        memcpy(result, &v, 2);
        return;
    }
    case SB_SAME_AS_INPUT: return;   /* not a type */
    }
}

/* ------------------------------------------------------------------------
 * The whole reduction
 * ---------------------------------------------------------------------- */

/* The reduction of `in` (validated by the caller). */
static sb_status reduce_elements(sb_reduction r, const elements *in,
                                 void *result)
{
    const reducer rd = { r.op, accumulator_of(r), (r.flags & SB_WRAP) != 0,
                         r.map, (r.flags & SB_SKIP_NAN) != 0 };
    const size_t n = in->n;
    const size_t leaves = n / LEAF_SIZE + (n % LEAF_SIZE != 0);
    node root = none;

    /* "count is the number of taking-part elements, an unsigned 64-bit
     * integer: order-free, never overflows, 0 when nothing takes part." */
    if (r.op == SB_COUNT) {
        uint64_t count = 0;
        for (size_t i = 0; i < n; i++) {
            node e;
            if (take_element(&rd, in, i, &e) != ELEMENT_SKIPPED)
                count++;
        }
        memcpy(result, &count, 8);
        return SB_OK;
    }

    if (leaves > 0) {
        /* Level 0: the leaf values. */
        node *level = malloc(leaves * sizeof *level);
        node *upper = malloc((leaves + 1) / 2 * sizeof *upper);
        if (level == NULL || upper == NULL) {
            free(level);
            free(upper);
            return SB_OUT_OF_MEMORY;
        }
        for (size_t j = 0; j < leaves; j++) {
            if (!fold_leaf(&rd, in, j, &level[j])) {
                free(level);
                free(upper);
                return SB_OVERFLOW;
            }
        }
        /* Level k+1 from level k: nodes 0 and 1, 2 and 3, ...; an odd last
         * node moves up unchanged. Until one node, the root, is left. */
        size_t count = leaves;
        while (count > 1) {
            size_t up = 0;
            for (size_t i = 0; i + 1 < count; i += 2) {
                if (!combine(&rd, level[i], level[i + 1], &upper[up++])) {
                    free(level);
                    free(upper);
                    return SB_OVERFLOW;
                }
            }
            if (count % 2 == 1)
                upper[up++] = level[count - 1];
            memcpy(level, upper, up * sizeof *level);
            count = up;
        }
        root = level[0];
        free(level);
        free(upper);
    }

    /* "the root, if it is not none; otherwise: sum 0, prod 1, any false,
     * all true, and for min/max the status empty." */
    if (!root.has) {
        if (op_has_no_start(r.op))   /* min, max, argmin, argmax */
            return SB_EMPTY;
        root = start_value(&rd);
    }
    write_result(&rd, root, result);
    return SB_OK;
}

sb_status oracle_reduce(sb_reduction r, const void *x,
                        const unsigned char *mask, size_t n, void *result)
{
    if (!oracle_reduction_is_valid(r) || result == NULL)
        return SB_INVALID_ARGUMENT;
    if (n > 0 && x == NULL)
        return SB_INVALID_ARGUMENT;
    const elements in = { r.input, x, false, NULL, mask, n };
    return reduce_elements(r, &in, result);
}

sb_status oracle_dot(sb_reduction r, const void *x, const void *y,
                     const unsigned char *mask, size_t n, void *result)
{
    if (!oracle_dot_is_valid(r) || result == NULL)
        return SB_INVALID_ARGUMENT;
    if (n > 0 && (x == NULL || y == NULL))
        return SB_INVALID_ARGUMENT;
    const elements in = { r.input, x, true, y, mask, n };
    return reduce_elements(r, &in, result);
}
