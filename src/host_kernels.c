/* host_kernels.c: the typed inner loops of the host path.
 *
 * A "block" is an aligned group of 256 leaves (4096 positions): the unit
 * the host engine works in, large enough that the per-block work of the
 * engine costs little. For each accumulator type and operation this file
 * defines
 *   - block(): folds each of the block's leaves left to right (docs/order.md),
 *     then reduces the 256 leaf nodes pairwise into the block's node; a
 *     block cut short by the end of the input has fewer leaves, and the
 *     missing ones are none, which is the same as the last odd node moving
 *     up unchanged;
 *   - combine(): docs/order.md's none-aware combine(l, r).
 *
 * Speed comes from folding 16 leaves side by side: 16 independent
 * dependency chains instead of one, which the CPU overlaps
 * and the compiler may vectorise across leaves. Each chain is still
 * strictly left to right, so the bits are those of docs/order.md. This file is
 * compiled with -ffp-contract=off and without any fast-math flag.
 *
 * A skipped (masked-out) element is folded as the operation's exact
 * identity (-0.0 or 0 for sum, 1 for prod): v + -0.0 == v and v * 1 == v
 * for every v, so this equals skipping it. The leaf's none-ness is tracked
 * separately, because none is not the start value. min/max cannot use an
 * identity (the first element starts the fold, and NaNs compare false), so
 * they track none explicitly. */
#include <string.h>
#if defined(__SSE2__)
#  include <immintrin.h>   /* MINPS and MAXPS for the picks; _mm512_cvtph_ps,
                              _mm256_cvtph_ps: f16 blocks */
#endif
#include "host_engine.h"
#include "host_half.h"

#define L SB_LEAF_SIZE
#define NL SB_BLOCK_LEAVES

/* Reduces v[0..NL-1] (with has[]) pairwise into v[0], has[0].
 * COMBINE(a, b) must set a = a op b for two present values. */
#define TREE_NONE_AWARE(T, v, has, COMBINE)                                \
    for (int w_ = NL / 2; w_ >= 1; w_ /= 2) {                              \
        for (int l_ = 0; l_ < w_; l_++) {                                  \
            T a_ = v[2 * l_], b_ = v[2 * l_ + 1];                          \
            bool ha_ = has[2 * l_], hb_ = has[2 * l_ + 1];                 \
            if (ha_ && hb_) { COMBINE(a_, b_); }                           \
            else if (hb_) { a_ = b_; }                                     \
            v[l_] = a_; has[l_] = ha_ || hb_;                              \
        }                                                                  \
    }

/* TREE_NONE_AWARE for a short block: only the first `used` (1..NL) leaves
 * of v[] / has[] are set, the rest are none. Pairs of two nones are never
 * formed: each level computes the ceil(u/2) nodes that can hold a value
 * and marks the one after them none (the next level's odd read). The same
 * tree, so the same bits; a short last block (a short row of a batch)
 * costs its leaves, not NL. */
#define TREE_NONE_AWARE_USED(T, v, has, COMBINE, used)                      \
    {                                                                      \
        int u_ = (used);                                                   \
        if (u_ < NL) { v[u_] = v[0]; has[u_] = false; }                    \
        for (int w_ = NL / 2; w_ >= 1; w_ /= 2) {                          \
            const int p_ = (u_ + 1) / 2;                                   \
            for (int l_ = 0; l_ < p_; l_++) {                              \
                T a_ = v[2 * l_], b_ = v[2 * l_ + 1];                      \
                bool ha_ = has[2 * l_], hb_ = has[2 * l_ + 1];             \
                if (ha_ && hb_) { COMBINE(a_, b_); }                       \
                else if (hb_) { a_ = b_; }                                 \
                v[l_] = a_; has[l_] = ha_ || hb_;                          \
            }                                                              \
            if (p_ < w_) { v[p_] = v[0]; has[p_] = false; }                \
            u_ = p_;                                                       \
        }                                                                  \
    }

/* The same where each of the `used` leaves has a value (no mask): the
 * levels of the padded tree stop at `used`, a pad never wins, and an
 * odd last node moves up. No branches on has-flags: they were a fifth of
 * the time of an f32 row of 1000 (perf, AMD EPYC Zen 3). */
#define TREE_ALL_HAVE_USED(T, v, COMBINE, used)                             \
    for (int u_ = (used); u_ > 1; u_ = (u_ + 1) / 2) {                      \
        const int p_ = u_ / 2;                                             \
        for (int l_ = 0; l_ < p_; l_++) {                                  \
            T a_ = v[2 * l_];                                              \
            COMBINE(a_, v[2 * l_ + 1]);                                    \
            v[l_] = a_;                                                    \
        }                                                                  \
        if (u_ % 2) v[p_] = v[u_ - 1];                                     \
    }

/* ---- explicit vectors for full float leaves ----------------------------- */

/* This file is compiled once per instruction set of the host path
 * (src/host_isa.c picks one at run time): SB_HOST_ISA is SB_ISA_BASELINE
 * (or unset), SB_ISA_AVX2 or SB_ISA_AVX512, and the build gives this copy
 * the matching -m flags. Only the register width and the compiler's
 * choices differ between copies: every leaf is the same left-to-right
 * chain in each, so they give the same bits (tests/test_host_isa.c). */
#if !defined(SB_HOST_ISA) || SB_HOST_ISA == SB_ISA_BASELINE
#  define SB_KERNEL_LOOKUP sb__host_kernel_baseline
#  define SB_BLOCK_MAP_LOOKUP sb__host_block_map_baseline
#  define SB_MASKED_BLOCK_LOOKUP sb__host_masked_block_baseline
#  define SB_ROWS_LOOKUP sb__host_rows_baseline
#  define SB_VEC_BYTES 16
#  define F32_LANES 4
#  define F64_LANES 2
#elif SB_HOST_ISA == SB_ISA_AVX2
#  define SB_KERNEL_LOOKUP sb__host_kernel_avx2
#  define SB_BLOCK_MAP_LOOKUP sb__host_block_map_avx2
#  define SB_MASKED_BLOCK_LOOKUP sb__host_masked_block_avx2
#  define SB_ROWS_LOOKUP sb__host_rows_avx2
#  define SB_VEC_BYTES 32
#  define F32_LANES 8
#  define F64_LANES 4
#elif SB_HOST_ISA == SB_ISA_AVX512
#  define SB_KERNEL_LOOKUP sb__host_kernel_avx512
#  define SB_BLOCK_MAP_LOOKUP sb__host_block_map_avx512
#  define SB_MASKED_BLOCK_LOOKUP sb__host_masked_block_avx512
#  define SB_ROWS_LOOKUP sb__host_rows_avx512
#  define SB_VEC_BYTES 64
#  define F32_LANES 16
#  define F64_LANES 8
#else
#  error "SB_HOST_ISA: unknown instruction set"
#endif

/* Folding leaves side by side needs, per step, "element i of each of W
 * leaves" in one register of W lanes: a W x W transpose of W consecutive
 * loads (one from each leaf). GCC's auto-vectoriser does this poorly, so
 * it is spelled out: with the compilers' vector extensions, and on AVX2
 * and AVX-512 in x86's shuffles (host_transpose_x86.h). Each lane still
 * folds its own leaf strictly left to right, so the bits are unchanged. */
#if defined(__has_builtin)
#  if __has_builtin(__builtin_shufflevector)
#    define SB_HAVE_SHUFFLE 1
#  endif
#endif

/* Token pasting after expansion: the kernels choose their folds by name
 * (DEFINE_FOLD_KERNEL's SB_CAT(MASKED_OF_, FULL)) with or without the
 * vector folds. */
#define SB_CAT(a, b)  SB_CAT_(a, b)
#define SB_CAT_(a, b) a##b

/* Asks the CPU for the cache lines `ahead` bytes past [p, p + bytes).
 * From memory the fold's shuffles and the loads' waits did not overlap
 * (AMD EPYC Zen 5: f32 sum at 0.55-0.8 of a plain read, as if the time of
 * the fold in cache and of the read were added): the hardware's
 * prefetchers ran too close ahead of a loop this busy. A prefetch never
 * faults, so the lines past the input's end cost nothing but the asking.
 * The distance is SAMEBITS_PREFETCH or SB_PREFETCH_DEFAULT, a setting the
 * bench sweeps (README: Performance), not a constant of one CPU. */
static inline void prefetch_ahead(const void *p, size_t bytes, size_t ahead)
{
    if (ahead == 0)
        return;
    const uintptr_t q = (uintptr_t)p + ahead;
    for (size_t off = 0; off < bytes; off += 64)
        __builtin_prefetch((const void *)(q + off));
}

#ifdef SB_HAVE_SHUFFLE
typedef float  sb_vf __attribute__((vector_size(SB_VEC_BYTES)));
typedef double sb_vd __attribute__((vector_size(SB_VEC_BYTES)));
/* The same for loads from the input: any alignment, and allowed to alias
 * the float data. Loaded straight into registers: a memcpy into an array
 * of vectors was copied through the stack in 16-byte halves and read back
 * 32 bytes at a time, which no CPU forwards (a third of AVX2's speed). */
typedef float  sb_vf_in __attribute__((vector_size(SB_VEC_BYTES), aligned(4), may_alias));
typedef double sb_vd_in __attribute__((vector_size(SB_VEC_BYTES), aligned(8), may_alias));

/* acc = BETTER(e, acc) ? e : acc in every lane, the step of the min and
 * max folds (VBETTER_MIN, VBETTER_MAX below). x86's MIN and MAX
 * instructions compute exactly that, (e < acc) ? e : acc: a NaN on
 * either side, or an equal value (-0 against +0), keeps acc, their
 * second operand. One instruction where a compare and a select on the
 * bits were two. Elsewhere, the compare and the select. */
#define VTAKE(VI, BETTER, acc, e) SB_CAT(VTAKE_, BETTER)(VI, acc, e)
#if defined(__SSE2__)
#  if SB_VEC_BYTES == 64
#    define VMINMAX_(OP, e, a) _Generic((a),                                 \
        sb_vf: (sb_vf)_mm512_##OP##_ps((__m512)(e), (__m512)(a)),           \
        sb_vd: (sb_vd)_mm512_##OP##_pd((__m512d)(e), (__m512d)(a)))
#  elif SB_VEC_BYTES == 32
#    define VMINMAX_(OP, e, a) _Generic((a),                                 \
        sb_vf: (sb_vf)_mm256_##OP##_ps((__m256)(e), (__m256)(a)),           \
        sb_vd: (sb_vd)_mm256_##OP##_pd((__m256d)(e), (__m256d)(a)))
#  else
#    define VMINMAX_(OP, e, a) _Generic((a),                                 \
        sb_vf: (sb_vf)_mm_##OP##_ps((__m128)(e), (__m128)(a)),              \
        sb_vd: (sb_vd)_mm_##OP##_pd((__m128d)(e), (__m128d)(a)))
#  endif
#  define VTAKE_VBETTER_MIN(VI, acc, e) ((acc) = VMINMAX_(min, (e), (acc)))
#  define VTAKE_VBETTER_MAX(VI, acc, e) ((acc) = VMINMAX_(max, (e), (acc)))
#else
#  define VTAKE_SELECT_(VI, BETTER, acc, e)                                  \
    do {                                                                    \
        const VI m_ = (VI)BETTER((e), (acc));                               \
        (acc) = (__typeof__(acc))(((VI)(e) & m_) | ((VI)(acc) & ~m_));      \
    } while (0)
#  define VTAKE_VBETTER_MIN(VI, acc, e) VTAKE_SELECT_(VI, VBETTER_MIN, acc, e)
#  define VTAKE_VBETTER_MAX(VI, acc, e) VTAKE_SELECT_(VI, VBETTER_MAX, acc, e)
#endif

/* The transpose as log2(W) stages; stage g (1, 2, 4, ...) swaps bit g of
 * the row number with bit g of the lane number, so all stages together
 * swap the two. For rows a (bit g clear) and b = the row g further:
 *   lane c of the new a: a[c] if bit g of c is clear, else b[c - g];
 *   lane c of the new b: a[c + g] if bit g of c is clear, else b[c].
 * (In __builtin_shufflevector's indices, lane c of b is W + c.) */
#define SB_LO(W, g, c) (((c) & (g)) ? (W) + (c) - (g) : (c))
#define SB_HI(W, g, c) (((c) & (g)) ? (W) + (c) : (c) + (g))
#define SB_IDX2(F, W, g, o)  F(W, g, (o)), F(W, g, (o) + 1)
#define SB_IDX4(F, W, g, o)  SB_IDX2(F, W, g, o), SB_IDX2(F, W, g, (o) + 2)
#define SB_IDX8(F, W, g, o)  SB_IDX4(F, W, g, o), SB_IDX4(F, W, g, (o) + 4)
#define SB_IDX16(F, W, g, o) SB_IDX8(F, W, g, o), SB_IDX8(F, W, g, (o) + 8)
#define SB_STAGE(V, R, W, g)                                               \
    for (int r_ = 0; r_ < (W); r_++)                                       \
        if (!(r_ & (g))) {                                                 \
            const V a_ = R[r_], b_ = R[r_ + (g)];                          \
            R[r_] = __builtin_shufflevector(a_, b_,                        \
                        SB_CAT(SB_IDX, W)(SB_LO, W, g, 0));                \
            R[r_ + (g)] = __builtin_shufflevector(a_, b_,                  \
                        SB_CAT(SB_IDX, W)(SB_HI, W, g, 0));                \
        }
#define SB_SWAPS_2_OF(V, R, W) SB_STAGE(V, R, W, 1)
#define SB_SWAPS_4_OF(V, R, W) SB_SWAPS_2_OF(V, R, W) SB_STAGE(V, R, W, 2)
#define SB_SWAPS_8_OF(V, R, W) SB_SWAPS_4_OF(V, R, W) SB_STAGE(V, R, W, 4)
#define SB_SWAPS_16_OF(V, R, W) SB_SWAPS_8_OF(V, R, W) SB_STAGE(V, R, W, 8)

/* The same transpose as log2(W) rounds of one perfect shuffle: rows r and
 * r + W/2 interleaved lane by lane into rows 2r and 2r + 1 (x86's
 * unpcklps/unpckhps at 128 bits). */
#define SB_ILO(W, g, c) (((c) & 1) ? (W) + (c) / 2 : (c) / 2)
#define SB_IHI(W, g, c) (((c) & 1) ? (W) + (W) / 2 + (c) / 2 : (W) / 2 + (c) / 2)
#define SB_ROUND(V, R, W)                                                  \
    {                                                                      \
        V n_[W];                                                           \
        for (int r_ = 0; r_ < (W) / 2; r_++) {                             \
            n_[2 * r_] = __builtin_shufflevector(R[r_], R[r_ + (W) / 2],   \
                        SB_CAT(SB_IDX, W)(SB_ILO, W, 0, 0));               \
            n_[2 * r_ + 1] = __builtin_shufflevector(R[r_], R[r_ + (W) / 2], \
                        SB_CAT(SB_IDX, W)(SB_IHI, W, 0, 0));               \
        }                                                                  \
        memcpy(R, n_, sizeof n_);                                          \
    }
#define SB_ROUNDS_2(V, R)  SB_ROUND(V, R, 2)
#define SB_ROUNDS_4(V, R)  SB_ROUND(V, R, 4) SB_ROUND(V, R, 4)
#define SB_ROUNDS_8(V, R)  SB_ROUND(V, R, 8) SB_ROUND(V, R, 8) SB_ROUND(V, R, 8)
#define SB_ROUNDS_16(V, R) SB_ROUND(V, R, 16) SB_ROUND(V, R, 16) \
                           SB_ROUND(V, R, 16) SB_ROUND(V, R, 16)
/* Which one, by measurement (README: Performance): with 128-bit
 * registers the rounds are x86's unpcklps/unpckhps, one instruction each,
 * and twice as fast as the swaps; with 256 and 512 bits the rounds cross
 * the 128-bit halves at every step, and the swaps (in-half shuffles, then
 * one crossing per stage) were faster, up to 1.8x for AVX2's f64. On
 * x86 the swaps' place is now taken by the same stages in x86's own
 * shuffles; the generic swaps remain for other CPUs' wide vectors. */
#if defined(SB_HOST_ISA) && SB_HOST_ISA != SB_ISA_BASELINE
#  define SB_TRANSPOSE_BY_SWAPS 1
#else
#  define SB_TRANSPOSE_BY_SWAPS 0
#endif
#if defined(__SSE2__)
#  include "host_transpose_x86.h"
#endif
#if SB_TRANSPOSE_BY_SWAPS && defined(SB_HAVE_X86_TRANSPOSE)
/* The same transpose in x86's unpack and lane shuffles: no register
 * copies, half the shuffles within 128-bit lanes (host_transpose_x86.h). */
#  define SB_TRANSPOSE(V, R, W) SB_CAT(SB_X86_TRANSPOSE_, W)(V, R)
#elif SB_TRANSPOSE_BY_SWAPS
#  define SB_TRANSPOSE(V, R, W) SB_CAT(SB_CAT(SB_SWAPS_, W), _OF)(V, R, W)
#else
#  define SB_TRANSPOSE(V, R, W) SB_CAT(SB_ROUNDS_, W)(V, R)
#endif

#define VLOAD(dst, src) memcpy(&(dst), (src), sizeof(dst))

/* SB_LOAD_IN_ORDER(v): v, just loaded, is a register of its own, loaded
 * once, and (as GCC 12 compiles it: its manual promises only that each
 * volatile asm follows its own load) after every load before it marked
 * alike. Loaded once: a value used twice (a checked sum's add and its
 * range test) was otherwise loaded twice, each use's load folded into
 * its instruction. In order: GCC 12 scheduled an i32 sum's eight loads
 * of a 512-byte step as 0x100, 0, 0x180, 0x80, ..., and AMD Zen 5's
 * hardware prefetcher lost the stream (a loop of those eight loads
 * alone: 0.53 of a plain read from memory in that order, 1.0 in address
 * order). So the integer folds order theirs: one thread at 2^27, new /
 * old, AVX-512 / AVX2 / SSE2, i32 sums 1.24 / 1.08 / 1.09, i32 into i64
 * 1.09 / 1.11 / 1.04, i32 dots into i64 1.17 / 1.09 / 1.00, masked i32
 * sums 1.18 / 1.00 / 1.00; 0.99-1.00 in cache (2^20). Not the unmasked
 * order-free folds (min, max, wrapping sums and products: in address
 * order 0.93-1.01x), nor the float transposes: in address order without
 * a software prefetch an f32 sum ran at 0.80-0.82 of the read, behind
 * 0.95 with one. */
#if defined(__x86_64__) || defined(__i386__)
#  define SB_LOAD_IN_ORDER(v) __asm__ volatile("" : "+v"(v))
#elif defined(__aarch64__)
#  define SB_LOAD_IN_ORDER(v) __asm__ volatile("" : "+w"(v))
#else
#  define SB_LOAD_IN_ORDER(v) ((void)0)
#endif

/* A half accumulator's step is an operation and a rounding (about ten
 * dependent vector operations): its folds keep more chains in flight,
 * HALF_ACC_GROUPS registers of leaves stepped in turn (masked f16 sums
 * into f16, one thread, in cache: 2 chains 4.2 GB/s of input, 8 chains
 * 4.6-6.0, and with the tree in registers, CONV_BLOCK_TREE, 12.3-12.6;
 * AVX-512, AMD EPYC Zen 5). */
#define HALF_ACC_GROUPS 8

/* Leaves folded side by side per call: at least 16, and at least two
 * registers' worth, so that two or more independent chains of W lanes
 * hide the latency of the adds. */
#define LEAVES_PER_CALL(W) ((W) >= 8 ? 2 * (W) : 16)

/* r[k] = element i + k of leaf g * W + (0 .. W-1) of x: W loads, one per
 * leaf, transposed so that lane l of every r[k] belongs to leaf l.
 * (Building the rows from 16-byte pieces instead, with a transpose inside
 * each 128-bit segment only, was no faster in cache and half as fast from
 * memory on AMD EPYC: every row touched four cache lines.) */
#define LOAD_TRANSPOSED(V, VIN, W, r, x, g, i)                              \
    for (int k = 0; k < (W); k++)                                           \
        r[k] = *(const VIN *)((x) + ((g) * (W) + k) * L + (i));             \
    SB_TRANSPOSE(V, r, W)

/* For LEAVES_PER_CALL(W) leaves: v[l] = v[l] OP x[16l] OP ... OP
 * x[16l + 15], W leaves per register, GROUPS registers. */
#define DEFINE_VFOLD(NAME, T, V, VIN, W, OP)                                \
    DEFINE_VFOLD_N(NAME, T, T, V, VIN, W, OP, LEAVES_PER_CALL(W) / (W),     \
                   LOAD_TRANSPOSED)                                         \
    DEFINE_VFOLD_N(NAME##_one, T, T, V, VIN, W, OP, 1, LOAD_TRANSPOSED)
/* GROUPS_ registers of W leaves of x (elements of type XT, which
 * LOAD(V, VIN, W, r, x, g, i) reads as transposed rows of T). */
#define DEFINE_VFOLD_N(NAME, XT, T, V, VIN, W, OP, GROUPS_, LOAD)           \
static inline void NAME(const XT *x, T *v)                                  \
{                                                                           \
    enum { GROUPS = GROUPS_ };                                              \
    V acc[GROUPS];                                                          \
    for (int g = 0; g < GROUPS; g++) VLOAD(acc[g], v + (W) * g);            \
    VFOLD_STEPS(V, VIN, W, OP, GROUPS, LOAD, x, acc)                        \
    for (int g = 0; g < GROUPS; g++)                                        \
        memcpy(v + (W) * g, &acc[g], sizeof acc[g]);                        \
}
#define VFOLD_STEPS(V, VIN, W, OP, GROUPS, LOAD, x, acc)                    \
    for (int g = 0; g < (GROUPS); g++)                                      \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[W];                                                         \
            LOAD(V, VIN, W, r, x, g, i)                                     \
            for (int k = 0; k < (W); k++) acc[g] = acc[g] OP r[k];          \
        }

/* The same for min and max: lane l starts from its leaf's first element
 * and takes each later one that BETTER prefers (a strict compare, so NaN
 * and equal values never replace it), one select per step. A compare
 * gives a lane mask of all ones or zeros; the select is on the bits. */
typedef int32_t sb_vi32 __attribute__((vector_size(SB_VEC_BYTES)));
typedef int64_t sb_vi64 __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint32_t sb_vu32 __attribute__((vector_size(SB_VEC_BYTES)));
#include "host_half_vec.h"   /* vround_f16(), vround_bf16() */
#define DEFINE_VPICK(NAME, T, V, VIN, VI, W, BETTER)                        \
    DEFINE_VPICK_N(NAME, T, T, V, VIN, VI, W, BETTER,                       \
                   LEAVES_PER_CALL(W) / (W), LOAD_TRANSPOSED)               \
    DEFINE_VPICK_N(NAME##_one, T, T, V, VIN, VI, W, BETTER, 1, LOAD_TRANSPOSED)
#define DEFINE_VPICK_N(NAME, XT, T, V, VIN, VI, W, BETTER, GROUPS_, LOAD)   \
static inline void NAME(const XT *x, T *v)                                  \
{                                                                           \
    enum { GROUPS = GROUPS_ };                                              \
    V acc[GROUPS];                                                          \
    VPICK_STEPS(V, VIN, VI, W, BETTER, GROUPS, LOAD, x, acc)                \
    for (int g = 0; g < GROUPS; g++)                                        \
        memcpy(v + (W) * g, &acc[g], sizeof acc[g]);                        \
}
/* The transposed rows r[0 .. W-1] of positions i .. i + W - 1 of W
 * leaves into their picks acc: position 0 starts each leaf, every later
 * one replaces it where strictly better (VTAKE). */
#define VPICK_ROWS(VI, BETTER, W, acc, r, i)                                \
    do {                                                                    \
        int k0_ = 0;                                                        \
        if ((i) == 0) {                                                     \
            (acc) = (r)[0];                                                 \
            k0_ = 1;                                                        \
        }                                                                   \
        for (int k_ = k0_; k_ < (W); k_++)                                  \
            VTAKE(VI, BETTER, acc, (r)[k_]);                                \
    } while (0)
#define VPICK_STEPS(V, VIN, VI, W, BETTER, GROUPS, LOAD, x, acc)            \
    for (int g = 0; g < (GROUPS); g++)                                      \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[W];                                                         \
            LOAD(V, VIN, W, r, x, g, i)                                     \
            VPICK_ROWS(VI, BETTER, W, acc[g], r, i);                        \
        }
#define VBETTER_MIN(e, v) ((e) < (v))
#define VBETTER_MAX(e, v) ((e) > (v))
DEFINE_VPICK(vpick_f32_min, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, VBETTER_MIN)
DEFINE_VPICK(vpick_f32_max, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, VBETTER_MAX)
DEFINE_VPICK(vpick_f64_min, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, VBETTER_MIN)
DEFINE_VPICK(vpick_f64_max, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, VBETTER_MAX)

#define VOP_ADD +
#define VOP_MUL *
/* What a step's result becomes in an f32 or f64 accumulator: itself
 * (a half accumulator's folds round it instead: vround_f16, ...). */
#define NO_VROUND(e) (e)
/* ROUND##_STEP: the same rounding inside a fold's chain, and ROUND##_END
 * what the chain's value becomes where it leaves the fold: for a half
 * accumulator, each step rounded with any NaN kept as some NaN, made the
 * canonical one at the end (host_half_vec.h: vround_f16_nan_kept). */
#define NO_VROUND_STEP(e) (e)
#define NO_VROUND_END(e) (e)
#define vround_f16_STEP(e) vround_f16_nan_kept(e)
#define vround_f16_END(e) vnan_canonical(e)
#define vround_bf16_STEP(e) vround_bf16_nan_kept(e)
#define vround_bf16_END(e) vnan_canonical(e)
DEFINE_VFOLD(vfold_f32_sum,  float,  sb_vf, sb_vf_in, F32_LANES, VOP_ADD)
DEFINE_VFOLD(vfold_f32_prod, float,  sb_vf, sb_vf_in, F32_LANES, VOP_MUL)
DEFINE_VFOLD(vfold_f64_sum,  double, sb_vd, sb_vd_in, F64_LANES, VOP_ADD)
DEFINE_VFOLD(vfold_f64_prod, double, sb_vd, sb_vd_in, F64_LANES, VOP_MUL)

/* ---- mapped and dot-product folds of full float blocks -------------------
 *
 * The same folds with each element mapped (|x|: the sign bit cleared;
 * x*x) or multiplied by its partner y (a dot product) as it is loaded,
 * before the transpose: a per-element operation, so mapping the rows
 * first is mapping each leaf's elements. One rounded multiplication per
 * element (-ffp-contract=off), then the fold as above. Mapped in a pass
 * of its own (host_prepare.c) the element cost a store and a load more,
 * and sums of |x| ran at 0.4 of the plain sum from memory (AMD EPYC). */
#define VABS_f32(a) ((sb_vf)((sb_vi32)(a) & 0x7fffffff))
#define VABS_f64(a) ((sb_vd)((sb_vi64)(a) & 0x7fffffffffffffffLL))
#define VELEM(VIN, p, o) (*(const VIN *)((p) + (o)))
#define MAP_ABS_f32(VIN, x, y, o) VELEM(VIN, x, o)   /* POST_ABS */
#define MAP_ABS_f64(VIN, x, y, o) VELEM(VIN, x, o)
#define MAP_SQUARE(VIN, x, y, o)  VELEM(VIN, x, o)   /* squared after: POST */
#define MAP_DOT(VIN, x, y, o)     VELEM(VIN, x, o)   /* MAP_DOT_AFTER */
/* POST(e): what a transposed row becomes before it is folded: itself,
 * or its square. Squaring the rows as they were loaded, before the
 * transpose, ran at 0.4-0.5 of the plain sum (AMD EPYC, AVX-512); after
 * it, the multiplications sit next to the additions that need them. */
#define POST_NONE(e)   (e)
#define POST_SQUARE(e) ((e) * (e))
#define POST_ABS_f32(e) VABS_f32(e)
#define POST_ABS_f64(e) VABS_f64(e)
#define LOAD_MAPPED_TRANSPOSED(V, VIN, W, r, x, y, g, i, MAP)               \
    for (int k = 0; k < (W); k++)                                           \
        r[k] = MAP(VIN, x, y, ((size_t)(g) * (W) + k) * L + (i));          \
    SB_TRANSPOSE(V, r, W)                                                   \
    MAP##_AFTER(V, VIN, W, r, x, y, g, i)
/* The min and max of a dot product's terms (DEFINE_VPICK_MAP) transpose
 * y's rows too and multiply row by row after the transposes (the sums'
 * and products' DEFINE_VFOLD_DOT multiplies first and transposes once).
 * The other maps do nothing more here. */
#define MAP_ABS_f32_AFTER(V, VIN, W, r, x, y, g, i)
#define MAP_ABS_f64_AFTER(V, VIN, W, r, x, y, g, i)
#define MAP_SQUARE_AFTER(V, VIN, W, r, x, y, g, i)
#define MAP_DOT_AFTER(V, VIN, W, r, x, y, g, i)                             \
    {                                                                       \
        V s_[W];                                                            \
        for (int k = 0; k < (W); k++)                                       \
            s_[k] = VELEM(VIN, y, ((size_t)(g) * (W) + k) * L + (i));       \
        SB_TRANSPOSE(V, s_, W)                                              \
        for (int k = 0; k < (W); k++) r[k] = r[k] * s_[k];                  \
    }
/* start in every lane: s - (+0) is s for every s (-0 and NaN included). */
#define VSPLAT(V, s) ((s) - (V){0})
/* As NAME_node (DEFINE_VFOLD_NODE): the LEAVES_PER_CALL(W) leaves at x
 * (and y), mapped and folded, reduced to one register of W nodes. */
