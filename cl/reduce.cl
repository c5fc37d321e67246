/* reduce.cl: the two kernels of a reduction, in the order they run.
 *
 *   sb_leaves  work-item p of work-group g owns the `lpi` consecutive leaves
 *              from leaf (g * wg + p) * lpi (lpi and wg powers of two):
 *              1. it folds each leaf left to right (ops.cl: converted to
 *                 the accumulator, mask applied), four or eight full leaves
 *                 at a time where it can; where the item's node cannot
 *                 depend on the order (integer min and max, wrapping
 *                 arithmetic, a checked sum in the item's window), a full
 *                 item folds as vectors in any order instead (1');
 *              2. combines its leaves as an aligned subtree (a binary
 *                 counter, as the host path's);
 *              3. the work-group combines its work-items' nodes as an
 *                 aligned subtree: inside each sub-group (lane k with
 *                 k + off, off = 1, 2, 4, ...), then across sub-groups
 *                 through local memory;
 *              4. one node per work-group, at index g: the node of leaves
 *                 [g*wg*lpi, (g+1)*wg*lpi); or, when the launch has one
 *                 work-group (`final`), the result record.
 *   sb_nodes   the same over the nodes of the previous pass (npi
 *              consecutive nodes per work-item), until one work-group is
 *              left.
 *   sb_rows    many reductions of one length (a batch's rows): on a CPU
 *              device, 8 f32 (4 f64, 16 half, 8 half into f64) rows per
 *              work-item in vector lanes, else one row each; steps 1
 *              and 2 over the whole row, then its record.
 *   sb_columns many reductions side by side (a matrix's columns): a
 *              block of columns per work-item in vector lanes, steps 1
 *              and 2 for every lane at once, then their records.
 * Maps and dot products change only what a leaf reads (ops.cl, sb_term):
 * every fold applies them to the elements it loads, y read beside x at the
 * same positions; SB_SKIP_NAN takes the leaf-by-leaf fold, which tests
 * each element, as a mask does. Fast paths whose test is on the input as
 * it is (the guarded plain groups for squares and products, the checked
 * sum's window, the order-free items of a checked map) are left out of
 * such programs.
 * Nodes between passes live in one buffer: `cap` values, then `cap` uint
 * flags, then for argmin / argmax `cap` ulong positions. The record: the
 * value (canonical NaN) at byte 0 and for argmin / argmax the position at
 * byte SB_RESULT_INDEX_OFFSET, written only when the status is ok, and
 * the status word at byte SB_RESULT_STATUS_OFFSET.
 * The order's "pad with none to a power of two" makes each of these blocks
 * an aligned subtree, so work-group size, leaves per item and sub-group
 * size change speed, never bits. */

/* A work-item's binary counter holds one node per level of its subtree
 * (SB_MAX_LPI_LOG2, from the host, bounds leaves or nodes per item of
 * sb_leaves and sb_nodes, SB_ROWS_MAX_LPI_LOG2 leaves per row of
 * sb_rows). */
#define SB_STACK (SB_MAX_LPI_LOG2 + 2)
#define SB_ROWS_STACK (SB_ROWS_MAX_LPI_LOG2 + 2)   /* sb_rows: a whole row */

/* argmin / argmax (SB_ARG): a node also carries a position, the index
 * from the reduction's first element of the element whose value the node
 * holds, and moves it with the value: where sb_step() takes its right
 * side (sb_step_takes_right), or where none takes the other side. Every
 * function below carries one; other programs never store or load it (each
 * use is under `if (SB_ARG)`), so it is dead code there. Such programs
 * fold four full leaves at a time or leaf by leaf (the wide folds keep no
 * positions) and combine a work-group's nodes through local memory only
 * (sb_leaves, sb_nodes). */

/* ---- nodes ----------------------------------------------------------------- */

/* combine(l, r) of docs/order.md: none takes the other side. */
inline void sb_combine(acc_t *v, uint *f, ulong *i, acc_t rv, uint rf,
                       ulong ri)
{
    if ((rf & SB_HAS) && (*f & SB_HAS)) {
        if (SB_ARG && sb_step_takes_right(*v, rv))
            *i = ri;
        *v = sb_step(*v, rv, f);
    } else if (rf & SB_HAS) {
        *v = rv;
        if (SB_ARG)
            *i = ri;
    }
    *f |= rf;
}

/* The binary counter over a work-item's consecutive nodes (see
 * src/host_reduce.c): a node enters at its level and combines with its
 * left neighbour of the same level, upwards. */
inline void sb_push(acc_t *sv, uint *sf, ulong *si, uint *sl, uint *top,
                    acc_t v, uint f, ulong i, uint level)
{
    while (*top > 0 && sl[*top - 1] == level) {
        acc_t l = sv[*top - 1];
        uint lf = sf[*top - 1];
        ulong li = SB_ARG ? si[*top - 1] : 0;
        sb_combine(&l, &lf, &li, v, f, i);
        v = l;
        f = lf;
        i = li;
        (*top)--;
        level++;
    }
    sv[*top] = v;
    sf[*top] = f;
    if (SB_ARG)
        si[*top] = i;
    sl[*top] = level;
    (*top)++;
}

/* What is left on the counter combines from the right: a lower node is a
 * subtree padded with none, which moves up until it meets its left
 * sibling. */
inline void sb_pop_all(acc_t *sv, uint *sf, ulong *si, uint top, acc_t *v,
                       uint *f, ulong *at)
{
    *v = sb_start();
    *f = 0;
    *at = 0;
    if (top == 0)
        return;
    *v = sv[top - 1];
    *f = sf[top - 1];
    *at = SB_ARG ? si[top - 1] : 0;
    for (int i = (int)top - 2; i >= 0; i--) {
        acc_t l = sv[i];
        uint lf = sf[i];
        ulong li = SB_ARG ? si[i] : 0;
        sb_combine(&l, &lf, &li, *v, *f, *at);
        *v = l;
        *f = lf;
        *at = li;
    }
}

/* ---- 1. leaves ---------------------------------------------------------------- */

/* One leaf of any shape: bounds and mask checked per element. Element i
 * of the reduction is x[i * step] (step 1 but in sb_columns, which has
 * no mask and no y). */
inline void sb_leaf(const global in_t *x, const global in_t *y,
                    const global uchar *mask, long step, ulong first,
                    ulong n, acc_t *v, uint *f, ulong *at)
{
    acc_t a = sb_start();
    uint fl = 0;
    *at = first;
    const ulong end = min(first + SB_LEAF_SIZE, n);
    for (ulong i = first; i < end; i++) {
        if (mask && !mask[i])
            continue;
        const in_t xi = x[(long)i * step];
        const in_t yi = SB_DOT ? y[i] : xi;
        if (SB_SKIP_NAN && (sb_in_is_nan(xi) || (SB_DOT && sb_in_is_nan(yi))))
            continue;                 /* as if masked out: no map, no flag */
        const acc_t e = sb_term(xi, yi, &fl);
        if (SB_ARG && (!(fl & SB_HAS) || sb_step_takes_right(a, e)))
            *at = i;
        a = (fl & SB_HAS) ? sb_step(a, e, &fl) : sb_first(e);
        fl |= SB_HAS;
    }
    *v = a;
    *f = fl;
}

/* Element k of the loaded vector E as the fold reads it (sb_term): a dot
 * product's other factor is in the vector of the same name with _y
 * (e0_y beside e0), loaded from y at the same positions (SB_LOAD_Y). */
#if SB_DOT
#define SB_TERM(E, k) sb_term(E.k, SB_CAT(E, _y).k, &fl)
#define SB_LOAD_Y(E, at) const in16_t SB_CAT(E, _y) = vload16(0, y + (at));
#else
#define SB_TERM(E, k) sb_term(E.k, E.k, &fl)
#define SB_LOAD_Y(E, at)
#endif

/* Four full leaves from element `at` as vectors E0..E3 (and, for a dot
 * product, their partners E0_y..E3_y). */
#define SB_LOAD_FOUR(E0, E1, E2, E3, at)                              \
    const in16_t E0 = vload16(0, x + (at));                           \
    const in16_t E1 = vload16(0, x + (at) + 16);                      \
    const in16_t E2 = vload16(0, x + (at) + 32);                      \
    const in16_t E3 = vload16(0, x + (at) + 48);                      \
    SB_LOAD_Y(E0, (at)) SB_LOAD_Y(E1, (at) + 16)                      \
    SB_LOAD_Y(E2, (at) + 32) SB_LOAD_Y(E3, (at) + 48)

/* Position k of four full leaves side by side: element k of each into
 * that leaf's chain. Four independent chains, one step of each in turn,
 * so that the core overlaps them. */
#define SB_STEP4(STEP, E0, E1, E2, E3, k)                             \
    a0 = STEP(a0, SB_TERM(E0, k), &fl);                               \
    a1 = STEP(a1, SB_TERM(E1, k), &fl);                               \
    a2 = STEP(a2, SB_TERM(E2, k), &fl);                               \
    a3 = STEP(a3, SB_TERM(E3, k), &fl);

/* Four full, unmasked leaves E0..E3 folded left to right, then their
 * aligned subtree into OUT: a node of level 2. Every leaf is full, so
 * there is no none and the tree is plain steps. A macro, so that each use
 * is straight-line code of one kind of step whatever the inliner decides
 * (as a function taking "plain or not" it is too large for POCL's
 * inliner, and the choice became a branch in every step). */
#define SB_FOLD_FOUR(STEP, E0, E1, E2, E3, OUT)                       \
    {                                                                 \
        acc_t a0 = sb_first(SB_TERM(E0, s0));                         \
        acc_t a1 = sb_first(SB_TERM(E1, s0));                         \
        acc_t a2 = sb_first(SB_TERM(E2, s0));                         \
        acc_t a3 = sb_first(SB_TERM(E3, s0));                         \
        SB_STEP4(STEP, E0, E1, E2, E3, s1)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s2)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s3)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s4)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s5)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s6)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s7)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s8)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, s9)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, sa)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, sb)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, sc)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, sd)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, se)                            \
        SB_STEP4(STEP, E0, E1, E2, E3, sf)                            \
        const acc_t l = STEP(a0, a1, &fl);                            \
        const acc_t r = STEP(a2, a3, &fl);                            \
        OUT = STEP(l, r, &fl);                                        \
    }

/* The plain step with the checked step's signature (it sets no flag). */
#define SB_PLAIN_STEP_F(a, b, f) sb_plain_step((a), (b))

/* Four full leaves from memory (enough chains for a GPU, whose
 * parallelism is across work-items): the plain fold when the group allows
 * it (the checked sum's window, the guarded grids), else the step's own.
 * The loads stay in this function: passing the four vectors to a fold
 * that is not inlined costs a lane extract per element (10-15% on POCL). */
inline void sb_four_leaves(const global in_t *x, const global in_t *y,
                           ulong first, acc_t *v, uint *f)
{
    SB_LOAD_FOUR(e0, e1, e2, e3, first)
    uint fl = 0;
#if SB_HAVE_PLAIN
    if (sb_group_is_plain(e0, e1, e2, e3))
        SB_FOLD_FOUR(SB_PLAIN_STEP_F, e0, e1, e2, e3, *v)
    else
#endif
        SB_FOLD_FOUR(sb_step, e0, e1, e2, e3, *v)
    *f = fl | SB_HAS;
}

/* Eight full leaves, a node of level 3: a CPU device, which runs a
 * work-group's items one after another, needs eight chains to keep two
 * vector adders busy, and two four-leaf folds in one function are
 * straight-line code that the core interleaves. */
inline void sb_eight_leaves(const global in_t *x, const global in_t *y,
                            ulong first, acc_t *v, uint *f)
{
    acc_t lo, hi;
    uint flo, fhi;
    sb_four_leaves(x, y, first, &lo, &flo);
    sb_four_leaves(x, y, first + 64, &hi, &fhi);
    uint fl = flo | fhi;
    *v = sb_step(lo, hi, &fl);
    *f = fl;
}

