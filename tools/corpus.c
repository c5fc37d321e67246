/* corpus.c: the golden conformance corpus: the case list and the input
 * generator (see corpus.h). docs/corpus.md specifies both in words; any
 * change here that changes an input or the list is a new CORPUS_VERSION
 * and a regenerated tests/golden/corpus.golden.
 *
 * Every input element is a pure function of the case id: one splitmix64
 * draw per element, in order, from a state seeded with the FNV-1a hash of
 * the id (the mask has its own stream, seeded from the id + "/mask").
 * Floats are built from their sign, exponent and mantissa fields, or by
 * one correctly rounded IEEE operation, so no platform can round them
 * differently. */
#include "corpus.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 corpus_i128;

/* ---- the generator -------------------------------------------------------- */

uint64_t corpus_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t corpus_hash(const char *text)
{
    uint64_t h = UINT64_C(0xCBF29CE484222325);           /* FNV-1a, 64 bits */
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        h ^= *p;
        h *= UINT64_C(0x100000001B3);
    }
    return h;
}

/* ---- names ---------------------------------------------------------------- */

static const char *const family_names[CORPUS_FAMILY_COUNT] = {
    [CORPUS_UNIFORM] = "uniform",         [CORPUS_HUGE_RANGE] = "huge_range",
    [CORPUS_CANCEL] = "cancel",           [CORPUS_ALTERNATING] = "alternating",
    [CORPUS_HARMONIC] = "harmonic",       [CORPUS_SUBNORMAL] = "subnormal",
    [CORPUS_SPECIALS] = "specials",       [CORPUS_NEGZERO] = "negzero",
    [CORPUS_LIMITS] = "limits",           [CORPUS_SMALL] = "small",
    [CORPUS_EDGE_HIGH] = "edge_high",     [CORPUS_EDGE_LOW] = "edge_low",
    [CORPUS_PROD_EDGE] = "prod_edge",     [CORPUS_NEAR_MAX] = "near_max",
    [CORPUS_NAN_LEAVES] = "nan_leaves",
};

static const char *const mask_names[CORPUS_MASK_COUNT] = {
    [CORPUS_MASK_NONE] = "nomask",        [CORPUS_MASK_HALF] = "half",
    [CORPUS_MASK_SPARSE] = "sparse",      [CORPUS_MASK_DENSE] = "dense",
    [CORPUS_MASK_EMPTY_LEAVES] = "empty_leaves",
    [CORPUS_MASK_ALT_LEAVES] = "alt_leaves",
    [CORPUS_MASK_ZERO] = "zero",
};

const char *corpus_family_name(corpus_family f)
{
    return (unsigned)f < CORPUS_FAMILY_COUNT ? family_names[f] : "?";
}

const char *corpus_mask_name(corpus_mask m)
{
    return (unsigned)m < CORPUS_MASK_COUNT ? mask_names[m] : "?";
}

/* ---- types ------------------------------------------------------------------ */

static int is_float(sb_type t) { return t == SB_F32 || t == SB_F64; }

static int is_half(sb_type t) { return t == SB_F16 || t == SB_BF16; }

static int is_signed(sb_type t)
{
    return t == SB_I8 || t == SB_I16 || t == SB_I32 || t == SB_I64;
}

static unsigned bits_of(sb_type t) { return (unsigned)sb_type_size(t) * 8; }

/* The accumulators docs/order.md and samebits.h allow for each input, the input
 * itself first; the list ends at 0. */
static const sb_type accumulators[SB_F64 + 1][8] = {
    [SB_I8]  = { SB_I8,  SB_I32, SB_I64, SB_F32, SB_F64 },
    [SB_U8]  = { SB_U8,  SB_U32, SB_U64, SB_I32, SB_I64, SB_F32, SB_F64 },
    [SB_I16] = { SB_I16, SB_I32, SB_I64, SB_F32, SB_F64 },
    [SB_U16] = { SB_U16, SB_U32, SB_U64, SB_I32, SB_I64, SB_F32, SB_F64 },
    [SB_I32] = { SB_I32, SB_I64, SB_F64 },
    [SB_U32] = { SB_U32, SB_U64, SB_I64, SB_F64 },
    [SB_I64] = { SB_I64 },
    [SB_U64] = { SB_U64 },
    [SB_F32] = { SB_F32, SB_F64 },
    [SB_F64] = { SB_F64 },
};

static const sb_type all_types[] = { SB_I8, SB_U8, SB_I16, SB_U16, SB_I32,
                                     SB_U32, SB_I64, SB_U64, SB_F32, SB_F64 };
#define TYPE_COUNT (sizeof all_types / sizeof all_types[0])

/* ---- integers --------------------------------------------------------------- */

static corpus_i128 int_min(sb_type t)
{
    return is_signed(t) ? -((corpus_i128)1 << (bits_of(t) - 1)) : 0;
}

static corpus_i128 int_max(sb_type t)
{
    return is_signed(t) ? ((corpus_i128)1 << (bits_of(t) - 1)) - 1
                        : ((corpus_i128)1 << bits_of(t)) - 1;
}

