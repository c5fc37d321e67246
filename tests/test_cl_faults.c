/* tests/test_cl_faults.c: every OpenCL call and every allocation of the
 * library can fail, and each failure is reported, recorded and survived.
 *
 * The library makes every OpenCL call through the table sb__cl and every
 * heap allocation through sb__mem (src/cl_api.h). The harness of
 * tests/cl_fault_harness.h replaces each entry with a counting wrapper that
 * passes the call through, or makes the k-th call of any kind fail: a
 * function returning an object stores the error through its errcode_ret
 * and returns NULL, the others return it.
 *
 * Each scenario runs once to count its calls, then once per k: a fresh
 * context (sb_context_create), one reduction, the context released. The
 * calls after a scenario's program builds fail in runs that find the
 * programs built, held by another context (sweep() says why and how). The
 * call that fails decides what must happen (see policy()):
 *   - a call whose failure the library must report: the status is the one
 *     the error maps to (SB_OUT_OF_MEMORY for CL_OUT_OF_HOST_MEMORY and
 *     CL_MEM_OBJECT_ALLOCATION_FAILURE; SB_BUILD_ERROR for a failed
 *     clBuildProgram, with sb_context_build_log() a valid string; a failed
 *     device query at creation is SB_OPENCL_ERROR whatever the error, as
 *     samebits.h says; otherwise SB_OPENCL_ERROR), sb_context_last_cl_error()
 *     is the injected cl_int, the result (host memory, or the record buffer
 *     and the done event of sb_reduce_enqueue) is untouched, and the SAME
 *     context then computes the reduction with the host's bits;
 *   - a call that only cleans up or optimises (clRelease*, clRetainEvent,
 *     clFlush, clGetEventInfo on a scratch buffer's last use): the
 *     reduction still succeeds
 *     with the host's bits. Their failures cannot change the result: the
 *     work is done, and the library keeps what it needs (a scratch buffer
 *     whose last use it cannot retain stays taken until the context is
 *     released).
 * A cleanup call made to fail really did nothing, so its object would leak:
 * the harness records it and the test makes the real call afterwards
 * (run_deferred()), so that the leak checker (ASan/LSan build) sees only
 * the library's leaks. The harness also keeps a ledger of the references
 * the library holds (objects it creates or retains, events enqueues give
 * it, minus those it releases and the `done` events the test releases):
 * after every run each count must be back to 0, never below
 * (ledger_check()). LSan cannot tell a cl_mem samebits forgot from POCL's
 * own allocations; the ledger can.
 *
 * The scenarios, on POCL only: sb_reduce() with SB_OPT_NO_HOST and a
 * narrow launch shape (a leaves pass and two node passes, so a failure can
 * hit a launch while earlier ones are running), sb_reduce_enqueue() with a
 * wait list and a done event, sb_reduce()'s host shortcut (buffers
 * read back), and sb_reduce_batched() / sb_reduce_segments() of short rows
 * and segments (mapped: the rows by chunks, the segments in one run with
 * their offsets, and, as on a device whose maps may copy, in runs of up
 * to 128 host_max_n elements); each swept twice, with the error typical of each call
 * (CL_BUILD_PROGRAM_FAILURE for clBuildProgram,
 * CL_MEM_OBJECT_ALLOCATION_FAILURE for clCreateBuffer,
 * CL_INVALID_COMMAND_QUEUE for enqueues, CL_OUT_OF_RESOURCES mostly) and
 * with CL_OUT_OF_HOST_MEMORY everywhere. Then sb_context_create_default(),
 * every allocation, a kernel whose work-group limit is below the options'
 * (the launches shrink, the bits stay), a failed build whose log cannot be read, and failures
 * after the first launch while that launch is held behind an incomplete
 * event (the library must neither wait for it nor lend its buffers). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cl_fault_harness.h"    /* sb__cl, sb__mem wrapped; includes
                                    samebits.h before any CL header */
#include "samebits.h"
#include "support.h"
#include "oracle.h"

#include <CL/cl_ext.h>           /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */
#include <signal.h>
#include <unistd.h>              /* alarm */

#define COUNT(a) (sizeof(a) / sizeof *(a))

/* ------------------------------------------------------------------------
 * What a failure must do
 * ---------------------------------------------------------------------- */

typedef enum {
    MUST_FAIL,        /* the call returns the status of the error */
    MUST_SUCCEED      /* cleanup or optimisation: SB_OK, right bits */
} policy_kind;

static policy_kind policy(fn_id fn, cl_uint param)
{
    switch (fn) {
    case FN_clReleaseContext: case FN_clReleaseCommandQueue:
    case FN_clReleaseProgram: case FN_clReleaseKernel:
    case FN_clReleaseMemObject: case FN_clReleaseEvent:
    case FN_clRetainEvent:             /* the scratch slot stays taken */
    case FN_clFlush:                   /* waiting on `done` flushes too */
    case FN_clGetEventInfo:            /* the slot counts as still busy */
        return MUST_SUCCEED;
    case FN_clGetDeviceInfo:
#ifdef CL_DEVICE_SUB_GROUP_SIZES_INTEL
        /* Informational only (sb_device_caps.subgroup_sizes). */
        if (param == CL_DEVICE_SUB_GROUP_SIZES_INTEL)
            return MUST_SUCCEED;
#endif
        return MUST_FAIL;
    default:
        (void)param;
        return MUST_FAIL;
    }
}

static sb_status status_for(fn_id fn, cl_int err)
{
    if (fn == FN_clGetDeviceInfo)
        return SB_OPENCL_ERROR;   /* "if the device cannot be queried" */
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE)
        return SB_OUT_OF_MEMORY;
    if (fn == FN_clBuildProgram)
        return SB_BUILD_ERROR;
    return SB_OPENCL_ERROR;
}

/* ------------------------------------------------------------------------
 * The fixture: POCL, its context and queue, the data
 * ---------------------------------------------------------------------- */

enum {
    N_DEVICE = 1000,   /* 16 work-groups of 64 elements: 3 launches */
    N_HOST   = 1000,   /* below host_max_n: read back, reduced on the host */
    RECORD_BYTES = 32,
    RECORD_OFFSET = 8,
    MANY = 25,         /* rows / segments of the batched scenarios */
    /* Rows 10 to a chunk of 2^18 elements (SCENARIO_BATCHED: three
     * chunks, see `roomy`), and segments' lengths. */
    ROW_N = 24000,
    MANY_N = MANY * ROW_N,
    /* The segments of SCENARIO_SEGMENT_RUNS: more than the 128 that one
     * mapped run holds at most (see segment_offsets()). */
    RUNS_SEGMENTS = 300,
    /* The answers of one scenario: up to ANSWERS results and statuses. */
    ANSWERS = RUNS_SEGMENTS,
    WANT_BYTES = ANSWERS * 8 + ANSWERS * sizeof(sb_status),
};

typedef struct {
    cl_device_id     device;
    cl_context       cl_ctx;
    cl_command_queue queue;
    cl_mem           x_f32, x_f64, x_i32, mask;
    float            f32[N_DEVICE];
    double           f64[N_DEVICE];
    int32_t          i32[N_DEVICE];
    unsigned char   *mask_host;
    cl_event         complete;   /* a user event, complete */
    double          *f64_many;   /* MANY_N, for the batched scenarios */
    unsigned char   *mask_many_host;
    cl_mem           x_many, mask_many;
} fixture;

static uint64_t seed;

static bool is_pocl(cl_platform_id p)
{
    char version[256] = "";
    clGetPlatformInfo(p, CL_PLATFORM_VERSION, sizeof version - 1, version,
                      NULL);
    return strstr(version, "PoCL") != NULL || strstr(version, "pocl") != NULL;
}

static cl_mem buffer_of(const fixture *f, size_t bytes, const void *data)
{
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(f->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                              bytes, (void *)data, &err);
    assert_non_null(b);
    return b;
}

