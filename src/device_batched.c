/* device_batched.c: sb_reduce_batched(), sb_reduce_batched_enqueue() and
 * sb_reduce_segments(), many reductions of elements in a cl_mem, with the
 * bits of sb_reduce_host() by construction:
 *   - a small batch of short rows close together (batch_is_small(),
 *     rows_take_the_shortcut()): mapped by chunks and reduced by the host
 *     form, as sb_reduce() would take each row to the host;
 *   - other contiguous rows (elem_stride 1) that the rows kernel takes
 *     (sb__rows_kernel_takes(): up to 2^18 elements on a CPU device, and
 *     many of them when long): one launch of sb_rows (cl/reduce.cl), one
 *     work-item per row, or per 8 f32 (4 f64, 16 half) unmasked rows
 *     side by side in vector lanes (sb__row_lanes(): a CPU device's
 *     native float sums, min and max), into records the blocking form
 *     reads back once,
 *     or straight into the caller's records (the enqueue form);
 *   - other rows that sb_reduce() would launch, and longer segments: one
 *     sb_reduce_enqueue() chain per row, at the row's offset in the
 *     buffer, on the caller's queue, each waiting for the one before,
 *     into records of a buffer of the call's own, which the blocking forms
 *     read back once and the enqueue form copies into the caller's buffer
 *     with one copy (reduce_rows_launched()); short rows far apart, and
 *     rows of no element: one sb_reduce() each;
 *   - segments of up to 2^18 elements on a CPU device that the host does
 *     not take (on a GPU, up to 2048 elements, all of them once the call
 *     is past host_max_n elements; sb__segments_kernel_most(),
 *     segments_plan_make()): one launch of sb_segments, a work-item per
 *     segment, or per 8 f32 (4 f64, 16 half) unmasked segments of one
 *     length side by side, into records read back once;
 *   - runs of the other short segments (at most host_max_n elements):
 *     mapped at once on a CPU device with the host's memory, else by
 *     chunks of up to 128 host_max_n elements (segment_run_elements()),
 *     and reduced by the host form;
 *   - columns side by side (batch stride 1, elem_stride != 1) of a
 *     program with vector lanes (native float sums, min and max of every
 *     element), unmasked, at least a vector's worth of them
 *     (sb__columns_kernel_takes()): one launch of sb_columns, a block of
 *     16 (8) columns per work-item, one vector load per element index,
 *     into records as for the rows kernel;
 *   - other strided rows (elem_stride != 1): the range of the buffer that
 *     holds every element of the batch (and of the mask) is mapped
 *     (view_batch()) and sb_reduce_batched_host() reduces it. The enqueue
 *     form then writes the records with one blocking write, so it blocks
 *     (it waits for its wait list first).
 * Every address is checked against the buffers, overflow-safe, before the
 * first command. The blocking forms keep the answers in memory of their
 * own until every row has one, so that a failure writes nothing. */
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "host_engine.h"

/* A batch's arguments after the checks. */
typedef struct {
    sb__checked_call c;
    size_t below;   /* elements of the batch before element (0, 0) */
    size_t span;    /* elements from the lowest to the highest: 0 when n or
                       count is 0 */
} checked_batch;

/* Everything sb_reduce_batched() and the enqueue form check before they
 * enqueue anything but the results' buffer. */
static sb_status check_batch(sb_context *ctx, cl_command_queue queue,
                             sb_reduction r, cl_mem x, size_t x_offset,
                             cl_mem mask, size_t mask_offset, size_t n,
                             ptrdiff_t elem_stride, size_t count,
                             ptrdiff_t batch_stride, checked_batch *out)
{
    SB_FAIL_IF(ctx == NULL, SB_INVALID_ARGUMENT, "ctx is NULL");
    sb__plan plan;
    sb_status s = sb__plan_make(r, &plan);
    SB_RETURN_IF(s != SB_OK, s);
    size_t below, above;
    s = sb__batch_extent(n, elem_stride, count, batch_stride,
                         plan.input_size, &below, &above);
    SB_RETURN_IF(s != SB_OK, s);
    const size_t span = n > 0 && count > 0 ? below + above + 1 : 0;
    SB_FAIL_IF(span > 0 && below > x_offset, SB_INVALID_ARGUMENT,
               "the batch reaches %zu elements below element (0, 0), "
               "before the start of x (x_offset = %zu)", below, x_offset);
    SB_FAIL_IF(span > 0 && mask != NULL && below > mask_offset,
               SB_INVALID_ARGUMENT, "the batch reaches %zu elements below "
               "element (0, 0), before the start of mask (mask_offset = "
               "%zu)", below, mask_offset);
    /* x and the mask must hold [offset - below, offset - below + span). */
    s = sb__check_call(ctx, queue, r, x, span > 0 ? x_offset - below
                                                  : x_offset,
                       mask, span > 0 ? mask_offset - below : mask_offset,
                       span, &out->c);
    SB_RETURN_IF(s != SB_OK, s);
    out->below = below;
    out->span = span;
    return SB_OK;
}

/* The batch's range of x (and of the mask) as the host sees it: mapped
 * for reading, element (0, 0) at xs (and ms; NULL without a mask), until
 * view_release(). On a device whose buffers are host memory (a CPU
 * device such as POCL) a map is the buffer itself: no copy and no fresh
 * pages (a read-back of a 512 MB matrix into new memory took ten times
 * the host's column fold on POCL, most of it the new pages); elsewhere
 * it copies, as a read would. */
typedef struct {
    cl_command_queue     queue;
    cl_mem               x, mask;
    void                *x_map, *m_map;
    const unsigned char *xs, *ms;
} batch_view;

/* Unmaps what is mapped and waits for the unmaps: the caller may write
 * the buffers once the call returns. */
