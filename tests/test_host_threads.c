/* tests/test_host_threads.c: the host path's bits never depend on its
 * thread count.
 *
 * Each case is reduced once by tests/oracle.c and then by
 * sb_reduce_host_opts() with threads = 1, 2, 3, 8, 300 (capped at 256) and
 * 0 (the default), and by sb_reduce_host() with SAMEBITS_THREADS set to 3,
 * 1 and to invalid values; every run must give the oracle's status and
 * result bits. The sizes are large enough to be split over threads
 * (2^21 + 5, 3 * 2^20 + 17) or odd. Last, several application threads
 * call the host path at once (samebits.h: every function may be called
 * from several threads at once; one of them gets the helper threads the
 * host path keeps, the others start their own), and a child forked after
 * the helpers started reduces on threads of its own without hanging. */
#define _POSIX_C_SOURCE 200809L  /* setenv, unsetenv */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "oracle.h"
#include "samebits.h"
#include "support.h"

static uint64_t seed;

static const size_t SIZE_A = ((size_t)1 << 21) + 5;       /* 2^17 + 1 leaves */
static const size_t SIZE_B = ((size_t)3 << 20) + 17;      /* 196609 leaves */

/* One way of choosing the thread count. */
typedef struct {
    unsigned    threads;    /* sb_host_options.threads */
    const char *env;        /* SAMEBITS_THREADS for the call; NULL: unset */
    bool        use_opts;   /* sb_reduce_host_opts() rather than _host() */
} thread_setting;

static const thread_setting settings[] = {
    { 1, NULL, true },   { 2, NULL, true },   { 3, NULL, true },
    { 8, NULL, true },   { 300, NULL, true }, { 0, NULL, true },
    { 0, NULL, false },  { 0, "3", false },   { 0, "3", true },
    { 0, "1", false },   { 0, "abc", false }, { 0, "", false },
};

static void print_setting(FILE *out, const thread_setting *t)
{
    fprintf(out, "%s threads=%u SAMEBITS_THREADS=%s",
            t->use_opts ? "sb_reduce_host_opts" : "sb_reduce_host",
            t->threads, t->env ? t->env : "(unset)");
}

/* Reduces (c, x, mask) with the oracle and with every thread setting;
 * @return the number of settings that disagreed with the oracle. */
static int check_every_setting(const test_case *c, const void *x,
                               const unsigned char *mask,
                               sb_status *oracle_status)
{
    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    const sb_status expected = oracle_reduce(c->r, x, mask, c->n, want);
    if (oracle_status != NULL)
        *oracle_status = expected;
    int wrong = 0;
    for (size_t k = 0; k < sizeof settings / sizeof *settings; k++) {
        const thread_setting *t = &settings[k];
        if (t->env != NULL)
            setenv("SAMEBITS_THREADS", t->env, 1);
        else
            unsetenv("SAMEBITS_THREADS");
        const sb_host_options opts = { .threads = t->threads };
        unsigned char got[RESULT_BUFFER];
        memset(got, RESULT_SENTINEL, sizeof got);
        const sb_status s = t->use_opts
            ? sb_reduce_host_opts(c->r, x, mask, c->n, got, &opts)
            : sb_reduce_host(c->r, x, mask, c->n, got);
        unsetenv("SAMEBITS_THREADS");
        if (s != expected || !bits_equal(got, want, sizeof got)) {
            wrong++;
            fprintf(stderr, "MISMATCH ");
            print_case(stderr, c);
            fprintf(stderr, "  with ");
            print_setting(stderr, t);
            fputc('\n', stderr);
            print_run("oracle", c->r, expected, want);
            print_run("host", c->r, s, got);
        }
    }
    return wrong;
}

/* Builds the data of `c` from its case seed and checks every setting. */
static int check_random_case(sb_reduction r, size_t n, mask_kind mask,
                             data_family family)
{
    const test_case c = make_case(seed, r, n, mask, family);
    const size_t size = type_size(r.input);
    unsigned char *buffer = checked_malloc((n + c.offset) * size);
    void *x = buffer + c.offset * size;
    fill_data(family, r.input, r.accumulator, x, n, c.case_seed);
    unsigned char *m = make_mask(mask, n, mix_seed(c.case_seed, 1));
    const int wrong = check_every_setting(&c, x, m, NULL);
    free(m);
    free(buffer);
    return wrong;
}

