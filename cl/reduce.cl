/* reduce.cl: the two kernels of every reduction, for each operation.
 *
 *   sb_<op>_leaves: work-item p of work-group g owns the `lpi` consecutive
 *     leaves starting at leaf (g * wg + p) * lpi (lpi and wg powers of
 *     two). It folds each leaf left to right (converted to the accumulator,
 *     mask applied), combines its leaves as an aligned subtree, and the
 *     work-group combines its work-items' nodes as an aligned subtree:
 *     first inside each sub-group (lane k with k + off, off = 1, 2, 4 ...),
 *     then across sub-groups through local memory. One node per work-group,
 *     stored at index g: the node of leaves [g*wg*lpi, (g+1)*wg*lpi).
 *   sb_<op>_nodes: the same over nodes instead of leaves (npi consecutive
 *     nodes per work-item), for the partials of the previous pass.
 * Partials live in one buffer: `cap` values, then `cap` uint flags.
 * When a launch has a single work-group (`final` != 0), that work-group
 * writes the result record instead: the value (canonical NaN) at byte 0
 * and the status word at byte 8 of `res`; the value only when the status is
 * ok. docs/order.md's "pad with none to a power of two" makes every such block
 * an aligned subtree, so work-group size, leaves per item and sub-group
 * size change speed, never bits. */

/* A work-item's binary counter holds one node per level of its subtree
 * (SB_MAX_LPI_LOG2, from the host, bounds leaves or nodes per item). */
#define SB_STACK (SB_MAX_LPI_LOG2 + 2)

/* Converts one element to its accumulator value (any/all: its truth). */
#define SB_LOAD_VALUE(x) ((acc_t)(x))
#define SB_LOAD_TRUTH(x) ((acc_t)((x) != (in_t)0 ? 1 : 0))

