/* tests/support.c: the random number generator, data families, masks, case
 * descriptions, bit printing and the differential check shared by the
 * samebits tests (see support.h). Every random choice flows from one seed,
 * so a printed case replays exactly. */
#include "support.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "oracle.h"

__extension__ typedef __int128 int128;
__extension__ typedef unsigned __int128 uint128;

/* ------------------------------------------------------------------------
 * Seeds and random numbers
 * ---------------------------------------------------------------------- */

uint64_t test_seed(uint64_t default_seed)
{
    uint64_t seed = default_seed;
    const char *text = getenv("SAMEBITS_TEST_SEED");
    if (text != NULL && text[0] != '\0')
        seed = (uint64_t)strtoull(text, NULL, 0);
    printf("seed=%" PRIu64 "\n", seed);
    fflush(stdout);
    return seed;
}

bool test_part_runs(int k)
{
    const char *part = getenv("SAMEBITS_TEST_PART");
    if (part == NULL || part[0] == '\0')
        return true;
    if (strcmp(part, "1") != 0 && strcmp(part, "2") != 0) {
        fprintf(stderr, "SAMEBITS_TEST_PART=%s: expected 1 or 2\n", part);
        exit(1);
    }
    return part[0] - '0' == k;
}

uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t mix_seed(uint64_t seed, uint64_t salt)
{
    uint64_t state = seed ^ (salt * UINT64_C(0xD1B54A32D192ED03));
    return splitmix64(&state);
}

uint64_t random_below(uint64_t *state, uint64_t bound)
{
    return splitmix64(state) % bound;    /* the bias is irrelevant here */
}

void random_cuts(uint64_t *state, size_t n, size_t k, size_t *cuts)
{
    for (size_t i = 0; i < k; i++) {
        const size_t cut = (size_t)random_below(state, (uint64_t)n + 1);
        size_t j = i;                 /* insertion: k is small */
        for (; j > 0 && cuts[j - 1] > cut; j--)
            cuts[j] = cuts[j - 1];
        cuts[j] = cut;
    }
}

double random_unit(uint64_t *state)
{
    return (double)(splitmix64(state) >> 11) * 0x1p-53;
}

/* ------------------------------------------------------------------------
 * Types
 * ---------------------------------------------------------------------- */

size_t type_size(sb_type t)
{
    switch (t) {
    case SB_I8:  case SB_U8:  return 1;
    case SB_I16: case SB_U16: case SB_F16: case SB_BF16: return 2;
    case SB_I32: case SB_U32: case SB_F32: return 4;
    case SB_I64: case SB_U64: case SB_F64: return 8;
    case SB_SAME_AS_INPUT: break;   /* not a type */
    }
    return 0;
}

const char *type_name(sb_type t)
{
    static const char *const names[] = { "same", "i8", "u8", "i16", "u16",
                                         "i32", "u32", "i64", "u64", "f32",
                                         "f64", "f16", "bf16" };
    return (int)t >= 0 && (int)t <= (int)SB_BF16 ? names[t] : "?";
}

const char *op_name(sb_op op)
{
    static const char *const names[] = { "sum", "prod", "min", "max", "any",
                                         "all", "argmin", "argmax", "count" };
    return (int)op >= 0 && (int)op <= (int)SB_COUNT ? names[op] : "?";
}

const char *status_name(sb_status s)
{
    static const char *const names[] = {
        "SB_OK", "SB_EMPTY", "SB_OVERFLOW", "SB_INVALID_ARGUMENT",
        "SB_UNSUPPORTED", "SB_OUT_OF_MEMORY", "SB_OPENCL_ERROR",
        "SB_BUILD_ERROR" };
    return (int)s >= 0 && (int)s <= (int)SB_BUILD_ERROR ? names[s] : "?";
}

bool type_is_float(sb_type t)
{
    return t == SB_F32 || t == SB_F64;
}

bool type_is_signed(sb_type t)
{
    return t == SB_I8 || t == SB_I16 || t == SB_I32 || t == SB_I64;
}

static unsigned type_bits(sb_type t)
{
    return (unsigned)type_size(t) * 8;
}

/* ------------------------------------------------------------------------
 * Storing elements
 * ---------------------------------------------------------------------- */

static void integer_range(sb_type t, int128 *lowest, int128 *highest)
{
    const unsigned bits = type_bits(t);
    if (type_is_signed(t)) {
        *lowest = -((int128)1 << (bits - 1));
        *highest = ((int128)1 << (bits - 1)) - 1;
    } else {
        *lowest = 0;
        *highest = ((int128)1 << bits) - 1;
    }
}

/* Stores `v`, clamped to the range of integer type `t`. */
static void store_integer(sb_type t, void *x, size_t i, int128 v)
{
    int128 lowest, highest;
    integer_range(t, &lowest, &highest);
    v = v < lowest ? lowest : v > highest ? highest : v;
    const uint64_t bits = (uint64_t)v;  /* two's complement, low 64 bits */
    unsigned char bytes[8];
    for (unsigned k = 0; k < 8; k++)
        bytes[k] = (unsigned char)(bits >> (8 * k));   /* little-endian */
    memcpy((unsigned char *)x + i * type_size(t), bytes, type_size(t));
}

