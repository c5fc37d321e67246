/* samebits.h: deterministic parallel reductions, the same bits everywhere.
 *
 * samebits reduces an array (sum, product, min, max, any, all) in one fixed
 * order, so that the host path of this library and every OpenCL device
 * return exactly the same bits, whatever the thread count, work-group size,
 * sub-group size or launch shape. A floating-point sum's bits depend on the
 * order of its additions; samebits fixes that order.
 *
 * The order (docs/order.md is its complete, normative text):
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
 * SAMEBITS_THREADS; device selection reads SAMEBITS_DEVICE; neither keeps
 * global state. The error detail (sb_error_detail()) is per thread.
 * POCL before 7.0 can abort when threads launch one kernel at once and one
 * launch is wider than all before it (a bug of POCL's; README, "POCL
 * before 7.0 and threads": run each reduction once at its largest size
 * before threads share a POCL context).
 *
 * Floating-point environment: the host path runs its arithmetic in the
 * default environment (round to nearest, no flush-to-zero, no
 * denormals-are-zero, exceptions masked) whatever the caller has set, and
 * restores the caller's environment, including its exception flags, before
 * it returns. A program built with -ffast-math (which turns on
 * flush-to-zero) therefore still gets the promised bits.
 *
 * Language: C99 or later, or C++ (any standard); the header is tested with
 * gcc, clang, g++ and clang++ under -Wall -Wextra -Werror (and -Wpedantic
 * for C), with the OpenCL headers or the C++ bindings included before or
 * after it.
 *
 * ABI: while the major version is 0, a minor release (0.2 -> 0.3) may
 * change public structs, and the shared library's SONAME changes with it
 * (libsamebits.so.0.2, libsamebits.so.0.3): a program built against one
 * minor version never loads another. Patch releases keep the ABI.
 * sb_version_number() tells a program which library it runs against.
 */
#ifndef SAMEBITS_H
#define SAMEBITS_H

#include <stddef.h>
#include <stdint.h>

/* SAMEBITS_OPENCL: 1 when this build of the library has the OpenCL device
 * API (the default), 0 for a host-only build (CMake -DSAMEBITS_OPENCL=OFF),
 * whose header then declares no device function. Written at build time. */
#include "samebits_config.h"

/* OpenCL handles. samebits.h does not include <CL/cl.h>: that would fix
 * the OpenCL version (CL_TARGET_OPENCL_VERSION) for the whole program at
 * the first include, and break a program that targets a later version or
 * uses the C++ bindings (<CL/opencl.hpp>). A program includes the OpenCL
 * headers it wants, before or after this one, with the version it wants.
 * So the device API below names the handles by the structs that cl.h's
 * typedefs point to, which every C and C++ standard accepts next to those
 * typedefs: `struct _cl_mem *` is cl_mem, `struct _cl_context *`
 * cl_context, `struct _cl_device_id *` cl_device_id, `struct
 * _cl_command_queue *` cl_command_queue, `struct _cl_event *` cl_event,
 * `struct _cl_platform_id *` cl_platform_id. OpenCL's scalar types appear
 * as the fixed-width types they are (cl_int is int32_t, cl_uint uint32_t,
 * cl_ulong uint64_t). The struct tags are declared here, at file scope (a
 * tag seen first in a parameter list would be another type). */
#if SAMEBITS_OPENCL
struct _cl_platform_id;
struct _cl_device_id;
struct _cl_context;
struct _cl_command_queue;
struct _cl_mem;
struct _cl_event;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header. The library's own: sb_version_number(). */
#define SAMEBITS_VERSION_MAJOR 0
#define SAMEBITS_VERSION_MINOR 3
#define SAMEBITS_VERSION_PATCH 0
#define SAMEBITS_VERSION_NUMBER \
    (SAMEBITS_VERSION_MAJOR * 10000 + SAMEBITS_VERSION_MINOR * 100 + \
     SAMEBITS_VERSION_PATCH)
#define SAMEBITS_STRINGIFY_(x) #x
#define SAMEBITS_EXPAND_STRING_(x) SAMEBITS_STRINGIFY_(x)
#define SAMEBITS_VERSION_STRING \
    SAMEBITS_EXPAND_STRING_(SAMEBITS_VERSION_MAJOR) "." \
    SAMEBITS_EXPAND_STRING_(SAMEBITS_VERSION_MINOR) "." \
    SAMEBITS_EXPAND_STRING_(SAMEBITS_VERSION_PATCH)

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

/*! sb_version_string(), sb_version_number() :
 *  The version of the library the program runs against: "0.3.0", and
 *  SAMEBITS_VERSION_NUMBER as the library was built (0.3.0 is 300). A
 *  program may compare them with the header's SAMEBITS_VERSION_* macros. */
SB_API const char *sb_version_string(void);
SB_API unsigned sb_version_number(void);

/* ------------------------------------------------------------------------
 * Operations, types and flags
 * ---------------------------------------------------------------------- */

/*! sb_op : the reductions. `any` and `all` read an element as true iff
 *  it is not zero (a float NaN is true, -0.0 is false).
 *
 *  SB_ARGMIN, SB_ARGMAX and SB_COUNT are new in 0.3 (the enum grew after
 *  SB_ALL; no struct changed):
 *    - SB_ARGMIN / SB_ARGMAX: the value SB_MIN / SB_MAX returns and the
 *      position of the element whose value the fold and the tree carried
 *      to the root, counted from the reduction's first element (0-based),
 *      as an sb_arg_result. A value replaces another only when strictly
 *      smaller / larger, so among equal values (+0.0 and -0.0 included)
 *      the lower position wins; a NaN that starts a leaf is that leaf's
 *      value, and a NaN later in a leaf is passed over (docs/order.md).
 *      Same accumulators, maps, flags and masks as SB_MIN / SB_MAX
 *      (SB_ARGMAX + SB_MAP_ABS is BLAS i?amax); SB_EMPTY when nothing
 *      takes part; an integer map that does not fit is SB_OVERFLOW (or
 *      wraps under SB_WRAP).
 *    - SB_COUNT: the number of taking-part elements (mask, SB_SKIP_NAN),
 *      a uint64_t, of any input type; no accumulator (SB_SAME_AS_INPUT or
 *      the input type) and no map. Never SB_EMPTY (0 when nothing takes
 *      part), never SB_OVERFLOW.
 *  The OpenCL device functions compute SB_COUNT (every input type, masks,
 *  SB_SKIP_NAN; sb_reduce(), sb_reduce_enqueue(), the batched, segment
 *  and partial forms), with the host's bits, and SB_ARGMIN and SB_ARGMAX
 *  too, in every device form: kernels of their own whose tree nodes carry
 *  the position with the value, one pass over the data. The enqueue
 *  forms write them as sb_device_arg_result records (24 bytes). */
typedef enum {
    SB_SUM, SB_PROD, SB_MIN, SB_MAX, SB_ANY, SB_ALL,
    SB_ARGMIN, SB_ARGMAX, SB_COUNT
} sb_op;

/*! sb_arg_result : what SB_ARGMIN / SB_ARGMAX write (16 bytes): `value`
 *  holds the min / max in its first sb_type_size(accumulator) bytes
 *  (native byte order; canonical NaN as for SB_MIN / SB_MAX), the other
 *  bytes zero; `index` is the element's position, counted from the
 *  reduction's first element (for a batch or a segment: from that
 *  reduction's first element; for a partial: from position 0). */
typedef struct {
    unsigned char value[8];
    uint64_t      index;
} sb_arg_result;

/*! sb_type : element types, stored in native (little-endian) byte order.
 *  SB_SAME_AS_INPUT (0) is not a type: as an accumulator it means "the
 *  input type", and it is what a zero-initialised sb_reduction holds.
 *
 *  SB_F16 (IEEE 754 binary16) and SB_BF16 (bfloat16: the upper half of a
 *  binary32) are float types of 2 bytes (new in 0.3: the enum grew, no
 *  struct changed; see ABI above), for machine-learning data. Their
 *  accumulators:
 *    - f32 or f64: every f16 and bf16 value converts exactly (subnormals
 *      included, a NaN stays a NaN), and the reduction is the f32 / f64
 *      one of the converted elements;
 *    - the type itself (SB_SAME_AS_INPUT, SB_F16 / SB_BF16): every step
 *      (each + and * of the fold and the tree, a map's square, a dot
 *      product's product) is computed as if in that type: the exact
 *      result rounded once to binary16 / bfloat16, nearest even,
 *      subnormals kept, overflow to +-inf; min, max and abs are exact.
 *      The result is 2 bytes (sb_result_size()); a NaN result is the
 *      canonical quiet NaN 0x7E00 (f16) or 0x7FC0 (bf16).
 *  Every op, map, SB_SKIP_NAN and dot products work with them; any/all
 *  read -0 as false and a NaN as true. Refused (SB_INVALID_ARGUMENT):
 *  an integer accumulator, f16 <-> bf16 (neither holds the other), and
 *  SB_WRAP. They work on every OpenCL device too (sb_reduce(), sb_dot(),
 *  the enqueue forms, sb_partial_add()), with the bits of the host path
 *  and without cl_khr_fp16: the kernels read the elements as 16-bit
 *  integers, convert them exactly in integer code, and compute in
 *  binary32 with the device's exact f32 mode (SB_MODE_GUARDED where it
 *  flushes subnormals), rounding each step to the half type for a half
 *  accumulator; into f64 they take the f64 mode (software without fp64).
 *  (POCL's CPU device on an x86 CPU with F16C reads f16 with core
 *  OpenCL's vload_half16, which is vcvtph2ps there: exact too.)
 *  A device refuses them only where it refuses the accumulator (f64
 *  without 64-bit integers). */
