/* host_isa.c: which copy of the host folds runs on this CPU.
 *
 * host_kernels.c is built once for the compiler's baseline and, on
 * x86-64, once more for AVX2 and for AVX-512 (CMakeLists.txt gives each
 * copy its -m flags; the library itself is never built for the machine it
 * is built on). A call takes sb_host_options.isa if set, else
 * SAMEBITS_ISA if it names a set this CPU runs, else the widest this CPU
 * runs. The copies differ in speed only: tests/test_host_isa.c runs each
 * against the oracle. */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "error_detail.h"
#include "host_columns.h"

#if defined(SAMEBITS_HOST_ISA_VARIANTS) && (defined(__x86_64__) || defined(_M_X64))
#  define SB_HAVE_X86_VARIANTS 1
#  include <cpuid.h>        /* __get_cpuid: F16C */
#else
#  define SB_HAVE_X86_VARIANTS 0
#endif

static const struct {
    unsigned    isa;
    const char *name;
} names[] = {
    { SB_ISA_AUTO, "auto" },
#if defined(__x86_64__) || defined(_M_X64)
    { SB_ISA_BASELINE, "sse2" },
#endif
    { SB_ISA_BASELINE, "baseline" },
    { SB_ISA_AVX2, "avx2" },
    { SB_ISA_AVX512, "avx512" },
};

const char *sb_isa_name(unsigned isa)
{
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i].isa == isa)
            return names[i].name;
    return "unknown";
}

/* 0 for a text that names no set. */
static unsigned isa_from_text(const char *text, bool *found)
{
    *found = false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(text, names[i].name) == 0) {
            *found = true;
            return names[i].isa;
        }
    return SB_ISA_AUTO;
}

sb_status sb_isa_parse(const char *text, unsigned *isa)
{
    sb__detail_clear();
    SB_FAIL_IF(isa == NULL, SB_INVALID_ARGUMENT, "isa is NULL");
    SB_FAIL_IF(text == NULL, SB_INVALID_ARGUMENT,
               "the instruction set is NULL");
    bool found;
    const unsigned value = isa_from_text(text, &found);
    SB_FAIL_IF(!found, SB_INVALID_ARGUMENT,
               "'%s' is not an instruction set: auto, %s, avx2 or avx512",
               text, sb_isa_name(SB_ISA_BASELINE));
    *isa = value;
    return SB_OK;
}

bool sb__cpu_has_f16c(void)
{
#if SB_HAVE_X86_VARIANTS
    /* Clang's __builtin_cpu_supports() knows no "f16c": CPUID leaf 1,
     * ECX bit 29; the OS side is AVX's (its check reads XGETBV). */
    __builtin_cpu_init();
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx")
           && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
#else
    return false;
#endif
}

/* Bit k set: this CPU (and its operating system, which must save the
 * wider registers) runs set k. Asked once; racing first calls store the
 * same value. */
static unsigned runnable_sets(void)
{
    static atomic_uint cached;   /* 0: not asked yet */
    unsigned sets = atomic_load_explicit(&cached, memory_order_relaxed);
    if (sets != 0)
        return sets;
    sets = 1u << SB_ISA_BASELINE;
#if SB_HAVE_X86_VARIANTS
    /* GCC's and Clang's runtime checks include XGETBV: a feature the OS
     * does not enable reads as absent. */
    __builtin_cpu_init();
    /* The AVX2 folds convert f16 with F16C (CMakeLists.txt). */
    if (__builtin_cpu_supports("avx2") && sb__cpu_has_f16c())
        sets |= 1u << SB_ISA_AVX2;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
        && __builtin_cpu_supports("avx512dq")
        && __builtin_cpu_supports("avx512vl"))
        sets |= 1u << SB_ISA_AVX512;
#endif
    atomic_store_explicit(&cached, sets, memory_order_relaxed);
    return sets;
}

static bool built_for(unsigned isa)
{
    return isa == SB_ISA_BASELINE || (SB_HAVE_X86_VARIANTS && isa <= SB_ISA_AVX512);
}

