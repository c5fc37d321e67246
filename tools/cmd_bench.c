/* cmd_bench.c: `samebits bench`, throughput of the host path's sum.
 *
 * For f32 and f64 at n = 2^s elements it measures, in one run, GB/s of input
 * read by: the host path on 1 thread and on threads = 0 (every CPU), a plain
 * left-to-right loop, and a plain memory read on 1 thread and on as many
 * threads as the host path uses. The ratios between them say what the
 * fixed order costs: against the loop a person would write, and against
 * the speed of memory itself.
 *
 * Method: data is written (so every page is touched) before any timing;
 * each method runs once as a warm-up, which also sets how many calls make
 * one timed sample (at least BENCH_MIN_SAMPLE_S long, so that small n is
 * not lost in clock noise); then the methods take turns, `repeat` samples
 * each, and the best sample is reported (the least disturbed; the median
 * is in --json).
 */
#define _POSIX_C_SOURCE 200809L   /* pthreads, with strict C11 headers */

#include "cli.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "samebits.h"

#define BENCH_MIN_LOG2       4
#define BENCH_MAX_LOG2       33
#define BENCH_MAX_SIZES      16
#define BENCH_MAX_REPEAT     1000
#define BENCH_MIN_SAMPLE_S   0.02
#define BENCH_DEFAULT_REPEAT 5

/* What one measurement reads: n elements of `type`, `bytes` in all. */
typedef struct {
    const void *data;
    size_t      n;
    size_t      bytes;
    sb_type     type;
    unsigned    threads;      /* the "all threads" count */
} bench_input;

/* One way to read the input; returns 0, or -1 after printing why not. */
typedef int (*bench_fn)(const bench_input *in);

typedef enum {
    METHOD_HOST_1, METHOD_HOST_ALL, METHOD_LOOP, METHOD_READ_1,
    METHOD_READ_ALL, METHOD_COUNT
} bench_method;

typedef struct {
    double gbps_best;
    double gbps_median;
    double seconds_best;      /* one call, in the best sample */
    unsigned calls;           /* calls per timed sample */
} bench_result;

/* Results are stored here so that no loop or read can be optimised away:
 * a volatile store must happen, so its value must be computed. */
static volatile double   sink_f64;
static volatile float    sink_f32;
static volatile uint64_t sink_u64;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: samebits bench [--sizes S1,S2,...] [--repeat N] [--json]\n"
            "\n"
            "Measures GB/s of input read by the f32 and f64 sum at n = 2^S\n"
            "elements (default sizes 20,24,27; S in %d..%d):\n"
            "  host-1thr   sb_reduce_host_opts, threads = 1\n"
            "  host-all    sb_reduce_host_opts, threads = 0 (every CPU, or\n"
            "              SAMEBITS_THREADS)\n"
            "  plain-loop  for (i = 0; i < n; i++) s += x[i];  in the same type\n"
            "  read-1thr   plain memory read (XOR of 64-bit words), 1 thread\n"
            "  read-all    the same on as many threads as host-all\n"
            "and the ratios host-1thr/plain-loop, host-all/read-all and\n"
            "host-1thr/read-1thr. Each figure is the best of N timed samples\n"
            "(default %d) after one warm-up. Progress goes to stderr.\n"
            "\n"
            "  --json  one JSON object per line: the setup, each measurement,\n"
            "          each ratio\n",
            BENCH_MIN_LOG2, BENCH_MAX_LOG2, BENCH_DEFAULT_REPEAT);
}

/* ---- the five ways to read the input -------------------------------------- */

static int host_sum(const bench_input *in, unsigned threads)
{
    const sb_reduction r = { .op = SB_SUM, .input = in->type };
    const sb_host_options opts = { .threads = threads };
    double result_f64 = 0.0;
    float result_f32 = 0.0f;
    void *result = in->type == SB_F64 ? (void *)&result_f64
                                      : (void *)&result_f32;
    const sb_status s = sb_reduce_host_opts(r, in->data, NULL, in->n,
                                            result, &opts);
    if (s != SB_OK) {
        cli_error("bench", "sb_reduce_host_opts: %s", sb_status_string(s));
        return -1;
    }
    sink_f64 = result_f64;
    sink_f32 = result_f32;
    return 0;
}

static int host_1(const bench_input *in)
{
    return host_sum(in, 1);
}

static int host_all(const bench_input *in)
{
    return host_sum(in, 0);
}

/* The loop a person would write. The project builds without -ffast-math
 * and with -ffp-contract=off, so the compiler may neither reassociate it
 * (no vector partial sums) nor fuse anything: one add after another. */
