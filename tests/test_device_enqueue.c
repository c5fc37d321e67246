/* tests/test_device_enqueue.c: sb_reduce_enqueue() as a citizen of OpenCL
 * command queues, on every device.
 *
 * The record (sb_device_result) lands at `result_offset` of the caller's
 * buffer and nowhere else; its status word says SB_OK, SB_EMPTY or
 * SB_OVERFLOW and the value bytes are written only with SB_OK (the buffer
 * is pre-filled with a sentinel to see it). Reductions wait for the events
 * they are given (a user event holds back the write that fills the input),
 * several can be in flight on one queue or on an out-of-order queue, and
 * they complete after the sb_context is released. A NULL queue means the
 * context's own, ranges may end exactly at the end of a buffer, and `done`
 * may be NULL. Every value is checked against tests/oracle.c. The calls
 * that must be refused (the OpenCL wait-list rules, a result offset that is
 * not a multiple of 8, buffers or a queue of another context, ranges past
 * the end of a buffer, NULL handles) are rows of tests/test_bad_input.c,
 * which also checks that they touch neither the record buffer nor `*done`. */
#define _POSIX_C_SOURCE 200809L  /* nanosleep */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "device_support.h"
#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

/* Per device: a context that never takes the host shortcut. */
typedef struct {
    device_list     all;             /* first: see device_suite_new() */
    device_context *contexts;
} suite;

static int open_suite(void **state)
{
    suite *s = device_suite_new(sizeof *s);
    if (s == NULL)
        return -1;
    s->contexts = checked_malloc(sizeof *s->contexts * s->all.count);
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    for (size_t i = 0; i < s->all.count; i++) {
        if (device_context_open(&s->contexts[i], &s->all.devices[i], &opts)
            != SB_OK) {
            while (i-- > 0)
                device_context_close(&s->contexts[i]);
            free(s->contexts);
            device_suite_free(s);
            return -1;
        }
    }
    *state = s;
    return 0;
}

static int close_suite(void **state)
{
    suite *s = *state;
    if (s == NULL)
        return 0;                   /* open_suite() failed */
    for (size_t i = 0; i < s->all.count; i++)
        device_context_close(&s->contexts[i]);
    free(s->contexts);
    device_suite_free(s);
    return 0;
}

/* ------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------- */

/* Host data of one reduction, its buffer, and what the oracle says. */
typedef struct {
    sb_reduction  r;
    size_t        n;
    void         *x;
    cl_mem        buffer;
    sb_status     status;             /* oracle_reduce() */
    unsigned char value[RESULT_BUFFER];
} input;

static input make_input(const test_device *d, sb_reduction r, size_t n,
                        data_family family, uint64_t salt)
{
    input in = { .r = r, .n = n };
    const size_t size = type_size(r.input);
    in.x = checked_malloc(n * size);
    fill_data(family, r.input, r.accumulator, in.x, n, mix_seed(seed, salt));
    in.buffer = make_buffer(d, n * size > 0 ? n * size : 1, in.x);
    memset(in.value, RESULT_SENTINEL, sizeof in.value);
    in.status = oracle_reduce(r, in.x, NULL, n, in.value);
    return in;
}

static void free_input(input *in)
{
    clReleaseMemObject(in->buffer);
    free(in->x);
}

/* A result buffer of `size` bytes, every byte RESULT_SENTINEL. */
static cl_mem sentinel_buffer(const test_device *d, size_t size)
{
    unsigned char *bytes = checked_malloc(size);
    memset(bytes, RESULT_SENTINEL, size);
    cl_mem b = make_buffer(d, size, bytes);
    free(bytes);
    return b;
}

static bool all_sentinel(const unsigned char *p, size_t size)
{
    for (size_t i = 0; i < size; i++)
        if (p[i] != RESULT_SENTINEL)
            return false;
    return true;
}

/* Checks the record at `bytes` against the oracle's answer for `in`: the
 * status word, and the value bytes (the oracle's with SB_OK, untouched
 * otherwise). */