static int setup(void **state)
{
    fixture *f = checked_malloc(sizeof *f);
    memset(f, 0, sizeof *f);
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS)
        np = 0;
    for (cl_uint i = 0; i < np && i < 16 && f->device == NULL; i++)
        if (is_pocl(platforms[i]) &&
            clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 1, &f->device,
                           NULL) != CL_SUCCESS)
            f->device = NULL;
    if (f->device == NULL) {
        fprintf(stderr, "no POCL device: this test needs POCL\n");
        free(f);
        return -1;                 /* POCL is always there: fail, not skip */
    }
    cl_int err = CL_SUCCESS;
    f->cl_ctx = clCreateContext(NULL, 1, &f->device, NULL, NULL, &err);
    assert_non_null(f->cl_ctx);
    f->queue = clCreateCommandQueue(f->cl_ctx, f->device, 0, &err);
    assert_non_null(f->queue);
    fill_data(FAMILY_HUGE_RANGE, SB_F32, 0, f->f32, N_DEVICE, mix_seed(seed, 1));
    fill_data(FAMILY_SPECIALS, SB_F64, 0, f->f64, N_DEVICE, mix_seed(seed, 2));
    fill_data(FAMILY_SUM_EDGE, SB_I32, SB_I64, f->i32, N_DEVICE,
              mix_seed(seed, 3));
    f->mask_host = make_mask(MASK_EMPTY_LEAVES, N_DEVICE, mix_seed(seed, 4));
    f->x_f32 = buffer_of(f, sizeof f->f32, f->f32);
    f->x_f64 = buffer_of(f, sizeof f->f64, f->f64);
    f->x_i32 = buffer_of(f, sizeof f->i32, f->i32);
    f->mask = buffer_of(f, N_DEVICE, f->mask_host);
    f->f64_many = checked_malloc(MANY_N * sizeof *f->f64_many);
    fill_data(FAMILY_SPECIALS, SB_F64, 0, f->f64_many, MANY_N,
              mix_seed(seed, 5));
    f->mask_many_host = make_mask(MASK_EMPTY_LEAVES, MANY_N, mix_seed(seed, 6));
    f->x_many = buffer_of(f, MANY_N * sizeof *f->f64_many, f->f64_many);
    f->mask_many = buffer_of(f, MANY_N, f->mask_many_host);
    f->complete = clCreateUserEvent(f->cl_ctx, &err);
    assert_non_null(f->complete);
    assert_int_equal(clSetUserEventStatus(f->complete, CL_COMPLETE),
                     CL_SUCCESS);
    install_wrappers();
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    remove_wrappers();
    clReleaseEvent(f->complete);
    clReleaseMemObject(f->x_f32);
    clReleaseMemObject(f->x_f64);
    clReleaseMemObject(f->x_i32);
    clReleaseMemObject(f->mask);
    clReleaseMemObject(f->x_many);
    clReleaseMemObject(f->mask_many);
    clReleaseCommandQueue(f->queue);
    clReleaseContext(f->cl_ctx);
    free(f->mask_host);
    free(f->f64_many);
    free(f->mask_many_host);
    free(f);
    return 0;
}

/* ------------------------------------------------------------------------
 * Scenarios
 * ---------------------------------------------------------------------- */

typedef enum {
    SCENARIO_DEVICE, SCENARIO_ENQUEUE, SCENARIO_HOST, SCENARIO_BATCHED,
    SCENARIO_SEGMENTS, SCENARIO_LAUNCHED, SCENARIO_BATCHED_ENQUEUE,
    SCENARIO_LONG_ROWS, SCENARIO_LONG_ROWS_ENQUEUE, SCENARIO_COLUMNS,
    SCENARIO_COLUMNS_KERNEL, SCENARIO_COLUMNS_KERNEL_ENQUEUE,
    SCENARIO_SEGMENTS_KERNEL, SCENARIO_SEGMENT_RUNS,
    SCENARIO_LAST = SCENARIO_SEGMENT_RUNS
} scenario;
enum { LAUNCHED_ROWS = 4, LAUNCHED_N = N_DEVICE / LAUNCHED_ROWS };

/* The batches of the batched scenarios: from x_f64 (`many` false) or
 * x_many, masked unless `unmasked`, n elements, element stride es, count
 * reductions, batch stride bs. Long rows are past the rows kernel's 2^18
 * elements (a launch chain each); masked columns are mapped and reduced
 * on the host, unmasked ones (an f64 min: 8 lanes, 3 blocks and one
 * partial) take the columns kernel. */
typedef struct {
    bool      many, unmasked;
    size_t    n;
    ptrdiff_t es;
    size_t    count;
    ptrdiff_t bs;
} batch_shape;

static batch_shape shape_of(scenario s)
{
    switch (s) {
    case SCENARIO_BATCHED:
        return (batch_shape){ true, false, ROW_N, 1, MANY, ROW_N };
    case SCENARIO_LONG_ROWS:
    case SCENARIO_LONG_ROWS_ENQUEUE:
        return (batch_shape){ true, false, MANY_N / 2, 1, 2, MANY_N / 2 };
    case SCENARIO_COLUMNS:
        return (batch_shape){ true, false, ROW_N, MANY, MANY, 1 };
    case SCENARIO_COLUMNS_KERNEL:
    case SCENARIO_COLUMNS_KERNEL_ENQUEUE:
        return (batch_shape){ true, true, ROW_N, MANY, MANY, 1 };
    default:
        return (batch_shape){ false, false, LAUNCHED_N, 1, LAUNCHED_ROWS,
                              LAUNCHED_N };
    }
}

static bool is_segments(scenario s)
{
    return s == SCENARIO_SEGMENTS || s == SCENARIO_SEGMENTS_KERNEL ||
           s == SCENARIO_SEGMENT_RUNS;
}

static bool is_batched(scenario s)
{
    return s == SCENARIO_BATCHED || s == SCENARIO_LAUNCHED ||
           s == SCENARIO_BATCHED_ENQUEUE ||
           (s >= SCENARIO_LONG_ROWS && !is_segments(s));
}

static bool is_batched_enqueue(scenario s)
{
    return s == SCENARIO_BATCHED_ENQUEUE || s == SCENARIO_LONG_ROWS_ENQUEUE
           || s == SCENARIO_COLUMNS_KERNEL_ENQUEUE;
}

static const char *const scenario_names[] = {
    "sb_reduce(SB_OPT_NO_HOST, 3 launches)",
    "sb_reduce_enqueue(wait list, done event)",
    "sb_reduce(host shortcut, read back)",
    "sb_reduce_batched(25 short rows, host_max_n 2^20: mapped, 3 chunks)",
    "sb_reduce_segments(short segments mapped, one run)",
    "sb_reduce_batched(SB_OPT_NO_HOST, 4 rows, the rows kernel)",
    "sb_reduce_batched_enqueue(SB_OPT_NO_HOST, 4 rows, the rows kernel)",
    "sb_reduce_batched(2 rows of 300000, a launch chain each, records read "
    "once)",
    "sb_reduce_batched_enqueue(2 rows of 300000, records copied once)",
    "sb_reduce_batched(25 masked columns of 24000, mapped, on the host)",
    "sb_reduce_batched(25 columns of 24000, the columns kernel)",
    "sb_reduce_batched_enqueue(25 columns of 24000, the columns kernel)",
    "sb_reduce_segments(SB_OPT_NO_HOST, 24 by the segments kernel, one "
    "launch chain)",
    "sb_reduce_segments(300 short segments mapped in two runs)",
};

/* The segments of SCENARIO_SEGMENTS: 12000 to 23999 elements (below
 * host_max_n), every fifth empty, about 4 * 10^5 in all (one mapped run,
 * POCL's maps being in place), within MANY_N. Those of
 * SCENARIO_SEGMENTS_KERNEL: up to 7999 elements (the segments kernel's,
 * with SB_OPT_NO_HOST), every fifth empty, and one of 20000 (past
 * SB_ROWS_ALWAYS_N: a launch chain). Those of
 * SCENARIO_SEGMENT_RUNS: RUNS_SEGMENTS of up to 2047 elements (below the
 * host_max_n of `small_host`, so a run holds 128 * 2048 = 2^18 elements
 * at most), every fifth empty, about 3.9 * 10^5 in all: two runs, so that
 * a failure can hit the second after the first's answers were computed.
 * @return the count of segments. */
static size_t segment_offsets(scenario s, uint64_t off[ANSWERS + 1])
{
    const size_t count = s == SCENARIO_SEGMENT_RUNS ? RUNS_SEGMENTS : MANY;
    off[0] = 0;
    for (size_t b = 0; b < count; b++)
        off[b + 1] = off[b] + (b % 5 == 3 ? 0
                               : s == SCENARIO_SEGMENTS
                               ? 12000 + (b * 7919) % 12000
                               : s == SCENARIO_SEGMENT_RUNS
                               ? 1200 + (b * 7919) % 848
                               : b == 7 ? 20000 : (b * 7919) % 8000);
    return count;
}

/* The narrow launch shape: 64 elements per work-group, node passes of 2
 * work-items x 2 nodes: 1000 elements take a leaves pass of 16 groups and
 * node passes of 4 and 1. */
static const sb_options narrow = {
    .flags = SB_OPT_NO_HOST, .work_group_size = 4, .leaves_per_item = 1,
    .tree_work_group_size = 2, .nodes_per_item = 2,
};