static corpus_i128 clamp(corpus_i128 v, corpus_i128 lo, corpus_i128 hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* The low `bits` bits of r, read as a two's-complement or unsigned value. */
static corpus_i128 low_bits(uint64_t r, unsigned bits, int sign)
{
    const uint64_t m = bits == 64 ? ~(uint64_t)0 : (UINT64_C(1) << bits) - 1;
    const uint64_t u = r & m;
    if (sign && bits < 64 && (u >> (bits - 1)))
        return (corpus_i128)u - ((corpus_i128)1 << bits);
    if (sign && bits == 64)
        return (corpus_i128)(int64_t)u;
    return (corpus_i128)u;
}

/* Stores v (already in range) as element i of integer type t. */
static void put_int(sb_type t, void *x, size_t i, corpus_i128 v)
{
    const uint64_t u = (uint64_t)v;       /* two's complement, low 64 bits */
    switch (bits_of(t)) {
    case 8:  { const uint8_t b = (uint8_t)u;   memcpy((char *)x + i, &b, 1); break; }
    case 16: { const uint16_t b = (uint16_t)u; memcpy((char *)x + 2 * i, &b, 2); break; }
    case 32: { const uint32_t b = (uint32_t)u; memcpy((char *)x + 4 * i, &b, 4); break; }
    default: memcpy((char *)x + 8 * i, &u, 8); break;
    }
}

/* The sum the edge families aim at: the accumulator's maximum (high) or
 * minimum (low); for a float accumulator, +-2^24 (f32) or +-2^53 (f64),
 * where sums of integers stop being exact. */
static corpus_i128 edge_target(sb_type acc, int high)
{
    if (is_float(acc)) {
        const corpus_i128 t = (corpus_i128)1 << (acc == SB_F32 ? 24 : 53);
        return high ? t : -t;
    }
    return high ? int_max(acc) : int_min(acc);
}

static corpus_i128 int_element(const corpus_case *c, size_t i, uint64_t r)
{
    const sb_type t = c->r.input;
    const unsigned w = bits_of(t);
    const int sign = is_signed(t);
    const corpus_i128 lo = int_min(t), hi = int_max(t);
    switch (c->family) {
    case CORPUS_HUGE_RANGE: {
        const unsigned shift = (unsigned)((r >> 58) % w);
        const corpus_i128 v = low_bits(r, w, sign);
        /* An arithmetic shift of the signed value: floor(v / 2^shift). */
        return v >= 0 ? v >> shift : -((-v - 1) >> shift) - 1;
    }
    case CORPUS_ALTERNATING: {
        const corpus_i128 m = (corpus_i128)(r & ((UINT64_C(1) << (w - 2)) - 1));
        if (sign)
            return i % 2 == 0 ? m : -m;
        return i % 2 == 0 ? ((corpus_i128)1 << (w - 1)) + m : m;
    }
    case CORPUS_SMALL:
        return sign ? (corpus_i128)(r % 7) - 3 : (corpus_i128)(r % 4);
    case CORPUS_LIMITS: {
        const corpus_i128 table[7] = { lo, hi, lo + 1, hi - 1, 0, 1,
                                       sign ? -1 : 2 };
        return table[r % 7];
    }
    case CORPUS_EDGE_HIGH:
    case CORPUS_EDGE_LOW: {
        const corpus_i128 target = edge_target(c->r.accumulator,
                                               c->family == CORPUS_EDGE_HIGH);
        const corpus_i128 base = clamp(target / (corpus_i128)(c->n ? c->n : 1),
                                       lo, hi);
        return clamp(base + (corpus_i128)(r % 5) - 2, lo, hi);
    }
    case CORPUS_PROD_EDGE:
        switch (r % 64) {
        case 0:  return 2;
        case 1:  return sign ? -1 : 3;
        case 2:  return sign ? -2 : 2;
        default: return 1;
        }
    case CORPUS_UNIFORM:
    default:
        return low_bits(r, w, sign);
    }
}

/* ---- floats ----------------------------------------------------------------- */

typedef struct {
    unsigned mant_bits;     /* 23, 52; f16 10, bf16 7 */
    uint64_t exp_max;       /* the all-ones exponent field: 255, 2047; 31 */
    uint64_t bias;          /* 127, 1023; 15 */
    unsigned cancel_bits;   /* low mantissa bits redrawn by CORPUS_CANCEL */
    unsigned sign_bit;      /* 31, 63, 15 */
    uint64_t cancel_exp;    /* CORPUS_CANCEL's even elements: exponent field */
    uint64_t cancel_span;   /* bias + cancel_exp + ((r >> 52) & cancel_span) */
} float_format;

static const float_format f32_format = { 23, 255, 127, 8, 31, 16, 15 };
static const float_format f64_format = { 52, 2047, 1023, 16, 63, 16, 15 };
static const float_format f16_format = { 10, 31, 15, 4, 15, 4, 3 };
static const float_format bf16_format = { 7, 255, 127, 3, 15, 4, 3 };

static const float_format *format_of(sb_type t)
{
    switch (t) {
    case SB_F32:  return &f32_format;
    case SB_F16:  return &f16_format;
    case SB_BF16: return &bf16_format;
    default:      return &f64_format;
    }
}

static uint64_t fields(const float_format *f, uint64_t sign, uint64_t exp,
                       uint64_t mant)
{
    const uint64_t mmask = (UINT64_C(1) << f->mant_bits) - 1;
    return (sign & 1) << f->sign_bit | exp << f->mant_bits | (mant & mmask);
}

/* k * 2^-M - 1 for the (M+1)-bit integer k: exact in the type. */
static uint64_t uniform_bits(sb_type t, uint64_t k)
{
    if (is_half(t)) {
        /* A multiple of 2^-M in [-1, 1): zero, or a normal of the half
         * type (|v| >= 2^-M >= 2^-14) whose M + 1 significant bits fit. */
        const float_format *f = format_of(t);
        const uint64_t one = UINT64_C(1) << f->mant_bits;      /* k of 0.0 */
        if (k == one)
            return 0;
        const uint64_t sign = k < one;
        uint64_t mag = sign ? one - k : k - one;   /* |v| * 2^M, 1 .. 2^M */
        uint64_t e = f->bias;                      /* |v| = mag * 2^-M */
        while (mag < one) {                        /* normalise to [1, 2) */
            mag <<= 1;
            e--;
        }
        return fields(f, sign, e, mag);
    }
    const double v = (double)k * (t == SB_F32 ? 0x1p-23 : 0x1p-52) - 1.0;
    if (t == SB_F32) {
        const float f = (float)v;          /* exact: no rounding */
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

/* The bits of element i of a float case; `prev` holds element i-1's. */
static uint64_t float_element(const corpus_case *c, size_t i, uint64_t r,
                              uint64_t prev)
{
    const sb_type t = c->r.input;
    const float_format *f = format_of(t);
    const unsigned m = f->mant_bits;
    switch (c->family) {
    case CORPUS_HUGE_RANGE:
        return fields(f, r >> 63, 1 + ((r >> 52) & 0x7FF) % (f->exp_max - 1), r);
    case CORPUS_CANCEL:
        if (i % 2 == 0)
            return fields(f, r >> 63, f->bias + f->cancel_exp
                                          + ((r >> 52) & f->cancel_span), r);
        else {
            const uint64_t low = (UINT64_C(1) << f->cancel_bits) - 1;
            const uint64_t sign = UINT64_C(1) << f->sign_bit;
            return ((prev ^ sign) & ~low) | (r & low);
        }
    case CORPUS_ALTERNATING:
        return fields(f, i & 1, f->bias, r >> (64 - m));
    case CORPUS_HARMONIC:
        if (t == SB_F32) {
            const float v = 1.0f / (float)(i + 1);   /* i + 1 <= 2^24: exact */
            uint32_t b;
            memcpy(&b, &v, 4);
            return b;
        } else {
            const double v = 1.0 / (double)(i + 1);
            uint64_t b;
            memcpy(&b, &v, 8);
            return b;
        }
    case CORPUS_SUBNORMAL:
        return fields(f, r >> 63, ((r >> 52) & 7) == 0 ? 1 : 0, r);
    case CORPUS_SPECIALS: {
        const uint64_t which = (r >> 56) & 0xFF;
        const uint64_t top = f->exp_max, quiet = UINT64_C(1) << (m - 1);
        switch (which) {
        case 0: return fields(f, 0, top, 0);                /* +inf */
        case 1: return fields(f, 1, top, 0);                /* -inf */
        case 2: return fields(f, 0, top, quiet);            /* +qNaN */
        case 3: return fields(f, 1, top, quiet | 1);        /* -qNaN, payload */
        case 4: return fields(f, 0, top, 1);                /* sNaN */
        case 5: return fields(f, 0, top - 1, ~(uint64_t)0); /* +max */
        case 6: return fields(f, 1, top - 1, ~(uint64_t)0); /* -max */
        case 7: return fields(f, 1, 0, 0);                  /* -0 */
        default:
            return uniform_bits(t, r & ((UINT64_C(1) << (m + 1)) - 1));
        }
    }
    case CORPUS_NEGZERO:
        return fields(f, 1, 0, 0);
    case CORPUS_LIMITS: {
        const uint64_t v = r % 10;
        const uint64_t sign = v & 1;
        switch (v / 2) {
        case 0:  return fields(f, sign, f->exp_max - 1, ~(uint64_t)0); /* max */
        case 1:  return fields(f, sign, 1, 0);        /* min normal */
        case 2:  return fields(f, sign, 0, 1);        /* min subnormal */
        case 3:  return fields(f, sign, 0, 0);        /* zero */
        default: return fields(f, sign, f->bias, 0); /* one */
        }
    }
    case CORPUS_NEAR_MAX:       /* the two top binades, 1/16 negative */
        return fields(f, (r >> 60) == 0, f->exp_max - 1 - ((r >> 52) & 1), r);
    case CORPUS_NAN_LEAVES:     /* odd leaves: quiet NaNs of any payload */
        if ((i / 16) % 2 == 1)
            return fields(f, r >> 63, f->exp_max,
                          (UINT64_C(1) << (m - 1)) | r);
        return uniform_bits(t, r >> (63 - m));
    case CORPUS_UNIFORM:
    default:
        return uniform_bits(t, r >> (63 - m));
    }
}

static void fill_stream(const corpus_case *c, uint64_t state, void *x)
{
    uint64_t prev = 0;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t r = corpus_splitmix64(&state);
        if (c->r.input == SB_F32) {
            const uint32_t b = (uint32_t)float_element(c, i, r, prev);
            memcpy((char *)x + 4 * i, &b, 4);
            prev = b;
        } else if (c->r.input == SB_F64) {
            const uint64_t b = float_element(c, i, r, prev);
            memcpy((char *)x + 8 * i, &b, 8);
            prev = b;
        } else if (is_half(c->r.input)) {
            const uint16_t b = (uint16_t)float_element(c, i, r, prev);
            memcpy((char *)x + 2 * i, &b, 2);
            prev = b;
        } else {
            put_int(c->r.input, x, i, int_element(c, i, r));
        }
    }
}

void corpus_fill(const corpus_case *c, void *x)
{
    fill_stream(c, corpus_hash(c->id), x);
}

void corpus_fill_y(const corpus_case *c, void *y)
{
    char seed_text[sizeof c->id + 8];
    snprintf(seed_text, sizeof seed_text, "%s/y", c->id);
    fill_stream(c, corpus_hash(seed_text), y);
}

void corpus_fill_mask(const corpus_case *c, unsigned char *mask)
{
    if (c->mask == CORPUS_MASK_NONE)
        return;
    char seed_text[sizeof c->id + 8];
    snprintf(seed_text, sizeof seed_text, "%s/mask", c->id);
    uint64_t state = corpus_hash(seed_text);
    int leaf_empty = 0;
    for (size_t i = 0; i < c->n; i++) {
        const uint64_t q = corpus_splitmix64(&state);
        int take;
        switch (c->mask) {
        case CORPUS_MASK_HALF:   take = (int)(q >> 63); break;
        case CORPUS_MASK_SPARSE: take = (q >> 60) == 0; break;
        case CORPUS_MASK_DENSE:  take = (q >> 60) != 0; break;
        case CORPUS_MASK_EMPTY_LEAVES:
            if (i % 16 == 0)
                leaf_empty = (int)((q >> 62) & 1);
            take = !leaf_empty && (q >> 63);
            break;
        case CORPUS_MASK_ALT_LEAVES: take = (i / 16) % 2 == 0; break;
        default: take = 0; break;
        }
        /* A taking-part byte is any non-zero value, not just 1. */
        mask[i] = take ? (unsigned char)(1 + (q & 0xFF) % 255) : 0;
    }
}

/* ---- the case list ------------------------------------------------------------ */

static int family_applies(corpus_family f, sb_type input, sb_type acc)
{
    if (is_half(input))     /* no harmonic: C has no half type to divide in */
        return (f <= CORPUS_LIMITS && f != CORPUS_HARMONIC)
            || f == CORPUS_NEAR_MAX || f == CORPUS_NAN_LEAVES;
    if (f > CORPUS_PROD_EDGE)
        return 0;
    if (is_float(input))
        return f <= CORPUS_LIMITS;
    switch (f) {
    case CORPUS_UNIFORM: case CORPUS_HUGE_RANGE: case CORPUS_ALTERNATING:
    case CORPUS_LIMITS: case CORPUS_SMALL: case CORPUS_EDGE_HIGH:
    case CORPUS_PROD_EDGE:
        return 1;
    case CORPUS_EDGE_LOW:
        return is_signed(acc) || is_float(acc);
    default:
        return 0;
    }
}

/* The k-th family (cyclically) that applies to (input, acc). */
static corpus_family nth_family(size_t k, sb_type input, sb_type acc)
{
    corpus_family list[CORPUS_FAMILY_COUNT];
    size_t count = 0;
    for (int f = 0; f < CORPUS_FAMILY_COUNT; f++)
        if (family_applies((corpus_family)f, input, acc))
            list[count++] = (corpus_family)f;
    return list[k % count];
}

typedef struct {
    corpus_case *cases;
    size_t count, cap;
    int failed;
} case_list;

/* A case of one reduction, or of a batch (layout, count, length), with
 * its id; n is set by the caller. */
static corpus_case make_case(sb_op op, sb_type input, sb_type acc,
                             unsigned flags, sb_map map, int dot,
                             corpus_family f, corpus_mask m,
                             corpus_layout layout, size_t count,
                             size_t length, size_t n, int quick)
{
    corpus_case c;
    memset(&c, 0, sizeof c);
    c.r.op = op;
    c.r.input = input;
    c.r.accumulator = acc;
    c.r.flags = flags;
    c.r.map = map;
    c.dot = dot;
    c.family = f;
    c.mask = m;
    c.n = n;
    c.quick = quick;
    c.layout = layout;
    c.count = count;
    c.length = length;
    char shape[48];
    if (layout == CORPUS_ONE)
        snprintf(shape, sizeof shape, "n%zu", n);
    else
        snprintf(shape, sizeof shape, "%s%zux%zu",
                 layout == CORPUS_ROWS ? "rows"
                 : layout == CORPUS_COLUMNS ? "cols" : "segs", count, length);
    snprintf(c.id, sizeof c.id, "%s.%s.%s%s%s%s.%s.%s.%s",
             dot ? "dot" : sb_op_name(op), sb_type_name(input),
             sb_type_name(acc), (flags & SB_WRAP) ? ".wrap" : "",
             map == SB_MAP_ABS ? ".abs" : map == SB_MAP_SQUARE ? ".square" : "",
             (flags & SB_SKIP_NAN) ? ".skipnan" : "", family_names[f],
             mask_names[m], shape);
    return c;
}

static void append_case(case_list *l, const corpus_case *cp)
{
    const corpus_case c = *cp;
    if (l->failed)
        return;
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->cases[i].id, c.id) == 0)
            return;                      /* already in the list */
    if (l->count == l->cap) {
        const size_t cap = l->cap ? 2 * l->cap : 1024;
        corpus_case *grown = realloc(l->cases, cap * sizeof *grown);
        if (grown == NULL) {
            l->failed = 1;
            return;
        }
        l->cases = grown;
        l->cap = cap;
    }
    l->cases[l->count++] = c;
}