typedef enum {
    SB_SAME_AS_INPUT = 0,
    SB_I8 = 1, SB_U8, SB_I16, SB_U16, SB_I32, SB_U32,
    SB_I64, SB_U64, SB_F32, SB_F64,
    SB_F16 = 11, SB_BF16 = 12
} sb_type;

/*! SB_WRAP : integer sum and product wrap modulo 2^bits(accumulator)
 *  instead of failing with SB_OVERFLOW, and so do an integer map's abs and
 *  square (sb_map) and a dot product's products. Refused
 *  (SB_INVALID_ARGUMENT) whenever the accumulator is a float type, for
 *  every op (for any/all the accumulator is the input type, so SB_WRAP
 *  with an f32/f64 input is refused too). Without a map it has no effect
 *  on integer min, max, any, all. */
#define SB_WRAP 1u

/*! SB_SKIP_NAN : a float element that is a NaN does not take part, exactly
 *  as if its mask byte were 0 (leaf boundaries do not move): numpy's
 *  nansum, nanprod, nanmin, nanmax. Valid for float inputs (f32, f64,
 *  f16, bf16), with every op (any/all: a NaN, otherwise true, is passed
 *  over), with maps, and with dot products (a term is skipped when either factor is a NaN;
 *  a product that is a NaN of non-NaN factors, inf * 0, takes part). A
 *  min or max over nothing but NaNs is SB_EMPTY (numpy's nanmin warns and
 *  returns NaN).
 *  Refused (SB_INVALID_ARGUMENT) for integer inputs, which have no NaN. */
#define SB_SKIP_NAN 2u

/*! sb_map : a per-element map, applied to each taking-part element after
 *  its conversion to the accumulator, in the accumulator type, before the
 *  fold (docs/order.md, "Element maps").
 *    SB_MAP_NONE   the element itself (0: what a zero-initialised
 *                  sb_reduction holds);
 *    SB_MAP_ABS    |x|: exact for floats (the sign bit cleared, NaNs
 *                  included); for integers an abs that does not fit the
 *                  accumulator (abs(INT32_MIN) in i32) is SB_OVERFLOW, or
 *                  wraps (to INT32_MIN) under SB_WRAP;
 *    SB_MAP_SQUARE x * x: one rounded multiplication for floats, never
 *                  fused with what follows; for integers checked as a
 *                  product (SB_OVERFLOW), or wrapping under SB_WRAP.
 *  Valid with sum, prod, min and max: SB_SUM + SB_MAP_ABS is BLAS asum,
 *  SB_SUM + SB_MAP_SQUARE the squared 2-norm, SB_MAX + SB_MAP_ABS max |x|.
 *  The overflow of an integer map is an overflow for every op, min and max
 *  included. Refused (SB_INVALID_ARGUMENT) with any/all and with dot
 *  products. */
typedef enum { SB_MAP_NONE = 0, SB_MAP_ABS, SB_MAP_SQUARE } sb_map;

/*! sb_reduction : what to compute.
 *  A zero-initialised value with only `op` and `input` set is valid: the
 *  accumulator is then the input type, and there is no map.
 *
 *  Accumulators allowed (each taking-part element is converted to the
 *  accumulator first; only exact conversions are allowed):
 *    - the input type itself, always;
 *    - i8, i16, i32          -> i32, i64
 *    - u8, u16, u32          -> u32, u64, and the wider signed i32 / i64
 *                               (u8, u16 -> i32, i64; u32 -> i64)
 *    - f32                   -> f64
 *    - f16, bf16             -> f32, f64
 *    - i8, u8, i16, u16      -> f32
 *    - i8, u8, i16, u16, i32, u32 -> f64
 *  `any` and `all` have no accumulator: it must be SB_SAME_AS_INPUT or
 *  the input type. Anything else is SB_INVALID_ARGUMENT. In C++, an
 *  aggregate such as { SB_SUM, SB_F32, SB_SAME_AS_INPUT, 0, SB_MAP_NONE }
 *  needs no cast. `map` is new in 0.3.0, which has a new SONAME (ABI
 *  above). */
