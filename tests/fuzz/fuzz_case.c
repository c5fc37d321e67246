/* tests/fuzz/fuzz_case.c: the fuzzers' input decoder (format in
 * fuzz_case.h) and the floating-point environments the host path is called
 * in. Every byte string decodes to a case; the decoder never calls the
 * library, it only uses the oracle to list the allowed accumulators. */
#include "fuzz_case.h"

#include <fenv.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"
#include "support.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define FUZZ_HAVE_MXCSR 1
#endif

/* ------------------------------------------------------------------------
 * Values
 * ---------------------------------------------------------------------- */

/* Special values per float type, as bits: zeros, ones, limits, subnormals,
 * infinities, NaNs (quiet, negative with payload, signalling), values at
 * the edge of exactness, and plain decimals. */
static const uint32_t specials_f32[32] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x40000000, 0x3f000000,
    0x40400000, 0xc0400000, 0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000,
    0x00000001, 0x80000001, 0x007fffff, 0x7f800000, 0xff800000, 0x7fc00000,
    0xffc00001, 0x7f800001, 0x4b800000, 0x4b800001, 0x33800000, 0x34000000,
    0x3f800001, 0x3dcccccd, 0xbdcccccd, 0x5f000000, 0x1f800000, 0x7f000000,
    0x3fffffff, 0xcb800000,
};
static const uint64_t specials_f64[32] = {
    0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000,
    0xbff0000000000000, 0x4000000000000000, 0x3fe0000000000000,
    0x4008000000000000, 0xc008000000000000, 0x7fefffffffffffff,
    0xffefffffffffffff, 0x0010000000000000, 0x8010000000000000,
    0x0000000000000001, 0x8000000000000001, 0x000fffffffffffff,
    0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
    0xfff8000000000001, 0x7ff0000000000001, 0x4340000000000000,
    0x4340000000000001, 0x3ca0000000000000, 0x3cb0000000000000,
    0x3ff0000000000001, 0x3fb999999999999a, 0xbfb999999999999a,
    0x43e0000000000000, 0x3bf0000000000000, 0x7fe0000000000000,
    0x3fffffffffffffff, 0xc340000000000000,
};
/* Integers, truncated to the element type (two's complement): zero, small
 * values, and the limits of every integer width. */
static const int64_t specials_int[32] = {
    0, 1, -1, 2, -2, 3, 7, 16, 100, -100, 127, 128, -128, 255, 256,
    32767, 32768, -32768, 65535, 65536, INT32_MAX, INT32_MIN,
    (int64_t)UINT32_MAX, (int64_t)1 << 32, INT64_MAX, INT64_MIN,
    (int64_t)1 << 62, -((int64_t)1 << 62), 0x5555555555555555,
    -0x5555555555555556, (int64_t)1 << 20, -((int64_t)1 << 31) + 1,
};

static void store_int(sb_type t, unsigned char *dst, int64_t v)
{
    const uint64_t u = (uint64_t)v;
    switch (type_size(t)) {
    case 1: { const uint8_t b = (uint8_t)u;   memcpy(dst, &b, 1); break; }
    case 2: { const uint16_t b = (uint16_t)u; memcpy(dst, &b, 2); break; }
    case 4: { const uint32_t b = (uint32_t)u; memcpy(dst, &b, 4); break; }
    default: memcpy(dst, &u, 8); break;
    }
}

/* Encoding 3: values where only the sign of zero, NaNs and the order of
 * ties decide: +0 and -0 (3 in 8 each) and two NaNs. Nothing else, so
 * that min, max, sum and prod all come down to those rules. */
static const uint32_t tiny_f32[8] = {
    0x00000000, 0x80000000, 0x00000000, 0x80000000,
    0x00000000, 0x80000000, 0x7fc00000, 0xffc00001,
};
static const uint64_t tiny_f64[8] = {
    0x0000000000000000, 0x8000000000000000, 0x0000000000000000,
    0x8000000000000000, 0x0000000000000000, 0x8000000000000000,
    0x7ff8000000000000, 0xfff8000000000001,
};
static const int64_t tiny_int[8] = { 0, 1, -1, INT64_MIN, INT64_MAX, 2, -2, 0 };