static void add_full(case_list *l, sb_op op, sb_type input, sb_type acc,
                     unsigned flags, sb_map map, int dot, corpus_family f,
                     corpus_mask m, size_t n, int quick)
{
    const corpus_case c = make_case(op, input, acc, flags, map, dot, f, m,
                                    CORPUS_ONE, 0, 0, n, quick);
    append_case(l, &c);
}

/* A batch: `count` rows or columns of `length` elements, or `count`
 * segments of 0 to `length`, whose n is their offsets' end. */
static void add_batch(case_list *l, sb_op op, sb_type input, sb_type acc,
                      unsigned flags, sb_map map, corpus_family f,
                      corpus_mask m, corpus_layout layout, size_t count,
                      size_t length, int quick)
{
    if (count == 0) {       /* a batch has a golden line per reduction */
        l->failed = 1;
        return;
    }
    corpus_case c = make_case(op, input, acc, flags, map, 0, f, m, layout,
                              count, length, count * length, quick);
    if (layout == CORPUS_SEGMENTS) {
        uint64_t *off = malloc((count + 1) * sizeof *off);
        if (off == NULL) {
            l->failed = 1;
            return;
        }
        corpus_offsets(&c, off);
        c.n = (size_t)off[count];
        free(off);
    }
    append_case(l, &c);
}

