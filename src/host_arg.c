/* host_arg.c: the host kernels of argmin and argmax (docs/order.md:
 * "argmin / argmax").
 *
 * A node is a value and the position of the element it came from
 * (sb__node.where). Each leaf is folded left to right: its first
 * taking-part element starts it, and a later one replaces it only if
 * strictly smaller (argmin) or larger (argmax), so equal values keep the
 * lower position, and a NaN is never taken by a later comparison (a NaN
 * that starts a leaf stays its value). The leaves of a block are then
 * combined pairwise, left = lower positions, with none tracked explicitly:
 * combine(l, r) takes r only when l is none or r is strictly better. A
 * padding value in place of none could win a tie, so there is none.
 *
 * Plain scalar loops, one copy for every instruction set (the bits do not
 * depend on it): correctness first. A block node's `where` counts from the
 * block's first element; the engine adds the block's start. */
#include "host_engine.h"

#define L  SB_LEAF_SIZE
#define NL SB_BLOCK_LEAVES

/* BETTER(a, b): b replaces a (strictly smaller / larger; false for NaNs). */
#define BETTER_MIN(a, b) ((b) < (a))
#define BETTER_MAX(a, b) ((b) > (a))

#define DEFINE_ARG_KERNEL(tag, T, op, BETTER)                               \
static void tag##_##op##_block(const void *xv, const unsigned char *mask,  \
                               size_t count, size_t prefetch,              \
                               sb__node *out, bool *overflow)              \
{                                                                           \
    const T *x = xv;                                                        \
    T v[NL];                                                                \
    uint64_t w[NL];                                                         \
    bool has[NL];                                                           \
    const size_t leaves = (count + L - 1) / L;                              \
    (void)prefetch;                                                         \
    (void)overflow;                                                         \
    for (size_t l = 0; l < leaves; l++) {                                   \
        const size_t end = (l + 1) * L < count ? (l + 1) * L : count;       \
        has[l] = false;                                                     \
        v[l] = 0;                                                           \
        w[l] = 0;                                                           \
        for (size_t i = l * L; i < end; i++) {                              \
            if (mask != NULL && !mask[i])                                   \
                continue;                                                   \
            if (!has[l] || BETTER(v[l], x[i])) {                            \
                v[l] = x[i];                                                \
                w[l] = i;                                                   \
                has[l] = true;                                              \
            }                                                               \
        }                                                                   \
    }                                                                       \
    /* Pairwise, an odd last node moving up unchanged (= none padding). */  \
    size_t m = leaves;                                                      \
    while (m > 1) {                                                         \
        size_t up = 0;                                                      \
        for (size_t k = 0; k + 1 < m; k += 2, up++) {                       \
            const bool take = has[k + 1] &&                                 \
                              (!has[k] || BETTER(v[k], v[k + 1]));          \
            v[up] = take ? v[k + 1] : v[k];                                 \
            w[up] = take ? w[k + 1] : w[k];                                 \
            has[up] = has[k] || has[k + 1];                                 \
        }                                                                   \
        if (m % 2 == 1) {                                                   \
            v[up] = v[m - 1];                                               \
            w[up] = w[m - 1];                                               \
            has[up] = has[m - 1];                                           \
            up++;                                                           \
        }                                                                   \
        m = up;                                                             \
    }                                                                       \
    out->has = leaves > 0 && has[0];                                        \
    out->v.tag = leaves > 0 ? v[0] : 0;                                     \
    out->where = leaves > 0 ? w[0] : 0;                                     \
}                                                                           \
static void tag##_##op##_combine(sb__node *left, const sb__node *right,    \
                                 bool *overflow)                            \
{                                                                           \
    (void)overflow;                                                         \
    if (right->has && (!left->has || BETTER(left->v.tag, right->v.tag)))    \
        *left = *right;                                                     \
}                                                                           \
static const sb__kernel tag##_##op##_kernel = {                             \
    tag##_##op##_block, tag##_##op##_combine,                               \
    0   /* the scalar fold reads no prefetch distance */                    \
};

#define SB_ARG_INSTANCE_(e, tag, ctype, f, s, cl)                           \
    DEFINE_ARG_KERNEL(tag, ctype, argmin, BETTER_MIN)                       \
    DEFINE_ARG_KERNEL(tag, ctype, argmax, BETTER_MAX)
SB_TYPE_LIST(SB_ARG_INSTANCE_)
#undef SB_ARG_INSTANCE_

const sb__kernel *sb__host_kernel_arg(const sb__plan *plan)
{
    const bool min = plan->op == SB_ARGMIN;
    /* A half accumulator's elements are floats (host_half.h); picking one
     * is exact. */
    const sb_type acc = sb__type_is_half(plan->acc) ? SB_F32 : plan->acc;
    switch (acc) {
#define SB_ARG_CASE_(e, tag, ctype, f, s, cl)                               \
    case e: return min ? &tag##_argmin_kernel : &tag##_argmax_kernel;
    SB_TYPE_LIST(SB_ARG_CASE_)
#undef SB_ARG_CASE_
    default:
        break;
    }
    return NULL;
}
