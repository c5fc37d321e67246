/* tests/test_device_modes.c: the three ways of computing floats give the
 * same bits, on every device.
 *
 * For each device, contexts in every float mode: the device's own (native
 * here, guarded or software where the device needs it), forced guarded,
 * forced software f64, and as a device that really flushes subnormals
 * (SB_OPT_FLUSH_SUBNORMALS: the kernels built with -cl-denorms-are-zero;
 * POCL then sets flush-to-zero and denormals-are-zero). Every float
 * reduction (f32, f64, f32 -> f64, integers -> f32/f64; sum, prod, min,
 * max, any, all) runs on the data families that decide these paths:
 * subnormals, specials (NaN, infinities, zeros), huge range, cancellation,
 * signed zeros, limits, products near the edges, with and without masks,
 * at sizes around the leaf, the four-leaf group and the work-group; each
 * result is compared bit for bit with tests/oracle.c.
 *
 * One more fact keeps the test vehicle honest: the flushing POCL device
 * must really flush (with SB_OPT_ALLOW_INEXACT, the raw hardware's sum of
 * two smallest subnormals is 0, where IEEE says 2^-148), while the
 * guarded mode gives 2^-148. A device that reports no f32 denormals
 * (rusticl on llvmpipe) may or may not flush that sum (llvmpipe keeps it):
 * its raw result is printed, and its guarded one must be 2^-148. The
 * report of each context says the mode it computes in. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device_support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static uint64_t seed;

typedef struct {
    const char *name;
    unsigned    flags;
    unsigned    float_mode;
} mode_case;

static const mode_case modes[] = {
    { "auto", 0, 0 },
    { "guarded", 0, SB_MODE_GUARDED },
    { "software f64", 0, SB_MODE_SOFTWARE },
    { "flushing device", SB_OPT_FLUSH_SUBNORMALS, 0 },
};

static const sb_reduction reductions[] = {
    { .op = SB_SUM, .input = SB_F32 }, { .op = SB_PROD, .input = SB_F32 },
    { .op = SB_MIN, .input = SB_F32 }, { .op = SB_MAX, .input = SB_F32 },
    { .op = SB_ANY, .input = SB_F32 }, { .op = SB_ALL, .input = SB_F32 },
    { .op = SB_SUM, .input = SB_F64 }, { .op = SB_PROD, .input = SB_F64 },
    { .op = SB_MIN, .input = SB_F64 }, { .op = SB_MAX, .input = SB_F64 },
    { .op = SB_ANY, .input = SB_F64 }, { .op = SB_ALL, .input = SB_F64 },
    { .op = SB_SUM, .input = SB_F32, .accumulator = SB_F64 },
    { .op = SB_PROD, .input = SB_F32, .accumulator = SB_F64 },
    { .op = SB_MIN, .input = SB_F32, .accumulator = SB_F64 },
    { .op = SB_SUM, .input = SB_I32, .accumulator = SB_F64 },
    { .op = SB_MAX, .input = SB_I32, .accumulator = SB_F64 },
    { .op = SB_SUM, .input = SB_I16, .accumulator = SB_F32 },
    { .op = SB_PROD, .input = SB_U16, .accumulator = SB_F64 },
};

static const data_family families[] = {
    FAMILY_SUBNORMAL, FAMILY_SPECIALS, FAMILY_HUGE_RANGE,
    FAMILY_CANCELLATION, FAMILY_SIGNED_ZEROS, FAMILY_LIMITS,
    FAMILY_PROD_EDGE, FAMILY_UNIFORM,
};

static void every_mode_gives_the_oracle_bits(void **state)
{
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        /* Sizes: a leaf, a four-leaf group and a bit, and past one
         * work-group of the default shape (several passes); Oclgrind, a
         * simulator, the small ones. */
        const size_t big = dev->caps.work_group_size
                         * dev->caps.leaves_per_item * 16 * 2 + 77;
        const size_t sizes[] = { 1, 16, 17, 64, 65, 200, big };
        const size_t size_count = dev->oclgrind ? 5 : COUNT(sizes);
        for (size_t m = 0; m < COUNT(modes); m++) {
            device_context dc;
            const sb_options o = { .flags = SB_OPT_NO_HOST | modes[m].flags,
                                   .float_mode = modes[m].float_mode };
            assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
            sb_device_caps caps;
            assert_int_equal(sb_context_report(dc.ctx, &caps), SB_OK);
            printf("%s, %s: f32 mode %u, f64 mode %u\n", dev->name,
                   modes[m].name, caps.type_mode[SB_F32],
                   caps.type_mode[SB_F64]);
            /* What each mode must be, from the options in effect (the
             * run's own, SAMEBITS_TEST_FLUSH_SUBNORMALS, included). */
            const sb_options *in = &dc.opts;
            if (in->float_mode == SB_MODE_SOFTWARE || !dev->caps.fp64)
                assert_int_equal(caps.type_mode[SB_F64], SB_MODE_SOFTWARE);
            else if (in->float_mode == SB_MODE_GUARDED
                     || (in->flags & SB_OPT_FLUSH_SUBNORMALS)
                     || !dev->caps.f64_denormals)
                assert_int_equal(caps.type_mode[SB_F64], SB_MODE_GUARDED);
            else
                assert_int_equal(caps.type_mode[SB_F64], SB_MODE_NATIVE);
            const bool f32_guarded = in->float_mode != 0
                || (in->flags & SB_OPT_FLUSH_SUBNORMALS)
                || !dev->caps.f32_denormals;
            assert_int_equal(caps.type_mode[SB_F32], f32_guarded
                             ? SB_MODE_GUARDED : SB_MODE_NATIVE);
            tally t = { 0 };
            for (size_t r = 0; r < COUNT(reductions); r++)
                for (size_t f = 0; f < COUNT(families); f++)
                    for (size_t s = 0; s < size_count; s++) {
                        /* In turn (tests/device_support.h) and on
                         * Oclgrind, whose software f64 alone took minutes
                         * over all families: two families per reduction,
                         * size and mode, four apart, so that over its
                         * five or more sizes each reduction meets every
                         * family in every mode. */
                        const size_t first = (r + s + 3 * m)
                                             % COUNT(families);
                        if ((dev->sparse || dev->families_in_turn
                             || dev->oclgrind)
                            && f != first
                            && f != (first + COUNT(families) / 2)
                                    % COUNT(families))
                            continue;
                        const mask_kind mk = (mask_kind)((r + f + s) % 4);
                        test_case c = make_case(seed, reductions[r], sizes[s],
                                                mk, families[f]);
                        sb_status os;
                        const bool ok = check_on_device(&dc, &c, RUN_REDUCE,
                                                        &os);
                        tally_add(&t, os, ok);
                        failures += !ok;
                    }
            print_tally(modes[m].name, &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* The raw hardware sum of two smallest subnormals, through the library
 * with SB_OPT_ALLOW_INEXACT, and the exact one without it. */
static void sum_two_subnormals(const test_device *dev, unsigned flags,
                               uint32_t *bits)
{
    device_context dc;
    const sb_options o = { .flags = SB_OPT_NO_HOST | flags };
    assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
    const float x[2] = { 0x1p-149f, 0x1p-149f };
    cl_mem buf = make_buffer(dev, sizeof x, x);
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    float sum = -1.0f;
    assert_int_equal(sb_reduce(dc.ctx, NULL, r, buf, 0, NULL, 0, 2, &sum),
                     SB_OK);
    memcpy(bits, &sum, sizeof sum);
    clReleaseMemObject(buf);
    device_context_close(&dc);
}

static void flushing_devices_really_flush_and_guarded_mode_does_not(
        void **state)
{
    const device_list *list = *state;
    int vehicles = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const bool pocl = strstr(dev->caps.version, "PoCL") != NULL;
        const bool reports_flush = !dev->caps.f32_denormals;
        if (!pocl && !reports_flush)
            continue;
        /* The test vehicle on POCL, or a device that says it flushes. */
        const unsigned vehicle = pocl ? SB_OPT_FLUSH_SUBNORMALS : 0;
        uint32_t raw, exact;
        sum_two_subnormals(dev, vehicle | SB_OPT_ALLOW_INEXACT, &raw);
        sum_two_subnormals(dev, vehicle, &exact);
        printf("%s: raw hardware sum of two 2^-149 = 0x%08x, guarded = "
               "0x%08x\n", dev->name, raw, exact);
        if (pocl) {
            assert_int_equal(raw, 0x00000000u);  /* really flushed */
            vehicles++;
        }
        assert_int_equal(exact, 0x00000002u);    /* 2^-148, every device */
    }
    /* POCL is always among the devices (tools/setup.sh installs it), unless
     * SAMEBITS_DEVICE keeps another one only: the vehicle was tried. */
    const char *sel = getenv("SAMEBITS_DEVICE");
    if (vehicles == 0 && sel != NULL && *sel != '\0')
        printf("SAMEBITS_DEVICE=%s keeps POCL out: its flushing vehicle is "
               "not tried in this run\n", sel);
    else
        assert_true(vehicles > 0);
}

static int setup(void **state)
{
    return device_list_setup(state);
}

int main(void)
{
    seed = test_seed(0x6d6f646573ull);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_mode_gives_the_oracle_bits),
        cmocka_unit_test(flushing_devices_really_flush_and_guarded_mode_does_not),
    };
    return cmocka_run_group_tests_name("device_modes", tests, setup,
                                       device_list_teardown);
}
