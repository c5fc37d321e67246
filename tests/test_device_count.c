/* tests/test_device_count.c: SB_COUNT on every device present (POCL, and
 * Oclgrind with small sizes), bit for bit (memcmp of the whole result
 * buffer, sentinels after the 8 bytes) and status for status against
 * sb_reduce_host() and oracle_reduce():
 *
 *   - every input type (integers, f32, f64, f16, bf16), with and without
 *     SB_SKIP_NAN, data with NaNs, infinities and signed zeros (half
 *     patterns too), masks that empty whole leaves or everything, at
 *     sizes around the leaf, powers of two and up to ~10^5; sb_reduce()
 *     twice and sb_reduce_enqueue()'s record (bytes around it untouched),
 *     through tests/device_support.c's check_data_on_device(); a context
 *     that launches for every size and one with a GPU's shape;
 *   - the float modes (guarded, software f64, a flushing device);
 *   - sb_partial_add() pieces at random cuts merged with host pieces.
 * Batched rows and segments with count are in tests/test_device_batched.c.
 *
 * Seeded (printed at start; SAMEBITS_TEST_SEED replays a run). */
#include <stdarg.h>              /* cmocka's four required headers */
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "device_support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))
enum { X_PAD = 3, M_PAD = 7, MAX_PIECES = 16 };

static uint64_t seed;

static const sb_type types[] = {
    SB_I8, SB_U8, SB_I16, SB_U16, SB_I32, SB_U32, SB_I64, SB_U64,
    SB_F32, SB_F64, SB_F16, SB_BF16,
};

static bool is_float(sb_type t)
{
    return t == SB_F32 || t == SB_F64 || t == SB_F16 || t == SB_BF16;
}

static bool is_half(sb_type t) { return t == SB_F16 || t == SB_BF16; }

static const size_t pocl_sizes[] = {
    0, 1, 15, 16, 17, 31, 32, 33, 63, 65, 127, 129, 255, 257, 1023, 1025,
    4095, 4097, 65537, 100003,
};
static const size_t small_sizes[] = { 0, 1, 15, 16, 17, 31, 32, 33, 65, 129 };

/* Data with NaNs where the type has them: the specials families. */
static void *make_x(sb_type t, size_t n, uint64_t s)
{
    void *x = checked_malloc(n * type_size(t) + 2);
    if (is_half(t))
        fill_half(s % 2 ? HALF_SPECIALS : HALF_NAN_LEAVES, t, x, n, s);
    else
        fill_data(s % 3 ? FAMILY_SPECIALS : FAMILY_SIGNED_ZEROS, t, 0, x, n,
                  s);
    return x;
}

static bool check_count(const device_context *dc, sb_reduction r, size_t n,
                        mask_kind mk, unsigned runs, sb_status *os)
{
    const test_case c = make_case(seed, r, n, mk, FAMILY_SPECIALS);
    void *x = make_x(r.input, n, c.case_seed);
    unsigned char *mask = make_mask(mk, n, mix_seed(c.case_seed, 2));
    const bool ok = check_data_on_device(dc, &c, x, mask, runs, os);
    free(mask);
    free(x);
    return ok;
}

/* Every type (with SB_SKIP_NAN for floats) at every size, masks in turn
 * (half the cases unmasked, so that the full-leaf folds run). */
static int run_counts(const device_context *dc, const sb_type *list,
                      size_t count, const size_t *sizes, size_t size_count,
                      unsigned runs, tally *t)
{
    int failures = 0;
    for (size_t k = 0; k < count; k++)
        for (unsigned skip = 0; skip < (is_float(list[k]) ? 2u : 1u); skip++)
            for (size_t s = 0; s < size_count; s++)
                for (unsigned rep = 0; rep < 2; rep++) {
                    if (dc->dev->sparse && rep != (k + s / 2) % 2)
                        continue;
                    const sb_reduction r = { .op = SB_COUNT,
                                             .input = list[k],
                                             .flags = skip ? SB_SKIP_NAN
                                                           : 0u };
                    const mask_kind mk = rep == 0 ? MASK_NONE
                        : (mask_kind)(1 + (k + s + skip) % (MASK_COUNT - 1));
                    sb_status os;
                    const bool ok = check_count(dc, r, sizes[s], mk, runs,
                                                &os);
                    failures += !ok;
                    tally_add(t, os, ok);
                }
    return failures;
}