#define DEFINE_VFOLD_MAP(NAME, T, V, VIN, W, OP, MAP, POST, VCOMBINE)       \
static inline V NAME(const T *x, const T *y, T start)                       \
{                                                                           \
    enum { GROUPS = LEAVES_PER_CALL(W) / (W) };                             \
    V acc[GROUPS];                                                          \
    (void)y;                                                                \
    for (int g = 0; g < GROUPS; g++) acc[g] = VSPLAT(V, start);             \
    for (int g = 0; g < GROUPS; g++)                                        \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[W];                                                         \
            LOAD_MAPPED_TRANSPOSED(V, VIN, W, r, x, y, g, i, MAP)           \
            for (int k = 0; k < (W); k++) acc[g] = acc[g] OP POST(r[k]);    \
        }                                                                   \
    VTREE_CROSS(V, W, acc, GROUPS, VCOMBINE)                                \
    return acc[0];                                                          \
}
/* The dot product's fold, as DEFINE_VFOLD_MAP's. x's leaves of a group
 * are loaded in address order and multiplied by y's before one transpose
 * of the products (the same products, so the same bits): transposing
 * both arrays' rows read each leaf's lines out of order (where a leaf
 * spans ROWS >= 2 registers) and ran twice the transposes. f64 dots on
 * one thread, AVX-512, AMD EPYC Zen 4: in L2 52 -> 66 GB/s, from memory
 * 29 -> 29-30 in 4 KiB pages and 18 -> 22 with both arrays in 2 MiB pages
 * at the same offset; AVX2 f32 in L2 46 -> 63. f32 on AVX-512 (a leaf is
 * one register) transposed both until later (each element multiplied as
 * loaded, x and y read line by line in turn, had read at 15-21 GB/s
 * instead of 30 in 2 MiB pages); multiplied first, two builds' calls in
 * turns, 1 thread, Zen 5: 2^18 elements each in cache 61-62 -> 71-72
 * GB/s of x and y, 2^26 from memory 0.97-1.01x in 4 KiB and 0.98-1.00x
 * in 2 MiB pages.
 * DOT_LEAVES_IN_TURN: on AVX-512 a leaf of x, then the same leaf of y,
 * each load in its place (SB_LOAD_IN_ORDER), where the others load all
 * of a group's x before its y. Two builds' calls in turns, one thread,
 * AMD EPYC Zen 5, in turn / x first: AVX-512 f32 from memory (2^27)
 * 1.30x (27 -> 35 GB/s of x and y; the x-first order was 24-27 at every
 * prefetch distance, the same in a loop of loads and multiplications
 * alone, with no transpose), f64 1.00x; in L2 (2^16 f32, 2^15 f64)
 * 1.3x / 1.56x; in L3 (2^20) 0.94x / 0.91x. On AVX2 from memory 1.01x
 * (f32) and in L2 0.84x, so AVX2 and SSE2 keep x first. Unlike the
 * element-by-element variant above (2 MiB pages, no load order kept),
 * this one multiplies before one transpose and keeps each load in its
 * place, in 4 KiB pages; the gain is at no prefetch (the fold's measured
 * distance, when it keeps 0): 4096 bytes ahead it reads about 25 GB/s
 * in either order. */
#if SB_VEC_BYTES == 64
#  define DOT_LEAVES_IN_TURN 1
#else
#  define DOT_LEAVES_IN_TURN 0
#endif
#define DEFINE_VFOLD_DOT(NAME, T, V, VIN, W, OP, VCOMBINE)                  \
static inline V NAME(const T *x, const T *y, T start)                       \
{                                                                           \
    enum { GROUPS = LEAVES_PER_CALL(W) / (W), ROWS = L / (W) };             \
    V acc[GROUPS];                                                          \
    for (int g = 0; g < GROUPS; g++) acc[g] = VSPLAT(V, start);             \
    for (int g = 0; g < GROUPS; g++) {                                      \
        V p[ROWS][W];                                                       \
        if (DOT_LEAVES_IN_TURN) {                                           \
            for (int k = 0; k < (W); k++) {                                 \
                const size_t o_ = ((size_t)g * (W) + k) * L;                \
                for (int j = 0; j < ROWS; j++) {                            \
                    p[j][k] = VELEM(VIN, x, o_ + (size_t)j * (W));          \
                    SB_LOAD_IN_ORDER(p[j][k]);                              \
                }                                                           \
                for (int j = 0; j < ROWS; j++) {                            \
                    V b_ = VELEM(VIN, y, o_ + (size_t)j * (W));             \
                    SB_LOAD_IN_ORDER(b_);                                   \
                    p[j][k] = p[j][k] * b_;                                 \
                }                                                           \
            }                                                               \
        } else {                                                            \
            for (int k = 0; k < (W); k++)                                   \
                for (int j = 0; j < ROWS; j++)                              \
                    p[j][k] = VELEM(VIN, x, ((size_t)g * (W) + k) * L       \
                                            + (size_t)j * (W));             \
            for (int k = 0; k < (W); k++)                                   \
                for (int j = 0; j < ROWS; j++)                              \
                    p[j][k] = p[j][k] * VELEM(VIN, y, ((size_t)g * (W) + k) * L \
                                                      + (size_t)j * (W));   \
        }                                                                   \
        for (int j = 0; j < ROWS; j++) {                                    \
            SB_TRANSPOSE(V, p[j], W)                                        \
            for (int k = 0; k < (W); k++) acc[g] = acc[g] OP p[j][k];       \
        }                                                                   \
    }                                                                       \
    VTREE_CROSS(V, W, acc, GROUPS, VCOMBINE)                                \
    return acc[0];                                                          \
}
#define DEFINE_VPICK_MAP(NAME, T, V, VIN, VI, W, BETTER, MAP, POST, VCOMBINE) \
static inline V NAME(const T *x, const T *y, T start)                       \
{                                                                           \
    enum { GROUPS = LEAVES_PER_CALL(W) / (W) };                             \
    V acc[GROUPS];                                                          \
    (void)y;                                                                \
    (void)start;                                                            \
    for (int g = 0; g < GROUPS; g++)                                        \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[W];                                                         \
            LOAD_MAPPED_TRANSPOSED(V, VIN, W, r, x, y, g, i, MAP)           \
            for (int k = 0; k < (W); k++) r[k] = POST(r[k]);                \
            VPICK_ROWS(VI, BETTER, W, acc[g], r, i);                        \
        }                                                                   \
    VTREE_CROSS(V, W, acc, GROUPS, VCOMBINE)                                \
    return acc[0];                                                          \
}
/* Per float type and operation: the |x|, x*x and x*y folds. */
#define DEFINE_VFOLD_MAPS(tag, T, V, VIN, W, op, OP, VC)                    \
    DEFINE_VFOLD_MAP(vfold_##tag##_##op##_abs, T, V, VIN, W, OP, MAP_ABS_##tag, POST_ABS_##tag, VC) \
    DEFINE_VFOLD_MAP(vfold_##tag##_##op##_square, T, V, VIN, W, OP, MAP_SQUARE, POST_SQUARE, VC) \
    DEFINE_VFOLD_DOT(vfold_##tag##_##op##_dot, T, V, VIN, W, OP, VC)
#define DEFINE_VPICK_MAPS(tag, T, V, VIN, VI, W, op, BETTER, VC)            \
    DEFINE_VPICK_MAP(vfold_##tag##_##op##_abs, T, V, VIN, VI, W, BETTER, MAP_ABS_##tag, POST_ABS_##tag, VC) \
    DEFINE_VPICK_MAP(vfold_##tag##_##op##_square, T, V, VIN, VI, W, BETTER, MAP_SQUARE, POST_SQUARE, VC) \
    DEFINE_VPICK_MAP(vfold_##tag##_##op##_dot, T, V, VIN, VI, W, BETTER, MAP_DOT, POST_NONE, VC)

/* The pairwise tree over the COUNT (a power of two) registers t_[] of W
 * nodes each, all present, in registers: a level takes the even and the
 * odd lanes of two registers apart and combines them lane by lane, so
 * that left stays left (VTREE_CROSS, until W nodes are left in t_[0]);
 * the last levels work in lanes of one register (VTREE_LANES: the node
 * in lane 0 of t_[0]). Done in memory with scalars over a block's 256
 * leaves, the last levels were a fifth of a cached f32 block's time
 * (each waited for the store of the one before), and a third of an f64
 * block's in L2 (AMD EPYC, AVX-512: f64 sum at 2^16 from 0.34 to 0.47 of
 * the read with the tree in registers). */
#define SB_EVEN(W, g, c) (2 * (c))
#define SB_ODD(W, g, c)  (2 * (c) + 1)
#define VTREE_CROSS(V, W, t_, COUNT, VCOMBINE)                              \
    {                                                                       \
        for (int n_ = (COUNT); n_ > 1; n_ /= 2)                             \
            for (int k_ = 0; k_ < n_ / 2; k_++) {                           \
                V a_ = __builtin_shufflevector(t_[2 * k_], t_[2 * k_ + 1],  \
                            SB_CAT(SB_IDX, W)(SB_EVEN, W, 0, 0));           \
                const V b_ = __builtin_shufflevector(t_[2 * k_], t_[2 * k_ + 1], \
                            SB_CAT(SB_IDX, W)(SB_ODD, W, 0, 0));            \
                VCOMBINE(a_, b_);                                           \
                t_[k_] = a_;                                                \
            }                                                               \
    }
/* The levels within t_[0]: the node in its lane 0. */
#define VTREE_LANES(V, W, t_, VCOMBINE)                                     \
    {                                                                       \
        for (int w_ = (W) / 2; w_ >= 1; w_ /= 2) {                          \
            V a_ = __builtin_shufflevector(t_[0], t_[0],                    \
                        SB_CAT(SB_IDX, W)(SB_EVEN, W, 0, 0));               \
            const V b_ = __builtin_shufflevector(t_[0], t_[0],              \
                        SB_CAT(SB_IDX, W)(SB_ODD, W, 0, 0));                \
            VCOMBINE(a_, b_);                                               \
            t_[0] = a_;                                                     \
        }                                                                   \
    }
/* The tree over NL values at v (type T), every one present: NL / W
 * registers of V through VTREE_CROSS, then VTREE_LANES; its root into
 * `root`. The masked folds' trees and the converting folds' share it. */
#define VTREE_OF_VALUES(V, W, v, VCOMBINE, root)                            \
    {                                                                       \
        V t_[NL / (W)];                                                     \
        memcpy(t_, (v), sizeof t_);                                         \
        VTREE_CROSS(V, W, t_, NL / (W), VCOMBINE)                           \
        VTREE_LANES(V, W, t_, VCOMBINE)                                     \
        (root) = t_[0][0];                                                  \
    }
/* A block's tree over its calls' registers, each holding W nodes in order
 * (NAME_node below), merged as they come: call c_'s register enters a
 * binary counter (stack_[level]) and merges with the registers of its
 * level, one cross level at a time, so that the tree runs between the
 * loads of the calls instead of all at the block's end. With the calls'
 * registers kept and reduced at the end, f64 sums from memory stayed at
 * 0.73-0.78 of the read (AMD EPYC Zen 4); merged as they come, 0.92-0.95.
 * stack_ needs LOG2_CALLS(CALLS) + 1 entries. */
#define VTREE_PUSH(V, W, stack_, c_, node, VCOMBINE)                        \
    {                                                                       \
        V pair_[2] = { node, node };                                        \
        int lv_ = 0;                                                        \
        for (unsigned bit_ = (unsigned)(c_); bit_ & 1u; bit_ >>= 1) {       \
            pair_[0] = stack_[lv_];                                         \
            VTREE_CROSS(V, W, pair_, 2, VCOMBINE)                           \
            pair_[1] = pair_[0];                                            \
            lv_++;                                                          \
        }                                                                   \
        stack_[lv_] = pair_[1];                                             \
    }
/* After the last of CALLS (a power of two, up to 16) calls: the block's
 * node into `out`. */
#define LOG2_CALLS(n) ((n) >= 16 ? 4 : (n) >= 8 ? 3 : (n) >= 4 ? 2 : (n) >= 2 ? 1 : 0)
#define VTREE_FINISH(V, W, stack_, CALLS, VCOMBINE, out)                    \
    {                                                                       \
        _Static_assert((CALLS) >= 2 && (CALLS) <= 16                        \
                       && ((CALLS) & ((CALLS) - 1)) == 0,                   \
                       "LOG2_CALLS: 2, 4, 8 or 16 calls per block");        \
        V top_[1] = { stack_[LOG2_CALLS(CALLS)] };                          \
        VTREE_LANES(V, W, top_, VCOMBINE)                                   \
        (out) = top_[0][0];                                                 \
    }
#define VCOMBINE_ADD(a, b) ((a) = (a) + (b))
#define VCOMBINE_MUL(a, b) ((a) = (a) * (b))
/* combine(l, r) = BETTER(r, l) ? r : l, on the bits of a lane mask. */
#define VCOMBINE_PICK(VI, BETTER, a, b) VTAKE(VI, BETTER, a, b)
#define VCOMBINE_F32_MIN(a, b) VCOMBINE_PICK(sb_vi32, VBETTER_MIN, a, b)
#define VCOMBINE_F32_MAX(a, b) VCOMBINE_PICK(sb_vi32, VBETTER_MAX, a, b)
#define VCOMBINE_F64_MIN(a, b) VCOMBINE_PICK(sb_vi64, VBETTER_MIN, a, b)
#define VCOMBINE_F64_MAX(a, b) VCOMBINE_PICK(sb_vi64, VBETTER_MAX, a, b)

/* NAME_node(x, start): the LEAVES_PER_CALL(W) leaves at x (a power of
 * two of aligned leaves: a whole subtree of a full block's tree), folded
 * from `start` (min and max: from their first elements), and their tree's
 * levels across registers: one register of W nodes, in order. A full
 * block is NL / LEAVES_PER_CALL(W) such registers and the rest of the
 * tree over them (VFOLD_NODES). Folding all NL leaves into memory first
 * and then reducing them stored and copied the block's leaves once more
 * (2 KiB, with `rep movs`), and no loads were in flight while its tree
 * ran: f64 sums from memory on one thread at 26 GB/s, 0.73 of the read,
 * against 31-32 GB/s with no tree at all (AMD EPYC Zen 4, AVX-512).
 * Reduced to one node per call instead, the last levels within a
 * register ran once per call: f32 min in cache a fifth slower. */
#define DEFINE_VFOLD_NODE(NAME, T, V, VIN, W, OP, VCOMBINE)                 \
static inline V NAME##_node(const T *x, T start)                            \
{                                                                           \
    enum { GROUPS = LEAVES_PER_CALL(W) / (W) };                             \
    V acc[GROUPS];                                                          \
    for (int g = 0; g < GROUPS; g++) acc[g] = VSPLAT(V, start);             \
    VFOLD_STEPS(V, VIN, W, OP, GROUPS, LOAD_TRANSPOSED, x, acc)             \
    VTREE_CROSS(V, W, acc, GROUPS, VCOMBINE)                                \
    return acc[0];                                                          \
}
#define DEFINE_VPICK_NODE(NAME, T, V, VIN, VI, W, BETTER, VCOMBINE)         \
static inline V NAME##_node(const T *x, T start)                            \
{                                                                           \
    enum { GROUPS = LEAVES_PER_CALL(W) / (W) };                             \
    V acc[GROUPS];                                                          \
    (void)start;                                                            \
    VPICK_STEPS(V, VIN, VI, W, BETTER, GROUPS, LOAD_TRANSPOSED, x, acc)     \
    VTREE_CROSS(V, W, acc, GROUPS, VCOMBINE)                                \
    return acc[0];                                                          \
}
DEFINE_VFOLD_NODE(vfold_f32_sum,  float,  sb_vf, sb_vf_in, F32_LANES, VOP_ADD, VCOMBINE_ADD)
DEFINE_VFOLD_NODE(vfold_f32_prod, float,  sb_vf, sb_vf_in, F32_LANES, VOP_MUL, VCOMBINE_MUL)
DEFINE_VFOLD_NODE(vfold_f64_sum,  double, sb_vd, sb_vd_in, F64_LANES, VOP_ADD, VCOMBINE_ADD)
DEFINE_VFOLD_NODE(vfold_f64_prod, double, sb_vd, sb_vd_in, F64_LANES, VOP_MUL, VCOMBINE_MUL)
DEFINE_VPICK_NODE(vpick_f32_min, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, VBETTER_MIN, VCOMBINE_F32_MIN)
DEFINE_VPICK_NODE(vpick_f32_max, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, VBETTER_MAX, VCOMBINE_F32_MAX)
DEFINE_VPICK_NODE(vpick_f64_min, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, VBETTER_MIN, VCOMBINE_F64_MIN)
DEFINE_VPICK_NODE(vpick_f64_max, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, VBETTER_MAX, VCOMBINE_F64_MAX)
DEFINE_VFOLD_MAPS(f32, float,  sb_vf, sb_vf_in, F32_LANES, sum, VOP_ADD, VCOMBINE_ADD)
DEFINE_VFOLD_MAPS(f32, float,  sb_vf, sb_vf_in, F32_LANES, prod, VOP_MUL, VCOMBINE_MUL)
DEFINE_VFOLD_MAPS(f64, double, sb_vd, sb_vd_in, F64_LANES, sum, VOP_ADD, VCOMBINE_ADD)
DEFINE_VFOLD_MAPS(f64, double, sb_vd, sb_vd_in, F64_LANES, prod, VOP_MUL, VCOMBINE_MUL)
DEFINE_VPICK_MAPS(f32, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, min, VBETTER_MIN, VCOMBINE_F32_MIN)
DEFINE_VPICK_MAPS(f32, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, max, VBETTER_MAX, VCOMBINE_F32_MAX)
DEFINE_VPICK_MAPS(f64, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, min, VBETTER_MIN, VCOMBINE_F64_MIN)
DEFINE_VPICK_MAPS(f64, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, max, VBETTER_MAX, VCOMBINE_F64_MAX)
#endif /* SB_HAVE_SHUFFLE */

/* The scalar form: 16 independent chains the CPU overlaps, then the tree
 * (TREE_FULL, below). */
#define SCALAR_FULL_FOLD(x, v, START, STEP)                                 \
    for (int l = 0; l < NL; l++) v[l] = (START);                            \
    for (int i = 0; i < L; i++)                                             \
        for (int l = 0; l < NL; l++) STEP(v[l], x[l * L + i]);              \
    TREE_FULL(__typeof__(v[0]), v, STEP)

/* The same when every node has a value: no branches, so the compiler can
 * vectorise the levels. */
#define TREE_FULL(T, v, COMBINE)                                           \
    for (int w_ = NL / 2; w_ >= 1; w_ /= 2)                                \
        for (int l_ = 0; l_ < w_; l_++) {                                  \
            T a_ = v[2 * l_];                                              \
            COMBINE(a_, v[2 * l_ + 1]);                                    \
            v[l_] = a_;                                                    \
        }

/* ---- sum and product: float, wrapping integer, checked integer ---------- */

#define STEP_PLAIN_ADD(a, b)   ((a) = (a) + (b))
#define STEP_PLAIN_MUL(a, b)   ((a) = (a) * (b))
#define STEP_CHECKED_ADD(a, b) (ov |= __builtin_add_overflow((a), (b), &(a)))
#define STEP_CHECKED_MUL(a, b) (ov |= __builtin_mul_overflow((a), (b), &(a)))

/* The full leaves of a short unmasked block that the vector folds left
 * (fewer than a register's worth, or all of them where there are none),
 * four at a time side by side, position by position, so that their
 * chains overlap; each leaf is still its own left-to-right chain from
 * START (v[l] already holds it). Leaf by leaf, each a chain of 16
 * dependent steps, they were most of the time of an f32 row of 1000
 * (perf, AMD EPYC); all of them in one loop nest over a run-time count,
 * which GCC vectorised with gathers, rows of 16 took twice as long. The
 * last one to three take the leaf-by-leaf loop. */
#define LEFTOVER_FULL_FOLD(x, v, count, done, STEP)                         \
    for (; ((size_t)(done) + 4) * L <= (count); (done) += 4) {              \
        const __typeof__(v[0]) *x0_ = x + (size_t)(done) * L;               \
        __typeof__(v[0]) a0_ = v[(done)], a1_ = v[(done) + 1],              \
          a2_ = v[(done) + 2], a3_ = v[(done) + 3];                         \
        for (int i_ = 0; i_ < L; i_++) {                                    \
            STEP(a0_, x0_[i_]);                                             \
            STEP(a1_, x0_[L + i_]);                                         \
            STEP(a2_, x0_[2 * L + i_]);                                     \
            STEP(a3_, x0_[3 * L + i_]);                                     \
        }                                                                   \
        v[(done)] = a0_; v[(done) + 1] = a1_;                               \
        v[(done) + 2] = a2_; v[(done) + 3] = a3_;                           \
    }
/* The last (at most four: up to three full and a partial) leaves of a
 * short unmasked block after LEFTOVER_FULL_FOLD, side by side as there;
 * a leaf past `used` (k >= used - done) has no position below count and
 * folds nothing. One after another, each a chain of up to 16 dependent
 * steps, they were a tenth of an f32 row of 1000 (perf, AMD EPYC Zen 3). */
#define LEFTOVER_TAIL_FOLD(x, v, count, done, used, START, STEP)            \
    if ((done) < (used)) {                                                  \
        __typeof__(v[0]) a_[4] = { START, START, START, START };            \
        for (size_t i_ = 0; i_ < L; i_++)                                   \
            for (int k_ = 0; k_ < 4; k_++) {                                \
                const size_t at_ = ((size_t)(done) + (size_t)k_) * L + i_;  \
                if (at_ < (count)) STEP(a_[k_], x[at_]);                    \
            }                                                               \
        for (int k_ = 0; k_ < 4 && (done) + k_ < (used); k_++)              \
            v[(done) + k_] = a_[k_];                                        \
        (done) = (used);                                                    \
    }
/* The same for min and max: a leaf starts from its first element and
 * takes each later one BETTER prefers. */
#define LEFTOVER_PICK_STEP_(a, e, BETTER) if (BETTER((e), (a))) (a) = (e);
#define LEFTOVER_FULL_PICK(x, v, count, done, BETTER)                       \
    for (; ((size_t)(done) + 4) * L <= (count); (done) += 4) {              \
        const __typeof__(v[0]) *x0_ = x + (size_t)(done) * L;               \
        __typeof__(v[0]) a0_ = x0_[0], a1_ = x0_[L], a2_ = x0_[2 * L],      \
          a3_ = x0_[3 * L];                                                 \
        for (int i_ = 1; i_ < L; i_++) {                                    \
            LEFTOVER_PICK_STEP_(a0_, x0_[i_], BETTER)                       \
            LEFTOVER_PICK_STEP_(a1_, x0_[L + i_], BETTER)                   \
            LEFTOVER_PICK_STEP_(a2_, x0_[2 * L + i_], BETTER)               \
            LEFTOVER_PICK_STEP_(a3_, x0_[3 * L + i_], BETTER)               \
        }                                                                   \
        v[(done)] = a0_; v[(done) + 1] = a1_;                               \
        v[(done) + 2] = a2_; v[(done) + 3] = a3_;                           \
    }

/* NAME: function prefix; T: accumulator C type; FIELD: sb__node member;
 * START: start value; SKIP: exact identity folded for a masked-out element;
 * STEP(a, b): a = a op b (may set the local `ov`);
 * FULL(x, v, START, STEP): folds the NL full unmasked leaves of x (from
 *   START) and reduces them: the block's node in v[0];
 * WHOLE(x, prefetch, &node): computes a full unmasked block's node at once
 *   when the algebra allows it (see ORDER_FREE below), or returns false
 *   (NO_WHOLE). It asks for the lines `prefetch` bytes ahead as it reads,
 *   as the vector folds do: without that a 1-thread i32 sum read 2^24
 *   elements from memory at 21-34 GB/s, with it at 30-44 (AMD EPYC Zen 5;
 *   the read itself 30-56 on that VM, runs taking turns).
 * The kernel's `prefetches` (which of its full blocks read the distance,
 * for host_prefetch.c) come from where its folds are defined: FULL's
 * PREFETCHES_OF_<FULL> (its unmasked and masked full blocks), and
 * <WHOLE>_prefetches, which each whole-block form declares beside its
 * definition. A FULL without the first fails to compile. */
#define NO_WHOLE(x, prefetch, node) ((void)(x), (void)(prefetch), (void)(node), false)
enum { NO_WHOLE_prefetches = 0 };
/* <WHOLE>_masked(x, mask, prefetch, &node, &has): the same for a full
 * masked block, or false (and the block takes the masked fold). */
#define NO_WHOLE_masked(x, mask, prefetch, node, has) false
enum { NO_WHOLE_masked_prefetches = 0 };
#define SB_PREFETCH_BOTH_ (SB_PREFETCH_UNMASKED | SB_PREFETCH_MASKED)
#define TRY_WHOLE_BLOCK(T, FIELD, WHOLE)                                    \
    {                                                                       \
        T whole_;                                                           \
        if (count == SB_BLOCK_SIZE && mask == NULL && WHOLE(x, prefetch, &whole_)) {  \
            out->v.FIELD = whole_;                                          \
            out->has = true;                                                \
            return;                                                         \
        }                                                                   \
        bool has_ = false;                                                  \
        if (count == SB_BLOCK_SIZE && mask != NULL &&                       \
            SB_CAT(WHOLE, _masked)(x, mask, prefetch, &whole_, &has_)) {    \
            out->v.FIELD = whole_;                                          \
            out->has = has_;                                                \
            return;                                                         \
        }                                                                   \
    }
#define DEFINE_FOLD_KERNEL(NAME, T, FIELD, START, SKIP, STEP, FULL, WHOLE)  \
static void NAME##_block(const void *xv, const unsigned char *mask,         \
                         size_t count, size_t prefetch, sb__node *out,      \
                         bool *overflow)                                    \
{                                                                           \
    const T *x = xv;                                                        \
    T v[NL];                                                                \
    bool has[NL];                                                           \
    bool ov = false;                                                        \
    (void)prefetch;                                                         \
    TRY_WHOLE_BLOCK(T, FIELD, WHOLE)                                        \
    if (count == SB_BLOCK_SIZE && mask == NULL) {                           \
        FULL(x, v, START, STEP)                                             \
        out->v.FIELD = v[0];                                                \
        out->has = true;                                                    \
        if (ov) *overflow = true;                                           \
        return;                                                             \
    } else if (count == SB_BLOCK_SIZE) {                                    \
        /* A leaf with no element taking part folded to START (0, 1),       \
         * not none; the tree may take it as a value: x * 1 is x, and       \
         * x + (+0) is x since no node is -0 (every leaf starts at +0,      \
         * and a sum is -0 only where both terms are); for integers         \
         * neither overflows. So a block needs one "any element?" and       \
         * the branchless tree of unmasked ones, not a flag per leaf        \
         * (the flags' tree was a seventh of a masked f32 sum's time,       \
         * perf, AMD EPYC Zen 5). */                                        \
        bool any = false;                                                   \
        SB_CAT(MASKED_OF_, FULL)(T, x, mask, v, any, START, SKIP, STEP)     \
        if (!any) { out->has = false; return; }                             \
        SB_CAT(MASKED_TREE_OF_, FULL)(T, v, STEP)                           \
        out->v.FIELD = v[0];                                                \
        out->has = true;                                                    \
        if (ov) *overflow = true;                                           \
        return;                                                             \
    } else {                                                                \
        const int used = (int)((count + L - 1) / L);                        \
        int done = 0;                                                       \
        if (used == 0) { out->has = false; return; }  /* never called so */\
        if (mask == NULL) {                                                 \
            for (int l = 0; l < used; l++) v[l] = START;                    \
            SB_CAT(PART_OF_, FULL)(x, v, count, done)                       \
            LEFTOVER_FULL_FOLD(x, v, count, done, STEP)                     \
            LEFTOVER_TAIL_FOLD(x, v, count, done, used, START, STEP)        \
            TREE_ALL_HAVE_USED(T, v, STEP, used)                            \
            out->v.FIELD = v[0];                                            \
            out->has = true;                                                \
            if (ov) *overflow = true;                                       \
            return;                                                         \
        }                                                                   \
        for (int l = done; l < used; l++) {                                 \
            v[l] = START;                                                   \
            has[l] = false;                                                 \
            for (size_t i = (size_t)l * L; i < count && i < (size_t)(l + 1) * L; i++) \
                if (mask[i]) { STEP(v[l], x[i]); has[l] = true; }           \
        }                                                                   \
        TREE_NONE_AWARE_USED(T, v, has, STEP, used)                         \
        out->v.FIELD = v[0];                                                \
        out->has = has[0];                                                  \
        if (ov) *overflow = true;                                           \
        return;                                                             \
    }                                                                       \
    TREE_NONE_AWARE(T, v, has, STEP)                                        \
    out->v.FIELD = v[0];                                                    \
    out->has = has[0];                                                      \
    if (ov) *overflow = true;                                               \
}                                                                           \
static void NAME##_combine(sb__node *left, const sb__node *right,           \
                           bool *overflow)                                  \
{                                                                           \
    bool ov = false;                                                        \
    if (!right->has) return;                                                \
    if (!left->has) { *left = *right; return; }                             \
    STEP(left->v.FIELD, right->v.FIELD);                                    \
    if (ov) *overflow = true;                                               \
}                                                                           \
static const sb__kernel NAME##_kernel = {                                   \
    NAME##_block, NAME##_combine,                                           \
    SB_CAT(PREFETCHES_OF_, FULL) | SB_CAT(WHOLE, _prefetches) |            \
    SB_CAT(WHOLE, _masked_prefetches) };

/* ---- min and max --------------------------------------------------------- */

/* BETTER(x, v): x replaces v (strictly smaller for min, larger for max). */
#define BETTER_MIN(x, v) ((x) < (v))
#define BETTER_MAX(x, v) ((x) > (v))

/* WHOLE: as in DEFINE_FOLD_KERNEL (integers: ORDER_FREE; floats keep the
 * order, for NaNs and signed zeros). */
/* FULL(x, v, BETTER, PICK): the NL full unmasked leaves of x and their
 * tree: the block's node in v[0] (the scalar form folds every leaf into
 * v[] first; the vector forms, VFOLD_NODES, keep theirs in registers). */
#define SCALAR_FULL_PICK(x, v, BETTER, PICK)                                \
    for (int l = 0; l < NL; l++) v[l] = x[l * L];                           \
    for (int i = 1; i < L; i++)                                             \
        for (int l = 0; l < NL; l++) {                                      \
            const __typeof__(v[0]) e = x[l * L + i];                        \
            v[l] = BETTER(e, v[l]) ? e : v[l];                              \
        }                                                                   \
    TREE_FULL(__typeof__(v[0]), v, PICK)
#define DEFINE_MINMAX_KERNEL(NAME, T, FIELD, BETTER, PICK, FULL, WHOLE)     \
static void NAME##_block(const void *xv, const unsigned char *mask,         \
                         size_t count, size_t prefetch, sb__node *out,      \
                         bool *overflow)                                    \
{                                                                           \
    const T *x = xv;                                                        \
    T v[NL];                                                                \
    bool has[NL];                                                           \
    (void)overflow;                                                         \
    (void)prefetch;                                                         \
    TRY_WHOLE_BLOCK(T, FIELD, WHOLE)                                        \
    if (count == SB_BLOCK_SIZE && mask == NULL) {                           \
        FULL(x, v, BETTER, PICK)                                            \
        out->v.FIELD = v[0];                                                \
        out->has = true;                                                    \
        return;                                                             \
    } else if (count == SB_BLOCK_SIZE                                       \
               && SB_CAT(MASKED_OF_, FULL)(x, mask, v)) {                   \
        MASKED_LEAF_ANY(mask, has)                                          \
    } else {                                                                \
        const int used = (int)((count + L - 1) / L);                        \
        int done = 0;                                                       \
        if (mask == NULL) {                                                 \
            SB_CAT(PART_OF_, FULL)(x, v, count, done)                       \
            LEFTOVER_FULL_PICK(x, v, count, done, BETTER)                   \
            for (int l = done; l < used; l++) {                             \
                const size_t end = count < (size_t)(l + 1) * L              \
                                 ? count : (size_t)(l + 1) * L;             \
                v[l] = x[(size_t)l * L];                                    \
                for (size_t i = (size_t)l * L + 1; i < end; i++)            \
                    if (BETTER(x[i], v[l])) v[l] = x[i];                    \
            }                                                               \
            TREE_ALL_HAVE_USED(T, v, PICK, used)                            \
            out->v.FIELD = v[0];                                            \
            out->has = true;                                                \
            return;                                                         \
        }                                                                   \
        for (int l = done; l < used; l++) {                                 \
            v[l] = 0;                                                       \
            has[l] = false;                                                 \
            for (size_t i = (size_t)l * L; i < count && i < (size_t)(l + 1) * L; i++) { \
                if (mask != NULL && !mask[i]) continue;                     \
                if (!has[l] || BETTER(x[i], v[l])) v[l] = x[i];             \
                has[l] = true;                                              \
            }                                                               \
        }                                                                   \
        TREE_NONE_AWARE_USED(T, v, has, PICK, used)                         \
        out->v.FIELD = v[0];                                                \
        out->has = has[0];                                                  \
        return;                                                             \
    }                                                                       \
    /* combine(l, r) = BETTER(r, l) ? r : l */                             \
    TREE_NONE_AWARE(T, v, has, PICK)                                        \
    out->v.FIELD = v[0];                                                    \
    out->has = has[0];                                                      \
}                                                                           \
static void NAME##_combine(sb__node *left, const sb__node *right,           \
                           bool *overflow)                                  \
{                                                                           \
    (void)overflow;                                                         \
    if (!right->has) return;                                                \
    if (!left->has || BETTER(right->v.FIELD, left->v.FIELD)) *left = *right; \
}                                                                           \
static const sb__kernel NAME##_kernel = {                                   \
    NAME##_block, NAME##_combine,                                           \
    SB_CAT(PREFETCHES_OF_, FULL) | SB_CAT(WHOLE, _prefetches) |            \
    SB_CAT(WHOLE, _masked_prefetches) };