/* Stores `v` rounded to float type `t`. */
static void store_real(sb_type t, void *x, size_t i, double v)
{
    if (t == SB_F32) {
        const float f = (float)v;
        memcpy((unsigned char *)x + i * 4, &f, 4);
    } else {
        memcpy((unsigned char *)x + i * 8, &v, 8);
    }
}

/* Stores a float of type `t` from its sign, biased exponent and mantissa
 * fields (the mantissa is cut to the field's width). */
static void store_fields(sb_type t, void *x, size_t i, unsigned sign,
                         uint64_t exponent, uint64_t mantissa)
{
    if (t == SB_F32) {
        const uint32_t bits = (uint32_t)sign << 31 |
                              (uint32_t)(exponent & 0xFF) << 23 |
                              (uint32_t)(mantissa & 0x7FFFFF);
        memcpy((unsigned char *)x + i * 4, &bits, 4);
    } else {
        const uint64_t bits = (uint64_t)sign << 63 |
                              (exponent & 0x7FF) << 52 |
                              (mantissa & UINT64_C(0xFFFFFFFFFFFFF));
        memcpy((unsigned char *)x + i * 8, &bits, 8);
    }
}

static uint64_t max_exponent_field(sb_type t)
{
    return t == SB_F32 ? 0xFF : 0x7FF;
}

static uint64_t quiet_bit(sb_type t)
{
    return t == SB_F32 ? UINT64_C(1) << 22 : UINT64_C(1) << 51;
}

/* ------------------------------------------------------------------------
 * Float families
 * ---------------------------------------------------------------------- */

/* One of the special or extreme float values, picked by `which`. */
static void store_float_extreme(sb_type t, void *x, size_t i, uint64_t which,
                                bool allow_nan, uint64_t *state)
{
    const unsigned sign = (unsigned)(which & 1);
    const uint64_t top = max_exponent_field(t);
    switch ((which >> 1) % (allow_nan ? 8 : 6)) {
    case 0: store_fields(t, x, i, sign, top - 1, ~UINT64_C(0)); break; /* max */
    case 1: store_fields(t, x, i, sign, 1, 0); break;          /* min normal */
    case 2: store_fields(t, x, i, sign, 0, 1); break;     /* min subnormal */
    case 3: store_fields(t, x, i, sign, 0, 0); break;                /* +-0 */
    case 4: store_real(t, x, i, sign ? -1.0 : 1.0); break;
    case 5: store_fields(t, x, i, sign, top, 0); break;              /* inf */
    case 6: /* a quiet NaN with a random payload */
        store_fields(t, x, i, sign, top, quiet_bit(t) | splitmix64(state));
        break;
    default: /* a signalling NaN: quiet bit clear, payload not zero */
        store_fields(t, x, i, sign, top,
                     (splitmix64(state) & (quiet_bit(t) - 1)) | 1);
        break;
    }
}

static double float_limit(sb_type t)
{
    return t == SB_F32 ? (double)FLT_MAX : DBL_MAX;
}

static void fill_float(data_family f, sb_type input, sb_type acc, void *x,
                       size_t n, uint64_t *state)
{
    const double count = n > 0 ? (double)n : 1.0;
    /* Edge families: a per-case magnitude and direction. */
    const double edge_limit = fmin(float_limit(acc), float_limit(input));
    const double edge_magnitude = fmin(edge_limit / count * 3.3, edge_limit);
    const double direction = splitmix64(state) & 1 ? -1.0 : 1.0;
    double previous = 0.0;

    for (size_t i = 0; i < n; i++) {
        /* One draw per statement: the order in which a call's arguments
         * are evaluated is unspecified, and the data must not depend on
         * the compiler. */
        const double u = random_unit(state);
        const unsigned sign = (unsigned)(splitmix64(state) & 1);
        const uint64_t mantissa = splitmix64(state);
        switch (f) {
        case FAMILY_UNIFORM:
            store_real(input, x, i, 2.0 * u - 1.0);
            break;
        case FAMILY_HUGE_RANGE:
            store_fields(input, x, i, sign,
                         random_below(state, max_exponent_field(input)),
                         mantissa);
            break;
        case FAMILY_CANCELLATION:
            if (i % 2 == 0) {
                const int e = input == SB_F32 ? 8 + (int)random_below(state, 23)
                                              : 20 + (int)random_below(state, 41);
                previous = ldexp(1.0 + u, e) * (sign ? -1.0 : 1.0);
                if (input == SB_F32)
                    previous = (double)(float)previous;
                store_real(input, x, i, previous);
            } else {
                store_real(input, x, i, -previous + (2.0 * u - 1.0));
            }
            break;
        case FAMILY_ALTERNATING:
            store_real(input, x, i, (i % 2 ? -1.0 : 1.0) * (1.0 + u));
            break;
        case FAMILY_SUBNORMAL:
            if (random_below(state, 4) != 0)
                store_fields(input, x, i, sign, 0, mantissa);
            else
                store_fields(input, x, i, sign, 1 + random_below(state, 3),
                             mantissa);
            break;
        case FAMILY_SPECIALS:
            if (random_below(state, 8) == 0)
                store_float_extreme(input, x, i, splitmix64(state), true,
                                    state);
            else
                store_real(input, x, i, 2.0 * u - 1.0);
            break;
        case FAMILY_NEGATIVE_ZERO:
            store_real(input, x, i, -0.0);
            break;
        case FAMILY_LIMITS:
            store_float_extreme(input, x, i, splitmix64(state), false, state);
            break;
        case FAMILY_SUM_EDGE: {
            const double towards = random_below(state, 5) == 0 ? -direction
                                                               : direction;
            store_real(input, x, i, towards * u * edge_magnitude);
            break;
        }
        case FAMILY_PROD_EDGE:
            store_real(input, x, i,
                       (sign ? -1.0 : 1.0) *
                       ldexp(1.0 + u, (int)random_below(state, 5) - 2));
            break;
        case FAMILY_SIGNED_ZEROS: {
            const uint64_t pick = random_below(state, 32);
            if (pick == 0)
                store_fields(input, x, i, sign, max_exponent_field(input),
                             quiet_bit(input) | mantissa);
            else if (pick == 1)
                store_real(input, x, i, sign ? -1.0 : 1.0);
            else
                store_real(input, x, i, sign ? -0.0 : 0.0);
            break;
        }
        case FAMILY_COUNT:
            break;
        }
    }
}

