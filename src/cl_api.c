/* cl_api.c: the table of OpenCL functions (see cl_api.h). */
#include <stdlib.h>
#include "cl_api.h"

sb__cl_api sb__cl = {
#define SB_CL_INIT_(fn) .fn = fn,
    SB_CL_FUNCTIONS(SB_CL_INIT_)
#undef SB_CL_INIT_
};

sb__mem_api sb__mem = { .calloc = calloc, .malloc = malloc };