#if SB_ARG
/* Four full, unmasked leaves of argmin / argmax: sb_leaf()'s steps, with
 * positions, on four chains in turn (one chain per leaf is a chain of
 * dependent compares: on POCL a third of this speed), then their
 * subtree. i0..i3 are positions inside each leaf. */
#define SB_ARG_STEP(A, I, E, k, p)                                    \
    {                                                                 \
        const acc_t t_ = SB_TERM(E, k);                               \
        if (sb_step_takes_right(A, t_))                               \
            I = (p);                                                  \
        A = sb_step(A, t_, &fl);                                      \
    }
#define SB_ARG_STEP4(k, p)                                            \
    SB_ARG_STEP(a0, i0, e0, k, p) SB_ARG_STEP(a1, i1, e1, k, p)       \
    SB_ARG_STEP(a2, i2, e2, k, p) SB_ARG_STEP(a3, i3, e3, k, p)
inline void sb_four_arg_leaves(const global in_t *x, const global in_t *y,
                               ulong first, acc_t *v, uint *f, ulong *at)
{
    SB_LOAD_FOUR(e0, e1, e2, e3, first)
    uint fl = 0;
    acc_t a0 = sb_first(SB_TERM(e0, s0)), a1 = sb_first(SB_TERM(e1, s0));
    acc_t a2 = sb_first(SB_TERM(e2, s0)), a3 = sb_first(SB_TERM(e3, s0));
    uint i0 = 0, i1 = 0, i2 = 0, i3 = 0;
    SB_ARG_STEP4(s1, 1) SB_ARG_STEP4(s2, 2) SB_ARG_STEP4(s3, 3)
    SB_ARG_STEP4(s4, 4) SB_ARG_STEP4(s5, 5) SB_ARG_STEP4(s6, 6)
    SB_ARG_STEP4(s7, 7) SB_ARG_STEP4(s8, 8) SB_ARG_STEP4(s9, 9)
    SB_ARG_STEP4(sa, 10) SB_ARG_STEP4(sb, 11) SB_ARG_STEP4(sc, 12)
    SB_ARG_STEP4(sd, 13) SB_ARG_STEP4(se, 14) SB_ARG_STEP4(sf, 15)
    ulong p0 = first + i0, p1 = first + 16 + i1;
    ulong p2 = first + 32 + i2, p3 = first + 48 + i3;
    uint f0 = fl | SB_HAS, f1 = SB_HAS, f2 = fl | SB_HAS, f3 = SB_HAS;
    sb_combine(&a0, &f0, &p0, a1, f1, p1);
    sb_combine(&a2, &f2, &p2, a3, f3, p3);
    sb_combine(&a0, &f0, &p0, a2, f2, p2);
    *v = a0;
    *f = f0;
    *at = p0;
}
#undef SB_ARG_STEP4
#undef SB_ARG_STEP
#endif

/* Whole items tested once for the plain fold: the guarded floats. The
 * checked integer sum keeps its test per four leaves: it is as fast
 * either way on POCL, and Oclgrind 21.10's uninitialised-memory checker
 * crashes on its eight-leaf plain fold. */
#define SB_PLAIN_ITEMS (SB_HAVE_PLAIN && SB_ACC_KIND != SB_KIND_INT && \
                        SB_CHAIN_FOLDS)

#if SB_PLAIN_ITEMS
/* Whether all `count` full leaves from element `first` (a multiple of
 * four leaves) allow the plain fold: tested once per work-item, before
 * its fold, in a pass of its own over data the fold then reads from the
 * cache. Tested inside the fold, the vectors it loads are kept for the
 * fold too, which then extracts every element from them (on POCL 0.8 of
 * the native f32 sum, against 0.9-1 this way). */
inline int sb_leaves_are_plain(const global in_t *x, ulong first, uint count)
{
    int plain = 1;
    for (uint l = 0; l < count; l += 4) {
        const ulong at = first + (ulong)l * SB_LEAF_SIZE;
        plain &= sb_group_is_plain(vload16(0, x + at), vload16(0, x + at + 16),
                                   vload16(0, x + at + 32),
                                   vload16(0, x + at + 48));
    }
    return plain;
}

/* Eight full leaves known to allow the plain fold: the native fold's
 * code with the plain step. */
inline void sb_eight_plain_leaves(const global in_t *x,
                                  const global in_t *y, ulong first,
                                  acc_t *v, uint *f)
{
    uint fl = 0;
    acc_t lo, hi;
    {
        SB_LOAD_FOUR(e0, e1, e2, e3, first)
        SB_FOLD_FOUR(SB_PLAIN_STEP_F, e0, e1, e2, e3, lo)
    }
    {
        SB_LOAD_FOUR(e4, e5, e6, e7, first + 64)
        SB_FOLD_FOUR(SB_PLAIN_STEP_F, e4, e5, e6, e7, hi)
    }
    *v = sb_plain_step(lo, hi);
    *f = fl | SB_HAS;
}
#endif

/* SB_CAN_PREFETCH: on a CPU device (POCL) the folds of whole items
 * (order-free integer items, float leaves in vector lanes, masked or not:
 * the mask's lines too) ask for the lines `ahead` bytes ahead (0: none),
 * as the host path does (samebits.h,
 * SAMEBITS_PREFETCH): a work-item's loop leaves the hardware's
 * prefetchers too close behind. The distance is a kernel argument, not a
 * build option: the host measures it (src/host_prefetch.c), and a
 * program whose text changed with a timing would be a new program for
 * POCL's kernel cache, compiled again (seconds) by any process whose
 * measurement came out otherwise. The address goes through an integer to
 * clang's __builtin_prefetch, since OpenCL's prefetch() is a no-op in
 * POCL. A prefetch never faults. Given only where the device compiler is
 * clang on a CPU (src/device_programs.c). */
#if SB_CAN_PREFETCH
#define SB_PREFETCH_AHEAD(p, bytes, ahead)                                   \
    do {                                                                     \
        const ulong at_ = (ulong)(p) + (ahead);                              \
        if ((ahead) != 0)                                                    \
            for (uint k_ = 0; k_ < (bytes) / 64; k_++)                       \
                __builtin_prefetch((const void *)(at_ + 64 * k_));           \
    } while (0)
#else
#define SB_PREFETCH_AHEAD(p, bytes, ahead)
#endif

/* ---- 1'. items whose subtree does not depend on the order ------------------ */

/* Integer min and max, wrapping sums and products, and a checked sum whose
 * elements are too small for any partial of the item to overflow: the
 * item's node is then the same value whatever the grouping (min and max
 * pick a value, and equal integers are the same bits; wrapping arithmetic
 * is associative and commutative; an exact sum that never overflows is
 * the wrapping one), so a full item (masked too, below) folds its lpi
 * leaves as 16-lane vectors, four independent ones, and reduces the lanes at the
 * end: a read's loop with one vector op per load. The leaf-by-leaf fold
 * extracted lanes for its sixteen chains (on POCL 0.5-0.65 of its read
 * kernel for the i32 sum). */
/* With a map or a product when it wraps (SB_WRAP then covers the sum or
 * product too), or when no term can overflow (SB_TERMS_FIT: |x|, x² and
 * dot products of i32 into i64, ...; src/device_programs.c): a term that
 * could would need its overflow tested per lane. The checked sum's window
 * is then on the terms, as the lanes hold them (sb_vterm). These folded
 * leaf by leaf with a test per step, on POCL 0.19-0.44 of the plain sum
 * (i32 into i64, 2^27). */
/* Not for a count, whose lanes would hold the elements, not 1s. */
#if SB_WIDE_FOLDS_OK && SB_ACC_KIND == SB_KIND_INT && \
    SB_IN_KIND == SB_KIND_INT && !SB_IS_BOOLEAN && !SB_COUNT && \
    (SB_WRAP || ((!SB_TERMS || SB_TERMS_FIT) && \
     (SB_OP == SB_OP_MIN || SB_OP == SB_OP_MAX || \
      (SB_OP == SB_OP_SUM && SB_ACC_BITS >= 32))))
#define SB_ORDER_FREE_ITEMS 1
#if SB_ACC_BITS == 8
#define SB_UW_NAME uchar
#elif SB_ACC_BITS == 16
#define SB_UW_NAME ushort
#elif SB_ACC_BITS == 32
#define SB_UW_NAME uint
#else
#define SB_UW_NAME ulong
#endif
typedef SB_CAT(SB_UW_NAME, 16) uw16_t;

/* The lanes: min and max in the accumulator's own type (its compare);
 * sums and products in unsigned lanes, which wrap where signed ones would
 * be undefined (C's conversion to unsigned is modular, so a signed
 * element converts as its two's complement). */
#if SB_OP == SB_OP_MIN || SB_OP == SB_OP_MAX
#define SB_V_NAME SB_ACC_T
#else
#define SB_V_NAME SB_UW_NAME
#endif
typedef SB_CAT(SB_V_NAME, 16) vacc16_t;
typedef SB_CAT(SB_ACC_T, 16) acc16_t;
#define SB_AS_UW16(v) SB_CAT(as_, SB_CAT(SB_UW_NAME, 16))(v)
#define SB_AS_ACC16(v) SB_CAT(as_, SB_CAT(SB_ACC_T, 16))(v)
#define SB_AS_V16(v) SB_CAT(as_, SB_CAT(SB_V_NAME, 16))(v)
#define SB_TO_ACC16(e) SB_CAT(convert_, SB_CAT(SB_ACC_T, 16))(e)

/* Sixteen elements from x + at (and y + at) as the lanes read them: converted,
 * then the wrapping map or product (sb_term's, lane by lane: vector
 * arithmetic on small types does not promote, so it wraps at their width;
 * abs() returns the unsigned magnitude, whose bits are the wrapped abs). */
inline vacc16_t sb_vterm(const global in_t *x, const global in_t *y,
                         ulong at)
{
    const acc16_t a = SB_TO_ACC16(vload16(0, x + at));
#if SB_DOT
    const acc16_t b = SB_TO_ACC16(vload16(0, y + at));
    return SB_AS_V16(SB_AS_UW16(a) * SB_AS_UW16(b));
#elif SB_MAP == SB_MAP_SQUARE
    return SB_AS_V16(SB_AS_UW16(a) * SB_AS_UW16(a));
#elif SB_MAP == SB_MAP_ABS && SB_ACC_SIGNED && !SB_ABS_BY_SELECT
    /* (a ^ s) - s, s all ones where a < 0, as sb_term_abs() spells it:
     * POCL's abs() of a long16 read 19-25 GB/s of i32 into i64 where
     * x² read 35 (2^22). */
    const uw16_t s = SB_AS_UW16(a >> (SB_ACC_BITS - 1));
    return SB_AS_V16((SB_AS_UW16(a) ^ s) - s);
#elif SB_MAP == SB_MAP_ABS
    return SB_AS_V16(abs(a));
#else
    return SB_AS_V16(a);
#endif
}
#define SB_VLOAD_AT(at) sb_vterm(x, y, (at))
#if SB_OP == SB_OP_MIN
#define SB_VOP(a, b) min((a), (b))
#elif SB_OP == SB_OP_MAX
#define SB_VOP(a, b) max((a), (b))
#elif SB_OP == SB_OP_SUM
#define SB_VOP(a, b) ((a) + (b))
#else
#define SB_VOP(a, b) ((a) * (b))
#endif

/* The checked sum's window for `count` = 2^k terms: every term in
 * [-2^(b-1-k), 2^(b-1-k)) (signed) or below 2^(b-k) (unsigned), so that no
 * sum of up to 2^k of them leaves the accumulator's range. The OR of the
 * offset lanes is below 2^(b-k) exactly when every lane is. */
#define SB_ITEM_WINDOW (SB_OP == SB_OP_SUM && !SB_WRAP)

/* A masked item's lanes: an element that does not take part is the
 * op's identity (0, 1, the type's largest for min, its smallest for max),
 * which changes no sum, product, min or max of the others; `any` gathers
 * the mask, and an item with no element taking part is no node. A masked
 * i32 sum into i64 folded leaf by leaf with a test per element: on POCL
 * 2.9 GB/s against 27.5 unmasked (2^27). */