static sb_status view_release(sb_context *ctx, batch_view *v)
{
    cl_event ev[2];
    cl_uint k = 0;
    cl_int err = CL_SUCCESS;
    if (v->x_map != NULL) {
        const cl_int e = SB_CL(clEnqueueUnmapMemObject)(v->queue, v->x,
                                                        v->x_map, 0, NULL,
                                                        &ev[k]);
        k += e == CL_SUCCESS;
        err = e;
    }
    if (v->m_map != NULL) {
        const cl_int e = SB_CL(clEnqueueUnmapMemObject)(v->queue, v->mask,
                                                        v->m_map, 0, NULL,
                                                        &ev[k]);
        k += e == CL_SUCCESS;
        err = err != CL_SUCCESS ? err : e;
    }
    if (k > 0) {
        const cl_int e = SB_CL(clWaitForEvents)(k, ev);
        err = err != CL_SUCCESS ? err : e;
        for (cl_uint i = 0; i < k; i++)
            SB_CL(clReleaseEvent)(ev[i]);
    }
    v->x_map = v->m_map = NULL;
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "clEnqueueUnmapMemObject, "
                             "clWaitForEvents (the view of a batch)"));
    return SB_OK;
}

/* Maps the batch (blocking, after the wait list) into *v. On an error
 * nothing stays mapped. */
static sb_status view_batch(sb_context *ctx, const checked_batch *cb,
                            cl_mem x, size_t x_offset, cl_mem mask,
                            size_t mask_offset, cl_uint num_wait,
                            const cl_event *wait, batch_view *v)
{
    memset(v, 0, sizeof *v);
    v->queue = cb->c.queue;
    v->x = x;
    v->mask = mask;
    if (cb->span == 0)
        return SB_OK;
    const size_t size = cb->c.plan.input_size;
    cl_int err = CL_SUCCESS;
    v->x_map = SB_CL(clEnqueueMapBuffer)(v->queue, x, CL_TRUE, CL_MAP_READ,
                                         (x_offset - cb->below) * size,
                                         cb->span * size, num_wait,
                                         num_wait ? wait : NULL, NULL, &err);
    if (v->x_map != NULL && mask != NULL)
        v->m_map = SB_CL(clEnqueueMapBuffer)(v->queue, mask, CL_TRUE,
                                             CL_MAP_READ,
                                             mask_offset - cb->below,
                                             cb->span, num_wait,
                                             num_wait ? wait : NULL, NULL,
                                             &err);
    if (v->x_map == NULL || (mask != NULL && v->m_map == NULL)) {
        (void)view_release(ctx, v);       /* the first failure is the one */
        return sb__cl_fail(ctx, err, "clEnqueueMapBuffer (the view of a "
                           "batch)");
    }
    v->xs = (const unsigned char *)v->x_map + cb->below * size;
    v->ms = mask != NULL ? (const unsigned char *)v->m_map + cb->below
                         : NULL;
    return SB_OK;
}

/* Answers kept apart until every row has one. */
typedef struct {
    unsigned char *results;
    sb_status     *statuses;
} answers;

static sb_status answers_new(answers *a, size_t count, size_t result_size)
{
    a->results = sb__mem.malloc(count * result_size);
    a->statuses = a->results ? sb__mem.malloc(count * sizeof(sb_status))
                             : NULL;
    if (a->statuses == NULL) {
        free(a->results);
        a->results = NULL;   /* answers_free() may follow */
        return sb__fail(SB_OUT_OF_MEMORY, "cannot allocate the answers of "
                        "%zu reductions", count);
    }
    return SB_OK;
}

static void answers_free(answers *a)
{
    free(a->results);
    free(a->statuses);
}

/* One sb_reduce() of row b into a: its answer, or a failure. */
static sb_status reduce_row(sb_context *ctx, const sb__checked_call *c,
                            sb_reduction r, cl_mem x, size_t x_at,
                            cl_mem mask, size_t mask_at, size_t n,
                            answers *a, size_t b)
{
    const size_t rs = c->plan.result_size;
    const sb_status s = sb_reduce(ctx, c->queue, r, x, x_at, mask, mask_at,
                                  n, a->results + b * rs);
    SB_RETURN_IF(s != SB_OK && s != SB_EMPTY && s != SB_OVERFLOW, s);
    a->statuses[b] = s;
    return SB_OK;
}

/* A reduction of a batch that runs on the device: its elements and the
 * answer it gives. */
typedef struct {
    size_t x_at, mask_at, n, b;
} row_ref;

/* k records of the plan's kind: *rec in host memory, *buf a device
 * buffer of the same size (both to free), or a failure with nothing
 * left allocated. */
static sb_status records_make(sb_context *ctx, const sb__plan *plan,
                              size_t k, unsigned char **rec, cl_mem *buf)
{
    const size_t rec_size = sb__record_size(plan);
    SB_FAIL_IF(k > SIZE_MAX / rec_size, SB_INVALID_ARGUMENT,
               "%zu records exceed the address space", k);
    *rec = sb__mem.malloc(k * rec_size);
    SB_FAIL_IF(*rec == NULL, SB_OUT_OF_MEMORY, "cannot allocate %zu records",
               k);
    cl_int err = CL_SUCCESS;
    *buf = SB_CL(clCreateBuffer)(ctx->cl_ctx, CL_MEM_READ_WRITE,
                                 k * rec_size, NULL, &err);
    if (*buf == NULL) {
        free(*rec);
        *rec = NULL;
        return sb__cl_fail(ctx, err, "clCreateBuffer (the records of a "
                           "batch)");
    }
    return SB_OK;
}

/* The k records read back into a: record i is the answer of reduction
 * rows[i].b (rows NULL: of reduction i). */
static void records_answer(const sb__plan *plan, const unsigned char *rec,
                           size_t k, const row_ref *rows, answers *a)
{
    const size_t rs = plan->result_size, rec_size = sb__record_size(plan);
    for (size_t i = 0; i < k; i++) {
        const size_t b = rows != NULL ? rows[i].b : i;
        a->statuses[b] = sb__record_status(plan, rec + i * rec_size);
        if (a->statuses[b] == SB_OK)
            sb__record_value(plan, rec + i * rec_size, a->results + b * rs);
    }
}

/* The reductions rows[0 .. k) into a, on the device: each one launch
 * chain (sb_reduce_enqueue()) into a record of a buffer of our own, each
 * chain waiting for the one before (which also lets the rows take turns
 * with the same scratch buffers), then one blocking read of every
 * record. One sb_reduce() per row waited for each row's record instead:
 * a command round trip per row, which made 1000 POCL rows of 10^5 f32
 * run at 4.0 GB/s against 8.8-9.2 this way (README: Performance). If
 * anything fails, the chains already enqueued only write into the
 * records, which nobody reads. */