static void assert_record(const unsigned char *bytes, const input *in,
                          const char *device)
{
    const size_t size = oracle_result_size(in->r);
    int32_t status;
    memcpy(&status, bytes + 8, sizeof status);
    const bool value_ok = in->status == SB_OK
                          ? bits_equal(bytes, in->value, size)
                          : all_sentinel(bytes, size);
    if (status != (int32_t)in->status || !value_ok) {
        fprintf(stderr, "on %s: %s %s->%s n=%zu: record status %d value ",
                device, op_name(in->r.op), type_name(in->r.input),
                type_name(in->r.accumulator), in->n, (int)status);
        print_result(stderr, in->r, bytes);
        fprintf(stderr, ", oracle %s ", status_name(in->status));
        print_result(stderr, in->r, in->value);
        fprintf(stderr, "\n");
    }
    assert_int_equal(status, (int32_t)in->status);
    assert_true(value_ok);
}

static void sleep_ms(long ms)
{
    const struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

static cl_int event_status(cl_event e)
{
    cl_int status = CL_QUEUED;
    assert_int_equal(clGetEventInfo(e, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                    sizeof status, &status, NULL),
                     CL_SUCCESS);
    return status;
}

/* Whether a command held back by a user event can be enqueued. Not on
 * Oclgrind 21.10: its clFlush runs the queue to the end and so waits
 * forever for a user event that only the calling thread could set, and
 * sb_reduce_enqueue() flushes. There the user event is set before the
 * reduction is enqueued: the results are still checked, not that the
 * reduction waited. */
static bool can_hold_back(const test_device *d)
{
    return !d->oclgrind;
}

/* An n that takes several work-groups of the context's default shape on
 * POCL, and is still quick on Oclgrind. */
static size_t several_groups(const test_device *d)
{
    const size_t group = d->caps.work_group_size * d->caps.leaves_per_item
                         * 16;
    const size_t n = 3 * group + 17;
    return d->oclgrind && n > 5000 ? 5000 : n;
}

/* Whether device i computes every reduction of `rs` exactly. Where it does
 * not, both entry points must refuse the first it lacks with
 * SB_UNSUPPORTED (samebits.h), which this checks, and the caller has
 * nothing more to check on that device. */
static bool run_here(const suite *s, size_t i, const sb_reduction *rs,
                     size_t count)
{
    const test_device *d = &s->all.devices[i];
    for (size_t k = 0; k < count; k++) {
        const sb_type acc = rs[k].accumulator ? rs[k].accumulator
                                              : rs[k].input;
        if (type_is_exact_on(d, rs[k].input) && type_is_exact_on(d, acc))
            continue;
        cl_mem x = sentinel_buffer(d, 64);
        cl_mem result = sentinel_buffer(d, 16);
        unsigned char value[RESULT_BUFFER];
        assert_int_equal(sb_reduce(s->contexts[i].ctx, d->queue, rs[k], x, 0,
                                   NULL, 0, 1, value), SB_UNSUPPORTED);
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue,
                                           rs[k], x, 0, NULL, 0, 1, result,
                                           0, 0, NULL, NULL), SB_UNSUPPORTED);
        printf("%s refuses %s -> %s: SB_UNSUPPORTED checked, nothing more\n",
               d->name, type_name(rs[k].input), type_name(acc));
        clReleaseMemObject(x);
        clReleaseMemObject(result);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------
 * Records and their status word
 * ---------------------------------------------------------------------- */

/* SB_OK with its value, SB_EMPTY and SB_OVERFLOW with the value bytes left
 * as they were; the call itself returns SB_OK for all three. */
static void the_status_word_tells_ok_empty_and_overflow(void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_SUM, SB_F32, 0, 0, 0 },
                                         { SB_SUM, SB_I32, 0, 0, 0 },
                                         { SB_MIN, SB_F64, 0, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        sb_context *ctx = s->contexts[i].ctx;
        input ok = make_input(d, (sb_reduction){ SB_SUM, SB_F32, 0, 0, 0 },
                              100, FAMILY_UNIFORM, 1);
        input overflow = make_input(d, (sb_reduction){ SB_SUM, SB_I32, 0, 0, 0 },
                                    64, FAMILY_LIMITS, 2);
        const int32_t big[] = { INT32_MAX, 1 };   /* overflows in any order */
        memcpy(overflow.x, big, sizeof big);
        clEnqueueWriteBuffer(d->queue, overflow.buffer, CL_TRUE, 0,
                             sizeof big, big, 0, NULL, NULL);
        overflow.status = oracle_reduce(overflow.r, overflow.x, NULL,
                                        overflow.n, overflow.value);
        assert_int_equal(overflow.status, SB_OVERFLOW);
        input empty = make_input(d, (sb_reduction){ SB_MIN, SB_F64, 0, 0, 0 },
                                 40, FAMILY_SPECIALS, 3);
        unsigned char zeros[40] = { 0 };
        cl_mem mask = make_buffer(d, sizeof zeros, zeros);
        memset(empty.value, RESULT_SENTINEL, sizeof empty.value);
        empty.status = oracle_reduce(empty.r, empty.x, zeros, empty.n,
                                     empty.value);
        assert_int_equal(empty.status, SB_EMPTY);

        cl_mem result = sentinel_buffer(d, 64);
        assert_int_equal(sb_reduce_enqueue(ctx, d->queue, ok.r, ok.buffer, 0,
                                           NULL, 0, ok.n, result, 0, 0, NULL,
                                           NULL), SB_OK);
        assert_int_equal(sb_reduce_enqueue(ctx, d->queue, overflow.r,
                                           overflow.buffer, 0, NULL, 0,
                                           overflow.n, result, 16, 0, NULL,
                                           NULL), SB_OK);
        assert_int_equal(sb_reduce_enqueue(ctx, d->queue, empty.r,
                                           empty.buffer, 0, mask, 0, empty.n,
                                           result, 32, 0, NULL, NULL), SB_OK);
        assert_int_equal(clFinish(d->queue), CL_SUCCESS);
        unsigned char bytes[64];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        assert_record(bytes, &ok, d->name);
        assert_record(bytes + 16, &overflow, d->name);
        assert_record(bytes + 32, &empty, d->name);
        assert_true(all_sentinel(bytes + 48, 16));

        clReleaseMemObject(result);
        clReleaseMemObject(mask);
        free_input(&ok);
        free_input(&overflow);
        free_input(&empty);
    }
}

