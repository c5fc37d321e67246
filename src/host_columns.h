/* host_columns.h: the column folds of sb_reduce_batched_host()
 * (host_columns.c, built once per instruction set like host_kernels.c),
 * and what host_batched.c, which drives them, shares with them. */
#ifndef SB_HOST_COLUMNS_H
#define SB_HOST_COLUMNS_H

#include <stdatomic.h>
#include "host_engine.h"

/* A panel's merge stack holds a slot per level per column, the top slot
 * being the open leaf (sb__column_slots()). It is on the heap, up to
 * SB_COLUMN_HEAP_VALUE_BYTES of values and a flag byte per value (in L2
 * on the machines measured),
 * or, for narrow panels and when the memory is not there, in the
 * folding thread's stack frame: SB_COLUMN_STACK_*_BYTES. A panel reads
 * at most SB_COLUMN_ROW_BYTES of a row (README: Performance). */
#define SB_COLUMN_HEAP_VALUE_BYTES  ((size_t)256 * 1024)
#define SB_COLUMN_ROW_BYTES         ((size_t)64 * 1024)
#define SB_COLUMN_STACK_VALUE_BYTES 16384
#define SB_COLUMN_STACK_FLAG_BYTES  4096
#define SB_COLUMN_LEVELS            66   /* slots for any n: 64 + 2 */

typedef struct sb__column_job sb__column_job;

/* Folds positions [0, n) (n > 0) of the `cols` (<= j->width) reductions
 * first, first + 1, ... whose elements are x[c * batch_stride + i *
 * elem_stride], and hands each root to sb__column_emit() with `chunk`.
 * `state` holds a merge stack for j->width columns
 * (sb__column_state_bytes()), or is NULL where j->width <=
 * sb__column_stack_width(): the fold's stack frame holds it. */
typedef void (*sb__column_fn)(const sb__column_job *j, const void *x,
                              const unsigned char *mask, size_t n,
                              size_t chunk, size_t first, size_t cols,
                              void *state);

struct sb__column_job {
    const sb__plan        *plan;
    sb__column_fn          fold;
    const unsigned char   *x;             /* element (0, 0) */
    const unsigned char   *mask;
    size_t                 n;
    ptrdiff_t              elem_stride;
    ptrdiff_t              batch_stride;
    size_t                 count;
    unsigned char         *results;
    sb_status             *statuses;
    const sb_host_options *opts;          /* NULL: the defaults */
    size_t                 slots;         /* sb__column_slots() of the
                                             longest chunk */
    size_t                 width;         /* columns per panel */
    size_t                 panels;
    /* Few columns on many threads: positions cut into `chunks` aligned
     * subtrees of chunk_rows (a power of two of leaves), each folded
     * apart into roots[chunk * count + b] (root_overflow likewise);
     * else chunks = 1 and roots = NULL. */
    size_t                 chunk_rows;
    size_t                 chunks;
    sb__node              *roots;
    unsigned char         *root_overflow;
    atomic_size_t          next_task;     /* panel-major within a chunk */
    unsigned char         *states;        /* a heap merge stack per thread,
                                             or NULL */
    atomic_size_t          next_state;
};

/* Merge stack slots per column for columns of n > 0 elements: one per
 * binary digit of the leaf count, and the open leaf. */
static inline size_t sb__column_slots(size_t n)
{
    const size_t leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;
    return (size_t)(64 - __builtin_clzll((unsigned long long)leaves)) + 1;
}

/* Columns a fold's stack frame holds at `slots` slots of `size`-byte
 * values: a multiple of 16, at least 16 (slots <= SB_COLUMN_LEVELS). */
static inline size_t sb__column_stack_width(size_t slots, size_t size)
{
    size_t w = SB_COLUMN_STACK_VALUE_BYTES / (slots * size);
    if (w > SB_COLUMN_STACK_FLAG_BYTES / slots)
        w = SB_COLUMN_STACK_FLAG_BYTES / slots;
    return w / 16 * 16;
}

/* Bytes of the values of a heap merge stack of `width` columns of
 * `size`-byte values, rounded up to 8 (the has-flags follow them). */
static inline size_t sb__column_value_bytes(size_t width, size_t slots,
                                            size_t size)
{
    return (slots * width * size + 7) / 8 * 8;
}

/* Bytes of a heap merge stack: values, has-flags, overflow flags. */
static inline size_t sb__column_state_bytes(size_t width, size_t slots,
                                            size_t size)
{
    return sb__column_value_bytes(width, slots, size) + slots * width
         + width;
}

/* Reduction b's root of positions `chunk` (`value` of `size` bytes):
 * its answer, as sb__reduce_row() would give it (overflow and empty
 * first, no error detail), or, when j->roots is set, its chunk's root. */
void sb__column_emit(const sb__column_job *j, size_t chunk, size_t b,
                     const void *value, size_t size, bool has,
                     bool overflow);

/* The column fold of a plan built for `isa` (SB_ISA_BASELINE, AVX2,
 * AVX512: one this CPU runs), or NULL where the plan keeps the gather
 * path (the same plans for every isa). */
sb__column_fn sb__column_fold(const sb__plan *plan, unsigned isa);
sb__column_fn sb__column_fold_baseline(const sb__plan *plan);
sb__column_fn sb__column_fold_avx2(const sb__plan *plan);
sb__column_fn sb__column_fold_avx512(const sb__plan *plan);

#endif