/* ------------------------------------------------------------------------
 * Integer families
 * ---------------------------------------------------------------------- */

/* Uniform in [lowest, highest]. */
static int128 random_between(uint64_t *state, int128 lowest, int128 highest)
{
    const uint128 span = (uint128)(highest - lowest) + 1;
    const uint128 high = splitmix64(state);
    const uint128 r = high << 64 | splitmix64(state);
    return lowest + (int128)(r % span);
}

/* The largest value of an accumulator, as the edge families aim at it: the
 * integer maximum, or for a float accumulator a product/sum bound that the
 * input type can reach. */
static int128 accumulator_limit(sb_type acc, sb_type input)
{
    if (type_is_float(acc)) {
        int128 lowest, highest;
        integer_range(input, &lowest, &highest);
        return highest;
    }
    int128 lowest, highest;
    integer_range(acc, &lowest, &highest);
    return highest;
}

/* How many factors of 2 reach the accumulator's limit. */
static unsigned magnitude_bits(sb_type acc)
{
    if (acc == SB_F32)
        return 128;
    if (acc == SB_F64)
        return 1024;
    return type_is_signed(acc) ? type_bits(acc) - 1 : type_bits(acc);
}

static void fill_integer(data_family f, sb_type input, sb_type acc, void *x,
                         size_t n, uint64_t *state)
{
    int128 lowest, highest;
    integer_range(input, &lowest, &highest);
    const bool is_signed = type_is_signed(input);
    const int128 extremes[] = { lowest, lowest + 1, -1, 0, 1, highest - 1,
                                highest };
    const size_t count = n > 0 ? n : 1;

    /* Sum edge: a per-case magnitude so that the sum ends near the limit,
     * and a per-case direction (signed inputs only). */
    const int128 limit = accumulator_limit(acc, input);
    int128 edge = is_signed ? limit * 10 / 3 / (int128)count
                            : limit * 2 / (int128)count;
    edge = edge < 1 ? 1 : edge > highest ? highest : edge;
    const int direction = is_signed && (splitmix64(state) & 1) ? -1 : 1;
    int128 previous = 0;

    if (f == FAMILY_PROD_EDGE) {
        /* Mostly +-1; about magnitude_bits(acc) factors of 2 (some 3s) at
         * random positions; a zero in a quarter of the cases. */
        for (size_t i = 0; i < n; i++)
            store_integer(input, x, i,
                          is_signed && (splitmix64(state) & 1) ? -1 : 1);
        const unsigned bits = magnitude_bits(acc);
        size_t factors = bits - 2 + (size_t)random_below(state, 3);
        factors = factors > n ? n : factors;
        for (size_t k = 0; k < factors; k++) {
            const size_t i = (size_t)random_below(state, count);
            const int128 factor = random_below(state, 8) == 0 ? 3 : 2;
            store_integer(input, x, i, is_signed && (splitmix64(state) & 1)
                                       ? -factor : factor);
        }
        if (n > 0 && random_below(state, 4) == 0)
            store_integer(input, x, (size_t)random_below(state, n), 0);
        return;
    }

    for (size_t i = 0; i < n; i++) {
        const bool negative = is_signed && (splitmix64(state) & 1);
        switch (f) {
        case FAMILY_UNIFORM:
            store_integer(input, x, i, random_between(state, lowest, highest));
            break;
        case FAMILY_HUGE_RANGE: {
            const unsigned length =
                (unsigned)random_below(state, type_bits(input) + 1);
            const int128 magnitude = length == 0 ? 0
                : (int128)(splitmix64(state) &
                           (~UINT64_C(0) >> (64 - length)));
            store_integer(input, x, i, negative ? -magnitude : magnitude);
            break;
        }
        case FAMILY_CANCELLATION:
            if (i % 2 == 0) {
                previous = random_between(state, highest / 2, highest);
                previous = negative ? -previous : previous;
                store_integer(input, x, i, previous);
            } else if (is_signed) {
                store_integer(input, x, i,
                              -previous + random_between(state, -3, 3));
            } else {
                store_integer(input, x, i, random_between(state, 0, 3));
            }
            break;
        case FAMILY_ALTERNATING:
            if (is_signed)
                store_integer(input, x, i,
                              (i % 2 ? -1 : 1) *
                              random_between(state, highest / 2, highest));
            else
                store_integer(input, x, i, i % 2
                              ? random_between(state, 0, 3)
                              : random_between(state, highest / 2, highest));
            break;
        case FAMILY_SUBNORMAL:
            store_integer(input, x, i, random_between(state, -3, 3));
            break;
        case FAMILY_SPECIALS:
            if (random_below(state, 8) == 0)
                store_integer(input, x, i, extremes[random_below(state, 7)]);
            else
                store_integer(input, x, i,
                              random_between(state, lowest, highest));
            break;
        case FAMILY_NEGATIVE_ZERO:
            store_integer(input, x, i, 0);
            break;
        case FAMILY_LIMITS:
            store_integer(input, x, i, extremes[random_below(state, 7)]);
            break;
        case FAMILY_SIGNED_ZEROS:
            store_integer(input, x, i, random_between(state, -1, 1));
            break;
        case FAMILY_SUM_EDGE: {
            const int towards = random_below(state, 5) == 0 ? -direction
                                                            : direction;
            store_integer(input, x, i, towards * random_between(state, 0, edge));
            break;
        }
        case FAMILY_PROD_EDGE:
        case FAMILY_COUNT:
            break;
        }
    }
}

