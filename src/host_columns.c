/* host_columns.c: the column folds of sb_reduce_batched_host()
 * (host_batched.c chooses the path, the panels and the threads).
 *
 * When the reductions of a batch lie next to each other and their
 * elements far apart (columns of a row-major matrix: batch_stride 1 or a
 * few elements, elem_stride the row length), a panel of adjacent
 * reductions is folded together: position i of every column of the panel
 * is read from one row (contiguous when batch_stride is 1) and folded
 * into that column's leaf, strictly left to right per column. Each
 * column is its own chain, vectorised across columns and never across
 * positions: no reassociation, no transpose. Unmasked float folds hold a
 * register of adjacent columns (two, for sums and products) while the
 * leaf's 16 rows are folded in, and store each leaf once; row by row,
 * every row's step loaded and stored the open leaf: 134218 x 1000 f32
 * columns ran at 14 GB/s on one thread, and at 21-22 GB/s folded down
 * the leaf (AMD EPYC Zen 4, against a 35 GB/s read). Other folds go
 * row by row over the panel.
 *
 * A panel is as wide as its merge stack stays in L2 (a thousand
 * columns of f32 at 2^17 rows, nine thousand at a thousand rows; at most
 * SB_COLUMN_ROW_BYTES of a row), so it reads long runs of each row, in
 * address order. Tiles of 64 columns (256 bytes of f32 per row) jumped
 * to a new page every row and reached 0.35 of the read on one thread,
 * half-row panels 0.4; prefetching the rows ahead in software did not
 * help (README: Performance).
 *
 * Every SB_LEAF_SIZE positions the leaves close. The leaf boundaries are
 * the same for every column, so the panel shares one binary counter (the
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
 * the gather path of host_batched.c (correctness first; they could fold
 * per element here too). */

/* This file is compiled once per instruction set of the host path, as
 * host_kernels.c is (CMakeLists.txt): only the register width differs
 * between copies, every column's leaf is the same left-to-right chain in
 * each, so they give the same bits (tests/test_batched.c runs each). */
#include <string.h>
#include "host_columns.h"

/* COLUMN_BLOCK_BYTES: the columns of a leaf held in one register while
 * the leaf's rows are folded in (a register of the copy's width: wider
 * vector types spilled to the stack on AVX2, and ran at two thirds of
 * the row-by-row fold). */
#if !defined(SB_HOST_ISA) || SB_HOST_ISA == SB_ISA_BASELINE
#  define SB_COLUMN_LOOKUP sb__column_fold_baseline
#  define COLUMN_BLOCK_BYTES 16
#elif SB_HOST_ISA == SB_ISA_AVX2
#  define SB_COLUMN_LOOKUP sb__column_fold_avx2
#  define COLUMN_BLOCK_BYTES 32
#elif SB_HOST_ISA == SB_ISA_AVX512
#  define SB_COLUMN_LOOKUP sb__column_fold_avx512
#  define COLUMN_BLOCK_BYTES 64
#else
#  error "SB_HOST_ISA: unknown instruction set"
#endif