static void f32_and_f64_sums_do_not_depend_on_threads(void **state)
{
    (void)state;
    int wrong = 0;
    const sb_reduction f32 = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction f32_f64 = { .op = SB_SUM, .input = SB_F32,
                                   .accumulator = SB_F64 };
    const sb_reduction f64 = { .op = SB_SUM, .input = SB_F64 };
    wrong += check_random_case(f32, SIZE_A, MASK_NONE, FAMILY_UNIFORM);
    wrong += check_random_case(f32, SIZE_B, MASK_EMPTY_LEAVES,
                               FAMILY_SPECIALS);
    wrong += check_random_case(f32_f64, SIZE_B, MASK_RANDOM,
                               FAMILY_HUGE_RANGE);
    wrong += check_random_case(f64, SIZE_A, MASK_RANDOM, FAMILY_CANCELLATION);
    wrong += check_random_case(f64, SIZE_B, MASK_NONE, FAMILY_SUBNORMAL);
    assert_int_equal(wrong, 0);
}

static void f32_and_f64_products_do_not_depend_on_threads(void **state)
{
    (void)state;
    int wrong = 0;
    const sb_reduction f32 = { .op = SB_PROD, .input = SB_F32 };
    const sb_reduction f64 = { .op = SB_PROD, .input = SB_F64 };
    wrong += check_random_case(f32, SIZE_B, MASK_NONE, FAMILY_PROD_EDGE);
    wrong += check_random_case(f64, SIZE_A, MASK_RANDOM, FAMILY_PROD_EDGE);
    wrong += check_random_case(f64, SIZE_B, MASK_ALTERNATE_LEAVES,
                               FAMILY_PROD_EDGE);
    assert_int_equal(wrong, 0);
}

static void masked_min_and_max_do_not_depend_on_threads(void **state)
{
    (void)state;
    int wrong = 0;
    const sb_reduction min32 = { .op = SB_MIN, .input = SB_F32 };
    const sb_reduction max64 = { .op = SB_MAX, .input = SB_F64 };
    const sb_reduction min64 = { .op = SB_MIN, .input = SB_F64 };
    wrong += check_random_case(min32, SIZE_A, MASK_EMPTY_LEAVES,
                               FAMILY_SPECIALS);
    wrong += check_random_case(min32, SIZE_B, MASK_ALTERNATE_LEAVES,
                               FAMILY_NEGATIVE_ZERO);
    wrong += check_random_case(max64, SIZE_B, MASK_RANDOM, FAMILY_SPECIALS);
    wrong += check_random_case(min64, SIZE_A, MASK_ALL_ZERO, FAMILY_UNIFORM);
    assert_int_equal(wrong, 0);
}

/* The first 2^20 elements (64K leaves, an aligned subtree that one thread
 * may own) are masked out, and the first taking-part element, x[2^20],
 * is a NaN; every other element is 1.0. The left subtree is `none`, so
 * combine(none, R) = R, and R's first leaf is NaN (a NaN first in a leaf
 * survives), which survives as the left operand of every combine above
 * it: the canonical NaN. A thread that padded its empty part with +inf
 * instead of `none` would get combine(+inf, NaN) = +inf, and then
 * combine(+inf, 1.0) = 1.0 at the root. */
static void none_subtree_owned_by_one_thread_is_tracked_across_threads(
        void **state)
{
    (void)state;
    const size_t n = SIZE_A;
    const size_t half = (size_t)1 << 20;
    double *x = checked_malloc(n * sizeof *x);
    unsigned char *mask = checked_malloc(n);
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0;
        mask[i] = i < half ? 0 : 1;
    }
    const uint64_t nan_bits = UINT64_C(0xFFF8000000000042);
    memcpy(&x[half], &nan_bits, sizeof nan_bits);
    const sb_reduction r = { .op = SB_MIN, .input = SB_F64 };
    const test_case c = { .seed = seed, .r = r, .n = n,
                          .mask = MASK_EMPTY_LEAVES };
    unsigned char want[8];
    assert_int_equal(oracle_reduce(r, x, mask, n, want), SB_OK);
    const uint64_t canonical = UINT64_C(0x7FF8000000000000);
    assert_memory_equal(want, &canonical, sizeof canonical);
    assert_int_equal(check_every_setting(&c, x, mask, NULL), 0);
    free(mask);
    free(x);
}

