/* device_reduce.c: sb_reduce() and sb_reduce_enqueue().
 *
 * A reduction is a chain of launches: the leaves pass (one node per
 * work-group, each an aligned subtree of wg * lpi leaves), then node passes
 * (aligned subtrees of twg * npi nodes) until one work-group is left; that
 * last launch writes the result record. Every launch waits for the one
 * before through its event, so the chain is correct on out-of-order queues
 * too. Arguments are checked completely before anything is enqueued. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include "device.h"

/* A failed query of a caller's handle: an invalid handle is the caller's
 * error, anything else (out of resources, of memory) the runtime's. */
static sb_status query_fail(sb_context *ctx, cl_int err, cl_int invalid,
                            const char *what)
{
    if (err == invalid)
        return sb__fail(SB_INVALID_ARGUMENT, "%s is not a valid OpenCL "
                        "handle (%s)", what, sb_cl_error_name(err));
    return sb__cl_fail(ctx, err, "clGetMemObjectInfo");
}

/* `buf` belongs to ctx and holds elements [offset, offset + n) of `elem`
 * bytes each. Written so that no product can overflow size_t. */
static sb_status check_buffer(sb_context *ctx, const char *what, cl_mem buf,
                              size_t offset, size_t n, size_t elem,
                              const char *unit)
{
    cl_context owner = NULL;
    size_t size = 0;
    cl_int err = SB_CL(clGetMemObjectInfo)(buf, CL_MEM_CONTEXT, sizeof owner,
                                           &owner, NULL);
    SB_RETURN_IF(err != CL_SUCCESS,
                 query_fail(ctx, err, CL_INVALID_MEM_OBJECT, what));
    SB_FAIL_IF(owner != ctx->cl_ctx, SB_INVALID_ARGUMENT,
               "%s belongs to another cl_context than the sb_context's", what);
    err = SB_CL(clGetMemObjectInfo)(buf, CL_MEM_SIZE, sizeof size, &size, NULL);
    SB_RETURN_IF(err != CL_SUCCESS,
                 query_fail(ctx, err, CL_INVALID_MEM_OBJECT, what));
    const size_t capacity = size / elem;
    SB_FAIL_IF(offset > capacity || n > capacity - offset, SB_INVALID_ARGUMENT,
               "%s holds %zu %s (%zu bytes): elements %zu + %zu from the "
               "offset go past its end", what, capacity, unit, size, offset, n);
    return SB_OK;
}

sb_status sb__check_buffer(sb_context *ctx, const char *what, cl_mem buf,
                           size_t offset, size_t n, size_t elem,
                           const char *unit)
{
    return check_buffer(ctx, what, buf, offset, n, elem, unit);
}

/* The checks of sb__check_call() and sb__check_dot_call() after the plan:
 * y is NULL unless the plan is a dot product's. */
static sb_status check_rest(sb_context *ctx, cl_command_queue queue,
                            cl_mem x, size_t x_offset, cl_mem y,
                            size_t y_offset, cl_mem mask, size_t mask_offset,
                            size_t n, sb__checked_call *out)
{
    if (queue == NULL) {
        queue = ctx->own_queue;
    } else {
        cl_context qctx = NULL;
        cl_device_id qdev = NULL;
        cl_int err = SB_CL(clGetCommandQueueInfo)(queue, CL_QUEUE_CONTEXT,
                                                  sizeof qctx, &qctx, NULL);
        if (err == CL_SUCCESS)
            err = SB_CL(clGetCommandQueueInfo)(queue, CL_QUEUE_DEVICE,
                                               sizeof qdev, &qdev, NULL);
        if (err == CL_INVALID_COMMAND_QUEUE)
            return sb__fail(SB_INVALID_ARGUMENT, "queue is not a valid "
                            "command queue (CL_INVALID_COMMAND_QUEUE)");
        SB_RETURN_IF(err != CL_SUCCESS,
                     sb__cl_fail(ctx, err, "clGetCommandQueueInfo"));
        SB_FAIL_IF(qctx != ctx->cl_ctx, SB_INVALID_ARGUMENT,
                   "queue belongs to another cl_context than the "
                   "sb_context's");
        SB_FAIL_IF(qdev != ctx->device, SB_INVALID_ARGUMENT,
                   "queue is for another device than the sb_context's");
    }
    out->queue = queue;
    SB_FAIL_IF(x == NULL && n > 0, SB_INVALID_ARGUMENT,
               "x is NULL while n = %zu", n);
    const char *in = sb_type_name(out->plan.input);
    char unit[16];
    snprintf(unit, sizeof unit, "%s elements", in);
    if (x != NULL) {
        const sb_status sx = check_buffer(ctx, "x", x, x_offset, n,
                                          out->plan.input_size, unit);
        SB_RETURN_IF(sx != SB_OK, sx);
    }
    if (out->plan.dot) {
        SB_FAIL_IF(y == NULL && n > 0, SB_INVALID_ARGUMENT,
                   "y is NULL while n = %zu", n);
        if (y != NULL) {
            const sb_status sy = check_buffer(ctx, "y", y, y_offset, n,
                                              out->plan.input_size, unit);
            SB_RETURN_IF(sy != SB_OK, sy);
        }
    }
    if (mask != NULL) {
        const sb_status sm = check_buffer(ctx, "mask", mask, mask_offset, n,
                                          1, "mask bytes");
        SB_RETURN_IF(sm != SB_OK, sm);
    }
    /* Every type has an exact way on every device (native, guarded or
     * software: cl/arith_float.cl) but a 64-bit type where there are no
     * 64-bit integers. f16 and bf16 are read as 16-bit integers and
     * computed in binary32 (cl/arith_half.cl), which every device has:
     * they count as f32 in the per-type tables, which end at f64. */
    const sb_type ti = sb__type_is_half(out->plan.input) ? SB_F32
                                                         : out->plan.input;
    /* A count accumulates in a u64 whatever the input (device_programs.c). */
    const sb_type ta = out->plan.op == SB_COUNT ? SB_U64
                     : sb__type_is_half(out->plan.acc) ? SB_F32
                                                       : out->plan.acc;
    const sb_type t = ctx->caps.type_status[ti] != SB_OK ? ti : ta;
    SB_FAIL_IF(ctx->caps.type_status[t] != SB_OK, SB_UNSUPPORTED,
               "%s on %s: %s (sb_device_report())", sb_type_name(t),
               ctx->caps.name, ctx->caps.type_reason[t]);
    return SB_OK;
}

