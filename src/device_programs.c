/* device_programs.c: the kernels of a context, built on first use: one
 * program per reduction (input, accumulator, the family of
 * SB_KERNEL_FAMILY_LIST: operation and integer mode, and the variant: map,
 * dot product, NaN skipping), with the context's float modes, holds the
 * two kernels sb_leaves and sb_nodes. Everything
 * the kernels must agree on with the host (types, kinds, modes, the
 * operation, the leaf size, the status values, the result record's
 * layout, the per-item limit) reaches them as -D options made from the
 * host's own definitions, so no number is kept twice. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"
#include "host_engine.h"   /* sb__host_prefetch_bytes() */

extern const char sb__cl_source[];
extern const size_t sb__cl_source_size;

/* The kernels write the record at byte offsets the host reads as an
 * sb_device_result: its layout is part of the ABI. */
_Static_assert(sizeof(sb_device_result) == 16, "sb_device_result is 16 bytes");
_Static_assert(offsetof(sb_device_result, value) == 0,
               "sb_device_result.value is at byte 0");
_Static_assert(offsetof(sb_device_result, status) == 8,
               "sb_device_result.status is at byte 8");
_Static_assert(sizeof(sb_device_arg_result) == 24,
               "sb_device_arg_result is 24 bytes");
_Static_assert(offsetof(sb_device_arg_result, index) == 8 &&
               offsetof(sb_device_arg_result, status) == 16,
               "sb_device_arg_result: index at byte 8, status at 16");

sb__kernel_family sb__kernel_family_of(const sb__plan *p)
{
    switch (p->op) {
    case SB_SUM:  return p->wrap ? SB_FAMILY_SUMWRAP : SB_FAMILY_SUM;
    case SB_PROD: return p->wrap ? SB_FAMILY_PRODWRAP : SB_FAMILY_PROD;
    case SB_MIN:  return SB_FAMILY_MIN;
    case SB_MAX:  return SB_FAMILY_MAX;
    case SB_ANY:  return SB_FAMILY_ANY;
    case SB_ALL:  return SB_FAMILY_ALL;
    case SB_COUNT: return SB_FAMILY_CNT;
    case SB_ARGMIN: return SB_FAMILY_ARGMIN;
    case SB_ARGMAX: return SB_FAMILY_ARGMAX;
    }
    return SB_FAMILY_SUM;
}

unsigned sb__kernel_variant_of(const sb__plan *p)
{
    const bool ordered = p->op == SB_MIN || p->op == SB_MAX || p->arg;
    return (p->dot ? 3u : (unsigned)p->map) + (p->skip_nan ? 4u : 0u)
         + (ordered && p->wrap ? 8u : 0u);
}

static const char *const pass_names[SB_PASS_COUNT] = {
    [SB_PASS_LEAVES] = "sb_leaves", [SB_PASS_NODES] = "sb_nodes",
    [SB_PASS_ROWS] = "sb_rows", [SB_PASS_COLUMNS] = "sb_columns",
    [SB_PASS_SEGMENTS] = "sb_segments",
};

/* A half accumulator's nodes are binary32 values (cl/arith_half.cl). */
size_t sb__kernel_acc_size(const sb__plan *plan)
{
    if (plan->op == SB_ANY || plan->op == SB_ALL)
        return sizeof(cl_uint);
    if (plan->op == SB_COUNT)
        return sizeof(cl_ulong);
    return sb__type_is_half(plan->acc) ? sizeof(cl_float)
                                       : sb_type_size(plan->acc);
}

/* What the kernels know of a type: an integer, binary32 or binary64, or
 * the bits of an f16 or bf16 input (cl/arith_half.cl). */
enum { KIND_INT, KIND_F32, KIND_F64, KIND_F16, KIND_BF16 };

static int kind_of(sb_type t)
{
    switch (t) {
    case SB_F32:  return KIND_F32;
    case SB_F64:  return KIND_F64;
    case SB_F16:  return KIND_F16;
    case SB_BF16: return KIND_BF16;
    default:      return KIND_INT;
    }
}