static int plain_loop(const bench_input *in)
{
    if (in->type == SB_F64) {
        const double *x = in->data;
        double s = 0.0;
        for (size_t i = 0; i < in->n; i++)
            s += x[i];
        sink_f64 = s;
    } else {
        const float *x = in->data;
        float s = 0.0f;
        for (size_t i = 0; i < in->n; i++)
            s += x[i];
        sink_f32 = s;
    }
    return 0;
}

/* XOR of the 64-bit words in bytes [begin, end) of `data` (8-aligned
 * offsets). memcpy reads the float data as words without breaking C's
 * aliasing rules; it compiles to plain (vectorised) loads. */
static uint64_t xor_words(const unsigned char *data, size_t begin, size_t end)
{
    uint64_t acc = 0;
    for (size_t off = begin; off < end; off += sizeof acc) {
        uint64_t w;
        memcpy(&w, data + off, sizeof w);
        acc ^= w;
    }
    return acc;
}

static int read_1(const bench_input *in)
{
    sink_u64 = xor_words(in->data, 0, in->bytes);
    return 0;
}

typedef struct {
    const unsigned char *data;
    size_t begin, end;
    uint64_t result;
} read_slice;

static void *read_slice_run(void *arg)
{
    read_slice *s = arg;
    s->result = xor_words(s->data, s->begin, s->end);
    return NULL;
}

/* Like the host path: the calling thread reads one slice and starts a
 * thread for each of the others on every call, so the two pay the same
 * start-up cost. Slices are whole 64-byte lines. */
static int read_all(const bench_input *in)
{
    enum { max_threads = 256 };
    read_slice slices[max_threads];
    pthread_t tid[max_threads];
    const unsigned t_count = in->threads == 0 ? 1u
                           : in->threads > max_threads ? max_threads
                           : in->threads;
    const size_t lines = in->bytes / 64;
    for (unsigned t = 0; t < t_count; t++) {
        slices[t].data = in->data;
        slices[t].begin = lines * t / t_count * 64;
        slices[t].end = t + 1 == t_count ? in->bytes
                                         : lines * (t + 1) / t_count * 64;
    }
    unsigned started = 0;
    for (unsigned t = 1; t < t_count; t++) {
        if (pthread_create(&tid[t], NULL, read_slice_run, &slices[t]) != 0) {
            cli_error("bench", "pthread_create failed");
            break;
        }
        started = t;
    }
    read_slice_run(&slices[0]);
    uint64_t acc = slices[0].result;
    for (unsigned t = 1; t <= started; t++) {
        pthread_join(tid[t], NULL);
        acc ^= slices[t].result;
    }
    sink_u64 = acc;
    return started + 1 == t_count ? 0 : -1;
}

static const struct {
    const char *name;          /* column title and JSON "method" */
    bench_fn    run;
    int         all_threads;
} methods[METHOD_COUNT] = {
    [METHOD_HOST_1]   = { "host-1thr",  host_1,     0 },
    [METHOD_HOST_ALL] = { "host-all",   host_all,   1 },
    [METHOD_LOOP]     = { "plain-loop", plain_loop, 0 },
    [METHOD_READ_1]   = { "read-1thr",  read_1,     0 },
    [METHOD_READ_ALL] = { "read-all",   read_all,   1 },
};

/* ---- timing ----------------------------------------------------------------- */

static int compare_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs one call of each method as a warm-up, which also sets how many
 * calls make one sample, then takes `repeat` samples of every method in
 * turn: interleaved, a passing disturbance (another process, a frequency
 * change) is spread over all methods instead of spoiling one, which keeps
 * the ratios honest. */
static int measure_all(const bench_input *in, unsigned repeat,
                       bench_result *res)
{
    static double gbps[METHOD_COUNT][BENCH_MAX_REPEAT];
    for (int m = 0; m < METHOD_COUNT; m++) {
        const double t0 = cli_now();
        if (methods[m].run(in) != 0)
            return -1;
        const double warm = cli_now() - t0;
        res[m].calls = 1;
        if (warm < BENCH_MIN_SAMPLE_S)
            res[m].calls = warm <= 0.0 ? 1000u
                         : (unsigned)ceil(BENCH_MIN_SAMPLE_S / warm);
        res[m].seconds_best = 0.0;
    }
    for (unsigned r = 0; r < repeat; r++) {
        fprintf(stderr, " %u", r + 1);
        fflush(stderr);
        for (int m = 0; m < METHOD_COUNT; m++) {
            const double t0 = cli_now();
            for (unsigned c = 0; c < res[m].calls; c++)
                if (methods[m].run(in) != 0)
                    return -1;
            const double seconds = (cli_now() - t0) / res[m].calls;
            gbps[m][r] = (double)in->bytes / seconds * 1e-9;
            if (r == 0 || seconds < res[m].seconds_best)
                res[m].seconds_best = seconds;
        }
    }
    for (int m = 0; m < METHOD_COUNT; m++) {
        double *g = gbps[m];
        qsort(g, repeat, sizeof g[0], compare_double);
        res[m].gbps_best = g[repeat - 1];
        res[m].gbps_median = repeat % 2 ? g[repeat / 2]
                           : 0.5 * (g[repeat / 2 - 1] + g[repeat / 2]);
    }
    return 0;
}