size_t sb__record_size(const sb__plan *plan)
{
    return plan->arg ? sizeof(sb_device_arg_result) : sizeof(sb_device_result);
}

const char *sb__record_unit(const sb__plan *plan)
{
    return plan->arg ? "8-byte words; an sb_device_arg_result is 3"
                     : "8-byte words; an sb_device_result is 2";
}

/* The offsets of the record's status and (argmin / argmax) index. */
static size_t status_at(const sb__plan *plan)
{
    return plan->arg ? offsetof(sb_device_arg_result, status)
                     : offsetof(sb_device_result, status);
}

sb_status sb__record_status(const sb__plan *plan, const unsigned char *record)
{
    int32_t status;
    memcpy(&status, record + status_at(plan), sizeof status);
    return (sb_status)status;
}

void sb__record_value(const sb__plan *plan, const unsigned char *record,
                      void *result)
{
    if (!plan->arg) {
        memcpy(result, record, plan->result_size);
        return;
    }
    /* value and index where sb_arg_result has them; after the value's
     * bytes zeros, as the host forms write them */
    sb_arg_result a;
    memset(a.value, 0, sizeof a.value);
    memcpy(a.value, record, sb_type_size(plan->acc));
    memcpy(&a.index, record + offsetof(sb_device_arg_result, index),
           sizeof a.index);
    memcpy(result, &a, sizeof a);
}

void sb__record_write(const sb__plan *plan, sb_status status,
                      const void *result, unsigned char *record)
{
    const int32_t word = (int32_t)status;
    memcpy(record + status_at(plan), &word, sizeof word);
    if (status != SB_OK)
        return;
    if (!plan->arg) {
        memcpy(record, result, plan->result_size);
        return;
    }
    sb_arg_result a;           /* the value's bytes only, as the kernels */
    memcpy(&a, result, sizeof a);
    memcpy(record, a.value, sb_type_size(plan->acc));
    memcpy(record + offsetof(sb_device_arg_result, index), &a.index,
           sizeof a.index);
}

sb_status sb__record_read(const sb__plan *plan, const unsigned char *record,
                          void *result)
{
    const sb_status status = sb__record_status(plan, record);
    SB_FAIL_IF(status == SB_EMPTY, SB_EMPTY,
               "%s over no element: nothing takes part, so there is no value",
               sb_op_name(plan->op));
    SB_FAIL_IF(status == SB_OVERFLOW, SB_OVERFLOW,
               "the checked %s %s%s%s overflows in tree order on the device "
               "(it reports no position; %s on the same data names the node "
               "or element)", sb_type_name(plan->acc),
               plan->dot ? "dot product" : sb_op_name(plan->op),
               plan->map != SB_MAP_NONE ? " of " : "",
               plan->map != SB_MAP_NONE ? sb_map_name(plan->map) : "",
               plan->dot ? "sb_dot_host()" : "sb_reduce_host()");
    SB_FAIL_IF(status != SB_OK, SB_OPENCL_ERROR,
               "the device wrote status %d, which is no status", (int)status);
    sb__record_value(plan, record, result);
    return SB_OK;
}

sb_status sb__check_call(sb_context *ctx, cl_command_queue queue,
                         sb_reduction r, cl_mem x, size_t x_offset,
                         cl_mem mask, size_t mask_offset, size_t n,
                         sb__checked_call *out)
{
    SB_FAIL_IF(ctx == NULL, SB_INVALID_ARGUMENT, "ctx is NULL");
    const sb_status s = sb__plan_make(r, &out->plan);
    SB_RETURN_IF(s != SB_OK, s);
    return check_rest(ctx, queue, x, x_offset, NULL, 0, mask, mask_offset, n,
                      out);
}

sb_status sb__check_dot_call(sb_context *ctx, cl_command_queue queue,
                             sb_reduction r, cl_mem x, size_t x_offset,
                             cl_mem y, size_t y_offset, cl_mem mask,
                             size_t mask_offset, size_t n,
                             sb__checked_call *out)
{
    SB_FAIL_IF(ctx == NULL, SB_INVALID_ARGUMENT, "ctx is NULL");
    const sb_status s = sb__plan_make_dot(r, &out->plan);
    SB_RETURN_IF(s != SB_OK, s);
    return check_rest(ctx, queue, x, x_offset, y, y_offset, mask, mask_offset,
                      n, out);
}