/* The OpenCL C type a value of `t` is stored in: a float type that is not
 * native travels as its bits, so that no float instruction ever touches
 * it where the hardware would flush it. An f16 or bf16 input is read as
 * its ushort bits (no cl_khr_fp16), and a half accumulator is held in
 * binary32, as f32 is. */
static const char *storage_name(const sb_device_caps *c, sb_type t)
{
    if (sb__type_is_half(t))
        return "ushort";
    if (t == SB_F32 && c->type_mode[SB_F32] != SB_MODE_NATIVE)
        return "uint";
    if (t == SB_F64 && c->type_mode[SB_F64] != SB_MODE_NATIVE)
        return "ulong";
    return sb__type_cl_name(t);
}

/* Whether the kernels may fold whole integer items as vectors, in any
 * order where that cannot change their node (cl/reduce.cl,
 * SB_WIDE_FOLDS_OK). Not under Oclgrind's uninitialised-value checker
 * (sb_context.simulator_checker): 21.10's crashes (a segfault in
 * Uninitialized::instructionExecuted) on a loop of 16-lane integer adds.
 * Oclgrind without it runs them, and its device suites check their bits.
 * Float leaves in lanes are lane_leaves()'s decision. */
static int wide_folds_ok(const sb_context *ctx)
{
    return !ctx->simulator_checker;
}

/* Whether an item's full leaves may fold four or eight at a time (chains
 * side by side, cl/reduce.cl) or in vector lanes (which sb_columns uses
 * too): not on Mesa's llvmpipe, whose JIT
 * (rusticl, Mesa 22.3, LLVM 15) spent 30 s compiling the guarded f32
 * sum's sb_leaves and 45 s the software f64 one with them, and 0.4 and
 * 0.7 s without (2-vCPU Zen 3 VM, empty shader cache): the first call of
 * every program. Its one-leaf fold computes the same steps. */
static int chain_folds_ok(const sb_device_caps *c)
{
    return !sb__contains_nocase(c->name, "llvmpipe");
}

/* Whether the plan's program folds leaves in vector lanes (cl/reduce.cl,
 * SB_LANE_LEAVES: decided here alone and passed as a build option, so
 * that the kernels and the launches, sb__column_lanes() and
 * sb__row_lanes(), cannot disagree): 16 leaves side by side for a
 * binary32 accumulator, 8 for binary64, or 0. Where:
 *   - the accumulator is a native float (a half one is held in binary32);
 *   - the input is of its kind, a half (converted as it loads), an
 *     integer (converted as it loads: a plan lets one only into a float
 *     that holds it exactly), or f32 into f64;
 *   - a float's conversion runs on a native f32 too: a guarded f32 is
 *     stored as bits, and a flushing one would lose bf16 subnormals (an
 *     integer's conversion is exact in every mode);
 *   - the operation is a sum, min or max (argmin and argmax have the
 *     lanes compiled, as before, but never fold in them: their leaves
 *     keep positions, cl/reduce.cl's `whole`, and sb_columns and
 *     sb_rows leave them out);
 *   - the device takes unrolled folds (chain_folds_ok(): not llvmpipe);
 *   - under Oclgrind's uninitialised-value checker, only the lanes
 *     that sb_columns uses too: it misreads the NaN-skipping and dot
 *     lane folds' shuffles alike, and a GPU runs the columns kernel
 *     (without the checker, Oclgrind runs every lane fold, 2026-12-06:
 *     its device suites check their bits against the oracle). */
static unsigned lane_leaves(const sb_context *ctx, const sb__plan *plan)
{
    const sb_device_caps *c = &ctx->caps;
    const sb_type store = sb__type_is_half(plan->acc) ? SB_F32 : plan->acc;
    const bool native = (store == SB_F32 || store == SB_F64)
                        && c->type_mode[store] == SB_MODE_NATIVE;
    const bool same_kind = kind_of(plan->input) == kind_of(store);
    const bool integer = kind_of(plan->input) == KIND_INT;
    const bool loads_as = same_kind || integer
                          || sb__type_is_half(plan->input)
                          || (plan->input == SB_F32 && store == SB_F64);
    const bool converts_native = same_kind || integer
                                 || c->type_mode[SB_F32] == SB_MODE_NATIVE;
    const bool op = plan->op == SB_SUM || plan->op == SB_MIN
                    || plan->op == SB_MAX || plan->op == SB_ARGMIN
                    || plan->op == SB_ARGMAX;
    const bool columns_kind = !plan->arg && !plan->skip_nan && !plan->dot;
    if (!chain_folds_ok(c) || !native || !loads_as || !converts_native
        || !op || (!wide_folds_ok(ctx) && !columns_kind))
        return 0;
    return store == SB_F64 ? 8 : 16;
}

