/* tests/test_host_prefetch.c: the host path's prefetch distance chosen by
 * measurement (src/host_prefetch.c, SAMEBITS_PREFETCH unset): which calls
 * measure, when the decision falls, that it is kept and reported, and
 * that the bits equal the oracle's throughout (a prefetch is a hint); and,
 * in a child process fed made-up spans, that the median decides, not the
 * mean. Its own program, since the decision is made once per process;
 * linked to the static library for sb__prefetch_span_record(). Seeded
 * (printed at start; SAMEBITS_TEST_SEED replays a run). */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv, alarm */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

/* src/host_engine.h */
extern _Thread_local size_t sb__prefetch_last_call;
int sb__prefetch_fold(const void *code, unsigned variant, const char *name);
bool sb__prefetch_measuring(int fold);
size_t sb__prefetch_distance(int fold);
void sb__prefetch_span_record(int fold, size_t span, uint_least64_t bytes,
                              uint_least64_t ns);

/* In a child process (the decision is once per process): spans of 1 MiB,
 * even ones at distance 0, odd ones at 4096. Distance 0 folds at 32 GB/s
 * but for its first 10 spans, 10 times slower (a thread that lost its
 * core); 4096 at 26 GB/s throughout. The mean would keep 4096 (0's total
 * time is the larger); the median keeps 0. Exit status 0: kept 0 with the
 * report's rates 32 and 26 GB/s; else which check failed. */
static int median_decides(void)
{
    const uint_least64_t mib = (uint_least64_t)1 << 20;
    const uint_least64_t fast = mib * 1000 / 32000, slow = fast * 10,
                         other = mib * 1000 / 26000;   /* ns */
    for (size_t span = 0; span < 2 * 60; span++)
        sb__prefetch_span_record(0, span, mib,
                                 span % 2 ? other : span < 20 ? slow : fast);
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    if (r.source != SB_PREFETCH_MEASURED)
        return 1;
    if (r.bytes != 0)
        return 2;
    if (r.gb_per_s[0] < 31.9 || r.gb_per_s[0] > 32.1 ||
        r.gb_per_s[1] < 25.9 || r.gb_per_s[1] > 26.1)
        return 3;
    return 0;
}

/* In a child process (the measurements are once per process): one more
 * kind of fold than there are measurements for; each gets its own, the
 * same one again for the same code and mask, none for the last; made-up
 * spans decide one fold and leave the default and the others as they
 * were. Exit status 0, else which check failed. */
static int folds_decide_apart(void)
{
    static const char codes[SB_PREFETCH_FOLDS + 1];
    for (int i = 0; i < SB_PREFETCH_FOLDS; i++) {
        char name[32];
        snprintf(name, sizeof name, "fold %d", i);
        if (sb__prefetch_fold(&codes[i], i % 2, name) != i + 1)
            return 1;
    }
    if (sb__prefetch_fold(&codes[3], true, "again") != 4 ||
        sb__prefetch_fold(&codes[3], false, "unmasked") != -1 ||
        sb__prefetch_fold(&codes[SB_PREFETCH_FOLDS], false, "x") != -1)
        return 2;
    if (sb__prefetch_measuring(-1) || !sb__prefetch_measuring(5) ||
        sb__prefetch_distance(-1) != 4096 || sb__prefetch_distance(5) != 4096)
        return 3;
    /* Fold 5: distance 0 at 20 GB/s, 4096 at 30. */
    const uint_least64_t mib = (uint_least64_t)1 << 20;
    for (size_t span = 0; span < 2 * 60; span++)
        sb__prefetch_span_record(5, span, mib,
                                 span % 2 ? mib * 1000 / 30000
                                          : mib * 1000 / 20000);
    if (sb__prefetch_measuring(5) || sb__prefetch_distance(5) != 4096 ||
        !sb__prefetch_measuring(0) || sb__prefetch_distance(0) != 4096 ||
        !sb__prefetch_measuring(6) || sb__prefetch_distance(6) != 4096)
        return 4;
    sb_prefetch_fold folds[SB_PREFETCH_FOLDS + 1];
    memset(folds, 0xA5, sizeof folds);
    if (sb_host_prefetch_folds(folds, 3) != SB_PREFETCH_FOLDS ||
        sb_host_prefetch_folds(NULL, 0) != SB_PREFETCH_FOLDS ||
        sb_host_prefetch_folds(NULL, 5) != SB_PREFETCH_FOLDS)
        return 5;
    if (strcmp(folds[0].fold, "fold 0") != 0 ||
        strcmp(folds[2].fold, "fold 2") != 0 ||
        (unsigned char)folds[3].fold[0] != 0xA5)   /* capacity kept */
        return 6;
    if (sb_host_prefetch_folds(folds, SB_PREFETCH_FOLDS + 1) !=
        SB_PREFETCH_FOLDS)
        return 7;
    const sb_prefetch_report *five = &folds[4].report;
    if (strcmp(folds[4].fold, "fold 4") != 0 ||
        five->source != SB_PREFETCH_MEASURED || five->bytes != 4096 ||
        five->gb_per_s[0] < 19.9 || five->gb_per_s[0] > 20.1 ||
        five->gb_per_s[1] < 29.9 || five->gb_per_s[1] > 30.1)
        return 8;
    if (folds[5].report.source != SB_PREFETCH_NOT_YET ||
        folds[5].report.bytes != 4096 || folds[5].report.gb_per_s[0] != 0)
        return 9;
    /* The default decides 0; a fold without its own takes it, fold 5
     * keeps its 4096. */
    for (size_t span = 0; span < 2 * 60; span++)
        sb__prefetch_span_record(0, span, mib,
                                 span % 2 ? mib * 1000 / 20000
                                          : mib * 1000 / 30000);
    if (sb__prefetch_distance(0) != 0 || sb__prefetch_distance(5) != 4096 ||
        sb__prefetch_distance(6) != 0 || sb__prefetch_distance(-1) != 0)
        return 10;
    return 0;
}