/* Folds component c of four full leaves e0..e3 into a0..a3. */
#define SB_FOLD4(c, STEP, LOAD)                                               \
    a0 = STEP(a0, LOAD(e0.s##c), &fl); a1 = STEP(a1, LOAD(e1.s##c), &fl);    \
    a2 = STEP(a2, LOAD(e2.s##c), &fl); a3 = STEP(a3, LOAD(e3.s##c), &fl);

/* The fold and combine steps: a op b. min/max keep a unless b is strictly
 * smaller/larger, so NaNs and signed zeros follow docs/order.md. */
#define SB_STEP_ADD(a, b, ovp)  ((a) + (b))
#define SB_STEP_MUL(a, b, ovp)  ((a) * (b))
#define SB_STEP_ADDC(a, b, ovp) sb_add_checked((a), (b), (ovp))
#define SB_STEP_MULC(a, b, ovp) sb_mul_checked((a), (b), (ovp))
#define SB_STEP_ADDW(a, b, ovp) sb_add_wrap((a), (b))
#define SB_STEP_MULW(a, b, ovp) sb_mul_wrap((a), (b))
#define SB_STEP_MIN(a, b, ovp)  ((b) < (a) ? (b) : (a))
#define SB_STEP_MAX(a, b, ovp)  ((b) > (a) ? (b) : (a))
#define SB_STEP_OR(a, b, ovp)   ((acc_t)(((a) != 0 || (b) != 0) ? 1 : 0))
#define SB_STEP_AND(a, b, ovp)  ((acc_t)(((a) != 0 && (b) != 0) ? 1 : 0))

/* Writing the result value: the accumulator (any NaN made canonical,
 * since hardware differs in payloads), or one byte for any/all. */
#if SB_ACC_FLOAT && SB_ACC_BITS == 64
#define SB_CANONICAL_NAN as_double(0x7FF8000000000000UL)
#elif SB_ACC_FLOAT
#define SB_CANONICAL_NAN as_float(0x7FC00000U)
#endif
inline void sb_write_value(acc_t v, global uchar *res)
{
#if SB_ACC_FLOAT
    if (isnan(v)) v = SB_CANONICAL_NAN;
#endif
    *(global acc_t *)res = v;
}
inline void sb_write_truth(acc_t v, global uchar *res)
{
    *res = v != 0 ? 1 : 0;
}

/* Folds four full leaves e0..e3 side by side into a0..a3, then their tree
 * into a0: see NAME##_leaf4_fast. */
#define SB_FOLD_LEAF4(HAS_START, START, STEP, LOAD)                           \
    if (HAS_START) {                                                          \
        a0 = STEP(START, LOAD(e0.s0), &fl);                                   \
        a1 = STEP(START, LOAD(e1.s0), &fl);                                   \
        a2 = STEP(START, LOAD(e2.s0), &fl);                                   \
        a3 = STEP(START, LOAD(e3.s0), &fl);                                   \
    } else {                                                                  \
        a0 = LOAD(e0.s0); a1 = LOAD(e1.s0);                                   \
        a2 = LOAD(e2.s0); a3 = LOAD(e3.s0);                                   \
    }                                                                         \
    SB_FOLD4(1, STEP, LOAD) SB_FOLD4(2, STEP, LOAD) SB_FOLD4(3, STEP, LOAD)   \
    SB_FOLD4(4, STEP, LOAD) SB_FOLD4(5, STEP, LOAD) SB_FOLD4(6, STEP, LOAD)   \
    SB_FOLD4(7, STEP, LOAD) SB_FOLD4(8, STEP, LOAD) SB_FOLD4(9, STEP, LOAD)   \
    SB_FOLD4(a, STEP, LOAD) SB_FOLD4(b, STEP, LOAD) SB_FOLD4(c, STEP, LOAD)   \
    SB_FOLD4(d, STEP, LOAD) SB_FOLD4(e, STEP, LOAD) SB_FOLD4(f, STEP, LOAD)   \
    a0 = STEP(a0, a1, &fl); a2 = STEP(a2, a3, &fl);                           \
    a0 = STEP(a0, a2, &fl);

/* SB_IF_WINDOW(WINDOW_STEP, e0..e3): `if (the window holds)` for the
 * checked sum with a 32/64-bit accumulator (WINDOW_STEP SB_STEP_ADDW, from
 * SB_SUM_WINDOW_STEP in types.cl), `if (0)` for every other reduction
 * (SB_STEP_NONE: its branch is dead, but must compile). */
#define SB_IF_WINDOW(WINDOW_STEP, e0, e1, e2, e3)                             \
    if (SB_CAT(SB_WINDOW_TEST_, WINDOW_STEP)(e0, e1, e2, e3))
#define SB_WINDOW_TEST_SB_STEP_NONE(e0, e1, e2, e3) 0
#define SB_WINDOW_TEST_SB_STEP_ADDW(e0, e1, e2, e3)                           \
    sb_in_sum_window(e0, e1, e2, e3)
#define SB_STEP_NONE(a, b, ovp) (b)

/* SB_DEFINE_REDUCTION(NAME, HAS_START, START, STEP, LOAD, CHECKED)
 *   HAS_START: 1 if a leaf starts from START (sum, prod, any, all), 0 if it
 *              starts from its first taking-part element (min, max);
 *   STEP(a, b, ovp): a op b, for docs/order.md's fold and combine alike;
 *   LOAD(x): element to accumulator value;
 *   CHECKED: 1 if an overflow is an error;
 *   WRITE: sb_write_value or sb_write_truth;
 *   WINDOW_STEP: SB_STEP_NONE, or for the checked sum the plain step that
 *     is exact where sb_in_sum_window() holds. */
#define SB_DEFINE_REDUCTION(NAME, HAS_START, START, STEP, LOAD, CHECKED, WRITE,\
                            WINDOW_STEP)                                      \
                                                                              \
inline void NAME##_combine(acc_t *v, uint *f, acc_t rv, uint rf)              \
{                                                                             \
    if ((rf & SB_HAS) && (*f & SB_HAS))                                       \
        *v = STEP(*v, rv, f);                                                 \
    else if (rf & SB_HAS)                                                     \
        *v = rv;                                                              \
    *f |= rf;                                                                 \
}                                                                             \
                                                                              \
/* One leaf, any shape: bounds and mask checked per element. */               \
inline void NAME##_leaf_slow(const global in_t *x, const global uchar *mask,  \
                             ulong first, ulong n, acc_t *v, uint *f)         \
{                                                                             \
    acc_t a = START;                                                          \
    uint fl = 0;                                                              \
    const ulong end = min(first + SB_LEAF_SIZE, n);                                     \
    for (ulong i = first; i < end; i++) {                                     \
        if (mask && !mask[i]) continue;                                       \
        const acc_t e = LOAD(x[i]);                                           \
        a = (HAS_START || (fl & SB_HAS)) ? STEP(a, e, &fl) : e;               \
        fl |= SB_HAS;                                                         \
    }                                                                         \
    *v = a;                                                                   \
    *f = fl;                                                                  \
}                                                                             \
                                                                              \
/* Four full, unmasked leaves side by side (four independent chains:     \
 * enough for a GPU, whose parallelism is across work-items), then their    \
 * aligned subtree: one node of level 2. Every leaf is full, so there is   \
 * no none and the tree is plain steps. Eight leaves are two of these: a   \
 * CPU device, which runs a work-group's items one after another, needs    \
 * eight chains to keep two vector adders busy, and the two inlined       \
 * bodies are straight-line code that the core interleaves. A checked    \
 * sum whose 64 elements lie in sb_in_sum_window() cannot overflow, and    \
 * takes WINDOW_STEP instead of the per-element check (same bits). */      \
inline void NAME##_leaf4_fast(const global in_t *x, ulong first, acc_t *v,    \
                              uint *f)                                        \
{                                                                             \
    const in16_t e0 = vload16(0, x + first);                                  \
    const in16_t e1 = vload16(0, x + first + 16);                             \
    const in16_t e2 = vload16(0, x + first + 32);                             \
    const in16_t e3 = vload16(0, x + first + 48);                             \
    uint fl = 0;                                                              \
    acc_t a0, a1, a2, a3;                                                     \
    SB_IF_WINDOW(WINDOW_STEP, e0, e1, e2, e3) {                               \
        SB_FOLD_LEAF4(HAS_START, START, WINDOW_STEP, LOAD)                    \
    } else {                                                                  \
        SB_FOLD_LEAF4(HAS_START, START, STEP, LOAD)                           \
    }                                                                         \
    *v = a0;                                                                  \
    *f = fl | SB_HAS;                                                         \
}                                                                             \
inline void NAME##_leaf8_fast(const global in_t *x, ulong first, acc_t *v,    \
                              uint *f)                                        \
{                                                                             \
    acc_t lo, hi; uint flo, fhi;                                              \
    NAME##_leaf4_fast(x, first, &lo, &flo);                                   \
    NAME##_leaf4_fast(x, first + 64, &hi, &fhi);                              \
    uint fl = flo | fhi;                                                      \
    *v = STEP(lo, hi, &fl);                                                   \
    *f = fl;                                                                  \
}                                                                             \
                                                                              \