static sb_status reduce_rows_launched(sb_context *ctx,
                                      const sb__checked_call *c,
                                      sb_reduction r, cl_mem x, cl_mem mask,
                                      const row_ref *rows, size_t k,
                                      answers *a)
{
    if (k == 0)
        return SB_OK;
    const size_t rec_size = sb__record_size(&c->plan), bytes = k * rec_size;
    unsigned char *rec;
    cl_mem buf;
    sb_status s = records_make(ctx, &c->plan, k, &rec, &buf);
    SB_RETURN_IF(s != SB_OK, s);
    cl_int err = CL_SUCCESS;
    cl_event prev = NULL;
    for (size_t i = 0; i < k && s == SB_OK; i++) {
        cl_event ev = NULL;
        s = sb_reduce_enqueue(ctx, c->queue, r, x, rows[i].x_at, mask,
                              rows[i].mask_at, rows[i].n, buf,
                              i * rec_size, prev ? 1 : 0,
                              prev ? &prev : NULL, &ev);
        if (prev != NULL)
            SB_CL(clReleaseEvent)(prev);
        prev = s == SB_OK ? ev : NULL;
    }
    if (s == SB_OK) {
        err = SB_CL(clEnqueueReadBuffer)(c->queue, buf, CL_TRUE, 0, bytes,
                                         rec, 1, &prev, NULL);
        if (err != CL_SUCCESS)
            s = sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the records of "
                            "a batch)");
    }
    if (prev != NULL)
        SB_CL(clReleaseEvent)(prev);
    SB_CL(clReleaseMemObject)(buf);
    if (s == SB_OK)
        records_answer(&c->plan, rec, k, rows, a);
    free(rec);
    return s;
}

/* Rows [0, count) of n elements (taken by sb__rows_kernel_takes()), or
 * columns (elem_stride != 1, taken by sb__columns_kernel_takes()), by one
 * launch of the rows or columns kernel into records of a buffer of the
 * call's own, read back with one blocking read, into a. */
static sb_status reduce_by_one_launch(sb_context *ctx,
                                      const checked_batch *cb, cl_mem x,
                                      size_t x_offset, cl_mem mask,
                                      size_t mask_offset, size_t n,
                                      ptrdiff_t elem_stride, size_t count,
                                      ptrdiff_t batch_stride, answers *a)
{
    const sb__plan *plan = &cb->c.plan;
    const size_t bytes = count * sb__record_size(plan);
    unsigned char *rec;
    cl_mem buf;
    sb_status s = records_make(ctx, plan, count, &rec, &buf);
    SB_RETURN_IF(s != SB_OK, s);
    cl_event ev = NULL;
    s = elem_stride != 1
        ? sb__enqueue_columns(ctx, &cb->c, x, x_offset, n, elem_stride,
                              count, buf, 0, 0, NULL, &ev)
        : sb__enqueue_rows(ctx, &cb->c, x, x_offset, mask, mask_offset, n,
                           count, batch_stride, buf, 0, 0, NULL, &ev);
    if (s == SB_OK) {
        const cl_int err = SB_CL(clEnqueueReadBuffer)(cb->c.queue, buf,
                                                      CL_TRUE, 0, bytes, rec,
                                                      1, &ev, NULL);
        if (err != CL_SUCCESS)
            s = sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the records of "
                            "a batch)");
        SB_CL(clReleaseEvent)(ev);
    }
    SB_CL(clReleaseMemObject)(buf);
    if (s == SB_OK)
        records_answer(plan, rec, count, NULL, a);
    free(rec);
    return s;
}

/* Whether a batch of count rows of n elements is small enough for the
 * host shortcut as a whole (the context's host_max_n for one call, on
 * all its elements): then one read beats a launch. */
static bool batch_is_small(const sb_context *ctx, size_t n, size_t count)
{
    return count <= SIZE_MAX / n && sb__host_takes(ctx, count * n);
}

/* Copies every answer out, as the host forms write them. */
static sb_status answers_deliver(const answers *a, size_t count,
                                 size_t result_size, void *results,
                                 sb_status *statuses)
{
    if (count == 0)
        return SB_OK;
    memcpy(statuses, a->statuses, count * sizeof *statuses);
    /* A run of answered reductions in one copy: 6.5 million segments one
     * by one took 15 ms. */
    for (size_t b = 0; b < count;) {
        size_t e = b;
        while (e < count && a->statuses[e] == SB_OK)
            e++;
        if (e > b)
            memcpy((unsigned char *)results + b * result_size,
                   a->results + b * result_size, (e - b) * result_size);
        b = e + 1;
    }
    sb__detail_clear();   /* the rows' SB_EMPTY / SB_OVERFLOW details */
    return SB_OK;
}

/* The element offset of row b: x_offset + b * batch_stride, which the
 * checks put inside the buffer; computed modulo 2^bits, where a negative
 * stride is exact. Rows of no element read nothing: they all start at
 * `offset`, which the checks also put inside the buffer. */
static size_t row_offset(size_t offset, size_t b, ptrdiff_t batch_stride,
                         size_t n)
{
    return n == 0 ? offset : offset + b * (size_t)batch_stride;
}

/* Short rows that sb_reduce() would reduce on the host anyway (n <=
 * host_max_n, no SB_OPT_NO_HOST: the context's rule for one call), in a
 * batch the rows kernel does not take, are mapped
 * SHORTCUT_CHUNK_ELEMENTS at a time and reduced by
 * sb_reduce_batched_host(): one map per chunk instead of one read per
 * row, and the same bits, since the host path is the reference. Only
 * where the rows lie close together (|batch_stride| <= 2n + 1): on a GPU
 * a map copies, and a copy of the gaps between far rows would cost more
 * than the reads it saves. */
enum { SHORTCUT_CHUNK_ELEMENTS = 1 << 18 };

static bool rows_take_the_shortcut(const sb_context *ctx, size_t n,
                                   ptrdiff_t batch_stride)
{
    const size_t gap = sb__stride_magnitude(batch_stride);
    return n > 0 && sb__host_takes(ctx, n) && gap / 2 <= n;
}

/* The rows [0, count) of a checked batch of contiguous rows, by chunks of
 * rows on the host, into a. */
