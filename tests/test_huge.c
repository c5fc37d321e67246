/* tests/test_huge.c: inputs too large for 32-bit sizes and indices, checked
 * against results derived in closed form here, never by the library.
 *
 * Host path: a u8 array of 2^32 + 17 elements, x[i] = i % 251 (4 GiB; its
 * pattern does not repeat at 2^32, so an index that wraps reads a different
 * value). Its sum is S(m) = sum_{i<m} i % 251 = (m / 251) * 31375 +
 * r(r - 1)/2 with r = m % 251. Every partial sum of the tree is an integer
 * <= S(n) < 2^53, so the f64 sum is exact too. Masks are a second 4 GiB,
 * mapped from zero pages and written only where something takes part, so
 * they cost no memory.
 *
 * Device path: the largest buffer the default device allows in one
 * allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE: POCL derives it from the free
 * memory, 1 to 4 GiB here; capped at 2^32 + 4096 bytes to bound memory on
 * large GPUs), holding u8 and then i32 patterns, filled and read by the
 * host through maps; each result must equal the host path's bits and the
 * closed form. With a 4 GiB buffer, n = 2^32 u8 elements.
 *
 * ctest -L huge. Needs about 4.3 GiB of memory (the host part and the
 * device part one after the other); see docs/reliability.md for times. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <CL/cl.h>
#include "samebits.h"
#include "support.h"

/* ------------------------------------------------------------------------
 * Closed forms
 * ---------------------------------------------------------------------- */

enum { PERIOD = 251 };           /* a prime: no power of two is a multiple */
#define PERIOD_SUM UINT64_C(31375) /* 0 + 1 + ... + 250 */

/* sum_{i < m} (i % 251) */
static uint64_t pattern_sum(uint64_t m)
{
    const uint64_t r = m % PERIOD;
    return (m / PERIOD) * PERIOD_SUM + (r == 0 ? 0 : r * (r - 1) / 2);
}

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Fills count elements of `size` bytes, element i being value(i % 251):
 * one period written, then the filled part doubled (always a whole number
 * of periods, so the pattern stays aligned to i). */
static void fill_periodic(unsigned char *x, size_t count, size_t size,
                          const void *period)
{
    const size_t total = count * size;
    size_t filled = PERIOD * size < total ? PERIOD * size : total;
    memcpy(x, period, filled);
    while (filled < total) {
        const size_t chunk = filled < total - filled ? filled : total - filled;
        memcpy(x + filled, x, chunk);
        filled += chunk;
    }
}

static void assert_untouched(const unsigned char *result)
{
    for (size_t i = 0; i < RESULT_BUFFER; i++)
        assert_int_equal(result[i], RESULT_SENTINEL);
}

/* ------------------------------------------------------------------------
 * Host path: n = 2^32 + 17
 * ---------------------------------------------------------------------- */

#define HOST_N (((size_t)1 << 32) + 17)

typedef struct {
    unsigned char *x;       /* HOST_N bytes, x[i] = i % 251, mmap()ed */
    unsigned char *mask;    /* HOST_N bytes of zero pages, mmap()ed */
} host_state;

#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif

/* size bytes of zero pages, or NULL. With `populate`, the pages are
 * allocated at once (Linux): a million page faults, one per 4 KiB, take
 * longer than the sums; without, untouched pages cost no memory. Huge pages
 * where the kernel allows them. */
static unsigned char *map_zeroed(size_t size, bool populate)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE
                   | (populate ? MAP_POPULATE : 0), -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);   /* advice only: may be refused */
#endif
    return p;
}

static int host_setup(void **state)
{
    if (sizeof(size_t) < 8) {
        fprintf(stderr, "test_huge needs a 64-bit size_t\n");
        return -1;
    }
    host_state *s = checked_malloc(sizeof *s);
    const double t0 = seconds();
    s->x = map_zeroed(HOST_N, true);
    s->mask = map_zeroed(HOST_N, false);  /* reads the shared zero page */
    if (s->x == NULL || s->mask == NULL) {
        fprintf(stderr, "test_huge: cannot allocate 2 x %zu bytes\n", HOST_N);
        return -1;
    }
    unsigned char period[PERIOD];
    for (int i = 0; i < PERIOD; i++)
        period[i] = (unsigned char)i;
    fill_periodic(s->x, HOST_N, 1, period);
    printf("host: %zu elements filled in %.1f s\n", HOST_N, seconds() - t0);
    *state = s;
    return 0;
}

static int host_teardown(void **state)
{
    host_state *s = *state;
    munmap(s->x, HOST_N);
    munmap(s->mask, HOST_N);
    free(s);
    return 0;
}

