/* host_partial.c: sb_partial, the state of docs/order.md's tree over one
 * range [begin, end) of a longer array ("Pieces of one array").
 *
 * The state, all derived from the elements (so equal ranges of equal
 * data give equal bytes):
 *   - head: when `begin` is inside a leaf, that leaf's elements from
 *     `begin` up to its end or to `end`. The leaf began before the range,
 *     so it cannot be folded here: its elements are kept, at their slot
 *     (position % 16), with their taking-part bytes (the mask, and NaN
 *     skipping), as the fold reads them: in the accumulator, mapped or
 *     multiplied (host_prepare.c), 0 where they do not take part;
 *   - nodes: the maximal aligned subtrees of whole leaves inside the
 *     range, in position order, each (level, index, value): a binary
 *     counter whose entries are never siblings;
 *   - tail: when `end` is inside a leaf that began inside the range, that
 *     leaf's elements so far (kept, not folded, so that a merge continues
 *     it exactly and a finished leaf is folded by the block kernel);
 *   - the overflow flag: a checked step that overflowed in any node this
 *     state holds, which is a node of the final tree;
 *   - a failure (sb_partial_fail()): a status, where it came from and why;
 *     a failed state absorbs whatever it merges with, so that one failing
 *     piece of a collective fails it on every rank (samebits_mpi).
 * argmin / argmax nodes carry the global position of their value
 * (node_where); head and tail elements have theirs from their slot.
 * Any and all are order-free: their state is the two running truths;
 * count's is the running count.
 * A partial holds one kind of element once it holds any: the input's
 * elements or a dot product's terms. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "host_engine.h"
#include "partial.h"

#define PARTIAL_MAGIC   UINT64_C(0x0004747261706273)   /* "sbpart", v4 */
#define DETAIL_BYTES    240
#define PARTIAL_NODES   128
#define POSITION_LIMIT  (UINT64_C(1) << 63)

typedef struct {
    uint64_t     magic;
    int32_t      op, input, acc;
    uint32_t     wrap;
    int32_t      map;
    uint8_t      skip_nan;
    uint8_t      kind;               /* KIND_*: what it holds */
    uint8_t      unused0[2];
    uint64_t     begin, end;
    uint8_t      overflow;
    uint8_t      any, all;           /* any / all: the running truths */
    uint8_t      unused[3];
    uint16_t     top;                /* nodes in use */
    uint8_t      head_mask[16], tail_mask[16];
    int32_t      failed;             /* 0, or the sb_status of a failure */
    int32_t      origin;             /* sb_partial_fail()'s origin */
    char         detail[DETAIL_BYTES]; /* why, NUL-terminated */
    uint64_t     count;              /* count: taking-part elements so far */
    uint64_t     head[16], tail[16]; /* fold elements at slot pos % 16 */
    /* The nodes, entry i of each array (arrays, not an array of structs:
     * 128 nodes of 32 bytes would not fit SB_PARTIAL_BYTES): */
    uint64_t     node_index[PARTIAL_NODES]; /* the subtree's index among
                                               those of its level */
    uint64_t     node_value[PARTIAL_NODES]; /* the accumulator's bytes */
    uint64_t     node_where[PARTIAL_NODES]; /* argmin / argmax: the
                                               value's position; else 0 */
    uint8_t      node_level[PARTIAL_NODES]; /* 2^level leaves */
    uint8_t      node_has[PARTIAL_NODES];   /* 0: none */
} partial_state;

enum { KIND_NONE = 0, KIND_ELEMENTS = 1, KIND_DOT = 2 };

_Static_assert(sizeof(partial_state) <= sizeof(sb_partial),
               "the state fits SB_PARTIAL_BYTES");

static void load(const sb_partial *p, partial_state *s)
{
    memcpy(s, p, sizeof *s);
}

/* Unused bytes zero (entries above `top` too), so that equal states are
 * equal bytes. Once a checked step overflowed, the nodes' values mean
 * nothing (finish reports the overflow, never a value) and depend on
 * where the piece was reduced (the device reports an overflowed node
 * without its value): they are stored as zero, with their positions. */
static void store(sb_partial *p, const partial_state *s)
{
    memset(p, 0, sizeof *p);
    memcpy(p, s, sizeof *s);
    partial_state *t = (partial_state *)p;
    for (unsigned i = 0; i < PARTIAL_NODES; i++) {
        if (i >= t->top) {
            t->node_index[i] = 0;
            t->node_level[i] = 0;
            t->node_has[i] = 0;
        }
        if (i >= t->top || t->overflow) {
            t->node_value[i] = 0;
            t->node_where[i] = 0;
        }
    }
}

