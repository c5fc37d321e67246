/* tests/test_device_maps.c: element maps (SB_MAP_ABS, SB_MAP_SQUARE),
 * SB_SKIP_NAN and dot products on every device present, bit for bit
 * (memcmp of the whole result buffer) and status for status against the
 * host path, sb_reduce_host() and sb_dot_host().
 *
 * Per device, two contexts: SB_OPT_NO_HOST with the device's shape (every
 * size launches; on a CPU the lane-leaves, eight-leaf and order-free item
 * folds), and host_max_n = 64 with four leaves per item (a GPU's shape:
 * the four-leaf folds; n <= 64 takes the host shortcut's read-back).
 * Then the float modes (guarded, software f64, a flushing device) on a
 * subset, sb_dot_enqueue()'s record, sb_partial_add_dot() pieces at
 * random cuts merged with host pieces, and sb_dot()'s bad inputs; and
 * whole blocks with masks and NaNs skipped (tests/support.h's NaN-block
 * layouts) against tests/oracle.c itself. Data:
 * tests/support.h's adversarial families and masks, at sizes around the
 * leaf, the groups, powers of two and one large size (POCL; Oclgrind, a
 * simulator, runs a third of the reductions at the small sizes). The seed
 * is printed (SAMEBITS_TEST_SEED replays it). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "device_support.h"
#include "oracle.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { X_PAD = 3, Y_PAD = 5, M_PAD = 7, MAX_PIECES = 24 };

static uint64_t seed;

/* A reduction and whether it is a dot product. */
typedef struct {
    sb_reduction r;
    bool         dot;
} job;