/* In a child process: a masked f32 sum of 64 MiB adds its fold (one
 * call: not decided yet); made-up spans make it keep 0 while the default
 * stays 4096; then another 64 MiB masked call and a smaller one fold at 0
 * (the large one measuring nothing more), as do masked batch rows on one
 * thread, and an unmasked one at 4096; under SAMEBITS_PREFETCH a new kind
 * adds nothing and every call takes the variable; a masked i32 product,
 * whose masked blocks read no distance, adds nothing either, and a
 * masked i32 sum, whose full blocks do, adds its own. Exit status 0, else
 * the failed check. */
static int fold_keeps_its_distance(void)
{
    const size_t big = (size_t)1 << 24, small = (size_t)1 << 20;
    float *x = malloc(big * sizeof *x);
    int32_t *ints = calloc(big, sizeof *ints);
    unsigned char *mask = malloc(big);
    if (x == NULL || ints == NULL || mask == NULL)
        return 20;
    for (size_t i = 0; i < big; i++) {
        x[i] = (float)(i % 1000) * 0.001f;
        mask[i] = i % 3 != 0;
    }
    const sb_reduction sum = { SB_SUM, SB_F32, 0, 0, 0 };
    const sb_reduction prod = { SB_PROD, SB_F32, 0, 0, 0 };
    const sb_reduction isum = { SB_SUM, SB_I32, 0, 0, 0 };
    const sb_reduction iprod = { SB_PROD, SB_I32, 0, 0, 0 };
    const sb_host_options one = { .threads = 1 };
    unsigned char result[16];
    if (sb_reduce_host_opts(sum, x, mask, big, result, &one) != SB_OK)
        return 1;
    sb_prefetch_fold folds[2];
    if (sb_host_prefetch_folds(folds, 2) != 1 ||
        folds[0].report.source != SB_PREFETCH_NOT_YET)
        return 2;
    /* Spans of 64 KiB, so that the made-up ones are most of the spans
     * kept (128 a distance) when the 48 MiB that decide are reached: the
     * call's own 32 a distance must not decide. 1000 GB/s, 1 GB/s. */
    const uint_least64_t kib64 = (uint_least64_t)1 << 16;
    for (size_t span = 0; span < 2 * 200; span++)
        sb__prefetch_span_record(1, span, kib64,
                                 span % 2 ? kib64 : kib64 / 1000);
    sb_host_prefetch_folds(folds, 2);
    if (folds[0].report.source != SB_PREFETCH_MEASURED ||
        folds[0].report.bytes != 0 || sb_host_prefetch() != 4096)
        return 3;
    /* A call large enough to measure takes the kept 0 and measures
     * nothing more. */
    const double kept[2] = { folds[0].report.gb_per_s[0],
                             folds[0].report.gb_per_s[1] };
    if (sb_reduce_host_opts(sum, x, mask, big, result, &one) != SB_OK ||
        sb__prefetch_last_call != 0)
        return 9;
    sb_host_prefetch_folds(folds, 2);
    if (folds[0].report.gb_per_s[0] != kept[0] ||
        folds[0].report.gb_per_s[1] != kept[1])
        return 10;
    if (sb_reduce_host_opts(sum, x, mask, small, result, &one) != SB_OK ||
        sb__prefetch_last_call != 0)
        return 4;
    if (sb_reduce_host_opts(sum, x, NULL, small, result, &one) != SB_OK ||
        sb__prefetch_last_call != 4096)
        return 5;
    /* Batch rows on one thread (SAMEBITS_THREADS=1) look theirs up too:
     * two masked rows of 4 MiB. */
    sb_status statuses[2];
    float sums[2];
    sb__prefetch_last_call = 4096;
    setenv("SAMEBITS_THREADS", "1", 1);
    const sb_status batched = sb_reduce_batched_host(
        sum, x, mask, small, 1, 2, (ptrdiff_t)small, sums, statuses);
    unsetenv("SAMEBITS_THREADS");
    if (batched != SB_OK || statuses[0] != SB_OK ||
        sb__prefetch_last_call != 0)
        return 11;
    setenv("SAMEBITS_PREFETCH", "512", 1);
    if (sb_reduce_host_opts(prod, x, mask, big, result, &one) != SB_OK ||
        sb__prefetch_last_call != 512 || sb_host_prefetch_folds(NULL, 0) != 1)
        return 6;
    if (sb_reduce_host_opts(sum, x, mask, small, result, &one) != SB_OK ||
        sb__prefetch_last_call != 512)
        return 7;
    unsetenv("SAMEBITS_PREFETCH");
    if (sb_reduce_host_opts(iprod, ints, mask, big, result, &one) != SB_OK ||
        sb_host_prefetch_folds(NULL, 0) != 1)
        return 8;
    if (sb_reduce_host_opts(isum, ints, mask, big, result, &one) != SB_OK ||
        sb_host_prefetch_folds(NULL, 0) != 2)
        return 12;
    free(x);
    free(ints);
    free(mask);
    return 0;
}