/* The half types' specials, as the patterns of sign, exponent field and
 * fraction (support.h, half_pattern()): zeros, ones, the largest finite,
 * the smallest normal, subnormals, infinities, NaNs (quiet, signalling,
 * with payloads), and the ends of exactness around 1. fraction ~0u is the
 * largest fraction the format has. */
static const struct { uint8_t sign, field_from_top; unsigned fraction; }
specials_half[32] = {
    { 0, 255, 0 }, { 1, 255, 0 },                   /* +0, -0 (field 0) */
    { 0, 0, 0 }, { 1, 0, 0 },                       /* +1, -1 (bias) */
    { 0, 1, 0 }, { 0, 2, 0 },                       /* 2, 0.5 */
    { 0, 3, ~0u }, { 1, 3, ~0u },                   /* largest finite */
    { 0, 4, 0 }, { 1, 4, 0 },                       /* smallest normal */
    { 0, 255, 1 }, { 1, 255, 1 }, { 0, 255, ~0u },  /* subnormals */
    { 0, 5, 0 }, { 1, 5, 0 },                       /* +-inf */
    { 0, 5, 6 }, { 1, 5, 7 }, { 0, 5, ~0u },        /* NaNs */
    { 0, 0, 1 }, { 1, 0, 1 }, { 0, 0, ~0u },        /* 1 + ulp, 2 - ulp */
    { 0, 6, 0 }, { 0, 6, 1 }, { 1, 6, 0 },          /* 2^(p+1), + 2 */
    { 0, 7, 0 }, { 1, 7, 0 },                       /* ulp(1) / 2 */
    { 0, 8, 0x5 }, { 1, 8, 0x5 }, { 0, 1, 0x3 },
    { 1, 2, 0x1 }, { 0, 255, 0x3 }, { 1, 3, 0 },
};

/* A half pattern from a specials_half row: field_from_top names the field
 * (255: 0; 0: the bias; 1: bias + 1; 2: bias - 1; 3: the largest finite;
 * 4: 1; 5: all ones; 6: bias + the fraction width + 1; 7: bias - the
 * fraction width - 1; 8: bias + 3). */
static uint16_t half_special(sb_type t, uint8_t byte)
{
    const half_format *f = half_format_of(t);
    const unsigned bias = f->bias, p = f->fraction_bits;
    const unsigned fields[9] = { bias, bias + 1, bias - 1, f->field_max - 1,
                                 1, f->field_max, bias + p + 1,
                                 bias - p - 1, bias + 3 };
    const unsigned row = byte % 32u;
    const unsigned which = specials_half[row].field_from_top;
    const unsigned top = (1u << p) - 1u;
    return half_pattern(f, specials_half[row].sign,
                        which == 255 ? 0u : fields[which],
                        specials_half[row].fraction & top);
}

/* A small integer as a half: -128..127 are exact in both formats (8 and
 * 11 significant bits), so its binary32 bits cut to the format are it. */
static uint16_t half_from_small(sb_type t, int8_t v)
{
    const float value = v;
    uint32_t bits;
    memcpy(&bits, &value, 4);
    if (t == SB_BF16)
        return (uint16_t)(bits >> 16);
    if (v == 0)
        return 0;
    const unsigned sign = bits >> 31;
    const unsigned exponent = (bits >> 23) & 0xFFu;      /* biased by 127 */
    return (uint16_t)(sign << 15 | (exponent - 127 + 15) << 10
                      | (bits & 0x7FFFFFu) >> 13);
}

/* Integer limits, for the tiny table: INT64_MIN and INT64_MAX stand for
 * the element type's own minimum and maximum. */
