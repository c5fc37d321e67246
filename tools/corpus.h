/* corpus.h: the golden conformance corpus: its list of cases and the
 * generator of each case's input (docs/corpus.md is the specification).
 *
 * A case is one reduction (op, input, accumulator, wrap) of one input: n
 * elements of a data family and, optionally, a mask of a mask kind. The
 * input is a pure function of the case id, through splitmix64 seeded by
 * the FNV-1a hash of the id, so that anyone can regenerate it in any
 * language from docs/corpus.md. tests/golden/corpus.golden holds the
 * expected result of every case, one line each, in corpus order:
 *
 *     <case-id> <result-bits> <status>
 *
 * This file is compiled into the samebits command (`samebits check`) and
 * into the golden writer (tests/golden/write_golden.c); it uses only the
 * public header samebits.h. */
#ifndef SAMEBITS_CORPUS_H
#define SAMEBITS_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "samebits.h"

/* Bumped whenever a case, a generator rule or the line format changes. */
#define CORPUS_VERSION 5

typedef enum {
    CORPUS_UNIFORM,       /* floats in [-1, 1); integers over the full range */
    CORPUS_HUGE_RANGE,    /* floats over every normal binade; integers of
                             every bit length */
    CORPUS_CANCEL,        /* floats: pairs (+big, -big + tiny) */
    CORPUS_ALTERNATING,   /* signs alternate (unsigned: large, small) */
    CORPUS_HARMONIC,      /* floats: 1/(i+1) */
    CORPUS_SUBNORMAL,     /* floats: 7/8 subnormal, 1/8 smallest normals */
    CORPUS_SPECIALS,      /* floats: uniform, 1/32 of them NaN, inf, max
                             or -0 */
    CORPUS_NEGZERO,       /* floats: every element -0.0 */
    CORPUS_LIMITS,        /* extremes only: integer min/max, float max,
                             min normal, min subnormal, 0, 1 */
    CORPUS_SMALL,         /* integers in [-3, 3] (unsigned [0, 3]) */
    CORPUS_EDGE_HIGH,     /* integers whose sum ends near the accumulator's
                             maximum: checked overflow upward, or not */
    CORPUS_EDGE_LOW,      /* ... near its minimum (signed or float acc) */
    CORPUS_PROD_EDGE,     /* integers: 1s with a few 2s and -1s (3s): the
                             product crosses the accumulator's limit */
    CORPUS_NEAR_MAX,      /* f16/bf16: the two top binades, 1/16 negative:
                             sums and products in the type overflow to inf */
    CORPUS_NAN_LEAVES,    /* f16/bf16: odd leaves only NaNs (any payload),
                             even leaves uniform */
    CORPUS_FAMILY_COUNT
} corpus_family;

typedef enum {
    CORPUS_MASK_NONE,     /* no mask: every element takes part */
    CORPUS_MASK_HALF,     /* each element with probability 1/2 */
    CORPUS_MASK_SPARSE,   /* probability 1/16 */
    CORPUS_MASK_DENSE,    /* probability 15/16 */
    CORPUS_MASK_EMPTY_LEAVES, /* about half the leaves take no element, the
                             others take each element with probability 1/2 */
    CORPUS_MASK_ALT_LEAVES,   /* odd leaves empty, even leaves full */
    CORPUS_MASK_ZERO,     /* nothing takes part */
    CORPUS_MASK_COUNT
} corpus_mask;

/* How a case's n elements are cut into reductions. */
typedef enum {
    CORPUS_ONE,           /* one reduction of all n elements */
    CORPUS_ROWS,          /* `count` rows of `length` consecutive elements
                             (sb_reduce_batched: element stride 1, batch
                             stride length) */
    CORPUS_COLUMNS,       /* `count` columns of `length` elements: column b
                             holds elements b, b + count, ... (element
                             stride count, batch stride 1) */
    CORPUS_SEGMENTS       /* `count` segments of 0 to `length` elements, cut
                             by corpus_offsets() (sb_reduce_segments) */
} corpus_layout;

