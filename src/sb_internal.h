/* sb_internal.h: private declarations shared by the host path and the
 * OpenCL runtime. Nothing here is part of the public API.
 *
 * The tables below (types, allowed accumulator pairs) are the single source
 * of truth for argument checking, conversions and kernel selection in src/;
 * tests/oracle.c deliberately derives its own copy from ORDER.md. */
#ifndef SB_INTERNAL_H
#define SB_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "samebits.h"

#define SB_LEAF_SIZE     16                     /* elements per leaf (ORDER.md) */
#define SB_BLOCK_LEAVES  256                    /* leaves per host block */
#define SB_BLOCK_SIZE    (SB_LEAF_SIZE * SB_BLOCK_LEAVES)

#define SB_RETURN_IF(cond, status) \
    do { if (cond) return (status); } while (0)

/* X(enum, tag, C type, is_float, is_signed) */
#define SB_TYPE_LIST(X)                       \
    X(SB_I8,  i8,  int8_t,   0, 1)            \
    X(SB_U8,  u8,  uint8_t,  0, 0)            \
    X(SB_I16, i16, int16_t,  0, 1)            \
    X(SB_U16, u16, uint16_t, 0, 0)            \
    X(SB_I32, i32, int32_t,  0, 1)            \
    X(SB_U32, u32, uint32_t, 0, 0)            \
    X(SB_I64, i64, int64_t,  0, 1)            \
    X(SB_U64, u64, uint64_t, 0, 0)            \
    X(SB_F32, f32, float,    1, 1)            \
    X(SB_F64, f64, double,   1, 1)

#define SB_TYPEDEF_CTYPE_(e, tag, ctype, f, s) typedef ctype sb__ctype_##tag;
SB_TYPE_LIST(SB_TYPEDEF_CTYPE_)
#undef SB_TYPEDEF_CTYPE_

/* SB__T_i8 == SB_I8 ...: lets macros go from a tag back to its enum. */
enum {
#define SB_TAG_ENUM_(e, tag, ctype, f, s) SB__T_##tag = e,
    SB_TYPE_LIST(SB_TAG_ENUM_)
#undef SB_TAG_ENUM_
};

/* The exact conversions ORDER.md allows besides A = I:
 * X(input tag, accumulator tag). */
#define SB_WIDENING_LIST(X)                                              \
    X(i8, i32)  X(i8, i64)  X(i16, i32) X(i16, i64) X(i32, i64)          \
    X(u8, u32)  X(u8, u64)  X(u16, u32) X(u16, u64) X(u32, u64)          \
    X(u8, i32)  X(u8, i64)  X(u16, i32) X(u16, i64) X(u32, i64)          \
    X(f32, f64)                                                          \
    X(i8, f32)  X(u8, f32)  X(i16, f32) X(u16, f32)                      \
    X(i8, f64)  X(u8, f64)  X(i16, f64) X(u16, f64) X(i32, f64) X(u32, f64)

#define SB_TYPE_COUNT 10

bool   sb__type_valid(sb_type t);
bool   sb__type_is_float(sb_type t);
bool   sb__type_is_signed(sb_type t);

/* A checked and resolved sb_reduction: what every path works from. */
typedef struct {
    sb_op   op;
    sb_type input;
    sb_type acc;          /* resolved: never 0; equals input for any/all */
    bool    wrap;         /* SB_WRAP on an integer sum/prod */
    bool    checked;      /* integer sum/prod without SB_WRAP */
    size_t  input_size;   /* bytes per element */
    size_t  result_size;  /* bytes written to the result */
} sb__plan;

/* Validates r and fills *plan. @return SB_OK or SB_INVALID_ARGUMENT. */
sb_status sb__plan_make(sb_reduction r, sb__plan *plan);

/* Whether input -> acc is an allowed conversion for sum/prod/min/max. */
bool sb__pair_allowed(sb_type input, sb_type acc);

/* A node of the reduction tree: a value of the accumulator type, or none. */
typedef struct {
    union {
#define SB_NODE_FIELD_(e, tag, ctype, f, s) ctype tag;
        SB_TYPE_LIST(SB_NODE_FIELD_)
#undef SB_NODE_FIELD_
        unsigned char bytes[8];
    } v;
    bool has;             /* false: none (nothing took part) */
} sb__node;

/* Folds `count` (1..SB_BLOCK_SIZE) accumulator-typed elements starting at
 * an aligned block boundary into the node of that block's 256-leaf subtree.
 * `mask` may be NULL. Sets *overflow on a checked-arithmetic overflow. */
typedef void (*sb__block_fn)(const void *x, const unsigned char *mask,
                             size_t count, sb__node *out, bool *overflow);
/* *left = combine(*left, *right) (ORDER.md), none-aware. */
typedef void (*sb__combine_fn)(sb__node *left, const sb__node *right,
                               bool *overflow);

typedef struct {
    sb__block_fn   block;
    sb__combine_fn combine;
} sb__kernel;

/* The host kernel of a plan's (accumulator, op, wrap); NULL for any/all. */
const sb__kernel *sb__host_kernel(const sb__plan *plan);

/* Converts `count` elements from `input` to `acc` (an allowed pair,
 * input != acc). */
void sb__convert(sb_type input, sb_type acc, const void *in, void *out,
                 size_t count);

/* Writes the root (or the empty-input answer) to result.
 * @return SB_OK, SB_EMPTY or SB_OVERFLOW; result untouched unless SB_OK. */
sb_status sb__finish(const sb__plan *plan, const sb__node *root,
                     bool overflow, void *result);

/* The floating-point environment ORDER.md needs: round to nearest even, no
 * flush-to-zero or denormals-are-zero, exceptions masked. */
typedef struct { unsigned long long saved[8]; } sb__fpenv;
void sb__fpenv_enter(sb__fpenv *saved);
void sb__fpenv_leave(const sb__fpenv *saved);

/* The number of threads the host path uses when asked for `requested`
 * (0: SAMEBITS_THREADS, else the online CPU count). */
unsigned sb__host_thread_count(unsigned requested);

#endif /* SB_INTERNAL_H */
