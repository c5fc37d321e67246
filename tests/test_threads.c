/* tests/test_threads.c: one sb_context, many host threads (samebits.h: "One
 * context may be used from several host threads at once").
 *
 * THREADS threads share one context on POCL, made with the default options,
 * so that sizes up to host_max_n (32768) take the host shortcut (the
 * ranges are read back) and larger ones launch kernels; each thread runs
 * PER_THREAD reductions of a stream drawn from its own seed: ops, input and
 * accumulator types, SB_WRAP, sizes on both sides of host_max_n, mask
 * kinds, data families, and the call: blocking sb_reduce() through the
 * context's own queue (NULL), the shared test queue or the thread's own
 * queue, or sb_reduce_enqueue() into the thread's own record buffer at a
 * random offset, waited for through its `done` event or with clFinish().
 * So the context's program cache, kernels and scratch pool are used by
 * several queues at once. Every result must equal sb_reduce_host()'s bits
 * and status.
 *
 * Run in the ThreadSanitizer build too (tools/reliability.sh). A
 * mismatch prints the thread, the step and the case, enough to replay it
 * with SAMEBITS_TEST_SEED. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>

#include "device_support.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

enum {
    THREADS    = 8,
    PER_THREAD = 40,
    RECORD_BYTES = 64,   /* a thread's record buffer: offsets 0, 8 .. 48 */
};

/* Few (input, accumulator) pairs: POCL compiles each program once per
 * context, and each kernel once per launch shape. */
#define R(o, i, a, f) { .op = (o), .input = (i), .accumulator = (a), .flags = (f) }
static const sb_reduction reductions[] = {
    R(SB_SUM, SB_F32, 0, 0),        R(SB_SUM, SB_F32, SB_F64, 0),
    R(SB_SUM, SB_F64, 0, 0),        R(SB_PROD, SB_F64, 0, 0),
    R(SB_MIN, SB_F32, 0, 0),        R(SB_MAX, SB_F64, 0, 0),
    R(SB_MAX, SB_F32, SB_F64, 0),   R(SB_ANY, SB_F32, 0, 0),
    R(SB_ALL, SB_F64, 0, 0),        R(SB_SUM, SB_I32, SB_I64, 0),
    R(SB_SUM, SB_I32, SB_I64, SB_WRAP), R(SB_PROD, SB_I32, SB_I64, SB_WRAP),
    R(SB_PROD, SB_I32, SB_I64, 0),  R(SB_MIN, SB_I32, SB_I64, 0),
    R(SB_SUM, SB_U8, SB_U32, 0),    R(SB_MAX, SB_U8, SB_U32, 0),
};

/* Both sides of the default host_max_n (32768), and n = 0. */
static const size_t sizes[] = {
    0, 1, 17, 1000, 4099, 32768, 32769, 40000, 65543, 150001,
};

static const mask_kind masks[] = {
    MASK_NONE, MASK_NONE, MASK_RANDOM, MASK_EMPTY_LEAVES, MASK_ALL_ZERO,
};

static const data_family families[] = {
    FAMILY_UNIFORM, FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS, FAMILY_SUM_EDGE,
    FAMILY_PROD_EDGE,
};

typedef enum {
    CALL_REDUCE_OWN_QUEUE,     /* sb_reduce(queue = NULL) */
    CALL_REDUCE_SHARED_QUEUE,  /* sb_reduce(the test device's queue) */
    CALL_REDUCE_THREAD_QUEUE,  /* sb_reduce(this thread's queue) */
    CALL_ENQUEUE_EVENT,        /* sb_reduce_enqueue(), wait for done */
    CALL_ENQUEUE_FINISH,       /* sb_reduce_enqueue(done = NULL), clFinish */
    CALL_COUNT
} call_kind;

static const char *const call_names[CALL_COUNT] = {
    "sb_reduce(NULL queue)", "sb_reduce(shared queue)",
    "sb_reduce(thread queue)", "sb_reduce_enqueue(done event)",
    "sb_reduce_enqueue(clFinish)",
};

