/* tests/test_half_rounding_sweep.c: the host's vector roundings to f16 and
 * bf16 (src/host_half_vec.h, used by the folds of half accumulators)
 * against the scalar ones of src/host_half.h, bit for bit, on binary32
 * patterns: by default every sign and exponent with all 2^14 low fraction
 * patterns (where f16's rounding decides: its kept bits end at bit 13)
 * and 1024 random high ones; with SAMEBITS_SWEEP=full every one of the
 * 2^32 patterns (about a minute per instruction set: ctest -L sweep runs
 * them, the README says when). Built once per instruction set
 * (SB_TEST_VEC_BYTES 16, 32, 64 with the library's -m flags); a copy for
 * an instruction set this CPU lacks says so and checks nothing else, a
 * fact about the machine. Seeded (printed; SAMEBITS_TEST_SEED replays). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#if SB_TEST_VEC_BYTES == 64
#  include <immintrin.h>
#endif

#include "host_half.h"
#include "support.h"

#define SB_VEC_BYTES SB_TEST_VEC_BYTES
#define LANES (SB_VEC_BYTES / 4)
typedef float    sb_vf   __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint32_t sb_vu32 __attribute__((vector_size(SB_VEC_BYTES)));
typedef int32_t  sb_vi32 __attribute__((vector_size(SB_VEC_BYTES)));
#include "host_half_vec.h"

static uint64_t seed;

static int cpu_runs_this_copy(void)
{
#if SB_TEST_VEC_BYTES == 64
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#elif SB_TEST_VEC_BYTES == 32
    return __builtin_cpu_supports("avx2");
#else
    return 1;
#endif
}

/* LANES patterns from bits[], both roundings against the scalar ones. */
static unsigned long check_lanes(const uint32_t *bits)
{
    sb_vu32 b;
    memcpy(&b, bits, sizeof b);
    const sb_vu32 r16 = (sb_vu32)vround_f16((sb_vf)b);
    const sb_vu32 rb = (sb_vu32)vround_bf16((sb_vf)b);
    unsigned long wrong = 0;
    for (int k = 0; k < LANES; k++) {
        const float f = sb__bits_float(bits[k]);
        const uint32_t w16 = sb__float_bits(sb__round_f16(f));
        const uint32_t wb = sb__float_bits(sb__round_bf16(f));
        if (r16[k] != w16 || rb[k] != wb) {
            if (wrong < 5)
                fprintf(stderr, "pattern 0x%08x: f16 0x%08x (scalar 0x%08x), "
                        "bf16 0x%08x (scalar 0x%08x)\n", (unsigned)bits[k],
                        (unsigned)r16[k], (unsigned)w16, (unsigned)rb[k],
                        (unsigned)wb);
            wrong++;
        }
    }
    return wrong;
}

static void vector_roundings_equal_the_scalar_ones(void **state)
{
    (void)state;
    if (!cpu_runs_this_copy()) {
        printf("this CPU cannot run the %d-byte vector copy: nothing to "
               "compare here\n", SB_TEST_VEC_BYTES);
        return;
    }
    const char *mode = getenv("SAMEBITS_SWEEP");
    const int full = mode != NULL && strcmp(mode, "full") == 0;
    uint32_t bits[LANES];
    unsigned long patterns = 0, wrong = 0;
    if (full) {
        for (uint64_t base = 0; base < ((uint64_t)1 << 32); base += LANES) {
            for (int k = 0; k < LANES; k++)
                bits[k] = (uint32_t)(base + (uint64_t)k);
            wrong += check_lanes(bits);
            patterns += LANES;
        }
    } else {
        uint64_t s = seed;
        for (uint32_t top = 0; top < 512; top++) {      /* sign, exponent */
            for (uint32_t low = 0; low < (1u << 14); low += LANES) {
                for (int k = 0; k < LANES; k++)
                    bits[k] = (top << 23) | (low + (uint32_t)k);
                wrong += check_lanes(bits);
                patterns += LANES;
            }
            for (int r = 0; r < 1024; r += LANES) {
                for (int k = 0; k < LANES; k++)
                    bits[k] = (top << 23) | ((uint32_t)splitmix64(&s) & 0x7FFFFFu);
                wrong += check_lanes(bits);
                patterns += LANES;
            }
        }
    }
    printf("%d-byte vectors: %lu patterns (%s), %lu wrong\n",
           SB_TEST_VEC_BYTES, patterns, full ? "all" : "every exponent",
           wrong);
    assert_int_equal(wrong, 0);
}

int main(void)
{
    seed = test_seed(20261202u);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_roundings_equal_the_scalar_ones),
    };
    return cmocka_run_group_tests_name("half_rounding_sweep", tests, NULL,
                                       NULL);
}
