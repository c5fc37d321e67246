/* device_caps.c: what a device can do for docs/order.md, the mode each
 * float type takes there, and the launch shape samebits uses on it.
 *
 * Every type is computed exactly wherever a way exists: natively where
 * the hardware follows the float rules (keeps subnormals: CL_FP_DENORM),
 * guarded where it flushes them, in software for f64 without fp64 (cl/
 * arith_float.cl). Only a 64-bit type on a device without 64-bit integers
 * has no way, and is refused. */
#include <stdio.h>
#include <string.h>
#include "device.h"

static cl_int info_string(cl_device_id d, cl_device_info what, char *buf,
                          size_t size)
{
    buf[0] = '\0';
    size_t got = 0;
    const cl_int err = SB_CL(clGetDeviceInfo)(d, what, size, buf, &got);
    if (err == CL_INVALID_VALUE) {   /* longer than buf: keep a prefix */
        char big[4096];
        const cl_int e2 = SB_CL(clGetDeviceInfo)(d, what, sizeof big, big, NULL);
        if (e2 != CL_SUCCESS)
            return e2;
        snprintf(buf, size, "%s", big);
        return CL_SUCCESS;
    }
    buf[size - 1] = '\0';
    return err;
}

/* Keeps the first failure of a series of queries. */
#define KEEP_FIRST(err, call) \
    do { const cl_int e_ = (call); if ((err) == CL_SUCCESS) (err) = e_; } while (0)

#define QUERY(d, what, var) \
    SB_CL(clGetDeviceInfo)((d), (what), sizeof(var), &(var), NULL)