#define R(op_, in_, acc_, flags_, map_) \
    { { .op = SB_##op_, .input = SB_##in_, .accumulator = acc_, \
        .flags = flags_, .map = SB_MAP_##map_ }, false }
#define D(in_, acc_, flags_) \
    { { .op = SB_SUM, .input = SB_##in_, .accumulator = acc_, \
        .flags = flags_ }, true }

/* A covering set rather than the cross product: every op with each map on
 * floats and on integers, every type named in the brief, each program
 * costing a compile per work-group size on a cold POCL cache. */
static const job jobs[] = {
    /* maps */
    R(SUM, F32, 0, 0, ABS), R(SUM, F32, 0, 0, SQUARE),
    R(PROD, F32, 0, 0, SQUARE), R(MIN, F32, 0, 0, ABS),
    R(MAX, F32, 0, 0, SQUARE),
    R(SUM, F64, 0, 0, SQUARE), R(MAX, F64, 0, 0, ABS),
    R(PROD, F64, 0, 0, ABS),
    R(SUM, F32, SB_F64, 0, SQUARE), R(MIN, F32, SB_F64, 0, SQUARE),
    R(SUM, I32, 0, 0, SQUARE), R(MAX, I32, 0, 0, ABS),
    R(MIN, I32, 0, 0, SQUARE), R(PROD, I32, 0, 0, ABS),
    R(SUM, I32, 0, SB_WRAP, ABS), R(MAX, I32, 0, SB_WRAP, SQUARE),
    R(SUM, I32, SB_I64, 0, SQUARE), R(MAX, I16, 0, 0, ABS),
    R(SUM, U8, SB_U32, 0, SQUARE),
    /* checked maps whose every term fits (order-free items on a CPU
     * device, the sum's window on the terms) */
    R(SUM, I32, SB_I64, 0, ABS), R(MIN, I32, SB_I64, 0, ABS),
    R(MAX, I32, SB_I64, 0, SQUARE),
    /* integers into floats (in lanes on a CPU device) */
    R(SUM, I16, SB_F32, 0, SQUARE), R(MAX, I8, SB_F64, 0, ABS),
    R(SUM, I32, SB_F64, 0, ABS),
    /* SB_SKIP_NAN with every op */
    R(SUM, F32, 0, SB_SKIP_NAN, NONE), R(PROD, F64, 0, SB_SKIP_NAN, NONE),
    R(MIN, F32, 0, SB_SKIP_NAN, NONE), R(MAX, F64, 0, SB_SKIP_NAN, NONE),
    R(ANY, F32, 0, SB_SKIP_NAN, NONE), R(ALL, F64, 0, SB_SKIP_NAN, NONE),
    R(SUM, F32, 0, SB_SKIP_NAN, SQUARE),
    /* dot products */
    D(F32, 0, 0), D(F64, 0, 0), D(F32, SB_F64, 0), D(I32, 0, 0),
    D(I32, 0, SB_WRAP), D(I16, SB_I64, 0), D(F32, 0, SB_SKIP_NAN),
    D(I32, SB_F64, 0), D(U16, SB_F32, 0), D(I32, SB_I64, 0),
};

/* The float modes' subset (its f64 rows take the software mode on a
 * device without fp64, as every f64 reduction does there). */
static const job mode_jobs[] = {
    R(SUM, F32, 0, 0, SQUARE), R(MAX, F32, 0, 0, ABS),
    R(SUM, F64, 0, 0, SQUARE), R(SUM, F32, 0, SB_SKIP_NAN, NONE),
    D(F32, 0, 0), D(F64, 0, 0),
};

static const data_family families[] = {
    FAMILY_CANCELLATION, FAMILY_HUGE_RANGE, FAMILY_SUBNORMAL,
    FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS, FAMILY_LIMITS, FAMILY_UNIFORM,
    FAMILY_PROD_EDGE, FAMILY_SUM_EDGE, FAMILY_NEGATIVE_ZERO,
};

static const size_t pocl_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257,
    511, 513, 1023, 1024, 1025, 4095, 4096, 4097, 65535, 65536, 65537, 100003,
};
static const size_t small_sizes[] = { 0, 1, 15, 16, 17, 31, 32, 33, 64, 65,
                                      129 };

/* The portable stage (rusticl, a flushing POCL: tests/portable_tests.cmake)
 * runs in software and guarded modes, slower: it leaves out the largest
 * sizes. */
static bool portable_run(const test_device *d)
{
    const char *flush = getenv("SAMEBITS_TEST_FLUSH_SUBNORMALS");
    const char *mode = getenv("SAMEBITS_TEST_FLOAT_MODE");
    return strstr(d->name, "rusticl") != NULL || (flush && *flush == '1')
        || (mode && *mode && strcmp(mode, "auto") != 0);
}

static const char *job_name(const job *j, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s %s->%s map %d flags 0x%x",
             j->dot ? "dot " : "", op_name(j->r.op), type_name(j->r.input),
             type_name(j->r.accumulator), (int)j->r.map, j->r.flags);
    return buf;
}

/* One case's host data: x, y (dot) and the mask. */
typedef struct {
    size_t         n;
    void          *x, *y;
    unsigned char *mask;   /* NULL: none */
} host_data;

static host_data make_data(const job *j, size_t n, data_family f,
                           mask_kind mk, uint64_t s)
{
    const size_t es = type_size(j->r.input);
    host_data h = { n, checked_malloc(n * es + 1), NULL, NULL };
    fill_data(f, j->r.input, j->r.accumulator, h.x, n, s);
    if (j->dot) {
        h.y = checked_malloc(n * es + 1);
        /* The other factor from another family now and then, so that
         * specials meet ordinary values. */
        fill_data(s % 3 == 0 ? FAMILY_UNIFORM : f, j->r.input,
                  j->r.accumulator, h.y, n, mix_seed(s, 1));
    }
    h.mask = make_mask(mk, n, mix_seed(s, 2));
    return h;
}

static void free_data(host_data *h)
{
    free(h->x);
    free(h->y);
    free(h->mask);
}

/* The case in buffers of the device, after padding (offsets exercised). */
typedef struct {
    cl_mem x, y, mask;
} placed;