unsigned sb__column_lanes(const sb_context *ctx, const sb__plan *plan)
{
    /* cl/reduce.cl's sb_columns folds in lanes without positions, NaN
     * skipping or a second array. */
    if (plan->arg || plan->skip_nan || plan->dot)
        return 0;
    return lane_leaves(ctx, plan);
}

/* cl/reduce.cl's SB_ROWS_IN_LANES. */
static int rows_in_lanes_ok(const sb_device_caps *c)
{
    return !c->is_gpu;
}

unsigned sb__row_lanes(const sb_context *ctx, const sb__plan *plan)
{
    /* cl/reduce.cl's SB_ROWS_LANES: the halves keep the column lanes of
     * their conversions; f32 takes a float8, f64 a double4. */
    const unsigned lanes = sb__column_lanes(ctx, plan);
    if (!rows_in_lanes_ok(&ctx->caps) || lanes == 0)
        return 0;
    if (sb__type_is_half(plan->input) || sb__type_is_half(plan->acc))
        return lanes;
    return lanes / 2;
}

/* Whether the device compiler takes prefetches (cl/reduce.cl,
 * SB_CAN_PREFETCH): POCL's CPU devices only. A GPU hides memory latency
 * with other work-groups, and only a clang-based CPU compiler is known to
 * take __builtin_prefetch in OpenCL C. */
static bool can_prefetch(const sb_device_caps *c)
{
    return !c->is_gpu && sb__contains_nocase(c->version, "pocl");
}

cl_uint sb__device_prefetch_bytes(const sb_context *ctx)
{
    return can_prefetch(&ctx->caps) ? (cl_uint)sb__host_prefetch_bytes() : 0;
}

/* How many runs of lane leaves a half accumulator's sum folds side by
 * side (cl/reduce.cl, SB_HALF_SETS_LOG2): each of its steps is an add
 * and a rounding, one long dependent chain per run, so on a CPU (items
 * of 128 leaves) eight runs, 128 leaves, step in turn (POCL f16 sums
 * into f16: 2.35x, bf16: 1.6x; with their trees on whole vectors 3.0x
 * and 1.85x; README). A GPU's items of four leaves
 * never fold in lanes, and it would hold their rows in registers: none
 * there. */
static int half_sets_log2(const sb_device_caps *c, const sb__plan *plan)
{
    return !c->is_gpu && plan->op == SB_SUM && !plan->arg
           && sb__type_is_half(plan->acc) ? 3 : 0;
}

/* Whether the lane folds read f16 elements with vload_half16 (cl/reduce.cl,
 * SB_HALF_LOADS): on POCL's CPU devices (CL_DEVICE_TYPE_CPU: the host's
 * own cores, whose F16C this process sees) on an x86 CPU with F16C,
 * where it is one vcvtph2ps per 16 elements, exact for every f16
 * pattern (checked on all 65536, with DAZ and FTZ set too). The lane
 * folds run in a native f32 mode only, never in a flushing context.
 * Elsewhere the kernels convert the bits themselves, as the issue that
 * added half types asked: a device's own conversion (a GPU's,
 * Oclgrind's, an older POCL's software one) is not known to keep
 * subnormals, and the integer form needs no cl_khr_fp16. */
static int half_loads_ok(const sb_context *ctx)
{
    return (ctx->device_type & CL_DEVICE_TYPE_CPU) != 0
           && sb__contains_nocase(ctx->caps.version, "pocl")
           && sb__cpu_has_f16c();
}

