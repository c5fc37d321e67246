/* tests/fuzz/fuzz_host.c: libFuzzer target comparing the host path,
 * sb_reduce_host() and sb_reduce_host_opts() with 1 and 3 threads, with
 * tests/oracle.c bit for bit, on cases decoded by fuzz_case.c.
 *
 * For each case: the statuses must be equal; the whole result buffers
 * (RESULT_BUFFER bytes, pre-filled with RESULT_SENTINEL) must be equal, so
 * the value's bits agree on SB_OK and nothing is written otherwise; the
 * caller's floating-point environment must come back as it was; and
 * sb_reduction_check() and sb_result_size() must agree with the oracle's
 * view of the reduction. Any disagreement prints the decoded case and
 * calls abort(), which libFuzzer reports as a crash with the input saved.
 *
 * Built two ways (tests/huge_and_fuzz.cmake): with clang -fsanitize=fuzzer
 * for fuzzing, and with fuzz_replay.c's main() for replaying the corpus
 * under ctest. FUZZ_PERTURB=1 (a -D define) flips a bit of the oracle's
 * f32 sum results with n > 100, to show the target can fail. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_case.h"
#include "oracle.h"
#include "samebits.h"
#include "support.h"

static void report(const char *what, sb_reduction r, sb_status s,
                   const unsigned char *result)
{
    fprintf(stderr, "  %-10s %-20s ", what, status_name(s));
    fuzz_print_bytes(stderr, result, RESULT_BUFFER);
    if (s == SB_OK && oracle_result_size(r) != 0) {
        fputs("  ", stderr);
        print_result(stderr, r, result);
    }
    fputc('\n', stderr);
}

static void fail(const fuzz_case *c, const char *why)
{
    fprintf(stderr, "\nfuzz_host MISMATCH: %s\n", why);
    fuzz_case_print(stderr, c);
    fuzz_write_input(stderr);
    abort();
}

/* One call of the host path: threads 0 means sb_reduce_host(). */
static sb_status run_host(const fuzz_case *c, unsigned threads,
                          unsigned char *result, bool *env_ok)
{
    const void *x = c->null_x ? NULL : c->x;
    const unsigned char *mask = c->null_x ? NULL : c->mask;
    fuzz_fpenv env;
    fuzz_fpenv_set(&env, c->fpenv);
    sb_status s;
    if (threads == 0) {
        s = sb_reduce_host(c->r, x, mask, c->n, result);
    } else {
        const sb_host_options opts = { .threads = threads };
        s = sb_reduce_host_opts(c->r, x, mask, c->n, result, &opts);
    }
    *env_ok = fuzz_fpenv_check(&env, stderr);
    fuzz_fpenv_restore(&env);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const fuzz_limits limits = FUZZ_HOST_LIMITS;
    fuzz_keep_input(data, size);
    fuzz_case c;
    if (!fuzz_decode(data, size, limits, &c))
        return 0;

    /* The reduction alone. */
    const bool valid = oracle_reduction_is_valid(c.r);
    if (sb_reduction_check(c.r) != (valid ? SB_OK : SB_INVALID_ARGUMENT))
        fail(&c, "sb_reduction_check() disagrees with the oracle");
    if (sb_result_size(c.r) != oracle_result_size(c.r))
        fail(&c, "sb_result_size() disagrees with the oracle");

    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    const sb_status expected = oracle_reduce(c.r, c.null_x ? NULL : c.x,
                                             c.null_x ? NULL : c.mask, c.n,
                                             want);
    if (expected == SB_OUT_OF_MEMORY) {      /* the oracle's own scratch */
        fuzz_case_free(&c);
        return 0;
    }
    if (getenv("SAMEBITS_FUZZ_VERBOSE") != NULL) {
        fuzz_case_print(stderr, &c);
        fprintf(stderr, "      -> %s\n", status_name(expected));
    }
#if defined(FUZZ_PERTURB) && FUZZ_PERTURB
    if (expected == SB_OK && c.r.op == SB_SUM && c.r.input == SB_F32
        && c.n > 100)
        want[0] ^= 1;
#endif

    /* Default threads, 1 and 3: below 2^18 elements all take one thread;
     * above, the chunks differ, never the bits. */
    static const unsigned thread_counts[3] = { 0, 1, 3 };
    for (int t = 0; t < 3; t++) {
        unsigned char got[RESULT_BUFFER];
        memset(got, RESULT_SENTINEL, sizeof got);
        bool env_ok = true;
        const sb_status s = run_host(&c, thread_counts[t], got, &env_ok);
        if (s != expected || memcmp(got, want, sizeof got) != 0 || !env_ok) {
            fprintf(stderr, "\nthreads=%u\n", thread_counts[t]);
            report("oracle", c.r, expected, want);
            report("host", c.r, s, got);
            fail(&c, !env_ok ? "floating-point environment changed"
                             : "host path and oracle differ");
        }
    }
    fuzz_case_free(&c);
    return 0;
}