/* Each record lands at its offset (any multiple of 8) and nowhere else:
 * reductions into records 8 bytes apart would overlap, so they go 16
 * apart, starting at 8 or 0. */
static void records_land_at_their_offset_and_nowhere_else(void **state)
{
    const suite *s = *state;
    for (size_t i = 0; i < s->all.count; i++) {
        const test_device *d = &s->all.devices[i];
        for (size_t start = 0; start <= 8; start += 8) {
            enum { RECORDS = 6 };
            const size_t size = start + RECORDS * 16 + 8;
            cl_mem result = sentinel_buffer(d, size);
            input in[RECORDS];
            static const sb_reduction rs[RECORDS] = {
                { SB_SUM, SB_F64, 0, 0, 0 }, { SB_ANY, SB_U8, 0, 0, 0 },
                { SB_MAX, SB_I16, SB_I64, 0, 0 }, { SB_PROD, SB_U8, SB_U32, 0, 0 },
                { SB_SUM, SB_I8, SB_F32, 0, 0 }, { SB_ALL, SB_F32, 0, 0, 0 } };
            if (!run_here(s, i, rs, RECORDS))
                break;
            for (size_t k = 0; k < RECORDS; k++) {
                in[k] = make_input(d, rs[k], 33 + 40 * k, FAMILY_UNIFORM,
                                   10 + k);
                assert_int_equal(sb_reduce_enqueue(
                    s->contexts[i].ctx, d->queue, rs[k], in[k].buffer, 0,
                    NULL, 0, in[k].n, result, start + 16 * k, 0, NULL, NULL),
                    SB_OK);
            }
            assert_int_equal(clFinish(d->queue), CL_SUCCESS);
            unsigned char *bytes = checked_malloc(size);
            read_buffer(d, result, 0, size, bytes);
            assert_true(all_sentinel(bytes, start));
            for (size_t k = 0; k < RECORDS; k++) {
                assert_record(bytes + start + 16 * k, &in[k], d->name);
                free_input(&in[k]);
            }
            assert_true(all_sentinel(bytes + start + RECORDS * 16, 8));
            free(bytes);
            clReleaseMemObject(result);
        }
    }
}

