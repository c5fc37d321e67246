/* host_reduce.c: sb_reduce_host(), the host path's engine.
 *
 * The input is walked in aligned blocks of 16 leaves (host_kernels.c).
 * Block nodes are merged with a binary counter: a node enters at level 0,
 * and two nodes of equal level combine (left = lower positions) into one a
 * level up. When the input ends, the remaining nodes, of decreasing level,
 * fold from the right: a lower node is a subtree padded with none, which
 * moves up unchanged until it meets its left sibling. That is exactly
 * docs/order.md's tree, computed in one pass with O(log n) memory.
 *
 * For large inputs the blocks are cut into "chunks" of 2^k blocks, each an
 * aligned subtree whose node does not depend on anything outside it;
 * threads take chunks in any order and the chunk nodes are merged the same
 * way. So the thread count, and the chunk size, change speed, never bits. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "host_engine.h"
#include "host_half.h"

#define SB_CHUNKS_PER_THREAD   4u        /* load balance */
#define SB_MIN_CHUNK_BLOCKS    16u       /* 64 Ki elements: amortises a chunk */

/* ---- the binary counter ------------------------------------------------- */

typedef struct {
    sb__node node[64];
    unsigned level[64];
    int top;
} merge_stack;

static void merge_push(merge_stack *s, const sb__kernel *k, sb__node node,
                       bool *overflow)
{
    unsigned level = 0;
    while (s->top > 0 && s->level[s->top - 1] == level) {
        sb__node left = s->node[--s->top];
        k->combine(&left, &node, overflow);
        node = left;
        level++;
    }
    s->node[s->top] = node;
    s->level[s->top] = level;
    s->top++;
}

static sb__node merge_finish(const merge_stack *s, const sb__kernel *k,
                             bool *overflow)
{
    sb__node root = { .has = false };
    if (s->top == 0)
        return root;
    root = s->node[s->top - 1];
    for (int i = s->top - 2; i >= 0; i--) {
        sb__node left = s->node[i];
        k->combine(&left, &root, overflow);
        root = left;
    }
    return root;
}

void *(*sb__host_malloc)(size_t size) = malloc;

/* ---- one range of blocks ----------------------------------------------- */

typedef struct {
    const sb__plan      *plan;
    const sb__kernel    *kernel;
    sb__block_map_fn     block_map;      /* NULL: prepare */
    sb__prepare_fn       prepare;        /* a prepared plan's blocks */
    sb__masked_block_fn  masked_block;   /* NULL: prepare */
    const unsigned char *x;
    const unsigned char *y;              /* a dot product's second factors */
    const unsigned char *mask;
    size_t               n;
    ptrdiff_t            stride;         /* elements between x's (and the
                                            mask's) elements; not 1: they
                                            are gathered per block, and y
                                            is NULL */
    size_t               prefetch;       /* sb__block_fn */
    int                  fold;           /* its prefetch measurement;
                                            -1: none */
    bool                 measuring;      /* spans take turns at the
                                            candidate prefetch distances
                                            (host_prefetch.c) */
    size_t               call_turn;      /* measuring on several threads:
                                            the call's turn, which every
                                            span takes; SIZE_MAX: on one,
                                            each span its own */
    uint_least64_t       span_bytes;     /* input read by a whole span,
                                            its mask included */
    size_t               chunk_blocks;   /* a power of two */
    size_t               chunk_count;
    sb__node            *chunk_nodes;
    atomic_size_t        next_chunk;
    atomic_bool          overflow;
} job;

/* Folds one block of `count` elements (x and mask as the block kernel
 * reads them, y beside x for a dot product), the block's first element at
 * position `start`, and pushes its node. */
static void fold_block(const job *j, const void *x, const void *y,
                       const unsigned char *mask, size_t count, size_t start,
                       size_t prefetch, merge_stack *stack, bool *overflow)
{
    _Alignas(64) unsigned char converted[SB_BLOCK_SIZE * sizeof(double)];
    _Alignas(64) unsigned char taking_part[SB_BLOCK_SIZE];
    sb__node node;
    if (j->block_map != NULL && mask == NULL && count == SB_BLOCK_SIZE &&
        j->block_map(x, y, j->plan->map, prefetch, &node)) {
        merge_push(stack, j->kernel, node, overflow);
        return;
    }
    if (j->masked_block != NULL && count == SB_BLOCK_SIZE &&
        (mask != NULL || j->plan->skip_nan) &&
        j->masked_block(x, mask, prefetch, &node)) {
        merge_push(stack, j->kernel, node, overflow);
        return;
    }
    if (j->plan->prepared) {
        mask = j->prepare(j->plan, x, y, mask, count, converted,
                           taking_part, overflow);
        x = converted;
    }
    j->kernel->block(x, mask, count, prefetch, &node, overflow);
    if (j->plan->arg)
        node.where += start;
    merge_push(stack, j->kernel, node, overflow);
}