#define SB_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The merge stack of a panel: slot k of column c is sv[k * cols + c]
 * (sh its has-flag, ov[c] the column's overflow); the open leaf is slot
 * `top`. CLOSE enters it at level 0 and combines equal levels, FINISH
 * combines the rest from the right and writes every column's answer from
 * slot 0. COMBINE(&l, &lh, r, rh, &o) sets l, lh to combine((l, lh),
 * (r, rh)) and ORs an overflow into o; PLAIN(l, r, o) is the same where
 * both have a value (no mask: every leaf has), which vectorises. */
#define COLUMN_STACK                                                        \
    unsigned lev[SB_COLUMN_LEVELS];                                         \
    size_t top = 0;                                                         \
    memset(ov, 0, cols)
#define COLUMN_MERGE(k, COMBINE, PLAIN)                                     \
    {                                                                       \
        __typeof__(sv[0]) *restrict l_ = sv + (k) * cols;                   \
        const __typeof__(sv[0]) *restrict r_ = l_ + cols;                   \
        if (mask == NULL) {                                                 \
            for (size_t c = 0; c < cols; c++)                               \
                PLAIN(&l_[c], r_[c], &ov[c]);                                 \
        } else {                                                            \
            unsigned char *restrict lh_ = sh + (k) * cols;                  \
            const unsigned char *restrict rh_ = lh_ + cols;                 \
            for (size_t c = 0; c < cols; c++)                               \
                COMBINE(&l_[c], &lh_[c], r_[c], rh_[c], &ov[c]);            \
        }                                                                   \
    }
#define COLUMN_CLOSE(COMBINE, PLAIN)                                        \
    {                                                                       \
        lev[top++] = 0;                                                     \
        while (top >= 2 && lev[top - 2] == lev[top - 1]) {                  \
            COLUMN_MERGE(top - 2, COMBINE, PLAIN);                          \
            lev[top - 2]++;                                                 \
            top--;                                                          \
        }                                                                   \
    }
#define COLUMN_FINISH(COMBINE, PLAIN)                                       \
    {                                                                       \
        for (size_t k = top - 1; k-- > 0;)                                  \
            COLUMN_MERGE(k, COMBINE, PLAIN);                                \
        for (size_t c = 0; c < cols; c++)                                   \
            sb__column_emit(j, chunk, first + c, &sv[c], sizeof sv[0],      \
                            sh[c] != 0, ov[c] != 0);                        \
    }

/* STEP(a, b, o): a = a op b, ORing an overflow into o. */
#define CSTEP_ADD(a, b, o)     ((a) = (a) + (b))
#define CSTEP_MUL(a, b, o)     ((a) = (a) * (b))
#define CSTEP_U32_ADD(a, b, o) ((a) = (__typeof__(a))((uint32_t)(a) + (uint32_t)(b)))
#define CSTEP_U32_MUL(a, b, o) ((a) = (__typeof__(a))((uint32_t)(a) * (uint32_t)(b)))
#define CSTEP_CHECKED_ADD(a, b, o) ((o) |= __builtin_add_overflow((a), (b), &(a)))
#define CSTEP_CHECKED_MUL(a, b, o) ((o) |= __builtin_mul_overflow((a), (b), &(a)))

/* A fold's entry points: unit batch stride (the common case) gets its
 * own copy, where a row's part is one contiguous run; a panel no wider
 * than sb__column_stack_width() keeps its merge stack in the frame. */
#define DEFINE_COLUMN_ENTRY(NAME, T)                                        \
static void NAME##_at(const sb__column_job *j, const void *x,              \
                      const unsigned char *mask, size_t n, size_t chunk,    \
                      size_t first, size_t cols, T *sv, unsigned char *sh,  \
                      unsigned char *ov)                                    \
{                                                                           \
    if (j->batch_stride == 1)                                               \
        NAME##_body(j, x, mask, n, chunk, 1, first, cols, sv, sh, ov);      \
    else                                                                    \
        NAME##_body(j, x, mask, n, chunk, j->batch_stride, first, cols, sv, \
                    sh, ov);                                                \
}                                                                           \
static __attribute__((noinline)) void NAME##_on_stack(                     \
        const sb__column_job *j, const void *x, const unsigned char *mask,  \
        size_t n, size_t chunk, size_t first, size_t cols)                  \
{                                                                           \
    T sv[SB_COLUMN_STACK_VALUE_BYTES / sizeof(T)];                          \
    unsigned char sh[SB_COLUMN_STACK_FLAG_BYTES];                           \
    unsigned char ov[SB_COLUMN_STACK_FLAG_BYTES / 2];                       \
    NAME##_at(j, x, mask, n, chunk, first, cols, sv, sh, ov);               \
}                                                                           \
static void NAME(const sb__column_job *j, const void *x,                   \
                 const unsigned char *mask, size_t n, size_t chunk,         \
                 size_t first, size_t cols, void *state)                    \
{                                                                           \
    if (state == NULL) {                                                    \
        NAME##_on_stack(j, x, mask, n, chunk, first, cols);                 \
        return;                                                             \
    }                                                                       \
    unsigned char *sh = (unsigned char *)state                              \
        + sb__column_value_bytes(j->width, j->slots, sizeof(T));            \
    NAME##_at(j, x, mask, n, chunk, first, cols, (T *)state, sh,            \
              sh + j->slots * j->width);                                    \
}