#define PICK_MIN(a, b) ((a) = BETTER_MIN((b), (a)) ? (b) : (a))
#define PICK_MAX(a, b) ((a) = BETTER_MAX((b), (a)) ? (b) : (a))

/* ---- instantiation ------------------------------------------------------- */

/* Floats: sum skips with -0.0 (the only exact additive identity). */
#ifdef SB_HAVE_SHUFFLE
#  define FULL_VEC(tag) FULL_VEC_(tag)
#  define FULL_VEC_(tag) VECTOR_FULL_FOLD_##tag
#  define VECTOR_FULL_FOLD_f32_sum(x, v, START, STEP)                       \
    VFOLD_NODES(vfold_f32_sum, sb_vf, F32_LANES, x, v, START, VCOMBINE_ADD)
#  define VECTOR_FULL_FOLD_f32_prod(x, v, START, STEP)                      \
    VFOLD_NODES(vfold_f32_prod, sb_vf, F32_LANES, x, v, START, VCOMBINE_MUL)
#  define VECTOR_FULL_FOLD_f64_sum(x, v, START, STEP)                       \
    VFOLD_NODES(vfold_f64_sum, sb_vd, F64_LANES, x, v, START, VCOMBINE_ADD)
#  define VECTOR_FULL_FOLD_f64_prod(x, v, START, STEP)                      \
    VFOLD_NODES(vfold_f64_prod, sb_vd, F64_LANES, x, v, START, VCOMBINE_MUL)
/* A full block's node in v[0]: its leaves LEAVES_PER_CALL at a time
 * (fn_node, each call asking first for the lines `prefetch` bytes past
 * its own), each call's register into the tree as it comes. */
#  define VFOLD_NODES(fn, V, W, x, v, start, VCOMBINE)                     \
    {                                                                      \
        enum { CALLS = NL / LEAVES_PER_CALL(W) };                          \
        V stack_[LOG2_CALLS(CALLS) + 1];                                   \
        for (int c_ = 0; c_ < CALLS; c_++) {                               \
            const size_t at_ = (size_t)c_ * LEAVES_PER_CALL(W) * L;        \
            prefetch_ahead((x) + at_, LEAVES_PER_CALL(W) * L * sizeof *(x), \
                           prefetch);                                      \
            const V node_ = fn##_node((x) + at_, (start));                 \
            VTREE_PUSH(V, W, stack_, c_, node_, VCOMBINE)                  \
        }                                                                  \
        VTREE_FINISH(V, W, stack_, CALLS, VCOMBINE, (v)[0])                \
    }
/* A short block (a short array, the last block, a row of a batch):
 * its leading full leaves, LEAVES_PER_CALL and then W at a time, through
 * the same folds; `done` receives how many leaves they took (rows of 1000
 * f32 folded leaf by leaf ran at 0.25 of the read). The prefetch matters
 * more here: the next row starts in a page the hardware's prefetchers
 * have not reached. */
#  define VFOLD_PART(fn, W, x, v, count, done)                             \
    for (; ((size_t)(done) + LEAVES_PER_CALL(W)) * L <= (count);            \
         (done) += LEAVES_PER_CALL(W)) {                                    \
        prefetch_ahead((x) + (size_t)(done) * L,                            \
                       LEAVES_PER_CALL(W) * L * sizeof *(x), prefetch);     \
        fn((x) + (size_t)(done) * L, (v) + (done));                         \
    }                                                                       \
    for (; ((size_t)(done) + (W)) * L <= (count); (done) += (W)) {          \
        prefetch_ahead((x) + (size_t)(done) * L, (W) * L * sizeof *(x),     \
                       prefetch);                                           \
        fn##_one((x) + (size_t)(done) * L, (v) + (done));                   \
    }
#  define PART_OF_VECTOR_FULL_FOLD_f32_sum(x, v, count, done)              \
    VFOLD_PART(vfold_f32_sum, F32_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_FOLD_f32_prod(x, v, count, done)             \
    VFOLD_PART(vfold_f32_prod, F32_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_FOLD_f64_sum(x, v, count, done)              \
    VFOLD_PART(vfold_f64_sum, F64_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_FOLD_f64_prod(x, v, count, done)             \
    VFOLD_PART(vfold_f64_prod, F64_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_PICK_f32_min(x, v, count, done)              \
    VFOLD_PART(vpick_f32_min, F32_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_PICK_f32_max(x, v, count, done)              \
    VFOLD_PART(vpick_f32_max, F32_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_PICK_f64_min(x, v, count, done)              \
    VFOLD_PART(vpick_f64_min, F64_LANES, x, v, count, done)
#  define PART_OF_VECTOR_FULL_PICK_f64_max(x, v, count, done)              \
    VFOLD_PART(vpick_f64_max, F64_LANES, x, v, count, done)
#else
#  define FULL_VEC(tag) SCALAR_FULL_FOLD
#endif
/* The scalar folds take no leaves ahead of the leaf-by-leaf loop, and
 * leave a masked block of min or max to it. */
#define PART_OF_SCALAR_FULL_FOLD(x, v, count, done)
#define PART_OF_SCALAR_FULL_PICK(x, v, count, done)
#define PREFETCHES_OF_SCALAR_FULL_FOLD 0u
#define PREFETCHES_OF_SCALAR_FULL_PICK 0u
#define MASKED_OF_SCALAR_FULL_PICK(x, mask, v) false
/* has[l]: whether leaf l of a full masked block has an element taking
 * part (a mask byte not 0). */
#define MASKED_LEAF_ANY(mask, has)                                          \
    for (int l = 0; l < NL; l++) {                                          \
        uint64_t a_, b_;                                                    \
        memcpy(&a_, (mask) + l * L, sizeof a_);                             \
        memcpy(&b_, (mask) + l * L + 8, sizeof b_);                         \
        (has)[l] = (a_ | b_) != 0;                                          \
    }
_Static_assert(SB_LEAF_SIZE == 16, "MASKED_LEAF_ANY reads a leaf's mask "
               "as two 8-byte words");
/* A full masked block's leaves, each from START with a masked-out element
 * folded as SKIP (the exact identity), and whether any element of the
 * block takes part: position by position across the leaves. */
#define MASKED_OF_SCALAR_FULL_FOLD(T, x, mask, v, any, START, SKIP, STEP)   \
    {                                                                       \
        unsigned char some_ = 0;                                            \
        for (int l = 0; l < NL; l++) v[l] = START;                          \
        for (int i = 0; i < L; i++)                                         \
            for (int l = 0; l < NL; l++) {                                  \
                const unsigned char m = mask[l * L + i];                    \
                const T e = m ? x[l * L + i] : (T)(SKIP);                   \
                STEP(v[l], e);                                              \
                some_ |= m;                                                 \
            }                                                               \
        (any) = some_ != 0;                                                 \
    }
/* any: whether a full block's mask has a byte that is not 0. */
/* MASKED_TREE_OF_<FULL>: the tree of a masked full block's NL leaf values
 * in v[], every one taken as present (DEFINE_FOLD_KERNEL says why), its
 * root in v[0]. In scalars through memory by default; the float folds
 * below take it in registers. */
#define MASKED_TREE_OF_SCALAR_FULL_FOLD(T, v, STEP) TREE_ALL_HAVE_USED(T, v, STEP, NL)
#define MASKED_BLOCK_ANY(mask, any)                                         \
    {                                                                       \
        uint64_t or_ = 0;                                                   \
        for (int w_ = 0; w_ < SB_BLOCK_SIZE / 8; w_++) {                    \
            uint64_t word_;                                                 \
            memcpy(&word_, (mask) + 8 * w_, sizeof word_);                  \
            or_ |= word_;                                                   \
        }                                                                   \
        (any) = or_ != 0;                                                   \
    }
#if defined(SB_HAVE_SHUFFLE) && defined(__SSE2__)
/* The same with the vector folds: each row of W elements of a leaf is
 * loaded with its W mask bytes, its masked-out elements replaced by SKIP,
 * before the transpose; then every leaf is the same chain as above, so
 * the same bits. Two groups of W leaves at a time, two chains. Position
 * by position across the leaves (the scalar form), masked f32 sums ran
 * at 1.5 Gelem/s against 6.4 unmasked (AVX-512, AMD EPYC Zen 4, 2^24). */
/* The lanes of W mask bytes at p that are not 0, as a lane mask of all
 * ones or zeros (W f32 or f64 lanes). Widened by the instructions made
 * for it: GCC's __builtin_convertvector of the bytes inserted them one
 * by one (masked f32 sums at 2.0 Gelem/s). */
#  if SB_VEC_BYTES == 64
/* AVX-512: the lanes as the bits of a k mask (MASKED_SELECT below). */
static inline unsigned mask_keep_f32(const unsigned char *p)
{
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)p);
    return _mm_test_epi8_mask(b, b);
}
static inline unsigned mask_keep_f64(const unsigned char *p)
{
    const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return (__mmask8)_mm_test_epi8_mask(b, b);
}
#  elif SB_VEC_BYTES == 32
static inline sb_vi32 mask_keep_f32(const unsigned char *p)
{
    const __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)p);
    return (sb_vi32)_mm256_cvtepu8_epi32(b) != 0;
}
static inline sb_vi64 mask_keep_f64(const unsigned char *p)
{
    int32_t w;
    memcpy(&w, p, sizeof w);
    return (sb_vi64)_mm256_cvtepu8_epi64(_mm_cvtsi32_si128(w)) != 0;
}
#  else
static inline sb_vi32 mask_keep_f32(const unsigned char *p)
{
    int32_t w;
    memcpy(&w, p, sizeof w);
    const __m128i z = _mm_setzero_si128();
    const __m128i b = _mm_unpacklo_epi8(_mm_cvtsi32_si128(w), z);
    return (sb_vi32)_mm_unpacklo_epi16(b, z) != 0;
}
/* Compared as 32-bit lanes, then each spread over 64 bits: SSE2 has no
 * 64-bit compare, and GCC 12 compiled the vector one lane by lane
 * (masked i64 sums 5.9 -> 4.1 GB/s that way, 2^24, AMD EPYC Zen 5). */
static inline sb_vi64 mask_keep_f64(const unsigned char *p)
{
    int32_t w = 0;
    memcpy(&w, p, 2);
    const __m128i z = _mm_setzero_si128();
    const __m128i b = _mm_unpacklo_epi8(_mm_cvtsi32_si128(w), z);
    const __m128i keep = (__m128i)((sb_vi32)_mm_unpacklo_epi16(b, z) != 0);
    return (sb_vi64)_mm_unpacklo_epi32(keep, keep);
}
#  endif
/* The lines `prefetch` bytes past the next G groups of W leaves of x
 * and (where there is one) the lines of their mask as many elements
 * ahead. Without them, masked f64 sums from memory ran at 0.3 of their
 * speed in cache (one thread, AVX-512, AMD EPYC Zen 5). With the mask's
 * lines `prefetch` bytes ahead too, four times as many elements as x's
 * for f32, masked f32 sums and min from memory ran at 0.75-0.8 of what
 * they do now (2^27, A/B in one process); f64 measured the same either
 * way, and masked half inputs 4-8% faster the old way. */
#  define MASKED_PREFETCH(x, mask, g, W, G, prefetch)                       \
    do {                                                                    \
        const size_t from_ = (size_t)(g) * (W) * L;                         \
        prefetch_ahead((x) + from_, (G) * (W) * L * sizeof *(x), (prefetch)); \
        if ((mask) != NULL)                                                 \
            prefetch_ahead((mask) + from_, (G) * (W) * L,                   \
                           (prefetch) / sizeof *(x));                       \
    } while (0)
/* LOAD(p): the W elements at p as a V (XT: their type in memory, which
 * a half input converts as it loads); KEEP(mask, at, e): the lanes of
 * the loaded e at position `at` that take part (KEEP_MASK: the mask's;
 * KEEP_NAN: e's non-NaNs, the mask not read, as it may be NULL;
 * KEEP_MASK_NAN: both); ROUND: what each step's result becomes (a half
 * accumulator's rounding). */
#  define DEFINE_VFOLD_MASKED(NAME, XT, T, V, LOAD, VI, W, OP, KEEP, ROUND) \
    DEFINE_VFOLD_MASKED_G(NAME, XT, T, V, LOAD, VI, W, OP, KEEP, ROUND, 2)
#  define DEFINE_VFOLD_MASKED_G(NAME, XT, T, V, LOAD, VI, W, OP, KEEP, ROUND, G) \
static inline bool NAME(const XT *x, const unsigned char *mask, T start,    \
                        T skip, size_t prefetch, T *v)                      \
{                                                                           \
    V startv, skipv;                                                        \
    MASKED_LANES_T(VI) seen = MASKED_LANES_NONE(VI);                        \
    (void)mask;   /* KEEP_NAN reads no mask */                              \
    for (int k = 0; k < (W); k++) {                                         \
        startv[k] = start;                                                  \
        skipv[k] = skip;                                                    \
    }                                                                       \
    for (int g = 0; g < NL / (W); g += (G)) {                               \
        V acc[G];                                                           \
        for (int h = 0; h < (G); h++) acc[h] = startv;                      \
        MASKED_PREFETCH(x, mask, g, W, G, prefetch);                        \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[G][W];                                                      \
            for (int h = 0; h < (G); h++) {                                 \
                for (int k = 0; k < (W); k++) {                             \
                    const size_t at = ((size_t)(g + h) * (W) + (size_t)k)   \
                                      * L + (size_t)i;                      \
                    V e = LOAD(x + at);                                     \
                    MASKED_LOADED(e);                                       \
                    const MASKED_LANES_T(VI) keep = KEEP(mask, at, e);      \
                    seen |= (MASKED_LANES_T(VI))MASKED_NAN(e);              \
                    r[h][k] = MASKED_SELECT(V, VI, keep, e, skipv);         \
                }                                                           \
                SB_TRANSPOSE(V, r[h], W)                                    \
            }                                                               \
            for (int k = 0; k < (W); k++)                                   \
                for (int h = 0; h < (G); h++)                               \
                    acc[h] = ROUND##_STEP(acc[h] OP r[h][k]);               \
        }                                                                   \
        for (int h = 0; h < (G); h++) {                                     \
            acc[h] = ROUND##_END(acc[h]);                                   \
            memcpy(v + (size_t)(g + h) * (W), &acc[h], sizeof acc[h]);      \
        }                                                                   \
    }                                                                       \
    return MASKED_LANES_ANY(seen);                                          \
}
#  define VLOAD_f32(p) (*(const sb_vf_in *)(p))
#  define VLOAD_f64(p) (*(const sb_vd_in *)(p))
#  define KEEP_MASK_f32(m, at, e)     mask_keep_f32((m) + (at))
#  define KEEP_MASK_f64(m, at, e)     mask_keep_f64((m) + (at))
#  if SB_VEC_BYTES == 64
/* AVX-512: sets of lanes as the bits of a k mask, which the blend and
 * the compares take as they are. Spelled as lane vectors (as below),
 * GCC 12 moved each mask into a vector and back and blended in three
 * instructions: the masked and NaN-skipping folds ran at 0.55-0.6 of
 * the unmasked fold in cache (AMD EPYC Zen 5). */
#    define KEEP_NAN_f32(m, at, e)      (MASKED_NAN(e) ^ 0xFFFFu)
#    define KEEP_NAN_f64(m, at, e)      (MASKED_NAN(e) ^ 0xFFu)
/* The lanes of e that hold a NaN. */
#    define MASKED_NAN(e)                                                   \
    (sizeof((e)[0]) == 4                                                    \
     ? (unsigned)_mm512_cmp_ps_mask((__m512)(e), (__m512)(e), _CMP_UNORD_Q) \
     : (unsigned)_mm512_cmp_pd_mask((__m512d)(e), (__m512d)(e), _CMP_UNORD_Q))
/* Lane l: keep's lane l ? e[l] : fill[l]. MASKED_LOADED(e), the empty
 * asm, makes the loaded e a register of its own: else GCC 12 folds e's
 * load into the blend, a masked load, which the hardware's prefetchers
 * did not follow (masked f32 sums from memory without software prefetch
 * at 0.4 of the unmasked load's speed, AMD EPYC Zen 5). */
#    define MASKED_SELECT(V, VI, keep, e, fill)                             \
    (sizeof((e)[0]) == 4                                                    \
     ? (V)_mm512_mask_blend_epi32((__mmask16)(keep), (__m512i)(fill),      \
                                  (__m512i)(e))                             \
     : (V)_mm512_mask_blend_epi64((__mmask8)(keep), (__m512i)(fill),       \
                                  (__m512i)(e)))
#    define MASKED_LOADED(e) __asm__("" : "+v"(e))
/* A set of lanes (those kept, those holding a NaN): its type, none. */
#    define MASKED_LANES_T(VI)          unsigned
#    define MASKED_LANES_NONE(VI)       0u
#  else
#    define KEEP_NAN_f32(m, at, e)      ((sb_vi32)((e) == (e)))
#    define KEEP_NAN_f64(m, at, e)      ((sb_vi64)((e) == (e)))
#    define MASKED_NAN(e)               ((e) != (e))
#    define MASKED_SELECT(V, VI, keep, e, fill)                             \
    ((V)(((VI)(e) & (keep)) | ((VI)(fill) & ~(keep))))
#    define MASKED_LANES_T(VI)          VI
#    define MASKED_LANES_NONE(VI)       ((VI){ 0 })
#    define MASKED_LOADED(e)            ((void)0)
#  endif
/* Whether the set of lanes f has any. */
#  define MASKED_LANES_ANY(f)                                               \
    (memcmp(&(f), &(__typeof__(f)){ 0 }, sizeof(f)) != 0)
#  define KEEP_MASK_NAN_f32(m, at, e) (KEEP_MASK_f32(m, at, e) & KEEP_NAN_f32(m, at, e))
#  define KEEP_MASK_NAN_f64(m, at, e) (KEEP_MASK_f64(m, at, e) & KEEP_NAN_f64(m, at, e))
DEFINE_VFOLD_MASKED(vfold_masked_f32_sum,  float,  float,  sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VOP_ADD, KEEP_MASK_f32, NO_VROUND)
DEFINE_VFOLD_MASKED(vfold_masked_f32_prod, float,  float,  sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VOP_MUL, KEEP_MASK_f32, NO_VROUND)
DEFINE_VFOLD_MASKED(vfold_masked_f64_sum,  double, double, sb_vd, VLOAD_f64, sb_vi64, F64_LANES, VOP_ADD, KEEP_MASK_f64, NO_VROUND)
DEFINE_VFOLD_MASKED(vfold_masked_f64_prod, double, double, sb_vd, VLOAD_f64, sb_vi64, F64_LANES, VOP_MUL, KEEP_MASK_f64, NO_VROUND)
/* A half accumulator's masked blocks (masked halves, or NaNs skipped:
 * host_prepare.c has converted them to floats that are half values):
 * each step rounded to the half type on the whole vector as the
 * unmasked half folds do (vround_f16: the same bits as sb__round_f16()),
 * a masked-out element the exact identity (-0.0, 1), which the rounding
 * keeps as it is. Position by position across the leaves with the scalar
 * rounding, masked f16 sums into f16 ran at 0.5 GB/s of input on one
 * thread (AMD EPYC Zen 4, AVX-512, 2^24). */
DEFINE_VFOLD_MASKED_G(vfold_masked_f16_sum,   float, float, sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VOP_ADD, KEEP_MASK_f32, vround_f16, HALF_ACC_GROUPS)
DEFINE_VFOLD_MASKED_G(vfold_masked_f16_prod,  float, float, sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VOP_MUL, KEEP_MASK_f32, vround_f16, HALF_ACC_GROUPS)
DEFINE_VFOLD_MASKED_G(vfold_masked_bf16_sum,  float, float, sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VOP_ADD, KEEP_MASK_f32, vround_bf16, HALF_ACC_GROUPS)
DEFINE_VFOLD_MASKED_G(vfold_masked_bf16_prod, float, float, sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VOP_MUL, KEEP_MASK_f32, vround_bf16, HALF_ACC_GROUPS)
/* The kernels' FULL for these (DEFINE_FOLD_KERNEL): a whole unmasked
 * block takes the scalar fold (the fused half folds below take those
 * before they reach a kernel), a masked one the fold above. */
#  define HALF_VEC(tag) HALF_FULL_FOLD_##tag
#  define HALF_FULL_FOLD_f16_sum(x, v, START, STEP)   SCALAR_FULL_FOLD(x, v, START, STEP)
#  define HALF_FULL_FOLD_f16_prod(x, v, START, STEP)  SCALAR_FULL_FOLD(x, v, START, STEP)
#  define HALF_FULL_FOLD_bf16_sum(x, v, START, STEP)  SCALAR_FULL_FOLD(x, v, START, STEP)
#  define HALF_FULL_FOLD_bf16_prod(x, v, START, STEP) SCALAR_FULL_FOLD(x, v, START, STEP)
#  define PART_OF_HALF_FULL_FOLD_f16_sum(x, v, count, done)
#  define PART_OF_HALF_FULL_FOLD_f16_prod(x, v, count, done)
#  define PART_OF_HALF_FULL_FOLD_bf16_sum(x, v, count, done)
#  define PART_OF_HALF_FULL_FOLD_bf16_prod(x, v, count, done)
#  define PREFETCHES_OF_HALF_FULL_FOLD_f16_sum   SB_PREFETCH_MASKED
#  define PREFETCHES_OF_HALF_FULL_FOLD_f16_prod  SB_PREFETCH_MASKED
#  define PREFETCHES_OF_HALF_FULL_FOLD_bf16_sum  SB_PREFETCH_MASKED
#  define PREFETCHES_OF_HALF_FULL_FOLD_bf16_prod SB_PREFETCH_MASKED
#  define MASKED_VFOLD_(fn, T, x, mask, v, any, START, SKIP)                \
    {                                                                       \
        (void)fn((x), (mask), (T)(START), (T)(SKIP), prefetch, (v));        \
        MASKED_BLOCK_ANY(mask, any)                                         \
    }
#  define MASKED_OF_VECTOR_FULL_FOLD_f32_sum(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_f32_sum, T, x, mask, v, any, START, SKIP)
#  define MASKED_OF_VECTOR_FULL_FOLD_f32_prod(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_f32_prod, T, x, mask, v, any, START, SKIP)
#  define MASKED_OF_VECTOR_FULL_FOLD_f64_sum(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_f64_sum, T, x, mask, v, any, START, SKIP)
#  define MASKED_OF_VECTOR_FULL_FOLD_f64_prod(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_f64_prod, T, x, mask, v, any, START, SKIP)
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f32_sum  SB_PREFETCH_BOTH_
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f32_prod SB_PREFETCH_BOTH_
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f64_sum  SB_PREFETCH_BOTH_
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f64_prod SB_PREFETCH_BOTH_
/* The same tree as the unmasked blocks' VFOLD_NODES takes, over the NL
 * values the masked fold stored (VTREE_OF_VALUES). In scalars through
 * memory it was a quarter of a masked f32 block's time in cache (perf,
 * AMD EPYC Zen 5, AVX-512). */
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f32_sum(T, v, STEP)               \
    VTREE_OF_VALUES(sb_vf, F32_LANES, v, VCOMBINE_ADD, (v)[0])
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f32_prod(T, v, STEP)              \
    VTREE_OF_VALUES(sb_vf, F32_LANES, v, VCOMBINE_MUL, (v)[0])
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f64_sum(T, v, STEP)               \
    VTREE_OF_VALUES(sb_vd, F64_LANES, v, VCOMBINE_ADD, (v)[0])
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f64_prod(T, v, STEP)              \
    VTREE_OF_VALUES(sb_vd, F64_LANES, v, VCOMBINE_MUL, (v)[0])
#  define MASKED_TREE_OF_HALF_FULL_FOLD_f16_sum   MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_HALF_FULL_FOLD_f16_prod  MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_HALF_FULL_FOLD_bf16_sum  MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_HALF_FULL_FOLD_bf16_prod MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_OF_HALF_FULL_FOLD_f16_sum(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_f16_sum, T, x, mask, v, any, START, SKIP)
#  define MASKED_OF_HALF_FULL_FOLD_f16_prod(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_f16_prod, T, x, mask, v, any, START, SKIP)
#  define MASKED_OF_HALF_FULL_FOLD_bf16_sum(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_bf16_sum, T, x, mask, v, any, START, SKIP)
#  define MASKED_OF_HALF_FULL_FOLD_bf16_prod(T, x, mask, v, any, START, SKIP, STEP) \
    MASKED_VFOLD_(vfold_masked_bf16_prod, T, x, mask, v, any, START, SKIP)
/* Min and max of a full masked block: each masked-out element becomes
 * SUB (+inf for min, -inf for max), which the strict step never takes
 * over a value and which the first element that takes part replaces
 * unless that element is a NaN: a leaf's chain then gives its first
 * taking-part element and each later one strictly better, as the
 * element-by-element loop does, in every leaf with an element taking
 * part (has[] says which). Where a NaN takes part anywhere in the block
 * the fold returns false and the block takes that loop instead. Element
 * by element, masked f32 min ran at 0.96 Gelem/s (AVX-512, Zen 4). */
#  define DEFINE_VPICK_MASKED(NAME, XT, T, V, LOAD, VI, W, BETTER, SUB, KEEP) \
static inline bool NAME(const XT *x, const unsigned char *mask,            \
                        size_t prefetch, T *v, bool *nan_seen)              \
{                                                                           \
    V subv;                                                                 \
    MASKED_LANES_T(VI) nan = MASKED_LANES_NONE(VI);                         \
    MASKED_LANES_T(VI) seen = MASKED_LANES_NONE(VI);                        \
    (void)mask;   /* KEEP_NAN reads no mask */                              \
    for (int k = 0; k < (W); k++)                                           \
        subv[k] = (SUB);                                                    \
    for (int g = 0; g < NL / (W); g += 2) {                                 \
        V acc[2];                                                           \
        MASKED_PREFETCH(x, mask, g, W, 2, prefetch);                        \
        for (int h = 0; h < 2; h++)                                         \
            for (int i = 0; i < L; i += (W)) {                              \
                V r[W];                                                     \
                for (int k = 0; k < (W); k++) {                             \
                    const size_t at = ((size_t)(g + h) * (W) + (size_t)k)   \
                                      * L + (size_t)i;                      \
                    V e = LOAD(x + at);                                     \
                    MASKED_LOADED(e);                                       \
                    const MASKED_LANES_T(VI) keep = KEEP(mask, at, e);      \
                    const MASKED_LANES_T(VI) e_nan =                        \
                        (MASKED_LANES_T(VI))MASKED_NAN(e);                  \
                    seen |= e_nan;                                          \
                    nan |= e_nan & keep;                                    \
                    r[k] = MASKED_SELECT(V, VI, keep, e, subv);             \
                }                                                           \
                SB_TRANSPOSE(V, r, W)                                       \
                VPICK_ROWS(VI, BETTER, W, acc[h], r, i);                    \
            }                                                               \
        memcpy(v + (size_t)g * (W), &acc[0], sizeof acc[0]);                \
        memcpy(v + (size_t)(g + 1) * (W), &acc[1], sizeof acc[1]);          \
    }                                                                       \
    *nan_seen = MASKED_LANES_ANY(seen);                                     \
    return !MASKED_LANES_ANY(nan);                                          \
}
DEFINE_VPICK_MASKED(vpick_masked_f32_min, float,  float,  sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VBETTER_MIN, __builtin_inff(), KEEP_MASK_f32)
DEFINE_VPICK_MASKED(vpick_masked_f32_max, float,  float,  sb_vf, VLOAD_f32, sb_vi32, F32_LANES, VBETTER_MAX, -__builtin_inff(), KEEP_MASK_f32)
#  define MASKED_OF_VECTOR_FULL_PICK_f32_min(x, mask, v) vpick_masked_f32_min((x), (mask), prefetch, (v), &(bool){false})
#  define MASKED_OF_VECTOR_FULL_PICK_f32_max(x, mask, v) vpick_masked_f32_max((x), (mask), prefetch, (v), &(bool){false})
#  define PREFETCHES_OF_VECTOR_FULL_PICK_f32_min SB_PREFETCH_BOTH_
#  define PREFETCHES_OF_VECTOR_FULL_PICK_f32_max SB_PREFETCH_BOTH_
#  if F64_LANES >= 4
DEFINE_VPICK_MASKED(vpick_masked_f64_min, double, double, sb_vd, VLOAD_f64, sb_vi64, F64_LANES, VBETTER_MIN, __builtin_inf(), KEEP_MASK_f64)
DEFINE_VPICK_MASKED(vpick_masked_f64_max, double, double, sb_vd, VLOAD_f64, sb_vi64, F64_LANES, VBETTER_MAX, -__builtin_inf(), KEEP_MASK_f64)
#    define MASKED_OF_VECTOR_FULL_PICK_f64_min(x, mask, v) vpick_masked_f64_min((x), (mask), prefetch, (v), &(bool){false})
#    define MASKED_OF_VECTOR_FULL_PICK_f64_max(x, mask, v) vpick_masked_f64_max((x), (mask), prefetch, (v), &(bool){false})
#    define PREFETCHES_OF_VECTOR_FULL_PICK_f64_min SB_PREFETCH_BOTH_
#    define PREFETCHES_OF_VECTOR_FULL_PICK_f64_max SB_PREFETCH_BOTH_
#  else
/* Two f64 lanes: widening 2 mask bytes and testing for NaNs cost more
 * than they save (f64 max masked 1.02 -> 0.53 Gelem/s on SSE2). */
#    define MASKED_OF_VECTOR_FULL_PICK_f64_min(x, mask, v) false
#    define MASKED_OF_VECTOR_FULL_PICK_f64_max(x, mask, v) false
#    define PREFETCHES_OF_VECTOR_FULL_PICK_f64_min SB_PREFETCH_UNMASKED
#    define PREFETCHES_OF_VECTOR_FULL_PICK_f64_max SB_PREFETCH_UNMASKED
#  endif
#elif defined(SB_HAVE_SHUFFLE)
/* Unmasked blocks only in vector folds. */
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f32_sum  SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f32_prod SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f64_sum  SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_FOLD_f64_prod SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_PICK_f32_min  SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_PICK_f32_max  SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_PICK_f64_min  SB_PREFETCH_UNMASKED
#  define PREFETCHES_OF_VECTOR_FULL_PICK_f64_max  SB_PREFETCH_UNMASKED
#  define MASKED_OF_VECTOR_FULL_PICK_f32_min(x, mask, v) false
#  define MASKED_OF_VECTOR_FULL_PICK_f32_max(x, mask, v) false
#  define MASKED_OF_VECTOR_FULL_PICK_f64_min(x, mask, v) false
#  define MASKED_OF_VECTOR_FULL_PICK_f64_max(x, mask, v) false
#  define MASKED_OF_VECTOR_FULL_FOLD_f32_sum  MASKED_OF_SCALAR_FULL_FOLD
#  define MASKED_OF_VECTOR_FULL_FOLD_f32_prod MASKED_OF_SCALAR_FULL_FOLD
#  define MASKED_OF_VECTOR_FULL_FOLD_f64_sum  MASKED_OF_SCALAR_FULL_FOLD
#  define MASKED_OF_VECTOR_FULL_FOLD_f64_prod MASKED_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f32_sum  MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f32_prod MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f64_sum  MASKED_TREE_OF_SCALAR_FULL_FOLD
#  define MASKED_TREE_OF_VECTOR_FULL_FOLD_f64_prod MASKED_TREE_OF_SCALAR_FULL_FOLD
#endif
DEFINE_FOLD_KERNEL(f32_sum,  float,  f32, 0.0f, -0.0f, STEP_PLAIN_ADD, FULL_VEC(f32_sum),  NO_WHOLE)
DEFINE_FOLD_KERNEL(f64_sum,  double, f64, 0.0,  -0.0,  STEP_PLAIN_ADD, FULL_VEC(f64_sum),  NO_WHOLE)
DEFINE_FOLD_KERNEL(f32_prod, float,  f32, 1.0f, 1.0f,  STEP_PLAIN_MUL, FULL_VEC(f32_prod), NO_WHOLE)
DEFINE_FOLD_KERNEL(f64_prod, double, f64, 1.0,  1.0,   STEP_PLAIN_MUL, FULL_VEC(f64_prod), NO_WHOLE)

/* ---- rows side by side (a batch's short rows, host_batched.c) ----------
 *
 * W equally long rows folded at once, one per lane: a leaf's 16 elements
 * of each row are W-element loads, one per row, transposed so that lane
 * k of every register holds row k's element (the transposes of
 * vfold_*), and each lane folds its row's leaf left to right (STEP).
 * The rows are equally long, so every lane builds the same tree: the
 * leaves enter one binary counter of vectors (host_columns.c's, in
 * registers). Row by row, a row of 1000 f32 paid its tail leaves, its
 * tree and a call each time, and ran at 0.4 of the read; side by side
 * 0.6-0.65 on one thread (README: Performance). Asking for each row's
 * next lines ahead (prefetch_ahead) made no difference. */
#ifdef SB_HAVE_SHUFFLE
#define ROWS_LEVELS 64   /* counter entries: enough for any n */
/* A leaf node `acc` into the binary counter of vectors (stack, lev,
 * top): merged with the nodes of its level, as the 1-D folds do; shared
 * by the rows and ragged folds. */
#define ROWS_PUSH(V, VI, STEP, stack, lev, top, acc)                        \
    do {                                                                    \
        (stack)[top] = (acc);                                               \
        (lev)[(top)++] = 0;                                                 \
        while ((top) >= 2 && (lev)[(top) - 2] == (lev)[(top) - 1]) {        \
            STEP(V, VI, (stack)[(top) - 2], (stack)[(top) - 1], 0);         \
            (lev)[(top) - 2]++;                                             \
            (top)--;                                                        \
        }                                                                   \
    } while (0)
#define DEFINE_ROWS_FOLD(NAME, T, V, VIN, VI, W, START, STEP)               \
static void NAME(const void *xv, size_t n, ptrdiff_t pitch, void *roots)  \
{                                                                           \
    const T *x = xv;                                                        \
    V stack[ROWS_LEVELS];                                                   \
    unsigned lev[ROWS_LEVELS];                                              \
    int top = 0;                                                            \
    const size_t leaves = (n + L - 1) / L;                                  \
    for (size_t j = 0; j < leaves; j++) {                                   \
        const size_t s = j * L;                                             \
        V acc;                                                              \
        for (int k = 0; k < (W); k++) acc[k] = (START);                     \
        if (s + L <= n) {                                                   \
            for (int i = 0; i < L; i += (W)) {                              \
                V r[W];                                                     \
                for (int k = 0; k < (W); k++)                               \
                    r[k] = *(const VIN *)(x + k * pitch + (ptrdiff_t)(s + i)); \
                SB_TRANSPOSE(V, r, W)                                       \
                for (int k = 0; k < (W); k++)                               \
                    STEP(V, VI, acc, r[k], i + k == 0);                     \
            }                                                               \
        } else {                                                            \
            for (size_t i = s; i < n; i++) {                                \
                V e = acc;   /* every lane set below */                     \
                for (int k = 0; k < (W); k++) e[k] = x[k * pitch + (ptrdiff_t)i]; \
                STEP(V, VI, acc, e, i == s);                                \
            }                                                               \
        }                                                                   \
        ROWS_PUSH(V, VI, STEP, stack, lev, top, acc);                       \
    }                                                                       \
    for (int k = top - 2; k >= 0; k--)                                      \
        STEP(V, VI, stack[k], stack[k + 1], 0);                             \
    memcpy(roots, &stack[0], sizeof stack[0]);                              \
}
/* The step a = step(a, b) of every lane, as the 1-D folds take it; `first`:
 * b is the leaf's first element. A sum or product starts from START (+0
 * or 1, as vfold_*); a min or max from the first element, then takes b
 * only where it is strictly better (VBETTER_*: NaNs and equal values never
 * replace a), one select on the bits, as vpick_*. */
#define ROWS_STEP_ADD(V, VI, a, b, first) ((a) = (a) + (b))
#define ROWS_STEP_MUL(V, VI, a, b, first) ((a) = (a) * (b))
#define ROWS_STEP_PICK(V, VI, a, b, first, BETTER)                          \
    do {                                                                    \
        if (first) {                                                        \
            (a) = (b);                                                      \
        } else {                                                            \
            VTAKE(VI, BETTER, a, b);                                        \
        }                                                                   \
    } while (0)
#define ROWS_STEP_MIN(V, VI, a, b, first)                                   \
    ROWS_STEP_PICK(V, VI, a, b, first, VBETTER_MIN)
#define ROWS_STEP_MAX(V, VI, a, b, first)                                   \
    ROWS_STEP_PICK(V, VI, a, b, first, VBETTER_MAX)
/* W segments of different lengths (ragged: segment k from element
 * starts[k] to ends[k] of x, each n_k > 0) at once: their
 * leaves up to the fewest full ones any of them has (`common`) fold side
 * by side as rows do. A leaf's place in the binary counter depends only
 * on its index, so every lane's counter has the same shape as long as it
 * has leaves: the rest go on in the same vectors, leaf index by leaf
 * index, each element taken only by the lanes that have it and each push
 * and merge only by the lanes that have that leaf (a select on the bits,
 * `live`), the others' entries kept as they were. A lane's counter ends
 * with one entry per 1 bit of its leaf count (`tops`), and the last pop
 * combines each lane's own entries only. Past `common` a lane's leaf is
 * loaded whole, as the others, and the positions past its end (whatever
 * follows it in x, or its own first ones where it has no such leaf) are
 * loaded but not taken: the caller keeps at least L - 1 readable
 * elements of x after every lane's segment, and the lengths close (every
 * lane pays for the most leaves of any). One at a time, a segment paid a call's fixed work: 66 ns for a
 * segment of 10. */
#define RAGGED_SELECT(V, VI, m, a, b) ((V)(((VI)(a) & (m)) | ((VI)(b) & ~(m))))
#define DEFINE_RAGGED_FOLD(NAME, T, V, VIN, VI, W, START, STEP)             \
static void NAME(const void *xv, const uint64_t *starts,                    \
                 const uint64_t *ends, void *roots)                         \
{                                                                           \
    const T *row[W];                                                        \
    size_t n[W], common = SIZE_MAX, most = 0;                               \
    for (int k = 0; k < (W); k++) {                                         \
        row[k] = (const T *)xv + starts[k];                                 \
        n[k] = (size_t)(ends[k] - starts[k]);                               \
        if (n[k] / L < common)                                              \
            common = n[k] / L;                                              \
        if ((n[k] + L - 1) / L > most)                                      \
            most = (n[k] + L - 1) / L;                                      \
    }                                                                       \
    V stack[ROWS_LEVELS];                                                   \
    unsigned lev[ROWS_LEVELS];                                              \
    int top = 0;                                                            \
    for (size_t j = 0; j < common; j++) {                                   \
        const size_t s = j * L;                                             \
        V acc;                                                              \
        for (int k = 0; k < (W); k++) acc[k] = (START);                     \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[W];                                                         \
            for (int k = 0; k < (W); k++)                                   \
                r[k] = *(const VIN *)(row[k] + s + (size_t)i);              \
            SB_TRANSPOSE(V, r, W)                                           \
            for (int k = 0; k < (W); k++)                                   \
                STEP(V, VI, acc, r[k], i + k == 0);                         \
        }                                                                   \
        ROWS_PUSH(V, VI, STEP, stack, lev, top, acc);                       \
    }                                                                       \
    if (most == common) {                                                   \
        for (int t = top - 2; t >= 0; t--)                                  \
            STEP(V, VI, stack[t], stack[t + 1], 0);                         \
        memcpy(roots, &stack[0], sizeof stack[0]);                          \
        return;                                                             \
    }                                                                       \
    /* Past `common`, lane by lane only where the lane must differ: its    \
     * elements left past the common leaves (`tail`, held in a lane of VI: \
     * the caller's length classes keep it below 2^13) and its counter's   \
     * height when its leaves end (one entry per 1 bit of its leaf         \
     * count), set once; every leaf then costs vector operations only.    \
     * Set lane by lane in each leaf, these were most of a group's time    \
     * (perf, AMD EPYC Zen 4). */                                          \
    _Alignas(64) __typeof__(((VI){})[0]) tail_a[W], tops_a[W];              \
    _Alignas(64) T start_a[W];                                              \
    int most_top = top;                                                     \
    for (int k = 0; k < (W); k++) {                                         \
        tail_a[k] = (__typeof__(tail_a[0]))(n[k] - common * L);             \
        tops_a[k] = __builtin_popcountll((n[k] + L - 1) / L);               \
        if (tops_a[k] > most_top)                                           \
            most_top = (int)tops_a[k];                                      \
        start_a[k] = (START);                                               \
    }                                                                       \
    VI tail, tops;                                                          \
    V start;                                                                \
    memcpy(&tail, tail_a, sizeof tail);                                     \
    memcpy(&tops, tops_a, sizeof tops);                                     \
    memcpy(&start, start_a, sizeof start);                                  \
    int written = top;                                                      \
    for (size_t j = common; j < most; j++) {                                \
        const size_t s = j * L;                                             \
        const VI rem = tail - (__typeof__(tail_a[0]))((j - common) * L);   \
        const VI live = rem > 0;                                            \
        V acc = start;                                                      \
        const T *at[W];                                                     \
        for (int k = 0; k < (W); k++)                                       \
            at[k] = row[k] + (s < n[k] ? s : 0);                            \
        for (int i = 0; i < L; i += (W)) {                                  \
            V r[W];                                                         \
            for (int k = 0; k < (W); k++)                                   \
                r[k] = *(const VIN *)(at[k] + i);                           \
            SB_TRANSPOSE(V, r, W)                                           \
            for (int k = 0; k < (W); k++) {                                 \
                const VI has = rem > (i + k);                               \
                V t = acc;                                                  \
                STEP(V, VI, t, r[k], i + k == 0);                           \
                acc = RAGGED_SELECT(V, VI, has, t, acc);                    \
            }                                                               \
        }                                                                   \
        /* A fresh entry belongs to no lane yet: written whole. */          \
        stack[top] = top < written                                          \
                     ? RAGGED_SELECT(V, VI, live, acc, stack[top]) : acc;   \
        if (top >= written)                                                 \
            written = top + 1;                                              \
        lev[top++] = 0;                                                     \
        while (top >= 2 && lev[top - 2] == lev[top - 1]) {                  \
            V t = stack[top - 2];                                           \
            STEP(V, VI, t, stack[top - 1], 0);                              \
            stack[top - 2] = RAGGED_SELECT(V, VI, live, t, stack[top - 2]); \
            lev[top - 2]++;                                                 \
            top--;                                                          \
        }                                                                   \
    }                                                                       \
    for (int t = most_top - 2; t >= 0; t--) {                               \
        const VI m = t <= tops - 2;                                         \
        V c = stack[t];                                                     \
        STEP(V, VI, c, stack[t + 1], 0);                                    \
        stack[t] = RAGGED_SELECT(V, VI, m, c, stack[t]);                    \
    }                                                                       \
    memcpy(roots, &stack[0], sizeof stack[0]);                              \
}
DEFINE_RAGGED_FOLD(ragged_f32_sum,  float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 0.0f, ROWS_STEP_ADD)
DEFINE_RAGGED_FOLD(ragged_f64_sum,  double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 0.0,  ROWS_STEP_ADD)
DEFINE_RAGGED_FOLD(ragged_f32_prod, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 1.0f, ROWS_STEP_MUL)
DEFINE_RAGGED_FOLD(ragged_f64_prod, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 1.0,  ROWS_STEP_MUL)
DEFINE_RAGGED_FOLD(ragged_f32_min,  float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 0.0f, ROWS_STEP_MIN)
DEFINE_RAGGED_FOLD(ragged_f64_min,  double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 0.0,  ROWS_STEP_MIN)
DEFINE_RAGGED_FOLD(ragged_f32_max,  float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 0.0f, ROWS_STEP_MAX)
DEFINE_RAGGED_FOLD(ragged_f64_max,  double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 0.0,  ROWS_STEP_MAX)
DEFINE_ROWS_FOLD(rows_f32_sum,  float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 0.0f, ROWS_STEP_ADD)
DEFINE_ROWS_FOLD(rows_f64_sum,  double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 0.0,  ROWS_STEP_ADD)
DEFINE_ROWS_FOLD(rows_f32_prod, float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 1.0f, ROWS_STEP_MUL)
DEFINE_ROWS_FOLD(rows_f64_prod, double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 1.0,  ROWS_STEP_MUL)
DEFINE_ROWS_FOLD(rows_f32_min,  float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 0.0f, ROWS_STEP_MIN)
DEFINE_ROWS_FOLD(rows_f64_min,  double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 0.0,  ROWS_STEP_MIN)
DEFINE_ROWS_FOLD(rows_f32_max,  float,  sb_vf, sb_vf_in, sb_vi32, F32_LANES, 0.0f, ROWS_STEP_MAX)
DEFINE_ROWS_FOLD(rows_f64_max,  double, sb_vd, sb_vd_in, sb_vi64, F64_LANES, 0.0,  ROWS_STEP_MAX)
#endif