/* Values in [1, 2): normal numbers (no slow subnormal paths), and writing
 * them touches every page before the clock starts. */
static void fill(void *data, sb_type type, size_t n)
{
    uint64_t state = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < n; i++) {
        state ^= state << 13;        /* xorshift64 */
        state ^= state >> 7;
        state ^= state << 17;
        const double v = 1.0 + (double)(state >> 11) * 0x1p-53;
        if (type == SB_F64)
            ((double *)data)[i] = v;
        else
            ((float *)data)[i] = (float)v;
    }
}

/* ---- output ----------------------------------------------------------------- */

typedef struct {
    const char *name;          /* JSON "name" */
    const char *title;         /* column title */
    bench_method num, den;
} bench_ratio;

static const bench_ratio ratios[] = {
    { "host_1thr_over_plain_loop", "host1/loop", METHOD_HOST_1, METHOD_LOOP },
    { "host_all_over_read_all", "hostall/readall",
      METHOD_HOST_ALL, METHOD_READ_ALL },
    { "host_1thr_over_read_1thr", "host1/read1",
      METHOD_HOST_1, METHOD_READ_1 },
};
#define RATIO_COUNT (sizeof ratios / sizeof ratios[0])

static void print_json_setup(const char *cpu, unsigned threads,
                             unsigned repeat)
{
    printf("{\"kind\":\"setup\",\"command\":");
    cli_json_string(stdout, cli_command_line());
    printf(",\"samebits_version\":\"%s\",\"cpu\":", SAMEBITS_VERSION_STRING);
    cli_json_string(stdout, cpu);
    printf(",\"online_cpus\":%u,\"threads_all\":%u,\"repeat\":%u,"
           "\"warmup\":1,\"statistic\":\"best\",\"unit\":\"GB/s\"}\n",
           cli_online_cpus(), threads, repeat);
}

static void print_json_row(const bench_input *in, unsigned log2n,
                           unsigned repeat, const bench_result *res)
{
    for (int m = 0; m < METHOD_COUNT; m++)
        printf("{\"kind\":\"measurement\",\"type\":\"%s\",\"log2n\":%u,"
               "\"n\":%zu,\"bytes\":%zu,\"method\":\"%s\",\"threads\":%u,"
               "\"calls_per_sample\":%u,\"repeat\":%u,\"gbps_best\":%.3f,"
               "\"gbps_median\":%.3f,\"seconds_best\":%.9f}\n",
               sb_type_name(in->type), log2n, in->n, in->bytes,
               methods[m].name, methods[m].all_threads ? in->threads : 1u,
               res[m].calls, repeat, res[m].gbps_best, res[m].gbps_median,
               res[m].seconds_best);
    for (size_t q = 0; q < RATIO_COUNT; q++)
        printf("{\"kind\":\"ratio\",\"type\":\"%s\",\"log2n\":%u,"
               "\"name\":\"%s\",\"value\":%.3f}\n",
               sb_type_name(in->type), log2n, ratios[q].name,
               res[ratios[q].num].gbps_best / res[ratios[q].den].gbps_best);
}

static void print_text_header(const char *cpu, unsigned threads,
                              unsigned repeat)
{
    printf("command: %s\n", cli_command_line());
    printf("cpu: %s; %u online CPUs; host-all = threads 0 = %u threads%s\n",
           cpu, cli_online_cpus(), threads,
           getenv("SAMEBITS_THREADS") != NULL ? " (SAMEBITS_THREADS)" : "");
    printf("GB/s of input read (n x element size / time of one call): best "
           "of %u samples\nafter 1 warm-up; a sample repeats the call for "
           ">= %.0f ms; methods take turns;\ndata written before "
           "timing.\n\n", repeat, BENCH_MIN_SAMPLE_S * 1e3);
    printf("%-4s %-5s", "type", "n");
    for (int m = 0; m < METHOD_COUNT; m++)
        printf(" %10s", methods[m].name);
    printf("  |");
    for (size_t q = 0; q < RATIO_COUNT; q++)
        printf(" %s", ratios[q].title);
    printf("\n");
}