/* Copies `count` elements of `size` bytes, `stride` elements apart, from
 * `from` to the contiguous `to` (size 1, 2, 4 or 8: fixed-size copies the
 * compiler turns into plain loads and stores). */
static void gather(unsigned char *to, const unsigned char *from,
                   ptrdiff_t stride, size_t size, size_t count)
{
    const ptrdiff_t step = stride * (ptrdiff_t)size;
#define SB_GATHER_(bytes)                                                   \
    for (size_t i = 0; i < count; i++, from += step)                        \
        memcpy(to + i * (bytes), from, (bytes));                            \
    break;
    switch (size) {
    case 1: SB_GATHER_(1)
    case 2: SB_GATHER_(2)
    case 4: SB_GATHER_(4)
    default: SB_GATHER_(8)
    }
#undef SB_GATHER_
}

/* Strided elements (j->stride != 1): each block is gathered into a
 * buffer of its own, with its mask, and folded as a contiguous block
 * would be; the block kernels never see a stride. */
static sb__node reduce_blocks_strided(const job *j, size_t first_block,
                                      size_t block_count, bool *overflow)
{
    _Alignas(64) unsigned char elements[SB_BLOCK_SIZE * sizeof(double)];
    _Alignas(64) unsigned char mask[SB_BLOCK_SIZE];
    const size_t size = j->plan->input_size;
    merge_stack stack;
    stack.top = 0;
    for (size_t b = first_block; b < first_block + block_count; b++) {
        const size_t start = b * SB_BLOCK_SIZE;
        const size_t count = j->n - start < SB_BLOCK_SIZE
                           ? j->n - start : SB_BLOCK_SIZE;
        const ptrdiff_t first = (ptrdiff_t)start * j->stride;
        gather(elements, j->x + first * (ptrdiff_t)size, j->stride, size,
               count);
        if (j->mask != NULL)
            gather(mask, j->mask + first, j->stride, 1, count);
        fold_block(j, elements, NULL, j->mask != NULL ? mask : NULL, count,
                   start, 0, &stack, overflow);
    }
    return merge_finish(&stack, j->kernel, overflow);
}

static sb__node reduce_blocks(const job *j, size_t first_block,
                              size_t block_count, bool *overflow)
{
    if (j->stride != 1)
        return reduce_blocks_strided(j, first_block, block_count, overflow);
    merge_stack stack;
    stack.top = 0;
    const size_t end = first_block + block_count;
    for (size_t b = first_block; b < end;) {
        /* Measuring the prefetch distance: one span at a time, each at
         * its candidate (its turn: the span's, or the call's), timed
         * when whole. */
        size_t stop = end, prefetch = j->prefetch;
        const size_t span = b / SB_PREFETCH_SPAN_BLOCKS;
        const size_t turn = j->call_turn != SIZE_MAX ? j->call_turn : span;
        uint_least64_t began = 0;
        if (j->measuring) {
            const size_t span_end = (span + 1) * SB_PREFETCH_SPAN_BLOCKS;
            stop = span_end < end ? span_end : end;
            prefetch = sb__prefetch_span_distance(j->fold, turn);
            began = sb__prefetch_clock_ns();
        }
        const bool whole = stop - b == SB_PREFETCH_SPAN_BLOCKS;
        for (; b < stop; b++) {
            const size_t start = b * SB_BLOCK_SIZE;
            const size_t count = j->n - start < SB_BLOCK_SIZE
                               ? j->n - start : SB_BLOCK_SIZE;
            fold_block(j, j->x + start * j->plan->input_size,
                       j->y ? j->y + start * j->plan->input_size : NULL,
                       j->mask ? j->mask + start : NULL, count, start,
                       prefetch, &stack, overflow);
        }
        if (j->measuring && whole)
            sb__prefetch_span_record(j->fold, turn, j->span_bytes,
                                     sb__prefetch_clock_ns() - began);
    }
    return merge_finish(&stack, j->kernel, overflow);
}

