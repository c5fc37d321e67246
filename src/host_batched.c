/* host_batched.c: sb_reduce_batched_host() and sb_reduce_segments_host(),
 * many independent reductions in one call (docs/order.md: "a batch of
 * reductions is that many independent reductions").
 *
 * Each reduction (a "row", whatever its shape) is reduced by the engine of
 * sb_reduce_host() as an array of its own (sb__reduce_row()), so its bits
 * and status are that call's by construction. Everything that can refuse
 * the call is checked before the first row is reduced; after that nothing
 * can fail, so a refusal writes nothing and an accepted call writes every
 * status.
 *
 * Work: rows shorter than SB_THREADED_MIN_N are spread over the threads in
 * tasks of about TASK_COST elements (a task is a run of consecutive rows,
 * taken from a shared counter), each row on one thread; longer rows are
 * reduced one after the other, each split over the threads within the row
 * (aligned subtrees, as sb_reduce_host() does). Segments are cut into tasks
 * by elements, not by count (a row costs its length plus ROW_COST), so
 * one long segment does not hold up the short ones behind it.
 *
 * Strided rows (elem_stride != 1) are gathered per 4096-element block,
 * with their mask, into a buffer of the thread's stack, and that block is
 * folded as a contiguous one would be. For columns of a row-major matrix
 * that reads each element from its own cache line, column after column,
 * which costs bandwidth when the matrix does not fit the caches. So a
 * batch of columns (adjacent reductions close together, their elements
 * far apart) of a plan that reads its input as it is takes the column
 * path below instead: a tile of adjacent columns folded side by side,
 * one position of every column of the tile at a time. The gather stays
 * for everything else. */
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include "host_engine.h"

#define TASK_COST ((size_t)1 << 14)  /* elements per task: amortises taking
                                        one (an atomic add) */
#define ROW_COST  ((size_t)16)       /* what a row costs beyond its
                                        elements, in elements: setting it
                                        up and writing its result */

/* Where the rows are: a batch of equal rows (offsets NULL), or segments. */
typedef struct {
    const sb__row_engine *engine;
    const unsigned char  *x;
    const unsigned char  *mask;
    size_t                n;             /* a batch's row length */
    ptrdiff_t             elem_stride;   /* a batch's: elements */
    ptrdiff_t             batch_stride;
    const uint64_t       *offsets;       /* segments: count + 1 */
    size_t                count;
    unsigned char        *results;
    sb_status            *statuses;
    const sb_host_options *opts;         /* NULL: the defaults */
    unsigned              row_threads;   /* > 1: long rows are left to the
                                            pass that splits them */
    size_t                rows_per_task; /* a batch's */
    size_t                task_count;
    atomic_size_t         next_task;
} batch_job;

static size_t row_length(const batch_job *j, size_t b)
{
    return j->offsets ? (size_t)(j->offsets[b + 1] - j->offsets[b]) : j->n;
}

/* Reduces row b on up to `threads` threads and writes its answer. The
 * addresses were checked by the caller: every offset fits a ptrdiff_t. */
static void reduce_row(const batch_job *j, size_t b, unsigned threads)
{
    const sb__row_engine *e = j->engine;
    const size_t size = e->plan->input_size;
    ptrdiff_t first;   /* the row's first element, from x */
    ptrdiff_t stride;
    if (j->offsets != NULL) {
        first = (ptrdiff_t)(j->offsets[b]);
        stride = 1;
    } else {
        first = (ptrdiff_t)b * j->batch_stride;
        stride = j->elem_stride;
    }
    const size_t n = row_length(j, b);
    const unsigned char *x = n > 0 ? j->x + first * (ptrdiff_t)size : NULL;
    const unsigned char *mask = n > 0 && j->mask != NULL ? j->mask + first
                                                         : NULL;
    j->statuses[b] = sb__reduce_row(e, x, mask, n, stride, threads,
                                    j->results + b * e->plan->result_size);
}

/* A segment's position in the cost order: strictly increasing in b. */
static uint64_t segment_cost(const batch_job *j, size_t b)
{
    return (j->offsets[b] - j->offsets[0]) + (uint64_t)b * ROW_COST;
}

/* The first segment whose cost position is at least `cost` (count if
 * none). */
