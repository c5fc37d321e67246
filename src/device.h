/* device.h: the OpenCL runtime's private types and the functions its files
 * share: device_context.c (contexts, options), device_select.c (numbering
 * and choosing devices), device_caps.c (what a device can do),
 * device_programs.c (building and caching kernels), device_scratch.c (the
 * scratch-buffer pool) and device_reduce.c (launches). */
#ifndef SB_DEVICE_H
#define SB_DEVICE_H

#include <pthread.h>
#include <stdatomic.h>
#include "cl_api.h"
#include "plan.h"

#define SB_DEFAULT_HOST_MAX_N     32768u
#define SB_DEFAULT_TREE_WG        64u
#define SB_DEFAULT_NODES_PER_ITEM 16u
#define SB_MAX_PER_ITEM_LOG2      7     /* up to 128 leaves or nodes per item */
#define SB_MAX_PER_ITEM           (1u << SB_MAX_PER_ITEM_LOG2)
/* sb_rows (cl/reduce.cl): one work-item per row (or per sb__row_lanes()
 * rows side by side), rows of up to 2^SB_ROWS_MAX_LEAVES_LOG2 leaves
 * (2^18 elements). */
#define SB_ROWS_MAX_LEAVES_LOG2   14
#define SB_SCRATCH_SLOTS          64

/* The kernel families, one per (operation, integer mode): X(enum suffix,
 * name). Each family is a program of its own (cl/ops.cl takes its
 * operation from -DSB_OP), with the kernels sb_leaves and sb_nodes. A
 * count is a wrapping u64 sum whose term is 1 per taking-part element
 * (-DSB_COUNT=1: cl/ops.cl). argmin / argmax are min / max whose nodes
 * carry positions (-DSB_ARG=1: cl/reduce.cl). */
#define SB_KERNEL_FAMILY_LIST(X)                                          \
    X(SUM, sum) X(PROD, prod) X(SUMWRAP, sumwrap) X(PRODWRAP, prodwrap)   \
    X(MIN, min) X(MAX, max) X(ANY, any) X(ALL, all) X(CNT, count)      \
    X(ARGMIN, argmin) X(ARGMAX, argmax)

typedef enum {
#define SB_FAMILY_ENUM_(e, name) SB_FAMILY_##e,
    SB_KERNEL_FAMILY_LIST(SB_FAMILY_ENUM_)
#undef SB_FAMILY_ENUM_
    SB_FAMILY_COUNT
} sb__kernel_family;

typedef enum { SB_PASS_LEAVES, SB_PASS_NODES, SB_PASS_ROWS,
               SB_PASS_COLUMNS, SB_PASS_SEGMENTS,
               SB_PASS_COUNT } sb__kernel_pass;

/* What else tells a family's programs apart (cl/types.cl): the map, or a
 * dot product (0 plain, 1 abs, 2 square, 3 dot), whether NaNs are skipped
 * (+4), and whether an integer map wraps where the family does not say so,
 * for min and max (+8). */
#define SB_VARIANT_COUNT 16
unsigned sb__kernel_variant_of(const sb__plan *plan);

/* The family of a plan's operation and integer mode. */
sb__kernel_family sb__kernel_family_of(const sb__plan *plan);

/* A scratch buffer of the context, reused by later reductions once the
 * commands that used it have completed. */
typedef struct {
    cl_mem   buf;
    size_t   size;
    cl_event last_use;   /* NULL: free now */
    int      busy;       /* taken by a reduction being enqueued */
} sb__scratch;

struct sb_context {
    cl_context       cl_ctx;
    cl_device_id     device;
    cl_command_queue own_queue;    /* used when the caller passes NULL */
    sb_options       opts;
    sb_device_caps   caps;
    cl_device_type   device_type;  /* CL_DEVICE_TYPE (caps has is_gpu only) */
    int              simulator_checker; /* device_programs.c keeps out of
                                           Oclgrind's uninitialised-value
                                           checker's way */
    char             extensions[8192];
    size_t           spread_groups; /* 0, or (a CPU device whose
                                       leaves_per_item samebits chose) the
                                       work-groups a launch keeps at least
                                       by taking fewer leaves per item */
    pthread_mutex_t  lock;         /* guards everything below but the atomic */
    cl_program       programs[SB_LAST_TYPE + 1][SB_LAST_TYPE + 1]
                             [SB_FAMILY_COUNT][SB_VARIANT_COUNT];
    cl_kernel        kernels[SB_LAST_TYPE + 1][SB_LAST_TYPE + 1]
                            [SB_FAMILY_COUNT][SB_VARIANT_COUNT][SB_PASS_COUNT];
    sb__scratch      scratch[SB_SCRATCH_SLOTS];
    char            *build_log;
    atomic_int       last_cl_error; /* any thread may record a failure */
};

