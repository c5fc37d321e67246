/* tests/test_device_partial.c: sb_partial_add(), pieces of one array in
 * device buffers, finish with the oracle's bits and status.
 *
 * The whole array sits in one buffer per device (after random padding, so
 * offsets are exercised), cut into 1 to 64 pieces; each piece is appended
 * from that buffer with
 * sb_partial_add() on one of the devices present (POCL, Oclgrind,
 * rusticl: several devices in one reduction when there are several) or,
 * for some pieces, from host memory with sb_partial_add_host(); the
 * partials are merged in a random grouping (seeded, printed). Contexts:
 * SB_OPT_NO_HOST (every aligned subtree of the piece launched on the
 * device) and host_max_n = 64 (small subtrees read back). Then the two
 * checked i64 sums of the partial issue at every pair of cuts, and bad
 * calls, which must leave the partial as it was. */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "device_support.h"
#include "oracle.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { MAX_PIECES = 64, PAD = 37, CONTEXTS_PER_DEVICE = 2 };

static uint64_t seed;

typedef struct {
    device_list     list;                /* first: device_suite_new() */
    device_context *contexts;            /* CONTEXTS_PER_DEVICE per device */
    size_t          context_count;
} suite;

static int setup(void **state)
{
    suite *s = device_suite_new(sizeof *s);
    if (s == NULL)
        return -1;
    s->contexts = calloc(s->list.count * CONTEXTS_PER_DEVICE,
                         sizeof *s->contexts);
    if (s->contexts == NULL)
        return -1;
    const sb_options no_host = { .flags = SB_OPT_NO_HOST };
    const sb_options small_host = { .host_max_n = 64 };
    for (size_t d = 0; d < s->list.count; d++) {
        const sb_options *o[CONTEXTS_PER_DEVICE] = { &no_host, &small_host };
        for (size_t k = 0; k < CONTEXTS_PER_DEVICE; k++) {
            device_context *dc = &s->contexts[s->context_count];
            if (device_context_open(dc, &s->list.devices[d], o[k]) != SB_OK)
                return -1;
            s->context_count++;
        }
    }
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    suite *s = *state;
    for (size_t i = 0; i < s->context_count; i++)
        device_context_close(&s->contexts[i]);
    free(s->contexts);
    device_suite_free(s);
    return 0;
}

/* The array on every device: x after PAD elements, mask after PAD bytes. */
typedef struct {
    cl_mem x[8], mask[8];
} placed;

static placed place(const suite *s, const test_case *c, const void *x,
                    const unsigned char *mask)
{
    placed p;
    memset(&p, 0, sizeof p);
    const size_t size = type_size(c->r.input), n = c->n;
    unsigned char *bx = checked_malloc((n + 2 * PAD) * size);
    unsigned char *bm = checked_malloc(n + 2 * PAD);
    memset(bx, 0xA5, (n + 2 * PAD) * size);
    memset(bm, 0x01, n + 2 * PAD);
    memcpy(bx + PAD * size, x, n * size);
    if (mask != NULL)
        memcpy(bm + PAD, mask, n);
    for (size_t d = 0; d < s->list.count && d < COUNT(p.x); d++) {
        p.x[d] = make_buffer(&s->list.devices[d], (n + 2 * PAD) * size, bx);
        p.mask[d] = mask ? make_buffer(&s->list.devices[d], n + 2 * PAD, bm)
                         : NULL;
    }
    free(bm);
    free(bx);
    return p;
}

static void unplace(placed *p)
{
    for (size_t d = 0; d < COUNT(p->x); d++) {
        if (p->x[d]) clReleaseMemObject(p->x[d]);
        if (p->mask[d]) clReleaseMemObject(p->mask[d]);
    }
}

/* Cuts [0, n) at cuts[0..k), appends each piece on a context (or the
 * host) drawn from *rs, merges in a random grouping, and compares with
 * the oracle. @return 1 if it disagreed. */