/* The work-group tree over one node per work-item; see the file comment. */ \
inline void NAME##_group(acc_t *v, uint *f, uint pos, uint wg, uint sg,       \
                         uint hw, local acc_t *lv, local uint *lf)            \
{                                                                             \
    const uint lane = pos % sg, sgid = pos / sg, nsg = wg / sg;               \
    for (uint off = 1; off < sg; off <<= 1) {                                 \
        acc_t ov; uint of;                                                    \
        sb_shuffle_down_node(*v, *f, off, pos, lane, sg, hw, lv, lf, &ov, &of); \
        if ((lane & (2 * off - 1)) == 0)                                      \
            NAME##_combine(v, f, ov, of);                                     \
    }                                                                         \
    if (lane == 0) { lv[sgid] = *v; lf[sgid] = *f; }                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                             \
    for (uint s = 1; s < nsg; s <<= 1) {                                      \
        if (pos < nsg && (pos & (2 * s - 1)) == 0) {                          \
            acc_t a = lv[pos]; uint fa = lf[pos];                             \
            NAME##_combine(&a, &fa, lv[pos + s], lf[pos + s]);                \
            lv[pos] = a; lf[pos] = fa;                                        \
        }                                                                     \
        barrier(CLK_LOCAL_MEM_FENCE);                                         \
    }                                                                         \
    *v = lv[0]; *f = lf[0];                                                   \
}                                                                             \
                                                                              \
