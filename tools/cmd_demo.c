/* cmd_demo.c: `samebits demo`, the README's demonstration.
 *
 * It sums the harmonic series 1/k, k = 1..10^7, in f64 and in f32 with the
 * host path at several thread counts and on every OpenCL device present
 * (the data in a cl_mem, SB_OPT_NO_HOST so that the device really
 * computes), and shows that the bits are the same every time (and fails if
 * they are not: that would be a library bug). Next to that: a plain
 * left-to-right loop, whose different order gives different bits, and the
 * exactly rounded sum of the same terms (MPFR's mpfr_sum), so that the
 * error of each order can be read in ulps.
 */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SAMEBITS_HAVE_MPFR
#include <mpfr.h>
#endif

#include "corpus.h"
#include "samebits.h"

#define DEMO_N 10000000u
#define DEMO_MAX_ROWS 24

/* Thread counts to try; 0 is the default (SAMEBITS_THREADS or every CPU). */
static const unsigned demo_threads[] = { 1, 2, 3, 8, 0 };
#define DEMO_THREAD_RUNS (sizeof demo_threads / sizeof demo_threads[0])

enum { T64, T32 };   /* the two columns: f64 and f32 */

/* One way of computing the sums (a thread count or a device): one row. */
typedef struct {
    char     label[40];
    int      ok[2];            /* both sums computed */
    char     note[2][48];      /* why not: "refused: ..." or an error */
    int      error;            /* a failure that is not a refusal */
    double   value[2];         /* an f32 value converts exactly */
    uint64_t bits[2];          /* the bits of the type itself */
    uint64_t masked_bits[2];   /* the sum of the even k, through a mask */
    double   masked[2];
} demo_row;

/* The input, on the host. */
typedef struct {
    const double        *x64;
    const float         *x32;
    const unsigned char *mask;
    size_t               n;
} demo_input;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits demo [--device SEL]\n"
            "\n"
            "Sums 1/k for k = 1..%u in f64 and in f32 with the host path at\n"
            "1, 2, 3, 8 and the default number of threads and on every OpenCL\n"
            "device, and shows that the bits are identical; compares with a\n"
            "plain left-to-right loop and with the exactly rounded sum (MPFR;\n"
            "a command built without MPFR leaves that row out).\n"
            "Exit status: 0 all identical; 5 if any two results differ in any\n"
            "bit (a bug to report); 4 if a device could not compute; 2 for a\n"
            "bad command line.\n"
            "\n"
            "  --device SEL  the devices to use (a number of `samebits info`,\n"
            "                P:D, a part of a name, or all); default: every\n"
            "                device but simulators (Oclgrind takes ~20 s here)\n",
            DEMO_N);
}

/* ---- the exact reference --------------------------------------------------- */

#ifdef SAMEBITS_HAVE_MPFR

/* Bits of two results of the same type, compared as integers: for two
 * positive floats the difference is their distance in ulps. */
