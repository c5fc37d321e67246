/* fpenv.c: runs the host arithmetic in the environment docs/order.md assumes.
 *
 * The caller may have changed the rounding mode, unmasked exceptions, or
 * (through -ffast-math's crtfastmath.o) turned on flush-to-zero and
 * denormals-are-zero. Any of these would change our bits, so each thread
 * that does arithmetic enters the default environment and leaves the
 * caller's one, exception flags included, as it found it. */
#include <fenv.h>
#include <float.h>
#include <string.h>
#include "host_engine.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SB_HAVE_MXCSR 1
#endif

/* Excess precision (x87 without SSE) would round twice. */
_Static_assert(FLT_EVAL_METHOD == 0,
               "samebits needs FLT_EVAL_METHOD == 0 (SSE2 on x86)");

#ifdef SB_HAVE_MXCSR
/* On x86 the host arithmetic is SSE only (FLT_EVAL_METHOD == 0 above), so
 * its whole environment is MXCSR: rounding, FTZ, DAZ, exception masks and
 * flags. Saving that alone is a few cycles; fegetenv/fesetenv also save
 * and reload the x87 environment, which cost a sixth of a 64 KB call. */
_Static_assert(sizeof(unsigned) <= sizeof(((sb__fpenv *)0)->saved),
               "sb__fpenv too small for MXCSR");

void sb__fpenv_enter(sb__fpenv *saved)
{
    const unsigned csr = _mm_getcsr();
    memcpy(saved->saved, &csr, sizeof csr);
    /* 0x1F80 is the power-on MXCSR: all exceptions masked, round to
     * nearest, no FTZ/DAZ, no flags. */
    _mm_setcsr(0x1F80);
}

void sb__fpenv_leave(const sb__fpenv *saved)
{
    unsigned csr;
    memcpy(&csr, saved->saved, sizeof csr);
    _mm_setcsr(csr);
}
#else
_Static_assert(sizeof(fenv_t) <= sizeof(((sb__fpenv *)0)->saved),
               "sb__fpenv too small for fenv_t");

void sb__fpenv_enter(sb__fpenv *saved)
{
    fenv_t env;
    fegetenv(&env);
    memcpy(saved->saved, &env, sizeof env);
    fesetenv(FE_DFL_ENV);
}

void sb__fpenv_leave(const sb__fpenv *saved)
{
    fenv_t env;
    memcpy(&env, saved->saved, sizeof env);
    fesetenv(&env);
}
#endif