/* The leaves per work-item of a launch over `leaves` leaves in groups of
 * wg items: the context's, halved (not below 32) while the launch would
 * have fewer than ctx->spread_groups work-groups. Any value gives the same
 * bits (each item's leaves are an aligned subtree). */
static inline unsigned sb__spread_lpi(const sb_context *ctx, size_t leaves,
                                      size_t wg)
{
    unsigned lpi = ctx->opts.leaves_per_item;
    while (lpi > 32 && (leaves + wg * lpi - 1) / (wg * lpi) < ctx->spread_groups)
        lpi /= 2;
    return lpi;
}

/* Whether sb_reduce() of n elements on ctx takes its host shortcut
 * (samebits.h: host_max_n, SB_OPT_NO_HOST); the batched forms follow the
 * same rule. */
static inline bool sb__host_takes(const sb_context *ctx, uint64_t n)
{
    return n <= ctx->opts.host_max_n && !(ctx->opts.flags & SB_OPT_NO_HOST);
}

/* A call's arguments after sb__check_call(): its plan, and the queue to
 * use (the context's own when the caller passed NULL). */
typedef struct {
    sb__plan         plan;
    cl_command_queue queue;
} sb__checked_call;

/* Checks everything sb_reduce() checks before it enqueues anything: ctx,
 * the reduction, the queue (its context and device), x and mask (their
 * context, and that they hold the range, overflow-safe), and that the
 * device computes the types exactly. */
sb_status sb__check_call(sb_context *ctx, cl_command_queue queue,
                         sb_reduction r, cl_mem x, size_t x_offset,
                         cl_mem mask, size_t mask_offset, size_t n,
                         sb__checked_call *out);

/* The record a launch chain writes: an sb_device_result, or for argmin /
 * argmax an sb_device_arg_result. Its size; the unit check_buffer's
 * message names; its status; its value as a result (an sb_arg_result for
 * argmin / argmax); a record made of a status and (if SB_OK) a result;
 * and sb__record_read(), a blocking call's reading: SB_OK and the result,
 * or SB_EMPTY / SB_OVERFLOW with their detail, or SB_OPENCL_ERROR for a
 * status that is none. */
size_t sb__record_size(const sb__plan *plan);
const char *sb__record_unit(const sb__plan *plan);
sb_status sb__record_status(const sb__plan *plan, const unsigned char *record);
void sb__record_value(const sb__plan *plan, const unsigned char *record,
                      void *result);
void sb__record_write(const sb__plan *plan, sb_status status,
                      const void *result, unsigned char *record);
sb_status sb__record_read(const sb__plan *plan, const unsigned char *record,
                          void *result);

/* The end of an enqueue form that succeeded: flushes `queue`, so that a
 * caller may poll its event or wait for it on another queue, and hands
 * `ev` (the last command's event) to *done, or releases it when done is
 * NULL. */
void sb__hand_over(cl_command_queue queue, cl_event ev, cl_event *done);

/* Whether sb__enqueue_rows() takes count rows of n elements on this
 * device: n > 0; a CPU device's rows of up to 2^SB_ROWS_MAX_LEAVES_LOG2
 * leaves, a GPU's of up to SB_MAX_PER_ITEM, llvmpipe's of up to
 * SB_LLVMPIPE_ROW_LEAVES (its loop limit: src/device_reduce.c); and rows
 * of more than SB_ROWS_ALWAYS_N elements only SB_ROWS_MIN_COUNT or more
 * at a time (a work-item each, or each 4 to 16: fewer would leave cores
 * idle; with 8 rows per item, 64 rows are 8 items, which may leave a
 * larger CPU's cores idle: not measured). */
enum { SB_ROWS_ALWAYS_N = 1 << 13, SB_ROWS_MIN_COUNT = 64,
       SB_LLVMPIPE_ROW_LEAVES = 1 << 11 };
bool sb__rows_kernel_takes(const sb_context *ctx, size_t n, size_t count);