/* How the kernels take a signed integer's abs (cl/ops.cl, sb_term_abs):
 * on Oclgrind as a select of a negation, built with -cl-opt-disable,
 * because its 21.10 interpreter has no llvm.abs, which LLVM's optimiser
 * makes of every spelling of abs; elsewhere as (a ^ s) - s, since Mesa
 * 22.3 (rusticl) returned a negative i64 made from an i32 unchanged from
 * the select. */
static int abs_by_select(const sb_device_caps *c)
{
    return sb__is_simulator_name(c->name);
}

/* Whether a checked integer map or dot product's every term is exact in
 * the accumulator, whatever the elements (cl/reduce.cl, SB_TERMS_FIT):
 * |x| and x² of i32 into i64, a dot product of u16 into u32 or u64, ...
 * Their order-free items then need only the sum's window on the terms, as
 * a plain sum's on its elements. With an input of n value bits (n - 1 if
 * signed, whose magnitude reaches 2^(n-1)) and an accumulator of a value
 * bits: |x| fits when a signed input's n - 1 < a (an unsigned one's n <=
 * a), x² and x*y when 2(n - 1) < a (2n <= a); a signed dot product into
 * an unsigned accumulator never (its products may be negative). */
static int terms_fit(const sb__plan *plan)
{
    if (kind_of(plan->input) != KIND_INT || kind_of(plan->acc) != KIND_INT ||
        (plan->map == SB_MAP_NONE && !plan->dot))
        return 0;
    const bool in_signed = sb__type_is_signed(plan->input);
    const bool acc_signed = sb__type_is_signed(plan->acc);
    const int n = (int)sb_type_size(plan->input) * 8;
    const int a = (int)sb_type_size(plan->acc) * 8 - (acc_signed ? 1 : 0);
    if (plan->dot && in_signed && !acc_signed)
        return 0;
    if (plan->map == SB_MAP_ABS)
        return in_signed ? n - 1 < a : n <= a;
    return in_signed ? 2 * (n - 1) < a : 2 * n <= a;
}

/* Build options: the types, the modes, the operation, the shared
 * constants, the sub-group back-end, and nothing that would relax IEEE
 * arithmetic: never -cl-fast-relaxed-math, -cl-mad-enable,
 * -cl-unsafe-math-optimizations or -cl-finite-math-only; and
 * -cl-denorms-are-zero only for the test device that must really flush
 * (SB_OPT_FLUSH_SUBNORMALS), whose context is guarded accordingly, and
 * there only in programs where a float takes part (below).
 * -w (OpenCL's own option): the kernels test build constants in ordinary
 * conditions, which clang warns of (-Wconstant-logical-operand), and
 * POCL, Oclgrind and rusticl print a build's warnings on the caller's
 * stderr; a library must not write there. */