static size_t div_up(size_t a, size_t b) { return a / b + (a % b != 0); }

/* Sets the arguments of one launch, in the order of cl/reduce.cl. */
#define ARG(i, v) SB_CL(clSetKernelArg)(k, (i), sizeof(v), &(v))

static cl_int launch(cl_command_queue q, cl_kernel k, size_t groups,
                     size_t wg, cl_uint num_wait, const cl_event *wait,
                     cl_event *done)
{
    const size_t global = groups * wg;
    return SB_CL(clEnqueueNDRangeKernel)(q, k, 1, NULL, &global, &wg,
                                         num_wait, num_wait ? wait : NULL, done);
}

/* Halves *wg (a power of two) until kernel k takes it: a kernel's own
 * limit (CL_KERNEL_WORK_GROUP_SIZE) may be below the device's, on a GPU
 * for a program that needs many registers or much per-thread memory
 * (software f64, positions, a deep counter). The shape never changes
 * the bits. */
static cl_int cap_group_size(const sb_context *ctx, cl_kernel k, size_t *wg)
{
    size_t most = 0;
    const cl_int err = SB_CL(clGetKernelWorkGroupInfo)(k, ctx->device,
                           CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most,
                           NULL);
    while (err == CL_SUCCESS && most > 0 && *wg > most)
        *wg /= 2;
    return err;
}

/* Enqueues the chain; ctx->lock held. On success *done is the event of the
 * last launch (owned by the caller). */
static sb_status enqueue_chain(sb_context *ctx, const sb__checked_call *c,
                               cl_mem x, size_t x_offset, cl_mem y,
                               size_t y_offset, cl_mem mask,
                               size_t mask_offset, size_t n, cl_mem res,
                               size_t res_offset, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    const sb_options *o = &ctx->opts;
    const size_t acc = sb__kernel_acc_size(&c->plan);   /* bytes per value */
    /* A node between passes: value, flags and (argmin / argmax) position. */
    const size_t node_bytes = acc + 4 + (c->plan.arg ? 8 : 0);
    const size_t local_positions = c->plan.arg ? 8 : 1;
    cl_kernel leaves_k, nodes_k;
    sb_status s = sb__kernel_get(ctx, &c->plan, SB_PASS_LEAVES, &leaves_k);
    SB_RETURN_IF(s != SB_OK, s);
    s = sb__kernel_get(ctx, &c->plan, SB_PASS_NODES, &nodes_k);
    SB_RETURN_IF(s != SB_OK, s);
    size_t wg = o->work_group_size, twg = o->tree_work_group_size;
    cl_int err = cap_group_size(ctx, leaves_k, &wg);
    if (err == CL_SUCCESS)
        err = cap_group_size(ctx, nodes_k, &twg);
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "clGetKernelWorkGroupInfo"));
    /* A pass over partials must shrink them (see the options' check). */
    const size_t npi_z = twg * o->nodes_per_item < 2 ? 2 : o->nodes_per_item;
    /* An emulated sub-group fits in the (capped) work-groups. */
    const cl_uint sg_req = o->subgroups == SB_SUBGROUPS_AUTO ? 0u
                         : o->subgroups == SB_SUBGROUPS_OFF ? 1u
                         : (cl_uint)o->emulated_subgroup_size;
    const cl_uint sg = sg_req > wg ? (cl_uint)wg : sg_req;
    const cl_uint tsg = sg_req > twg ? (cl_uint)twg : sg_req;
    const size_t leaves = div_up(n, SB_LEAF_SIZE);
    const cl_uint lpi = sb__spread_lpi(ctx, leaves, wg);
    size_t groups = leaves == 0 ? 1 : div_up(leaves, wg * lpi);

    /* Two scratch buffers, ping and pong, for the partials of alternate
     * passes: `cap` values, `cap` flags, and for argmin / argmax `cap`
     * positions (cap a multiple of 8, so the flags and the positions are
     * aligned). */
    int slot[2] = { -1, -1 };
    size_t cap[2] = { 0, 0 };
    {
        size_t count = groups, pass = 0;
        while (count > 1) {
            const size_t need = (count + 7) & ~(size_t)7;
            if (need > cap[pass & 1])
                cap[pass & 1] = need;
            count = div_up(count, twg * npi_z);
            pass++;
        }
    }
    for (int i = 0; i < 2; i++)
        if (cap[i] > 0 && (s = sb__scratch_take(ctx, cap[i] * node_bytes,
                                                num_wait, wait,
                                                &slot[i])) != SB_OK) {
            if (i == 1)
                sb__scratch_give(ctx, slot[0], NULL);
            return s;
        }

    const cl_ulong n64 = n, xo = x_offset, yo = y_offset, mo = mask_offset;
    const cl_ulong ro = res_offset;
    cl_uint final = groups == 1;
    cl_event ev = NULL;
    {
        cl_kernel k = leaves_k;
        cl_mem out = final ? res : ctx->scratch[slot[0]].buf;
        const cl_ulong out_cap = final ? 0 : cap[0];
        const cl_mem yy = c->plan.dot ? y : NULL;
        const cl_uint ahead = sb__device_prefetch_bytes(ctx);
        err = ARG(0, x);
        if (err == CL_SUCCESS) err = ARG(1, xo);
        if (err == CL_SUCCESS) err = ARG(2, yy);
        if (err == CL_SUCCESS) err = ARG(3, yo);
        if (err == CL_SUCCESS) err = ARG(4, mask);
        if (err == CL_SUCCESS) err = ARG(5, mo);
        if (err == CL_SUCCESS) err = ARG(6, n64);
        if (err == CL_SUCCESS) err = ARG(7, lpi);
        if (err == CL_SUCCESS) err = ARG(8, sg);
        if (err == CL_SUCCESS) err = SB_CL(clSetKernelArg)(k, 9, wg * acc, NULL);
        if (err == CL_SUCCESS) err = SB_CL(clSetKernelArg)(k, 10, wg * 4, NULL);
        if (err == CL_SUCCESS) err = ARG(11, out);
        if (err == CL_SUCCESS) err = ARG(12, out_cap);
        if (err == CL_SUCCESS) err = ARG(13, final);
        if (err == CL_SUCCESS) err = ARG(14, res);
        if (err == CL_SUCCESS) err = ARG(15, ro);
        if (err == CL_SUCCESS)   /* positions: wg unused bytes unless arg */
            err = SB_CL(clSetKernelArg)(k, 16, wg * local_positions, NULL);
        if (err == CL_SUCCESS) err = ARG(17, ahead);
        if (err == CL_SUCCESS)
            err = launch(c->queue, k, groups, wg, num_wait, wait, &ev);
    }
    for (int pass = 0; err == CL_SUCCESS && !final; pass++) {
        cl_kernel k = nodes_k;
        const size_t count = groups;
        groups = div_up(count, twg * npi_z);
        final = groups == 1;
        cl_mem in = ctx->scratch[slot[pass & 1]].buf;
        cl_mem out = final ? res : ctx->scratch[slot[(pass + 1) & 1]].buf;
        const cl_ulong in_cap = cap[pass & 1], cnt = count;
        const cl_ulong out_cap = final ? 0 : cap[(pass + 1) & 1];
        const cl_uint npi = (cl_uint)npi_z;
        err = ARG(0, in);
        if (err == CL_SUCCESS) err = ARG(1, in_cap);
        if (err == CL_SUCCESS) err = ARG(2, cnt);
        if (err == CL_SUCCESS) err = ARG(3, npi);
        if (err == CL_SUCCESS) err = ARG(4, tsg);
        if (err == CL_SUCCESS) err = SB_CL(clSetKernelArg)(k, 5, twg * acc, NULL);
        if (err == CL_SUCCESS) err = SB_CL(clSetKernelArg)(k, 6, twg * 4, NULL);
        if (err == CL_SUCCESS) err = ARG(7, out);
        if (err == CL_SUCCESS) err = ARG(8, out_cap);
        if (err == CL_SUCCESS) err = ARG(9, final);
        if (err == CL_SUCCESS) err = ARG(10, res);
        if (err == CL_SUCCESS) err = ARG(11, ro);
        if (err == CL_SUCCESS)
            err = SB_CL(clSetKernelArg)(k, 12, twg * local_positions, NULL);
        if (err == CL_SUCCESS) {
            cl_event next = NULL;
            err = launch(c->queue, k, groups, twg, 1, &ev, &next);
            if (err == CL_SUCCESS) {   /* else ev stays the last one enqueued */
                SB_CL(clReleaseEvent)(ev);
                ev = next;
            }
        }
    }
    /* ev: the last launch enqueued (NULL if none). On an error the
     * launches already enqueued still run, harmlessly (the record is
     * written only by the last one, which was not enqueued), and their
     * scratch buffers stay busy until they end. Nothing waits for them:
     * they may wait for events the caller completes later. */
    for (int i = 0; i < 2; i++)
        if (slot[i] >= 0)
            sb__scratch_give(ctx, slot[i], ev);
    if (err != CL_SUCCESS) {
        if (ev != NULL)
            SB_CL(clReleaseEvent)(ev);
        return sb__cl_fail(ctx, err, "setting up or enqueueing a launch "
                           "(clSetKernelArg, clEnqueueNDRangeKernel)");
    }
    *done = ev;
    return SB_OK;
}