/* One host reduction, timed; threads 0 is sb_reduce_host(). */
static sb_status host_run(const host_state *s, sb_reduction r, bool masked,
                          unsigned threads, unsigned char *result)
{
    memset(result, RESULT_SENTINEL, RESULT_BUFFER);
    const sb_host_options opts = { .threads = threads };
    const double t0 = seconds();
    const sb_status st = threads == 0
        ? sb_reduce_host(r, s->x, masked ? s->mask : NULL, HOST_N, result)
        : sb_reduce_host_opts(r, s->x, masked ? s->mask : NULL, HOST_N,
                              result, &opts);
    printf("  %s %s->%s%s%s threads=%u: %s in %.1f s\n", op_name(r.op),
           type_name(r.input), type_name(r.accumulator),
           r.flags & SB_WRAP ? " wrap" : "", masked ? " masked" : "",
           threads, status_name(st), seconds() - t0);
    return st;
}

static void u8_to_u64_sum_of_2p32_plus_17_elements_is_exact(void **state)
{
    const sb_reduction r = { SB_SUM, SB_U8, SB_U64, 0, 0 };
    const uint64_t want = pattern_sum(HOST_N);
    unsigned char got[RESULT_BUFFER];
    static const unsigned threads[2] = { 0, 3 };
    for (int t = 0; t < 2; t++) {
        assert_int_equal(host_run(*state, r, false, threads[t], got), SB_OK);
        assert_memory_equal(got, &want, sizeof want);
        assert_int_equal(got[sizeof want], RESULT_SENTINEL);
    }
}

/* The same sum into a signed accumulator (u8 -> i64: a conversion of its
 * own, and the checked signed step). */
static void u8_to_i64_sum_is_exact(void **state)
{
    const sb_reduction r = { SB_SUM, SB_U8, SB_I64, 0, 0 };
    const int64_t want = (int64_t)pattern_sum(HOST_N);
    unsigned char got[RESULT_BUFFER];
    assert_int_equal(host_run(*state, r, false, 0, got), SB_OK);
    assert_memory_equal(got, &want, sizeof want);
    assert_int_equal(got[sizeof want], RESULT_SENTINEL);
}

/* The root's exact value S(n) > 2^32 - 1, so some step of the tree does
 * not fit u32, whatever the order. */
static void u8_to_u32_checked_sum_overflows(void **state)
{
    const sb_reduction r = { SB_SUM, SB_U8, SB_U32, 0, 0 };
    assert_true(pattern_sum(HOST_N) > UINT32_MAX);
    unsigned char got[RESULT_BUFFER];
    assert_int_equal(host_run(*state, r, false, 0, got), SB_OVERFLOW);
    assert_untouched(got);
}

static void u8_to_u32_wrapping_sum_is_exact_modulo_2p32(void **state)
{
    const sb_reduction r = { SB_SUM, SB_U8, SB_U32, SB_WRAP, 0 };
    const uint32_t want = (uint32_t)pattern_sum(HOST_N);
    unsigned char got[RESULT_BUFFER];
    assert_int_equal(host_run(*state, r, false, 0, got), SB_OK);
    assert_memory_equal(got, &want, sizeof want);
}

static void u8_to_f64_sum_is_exact(void **state)
{
    const sb_reduction r = { SB_SUM, SB_U8, SB_F64, 0, 0 };
    assert_true(pattern_sum(HOST_N) < (UINT64_C(1) << 53));
    const double want = (double)pattern_sum(HOST_N);
    unsigned char got[RESULT_BUFFER];
    assert_int_equal(host_run(*state, r, false, 0, got), SB_OK);
    assert_memory_equal(got, &want, sizeof want);
}

static void u8_min_max_any_without_mask(void **state)
{
    unsigned char got[RESULT_BUFFER];
    const sb_reduction mn = { SB_MIN, SB_U8, 0, 0, 0 };
    assert_int_equal(host_run(*state, mn, false, 0, got), SB_OK);
    assert_int_equal(got[0], 0);
    const sb_reduction mx = { SB_MAX, SB_U8, 0, 0, 0 };
    assert_int_equal(host_run(*state, mx, false, 0, got), SB_OK);
    assert_int_equal(got[0], PERIOD - 1);
    const sb_reduction any = { SB_ANY, SB_U8, 0, 0, 0 };
    assert_int_equal(host_run(*state, any, false, 0, got), SB_OK);
    assert_int_equal(got[0], 1);
}

/* Expected min, max, any, all and u64 sum over the taking-part positions
 * `at[0..count)`, from i % 251 directly. */
typedef struct {
    unsigned min, max, any, all;
    uint64_t sum;
} tail_answer;

