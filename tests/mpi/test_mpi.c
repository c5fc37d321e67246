/* tests/mpi/test_mpi.c: samebits_mpi under mpirun (1, 2, 3, 5 and 8 ranks).
 *
 * Every rank builds the same whole array (same seed), the oracle's answer
 * for it, and the same cuts; rank k passes the k-th piece. Every rank must
 * return the oracle's status and bits:
 *   - every reduction kind on its adversarial families, masks, sizes 0 to
 *     70001, cuts at random positions with empty pieces and everything on
 *     one rank; maps, NaN skipping, f16 and bf16 inputs, argmin / argmax
 *     and counts among them;
 *   - the two checked i64 sums of the partial issue (overflow in the tree
 *     only, and left to right only), at every cut (2 ranks) or random ones;
 *   - sb_mpi_allreduce() with each rank's piece in a POCL buffer;
 *   - a collective of the caller's own, MPI_Scan with sb_mpi_partial_op():
 *     rank k finishes the partial of ranks 0..k, the oracle's prefix;
 *   - failures: a bad argument on one rank, on two (the lower rank wins),
 *     another reduction on one rank, a NULL result: every rank returns the
 *     same status and a detail naming the rank, and no rank hangs.
 * Plain C rather than cmocka: an assertion that stopped one rank would
 * leave the others waiting in a collective. Each rank counts what went
 * wrong; the counts are summed at the end and rank 0 prints the verdict.
 * SAMEBITS_TEST_SEED replays a seed (printed by rank 0). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>
#include <mpi.h>
#include "oracle.h"
#include "samebits_mpi.h"
#include "support.h"

#define COUNT(a) (sizeof(a) / sizeof *(a))

static int rank, ranks;
static unsigned long wrong, checked;
static uint64_t seed;

static void mismatch(const char *what, const test_case *c, sb_status want,
                     sb_status got, const char *detail)
{
    wrong++;
    fprintf(stderr, "rank %d/%d: %s: want %s, got %s (%s) ", rank, ranks,
            what, status_name(want), status_name(got), detail);
    if (c != NULL)
        print_case(stderr, c);
    else
        fprintf(stderr, "\n");
}

/* ranks - 1 cuts in [0, n], sorted, the same on every rank. */
static void draw_cuts(uint64_t *state, size_t n, size_t *bounds)
{
    bounds[0] = 0;
    bounds[ranks] = n;
    const int style = (int)random_below(state, 4);
    const size_t inner = (size_t)(ranks - 1);
    if (style >= 2) {
        random_cuts(state, n, inner, bounds + 1);
        return;
    }
    for (size_t k = 1; k <= inner; k++)   /* all on the last rank / rank 0 */
        bounds[k] = style == 0 ? 0 : n;
}

/* One allreduce of x cut at bounds, on the host or the device. */
static void check_one(const test_case *c, const unsigned char *x,
                      const unsigned char *mask, const size_t *bounds,
                      sb_status want, const unsigned char *want_bytes,
                      sb_context *ctx)
{
    const size_t size = type_size(c->r.input);
    const size_t from = bounds[rank], len = bounds[rank + 1] - bounds[rank];
    unsigned char got[RESULT_BUFFER];
    memset(got, RESULT_SENTINEL, sizeof got);
    sb_status s;
    if (ctx == NULL) {
        s = sb_mpi_allreduce_host(MPI_COMM_WORLD, c->r, x + from * size,
                                  mask ? mask + from : NULL, len, got);
    } else {
        /* The piece alone in a buffer of this rank's context, after 3
         * elements of padding. */
        cl_int err;
        const size_t pad = 3;
        unsigned char *copy = checked_malloc((len + pad) * size + 1);
        memset(copy, 0x5A, (len + pad) * size);
        memcpy(copy + pad * size, x + from * size, len * size);
        cl_mem buf = clCreateBuffer(sb_context_cl_context(ctx),
                                    CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                    (len + pad) * size, copy, &err);
        cl_mem mbuf = NULL;
        if (mask != NULL) {
            unsigned char *m = checked_malloc(len + pad);
            memset(m, 1, pad);
            memcpy(m + pad, mask + from, len);
            mbuf = clCreateBuffer(sb_context_cl_context(ctx),
                                  CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  len + pad, m, &err);
            free(m);
        }
        s = sb_mpi_allreduce(MPI_COMM_WORLD, ctx, NULL, c->r, buf, pad, mbuf,
                             pad, len, got);
        if (mbuf != NULL)
            clReleaseMemObject(mbuf);
        clReleaseMemObject(buf);
        free(copy);
    }
    checked++;
    if (s != want || !bits_equal(got, want_bytes, sizeof got))
        mismatch(ctx ? "device allreduce" : "allreduce", c, want, s,
                 sb_error_detail());
}