static size_t first_segment_at(const batch_job *j, uint64_t cost)
{
    size_t lo = 0, hi = j->count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (segment_cost(j, mid) < cost)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void run_tasks(void *arg)
{
    batch_job *j = arg;
    sb__fpenv env;
    sb__fpenv_enter(&env);
    for (;;) {
        const size_t t = atomic_fetch_add(&j->next_task, 1);
        if (t >= j->task_count)
            break;
        size_t first, end;
        if (j->offsets != NULL) {
            first = first_segment_at(j, (uint64_t)t * TASK_COST);
            end = first_segment_at(j, (uint64_t)(t + 1) * TASK_COST);
        } else {
            first = t * j->rows_per_task;
            end = j->count - first < j->rows_per_task
                ? j->count : first + j->rows_per_task;
        }
        for (size_t b = first; b < end; b++)
            if (j->row_threads <= 1 || row_length(j, b) < SB_THREADED_MIN_N)
                reduce_row(j, b, 1);
    }
    sb__fpenv_leave(&env);
}


/* Every row of j, after the checks. The caller holds the floating-point
 * environment. */
static void run_batch(batch_job *j)
{
    uint64_t total;   /* cost of the whole call, in elements */
    if (j->offsets != NULL) {
        total = segment_cost(j, j->count - 1)
              + (j->offsets[j->count] - j->offsets[j->count - 1]) + ROW_COST;
        j->task_count = (size_t)((total + TASK_COST - 1) / TASK_COST);
    } else {
        const size_t row = j->n + ROW_COST;   /* checked: no overflow */
        j->rows_per_task = row >= TASK_COST ? 1 : TASK_COST / row;
        j->task_count = (j->count + j->rows_per_task - 1) / j->rows_per_task;
        total = (uint64_t)j->count * row;
        if (total / row != j->count)
            total = UINT64_MAX;
    }
    /* Asking the system for its CPU count costs a file read: only when
     * threads can pay off, as in sb_reduce_host(). */
    const unsigned threads = total < SB_THREADED_MIN_N
                           ? 1 : sb_host_thread_count(j->opts);
    j->row_threads = threads;
    if (j->offsets == NULL && threads > 1 && j->n >= SB_THREADED_MIN_N)
        j->task_count = 0;   /* every row is long: the second pass */
    atomic_init(&j->next_task, 0);

    sb__run_on_threads(run_tasks, j,
                       j->task_count < threads ? j->task_count : threads);
    if (threads <= 1)
        return;
    /* The long rows, each over every thread. */
    for (size_t b = 0; b < j->count; b++)
        if (row_length(j, b) >= SB_THREADED_MIN_N)
            reduce_row(j, b, threads);
}

/* ---- columns: many adjacent reductions folded side by side -------------
 *
 * When the reductions of a batch lie next to each other and their
 * elements far apart (columns of a row-major matrix: batch_stride 1 or a
 * few elements, elem_stride the row length), a tile of COLUMN_TILE
 * adjacent reductions is folded together: position i of every column of
 * the tile is read from one row (contiguous when batch_stride is 1) and
 * folded into that column's leaf, strictly left to right per column. The
 * loop over the tile's columns is the inner one, and each column is its
 * own chain, so the compiler vectorises across columns and never across
 * positions: no reassociation, no transpose.
 *
 * Every SB_LEAF_SIZE positions the leaves close. The leaf boundaries are
 * the same for every column, so the tile shares one binary counter (the
 * merge stack of host_reduce.c, one level per entry) whose entries hold a
 * node per column: a closed leaf enters at level 0, two entries of equal
 * level combine column by column (left = lower positions), and at the
 * end the entries combine from the right. That is docs/order.md's tree
 * (its "equivalent form": leaves padded with none to a power of two), so
 * each column has the bits and status of sb_reduce_host() of its
 * elements. None-ness is per column: a masked element of a sum or product
 * is folded as the exact identity (-0.0 for floats, 0, 1), min and max
 * take a column's first taking-part element, and a leaf where nothing of
 * a column takes part is none for that column. A checked integer step
 * that overflows marks its column only.
 *
 * Only plans that read their input as it is take this path: sum, prod,
 * min and max with the input as accumulator, no map, no SB_SKIP_NAN, no
 * half type. Conversions, maps, NaN skipping, halves and any/all keep
 * the gather path above (correctness first; they could fold per element
 * here too). */

#define COLUMN_TILE   64   /* reductions per tile, by measurement (README:
                              Performance): 256 bytes of f32 per row; 16
                              and 32 were slower on long columns, 128 no
                              faster */
#define COLUMN_LEVELS 64   /* merge stack entries: enough for any n */

/* The nodes of a tile's columns, and their overflow flags. */
typedef struct {
    unsigned char value[COLUMN_TILE][8];
    unsigned char has[COLUMN_TILE];
    unsigned char overflow[COLUMN_TILE];
} column_nodes;

