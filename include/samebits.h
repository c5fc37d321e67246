/* samebits.h: deterministic parallel reductions, the same bits everywhere.
 *
 * samebits reduces an array (sum, product, min, max, any, all) in one fixed
 * order, so that the host path of this library and every OpenCL device
 * return exactly the same bits, whatever the thread count, work-group size,
 * sub-group size or launch shape. A floating-point sum's bits depend on the
 * order of its additions; samebits fixes that order.
 *
 * The order (docs/order.md, normative text in ORDER.md):
 *   - elements are cut into leaves of 16 consecutive positions;
 *   - each leaf is folded left to right, starting from the start value
 *     (min/max: from the leaf's first taking-part element);
 *   - leaf values are combined by a balanced pairwise tree: 0+1, 2+3, ...,
 *     the last node of an odd level moving up unchanged;
 *   - a leaf where nothing takes part (masked out) has no value ("none"),
 *     which is not the same as the start value;
 *   - floats: IEEE 754 round-to-nearest-even, no FMA, subnormals kept,
 *     a NaN result returned as the canonical quiet NaN.
 *
 * Thread safety: every function may be called from several threads at once.
 * The host path reads only its arguments and the environment variable
 * SAMEBITS_THREADS; it keeps no global state.
 *
 * Floating-point environment: the host path runs its arithmetic in the
 * default environment (round to nearest, no flush-to-zero, no
 * denormals-are-zero, exceptions masked) whatever the caller has set, and
 * restores the caller's environment, including its exception flags, before
 * it returns. A program built with -ffast-math (which turns on
 * flush-to-zero) therefore still gets the promised bits.
 */
#ifndef SAMEBITS_H
#define SAMEBITS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SAMEBITS_VERSION_MAJOR 0
#define SAMEBITS_VERSION_MINOR 1
#define SAMEBITS_VERSION_PATCH 0
#define SAMEBITS_VERSION_NUMBER \
    (SAMEBITS_VERSION_MAJOR * 10000 + SAMEBITS_VERSION_MINOR * 100 + \
     SAMEBITS_VERSION_PATCH)
#define SAMEBITS_VERSION_STRING "0.1.0"

#if defined(_WIN32) && defined(SAMEBITS_SHARED_BUILD)
#  define SB_API __declspec(dllexport)
#elif defined(__GNUC__)
#  define SB_API __attribute__((visibility("default")))
#else
#  define SB_API
#endif

#if defined(__GNUC__)
#  define SB_NODISCARD __attribute__((warn_unused_result))
#else
#  define SB_NODISCARD
#endif

/* ------------------------------------------------------------------------
 * Operations, types and flags
 * ---------------------------------------------------------------------- */

/*! sb_op : the six reductions. `any` and `all` read an element as true iff
 *  it is not zero (a float NaN is true, -0.0 is false). */
typedef enum { SB_SUM, SB_PROD, SB_MIN, SB_MAX, SB_ANY, SB_ALL } sb_op;

/*! sb_type : element types, stored in native (little-endian) byte order.
 *  The value 0 is reserved: as an accumulator it means "same as input". */
typedef enum {
    SB_I8 = 1, SB_U8, SB_I16, SB_U16, SB_I32, SB_U32,
    SB_I64, SB_U64, SB_F32, SB_F64
} sb_type;

/*! SB_WRAP : integer sum and product wrap modulo 2^bits(accumulator)
 *  instead of failing with SB_OVERFLOW. Refused (SB_INVALID_ARGUMENT) with
 *  a float accumulator. Has no effect on min, max, any, all. */
#define SB_WRAP 1u

/*! sb_reduction : what to compute.
 *  A zero-initialised value with only `op` and `input` set is valid: the
 *  accumulator is then the input type.
 *
 *  Accumulators allowed (each taking-part element is converted to the
 *  accumulator first; only exact conversions are allowed):
 *    - the input type itself, always;
 *    - i8, i16, i32          -> i32, i64
 *    - u8, u16, u32          -> u32, u64, and the wider signed i32 / i64
 *                               (u8, u16 -> i32, i64; u32 -> i64)
 *    - f32                   -> f64
 *    - i8, u8, i16, u16      -> f32
 *    - i8, u8, i16, u16, i32, u32 -> f64
 *  `any` and `all` have no accumulator: it must be 0 or the input type.
 *  Anything else is SB_INVALID_ARGUMENT. */
typedef struct {
    sb_op    op;
    sb_type  input;        /* element type in memory */
    sb_type  accumulator;  /* 0: same as input */
    unsigned flags;        /* 0 or SB_WRAP */
} sb_reduction;

/* ------------------------------------------------------------------------
 * Status codes
 * ---------------------------------------------------------------------- */

/* One list, used for the enum and for sb_status_string(). The numbers are
 * part of the ABI and never change. */
