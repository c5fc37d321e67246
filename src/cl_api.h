/* cl_api.h: every OpenCL function the library calls, through one table.
 * The table lets tests make any call fail on demand (fault injection)
 * without a fake OpenCL; in normal use it holds the ICD loader's functions.
 * Call as SB_CL(clCreateBuffer)(...). */
#ifndef SB_CL_API_H
#define SB_CL_API_H

/* The library targets OpenCL 1.2 (CMake defines CL_TARGET_OPENCL_VERSION
 * for its sources): it needs nothing newer. */
#include <CL/cl.h>
#include "samebits.h"

#define SB_CL_FUNCTIONS(X)                                                  \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs)              \
    X(clGetDeviceInfo) X(clCreateContext) X(clRetainContext)                \
    X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue)    \
    X(clGetCommandQueueInfo) X(clCreateProgramWithSource)                   \
    X(clBuildProgram) X(clGetProgramBuildInfo) X(clReleaseProgram)          \
    X(clCreateKernel) X(clReleaseKernel) X(clSetKernelArg)                  \
    X(clGetKernelWorkGroupInfo)                                             \
    X(clEnqueueNDRangeKernel) X(clCreateBuffer) X(clReleaseMemObject)       \
    X(clGetMemObjectInfo) X(clEnqueueReadBuffer) X(clEnqueueWriteBuffer)   \
    X(clEnqueueCopyBuffer) X(clEnqueueMapBuffer)                            \
    X(clEnqueueUnmapMemObject) X(clWaitForEvents) X(clRetainEvent)          \
    X(clReleaseEvent) X(clGetEventInfo) X(clFlush)

typedef struct {
#define SB_CL_FIELD_(fn) __typeof__(&fn) fn;
    SB_CL_FUNCTIONS(SB_CL_FIELD_)
#undef SB_CL_FIELD_
} sb__cl_api;

extern sb__cl_api sb__cl;

#define SB_CL(fn) (sb__cl.fn)

/* The library's heap allocations go through here too, for the same
 * reason: tests make the k-th one fail. */
typedef struct {
    void *(*calloc)(size_t count, size_t size);
    void *(*malloc)(size_t size);
    void *(*realloc)(void *p, size_t size);
} sb__mem_api;

extern sb__mem_api sb__mem;

#endif /* SB_CL_API_H */