typedef struct {
    const test_device *dev;
    sb_context        *ctx;
    unsigned           index;
    unsigned long      done, mismatches, device_runs, host_runs;
    unsigned long      per_call[CALL_COUNT];
    int                setup_error;   /* an OpenCL call of the test failed */
} worker;

static uint64_t seed;

static void report(const worker *w, unsigned step, const test_case *c,
                   call_kind call, const char *what)
{
    fprintf(stderr, "MISMATCH thread %u step %u %s: %s\n  ", w->index, step,
            call_names[call], what);
    print_case(stderr, c);
}

/* One step: @return false on a mismatch (printed). */
static bool one_step(worker *w, cl_command_queue own_queue, cl_mem record,
                     unsigned step)
{
    uint64_t st = mix_seed(seed, (uint64_t)w->index * 1000 + step);
    const sb_reduction r = reductions[random_below(&st, COUNT(reductions))];
    const size_t n = sizes[random_below(&st, COUNT(sizes))];
    const mask_kind mk = masks[random_below(&st, COUNT(masks))];
    const data_family fam = families[random_below(&st, COUNT(families))];
    const call_kind call = (call_kind)random_below(&st, CALL_COUNT);
    const size_t record_offset = 8 * random_below(&st, 7);
    test_case c = make_case(seed, r, n, mk, fam);
    c.case_seed = mix_seed(c.case_seed, (uint64_t)w->index * 1000 + step);

    const size_t esize = type_size(r.input);
    void *x = checked_malloc(n * esize);
    fill_data(fam, r.input, r.accumulator, x, n, c.case_seed);
    unsigned char *mask = make_mask(mk, n, mix_seed(c.case_seed, 7));

    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    const sb_status want_status = sb_reduce_host(r, x, mask, n, want);
    const sb_type acc = r.accumulator ? r.accumulator : r.input;
    const bool exact = type_is_exact_on(w->dev, r.input) &&
                       type_is_exact_on(w->dev, acc);

    cl_int err = CL_SUCCESS;
    cl_mem xb = NULL, mb = NULL;
    if (n > 0) {
        xb = clCreateBuffer(w->dev->cl_ctx,
                            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            n * esize, x, &err);
        if (mask != NULL && err == CL_SUCCESS)
            mb = clCreateBuffer(w->dev->cl_ctx,
                                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n,
                                mask, &err);
    }
    bool ok = true;
    if (err != CL_SUCCESS) {
        fprintf(stderr, "thread %u: clCreateBuffer failed (%d)\n", w->index,
                err);
        w->setup_error = 1;
        ok = false;
    } else if (call <= CALL_REDUCE_THREAD_QUEUE) {
        cl_command_queue q = call == CALL_REDUCE_OWN_QUEUE ? NULL
                           : call == CALL_REDUCE_SHARED_QUEUE ? w->dev->queue
                           : own_queue;
        unsigned char got[RESULT_BUFFER];
        memset(got, RESULT_SENTINEL, sizeof got);
        const sb_status s = sb_reduce(w->ctx, q, r, xb, 0, mb, 0, n, got);
        const sb_status expect = exact ? want_status : SB_UNSUPPORTED;
        if (s != expect) {
            char what[160];
            snprintf(what, sizeof what, "status %s, host %s (want %s)",
                     status_name(s), status_name(want_status),
                     status_name(expect));
            report(w, step, &c, call, what);
            ok = false;
        } else if (!bits_equal(got, exact ? want : got, RESULT_BUFFER) ||
                   (!exact && got[0] != RESULT_SENTINEL)) {
            report(w, step, &c, call, "result bits differ from the host");
            fprintf(stderr, "  got  ");
            print_result(stderr, r, got);
            fprintf(stderr, "\n  want ");
            print_result(stderr, r, want);
            fputc('\n', stderr);
            ok = false;
        }
        if (n <= 32768)
            w->host_runs++;
        else
            w->device_runs++;
    } else {
        unsigned char fill[RECORD_BYTES];
        memset(fill, RESULT_SENTINEL, sizeof fill);
        err = clEnqueueWriteBuffer(own_queue, record, CL_TRUE, 0,
                                   RECORD_BYTES, fill, 0, NULL, NULL);
        cl_event done = NULL;
        const sb_status s = err != CL_SUCCESS ? SB_OPENCL_ERROR
            : sb_reduce_enqueue(w->ctx, own_queue, r, xb, 0, mb, 0, n,
                                record, record_offset, 0, NULL,
                                call == CALL_ENQUEUE_EVENT ? &done : NULL);
        const sb_status expect = exact ? SB_OK : SB_UNSUPPORTED;
        if (s != expect) {
            char what[120];
            snprintf(what, sizeof what, "status %s (want %s)",
                     status_name(s), status_name(expect));
            report(w, step, &c, call, what);
            ok = false;
        }
        if (s == SB_OK) {
            if (done != NULL) {
                err = clWaitForEvents(1, &done);
                clReleaseEvent(done);
            } else {
                err = clFinish(own_queue);
            }
            unsigned char back[RECORD_BYTES];
            if (err == CL_SUCCESS)
                err = clEnqueueReadBuffer(own_queue, record, CL_TRUE, 0,
                                          RECORD_BYTES, back, 0, NULL, NULL);
            if (err != CL_SUCCESS) {
                fprintf(stderr, "thread %u: waiting or reading failed (%d)\n",
                        w->index, err);
                w->setup_error = 1;
                ok = false;
            } else {
                int32_t status;
                memcpy(&status, back + record_offset + 8, sizeof status);
                unsigned char value[RESULT_BUFFER];
                memset(value, RESULT_SENTINEL, sizeof value);
                memcpy(value, back + record_offset, sb_result_size(r));
                if (status != (int32_t)want_status ||
                    !bits_equal(value, want, RESULT_BUFFER)) {
                    char what[120];
                    snprintf(what, sizeof what, "record status %s, host %s",
                             status_name((sb_status)status),
                             status_name(want_status));
                    report(w, step, &c, call, what);
                    fprintf(stderr, "  got  ");
                    print_result(stderr, r, value);
                    fprintf(stderr, "\n  want ");
                    print_result(stderr, r, want);
                    fputc('\n', stderr);
                    ok = false;
                }
            }
        }
        w->device_runs++;
    }
    w->per_call[call]++;
    if (xb != NULL)
        clReleaseMemObject(xb);
    if (mb != NULL)
        clReleaseMemObject(mb);
    free(mask);
    free(x);
    return ok;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(w->dev->cl_ctx, w->dev->device,
                                              0, &err);
    cl_mem record = q == NULL ? NULL
                  : clCreateBuffer(w->dev->cl_ctx, CL_MEM_READ_WRITE,
                                   RECORD_BYTES, NULL, &err);
    if (record == NULL) {
        fprintf(stderr, "thread %u: OpenCL setup failed (%d)\n", w->index,
                err);
        w->setup_error = 1;
    } else {
        for (unsigned step = 0; step < PER_THREAD; step++) {
            if (!one_step(w, q, record, step))
                w->mismatches++;
            w->done++;
        }
    }
    if (record != NULL)
        clReleaseMemObject(record);
    if (q != NULL)
        clReleaseCommandQueue(q);
    return NULL;
}

