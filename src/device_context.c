/* device_context.c: sb_context: creation, the default device, programs
 * (built once per (input, accumulator) pair, on first use), kernels,
 * scratch buffers and the errors kept for the caller.
 *
 * One mutex guards the context's caches. It is held while a reduction sets
 * kernel arguments and enqueues (OpenCL kernels are not safe to set from
 * two threads), never while waiting for a device. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CL/cl_ext.h>   /* CL_PLATFORM_NOT_FOUND_KHR */
#include "device.h"

extern const char sb__cl_source[];
extern const size_t sb__cl_source_size;

sb_status sb__cl_fail(sb_context *ctx, cl_int err)
{
    if (ctx != NULL)
        atomic_store(&ctx->last_cl_error, err);
    switch (err) {
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        return SB_OUT_OF_MEMORY;
    default:
        return SB_OPENCL_ERROR;
    }
}

/* ---- options ------------------------------------------------------------ */

static int is_pow2(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

static sb_status resolve_options(const sb_options *in, const sb_device_caps *caps,
                                 sb_options *out)
{
    sb_options o;
    memset(&o, 0, sizeof o);
    if (in != NULL)
        o = *in;
    SB_RETURN_IF(o.flags & ~(SB_OPT_NO_HOST | SB_OPT_ALLOW_INEXACT),
                 SB_INVALID_ARGUMENT);
    if (o.host_max_n == 0)
        o.host_max_n = SB_DEFAULT_HOST_MAX_N;
    if (o.work_group_size == 0)
        o.work_group_size = caps->work_group_size;
    if (o.leaves_per_item == 0)
        o.leaves_per_item = caps->leaves_per_item;
    if (o.tree_work_group_size == 0)
        o.tree_work_group_size = caps->work_group_size < SB_DEFAULT_TREE_WG
                               ? caps->work_group_size : SB_DEFAULT_TREE_WG;
    if (o.nodes_per_item == 0)
        o.nodes_per_item = SB_DEFAULT_NODES_PER_ITEM;
    SB_RETURN_IF(!is_pow2(o.work_group_size)
                 || o.work_group_size > caps->max_work_group_size,
                 SB_INVALID_ARGUMENT);
    SB_RETURN_IF(!is_pow2(o.tree_work_group_size)
                 || o.tree_work_group_size > caps->max_work_group_size,
                 SB_INVALID_ARGUMENT);
    SB_RETURN_IF(!is_pow2(o.leaves_per_item) || o.leaves_per_item > SB_MAX_PER_ITEM,
                 SB_INVALID_ARGUMENT);
    SB_RETURN_IF(!is_pow2(o.nodes_per_item) || o.nodes_per_item > SB_MAX_PER_ITEM,
                 SB_INVALID_ARGUMENT);
    /* A pass over partials must shrink them: a fan-in of one would loop
     * forever. The option is about speed only, so raise it. */
    if (o.tree_work_group_size * o.nodes_per_item < 2)
        o.nodes_per_item = 2;
    SB_RETURN_IF(o.subgroups > SB_SUBGROUPS_EMULATE, SB_INVALID_ARGUMENT);
    if (o.subgroups == SB_SUBGROUPS_EMULATE) {
        const size_t sg = o.emulated_subgroup_size;
        SB_RETURN_IF(!is_pow2(sg) || sg < 2 || sg > 64, SB_INVALID_ARGUMENT);
        SB_RETURN_IF(sg > o.work_group_size || sg > o.tree_work_group_size,
                     SB_INVALID_ARGUMENT);
    }
    /* Local memory holds one node (value and flags) per work-item. */
    const size_t node = sizeof(double) + sizeof(cl_uint);
    SB_RETURN_IF(o.work_group_size * node > caps->local_mem_size
                 || o.tree_work_group_size * node > caps->local_mem_size,
                 SB_INVALID_ARGUMENT);
    *out = o;
    return SB_OK;
}

/* ---- creation ----------------------------------------------------------- */

sb_status sb_context_create(cl_context cl_ctx, cl_device_id device,
                            const sb_options *opts, sb_context **out)
{
    SB_RETURN_IF(cl_ctx == NULL || device == NULL || out == NULL,
                 SB_INVALID_ARGUMENT);
    sb_context *ctx = sb__mem.calloc(1, sizeof *ctx);
    SB_RETURN_IF(ctx == NULL, SB_OUT_OF_MEMORY);
    cl_int err = CL_SUCCESS;
    sb_status s = sb__device_query(device, &ctx->caps, ctx->extensions,
                                   sizeof ctx->extensions, &err);
    if (s == SB_OK)
        s = resolve_options(opts, &ctx->caps, &ctx->opts);
    if (s == SB_OK) {
        ctx->own_queue = SB_CL(clCreateCommandQueue)(cl_ctx, device, 0, &err);
        if (ctx->own_queue == NULL)
            s = sb__cl_fail(NULL, err);
    }
    if (s == SB_OK && pthread_mutex_init(&ctx->lock, NULL) != 0) {
        SB_CL(clReleaseCommandQueue)(ctx->own_queue);
        s = SB_OUT_OF_MEMORY;
    }
    if (s == SB_OK && (err = SB_CL(clRetainContext)(cl_ctx)) != CL_SUCCESS) {
        /* Without our reference, sb_context_release() would release the
         * caller's. */
        pthread_mutex_destroy(&ctx->lock);
        SB_CL(clReleaseCommandQueue)(ctx->own_queue);
        s = sb__cl_fail(NULL, err);
    }
    if (s != SB_OK) {
        free(ctx);
        return s;
    }
    ctx->cl_ctx = cl_ctx;
    ctx->device = device;
    *out = ctx;
    return SB_OK;
}

void sb_context_release(sb_context *ctx)
{
    if (ctx == NULL)
        return;
    for (int i = 0; i < SB_SCRATCH_SLOTS; i++) {
        if (ctx->scratch[i].last_use)
            SB_CL(clReleaseEvent)(ctx->scratch[i].last_use);
        if (ctx->scratch[i].buf)
            SB_CL(clReleaseMemObject)(ctx->scratch[i].buf);
    }
    for (int a = 0; a <= SB_TYPE_COUNT; a++)
        for (int b = 0; b <= SB_TYPE_COUNT; b++) {
            for (int k = 0; k < 16; k++)
                if (ctx->kernels[a][b][k])
                    SB_CL(clReleaseKernel)(ctx->kernels[a][b][k]);
            if (ctx->programs[a][b])
                SB_CL(clReleaseProgram)(ctx->programs[a][b]);
        }
    SB_CL(clReleaseCommandQueue)(ctx->own_queue);
    SB_CL(clReleaseContext)(ctx->cl_ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx->build_log);
    free(ctx);
}

cl_device_id sb_context_device(const sb_context *ctx)
{
    return ctx ? ctx->device : NULL;
}

cl_context sb_context_cl_context(const sb_context *ctx)
{
    return ctx ? ctx->cl_ctx : NULL;
}

cl_int sb_context_last_cl_error(const sb_context *ctx)
{
    return ctx ? (cl_int)atomic_load(&((sb_context *)ctx)->last_cl_error)
               : CL_SUCCESS;
}

const char *sb_context_build_log(sb_context *ctx)
{
    if (ctx == NULL)
        return "";
    pthread_mutex_lock(&ctx->lock);
    const char *log = ctx->build_log ? ctx->build_log : "";
    pthread_mutex_unlock(&ctx->lock);
    return log;
}

/* ---- the default device ------------------------------------------------- */

static int contains_nocase(const char *hay, const char *needle)
{
    const size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i]
               && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

/* Does SAMEBITS_DEVICE select device d (index di) of platform pi? */
static int device_matches(const char *sel, cl_uint pi, cl_uint di,
                          cl_platform_id p, cl_device_id d)
{
    unsigned sp = 0, sd = 0;
    char tail = 0;
    if (sscanf(sel, "%u:%u%c", &sp, &sd, &tail) == 2)
        return sp == pi && sd == di;
    if (sscanf(sel, "%u%c", &sp, &tail) == 1)
        return sp == pi;
    /* Names as users know them: "pocl" is in POCL's platform version, not
     * in its name ("Portable Computing Language"). */
    char text[4][256] = { "", "", "", "" };
    SB_CL(clGetPlatformInfo)(p, CL_PLATFORM_NAME, 255, text[0], NULL);
    SB_CL(clGetPlatformInfo)(p, CL_PLATFORM_VENDOR, 255, text[1], NULL);
    SB_CL(clGetPlatformInfo)(p, CL_PLATFORM_VERSION, 255, text[2], NULL);
    SB_CL(clGetDeviceInfo)(d, CL_DEVICE_NAME, 255, text[3], NULL);
    for (int i = 0; i < 4; i++)
        if (contains_nocase(text[i], sel))
            return 1;
    return 0;
}

sb_status sb_context_create_default(const sb_options *opts, sb_context **out)
{
    SB_RETURN_IF(out == NULL, SB_INVALID_ARGUMENT);
    cl_platform_id platforms[16];
    cl_uint np = 0;
    cl_int err = SB_CL(clGetPlatformIDs)(16, platforms, &np);
    if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && np == 0))
        return SB_UNSUPPORTED;
    SB_RETURN_IF(err != CL_SUCCESS, sb__cl_fail(NULL, err));
    if (np > 16)
        np = 16;

    const char *sel = getenv("SAMEBITS_DEVICE");
    if (sel != NULL && *sel == '\0')
        sel = NULL;
    /* Preference: rank 0 = selected or GPU, 1 = CPU, 2 = anything else. */
    cl_platform_id best_p = NULL;
    cl_device_id best_d = NULL;
    int best_rank = 3;
    for (cl_uint pi = 0; pi < np; pi++) {
        cl_device_id devices[16];
        cl_uint nd = 0;
        if (SB_CL(clGetDeviceIDs)(platforms[pi], CL_DEVICE_TYPE_ALL, 16,
                                  devices, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint di = 0; di < nd && di < 16; di++) {
            cl_device_type type = 0;
            SB_CL(clGetDeviceInfo)(devices[di], CL_DEVICE_TYPE, sizeof type,
                                   &type, NULL);
            char name[256] = "";
            SB_CL(clGetDeviceInfo)(devices[di], CL_DEVICE_NAME, 255, name, NULL);
            /* Oclgrind, a simulator, claims every device type; it is for
             * tests, never the default. */
            const int simulator = contains_nocase(name, "oclgrind");
            int rank;
            if (sel != NULL)
                rank = device_matches(sel, pi, di, platforms[pi], devices[di]) ? 0 : 3;
            else
                rank = simulator ? 2
                     : (type & CL_DEVICE_TYPE_GPU) ? 0
                     : (type & CL_DEVICE_TYPE_CPU) ? 1 : 2;
            if (rank < best_rank) {
                best_rank = rank;
                best_p = platforms[pi];
                best_d = devices[di];
            }
        }
    }
    SB_RETURN_IF(best_d == NULL, SB_UNSUPPORTED);

    const cl_context_properties props[] = {
        CL_CONTEXT_PLATFORM, (cl_context_properties)best_p, 0
    };
    cl_context cl_ctx = SB_CL(clCreateContext)(props, 1, &best_d, NULL, NULL, &err);
    SB_RETURN_IF(cl_ctx == NULL, sb__cl_fail(NULL, err));
    const sb_status s = sb_context_create(cl_ctx, best_d, opts, out);
    SB_CL(clReleaseContext)(cl_ctx);   /* the sb_context holds its own reference */
    return s;
}