#define SB_STATUS_LIST(X)                                                     \
    X(SB_OK,               0, "success")                                      \
    X(SB_EMPTY,            1, "min/max over no element: there is no value")   \
    X(SB_OVERFLOW,         2, "checked integer sum/product overflowed "       \
                              "(in tree order)")                              \
    X(SB_INVALID_ARGUMENT, 3, "invalid argument: null pointer, unknown op "   \
                              "or type, refused type pair, bad flags or "     \
                              "range")                                        \
    X(SB_UNSUPPORTED,      4, "the device cannot compute this type exactly")  \
    X(SB_OUT_OF_MEMORY,    5, "out of memory")                                \
    X(SB_OPENCL_ERROR,     6, "an OpenCL call failed")                        \
    X(SB_BUILD_ERROR,      7, "an OpenCL kernel failed to build")

/*! sb_status : the result of every call. SB_OK and SB_EMPTY are answers;
 *  the others are failures. */
typedef enum {
#define SB_STATUS_ENUM_(name, value, text) name = value,
    SB_STATUS_LIST(SB_STATUS_ENUM_)
#undef SB_STATUS_ENUM_
} sb_status;

/*! sb_status_string() :
 *  @return a static, human-readable English sentence for `s`; for a value
 *          that is not an sb_status, the string "unknown status". Never NULL. */
SB_API const char *sb_status_string(sb_status s);

/*! sb_type_size() :
 *  @return the size in bytes of one element of `t`, or 0 if `t` is not a
 *          valid sb_type. */
SB_API size_t sb_type_size(sb_type t);

/*! sb_type_name() :
 *  @return "i8", "u8", ..., "f64" for `t`, or "?" if `t` is not valid. */
SB_API const char *sb_type_name(sb_type t);

/*! sb_op_name() :
 *  @return "sum", "prod", "min", "max", "any", "all", or "?". */
SB_API const char *sb_op_name(sb_op op);

/*! sb_result_size() :
 *  @return the number of bytes sb_reduce_host() writes to `result` for `r`:
 *          the size of the accumulator type, or 1 for any/all; 0 if `r` is
 *          not a valid reduction (see sb_reduction_check()). */
SB_API size_t sb_result_size(sb_reduction r);

/*! sb_reduction_check() :
 *  Checks `r` alone: known op and types, an allowed input/accumulator pair,
 *  known flags, SB_WRAP not on a float accumulator.
 *  @return SB_OK or SB_INVALID_ARGUMENT. */
SB_API SB_NODISCARD sb_status sb_reduction_check(sb_reduction r);

/* ------------------------------------------------------------------------
 * The host path
 * ---------------------------------------------------------------------- */

/*! sb_reduce_host() :
 *  Reduces the `n` elements at `x` on the host CPU, in the order of
 *  docs/order.md, and writes one value to `result`.
 *  `result` receives a value of the accumulator type (native byte order);
 *  for `any` and `all`, a single uint8_t, 0 or 1.
 *  `mask` may be NULL: every element then takes part; otherwise element i
 *  takes part iff mask[i] != 0. A mask never moves a leaf boundary.
 *  `x` (and `mask`) may be NULL only when n == 0.
 *  Large inputs are split over threads along aligned subtrees, so the bits
 *  never depend on the thread count (see SAMEBITS_THREADS below).
 *  When nothing takes part (n == 0 or an all-zero mask): sum writes 0
 *  (+0.0), prod 1, any 0, all 1; min and max return SB_EMPTY.
 *  A NaN result is written as the canonical quiet NaN (0x7FC00000,
 *  0x7FF8000000000000).
 *  @return SB_OK;
 *          SB_EMPTY for min/max when nothing takes part;
 *          SB_OVERFLOW for a checked integer sum/prod one of whose steps, in
 *            tree order, does not fit the accumulator;
 *          SB_INVALID_ARGUMENT for a bad `r` (sb_reduction_check()), a NULL
 *            `result`, or a NULL `x`/`mask` with n > 0;
 *          SB_OUT_OF_MEMORY if worker threads could not be started.
 *          On any status but SB_OK, `result` is untouched. */
SB_API SB_NODISCARD sb_status sb_reduce_host(sb_reduction r, const void *x,
        const unsigned char *mask, size_t n, void *result);

/*! sb_host_options : settings of the host path. Zero-initialise, then set
 *  what you need; fields may be added at the end while the major version
 *  is 0. */
typedef struct {
    unsigned threads;   /* 0: SAMEBITS_THREADS if set, else every online CPU.
                           1: the calling thread only. Capped at 256. */
} sb_host_options;

/*! sb_reduce_host_opts() :
 *  sb_reduce_host() with explicit options; `opts` may be NULL (defaults).
 *  The bits never depend on `opts`. Same statuses as sb_reduce_host(). */
SB_API SB_NODISCARD sb_status sb_reduce_host_opts(sb_reduction r,
        const void *x, const unsigned char *mask, size_t n, void *result,
        const sb_host_options *opts);

/*! SAMEBITS_THREADS (environment variable) :
 *  The host path's default thread count when sb_host_options.threads is 0:
 *  a positive integer. Unset, empty or invalid: every online CPU. */

#ifdef __cplusplus
}
#endif

#endif /* SAMEBITS_H */