/* POCL before 7.0 can abort when threads run one kernel at once
 * ("pocl_release_dlhandle_cache: Assertion `found->ref_count > 0'
 * failed"; README: "POCL before 7.0 and threads"): it keeps a compiled
 * kernel per (kernel, work-group size, widest grid so far), and gives a
 * finished launch back to the first such entry it finds, not the one the
 * launch took. So a launch wider than any before it, made while two
 * launches of the same kernel are running (POCL 3.1), can drive the new
 * entry's count below zero (tests/pocl/dlhandle_race_check.sh).
 * Launching every kernel once at its widest grid first, from one thread,
 * leaves one entry per kernel and work-group size: what the README tells
 * users of those versions to do, and what this test does, so that it
 * tests samebits' threads rather than that bug (which aborted it once in
 * CI, in the ASan build, on POCL 3.1). Each launch is also checked
 * against the oracle and the host (check_on_device()). */
static void launch_each_kernel_at_its_widest(const test_device *pocl,
                                             sb_context *ctx)
{
    size_t widest = 0;
    for (size_t i = 0; i < COUNT(sizes); i++)
        if (sizes[i] > widest)
            widest = sizes[i];
    /* The shared context, borrowed: never device_context_close()d. */
    device_context dc = { .dev = pocl, .ctx = ctx };
    for (size_t i = 0; i < COUNT(reductions); i++)
        for (int masked = 0; masked <= 1; masked++) {
            const test_case c = make_case(mix_seed(seed, i), reductions[i],
                                          widest, masked ? MASK_RANDOM
                                                         : MASK_NONE,
                                          FAMILY_UNIFORM);
            assert_true(check_on_device(&dc, &c, RUN_REDUCE, NULL));
        }
}

