/* subgroup.cl: moving a node between lanes of a sub-group.
 *
 * The work-group tree (reduce.cl) combines lane k with lane k + off for
 * off = 1, 2, 4, ..., which keeps docs/order.md's adjacent-pairs tree. Only the
 * transport differs by device; the lane arithmetic is the same everywhere:
 *   SB_SG_BACKEND 0  no hardware sub-groups: lanes talk through local
 *                    memory (sb_shuffle_down_local, also the "emulated
 *                    sub-group" mode tests force on any device);
 *   SB_SG_BACKEND 1  cl_khr_subgroup_shuffle_relative (Intel, Mesa, ...);
 *   SB_SG_BACKEND 2  cl_intel_subgroups;
 *   SB_SG_BACKEND 3  NVIDIA: inline PTX shfl.sync (no OpenCL extension).
 * Hardware shuffles move 32-bit words; a node travels as (lo, hi, flags).
 * No sub_group_reduce(): its order is the implementation's, not ours. */
#ifndef SB_SG_BACKEND
#define SB_SG_BACKEND 0
#endif

#if SB_SG_BACKEND == 1
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle_relative : enable
inline uint sb_shfl32(uint v, uint off) { return sub_group_shuffle_down(v, off); }
inline uint sb_sg_size(void)  { return get_max_sub_group_size(); }
inline uint sb_sg_lane(void)  { return get_sub_group_local_id(); }
inline uint sb_sg_id(void)    { return get_sub_group_id(); }
#elif SB_SG_BACKEND == 2
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
inline uint sb_shfl32(uint v, uint off) { return intel_sub_group_shuffle_down(v, v, off); }
inline uint sb_sg_size(void)  { return get_max_sub_group_size(); }
inline uint sb_sg_lane(void)  { return get_sub_group_local_id(); }
inline uint sb_sg_id(void)    { return get_sub_group_id(); }
#elif SB_SG_BACKEND == 3
/* A warp is 32 consecutive work-items of a 1-D work-group. */
inline uint sb_shfl32(uint v, uint off)
{
    uint r;
    __asm__ __volatile__("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;"
                 : "=r"(r) : "r"(v), "r"(off));
    return r;
}
inline uint sb_sg_size(void)  { return 32u; }
inline uint sb_sg_lane(void)  { return (uint)get_local_id(0) & 31u; }
inline uint sb_sg_id(void)    { return (uint)get_local_id(0) >> 5; }
#endif

#if SB_SG_BACKEND != 0
/* Packs an accumulator value into two 32-bit words and back. */
inline uint2 sb_pack(acc_t v)
{
#if SB_ACC_BITS == 64
    return as_uint2(v);
#elif SB_ACC_NATIVE_FLOAT
    return (uint2)(as_uint(v), 0u);
#elif SB_ACC_BITS == 32
    return (uint2)((uint)v, 0u);
#else
    return (uint2)((uint)(uwrap_t)v, 0u);
#endif
}
inline acc_t sb_unpack(uint2 w)
{
#if SB_ACC_BITS == 64
    return SB_AS_ACC(w);
#elif SB_ACC_NATIVE_FLOAT
    return as_float(w.x);
#elif SB_ACC_BITS == 32
    return SB_AS_ACC(w.x);
#else
    return SB_AS_ACC((uwrap_t)w.x);
#endif
}
#endif

/* Picks the sub-group size the work-group tree uses and this work-item's
 * position in the work-group. `req` is the host's request: 0 for the
 * device's hardware sub-groups when this program has a back-end (else
 * local memory only, i.e. a sub-group of 1); a power of two for emulated
 * sub-groups of that size. *hw says whether shuffles use hardware. With
 * hardware, positions are numbered sub-group by sub-group, so a
 * sub-group's lanes always hold consecutive positions, whatever the
 * device's mapping of local ids to sub-groups. */
inline uint sb_choose_subgroup(uint req, uint wg, uint *pos, uint *hw)
{
    *pos = (uint)get_local_id(0);
    *hw = 0;
#if SB_SG_BACKEND != 0
    if (req == 0) {
        const uint hs = sb_sg_size();
        if (hs > 1 && (hs & (hs - 1)) == 0 && wg % hs == 0) {
            *pos = sb_sg_id() * hs + sb_sg_lane();
            *hw = 1;
            return hs;
        }
    }
#endif
    return req == 0 ? 1u : req;
}

/* Fetches the node of lane (lane + off), which exists for every lane that
 * uses the result ((lane & (2*off - 1)) == 0 and sg a power of two). Every
 * work-item of the work-group calls it with the same off. */
inline void sb_shuffle_down_node(acc_t v, uint f, uint off, uint pos,
                                 uint lane, uint sg, uint hw,
                                 local acc_t *lv, local uint *lf,
                                 acc_t *ov, uint *of)
{
#if SB_SG_BACKEND != 0
    if (hw) {
        const uint2 w = sb_pack(v);
        *ov = sb_unpack((uint2)(sb_shfl32(w.x, off), sb_shfl32(w.y, off)));
        *of = sb_shfl32(f, off);
        return;
    }
#endif
    lv[pos] = v;
    lf[pos] = f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint src = lane + off < sg ? pos + off : pos;
    *ov = lv[src];
    *of = lf[src];
    barrier(CLK_LOCAL_MEM_FENCE);
}