static unsigned long check_pieces(const suite *s, const test_case *c,
                                  const placed *p, const void *x,
                                  const unsigned char *mask,
                                  sb_status want_status,
                                  const unsigned char *want,
                                  const size_t *cuts, size_t k, uint64_t *rs)
{
    static sb_partial piece[MAX_PIECES];
    size_t bounds[MAX_PIECES + 1], where[MAX_PIECES];
    const size_t size = type_size(c->r.input);
    bounds[0] = 0;
    for (size_t i = 0; i < k; i++)
        bounds[i + 1] = cuts[i];
    bounds[k + 1] = c->n;
    size_t count = k + 1;
    for (size_t i = 0; i < count; i++) {
        const size_t len = bounds[i + 1] - bounds[i];
        /* context_count: the host. */
        where[i] = (size_t)random_below(rs, s->context_count + 1);
        assert_int_equal(sb_partial_init(&piece[i], c->r, bounds[i]), SB_OK);
        sb_status st;
        if (where[i] == s->context_count) {
            st = sb_partial_add_host(&piece[i],
                                     (const unsigned char *)x + bounds[i] * size,
                                     mask ? mask + bounds[i] : NULL, len);
        } else {
            const device_context *dc = &s->contexts[where[i]];
            const size_t d = where[i] / CONTEXTS_PER_DEVICE;
            st = sb_partial_add(dc->ctx, NULL, &piece[i], p->x[d],
                                PAD + bounds[i], p->mask[d], PAD + bounds[i],
                                len);
        }
        if (st != SB_OK) {
            print_case(stderr, c);
            fprintf(stderr, "  piece %zu [%zu, %zu) on %zu: %s (%s)\n", i,
                    bounds[i], bounds[i + 1], where[i], status_name(st),
                    sb_error_detail());
            return 1;
        }
    }
    while (count > 1) {
        const size_t i = (size_t)random_below(rs, count - 1);
        assert_int_equal(sb_partial_merge(&piece[i], &piece[i + 1]), SB_OK);
        memmove(&piece[i + 1], &piece[i + 2],
                (count - i - 2) * sizeof piece[0]);
        count--;
    }
    unsigned char got[RESULT_BUFFER];
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status gs = sb_partial_finish(&piece[0], got);
    if (gs == want_status && bits_equal(want, got, sizeof got))
        return 0;
    print_case(stderr, c);
    fprintf(stderr, "  pieces:");
    for (size_t i = 0; i <= k; i++)
        fprintf(stderr, " [%zu, %zu) on %s", bounds[i], bounds[i + 1],
                where[i] == s->context_count ? "host"
                    : s->contexts[where[i]].dev->name);
    fputc('\n', stderr);
    print_run("oracle", c->r, want_status, want);
    print_run("partials", c->r, gs, got);
    return 1;
}

static bool any_simulator(const suite *s)
{
    for (size_t d = 0; d < s->list.count; d++)
        if (s->list.devices[d].oclgrind)
            return true;
    return false;
}

static const struct {
    sb_reduction r;
    data_family  families[2];
} reductions[] = {
    { { SB_SUM, SB_F32, 0, 0, 0 }, { FAMILY_CANCELLATION, FAMILY_SPECIALS } },
    { { SB_SUM, SB_F64, 0, 0, 0 }, { FAMILY_HUGE_RANGE, FAMILY_SUBNORMAL } },
    { { SB_SUM, SB_F32, SB_F64, 0, 0 }, { FAMILY_SUBNORMAL, FAMILY_UNIFORM } },
    { { SB_PROD, SB_F32, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_SPECIALS } },
    { { SB_MIN, SB_F32, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_SPECIALS } },
    { { SB_MAX, SB_F64, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SPECIALS } },
    { { SB_SUM, SB_I64, 0, 0, 0 }, { FAMILY_SUM_EDGE, FAMILY_LIMITS } },
    { { SB_SUM, SB_I32, 0, 0, 0 }, { FAMILY_SUM_EDGE, FAMILY_UNIFORM } },
    { { SB_SUM, SB_I16, 0, SB_WRAP, 0 }, { FAMILY_LIMITS, FAMILY_ALTERNATING } },
    { { SB_PROD, SB_I32, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_LIMITS } },
    { { SB_MIN, SB_I8, SB_I64, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM } },
    { { SB_MAX, SB_U64, 0, 0, 0 }, { FAMILY_LIMITS, FAMILY_HUGE_RANGE } },
    { { SB_ANY, SB_F32, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SUBNORMAL } },
    { { SB_ALL, SB_I16, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_LIMITS } },
};

