/* device_arg.c: SB_ARGMIN and SB_ARGMAX on a device, from the kernels of
 * SB_MIN and SB_MAX (no kernel of their own yet).
 *
 * The answer is the value the fold and the tree carried to the root and
 * that element's position (docs/order.md). Every aligned subtree is the
 * reduction of its own elements, so the tree can be walked down from the
 * root: a node's two children are reductions of their ranges, on the
 * device, and combine() says which one the node took. The right child
 * only when it has a value and the left has none, or its value is
 * strictly smaller (argmin; larger for argmax) than the left's: IEEE
 * comparison, so a NaN never replaces and a NaN on the left is kept.
 * That ends at one leaf, whose at most 16 elements are read back and
 * folded by sb_reduce_host() with the op itself (the leaf fold's rule for
 * NaNs and ties, and the position inside the leaf).
 *
 * Cost: the root's min or max, then two reductions per level, each over
 * half the leaves of the level before: about three passes over the data
 * and 2 log2(n / 16) + 1 reductions. A kernel whose nodes carry positions
 * would take one pass; the bits are the same either way. */
#include <math.h>
#include <string.h>
#include "device.h"
#include "host_half.h"

enum { LEAF = 16 };

/* An accumulator value as a double, exactly, for the float types (f32,
 * f64 and the halves' bits); a NaN stays a NaN. */
static double float_value(sb_type t, const unsigned char *v)
{
    switch (t) {
    case SB_F32: { float f; memcpy(&f, v, 4); return f; }
    case SB_F16: { uint16_t h; memcpy(&h, v, 2); return sb__f16_to_float(h); }
    case SB_BF16: { uint16_t h; memcpy(&h, v, 2); return sb__bf16_to_float(h); }
    default: { double d; memcpy(&d, v, 8); return d; }
    }
}

/* An integer accumulator value, sign-extended or zero-extended. */
static int64_t signed_value(sb_type t, const unsigned char *v)
{
    switch (t) {
    case SB_I8:  { int8_t a;  memcpy(&a, v, 1); return a; }
    case SB_I16: { int16_t a; memcpy(&a, v, 2); return a; }
    case SB_I32: { int32_t a; memcpy(&a, v, 4); return a; }
    default:     { int64_t a; memcpy(&a, v, 8); return a; }
    }
}

static uint64_t unsigned_value(sb_type t, const unsigned char *v)
{
    switch (t) {
    case SB_U8:  { uint8_t a;  memcpy(&a, v, 1); return a; }
    case SB_U16: { uint16_t a; memcpy(&a, v, 2); return a; }
    case SB_U32: { uint32_t a; memcpy(&a, v, 4); return a; }
    default:     { uint64_t a; memcpy(&a, v, 8); return a; }
    }
}

/* combine(l, r) of docs/order.md for min / max: whether r replaces l. */
static bool replaces(const sb__plan *p, const unsigned char *r,
                     const unsigned char *l)
{
    const bool min = p->op == SB_ARGMIN;
    if (sb__type_is_float(p->acc)) {
        const double a = float_value(p->acc, r), b = float_value(p->acc, l);
        return min ? a < b : a > b;          /* false when either is NaN */
    }
    if (sb__type_is_signed(p->acc)) {
        const int64_t a = signed_value(p->acc, r), b = signed_value(p->acc, l);
        return min ? a < b : a > b;
    }
    const uint64_t a = unsigned_value(p->acc, r), b = unsigned_value(p->acc, l);
    return min ? a < b : a > b;
}

/* The min / max of elements [first, first + count): its value into v (the
 * accumulator's bytes), SB_OK or SB_EMPTY (a range where nothing takes
 * part: none), or a failure. */
static sb_status node(sb_context *ctx, const sb__checked_call *c,
                      sb_reduction rv, cl_mem x, size_t x_offset,
                      cl_mem mask, size_t mask_offset, size_t first,
                      size_t count, unsigned char *v)
{
    return sb__reduce_checked(ctx, c, rv, x, x_offset + first,
                              mask, mask_offset + first, count, v);
}

