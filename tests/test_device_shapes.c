/* tests/test_device_shapes.c: the launch shape never changes the bits.
 *
 * On every device, sb_context_create() with work_group_size over powers of
 * two from 1 to the device's maximum (capped at 1024 on POCL, 256 on
 * Oclgrind), leaves_per_item 1 .. 128, tree_work_group_size 1 .. 64,
 * nodes_per_item 1, 2, 16, 128, emulated sub-groups of 4 .. 64 lanes,
 * sub-groups off, final reductions forced over three or more passes, and a
 * few seeded random combinations. Each shape runs its reductions
 * (SB_OPT_NO_HOST) on sizes around its own work-group and pass boundaries;
 * every result must have the bits of tests/oracle.c and sb_reduce_host().
 * tree_work_group_size = nodes_per_item = 1, valid but a fan-in of one per
 * pass, runs last, under a 30 s alarm.
 *
 * The reductions: f32 sum, f64 max and checked i64 sum (overflowing in
 * about half the cases) on every shape, with masks and NaN/+-0 data; f32
 * and f64 prod, f64 sum, f32 min/max, f64 min, u8 -> u32 sum, any and all
 * two at a time, in rotation by work-group size. POCL compiles each kernel
 * once per work-group size (about 0.5 s cold), which is what bounds this
 * rotation.
 *
 * Invalid options (not a power of two, too large, an emulated sub-group
 * wider than a work-group) must make sb_context_create() fail with
 * SB_INVALID_ARGUMENT. */
#define _POSIX_C_SOURCE 200809L  /* sigaction */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "device_support.h"
#include "oracle.h"
#include "samebits.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

enum { MAX_MISMATCHES = 20, COUNT_OF_SHAPES = 64 };

static uint64_t seed;

typedef device_list suite;

/* ------------------------------------------------------------------------
 * The reductions of a shape
 * ---------------------------------------------------------------------- */

typedef struct {
    sb_reduction r;
    data_family  family[2];   /* alternating with the size */
    mask_kind    mask[2];
} shape_reduction;

/* Run on every shape. */
static const shape_reduction core[] = {
    { { SB_SUM, SB_F32, 0, 0, 0 }, { FAMILY_SPECIALS, FAMILY_CANCELLATION },
      { MASK_EMPTY_LEAVES, MASK_NONE } },
    { { SB_MAX, SB_F64, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SPECIALS },
      { MASK_RANDOM, MASK_ALTERNATE_LEAVES } },
    { { SB_SUM, SB_I64, 0, 0, 0 }, { FAMILY_SUM_EDGE, FAMILY_LIMITS },
      { MASK_NONE, MASK_RANDOM } },
};

/* Two per shape, chosen by the work-group size. */
static const shape_reduction extra[] = {
    { { SB_PROD, SB_F32, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_SPECIALS },
      { MASK_RANDOM, MASK_EMPTY_LEAVES } },
    { { SB_SUM, SB_F64, 0, 0, 0 }, { FAMILY_CANCELLATION, FAMILY_SUBNORMAL },
      { MASK_EMPTY_LEAVES, MASK_NONE } },
    { { SB_MIN, SB_F32, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SPECIALS },
      { MASK_EMPTY_LEAVES, MASK_RANDOM } },
    { { SB_PROD, SB_F64, 0, 0, 0 }, { FAMILY_SPECIALS, FAMILY_PROD_EDGE },
      { MASK_ALTERNATE_LEAVES, MASK_NONE } },
    { { SB_SUM, SB_U8, SB_U32, 0, 0 }, { FAMILY_UNIFORM, FAMILY_LIMITS },
      { MASK_NONE, MASK_RANDOM } },
    { { SB_MAX, SB_F32, 0, 0, 0 }, { FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO },
      { MASK_RANDOM, MASK_EMPTY_LEAVES } },
    { { SB_ANY, SB_F32, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SUBNORMAL },
      { MASK_RANDOM, MASK_NONE } },
    { { SB_MIN, SB_F64, 0, 0, 0 }, { FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO },
      { MASK_EMPTY_LEAVES, MASK_ALTERNATE_LEAVES } },
    { { SB_ALL, SB_F64, 0, 0, 0 }, { FAMILY_SPECIALS, FAMILY_NEGATIVE_ZERO },
      { MASK_NONE, MASK_RANDOM } },
};

static unsigned floor_log2(size_t v)
{
    unsigned k = 0;
    while (v >>= 1)
        k++;
    return k;
}

/* The options sb_context_create() resolves `o` to (0: the device's
 * defaults, as samebits.h documents them). */