/* n = 2^21 + 5: leaves 0 .. 2^17 (the last one, leaf 2^17, moves up to the
 * root alone). Let M = INT64_MAX. Subtrees of 2^15 leaves: A = [0, 2^15),
 * B = [2^15, 2^16), C1 = [2^16, 3*2^15), C2 = [3*2^15, 2^17).
 * x[0] = -30 (in A), x[2^20] = M-10 (first of C1), x[3*2^19] = 20 (first
 * of C2), all else 0.
 * Tree: A+B = -30; C1+C2 = (M-10) + 20 = M+10: SB_OVERFLOW, in a combine
 * between two subtrees that different threads may own.
 * Left to right it would not overflow: -30, M-40, M-20.
 * With x[3*2^19] masked out: C1+C2 = M-10; root -30 + (M-10) = M-40. */
static void i64_overflow_between_thread_blocks_is_found_by_every_count(
        void **state)
{
    (void)state;
    const size_t n = SIZE_A;
    int64_t *x = checked_malloc(n * sizeof *x);
    memset(x, 0, n * sizeof *x);
    x[0] = -30;
    x[(size_t)1 << 20] = INT64_MAX - 10;
    x[(size_t)3 << 19] = 20;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    const test_case c = { .seed = seed, .r = r, .n = n };
    sb_status expected;
    assert_int_equal(check_every_setting(&c, x, NULL, &expected), 0);
    assert_int_equal(expected, SB_OVERFLOW);

    unsigned char *mask = checked_malloc(n);
    memset(mask, 1, n);
    mask[(size_t)3 << 19] = 0;
    const test_case masked = { .seed = seed, .r = r, .n = n,
                               .mask = MASK_RANDOM };
    unsigned char want[8];
    assert_int_equal(oracle_reduce(r, x, mask, n, want), SB_OK);
    const int64_t value = INT64_MAX - 40;
    assert_memory_equal(want, &value, sizeof value);
    assert_int_equal(check_every_setting(&masked, x, mask, NULL), 0);
    free(mask);
    free(x);
}

/* n = 2^21 + 5, x[2^20 - 1] = 20 (last element of the left half),
 * x[2^20] = M-10, x[2^20 + 1] = -30. Left to right: 20 + (M-10) = M+10
 * overflows. Tree: the left 2^16 leaves sum to 20; leaf 2^16 folds to
 * (M-10) + (-30) = M-40; every combine above is then 20 + (M-40) or
 * + 0: the root is M-20, SB_OK, for every thread count. */
static void i64_sum_that_overflows_only_left_to_right_succeeds_threaded(
        void **state)
{
    (void)state;
    const size_t n = SIZE_A;
    const size_t half = (size_t)1 << 20;
    int64_t *x = checked_malloc(n * sizeof *x);
    memset(x, 0, n * sizeof *x);
    x[half - 1] = 20;
    x[half] = INT64_MAX - 10;
    x[half + 1] = -30;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    const test_case c = { .seed = seed, .r = r, .n = n };
    unsigned char want[8];
    assert_int_equal(oracle_reduce(r, x, NULL, n, want), SB_OK);
    const int64_t value = INT64_MAX - 20;
    assert_memory_equal(want, &value, sizeof value);
    assert_int_equal(check_every_setting(&c, x, NULL, NULL), 0);
    free(x);
}

static void checked_integer_sums_do_not_depend_on_threads(void **state)
{
    (void)state;
    int wrong = 0;
    const sb_reduction i64 = { .op = SB_SUM, .input = SB_I64 };
    const sb_reduction i32_i64 = { .op = SB_SUM, .input = SB_I32,
                                   .accumulator = SB_I64 };
    const sb_reduction u8_u32 = { .op = SB_SUM, .input = SB_U8,
                                  .accumulator = SB_U32 };
    const sb_reduction i32 = { .op = SB_SUM, .input = SB_I32 };
    wrong += check_random_case(i64, SIZE_A, MASK_NONE, FAMILY_SUM_EDGE);
    wrong += check_random_case(i64, SIZE_B, MASK_RANDOM, FAMILY_SUM_EDGE);
    wrong += check_random_case(i32_i64, SIZE_B, MASK_NONE, FAMILY_UNIFORM);
    wrong += check_random_case(u8_u32, SIZE_A, MASK_EMPTY_LEAVES,
                               FAMILY_UNIFORM);
    wrong += check_random_case(i32, SIZE_A, MASK_RANDOM, FAMILY_SUM_EDGE);
    assert_int_equal(wrong, 0);
}

