/* tests/header/header_use.c: samebits.h in a C program that includes the
 * OpenCL headers itself, before or after it (SB_TEST_CL_FIRST), with the
 * OpenCL version of its choice (SB_TEST_CL_VERSION), defined just before
 * <CL/cl.h> as a program would. Built by check_header.sh with -Wall
 * -Wextra -Werror -Wpedantic; it must compile without a warning and run. */
#if SB_TEST_CL_FIRST
#  define CL_TARGET_OPENCL_VERSION SB_TEST_CL_VERSION
#  include <CL/cl.h>
#  include <samebits.h>
#else
#  include <samebits.h>
#  define CL_TARGET_OPENCL_VERSION SB_TEST_CL_VERSION
#  include <CL/cl.h>
#endif
#include <stdio.h>

/* The device API's handle types are OpenCL's own: a pointer to
 * sb_reduce() has the type spelled with cl.h's typedefs. */
typedef sb_status (*reduce_fn)(sb_context *, cl_command_queue, sb_reduction,
                               cl_mem, size_t, cl_mem, size_t, size_t, void *);

int main(void)
{
    volatile reduce_fn reduce = sb_reduce;
#if SB_TEST_CL_VERSION >= 200
    /* OpenCL 2.0's queue constructor stays declared: samebits.h did not
     * pin the program to 1.2. */
    cl_command_queue (*volatile queue_fn)(cl_context, cl_device_id,
            const cl_queue_properties *, cl_int *) =
        clCreateCommandQueueWithProperties;
#else
    cl_command_queue (*volatile queue_fn)(cl_context, cl_device_id,
            cl_command_queue_properties, cl_int *) = clCreateCommandQueue;
#endif
    const sb_reduction r = { SB_SUM, SB_F32, SB_SAME_AS_INPUT, 0, 0 };
    const float x[3] = { 1.0f, 2.0f, 3.0f };
    float sum = 0.0f;
    const sb_status s = sb_reduce_host(r, x, NULL, 3, &sum);
    printf("C, OpenCL %d, cl.h %s: sum = %g (%s)\n", SB_TEST_CL_VERSION,
           SB_TEST_CL_FIRST ? "first" : "second", (double)sum,
           sb_status_string(s));
    return s == SB_OK && sum == 6.0f && reduce != NULL && queue_fn != NULL
           ? 0 : 1;
}
