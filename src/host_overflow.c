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
    const unsigned char *y;           /* a dot product's second factors */
    const unsigned char *mask;
    size_t               n;
    size_t               leaves;
    unsigned char       *converted;   /* a block in the accumulator type, on
                                         the heap: the walk recurses, and a
                                         caller's thread stack may be small */
    bool                 found;
} locator;

/* Element i as the fold reads it (none if it does not take part), and
 * whether its map or product overflowed. */
static sb__node element(const locator *c, size_t i, bool *overflow)
{
    sb__node e = { .has = c->mask == NULL || c->mask[i] != 0 };
    const size_t at = i * c->plan->input_size;
    if (!c->plan->prepared) {
        memcpy(e.v.bytes, c->x + at, c->plan->input_size);
        return e;
    }
    unsigned char taking_part = 0;
    const unsigned char *m = sb__prepare(c->plan, c->x + at,
                                         c->y ? c->y + at : NULL,
                                         c->mask ? c->mask + i : NULL, 1,
                                         e.v.bytes, &taking_part, overflow);
    e.has = m == NULL || m[0] != 0;
    return e;
}

/* The detail of an element whose map or product does not fit. */
static void report_element(locator *c, size_t i)
{
    const sb__plan *plan = c->plan;
    char step[64];
    if (plan->dot)
        snprintf(step, sizeof step, "x[%zu] * y[%zu]", i, i);
    else if (plan->map == SB_MAP_ABS)
        snprintf(step, sizeof step, "abs(x[%zu])", i);
    else
        snprintf(step, sizeof step, "x[%zu] * x[%zu]", i, i);
    c->found = true;
    sb__fail(SB_OVERFLOW, "the checked %s %s overflows at position %zu: %s "
             "does not fit %s", sb_type_name(plan->acc), sb_op_name(plan->op),
             i, step, sb_type_name(plan->acc));
}

/* A leaf's value before its first element: the start value of sum and
 * prod; none for min and max (walked only for an overflowing map), whose
 * first element starts the leaf. */
static sb__node start_value(const sb__plan *plan)
{
    sb__node v = { .has = plan->op == SB_SUM || plan->op == SB_PROD };
    if (plan->op == SB_PROD)
        switch (plan->acc) {
#define SB_ONE_CASE_(e, tag, ctype, f, s, cl) case e: v.v.tag = (ctype)1; break;
        SB_TYPE_LIST(SB_ONE_CASE_)
#undef SB_ONE_CASE_
        case SB_F16:     /* floats: never checked, never walked here */
        case SB_BF16:
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
        bool overflow = false;
        const sb__node e = element(c, i, &overflow);
        if (overflow) {
            report_element(c, i);
            break;
        }
        if (!e.has)
            continue;
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
        const size_t at = start * c->plan->input_size;
        const void *x = c->x + at;
        const unsigned char *mask = c->mask ? c->mask + start : NULL;
        bool overflow = false;
        if (c->plan->prepared) {
            mask = sb__prepare(c->plan, x, c->y ? c->y + at : NULL, mask,
                               count, c->converted,
                               c->converted + SB_BLOCK_SIZE * sizeof(double),
                               &overflow);
            x = c->converted;
        }
        sb__node node;
        c->kernel->block(x, mask, count, 0, &node, &overflow);
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
                               const void *y, const unsigned char *mask,
                               size_t n)
{
    locator c = {
        /* Any copy of the folds gives the same nodes: the baseline. */
        .plan = plan, .kernel = sb__host_kernel(plan, SB_ISA_BASELINE),
        .x = x, .y = y, .mask = mask,
        .n = n, .leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE,
    };
    size_t span = 1;
    while (span < c.leaves)
        span <<= 1;
    /* Without the buffer whole blocks are walked leaf by leaf: slower, the
     * same answer. */
    c.converted = sb__host_malloc(SB_BLOCK_SIZE * (sizeof(double) + 1));
    if (c.kernel != NULL)
        subtree(&c, 0, span);
    free(c.converted);
    if (!c.found)   /* cannot happen: the fast path saw an overflow */
        return sb__fail(SB_OVERFLOW, "the checked %s %s overflows in tree "
                        "order", sb_type_name(plan->acc), sb_op_name(plan->op));
    return SB_OVERFLOW;
}