/* ------------------------------------------------------------------------
 * Events and queues
 * ---------------------------------------------------------------------- */

/* A write of the input, held back by a user event on a second queue, and a
 * reduction that waits for the write's event: the reduction cannot finish
 * before the user event does, and then it sees the new data. */
static void a_reduction_waits_for_the_write_that_fills_its_input(
        void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_SUM, SB_F64, 0, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        const sb_reduction r = { SB_SUM, SB_F64, 0, 0, 0 };
        const size_t n = several_groups(d);
        input before = make_input(d, r, n, FAMILY_UNIFORM, 30);
        input after = make_input(d, r, n, FAMILY_CANCELLATION, 31);
        assert_false(bits_equal(before.value, after.value, 8));

        cl_int err = CL_SUCCESS;
        cl_command_queue other = clCreateCommandQueue(d->cl_ctx, d->device,
                                                      0, &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_event gate = clCreateUserEvent(d->cl_ctx, &err);
        assert_int_equal(err, CL_SUCCESS);
        const bool hold = can_hold_back(d);
        if (!hold)
            assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE),
                             CL_SUCCESS);
        cl_event written = NULL, done = NULL;
        assert_int_equal(clEnqueueWriteBuffer(other, before.buffer, CL_FALSE,
                                              0, n * 8, after.x, 1, &gate,
                                              &written), CL_SUCCESS);
        clFlush(other);
        cl_mem result = sentinel_buffer(d, 48);
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue, r,
                                           before.buffer, 0, NULL, 0, n,
                                           result, 8, 1, &written, &done),
                         SB_OK);
        assert_ptr_not_equal(done, NULL);
        if (hold) {
            sleep_ms(50);
            assert_int_not_equal(event_status(done), CL_COMPLETE);
            assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE),
                             CL_SUCCESS);
        }
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        assert_int_equal(event_status(written), CL_COMPLETE);

        /* The same on one in-order queue: a write, then a reduction that
         * waits for its event. */
        cl_event refilled = NULL;
        assert_int_equal(clEnqueueWriteBuffer(d->queue, after.buffer,
                                              CL_FALSE, 0, n * 8, before.x,
                                              0, NULL, &refilled),
                         CL_SUCCESS);
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue, r,
                                           after.buffer, 0, NULL, 0, n,
                                           result, 24, 1, &refilled, NULL),
                         SB_OK);
        assert_int_equal(clFinish(d->queue), CL_SUCCESS);
        unsigned char bytes[48];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        assert_true(all_sentinel(bytes, 8));
        assert_record(bytes + 8, &after, d->name);
        assert_record(bytes + 24, &before, d->name);
        assert_true(all_sentinel(bytes + 40, 8));

        clReleaseEvent(refilled);
        clReleaseEvent(gate);
        clReleaseEvent(written);
        clReleaseEvent(done);
        clReleaseMemObject(result);
        clReleaseCommandQueue(other);
        free_input(&before);
        free_input(&after);
    }
}

/* Many reductions, some over several work-groups (their scratch buffers
 * in use at the same time), enqueued with done = NULL; one clFinish. */
static void many_reductions_in_flight_then_one_finish(void **state)
{
    const suite *s = *state;
    for (size_t i = 0; i < s->all.count; i++) {
        const test_device *d = &s->all.devices[i];
        enum { FLIGHT = 24 };
        static const sb_reduction rs[] = {
            { SB_SUM, SB_F32, 0, 0, 0 }, { SB_SUM, SB_F64, 0, 0, 0 },
            { SB_MIN, SB_F32, 0, 0, 0 }, { SB_SUM, SB_I64, 0, SB_WRAP, 0 },
            { SB_PROD, SB_F64, 0, 0, 0 }, { SB_MAX, SB_U16, SB_U64, 0, 0 } };
        static const data_family families[] = {
            FAMILY_CANCELLATION, FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO,
            FAMILY_UNIFORM, FAMILY_PROD_EDGE, FAMILY_UNIFORM };
        if (!run_here(s, i, rs, COUNT(rs)))
            continue;
        input in[FLIGHT];
        cl_mem result = sentinel_buffer(d, FLIGHT * 16);
        for (size_t k = 0; k < FLIGHT; k++) {
            const size_t which = k % COUNT(rs);
            const size_t n = k % 3 == 0 ? several_groups(d) + k : 100 + k;
            in[k] = make_input(d, rs[which], n, families[which], 40 + k);
            assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue,
                                               in[k].r, in[k].buffer, 0,
                                               NULL, 0, n, result, 16 * k, 0,
                                               NULL, NULL), SB_OK);
        }
        assert_int_equal(clFinish(d->queue), CL_SUCCESS);
        unsigned char bytes[FLIGHT * 16];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        for (size_t k = 0; k < FLIGHT; k++) {
            assert_record(bytes + 16 * k, &in[k], d->name);
            free_input(&in[k]);
        }
        clReleaseMemObject(result);
    }
}