static placed place(const test_device *d, const job *j, const host_data *h)
{
    const size_t es = type_size(j->r.input);
    placed p = { padded_copy(d, h->x, h->n * es, X_PAD * es), NULL, NULL };
    if (j->dot)
        p.y = padded_copy(d, h->y, h->n * es, Y_PAD * es);
    if (h->mask)
        p.mask = padded_copy(d, h->mask, h->n, M_PAD);
    return p;
}

static void unplace(placed *p)
{
    clReleaseMemObject(p->x);
    if (p->y)
        clReleaseMemObject(p->y);
    if (p->mask)
        clReleaseMemObject(p->mask);
}

static sb_status host_run(const job *j, const host_data *h, void *res)
{
    return j->dot ? sb_dot_host(j->r, h->x, h->y, h->mask, h->n, res)
                  : sb_reduce_host(j->r, h->x, h->mask, h->n, res);
}

static sb_status device_run(const device_context *dc, const job *j,
                            const placed *p, size_t n, void *res)
{
    return j->dot
        ? sb_dot(dc->ctx, NULL, j->r, p->x, X_PAD, p->y, Y_PAD, p->mask,
                 M_PAD, n, res)
        : sb_reduce(dc->ctx, NULL, j->r, p->x, X_PAD, p->mask, M_PAD, n, res);
}

/* One case on one context: statuses equal, result buffers equal. */
static bool check_case(const device_context *dc, const job *j, size_t n,
                       data_family f, mask_kind mk, uint64_t s,
                       sb_status *host_status)
{
    host_data h = make_data(j, n, f, mk, s);
    placed p = place(dc->dev, j, &h);
    unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status hs = host_run(j, &h, want);
    const sb_status ds = device_run(dc, j, &p, n, got);
    *host_status = hs;
    const bool ok = hs == ds && memcmp(want, got, sizeof want) == 0;
    if (!ok) {
        char name[96];
        fprintf(stderr, "MISMATCH %s: %s n=%zu family=%s mask=%s seed=0x%llx"
                " case=0x%llx (%s)\n", dc->dev->name,
                job_name(j, name, sizeof name), n, family_name(f),
                mask_name(mk), (unsigned long long)seed,
                (unsigned long long)s, sb_error_detail());
        print_run("host", j->r, hs, want);
        print_run("device", j->r, ds, got);
    }
    unplace(&p);
    free_data(&h);
    return ok;
}

/* Every job at every size on one context, with families and masks in
 * turn (half the cases unmasked, so that the fast folds run). */
static int run_jobs(const device_context *dc, const job *list, size_t count,
                    const size_t *sizes, size_t size_count, unsigned every,
                    tally *t)
{
    int failures = 0;
    for (size_t k = 0; k < count; k += every)
        for (size_t s = 0; s < size_count; s++)
            for (unsigned rep = 0; rep < 2; rep++) {
                /* Sparse (SAMEBITS_TEST_SPARSE): one of the two, in
                 * turn; by s / 2, since (k + s) % 2 chose only even
                 * families (at is 7k + 3s + rep) and two masks. */
                if (dc->dev->sparse && rep != (k + s / 2) % 2)
                    continue;
                const size_t at = k * 7 + s * 3 + rep;
                const data_family f = families[at % COUNT(families)];
                const mask_kind mk = rep == 0 ? MASK_NONE
                    : (mask_kind)(1 + (k + s) % (MASK_COUNT - 1));
                const uint64_t cs = mix_seed(seed, at * 1000003u + sizes[s]);
                sb_status hs;
                const bool ok = check_case(dc, &list[k], sizes[s], f, mk, cs,
                                           &hs);
                failures += !ok;
                tally_add(t, hs, ok);
            }
    return failures;
}

