/* tests/test_error_detail.c: sb_error_detail() on the host path, and the
 * settings the library reads in one place (thread counts, versions).
 *
 * - SB_OVERFLOW names the first node that overflows, leftmost and lowest:
 *   inside a leaf (with the position of the step), a combination of two
 *   leaves, and a combination of two aligned 4096-element blocks deep in a
 *   larger input; the positions are fixed by arithmetic on the data below,
 *   not taken from the library. The two 18-element i64 examples of
 *   docs/order.md overflow where that page says.
 * - SB_EMPTY and every refused argument have a sentence; SB_OK leaves "".
 * - The detail is per thread: another thread's calls never change it.
 * - sb_threads_parse() / sb_host_thread_count() / SAMEBITS_THREADS: one
 *   reading ("-1", "0", "4x", " 4" ignored; above 256 means 256, however
 *   many digits).
 * - sb_version_string() / sb_version_number() match the header. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "samebits.h"
#include "support.h"

static void assert_detail_has(const char *part)
{
    const char *d = sb_error_detail();
    if (strstr(d, part) == NULL)
        fail_msg("detail \"%s\" does not say \"%s\"", d, part);
}

/* ---- overflow: where ------------------------------------------------------ */

static void overflow_inside_a_leaf_names_the_step(void **state)
{
    (void)state;
    /* docs/order.md: [-1, 0 x 15, M, 1] overflows at M + 1, position 17,
     * in the second leaf (positions 16..17). */
    int64_t x[18] = { 0 };
    x[0] = -1;
    x[16] = INT64_MAX;
    x[17] = 1;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    int64_t sum = 42;
    assert_int_equal(sb_reduce_host(r, x, NULL, 18, &sum), SB_OVERFLOW);
    assert_int_equal(sum, 42);
    assert_detail_has("the checked i64 sum overflows at position 17, in the "
                      "leaf of positions 16..17");
    /* [1, 0 x 15, M, -1] does not overflow in tree order. */
    x[0] = 1;
    x[17] = -1;
    assert_int_equal(sb_reduce_host(r, x, NULL, 18, &sum), SB_OK);
    assert_int_equal(sum, INT64_MAX);
    assert_string_equal(sb_error_detail(), "");
}

static void overflow_between_two_leaves_names_the_node(void **state)
{
    (void)state;
    /* Each leaf: 16 x 2^26 = 2^30, fits i32; leaves 0 and 1 combine to
     * 2^31, which does not. */
    int32_t x[48];
    for (int i = 0; i < 48; i++)
        x[i] = i < 32 ? 1 << 26 : 0;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I32 };
    int32_t sum;
    assert_int_equal(sb_reduce_host(r, x, NULL, 48, &sum), SB_OVERFLOW);
    assert_detail_has("the checked i32 sum overflows in the node of "
                      "positions 0..31");
    /* A product: each leaf of 1, 2, ..., 2 is 2^15; leaves 0 and 1 give
     * 2^30, which fits u32, and the root (the odd third leaf moved up)
     * 2^30 * 2^15, which does not: the node of positions 0..47. */
    uint16_t y[48];
    for (int i = 0; i < 48; i++)
        y[i] = i % 16 == 0 ? 1 : 2;     /* each leaf: 2^15 */
    const sb_reduction p = { .op = SB_PROD, .input = SB_U16,
                             .accumulator = SB_U32 };
    uint32_t prod;
    assert_int_equal(sb_reduce_host(p, y, NULL, 48, &prod), SB_OVERFLOW);
    assert_detail_has("the checked u32 prod overflows in the node of "
                      "positions 0..47");
}