/* In a child process: plain f32 sums of 64 MiB forced onto the baseline
 * instruction set (where the CPU runs a wider one by itself) measure as a
 * kind of their own, "plain float folds, sse2" on x86-64, and leave the
 * default to the calls that take their instruction set by themselves;
 * every result equals the oracle's bits (check_against_oracle: two calls
 * each, the case printed on a mismatch). Exit status 0, else the check. */
static int forced_isa_measures_apart(void)
{
    const sb_reduction sum = { SB_SUM, SB_F32, 0, 0, 0 };
    test_case forced = make_case(seed, sum, (size_t)1 << 24, MASK_NONE,
                                 FAMILY_CANCELLATION);
    forced.threads = 1;
    forced.isa = SB_ISA_BASELINE;
    if (!check_against_oracle(&forced, NULL))
        return 1;
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    if (r.source != SB_PREFETCH_NOT_YET || r.gb_per_s[0] != 0 ||
        r.gb_per_s[1] != 0)
        return 2;   /* the default took the forced calls' spans */
    sb_prefetch_fold folds[2];
    char want[SB_PREFETCH_FOLD_NAME];
    snprintf(want, sizeof want, "plain float folds, %s",
             sb_isa_name(SB_ISA_BASELINE));
    if (sb_host_prefetch_folds(folds, 2) != 1 ||
        strcmp(folds[0].fold, want) != 0)
        return 3;
    if (folds[0].report.source != SB_PREFETCH_MEASURED)
        return 4;   /* two calls of 64 MiB decide */
    test_case own = forced;
    own.isa = 0;
    if (!check_against_oracle(&own, NULL))
        return 5;
    sb_host_prefetch_report(&r);
    if (r.gb_per_s[0] == 0 || r.gb_per_s[1] == 0 ||
        sb_host_prefetch_folds(NULL, 0) != 1)
        return 6;   /* the calls on their own instruction set: the default */
    return 0;
}

/* A thread that asks for the reports until told to stop: each report
 * holds the library's lock while it sorts every candidate's spans. */
static atomic_bool stop_reporting;
static void *report_until_stopped(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_reporting)) {
        sb_prefetch_report r;
        sb_prefetch_fold folds[SB_PREFETCH_FOLDS];
        sb_host_prefetch_report(&r);
        (void)sb_host_prefetch_folds(folds, SB_PREFETCH_FOLDS);
    }
    return NULL;
}