/* Enqueues `rows` reductions of n elements (n > 0, checked, and taken by
 * sb__rows_kernel_takes()), row b at elements x_offset + b * row_stride
 * of x (and of the mask), as one launch of sb_rows (cl/reduce.cl), whose
 * event is *done: record b (sb__record_size() bytes) at byte res_offset +
 * b * sb__record_size() of res. Takes ctx->lock. Nothing is enqueued on
 * an error. */
sb_status sb__enqueue_rows(sb_context *ctx, const sb__checked_call *c,
                           cl_mem x, size_t x_offset, cl_mem mask,
                           size_t mask_offset, size_t n, size_t rows,
                           ptrdiff_t row_stride, cl_mem res, size_t res_offset,
                           cl_uint num_wait, const cl_event *wait,
                           cl_event *done);

/* The longest segment (in elements) the segments kernel folds on this
 * device: a work-item per segment, as the rows kernel's items (2^18
 * elements on a CPU device, 2048 on a GPU, 2^15 on llvmpipe). */
size_t sb__segments_kernel_most(const sb_context *ctx);

/* Enqueues one launch of sb_segments (cl/reduce.cl) over `count` checked
 * segments whose offsets are the count + 1 uint64_t from element
 * offsets_offset of `offsets`, relative to x_offset (and mask_offset),
 * whose event is *done: record b at byte res_offset + b *
 * sb__record_size() of res, for the segments of least_n to most_n
 * elements (most_n <= sb__segments_kernel_most()); the others' records
 * say empty. Takes ctx->lock. Nothing is enqueued on an error. */
sb_status sb__enqueue_segments(sb_context *ctx, const sb__checked_call *c,
                               cl_mem x, size_t x_offset, cl_mem mask,
                               size_t mask_offset, cl_mem offsets,
                               size_t offsets_offset, size_t count,
                               size_t least_n, size_t most_n, cl_mem res,
                               size_t res_offset, cl_uint num_wait,
                               const cl_event *wait, cl_event *done);

/* How many columns side by side the plan's sb_columns folds in vector
 * lanes on this device (16 for binary32 accumulators, 8 for binary64),
 * or 0 where its program has no lanes (cl/reduce.cl: SB_LANE_LEAVES). */
unsigned sb__column_lanes(const sb_context *ctx, const sb__plan *plan);

/* How far ahead sb_leaves, sb_rows and sb_segments prefetch, in bytes
 * (their last argument, `ahead`): on POCL's CPU devices the host path's
 * distance at the time of the launch (SAMEBITS_PREFETCH,
 * sb_host_prefetch(): measured by the host folds on the same CPU), else
 * 0. An argument and not a build option, so that the program, and
 * POCL's cache of it, does not depend on what a timing chose. */
cl_uint sb__device_prefetch_bytes(const sb_context *ctx);

/* How many rows side by side the plan's sb_rows folds in vector lanes on
 * this device (an unmasked batch of that many rows or more), or 0 where
 * it folds each row alone (cl/reduce.cl: SB_ROWS_LANES): on a CPU device
 * 8 for binary32, 4 for binary64, 16 for half inputs and accumulators;
 * none on a GPU, whose threads read side by side already and would hold
 * that many rows' counters each. */
unsigned sb__row_lanes(const sb_context *ctx, const sb__plan *plan);

/* Whether sb__enqueue_columns() takes count columns of n elements: no
 * mask, columns side by side (batch stride 1), n from 2 up to
 * 2^(SB_ROWS_MAX_LEAVES_LOG2 + 4), a program with lanes and a block of
 * lanes' worth of columns at least. Other strided batches are mapped and
 * folded by the host (src/device_batched.c). */
bool sb__columns_kernel_takes(const sb_context *ctx, const sb__plan *plan,
                              bool masked, size_t n, ptrdiff_t elem_stride,
                              size_t count, ptrdiff_t batch_stride);

/* Enqueues `columns` reductions of n elements taken by
 * sb__columns_kernel_takes(), column b at element x_offset + b of x, its
 * elements elem_stride apart, as one launch of sb_columns (cl/reduce.cl),
 * whose event is *done: record b at byte res_offset + b *
 * sb__record_size() of res. Takes ctx->lock. Nothing is enqueued on an
 * error. */
sb_status sb__enqueue_columns(sb_context *ctx, const sb__checked_call *c,
                              cl_mem x, size_t x_offset, size_t n,
                              ptrdiff_t elem_stride, size_t columns,
                              cl_mem res, size_t res_offset,
                              cl_uint num_wait, const cl_event *wait,
                              cl_event *done);

