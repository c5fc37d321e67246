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
 * tasks of about TASK_COST elements (a batch's task is a run of
 * consecutive rows, taken from a shared counter), each row on one
 * thread; longer rows are reduced one after the other, each split over
 * the threads within the row (aligned subtrees, as sb_reduce_host()
 * does). Segments are cut into tasks
 * by elements, not by count (a row costs its length plus ROW_COST), so
 * one long segment does not hold up the short ones behind it: one task on
 * one thread, else 8 per thread of 2^14 to 2^20 elements. Within a task,
 * a register's lanes of contiguous unmasked rows of one length, or of
 * unmasked segments of about one length (ragged_class), fold side by side
 * (host_kernels.c), with the same bits.
 *
 * Strided rows (elem_stride != 1) are gathered per 4096-element block,
 * with their mask, into a buffer of the thread's stack, and that block is
 * folded as a contiguous one would be. For columns of a row-major matrix
 * that reads each element from its own cache line, column after column,
 * which costs bandwidth when the matrix does not fit the caches. So a
 * batch of columns (adjacent reductions close together, their elements
 * far apart) of a plan that reads its input as it is takes the column
 * path instead (host_columns.c): a panel of adjacent columns folded side
 * by side, one position of every column of the panel at a time. The
 * gather stays for everything else. */
#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "host_columns.h"

#define TASK_COST ((size_t)1 << 14)  /* elements per task: amortises taking
                                        one (an atomic add) */
#define SEGMENT_TASK_MOST ((uint64_t)1 << 20)   /* elements of a task
                                        of segments, at most: enough for
                                        its length classes to fill (2000
                                        segments of 1 to 1000), and 128
                                        tasks for 2^27 elements on 2
                                        threads */
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
    uint64_t              task_cost;     /* segments': elements, with
                                            ROW_COST per segment */
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

/* A batch whose rows fold side by side (sb__rows_fn): contiguous,
 * unmasked, not empty, short enough to stay on one thread each. */
static bool side_by_side(const batch_job *j)
{
    return j->engine->rows.fn != NULL && j->offsets == NULL
        && j->mask == NULL && j->elem_stride == 1 && j->n > 0
        && (j->row_threads <= 1 || j->n < SB_THREADED_MIN_N);
}

/* The answers of rows index[0 .. lanes - 1] (b .. b + lanes - 1 where
 * index is NULL) from their roots, lane k's in roots[k]. The rows
 * folds are float sums, products, min and max of f32 or f64 as stored
 * (sb__host_rows()), whose roots all hold a value: what sb__finish()
 * writes for them is the root's bits, any NaN as the one NaN. Written
 * here without a node per row, which (with sb__finish()) was a fifth of
 * the time of ragged segments of 1 to 40 f32 (perf, Zen 3). */
static void answer_lanes(const batch_job *j, size_t b, const size_t *index,
                         unsigned lanes, const unsigned char *roots)
{
    const sb__plan *p = j->engine->plan;
    for (unsigned k = 0; k < lanes; k++) {
        const size_t at = index != NULL ? index[k] : b + k;
        unsigned char *out = j->results + at * p->result_size;
        if (p->acc == SB_F32) {
            float v;
            memcpy(&v, roots + k * sizeof v, sizeof v);
            const uint32_t nan = 0x7FC00000u;
            if (v != v)
                memcpy(&v, &nan, sizeof v);
            memcpy(out, &v, sizeof v);
        } else {
            double v;
            memcpy(&v, roots + k * sizeof v, sizeof v);
            const uint64_t nan = 0x7FF8000000000000u;
            if (v != v)
                memcpy(&v, &nan, sizeof v);
            memcpy(out, &v, sizeof v);
        }
        j->statuses[at] = SB_OK;
    }
}

/* Rows b .. b + lanes - 1 side by side, row k's n elements from element
 * first + k * pitch of x, and their answers. */
static void reduce_rows_side_by_side(const batch_job *j, size_t b,
                                     ptrdiff_t first, size_t n,
                                     ptrdiff_t pitch)
{
    const sb__row_engine *e = j->engine;
    _Alignas(64) unsigned char roots[16 * sizeof(double)];
    e->rows.fn(j->x + first * (ptrdiff_t)e->plan->input_size, n, pitch,
               roots);
    answer_lanes(j, b, NULL, e->rows.lanes, roots);
}