static const struct {
    sb_reduction r;
    int          families[2];     /* data_family, or half_family for a
                                     half input */
} reductions[] = {
    { { SB_SUM, SB_F32, 0, 0, 0 }, { FAMILY_CANCELLATION, FAMILY_SPECIALS } },
    { { SB_SUM, SB_F64, 0, 0, 0 }, { FAMILY_HUGE_RANGE, FAMILY_SUBNORMAL } },
    { { SB_SUM, SB_F32, SB_F64, 0, 0 }, { FAMILY_SUBNORMAL, FAMILY_UNIFORM } },
    { { SB_PROD, SB_F64, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_SPECIALS } },
    { { SB_MIN, SB_F32, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_SPECIALS } },
    { { SB_MAX, SB_F64, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SPECIALS } },
    { { SB_SUM, SB_I64, 0, 0, 0 }, { FAMILY_SUM_EDGE, FAMILY_LIMITS } },
    { { SB_SUM, SB_I32, SB_I64, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM } },
    { { SB_SUM, SB_I16, 0, SB_WRAP, 0 }, { FAMILY_LIMITS, FAMILY_ALTERNATING } },
    { { SB_PROD, SB_I32, 0, 0, 0 }, { FAMILY_PROD_EDGE, FAMILY_LIMITS } },
    { { SB_MIN, SB_I8, SB_I64, 0, 0 }, { FAMILY_LIMITS, FAMILY_UNIFORM } },
    { { SB_MAX, SB_U64, 0, 0, 0 }, { FAMILY_LIMITS, FAMILY_HUGE_RANGE } },
    { { SB_ANY, SB_F32, 0, 0, 0 }, { FAMILY_NEGATIVE_ZERO, FAMILY_SUBNORMAL } },
    { { SB_ALL, SB_I16, 0, 0, 0 }, { FAMILY_SIGNED_ZEROS, FAMILY_LIMITS } },
    /* maps and NaN skipping travel with the partial */
    { { SB_SUM, SB_F32, 0, SB_SKIP_NAN, SB_MAP_ABS },
      { FAMILY_SPECIALS, FAMILY_CANCELLATION } },
    { { SB_SUM, SB_F64, 0, 0, SB_MAP_SQUARE },
      { FAMILY_SUBNORMAL, FAMILY_HUGE_RANGE } },
    { { SB_MAX, SB_I32, 0, 0, SB_MAP_ABS }, { FAMILY_LIMITS, FAMILY_UNIFORM } },
    { { SB_MIN, SB_F64, 0, SB_SKIP_NAN, 0 },
      { FAMILY_SPECIALS, FAMILY_SIGNED_ZEROS } },
    /* half inputs: each step rounded to the type, or widened */
    { { SB_SUM, SB_F16, 0, 0, 0 },
      { HALF_CANCELLATION, HALF_SUBNORMAL } },
    { { SB_SUM, SB_BF16, SB_F32, 0, 0 }, { HALF_SPECIALS, HALF_HUGE } },
    { { SB_PROD, SB_BF16, 0, 0, 0 },
      { HALF_PROD_EDGE, HALF_NAN_LEAVES } },
    { { SB_MAX, SB_F16, 0, 0, SB_MAP_ABS },
      { HALF_SIGNED_ZEROS, HALF_SPECIALS } },
    { { SB_SUM, SB_F16, SB_F64, SB_SKIP_NAN, SB_MAP_SQUARE },
      { HALF_NAN_LEAVES, HALF_RANDOM_BITS } },
    /* a position and a count travel with the partial too */
    { { SB_ARGMIN, SB_F32, 0, 0, 0 },
      { FAMILY_SIGNED_ZEROS, FAMILY_SPECIALS } },
    { { SB_ARGMAX, SB_I32, 0, 0, SB_MAP_ABS }, { FAMILY_LIMITS, FAMILY_UNIFORM } },
    { { SB_ARGMIN, SB_BF16, SB_F32, 0, 0 },
      { HALF_NAN_LEAVES, HALF_SIGNED_ZEROS } },
    { { SB_COUNT, SB_F64, 0, SB_SKIP_NAN, 0 },
      { FAMILY_SPECIALS, FAMILY_UNIFORM } },
    { { SB_COUNT, SB_U8, 0, 0, 0 }, { FAMILY_UNIFORM, FAMILY_LIMITS } },
};

