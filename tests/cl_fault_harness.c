/* tests/cl_fault_harness.c: the wrappers of sb__cl and sb__mem, and the
 * ledger of the library's OpenCL references; see cl_fault_harness.h. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "cl_fault_harness.h"    /* cl_api.h, then samebits.h: before any
                                    CL header, OpenCL 1.2 target */

#include <CL/cl_ext.h>           /* CL_PLATFORM_NOT_FOUND_KHR */

/* ------------------------------------------------------------------------
 * The state, and counting a call
 * ---------------------------------------------------------------------- */

const char *const fn_names[FN_COUNT] = {
#define FN_NAME_(fn) #fn,
    SB_CL_FUNCTIONS(FN_NAME_)
#undef FN_NAME_
};

enum { MAX_DEFERRED = 64 };

/* A cleanup call made to fail, done for real after the library returns. */
typedef struct {
    fn_id            fn;
    void            *object;
} deferred_call;

fault_injection inj;

/* What the tests do not see: the real tables, what is armed, the cleanup
 * calls to make later. */
static struct {
    sb__cl_api    real;
    sb__mem_api   real_mem;
    unsigned long fail_at;          /* 1-based; 0: never */
    cl_int        forced_error;     /* 0: the typical error of each call */
    unsigned long mem_fail_at;      /* 1-based; 0: never */
    deferred_call deferred[MAX_DEFERRED];
    unsigned      deferred_count;
} harness;

/* The error a call of kind `fn` fails with. */
static cl_int typical_error(fn_id fn)
{
    switch (fn) {
    case FN_clBuildProgram:          return CL_BUILD_PROGRAM_FAILURE;
    case FN_clCreateBuffer:          return CL_MEM_OBJECT_ALLOCATION_FAILURE;
    case FN_clEnqueueNDRangeKernel:
    case FN_clEnqueueReadBuffer:
    case FN_clEnqueueWriteBuffer:
    case FN_clEnqueueCopyBuffer:
    case FN_clEnqueueMapBuffer:
    case FN_clEnqueueUnmapMemObject:
    case FN_clFlush:                 return CL_INVALID_COMMAND_QUEUE;
    case FN_clWaitForEvents:
        return CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST;
    case FN_clGetPlatformIDs:        return CL_PLATFORM_NOT_FOUND_KHR;
    case FN_clCreateContext:         return CL_DEVICE_NOT_AVAILABLE;
    default:                         return CL_OUT_OF_RESOURCES;
    }
}

/* Counts a call; @return true (and *err) if it must fail. */
static bool inject(fn_id fn, cl_uint param, cl_int *err)
{
    if (inj.unwatched)
        return false;
    inj.calls++;
    if (inj.tracing && inj.calls <= MAX_CALLS) {
        inj.trace[inj.calls - 1] = fn;
        inj.trace_param[inj.calls - 1] = param;
    }
    if (inj.calls != harness.fail_at && !inj.fail_every[fn])
        return false;
    *err = harness.forced_error ? harness.forced_error : typical_error(fn);
    if (inj.calls == harness.fail_at) {
        inj.fired = true;
        inj.fired_fn = fn;
        inj.fired_error = *err;
        inj.fired_param = param;
    }
    return true;
}

static void defer(fn_id fn, void *object)
{
    assert_true(harness.deferred_count < MAX_DEFERRED);
    harness.deferred[harness.deferred_count++] =
        (deferred_call){ .fn = fn, .object = object };
}

/* ------------------------------------------------------------------------
 * The ledger
 * ---------------------------------------------------------------------- */

/* The ledger of the references the library holds: an object it creates
 * (or an event an enqueue gives it) or retains counts +1, one it releases
 * -1, the `done` events it hands to the test -1 when the test releases
 * them. After a run (context released) every count must be 0: nothing
 * leaked. A release below 0 is an over-release: it is counted and not
 * passed on (the real one would free an object still in use). */
enum { MAX_OBJECTS = 512 };

static struct {
    const void   *object[MAX_OBJECTS];
    long          refs[MAX_OBJECTS];
    const char   *what[MAX_OBJECTS];
    unsigned      count;
    unsigned long over_releases;
} ledger;

void ledger_reset(void)
{
    memset(&ledger, 0, sizeof ledger);
}

static long *ledger_refs(const void *object, const char *what)
{
    for (unsigned i = 0; i < ledger.count; i++)
        if (ledger.object[i] == object)
            return &ledger.refs[i];
    assert_true(ledger.count < MAX_OBJECTS);
    ledger.object[ledger.count] = object;
    ledger.what[ledger.count] = what;
    return &ledger.refs[ledger.count++];
}

