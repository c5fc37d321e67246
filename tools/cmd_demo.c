/* cmd_demo.c: `samebits demo`, the README's demonstration.
 *
 * It sums the harmonic series 1/k, k = 1..10^7, in f64 and in f32 with the
 * host path at several thread counts and shows that the bits are the same
 * every time (and fails if they are not: that would be a library bug). Next
 * to that: a plain left-to-right loop, whose different order gives different
 * bits, and the exactly rounded sum of the same terms (MPFR's mpfr_sum), so
 * that the error of each order can be read in ulps.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpfr.h>

#include "samebits.h"

#define DEMO_N 10000000u

/* Thread counts to try; 0 is the default (SAMEBITS_THREADS or every CPU). */
static const unsigned demo_threads[] = { 1, 2, 3, 8, 0 };
#define DEMO_RUNS (sizeof demo_threads / sizeof demo_threads[0])

/* The results of one type (f64 or f32): kept as doubles (an f32 value
 * converts exactly) plus the bits of the type itself, for printing. */
typedef struct {
    double   host[DEMO_RUNS];
    uint64_t host_bits[DEMO_RUNS];
    double   loop, exact;
    uint64_t loop_bits, exact_bits;
    int      identical;              /* every host result has the same bits */
    int64_t  host_ulps, loop_ulps;   /* signed error against `exact` */
    double   masked[DEMO_RUNS];      /* sum of the even k, through a mask */
    uint64_t masked_bits[DEMO_RUNS];
    double   masked_exact;
    uint64_t masked_exact_bits;
    int      masked_identical;
} demo_type_result;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits demo\n"
            "\n"
            "Sums 1/k for k = 1..%u in f64 and in f32 with the host path at\n"
            "1, 2, 3, 8 and the default number of threads, and shows that the\n"
            "bits are identical; compares with a plain left-to-right loop and\n"
            "with the exactly rounded sum (MPFR). Exits with status 1 if the\n"
            "host results differ in any bit.\n", DEMO_N);
}

/* Bits of two results of the same type, compared as integers: for two
 * positive floats the difference is their distance in ulps. */
static int64_t ulps_between(uint64_t got_bits, uint64_t want_bits)
{
    return (int64_t)got_bits - (int64_t)want_bits;
}

/* The exactly rounded sum of the `n` values at `terms` (mpfr_sum rounds the
 * exact sum once), in precision `prec`: 53 for f64, 24 for f32. The sums
 * here are far from the edges of the exponent range, so MPFR's unbounded
 * exponent gives the same rounding as the IEEE type. */
static void exact_sum(mpfr_ptr *terms, unsigned long n, mpfr_prec_t prec,
                      mpfr_t out)
{
    mpfr_set_prec(out, prec);
    mpfr_sum(out, terms, n, MPFR_RNDN);
}

/* The MPFR side: one mpfr_t per term (53 bits hold an f32 or f64 term
 * exactly), reused for both types; `even` points at the terms of even k. */
typedef struct {
    mpfr_t    *values;
    mpfr_ptr  *all;
    mpfr_ptr  *even;
    size_t     n;
} demo_mpfr;

static int demo_mpfr_init(demo_mpfr *m, size_t n)
{
    m->n = n;
    m->values = malloc(n * sizeof *m->values);
    m->all = malloc(n * sizeof *m->all);
    m->even = malloc((n / 2) * sizeof *m->even);
    if (m->values == NULL || m->all == NULL || m->even == NULL)
        return -1;
    for (size_t i = 0; i < n; i++) {
        mpfr_init2(m->values[i], 53);
        m->all[i] = m->values[i];
    }
    /* Element i holds k = i + 1, so the even k sit at the odd i. */
    for (size_t i = 1, j = 0; i < n; i += 2, j++)
        m->even[j] = m->values[i];
    return 0;
}

static void demo_mpfr_free(demo_mpfr *m)
{
    if (m->values != NULL)
        for (size_t i = 0; i < m->n; i++)
            mpfr_clear(m->values[i]);
    free(m->values);
    free(m->all);
    free(m->even);
}

