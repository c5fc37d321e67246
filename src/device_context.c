/* device_context.c: sb_context: its options, creation and release, and
 * the handles and errors it keeps for the caller. Choosing a device is
 * device_select.c's job, building kernels device_programs.c's, scratch
 * buffers device_scratch.c's.
 *
 * One mutex guards the context's caches. It is held while a reduction sets
 * kernel arguments and enqueues (OpenCL kernels are not safe to set from
 * two threads), never while waiting for a device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "device.h"

sb_status sb__cl_fail(sb_context *ctx, cl_int err, const char *what)
{
    if (ctx != NULL)
        atomic_store(&ctx->last_cl_error, err);
    const sb_status s = err == CL_OUT_OF_HOST_MEMORY
                     || err == CL_MEM_OBJECT_ALLOCATION_FAILURE
                      ? SB_OUT_OF_MEMORY : SB_OPENCL_ERROR;
    return sb__fail(s, "%s failed: %s", what, sb_cl_error_name(err));
}

/* ---- options ------------------------------------------------------------ */

static int is_pow2(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

/* `value` is a power of two in [1, max]. */
static sb_status check_pow2(const char *name, size_t value, size_t max,
                            const char *max_what)
{
    SB_FAIL_IF(!is_pow2(value) || value > max, SB_INVALID_ARGUMENT,
               "opts->%s = %zu: it must be a power of two, at most %zu (%s)",
               name, value, max, max_what);
    return SB_OK;
}

static sb_status resolve_options(const sb_options *in, const sb_device_caps *caps,
                                 sb_options *out)
{
    sb_options o;
    memset(&o, 0, sizeof o);
    if (in != NULL)
        o = *in;
    SB_FAIL_IF(o.flags & ~(SB_OPT_NO_HOST | SB_OPT_ALLOW_INEXACT
                           | SB_OPT_FLUSH_SUBNORMALS),
               SB_INVALID_ARGUMENT, "opts->flags = 0x%x has bits that are "
               "not SB_OPT_* flags", o.flags);
    SB_FAIL_IF(o.float_mode != 0 && o.float_mode != SB_MODE_GUARDED
               && o.float_mode != SB_MODE_SOFTWARE, SB_INVALID_ARGUMENT,
               "opts->float_mode = %u: it must be 0, SB_MODE_GUARDED or "
               "SB_MODE_SOFTWARE", o.float_mode);
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
    sb_status s;
    if ((s = check_pow2("work_group_size", o.work_group_size,
                        caps->max_work_group_size,
                        "the device's largest work-group")) != SB_OK
        || (s = check_pow2("tree_work_group_size", o.tree_work_group_size,
                           caps->max_work_group_size,
                           "the device's largest work-group")) != SB_OK
        || (s = check_pow2("leaves_per_item", o.leaves_per_item,
                           SB_MAX_PER_ITEM, "the kernels' limit")) != SB_OK
        || (s = check_pow2("nodes_per_item", o.nodes_per_item,
                           SB_MAX_PER_ITEM, "the kernels' limit")) != SB_OK)
        return s;
    /* A pass over partials must shrink them: a fan-in of one would loop
     * forever. The option is about speed only, so raise it. */
    if (o.tree_work_group_size * o.nodes_per_item < 2)
        o.nodes_per_item = 2;
    SB_FAIL_IF(o.subgroups > SB_SUBGROUPS_EMULATE, SB_INVALID_ARGUMENT,
               "opts->subgroups = %u is not an SB_SUBGROUPS_* mode",
               o.subgroups);
    if (o.subgroups == SB_SUBGROUPS_EMULATE) {
        const size_t sg = o.emulated_subgroup_size;
        SB_FAIL_IF(!is_pow2(sg) || sg < 2 || sg > 64, SB_INVALID_ARGUMENT,
                   "opts->emulated_subgroup_size = %zu: it must be a power "
                   "of two from 2 to 64", sg);
        SB_FAIL_IF(sg > o.work_group_size || sg > o.tree_work_group_size,
                   SB_INVALID_ARGUMENT, "opts->emulated_subgroup_size = %zu "
                   "is larger than a work-group (%zu, tree %zu)", sg,
                   o.work_group_size, o.tree_work_group_size);
    }
    /* Local memory holds one node per work-item: value, flags and (argmin
     * / argmax; one byte otherwise) a position (cl/reduce.cl). */
    const size_t node = sizeof(double) + sizeof(cl_uint) + sizeof(cl_ulong);
    SB_FAIL_IF(o.work_group_size * node > caps->local_mem_size
               || o.tree_work_group_size * node > caps->local_mem_size,
               SB_INVALID_ARGUMENT, "work-groups of %zu (tree %zu) items need "
               "%zu bytes of local memory each; the device has %zu",
               o.work_group_size, o.tree_work_group_size,
               node * (o.work_group_size > o.tree_work_group_size
                       ? o.work_group_size : o.tree_work_group_size),
               caps->local_mem_size);
    *out = o;
    return SB_OK;
}

/* ---- creation ----------------------------------------------------------- */

sb_status sb_context_create(cl_context cl_ctx, cl_device_id device,
                            const sb_options *opts, sb_context **out)
{
    sb__detail_clear();
    SB_FAIL_IF(cl_ctx == NULL, SB_INVALID_ARGUMENT, "cl_ctx is NULL");
    SB_FAIL_IF(device == NULL, SB_INVALID_ARGUMENT, "device is NULL");
    SB_FAIL_IF(out == NULL, SB_INVALID_ARGUMENT, "out is NULL");
    sb_context *ctx = sb__mem.calloc(1, sizeof *ctx);
    SB_FAIL_IF(ctx == NULL, SB_OUT_OF_MEMORY,
               "cannot allocate a context (%zu bytes)", sizeof *ctx);
    cl_int err = CL_SUCCESS;
    sb_status s = sb__device_query(device, &ctx->caps, &ctx->device_type,
                                   ctx->extensions, sizeof ctx->extensions,
                                   &err);
    if (s != SB_OK)   /* header: a device that cannot be queried */
        s = sb__fail(SB_OPENCL_ERROR, "the device cannot be queried: "
                     "clGetDeviceInfo failed: %s", sb_cl_error_name(err));
    if (s == SB_OK)
        s = resolve_options(opts, &ctx->caps, &ctx->opts);
    /* A CPU device's default of many leaves per item (device_caps.c) is
     * for large inputs; a smaller one still gets two work-groups per
     * core (sb__spread_lpi()). */
    if (s == SB_OK && !ctx->caps.is_gpu
        && (opts == NULL || opts->leaves_per_item == 0)) {
        cl_uint units = 0;
        err = SB_CL(clGetDeviceInfo)(device, CL_DEVICE_MAX_COMPUTE_UNITS,
                                     sizeof units, &units, NULL);
        if (err != CL_SUCCESS)
            s = sb__fail(SB_OPENCL_ERROR, "the device cannot be queried: "
                         "clGetDeviceInfo(CL_DEVICE_MAX_COMPUTE_UNITS) "
                         "failed: %s", sb_cl_error_name(err));
        ctx->spread_groups = 2 * (size_t)units;
    }
    ctx->simulator_checker = sb__simulator_checks_uninitialized(ctx->caps.name);
    if (s == SB_OK) {
        /* The device as this context computes on it: a test's flushing
         * device, forced modes. */
        if (ctx->opts.flags & SB_OPT_FLUSH_SUBNORMALS) {
            ctx->caps.f32_denormals = 0;
            ctx->caps.f64_denormals = 0;
        }
        sb__choose_modes(&ctx->caps, ctx->opts.flags, ctx->opts.float_mode);
        ctx->caps.work_group_size = ctx->opts.work_group_size;
        ctx->caps.leaves_per_item = ctx->opts.leaves_per_item;
    }
    if (s == SB_OK) {
        ctx->own_queue = SB_CL(clCreateCommandQueue)(cl_ctx, device, 0, &err);
        if (ctx->own_queue == NULL)
            s = sb__cl_fail(NULL, err, "clCreateCommandQueue");
    }
    if (s == SB_OK && pthread_mutex_init(&ctx->lock, NULL) != 0) {
        SB_CL(clReleaseCommandQueue)(ctx->own_queue);
        s = sb__fail(SB_OUT_OF_MEMORY, "cannot make the context's mutex");
    }
    if (s == SB_OK && (err = SB_CL(clRetainContext)(cl_ctx)) != CL_SUCCESS) {
        /* Without our reference, sb_context_release() would release the
         * caller's. */
        pthread_mutex_destroy(&ctx->lock);
        SB_CL(clReleaseCommandQueue)(ctx->own_queue);
        s = sb__cl_fail(NULL, err, "clRetainContext");
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
    for (int a = 0; a <= SB_LAST_TYPE; a++)
        for (int b = 0; b <= SB_LAST_TYPE; b++) {
            for (int f = 0; f < SB_FAMILY_COUNT; f++)
                for (int v = 0; v < SB_VARIANT_COUNT; v++) {
                    for (int p = 0; p < SB_PASS_COUNT; p++)
                        if (ctx->kernels[a][b][f][v][p])
                            SB_CL(clReleaseKernel)(ctx->kernels[a][b][f][v][p]);
                    if (ctx->programs[a][b][f][v])
                        sb__program_release(ctx->programs[a][b][f][v]);
                }
        }
    SB_CL(clReleaseCommandQueue)(ctx->own_queue);
    SB_CL(clReleaseContext)(ctx->cl_ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx->build_log);
    free(ctx);
}

/* ---- what the caller may ask ---------------------------------------------- */

cl_device_id sb_context_device(const sb_context *ctx)
{
    return ctx ? ctx->device : NULL;
}

cl_context sb_context_cl_context(const sb_context *ctx)
{
    return ctx ? ctx->cl_ctx : NULL;
}

sb_status sb_context_report(const sb_context *ctx, sb_device_caps *out)
{
    sb__detail_clear();
    SB_FAIL_IF(ctx == NULL, SB_INVALID_ARGUMENT, "ctx is NULL");
    SB_FAIL_IF(out == NULL, SB_INVALID_ARGUMENT, "out is NULL");
    *out = ctx->caps;
    return SB_OK;
}

cl_command_queue sb_context_queue(const sb_context *ctx)
{
    return ctx ? ctx->own_queue : NULL;
}

int32_t sb_context_last_cl_error(const sb_context *ctx)
{
    return ctx ? (int32_t)atomic_load(&((sb_context *)ctx)->last_cl_error)
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