static int64_t ulps_between(uint64_t got_bits, uint64_t want_bits)
{
    return (int64_t)got_bits - (int64_t)want_bits;
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

/* The exactly rounded sums (all terms, even k) of one type: mpfr_sum
 * rounds the exact sum once, in precision 53 (f64) or 24 (f32). The sums
 * are far from the edges of the exponent range, so MPFR's unbounded
 * exponent gives the same rounding as the IEEE type. */
static void exact_sums(const demo_input *in, int t, demo_mpfr *m,
                       uint64_t *bits, uint64_t *masked_bits, double *values)
{
    for (size_t i = 0; i < in->n; i++) {
        if (t == T64)
            mpfr_set_d(m->values[i], in->x64[i], MPFR_RNDN);   /* exact */
        else
            mpfr_set_flt(m->values[i], in->x32[i], MPFR_RNDN); /* exact */
    }
    mpfr_t sum;
    mpfr_init2(sum, t == T64 ? 53 : 24);
    for (int part = 0; part < 2; part++) {
        if (part == 0)
            mpfr_sum(sum, m->all, (unsigned long)in->n, MPFR_RNDN);
        else
            mpfr_sum(sum, m->even, (unsigned long)(in->n / 2), MPFR_RNDN);
        double v;
        uint64_t b;
        if (t == T64) {
            v = mpfr_get_d(sum, MPFR_RNDN);
            b = cli_f64_bits(v);
        } else {
            const float f = mpfr_get_flt(sum, MPFR_RNDN);
            v = f;
            b = cli_f32_bits(f);
        }
        if (part == 0) {
            *bits = b;
            values[0] = v;
        } else {
            *masked_bits = b;
            values[1] = v;
        }
    }
    mpfr_clear(sum);
}
#endif /* SAMEBITS_HAVE_MPFR: without it, demo shows no exactly rounded row */

/* ---- the rows ----------------------------------------------------------------- */

static void store(demo_row *row, int t, const void *all, const void *masked)
{
    if (t == T64) {
        memcpy(&row->value[t], all, 8);
        memcpy(&row->masked[t], masked, 8);
        row->bits[t] = cli_f64_bits(row->value[t]);
        row->masked_bits[t] = cli_f64_bits(row->masked[t]);
    } else {
        float a, b;
        memcpy(&a, all, 4);
        memcpy(&b, masked, 4);
        row->value[t] = a;
        row->masked[t] = b;
        row->bits[t] = cli_f32_bits(a);
        row->masked_bits[t] = cli_f32_bits(b);
    }
    row->ok[t] = 1;
}

static void host_row(const demo_input *in, unsigned threads, demo_row *row)
{
    if (threads == 0)
        snprintf(row->label, sizeof row->label, "samebits, default (%u)",
                 cli_default_threads());
    else
        snprintf(row->label, sizeof row->label, "samebits, %u thread%s",
                 threads, threads == 1 ? "" : "s");
    const sb_host_options opts = { .threads = threads };
    for (int t = T64; t <= T32; t++) {
        const sb_reduction r = { .op = SB_SUM,
                                 .input = t == T64 ? SB_F64 : SB_F32 };
        const void *x = t == T64 ? (const void *)in->x64 : (const void *)in->x32;
        unsigned char all[8], masked[8];
        sb_status s = sb_reduce_host_opts(r, x, NULL, in->n, all, &opts);
        if (s == SB_OK)
            s = sb_reduce_host_opts(r, x, in->mask, in->n, masked, &opts);
        if (s == SB_OK) {
            store(row, t, all, masked);
        } else {
            snprintf(row->note[t], sizeof row->note[t], "error: %s",
                     corpus_status_word(s));
            row->error = 1;
        }
    }
}

/* The sums on device `d`, from cl_mem buffers, computed by the device. */
static void device_row(const demo_input *in, const cli_device *d,
                       demo_row *row)
{
    snprintf(row->label, sizeof row->label, "%.28s [dev %u]", d->label,
             d->index);
    cl_int err = CL_SUCCESS;
    sb_context *ctx = NULL;
    sb_device_caps caps;
    const sb_options opts = { .flags = SB_OPT_NO_HOST };
    cl_context clctx = cli_cl_context(d, &err);
    sb_status s = clctx == NULL ? SB_OPENCL_ERROR
                                : sb_context_create(clctx, d->device, &opts, &ctx);
    if (s == SB_OK)
        s = sb_device_report(d->device, &caps);
    cl_mem mb = NULL;
    if (s == SB_OK) {
        mb = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                            in->n, (void *)in->mask, &err);
        if (mb == NULL)
            s = SB_OPENCL_ERROR;
    }
    for (int t = T64; t <= T32; t++) {
        const sb_type type = t == T64 ? SB_F64 : SB_F32;
        if (s != SB_OK) {
            snprintf(row->note[t], sizeof row->note[t], "error: %s",
                     corpus_status_word(s));
            row->error = 1;
            continue;
        }
        if (caps.type_status[type] != SB_OK) {     /* the documented refusal */
            snprintf(row->note[t], sizeof row->note[t], "refused: %.38s",
                     caps.type_reason[type]);
            continue;
        }
        const sb_reduction r = { .op = SB_SUM, .input = type };
        const void *x = t == T64 ? (const void *)in->x64 : (const void *)in->x32;
        cl_mem xb = clCreateBuffer(clctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                   in->n * sb_type_size(type), (void *)x, &err);
        unsigned char all[8], masked[8];
        sb_status ts = xb == NULL ? SB_OPENCL_ERROR
                     : sb_reduce(ctx, NULL, r, xb, 0, NULL, 0, in->n, all);
        if (ts == SB_OK)
            ts = sb_reduce(ctx, NULL, r, xb, 0, mb, 0, in->n, masked);
        if (xb != NULL)
            clReleaseMemObject(xb);
        if (ts == SB_OK) {
            store(row, t, all, masked);
        } else {
            snprintf(row->note[t], sizeof row->note[t], "error: %s",
                     corpus_status_word(ts));
            row->error = 1;
        }
    }
    if (mb != NULL)
        clReleaseMemObject(mb);
    sb_context_release(ctx);
    if (clctx != NULL)
        clReleaseContext(clctx);
}