static sb_status reduce_rows_on_host(sb_context *ctx, const checked_batch *cb,
                                     sb_reduction r, cl_mem x,
                                     size_t x_offset, cl_mem mask,
                                     size_t mask_offset, size_t n,
                                     size_t count, ptrdiff_t batch_stride,
                                     answers *a)
{
    const size_t rs = cb->c.plan.result_size;
    const size_t gap = sb__stride_magnitude(batch_stride);
    const size_t per_row = gap > n ? gap : n;
    const size_t chunk = per_row >= SHORTCUT_CHUNK_ELEMENTS
                         ? 1 : SHORTCUT_CHUNK_ELEMENTS / per_row;
    for (size_t b0 = 0; b0 < count; b0 += chunk) {
        const size_t rows = count - b0 < chunk ? count - b0 : chunk;
        /* A part of a checked batch: its extent fits too. */
        checked_batch part = *cb;
        size_t below, above;
        sb_status s = sb__batch_extent(n, 1, rows, batch_stride,
                                       cb->c.plan.input_size, &below,
                                       &above);
        SB_RETURN_IF(s != SB_OK, s);
        part.below = below;
        part.span = below + above + 1;
        batch_view v;
        s = view_batch(ctx, &part, x,
                       row_offset(x_offset, b0, batch_stride, n), mask,
                       row_offset(mask_offset, b0, batch_stride, n), 0, NULL,
                       &v);
        SB_RETURN_IF(s != SB_OK, s);
        s = sb__reduce_batched_host_opts(r, v.xs, v.ms, n, 1, rows,
                                         batch_stride, a->results + b0 * rs,
                                         a->statuses + b0, &ctx->opts.host);
        const sb_status released = view_release(ctx, &v);
        SB_RETURN_IF(s != SB_OK, s);
        SB_RETURN_IF(released != SB_OK, released);
    }
    return SB_OK;
}

sb_status sb_reduce_batched(sb_context *ctx, cl_command_queue queue,
                            sb_reduction r, cl_mem x, size_t x_offset,
                            cl_mem mask, size_t mask_offset, size_t n,
                            ptrdiff_t elem_stride, size_t count,
                            ptrdiff_t batch_stride, void *results,
                            sb_status *statuses)
{
    sb__detail_clear();
    checked_batch cb;
    sb_status s = check_batch(ctx, queue, r, x, x_offset, mask, mask_offset,
                              n, elem_stride, count, batch_stride, &cb);
    SB_RETURN_IF(s != SB_OK, s);
    const size_t rs = cb.c.plan.result_size;
    SB_FAIL_IF(count > 0 && results == NULL, SB_INVALID_ARGUMENT,
               "results is NULL while count = %zu", count);
    SB_FAIL_IF(count > 0 && statuses == NULL, SB_INVALID_ARGUMENT,
               "statuses is NULL while count = %zu", count);
    SB_FAIL_IF(count > SIZE_MAX / rs / sizeof(sb_status),
               SB_INVALID_ARGUMENT, "count = %zu answers exceed the address "
               "space", count);
    if (count == 0)
        return SB_OK;

    answers a;
    s = answers_new(&a, count, rs);
    SB_RETURN_IF(s != SB_OK, s);
    if (sb__columns_kernel_takes(ctx, &cb.c.plan, mask != NULL, n,
                                 elem_stride, count, batch_stride) &&
        !batch_is_small(ctx, n, count)) {
        s = reduce_by_one_launch(ctx, &cb, x, x_offset, mask, mask_offset, n,
                                 elem_stride, count, batch_stride, &a);
    } else if (elem_stride != 1 && n > 1) {
        batch_view v;
        s = view_batch(ctx, &cb, x, x_offset, mask, mask_offset, 0, NULL, &v);
        if (s == SB_OK) {
            s = sb__reduce_batched_host_opts(r, v.xs, v.ms, n, elem_stride,
                                             count, batch_stride, a.results,
                                             a.statuses, &ctx->opts.host);
            const sb_status released = view_release(ctx, &v);
            s = s != SB_OK ? s : released;
        }
    } else if (sb__rows_kernel_takes(ctx, n, count) &&
               !batch_is_small(ctx, n, count)) {
        s = reduce_by_one_launch(ctx, &cb, x, x_offset, mask, mask_offset, n,
                                 1, count, batch_stride, &a);
    } else if (rows_take_the_shortcut(ctx, n, batch_stride)) {
        s = reduce_rows_on_host(ctx, &cb, r, x, x_offset, mask, mask_offset,
                                n, count, batch_stride, &a);
    } else if (n > 0 && !sb__host_takes(ctx, n)) {
        row_ref *rows = count <= SIZE_MAX / sizeof *rows
                      ? sb__mem.malloc(count * sizeof *rows) : NULL;
        if (rows == NULL)
            s = sb__fail(SB_OUT_OF_MEMORY, "cannot allocate the list of %zu "
                         "rows", count);
        for (size_t b = 0; b < count && rows != NULL; b++)
            rows[b] = (row_ref){ row_offset(x_offset, b, batch_stride, n),
                                 row_offset(mask_offset, b, batch_stride, n),
                                 n, b };
        if (rows != NULL)
            s = reduce_rows_launched(ctx, &cb.c, r, x, mask, rows, count, &a);
        free(rows);
    } else {
        /* Rows sb_reduce() reduces on the host, far apart: each read
         * back on its own; and rows of no element. */
        for (size_t b = 0; b < count && s == SB_OK; b++)
            s = reduce_row(ctx, &cb.c, r, x,
                           row_offset(x_offset, b, batch_stride, n), mask,
                           row_offset(mask_offset, b, batch_stride, n), n,
                           &a, b);
    }
    if (s == SB_OK)
        s = answers_deliver(&a, count, rs, results, statuses);
    answers_free(&a);
    return s;
}

/* The strided enqueue form: reads the batch and the records back (after
 * the wait list), reduces on the host, and writes the records with one
 * blocking write, whose event is *done. */