static bool is_half(sb_type t)
{
    return t == SB_F16 || t == SB_BF16;
}

static void pieces_on_ranks_match_the_oracle(sb_context *ctx)
{
    static const size_t sizes[] = { 0, 1, 17, 33, 1000, 4097, 70001 };
    static const mask_kind masks[] = { MASK_NONE, MASK_RANDOM,
                                       MASK_EMPTY_LEAVES, MASK_ALL_ZERO };
    for (size_t ri = 0; ri < COUNT(reductions); ri++)
        for (size_t z = 0; z < COUNT(sizes); z++)
            for (size_t fi = 0; fi < 2; fi++) {
                const mask_kind mk = masks[(z + fi + ri) % COUNT(masks)];
                const sb_reduction r = reductions[ri].r;
                const int family = reductions[ri].families[fi];
                const test_case c = make_case(seed, r, sizes[z], mk,
                                              is_half(r.input) ? FAMILY_UNIFORM
                                              : (data_family)family);
                unsigned char *x = checked_malloc(c.n * type_size(c.r.input) + 1);
                if (is_half(r.input))
                    fill_half((half_family)family, r.input,
                              (uint16_t *)(void *)x, c.n, c.case_seed);
                else
                    fill_data(c.family, c.r.input, c.r.accumulator, x, c.n,
                              c.case_seed);
                const bool on_device = ctx != NULL;
                unsigned char *mask = make_mask(mk, c.n, c.case_seed);
                unsigned char want[RESULT_BUFFER];
                memset(want, RESULT_SENTINEL, sizeof want);
                const sb_status ws = oracle_reduce(c.r, x, mask, c.n, want);
                uint64_t rs = c.case_seed;
                size_t bounds[64];
                for (int t = 0; t < 4; t++) {
                    draw_cuts(&rs, c.n, bounds);
                    check_one(&c, x, mask, bounds, ws, want, NULL);
                    if (on_device && t < 2 && c.n <= 5000)
                        check_one(&c, x, mask, bounds, ws, want, ctx);
                }
                free(mask);
                free(x);
            }
}

static void overflow_statuses_survive_rank_cuts(void)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_I64 };
    const int64_t leaves[2][4] = { { -1, 0, INT64_MAX, 1 },
                                   { 0, INT64_MAX, 1, -1 } };
    for (int k = 0; k < 2; k++) {
        int64_t x[64] = { 0 };
        for (int l = 0; l < 4; l++)
            x[16 * l] = leaves[k][l];
        const test_case c = make_case(seed, r, 64, MASK_NONE, FAMILY_LIMITS);
        unsigned char want[RESULT_BUFFER];
        memset(want, RESULT_SENTINEL, sizeof want);
        const sb_status ws = oracle_reduce(r, x, NULL, 64, want);
        if (ws != (k == 0 ? SB_OVERFLOW : SB_OK))
            mismatch("the oracle's overflow case", &c, k == 0 ? SB_OVERFLOW
                     : SB_OK, ws, "");
        size_t bounds[64];
        uint64_t rs = seed + (uint64_t)k;
        for (size_t cut = 0; cut <= 64; cut++) {
            if (ranks == 2) {
                bounds[0] = 0;
                bounds[1] = cut;
                bounds[2] = 64;
            } else {
                draw_cuts(&rs, 64, bounds);
            }
            check_one(&c, (const unsigned char *)x, NULL, bounds, ws, want,
                      NULL);
        }
    }
}