static void ledger_add(const void *object, const char *what)
{
    if (object != NULL && !inj.unwatched)
        ++*ledger_refs(object, what);
}

/* @return false for an over-release. */
static bool ledger_take(const void *object, const char *what)
{
    if (inj.unwatched)
        return true;
    long *refs = ledger_refs(object, what);
    if (*refs <= 0) {
        fprintf(stderr, "over-release of %s %p\n", what, object);
        ledger.over_releases++;
        return false;
    }
    --*refs;
    return true;
}

/* Every reference taken was given back, none twice. */
void ledger_check(unsigned long k)
{
    bool balanced = ledger.over_releases == 0;
    for (unsigned i = 0; i < ledger.count; i++)
        if (ledger.refs[i] != 0) {
            fprintf(stderr, "call %lu: %s %p left with %ld reference(s)\n", k,
                    ledger.what[i], ledger.object[i], ledger.refs[i]);
            balanced = false;
        }
    if (!balanced)
        fail_msg("call %lu: the library's OpenCL references do not balance "
                 "(%lu over-release(s))", k, ledger.over_releases);
}

/* The test releases a `done` event the library handed it. */
void release_done(cl_event done)
{
    if (ledger_take(done, "event"))
        assert_int_equal(clReleaseEvent(done), CL_SUCCESS);
}

/* Makes the cleanup calls that were made to fail. */
void run_deferred(void)
{
    for (unsigned i = 0; i < harness.deferred_count; i++) {
        const deferred_call *d = &harness.deferred[i];
        cl_int err = CL_SUCCESS;
        switch (d->fn) {
        case FN_clReleaseContext:
            err = harness.real.clReleaseContext(d->object); break;
        case FN_clReleaseCommandQueue:
            err = harness.real.clReleaseCommandQueue(d->object); break;
        case FN_clReleaseProgram:
            err = harness.real.clReleaseProgram(d->object); break;
        case FN_clReleaseKernel:
            err = harness.real.clReleaseKernel(d->object); break;
        case FN_clReleaseMemObject:
            err = harness.real.clReleaseMemObject(d->object); break;
        case FN_clReleaseEvent:
            err = harness.real.clReleaseEvent(d->object); break;
        default:
            fail_msg("nothing to defer for %s", fn_names[d->fn]);
        }
        assert_int_equal(err, CL_SUCCESS);
    }
    harness.deferred_count = 0;
}

/* ------------------------------------------------------------------------
 * The wrappers
 * ---------------------------------------------------------------------- */