/* A host_max_n that takes the whole batch of SCENARIO_BATCHED (25 rows of
 * 24000) to the host: mapped in chunks of 10 rows (2^18 elements), three
 * of them, so that a failure can hit a later one after an earlier one's
 * answers were computed. */
static const sb_options roomy = { .host_max_n = 1 << 20 };

/* A host_max_n that makes runs of segments 2^18 elements long at most
 * (segment_run_elements(): 128 of it, at least 2^18). */
static const sb_options small_host = { .host_max_n = 2048 };

/* The host shortcut, the segments and the long rows and columns run with
 * the default options. */
static const sb_options *options_of(scenario s)
{
    if (s == SCENARIO_BATCHED)
        return &roomy;
    if (s == SCENARIO_SEGMENTS_KERNEL)
        return &narrow;
    if (s == SCENARIO_SEGMENT_RUNS)
        return &small_host;
    return s == SCENARIO_HOST || s == SCENARIO_SEGMENTS ||
           s >= SCENARIO_LONG_ROWS ? NULL : &narrow;
}

static sb_reduction reduction_of(scenario s)
{
    switch (s) {
    case SCENARIO_DEVICE:
        return (sb_reduction){ .op = SB_SUM, .input = SB_F32 };
    case SCENARIO_ENQUEUE:
        return (sb_reduction){ .op = SB_SUM, .input = SB_I32,
                               .accumulator = SB_I64 };
    default:
        return (sb_reduction){ .op = SB_MIN, .input = SB_F64 };
    }
}

static cl_mem x_of(const fixture *f, scenario s)
{
    return s == SCENARIO_DEVICE ? f->x_f32
         : s == SCENARIO_ENQUEUE ? f->x_i32 : f->x_f64;
}

static const void *host_x_of(const fixture *f, scenario s)
{
    return s == SCENARIO_DEVICE ? (const void *)f->f32
         : s == SCENARIO_ENQUEUE ? (const void *)f->i32 : (const void *)f->f64;
}

static void all_sentinel_or_fail(const unsigned char *p, size_t size,
                                 const char *what, unsigned long k)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != RESULT_SENTINEL)
            fail_msg("call %lu: %s was written (byte %zu = 0x%02x)", k, what,
                     i, p[i]);
}

/* The answers of scenario s by the host path, into want[WANT_BYTES]
 * (sentinels where nothing is written). */
static void want_of(const fixture *f, scenario s, unsigned char *want)
{
    const sb_reduction r = reduction_of(s);
    memset(want, RESULT_SENTINEL, WANT_BYTES);
    sb_status *statuses = (sb_status *)(void *)(want + ANSWERS * 8);
    sb_status st;
    if (is_batched(s)) {
        const batch_shape b = shape_of(s);
        st = sb_reduce_batched_host(r, b.many ? f->f64_many : f->f64,
                                    b.unmasked ? NULL
                                    : b.many ? f->mask_many_host
                                             : f->mask_host,
                                    b.n, b.es, b.count, b.bs, want, statuses);
    } else if (is_segments(s)) {
        uint64_t off[ANSWERS + 1];
        const size_t count = segment_offsets(s, off);
        assert_true(off[count] <= MANY_N);
        st = sb_reduce_segments_host(r, f->f64_many, f->mask_many_host, off,
                                     count, want, statuses);
    } else {
        st = sb_reduce_host(r, host_x_of(f, s), f->mask_host,
                            s == SCENARIO_HOST ? N_HOST : N_DEVICE, want);
    }
    assert_int_equal(st, SB_OK);
}

/* sb_reduce_batched() or sb_reduce_segments() of scenario s: as
 * reduce_once(), for MANY answers. */
static sb_status reduce_many(const fixture *f, scenario s, sb_context *ctx,
                             const unsigned char *want, unsigned long k)
{
    const sb_reduction r = reduction_of(s);
    unsigned char got[WANT_BYTES];
    memset(got, RESULT_SENTINEL, sizeof got);
    sb_status *statuses = (sb_status *)(void *)(got + ANSWERS * 8);
    sb_status st;
    if (is_batched(s)) {
        const batch_shape b = shape_of(s);
        st = sb_reduce_batched(ctx, NULL, r, b.many ? f->x_many : f->x_f64, 0,
                               b.unmasked ? NULL
                               : b.many ? f->mask_many : f->mask, 0, b.n,
                               b.es, b.count, b.bs, got, statuses);
    } else {
        uint64_t off[ANSWERS + 1];
        const size_t count = segment_offsets(s, off);
        cl_mem ob = buffer_of(f, sizeof off, off);
        st = sb_reduce_segments(ctx, NULL, r, f->x_many, 0, f->mask_many, 0,
                                ob, 0, count, got, statuses);
        clReleaseMemObject(ob);
    }
    run_deferred();
    if (st == SB_OK && memcmp(got, want, sizeof got) != 0)
        fail_msg("call %lu: %s: answers differ from the host's", k,
                 scenario_names[s]);
    if (st != SB_OK)
        all_sentinel_or_fail(got, sizeof got, "the answers", k);
    return st;
}

/* After an enqueue form returned st with *done (first set to sentinel):
 * on SB_OK wait for done and let it go; else done must be untouched. */
static void settle_done(sb_status st, cl_event done, cl_event sentinel,
                        unsigned long k)
{
    if (st == SB_OK) {
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        release_done(done);
    } else if (done != sentinel) {
        fail_msg("call %lu: status %s but *done was written", k,
                 status_name(st));
    }
}

/* sb_reduce_batched_enqueue() of scenario s into a buffer of sentinels,
 * after f->complete: on SB_OK every record equals the host's answer; on
 * an error the buffer is untouched (no row that was enqueued before the
 * failure wrote it) and *done was not written. */
static sb_status enqueue_many(const fixture *f, scenario s, sb_context *ctx,
                              const unsigned char *want, unsigned long k)
{
    const sb_reduction r = reduction_of(s);
    const batch_shape bs = shape_of(s);
    enum { BYTES = RECORD_OFFSET + MANY * 16 };
    unsigned char fill[BYTES];
    memset(fill, RESULT_SENTINEL, sizeof fill);
    cl_mem records = buffer_of(f, BYTES, fill);
    cl_event const sentinel = (cl_event)(uintptr_t)0x5b5b5b5b;
    cl_event done = sentinel;
    const sb_status st = sb_reduce_batched_enqueue(
            ctx, f->queue, r, bs.many ? f->x_many : f->x_f64, 0,
            bs.unmasked ? NULL : bs.many ? f->mask_many : f->mask, 0, bs.n,
            bs.es, bs.count, bs.bs,
            records, RECORD_OFFSET, 1, &f->complete, &done);
    run_deferred();
    settle_done(st, done, sentinel, k);
    /* clFinish: the rows enqueued before a failure run to their end
     * before the buffer is read (they must not write it). */
    assert_int_equal(clFinish(f->queue), CL_SUCCESS);
    unsigned char back[BYTES];
    assert_int_equal(clEnqueueReadBuffer(f->queue, records, CL_TRUE, 0, BYTES,
                                         back, 0, NULL, NULL), CL_SUCCESS);
    clReleaseMemObject(records);
    if (st != SB_OK) {
        all_sentinel_or_fail(back, sizeof back, "the records buffer", k);
        return st;
    }
    all_sentinel_or_fail(back, RECORD_OFFSET, "the bytes before the records",
                         k);
    const sb_status *statuses = (const sb_status *)(const void *)(want + ANSWERS * 8);
    const size_t rs = sb_result_size(r);
    all_sentinel_or_fail(back + RECORD_OFFSET + bs.count * 16,
                         (MANY - bs.count) * 16, "the bytes after the records",
                         k);
    for (size_t b = 0; b < bs.count; b++) {
        const unsigned char *rec = back + RECORD_OFFSET + b * 16;
        /* Bytes the kernels never write keep what the caller had there:
         * the call's records start as a copy of the caller's. */
        all_sentinel_or_fail(rec + 12, 4, "a record's reserved bytes", k);
        if (rs < 8)
            all_sentinel_or_fail(rec + rs, 8 - rs, "bytes after a value", k);
        int32_t status;
        memcpy(&status, rec + 8, sizeof status);
        if (status != (int32_t)statuses[b] ||
            (status == SB_OK && memcmp(rec, want + b * rs, rs) != 0))
            fail_msg("call %lu: record %zu (status %s) differs from the "
                     "host's", k, b, status_name((sb_status)status));
    }
    return st;
}

/* One reduction of scenario `s` on ctx. @return its status; on SB_OK the
 * result equals `want` (checked here); on an error the outputs are
 * untouched (checked here). */