size_t corpus_answers(const corpus_case *c)
{
    return c->layout == CORPUS_ONE ? 1 : c->count;
}

void corpus_offsets(const corpus_case *c, uint64_t *offsets)
{
    char key[sizeof c->id + 16];
    snprintf(key, sizeof key, "%s/offsets", c->id);
    uint64_t state = corpus_hash(key);
    offsets[0] = 0;
    for (size_t b = 0; b < c->count; b++) {
        const uint64_t r = corpus_splitmix64(&state);
        const uint64_t len = c->layout == CORPUS_ROWS ? c->length
                           : b % 7 == 3 ? 0 : r % (c->length + 1);
        offsets[b + 1] = offsets[b] + len;
    }
}

size_t corpus_gather(const corpus_case *c, size_t b, const void *x,
                     const unsigned char *mask, void *row,
                     unsigned char *row_mask)
{
    const size_t size = sb_type_size(c->r.input);
    size_t first = 0, len = c->n, step = 1;
    if (c->layout == CORPUS_ROWS) {
        first = b * c->length;
        len = c->length;
    } else if (c->layout == CORPUS_COLUMNS) {
        first = b;
        len = c->length;
        step = c->count;
    } else if (c->layout == CORPUS_SEGMENTS) {
        /* The offsets' stream again, up to segment b (corpus_offsets()'s
         * rule, without its array): a batch is small. */
        char key[sizeof c->id + 16];
        snprintf(key, sizeof key, "%s/offsets", c->id);
        uint64_t state = corpus_hash(key);
        len = 0;
        for (size_t k = 0; k <= b; k++) {
            const uint64_t r = corpus_splitmix64(&state);
            first += len;
            len = k % 7 == 3 ? 0 : (size_t)(r % (c->length + 1));
        }
    }
    for (size_t i = 0; i < len; i++) {
        const size_t at = first + i * step;
        memcpy((unsigned char *)row + i * size,
               (const unsigned char *)x + at * size, size);
        if (mask != NULL)
            row_mask[i] = mask[at];
    }
    return len;
}