static void pieces_on_devices_match_the_oracle(void **state)
{
    const suite *s = *state;
    const bool slow = any_simulator(s);
    static const size_t sizes[] = { 0, 1, 17, 33, 256, 1000, 4097, 70001 };
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_EMPTY_LEAVES, MASK_ALL_ZERO };
    unsigned long wrong = 0, cases = 0, skipped_types = 0;
    for (size_t ri = 0; ri < COUNT(reductions); ri++) {
        bool exact = true;
        for (size_t d = 0; d < s->list.count; d++)
            exact &= type_is_exact_on(&s->list.devices[d], reductions[ri].r.input) &&
                     (reductions[ri].r.accumulator == 0 ||
                      type_is_exact_on(&s->list.devices[d],
                                       reductions[ri].r.accumulator));
        if (!exact) {   /* a device refuses it: sb_partial_add must too */
            skipped_types++;
            continue;
        }
        for (size_t z = 0; z < COUNT(sizes); z++)
            for (size_t fi = 0; fi < 2; fi++) {
                if (slow && sizes[z] > 5000)
                    continue;
                const mask_kind mk = masks[(z + fi + ri) % COUNT(masks)];
                const test_case c = make_case(seed, reductions[ri].r,
                                              sizes[z], mk,
                                              reductions[ri].families[fi]);
                const size_t n = c.n;
                unsigned char *x = checked_malloc(n * type_size(c.r.input) + 1);
                fill_data(c.family, c.r.input, c.r.accumulator, x, n,
                          c.case_seed);
                unsigned char *mask = make_mask(mk, n, c.case_seed);
                unsigned char want[RESULT_BUFFER];
                memset(want, RESULT_SENTINEL, sizeof want);
                const sb_status ws = oracle_reduce(c.r, x, mask, n, want);
                placed p = place(s, &c, x, mask);
                uint64_t rs = c.case_seed;
                const int tries = slow ? 3 : 8;
                for (int t = 0; t < tries; t++) {
                    /* 1 to 6 pieces; the first try at n >= 1000, 32 to
                     * 64 (a launch or a read-back each: kept to those). */
                    size_t cuts[MAX_PIECES - 1];
                    const size_t k = t == 0 && n >= 1000
                                   ? 31 + (size_t)random_below(&rs, 33)
                                   : (size_t)random_below(&rs, 6);
                    random_cuts(&rs, n, k, cuts);
                    wrong += check_pieces(s, &c, &p, x, mask, ws, want, cuts,
                                          k, &rs);
                    cases++;
                }
                unplace(&p);
                free(mask);
                free(x);
            }
    }
    printf("device partials: %lu cuts and groupings over %zu contexts, "
           "%lu wrong; %lu reductions a device here refuses\n", cases,
           s->context_count, wrong, skipped_types);
    assert_int_equal(wrong, 0);
    assert_true(cases > 0);
}

static void overflow_statuses_survive_device_cuts(void **state)
{
    const suite *s = *state;
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    /* Leaves of one element at 0, 16, 32, 48, as in test_partial.c: the
     * first overflows in the tree only, the second left to right only. */
    const int64_t leaves[2][4] = { { -1, 0, INT64_MAX, 1 },
                                   { 0, INT64_MAX, 1, -1 } };
    const size_t step = any_simulator(s) ? 7 : 1;
    unsigned long wrong = 0, cases = 0;
    for (size_t k = 0; k < 2; k++) {
        if (!type_is_exact_on(&s->list.devices[0], SB_I64))
            break;
        int64_t x[64] = { 0 };
        for (int l = 0; l < 4; l++)
            x[16 * l] = leaves[k][l];
        const test_case c = make_case(seed, r, 64, MASK_NONE, FAMILY_LIMITS);
        unsigned char want[RESULT_BUFFER];
        memset(want, RESULT_SENTINEL, sizeof want);
        const sb_status ws = oracle_reduce(r, x, NULL, 64, want);
        assert_int_equal(ws, k == 0 ? SB_OVERFLOW : SB_OK);
        placed p = place(s, &c, x, NULL);
        uint64_t rs = seed + k;
        for (size_t a = 0; a <= 64; a += step)
            for (size_t b = a; b <= 64; b += step) {
                const size_t cuts[2] = { a, b };
                wrong += check_pieces(s, &c, &p, x, NULL, ws, want, cuts, 2,
                                      &rs);
                cases++;
            }
        unplace(&p);
    }
    printf("i64 overflow order: %lu cut pairs, %lu wrong\n", cases, wrong);
    assert_int_equal(wrong, 0);
}