static void overflow_deep_in_a_large_input_names_the_node(void **state)
{
    (void)state;
    /* 16384 i32: blocks of 4096 positions. Blocks 2 and 3 hold 2^18 in
     * every position: each block sums to 4096 * 2^18 = 2^30 (fits), their
     * combination 2^31 does not. Blocks 0 and 1 are zeros. */
    enum { N = 16384 };
    int32_t *x = checked_malloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = i >= 8192 ? 1 << 18 : 0;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I32 };
    int32_t sum;
    const sb_host_options one = { .threads = 1 }, two = { .threads = 2 };
    assert_int_equal(sb_reduce_host_opts(r, x, NULL, N, &sum, &one),
                     SB_OVERFLOW);
    assert_detail_has("in the node of positions 8192..16383");
    /* The detail does not depend on the thread count. */
    char first[512];
    snprintf(first, sizeof first, "%s", sb_error_detail());
    assert_int_equal(sb_reduce_host_opts(r, x, NULL, N, &sum, &two),
                     SB_OVERFLOW);
    assert_string_equal(sb_error_detail(), first);
    /* A masked-out element takes no step. Position 16383 holds INT32_MAX
     * and 16382 holds 2^19, so block 3 still sums to 2^30 without
     * position 16383: masked out, the overflow is the same node's; taking
     * part, its own step overflows first, inside its leaf. */
    x[N - 1] = INT32_MAX;
    x[N - 2] = 1 << 19;
    unsigned char *mask = checked_malloc(N);
    memset(mask, 1, N);
    mask[N - 1] = 0;
    assert_int_equal(sb_reduce_host(r, x, mask, N, &sum), SB_OVERFLOW);
    assert_detail_has("in the node of positions 8192..16383");
    assert_int_equal(sb_reduce_host(r, x, NULL, N, &sum), SB_OVERFLOW);
    assert_detail_has("at position 16383, in the leaf of positions "
                      "16368..16383");
    free(mask);
    free(x);
}

/* The locator runs on the caller's thread, whose stack may be small (128
 * KiB threads are common): a 2^20-element overflow on a 64 KiB stack.
 * AddressSanitizer puts a red zone around every local array and keeps
 * frames larger, so under it the thread gets 256 KiB: still less than
 * half of what the walk took when it kept its block buffer on the stack
 * (560 KiB without the sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
#  define SMALL_STACK_BYTES (256 * 1024)
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define SMALL_STACK_BYTES (256 * 1024)
#  endif
#endif
#ifndef SMALL_STACK_BYTES
#  define SMALL_STACK_BYTES (64 * 1024)
#endif
typedef struct {
    const int32_t *x;
    size_t         n;
    sb_status      status;
    char           detail[256];
} small_stack_call;

static void *reduce_on_small_stack(void *p)
{
    small_stack_call *c = p;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I32 };
    const sb_host_options one = { .threads = 1 };
    int32_t sum;
    c->status = sb_reduce_host_opts(r, c->x, NULL, c->n, &sum, &one);
    snprintf(c->detail, sizeof c->detail, "%s", sb_error_detail());
    return NULL;
}

static void the_overflow_walk_needs_little_stack(void **state)
{
    (void)state;
    enum { N = 1 << 20 };
    int32_t *x = checked_malloc(N * sizeof *x);
    for (int i = 0; i < N; i++)
        x[i] = i < N - 2 ? 0 : INT32_MAX;   /* the last leaf overflows */
    small_stack_call call = { x, N, SB_OK, "" };
    pthread_attr_t attr;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK_BYTES), 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, &attr, reduce_on_small_stack, &call), 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    free(x);
    assert_int_equal(call.status, SB_OVERFLOW);
    char want[128];
    snprintf(want, sizeof want, "at position %d, in the leaf of positions "
             "%d..%d", N - 1, N - 16, N - 1);
    assert_non_null(strstr(call.detail, want));
}

static void u64_overflow_names_no_wider_accumulator(void **state)
{
    (void)state;
    const uint64_t x[2] = { UINT64_MAX, 1 };
    const sb_reduction r = { .op = SB_SUM, .input = SB_U64 };
    uint64_t sum;
    assert_int_equal(sb_reduce_host(r, x, NULL, 2, &sum), SB_OVERFLOW);
    assert_detail_has("the checked u64 sum overflows at position 1");
    assert_null(strstr(sb_error_detail(), "wider"));
}