sb_status sb_host_isa_check(unsigned isa)
{
    sb__detail_clear();
    SB_FAIL_IF(isa > SB_ISA_AVX512, SB_INVALID_ARGUMENT,
               "%u is not an instruction set (SB_ISA_*)", isa);
    if (isa == SB_ISA_AUTO)
        return SB_OK;
    SB_FAIL_IF(!built_for(isa), SB_UNSUPPORTED,
               "this build of samebits has no %s host path (it has one for "
               "AVX2 and AVX-512 only on x86-64, and not when built with "
               "SAMEBITS_HOST_ISA_VARIANTS=OFF)", sb_isa_name(isa));
    SB_FAIL_IF(!(runnable_sets() & (1u << isa)), SB_UNSUPPORTED,
               "this CPU cannot run the %s host path (%s)", sb_isa_name(isa),
               isa == SB_ISA_AVX2 ? "no AVX2 with F16C"
                                  : "no AVX-512 F, BW, DQ and VL");
    return SB_OK;
}

static unsigned widest_runnable(void)
{
    const unsigned sets = runnable_sets();
    for (unsigned isa = SB_ISA_AVX512; isa > SB_ISA_BASELINE; isa--)
        if (built_for(isa) && (sets & (1u << isa)))
            return isa;
    return SB_ISA_BASELINE;
}

/* SAMEBITS_ISA when it names a set this CPU runs, else 0. */
static unsigned isa_from_environment(void)
{
    const char *env = getenv("SAMEBITS_ISA");
    if (env == NULL)
        return SB_ISA_AUTO;
    bool found;
    const unsigned isa = isa_from_text(env, &found);
    if (!found || isa == SB_ISA_AUTO || !built_for(isa)
        || !(runnable_sets() & (1u << isa)))
        return SB_ISA_AUTO;
    return isa;
}

sb_status sb__isa_resolve(unsigned requested, unsigned *isa)
{
    if (requested != SB_ISA_AUTO) {
        const sb_status s = sb_host_isa_check(requested);
        if (s != SB_OK)
            return s;
        *isa = requested;
        return SB_OK;
    }
    const unsigned env = isa_from_environment();
    *isa = env != SB_ISA_AUTO ? env : widest_runnable();
    return SB_OK;
}

unsigned sb_host_isa(const sb_host_options *opts)
{
    sb__detail_clear();
    unsigned isa = SB_ISA_BASELINE;
    if (sb__isa_resolve(opts ? opts->isa : SB_ISA_AUTO, &isa) != SB_OK)
        return SB_ISA_AUTO;
    sb__detail_clear();
    return isa;
}

/* NAME's copy for `isa` (one this CPU runs) of what host_kernels.c and
 * host_columns.c build once per instruction set. */
#if SB_HAVE_X86_VARIANTS
#  define SB_FOR_ISA(NAME, isa, plan)                                      \
    ((isa) == SB_ISA_AVX512 ? NAME##_avx512(plan)                          \
     : (isa) == SB_ISA_AVX2 ? NAME##_avx2(plan) : NAME##_baseline(plan))
#else
#  define SB_FOR_ISA(NAME, isa, plan) ((void)(isa), NAME##_baseline(plan))
#endif

const sb__kernel *sb__host_kernel(const sb__plan *plan, unsigned isa)
{
    if (plan->arg)
        return sb__host_kernel_arg(plan);
    return SB_FOR_ISA(sb__host_kernel, isa, plan);
}

sb__column_fn sb__column_fold(const sb__plan *plan, unsigned isa)
{
    return SB_FOR_ISA(sb__column_fold, isa, plan);
}

sb__rows_kernel sb__host_rows(const sb__plan *plan, unsigned isa)
{
    return SB_FOR_ISA(sb__host_rows, isa, plan);
}

sb__prepare_fn sb__host_prepare(unsigned isa)
{
#if SB_HAVE_X86_VARIANTS
    if (isa == SB_ISA_AVX512)
        return sb__prepare_avx512;
    if (isa == SB_ISA_AVX2)
        return sb__prepare_avx2;
#endif
    (void)isa;
    return sb__prepare_baseline;
}

sb__block_map_fn sb__host_block_map(const sb__plan *plan, unsigned isa)
{
    return SB_FOR_ISA(sb__host_block_map, isa, plan);
}

sb__masked_block_fn sb__host_masked_block(const sb__plan *plan, unsigned isa)
{
    return SB_FOR_ISA(sb__host_masked_block, isa, plan);
}