static int run_f64(const double *x, const unsigned char *mask, size_t n,
                   demo_mpfr *m, demo_type_result *res)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    for (size_t t = 0; t < DEMO_RUNS; t++) {
        const sb_host_options opts = { .threads = demo_threads[t] };
        sb_status s = sb_reduce_host_opts(r, x, NULL, n, &res->host[t], &opts);
        if (s == SB_OK)
            s = sb_reduce_host_opts(r, x, mask, n, &res->masked[t], &opts);
        if (s != SB_OK) {
            cli_error("demo", "f64 sum: %s", sb_status_string(s));
            return -1;
        }
        res->host_bits[t] = cli_f64_bits(res->host[t]);
        res->masked_bits[t] = cli_f64_bits(res->masked[t]);
    }

    /* The order samebits does not use: one running total, left to right.
     * Built without -ffast-math and with -ffp-contract=off, the compiler
     * keeps this order. */
    double loop = 0.0;
    for (size_t i = 0; i < n; i++)
        loop += x[i];
    res->loop = loop;
    res->loop_bits = cli_f64_bits(loop);

    for (size_t i = 0; i < n; i++)
        mpfr_set_d(m->values[i], x[i], MPFR_RNDN);   /* exact */
    mpfr_t sum;
    mpfr_init2(sum, 53);
    exact_sum(m->all, (unsigned long)n, 53, sum);
    res->exact = mpfr_get_d(sum, MPFR_RNDN);
    exact_sum(m->even, (unsigned long)(n / 2), 53, sum);
    res->masked_exact = mpfr_get_d(sum, MPFR_RNDN);
    mpfr_clear(sum);
    res->exact_bits = cli_f64_bits(res->exact);
    res->masked_exact_bits = cli_f64_bits(res->masked_exact);
    return 0;
}

static int run_f32(const float *x, const unsigned char *mask, size_t n,
                   demo_mpfr *m, demo_type_result *res)
{
    const sb_reduction r = { .op = SB_SUM, .input = SB_F32 };
    for (size_t t = 0; t < DEMO_RUNS; t++) {
        const sb_host_options opts = { .threads = demo_threads[t] };
        float all = 0.0f, masked = 0.0f;
        sb_status s = sb_reduce_host_opts(r, x, NULL, n, &all, &opts);
        if (s == SB_OK)
            s = sb_reduce_host_opts(r, x, mask, n, &masked, &opts);
        if (s != SB_OK) {
            cli_error("demo", "f32 sum: %s", sb_status_string(s));
            return -1;
        }
        res->host[t] = all;
        res->host_bits[t] = cli_f32_bits(all);
        res->masked[t] = masked;
        res->masked_bits[t] = cli_f32_bits(masked);
    }

    float loop = 0.0f;    /* f32 total: the loop a person would write */
    for (size_t i = 0; i < n; i++)
        loop += x[i];
    res->loop = loop;
    res->loop_bits = cli_f32_bits(loop);

    for (size_t i = 0; i < n; i++)
        mpfr_set_flt(m->values[i], x[i], MPFR_RNDN);  /* exact */
    mpfr_t sum;
    mpfr_init2(sum, 24);
    exact_sum(m->all, (unsigned long)n, 24, sum);
    const float exact = mpfr_get_flt(sum, MPFR_RNDN);
    exact_sum(m->even, (unsigned long)(n / 2), 24, sum);
    const float masked_exact = mpfr_get_flt(sum, MPFR_RNDN);
    mpfr_clear(sum);
    res->exact = exact;
    res->exact_bits = cli_f32_bits(exact);
    res->masked_exact = masked_exact;
    res->masked_exact_bits = cli_f32_bits(masked_exact);
    return 0;
}

/* Fills in what follows from the raw results: agreement and errors. */
static void judge(demo_type_result *res)
{
    res->identical = 1;
    res->masked_identical = 1;
    for (size_t t = 1; t < DEMO_RUNS; t++) {
        if (res->host_bits[t] != res->host_bits[0])
            res->identical = 0;
        if (res->masked_bits[t] != res->masked_bits[0])
            res->masked_identical = 0;
    }
    res->host_ulps = ulps_between(res->host_bits[0], res->exact_bits);
    res->loop_ulps = ulps_between(res->loop_bits, res->exact_bits);
}

/* One cell: value and bits, in the width of its type's column. */
static void print_cell(int is_f64, double v, uint64_t bits)
{
    if (is_f64)
        printf("  %-19.17g 0x%016" PRIx64, v, bits);
    else
        printf("   %-11.9g 0x%08" PRIx32, v, (uint32_t)bits);
}

/* One row of the table: a label, then the f64 cell and the f32 cell. */
static void print_row(const char *label, double d, uint64_t d_bits,
                      double s, uint64_t s_bits)
{
    printf("%-24s", label);
    print_cell(1, d, d_bits);
    print_cell(0, s, s_bits);
    putchar('\n');
}