/* Folds the `cols` (1..COLUMN_TILE) reductions x[c * bs + i * es],
 * i < n (n > 0), into out (every field written for c < cols). */
typedef void (*column_fn)(const void *x, const unsigned char *mask,
                          size_t n, ptrdiff_t es, ptrdiff_t bs, int cols,
                          column_nodes *out);

#define SB_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The merge stack of a tile: entry k holds a node per column. PUSH closes
 * the leaf (leaf[], lhas[]) into it, FINISH leaves the root in entry 0;
 * COMBINE(&l, &lh, r, rh, &o) sets l, lh to combine((l, lh), (r, rh)) and
 * ORs an overflow into o. */
#define COLUMN_STACK(T)                                                     \
    T sv[COLUMN_LEVELS][COLUMN_TILE];                                       \
    unsigned char sh[COLUMN_LEVELS][COLUMN_TILE];                           \
    unsigned lev[COLUMN_LEVELS];                                            \
    int top = 0
#define COLUMN_MERGE(k, COMBINE)                                            \
    for (int c = 0; c < cols; c++)                                          \
        COMBINE(&sv[k][c], &sh[k][c], sv[(k) + 1][c], sh[(k) + 1][c], &ov[c])
#define COLUMN_PUSH(COMBINE)                                                \
    {                                                                       \
        for (int c = 0; c < cols; c++) {                                    \
            sv[top][c] = leaf[c];                                           \
            sh[top][c] = lhas[c] != 0;                                      \
        }                                                                   \
        lev[top++] = 0;                                                     \
        while (top >= 2 && lev[top - 2] == lev[top - 1]) {                  \
            COLUMN_MERGE(top - 2, COMBINE);                                 \
            lev[top - 2]++;                                                 \
            top--;                                                          \
        }                                                                   \
    }
#define COLUMN_FINISH(T, COMBINE)                                           \
    {                                                                       \
        for (int k = top - 2; k >= 0; k--)                                  \
            COLUMN_MERGE(k, COMBINE);                                       \
        for (int c = 0; c < cols; c++) {                                    \
            memset(out->value[c], 0, sizeof out->value[c]);                 \
            memcpy(out->value[c], &sv[0][c], sizeof(T));                    \
            out->has[c] = sh[0][c];                                         \
            out->overflow[c] = ov[c];                                       \
        }                                                                   \
    }

/* STEP(a, b, o): a = a op b, ORing an overflow into o. */
#define CSTEP_ADD(a, b, o)     ((a) = (a) + (b))
#define CSTEP_MUL(a, b, o)     ((a) = (a) * (b))
#define CSTEP_U32_ADD(a, b, o) ((a) = (__typeof__(a))((uint32_t)(a) + (uint32_t)(b)))
#define CSTEP_U32_MUL(a, b, o) ((a) = (__typeof__(a))((uint32_t)(a) * (uint32_t)(b)))
#define CSTEP_CHECKED_ADD(a, b, o) ((o) |= __builtin_add_overflow((a), (b), &(a)))
#define CSTEP_CHECKED_MUL(a, b, o) ((o) |= __builtin_mul_overflow((a), (b), &(a)))

/* Sums and products: START the leaf's start value, SKIP the exact
 * identity a masked element is folded as. */
