/* device_dot_stub.c: TEMPORARY, until the device kernels have dot
 * products (removed when they land). */
#include "device.h"

sb_status sb_dot(sb_context *ctx, cl_command_queue q, sb_reduction r,
                 cl_mem x, size_t xo, cl_mem y, size_t yo, cl_mem m,
                 size_t mo, size_t n, void *result)
{
    (void)ctx; (void)q; (void)r; (void)x; (void)xo; (void)y; (void)yo;
    (void)m; (void)mo; (void)n; (void)result;
    return sb__fail(SB_UNSUPPORTED, "dot products run on the host only");
}

sb_status sb_dot_enqueue(sb_context *ctx, cl_command_queue q, sb_reduction r,
                         cl_mem x, size_t xo, cl_mem y, size_t yo, cl_mem m,
                         size_t mo, size_t n, cl_mem res, size_t ro,
                         cl_uint nw, const cl_event *w, cl_event *done)
{
    (void)ctx; (void)q; (void)r; (void)x; (void)xo; (void)y; (void)yo;
    (void)m; (void)mo; (void)n; (void)res; (void)ro; (void)nw; (void)w;
    (void)done;
    return sb__fail(SB_UNSUPPORTED, "dot products run on the host only");
}

sb_status sb_partial_add_dot(sb_context *ctx, cl_command_queue q,
                             sb_partial *p, cl_mem x, size_t xo, cl_mem y,
                             size_t yo, cl_mem m, size_t mo, size_t n)
{
    (void)ctx; (void)q; (void)p; (void)x; (void)xo; (void)y; (void)yo;
    (void)m; (void)mo; (void)n;
    return sb__fail(SB_UNSUPPORTED, "dot products run on the host only");
}