inline void NAME##_emit(acc_t v, uint f, uint pos, global acc_t *out_v,       \
                        ulong out_cap, uint final, global uchar *res)         \
{                                                                             \
    if (pos != 0) return;                                                     \
    if (!final) {                                                             \
        out_v[get_group_id(0)] = v;                                           \
        ((global uint *)(out_v + out_cap))[get_group_id(0)] = f;              \
        return;                                                               \
    }                                                                         \
    global int *status = (global int *)(res + SB_RESULT_STATUS_OFFSET);                             \
    if (CHECKED && (f & SB_OVERFLOW)) { *status = SB_STATUS_OVERFLOW; return; } \
    if (!(f & SB_HAS)) {                                                      \
        if (!HAS_START) { *status = SB_STATUS_EMPTY; return; }                \
        v = START;                                                            \
    }                                                                         \
    WRITE(v, res);                                                            \
    *status = SB_STATUS_OK;                                                   \
}                                                                             \
                                                                              \
/* Binary counter over a work-item's consecutive nodes (see host_reduce.c). */ \
inline void NAME##_push(acc_t *sv, uint *sf, uint *sl, uint *top, acc_t v,    \
                        uint f, uint level)                                   \
{                                                                             \
    while (*top > 0 && sl[*top - 1] == level) {                               \
        acc_t l = sv[*top - 1]; uint lf_ = sf[*top - 1];                      \
        NAME##_combine(&l, &lf_, v, f);                                       \
        v = l; f = lf_; (*top)--; level++;                                    \
    }                                                                         \
    sv[*top] = v; sf[*top] = f; sl[*top] = level; (*top)++;                   \
}                                                                             \
inline void NAME##_pop_all(acc_t *sv, uint *sf, uint top, acc_t *v, uint *f)  \
{                                                                             \
    *v = START; *f = 0;                                                       \
    if (top == 0) return;                                                     \
    *v = sv[top - 1]; *f = sf[top - 1];                                       \
    for (int i = (int)top - 2; i >= 0; i--) {                                 \
        acc_t l = sv[i]; uint lf_ = sf[i];                                    \
        NAME##_combine(&l, &lf_, *v, *f);                                     \
        *v = l; *f = lf_;                                                     \
    }                                                                         \
}                                                                             \
                                                                              \
kernel void sb_##NAME##_leaves(const global in_t *x, ulong x_off,             \
        const global uchar *mask, ulong mask_off, ulong n, uint lpi, uint sg, \
        local acc_t *lv, local uint *lf, global acc_t *out_v, ulong out_cap,  \
        uint final, global uchar *res, ulong res_off)                         \
{                                                                             \
    const uint wg = (uint)get_local_size(0);                                  \
    uint pos, hw;                                                             \
    sg = sb_choose_subgroup(sg, wg, &pos, &hw);                               \
    x += x_off;                                                               \
    if (mask) mask += mask_off;                                               \
    const ulong item = (ulong)get_group_id(0) * wg + pos;                     \
    const ulong first_leaf = item * lpi;                                      \
    const ulong leaves = (n + SB_LEAF_SIZE - 1) / SB_LEAF_SIZE;               \
    acc_t sv[SB_STACK]; uint sf[SB_STACK], sl[SB_STACK], top = 0;             \
    for (uint l = 0; l < lpi && first_leaf + l < leaves; ) {                  \
        const ulong first = (first_leaf + l) * SB_LEAF_SIZE;                  \
        if (!mask && l % 8 == 0 && lpi - l >= 8 && first + 128 <= n) {       \
            acc_t v; uint f;                                                  \
            NAME##_leaf8_fast(x, first, &v, &f);                              \
            NAME##_push(sv, sf, sl, &top, v, f, 3);                           \
            l += 8;                                                           \
        } else if (!mask && l % 4 == 0 && lpi - l >= 4 && first + 64 <= n) { \
            acc_t v; uint f;                                                  \
            NAME##_leaf4_fast(x, first, &v, &f);                              \
            NAME##_push(sv, sf, sl, &top, v, f, 2);                           \
            l += 4;                                                           \
        } else {                                                              \
            acc_t v; uint f;                                                  \
            NAME##_leaf_slow(x, mask, first, n, &v, &f);                      \
            NAME##_push(sv, sf, sl, &top, v, f, 0);                           \
            l += 1;                                                           \
        }                                                                     \
    }                                                                         \
    acc_t v; uint f;                                                          \
    NAME##_pop_all(sv, sf, top, &v, &f);                                      \
    NAME##_group(&v, &f, pos, wg, sg, hw, lv, lf);                            \
    NAME##_emit(v, f, pos, out_v, out_cap, final, res + res_off);               \
}                                                                             \
                                                                              \