static void add(case_list *l, sb_op op, sb_type input, sb_type acc,
                unsigned flags, corpus_family f, corpus_mask m, size_t n,
                int quick)
{
    add_full(l, op, input, acc, flags, SB_MAP_NONE, 0, f, m, n, quick);
}

/* Sizes across the leaf (16) and power-of-two boundaries, up to 2^20 + 1:
 * the small ones (at most QUICK_MAX_N, in the --quick subset) and the
 * large ones. */
static const size_t small_sizes[] = {
    0, 1, 2, 15, 16, 17, 31, 32, 33, 255, 256, 257, 1000,
};
static const size_t large_sizes[] = {
    4095, 4096, 4097, 65535, 65536, 65537, 100003, 262144, 1048575, 1048576,
    1048577,
};
#define SMALL_SIZES (sizeof small_sizes / sizeof small_sizes[0])
#define LARGE_SIZES (sizeof large_sizes / sizeof large_sizes[0])

/* The mask kinds a masked grid case takes in turn. */
static const corpus_mask grid_masks[] = {
    CORPUS_MASK_HALF, CORPUS_MASK_SPARSE, CORPUS_MASK_DENSE,
    CORPUS_MASK_EMPTY_LEAVES, CORPUS_MASK_ALT_LEAVES, CORPUS_MASK_ZERO,
};
#define GRID_MASKS (sizeof grid_masks / sizeof grid_masks[0])

enum { QUICK_MAX_N = 1000, QUICK_SWEEP_MAX_N = 4097 };

/* Part 1, the grid: every op x input x accumulator x (checked, wrapping)
 * twice, once without and once with a mask. One of the two takes the next
 * small size, the other the next large size (alternately), so that the
 * --quick subset still holds every reduction; the families take turns. */
static void add_grid(case_list *l)
{
    size_t j = 0, k = 0;   /* reductions so far, cases so far */
    for (int op = SB_SUM; op <= SB_ALL; op++)
        for (size_t ti = 0; ti < TYPE_COUNT; ti++) {
            const sb_type in = all_types[ti];
            for (size_t ai = 0; ai < 8 && accumulators[in][ai] != 0; ai++) {
                const sb_type acc = accumulators[in][ai];
                if ((op == SB_ANY || op == SB_ALL) && acc != in)
                    continue;
                const int can_wrap = (op == SB_SUM || op == SB_PROD)
                                     && !is_float(acc);
                for (unsigned wrap = 0; wrap <= (unsigned)can_wrap; wrap++, j++)
                    for (int masked = 0; masked <= 1; masked++, k++) {
                        const int small = masked == (int)(j % 2);
                        const size_t n = small
                            ? small_sizes[(j * 5) % SMALL_SIZES]
                            : large_sizes[(j * 3) % LARGE_SIZES];
                        add(l, (sb_op)op, in, acc, wrap ? SB_WRAP : 0,
                            nth_family(k, in, acc),
                            masked ? grid_masks[(j / 2) % GRID_MASKS]
                                   : CORPUS_MASK_NONE,
                            n, small);
                    }
            }
        }
}

/* Part 2, the families: representative reductions, each over every family
 * that applies, at three sizes (the middle one masked). */
static void add_families(case_list *l)
{
    static const struct { sb_op op; sb_type in, acc; unsigned flags; } reps[] = {
        { SB_SUM, SB_F32, SB_F32, 0 }, { SB_SUM, SB_F64, SB_F64, 0 },
        { SB_SUM, SB_F32, SB_F64, 0 }, { SB_PROD, SB_F64, SB_F64, 0 },
        { SB_MIN, SB_F32, SB_F32, 0 }, { SB_MAX, SB_F64, SB_F64, 0 },
        { SB_ANY, SB_F32, SB_F32, 0 }, { SB_ALL, SB_F64, SB_F64, 0 },
        { SB_SUM, SB_I32, SB_I32, 0 }, { SB_SUM, SB_I32, SB_I32, SB_WRAP },
        { SB_SUM, SB_I8, SB_I32, 0 },  { SB_SUM, SB_I64, SB_I64, 0 },
        { SB_SUM, SB_U16, SB_F32, 0 }, { SB_PROD, SB_I32, SB_I32, 0 },
        { SB_PROD, SB_U64, SB_U64, SB_WRAP }, { SB_MIN, SB_I16, SB_I16, 0 },
        { SB_MAX, SB_U32, SB_U32, 0 }, { SB_ANY, SB_I8, SB_I8, 0 },
        { SB_ALL, SB_U64, SB_U64, 0 },
    };
    size_t k = 0;   /* (reduction, family) pairs so far */
    for (size_t i = 0; i < sizeof reps / sizeof reps[0]; i++)
        for (int f = 0; f < CORPUS_FAMILY_COUNT; f++) {
            if (!family_applies((corpus_family)f, reps[i].in, reps[i].acc))
                continue;
            add(l, reps[i].op, reps[i].in, reps[i].acc, reps[i].flags,
                (corpus_family)f, CORPUS_MASK_NONE, 17, 1);
            add(l, reps[i].op, reps[i].in, reps[i].acc, reps[i].flags,
                (corpus_family)f, grid_masks[k++ % GRID_MASKS], 4097, 0);
            add(l, reps[i].op, reps[i].in, reps[i].acc, reps[i].flags,
                (corpus_family)f, CORPUS_MASK_NONE, 100003, 0);
        }
}

/* Part 3, the sizes: 16 * 2^k - 1, 16 * 2^k and 16 * 2^k + 1 elements, so
 * that the leaf count crosses every power of two, for three reductions;
 * and every n from 0 to 33 for a masked sum. */
static void add_sweeps(case_list *l)
{
    for (unsigned k = 0; k <= 16; k++)
        for (size_t d = 0; d < 3; d++) {
            const size_t n = ((size_t)16 << k) - 1 + d;
            const int quick = n <= QUICK_SWEEP_MAX_N;
            add(l, SB_SUM, SB_F32, SB_F32, 0, CORPUS_UNIFORM, CORPUS_MASK_NONE,
                n, quick);
            if (k > 12)
                continue;
            add(l, SB_MIN, SB_F64, SB_F64, 0, CORPUS_SPECIALS,
                CORPUS_MASK_EMPTY_LEAVES, n, quick);
            add(l, SB_SUM, SB_I64, SB_I64, 0, CORPUS_EDGE_HIGH,
                CORPUS_MASK_NONE, n, quick);
        }
    for (size_t n = 0; n <= 33; n++)
        add(l, SB_SUM, SB_F64, SB_F64, 0, CORPUS_UNIFORM, CORPUS_MASK_HALF, n, 1);
}