static tail_answer answer_for(const size_t *at, size_t count)
{
    tail_answer a = { 255, 0, 0, 1, 0 };
    for (size_t k = 0; k < count; k++) {
        const unsigned v = (unsigned)(at[k] % PERIOD);
        a.min = v < a.min ? v : a.min;
        a.max = v > a.max ? v : a.max;
        a.any |= v != 0;
        a.all &= v != 0;
        a.sum += v;
    }
    return a;
}

/* Each masked pass reads 8 GiB, so a variant runs only the operations
 * whose answer it changes (OP_* bits). */
enum { OP_MIN = 1, OP_MAX = 2, OP_ANY = 4, OP_ALL = 8, OP_SUM = 16 };

static void check_masked(const host_state *s, const size_t *at, size_t count,
                         unsigned ops)
{
    for (size_t k = 0; k < count; k++)
        s->mask[at[k]] = (unsigned char)(1 + k % 255);
    const tail_answer want = answer_for(at, count);
    unsigned char got[RESULT_BUFFER];

    if (ops & OP_MIN) {
        const sb_reduction mn = { SB_MIN, SB_U8, 0, 0, 0 };
        assert_int_equal(host_run(s, mn, true, 0, got), SB_OK);
        assert_int_equal(got[0], want.min);
        assert_int_equal(got[1], RESULT_SENTINEL);
    }
    if (ops & OP_MAX) {
        const sb_reduction mx = { SB_MAX, SB_U8, 0, 0, 0 };
        assert_int_equal(host_run(s, mx, true, 0, got), SB_OK);
        assert_int_equal(got[0], want.max);
    }
    if (ops & OP_ANY) {
        const sb_reduction any = { SB_ANY, SB_U8, 0, 0, 0 };
        assert_int_equal(host_run(s, any, true, 0, got), SB_OK);
        assert_int_equal(got[0], want.any);
    }
    if (ops & OP_ALL) {
        const sb_reduction all = { SB_ALL, SB_U8, 0, 0, 0 };
        assert_int_equal(host_run(s, all, true, 0, got), SB_OK);
        assert_int_equal(got[0], want.all);
    }
    if (ops & OP_SUM) {
        const sb_reduction sum = { SB_SUM, SB_U8, SB_U64, 0, 0 };
        assert_int_equal(host_run(s, sum, true, 0, got), SB_OK);
        assert_memory_equal(got, &want.sum, sizeof want.sum);
    }
    for (size_t k = 0; k < count; k++)
        s->mask[at[k]] = 0;
}

/* Only the 17 elements at positions >= 2^32 take part: values 123..139. */
static void masked_tail_beyond_2p32_min_max_sum(void **state)
{
    size_t at[17];
    for (size_t k = 0; k < 17; k++)
        at[k] = ((size_t)1 << 32) + k;
    check_masked(*state, at, 17, OP_MIN | OP_MAX | OP_SUM);
}

/* The tail and one element just below 2^32 whose value is 0
 * (2^32 - 123 is a multiple of 251): min 0, all false. */
static void masked_tail_and_a_zero_below_2p32_min_any_all(void **state)
{
    size_t at[18];
    at[0] = ((size_t)1 << 32) - 123;
    assert_int_equal(at[0] % PERIOD, 0);
    for (size_t k = 0; k < 17; k++)
        at[k + 1] = ((size_t)1 << 32) + k;
    check_masked(*state, at, 18, OP_MIN | OP_ANY | OP_ALL);
}

static void all_zero_mask_gives_empty_and_start_values(void **state)
{
    unsigned char got[RESULT_BUFFER];
    const sb_reduction mx = { SB_MAX, SB_U8, 0, 0, 0 };
    assert_int_equal(host_run(*state, mx, true, 0, got), SB_EMPTY);
    assert_untouched(got);
    const sb_reduction all = { SB_ALL, SB_U8, 0, 0, 0 };
    assert_int_equal(host_run(*state, all, true, 0, got), SB_OK);
    assert_int_equal(got[0], 1);
}

/* ------------------------------------------------------------------------
 * Device path: the largest single buffer
 * ---------------------------------------------------------------------- */

#define DEVICE_CAP (((size_t)1 << 32) + 4096)

typedef struct {
    sb_context      *ctx;
    sb_device_caps   caps;
    size_t           bytes;   /* the buffer's size */
    cl_mem           buf;     /* filled and read through maps: on a CPU
                                 device no second copy in host memory */
    cl_command_queue queue;
} device_state;