static bool plan_of(const partial_state *s, sb__plan *plan)
{
    const sb_reduction r = {
        .op = (sb_op)s->op, .input = (sb_type)s->input,
        .accumulator = (sb_type)s->acc, .map = (sb_map)s->map,
        .flags = (s->wrap ? SB_WRAP : 0u) | (s->skip_nan ? SB_SKIP_NAN : 0u),
    };
    if (s->kind == KIND_DOT)
        return sb__plan_make_dot(r, plan) == SB_OK;
    return s->kind <= KIND_DOT && sb__plan_make(r, plan) == SB_OK;
}

static bool is_boolean(const sb__plan *plan)
{
    return plan->op == SB_ANY || plan->op == SB_ALL;
}

/* ---- nodes ------------------------------------------------------------- */

static sb__node node_of(const partial_state *s, unsigned i)
{
    sb__node n;
    memcpy(n.v.bytes, &s->node_value[i], 8);
    n.has = s->node_has[i] != 0;
    n.where = s->node_where[i];
    return n;
}

/* The binary counter: node (level, index) enters after everything before
 * it and combines with its left sibling while that is on top. */
static void push(partial_state *s, const sb__plan *plan, const sb__kernel *k,
                 sb__node node, unsigned level, uint64_t index)
{
    bool overflow = false;
    while (s->top > 0) {
        const unsigned t = s->top - 1u;
        if (s->node_level[t] != level || (index & 1) == 0 ||
            s->node_index[t] != index - 1)
            break;
        sb__node left = node_of(s, t);
        k->combine(&left, &node, &overflow);
        node = left;
        s->top--;
        level++;
        index >>= 1;
    }
    const unsigned e = s->top++;
    s->node_value[e] = 0;
    memcpy(&s->node_value[e], node.v.bytes, 8);
    s->node_has[e] = node.has;
    s->node_where[e] = plan->arg && node.has ? node.where : 0;
    s->node_level[e] = (uint8_t)level;
    s->node_index[e] = index;
    s->overflow |= overflow;
}

/* The leaf of positions [leaf_start, leaf_start + count) from its
 * slots. */
static sb__node fold_leaf(const sb__plan *plan, const sb__kernel *k,
                          const uint64_t *slots, const uint8_t *mask,
                          unsigned count, uint64_t leaf_start, bool *overflow)
{
    unsigned char acc[16 * 8];
    const size_t size = plan->fold_size;
    for (unsigned i = 0; i < count; i++)
        memcpy(acc + i * size, &slots[i], size);
    sb__node node;
    k->block(acc, mask, count, 0, &node, overflow);
    if (plan->arg)
        node.where += leaf_start;
    return node;
}

/* ---- entry points ------------------------------------------------------ */

sb_status sb_partial_init(sb_partial *p, sb_reduction r, uint64_t begin)
{
    sb__detail_clear();
    SB_FAIL_IF(p == NULL, SB_INVALID_ARGUMENT, "p is NULL");
    sb__plan plan;
    const sb_status s = sb__plan_make(r, &plan);
    SB_RETURN_IF(s != SB_OK, s);
    SB_FAIL_IF(begin >= POSITION_LIMIT, SB_INVALID_ARGUMENT,
               "begin = %llu is not below 2^63", (unsigned long long)begin);
    partial_state st;
    memset(&st, 0, sizeof st);
    st.magic = PARTIAL_MAGIC;
    st.op = plan.op;
    st.input = plan.input;
    st.acc = plan.acc;
    st.wrap = plan.wrap;
    st.map = plan.map;
    st.skip_nan = plan.skip_nan;
    st.begin = st.end = begin;
    st.all = 1;
    store(p, &st);
    return SB_OK;
}

/* The checks every call on an existing partial makes. */
static sb_status open_state(const sb_partial *p, const char *name,
                            partial_state *s, sb__plan *plan)
{
    SB_FAIL_IF(p == NULL, SB_INVALID_ARGUMENT, "%s is NULL", name);
    load(p, s);
    SB_FAIL_IF(s->magic != PARTIAL_MAGIC, SB_INVALID_ARGUMENT,
               "%s is not an sb_partial of this format version (made by "
               "sb_partial_init of samebits %s?)", name, sb_version_string());
    SB_FAIL_IF(s->failed == 0 && (!plan_of(s, plan) ||
               s->top > PARTIAL_NODES || s->begin > s->end ||
               s->end >= POSITION_LIMIT),
               SB_INVALID_ARGUMENT, "%s is damaged", name);
    s->detail[DETAIL_BYTES - 1] = '\0';
    return SB_OK;
}