static sb_options resolved(const test_device *d, sb_options o)
{
    if (o.work_group_size == 0)
        o.work_group_size = d->caps.work_group_size;
    if (o.leaves_per_item == 0)
        o.leaves_per_item = d->caps.leaves_per_item;
    if (o.tree_work_group_size == 0)
        o.tree_work_group_size = d->caps.work_group_size < 64
                                 ? d->caps.work_group_size : 64;
    if (o.nodes_per_item == 0)
        o.nodes_per_item = 16;
    return o;
}

/* Sizes around the boundaries of shape `o`: one leaf, one work-group (E
 * elements), a ragged last work-group, one and two passes over partials
 * (fan-in F per pass), and a random one; none above `cap`. */
static size_t shape_sizes(const sb_options *o, size_t cap, uint64_t *state,
                          size_t *out)
{
    const uint64_t e = (uint64_t)o->work_group_size * o->leaves_per_item * 16;
    const uint64_t f = (uint64_t)o->tree_work_group_size * o->nodes_per_item;
    const uint64_t wanted[] = { 0, 17, e - 1, e + 1, 2 * e + 33, e * f + 5,
                                e * (f + 1) + 1, e * f * f + 49,
                                1 + random_below(state, cap) };
    size_t count = 0;
    for (size_t i = 0; i < COUNT(wanted); i++) {
        bool seen = false;
        for (size_t j = 0; j < count; j++)
            seen = seen || out[j] == wanted[i];
        if (!seen && wanted[i] <= cap)
            out[count++] = (size_t)wanted[i];
    }
    return count;
}

static size_t size_cap(const test_device *d)
{
    return d->oclgrind ? 3000 : 300000;
}

/* Runs the reductions of shape `opts` on device `d` in a context it puts
 * in *held,
 * left open for the caller to close. @return mismatches. */
static unsigned long run_shape(const test_device *d, const sb_options *opts,
                               device_context *held, tally *t)
{
    device_context dc;
    held->ctx = NULL;
    sb_options o = *opts;
    o.flags |= SB_OPT_NO_HOST;
    const sb_status created = device_context_open(&dc, d, &o);
    if (created != SB_OK) {
        fprintf(stderr, "sb_context_create failed (%s) on %s for valid ",
                status_name(created), d->name);
        print_options(stderr, &o);
        fprintf(stderr, "\n");
        return 1;
    }
    const sb_options shape = resolved(d, o);
    uint64_t state = mix_seed(seed, shape.work_group_size * 1000003u +
                                    shape.leaves_per_item * 1009u +
                                    shape.tree_work_group_size * 101u +
                                    shape.nodes_per_item * 7u +
                                    shape.emulated_subgroup_size);
    size_t sizes[16];
    const size_t size_count = shape_sizes(&shape, size_cap(d), &state, sizes);
    const unsigned rotation = floor_log2(shape.work_group_size) * 2;
    const shape_reduction *chosen[COUNT(core) + 2];
    for (size_t k = 0; k < COUNT(core); k++)
        chosen[k] = &core[k];
    chosen[COUNT(core)] = &extra[rotation % COUNT(extra)];
    chosen[COUNT(core) + 1] = &extra[(rotation + 1) % COUNT(extra)];

    unsigned long wrong = 0;
    for (size_t z = 0; z < size_count; z++) {
        for (size_t k = 0; k < COUNT(chosen); k++) {
            const shape_reduction *sr = chosen[k];
            const test_case c = make_case(seed, sr->r, sizes[z],
                                          sr->mask[z % 2], sr->family[z % 2]);
            sb_status expected;
            /* sb_reduce_enqueue() on one size in three. */
            const bool agreed = check_on_device(
                &dc, &c, z % 3 == 1 ? RUN_BOTH : RUN_REDUCE, &expected);
            tally_add(t, expected, agreed);
            wrong += !agreed;
        }
    }
    *held = dc;
    return wrong;
}

/* Runs every shape of `shapes` on every device; prints a tally per device. */
typedef size_t (*shape_list)(const test_device *d, sb_options *out);

static void run_shapes(void **state, const char *what, shape_list list)
{
    const suite *s = *state;
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->count && wrong < MAX_MISMATCHES; i++) {
        const test_device *d = &s->devices[i];
        sb_options shapes[COUNT_OF_SHAPES];
        const size_t count = list(d, shapes);
        tally t = { 0 };
        /* The shapes' contexts stay open until the last one is done: the
         * library shares a program between the contexts of one cl_context
         * while one of them holds it, so that each is built once here,
         * not once per shape (Oclgrind keeps no kernel cache: rebuilding
         * took two thirds of this test). */
        device_context held[COUNT_OF_SHAPES];
        size_t opened = 0;
        for (size_t k = 0; k < count && wrong < MAX_MISMATCHES; k++)
            wrong += run_shape(d, &shapes[k], &held[opened++], &t);
        for (size_t k = 0; k < opened; k++)
            if (held[k].ctx != NULL)
                device_context_close(&held[k]);
        printf("%s on %s: %zu shapes, ", what, d->name, count);
        print_tally("reductions", &t);
    }
    assert_int_equal(wrong, 0);
}

