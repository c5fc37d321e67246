/* host_engine.h: the host path's private pieces: tree nodes, the typed
 * block kernels (host_kernels.c), conversions (host_convert.c), the
 * result (host_reduce.c), the floating-point environment (fpenv.c) and
 * the overflow locator (host_overflow.c). */
#ifndef SB_HOST_ENGINE_H
#define SB_HOST_ENGINE_H

#include "plan.h"

#define SB_BLOCK_LEAVES  256                    /* leaves per host block */
#define SB_BLOCK_SIZE    (SB_LEAF_SIZE * SB_BLOCK_LEAVES)
#define SB_MAX_THREADS   256u                   /* samebits.h promises it */

/* A node of the reduction tree: a value of the accumulator type, or none. */
typedef struct {
    union {
#define SB_NODE_FIELD_(e, tag, ctype, f, s, cl) ctype tag;
        SB_TYPE_LIST(SB_NODE_FIELD_)
#undef SB_NODE_FIELD_
        unsigned char bytes[8];
    } v;
    bool has;             /* false: none (nothing took part) */
    uint64_t where;       /* argmin / argmax only (plan->arg): the position
                             of the element whose value this is, counted
                             from the first element of what the node was
                             reduced from; unset for the other ops */
} sb__node;

/* Folds `count` (1..SB_BLOCK_SIZE) accumulator-typed elements starting at
 * an aligned block boundary into the node of that block's 256-leaf subtree.
 * `mask` may be NULL. Sets *overflow on a checked-arithmetic overflow.
 * `prefetch`: how many bytes ahead of what it folds a full float block
 * asks the CPU to fetch (0: none); speed only, never the bits. */
typedef void (*sb__block_fn)(const void *x, const unsigned char *mask,
                             size_t count, size_t prefetch, sb__node *out,
                             bool *overflow);
/* *left = combine(*left, *right) (docs/order.md), none-aware. */
typedef void (*sb__combine_fn)(sb__node *left, const sb__node *right,
                               bool *overflow);

/* `prefetches`: which of block's full blocks read `prefetch`, an OR of
 * SB_PREFETCH_UNMASKED and SB_PREFETCH_MASKED (host_prefetch.c measures
 * a fold's own distance only where it is read: a fold that ignores it
 * would keep whichever distance the noise favoured). Consulted for plans
 * folded from the input as it is (not prepared); a prepared plan's
 * blocks fold a converted copy, and its measurement is its block map's
 * or masked block's (host_reduce.c, prefetch_measurement). */
#define SB_PREFETCH_UNMASKED 1u
#define SB_PREFETCH_MASKED   2u
typedef struct {
    sb__block_fn   block;
    sb__combine_fn combine;
    unsigned       prefetches;
} sb__kernel;

/* A full (SB_BLOCK_SIZE), unmasked block of a float plan whose input is
 * its accumulator, of f16 / bf16 into f32 or into their own type, or of
 * f32 / f16 / bf16 / i32 into f64: each element converted, then mapped
 * (`map`) or, with y not NULL, multiplied by y's, as it is folded: the
 * node of sb__prepare() followed by the block kernel, without the pass
 * between. Also the sum, min and max of an integer widening, and the
 * maps and dot products of 32- and 64-bit integers and of integer
 * widenings. false: this block takes sb__prepare() instead (an integer
 * map or product that could leave the accumulator). NaN skipping never
 * takes it (sb__masked_block_fn does, mask or not). */
typedef bool (*sb__block_map_fn)(const void *x, const void *y, sb_map map,
                                 size_t prefetch, sb__node *out);
/* The node of one full block of x with a mask, or skipping NaNs with a
 * mask or NULL, read as stored: a fold that converts its elements as it
 * loads them (host_kernels.c), asking for the lines `prefetch` bytes
 * ahead. false: this block takes sb__prepare() instead (a NaN taking
 * part in a masked min or max, an integer map that could overflow). */