/* The most leaves one work-item of the rows or segments kernel folds on
 * this device. */
static size_t item_most_leaves(const sb_context *ctx)
{
    /* A GPU wants its threads side by side in memory: one thread per long
     * row would read it alone. Its long rows take a launch chain each. */
    size_t most = ctx->caps.is_gpu ? SB_MAX_PER_ITEM
                                   : (size_t)1 << SB_ROWS_MAX_LEAVES_LOG2;
    /* Mesa's llvmpipe (gallivm) stops a work-item's loops, silently, once
     * they have run 65535 iterations in all (LP_MAX_TGSI_LOOP_ITERATIONS,
     * "shared between every loop" of a shader): rows of 65600 f32 came
     * back as the sums of their first part (Mesa 22.3, rusticl). A row's
     * item runs about n + n/8 iterations; 2^15 elements keep it well
     * inside, and longer rows take a launch chain each. */
    if (sb__contains_nocase(ctx->caps.name, "llvmpipe") &&
        most > SB_LLVMPIPE_ROW_LEAVES)
        most = SB_LLVMPIPE_ROW_LEAVES;
    return most;
}

bool sb__rows_kernel_takes(const sb_context *ctx, size_t n, size_t count)
{
    const size_t leaves = div_up(n, SB_LEAF_SIZE);
    /* A row is one work-item, so a few long rows would leave most cores
     * idle, where a launch chain per row spreads each row over all of
     * them (and costs a launch, small next to a long row). */
    const bool enough_rows = n <= SB_ROWS_ALWAYS_N || count >= SB_ROWS_MIN_COUNT;
    return n > 0 && leaves <= item_most_leaves(ctx) && enough_rows;
}