#if SB_OP == SB_OP_MIN && SB_ACC_SIGNED
#define SB_V_IDENTITY \
    SB_AS_V16((uw16_t)(SB_UW_NAME)(((SB_UW_NAME)1 << (SB_ACC_BITS - 1)) - 1))
#elif SB_OP == SB_OP_MIN
#define SB_V_IDENTITY SB_AS_V16((uw16_t)(SB_UW_NAME)~(SB_UW_NAME)0)
#elif SB_OP == SB_OP_MAX && SB_ACC_SIGNED
#define SB_V_IDENTITY \
    SB_AS_V16((uw16_t)(SB_UW_NAME)((SB_UW_NAME)1 << (SB_ACC_BITS - 1)))
#elif SB_OP == SB_OP_PROD
#define SB_V_IDENTITY ((vacc16_t)1)
#else
#define SB_V_IDENTITY ((vacc16_t)0)
#endif
#if SB_ACC_BITS == 8
#define SB_SW_NAME char
#elif SB_ACC_BITS == 16
#define SB_SW_NAME short
#elif SB_ACC_BITS == 32
#define SB_SW_NAME int
#else
#define SB_SW_NAME long
#endif
inline vacc16_t sb_vterm_masked(const global in_t *x, const global in_t *y,
                                const global uchar *mask, ulong at,
                                uchar16 *any)
{
    const uchar16 m = vload16(0, mask + at);
    *any |= m;
    /* all ones where the element takes part, as select() reads it */
    const SB_CAT(SB_SW_NAME, 16) keep =
        SB_CAT(convert_, SB_CAT(SB_SW_NAME, 16))(m != (uchar16)0);
    return select(SB_V_IDENTITY, sb_vterm(x, y, at), keep);
}
#define SB_VLOAD_MASKED_AT(at) sb_vterm_masked(x, y, mask, (at), &any)

/* An item's lanes: LOAD(at) reads the 16 lanes of a leaf from element
 * `at`; MASKED: its mask's lines are prefetched too. */
#define SB_ORDER_FREE_FOLD(LOAD, MASKED)                                   \
    if (lpi >= 4) {                                                        \
        a0 = LOAD(first);                                                  \
        a1 = LOAD(first + 16);                                             \
        a2 = LOAD(first + 32);                                             \
        a3 = LOAD(first + 48);                                             \
        SB_WINDOW_ADD(a0) SB_WINDOW_ADD(a1) SB_WINDOW_ADD(a2)              \
        SB_WINDOW_ADD(a3)                                                  \
        for (l = 4; l < lpi; l += 4) {                                     \
            const ulong at = first + (ulong)l * SB_LEAF_SIZE;              \
            SB_PREFETCH_AHEAD(x + at, 64 * sizeof(in_t), ahead);           \
            if (SB_DOT)                                                    \
                SB_PREFETCH_AHEAD(y + at, 64 * sizeof(in_t), ahead);       \
            if (MASKED)                                                    \
                SB_PREFETCH_AHEAD(mask + at, 64, ahead);                   \
            const vacc16_t b0 = LOAD(at);                                  \
            const vacc16_t b1 = LOAD(at + 16);                             \
            const vacc16_t b2 = LOAD(at + 32);                             \
            const vacc16_t b3 = LOAD(at + 48);                             \
            SB_WINDOW_ADD(b0) SB_WINDOW_ADD(b1) SB_WINDOW_ADD(b2)          \
            SB_WINDOW_ADD(b3)                                              \
            a0 = SB_VOP(a0, b0);                                           \
            a1 = SB_VOP(a1, b1);                                           \
            a2 = SB_VOP(a2, b2);                                           \
            a3 = SB_VOP(a3, b3);                                           \
        }                                                                  \
        a0 = SB_VOP(SB_VOP(a0, a1), SB_VOP(a2, a3));                       \
    } else {                                                               \
        a0 = LOAD(first);                                                  \
        SB_WINDOW_ADD(a0)                                                  \
        for (l = 1; l < lpi; l++) {                                        \
            const vacc16_t b = LOAD(first + l * 16);                       \
            SB_WINDOW_ADD(b)                                               \
            a0 = SB_VOP(a0, b);                                            \
        }                                                                  \
    }

/* Whether this item takes the order-free fold, and if so its node (v,
 * f). The caller has checked that the item is full, and has no NaN to
 * skip and no position to keep; `mask` may be NULL. */
inline int sb_order_free_item(const global in_t *x, const global in_t *y,
                              const global uchar *mask, ulong first,
                              uint lpi, uint ahead, acc_t *v, uint *f)
{
    const uint k = 31u - clz(lpi) + 4u;   /* log2(lpi * 16) */
#if SB_ITEM_WINDOW
    if (k + 2u > (uint)SB_ACC_BITS)
        return 0;
#if SB_ACC_SIGNED
    const uw16_t offset = (uw16_t)((SB_UW_NAME)1 << (SB_ACC_BITS - 1 - k));
#else
    const uw16_t offset = (uw16_t)0;
#endif
    uw16_t window = (uw16_t)0;
#define SB_WINDOW_ADD(a) window |= SB_AS_UW16(a) + offset;
#else
#define SB_WINDOW_ADD(a)
#endif
    vacc16_t a0, a1, a2, a3;
    uint l;
    uchar16 any = (uchar16)0;
    if (mask == 0) {
        any = (uchar16)1;
        SB_ORDER_FREE_FOLD(SB_VLOAD_AT, 0)
    } else {
        SB_ORDER_FREE_FOLD(SB_VLOAD_MASKED_AT, 1)
    }
#undef SB_WINDOW_ADD
#if SB_ITEM_WINDOW
    {
        const SB_CAT(SB_UW_NAME, 8) w8 = window.lo | window.hi;
        const SB_CAT(SB_UW_NAME, 4) w4 = w8.lo | w8.hi;
        const SB_CAT(SB_UW_NAME, 2) w2 = w4.lo | w4.hi;
        if (((w2.x | w2.y) >> (SB_ACC_BITS - k)) != 0)
            return 0;
    }
#endif
    /* The lanes, halving; the last step on two lanes too, as a scalar op
     * would promote small types to int (where a product can overflow). */
    const SB_CAT(SB_V_NAME, 8) h8 = SB_VOP(a0.lo, a0.hi);
    const SB_CAT(SB_V_NAME, 4) h4 = SB_VOP(h8.lo, h8.hi);
    const SB_CAT(SB_V_NAME, 2) h2 = SB_VOP(h4.lo, h4.hi);
    *v = SB_AS_ACC(SB_VOP(h2, h2.yx).x);
    const uchar8 any8 = any.lo | any.hi;
    const uchar4 any4 = any8.lo | any8.hi;
    const uchar2 any2 = any4.lo | any4.hi;
    *f = (any2.x | any2.y) != 0 ? SB_HAS : 0u;
    return 1;
}
#else
#define SB_ORDER_FREE_ITEMS 0
#endif

/* ---- 1''. native floats: leaves side by side in vector lanes --------------- */

/* On a CPU device each work-item's leaves fold one after another, and a
 * leaf is a chain of dependent steps: the four- and eight-leaf folds
 * above keep four chains in flight per call, about 12 GB/s of f32 per
 * POCL thread in cache, which is the memory's speed here and below it on
 * others. A native f32 (f64) sum, min or max of full, unmasked leaves
 * instead loads W = 16 (8) leaves, transposes them in registers so that
 * lane l of vector j is element j of leaf l, and folds all W leaves with
 * one vector step per position: each lane is still its leaf's
 * left-to-right chain, the same steps in the same order. The lanes then
 * combine as their aligned subtree, even lane (left) with odd lane
 * (right), level by level. The transpose is log2(W) stages; stage d pairs
 * vectors i and i + d (i without bit d) and swaps bit d between the
 * vector index and the lane index: lane c of the low result is A[c] where
 * c lacks bit d, else B[c ^ d]; of the high one A[c ^ d], else B[c].
 * Only where an item has W leaves or more (a CPU's shape; a GPU's four
 * leaves per item keep their parallelism across items). A conversion
 * (f32 or a half into f64, a half into f32) takes hardware binary32
 * arithmetic, so only where f32 is native too: a guarded f32 is stored
 * as bits, and a flushing one would lose bf16 subnormals. The host
 * decides where (src/device_programs.c, lane_leaves(): also not on
 * llvmpipe, whose JIT takes long over unrolled folds) and says so in
 * SB_LANE_LEAVES, which its launches follow; what the lanes cannot do
 * without is checked here too, so that a wrong decision fails the build
 * instead of changing bits. */
#if SB_LANE_LEAVES
#if !SB_ACC_NATIVE_FLOAT || \
    !(SB_OP == SB_OP_SUM || SB_OP == SB_OP_MIN || SB_OP == SB_OP_MAX) || \
    (SB_IN_KIND != SB_ACC_KIND && SB_IN_KIND != SB_KIND_INT && \
     SB_F32_MODE != SB_MODE_NATIVE) || \
    !(SB_IN_KIND == SB_ACC_KIND || SB_IN_HALF || SB_IN_KIND == SB_KIND_INT || \
      (SB_IN_KIND == SB_KIND_F32 && SB_ACC_KIND == SB_KIND_F64))
#error "SB_LANE_LEAVES: the lanes need a native float accumulator of a sum, min or max, an input they load exactly and, to convert a float, native f32"
#endif
/* Every loop here unrolled, so that the W vectors stay in registers. */
#define SB_UNROLL _Pragma("unroll")
#define SB_T16_LO1 0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28, 14, 30
#define SB_T16_HI1 1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31
#define SB_T16_LO2 0, 1, 16, 17, 4, 5, 20, 21, 8, 9, 24, 25, 12, 13, 28, 29
#define SB_T16_HI2 2, 3, 18, 19, 6, 7, 22, 23, 10, 11, 26, 27, 14, 15, 30, 31
#define SB_T16_LO4 0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27
#define SB_T16_HI4 4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31
#define SB_T16_LO8 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23
#define SB_T16_HI8 8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31
#define SB_T8_LO1 0, 8, 2, 10, 4, 12, 6, 14
#define SB_T8_HI1 1, 9, 3, 11, 5, 13, 7, 15
#define SB_T8_LO2 0, 1, 8, 9, 4, 5, 12, 13
#define SB_T8_HI2 2, 3, 10, 11, 6, 7, 14, 15
#define SB_T8_LO4 0, 1, 2, 3, 8, 9, 10, 11
#define SB_T8_HI4 4, 5, 6, 7, 12, 13, 14, 15
#if defined(__clang__)
#define SB_SHUFFLE(A, B, M) __builtin_shufflevector((A), (B), M)
#elif SB_ACC_KIND == SB_KIND_F32
#define SB_SHUFFLE(A, B, M) shuffle2((A), (B), (uint16)(M))
#else
#define SB_SHUFFLE(A, B, M) shuffle2((A), (B), (ulong8)(M))
#endif
/* The masks of stage d for SB_LANES lanes: SB_T16_LO1 ... SB_T8_HI4. */
#define SB_MASK(half, d) SB_CAT(SB_CAT(SB_T, SB_LANES), SB_CAT(half, d))
#define SB_SWAP_BIT(r, i, d)                                          \
    {                                                                 \
        const vecw_t lo_ = SB_SHUFFLE(r[i], r[i + d], SB_MASK(_LO, d)); \
        const vecw_t hi_ = SB_SHUFFLE(r[i], r[i + d], SB_MASK(_HI, d)); \
        r[i] = lo_;                                                   \
        r[i + d] = hi_;                                               \
    }