static sb_status reduce_once(const fixture *f, scenario s, sb_context *ctx,
                             const unsigned char *want, unsigned long k)
{
    const sb_reduction r = reduction_of(s);
    if (is_batched_enqueue(s))
        return enqueue_many(f, s, ctx, want, k);
    if (is_batched(s) || is_segments(s))
        return reduce_many(f, s, ctx, want, k);
    unsigned char got[RESULT_BUFFER];
    memset(got, RESULT_SENTINEL, sizeof got);
    if (s != SCENARIO_ENQUEUE) {
        const sb_status st = sb_reduce(ctx,
                                       s == SCENARIO_DEVICE ? f->queue : NULL,
                                       r, x_of(f, s), 0, f->mask, 0,
                                       s == SCENARIO_DEVICE ? N_DEVICE : N_HOST,
                                       got);
        run_deferred();
        if (st == SB_OK && !bits_equal(got, want, RESULT_BUFFER)) {
            fprintf(stderr, "call %lu: got ", k);
            print_result(stderr, r, got);
            fprintf(stderr, ", want ");
            print_result(stderr, r, want);
            fputc('\n', stderr);
            fail_msg("call %lu: wrong bits", k);
        }
        if (st != SB_OK)
            all_sentinel_or_fail(got, sizeof got, "the result", k);
        return st;
    }
    unsigned char fill[RECORD_BYTES];
    memset(fill, RESULT_SENTINEL, sizeof fill);
    cl_mem record = buffer_of(f, RECORD_BYTES, fill);
    cl_event const sentinel = (cl_event)(uintptr_t)0x5b5b5b5b;
    cl_event done = sentinel;
    const sb_status st = sb_reduce_enqueue(ctx, f->queue, r, x_of(f, s), 0,
                                           f->mask, 0, N_DEVICE, record,
                                           RECORD_OFFSET, 1, &f->complete,
                                           &done);
    run_deferred();
    settle_done(st, done, sentinel, k);
    unsigned char back[RECORD_BYTES];
    assert_int_equal(clEnqueueReadBuffer(f->queue, record, CL_TRUE, 0,
                                         RECORD_BYTES, back, 0, NULL, NULL),
                     CL_SUCCESS);
    clReleaseMemObject(record);
    if (st != SB_OK) {
        all_sentinel_or_fail(back, sizeof back, "the record buffer", k);
        return st;
    }
    int32_t status;
    memcpy(&status, back + RECORD_OFFSET + 8, sizeof status);
    memcpy(got, back + RECORD_OFFSET, sb_result_size(r));
    if (status != SB_OK || !bits_equal(got, want, RESULT_BUFFER))
        fail_msg("call %lu: record status %s or its bits differ from the "
                 "host", k, status_name((sb_status)status));
    return st;
}

/* Per kind of call: how often it was made to fail, and how it ended. */
typedef struct {
    unsigned long failed[FN_COUNT], reported[FN_COUNT], survived[FN_COUNT];
} sweep_stats;

/* One run of scenario s with the k-th call failing (0: none): create,
 * reduce, on failure reduce again with the same context, release. Checks
 * everything policy() promises. @return the calls the run made. */
static unsigned long one_run(const fixture *f, scenario s, unsigned long k,
                             cl_int forced, const unsigned char *want,
                             sweep_stats *stats, unsigned long *create_calls,
                             unsigned long *reduce_calls)
{
    ledger_reset();
    arm(k, forced, 0);
    sb_context *const sentinel = (sb_context *)(uintptr_t)0x5b5b5b5b;
    sb_context *ctx = sentinel;
    const sb_status cs = sb_context_create(f->cl_ctx, f->device,
                                           options_of(s), &ctx);
    run_deferred();
    if (create_calls != NULL)
        *create_calls = inj.calls;
    if (inj.fired) {
        /* The failure hit creation. */
        const fn_id fn = inj.fired_fn;
        stats->failed[fn]++;
        if (policy(fn, inj.fired_param) == MUST_FAIL) {
            if (cs != status_for(fn, inj.fired_error))
                fail_msg("call %lu (%s failing with %d) in "
                         "sb_context_create: status %s, want %s", k,
                         fn_names[fn], inj.fired_error, status_name(cs),
                         status_name(status_for(fn, inj.fired_error)));
            if (ctx != sentinel)
                fail_msg("call %lu: sb_context_create failed but wrote *out",
                         k);
            stats->reported[fn]++;
            disarm();
            ledger_check(k);
            return inj.calls;
        }
        stats->survived[fn]++;
    }
    if (cs != SB_OK)
        fail_msg("call %lu: sb_context_create: %s", k, status_name(cs));

    const unsigned long before = inj.calls;
    const bool fired_before = inj.fired;
    const sb_status rs = reduce_once(f, s, ctx, want, k);
    if (reduce_calls != NULL)
        *reduce_calls = inj.calls - before;
    if (inj.fired && !fired_before) {
        const fn_id fn = inj.fired_fn;
        const cl_int err = inj.fired_error;
        stats->failed[fn]++;
        disarm();
        if (policy(fn, inj.fired_param) == MUST_SUCCEED) {
            if (rs != SB_OK)
                fail_msg("call %lu (%s failing with %d): status %s, want "
                         "SB_OK", k, fn_names[fn], err, status_name(rs));
            stats->survived[fn]++;
        } else {
            const sb_status want_status = status_for(fn, err);
            if (rs != want_status)
                fail_msg("call %lu (%s failing with %d): status %s, want %s",
                         k, fn_names[fn], err, status_name(rs),
                         status_name(want_status));
            if (sb_context_last_cl_error(ctx) != err)
                fail_msg("call %lu (%s failing with %d): last CL error %d",
                         k, fn_names[fn], err, sb_context_last_cl_error(ctx));
            const char *log = sb_context_build_log(ctx);
            assert_non_null(log);
            if (rs == SB_BUILD_ERROR)
                (void)strlen(log);   /* a valid string, maybe empty */
            stats->reported[fn]++;
            /* The same context, injection off: the right bits. */
            const sb_status again = reduce_once(f, s, ctx, want, k);
            if (again != SB_OK)
                fail_msg("call %lu (%s failing with %d): the context does "
                         "not recover: %s", k, fn_names[fn], err,
                         status_name(again));
        }
    } else if (rs != SB_OK) {
        fail_msg("call %lu: no failure injected, but status %s", k,
                 status_name(rs));
    }
    const bool fired_before_release = inj.fired;
    sb_context_release(ctx);
    run_deferred();
    if (inj.fired && !fired_before_release) {
        /* A release failed: nothing to report, nothing to leak. */
        stats->failed[inj.fired_fn]++;
        if (policy(inj.fired_fn, inj.fired_param) != MUST_SUCCEED)
            fail_msg("call %lu: %s in sb_context_release", k,
                     fn_names[inj.fired_fn]);
        stats->survived[inj.fired_fn]++;
    }
    disarm();
    ledger_check(k);
    return inj.calls;
}

/* The calls of a run that a run whose programs are already built does not
 * make: they build a program and release it. */
static bool builds_or_frees_a_program(fn_id fn)
{
    return fn == FN_clCreateProgramWithSource || fn == FN_clBuildProgram
        || fn == FN_clReleaseProgram;
}

/* The errors each call is made to fail with in turn: the call's typical
 * one (0), then CL_OUT_OF_HOST_MEMORY. */
static const cl_int sweep_errors[] = { 0, CL_OUT_OF_HOST_MEMORY };

/* How many of the first `total` calls of `trace` are of kind fn. */
static unsigned long calls_of(const fn_id *trace, unsigned long total,
                              fn_id fn)
{
    unsigned long n = 0;
    for (unsigned long k = 0; k < total && k < MAX_CALLS; k++)
        n += trace[k] == fn;
    return n;
}

/* Fails every call of a run in turn, with each of sweep_errors: the k-th
 * call of the run must be trace[k - 1]. The k with skip_after < k <
 * skip_before are left out (skip_before <= skip_after + 1: none).
 * @return the runs made. */
static unsigned long fail_each_call(const fixture *f, scenario s,
                                    const unsigned char *want,
                                    const fn_id *trace, unsigned long total,
                                    unsigned long skip_after,
                                    unsigned long skip_before,
                                    sweep_stats *stats)
{
    unsigned long runs = 0;
    for (size_t e = 0; e < COUNT(sweep_errors); e++)
        for (unsigned long k = 1; k <= total; k++) {
            if (k > skip_after && k < skip_before)
                continue;
            one_run(f, s, k, sweep_errors[e], want, stats, NULL, NULL);
            runs++;
            if (!inj.fired || inj.fired_fn != trace[k - 1])
                fail_msg("call %lu: expected %s to fail, %s", k,
                         fn_names[trace[k - 1]],
                         inj.fired ? fn_names[inj.fired_fn] : "none did");
        }
    return runs;
}