size_t sb__segments_kernel_most(const sb_context *ctx)
{
    return item_most_leaves(ctx) * SB_LEAF_SIZE;
}

/* The work-group size of a launch of `items` work-items of one reduction
 * each (sb_rows, sb_columns): up to work_group_size, but at least eight
 * groups where there are items enough, since a CPU device runs a group's
 * items one after another on one core; a power of two, so that a device
 * that compiles per work-group size sees few; and no larger than the
 * kernel's own limit (cap_group_size(): a counter 15 levels deep). */
static cl_int batch_group_size(const sb_context *ctx, cl_kernel k,
                               size_t items, size_t *wg_out)
{
    size_t wg = ctx->opts.work_group_size;
    const size_t least = ctx->caps.is_gpu ? 32 : 1;   /* a GPU's SIMD width */
    while (wg > least && items / wg < 8)
        wg /= 2;
    const cl_int err = cap_group_size(ctx, k, &wg);
    *wg_out = wg;
    return err;
}

sb_status sb__enqueue_rows(sb_context *ctx, const sb__checked_call *c,
                           cl_mem x, size_t x_offset, cl_mem mask,
                           size_t mask_offset, size_t n, size_t rows,
                           ptrdiff_t row_stride, cl_mem res, size_t res_offset,
                           cl_uint num_wait, const cl_event *wait,
                           cl_event *done)
{
    cl_kernel k;
    pthread_mutex_lock(&ctx->lock);
    sb_status s = sb__kernel_get(ctx, &c->plan, SB_PASS_ROWS, &k);
    if (s != SB_OK) {
        pthread_mutex_unlock(&ctx->lock);
        return s;
    }
    /* The row's leaves padded to a power of two: one item's subtree. */
    cl_uint lpi = 1;
    while (lpi < div_up(n, SB_LEAF_SIZE))
        lpi *= 2;
    /* Rows side by side where the program has the lanes (an unmasked
     * batch of enough rows), else one row per work-item. */
    const unsigned lanes = sb__row_lanes(ctx, &c->plan);
    const cl_uint per_item = lanes > 0 && mask == NULL && rows >= lanes
                             ? lanes : 1;
    const size_t items = div_up(rows, per_item);
    size_t wg;
    cl_int err = batch_group_size(ctx, k, items, &wg);
    const size_t groups = div_up(items, wg);
    const cl_ulong xo = x_offset, mo = mask_offset, n64 = n, r64 = rows;
    const cl_ulong ro = res_offset, rr = sb__record_size(&c->plan);
    const cl_long xr = (cl_long)row_stride, mr = (cl_long)row_stride;
    const cl_uint ahead = sb__device_prefetch_bytes(ctx);
    if (err == CL_SUCCESS) err = ARG(0, x);
    if (err == CL_SUCCESS) err = ARG(1, xo);
    if (err == CL_SUCCESS) err = ARG(2, xr);
    if (err == CL_SUCCESS) err = ARG(3, mask);
    if (err == CL_SUCCESS) err = ARG(4, mo);
    if (err == CL_SUCCESS) err = ARG(5, mr);
    if (err == CL_SUCCESS) err = ARG(6, n64);
    if (err == CL_SUCCESS) err = ARG(7, r64);
    if (err == CL_SUCCESS) err = ARG(8, lpi);
    if (err == CL_SUCCESS) err = ARG(9, per_item);
    if (err == CL_SUCCESS) err = ARG(10, res);
    if (err == CL_SUCCESS) err = ARG(11, ro);
    if (err == CL_SUCCESS) err = ARG(12, rr);
    if (err == CL_SUCCESS) err = ARG(13, ahead);
    if (err == CL_SUCCESS)
        err = launch(c->queue, k, groups, wg, num_wait, wait, done);
    pthread_mutex_unlock(&ctx->lock);
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "setting up or enqueueing the rows "
                             "kernel (clGetKernelWorkGroupInfo, "
                             "clSetKernelArg, clEnqueueNDRangeKernel)"));
    return SB_OK;
}