/* ---- other statuses --------------------------------------------------------- */

static void empty_and_refused_calls_say_why(void **state)
{
    (void)state;
    const float x[4] = { 1, 2, 3, 4 };
    const unsigned char none[4] = { 0, 0, 0, 0 };
    float v = 7.0f;
    const sb_reduction min = { .op = SB_MIN, .input = SB_F32 };
    assert_int_equal(sb_reduce_host(min, x, none, 4, &v), SB_EMPTY);
    assert_detail_has("min over no element");
    assert_true(v == 7.0f);

    const sb_reduction any_acc = { .op = SB_ANY, .input = SB_F32,
                                   .accumulator = SB_F64 };
    assert_int_equal(sb_reduce_host(any_acc, x, NULL, 4, &v), SB_INVALID_ARGUMENT);
    assert_detail_has("any takes no accumulator");
    assert_null(strstr(sb_error_detail(), "widening"));

    const sb_reduction narrowing = { .op = SB_SUM, .input = SB_F32,
                                     .accumulator = SB_I32 };
    assert_int_equal(sb_reduction_check(narrowing), SB_INVALID_ARGUMENT);
    assert_detail_has("f32 -> i32 is not an exact widening: f32 input may "
                      "use f32, f64");
    assert_int_equal(sb_result_size(narrowing), 0);

    assert_int_equal(sb_reduce_host(min, NULL, NULL, 10, &v), SB_INVALID_ARGUMENT);
    assert_detail_has("x is NULL while n = 10");

    /* Success empties it. */
    assert_int_equal(sb_reduce_host(min, x, NULL, 4, &v), SB_OK);
    assert_string_equal(sb_error_detail(), "");
    assert_int_equal(sb_reduction_check(narrowing), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_reduction_check(min), SB_OK);
    assert_string_equal(sb_error_detail(), "");
}

/* A thread that fails, and keeps its detail while another thread works. */
typedef struct {
    pthread_barrier_t *barrier;
    char               seen[256];
} thread_arg;

static void *failing_thread(void *p)
{
    thread_arg *a = p;
    float v;
    const sb_reduction bad = { .op = SB_SUM, .input = (sb_type)99 };
    if (sb_reduce_host(bad, NULL, NULL, 0, &v) != SB_INVALID_ARGUMENT)
        return NULL;
    pthread_barrier_wait(a->barrier);      /* the other thread succeeds */
    pthread_barrier_wait(a->barrier);
    snprintf(a->seen, sizeof a->seen, "%s", sb_error_detail());
    return NULL;
}

static void *succeeding_thread(void *p)
{
    thread_arg *a = p;
    pthread_barrier_wait(a->barrier);
    const float x[2] = { 1, 2 };
    float v;
    const sb_reduction ok = { .op = SB_SUM, .input = SB_F32 };
    if (sb_reduce_host(ok, x, NULL, 2, &v) == SB_OK)
        snprintf(a->seen, sizeof a->seen, "[%s]", sb_error_detail());
    pthread_barrier_wait(a->barrier);
    return NULL;
}

