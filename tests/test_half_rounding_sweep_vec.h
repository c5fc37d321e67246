/* tests/test_half_rounding_sweep_vec.h: the one entry of the vector half
 * of the rounding sweep (test_half_rounding_sweep_vec.c), callable from
 * baseline code. */
#ifndef SB_TEST_HALF_ROUNDING_SWEEP_VEC_H
#define SB_TEST_HALF_ROUNDING_SWEEP_VEC_H
#include <stdint.h>

/* The vector roundings to f16 and bf16 against the scalar ones: all 2^32
 * binary32 patterns when `full`, else every sign and exponent with all
 * 2^14 low fraction patterns and 1024 random high ones drawn from `seed`.
 * Returns how many patterns differ (the first few printed to stderr) and
 * sets *patterns to how many were compared. Call it only on a CPU that
 * runs the instruction set it was built for. */
unsigned long sweep_vector_roundings(int full, uint64_t seed,
                                     unsigned long *patterns);

#endif