static sb_status enqueue_strided(sb_context *ctx, const checked_batch *cb,
                                 sb_reduction r, cl_mem x, size_t x_offset,
                                 cl_mem mask, size_t mask_offset, size_t n,
                                 ptrdiff_t elem_stride, size_t count,
                                 ptrdiff_t batch_stride, cl_mem records,
                                 size_t records_offset, cl_uint num_wait,
                                 const cl_event *wait, cl_event *done)
{
    const size_t rs = cb->c.plan.result_size;
    const size_t rec_size = sb__record_size(&cb->c.plan);
    const size_t record_bytes = count * rec_size;
    batch_view v;
    sb_status s = view_batch(ctx, cb, x, x_offset, mask, mask_offset,
                             num_wait, wait, &v);
    SB_RETURN_IF(s != SB_OK, s);
    answers a = { NULL, NULL };
    unsigned char *rec = sb__mem.malloc(record_bytes);
    s = rec != NULL ? answers_new(&a, count, rs)
                    : sb__fail(SB_OUT_OF_MEMORY, "cannot allocate %zu "
                               "records", count);
    if (s != SB_OK) {
        free(rec);
        (void)view_release(ctx, &v);
        return s;
    }
    /* The records as they are: a value is written only where SB_OK. */
    cl_int err = SB_CL(clEnqueueReadBuffer)(cb->c.queue, records, CL_TRUE,
                                            records_offset, record_bytes,
                                            rec, num_wait,
                                            num_wait ? wait : NULL, NULL);
    if (err != CL_SUCCESS)
        s = sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the records)");
    if (s == SB_OK)
        s = sb__reduce_batched_host_opts(r, v.xs, v.ms, n, elem_stride, count,
                                         batch_stride, a.results, a.statuses,
                                         &ctx->opts.host);
    const sb_status released = view_release(ctx, &v);
    s = s != SB_OK ? s : released;
    cl_event ev = NULL;
    if (s == SB_OK) {
        for (size_t b = 0; b < count; b++)
            sb__record_write(&cb->c.plan, a.statuses[b], a.results + b * rs,
                             rec + b * rec_size);
        err = SB_CL(clEnqueueWriteBuffer)(cb->c.queue, records, CL_TRUE,
                                          records_offset, record_bytes, rec,
                                          0, NULL, &ev);
        if (err != CL_SUCCESS)
            s = sb__cl_fail(ctx, err, "clEnqueueWriteBuffer (the records)");
    }
    answers_free(&a);
    free(rec);
    SB_RETURN_IF(s != SB_OK, s);
    if (done != NULL)
        *done = ev;
    else
        SB_CL(clReleaseEvent)(ev);
    return SB_OK;
}

sb_status sb_reduce_batched_enqueue(sb_context *ctx, cl_command_queue queue,
                                    sb_reduction r, cl_mem x,
                                    size_t x_offset, cl_mem mask,
                                    size_t mask_offset, size_t n,
                                    ptrdiff_t elem_stride, size_t count,
                                    ptrdiff_t batch_stride, cl_mem results,
                                    size_t results_offset, cl_uint num_wait,
                                    const cl_event *wait, cl_event *done)
{
    sb__detail_clear();
    checked_batch cb;
    sb_status s = check_batch(ctx, queue, r, x, x_offset, mask, mask_offset,
                              n, elem_stride, count, batch_stride, &cb);
    SB_RETURN_IF(s != SB_OK, s);
    const size_t rec_size = sb__record_size(&cb.c.plan);
    SB_FAIL_IF(results == NULL, SB_INVALID_ARGUMENT, "results is NULL");
    SB_FAIL_IF(results_offset % 8 != 0, SB_INVALID_ARGUMENT,
               "results_offset = %zu is not a multiple of 8", results_offset);
    SB_FAIL_IF(count > SIZE_MAX / rec_size,
               SB_INVALID_ARGUMENT, "count = %zu records exceed the address "
               "space", count);
    s = sb__check_buffer(ctx, "results", results, results_offset / 8,
                         count * (rec_size / 8), 8,
                         sb__record_unit(&cb.c.plan));
    SB_RETURN_IF(s != SB_OK, s);
    SB_FAIL_IF(num_wait > 0 && wait == NULL, SB_INVALID_ARGUMENT,
               "wait is NULL while num_wait = %u", (unsigned)num_wait);
    SB_FAIL_IF(num_wait == 0 && wait != NULL, SB_INVALID_ARGUMENT,
               "wait is not NULL while num_wait = 0 (OpenCL's wait-list "
               "rule)");
    if (count == 0) {
        if (done != NULL)
            *done = NULL;
        return SB_OK;
    }
    if (sb__columns_kernel_takes(ctx, &cb.c.plan, mask != NULL, n,
                                 elem_stride, count, batch_stride)) {
        /* One launch writes every record, as for the rows below. */
        cl_event ev = NULL;
        s = sb__enqueue_columns(ctx, &cb.c, x, x_offset, n, elem_stride,
                                count, results, results_offset, num_wait,
                                wait, &ev);
        SB_RETURN_IF(s != SB_OK, s);
        sb__hand_over(cb.c.queue, ev, done);
        return SB_OK;
    }
    if (elem_stride != 1 && n > 1)
        return enqueue_strided(ctx, &cb, r, x, x_offset, mask, mask_offset,
                               n, elem_stride, count, batch_stride, results,
                               results_offset, num_wait, wait, done);
    if (sb__rows_kernel_takes(ctx, n, count)) {
        /* One launch writes every record: enqueued whole or not at all. */
        cl_event ev = NULL;
        s = sb__enqueue_rows(ctx, &cb.c, x, x_offset, mask, mask_offset, n,
                             count, batch_stride, results, results_offset,
                             num_wait, wait, &ev);
        SB_RETURN_IF(s != SB_OK, s);
        sb__hand_over(cb.c.queue, ev, done);
        return SB_OK;
    }
    /* The records go to a buffer of the call's own, which starts as a copy
     * of the caller's (a record's value bytes are left as they were where
     * its status is not SB_OK); one chain per row, each waiting for the
     * command before it (the first copy for the caller's wait list), and
     * one copy after the last row writes them all back into `results`. So
     * a failure part way leaves `results` untouched (the rows already
     * enqueued write only the call's buffer, which OpenCL frees when they
     * are done), and `done`, the last copy's event, completes after every
     * row on out-of-order queues too. */
    const size_t bytes = count * rec_size;
    cl_int err = CL_SUCCESS;
    cl_mem records = SB_CL(clCreateBuffer)(ctx->cl_ctx, CL_MEM_READ_WRITE,
                                           bytes, NULL, &err);
    SB_RETURN_IF(records == NULL,
                 sb__cl_fail(ctx, err, "clCreateBuffer (the records of a "
                             "batch)"));
    /* The first row waits for the caller's wait list as well as for the
     * first copy (which waits for it): a scratch buffer whose last use is
     * in that list is then free for it (sb__scratch_take()). */
    cl_event *first_wait = sb__mem.malloc((num_wait + 1) * sizeof *first_wait);
    if (first_wait == NULL) {
        SB_CL(clReleaseMemObject)(records);
        return sb__fail(SB_OUT_OF_MEMORY, "cannot allocate a wait list of "
                        "%u events", (unsigned)num_wait + 1);
    }
    if (num_wait > 0)
        memcpy(first_wait, wait, num_wait * sizeof *first_wait);
    cl_event prev = NULL;
    err = SB_CL(clEnqueueCopyBuffer)(cb.c.queue, results, records,
                                     results_offset, 0, bytes, num_wait, wait,
                                     &prev);
    if (err != CL_SUCCESS) {
        prev = NULL;
        s = sb__cl_fail(ctx, err, "clEnqueueCopyBuffer (the records of a "
                        "batch, in)");
    }
    for (size_t b = 0; b < count && s == SB_OK; b++) {
        cl_event ev = NULL;
        first_wait[num_wait] = prev;
        s = sb_reduce_enqueue(ctx, cb.c.queue, r, x,
                              row_offset(x_offset, b, batch_stride, n), mask,
                              row_offset(mask_offset, b, batch_stride, n), n,
                              records, b * rec_size,
                              b == 0 ? num_wait + 1 : 1,
                              b == 0 ? first_wait : &prev, &ev);
        SB_CL(clReleaseEvent)(prev);
        prev = s == SB_OK ? ev : NULL;
    }
    free(first_wait);
    cl_event copied = NULL;
    if (s == SB_OK) {
        err = SB_CL(clEnqueueCopyBuffer)(cb.c.queue, records, results, 0,
                                         results_offset, bytes, 1, &prev,
                                         &copied);
        if (err != CL_SUCCESS)
            s = sb__cl_fail(ctx, err, "clEnqueueCopyBuffer (the records of "
                            "a batch, out)");
    }
    if (s == SB_OK) {
        /* The rows' scratch buffers hold the last row's event as their
         * last use; `done` is the copy's: a later call that waits for
         * `done` may then reuse them at once. */
        sb__scratch_pass_on(ctx, prev, copied);
    }
    if (prev != NULL)
        SB_CL(clReleaseEvent)(prev);
    SB_CL(clReleaseMemObject)(records);
    SB_RETURN_IF(s != SB_OK, s);
    sb__hand_over(cb.c.queue, copied, done);
    return SB_OK;
}