/* Representative reductions of parts 4 to 6: for each, every family that
 * applies, in table order, unmasked at n = 17 (quick), masked at n = 4097
 * with the next mask kind (counted across the list: k), and the first
 * family also unmasked at n = 100003. */
typedef struct {
    sb_op op; sb_type in, acc; unsigned flags; int map, dot;
} representative;

static void add_representatives(case_list *l, const representative *reps,
                                size_t count)
{
    size_t k = 0;   /* (reduction, family) pairs so far */
    for (size_t i = 0; i < count; i++) {
        const representative *r = &reps[i];
        int first = 1;
        for (int f = 0; f < CORPUS_FAMILY_COUNT; f++) {
            if (!family_applies((corpus_family)f, r->in, r->acc))
                continue;
            const sb_map map = (sb_map)r->map;
            add_full(l, r->op, r->in, r->acc, r->flags, map, r->dot,
                     (corpus_family)f, CORPUS_MASK_NONE, 17, 1);
            add_full(l, r->op, r->in, r->acc, r->flags, map, r->dot,
                     (corpus_family)f, grid_masks[k++ % GRID_MASKS], 4097, 0);
            if (first)
                add_full(l, r->op, r->in, r->acc, r->flags, map, r->dot,
                         (corpus_family)f, CORPUS_MASK_NONE, 100003, 0);
            first = 0;
        }
    }
}

/* Part 4, maps, NaN skipping and dot products: representative
 * reductions, each over every family that applies, unmasked at n = 17
 * and masked at n = 4097; the first family also at n = 100003. */
static void add_maps(case_list *l)
{
    enum { ABS = SB_MAP_ABS, SQ = SB_MAP_SQUARE, SKIP = SB_SKIP_NAN,
           WRAP = SB_WRAP };
    static const representative reps[] = {
        { SB_SUM, SB_F32, SB_F32, 0, ABS, 0 },
        { SB_SUM, SB_F64, SB_F64, 0, ABS, 0 },
        { SB_SUM, SB_F32, SB_F64, 0, SQ, 0 },
        { SB_SUM, SB_F64, SB_F64, 0, SQ, 0 },
        { SB_PROD, SB_F32, SB_F32, 0, SQ, 0 },
        { SB_MAX, SB_F32, SB_F32, 0, ABS, 0 },
        { SB_MIN, SB_F64, SB_F64, 0, ABS, 0 },
        { SB_SUM, SB_I32, SB_I32, 0, ABS, 0 },
        { SB_MAX, SB_I32, SB_I32, 0, ABS, 0 },
        { SB_MAX, SB_I32, SB_I64, 0, ABS, 0 },
        { SB_SUM, SB_I16, SB_I32, 0, SQ, 0 },
        { SB_SUM, SB_I32, SB_I32, WRAP, SQ, 0 },
        { SB_MIN, SB_I8, SB_I8, WRAP, ABS, 0 },
        { SB_SUM, SB_F32, SB_F32, SKIP, 0, 0 },
        { SB_MIN, SB_F32, SB_F32, SKIP, 0, 0 },
        { SB_MAX, SB_F64, SB_F64, SKIP, 0, 0 },
        { SB_ANY, SB_F64, SB_F64, SKIP, 0, 0 },
        { SB_SUM, SB_F64, SB_F64, SKIP, SQ, 0 },
        { SB_MAX, SB_F32, SB_F32, SKIP, ABS, 0 },
        { SB_SUM, SB_F32, SB_F32, 0, 0, 1 },
        { SB_SUM, SB_F64, SB_F64, 0, 0, 1 },
        { SB_SUM, SB_F32, SB_F64, 0, 0, 1 },
        { SB_SUM, SB_F32, SB_F32, SKIP, 0, 1 },
        { SB_SUM, SB_I32, SB_I32, 0, 0, 1 },
        { SB_SUM, SB_I32, SB_I64, 0, 0, 1 },
        { SB_SUM, SB_I16, SB_I16, WRAP, 0, 1 },
        { SB_SUM, SB_U8, SB_U32, 0, 0, 1 },
    };
    add_representatives(l, reps, sizeof reps / sizeof reps[0]);
}

/* Part 5, the half types: every reduction of an f16 or bf16 input (op x
 * input x accumulator) across the leaf edges, four sizes of thousands
 * (three masked) and 100003; then maps, NaN skipping and dot products as
 * in part 4. The families take turns with the sizes. */