void fill_data(data_family f, sb_type input, sb_type acc, void *x, size_t n,
               uint64_t seed)
{
    uint64_t state = seed;
    if (acc == 0)
        acc = input;
    if (type_is_float(input))
        fill_float(f, input, acc, x, n, &state);
    else
        fill_integer(f, input, acc, x, n, &state);
}

const char *family_name(data_family f)
{
    static const char *const names[] = {
        "uniform", "huge_range", "cancellation", "alternating", "subnormal",
        "specials", "negative_zero", "limits", "sum_edge", "prod_edge",
        "signed_zeros" };
    return (int)f >= 0 && f < FAMILY_COUNT ? names[f] : "?";
}

/* ------------------------------------------------------------------------
 * Masks
 * ---------------------------------------------------------------------- */

void *checked_malloc(size_t size)
{
    void *p = malloc(size > 0 ? size : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory allocating %zu bytes\n", size);
        exit(2);
    }
    return p;
}

static unsigned char taking_part_byte(uint64_t *state)
{
    return (unsigned char)(1 + random_below(state, 255));
}

unsigned char *make_mask(mask_kind k, size_t n, uint64_t seed)
{
    if (k == MASK_NONE)
        return NULL;
    uint64_t state = seed;
    unsigned char *mask = checked_malloc(n);
    static const unsigned densities[] = { 1, 8, 15 };    /* out of 16 */
    const unsigned density = densities[random_below(&state, 3)];
    bool leaf_empty = false, run_empty = false, set_empty = false;
    for (size_t i = 0; i < n; i++) {
        const size_t leaf = i / 16;
        /* (drawn for this kind only: the others' masks stay those of
         * their seeds before it came) */
        if (k == MASK_EMPTY_RUNS && i % 2048 == 0)
            set_empty = random_below(&state, 4) == 0;
        if (k == MASK_EMPTY_RUNS && i % 256 == 0)
            run_empty = random_below(&state, 4) == 0;
        if (i % 16 == 0)
            leaf_empty = random_below(&state, 2) == 0;
        switch (k) {
        case MASK_RANDOM:
            mask[i] = random_below(&state, 16) < density
                      ? taking_part_byte(&state) : 0;
            break;
        case MASK_EMPTY_LEAVES:
            mask[i] = !leaf_empty && random_below(&state, 4) != 0
                      ? taking_part_byte(&state) : 0;
            break;
        case MASK_ALTERNATE_LEAVES:
            mask[i] = leaf % 2 == 0 ? taking_part_byte(&state) : 0;
            break;
        case MASK_EMPTY_RUNS:
            mask[i] = !set_empty && !run_empty && !leaf_empty &&
                      random_below(&state, 4) != 0
                      ? taking_part_byte(&state) : 0;
            break;
        default:
            mask[i] = 0;
            break;
        }
    }
    return mask;
}

const char *mask_name(mask_kind k)
{
    static const char *const names[] = { "none", "random", "empty_leaves",
                                         "alternate_leaves", "all_zero",
                                         "empty_runs" };
    return (int)k >= 0 && k < MASK_COUNT ? names[k] : "?";
}

/* ------------------------------------------------------------------------
 * Cases, bits and printing
 * ---------------------------------------------------------------------- */

test_case make_case(uint64_t seed, sb_reduction r, size_t n, mask_kind mask,
                    data_family family)
{
    test_case c = { seed, 0, r, n, mask, family, 0, 0, 0 };
    uint64_t h = seed;
    h = mix_seed(h, (uint64_t)r.op);
    h = mix_seed(h, (uint64_t)r.input);
    h = mix_seed(h, (uint64_t)r.accumulator);
    h = mix_seed(h, (uint64_t)r.flags);
    h = mix_seed(h, (uint64_t)n);
    h = mix_seed(h, (uint64_t)mask);
    h = mix_seed(h, (uint64_t)family);
    if (r.map != SB_MAP_NONE)   /* so cases without a map keep their seeds */
        h = mix_seed(h, (uint64_t)r.map);
    c.case_seed = h;
    c.offset = (unsigned)(h >> 61) % 3;   /* misaligned starts, sometimes */
    return c;
}

