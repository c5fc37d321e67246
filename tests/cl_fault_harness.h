/* tests/cl_fault_harness.h: fault injection into the library's OpenCL
 * calls and heap allocations, for tests/test_cl_faults.c.
 *
 * The library makes every OpenCL call through the table sb__cl and every
 * heap allocation through sb__mem (src/cl_api.h): hidden symbols, reachable
 * only by linking the static library. install_wrappers() replaces each
 * entry with a counting wrapper that passes the call through, or makes it
 * fail.
 *
 * What it can fail:
 *   - any OpenCL call of SB_CL_FUNCTIONS (src/cl_api.h), one kind of call
 *     per fn_id: the k-th call of a run, whatever its kind (arm()), and/or
 *     every call of chosen kinds (inj.fail_every). A function returning an
 *     object stores the error through its errcode_ret and returns NULL; the
 *     others return it. The error is arm()'s `forced` one, or (forced = 0)
 *     the one typical of the call: CL_BUILD_PROGRAM_FAILURE for
 *     clBuildProgram, CL_MEM_OBJECT_ALLOCATION_FAILURE for clCreateBuffer,
 *     CL_INVALID_COMMAND_QUEUE for clEnqueueNDRangeKernel,
 *     clEnqueueReadBuffer and clFlush, CL_PLATFORM_NOT_FOUND_KHR for
 *     clGetPlatformIDs, CL_DEVICE_NOT_AVAILABLE for clCreateContext,
 *     CL_OUT_OF_RESOURCES for every other;
 *   - the m-th heap allocation of a run (sb__mem.calloc or .malloc, counted
 *     together): it returns NULL.
 * A failed call does nothing, except a clBuildProgram with
 * inj.build_anyway set: the real build runs first, so that the program has
 * a build log to read. A cleanup call made to fail (clRelease*) really did
 * nothing, so its object would leak: the wrapper records it and
 * run_deferred() makes the real call, so that the leak checker (ASan/LSan
 * build) sees only the library's leaks.
 *
 * How to count: arm() starts a run. Each OpenCL call the library makes
 * counts 1 in inj.calls (the call failing at k is the one that brings it
 * to k), each allocation 1 in inj.mem_calls. With inj.tracing set, the
 * kind of each of the first MAX_CALLS calls is kept in inj.trace[]
 * (clGetDeviceInfo's param_name in inj.trace_param[]); print_trace() prints
 * them. The call made to fail at k is described by inj.fired, .fired_fn,
 * .fired_error and .fired_param (the calls of inj.fail_every are not);
 * an allocation made to fail sets inj.mem_fired. A run with nothing armed
 * (arm(0, 0, 0)) counts the calls of a scenario, and the same scenario
 * armed with k <= that count fails the same call, if the library is
 * deterministic.
 *
 * How to reset: arm() clears the counters, the fired marks and
 * inj.fail_every and sets what fails; disarm() makes nothing fail any
 * more, counters kept (inj.tracing and inj.build_anyway are the caller's to
 * clear). ledger_reset() empties the ledger below; remove_wrappers() puts
 * the real tables back.
 *
 * Calls not watched: while inj.unwatched is set, every call passes through
 * as if no wrapper were there: nothing counts, fails, is traced or enters
 * the ledger. For a context that outlives the runs (test_cl_faults.c's
 * program holder), whose references no run's ledger may see. arm() clears
 * it: a run is always watched.
 *
 * The ledger of the references the library holds: an object it creates
 * (or an event an enqueue gives it) or retains counts +1, one it releases
 * -1, the `done` events it hands to the test -1 when the test releases
 * them (release_done()). After a run (context released) every count must
 * be 0: ledger_check() fails the test otherwise, or if the library
 * released an object more often than it held it (such a release is not
 * passed on: the real one would free an object still in use). LSan cannot
 * tell a cl_mem samebits forgot from POCL's own allocations; the ledger
 * can.
 *
 * The launches' outputs: while used_buffers.on, each kernel launch the
 * library enqueues whose output argument (in cl/reduce.cl, argument 9 of
 * sb_leaves, 10 of sb_rows and sb_segments, 7 of sb_nodes, 6 of
 * sb_columns; with final != 0 it is the record) is one
 * of the library's own buffers (in the ledger) adds that buffer to
 * used_buffers.buffer[] (used_buffers.count of them, at most 64). Set
 * used_buffers.count and .kernels to 0 to start afresh. */
