/* reduce.cl: the two kernels of a reduction, in the order they run.
 *
 *   sb_leaves  work-item p of work-group g owns the `lpi` consecutive leaves
 *              from leaf (g * wg + p) * lpi (lpi and wg powers of two):
 *              1. it folds each leaf left to right (ops.cl: converted to
 *                 the accumulator, mask applied), four or eight full leaves
 *                 at a time where it can;
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
 * Nodes between passes live in one buffer: `cap` values, then `cap` uint
 * flags. The record: the value (canonical NaN) at byte 0, written only when
 * the status is ok, and the status word at byte SB_RESULT_STATUS_OFFSET.
 * The order's "pad with none to a power of two" makes each of these blocks
 * an aligned subtree, so work-group size, leaves per item and sub-group
 * size change speed, never bits. */

/* A work-item's binary counter holds one node per level of its subtree
 * (SB_MAX_LPI_LOG2, from the host, bounds leaves or nodes per item). */
#define SB_STACK (SB_MAX_LPI_LOG2 + 2)

/* ---- nodes ----------------------------------------------------------------- */

/* combine(l, r) of docs/order.md: none takes the other side. */
inline void sb_combine(acc_t *v, uint *f, acc_t rv, uint rf)
{
    if ((rf & SB_HAS) && (*f & SB_HAS))
        *v = sb_step(*v, rv, f);
    else if (rf & SB_HAS)
        *v = rv;
    *f |= rf;
}

/* The binary counter over a work-item's consecutive nodes (see
 * src/host_reduce.c): a node enters at its level and combines with its
 * left neighbour of the same level, upwards. */
inline void sb_push(acc_t *sv, uint *sf, uint *sl, uint *top, acc_t v,
                    uint f, uint level)
{
    while (*top > 0 && sl[*top - 1] == level) {
        acc_t l = sv[*top - 1];
        uint lf = sf[*top - 1];
        sb_combine(&l, &lf, v, f);
        v = l;
        f = lf;
        (*top)--;
        level++;
    }
    sv[*top] = v;
    sf[*top] = f;
    sl[*top] = level;
    (*top)++;
}

/* What is left on the counter combines from the right: a lower node is a
 * subtree padded with none, which moves up until it meets its left
 * sibling. */
inline void sb_pop_all(acc_t *sv, uint *sf, uint top, acc_t *v, uint *f)
{
    *v = sb_start();
    *f = 0;
    if (top == 0)
        return;
    *v = sv[top - 1];
    *f = sf[top - 1];
    for (int i = (int)top - 2; i >= 0; i--) {
        acc_t l = sv[i];
        uint lf = sf[i];
        sb_combine(&l, &lf, *v, *f);
        *v = l;
        *f = lf;
    }
}

/* ---- 1. leaves ---------------------------------------------------------------- */

/* One leaf of any shape: bounds and mask checked per element. */
inline void sb_leaf(const global in_t *x, const global uchar *mask,
                    ulong first, ulong n, acc_t *v, uint *f)
{
    acc_t a = sb_start();
    uint fl = 0;
    const ulong end = min(first + SB_LEAF_SIZE, n);
    for (ulong i = first; i < end; i++) {
        if (mask && !mask[i])
            continue;
        const acc_t e = sb_load(x[i]);
        a = (fl & SB_HAS) ? sb_step(a, e, &fl) : sb_first(e);
        fl |= SB_HAS;
    }
    *v = a;
    *f = fl;
}

/* Position k of four full leaves side by side: element k of each into
 * that leaf's chain. Four independent chains, one step of each in turn,
 * so that the core overlaps them. */
#define SB_STEP4(STEP, E0, E1, E2, E3, k)                             \
    a0 = STEP(a0, sb_load(E0.k), &fl);                                \
    a1 = STEP(a1, sb_load(E1.k), &fl);                                \
    a2 = STEP(a2, sb_load(E2.k), &fl);                                \
    a3 = STEP(a3, sb_load(E3.k), &fl);

/* Four full, unmasked leaves E0..E3 folded left to right, then their
 * aligned subtree into OUT: a node of level 2. Every leaf is full, so
 * there is no none and the tree is plain steps. A macro, so that each use
 * is straight-line code of one kind of step whatever the inliner decides
 * (as a function taking "plain or not" it is too large for POCL's
 * inliner, and the choice became a branch in every step). */