/* The failure a failed state carries, with its detail. */
static sb_status failure_of(const partial_state *s)
{
    return sb__fail((sb_status)s->failed, "%s", s->detail);
}

static bool is_failure_status(sb_status s)
{
    return s == SB_INVALID_ARGUMENT || s == SB_UNSUPPORTED ||
           s == SB_OUT_OF_MEMORY || s == SB_OPENCL_ERROR ||
           s == SB_BUILD_ERROR;
}

sb_status sb_partial_fail(sb_partial *p, sb_status status, int origin,
                          const char *detail)
{
    SB_FAIL_IF(p == NULL, SB_INVALID_ARGUMENT, "p is NULL");
    SB_FAIL_IF(!is_failure_status(status), SB_INVALID_ARGUMENT,
               "status %d is not a failure (SB_INVALID_ARGUMENT, "
               "SB_UNSUPPORTED, SB_OUT_OF_MEMORY, SB_OPENCL_ERROR or "
               "SB_BUILD_ERROR)", (int)status);
    partial_state s;
    memset(&s, 0, sizeof s);
    s.magic = PARTIAL_MAGIC;
    s.failed = (int32_t)status;
    s.origin = origin;
    snprintf(s.detail, sizeof s.detail, "%s",
             detail != NULL ? detail : sb_status_string(status));
    store(p, &s);
    sb__detail_clear();
    return SB_OK;
}

/* The tail now holds the whole leaf at leaf_start: its node enters the
 * counter and the tail is empty again. */
static void close_tail_leaf(partial_state *s, const sb__plan *plan,
                            const sb__kernel *k, uint64_t leaf_start)
{
    bool overflow = false;
    const sb__node leaf = fold_leaf(plan, k, s->tail, s->tail_mask, 16,
                                    leaf_start, &overflow);
    s->overflow |= overflow;
    push(s, plan, k, leaf, 0, leaf_start / 16);
    memset(s->tail, 0, sizeof s->tail);
    memset(s->tail_mask, 0, sizeof s->tail_mask);
}

static void append_elements(partial_state *s, const sb__plan *plan,
                            const sb__kernel *k, const unsigned char *x,
                            const unsigned char *y, const unsigned char *mask,
                            size_t count)
{
    /* count (< 16) elements at s->end, all inside the leaf of s->end. */
    const uint64_t leaf_start = s->end & ~UINT64_C(15);
    const bool head = leaf_start < s->begin;
    const unsigned slot = (unsigned)(s->end & 15);
    uint64_t *slots = head ? s->head : s->tail;
    uint8_t *masks = head ? s->head_mask : s->tail_mask;
    unsigned char prepared[16 * 8], taking_part[16];
    const unsigned char *elements = x;
    if (plan->prepared) {
        bool overflow = false;
        mask = sb__prepare(plan, x, y, mask, count, prepared, taking_part,
                           &overflow);
        s->overflow |= overflow;
        elements = prepared;
    }
    const size_t size = plan->fold_size;
    for (size_t i = 0; i < count; i++) {
        const bool takes_part = mask == NULL || mask[i];
        slots[slot + i] = 0;
        if (takes_part)
            memcpy(&slots[slot + i], elements + i * size, size);
        masks[slot + i] = takes_part;
    }
    s->end += count;
    if (!head && (s->end & 15) == 0)
        close_tail_leaf(s, plan, k, leaf_start);
}

static unsigned floor_log2_u64(uint64_t v)
{
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
}

static unsigned trailing_zeros(uint64_t v)
{
    unsigned k = 0;
    while (k < 63 && (v & 1) == 0) {
        v >>= 1;
        k++;
    }
    return k;
}

size_t sb__partial_next_piece(uint64_t end, size_t left, unsigned *level)
{
    if ((end & 15) != 0 || left < 16) {
        const size_t take = 16 - (size_t)(end & 15);
        return take < left ? take : left;
    }
    /* Whole leaves from a leaf boundary: the largest aligned subtree that
     * starts here and fits. */
    const uint64_t leaf = end / 16;
    unsigned k = floor_log2_u64(left / 16);
    if (leaf != 0 && trailing_zeros(leaf) < k)
        k = trailing_zeros(leaf);
    *level = k;
    return (size_t)16 << k;
}

