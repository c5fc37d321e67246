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
#include <cmocka.h>

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
    unsigned long patterns = 0;
    const unsigned long wrong = sweep_vector_roundings(full, seed, &patterns);
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