sb_status sb__enqueue_segments(sb_context *ctx, const sb__checked_call *c,
                               cl_mem x, size_t x_offset, cl_mem mask,
                               size_t mask_offset, cl_mem offsets,
                               size_t offsets_offset, size_t count,
                               size_t least_n, size_t most_n, cl_mem res,
                               size_t res_offset, cl_uint num_wait,
                               const cl_event *wait, cl_event *done)
{
    cl_kernel k;
    pthread_mutex_lock(&ctx->lock);
    sb_status s = sb__kernel_get(ctx, &c->plan, SB_PASS_SEGMENTS, &k);
    if (s != SB_OK) {
        pthread_mutex_unlock(&ctx->lock);
        return s;
    }
    /* Runs of segments of one length side by side where the program has
     * the lanes (unmasked), else one segment per work-item. */
    const unsigned lanes = sb__row_lanes(ctx, &c->plan);
    const cl_uint per_item = lanes > 0 && mask == NULL && count >= lanes
                             ? lanes : 1;
    const size_t items = div_up(count, per_item);
    size_t wg;
    cl_int err = batch_group_size(ctx, k, items, &wg);
    const size_t groups = div_up(items, wg);
    const cl_ulong xo = x_offset, mo = mask_offset, oo = offsets_offset;
    const cl_ulong c64 = count, least = least_n, most = most_n;
    const cl_ulong ro = res_offset;
    const cl_ulong rr = sb__record_size(&c->plan);
    const cl_uint ahead = sb__device_prefetch_bytes(ctx);
    if (err == CL_SUCCESS) err = ARG(0, x);
    if (err == CL_SUCCESS) err = ARG(1, xo);
    if (err == CL_SUCCESS) err = ARG(2, mask);
    if (err == CL_SUCCESS) err = ARG(3, mo);
    if (err == CL_SUCCESS) err = ARG(4, offsets);
    if (err == CL_SUCCESS) err = ARG(5, oo);
    if (err == CL_SUCCESS) err = ARG(6, c64);
    if (err == CL_SUCCESS) err = ARG(7, least);
    if (err == CL_SUCCESS) err = ARG(8, most);
    if (err == CL_SUCCESS) err = ARG(9, per_item);
    if (err == CL_SUCCESS) err = ARG(10, res);
    if (err == CL_SUCCESS) err = ARG(11, ro);
    if (err == CL_SUCCESS) err = ARG(12, rr);
    if (err == CL_SUCCESS) err = ARG(13, ahead);
    if (err == CL_SUCCESS)
        err = launch(c->queue, k, groups, wg, num_wait, wait, done);
    pthread_mutex_unlock(&ctx->lock);
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "setting up or enqueueing the "
                             "segments kernel (clGetKernelWorkGroupInfo, "
                             "clSetKernelArg, clEnqueueNDRangeKernel)"));
    return SB_OK;
}

bool sb__columns_kernel_takes(const sb_context *ctx, const sb__plan *plan,
                              bool masked, size_t n, ptrdiff_t elem_stride,
                              size_t count, ptrdiff_t batch_stride)
{
    const unsigned lanes = sb__column_lanes(ctx, plan);
    return lanes > 0 && !masked && batch_stride == 1 && elem_stride != 1
           && n > 1 && div_up(n, SB_LEAF_SIZE)
                       <= (size_t)1 << SB_ROWS_MAX_LEAVES_LOG2
           && count >= lanes;
}

/* The work-group size of the columns kernel: a group's items read each
 * row's blocks side by side (cl/reduce.cl), so a wider group streams
 * longer runs of a row; as wide as 256 items while a CPU device keeps a
 * group per core (a GPU one group at least), a power of two, within the
 * device's and the kernel's limits. On POCL (f32 sums, 2-vCPU Zen 3 VM,
 * over its read kernel): 1000 columns of 134218 at 0.39 in the rows
 * kernel's groups of 4, 0.68 in 2 groups of 32, 0.52 in 1 of 64;
 * 134218 columns of 1000 at 0.57 in groups of 16, 0.62 of 32 or 64,
 * 0.70 of 256. On a GPU, at most sb_options.work_group_size (256 unless
 * the caller chose fewer): a CPU device's default there (16) is the 1-D
 * kernel's, which the columns measured slower with. */
static cl_int columns_group_size(const sb_context *ctx, cl_kernel k,
                                 size_t items, size_t *wg_out)
{
    size_t wg = 256;
    if (ctx->caps.is_gpu && ctx->opts.work_group_size < wg)
        wg = ctx->opts.work_group_size;
    while (wg > ctx->caps.max_work_group_size)
        wg /= 2;
    long cores = ctx->caps.is_gpu ? 1 : sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1)
        cores = 1;
    const size_t least = ctx->caps.is_gpu ? 32 : 1;
    while (wg > least && div_up(items, wg) < (size_t)cores)
        wg /= 2;
    const cl_int err = cap_group_size(ctx, k, &wg);
    *wg_out = wg;
    return err;
}

sb_status sb__enqueue_columns(sb_context *ctx, const sb__checked_call *c,
                              cl_mem x, size_t x_offset, size_t n,
                              ptrdiff_t elem_stride, size_t columns,
                              cl_mem res, size_t res_offset,
                              cl_uint num_wait, const cl_event *wait,
                              cl_event *done)
{
    cl_kernel k;
    pthread_mutex_lock(&ctx->lock);
    sb_status s = sb__kernel_get(ctx, &c->plan, SB_PASS_COLUMNS, &k);
    if (s != SB_OK) {
        pthread_mutex_unlock(&ctx->lock);
        return s;
    }
    const cl_uint per_item = sb__column_lanes(ctx, &c->plan);
    const size_t items = div_up(columns, per_item);
    size_t wg;
    cl_int err = columns_group_size(ctx, k, items, &wg);
    const size_t groups = div_up(items, wg);
    const cl_ulong xo = x_offset, n64 = n, c64 = columns;
    const cl_ulong ro = res_offset, rr = sb__record_size(&c->plan);
    const cl_long step = (cl_long)elem_stride;
    if (err == CL_SUCCESS) err = ARG(0, x);
    if (err == CL_SUCCESS) err = ARG(1, xo);
    if (err == CL_SUCCESS) err = ARG(2, step);
    if (err == CL_SUCCESS) err = ARG(3, n64);
    if (err == CL_SUCCESS) err = ARG(4, c64);
    if (err == CL_SUCCESS) err = ARG(5, per_item);
    if (err == CL_SUCCESS) err = ARG(6, res);
    if (err == CL_SUCCESS) err = ARG(7, ro);
    if (err == CL_SUCCESS) err = ARG(8, rr);
    if (err == CL_SUCCESS)
        err = launch(c->queue, k, groups, wg, num_wait, wait, done);
    pthread_mutex_unlock(&ctx->lock);
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "setting up or enqueueing the "
                             "columns kernel (clGetKernelWorkGroupInfo, "
                             "clSetKernelArg, clEnqueueNDRangeKernel)"));
    return SB_OK;
}

