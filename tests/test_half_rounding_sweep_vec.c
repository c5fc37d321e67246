/* tests/test_half_rounding_sweep_vec.c: the vector half of
 * test_half_rounding_sweep.c, built once per instruction set with the
 * library's -m flags for it (SB_TEST_VEC_BYTES 16, 32, 64). Only this file
 * gets those flags: the driver, with main() and cmocka, stays baseline
 * x86-64, because a compiler may use the wider instructions anywhere in a
 * file built with them -- under AddressSanitizer GCC 12 unpoisons main()'s
 * stack frame with an AVX-512 store, which killed the 64-byte copy with
 * SIGILL on a CPU without AVX-512 after the test had already said it had
 * nothing to check there. The driver calls sweep_vector_roundings() only
 * when the CPU runs this copy. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if SB_TEST_VEC_BYTES == 64 || defined(__F16C__)
#  include <immintrin.h>   /* host_half_vec.h's 64- and 32-byte roundings */
#endif

#include "host_half.h"
#include "support.h"
#include "test_half_rounding_sweep_vec.h"

#define SB_VEC_BYTES SB_TEST_VEC_BYTES
#define LANES (SB_VEC_BYTES / 4)
typedef float    sb_vf   __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint32_t sb_vu32 __attribute__((vector_size(SB_VEC_BYTES)));
typedef int32_t  sb_vi32 __attribute__((vector_size(SB_VEC_BYTES)));
#include "host_half_vec.h"

/* LANES patterns from bits[], both roundings against the scalar ones;
 * and the folds' step roundings, whose NaNs are made canonical only at
 * the end (vnan_canonical of vround_*_nan_kept), against them too: f16
 * on every pattern; bf16 on every pattern but the NaNs, and on NaNs with
 * their low 16 bits cleared (what its step meets: host_half_vec.h says
 * why), so that a NaN which a step turned into another value would
 * show as well as a finite value rounded the wrong way. */
static unsigned long check_lanes(const uint32_t *bits)
{
    uint32_t step_in[LANES];   /* bf16's step: NaNs' low bits cleared */
    for (int k = 0; k < LANES; k++) {
        const int nan = (bits[k] & 0x7FFFFFFFu) > 0x7F800000u;
        step_in[k] = nan ? bits[k] & 0xFFFF0000u : bits[k];
    }
    sb_vu32 b, sin;
    memcpy(&b, bits, sizeof b);
    memcpy(&sin, step_in, sizeof sin);
    const sb_vu32 r16 = (sb_vu32)vround_f16((sb_vf)b);
    const sb_vu32 rb = (sb_vu32)vround_bf16((sb_vf)b);
    const sb_vu32 s16 =
        (sb_vu32)vnan_canonical(vround_f16_nan_kept((sb_vf)b));
    const sb_vu32 sb =
        (sb_vu32)vnan_canonical(vround_bf16_nan_kept((sb_vf)sin));
    unsigned long wrong = 0;
    for (int k = 0; k < LANES; k++) {
        const float f = sb__bits_float(bits[k]);
        const uint32_t w16 = sb__float_bits(sb__round_f16(f));
        const uint32_t wb = sb__float_bits(sb__round_bf16(f));
        const uint32_t ws =
            sb__float_bits(sb__round_bf16(sb__bits_float(step_in[k])));
        if (r16[k] != w16 || rb[k] != wb || s16[k] != w16 || sb[k] != ws) {
            if (wrong < 5)
                fprintf(stderr, "pattern 0x%08x: f16 0x%08x, step 0x%08x "
                        "(scalar 0x%08x); bf16 0x%08x (scalar 0x%08x), "
                        "step of 0x%08x 0x%08x (scalar 0x%08x)\n",
                        (unsigned)bits[k], (unsigned)r16[k],
                        (unsigned)s16[k], (unsigned)w16, (unsigned)rb[k],
                        (unsigned)wb, (unsigned)step_in[k], (unsigned)sb[k],
                        (unsigned)ws);
            wrong++;
        }
    }
    return wrong;
}

unsigned long sweep_vector_roundings(int full, uint64_t seed,
                                     unsigned long *patterns)
{
    uint32_t bits[LANES];
    unsigned long count = 0, wrong = 0;
    if (full) {
        for (uint64_t base = 0; base < ((uint64_t)1 << 32); base += LANES) {
            for (int k = 0; k < LANES; k++)
                bits[k] = (uint32_t)(base + (uint64_t)k);
            wrong += check_lanes(bits);
            count += LANES;
        }
    } else {
        uint64_t s = seed;
        for (uint32_t top = 0; top < 512; top++) {      /* sign, exponent */
            for (uint32_t low = 0; low < (1u << 14); low += LANES) {
                for (int k = 0; k < LANES; k++)
                    bits[k] = (top << 23) | (low + (uint32_t)k);
                wrong += check_lanes(bits);
                count += LANES;
            }
            for (int r = 0; r < 1024; r += LANES) {
                for (int k = 0; k < LANES; k++)
                    bits[k] = (top << 23) | ((uint32_t)splitmix64(&s) & 0x7FFFFFu);
                wrong += check_lanes(bits);
                count += LANES;
            }
        }
    }
    *patterns = count;
    return wrong;
}
