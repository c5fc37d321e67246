/* plan.h: what every path of the library shares: the type tables, the
 * checked description of a reduction (sb__plan), and the error detail.
 * Nothing here is part of the public API.
 *
 * The tables below (types, allowed accumulator pairs) are the one source
 * of truth for argument checking, conversions, kernel build options and
 * names in src/; tests/oracle.c deliberately derives its own copy from
 * docs/order.md. */
#ifndef SB_PLAN_H
#define SB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "samebits.h"
#include "error_detail.h"

#define SB_LEAF_SIZE 16   /* positions per leaf (docs/order.md) */

#define SB_RETURN_IF(cond, status) \
    do { if (cond) return (status); } while (0)

/* X(enum, tag, C type, is_float, is_signed, OpenCL C type) */
#define SB_TYPE_LIST(X)                                  \
    X(SB_I8,  i8,  int8_t,   0, 1, char)                 \
    X(SB_U8,  u8,  uint8_t,  0, 0, uchar)                \
    X(SB_I16, i16, int16_t,  0, 1, short)                \
    X(SB_U16, u16, uint16_t, 0, 0, ushort)               \
    X(SB_I32, i32, int32_t,  0, 1, int)                  \
    X(SB_U32, u32, uint32_t, 0, 0, uint)                 \
    X(SB_I64, i64, int64_t,  0, 1, long)                 \
    X(SB_U64, u64, uint64_t, 0, 0, ulong)                \
    X(SB_F32, f32, float,    1, 1, float)                \
    X(SB_F64, f64, double,   1, 1, double)

/* The half-precision float types (samebits.h: SB_F16, SB_BF16), kept out
 * of SB_TYPE_LIST because C has no arithmetic type for them: their
 * elements are 16-bit patterns (the C type below is the storage), which
 * the host path converts to binary32 and computes with as host_half.h
 * says. Same columns as SB_TYPE_LIST; the OpenCL name is the storage too
 * (the kernels read the bits as ushort and compute in binary32:
 * cl/arith_half.cl). */
#define SB_HALF_TYPE_LIST(X)                             \
    X(SB_F16,  f16,  uint16_t, 1, 1, ushort)             \
    X(SB_BF16, bf16, uint16_t, 1, 1, ushort)

/* Every sb_type: for tables of sizes and names. */
#define SB_ALL_TYPE_LIST(X) SB_TYPE_LIST(X) SB_HALF_TYPE_LIST(X)

#define SB_LAST_TYPE SB_BF16

#define SB_TYPEDEF_CTYPE_(e, tag, ctype, f, s, cl) typedef ctype sb__ctype_##tag;
SB_ALL_TYPE_LIST(SB_TYPEDEF_CTYPE_)
#undef SB_TYPEDEF_CTYPE_

/* SB__T_i8 == SB_I8 ...: lets macros go from a tag back to its enum. */
enum {
#define SB_TAG_ENUM_(e, tag, ctype, f, s, cl) SB__T_##tag = e,
    SB_ALL_TYPE_LIST(SB_TAG_ENUM_)
#undef SB_TAG_ENUM_
};

#define SB_TYPE_COUNT 10   /* the types of SB_TYPE_LIST: SB_I8 .. SB_F64 */

/* The exact conversions docs/order.md allows besides A = I:
 * X(input tag, accumulator tag). */
#define SB_WIDENING_LIST(X)                                              \
    X(i8, i32)  X(i8, i64)  X(i16, i32) X(i16, i64) X(i32, i64)          \
    X(u8, u32)  X(u8, u64)  X(u16, u32) X(u16, u64) X(u32, u64)          \
    X(u8, i32)  X(u8, i64)  X(u16, i32) X(u16, i64) X(u32, i64)          \
    X(f32, f64)                                                          \
    X(i8, f32)  X(u8, f32)  X(i16, f32) X(u16, f32)                      \
    X(i8, f64)  X(u8, f64)  X(i16, f64) X(u16, f64) X(i32, f64) X(u32, f64)

/* The exact conversions of the half types (not C conversions: see
 * host_prepare.c): X(input tag, accumulator tag). */
#define SB_HALF_WIDENING_LIST(X)                                         \
    X(f16, f32) X(f16, f64) X(bf16, f32) X(bf16, f64)

bool sb__type_valid(sb_type t);
bool sb__type_is_float(sb_type t);   /* f32, f64, f16, bf16 */
bool sb__type_is_half(sb_type t);    /* f16, bf16 */
bool sb__type_is_signed(sb_type t);
/* "char", "uint", "double", ...: the OpenCL C name of `t`. */
const char *sb__type_cl_name(sb_type t);

/* A checked and resolved sb_reduction: what every path works from. */
typedef struct {
    sb_op   op;
    sb_type input;
    sb_type acc;          /* resolved: never 0; equals input for any/all
                             and count */
    bool    wrap;         /* SB_WRAP on an integer sum/prod */
    bool    checked;      /* an integer step can overflow: sum, prod, a
                             map or a dot product's products, without
                             SB_WRAP */
    sb_map  map;          /* SB_MAP_NONE for dot products */
    bool    skip_nan;     /* SB_SKIP_NAN (float inputs only) */
    bool    dot;          /* the elements are x[i] * y[i] (sb__plan_dot) */
    bool    arg;          /* argmin / argmax: nodes carry a position */
    bool    prepared;     /* elements are not the input as it is: converted,
                             mapped, NaN-skipping or products */
    size_t  input_size;   /* bytes per element */
    size_t  fold_size;    /* bytes per element the fold reads: the
                             accumulator's, but 4 for a half accumulator,
                             whose elements are floats (host_half.h) */
    size_t  result_size;  /* bytes written to the result */
} sb__plan;

/* Validates r and fills *plan.
 * @return SB_OK or SB_INVALID_ARGUMENT, with the error detail set. */
sb_status sb__plan_make(sb_reduction r, sb__plan *plan);

/* The same for a dot product's reduction (r.op SB_SUM, no map): *plan
 * describes the sum of the terms x[i] * y[i]. */
sb_status sb__plan_make_dot(sb_reduction r, sb__plan *plan);

/* The sb_reduction a plan was made from (for partials, which keep one). */
sb_reduction sb__plan_reduction(const sb__plan *plan);

/* Whether input -> acc is an allowed conversion for sum/prod/min/max. */
bool sb__pair_allowed(sb_type input, sb_type acc);

#endif /* SB_PLAN_H */