/* MPI_Scan with the library's operator: rank k gets the partial of ranks
 * 0..k, whose finish is the oracle's answer for that prefix. */
static void a_scan_of_partials_gives_every_prefix(void)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    enum { PER_RANK_MAX = 700 };
    const size_t n = (size_t)ranks * PER_RANK_MAX;
    const test_case c = make_case(seed, r, n, MASK_NONE, FAMILY_CANCELLATION);
    double *x = checked_malloc(n * sizeof *x);
    fill_data(c.family, r.input, r.accumulator, x, n, c.case_seed);
    uint64_t rs = c.case_seed;
    size_t bounds[64];
    draw_cuts(&rs, n, bounds);
    MPI_Datatype type;
    MPI_Op op;
    sb_partial mine, prefix;
    if (sb_mpi_partial_type(&type) != SB_OK || sb_mpi_partial_op(&op) != SB_OK
            || sb_partial_init(&mine, r, bounds[rank]) != SB_OK
            || sb_partial_add_host(&mine, x + bounds[rank], NULL,
                                   bounds[rank + 1] - bounds[rank]) != SB_OK) {
        mismatch("the scan's set-up", &c, SB_OK, SB_INVALID_ARGUMENT,
                 sb_error_detail());
        memset(&mine, 0, sizeof mine);
    }
    MPI_Scan(&mine, &prefix, 1, type, op, MPI_COMM_WORLD);
    unsigned char want[RESULT_BUFFER], got[RESULT_BUFFER];
    memset(want, RESULT_SENTINEL, sizeof want);
    memset(got, RESULT_SENTINEL, sizeof got);
    const sb_status ws = oracle_reduce(r, x, NULL, bounds[rank + 1], want);
    const sb_status gs = sb_partial_finish(&prefix, got);
    checked++;
    if (gs != ws || !bits_equal(got, want, sizeof got))
        mismatch("MPI_Scan prefix", &c, ws, gs, sb_error_detail());
    free(x);
}

/* Every rank must return `want` with a detail that contains `needle`. */
static void expect_failure(const char *what, sb_status got, sb_status want,
                           const char *needle)
{
    checked++;
    if (got != want || strstr(sb_error_detail(), needle) == NULL)
        mismatch(what, NULL, want, got, sb_error_detail());
}