static void add_halves(case_list *l)
{
    static const size_t sizes[] = { 0, 1, 15, 16, 17, 31, 32, 33,
                                    4095, 4096, 4097, 100003 };
    enum { SIZES = sizeof sizes / sizeof sizes[0] };
    static const sb_type halves[] = { SB_F16, SB_BF16 };
    size_t j = 0;   /* reductions so far */
    for (int op = SB_SUM; op <= SB_ALL; op++)
        for (size_t hi = 0; hi < 2; hi++) {
            const sb_type in = halves[hi];
            const sb_type accs[] = { in, SB_F32, SB_F64 };
            const size_t acc_count = op == SB_ANY || op == SB_ALL ? 1 : 3;
            for (size_t ai = 0; ai < acc_count; ai++, j++) {
                for (size_t t = 0; t < SIZES; t++) {
                    const size_t n = sizes[t];
                    const int masked = n >= 4095 && n <= 4097;
                    add(l, (sb_op)op, in, accs[ai], 0,
                        nth_family(j + t, in, accs[ai]),
                        masked ? grid_masks[(j + t) % GRID_MASKS]
                               : CORPUS_MASK_NONE,
                        n, n <= 33);
                }
            }
        }

    enum { ABS = SB_MAP_ABS, SQ = SB_MAP_SQUARE, SKIP = SB_SKIP_NAN };
    static const representative reps[] = {
        { SB_SUM, SB_F16, SB_F16, 0, ABS, 0 },
        { SB_SUM, SB_BF16, SB_F32, 0, ABS, 0 },
        { SB_SUM, SB_F16, SB_F32, 0, SQ, 0 },
        { SB_SUM, SB_BF16, SB_BF16, 0, SQ, 0 },
        { SB_SUM, SB_F16, SB_F64, 0, SQ, 0 },
        { SB_PROD, SB_F16, SB_F32, 0, SQ, 0 },
        { SB_MAX, SB_F16, SB_F16, 0, ABS, 0 },
        { SB_MIN, SB_BF16, SB_BF16, 0, ABS, 0 },
        { SB_MAX, SB_BF16, SB_F64, 0, ABS, 0 },
        { SB_SUM, SB_F16, SB_F16, SKIP, 0, 0 },
        { SB_SUM, SB_BF16, SB_F32, SKIP, 0, 0 },
        { SB_PROD, SB_F16, SB_F16, SKIP, 0, 0 },
        { SB_MIN, SB_F16, SB_F16, SKIP, 0, 0 },
        { SB_MAX, SB_BF16, SB_BF16, SKIP, 0, 0 },
        { SB_MIN, SB_BF16, SB_F64, SKIP, 0, 0 },
        { SB_ANY, SB_F16, SB_F16, SKIP, 0, 0 },
        { SB_ALL, SB_BF16, SB_BF16, SKIP, 0, 0 },
        { SB_SUM, SB_F16, SB_F32, SKIP, SQ, 0 },
        { SB_MAX, SB_BF16, SB_BF16, SKIP, ABS, 0 },
        { SB_SUM, SB_F16, SB_F16, 0, 0, 1 },
        { SB_SUM, SB_F16, SB_F32, 0, 0, 1 },
        { SB_SUM, SB_F16, SB_F64, 0, 0, 1 },
        { SB_SUM, SB_BF16, SB_BF16, 0, 0, 1 },
        { SB_SUM, SB_BF16, SB_F32, 0, 0, 1 },
        { SB_SUM, SB_BF16, SB_F64, 0, 0, 1 },
        { SB_SUM, SB_F16, SB_F32, SKIP, 0, 1 },
        { SB_SUM, SB_BF16, SB_BF16, SKIP, 0, 1 },
    };
    add_representatives(l, reps, sizeof reps / sizeof reps[0]);
}

/* Part 6, positions and counts: argmin and argmax (the position the fold
 * and the tree carried to the root, NaNs and signed-zero ties deciding;
 * widened, mapped as BLAS i?amax, wrapping, NaN-skipping, half inputs)
 * and count (masks and NaN skipping deciding), each over every family
 * that applies as in part 4. */
static void add_positions(case_list *l)
{
    enum { ABS = SB_MAP_ABS, SKIP = SB_SKIP_NAN, WRAP = SB_WRAP };
    static const representative reps[] = {
        { SB_ARGMIN, SB_F32, SB_F32, 0, 0, 0 },
        { SB_ARGMAX, SB_F64, SB_F64, 0, 0, 0 },
        { SB_ARGMIN, SB_F32, SB_F64, 0, 0, 0 },
        { SB_ARGMAX, SB_F32, SB_F32, 0, ABS, 0 },
        { SB_ARGMIN, SB_F64, SB_F64, SKIP, 0, 0 },
        { SB_ARGMAX, SB_I32, SB_I32, 0, 0, 0 },
        { SB_ARGMIN, SB_I8, SB_I32, 0, 0, 0 },
        { SB_ARGMAX, SB_I16, SB_I16, 0, ABS, 0 },
        { SB_ARGMAX, SB_I32, SB_I32, WRAP, ABS, 0 },
        { SB_ARGMIN, SB_U64, SB_U64, 0, 0, 0 },
        { SB_ARGMIN, SB_F16, SB_F16, 0, 0, 0 },
        { SB_ARGMAX, SB_BF16, SB_F32, SKIP, 0, 0 },
        { SB_COUNT, SB_F32, SB_F32, SKIP, 0, 0 },
        { SB_COUNT, SB_F64, SB_F64, 0, 0, 0 },
        { SB_COUNT, SB_I8, SB_I8, 0, 0, 0 },
        { SB_COUNT, SB_U64, SB_U64, 0, 0, 0 },
        { SB_COUNT, SB_F16, SB_F16, SKIP, 0, 0 },
    };
    add_representatives(l, reps, sizeof reps / sizeof reps[0]);
}

/* Part 7, batches: representative reductions as rows, columns and
 * segments of one input (sb_reduce_batched, sb_reduce_segments), each
 * reduction its own golden line; most small enough for --quick. */