static int device_setup(void **state)
{
    device_state *d = checked_malloc(sizeof *d);
    memset(d, 0, sizeof *d);
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    sb_status s = sb_context_create_default(&opts, &d->ctx);
    if (s != SB_OK) {
        fprintf(stderr, "test_huge: no OpenCL device (%s)\n", status_name(s));
        return -1;
    }
    if (sb_device_report(sb_context_device(d->ctx), &d->caps) != SB_OK)
        return -1;
    d->bytes = d->caps.max_alloc < DEVICE_CAP ? (size_t)d->caps.max_alloc
                                              : DEVICE_CAP;
    d->bytes &= ~(size_t)7;        /* whole i32 and u64 elements */
    printf("device: %s, max alloc %" PRIu64 " bytes, buffer %zu bytes\n",
           d->caps.name, (uint64_t)d->caps.max_alloc, d->bytes);
    cl_int err = CL_SUCCESS;
    const cl_context cl_ctx = sb_context_cl_context(d->ctx);
    d->buf = clCreateBuffer(cl_ctx, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR,
                            d->bytes, NULL, &err);
    if (d->buf == NULL) {
        fprintf(stderr, "test_huge: clCreateBuffer(%zu) failed: %d\n",
                d->bytes, (int)err);
        return -1;
    }
    d->queue = clCreateCommandQueue(cl_ctx, sb_context_device(d->ctx), 0,
                                    &err);
    if (d->queue == NULL)
        return -1;
    *state = d;
    return 0;
}

static int device_teardown(void **state)
{
    device_state *d = *state;
    clReleaseMemObject(d->buf);
    clReleaseCommandQueue(d->queue);
    sb_context_release(d->ctx);
    free(d);
    return 0;
}