/* Sizes that leave ragged ends (an odd last leaf, odd levels) or fewer
 * leaves than threads. */
static void odd_sizes_do_not_depend_on_threads(void **state)
{
    (void)state;
    static const size_t odd[] = { 0, 1, 17, 33, 255, 4097, 65537, 1000003 };
    int wrong = 0;
    for (size_t k = 0; k < sizeof odd / sizeof *odd; k++) {
        wrong += check_random_case((sb_reduction){ .op = SB_SUM,
                                                   .input = SB_F32 },
                                   odd[k], MASK_RANDOM, FAMILY_HUGE_RANGE);
        wrong += check_random_case((sb_reduction){ .op = SB_MAX,
                                                   .input = SB_F64 },
                                   odd[k], MASK_EMPTY_LEAVES,
                                   FAMILY_SPECIALS);
        wrong += check_random_case((sb_reduction){ .op = SB_SUM,
                                                   .input = SB_I64 },
                                   odd[k], MASK_NONE, FAMILY_SUM_EDGE);
        wrong += check_random_case((sb_reduction){ .op = SB_ANY,
                                                   .input = SB_F64 },
                                   odd[k], MASK_RANDOM,
                                   FAMILY_NEGATIVE_ZERO);
    }
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * Calls from several application threads at once
 * ---------------------------------------------------------------------- */

enum { CONCURRENT_CASES = 6, CALLERS = 4, ROUNDS = 3 };

/* A prepared case with the oracle's answer, shared read-only by callers. */
typedef struct {
    test_case     c;
    void         *x;
    unsigned char *mask;
    sb_status     want_status;
    unsigned char want[RESULT_BUFFER];
} prepared_case;

typedef struct {
    const prepared_case *cases;
    unsigned             caller;      /* 0 .. CALLERS-1 */
    int                  wrong;       /* written by this caller only */
} caller_job;

static void *concurrent_caller(void *arg)
{
    caller_job *job = arg;
    for (unsigned round = 0; round < ROUNDS; round++) {
        for (size_t k = 0; k < CONCURRENT_CASES; k++) {
            const prepared_case *p = &job->cases[k];
            /* Each caller asks for its own thread count: 1, 2, 3, 0. */
            const sb_host_options opts = { .threads = (job->caller + 1) % 4 };
            unsigned char got[RESULT_BUFFER];
            memset(got, RESULT_SENTINEL, sizeof got);
            const sb_status s = sb_reduce_host_opts(p->c.r, p->x, p->mask,
                                                    p->c.n, got, &opts);
            if (s != p->want_status || !bits_equal(got, p->want, sizeof got)) {
                job->wrong++;
                fprintf(stderr, "MISMATCH from caller %u (threads=%u) ",
                        job->caller, opts.threads);
                print_case(stderr, &p->c);
            }
        }
    }
    return NULL;
}

static void concurrent_callers_all_get_the_oracle_bits(void **state)
{
    (void)state;
    static const struct {
        sb_reduction r;
        size_t       n;
        mask_kind    mask;
        data_family  family;
    } specs[CONCURRENT_CASES] = {
        { { SB_SUM, SB_F32, 0, 0, 0 },  ((size_t)1 << 19) + 7, MASK_NONE,
          FAMILY_UNIFORM },
        { { SB_SUM, SB_F64, 0, 0, 0 },  300007, MASK_RANDOM,
          FAMILY_CANCELLATION },
        { { SB_PROD, SB_F64, 0, 0, 0 }, 300007, MASK_NONE, FAMILY_PROD_EDGE },
        { { SB_MIN, SB_F32, 0, 0, 0 },  ((size_t)1 << 19) + 7,
          MASK_EMPTY_LEAVES, FAMILY_SIGNED_ZEROS },
        { { SB_SUM, SB_I64, 0, 0, 0 },  300007, MASK_NONE, FAMILY_SUM_EDGE },
        { { SB_SUM, SB_I32, SB_I64, 0, 0 }, 1000, MASK_RANDOM,
          FAMILY_UNIFORM },
    };
    prepared_case cases[CONCURRENT_CASES];
    for (size_t k = 0; k < CONCURRENT_CASES; k++) {
        prepared_case *p = &cases[k];
        p->c = make_case(seed, specs[k].r, specs[k].n, specs[k].mask,
                         specs[k].family);
        p->x = checked_malloc(p->c.n * type_size(p->c.r.input));
        fill_data(p->c.family, p->c.r.input, p->c.r.accumulator, p->x,
                  p->c.n, p->c.case_seed);
        p->mask = make_mask(p->c.mask, p->c.n, mix_seed(p->c.case_seed, 1));
        memset(p->want, RESULT_SENTINEL, sizeof p->want);
        p->want_status = oracle_reduce(p->c.r, p->x, p->mask, p->c.n,
                                       p->want);
    }
    pthread_t callers[CALLERS];
    caller_job jobs[CALLERS];
    for (unsigned t = 0; t < CALLERS; t++) {
        jobs[t] = (caller_job){ .cases = cases, .caller = t, .wrong = 0 };
        assert_int_equal(pthread_create(&callers[t], NULL, concurrent_caller,
                                        &jobs[t]), 0);
    }
    int wrong = 0;
    for (unsigned t = 0; t < CALLERS; t++) {
        pthread_join(callers[t], NULL);
        wrong += jobs[t].wrong;
    }
    for (size_t k = 0; k < CONCURRENT_CASES; k++) {
        free(cases[k].mask);
        free(cases[k].x);
    }
    assert_int_equal(wrong, 0);
}

/* The helper threads the host path keeps do not exist in a forked child:
 * it must reduce without them (and without a lock some helper held). The
 * child gives up after 20 s (alarm), so a hang fails instead of hanging. */
static void a_forked_child_reduces_on_threads(void **state)
{
    (void)state;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    const test_case c = make_case(seed, r, SIZE_A, MASK_NONE,
                                  FAMILY_CANCELLATION);
    double *x = checked_malloc(c.n * sizeof *x);
    fill_data(c.family, r.input, r.accumulator, x, c.n, c.case_seed);
    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    assert_int_equal(oracle_reduce(r, x, NULL, c.n, want), SB_OK);
    const sb_host_options opts = { .threads = 4 };
    unsigned char got[RESULT_BUFFER];
    memset(got, RESULT_SENTINEL, sizeof got);
    assert_int_equal(sb_reduce_host_opts(r, x, NULL, c.n, got, &opts), SB_OK);
    assert_true(bits_equal(got, want, sizeof got));   /* helpers started */
    fflush(NULL);
    const pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        alarm(20);
        int ok = 1;
        for (int round = 0; round < 3; round++) {
            unsigned char mine[RESULT_BUFFER];
            memset(mine, RESULT_SENTINEL, sizeof mine);
            ok &= sb_reduce_host_opts(r, x, NULL, c.n, mine, &opts) == SB_OK
                  && bits_equal(mine, want, sizeof mine);
        }
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_and_f64_sums_do_not_depend_on_threads),
        cmocka_unit_test(f32_and_f64_products_do_not_depend_on_threads),
        cmocka_unit_test(masked_min_and_max_do_not_depend_on_threads),
        cmocka_unit_test(
            none_subtree_owned_by_one_thread_is_tracked_across_threads),
        cmocka_unit_test(
            i64_overflow_between_thread_blocks_is_found_by_every_count),
        cmocka_unit_test(
            i64_sum_that_overflows_only_left_to_right_succeeds_threaded),
        cmocka_unit_test(checked_integer_sums_do_not_depend_on_threads),
        cmocka_unit_test(odd_sizes_do_not_depend_on_threads),
        cmocka_unit_test(concurrent_callers_all_get_the_oracle_bits),
        cmocka_unit_test(a_forked_child_reduces_on_threads),
    };
    seed = test_seed(20240611u);
    return cmocka_run_group_tests_name("host_threads", tests, NULL, NULL);
}