static void the_detail_is_per_thread(void **state)
{
    (void)state;
    pthread_barrier_t barrier;
    assert_int_equal(pthread_barrier_init(&barrier, NULL, 2), 0);
    thread_arg fail = { &barrier, "" }, ok = { &barrier, "" };
    pthread_t t1, t2;
    assert_int_equal(pthread_create(&t1, NULL, failing_thread, &fail), 0);
    assert_int_equal(pthread_create(&t2, NULL, succeeding_thread, &ok), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    pthread_barrier_destroy(&barrier);
    assert_string_equal(ok.seen, "[]");
    assert_non_null(strstr(fail.seen, "r.input = 99 is not an element type"));
}

/* ---- settings: one reading of a thread count -------------------------------- */

static void thread_counts_are_read_one_way(void **state)
{
    (void)state;
    static const struct { const char *text; unsigned want; } good[] = {
        { "1", 1 }, { "3", 3 }, { "007", 7 }, { "256", 256 }, { "257", 256 },
        { "1000", 256 }, { "99999999999999999999999", 256 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        unsigned t = 0;
        assert_int_equal(sb_threads_parse(good[i].text, &t), SB_OK);
        assert_int_equal(t, good[i].want);
        assert_string_equal(sb_error_detail(), "");
    }
    static const char *const bad[] = { "-1", "0", "000", "", " 4", "4 ", "4x",
                                       "+4", "0x10", "1e3", "-0" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned t = 12345;
        assert_int_equal(sb_threads_parse(bad[i], &t), SB_INVALID_ARGUMENT);
        assert_int_equal(t, 12345);
        assert_detail_has("is not a thread count");
    }
    unsigned t;
    assert_int_equal(sb_threads_parse(NULL, &t), SB_INVALID_ARGUMENT);
    assert_int_equal(sb_threads_parse("2", NULL), SB_INVALID_ARGUMENT);

    /* The environment, through the same reading. */
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const unsigned cpus = online < 1 ? 1 : online > 256 ? 256 : (unsigned)online;
    setenv("SAMEBITS_THREADS", "3", 1);
    assert_int_equal(sb_host_thread_count(NULL), 3);
    setenv("SAMEBITS_THREADS", "99999999999999999999", 1);
    assert_int_equal(sb_host_thread_count(NULL), 256);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("SAMEBITS_THREADS", bad[i], 1);
        assert_int_equal(sb_host_thread_count(NULL), cpus);
    }
    const sb_host_options five = { .threads = 5 }, many = { .threads = 1000 };
    setenv("SAMEBITS_THREADS", "3", 1);
    assert_int_equal(sb_host_thread_count(&five), 5);
    assert_int_equal(sb_host_thread_count(&many), 256);
    unsetenv("SAMEBITS_THREADS");
    assert_int_equal(sb_host_thread_count(NULL), cpus);
}

static void the_library_knows_its_version(void **state)
{
    (void)state;
    assert_string_equal(sb_version_string(), SAMEBITS_VERSION_STRING);
    assert_int_equal(sb_version_number(), SAMEBITS_VERSION_NUMBER);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", SAMEBITS_VERSION_MAJOR,
             SAMEBITS_VERSION_MINOR, SAMEBITS_VERSION_PATCH);
    assert_string_equal(sb_version_string(), want);
    assert_int_equal(sb_version_number(), SAMEBITS_VERSION_MAJOR * 10000 +
                     SAMEBITS_VERSION_MINOR * 100 + SAMEBITS_VERSION_PATCH);
    /* A zero-initialised reduction accumulates in the input type. */
    const sb_reduction r = { .op = SB_SUM, .input = SB_I16,
                             .accumulator = SB_SAME_AS_INPUT };
    assert_int_equal(SB_SAME_AS_INPUT, 0);
    assert_int_equal(sb_result_size(r), 2);
}

int main(void)
{
    test_seed(0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overflow_inside_a_leaf_names_the_step),
        cmocka_unit_test(overflow_between_two_leaves_names_the_node),
        cmocka_unit_test(overflow_deep_in_a_large_input_names_the_node),
        cmocka_unit_test(the_overflow_walk_needs_little_stack),
        cmocka_unit_test(u64_overflow_names_no_wider_accumulator),
        cmocka_unit_test(empty_and_refused_calls_say_why),
        cmocka_unit_test(the_detail_is_per_thread),
        cmocka_unit_test(thread_counts_are_read_one_way),
        cmocka_unit_test(the_library_knows_its_version),
    };
    return cmocka_run_group_tests_name("error_detail", tests, NULL, NULL);
}