/* Ragged segments side by side (sb__ragged_fn): a register's lanes of
 * a task's unmasked segments of about one length, whatever lies between
 * them. A task sorts its segments into length classes as it meets them
 * and folds a class's lanes when it has them all; lengths that differ
 * from one segment to the next (a graph's neighbours, a batch of
 * sentences) then cost no call each. A class spans 4 leaves up to 32
 * leaves, then a quarter of an octave: past the fewest full leaves of a
 * group every lane pays for the most leaves of any, so a class wastes at
 * most 4 leaves or a quarter of a lane's. Up to RAGGED_MOST_LEAVES
 * leaves; longer segments pay a call's fixed work on thousands of
 * elements, one at a time. One at a time, segments of 1 to 1000 f32 ran
 * at 0.32 of the read on one thread (AMD EPYC Zen 4). */
enum { RAGGED_MOST_LEAVES = 1024, RAGGED_CLASSES = 28, RAGGED_LANES = 16 };
typedef struct {
    size_t   index[RAGGED_LANES];
    unsigned count;
} ragged_class;

/* The class of a segment of n > 0 elements, or -1 where it folds alone:
 * too long, or too close to the call's last element (a lane's leaves
 * are loaded whole: L - 1 elements past its end must be the call's). */
static int ragged_class_of(const batch_job *j, size_t b, size_t n)
{
    const size_t c = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;
    if (j->engine->rows.ragged == NULL || j->mask != NULL
        || c > RAGGED_MOST_LEAVES
        || j->offsets[j->count] - j->offsets[b + 1] < SB_LEAF_SIZE)
        return -1;
    if (c <= 32)
        return (int)((c - 1) / 4);
    const int e = 63 - __builtin_clzll((unsigned long long)(c - 1));
    return 8 + (e - 5) * 4 + (int)(((c - 1) >> (e - 2)) & 3);
}

/* Folds the first `lanes` segments of class k side by side, lanes up to
 * the register's taken by copies of the first (their answers unused). */
static void ragged_fold(const batch_job *j, ragged_class *k)
{
    const unsigned w = j->engine->rows.lanes;
    uint64_t starts[RAGGED_LANES], ends[RAGGED_LANES];
    for (unsigned l = 0; l < RAGGED_LANES; l++) {
        const size_t b = k->index[l < k->count ? l : 0];
        starts[l] = j->offsets[b];
        ends[l] = j->offsets[b + 1];
    }
    _Alignas(64) unsigned char roots[16 * sizeof(double)];
    j->engine->rows.ragged(j->x, starts, ends, roots);
    answer_lanes(j, 0, k->index, k->count < w ? k->count : w, roots);
    k->count = 0;
}

/* A task's classes at its end: a class at least half full folds padded,
 * the rest one at a time. */
static void ragged_flush(const batch_job *j, ragged_class *classes)
{
    for (int c = 0; c < RAGGED_CLASSES; c++) {
        ragged_class *k = &classes[c];
        if (k->count == 0)
            continue;
        if (2 * k->count >= j->engine->rows.lanes) {
            ragged_fold(j, k);
            continue;
        }
        for (unsigned l = 0; l < k->count; l++)
            reduce_row(j, k->index[l], 1);
        k->count = 0;
    }
}

/* Whether segments b .. b + lanes - 1 (all before `end`) fold side by
 * side as rows: unmasked, of one length n > 0 (consecutive segments of
 * one length are rows of that pitch), short enough to stay on one
 * thread. A cut into equal pieces (a batch given as offsets) then runs
 * as fast as the batch; 134218 f32 segments of 1000 one at a time ran
 * at 0.44 of the read on one thread. */
