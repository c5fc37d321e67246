/* tests/support.h: what the samebits tests share: a seeded random number
 * generator, input data families, masks, case descriptions that replay a
 * failure, bit comparison and printing, and the differential check of one
 * case against tests/oracle.c.
 *
 * Everything random is derived from one 64-bit seed, printed by each test
 * program at start ("seed=..."); SAMEBITS_TEST_SEED overrides it. */
#ifndef SB_TEST_SUPPORT_H
#define SB_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "samebits.h"

/* ------------------------------------------------------------------------
 * Seeds and random numbers
 * ---------------------------------------------------------------------- */

/*! test_seed() : SAMEBITS_TEST_SEED if set (decimal or 0x hex), else
 *  `default_seed`; prints "seed=<value>" to stdout. */
uint64_t test_seed(uint64_t default_seed);

/*! test_part_runs() : whether part `k` (1 or 2) of a suite split in two
 *  runs: SAMEBITS_TEST_PART unset or empty runs both, 1 or 2 that part
 *  alone. Any other value prints why and exits with status 1, so that a
 *  mistyped part cannot pass by running nothing. */
bool test_part_runs(int k);

/*! splitmix64() : the next value of the splitmix64 sequence at `*state`. */
uint64_t splitmix64(uint64_t *state);

/*! mix_seed() : a new seed derived from `seed` and `salt`, so that each
 *  case has its own stream. */
uint64_t mix_seed(uint64_t seed, uint64_t salt);

/*! random_below() : uniform in [0, bound); bound > 0. */
uint64_t random_below(uint64_t *state, uint64_t bound);

/*! random_cuts() : k positions uniform in [0, n], drawn in turn from
 *  *state, then sorted into cuts[0..k): where to cut an array of n
 *  elements into k + 1 pieces (empty ones included). */
void random_cuts(uint64_t *state, size_t n, size_t k, size_t *cuts);

/*! random_unit() : uniform in [0, 1), 53 random bits. */
double random_unit(uint64_t *state);

/* ------------------------------------------------------------------------
 * Types, as the tests know them (independent of the library)
 * ---------------------------------------------------------------------- */

enum { TYPE_COUNT = 10 };    /* SB_I8 .. SB_F64 are 1 .. TYPE_COUNT; the
                                half types SB_F16, SB_BF16 (11, 12) are
                                left to tests/test_host_half.c, which has
                                data of its own (fill_data() has none) */

size_t      type_size(sb_type t);         /* 0 if not a type */
const char *type_name(sb_type t);         /* "i8" .. "f64", "f16", "bf16",
                                             "same" for 0 */
const char *op_name(sb_op op);            /* "sum" .. "all" */
const char *status_name(sb_status s);     /* "SB_OK" .. */
bool        type_is_float(sb_type t);
bool        type_is_signed(sb_type t);   /* i8 .. i64 */

/* ------------------------------------------------------------------------
 * Input data
 * ---------------------------------------------------------------------- */

/* A data family says what the elements look like. Each has a meaning for
 * floats and one for integers. */
typedef enum {
    FAMILY_UNIFORM,       /* floats in [-1, 1); integers over the full range */
    FAMILY_HUGE_RANGE,    /* random exponent over every finite binade, random
                             sign; integers with a random bit length */
    FAMILY_CANCELLATION,  /* pairs (+big, -big + small): catastrophic
                             cancellation; integers likewise */
    FAMILY_ALTERNATING,   /* signs alternate, magnitudes similar */
    FAMILY_SUBNORMAL,     /* floats: mostly subnormals, some tiny normals;
                             integers: values in [-3, 3] */
    FAMILY_SPECIALS,      /* uniform with NaNs (payloads, both signs), +-inf,
                             +-0, +-max sprinkled; integers: limits sprinkled */
    FAMILY_NEGATIVE_ZERO, /* every float element -0.0; integers 0 */
    FAMILY_LIMITS,        /* every element an extreme: integer min, max,
                             +-1, 0; float +-max, +-min normal, +-min
                             subnormal, +-0, +-1, +-inf */
    FAMILY_SUM_EDGE,      /* sums that end near the accumulator's limit */
    FAMILY_PROD_EDGE,     /* products near the accumulator's limit: mostly
                             +-1 with some 2s and 3s (floats: 2^[-2,2]) */
    FAMILY_SIGNED_ZEROS,  /* +0.0 and -0.0 at random, a few NaNs and +-1:
                             equal values with different bits, where only
                             the strictness of min/max decides; integers
                             in {-1, 0, 1} */
    FAMILY_COUNT
} data_family;