/* The kind a piece of `kind` makes a partial that holds `held`, or
 * KIND_NONE when the two do not mix. */
static uint8_t kind_after(uint8_t held, uint8_t kind)
{
    return held == KIND_NONE || held == kind ? kind : KIND_NONE;
}

static const char *kind_name(uint8_t kind)
{
    return kind == KIND_DOT ? "a dot product's terms (sb_partial_add_dot*)"
                            : "elements (sb_partial_add_host, sb_partial_add)";
}

/* The checks of every call that appends n elements of `kind` to p:
 * its state, and its plan (of a dot product for dot terms). */
static sb_status open_for_add(const sb_partial *p, size_t n, uint8_t kind,
                              partial_state *s, sb__plan *plan)
{
    const sb_status check = open_state(p, "p", s, plan);
    SB_RETURN_IF(check != SB_OK, check);
    SB_RETURN_IF(s->failed != 0, failure_of(s));
    if (kind == KIND_DOT) {
        const sb_status dot = sb__plan_make_dot(sb__plan_reduction(plan),
                                                plan);
        SB_RETURN_IF(dot != SB_OK, dot);
    }
    SB_FAIL_IF(kind_after(s->kind, kind) == KIND_NONE, SB_INVALID_ARGUMENT,
               "p holds %s, and cannot take %s", kind_name(s->kind),
               kind_name(kind));
    SB_FAIL_IF(n >= POSITION_LIMIT - s->end, SB_INVALID_ARGUMENT,
               "the partial would end at or beyond position 2^63");
    return SB_OK;
}

sb_status sb__partial_open(const sb_partial *p, size_t n, bool dot,
                           sb__plan *plan, uint64_t *end)
{
    partial_state s;
    const sb_status check = open_for_add(p, n, dot ? KIND_DOT : KIND_ELEMENTS,
                                         &s, plan);
    SB_RETURN_IF(check != SB_OK, check);
    *end = s.end;
    return SB_OK;
}

void sb__partial_push_subtree(sb_partial *p, sb__node node, bool overflow,
                              unsigned level, bool dot)
{
    partial_state s;
    sb__plan plan;
    load(p, &s);
    if (!plan_of(&s, &plan))
        return;                      /* not reached: opened before */
    unsigned isa;
    if (sb__isa_resolve(0, &isa) != SB_OK)
        isa = SB_ISA_BASELINE;
    const sb__kernel *k = sb__host_kernel(&plan, isa);
    sb__fpenv env;
    sb__fpenv_enter(&env);
    s.overflow |= overflow;
    s.kind = dot ? KIND_DOT : KIND_ELEMENTS;
    if (plan.arg)
        node.where += s.end;
    push(&s, &plan, k, node, level, (s.end / 16) >> level);
    s.end += (uint64_t)16 << level;
    sb__fpenv_leave(&env);
    store(p, &s);
}

void sb__partial_add_truths(sb_partial *p, bool any, bool all, size_t n)
{
    partial_state s;
    load(p, &s);
    s.any |= any;
    s.all &= all;
    s.end += n;
    if (n > 0)
        s.kind = KIND_ELEMENTS;
    store(p, &s);
}

void sb__partial_add_count(sb_partial *p, uint64_t count, size_t n)
{
    partial_state s;
    load(p, &s);
    s.count += count;
    s.end += n;
    if (n > 0)
        s.kind = KIND_ELEMENTS;
    store(p, &s);
}

/* sb_partial_add_host() and sb_partial_add_dot_host(): y is NULL but for
 * dot terms. */