static void build_options(const sb_context *ctx, const sb__plan *plan,
                          char *buf, size_t size)
{
    const sb_device_caps *c = &ctx->caps;
    const int backend = c->subgroup_backend;
    const char *std = "";
    if (backend == SB_SUBGROUP_BACKEND_KHR || backend == SB_SUBGROUP_BACKEND_INTEL)
        std = strstr(c->version, "OpenCL 3") ? "-cl-std=CL3.0 " : "-cl-std=CL2.0 ";
    const int boolean = plan->op == SB_ANY || plan->op == SB_ALL;
    /* A count is the wrapping u64 sum of a 1 per taking-part element:
     * the accumulator is ulong whatever the input, with no map. */
    const int count = plan->op == SB_COUNT;
    const int f64_hw = c->type_mode[SB_F64] != SB_MODE_SOFTWARE
                    && (plan->input == SB_F64 || plan->acc == SB_F64);
    const int int_abs = plan->map == SB_MAP_ABS && kind_of(plan->acc) == KIND_INT
                        && sb__type_is_signed(plan->acc);
    const char *opt = int_abs && abs_by_select(c) ? "-cl-opt-disable " : "";
    const int acc_half = !boolean && !count && sb__type_is_half(plan->acc);
    const sb_type acc_store = count ? SB_U64 : acc_half ? SB_F32 : plan->acc;
    /* The kernels' operation: argmin / argmax are min / max with
     * positions (SB_ARG), a count a sum. */
    const sb_op op = count ? SB_SUM : plan->op == SB_ARGMIN ? SB_MIN
                   : plan->op == SB_ARGMAX ? SB_MAX : plan->op;
    /* The float modes and the flushing test device's option only where a
     * float takes part (the input, or an accumulator): a program of
     * integers alone is the same code whatever they are (cl/types.cl:
     * SB_IN_MODE and SB_ACC_MODE are native for integers), so its
     * options are those of the same program on a context in the default
     * modes, and POCL's kernel cache builds it once for every mode
     * (test_device_reduce on the flushing POCL: 154 of its 210 programs;
     * 266 -> 88 s after the default run filled the cache; 2-vCPU Zen 5). */
    const int has_float = kind_of(plan->input) != KIND_INT
        || (!boolean && !count && kind_of(acc_store) != KIND_INT);
    const int denorms_are_zero = has_float
                              && (ctx->opts.flags & SB_OPT_FLUSH_SUBNORMALS);
    const unsigned f32_mode = has_float ? c->type_mode[SB_F32]
                                        : SB_MODE_NATIVE;
    const unsigned f64_mode = has_float ? c->type_mode[SB_F64]
                                        : SB_MODE_NATIVE;
    snprintf(buf, size,
             "-w %s%s%s-DSB_IN_T=%s -DSB_ACC_T=%s -DSB_IN_KIND=%d -DSB_ACC_KIND=%d "
             "-DSB_ACC_SIGNED=%d -DSB_ACC_BITS=%d -DSB_KIND_INT=%d "
             "-DSB_KIND_F32=%d -DSB_KIND_F64=%d -DSB_F32_MODE=%u "
             "-DSB_F64_MODE=%u -DSB_MODE_NATIVE=%u -DSB_MODE_GUARDED=%u "
             "-DSB_MODE_SOFTWARE=%u -DSB_OP=%d -DSB_OP_SUM=%d -DSB_OP_PROD=%d "
             "-DSB_OP_MIN=%d -DSB_OP_MAX=%d -DSB_OP_ANY=%d -DSB_OP_ALL=%d "
             "-DSB_WRAP=%d -DSB_NEED_FP64=%d -DSB_SG_BACKEND=%d "
             "-DSB_LEAF_SIZE=%d -DSB_MAX_LPI_LOG2=%d -DSB_STATUS_OK=%d "
             "-DSB_STATUS_EMPTY=%d -DSB_STATUS_OVERFLOW=%d "
             "-DSB_RESULT_STATUS_OFFSET=%d -DSB_WIDE_FOLDS_OK=%d "
             "-DSB_MAP=%d -DSB_MAP_NONE=%d -DSB_MAP_ABS=%d -DSB_MAP_SQUARE=%d "
             "-DSB_SKIP_NAN=%d -DSB_DOT=%d -DSB_ABS_BY_SELECT=%d "
             "-DSB_KIND_F16=%d -DSB_KIND_BF16=%d -DSB_ACC_HALF=%d "
             "-DSB_CAN_PREFETCH=%d -DSB_COUNT=%d -DSB_ARG=%d "
             "-DSB_RESULT_INDEX_OFFSET=%d -DSB_ROWS_MAX_LPI_LOG2=%d "
             "-DSB_CHAIN_FOLDS=%d -DSB_ROWS_IN_LANES=%d -DSB_HALF_LOADS=%d "
             "-DSB_LANE_LEAVES=%d -DSB_HALF_SETS_LOG2=%d -DSB_TERMS_FIT=%d",
             opt, std, denorms_are_zero ? "-cl-denorms-are-zero " : "",
             storage_name(c, plan->input),
             boolean ? "uint" : storage_name(c, acc_store),
             kind_of(plan->input), boolean ? KIND_INT : kind_of(acc_store),
             boolean ? 0 : sb__type_is_signed(acc_store),
             boolean ? 32 : (int)sb_type_size(acc_store) * 8,
             KIND_INT, KIND_F32, KIND_F64, f32_mode, f64_mode,
             SB_MODE_NATIVE, SB_MODE_GUARDED,
             SB_MODE_SOFTWARE, (int)op, SB_SUM,
             SB_PROD, SB_MIN, SB_MAX, SB_ANY, SB_ALL, count || plan->wrap,
             f64_hw, backend, SB_LEAF_SIZE, SB_MAX_PER_ITEM_LOG2, SB_OK,
             SB_EMPTY, SB_OVERFLOW,
             plan->arg ? (int)offsetof(sb_device_arg_result, status)
                       : (int)offsetof(sb_device_result, status),
             wide_folds_ok(ctx),
             (int)plan->map, SB_MAP_NONE, SB_MAP_ABS, SB_MAP_SQUARE,
             plan->skip_nan, plan->dot, abs_by_select(c), KIND_F16,
             KIND_BF16, acc_half ? kind_of(plan->acc) : 0, (int)can_prefetch(c),
             count, (int)plan->arg, (int)offsetof(sb_device_arg_result, index),
             SB_ROWS_MAX_LEAVES_LOG2, chain_folds_ok(c), rows_in_lanes_ok(c),
             half_loads_ok(ctx), lane_leaves(ctx, plan) > 0,
             half_sets_log2(c, plan), terms_fit(plan));
}