const char *family_name(data_family f);

/* The families worth running per operation on the host, where every case
 * is cheap: each one that can show something about it. As initialiser
 * lists, for a static array in each test (`{ SUM_FAMILIES }`). */
#define SUM_FAMILIES                                                  \
    FAMILY_UNIFORM, FAMILY_HUGE_RANGE, FAMILY_CANCELLATION,           \
    FAMILY_ALTERNATING, FAMILY_SUBNORMAL, FAMILY_SPECIALS,            \
    FAMILY_NEGATIVE_ZERO, FAMILY_LIMITS, FAMILY_SUM_EDGE,             \
    FAMILY_SIGNED_ZEROS
#define PROD_FAMILIES                                                 \
    FAMILY_UNIFORM, FAMILY_HUGE_RANGE, FAMILY_SUBNORMAL, FAMILY_SPECIALS, \
    FAMILY_NEGATIVE_ZERO, FAMILY_LIMITS, FAMILY_PROD_EDGE,            \
    FAMILY_SIGNED_ZEROS
#define ORDER_FAMILIES   /* min and max */                            \
    FAMILY_UNIFORM, FAMILY_HUGE_RANGE, FAMILY_SUBNORMAL, FAMILY_SPECIALS, \
    FAMILY_NEGATIVE_ZERO, FAMILY_LIMITS, FAMILY_SIGNED_ZEROS
#define BOOLEAN_FAMILIES /* any and all */                            \
    FAMILY_UNIFORM, FAMILY_SUBNORMAL, FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO, \
    FAMILY_LIMITS, FAMILY_SIGNED_ZEROS

/*! fill_data() : writes `n` elements of type `input` at `x`, of family `f`.
 *  `acc` (the accumulator; 0: same as input) scales the edge families.
 *  Deterministic in `seed`. */
void fill_data(data_family f, sb_type input, sb_type acc, void *x, size_t n,
               uint64_t seed);

/* ------------------------------------------------------------------------
 * Half-precision data (f16, bf16): 16-bit patterns
 * ---------------------------------------------------------------------- */

/* The families of f16 and bf16 data (fill_data() has none: C has no half
 * type to compute them with), shared by tests/test_host_half.c and
 * tests/test_device_half.c. */
typedef enum {
    HALF_RANDOM_BITS,   /* any pattern: NaNs, infs, subnormals, ... */
    HALF_MODERATE,      /* random sign, |x| in [2^-3, 2^3) */
    HALF_CANCELLATION,  /* pairs (+big, -big +- a few ulps) */
    HALF_SUBNORMAL,     /* subnormals, a few of the smallest normals */
    HALF_HUGE,          /* near the largest finite, mostly positive:
                           sums overflow to inf */
    HALF_SPECIALS,      /* moderate, with +-inf, NaNs of several payloads
                           and signs, +-0, +-max, +-min subnormal */
    HALF_SIGNED_ZEROS,  /* +0 and -0, a few NaNs and +-1 */
    HALF_PROD_EDGE,     /* +-1 with some 0.5, 1.5, 2, 3 */
    HALF_NAN_LEAVES,    /* every other leaf only NaNs, the others moderate */
    HALF_NEAR_ONE,      /* 1 + or - a few ulps: products neither overflow
                           nor underflow, and every grouping rounds
                           differently, so they show the tree's shape */
    HALF_NAN_LED,       /* |x| in [2^-8, 2^8), a NaN first in about one
                           leaf in 4: a NaN node survives a min or max
                           combine only as its left side, so the root
                           shows the tree */
    HALF_OVERFLOW_EDGE, /* in each leaf +-max, about half its ulp of the
                           same sign, then -+max: just under the tie (the
                           leaf is 0), or in at most one leaf the tie or
                           over it (65520 rounds to inf in f16); the rest
                           +-0 */
    HALF_FAMILY_COUNT
} half_family;