/* sb_reduce() after sb__check_call(): the kernels' answer, or SB_EMPTY /
 * SB_OVERFLOW with its detail. */
sb_status sb__reduce_checked(sb_context *ctx, const sb__checked_call *c,
                             sb_reduction r, cl_mem x, size_t x_offset,
                             cl_mem mask, size_t mask_offset, size_t n,
                             void *result);

/* `buf` belongs to ctx and holds elements [offset, offset + n) of `elem`
 * bytes each (`unit` names them in the detail), overflow-safe. */
sb_status sb__check_buffer(sb_context *ctx, const char *what, cl_mem buf,
                           size_t offset, size_t n, size_t elem,
                           const char *unit);

/* The same for a dot product (sb__plan_make_dot()): y checked as x is. */
sb_status sb__check_dot_call(sb_context *ctx, cl_command_queue queue,
                             sb_reduction r, cl_mem x, size_t x_offset,
                             cl_mem y, size_t y_offset, cl_mem mask,
                             size_t mask_offset, size_t n,
                             sb__checked_call *out);

/* Whether a device of this name is the Oclgrind simulator: slow, ranked
 * last by the automatic choice, and given its interpreter's workarounds
 * (device_programs.c: abs_by_select()). */
int sb__is_simulator_name(const char *device_name);
/* Whether a device of this name is Oclgrind with its uninitialised-value
 * checker on: OCLGRIND_UNINITIALIZED=1 in this process's environment,
 * which Oclgrind reads as a context is created. Taken once per context
 * (sb_context.simulator_checker). */
int sb__simulator_checks_uninitialized(const char *device_name);
/* Whether `needle` (not empty) occurs in `hay`, ignoring ASCII case. */
int sb__contains_nocase(const char *hay, const char *needle);

/* Fills caps (and *type, CL_DEVICE_TYPE, unless NULL) and the extension
 * list from the device's answers; SB_OPENCL_ERROR with *err if any fails. */
sb_status sb__device_query(cl_device_id d, sb_device_caps *caps,
                           cl_device_type *type, char *extensions,
                           size_t ext_size, cl_int *err);

/* Sets caps->type_status, type_mode and type_reason from what the device
 * can do and the context's options: `flags` (SB_OPT_ALLOW_INEXACT), and
 * `forced` (sb_options.float_mode: 0, SB_MODE_GUARDED, SB_MODE_SOFTWARE). */
void sb__choose_modes(sb_device_caps *caps, unsigned flags, unsigned forced);

/* The storage of a program's accumulator: its bytes per value in local
 * memory and scratch buffers (any/all keep truths as a uint, a half
 * accumulator its values as binary32). */
size_t sb__kernel_acc_size(const sb__plan *plan);

/* Records a failed OpenCL call of `ctx` (may be NULL), sets the detail to
 * "<what> failed: CL_..." and maps it to a status. */
sb_status sb__cl_fail(sb_context *ctx, cl_int err, const char *what);

/* The kernel of the (input, acc) program, built on first use.
 * Call with ctx->lock held. */
sb_status sb__kernel_get(sb_context *ctx, const sb__plan *plan,
                         sb__kernel_pass pass, cl_kernel *out);

/* Releases a program of a context: the last context that holds a program
 * shared with others (device_programs.c) releases it. */
void sb__program_release(cl_program p);

/* Scratch buffers (ctx->lock held): take one of at least `size` bytes,
 * then give it back with the event of its last use (may be NULL when the
 * reduction was not enqueued). A buffer whose last use is one of the
 * `num_wait` events in `wait` is free for commands that wait for them:
 * so the rows of a batch, each waiting for the one before, take turns
 * with the same buffers instead of holding one pair each until the
 * device catches up (which ran out of buffers after 32 rows). */
sb_status sb__scratch_take(sb_context *ctx, size_t size, cl_uint num_wait,
                           const cl_event *wait, int *slot);
void sb__scratch_give(sb_context *ctx, int slot, cl_event last_use);
/* Every idle scratch buffer whose last use is `from` gets `to`, which
 * completes after it, as its last use instead: a call whose last command
 * (and so the event it hands its caller) follows its launches lets a
 * later call that waits for that event reuse the buffers at once. Takes
 * ctx->lock. */
void sb__scratch_pass_on(sb_context *ctx, cl_event from, cl_event to);

#endif /* SB_DEVICE_H */