/* Counts the calls of scenario s, then makes each fail in turn.
 *
 * A run builds its programs from source, and POCL preprocesses the source
 * for every build, cache or not: 30 ms a build, which made this test's 1500
 * runs take a minute (four under ASan: 2-vCPU Zen 5 VM). So the calls after
 * the builds fail in warm runs: a holder, another context on the same
 * cl_context, keeps the scenario's programs in the library's registry
 * (src/device_programs.c), and every run takes them from there. A warm run
 * makes the calls of a cold one but those that build or release a
 * program, in the same order (checked). The calls a warm run cannot stand
 * for fail in cold runs: everything up to the last clBuildProgram (a
 * failure there leaves the program to build when the context recovers),
 * and from the first clReleaseProgram on (the release of a program no
 * other context holds). */
static void sweep(const fixture *f, scenario s)
{
    unsigned char want[WANT_BYTES];
    want_of(f, s, want);

    /* Count, and keep the sequence: each k below must hit the same call. */
    sweep_stats stats;
    memset(&stats, 0, sizeof stats);
    unsigned long create_calls = 0, reduce_calls = 0;
    inj.tracing = true;
    const unsigned long total = one_run(f, s, 0, 0, want, &stats,
                                        &create_calls, &reduce_calls);
    inj.tracing = false;
    assert_true(total > 0 && total <= MAX_CALLS);
    fn_id trace[MAX_CALLS];
    memcpy(trace, inj.trace, sizeof trace[0] * total);
    printf("%s: %lu OpenCL calls (create %lu, reduce %lu, release %lu)\n",
           scenario_names[s], total, create_calls, reduce_calls,
           total - create_calls - reduce_calls);
    print_trace(total);
    if (s == SCENARIO_SEGMENT_RUNS || s == SCENARIO_SEGMENTS) {
        /* Runs (maps that may copy): two, each mapping the elements and
         * the mask, the offsets read back. One run (maps in place): the
         * offsets, the elements and the mask mapped. */
        assert_int_equal(calls_of(trace, total, FN_clEnqueueMapBuffer),
                         s == SCENARIO_SEGMENT_RUNS ? 4 : 3);
    }
    const unsigned long builds = calls_of(trace, total, FN_clBuildProgram);
    if (builds == 0) {
        fail_each_call(f, s, want, trace, total, 0, 0, &stats);
    } else {
        unsigned long last_build = 0, first_release = total + 1;
        for (unsigned long k = 1; k <= total; k++) {
            if (trace[k - 1] == FN_clBuildProgram)
                last_build = k;
            if (trace[k - 1] == FN_clReleaseProgram && first_release > total)
                first_release = k;
        }
        const unsigned long cold = fail_each_call(f, s, want, trace, total,
                                                  last_build, first_release,
                                                  &stats);
        /* The holder: its calls are no run's (inj.unwatched). */
        inj.unwatched = true;
        disarm();
        sb_context *holder = NULL;
        assert_int_equal(sb_context_create(f->cl_ctx, f->device,
                                           options_of(s), &holder), SB_OK);
        assert_int_equal(reduce_once(f, s, holder, want, 0), SB_OK);
        inj.unwatched = false;

        inj.tracing = true;
        const unsigned long warm_total = one_run(f, s, 0, 0, want, &stats,
                                                 NULL, NULL);
        inj.tracing = false;
        fn_id warm[MAX_CALLS];
        memcpy(warm, inj.trace, sizeof warm[0] * warm_total);
        unsigned long j = 0;
        for (unsigned long k = 0; k < total; k++) {
            if (builds_or_frees_a_program(trace[k]))
                continue;
            if (j >= warm_total || warm[j] != trace[k])
                fail_msg("warm run, call %lu: %s, where the cold run "
                         "made %s", j + 1,
                         j < warm_total ? fn_names[warm[j]] : "none",
                         fn_names[trace[k]]);
            j++;
        }
        assert_int_equal(j, warm_total);
        const unsigned long warm_runs = fail_each_call(f, s, want, warm,
                                                       warm_total, 0, 0,
                                                       &stats);
        printf("  runs: %lu cold (they build), %lu warm (%lu calls each: "
               "the programs held by another context)\n", cold, warm_runs,
               warm_total);

        inj.unwatched = true;
        sb_context_release(holder);
        inj.unwatched = false;

        /* The holder gone, the registry holds nothing: a run builds its
         * programs again. (A warm run cannot see a program reference the
         * library loses, since it takes the program without an OpenCL
         * call; the holder's release then leaves it in the registry, and
         * here it would be found instead of built.) */
        inj.tracing = true;
        const unsigned long again = one_run(f, s, 0, 0, want, &stats, NULL,
                                            NULL);
        inj.tracing = false;
        const unsigned long rebuilt = calls_of(inj.trace, again,
                                               FN_clBuildProgram);
        if (rebuilt != builds)
            fail_msg("after the holder's release a run built %lu "
                     "program(s), not %lu: the registry kept some",
                     rebuilt, builds);
    }
    printf("  %-26s %8s %9s %9s\n", "injected into", "failed", "reported",
           "survived");
    for (int fn = 0; fn < FN_COUNT; fn++)
        if (stats.failed[fn] > 0)
            printf("  %-26s %8lu %9lu %9lu\n", fn_names[fn], stats.failed[fn],
                   stats.reported[fn], stats.survived[fn]);
    fflush(stdout);
}

/* ------------------------------------------------------------------------
 * Tests
 * ---------------------------------------------------------------------- */

static void every_call_of_a_blocking_device_reduction_can_fail(void **state)
{
    sweep(*state, SCENARIO_DEVICE);
}

static void every_call_of_an_enqueued_reduction_can_fail(void **state)
{
    sweep(*state, SCENARIO_ENQUEUE);
}

static void every_call_of_the_host_shortcut_can_fail(void **state)
{
    sweep(*state, SCENARIO_HOST);
}

static void every_call_of_a_batch_of_short_rows_can_fail(void **state)
{
    sweep(*state, SCENARIO_BATCHED);
}

/* POCL's memory is the host's, so its maps are the buffer itself and a
 * call's short segments make one run; for SCENARIO_SEGMENT_RUNS the
 * device says otherwise (CL_DEVICE_HOST_UNIFIED_MEMORY answered
 * CL_FALSE), as a device whose maps may copy, so that its segments are
 * mapped in runs of 2^18 elements and their offsets read back. This
 * wraps the harness's wrapper: the calls still count. */
static __typeof__(sb__cl.clGetDeviceInfo) counted_device_info;

static cl_int CL_API_CALL copying_device_info(cl_device_id d,
                                              cl_device_info what,
                                              size_t size, void *v,
                                              size_t *ret)
{
    const cl_int e = counted_device_info(d, what, size, v, ret);
    if (e == CL_SUCCESS && what == CL_DEVICE_HOST_UNIFIED_MEMORY
        && v != NULL)
        *(cl_bool *)v = CL_FALSE;
    return e;
}

static void every_call_of_short_segments_can_fail(void **state)
{
    sweep(*state, SCENARIO_SEGMENTS);
    sweep(*state, SCENARIO_SEGMENTS_KERNEL);
    counted_device_info = sb__cl.clGetDeviceInfo;
    sb__cl.clGetDeviceInfo = copying_device_info;
    sweep(*state, SCENARIO_SEGMENT_RUNS);
    sb__cl.clGetDeviceInfo = counted_device_info;
}

static void every_call_of_a_batch_of_launched_rows_can_fail(void **state)
{
    sweep(*state, SCENARIO_LAUNCHED);
}

static void every_call_of_an_enqueued_batch_can_fail(void **state)
{
    sweep(*state, SCENARIO_BATCHED_ENQUEUE);
}

static void every_call_of_a_batch_of_long_rows_can_fail(void **state)
{
    sweep(*state, SCENARIO_LONG_ROWS);
}

static void every_call_of_an_enqueued_batch_of_long_rows_can_fail(void **state)
{
    sweep(*state, SCENARIO_LONG_ROWS_ENQUEUE);
}

static void every_call_of_a_batch_of_columns_can_fail(void **state)
{
    sweep(*state, SCENARIO_COLUMNS);
    sweep(*state, SCENARIO_COLUMNS_KERNEL);
    sweep(*state, SCENARIO_COLUMNS_KERNEL_ENQUEUE);
}

