/* tests/test_host_memory.c: the host path without heap memory.
 *
 * Every heap allocation of the host path is optional (src/host_engine.h,
 * sb__host_malloc): a chunk node per thread of a long reduction, the merge
 * stacks of wide column panels, the roots of columns cut along their
 * length, the overflow locator's buffer. Without the memory a call takes
 * a slower way to the same answer. Here each allocation of a call is made
 * to fail in turn (counted in a run that fails none), and the call must
 * still return the same status, the same result bits (memcmp) and the same
 * detail as with the memory, while the failure really fired. Links the
 * static library: sb__host_malloc is hidden in the shared one.
 *
 * Seeded (printed at start; SAMEBITS_TEST_SEED replays a run). */
#define _POSIX_C_SOURCE 200809L   /* setenv, unsetenv */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "samebits.h"
#include "support.h"

/* src/host_engine.h */
extern void *(*sb__host_malloc)(size_t size);

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

/* ---- failing allocations ------------------------------------------------ */

static unsigned long allocations;   /* made in this run */
static unsigned long fail_at;       /* the one that returns NULL; 0: none */
static bool fired;

static void *counting_malloc(size_t size)
{
    allocations++;
    if (allocations == fail_at) {
        fired = true;
        return NULL;
    }
    return malloc(size);
}

static void arm(unsigned long m)
{
    allocations = 0;
    fail_at = m;
    fired = false;
}

/* ---- the calls ---------------------------------------------------------- */

/* One host call: its status, result bytes (results) and statuses (for a
 * batch), and its detail. */
typedef struct {
    sb_status     status;
    unsigned char results[20000 * 4];
    sb_status     statuses[20000];
    char          detail[512];
} outcome;

typedef struct {
    const char   *name;
    sb_reduction  r;
    size_t        n;          /* elements of a reduction (a column's rows) */
    size_t        columns;    /* 0: one reduction of n */
    data_family   family;
    int32_t       every;      /* not 0: every element this i32 instead */
    unsigned long allocations;   /* what the call makes with the memory */
} scenario;

static const scenario scenarios[] = {
    /* 2 threads: the chunk nodes (2^20 + 17 >= SB_THREADED_MIN_N: 257
     * blocks in chunks of 64) */
    { "f32 sum of 2^20 + 17, 2 threads", { SB_SUM, SB_F32, 0, 0, 0 },
      ((size_t)1 << 20) + 17, 0, FAMILY_HUGE_RANGE, 0, 1 },
    /* 20000 columns: panels wider than a stack frame, merge stacks on the
     * heap */
    { "f32 sums of 20000 columns of 40", { SB_SUM, SB_F32, 0, 0, 0 },
      40, 20000, FAMILY_CANCELLATION, 0, 1 },
    /* few long columns on 2 threads: cut along their length, roots */
    { "f64 max of 3 columns of 2^17 + 5", { SB_MAX, SB_F64, 0, 0, 0 },
      ((size_t)1 << 17) + 5, 3, FAMILY_SIGNED_ZEROS, 0, 1 },
    /* checked sums that overflow: the locator's buffer. At the limits the
     * first leaf overflows; with every element 2^16 no block does, and
     * the first overflow is a node over 8 blocks (2^31), found by
     * skipping whole blocks; squared (a prepared plan), the locator
     * converts each block into its buffer first. */
    { "i32 checked sum at the limits", { SB_SUM, SB_I32, 0, 0, 0 },
      ((size_t)1 << 16) + 3, 0, FAMILY_LIMITS, 0, 1 },
    { "i32 checked sum of 2^16 + 3 of 2^16", { SB_SUM, SB_I32, 0, 0, 0 },
      ((size_t)1 << 16) + 3, 0, FAMILY_UNIFORM, 1 << 16, 1 },
    { "i32 checked sum of squares of 2^8", { SB_SUM, SB_I32, 0, 0,
      SB_MAP_SQUARE }, ((size_t)1 << 16) + 3, 0, FAMILY_UNIFORM, 1 << 8, 1 },
};

static size_t result_size(sb_reduction r)
{
    return sb_result_size(r);
}

static void run(const scenario *sc, const void *x, outcome *out)
{
    memset(out, 0xAA, sizeof *out);
    const size_t rs = result_size(sc->r);
    setenv("SAMEBITS_THREADS", "2", 1);
    if (sc->columns == 0) {
        const sb_host_options opts = { .threads = 2 };
        out->status = sb_reduce_host_opts(sc->r, x, NULL, sc->n,
                                          out->results, &opts);
    } else {
        assert_true(sc->columns * rs <= sizeof out->results);
        /* row-major n x columns: column c is elements c, c + columns, ... */
        out->status = sb_reduce_batched_host(sc->r, x, NULL, sc->n,
                                             (ptrdiff_t)sc->columns,
                                             sc->columns, 1, out->results,
                                             out->statuses);
    }
    unsetenv("SAMEBITS_THREADS");
    snprintf(out->detail, sizeof out->detail, "%s", sb_error_detail());
}

static bool same(const scenario *sc, const outcome *a, const outcome *b)
{
    const size_t count = sc->columns ? sc->columns : 1;
    return a->status == b->status &&
           bits_equal(a->results, b->results, count * result_size(sc->r)) &&
           (sc->columns == 0 ||
            bits_equal(a->statuses, b->statuses, count * sizeof(sb_status))) &&
           strcmp(a->detail, b->detail) == 0;
}

/* Each allocation of each scenario's call fails in turn: the same status,
 * bits and detail as with the memory. */
static void every_host_allocation_can_fail(void **state)
{
    (void)state;
    static outcome want, got;
    sb__host_malloc = counting_malloc;
    unsigned long wrong = 0;
    for (size_t s = 0; s < COUNT(scenarios); s++) {
        const scenario *sc = &scenarios[s];
        const size_t elements = sc->n * (sc->columns ? sc->columns : 1);
        void *x = checked_malloc(elements * type_size(sc->r.input));
        if (sc->every != 0)
            for (size_t i = 0; i < elements; i++)
                ((int32_t *)x)[i] = sc->every;
        else
            fill_data(sc->family, sc->r.input, sc->r.input, x, elements,
                      mix_seed(seed, s));
        arm(0);
        run(sc, x, &want);
        const unsigned long total = allocations;
        printf("%s: %s, %lu allocation(s)\n", sc->name,
               status_name(want.status), total);
        /* The scenario must reach the allocation it is named for, or it
         * tests nothing: as many as it expects (a change of the host
         * path's thresholds shows here first), and the overflow ones must
         * overflow. */
        assert_int_equal(total, sc->allocations);
        if (sc->r.op == SB_SUM && sc->r.input == SB_I32)
            assert_int_equal(want.status, SB_OVERFLOW);
        for (unsigned long m = 1; m <= total; m++) {
            arm(m);
            run(sc, x, &got);
            assert_true(fired);
            if (!same(sc, &want, &got)) {
                fprintf(stderr, "%s: allocation %lu of %lu failing changed "
                        "the answer (%s '%s', with memory %s '%s')\n",
                        sc->name, m, total, status_name(got.status),
                        got.detail, status_name(want.status),
                        want.detail);
                wrong++;
            }
        }
        free(x);
    }
    sb__host_malloc = malloc;
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_host_allocation_can_fail),
    };
    seed = test_seed(20261204u);
    return cmocka_run_group_tests_name("host_memory", tests, NULL, NULL);
}