/* ------------------------------------------------------------------------
 * The shapes
 * ---------------------------------------------------------------------- */

static size_t max_wg(const test_device *d)
{
    return device_max_work_group_size(d, d->oclgrind ? 256 : 1024);
}

static size_t work_group_sizes(const test_device *d, sb_options *out)
{
    size_t count = 0;
    /* One leaf per work-item, so that a work-group of 1024 is 16384
     * elements; the device's own leaves_per_item on a few. */
    for (size_t wg = 1; wg <= max_wg(d); wg *= 2)
        out[count++] = (sb_options){ .work_group_size = wg,
                                     .leaves_per_item = 1 };
    for (size_t wg = 2; wg <= max_wg(d); wg *= 8)
        out[count++] = (sb_options){ .work_group_size = wg };
    return count;
}

static size_t leaves_per_item(const test_device *d, sb_options *out)
{
    static const unsigned lpis[] = { 1, 2, 4, 8, 16, 64, 128 };
    size_t count = 0;
    for (size_t k = 0; k < COUNT(lpis); k++) {
        /* Small work-groups, so that a few hundred leaves span several. */
        out[count++] = (sb_options){ .work_group_size = 4,
                                     .leaves_per_item = lpis[k] };
        if (!d->oclgrind)
            out[count++] = (sb_options){ .leaves_per_item = lpis[k] };
    }
    return count;
}

static size_t tree_shapes(const test_device *d, sb_options *out)
{
    static const unsigned npis[] = { 1, 2, 16, 128 };
    size_t count = 0;
    for (size_t twg = 1; twg <= 64 && twg <= max_wg(d); twg *= 2)
        out[count++] = (sb_options){ .work_group_size = 2,
                                     .leaves_per_item = 1,
                                     .tree_work_group_size = twg,
                                     .nodes_per_item = twg == 1 ? 2 : 1 };
    for (size_t k = 0; k < COUNT(npis); k++)
        out[count++] = (sb_options){ .work_group_size = 2,
                                     .leaves_per_item = 2,
                                     .tree_work_group_size = 4,
                                     .nodes_per_item = npis[k] };
    return count;
}

/* Many work-groups and a fan-in of 2 or 4 per pass over partials: the
 * final reduction takes three passes or more. */
static size_t multi_pass_shapes(const test_device *d, sb_options *out)
{
    (void)d;
    static const sb_options shapes[] = {
        { .work_group_size = 1, .leaves_per_item = 1,
          .tree_work_group_size = 1, .nodes_per_item = 2 },
        { .work_group_size = 2, .leaves_per_item = 1,
          .tree_work_group_size = 2, .nodes_per_item = 1 },
        { .work_group_size = 1, .leaves_per_item = 2,
          .tree_work_group_size = 2, .nodes_per_item = 2 },
        { .work_group_size = 4, .leaves_per_item = 4,
          .tree_work_group_size = 2, .nodes_per_item = 2 },
    };
    memcpy(out, shapes, sizeof shapes);
    return COUNT(shapes);
}

static size_t subgroup_shapes(const test_device *d, sb_options *out)
{
    static const unsigned lanes[] = { 4, 8, 16, 32, 64 };
    size_t count = 0;
    for (size_t k = 0; k < COUNT(lanes); k++) {
        const size_t sg = lanes[k];
        if (sg > max_wg(d))
            continue;
        /* Several sub-groups per work-group, then exactly one. */
        const size_t wg = 64 <= max_wg(d) ? 64 : max_wg(d);
        if (sg < wg)
            out[count++] = (sb_options){
                .work_group_size = wg, .leaves_per_item = 1,
                .tree_work_group_size = 64, .nodes_per_item = 2,
                .subgroups = SB_SUBGROUPS_EMULATE,
                .emulated_subgroup_size = (unsigned)sg };
        out[count++] = (sb_options){
            .work_group_size = sg, .leaves_per_item = 2,
            .tree_work_group_size = sg, .nodes_per_item = 1,
            .subgroups = SB_SUBGROUPS_EMULATE,
            .emulated_subgroup_size = (unsigned)sg };
    }
    out[count++] = (sb_options){ .work_group_size = 8, .leaves_per_item = 1,
                                 .tree_work_group_size = 8,
                                 .nodes_per_item = 2,
                                 .subgroups = SB_SUBGROUPS_OFF };
    out[count++] = (sb_options){ .subgroups = SB_SUBGROUPS_OFF };
    return count;
}