void sb__hand_over(cl_command_queue queue, cl_event ev, cl_event *done)
{
    /* A failed flush changes nothing that a wait on `done` (which
     * flushes) will not do. */
    (void)SB_CL(clFlush)(queue);
    if (done != NULL)
        *done = ev;
    else
        SB_CL(clReleaseEvent)(ev);
}

/* sb_reduce_enqueue() and sb_dot_enqueue() after the checks of x, y and
 * the mask. */
static sb_status enqueue_checked(sb_context *ctx, const sb__checked_call *cc,
                                 cl_mem x, size_t x_offset, cl_mem y,
                                 size_t y_offset, cl_mem mask,
                                 size_t mask_offset, size_t n, cl_mem result,
                                 size_t result_offset, cl_uint num_wait,
                                 const cl_event *wait, cl_event *done)
{
    const sb__checked_call c = *cc;
    sb_status s;
    SB_FAIL_IF(result == NULL, SB_INVALID_ARGUMENT, "result is NULL");
    SB_FAIL_IF(result_offset % 8 != 0, SB_INVALID_ARGUMENT,
               "result_offset = %zu is not a multiple of 8", result_offset);
    s = check_buffer(ctx, "result", result, result_offset / 8,
                     sb__record_size(&c.plan) / 8, 8, sb__record_unit(&c.plan));
    SB_RETURN_IF(s != SB_OK, s);
    SB_FAIL_IF(num_wait > 0 && wait == NULL, SB_INVALID_ARGUMENT,
               "wait is NULL while num_wait = %u", (unsigned)num_wait);
    SB_FAIL_IF(num_wait == 0 && wait != NULL, SB_INVALID_ARGUMENT,
               "wait is not NULL while num_wait = 0 (OpenCL's wait-list "
               "rule)");

    cl_event ev = NULL;
    pthread_mutex_lock(&ctx->lock);
    s = enqueue_chain(ctx, &c, x, x_offset, y, y_offset, mask, mask_offset,
                      n, result, result_offset, num_wait, wait, &ev);
    pthread_mutex_unlock(&ctx->lock);
    SB_RETURN_IF(s != SB_OK, s);
    sb__hand_over(c.queue, ev, done);
    return SB_OK;
}

sb_status sb_reduce_enqueue(sb_context *ctx, cl_command_queue queue,
                            sb_reduction r, cl_mem x, size_t x_offset,
                            cl_mem mask, size_t mask_offset, size_t n,
                            cl_mem result, size_t result_offset,
                            cl_uint num_wait, const cl_event *wait,
                            cl_event *done)
{
    sb__detail_clear();
    sb__checked_call c;
    sb_status s = sb__check_call(ctx, queue, r, x, x_offset, mask,
                                 mask_offset, n, &c);
    SB_RETURN_IF(s != SB_OK, s);
    return enqueue_checked(ctx, &c, x, x_offset, NULL, 0, mask, mask_offset,
                           n, result, result_offset, num_wait, wait, done);
}

sb_status sb_dot_enqueue(sb_context *ctx, cl_command_queue queue,
                         sb_reduction r, cl_mem x, size_t x_offset, cl_mem y,
                         size_t y_offset, cl_mem mask, size_t mask_offset,
                         size_t n, cl_mem result, size_t result_offset,
                         cl_uint num_wait, const cl_event *wait,
                         cl_event *done)
{
    sb__detail_clear();
    sb__checked_call c;
    const sb_status s = sb__check_dot_call(ctx, queue, r, x, x_offset, y,
                                           y_offset, mask, mask_offset, n, &c);
    SB_RETURN_IF(s != SB_OK, s);
    return enqueue_checked(ctx, &c, x, x_offset, y, y_offset, mask,
                           mask_offset, n, result, result_offset, num_wait,
                           wait, done);
}

/* Small inputs: read the range back and use the host path (no launch).
 * One blocking read per buffer is the cheapest way to see a cl_mem's
 * contents: a map costs the same round trip and then an unmap, which the
 * caller's next command would wait behind (measured on POCL: 33 us against
 * 36 us; `samebits bench` part 2 shows the round trip next to it). Tiny
 * ranges land on the stack; larger ones in one heap block. */
enum { HOST_SHORTCUT_STACK_BYTES = 2048 };

