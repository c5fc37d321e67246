/* device_programs.c: the kernels of a context, built on first use: one
 * program per (input, accumulator) pair holds every operation, and its
 * kernels are named from SB_KERNEL_FAMILY_LIST (device.h). Everything the
 * kernels must agree on with the host (types, the leaf size, the status
 * values, the result record's layout, the per-item limit) reaches them as
 * -D options made from the host's own definitions, so no number is kept
 * twice. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

extern const char sb__cl_source[];
extern const size_t sb__cl_source_size;

/* The kernels write the record at byte offsets the host reads as an
 * sb_device_result: its layout is part of the ABI. */
_Static_assert(sizeof(sb_device_result) == 16, "sb_device_result is 16 bytes");
_Static_assert(offsetof(sb_device_result, value) == 0,
               "sb_device_result.value is at byte 0");
_Static_assert(offsetof(sb_device_result, status) == 8,
               "sb_device_result.status is at byte 8");

sb__kernel_family sb__kernel_family_of(const sb__plan *p)
{
    switch (p->op) {
    case SB_SUM:  return p->wrap ? SB_FAMILY_SUMWRAP : SB_FAMILY_SUM;
    case SB_PROD: return p->wrap ? SB_FAMILY_PRODWRAP : SB_FAMILY_PROD;
    case SB_MIN:  return SB_FAMILY_MIN;
    case SB_MAX:  return SB_FAMILY_MAX;
    case SB_ANY:  return SB_FAMILY_ANY;
    case SB_ALL:  return SB_FAMILY_ALL;
    }
    return SB_FAMILY_SUM;
}

static const char *const family_names[SB_FAMILY_COUNT] = {
#define SB_FAMILY_NAME_(e, name) [SB_FAMILY_##e] = #name,
    SB_KERNEL_FAMILY_LIST(SB_FAMILY_NAME_)
#undef SB_FAMILY_NAME_
};

static const char *const pass_names[SB_PASS_COUNT] = {
    [SB_PASS_LEAVES] = "leaves", [SB_PASS_NODES] = "nodes",
};

/* Build options: the types, the shared constants, the sub-group back-end,
 * and nothing that would relax IEEE arithmetic: never
 * -cl-fast-relaxed-math, -cl-mad-enable, -cl-unsafe-math-optimizations,
 * -cl-finite-math-only or -cl-denorms-are-zero (docs/order.md). */
static void build_options(const sb_context *ctx, const sb__plan *plan,
                          char *buf, size_t size)
{
    const int backend = ctx->caps.subgroup_backend;
    const char *std = "";
    if (backend == SB_SUBGROUP_BACKEND_KHR || backend == SB_SUBGROUP_BACKEND_INTEL)
        std = strstr(ctx->caps.version, "OpenCL 3") ? "-cl-std=CL3.0 " : "-cl-std=CL2.0 ";
    snprintf(buf, size,
             "%s-DSB_IN_T=%s -DSB_ACC_T=%s -DSB_IN_FLOAT=%d -DSB_ACC_FLOAT=%d "
             "-DSB_ACC_SIGNED=%d -DSB_ACC_BITS=%d -DSB_NEED_FP64=%d "
             "-DSB_SG_BACKEND=%d -DSB_LEAF_SIZE=%d -DSB_MAX_LPI_LOG2=%d "
             "-DSB_STATUS_OK=%d -DSB_STATUS_EMPTY=%d -DSB_STATUS_OVERFLOW=%d "
             "-DSB_RESULT_STATUS_OFFSET=%d",
             std, sb__type_cl_name(plan->input), sb__type_cl_name(plan->acc),
             sb__type_is_float(plan->input), sb__type_is_float(plan->acc),
             sb__type_is_signed(plan->acc), (int)sb_type_size(plan->acc) * 8,
             plan->input == SB_F64 || plan->acc == SB_F64, backend,
             SB_LEAF_SIZE, SB_MAX_PER_ITEM_LOG2, SB_OK, SB_EMPTY, SB_OVERFLOW,
             (int)offsetof(sb_device_result, status));
}

static sb_status program_get(sb_context *ctx, const sb__plan *plan,
                             cl_program *out)
{
    cl_program *slot = &ctx->programs[plan->input][plan->acc];
    if (*slot != NULL) {
        *out = *slot;
        return SB_OK;
    }
    cl_int err = CL_SUCCESS;
    const char *src = sb__cl_source;
    const size_t len = sb__cl_source_size;
    cl_program prog = SB_CL(clCreateProgramWithSource)(ctx->cl_ctx, 1, &src,
                                                       &len, &err);
    SB_RETURN_IF(prog == NULL,
                 sb__cl_fail(ctx, err, "clCreateProgramWithSource"));
    char options[768];
    build_options(ctx, plan, options, sizeof options);
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
    *slot = prog;
    *out = prog;
    return SB_OK;
}

sb_status sb__kernel_get(sb_context *ctx, const sb__plan *plan,
                         sb__kernel_pass pass, cl_kernel *out)
{
    const sb__kernel_family family = sb__kernel_family_of(plan);
    cl_kernel *slot = &ctx->kernels[plan->input][plan->acc][family][pass];
    if (*slot == NULL) {
        cl_program prog;
        const sb_status s = program_get(ctx, plan, &prog);
        SB_RETURN_IF(s != SB_OK, s);
        char name[32];
        snprintf(name, sizeof name, "sb_%s_%s", family_names[family],
                 pass_names[pass]);
        cl_int err = CL_SUCCESS;
        *slot = SB_CL(clCreateKernel)(prog, name, &err);
        SB_RETURN_IF(*slot == NULL, sb__cl_fail(ctx, err, "clCreateKernel"));
    }
    *out = *slot;
    return SB_OK;
}