typedef bool (*sb__masked_block_fn)(const void *x, const unsigned char *mask,
                                    size_t prefetch, sb__node *out);

/* The host path's heap allocations, every one optional: without the
 * memory each call takes a slower way to the same bits (a chunk node per
 * thread, a column panel's merge stacks, cut columns, the overflow
 * locator's buffer). Through this pointer, malloc by default, so that
 * tests/test_host_memory.c can make each fail in turn. */
extern void *(*sb__host_malloc)(size_t size);

/* The host folds' prefetch distance in bytes (sb__block_fn,
 * host_prefetch.c): the SAMEBITS_PREFETCH environment variable when it is
 * a decimal number of bytes (0: no software prefetch), else the distance
 * measured fastest on this CPU, else (not measured yet)
 * SB_PREFETCH_DEFAULT. Read per call, as SAMEBITS_ISA is, so a benchmark
 * can sweep it in one process. sb__host_prefetch_bytes() is the default
 * distance (measured on the plain float folds, measurement 0), which
 * POCL's launches and the folds that measure nothing take;
 * sb__prefetch_distance(fold) a fold's own (measurement `fold`, from
 * sb__prefetch_fold(); until it is kept, or for -1, the default). */
#define SB_PREFETCH_DEFAULT 4096
size_t sb__host_prefetch_bytes(void);
size_t sb__prefetch_distance(int fold);
/* The measurement of the fold whose full blocks `code` folds, told apart
 * by `variant` (SB_PREFETCH_VARIANT: whether a mask is read beside them,
 * the map, a second array, more than one thread), added under `name`
 * (sb_prefetch_fold) the
 * first time (name NULL: only looked up); -1 for none: not added, every
 * one of SB_PREFETCH_FOLDS taken, the lock busy, or SAMEBITS_PREFETCH
 * set. */
#define SB_PREFETCH_VARIANT(masked, map, dot, threaded)                     \
    ((unsigned)(masked) | (unsigned)(map) << 1 | (unsigned)(dot) << 3 |     \
     (unsigned)(threaded) << 4)
int sb__prefetch_fold(const void *code, unsigned variant, const char *name);
/* While measuring (no SAMEBITS_PREFETCH, nothing kept yet for `fold`),
 * a large fold takes turns: a span (SB_PREFETCH_SPAN_BLOCKS blocks) on
 * turn `turn` folds at sb__prefetch_span_distance(fold, turn) and reports
 * its time with sb__prefetch_span_record(); once one is kept, every span
 * gets it. On one thread each span is a turn of its own (its index); on
 * several, every span of a call takes the call's turn
 * (sb__prefetch_call_turn(), one per call), so that all threads fold at
 * one distance at a time: a span beside another thread's at the other
 * distance would time the two together. */
#define SB_PREFETCH_SPAN_BLOCKS 64
#define SB_PREFETCH_MEASURED_BYTES ((size_t)64 << 20)   /* calls this big */
bool sb__prefetch_measuring(int fold);
size_t sb__prefetch_call_turn(int fold);
size_t sb__prefetch_span_distance(int fold, size_t turn);
void sb__prefetch_span_record(int fold, size_t turn, uint_least64_t bytes,
                              uint_least64_t ns);
uint_least64_t sb__prefetch_clock_ns(void);
/* The distance the calling thread's last contiguous host reduction of 1
 * MiB or more took (spans that measured aside; a batch row on one thread:
 * where its fold has a measurement): for
 * tests/test_host_prefetch.c, which checks that a fold keeps what it
 * measured. */
extern _Thread_local size_t sb__prefetch_last_call;

/* The host kernel of a plan's (accumulator, op, wrap) in the copy of
 * host_kernels.c built for `isa` (SB_ISA_BASELINE, SB_ISA_AVX2,
 * SB_ISA_AVX512: one this CPU runs, see sb__isa_resolve()); NULL for
 * any/all. */