static int has_extension(const char *extensions, const char *name)
{
    const size_t len = strlen(name);
    for (const char *p = extensions; (p = strstr(p, name)) != NULL; p += len)
        if ((p == extensions || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return 1;
    return 0;
}

static void refuse(sb_device_caps *c, sb_type t, const char *why)
{
    c->type_status[t] = SB_UNSUPPORTED;
    snprintf(c->type_reason[t], sizeof c->type_reason[t], "%s", why);
}

static void set_mode(sb_device_caps *c, sb_type t, unsigned mode,
                     const char *why)
{
    c->type_mode[t] = mode;
    snprintf(c->type_reason[t], sizeof c->type_reason[t], "%s", why);
}

void sb__choose_modes(sb_device_caps *c, unsigned flags, unsigned forced)
{
    const int inexact = (flags & SB_OPT_ALLOW_INEXACT) != 0;
    for (int t = SB_I8; t <= SB_F64; t++) {
        c->type_status[t] = SB_OK;
        c->type_mode[t] = SB_MODE_NATIVE;
        c->type_reason[t][0] = '\0';
    }
    if (forced != 0 && !inexact)
        set_mode(c, SB_F32, SB_MODE_GUARDED, "guarded on request "
                 "(sb_options.float_mode)");
    else if (!c->f32_denormals && !inexact)
        set_mode(c, SB_F32, SB_MODE_GUARDED, "f32 subnormals are flushed "
                 "(no CL_FP_DENORM): exact code where one is involved");
    if (!c->fp64 && !c->int64)
        refuse(c, SB_F64, "no fp64 (cl_khr_fp64), and no 64-bit integers "
               "for software f64");
    else if (!c->fp64)
        set_mode(c, SB_F64, SB_MODE_SOFTWARE, "no fp64 (cl_khr_fp64): IEEE "
                 "binary64 in 64-bit integer arithmetic");
    else if (forced == SB_MODE_SOFTWARE)
        set_mode(c, SB_F64, SB_MODE_SOFTWARE, "software on request "
                 "(sb_options.float_mode)");
    else if (forced == SB_MODE_GUARDED && !inexact)
        set_mode(c, SB_F64, SB_MODE_GUARDED, "guarded on request "
                 "(sb_options.float_mode)");
    else if (!c->f64_denormals && !inexact)
        set_mode(c, SB_F64, SB_MODE_GUARDED, "f64 subnormals are flushed "
                 "(no CL_FP_DENORM): exact code where one is involved");
    if (!c->int64) {
        refuse(c, SB_I64, "embedded profile without 64-bit integers");
        refuse(c, SB_U64, "embedded profile without 64-bit integers");
    }
}

static size_t floor_pow2(size_t v)
{
    size_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

sb_status sb__device_query(cl_device_id d, sb_device_caps *c,
                           cl_device_type *type_out, char *extensions,
                           size_t ext_size, cl_int *err_out)
{
    memset(c, 0, sizeof *c);
    cl_int err = CL_SUCCESS;
    cl_device_type type = 0;
    cl_device_fp_config f32 = 0, f64 = 0;
    size_t max_wg = 0;
    cl_ulong local_mem = 0, max_alloc = 0;
    cl_bool unified = CL_FALSE;
    char profile[64];

    KEEP_FIRST(err, info_string(d, CL_DEVICE_NAME, c->name, sizeof c->name));
    KEEP_FIRST(err, info_string(d, CL_DEVICE_VENDOR, c->vendor, sizeof c->vendor));
    KEEP_FIRST(err, info_string(d, CL_DEVICE_VERSION, c->version, sizeof c->version));
    KEEP_FIRST(err, info_string(d, CL_DEVICE_PROFILE, profile, sizeof profile));
    KEEP_FIRST(err, QUERY(d, CL_DEVICE_TYPE, type));
    KEEP_FIRST(err, QUERY(d, CL_DEVICE_SINGLE_FP_CONFIG, f32));
    KEEP_FIRST(err, QUERY(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, max_wg));
    KEEP_FIRST(err, QUERY(d, CL_DEVICE_LOCAL_MEM_SIZE, local_mem));
    KEEP_FIRST(err, QUERY(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, max_alloc));
    KEEP_FIRST(err, QUERY(d, CL_DEVICE_HOST_UNIFIED_MEMORY, unified));
    if (err != CL_SUCCESS) {
        *err_out = err;
        return SB_OPENCL_ERROR;
    }
    /* A failed query must not pass for a missing extension (the type would
     * be refused for good); only a list too long for `extensions` is cut. */
    err = info_string(d, CL_DEVICE_EXTENSIONS, extensions, ext_size);
    if (err == CL_INVALID_VALUE)
        extensions[0] = '\0';
    else if (err != CL_SUCCESS) {
        *err_out = err;
        return SB_OPENCL_ERROR;
    }

    c->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    if (type_out != NULL)
        *type_out = type;
    c->fp64 = has_extension(extensions, "cl_khr_fp64");
    if (c->fp64 && (err = QUERY(d, CL_DEVICE_DOUBLE_FP_CONFIG, f64)) != CL_SUCCESS) {
        *err_out = err;
        return SB_OPENCL_ERROR;
    }
    c->f32_denormals = (f32 & CL_FP_DENORM) != 0;
    c->f64_denormals = (f64 & CL_FP_DENORM) != 0;
    c->int64 = strcmp(profile, "EMBEDDED_PROFILE") != 0
            || has_extension(extensions, "cles_khr_int64");
    c->max_work_group_size = max_wg;
    c->local_mem_size = (size_t)local_mem;
    c->max_alloc = max_alloc;
    c->host_unified_memory = unified == CL_TRUE;

    /* Sub-groups: the hardware shuffle back-end, in order of preference. */
    const int nvidia = strstr(c->vendor, "NVIDIA") != NULL;
    if (has_extension(extensions, "cl_khr_subgroup_shuffle_relative")
        && has_extension(extensions, "cl_khr_subgroups"))
        c->subgroup_backend = SB_SUBGROUP_BACKEND_KHR;
    else if (has_extension(extensions, "cl_intel_subgroups"))
        c->subgroup_backend = SB_SUBGROUP_BACKEND_INTEL;
    else if (nvidia && c->is_gpu)
        c->subgroup_backend = SB_SUBGROUP_BACKEND_NVIDIA;
    if (c->subgroup_backend == SB_SUBGROUP_BACKEND_NVIDIA) {
        c->subgroup_sizes[0] = 32;
        c->subgroup_size_count = 1;
    } else if (c->subgroup_backend != SB_SUBGROUP_BACKEND_NONE) {
#ifdef CL_DEVICE_SUB_GROUP_SIZES_INTEL
        size_t sizes[8], bytes = 0;
        if (SB_CL(clGetDeviceInfo)(d, CL_DEVICE_SUB_GROUP_SIZES_INTEL,
                                   sizeof sizes, sizes, &bytes) == CL_SUCCESS)
            for (size_t i = 0; i < bytes / sizeof sizes[0] && i < 8; i++)
                c->subgroup_sizes[c->subgroup_size_count++] = (unsigned)sizes[i];
#endif
    }

    sb__choose_modes(c, 0, 0);

    /* The default launch shape. GPUs want many work-items in flight; a CPU
     * device (POCL) runs a work-group as a loop on one core, so it wants
     * fewer, fatter work-items. Local memory holds one node per item.
     * 128 leaves (8 KiB of f32) per item, not 32: fewer items and groups,
     * each a longer run of the folds, and on POCL (Zen 5 VM, 2 threads,
     * 16 items per group) f32 sums at 2^24 went from 0.70 to 0.83 of its
     * read kernel, at 2^27 from 0.84-0.87 to 0.90-0.96; f64 and i32 the
     * same way. Smaller inputs keep two groups per core
     * (sb__spread_lpi()). */
    size_t wg = c->is_gpu ? 256 : 16;
    const size_t node_bytes = 8 + 4;
    while (wg > 1 && (wg > max_wg || wg * node_bytes > c->local_mem_size / 2))
        wg /= 2;
    c->work_group_size = floor_pow2(wg);
    c->leaves_per_item = c->is_gpu ? 4 : 128;
    return SB_OK;
}

sb_status sb_device_report(cl_device_id device, sb_device_caps *out)
{
    sb__detail_clear();
    SB_FAIL_IF(device == NULL, SB_INVALID_ARGUMENT, "device is NULL");
    SB_FAIL_IF(out == NULL, SB_INVALID_ARGUMENT, "out is NULL");
    char extensions[8192];
    cl_int err = CL_SUCCESS;
    sb_device_caps caps;
    const sb_status s = sb__device_query(device, &caps, NULL, extensions,
                                         sizeof extensions, &err);
    SB_FAIL_IF(s != SB_OK, SB_OPENCL_ERROR, "the device cannot be queried: "
               "clGetDeviceInfo failed: %s", sb_cl_error_name(err));
    *out = caps;
    return SB_OK;
}