/* ---- programs and kernels ----------------------------------------------- */

static const char *cl_type_name(sb_type t)
{
    static const char *const names[] = {
        [SB_I8] = "char", [SB_U8] = "uchar", [SB_I16] = "short",
        [SB_U16] = "ushort", [SB_I32] = "int", [SB_U32] = "uint",
        [SB_I64] = "long", [SB_U64] = "ulong", [SB_F32] = "float",
        [SB_F64] = "double",
    };
    return names[t];
}

/* Build options: the types, the sub-group back-end, and nothing that would
 * relax IEEE arithmetic: never -cl-fast-relaxed-math, -cl-mad-enable,
 * -cl-unsafe-math-optimizations, -cl-finite-math-only or
 * -cl-denorms-are-zero (ORDER.md). */
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
             "-DSB_SG_BACKEND=%d",
             std, cl_type_name(plan->input), cl_type_name(plan->acc),
             sb__type_is_float(plan->input), sb__type_is_float(plan->acc),
             sb__type_is_signed(plan->acc), (int)sb_type_size(plan->acc) * 8,
             plan->input == SB_F64 || plan->acc == SB_F64, backend);
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
    SB_RETURN_IF(prog == NULL, sb__cl_fail(ctx, err));
    char options[512];
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
        return err == CL_OUT_OF_HOST_MEMORY ? SB_OUT_OF_MEMORY : SB_BUILD_ERROR;
    }
    *slot = prog;
    *out = prog;
    return SB_OK;
}