const char *half_family_name(half_family f);

/* The fields of a half type's patterns. */
typedef struct {
    unsigned fraction_bits;  /* 10, 7 */
    unsigned field_max;      /* 31, 255: inf and NaN */
    unsigned bias;           /* 15, 127 */
} half_format;

const half_format *half_format_of(sb_type t);   /* SB_F16 or SB_BF16 */

/*! half_pattern() : the pattern of sign, exponent field and fraction (its
 *  low fraction_bits bits). */
uint16_t half_pattern(const half_format *f, unsigned sign, unsigned field,
                      unsigned fraction);

/*! fill_half() : `n` patterns of type `t` (SB_F16 or SB_BF16) at `x`, of
 *  family `family`. Deterministic in `case_seed`. */
void fill_half(half_family family, sb_type t, uint16_t *x, size_t n,
               uint64_t case_seed);

/*! fill_nan_blocks() : `n` elements of float type `t` (f32, f64, f16,
 *  bf16) at `x` that test NaN skipping over whole blocks of 4096, by
 *  layout:
 *   0: values with a NaN at about one element in 13;
 *   1: block 0 all NaN; block 1 leaves all NaN and all -0 in turn; block 2
 *      all -0 but one NaN per leaf; the rest NaN (skipping NaNs, a min or
 *      max is -0, or an empty leaf or block has counted as +-inf);
 *   2: every element a NaN (skipping them: nothing takes part);
 *   3: values and no NaN;
 *   4, 5: +inf (4) or -inf (5) with a NaN in each leaf: a min (4) or max
 *      (5) is the infinity only if an element that does not take part
 *      stands in as that infinity.
 *  Values show the tree: uniform in [-1, 1) for f32 and f64; halves of
 *  random sign with |x| in [2^-3, 2^3), whose half sums round at every
 *  step. NaNs have random signs (halves: payloads too). Deterministic in
 *  `seed`. */
void fill_nan_blocks(sb_type t, void *x, size_t n, int layout, uint64_t seed);
enum { NAN_BLOCK_LAYOUTS = 6 };

/* ------------------------------------------------------------------------
 * Masks
 * ---------------------------------------------------------------------- */

typedef enum {
    MASK_NONE,            /* no mask: NULL */
    MASK_RANDOM,          /* each element takes part with a per-case
                             probability (1/16, 1/2 or 15/16) */
    MASK_EMPTY_LEAVES,    /* about half the leaves have no taking-part
                             element; the others are random */
    MASK_ALTERNATE_LEAVES,/* odd leaves empty, even leaves all take part */
    MASK_ALL_ZERO,        /* nothing takes part */
    MASK_EMPTY_RUNS,      /* as MASK_EMPTY_LEAVES, and whole aligned runs
                             with no taking-part element: about a quarter
                             of the runs of 16 leaves and of 128 (the
                             devices fold 16 leaves in vector lanes, and a
                             half accumulator's sum 8 such runs at once;
                             a run or set of them with no element is
                             folded another way) */
    MASK_COUNT
} mask_kind;

const char *mask_name(mask_kind k);

/*! make_mask() : a mask of `n` bytes of kind `k` (taking-part bytes are
 *  random non-zero values, not just 1), to be released with free(); NULL
 *  for MASK_NONE. Exits the program if memory runs out. */
unsigned char *make_mask(mask_kind k, size_t n, uint64_t seed);

/*! checked_malloc() : malloc() that exits the program when memory runs
 *  out; never returns NULL (allocates at least one byte). */
void *checked_malloc(size_t size);

/* ------------------------------------------------------------------------
 * Cases, bits and printing
 * ---------------------------------------------------------------------- */