sb__rows_kernel SB_ROWS_LOOKUP(const sb__plan *plan)
{
    sb__rows_kernel none = { NULL, NULL, 0 };
#ifdef SB_HAVE_SHUFFLE
    /* Floats read as they are stored: no conversion, map, dot product
     * or NaN skipping. */
    if (plan->prepared || plan->dot || plan->skip_nan
        || plan->map != SB_MAP_NONE || plan->acc != plan->input
        || (plan->acc != SB_F32 && plan->acc != SB_F64))
        return none;
    const bool f32 = plan->acc == SB_F32;
    switch (plan->op) {
    case SB_SUM:
        return f32 ? (sb__rows_kernel){ rows_f32_sum, ragged_f32_sum,
                                        F32_LANES }
                   : (sb__rows_kernel){ rows_f64_sum, ragged_f64_sum,
                                        F64_LANES };
    case SB_PROD:
        return f32 ? (sb__rows_kernel){ rows_f32_prod, ragged_f32_prod,
                                        F32_LANES }
                   : (sb__rows_kernel){ rows_f64_prod, ragged_f64_prod,
                                        F64_LANES };
    case SB_MIN:
        return f32 ? (sb__rows_kernel){ rows_f32_min, ragged_f32_min,
                                        F32_LANES }
                   : (sb__rows_kernel){ rows_f64_min, ragged_f64_min,
                                        F64_LANES };
    case SB_MAX:
        return f32 ? (sb__rows_kernel){ rows_f32_max, ragged_f32_max,
                                        F32_LANES }
                   : (sb__rows_kernel){ rows_f64_max, ragged_f64_max,
                                        F64_LANES };
    default:
        break;
    }
#endif
    (void)plan;
    return none;
}

/* ---- half accumulators ----------------------------------------------------
 *
 * f16 and bf16 accumulators fold floats that are exactly half values
 * (host_prepare.c converts the elements): each step is one binary32
 * operation rounded to the half type, which host_half.h shows to be the
 * exactly rounded half result. The skipped element of a sum is -0.0 as
 * for floats (v + -0.0 == v, so the rounding changes nothing), of a
 * product 1. Scalar folds: correctness first. min and max need no
 * rounding: the f32 kernels compare the same values (SB_KERNEL_LOOKUP). */
#define STEP_F16_ADD(a, b)  ((a) = sb__round_f16((a) + (b)))
#define STEP_F16_MUL(a, b)  ((a) = sb__round_f16((a) * (b)))
#define STEP_BF16_ADD(a, b) ((a) = sb__round_bf16((a) + (b)))
#define STEP_BF16_MUL(a, b) ((a) = sb__round_bf16((a) * (b)))
#ifndef HALF_VEC
#  define HALF_VEC(tag) SCALAR_FULL_FOLD
#endif
DEFINE_FOLD_KERNEL(f16_sum,   float, f32, 0.0f, -0.0f, STEP_F16_ADD,  HALF_VEC(f16_sum),   NO_WHOLE)
DEFINE_FOLD_KERNEL(f16_prod,  float, f32, 1.0f, 1.0f,  STEP_F16_MUL,  HALF_VEC(f16_prod),  NO_WHOLE)
DEFINE_FOLD_KERNEL(bf16_sum,  float, f32, 0.0f, -0.0f, STEP_BF16_ADD, HALF_VEC(bf16_sum),  NO_WHOLE)
DEFINE_FOLD_KERNEL(bf16_prod, float, f32, 1.0f, 1.0f,  STEP_BF16_MUL, HALF_VEC(bf16_prod), NO_WHOLE)

/* ---- integers: whole blocks where the algebra allows ---------------------
 *
 * ORDER_FREE: wrapping sums and products (arithmetic modulo 2^bits) and
 * integer min and max (a total order, no NaN, no signed zero) are
 * associative and commutative exactly, so every order gives docs/order.md's
 * value: a full unmasked block is one plain pass with 32 running values
 * (independent chains the compiler vectorises). The tests compare these
 * bits with the literal oracle like all others.
 *
 * Checked sums in 32/64-bit accumulators: if every element of a full block
 * lies in [-2^(bits-13), 2^(bits-13)) (unsigned: [0, 2^(bits-12))), no sum
 * of any of its 4096 elements, in any order, leaves the type's range, so
 * nothing in the block overflows and its node is the exact sum. That is
 * the common case (i32 data in an i64 accumulator always qualifies), and
 * one pass checks it alongside the sum: OR together x + offset, whose high
 * bits stay clear exactly when every x is in range. Any other block takes
 * the checked fold. */
#ifdef SB_HAVE_SHUFFLE
/* Four registers of running values, loaded straight from the input: the
 * array of 32 running values this replaced was compiled (GCC 12, AVX-512)
 * with half of it on the stack, stored and reloaded at every step, and an
 * i32 min in cache ran at 0.44-0.48 of the read (AMD EPYC Zen 5). VSTEP
 * is STEP on whole registers; STEP combines the last register's lanes. */
#define OF_ACCS 8
#define DEFINE_ORDER_FREE_WHOLE(NAME, T, STEP, VSTEP)                       \
enum { NAME##_whole_prefetches = SB_PREFETCH_UNMASKED };                    \
typedef T NAME##_v __attribute__((vector_size(SB_VEC_BYTES)));             \
typedef T NAME##_vin __attribute__((vector_size(SB_VEC_BYTES),             \
                                    aligned(sizeof(T)), may_alias));       \