static unsigned char *map(const device_state *d, cl_map_flags flags)
{
    cl_int err = CL_SUCCESS;
    void *p = clEnqueueMapBuffer(d->queue, d->buf, CL_TRUE, flags, 0,
                                 d->bytes, 0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_non_null(p);
    return p;
}

static void unmap(const device_state *d, unsigned char *p)
{
    cl_event done = NULL;
    assert_int_equal(clEnqueueUnmapMemObject(d->queue, d->buf, p, 0, NULL,
                                             &done), CL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
}

/* Writes `count` elements of `size` bytes, element i = period[i % 251],
 * into the buffer. */
static void fill_buffer(const device_state *d, size_t count, size_t size,
                        const void *period)
{
    const double t0 = seconds();
    unsigned char *p = map(d, CL_MAP_WRITE_INVALIDATE_REGION);
    fill_periodic(p, count, size, period);
    unmap(d, p);
    printf("  filled %zu bytes in %.1f s\n", count * size, seconds() - t0);
}

/* The device and the host path over elements [offset, offset + n) of the
 * buffer (the host reading it through a map): equal statuses, equal bits.
 * Returns the status; *result receives the device's bytes. */
static sb_status device_and_host(const device_state *d, sb_reduction r,
                                 size_t offset, size_t n,
                                 unsigned char *result)
{
    unsigned char host[RESULT_BUFFER];
    memset(result, RESULT_SENTINEL, RESULT_BUFFER);
    memset(host, RESULT_SENTINEL, RESULT_BUFFER);
    double t0 = seconds();
    const sb_status sd = sb_reduce(d->ctx, d->queue, r, d->buf, offset, NULL,
                                   0, n, result);
    const double t_device = seconds() - t0;
    t0 = seconds();
    const size_t size = type_size(r.input);
    unsigned char *p = map(d, CL_MAP_READ);
    const sb_status sh = sb_reduce_host(r, p + offset * size, NULL, n, host);
    unmap(d, p);
    printf("  %s %s->%s n=%zu offset=%zu: device %s in %.1f s, host %s in "
           "%.1f s\n", op_name(r.op), type_name(r.input),
           type_name(r.accumulator), n, offset, status_name(sd), t_device,
           status_name(sh), seconds() - t0);
    assert_int_equal(sd, sh);
    assert_memory_equal(result, host, RESULT_BUFFER);
    return sd;
}

/* u8, x[i] = i % 251 over the whole buffer; the range ends at its last
 * byte. */
static void device_u8_to_u64_sum_over_the_largest_buffer(void **state)
{
    device_state *d = *state;
    unsigned char period[PERIOD];
    for (int i = 0; i < PERIOD; i++)
        period[i] = (unsigned char)i;
    fill_buffer(d, d->bytes, 1, period);
    const sb_reduction r = { SB_SUM, SB_U8, SB_U64, 0, 0 };
    unsigned char got[RESULT_BUFFER];
    static const size_t offsets[2] = { 0, 5 };
    for (int k = 0; k < 2; k++) {
        const size_t off = offsets[k], n = d->bytes - off;
        const uint64_t want = pattern_sum(off + n) - pattern_sum(off);
        assert_int_equal(device_and_host(d, r, off, n, got), SB_OK);
        assert_memory_equal(got, &want, sizeof want);
    }
    const sb_reduction mx = { SB_MAX, SB_U8, 0, 0, 0 };
    assert_int_equal(device_and_host(d, mx, 1, d->bytes - 1, got), SB_OK);
    assert_int_equal(got[0], PERIOD - 1);
}

/* i32, x[i] = i % 251 - 125: a whole period sums to 0, so every step of
 * the fold and the tree, the sum of a contiguous run (a period's suffix,
 * whole periods, a period's prefix), is at most 2 * 7875 in magnitude: the
 * checked sum succeeds, with the value (S(off + n) - S(off)) - 125 n. */
static void device_i32_checked_sum_mixed_signs_is_exact(void **state)
{
    device_state *d = *state;
    int32_t period[PERIOD];
    for (int i = 0; i < PERIOD; i++)
        period[i] = i - 125;
    const size_t count = d->bytes / 4;
    fill_buffer(d, count, 4, period);
    const sb_reduction r = { SB_SUM, SB_I32, 0, 0, 0 };
    const size_t off = 3, n = count - off;
    const int64_t want64 = (int64_t)(pattern_sum(off + n) - pattern_sum(off))
                         - 125 * (int64_t)n;
    assert_true(want64 >= INT32_MIN && want64 <= INT32_MAX);
    const int32_t want = (int32_t)want64;
    unsigned char got[RESULT_BUFFER];
    assert_int_equal(device_and_host(d, r, off, n, got), SB_OK);
    assert_memory_equal(got, &want, sizeof want);
}

/* i32, x[i] = (i % 251) * 1024 >= 0: the root S * 1024 > 2^31 - 1, so the
 * checked i32 sum overflows (some step must), and the i64 sum is exact. */
static void device_i32_checked_sum_overflows_and_i64_is_exact(void **state)
{
    device_state *d = *state;
    int32_t period[PERIOD];
    for (int i = 0; i < PERIOD; i++)
        period[i] = i * 1024;
    const size_t count = d->bytes / 4;
    fill_buffer(d, count, 4, period);
    const size_t off = 1, n = count - off;
    const uint64_t exact = 1024 * (pattern_sum(off + n) - pattern_sum(off));
    assert_true(exact > INT32_MAX);
    unsigned char got[RESULT_BUFFER];
    const sb_reduction checked = { SB_SUM, SB_I32, 0, 0, 0 };
    assert_int_equal(device_and_host(d, checked, off, n, got), SB_OVERFLOW);
    assert_untouched(got);
    const sb_reduction wide = { SB_SUM, SB_I32, SB_I64, 0, 0 };
    const int64_t want = (int64_t)exact;
    assert_int_equal(device_and_host(d, wide, off, n, got), SB_OK);
    assert_memory_equal(got, &want, sizeof want);
}

int main(void)
{
    const struct CMUnitTest host_tests[] = {
        cmocka_unit_test(u8_to_u64_sum_of_2p32_plus_17_elements_is_exact),
        cmocka_unit_test(u8_to_i64_sum_is_exact),
        cmocka_unit_test(u8_to_u32_checked_sum_overflows),
        cmocka_unit_test(u8_to_u32_wrapping_sum_is_exact_modulo_2p32),
        cmocka_unit_test(u8_to_f64_sum_is_exact),
        cmocka_unit_test(u8_min_max_any_without_mask),
        cmocka_unit_test(masked_tail_beyond_2p32_min_max_sum),
        cmocka_unit_test(masked_tail_and_a_zero_below_2p32_min_any_all),
        cmocka_unit_test(all_zero_mask_gives_empty_and_start_values),
    };
    const struct CMUnitTest device_tests[] = {
        cmocka_unit_test(device_u8_to_u64_sum_over_the_largest_buffer),
        cmocka_unit_test(device_i32_checked_sum_mixed_signs_is_exact),
        cmocka_unit_test(device_i32_checked_sum_overflows_and_i64_is_exact),
    };
    const double t0 = seconds();
    int failed = cmocka_run_group_tests_name("huge_host", host_tests,
                                             host_setup, host_teardown);
    printf("host part: %.1f s\n", seconds() - t0);
    const double t1 = seconds();
    failed += cmocka_run_group_tests_name("huge_device", device_tests,
                                          device_setup, device_teardown);
    printf("device part: %.1f s\n", seconds() - t1);
    return failed;
}