static sb_status add_host(sb_partial *p, const void *x, const void *y,
                          const unsigned char *mask, size_t n, uint8_t kind)
{
    partial_state s;
    sb__plan plan;
    const sb_status check = open_for_add(p, n, kind, &s, &plan);
    SB_RETURN_IF(check != SB_OK, check);
    SB_FAIL_IF(n > 0 && x == NULL, SB_INVALID_ARGUMENT,
               "x is NULL while n = %zu", n);
    SB_FAIL_IF(kind == KIND_DOT && n > 0 && y == NULL, SB_INVALID_ARGUMENT,
               "y is NULL while n = %zu", n);
    if (n == 0)
        return SB_OK;
    s.kind = kind;
    const unsigned char *bytes = x, *ybytes = y;
    if (plan.op == SB_COUNT) {
        uint64_t count = 0;
        if (sb_reduce_host(sb__plan_reduction(&plan), x, mask, n, &count)
            != SB_OK)
            return SB_INVALID_ARGUMENT;   /* not reached: checked above */
        s.count += count;
        s.end += n;
        store(p, &s);
        return SB_OK;
    }
    if (is_boolean(&plan)) {
        unsigned char any = 0, all = 1;
        sb_reduction r = sb__plan_reduction(&plan);
        r.op = SB_ANY;
        sb_reduction r2 = r;
        r2.op = SB_ALL;
        if (sb_reduce_host(r, x, mask, n, &any) != SB_OK ||
            sb_reduce_host(r2, x, mask, n, &all) != SB_OK)
            return SB_INVALID_ARGUMENT;   /* not reached: checked above */
        s.any |= any;
        s.all &= all;
        s.end += n;
        store(p, &s);
        return SB_OK;
    }
    unsigned isa;
    const sb_status isa_status = sb__isa_resolve(0, &isa);
    SB_RETURN_IF(isa_status != SB_OK, isa_status);
    const sb__kernel *k = sb__host_kernel(&plan, isa);
    sb__fpenv env;
    sb__fpenv_enter(&env);
    size_t done = 0;
    while (done < n) {
        unsigned level = 0;
        const size_t count = sb__partial_next_piece(s.end, n - done, &level);
        const size_t at = done * plan.input_size;
        if (count < 16) {
            append_elements(&s, &plan, k, bytes + at,
                            ybytes ? ybytes + at : NULL,
                            mask ? mask + done : NULL, count);
            done += count;
            continue;
        }
        const uint64_t leaf = s.end / 16;
        bool overflow = false;
        sb__node node = sb__reduce_node(
            &plan, bytes + at, ybytes ? ybytes + at : NULL,
            mask ? mask + done : NULL, count, 0, isa, &overflow);
        s.overflow |= overflow;
        if (plan.arg)
            node.where += s.end;
        push(&s, &plan, k, node, level, leaf >> level);
        s.end += count;
        done += count;
    }
    sb__fpenv_leave(&env);
    store(p, &s);
    return SB_OK;
}

sb_status sb_partial_add_host(sb_partial *p, const void *x,
                              const unsigned char *mask, size_t n)
{
    sb__detail_clear();
    return add_host(p, x, NULL, mask, n, KIND_ELEMENTS);
}

sb_status sb_partial_add_dot_host(sb_partial *p, const void *x,
                                  const void *y, const unsigned char *mask,
                                  size_t n)
{
    sb__detail_clear();
    return add_host(p, x, y, mask, n, KIND_DOT);
}

sb_status sb_partial_merge(sb_partial *left, const sb_partial *right)
{
    sb__detail_clear();
    partial_state a, b;
    sb__plan plan, plan_b;
    sb_status check = open_state(left, "left", &a, &plan);
    SB_RETURN_IF(check != SB_OK, check);
    check = open_state(right, "right", &b, &plan_b);
    SB_RETURN_IF(check != SB_OK, check);
    /* A failure absorbs what it merges with; the left one (lower
     * positions, lower ranks) wins. */
    if (a.failed != 0)
        return SB_OK;
    if (b.failed != 0) {
        memcpy(left, right, sizeof *left);
        return SB_OK;
    }
    SB_FAIL_IF(a.op != b.op || a.input != b.input || a.acc != b.acc ||
               a.wrap != b.wrap || a.map != b.map ||
               a.skip_nan != b.skip_nan, SB_INVALID_ARGUMENT,
               "left and right are partials of different reductions");
    SB_FAIL_IF(kind_after(a.kind, b.kind) == KIND_NONE && b.kind != KIND_NONE,
               SB_INVALID_ARGUMENT, "left holds %s and right %s: they do "
               "not mix", kind_name(a.kind), kind_name(b.kind));
    SB_FAIL_IF(a.end != b.begin, SB_INVALID_ARGUMENT,
               "right begins at %llu, not where left ends (%llu)",
               (unsigned long long)b.begin, (unsigned long long)a.end);
    if (is_boolean(&plan) || plan.op == SB_COUNT) {
        a.any |= b.any;
        a.all &= b.all;
        a.count += b.count;
        a.end = b.end;
        a.kind = a.kind != KIND_NONE ? a.kind : b.kind;
        store(left, &a);
        return SB_OK;
    }
    unsigned isa;
    check = sb__isa_resolve(0, &isa);
    SB_RETURN_IF(check != SB_OK, check);
    const sb__kernel *k = sb__host_kernel(&plan, isa);
    sb__fpenv env;
    sb__fpenv_enter(&env);
    /* The cut leaf: left's last leaf continued with right's head. */
    if ((b.begin & 15) != 0) {
        const uint64_t leaf_start = b.begin & ~UINT64_C(15);
        const uint64_t head_end = b.end < leaf_start + 16 ? b.end
                                                          : leaf_start + 16;
        const bool into_head = leaf_start < a.begin;
        uint64_t *slots = into_head ? a.head : a.tail;
        uint8_t *masks = into_head ? a.head_mask : a.tail_mask;
        for (uint64_t q = b.begin; q < head_end; q++) {
            slots[q & 15] = b.head[q & 15];
            masks[q & 15] = b.head_mask[q & 15];
        }
        if (!into_head && head_end == leaf_start + 16)
            close_tail_leaf(&a, &plan, k, leaf_start);
    }
    for (unsigned i = 0; i < b.top; i++)
        push(&a, &plan, k, node_of(&b, i), b.node_level[i], b.node_index[i]);
    /* Right's tail is the merged range's tail when it began in right. */
    if ((b.end & 15) != 0 && (b.end & ~UINT64_C(15)) >= b.begin) {
        memcpy(a.tail, b.tail, sizeof a.tail);
        memcpy(a.tail_mask, b.tail_mask, sizeof a.tail_mask);
    }
    a.overflow |= b.overflow;
    a.end = b.end;
    a.kind = a.kind != KIND_NONE ? a.kind : b.kind;
    sb__fpenv_leave(&env);
    store(left, &a);
    return SB_OK;
}