static bool NAME##_whole(const T *x, size_t prefetch, T *node)              \
{                                                                           \
    enum { LANES = SB_VEC_BYTES / sizeof(T), STRIDE = OF_ACCS * LANES };    \
    NAME##_v a[OF_ACCS];                                                    \
    for (int k = 0; k < OF_ACCS; k++)                                       \
        a[k] = *(const NAME##_vin *)(x + k * LANES);                        \
    prefetch_ahead(x, sizeof a, prefetch);                                  \
    for (int i = STRIDE; i < SB_BLOCK_SIZE; i += STRIDE) {                  \
        prefetch_ahead(x + i, sizeof a, prefetch);                          \
        for (int k = 0; k < OF_ACCS; k++)                                   \
            VSTEP(a[k], *(const NAME##_vin *)(x + i + k * LANES));          \
    }                                                                       \
    for (int k = 1; k < OF_ACCS; k++) VSTEP(a[0], a[k]);                    \
    T r = a[0][0];                                                          \
    for (int l = 1; l < LANES; l++) STEP(r, a[0][l]);                       \
    *node = r;                                                              \
    return true;                                                            \
}
/* Vector forms of the steps: the element type's own arithmetic, which
 * wraps for unsigned lanes (no promotion to int, unlike scalars); min and
 * max select on the compare's lane mask. */
#define OF_VADD(a, b) ((a) = (a) + (b))
#define OF_VMUL(a, b) ((a) = (a) * (b))
#define OF_VPICK_(BETTER, OP, a, b)                                         \
    do {                                                                    \
        const __typeof__(a) e_ = (b);                                       \
        if (OF_HAS_MINMAX_(a)) {                                            \
            (a) = OF_MINMAX_(OP, a, e_);                                    \
        } else {                                                            \
            const __typeof__(a) m_ = (__typeof__(a))BETTER(e_, (a));        \
            (a) = (e_ & m_) | ((a) & ~m_);                                  \
        }                                                                   \
    } while (0)
#define OF_VMIN(a, b) OF_VPICK_(BETTER_MIN, min, a, b)
#define OF_VMAX(a, b) OF_VPICK_(BETTER_MAX, max, a, b)
/* x86's integer MIN and MAX, where the instruction set has them for the
 * lanes' width and signedness: one instruction for the compare and the
 * select, the same value (integers that compare equal are equal). GCC 12
 * does not see the pattern in vector code. Two builds in one process, one
 * thread, AMD EPYC Zen 5, new / old: AVX-512 i32 min and max 1.09-1.13 in
 * cache (2^20-2^24), 0.98 from memory (2^27), i64 max 1.04; AVX2 and
 * SSE2 (MIN for u8 and i16 lanes only) 0.98-1.04. OF_HAS_MINMAX_(a):
 * whether OF_MINMAX_(OP, a, e) is the instruction for a's lanes (else it
 * is a, and never taken): lanes of a type not listed take the select. */
typedef int8_t   of_vi8  __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint8_t  of_vu8  __attribute__((vector_size(SB_VEC_BYTES)));
typedef int16_t  of_vi16 __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint16_t of_vu16 __attribute__((vector_size(SB_VEC_BYTES)));
typedef int32_t  of_vi32 __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint32_t of_vu32 __attribute__((vector_size(SB_VEC_BYTES)));
typedef int64_t  of_vi64 __attribute__((vector_size(SB_VEC_BYTES)));
typedef uint64_t of_vu64 __attribute__((vector_size(SB_VEC_BYTES)));
/* One _Generic association: lanes V take instruction P_OP_epX (R: the
 * instruction set's integer vector). */
#define OF_MM_(V, P, OP, X, R, a, e)                                        \
    V: (V)P##_##OP##_ep##X((R)(a), (R)(e))
/* The lanes of 32 bits or less, in instruction set P (AVX2 and AVX-512). */
#define OF_MINMAX_UP_TO_32_(M, P, R, OP, a, e)                              \
    M(of_vi8, P, OP, i8, R, a, e), M(of_vu8, P, OP, u8, R, a, e),           \
    M(of_vi16, P, OP, i16, R, a, e), M(of_vu16, P, OP, u16, R, a, e),       \
    M(of_vi32, P, OP, i32, R, a, e), M(of_vu32, P, OP, u32, R, a, e)
#if SB_VEC_BYTES == 64 && defined(__AVX512BW__)
#  define OF_MINMAX_TYPES_(M, OP, a, e)                                     \
    OF_MINMAX_UP_TO_32_(M, _mm512, __m512i, OP, a, e),                      \
    M(of_vi64, _mm512, OP, i64, __m512i, a, e),                             \
    M(of_vu64, _mm512, OP, u64, __m512i, a, e)
#elif SB_VEC_BYTES == 32 && defined(__AVX2__)
#  define OF_MINMAX_TYPES_(M, OP, a, e)                                     \
    OF_MINMAX_UP_TO_32_(M, _mm256, __m256i, OP, a, e)
#elif SB_VEC_BYTES == 16 && defined(__SSE2__)
#  define OF_MINMAX_TYPES_(M, OP, a, e)                                     \
    M(of_vu8, _mm, OP, u8, __m128i, a, e),                                  \
    M(of_vi16, _mm, OP, i16, __m128i, a, e)
#endif
#ifdef OF_MINMAX_TYPES_
#  define OF_YES_(V, P, OP, X, R, a, e) V: 1
#  define OF_HAS_MINMAX_(a)                                                 \
    _Generic((a), OF_MINMAX_TYPES_(OF_YES_, min, a, a), default: 0)
#  define OF_MINMAX_(OP, a, e)                                              \
    _Generic((a), OF_MINMAX_TYPES_(OF_MM_, OP, a, e), default: (a))
#else
#  define OF_HAS_MINMAX_(a) 0
#  define OF_MINMAX_(OP, a, e) (a)
#endif
#else
#define DEFINE_ORDER_FREE_WHOLE(NAME, T, STEP, VSTEP)                       \
enum { NAME##_whole_prefetches = SB_PREFETCH_UNMASKED };                    \
static bool NAME##_whole(const T *x, size_t prefetch, T *node)              \
{                                                                           \
    T a[32];                                                                \
    memcpy(a, x, sizeof a);                                                 \
    prefetch_ahead(x, sizeof a, prefetch);                                  \
    for (int i = 32; i < SB_BLOCK_SIZE; i += 32) {                          \
        prefetch_ahead(x + i, sizeof a, prefetch);                          \
        for (int k = 0; k < 32; k++) STEP(a[k], x[i + k]);                  \
    }                                                                       \
    for (int k = 1; k < 32; k++) STEP(a[0], a[k]);                          \
    *node = a[0];                                                           \
    return true;                                                            \
}
#endif

/* OFFSET: 2^(bits-13) for signed T, 0 for unsigned; SHIFT: bits - 12. */
#ifdef SB_HAVE_SHUFFLE
/* In registers for the same reason as DEFINE_ORDER_FREE_WHOLE's: the
 * arrays of 32 sums and 32 bit masks were partly kept on the stack. The
 * masks OR into two registers (a one-cycle step needs no more chains).
 * The range is checked once, at the block's end, as one OR of the mask's
 * words. The old check after every quarter block, lane by lane (so that
 * a block out of range was not read to its end before its checked fold,
 * which then finds it in cache) cost i32 sums 1-3% in cache (2^20-2^22,
 * medians of 16 A/B runs, AMD EPYC Zen 5, AVX-512), nothing measurable
 * from memory. */
#define DEFINE_SMALL_SUM_WHOLE(NAME, T, UT, OFFSET, SHIFT)                  \
enum { NAME##_whole_prefetches = SB_PREFETCH_UNMASKED };                    \
typedef UT NAME##_vu __attribute__((vector_size(SB_VEC_BYTES)));           \
typedef UT NAME##_vuin __attribute__((vector_size(SB_VEC_BYTES),           \
                                      aligned(sizeof(UT)), may_alias));    \
static bool NAME##_whole(const T *x, size_t prefetch, T *node)              \
{                                                                           \
    enum { LANES = SB_VEC_BYTES / sizeof(UT), STRIDE = OF_ACCS * LANES };   \
    NAME##_vu sum[OF_ACCS], bits[2];                                        \
    for (int k = 0; k < OF_ACCS; k++) sum[k] = (NAME##_vu){0};              \
    bits[0] = bits[1] = (NAME##_vu){0};                                     \
    for (int i = 0; i < SB_BLOCK_SIZE; i += STRIDE) {                       \
        prefetch_ahead(x + i, sizeof sum, prefetch);                        \
        for (int k = 0; k < OF_ACCS; k++) {                                 \
            NAME##_vu u = *(const NAME##_vuin *)(x + i + k * LANES);        \
            SB_LOAD_IN_ORDER(u);                                            \
            sum[k] += u;                                                    \
            bits[k & 1] |= u + (UT)(OFFSET);                                \
        }                                                                   \
    }                                                                       \
    const NAME##_vu seen = (bits[0] | bits[1]) >> (SHIFT);                  \
    uint64_t words[sizeof seen / 8], any = 0;                               \
    memcpy(words, &seen, sizeof seen);                                      \
    for (size_t w = 0; w < sizeof seen / 8; w++) any |= words[w];           \
    if (any)                                                                \
        return false;                                                       \
    for (int k = 1; k < OF_ACCS; k++) sum[0] += sum[k];                     \
    UT total = 0;                                                           \
    for (int l = 0; l < LANES; l++) total += sum[0][l];                     \
    *node = (T)total;   /* in range: the exact sum */                       \
    return true;                                                            \
}
#else
/* Without the vector extensions' shuffles: 32 running values in arrays,
 * the range checked after every quarter block, so that a block which
 * must take the checked fold anyway is not first read to its end. */
#define DEFINE_SMALL_SUM_WHOLE(NAME, T, UT, OFFSET, SHIFT)                  \
enum { NAME##_whole_prefetches = SB_PREFETCH_UNMASKED };                    \
static bool NAME##_whole(const T *x, size_t prefetch, T *node)              \
{                                                                           \
    UT sum[32], bits[32];                                                   \
    memset(sum, 0, sizeof sum);                                             \
    memset(bits, 0, sizeof bits);                                           \
    for (int q = 0; q < SB_BLOCK_SIZE; q += SB_BLOCK_SIZE / 4) {            \
        for (int i = q; i < q + SB_BLOCK_SIZE / 4; i += 32) {               \
            prefetch_ahead(x + i, sizeof sum, prefetch);                    \
            for (int k = 0; k < 32; k++) {                                  \
                const UT u = (UT)x[i + k];                                  \
                sum[k] += u;                                                \
                bits[k] |= u + (UT)(OFFSET);                                \
            }                                                               \
        }                                                                   \
        UT seen = 0;                                                        \
        for (int k = 0; k < 32; k++) seen |= bits[k];                       \
        if (seen >> (SHIFT))                                                \
            return false;                                                   \
    }                                                                       \
    for (int k = 1; k < 32; k++) sum[0] += sum[k];                          \
    *node = (T)sum[0];   /* in range: the exact sum */                      \
    return true;                                                            \
}
#endif

/* NAME_whole_masked: a full masked block of 32- or 64-bit integers at
 * once, where the algebra allows it as for NAME_whole: each element that
 * does not take part replaced by the step's identity (IDENT: 0 for sums,
 * 1 for products, the type's largest for min, its smallest for max), the
 * elements of T folded in UT's arithmetic by VSTEP into OF_ACCS running
 * values, their lanes then by STEP. WINDOW 1: a checked sum, which also
 * ORs x + OFFSET of every element (a replaced one is 0, in range) and
 * gives up (false: the masked fold) unless their bits from SHIFT up are
 * clear, as DEFINE_SMALL_SUM_WHOLE does. *has: whether any element took
 * part. 8- and 16-bit elements give up at once (DEFINE_SMALL_MASKED_WHOLE
 * widens them instead). The masked folds these spare
 * take an element at a time: against them, one thread, medians of 3 A/B
 * runs, AMD EPYC Zen 5, masked i32 sums 6.6x in cache (2^24) and 4.5x
 * from memory (2^27) on AVX-512, 5.5x and 4.4x on AVX2, 3.7x and 3.4x on
 * SSE2; i32 min 18.7x in cache; i64 min from memory 6.7x, 6.1x, 2.7x. */
#if defined(SB_HAVE_SHUFFLE) && defined(KEEP_MASK_f32)
#define DEFINE_MASKED_WHOLE(NAME, T, UT, STEP, VSTEP, IDENT, OFFSET,       \
                            SHIFT, WINDOW)                                  \
enum { NAME##_whole_masked_prefetches =                                     \
           sizeof(T) >= 4 ? SB_PREFETCH_MASKED : 0 };                       \
typedef UT NAME##_mv __attribute__((vector_size(SB_VEC_BYTES)));           \
typedef UT NAME##_mvin __attribute__((vector_size(SB_VEC_BYTES),           \
                                      aligned(sizeof(UT)), may_alias));    \
static bool NAME##_whole_masked(const T *x, const unsigned char *mask,      \
                                size_t prefetch, T *node, bool *has)        \
{                                                                           \
    enum { LANES = SB_VEC_BYTES / sizeof(UT), STRIDE = OF_ACCS * LANES };   \
    if (sizeof(T) != 4 && sizeof(T) != 8)                                   \
        return false;                                                       \
    const NAME##_mv fill = (NAME##_mv){ 0 } + (UT)(IDENT);                  \
    NAME##_mv a[OF_ACCS], bits = { 0 };                                     \
    for (int k = 0; k < OF_ACCS; k++) a[k] = fill;                          \
    MASKED_LANES_T(sb_vi64) any = MASKED_LANES_NONE(sb_vi64);               \
    for (int i = 0; i < SB_BLOCK_SIZE; i += STRIDE) {                       \
        prefetch_ahead(x + i, STRIDE * sizeof *x, prefetch);                \
        prefetch_ahead(mask + i, STRIDE, prefetch / sizeof *x);             \
        for (int k = 0; k < OF_ACCS; k++) {                                 \
            NAME##_mv e = *(const NAME##_mvin *)(x + i + k * LANES);        \
            SB_LOAD_IN_ORDER(e);                                            \
            const MASKED_LANES_T(sb_vi64) keep =                            \
                MASKED_INT_KEEP(T, mask + i + k * LANES);                   \
            any |= keep;                                                    \
            e = MASKED_SELECT(NAME##_mv, sb_vi64, keep, e, fill);           \
            VSTEP(a[k], e);                                                 \
            if (WINDOW)                                                     \
                bits |= e + (UT)(OFFSET);                                   \
        }                                                                   \
    }                                                                       \
    if (WINDOW) {                                                           \
        const NAME##_mv seen = bits >> (SHIFT);                             \
        if (memcmp(&seen, &(NAME##_mv){ 0 }, sizeof seen) != 0)             \
            return false;                                                   \
    }                                                                       \
    for (int k = 1; k < OF_ACCS; k++) VSTEP(a[0], a[k]);                    \
    UT r = a[0][0];                                                         \
    for (int l = 1; l < LANES; l++) STEP(r, a[0][l]);                       \
    *node = (T)r;   /* a checked sum in its window: the exact sum */        \
    *has = MASKED_LANES_ANY(any);                                           \
    return true;                                                            \
}
/* The keep lanes of the LANES mask bytes at p for elements of T, as the
 * float folds' MASKED_SELECT takes them (mask_keep_f32 and _f64 for 4-
 * and 8-byte lanes): a k mask on AVX-512, else a lane vector, seen as
 * sb_vi64 whatever its lanes' width, since the select is on the bits. */
#  define MASKED_INT_KEEP(T, p)                                             \
    (sizeof(T) == 4 ? (MASKED_LANES_T(sb_vi64))mask_keep_f32(p)             \
                    : (MASKED_LANES_T(sb_vi64))mask_keep_f64(p))
#else
#define DEFINE_MASKED_WHOLE(NAME, T, UT, STEP, VSTEP, IDENT, OFFSET,       \
                            SHIFT, WINDOW)                                  \
    DEFINE_NO_MASKED_WHOLE(NAME)
#endif
#define DEFINE_NO_MASKED_WHOLE(NAME)                                        \
enum { NAME##_whole_masked_prefetches = 0 };                                \
static bool NAME##_whole_masked(const void *x, const unsigned char *mask,   \
                                size_t prefetch, void *node, bool *has)     \
{                                                                           \
    (void)x; (void)mask; (void)prefetch; (void)node; (void)has;             \
    return false;                                                           \
}

/* Integer widths, and whether a widening sign- (i) or zero-extends (u). */
#define SB_INT_BITS_i8   8
#define SB_INT_BITS_u8   8
#define SB_INT_BITS_i16 16
#define SB_INT_BITS_u16 16
#define SB_INT_BITS_i32 32
#define SB_INT_BITS_u32 32
#define SB_INT_BITS_i64 64
#define SB_INT_BITS_u64 64
#define SB_INT_EXT_i8  i
#define SB_INT_EXT_u8  u
#define SB_INT_EXT_i16 i
#define SB_INT_EXT_u16 u
#define SB_INT_EXT_i32 i
#define SB_INT_EXT_u32 u
#define SB_INT_EXT_i64 i
#define SB_INT_EXT_u64 u
/* The identities of integer min and max (MINMAX_PAIR_0). */
#define SB_INT_LARGEST_i8   INT8_MAX
#define SB_INT_LARGEST_u8   UINT8_MAX
#define SB_INT_LARGEST_i16  INT16_MAX
#define SB_INT_LARGEST_u16  UINT16_MAX
#define SB_INT_LARGEST_i32  INT32_MAX
#define SB_INT_LARGEST_u32  UINT32_MAX
#define SB_INT_LARGEST_i64  INT64_MAX
#define SB_INT_LARGEST_u64  UINT64_MAX
#define SB_INT_SMALLEST_i8  INT8_MIN
#define SB_INT_SMALLEST_u8  0
#define SB_INT_SMALLEST_i16 INT16_MIN
#define SB_INT_SMALLEST_u16 0
#define SB_INT_SMALLEST_i32 INT32_MIN
#define SB_INT_SMALLEST_u32 0
#define SB_INT_SMALLEST_i64 INT64_MIN
#define SB_INT_SMALLEST_u64 0
#ifdef SB_HAVE_SHUFFLE
/* SB_WIDEN_LOAD(it, ac, p): the next register's worth of AT lanes, the
 * elements of IT at p widened (sign- or zero-extended as IT is signed or
 * not). By x86's own widening loads where the copy has them: GCC 12
 * compiled __builtin_convertvector's of i32 into i64 as 128-bit pieces
 * reassembled, and of i8 into i64 one element at a time. */
#define SB_WIDEN_LOAD(it, ac, p)                                            \
    SB_WIDEN_LOAD_(SB_INT_EXT_##it, SB_INT_BITS_##it, SB_INT_BITS_##ac, p)
#define SB_WIDEN_LOAD_(e, from, to, p) SB_WIDEN_LOAD__(e, from, to, p)
#if defined(__SSE2__)
/* n <= 4 bytes at p into the low bytes of a register, zeros above. */
static inline __m128i sb_load_bytes(const void *p, size_t n)
{
    uint32_t b = 0;
    memcpy(&b, p, n);
    return _mm_cvtsi32_si128((int)b);
}
#endif
#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
#  define SB_WIDEN_LOAD__(e, from, to, p)                                   \
    _mm512_cvtep##e##from##_epi##to(SB_WIDEN_IN_##from##_##to(p))
#  define SB_WIDEN_IN_32_64(p) _mm256_loadu_si256((const __m256i *)(p))
#  define SB_WIDEN_IN_16_32(p) _mm256_loadu_si256((const __m256i *)(p))
#  define SB_WIDEN_IN_16_64(p) _mm_loadu_si128((const __m128i *)(p))
#  define SB_WIDEN_IN_8_32(p)  _mm_loadu_si128((const __m128i *)(p))
#  define SB_WIDEN_IN_8_64(p)  _mm_loadl_epi64((const __m128i *)(p))
#elif SB_VEC_BYTES == 32 && defined(__AVX2__)
#  define SB_WIDEN_LOAD__(e, from, to, p)                                   \
    _mm256_cvtep##e##from##_epi##to(SB_WIDEN_IN_##from##_##to(p))
#  define SB_WIDEN_IN_32_64(p) _mm_loadu_si128((const __m128i *)(p))
#  define SB_WIDEN_IN_16_32(p) _mm_loadu_si128((const __m128i *)(p))
#  define SB_WIDEN_IN_16_64(p) _mm_loadl_epi64((const __m128i *)(p))
#  define SB_WIDEN_IN_8_32(p)  _mm_loadl_epi64((const __m128i *)(p))
#  define SB_WIDEN_IN_8_64(p)  sb_load_bytes(p, 4)
#elif SB_VEC_BYTES == 16 && defined(__SSE2__)
/* SSE2 has no widening loads (GCC compiled the generic conversion to i64
 * one element at a time): each step doubles the width by an unpack with
 * the sign (an arithmetic shift) or with zeros. */
#  define SB_WIDEN_LOAD__(e, from, to, p)                                   \
    sb_widen_##from##_##to((p), SB_WIDEN_SIGNED_##e)
#  define SB_WIDEN_SIGNED_i 1
#  define SB_WIDEN_SIGNED_u 0
static inline __m128i sb_ext_8_16(__m128i v, int sign)
{
    return sign ? _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8)
                : _mm_unpacklo_epi8(v, _mm_setzero_si128());
}
static inline __m128i sb_ext_16_32(__m128i v, int sign)
{
    return sign ? _mm_srai_epi32(_mm_unpacklo_epi16(v, v), 16)
                : _mm_unpacklo_epi16(v, _mm_setzero_si128());
}
static inline __m128i sb_ext_32_64(__m128i v, int sign)
{
    return _mm_unpacklo_epi32(v, sign ? _mm_srai_epi32(v, 31)
                                      : _mm_setzero_si128());
}
#  define sb_widen_32_64(p, s)                                              \
    sb_ext_32_64(_mm_loadl_epi64((const __m128i *)(p)), s)
#  define sb_widen_16_32(p, s)                                              \
    sb_ext_16_32(_mm_loadl_epi64((const __m128i *)(p)), s)
#  define sb_widen_16_64(p, s)                                              \
    sb_ext_32_64(sb_ext_16_32(sb_load_bytes(p, 4), s), s)
#  define sb_widen_8_32(p, s)                                               \
    sb_ext_16_32(sb_ext_8_16(sb_load_bytes(p, 4), s), s)
#  define sb_widen_8_64(p, s)                                               \
    sb_ext_32_64(sb_ext_16_32(sb_ext_8_16(sb_load_bytes(p, 2), s), s), s)
#endif
/* The integer blocks below (widenings, masked 8- and 16-bit integers,
 * maps and dot products) are x86's only: elsewhere (GCC's generic vectors
 * on aarch64) they take sb__prepare() and the element by element folds. */
#if defined(SB_WIDEN_LOAD__) && defined(MASKED_INT_KEEP)
#define SB_HAVE_INT_WIDE_BLOCKS 1
/* The lanes a block of IT is folded in, widened as it loads: 32 bits for
 * 8- and 16-bit IT, whose block sums fit (4096 elements of less than
 * 2^16 in magnitude: under 2^28), twice the elements a register of 64-bit
 * lanes takes; 64 for 32-bit IT (u32 zero-extended: the bits of u64 and
 * i64 alike). */
#define SB_WIDE_LANES_i8  i32
#define SB_WIDE_LANES_u8  i32
#define SB_WIDE_LANES_i16 i32
#define SB_WIDE_LANES_u16 i32
#define SB_WIDE_LANES_i32 i64
#define SB_WIDE_LANES_u32 u64
/* wide_fold_IT_op: the sum (min, max) of a full block of IT at x into
 * MT = SB_WIDE_LANES_IT, each register's load widened and added into (or
 * picked with) one of OF_ACCS running values. With a mask, each element
 * that does not take part is replaced in registers by FILL, the step's
 * identity; returns whether any took part. In any order: a sum's exact,
 * min and max order-free. */
#define DEFINE_WIDE_FOLD(it, op, VSTEP, STEP, FILL)                         \
    DEFINE_WIDE_FOLD_(it, SB_WIDE_LANES_##it, op, VSTEP, STEP, FILL)
#define DEFINE_WIDE_FOLD_(it, mt, op, VSTEP, STEP, FILL)                    \
    DEFINE_WIDE_FOLD__(it, mt, op, VSTEP, STEP, FILL)
#define DEFINE_WIDE_FOLD__(it, mt, op, VSTEP, STEP, FILL)                   \
typedef sb__ctype_##mt it##_##op##_wv                                       \
    __attribute__((vector_size(SB_VEC_BYTES)));                             \
static inline __attribute__((always_inline)) bool                           \
wide_fold_##it##_##op(const sb__ctype_##it *x, const unsigned char *mask,   \
                      size_t prefetch, sb__ctype_##mt *r)                   \
{                                                                           \
    typedef sb__ctype_##mt MT;                                              \
    typedef it##_##op##_wv V;                                               \
    _Static_assert(SB_BLOCK_SIZE <= 4096 &&                                 \
                   sizeof(MT) >= sizeof(*x) + 2,                            \
                   "a block's sum fits the lanes");                        \
    enum { LANES = SB_VEC_BYTES / sizeof(MT), STRIDE = OF_ACCS * LANES };   \
    const V fill = (V){ 0 } + (MT)(FILL);                                   \
    V a[OF_ACCS];                                                           \
    for (int k = 0; k < OF_ACCS; k++) a[k] = fill;                          \
    MASKED_LANES_T(sb_vi64) any = MASKED_LANES_NONE(sb_vi64);               \
    for (int i = 0; i < SB_BLOCK_SIZE; i += STRIDE) {                       \
        prefetch_ahead(x + i, STRIDE * sizeof *x, prefetch);                \
        if (mask != NULL)                                                   \
            prefetch_ahead(mask + i, STRIDE, prefetch / sizeof *x);         \
        for (int k = 0; k < OF_ACCS; k++) {                                 \
            V e = (V)SB_WIDEN_LOAD(it, mt, x + i + k * LANES);              \
            SB_LOAD_IN_ORDER(e);                                            \
            if (mask != NULL) {                                             \
                const MASKED_LANES_T(sb_vi64) keep =                        \
                    MASKED_INT_KEEP(MT, mask + i + k * LANES);              \
                any |= keep;                                                \
                e = MASKED_SELECT(V, sb_vi64, keep, e, fill);               \
            }                                                               \
            VSTEP(a[k], e);                                                 \
        }                                                                   \
    }                                                                       \
    for (int k = 1; k < OF_ACCS; k++) VSTEP(a[0], a[k]);                    \
    MT v = a[0][0];                                                         \
    for (int l = 1; l < LANES; l++) STEP(v, a[0][l]);                       \
    *r = v;                                                                 \
    return mask == NULL || MASKED_LANES_ANY(any);                           \
}
DEFINE_WIDE_FOLD(i8,  sum, OF_VADD, STEP_PLAIN_ADD, 0)
DEFINE_WIDE_FOLD(u8,  sum, OF_VADD, STEP_PLAIN_ADD, 0)
DEFINE_WIDE_FOLD(i16, sum, OF_VADD, STEP_PLAIN_ADD, 0)
DEFINE_WIDE_FOLD(u16, sum, OF_VADD, STEP_PLAIN_ADD, 0)
DEFINE_WIDE_FOLD(i32, sum, OF_VADD, STEP_PLAIN_ADD, 0)
DEFINE_WIDE_FOLD(u32, sum, OF_VADD, STEP_PLAIN_ADD, 0)
#define DEFINE_WIDE_PICKS(it)                                               \
    DEFINE_WIDE_FOLD(it, min, OF_VMIN, PICK_MIN, SB_INT_LARGEST_##it)       \
    DEFINE_WIDE_FOLD(it, max, OF_VMAX, PICK_MAX, SB_INT_SMALLEST_##it)
DEFINE_WIDE_PICKS(i8)
DEFINE_WIDE_PICKS(u8)
DEFINE_WIDE_PICKS(i16)
DEFINE_WIDE_PICKS(u16)
/* The masked min or max (op) of a full block of IT: IT's own for 32-bit
 * IT (NAME_whole_masked), which takes twice the lanes of the widened
 * ones, else widened to 32 bits as it loads. false: none here. */
#define WIDE_PICK_MASKED(it, op, x, mask, prefetch, m, has)                 \
    SB_CAT(WIDE_PICK_MASKED_, SB_INT_BITS_##it)(it, op, x, mask, prefetch,  \
                                                m, has)
#define WIDE_PICK_MASKED_32(it, op, x, mask, prefetch, m, has)              \
    sb__ctype_##it m;                                                       \
    if (mask == NULL) {                                                     \
        has = it##_##op##_whole(x, prefetch, &m);                           \
    } else if (!it##_##op##_whole_masked(x, mask, prefetch, &m, &has)) {    \
        return false;                                                       \
    }
#define WIDE_PICK_MASKED_16(it, op, x, mask, prefetch, m, has)              \
    sb__ctype_i32 m;                                                        \
    has = wide_fold_##it##_##op(x, mask, prefetch, &m);
#define WIDE_PICK_MASKED_8 WIDE_PICK_MASKED_16
/* NAME_whole_masked (as DEFINE_MASKED_WHOLE's) of 8- or 16-bit IT
 * (elements of T: IT or its unsigned type) by wide_fold_IT_op, its node
 * narrowed: min and max are in range, and a wrapping sum is the exact
 * sum modulo 2^8 or 2^16, whatever the order. */
#define DEFINE_SMALL_MASKED_WHOLE(NAME, it, T, op)                          \
enum { NAME##_whole_masked_prefetches = SB_PREFETCH_MASKED };               \
static bool NAME##_whole_masked(const T *x, const unsigned char *mask,      \
                                size_t prefetch, T *node, bool *has)        \
{                                                                           \
    sb__ctype_i32 r;                                                        \
    *has = wide_fold_##it##_##op((const sb__ctype_##it *)(const void *)x,   \
                                 mask, prefetch, &r);                       \
    *node = (T)r;                                                           \
    return true;                                                            \
}
#endif
#endif
#ifndef SB_HAVE_INT_WIDE_BLOCKS
#define DEFINE_SMALL_MASKED_WHOLE(NAME, it, T, op) DEFINE_NO_MASKED_WHOLE(NAME)
#endif

/* Wrapping integers: signed accumulators use the unsigned type of the same
 * width; two's complement makes the bits identical and avoids signed
 * overflow, which C leaves undefined. */
#define DEFINE_INT_KERNELS(tag, T, UT, UFIELD, OFFSET)                      \
    DEFINE_SMALL_SUM_WHOLE(tag##_csum, T, UT, OFFSET, sizeof(T) * 8 - 12)   \
    DEFINE_ORDER_FREE_WHOLE(tag##_wsum, UT, STEP_PLAIN_ADD, OF_VADD)                 \
    DEFINE_ORDER_FREE_WHOLE(tag##_wprod, UT, STEP_PLAIN_MUL, OF_VMUL)                \
    DEFINE_MASKED_WHOLE(tag##_csum, T, UT, STEP_PLAIN_ADD, OF_VADD, 0,      \
                        OFFSET, sizeof(T) * 8 - 12, 1)                      \
    DEFINE_MASKED_WHOLE(tag##_wsum, UT, UT, STEP_PLAIN_ADD, OF_VADD, 0,     \
                        0, 0, 0)                                            \
    DEFINE_MASKED_WHOLE(tag##_wprod, UT, UT, STEP_PLAIN_MUL, OF_VMUL, 1,    \
                        0, 0, 0)                                            \
    DEFINE_FOLD_KERNEL(tag##_csum,  T,  tag,    0, 0, STEP_CHECKED_ADD, SCALAR_FULL_FOLD, tag##_csum_whole) \
    DEFINE_FOLD_KERNEL(tag##_cprod, T,  tag,    1, 1, STEP_CHECKED_MUL, SCALAR_FULL_FOLD, NO_WHOLE) \
    DEFINE_FOLD_KERNEL(tag##_wsum,  UT, UFIELD, 0, 0, STEP_PLAIN_ADD, SCALAR_FULL_FOLD, tag##_wsum_whole) \
    DEFINE_FOLD_KERNEL(tag##_wprod, UT, UFIELD, 1, 1, STEP_PLAIN_MUL, SCALAR_FULL_FOLD, tag##_wprod_whole)

/* 8/16-bit operands promote to int, and the product of two uint16_t can
 * overflow int (undefined). So their wrapping steps compute in uint32_t
 * and truncate, which is the same value modulo 2^8 or 2^16. (Their checked
 * sums have no useful small range: every block takes the checked fold.) */
#define STEP_U32_ADD(a, b) ((a) = (__typeof__(a))((uint32_t)(a) + (uint32_t)(b)))
#define STEP_U32_MUL(a, b) ((a) = (__typeof__(a))((uint32_t)(a) * (uint32_t)(b)))

#define DEFINE_SMALL_INT_KERNELS(tag, T, UT, UFIELD)                        \
    DEFINE_ORDER_FREE_WHOLE(tag##_wsum, UT, STEP_U32_ADD, OF_VADD)                   \
    DEFINE_ORDER_FREE_WHOLE(tag##_wprod, UT, STEP_U32_MUL, OF_VMUL)                  \
    DEFINE_SMALL_MASKED_WHOLE(tag##_wsum, tag, UT, sum)                     \
    DEFINE_NO_MASKED_WHOLE(tag##_wprod)                                     \
    DEFINE_FOLD_KERNEL(tag##_csum,  T,  tag,    0, 0, STEP_CHECKED_ADD, SCALAR_FULL_FOLD, NO_WHOLE) \
    DEFINE_FOLD_KERNEL(tag##_cprod, T,  tag,    1, 1, STEP_CHECKED_MUL, SCALAR_FULL_FOLD, NO_WHOLE) \
    DEFINE_FOLD_KERNEL(tag##_wsum,  UT, UFIELD, 0, 0, STEP_U32_ADD, SCALAR_FULL_FOLD, tag##_wsum_whole) \
    DEFINE_FOLD_KERNEL(tag##_wprod, UT, UFIELD, 1, 1, STEP_U32_MUL, SCALAR_FULL_FOLD, tag##_wprod_whole)

DEFINE_SMALL_INT_KERNELS(i8,  int8_t,   uint8_t,  u8)
DEFINE_SMALL_INT_KERNELS(u8,  uint8_t,  uint8_t,  u8)
DEFINE_SMALL_INT_KERNELS(i16, int16_t,  uint16_t, u16)
DEFINE_SMALL_INT_KERNELS(u16, uint16_t, uint16_t, u16)
DEFINE_INT_KERNELS(i32, int32_t,  uint32_t, u32, UINT32_C(1) << 19)
DEFINE_INT_KERNELS(u32, uint32_t, uint32_t, u32, 0)
DEFINE_INT_KERNELS(i64, int64_t,  uint64_t, u64, UINT64_C(1) << 51)
DEFINE_INT_KERNELS(u64, uint64_t, uint64_t, u64, 0)

/* MINMAX_PAIR_<is float>. */
#define MINMAX_PAIR_0(tag, T)                                               \
    DEFINE_ORDER_FREE_WHOLE(tag##_min, T, PICK_MIN, OF_VMIN)                         \
    DEFINE_ORDER_FREE_WHOLE(tag##_max, T, PICK_MAX, OF_VMAX)                         \
    SB_CAT(MASKED_PICK_WHOLE_, SB_INT_BITS_##tag)(tag, T)                  \
    DEFINE_MINMAX_KERNEL(tag##_min, T, tag, BETTER_MIN, PICK_MIN, SCALAR_FULL_PICK, tag##_min_whole) \
    DEFINE_MINMAX_KERNEL(tag##_max, T, tag, BETTER_MAX, PICK_MAX, SCALAR_FULL_PICK, tag##_max_whole)
/* The masked min and max of a full integer block (MINMAX_PAIR_0), by
 * width: 8 and 16 bits widened as they load. */
#define MASKED_PICK_WHOLE_8(tag, T)                                         \
    DEFINE_SMALL_MASKED_WHOLE(tag##_min, tag, T, min)                       \
    DEFINE_SMALL_MASKED_WHOLE(tag##_max, tag, T, max)
#define MASKED_PICK_WHOLE_16 MASKED_PICK_WHOLE_8
#define MASKED_PICK_WHOLE_32(tag, T)                                        \
    DEFINE_MASKED_WHOLE(tag##_min, T, T, PICK_MIN, OF_VMIN,                 \
                        SB_INT_LARGEST_##tag, 0, 0, 0)                      \
    DEFINE_MASKED_WHOLE(tag##_max, T, T, PICK_MAX, OF_VMAX,                 \
                        SB_INT_SMALLEST_##tag, 0, 0, 0)
#define MASKED_PICK_WHOLE_64 MASKED_PICK_WHOLE_32
#define MINMAX_PAIR_1(tag, T)                                               \
    DEFINE_MINMAX_KERNEL(tag##_min, T, tag, BETTER_MIN, PICK_MIN, FULL_PICK(tag##_min), NO_WHOLE) \
    DEFINE_MINMAX_KERNEL(tag##_max, T, tag, BETTER_MAX, PICK_MAX, FULL_PICK(tag##_max), NO_WHOLE)
#ifdef SB_HAVE_SHUFFLE
#  define FULL_PICK(tag) FULL_PICK_(tag)
#  define FULL_PICK_(tag) VECTOR_FULL_PICK_##tag
#  define VECTOR_FULL_PICK_f32_min(x, v, B, P)                              \
    VFOLD_NODES(vpick_f32_min, sb_vf, F32_LANES, x, v, 0, VCOMBINE_F32_MIN)
#  define VECTOR_FULL_PICK_f32_max(x, v, B, P)                              \
    VFOLD_NODES(vpick_f32_max, sb_vf, F32_LANES, x, v, 0, VCOMBINE_F32_MAX)
#  define VECTOR_FULL_PICK_f64_min(x, v, B, P)                              \
    VFOLD_NODES(vpick_f64_min, sb_vd, F64_LANES, x, v, 0, VCOMBINE_F64_MIN)
#  define VECTOR_FULL_PICK_f64_max(x, v, B, P)                              \
    VFOLD_NODES(vpick_f64_max, sb_vd, F64_LANES, x, v, 0, VCOMBINE_F64_MAX)
#else
#  define FULL_PICK(tag) SCALAR_FULL_PICK
#endif

#define SB_MINMAX_INSTANCE_(e, tag, ctype, f, s, cl) MINMAX_PAIR_##f(tag, ctype)
SB_TYPE_LIST(SB_MINMAX_INSTANCE_)
#undef SB_MINMAX_INSTANCE_

#ifdef SB_HAVE_INT_WIDE_BLOCKS
/* ---- full blocks of integers into a wider integer --------------------------
 *
 * Sums, min and max of a full block of IT, with a mask or not, into the
 * wider AT (i32 into i64, u16 into i32, ...; SB_WIDENING_LIST) from the
 * input as it is stored. A block's sum cannot leave AT: 4096 elements of
 * IT add up to less than 2^12 times IT's largest, and AT has at least 16
 * bits more. So, checked or wrapping, its node is the exact sum, in any
 * order: wide_fold_IT_sum. Unmasked min and max are IT's own order-free
 * folds, their node widened; masked, WIDE_PICK_MASKED. The unmasked ones
 * used to take sb__prepare() (widened into a buffer,
 * then folded): against that, one thread, medians of 3 A/B runs, AMD EPYC
 * Zen 5, i32 sums into i64 2.1x from memory (2^27) and 2.5x in cache
 * (2^20) on AVX-512, 2.4x and 3.3x on AVX2, 3.0x and 2.2x on SSE2; i32
 * min into i64 1.9x, 3.4x and 5.1x from memory; u8 sums into i64 3.9x
 * and 4.6x, but 1.6x on SSE2, whose loads of two bytes are too small. */
#define DEFINE_INT_WIDE_BLOCKS(it, ac)                                      \
static bool it##_##ac##_sum_block_map(const void *xv, const void *yv,       \
                                      sb_map map, size_t prefetch,          \
                                      sb__node *out)                        \
{                                                                           \
    SB_CAT(sb__ctype_, SB_WIDE_LANES_##it) sum;                             \
    (void)yv;                                                               \
    (void)map;                                                              \
    (void)wide_fold_##it##_sum(xv, NULL, prefetch, &sum);                   \
    out->v.ac = (sb__ctype_##ac)sum;                                        \
    out->has = true;                                                        \
    return true;                                                            \
}                                                                           \
static bool it##_##ac##_sum_masked_block(const void *xv,                    \
                                         const unsigned char *mask,         \
                                         size_t prefetch, sb__node *out)    \
{                                                                           \
    SB_CAT(sb__ctype_, SB_WIDE_LANES_##it) sum;                             \
    out->has = wide_fold_##it##_sum(xv, mask, prefetch, &sum);              \
    out->v.ac = (sb__ctype_##ac)sum;                                        \
    return true;                                                            \
}                                                                           \
DEFINE_INT_WIDE_PICK(it, ac, min)                                           \
DEFINE_INT_WIDE_PICK(it, ac, max)
/* min or max (op) of IT's own order-free fold, its node widened. */
#define DEFINE_INT_WIDE_PICK(it, ac, op)                                    \
static bool it##_##ac##_##op##_block_map(const void *xv, const void *yv,    \
                                         sb_map map, size_t prefetch,       \
                                         sb__node *out)                     \
{                                                                           \
    sb__ctype_##it m;                                                       \
    (void)yv;                                                               \
    (void)map;                                                              \
    it##_##op##_whole(xv, prefetch, &m);                                    \
    out->v.ac = m;                                                          \
    out->has = true;                                                        \
    return true;                                                            \
}                                                                           \
static bool it##_##ac##_##op##_masked_block(const void *xv,                 \
                                            const unsigned char *mask,      \
                                            size_t prefetch, sb__node *out) \
{                                                                           \
    bool has;                                                               \
    WIDE_PICK_MASKED(it, op, xv, mask, prefetch, m, has)                    \
    out->v.ac = m;                                                          \
    out->has = has;                                                         \
    return true;                                                            \
}
#define SB_INT_WIDE_BLOCKS_(it, ac) SB_CAT(SB_INT_WIDE_, SB_IS_INT_##ac)(it, ac)
#define SB_INT_WIDE_1(it, ac) DEFINE_INT_WIDE_BLOCKS(it, ac)
#define SB_INT_WIDE_0(it, ac)
#define SB_IS_INT_i32 1
#define SB_IS_INT_i64 1
#define SB_IS_INT_u32 1
#define SB_IS_INT_u64 1
#define SB_IS_INT_f32 0
#define SB_IS_INT_f64 0
SB_WIDENING_LIST(SB_INT_WIDE_BLOCKS_)

/* NAME(plan): the block of an integer widening with no map, product of
 * two arrays or argmin, whose function names end in SB_INT_WIDE_SUFFIX:
 * sum (checked or wrapping: the same node), min or max; NULL otherwise.
 * SB_SKIP_NAN changes nothing for integers. */
#define DEFINE_INT_WIDE_LOOKUP(NAME, FN_T)                                  \
static FN_T NAME(const sb__plan *plan)                                      \
{                                                                           \
    if (plan->dot || plan->map != SB_MAP_NONE || plan->arg)                 \
        return NULL;                                                        \
    SB_WIDENING_LIST(SB_INT_WIDE_PICK_)                                     \
    return NULL;                                                            \
}
#define SB_INT_WIDE_PICK_(it, ac)                                           \
    SB_CAT(SB_INT_WIDE_PICK_, SB_IS_INT_##ac)(it, ac)
#define SB_INT_WIDE_PICK_0(it, ac)
#define SB_INT_WIDE_PICK_1(it, ac)                                          \
    if (plan->input == (sb_type)SB__T_##it &&                               \
        plan->acc == (sb_type)SB__T_##ac)                                   \
        switch (plan->op) {                                                 \
        case SB_SUM: return SB_CAT(it##_##ac##_sum, SB_INT_WIDE_SUFFIX);     \
        case SB_MIN: return SB_CAT(it##_##ac##_min, SB_INT_WIDE_SUFFIX);     \
        case SB_MAX: return SB_CAT(it##_##ac##_max, SB_INT_WIDE_SUFFIX);     \
        default:     return NULL;                                           \
        }
#define SB_INT_WIDE_SUFFIX _block_map
DEFINE_INT_WIDE_LOOKUP(int_wide_block_map, sb__block_map_fn)
#undef SB_INT_WIDE_SUFFIX
#define SB_INT_WIDE_SUFFIX _masked_block
DEFINE_INT_WIDE_LOOKUP(int_wide_masked_block, sb__masked_block_fn)
#undef SB_INT_WIDE_SUFFIX
#undef SB_INT_WIDE_PICK_0
#undef SB_INT_WIDE_PICK_1
#undef SB_INT_WIDE_PICK_
#endif

#ifdef SB_HAVE_INT_WIDE_BLOCKS
/* ---- integer maps and dot products ----------------------------------------
 *
 * |x| and x^2 (sum, min, max) and x * y (sum) of a full block of IT into
 * AT, the same type (32 or 64 bits) or a wider one, from the input as it
 * is stored; maps with a mask too (dot products with one take
 * sb__prepare()). Where every element e of the block has -2^L <= e <
 * 2^L (0 <= e < 2^L unsigned), L per map and op (INT_MAP_L_) so that no
 * map, product or partial sum of the block can leave AT, every order
 * gives the block's exact node, and a checked fold has nothing to
 * report: the block is an order-free sum or pick, as NAME_whole's.
 * Outside that window the fold gives up, false, and the block takes
 * sb__prepare() and the kernel, which check each step in the order (a
 * block read twice: values that large overflow a sum within a few
 * blocks). Wrapping plans, whose values need not be small, keep
 * sb__prepare(). Sums add in AT's unsigned type, so that nothing
 * overflows before the window is known.
 * They took sb__prepare() always: the mapped block written to the stack,
 * then folded from there. Against that, one thread, medians of 3 A/B
 * runs, AMD EPYC Zen 5: i32 sums of |x| 11.7x in cache (2^20) on
 * AVX-512, 8.5x on AVX2, 5.5x on SSE2; i64 sums of x^2 2.7x, 2.4x, 2.3x
 * from memory (2^27); i32 into i64 dot products 1.75x and 1.29x in
 * cache. */
#define SB_INT_SIGNED_i32 1
#define SB_INT_SIGNED_u32 0
#define SB_INT_SIGNED_i64 1
#define SB_INT_SIGNED_u64 0
#define SB_INT_UNSIGNED_i32 uint32_t
#define SB_INT_UNSIGNED_u32 uint32_t
#define SB_INT_UNSIGNED_i64 uint64_t
#define SB_INT_UNSIGNED_u64 uint64_t
/* L, the window's log2, for AT of B bits, signed (S 1) or not: a sum of
 * 4096 = 2^12 terms of at most 2^L (|x|) or 2^2L (x^2, x * y) stays below
 * 2^(B-1) signed, 2^B unsigned; a min or max needs the one map in range.
 * |x| has no window (L = B): it leaves a signed AT for AT's minimum
 * alone, whose |x| wraps to itself, negative, which the fold looks for
 * instead (ABS_PICK); a window of 2^(B-2) gave up on blocks of random
 * 32-bit values. */
#define INT_MAP_L_abs_sum(S, B)    ((S) ? (B) - 14 : (B) - 12)
#define INT_MAP_L_square_sum(S, B) ((S) ? ((B) - 14) / 2 : ((B) - 12) / 2)
#define INT_MAP_L_dot_sum          INT_MAP_L_square_sum
#define INT_MAP_L_abs_pick(S, B)   (B)
#define INT_MAP_L_square_pick(S, B) ((S) ? ((B) - 2) / 2 : (B) / 2)
/* The map of the lanes e (and f, y's) in AT's unsigned type, X: i or u
 * as IT is signed or not: |e| as (e ^ s) - s with s e's sign spread over
 * the lane (0 for unsigned AT). */
#define INT_MAP_abs(S, V, VU, e, f, X)                                      \
    ((S) ? ((e) ^ (VU)((V)(e) >> (sizeof((e)[0]) * 8 - 1))) -              \
           (VU)((V)(e) >> (sizeof((e)[0]) * 8 - 1))                         \
         : (e))
#define INT_MAP_square(S, V, VU, e, f, X) INT_MAP_MUL(VU, e, e, X)
#define INT_MAP_dot(S, V, VU, e, f, X)    INT_MAP_MUL(VU, e, f, X)
/* A product of 64-bit lanes that hold an input of 32 bits or less,
 * widened (INT_MAP_NARROW): x86's 32 x 32 -> 64-bit multiply of the low
 * halves (vpmuldq, vpmuludq as the input is signed or not), where GCC 12
 * spelled out a 64-bit multiply in three (AVX2 i32 into i64 dot products
 * in cache ran at 0.79 of sb__prepare()'s that way). */
#define INT_MAP_MUL(VU, a, b, X)                                            \
    (INT_MAP_NARROW ? (VU)SB_CAT(INT_MUL32_, X)(a, b) : (a) * (b))
#if SB_VEC_BYTES == 64
#  define INT_MUL32_i(a, b) _mm512_mul_epi32((__m512i)(a), (__m512i)(b))
#  define INT_MUL32_u(a, b) _mm512_mul_epu32((__m512i)(a), (__m512i)(b))
#elif SB_VEC_BYTES == 32
#  define INT_MUL32_i(a, b) _mm256_mul_epi32((__m256i)(a), (__m256i)(b))
#  define INT_MUL32_u(a, b) _mm256_mul_epu32((__m256i)(a), (__m256i)(b))
#else   /* SSE2: unsigned only (pmuldq is SSE4.1) */
#  define INT_MUL32_i(a, b) ((a) * (b))
#  define INT_MUL32_u(a, b) _mm_mul_epu32((__m128i)(a), (__m128i)(b))
#endif
/* The next register of AT lanes at p: loaded as they are (IT is AT) or
 * widened (SB_WIDEN_LOAD). */
#define INT_MAP_LOAD_SAME(it, ac, p) (*(const VIN *)(p))
#define INT_MAP_LOAD_WIDE(it, ac, p) ((V)SB_WIDEN_LOAD(it, ac, p))
/* it_ac_kind_op_fold: the node of a full block of IT at x (y: the other
 * factor of a dot product, or NULL) into AT, with a mask or NULL: KIND
 * abs, square or dot, OP sum or pick (min or max by VSTEP, STEP, FILL). */
#define DEFINE_INT_MAP_FOLD(it, ac, LOAD, KIND, OP, NAME, VSTEP, STEP, FILL) \
static inline __attribute__((always_inline)) bool                           \
it##_##ac##_##NAME##_fold(const sb__ctype_##it *x,                          \
                                      const sb__ctype_##it *y,              \
                                      const unsigned char *mask,            \
                                      size_t prefetch, sb__node *out)       \
{                                                                           \
    typedef sb__ctype_##ac AT;                                              \
    typedef SB_INT_UNSIGNED_##ac UT;                                        \
    typedef AT V __attribute__((vector_size(SB_VEC_BYTES), unused));        \
    typedef UT VU __attribute__((vector_size(SB_VEC_BYTES)));               \
    typedef AT VIN __attribute__((vector_size(SB_VEC_BYTES), unused,        \
                                  aligned(sizeof(AT)), may_alias));         \
    /* Sums in UT's lanes (they wrap), picks in AT's (signed compares). */  \
    typedef __typeof__(SB_CAT(INT_MAP_ACC_, OP)(V, VU)) A;                  \
    enum { LANES = SB_VEC_BYTES / sizeof(AT), STRIDE = OF_ACCS * LANES,     \
           B = sizeof(AT) * 8, S = SB_INT_SIGNED_##ac,                      \
           WL = INT_MAP_L_##KIND##_##OP(S, B),                              \
           /* IT's own range inside the window: nothing to check */     \
           CHECK = WL < (int)sizeof(*x) * 8, SHIFT = CHECK ? WL + S : 0,    \
           /* |x| of AT's minimum: in a signed AT as wide as IT */          \
           ABS_PICK = INT_MAP_IS_ABS_PICK_##KIND##_##OP && S &&             \
                      sizeof(*x) == sizeof(AT),                             \
           INT_MAP_NARROW = sizeof(*x) <= 4 && sizeof(AT) == 8 };           \
    const UT offset = S && CHECK ? (UT)1 << (CHECK ? SHIFT - 1 : 0) : 0;    \
    const A fill = (A){ 0 } + (AT)(FILL);                                   \
    A a[OF_ACCS];                                                           \
    for (int k = 0; k < OF_ACCS; k++) a[k] = fill;                          \
    VU bits = { 0 };                                                        \
    MASKED_LANES_T(sb_vi64) any = MASKED_LANES_NONE(sb_vi64);               \
    for (int i = 0; i < SB_BLOCK_SIZE; i += STRIDE) {                       \
        prefetch_ahead(x + i, STRIDE * sizeof *x, prefetch);                \
        if (y != NULL)                                                      \
            prefetch_ahead(y + i, STRIDE * sizeof *y, prefetch);            \
        if (mask != NULL)                                                   \
            prefetch_ahead(mask + i, STRIDE, prefetch / sizeof *x);         \
        for (int k = 0; k < OF_ACCS; k++) {                                 \
            VU e = (VU)LOAD(it, ac, x + i + k * LANES);                     \
            SB_LOAD_IN_ORDER(e);                                            \
            VU f = e;                                                       \
            if (y != NULL) {                                                \
                f = (VU)LOAD(it, ac, y + i + k * LANES);                    \
                SB_LOAD_IN_ORDER(f);                                        \
            }                                                               \
            MASKED_LANES_T(sb_vi64) keep = MASKED_LANES_NONE(sb_vi64);      \
            if (mask != NULL) {                                             \
                keep = MASKED_INT_KEEP(AT, mask + i + k * LANES);           \
                any |= keep;                                                \
                e = MASKED_SELECT(VU, sb_vi64, keep, e, (VU){ 0 });         \
                f = y != NULL ? MASKED_SELECT(VU, sb_vi64, keep, f, (VU){ 0 }) \
                              : e;                                          \
            }                                                               \
            if (CHECK)                                                      \
                bits |= (e + offset) | (f + offset);                        \
            A m = (A)INT_MAP_##KIND(S, V, VU, e, f, SB_INT_EXT_##it);       \
            if (ABS_PICK)                                                   \
                bits |= (VU)m;                                              \
            if (mask != NULL && SB_CAT(INT_MAP_IS_PICK_, OP))               \
                m = MASKED_SELECT(A, sb_vi64, keep, m, fill);               \
            VSTEP(a[k], m);                                                 \
        }                                                                   \
    }                                                                       \
    if (CHECK || ABS_PICK) {                                                \
        const VU seen = bits >> (ABS_PICK ? B - 1 : SHIFT);                 \
        if (memcmp(&seen, &(VU){ 0 }, sizeof seen) != 0)                    \
            return false;                                                   \
    }                                                                       \
    for (int k = 1; k < OF_ACCS; k++) VSTEP(a[0], a[k]);                    \
    __typeof__(a[0][0]) r = a[0][0];                                        \
    for (int l = 1; l < LANES; l++) STEP(r, a[0][l]);                       \
    out->v.ac = (AT)r;   /* in the window: the exact node */                \
    out->has = mask == NULL || MASKED_LANES_ANY(any);                       \
    return true;                                                            \
}
#define INT_MAP_ACC_sum(V, VU)  (VU){ 0 }
#define INT_MAP_ACC_pick(V, VU) (V){ 0 }
#define INT_MAP_IS_PICK_sum  0
#define INT_MAP_IS_PICK_pick 1
#define INT_MAP_IS_ABS_PICK_abs_pick    1
#define INT_MAP_IS_ABS_PICK_abs_sum     0
#define INT_MAP_IS_ABS_PICK_square_pick 0
#define INT_MAP_IS_ABS_PICK_square_sum  0
#define INT_MAP_IS_ABS_PICK_dot_sum     0
/* Every fold of the pair, and the block functions the lookups return:
 * it_ac_NAME_block_map (unmasked, dot products too) and
 * it_ac_NAME_masked_block (maps with a mask). */
#define DEFINE_INT_MAP_FOLDS(it, ac, LOAD)                                  \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, abs, sum, abs_sum, OF_VADD,           \
                        STEP_PLAIN_ADD, 0)                                  \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, square, sum, square_sum, OF_VADD,     \
                        STEP_PLAIN_ADD, 0)                                  \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, dot, sum, dot_sum, OF_VADD,           \
                        STEP_PLAIN_ADD, 0)                                  \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, abs, pick, abs_min, OF_VMIN,          \
                        PICK_MIN, SB_INT_LARGEST_##ac)                      \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, abs, pick, abs_max, OF_VMAX,          \
                        PICK_MAX, SB_INT_SMALLEST_##ac)                     \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, square, pick, square_min, OF_VMIN,    \
                        PICK_MIN, SB_INT_LARGEST_##ac)                      \
    DEFINE_INT_MAP_FOLD(it, ac, LOAD, square, pick, square_max, OF_VMAX,    \
                        PICK_MAX, SB_INT_SMALLEST_##ac)                     \
    INT_MAP_BLOCKS(it, ac, abs_sum)                                         \
    INT_MAP_BLOCKS(it, ac, square_sum)                                      \
    INT_MAP_BLOCKS(it, ac, abs_min)                                         \
    INT_MAP_BLOCKS(it, ac, abs_max)                                         \
    INT_MAP_BLOCKS(it, ac, square_min)                                      \
    INT_MAP_BLOCKS(it, ac, square_max)                                      \
static bool it##_##ac##_dot_sum_block_map(const void *x, const void *y,     \
                                          sb_map map, size_t prefetch,      \
                                          sb__node *out)                    \
{                                                                           \
    (void)map;                                                              \
    return it##_##ac##_dot_sum_fold(x, y, NULL, prefetch, out);             \
}
#define INT_MAP_BLOCKS(it, ac, NAME)                                        \
static bool it##_##ac##_##NAME##_block_map(const void *x, const void *y,    \
                                           sb_map map, size_t prefetch,     \
                                           sb__node *out)                   \
{                                                                           \
    (void)y;                                                                \
    (void)map;                                                              \
    return it##_##ac##_##NAME##_fold(x, NULL, NULL, prefetch, out);         \
}                                                                           \
static bool it##_##ac##_##NAME##_masked_block(const void *x,                \
                                              const unsigned char *mask,    \
                                              size_t prefetch,              \
                                              sb__node *out)                \
{                                                                           \
    return it##_##ac##_##NAME##_fold(x, NULL, mask, prefetch, out);         \
}
#define INT_MAP_SAME_(e, tag, ctype, f, s, cl)                              \
    SB_CAT(INT_MAP_SAME_, SB_INT_BITS_##tag)(tag)
#define INT_MAP_SAME_8(tag)
#define INT_MAP_SAME_16(tag)
#define INT_MAP_SAME_32(tag) DEFINE_INT_MAP_FOLDS(tag, tag, INT_MAP_LOAD_SAME)
#define INT_MAP_SAME_64 INT_MAP_SAME_32
#define INT_MAP_WIDE_(it, ac) SB_CAT(INT_MAP_WIDE_, SB_IS_INT_##ac)(it, ac)
#define INT_MAP_WIDE_0(it, ac)
#define INT_MAP_WIDE_1(it, ac) DEFINE_INT_MAP_FOLDS(it, ac, INT_MAP_LOAD_WIDE)
INT_MAP_SAME_(0, i32, 0, 0, 0, 0)
INT_MAP_SAME_(0, u32, 0, 0, 0, 0)
INT_MAP_SAME_(0, i64, 0, 0, 0, 0)
INT_MAP_SAME_(0, u64, 0, 0, 0, 0)
SB_WIDENING_LIST(INT_MAP_WIDE_)

/* NAME(plan): the block of a checked integer plan with a map (sum, min,
 * max) or a dot product (sum: SB_INT_MAP_DOT), of 32- or 64-bit integers
 * into their own type or of any integer into a wider one, whose function
 * names end in SB_INT_WIDE_SUFFIX; NULL otherwise. */
#define DEFINE_INT_MAP_LOOKUP(NAME, FN_T)                                   \
static FN_T NAME(const sb__plan *plan)                                      \
{                                                                           \
    if (plan->arg || plan->wrap || sb__type_is_float(plan->acc) ||          \
        (plan->map == SB_MAP_NONE && !plan->dot))                           \
        return NULL;                                                        \
    /* SSE2 into 64 bits: no 64-bit compare (GCC 12 picked lane by */    \
    /* lane), no signed 32 x 32 -> 64-bit multiply, three unpacks to */     \
    /* widen a byte. Against sb__prepare(), AMD EPYC Zen 5: i64 max of */   \
    /* x^2 0.92, u8 into i64 max of |x| 0.66, i16 into i64 sums of x^2 */  \
    /* 0.71, dot products of u8 and of i32 into i64 0.77 and 0.94. */      \
    if (SB_VEC_BYTES == 16 && sb_type_size(plan->acc) == 8 &&               \
        (plan->op != SB_SUM || plan->dot || sb_type_size(plan->input) < 4)) \
        return NULL;                                                        \
    const bool absolute = plan->map == SB_MAP_ABS;                          \
    INT_MAP_PICK_(i32, i32)                                                 \
    INT_MAP_PICK_(u32, u32)                                                 \
    INT_MAP_PICK_(i64, i64)                                                 \
    INT_MAP_PICK_(u64, u64)                                                 \
    SB_WIDENING_LIST(INT_MAP_PICK_WIDE_)                                    \
    return NULL;                                                            \
}
#define INT_MAP_PICK_(it, ac)                                               \
    if (plan->input == (sb_type)SB__T_##it &&                               \
        plan->acc == (sb_type)SB__T_##ac) {                                 \
        if (plan->dot)                                                      \
            return plan->op == SB_SUM ? SB_INT_MAP_DOT(it##_##ac) : NULL;    \
        switch (plan->op) {                                                 \
        case SB_SUM: return INT_MAP_FN_(it, ac, sum);                       \
        case SB_MIN: return INT_MAP_FN_(it, ac, min);                       \
        case SB_MAX: return INT_MAP_FN_(it, ac, max);                       \
        default:     return NULL;                                           \
        }                                                                   \
    }
#define INT_MAP_FN_(it, ac, op)                                             \
    (absolute ? SB_CAT(it##_##ac##_abs_##op, SB_INT_WIDE_SUFFIX)            \
              : SB_CAT(it##_##ac##_square_##op, SB_INT_WIDE_SUFFIX))
#define INT_MAP_PICK_WIDE_(it, ac)                                          \
    SB_CAT(INT_MAP_PICK_WIDE_, SB_IS_INT_##ac)(it, ac)
#define INT_MAP_PICK_WIDE_0(it, ac)
#define INT_MAP_PICK_WIDE_1(it, ac) INT_MAP_PICK_(it, ac)
#define SB_INT_WIDE_SUFFIX _block_map
#define SB_INT_MAP_DOT(pair) pair##_dot_sum_block_map
DEFINE_INT_MAP_LOOKUP(int_map_block_map, sb__block_map_fn)
#undef SB_INT_WIDE_SUFFIX
#undef SB_INT_MAP_DOT
#define SB_INT_WIDE_SUFFIX _masked_block
#define SB_INT_MAP_DOT(pair) NULL   /* masked dot products: sb__prepare() */
DEFINE_INT_MAP_LOOKUP(int_map_masked_block, sb__masked_block_fn)
#undef SB_INT_WIDE_SUFFIX
#undef SB_INT_MAP_DOT

/* An integer plan's blocks, unmasked and masked, or NULL. */
static sb__block_map_fn int_block_map(const sb__plan *plan)
{
    const sb__block_map_fn wide = int_wide_block_map(plan);
    return wide != NULL ? wide : int_map_block_map(plan);
}
static sb__masked_block_fn int_masked_block(const sb__plan *plan)
{
    const sb__masked_block_fn wide = int_wide_masked_block(plan);
    return wide != NULL ? wide : int_map_masked_block(plan);
}
#endif

/* ---- full float blocks, mapped or multiplied on load ---------------------- */

#ifdef SB_HAVE_SHUFFLE
/* NAME: tag_op; START: the leaves' start (sum 0, prod 1; min and max
 * start from their first element and ignore it); VCOMBINE: the tree's
 * step, over the calls' registers as in VFOLD_NODES. */
#define DEFINE_BLOCK_MAP(tag, op, T, V, W, START, VCOMBINE)                 \
static bool tag##_##op##_block_map(const void *xv, const void *yv,         \
                                   sb_map map, size_t prefetch,            \
                                   sb__node *out)                          \
{                                                                           \
    const T *x = xv, *y = yv;                                               \
    enum { CALLS = NL / LEAVES_PER_CALL(W) };                               \
    V stack[LOG2_CALLS(CALLS) + 1];                                         \
    for (int c = 0; c < CALLS; c++) {                                       \
        V node;                                                             \
        const size_t at = (size_t)c * LEAVES_PER_CALL(W) * L;               \
        prefetch_ahead(x + at, LEAVES_PER_CALL(W) * L * sizeof(T), prefetch); \
        if (y != NULL)                                                      \
            prefetch_ahead(y + at, LEAVES_PER_CALL(W) * L * sizeof(T), prefetch); \
        if (y != NULL)                                                      \
            node = vfold_##tag##_##op##_dot(x + at, y + at, (T)(START));    \
        else if (map == SB_MAP_ABS)                                         \
            node = vfold_##tag##_##op##_abs(x + at, NULL, (T)(START));      \
        else                                                                \
            node = vfold_##tag##_##op##_square(x + at, NULL, (T)(START));   \
        VTREE_PUSH(V, W, stack, c, node, VCOMBINE)                          \
    }                                                                       \
    VTREE_FINISH(V, W, stack, CALLS, VCOMBINE, out->v.tag)                  \
    out->has = true;                                                        \
    return true;                                                            \
}
DEFINE_BLOCK_MAP(f32, sum,  float,  sb_vf, F32_LANES, 0.0f, VCOMBINE_ADD)
DEFINE_BLOCK_MAP(f32, prod, float,  sb_vf, F32_LANES, 1.0f, VCOMBINE_MUL)
DEFINE_BLOCK_MAP(f32, min,  float,  sb_vf, F32_LANES, 0.0f, VCOMBINE_F32_MIN)
DEFINE_BLOCK_MAP(f32, max,  float,  sb_vf, F32_LANES, 0.0f, VCOMBINE_F32_MAX)
DEFINE_BLOCK_MAP(f64, sum,  double, sb_vd, F64_LANES, 0.0, VCOMBINE_ADD)
DEFINE_BLOCK_MAP(f64, prod, double, sb_vd, F64_LANES, 1.0, VCOMBINE_MUL)
DEFINE_BLOCK_MAP(f64, min,  double, sb_vd, F64_LANES, 0.0, VCOMBINE_F64_MIN)
DEFINE_BLOCK_MAP(f64, max,  double, sb_vd, F64_LANES, 0.0, VCOMBINE_F64_MAX)
#endif

#ifdef SB_HAVE_SHUFFLE
/* ---- full blocks of f16 / bf16 into f32 ------------------------------------
 *
 * A full unmasked block of half inputs with an f32 accumulator: each
 * leaf row is converted as it is loaded, in this instruction set's widest
 * vectors (exactly: a half value is a float), then transposed and folded
 * as the f32 kernels above do. Converted by the prepare step (128-bit
 * vectors, for every instruction set) and folded in a second pass,
 * f16 -> f32 sums ran at 1-3 GB/s of input on one thread (AMD EPYC);
 * converted per block into a buffer and folded from there, at 2.6-3
 * Gelem/s in cache against 7-8 for f32 input: the buffer's round trip
 * cost as much as the fold. The conversion is a few vector operations
 * per W elements: f16, SB_VEC_F16_TO_F32 (host_half.h); bf16, the upper
 * half of the binary32. */
typedef uint16_t sb_vh_in __attribute__((vector_size(SB_VEC_BYTES / 2),
                                         aligned(2), may_alias));
#define HALF_TO_F32_f16(h) SB_VEC_F16_TO_F32((h), sb_vu32, sb_vf)
#define HALF_TO_F32_bf16(h) ((sb_vf)((h) << 16))
/* W halves at p as W floats. AVX-512F has the conversion itself
 * (vcvtph2ps): exact like the bit operations (every f16 value is a float;
 * a signalling NaN comes out quiet, and every NaN leaves the library as
 * the one canonical NaN), in one instruction instead of about ten, which
 * made f16 sums twice as slow as bf16 ones. */
#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
#  define HALF_LOAD_f16(p)                                                  \
    ((sb_vf)_mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p))))
#elif SB_VEC_BYTES == 32 && defined(__F16C__)
/* AVX2 with F16C: the same conversion on 8 lanes (f16 sums into f32 on
 * one thread, in L2, from 3.8 to 9.3 Gelem/s; AMD EPYC Zen 4). */
#  define HALF_LOAD_f16(p)                                                  \
    ((sb_vf)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p))))
#elif SB_VEC_BYTES == 16 && defined(__SSE2__)
/* SSE2: the bit operations, on halves widened by an interleave with
 * zeros instead of the generic conversion (f16 sums in L2 4.5 -> 5.5
 * GB/s on one thread; AMD EPYC Zen 5). */
#  define HALF_LOAD_f16(p)                                                  \
    HALF_TO_F32_f16((sb_vu32)_mm_unpacklo_epi16(                            \
        _mm_loadl_epi64((const __m128i *)(p)), _mm_setzero_si128()))
#else
#  define HALF_LOAD_f16(p)                                                  \
    HALF_TO_F32_f16(__builtin_convertvector(*(const sb_vh_in *)(p), sb_vu32))
#endif
#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
/* Zero-extended by vpmovzxwd from memory, then shifted: through the
 * generic conversion of the same load (which GCC compiled with spills)
 * bf16 -> f32 sums of 2^16 elements in cache ran at 9.7 Gelem/s on one
 * thread, this way at 15.9 (AMD EPYC). */
#  define HALF_LOAD_bf16(p)                                                 \
    ((sb_vf)_mm512_slli_epi32(_mm512_cvtepu16_epi32(                        \
        _mm256_loadu_si256((const __m256i *)(p))), 16))
#elif SB_VEC_BYTES == 32 && defined(__AVX2__)
/* The same on 8 lanes: through the generic conversion, bf16 -> f32 sums
 * of 2^16 elements on one thread ran at 15.9 GB/s, this way at 25.1
 * (AMD EPYC Zen 5). */
#  define HALF_LOAD_bf16(p)                                                 \
    ((sb_vf)_mm256_slli_epi32(_mm256_cvtepu16_epi32(                        \
        _mm_loadu_si128((const __m128i *)(p))), 16))
#elif SB_VEC_BYTES == 16 && defined(__SSE2__)
/* Each bf16 into the upper half of a 32-bit lane, zeros below: its
 * float (the same sums on SSE2: 12.1 -> 17.8 GB/s). */
#  define HALF_LOAD_bf16(p)                                                 \
    ((sb_vf)_mm_unpacklo_epi16(_mm_setzero_si128(),                         \
        _mm_loadl_epi64((const __m128i *)(p))))
#else
#  define HALF_LOAD_bf16(p)                                                 \
    HALF_TO_F32_bf16(__builtin_convertvector(*(const sb_vh_in *)(p), sb_vu32))
#endif
/* ---- converting sources ------------------------------------------------
 *
 * The folds below read their elements through a source `src`, a set of
 * macros named CONV_*_src: the input's C type (XT), the accumulator's
 * (T, held in sb__node's FIELD) and its vectors (V, the lane masks VI,
 * W lanes), the load that converts W elements exactly (LOAD), |x| on a
 * V (ABS), the NaN test of one stored element (ISNAN), the lane masks of
 * KEEP_MASK_* (KEEP), and whether a dot product multiplies as it loads
 * (PRODUCTS_FIRST, HALF_PRODUCTS_FIRST_* below).
 *   f16, bf16:              halves into f32 (or into their own type, whose
 *                           folds round each step: host_half_vec.h);
 *   f32_f64, f16_f64, bf16_f64, i32_f64: f32, halves and i32 into
 *                           f64, W = F64_LANES elements per load
 *                           (WIDE_LOAD_*);
 *   f32, f64:               the input as it is (masked and NaN-skipping
 *                           blocks only). */
#define CONV_XT_f16        uint16_t
#define CONV_XT_bf16       uint16_t
#define CONV_XT_f32        float
#define CONV_XT_f64        double
#define CONV_XT_f32_f64    float
#define CONV_XT_i32_f64    int32_t
#define CONV_XT_f16_f64    uint16_t
#define CONV_XT_bf16_f64   uint16_t
#define CONV_LOAD_f16      HALF_LOAD_f16
#define CONV_LOAD_bf16     HALF_LOAD_bf16
#define CONV_LOAD_f32      VLOAD_f32
#define CONV_LOAD_f64      VLOAD_f64
#define CONV_LOAD_f32_f64  WIDE_LOAD_f32
#define CONV_LOAD_i32_f64  WIDE_LOAD_i32
#define CONV_LOAD_f16_f64  WIDE_LOAD_f16
#define CONV_LOAD_bf16_f64 WIDE_LOAD_bf16
#define CONV_ISNAN_f16(h)     (((h) & 0x7FFFu) > 0x7C00u)
#define CONV_ISNAN_bf16(h)    (((h) & 0x7FFFu) > 0x7F80u)
#define CONV_ISNAN_f32(v)     ((v) != (v))
#define CONV_ISNAN_f64(v)     ((v) != (v))
#define CONV_ISNAN_f32_f64(v) ((v) != (v))
#define CONV_ISNAN_i32_f64(v) 0
#define CONV_ISNAN_f16_f64    CONV_ISNAN_f16
#define CONV_ISNAN_bf16_f64   CONV_ISNAN_bf16
#define CONV_PRODUCTS_FIRST_f16      HALF_PRODUCTS_FIRST_f16
#define CONV_PRODUCTS_FIRST_bf16     HALF_PRODUCTS_FIRST_bf16
#define CONV_PRODUCTS_FIRST_f32_f64  1
#define CONV_PRODUCTS_FIRST_i32_f64  1
#define CONV_PRODUCTS_FIRST_f16_f64  1
#define CONV_PRODUCTS_FIRST_bf16_f64 1
/* Per accumulator: f32 for f16, bf16 and f32; f64 for the others. */
#define CONV_T_f16      float
#define CONV_T_bf16     float
#define CONV_T_f32      float
#define CONV_T_f64      double
#define CONV_T_f32_f64  double
#define CONV_T_i32_f64  double
#define CONV_T_f16_f64  double
#define CONV_T_bf16_f64 double
#define CONV_ACC_f16      f32
#define CONV_ACC_bf16     f32
#define CONV_ACC_f32      f32
#define CONV_ACC_f64      f64
#define CONV_ACC_f32_f64  f64
#define CONV_ACC_i32_f64  f64
#define CONV_ACC_f16_f64  f64
#define CONV_ACC_bf16_f64 f64
#define CONV_(what, src) SB_CAT(CONV_##what##_, CONV_ACC_##src)
#define CONV_V_f32     sb_vf
#define CONV_V_f64     sb_vd
#define CONV_VI_f32    sb_vi32
#define CONV_VI_f64    sb_vi64
#define CONV_W_f32     F32_LANES
#define CONV_W_f64     F64_LANES
#define CONV_ABS_f32   POST_ABS_f32
#define CONV_ABS_f64   POST_ABS_f64
#define CONV_FIELD_f32 f32
#define CONV_FIELD_f64 f64
#define CONV_KEEP_f32  f32
#define CONV_KEEP_f64  f64

/* W = F64_LANES elements at p as doubles, exactly (every float is a
 * double; a bf16 is the upper half of a float): by x86's conversions
 * where the copy has them (below), else by the vector extensions. */
typedef float sb_vfw __attribute__((vector_size(SB_VEC_BYTES / 2)));
typedef float sb_vfw_in __attribute__((vector_size(SB_VEC_BYTES / 2),
                                       aligned(4), may_alias));
typedef uint32_t sb_vuw __attribute__((vector_size(SB_VEC_BYTES / 2)));
typedef uint16_t sb_vhw_in __attribute__((vector_size(SB_VEC_BYTES / 4),
                                          aligned(2), may_alias));
#define WIDE_HALVES(p) __builtin_convertvector(*(const sb_vhw_in *)(p), sb_vuw)
/* On x86 in its own conversions, one cvtps2pd per register: GCC 12
 * compiled __builtin_convertvector's as two of half the width with the
 * upper floats stored to the stack and loaded back (AVX-512, AVX2), or
 * one float at a time (SSE2). f32 -> f64 sums of 2^16 elements on one
 * thread, AMD EPYC Zen 5, GB/s of input: AVX-512 29 -> 43, AVX2 21 ->
 * 38, SSE2 17 -> 23; bf16 -> f64 8.3 -> 17.1 on AVX-512. */
#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
#  define WIDE_LOAD_f32(p)                                                  \
    ((sb_vd)_mm512_cvtps_pd(_mm256_loadu_ps((const float *)(p))))
#  define WIDE_LOAD_i32(p)                                                  \
    ((sb_vd)_mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(p))))
#  define WIDE_LOAD_bf16(p)                                                 \
    ((sb_vd)_mm512_cvtps_pd(_mm256_castsi256_ps(_mm256_slli_epi32(          \
        _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))), 16))))
#elif SB_VEC_BYTES == 32 && defined(__AVX2__)
#  define WIDE_LOAD_f32(p)                                                  \
    ((sb_vd)_mm256_cvtps_pd(_mm_loadu_ps((const float *)(p))))
#  define WIDE_LOAD_i32(p)                                                  \
    ((sb_vd)_mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)(p))))
#  define WIDE_LOAD_bf16(p)                                                 \
    ((sb_vd)_mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32(                \
        _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(p))), 16))))
#elif SB_VEC_BYTES == 16 && defined(__SSE2__)
#  define WIDE_LOAD_f32(p)                                                  \
    ((sb_vd)_mm_cvtps_pd(_mm_castsi128_ps(                                  \
        _mm_loadl_epi64((const __m128i *)(p)))))
#  define WIDE_LOAD_i32(p)                                                  \
    ((sb_vd)_mm_cvtepi32_pd(_mm_loadl_epi64((const __m128i *)(p))))
static inline sb_vd wide_load_bf16_sse2(const void *p)
{
    int32_t two;
    memcpy(&two, p, sizeof two);
    /* Each bf16 into the upper half of a 32-bit lane: its float. */
    return (sb_vd)_mm_cvtps_pd(_mm_castsi128_ps(
        _mm_unpacklo_epi16(_mm_setzero_si128(), _mm_cvtsi32_si128(two))));
}
#  define WIDE_LOAD_bf16(p) wide_load_bf16_sse2(p)
#else
#  define WIDE_LOAD_f32(p)                                                  \
    __builtin_convertvector(*(const sb_vfw_in *)(p), sb_vd)
typedef int32_t sb_viw_in __attribute__((vector_size(SB_VEC_BYTES / 2),
                                         aligned(4), may_alias));
#  define WIDE_LOAD_i32(p)                                                  \
    __builtin_convertvector(*(const sb_viw_in *)(p), sb_vd)
#  define WIDE_LOAD_bf16(p)                                                 \
    __builtin_convertvector((sb_vfw)(WIDE_HALVES(p) << 16), sb_vd)
#endif
#if SB_VEC_BYTES == 64 && defined(__AVX512F__) && defined(__AVX512VL__)
#  define WIDE_LOAD_f16(p)                                                  \
    ((sb_vd)_mm512_cvtps_pd(_mm256_maskz_cvtph_ps(                          \
        (__mmask8)0xFF, _mm_loadu_si128((const __m128i *)(p)))))
#elif SB_VEC_BYTES == 32 && defined(__F16C__)
#  define WIDE_LOAD_f16(p)                                                  \
    ((sb_vd)_mm256_cvtps_pd(_mm_cvtph_ps(                                   \
        _mm_loadl_epi64((const __m128i *)(p)))))
#else
#  define WIDE_LOAD_f16(p)                                                  \
    __builtin_convertvector(SB_VEC_F16_TO_F32(WIDE_HALVES(p), sb_vuw, sb_vfw), sb_vd)
#endif

/* r[k] = elements i .. i + W-1 of leaf g * W + k of the input x of src,
 * converted, then transposed as LOAD_TRANSPOSED does: the conversion
 * fused with the load, so a block is read once. (Halves on AVX-512 are
 * transposed first and their lanes come out of order: below.) */
#define LOAD_CONV_TRANSPOSED(src, r, x, g, i)                               \
    SB_CAT(LOAD_CONV_TRANSPOSED_, CONV_HALF_ROWS_##src)(src, r, x, g, i)
#define LOAD_CONV_TRANSPOSED_0(src, r, x, g, i)                             \
    for (int k = 0; k < CONV_(W, src); k++)                                 \
        r[k] = CONV_LOAD_##src((x) + ((size_t)(g) * CONV_(W, src) + k) * L + (i)); \
    SB_TRANSPOSE(CONV_(V, src), r, CONV_(W, src))
#define LOAD_CONV_TRANSPOSED_1(src, r, x, g, i) LOAD_HALF_ROWS(src, r, x, g)
/* Halves into floats on AVX-512: transposed as 16-bit words (f16) or
 * 32-bit words (bf16) before the conversion, the leaves in the lanes out
 * of order (host_transpose_x86.h); a fold whose rows came so puts its
 * accumulators' lanes back in order before its tree
 * (CONV_LANES_IN_ORDER). A W of 16 is a leaf per row (i = 0). */
#if defined(SB_HAVE_X86_HALF_ROWS)
#  define CONV_HALF_ROWS_f16  1
#  define CONV_HALF_ROWS_bf16 1
#  define CONV_IS_BF16_f16    0
#  define CONV_IS_BF16_bf16   1
#  define LOAD_HALF_ROWS(src, r, x, g)                                      \
    {                                                                       \
        _Static_assert(CONV_(W, src) == L, "one leaf per row");             \
        __m512 h_[L];                                                       \
        sb_half_rows_transposed((const uint16_t *)(x) + (size_t)(g) * L * L, \
                                CONV_IS_BF16_##src, h_);                    \
        for (int k = 0; k < L; k++) r[k] = (CONV_(V, src))h_[k];            \
    }
#  define CONV_LANES_IN_ORDER(src, DOT, acc, GROUPS)                        \
    if (CONV_HALF_ROWS_##src && !((DOT) && CONV_PRODUCTS_FIRST_##src))      \
        for (int g = 0; g < (GROUPS); g++)                                  \
            acc[g] = (CONV_(V, src))sb_half_lanes_in_order(             \
                (__m512)acc[g], CONV_IS_BF16_##src);                        \
    CONV_WIDE_LANES_IN_ORDER(src, DOT, acc)
/* Halves into f64 on AVX-512 the same way: a call's 16 leaves transposed
 * as halves at once (24 or 32 shuffles), each float row widened as two
 * registers of 8 leaves (CONV_LOAD_GROUPS_1), where each leaf's row of 8
 * was converted as it loaded and took a 24-shuffle transpose of doubles
 * per 64 elements. Sums into f64 on one thread, medians of 4-6 A/B runs,
 * AMD EPYC Zen 5: bf16 1.60x in cache (2^18), 1.36x from memory (2^26),
 * its min 1.67x; f16 1.09x and 1.10x (its conversions, vcvtph2ps and
 * vcvtps2pd, are most of its cost either way). f32 into f64 so (16 x 16
 * transpose of floats, then widened) ran the same in cache and 0.95x
 * from memory: it keeps converting as it loads. */
#  define CONV_WIDE_ROWS_f16_f64  1
#  define CONV_WIDE_ROWS_bf16_f64 1
#  define CONV_WIDE_ROWS_f32_f64  0
#  define CONV_WIDE_ROWS_i32_f64  0
/* Unrolled, so that rows_ stays in registers (GCC 12 kept it on the
 * stack while the steps were a loop). */
#  define CONV_ROWS_STATE_1 __m512 rows_[L]; _Pragma("GCC unroll 2")
/* Group g, row k of step i: row i + k's lanes 8g .. 8g + 7 as doubles. */
#  define CONV_WIDE_ROW(rows, g, ik)                                        \
    ((sb_vd)_mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(        \
        _mm512_castps_pd((rows)[ik]), (g)))))
#  define CONV_LOAD_GROUPS_1(src, POST, DOT, ROUND, G, r, x, y, i)          \
    if ((DOT) && CONV_PRODUCTS_FIRST_##src) {                               \
        CONV_LOAD_GROUPS_0(src, POST, DOT, ROUND, G, r, x, y, i)            \
    } else {                                                                \
        _Static_assert((G) == 2 && CONV_(W, src) * 2 == L &&                \
                       (!(DOT) || CONV_PRODUCTS_FIRST_##src),               \
                       "two registers of doubles per row of 16 leaves");    \
        if ((i) == 0)                                                       \
            sb_half_rows_transposed((const uint16_t *)(x),                  \
                                    CONV_IS_BF16_##src, rows_);             \
        for (int k = 0; k < CONV_(W, src); k++) {                           \
            r[0][k] = POST(CONV_WIDE_ROW(rows_, 0, (i) + k));               \
            r[1][k] = POST(CONV_WIDE_ROW(rows_, 1, (i) + k));               \
        }                                                                   \
    }
/* The two registers' leaves (group g: lanes 8g .. 8g + 7 of the rows,
 * sb_half_lanes_in_order()'s order) back in order, 0-7 and 8-15. */
#  define CONV_WIDE_LANES_IN_ORDER(src, DOT, acc)                           \
    SB_CAT(CONV_WIDE_LANES_IN_ORDER_, CONV_WIDE_ROWS_##src)(src, DOT, acc)
#  define CONV_WIDE_LANES_IN_ORDER_0(src, DOT, acc)
#  define CONV_WIDE_LANES_IN_ORDER_1(src, DOT, acc)                         \
    if (!((DOT) && CONV_PRODUCTS_FIRST_##src)) {                            \
        const __m512i lo_ = CONV_IS_BF16_##src                              \
            ? _mm512_setr_epi64(0, 4, 1, 5, 2, 6, 3, 7)                     \
            : _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);                  \
        const __m512i hi_ = CONV_IS_BF16_##src                              \
            ? _mm512_setr_epi64(8, 12, 9, 13, 10, 14, 11, 15)               \
            : _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);                \
        const __m512d a_ = (__m512d)acc[0], b_ = (__m512d)acc[1];           \
        acc[0] = (sb_vd)_mm512_permutex2var_pd(a_, lo_, b_);                \
        acc[1] = (sb_vd)_mm512_permutex2var_pd(a_, hi_, b_);                \
    }
#else
#  define CONV_HALF_ROWS_f16  0
#  if defined(SB_HAVE_X86_BF16_ROWS)
/* bf16 on AVX2 and SSE2: W leaves' elements i .. i + W-1 at a time,
 * transposed as 32-bit words (host_transpose_x86.h), leaves in order. */
#    define CONV_HALF_ROWS_bf16 2
#  else
#    define CONV_HALF_ROWS_bf16 0
#  endif
#  define LOAD_HALF_ROWS(src, r, x, g)
#  define CONV_LANES_IN_ORDER(src, DOT, acc, GROUPS)
#  define CONV_WIDE_ROWS_f16_f64  0
#  define CONV_WIDE_ROWS_bf16_f64 0
#  define CONV_WIDE_ROWS_f32_f64  0
#  define CONV_WIDE_ROWS_i32_f64  0
#endif
#define CONV_ROWS_STATE(src)                                                \
    SB_CAT(CONV_ROWS_STATE_, CONV_WIDE_ROWS_##src)
#define CONV_ROWS_STATE_0
#define CONV_WIDE_ROWS_f16      0
#define CONV_WIDE_ROWS_bf16     0
#define CONV_WIDE_ROWS_f32      0
#define CONV_WIDE_ROWS_f64      0
/* The rows of step i (elements i .. i + W-1 of each leaf) of every group
 * of a call, mapped: each group's loaded, converted and transposed by
 * CONV_LOAD_MAPPED, or, for halves into f64 on AVX-512, every group's
 * from one transpose of the call's leaves at step 0 (CONV_LOAD_GROUPS_1,
 * into the rows_ that CONV_ROWS_STATE declares before the steps). */
#define CONV_LOAD_GROUPS(src, POST, DOT, ROUND, G, r, x, y, i)              \
    SB_CAT(CONV_LOAD_GROUPS_, CONV_WIDE_ROWS_##src)(src, POST, DOT, ROUND, \
                                                    G, r, x, y, i)
#define CONV_LOAD_GROUPS_0(src, POST, DOT, ROUND, G, r, x, y, i)            \
    for (int g = 0; g < (G); g++) {                                         \
        CONV_LOAD_MAPPED(src, POST, DOT, ROUND, r[g], x, y, g, i)           \
    }
#define LOAD_CONV_TRANSPOSED_2(src, r, x, g, i)                             \
    {                                                                       \
        _Static_assert(L == 16 && CONV_(W, src) == SB_VEC_BYTES / 4,        \
                       "sb_bf16_rows: leaves of 16, a float per lane");     \
        SB_BF16_ROW h_[CONV_(W, src)];                                      \
        sb_bf16_rows((const uint16_t *)(x) +                                \
                         (size_t)(g) * CONV_(W, src) * L + (i), h_);        \
        for (int k = 0; k < CONV_(W, src); k++) r[k] = (CONV_(V, src))h_[k]; \
    }
#define CONV_HALF_ROWS_f32      0
#define CONV_HALF_ROWS_f64      0
#define CONV_HALF_ROWS_f32_f64  0
#define CONV_HALF_ROWS_i32_f64  0
#define CONV_HALF_ROWS_f16_f64  0
#define CONV_HALF_ROWS_bf16_f64 0
#define CONV_IS_BF16_f32        0
#define CONV_IS_BF16_f64        0
#define CONV_IS_BF16_f32_f64    0
#define CONV_IS_BF16_i32_f64    0
#define CONV_IS_BF16_f16_f64    0
#define CONV_IS_BF16_bf16_f64   1

/* The folds of the leaves of converted inputs of a call, GROUPS
 * registers of W leaves (HALF_GROUPS, HALF_ACC_GROUPS or WIDE_GROUPS
 * below), each converted element mapped (POST: |x|, x*x) after the
 * transpose, the place DEFINE_VFOLD_MAP found fastest, or multiplied by
 * its partner in y (DOT, a constant 0 or 1; y is only read when it is 1)
 * before it: one transpose of the products instead of one of each
 * array's rows (f16 dot
 * products into f32 on one thread from 9.6 to 24.5 GB/s, bf16 9.5 to
 * 12.3, into their own types 7.9 to 9.3 and 6.7 to 8.3; AMD EPYC Zen 4,
 * AVX-512), then folded by STEP(acc, e). ROUND: what a product becomes
 * (nothing into f32; rounded to the half type into a half accumulator,
 * whose POST squares round too). Through a pass of their own (a scalar
 * conversion per element, then the fold) half maps and dots ran at
 * 0.04-0.23 of the plain half sum from memory, and sums into a half
 * accumulator, one scalar chain per leaf, at 0.5 GB/s (AMD EPYC). */
#define HALF_GROUPS (LEAVES_PER_CALL(F32_LANES) / F32_LANES)
#define WIDE_GROUPS (LEAVES_PER_CALL(F64_LANES) / F64_LANES)
/* Products before the transpose where the load converts in hardware (f16
 * on AVX-512 and on AVX2 with F16C, bf16 on AVX-512): measured faster
 * there; with the bit-operation conversions (SSE2, bf16 on AVX2) they
 * were slower (bf16 dots into f32 in L2 on AVX2 8.7 -> 6.3 GB/s, on SSE2
 * 4.6 -> 3.4), so there both arrays' rows are transposed first. */
#if SB_VEC_BYTES == 64 && defined(__AVX512F__)
#  define HALF_PRODUCTS_FIRST_f16  1
#  define HALF_PRODUCTS_FIRST_bf16 1
#elif SB_VEC_BYTES == 32 && defined(__F16C__)
#  define HALF_PRODUCTS_FIRST_f16  1
#  define HALF_PRODUCTS_FIRST_bf16 0
#else
#  define HALF_PRODUCTS_FIRST_f16  0
#  define HALF_PRODUCTS_FIRST_bf16 0
#endif
#define CONV_LOAD_MAPPED(src, POST, DOT, ROUND, r, x, y, g, i)             \
    if ((DOT) && CONV_PRODUCTS_FIRST_##src) {                               \
        for (int k = 0; k < CONV_(W, src); k++) {                           \
            const size_t o_ = ((size_t)(g) * CONV_(W, src) + k) * L + (i);  \
            r[k] = ROUND(CONV_LOAD_##src((x) + o_) * CONV_LOAD_##src((y) + o_)); \
        }                                                                   \
        SB_TRANSPOSE(CONV_(V, src), r, CONV_(W, src))                       \
    } else {                                                                \
        LOAD_CONV_TRANSPOSED(src, r, x, g, i)                               \
        if (DOT) {                                                          \
            CONV_(V, src) s_[CONV_(W, src)];                                \
            LOAD_CONV_TRANSPOSED(src, s_, y, g, i)                          \
            for (int k = 0; k < CONV_(W, src); k++) r[k] = ROUND(r[k] * s_[k]); \
        }                                                                   \
    }                                                                       \
    for (int k = 0; k < CONV_(W, src); k++) r[k] = POST(r[k]);
/* GROUPS * W leaves of src at x (and y) reduced to one register of
 * nodes, as DEFINE_VFOLD_NODE's; VCOMBINE: the tree's step. */
#define DEFINE_CONV_VFOLD(NAME, src, STEP, POST, DOT, ROUND, GROUPS, VCOMBINE) \
static inline CONV_(V, src) NAME(const CONV_XT_##src *x,                    \
                                 const CONV_XT_##src *y,                    \
                                 CONV_T_##src start)                        \
{                                                                           \
    CONV_(V, src) acc[GROUPS];                                              \
    (void)y;                                                                \
    for (int g = 0; g < (GROUPS); g++) acc[g] = VSPLAT(CONV_(V, src), start); \
    CONV_ROWS_STATE(src)                                                    \
    for (int i = 0; i < L; i += CONV_(W, src)) {                            \
        CONV_(V, src) r[GROUPS][CONV_(W, src)];                             \
        CONV_LOAD_GROUPS(src, POST, DOT, ROUND##_STEP, GROUPS, r, x, y, i)  \
        for (int k = 0; k < CONV_(W, src); k++)                             \
            for (int g = 0; g < (GROUPS); g++)                              \
                acc[g] = STEP(acc[g], r[g][k]);                             \
    }                                                                       \
    for (int g = 0; g < (GROUPS); g++) acc[g] = ROUND##_END(acc[g]);        \
    CONV_LANES_IN_ORDER(src, DOT, acc, GROUPS)                              \
    VTREE_CROSS(CONV_(V, src), CONV_(W, src), acc, (GROUPS), VCOMBINE)      \
    return acc[0];                                                          \
}
#define DEFINE_CONV_VPICK(NAME, src, BETTER, POST, DOT, ROUND, GROUPS, VCOMBINE) \
static inline CONV_(V, src) NAME(const CONV_XT_##src *x,                    \
                                 const CONV_XT_##src *y,                    \
                                 CONV_T_##src start)                        \
{                                                                           \
    CONV_(V, src) acc[GROUPS];                                              \
    (void)y;                                                                \
    (void)start;                                                            \
    CONV_ROWS_STATE(src)                                                    \
    for (int i = 0; i < L; i += CONV_(W, src)) {                            \
        CONV_(V, src) r[GROUPS][CONV_(W, src)];                             \
        CONV_LOAD_GROUPS(src, POST, DOT, ROUND, GROUPS, r, x, y, i)         \
        int k0 = 0;                                                         \
        if (i == 0) {                                                       \
            for (int g = 0; g < (GROUPS); g++) acc[g] = r[g][0];            \
            k0 = 1;                                                         \
        }                                                                   \
        for (int k = k0; k < CONV_(W, src); k++)                            \
            for (int g = 0; g < (GROUPS); g++)                              \
                VTAKE(CONV_(VI, src), BETTER, acc[g], r[g][k]);             \
    }                                                                       \
    CONV_LANES_IN_ORDER(src, DOT, acc, GROUPS)                              \
    VTREE_CROSS(CONV_(V, src), CONV_(W, src), acc, (GROUPS), VCOMBINE)      \
    return acc[0];                                                          \
}
/* Steps, squares and tree combines of each accumulator: f32 as it is
 * (NO_VROUND), a half accumulator rounded after each operation (its
 * steps with NaNs kept, made canonical by DEFINE_CONV_VFOLD's end: an
 * f16 step's rounding two conversions instead of four instructions on
 * AVX-512 and F16C, a bf16 one's five bit operations instead of ten). */
#define VSTEP_ADD(a, e)         ((a) + (e))
#define VSTEP_MUL(a, e)         ((a) * (e))
#define VSTEP_ADD_f16(a, e)     vround_f16_STEP((a) + (e))
#define VSTEP_MUL_f16(a, e)     vround_f16_STEP((a) * (e))
#define VSTEP_ADD_bf16(a, e)    vround_bf16_STEP((a) + (e))
#define VSTEP_MUL_bf16(a, e)    vround_bf16_STEP((a) * (e))
#define POST_SQUARE_f16(e)      vround_f16((e) * (e))
#define POST_SQUARE_bf16(e)     vround_bf16((e) * (e))
#define VCOMBINE_ADD_f16(a, b)  ((a) = vround_f16((a) + (b)))
#define VCOMBINE_MUL_f16(a, b)  ((a) = vround_f16((a) * (b)))
#define VCOMBINE_ADD_bf16(a, b) ((a) = vround_bf16((a) + (b)))
#define VCOMBINE_MUL_bf16(a, b) ((a) = vround_bf16((a) * (b)))
/* NAME_plain, NAME_abs, NAME_square, NAME_dot for one (input, accumulator,
 * op). */
#define DEFINE_CONV_VFOLD_MAPS(NAME, src, STEP, SQUARE, ROUND, G, VC)       \
    DEFINE_CONV_VFOLD(NAME##_plain,  src, STEP, POST_NONE, 0, ROUND, G, VC) \
    DEFINE_CONV_VFOLD(NAME##_abs,    src, STEP, CONV_(ABS, src), 0, ROUND, G, VC) \
    DEFINE_CONV_VFOLD(NAME##_square, src, STEP, SQUARE, 0, ROUND, G, VC)    \
    DEFINE_CONV_VFOLD(NAME##_dot,    src, STEP, POST_NONE, 1, ROUND, G, VC)
#define DEFINE_CONV_VPICK_MAPS(NAME, src, BETTER, SQUARE, ROUND, G, VC)     \
    DEFINE_CONV_VPICK(NAME##_plain,  src, BETTER, POST_NONE, 0, ROUND, G, VC) \
    DEFINE_CONV_VPICK(NAME##_abs,    src, BETTER, CONV_(ABS, src), 0, ROUND, G, VC) \
    DEFINE_CONV_VPICK(NAME##_square, src, BETTER, SQUARE, 0, ROUND, G, VC)  \
    DEFINE_CONV_VPICK(NAME##_dot,    src, BETTER, POST_NONE, 1, ROUND, G, VC)
/* A full unmasked block of src: plain, mapped or a dot product (y not
 * NULL; HAS_DOT 1 for sums, the only op a dot product has, so that the
 * other ops' blocks do not carry a fold nothing calls), G registers of
 * F32_LANES leaves per call, each call asking first for the lines
 * `prefetch` bytes past its own (and past y's), each call's register
 * merged into the block's tree as it comes (VTREE_PUSH, VCOMBINE). */
#define DEFINE_CONV_BLOCK(NAME, src, START, VCOMBINE, G, HAS_DOT)           \
static bool NAME##_block_map(const void *xv, const void *yv, sb_map map,    \
                             size_t prefetch, sb__node *out)                \
{                                                                           \
    const CONV_XT_##src *x = xv, *y = yv;                                   \
    enum { PER_CALL = (G) * CONV_(W, src) };                                \
    CONV_(V, src) stack[LOG2_CALLS(NL / PER_CALL) + 1];                     \
    for (int c = 0; c < NL / PER_CALL; c++) {                               \
        CONV_(V, src) node;                                                 \
        const size_t at = (size_t)c * PER_CALL * L;                         \
        prefetch_ahead(x + at, PER_CALL * L * sizeof *x, prefetch);         \
        if ((HAS_DOT) && y != NULL) {                                       \
            prefetch_ahead(y + at, PER_CALL * L * sizeof *y, prefetch);     \
            node = NAME##_dot(x + at, y + at, (START));                     \
        } else if (map == SB_MAP_ABS) {                                     \
            node = NAME##_abs(x + at, NULL, (START));                       \
        } else if (map == SB_MAP_SQUARE) {                                  \
            node = NAME##_square(x + at, NULL, (START));                    \
        } else {                                                            \
            node = NAME##_plain(x + at, NULL, (START));                     \
        }                                                                   \
        VTREE_PUSH(CONV_(V, src), CONV_(W, src), stack, c, node, VCOMBINE)  \
    }                                                                       \
    VTREE_FINISH(CONV_(V, src), CONV_(W, src), stack, NL / PER_CALL, VCOMBINE, \
                 out->v.CONV_(FIELD, src))                                  \
    out->has = true;                                                        \
    return true;                                                            \
}
/* Every op of one input type into f32 (tag_f32_op) and into itself
 * (tag_half_op; a half node holds its value as a float). */
#define DEFINE_HALF_BLOCKS(tag)                                             \
    DEFINE_CONV_VFOLD_MAPS(tag##_f32_sum, tag, VSTEP_ADD, POST_SQUARE, NO_VROUND, HALF_GROUPS, VCOMBINE_ADD) \
    DEFINE_CONV_VFOLD_MAPS(tag##_f32_prod, tag, VSTEP_MUL, POST_SQUARE, NO_VROUND, HALF_GROUPS, VCOMBINE_MUL) \
    DEFINE_CONV_VPICK_MAPS(tag##_f32_min, tag, VBETTER_MIN, POST_SQUARE, NO_VROUND, HALF_GROUPS, VCOMBINE_F32_MIN) \
    DEFINE_CONV_VPICK_MAPS(tag##_f32_max, tag, VBETTER_MAX, POST_SQUARE, NO_VROUND, HALF_GROUPS, VCOMBINE_F32_MAX) \
    DEFINE_CONV_VFOLD_MAPS(tag##_half_sum, tag, VSTEP_ADD_##tag, POST_SQUARE_##tag, vround_##tag, HALF_ACC_GROUPS, VCOMBINE_ADD_##tag) \
    DEFINE_CONV_VFOLD_MAPS(tag##_half_prod, tag, VSTEP_MUL_##tag, POST_SQUARE_##tag, vround_##tag, HALF_ACC_GROUPS, VCOMBINE_MUL_##tag) \
    DEFINE_CONV_VPICK_MAPS(tag##_half_min, tag, VBETTER_MIN, POST_SQUARE_##tag, vround_##tag, HALF_GROUPS, VCOMBINE_F32_MIN) \
    DEFINE_CONV_VPICK_MAPS(tag##_half_max, tag, VBETTER_MAX, POST_SQUARE_##tag, vround_##tag, HALF_GROUPS, VCOMBINE_F32_MAX) \
    DEFINE_CONV_BLOCK(tag##_f32_sum, tag,   0.0f, VCOMBINE_ADD, HALF_GROUPS, 1)     \
    DEFINE_CONV_BLOCK(tag##_f32_prod, tag,  1.0f, VCOMBINE_MUL, HALF_GROUPS, 0)     \
    DEFINE_CONV_BLOCK(tag##_f32_min, tag,   0.0f, VCOMBINE_F32_MIN, HALF_GROUPS, 0) \
    DEFINE_CONV_BLOCK(tag##_f32_max, tag,   0.0f, VCOMBINE_F32_MAX, HALF_GROUPS, 0) \
    DEFINE_CONV_BLOCK(tag##_half_sum, tag,  0.0f, VCOMBINE_ADD_##tag, HALF_ACC_GROUPS, 1) \
    DEFINE_CONV_BLOCK(tag##_half_prod, tag, 1.0f, VCOMBINE_MUL_##tag, HALF_ACC_GROUPS, 0) \
    DEFINE_CONV_BLOCK(tag##_half_min, tag,  0.0f, VCOMBINE_F32_MIN, HALF_GROUPS, 0) \
    DEFINE_CONV_BLOCK(tag##_half_max, tag,  0.0f, VCOMBINE_F32_MAX, HALF_GROUPS, 0)
DEFINE_HALF_BLOCKS(f16)
DEFINE_HALF_BLOCKS(bf16)
/* f32, halves and i32 into f64: read as they are stored and converted as
 * they load, F64_LANES per load, instead of converted into a buffer by
 * host_prepare.c and folded from there (f32 -> f64 sums on one thread,
 * 2^24, AVX-512, AMD EPYC Zen 5: 14.7 GB/s of input against 43 for the
 * f32 sum; f16 -> f64 7.6; i32 -> f64, medians of 3 A/B runs: 1.8x from
 * memory and 1.6x in cache on AVX-512, 2.2x and 1.9x on AVX2, 2.3x and
 * 2.0x on SSE2). */
#define DEFINE_WIDE_BLOCKS(tag)                                             \
    DEFINE_CONV_VFOLD_MAPS(tag##_f64_sum, tag##_f64, VSTEP_ADD, POST_SQUARE, NO_VROUND, WIDE_GROUPS, VCOMBINE_ADD) \
    DEFINE_CONV_VFOLD_MAPS(tag##_f64_prod, tag##_f64, VSTEP_MUL, POST_SQUARE, NO_VROUND, WIDE_GROUPS, VCOMBINE_MUL) \
    DEFINE_CONV_VPICK_MAPS(tag##_f64_min, tag##_f64, VBETTER_MIN, POST_SQUARE, NO_VROUND, WIDE_GROUPS, VCOMBINE_F64_MIN) \
    DEFINE_CONV_VPICK_MAPS(tag##_f64_max, tag##_f64, VBETTER_MAX, POST_SQUARE, NO_VROUND, WIDE_GROUPS, VCOMBINE_F64_MAX) \
    DEFINE_CONV_BLOCK(tag##_f64_sum,  tag##_f64, 0.0, VCOMBINE_ADD, WIDE_GROUPS, 1)     \
    DEFINE_CONV_BLOCK(tag##_f64_prod, tag##_f64, 1.0, VCOMBINE_MUL, WIDE_GROUPS, 0)     \
    DEFINE_CONV_BLOCK(tag##_f64_min,  tag##_f64, 0.0, VCOMBINE_F64_MIN, WIDE_GROUPS, 0) \
    DEFINE_CONV_BLOCK(tag##_f64_max,  tag##_f64, 0.0, VCOMBINE_F64_MAX, WIDE_GROUPS, 0)
DEFINE_WIDE_BLOCKS(f32)
DEFINE_WIDE_BLOCKS(f16)
DEFINE_WIDE_BLOCKS(bf16)
DEFINE_WIDE_BLOCKS(i32)

#if defined(__SSE2__)
/* ---- full masked or NaN-skipping blocks, converted as they load ----------
 *
 * A full block with a mask or SB_SKIP_NAN (or both) whose elements need a
 * conversion (halves into f32, f64 or their own type; f32 into f64; i32
 * into f64, masked only) or a NaN test (any float): each row converted
 * as it loads (halves on AVX-512: transposed as 16-bit words first, then
 * converted, DEFINE_VFOLD_MASKED_HALF_ROWS), its lanes that
 * do not take part (masked out; a NaN, where NaNs are skipped) replaced
 * by the exact identity before the transpose, then the masked folds
 * above; each leaf is the same chain, so the same bits. Through
 * host_prepare.c (a conversion and a mask into buffers, then the fold
 * from there) they ran at (one thread, 2^24, AVX-512, AMD EPYC Zen 4):
 * masked f16 sums into f32 4.5 GB/s of input, into f16 0.5. On Zen 5,
 * before -> after (noisy VM, runs taking turns): NaN-skipping f32 sums
 * 14.6 -> 19.9 (the plain sum 40), f64 14.5 -> 22.5, f32 nanmin 13.2 ->
 * 20.1; masked f16 into f16 4.2 -> 11.5, into f64 4.3 -> 11.1; masked f32
 * into f64 9.1 -> 15.1.
 * A leaf takes part (has[]) where one of its elements is kept: from the
 * mask alone (MASKED_LEAF_ANY), or, skipping NaNs, by NAN_LEAF_ANY, which
 * stops at a leaf's first kept element, almost always its first. */
#define NAN_LEAF_ANY(ISNAN, x, mask, has)                                   \
    for (int l = 0; l < NL; l++) {                                          \
        bool any_ = false;                                                  \
        for (int i_ = l * L; i_ < (l + 1) * L && !any_; i_++)              \
            any_ = ((mask) == NULL || (mask)[i_] != 0) && !ISNAN((x)[i_]);  \
        (has)[l] = any_;                                                    \
    }
/* KEEP_*_f32 / KEEP_*_f64 for src's accumulator. */
#define CONV_KEEP_(kind, src) SB_CAT(KEEP_##kind##_, CONV_(KEEP, src))
/* The fold of src with a mask (NAME_m), skipping NaNs (NAME_n) or both
 * (NAME_mn). */
#define DEFINE_CONV_MASKED_FOLDS(NAME, src, OP, ROUND, G)                   \
    SB_CAT(DEFINE_CONV_MASKED_FOLDS_W, CONV_WIDE_ROWS_##src)(NAME, src, OP, \
                                                             ROUND, G)
#define DEFINE_CONV_MASKED_FOLDS_W0(NAME, src, OP, ROUND, G)                \
    SB_CAT(DEFINE_CONV_MASKED_FOLDS_, CONV_HALF_ROWS_##src)(NAME, src, OP,  \
                                                            ROUND, G)
#define DEFINE_CONV_MASKED_FOLDS_2 DEFINE_CONV_MASKED_FOLDS_0
#if defined(SB_HAVE_X86_HALF_ROWS)
/* Halves on AVX-512: the rows of the unmasked folds (LOAD_HALF_ROWS),
 * each element that does not take part made the skip value as 16-bit
 * bits before their transpose (sb_half_rows_transposed_masked()). The
 * skip values are -0 and 1 (DEFINE_CONV_OPS, DEFINE_CONV_FOLD_BLOCKS),
 * which a half holds exactly, so they convert back to themselves. */
#  define DEFINE_CONV_MASKED_FOLDS_1(NAME, src, OP, ROUND, G)               \
    DEFINE_VFOLD_MASKED_HALF_ROWS(NAME##_m, src, OP, ROUND, G, 1, 0,        \
                                  HALF_ROWS_FOLD)                           \
    DEFINE_VFOLD_MASKED_HALF_ROWS(NAME##_n, src, OP, ROUND, G, 0, 1,        \
                                  HALF_ROWS_FOLD)                           \
    DEFINE_VFOLD_MASKED_HALF_ROWS(NAME##_mn, src, OP, ROUND, G, 1, 1,       \
                                  HALF_ROWS_FOLD)
/* Halves into f64 the same way, each float row then widened as two
 * registers of 8 leaves (CONV_WIDE_ROW), as the unmasked folds'
 * CONV_LOAD_GROUPS_1, whose lane order CONV_WIDE_LANES_IN_ORDER undoes.
 * Each row of 8 had been converted as it loaded (WIDE_LOAD_f16, ...) and
 * transposed as doubles, 24 shuffles per 64 elements. */
#  define DEFINE_CONV_MASKED_FOLDS_W1(NAME, src, OP, ROUND, G)              \
    DEFINE_VFOLD_MASKED_HALF_ROWS(NAME##_m, src, OP, ROUND, G, 1, 0,        \
                                  HALF_ROWS_FOLD_WIDE)                      \
    DEFINE_VFOLD_MASKED_HALF_ROWS(NAME##_n, src, OP, ROUND, G, 0, 1,        \
                                  HALF_ROWS_FOLD_WIDE)                      \
    DEFINE_VFOLD_MASKED_HALF_ROWS(NAME##_mn, src, OP, ROUND, G, 1, 1,       \
                                  HALF_ROWS_FOLD_WIDE)
/* The masked rows of G groups of 16 leaves, then FOLD: their leaves
 * folded and stored, in the leaves' order, at out. */
#  define DEFINE_VFOLD_MASKED_HALF_ROWS(NAME, src, OP, ROUND, G, MASKED,    \
                                        SKIP_NAN, FOLD)                     \
static inline bool NAME(const CONV_XT_##src *x, const unsigned char *mask,  \
                        CONV_T_##src start, CONV_T_##src skip,              \
                        size_t prefetch, CONV_T_##src *v)                   \
{                                                                           \
    const __m512i fill_ = _mm512_set1_epi16((short)(CONV_IS_BF16_##src     \
        ? sb__float_to_bf16((float)skip) : sb__float_to_f16((float)skip))); \
    int seen = 0;                                                           \
    (void)mask;   /* the NaN-skipping fold without a mask reads none */     \
    for (int g = 0; g < NL / L; g += (G)) {                                 \
        __m512 f_[G][L];                                                    \
        MASKED_PREFETCH(x, (MASKED) ? mask : NULL, g, L, G, prefetch);      \
        for (int h = 0; h < (G); h++) {                                     \
            const size_t at = (size_t)(g + h) * L * L;                      \
            seen |= sb_half_rows_transposed_masked(                         \
                (const uint16_t *)x + at, (MASKED) ? mask + at : NULL,      \
                (SKIP_NAN), CONV_IS_BF16_##src, fill_, f_[h]);              \
        }                                                                   \
        FOLD(src, OP, ROUND, G, f_, start, v + (size_t)g * L);              \
    }                                                                       \
    return seen != 0;                                                       \
}
/* Into f32 or a half: one register of 16 leaves per group, each step
 * rounded (ROUND), then the lanes put back in order. */
#  define HALF_ROWS_FOLD(src, OP, ROUND, G, f, start, out)                  \
    do {                                                                    \
        _Static_assert(CONV_(W, src) == L, "one leaf per lane");            \
        CONV_(V, src) acc_[G];                                              \
        for (int h = 0; h < (G); h++)                                       \
            acc_[h] = VSPLAT(CONV_(V, src), start);                         \
        for (int k = 0; k < L; k++)                                         \
            for (int h = 0; h < (G); h++)                                   \
                acc_[h] = ROUND##_STEP(acc_[h] OP (CONV_(V, src))f[h][k]);  \
        for (int h = 0; h < (G); h++) {                                     \
            acc_[h] = (CONV_(V, src))sb_half_lanes_in_order(                \
                (__m512)ROUND##_END(acc_[h]), CONV_IS_BF16_##src);          \
            memcpy((out) + (size_t)h * L, &acc_[h], sizeof acc_[h]);        \
        }                                                                   \
    } while (0)
/* Into f64: two registers of 8 leaves per group (exact widenings, so no
 * rounding step). */
#  define HALF_ROWS_FOLD_WIDE(src, OP, ROUND, G, f, start, out)             \
    do {                                                                    \
        _Static_assert(CONV_(W, src) * 2 == L, "two registers per row");    \
        CONV_(V, src) acc_[G][2];                                           \
        for (int h = 0; h < (G); h++)                                       \
            acc_[h][0] = acc_[h][1] = VSPLAT(CONV_(V, src), start);         \
        for (int k = 0; k < L; k++)                                         \
            for (int h = 0; h < (G); h++) {                                 \
                acc_[h][0] = acc_[h][0] OP CONV_WIDE_ROW(f[h], 0, k);       \
                acc_[h][1] = acc_[h][1] OP CONV_WIDE_ROW(f[h], 1, k);       \
            }                                                               \
        for (int h = 0; h < (G); h++) {                                     \
            CONV_WIDE_LANES_IN_ORDER(src, 0, acc_[h])                       \
            memcpy((out) + (size_t)h * L, acc_[h], sizeof acc_[h]);         \
        }                                                                   \
    } while (0)
#endif
#define DEFINE_CONV_MASKED_FOLDS_0(NAME, src, OP, ROUND, G)                 \
    DEFINE_VFOLD_MASKED_G(NAME##_m, CONV_XT_##src, CONV_T_##src, CONV_(V, src), \
                          CONV_LOAD_##src, CONV_(VI, src), CONV_(W, src), OP, \
                          CONV_KEEP_(MASK, src), ROUND, G)                  \
    DEFINE_VFOLD_MASKED_G(NAME##_n, CONV_XT_##src, CONV_T_##src, CONV_(V, src), \
                          CONV_LOAD_##src, CONV_(VI, src), CONV_(W, src), OP, \
                          CONV_KEEP_(NAN, src), ROUND, G)                   \
    DEFINE_VFOLD_MASKED_G(NAME##_mn, CONV_XT_##src, CONV_T_##src, CONV_(V, src), \
                          CONV_LOAD_##src, CONV_(VI, src), CONV_(W, src), OP, \
                          CONV_KEEP_(MASK_NAN, src), ROUND, G)
#define DEFINE_CONV_MASKED_PICKS(NAME, src, BETTER, SUB)                    \
    DEFINE_VPICK_MASKED(NAME##_m, CONV_XT_##src, CONV_T_##src, CONV_(V, src), \
                        CONV_LOAD_##src, CONV_(VI, src), CONV_(W, src), BETTER, \
                        SUB, CONV_KEEP_(MASK, src))                         \
    DEFINE_VPICK_MASKED(NAME##_n, CONV_XT_##src, CONV_T_##src, CONV_(V, src), \
                        CONV_LOAD_##src, CONV_(VI, src), CONV_(W, src), BETTER, \
                        SUB, CONV_KEEP_(NAN, src))                          \
    DEFINE_VPICK_MASKED(NAME##_mn, CONV_XT_##src, CONV_T_##src, CONV_(V, src), \
                        CONV_LOAD_##src, CONV_(VI, src), CONV_(W, src), BETTER, \
                        SUB, CONV_KEEP_(MASK_NAN, src))
/* has[] of a full block's leaves (see above; nan_seen: whether the fold
 * loaded a NaN) and whether every leaf has an element taking part. */
#define CONV_LEAVES_HAVE(src, x, mask, skip_nan, nan_seen, has, all)        \
    {                                                                       \
        if ((skip_nan) && (nan_seen))                                       \
            NAN_LEAF_ANY(CONV_ISNAN_##src, (x), (mask), (has))              \
        else if ((mask) != NULL)                                            \
            MASKED_LEAF_ANY((mask), (has))                                  \
        else                                                                \
            memset((has), true, NL);                                        \
        all = memchr((has), false, NL) == NULL;                             \
    }
/* The tree over the leaves v[]: where every leaf has a value, in
 * registers (VTREE_CROSS, VCOMBINE); else the none-aware tree in memory
 * (STEP). With the scalar tree alone, NaN-skipping f32 sums spent more
 * time in it and in has[] than in the fold (0.6 of the block's time in
 * perf, AVX-512, AMD EPYC Zen 5), and half accumulators rounded 255
 * scalars per block. */
#define CONV_BLOCK_TREE(src, v, has, all, STEP, VCOMBINE, out)              \
    if (all) {                                                              \
        VTREE_OF_VALUES(CONV_(V, src), CONV_(W, src), v, VCOMBINE,          \
                        (out)->v.CONV_(FIELD, src))                         \
        (out)->has = true;                                                  \
    } else {                                                                \
        TREE_NONE_AWARE(CONV_T_##src, v, has, STEP)                         \
        (out)->v.CONV_(FIELD, src) = (v)[0];                                \
        (out)->has = (has)[0];                                              \
    }
/* The two sb__masked_block_fn of NAME_block_(x, mask, skip_nan, ...). */
#define DEFINE_MASKED_ENTRIES(NAME)                                         \
static bool NAME##_masked_block(const void *x, const unsigned char *mask,   \
                                size_t prefetch, sb__node *out)             \
{                                                                           \
    return NAME##_block_(x, mask, false, prefetch, out);                    \
}                                                                           \
static bool NAME##_nan_block(const void *x, const unsigned char *mask,      \
                             size_t prefetch, sb__node *out)                \
{                                                                           \
    return NAME##_block_(x, mask, true, prefetch, out);                     \
}
/* NAME_masked_block (a mask, NaNs taking part) and NAME_nan_block (NaNs
 * skipped, a mask or NULL) of a sum or product: the leaves folded into
 * v[] by the folds above (from START, skipped elements as SKIP), then
 * their tree (STEP, VCOMBINE). */
#define DEFINE_CONV_FOLD_BLOCKS(NAME, src, OP, ROUND, START, SKIP, STEP, VCOMBINE, G) \
    DEFINE_CONV_MASKED_FOLDS(vfold_##NAME, src, OP, ROUND, G)               \
static inline bool NAME##_block_(const CONV_XT_##src *x,                    \
                                 const unsigned char *mask, bool skip_nan,  \
                                 size_t prefetch, sb__node *out)            \
{                                                                           \
    CONV_T_##src v[NL];                                                     \
    bool has[NL], all, seen;                                                \
    if (!skip_nan)                                                          \
        seen = vfold_##NAME##_m(x, mask, (START), (SKIP), prefetch, v);     \
    else if (mask == NULL)                                                  \
        seen = vfold_##NAME##_n(x, NULL, (START), (SKIP), prefetch, v);     \
    else                                                                    \
        seen = vfold_##NAME##_mn(x, mask, (START), (SKIP), prefetch, v);    \
    CONV_LEAVES_HAVE(src, x, mask, skip_nan, seen, has, all)                \
    CONV_BLOCK_TREE(src, v, has, all, STEP, VCOMBINE, out)                  \
    return true;                                                            \
}                                                                           \
    DEFINE_MASKED_ENTRIES(NAME)
/* The same for min and max (DEFINE_VPICK_MASKED): with a mask alone, a
 * NaN taking part sends the block back to host_prepare.c (false). */
#define DEFINE_CONV_PICK_BLOCKS(NAME, src, BETTER, SUB, PICK, VCOMBINE)     \
    DEFINE_CONV_MASKED_PICKS(vpick_##NAME, src, BETTER, SUB)                \
static inline bool NAME##_block_(const CONV_XT_##src *x,                    \
                                 const unsigned char *mask, bool skip_nan,  \
                                 size_t prefetch, sb__node *out)            \
{                                                                           \
    CONV_T_##src v[NL];                                                     \
    bool has[NL], all, seen;                                                \
    if (!skip_nan) {                                                        \
        if (!vpick_##NAME##_m(x, mask, prefetch, v, &seen))                 \
            return false;                                                   \
    } else if (mask == NULL) {                                              \
        (void)vpick_##NAME##_n(x, NULL, prefetch, v, &seen);                \
    } else {                                                                \
        (void)vpick_##NAME##_mn(x, mask, prefetch, v, &seen);               \
    }                                                                       \
    CONV_LEAVES_HAVE(src, x, mask, skip_nan, seen, has, all)                \
    CONV_BLOCK_TREE(src, v, has, all, PICK, VCOMBINE, out)                  \
    return true;                                                            \
}                                                                           \
    DEFINE_MASKED_ENTRIES(NAME)
#define STEP_HALF_ADD_f16  STEP_F16_ADD
#define STEP_HALF_MUL_f16  STEP_F16_MUL
#define STEP_HALF_ADD_bf16 STEP_BF16_ADD
#define STEP_HALF_MUL_bf16 STEP_BF16_MUL
/* Every op of src into the accumulator named acc (NAME src_acc_op). */
#define DEFINE_CONV_OPS(tag, acc, src, T, INF, MIN, MAX)                    \
    DEFINE_CONV_FOLD_BLOCKS(tag##_##acc##_sum, src, VOP_ADD, NO_VROUND, (T)0, -(T)0, STEP_PLAIN_ADD, VCOMBINE_ADD, 2) \
    DEFINE_CONV_FOLD_BLOCKS(tag##_##acc##_prod, src, VOP_MUL, NO_VROUND, (T)1, (T)1, STEP_PLAIN_MUL, VCOMBINE_MUL, 2) \
    DEFINE_CONV_PICK_BLOCKS(tag##_##acc##_min, src, VBETTER_MIN, (INF), PICK_MIN, MIN) \
    DEFINE_CONV_PICK_BLOCKS(tag##_##acc##_max, src, VBETTER_MAX, -(INF), PICK_MAX, MAX)
DEFINE_CONV_OPS(f32, f32, f32, float, __builtin_inff(), VCOMBINE_F32_MIN, VCOMBINE_F32_MAX)
DEFINE_CONV_OPS(f64, f64, f64, double, __builtin_inf(), VCOMBINE_F64_MIN, VCOMBINE_F64_MAX)
DEFINE_CONV_OPS(f16, f32, f16, float, __builtin_inff(), VCOMBINE_F32_MIN, VCOMBINE_F32_MAX)
DEFINE_CONV_OPS(bf16, f32, bf16, float, __builtin_inff(), VCOMBINE_F32_MIN, VCOMBINE_F32_MAX)
DEFINE_CONV_OPS(f32, f64, f32_f64, double, __builtin_inf(), VCOMBINE_F64_MIN, VCOMBINE_F64_MAX)
DEFINE_CONV_OPS(f16, f64, f16_f64, double, __builtin_inf(), VCOMBINE_F64_MIN, VCOMBINE_F64_MAX)
DEFINE_CONV_OPS(bf16, f64, bf16_f64, double, __builtin_inf(), VCOMBINE_F64_MIN, VCOMBINE_F64_MAX)
/* i32 into f64 with a mask (SB_SKIP_NAN is refused for integers: its
 * NaN-skipping blocks are never looked up). Through host_prepare.c (the
 * conversion and the mask into buffers, then the fold) masked sums ran
 * at 0.26 of the unmasked (7 GB/s of input in `bench --maps`, 9 in an
 * A/B run; one thread, 2^27, AMD EPYC Zen 5). */
DEFINE_CONV_OPS(i32, f64, i32_f64, double, __builtin_inf(), VCOMBINE_F64_MIN, VCOMBINE_F64_MAX)
/* Into the half type: sums and products round each step (min and max
 * are the f32 ones: the same values). */
DEFINE_CONV_FOLD_BLOCKS(f16_half_sum, f16, VOP_ADD, vround_f16, 0.0f, -0.0f, STEP_F16_ADD, VCOMBINE_ADD_f16, HALF_ACC_GROUPS)
DEFINE_CONV_FOLD_BLOCKS(f16_half_prod, f16, VOP_MUL, vround_f16, 1.0f, 1.0f, STEP_F16_MUL, VCOMBINE_MUL_f16, HALF_ACC_GROUPS)
DEFINE_CONV_FOLD_BLOCKS(bf16_half_sum, bf16, VOP_ADD, vround_bf16, 0.0f, -0.0f, STEP_BF16_ADD, VCOMBINE_ADD_bf16, HALF_ACC_GROUPS)
DEFINE_CONV_FOLD_BLOCKS(bf16_half_prod, bf16, VOP_MUL, vround_bf16, 1.0f, 1.0f, STEP_BF16_MUL, VCOMBINE_MUL_bf16, HALF_ACC_GROUPS)
#define SB_HAVE_CONV_MASKED_BLOCKS 1
#endif

/* The converting block of a plan, or NULL: a half input into f32 or
 * into its own type, f32, i32 or a half input into f64 (NaN skipping
 * takes the masked blocks above). */
static sb__block_map_fn conv_block_map(const sb__plan *plan)
{
    if (plan->skip_nan ||
        (!sb__type_is_half(plan->input) &&
         !((plan->input == SB_F32 || plan->input == SB_I32) &&
           plan->acc == SB_F64)))
        return NULL;
#define SB_CONV_PICK_(tag, acc)                                             \
    switch (plan->op) {                                                     \
    case SB_SUM:  return tag##_##acc##_sum_block_map;                       \
    case SB_PROD: return tag##_##acc##_prod_block_map;                      \
    case SB_MIN:  return tag##_##acc##_min_block_map;                       \
    case SB_MAX:  return tag##_##acc##_max_block_map;                       \
    default:      return NULL;                                              \
    }
    if (plan->acc == SB_F64) {
        if (plan->input == SB_F32) SB_CONV_PICK_(f32, f64)
        if (plan->input == SB_I32) SB_CONV_PICK_(i32, f64)
        if (plan->input == SB_F16) SB_CONV_PICK_(f16, f64)
        SB_CONV_PICK_(bf16, f64)
    }
    if (plan->input == SB_F32)
        return NULL;
    const bool f16 = plan->input == SB_F16;
    if (plan->acc == SB_F32) {
        if (f16) SB_CONV_PICK_(f16, f32)
        SB_CONV_PICK_(bf16, f32)
    }
    if (f16) SB_CONV_PICK_(f16, half)
    SB_CONV_PICK_(bf16, half)
#undef SB_CONV_PICK_
}
#endif

sb__block_map_fn SB_BLOCK_MAP_LOOKUP(const sb__plan *plan)
{
#ifdef SB_HAVE_SHUFFLE
    const sb__block_map_fn conv = conv_block_map(plan);
    if (conv != NULL)
        return conv;
#ifdef SB_HAVE_INT_WIDE_BLOCKS
    const sb__block_map_fn integer = int_block_map(plan);
    if (integer != NULL)
        return integer;
#endif
    /* Floats read as they are stored, every element taking part: NaN
     * skipping takes the masked blocks (SB_MASKED_BLOCK_LOOKUP), other
     * conversions the prepare step. */
    if (plan->acc != plan->input || plan->skip_nan ||
        (!plan->dot && plan->map == SB_MAP_NONE))
        return NULL;
    const bool f32 = plan->acc == SB_F32;
    if (plan->acc != SB_F32 && plan->acc != SB_F64)
        return NULL;
    switch (plan->op) {
    case SB_SUM:  return f32 ? f32_sum_block_map : f64_sum_block_map;
    case SB_PROD: return f32 ? f32_prod_block_map : f64_prod_block_map;
    case SB_MIN:  return f32 ? f32_min_block_map : f64_min_block_map;
    case SB_MAX:  return f32 ? f32_max_block_map : f64_max_block_map;
    default:      break;
    }
#endif
    (void)plan;
    return NULL;
}

/* A full block's fold where it converts as it loads, with a mask or
 * skipping NaNs (DEFINE_CONV_FOLD_BLOCKS): float sums, products, min and
 * max, each input into f32, f64 or its own type as the plan converts it,
 * and i32 into f64 with a mask, with no map or product of two arrays
 * (those take sb__prepare()); the sums, min and max of integer
 * widenings, plain or mapped, and the maps
 * of 32- and 64-bit integers (int_map_masked_block), masked 8- and
 * 16-bit integers being the kernels' (DEFINE_SMALL_MASKED_WHOLE); NULL
 * elsewhere. A float plan that skips NaNs gets the NaN-skipping block
 * (which takes a mask or NULL), one that does not the masked block. */
sb__masked_block_fn SB_MASKED_BLOCK_LOOKUP(const sb__plan *plan)
{
#ifdef SB_HAVE_INT_WIDE_BLOCKS
    const sb__masked_block_fn integer = int_masked_block(plan);
    if (integer != NULL)
        return integer;
#endif
#if defined(SB_HAVE_SHUFFLE) && defined(SB_HAVE_CONV_MASKED_BLOCKS)
    const bool i32_f64 = plan->input == SB_I32 && plan->acc == SB_F64;
    if (plan->dot || plan->map != SB_MAP_NONE || plan->arg ||
        (!sb__type_is_float(plan->input) && !i32_f64))
        return NULL;
    const bool nan = plan->skip_nan;
/* ARITH: the sum and product blocks' prefix, PICK: min and max's (a half
 * accumulator's min and max are its f32 ones). */
#define SB_MASKED_OPS_(ARITH, PICK)                                         \
    switch (plan->op) {                                                     \
    case SB_SUM:  return nan ? ARITH##_sum_nan_block : ARITH##_sum_masked_block; \
    case SB_PROD: return nan ? ARITH##_prod_nan_block : ARITH##_prod_masked_block; \
    case SB_MIN:  return nan ? PICK##_min_nan_block : PICK##_min_masked_block; \
    case SB_MAX:  return nan ? PICK##_max_nan_block : PICK##_max_masked_block; \
    default:      return NULL;                                              \
    }
#define SB_MASKED_OP_(name) SB_MASKED_OPS_(name, name)
#define SB_MASKED_HALF_OP_(tag) SB_MASKED_OPS_(tag##_half, tag##_f32)
    switch (plan->input) {
    case SB_F32:
        if (plan->acc == SB_F32) SB_MASKED_OP_(f32_f32)
        if (plan->acc == SB_F64) SB_MASKED_OP_(f32_f64)
        return NULL;
    case SB_F64:
        if (plan->acc == SB_F64) SB_MASKED_OP_(f64_f64)
        return NULL;
    case SB_I32:
        if (i32_f64) SB_MASKED_OP_(i32_f64)
        return NULL;
    case SB_F16:
        if (plan->acc == SB_F32) SB_MASKED_OP_(f16_f32)
        if (plan->acc == SB_F64) SB_MASKED_OP_(f16_f64)
        if (plan->acc == SB_F16) SB_MASKED_HALF_OP_(f16)
        return NULL;
    case SB_BF16:
        if (plan->acc == SB_F32) SB_MASKED_OP_(bf16_f32)
        if (plan->acc == SB_F64) SB_MASKED_OP_(bf16_f64)
        if (plan->acc == SB_BF16) SB_MASKED_HALF_OP_(bf16)
        return NULL;
    default:
        return NULL;
    }
#undef SB_MASKED_OPS_
#undef SB_MASKED_OP_
#undef SB_MASKED_HALF_OP_
#endif
    (void)plan;
    return NULL;
}

/* ---- lookup -------------------------------------------------------------- */

const sb__kernel *SB_KERNEL_LOOKUP(const sb__plan *plan)
{
    if (sb__type_is_half(plan->acc)) {
        const bool f16 = plan->acc == SB_F16;
        switch (plan->op) {
        case SB_SUM:  return f16 ? &f16_sum_kernel : &bf16_sum_kernel;
        case SB_PROD: return f16 ? &f16_prod_kernel : &bf16_prod_kernel;
        case SB_MIN:  return &f32_min_kernel;
        case SB_MAX:  return &f32_max_kernel;
        default:      return NULL;
        }
    }
    switch (plan->op) {
    case SB_MIN:
        switch (plan->acc) {
#define SB_MIN_CASE_(e, tag, ctype, f, s, cl) case e: return &tag##_min_kernel;
        SB_TYPE_LIST(SB_MIN_CASE_)
#undef SB_MIN_CASE_
        default: break;
        }
        return NULL;
    case SB_MAX:
        switch (plan->acc) {
#define SB_MAX_CASE_(e, tag, ctype, f, s, cl) case e: return &tag##_max_kernel;
        SB_TYPE_LIST(SB_MAX_CASE_)
#undef SB_MAX_CASE_
        default: break;
        }
        return NULL;
    case SB_SUM:
    case SB_PROD: {
        const bool sum = plan->op == SB_SUM;
        switch (plan->acc) {
        case SB_F32: return sum ? &f32_sum_kernel : &f32_prod_kernel;
        case SB_F64: return sum ? &f64_sum_kernel : &f64_prod_kernel;
#define SB_INT_CASE_(e, tag)                                              \
        case e:                                                           \
            if (plan->wrap) return sum ? &tag##_wsum_kernel : &tag##_wprod_kernel; \
            return sum ? &tag##_csum_kernel : &tag##_cprod_kernel;
        SB_INT_CASE_(SB_I8, i8)   SB_INT_CASE_(SB_U8, u8)
        SB_INT_CASE_(SB_I16, i16) SB_INT_CASE_(SB_U16, u16)
        SB_INT_CASE_(SB_I32, i32) SB_INT_CASE_(SB_U32, u32)
        SB_INT_CASE_(SB_I64, i64) SB_INT_CASE_(SB_U64, u64)
#undef SB_INT_CASE_
        default: break;
        }
        return NULL;
    }
    case SB_ANY:
    case SB_ALL:
    case SB_ARGMIN:   /* host_arg.c */
    case SB_ARGMAX:
    case SB_COUNT:
        return NULL;
    }
    return NULL;
}