static void run_chunks(job *j)
{
    const size_t blocks = (j->n + SB_BLOCK_SIZE - 1) / SB_BLOCK_SIZE;
    bool overflow = false;
    sb__fpenv env;
    sb__fpenv_enter(&env);
    for (;;) {
        const size_t c = atomic_fetch_add(&j->next_chunk, 1);
        if (c >= j->chunk_count)
            break;
        const size_t first = c * j->chunk_blocks;
        const size_t count = blocks - first < j->chunk_blocks
                           ? blocks - first : j->chunk_blocks;
        j->chunk_nodes[c] = reduce_blocks(j, first, count, &overflow);
    }
    sb__fpenv_leave(&env);
    if (overflow)
        atomic_store(&j->overflow, true);
}

static void run_chunks_of(void *arg)
{
    run_chunks(arg);
}

/* ---- threads ------------------------------------------------------------ */

/* The one reading of a thread count (SAMEBITS_THREADS, the command's
 * options): decimal digits only, at least 1, capped. Digits only, because
 * strtoul would take blanks and a sign, and wrap "-1" around to a huge
 * count. Any number of digits: a count above the cap is still a count, so
 * it means the cap. Returns 0 for anything else. */
static unsigned parse_thread_count(const char *text)
{
    unsigned long value = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9'; p++)
        if (value <= SB_MAX_THREADS)
            value = value * 10 + (unsigned long)(*p - '0');
    if (p == text || *p != '\0')
        return 0;
    return value > SB_MAX_THREADS ? SB_MAX_THREADS : (unsigned)value;
}

sb_status sb_threads_parse(const char *text, unsigned *threads)
{
    sb__detail_clear();
    SB_FAIL_IF(threads == NULL, SB_INVALID_ARGUMENT, "threads is NULL");
    SB_FAIL_IF(text == NULL, SB_INVALID_ARGUMENT, "the thread count is NULL");
    const unsigned count = parse_thread_count(text);
    SB_FAIL_IF(count == 0, SB_INVALID_ARGUMENT,
               "'%s' is not a thread count: decimal digits only, at least 1",
               text);
    *threads = count;
    return SB_OK;
}

/* `requested` (sb_host_options.threads), else SAMEBITS_THREADS if valid,
 * else the online CPUs, capped. */
static unsigned thread_count(unsigned requested)
{
    if (requested != 0)
        return requested > SB_MAX_THREADS ? SB_MAX_THREADS : requested;
    const char *env = getenv("SAMEBITS_THREADS");
    const unsigned parsed = env != NULL ? parse_thread_count(env) : 0;
    if (parsed != 0)
        return parsed;
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    const unsigned long count = online > 0 ? (unsigned long)online : 1;
    return count > SB_MAX_THREADS ? SB_MAX_THREADS : (unsigned)count;
}

unsigned sb_host_thread_count(const sb_host_options *opts)
{
    sb__detail_clear();
    return thread_count(opts ? opts->threads : 0);
}

/* The name of a kind of fold, for sb_prefetch_fold: "f16 -> f32 sum,
 * square, masked, avx512". */
static void fold_name(char *name, size_t size, const sb__plan *plan,
                      bool masked, unsigned isa, bool threaded)
{
    char acc[24] = "";
    if (plan->acc != plan->input)
        snprintf(acc, sizeof acc, " -> %s", sb_type_name(plan->acc));
    snprintf(name, size, "%s%s %s%s%s%s%s%s%s, %s%s",
             sb_type_name(plan->input),
             acc, sb_op_name(plan->op), plan->wrap ? ", wrapping" : "",
             plan->dot ? ", dot" : "",
             plan->map != SB_MAP_NONE ? ", " : "",
             plan->map != SB_MAP_NONE ? sb_map_name(plan->map) : "",
             masked ? ", masked" : "", plan->skip_nan ? ", NaN-skipping" : "",
             sb_isa_name(isa), threaded ? ", threaded" : "");
}

_Thread_local size_t sb__prefetch_last_call;

/* Prefetch measurements (host_prefetch.c) are made on calls this large
 * (SB_PREFETCH_MEASURED_BYTES of x), and looked up from this size on:
 * below it the input is in cache more often than not, and a lookup (up
 * to SB_PREFETCH_FOLDS keys) would be a tenth of a small call. */
#define PREFETCH_LOOKUP_BYTES ((size_t)1 << 20)