const sb__kernel *sb__host_kernel(const sb__plan *plan, unsigned isa);
const sb__kernel *sb__host_kernel_baseline(const sb__plan *plan);
const sb__kernel *sb__host_kernel_avx2(const sb__plan *plan);
const sb__kernel *sb__host_kernel_avx512(const sb__plan *plan);
/* argmin / argmax (host_arg.c): one scalar copy for every instruction
 * set; `where` of a block's node counts from the block's first element. */
const sb__kernel *sb__host_kernel_arg(const sb__plan *plan);

/* The instruction set a call with `requested` (sb_host_options.isa) runs:
 * SB_OK with *isa set (never SB_ISA_AUTO); SB_INVALID_ARGUMENT for a value
 * that names none, SB_UNSUPPORTED for one this build or CPU cannot run
 * (both with a detail). */
sb_status sb__isa_resolve(unsigned requested, unsigned *isa);

/* Whether this CPU converts binary16 with F16C (x86-64 builds with the
 * instruction-set copies only; false elsewhere). */
bool sb__cpu_has_f16c(void);

/* The sb__block_map_fn of a prepared plan in the copy built for `isa`,
 * or NULL where blocks take sb__prepare() or the masked blocks (integer
 * inputs into floats but i32 into f64, NaN skipping, products of
 * integer widenings, maps and dot products of 8- and 16-bit integers
 * into their own type and of wrapping plans). */
sb__block_map_fn sb__host_block_map(const sb__plan *plan, unsigned isa);
/* The sb__masked_block_fn of a prepared plan in the copy built for
 * `isa`, or NULL where masked blocks take sb__prepare(). */
sb__masked_block_fn sb__host_masked_block(const sb__plan *plan, unsigned isa);
sb__masked_block_fn sb__host_masked_block_baseline(const sb__plan *plan);
sb__masked_block_fn sb__host_masked_block_avx2(const sb__plan *plan);
sb__masked_block_fn sb__host_masked_block_avx512(const sb__plan *plan);
sb__block_map_fn sb__host_block_map_baseline(const sb__plan *plan);
sb__block_map_fn sb__host_block_map_avx2(const sb__plan *plan);
sb__block_map_fn sb__host_block_map_avx512(const sb__plan *plan);

/* The root node of x[0..n) (sum, prod, min, max) on up to `threads`
 * threads (0: the default) with the kernels of `isa`; the caller holds
 * the floating-point environment. For an aligned subtree of a longer
 * array (n = 2^j leaves starting at a multiple of 2^j leaves) this is that
 * subtree's node. */
sb__node sb__reduce_node(const sb__plan *plan, const void *x,
                         const void *y, const unsigned char *mask, size_t n,
                         unsigned threads, unsigned isa, bool *overflow);

/* `lanes` unmasked rows of n > 0 elements folded side by side (row k at
 * x + k * pitch elements), each row's root value (every row has one)
 * written to roots[k]: the bits of sb__reduce_row() of each row. fn is
 * NULL where a plan has none (host_kernels.c: float sums, products, min
 * and max of the input as it is). */
typedef void (*sb__rows_fn)(const void *x, size_t n, ptrdiff_t pitch,
                            void *roots);
/* The same for `lanes` segments of different lengths: segment k is
 * elements starts[k] .. ends[k] of x, n_k > 0. Its leaves past the
 * fewest full leaves of any lane cost every lane a leaf, so the caller
 * keeps the lengths close (host_batched.c), and loads whole leaves: the
 * caller keeps L - 1 elements of x readable past every segment's end. */
typedef void (*sb__ragged_fn)(const void *x, const uint64_t *starts,
                              const uint64_t *ends, void *roots);