/* A kernel whose own work-group limit (CL_KERNEL_WORK_GROUP_SIZE, which a
 * GPU lowers for a program that needs many registers) is below the
 * options' work-groups: the launches shrink to it, an emulated sub-group
 * with them, and no bit changes. POCL reports its device limit, so the
 * test lowers the answer to 8 and watches every launch's local size. */
static __typeof__(sb__cl.clGetKernelWorkGroupInfo) real_kernel_limit;
static __typeof__(sb__cl.clEnqueueNDRangeKernel) real_launch;
static unsigned long limit_queries;
static size_t largest_local;

static cl_int CL_API_CALL lowered_kernel_limit(cl_kernel k, cl_device_id d,
                                               cl_kernel_work_group_info w,
                                               size_t size, void *v,
                                               size_t *ret)
{
    const cl_int e = real_kernel_limit(k, d, w, size, v, ret);
    if (e == CL_SUCCESS && w == CL_KERNEL_WORK_GROUP_SIZE && v != NULL) {
        limit_queries++;
        if (*(size_t *)v > 8)
            *(size_t *)v = 8;
    }
    return e;
}

static unsigned long columns_launches, segments_launches;

static cl_int CL_API_CALL watched_launch(cl_command_queue q, cl_kernel k,
                                         cl_uint dim, const size_t *off,
                                         const size_t *global,
                                         const size_t *local, cl_uint nw,
                                         const cl_event *wait, cl_event *ev)
{
    if (local != NULL && local[0] > largest_local)
        largest_local = local[0];
    char name[64] = "";
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
    columns_launches += strcmp(name, "sb_columns") == 0;
    segments_launches += strcmp(name, "sb_segments") == 0;
    return real_launch(q, k, dim, off, global, local, nw, wait, ev);
}

static void a_kernel_limit_below_the_options_changes_no_bit(void **state)
{
    const fixture *f = *state;
    real_kernel_limit = sb__cl.clGetKernelWorkGroupInfo;
    real_launch = sb__cl.clEnqueueNDRangeKernel;
    sb__cl.clGetKernelWorkGroupInfo = lowered_kernel_limit;
    sb__cl.clEnqueueNDRangeKernel = watched_launch;
    limit_queries = 0;
    largest_local = 0;
    columns_launches = 0;
    segments_launches = 0;
    ledger_reset();
    arm(0, 0, 0);
    const sb_options wide = { .flags = SB_OPT_NO_HOST, .work_group_size = 64,
                              .tree_work_group_size = 32,
                              .leaves_per_item = 1, .nodes_per_item = 1,
                              .subgroups = SB_SUBGROUPS_EMULATE,
                              .emulated_subgroup_size = 32 };
    sb_context *ctx = NULL;
    const sb_status created = sb_context_create(f->cl_ctx, f->device, &wide,
                                                &ctx);
    unsigned long wrong = 0;
    /* One reduction of N_DEVICE f32 (63 leaves: groups of 8, 2 passes) and
     * one f64 argmin. */
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction argmin = { .op = SB_ARGMIN, .input = SB_F64 };
    unsigned char got[RESULT_BUFFER], want[RESULT_BUFFER];
    for (int j = 0; j < 2 && created == SB_OK; j++) {
        const sb_reduction r = j == 0 ? sum : argmin;
        memset(got, RESULT_SENTINEL, sizeof got);
        memset(want, RESULT_SENTINEL, sizeof want);
        const sb_status st = sb_reduce(ctx, f->queue, r,
                                       j == 0 ? f->x_f32 : f->x_f64, 0, NULL,
                                       0, N_DEVICE, got);
        const void *data = j == 0 ? (const void *)f->f32
                                  : (const void *)f->f64;
        const sb_status ws = sb_reduce_host(r, data, NULL, N_DEVICE, want);
        unsigned char oracle[RESULT_BUFFER];
        memset(oracle, RESULT_SENTINEL, sizeof oracle);
        const sb_status os = oracle_reduce(r, data, NULL, N_DEVICE, oracle);
        wrong += st != ws || os != ws || memcmp(got, want, sizeof got) != 0
                 || memcmp(oracle, want, sizeof oracle) != 0;
    }
    /* Rows (the rows kernel) and columns (the columns kernel) of f64 min. */
    const sb_reduction min = { .op = SB_MIN, .input = SB_F64 };
    enum { ROWS = 40, RN = 300 };
    double rows_got[ROWS], rows_want[ROWS];
    sb_status rs_got[ROWS], rs_want[ROWS];
    for (int shape = 0; shape < 2 && created == SB_OK; shape++) {
        const ptrdiff_t es = shape == 0 ? 1 : ROWS;
        const ptrdiff_t bs = shape == 0 ? RN : 1;
        memset(rows_got, 0, sizeof rows_got);
        memset(rows_want, 0, sizeof rows_want);
        /* Counted, not asserted, until the table is put back. */
        wrong += sb_reduce_batched(ctx, f->queue, min, f->x_many, 0, NULL, 0,
                                   RN, es, ROWS, bs, rows_got, rs_got)
                 != SB_OK;
        wrong += sb_reduce_batched_host(min, f->f64_many, NULL, RN, es, ROWS,
                                        bs, rows_want, rs_want) != SB_OK;
        wrong += memcmp(rows_got, rows_want, sizeof rows_got) != 0
                 || memcmp(rs_got, rs_want, sizeof rs_got) != 0;
        for (size_t b = 0; b < ROWS; b++) {       /* and the oracle's */
            double g[RN], o = 0;
            for (size_t i = 0; i < RN; i++)
                g[i] = f->f64_many[b * (size_t)bs + i * (size_t)es];
            wrong += oracle_reduce(min, g, NULL, RN, &o) != rs_want[b]
                     || memcmp(&o, &rows_want[b], sizeof o) != 0;
        }
    }
    /* Segments (the segments kernel, and a launch chain for the long one)
     * of f64 min, masked. */
    if (created == SB_OK) {
        const scenario s = SCENARIO_SEGMENTS_KERNEL;
        unsigned char seg_want[WANT_BYTES];
        want_of(f, s, seg_want);
        wrong += reduce_many(f, s, ctx, seg_want, 0) != SB_OK;
    }
    sb_context_release(ctx);
    sb__cl.clGetKernelWorkGroupInfo = real_kernel_limit;
    sb__cl.clEnqueueNDRangeKernel = real_launch;
    disarm();
    ledger_check(0);
    printf("  kernel limit queries %lu, largest launch %zu items, %lu "
           "launches of sb_columns, %lu of sb_segments\n", limit_queries,
           largest_local, columns_launches, segments_launches);
    assert_int_equal(created, SB_OK);
    assert_int_equal(wrong, 0);
    assert_true(columns_launches == 1);
    assert_true(segments_launches == 1);
    assert_true(limit_queries >= 4);
    assert_true(largest_local > 0 && largest_local <= 8);
}

/* A GPU's plan for segments, on POCL: the device says it is a GPU
 * (CL_DEVICE_TYPE answered CL_DEVICE_TYPE_GPU), so that a call of more
 * than host_max_n elements in all gives the segments kernel every
 * segment of up to 2048 elements (a GPU's work-item limit), maps the
 * others up to host_max_n to the host, and launches a chain for each
 * longer one; a call of at most host_max_n elements in all stays on the
 * host (no launch of sb_segments). The answers: the host path's. */
static __typeof__(sb__cl.clGetDeviceInfo) real_device_info;

static cl_int CL_API_CALL gpu_device_info(cl_device_id d,
                                          cl_device_info what, size_t size,
                                          void *v, size_t *ret)
{
    const cl_int e = real_device_info(d, what, size, v, ret);
    if (e == CL_SUCCESS && what == CL_DEVICE_TYPE && v != NULL)
        *(cl_device_type *)v = CL_DEVICE_TYPE_GPU;
    return e;
}