/* fn(params) returning cl_int. */
#define WRAP_STATUS(fn, params, args)                                        \
    static cl_int CL_API_CALL w_##fn params {                                \
        cl_int e_;                                                           \
        if (inject(FN_##fn, 0, &e_))                                         \
            return e_;                                                       \
        return harness.real.fn args;                                         \
    }
/* An enqueue: the event it returns through `ev` is the library's. */
#define WRAP_ENQUEUE(fn, params, args)                                       \
    static cl_int CL_API_CALL w_##fn params {                                \
        cl_int e_;                                                           \
        if (inject(FN_##fn, 0, &e_))                                         \
            return e_;                                                       \
        e_ = harness.real.fn args;                                           \
        if (e_ == CL_SUCCESS && ev != NULL)                                  \
            ledger_add(*ev, "event");                                        \
        return e_;                                                           \
    }
/* clCreate*(params): the object through the return value, the error
 * through errcode_ret. */
#define WRAP_CREATE(type, fn, params, args)                                  \
    static type CL_API_CALL w_##fn params {                                  \
        cl_int e_;                                                           \
        if (inject(FN_##fn, 0, &e_)) {                                       \
            if (errcode_ret != NULL)                                         \
                *errcode_ret = e_;                                           \
            return NULL;                                                     \
        }                                                                    \
        type object = harness.real.fn args;                                  \
        ledger_add(object, #type);                                           \
        return object;                                                       \
    }
/* clRetain*(object) */
#define WRAP_RETAIN(fn, type)                                                \
    static cl_int CL_API_CALL w_##fn(type object) {                          \
        cl_int e_;                                                           \
        if (inject(FN_##fn, 0, &e_))                                         \
            return e_;                                                       \
        e_ = harness.real.fn(object);                                        \
        if (e_ == CL_SUCCESS)                                                \
            ledger_add(object, #type);                                       \
        return e_;                                                           \
    }
/* clRelease*(object): a failed release releases nothing; it is done later
 * (run_deferred). */
#define WRAP_RELEASE(fn, type)                                               \
    static cl_int CL_API_CALL w_##fn(type object) {                          \
        cl_int e_;                                                           \
        const bool inject_ = inject(FN_##fn, 0, &e_);                        \
        if (!ledger_take(object, #type))                                     \
            return CL_INVALID_VALUE;                                         \
        if (inject_) {                                                       \
            defer(FN_##fn, object);                                          \
            return e_;                                                       \
        }                                                                    \
        return harness.real.fn(object);                                      \
    }

WRAP_STATUS(clGetPlatformIDs,
    (cl_uint n, cl_platform_id *p, cl_uint *np), (n, p, np))
WRAP_STATUS(clGetPlatformInfo,
    (cl_platform_id p, cl_platform_info w, size_t s, void *v, size_t *r),
    (p, w, s, v, r))
WRAP_STATUS(clGetDeviceIDs,
    (cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d,
     cl_uint *nd), (p, t, n, d, nd))
/* clGetDeviceInfo also records which query failed. */
static cl_int CL_API_CALL w_clGetDeviceInfo(cl_device_id d, cl_device_info w,
                                            size_t s, void *v, size_t *r)
{
    cl_int e_;
    if (inject(FN_clGetDeviceInfo, w, &e_))
        return e_;
    return harness.real.clGetDeviceInfo(d, w, s, v, r);
}
WRAP_CREATE(cl_context, clCreateContext,
    (const cl_context_properties *props, cl_uint n, const cl_device_id *d,
     void (CL_CALLBACK *notify)(const char *, const void *, size_t, void *),
     void *user, cl_int *errcode_ret), (props, n, d, notify, user, errcode_ret))
WRAP_RETAIN(clRetainContext, cl_context)
WRAP_RELEASE(clReleaseContext, cl_context)
WRAP_CREATE(cl_command_queue, clCreateCommandQueue,
    (cl_context c, cl_device_id d, cl_command_queue_properties p,
     cl_int *errcode_ret), (c, d, p, errcode_ret))
WRAP_RELEASE(clReleaseCommandQueue, cl_command_queue)
WRAP_STATUS(clGetCommandQueueInfo,
    (cl_command_queue q, cl_command_queue_info w, size_t s, void *v,
     size_t *r), (q, w, s, v, r))
WRAP_CREATE(cl_program, clCreateProgramWithSource,
    (cl_context c, cl_uint n, const char **src, const size_t *len,
     cl_int *errcode_ret), (c, n, src, len, errcode_ret))
/* A failed build builds nothing, unless inj.build_anyway: then the real
 * build runs first, so that the program has a build log to read. */
static cl_int CL_API_CALL w_clBuildProgram(
        cl_program p, cl_uint n, const cl_device_id *d, const char *opts,
        void (CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    cl_int e_;
    if (inject(FN_clBuildProgram, 0, &e_)) {
        if (inj.build_anyway)
            (void)harness.real.clBuildProgram(p, n, d, opts, notify, user);
        return e_;
    }
    return harness.real.clBuildProgram(p, n, d, opts, notify, user);
}
WRAP_STATUS(clGetProgramBuildInfo,
    (cl_program p, cl_device_id d, cl_program_build_info w, size_t s,
     void *v, size_t *r), (p, d, w, s, v, r))
WRAP_RELEASE(clReleaseProgram, cl_program)
WRAP_CREATE(cl_kernel, clCreateKernel,
    (cl_program p, const char *name, cl_int *errcode_ret),
    (p, name, errcode_ret))
WRAP_RELEASE(clReleaseKernel, cl_kernel)
/* While used_buffers.on: the library's own buffers (scratch) that the
 * launches it enqueues write, i.e. each launch's output argument (in
 * cl/reduce.cl, argument 9 of sb_leaves, 10 of sb_rows and sb_segments, 7
 * of sb_nodes, 6 of sb_columns; with final != 0 it is the record). w_clSetKernelArg() notes each kernel's
 * output argument, w_clEnqueueNDRangeKernel() the buffer it writes. */
launch_outputs used_buffers;

static bool is_library_buffer(const void *object)
{
    for (unsigned i = 0; i < ledger.count; i++)
        if (ledger.object[i] == object && strcmp(ledger.what[i], "cl_mem") == 0)
            return true;
    return false;
}

static cl_mem *kernel_out(cl_kernel k)
{
    for (unsigned i = 0; i < used_buffers.kernels; i++)
        if (used_buffers.kernel[i] == k)
            return &used_buffers.out[i];
    assert_true(used_buffers.kernels < 32);
    used_buffers.kernel[used_buffers.kernels] = k;
    used_buffers.out[used_buffers.kernels] = NULL;
    return &used_buffers.out[used_buffers.kernels++];
}

static cl_uint output_argument(cl_kernel k)
{
    char name[64] = "";
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL);
    const size_t len = strlen(name);
    if (len > 8 && strcmp(name + len - 8, "_columns") == 0)
        return 6;
    if ((len > 5 && strcmp(name + len - 5, "_rows") == 0) ||
        (len > 9 && strcmp(name + len - 9, "_segments") == 0))
        return 10;
    return len > 6 && strcmp(name + len - 6, "_nodes") == 0 ? 7 : 9;
}

static cl_int CL_API_CALL w_clSetKernelArg(cl_kernel k, cl_uint i, size_t s,
                                           const void *v)
{
    cl_int e_;
    if (inject(FN_clSetKernelArg, 0, &e_))
        return e_;
    e_ = harness.real.clSetKernelArg(k, i, s, v);
    if (e_ == CL_SUCCESS && used_buffers.on && s == sizeof(cl_mem) &&
        v != NULL && i == output_argument(k))
        memcpy(kernel_out(k), v, sizeof(cl_mem));
    return e_;
}

static cl_int CL_API_CALL w_clEnqueueNDRangeKernel(
        cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *off,
        const size_t *global, const size_t *local, cl_uint nw,
        const cl_event *wait, cl_event *ev)
{
    cl_int e_;
    if (inject(FN_clEnqueueNDRangeKernel, 0, &e_))
        return e_;
    e_ = harness.real.clEnqueueNDRangeKernel(q, k, dim, off, global, local,
                                             nw, wait, ev);
    if (e_ == CL_SUCCESS && ev != NULL)
        ledger_add(*ev, "event");
    if (e_ == CL_SUCCESS && used_buffers.on && used_buffers.count < 64 &&
        is_library_buffer(*kernel_out(k)))
        used_buffers.buffer[used_buffers.count++] = *kernel_out(k);
    return e_;
}
WRAP_CREATE(cl_mem, clCreateBuffer,
    (cl_context c, cl_mem_flags f, size_t s, void *host, cl_int *errcode_ret),
    (c, f, s, host, errcode_ret))
WRAP_RELEASE(clReleaseMemObject, cl_mem)
WRAP_STATUS(clGetMemObjectInfo,
    (cl_mem m, cl_mem_info w, size_t s, void *v, size_t *r), (m, w, s, v, r))
WRAP_ENQUEUE(clEnqueueReadBuffer,
    (cl_command_queue q, cl_mem b, cl_bool block, size_t off, size_t s,
     void *p, cl_uint nw, const cl_event *wait, cl_event *ev),
    (q, b, block, off, s, p, nw, wait, ev))
WRAP_ENQUEUE(clEnqueueWriteBuffer,
    (cl_command_queue q, cl_mem b, cl_bool block, size_t off, size_t s,
     const void *p, cl_uint nw, const cl_event *wait, cl_event *ev),
    (q, b, block, off, s, p, nw, wait, ev))
WRAP_ENQUEUE(clEnqueueCopyBuffer,
    (cl_command_queue q, cl_mem from, cl_mem to, size_t from_off,
     size_t to_off, size_t s, cl_uint nw, const cl_event *wait, cl_event *ev),
    (q, from, to, from_off, to_off, s, nw, wait, ev))
/* A mapping is a reference of its own in the ledger: every map must be
 * unmapped. An unmap made to fail is done for real at once (the library
 * sees the failure; the test leaks nothing). */
static void *CL_API_CALL w_clEnqueueMapBuffer(cl_command_queue q, cl_mem b,
                                              cl_bool block, cl_map_flags f,
                                              size_t off, size_t s,
                                              cl_uint nw,
                                              const cl_event *wait,
                                              cl_event *ev, cl_int *errcode)
{
    cl_int e_;
    if (inject(FN_clEnqueueMapBuffer, 0, &e_)) {
        if (errcode != NULL)
            *errcode = e_;
        return NULL;
    }
    void *p = harness.real.clEnqueueMapBuffer(q, b, block, f, off, s, nw,
                                              wait, ev, errcode);
    if (p != NULL) {
        ledger_add(p, "mapping");
        if (ev != NULL)
            ledger_add(*ev, "event");
    }
    return p;
}
static cl_int CL_API_CALL w_clEnqueueUnmapMemObject(cl_command_queue q,
                                                    cl_mem b, void *p,
                                                    cl_uint nw,
                                                    const cl_event *wait,
                                                    cl_event *ev)
{
    cl_int e_;
    const bool inject_ = inject(FN_clEnqueueUnmapMemObject, 0, &e_);
    if (!ledger_take(p, "mapping"))
        return CL_INVALID_VALUE;
    if (inject_) {
        cl_event done = NULL;
        if (harness.real.clEnqueueUnmapMemObject(q, b, p, nw, wait, &done)
                == CL_SUCCESS) {
            harness.real.clWaitForEvents(1, &done);
            harness.real.clReleaseEvent(done);
        }
        return e_;
    }
    e_ = harness.real.clEnqueueUnmapMemObject(q, b, p, nw, wait, ev);
    if (e_ == CL_SUCCESS && ev != NULL)
        ledger_add(*ev, "event");
    return e_;
}
WRAP_STATUS(clGetKernelWorkGroupInfo,
    (cl_kernel k, cl_device_id d, cl_kernel_work_group_info w, size_t s,
     void *v, size_t *r), (k, d, w, s, v, r))
WRAP_STATUS(clWaitForEvents, (cl_uint n, const cl_event *list), (n, list))
WRAP_RETAIN(clRetainEvent, cl_event)
WRAP_RELEASE(clReleaseEvent, cl_event)
WRAP_STATUS(clGetEventInfo,
    (cl_event e, cl_event_info w, size_t s, void *v, size_t *r),
    (e, w, s, v, r))
WRAP_STATUS(clFlush, (cl_command_queue q), (q))

static void *w_calloc(size_t count, size_t size)
{
    if (++inj.mem_calls == harness.mem_fail_at) {
        inj.mem_fired = true;
        return NULL;
    }
    return harness.real_mem.calloc(count, size);
}

static void *w_malloc(size_t size)
{
    if (++inj.mem_calls == harness.mem_fail_at) {
        inj.mem_fired = true;
        return NULL;
    }
    return harness.real_mem.malloc(size);
}

static void *w_realloc(void *p, size_t size)
{
    if (++inj.mem_calls == harness.mem_fail_at) {
        inj.mem_fired = true;
        return NULL;
    }
    return harness.real_mem.realloc(p, size);
}

/* ------------------------------------------------------------------------
 * Installing, arming, tracing
 * ---------------------------------------------------------------------- */

/* Every entry of both tables is replaced: a function of SB_CL_FUNCTIONS
 * without a wrapper does not compile. */
void install_wrappers(void)
{
    harness.real = sb__cl;
    harness.real_mem = sb__mem;
#define INSTALL_(fn) sb__cl.fn = w_##fn;
    SB_CL_FUNCTIONS(INSTALL_)
#undef INSTALL_
    sb__mem.calloc = w_calloc;
    sb__mem.malloc = w_malloc;
    sb__mem.realloc = w_realloc;
}

void remove_wrappers(void)
{
    sb__cl = harness.real;
    sb__mem = harness.real_mem;
}

/* Starts a run: count from 1, fail the k-th OpenCL call (0: none) and the
 * m-th allocation (0: none). */
void arm(unsigned long k, cl_int forced, unsigned long m)
{
    inj.unwatched = false;          /* a run is watched, whatever came before */
    inj.calls = 0;
    harness.fail_at = k;
    harness.forced_error = forced;
    inj.fired = false;
    inj.mem_calls = 0;
    harness.mem_fail_at = m;
    inj.mem_fired = false;
    memset(inj.fail_every, 0, sizeof inj.fail_every);
}

void disarm(void)
{
    harness.fail_at = 0;
    harness.mem_fail_at = 0;
    memset(inj.fail_every, 0, sizeof inj.fail_every);
}

void print_trace(unsigned long count)
{
    printf("  calls:");
    for (unsigned long i = 0; i < count && i < MAX_CALLS; i++) {
        unsigned long same = 1;
        while (i + same < count && inj.trace[i + same] == inj.trace[i])
            same++;
        printf(" %s", fn_names[inj.trace[i]] + 2);
        if (same > 1)
            printf("x%lu", same);
        i += same - 1;
    }
    printf("\n");
}