#define DEFINE_COLUMN_FOLD(NAME, T, START, SKIP, STEP)                      \
SB_ALWAYS_INLINE void NAME##_combine_(T *l, unsigned char *lh, T r, unsigned char rh, \
                            unsigned char *ov)                              \
{                                                                           \
    T v = *l;                                                               \
    unsigned char o = 0;                                                    \
    STEP(v, r, o);                                                          \
    *ov |= (unsigned char)(o & *lh & rh);                                   \
    *l = *lh ? (rh ? v : *l) : r;                                           \
    *lh = (unsigned char)(*lh | rh);                                        \
}                                                                           \
SB_ALWAYS_INLINE void NAME##_body(const T *x, const unsigned char *mask,   \
                                  size_t n, ptrdiff_t es, ptrdiff_t bs,     \
                                  int cols, column_nodes *out)              \
{                                                                           \
    T leaf[COLUMN_TILE];                                                    \
    unsigned char lhas[COLUMN_TILE], ov[COLUMN_TILE] = { 0 };               \
    COLUMN_STACK(T);                                                        \
    for (size_t s = 0; s < n; s += SB_LEAF_SIZE) {                          \
        const size_t end = n - s < SB_LEAF_SIZE ? n : s + SB_LEAF_SIZE;     \
        for (int c = 0; c < cols; c++) {                                    \
            leaf[c] = (T)(START);                                           \
            lhas[c] = mask == NULL;                                         \
        }                                                                   \
        if (mask == NULL) {                                                 \
            for (size_t i = s; i < end; i++) {                              \
                const T *row = x + (ptrdiff_t)i * es;                       \
                for (int c = 0; c < cols; c++)                              \
                    STEP(leaf[c], row[c * bs], ov[c]);                      \
            }                                                               \
        } else {                                                            \
            for (size_t i = s; i < end; i++) {                              \
                const T *row = x + (ptrdiff_t)i * es;                       \
                const unsigned char *mrow = mask + (ptrdiff_t)i * es;       \
                for (int c = 0; c < cols; c++) {                            \
                    const unsigned char m = mrow[c * bs];                   \
                    const T v = row[c * bs];                                \
                    const T e = m ? v : (T)(SKIP);                          \
                    STEP(leaf[c], e, ov[c]);                                \
                    lhas[c] |= m;                                           \
                }                                                           \
            }                                                               \
        }                                                                   \
        COLUMN_PUSH(NAME##_combine_)                                         \
    }                                                                       \
    COLUMN_FINISH(T, NAME##_combine_)                                        \
}                                                                           \
static void NAME(const void *x, const unsigned char *mask, size_t n,       \
                 ptrdiff_t es, ptrdiff_t bs, int cols, column_nodes *out)   \
{                                                                           \
    if (bs == 1 && cols == COLUMN_TILE)   /* the common case, unit stride */\
        NAME##_body(x, mask, n, es, 1, COLUMN_TILE, out);                   \
    else                                                                    \
        NAME##_body(x, mask, n, es, bs, cols, out);                         \
}

/* min and max: BETTER(x, v) when x replaces v. */
#define DEFINE_COLUMN_PICK(NAME, T, BETTER)                                 \
SB_ALWAYS_INLINE void NAME##_combine_(T *l, unsigned char *lh, T r, unsigned char rh, \
                            unsigned char *ov)                              \
{                                                                           \
    (void)ov;                                                               \
    const bool take = rh && (!*lh || BETTER(r, *l));                        \
    *l = take ? r : *l;                                                     \
    *lh = (unsigned char)(*lh | rh);                                        \
}                                                                           \
SB_ALWAYS_INLINE void NAME##_body(const T *x, const unsigned char *mask,   \
                                  size_t n, ptrdiff_t es, ptrdiff_t bs,     \
                                  int cols, column_nodes *out)              \
{                                                                           \
    T leaf[COLUMN_TILE];                                                    \
    unsigned char lhas[COLUMN_TILE], ov[COLUMN_TILE] = { 0 };               \
    COLUMN_STACK(T);                                                        \
    for (size_t s = 0; s < n; s += SB_LEAF_SIZE) {                          \
        const size_t end = n - s < SB_LEAF_SIZE ? n : s + SB_LEAF_SIZE;     \
        if (mask == NULL) {                                                 \
            const T *first = x + (ptrdiff_t)s * es;                         \
            for (int c = 0; c < cols; c++) {                                \
                leaf[c] = first[c * bs];                                    \
                lhas[c] = 1;                                                \
            }                                                               \
            for (size_t i = s + 1; i < end; i++) {                          \
                const T *row = x + (ptrdiff_t)i * es;                       \
                for (int c = 0; c < cols; c++) {                            \
                    const T e = row[c * bs];                                \
                    leaf[c] = BETTER(e, leaf[c]) ? e : leaf[c];             \
                }                                                           \
            }                                                               \
        } else {                                                            \
            for (int c = 0; c < cols; c++) {                                \
                leaf[c] = 0;                                                \
                lhas[c] = 0;                                                \
            }                                                               \
            for (size_t i = s; i < end; i++) {                              \
                const T *row = x + (ptrdiff_t)i * es;                       \
                const unsigned char *mrow = mask + (ptrdiff_t)i * es;       \
                for (int c = 0; c < cols; c++) {                            \
                    const bool m = mrow[c * bs] != 0;                       \
                    const T e = row[c * bs];                                \
                    const bool take = m & (!lhas[c] | BETTER(e, leaf[c])); \
                    leaf[c] = take ? e : leaf[c];                           \
                    lhas[c] |= (unsigned char)m;                            \
                }                                                           \
            }                                                               \
        }                                                                   \
        COLUMN_PUSH(NAME##_combine_)                                         \
    }                                                                       \
    COLUMN_FINISH(T, NAME##_combine_)                                        \
}                                                                           \
static void NAME(const void *x, const unsigned char *mask, size_t n,       \
                 ptrdiff_t es, ptrdiff_t bs, int cols, column_nodes *out)   \
{                                                                           \
    if (bs == 1 && cols == COLUMN_TILE)                                     \
        NAME##_body(x, mask, n, es, 1, COLUMN_TILE, out);                   \
    else                                                                    \
        NAME##_body(x, mask, n, es, bs, cols, out);                         \
}

DEFINE_COLUMN_FOLD(col_f32_sum,  float,  0.0f, -0.0f, CSTEP_ADD)
DEFINE_COLUMN_FOLD(col_f32_prod, float,  1.0f, 1.0f,  CSTEP_MUL)
DEFINE_COLUMN_FOLD(col_f64_sum,  double, 0.0,  -0.0,  CSTEP_ADD)
DEFINE_COLUMN_FOLD(col_f64_prod, double, 1.0,  1.0,   CSTEP_MUL)
#define BETTER_MIN_(x, v) ((x) < (v))
#define BETTER_MAX_(x, v) ((x) > (v))
#define COLUMN_MINMAX_(e, tag, ctype, f, s, cl)                             \
    DEFINE_COLUMN_PICK(col_##tag##_min, ctype, BETTER_MIN_)                 \
    DEFINE_COLUMN_PICK(col_##tag##_max, ctype, BETTER_MAX_)
SB_TYPE_LIST(COLUMN_MINMAX_)
#undef COLUMN_MINMAX_
/* Integers: checked in the type, wrapping in the unsigned type of the
 * same width (two's complement: the same bits, and no signed overflow);
 * 8- and 16-bit operands promote to int, so their wrapping steps compute
 * in uint32_t and truncate, as host_kernels.c does. */
#define COLUMN_INTS_(tag, T, UT, WADD, WMUL)                                \
    DEFINE_COLUMN_FOLD(col_##tag##_csum,  T,  0, 0, CSTEP_CHECKED_ADD)      \
    DEFINE_COLUMN_FOLD(col_##tag##_cprod, T,  1, 1, CSTEP_CHECKED_MUL)      \
    DEFINE_COLUMN_FOLD(col_##tag##_wsum,  UT, 0, 0, WADD)                   \
    DEFINE_COLUMN_FOLD(col_##tag##_wprod, UT, 1, 1, WMUL)
COLUMN_INTS_(i8,  int8_t,   uint8_t,  CSTEP_U32_ADD, CSTEP_U32_MUL)
COLUMN_INTS_(u8,  uint8_t,  uint8_t,  CSTEP_U32_ADD, CSTEP_U32_MUL)
COLUMN_INTS_(i16, int16_t,  uint16_t, CSTEP_U32_ADD, CSTEP_U32_MUL)
COLUMN_INTS_(u16, uint16_t, uint16_t, CSTEP_U32_ADD, CSTEP_U32_MUL)
COLUMN_INTS_(i32, int32_t,  uint32_t, CSTEP_ADD, CSTEP_MUL)
COLUMN_INTS_(u32, uint32_t, uint32_t, CSTEP_ADD, CSTEP_MUL)
COLUMN_INTS_(i64, int64_t,  uint64_t, CSTEP_ADD, CSTEP_MUL)
COLUMN_INTS_(u64, uint64_t, uint64_t, CSTEP_ADD, CSTEP_MUL)
#undef COLUMN_INTS_

/* The column fold of a plan, or NULL where the gather path stays. */
static column_fn column_kernel(const sb__plan *p)
{
    if (p->prepared || p->acc != p->input || sb__type_is_half(p->acc))
        return NULL;
    switch (p->op) {
    case SB_MIN:
        switch (p->acc) {
#define COLUMN_MIN_CASE_(e, tag, ctype, f, s, cl) case e: return col_##tag##_min;
        SB_TYPE_LIST(COLUMN_MIN_CASE_)
#undef COLUMN_MIN_CASE_
        default: return NULL;
        }
    case SB_MAX:
        switch (p->acc) {
#define COLUMN_MAX_CASE_(e, tag, ctype, f, s, cl) case e: return col_##tag##_max;
        SB_TYPE_LIST(COLUMN_MAX_CASE_)
#undef COLUMN_MAX_CASE_
        default: return NULL;
        }
    case SB_SUM:
    case SB_PROD: {
        const bool sum = p->op == SB_SUM;
        switch (p->acc) {
        case SB_F32: return sum ? col_f32_sum : col_f32_prod;
        case SB_F64: return sum ? col_f64_sum : col_f64_prod;
#define COLUMN_INT_CASE_(e, tag)                                            \
        case e:                                                             \
            if (p->wrap) return sum ? col_##tag##_wsum : col_##tag##_wprod; \
            return sum ? col_##tag##_csum : col_##tag##_cprod;
        COLUMN_INT_CASE_(SB_I8, i8)   COLUMN_INT_CASE_(SB_U8, u8)
        COLUMN_INT_CASE_(SB_I16, i16) COLUMN_INT_CASE_(SB_U16, u16)
        COLUMN_INT_CASE_(SB_I32, i32) COLUMN_INT_CASE_(SB_U32, u32)
        COLUMN_INT_CASE_(SB_I64, i64) COLUMN_INT_CASE_(SB_U64, u64)
#undef COLUMN_INT_CASE_
        default: return NULL;
        }
    }
    default:
        return NULL;
    }
}

/* A batch whose reductions are columns: adjacent reductions a few bytes
 * apart (|batch_stride| * size <= 64, so a tile's elements of one
 * position share a few cache lines) and each one's elements further
 * apart than that. Anything else (rows, zero strides, overlapping
 * shapes) reads better one reduction at a time. */
static bool columns_fit(const sb__plan *p, size_t n, ptrdiff_t es,
                        size_t count, ptrdiff_t bs)
{
    const size_t b = sb__stride_magnitude(bs);
    const size_t e = sb__stride_magnitude(es);
    return n > 0 && count > 1 && b != 0 && b < e
        && b * p->input_size <= 64 && column_kernel(p) != NULL;
}

typedef struct {
    const sb__plan      *plan;
    column_fn            fold;
    const unsigned char *x;             /* element (0, 0) */
    const unsigned char *mask;
    size_t               n;
    ptrdiff_t            elem_stride;
    ptrdiff_t            batch_stride;
    size_t               count;
    unsigned char       *results;
    sb_status           *statuses;
    const sb_host_options *opts;        /* NULL: the defaults */
    size_t               tiles;
    atomic_size_t        next_tile;
} column_job;

/* Folds tile t and writes its columns' answers, as sb__reduce_row()
 * would: overflow and empty first, without an error detail. */
static void column_tile(const column_job *j, size_t t)
{
    const sb__plan *p = j->plan;
    const size_t first = t * COLUMN_TILE;
    const int cols = (int)(j->count - first < COLUMN_TILE
                           ? j->count - first : COLUMN_TILE);
    const ptrdiff_t at = (ptrdiff_t)first * j->batch_stride;
    column_nodes nodes;
    j->fold(j->x + at * (ptrdiff_t)p->input_size,
            j->mask != NULL ? j->mask + at : NULL, j->n, j->elem_stride,
            j->batch_stride, cols, &nodes);
    for (int c = 0; c < cols; c++) {
        const size_t b = first + (size_t)c;
        sb_status s;
        if (p->checked && nodes.overflow[c]) {
            s = SB_OVERFLOW;
        } else if (!nodes.has[c] && (p->op == SB_MIN || p->op == SB_MAX)) {
            s = SB_EMPTY;
        } else {
            sb__node node = { .has = nodes.has[c] != 0 };
            memcpy(node.v.bytes, nodes.value[c], sizeof node.v.bytes);
            s = sb__finish(p, &node, false, j->results + b * p->result_size);
        }
        j->statuses[b] = s;
    }
}

static void run_column_tiles(void *arg)
{
    column_job *j = arg;
    sb__fpenv env;
    sb__fpenv_enter(&env);
    for (;;) {
        const size_t t = atomic_fetch_add(&j->next_tile, 1);
        if (t >= j->tiles)
            break;
        column_tile(j, t);
    }
    sb__fpenv_leave(&env);
}


/* Every column of j, tiles spread over the threads (a tile on one
 * thread: a few long columns stay on few threads). */
static void run_columns(column_job *j)
{
    j->tiles = (j->count + COLUMN_TILE - 1) / COLUMN_TILE;
    atomic_init(&j->next_tile, 0);
    uint64_t total;   /* elements of the call */
    if (__builtin_mul_overflow((uint64_t)j->n, (uint64_t)j->count, &total))
        total = UINT64_MAX;
    const unsigned threads = total < SB_THREADED_MIN_N
                           ? 1 : sb_host_thread_count(j->opts);
    sb__run_on_threads(run_column_tiles, j, j->tiles < threads ? j->tiles : threads);
}

/* The column path of sb_reduce_batched_host(), after its checks. */
static sb_status reduce_columns(const sb__plan *plan, const void *x,
                                const unsigned char *mask, size_t n,
                                ptrdiff_t elem_stride, size_t count,
                                ptrdiff_t batch_stride, void *results,
                                sb_status *statuses,
                                const sb_host_options *opts)
{
    unsigned isa;   /* refused as the other path refuses it; unused */
    const sb_status isa_status = sb__isa_resolve(opts ? opts->isa : 0, &isa);
    SB_RETURN_IF(isa_status != SB_OK, isa_status);
    column_job j = {
        .plan = plan, .fold = column_kernel(plan), .x = x, .mask = mask,
        .n = n, .elem_stride = elem_stride, .batch_stride = batch_stride,
        .count = count, .results = results, .statuses = statuses,
        .opts = opts,
    };
    sb__fpenv env;
    sb__fpenv_enter(&env);
    run_columns(&j);
    sb__fpenv_leave(&env);
    return SB_OK;
}

/* The checks both forms share before their own: the plan, the pointers
 * every reduction writes through, and that `count` results fit. */
static sb_status check_common(sb_reduction r, sb__plan *plan, size_t count,
                              const void *results, const sb_status *statuses)
{
    const sb_status s = sb__plan_make(r, plan);
    SB_RETURN_IF(s != SB_OK, s);
    SB_FAIL_IF(count > 0 && results == NULL, SB_INVALID_ARGUMENT,
               "results is NULL while count = %zu", count);
    SB_FAIL_IF(count > 0 && statuses == NULL, SB_INVALID_ARGUMENT,
               "statuses is NULL while count = %zu", count);
    SB_FAIL_IF(count > SIZE_MAX / plan->result_size, SB_INVALID_ARGUMENT,
               "count = %zu results of %zu bytes exceed the address space",
               count, plan->result_size);
    SB_FAIL_IF(count > SIZE_MAX / sizeof(sb_status), SB_INVALID_ARGUMENT,
               "count = %zu statuses exceed the address space", count);
    return SB_OK;
}

/* |a| * b + c, or false when it exceeds `limit`. */
static bool extent_add(size_t *acc, ptrdiff_t stride, size_t times,
                       size_t limit)
{
    const size_t magnitude = sb__stride_magnitude(stride);
    if (times != 0 && magnitude > (limit - *acc) / times)
        return false;
    *acc += magnitude * times;
    return true;
}

sb_status sb__batch_extent(size_t n, ptrdiff_t elem_stride, size_t count,
                           ptrdiff_t batch_stride, size_t size,
                           size_t *below, size_t *above)
{
    /* Offsets below and above element (0, 0), in elements, each at most
     * PTRDIFF_MAX / size so that every byte offset is a ptrdiff_t. */
    const size_t limit = (size_t)PTRDIFF_MAX / size;
    size_t lo = 0, hi = 0;
    bool fits = true;
    if (n > 0 && count > 0) {
        size_t *e = elem_stride < 0 ? &lo : &hi;
        size_t *c = batch_stride < 0 ? &lo : &hi;
        fits = extent_add(e, elem_stride, n - 1, limit)
            && extent_add(c, batch_stride, count - 1, limit)
            && lo < limit - hi;
    }
    SB_FAIL_IF(!fits, SB_INVALID_ARGUMENT,
               "n = %zu, elem_stride = %td, count = %zu, batch_stride = %td: "
               "the elements span more than PTRDIFF_MAX bytes", n,
               elem_stride, count, batch_stride);
    *below = lo;
    *above = hi;
    return SB_OK;
}

/* Runs j (its engine not yet set) after the checks. */
static sb_status reduce_batch(batch_job *j, const sb__plan *plan)
{
    unsigned isa;
    const sb_status isa_status =
        sb__isa_resolve(j->opts ? j->opts->isa : 0, &isa);
    SB_RETURN_IF(isa_status != SB_OK, isa_status);
    if (j->count == 0)
        return SB_OK;
    sb__row_engine engine;
    sb__row_engine_init(&engine, plan, isa);
    j->engine = &engine;
    sb__fpenv env;
    sb__fpenv_enter(&env);
    run_batch(j);
    sb__fpenv_leave(&env);
    return SB_OK;
}

sb_status sb_reduce_batched_host(sb_reduction r, const void *x,
                                 const unsigned char *mask, size_t n,
                                 ptrdiff_t elem_stride, size_t count,
                                 ptrdiff_t batch_stride, void *results,
                                 sb_status *statuses)
{
    return sb__reduce_batched_host_opts(r, x, mask, n, elem_stride, count,
                                        batch_stride, results, statuses,
                                        NULL);
}

sb_status sb__reduce_batched_host_opts(sb_reduction r, const void *x,
                                       const unsigned char *mask, size_t n,
                                       ptrdiff_t elem_stride, size_t count,
                                       ptrdiff_t batch_stride, void *results,
                                       sb_status *statuses,
                                       const sb_host_options *opts)
{
    sb__detail_clear();
    sb__plan plan;
    sb_status s = check_common(r, &plan, count, results, statuses);
    SB_RETURN_IF(s != SB_OK, s);
    SB_FAIL_IF(count > 0 && n > 0 && x == NULL, SB_INVALID_ARGUMENT,
               "x is NULL while n = %zu and count = %zu", n, count);
    SB_FAIL_IF(n > SIZE_MAX / plan.input_size, SB_INVALID_ARGUMENT,
               "n = %zu elements of %zu bytes exceed the address space",
               n, plan.input_size);
    SB_FAIL_IF(n > SIZE_MAX - ROW_COST, SB_INVALID_ARGUMENT,
               "n = %zu elements exceed the address space", n);
    size_t below, above;
    s = sb__batch_extent(n, elem_stride, count, batch_stride,
                         plan.input_size, &below, &above);
    SB_RETURN_IF(s != SB_OK, s);
    if (columns_fit(&plan, n, elem_stride, count, batch_stride))
        return reduce_columns(&plan, x, mask, n, elem_stride, count,
                              batch_stride, results, statuses, opts);
    batch_job j = {
        .x = x, .mask = mask, .n = n,
        .elem_stride = elem_stride, .batch_stride = batch_stride,
        .count = count, .results = results, .statuses = statuses,
        .opts = opts,
    };
    return reduce_batch(&j, &plan);
}

sb_status sb_reduce_segments_host(sb_reduction r, const void *x,
                                  const unsigned char *mask,
                                  const uint64_t *offsets, size_t count,
                                  void *results, sb_status *statuses)
{
    return sb__reduce_segments_host_opts(r, x, mask, offsets, count,
                                         results, statuses, NULL);
}

sb_status sb__reduce_segments_host_opts(sb_reduction r, const void *x,
                                        const unsigned char *mask,
                                        const uint64_t *offsets, size_t count,
                                        void *results, sb_status *statuses,
                                        const sb_host_options *opts)
{
    sb__detail_clear();
    sb__plan plan;
    const sb_status s = check_common(r, &plan, count, results, statuses);
    SB_RETURN_IF(s != SB_OK, s);
    if (count == 0)
        return SB_OK;
    SB_FAIL_IF(offsets == NULL, SB_INVALID_ARGUMENT,
               "offsets is NULL while count = %zu", count);
    SB_FAIL_IF(count == SIZE_MAX, SB_INVALID_ARGUMENT,
               "count = %zu leaves no room for count + 1 offsets", count);
    for (size_t b = 0; b < count; b++)
        SB_FAIL_IF(offsets[b + 1] < offsets[b], SB_INVALID_ARGUMENT,
                   "offsets decrease: offsets[%zu] = %llu is less than "
                   "offsets[%zu] = %llu", b + 1,
                   (unsigned long long)offsets[b + 1], b,
                   (unsigned long long)offsets[b]);
    const uint64_t end = offsets[count];
    /* Every byte offset, and every cost position, must fit. */
    const uint64_t limit = (uint64_t)PTRDIFF_MAX / plan.input_size;
    SB_FAIL_IF(end > limit || (uint64_t)count > (limit - end) / ROW_COST,
               SB_INVALID_ARGUMENT, "offsets[%zu] = %llu elements of %zu "
               "bytes (with %zu segments) exceed the address space", count,
               (unsigned long long)end, plan.input_size, count);
    SB_FAIL_IF(x == NULL && end > offsets[0], SB_INVALID_ARGUMENT,
               "x is NULL while the segments hold %llu elements",
               (unsigned long long)(end - offsets[0]));
    batch_job j = {
        .x = x, .mask = mask, .offsets = offsets,
        .count = count, .results = results, .statuses = statuses,
        .opts = opts,
    };
    return reduce_batch(&j, &plan);
}
