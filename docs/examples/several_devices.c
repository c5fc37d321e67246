/* docs/examples/several_devices.c: one array split over every OpenCL
 * device present and the host, with the bits of one call.
 *
 * The array is cut into as many pieces as there are devices, plus one for
 * the host. Each device reduces its piece from a buffer of its own context
 * into an sb_partial at the piece's position (sb_partial_add()); the host
 * reduces the last piece (sb_partial_add_host()); the partials are merged
 * in order and finished. The result is compared, bit for bit, with one
 * sb_reduce_host() over the whole array.
 *
 *   build/docs/examples/several_devices        (every device, and the host)
 * Exit status 0 when the bits are the same, 1 otherwise or on an error. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <samebits.h>

enum { N = 100003, MAX_DEVICES = 16 };

int main(void)
{
    static double x[N];
    for (int i = 0; i < N; i++)        /* terms that cancel: order matters */
        x[i] = (i % 2 ? 1.0 : -1.0) / (1.0 + (double)i * 1e-3);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };

    sb_device_entry devices[MAX_DEVICES];
    size_t count = 0;
    if (sb_device_list(devices, MAX_DEVICES, &count) != SB_OK)
        count = 0;
    if (count > MAX_DEVICES)
        count = MAX_DEVICES;
    const size_t pieces = count + 1;   /* the last one on the host */
    sb_partial whole;
    if (sb_partial_init(&whole, r, 0) != SB_OK)
        return 1;
    int rc = 0;
    for (size_t k = 0; k < pieces && rc == 0; k++) {
        const size_t begin = N / pieces * k;
        const size_t end = k + 1 == pieces ? N : N / pieces * (k + 1);
        sb_partial part;
        sb_status s = sb_partial_init(&part, r, begin);
        char where[256] = "the host";
        if (s == SB_OK && k < count) {
            char selector[16];
            snprintf(selector, sizeof selector, "%u", devices[k].index);
            if (clGetDeviceInfo(devices[k].device, CL_DEVICE_NAME,
                                sizeof where, where, NULL) != CL_SUCCESS)
                snprintf(where, sizeof where, "device %s", selector);
            /* The device computes even a small piece itself. */
            const sb_options opts = { .flags = SB_OPT_NO_HOST };
            sb_context *ctx = NULL;
            s = sb_context_create_select(selector, &opts, &ctx);
            if (s == SB_UNSUPPORTED) {      /* a device that cannot do f64 */
                printf("piece %zu: %s cannot compute f64 exactly: the host "
                       "takes it\n", k, where);
                s = sb_partial_add_host(&part, x + begin, NULL, end - begin);
                snprintf(where, sizeof where, "the host");
            } else if (s == SB_OK) {
                cl_int err;
                cl_mem buf = clCreateBuffer(sb_context_cl_context(ctx),
                        CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                        (end - begin) * sizeof *x, x + begin, &err);
                s = buf == NULL ? SB_OPENCL_ERROR
                    : sb_partial_add(ctx, NULL, &part, buf, 0, NULL, 0,
                                     end - begin);
                if (buf != NULL)
                    clReleaseMemObject(buf);
            }
            sb_context_release(ctx);
        } else if (s == SB_OK) {
            s = sb_partial_add_host(&part, x + begin, NULL, end - begin);
        }
        if (s == SB_OK)
            s = sb_partial_merge(&whole, &part);
        if (s != SB_OK) {
            fprintf(stderr, "piece %zu: %s\n", k, sb_error_detail());
            rc = 1;
        } else {
            printf("piece %zu [%zu, %zu) on %s\n", k, begin, end, where);
        }
    }
    double merged, one_call;
    if (rc != 0 || sb_partial_finish(&whole, &merged) != SB_OK
            || sb_reduce_host(r, x, NULL, N, &one_call) != SB_OK) {
        fprintf(stderr, "%s\n", sb_error_detail());
        return 1;
    }
    const int same = memcmp(&merged, &one_call, sizeof merged) == 0;
    printf("%zu pieces: %a, one call: %a: %s\n", pieces, merged, one_call,
           same ? "the same bits" : "DIFFERENT BITS: a bug, please report it");
    return same ? 0 : 1;
}
