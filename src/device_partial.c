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
 * everything succeeded. sb_partial_add_dot() is the same for dot terms:
 * y read beside x, subtrees by sb_dot(), runs by
 * sb_partial_add_dot_host(). */
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "host_half.h"
#include "partial.h"

/* Where a piece's elements are: x, and for a dot product y, from the
 * same element on (each buffer at its own offset), and the mask. */
typedef struct {
    cl_mem x, y, mask;
    size_t x_offset, y_offset, mask_offset;
} piece_source;

/* Reads elements [from, from + n) of the piece (x, y and mask) and
 * appends them. */
static sb_status append_run(sb_context *ctx, const sb__checked_call *c,
                            sb_partial *p, const piece_source *src,
                            size_t from, size_t n)
{
    if (n == 0)
        return SB_OK;
    const bool dot = c->plan.dot;
    const size_t size = c->plan.input_size, x_bytes = n * size;
    const size_t y_bytes = dot ? x_bytes : 0;
    const size_t bytes = x_bytes + y_bytes + (src->mask ? n : 0);
    unsigned char *copy = sb__mem.malloc(bytes);
    SB_FAIL_IF(copy == NULL, SB_OUT_OF_MEMORY, "cannot allocate %zu bytes "
               "for a copy of the piece's ends", bytes);
    unsigned char *y_copy = dot ? copy + x_bytes : NULL;
    unsigned char *mask_copy = src->mask ? copy + x_bytes + y_bytes : NULL;
    cl_int err = SB_CL(clEnqueueReadBuffer)(c->queue, src->x, CL_TRUE,
                                            (src->x_offset + from) * size,
                                            x_bytes, copy, 0, NULL, NULL);
    if (err == CL_SUCCESS && dot)
        err = SB_CL(clEnqueueReadBuffer)(c->queue, src->y, CL_TRUE,
                                         (src->y_offset + from) * size,
                                         y_bytes, y_copy, 0, NULL, NULL);
    if (err == CL_SUCCESS && src->mask != NULL)
        err = SB_CL(clEnqueueReadBuffer)(c->queue, src->mask, CL_TRUE,
                                         src->mask_offset + from, n,
                                         mask_copy, 0, NULL, NULL);
    sb_status s;
    if (err != CL_SUCCESS)
        s = sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the ends of a piece)");
    else if (dot)
        s = sb_partial_add_dot_host(p, copy, y_copy, mask_copy, n);
    else
        s = sb_partial_add_host(p, copy, mask_copy, n);
    free(copy);
    return s;
}

/* The node of the aligned subtree [from, from + count) of the piece on
 * the device; for argmin / argmax with the position of its value, counted
 * from the subtree's first element. */
static sb_status subtree_node(sb_context *ctx, const sb__checked_call *c,
                              const piece_source *src, size_t from,
                              size_t count, sb__node *node, bool *overflow)
{
    const sb_reduction r = sb__plan_reduction(&c->plan);
    memset(node, 0, sizeof *node);
    *overflow = false;
    cl_mem mask = src->mask;
    const size_t mask_from = src->mask_offset + from;
    sb_arg_result arg;              /* room for any result */
    memset(&arg, 0, sizeof arg);
    const sb_status s = c->plan.dot
        ? sb_dot(ctx, c->queue, r, src->x, src->x_offset + from, src->y,
                 src->y_offset + from, mask, mask_from, count, &arg)
        : sb_reduce(ctx, c->queue, r, src->x, src->x_offset + from, mask,
                    mask_from, count, &arg);
    memcpy(node->v.bytes, arg.value, sizeof node->v.bytes);
    if (c->plan.arg)
        node->where = arg.index;
    node->has = s == SB_OK || s == SB_OVERFLOW;
    if (s == SB_OK && sb__type_is_half(c->plan.acc)) {
        /* The result is the half type's 2 bytes; a host node holds the
         * value as a float (host_half.h): exact, a NaN stays a NaN. */
        uint16_t h;
        memcpy(&h, node->v.bytes, sizeof h);
        node->v.f32 = c->plan.acc == SB_F16 ? sb__f16_to_float(h)
                                            : sb__bf16_to_float(h);
    }
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

/* Cuts the piece at the global leaf positions of p's end and appends
 * it: device subtrees and host runs, into a copy of *p kept only when all
 * of it succeeded. */
static sb_status add_piece(sb_context *ctx, const sb__checked_call *c,
                           sb_partial *p, uint64_t end,
                           const piece_source *src, size_t n)
{
    sb_partial work;
    memcpy(&work, p, sizeof work);
    sb_status s = SB_OK;
    const size_t host_max = (ctx->opts.flags & SB_OPT_NO_HOST)
                          ? 0 : ctx->opts.host_max_n;
    size_t done = 0, run = 0;   /* run: host elements from done - run */
    while (s == SB_OK && done < n) {
        unsigned level = 0;
        const size_t count = sb__partial_next_piece(end, n - done, &level);
        if (count < 16 || count <= host_max) {
            run += count;
        } else {
            s = append_run(ctx, c, &work, src, done - run, run);
            run = 0;
            sb__node node;
            bool overflow = false;
            if (s == SB_OK)
                s = subtree_node(ctx, c, src, done, count, &node, &overflow);
            if (s == SB_OK)
                sb__partial_push_subtree(&work, node, overflow, level,
                                         c->plan.dot);
        }
        end += count;
        done += count;
    }
    if (s == SB_OK)
        s = append_run(ctx, c, &work, src, done - run, run);
    SB_RETURN_IF(s != SB_OK, s);
    memcpy(p, &work, sizeof work);
    sb__detail_clear();   /* an overflowed subtree left its detail */
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
    if (plan.op == SB_ANY || plan.op == SB_ALL) {
        sb_partial work;
        memcpy(&work, p, sizeof work);
        s = add_truths(ctx, &c, &work, x, x_offset, mask, mask_offset, n);
        SB_RETURN_IF(s != SB_OK, s);
        memcpy(p, &work, sizeof work);
        sb__detail_clear();
        return SB_OK;
    }
    if (plan.op == SB_COUNT) {   /* order-free: one count of the piece */
        uint64_t count = 0;
        if (n > 0)
            s = sb_reduce(ctx, c.queue, r, x, x_offset, mask, mask_offset, n,
                          &count);
        SB_RETURN_IF(s != SB_OK, s);
        sb__partial_add_count(p, count, n);
        return SB_OK;
    }
    const piece_source src = { x, NULL, mask, x_offset, 0, mask_offset };
    return add_piece(ctx, &c, p, end, &src, n);
}

sb_status sb_partial_add_dot(sb_context *ctx, cl_command_queue queue,
                             sb_partial *p, cl_mem x, size_t x_offset,
                             cl_mem y, size_t y_offset, cl_mem mask,
                             size_t mask_offset, size_t n)
{
    sb__detail_clear();
    sb__plan plan;
    uint64_t end;
    sb_status s = sb__partial_open(p, n, true, &plan, &end);
    SB_RETURN_IF(s != SB_OK, s);
    sb__checked_call c;
    s = sb__check_dot_call(ctx, queue, sb__plan_reduction(&plan), x, x_offset,
                           y, y_offset, mask, mask_offset, n, &c);
    SB_RETURN_IF(s != SB_OK, s);
    const piece_source src = { x, y, mask, x_offset, y_offset, mask_offset };
    return add_piece(ctx, &c, p, end, &src, n);
}
