/* host_overflow.c: where a checked integer reduction overflowed, for the
 * error detail of SB_OVERFLOW.
 *
 * The fast path only knows that some step overflowed. This walks the same
 * tree again on the calling thread, leftmost subtree first, and stops at
 * the first node whose step does not fit: a leaf (at the element whose
 * step overflows) or a combination of two subtrees. Whole aligned blocks
 * go through the block kernel first and are descended into only when they
 * overflow inside, so the walk costs about one more pass over the data,
 * and only on this error path. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host_engine.h"

typedef struct {
    const sb__plan      *plan;
    const sb__kernel    *kernel;
    const unsigned char *x;
    const unsigned char *mask;
    size_t               n;
    size_t               leaves;
    unsigned char       *converted;   /* a block in the accumulator type, on
                                         the heap: the walk recurses, and a
                                         caller's thread stack may be small */
    bool                 found;
} locator;

static sb__node element(const locator *c, size_t i)
{
    sb__node e = { .has = true };
    const void *src = c->x + i * c->plan->input_size;
    if (c->plan->acc == c->plan->input)
        memcpy(e.v.bytes, src, c->plan->input_size);
    else
        sb__convert(c->plan->input, c->plan->acc, src, e.v.bytes, 1);
    return e;
}

static sb__node start_value(const sb__plan *plan)
{
    sb__node v = { .has = true };
    if (plan->op == SB_PROD)
        switch (plan->acc) {
#define SB_ONE_CASE_(e, tag, ctype, f, s, cl) case e: v.v.tag = (ctype)1; break;
        SB_TYPE_LIST(SB_ONE_CASE_)
#undef SB_ONE_CASE_
        case SB_SAME_AS_INPUT:
            break;
        }
    return v;
}

static void report(locator *c, const char *where)
{
    c->found = true;
    sb__fail(SB_OVERFLOW, "the checked %s %s overflows %s: a step's exact "
             "value does not fit %s", sb_type_name(c->plan->acc),
             sb_op_name(c->plan->op), where, sb_type_name(c->plan->acc));
}

static sb__node leaf(locator *c, size_t j)
{
    sb__node v = start_value(c->plan);
    bool took = false;
    const size_t first = j * SB_LEAF_SIZE;
    const size_t end = c->n - first < SB_LEAF_SIZE ? c->n : first + SB_LEAF_SIZE;
    for (size_t i = first; i < end; i++) {
        if (c->mask != NULL && !c->mask[i])
            continue;
        const sb__node e = element(c, i);
        bool overflow = false;
        c->kernel->combine(&v, &e, &overflow);
        took = true;
        if (overflow) {
            char where[160];
            snprintf(where, sizeof where, "at position %zu, in the leaf of "
                     "positions %zu..%zu", i, first, end - 1);
            report(c, where);
            break;
        }
    }
    v.has = took;
    return v;
}

/* The node of leaves [first, first + span), span a power of two. */
static sb__node subtree(locator *c, size_t first, size_t span)
{
    sb__node none = { .has = false };
    if (first >= c->leaves)
        return none;
    if (span == 1)
        return leaf(c, first);
    if (span == SB_BLOCK_LEAVES && c->converted != NULL) {
        const size_t start = first * SB_LEAF_SIZE;
        const size_t count = c->n - start < SB_BLOCK_SIZE ? c->n - start
                                                          : SB_BLOCK_SIZE;
        const void *x = c->x + start * c->plan->input_size;
        if (c->plan->acc != c->plan->input) {
            sb__convert(c->plan->input, c->plan->acc, x, c->converted, count);
            x = c->converted;
        }
        sb__node node;
        bool overflow = false;
        c->kernel->block(x, c->mask ? c->mask + start : NULL, count, &node,
                         &overflow);
        if (!overflow)
            return node;
    }
    sb__node left = subtree(c, first, span / 2);
    if (c->found)
        return left;
    const sb__node right = subtree(c, first + span / 2, span / 2);
    if (c->found)
        return left;
    bool overflow = false;
    c->kernel->combine(&left, &right, &overflow);
    if (overflow) {
        const size_t last = (first + span) * SB_LEAF_SIZE;
        char where[160];
        snprintf(where, sizeof where, "in the node of positions %zu..%zu",
                 first * SB_LEAF_SIZE, (last < c->n ? last : c->n) - 1);
        report(c, where);
    }
    return left;
}

sb_status sb__overflow_explain(const sb__plan *plan, const void *x,
                               const unsigned char *mask, size_t n)
{
    locator c = {
        /* Any copy of the folds gives the same nodes: the baseline. */
        .plan = plan, .kernel = sb__host_kernel(plan, SB_ISA_BASELINE),
        .x = x, .mask = mask,
        .n = n, .leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE,
    };
    size_t span = 1;
    while (span < c.leaves)
        span <<= 1;
    /* Without the buffer whole blocks are walked leaf by leaf: slower, the
     * same answer. */
    c.converted = malloc(SB_BLOCK_SIZE * sizeof(double));
    if (c.kernel != NULL)
        subtree(&c, 0, span);
    free(c.converted);
    if (!c.found)   /* cannot happen: the fast path saw an overflow */
        return sb__fail(SB_OVERFLOW, "the checked %s %s overflows in tree "
                        "order", sb_type_name(plan->acc), sb_op_name(plan->op));
    return SB_OVERFLOW;
}