/* A half accumulator (its nodes are floats that are exactly half values)
 * rounds each sum, square and product to its type, as sb_step() and
 * sb_term() do one lane at a time (arith_half.cl), here on 16 lanes with
 * no branch: the same bits as sb_round_f16() / sb_round_bf16() (the f16
 * formula below, modelled in C, equals the host's scalar rounding on every
 * binary32 pattern, flushed or not: tests/test_half_rounding_sweep.c;
 * test_device_half and the corpus compare the kernels with the oracle on
 * every device). f16 by adding and subtracting c, 2^13
 * times the binade of v (2^-1 at least) with v's sign: v + c lies in c's
 * binade, where binary32's spacing is f16's spacing in v's binade (2^-24
 * in f16's subnormal range), so the add rounds v to f16's precision,
 * nearest even (c is an even multiple of that spacing; a carry into the
 * next binade is exact), and subtracting c is exact. |v| >= 65520 (the
 * tie of max and 2^16 goes to the even 2^16) is an overflow to inf; the
 * sign bit put back keeps -0. No binary32 subnormal is made, and one read
 * rounds to 0 all the same: a flushing device gives the same bits. A NaN
 * stays a NaN (sb_vround_acc_kept(): some NaN; sb_vround_acc(): the
 * canonical one). c's field is added unsigned: from binary32's field 243
 * up (|v| >= 2^116, inf, NaN) it runs into the sign bit, a defined wrap,
 * and the overflow select (inf) or the NaN itself decides those lanes.
 * Eleven operations, one of them a select, where the bit rounding took
 * sixteen with three (POCL f16 sums into f16 1.1x, with the sets below). */
#if SB_ACC_HALF == SB_KIND_F16
inline float16 sb_vround_acc_kept(float16 v)
{
    const uint16 b = as_uint16(v);
    const uint16 sign = b & (uint16)0x80000000u;
    const uint16 c_field = max(b & (uint16)0x7F800000u, (uint16)0x38800000u)
                           + (uint16)(13u << 23);
    const float16 c = as_float16(c_field | sign);
    const float16 r = (v + c) - c;
    return as_float16(select(as_uint16(r), (uint16)0x7F800000u,
                             fabs(v) >= (float16)65520.0f) | sign);
}
inline float16 sb_vround_acc(float16 v)
{
    return as_float16(select(as_uint16(sb_vround_acc_kept(v)),
                             (uint16)0x7FC00000u, isnan(v)));
}
#elif SB_ACC_HALF == SB_KIND_BF16
/* bf16: a carry into bit 16 (up to inf); any NaN the canonical one. */
inline float16 sb_vround_acc(float16 v)
{
    const uint16 b = as_uint16(v);
    const uint16 r = (b + (uint16)0x7FFFu + ((b >> 16) & (uint16)1u))
                   & (uint16)0xFFFF0000u;
    return as_float16(select(r, (uint16)0x7FC00000u,
                             (b & (uint16)0x7FFFFFFFu) > (uint16)0x7F800000u));
}
/* With the NaN test at every step: without it, POCL's bf16 sums into
 * bf16 ran at 0.83-0.85 of this (the sets below). */
#define sb_vround_acc_kept(v) sb_vround_acc(v)
#else
#define sb_vround_acc(v) (v)
#endif

/* The step on whole vectors, exactly sb_step() per lane: the right side
 * only when strictly less (greater), so NaNs and signed zeros follow as
 * there; and sb_first(). */
#if SB_OP == SB_OP_SUM
#define SB_VSTEP(a, b) sb_vround_acc((a) + (b))
#define SB_VFIRST(e) select((e), (vecw_t)SB_ACC_ZERO, (e) == (vecw_t)SB_ACC_ZERO)
#elif SB_OP == SB_OP_MIN
#define SB_VSTEP(a, b) select((a), (b), (b) < (a))
#define SB_VFIRST(e) (e)
#else
#define SB_VSTEP(a, b) select((a), (b), (a) < (b))
#define SB_VFIRST(e) (e)
#endif

/* A binary counter of vectors (sb_push() and sb_pop_all() for lanes that
 * all build the same tree: every lane has every leaf, so no flags): node
 * a of level 0 enters and combines with its left neighbours of the same
 * level; what is left combines from the right. */
#define SB_VPUSH(sv, sl, top, a)                                      \
    {                                                                 \
        uint level_ = 0;                                              \
        while ((top) > 0 && (sl)[(top) - 1] == level_) {              \
            (a) = SB_VSTEP((sv)[(top) - 1], (a));                     \
            (top)--;                                                  \
            level_++;                                                 \
        }                                                             \
        (sv)[(top)] = (a);                                            \
        (sl)[(top)] = level_;                                         \
        (top)++;                                                      \
    }
#define SB_VPOP_ALL(sv, top, v)                                       \
    {                                                                 \
        (v) = (sv)[(top) - 1];                                        \
        for (int k_ = (int)(top) - 2; k_ >= 0; k_--)                  \
            (v) = SB_VSTEP((sv)[k_], (v));                            \
    }

#if SB_IN_KIND == SB_KIND_F16
/* 16 f16 patterns as floats, exactly, with no branch and no select (the
 * element-by-element conversion of sb_load() kept POCL's f16 sums at 0.07
 * of its f32 sum, bf16 at 0.25; a form with three selects, at 0.55):
 * the exponent and fraction fields moved to binary32's places and the
 * exponent rebased by 127 - 15; inf and NaN (all-ones field) rebased
 * once more, which lands on binary32's all-ones field; subnormal or zero,
 * f 2^-24 with f < 2^10, made the normal 2^-14 (1 + f 2^-10) and 2^-14
 * subtracted, exactly (both sides are binary32 normals: no subnormal is
 * read or made). For the others 0 is
 * subtracted, which changes nothing but a NaN's payload, and a NaN result
 * is the canonical one anyway. */
inline float16 sb_f16x16_to_float16(ushort16 h16)
{
    const uint16 h = convert_uint16(h16);
    const uint16 mag = h & (uint16)0x7FFFu;
    const uint16 special = as_uint16(mag >= (uint16)0x7C00u);
    const uint16 small = as_uint16(mag < (uint16)0x400u);
    const uint16 r = (mag << 13) + (uint16)0x38000000u
                   + (special & (uint16)0x38000000u)
                   + (small & (uint16)0x00800000u);
    const float16 v = as_float16(r) - as_float16(small & (uint16)0x38800000u);
    return as_float16(as_uint16(v) | ((h & (uint16)0x8000u) << 16));
}
#endif

#if SB_ACC_KIND == SB_KIND_F32
#define SB_LANES 16
#define SB_LANES_LOG2 4
#if SB_IN_KIND == SB_KIND_F16
#if SB_HALF_LOADS
/* Where the build says the device's own conversion is exact
 * (src/device_programs.c, half_loads_ok(): POCL's CPU device on an x86
 * CPU with F16C, whose vcvtph2ps converts every f16 pattern exactly): one
 * instruction for 16 elements instead of about eleven (POCL's f16 sums
 * into f32 at 2^27 went from 18 GB/s with the form below, 15.9 with its
 * selects, to 26-27; bf16 sums: 29). */
#define SB_VLOADW(p) vload_half16(0, (const global half *)(p))
#else
#define SB_VLOADW(p) sb_f16x16_to_float16(vload16(0, (p)))
#endif
#elif SB_IN_KIND == SB_KIND_BF16
/* 16 bf16 patterns as floats: the upper halves of the binary32s. */
#define SB_VLOADW(p) as_float16(convert_uint16(vload16(0, (p))) << 16)
#elif SB_IN_KIND == SB_KIND_INT
/* An integer the accumulator holds exactly (the only ones a plan lets
 * into a float): its conversion, no float arithmetic. */
#define SB_VLOADW(p) convert_float16(vload16(0, (p)))
#else
#define SB_VLOADW(p) vload16(0, (p))
#endif
#else
#define SB_LANES 8
#define SB_LANES_LOG2 3
/* Into f64, 8 elements converted as they load (every f32, f16 and bf16
 * value is a double exactly): no conversion pass. Before, f32 sums into
 * f64 ran leaf by leaf at 0.26-0.31 of the f64 sum, f16 ones at 1.7 GB/s
 * (POCL, Zen 5 VM). */
#if SB_IN_KIND == SB_KIND_F32
#define SB_VLOADW(p) convert_double8(vload8(0, (p)))
#elif SB_IN_KIND == SB_KIND_F16 && SB_HALF_LOADS
/* Two vload_half4, not one vload_half8: in the columns kernel (f16 sums
 * into f64, POCL 3.1) vload_half8 became an aligned 16-byte load
 * (vmovdqa) of an address aligned to 2 and crashed; an 8-byte load has
 * no aligned-only form. 11 GB/s at 2^22 against 5 for the arithmetic
 * below (Zen 5 VM, bench --maps). */
#define SB_VLOADW(p)                                                       \
    convert_double8((float8)(vload_half4(0, (const global half *)(p)),    \
                             vload_half4(1, (const global half *)(p))))
#elif SB_IN_KIND == SB_KIND_F16
#define SB_VLOADW(p) \
    convert_double8(sb_f16x16_to_float16((ushort16)(vload8(0, (p)), \
                                                    (ushort8)0)).lo)
#elif SB_IN_KIND == SB_KIND_BF16
#define SB_VLOADW(p) \
    convert_double8(as_float8(convert_uint8(vload8(0, (p))) << 16))
#elif SB_IN_KIND == SB_KIND_INT
#define SB_VLOADW(p) convert_double8(vload8(0, (p)))
#else
#define SB_VLOADW(p) vload8(0, (p))
#endif
#endif
typedef SB_CAT(SB_ACC_T, SB_LANES) vecw_t;

/* A row piece as the fold reads it: the map or product is position by
 * position, so it is applied before the transpose (sb_term's, lane by
 * lane: fabs clears the sign bit, one rounded multiply, never fused with
 * the fold's add: FP_CONTRACT is off). */
#if SB_DOT
#define SB_VTERMW(at) sb_vround_acc(SB_VLOADW(x + (at)) * SB_VLOADW(y + (at)))
#elif SB_MAP == SB_MAP_SQUARE
#define SB_VTERMW(at) sb_vsquare(SB_VLOADW(x + (at)))
inline vecw_t sb_vsquare(vecw_t v) { return sb_vround_acc(v * v); }
#elif SB_MAP == SB_MAP_ABS
#define SB_VTERMW(at) fabs(SB_VLOADW(x + (at)))
#else
#define SB_VTERMW(at) SB_VLOADW(x + (at))
#endif

/* Stage d of the transpose: every pair (i, i + d) with i lacking bit d. */
#define SB_TRANSPOSE_STAGE(r, d)                                      \
    SB_UNROLL for (int i = 0; i < SB_LANES; i++)                      \
        if ((i & d) == 0)                                             \
            SB_SWAP_BIT(r, i, d)

SB_FN_INLINE void sb_transpose_lanes(vecw_t *r)
{
    SB_TRANSPOSE_STAGE(r, 1)
    SB_TRANSPOSE_STAGE(r, 2)
    SB_TRANSPOSE_STAGE(r, 4)
#if SB_LANES == 16
    SB_TRANSPOSE_STAGE(r, 8)
#endif
}

/* The aligned subtree of the lanes, a node of level SB_LANES_LOG2. */
#if SB_ACC_HALF && SB_OP == SB_OP_SUM
inline acc_t sb_lane_tree(vecw_t a)
{
    /* Each level kept in 16 lanes (the upper ones copies, unused), as
     * sb_vround_acc() takes them. */
    const vecw_t a8 = SB_VSTEP((vecw_t)(a.even, a.even),
                               (vecw_t)(a.odd, a.odd));
    const vecw_t b = SB_VSTEP((vecw_t)(a8.s0246, a8.s0246, a8.s0246,
                                       a8.s0246),
                              (vecw_t)(a8.s1357, a8.s1357, a8.s1357,
                                       a8.s1357));
    const vecw_t c = SB_VSTEP((vecw_t)(b.s0, b.s2, b.s0, b.s2, b.s0, b.s2,
                                       b.s0, b.s2, b.s0, b.s2, b.s0, b.s2,
                                       b.s0, b.s2, b.s0, b.s2),
                              (vecw_t)(b.s1, b.s3, b.s1, b.s3, b.s1, b.s3,
                                       b.s1, b.s3, b.s1, b.s3, b.s1, b.s3,
                                       b.s1, b.s3, b.s1, b.s3));
    uint f = 0;
    return sb_step(c.s0, c.s1, &f);
}
#else
inline acc_t sb_lane_tree(vecw_t a)
{
#if SB_LANES == 16
    const SB_CAT(SB_ACC_T, 8) a8 = SB_VSTEP(a.even, a.odd);
#else
    const vecw_t a8 = a;
#endif
    const SB_CAT(SB_ACC_T, 4) b = SB_VSTEP(a8.even, a8.odd);
    const SB_CAT(SB_ACC_T, 2) c = SB_VSTEP(b.even, b.odd);
    uint f = 0;
    return sb_step(c.x, c.y, &f);
}
#endif