/* On an out-of-order queue, where only events order commands: a write of
 * every input, reductions that wait for it, and a read that waits for the
 * reductions' `done` events. */
static void an_out_of_order_queue_gets_the_same_bits(void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_SUM, SB_F64, 0, 0, 0 },
                                         { SB_MAX, SB_F64, 0, 0, 0 },
                                         { SB_PROD, SB_F64, 0, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        if (!d->out_of_order) {
            printf("%s has no out-of-order queues: nothing to check\n",
                   d->name);
            continue;
        }
        cl_int err = CL_SUCCESS;
        cl_command_queue q = clCreateCommandQueue(
            d->cl_ctx, d->device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
            &err);
        assert_int_equal(err, CL_SUCCESS);
        enum { FLIGHT = 8 };
        static const sb_reduction rs[] = {
            { SB_SUM, SB_F64, 0, 0, 0 }, { SB_MAX, SB_F64, 0, 0, 0 },
            { SB_PROD, SB_F64, 0, 0, 0 }, { SB_SUM, SB_F64, 0, 0, 0 } };
        const size_t n = several_groups(d);
        input truth[FLIGHT];
        cl_mem x[FLIGHT];
        cl_event written[FLIGHT], done[FLIGHT];
        cl_mem result = sentinel_buffer(d, FLIGHT * 16);
        for (size_t k = 0; k < FLIGHT; k++) {
            truth[k] = make_input(d, rs[k % 4], n + k, FAMILY_SPECIALS,
                                  60 + k);
            x[k] = make_buffer(d, (n + k) * 8, NULL);
            assert_int_equal(clEnqueueWriteBuffer(q, x[k], CL_FALSE, 0,
                                                  (n + k) * 8, truth[k].x, 0,
                                                  NULL, &written[k]),
                             CL_SUCCESS);
            assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, q,
                                               rs[k % 4], x[k], 0, NULL, 0,
                                               n + k, result, 16 * k, 1,
                                               &written[k], &done[k]),
                             SB_OK);
        }
        unsigned char bytes[FLIGHT * 16];
        assert_int_equal(clEnqueueReadBuffer(q, result, CL_TRUE, 0,
                                             sizeof bytes, bytes, FLIGHT,
                                             done, NULL), CL_SUCCESS);
        for (size_t k = 0; k < FLIGHT; k++) {
            assert_record(bytes + 16 * k, &truth[k], d->name);
            clReleaseEvent(written[k]);
            clReleaseEvent(done[k]);
            clReleaseMemObject(x[k]);
            free_input(&truth[k]);
        }
        clReleaseMemObject(result);
        clReleaseCommandQueue(q);
    }
}

/* A completed event in the wait list, and no `done` (NULL): the record is
 * right. (The wait lists that must be refused are rows of
 * tests/test_bad_input.c.) */
static void done_may_be_null_with_a_wait_list(void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_MAX, SB_I32, 0, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        sb_context *ctx = s->contexts[i].ctx;
        input in = make_input(d, (sb_reduction){ SB_MAX, SB_I32, 0, 0, 0 }, 77,
                              FAMILY_UNIFORM, 70);
        cl_mem result = sentinel_buffer(d, 16);
        cl_int err = CL_SUCCESS;
        cl_event user = clCreateUserEvent(d->cl_ctx, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);

        assert_int_equal(sb_reduce_enqueue(ctx, d->queue, in.r, in.buffer, 0,
                                           NULL, 0, in.n, result, 0, 1,
                                           &user, NULL), SB_OK);
        assert_int_equal(clFinish(d->queue), CL_SUCCESS);
        unsigned char bytes[16];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        assert_record(bytes, &in, d->name);

        clReleaseEvent(user);
        clReleaseMemObject(result);
        free_input(&in);
    }
}