static void counts_match_host_and_oracle(void **state)
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
            if (dev->oclgrind) {
                keep_buffers();
                failures += run_counts(&dc, types, COUNT(types), small_sizes,
                                       c == 0 ? COUNT(small_sizes) : 5,
                                       c == 0 ? RUN_BOTH : RUN_REDUCE, &t);
                release_kept_buffers();
            } else {
                failures += run_counts(&dc, types, COUNT(types), pocl_sizes,
                                       COUNT(pocl_sizes), RUN_BOTH, &t);
            }
            printf("%s, context %zu: ", dev->name, c);
            print_tally("count", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

static void counts_match_in_every_float_mode(void **state)
{
    const device_list *list = *state;
    static const sb_options modes[] = {
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_GUARDED },
        { .flags = SB_OPT_NO_HOST, .float_mode = SB_MODE_SOFTWARE },
        { .flags = SB_OPT_NO_HOST | SB_OPT_FLUSH_SUBNORMALS },
    };
    static const sb_type floats[] = { SB_F32, SB_F64, SB_F16, SB_BF16 };
    static const size_t sizes[] = { 1, 17, 64, 65, 200, 4097, 40000 };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        for (size_t m = 0; m < COUNT(modes); m++) {
            if (dev->oclgrind && m != 1)
                continue;   /* slow: the software mode only, small sizes */
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &modes[m]), SB_OK);
            tally t = { 0 };
            if (dev->oclgrind)
                keep_buffers();
            failures += run_counts(&dc, floats, COUNT(floats), sizes,
                                   dev->oclgrind ? 3 : COUNT(sizes),
                                   RUN_BOTH, &t);
            if (dev->oclgrind)
                release_kept_buffers();
            printf("%s, mode %zu: ", dev->name, m);
            print_tally("count modes", &t);
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

/* sb_partial_add(): pieces at random cuts, some from the device and some
 * from the host, merged left to right, finish as sb_reduce_host(). */
static void partial_count_pieces_match_the_host(void **state)
{
    const device_list *list = *state;
    static const sb_reduction counts[] = {
        { .op = SB_COUNT, .input = SB_F32, .flags = SB_SKIP_NAN },
        { .op = SB_COUNT, .input = SB_I32 },
        { .op = SB_COUNT, .input = SB_F64, .flags = SB_SKIP_NAN },
        { .op = SB_COUNT, .input = SB_BF16, .flags = SB_SKIP_NAN },
    };
    int failures = 0;
    for (size_t d = 0; d < list->count; d++) {
        const test_device *dev = &list->devices[d];
        const sb_options o[2] = { { .flags = SB_OPT_NO_HOST },
                                  { .host_max_n = 64 } };
        for (size_t c = 0; c < 2; c++) {
            device_context dc;
            assert_int_equal(device_context_open(&dc, dev, &o[c]), SB_OK);
            for (size_t k = 0; k < COUNT(counts); k++) {
                const sb_reduction r = counts[k];
                uint64_t st = mix_seed(seed, 500 + d * 100 + c * 10 + k);
                const size_t n = dev->oclgrind ? 300
                               : 3000 + random_below(&st, 30000);
                const size_t es = type_size(r.input);
                void *x = make_x(r.input, n, st);
                unsigned char *mask = make_mask(k % 2 ? MASK_EMPTY_LEAVES
                                                      : MASK_NONE, n,
                                                mix_seed(st, 2));
                cl_mem xb = padded_copy(dev, x, n * es, X_PAD * es);
                cl_mem mb = mask ? padded_copy(dev, mask, n, M_PAD) : NULL;
                size_t cuts[MAX_PIECES];
                const size_t pieces = 1 + random_below(&st, MAX_PIECES - 1);
                random_cuts(&st, n, pieces - 1, cuts);
                cuts[pieces - 1] = n;
                sb_partial all;
                assert_int_equal(sb_partial_init(&all, r, 0), SB_OK);
                size_t from = 0;
                for (size_t i = 0; i < pieces; i++) {
                    const size_t len = cuts[i] - from;
                    sb_partial piece;
                    assert_int_equal(sb_partial_init(&piece, r, from), SB_OK);
                    sb_status s;
                    if (random_below(&st, 4) == 0)
                        s = sb_partial_add_host(&piece,
                                (char *)x + from * es,
                                mask ? mask + from : NULL, len);
                    else
                        s = sb_partial_add(dc.ctx, NULL, &piece, xb,
                                           X_PAD + from, mb, M_PAD + from,
                                           len);
                    assert_int_equal(s, SB_OK);
                    assert_int_equal(sb_partial_merge(&all, &piece), SB_OK);
                    from = cuts[i];
                }
                unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
                memset(want, RESULT_SENTINEL, sizeof want);
                memset(got, RESULT_SENTINEL, sizeof got);
                const sb_status hs = sb_reduce_host(r, x, mask, n, want);
                const sb_status ps = sb_partial_finish(&all, got);
                if (hs != ps || memcmp(want, got, sizeof want) != 0) {
                    fprintf(stderr, "PARTIAL MISMATCH %s: count %s n=%zu "
                            "pieces=%zu host %s, partial %s\n", dev->name,
                            type_name(r.input), n, pieces, status_name(hs),
                            status_name(ps));
                    failures++;
                }
                clReleaseMemObject(xb);
                if (mb)
                    clReleaseMemObject(mb);
                free(mask);
                free(x);
            }
            device_context_close(&dc);
        }
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    seed = test_seed(20261202u);   /* prints it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_match_host_and_oracle),
        cmocka_unit_test(counts_match_in_every_float_mode),
        cmocka_unit_test(partial_count_pieces_match_the_host),
    };
    return cmocka_run_group_tests_name("device_count", tests,
                                       device_list_setup,
                                       device_list_teardown);
}