/* Which prefetch measurement this call takes its distance from and helps
 * decide while nothing is kept (host_prefetch.c), -1 for none (the
 * default distance, nothing measured): one over enough contiguous input
 * to come from memory, argmin and argmax aside (whose scalar fold reads
 * no distance). A call on several threads (`threaded`) measures apart
 * from one on one thread: in the bench's first 2026-12-08 run, the
 * default, timed on 2 threads where both distances read 15 GB/s a
 * thread, kept 0, and one-thread f32 sums then read 22 GB/s against 36
 * at 4096 (AMD EPYC Zen 5, 2^27); a dot product whose calls took turns
 * on 1 and 2 threads kept 4096 where one thread reads faster at 0. The
 * plain unmasked f32 and f64 sums, products, minima and maxima (no map,
 * no dot product, no conversion) on one thread measure the default
 * together, 0, in the instruction set a call takes by itself (in
 * another, or threaded: one kind per instruction set, below); every
 * other fold whose
 * full blocks read the distance measures its own, known by the code that
 * folds them and its variant (a mask, the map, a dot product): a
 * converting fold (block map, masked or NaN-skipping block), or a
 * kernel's block where its `prefetches` say it reads it; added to the
 * measurements when `add` and the call is large enough, else only looked
 * up. Maps and conversions took the default until 2026-12-07, and f16
 * |x| and x² into f32 read 16 and 11 GB/s from memory where it measured
 * 0, 28-29 at 4096 (one thread, 2^27, AMD EPYC Zen 5: their loads come
 * in another order than the plain sum's, which reads 27-30 at either).
 * Not a prepared plan folded from a converted copy on the stack, nor a
 * kernel that ignores the distance: both distances would time the same
 * work, and the noise would decide. */
static int prefetch_measurement(const sb__plan *plan, const sb__kernel *kernel,
                                sb__block_map_fn block_map,
                                sb__masked_block_fn masked_block,
                                const unsigned char *mask, size_t n,
                                ptrdiff_t stride, unsigned isa,
                                bool threaded, bool add)
{
    if (plan->arg || stride != 1 ||
        n < PREFETCH_LOOKUP_BYTES / plan->input_size)
        return -1;
    const bool masked = mask != NULL;
    const void *code;
    if (block_map != NULL && !masked && !plan->skip_nan)
        code = (const void *)block_map;
    else if (masked_block != NULL && (masked || plan->skip_nan))
        code = (const void *)masked_block;
    else if (!plan->prepared &&
             (kernel->prefetches &
              (masked ? SB_PREFETCH_MASKED : SB_PREFETCH_UNMASKED)))
        code = (const void *)kernel->block;
    else
        return -1;
    const bool float_fold = (plan->acc == SB_F32 || plan->acc == SB_F64) &&
                            plan->input == plan->acc &&
                            plan->map == SB_MAP_NONE && !plan->dot &&
                            !plan->skip_nan && !masked &&
                            (plan->op == SB_SUM || plan->op == SB_PROD ||
                             plan->op == SB_MIN || plan->op == SB_MAX);
    const unsigned variant = SB_PREFETCH_VARIANT(masked, plan->map,
                                                 plan->dot, threaded);
    char name[SB_PREFETCH_FOLD_NAME];
    if (float_fold) {
        /* The default is the plain float folds' of the instruction set
         * a call takes by itself. Forced onto another one, they measure
         * as a kind of their own: the best distance differs by
         * instruction set (Zen 5, 2^27 f32 sums on one thread, 2 MiB
         * pages, 0 bytes against 4096: AVX-512 27 against 40 GB/s, SSE2
         * and AVX2 33-35 either way), and a default timed on a mix of
         * them kept 0. */
        unsigned own = SB_ISA_AUTO;
        if (sb__isa_resolve(SB_ISA_AUTO, &own) != SB_OK ||
            (own == isa && !threaded))
            return 0;
        static const char plain_float_folds[SB_ISA_AVX512 + 1];
        code = &plain_float_folds[isa <= SB_ISA_AVX512 ? isa : 0];
        snprintf(name, sizeof name, "plain float folds, %s%s",
                 sb_isa_name(isa), threaded ? ", threaded" : "");
    } else {
        fold_name(name, sizeof name, plan, masked, isa, threaded);
    }
    if (!add || n < SB_PREFETCH_MEASURED_BYTES / plan->input_size)
        return sb__prefetch_fold(code, variant, NULL);
    return sb__prefetch_fold(code, variant, name);
}