/* A NULL queue is the context's own: the `done` event belongs to another
 * queue than the test's, of the same context, and the record is right. */
static void a_null_queue_uses_the_context_s_own(void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_SUM, SB_F32, SB_F64, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        input in = make_input(d, (sb_reduction){ SB_SUM, SB_F32, SB_F64, 0, 0 },
                              several_groups(d), FAMILY_HUGE_RANGE, 80);
        cl_mem result = sentinel_buffer(d, 16);
        cl_event done = NULL;
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, NULL, in.r,
                                           in.buffer, 0, NULL, 0, in.n,
                                           result, 0, 0, NULL, &done), SB_OK);
        cl_command_queue q = NULL;
        cl_context c = NULL;
        assert_int_equal(clGetEventInfo(done, CL_EVENT_COMMAND_QUEUE,
                                        sizeof q, &q, NULL), CL_SUCCESS);
        assert_int_equal(clGetEventInfo(done, CL_EVENT_CONTEXT, sizeof c, &c,
                                        NULL), CL_SUCCESS);
        assert_ptr_not_equal(q, d->queue);
        assert_ptr_equal(c, d->cl_ctx);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        clReleaseEvent(done);
        unsigned char bytes[16];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        assert_record(bytes, &in, d->name);

        double value;
        assert_int_equal(sb_reduce(s->contexts[i].ctx, NULL, in.r, in.buffer,
                                   0, NULL, 0, in.n, &value), SB_OK);
        assert_memory_equal(&value, in.value, sizeof value);
        clReleaseMemObject(result);
        free_input(&in);
    }
}

/* sb_context_release() waits for nothing: a reduction held back by a user
 * event still completes, with the right record, after the release. */
static void enqueued_work_completes_after_the_context_is_released(
        void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_MIN, SB_F64, 0, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        const sb_options opts = { .flags = SB_OPT_NO_HOST };
        device_context dc;
        assert_int_equal(device_context_open(&dc, d, &opts), SB_OK);
        input in = make_input(d, (sb_reduction){ SB_MIN, SB_F64, 0, 0, 0 },
                              several_groups(d), FAMILY_SPECIALS, 90);
        cl_mem result = sentinel_buffer(d, 16);
        cl_int err = CL_SUCCESS;
        cl_event gate = clCreateUserEvent(d->cl_ctx, &err);
        assert_int_equal(err, CL_SUCCESS);
        const bool hold = can_hold_back(d);
        if (!hold)
            assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE),
                             CL_SUCCESS);
        cl_event done = NULL;
        assert_int_equal(sb_reduce_enqueue(dc.ctx, d->queue, in.r, in.buffer,
                                           0, NULL, 0, in.n, result, 0, 1,
                                           &gate, &done), SB_OK);
        device_context_close(&dc);
        if (hold)
            assert_int_equal(clSetUserEventStatus(gate, CL_COMPLETE),
                             CL_SUCCESS);
        assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
        unsigned char bytes[16];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        assert_record(bytes, &in, d->name);
        clReleaseEvent(done);
        clReleaseEvent(gate);
        clReleaseMemObject(result);
        free_input(&in);
    }
}

/* ------------------------------------------------------------------------
 * The edges of a buffer and of n
 * ---------------------------------------------------------------------- */

/* Ranges that end exactly at the end of a buffer are fine: the last
 * element, an empty range at the end, the last record. (The ranges past
 * the end, and offsets whose byte count overflows size_t, are rows of
 * tests/test_bad_input.c.) */