/* In a forked child: a report does not hang, and the lock is free for
 * the spans, which decide the default. Exit status 0; else the check. */
static int child_reports_and_decides(void)
{
    signal(SIGALRM, SIG_DFL);   /* whatever the runner left it at */
    alarm(10);                  /* a hang ends here, as SIGALRM */
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    if (r.source != SB_PREFETCH_NOT_YET)
        return 1;
    const uint_least64_t two_mib = (uint_least64_t)2 << 20;
    for (size_t span = 0; span < 2 * 30; span++)
        sb__prefetch_span_record(0, span, two_mib, 100000);
    sb_host_prefetch_report(&r);
    return r.source == SB_PREFETCH_MEASURED ? 0 : 2;
}

/* In a child process: while another thread keeps taking the lock for
 * reports, forks; every grandchild reports and measures as above. Made-up
 * spans too small to decide, at rates in no order, first give each
 * report 128 spans of each candidate to sort (an insertion sort:
 * quadratic), so that most forks fall while it is held (about 9 in 10,
 * counted on 1 and 2 CPUs). Exit status 0, else which check failed. */
static int forks_while_reporting(void)
{
    for (size_t span = 0; span < 2 * 128; span++)
        sb__prefetch_span_record(0, span, 1, 1000 + (span * 7919) % 1000);
    pthread_t reporter;
    if (pthread_create(&reporter, NULL, report_until_stopped, NULL) != 0)
        return 1;
    int failed = 0;
    for (int i = 0; i < 200 && failed == 0; i++) {
        const pid_t child = fork();
        if (child < 0) {
            failed = 2;
            break;
        }
        if (child == 0)
            _exit(child_reports_and_decides());
        int status = 0;
        if (waitpid(child, &status, 0) != child)
            failed = 3;
        else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
            failed = 4;   /* hung */
        else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed = 10 + (WIFEXITED(status) ? WEXITSTATUS(status) : 0);
    }
    atomic_store(&stop_reporting, true);
    pthread_join(reporter, NULL);
    return failed;
}

/* Runs check(), which returns 0 or the number of the check that failed,
 * in a child process; what the parent measured stays as it was. */
static void in_child(int (*check)(void), const char *what)
{
    unsetenv("SAMEBITS_PREFETCH");
    fflush(NULL);
    const pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0)
        _exit(check());
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        fail_msg("%s: check %d failed", what, WEXITSTATUS(status));
    /* The parent measured nothing. */
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    assert_int_equal(r.source, SB_PREFETCH_NOT_YET);
    assert_int_equal(sb_host_prefetch_folds(NULL, 0), 0);
}

static void the_median_span_decides(void **state)
{
    (void)state;
    /* 1: nothing kept, 2: 4096 kept, 3: the report's rates */
    in_child(median_decides, "made-up spans");
}

static void each_fold_measures_apart(void **state)
{
    (void)state;
    in_child(folds_decide_apart, "folds apart");
}

static void a_fold_keeps_its_distance(void **state)
{
    (void)state;
    in_child(fold_keeps_its_distance, "a fold's own distance");
}

static void a_forced_instruction_set_measures_apart(void **state)
{
    (void)state;
    if (sb_host_isa(NULL) == SB_ISA_BASELINE) {
        /* A fact about this machine, not a skipped check. */
        printf("this CPU runs no instruction set wider than %s: nothing "
               "to force\n", sb_isa_name(SB_ISA_BASELINE));
        return;
    }
    /* 1, 5: bits not the oracle's; 2: the default measured; 3, 4: the
     * forced calls' own kind */
    in_child(forced_isa_measures_apart, "a forced instruction set");
}

static void a_child_forked_during_a_report(void **state)
{
    (void)state;
    /* 4: a grandchild hung; 11, 12: its report or its decision */
    in_child(forks_while_reporting, "forks while another thread reports");
}

/* Without SAMEBITS_PREFETCH the distance is measured (host_prefetch.c):
 * calls too small, argmin, or under the variable measure nothing; masked,
 * integer and NaN-skipping folds each their own; float calls of 64 MiB on
 * several threads their own too, a whole call at one distance; two on one
 * thread decide the default, every later call takes the faster, and the
 * bits equal the oracle's while measuring and after.
 * A program of its own: it needs a process that has measured nothing. */