void print_case(FILE *out, const test_case *c)
{
    fprintf(out,
            "case: seed=%" PRIu64 " case_seed=0x%016" PRIx64
            " op=%s input=%s accumulator=%s flags=%s n=%zu mask=%s"
            " family=%s offset=%u threads=%u isa=%s map=%s\n",
            c->seed, c->case_seed, op_name(c->r.op), type_name(c->r.input),
            type_name(c->r.accumulator),
            c->r.flags == 0 ? "checked"
            : c->r.flags == SB_WRAP ? "wrap"
            : c->r.flags == SB_SKIP_NAN ? "skip-nan"
            : c->r.flags == (SB_WRAP | SB_SKIP_NAN) ? "wrap|skip-nan" : "?",
            c->n, mask_name(c->mask), family_name(c->family), c->offset,
            c->threads, sb_isa_name(c->isa), sb_map_name(c->r.map));
}

bool bits_equal(const void *a, const void *b, size_t size)
{
    return memcmp(a, b, size) == 0;
}

void print_result(FILE *out, sb_reduction r, const void *bytes)
{
    const unsigned char *p = bytes;
    size_t size = oracle_result_size(r);
    if (size == 0) {
        fprintf(out, "(invalid reduction) bytes");
        for (size_t i = 0; i < RESULT_BUFFER; i++)
            fprintf(out, " %02x", p[i]);
        return;
    }
    const sb_type acc = r.accumulator == 0 ? r.input : r.accumulator;
    if (r.op == SB_ARGMIN || r.op == SB_ARGMAX) {
        /* An sb_arg_result: the value's bytes, then the index. */
        uint64_t index;
        memcpy(&index, p + 8, 8);
        fprintf(out, "index %" PRIu64 ", value ", index);
        size = type_size(acc);
    }
    uint64_t bits = 0;
    for (size_t i = 0; i < size && i < 8; i++)
        bits |= (uint64_t)p[i] << (8 * i);
    fprintf(out, "0x%0*" PRIx64, (int)(2 * size), bits);
    if (r.op == SB_COUNT) {
        fprintf(out, " (count %" PRIu64 ")", bits);
    } else if (r.op == SB_ANY || r.op == SB_ALL) {
        fprintf(out, " (%u)", (unsigned)p[0]);
    } else if (acc == SB_F32) {
        float f;
        memcpy(&f, p, 4);
        fprintf(out, " (%a = %.9g)", (double)f, (double)f);
    } else if (acc == SB_F64) {
        double d;
        memcpy(&d, p, 8);
        fprintf(out, " (%a = %.17g)", d, d);
    } else if (type_is_signed(acc)) {
        const unsigned shift = 64 - 8 * (unsigned)size;
        const int64_t v = (int64_t)(bits << shift) >> shift;
        fprintf(out, " (%" PRId64 ")", v);
    } else {
        fprintf(out, " (%" PRIu64 ")", bits);
    }
    bool untouched = true;
    for (size_t i = 0; i < RESULT_BUFFER; i++)
        untouched = untouched && p[i] == RESULT_SENTINEL;
    if (untouched)
        fprintf(out, " [untouched]");
}

/* ------------------------------------------------------------------------
 * The differential check
 * ---------------------------------------------------------------------- */

void print_run(const char *who, sb_reduction r, sb_status s,
               const void *bytes)
{
    fprintf(stderr, "  %-10s %-22s ", who, status_name(s));
    print_result(stderr, r, bytes);
    fprintf(stderr, "\n");
}

