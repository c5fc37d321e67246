// tests/header/header_use.cpp: samebits.h in a C++ program, alone or with
// the OpenCL C++ bindings (<CL/opencl.hpp>) included before or after it
// (SB_TEST_CL_FIRST), targeting the OpenCL version of its choice
// (SB_TEST_CL_VERSION). Built by check_header.sh with g++ and clang++ under
// -Wall -Wextra -Werror; it must compile without a warning and run.
#if SB_TEST_BINDINGS
#  define CL_HPP_TARGET_OPENCL_VERSION SB_TEST_CL_VERSION
#  if SB_TEST_CL_VERSION < 200
#    define CL_HPP_MINIMUM_OPENCL_VERSION SB_TEST_CL_VERSION
#  endif
#  if SB_TEST_CL_FIRST
#    include <CL/opencl.hpp>
#    include <samebits.h>
#  else
#    include <samebits.h>
#    include <CL/opencl.hpp>
#  endif
#else
#  include <samebits.h>
#endif
#include <cstdio>

int main()
{
    // Aggregate initialisation needs no cast: SB_SAME_AS_INPUT is an sb_type.
    const sb_reduction r = { SB_SUM, SB_F32, SB_SAME_AS_INPUT, 0, SB_MAP_NONE };
    const float x[3] = { 1.0f, 2.0f, 3.0f };
    float sum = 0.0f;
    const sb_status s = sb_reduce_host(r, x, nullptr, 3, &sum);
#if SB_TEST_BINDINGS
    // A cl::Buffer's handle is what sb_reduce() takes.
    cl::Buffer buffer;
    cl_mem handle = buffer();
    sb_status (*reduce)(sb_context *, cl_command_queue, sb_reduction, cl_mem,
                        size_t, cl_mem, size_t, size_t, void *) = sb_reduce;
    if (reduce == nullptr || handle != nullptr)
        return 1;
#endif
    std::printf("C++, bindings %d, OpenCL %d, opencl.hpp %s: sum = %g (%s)\n",
                SB_TEST_BINDINGS, SB_TEST_CL_VERSION,
                SB_TEST_CL_FIRST ? "first" : "second", static_cast<double>(sum),
                sb_status_string(s));
    return s == SB_OK && sum == 6.0f ? 0 : 1;
}