/* Seeded random combinations of everything (fan-in at least 2). */
static size_t random_shapes(const test_device *d, sb_options *out)
{
    uint64_t state = mix_seed(seed, 0x5ba9e5);
    static const unsigned per_item[] = { 1, 2, 4, 8, 16, 32, 64, 128 };
    const unsigned log_wg = floor_log2(max_wg(d));
    size_t count = 0;
    while (count < (d->oclgrind ? 8u : 6u)) {
        sb_options o = { 0 };
        o.work_group_size = (size_t)1 << random_below(&state, log_wg + 1);
        o.leaves_per_item = per_item[random_below(&state, 8)];
        o.tree_work_group_size = (size_t)1 << random_below(&state, 7);
        o.nodes_per_item = per_item[random_below(&state, 8)];
        if (o.tree_work_group_size > max_wg(d) ||
            o.tree_work_group_size * o.nodes_per_item < 2)
            continue;
        const size_t narrowest = o.work_group_size < o.tree_work_group_size
                                 ? o.work_group_size : o.tree_work_group_size;
        o.subgroups = (unsigned)random_below(&state, 3);
        if (o.subgroups == SB_SUBGROUPS_EMULATE) {
            if (narrowest < 2)
                continue;
            o.emulated_subgroup_size =
                1u << (1 + random_below(&state, floor_log2(narrowest)));
            if (o.emulated_subgroup_size > 64)
                continue;
        }
        out[count++] = o;
    }
    return count;
}

static void every_work_group_size_gives_the_same_bits(void **state)
{
    run_shapes(state, "work_group_size 1 .. max", work_group_sizes);
}

static void every_leaves_per_item_gives_the_same_bits(void **state)
{
    run_shapes(state, "leaves_per_item 1 .. 128", leaves_per_item);
}

static void every_tree_shape_gives_the_same_bits(void **state)
{
    run_shapes(state, "tree_work_group_size and nodes_per_item",
               tree_shapes);
}

static void three_or_more_passes_give_the_same_bits(void **state)
{
    run_shapes(state, "multi-pass final reduction", multi_pass_shapes);
}

static void emulated_sub_groups_give_the_same_bits(void **state)
{
    run_shapes(state, "emulated sub-groups", subgroup_shapes);
}

static void random_shapes_give_the_same_bits(void **state)
{
    run_shapes(state, "random shapes", random_shapes);
}

/* ------------------------------------------------------------------------
 * Invalid options
 * ---------------------------------------------------------------------- */