static void a_gpu_plan_gives_short_segments_to_the_kernel(void **state)
{
    const fixture *f = *state;
    real_device_info = sb__cl.clGetDeviceInfo;
    real_launch = sb__cl.clEnqueueNDRangeKernel;
    sb__cl.clGetDeviceInfo = gpu_device_info;
    sb__cl.clEnqueueNDRangeKernel = watched_launch;
    ledger_reset();
    arm(0, 0, 0);
    sb_context *ctx = NULL;
    const sb_status created = sb_context_create(f->cl_ctx, f->device, NULL,
                                                &ctx);
    sb_device_caps caps;
    memset(&caps, 0, sizeof caps);
    if (created == SB_OK)
        assert_int_equal(sb_context_report(ctx, &caps), SB_OK);
    /* 40 segments: lengths 0, 1, 17, 2048 (the kernel), 2049, 5000 (the
     * host), 40000 (a chain), 700 (the kernel), repeated; then the first
     * four alone (2066 elements, within host_max_n: the host). */
    static const uint64_t lengths[] = { 0, 1, 17, 2048, 2049, 5000, 40000,
                                        700 };
    enum { SEGMENTS = 40 };
    uint64_t off[SEGMENTS + 1];
    off[0] = 0;
    for (size_t b = 0; b < SEGMENTS; b++)
        off[b + 1] = off[b] + lengths[b % COUNT(lengths)];
    assert_true(off[SEGMENTS] <= MANY_N);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    unsigned long launches[2] = { 0, 0 }, wrong = 0;
    for (int small = 0; small < 2 && created == SB_OK; small++) {
        const size_t count = small ? 4 : SEGMENTS;
        double got[SEGMENTS], want[SEGMENTS];
        sb_status gs[SEGMENTS], ws[SEGMENTS];
        memset(got, 0, sizeof got);
        memset(want, 0, sizeof want);
        cl_mem ob = buffer_of(f, sizeof off, off);
        segments_launches = 0;
        wrong += sb_reduce_segments(ctx, NULL, r, f->x_many, 0, f->mask_many,
                                    0, ob, 0, count, got, gs) != SB_OK;
        launches[small] = segments_launches;
        clReleaseMemObject(ob);
        wrong += sb_reduce_segments_host(r, f->f64_many, f->mask_many_host,
                                         off, count, want, ws) != SB_OK;
        wrong += memcmp(got, want, count * sizeof *got) != 0
                 || memcmp(gs, ws, count * sizeof *gs) != 0;
    }
    sb_context_release(ctx);
    sb__cl.clGetDeviceInfo = real_device_info;
    sb__cl.clEnqueueNDRangeKernel = real_launch;
    disarm();
    ledger_check(0);
    printf("  as a GPU: %lu launch(es) of sb_segments past host_max_n, %lu "
           "within it\n", launches[0], launches[1]);
    assert_int_equal(created, SB_OK);
    assert_true(caps.is_gpu);
    assert_int_equal(wrong, 0);
    assert_true(launches[0] == 1);
    assert_true(launches[1] == 0);
}

/* sb_context_create_default() picks a device by asking every platform: a
 * failed query there may only change which device it finds. So any failure
 * gives SB_OK (another device, or the same one), SB_UNSUPPORTED (no device
 * found), SB_OPENCL_ERROR or SB_OUT_OF_MEMORY, *out written only on SB_OK,
 * and nothing leaks. */
static void every_call_of_sb_context_create_default_can_fail(void **state)
{
    (void)state;
    ledger_reset();
    arm(0, 0, 0);
    inj.tracing = true;
    sb_context *ctx = NULL;
    assert_int_equal(sb_context_create_default(NULL, &ctx), SB_OK);
    sb_context_release(ctx);
    inj.tracing = false;
    ledger_check(0);
    const unsigned long total = inj.calls;
    printf("sb_context_create_default + release: %lu OpenCL calls\n", total);
    print_trace(total);
    unsigned long outcome[SB_BUILD_ERROR + 1] = { 0 };
    const cl_int forced[] = { 0, CL_OUT_OF_HOST_MEMORY };
    for (size_t e = 0; e < COUNT(forced); e++)
        for (unsigned long k = 1; k <= total; k++) {
            ledger_reset();
            arm(k, forced[e], 0);
            sb_context *const sentinel = (sb_context *)(uintptr_t)0x5b5b5b5b;
            ctx = sentinel;
            const sb_status s = sb_context_create_default(NULL, &ctx);
            run_deferred();
            if (s != SB_OK && s != SB_UNSUPPORTED && s != SB_OPENCL_ERROR &&
                s != SB_OUT_OF_MEMORY)
                fail_msg("call %lu: status %s", k, status_name(s));
            if (s != SB_OK && ctx != sentinel)
                fail_msg("call %lu: status %s but *out was written", k,
                         status_name(s));
            if (s == SB_OK)
                sb_context_release(ctx);
            run_deferred();
            disarm();
            ledger_check(k);
            outcome[s]++;
        }
    printf("  outcomes:");
    for (int s = 0; s <= SB_BUILD_ERROR; s++)
        if (outcome[s])
            printf(" %s %lu", status_name((sb_status)s), outcome[s]);
    printf("\n");
}

/* Every allocation of every scenario: SB_OUT_OF_MEMORY, nothing written,
 * and (for a context that exists) the same context recovers. */
static void every_allocation_can_fail(void **state)
{
    const fixture *f = *state;
    for (scenario s = SCENARIO_DEVICE; s <= SCENARIO_LAST; s++) {
        unsigned char want[WANT_BYTES];
        want_of(f, s, want);
        /* Count. */
        ledger_reset();
        arm(0, 0, 0);
        sb_context *ctx = NULL;
        assert_int_equal(sb_context_create(f->cl_ctx, f->device,
                                           options_of(s), &ctx), SB_OK);
        const unsigned long at_create = inj.mem_calls;
        assert_int_equal(reduce_once(f, s, ctx, want, 0), SB_OK);
        sb_context_release(ctx);
        ledger_check(0);
        const unsigned long total = inj.mem_calls;
        printf("%s: %lu allocations (%lu in sb_context_create)\n",
               scenario_names[s], total, at_create);
        assert_true(total >= 1);
        for (unsigned long m = 1; m <= total; m++) {
            ledger_reset();
            arm(0, 0, m);
            sb_context *const sentinel = (sb_context *)(uintptr_t)0x5b5b5b5b;
            ctx = sentinel;
            sb_status st = sb_context_create(f->cl_ctx, f->device,
                    options_of(s), &ctx);
            if (inj.mem_fired) {
                assert_int_equal(st, SB_OUT_OF_MEMORY);
                assert_ptr_equal(ctx, sentinel);
                disarm();
                ledger_check(m);
                continue;
            }
            assert_int_equal(st, SB_OK);
            st = reduce_once(f, s, ctx, want, m);
            assert_true(inj.mem_fired);
            assert_int_equal(st, SB_OUT_OF_MEMORY);
            disarm();
            assert_int_equal(reduce_once(f, s, ctx, want, m), SB_OK);
            sb_context_release(ctx);
            ledger_check(m);
        }
    }
    disarm();
}

/* A failed build: SB_BUILD_ERROR, the build's cl_int, and a build log
 * that is a valid string, also when the log cannot be had. Variant 0: the
 * program was never built (the injected failure): POCL has no log for it.
 * Variants 1-4 let the real build run before clBuildProgram reports the
 * failure, so a log exists: 1 reads it; 2 fails the query of its size,
 * 3 the query of its text, 4 its allocation (then the log is ""). After
 * each, the same context builds and reduces. */