static void threads_sharing_one_context_get_the_host_bits(void **state)
{
    (void)state;
    test_device *devices = NULL;
    const size_t count = open_devices(&devices);
    assert_true(count > 0);          /* POCL is always there: fail, not skip */
    const test_device *pocl = NULL;
    for (size_t i = 0; i < count && pocl == NULL; i++)
        if (!devices[i].oclgrind)
            pocl = &devices[i];
    if (pocl == NULL) {
        fprintf(stderr, "no device but Oclgrind: this test needs POCL\n");
        close_devices(devices, count);
        fail();
    }
    printf("%u threads x %u reductions on one context of %s\n", THREADS,
           PER_THREAD, pocl->name);
    sb_context *ctx = NULL;
    assert_int_equal(sb_context_create(pocl->cl_ctx, pocl->device, NULL, &ctx),
                     SB_OK);

    launch_each_kernel_at_its_widest(pocl, ctx);

    worker workers[THREADS];
    pthread_t tid[THREADS];
    memset(workers, 0, sizeof workers);
    unsigned started = 0;
    for (unsigned t = 0; t < THREADS; t++) {
        workers[t].dev = pocl;
        workers[t].ctx = ctx;
        workers[t].index = t;
        if (pthread_create(&tid[t], NULL, worker_main, &workers[t]) != 0)
            break;
        started++;
    }
    for (unsigned t = 0; t < started; t++)
        pthread_join(tid[t], NULL);

    unsigned long done = 0, mismatches = 0, host = 0, device = 0;
    unsigned long per_call[CALL_COUNT] = { 0 };
    int setup_errors = 0;
    for (unsigned t = 0; t < started; t++) {
        done += workers[t].done;
        mismatches += workers[t].mismatches;
        host += workers[t].host_runs;
        device += workers[t].device_runs;
        setup_errors += workers[t].setup_error;
        for (int k = 0; k < CALL_COUNT; k++)
            per_call[k] += workers[t].per_call[k];
    }
    printf("%lu reductions (%lu host shortcut, %lu on the device), %lu "
           "mismatches\n", done, host, device, mismatches);
    for (int k = 0; k < CALL_COUNT; k++)
        printf("  %-30s %lu\n", call_names[k], per_call[k]);
    sb_context_release(ctx);
    close_devices(devices, count);
    assert_int_equal(started, THREADS);
    assert_int_equal(setup_errors, 0);
    assert_int_equal(done, (unsigned long)THREADS * PER_THREAD);
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    seed = test_seed(0x74687265616473ull);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_sharing_one_context_get_the_host_bits),
    };
    return cmocka_run_group_tests_name("threads", tests, NULL, NULL);
}