typedef struct {
    char          id[96];   /* e.g. "sum.f32.f64.harmonic.half.n4097" */
    sb_reduction  r;        /* accumulator always explicit */
    int           dot;      /* a dot product of x and a second input y */
    corpus_family family;
    corpus_mask   mask;
    size_t        n;        /* elements in all */
    int           quick;    /* in the --quick subset */
    corpus_layout layout;
    size_t        count;    /* reductions of a batch (CORPUS_ONE: 0) */
    size_t        length;   /* a row's or column's elements; a segment's
                               most */
} corpus_case;

/*! corpus_answers() : how many results case `c` has: 1, or the count of
 *  a batch's reductions. A batch's golden lines are "<case-id>/<b>". */
size_t corpus_answers(const corpus_case *c);

/*! corpus_offsets() : the c->count + 1 offsets of a batch's reductions
 *  as sb_reduce_segments takes them: rows b * length; segments drawn
 *  from the stream of c->id + "/offsets" (docs/corpus.md). Not for
 *  columns (not contiguous) or single reductions. */
void corpus_offsets(const corpus_case *c, uint64_t *offsets);

/*! corpus_gather() : the elements (and mask bytes, when mask is not
 *  NULL) of reduction b of case `c`, from its input x, in order, into
 *  `row` (and `row_mask`); @return their count. For CORPUS_ONE, all of
 *  them. */
size_t corpus_gather(const corpus_case *c, size_t b, const void *x,
                     const unsigned char *mask, void *row,
                     unsigned char *row_mask);

/*! corpus_cases() : the whole corpus, in its fixed order; *count receives
 *  the number of cases. Built on the first call (not thread-safe).
 *  @return NULL only if memory runs out. */
const corpus_case *corpus_cases(size_t *count);

const char *corpus_family_name(corpus_family f);
const char *corpus_mask_name(corpus_mask m);

/*! corpus_splitmix64() : the next output of splitmix64 at *state. */
uint64_t corpus_splitmix64(uint64_t *state);

/*! corpus_hash() : 64-bit FNV-1a of the bytes of `text`. */
uint64_t corpus_hash(const char *text);

/*! corpus_fill() : writes the c->n input elements of case `c` (type
 *  c->r.input, native byte order) to `x`. */
void corpus_fill(const corpus_case *c, void *x);

/*! corpus_fill_y() : the second factors of a dot product case: c->n
 *  elements of c->r.input from the stream of c->id + "/y", by the same
 *  family rule as corpus_fill(). */
void corpus_fill_y(const corpus_case *c, void *y);

/*! corpus_fill_mask() : writes the c->n mask bytes of `c` to `mask`
 *  (nothing for CORPUS_MASK_NONE). */
void corpus_fill_mask(const corpus_case *c, unsigned char *mask);

/* Room for "<bits> <status>" and for a whole golden line. */
enum { CORPUS_RESULT_MAX = 48, CORPUS_LINE_MAX = 192 };

/*! corpus_status_word() : a status as one word: "ok", "empty",
 *  "overflow", "invalid-argument", "unsupported", "out-of-memory",
 *  "opencl-error", "build-error". */
const char *corpus_status_word(sb_status s);

/*! corpus_format_result() : "<bits> <status>" for a result of `r` with
 *  status `s`: bits are the value's bit pattern as an unsigned integer of
 *  the result's size, "0x" and two hex digits per byte, or "-" when `s` is
 *  not SB_OK; status is corpus_status_word(s). */
void corpus_format_result(char *buf, size_t size, sb_reduction r,
                          sb_status s, const void *result);

/*! corpus_format_answer() : a golden line's "<bits> <status>": as
 *  corpus_format_result(), with an argmin/argmax's position after its
 *  value's bits ("0x3f800000@17 ok"), since the position is half of the
 *  answer. */
void corpus_format_answer(char *buf, size_t size, sb_reduction r,
                          sb_status s, const void *result);

/*! corpus_golden_header() : the comment lines that open corpus.golden. */
const char *corpus_golden_header(void);

#endif /* SAMEBITS_CORPUS_H */