kernel void sb_##NAME##_nodes(const global acc_t *in_v, ulong in_cap,        \
        ulong count, uint npi, uint sg,                                       \
        local acc_t *lv, local uint *lf, global acc_t *out_v, ulong out_cap,  \
        uint final, global uchar *res, ulong res_off)                         \
{                                                                             \
    const global uint *in_f = (const global uint *)(in_v + in_cap);           \
    const uint wg = (uint)get_local_size(0);                                  \
    uint pos, hw;                                                             \
    sg = sb_choose_subgroup(sg, wg, &pos, &hw);                               \
    const ulong first = ((ulong)get_group_id(0) * wg + pos) * npi;            \
    acc_t sv[SB_STACK]; uint sf[SB_STACK], sl[SB_STACK], top = 0;             \
    for (uint k = 0; k < npi && first + k < count; k++)                       \
        NAME##_push(sv, sf, sl, &top, in_v[first + k], in_f[first + k], 0);   \
    acc_t v; uint f;                                                          \
    NAME##_pop_all(sv, sf, top, &v, &f);                                      \
    NAME##_group(&v, &f, pos, wg, sg, hw, lv, lf);                            \
    NAME##_emit(v, f, pos, out_v, out_cap, final, res + res_off);               \
}

/* ---- the reductions of this program's accumulator ---------------------- */

#if SB_ACC_FLOAT
SB_DEFINE_REDUCTION(sum,  1, (acc_t)0, SB_STEP_ADD,  SB_LOAD_VALUE, 0,
                    sb_write_value, SB_STEP_NONE)
SB_DEFINE_REDUCTION(prod, 1, (acc_t)1, SB_STEP_MUL,  SB_LOAD_VALUE, 0,
                    sb_write_value, SB_STEP_NONE)
#else
SB_DEFINE_REDUCTION(sum,  1, (acc_t)0, SB_STEP_ADDC, SB_LOAD_VALUE, 1,
                    sb_write_value, SB_SUM_WINDOW_STEP)
SB_DEFINE_REDUCTION(prod, 1, (acc_t)1, SB_STEP_MULC, SB_LOAD_VALUE, 1,
                    sb_write_value, SB_STEP_NONE)
SB_DEFINE_REDUCTION(sumwrap,  1, (acc_t)0, SB_STEP_ADDW, SB_LOAD_VALUE, 0,
                    sb_write_value, SB_STEP_NONE)
SB_DEFINE_REDUCTION(prodwrap, 1, (acc_t)1, SB_STEP_MULW, SB_LOAD_VALUE, 0,
                    sb_write_value, SB_STEP_NONE)
#endif
SB_DEFINE_REDUCTION(min, 0, (acc_t)0, SB_STEP_MIN, SB_LOAD_VALUE, 0,
                    sb_write_value, SB_STEP_NONE)
SB_DEFINE_REDUCTION(max, 0, (acc_t)0, SB_STEP_MAX, SB_LOAD_VALUE, 0,
                    sb_write_value, SB_STEP_NONE)
SB_DEFINE_REDUCTION(any, 1, (acc_t)0, SB_STEP_OR,  SB_LOAD_TRUTH, 0,
                    sb_write_truth, SB_STEP_NONE)
SB_DEFINE_REDUCTION(all, 1, (acc_t)1, SB_STEP_AND, SB_LOAD_TRUTH, 0,
                    sb_write_truth, SB_STEP_NONE)