static void the_prefetch_distance_is_measured(void **state)
{
    (void)state;
    unsetenv("SAMEBITS_PREFETCH");
    sb_prefetch_report r;
    sb_host_prefetch_report(&r);
    assert_int_equal(r.source, SB_PREFETCH_NOT_YET);
    assert_int_equal(r.bytes, 4096);
    assert_int_equal(sb_host_prefetch(), 4096);
    assert_int_equal(r.candidates[0], 0);
    assert_int_equal(r.candidates[1], 4096);

    const size_t big = (size_t)1 << 24;   /* 64 MiB of f32 */
    const sb_reduction f32_sum = { SB_SUM, SB_F32, 0, 0, 0 };
    const sb_reduction i32_sum = { SB_SUM, SB_I32, 0, 0, 0 };
    const sb_reduction f32_argmin = { SB_ARGMIN, SB_F32, 0, 0, 0 };
    const sb_reduction f32_nansum = { SB_SUM, SB_F32, 0, SB_SKIP_NAN, 0 };
    const sb_reduction f32_abs = { SB_SUM, SB_F32, 0, 0, SB_MAP_ABS };
    /* None of these measures the default distance: one element short,
     * masked, integers, NaN skipping, argmin, a map, and a call while
     * SAMEBITS_PREFETCH is set. The masked, integer, NaN-skipping and
     * mapped ones measure their own, each apart, and their case's two
     * calls decide it (two of 32 spans a distance); argmin and the others
     * measure nothing. */
    test_case quiet[] = {
        make_case(seed, f32_sum, big - 1, MASK_NONE, FAMILY_UNIFORM),
        make_case(seed, f32_sum, big, MASK_RANDOM, FAMILY_UNIFORM),
        make_case(seed, i32_sum, big, MASK_NONE, FAMILY_UNIFORM),
        make_case(seed, f32_argmin, big, MASK_NONE, FAMILY_SPECIALS),
        make_case(seed, f32_nansum, big, MASK_NONE, FAMILY_SPECIALS),
        make_case(seed, f32_abs, big, MASK_NONE, FAMILY_CANCELLATION),
        make_case(seed, f32_sum, big, MASK_NONE, FAMILY_CANCELLATION),
    };
    unsigned long wrong = 0;
    for (size_t i = 0; i < COUNT(quiet); i++) {
        quiet[i].threads = 1;   /* several would measure apart, below */
        if (i + 1 == COUNT(quiet))
            setenv("SAMEBITS_PREFETCH", "4096", 1);
        wrong += !check_against_oracle(&quiet[i], NULL);
        sb_host_prefetch_report(&r);
        if (r.gb_per_s[0] != 0 || r.gb_per_s[1] != 0)
            fail_msg("quiet call %zu measured the prefetch distance", i);
    }
    assert_int_equal(r.source, SB_PREFETCH_FROM_ENVIRONMENT);
    unsetenv("SAMEBITS_PREFETCH");

    const char *isa = sb_isa_name(sb_host_isa(NULL));
    char names[4][SB_PREFETCH_FOLD_NAME];
    snprintf(names[0], sizeof names[0], "f32 sum, masked, %s", isa);
    snprintf(names[1], sizeof names[1], "i32 sum, %s", isa);
    snprintf(names[2], sizeof names[2], "f32 sum, NaN-skipping, %s", isa);
    snprintf(names[3], sizeof names[3], "f32 sum, abs, %s", isa);
    sb_prefetch_fold folds[5];
    assert_int_equal(sb_host_prefetch_folds(folds, 5), 4);
    for (int i = 0; i < 4; i++) {
        const sb_prefetch_report *f = &folds[i].report;
        printf("%s: prefetch %zu bytes kept: 0 -> %.1f GB/s, 4096 -> "
               "%.1f GB/s\n", folds[i].fold, f->bytes, f->gb_per_s[0],
               f->gb_per_s[1]);
        assert_string_equal(folds[i].fold, names[i]);
        assert_int_equal(f->source, SB_PREFETCH_MEASURED);
        assert_true(f->gb_per_s[0] > 0 && f->gb_per_s[1] > 0);
        assert_int_equal(f->bytes,
                         f->gb_per_s[0] >= f->gb_per_s[1] ? 0 : 4096);
    }
    sb_host_prefetch_report(&r);
    assert_int_equal(r.source, SB_PREFETCH_NOT_YET);

    /* A huge-range f32 sum on 64 threads (chunks of 16 blocks but for
     * the measuring, which needs whole spans of 64; every thread times
     * its own) measures a kind of its own: its first call folds every
     * span at one distance, the second at the other, and the two decide
     * it; the default measures nothing. */
    const sb_host_options many = { .threads = 64 };
    float *x = malloc(big * sizeof *x);
    assert_non_null(x);
    for (size_t i = 0; i < big; i++)
        x[i] = (float)(i % 1000) * 0.001f;
    float total;
    assert_int_equal(sb_reduce_host_opts(f32_sum, x, NULL, big, &total,
                                         &many), SB_OK);
    free(x);
    char threaded[SB_PREFETCH_FOLD_NAME];
    snprintf(threaded, sizeof threaded, "plain float folds, %s, threaded",
             isa);
    assert_int_equal(sb_host_prefetch_folds(folds, 5), 5);
    assert_string_equal(folds[4].fold, threaded);
    assert_int_equal(folds[4].report.source, SB_PREFETCH_NOT_YET);
    if ((folds[4].report.gb_per_s[0] > 0) ==
        (folds[4].report.gb_per_s[1] > 0))
        fail_msg("one call on 64 threads timed spans at both distances "
                 "(%.1f, %.1f GB/s), or at none", folds[4].report.gb_per_s[0],
                 folds[4].report.gb_per_s[1]);
    test_case spread = make_case(seed, f32_sum, big, MASK_NONE,
                                 FAMILY_HUGE_RANGE);
    spread.threads = 64;
    wrong += !check_against_oracle(&spread, NULL);
    assert_int_equal(sb_host_prefetch_folds(folds, 5), 5);
    const sb_prefetch_report *t = &folds[4].report;
    printf("%s: prefetch %zu bytes kept: 0 -> %.1f GB/s, 4096 -> "
           "%.1f GB/s\n", folds[4].fold, t->bytes, t->gb_per_s[0],
           t->gb_per_s[1]);
    assert_int_equal(t->source, SB_PREFETCH_MEASURED);
    assert_true(t->gb_per_s[0] > 0 && t->gb_per_s[1] > 0);
    assert_int_equal(t->bytes, t->gb_per_s[0] >= t->gb_per_s[1] ? 0 : 4096);
    sb_host_prefetch_report(&r);
    assert_int_equal(r.source, SB_PREFETCH_NOT_YET);
    assert_true(r.gb_per_s[0] == 0 && r.gb_per_s[1] == 0);

    /* The default: the same sums on one thread (the case's two calls
     * decide), then an f64 min on one with the distance kept. */
    test_case measured = spread;
    measured.threads = 1;
    wrong += !check_against_oracle(&measured, NULL);
    sb_host_prefetch_report(&r);
    printf("prefetch %zu bytes kept: 0 -> %.1f GB/s, 4096 -> %.1f GB/s\n",
           r.bytes, r.gb_per_s[0], r.gb_per_s[1]);
    assert_int_equal(r.source, SB_PREFETCH_MEASURED);
    assert_true(r.gb_per_s[0] > 0 && r.gb_per_s[1] > 0);
    assert_int_equal(r.bytes, r.gb_per_s[0] >= r.gb_per_s[1] ? 0 : 4096);
    assert_int_equal(sb_host_prefetch(), r.bytes);
    const double kept[2] = { r.gb_per_s[0], r.gb_per_s[1] };
    test_case after = make_case(seed, (sb_reduction){ SB_MIN, SB_F64, 0, 0, 0 },
                                big / 2, MASK_NONE, FAMILY_SIGNED_ZEROS);
    after.threads = 1;
    wrong += !check_against_oracle(&after, NULL);
    sb_host_prefetch_report(&r);
    /* Kept: nothing more is timed. */
    assert_true(r.gb_per_s[0] == kept[0] && r.gb_per_s[1] == kept[1]);
    /* The variable still wins over what was measured. */
    setenv("SAMEBITS_PREFETCH", "64", 1);
    assert_int_equal(sb_host_prefetch(), 64);
    unsetenv("SAMEBITS_PREFETCH");
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_median_span_decides),
        cmocka_unit_test(each_fold_measures_apart),
        cmocka_unit_test(a_fold_keeps_its_distance),
        cmocka_unit_test(a_child_forked_during_a_report),
        cmocka_unit_test(a_forced_instruction_set_measures_apart),
        cmocka_unit_test(the_prefetch_distance_is_measured),
    };
    seed = test_seed(20261204u);
    return cmocka_run_group_tests_name("host_prefetch", tests, NULL, NULL);
}