static bool segments_side_by_side(const batch_job *j, size_t b, size_t end,
                                  size_t *n_out)
{
    const size_t w = j->engine->rows.lanes;
    if (j->engine->rows.fn == NULL || j->mask != NULL || end - b < w)
        return false;
    const size_t n = row_length(j, b);
    if (n == 0 || (j->row_threads > 1 && n >= SB_THREADED_MIN_N))
        return false;
    for (size_t k = 1; k < w; k++)
        if (row_length(j, b + k) != n)
            return false;
    *n_out = n;
    return true;
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
    ragged_class classes[RAGGED_CLASSES];
    for (int c = 0; c < RAGGED_CLASSES; c++)
        classes[c].count = 0;
    for (;;) {
        const size_t t = atomic_fetch_add(&j->next_task, 1);
        if (t >= j->task_count)
            break;
        size_t first, end;
        if (j->offsets != NULL) {
            first = first_segment_at(j, (uint64_t)t * j->task_cost);
            end = first_segment_at(j, (uint64_t)(t + 1) * j->task_cost);
        } else {
            first = t * j->rows_per_task;
            end = j->count - first < j->rows_per_task
                ? j->count : first + j->rows_per_task;
        }
        size_t b = first;
        if (side_by_side(j))
            for (const unsigned w = j->engine->rows.lanes; end - b >= w;
                 b += w)
                reduce_rows_side_by_side(j, b,
                                         (ptrdiff_t)b * j->batch_stride,
                                         j->n, j->batch_stride);
        if (j->offsets == NULL) {
            for (; b < end; b++)
                if (j->row_threads <= 1 || j->n < SB_THREADED_MIN_N)
                    reduce_row(j, b, 1);
            continue;
        }
        while (b < end) {
            size_t n;
            if (segments_side_by_side(j, b, end, &n)) {
                reduce_rows_side_by_side(j, b, (ptrdiff_t)j->offsets[b], n,
                                         (ptrdiff_t)n);
                b += j->engine->rows.lanes;
                continue;
            }
            n = row_length(j, b);
            const int c = n > 0 ? ragged_class_of(j, b, n) : -1;
            if (c >= 0) {
                ragged_class *k = &classes[c];
                k->index[k->count++] = b;
                if (k->count == j->engine->rows.lanes)
                    ragged_fold(j, k);
            } else if (j->row_threads <= 1 || n < SB_THREADED_MIN_N) {
                reduce_row(j, b, 1);
            }
            b++;
        }
        ragged_flush(j, classes);
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
    } else {
        const size_t row = j->n + ROW_COST;   /* checked: no overflow */
        j->rows_per_task = row >= TASK_COST ? 1 : TASK_COST / row;
        /* Rows side by side go a register's lanes of rows at a time. */
        if (side_by_side(j)) {
            const size_t w = j->engine->rows.lanes;
            j->rows_per_task = (j->rows_per_task + w - 1) / w * w;
        }
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
    if (j->offsets != NULL) {
        /* Segments: one task on one thread, else tasks as large as keep
         * every thread busy (8 each), so that a task's length classes
         * fill (ragged_class). */
        j->task_cost = total / ((uint64_t)threads * 8);
        if (j->task_cost < TASK_COST)
            j->task_cost = TASK_COST;
        if (j->task_cost > SEGMENT_TASK_MOST)
            j->task_cost = SEGMENT_TASK_MOST;
        if (threads <= 1)
            j->task_cost = total;
        j->task_count = (size_t)((total + j->task_cost - 1) / j->task_cost);
    }
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

/* ---- columns: the panels of host_columns.c ------------------------------ */

/* A batch whose reductions are columns: adjacent reductions a few bytes
 * apart (|batch_stride| * size <= 64, so a panel's elements of one
 * position share a few cache lines) and each one's elements further
 * apart than that. Anything else (rows, zero strides, overlapping
 * shapes) reads better one reduction at a time. */
static bool columns_fit(const sb__plan *p, size_t n, ptrdiff_t es,
                        size_t count, ptrdiff_t bs)
{
    const size_t b = sb__stride_magnitude(bs);
    const size_t e = sb__stride_magnitude(es);
    return n > 0 && count > 1 && b != 0 && b < e
        && b * p->input_size <= 64
        && sb__column_fold(p, SB_ISA_BASELINE) != NULL;
}

/* Writes reduction b's answer from its root. */
static void column_answer(const sb__column_job *j, size_t b,
                          const sb__node *root, bool overflow)
{
    const sb__plan *p = j->plan;
    sb_status s;
    if (p->checked && overflow)
        s = SB_OVERFLOW;
    else if (!root->has && (p->op == SB_MIN || p->op == SB_MAX))
        s = SB_EMPTY;
    else
        s = sb__finish(p, root, false, j->results + b * p->result_size);
    j->statuses[b] = s;
}

void sb__column_emit(const sb__column_job *j, size_t chunk, size_t b,
                     const void *value, size_t size, bool has,
                     bool overflow)
{
    sb__node node;
    memset(&node, 0, sizeof node);
    node.has = has;
    memcpy(node.v.bytes, value, size);
    if (j->roots == NULL) {
        column_answer(j, b, &node, overflow);
        return;
    }
    j->roots[chunk * j->count + b] = node;
    j->root_overflow[chunk * j->count + b] = overflow;
}

/* Columns per panel: as many as a heap merge stack of
 * SB_COLUMN_HEAP_VALUE_BYTES holds at j->slots, at most
 * SB_COLUMN_ROW_BYTES of a row, and no more than a thread's share of
 * the columns; a multiple of 16 (whole vectors). */
static size_t column_width(const sb__column_job *j, unsigned threads)
{
    const size_t size = j->plan->input_size;
    size_t w = SB_COLUMN_HEAP_VALUE_BYTES / (j->slots * size);
    const size_t row = SB_COLUMN_ROW_BYTES
                     / (size * sb__stride_magnitude(j->batch_stride));
    if (w > row)
        w = row;
    w = w / 16 * 16;   /* at least 496: 66 slots of 8 bytes, 64-byte steps */
    const size_t share = (j->count + threads - 1) / threads;
    const size_t share16 = (share + 15) / 16 * 16;
    return w < share16 ? w : share16;
}

/* Fewer panels than threads (a few long columns): cuts the positions
 * into chunks of a power of two of leaves, about four per thread, so
 * that every thread folds whole rows of the panel, and sets j->roots for
 * their roots. A panel shared out by columns instead read half rows on
 * two threads, 0.65 of the read (README: Performance). False without
 * the memory, or where the columns are too short to cut. */
static bool cut_positions(sb__column_job *j, unsigned threads)
{
    const size_t leaves = (j->n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;
    const size_t wanted = ((size_t)threads * 4 + j->panels - 1) / j->panels;
    const size_t per = sb__round_up_pow2((leaves + wanted - 1) / wanted);
    const size_t chunks = (leaves + per - 1) / per;
    if (chunks < 2 || j->count > SIZE_MAX / chunks
        || j->count * chunks > SIZE_MAX / (sizeof(sb__node) + 1))
        return false;
    unsigned char *mem =
        sb__host_malloc(j->count * chunks * (sizeof(sb__node) + 1));
    if (mem == NULL)
        return false;
    j->roots = (sb__node *)(void *)mem;
    j->root_overflow = mem + j->count * chunks * sizeof(sb__node);
    j->chunks = chunks;
    j->chunk_rows = per * SB_LEAF_SIZE;
    return true;
}

/* Each column's answer from its chunks' roots: the order's tree over
 * them (pairs from the left, an odd last one moving up), which is the
 * tree over the leaves because every chunk but the last is a whole
 * aligned subtree. */
static void combine_roots(const sb__column_job *j, sb__combine_fn combine)
{
    for (size_t b = 0; b < j->count; b++) {
        sb__node *r = j->roots + b;   /* chunk k's: r[k * count] */
        bool overflow = false;
        for (size_t k = 0; k < j->chunks; k++)
            overflow |= j->root_overflow[k * j->count + b] != 0;
        for (size_t m = j->chunks; m > 1; m = (m + 1) / 2) {
            for (size_t i = 0; 2 * i + 1 < m; i++) {
                sb__node left = r[2 * i * j->count];
                combine(&left, &r[(2 * i + 1) * j->count], &overflow);
                r[i * j->count] = left;
            }
            if (m % 2)
                r[(m / 2) * j->count] = r[(m - 1) * j->count];
        }
        column_answer(j, b, r, overflow);
    }
}

static void run_column_tasks(void *arg)
{
    sb__column_job *j = arg;
    void *state = NULL;
    if (j->states != NULL)
        state = j->states + atomic_fetch_add(&j->next_state, 1)
                            * sb__column_state_bytes(j->width, j->slots,
                                                     j->plan->input_size);
    const size_t size = j->plan->input_size;
    sb__fpenv env;
    sb__fpenv_enter(&env);
    for (;;) {
        const size_t t = atomic_fetch_add(&j->next_task, 1);
        if (t >= j->panels * j->chunks)
            break;
        const size_t chunk = t / j->panels;
        const size_t first = (t % j->panels) * j->width;
        const size_t cols = j->count - first < j->width
                          ? j->count - first : j->width;
        const size_t row = chunk * j->chunk_rows;
        const size_t n = j->n - row < j->chunk_rows ? j->n - row
                                                    : j->chunk_rows;
        const ptrdiff_t at = (ptrdiff_t)first * j->batch_stride
                           + (ptrdiff_t)row * j->elem_stride;
        j->fold(j, j->x + at * (ptrdiff_t)size,
                j->mask != NULL ? j->mask + at : NULL, n, chunk, first,
                cols, state);
    }
    sb__fpenv_leave(&env);
}

/* Every column of j: panels spread over the threads, or, with fewer
 * panels than threads, the chunks of every panel too. */
static void run_columns(sb__column_job *j, const sb__kernel *kernel)
{
    uint64_t total;   /* elements of the call */
    if (__builtin_mul_overflow((uint64_t)j->n, (uint64_t)j->count, &total))
        total = UINT64_MAX;
    const unsigned threads = total < SB_THREADED_MIN_N
                           ? 1 : sb_host_thread_count(j->opts);
    j->chunks = 1;
    j->chunk_rows = j->n;
    j->roots = NULL;
    j->slots = sb__column_slots(j->n);
    j->width = column_width(j, 1);
    j->panels = (j->count + j->width - 1) / j->width;
    if (threads > 1 && j->panels < threads && cut_positions(j, threads)) {
        j->slots = sb__column_slots(j->chunk_rows);
        j->width = column_width(j, 1);
    } else {
        j->width = column_width(j, threads);
    }
    /* A panel wider than a fold's stack frame holds gets a merge stack
     * on the heap, one per thread; without the memory, panels as narrow
     * as the frame holds (the same bits, slower). */
    const size_t narrow = sb__column_stack_width(j->slots,
                                                 j->plan->input_size);
    j->panels = (j->count + j->width - 1) / j->width;
    const size_t tasks = j->panels * j->chunks;
    const unsigned workers = tasks < threads ? (unsigned)tasks : threads;
    j->states = NULL;
    if (j->width > narrow) {
        j->states = sb__host_malloc(workers * sb__column_state_bytes(
                j->width, j->slots, j->plan->input_size));
        if (j->states == NULL) {
            j->width = narrow;
            j->panels = (j->count + j->width - 1) / j->width;
        }
    }
    atomic_init(&j->next_task, 0);
    atomic_init(&j->next_state, 0);
    const size_t all = j->panels * j->chunks;
    sb__run_on_threads(run_column_tasks, j,
                       all < threads ? (unsigned)all : threads);
    free(j->states);
    if (j->roots != NULL) {
        combine_roots(j, kernel->combine);
        free(j->roots);
    }
}

/* The column path of sb_reduce_batched_host(), after its checks. */
static sb_status reduce_columns(const sb__plan *plan, const void *x,
                                const unsigned char *mask, size_t n,
                                ptrdiff_t elem_stride, size_t count,
                                ptrdiff_t batch_stride, void *results,
                                sb_status *statuses,
                                const sb_host_options *opts)
{
    unsigned isa;
    const sb_status isa_status = sb__isa_resolve(opts ? opts->isa : 0, &isa);
    SB_RETURN_IF(isa_status != SB_OK, isa_status);
    sb__column_job j = {
        .plan = plan, .fold = sb__column_fold(plan, isa), .x = x,
        .mask = mask, .n = n, .elem_stride = elem_stride,
        .batch_stride = batch_stride, .count = count, .results = results,
        .statuses = statuses, .opts = opts,
    };
    sb__fpenv env;
    sb__fpenv_enter(&env);
    run_columns(&j, sb__host_kernel(plan, isa));
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