typedef struct {
    sb__rows_fn   fn;
    sb__ragged_fn ragged;
    unsigned      lanes;
} sb__rows_kernel;
sb__rows_kernel sb__host_rows(const sb__plan *plan, unsigned isa);
sb__rows_kernel sb__host_rows_baseline(const sb__plan *plan);
sb__rows_kernel sb__host_rows_avx2(const sb__plan *plan);
sb__rows_kernel sb__host_rows_avx512(const sb__plan *plan);

/* One reduction of a batch (host_batched.c): what every row shares,
 * looked up once per call. */
typedef struct {
    const sb__plan  *plan;
    const sb__kernel *kernel;       /* NULL for any/all */
    sb__block_map_fn block_map;     /* NULL: sb__prepare() */
    sb__masked_block_fn masked_block; /* NULL: sb__prepare() */
    size_t           prefetch;      /* sb__host_prefetch_bytes() */
    unsigned         isa;
    sb__rows_kernel  rows;          /* fn NULL: one row at a time */
} sb__row_engine;

void sb__row_engine_init(sb__row_engine *e, const sb__plan *plan,
                         unsigned isa);

/* The result of sb_reduce_host() of the n elements x[i * stride]
 * (mask[i * stride] likewise; mask may be NULL), stride in elements, any
 * sign: SB_OK with `result` written, or SB_EMPTY or SB_OVERFLOW with
 * `result` untouched and no error detail. Runs on the calling thread,
 * or, when threads > 1 and the row is long, on up to `threads` threads
 * (host_pool.c). The caller holds the floating-point environment and
 * has checked that every address is valid and that n * stride * size
 * fits a ptrdiff_t. A stride other than 1 gathers each 4096-element
 * block (and its mask) into a buffer before the block kernel folds it. */
sb_status sb__reduce_row(const sb__row_engine *e, const void *x,
                         const unsigned char *mask, size_t n,
                         ptrdiff_t stride, unsigned threads, void *result);

/* |stride| as a size_t, exact for PTRDIFF_MIN too. */
static inline size_t sb__stride_magnitude(ptrdiff_t stride)
{
    return stride < 0 ? (size_t)0 - (size_t)stride : (size_t)stride;
}

/* The extent of a batch's elements x[b * batch_stride + i * elem_stride]
 * around element (0, 0): *below and *above elements (0 when n or count is
 * 0), checked so that every byte offset (elements of `size` bytes) fits a
 * ptrdiff_t. @return SB_OK, or SB_INVALID_ARGUMENT with a detail. */
sb_status sb__batch_extent(size_t n, ptrdiff_t elem_stride, size_t count,
                           ptrdiff_t batch_stride, size_t size,
                           size_t *below, size_t *above);

/* sb_reduce_batched_host() and sb_reduce_segments_host() with the host
 * options of sb_reduce_host_opts() (threads, isa; NULL: the defaults),
 * which never change the bits: what a context's sb_options.host gives the
 * device forms' read-back batches (device_batched.c). */
sb_status sb__reduce_batched_host_opts(sb_reduction r, const void *x,
                                       const unsigned char *mask, size_t n,
                                       ptrdiff_t elem_stride, size_t count,
                                       ptrdiff_t batch_stride, void *results,
                                       sb_status *statuses,
                                       const sb_host_options *opts);
sb_status sb__reduce_segments_host_opts(sb_reduction r, const void *x,
                                        const unsigned char *mask,
                                        const uint64_t *offsets, size_t count,
                                        void *results, sb_status *statuses,
                                        const sb_host_options *opts);

/* The least power of two >= v (1 for 0): chunks of aligned subtrees. */
static inline size_t sb__round_up_pow2(size_t v)
{
    size_t p = 1;
    while (p < v)
        p <<= 1;
    return p;
}

/* Rows at least this long are split over threads within the row. */
#define SB_THREADED_MIN_N ((size_t)1 << 18)