bool check_data_against_oracle(const test_case *c, const void *x,
                               const unsigned char *mask,
                               sb_status *oracle_status)
{
    unsigned char want[RESULT_BUFFER], first[RESULT_BUFFER],
                  second[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(first, RESULT_SENTINEL, sizeof first);
    memset(second, RESULT_SENTINEL, sizeof second);

    const sb_status expected = oracle_reduce(c->r, x, mask, c->n, want);
    const sb_host_options opts = { .threads = c->threads, .isa = c->isa };
    const bool defaults = c->threads == 0 && c->isa == 0;
    const sb_status got_first = defaults
        ? sb_reduce_host(c->r, x, mask, c->n, first)
        : sb_reduce_host_opts(c->r, x, mask, c->n, first, &opts);
    const sb_status got_second =
        sb_reduce_host_opts(c->r, x, mask, c->n, second,
                            defaults ? NULL : &opts);
    if (oracle_status != NULL)
        *oracle_status = expected;

    const bool agree = got_first == expected && got_second == expected &&
                       bits_equal(first, want, sizeof want) &&
                       bits_equal(second, want, sizeof want);
    if (!agree) {
        fprintf(stderr, "MISMATCH ");
        print_case(stderr, c);
        print_run("oracle", c->r, expected, want);
        print_run("host#1", c->r, got_first, first);
        print_run("host#2", c->r, got_second, second);
    }
    return agree;
}

bool check_against_oracle(const test_case *c, sb_status *oracle_status)
{
    const size_t size = type_size(c->r.input);
    unsigned char *buffer = checked_malloc((c->n + c->offset) * size);
    void *x = buffer + c->offset * size;
    fill_data(c->family, c->r.input, c->r.accumulator, x, c->n, c->case_seed);
    unsigned char *mask = make_mask(c->mask, c->n, mix_seed(c->case_seed, 1));
    const bool agree = check_data_against_oracle(c, x, mask, oracle_status);
    free(mask);
    free(buffer);
    return agree;
}

/* Writes the low `size` bytes of `v` (two's complement) as element i. */
static void store_int(void *x, size_t i, size_t size, uint64_t v)
{
    if (size == 4) {
        const uint32_t w = (uint32_t)v;
        memcpy((char *)x + 4 * i, &w, 4);
    } else {
        memcpy((char *)x + 8 * i, &v, 8);
    }
}

unsigned long check_window_edges(unsigned log2_block, const size_t *sizes,
                                 size_t size_count, const size_t *places,
                                 size_t place_count, uint64_t seed,
                                 data_check check, void *context)
{
    static const struct { sb_type type; unsigned bits; bool is_signed; }
        kinds[] = {
        { SB_I32, 32, true },  { SB_U32, 32, false },
        { SB_I64, 64, true },  { SB_U64, 64, false },
    };
    const size_t block = (size_t)1 << log2_block;
    unsigned long wrong = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
        const unsigned b = kinds[k].bits;
        const size_t size = b / 8;
        const uint64_t w = (uint64_t)1 << (kinds[k].is_signed
                                           ? b - 1 - log2_block
                                           : b - log2_block);
        const uint64_t type_max = kinds[k].is_signed
            ? ((uint64_t)1 << (b - 1)) - 1
            : (b == 64 ? UINT64_MAX : ((uint64_t)1 << b) - 1);
        /* The limit elements: the maximum, and for signed types the
         * minimum (an unsigned one's, 0, lies inside the window). */
        const uint64_t limits[2] = { type_max, type_max + 1 };
        const size_t limit_count = kinds[k].is_signed ? 2 : 1;
        /* Even index: inside the window; odd: just outside. */
        const uint64_t values[4] = { w - 1, w, (uint64_t)0 - w,
                                     (uint64_t)0 - w - 1 };
        const size_t value_count = kinds[k].is_signed ? 4 : 2;
        const sb_reduction r = { .op = SB_SUM, .input = kinds[k].type };
        for (size_t z = 0; z < size_count; z++) {
            const size_t n = sizes[z];
            void *x = checked_malloc(n * size);
            for (size_t v = 0; v < value_count; v++) {
                /* Case 0: no limit element; then each limit at each
                 * place. */
                for (size_t e = 0; e <= limit_count * place_count; e++) {
                    for (size_t i = 0; i < n; i++)
                        store_int(x, i, size, values[v]);
                    size_t at = SIZE_MAX;
                    if (e > 0) {
                        at = places[(e - 1) % place_count];
                        if (at >= n)
                            continue;
                        store_int(x, at, size,
                                  limits[(e - 1) / place_count]);
                    }
                    const test_case c = make_case(seed, r, n, MASK_NONE,
                                                  FAMILY_UNIFORM);
                    sb_status st;
                    bool right = check(context, &c, x, &st);
                    if (n == block && e == 0 &&
                        st != (v % 2 ? SB_OVERFLOW : SB_OK)) {
                        fprintf(stderr, "the oracle says %s\n",
                                status_name(st));
                        right = false;
                    }
                    if (!right) {
                        fprintf(stderr, "  (%s, n %zu, value 0x%" PRIx64,
                                type_name(r.input), n, values[v]);
                        if (at != SIZE_MAX)
                            fprintf(stderr, ", 0x%" PRIx64 " at %zu",
                                    limits[(e - 1) / place_count], at);
                        fprintf(stderr, ")\n");
                        wrong++;
                    }
                }
            }
            free(x);
        }
    }
    return wrong;
}

/* ------------------------------------------------------------------------
 * Half-precision data
 * ---------------------------------------------------------------------- */

#define HALF_COUNT_(a) (sizeof(a) / sizeof *(a))

static const half_format half_f16_format = { 10, 31, 15 };
static const half_format half_bf16_format = { 7, 255, 127 };

const half_format *half_format_of(sb_type t)
{
    return t == SB_F16 ? &half_f16_format : &half_bf16_format;
}

uint16_t half_pattern(const half_format *f, unsigned sign, unsigned field,
                      unsigned fraction)
{
    return (uint16_t)((sign << 15) | (field << f->fraction_bits) |
                      (fraction & ((1u << f->fraction_bits) - 1)));
}

const char *half_family_name(half_family f)
{
    static const char *const names[] = {
        "random-bits", "moderate", "cancellation", "subnormal", "huge",
        "specials", "signed-zeros", "prod-edge", "nan-leaves", "near-one",
        "nan-led", "overflow-edge" };
    return names[f];
}

static uint16_t half_moderate(const half_format *f, uint64_t *s)
{
    return half_pattern(f, (unsigned)random_below(s, 2),
                   f->bias - 3 + (unsigned)random_below(s, 6),
                   (unsigned)splitmix64(s));
}

static uint16_t half_special(const half_format *f, uint64_t *s)
{
    const unsigned q = 1u << (f->fraction_bits - 1);   /* the quiet bit */
    const uint16_t specials[] = {
        half_pattern(f, 0, f->field_max, 0), half_pattern(f, 1, f->field_max, 0),
        half_pattern(f, 0, f->field_max, q), half_pattern(f, 1, f->field_max, q),
        half_pattern(f, 0, f->field_max, 1), half_pattern(f, 1, f->field_max, q | 5),
        0xFFFF, 0x7FFF, half_pattern(f, 0, 0, 0), half_pattern(f, 1, 0, 0),
        half_pattern(f, 0, f->field_max - 1, 0xFFFF),
        half_pattern(f, 1, f->field_max - 1, 0xFFFF),
        half_pattern(f, 0, 0, 1), half_pattern(f, 1, 0, 1),
    };
    return specials[random_below(s, HALF_COUNT_(specials))];
}