static int kernel_index(const char *name)
{
    static const char *const names[] = {
        "sb_sum_leaves", "sb_sum_nodes", "sb_prod_leaves", "sb_prod_nodes",
        "sb_sumwrap_leaves", "sb_sumwrap_nodes", "sb_prodwrap_leaves",
        "sb_prodwrap_nodes", "sb_min_leaves", "sb_min_nodes",
        "sb_max_leaves", "sb_max_nodes", "sb_any_leaves", "sb_any_nodes",
        "sb_all_leaves", "sb_all_nodes",
    };
    for (int i = 0; i < 16; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

sb_status sb__kernel_get(sb_context *ctx, const sb__plan *plan,
                         const char *name, cl_kernel *out)
{
    const int k = kernel_index(name);
    SB_RETURN_IF(k < 0, SB_INVALID_ARGUMENT);
    cl_kernel *slot = &ctx->kernels[plan->input][plan->acc][k];
    if (*slot == NULL) {
        cl_program prog;
        const sb_status s = program_get(ctx, plan, &prog);
        SB_RETURN_IF(s != SB_OK, s);
        cl_int err = CL_SUCCESS;
        *slot = SB_CL(clCreateKernel)(prog, name, &err);
        SB_RETURN_IF(*slot == NULL, sb__cl_fail(ctx, err));
    }
    *out = *slot;
    return SB_OK;
}

/* ---- scratch buffers ---------------------------------------------------- */

static int scratch_free(sb__scratch *s)
{
    if (s->busy)
        return 0;
    if (s->last_use == NULL)
        return 1;
    cl_int status = CL_QUEUED;
    if (SB_CL(clGetEventInfo)(s->last_use, CL_EVENT_COMMAND_EXECUTION_STATUS,
                              sizeof status, &status, NULL) != CL_SUCCESS)
        return 0;
    if (status != CL_COMPLETE && status >= 0)
        return 0;
    SB_CL(clReleaseEvent)(s->last_use);
    s->last_use = NULL;
    return 1;
}

sb_status sb__scratch_take(sb_context *ctx, size_t size, int *slot)
{
    int empty = -1;
    for (int i = 0; i < SB_SCRATCH_SLOTS; i++) {
        sb__scratch *s = &ctx->scratch[i];
        if (s->buf == NULL) {
            if (empty < 0)
                empty = i;
            continue;
        }
        if (s->size >= size && scratch_free(s)) {
            s->busy = 1;
            *slot = i;
            return SB_OK;
        }
    }
    if (empty < 0) {   /* all slots hold buffers: replace a free, small one */
        for (int i = 0; i < SB_SCRATCH_SLOTS && empty < 0; i++)
            if (scratch_free(&ctx->scratch[i])) {
                SB_CL(clReleaseMemObject)(ctx->scratch[i].buf);
                ctx->scratch[i].buf = NULL;
                empty = i;
            }
        SB_RETURN_IF(empty < 0, SB_OUT_OF_MEMORY);
    }
    const size_t bytes = size < 4096 ? 4096 : size;
    cl_int err = CL_SUCCESS;
    cl_mem buf = SB_CL(clCreateBuffer)(ctx->cl_ctx, CL_MEM_READ_WRITE, bytes,
                                       NULL, &err);
    SB_RETURN_IF(buf == NULL, sb__cl_fail(ctx, err));
    ctx->scratch[empty] = (sb__scratch){ .buf = buf, .size = bytes, .busy = 1 };
    *slot = empty;
    return SB_OK;
}

void sb__scratch_give(sb_context *ctx, int slot, cl_event last_use)
{
    sb__scratch *s = &ctx->scratch[slot];
    /* Without a reference to its last use, the buffer cannot be known to be
     * idle: it then stays taken until the context is released. */
    if (last_use != NULL && SB_CL(clRetainEvent)(last_use) != CL_SUCCESS)
        return;
    s->last_use = last_use;
    s->busy = 0;
}