static void a_failing_rank_fails_every_rank(void)
{
    const sb_reduction sum = { .op = SB_SUM, .input = SB_F32 };
    const sb_reduction max = { .op = SB_MAX, .input = SB_F32 };
    float x[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out = -1;
    char needle[64];
    const int last = ranks - 1, middle = ranks / 2;
    /* One rank passes NULL with n = 5. */
    sb_status s = sb_mpi_allreduce_host(MPI_COMM_WORLD, sum,
                                        rank == last ? NULL : x, NULL,
                                        rank == last ? 5 : 8, &out);
    snprintf(needle, sizeof needle, "rank %d: x is NULL", last);
    expect_failure("NULL x on the last rank", s, SB_INVALID_ARGUMENT, needle);
    /* Two ranks fail: the lower one is named everywhere. */
    s = sb_mpi_allreduce_host(MPI_COMM_WORLD, sum,
                              rank == last || rank == middle ? NULL : x, NULL,
                              8, &out);
    snprintf(needle, sizeof needle, "rank %d: x is NULL",
             middle < last ? middle : last);
    expect_failure("NULL x on two ranks", s, SB_INVALID_ARGUMENT, needle);
    /* The same reduction but for its map on one rank. */
    sb_reduction mapped = sum;
    mapped.map = SB_MAP_ABS;
    s = sb_mpi_allreduce_host(MPI_COMM_WORLD, rank == last && last > 0
                              ? mapped : sum, x, NULL, 8, &out);
    if (last > 0) {
        snprintf(needle, sizeof needle, "rank %d: its sb_reduction", last);
        expect_failure("another map on one rank", s, SB_INVALID_ARGUMENT,
                       needle);
    }
    /* Another reduction on one rank (rank 0 alone: nothing differs). */
    s = sb_mpi_allreduce_host(MPI_COMM_WORLD, rank == last && last > 0
                              ? max : sum, x, NULL, 8, &out);
    if (last > 0) {
        snprintf(needle, sizeof needle, "rank %d: its sb_reduction", last);
        expect_failure("another reduction on one rank", s,
                       SB_INVALID_ARGUMENT, needle);
    } else {
        expect_failure("one rank, one reduction", s, SB_OK, "");
    }
    /* A NULL result on one rank; an invalid reduction on rank 0. */
    s = sb_mpi_allreduce_host(MPI_COMM_WORLD, sum, x, NULL, 8,
                              rank == middle ? NULL : &out);
    snprintf(needle, sizeof needle, "rank %d: result is NULL", middle);
    expect_failure("NULL result", s, SB_INVALID_ARGUMENT, needle);
    const sb_reduction bad = { .op = (sb_op)99, .input = SB_F32 };
    s = sb_mpi_allreduce_host(MPI_COMM_WORLD, bad, x, NULL, 8, &out);
    expect_failure("an unknown op everywhere", s, SB_INVALID_ARGUMENT,
                   "rank 0:");
    /* After all that, a good call still works. */
    float want;
    s = sb_mpi_allreduce_host(MPI_COMM_WORLD, sum, x, NULL, 8, &out);
    if (sb_reduce_host(sum, x, NULL, 8, &want) != SB_OK)
        wrong++;
    /* Every rank passed all 8: the array is ranks copies of x. */
    float *all = checked_malloc((size_t)ranks * sizeof x);
    for (int k = 0; k < ranks; k++)
        memcpy(all + 8 * k, x, sizeof x);
    if (sb_reduce_host(sum, all, NULL, (size_t)ranks * 8, &want) != SB_OK)
        wrong++;
    checked++;
    if (s != SB_OK || memcmp(&out, &want, sizeof out) != 0)
        mismatch("a good call after failures", NULL, SB_OK, s,
                 sb_error_detail());
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (ranks > 63) {
        if (rank == 0)
            fprintf(stderr, "test_mpi: at most 63 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    seed = test_seed(20261203u);
    /* The device part where a POCL is present and the run is small (each
     * rank builds its own kernels). */
    sb_context *ctx = NULL;
    int have_device = 0;
    if (ranks <= 3 && getenv("SAMEBITS_TEST_MPI_NO_DEVICE") == NULL)
        have_device = sb_context_create_select("pocl", NULL, &ctx) == SB_OK;
    int everywhere = 0;
    MPI_Allreduce(&have_device, &everywhere, 1, MPI_INT, MPI_MIN,
                  MPI_COMM_WORLD);
    if (!everywhere && ctx != NULL) {
        sb_context_release(ctx);
        ctx = NULL;
    }
    if (rank == 0)
        printf("test_mpi: %d ranks, seed %llu, device part %s\n", ranks,
               (unsigned long long)seed, everywhere ? "on POCL" : "off");
    pieces_on_ranks_match_the_oracle(ctx);
    overflow_statuses_survive_rank_cuts();
    a_scan_of_partials_gives_every_prefix();
    a_failing_rank_fails_every_rank();
    unsigned long totals[2] = { 0, 0 }, mine[2] = { wrong, checked };
    MPI_Reduce(mine, totals, 2, MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_mpi: %lu checks over %d ranks, %lu wrong\n", totals[1],
               ranks, totals[0]);
    int failed = wrong != 0, any = 0;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    sb_context_release(ctx);
    MPI_Finalize();
    return any ? 1 : 0;
}