void fill_half(half_family family, sb_type t, uint16_t *x, size_t n,
               uint64_t case_seed)
{
    const half_format *f = half_format_of(t);
    uint64_t s = case_seed;
    const unsigned nan_q = 1u << (f->fraction_bits - 1);
    /* HALF_OVERFLOW_EDGE: the leaf that may overflow; per leaf, where its
     * max is, its sign, its step */
    size_t edge_leaf = SIZE_MAX;
    unsigned edge_at = 0, edge_sign = 0, edge_step = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t v = 0;
        switch (family) {
        case HALF_RANDOM_BITS:
            v = (uint16_t)splitmix64(&s);
            break;
        case HALF_MODERATE:
            v = half_moderate(f, &s);
            break;
        case HALF_CANCELLATION:
            if (i % 2 == 0 || random_below(&s, 8) == 0) {
                v = i % 2 == 0 && random_below(&s, 8) != 0
                  ? half_pattern(f, (unsigned)random_below(&s, 2),
                            f->bias + 3 + (unsigned)random_below(&s, f->bias - 6),
                            (unsigned)splitmix64(&s))
                  : half_moderate(f, &s);
            } else {
                /* -x[i-1] with its fraction moved by up to 3 ulps. */
                const uint16_t prev = x[i - 1];
                const unsigned delta = (unsigned)random_below(&s, 7);
                unsigned magnitude = prev & 0x7FFFu;
                magnitude = magnitude + delta >= 3 ? magnitude + delta - 3
                                                   : magnitude;
                if (magnitude >= half_pattern(f, 0, f->field_max, 0))
                    magnitude = prev & 0x7FFFu;
                v = (uint16_t)((~prev & 0x8000u) | magnitude);
            }
            break;
        case HALF_SUBNORMAL:
            v = random_below(&s, 5) == 0
              ? half_pattern(f, (unsigned)random_below(&s, 2),
                        1 + (unsigned)random_below(&s, 2),
                        (unsigned)splitmix64(&s))
              : half_pattern(f, (unsigned)random_below(&s, 2), 0,
                        (unsigned)splitmix64(&s));
            break;
        case HALF_HUGE:
            v = random_below(&s, 5) == 0
              ? half_pattern(f, 0, f->field_max - 1, 0xFFFF)
              : half_pattern(f, random_below(&s, 5) == 0,
                        f->field_max - 1 - (unsigned)random_below(&s, 3),
                        (unsigned)splitmix64(&s));
            break;
        case HALF_SPECIALS:
            v = random_below(&s, 8) == 0 ? half_special(f, &s) : half_moderate(f, &s);
            break;
        case HALF_SIGNED_ZEROS: {
            const uint64_t k = random_below(&s, 32);
            v = k == 0 ? half_pattern(f, (unsigned)random_below(&s, 2),
                                 f->field_max, nan_q | (unsigned)k)
              : k == 1 ? half_pattern(f, (unsigned)random_below(&s, 2), f->bias, 0)
              : half_pattern(f, (unsigned)random_below(&s, 2), 0, 0);
            break;
        }
        case HALF_PROD_EDGE: {
            const uint64_t k = random_below(&s, 16);
            const unsigned sign = (unsigned)random_below(&s, 2);
            v = k == 0 ? half_pattern(f, sign, f->bias - 1, 0)            /* 0.5 */
              : k == 1 ? half_pattern(f, sign, f->bias, nan_q)            /* 1.5 */
              : k == 2 ? half_pattern(f, sign, f->bias + 1, 0)            /* 2 */
              : k == 3 ? half_pattern(f, sign, f->bias + 1, nan_q)        /* 3 */
              : half_pattern(f, sign, f->bias, 0);                        /* 1 */
            break;
        }
        case HALF_NAN_LEAVES:
            v = (i / 16) % 2 == 1
              ? half_pattern(f, (unsigned)random_below(&s, 2), f->field_max,
                        nan_q | (unsigned)random_below(&s, 4))
              : half_moderate(f, &s);
            break;
        case HALF_NEAR_ONE: {
            /* 1 + k u or 1 - k u, k in 0..3, u the ulp of 1: below 1 the
             * ulp is u / 2, so 1 - k u is 2k of them under 2^0 (field
             * bias - 1, fraction 2^fraction_bits - 2k). Equal steps up and
             * down: the product's logarithm is a random walk about 0, so
             * 10^5 of them stay far from overflow and underflow. */
            const unsigned k = (unsigned)random_below(&s, 4);
            v = random_below(&s, 2) == 0 || k == 0
              ? half_pattern(f, 0, f->bias, k)
              : half_pattern(f, 0, f->bias - 1,
                             (1u << f->fraction_bits) - 2 * k);
            break;
        }
        case HALF_NAN_LED:
            /* Values over 16 binades: few share the top one, so a min or
             * max is seldom tied and its leaf's being dropped shows. */
            v = i % 16 == 0 && random_below(&s, 4) == 0
              ? half_pattern(f, (unsigned)random_below(&s, 2), f->field_max,
                             nan_q | (unsigned)random_below(&s, 4))
              : half_pattern(f, (unsigned)random_below(&s, 2),
                             f->bias - 8 + (unsigned)random_below(&s, 16),
                             (unsigned)splitmix64(&s));
            break;
        case HALF_OVERFLOW_EDGE: {
            /* Half the ulp of max is 2^(field_max - 2 - fraction_bits -
             * bias) (f16: 16; max + 16 = 65520 is the tie, which rounds
             * to the even 2^16: inf). Every leaf steps just under the tie
             * (back to max, then 0), but for at most one per array, which
             * steps on the tie or just over it (inf): so the root of a
             * whole array is +-inf or 0 (a short last leaf or a mask can
             * leave a max in), and a step that kept 2^16 as a finite node
             * (32 at -max) or made max + 15.99 inf shows there. */
            if (i == 0)
                edge_leaf = random_below(&s, 2) == 0
                          ? random_below(&s, (n + 15) / 16) : SIZE_MAX;
            if (i % 16 == 0) {
                edge_at = (unsigned)random_below(&s, 14);
                edge_sign = (unsigned)random_below(&s, 2);
                edge_step = i / 16 == edge_leaf
                          ? 1 + (unsigned)random_below(&s, 2) : 0;
            }
            const unsigned at = (unsigned)(i % 16);
            const unsigned half_ulp = f->field_max - 2 - f->fraction_bits;
            v = at == edge_at
              ? half_pattern(f, edge_sign, f->field_max - 1, 0xFFFF)
              : at == edge_at + 1
              ? (edge_step == 0   /* just under the tie */
                 ? half_pattern(f, edge_sign, half_ulp - 1, 0xFFFF)
                 : half_pattern(f, edge_sign, half_ulp, edge_step - 1))
              : at == edge_at + 2
              ? half_pattern(f, !edge_sign, f->field_max - 1, 0xFFFF)
              : half_pattern(f, (unsigned)random_below(&s, 2), 0, 0);
            break;
        }
        case HALF_FAMILY_COUNT:
            break;
        }
        x[i] = v;
    }
}