/* SB_LANES full, unmasked leaves from element `first`, folded: lane l is
 * leaf l's chain. Each leaf is loaded as 16 / SB_LANES row pieces; piece
 * p of every leaf, transposed, gives positions p * SB_LANES ... of all of
 * them. */
SB_FN_INLINE vecw_t sb_lane_fold(const global in_t *x, const global in_t *y,
                                 ulong first)
{
    vecw_t a = (vecw_t)SB_ACC_ZERO;
    SB_UNROLL for (int p = 0; p < SB_LEAF_SIZE / SB_LANES; p++) {
        vecw_t r[SB_LANES];
        SB_UNROLL for (int l = 0; l < SB_LANES; l++)
            r[l] = SB_VTERMW(first + (ulong)l * SB_LEAF_SIZE + p * SB_LANES);
        sb_transpose_lanes(r);
        a = p == 0 ? SB_VFIRST(r[0]) : SB_VSTEP(a, r[0]);
        SB_UNROLL for (int j = 1; j < SB_LANES; j++)
            a = SB_VSTEP(a, r[j]);
    }
    return a;
}

/* A half accumulator's sum: SB_HALF_SETS (the host's choice: 8 on a CPU,
 * src/device_programs.c) runs of SB_LANES leaves folded side by side,
 * their steps taken in turn, each run's lanes as sb_lane_fold() folds
 * them. Each step is an add and a rounding, about 15 cycles of latency,
 * and one run was one dependent chain of them (sb_lane_leaves2()'s two
 * runs each a chain of their own, one after the other): POCL's f16 sums
 * into f16 read 7.5 GB/s on two threads, bf16 15 (Zen 5 VM, 2^27),
 * against 45 for f16 into f32. With eight chains in flight: 17.8 and
 * 24.4; with the trees below too, 22.4 and 27.9. The steps keep NaNs
 * as some NaN (sb_vround_acc_kept): the first level of the runs' tree
 * (SB_LANE_PAIRS) takes every lane through SB_VSTEP, whose
 * sb_vround_acc() makes it the canonical one. */
#if SB_ACC_HALF && SB_OP == SB_OP_SUM && SB_HALF_SETS_LOG2 > 0
#define SB_HALF_SETS (1 << SB_HALF_SETS_LOG2)
#define SB_VSTEP_KEPT(a, b) sb_vround_acc_kept((a) + (b))
/* `sets` (2 .. SB_HALF_SETS) runs of SB_LANES full, unmasked leaves from
 * element `first`, folded into a[0 .. sets - 1]. */
SB_FN_INLINE void sb_lane_fold_sets(const global in_t *x, const global in_t *y,
                                    ulong first, vecw_t *a, const int sets)
{
    SB_UNROLL for (int p = 0; p < SB_LEAF_SIZE / SB_LANES; p++) {
        vecw_t r[SB_HALF_SETS][SB_LANES];
        SB_UNROLL for (int s = 0; s < sets; s++) {
            SB_UNROLL for (int l = 0; l < SB_LANES; l++)
                r[s][l] = SB_VTERMW(first
                                    + ((ulong)s * SB_LANES + l) * SB_LEAF_SIZE
                                    + p * SB_LANES);
            sb_transpose_lanes(r[s]);
            a[s] = p == 0 ? SB_VFIRST(r[s][0]) : SB_VSTEP_KEPT(a[s], r[s][0]);
        }
        SB_UNROLL for (int j = 1; j < SB_LANES; j++)
            SB_UNROLL for (int s = 0; s < sets; s++)
                a[s] = SB_VSTEP_KEPT(a[s], r[s][j]);
    }
}
#endif

/* SB_LANES full, unmasked leaves from element `first`: their aligned
 * subtree, a node of level SB_LANES_LOG2. */
SB_FN_INLINE acc_t sb_lane_leaves(const global in_t *x, const global in_t *y,
                                  ulong first, uint ahead)
{
    SB_PREFETCH_AHEAD(x + first, SB_LANES * SB_LEAF_SIZE * sizeof(in_t),
                      ahead);
    if (SB_DOT)
        SB_PREFETCH_AHEAD(y + first, SB_LANES * SB_LEAF_SIZE * sizeof(in_t),
                          ahead);
    return sb_lane_tree(sb_lane_fold(x, y, first));
}

/* The subtree of the lanes of a (left) and b (right), a node of level
 * SB_LANES_LOG2 + 1: the levels of both in one vector each, a's nodes in
 * the low lanes, b's in the high ones, so that each level is one vector
 * step for both (sb_lane_tree() twice took twice the steps, each on a
 * vector half empty). A half accumulator's sum takes the first level so
 * and the others in sb_lane_tree(), whose rounding wants 16 lanes: a's
 * nodes stay in the low lanes, b's in the high ones, until their roots
 * meet. */
#if SB_LANES == 16
#define SB_EVEN_OF_TWO 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30
#define SB_ODD_OF_TWO 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31
#else
#define SB_EVEN_OF_TWO 0, 2, 4, 6, 8, 10, 12, 14
#define SB_ODD_OF_TWO 1, 3, 5, 7, 9, 11, 13, 15
#endif
/* The first level of the lanes of a and b: a's nodes in the low lanes,
 * b's in the high ones. */
#define SB_LANE_PAIRS(a, b) SB_VSTEP(SB_SHUFFLE((a), (b), SB_EVEN_OF_TWO),  \
                                     SB_SHUFFLE((a), (b), SB_ODD_OF_TWO))
#if SB_ACC_HALF && SB_OP == SB_OP_SUM
inline acc_t sb_lane_tree2(vecw_t a, vecw_t b)
{
    return sb_lane_tree(SB_LANE_PAIRS(a, b));
}
#else
inline acc_t sb_lane_tree2(vecw_t a, vecw_t b)
{
    const vecw_t c = SB_LANE_PAIRS(a, b);
#if SB_LANES == 16
    const SB_CAT(SB_ACC_T, 8) d = SB_VSTEP(c.even, c.odd);
#else
    const vecw_t d = c;
#endif
    const SB_CAT(SB_ACC_T, 4) e = SB_VSTEP(d.even, d.odd);
    const SB_CAT(SB_ACC_T, 2) g = SB_VSTEP(e.even, e.odd);
    uint f = 0;
    return sb_step(g.x, g.y, &f);
}
#endif

/* 2 * SB_LANES full, unmasked leaves from element `first`: their aligned
 * subtree, a node of level SB_LANES_LOG2 + 1. One call of
 * sb_lane_leaves() was one long dependent chain (loads, transpose, fold,
 * lane tree), and POCL's f32 sums from memory read 0.72-0.76 of its read
 * kernel whatever the launch shape; two sets in one body, and one tree
 * for both, took that to 0.90-0.96 (Zen 5 VM, 2^27, README). */
SB_FN_INLINE acc_t sb_lane_leaves2(const global in_t *x, const global in_t *y,
                                   ulong first, uint ahead)
{
    SB_PREFETCH_AHEAD(x + first, 2 * SB_LANES * SB_LEAF_SIZE * sizeof(in_t),
                      ahead);
    if (SB_DOT)
        SB_PREFETCH_AHEAD(y + first,
                          2 * SB_LANES * SB_LEAF_SIZE * sizeof(in_t), ahead);
#if SB_ACC_HALF && SB_OP == SB_OP_SUM && SB_HALF_SETS_LOG2 > 0
    vecw_t a[2];
    sb_lane_fold_sets(x, y, first, a, 2);
    return sb_lane_tree2(a[0], a[1]);
#else
    return sb_lane_tree2(sb_lane_fold(x, y, first),
                         sb_lane_fold(x, y, first + SB_LANES * SB_LEAF_SIZE));
#endif
}

#if SB_ACC_HALF && SB_OP == SB_OP_SUM && SB_HALF_SETS_LOG2 > 0
/* The aligned subtree of SB_HALF_SETS runs of SB_LANES leaves of a half
 * accumulator's sum, from the runs' folds a[] (each lane a leaf's): a
 * node of level SB_LANES_LOG2 + SB_HALF_SETS_LOG2. The runs' first
 * levels pairwise as sb_lane_tree2() takes them, then the same of those
 * pairs' vectors, level by level, until one vector holds the 16 nodes of
 * the level SB_HALF_SETS_LOG2 (16 / SB_HALF_SETS per run, in the runs'
 * order), which sb_lane_tree() finishes: for eight runs 10 vector steps
 * and one of a lane, where there were 24 and 15, each a rounding. */
SB_FN_INLINE acc_t sb_sets_tree(vecw_t *a)
{
    SB_UNROLL for (int w = SB_HALF_SETS; w > 1; w /= 2)
        SB_UNROLL for (int s = 0; s < w / 2; s++)
            a[s] = SB_LANE_PAIRS(a[2 * s], a[2 * s + 1]);
    return sb_lane_tree(a[0]);
}
/* SB_HALF_SETS * SB_LANES full, unmasked leaves: their subtree. */
SB_FN_INLINE acc_t sb_lane_leaves_sets(const global in_t *x,
                                       const global in_t *y, ulong first,
                                       uint ahead)
{
    SB_PREFETCH_AHEAD(x + first,
                      SB_HALF_SETS * SB_LANES * SB_LEAF_SIZE * sizeof(in_t),
                      ahead);
    if (SB_DOT)
        SB_PREFETCH_AHEAD(y + first,
                          SB_HALF_SETS * SB_LANES * SB_LEAF_SIZE
                          * sizeof(in_t), ahead);
    vecw_t a[SB_HALF_SETS];
    sb_lane_fold_sets(x, y, first, a, SB_HALF_SETS);
    return sb_sets_tree(a);
}
#endif

/* The same for SB_LANES full leaves with a mask, or skipping NaNs (mask
 * or none): each row piece's elements that do not take part replaced by
 * the exact identity before the transpose (a sum's -0, which a leaf's
 * first step makes +0 as sb_first() does; +inf for min, -inf for max,
 * which the strict step never takes over a value and the first element
 * taking part replaces), so that each lane is its leaf's chain over the
 * elements that take part. Only when one of the W leaves has one, and
 * (min and max) no NaN takes part: a NaN first is kept by sb_first() but
 * would not replace an infinity. Otherwise 0: the caller folds these
 * leaves one by one. A NaN skipped from a dot product is either
 * factor's, which the product does not show (inf * 0): not here; nor
 * for argmin and argmax, which keep positions. Element by element, a
 * masked f32 sum on POCL
 * read 8.4 GB/s against 38 for the unmasked one (Zen 5 VM, 2^24, bench
 * --maps). A sum takes leaves with no element too, as long as one of the
 * W has one: such a leaf's lane is +0 (its first step makes the -0s +0),
 * and adding +0 changes no node of a sum, none of which is -0 (a leaf
 * starts at +0, and x + y is -0 only where both are), so the leaf acts
 * as the none it is; the lanes then need one OR per vector to know that,
 * not a test of each. So do min and max where no NaN takes part: a leaf
 * with no element holds the infinity (+inf for min), which as a left
 * operand gives way to any value right of it (x < +inf, or an equal
 * +inf with the same bits) and as a right operand never replaces one;
 * only a NaN, which no comparison lets in, would tell it from a none. */