static void a_failed_build_has_a_valid_log_even_when_it_cannot_be_read(
        void **state)
{
    const fixture *f = *state;
    const scenario s = SCENARIO_DEVICE;
    const sb_reduction r = reduction_of(s);
    unsigned char want[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    assert_int_equal(sb_reduce_host(r, f->f32, f->mask_host, N_DEVICE, want),
                     SB_OK);
    for (int variant = 0; variant <= 4; variant++) {
        disarm();
        ledger_reset();
        sb_context *ctx = NULL;
        assert_int_equal(sb_context_create(f->cl_ctx, f->device, &narrow,
                                           &ctx), SB_OK);
        /* Find the calls of the log's size and text queries, in the
         * second failed reduction (the first one also made the scratch
         * buffer that the later ones reuse). */
        unsigned char got[RESULT_BUFFER];
        for (int pass = 0; pass < 2; pass++) {
            arm(0, 0, 0);
            inj.fail_every[FN_clBuildProgram] = true;
            inj.build_anyway = variant > 0;
            inj.tracing = true;
            memset(got, RESULT_SENTINEL, sizeof got);
            assert_int_equal(sb_reduce(ctx, f->queue, r, f->x_f32, 0, f->mask,
                                       0, N_DEVICE, got), SB_BUILD_ERROR);
            inj.tracing = false;
            run_deferred();
        }
        unsigned long info_call[2] = { 0, 0 }, seen = 0;
        for (unsigned long i = 0; i < inj.calls && i < MAX_CALLS; i++)
            if (inj.trace[i] == FN_clGetProgramBuildInfo && seen < 2)
                info_call[seen++] = i + 1;
        const unsigned long allocations = inj.mem_calls;
        if (variant > 0) {
            assert_int_equal(seen, 2);          /* size, then text */
            assert_int_equal(allocations, 1);   /* the log */
        }

        arm(variant == 2 ? info_call[0] : variant == 3 ? info_call[1] : 0,
            0, variant == 4 ? 1 : 0);
        inj.fail_every[FN_clBuildProgram] = true;
        memset(got, RESULT_SENTINEL, sizeof got);
        const sb_status st = sb_reduce(ctx, f->queue, r, f->x_f32, 0, f->mask,
                                       0, N_DEVICE, got);
        run_deferred();
        assert_int_equal(st, SB_BUILD_ERROR);
        if (variant == 2 || variant == 3)
            assert_true(inj.fired && inj.fired_fn == FN_clGetProgramBuildInfo);
        if (variant == 4)
            assert_true(inj.mem_fired);
        assert_int_equal(sb_context_last_cl_error(ctx),
                         CL_BUILD_PROGRAM_FAILURE);
        const char *log = sb_context_build_log(ctx);
        assert_non_null(log);
        printf("failed build, variant %d: log queries %lu, log of %zu "
               "bytes\n", variant, seen, strlen(log));
        if (variant >= 2)
            assert_string_equal(log, "");
        all_sentinel_or_fail(got, sizeof got, "the result", 0);
        disarm();
        inj.build_anyway = false;
        assert_int_equal(reduce_once(f, s, ctx, want, 0), SB_OK);
        sb_context_release(ctx);
        ledger_check((unsigned long)variant);
    }
    disarm();
}

/* A reduction that fails after some of its launches were enqueued leaves
 * them to run and returns at once: it must not wait for them (they may
 * wait for an event the caller completes only later, and waiting would
 * deadlock), and it must keep their scratch buffers busy until they end.
 * Here the failing call's queue is held behind a barrier on a user event;
 * meanwhile the same context reduces again through another queue, which
 * must get none of the buffers the held launches write, and the right
 * bits. Then the event
 * completes: the held launches run, and (sb_reduce_enqueue) the record
 * buffer stays untouched. Each call of the chain after its first launch
 * that must fail is made to fail in turn. */
static void deadlocked(int signal)
{
    (void)signal;
    static const char msg[] = "FAIL: a failed reduction is still waiting for "
        "launches held behind an incomplete event (deadlock)\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(3);
    _exit(2);
}

static void a_reduction_failing_after_a_launch_neither_waits_nor_lends_its_buffers(
        void **state)
{
    const fixture *f = *state;
    signal(SIGALRM, deadlocked);
    cl_int err = CL_SUCCESS;
    cl_command_queue other = clCreateCommandQueue(f->cl_ctx, f->device, 0,
                                                  &err);
    assert_non_null(other);
    for (scenario s = SCENARIO_DEVICE; s <= SCENARIO_ENQUEUE; s++) {
        const sb_reduction r = reduction_of(s);
        unsigned char want[RESULT_BUFFER];
        memset(want, RESULT_SENTINEL, sizeof want);
        assert_int_equal(sb_reduce_host(r, host_x_of(f, s), f->mask_host,
                                        N_DEVICE, want), SB_OK);
        sweep_stats stats;
        memset(&stats, 0, sizeof stats);
        unsigned long create_calls = 0, reduce_calls = 0;
        inj.tracing = true;
        one_run(f, s, 0, 0, want, &stats, &create_calls, &reduce_calls);
        inj.tracing = false;
        fn_id trace[MAX_CALLS];
        memcpy(trace, inj.trace, sizeof trace[0] * (create_calls + reduce_calls));
        unsigned long first_launch = 0, runs = 0;
        for (unsigned long k = create_calls + 1;
             k <= create_calls + reduce_calls; k++) {
            const fn_id fn = trace[k - 1];
            if (first_launch == 0 && fn == FN_clEnqueueNDRangeKernel)
                first_launch = k;
            if (first_launch == 0 || k == first_launch ||
                policy(fn, 0) != MUST_FAIL)
                continue;
            ledger_reset();
            arm(k, 0, 0);
            sb_context *ctx = NULL;
            assert_int_equal(sb_context_create(f->cl_ctx, f->device, &narrow,
                                               &ctx), SB_OK);
            cl_event gate = clCreateUserEvent(f->cl_ctx, &err);
            assert_non_null(gate);
            assert_int_equal(clEnqueueBarrierWithWaitList(f->queue, 1, &gate,
                                                          NULL), CL_SUCCESS);
            unsigned char fill[RECORD_BYTES];
            memset(fill, RESULT_SENTINEL, sizeof fill);
            cl_mem record = buffer_of(f, RECORD_BYTES, fill);
            unsigned char got[RESULT_BUFFER];
            memset(got, RESULT_SENTINEL, sizeof got);
            cl_event done = NULL;
            used_buffers.on = true;
            used_buffers.count = 0;
            used_buffers.kernels = 0;
            alarm(60);      /* a wait for the held launches never returns */
            const sb_status st = s == SCENARIO_DEVICE
                ? sb_reduce(ctx, f->queue, r, x_of(f, s), 0, f->mask, 0,
                            N_DEVICE, got)
                : sb_reduce_enqueue(ctx, f->queue, r, x_of(f, s), 0, f->mask,
                                    0, N_DEVICE, record, RECORD_OFFSET, 0,
                                    NULL, &done);
            alarm(0);
            run_deferred();
            if (!inj.fired || inj.fired_fn != fn)
                fail_msg("call %lu: expected %s to fail", k, fn_names[fn]);
            assert_int_equal(st, status_for(fn, inj.fired_error));
            all_sentinel_or_fail(got, sizeof got, "the result", k);
            disarm();
            cl_mem held[64];
            const unsigned held_count = used_buffers.count;
            memcpy(held, used_buffers.buffer, sizeof held);

            used_buffers.count = 0;
            unsigned char again[RESULT_BUFFER];
            memset(again, RESULT_SENTINEL, sizeof again);
            assert_int_equal(sb_reduce(ctx, other, r, x_of(f, s), 0, f->mask,
                                       0, N_DEVICE, again), SB_OK);
            used_buffers.on = false;
            if (!bits_equal(again, want, RESULT_BUFFER))
                fail_msg("call %lu: the reduction beside the held one has "
                         "the wrong bits", k);
            for (unsigned i = 0; i < used_buffers.count; i++)
                for (unsigned j = 0; j < held_count; j++)
                    if (used_buffers.buffer[i] == held[j])
                        fail_msg("call %lu (%s failed): scratch buffer %p, "
                                 "written by held launches, lent to another "
                                 "reduction",
                                 k, fn_names[fn], (void *)held[j]);

            assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE),
                             CL_SUCCESS);
            assert_int_equal(clFinish(f->queue), CL_SUCCESS);
            clReleaseEvent(gate);
            unsigned char back[RECORD_BYTES];
            assert_int_equal(clEnqueueReadBuffer(f->queue, record, CL_TRUE, 0,
                                                 RECORD_BYTES, back, 0, NULL,
                                                 NULL), CL_SUCCESS);
            all_sentinel_or_fail(back, sizeof back, "the record buffer", k);
            clReleaseMemObject(record);
            sb_context_release(ctx);
            run_deferred();
            ledger_check(k);
            runs++;
        }
        printf("%s: %lu failures after the first launch, with the queue "
               "held\n", scenario_names[s], runs);
        assert_true(runs > 0);
    }
    clReleaseCommandQueue(other);
}

int main(void)
{
    seed = test_seed(0x636c5f6661756cull);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_call_of_a_blocking_device_reduction_can_fail),
        cmocka_unit_test(every_call_of_an_enqueued_reduction_can_fail),
        cmocka_unit_test(every_call_of_the_host_shortcut_can_fail),
        cmocka_unit_test(every_call_of_a_batch_of_short_rows_can_fail),
        cmocka_unit_test(every_call_of_short_segments_can_fail),
        cmocka_unit_test(every_call_of_a_batch_of_launched_rows_can_fail),
        cmocka_unit_test(every_call_of_an_enqueued_batch_can_fail),
        cmocka_unit_test(every_call_of_a_batch_of_long_rows_can_fail),
        cmocka_unit_test(
            every_call_of_an_enqueued_batch_of_long_rows_can_fail),
        cmocka_unit_test(every_call_of_a_batch_of_columns_can_fail),
        cmocka_unit_test(a_kernel_limit_below_the_options_changes_no_bit),
        cmocka_unit_test(a_gpu_plan_gives_short_segments_to_the_kernel),
        cmocka_unit_test(every_call_of_sb_context_create_default_can_fail),
        cmocka_unit_test(every_allocation_can_fail),
        cmocka_unit_test(
            a_failed_build_has_a_valid_log_even_when_it_cannot_be_read),
        cmocka_unit_test(
            a_reduction_failing_after_a_launch_neither_waits_nor_lends_its_buffers),
    };
    return cmocka_run_group_tests_name("cl_faults", tests, setup, teardown);
}