static sb__node reduce_tree(const sb__plan *plan, const unsigned char *x,
                            const unsigned char *y,
                            const unsigned char *mask, size_t n,
                            ptrdiff_t stride, unsigned requested_threads,
                            unsigned isa, bool *overflow)
{
    const sb__kernel *kernel = sb__host_kernel(plan, isa);
    const size_t blocks = (n + SB_BLOCK_SIZE - 1) / SB_BLOCK_SIZE;
    /* Asking the system for its CPU count costs a file read: only when
     * threads can pay off. */
    const unsigned threads = n < SB_THREADED_MIN_N
                           ? 1 : thread_count(requested_threads);

    const sb__block_map_fn block_map = plan->prepared
                                     ? sb__host_block_map(plan, isa) : NULL;
    const sb__masked_block_fn masked_block =
        plan->prepared ? sb__host_masked_block(plan, isa) : NULL;
    const int fold = prefetch_measurement(plan, kernel, block_map,
                                          masked_block, mask, n, stride, isa,
                                          threads > 1, true);
    /* Measuring: a call large enough, while its fold keeps nothing. */
    const bool measuring =
        fold >= 0 && n >= SB_PREFETCH_MEASURED_BYTES / plan->input_size &&
        sb__prefetch_measuring(fold);
    size_t chunk_blocks = blocks == 0 ? 1 : sb__round_up_pow2(blocks);
    /* One chunk on one thread; with more, at most threads * 4 chunk
     * nodes, on the heap (a caller's small stack, test_error_detail, has
     * no room for 1024 of them). Without the memory: one chunk, the same
     * bits. */
    sb__node one_node;
    sb__node *chunk_nodes = &one_node;
    if (threads > 1) {
        const size_t per = (blocks + threads * SB_CHUNKS_PER_THREAD - 1)
                         / (threads * SB_CHUNKS_PER_THREAD);
        /* Measuring times whole spans only: chunks at least a span. */
        const size_t least = measuring ? SB_PREFETCH_SPAN_BLOCKS
                                       : SB_MIN_CHUNK_BLOCKS;
        const size_t wide = sb__round_up_pow2(per < least ? least : per);
        sb__node *nodes = sb__host_malloc(((blocks + wide - 1) / wide) *
                                          sizeof *nodes);
        if (nodes != NULL) {
            chunk_nodes = nodes;
            chunk_blocks = wide;
        }
    }
    job j = {
        .plan = plan, .kernel = kernel, .x = x, .y = y, .mask = mask, .n = n,
        .stride = stride,
        .block_map = block_map,
        .prepare = sb__host_prepare(isa),
        .masked_block = masked_block,
        .prefetch = sb__prefetch_distance(fold),
        .fold = fold,
        .measuring = measuring,
        .call_turn = measuring && threads > 1 ? sb__prefetch_call_turn(fold)
                                              : SIZE_MAX,
        .span_bytes = (uint_least64_t)SB_PREFETCH_SPAN_BLOCKS * SB_BLOCK_SIZE
                      * (plan->input_size * (y != NULL ? 2 : 1) +
                         (mask != NULL ? 1 : 0)),
        .chunk_blocks = chunk_blocks,
        .chunk_count = (blocks + chunk_blocks - 1) / chunk_blocks,
        .chunk_nodes = chunk_nodes,
    };
    if (stride == 1 && n >= PREFETCH_LOOKUP_BYTES / plan->input_size)
        sb__prefetch_last_call = j.prefetch;   /* not each small call */
    atomic_init(&j.next_chunk, 0);
    atomic_init(&j.overflow, false);

    sb__run_on_threads(run_chunks_of, &j,
                       j.chunk_count < threads ? j.chunk_count : threads);

    merge_stack stack;
    stack.top = 0;
    bool ov = atomic_load(&j.overflow);
    for (size_t c = 0; c < j.chunk_count; c++)
        merge_push(&stack, kernel, chunk_nodes[c], &ov);
    sb__node root = merge_finish(&stack, kernel, &ov);
    *overflow = ov;
    if (chunk_nodes != &one_node)
        free(chunk_nodes);
    return root;
}

sb__node sb__reduce_node(const sb__plan *plan, const void *x,
                         const void *y, const unsigned char *mask, size_t n,
                         unsigned threads, unsigned isa, bool *overflow)
{
    return reduce_tree(plan, x, y, mask, n, 1, threads, isa, overflow);
}

/* ---- any / all ---------------------------------------------------------- */

/* Booleans combine the same whatever the order, so a plain loop already
 * gives docs/order.md's bits. */