static void bad_device_calls_change_nothing(void **state)
{
    const suite *s = *state;
    const device_context *dc = &s->contexts[0];
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    float data[40];
    for (int i = 0; i < 40; i++)
        data[i] = (float)i + 0.25f;
    cl_mem x = make_buffer(dc->dev, sizeof data, data);
    sb_partial p, before;
    assert_int_equal(sb_partial_init(&p, sum, 3), SB_OK);
    assert_int_equal(sb_partial_add(dc->ctx, NULL, &p, x, 0, NULL, 0, 5),
                     SB_OK);
    memcpy(&before, &p, sizeof p);
    /* Past the buffer's end, overflow-safe. */
    assert_int_equal(sb_partial_add(dc->ctx, NULL, &p, x, 30, NULL, 0, 11),
                     SB_INVALID_ARGUMENT);
    assert_true(strstr(sb_error_detail(), "past its end") != NULL);
    assert_int_equal(sb_partial_add(dc->ctx, NULL, &p, x, SIZE_MAX, NULL, 0,
                                    2), SB_INVALID_ARGUMENT);
    assert_memory_equal(&p, &before, sizeof p);
    /* NULL context, NULL buffer, a partial of nothing. */
    assert_int_equal(sb_partial_add(NULL, NULL, &p, x, 0, NULL, 0, 1),
                     SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_add(dc->ctx, NULL, &p, NULL, 0, NULL, 0, 1),
                     SB_INVALID_ARGUMENT);
    sb_partial junk;
    memset(&junk, 0x33, sizeof junk);
    assert_int_equal(sb_partial_add(dc->ctx, NULL, &junk, x, 0, NULL, 0, 1),
                     SB_INVALID_ARGUMENT);
    assert_int_equal(sb_partial_add(dc->ctx, NULL, NULL, x, 0, NULL, 0, 1),
                     SB_INVALID_ARGUMENT);
    /* A mask buffer too short for the range. */
    cl_mem short_mask = make_buffer(dc->dev, 4, "\1\1\1\1");
    assert_int_equal(sb_partial_add(dc->ctx, NULL, &p, x, 0, short_mask, 0,
                                    8), SB_INVALID_ARGUMENT);
    assert_memory_equal(&p, &before, sizeof p);
    /* The same piece from the host gives the same bytes. */
    sb_partial h;
    assert_int_equal(sb_partial_init(&h, sum, 3), SB_OK);
    assert_int_equal(sb_partial_add_host(&h, data, NULL, 5), SB_OK);
    assert_memory_equal(&h, &before, sizeof h);
    clReleaseMemObject(short_mask);
    clReleaseMemObject(x);
}

/* f16 and bf16 on devices: sb_partial_add() and sb_partial_add_dot()
 * pieces (device subtrees, whose half results enter the partial as the
 * host's float nodes, and host runs) finish with sb_reduce_host()'s and
 * sb_dot_host()'s bits. tests/test_device_half.c covers them at length. */
static void half_types_on_devices_match_the_host(void **state)
{
    const suite *s = *state;
    const device_context *dc = &s->contexts[0];
    uint16_t data[40];
    for (int i = 0; i < 40; i++)   /* 1, 1.25, ..., as f16 and as bf16 */
        data[i] = (uint16_t)(i % 2 ? 0x3C00 + 0x100 * (i % 5)
                                   : 0x3F80 + 0x10 * (i % 7));
    cl_mem x = make_buffer(dc->dev, sizeof data, data);
    const sb_reduction rs[] = {
        { .op = SB_SUM, .input = SB_F16 },
        { .op = SB_SUM, .input = SB_BF16, .accumulator = SB_F32 },
        { .op = SB_MAX, .input = SB_F16, .accumulator = SB_F64 },
        { .op = SB_ALL, .input = SB_BF16 },
    };
    for (size_t k = 0; k < sizeof rs / sizeof *rs; k++)
        for (size_t n = 0; n <= 40; n += 20)
            for (int dot = 0; dot <= (rs[k].op == SB_SUM); dot++) {
                sb_partial p;
                assert_int_equal(sb_partial_init(&p, rs[k], 0), SB_OK);
                const size_t cut = n / 3;
                for (int piece = 0; piece < 2; piece++) {
                    const size_t at = piece ? cut : 0;
                    const size_t len = piece ? n - cut : cut;
                    assert_int_equal(dot
                        ? sb_partial_add_dot(dc->ctx, NULL, &p, x, at, x, at,
                                             NULL, 0, len)
                        : sb_partial_add(dc->ctx, NULL, &p, x, at, NULL, 0,
                                         len), SB_OK);
                }
                unsigned char got[RESULT_BUFFER], want[RESULT_BUFFER];
                memset(got, RESULT_SENTINEL, sizeof got);
                memset(want, RESULT_SENTINEL, sizeof want);
                const sb_status ws = dot
                    ? sb_dot_host(rs[k], data, data, NULL, n, want)
                    : sb_reduce_host(rs[k], data, NULL, n, want);
                assert_int_equal(sb_partial_finish(&p, got), ws);
                assert_memory_equal(got, want, sizeof got);
            }
    clReleaseMemObject(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(half_types_on_devices_match_the_host),
        cmocka_unit_test(pieces_on_devices_match_the_oracle),
        cmocka_unit_test(overflow_statuses_survive_device_cuts),
        cmocka_unit_test(bad_device_calls_change_nothing),
    };
    seed = test_seed(20261202u);
    printf("seed %llu (SAMEBITS_TEST_SEED replays it)\n",
           (unsigned long long)seed);
    return cmocka_run_group_tests_name("device partial", tests, setup,
                                       teardown);
}