static void print_report(const demo_type_result *d, const demo_type_result *s)
{
    const unsigned default_threads = cli_default_threads();
    printf("Sum of 1/k for k = 1..%u, each term computed in the sum's type\n"
           "\n", DEMO_N);
    printf("%-24s  %-38s   %s\n", "", "f64", "f32");
    for (size_t t = 0; t < DEMO_RUNS; t++) {
        char label[64];
        if (demo_threads[t] == 0)
            snprintf(label, sizeof label, "samebits, default (%u)",
                     default_threads);
        else
            snprintf(label, sizeof label, "samebits, %u thread%s",
                     demo_threads[t], demo_threads[t] == 1 ? "" : "s");
        print_row(label, d->host[t], d->host_bits[t], s->host[t],
                  s->host_bits[t]);
    }
    print_row("plain for loop", d->loop, d->loop_bits, s->loop, s->loop_bits);
    print_row("exactly rounded (MPFR)", d->exact, d->exact_bits, s->exact,
              s->exact_bits);
    char errors[64];
    snprintf(errors, sizeof errors, "samebits %+" PRId64 ", plain loop %+" PRId64,
             d->host_ulps, d->loop_ulps);
    printf("%-24s  %-38s   samebits %+" PRId64 ", plain loop %+" PRId64 "\n",
           "error vs exact, in ulps", errors, s->host_ulps, s->loop_ulps);
    printf("\n");
    if (d->identical && s->identical)
        printf("All %zu samebits results are bit-identical, in f64 and in "
               "f32.\n", DEMO_RUNS);
    else
        printf("LIBRARY BUG: the samebits results differ between thread "
               "counts (%s).\n",
               !d->identical && !s->identical ? "f64 and f32"
               : !d->identical ? "f64" : "f32");
    printf("Why: the bits of a float sum depend on the order of its "
           "additions. samebits\n"
           "always adds in one fixed order (leaves of 16 terms folded left "
           "to right, then a\n"
           "pairwise tree), whichever thread computes which part, so the "
           "bits cannot change.\n"
           "The plain loop adds each term to one running total, which grows "
           "while the terms\n"
           "shrink: each addition rounds off more of the term (in f32 the "
           "total stops growing\n"
           "near 15.4). The tree mostly adds numbers of similar size, so it "
           "stays closer.\n");
    printf("\n");
    printf("Masked (only even k take part): %s; vs exact:\n",
           d->masked_identical && s->masked_identical
               ? "identical bits at every thread count"
               : "LIBRARY BUG: the bits differ between thread counts");
    printf("  f64 %.17g 0x%016" PRIx64 " (%+" PRId64 " ulp)"
           "   f32 %.9g 0x%08" PRIx32 " (%+" PRId64 " ulp)\n",
           d->masked[0], d->masked_bits[0],
           ulps_between(d->masked_bits[0], d->masked_exact_bits),
           s->masked[0], (uint32_t)s->masked_bits[0],
           ulps_between(s->masked_bits[0], s->masked_exact_bits));
}

int cmd_demo(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        }
        cli_error("demo", "unknown option '%s'", argv[i]);
        print_usage(stderr);
        return CLI_EXIT_USAGE;
    }

    const size_t n = DEMO_N;
    double *x64 = malloc(n * sizeof *x64);
    float *x32 = malloc(n * sizeof *x32);
    unsigned char *mask = malloc(n);
    demo_mpfr m = { 0 };
    int rc = CLI_EXIT_FAILURE;
    if (x64 == NULL || x32 == NULL || mask == NULL
            || demo_mpfr_init(&m, n) != 0) {
        cli_error("demo", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned k = (unsigned)i + 1;
        x64[i] = 1.0 / (double)k;
        x32[i] = 1.0f / (float)k;   /* k <= 2^24: (float)k is exact */
        mask[i] = (unsigned char)(k % 2 == 0);
    }

    demo_type_result d, s;
    memset(&d, 0, sizeof d);
    memset(&s, 0, sizeof s);
    if (run_f64(x64, mask, n, &m, &d) != 0 || run_f32(x32, mask, n, &m, &s) != 0)
        goto done;
    judge(&d);
    judge(&s);
    print_report(&d, &s);
    rc = d.identical && s.identical && d.masked_identical && s.masked_identical
         ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
done:
    demo_mpfr_free(&m);
    free(mask);
    free(x32);
    free(x64);
    return rc;
}