/* Whether a map of the device's buffers is the buffer itself: a CPU
 * device whose memory is the host's (CL_DEVICE_HOST_UNIFIED_MEMORY: POCL,
 * rusticl on llvmpipe). Elsewhere (a GPU, a simulator) a map may copy. */
static bool maps_in_place(const sb_context *ctx)
{
    return !ctx->caps.is_gpu && ctx->caps.host_unified_memory;
}

/* How many elements a run of short segments maps at once. Where maps are
 * in place, every consecutive segment the host takes: each run costs a
 * map, an unmap and a start of the host fold's threads and its ragged
 * end, and in runs of 2^22 elements 134218 POCL segments of 1000 ran at
 * 25 GB/s against the host call's 37 on the same buffer (one run: 36;
 * 2-vCPU Zen 4 VM). Elsewhere 128 times host_max_n (2^22 by default), at
 * least SHORTCUT_CHUNK_ELEMENTS, bounds the copy. */
static size_t segment_run_elements(const sb_context *ctx)
{
    if (maps_in_place(ctx))
        return SIZE_MAX;
    const size_t hmn = ctx->opts.host_max_n;
    const size_t run = hmn > SIZE_MAX / 128 ? SIZE_MAX : hmn * 128;
    return run > SHORTCUT_CHUNK_ELEMENTS ? run : SHORTCUT_CHUNK_ELEMENTS;
}

/* Segments [b0, b1), each one sb_reduce() would take to the host (see
 * rows_take_the_shortcut()), mapped with one map and reduced by
 * sb_reduce_segments_host() into a. Where maps are in place the map
 * starts at x_offset and the offsets are passed as they are (the
 * elements before off[b0] are not read): millions of short segments need
 * no copy of their offsets. Elsewhere it starts at the run's first
 * element, with the offsets made relative to it, so that a copying map
 * copies the run alone. */
static sb_status reduce_segments_on_host(sb_context *ctx,
                                         const sb__checked_call *c,
                                         sb_reduction r, cl_mem x,
                                         size_t x_offset, cl_mem mask,
                                         size_t mask_offset,
                                         const uint64_t *off, size_t b0,
                                         size_t b1, answers *a)
{
    const size_t rs = c->plan.result_size;
    const size_t first = maps_in_place(ctx) ? 0 : (size_t)off[b0];
    uint64_t *rel = NULL;
    if (first != 0) {
        rel = sb__mem.malloc((b1 - b0 + 1) * sizeof *rel);
        SB_FAIL_IF(rel == NULL, SB_OUT_OF_MEMORY, "cannot allocate the "
                   "offsets of %zu segments", b1 - b0);
        for (size_t b = b0; b <= b1; b++)
            rel[b - b0] = off[b] - first;
    }
    /* The run as a batch of one row of its elements: checked, it fits. */
    const checked_batch run = { *c, 0, (size_t)off[b1] - first };
    batch_view v;
    sb_status s = view_batch(ctx, &run, x, x_offset + first, mask,
                             mask_offset + first, 0, NULL, &v);
    if (s == SB_OK) {
        s = sb__reduce_segments_host_opts(r, v.xs, v.ms,
                                          rel != NULL ? rel : off + b0,
                                          b1 - b0, a->results + b0 * rs,
                                          a->statuses + b0, &ctx->opts.host);
        const sb_status released = view_release(ctx, &v);
        s = s != SB_OK ? s : released;
    }
    free(rel);
    return s;
}