/* ---- programs shared between contexts ---------------------------------------
 *
 * A program depends on the cl_context, the device and its build options
 * only, so sb_contexts made on one cl_context (the shapes of `samebits
 * check`, a program's contexts with other launch options) share it
 * instead of building it again: on a device without a kernel cache that
 * is most of a first call. The registry counts the sb_contexts that hold
 * each program and releases it with the last one, so it keeps nothing
 * alive that no context uses (and frees itself when empty). */

typedef struct {
    cl_context   cl_ctx;
    cl_device_id device;
    char        *options;
    cl_program   program;
    unsigned     holders;
} shared_program;

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static shared_program *shared;
static size_t shared_count, shared_cap;

/* A program another context built for the same key, now held once more;
 * NULL if there is none. */
static cl_program shared_take(cl_context c, cl_device_id d, const char *options)
{
    cl_program p = NULL;
    pthread_mutex_lock(&shared_lock);
    for (size_t i = 0; i < shared_count && p == NULL; i++)
        if (shared[i].cl_ctx == c && shared[i].device == d
            && strcmp(shared[i].options, options) == 0) {
            shared[i].holders++;
            p = shared[i].program;
        }
    pthread_mutex_unlock(&shared_lock);
    return p;
}

/* Offers a program this context built: *p becomes the program to use,
 * which is another context's if one was built meanwhile (the new one is
 * then released). @return SB_OK, or SB_OUT_OF_MEMORY (the program is
 * released): like every allocation of the library, the registry's may
 * fail, and then the call fails, whole. */
static sb_status shared_offer(cl_context c, cl_device_id d,
                              const char *options, cl_program *p)
{
    pthread_mutex_lock(&shared_lock);
    for (size_t i = 0; i < shared_count; i++)
        if (shared[i].cl_ctx == c && shared[i].device == d
            && strcmp(shared[i].options, options) == 0) {
            shared[i].holders++;
            const cl_program existing = shared[i].program;
            pthread_mutex_unlock(&shared_lock);
            SB_CL(clReleaseProgram)(*p);
            *p = existing;
            return SB_OK;
        }
    char *copy = NULL;
    if (shared_count == shared_cap) {
        const size_t cap = shared_cap ? 2 * shared_cap : 16;
        shared_program *grown = sb__mem.realloc(shared, cap * sizeof *grown);
        if (grown != NULL) {
            shared = grown;
            shared_cap = cap;
        }
    }
    if (shared_count < shared_cap)
        copy = sb__mem.malloc(strlen(options) + 1);
    if (copy == NULL) {
        pthread_mutex_unlock(&shared_lock);
        SB_CL(clReleaseProgram)(*p);
        return sb__fail(SB_OUT_OF_MEMORY, "cannot allocate the program "
                        "registry's entry");
    }
    strcpy(copy, options);
    shared[shared_count++] = (shared_program){ c, d, copy, *p, 1 };
    pthread_mutex_unlock(&shared_lock);
    return SB_OK;
}