typedef struct {
    sb_op    op;
    sb_type  input;        /* element type in memory */
    sb_type  accumulator;  /* SB_SAME_AS_INPUT (0): the input type */
    unsigned flags;        /* 0, or SB_WRAP and/or SB_SKIP_NAN */
    sb_map   map;          /* SB_MAP_NONE (0), SB_MAP_ABS, SB_MAP_SQUARE */
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
    X(SB_UNSUPPORTED,      4, "unsupported: no such OpenCL device, or the "   \
                              "device cannot compute this type exactly")      \
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

/*! sb_error_detail() :
 *  One sentence on why the calling thread's last samebits call did not
 *  return SB_OK, naming the argument or the condition: "x is NULL while
 *  n = 10", "f32 -> i32 is not an exact widening", "SAMEBITS_DEVICE='o'
 *  matches 2 devices", "the i64 sum overflows in the node of positions
 *  0..31". "" after a call that returned SB_OK. Thread-local: other
 *  threads' calls never change it. Valid until the thread's next samebits
 *  call; never NULL. (SB_EMPTY and SB_OVERFLOW are answers, and have a
 *  detail too.) */
SB_API const char *sb_error_detail(void);

/*! sb_status_string() :
 *  @return a static, human-readable English sentence for `s`; for a value
 *          that is not an sb_status, the string "unknown status". Never NULL. */
SB_API const char *sb_status_string(sb_status s);

/*! sb_type_size() :
 *  @return the size in bytes of one element of `t`, or 0 if `t` is not a
 *          valid sb_type. */
SB_API size_t sb_type_size(sb_type t);

/*! sb_type_name() :
 *  @return "i8", "u8", ..., "f64", "f16", "bf16" for `t`, or "?" if `t`
 *          is not valid. */
SB_API const char *sb_type_name(sb_type t);

/*! sb_op_name() :
 *  @return "sum", "prod", "min", "max", "any", "all", "argmin", "argmax",
 *          "count", or "?". */
SB_API const char *sb_op_name(sb_op op);

/*! sb_map_name() :
 *  @return "none", "abs", "square", or "?". */
SB_API const char *sb_map_name(sb_map map);

/*! sb_result_size() :
 *  @return the number of bytes sb_reduce_host() writes to `result` for `r`:
 *          the size of the accumulator type, 1 for any/all, 16 for
 *          argmin/argmax (sb_arg_result), 8 for count (a uint64_t); 0 if
 *          `r` is not a valid reduction (see sb_reduction_check()). */
SB_API size_t sb_result_size(sb_reduction r);

/*! sb_reduction_check() :
 *  Checks `r` alone: known op and types, an allowed input/accumulator pair,
 *  known flags, SB_WRAP not on a float accumulator, SB_SKIP_NAN only on a
 *  float input, a known map and only with sum, prod, min, max, argmin or
 *  argmax; count (like any/all) takes no accumulator but the input type.
 *  @return SB_OK or SB_INVALID_ARGUMENT (sb_error_detail() names what is
 *          wrong: "f32 -> i32 is not an exact widening ..."). */
SB_API SB_NODISCARD sb_status sb_reduction_check(sb_reduction r);

/* ------------------------------------------------------------------------
 * The host path
 * ---------------------------------------------------------------------- */

/*! sb_reduce_host() :
 *  Reduces the `n` elements at `x` on the host CPU, in the order of
 *  docs/order.md, and writes one value to `result`.
 *  `result` receives a value of the accumulator type (native byte order);
 *  for `any` and `all`, a single uint8_t, 0 or 1; for argmin / argmax an
 *  sb_arg_result; for count a uint64_t.
 *  `mask` may be NULL: every element then takes part; otherwise element i
 *  takes part iff mask[i] != 0. A mask never moves a leaf boundary.
 *  `x` (and `mask`) may be NULL only when n == 0.
 *  Large inputs are split over threads along aligned subtrees, so the bits
 *  never depend on the thread count (see SAMEBITS_THREADS below); if a
 *  thread cannot be started, the others do its share.
 *  When nothing takes part (n == 0 or an all-zero mask): sum writes 0
 *  (+0.0), prod 1, any 0, all 1, count 0; min, max, argmin and argmax
 *  return SB_EMPTY.
 *  A NaN result is written as the canonical quiet NaN (0x7FC00000,
 *  0x7FF8000000000000; f16 0x7E00, bf16 0x7FC0).
 *  @return SB_OK;
 *          SB_EMPTY for min/max when nothing takes part;
 *          SB_OVERFLOW for a checked integer sum/prod one of whose steps, in
 *            tree order, does not fit the accumulator;
 *          SB_INVALID_ARGUMENT for a bad `r` (sb_reduction_check()), a NULL
 *            `result`, a NULL `x` with n > 0, or an n whose bytes exceed
 *            SIZE_MAX.
 *          sb_error_detail() says why; for SB_OVERFLOW it names the first
 *          node (leftmost, lowest) that overflows, e.g. "the i32 sum
 *          overflows at position 17, in the leaf of positions 16..31".
 *          On any status but SB_OK, `result` is untouched. */
SB_API SB_NODISCARD sb_status sb_reduce_host(sb_reduction r, const void *x,
        const unsigned char *mask, size_t n, void *result);

/*! sb_host_options : settings of the host path. Zero-initialise, then set
 *  what you need; fields may be added at the end in a minor release (see
 *  ABI above). */
typedef struct {
    unsigned threads;   /* 0: SAMEBITS_THREADS if valid, else every online
                           CPU (sb_host_thread_count()). 1: the calling
                           thread only. Capped at 256. */
    unsigned isa;       /* SB_ISA_*: the vector instruction set of the host
                           folds. 0 (SB_ISA_AUTO): SAMEBITS_ISA if it names
                           one this CPU runs, else the widest this CPU
                           runs (sb_host_isa()). For tests and benchmarks:
                           the bits never depend on it */
} sb_host_options;

/*! Instruction sets of the host path (sb_host_options.isa). The host
 *  folds are compiled once per set and one is chosen at run time from the
 *  CPU (the library is never built for the machine it is built on). */
#define SB_ISA_AUTO     0u  /* SAMEBITS_ISA, else the widest the CPU runs */
#define SB_ISA_BASELINE 1u  /* the compiler's baseline: SSE2 on x86-64 */
#define SB_ISA_AVX2     2u  /* x86-64 with AVX2 and F16C */
#define SB_ISA_AVX512   3u  /* x86-64 with AVX-512 F, BW, DQ and VL */

/*! sb_reduce_host_opts() :
 *  sb_reduce_host() with explicit options; `opts` may be NULL (defaults).
 *  The bits never depend on `opts`. Same statuses as sb_reduce_host(),
 *  and SB_INVALID_ARGUMENT for an opts->isa that is no SB_ISA_* value,
 *  SB_UNSUPPORTED for one this build or CPU cannot run
 *  (sb_host_isa_check()). */
SB_API SB_NODISCARD sb_status sb_reduce_host_opts(sb_reduction r,
        const void *x, const unsigned char *mask, size_t n, void *result,
        const sb_host_options *opts);

/*! sb_dot_host() :
 *  The dot product of x[0..n) and y[0..n), both of type r.input: the sum,
 *  in the order of docs/order.md, of the terms x[i] * y[i], each factor
 *  converted exactly to the accumulator first and the product rounded
 *  once in the accumulator (never fused with the addition that follows).
 *  r.op must be SB_SUM (argmin, argmax and count are refused like the
 *  other ops) and r.map SB_MAP_NONE. The mask, SB_SKIP_NAN (a
 *  term is skipped when either factor is a NaN) and SB_WRAP work as for
 *  sb_reduce_host(); an integer product that does not fit the accumulator
 *  is SB_OVERFLOW (or wraps under SB_WRAP). Every other rule, status and
 *  promise is sb_reduce_host()'s: the bits of sb_reduce_host() of an array
 *  holding the products, and SB_INVALID_ARGUMENT for a NULL x or y with
 *  n > 0. */
SB_API SB_NODISCARD sb_status sb_dot_host(sb_reduction r, const void *x,
        const void *y, const unsigned char *mask, size_t n, void *result);
/*! sb_dot_host_opts() : sb_dot_host() with the options of
 *  sb_reduce_host_opts() (threads, isa; NULL: the defaults), which never
 *  change the bits. */
SB_API SB_NODISCARD sb_status sb_dot_host_opts(sb_reduction r,
        const void *x, const void *y, const unsigned char *mask, size_t n,
        void *result, const sb_host_options *opts);

/*! sb_reduce_batched_host() :
 *  `count` independent reductions of `n` elements each, in one call:
 *  reduction b reads the elements x[b * batch_stride + i * elem_stride],
 *  i < n (strides counted in elements, not bytes; either may be zero or
 *  negative, and the elements may overlap: they are only read). `mask`,
 *  if not NULL, is indexed the same way from its own base: element i of
 *  reduction b takes part iff mask[b * batch_stride + i * elem_stride]
 *  != 0. Rows of a row-major matrix of `count` rows of `n`: elem_stride
 *  1, batch_stride n (or the row pitch). Its columns: elem_stride = the
 *  row pitch, batch_stride 1. The caller guarantees that every address
 *  read is valid (the host cannot check); the offsets themselves are
 *  computed without overflow.
 *  Each reduction's answer has the bits and status of sb_reduce_host() of
 *  its elements (and mask bytes) gathered into one array:
 *  statuses[b] is SB_OK, SB_EMPTY (min/max where nothing takes part) or
 *  SB_OVERFLOW (a checked integer step of that reduction), and
 *  `results` receives reduction b's value at byte b * sb_result_size(r),
 *  written only when statuses[b] is SB_OK (the other results' bytes are
 *  untouched). n == 0 gives every reduction the empty answer (sum 0,
 *  prod 1, any 0, all 1; SB_EMPTY for min/max). count == 0 is SB_OK and
 *  writes nothing. Every reduction sb_reduce_host() computes works (all
 *  ops, accumulators, maps, SB_WRAP, SB_SKIP_NAN, f16 and bf16).
 *  Speed only: short rows are spread over the host threads
 *  (SAMEBITS_THREADS), each on one thread; rows of 2^18 elements and more
 *  are split over the threads within the row; contiguous unmasked rows
 *  of a float sum, product, min or max of the input as it is fold a
 *  vector register's worth of rows at once (8 f32 rows with AVX2), side
 *  by side; a strided row is gathered
 *  per 4096-element block, except columns (reductions a few bytes apart,
 *  their elements further apart) of a sum, product, min or max of the
 *  input as it is (no conversion, map, NaN skipping or half type): those
 *  fold side by side, up to thousands of columns at a time, reading long
 *  runs of each row, spread over the threads by columns, or, when there
 *  are few of them, along aligned subtrees of their positions (this
 *  takes a few hundred KiB of heap per thread; without it, narrower and
 *  slower). The bits never depend on it.
 *  @return SB_OK when every reduction got its answer (statuses say which,
 *          sb_error_detail() is "");
 *          SB_INVALID_ARGUMENT for a bad `r` (sb_reduction_check(), also
 *            when count is 0), NULL `results` or `statuses` with count > 0,
 *            a NULL `x` with n > 0 and count > 0, an n whose bytes exceed
 *            SIZE_MAX, or strides and sizes whose elements would span more
 *            than PTRDIFF_MAX bytes.
 *          sb_error_detail() says why. On any status but SB_OK nothing is
 *          written to `results` or `statuses`. */
SB_API SB_NODISCARD sb_status sb_reduce_batched_host(sb_reduction r,
        const void *x, const unsigned char *mask, size_t n,
        ptrdiff_t elem_stride, size_t count, ptrdiff_t batch_stride,
        void *results, sb_status *statuses);

/*! sb_reduce_segments_host() :
 *  `count` independent reductions of contiguous segments of one array
 *  (CUB's segmented reduce, PyTorch's segment_reduce): reduction b covers
 *  x[offsets[b] .. offsets[b + 1]) (mask likewise, from its own base),
 *  `offsets` holding count + 1 non-decreasing element positions (the
 *  elements before offsets[0] are not read; an empty segment has the
 *  empty answer). Same answers, statuses and rules as
 *  sb_reduce_batched_host(). Speed only: work is spread over the threads
 *  by elements, not by segments, so a long segment does not hold up the
 *  short ones; segments of 2^18 elements and more are split over the
 *  threads within the segment; unmasked float sums, products, min and
 *  max of the input as stored fold a register's lanes of segments at
 *  once (4 to 16): consecutive ones of one length, and others of about
 *  one length wherever they lie (within 4 leaves up to 32 leaves, then
 *  within a quarter of an octave, up to 1024 leaves), so that short
 *  ragged segments cost no call each.
 *  @return SB_OK when every reduction got its answer;
 *          SB_INVALID_ARGUMENT for a bad `r`, NULL `offsets`, `results` or
 *            `statuses` with count > 0, offsets that decrease, a NULL `x`
 *            while a segment is not empty, or an offsets[count] whose
 *            bytes exceed PTRDIFF_MAX.
 *          On any status but SB_OK nothing is written. */
SB_API SB_NODISCARD sb_status sb_reduce_segments_host(sb_reduction r,
        const void *x, const unsigned char *mask, const uint64_t *offsets,
        size_t count, void *results, sb_status *statuses);

/*! sb_partial : the state of the order's tree over one range [begin, end)
 *  of positions of a longer array (docs/order.md, "Pieces of one array").
 *  Partials of adjacent ranges merge into the partial of their union; the
 *  finished partial of [0, n) has the bits and status of one
 *  sb_reduce_host() over the whole array, wherever the cuts fell (inside
 *  leaves too) and in whatever grouping the merges were done.
 *  Plain bytes in native byte order, unused bytes zero: equal states are
 *  equal under memcmp, and can be copied or sent as they are. They hold a
 *  format version and the reduction; a partial of another version or
 *  reduction is refused (SB_INVALID_ARGUMENT), never misread.
 *  add and merge return SB_OK for a valid call even when a checked step
 *  overflowed: the overflow is kept, and finish reports it. A bad call
 *  (a gap or overlap, another reduction, finish of a partial that does
 *  not begin at 0, positions at or beyond 2^63) is SB_INVALID_ARGUMENT and
 *  changes nothing. */
#define SB_PARTIAL_BYTES 4096
typedef struct { uint64_t opaque[SB_PARTIAL_BYTES / 8]; } sb_partial;

/*! An empty range at global position `begin`. */
SB_API SB_NODISCARD sb_status sb_partial_init(sb_partial *p, sb_reduction r,
                                              uint64_t begin);
/*! Appends x[0..n) (mask as sb_reduce_host()) at p's end: end += n. */
SB_API SB_NODISCARD sb_status sb_partial_add_host(sb_partial *p,
        const void *x, const unsigned char *mask, size_t n);
/*! Appends the terms x[i] * y[i], i < n, of a dot product (as
 *  sb_dot_host()) at p's end. A partial holds the pieces of one kind of
 *  array: once it holds elements of sb_partial_add_host() it refuses dot
 *  terms, and the reverse (SB_INVALID_ARGUMENT), and so does a merge of
 *  the two kinds; an empty partial takes either. */
SB_API SB_NODISCARD sb_status sb_partial_add_dot_host(sb_partial *p,
        const void *x, const void *y, const unsigned char *mask, size_t n);
/*! `right` must begin where `left` ends, with the same reduction; `left`
 *  becomes the partial of the union. */
SB_API SB_NODISCARD sb_status sb_partial_merge(sb_partial *left,
                                               const sb_partial *right);
/*! p must begin at 0: the result and status of sb_reduce_host() over
 *  [0, end) (SB_EMPTY, SB_OVERFLOW as there; result written only on
 *  SB_OK). */
SB_API SB_NODISCARD sb_status sb_partial_finish(const sb_partial *p,
                                                void *result);

/*! sb_partial_fail() :
 *  Makes *p a failed partial: `status` (a failure: SB_INVALID_ARGUMENT,
 *  SB_UNSUPPORTED, SB_OUT_OF_MEMORY, SB_OPENCL_ERROR or SB_BUILD_ERROR),
 *  `origin` (where it happened, e.g. an MPI rank) and `detail` (one
 *  sentence, kept up to 239 bytes; NULL: the status's string). Whatever
 *  *p held is dropped. A failed partial absorbs what it is merged with
 *  (sb_partial_merge() returns SB_OK; of two failures the left one, the
 *  lower positions, wins), adding to it returns its status and changes
 *  nothing, and sb_partial_finish() returns its status, with `detail` as
 *  sb_error_detail(). So one piece that could not be reduced fails the
 *  whole reduction wherever the merges happen (samebits_mpi.h). For
 *  pieces that fail, not for ones that overflow or are empty: those are
 *  answers the partial keeps. @return SB_OK; SB_INVALID_ARGUMENT for a
 *  NULL p or a status that is not a failure. */
SB_API SB_NODISCARD sb_status sb_partial_fail(sb_partial *p,
        sb_status status, int origin, const char *detail);

/*! sb_partial_failure() :
 *  @return the failure status of a failed partial (sb_partial_fail()),
 *  with its origin in *origin (may be NULL) and its detail as
 *  sb_error_detail(); SB_OK for a partial that has not failed;
 *  SB_INVALID_ARGUMENT for NULL or bytes that are no sb_partial. */
SB_API SB_NODISCARD sb_status sb_partial_failure(const sb_partial *p,
        int *origin);

/*! SAMEBITS_THREADS (environment variable) :
 *  The host path's default thread count when sb_host_options.threads is 0,
 *  read as sb_threads_parse() reads it: decimal digits only, at least 1;
 *  values above 256 (however many digits) mean 256. Unset, empty or
 *  anything else ("-1", "0", "4x", " 4"): ignored, every online CPU is
 *  used (`samebits info` says which). */

/*! sb_threads_parse() :
 *  Reads `text` as a thread count, the one way SAMEBITS_THREADS and the
 *  samebits command's options are read (see above).
 *  @return SB_OK with *threads in 1..256; SB_INVALID_ARGUMENT (with a
 *          detail) for NULL or anything that is not such a count, leaving
 *          *threads untouched. */
SB_API SB_NODISCARD sb_status sb_threads_parse(const char *text,
        unsigned *threads);

/*! sb_host_thread_count() :
 *  The number of threads sb_reduce_host_opts() splits a large input over
 *  with `opts` (NULL: the defaults): opts->threads (capped at 256) if not
 *  0, else SAMEBITS_THREADS if valid, else every online CPU. Small inputs
 *  run on the calling thread alone. */
SB_API unsigned sb_host_thread_count(const sb_host_options *opts);

/*! SAMEBITS_ISA (environment variable) :
 *  The host path's instruction set when sb_host_options.isa is 0: "sse2"
 *  (or "baseline"), "avx2" or "avx512", as sb_isa_parse() reads it. A set
 *  this CPU cannot run, "auto" or anything else: ignored, the widest the
 *  CPU runs is used (`samebits info` says which). For benchmarks and
 *  tests; the bits never depend on it. */

/*! sb_isa_name() : "auto", "sse2" ("baseline" off x86-64), "avx2",
 *  "avx512"; "unknown" for any other value. Never NULL. */
SB_API const char *sb_isa_name(unsigned isa);

/*! sb_isa_parse() :
 *  Reads one of sb_isa_name()'s names (and "baseline" for
 *  SB_ISA_BASELINE). @return SB_OK with *isa set; SB_INVALID_ARGUMENT
 *  (with a detail) for NULL or any other text, *isa untouched. */
SB_API SB_NODISCARD sb_status sb_isa_parse(const char *text, unsigned *isa);

/*! sb_host_isa_check() :
 *  @return SB_OK if the host path can run `isa` here (SB_ISA_AUTO always
 *          can); SB_UNSUPPORTED, with a detail, if this build has no such
 *          copy (AVX2 and AVX-512 exist on x86-64 only) or this CPU (or
 *          its operating system) cannot run it; SB_INVALID_ARGUMENT for a
 *          value that is no SB_ISA_*. */
SB_API SB_NODISCARD sb_status sb_host_isa_check(unsigned isa);

/*! sb_host_isa() :
 *  The instruction set sb_reduce_host_opts() uses with `opts` (NULL: the
 *  defaults): opts->isa if set, else SAMEBITS_ISA if it names a set this
 *  CPU runs, else the widest this CPU runs. Never SB_ISA_AUTO, except for
 *  an opts->isa that sb_host_isa_check() refuses (then with its detail). */
SB_API unsigned sb_host_isa(const sb_host_options *opts);

/*! SAMEBITS_PREFETCH (environment variable) :
 *  How many bytes ahead of what it folds the host path asks the CPU to
 *  fetch (software prefetch), as a decimal number; 0 turns it off;
 *  capped at 1 MiB; anything else is ignored. Unset (or ignored), the
 *  library measures: the best distance depends on the microarchitecture
 *  and on the fold (README: Performance; on AMD Zen 5, 4096 bytes took a
 *  1-thread f32 sum from memory from 0.55 to 0.97 of a plain read and
 *  slowed NaN-skipping f32 sums; on Zen 4 it cost plain sums a third).
 *  A reduction over at least 64 MiB of contiguous input x (argmin and
 *  argmax excepted) folds its spans of 64 blocks at each of
 *  SB_PREFETCH_CANDIDATES distances in turn (0 and 4096 bytes), timing
 *  each span, and once each distance has folded at least 48 MiB (x, a
 *  mask and a dot product's y counted) in at least 24 spans (one call of
 *  2^25 f32, two of 2^24) the one with the faster median span is kept for
 *  the rest of the process. On one thread the spans take turns; on
 *  several, whole calls do (every thread at one distance at a time), and
 *  such calls measure apart from one-thread calls, as other conditions
 *  (on AMD Zen 5 a distance timed on 2 threads, where both read alike,
 *  left one-thread f32 sums at 0.6 of their speed at the other). Two
 *  kinds of measurement:
 *  - the default distance, sb_host_prefetch(): measured by the plain
 *    unmasked f32 sums, products, minima and maxima together with the f64
 *    ones (input and accumulator of one type, no map, no dot product) on
 *    one thread in the instruction set a call takes by itself
 *    (sb_host_isa(NULL)), and taken by POCL's launches (as an argument
 *    at each launch, not a build option, so that POCL's kernel cache
 *    holds one program whatever a process measured) and by every call
 *    below that does not keep its own;
 *  - every other fold whose full blocks read the distance measures its
 *    own (sb_host_prefetch_folds()): the same plain float folds on
 *    several threads ("plain float folds, avx512, threaded") or forced
 *    onto another instruction set by sb_host_options.isa ("plain float
 *    folds, sse2": the best distance differs by instruction set; one
 *    kind per instruction set for all of them), the unmasked float
 *    folds with a map (|x| and x² apart) or a dot product, and those of
 *    f32, f16, bf16 and i32 inputs converted into f32 or f64 (on AMD Zen
 *    5 f16 |x| into f32 read 13.5 GB/s without a prefetch, 28 with one,
 *    where the plain sums measured best without), masked and
 *    NaN-skipping float sums, products, minima and maxima without a map
 *    or a dot product, and masked ones of i32 into f64 (on x86 with
 *    vector shuffles, GCC 12 or Clang; masked f64 min and max from AVX2
 *    up), f16 and bf16 accumulators
 *    (each map and the dot product apart), wrapping
 *    integer sums and products (masked too, but 8- and 16-bit
 *    products), checked integer sums of 32 and 64 bits, integer minima
 *    and maxima (masked too), the sums, minima and maxima of an
 *    integer into a wider integer (masked too), and the checked maps
 *    (masked too; min and max into 64 bits from AVX2 up) and dot
 *    products of 32- and 64-bit integers and of integer widenings; each
 *    element type,
 *    operation, accumulator, instruction set and one thread or several
 *    apart, up to
 *    SB_PREFETCH_FOLDS kinds a process (any more take the default). Its
 *    calls over 1 MiB or more of contiguous x, batch rows included, take
 *    what it kept; smaller ones, and every call before it keeps one, the
 *    default. Folds that read no distance (checked products, checked 8-
 *    and 16-bit sums, masked 8- and 16-bit wrapping products, products
 *    of integer widenings, maps and dot products of 8- and 16-bit
 *    integers into their own type, wrapping integer maps and dot
 *    products, integers converted into floats (but i32 into f64,
 *    unmasked, and masked on x86 as above, which measure their own),
 *    masked or NaN-skipping dot
 *    products, masked or NaN-skipping float maps, argmin and argmax)
 *    measure nothing.
 *  The default is 4096 until it is kept. The bits never depend
 *  on the distance: a prefetch is a hint, and the fold is the same code
 *  at every distance (tests/test_host_isa.c, test_host_prefetch.c). For
 *  benchmarks: `samebits bench --prefetch B` sets it. Any thread may
 *  reduce and ask for the reports at once; a fork() waits for a report
 *  or a span's record under way, so a child forked at any moment starts
 *  with what the parent had measured, reports and measures on its own
 *  (the parent never sees what the child measures); fork() from a signal
 *  handler that interrupted a report or a large reduction can wait for
 *  it forever, as with any library's locks. The default is kept for the
 *  instruction set calls took by themselves when it was measured; a
 *  process that changes SAMEBITS_ISA afterwards keeps it. */

/*! sb_host_prefetch() : the distance in bytes the host path prefetches
 *  at now (SAMEBITS_PREFETCH, else the one measured fastest, else 4096;
 *  0: none). */
SB_API size_t sb_host_prefetch(void);

/*! sb_prefetch_report : how sb_host_prefetch() came to its value. */
#define SB_PREFETCH_CANDIDATES 2
typedef enum {
    SB_PREFETCH_NOT_YET,          /* measuring: no call has been large
                                     enough yet; 4096 until then */
    SB_PREFETCH_MEASURED,         /* the faster candidate, kept */
    SB_PREFETCH_FROM_ENVIRONMENT  /* SAMEBITS_PREFETCH */
} sb_prefetch_source;
typedef struct {
    size_t             bytes;     /* sb_host_prefetch() */
    sb_prefetch_source source;
    size_t candidates[SB_PREFETCH_CANDIDATES];   /* 0 and 4096 */
    double gb_per_s[SB_PREFETCH_CANDIDATES];     /* what each folded at:
                                     its median span until the decision
                                     (10^9 bytes of input a second on one
                                     thread, with whatever else ran); 0
                                     before its first span */
} sb_prefetch_report;

/*! sb_host_prefetch_report() : fills *report (NULL: nothing) with the
 *  distance, where it came from and the measurements behind it; for
 *  benchmarks and for a user who wants to know. */
SB_API void sb_host_prefetch_report(sb_prefetch_report *report);

/*! sb_prefetch_fold : a kind of host fold that measures its own distance
 *  (SAMEBITS_PREFETCH), and where that stands. */
#define SB_PREFETCH_FOLDS 192
#define SB_PREFETCH_FOLD_NAME 64
typedef struct {
    char fold[SB_PREFETCH_FOLD_NAME];  /* e.g. "f32 sum, NaN-skipping,
                                          avx512": input (-> accumulator),
                                          operation, wrapping, dot, map,
                                          masked, NaN-skipping,
                                          instruction set, "threaded"
                                          on several threads (or "plain
                                          float folds, ISA"), of the first
                                          call that measured it (two
                                          reductions that run the same
                                          code, with a mask or not, the
                                          same map and dot product or
                                          not, share one) */
    sb_prefetch_report report;         /* as sb_host_prefetch_report(); its
                                          bytes: what this fold's calls of
                                          1 MiB or more of contiguous x
                                          prefetch at now
                                          (before its own is kept, the
                                          default) */
} sb_prefetch_fold;

/*! sb_host_prefetch_folds() : copies the first `capacity` (at most) of
 *  the folds that have measured so far in this process, in the order
 *  they began, into folds[] (NULL: none, whatever the capacity), and
 *  returns how many there are (never more than SB_PREFETCH_FOLDS). */
SB_API size_t sb_host_prefetch_folds(sb_prefetch_fold *folds,
                                     size_t capacity);

/* ------------------------------------------------------------------------
 * OpenCL devices (absent from a host-only build: SAMEBITS_OPENCL == 0)
 *
 * The same reductions on any OpenCL 1.2+ device (POCL on a CPU, NVIDIA, AMD
 * and Intel GPUs, the Oclgrind simulator), with the same bits as
 * sb_reduce_host(). Kernels are embedded in the library: nothing is read
 * from disk at run time.
 * ---------------------------------------------------------------------- */
#if SAMEBITS_OPENCL

/*! sb_cl_error_name() :
 *  @return "CL_OUT_OF_RESOURCES", ... for an OpenCL error code (cl_int),
 *          or "OpenCL error -9999" for a code it does not know. Static
 *          storage for the known codes; for an unknown one a thread-local
 *          buffer, valid until the thread's next call. Never NULL. */
SB_API const char *sb_cl_error_name(int32_t err);

/*! How a device computes a float type (sb_device_caps.type_mode; forced
 *  with sb_options.float_mode). Every mode gives the same bits; they
 *  differ in speed.
 *    SB_MODE_NATIVE    the hardware's IEEE arithmetic: the device keeps
 *                      subnormals (CL_FP_DENORM) for the type;
 *    SB_MODE_GUARDED   the device flushes subnormals (or the mode is
 *                      forced): each addition or multiplication runs on
 *                      the hardware where its result is provably the IEEE
 *                      one (no subnormal operand or result can occur), and
 *                      in exact integer code where a subnormal is
 *                      involved; comparisons and any/all on bits. Ordinary
 *                      data costs one integer check per element;
 *    SB_MODE_SOFTWARE  f64 on a device without fp64 (or forced): IEEE
 *                      binary64 in 64-bit integer arithmetic, every step.
 *  Integer types are always native. */
#define SB_MODE_NATIVE   0u
#define SB_MODE_GUARDED  1u
#define SB_MODE_SOFTWARE 2u

/*! sb_options flags */
#define SB_OPT_NO_HOST        1u  /* never reduce on the host, however small n */
#define SB_OPT_ALLOW_INEXACT  2u  /* raw hardware speed instead of the same
                                     bits: f32 and f64 in SB_MODE_NATIVE even
                                     where the device flushes subnormals (the
                                     bits may then differ from the host);
                                     f64 without fp64 is still software */
#define SB_OPT_FLUSH_SUBNORMALS 4u /* for tests, a device that really flushes:
                                     builds the kernels with
                                     -cl-denorms-are-zero (POCL then sets
                                     flush-to-zero and denormals-are-zero in
                                     its threads), and the context treats f32
                                     and f64 as flushed (guarded mode;
                                     sb_context_report() says so) */

/*! Sub-group modes of sb_options.subgroups */
#define SB_SUBGROUPS_AUTO      0u /* hardware shuffles where the device has
                                     them, else local memory */
#define SB_SUBGROUPS_OFF       1u /* local memory only */
#define SB_SUBGROUPS_EMULATE   2u /* shuffles emulated through local memory
                                     with sub-groups of emulated_subgroup_size
                                     lanes: the hardware code path's lane
                                     arithmetic, on any device (for tests) */

/*! sb_options : settings of a device context. Zero-initialise, then set
 *  what you need: 0 always means "the default". None of these changes the
 *  bits of a result, only speed (SB_OPT_ALLOW_INEXACT aside). Fields may be
 *  added at the end in a minor release (see ABI above). */
typedef struct {
    unsigned        flags;              /* SB_OPT_* */
    size_t          host_max_n;         /* sb_reduce() reduces n <= this on
                                           the host (default 32768; see
                                           SB_OPT_NO_HOST) */
    sb_host_options host;               /* for those host reductions */
    size_t          work_group_size;    /* power of two, <= the device's
                                           maximum; 0: chosen per device */
    unsigned        leaves_per_item;    /* 1, 2, 4, ... 128; 0: chosen: 4
                                           on a GPU; on a CPU device 128,
                                           halved per call (down to 32)
                                           while a launch would have fewer
                                           than two work-groups per compute
                                           unit. A value set here is used
                                           as it is */
    size_t          tree_work_group_size; /* for the passes over partials */
    unsigned        nodes_per_item;     /* 1 ... 128, for those passes (with
                                           tree_work_group_size 1, at least
                                           2: a pass must shrink) */
    unsigned        subgroups;          /* SB_SUBGROUPS_* */
    unsigned        emulated_subgroup_size; /* 2 ... 64, a power of two
                                           <= work_group_size */
    unsigned        float_mode;         /* 0: the mode each float type needs
                                           (sb_device_report()); for tests,
                                           SB_MODE_GUARDED: f32 and f64
                                           guarded even where the hardware
                                           keeps subnormals; SB_MODE_SOFTWARE:
                                           f64 in software, f32 guarded.
                                           Same bits, slower */
} sb_options;

/*! sb_device_entry : one OpenCL device, numbered as samebits numbers them
 *  everywhere (sb_device_select(), SAMEBITS_DEVICE, `samebits info` and
 *  `--device N`): every platform in the order of clGetPlatformIDs, and in
 *  each its devices in the order of clGetDeviceIDs(CL_DEVICE_TYPE_ALL). */
typedef struct {
    unsigned       index;            /* N: this device's number */
    unsigned       platform_index;   /* P and D of "P:D" */
    unsigned       device_index;
    struct _cl_platform_id *platform;
    struct _cl_device_id *device;
    int            is_simulator;     /* Oclgrind: slow, for tests; never
                                        the automatic choice while another
                                        device exists */
} sb_device_entry;

/*! sb_device_list() :
 *  Writes the first `capacity` devices (`entries` may be NULL when
 *  capacity is 0) and sets *count to how many there are. A machine with
 *  no OpenCL platform, or platforms without devices, has 0.
 *  @return SB_OK; SB_INVALID_ARGUMENT for a NULL count, or NULL entries
 *          with capacity > 0; SB_OPENCL_ERROR; SB_OUT_OF_MEMORY. */
SB_API SB_NODISCARD sb_status sb_device_list(sb_device_entry *entries,
        size_t capacity, size_t *count);

/*! sb_device_select() :
 *  The device `selector` names, in the one grammar of SAMEBITS_DEVICE and
 *  of the samebits command's --device:
 *    "N"    the device numbered N (sb_device_list(), `samebits info`);
 *    "P:D"  device D of platform P;
 *    a name: a case-insensitive part of the device's name or of its
 *           platform's name, vendor or version ("pocl", "oclgrind",
 *           "nvidia"); it must name exactly one device.
 *  (The samebits command's --device also takes "host", "all", "devices"
 *  and comma-separated lists; here "host" is refused with a detail that
 *  says the host path needs no context.)
 *  NULL or "": the automatic choice: the first GPU, else the first CPU
 *  device (POCL), else the first other device, a simulator (Oclgrind)
 *  only when nothing else is there.
 *  @return SB_OK with *out set; SB_UNSUPPORTED (with a detail listing the
 *          devices) when nothing matches, when a name matches several
 *          devices, or when there is no device at all; SB_INVALID_ARGUMENT
 *          for a NULL out; SB_OPENCL_ERROR; SB_OUT_OF_MEMORY. */
SB_API SB_NODISCARD sb_status sb_device_select(const char *selector,
        sb_device_entry *out);

/*! sb_context : a device, its programs (built on first use, once per
 *  (input, accumulator) pair) and its scratch buffers. One context may be
 *  used from several host threads at once. */
typedef struct sb_context sb_context;

/*! sb_context_create() :
 *  Makes a context for `device` of the OpenCL context `cl_ctx` (both are
 *  retained, and released by sb_context_release()). `opts` may be NULL.
 *  @return SB_OK; SB_INVALID_ARGUMENT for NULL handles, an `out` of NULL or
 *          invalid options; SB_OPENCL_ERROR if the device cannot be queried;
 *          SB_OUT_OF_MEMORY. *out is set only on SB_OK. */
SB_API SB_NODISCARD sb_status sb_context_create(
        struct _cl_context *cl_ctx, struct _cl_device_id *device,
        const sb_options *opts, sb_context **out);

/*! sb_context_create_select() :
 *  Makes a context, with its own cl_context, on the device `selector`
 *  names (sb_device_select(): "N", "P:D", a name, or NULL / "" for the
 *  automatic choice). The environment is not read.
 *  @return SB_OK; as sb_device_select() and sb_context_create() otherwise.
 *          *out is set only on SB_OK. */
SB_API SB_NODISCARD sb_status sb_context_create_select(const char *selector,
        const sb_options *opts, sb_context **out);

/*! sb_context_create_default() :
 *  sb_context_create_select(getenv("SAMEBITS_DEVICE"), opts, out): the
 *  device SAMEBITS_DEVICE names (same grammar; unset or empty: the
 *  automatic choice). A SAMEBITS_DEVICE that names no device, or several,
 *  is SB_UNSUPPORTED, never a silent fallback. */
SB_API SB_NODISCARD sb_status sb_context_create_default(const sb_options *opts,
        sb_context **out);

/*! sb_context_release() :
 *  Waits for nothing, releases everything the context holds. Reductions
 *  enqueued with sb_reduce_enqueue() still complete (OpenCL keeps their
 *  objects alive). NULL is a harmless no-op. */
SB_API void sb_context_release(sb_context *ctx);

/*! sb_context_device(), sb_context_cl_context(), sb_context_queue() :
 *  the context's device, its cl_context, and its own in-order command
 *  queue: the one a NULL `queue` argument means. Not retained for the
 *  caller (retain them to keep them past sb_context_release()); NULL for
 *  a NULL context. */
SB_API struct _cl_device_id *sb_context_device(const sb_context *ctx);
SB_API struct _cl_context *sb_context_cl_context(const sb_context *ctx);
SB_API struct _cl_command_queue *sb_context_queue(const sb_context *ctx);

/*! sb_context_last_cl_error() :
 *  The cl_int of the last OpenCL call of this context that failed (0 if
 *  none), for SB_OPENCL_ERROR. Shared by the context's threads. */
SB_API int32_t sb_context_last_cl_error(const sb_context *ctx);

/*! sb_context_build_log() :
 *  The build log of the last program that failed to build (SB_BUILD_ERROR),
 *  or "" if none. Valid until the next call on `ctx`; copy it to keep it. */
SB_API const char *sb_context_build_log(sb_context *ctx);

/*! Sub-group back-ends (sb_device_caps.subgroup_backend) */
#define SB_SUBGROUP_BACKEND_NONE   0  /* local memory only (AMD, POCL, Oclgrind) */
#define SB_SUBGROUP_BACKEND_KHR    1  /* cl_khr_subgroup_shuffle_relative */
#define SB_SUBGROUP_BACKEND_INTEL  2  /* cl_intel_subgroups */
#define SB_SUBGROUP_BACKEND_NVIDIA 3  /* inline PTX shfl.sync */

/*! sb_device_caps : what a device can do, as far as docs/order.md cares. */
typedef struct {
    char     name[128];
    char     vendor[128];
    char     version[128];          /* CL_DEVICE_VERSION */
    int      is_gpu;
    int      fp64;                  /* cl_khr_fp64 (or OpenCL C doubles) */
    int      f32_denormals;         /* CL_FP_DENORM in single-precision config */
    int      f64_denormals;         /* CL_FP_DENORM in double-precision config */
    int      int64;                 /* 64-bit integers (full profile, or
                                       cles_khr_int64) */
    int      subgroup_backend;      /* SB_SUBGROUP_BACKEND_* */
    unsigned subgroup_sizes[8];     /* as reported, where the device says */
    unsigned subgroup_size_count;
    size_t   max_work_group_size;
    size_t   local_mem_size;
    uint64_t max_alloc;             /* CL_DEVICE_MAX_MEM_ALLOC_SIZE: the
                                       largest buffer, in bytes */
    int      host_unified_memory;
    size_t   work_group_size;       /* the launch shape samebits uses */
    unsigned leaves_per_item;
    sb_status type_status[SB_F64 + 1]; /* per sb_type up to f64 (index 0
                                       unused; f16 and bf16, which every
                                       device computes as f32 does, have
                                       no entry, so the struct is
                                       unchanged):
                                       SB_OK when samebits computes the type
                                       exactly here, SB_UNSUPPORTED when it
                                       refuses it (64-bit types without
                                       64-bit integers: nothing else) */
    unsigned type_mode[SB_F64 + 1]; /* SB_MODE_*: how (native for
                                       integers) */
    char     type_reason[SB_F64 + 1][96]; /* why a type is refused, or why
                                       its mode is not native; "" if
                                       native */
} sb_device_caps;

/*! sb_device_report() :
 *  Fills *out for `device`: what it can do, and the mode each type takes
 *  with default options. @return SB_OK; SB_INVALID_ARGUMENT for NULL;
 *  SB_OPENCL_ERROR if the device cannot be queried. */
SB_API SB_NODISCARD sb_status sb_device_report(struct _cl_device_id *device,
        sb_device_caps *out);

/*! sb_context_report() :
 *  The same for the context: its device as the context computes on it,
 *  with its options applied (SB_OPT_FLUSH_SUBNORMALS, float_mode,
 *  SB_OPT_ALLOW_INEXACT change the modes; the launch shape is the one the
 *  options chose). @return SB_OK; SB_INVALID_ARGUMENT for NULL. */
SB_API SB_NODISCARD sb_status sb_context_report(const sb_context *ctx,
        sb_device_caps *out);

/*! sb_reduce() :
 *  Reduces `n` elements of `x`, from element `x_offset`, on the device of
 *  `ctx` through `queue`, and copies the value to host memory at `result`
 *  (as sb_reduce_host()). Blocks until done. The bits equal those of
 *  sb_reduce_host() for the same input.
 *  `queue` may be NULL: the context's own queue (sb_context_queue()).
 *  `mask` may be NULL: every element then takes part; otherwise a buffer of
 *  bytes, element i taking part iff mask[mask_offset + i] != 0.
 *  `queue` must belong to the context and device of `ctx`; `x` and `mask`
 *  to its context. Inputs with n <= sb_options.host_max_n are reduced on the
 *  host (same bits, no launch) unless SB_OPT_NO_HOST is set: the range is
 *  read back with one blocking clEnqueueReadBuffer on `queue` (and the
 *  mask's with a second), so such a call costs one command round trip per
 *  buffer, the least any call on a cl_mem can cost (on POCL as much as a
 *  launch: 17-46 us on the project's CI machine; `samebits bench` part 2
 *  measures it).
 *  @return SB_OK; SB_EMPTY (min/max over nothing); SB_OVERFLOW;
 *          SB_INVALID_ARGUMENT for a bad reduction, NULL handles or result,
 *            a buffer or queue of another context, or a range outside a
 *            buffer (offset and n in elements, overflow-safe);
 *          SB_UNSUPPORTED if the device has no exact way for the input
 *            or accumulator type (a 64-bit type without 64-bit integers:
 *            sb_device_report(); a count needs the 64-bit integers of
 *            its u64 result);
 *          SB_BUILD_ERROR (see sb_context_build_log()); SB_OPENCL_ERROR
 *          (see sb_context_last_cl_error(); 0 there when the device wrote
 *          a record that holds no status); SB_OUT_OF_MEMORY.
 *          sb_error_detail() says which. The detail of an overflow names
 *          positions (counted from x_offset) when the host reduced the
 *          range (n <= host_max_n), and none when the device did (the
 *          record has no room for them). On any status but SB_OK, `result`
 *          is untouched. */
SB_API SB_NODISCARD sb_status sb_reduce(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *mask, size_t mask_offset, size_t n,
        void *result);

/*! sb_device_result : the record sb_reduce_enqueue() writes into a device
 *  buffer, 16 bytes: `value` at byte 0, `status` at byte 8. `status` is
 *  SB_OK, SB_EMPTY or SB_OVERFLOW; `value` (the first sb_result_size()
 *  bytes, native byte order: 2 for an f16 or bf16 accumulator, 1 for
 *  any/all, 8 for a count's uint64_t) is written only when it is SB_OK,
 *  and is otherwise left as it was, as are the bytes of `value` after the
 *  result's. */
typedef struct {
    unsigned char value[8];
    int32_t       status;
    uint32_t      reserved;
} sb_device_result;

/*! sb_device_arg_result : the record sb_reduce_enqueue() and
 *  sb_reduce_batched_enqueue() write for SB_ARGMIN / SB_ARGMAX (24 bytes,
 *  at offsets that are multiples of 8): `value` and `index` as in
 *  sb_arg_result, written only when the status is SB_OK (and of `value`
 *  only the accumulator's bytes, as in sb_device_result); `status` at
 *  byte 16. (A count's record is an sb_device_result.) */
typedef struct {
    unsigned char value[8];
    uint64_t      index;
    int32_t       status;
    uint32_t      reserved;
} sb_device_arg_result;

/*! sb_reduce_enqueue() :
 *  Enqueues the reduction of sb_reduce() on `queue` (NULL: the context's
 *  own) and returns at once.
 *  When the commands complete, an sb_device_result (for argmin / argmax
 *  an sb_device_arg_result) is at byte `result_offset` (a multiple of 8)
 *  of the buffer `result`. The commands
 *  wait for the `num_wait` events in `wait` (OpenCL wait-list rules); if
 *  `done` is not NULL it receives an event, to release with
 *  clReleaseEvent(), that completes with them. Never uses the host path.
 *  @return as sb_reduce(), except that SB_EMPTY and SB_OVERFLOW are
 *          reported only in the record. On an error nothing is enqueued
 *          and *done is untouched. */
SB_API SB_NODISCARD sb_status sb_reduce_enqueue(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *mask, size_t mask_offset, size_t n,
        struct _cl_mem *result, size_t result_offset, uint32_t num_wait,
        struct _cl_event *const *wait, struct _cl_event **done);

/*! sb_partial_add() :
 *  sb_partial_add_host() for elements in a cl_mem: appends elements
 *  [x_offset, x_offset + n) of `x` (mask as sb_reduce()) at p's end, with
 *  the bits it would have had on the host. The piece is cut at the global
 *  leaf positions of p's end: loose elements where a leaf is cut, then the
 *  largest aligned subtrees that fit; each subtree larger than the
 *  context's host_max_n is reduced on the device (one sb_reduce() each, so
 *  a piece whose start and length are multiples of a power of two
 *  16 x 2^k is one call), the rest is read back with one blocking read at
 *  each end of the piece. Blocks until done. A failure (any status of
 *  sb_reduce() but SB_EMPTY and SB_OVERFLOW, which the partial keeps)
 *  leaves p unchanged. */
SB_API SB_NODISCARD sb_status sb_partial_add(sb_context *ctx,
        struct _cl_command_queue *queue, sb_partial *p, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *mask, size_t mask_offset, size_t n);

/*! sb_dot(), sb_dot_enqueue(), sb_partial_add_dot() :
 *  sb_dot_host() on the device: x and y are buffers of r.input elements,
 *  from elements x_offset and y_offset; the mask as sb_reduce(). Every
 *  other argument, rule and status is that of sb_reduce(),
 *  sb_reduce_enqueue() and sb_partial_add() (y checked as x is), and the
 *  bits are sb_dot_host()'s. */
SB_API SB_NODISCARD sb_status sb_dot(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *y, size_t y_offset,
        struct _cl_mem *mask, size_t mask_offset, size_t n, void *result);
SB_API SB_NODISCARD sb_status sb_dot_enqueue(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *y, size_t y_offset,
        struct _cl_mem *mask, size_t mask_offset, size_t n,
        struct _cl_mem *result, size_t result_offset, uint32_t num_wait,
        struct _cl_event *const *wait, struct _cl_event **done);
SB_API SB_NODISCARD sb_status sb_partial_add_dot(sb_context *ctx,
        struct _cl_command_queue *queue, sb_partial *p, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *y, size_t y_offset,
        struct _cl_mem *mask, size_t mask_offset, size_t n);

/*! sb_reduce_batched() :
 *  sb_reduce_batched_host() on elements in a cl_mem: reduction b reads
 *  elements x_offset + b * batch_stride + i * elem_stride of `x`, i < n
 *  (strides in elements, zero or negative allowed), and the mask the same
 *  way from mask_offset. Every element's position is checked against the
 *  buffers before anything is enqueued, overflow-safe: a batch that
 *  reaches before element 0 or past the end of `x` or `mask` is
 *  SB_INVALID_ARGUMENT. Blocks until done. Answers as
 *  sb_reduce_batched_host(): statuses[b] SB_OK, SB_EMPTY or SB_OVERFLOW,
 *  results[b] (host memory, at byte b * sb_result_size(r)) written only
 *  when SB_OK, with the bits of sb_reduce_host().
 *  How: contiguous rows (elem_stride 1, n > 0) of up to 2^18 elements
 *  (on a GPU 2^11), rows of up to 2^13 elements or 64 rows and more, are
 *  one launch of a rows kernel, one work-item per row folding its whole
 *  row (the same folds and binary counter as sb_reduce()'s work-items;
 *  on a CPU device, unmasked native float sums, min and max: 8 f32 rows
 *  per work-item, 4 f64, 16 of a half input or accumulator, side by side
 *  in vector lanes, when the batch has that many rows or more),
 *  records read back once, unless the whole batch is small enough for
 *  the host shortcut (count * n <= host_max_n, no SB_OPT_NO_HOST); rows
 *  the kernel does not take that sb_reduce() would reduce on the host
 *  (n <= host_max_n), lying close together (|batch_stride| <= 2n + 1),
 *  are mapped about 2^18 elements at a time (a row at least) and reduced
 *  by sb_reduce_batched_host(); other rows that sb_reduce() would launch
 *  are launched
 *  one after the other, each its own sb_reduce_enqueue() chain into a
 *  record of a buffer of the call's own, every record read back once at
 *  the end; the rest (rows sb_reduce() would reduce on the host, far
 *  apart) one sb_reduce() each; columns side by side (batch_stride 1,
 *  elem_stride != 1, n from 2 to 2^18, no mask) of a native float sum,
 *  min or max (a half input into f32 or its own type, f32 into f64 and
 *  an integer into f32 or f64 included; no NaN
 *  skipping), 16 of them at least (8 for f64), are one launch of a
 *  columns kernel, a block of 16 (8) columns per work-item in vector
 *  lanes, the work-group's items reading each row's block together (in
 *  work-groups of the kernel's own choosing, up to 256 items, not
 *  sb_options.work_group_size), records read back once (again unless the
 *  batch is small enough for the host shortcut); other strided rows
 *  (columns) are mapped
 *  for reading, the whole range the batch covers (and the mask's), with
 *  one blocking clEnqueueMapBuffer() each (no copy on a CPU device, a
 *  copy on a GPU), reduced by sb_reduce_batched_host(), and unmapped
 *  (waited for) before the call returns. The host reductions run with
 *  the context's sb_options.host (threads, isa), as sb_reduce()'s do.
 *  @return SB_OK when every reduction got its answer; otherwise the
 *          statuses of sb_reduce() (SB_INVALID_ARGUMENT also for NULL
 *          `results` or `statuses` with count > 0 and for strides whose
 *          elements span more than PTRDIFF_MAX bytes; SB_UNSUPPORTED for
 *          types the device refuses; SB_OPENCL_ERROR,
 *          ...)
 *          with a detail. On any status but SB_OK nothing is written. */
SB_API SB_NODISCARD sb_status sb_reduce_batched(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *mask, size_t mask_offset, size_t n,
        ptrdiff_t elem_stride, size_t count, ptrdiff_t batch_stride,
        void *results, sb_status *statuses);

/*! sb_reduce_batched_enqueue() :
 *  sb_reduce_batched() writing `count` sb_device_result records into the
 *  buffer `results`, record b at byte results_offset + 16 * b
 *  (results_offset a multiple of 8), each as sb_reduce_enqueue() writes
 *  one; for argmin / argmax sb_device_arg_result records, at
 *  results_offset + 24 * b. Wait list and `done` as sb_reduce_enqueue();
 *  `done` completes when every record is written. count == 0 enqueues
 *  nothing and sets *done (if not NULL) to NULL.
 *  How: contiguous rows (elem_stride 1, n > 0) that the rows kernel takes
 *  (sb_reduce_batched()) are its one launch, which writes the records and
 *  whose event is *done; longer rows (and rows of no element) are one
 *  sb_reduce_enqueue() each, each waiting for the one before (so that
 *  they take turns with one pair of the context's scratch buffers,
 *  however many rows), into a copy of the records in a buffer of the
 *  call's own, and one copy after the last row writes them all back into
 *  `results` (its event is *done); columns that the columns kernel takes
 *  (as in sb_reduce_batched(), but however small the batch) are its one
 *  launch, as for the rows kernel;
 *  either way the call returns at once; other strided rows are computed
 *  as sb_reduce_batched() computes them, so
 *  the call BLOCKS: it waits for the wait list, maps the batch, reads the
 *  records back, and writes the records with one blocking write (whose
 *  event is *done).
 *  @return as sb_reduce_batched() (SB_EMPTY and SB_OVERFLOW only in the
 *          records), and SB_INVALID_ARGUMENT for a NULL `results`, a
 *          results_offset not a multiple of 8, records past the end of
 *          `results`, or a bad wait list. Every argument is checked before
 *          anything is enqueued. On any status but SB_OK nothing is
 *          written to `results` and *done is untouched: after an OpenCL
 *          failure part way, the rows already enqueued still run, but
 *          write only the call's own buffer, which OpenCL frees when
 *          they are done. */
SB_API SB_NODISCARD sb_status sb_reduce_batched_enqueue(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *mask, size_t mask_offset, size_t n,
        ptrdiff_t elem_stride, size_t count, ptrdiff_t batch_stride,
        struct _cl_mem *results, size_t results_offset, uint32_t num_wait,
        struct _cl_event *const *wait, struct _cl_event **done);

/*! sb_reduce_segments() :
 *  sb_reduce_segments_host() on elements in a cl_mem: reduction b covers
 *  elements x_offset + offsets[b] .. x_offset + offsets[b + 1] of `x`
 *  (mask likewise from mask_offset), where `offsets` is a buffer of
 *  count + 1 uint64_t from element offsets_offset (counted in uint64_t),
 *  non-decreasing. The offsets are read back (one blocking read), then
 *  checked against the buffers, overflow-safe. Blocks until done.
 *  Where each segment goes, by its length (the bits are the same on
 *  every path):
 *  - consecutive segments of at most host_max_n elements (without
 *    SB_OPT_NO_HOST) are mapped together and reduced by one
 *    sb_reduce_segments_host(): on a CPU device whose memory is the
 *    host's (POCL, llvmpipe) all of them at once, since such a map is the
 *    buffer itself; elsewhere, where a map may copy, up to
 *    128 * host_max_n elements at a time (2^22 by default; at least 2^18;
 *    a segment at least); each with the context's sb_options.host
 *    (threads, isa); but on a GPU, where a map copies, a call of more
 *    than host_max_n elements in all gives its segments of up to 2048
 *    elements to the segments kernel;
 *  - the others, up to 2^18 elements on a CPU device (2^15 on Mesa's
 *    llvmpipe, 2048 on a GPU), in one launch of the segments kernel, a
 *    work-item per segment (on a CPU device 8 f32, 4 f64 or 16 half
 *    unmasked segments of one length side by side, for native float
 *    sums, min and max); those past 8192 elements only when 64 or more
 *    are, since each is one work-item;
 *  - the rest as sb_reduce_batched() launches long rows, a launch chain
 *    each, their records read back once at the end.
 *  @return as sb_reduce_batched(), and SB_INVALID_ARGUMENT for a NULL
 *          `offsets` with count > 0, offsets past the end of their buffer,
 *          offsets that decrease, or segments past the end of `x` or
 *          `mask`. On any status but SB_OK nothing is written. */
SB_API SB_NODISCARD sb_status sb_reduce_segments(sb_context *ctx,
        struct _cl_command_queue *queue, sb_reduction r, struct _cl_mem *x,
        size_t x_offset, struct _cl_mem *mask, size_t mask_offset,
        struct _cl_mem *offsets, size_t offsets_offset, size_t count,
        void *results, sb_status *statuses);

#endif /* SAMEBITS_OPENCL */

#ifdef __cplusplus
}
#endif

#endif /* SAMEBITS_H */
