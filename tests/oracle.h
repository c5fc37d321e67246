/* tests/oracle.h: the reference reduction, a literal transcription of
 * the order that every path of samebits is tested against. Its comments
 * quote ORDER.md, the specification text that docs/order.md (the
 * project's normative page) restates rule by rule.
 *
 * oracle_reduce() has the contract of sb_reduce_host() (same statuses, same
 * result size and format, canonical NaN, nothing written on error) but is
 * written to be read, not to be fast, and shares no code with the library:
 * it never calls a samebits function, it only uses the types of samebits.h. */
#ifndef SB_TEST_ORACLE_H
#define SB_TEST_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

#include "samebits.h"

/*! oracle_reduce() :
 *  Reduces the `n` elements at `x` in the order of ORDER.md and writes one
 *  value of the accumulator type (for any/all: one uint8_t, 0 or 1; for
 *  argmin/argmax an sb_arg_result; for count a uint64_t) to
 *  `result`.
 *  @return SB_OK, SB_EMPTY, SB_OVERFLOW, SB_INVALID_ARGUMENT, or
 *          SB_OUT_OF_MEMORY if its scratch array cannot be allocated.
 *          On any status but SB_OK, `result` is untouched. */
sb_status oracle_reduce(sb_reduction r, const void *x,
                        const unsigned char *mask, size_t n, void *result);

/*! oracle_dot() :
 *  The dot product of x[0..n) and y[0..n) (both of type r.input) with the
 *  contract of sb_dot_host(): the sum, in the order of ORDER.md, of the
 *  terms x[i] * y[i], each factor converted to the accumulator first and
 *  the product rounded once (integer products checked or wrapping).
 *  @return as oracle_reduce(); SB_INVALID_ARGUMENT where
 *          oracle_dot_is_valid() is false or y is NULL with n > 0. */
sb_status oracle_dot(sb_reduction r, const void *x, const void *y,
                     const unsigned char *mask, size_t n, void *result);

/*! oracle_reduction_is_valid() :
 *  @return whether ORDER.md and samebits.h allow `r`: known op, types,
 *          flags and map, an allowed input/accumulator pair, no SB_WRAP on
 *          a float accumulator, SB_SKIP_NAN only on a float input, a map
 *          only with sum, prod, min or max. */
bool oracle_reduction_is_valid(sb_reduction r);

/*! oracle_dot_is_valid() :
 *  @return whether `r` is a valid dot product: a valid reduction with op
 *          SB_SUM and map SB_MAP_NONE. */
bool oracle_dot_is_valid(sb_reduction r);

/*! oracle_result_size() :
 *  @return the bytes oracle_reduce() writes for `r` (the accumulator's size,
 *          1 for any/all), or 0 if `r` is not valid. */
size_t oracle_result_size(sb_reduction r);

#endif /* SB_TEST_ORACLE_H */