static void print_text_row(const bench_input *in, unsigned log2n,
                           const bench_result *res)
{
    char size[16];
    snprintf(size, sizeof size, "2^%u", log2n);
    printf("%-4s %-5s", sb_type_name(in->type), size);
    for (int m = 0; m < METHOD_COUNT; m++)
        printf(" %10.2f", res[m].gbps_best);
    printf("  |");
    for (size_t q = 0; q < RATIO_COUNT; q++)
        printf(" %*.2f", (int)strlen(ratios[q].title),
               res[ratios[q].num].gbps_best / res[ratios[q].den].gbps_best);
    printf("\n");
    fflush(stdout);
}

/* ---- the command -------------------------------------------------------------- */

/* Parses "20,24,27" into sizes[]; returns the count, or 0 if invalid. */
static size_t parse_sizes(const char *s, unsigned *sizes)
{
    size_t count = 0;
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return 0;
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        unsigned long v;
        if (count == BENCH_MAX_SIZES
                || cli_parse_uint(tok, BENCH_MIN_LOG2, BENCH_MAX_LOG2, &v) != 0)
            return 0;
        sizes[count++] = (unsigned)v;
    }
    return count;
}

int cmd_bench(int argc, char **argv)
{
    unsigned sizes[BENCH_MAX_SIZES] = { 20, 24, 27 };
    size_t size_count = 3;
    unsigned long repeat = BENCH_DEFAULT_REPEAT;
    int json = 0;

    for (int i = 1; i < argc; i++) {
        const char *v;
        int missing = 0;
        if (cli_is_help(argv[i])) {
            print_usage(stdout);
            return CLI_EXIT_OK;
        } else if (strcmp(argv[i], "--json") == 0) {
            json = 1;
        } else if ((v = cli_option_value(argc, argv, &i, "--sizes",
                                         &missing)) != NULL || missing) {
            size_count = missing ? 0 : parse_sizes(v, sizes);
            if (size_count == 0) {
                cli_error("bench", "--sizes wants log2 sizes in %d..%d, "
                          "separated by commas (at most %d)",
                          BENCH_MIN_LOG2, BENCH_MAX_LOG2, BENCH_MAX_SIZES);
                return CLI_EXIT_USAGE;
            }
        } else if ((v = cli_option_value(argc, argv, &i, "--repeat",
                                         &missing)) != NULL || missing) {
            if (missing || cli_parse_uint(v, 1, BENCH_MAX_REPEAT,
                                          &repeat) != 0) {
                cli_error("bench", "--repeat wants a count in 1..%d",
                          BENCH_MAX_REPEAT);
                return CLI_EXIT_USAGE;
            }
        } else {
            cli_error("bench", "unknown option '%s'", argv[i]);
            print_usage(stderr);
            return CLI_EXIT_USAGE;
        }
    }

    char cpu[256];
    cli_cpu_model(cpu, sizeof cpu);
    const unsigned threads = cli_default_threads();
    if (json)
        print_json_setup(cpu, threads, (unsigned)repeat);
    else
        print_text_header(cpu, threads, (unsigned)repeat);

    static const sb_type types[] = { SB_F32, SB_F64 };
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        for (size_t si = 0; si < size_count; si++) {
            const size_t n = (size_t)1 << sizes[si];
            const size_t bytes = n * sb_type_size(types[ti]);
            void *data = malloc(bytes);
            if (data == NULL) {
                cli_error("bench", "cannot allocate %zu bytes for %s at 2^%u",
                          bytes, sb_type_name(types[ti]), sizes[si]);
                return CLI_EXIT_FAILURE;
            }
            fprintf(stderr, "bench: %s 2^%u: filling...",
                    sb_type_name(types[ti]), sizes[si]);
            fflush(stderr);
            fill(data, types[ti], n);
            const bench_input in = {
                .data = data, .n = n, .bytes = bytes, .type = types[ti],
                .threads = threads,
            };
            bench_result res[METHOD_COUNT];
            fprintf(stderr, " warm-up, samples");
            fflush(stderr);
            if (measure_all(&in, (unsigned)repeat, res) != 0) {
                fprintf(stderr, "\n");
                free(data);
                return CLI_EXIT_FAILURE;
            }
            fprintf(stderr, " done\n");
            free(data);
            if (json)
                print_json_row(&in, sizes[si], (unsigned)repeat, res);
            else
                print_text_row(&in, sizes[si], res);
        }
    }
    return CLI_EXIT_OK;
}