static void add_batches(case_list *l)
{
    enum { ABS = SB_MAP_ABS, SKIP = SB_SKIP_NAN, ROWS = CORPUS_ROWS,
           COLS = CORPUS_COLUMNS, SEGS = CORPUS_SEGMENTS };
    static const struct {
        sb_op op; sb_type in, acc; unsigned flags; int map;
        corpus_family f; corpus_mask m; int layout;
        size_t count, length; int quick;
    } batches[] = {
        { SB_SUM, SB_F32, SB_F32, 0, 0, CORPUS_SPECIALS,
          CORPUS_MASK_EMPTY_LEAVES, ROWS, 37, 33, 1 },
        { SB_SUM, SB_I32, SB_I32, 0, 0, CORPUS_LIMITS, CORPUS_MASK_NONE,
          ROWS, 25, 17, 1 },
        { SB_ARGMIN, SB_F64, SB_F64, 0, 0, CORPUS_SPECIALS, CORPUS_MASK_HALF,
          ROWS, 20, 100, 1 },
        { SB_COUNT, SB_F32, SB_F32, SKIP, 0, CORPUS_SPECIALS,
          CORPUS_MASK_NONE, ROWS, 9, 257, 1 },
        { SB_MAX, SB_F16, SB_F32, 0, 0, CORPUS_NAN_LEAVES, CORPUS_MASK_NONE,
          ROWS, 12, 40, 1 },
        { SB_PROD, SB_I16, SB_I32, 0, 0, CORPUS_PROD_EDGE,
          CORPUS_MASK_SPARSE, ROWS, 30, 64, 1 },
        { SB_SUM, SB_F32, SB_F32, 0, 0, CORPUS_UNIFORM, CORPUS_MASK_NONE,
          ROWS, 1000, 16, 0 },
        { SB_SUM, SB_F64, SB_F64, 0, 0, CORPUS_CANCEL, CORPUS_MASK_NONE,
          ROWS, 3, 100003, 0 },
        { SB_SUM, SB_F32, SB_F32, 0, 0, CORPUS_UNIFORM, CORPUS_MASK_NONE,
          COLS, 40, 50, 1 },
        { SB_MAX, SB_F64, SB_F64, 0, 0, CORPUS_SPECIALS, CORPUS_MASK_NONE,
          COLS, 17, 33, 1 },
        { SB_ARGMAX, SB_I32, SB_I32, 0, 0, CORPUS_SMALL, CORPUS_MASK_HALF,
          COLS, 16, 100, 1 },
        { SB_SUM, SB_BF16, SB_BF16, 0, 0, CORPUS_NEAR_MAX, CORPUS_MASK_NONE,
          COLS, 24, 20, 1 },
        { SB_SUM, SB_F32, SB_F64, 0, 0, CORPUS_HARMONIC,
          CORPUS_MASK_EMPTY_LEAVES, COLS, 33, 1000, 0 },
        { SB_MIN, SB_F32, SB_F32, 0, ABS, CORPUS_SPECIALS, CORPUS_MASK_NONE,
          COLS, 100, 300, 0 },
        { SB_SUM, SB_F32, SB_F32, 0, 0, CORPUS_SPECIALS, CORPUS_MASK_NONE,
          SEGS, 60, 100, 1 },
        { SB_MIN, SB_F64, SB_F64, 0, 0, CORPUS_SPECIALS,
          CORPUS_MASK_EMPTY_LEAVES, SEGS, 40, 120, 1 },
        { SB_ARGMAX, SB_F32, SB_F32, 0, ABS, CORPUS_SPECIALS,
          CORPUS_MASK_NONE, SEGS, 50, 64, 1 },
        { SB_COUNT, SB_I8, SB_I8, 0, 0, CORPUS_UNIFORM, CORPUS_MASK_ALT_LEAVES,
          SEGS, 30, 50, 1 },
        { SB_SUM, SB_F16, SB_F16, 0, 0, CORPUS_SUBNORMAL, CORPUS_MASK_NONE,
          SEGS, 35, 70, 1 },
        { SB_SUM, SB_I64, SB_I64, 0, 0, CORPUS_EDGE_HIGH, CORPUS_MASK_NONE,
          SEGS, 20, 2000, 0 },
        { SB_SUM, SB_F32, SB_F32, 0, 0, CORPUS_UNIFORM, CORPUS_MASK_NONE,
          SEGS, 2000, 40, 0 },
    };
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++)
        add_batch(l, batches[i].op, batches[i].in, batches[i].acc,
                  batches[i].flags, (sb_map)batches[i].map, batches[i].f,
                  batches[i].m, (corpus_layout)batches[i].layout,
                  batches[i].count, batches[i].length, batches[i].quick);
}

const corpus_case *corpus_cases(size_t *count)
{
    static case_list list;
    if (list.count == 0 && !list.failed) {
        add_grid(&list);
        add_families(&list);
        add_sweeps(&list);
        add_maps(&list);
        add_halves(&list);
        add_positions(&list);
        add_batches(&list);
        if (list.failed) {
            free(list.cases);
            list.cases = NULL;
            list.count = 0;
        }
    }
    *count = list.count;
    return list.cases;
}

/* ---- results and golden lines ------------------------------------------------- */

const char *corpus_status_word(sb_status s)
{
    switch (s) {
    case SB_OK:               return "ok";
    case SB_EMPTY:            return "empty";
    case SB_OVERFLOW:         return "overflow";
    case SB_INVALID_ARGUMENT: return "invalid-argument";
    case SB_UNSUPPORTED:      return "unsupported";
    case SB_OUT_OF_MEMORY:    return "out-of-memory";
    case SB_OPENCL_ERROR:     return "opencl-error";
    case SB_BUILD_ERROR:      return "build-error";
    }
    return "unknown-status";
}

void corpus_format_result(char *buf, size_t size, sb_reduction r,
                          sb_status s, const void *result)
{
    if (s != SB_OK) {
        snprintf(buf, size, "- %s", corpus_status_word(s));
        return;
    }
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    /* count is a uint64_t whatever the input (sb_result_size()). */
    const size_t bytes = (r.op == SB_ANY || r.op == SB_ALL) ? 1
                       : r.op == SB_COUNT ? 8 : bits_of(acc) / 8;
    uint64_t v = 0;
    switch (bytes) {
    case 1: { uint8_t b;  memcpy(&b, result, 1); v = b; break; }
    case 2: { uint16_t b; memcpy(&b, result, 2); v = b; break; }
    case 4: { uint32_t b; memcpy(&b, result, 4); v = b; break; }
    default: memcpy(&v, result, 8); break;
    }
    snprintf(buf, size, "0x%0*" PRIx64 " ok", (int)(2 * bytes), v);
}

void corpus_format_answer(char *buf, size_t size, sb_reduction r,
                          sb_status s, const void *result)
{
    corpus_format_result(buf, size, r, s, result);
    if (s != SB_OK || (r.op != SB_ARGMIN && r.op != SB_ARGMAX))
        return;
    uint64_t index;                      /* sb_arg_result: index at byte 8 */
    memcpy(&index, (const unsigned char *)result + 8, sizeof index);
    const size_t bits = strcspn(buf, " ");
    char value[40];
    snprintf(value, sizeof value, "%.*s", (int)bits, buf);
    snprintf(buf, size, "%s@%" PRIu64 " ok", value, index);
}

const char *corpus_golden_header(void)
{
    return "# tests/golden/corpus.golden: the expected result of every case of the\n"
           "# samebits conformance corpus (tools/corpus.c, docs/corpus.md), computed by\n"
           "# the oracle (tests/oracle.c). One line per case, in corpus order:\n"
           "#   <case-id> <result-bits> <status>\n"
           "# (argmin/argmax: <value-bits>@<position>); a batch (part 7) has a\n"
           "# line per reduction b, its id <case-id>/<b>.\n"
           "# Written by `cmake --build build --target write-golden`; never by hand.\n"
           "# A changed line is a change to the contract: say so in the commit message.\n";
}