/* Runs fn(arg) on the calling thread and on up to `helpers` helper
 * threads kept between calls (host_pool.c), and returns when every
 * helper that joined has returned. fn must be correct with any number of
 * helpers, none included. false (nothing run) when another thread's job
 * holds the pool: the caller then starts threads of its own. */
typedef void (*sb__pool_fn)(void *arg);
bool sb__pool_run(sb__pool_fn fn, void *arg, unsigned helpers);

/* Runs fn(arg) on `threads` threads in all, the calling one included: the
 * pool's helpers when it is free, else threads of this call's own. A
 * thread that cannot be started is no error: fn must let the others, and
 * the caller, do its share (every user takes work from a shared counter). */
void sb__run_on_threads(sb__pool_fn fn, void *arg, size_t threads);

/* The elements the fold reads for a prepared plan (plan->prepared):
 * x[0..count) (and y, for a dot product) converted to the accumulator,
 * mapped or multiplied, into `out` (count accumulator elements). Returns
 * the mask the fold must use: `mask`, or `mask_out` (count bytes, written)
 * when NaNs are skipped. Sets *overflow when a checked plan's map or
 * product does not fit. */
const unsigned char *sb__prepare(const sb__plan *plan, const void *x,
                                 const void *y, const unsigned char *mask,
                                 size_t count, void *out,
                                 unsigned char *mask_out, bool *overflow);
/* sb__prepare() in the copy built for `isa` (host_prepare.c is compiled
 * once per instruction set, as host_kernels.c: its conversions and loops
 * are exact, so every copy writes the same values (a signalling f16 NaN
 * may come out quiet, and a NaN result is the canonical one anyway);
 * sb__prepare() itself is
 * the baseline copy, for the few elements of a partial's leaf or of an
 * overflow's search). */
typedef const unsigned char *(*sb__prepare_fn)(const sb__plan *plan,
        const void *x, const void *y, const unsigned char *mask, size_t count,
        void *out, unsigned char *mask_out, bool *overflow);
sb__prepare_fn sb__host_prepare(unsigned isa);
const unsigned char *sb__prepare_baseline(const sb__plan *plan,
        const void *x, const void *y, const unsigned char *mask, size_t count,
        void *out, unsigned char *mask_out, bool *overflow);
const unsigned char *sb__prepare_avx2(const sb__plan *plan,
        const void *x, const void *y, const unsigned char *mask, size_t count,
        void *out, unsigned char *mask_out, bool *overflow);
const unsigned char *sb__prepare_avx512(const sb__plan *plan,
        const void *x, const void *y, const unsigned char *mask, size_t count,
        void *out, unsigned char *mask_out, bool *overflow);

/* Converts `count` elements from `input` to `acc` (an allowed pair,
 * input != acc). */
void sb__convert(sb_type input, sb_type acc, const void *in, void *out,
                 size_t count);

/* Writes the root (or the empty-input answer) to result.
 * @return SB_OK, SB_EMPTY or SB_OVERFLOW; result untouched unless SB_OK. */
sb_status sb__finish(const sb__plan *plan, const sb__node *root,
                     bool overflow, void *result);

/* After a checked reduction of x[0..n) overflowed: sets the error detail
 * to the first node (in the tree's evaluation order, leftmost first) whose
 * exact value does not fit the accumulator, e.g. "the i64 sum overflows in
 * the node of positions 0..31". Runs on the calling thread; only on that
 * error path. Returns SB_OVERFLOW. */
sb_status sb__overflow_explain(const sb__plan *plan, const void *x,
                               const void *y, const unsigned char *mask,
                               size_t n);

/* The floating-point environment docs/order.md needs: round to nearest
 * even, no flush-to-zero or denormals-are-zero, exceptions masked. */
typedef struct { unsigned long long saved[8]; } sb__fpenv;
void sb__fpenv_enter(sb__fpenv *saved);
void sb__fpenv_leave(const sb__fpenv *saved);

#endif /* SB_HOST_ENGINE_H */