static int64_t type_limit(sb_type t, bool max)
{
    switch (t) {
    case SB_I8:  return max ? INT8_MAX : INT8_MIN;
    case SB_U8:  return max ? UINT8_MAX : 0;
    case SB_I16: return max ? INT16_MAX : INT16_MIN;
    case SB_U16: return max ? UINT16_MAX : 0;
    case SB_I32: return max ? INT32_MAX : INT32_MIN;
    case SB_U32: return max ? (int64_t)UINT32_MAX : 0;
    case SB_I64: return max ? INT64_MAX : INT64_MIN;
    default:     return max ? -1 : 0;            /* u64: all ones */
    }
}

/* One element of type t from one byte: by table (encodings 1 and 3) or as
 * a small integer (encoding 2). */
static void element_from_byte(sb_type t, unsigned encoding, uint8_t byte,
                              unsigned char *dst)
{
    if (t == SB_F16 || t == SB_BF16) {
        /* tiny: the integer table's entries are +0, -0 and NaNs here too,
         * the sign of zero and ties deciding. */
        static const unsigned tiny_rows[8] = { 0, 1, 0, 1, 0, 1, 15, 16 };
        const uint16_t v = encoding == 3 ? half_special(t, (uint8_t)tiny_rows[byte % 8])
                         : encoding == 1 ? half_special(t, byte)
                                         : half_from_small(t, (int8_t)byte);
        memcpy(dst, &v, 2);
        return;
    }
    if (encoding == 3) {
        if (t == SB_F32) {
            memcpy(dst, &tiny_f32[byte % 8], 4);
        } else if (t == SB_F64) {
            memcpy(dst, &tiny_f64[byte % 8], 8);
        } else {
            const int64_t v = tiny_int[byte % 8];
            store_int(t, dst, v == INT64_MIN ? type_limit(t, false)
                            : v == INT64_MAX ? type_limit(t, true) : v);
        }
        return;
    }
    if (encoding == 1) {
        if (t == SB_F32)
            memcpy(dst, &specials_f32[byte % 32], 4);
        else if (t == SB_F64)
            memcpy(dst, &specials_f64[byte % 32], 8);
        else
            store_int(t, dst, specials_int[byte % 32]);
        return;
    }
    const int8_t small = (int8_t)byte;
    if (t == SB_F32) {
        const float f = small;
        memcpy(dst, &f, 4);
    } else if (t == SB_F64) {
        const double d = small;
        memcpy(dst, &d, 8);
    } else {
        store_int(t, dst, small);
    }
}

/* ------------------------------------------------------------------------
 * The reduction
 * ---------------------------------------------------------------------- */

static sb_op decode_op(uint8_t b)
{
    const unsigned v = b & 15u;
    if (v < 14)
        return (sb_op)(v % 6);
    return v == 14 ? (sb_op)(6 + (b >> 4)) : (sb_op)-1;
}

/* Low nibble 15 of the input or accumulator byte: by bits 4-5 an invalid
 * type (0, 200, -1) or, for 1, a half type (bit 6: f16 or bf16). The
 * half types came after the decoder (0.3): 11 was an invalid type then,
 * and is SB_F16 now. */
static sb_type escape_type(uint8_t b)
{
    static const int values[4] = { 0, SB_F16, 200, -1 };
    const unsigned v = (b >> 4) & 3u;
    if (v == 1)
        return (b & 0x40u) ? SB_BF16 : SB_F16;
    return (sb_type)values[v];
}

static sb_type decode_input(uint8_t b)
{
    const unsigned v = b & 15u;
    return v < 15 ? (sb_type)(v % 10 + 1) : escape_type(b);
}

