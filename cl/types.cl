/* types.cl: what one program computes, as the host defines it
 * (src/device_programs.c builds one program per reduction: input type,
 * accumulator, operation, integer mode and float modes), and the types
 * and node flags every other file uses.
 *
 * From the host, made from its own definitions so that nothing is kept
 * twice (the .cl files have no defaults for them):
 *   SB_IN_T, SB_ACC_T     OpenCL C storage types. A float type whose mode is
 *                         not native is stored as its bits (uint, ulong),
 *                         so that no float instruction ever sees it; any
 *                         and all accumulate truths in a uint.
 *   SB_IN_KIND,           what the values are: SB_KIND_INT, SB_KIND_F32,
 *   SB_ACC_KIND           SB_KIND_F64; an input also SB_KIND_F16 or
 *                         SB_KIND_BF16 (stored as its ushort bits:
 *                         arith_half.cl; no cl_khr_fp16 needed)
 *   SB_ACC_HALF           0, or SB_KIND_F16 / SB_KIND_BF16 for a half
 *                         accumulator: then SB_ACC_KIND is SB_KIND_F32 and
 *                         every + and * is rounded to the half type
 *                         (arith_float.cl)
 *   SB_ACC_SIGNED,        an integer accumulator's signedness and width
 *   SB_ACC_BITS           (for floats, the storage width)
 *   SB_F32_MODE,          how binary32 / binary64 arithmetic is done:
 *   SB_F64_MODE           SB_MODE_NATIVE, SB_MODE_GUARDED, SB_MODE_SOFTWARE
 *   SB_OP, SB_WRAP        the operation (SB_OP_SUM ... SB_OP_ALL) and the
 *                         wrapping integer mode (of the sum or product, and
 *                         of an integer map)
 *   SB_MAP                the element map: SB_MAP_NONE, SB_MAP_ABS,
 *                         SB_MAP_SQUARE (applied in the accumulator)
 *   SB_SKIP_NAN           a float NaN element does not take part
 *   SB_DOT                the elements are x[i] * y[i] (a second buffer y)
 *   SB_COUNT              a count: the accumulator is ulong, the operation
 *                         a wrapping sum, and every taking-part element
 *                         reads as 1 (ops.cl, sb_load)
 *   SB_ARG                argmin / argmax (SB_OP is min / max): every
 *                         node carries the position of the element whose
 *                         value it holds, and the record is an
 *                         sb_device_arg_result (index at
 *                         SB_RESULT_INDEX_OFFSET)
 *   SB_NEED_FP64          the program uses the device's doubles
 *   SB_LEAF_SIZE, SB_MAX_LPI_LOG2, SB_STATUS_*, SB_RESULT_STATUS_OFFSET,
 *   SB_SG_BACKEND         the order's leaf, the per-item limit, the status
 *                         values and record layout, the sub-group back-end
 *   SB_WIDE_FOLDS_OK      whether whole integer items may fold as vectors
 *                         (in any order where that cannot change their
 *                         node: reduce.cl)
 *   SB_LANE_LEAVES        whether float leaves fold side by side in vector
 *                         lanes (reduce.cl; the host's decision,
 *                         device_programs.c: lane_leaves())
 *   SB_CHAIN_FOLDS        whether an item's full leaves may fold four or
 *                         eight at a time, as chains side by side, or in
 *                         vector lanes (else one leaf after another; the
 *                         same steps) */
#pragma OPENCL FP_CONTRACT OFF   /* OpenCL defaults to ON: no silent FMA */

#if !defined(SB_IN_T) || !defined(SB_ACC_T) || !defined(SB_IN_KIND) || \
    !defined(SB_ACC_KIND) || !defined(SB_ACC_BITS) || !defined(SB_OP) || \
    !defined(SB_F32_MODE) || !defined(SB_F64_MODE) || \
    !defined(SB_LEAF_SIZE) || !defined(SB_MAX_LPI_LOG2) || \
    !defined(SB_STATUS_OK) || !defined(SB_STATUS_EMPTY) || \
    !defined(SB_STATUS_OVERFLOW) || !defined(SB_RESULT_STATUS_OFFSET) || \
    !defined(SB_WIDE_FOLDS_OK) || !defined(SB_ABS_BY_SELECT) || !defined(SB_MAP) || \
    !defined(SB_MAP_NONE) || !defined(SB_MAP_ABS) || \
    !defined(SB_MAP_SQUARE) || !defined(SB_SKIP_NAN) || !defined(SB_DOT) || \
    !defined(SB_ACC_HALF) || !defined(SB_KIND_F16) || \
    !defined(SB_KIND_BF16) || !defined(SB_COUNT) || !defined(SB_ARG) || \
    !defined(SB_RESULT_INDEX_OFFSET) || !defined(SB_ROWS_MAX_LPI_LOG2) || \
    !defined(SB_CHAIN_FOLDS) || !defined(SB_LANE_LEAVES) || \
    !defined(SB_TERMS_FIT)
#error "build with the host's -D options (src/device_programs.c)"
#endif
#if SB_LEAF_SIZE != 16
#error "the fast folds load one leaf as one 16-element vector (vload16)"
#endif

#if SB_NEED_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

typedef SB_IN_T  in_t;
typedef SB_ACC_T acc_t;

#define SB_CAT_(a, b) a##b
#define SB_CAT(a, b)  SB_CAT_(a, b)
typedef SB_CAT(SB_IN_T, 16) in16_t;
#define SB_AS_ACC(x) SB_CAT(as_, SB_ACC_T)(x)   /* reinterpret, never convert */

/* The mode of the accumulator's and the input's arithmetic. */
#if SB_ACC_KIND == SB_KIND_F32
#define SB_ACC_MODE SB_F32_MODE
#elif SB_ACC_KIND == SB_KIND_F64
#define SB_ACC_MODE SB_F64_MODE
#else
#define SB_ACC_MODE SB_MODE_NATIVE
#endif
#if SB_IN_KIND == SB_KIND_F32
#define SB_IN_MODE SB_F32_MODE
#elif SB_IN_KIND == SB_KIND_F64
#define SB_IN_MODE SB_F64_MODE
#else
#define SB_IN_MODE SB_MODE_NATIVE
#endif

/* The input is f16 or bf16 bits (ops.cl converts them exactly). */
#define SB_IN_HALF (SB_IN_KIND == SB_KIND_F16 || SB_IN_KIND == SB_KIND_BF16)

/* acc_t is the hardware's float or double (else an integer, or bits). */
#define SB_ACC_NATIVE_FLOAT (SB_ACC_KIND != SB_KIND_INT && \
                             SB_ACC_MODE == SB_MODE_NATIVE)
#define SB_IS_BOOLEAN (SB_OP == SB_OP_ANY || SB_OP == SB_OP_ALL)
/* Whether an element is not the input as it is converted: mapped or a
 * product. An integer map or product can overflow whatever the op (abs of
 * INT32_MIN), so it makes every op checked, min and max included. */
#define SB_TERMS (SB_MAP != SB_MAP_NONE || SB_DOT)
#define SB_CHECKED (SB_ACC_KIND == SB_KIND_INT && !SB_WRAP && \
                    (SB_OP == SB_OP_SUM || SB_OP == SB_OP_PROD || SB_TERMS))

/* A tree node: a value and flags. NONE: no flag set. */
#define SB_HAS      1u   /* the node has a value (not none) */
#define SB_OVERFLOW 2u   /* a checked step below this node overflowed */