/* ---- fill_nan_blocks() ---- */

/* The element kinds of fill_nan_blocks(). */
typedef enum { ELEMENT_VALUE, ELEMENT_NAN, ELEMENT_NEGATIVE_ZERO,
               ELEMENT_PLUS_INF, ELEMENT_MINUS_INF } element_kind;

/* Element i of type t at x: a NaN (random sign; halves: random payload
 * too), -0, +inf, -inf, or a value that shows the tree (f32 and f64:
 * uniform in [-1, 1); halves: random sign, |x| in [2^-3, 2^3), whose half
 * sums round at every step). */
static void put_element(sb_type t, void *x, size_t i, element_kind k,
                        uint64_t *state)
{
    const uint64_t r = splitmix64(state);
    if (t == SB_F16 || t == SB_BF16) {
        const half_format *f = half_format_of(t);
        const unsigned fraction = (unsigned)(r >> 8) & ((1u << f->fraction_bits) - 1);
        uint16_t h = k == ELEMENT_NAN
                   ? half_pattern(f, (unsigned)(r & 1), f->field_max, fraction | 1)
                   : k == ELEMENT_NEGATIVE_ZERO ? half_pattern(f, 1, 0, 0)
                   : k == ELEMENT_PLUS_INF ? half_pattern(f, 0, f->field_max, 0)
                   : k == ELEMENT_MINUS_INF ? half_pattern(f, 1, f->field_max, 0)
                   : half_pattern(f, (unsigned)(r & 1),
                                  f->bias - 3 + (unsigned)(r >> 40) % 6, fraction);
        memcpy((char *)x + 2 * i, &h, 2);
        return;
    }
    double v = 2.0 * random_unit(state) - 1.0;
    if (k == ELEMENT_NAN)
        v = (r & 1) ? -NAN : NAN;
    else if (k == ELEMENT_NEGATIVE_ZERO)
        v = -0.0;
    else if (k == ELEMENT_PLUS_INF || k == ELEMENT_MINUS_INF)
        v = k == ELEMENT_PLUS_INF ? INFINITY : -INFINITY;
    if (t == SB_F32) {
        const float f = (float)v;
        memcpy((char *)x + 4 * i, &f, 4);
    } else {
        memcpy((char *)x + 8 * i, &v, 8);
    }
}

void fill_nan_blocks(sb_type t, void *x, size_t n, int layout, uint64_t s)
{
    uint64_t state = s;
    for (size_t i = 0; i < n; i++) {
        const size_t block = i / 4096, leaf = i / 16;
        element_kind k = ELEMENT_VALUE;
        if (layout == 0)
            k = random_below(&state, 13) == 0 ? ELEMENT_NAN : ELEMENT_VALUE;
        else if (layout == 3)
            k = ELEMENT_VALUE;
        else if (layout >= 4)
            k = i % 16 == 7 ? ELEMENT_NAN
              : layout == 4 ? ELEMENT_PLUS_INF : ELEMENT_MINUS_INF;
        else if (layout == 2 || block == 0 || block > 2)
            k = ELEMENT_NAN;
        else if (block == 1)
            k = leaf % 2 ? ELEMENT_NEGATIVE_ZERO : ELEMENT_NAN;
        else
            k = i % 16 == 5 ? ELEMENT_NAN : ELEMENT_NEGATIVE_ZERO;
        put_element(t, x, i, k, &state);
    }
}
