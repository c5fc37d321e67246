/* device_partial.c: sb_partial_add(), a piece of a partial in a cl_mem.
 *
 * The piece is cut as sb_partial_add_host() cuts it (partial.h): loose
 * elements where a leaf is cut, then the largest aligned subtrees that
 * fit. Each aligned subtree of 16 * 2^k elements is the whole tree of
 * those elements as an array of its own, so the device reduces it with
 * sb_reduce() and its node enters the partial as it is. Subtrees the
 * context would reduce on the host anyway (n <= host_max_n, unless
 * SB_OPT_NO_HOST) and the loose elements lie at the two ends of the
 * piece; each such run is read back with one blocking read and appended
 * with sb_partial_add_host(). The partial is changed only when
 * everything succeeded. */
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "partial.h"

/* Reads elements [from, from + n) of x (and of mask) and appends them. */
static sb_status append_run(sb_context *ctx, const sb__checked_call *c,
                            sb_partial *p, cl_mem x, size_t from,
                            cl_mem mask, size_t mask_from, size_t n)
{
    if (n == 0)
        return SB_OK;
    const size_t size = c->plan.input_size, x_bytes = n * size;
    unsigned char *copy = sb__mem.malloc(x_bytes + (mask ? n : 0));
    SB_FAIL_IF(copy == NULL, SB_OUT_OF_MEMORY, "cannot allocate %zu bytes "
               "for a copy of the piece's ends", x_bytes + (mask ? n : 0));
    unsigned char *mask_copy = mask ? copy + x_bytes : NULL;
    cl_int err = SB_CL(clEnqueueReadBuffer)(c->queue, x, CL_TRUE, from * size,
                                            x_bytes, copy, 0, NULL, NULL);
    if (err == CL_SUCCESS && mask != NULL)
        err = SB_CL(clEnqueueReadBuffer)(c->queue, mask, CL_TRUE, mask_from,
                                         n, mask_copy, 0, NULL, NULL);
    const sb_status s = err != CL_SUCCESS
        ? sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the ends of a piece)")
        : sb_partial_add_host(p, copy, mask_copy, n);
    free(copy);
    return s;
}

/* The node of the aligned subtree x[from, from + count) on the device. */
static sb_status subtree_node(sb_context *ctx, const sb__checked_call *c,
                              cl_mem x, size_t from, cl_mem mask,
                              size_t mask_from, size_t count, sb__node *node,
                              bool *overflow)
{
    const sb_reduction r = sb__plan_reduction(&c->plan);
    memset(node, 0, sizeof *node);
    *overflow = false;
    const sb_status s = sb_reduce(ctx, c->queue, r, x, from, mask, mask_from,
                                  count, node->v.bytes);
    node->has = s == SB_OK || s == SB_OVERFLOW;
    if (s == SB_OVERFLOW)
        *overflow = true;
    return s == SB_EMPTY || s == SB_OVERFLOW ? SB_OK : s;
}

static sb_status add_truths(sb_context *ctx, const sb__checked_call *c,
                            sb_partial *p, cl_mem x, size_t x_offset,
                            cl_mem mask, size_t mask_offset, size_t n)
{
    if (n == 0)
        return SB_OK;
    unsigned char any = 0, all = 1;
    sb_reduction r_any = sb__plan_reduction(&c->plan);
    r_any.op = SB_ANY;
    sb_reduction r_all = r_any;
    r_all.op = SB_ALL;
    sb_status s = sb_reduce(ctx, c->queue, r_any, x, x_offset, mask,
                            mask_offset, n, &any);
    if (s == SB_OK)
        s = sb_reduce(ctx, c->queue, r_all, x, x_offset, mask, mask_offset,
                      n, &all);
    SB_RETURN_IF(s != SB_OK, s);
    sb__partial_add_truths(p, any != 0, all != 0, n);
    return SB_OK;
}

sb_status sb_partial_add(sb_context *ctx, cl_command_queue queue,
                         sb_partial *p, cl_mem x, size_t x_offset, cl_mem mask,
                         size_t mask_offset, size_t n)
{
    sb__detail_clear();
    sb__plan plan;
    uint64_t end;
    sb_status s = sb__partial_open(p, n, false, &plan, &end);
    SB_RETURN_IF(s != SB_OK, s);
    const sb_reduction r = sb__plan_reduction(&plan);
    sb__checked_call c;
    s = sb__check_call(ctx, queue, r, x, x_offset, mask, mask_offset, n, &c);
    SB_RETURN_IF(s != SB_OK, s);

    sb_partial work;
    memcpy(&work, p, sizeof work);
    if (plan.op == SB_ANY || plan.op == SB_ALL) {
        s = add_truths(ctx, &c, &work, x, x_offset, mask, mask_offset, n);
    } else {
        const size_t host_max = (ctx->opts.flags & SB_OPT_NO_HOST)
                              ? 0 : ctx->opts.host_max_n;
        size_t done = 0, run = 0;   /* run: host elements from done - run */
        while (s == SB_OK && done < n) {
            unsigned level = 0;
            const size_t count = sb__partial_next_piece(end, n - done, &level);
            if (count < 16 || count <= host_max) {
                run += count;
            } else {
                const size_t from = done - run;
                s = append_run(ctx, &c, &work, x, x_offset + from, mask,
                               mask_offset + from, run);
                run = 0;
                sb__node node;
                bool overflow = false;
                if (s == SB_OK)
                    s = subtree_node(ctx, &c, x, x_offset + done, mask,
                                     mask_offset + done, count, &node,
                                     &overflow);
                if (s == SB_OK)
                    sb__partial_push_subtree(&work, node, overflow, level, false);
            }
            end += count;
            done += count;
        }
        if (s == SB_OK)
            s = append_run(ctx, &c, &work, x, x_offset + done - run, mask,
                           mask_offset + done - run, run);
    }
    SB_RETURN_IF(s != SB_OK, s);
    memcpy(p, &work, sizeof work);
    sb__detail_clear();   /* an overflowed subtree left its detail */
    return SB_OK;
}