static unsigned char reduce_boolean(const sb__plan *plan, const void *x,
                                    const unsigned char *mask, size_t n)
{
    bool any = false, all = true;
    switch (plan->input) {
#define SB_BOOL_CASE_(e, tag, ctype, f, s, cl)                                  \
    case e: {                                                               \
        const ctype *v = x;                                                 \
        for (size_t i = 0; i < n; i++) {                                    \
            if (mask != NULL && !mask[i]) continue;                         \
            if (plan->skip_nan && v[i] != v[i]) continue;                   \
            const bool t = v[i] != 0;   /* NaN: true; -0.0: false */        \
            any |= t;                                                       \
            all &= t;                                                       \
        }                                                                   \
        break;                                                              \
    }
    SB_TYPE_LIST(SB_BOOL_CASE_)
#undef SB_BOOL_CASE_
    case SB_F16:
    case SB_BF16: {
        /* On the bits: true unless +-0; NaN: the exponent field all ones
         * and a non-zero fraction. */
        const uint16_t *v = x;
        const unsigned inf = plan->input == SB_F16 ? 0x7C00u : 0x7F80u;
        for (size_t i = 0; i < n; i++) {
            if (mask != NULL && !mask[i]) continue;
            const unsigned magnitude = v[i] & 0x7FFFu;
            if (plan->skip_nan && magnitude > inf) continue;
            const bool t = magnitude != 0;
            any |= t;
            all &= t;
        }
        break;
    }
    case SB_SAME_AS_INPUT:
        break;
    }
    return plan->op == SB_ANY ? any : all;
}

/* ---- count -------------------------------------------------------------- */

/* The taking-part elements of x[i * stride], i < n (mask likewise):
 * order-free, so a plain loop. */
static uint64_t count_taking_part(const sb__plan *plan,
                                  const unsigned char *x,
                                  const unsigned char *mask, size_t n,
                                  ptrdiff_t stride)
{
    uint64_t count = 0;
    const size_t size = plan->input_size;
    for (size_t i = 0; i < n; i++) {
        const ptrdiff_t at = (ptrdiff_t)i * stride;
        if (mask != NULL && !mask[at])
            continue;
        if (plan->skip_nan) {
            const unsigned char *e = x + at * (ptrdiff_t)size;
            bool nan = false;
            if (plan->input == SB_F32) {
                float f;
                memcpy(&f, e, sizeof f);
                nan = f != f;
            } else if (plan->input == SB_F64) {
                double d;
                memcpy(&d, e, sizeof d);
                nan = d != d;
            } else {   /* f16, bf16: exponent all ones, fraction not 0 */
                uint16_t h;
                memcpy(&h, e, sizeof h);
                nan = (h & 0x7FFFu) > (plan->input == SB_F16 ? 0x7C00u
                                                             : 0x7F80u);
            }
            if (nan)
                continue;
        }
        count++;
    }
    return count;
}

/* ---- the result --------------------------------------------------------- */

static void node_set_small_int(sb__node *node, sb_type t, int value)
{
    switch (t) {
#define SB_SET_CASE_(e, tag, ctype, f, s, cl) case e: node->v.tag = (ctype)value; break;
    SB_TYPE_LIST(SB_SET_CASE_)
#undef SB_SET_CASE_
    case SB_F16:
    case SB_BF16:
        node->v.f32 = (float)value;   /* a half node holds a float */
        break;
    case SB_SAME_AS_INPUT:
        break;
    }
}