/* Everything needed to replay one randomised case. */
typedef struct {
    uint64_t     seed;       /* the program's seed (test_seed()) */
    uint64_t     case_seed;  /* derived from seed and the fields below */
    sb_reduction r;
    size_t       n;
    mask_kind    mask;
    data_family  family;
    unsigned     offset;     /* elements x is placed after an aligned start */
    unsigned     threads;    /* sb_host_options.threads; 0: default */
    unsigned     isa;        /* sb_host_options.isa; 0: default */
} test_case;

/*! make_case() : fills a test_case and derives its case_seed. */
test_case make_case(uint64_t seed, sb_reduction r, size_t n, mask_kind mask,
                    data_family family);

/*! print_case() : one line with every field of `c`, enough to replay it. */
void print_case(FILE *out, const test_case *c);

bool bits_equal(const void *a, const void *b, size_t size);

/*! print_result() : the bytes of a result for `r` (result-size bytes) in
 *  hex, with the value they hold, e.g. "0x7fc00000 (nan)". */
void print_result(FILE *out, sb_reduction r, const void *bytes);

/*! print_run() : one line of a mismatch report on stderr: who computed
 *  it ("oracle", "host", "device#1", ...), its status and its result. */
void print_run(const char *who, sb_reduction r, sb_status s,
               const void *bytes);

/* ------------------------------------------------------------------------
 * The differential check
 * ---------------------------------------------------------------------- */

/* Result buffers are this large and start filled with RESULT_SENTINEL, so a
 * write past the result size, or any write on error, shows up. */
enum { RESULT_BUFFER = 16, RESULT_SENTINEL = 0xAA };

/*! check_against_oracle() :
 *  Runs `c` through oracle_reduce() once and through sb_reduce_host_opts()
 *  twice (c->threads), on data and mask built from c->case_seed, and checks
 *  that the statuses are equal and the whole result buffers are equal bit
 *  for bit. On a mismatch prints the case and both results to stderr.
 *  `oracle_status`, when not NULL, receives the oracle's status.
 *  @return true if everything agreed. */
bool check_against_oracle(const test_case *c, sb_status *oracle_status);

/*! check_data_against_oracle() : the same for caller-built data. */
bool check_data_against_oracle(const test_case *c, const void *x,
                               const unsigned char *mask,
                               sb_status *oracle_status);

/* ------------------------------------------------------------------------
 * Checked sums at the edges of a no-overflow window
 * ---------------------------------------------------------------------- */

/* The host path (per block of 4096) and the device kernels (per four-leaf
 * fold of 64) replace a checked 32/64-bit sum's steps by plain adds where
 * every element of a block of 2^k lies in [-2^(b-1-k), 2^(b-1-k)) (signed)
 * or [0, 2^(b-k)) (unsigned): no partial sum of 2^k of them can overflow.
 * A window one bit too wide would wrap silently. */

/*! A run's check of one case with caller-built data: true if it agreed;
 *  *oracle_status receives the oracle's status. */
typedef bool (*data_check)(void *context, const test_case *c, const void *x,
                           sb_status *oracle_status);

/*! check_window_edges() :
 *  For i32, u32, i64 and u64 checked sums (A = I), for every n in `sizes`:
 *  arrays of one value just inside and just outside the window's top, and
 *  for signed types its bottom, alone and with one type-limit element
 *  (the maximum; for signed types also the minimum) at each of the
 *  `place_count` indices `places`. Runs `check` on each and prints every
 *  mismatch. At n = 2^k with no limit element the arithmetic fixes the
 *  status: the values inside give SB_OK (2^k times the bottom is exactly
 *  the signed minimum), those outside SB_OVERFLOW (2^k times the top is
 *  one past the maximum); a different oracle status counts as wrong too.
 *  @return the number of wrong cases. */
unsigned long check_window_edges(unsigned log2_block, const size_t *sizes,
                                 size_t size_count, const size_t *places,
                                 size_t place_count, uint64_t seed,
                                 data_check check, void *context);

#endif /* SB_TEST_SUPPORT_H */