#ifndef SB_TEST_CL_FAULT_HARNESS_H
#define SB_TEST_CL_FAULT_HARNESS_H

#include <stdbool.h>

#include "cl_api.h"              /* sb__cl, sb__mem: src/, linked statically */

/*! One kind of OpenCL call: FN_clCreateBuffer, ... (SB_CL_FUNCTIONS). */
typedef enum {
#define FN_ENUM_(fn) FN_##fn,
    SB_CL_FUNCTIONS(FN_ENUM_)
#undef FN_ENUM_
    FN_COUNT
} fn_id;

/*! fn_names[fn] : the function's name, "clCreateBuffer". */
extern const char *const fn_names[FN_COUNT];

enum { MAX_CALLS = 4096 };       /* the calls inj.trace[] keeps */

/*! The state of the injection that tests read, and the settings they may
 *  change between arm() and the library call. */
typedef struct {
    /* counters, cleared by arm() */
    unsigned long calls;            /* OpenCL calls made so far in this run */
    unsigned long mem_calls;        /* allocations made so far in this run */
    /* the call made to fail at k, cleared by arm() */
    bool          fired;
    fn_id         fired_fn;
    cl_int        fired_error;
    cl_uint       fired_param;      /* clGetDeviceInfo's param_name */
    bool          mem_fired;        /* the m-th allocation was made to fail */
    /* settings */
    bool          fail_every[FN_COUNT];   /* every call of these kinds */
    bool          build_anyway;     /* a failing clBuildProgram builds first */
    bool          tracing;          /* fill trace[] and trace_param[] */
    bool          unwatched;        /* pass every call through, unseen */
    fn_id         trace[MAX_CALLS];
    cl_uint       trace_param[MAX_CALLS];
} fault_injection;

extern fault_injection inj;

/*! install_wrappers() : replaces every entry of sb__cl and sb__mem with its
 *  wrapper, keeping the real ones; remove_wrappers() puts them back. Every
 *  function of SB_CL_FUNCTIONS has a wrapper: one without does not
 *  compile. */
void install_wrappers(void);
void remove_wrappers(void);

/*! arm() : starts a run: counts from 1, fails the k-th OpenCL call (0:
 *  none) with `forced` (0: the typical error of the call) and the m-th
 *  allocation (0: none); nothing fails every time. */
void arm(unsigned long k, cl_int forced, unsigned long m);

/*! disarm() : from now on nothing fails (not the k-th call, the m-th
 *  allocation nor inj.fail_every); the counters go on. */
void disarm(void);

/*! run_deferred() : makes, for real, the cleanup calls that were made to
 *  fail since the last run_deferred(); fails the test if one fails. */
void run_deferred(void);

/*! print_trace() : prints the kinds of the first `count` calls of
 *  inj.trace[] to stdout, repeats folded ("CreateBufferx3"). */
void print_trace(unsigned long count);

/*! ledger_reset() : forgets every reference counted so far. */
void ledger_reset(void);

/*! ledger_check() : fails the test (naming call `k` of the run) unless every
 *  reference taken since ledger_reset() was given back, none twice. */
void ledger_check(unsigned long k);

/*! release_done() : the test releases a `done` event the library handed
 *  it (and the ledger counts it). */
void release_done(cl_event done);

/*! The library's own buffers that the launches it enqueued write; see the
 *  top of this file. */
typedef struct {
    bool      on;
    unsigned  count;
    cl_mem    buffer[64];
    unsigned  kernels;
    cl_kernel kernel[32];
    cl_mem    out[32];       /* the kernel's output argument as set */
} launch_outputs;

extern launch_outputs used_buffers;

#endif /* SB_TEST_CL_FAULT_HARNESS_H */