sb_status sb_partial_finish(const sb_partial *p, void *result)
{
    sb__detail_clear();
    partial_state s;
    sb__plan plan;
    const sb_status check = open_state(p, "p", &s, &plan);
    SB_RETURN_IF(check != SB_OK, check);
    SB_RETURN_IF(s.failed != 0, failure_of(&s));
    SB_FAIL_IF(result == NULL, SB_INVALID_ARGUMENT, "result is NULL");
    SB_FAIL_IF(s.begin != 0, SB_INVALID_ARGUMENT,
               "p begins at %llu: only a partial from position 0 is a whole "
               "array", (unsigned long long)s.begin);
    if (is_boolean(&plan)) {
        const unsigned char v = plan.op == SB_ANY ? s.any : s.all;
        memcpy(result, &v, 1);
        return SB_OK;
    }
    if (plan.op == SB_COUNT) {
        memcpy(result, &s.count, sizeof s.count);
        return SB_OK;
    }
    unsigned isa;
    const sb_status isa_status = sb__isa_resolve(0, &isa);
    SB_RETURN_IF(isa_status != SB_OK, isa_status);
    const sb__kernel *k = sb__host_kernel(&plan, isa);
    sb__fpenv env;
    sb__fpenv_enter(&env);
    bool overflow = s.overflow != 0;
    if ((s.end & 15) != 0) {
        const sb__node leaf = fold_leaf(&plan, k, s.tail, s.tail_mask,
                                        (unsigned)(s.end & 15),
                                        s.end & ~UINT64_C(15), &overflow);
        push(&s, &plan, k, leaf, 0, s.end / 16);
        overflow |= s.overflow != 0;
    }
    /* What is left combines from the right (the odd-node rule). */
    sb__node root = { .has = false };
    if (s.top > 0) {
        root = node_of(&s, s.top - 1u);
        for (int i = (int)s.top - 2; i >= 0; i--) {
            sb__node l = node_of(&s, (unsigned)i);
            k->combine(&l, &root, &overflow);
            root = l;
        }
    }
    const sb_status status = sb__finish(&plan, &root, overflow, result);
    sb__fpenv_leave(&env);
    if (status == SB_OVERFLOW && !sb__detail_is_set())
        return sb__fail(status, "the checked %s overflows in a node of the "
                        "tree", sb_op_name(plan.op));
    return status;
}

sb_status sb_partial_failure(const sb_partial *p, int *origin)
{
    sb__detail_clear();
    partial_state s;
    sb__plan plan;
    const sb_status check = open_state(p, "p", &s, &plan);
    SB_RETURN_IF(check != SB_OK, check);
    if (s.failed == 0)
        return SB_OK;
    if (origin != NULL)
        *origin = s.origin;
    return failure_of(&s);
}