static void maps_skip_nan_and_dot_match_the_host(void **state)
{
    const device_list *list = *state;
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o[2] = {
            { .flags = SB_OPT_NO_HOST },
            { .host_max_n = 64, .leaves_per_item = 4 },
        };
        for (size_t c = 0; c < 2; c++) {
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &o[c]), SB_OK);
            tally t = { 0 };
            if (dev->oclgrind)
                failures += run_jobs(&dc, jobs, COUNT(jobs), small_sizes,
                                     c == 0 ? 7 : 5, 3, &t);
            else
                failures += run_jobs(&dc, jobs, COUNT(jobs), pocl_sizes,
                                     COUNT(pocl_sizes) -
                                     (c == 1 || portable_run(dev) ? 4 : 0),
                                     1, &t);
            printf("%s, context %zu: ", dev->name, c);
            print_tally("maps", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* Whole blocks with a mask or skipping NaNs, where a CPU device folds
 * SB_LANES leaves side by side with the elements that do not take part
 * replaced by the identity (cl/reduce.cl, sb_lane_leaves_masked()), and
 * falls back to leaf by leaf where a leaf has none or (min, max) a NaN
 * takes part: tests/support.h's NaN-block layouts, which empty leaves and
 * whole blocks, against the oracle on the device's own shape; on Oclgrind
 * with 16 leaves per item, so that the masked jobs without NaN skipping
 * fold in lanes there too (its own shape has 4; it folds no NaN-skipping
 * program in lanes), f16 converted by the kernels' own arithmetic rather
 * than POCL's F16C loads. */
static const job nan_block_jobs[] = {
    R(SUM, F32, 0, SB_SKIP_NAN, NONE), R(MIN, F32, 0, SB_SKIP_NAN, NONE),
    R(MAX, F64, 0, SB_SKIP_NAN, NONE), R(SUM, F64, 0, SB_SKIP_NAN, NONE),
    R(SUM, F16, SB_F32, SB_SKIP_NAN, NONE), R(MIN, BF16, SB_F32, SB_SKIP_NAN, NONE),
    R(SUM, F16, 0, SB_SKIP_NAN, NONE), R(MAX, F32, 0, SB_SKIP_NAN, ABS),
    R(SUM, F32, 0, 0, NONE), R(MIN, F32, 0, 0, NONE), R(MAX, F64, 0, 0, NONE),
    D(F32, 0, SB_SKIP_NAN),
    /* into f64, converted as they load */
    R(SUM, F32, SB_F64, SB_SKIP_NAN, NONE), R(MAX, F32, SB_F64, 0, NONE),
    R(SUM, F16, SB_F64, SB_SKIP_NAN, NONE), R(MIN, F16, SB_F64, SB_SKIP_NAN, NONE),
    R(SUM, BF16, SB_F64, SB_SKIP_NAN, SQUARE), D(F32, SB_F64, 0),
    R(SUM, F16, SB_F64, 0, NONE),
};

static void masked_and_nan_skipping_blocks_match_the_oracle(void **state)
{
    const device_list *list = *state;
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_ALTERNATE_LEAVES };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o = { .flags = SB_OPT_NO_HOST,
                               .leaves_per_item = dev->oclgrind ? 16 : 0 };
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, &o), SB_OK);
        /* A simulator: one block and a half. */
        const size_t n = dev->oclgrind ? 4096 + 2048 + 5 : 3 * 4096 + 2048 + 5;
        tally t = { 0 };
        for (size_t k = 0; k < COUNT(nan_block_jobs); k++) {
            const job *j = &nan_block_jobs[k];
            for (int layout = 0; layout < NAN_BLOCK_LAYOUTS; layout++)
                for (size_t m = 0; m < COUNT(masks); m++) {
                    /* NaNs taking part: masked, with NaNs sprinkled
                     * (layout 0) and with none (3), which a sum shows. */
                    if (j->r.flags == 0 && ((layout != 0 && layout != 3)
                                            || masks[m] == MASK_NONE))
                        continue;
                    const uint64_t cs = mix_seed(seed, 7000 + k * 64 + layout * 8 + m);
                    const size_t es = type_size(j->r.input);
                    host_data h = { n, checked_malloc(n * es + 1), NULL, NULL };
                    fill_nan_blocks(j->r.input, h.x, n, layout, cs);
                    if (j->dot) {
                        h.y = checked_malloc(n * es + 1);
                        fill_nan_blocks(j->r.input, h.y, n, 3, mix_seed(cs, 1));
                    }
                    h.mask = make_mask(masks[m], n, mix_seed(cs, 2));
                    placed p = place(dev, j, &h);
                    unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
                    memset(want, RESULT_SENTINEL, sizeof want);
                    memset(got, RESULT_SENTINEL, sizeof got);
                    const sb_status hs = j->dot
                        ? oracle_dot(j->r, h.x, h.y, h.mask, n, want)
                        : oracle_reduce(j->r, h.x, h.mask, n, want);
                    const sb_status ds = device_run(&dc, j, &p, n, got);
                    const bool ok = hs == ds && memcmp(want, got, sizeof want) == 0;
                    if (!ok) {
                        char name[96];
                        fprintf(stderr, "MISMATCH %s: %s layout %d mask %s "
                                "seed=0x%llx (%s)\n", dev->name,
                                job_name(j, name, sizeof name), layout,
                                mask_name(masks[m]), (unsigned long long)seed,
                                sb_error_detail());
                        print_run("oracle", j->r, hs, want);
                        print_run("device", j->r, ds, got);
                    }
                    failures += !ok;
                    tally_add(&t, hs, ok);
                    unplace(&p);
                    free_data(&h);
                }
        }
        printf("%s: ", dev->name);
        print_tally("masked and NaN-skipping blocks", &t);
        device_context_close(&dc);
    }
    assert_int_equal(failures, 0);
}