/* Sums and products: START the leaf's start value, SKIP the exact
 * identity a masked element is folded as. */
#define DEFINE_COLUMN_FOLD(NAME, T, START, SKIP, STEP, VEC, VOP)            \
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
SB_ALWAYS_INLINE void NAME##_plain_(T *l, T r, unsigned char *ov)         \
{                                                                           \
    unsigned char o = 0;                                                    \
    STEP(*l, r, o);                                                         \
    *ov |= o;                                                               \
}                                                                           \
SB_ALWAYS_INLINE void NAME##_body(const sb__column_job *j,                  \
                                  const T *restrict x,                      \
                                  const unsigned char *restrict mask,       \
                                  size_t n, size_t chunk, ptrdiff_t bs,     \
                                  size_t first, size_t cols, T *sv,         \
                                  unsigned char *sh, unsigned char *ov)     \
{                                                                           \
    const ptrdiff_t es = j->elem_stride;                                    \
    COLUMN_STACK;                                                           \
    for (size_t s = 0; s < n; s += SB_LEAF_SIZE) {                          \
        const size_t end = n - s < SB_LEAF_SIZE ? n : s + SB_LEAF_SIZE;     \
        { /* the open leaf, written only through these in this block */    \
        T *restrict leaf = sv + top * cols;                                 \
        unsigned char *restrict lhas = sh + top * cols;                     \
        if (mask == NULL) {                                                 \
            memset(lhas, 1, cols);                                          \
            typedef T vt_ __attribute__((vector_size(COLUMN_BLOCK_BYTES)));  \
            enum { CB = COLUMN_BLOCK_BYTES / sizeof(T) };                   \
            size_t c = 0;                                                   \
            if (VEC && bs == 1) {                                           \
                for (; c + 2 * CB <= cols; c += 2 * CB) {                   \
                    vt_ a = (vt_){ 0 } + (T)(START), b = a, e, f;           \
                    for (size_t i = s; i < end; i++) {                      \
                        const T *at_ = x + (ptrdiff_t)i * es + (ptrdiff_t)c; \
                        memcpy(&e, at_, sizeof e);                          \
                        memcpy(&f, at_ + CB, sizeof f);                     \
                        a = a VOP e;                                        \
                        b = b VOP f;                                        \
                    }                                                       \
                    memcpy(leaf + c, &a, sizeof a);                         \
                    memcpy(leaf + c + CB, &b, sizeof b);                    \
                }                                                           \
                for (; c + CB <= cols; c += CB) {                           \
                    vt_ a = (vt_){ 0 } + (T)(START), e;                     \
                    for (size_t i = s; i < end; i++) {                      \
                        memcpy(&e, x + (ptrdiff_t)i * es + (ptrdiff_t)c,    \
                               sizeof e);                                   \
                        a = a VOP e;                                        \
                    }                                                       \
                    memcpy(leaf + c, &a, sizeof a);                         \
                }                                                           \
            }                                                               \
            for (size_t k = c; k < cols; k++)                               \
                leaf[k] = (T)(START);                                       \
            for (size_t i = s; i < end && c < cols; i++) {                  \
                const T *restrict row = x + (ptrdiff_t)i * es;              \
                for (size_t k = c; k < cols; k++)                           \
                    STEP(leaf[k], row[(ptrdiff_t)k * bs], ov[k]);           \
            }                                                               \
        } else {                                                            \
            for (size_t c = 0; c < cols; c++) {                             \
                leaf[c] = (T)(START);                                       \
                lhas[c] = 0;                                                \
            }                                                               \
            for (size_t i = s; i < end; i++) {                              \
                const T *restrict row = x + (ptrdiff_t)i * es;              \
                const unsigned char *restrict mrow = mask + (ptrdiff_t)i * es; \
                for (size_t c = 0; c < cols; c++) {                         \
                    const unsigned char m = mrow[(ptrdiff_t)c * bs];        \
                    const T v = row[(ptrdiff_t)c * bs];                     \
                    const T e = m ? v : (T)(SKIP);                          \
                    STEP(leaf[c], e, ov[c]);                                \
                    lhas[c] |= m;                                           \
                }                                                           \
            }                                                               \
        }                                                                   \
        }                                                                   \
        COLUMN_CLOSE(NAME##_combine_, NAME##_plain_)                        \
    }                                                                       \
    COLUMN_FINISH(NAME##_combine_, NAME##_plain_)                          \
}                                                                           \
DEFINE_COLUMN_ENTRY(NAME, T)

/* min and max: BETTER(x, v) when x replaces v. */
#define DEFINE_COLUMN_PICK(NAME, T, BETTER, VEC)                            \
SB_ALWAYS_INLINE void NAME##_combine_(T *l, unsigned char *lh, T r, unsigned char rh, \
                            unsigned char *ov)                              \
{                                                                           \
    (void)ov;                                                               \
    const bool take = rh && (!*lh || BETTER(r, *l));                        \
    *l = take ? r : *l;                                                     \
    *lh = (unsigned char)(*lh | rh);                                        \
}                                                                           \
SB_ALWAYS_INLINE void NAME##_plain_(T *l, T r, unsigned char *ov)         \
{                                                                           \
    (void)ov;                                                               \
    *l = BETTER(r, *l) ? r : *l;                                            \
}                                                                           \
SB_ALWAYS_INLINE void NAME##_body(const sb__column_job *j,                  \
                                  const T *restrict x,                      \
                                  const unsigned char *restrict mask,       \
                                  size_t n, size_t chunk, ptrdiff_t bs,     \
                                  size_t first, size_t cols, T *sv,         \
                                  unsigned char *sh, unsigned char *ov)     \
{                                                                           \
    const ptrdiff_t es = j->elem_stride;                                    \
    COLUMN_STACK;                                                           \
    for (size_t s = 0; s < n; s += SB_LEAF_SIZE) {                          \
        const size_t end = n - s < SB_LEAF_SIZE ? n : s + SB_LEAF_SIZE;     \
        { /* the open leaf, written only through these in this block */    \
        T *restrict leaf = sv + top * cols;                                 \
        unsigned char *restrict lhas = sh + top * cols;                     \
        if (mask == NULL) {                                                 \
            memset(lhas, 1, cols);                                          \
            typedef T vt_ __attribute__((vector_size(COLUMN_BLOCK_BYTES)));  \
            enum { CB = COLUMN_BLOCK_BYTES / sizeof(T) };                   \
            size_t c = 0;                                                   \
            if (VEC && bs == 1)                                             \
                for (; c + CB <= cols; c += CB) {                           \
                    vt_ a, e;                                               \
                    memcpy(&a, x + (ptrdiff_t)s * es + (ptrdiff_t)c,        \
                           sizeof a);                                       \
                    for (size_t i = s + 1; i < end; i++) {                  \
                        memcpy(&e, x + (ptrdiff_t)i * es + (ptrdiff_t)c,    \
                               sizeof e);                                   \
                        const __typeof__(e < a) m_ = BETTER(e, a);          \
                        a = (vt_)(((__typeof__(m_))e & m_)                  \
                                  | ((__typeof__(m_))a & ~m_));             \
                    }                                                       \
                    memcpy(leaf + c, &a, sizeof a);                         \
                }                                                           \
            const T *restrict row0 = x + (ptrdiff_t)s * es;                 \
            for (size_t k = c; k < cols; k++)                               \
                leaf[k] = row0[(ptrdiff_t)k * bs];                          \
            for (size_t i = s + 1; i < end && c < cols; i++) {              \
                const T *restrict row = x + (ptrdiff_t)i * es;              \
                for (size_t k = c; k < cols; k++) {                         \
                    const T e = row[(ptrdiff_t)k * bs];                     \
                    leaf[k] = BETTER(e, leaf[k]) ? e : leaf[k];             \
                }                                                           \
            }                                                               \
        } else {                                                            \
            for (size_t c = 0; c < cols; c++) {                             \
                leaf[c] = 0;                                                \
                lhas[c] = 0;                                                \
            }                                                               \
            for (size_t i = s; i < end; i++) {                              \
                const T *restrict row = x + (ptrdiff_t)i * es;              \
                const unsigned char *restrict mrow = mask + (ptrdiff_t)i * es; \
                for (size_t c = 0; c < cols; c++) {                         \
                    const bool m = mrow[(ptrdiff_t)c * bs] != 0;            \
                    const T e = row[(ptrdiff_t)c * bs];                     \
                    const bool take = m & (!lhas[c] | BETTER(e, leaf[c])); \
                    leaf[c] = take ? e : leaf[c];                           \
                    lhas[c] |= (unsigned char)m;                            \
                }                                                           \
            }                                                               \
        }                                                                   \
        }                                                                   \
        COLUMN_CLOSE(NAME##_combine_, NAME##_plain_)                        \
    }                                                                       \
    COLUMN_FINISH(NAME##_combine_, NAME##_plain_)                          \
}                                                                           \
DEFINE_COLUMN_ENTRY(NAME, T)

DEFINE_COLUMN_FOLD(col_f32_sum,  float,  0.0f, -0.0f, CSTEP_ADD, 1, +)
DEFINE_COLUMN_FOLD(col_f32_prod, float,  1.0f, 1.0f,  CSTEP_MUL, 1, *)
DEFINE_COLUMN_FOLD(col_f64_sum,  double, 0.0,  -0.0,  CSTEP_ADD, 1, +)
DEFINE_COLUMN_FOLD(col_f64_prod, double, 1.0,  1.0,   CSTEP_MUL, 1, *)
#define BETTER_MIN_(x, v) ((x) < (v))
#define BETTER_MAX_(x, v) ((x) > (v))
#define COLUMN_MINMAX_(e, tag, ctype, f, s, cl)                             \
    DEFINE_COLUMN_PICK(col_##tag##_min, ctype, BETTER_MIN_, f)              \
    DEFINE_COLUMN_PICK(col_##tag##_max, ctype, BETTER_MAX_, f)
SB_TYPE_LIST(COLUMN_MINMAX_)
#undef COLUMN_MINMAX_
/* Integers: checked in the type, wrapping in the unsigned type of the
 * same width (two's complement: the same bits, and no signed overflow);
 * 8- and 16-bit operands promote to int, so their wrapping steps compute
 * in uint32_t and truncate, as host_kernels.c does. */
#define COLUMN_INTS_(tag, T, UT, WADD, WMUL)                                \
    DEFINE_COLUMN_FOLD(col_##tag##_csum,  T,  0, 0, CSTEP_CHECKED_ADD, 0, +) \
    DEFINE_COLUMN_FOLD(col_##tag##_cprod, T,  1, 1, CSTEP_CHECKED_MUL, 0, *) \
    DEFINE_COLUMN_FOLD(col_##tag##_wsum,  UT, 0, 0, WADD, 0, +)             \
    DEFINE_COLUMN_FOLD(col_##tag##_wprod, UT, 1, 1, WMUL, 0, *)
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
sb__column_fn SB_COLUMN_LOOKUP(const sb__plan *p)
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