#if !(SB_DOT && SB_SKIP_NAN) && !SB_ARG
#define SB_LANE_MASKED 1
#if SB_LANES == 16
typedef int16 keepw_t;
#define SB_KEEP_OF_MASK(p) (convert_int16(vload16(0, (p))) != (int16)0)
#else
typedef long8 keepw_t;
#define SB_KEEP_OF_MASK(p) (convert_long8(vload8(0, (p))) != (long8)0)
#endif
#if SB_OP == SB_OP_SUM
#define SB_VSKIP (-(vecw_t)SB_ACC_ZERO)
#elif SB_OP == SB_OP_MIN
#define SB_VSKIP ((vecw_t)INFINITY)
#else
#define SB_VSKIP (-(vecw_t)INFINITY)
#endif
/* Row piece p (elements p * SB_LANES .. of each leaf) of the SB_LANES
 * leaves from element `first`, each element that does not take part
 * made SB_VSKIP, transposed into r[]; `kept` ORs the elements taking
 * part, `nan_in` (min and max) the NaNs among them. */
SB_FN_INLINE void sb_masked_row_piece(const global in_t *x,
                                      const global in_t *y,
                                      const global uchar *mask, ulong first,
                                      int p, vecw_t *r, keepw_t *kept,
                                      keepw_t *nan_in)
{
    SB_UNROLL for (int l = 0; l < SB_LANES; l++) {
        const ulong at = first + (ulong)l * SB_LEAF_SIZE + p * SB_LANES;
        const vecw_t e = SB_VTERMW(at);
        keepw_t keep = mask ? SB_KEEP_OF_MASK(mask + at) : (keepw_t)-1;
        if (SB_SKIP_NAN)
            keep &= e == e;
#if SB_OP != SB_OP_SUM
        else
            *nan_in |= (e != e) & keep;
#endif
        *kept |= keep;
        r[l] = select(SB_VSKIP, e, keep);
    }
    (void)nan_in;
    sb_transpose_lanes(r);
}
SB_FN_INLINE int sb_lane_leaves_masked(const global in_t *x,
                                       const global in_t *y,
                                       const global uchar *mask, ulong first,
                                       uint ahead, acc_t *node)
{
    vecw_t a = (vecw_t)SB_ACC_ZERO;
    keepw_t kept = (keepw_t)0;   /* the elements taking part, OR-ed */
    keepw_t nan_in = (keepw_t)0;
    SB_PREFETCH_AHEAD(x + first, SB_LANES * SB_LEAF_SIZE * sizeof(in_t),
                      ahead);
    if (mask)
        SB_PREFETCH_AHEAD(mask + first, SB_LANES * SB_LEAF_SIZE, ahead);
    if (SB_DOT)
        SB_PREFETCH_AHEAD(y + first, SB_LANES * SB_LEAF_SIZE * sizeof(in_t),
                          ahead);
    SB_UNROLL for (int p = 0; p < SB_LEAF_SIZE / SB_LANES; p++) {
        vecw_t r[SB_LANES];
        sb_masked_row_piece(x, y, mask, first, p, r, &kept, &nan_in);
        a = p == 0 ? SB_VFIRST(r[0]) : SB_VSTEP(a, r[0]);
        SB_UNROLL for (int j = 1; j < SB_LANES; j++)
            a = SB_VSTEP(a, r[j]);
    }
    if (!any(kept))
        return 0;
#if SB_OP != SB_OP_SUM
    if (any(nan_in))
        return 0;
#endif
    *node = sb_lane_tree(a);
    return 1;
}
#if SB_ACC_HALF && SB_OP == SB_OP_SUM && SB_HALF_SETS_LOG2 > 0
/* The same for a half accumulator's sum over SB_HALF_SETS runs of
 * SB_LANES leaves, stepped in turn and their tree taken as
 * sb_lane_leaves_sets() does, for the reason it gives: one run was one
 * chain of rounded steps (POCL's masked f16 sums into f16 read 0.3 of
 * the unmasked ones). A run whose leaves have no element taking part is
 * a vector of +0 (each lane a leaf's), which as an operand of the runs'
 * tree changes no node, as for a leaf above. Where none of the runs has
 * one, the subtree is a none: 0 (and *node is +0), which the caller
 * pushes as one, instead of reading its 128 leaves twice more to find
 * that each is. */
SB_FN_INLINE int sb_lane_leaves_masked_sets(const global in_t *x,
                                            const global in_t *y,
                                            const global uchar *mask,
                                            ulong first, uint ahead,
                                            acc_t *node)
{
    const size_t span = SB_HALF_SETS * SB_LANES * SB_LEAF_SIZE;
    vecw_t a[SB_HALF_SETS];
    keepw_t kept = (keepw_t)0;   /* the elements taking part, OR-ed */
    keepw_t nan_in = (keepw_t)0; /* a sum's: not read */
    SB_PREFETCH_AHEAD(x + first, span * sizeof(in_t), ahead);
    if (mask)
        SB_PREFETCH_AHEAD(mask + first, span, ahead);
    if (SB_DOT)
        SB_PREFETCH_AHEAD(y + first, span * sizeof(in_t), ahead);
    SB_UNROLL for (int p = 0; p < SB_LEAF_SIZE / SB_LANES; p++) {
        vecw_t r[SB_HALF_SETS][SB_LANES];
        SB_UNROLL for (int s = 0; s < SB_HALF_SETS; s++) {
            sb_masked_row_piece(x, y, mask,
                                first + (ulong)s * SB_LANES * SB_LEAF_SIZE,
                                p, r[s], &kept, &nan_in);
            a[s] = p == 0 ? SB_VFIRST(r[s][0])
                          : SB_VSTEP_KEPT(a[s], r[s][0]);
        }
        SB_UNROLL for (int j = 1; j < SB_LANES; j++)
            SB_UNROLL for (int s = 0; s < SB_HALF_SETS; s++)
                a[s] = SB_VSTEP_KEPT(a[s], r[s][j]);
    }
    *node = SB_ACC_ZERO;
    if (!any(kept))
        return 0;
    *node = sb_sets_tree(a);
    return 1;
}
#endif
#else
#define SB_LANE_MASKED 0
#endif
#else
#define SB_LANE_MASKED 0
#endif

/* ---- 3. the work-group ------------------------------------------------------- */

/* The work-group tree over one node per work-item; see the file comment. */
/* An argmin / argmax program has sg = 1 (no shuffle carries positions)
 * and positions in li. */