/* Where sb_reduce_segments() reduces each segment, by its length n:
 *   - in one launch of the segments kernel (segment_in_kernel()): lengths
 *     least .. most, a work-item per segment (or a register's lanes of
 *     them side by side); past SB_ROWS_ALWAYS_N only when there are
 *     SB_ROWS_MIN_COUNT or more such, as rows, since a few such items
 *     would leave cores idle. On a CPU device only those the host does
 *     not take (least past host_max_n): there the two measured the same
 *     and a map is the buffer itself. On a GPU (kernel_first), where a
 *     map copies over the bus, every length it can, once the call holds
 *     more than host_max_n elements in all;
 *   - else on the host, in runs (segment_on_host()), where sb_reduce()
 *     would take it there (sb__host_takes());
 *   - else a launch chain each. */
typedef struct {
    size_t least, most;   /* the kernel's lengths */
    bool kernel_first;    /* the kernel takes its lengths before the host */
    bool kernel_takes;    /* some segment is the kernel's */
    size_t first, end;    /* the kernel's segments lie in [first, end) */
    size_t launched;      /* how many take a launch chain */
} segments_plan;

static bool segment_in_kernel(const segments_plan *sp, uint64_t n)
{
    return n >= sp->least && n <= sp->most;
}

static bool segment_on_host(const sb_context *ctx, const segments_plan *sp,
                            uint64_t n)
{
    return sb__host_takes(ctx, n)
           && !(sp->kernel_first && segment_in_kernel(sp, n));
}

static segments_plan segments_plan_make(const sb_context *ctx,
                                        const uint64_t *off, size_t count)
{
    segments_plan sp = { 0, 0, false, false, 0, 0, 0 };
    sp.kernel_first = ctx->caps.is_gpu
                      && !sb__host_takes(ctx, off[count] - off[0]);
    const size_t kmost = sb__segments_kernel_most(ctx);
    size_t mediums = 0;
    for (size_t b = 0; b < count; b++) {
        const uint64_t n = off[b + 1] - off[b];
        mediums += (sp.kernel_first || !sb__host_takes(ctx, n))
                   && n > SB_ROWS_ALWAYS_N && n <= kmost;
    }
    sp.most = mediums >= SB_ROWS_MIN_COUNT ? kmost
            : kmost < SB_ROWS_ALWAYS_N ? kmost : SB_ROWS_ALWAYS_N;
    /* Beside the host's runs, the kernel takes what the host does not. */
    const size_t hmn = ctx->opts.host_max_n;
    sp.least = sp.kernel_first || (ctx->opts.flags & SB_OPT_NO_HOST) ? 0
             : hmn < SIZE_MAX ? hmn + 1 : SIZE_MAX;
    for (size_t b = 0; b < count; b++) {
        const uint64_t n = off[b + 1] - off[b];
        if (segment_on_host(ctx, &sp, n))
            continue;
        if (segment_in_kernel(&sp, n)) {
            if (!sp.kernel_takes)
                sp.first = b;
            sp.kernel_takes = true;
            sp.end = b + 1;
        } else {
            sp.launched++;
        }
    }
    return sp;
}

/* The segments that sp gives the kernel, by one launch over [sp->first,
 * sp->end) into records of a buffer of the call's own, read back with one
 * blocking read, into a (the others' answers in that range say empty
 * until their own paths answer): a few long segments among millions of
 * short ones on the host cost records for their range only. */
static sb_status reduce_segments_by_kernel(sb_context *ctx,
                                           const sb__checked_call *c,
                                           cl_mem x, size_t x_offset,
                                           cl_mem mask, size_t mask_offset,
                                           cl_mem offsets,
                                           size_t offsets_offset,
                                           const segments_plan *sp,
                                           answers *a)
{
    const size_t k = sp->end - sp->first;
    const size_t bytes = k * sb__record_size(&c->plan);
    unsigned char *rec;
    cl_mem buf;
    sb_status s = records_make(ctx, &c->plan, k, &rec, &buf);
    SB_RETURN_IF(s != SB_OK, s);
    cl_event ev = NULL;
    s = sb__enqueue_segments(ctx, c, x, x_offset, mask, mask_offset, offsets,
                             offsets_offset + sp->first, k, sp->least,
                             sp->most, buf, 0, 0, NULL, &ev);
    if (s == SB_OK) {
        const cl_int err = SB_CL(clEnqueueReadBuffer)(c->queue, buf, CL_TRUE,
                                                      0, bytes, rec, 1, &ev,
                                                      NULL);
        if (err != CL_SUCCESS)
            s = sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the records of "
                            "the segments)");
        SB_CL(clReleaseEvent)(ev);
    }
    SB_CL(clReleaseMemObject)(buf);
    if (s == SB_OK) {
        const size_t rs = c->plan.result_size;
        answers range = { a->results + sp->first * rs,
                          a->statuses + sp->first };
        records_answer(&c->plan, rec, k, NULL, &range);
    }
    free(rec);
    return s;
}

/* The offsets of a sb_reduce_segments() call in host memory: mapped
 * where maps are in place (6.5 million of them read into fresh memory
 * cost 27 ms of page faults), else read into memory of the call's own. */
typedef struct {
    uint64_t         *off;
    cl_command_queue  queue;
    cl_mem            mapped;   /* the buffer `off` maps, or NULL */
} offsets_view;

static sb_status offsets_get(sb_context *ctx, cl_command_queue queue,
                             cl_mem offsets, size_t offsets_offset,
                             size_t count, offsets_view *ov)
{
    const size_t at = offsets_offset * sizeof(uint64_t);
    const size_t bytes = (count + 1) * sizeof(uint64_t);
    cl_int err = CL_SUCCESS;
    *ov = (offsets_view){ NULL, queue, NULL };
    if (maps_in_place(ctx)) {
        ov->off = SB_CL(clEnqueueMapBuffer)(queue, offsets, CL_TRUE,
                                            CL_MAP_READ, at, bytes, 0, NULL,
                                            NULL, &err);
        SB_RETURN_IF(ov->off == NULL,
                     sb__cl_fail(ctx, err, "clEnqueueMapBuffer (the "
                                 "offsets)"));
        ov->mapped = offsets;
        return SB_OK;
    }
    ov->off = sb__mem.malloc(bytes);
    SB_FAIL_IF(ov->off == NULL, SB_OUT_OF_MEMORY, "cannot allocate a copy "
               "of %zu offsets", count + 1);
    err = SB_CL(clEnqueueReadBuffer)(queue, offsets, CL_TRUE, at, bytes,
                                     ov->off, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        free(ov->off);
        ov->off = NULL;
        return sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the offsets)");
    }
    return SB_OK;
}