static sb_type decode_accumulator(uint8_t b, sb_type input)
{
    const unsigned v = b & 15u;
    if (v < 4)
        return (sb_type)0;
    if (v == 14)
        return (sb_type)((b >> 4) % 10 + 1);
    if (v == 15)
        return escape_type(b);
    /* One of the allowed accumulators of `input` (the oracle's list). */
    sb_type allowed[TYPE_COUNT];
    unsigned count = 0;
    for (int t = SB_I8; t <= SB_F64; t++) {
        const sb_reduction probe = { SB_SUM, input, (sb_type)t, 0, 0 };
        if (oracle_reduction_is_valid(probe))
            allowed[count++] = (sb_type)t;
    }
    return count == 0 ? (sb_type)0 : allowed[b % count];
}

static unsigned decode_flags(uint8_t b)
{
    unsigned flags = b & 1u ? SB_WRAP : 0u;
    if ((b & 14u) == 14u)
        flags |= 1u << (1 + (b >> 4) % 31);
    return flags;
}

/* ------------------------------------------------------------------------
 * The case
 * ---------------------------------------------------------------------- */

/* Fills dst (count elements of `size` bytes) with the pattern's elements
 * repeated: copy the pattern once, then double the filled part. */
static void repeat_fill(unsigned char *dst, size_t count, size_t size,
                        const unsigned char *pattern, size_t pattern_count)
{
    const size_t total = count * size;
    size_t filled = pattern_count * size < total ? pattern_count * size : total;
    memcpy(dst, pattern, filled);
    while (filled < total) {
        const size_t chunk = filled < total - filled ? filled : total - filled;
        memcpy(dst + filled, dst, chunk);
        filled += chunk;
    }
}

static size_t decode_n(unsigned size_kind, unsigned N, size_t pattern,
                       fuzz_limits limits)
{
    switch (size_kind) {
    case 5: return N % 4097u;
    case 6: return limits.medium_mod ? N % limits.medium_mod : 0;
    case 7:
        if (N >> 14 == 3 && limits.huge_min != 0)
            return limits.huge_min + (size_t)(N & 0x3FFFu) * 6;
        if (N >> 14 >= 2)
            return limits.large_min
                   + (limits.large_span ? N % limits.large_span : 0);
        return N % 1025u;
    default: return pattern;
    }
}

static void fill_mask(fuzz_case *c, const uint8_t *mask_bytes,
                      size_t mask_count, unsigned N)
{
    const size_t n = c->n;
    const uint8_t p = c->mask_param;
    switch (c->mask_kind) {
    case 1:
        if (mask_count == 0)
            memset(c->mask, 1, n);
        else
            repeat_fill(c->mask, n, 1, mask_bytes, mask_count);
        break;
    case 2: {
        /* Element i takes part with probability p / 255; taking-part bytes
         * are random non-zero values. */
        uint64_t state = (uint64_t)N | (uint64_t)p << 16
                       | (uint64_t)c->pattern << 24;
        for (size_t i = 0; i < n; i++) {
            const uint64_t r = splitmix64(&state);
            c->mask[i] = (r & 0xFF) < p ? (uint8_t)((r >> 8) % 255 + 1) : 0;
        }
        break;
    }
    default:
        /* Leaf j takes part wholly iff bit j % 8 of p is set. */
        for (size_t i = 0; i < n; i++) {
            const size_t leaf = i / 16;
            c->mask[i] = (p >> (leaf % 8)) & 1u
                       ? (uint8_t)((leaf * 37 + 1) % 255 + 1) : 0;
        }
        break;
    }
}