/* ---- output ---------------------------------------------------------------------- */

/* One cell: value and bits, in the width of its type's column. */
static void print_cell(int t, int ok, double v, uint64_t bits, const char *note)
{
    if (!ok)
        printf(t == T64 ? "  %-38s" : "   %s", note);
    else if (t == T64)
        printf("  %-19.17g 0x%016" PRIx64, v, bits);
    else
        printf("   %-11.9g 0x%08" PRIx32, v, (uint32_t)bits);
}

static void print_row(const char *label, const int *ok, const double *v,
                      const uint64_t *bits, char note[][48])
{
    printf("%-24s", label);
    for (int t = T64; t <= T32; t++)
        print_cell(t, ok[t], v[t], bits[t], note != NULL ? note[t] : "");
    putchar('\n');
}

int cmd_demo(int argc, char **argv)
{
    const char *device_spec = NULL;
    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if ((v = cli_option_value(argc, argv, &i, "--device",
                                         &missing)) != NULL || missing) {
            if (missing) {
                cli_error("demo", "--device wants N, P:D, a name or all");
                return CLI_EXIT_USAGE;
            }
            device_spec = v;
        } else {
            cli_error("demo", "unknown option '%s'", argv[i]);
            print_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }

    /* The devices: chosen, or every one but simulators. */
    cli_device_list list;
    cli_selection sel;
    if (cli_select_or_all("demo", device_spec, 0, &list, &sel) != 0)
        return CLI_EXIT_DEVICE;

    const size_t n = DEMO_N;
    double *x64 = malloc(n * sizeof *x64);
    float *x32 = malloc(n * sizeof *x32);
    unsigned char *mask = malloc(n);
    demo_row *rows = calloc(DEMO_MAX_ROWS, sizeof *rows);
    int rc = CLI_EXIT_INPUT;
#ifdef SAMEBITS_HAVE_MPFR
    demo_mpfr m = { 0 };
    const int mpfr_ok = demo_mpfr_init(&m, n) == 0;
#else
    const int mpfr_ok = 1;
#endif
    if (x64 == NULL || x32 == NULL || mask == NULL || rows == NULL || !mpfr_ok) {
        cli_error("demo", "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const unsigned k = (unsigned)i + 1;
        x64[i] = 1.0 / (double)k;
        x32[i] = 1.0f / (float)k;   /* k <= 2^24: (float)k is exact */
        mask[i] = (unsigned char)(k % 2 == 0);
    }
    const demo_input in = { x64, x32, mask, n };

    size_t row_count = 0;
    for (size_t t = 0; t < DEMO_THREAD_RUNS; t++)
        host_row(&in, demo_threads[t], &rows[row_count++]);
    for (size_t i = 0; i < sel.count && row_count < DEMO_MAX_ROWS; i++)
        device_row(&in, sel.devices[i], &rows[row_count++]);

    /* The order samebits does not use: one running total, left to right.
     * Built without -ffast-math and with -ffp-contract=off, the compiler
     * keeps this order. */
    double loop64 = 0.0;
    float loop32 = 0.0f;          /* f32 total: the loop a person would write */
    for (size_t i = 0; i < n; i++) {
        loop64 += x64[i];
        loop32 += x32[i];
    }
    const int all_ok[2] = { 1, 1 };
    const double loop[2] = { loop64, loop32 };
    const uint64_t loop_bits[2] = { cli_f64_bits(loop64), cli_f32_bits(loop32) };
#ifdef SAMEBITS_HAVE_MPFR
    uint64_t exact_bits[2], exact_masked_bits[2];
    double exact[2][2];
    exact_sums(&in, T64, &m, &exact_bits[T64], &exact_masked_bits[T64], exact[T64]);
    exact_sums(&in, T32, &m, &exact_bits[T32], &exact_masked_bits[T32], exact[T32]);
    const double exact_value[2] = { exact[T64][0], exact[T32][0] };
#endif

    /* Every computed result must have the bits of the first. */
    int identical = 1, errors = 0;
    size_t computed = 0;
    for (size_t r = 0; r < row_count; r++) {
        errors |= rows[r].error;
        for (int t = T64; t <= T32; t++) {
            if (!rows[r].ok[t])
                continue;
            computed++;
            if (rows[r].bits[t] != rows[0].bits[t]
                    || rows[r].masked_bits[t] != rows[0].masked_bits[t])
                identical = 0;
        }
    }

    printf("Sum of 1/k for k = 1..%u, each term computed in the sum's type\n\n",
           DEMO_N);
    printf("%-24s  %-38s   %s\n", "", "f64", "f32");
    for (size_t r = 0; r < row_count; r++)
        print_row(rows[r].label, rows[r].ok, rows[r].value, rows[r].bits,
                  rows[r].note);
    print_row("plain for loop", all_ok, loop, loop_bits, NULL);
#ifdef SAMEBITS_HAVE_MPFR
    print_row("exactly rounded (MPFR)", all_ok, exact_value, exact_bits, NULL);
    char errors64[64];
    snprintf(errors64, sizeof errors64, "samebits %+" PRId64 ", plain loop %+" PRId64,
             ulps_between(rows[0].bits[T64], exact_bits[T64]),
             ulps_between(loop_bits[T64], exact_bits[T64]));
    printf("%-24s  %-38s   samebits %+" PRId64 ", plain loop %+" PRId64 "\n",
           "error vs exact, in ulps", errors64,
           ulps_between(rows[0].bits[T32], exact_bits[T32]),
           ulps_between(loop_bits[T32], exact_bits[T32]));
#else
    printf("(no exactly rounded row: this samebits command was built "
           "without MPFR)\n");
#endif
    printf("\n");
    for (size_t i = 0; i < sel.count; i++) {
        char title[300];
        cli_device_title(sel.devices[i], title, sizeof title);
        printf("[dev %u] = %s\n", sel.devices[i]->index, title);
    }
    if (list.platform_count == 0)
        printf("No OpenCL platform found (%s): the host path only; see "
               "`samebits info`.\n", cli_cl_error_name(list.error));
    for (size_t i = 0; device_spec == NULL && i < list.count; i++)
        if (list.devices[i].simulator)
            printf("[dev %u] %s skipped: a simulator (slow); add it with "
                   "--device %u.\n", list.devices[i].index,
                   list.devices[i].name, list.devices[i].index);
    if (identical)
        printf("All %zu samebits rows are bit-identical (%zu thread counts, "
               "%zu device%s), in f64 and f32,\nwith and without a mask "
               "(%zu sums).\n", row_count, DEMO_THREAD_RUNS, sel.count,
               sel.count == 1 ? "" : "s", 2 * computed);
    else
        printf("LIBRARY BUG: the samebits results differ between rows above "
               "(or in the masked sums). Please report it with `samebits "
               "info`.\n");
    if (errors)
        printf("ERROR: a device could not compute (see its row).\n");
    printf("\nWhy: the bits of a float sum depend on the order of its "
           "additions. samebits\n"
           "always adds in one fixed order (leaves of 16 terms folded left "
           "to right, then a\n"
           "pairwise tree), whichever thread or device computes which part, "
           "so the bits\n"
           "cannot change. The plain loop adds each term to one running "
           "total, which grows\n"
           "while the terms shrink: each addition rounds off more of the "
           "term (in f32 the\n"
           "total stops growing near 15.4). The tree mostly adds numbers of "
           "similar size.\n");
#ifdef SAMEBITS_HAVE_MPFR
    printf("\nMasked (only even k take part), vs exact:\n");
    printf("  f64 %.17g 0x%016" PRIx64 " (%+" PRId64 " ulp)"
           "   f32 %.9g 0x%08" PRIx32 " (%+" PRId64 " ulp)\n",
           rows[0].masked[T64], rows[0].masked_bits[T64],
           ulps_between(rows[0].masked_bits[T64], exact_masked_bits[T64]),
           rows[0].masked[T32], (uint32_t)rows[0].masked_bits[T32],
           ulps_between(rows[0].masked_bits[T32], exact_masked_bits[T32]));
#else
    printf("\nMasked (only even k take part):\n");
    printf("  f64 %.17g 0x%016" PRIx64 "   f32 %.9g 0x%08" PRIx32 "\n",
           rows[0].masked[T64], rows[0].masked_bits[T64],
           rows[0].masked[T32], (uint32_t)rows[0].masked_bits[T32]);
#endif
    rc = !identical ? CLI_EXIT_DIFFERS : errors ? CLI_EXIT_DEVICE : CLI_EXIT_OK;
done:
#ifdef SAMEBITS_HAVE_MPFR
    demo_mpfr_free(&m);
#endif
    free(rows);
    free(mask);
    free(x32);
    free(x64);
    cli_devices_free(&list);
    return rc;
}