static void float_modes_match_the_host(void **state)
{
    const device_list *list = *state;
    static const sb_options modes[] = {
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_GUARDED },
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_SOFTWARE },
        { .flags = SB_OPT_NO_HOST | SB_OPT_FLUSH_SUBNORMALS },
    };
    static const size_t sizes[] = { 1, 17, 64, 65, 200, 4097, 40000 };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        for (size_t m = 0; m < COUNT(modes); m++) {
            if (dev->oclgrind && m > 0)
                continue;   /* slow; the portable stage forces modes there */
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &modes[m]), SB_OK);
            tally t = { 0 };
            /* Each mode where it differs from the others: guarded and the
             * flushing device for f32 input, software for f64 (an f32
             * program is the guarded one there). */
            job picked[COUNT(mode_jobs)];
            size_t count = 0;
            for (size_t k = 0; k < COUNT(mode_jobs); k++)
                if ((mode_jobs[k].r.input == SB_F64) == (m == 1))
                    picked[count++] = mode_jobs[k];
            failures += run_jobs(&dc, picked, count, sizes,
                                 dev->oclgrind ? 4 : COUNT(sizes),
                                 dev->oclgrind ? 2 : 1, &t);
            printf("%s, mode %zu: ", dev->name, m);
            print_tally("modes", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* sb_dot_enqueue(): the record at an offset, against sb_dot_host(). */
static void dot_enqueue_writes_the_record(void **state)
{
    const device_list *list = *state;
    static const job dots[] = { D(F32, 0, 0), D(I32, 0, 0),
                                D(F64, 0, SB_SKIP_NAN) };
    static const size_t sizes[] = { 0, 33, 5000 };
    for (size_t d = 0; d < list->count; d++) {
        device_context dc;
        const sb_options o = { .flags = SB_OPT_NO_HOST };
        assert_int_equal(device_context_open(&dc, &list->devices[d], &o),
                         SB_OK);
        for (size_t k = 0; k < COUNT(dots); k++)
            for (size_t s = 0; s < COUNT(sizes); s++) {
                const data_family f = s == 1 ? FAMILY_SPECIALS : FAMILY_LIMITS;
                host_data h = make_data(&dots[k], sizes[s], f, MASK_RANDOM,
                                        mix_seed(seed, 77 + k * 10 + s));
                placed p = place(dc.dev, &dots[k], &h);
                unsigned char want[8] = { 0 };
                const sb_status hs = host_run(&dots[k], &h, want);
                sb_device_result rec[3];
                memset(rec, 0xEE, sizeof rec);
                cl_mem res = make_buffer(dc.dev, sizeof rec, rec);
                cl_event done = NULL;
                assert_int_equal(sb_dot_enqueue(dc.ctx, NULL, dots[k].r, p.x,
                                 X_PAD, p.y, Y_PAD, p.mask, M_PAD, sizes[s],
                                 res, 16, 0, NULL, &done), SB_OK);
                assert_int_equal(clWaitForEvents(1, &done), CL_SUCCESS);
                clReleaseEvent(done);
                read_buffer(dc.dev, res, 0, sizeof rec, rec);
                assert_int_equal(rec[1].status, hs);
                if (hs == SB_OK)
                    assert_memory_equal(rec[1].value, want,
                                        sb_result_size(dots[k].r));
                clReleaseMemObject(res);
                unplace(&p);
                free_data(&h);
            }
        device_context_close(&dc);
    }
}

/* sb_partial_add_dot(): pieces at random cuts, some from the device and
 * some from the host, merged left to right, finish as sb_dot_host(). */
static void partial_dot_pieces_match_the_host(void **state)
{
    const device_list *list = *state;
    static const job dots[] = { D(F32, 0, 0), D(I32, 0, 0),
                                D(F64, SB_F64, SB_SKIP_NAN),
                                D(I16, SB_I64, 0) };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o[2] = { { .flags = SB_OPT_NO_HOST },
                                  { .host_max_n = 64 } };
        for (size_t c = 0; c < 2; c++) {
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &o[c]), SB_OK);
            for (size_t k = 0; k < COUNT(dots); k++) {
                uint64_t st = mix_seed(seed, 500 + d * 100 + c * 10 + k);
                const size_t n = dev->oclgrind ? 300 : 3000 + random_below(&st, 30000);
                const data_family f = families[k % COUNT(families)];
                host_data h = make_data(&dots[k], n, f, k % 2 ? MASK_RANDOM
                                        : MASK_NONE, st);
                placed p = place(dev, &dots[k], &h);
                size_t cuts[MAX_PIECES];
                const size_t pieces = 1 + random_below(&st, MAX_PIECES - 1);
                random_cuts(&st, n, pieces - 1, cuts);
                cuts[pieces - 1] = n;
                sb_partial all;
                assert_int_equal(sb_partial_init(&all, dots[k].r, 0), SB_OK);
                size_t from = 0;
                const size_t es = type_size(dots[k].r.input);
                for (size_t i = 0; i < pieces; i++) {
                    const size_t len = cuts[i] - from;
                    sb_partial piece;
                    assert_int_equal(sb_partial_init(&piece, dots[k].r, from),
                                     SB_OK);
                    sb_status s;
                    if (random_below(&st, 4) == 0)
                        s = sb_partial_add_dot_host(&piece,
                                (char *)h.x + from * es,
                                (char *)h.y + from * es,
                                h.mask ? h.mask + from : NULL, len);
                    else
                        s = sb_partial_add_dot(dc.ctx, NULL, &piece, p.x,
                                               X_PAD + from, p.y, Y_PAD + from,
                                               p.mask, M_PAD + from, len);
                    assert_int_equal(s, SB_OK);
                    assert_int_equal(sb_partial_merge(&all, &piece), SB_OK);
                    from = cuts[i];
                }
                unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
                memset(want, RESULT_SENTINEL, sizeof want);
                memset(got, RESULT_SENTINEL, sizeof got);
                const sb_status hs = host_run(&dots[k], &h, want);
                const sb_status ps = sb_partial_finish(&all, got);
                if (hs != ps || memcmp(want, got, sizeof want) != 0) {
                    char name[96];
                    fprintf(stderr, "PARTIAL MISMATCH %s: %s n=%zu pieces=%zu "
                            "host %s, partial %s\n", dev->name,
                            job_name(&dots[k], name, sizeof name), n, pieces,
                            status_name(hs), status_name(ps));
                    failures++;
                }
                unplace(&p);
                free_data(&h);
            }
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* sb_dot()'s own arguments: y is checked as x is. */
static void dot_refuses_bad_input(void **state)
{
    const device_list *list = *state;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        device_context dc;
        assert_int_equal(device_context_open(&dc, dev, NULL), SB_OK);
        float data[32] = { 1.0f };
        cl_mem x = make_buffer(dev, sizeof data, data);
        cl_mem y_short = make_buffer(dev, 16 * sizeof(float), data);
        float res = 0.0f;
        assert_int_equal(sb_dot(dc.ctx, NULL, r, x, 0, NULL, 0, NULL, 0, 32,
                                &res), SB_INVALID_ARGUMENT);
        assert_non_null(strstr(sb_error_detail(), "y is NULL"));
        assert_int_equal(sb_dot(dc.ctx, NULL, r, x, 0, y_short, 0, NULL, 0,
                                32, &res), SB_INVALID_ARGUMENT);
        assert_non_null(strstr(sb_error_detail(), "y holds"));
        assert_int_equal(sb_dot(dc.ctx, NULL, r, x, 0, y_short, 8, NULL, 0,
                                SIZE_MAX - 4, &res), SB_INVALID_ARGUMENT);
        assert_int_equal(sb_dot(dc.ctx, NULL, r, x, 0, y_short, 17, NULL, 0,
                                0, &res), SB_INVALID_ARGUMENT);
        const sb_reduction rmin = { .op = SB_MIN, .input = SB_F32 };
        assert_int_equal(sb_dot(dc.ctx, NULL, rmin, x, 0, x, 0, NULL, 0, 32,
                                &res), SB_INVALID_ARGUMENT);
        assert_non_null(strstr(sb_error_detail(), "SB_SUM"));
        cl_mem res_buf = make_buffer(dev, 16, NULL);
        assert_int_equal(sb_dot_enqueue(dc.ctx, NULL, r, x, 0, NULL, 0, NULL,
                                        0, 1, res_buf, 0, 0, NULL, NULL),
                         SB_INVALID_ARGUMENT);
        sb_partial part;
        assert_int_equal(sb_partial_init(&part, r, 0), SB_OK);
        assert_int_equal(sb_partial_add_dot(dc.ctx, NULL, &part, x, 0,
                                            y_short, 0, NULL, 0, 32),
                         SB_INVALID_ARGUMENT);
        /* y of another context: the next device's, or a context of our own. */
        cl_int err = CL_SUCCESS;
        cl_context other = clCreateContext(NULL, 1, &dev->device, NULL, NULL,
                                           &err);
        assert_int_equal(err, CL_SUCCESS);
        cl_mem foreign = clCreateBuffer(other, CL_MEM_READ_WRITE, sizeof data,
                                        NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(sb_dot(dc.ctx, NULL, r, x, 0, foreign, 0, NULL, 0,
                                32, &res), SB_INVALID_ARGUMENT);
        assert_non_null(strstr(sb_error_detail(), "y belongs"));
        clReleaseMemObject(foreign);
        clReleaseContext(other);
        clReleaseMemObject(res_buf);
        clReleaseMemObject(x);
        clReleaseMemObject(y_short);
        device_context_close(&dc);
    }
}

int main(void)
{
    seed = test_seed(0x6d617073ull);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maps_skip_nan_and_dot_match_the_host),
        cmocka_unit_test(masked_and_nan_skipping_blocks_match_the_oracle),
        cmocka_unit_test(float_modes_match_the_host),
        cmocka_unit_test(dot_enqueue_writes_the_record),
        cmocka_unit_test(partial_dot_pieces_match_the_host),
        cmocka_unit_test(dot_refuses_bad_input),
    };
    return cmocka_run_group_tests_name("device_maps", tests,
                                       device_list_setup,
                                       device_list_teardown);
}