/* Unmaps (and waits for it) or frees the offsets. */
static sb_status offsets_release(sb_context *ctx, offsets_view *ov)
{
    if (ov->mapped == NULL) {
        free(ov->off);
        ov->off = NULL;
        return SB_OK;
    }
    cl_event ev = NULL;
    cl_int err = SB_CL(clEnqueueUnmapMemObject)(ov->queue, ov->mapped,
                                                ov->off, 0, NULL, &ev);
    if (err == CL_SUCCESS) {
        err = SB_CL(clWaitForEvents)(1, &ev);
        SB_CL(clReleaseEvent)(ev);
    }
    ov->off = NULL;
    ov->mapped = NULL;
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "clEnqueueUnmapMemObject (the "
                             "offsets)"));
    return SB_OK;
}

sb_status sb_reduce_segments(sb_context *ctx, cl_command_queue queue,
                             sb_reduction r, cl_mem x, size_t x_offset,
                             cl_mem mask, size_t mask_offset, cl_mem offsets,
                             size_t offsets_offset, size_t count,
                             void *results, sb_status *statuses)
{
    sb__detail_clear();
    sb__checked_call c;
    sb_status s = sb__check_call(ctx, queue, r, x, x_offset, mask,
                                 mask_offset, 0, &c);
    SB_RETURN_IF(s != SB_OK, s);
    const size_t rs = c.plan.result_size;
    if (count == 0)
        return SB_OK;
    SB_FAIL_IF(results == NULL, SB_INVALID_ARGUMENT,
               "results is NULL while count = %zu", count);
    SB_FAIL_IF(statuses == NULL, SB_INVALID_ARGUMENT,
               "statuses is NULL while count = %zu", count);
    SB_FAIL_IF(offsets == NULL, SB_INVALID_ARGUMENT,
               "offsets is NULL while count = %zu", count);
    SB_FAIL_IF(count > SIZE_MAX / sizeof(uint64_t) - 1 ||
               count > SIZE_MAX / rs / sizeof(sb_status),
               SB_INVALID_ARGUMENT, "count = %zu segments exceed the address "
               "space", count);
    s = sb__check_buffer(ctx, "offsets", offsets, offsets_offset, count + 1,
                         sizeof(uint64_t), "uint64_t offsets");
    SB_RETURN_IF(s != SB_OK, s);

    offsets_view ov;
    s = offsets_get(ctx, c.queue, offsets, offsets_offset, count, &ov);
    SB_RETURN_IF(s != SB_OK, s);
    const uint64_t *off = ov.off;
    for (size_t b = 0; b < count; b++)
        if (off[b + 1] < off[b]) {
            s = sb__fail(SB_INVALID_ARGUMENT, "offsets decrease: offsets[%zu]"
                         " = %llu is less than offsets[%zu] = %llu", b + 1,
                         (unsigned long long)off[b + 1], b,
                         (unsigned long long)off[b]);
            break;
        }
    /* x and the mask must hold [offset + off[0], offset + off[count]). */
    const uint64_t first = off[0], end = off[count];
    if (s == SB_OK && (end > SIZE_MAX || x_offset > SIZE_MAX - end ||
                       (mask != NULL && mask_offset > SIZE_MAX - end)))
        s = sb__fail(SB_INVALID_ARGUMENT, "offsets[%zu] = %llu from "
                     "x_offset = %zu is past the address space", count,
                     (unsigned long long)end, x_offset);
    if (s == SB_OK)
        s = sb__check_call(ctx, queue, r, x, x_offset + (size_t)first, mask,
                           mask_offset + (size_t)first,
                           (size_t)(end - first), &c);
    /* Which segments go where (segments_plan()); the launched ones'
     * list, as long as there are such (millions of short segments need
     * none). */
    segments_plan sp = { 0 };
    if (s == SB_OK)
        sp = segments_plan_make(ctx, off, count);
    answers a = { NULL, NULL };
    if (s == SB_OK)
        s = answers_new(&a, count, rs);
    row_ref *launched = NULL;
    size_t k = 0;
    if (s == SB_OK && sp.launched > 0) {
        launched = sp.launched <= SIZE_MAX / sizeof *launched
                 ? sb__mem.malloc(sp.launched * sizeof *launched) : NULL;
        if (launched == NULL)
            s = sb__fail(SB_OUT_OF_MEMORY, "cannot allocate the list of %zu "
                         "long segments", sp.launched);
    }
    if (s == SB_OK && sp.kernel_takes)
        s = reduce_segments_by_kernel(ctx, &c, x, x_offset, mask,
                                      mask_offset, offsets, offsets_offset,
                                      &sp, &a);
    /* Runs of short segments by chunks on the host; the long ones on the
     * device, launched together at the end. */
    const size_t most = segment_run_elements(ctx);
    for (size_t b = 0; b < count && s == SB_OK;) {
        size_t b1 = b, run = 0;
        while (b1 < count && segment_on_host(ctx, &sp, off[b1 + 1] - off[b1])
               && (b1 == b || run + (off[b1 + 1] - off[b1])
                              <= most)) {
            run += (size_t)(off[b1 + 1] - off[b1]);
            b1++;
        }
        if (b1 > b) {
            s = reduce_segments_on_host(ctx, &c, r, x, x_offset, mask,
                                        mask_offset, off, b, b1, &a);
            b = b1;
        } else {
            const size_t n = (size_t)(off[b + 1] - off[b]);
            if (!segment_in_kernel(&sp, n))
                launched[k++] = (row_ref){ x_offset + (size_t)off[b],
                                           mask_offset + (size_t)off[b], n,
                                           b };
            b++;
        }
    }
    if (s == SB_OK)
        s = reduce_rows_launched(ctx, &c, r, x, mask, launched, k, &a);
    const sb_status released = offsets_release(ctx, &ov);
    s = s != SB_OK ? s : released;
    if (s == SB_OK)
        s = answers_deliver(&a, count, rs, results, statuses);
    answers_free(&a);
    free(launched);
    return s;
}