sb_status sb__device_arg(sb_context *ctx, const sb__checked_call *cc,
                         sb_reduction r, cl_mem x, size_t x_offset,
                         cl_mem mask, size_t mask_offset, size_t n,
                         void *result)
{
    SB_FAIL_IF(result == NULL, SB_INVALID_ARGUMENT, "result is NULL");
    /* The min / max of the same elements: the kernels that walk the tree. */
    sb_reduction rv = r;
    rv.op = r.op == SB_ARGMIN ? SB_MIN : SB_MAX;
    sb__checked_call c = *cc;
    sb_status s = sb__plan_make(rv, &c.plan);
    SB_RETURN_IF(s != SB_OK, s);
    unsigned char root[8], left[8], right[8];
    s = node(ctx, &c, rv, x, x_offset, mask, mask_offset, 0, n, root);
    SB_RETURN_IF(s != SB_OK, s);       /* empty, overflow or a failure */

    /* Down the tree of ceil(n / 16) leaves padded with none to a power of
     * two: [lo, lo + span) is the node, in leaves. */
    const size_t leaves = n / LEAF + (n % LEAF != 0);
    size_t span = 1;
    while (span < leaves)
        span *= 2;
    size_t lo = 0;
    while (span > 1) {
        const size_t half = span / 2;
        span = half;
        if (lo + half >= leaves)
            continue;                  /* the right child is none */
        /* The left child is whole leaves; the right one ends at n. */
        const size_t mid = (lo + half) * LEAF;
        const size_t end = (lo + 2 * half) * LEAF < n ? (lo + 2 * half) * LEAF
                                                      : n;
        const sb_status sl = node(ctx, &c, rv, x, x_offset, mask, mask_offset,
                                  lo * LEAF, mid - lo * LEAF, left);
        SB_RETURN_IF(sl != SB_OK && sl != SB_EMPTY, sl);
        const sb_status sr = node(ctx, &c, rv, x, x_offset, mask, mask_offset,
                                  mid, end - mid, right);
        SB_RETURN_IF(sr != SB_OK && sr != SB_EMPTY, sr);
        if (sr == SB_OK && (sl == SB_EMPTY || replaces(&cc->plan, right, left)))
            lo += half;
    }

    /* The leaf: its elements (and mask bytes) read back, folded on the
     * host with the op itself. */
    const size_t first = lo * LEAF;
    const size_t count = n - first < LEAF ? n - first : LEAF;
    const size_t size = c.plan.input_size;
    unsigned char elems[LEAF * 8], bytes[LEAF];
    cl_int err = SB_CL(clEnqueueReadBuffer)(c.queue, x, CL_TRUE,
                                            (x_offset + first) * size,
                                            count * size, elems, 0, NULL,
                                            NULL);
    if (err == CL_SUCCESS && mask != NULL)
        err = SB_CL(clEnqueueReadBuffer)(c.queue, mask, CL_TRUE,
                                         mask_offset + first, count, bytes,
                                         0, NULL, NULL);
    SB_RETURN_IF(err != CL_SUCCESS,
                 sb__cl_fail(ctx, err, "clEnqueueReadBuffer (the leaf of "
                             "an argmin / argmax)"));
    sb_arg_result arg;
    s = sb_reduce_host(r, elems, mask != NULL ? bytes : NULL, count, &arg);
    SB_RETURN_IF(s != SB_OK, s);
    /* The leaf's value is the root's, or the device computed something
     * else than the host would (then no position is right). */
    SB_FAIL_IF(memcmp(arg.value, root, sb_type_size(c.plan.acc)) != 0,
               SB_OPENCL_ERROR, "%s on the device: the root's value and the "
               "value of the leaf it came from differ (a wrong min/max "
               "kernel?)", sb_op_name(r.op));
    arg.index += first;
    memcpy(result, &arg, sizeof arg);
    sb__detail_clear();               /* the children's SB_EMPTY details */
    return SB_OK;
}