bool fuzz_decode(const uint8_t *data, size_t size, fuzz_limits limits,
                 fuzz_case *c)
{
    uint8_t h[FUZZ_HEADER] = { 0 };
    memcpy(h, data, size < FUZZ_HEADER ? size : FUZZ_HEADER);
    const uint8_t *payload = size > FUZZ_HEADER ? data + FUZZ_HEADER : NULL;
    size_t payload_size = size > FUZZ_HEADER ? size - FUZZ_HEADER : 0;

    memset(c, 0, sizeof *c);
    c->r.op = decode_op(h[0]);
    c->r.input = decode_input(h[1]);
    c->r.accumulator = decode_accumulator(h[2], c->r.input);
    c->r.flags = decode_flags(h[3]);
    c->mask_kind = h[4] & 3u;
    c->size_kind = (h[4] >> 2) & 7u;
    c->offset = h[4] >> 5;
    const unsigned N = h[5] | (unsigned)h[6] << 8;
    c->mask_param = h[7];
    c->encoding = h[8] & 3u;
    c->fpenv = (h[8] >> 2) & 3u;
    c->target_bits = h[8] >> 4;

    const size_t type_bytes = type_size(c->r.input);
    c->elem_size = type_bytes ? type_bytes : 1;

    /* Mask kind 1 takes its pattern from the payload's end. */
    const uint8_t *mask_bytes = NULL;
    if (c->mask_kind == 1) {
        const size_t want = c->mask_param % 64u + 1;
        c->mask_pattern = want < payload_size ? want : payload_size;
        payload_size -= c->mask_pattern;
        mask_bytes = payload ? payload + payload_size : NULL;
    }

    /* The payload's elements, decoded into `pattern`. */
    const bool per_byte = c->encoding != 0 && type_bytes != 0;
    c->pattern = per_byte ? payload_size : payload_size / c->elem_size;
    unsigned char *pattern = malloc(c->pattern * c->elem_size + 1);
    if (pattern == NULL)
        return false;
    if (per_byte) {
        for (size_t i = 0; i < c->pattern; i++)
            element_from_byte(c->r.input, c->encoding, payload[i],
                              pattern + i * c->elem_size);
    } else if (c->pattern > 0) {
        memcpy(pattern, payload, c->pattern * c->elem_size);
    }

    c->n = decode_n(c->size_kind, N, c->pattern, limits);
    c->null_x = c->n == 0 && (c->mask_param & 1u);
    if (c->n > 0) {
        /* Exactly n elements, so AddressSanitizer sees any read past x. */
        c->x = malloc(c->n * c->elem_size);
        if (c->x == NULL) {
            free(pattern);
            return false;
        }
        if (c->pattern > 0) {
            repeat_fill(c->x, c->n, c->elem_size, pattern, c->pattern);
        } else {
            memset(c->x, 0, c->n * c->elem_size);
        }
    }
    free(pattern);
    if (c->mask_kind != 0 && !c->null_x) {
        c->mask = malloc(c->n + (c->n == 0));  /* n == 0: a valid pointer */
        if (c->mask == NULL) {
            fuzz_case_free(c);
            return false;
        }
        fill_mask(c, mask_bytes, c->mask_pattern, N);
    }
    return true;
}

void fuzz_case_free(fuzz_case *c)
{
    free(c->x);
    free(c->mask);
    c->x = NULL;
    c->mask = NULL;
}

static const uint8_t *kept_data;
static size_t kept_size;

void fuzz_keep_input(const uint8_t *data, size_t size)
{
    kept_data = data;
    kept_size = size;
}

void fuzz_write_input(FILE *log)
{
    uint64_t hash = UINT64_C(0xcbf29ce484222325);          /* FNV-1a */
    for (size_t i = 0; i < kept_size; i++)
        hash = (hash ^ kept_data[i]) * UINT64_C(0x100000001b3);
    const char *dir = getenv("SAMEBITS_FUZZ_ARTIFACTS");
    char path[4096];
    snprintf(path, sizeof path, "%s/mismatch-%016" PRIx64,
             dir != NULL && *dir != '\0' ? dir : ".", hash);
    FILE *f = fopen(path, "wb");
    if (f != NULL && fwrite(kept_data, 1, kept_size, f) == kept_size
        && fclose(f) == 0) {
        fprintf(log, "input written to %s\n", path);
        return;
    }
    if (f != NULL)
        fclose(f);
    fprintf(log, "cannot write the input to %s; its bytes: ", path);
    fuzz_print_bytes(log, kept_data, kept_size);
    fputc('\n', log);
}