sb_status sb__finish(const sb__plan *plan, const sb__node *root,
                     bool overflow, void *result)
{
    SB_RETURN_IF(plan->checked && overflow, SB_OVERFLOW);
    sb__node out = *root;
    if (!out.has) {
        SB_FAIL_IF(plan->op == SB_MIN || plan->op == SB_MAX || plan->arg,
                   SB_EMPTY,
                   "%s over no element: nothing takes part, so there is no "
                   "value", sb_op_name(plan->op));
        node_set_small_int(&out, plan->acc, plan->op == SB_PROD ? 1 : 0);
    }
    /* Hardware differs in NaN payloads; docs/order.md returns one NaN. */
    if (plan->acc == SB_F32 && out.v.f32 != out.v.f32) {
        const uint32_t bits = 0x7FC00000u;
        memcpy(&out.v.f32, &bits, sizeof bits);
    } else if (plan->acc == SB_F64 && out.v.f64 != out.v.f64) {
        const uint64_t bits = 0x7FF8000000000000u;
        memcpy(&out.v.f64, &bits, sizeof bits);
    } else if (sb__type_is_half(plan->acc)) {
        /* The float is exactly a half value: the conversion is exact, and
         * canonicalises a NaN (0x7E00, 0x7FC0). */
        const uint16_t bits = plan->acc == SB_F16
                            ? sb__float_to_f16(out.v.f32)
                            : sb__float_to_bf16(out.v.f32);
        memcpy(out.v.bytes, &bits, sizeof bits);
    }
    if (plan->arg) {
        /* The value in its accumulator's bytes, the rest zero. */
        sb_arg_result arg;
        memset(&arg, 0, sizeof arg);
        memcpy(arg.value, out.v.bytes, sb_type_size(plan->acc));
        arg.index = out.where;
        memcpy(result, &arg, sizeof arg);
        return SB_OK;
    }
    memcpy(result, out.v.bytes, plan->result_size);
    return SB_OK;
}

/* ---- one reduction of a batch (host_batched.c) -------------------------- */

void sb__row_engine_init(sb__row_engine *e, const sb__plan *plan,
                         unsigned isa)
{
    e->plan = plan;
    e->isa = isa;
    const bool boolean = plan->op == SB_ANY || plan->op == SB_ALL ||
                         plan->op == SB_COUNT;
    e->kernel = boolean ? NULL : sb__host_kernel(plan, isa);
    e->block_map = !boolean && plan->prepared
                 ? sb__host_block_map(plan, isa) : NULL;
    e->masked_block = !boolean && plan->prepared
                    ? sb__host_masked_block(plan, isa) : NULL;
    e->prefetch = sb__host_prefetch_bytes();
    e->rows = boolean ? (sb__rows_kernel){ NULL, NULL, 0 }
                      : sb__host_rows(plan, isa);
}

/* any / all of strided elements: the truths of pieces gathered into a
 * buffer (order-free, so any piece size gives the same answer). */
static unsigned char reduce_boolean_strided(const sb__plan *plan,
                                            const unsigned char *x,
                                            const unsigned char *mask,
                                            size_t n, ptrdiff_t stride)
{
    _Alignas(64) unsigned char elements[SB_BLOCK_SIZE * sizeof(double)];
    _Alignas(64) unsigned char taking_part[SB_BLOCK_SIZE];
    const size_t size = plan->input_size;
    unsigned char value = plan->op == SB_ALL;
    for (size_t start = 0; start < n; start += SB_BLOCK_SIZE) {
        const size_t count = n - start < SB_BLOCK_SIZE
                           ? n - start : SB_BLOCK_SIZE;
        const ptrdiff_t first = (ptrdiff_t)start * stride;
        gather(elements, x + first * (ptrdiff_t)size, stride, size, count);
        if (mask != NULL)
            gather(taking_part, mask + first, stride, 1, count);
        const unsigned char piece = reduce_boolean(
                plan, elements, mask != NULL ? taking_part : NULL, count);
        value = plan->op == SB_ANY ? (value | piece) : (value & piece);
    }
    return value;
}

sb_status sb__reduce_row(const sb__row_engine *e, const void *x,
                         const unsigned char *mask, size_t n,
                         ptrdiff_t stride, unsigned threads, void *result)
{
    const sb__plan *plan = e->plan;
    if (plan->op == SB_COUNT) {
        const uint64_t count = count_taking_part(plan, x, mask, n, stride);
        memcpy(result, &count, sizeof count);
        return SB_OK;
    }
    if (plan->op == SB_ANY || plan->op == SB_ALL) {
        const unsigned char value = stride == 1
            ? reduce_boolean(plan, x, mask, n)
            : reduce_boolean_strided(plan, x, mask, n, stride);
        memcpy(result, &value, 1);
        return SB_OK;
    }
    bool overflow = false;
    sb__node root;
    if (threads > 1 && n >= SB_THREADED_MIN_N) {
        root = reduce_tree(plan, x, NULL, mask, n, stride, threads, e->isa,
                           &overflow);
    } else {
        job j = {
            .plan = plan, .kernel = e->kernel, .block_map = e->block_map,
            .prepare = sb__host_prepare(e->isa),
            .masked_block = e->masked_block,
            .x = x, .mask = mask, .n = n, .stride = stride,
            .prefetch = e->prefetch,
        };
        /* A row of 1 MiB or more takes the distance its fold kept (looked
         * up, not measured: one thread's row times no spans). */
        const int fold = prefetch_measurement(plan, e->kernel, e->block_map,
                                              e->masked_block, mask, n,
                                              stride, e->isa, false, false);
        if (fold >= 0) {
            j.prefetch = sb__prefetch_distance(fold);
            sb__prefetch_last_call = j.prefetch;
        }
        root = reduce_blocks(&j, 0, (n + SB_BLOCK_SIZE - 1) / SB_BLOCK_SIZE,
                             &overflow);
    }
    /* The two answers that are no value, without sb__finish()'s detail:
     * a batch has no use for it, and formatting it per row costs. */
    SB_RETURN_IF(plan->checked && overflow, SB_OVERFLOW);
    SB_RETURN_IF(!root.has && (plan->op == SB_MIN || plan->op == SB_MAX ||
                               plan->arg), SB_EMPTY);
    return sb__finish(plan, &root, overflow, result);
}