#define SB_FOLD_FOUR(STEP, E0, E1, E2, E3, OUT)                       \
    {                                                                 \
        acc_t a0 = sb_first(sb_load(E0.s0));                          \
        acc_t a1 = sb_first(sb_load(E1.s0));                          \
        acc_t a2 = sb_first(sb_load(E2.s0));                          \
        acc_t a3 = sb_first(sb_load(E3.s0));                          \
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
inline void sb_four_leaves(const global in_t *x, ulong first, acc_t *v,
                           uint *f)
{
    const in16_t e0 = vload16(0, x + first);
    const in16_t e1 = vload16(0, x + first + 16);
    const in16_t e2 = vload16(0, x + first + 32);
    const in16_t e3 = vload16(0, x + first + 48);
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
inline void sb_eight_leaves(const global in_t *x, ulong first, acc_t *v,
                            uint *f)
{
    acc_t lo, hi;
    uint flo, fhi;
    sb_four_leaves(x, first, &lo, &flo);
    sb_four_leaves(x, first + 64, &hi, &fhi);
    uint fl = flo | fhi;
    *v = sb_step(lo, hi, &fl);
    *f = fl;
}

/* Whole items tested once for the plain fold: the guarded floats. The
 * checked integer sum keeps its test per four leaves: it is as fast
 * either way on POCL, and Oclgrind 21.10's uninitialised-memory checker
 * crashes on its eight-leaf plain fold. */
#define SB_PLAIN_ITEMS (SB_HAVE_PLAIN && SB_ACC_KIND != SB_KIND_INT)

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
inline void sb_eight_plain_leaves(const global in_t *x, ulong first,
                                  acc_t *v, uint *f)
{
    uint fl = 0;
    acc_t lo, hi;
    {
        const in16_t e0 = vload16(0, x + first);
        const in16_t e1 = vload16(0, x + first + 16);
        const in16_t e2 = vload16(0, x + first + 32);
        const in16_t e3 = vload16(0, x + first + 48);
        SB_FOLD_FOUR(SB_PLAIN_STEP_F, e0, e1, e2, e3, lo)
    }
    {
        const in16_t e4 = vload16(0, x + first + 64);
        const in16_t e5 = vload16(0, x + first + 80);
        const in16_t e6 = vload16(0, x + first + 96);
        const in16_t e7 = vload16(0, x + first + 112);
        SB_FOLD_FOUR(SB_PLAIN_STEP_F, e4, e5, e6, e7, hi)
    }
    *v = sb_plain_step(lo, hi);
    *f = SB_HAS;
}
#endif

/* ---- 3. the work-group ------------------------------------------------------- */

/* The work-group tree over one node per work-item; see the file comment. */
inline void sb_group_tree(acc_t *v, uint *f, uint pos, uint wg, uint sg,
                          uint hw, local acc_t *lv, local uint *lf)
{
    const uint lane = pos % sg, sgid = pos / sg, nsg = wg / sg;
    for (uint off = 1; off < sg; off <<= 1) {
        acc_t ov;
        uint of;
        sb_shuffle_down_node(*v, *f, off, pos, lane, sg, hw, lv, lf, &ov, &of);
        if ((lane & (2 * off - 1)) == 0)
            sb_combine(v, f, ov, of);
    }
    if (lane == 0) {
        lv[sgid] = *v;
        lf[sgid] = *f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 1; s < nsg; s <<= 1) {
        if (pos < nsg && (pos & (2 * s - 1)) == 0) {
            acc_t a = lv[pos];
            uint fa = lf[pos];
            sb_combine(&a, &fa, lv[pos + s], lf[pos + s]);
            lv[pos] = a;
            lf[pos] = fa;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *v = lv[0];
    *f = lf[0];
}

/* ---- 4. the work-group's node, or the result ------------------------------------ */

inline void sb_emit(acc_t v, uint f, uint pos, global acc_t *out_v,
                    ulong out_cap, uint final, global uchar *res)
{
    if (pos != 0)
        return;
    if (!final) {
        out_v[get_group_id(0)] = v;
        ((global uint *)(out_v + out_cap))[get_group_id(0)] = f;
        return;
    }
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
    *status = SB_STATUS_OK;
}

/* ---- the kernels ----------------------------------------------------------------- */

kernel void sb_leaves(const global in_t *x, ulong x_off,
                      const global uchar *mask, ulong mask_off, ulong n,
                      uint lpi, uint sg, local acc_t *lv, local uint *lf,
                      global acc_t *out_v, ulong out_cap, uint final,
                      global uchar *res, ulong res_off)
{
    const uint wg = (uint)get_local_size(0);
    uint pos, hw;
    sg = sb_choose_subgroup(sg, wg, &pos, &hw);
    x += x_off;
    if (mask)
        mask += mask_off;

    /* 1. and 2.: this work-item's leaves, into its binary counter. */
    const ulong item = (ulong)get_group_id(0) * wg + pos;
    const ulong first_leaf = item * lpi;
    const ulong leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;
    acc_t sv[SB_STACK];
    uint sf[SB_STACK], sl[SB_STACK], top = 0;
#if SB_PLAIN_ITEMS
    /* An item of full, unmasked leaves all allowing the plain fold (the
     * common case) takes it for every eight; any other takes the test per
     * four leaves. Only shapes of eight leaves or more per item (a CPU's:
     * its 2-8 KiB are in the cache for the fold) pay for the extra pass;
     * a GPU's four leaves per item test inside the fold, where taking
     * elements out of the loaded vectors costs nothing. */
    const int plain = !mask && lpi % 8 == 0 &&
                      (first_leaf + lpi) * SB_LEAF_SIZE <= n &&
                      sb_leaves_are_plain(x, first_leaf * SB_LEAF_SIZE, lpi);
#endif
    for (uint l = 0; l < lpi && first_leaf + l < leaves; ) {
        const ulong first = (first_leaf + l) * SB_LEAF_SIZE;
        acc_t v;
        uint f;
        if (!mask && l % 8 == 0 && lpi - l >= 8 && first + 128 <= n) {
#if SB_PLAIN_ITEMS
            if (plain)
                sb_eight_plain_leaves(x, first, &v, &f);
            else
#endif
                sb_eight_leaves(x, first, &v, &f);
            sb_push(sv, sf, sl, &top, v, f, 3);
            l += 8;
        } else if (!mask && l % 4 == 0 && lpi - l >= 4 && first + 64 <= n) {
            sb_four_leaves(x, first, &v, &f);
            sb_push(sv, sf, sl, &top, v, f, 2);
            l += 4;
        } else {
            sb_leaf(x, mask, first, n, &v, &f);
            sb_push(sv, sf, sl, &top, v, f, 0);
            l += 1;
        }
    }
    acc_t v;
    uint f;
    sb_pop_all(sv, sf, top, &v, &f);

    /* 3. and 4. */
    sb_group_tree(&v, &f, pos, wg, sg, hw, lv, lf);
    sb_emit(v, f, pos, out_v, out_cap, final, res + res_off);
}

kernel void sb_nodes(const global acc_t *in_v, ulong in_cap, ulong count,
                     uint npi, uint sg, local acc_t *lv, local uint *lf,
                     global acc_t *out_v, ulong out_cap, uint final,
                     global uchar *res, ulong res_off)
{
    const global uint *in_f = (const global uint *)(in_v + in_cap);
    const uint wg = (uint)get_local_size(0);
    uint pos, hw;
    sg = sb_choose_subgroup(sg, wg, &pos, &hw);

    /* 1. and 2.: this work-item's nodes of the previous pass. */
    const ulong first = ((ulong)get_group_id(0) * wg + pos) * npi;
    acc_t sv[SB_STACK];
    uint sf[SB_STACK], sl[SB_STACK], top = 0;
    for (uint k = 0; k < npi && first + k < count; k++)
        sb_push(sv, sf, sl, &top, in_v[first + k], in_f[first + k], 0);
    acc_t v;
    uint f;
    sb_pop_all(sv, sf, top, &v, &f);

    /* 3. and 4. */
    sb_group_tree(&v, &f, pos, wg, sg, hw, lv, lf);
    sb_emit(v, f, pos, out_v, out_cap, final, res + res_off);
}