static void ranges_that_end_at_the_end_of_a_buffer_are_accepted(
        void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = { { SB_SUM, SB_F64, 0, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        const sb_reduction r = { SB_SUM, SB_F64, 0, 0, 0 };
        input in = make_input(d, r, 100, FAMILY_UNIFORM, 100);
        unsigned char ones[100];
        memset(ones, 1, sizeof ones);
        cl_mem mask = make_buffer(d, sizeof ones, ones);
        cl_mem result = sentinel_buffer(d, 32);
        double last;
        assert_int_equal(sb_reduce(s->contexts[i].ctx, d->queue, r,
                                   in.buffer, 99, mask, 99, 1, &last), SB_OK);
        assert_memory_equal(&last, (double *)in.x + 99, sizeof last);
        assert_int_equal(sb_reduce(s->contexts[i].ctx, d->queue, r,
                                   in.buffer, 100, mask, 100, 0, &last),
                         SB_OK);
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue, r,
                                           in.buffer, 0, mask, 0, 100,
                                           result, 16, 0, NULL, NULL), SB_OK);
        assert_int_equal(clFinish(d->queue), CL_SUCCESS);
        unsigned char bytes[32];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        assert_true(all_sentinel(bytes, 16));
        assert_record(bytes + 16, &in, d->name);
        clReleaseMemObject(mask);
        clReleaseMemObject(result);
        free_input(&in);
    }
}

/* n = 0 needs no buffers: sum answers 0 (SB_OK), min SB_EMPTY. */
static void an_empty_input_needs_no_buffers(void **state)
{
    const suite *s = *state;
    static const sb_reduction used[] = {
        { SB_SUM, SB_F64, 0, 0, 0 }, { SB_MIN, SB_I8, SB_I64, 0, 0 } };
    for (size_t i = 0; i < s->all.count; i++) {
        if (!run_here(s, i, used, COUNT(used)))
            continue;
        const test_device *d = &s->all.devices[i];
        cl_mem result = sentinel_buffer(d, 32);
        const sb_reduction sum = { SB_SUM, SB_F64, 0, 0, 0 };
        const sb_reduction min = { SB_MIN, SB_I8, SB_I64, 0, 0 };
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue, sum,
                                           NULL, 0, NULL, 0, 0, result, 0, 0,
                                           NULL, NULL), SB_OK);
        assert_int_equal(sb_reduce_enqueue(s->contexts[i].ctx, d->queue, min,
                                           NULL, 0, NULL, 0, 0, result, 16,
                                           0, NULL, NULL), SB_OK);
        assert_int_equal(clFinish(d->queue), CL_SUCCESS);
        unsigned char bytes[32];
        read_buffer(d, result, 0, sizeof bytes, bytes);
        input empty_min = { .r = min, .status = SB_EMPTY };
        memset(empty_min.value, RESULT_SENTINEL, sizeof empty_min.value);
        assert_record(bytes + 16, &empty_min, d->name);
        int32_t status;
        memcpy(&status, bytes + 8, sizeof status);
        assert_int_equal(status, SB_OK);
        const double zero = 0.0;
        assert_memory_equal(bytes, &zero, sizeof zero);   /* +0.0 */

        double value = -1.0;
        assert_int_equal(sb_reduce(s->contexts[i].ctx, d->queue, sum, NULL,
                                   0, NULL, 0, 0, &value), SB_OK);
        assert_memory_equal(&value, &zero, sizeof zero);
        clReleaseMemObject(result);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_status_word_tells_ok_empty_and_overflow),
        cmocka_unit_test(records_land_at_their_offset_and_nowhere_else),
        cmocka_unit_test(a_reduction_waits_for_the_write_that_fills_its_input),
        cmocka_unit_test(many_reductions_in_flight_then_one_finish),
        cmocka_unit_test(an_out_of_order_queue_gets_the_same_bits),
        cmocka_unit_test(done_may_be_null_with_a_wait_list),
        cmocka_unit_test(a_null_queue_uses_the_context_s_own),
        cmocka_unit_test(enqueued_work_completes_after_the_context_is_released),
        cmocka_unit_test(ranges_that_end_at_the_end_of_a_buffer_are_accepted),
        cmocka_unit_test(an_empty_input_needs_no_buffers),
    };
    seed = test_seed(20240611u);
    return cmocka_run_group_tests_name("device_enqueue", tests, open_suite,
                                       close_suite);
}