static void invalid_options_are_refused(void **state)
{
    const suite *s = *state;
    for (size_t i = 0; i < s->count; i++) {
        const test_device *d = &s->devices[i];
        const size_t max = d->caps.max_work_group_size;
        size_t too_large = 1;
        while (too_large <= max)
            too_large *= 2;
        const sb_options bad[] = {
            { .work_group_size = 3 },
            { .work_group_size = 12 },
            { .work_group_size = too_large },
            { .work_group_size = SIZE_MAX },
            { .leaves_per_item = 3 },
            { .leaves_per_item = 256 },
            { .tree_work_group_size = 6 },
            { .tree_work_group_size = too_large },
            { .nodes_per_item = 5 },
            { .nodes_per_item = 256 },
            { .subgroups = 3 },
            { .subgroups = SB_SUBGROUPS_EMULATE,
              .emulated_subgroup_size = 3 },
            { .subgroups = SB_SUBGROUPS_EMULATE,
              .emulated_subgroup_size = 1 },
            { .subgroups = SB_SUBGROUPS_EMULATE,
              .emulated_subgroup_size = 128, .work_group_size = 256,
              .tree_work_group_size = 256 },
            /* wider than the work-group, then than the tree's */
            { .subgroups = SB_SUBGROUPS_EMULATE,
              .emulated_subgroup_size = 16, .work_group_size = 8,
              .tree_work_group_size = 16 },
            { .subgroups = SB_SUBGROUPS_EMULATE,
              .emulated_subgroup_size = 16, .work_group_size = 16,
              .tree_work_group_size = 8 },
            { .flags = 1u << 7 },
        };
        for (size_t k = 0; k < COUNT(bad); k++) {
            sb_context *ctx = (sb_context *)&ctx;   /* must stay as is */
            const sb_status got = sb_context_create(d->cl_ctx, d->device,
                                                    &bad[k], &ctx);
            if (got != SB_INVALID_ARGUMENT || ctx != (sb_context *)&ctx) {
                fprintf(stderr, "on %s: sb_context_create returned %s%s "
                        "for ", d->name, status_name(got),
                        ctx != (sb_context *)&ctx ? " and set *out" : "");
                print_options(stderr, &bad[k]);
                fprintf(stderr, "\n");
                if (got == SB_OK && ctx != (sb_context *)&ctx)
                    sb_context_release(ctx);
            }
            assert_int_equal(got, SB_INVALID_ARGUMENT);
            assert_ptr_equal(ctx, (sb_context *)&ctx);
        }
        sb_context *ctx = NULL;
        assert_int_equal(sb_context_create(NULL, d->device, NULL, &ctx),
                         SB_INVALID_ARGUMENT);
        assert_int_equal(sb_context_create(d->cl_ctx, NULL, NULL, &ctx),
                         SB_INVALID_ARGUMENT);
        assert_int_equal(sb_context_create(d->cl_ctx, d->device, NULL, NULL),
                         SB_INVALID_ARGUMENT);
        assert_null(ctx);
        /* The limits themselves are valid. */
        const sb_options edges[] = {
            { .work_group_size = device_max_work_group_size(d, SIZE_MAX) },
            { .leaves_per_item = 128, .nodes_per_item = 128 },
            { .tree_work_group_size = 1, .nodes_per_item = 2 },
            { .subgroups = SB_SUBGROUPS_EMULATE,
              .emulated_subgroup_size = 2, .work_group_size = 2,
              .tree_work_group_size = 2 },
        };
        for (size_t k = 0; k < COUNT(edges); k++) {
            assert_int_equal(sb_context_create(d->cl_ctx, d->device,
                                               &edges[k], &ctx), SB_OK);
            sb_context_release(ctx);
        }
    }
}

/* ------------------------------------------------------------------------
 * One node per pass
 * ---------------------------------------------------------------------- */

static const char hang_message[] =
    "\nsb_reduce did not return within 30 s with tree_work_group_size = 1 "
    "and nodes_per_item = 1 (both valid) and several work-groups: a pass "
    "over partials with a fan-in of 1 never shrinks them (the loops in "
    "enqueue_chain, src/device_reduce.c, never end).\n";

static void on_alarm(int signal_number)
{
    (void)signal_number;
    /* Only async-signal-safe calls here. */
    if (write(STDERR_FILENO, hang_message, sizeof hang_message - 1) < 0)
        _exit(3);
    _exit(1);
}

/* tree_work_group_size = 1 with nodes_per_item = 1 is a valid shape whose
 * passes over partials have a fan-in of one. The call must still finish,
 * with the bits of the host. Run last: a hang ends the program (after 30 s,
 * with a message) instead of reaching ctest's timeout. */
static void a_fan_in_of_one_still_finishes(void **state)
{
    const suite *s = *state;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);
    unsigned long wrong = 0;
    for (size_t i = 0; i < s->count; i++) {
        const test_device *d = &s->devices[i];
        const sb_options o = { .flags = SB_OPT_NO_HOST,
                               .work_group_size = 1, .leaves_per_item = 1,
                               .tree_work_group_size = 1,
                               .nodes_per_item = 1 };
        device_context dc;
        assert_int_equal(device_context_open(&dc, d, &o), SB_OK);
        static const size_t sizes[] = { 16, 33, 100 };   /* 1, 3, 7 groups */
        for (size_t z = 0; z < COUNT(sizes); z++) {
            const test_case c = make_case(seed, core[0].r, sizes[z],
                                          MASK_NONE, FAMILY_UNIFORM);
            alarm(30);
            wrong += !check_on_device(&dc, &c, RUN_BOTH, NULL);
            alarm(0);
        }
        device_context_close(&dc);
    }
    assert_int_equal(wrong, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(invalid_options_are_refused),
        cmocka_unit_test(every_work_group_size_gives_the_same_bits),
        cmocka_unit_test(every_leaves_per_item_gives_the_same_bits),
        cmocka_unit_test(every_tree_shape_gives_the_same_bits),
        cmocka_unit_test(three_or_more_passes_give_the_same_bits),
        cmocka_unit_test(emulated_sub_groups_give_the_same_bits),
        cmocka_unit_test(random_shapes_give_the_same_bits),
        cmocka_unit_test(a_fan_in_of_one_still_finishes),
    };
    seed = test_seed(20240611u);
    return cmocka_run_group_tests_name("device_shapes", tests, device_list_setup,
                                       device_list_teardown);
}