inline void sb_group_tree(acc_t *v, uint *f, ulong *i, uint pos, uint wg,
                          uint sg, uint hw, local acc_t *lv, local uint *lf,
                          local ulong *li)
{
    const uint lane = pos % sg, sgid = pos / sg, nsg = wg / sg;
    for (uint off = 1; off < sg; off <<= 1) {
        acc_t ov;
        uint of;
        sb_shuffle_down_node(*v, *f, off, pos, lane, sg, hw, lv, lf, &ov, &of);
        if ((lane & (2 * off - 1)) == 0)
            sb_combine(v, f, i, ov, of, 0);
    }
    if (lane == 0) {
        lv[sgid] = *v;
        lf[sgid] = *f;
        if (SB_ARG)
            li[sgid] = *i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < nsg; s <<= 1) {
        if (pos < nsg && (pos & (2 * s - 1)) == 0) {
            acc_t a = lv[pos];
            uint fa = lf[pos];
            ulong ia = SB_ARG ? li[pos] : 0;
            sb_combine(&a, &fa, &ia, lv[pos + s], lf[pos + s],
                       SB_ARG ? li[pos + s] : 0);
            lv[pos] = a;
            lf[pos] = fa;
            if (SB_ARG)
                li[pos] = ia;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *v = lv[0];
    *f = lf[0];
    *i = SB_ARG ? li[0] : 0;
}

/* ---- 4. the work-group's node, or the result ------------------------------------ */

/* Between passes an argmin / argmax node's position follows the flags:
 * `cap` values, `cap` flags, `cap` positions (the host makes cap a
 * multiple of 8, so they are aligned). */
inline global ulong *sb_node_positions(global acc_t *v, ulong cap)
{
    return (global ulong *)((global uchar *)v + cap * (sizeof(acc_t) + 4));
}

/* The result record of a root node (v, f, at). */
inline void sb_record(acc_t v, uint f, ulong at, global uchar *res)
{
    global int *status = (global int *)(res + SB_RESULT_STATUS_OFFSET);
    if (SB_CHECKED && (f & SB_OVERFLOW)) {
        *status = SB_STATUS_OVERFLOW;
        return;
    }
    if (!(f & SB_HAS)) {
        if (!SB_HAS_START) {
            *status = SB_STATUS_EMPTY;
            return;
        }
        v = sb_start();
    }
    sb_write(v, res);
    if (SB_ARG)
        *(global ulong *)(res + SB_RESULT_INDEX_OFFSET) = at;
    *status = SB_STATUS_OK;
}

inline void sb_emit(acc_t v, uint f, ulong at, uint pos, global acc_t *out_v,
                    ulong out_cap, uint final, global uchar *res)
{
    if (pos != 0)
        return;
    if (!final) {
        out_v[get_group_id(0)] = v;
        ((global uint *)(out_v + out_cap))[get_group_id(0)] = f;
        if (SB_ARG)
            sb_node_positions(out_v, out_cap)[get_group_id(0)] = at;
        return;
    }
    sb_record(v, f, at, res);
}

/* ---- the kernels ----------------------------------------------------------------- */

/* 1. and 2. for one work-item: its `lpi` leaves from leaf `first_leaf`
 * (lpi a power of two), folded and combined into its binary counter, as
 * the node (v, f, at) of that aligned subtree; `ahead`: the prefetch
 * distance (SB_PREFETCH_AHEAD). The counter's arrays are
 * the caller's, log2(lpi) + 2 deep: a row of sb_rows needs more levels
 * than an item of sb_leaves, whose arrays stay small (on a GPU they are
 * per-thread memory). */
inline void sb_item_node(const global in_t *x, const global in_t *y,
                         const global uchar *mask, ulong n, ulong first_leaf,
                         uint lpi, uint ahead, acc_t *sv, uint *sf, ulong *si,
                         uint *sl, acc_t *v_out, uint *f_out, ulong *at_out)
{
    /* Full leaves may take the fast folds only when every element takes
     * part (no mask, and no NaN to skip) and no position is kept. */
    const int whole = !mask && !SB_SKIP_NAN && !SB_ARG;
    const ulong leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;
    uint top = 0;
#if SB_PLAIN_ITEMS
    /* An item of full, unmasked leaves all allowing the plain fold (the
     * common case) takes it for every eight; any other takes the test per
     * four leaves. Only shapes of eight leaves or more per item (a CPU's:
     * its 2-8 KiB are in the cache for the fold) pay for the extra pass;
     * a GPU's four leaves per item test inside the fold, where taking
     * elements out of the loaded vectors costs nothing. */
    const int plain = whole && lpi % 8 == 0 &&
                      (first_leaf + lpi) * SB_LEAF_SIZE <= n &&
                      sb_leaves_are_plain(x, first_leaf * SB_LEAF_SIZE, lpi);
#endif
    uint l = 0;
#if SB_ORDER_FREE_ITEMS
    {
        acc_t node;
        uint node_f;
        if ((whole || (mask && !SB_SKIP_NAN && !SB_ARG)) &&
            (first_leaf + lpi) * SB_LEAF_SIZE <= n &&
            sb_order_free_item(x, y, mask, first_leaf * SB_LEAF_SIZE, lpi,
                               ahead, &node, &node_f)) {
            sb_push(sv, sf, si, sl, &top, node, node_f, 0, 0);
            l = lpi;   /* the item is one node: its leaves are done */
        }
    }
#endif
    for (; l < lpi && first_leaf + l < leaves; ) {
        const ulong first = (first_leaf + l) * SB_LEAF_SIZE;
        acc_t v;
        uint f;
#if SB_LANE_LEAVES
#if SB_ACC_HALF && SB_OP == SB_OP_SUM && SB_HALF_SETS_LOG2 > 0
        if (whole && l % (SB_HALF_SETS * SB_LANES) == 0 &&
            lpi - l >= SB_HALF_SETS * SB_LANES &&
            first + SB_HALF_SETS * SB_LANES * SB_LEAF_SIZE <= n) {
            sb_push(sv, sf, si, sl, &top,
                    sb_lane_leaves_sets(x, y, first, ahead), SB_HAS, 0,
                    SB_LANES_LOG2 + SB_HALF_SETS_LOG2);
            l += SB_HALF_SETS * SB_LANES;
            continue;
        }
#endif
        if (whole && l % (2 * SB_LANES) == 0 && lpi - l >= 2 * SB_LANES &&
            first + 2 * SB_LANES * SB_LEAF_SIZE <= n) {
            sb_push(sv, sf, si, sl, &top, sb_lane_leaves2(x, y, first, ahead),
                    SB_HAS, 0, SB_LANES_LOG2 + 1);
            l += 2 * SB_LANES;
            continue;
        }
        if (whole && l % SB_LANES == 0 && lpi - l >= SB_LANES &&
            first + SB_LANES * SB_LEAF_SIZE <= n) {
            sb_push(sv, sf, si, sl, &top, sb_lane_leaves(x, y, first, ahead),
                    SB_HAS, 0, SB_LANES_LOG2);
            l += SB_LANES;
            continue;
        }
#endif
#if SB_LANE_MASKED && SB_ACC_HALF && SB_OP == SB_OP_SUM && \
    SB_HALF_SETS_LOG2 > 0
        if (!whole && l % (SB_HALF_SETS * SB_LANES) == 0 &&
            lpi - l >= SB_HALF_SETS * SB_LANES &&
            first + SB_HALF_SETS * SB_LANES * SB_LEAF_SIZE <= n) {
            acc_t node;
            const int some = sb_lane_leaves_masked_sets(x, y, mask, first,
                                                        ahead, &node);
            sb_push(sv, sf, si, sl, &top, node, some ? SB_HAS : 0u, 0,
                    SB_LANES_LOG2 + SB_HALF_SETS_LOG2);
            l += SB_HALF_SETS * SB_LANES;
            continue;
        }
#endif
#if SB_LANE_MASKED
        /* Masked or NaN-skipping: side by side where a leaf has an
         * element taking part (min, max: and no NaN takes part), else
         * (falling through) leaf by leaf. */
        if (!whole && l % SB_LANES == 0 && lpi - l >= SB_LANES &&
            first + SB_LANES * SB_LEAF_SIZE <= n) {
            acc_t node;
            if (sb_lane_leaves_masked(x, y, mask, first, ahead, &node)) {
                sb_push(sv, sf, si, sl, &top, node, SB_HAS, 0, SB_LANES_LOG2);
                l += SB_LANES;
                continue;
            }
        }
#endif
#if SB_ARG
        if (SB_CHAIN_FOLDS && !mask && !SB_SKIP_NAN && l % 4 == 0 && lpi - l >= 4 &&
            first + 64 <= n) {
            ulong at;
            sb_four_arg_leaves(x, y, first, &v, &f, &at);
            sb_push(sv, sf, si, sl, &top, v, f, at, 2);
            l += 4;
            continue;
        }
#endif
        if (SB_CHAIN_FOLDS && whole && l % 8 == 0 && lpi - l >= 8 &&
            first + 128 <= n) {
#if SB_PLAIN_ITEMS
            if (plain)
                sb_eight_plain_leaves(x, y, first, &v, &f);
            else
#endif
                sb_eight_leaves(x, y, first, &v, &f);
            sb_push(sv, sf, si, sl, &top, v, f, 0, 3);
            l += 8;
        } else if (SB_CHAIN_FOLDS && whole && l % 4 == 0 && lpi - l >= 4 &&
                   first + 64 <= n) {
            sb_four_leaves(x, y, first, &v, &f);
            sb_push(sv, sf, si, sl, &top, v, f, 0, 2);
            l += 4;
        } else {
            ulong at;
            sb_leaf(x, y, mask, 1, first, n, &v, &f, &at);
            sb_push(sv, sf, si, sl, &top, v, f, at, 0);
            l += 1;
        }
    }
    sb_pop_all(sv, sf, si, top, v_out, f_out, at_out);
}

kernel void sb_leaves(const global in_t *x, ulong x_off,
                      const global in_t *y, ulong y_off,
                      const global uchar *mask, ulong mask_off, ulong n,
                      uint lpi, uint sg, local acc_t *lv, local uint *lf,
                      global acc_t *out_v, ulong out_cap, uint final,
                      global uchar *res, ulong res_off, local ulong *li,
                      uint ahead)
{
    const uint wg = (uint)get_local_size(0);
    uint pos, hw;
    sg = sb_choose_subgroup(SB_ARG ? 1u : sg, wg, &pos, &hw);
    x += x_off;
    if (SB_DOT)
        y += y_off;                  /* NULL unless a dot product */
    if (mask)
        mask += mask_off;

    /* 1. and 2.: this work-item's leaves, into its binary counter. */
    const ulong item = (ulong)get_group_id(0) * wg + pos;
    acc_t sv[SB_STACK], v;
    uint sf[SB_STACK], sl[SB_STACK], f;
    ulong si[SB_STACK], at;
    sb_item_node(x, y, mask, n, item * lpi, lpi, ahead, sv, sf, si, sl, &v,
                 &f, &at);

    /* 3. and 4. */
    sb_group_tree(&v, &f, &at, pos, wg, sg, hw, lv, lf, li);
    sb_emit(v, f, at, pos, out_v, out_cap, final, res + res_off);
}

/* SB_ROWS_LANES rows of n elements side by side (SB_ROWS_IN_LANES), row l
 * at x + l * x_row: lane l of the result is row l's root. Each full leaf
 * is loaded as 16 / SB_ROWS_LANES pieces of every row; piece p of the
 * rows, transposed (as sb_lane_leaves() transposes leaves), gives
 * positions p * SB_ROWS_LANES ... of all of them, folded left to right
 * with one vector step per position. The last leaf, if partial, is each
 * row's sb_leaf(). Every row has n elements and none is left out, so
 * every lane builds the same tree: one binary counter of vectors serves
 * them all. One work-item per row had each item stream a row alone,
 * which POCL's vectorisation across items turned into loads strided by
 * the row: 134218 f32 rows of 1000 at 0.43 of its read kernel (2-vCPU
 * Zen 3 VM, POCL 3.1). 16 rows side by side (the 1-D fold's float16)
 * gave 0.68-0.77, 8 (a float8, one AVX2 register: the W x W transpose
 * then fits the 16 registers) 0.80-0.92 against 0.70-0.77 interleaved;
 * f64 takes 4 (a double4) by the same measure of registers. Half
 * inputs and accumulators keep the lanes of their conversions and
 * roundings (16; 8 into f64). A prefetch 256 or 1024 bytes ahead in each row measured no
 * faster. Clang's shuffles only (POCL's compiler); elsewhere the host's
 * per_item rows fold one after another, with the same bits. */
#if SB_LANE_LEAVES && SB_ROWS_IN_LANES && defined(__clang__) && \
    !SB_ARG && !SB_SKIP_NAN && !SB_DOT
#if SB_IN_HALF || SB_ACC_HALF
#define SB_ROWS_LANES SB_LANES
inline vecw_t sb_row_piece(const global in_t *x, ulong at)
{
    return SB_VTERMW(at);   /* reads the x given */
}
#define SB_ROW_PIECE(x, at) sb_row_piece((x), (at))
#else
#if SB_ACC_KIND == SB_KIND_F32
#define SB_ROWS_LANES 8
#else
#define SB_ROWS_LANES 4
#endif
/* f32 into f64 and integers into either: exact conversions, no
 * float arithmetic. */
#if SB_IN_KIND != SB_ACC_KIND
#define SB_ROW_LOAD(x, at)                                             \
    SB_CAT(convert_, SB_CAT(SB_ACC_T, SB_ROWS_LANES))(                 \
        SB_CAT(vload, SB_ROWS_LANES)(0, (x) + (at)))
#else
#define SB_ROW_LOAD(x, at) SB_CAT(vload, SB_ROWS_LANES)(0, (x) + (at))
#endif
#if SB_MAP == SB_MAP_SQUARE
#define SB_ROW_PIECE(x, at) sb_rsquare(SB_ROW_LOAD(x, at))
#elif SB_MAP == SB_MAP_ABS
#define SB_ROW_PIECE(x, at) fabs(SB_ROW_LOAD(x, at))
#else
#define SB_ROW_PIECE(x, at) SB_ROW_LOAD(x, at)
#endif
#endif
typedef SB_CAT(SB_ACC_T, SB_ROWS_LANES) vecr_t;
#if SB_MAP == SB_MAP_SQUARE && !(SB_IN_HALF || SB_ACC_HALF)
inline vecr_t sb_rsquare(vecr_t v) { return v * v; }   /* not fused */
#endif
#define SB_T4_LO1 0, 4, 2, 6
#define SB_T4_HI1 1, 5, 3, 7
#define SB_T4_LO2 0, 1, 4, 5
#define SB_T4_HI2 2, 3, 6, 7
#define SB_RMASK(half, d) SB_CAT(SB_CAT(SB_T, SB_ROWS_LANES), SB_CAT(half, d))
#define SB_RSWAP_BIT(r, i, d)                                         \
    {                                                                 \
        const vecr_t lo_ = __builtin_shufflevector(r[i], r[i + d],    \
                                                   SB_RMASK(_LO, d)); \
        const vecr_t hi_ = __builtin_shufflevector(r[i], r[i + d],    \
                                                   SB_RMASK(_HI, d)); \
        r[i] = lo_;                                                   \
        r[i + d] = hi_;                                               \
    }
#define SB_RTRANSPOSE_STAGE(r, d)                                     \
    SB_UNROLL for (int i = 0; i < SB_ROWS_LANES; i++)                 \
        if ((i & d) == 0)                                             \
            SB_RSWAP_BIT(r, i, d)
#if SB_OP == SB_OP_SUM
#define SB_RFIRST(e) select((e), (vecr_t)SB_ACC_ZERO, (e) == (vecr_t)SB_ACC_ZERO)
#else
#define SB_RFIRST(e) (e)
#endif

SB_FN_INLINE vecr_t sb_rows_in_lanes(const global in_t *x, long x_row,
                                     ulong n)
{
    vecr_t sv[SB_ROWS_STACK];
    uint sl[SB_ROWS_STACK], top = 0;
    const ulong full = n - n % SB_LEAF_SIZE;
    for (ulong first = 0; first < n; first += SB_LEAF_SIZE) {
        vecr_t a = (vecr_t)SB_ACC_ZERO;
        if (first < full) {
            SB_UNROLL for (int p = 0; p < SB_LEAF_SIZE / SB_ROWS_LANES; p++) {
                vecr_t r[SB_ROWS_LANES];
                SB_UNROLL for (int l = 0; l < SB_ROWS_LANES; l++)
                    r[l] = SB_ROW_PIECE(x + (long)l * x_row,
                                        first + p * SB_ROWS_LANES);
                SB_RTRANSPOSE_STAGE(r, 1)
#if SB_ROWS_LANES >= 4
                SB_RTRANSPOSE_STAGE(r, 2)
#endif
#if SB_ROWS_LANES >= 8
                SB_RTRANSPOSE_STAGE(r, 4)
#endif
#if SB_ROWS_LANES >= 16
                SB_RTRANSPOSE_STAGE(r, 8)
#endif
                a = p == 0 ? SB_RFIRST(r[0]) : SB_VSTEP(a, r[0]);
                SB_UNROLL for (int j = 1; j < SB_ROWS_LANES; j++)
                    a = SB_VSTEP(a, r[j]);
            }
        } else {
            acc_t lanes[SB_ROWS_LANES];
            for (int l = 0; l < SB_ROWS_LANES; l++) {
                uint f;
                ulong at;
                sb_leaf(x + (long)l * x_row, x, 0, 1, first, n, &lanes[l],
                        &f, &at);
            }
            a = SB_CAT(vload, SB_ROWS_LANES)(0, lanes);
        }
        SB_VPUSH(sv, sl, top, a);
    }
    vecr_t v;
    SB_VPOP_ALL(sv, top, v);
    return v;
}
#else
#define SB_ROWS_LANES 0
#endif

/* Many reductions of n elements each (sb_rows): row r starts at element
 * x_off + r * x_row of x (x_row may be negative; the host checked every
 * address), its mask at mask_off + r * mask_row, and its record goes to
 * byte res_off + r * res_row of res. Work-item w takes the per_item rows
 * from row w * per_item. Where the program folds rows in vector lanes
 * (SB_ROWS_LANES: a CPU device's native float sums, min and max of every
 * element), the host makes per_item SB_ROWS_LANES for an unmasked batch
 * of that many rows or more, and the item folds its rows side by side
 * (sb_rows_in_lanes()); the last block starts SB_ROWS_LANES before the
 * last row and writes only the rows the block before did not. Otherwise
 * the item folds its rows one after another, each row's `lpi` leaves
 * (the power of two that covers them) into its binary counter: the
 * row's root, with no work-group tree, since no other item holds part of
 * it. For rows of up to 2^SB_ROWS_MAX_LPI_LOG2 leaves. Never a dot
 * product. */
kernel void sb_rows(const global in_t *x, ulong x_off, long x_row,
                    const global uchar *mask, ulong mask_off, long mask_row,
                    ulong n, ulong rows, uint lpi, uint per_item,
                    global uchar *res, ulong res_off, ulong res_row,
                    uint ahead)
{
    const ulong r0 = get_global_id(0) * per_item;
    if (r0 >= rows)
        return;
    res += res_off;
#if SB_ROWS_LANES
    if (per_item == SB_ROWS_LANES && !mask && rows >= SB_ROWS_LANES) {
        const ulong start = min(r0, rows - SB_ROWS_LANES);
        const vecr_t v = sb_rows_in_lanes(x + (long)x_off
                                          + (long)start * x_row, x_row, n);
        acc_t lanes[SB_ROWS_LANES];
        SB_CAT(vstore, SB_ROWS_LANES)(v, 0, lanes);
        for (uint l = 0; l < SB_ROWS_LANES; l++)
            if (start + l >= r0)
                sb_record(lanes[l], SB_HAS, 0, res + (start + l) * res_row);
        return;
    }
#endif
    for (ulong r = r0; r < r0 + per_item && r < rows; r++) {
        const global in_t *xr = x + (long)x_off + (long)r * x_row;
        const global uchar *mr = mask ? mask + (long)mask_off
                                        + (long)r * mask_row : 0;
        acc_t sv[SB_ROWS_STACK], v;
        uint sf[SB_ROWS_STACK], sl[SB_ROWS_STACK], f;
        ulong si[SB_ROWS_STACK], at;
        sb_item_node(xr, xr, mr, n, 0, lpi, ahead, sv, sf, si, sl, &v, &f,
                     &at);
        sb_record(v, f, at, res + r * res_row);
    }
}

/* Ragged reductions (sb_segments): segment b covers elements x_off +
 * offsets[off_at + b] .. x_off + offsets[off_at + b + 1] of x (the host
 * read the offsets and checked every one, and every address), its mask
 * the same elements from mask_off, and its record goes to byte res_off +
 * b * res_row of res. Work-item w takes the per_item segments from
 * segment w * per_item. Where the program folds rows in vector lanes
 * (SB_ROWS_LANES), the host makes per_item SB_ROWS_LANES for unmasked
 * segments, and an item whose segments all have the same length (a
 * uniform cut, as a reshape makes: rows of that pitch) folds them side by
 * side, as sb_rows does (sb_rows_in_lanes()). Otherwise each segment
 * alone, as sb_rows folds a row (its leaves padded to the power of two
 * that covers them: the segment's root, with no work-group tree); on
 * POCL ragged segments of 1000 f32 ran at 0.38 of its read kernel this
 * way (2-vCPU Zen 3 VM). Segments of fewer than
 * least_n elements or more than most_n the host answers otherwise, after
 * this kernel (on the host, or a launch chain each); their records here
 * say empty. most_n keeps a segment within 2^SB_ROWS_MAX_LPI_LOG2 leaves
 * (the counter's depth) and within a device's limits (the host's
 * sb__segments_kernel_most()). Never a dot product. */
kernel void sb_segments(const global in_t *x, ulong x_off,
                        const global uchar *mask, ulong mask_off,
                        const global ulong *offsets, ulong off_at,
                        ulong count, ulong least_n, ulong most_n,
                        uint per_item, global uchar *res, ulong res_off,
                        ulong res_row, uint ahead)
{
    const ulong b0 = get_global_id(0) * per_item;
    if (b0 >= count)
        return;
    offsets += off_at;
    res += res_off;
#if SB_ROWS_LANES
    if (per_item == SB_ROWS_LANES && !mask && b0 + SB_ROWS_LANES <= count) {
        const ulong first = offsets[b0];
        const ulong n = offsets[b0 + 1] - first;
        bool uniform = n > 0 && n >= least_n && n <= most_n;
        for (uint l = 2; l <= SB_ROWS_LANES && uniform; l++)
            uniform = offsets[b0 + l] - offsets[b0 + l - 1] == n;
        if (uniform) {
            const vecr_t v = sb_rows_in_lanes(x + x_off + first, (long)n, n);
            acc_t lanes[SB_ROWS_LANES];
            SB_CAT(vstore, SB_ROWS_LANES)(v, 0, lanes);
            for (uint l = 0; l < SB_ROWS_LANES; l++)
                sb_record(lanes[l], SB_HAS, 0, res + (b0 + l) * res_row);
            return;
        }
    }
#endif
    for (ulong b = b0; b < b0 + per_item && b < count; b++) {
        global uchar *rec = res + b * res_row;
        const ulong first = offsets[b];
        const ulong n = offsets[b + 1] - first;
        if (n < least_n || n > most_n) {
            *(global int *)(rec + SB_RESULT_STATUS_OFFSET) = SB_STATUS_EMPTY;
            continue;
        }
        acc_t sv[SB_ROWS_STACK], v;
        uint sf[SB_ROWS_STACK], sl[SB_ROWS_STACK], f;
        ulong si[SB_ROWS_STACK], at;
        const ulong leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;
        uint lpi = 1;
        while (lpi < leaves)
            lpi *= 2;
        const global in_t *xs = x + x_off + first;
        const global uchar *ms = mask ? mask + mask_off + first : 0;
        sb_item_node(xs, xs, ms, n, 0, lpi, ahead, sv, sf, si, sl, &v, &f,
                     &at);
        sb_record(v, f, at, rec);
    }
}

/* Many reductions of n elements each that lie side by side (columns of a
 * matrix: batch stride 1, element stride `step`, any sign; sb_columns):
 * column c starts at element x_off + c of x, and its record goes to byte
 * res_off + c * res_row of res. For columns of up to
 * 2^SB_ROWS_MAX_LPI_LOG2 leaves; never masked, never a dot product.
 *
 * Where the program folds leaves in vector lanes (SB_LANE_LEAVES: native
 * float sums, min and max of every element) work-item w takes the
 * SB_LANES columns from column w * SB_LANES (the host makes per_item
 * SB_LANES and columns >= SB_LANES): one vector per element index, lane
 * l column l's leaf, folded left to right; the leaves combine in a binary
 * counter of vectors, every lane the same tree, since every column has
 * the same n and no element is left out. A read of whole vectors with no
 * transpose. The last block starts SB_LANES before the last column (it
 * overlaps the one before, whose columns it does not write), and items
 * past the last column fold that block too and write nothing, so that
 * every item of a work-group runs the same leaves: the barrier after each
 * leaf keeps them in step, so that a work-group reads rows of 16 elements
 * by wg * SB_LANES columns together (a CPU device runs a group's items
 * one after another between barriers: one column block at a time down
 * the matrix was a strided walk, at 0.12-0.21 of POCL's read kernel). Any
 * other program, or another per_item, folds its item's per_item columns
 * one after another, leaf by leaf (the host does not launch those
 * programs: the mapped host fold is faster). */
kernel void sb_columns(const global in_t *x, ulong x_off, long step,
                       ulong n, ulong columns, uint per_item,
                       global uchar *res, ulong res_off, ulong res_row)
{
    if (n == 0)
        return;                    /* every item alike: no barrier met */
    x += x_off;
    res += res_off;
#if SB_LANE_LEAVES && !SB_ARG && !SB_SKIP_NAN && !SB_DOT
    /* per_item is the same for every item: the test keeps the barriers
     * uniform, and a host that asked for another block than the lanes
     * still gets every column (one by one, below). */
    if (per_item == SB_LANES && columns >= SB_LANES) {
        const ulong c0 = get_global_id(0) * SB_LANES;
        const ulong start = min(c0, columns - SB_LANES);
        x += start;
        const global in_t *y = x;   /* SB_VTERMW names it; never read */
        vecw_t sv[SB_ROWS_STACK];
        uint sl[SB_ROWS_STACK], top = 0;
        for (ulong first = 0; first < n; first += SB_LEAF_SIZE) {
            const ulong end = min(first + SB_LEAF_SIZE, n);
            vecw_t a = SB_VFIRST(SB_VTERMW((long)first * step));
            for (ulong i = first + 1; i < end; i++)
                a = SB_VSTEP(a, SB_VTERMW((long)i * step));
            SB_VPUSH(sv, sl, top, a);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        vecw_t v;
        SB_VPOP_ALL(sv, top, v);
        acc_t lanes[SB_LANES];
        SB_CAT(vstore, SB_LANES)(v, 0, lanes);
        for (uint l = 0; l < SB_LANES; l++)
            if (start + l >= c0 && start + l < columns)
                sb_record(lanes[l], SB_HAS, 0,
                          res + (start + l) * res_row);
        return;
    }
#endif
    const ulong c0 = get_global_id(0) * per_item;
    for (ulong c = c0; c < c0 + per_item && c < columns; c++) {
        acc_t sv[SB_ROWS_STACK], v;
        uint sf[SB_ROWS_STACK], sl[SB_ROWS_STACK], top = 0, f;
        ulong si[SB_ROWS_STACK], at;
        for (ulong first = 0; first < n; first += SB_LEAF_SIZE) {
            sb_leaf(x + c, x + c, 0, step, first, n, &v, &f, &at);
            sb_push(sv, sf, si, sl, &top, v, f, at, 0);
        }
        sb_pop_all(sv, sf, si, top, &v, &f, &at);
        sb_record(v, f, at, res + c * res_row);
    }
}

kernel void sb_nodes(const global acc_t *in_v, ulong in_cap, ulong count,
                     uint npi, uint sg, local acc_t *lv, local uint *lf,
                     global acc_t *out_v, ulong out_cap, uint final,
                     global uchar *res, ulong res_off, local ulong *li)
{
    const global uint *in_f = (const global uint *)(in_v + in_cap);
    const global ulong *in_i = sb_node_positions((global acc_t *)in_v,
                                                 in_cap);
    const uint wg = (uint)get_local_size(0);
    uint pos, hw;
    sg = sb_choose_subgroup(SB_ARG ? 1u : sg, wg, &pos, &hw);

    /* 1. and 2.: this work-item's nodes of the previous pass. */
    const ulong first = ((ulong)get_group_id(0) * wg + pos) * npi;
    acc_t sv[SB_STACK];
    uint sf[SB_STACK], sl[SB_STACK], top = 0;
    ulong si[SB_STACK];
    for (uint k = 0; k < npi && first + k < count; k++)
        sb_push(sv, sf, si, sl, &top, in_v[first + k], in_f[first + k],
                SB_ARG ? in_i[first + k] : 0, 0);
    acc_t v;
    uint f;
    ulong at;
    sb_pop_all(sv, sf, si, top, &v, &f, &at);

    /* 3. and 4. */
    sb_group_tree(&v, &f, &at, pos, wg, sg, hw, lv, lf, li);
    sb_emit(v, f, at, pos, out_v, out_cap, final, res + res_off);
}