void fuzz_print_bytes(FILE *out, const void *p, size_t size)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < size; i++)
        fprintf(out, "%02x", b[i]);
}

void fuzz_case_print(FILE *out, const fuzz_case *c)
{
    static const char *const mask_kinds[4] = { "none", "bytes", "random",
                                               "leaves" };
    static const char *const encodings[4] = { "raw", "specials", "small",
                                              "tiny" };
    static const char *const fpenvs[4] = { "default", "upward",
                                           "towardzero+flags", "ftz/daz" };
    fprintf(out, "case: op=%d(%s) input=%d(%s) accumulator=%d(%s) "
            "flags=0x%x n=%zu\n",
            (int)c->r.op, op_name(c->r.op), (int)c->r.input,
            type_name(c->r.input), (int)c->r.accumulator,
            type_name(c->r.accumulator), c->r.flags, c->n);
    fprintf(out, "      size_kind=%u pattern=%zu elements encoding=%s "
            "mask=%s(param 0x%02x, pattern %zu bytes) offset=%u fpenv=%s "
            "null_x=%d target_bits=0x%x\n",
            c->size_kind, c->pattern, encodings[c->encoding],
            mask_kinds[c->mask_kind], c->mask_param, c->mask_pattern,
            c->offset, fpenvs[c->fpenv], c->null_x, c->target_bits);
    const size_t shown = c->n < 64 ? c->n : 64;
    fprintf(out, "      x[0..%zu) =", shown);
    for (size_t i = 0; i < shown; i++) {
        fputc(' ', out);
        fuzz_print_bytes(out, c->x + i * c->elem_size, c->elem_size);
    }
    fputc('\n', out);
    if (c->mask != NULL) {
        fprintf(out, "      mask[0..%zu) = ", shown);
        fuzz_print_bytes(out, c->mask, shown);
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------------------
 * The floating-point environment
 * ---------------------------------------------------------------------- */

void fuzz_fpenv_set(fuzz_fpenv *e, unsigned mode)
{
    memset(e, 0, sizeof *e);
    e->mode = mode;
    e->saved_round = fegetround();
#ifdef FUZZ_HAVE_MXCSR
    e->saved_csr = _mm_getcsr();
#endif
    switch (mode) {
    case 1:
        fesetround(FE_UPWARD);
        feclearexcept(FE_ALL_EXCEPT);
        break;
    case 2:
        fesetround(FE_TOWARDZERO);
        feraiseexcept(FE_INEXACT | FE_UNDERFLOW);   /* the caller's flags */
        break;
    case 3:
#ifdef FUZZ_HAVE_MXCSR
        _mm_setcsr(_mm_getcsr() | 0x8040u);          /* FTZ and DAZ */
#else
        fesetround(FE_DOWNWARD);
#endif
        break;
    default:
        break;
    }
    e->round = fegetround();
    e->flags = fetestexcept(FE_ALL_EXCEPT);
#ifdef FUZZ_HAVE_MXCSR
    e->csr = _mm_getcsr();
#endif
}

bool fuzz_fpenv_check(const fuzz_fpenv *e, FILE *out)
{
    const int round = fegetround();
    const int flags = fetestexcept(FE_ALL_EXCEPT);
    unsigned csr = 0;
#ifdef FUZZ_HAVE_MXCSR
    csr = _mm_getcsr();
#endif
    if (round == e->round && flags == e->flags && csr == e->csr)
        return true;
    fprintf(out, "floating-point environment not restored: rounding %d -> %d,"
            " flags 0x%x -> 0x%x, mxcsr 0x%x -> 0x%x\n",
            e->round, round, (unsigned)e->flags, (unsigned)flags, e->csr, csr);
    return false;
}

void fuzz_fpenv_restore(const fuzz_fpenv *e)
{
    fesetround(e->saved_round);
    feclearexcept(FE_ALL_EXCEPT);
#ifdef FUZZ_HAVE_MXCSR
    _mm_setcsr(e->saved_csr);
#endif
}