static sb_status reduce_on_host(sb_context *ctx, const sb__checked_call *c,
                                sb_reduction r, cl_mem x, size_t x_offset,
                                cl_mem y, size_t y_offset, cl_mem mask,
                                size_t mask_offset, size_t n, void *result)
{
    const bool dot = c->plan.dot;
    if (n == 0)
        return dot ? sb_dot_host(r, NULL, NULL, NULL, 0, result)
                   : sb_reduce_host_opts(r, NULL, NULL, 0, result,
                                         &ctx->opts.host);
    const size_t size = c->plan.input_size;
    const size_t x_bytes = n * size, y_bytes = dot ? x_bytes : 0;
    const size_t bytes = x_bytes + y_bytes + (mask ? n : 0);
    _Alignas(16) unsigned char stack[HOST_SHORTCUT_STACK_BYTES];
    unsigned char *copy = bytes <= sizeof stack ? stack : sb__mem.malloc(bytes);
    SB_FAIL_IF(copy == NULL, SB_OUT_OF_MEMORY,
               "cannot allocate %zu bytes for the host shortcut's copy", bytes);
    unsigned char *y_copy = dot ? copy + x_bytes : NULL;
    unsigned char *mask_copy = mask ? copy + x_bytes + y_bytes : NULL;
    /* Every read blocks: a pending read into memory freed on an error path
     * is the bug to avoid, and the caller's queue may be out of order. */
    cl_int err = SB_CL(clEnqueueReadBuffer)(c->queue, x, CL_TRUE,
                                            x_offset * size, x_bytes, copy,
                                            0, NULL, NULL);
    if (err == CL_SUCCESS && dot)
        err = SB_CL(clEnqueueReadBuffer)(c->queue, y, CL_TRUE, y_offset * size,
                                         y_bytes, y_copy, 0, NULL, NULL);
    if (err == CL_SUCCESS && mask != NULL)
        err = SB_CL(clEnqueueReadBuffer)(c->queue, mask, CL_TRUE, mask_offset,
                                         n, mask_copy, 0, NULL, NULL);
    sb_status s;
    if (err != CL_SUCCESS)
        s = sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the host shortcut's "
                        "copy of a small input)");
    else if (dot)   /* the bits do not depend on the host options */
        s = sb_dot_host(r, copy, y_copy, mask_copy, n, result);
    else
        s = sb_reduce_host_opts(r, copy, mask_copy, n, result,
                                &ctx->opts.host);
    if (copy != stack)
        free(copy);
    return s;
}

/* sb_reduce() and sb_dot() after the checks of x, y and the mask. */
static sb_status reduce_checked(sb_context *ctx, const sb__checked_call *cc,
                                sb_reduction r, cl_mem x, size_t x_offset,
                                cl_mem y, size_t y_offset, cl_mem mask,
                                size_t mask_offset, size_t n, void *result)
{
    const sb__checked_call c = *cc;
    sb_status s;
    SB_FAIL_IF(result == NULL, SB_INVALID_ARGUMENT, "result is NULL");
    if (sb__host_takes(ctx, n))
        return reduce_on_host(ctx, &c, r, x, x_offset, y, y_offset, mask,
                              mask_offset, n, result);

    int slot = -1;
    cl_event ev = NULL;
    const size_t record_size = sb__record_size(&c.plan);
    pthread_mutex_lock(&ctx->lock);
    s = sb__scratch_take(ctx, record_size, 0, NULL, &slot);
    if (s == SB_OK) {
        s = enqueue_chain(ctx, &c, x, x_offset, y, y_offset, mask,
                          mask_offset, n, ctx->scratch[slot].buf, 0, 0, NULL,
                          &ev);
        if (s != SB_OK)
            sb__scratch_give(ctx, slot, NULL);
    }
    cl_mem record_buf = s == SB_OK ? ctx->scratch[slot].buf : NULL;
    pthread_mutex_unlock(&ctx->lock);
    SB_RETURN_IF(s != SB_OK, s);

    /* The slot stays busy (ours) until the record is read back. */
    _Alignas(8) unsigned char record[sizeof(sb_device_arg_result)];
    const cl_int err = SB_CL(clEnqueueReadBuffer)(c.queue, record_buf, CL_TRUE,
                                                  0, record_size, record,
                                                  1, &ev, NULL);
    /* If the read was not enqueued, the chain may still be writing the
     * record: the slot is free only once it is done. */
    pthread_mutex_lock(&ctx->lock);
    sb__scratch_give(ctx, slot, err == CL_SUCCESS ? NULL : ev);
    pthread_mutex_unlock(&ctx->lock);
    SB_CL(clReleaseEvent)(ev);
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the result)"));
    return sb__record_read(&c.plan, record, result);
}

sb_status sb__reduce_checked(sb_context *ctx, const sb__checked_call *c,
                             sb_reduction r, cl_mem x, size_t x_offset,
                             cl_mem mask, size_t mask_offset, size_t n,
                             void *result)
{
    return reduce_checked(ctx, c, r, x, x_offset, NULL, 0, mask, mask_offset,
                          n, result);
}

sb_status sb_reduce(sb_context *ctx, cl_command_queue queue, sb_reduction r,
                    cl_mem x, size_t x_offset, cl_mem mask,
                    size_t mask_offset, size_t n, void *result)
{
    sb__detail_clear();
    sb__checked_call c;
    const sb_status s = sb__check_call(ctx, queue, r, x, x_offset, mask,
                                       mask_offset, n, &c);
    SB_RETURN_IF(s != SB_OK, s);
    return reduce_checked(ctx, &c, r, x, x_offset, NULL, 0, mask, mask_offset,
                          n, result);
}

sb_status sb_dot(sb_context *ctx, cl_command_queue queue, sb_reduction r,
                 cl_mem x, size_t x_offset, cl_mem y, size_t y_offset,
                 cl_mem mask, size_t mask_offset, size_t n, void *result)
{
    sb__detail_clear();
    sb__checked_call c;
    const sb_status s = sb__check_dot_call(ctx, queue, r, x, x_offset, y,
                                           y_offset, mask, mask_offset, n, &c);
    SB_RETURN_IF(s != SB_OK, s);
    return reduce_checked(ctx, &c, r, x, x_offset, y, y_offset, mask,
                          mask_offset, n, result);
}
