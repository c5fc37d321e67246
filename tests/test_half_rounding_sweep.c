/* tests/test_half_rounding_sweep.c: the host's vector roundings to f16 and
 * bf16 (src/host_half_vec.h, used by the folds of half accumulators)
 * against the scalar ones of src/host_half.h, bit for bit, on binary32
 * patterns: by default every sign and exponent with all 2^14 low fraction
 * patterns (where f16's rounding decides: its kept bits end at bit 13)
 * and 1024 random high ones; with SAMEBITS_SWEEP=full every one of the
 * 2^32 patterns (about a minute per instruction set: ctest -L sweep runs
 * them, the README says when). Built once per instruction set
 * (SB_TEST_VEC_BYTES 16, 32, 64): the vectors live in
 * test_half_rounding_sweep_vec.c, built with the library's -m flags, and
 * this driver stays baseline x86-64 (that file says why); a copy for
 * an instruction set this CPU lacks says so and checks nothing else, a
 * fact about the machine. Seeded (printed; SAMEBITS_TEST_SEED replays). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "host_half.h"
#include "support.h"
#include "test_half_rounding_sweep_vec.h"

static uint64_t seed;

static int cpu_runs_this_copy(void)
{
#if SB_TEST_VEC_BYTES == 64
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
#elif SB_TEST_VEC_BYTES == 32
    /* AVX2 and F16C, as the library asks (Clang's
     * __builtin_cpu_supports() knows no "f16c"). */
    return sb_host_isa_check(SB_ISA_AVX2) == SB_OK;
#else
    return 1;
#endif
}

/* SAMEBITS_SWEEP=full: every one of the 2^32 patterns. */
static int sweep_is_full(void)
{
    const char *mode = getenv("SAMEBITS_SWEEP");
    return mode != NULL && strcmp(mode, "full") == 0;
}

static void vector_roundings_equal_the_scalar_ones(void **state)
{
    (void)state;
    if (!cpu_runs_this_copy()) {
        printf("this CPU cannot run the %d-byte vector copy: nothing to "
               "compare here\n", SB_TEST_VEC_BYTES);
        return;
    }
    const int full = sweep_is_full();
    unsigned long patterns = 0;
    const unsigned long wrong = sweep_vector_roundings(full, seed, &patterns);
    printf("%d-byte vectors: %lu patterns (%s), %lu wrong\n",
           SB_TEST_VEC_BYTES, patterns, full ? "all" : "every exponent",
           wrong);
    assert_int_equal(wrong, 0);
}

#if SB_TEST_VEC_BYTES == 16
/* cl/reduce.cl's f16 rounding of a lane (sb_vround_acc), step for step in
 * binary32 and 32-bit words: c, 2^13 times v's binade (2^-1 at least,
 * the field's add unsigned as there), with v's sign; (v + c) - c; inf
 * where |v| >= 65520; the sign put back; any NaN the canonical one. A
 * device that flushes subnormals reads a subnormal v as +-0 (`flush`). */
static uint32_t kernel_round_f16(float v, int flush)
{
    uint32_t b;
    memcpy(&b, &v, sizeof b);
    const uint32_t sign = b & 0x80000000u;
    if (flush && (b & 0x7F800000u) == 0)
        memcpy(&v, &sign, sizeof v);
    uint32_t field = b & 0x7F800000u;
    field = (field > 0x38800000u ? field : 0x38800000u) + 0x06800000u;
    const uint32_t c_bits = field | sign;
    float c, r;
    memcpy(&c, &c_bits, sizeof c);
    r = (v + c) - c;
    uint32_t out;
    memcpy(&out, &r, sizeof out);
    if (fabsf(v) >= 65520.0f)
        out = 0x7F800000u;
    out |= sign;
    return (b & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC00000u : out;
}

/* That rounding equals the scalar one (sb__round_f16, NaNs the canonical
 * one), flushing or not, on every sign and exponent, each with all 2^14
 * low fraction patterns (where f16's rounding decides) under random high
 * ones (every pattern with SAMEBITS_SWEEP=full); the kernels' own bits
 * are the device suites' (test_device_half, check_pocl_half). Scalar: in
 * the baseline copy only. */
static void kernel_f16_rounding_equals_the_scalar_one(void **state)
{
    (void)state;
    const int full = sweep_is_full();
    uint64_t s = seed ^ 0xF16u;
    unsigned long patterns = 0, wrong = 0;
    for (uint64_t top = 0; top < (full ? 1u << 18 : 1u << 9); top++)
        for (uint32_t low = 0; low < 1u << 14; low++) {
            const uint32_t p = full
                ? (uint32_t)(top << 14 | low)
                : (uint32_t)(top << 23 | (splitmix64(&s) & 0x7FC000u) | low);
            float v;
            memcpy(&v, &p, sizeof v);
            const float e = sb__round_f16(v);
            uint32_t want;
            memcpy(&want, &e, sizeof want);
            if (want != kernel_round_f16(v, 0) ||
                want != kernel_round_f16(v, 1)) {
                if (wrong++ < 5)
                    printf("0x%08x: 0x%08x, kernel 0x%08x (flushing "
                           "0x%08x)\n", p, want, kernel_round_f16(v, 0),
                           kernel_round_f16(v, 1));
            }
            patterns++;
        }
    printf("the kernels' f16 rounding: %lu patterns (%s), %lu wrong\n",
           patterns, full ? "all" : "every exponent", wrong);
    assert_int_equal(wrong, 0);
}
#endif

int main(void)
{
    seed = test_seed(20261202u);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(vector_roundings_equal_the_scalar_ones),
#if SB_TEST_VEC_BYTES == 16
        cmocka_unit_test(kernel_f16_rounding_equals_the_scalar_one),
#endif
    };
    return cmocka_run_group_tests_name("half_rounding_sweep", tests, NULL,
                                       NULL);
}