void sb__program_release(cl_program p)
{
    pthread_mutex_lock(&shared_lock);
    for (size_t i = 0; i < shared_count; i++)
        if (shared[i].program == p) {
            if (--shared[i].holders > 0) {
                pthread_mutex_unlock(&shared_lock);
                return;                     /* another context still uses it */
            }
            free(shared[i].options);
            shared[i] = shared[--shared_count];
            break;
        }
    if (shared_count == 0) {                /* nothing left: no memory kept */
        free(shared);
        shared = NULL;
        shared_cap = 0;
    }
    pthread_mutex_unlock(&shared_lock);
    SB_CL(clReleaseProgram)(p);
}

static sb_status program_get(sb_context *ctx, const sb__plan *plan,
                             cl_program *out)
{
    cl_program *slot = &ctx->programs[plan->input][plan->acc]
                                     [sb__kernel_family_of(plan)]
                                     [sb__kernel_variant_of(plan)];
    if (*slot != NULL) {
        *out = *slot;
        return SB_OK;
    }
    char options[1400];
    build_options(ctx, plan, options, sizeof options);
    cl_program prog = shared_take(ctx->cl_ctx, ctx->device, options);
    if (prog != NULL) {
        *slot = prog;
        *out = prog;
        return SB_OK;
    }
    cl_int err = CL_SUCCESS;
    const char *src = sb__cl_source;
    const size_t len = sb__cl_source_size;
    prog = SB_CL(clCreateProgramWithSource)(ctx->cl_ctx, 1, &src, &len, &err);
    SB_RETURN_IF(prog == NULL,
                 sb__cl_fail(ctx, err, "clCreateProgramWithSource"));
    err = SB_CL(clBuildProgram)(prog, 1, &ctx->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        size_t log_size = 0;
        free(ctx->build_log);
        ctx->build_log = NULL;
        if (SB_CL(clGetProgramBuildInfo)(prog, ctx->device, CL_PROGRAM_BUILD_LOG,
                                         0, NULL, &log_size) == CL_SUCCESS
            && (ctx->build_log = sb__mem.malloc(log_size + 1)) != NULL) {
            if (SB_CL(clGetProgramBuildInfo)(prog, ctx->device,
                    CL_PROGRAM_BUILD_LOG, log_size, ctx->build_log, NULL)
                != CL_SUCCESS)
                log_size = 0;
            ctx->build_log[log_size] = '\0';
        }
        atomic_store(&ctx->last_cl_error, err);
        SB_CL(clReleaseProgram)(prog);
        if (err == CL_OUT_OF_HOST_MEMORY)
            return sb__cl_fail(ctx, err, "clBuildProgram");
        return sb__fail(SB_BUILD_ERROR, "the kernels for %s -> %s failed to "
                        "build on %s (%s; sb_context_build_log() has the log)",
                        sb_type_name(plan->input), sb_type_name(plan->acc),
                        ctx->caps.name, sb_cl_error_name(err));
    }
    const sb_status offered = shared_offer(ctx->cl_ctx, ctx->device, options,
                                           &prog);
    SB_RETURN_IF(offered != SB_OK, offered);
    *slot = prog;
    *out = prog;
    return SB_OK;
}

sb_status sb__kernel_get(sb_context *ctx, const sb__plan *plan,
                         sb__kernel_pass pass, cl_kernel *out)
{
    const sb__kernel_family family = sb__kernel_family_of(plan);
    cl_kernel *slot = &ctx->kernels[plan->input][plan->acc][family]
                                   [sb__kernel_variant_of(plan)][pass];
    if (*slot == NULL) {
        cl_program prog;
        const sb_status s = program_get(ctx, plan, &prog);
        SB_RETURN_IF(s != SB_OK, s);
        cl_int err = CL_SUCCESS;
        *slot = SB_CL(clCreateKernel)(prog, pass_names[pass], &err);
        SB_RETURN_IF(*slot == NULL, sb__cl_fail(ctx, err, "clCreateKernel"));
    }
    *out = *slot;
    return SB_OK;
}