/* ---- entry points ------------------------------------------------------- */

/* sb_reduce_host_opts() and sb_dot_host(): y is NULL but for a dot
 * product's plan. */
static sb_status reduce_host(const sb__plan *planp, const void *x,
                             const void *y, const unsigned char *mask,
                             size_t n, void *result,
                             const sb_host_options *opts)
{
    const sb__plan plan = *planp;
    SB_FAIL_IF(result == NULL, SB_INVALID_ARGUMENT, "result is NULL");
    SB_FAIL_IF(n > 0 && x == NULL, SB_INVALID_ARGUMENT,
               "x is NULL while n = %zu", n);
    SB_FAIL_IF(plan.dot && n > 0 && y == NULL, SB_INVALID_ARGUMENT,
               "y is NULL while n = %zu", n);
    SB_FAIL_IF(n > SIZE_MAX / plan.input_size, SB_INVALID_ARGUMENT,
               "n = %zu elements of %zu bytes exceed the address space",
               n, plan.input_size);
    unsigned isa;
    const sb_status isa_status = sb__isa_resolve(opts ? opts->isa : 0, &isa);
    SB_RETURN_IF(isa_status != SB_OK, isa_status);

    /* Even any/all need it: under denormals-are-zero a subnormal would
     * compare equal to zero. */
    if (plan.op == SB_COUNT) {
        const uint64_t count = count_taking_part(&plan, x, mask, n, 1);
        memcpy(result, &count, sizeof count);
        return SB_OK;
    }
    sb__fpenv env;
    sb__fpenv_enter(&env);
    if (plan.op == SB_ANY || plan.op == SB_ALL) {
        const unsigned char value = reduce_boolean(&plan, x, mask, n);
        sb__fpenv_leave(&env);
        memcpy(result, &value, 1);
        return SB_OK;
    }
    bool overflow = false;
    const sb__node root = reduce_tree(&plan, x, y, mask, n, 1,
                                      opts ? opts->threads : 0, isa,
                                      &overflow);
    sb_status status = sb__finish(&plan, &root, overflow, result);
    if (status == SB_OVERFLOW)   /* the error path: say where */
        status = sb__overflow_explain(&plan, x, y, mask, n);
    sb__fpenv_leave(&env);
    return status;
}

sb_status sb_reduce_host_opts(sb_reduction r, const void *x,
                              const unsigned char *mask, size_t n,
                              void *result, const sb_host_options *opts)
{
    sb__detail_clear();
    sb__plan plan;
    const sb_status check = sb__plan_make(r, &plan);
    SB_RETURN_IF(check != SB_OK, check);
    return reduce_host(&plan, x, NULL, mask, n, result, opts);
}

sb_status sb_dot_host_opts(sb_reduction r, const void *x, const void *y,
                           const unsigned char *mask, size_t n, void *result,
                           const sb_host_options *opts)
{
    sb__detail_clear();
    sb__plan plan;
    const sb_status check = sb__plan_make_dot(r, &plan);
    SB_RETURN_IF(check != SB_OK, check);
    return reduce_host(&plan, x, y, mask, n, result, opts);
}

sb_status sb_dot_host(sb_reduction r, const void *x, const void *y,
                      const unsigned char *mask, size_t n, void *result)
{
    return sb_dot_host_opts(r, x, y, mask, n, result, NULL);
}

sb_status sb_reduce_host(sb_reduction r, const void *x,
                         const unsigned char *mask, size_t n, void *result)
{
    return sb_reduce_host_opts(r, x, mask, n, result, NULL);
}
